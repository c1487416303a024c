#!/usr/bin/env python3
"""Write UET test captures for the Wireshark dissector test (scripts/wireshark/uet.lua).

Usage: gen_uet_pcap.py OUTDIR

Writes, into OUTDIR:
  uet_good.pcap       one frame of each kind uetemu sends (data SOM, data middle segment, data EOM+RETX, trimmed
                      with DSCP 18, ACK_CC with a SACK bitmap, ACK_CC with P, NACK UET_TRIMMED, CP PROBE), then one
                      frame of every other PDS type and SES header of the spec (section 1), all well formed.
  uet_truncated.pcap  frames whose UET headers are shorter than their minimum length, plus one frame cut by the
                      capture snaplen.
  uet_lowport.pcap    data frames whose entropy (UDP source port) is below the UET port on a port another
                      protocol registered: 53 (DNS), 269 (PacketBB), 319 and 320 (PTP).
  uet_crc.pcap        frames with a CRC-32C trailer on every UET frame but the trimmed one, for the preference
                      crc_trailer; the last one's trailer is wrong.
  expect.json         per frame of each capture: the field values written (keys are field names without the
                      protocol prefix, "@info" is a substring the Info column must contain, "@expert" an expert
                      info abbreviation (without prefix) that must be present).

The frames follow emul/wire/wire.h: Ethernet II / IPv4 (IHL 5, DF, TTL 255, ECN ECT(1), DSCP by role) / UDP
(dport 4793, sport = entropy, checksum 0) / PDS (+ SES + payload). Pcap: nanosecond resolution (magic 0xa1b23c4d),
linktype 1 (Ethernet). Python 3 standard library only.
"""

import json
import os
import struct
import sys

UET_PORT = 4793
LINKTYPE_ETHERNET = 1
PCAP_MAGIC_NS = 0xA1B23C4D

# DSCP by role (wire_dscp_defaults).
DSCP_NO_TRIM, DSCP_TRIMMABLE, DSCP_TRIMMABLE_RTX = 0, 8, 10
DSCP_TRIMMED, DSCP_TRIMMED_LASTHOP, DSCP_CONTROL = 16, 18, 46
ECN_ECT1 = 1

# PDS types, next_hdr values, flags.
T_TSS, T_RUD, T_ROD, T_RUDI_REQ, T_RUDI_RESP, T_UUD = 1, 2, 3, 4, 5, 6
T_ACK, T_ACK_CC, T_ACK_CCX, T_NACK, T_CP, T_NACK_CCX, T_RUD_CC, T_ROD_CC = 7, 8, 9, 10, 11, 12, 13, 14
NH_NONE, NH_REQ_SMALL, NH_REQ_MEDIUM, NH_REQ_STD, NH_RSP, NH_RSP_DATA, NH_RSP_DATA_SMALL = 0, 1, 2, 3, 4, 5, 6
REQ_RETX, REQ_AR, REQ_SYN = 0x10, 0x08, 0x04
ACK_M, ACK_RETX, ACK_P = 0x20, 0x10, 0x08
NACK_M, NACK_RETX, NACK_NT = 0x20, 0x10, 0x08
CTL_NOOP, CTL_CREDIT, CTL_PROBE = 0, 7, 6
SES_SOM, SES_EOM, SES_HD = 0x01, 0x02, 0x04
OP_WRITE, OP_READ, OP_ATOMIC, OP_SEND, OP_RDV_SEND = 1, 2, 3, 5, 6

MAC_A = bytes.fromhex("020000000001")
MAC_B = bytes.fromhex("020000000002")
IP_A = bytes([10, 0, 0, 1])
IP_B = bytes([10, 0, 0, 2])


def csum(data):
    """RFC 1071 Internet checksum."""
    if len(data) % 2:
        data += b"\x00"
    s = 0
    for (w,) in struct.iter_unpack("!H", data):
        s += w
        s = (s & 0xFFFF) + (s >> 16)
    return (~s) & 0xFFFF


def frame(l4_payload, dscp, sport, fwd=True, ip_id=0, dport=UET_PORT, ecn=ECN_ECT1, pad_to=0, native=False):
    """Ethernet II / IPv4 / UDP around @l4_payload (the UET bytes); with @native, IPv4 protocol 253 and the
    4-byte entropy header (entropy @sport, reserved 0) instead of UDP."""
    l4_len = (4 if native else 8) + len(l4_payload)
    ip_len = 20 + l4_len
    src_ip, dst_ip = (IP_A, IP_B) if fwd else (IP_B, IP_A)
    src_mac, dst_mac = (MAC_A, MAC_B) if fwd else (MAC_B, MAC_A)
    ip = bytearray(struct.pack("!BBHHHBBH4s4s", 0x45, (dscp << 2) | ecn, ip_len, ip_id, 0x4000, 255,
                               253 if native else 17, 0, src_ip, dst_ip))
    struct.pack_into("!H", ip, 10, csum(bytes(ip)))
    l4 = struct.pack("!HH", sport, 0) if native else struct.pack("!HHHH", sport, dport, l4_len, 0)
    f = dst_mac + src_mac + struct.pack("!H", 0x0800) + bytes(ip) + l4 + l4_payload
    if len(f) < pad_to:
        f += bytes(pad_to - len(f))
    return f


def prologue(ptype, nh, flags):
    return struct.pack("!H", (ptype & 0x1F) << 11 | (nh & 0xF) << 7 | (flags & 0x7F))


def be24(v):
    return struct.pack("!I", v & 0xFFFFFF)[1:]


def pds_req(ptype, flags, psn, spdcid, dpdcid, clear_off=0, nh=NH_REQ_STD, ccc_id=0, credit_target=0):
    h = prologue(ptype, nh, flags) + struct.pack("!hIHH", clear_off, psn, spdcid, dpdcid)
    if ptype in (T_RUD_CC, T_ROD_CC):
        h += bytes([ccc_id]) + be24(credit_target)
    return h


def ses_std(opcode, flags, message_id, job_id, pid_on_fep, resource_index, buffer_offset, initiator, memory_key,
            request_length, header_data=0, payload_length=0, message_offset=0, ri_gen=0, ver=0):
    h = struct.pack("!BBH", opcode & 0x3F, (ver & 3) << 6 | (flags & 0x3F), message_id)
    h += bytes([ri_gen]) + be24(job_id)
    h += struct.pack("!HHQIQ", pid_on_fep & 0xFFF, resource_index & 0xFFF, buffer_offset, initiator, memory_key)
    if flags & SES_SOM:
        h += struct.pack("!Q", header_data)
    else:
        h += struct.pack("!II", payload_length & 0x3FFF, message_offset)
    h += struct.pack("!I", request_length)
    assert len(h) == 44
    return h


def payload(n):
    return bytes(i & 0xFF for i in range(n))


def ack_cc(flags, off2, cack, spdcid, dpdcid, cc_type, cc_flags, mpr, sack_off, bitmap, state, ptype=T_ACK_CC,
           nh=NH_NONE):
    h = prologue(ptype, nh, flags) + struct.pack("!HIHH", off2 & 0xFFFF, cack, spdcid, dpdcid)
    h += bytes([(cc_type & 0xF) << 4 | (cc_flags & 0xF), mpr]) + struct.pack("!hQ", sack_off, bitmap)
    h += state
    return h


def nscc_state(service_time, rc, pend, rcvd_bytes, ooo):
    return struct.pack("!HB", service_time, (rc & 1) << 7 | (pend & 0x7F)) + be24(rcvd_bytes) + struct.pack("!H", ooo)


def nack(flags, code, psn, spdcid, dpdcid, pl, vendor=0, ptype=T_NACK):
    return prologue(ptype, NH_NONE, flags) + struct.pack("!BBIHHI", code, vendor, psn, spdcid, dpdcid, pl)


def cp(ctl, flags, opaque, psn, spdcid, dpdcid, pl):
    return prologue(T_CP, ctl, flags) + struct.pack("!HIHHI", opaque, psn, spdcid, dpdcid, pl)


def crc32c(data):
    """CRC-32C (Castagnoli: reflected 0x82F63B78, initial value and final XOR all ones), bit by bit."""
    c = 0xFFFFFFFF
    for b in data:
        c ^= b
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
    return c ^ 0xFFFFFFFF


def with_crc(uet):
    return uet + struct.pack("!I", crc32c(uet))


def sack_psns(base, bitmap):
    return [(base + n) & 0xFFFFFFFF for n in range(64) if bitmap >> n & 1]


def good_frames():
    """(frame bytes, expectations) of the well-formed capture."""
    out = []
    req_len = 3 * 4096
    mkey = 0x1122334455667788

    # 1. data, first packet of a WRITE: SOM, AR.
    p = pds_req(T_RUD_CC, REQ_AR, 123, 1, 0, clear_off=-3, ccc_id=2, credit_target=0x010203)
    s = ses_std(OP_WRITE, SES_SOM, 7, 0xABC, 5, 1, 0, 2, mkey, req_len, header_data=0xDEADBEEF)
    out.append((frame(p + s + payload(4096), DSCP_TRIMMABLE, 0xC001, ip_id=1), {
        "pds.type": T_RUD_CC, "pds.next_hdr": NH_REQ_STD, "pds.flags": REQ_AR, "pds.flags.ar": 1,
        "pds.flags.retx": 0, "pds.flags.syn": 0, "pds.psn": 123, "pds.spdcid": 1, "pds.dpdcid": 0,
        "pds.clear_psn_offset": -3, "pds.clear_psn": 120, "pds.ccc_id": 2, "pds.credit_target": 0x010203,
        "ses.opcode": OP_WRITE, "ses.som": 1, "ses.eom": 0, "ses.message_id": 7, "ses.job_id": 0xABC,
        "ses.pid_on_fep": 5, "ses.resource_index": 1, "ses.initiator": 2, "ses.memory_key": mkey,
        "ses.header_data": 0xDEADBEEF, "ses.request_length": req_len, "payload_len": 4096,
        "@info": "RUD_CC_REQ PSN=123 SPDCID=1 DPDCID=0 [AR] WRITE SOM len=4096", "@absent": ["trimmed"],
    }))
    # 2. data, middle segment: neither SOM nor EOM.
    p = pds_req(T_RUD_CC, 0, 124, 1, 0)
    s = ses_std(OP_WRITE, 0, 7, 0xABC, 5, 1, 0, 2, mkey, req_len, payload_length=4096, message_offset=4096)
    out.append((frame(p + s + payload(4096), DSCP_TRIMMABLE, 0xC002, ip_id=2), {
        "pds.type": T_RUD_CC, "pds.flags": 0, "pds.psn": 124, "ses.som": 0, "ses.eom": 0,
        "ses.payload_length": 4096, "ses.message_offset": 4096, "ses.request_length": req_len,
        "payload_len": 4096, "@info": "RUD_CC_REQ PSN=124 SPDCID=1 DPDCID=0 WRITE len=4096 off=4096",
    }))
    # 3. data, last segment, retransmitted: EOM, RETX, DSCP TRIMMABLE_RTX.
    p = pds_req(T_RUD_CC, REQ_RETX | REQ_AR, 125, 1, 0)
    s = ses_std(OP_SEND, SES_EOM, 8, 0xABC, 5, 1, 0, 2, 0, 5000, payload_length=904, message_offset=4096)
    out.append((frame(p + s + payload(904), DSCP_TRIMMABLE_RTX, 0xC003, ip_id=3), {
        "pds.type": T_RUD_CC, "pds.flags": REQ_RETX | REQ_AR, "pds.flags.retx": 1, "pds.flags.ar": 1,
        "pds.psn": 125, "ses.opcode": OP_SEND, "ses.som": 0, "ses.eom": 1, "ses.message_id": 8,
        "ses.payload_length": 904, "ses.message_offset": 4096, "ses.request_length": 5000, "payload_len": 904,
        "@info": "RUD_CC_REQ PSN=125 SPDCID=1 DPDCID=0 [RETX AR] SEND EOM len=904 off=4096",
    }))
    # 4. trimmed by a last-hop switch: only the 16 B request header, next_hdr still REQ_STD, DSCP 18.
    p = pds_req(T_RUD_CC, REQ_AR, 126, 1, 0)
    out.append((frame(p, DSCP_TRIMMED_LASTHOP, 0xC004, ip_id=4), {
        "pds.type": T_RUD_CC, "pds.next_hdr": NH_REQ_STD, "pds.psn": 126, "trimmed": 1, "trim_dscp": 18,
        "@info": "RUD_CC_REQ PSN=126 SPDCID=1 DPDCID=0 [AR] TRIMMED DSCP=18 (TRIMMED_LASTHOP)",
        "@expert": "expert.trimmed", "@absent": ["ses", "ses.opcode"],
    }))
    # 5. ACK_CC with a SACK bitmap and NSCC state.
    bitmap = 0x8000000000000005
    a = ack_cc(ACK_M, 2, 123, 0, 1, 0, 0, 128, 1, bitmap, nscc_state(25, 1, 3, 0x000123, 2))
    out.append((frame(a, DSCP_CONTROL, 0xC005, fwd=False, ip_id=5), {
        "pds.type": T_ACK_CC, "pds.next_hdr": NH_NONE, "pds.flags.m": 1, "pds.flags.p": 0,
        "pds.ack_psn_offset": 2, "pds.ack_psn": 125, "pds.cack_psn": 123, "pds.spdcid": 0, "pds.dpdcid": 1,
        "pds.cc_type": 0, "pds.mpr": 128, "pds.sack_psn_offset": 1, "pds.sack_base": 124,
        "pds.sack_bitmap": bitmap, "pds.sack_count": 3, "pds.sack_psn": sack_psns(124, bitmap),
        "pds.nscc.service_time": 25, "pds.nscc.rc": 1, "pds.nscc.rcv_cwnd_pend": 3, "pds.nscc.rcvd_bytes": 0x123,
        "pds.nscc.ooo_count": 2,
        "@info": "ACK_CC CACK=123 SACK base=124 bitmap=0x8000000000000005 ACK_PSN=125 SPDCID=0 DPDCID=1 [M]",
    }))
    # 6. ACK_CC answering a probe: P set, bytes 2-3 are probe_opaque.
    a = ack_cc(ACK_P, 0xBEEF, 130, 0, 1, 0, 0, 128, 0, 0, nscc_state(10, 0, 0, 0x200, 0))
    out.append((frame(a, DSCP_CONTROL, 0xC006, fwd=False, ip_id=6), {
        "pds.type": T_ACK_CC, "pds.flags.p": 1, "pds.probe_opaque": 0xBEEF, "pds.cack_psn": 130,
        "pds.sack_base": 130, "pds.sack_bitmap": 0, "pds.sack_count": 0,
        "@info": "ACK_CC CACK=130 SACK base=130 bitmap=0x0000000000000000 probe_opaque=0xbeef", "@absent":
            ["pds.ack_psn"],
    }))
    # 7. NACK for a trimmed packet.
    n = nack(0, 0x01, 5, 0, 1, 6)
    out.append((frame(n, DSCP_CONTROL, 0xC007, fwd=False, ip_id=7), {
        "pds.type": T_NACK, "pds.nack_code": 0x01, "pds.vendor_code": 0, "pds.nack_psn": 5, "pds.spdcid": 0,
        "pds.dpdcid": 1, "pds.nack_payload": 6, "@info": "NACK UET_TRIMMED PSN=5",
    }))
    # 8. CP PROBE: payload is the SACK base PSN.
    c = cp(CTL_PROBE, REQ_AR, 0xBEEF, 127, 1, 0, 124)
    out.append((frame(c, DSCP_CONTROL, 0xC008, ip_id=8), {
        "pds.type": T_CP, "pds.ctl_type": CTL_PROBE, "pds.flags.ar": 1, "pds.probe_opaque": 0xBEEF,
        "pds.psn": 127, "pds.spdcid": 1, "pds.dpdcid": 0, "pds.cp_payload": 124,
        "@info": "CP PROBE PSN=127 SPDCID=1 DPDCID=0 SACK_base=124",
    }))

    # The other PDS types and SES headers of the spec.
    # 9. NACK UET_TRIMMED_LASTHOP with M, in answer to frame 4.
    n = nack(NACK_M, 0x02, 126, 0, 1, 127)
    out.append((frame(n, DSCP_CONTROL, 0xC009, fwd=False), {
        "pds.type": T_NACK, "pds.nack_code": 0x02, "pds.flags.m": 1, "pds.nack_psn": 126,
        "@info": "NACK UET_TRIMMED_LASTHOP PSN=126 SPDCID=0 DPDCID=1 [M]",
    }))
    # 10. NACK with an unassigned code: shown as Unknown.
    n = nack(0, 0x40, 9, 0, 1, 0)
    out.append((frame(n, DSCP_CONTROL, 0xC00A, fwd=False), {
        "pds.type": T_NACK, "pds.nack_code": 0x40, "@info": "NACK Unknown (0x40) PSN=9",
    }))
    # 11. RUD_REQ (12 B) with SYN: bytes 10-11 are pdc_info + psn_offset; SES standard READ.
    p = pds_req(T_RUD, REQ_SYN | REQ_AR, 1000, 3, 0x8005, nh=NH_REQ_STD)
    s = ses_std(OP_READ, SES_SOM | SES_EOM, 1, 7, 1, 2, 64, 9, 0xAA, 256)
    out.append((frame(p + s, DSCP_TRIMMABLE, 0xC00B), {
        "pds.type": T_RUD, "pds.flags.syn": 1, "pds.psn": 1000, "pds.spdcid": 3, "pds.pdc_info": 0x8,
        "pds.psn_offset": 5, "pds.start_psn": 995, "ses.opcode": OP_READ, "ses.som": 1, "ses.eom": 1,
        "ses.buffer_offset": 64, "payload_len": 0, "@info": "RUD_REQ PSN=1000 SPDCID=3 START_PSN=995 [AR SYN] READ",
        "@absent": ["pds.dpdcid"],
    }))
    # 12. ROD_REQ with a small SES request (ATOMIC, with its 4 B extension) and 8 B of operand.
    p = pds_req(T_ROD, 0, 77, 4, 5, nh=NH_REQ_SMALL)
    s = struct.pack("!BBH", OP_ATOMIC, SES_SOM | SES_EOM, 8) + bytes([1]) + be24(0x55) + \
        struct.pack("!HHQ", 3, 4, 4096) + bytes([0x02, 0x07, 0x01, 0x00])
    out.append((frame(p + s + payload(8), DSCP_TRIMMABLE, 0xC00C), {
        "pds.type": T_ROD, "pds.next_hdr": NH_REQ_SMALL, "pds.psn": 77, "ses.opcode": OP_ATOMIC,
        "ses.request_length": 8, "ses.job_id": 0x55, "ses.buffer_offset": 4096, "ses.amo.opcode": 0x02,
        "ses.amo.datatype": 0x07, "payload_len": 8, "@info": "ROD_REQ PSN=77 SPDCID=4 DPDCID=5 ATOMIC SOM EOM",
    }))
    # 13. ROD_CC_REQ with a medium SES request (SEND with header data) and 100 B payload.
    p = pds_req(T_ROD_CC, 0, 78, 4, 5, nh=NH_REQ_MEDIUM, ccc_id=1, credit_target=9)
    s = struct.pack("!BBH", OP_SEND, SES_SOM | SES_EOM | SES_HD, 100) + bytes([0]) + be24(0x56) + \
        struct.pack("!HHQIQ", 1, 2, 0x1234, 3, 0xFEED)
    out.append((frame(p + s + payload(100), DSCP_TRIMMABLE, 0xC00D), {
        "pds.type": T_ROD_CC, "pds.next_hdr": NH_REQ_MEDIUM, "ses.opcode": OP_SEND, "ses.hd": 1,
        "ses.request_length": 100, "ses.header_data": 0x1234, "ses.initiator": 3, "ses.memory_key": 0xFEED,
        "payload_len": 100, "@info": "ROD_CC_REQ PSN=78 SPDCID=4 DPDCID=5 SEND SOM EOM len=100",
    }))
    # 14. RUDI_REQ (8 B) with a standard SES request (RENDEZVOUS_SEND with its 24 B extension).
    p = prologue(T_RUDI_REQ, NH_REQ_STD, 0) + struct.pack("!HI", 0, 4242)
    s = ses_std(OP_RDV_SEND, SES_SOM | SES_EOM, 0, 1, 1, 1, 0, 1, 0, 65536)
    s += struct.pack("!IHHQQ", 512, 7, 8, 0x100, 0x42)
    out.append((frame(p + s + payload(512), DSCP_TRIMMABLE, 0xC00E), {
        "pds.type": T_RUDI_REQ, "pds.pkt_id": 4242, "ses.opcode": OP_RDV_SEND, "ses.rdv.eager_length": 512,
        "ses.rdv.read_pid_on_fep": 7, "ses.rdv.read_resource_index": 8, "ses.rdv.read_offset": 0x100,
        "payload_len": 512, "@info": "RUDI_REQ PKT_ID=4242 RENDEZVOUS_SEND SOM EOM len=512",
    }))
    # 15. RUDI_RESP (8 B) with M, and a default SES response.
    p = prologue(T_RUDI_RESP, NH_RSP, 0x20) + struct.pack("!HI", 0, 4242)
    s = struct.pack("!BBH", 0, 0x01, 0) + bytes([0]) + be24(1) + struct.pack("!I", 65536)
    out.append((frame(p + s, DSCP_CONTROL, 0xC00F, fwd=False), {
        "pds.type": T_RUDI_RESP, "pds.flags.m": 1, "pds.pkt_id": 4242, "ses.rsp.opcode": 0,
        "ses.rsp.return_code": 1, "ses.rsp.modified_length": 65536,
        "@info": "RUDI_RESP PKT_ID=4242 [M] DEFAULT_RESPONSE rc=OK",
    }))
    # 16. UUD_REQ (4 B) with a small SES request (DATAGRAM_SEND) and 32 B payload.
    p = prologue(T_UUD, NH_REQ_SMALL, 0) + struct.pack("!H", 0)
    s = struct.pack("!BBH", 7, SES_SOM | SES_EOM, 32) + bytes([0]) + be24(2) + struct.pack("!HHQ", 1, 1, 0)
    out.append((frame(p + s + payload(32), DSCP_NO_TRIM, 0xC010), {
        "pds.type": T_UUD, "pds.next_hdr": NH_REQ_SMALL, "ses.opcode": 7, "ses.request_length": 32,
        "payload_len": 32, "@info": "UUD_REQ DATAGRAM_SEND SOM EOM len=32",
    }))
    # 17. Plain ACK (12 B) with REQ=Clear and an SES RESPONSE (12 B).
    p = prologue(T_ACK, NH_RSP, 0x02) + struct.pack("!hIHH", 0, 500, 9, 10)
    s = struct.pack("!BBH", 1, 0x01, 33) + bytes([0]) + be24(3) + struct.pack("!I", 4096)
    out.append((frame(p + s, DSCP_CONTROL, 0xC011, fwd=False), {
        "pds.type": T_ACK, "pds.next_hdr": NH_RSP, "pds.flags.req": 1, "pds.cack_psn": 500, "pds.ack_psn": 500,
        "ses.rsp.opcode": 1, "ses.rsp.return_code": 1, "ses.message_id": 33, "ses.rsp.modified_length": 4096,
        "@info": "ACK CACK=500 ACK_PSN=500 SPDCID=9 DPDCID=10 [REQ=request Clear] RESPONSE rc=OK MID=33",
    }))
    # 18. ACK_CC with CREDIT cc_state and a response with data (20 B) carrying 64 B read data.
    st = be24(7777) + bytes(3) + struct.pack("!H", 0xFFFF)
    a = ack_cc(0, 0, 600, 9, 10, 1, 0, 64, 0, 1, st, nh=NH_RSP_DATA)
    s = struct.pack("!BBH", 2, 0x01, 34) + bytes([0]) + be24(3) + struct.pack("!HHII", 12, 64, 4096, 0)
    out.append((frame(a + s + payload(64), DSCP_CONTROL, 0xC012, fwd=False), {
        "pds.type": T_ACK_CC, "pds.next_hdr": NH_RSP_DATA, "pds.cc_type": 1, "pds.credit.credit": 7777,
        "pds.credit.ooo_count": 0xFFFF, "ses.rsp.opcode": 2, "ses.rsp.read_req_message_id": 12,
        "ses.payload_length": 64, "payload_len": 64, "@info": "RESPONSE_W_DATA rc=OK MID=34 len=64",
    }))
    # 19. ACK_CCX (40 B) with a small response with data (12 B) and 16 B of data.
    a = ack_cc(0, 1, 700, 9, 10, 0, 0, 64, 0, 3, bytes(range(16)), ptype=T_ACK_CCX, nh=NH_RSP_DATA_SMALL)
    s = struct.pack("!BBH", 2, 0x01, 16) + bytes([0]) + be24(3) + struct.pack("!I", 699)
    out.append((frame(a + s + payload(16), DSCP_CONTROL, 0xC013, fwd=False), {
        "pds.type": T_ACK_CCX, "pds.cack_psn": 700, "pds.ack_psn": 701, "pds.sack_count": 2,
        "ses.payload_length": 16, "ses.rsp.original_request_psn": 699, "payload_len": 16,
        "@info": "ACK_CCX CACK=700 SACK base=700 bitmap=0x0000000000000003",
    }))
    # 20. NACK_CCX (32 B) with NT (RUDI): the PSN slot is a pkt_id.
    n = nack(NACK_NT, 0x07, 4242, 0, 0, 0, ptype=T_NACK_CCX) + bytes([0x10]) + bytes(15)
    out.append((frame(n, DSCP_CONTROL, 0xC014, fwd=False), {
        "pds.type": T_NACK_CCX, "pds.flags.nt": 1, "pds.nack_code": 0x07, "pds.pkt_id": 4242,
        "pds.nccx_type": 1, "@info": "NACK_CCX NO_PKT_BUFFER PKT_ID=4242", "@absent": ["pds.nack_psn"],
    }))
    # 21. CP CREDIT, in a frame with Ethernet padding to 60 B (the padding is not UET data).
    c = cp(CTL_CREDIT, 0, 0, 0, 1, 2, 65536)
    out.append((frame(c, DSCP_CONTROL, 0xC015, pad_to=60), {
        "pds.type": T_CP, "pds.ctl_type": CTL_CREDIT, "pds.cp_payload": 65536,
        "@info": "CP CREDIT PSN=0 SPDCID=1 DPDCID=2 credit=65536", "@absent": ["trailing"],
    }))
    # 22. CP with an unassigned ctl_type.
    c = cp(12, 0, 0, 1, 1, 2, 0)
    out.append((frame(c, DSCP_CONTROL, 0xC016), {
        "pds.type": T_CP, "pds.ctl_type": 12, "@info": "CP Unknown (0x0c) PSN=1",
    }))
    # 23. Native IPv4 (protocol 253): entropy header, then a CP PROBE.
    c = cp(CTL_PROBE, REQ_AR, 0x1234, 40, 1, 0, 38)
    out.append((frame(c, DSCP_CONTROL, 300, native=True), {
        "entropy": 300, "entropy.rsvd": 0, "pds.type": T_CP, "pds.ctl_type": CTL_PROBE, "pds.psn": 40,
        "@info": "native EV=300 CP PROBE PSN=40",
    }))
    # 24. Native data, and a native trimmed request (40 B datagram).
    p = pds_req(T_ROD_CC, REQ_AR, 41, 1, 0)
    s = ses_std(OP_SEND, SES_SOM | SES_EOM, 3, 1, 1, 1, 0, 0, 0, 32)
    out.append((frame(p + s + payload(32), DSCP_TRIMMABLE, 301, native=True), {
        "entropy": 301, "pds.type": T_ROD_CC, "ses.opcode": OP_SEND, "payload_len": 32,
        "@info": "native EV=301 ROD_CC_REQ PSN=41", "@absent": ["trimmed"],
    }))
    out.append((frame(pds_req(T_RUD_CC, 0, 42, 1, 0), DSCP_TRIMMED, 302, native=True), {
        "entropy": 302, "pds.type": T_RUD_CC, "trimmed": 1, "@expert": "expert.trimmed",
        "@info": "native EV=302 RUD_CC_REQ PSN=42 SPDCID=1 DPDCID=0 TRIMMED DSCP=16 (TRIMMED)",
    }))
    # 25. A RUD request (12 B) cut at MIN_TRIM (16 UET bytes, 4 of its SES header left): trimmed whatever the DSCP.
    p = pds_req(T_RUD, 0, 43, 1, 0) + ses_std(OP_WRITE, SES_SOM, 1, 1, 1, 1, 0, 0, 0, 8)[:4]
    out.append((frame(p, DSCP_TRIMMABLE, 0xC017), {
        "pds.type": T_RUD, "trimmed": 1, "@expert": "expert.trim_dscp", "@absent": ["ses.opcode"],
    }))
    # 26. NACK with a CRC-32C trailer: 4 bytes where the header says nothing more, recognised by their value.
    n = with_crc(nack(0, 0x01, 44, 0, 1, 45))
    out.append((frame(n, DSCP_CONTROL, 0xC018, fwd=False), {
        "pds.type": T_NACK, "crc": crc32c(n[:-4]), "crc.status": 1, "crc.detected": 1, "@absent": ["trailing"],
        "@info": "NACK UET_TRIMMED PSN=44",
    }))
    # 27. Standard SES request without SOM with a trailer: 4 bytes more than payload_length, recognised.
    p = pds_req(T_RUD_CC, 0, 46, 1, 0)
    s = ses_std(OP_WRITE, 0, 1, 1, 1, 1, 0, 0, 0, 100, payload_length=20, message_offset=80)
    u = with_crc(p + s + payload(20))
    out.append((frame(u, DSCP_TRIMMABLE, 0xC019), {
        "pds.type": T_RUD_CC, "payload_len": 20, "crc.status": 1, "crc.detected": 1,
        "@info": "RUD_CC_REQ PSN=46 SPDCID=1 DPDCID=0 WRITE len=20 off=80 CRC",
    }))
    return out


def crc_frames():
    """Every UET frame with its CRC-32C trailer (none on the trimmed one), for -o <proto>.crc_trailer:TRUE."""
    out = []
    p = pds_req(T_RUD_CC, REQ_AR, 50, 1, 0)
    s = ses_std(OP_WRITE, SES_SOM | SES_EOM, 1, 1, 1, 1, 0, 0, 0, 64, header_data=0)
    u = with_crc(p + s + payload(64))
    out.append((frame(u, DSCP_TRIMMABLE, 0xC101), {
        "pds.type": T_RUD_CC, "payload_len": 64, "crc": crc32c(u[:-4]), "crc.status": 1, "@absent": ["crc.detected"],
        "@info": "WRITE SOM EOM len=64 CRC"}))
    a = with_crc(ack_cc(0, 0, 50, 0, 1, 0, 0, 64, 1, 0, nscc_state(1, 0, 0, 1, 0)))
    out.append((frame(a, DSCP_CONTROL, 0xC101, fwd=False, native=True), {
        "pds.type": T_ACK_CC, "entropy": 0xC101, "crc.status": 1, "@absent": ["trailing"], "@info": "CRC"}))
    out.append((frame(pds_req(T_RUD_CC, 0, 51, 1, 0), DSCP_TRIMMED, 0xC102), {
        "pds.type": T_RUD_CC, "trimmed": 1, "@absent": ["crc"], "@expert": "expert.trimmed"}))
    c = bytearray(with_crc(cp(CTL_NOOP, 0, 0, 52, 1, 0, 0)))
    c[-1] ^= 0xFF
    out.append((frame(bytes(c), DSCP_CONTROL, 0xC103), {
        "pds.type": T_CP, "crc.status": 2, "@expert": "expert.bad_crc", "@info": "[BAD CRC]"}))
    return out


def truncated_frames():
    """Frames whose UET headers are shorter than their minimum length (the IP and UDP lengths are consistent)."""
    out = []
    # Expected Info substrings follow the dissector's "[SHORT <what>: <have> of <need> bytes]".
    out.append((frame(b"\x68", DSCP_TRIMMABLE, 0xD001), {
        "@info": "[SHORT PDS prologue: 1 of 2 bytes]", "@expert": "expert.short"}))
    out.append((frame(pds_req(T_RUD_CC, REQ_AR, 1, 1, 0)[:10], DSCP_TRIMMABLE, 0xD002), {
        "pds.type": T_RUD_CC, "@info": "RUD_CC_REQ [SHORT RUD_CC_REQ header: 10 of 16 bytes]",
        "@expert": "expert.short", "@absent": ["pds.psn"]}))
    out.append((frame(pds_req(T_RUD, 0, 1, 1, 0)[:8], DSCP_TRIMMABLE, 0xD003), {
        "pds.type": T_RUD, "@info": "[SHORT RUD_REQ header: 8 of 12 bytes]", "@expert": "expert.short"}))
    st = nscc_state(1, 0, 0, 0, 0)
    out.append((frame(ack_cc(0, 0, 1, 0, 1, 0, 0, 0, 0, 0, st)[:20], DSCP_CONTROL, 0xD004), {
        "pds.type": T_ACK_CC, "@info": "[SHORT ACK_CC header: 20 of 32 bytes]", "@expert": "expert.short"}))
    out.append((frame(nack(0, 1, 5, 0, 1, 0)[:12], DSCP_CONTROL, 0xD005), {
        "pds.type": T_NACK, "@info": "[SHORT NACK header: 12 of 16 bytes]", "@expert": "expert.short"}))
    out.append((frame(cp(CTL_PROBE, 0, 0, 1, 1, 0, 0)[:8], DSCP_CONTROL, 0xD006), {
        "pds.type": T_CP, "@info": "[SHORT CP header: 8 of 16 bytes]", "@expert": "expert.short"}))
    # Data whose SES header is cut short while the DSCP still says TRIMMABLE: malformed, not trimmed.
    p = pds_req(T_RUD_CC, 0, 2, 1, 0)
    s = ses_std(OP_WRITE, SES_SOM, 1, 1, 1, 1, 0, 0, 0, 100)[:30]
    out.append((frame(p + s, DSCP_TRIMMABLE, 0xD007), {
        "pds.type": T_RUD_CC, "pds.psn": 2, "@info": "[SHORT SES REQ_STD header: 30 of 44 bytes]",
        "@expert": "expert.short", "@absent": ["trimmed", "ses.opcode"]}))
    # ACK with a response SES header of 6 bytes.
    p = prologue(T_ACK, NH_RSP, 0) + struct.pack("!hIHH", 0, 1, 0, 1)
    out.append((frame(p + bytes(6), DSCP_CONTROL, 0xD008), {
        "pds.type": T_ACK, "@info": "[SHORT SES RESPONSE header: 6 of 12 bytes]", "@expert": "expert.short"}))
    # RUDI of 6 bytes, UUD of 3 bytes, ACK_CCX of 36 bytes, NACK_CCX of 20 bytes.
    out.append((frame((prologue(T_RUDI_REQ, NH_REQ_STD, 0) + struct.pack("!HI", 0, 1))[:6], DSCP_TRIMMABLE,
                      0xD009), {"pds.type": T_RUDI_REQ, "@expert": "expert.short"}))
    out.append((frame(prologue(T_UUD, NH_REQ_SMALL, 0) + b"\x00", DSCP_NO_TRIM, 0xD00A), {
        "pds.type": T_UUD, "@expert": "expert.short"}))
    a = ack_cc(0, 0, 1, 0, 1, 0, 0, 0, 0, 0, bytes(16), ptype=T_ACK_CCX)
    out.append((frame(a[:36], DSCP_CONTROL, 0xD00B), {"pds.type": T_ACK_CCX, "@expert": "expert.short"}))
    out.append((frame((nack(0, 1, 1, 0, 1, 0, ptype=T_NACK_CCX) + bytes(16))[:20], DSCP_CONTROL, 0xD00C), {
        "pds.type": T_NACK_CCX, "@expert": "expert.short"}))
    # Standard SES request ATOMIC whose atomic extension header is cut short (2 of 4 bytes).
    p = pds_req(T_RUD_CC, 0, 3, 1, 0)
    s = ses_std(OP_ATOMIC, SES_SOM | SES_EOM, 1, 1, 1, 1, 0, 0, 0, 8) + b"\x02\x07"
    out.append((frame(p + s, DSCP_TRIMMABLE, 0xD00D), {
        "ses.opcode": OP_ATOMIC, "@info": "[SHORT SES atomic extension header: 2 of 4 bytes]",
        "@expert": "expert.short"}))
    return out


def snaplen_frame():
    """A full data frame of which only the first 60 bytes were captured (pcap caplen < len)."""
    p = pds_req(T_RUD_CC, REQ_AR, 9, 1, 0)
    s = ses_std(OP_WRITE, SES_SOM, 1, 1, 1, 1, 0, 0, 0, 1024, header_data=1)
    f = frame(p + s + payload(1024), DSCP_TRIMMABLE, 0xD00F)
    return f, 60, {"pds.type": T_RUD_CC, "pds.psn": 9, "@expert": "expert.snaplen",
                   "@info": "[SES REQ_STD header: 2 of 44 bytes captured]"}


def write_pcap(path, records):
    """@records: (frame bytes, captured length or None). Nanosecond pcap, Ethernet."""
    with open(path, "wb") as fh:
        fh.write(struct.pack("<IHHiIII", PCAP_MAGIC_NS, 2, 4, 0, 0, 65535, LINKTYPE_ETHERNET))
        t_ns = 1_700_000_000 * 10**9
        for i, (data, caplen) in enumerate(records):
            ts = t_ns + i * 1500  # 1.5 us apart
            cap = len(data) if caplen is None else caplen
            fh.write(struct.pack("<IIII", ts // 10**9, ts % 10**9, cap, len(data)))
            fh.write(data[:cap])


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    outdir = argv[1]
    os.makedirs(outdir, exist_ok=True)

    good = good_frames()
    write_pcap(os.path.join(outdir, "uet_good.pcap"), [(f, None) for f, _ in good])

    trunc = truncated_frames()
    sf, scap, sexp = snaplen_frame()
    write_pcap(os.path.join(outdir, "uet_truncated.pcap"), [(f, None) for f, _ in trunc] + [(sf, scap)])

    p = pds_req(T_RUD_CC, REQ_AR, 55, 1, 0)
    s = ses_std(OP_WRITE, SES_SOM | SES_EOM, 1, 1, 1, 1, 0, 0, 0, 64, header_data=0)
    lows = [frame(p + s + payload(64), DSCP_TRIMMABLE, port) for port in (53, 269, 319, 320)]
    write_pcap(os.path.join(outdir, "uet_lowport.pcap"), [(f, None) for f in lows])

    crc = crc_frames()
    write_pcap(os.path.join(outdir, "uet_crc.pcap"), [(f, None) for f, _ in crc])

    expect = {
        "uet_good.pcap": [e for _, e in good],
        "uet_truncated.pcap": [e for _, e in trunc] + [sexp],
        "uet_lowport.pcap": [{"pds.type": T_RUD_CC, "pds.psn": 55, "@info": "RUD_CC_REQ PSN=55"}] * 4,
        "uet_crc.pcap": [e for _, e in crc],
    }
    with open(os.path.join(outdir, "expect.json"), "w") as fh:
        json.dump(expect, fh, indent=1, sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
