#!/usr/bin/env python3
"""Interop vectors: one frame of every UET 1.0 PDS type and SES header form, in the style of xdp2's scapy UET
generators, for a receiver to take from a real port (tests/lab/test_uet_vectors.sh).

Usage: gen_uet_vectors.py OUTDIR [--dst-ip 10.0.0.3] [--dst-mac 02:00:00:00:00:03]

Writes into OUTDIR:
  uet_vectors.pcap      every vector twice: over UDP to port 4793 (entropy in the source port) and native (IPv4
                        protocol 253 + the 4-byte entropy header); no CRC trailer
  uet_vectors_crc.pcap  the same frames with a CRC-32C trailer after the payload (none on a trimmed request, none
                        on a TSS frame, whose ICV protects it)
  uet_vectors_crc_refprov.pcap  the same with the trailer of the UEC reference provider's coverage: from the
                        IPv4 source address to the end of the payload (addresses, UDP or entropy header, UET bytes)
  uet_vectors.json      one entry per vector: name, pds (PDS class), ses (SES header classes, extension included),
                        used (whether the decoder gives it one of the kinds of uetemu's own frames), ignored (the
                        NIC counts it as not_used: TSS, unreadable without keys), answer (what a UET NIC answers,
                        answer_of() below), frames per pcap

Every header is built here byte by byte from the layouts of the UET 1.0 specification (the project's wire-format
reference, section 1: PDS types and header lengths, SES headers, CC state, entropy header, CRC trailer), with
struct, independently of uetemu's encoder; scapy only stacks Ethernet / IPv4 / UDP around them and writes the pcap.
All multi-byte fields are big-endian. The CRC-32C (Castagnoli, reflected 0x82F63B78, initial value and final XOR
all ones) covers the UET bytes from the PDS (or TSS) header to the end of the payload and is appended big-endian;
in the refprov pcap it covers from the IPv4 source address on, and the IPv4 (and UDP) length count it.
"""

import argparse
import json
import os
import struct
import sys

from scapy.all import IP, UDP, Ether, Raw, wrpcap  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from crc32c import crc32c  # noqa: E402  (tests/lib: the CRC-32C the tests share)

UET_PORT = 4793
IPPROTO_UET = 253
SRC_IP, SRC_MAC = "10.0.0.9", "02:aa:bb:cc:dd:ee"   # a peer the receiver does not know
DSCP_DATA, DSCP_TRIMMED, DSCP_CONTROL = 8, 16, 46

# PDS types (spec 1.2).
TSS, RUD, ROD, RUDI_REQ, RUDI_RESP, UUD = 1, 2, 3, 4, 5, 6
ACK, ACK_CC, ACK_CCX, NACK, CP, NACK_CCX, RUD_CC, ROD_CC = 7, 8, 9, 10, 11, 12, 13, 14
# next_hdr values.
NH_NONE, NH_SMALL, NH_MEDIUM, NH_STD, NH_RSP, NH_RSP_DATA, NH_RSP_DATA_SMALL = 0, 1, 2, 3, 4, 5, 6
# Flags.
F_RETX, F_AR, F_SYN = 0x10, 0x08, 0x04          # requests, CP (and ISROD 0x20)
F_M, F_P, F_NT = 0x20, 0x08, 0x08               # ACK M/P, NACK NT
F_ISROD = 0x20
# SES request flags and opcodes.
SOM, EOM, HD, REL, DC = 0x01, 0x02, 0x04, 0x08, 0x20
OP = dict(NO_OP=0, WRITE=1, READ=2, ATOMIC=3, FETCHING_ATOMIC=4, SEND=5, RENDEZVOUS_SEND=6, DATAGRAM_SEND=7,
          DEFERRABLE_SEND=8, TAGGED_SEND=9, RENDEZVOUS_TSEND=0xA, DEFERRABLE_TSEND=0xB, DEFERRABLE_RTR=0xC,
          TSEND_ATOMIC=0xD, TSEND_FETCH_ATOMIC=0xE, MSG_ERROR=0xF)
AMO_BXOR, AMO_SUM, AMO_CSWAP, AMO_CSWAP_GE = 0x0A, 0x02, 0x0D, 0x11
CTL = ["noop", "ack_req", "clear", "clear_req", "close", "close_req", "probe", "credit", "credit_req",
       "negotiation"]

PDS_CLASS = {TSS: "tss", RUD: "rud_req", ROD: "rod_req", RUDI_REQ: "rudi_req", RUDI_RESP: "rudi_resp",
             UUD: "uud_req", ACK: "ack", ACK_CC: "ack_cc", ACK_CCX: "ack_ccx", NACK: "nack", NACK_CCX: "nack_ccx",
             RUD_CC: "rud_cc_req", ROD_CC: "rod_cc_req"}
SES_CLASS = {NH_NONE: "none", NH_SMALL: "small", NH_MEDIUM: "medium", NH_STD: "std", NH_RSP: "response",
             NH_RSP_DATA: "response_data", NH_RSP_DATA_SMALL: "response_data_small"}


# ---- PDS headers (spec 1.3; sizes include the 2-byte prologue) ----

def prologue(ptype, nh, flags):
    """type [15:11], next_hdr or ctl_type [10:7], flags [6:0]."""
    return struct.pack(">H", (ptype << 11) | (nh << 7) | flags)


def dpdcid_or_syn(flags, dpdcid, pdc_info=0, psn_offset=0):
    """Bytes 10-11 of a request or CP: DPDCID, or pdc_info (4 bits) + psn_offset (12 bits) when SYN is set."""
    if flags & F_SYN:
        return struct.pack(">H", (pdc_info << 12) | psn_offset)
    return struct.pack(">H", dpdcid)


def pds_request(ptype, nh, flags, clear_off, psn, spdcid, dpdcid=0, psn_offset=0, ccc_id=None, credit=0):
    """RUD / ROD request, 12 B; RUD_CC / ROD_CC add ccc_id u8 + credit_target u24 (16 B)."""
    h = prologue(ptype, nh, flags) + struct.pack(">hIH", clear_off, psn, spdcid)
    h += dpdcid_or_syn(flags, dpdcid, 0, psn_offset)
    if ptype in (RUD_CC, ROD_CC):
        h += struct.pack(">B", ccc_id) + credit.to_bytes(3, "big")
    return h


def pds_rudi(ptype, nh, flags, pkt_id):
    """RUDI request / response, 8 B: prologue, reserved u16, pkt_id u32."""
    return prologue(ptype, nh, flags) + struct.pack(">HI", 0, pkt_id)


def pds_uud(nh):
    """UUD request, 4 B: prologue + reserved u16."""
    return prologue(UUD, nh, 0) + b"\x00\x00"


def nscc_state(service_time, rc, pend, rcvd_bytes, ooo):
    return struct.pack(">HB", service_time, (rc << 7) | pend) + rcvd_bytes.to_bytes(3, "big") + \
        struct.pack(">H", ooo)


def credit_state(credit, ooo):
    return credit.to_bytes(3, "big") + b"\x00\x00\x00" + struct.pack(">H", ooo)


def pds_ack(ptype, nh, flags, off_or_opaque, cack, spdcid, dpdcid, cc_type=0, cc_flags=0, mpr=0, sack_off=0,
            bitmap=0, state=b"\x00" * 8, ccx_state=b"\x00" * 8):
    """ACK 12 B; ACK_CC + cc_type/cc_flags, MPR, sack_psn_offset, sack_bitmap, ack_cc_state (32 B); ACK_CCX + 8 B
    of CCX state (40 B)."""
    h = prologue(ptype, nh, flags) + struct.pack(">HIHH", off_or_opaque & 0xFFFF, cack, spdcid, dpdcid)
    if ptype == ACK:
        return h
    h += struct.pack(">BBhQ", (cc_type << 4) | cc_flags, mpr, sack_off, bitmap) + state
    if ptype == ACK_CCX:
        h += ccx_state
    return h


def pds_nack(ptype, flags, code, vendor, psn, spdcid, dpdcid, payload, ccx=b"\x00" * 16):
    """NACK 16 B (next_hdr 0); NACK_CCX + 16 B starting with the 4-bit nccx_type (32 B)."""
    h = prologue(ptype, NH_NONE, flags) + struct.pack(">BBIHHI", code, vendor, psn, spdcid, dpdcid, payload)
    return h + ccx if ptype == NACK_CCX else h


def pds_cp(ctl, flags, opaque, psn, spdcid, dpdcid, payload, psn_offset=0):
    """Control packet, 16 B: ctl_type in the next_hdr slot, probe_opaque, PSN, PDC ids, payload."""
    return prologue(CP, ctl, flags) + struct.pack(">HIH", opaque, psn, spdcid) + \
        dpdcid_or_syn(flags, dpdcid, 0, psn_offset) + struct.pack(">I", payload)


def tss_hdr(sp, an, sdi, ssi, tsc):
    """TSS: type 1 [31:27], SP [26], AN [24], SDI [23:0]; SSI u32 when SP; epoch/TSC u64 (12 B, 16 B with SSI)."""
    h = struct.pack(">I", (TSS << 27) | (sp << 26) | (an << 24) | sdi)
    if sp:
        h += struct.pack(">I", ssi)
    return h + struct.pack(">Q", tsc)


# ---- SES headers (spec 1.4) ----

def ses_common(opcode, flags, mid_or_len, ri_gen=0x77, job=0xABCDEF, pid=0x678, ri=0x9AB, ver=0):
    """The first 12 bytes of a request: opcode, ver + flags, message_id (standard) or rsvd(2) + request_length(14)
    (small, medium), RI generation, job_id u24, rsvd(4) + pid_on_fep(12), rsvd(4) + resource_index(12)."""
    return struct.pack(">BBHB", opcode, (ver << 6) | flags, mid_or_len, ri_gen) + job.to_bytes(3, "big") + \
        struct.pack(">HH", pid, ri)


def ses_std(opcode, flags, mid, payload_len=0, msg_off=0, req_len=0x100000, buf_off=0xFEDCBA9876543210,
            initiator=0xFEDCBA98, mkey=0x1122334455667788, hdr_data=0xAABBCCDDEEFF0011):
    """Standard request, 44 B: header_data with SOM, else rsvd(18) + payload_length(14) and message_offset."""
    h = ses_common(opcode, flags, mid) + struct.pack(">QIQ", buf_off, initiator, mkey)
    if flags & SOM:
        h += struct.pack(">Q", hdr_data)
    else:
        h += struct.pack(">II", payload_len & 0x3FFF, msg_off)
    return h + struct.pack(">I", req_len)


def ses_medium(opcode, flags, req_len, hd_or_buf=0x9876543298765432, initiator=0x87654321, mkey=0xCCBBDDEEFF009988):
    """Medium request, 32 B: header_data (HD set) or buffer_offset, initiator, memory key / match bits."""
    return ses_common(opcode, flags, req_len & 0x3FFF) + struct.pack(">QIQ", hd_or_buf, initiator, mkey)


def ses_small(opcode, flags, req_len, buf_off=0x9876543298765432):
    """Small request, 20 B: the common 12 bytes, then buffer_offset."""
    return ses_common(opcode, flags, req_len & 0x3FFF) + struct.pack(">Q", buf_off)


def ext_atomic(op, dtype=0x0C, ctl=0x03):
    """Atomic extension, 4 B: atomic opcode, datatype, semantic control, reserved."""
    return struct.pack(">BBBB", op, dtype, ctl, 0)


def ext_cas(op=AMO_CSWAP_GE, dtype=0x07, ctl=0x01):
    """Compare-and-swap extension, 36 B: the atomic one, 16 B compare value, 16 B swap value."""
    return ext_atomic(op, dtype, ctl) + struct.pack(">QQQQ", 0x9876543298765432, 0x2345678923456789,
                                                   0x0123456789ABCDEF, 0xFEDCBA0987654321)


def ext_rdv(eager, pid=0x123, ri=0x456, rd_off=0x1000, rd_match=0x0F0E0D0C0B0A0908):
    """Rendezvous extension, 24 B: eager_length, rsvd + read pid_on_fep, rsvd + read RI, read offset, match bits."""
    return struct.pack(">IHHQQ", eager, pid, ri, rd_off, rd_match)


def rsp(opcode, rc, mid, modlen, lst=0, ri_gen=0x99, job=0x654321):
    """Response, 12 B: list(2) + opcode(6), ver(2) + return_code(6), message_id, RI generation, job_id,
    modified_length."""
    return struct.pack(">BBHB", (lst << 6) | opcode, rc, mid, ri_gen) + job.to_bytes(3, "big") + \
        struct.pack(">I", modlen)


def rsp_data(rc, mid, rd_mid, payload_len, modlen, msg_off, job=0x654321):
    """Response with data, 20 B: list/opcode, ver/rc, message_id, rsvd + job_id, read request message_id,
    rsvd(2) + payload_length(14), modified_length, message_offset."""
    return struct.pack(">BBHB", 2, rc, mid, 0) + job.to_bytes(3, "big") + \
        struct.pack(">HHII", rd_mid, payload_len & 0x3FFF, modlen, msg_off)


def rsp_data_small(rc, payload_len, orig_psn, job=0x223344):
    """Small response with data, 12 B: list/opcode, ver/rc, rsvd(2) + payload_length(14), rsvd + job_id,
    original request PSN."""
    return struct.pack(">BBHB", 2, rc, payload_len & 0x3FFF, 0) + job.to_bytes(3, "big") + \
        struct.pack(">I", orig_psn)


def payload(n):
    return bytes(i & 0xFF for i in range(n))


# ---- the vectors ----

def vectors():
    """(name, UET bytes, PDS class, SES classes, used, DSCP, trimmed) for every PDS type and SES form. 'used' is
    whether it has the shape of uetemu's own frames (the decoder's kinds other than uet): RUD_CC / ROD_CC requests
    with a standard SES header carrying SEND or WRITE (and their trims), ACK_CC with NSCC state (alone or with a
    response), NACK, and the PROBE CP. The NIC acts on the others too (answer_of())."""
    v = []

    def add(name, uet, pds, ses, used, dscp=DSCP_CONTROL, trimmed=False):
        v.append(dict(name=name, uet=uet, pds=pds, ses=ses, used=used, dscp=dscp, trimmed=trimmed))

    p = payload(64)
    # -- PDS requests: RUD, ROD with and without CC state and SYN (standard SES, SOM + EOM, WRITE) --
    psn = 0x98765432
    for ptype in (RUD, ROD, RUD_CC, ROD_CC):
        for syn in (False, True):
            flags = F_RETX | F_AR | (F_SYN if syn else 0)
            spdcid = 0x3400 + ptype * 2 + syn
            h = pds_request(ptype, NH_STD, flags, 0x12, psn, spdcid, dpdcid=0x9ABC, psn_offset=0,
                            ccc_id=0x77, credit=0x887766)
            used = ptype in (RUD_CC, ROD_CC)
            add("%s%s_std_write" % (PDS_CLASS[ptype], "_syn" if syn else ""),
                h + ses_std(OP["WRITE"], SOM | EOM, 0x1234, req_len=len(p)) + p, PDS_CLASS[ptype], ["std"], used,
                DSCP_DATA)
    add("rud_cc_req_std_send", pds_request(RUD_CC, NH_STD, F_AR, 0, 7, 0x3500, dpdcid=0, ccc_id=1, credit=0) +
        ses_std(OP["SEND"], SOM | EOM, 0x42, req_len=len(p)) + p, "rud_cc_req", ["std"], True, DSCP_DATA)
    add("rod_cc_req_std_read", pds_request(ROD_CC, NH_STD, F_AR, 0, 9, 0x3501, dpdcid=0, ccc_id=1, credit=0) +
        ses_std(OP["READ"], SOM | EOM, 0x43, req_len=4096), "rod_cc_req", ["std"], False, DSCP_DATA)
    # RUDI and UUD requests, RUDI response
    add("rudi_req_std", pds_rudi(RUDI_REQ, NH_STD, F_M, 0x99887766) +
        ses_std(OP["SEND"], SOM | EOM, 0x1234, req_len=len(p)) + p, "rudi_req", ["std"], False, DSCP_DATA)
    add("uud_req_std", pds_uud(NH_STD) + ses_std(OP["DATAGRAM_SEND"], SOM | EOM, 0, req_len=len(p)) + p,
        "uud_req", ["std"], False, DSCP_DATA)
    add("rudi_resp_response", pds_rudi(RUDI_RESP, NH_RSP, F_M, 0x99887766) + rsp(1, 0x01, 0x1234, 0x9ABCDEF),
        "rudi_resp", ["response"], False)
    add("rudi_resp_none", pds_rudi(RUDI_RESP, NH_NONE, 0, 0x99887767), "rudi_resp", ["none"], False)

    # -- ACKs: ACK, ACK_CC (NSCC, credit), ACK_CCX; alone and with a default response --
    nscc = nscc_state(0x99AA, 1, 0x7F, 0x887766, 0x8765)
    add("ack_response", pds_ack(ACK, NH_RSP, F_M | F_RETX, 0x8642, 0x2468ACE0, 0x3456, 0x789A) +
        rsp(0, 0x09, 0x1234, 0x9ABCDEF), "ack", ["response"], False)
    add("ack_none", pds_ack(ACK, NH_NONE, 0, 5, 0x2468ACE1, 0x3456, 0x789A), "ack", ["none"], False)
    add("ack_cc_nscc", pds_ack(ACK_CC, NH_NONE, F_M, 0x0003, 0x2468ACE0, 0x3456, 0x789A, 0, 0xF, 0x87, 0x0001,
                               0x123456789ABCDEF0, nscc), "ack_cc", ["none"], True)
    add("ack_cc_nscc_response", pds_ack(ACK_CC, NH_RSP, F_RETX, 0x2121, 0x2468ACE0, 0x3456, 0x789A, 0, 0, 0x40,
                                        0x0001, 0x1, nscc) + rsp(0, 0x01, 0x55, 4096), "ack_cc", ["response"], True)
    add("ack_cc_nscc_probe", pds_ack(ACK_CC, NH_NONE, F_P, 0x5A5A, 0x1000, 0x3456, 0x789A, 0, 0, 64, 1, 0, nscc),
        "ack_cc", ["none"], True)
    add("ack_cc_credit_response", pds_ack(ACK_CC, NH_RSP, F_M | F_RETX, 0x9876, 0x2468ACE0, 0x3456, 0x789A, 1, 0xF,
                                          0x87, -0x6678, 0x123456789ABCDEF0, credit_state(0x123456, 0x8765)) +
        rsp(0, 0x09, 0x1234, 0x9ABCDEF), "ack_cc", ["response"], False)
    add("ack_ccx_response", pds_ack(ACK_CCX, NH_RSP, F_M, 0x9876, 0x2468ACE0, 0x3456, 0x789A, 0xE, 0, 0x87, 0x66,
                                    0x123456789ABCDEF0, struct.pack(">Q", 0x1122334455667788),
                                    struct.pack(">Q", 0x99AABBCCDDEEFF00)) + rsp(0, 0x01, 0x1234, 0),
        "ack_ccx", ["response"], False)
    add("ack_response_data_small", pds_ack(ACK, NH_RSP_DATA_SMALL, 0, 1, 0x100, 0x3456, 0x789A) +
        rsp_data_small(0x01, 8, 0x1234) + payload(8), "ack", ["response_data_small"], False)

    # -- NACKs: NACK (RUD/ROD and RUDI), NACK_CCX --
    add("nack_trimmed", pds_nack(NACK, F_M | F_RETX, 0x01, 0x87, 0x99887766, 0x3456, 0x789A, 0x56789ABC),
        "nack", ["none"], True)
    add("nack_rudi_nt", pds_nack(NACK, F_NT, 0x16, 0, 0x99887766, 0, 0, 0), "nack", ["none"], True)
    add("nack_ccx", pds_nack(NACK_CCX, F_RETX, 0x15, 0x87, 0x99887766, 0x3456, 0x789A, 0x56789ABC,
                             struct.pack(">QQ", (3 << 60) | 0xF, 0x0EDCBA9876543210)), "nack_ccx", ["none"], False)

    # -- control packets: every ctl_type, and SYN / ISROD variants --
    for ctl in range(10):
        flags = F_AR if ctl in (1, 4, 5, 6) else 0
        add("cp_" + CTL[ctl], pds_cp(ctl, flags, 0x9876 if ctl == 6 else 0, 0xCDEF0123, 0xCDEF, 0xFEDC,
                                     0x1000 + ctl), "cp_" + CTL[ctl], ["none"], ctl == 6)
    add("cp_negotiation_syn_isrod", pds_cp(9, F_SYN | F_ISROD | F_RETX, 0, 0xCDEF0123, 0xCDEF, 0, 0,
                                           psn_offset=0x876), "cp_negotiation", ["none"], False)
    add("cp_noop_isrod", pds_cp(0, F_ISROD, 0, 0, 0xCDEF, 0xFEDC, 0), "cp_noop", ["none"], False)
    add("cp_probe_syn", pds_cp(6, F_SYN | F_AR, 0x7777, 0x5000, 0xCDF0, 0, 0x5000, psn_offset=0),
        "cp_probe", ["none"], True)

    # -- SES forms, on a RUD request (no CC state) like xdp2's SES vectors --
    def rud(nh, flags=F_RETX):
        return pds_request(RUD, nh, flags, 0x1234, 0x98765432, 0x3456, dpdcid=0x9ABC)

    add("ses_std_som_read", rud(NH_STD) + ses_std(OP["READ"], DC | REL | SOM | EOM, 0x1234, req_len=0x9988),
        "rud_req", ["std"], False)
    add("ses_std_middle_write", rud(NH_STD) + ses_std(OP["WRITE"], DC | REL, 0x1234, len(p), 0x4000) + p,
        "rud_req", ["std"], False)
    add("ses_std_deferrable_send", rud(NH_STD) + ses_std(OP["DEFERRABLE_SEND"], SOM | EOM, 0x1234,
                                                         buf_off=0x8765432112345678, req_len=len(p)) + p,
        "rud_req", ["std"], False)
    add("ses_std_deferrable_tsend", rud(NH_STD) + ses_std(OP["DEFERRABLE_TSEND"], SOM, 0x1235, req_len=8192) + p,
        "rud_req", ["std"], False)
    add("ses_std_deferrable_rtr", rud(NH_STD) + ses_std(OP["DEFERRABLE_RTR"], SOM | EOM, 0x1234,
                                                        mkey=0x8765432112345678, req_len=0),
        "rud_req", ["std"], False)
    for op in ("ATOMIC", "FETCHING_ATOMIC", "TSEND_ATOMIC", "TSEND_FETCH_ATOMIC"):
        add("ses_std_" + op.lower(), rud(NH_STD) + ses_std(OP[op], SOM | EOM, 0x1234, req_len=8) +
            ext_atomic(AMO_BXOR if op != "TSEND_ATOMIC" else AMO_SUM) + payload(8), "rud_req",
            ["std", "ext_atomic"], False)
    add("ses_std_atomic_cas", rud(NH_STD) + ses_std(OP["ATOMIC"], SOM | EOM, 0x1234, req_len=16) + ext_cas(),
        "rud_req", ["std", "ext_compare_swap"], False)
    add("ses_std_atomic_cas_middle", rud(NH_STD) + ses_std(OP["ATOMIC"], 0, 0x1234, 0, 0, req_len=16) +
        ext_cas(AMO_CSWAP), "rud_req", ["std", "ext_compare_swap"], False)
    add("ses_std_rendezvous_send", rud(NH_STD) + ses_std(OP["RENDEZVOUS_SEND"], SOM, 0x1234, req_len=1 << 20) +
        ext_rdv(len(p)) + p, "rud_req", ["std", "ext_rendezvous"], False)
    add("ses_std_rendezvous_tsend", rud(NH_STD) + ses_std(OP["RENDEZVOUS_TSEND"], SOM | EOM, 0x1234,
                                                          req_len=1 << 16) + ext_rdv(0),
        "rud_req", ["std", "ext_rendezvous"], False)
    add("ses_std_tagged_send", rud(NH_STD) + ses_std(OP["TAGGED_SEND"], SOM | EOM, 0x1234, req_len=len(p)) + p,
        "rud_req", ["std"], False)
    add("ses_std_msg_error", rud(NH_STD) + ses_std(OP["MSG_ERROR"], SOM | EOM, 0x1234, req_len=0),
        "rud_req", ["std"], False)
    add("ses_medium_write", rud(NH_MEDIUM) + ses_medium(OP["WRITE"], DC | REL | SOM | EOM, len(p)) + p,
        "rud_req", ["medium"], False)
    add("ses_medium_send_hd", rud(NH_MEDIUM) + ses_medium(OP["SEND"], HD | SOM | EOM, len(p),
                                                          hd_or_buf=0xA1A2A3A4A5A6A7A8) + p,
        "rud_req", ["medium"], False)
    add("ses_medium_atomic", rud(NH_MEDIUM) + ses_medium(OP["ATOMIC"], SOM | EOM, 8) + ext_atomic(AMO_BXOR) +
        payload(8), "rud_req", ["medium", "ext_atomic"], False)
    add("ses_medium_atomic_cas", rud(NH_MEDIUM) + ses_medium(OP["FETCHING_ATOMIC"], SOM | EOM, 16) + ext_cas(),
        "rud_req", ["medium", "ext_compare_swap"], False)
    add("ses_medium_no_op", rud(NH_MEDIUM) + ses_medium(OP["NO_OP"], SOM | EOM, 0), "rud_req", ["medium"], False)
    add("ses_small_read", rud(NH_SMALL) + ses_small(OP["READ"], SOM | EOM, 256), "rud_req", ["small"], False)
    add("ses_small_write", rud(NH_SMALL) + ses_small(OP["WRITE"], SOM | EOM, len(p)) + p, "rud_req", ["small"],
        False)
    add("ses_small_atomic", rud(NH_SMALL) + ses_small(OP["ATOMIC"], SOM | EOM, 8) + ext_atomic(0x08, 0x0A, 1) +
        payload(8), "rud_req", ["small", "ext_atomic"], False)
    add("ses_small_atomic_cas", rud(NH_SMALL) + ses_small(OP["ATOMIC"], SOM | EOM, 16) + ext_cas(),
        "rud_req", ["small", "ext_compare_swap"], False)
    # responses: every form, on RUDI responses, an ACK and a request (read response data rides a request)
    add("ses_rudi_resp_response", pds_rudi(RUDI_RESP, NH_RSP, F_M, 0x99887766) + rsp(1, 0x09, 0x1234, 0x9ABCDEF, 1),
        "rudi_resp", ["response"], False)
    add("ses_rudi_resp_response_data", pds_rudi(RUDI_RESP, NH_RSP_DATA, F_M, 0x99887766) +
        rsp_data(0x01, 0x1234, 0x1234, len(p), 0x87654321, 0x9ABCDEF) + p, "rudi_resp", ["response_data"], False)
    add("ses_rudi_resp_response_data_small", pds_rudi(RUDI_RESP, NH_RSP_DATA_SMALL, F_M, 0x99887766) +
        rsp_data_small(0x01, len(p), 0x1234) + p, "rudi_resp", ["response_data_small"], False)
    add("ses_rud_response_data", rud(NH_RSP_DATA) + rsp_data(0x01, 0x77, 0x76, len(p), 4096, 2048) + p,
        "rud_req", ["response_data"], False)
    add("ses_rod_cc_response_data_small", pds_request(ROD_CC, NH_RSP_DATA_SMALL, F_AR, 0, 11, 0x3502, ccc_id=2) +
        rsp_data_small(0x01, len(p), 0x99) + p, "rod_cc_req", ["response_data_small"], False)
    add("ses_ack_response_no_response", pds_ack(ACK, NH_RSP, 0, 2, 0x200, 0x3456, 0x789A) + rsp(3, 0x01, 9, 0),
        "ack", ["response"], False)

    # -- TSS security header (what follows is opaque: encrypted PDS/SES/payload and the 16 B ICV) --
    add("tss", tss_hdr(0, 1, 0x123456, 0, 0x0001000000000042) + payload(48), "tss", ["none"], False)
    add("tss_ssi", tss_hdr(1, 0, 0x654321, 0xCAFEF00D, 0x0002000000000043) + payload(32), "tss", ["none"], False)

    # -- trimmed requests: cut after the PDS header, or at MIN_TRIM (16 B of UET) inside the SES header --
    add("trimmed_rud_cc_req", pds_request(RUD_CC, NH_STD, F_AR, 0, 0x4000, 0x3600, ccc_id=1), "rud_cc_req",
        ["trimmed"], True, DSCP_TRIMMED, True)
    add("trimmed_rod_cc_req_medium", pds_request(ROD_CC, NH_MEDIUM, 0, 0, 0x4001, 0x3601, ccc_id=1), "rod_cc_req",
        ["trimmed"], True, DSCP_TRIMMED, True)
    add("trimmed_rud_req_min_trim", (rud(NH_STD) + ses_std(OP["WRITE"], SOM, 1))[:16], "rud_req", ["trimmed"],
        False, DSCP_TRIMMED, True)
    add("trimmed_uud_req", pds_uud(NH_STD), "uud_req", ["trimmed"], False, DSCP_TRIMMED, True)
    add("trimmed_rudi_req_min_trim", (pds_rudi(RUDI_REQ, NH_MEDIUM, 0, 5) + ses_medium(OP["SEND"], SOM | EOM, 0))[:16],
        "rudi_req", ["trimmed"], False, DSCP_TRIMMED, True)
    return v


REQS = ("rud_req", "rod_req", "rud_cc_req", "rod_cc_req")
TRIM_CODE = "nack:0x01"  # UET_TRIMMED: the trimmed vectors carry DSCP_TRIMMED, not the last hop's codepoint


def answer_of(v, mode):
    """What a UET NIC answers to vector v, per UET 1.0 (spec 1.3 NACK codes and control packets, 1.7 PDS
    behaviour), as tokens: ack_cc (the NIC's ACK form; +rsp with an SES response), nack:0xNN, rudi_resp+rsp,
    cp_<ctl_type>, data[_syn][_retx] (a retransmission of the NIC's own message), '-' for none, ' done' when the
    NIC's own message completed. mode "asis": sent by a stranger (no PDC anywhere). mode "open": with the state it
    is meant for (a request carries SYN; an ACK / NACK / CLEAR_REQ / CLOSE_REQ names the PDC and first PSN of the
    NIC's outstanding 4,096 B message; ACK_REQ / CLEAR / CLOSE follow a SYN request that opened the PDC). mode
    "rsp": "open" with SES responses on the NIC's ACKs. uetemu's own data form (RUD_CC_REQ + standard SEND /
    WRITE, and its trim) without SYN for no PDC keeps the Scala pages' silent drop."""
    n, pds, syn = v["name"], v["pds"], "_syn" in v["name"]
    if pds in REQS:
        own = pds == "rud_cc_req" and v["used"]
        if mode == "asis" and not syn:
            return "-" if own else "nack:0x0e"
        if v["trimmed"]:
            return TRIM_CODE
        return "ack_cc+rsp" if mode == "rsp" and v["ses"][0] in ("std", "medium", "small") else "ack_cc"
    if pds == "rudi_req":
        return TRIM_CODE if v["trimmed"] else "rudi_resp+rsp"
    if pds in ("uud_req", "rudi_resp", "tss"):
        return "-"
    if pds in ("ack", "ack_cc", "ack_ccx"):
        return "-" if mode == "asis" or n == "ack_cc_nscc_probe" else "cp_probe done"
    if pds in ("nack", "nack_ccx"):
        if mode == "asis" or n == "nack_rudi_nt":
            return "-"
        return "data_retx" if n == "nack_trimmed" else "data_syn_retx"
    ctl = pds[3:]
    if ctl == "noop":
        return "-"
    if ctl == "probe":
        return "ack_cc"
    if ctl in ("credit", "credit_req", "negotiation"):
        return "nack:0x19"
    if mode == "asis":
        return "nack:0x0e"
    return {"ack_req": "ack_cc", "clear": "ack_cc", "close": "ack_cc", "clear_req": "cp_clear",
            "close_req": "-"}[ctl]


def frame(uet, dscp, entropy, native, dst_ip, dst_mac):
    """Ethernet / IPv4 (DF, ECT(1), TTL 64; scapy fills length and checksum) / UDP to 4793 (checksum 0), or the
    4-byte entropy header (entropy u16, reserved u16) under IPv4 protocol 253."""
    ip = dict(src=SRC_IP, dst=dst_ip, tos=(dscp << 2) | 1, flags="DF", ttl=64, id=0)
    if native:
        pkt = IP(proto=IPPROTO_UET, **ip) / Raw(struct.pack(">HH", entropy, 0) + uet)
    else:
        pkt = IP(**ip) / UDP(sport=entropy, dport=UET_PORT, chksum=0) / Raw(uet)
    return Ether(src=SRC_MAC, dst=dst_mac) / pkt


def ipv4_bytes(addr):
    return bytes(int(x) for x in addr.split("."))


def refprov_frame(v, entropy, native, dst_ip, dst_mac):
    """The frame with the reference provider's trailer: CRC-32C from the IPv4 source address (offset 12 of the IPv4
    header) to the end of the payload, big-endian, counted in the IPv4 (and UDP) length; none on a trimmed request
    or a TSS frame."""
    if v["trimmed"] or v["pds"] == "tss":
        return frame(v["uet"], v["dscp"], entropy, native, dst_ip, dst_mac)
    if native:
        l4 = struct.pack(">HH", entropy, 0)
    else:
        l4 = struct.pack(">HHHH", entropy, UET_PORT, 8 + len(v["uet"]) + 4, 0)
    cov = ipv4_bytes(SRC_IP) + ipv4_bytes(dst_ip) + l4 + v["uet"]
    return frame(v["uet"] + struct.pack(">I", crc32c(cov)), v["dscp"], entropy, native, dst_ip, dst_mac)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--dst-ip", default="10.0.0.3")
    ap.add_argument("--dst-mac", default="02:00:00:00:00:03")
    a = ap.parse_args()
    os.makedirs(a.outdir, exist_ok=True)
    vs = vectors()
    plain, crc, refprov = [], [], []
    for i, v in enumerate(vs):
        entropy = 256 + i % 128  # uetemu's default spraying range: ports other dissectors know well
        for native in (False, True):
            plain.append(frame(v["uet"], v["dscp"], entropy, native, a.dst_ip, a.dst_mac))
            trailer = b"" if v["trimmed"] or v["pds"] == "tss" else struct.pack(">I", crc32c(v["uet"]))
            crc.append(frame(v["uet"] + trailer, v["dscp"], entropy, native, a.dst_ip, a.dst_mac))
            refprov.append(refprov_frame(v, entropy, native, a.dst_ip, a.dst_mac))
    wrpcap(os.path.join(a.outdir, "uet_vectors.pcap"), plain)
    wrpcap(os.path.join(a.outdir, "uet_vectors_crc.pcap"), crc)
    wrpcap(os.path.join(a.outdir, "uet_vectors_crc_refprov.pcap"), refprov)
    man = dict(frames_per_vector=2, encapsulations=["udp", "native_ipv4"],
               vectors=[dict(name=v["name"], pds=v["pds"], ses=v["ses"], used=v["used"], trimmed=v["trimmed"],
                             ignored=v["pds"] == "tss", uet_bytes=len(v["uet"]),
                             answer={m: answer_of(v, m) for m in ("asis", "open", "rsp")}) for v in vs])
    with open(os.path.join(a.outdir, "uet_vectors.json"), "w") as f:
        json.dump(man, f, indent=1)
    print("%d vectors, %d frames per pcap, %d of uetemu's own shapes, %d ignored (TSS)" % (
        len(vs), len(plain), sum(v["used"] for v in vs), sum(v["pds"] == "tss" for v in vs)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
