#!/usr/bin/env python3
"""A bounded TCP check for the AF_XDP lab test: `tcp_echo.py serve IP PORT N` accepts N connections (60 s at most)
and echoes what each sends; `tcp_echo.py send IP PORT BYTES` connects, sends BYTES bytes, reads them back and
prints "ok BYTES" when every byte came back unchanged (10 s timeout)."""
import socket
import sys


def serve(ip, port, n):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((ip, port))
    s.listen(4)
    s.settimeout(60)
    for _ in range(n):
        c, _ = s.accept()
        c.settimeout(10)
        with c:
            while True:
                b = c.recv(65536)
                if not b:
                    break
                c.sendall(b)


def send(ip, port, nbytes):
    data = bytes(i * 7 % 251 for i in range(nbytes))
    c = socket.create_connection((ip, port), timeout=10)
    c.sendall(data)
    c.shutdown(socket.SHUT_WR)
    back = bytearray()
    while True:
        b = c.recv(65536)
        if not b:
            break
        back += b
    print(("ok %d" if bytes(back) == data else "bad %d") % len(back))


if __name__ == "__main__":
    (serve if sys.argv[1] == "serve" else send)(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
