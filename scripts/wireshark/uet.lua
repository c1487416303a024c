--[[
uet.lua: a Wireshark dissector for the UET (Ultra Ethernet Transport 1.0) frames that uetemu puts on the wire.

Usage
  tshark -X lua_script:scripts/wireshark/uet.lua -r capture.pcap
  tshark -X lua_script:scripts/wireshark/uet.lua -r capture.pcap -V -Y 'uet.trimmed'
  tshark -X lua_script:scripts/wireshark/uet.lua -r capture.pcap -o uet.udp_port:49150
  wireshark -X lua_script:scripts/wireshark/uet.lua capture.pcap
  (or copy the file to ~/.local/lib/wireshark/plugins/ so that it always loads)

  Tested with Wireshark/tshark 4.0 (Debian 12). Lua is enabled for root too ("run_user_scripts_when_superuser" is
  true in Debian's init.lua), so -X lua_script works as root.

Protocol and field names
  The protocol registers as "uet" (filter prefix "uet."). Wireshark 4.0 has no UET dissector of its own. Newer
  Wireshark releases ship a built-in "uet" dissector (packet-uet.c); when that name is taken, the script registers
  as "uetemu" instead (prefix "uetemu."). Set UETEMU_WS_PROTO=<name> in the environment to force a name.
  Whatever the name, this script takes the UDP port from the built-in dissector (DissectorTable udp.port :add
  replaces the entry).

  Fields (with prefix uet.):
    PDS:  pds (the header), pds.type, pds.next_hdr, pds.ctl_type, pds.flags, pds.flags.m, pds.flags.retx,
          pds.flags.ar, pds.flags.p, pds.flags.nt, pds.flags.syn, pds.flags.isrod, pds.flags.req,
          pds.clear_psn_offset, pds.clear_psn, pds.psn, pds.spdcid, pds.dpdcid, pds.pdc_info, pds.psn_offset,
          pds.start_psn, pds.ccc_id, pds.credit_target, pds.ack_psn_offset, pds.ack_psn, pds.probe_opaque,
          pds.cack_psn, pds.cc_type, pds.cc_flags, pds.mpr, pds.sack_psn_offset, pds.sack_base, pds.sack_bitmap,
          pds.sack_count, pds.sack_psn, pds.ack_cc_state, pds.nscc.service_time, pds.nscc.rc,
          pds.nscc.rcv_cwnd_pend, pds.nscc.rcvd_bytes, pds.nscc.ooo_count, pds.credit.credit,
          pds.credit.reserved, pds.credit.ooo_count, pds.ack_ccx_state, pds.nack_code, pds.vendor_code,
          pds.nack_psn, pds.pkt_id, pds.nack_payload, pds.nccx_type, pds.nack_ccx_state, pds.cp_payload, pds.rsvd,
          pds.tss
    SES:  ses (the header), ses.opcode, ses.version, ses.flags, ses.dc, ses.ie, ses.rel, ses.hd, ses.eom,
          ses.som, ses.message_id, ses.ri_generation, ses.job_id, ses.pid_on_fep, ses.resource_index,
          ses.buffer_offset, ses.restart_token, ses.initiator, ses.memory_key, ses.header_data,
          ses.payload_length, ses.message_offset, ses.request_length, ses.amo.opcode, ses.amo.datatype,
          ses.amo.sem_ctl, ses.amo.compare, ses.amo.swap, ses.rdv.eager_length, ses.rdv.read_pid_on_fep,
          ses.rdv.read_resource_index, ses.rdv.read_offset, ses.rdv.read_match_bits, ses.rsp.list,
          ses.rsp.opcode, ses.rsp.return_code, ses.rsp.modified_length, ses.rsp.read_req_message_id,
          ses.rsp.original_request_psn
    Native, trailer: entropy, entropy.rsvd, crc, crc.status (1 good, 2 bad, 0 not checked), crc.detected
    Other: trimmed (boolean: a request that ends after its PDS header although next_hdr names an SES header, at
          16 UET bytes (MIN_TRIM_SIZE) inside its SES header, or inside it when the DSCP is a TRIMMED codepoint;
          shown as "Trimmed request (SES header and payload cut by a switch)", an expert note, not an error),
          trim_dscp, payload, payload_len, trailing
    Expert infos: expert.short (malformed: header shorter than its minimum length), expert.snaplen,
          expert.trimmed, expert.trim_dscp, expert.unknown_type, expert.unknown_next_hdr, expert.tss,
          expert.trailing, expert.reserved, expert.len_mismatch, expert.small_flags, expert.rsp_opcode,
          expert.bad_crc

Preferences (uet.udp_port, uet.dscp_trimmed, uet.dscp_trimmed_lasthop, uet.crc_trailer)
  udp_port: UDP destination port (default 4793). UDP tries the lower of the two ports first, and the entropy value
  in the source port is often below the UET port (uetemu's spraying uses 256..383), where other protocols have
  registered ports (269 PacketBB, 319/320 PTP, ...). The script puts a chooser on every such port below the UET
  port: a datagram to the UET port goes to UET, any other to the protocol that had the port. So frames to the UET
  port are UET whatever their source port, with no option needed. (The UDP heuristic, matching the destination
  port, is still registered for -o udp.try_heuristic_first:TRUE.)
  dscp_trimmed / dscp_trimmed_lasthop: the DSCP codepoints a switch writes into a trimmed packet (16 and 18).
  crc_trailer: every UET frame but a trimmed request or a TSS one ends in a 4-byte CRC-32C trailer (uetemu's
  nic.UETEncapsulation.CrcTrailer), shown as crc and checked. Without it, 4 bytes left over where the headers say
  nothing more comes (or exactly 4 more than payload_length says) are taken for a trailer when they are one.

Native IPv4 (and IPv6) encapsulation: IP protocol 253, then the 4-byte entropy header (entropy u16, reserved u16),
then PDS. The script registers on ip.proto 253; fields entropy, entropy.rsvd.

Layouts: spec/uet-wire-and-algorithms.md section 1 (UET 1.0). All fields are big-endian. Every length is checked
against its named minimum before a field is read, so short or cut frames give an expert info, never a script error.
]]

local DEFAULT_UDP_PORT = 4793
local IPPROTO_UET = 253
local DEFAULT_DSCP_TRIMMED = 16
local DEFAULT_DSCP_TRIMMED_LASTHOP = 18
local PROTO_DESC = "Ultra Ethernet Transport (uetemu)"

-- Register as "uet" unless that name is taken (built-in dissector in newer Wireshark), then as "uetemu".
local function make_proto()
	local forced = os.getenv("UETEMU_WS_PROTO")
	if forced ~= nil and forced ~= "" then
		return Proto(forced, PROTO_DESC), forced
	end
	local ok, p = pcall(Proto, "uet", PROTO_DESC)
	if ok then
		return p, "uet"
	end
	return Proto("uetemu", PROTO_DESC), "uetemu"
end

local uet, PN = make_proto()

---------------------------------------------------------------------------------------------------------------
-- Header sizes (bytes, the PDS ones include the 2-byte prologue).
---------------------------------------------------------------------------------------------------------------
local PDS_PROLOGUE_LEN = 2
local PDS_RUD_ROD_MIN_HDR_LEN = 12
local PDS_RUD_ROD_CC_MIN_HDR_LEN = 16
local PDS_RUDI_MIN_HDR_LEN = 8
local PDS_UUD_MIN_HDR_LEN = 4
local PDS_ACK_MIN_HDR_LEN = 12
local PDS_ACK_CC_MIN_HDR_LEN = 32
local PDS_ACK_CCX_MIN_HDR_LEN = 40
local PDS_NACK_MIN_HDR_LEN = 16
local PDS_NACK_CCX_MIN_HDR_LEN = 32
local PDS_CP_MIN_HDR_LEN = 16
local SES_REQ_SMALL_MIN_HDR_LEN = 20
local SES_REQ_MEDIUM_MIN_HDR_LEN = 32
local SES_REQ_STD_MIN_HDR_LEN = 44
local SES_RSP_MIN_HDR_LEN = 12
local SES_RSP_DATA_MIN_HDR_LEN = 20
local SES_RSP_DATA_SMALL_MIN_HDR_LEN = 12
local SES_ATOMIC_EXT_LEN = 4
local SES_CAS_EXT_LEN = 36
local SES_RDV_EXT_LEN = 24
local ENTROPY_LEN = 4
local CRC_LEN = 4
local MIN_TRIM_LEN = 16 -- MIN_TRIM_SIZE less the UDP header: the UET bytes a trim leaves

-- PDS type codes.
local T_TSS, T_RUD, T_ROD, T_RUDI_REQ, T_RUDI_RESP, T_UUD = 1, 2, 3, 4, 5, 6
local T_ACK, T_ACK_CC, T_ACK_CCX, T_NACK, T_CP, T_NACK_CCX, T_RUD_CC, T_ROD_CC = 7, 8, 9, 10, 11, 12, 13, 14

local PDS_TYPE = {
	[0] = "Reserved", [1] = "TSS", [2] = "RUD_REQ", [3] = "ROD_REQ", [4] = "RUDI_REQ", [5] = "RUDI_RESP",
	[6] = "UUD_REQ", [7] = "ACK", [8] = "ACK_CC", [9] = "ACK_CCX", [10] = "NACK", [11] = "CP", [12] = "NACK_CCX",
	[13] = "RUD_CC_REQ", [14] = "ROD_CC_REQ",
}

local PDS_HDR_LEN = {
	[T_RUD] = PDS_RUD_ROD_MIN_HDR_LEN, [T_ROD] = PDS_RUD_ROD_MIN_HDR_LEN,
	[T_RUDI_REQ] = PDS_RUDI_MIN_HDR_LEN, [T_RUDI_RESP] = PDS_RUDI_MIN_HDR_LEN, [T_UUD] = PDS_UUD_MIN_HDR_LEN,
	[T_ACK] = PDS_ACK_MIN_HDR_LEN, [T_ACK_CC] = PDS_ACK_CC_MIN_HDR_LEN, [T_ACK_CCX] = PDS_ACK_CCX_MIN_HDR_LEN,
	[T_NACK] = PDS_NACK_MIN_HDR_LEN, [T_CP] = PDS_CP_MIN_HDR_LEN, [T_NACK_CCX] = PDS_NACK_CCX_MIN_HDR_LEN,
	[T_RUD_CC] = PDS_RUD_ROD_CC_MIN_HDR_LEN, [T_ROD_CC] = PDS_RUD_ROD_CC_MIN_HDR_LEN,
}

-- Types whose next_hdr names an SES header, and the request types a switch may trim.
local CARRIES_SES = {
	[T_RUD] = true, [T_ROD] = true, [T_RUDI_REQ] = true, [T_RUDI_RESP] = true, [T_UUD] = true,
	[T_ACK] = true, [T_ACK_CC] = true, [T_ACK_CCX] = true, [T_RUD_CC] = true, [T_ROD_CC] = true,
	[T_NACK] = true, [T_NACK_CCX] = true,
}
local TRIMMABLE = {
	[T_RUD] = true, [T_ROD] = true, [T_RUDI_REQ] = true, [T_UUD] = true, [T_RUD_CC] = true, [T_ROD_CC] = true,
}

-- next_hdr values.
local NH_NONE, NH_REQ_SMALL, NH_REQ_MEDIUM, NH_REQ_STD, NH_RSP, NH_RSP_DATA, NH_RSP_DATA_SMALL = 0, 1, 2, 3, 4, 5, 6
local NEXT_HDR = {
	[0] = "NONE", [1] = "REQ_SMALL", [2] = "REQ_MEDIUM", [3] = "REQ_STD", [4] = "RESPONSE",
	[5] = "RESPONSE_DATA", [6] = "RESPONSE_DATA_SMALL",
}
local SES_HDR_LEN = {
	[NH_REQ_SMALL] = SES_REQ_SMALL_MIN_HDR_LEN, [NH_REQ_MEDIUM] = SES_REQ_MEDIUM_MIN_HDR_LEN,
	[NH_REQ_STD] = SES_REQ_STD_MIN_HDR_LEN, [NH_RSP] = SES_RSP_MIN_HDR_LEN,
	[NH_RSP_DATA] = SES_RSP_DATA_MIN_HDR_LEN, [NH_RSP_DATA_SMALL] = SES_RSP_DATA_SMALL_MIN_HDR_LEN,
}

-- Control packet types (in the next_hdr slot) and the meaning of their payload.
local CTL_TYPE = {
	[0] = "NOOP", [1] = "ACK_REQ", [2] = "CLEAR", [3] = "CLEAR_REQ", [4] = "CLOSE", [5] = "CLOSE_REQ",
	[6] = "PROBE", [7] = "CREDIT", [8] = "CREDIT_REQ", [9] = "NEGOTIATION",
}
local CTL_PAYLOAD = {
	[0] = "unused", [1] = "message ID, or 0", [2] = "clear PSN", [3] = "PSN to clear", [4] = "0", [5] = "0",
	[6] = "SACK-bitmap base PSN", [7] = "credit", [8] = "target credit", [9] = "negotiation",
}
local CTL_PAYLOAD_INFO = {
	[1] = "MID", [2] = "CLEAR_PSN", [3] = "CLEAR_PSN", [6] = "SACK_base", [7] = "credit", [8] = "target_credit",
}

-- NACK codes: name, and the error class / source action of the spec table.
local NACK_CODE = {
	[0x01] = "UET_TRIMMED", [0x02] = "UET_TRIMMED_LASTHOP", [0x03] = "TRIMMED_ACK", [0x04] = "NO_PDC_AVAIL",
	[0x05] = "NO_CCC_AVAIL", [0x06] = "NO_BITMAP", [0x07] = "NO_PKT_BUFFER", [0x08] = "NO_GTD_DEL_AVAIL",
	[0x09] = "NO_SES_MSG_AVAIL", [0x0A] = "NO_RESOURCE", [0x0B] = "PSN_OOR_WINDOW", [0x0D] = "ROD_OOO",
	[0x0E] = "INV_DPDCID", [0x0F] = "PDC_HDR_MISMATCH", [0x10] = "CLOSING", [0x11] = "CLOSING_IN_ERR",
	[0x12] = "PKT_NOT_RCVD", [0x13] = "GTD_RESP_UNAVAIL", [0x14] = "ACK_WITH_DATA", [0x15] = "INVALID_SYN",
	[0x16] = "PDC_MODE_MISMATCH", [0x17] = "NEW_START_PSN", [0x18] = "RCVD_SES_PROCG", [0x19] = "UNEXP_EVENT",
	[0x1A] = "RCVR_INFER_LOSS", [0xFD] = "EXP_NORMAL", [0xFE] = "EXP_ERROR", [0xFF] = "EXP_FATAL",
}
local NACK_ACTION = {
	[0x01] = "NORMAL: retransmit", [0x02] = "NORMAL: retransmit", [0x03] = "reserved in 1.0.3",
	[0x04] = "NORMAL: retry; spdcid=0", [0x05] = "NORMAL: retry", [0x06] = "NORMAL: retry",
	[0x07] = "NORMAL: retransmit", [0x08] = "NORMAL: retransmit", [0x09] = "NORMAL: retransmit",
	[0x0A] = "NORMAL: retransmit", [0x0B] = "NORMAL: retransmit if PSN > CACK", [0x0D] = "NORMAL: retransmit",
	[0x0E] = "PDC_FATAL: close PDC, retry", [0x0F] = "PDC_FATAL: close PDC, retry",
	[0x10] = "PDC_FATAL: report error, retry", [0x11] = "PDC_FATAL: close, no retransmit",
	[0x12] = "PDC_ERR: retransmit", [0x13] = "PDC_FATAL: fail", [0x14] = "PDC_ERR: retransmit the original",
	[0x15] = "PDC_FATAL: retry", [0x16] = "PDC_FATAL: retry",
	[0x17] = "NORMAL: resend everything with the new Start_PSN", [0x18] = "NORMAL: retransmit",
	[0x19] = "PDC_FATAL: close, retry", [0x1A] = "NORMAL: retransmit", [0xFD] = "experimental, normal",
	[0xFE] = "experimental, error", [0xFF] = "experimental, fatal",
}

local CC_TYPE = { [0] = "NSCC", [1] = "CREDIT" }
local ACK_REQ = { [0] = "none", [1] = "request Clear", [2] = "request Close", [3] = "reserved" }

-- SES request opcodes.
local OP_ATOMIC, OP_FETCHING_ATOMIC, OP_RDV_SEND, OP_DEF_SEND = 0x03, 0x04, 0x06, 0x08
local OP_RDV_TSEND, OP_DEF_TSEND, OP_DEF_RTR, OP_TSEND_FETCH_ATOMIC = 0x0A, 0x0B, 0x0C, 0x0E
local SES_OPCODE = {
	[0x00] = "NO_OP", [0x01] = "WRITE", [0x02] = "READ", [0x03] = "ATOMIC", [0x04] = "FETCHING_ATOMIC",
	[0x05] = "SEND", [0x06] = "RENDEZVOUS_SEND", [0x07] = "DATAGRAM_SEND", [0x08] = "DEFERRABLE_SEND",
	[0x09] = "TAGGED_SEND", [0x0A] = "RENDEZVOUS_TSEND", [0x0B] = "DEFERRABLE_TSEND", [0x0C] = "DEFERRABLE_RTR",
	[0x0D] = "TSEND_ATOMIC", [0x0E] = "TSEND_FETCH_ATOMIC", [0x0F] = "MSG_ERROR", [0x3F] = "EXTENDED",
}
for v = 0x30, 0x3E do
	SES_OPCODE[v] = string.format("VENDOR_0x%02x", v)
end
local OP_TSEND_ATOMIC = 0x0D
local ATOMIC_EXT_OPCODES = { [OP_ATOMIC] = true, [OP_FETCHING_ATOMIC] = true, [OP_TSEND_ATOMIC] = true,
	[OP_TSEND_FETCH_ATOMIC] = true }
local RDV_EXT_OPCODES = { [OP_RDV_SEND] = true, [OP_RDV_TSEND] = true }

local AMO_OPCODE = {
	[0x00] = "MIN", [0x01] = "MAX", [0x02] = "SUM", [0x03] = "DIFF", [0x04] = "PROD", [0x05] = "LOR",
	[0x06] = "LAND", [0x07] = "BOR", [0x08] = "BAND", [0x09] = "LXOR", [0x0A] = "BXOR", [0x0B] = "READ",
	[0x0C] = "WRITE", [0x0D] = "CSWAP", [0x0E] = "CSWAP_NE", [0x0F] = "CSWAP_LE", [0x10] = "CSWAP_LT",
	[0x11] = "CSWAP_GE", [0x12] = "CSWAP_GT", [0x13] = "MSWAP", [0x14] = "INVAL",
}
local AMO_CAS = { [0x0D] = true, [0x0E] = true, [0x0F] = true, [0x10] = true, [0x11] = true, [0x12] = true }
local AMO_DATATYPE = {
	[0x00] = "INT8", [0x01] = "UINT8", [0x02] = "INT16", [0x03] = "UINT16", [0x04] = "INT32", [0x05] = "UINT32",
	[0x06] = "INT64", [0x07] = "UINT64", [0x08] = "INT128", [0x09] = "UINT128", [0x0A] = "FLOAT",
	[0x0B] = "DOUBLE", [0x0C] = "FLOAT_COMPLEX", [0x0D] = "DOUBLE_COMPLEX", [0x0E] = "LONG_DOUBLE",
	[0x0F] = "LONG_DOUBLE_COMPLEX", [0x10] = "BFLOAT16", [0x11] = "FP16",
}
local AMO_SEM_CTL = { [0] = "none", [1] = "cacheable", [2] = "CPU coherent", [3] = "cacheable, CPU coherent" }

local RSP_OPCODE = { [0] = "DEFAULT_RESPONSE", [1] = "RESPONSE", [2] = "RESPONSE_W_DATA", [3] = "NO_RESPONSE" }
local RSP_LIST = { [0] = "expected", [1] = "overflow" }
local RETURN_CODE = {
	[0x00] = "NULL", [0x01] = "OK", [0x02] = "BAD_GENERATION", [0x03] = "DISABLED", [0x04] = "DISABLED_GEN",
	[0x05] = "NO_MATCH", [0x06] = "UNSUPPORTED_OP", [0x07] = "UNSUPPORTED_SIZE", [0x08] = "AT_INVALID",
	[0x09] = "AT_PERM", [0x0A] = "AT_ATS_ERROR", [0x0B] = "AT_NO_TRANS", [0x0C] = "AT_OUT_OF_RANGE",
	[0x0D] = "HOST_POISONED", [0x0E] = "HOST_UNSUCCESS_CMPL", [0x0F] = "AMO_UNSUPPORTED_OP",
	[0x10] = "AMO_UNSUPPORTED_DT", [0x11] = "AMO_UNSUPPORTED_SIZE", [0x12] = "AMO_UNALIGNED",
	[0x13] = "AMO_FP_NAN", [0x14] = "AMO_FP_UNDERFLOW", [0x15] = "AMO_FP_OVERFLOW", [0x16] = "AMO_FP_INEXACT",
	[0x17] = "PERM_VIOLATION", [0x18] = "OP_VIOLATION", [0x19] = "BAD_INDEX", [0x1A] = "BAD_PID",
	[0x1B] = "BAD_JOB_ID", [0x1C] = "BAD_MKEY", [0x1D] = "BAD_ADDR", [0x1E] = "CANCELLED",
	[0x1F] = "UNDELIVERABLE", [0x20] = "UNCOR", [0x21] = "UNCOR_TRNSNT", [0x22] = "TOO_LONG",
	[0x23] = "INITIATOR_ERR", [0x24] = "DROPPED",
}

---------------------------------------------------------------------------------------------------------------
-- Fields. f["x.y"] is registered as "<PN>.x.y".
---------------------------------------------------------------------------------------------------------------
local f = {}
local function fld(key, ctor, ...)
	f[key] = ctor(PN .. "." .. key, ...)
end
local U8, U16, U24, U32, U64 = ProtoField.uint8, ProtoField.uint16, ProtoField.uint24, ProtoField.uint32,
	ProtoField.uint64
local I16, BOOL, BYTES, NONE = ProtoField.int16, ProtoField.bool, ProtoField.bytes, ProtoField.none

-- PDS prologue.
fld("pds", NONE, "PDS header")
fld("pds.type", U16, "Type", base.HEX, PDS_TYPE, 0xF800)
fld("pds.next_hdr", U16, "Next header", base.HEX, NEXT_HDR, 0x0780)
fld("pds.ctl_type", U16, "Control type", base.HEX, CTL_TYPE, 0x0780)
fld("pds.flags", U16, "Flags", base.HEX, nil, 0x007F)
fld("pds.flags.m", BOOL, "M (ECN-CE)", 16, nil, 0x0020)
fld("pds.flags.isrod", BOOL, "ISROD", 16, nil, 0x0020)
fld("pds.flags.retx", BOOL, "RETX (retransmission)", 16, nil, 0x0010)
fld("pds.flags.ar", BOOL, "AR (ACK request)", 16, nil, 0x0008)
fld("pds.flags.p", BOOL, "P (acks a probe)", 16, nil, 0x0008)
fld("pds.flags.nt", BOOL, "NT (RUDI NACK)", 16, nil, 0x0008)
fld("pds.flags.syn", BOOL, "SYN", 16, nil, 0x0004)
fld("pds.flags.req", U16, "REQ", base.DEC, ACK_REQ, 0x0006)
-- Requests and CP.
fld("pds.clear_psn_offset", I16, "CLEAR_PSN offset")
fld("pds.clear_psn", U32, "CLEAR_PSN")
fld("pds.psn", U32, "PSN")
fld("pds.spdcid", U16, "SPDCID")
fld("pds.dpdcid", U16, "DPDCID")
fld("pds.pdc_info", U16, "pdc_info", base.HEX, nil, 0xF000)
fld("pds.psn_offset", U16, "PSN offset (PSN - Start_PSN)", base.DEC, nil, 0x0FFF)
fld("pds.start_psn", U32, "Start_PSN")
fld("pds.ccc_id", U8, "CCC ID")
fld("pds.credit_target", U24, "Credit target")
-- ACK family.
fld("pds.ack_psn_offset", I16, "ACK_PSN offset")
fld("pds.ack_psn", U32, "ACK_PSN")
fld("pds.probe_opaque", U16, "Probe opaque", base.HEX)
fld("pds.cack_psn", U32, "CACK_PSN")
fld("pds.cc_type", U8, "CC type", base.HEX, CC_TYPE, 0xF0)
fld("pds.cc_flags", U8, "CC flags", base.HEX, nil, 0x0F)
fld("pds.mpr", U8, "MPR (maximum PSN range)")
fld("pds.sack_psn_offset", I16, "SACK PSN offset")
fld("pds.sack_base", U32, "SACK base PSN")
fld("pds.sack_bitmap", U64, "SACK bitmap", base.HEX)
fld("pds.sack_count", U8, "PSNs marked in the SACK bitmap")
fld("pds.sack_psn", U32, "SACKed PSN")
fld("pds.ack_cc_state", U64, "ack_cc_state", base.HEX)
fld("pds.nscc.service_time", U16, "service_time (128 ns units)")
fld("pds.nscc.rc", BOOL, "RC (restore cwnd)", 8, nil, 0x80)
fld("pds.nscc.rcv_cwnd_pend", U8, "rcv_cwnd_pend", base.DEC, nil, 0x7F)
fld("pds.nscc.rcvd_bytes", U24, "rcvd_bytes (256 B units)")
fld("pds.nscc.ooo_count", U16, "ooo_count")
fld("pds.credit.credit", U24, "credit")
fld("pds.credit.reserved", BYTES, "Reserved")
fld("pds.credit.ooo_count", U16, "ooo_count")
fld("pds.ack_ccx_state", BYTES, "ack_ccx_state")
-- NACK family.
fld("pds.nack_code", U8, "NACK code", base.HEX, NACK_CODE)
fld("pds.vendor_code", U8, "Vendor code", base.HEX)
fld("pds.nack_psn", U32, "NACK_PSN")
fld("pds.pkt_id", U32, "pkt_id")
fld("pds.nack_payload", U32, "NACK payload (max received PSN + 1)")
fld("pds.nccx_type", U8, "nccx_type", base.HEX, nil, 0xF0)
fld("pds.nack_ccx_state", BYTES, "nack_ccx_state")
-- CP, RUDI, UUD, TSS.
fld("pds.cp_payload", U32, "Payload")
fld("pds.rsvd", U16, "Reserved", base.HEX)
fld("pds.tss", BYTES, "TSS header and encrypted data (not decoded)")

-- SES.
fld("ses", NONE, "SES header")
fld("ses.opcode", U8, "Opcode", base.HEX, SES_OPCODE, 0x3F)
fld("ses.version", U8, "Version", base.DEC, nil, 0xC0)
fld("ses.flags", U8, "Flags", base.HEX, nil, 0x3F)
fld("ses.dc", BOOL, "DC (delivery complete)", 8, nil, 0x20)
fld("ses.ie", BOOL, "IE (initiator error)", 8, nil, 0x10)
fld("ses.rel", BOOL, "REL (relative addressing)", 8, nil, 0x08)
fld("ses.hd", BOOL, "HD (header data present)", 8, nil, 0x04)
fld("ses.eom", BOOL, "EOM (end of message)", 8, nil, 0x02)
fld("ses.som", BOOL, "SOM (start of message)", 8, nil, 0x01)
fld("ses.message_id", U16, "Message ID")
fld("ses.ri_generation", U8, "Resource index generation")
fld("ses.job_id", U24, "Job ID")
fld("ses.pid_on_fep", U16, "PID on FEP", base.DEC, nil, 0x0FFF)
fld("ses.resource_index", U16, "Resource index", base.DEC, nil, 0x0FFF)
fld("ses.buffer_offset", U64, "Buffer offset")
fld("ses.restart_token", U64, "Restart token", base.HEX)
fld("ses.initiator", U32, "Initiator")
fld("ses.memory_key", U64, "Memory key / match bits", base.HEX)
fld("ses.header_data", U64, "Header data", base.HEX)
fld("ses.payload_length", U32, "Payload length")
fld("ses.message_offset", U32, "Message offset")
fld("ses.request_length", U32, "Request length")
fld("ses.amo.opcode", U8, "Atomic opcode", base.HEX, AMO_OPCODE)
fld("ses.amo.datatype", U8, "Atomic datatype", base.HEX, AMO_DATATYPE)
fld("ses.amo.sem_ctl", U8, "Semantic control", base.HEX, AMO_SEM_CTL)
fld("ses.amo.rsvd", U8, "Reserved", base.HEX)
fld("ses.amo.compare", BYTES, "Compare value")
fld("ses.amo.swap", BYTES, "Swap value")
fld("ses.rdv.eager_length", U32, "Eager length")
fld("ses.rdv.read_pid_on_fep", U16, "Read PID on FEP", base.DEC, nil, 0x0FFF)
fld("ses.rdv.read_resource_index", U16, "Read resource index", base.DEC, nil, 0x0FFF)
fld("ses.rdv.read_offset", U64, "Read offset")
fld("ses.rdv.read_match_bits", U64, "Read match bits", base.HEX)
fld("ses.rsp.list", U8, "List", base.DEC, RSP_LIST, 0xC0)
fld("ses.rsp.opcode", U8, "Response opcode", base.HEX, RSP_OPCODE, 0x3F)
fld("ses.rsp.return_code", U8, "Return code", base.HEX, RETURN_CODE, 0x3F)
fld("ses.rsp.modified_length", U32, "Modified length")
fld("ses.rsp.read_req_message_id", U16, "Read request message ID")
fld("ses.rsp.original_request_psn", U32, "Original request PSN")

-- Native encapsulation and the CRC trailer.
local CRC_STATUS = { [0] = "not checked", [1] = "good", [2] = "bad" }
fld("entropy", U16, "Entropy (native encapsulation)")
fld("entropy.rsvd", U16, "Reserved", base.HEX)
fld("crc", U32, "CRC-32C trailer", base.HEX)
fld("crc.status", U8, "CRC status", base.DEC, CRC_STATUS)
fld("crc.detected", BOOL, "Trailer recognised by its value (crc_trailer preference off)", base.NONE)
fld("crc.refprov", BOOL, "Trailer covers from the IPv4 source address (the reference provider's coverage)", base.NONE)
fld("tss.sp", BOOL, "SP (SSI present)", 8, nil, 0x04)
fld("tss.an", BOOL, "AN", 8, nil, 0x01)
fld("tss.sdi", U24, "SDI", base.HEX)
fld("tss.ssi", U32, "SSI", base.HEX)
fld("tss.tsc", U64, "Epoch / TSC", base.HEX)

-- Whole packet.
fld("trimmed", BOOL, "Trimmed", base.NONE)
fld("trim_dscp", U8, "DSCP of the trimmed packet")
fld("payload", BYTES, "Payload")
fld("payload_len", U32, "Payload length in this packet")
fld("trailing", BYTES, "Trailing bytes")

local field_list = {}
for _, v in pairs(f) do
	field_list[#field_list + 1] = v
end
uet.fields = field_list

---------------------------------------------------------------------------------------------------------------
-- Expert infos.
---------------------------------------------------------------------------------------------------------------
local E = {}
local function exp(key, text, group, severity)
	E[key] = ProtoExpert.new(PN .. ".expert." .. key, text, group, severity)
end
exp("short", "Header shorter than its minimum length (malformed/short)", expert.group.MALFORMED,
	expert.severity.ERROR)
exp("snaplen", "Capture ends inside a header (frame cut by the capture snaplen)", expert.group.UNDECODED,
	expert.severity.WARN)
exp("trimmed", "Trimmed request (SES header and payload cut by a switch)", expert.group.SEQUENCE,
	expert.severity.NOTE)
exp("trim_dscp", "Trimmed request whose DSCP is not a TRIMMED codepoint", expert.group.PROTOCOL,
	expert.severity.NOTE)
exp("unknown_type", "Unknown or reserved PDS type", expert.group.PROTOCOL, expert.severity.WARN)
exp("unknown_next_hdr", "Unknown next header", expert.group.PROTOCOL, expert.severity.WARN)
exp("tss", "TSS (security) header not decoded", expert.group.UNDECODED, expert.severity.NOTE)
exp("trailing", "Bytes after a header that carries nothing more", expert.group.PROTOCOL, expert.severity.WARN)
exp("reserved", "Reserved bits set", expert.group.PROTOCOL, expert.severity.WARN)
exp("len_mismatch", "SES payload_length disagrees with the payload in the packet", expert.group.PROTOCOL,
	expert.severity.WARN)
exp("small_flags", "Small SES request without both SOM and EOM", expert.group.PROTOCOL, expert.severity.WARN)
exp("rsp_opcode", "Response opcode does not match the next header", expert.group.PROTOCOL, expert.severity.WARN)
exp("bad_crc", "CRC-32C trailer wrong", expert.group.CHECKSUM, expert.severity.ERROR)

local expert_list = {}
for _, v in pairs(E) do
	expert_list[#expert_list + 1] = v
end
uet.experts = expert_list

---------------------------------------------------------------------------------------------------------------
-- Preferences.
---------------------------------------------------------------------------------------------------------------
uet.prefs.udp_port = Pref.uint("UDP port", DEFAULT_UDP_PORT, "UDP destination port of UET (IANA: 4793)")
uet.prefs.dscp_trimmed = Pref.uint("DSCP_TRIMMED", DEFAULT_DSCP_TRIMMED,
	"DSCP a switch writes into a trimmed packet")
uet.prefs.dscp_trimmed_lasthop = Pref.uint("DSCP_TRIMMED_LASTHOP", DEFAULT_DSCP_TRIMMED_LASTHOP,
	"DSCP a last-hop switch writes into a trimmed packet")
uet.prefs.crc_trailer = Pref.bool("CRC trailer", false,
	"Every UET frame but a trimmed request or a TSS one ends in a 4-byte CRC-32C trailer")

---------------------------------------------------------------------------------------------------------------
-- Helpers. Only arithmetic (no bit library), so the script runs on Lua 5.1 to 5.4.
---------------------------------------------------------------------------------------------------------------
local function bits(v, shift, width)
	return math.floor(v / 2 ^ shift) % 2 ^ width
end

local function has(v, bit)
	return math.floor(v / bit) % 2 == 1
end

local function name_of(tbl, v)
	local n = tbl[v]
	if n then
		return n
	end
	return string.format("Unknown (0x%02x)", v)
end

local function u32_add(a, b)
	return (a + b) % 4294967296
end

-- XOR of two 32-bit values: bit32 (Lua 5.2), Wireshark's bit (LuaBitOp, Lua 5.1), or the ~ operator (Lua 5.3+).
-- nil when none exists; then CRC trailers are shown but not checked.
local bxor = (bit32 and bit32.bxor) or (bit and bit.bxor)
if bxor == nil then
	local ok, fn = pcall(load, "return function(a, b) return a ~ b end")
	if ok and fn then
		bxor = fn()
	end
end

-- CRC-32C (Castagnoli: reflected polynomial 0x82F63B78, initial value and final XOR all ones), a byte at a step:
-- crc_upd runs the register @c over ByteArray @ba, crc32c over the @len bytes at @off of @tvb.
local CRC_TAB = nil
local function crc_upd(c, ba)
	if CRC_TAB == nil then
		CRC_TAB = {}
		for i = 0, 255 do
			local v = i
			for _ = 1, 8 do
				if v % 2 == 1 then
					v = bxor(math.floor(v / 2), 0x82F63B78) % 4294967296
				else
					v = math.floor(v / 2)
				end
			end
			CRC_TAB[i] = v
		end
	end
	for i = 0, ba:len() - 1 do
		c = bxor(CRC_TAB[bxor(c % 256, ba:get_index(i)) % 256], math.floor(c / 256)) % 4294967296
	end
	return c
end

local function crc32c(tvb, off, len)
	if bxor == nil then
		return nil
	end
	return bxor(crc_upd(4294967295, tvb:bytes(off, len)), 4294967295) % 4294967296
end

-- The refprov coverage (the UEC reference provider's, uetemu's CrcCoverage refprov): from the IPv4 source address
-- to the end of the payload, so the addresses and the entropy (or UDP) header come before the UET bytes.
local fx_ip_src = Field.new("ip.src")
local fx_ip_dst = Field.new("ip.dst")
local fx_udp_sport = Field.new("udp.srcport")
local fx_udp_dport = Field.new("udp.dstport")
local fx_udp_len = Field.new("udp.length")
local fx_udp_csum = Field.new("udp.checksum")

local function last(fx)
	local all = { fx() }
	return all[#all]
end

local function be(n, v)
	local t = {}
	for i = n, 1, -1 do
		t[i] = string.format("%02x", v % 256)
		v = math.floor(v / 256)
	end
	return table.concat(t)
end

local function ipv4_hex(a)
	local t = {}
	for o in tostring(a):gmatch("%d+") do
		t[#t + 1] = string.format("%02x", tonumber(o))
	end
	return #t == 4 and table.concat(t) or nil
end

-- The bytes the refprov coverage puts ahead of the UET bytes, or nil when they cannot be known.
local function crc_prefix(ctx)
	if ctx.crc_pre ~= nil then
		return ctx.crc_pre or nil
	end
	ctx.crc_pre = false
	local src, dst = last(fx_ip_src), last(fx_ip_dst)
	local hs, hd = src and ipv4_hex(src.value), dst and ipv4_hex(dst.value)
	if hs == nil or hd == nil then
		return nil
	end
	local l4
	if ctx.native then
		l4 = tostring(ctx.outer:bytes(0, ENTROPY_LEN))
	else
		local sp, dp, ln, cs = last(fx_udp_sport), last(fx_udp_dport), last(fx_udp_len), last(fx_udp_csum)
		if sp == nil or dp == nil or ln == nil or cs == nil then
			return nil
		end
		l4 = be(2, sp.value) .. be(2, dp.value) .. be(2, ln.value) .. be(2, cs.value)
	end
	ctx.crc_pre = ByteArray.new(hs .. hd .. l4)
	return ctx.crc_pre
end

-- The refprov-coverage CRC-32C of the UET bytes before @off, or nil.
local function crc32c_refprov(ctx, off)
	local pre = bxor and crc_prefix(ctx)
	if not pre then
		return nil
	end
	local c = crc_upd(4294967295, pre)
	if off > 0 then
		c = crc_upd(c, ctx.tvb:bytes(0, off))
	end
	return bxor(c, 4294967295) % 4294967296
end

-- Whether the @len bytes at @off (captured) end in a CRC-32C of the bytes before them, from 0 (uetemu's coverage)
-- or from the IPv4 source address (refprov).
local function crc_matches(ctx, off, len)
	local tvb = ctx.tvb
	if len ~= CRC_LEN or tvb:len() < off + CRC_LEN then
		return false
	end
	local v = tvb(off, CRC_LEN):uint()
	local c = crc32c(tvb, 0, off)
	return (c ~= nil and c == v) or crc32c_refprov(ctx, off) == v
end

local fx_ip_dscp = Field.new("ip.dsfield.dscp")
local ok6, fx_ip6_dscp = pcall(Field.new, "ipv6.tclass.dscp")
if not ok6 then
	fx_ip6_dscp = nil
end

-- DSCP of the innermost IP header of the packet, or nil.
local function packet_dscp()
	local all = { fx_ip_dscp() }
	if #all == 0 and fx_ip6_dscp then
		all = { fx_ip6_dscp() }
	end
	if #all == 0 then
		return nil
	end
	return all[#all].value
end

--[[
Length check, done before reading a header: @need bytes at @off. Returns true when they are there. Otherwise adds
an expert info to @item (malformed/short when the packet itself is short, snaplen when only the capture is) and
records the fact for the Info column.
]]
local function check(ctx, item, off, need, what)
	local rep = ctx.tvb:reported_length_remaining(off)
	local cap = ctx.tvb:len() - off
	if rep < 0 then
		rep = 0
	end
	if cap < 0 then
		cap = 0
	end
	if rep < need then
		local msg = string.format("%s is %d bytes, shorter than its minimum of %d bytes (malformed/short)", what,
			rep, need)
		item:add_proto_expert_info(E.short, msg)
		ctx.tail = string.format(" [SHORT %s: %d of %d bytes]", what, rep, need)
		return false
	end
	if cap < need then
		item:add_proto_expert_info(E.snaplen,
			string.format("%s: only %d of %d bytes captured (snaplen)", what, cap, need))
		ctx.tail = string.format(" [%s: %d of %d bytes captured]", what, cap, need)
		return false
	end
	return true
end

-- A TvbRange over what is captured of [off, off+len), or nil when nothing is.
local function cap_range(tvb, off, len)
	local cap = tvb:len() - off
	if cap <= 0 then
		return nil
	end
	if len == nil or len > cap then
		len = cap
	end
	return tvb(off, len)
end

local function info(ctx, s)
	ctx.info[#ctx.info + 1] = s
end

-- The trailer at @off of the UET bytes: its field, and its status when it can be checked.
local function add_crc(ctx, off, detected)
	local tvb = ctx.tvb
	local ti = ctx.root:add(f["crc"], tvb(off, CRC_LEN))
	if detected then
		ti:add(f["crc.detected"], true):set_generated()
	end
	local c = crc32c(tvb, 0, off)
	local v = tvb(off, CRC_LEN):uint()
	local status = 0
	local refprov = false
	if c ~= nil then
		status = c == v and 1 or 2
		if status == 2 and crc32c_refprov(ctx, off) == v then
			status, refprov = 1, true
		end
	end
	ti:add(f["crc.status"], status):set_generated()
	ti:add(f["crc.refprov"], refprov):set_generated()
	if status == 2 then
		ti:add_proto_expert_info(E.bad_crc, string.format("CRC-32C trailer 0x%08x, computed 0x%08x",
			tvb(off, CRC_LEN):uint(), c))
		ctx.crc_note = " [BAD CRC]"
	else
		ctx.crc_note = refprov and " CRC(refprov)" or " CRC"
	end
end

-- Flag definitions per PDS type: field key, bit, name for the Info column.
local FLAGS_REQ = {
	{ key = "pds.flags.retx", mask = 0x10, name = "RETX" }, { key = "pds.flags.ar", mask = 0x08, name = "AR" },
	{ key = "pds.flags.syn", mask = 0x04, name = "SYN" },
}
local FLAGS_RUDI = {
	{ key = "pds.flags.m", mask = 0x20, name = "M" }, { key = "pds.flags.retx", mask = 0x10, name = "RETX" },
}
local FLAGS_ACK = {
	{ key = "pds.flags.m", mask = 0x20, name = "M" }, { key = "pds.flags.retx", mask = 0x10, name = "RETX" },
	{ key = "pds.flags.p", mask = 0x08, name = "P" }, { key = "pds.flags.req", mask = 0x06, multi = true },
}
local FLAGS_NACK = {
	{ key = "pds.flags.m", mask = 0x20, name = "M" }, { key = "pds.flags.retx", mask = 0x10, name = "RETX" },
	{ key = "pds.flags.nt", mask = 0x08, name = "NT" },
}
local FLAGS_CP = {
	{ key = "pds.flags.isrod", mask = 0x20, name = "ISROD" }, { key = "pds.flags.retx", mask = 0x10, name = "RETX" },
	{ key = "pds.flags.ar", mask = 0x08, name = "AR" }, { key = "pds.flags.syn", mask = 0x04, name = "SYN" },
}
local FLAGS_BY_TYPE = {
	[T_RUD] = FLAGS_REQ, [T_ROD] = FLAGS_REQ, [T_RUD_CC] = FLAGS_REQ, [T_ROD_CC] = FLAGS_REQ,
	[T_RUDI_REQ] = FLAGS_RUDI, [T_RUDI_RESP] = FLAGS_RUDI, [T_UUD] = {},
	[T_ACK] = FLAGS_ACK, [T_ACK_CC] = FLAGS_ACK, [T_ACK_CCX] = FLAGS_ACK,
	[T_NACK] = FLAGS_NACK, [T_NACK_CCX] = FLAGS_NACK, [T_CP] = FLAGS_CP,
}

-- Adds the flags field and one boolean per flag; returns the flag names for Info ("[AR RETX]" or "").
local function add_flags(ctx, tree, ptype, flags)
	local tvb = ctx.tvb
	local fi = tree:add(f["pds.flags"], tvb(0, 2))
	local defs = FLAGS_BY_TYPE[ptype]
	if defs == nil then
		return ""
	end
	local names, known = {}, 0
	for _, d in ipairs(defs) do
		fi:add(f[d.key], tvb(0, 2))
		known = known + d.mask
		if d.multi then
			local v = math.floor(flags / 2) % 4
			if v ~= 0 then
				names[#names + 1] = "REQ=" .. name_of(ACK_REQ, v)
			end
		elseif has(flags, d.mask) then
			names[#names + 1] = d.name
		end
	end
	-- Reserved bits: every bit of the 7 not named above.
	local rsvd = 0
	for b = 0, 6 do
		local m = 2 ^ b
		if has(flags, m) and not has(known, m) then
			rsvd = rsvd + m
		end
	end
	if rsvd ~= 0 then
		fi:add_proto_expert_info(E.reserved, string.format("Reserved flag bits set: 0x%02x", rsvd))
		names[#names + 1] = string.format("rsvd=0x%02x", rsvd)
	end
	if #names > 0 then
		fi:append_text(" (" .. table.concat(names, ", ") .. ")")
		return "[" .. table.concat(names, " ") .. "]"
	end
	return ""
end

---------------------------------------------------------------------------------------------------------------
-- PDS headers. Each runs after check() has confirmed its whole header is captured.
---------------------------------------------------------------------------------------------------------------

-- Bytes 10-11 of a request or CP: DPDCID, or pdc_info + psn_offset when SYN is set.
local function add_dpdcid_or_syn(ctx, tree, flags, psn)
	local tvb = ctx.tvb
	if has(flags, 0x04) then
		tree:add(f["pds.pdc_info"], tvb(10, 2))
		tree:add(f["pds.psn_offset"], tvb(10, 2))
		local start = u32_add(psn, -(tvb(10, 2):uint() % 4096))
		tree:add(f["pds.start_psn"], tvb(10, 2), start):set_generated()
		return string.format("START_PSN=%d", start)
	end
	tree:add(f["pds.dpdcid"], tvb(10, 2))
	return string.format("DPDCID=%d", tvb(10, 2):uint())
end

local function pds_request(ctx, tree, ptype, flags, flagstr)
	local tvb = ctx.tvb
	local off = tvb(2, 2):int()
	local psn = tvb(4, 4):uint()
	local clear = u32_add(psn, off)
	tree:add(f["pds.clear_psn_offset"], tvb(2, 2))
	tree:add(f["pds.clear_psn"], tvb(2, 2), clear):set_generated()
	tree:add(f["pds.psn"], tvb(4, 4))
	tree:add(f["pds.spdcid"], tvb(8, 2))
	local d = add_dpdcid_or_syn(ctx, tree, flags, psn)
	if ptype == T_RUD_CC or ptype == T_ROD_CC then
		tree:add(f["pds.ccc_id"], tvb(12, 1))
		tree:add(f["pds.credit_target"], tvb(13, 3))
	end
	info(ctx, string.format("PSN=%d SPDCID=%d %s", psn, tvb(8, 2):uint(), d))
	if flagstr ~= "" then
		info(ctx, flagstr)
	end
end

local function pds_rudi(ctx, tree, flagstr)
	local tvb = ctx.tvb
	tree:add(f["pds.rsvd"], tvb(2, 2))
	tree:add(f["pds.pkt_id"], tvb(4, 4))
	info(ctx, string.format("PKT_ID=%d", tvb(4, 4):uint()))
	if flagstr ~= "" then
		info(ctx, flagstr)
	end
end

local function pds_uud(ctx, tree, flagstr)
	tree:add(f["pds.rsvd"], ctx.tvb(2, 2))
	if flagstr ~= "" then
		info(ctx, flagstr)
	end
end

local function add_sack(ctx, tree, cack)
	local tvb = ctx.tvb
	local soff = tvb(14, 2):int()
	local base = u32_add(cack, soff)
	tree:add(f["pds.sack_psn_offset"], tvb(14, 2))
	tree:add(f["pds.sack_base"], tvb(14, 2), base):set_generated()
	local bi = tree:add(f["pds.sack_bitmap"], tvb(16, 8))
	-- Bit N (LSB = bit 0) stands for PSN SACK_base + N.
	local hi, lo = tvb(16, 4):uint(), tvb(20, 4):uint()
	local psns = {}
	for n = 0, 63 do
		local word, b = lo, n
		if n >= 32 then
			word, b = hi, n - 32
		end
		if has(word, 2 ^ b) then
			psns[#psns + 1] = u32_add(base, n)
		end
	end
	bi:add(f["pds.sack_count"], tvb(16, 8), #psns):set_generated()
	for _, p in ipairs(psns) do
		bi:add(f["pds.sack_psn"], tvb(16, 8), p):set_generated()
	end
	return base, tvb(16, 8):uint64():tohex(16)
end

local function pds_ack(ctx, tree, ptype, flags, flagstr)
	local tvb = ctx.tvb
	local cack = tvb(4, 4):uint()
	local parts = { string.format("CACK=%d", cack) }
	local extra = {}
	if has(flags, 0x08) then
		tree:add(f["pds.probe_opaque"], tvb(2, 2))
		extra[#extra + 1] = string.format("probe_opaque=0x%04x", tvb(2, 2):uint())
	else
		local aoff = tvb(2, 2):int()
		tree:add(f["pds.ack_psn_offset"], tvb(2, 2))
		tree:add(f["pds.ack_psn"], tvb(2, 2), u32_add(cack, aoff)):set_generated()
		extra[#extra + 1] = string.format("ACK_PSN=%d", u32_add(cack, aoff))
	end
	tree:add(f["pds.cack_psn"], tvb(4, 4))
	tree:add(f["pds.spdcid"], tvb(8, 2))
	tree:add(f["pds.dpdcid"], tvb(10, 2))
	extra[#extra + 1] = string.format("SPDCID=%d DPDCID=%d", tvb(8, 2):uint(), tvb(10, 2):uint())
	if ptype == T_ACK_CC or ptype == T_ACK_CCX then
		local cc_type = bits(tvb(12, 1):uint(), 4, 4)
		tree:add(f["pds.cc_type"], tvb(12, 1))
		tree:add(f["pds.cc_flags"], tvb(12, 1))
		tree:add(f["pds.mpr"], tvb(13, 1))
		local base, bm = add_sack(ctx, tree, cack)
		parts[#parts + 1] = string.format("SACK base=%d bitmap=0x%s", base, bm)
		if ptype == T_ACK_CC then
			local si = tree:add(f["pds.ack_cc_state"], tvb(24, 8))
			si:append_text(" (" .. name_of(CC_TYPE, cc_type) .. ")")
			if cc_type == 0 then
				local st = tvb(24, 2):uint()
				si:add(f["pds.nscc.service_time"], tvb(24, 2)):append_text(
					st == 0 and " (invalid)" or (st == 0xFFFF and " (saturated)" or
						string.format(" (%d ns)", st * 128)))
				si:add(f["pds.nscc.rc"], tvb(26, 1))
				si:add(f["pds.nscc.rcv_cwnd_pend"], tvb(26, 1))
				si:add(f["pds.nscc.rcvd_bytes"], tvb(27, 3)):append_text(
					string.format(" (%d B)", tvb(27, 3):uint() * 256))
				local ooo = si:add(f["pds.nscc.ooo_count"], tvb(30, 2))
				if tvb(30, 2):uint() == 0xFFFF then
					ooo:append_text(" (invalid)")
				end
			elseif cc_type == 1 then
				si:add(f["pds.credit.credit"], tvb(24, 3))
				si:add(f["pds.credit.reserved"], tvb(27, 3))
				local ooo = si:add(f["pds.credit.ooo_count"], tvb(30, 2))
				if tvb(30, 2):uint() == 0xFFFF then
					ooo:append_text(" (invalid)")
				end
			end
		else
			tree:add(f["pds.ack_ccx_state"], tvb(24, 16))
		end
	end
	info(ctx, table.concat(parts, " "))
	info(ctx, table.concat(extra, " "))
	if flagstr ~= "" then
		info(ctx, flagstr)
	end
end

local function pds_nack(ctx, tree, ptype, flags, flagstr)
	local tvb = ctx.tvb
	local code = tvb(2, 1):uint()
	local ci = tree:add(f["pds.nack_code"], tvb(2, 1))
	if NACK_ACTION[code] then
		ci:append_text(" [" .. NACK_ACTION[code] .. "]")
	end
	tree:add(f["pds.vendor_code"], tvb(3, 1))
	local nt = has(flags, 0x08)
	if nt then
		tree:add(f["pds.pkt_id"], tvb(4, 4))
	else
		tree:add(f["pds.nack_psn"], tvb(4, 4))
	end
	tree:add(f["pds.spdcid"], tvb(8, 2))
	tree:add(f["pds.dpdcid"], tvb(10, 2))
	tree:add(f["pds.nack_payload"], tvb(12, 4))
	if ptype == T_NACK_CCX then
		tree:add(f["pds.nccx_type"], tvb(16, 1))
		tree:add(f["pds.nack_ccx_state"], tvb(16, 16))
	end
	info(ctx, name_of(NACK_CODE, code))
	info(ctx, string.format("%s=%d SPDCID=%d DPDCID=%d", nt and "PKT_ID" or "PSN", tvb(4, 4):uint(),
		tvb(8, 2):uint(), tvb(10, 2):uint()))
	if flagstr ~= "" then
		info(ctx, flagstr)
	end
end

local function pds_cp(ctx, tree, ctl, flags, flagstr)
	local tvb = ctx.tvb
	if ctl == 6 then
		tree:add(f["pds.probe_opaque"], tvb(2, 2))
	else
		tree:add(f["pds.rsvd"], tvb(2, 2))
	end
	local psn = tvb(4, 4):uint()
	tree:add(f["pds.psn"], tvb(4, 4))
	tree:add(f["pds.spdcid"], tvb(8, 2))
	local d = add_dpdcid_or_syn(ctx, tree, flags, psn)
	local pi = tree:add(f["pds.cp_payload"], tvb(12, 4))
	pi:append_text(" (" .. (CTL_PAYLOAD[ctl] or "unknown control type") .. ")")
	info(ctx, name_of(CTL_TYPE, ctl))
	local s = string.format("PSN=%d SPDCID=%d %s", psn, tvb(8, 2):uint(), d)
	if CTL_PAYLOAD_INFO[ctl] then
		s = s .. string.format(" %s=%d", CTL_PAYLOAD_INFO[ctl], tvb(12, 4):uint())
	end
	if ctl == 6 then
		s = s .. string.format(" probe_opaque=0x%04x", tvb(2, 2):uint())
	end
	info(ctx, s)
	if flagstr ~= "" then
		info(ctx, flagstr)
	end
end

---------------------------------------------------------------------------------------------------------------
-- SES headers: each returns its length (header + extension) or nil after a failed length check.
---------------------------------------------------------------------------------------------------------------
local SES_FLAG_DEFS = {
	{ key = "ses.dc", mask = 0x20, name = "DC" }, { key = "ses.ie", mask = 0x10, name = "IE" },
	{ key = "ses.rel", mask = 0x08, name = "REL" }, { key = "ses.hd", mask = 0x04, name = "HD" },
	{ key = "ses.eom", mask = 0x02, name = "EOM" }, { key = "ses.som", mask = 0x01, name = "SOM" },
}

local function ses_flags(ctx, tree, off, with_hd)
	local tvb = ctx.tvb
	tree:add(f["ses.version"], tvb(off + 1, 1))
	local fi = tree:add(f["ses.flags"], tvb(off + 1, 1))
	local fl = tvb(off + 1, 1):uint() % 64
	local names = {}
	for _, d in ipairs(SES_FLAG_DEFS) do
		if d.key ~= "ses.hd" or with_hd then
			fi:add(f[d.key], tvb(off + 1, 1))
			if has(fl, d.mask) then
				names[#names + 1] = d.name
			end
		end
	end
	if #names > 0 then
		fi:append_text(" (" .. table.concat(names, ", ") .. ")")
	end
	return fl
end

local function ses_atomic_ext(ctx, tree, off)
	local tvb = ctx.tvb
	if not check(ctx, tree, off, SES_ATOMIC_EXT_LEN, "SES atomic extension header") then
		return nil
	end
	local amo = tvb(off, 1):uint()
	local len = AMO_CAS[amo] and SES_CAS_EXT_LEN or SES_ATOMIC_EXT_LEN
	if len == SES_CAS_EXT_LEN and
		not check(ctx, tree, off, SES_CAS_EXT_LEN, "SES compare-and-swap extension header") then
		return nil
	end
	local et = tree:add(tvb(off, len), len == SES_CAS_EXT_LEN and "Compare-and-swap atomic extension header" or
		"Atomic extension header")
	et:add(f["ses.amo.opcode"], tvb(off, 1))
	et:add(f["ses.amo.datatype"], tvb(off + 1, 1))
	et:add(f["ses.amo.sem_ctl"], tvb(off + 2, 1))
	et:add(f["ses.amo.rsvd"], tvb(off + 3, 1))
	if len == SES_CAS_EXT_LEN then
		et:add(f["ses.amo.compare"], tvb(off + 4, 16))
		et:add(f["ses.amo.swap"], tvb(off + 20, 16))
	end
	info(ctx, "AMO=" .. name_of(AMO_OPCODE, amo))
	return len
end

local function ses_rdv_ext(ctx, tree, off)
	local tvb = ctx.tvb
	if not check(ctx, tree, off, SES_RDV_EXT_LEN, "SES rendezvous extension header") then
		return nil
	end
	local et = tree:add(tvb(off, SES_RDV_EXT_LEN), "Rendezvous extension header")
	et:add(f["ses.rdv.eager_length"], tvb(off, 4))
	et:add(f["ses.rdv.read_pid_on_fep"], tvb(off + 4, 2))
	et:add(f["ses.rdv.read_resource_index"], tvb(off + 6, 2))
	et:add(f["ses.rdv.read_offset"], tvb(off + 8, 8))
	et:add(f["ses.rdv.read_match_bits"], tvb(off + 16, 8))
	return SES_RDV_EXT_LEN
end

-- The Info column's words for a request: its opcode, then SOM and EOM when set.
local function ses_info(ctx, opcode, som, eom)
	local s = name_of(SES_OPCODE, opcode)
	if som then
		s = s .. " SOM"
	end
	if eom then
		s = s .. " EOM"
	end
	info(ctx, s)
end

-- A request header of @len bytes at @off and the extension its opcode carries after it (atomic, or rendezvous
-- where @rdv allows it); the total length, or nil when the extension is short.
local function ses_with_ext(ctx, tree, off, len, opcode, rdv)
	local ext = 0
	if ATOMIC_EXT_OPCODES[opcode] then
		ext = ses_atomic_ext(ctx, tree, off + len)
	elseif rdv and RDV_EXT_OPCODES[opcode] then
		ext = ses_rdv_ext(ctx, tree, off + len)
	end
	if ext == nil then
		return nil
	end
	return len + ext
end

-- Standard request, 44 B (+ extension).
local function ses_std(ctx, tree, off)
	local tvb = ctx.tvb
	local opcode = tvb(off, 1):uint() % 64
	tree:add(f["ses.opcode"], tvb(off, 1))
	local fl = ses_flags(ctx, tree, off, true)
	local som, eom = has(fl, 0x01), has(fl, 0x02)
	tree:add(f["ses.message_id"], tvb(off + 2, 2))
	tree:add(f["ses.ri_generation"], tvb(off + 4, 1))
	tree:add(f["ses.job_id"], tvb(off + 5, 3))
	tree:add(f["ses.pid_on_fep"], tvb(off + 8, 2))
	tree:add(f["ses.resource_index"], tvb(off + 10, 2))
	if opcode == OP_DEF_SEND or opcode == OP_DEF_TSEND then
		tree:add(f["ses.restart_token"], tvb(off + 12, 8))
	else
		tree:add(f["ses.buffer_offset"], tvb(off + 12, 8))
	end
	tree:add(f["ses.initiator"], tvb(off + 20, 4))
	if opcode == OP_DEF_RTR then
		tree:add(f["ses.restart_token"], tvb(off + 24, 8))
	else
		tree:add(f["ses.memory_key"], tvb(off + 24, 8))
	end
	local plen, moff
	if som then
		tree:add(f["ses.header_data"], tvb(off + 32, 8))
	else
		plen = tvb(off + 32, 4):uint() % 16384
		moff = tvb(off + 36, 4):uint()
		tree:add(f["ses.payload_length"], tvb(off + 32, 4), plen)
		tree:add(f["ses.message_offset"], tvb(off + 36, 4))
	end
	tree:add(f["ses.request_length"], tvb(off + 40, 4))
	ses_info(ctx, opcode, som, eom)
	ctx.ses_plen, ctx.ses_moff, ctx.ses_plen_item = plen, moff, tree
	return ses_with_ext(ctx, tree, off, SES_REQ_STD_MIN_HDR_LEN, opcode, true)
end

-- Small (20 B) and medium (32 B) requests share their first 12 bytes.
local function ses_small_medium(ctx, tree, off, medium)
	local tvb = ctx.tvb
	local opcode = tvb(off, 1):uint() % 64
	tree:add(f["ses.opcode"], tvb(off, 1))
	local fl = ses_flags(ctx, tree, off, medium)
	local som, eom = has(fl, 0x01), has(fl, 0x02)
	tree:add(f["ses.request_length"], tvb(off + 2, 2), tvb(off + 2, 2):uint() % 16384)
	tree:add(f["ses.ri_generation"], tvb(off + 4, 1))
	tree:add(f["ses.job_id"], tvb(off + 5, 3))
	tree:add(f["ses.pid_on_fep"], tvb(off + 8, 2))
	tree:add(f["ses.resource_index"], tvb(off + 10, 2))
	local len
	if medium then
		if has(fl, 0x04) then
			tree:add(f["ses.header_data"], tvb(off + 12, 8))
		else
			tree:add(f["ses.buffer_offset"], tvb(off + 12, 8))
		end
		tree:add(f["ses.initiator"], tvb(off + 20, 4))
		tree:add(f["ses.memory_key"], tvb(off + 24, 8))
		len = SES_REQ_MEDIUM_MIN_HDR_LEN
	else
		tree:add(f["ses.buffer_offset"], tvb(off + 12, 8))
		len = SES_REQ_SMALL_MIN_HDR_LEN
	end
	if not (som and eom) then
		tree:add_proto_expert_info(E.small_flags)
	end
	ses_info(ctx, opcode, som, eom)
	return ses_with_ext(ctx, tree, off, len, opcode, false)
end

-- Responses: 12 B default, 20 B with data, 12 B small with data.
local function ses_response(ctx, tree, off, nh)
	local tvb = ctx.tvb
	local opcode = tvb(off, 1):uint() % 64
	tree:add(f["ses.rsp.list"], tvb(off, 1))
	local oi = tree:add(f["ses.rsp.opcode"], tvb(off, 1))
	tree:add(f["ses.version"], tvb(off + 1, 1))
	tree:add(f["ses.rsp.return_code"], tvb(off + 1, 1))
	local rc = tvb(off + 1, 1):uint() % 64
	local want_data = (nh ~= NH_RSP)
	if (opcode == 2) ~= want_data then
		oi:add_proto_expert_info(E.rsp_opcode, string.format("Response opcode %s with next header %s",
			name_of(RSP_OPCODE, opcode), name_of(NEXT_HDR, nh)))
	end
	local s = name_of(RSP_OPCODE, opcode) .. " rc=" .. name_of(RETURN_CODE, rc)
	if nh == NH_RSP then
		tree:add(f["ses.message_id"], tvb(off + 2, 2))
		tree:add(f["ses.ri_generation"], tvb(off + 4, 1))
		tree:add(f["ses.job_id"], tvb(off + 5, 3))
		tree:add(f["ses.rsp.modified_length"], tvb(off + 8, 4))
		s = s .. string.format(" MID=%d", tvb(off + 2, 2):uint())
		info(ctx, s)
		return SES_RSP_MIN_HDR_LEN
	elseif nh == NH_RSP_DATA then
		tree:add(f["ses.message_id"], tvb(off + 2, 2))
		tree:add(f["ses.job_id"], tvb(off + 5, 3))
		tree:add(f["ses.rsp.read_req_message_id"], tvb(off + 8, 2))
		local plen = tvb(off + 10, 2):uint() % 16384
		tree:add(f["ses.payload_length"], tvb(off + 10, 2), plen)
		tree:add(f["ses.rsp.modified_length"], tvb(off + 12, 4))
		tree:add(f["ses.message_offset"], tvb(off + 16, 4))
		ctx.ses_plen, ctx.ses_plen_item = plen, tree
		s = s .. string.format(" MID=%d", tvb(off + 2, 2):uint())
		info(ctx, s)
		return SES_RSP_DATA_MIN_HDR_LEN
	end
	-- RESPONSE_DATA_SMALL
	local plen = tvb(off + 2, 2):uint() % 16384
	tree:add(f["ses.payload_length"], tvb(off + 2, 2), plen)
	tree:add(f["ses.job_id"], tvb(off + 5, 3))
	tree:add(f["ses.rsp.original_request_psn"], tvb(off + 8, 4))
	ctx.ses_plen, ctx.ses_plen_item = plen, tree
	info(ctx, s)
	return SES_RSP_DATA_SMALL_MIN_HDR_LEN
end

-- The SES header named by @nh at @off, then the payload. Handles a trimmed request.
local function dissect_ses(ctx, root, ptype, nh, off)
	local tvb = ctx.tvb
	local rep = tvb:reported_length_remaining(off)
	local min = SES_HDR_LEN[nh]
	if min == nil then
		local ti = root:add(f["trailing"], cap_range(tvb, off) or tvb(0, 0))
		ti:add_proto_expert_info(E.unknown_next_hdr,
			string.format("Next header %d is not a known SES header; %d bytes not decoded", nh, rep))
		info(ctx, string.format("SES=%s", name_of(NEXT_HDR, nh)))
		return
	end

	-- A switch trimmed the request: it ends after the PDS header (or inside the SES header when the DSCP says so).
	if TRIMMABLE[ptype] then
		local dscp = packet_dscp()
		local pr = uet.prefs
		local trim_dscp = dscp ~= nil and (dscp == pr.dscp_trimmed or dscp == pr.dscp_trimmed_lasthop)
		local min_trim = off + rep == MIN_TRIM_LEN and rep < min -- cut at MIN_TRIM_SIZE inside the SES header
		if rep == 0 or min_trim or (trim_dscp and rep < min) then
			local ti = root:add(f["trimmed"], true)
			ti:set_text(string.format("Trimmed request (SES header and payload cut by a switch; %s header of %d B " ..
				"absent)", name_of(NEXT_HDR, nh), min))
			ti:set_generated()
			ti:add_proto_expert_info(E.trimmed)
			local s = "TRIMMED"
			if dscp ~= nil then
				local role = "not a TRIMMED codepoint"
				if dscp == pr.dscp_trimmed_lasthop then
					role = "TRIMMED_LASTHOP"
				elseif dscp == pr.dscp_trimmed then
					role = "TRIMMED"
				end
				ti:add(f["trim_dscp"], dscp):append_text(" (" .. role .. ")")
				s = s .. string.format(" DSCP=%d (%s)", dscp, role)
				if not trim_dscp then
					ti:add_proto_expert_info(E.trim_dscp, string.format(
						"Request trimmed (cut after its PDS header or at 16 bytes) but DSCP %d is " ..
						"neither DSCP_TRIMMED (%d) nor " ..
						"DSCP_TRIMMED_LASTHOP (%d)", dscp, pr.dscp_trimmed, pr.dscp_trimmed_lasthop))
				end
			end
			if rep > 0 then
				local r = cap_range(tvb, off)
				if r then
					root:add(f["trailing"], r):append_text(" (what is left of the SES header)")
				end
			end
			info(ctx, s)
			return
		end
	end

	local si = root:add(f["ses"], cap_range(tvb, off, min) or tvb(0, 0))
	si:append_text(": " .. name_of(NEXT_HDR, nh))
	if not check(ctx, si, off, min, "SES " .. name_of(NEXT_HDR, nh) .. " header") then
		return
	end
	local len
	if nh == NH_REQ_STD then
		len = ses_std(ctx, si, off)
	elseif nh == NH_REQ_SMALL then
		len = ses_small_medium(ctx, si, off, false)
	elseif nh == NH_REQ_MEDIUM then
		len = ses_small_medium(ctx, si, off, true)
	else
		len = ses_response(ctx, si, off, nh)
	end
	if len == nil then
		return
	end
	si:set_len(len)

	-- Payload: everything after the SES header (and its extension); a response without data carries none.
	local poff = off + len
	local plen = tvb:reported_length_remaining(poff)
	if plen < 0 then
		plen = 0
	end
	-- Four bytes more than payload_length says, or after a response without data, that are a CRC-32C trailer.
	local extra = plen - (nh == NH_RSP and 0 or (ctx.ses_plen or -1))
	-- A SOM packet's standard header has no payload_length: its last 4 bytes are tried as a trailer too.
	local som_unknown = nh ~= NH_RSP and ctx.ses_plen == nil and plen >= CRC_LEN
	if not uet.prefs.crc_trailer and (extra == CRC_LEN or som_unknown) and
		crc_matches(ctx, poff + plen - CRC_LEN, CRC_LEN) then
		plen = plen - CRC_LEN
		add_crc(ctx, poff + plen, true)
		ctx.tvb = tvb(0, poff + plen):tvb()
		tvb = ctx.tvb
	end
	if nh == NH_RSP then
		if plen > 0 then
			local ti = root:add(f["trailing"], cap_range(tvb, poff) or tvb(0, 0))
			ti:add_proto_expert_info(E.trailing, string.format("%d bytes after a response without data", plen))
		end
		return
	end
	if plen > 0 then
		local r = cap_range(tvb, poff)
		local pi
		if r then
			pi = root:add(f["payload"], r)
		else
			pi = root:add(f["payload_len"], plen)
		end
		pi:append_text(string.format(" (%d bytes)", plen))
	end
	root:add(f["payload_len"], plen):set_generated()
	if ctx.ses_plen ~= nil and ctx.ses_plen ~= plen then
		ctx.ses_plen_item:add_proto_expert_info(E.len_mismatch, string.format(
			"SES payload_length is %d but the packet carries %d payload bytes", ctx.ses_plen, plen))
	end
	if nh == NH_REQ_STD or nh == NH_REQ_SMALL or nh == NH_REQ_MEDIUM or nh == NH_RSP_DATA or
		nh == NH_RSP_DATA_SMALL then
		local s = string.format("len=%d", plen)
		if ctx.ses_moff ~= nil then
			s = s .. string.format(" off=%d", ctx.ses_moff)
		end
		info(ctx, s)
	end
end

---------------------------------------------------------------------------------------------------------------
-- Main dissector.
---------------------------------------------------------------------------------------------------------------
local function finish(ctx)
	local s = table.concat(ctx.info, " ")
	if ctx.tail then
		s = s .. ctx.tail
	end
	if ctx.native then
		s = string.format("native EV=%d ", ctx.native) .. s
	end
	if ctx.crc_note then
		s = s .. ctx.crc_note
	end
	ctx.pinfo.cols.info:set(s)
	ctx.root:append_text(", " .. s)
end

-- The TSS (security) header: 12 bytes, 16 with SSI; what follows it is encrypted and ends in a 16-byte ICV.
local function pds_tss(ctx, pds)
	local tvb = ctx.tvb
	local hl = has(tvb(0, 1):uint(), 0x04) and 16 or 12
	if not check(ctx, pds, 0, hl, "TSS header") then
		return
	end
	pds:set_len(hl)
	pds:add(f["tss.sp"], tvb(0, 1))
	pds:add(f["tss.an"], tvb(0, 1))
	pds:add(f["tss.sdi"], tvb(1, 3))
	if hl == 16 then
		pds:add(f["tss.ssi"], tvb(4, 4))
	end
	pds:add(f["tss.tsc"], tvb(hl - 8, 8))
	info(ctx, string.format("SDI=0x%06x", tvb(1, 3):uint()))
	local r = cap_range(tvb, hl)
	if r then
		pds:add(f["pds.tss"], r)
	end
	pds:add_proto_expert_info(E.tss)
end

-- The UET bytes in ctx.tvb, from the PDS (or TSS) header on.
local function dissect_uet(ctx)
	local tvb, root = ctx.tvb, ctx.root
	if not check(ctx, root, 0, PDS_PROLOGUE_LEN, "PDS prologue") then
		info(ctx, "UET")
		return
	end
	local prlg = tvb(0, 2):uint()
	local ptype, nh, flags = bits(prlg, 11, 5), bits(prlg, 7, 4), prlg % 128
	local tname = name_of(PDS_TYPE, ptype)
	info(ctx, tname)

	local hlen = PDS_HDR_LEN[ptype]
	local pds = root:add(f["pds"], cap_range(tvb, 0, hlen or PDS_PROLOGUE_LEN))
	pds:append_text(": " .. tname)
	pds:add(f["pds.type"], tvb(0, 2))
	if ptype == T_TSS then
		pds_tss(ctx, pds)
		return
	end
	if ptype == T_CP then
		pds:add(f["pds.ctl_type"], tvb(0, 2))
	else
		pds:add(f["pds.next_hdr"], tvb(0, 2))
	end
	local flagstr = add_flags(ctx, pds, ptype, flags)

	if hlen == nil then
		pds:add_proto_expert_info(E.unknown_type, string.format("PDS type %d is reserved or unknown", ptype))
		local r = cap_range(tvb, PDS_PROLOGUE_LEN)
		if r then
			root:add(f["trailing"], r)
		end
		return
	end
	if not check(ctx, pds, 0, hlen, tname .. " header") then
		return
	end

	-- The CRC trailer (preference crc_trailer): on every frame but a trimmed request, whose trailer a switch cut.
	local rep = tvb:reported_length_remaining(0)
	local ses_min = SES_HDR_LEN[nh]
	local trimmed = TRIMMABLE[ptype] and ses_min ~= nil and
		(rep == hlen or (rep == MIN_TRIM_LEN and hlen + ses_min > rep))
	if uet.prefs.crc_trailer and not trimmed and rep >= hlen + CRC_LEN and tvb:len() == rep then
		add_crc(ctx, rep - CRC_LEN, false)
		ctx.tvb = tvb(0, rep - CRC_LEN):tvb()
		tvb = ctx.tvb
	end

	if ptype == T_RUD or ptype == T_ROD or ptype == T_RUD_CC or ptype == T_ROD_CC then
		pds_request(ctx, pds, ptype, flags, flagstr)
	elseif ptype == T_RUDI_REQ or ptype == T_RUDI_RESP then
		pds_rudi(ctx, pds, flagstr)
	elseif ptype == T_UUD then
		pds_uud(ctx, pds, flagstr)
	elseif ptype == T_ACK or ptype == T_ACK_CC or ptype == T_ACK_CCX then
		pds_ack(ctx, pds, ptype, flags, flagstr)
	elseif ptype == T_NACK or ptype == T_NACK_CCX then
		pds_nack(ctx, pds, ptype, flags, flagstr)
	elseif ptype == T_CP then
		pds_cp(ctx, pds, nh, flags, flagstr)
	end

	if CARRIES_SES[ptype] and nh ~= NH_NONE then
		dissect_ses(ctx, root, ptype, nh, hlen)
		return
	end
	local rest = tvb:reported_length_remaining(hlen)
	if rest == CRC_LEN and not uet.prefs.crc_trailer and crc_matches(ctx, hlen, rest) then
		add_crc(ctx, hlen, true)
	elseif rest > 0 then
		local r = cap_range(tvb, hlen)
		local ti = root:add(f["trailing"], r or tvb(0, 0))
		ti:add_proto_expert_info(E.trailing, string.format("%d bytes after the %s header", rest, tname))
	end
end

-- A UET frame: @tvb starts with the PDS header, or with the entropy header when @native (IP protocol 253).
local function dissect(tvb, pinfo, tree, native)
	pinfo.cols.protocol:set("UET")
	local root
	if tvb:len() > 0 then
		root = tree:add(uet, tvb())
	else
		root = tree:add(uet, tvb(0, 0))
	end
	local ctx = { tvb = tvb, outer = tvb, pinfo = pinfo, root = root, info = {} }

	if native then
		if not check(ctx, root, 0, ENTROPY_LEN, "entropy header") then
			info(ctx, "UET")
			finish(ctx)
			return tvb:len()
		end
		root:add(f["entropy"], tvb(0, 2))
		root:add(f["entropy.rsvd"], tvb(2, 2))
		ctx.native = tvb(0, 2):uint()
		if tvb:reported_length_remaining(ENTROPY_LEN) <= 0 then
			check(ctx, root, ENTROPY_LEN, PDS_PROLOGUE_LEN, "PDS prologue")
			info(ctx, "UET")
			finish(ctx)
			return tvb:len()
		end
		ctx.tvb = tvb(ENTROPY_LEN):tvb()
	end
	dissect_uet(ctx)
	finish(ctx)
	return tvb:len()
end

-- From the UDP port table, or from ip.proto 253 (native: the entropy header first).
function uet.dissector(tvb, pinfo, tree)
	return dissect(tvb, pinfo, tree, pinfo.match_uint == IPPROTO_UET and uet.prefs.udp_port ~= IPPROTO_UET)
end

-- UDP heuristic: claims a datagram to the UET port whose first header is a known PDS type. Only consulted before
-- the port table with -o udp.try_heuristic_first:TRUE (useful when the entropy source port is a low, named port).
local function heuristic(tvb, pinfo, tree)
	if pinfo.dst_port ~= uet.prefs.udp_port or tvb:len() < PDS_PROLOGUE_LEN then
		return false
	end
	local ptype = bits(tvb(0, 2):uint(), 11, 5)
	if PDS_HDR_LEN[ptype] == nil then
		return false
	end
	dissect(tvb, pinfo, tree, false)
	return true
end
uet:register_heuristic("udp", heuristic)

-- UDP port registration; a preference change moves it (and gives the old port back to what held it before).
local udp_table = DissectorTable.get("udp.port")
local registered_port = nil
local displaced = nil

local function register_port()
	local port = uet.prefs.udp_port
	if port == registered_port then
		return
	end
	if registered_port ~= nil then
		udp_table:remove(registered_port, uet)
		if displaced ~= nil then
			udp_table:add(registered_port, displaced)
		end
		registered_port, displaced = nil, nil
	end
	if port ~= 0 then
		displaced = udp_table:get_dissector(port)
		udp_table:add(port, uet)
		registered_port = port
	end
end

--[[
Entropy values sit in the UDP source port, which UDP tries first when it is the lower port: below the UET port,
a port another protocol registered would take UET frames (uetemu's 256..383 hold 269 PacketBB, 319/320 PTP, ...).
Each such port gets a chooser: a datagram to the UET port goes to UET, any other to the protocol that had the port.
]]
local chooser = Proto(PN .. "_srcport", "UET entropy source port (hands other traffic to the port's protocol)")
local displaced_by_port = {}

function chooser.dissector(tvb, pinfo, tree)
	if pinfo.dst_port == uet.prefs.udp_port and pinfo.match_uint ~= pinfo.dst_port then
		return dissect(tvb, pinfo, tree, false)
	end
	local d = displaced_by_port[pinfo.match_uint]
	if d ~= nil then
		return d:call(tvb, pinfo, tree)
	end
	return 0
end

local function choose_low_ports()
	for port = 1, uet.prefs.udp_port - 1 do
		if displaced_by_port[port] == nil then
			local d = udp_table:get_dissector(port)
			if d ~= nil then
				displaced_by_port[port] = d
				udp_table:add(port, chooser)
			end
		end
	end
end

function uet.prefs_changed()
	register_port()
	choose_low_ports()
end

register_port()
choose_low_ports()

-- Native encapsulation: IP protocol 253 (IPv4 protocol, IPv6 next header), the entropy header, then PDS.
DissectorTable.get("ip.proto"):add(IPPROTO_UET, uet)

--[[
uetemu's RDMA connection setup (not UET; docs/wire.md): the ScalaRdma application's ConnectRequest, ConnectReply
and ReadyToUse, a 20-byte header after UDP to destination port 4794:
  type(1) version(1) connection(2) local_id(4) remote_id(4) qpn(4) reserved(4), big-endian.
]]
local CM_PORT, CM_LEN = 4794, 20
local CM_TYPES = { [1] = "ConnectRequest", [2] = "ConnectReply", [3] = "ReadyToUse" }
local uetcm = Proto("uetemu_cm", "uetemu RDMA connection setup")
local cmf = {
	type = ProtoField.uint8("uetemu_cm.type", "Type", base.DEC, CM_TYPES),
	version = ProtoField.uint8("uetemu_cm.version", "Version", base.DEC),
	connection = ProtoField.uint16("uetemu_cm.connection", "Connection (number within the pair)", base.DEC),
	local_id = ProtoField.uint32("uetemu_cm.local_id", "Local ID (sender's id of the connection)", base.HEX),
	remote_id = ProtoField.uint32("uetemu_cm.remote_id", "Remote ID (receiver's id; 0 in a request)", base.HEX),
	qpn = ProtoField.uint32("uetemu_cm.qpn", "QPN (sender's queue pair end: its PDC id)", base.DEC),
	reserved = ProtoField.uint32("uetemu_cm.reserved", "Reserved", base.HEX),
}
uetcm.fields = { cmf.type, cmf.version, cmf.connection, cmf.local_id, cmf.remote_id, cmf.qpn, cmf.reserved }
local cm_short = ProtoExpert.new("uetemu_cm.short", "Connection-management message shorter than 20 bytes",
	expert.group.MALFORMED, expert.severity.ERROR)
local cm_bad = ProtoExpert.new("uetemu_cm.bad", "Unknown connection-management type or version",
	expert.group.MALFORMED, expert.severity.ERROR)
uetcm.experts = { cm_short, cm_bad }

function uetcm.dissector(tvb, pinfo, tree)
	pinfo.cols.protocol = "UETEMU-CM"
	local t = tree:add(uetcm, tvb(0, math.min(tvb:len(), CM_LEN)))
	if tvb:len() < CM_LEN then
		t:add_proto_expert_info(cm_short)
		pinfo.cols.info = "connection setup (short)"
		return tvb:len()
	end
	local ty, ver = tvb(0, 1):uint(), tvb(1, 1):uint()
	t:add(cmf.type, tvb(0, 1))
	t:add(cmf.version, tvb(1, 1))
	t:add(cmf.connection, tvb(2, 2))
	t:add(cmf.local_id, tvb(4, 4))
	t:add(cmf.remote_id, tvb(8, 4))
	t:add(cmf.qpn, tvb(12, 4))
	t:add(cmf.reserved, tvb(16, 4))
	if CM_TYPES[ty] == nil or ver ~= 1 then
		t:add_proto_expert_info(cm_bad)
	end
	pinfo.cols.info = string.format("%s conn=%d local=0x%08x remote=0x%08x qpn=%d", CM_TYPES[ty] or ("type " .. ty),
		tvb(2, 2):uint(), tvb(4, 4):uint(), tvb(8, 4):uint(), tvb(12, 4):uint())
	return CM_LEN
end

udp_table:add(CM_PORT, uetcm)
