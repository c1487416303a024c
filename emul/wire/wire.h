/* Ethernet II / IPv4 / UDP / UET PDS + SES frames: the packet descriptor and its encoder and decoder.
 *
 * Byte layouts follow spec/uet-wire-and-algorithms.md section 1 (UET 1.0); sizes follow the Scala pages:
 * data = payload + 106 B on the wire, ACK_CC 78 B, NACK / control / trimmed 62 B, each counting a 4 B FCS that
 * frames in memory and in captures do not contain.
 */
#ifndef WIRE_H
#define WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Header sizes (bytes). */
#define WIRE_ETH_LEN 14
#define WIRE_IPV4_LEN 20
#define WIRE_UDP_LEN 8
#define WIRE_PDS_REQ_CC_LEN 16 /* RUD_CC / ROD_CC request */
#define WIRE_PDS_ACK_CC_LEN 32
#define WIRE_PDS_NACK_LEN 16
#define WIRE_PDS_CP_LEN 16
#define WIRE_SES_STD_LEN 44
#define WIRE_FCS_LEN 4
/* Bytes on the wire around a data payload: 14 + 20 + 8 + 16 + 44 + 4 FCS = 106. */
#define WIRE_DATA_OVERHEAD (WIRE_ETH_LEN + WIRE_IPV4_LEN + WIRE_UDP_LEN + WIRE_PDS_REQ_CC_LEN + WIRE_SES_STD_LEN + WIRE_FCS_LEN)
/* The IP datagram of a data packet is payload + 88: the "nominal" packet congestion control counts. */
#define WIRE_DATA_IP_OVERHEAD (WIRE_IPV4_LEN + WIRE_UDP_LEN + WIRE_PDS_REQ_CC_LEN + WIRE_SES_STD_LEN)
/* A switch trims a data packet to IPv4 + UDP + the PDS request header: 44 B IP, 62 B on the wire. */
#define WIRE_TRIMMED_IP_LEN (WIRE_IPV4_LEN + WIRE_UDP_LEN + WIRE_PDS_REQ_CC_LEN)
#define WIRE_MAX_FRAME 9216 /* largest frame encoded or accepted, without FCS */

#define WIRE_ETHERTYPE_IPV4 0x0800
#define WIRE_IPPROTO_UDP 17
#define WIRE_UDP_PORT_UET 4793
/* uetemu's own UDP port for the RDMA application's connection-management messages (docs/wire.md); not UET. */
#define WIRE_UDP_PORT_CM 4794
/* The connection-management header after UDP: 20 B, so a message is a 62 B frame, 66 B on the wire. */
#define WIRE_CM_LEN 20
#define WIRE_CM_VERSION 1
#define WIRE_TTL 255
#define WIRE_ECN_NOT_ECT 0
#define WIRE_ECN_ECT1 1
#define WIRE_ECN_ECT0 2
#define WIRE_ECN_CE 3

/* PDS type codes (UET 1.0, spec 1.2). */
enum wire_pds_type {
	WIRE_PDS_RUD_REQ = 2,
	WIRE_PDS_ROD_REQ = 3,
	WIRE_PDS_ACK = 7,
	WIRE_PDS_ACK_CC = 8,
	WIRE_PDS_NACK = 10,
	WIRE_PDS_CP = 11,
	WIRE_PDS_RUD_CC_REQ = 13,
	WIRE_PDS_ROD_CC_REQ = 14,
};

/* next_hdr values: the SES header after a PDS request. */
enum wire_next_hdr {
	WIRE_NH_NONE = 0,
	WIRE_NH_REQ_SMALL = 1,
	WIRE_NH_REQ_MEDIUM = 2,
	WIRE_NH_REQ_STD = 3,
	WIRE_NH_RESPONSE = 4,
};

/* PDS request flags (7-bit flags field of the prologue). */
#define WIRE_REQ_F_RETX 0x10
#define WIRE_REQ_F_AR 0x08
#define WIRE_REQ_F_SYN 0x04
/* ACK flags. */
#define WIRE_ACK_F_M 0x20
#define WIRE_ACK_F_RETX 0x10
#define WIRE_ACK_F_P 0x08
/* NACK flags. */
#define WIRE_NACK_F_M 0x20
#define WIRE_NACK_F_RETX 0x10
#define WIRE_NACK_F_NT 0x08
/* Control packet flags. */
#define WIRE_CP_F_ISROD 0x20
#define WIRE_CP_F_RETX 0x10
#define WIRE_CP_F_AR 0x08
#define WIRE_CP_F_SYN 0x04

/* Control packet types (carried in the next_hdr slot). */
enum wire_ctl_type {
	WIRE_CTL_NOOP = 0,
	WIRE_CTL_ACK_REQ = 1,
	WIRE_CTL_CLEAR = 2,
	WIRE_CTL_CLEAR_REQ = 3,
	WIRE_CTL_CLOSE = 4,
	WIRE_CTL_CLOSE_REQ = 5,
	WIRE_CTL_PROBE = 6,
	WIRE_CTL_CREDIT = 7,
	WIRE_CTL_CREDIT_REQ = 8,
	WIRE_CTL_NEGOTIATION = 9,
};

/* NACK codes the emulator sends (others are decoded and passed through as numbers). */
#define WIRE_NACK_TRIMMED 0x01
#define WIRE_NACK_TRIMMED_LASTHOP 0x02

/* SES opcode and flags. */
#define WIRE_SES_OP_WRITE 1
#define WIRE_SES_OP_SEND 5
#define WIRE_SES_F_DC 0x20
#define WIRE_SES_F_IE 0x10
#define WIRE_SES_F_REL 0x08
#define WIRE_SES_F_HD 0x04
#define WIRE_SES_F_EOM 0x02
#define WIRE_SES_F_SOM 0x01

/* What a frame is, as the models see it. TRIMMED is a data request cut after its PDS header. */
enum wire_kind {
	WIRE_KIND_NONE = 0,
	WIRE_KIND_DATA,
	WIRE_KIND_ACK,
	WIRE_KIND_NACK,
	WIRE_KIND_CP,
	WIRE_KIND_TRIMMED,
	WIRE_KIND_PFC,      /* 802.1Qbb priority flow control frame (MAC control, not UET) */
	WIRE_KIND_CM,       /* the RDMA application's connection setup message (UDP WIRE_UDP_PORT_CM, not UET) */
};

/* Connection-management message types, named as InfiniBand CM names the three steps (seed 003, Connection
 * setup: request, response, acknowledgment). */
enum wire_cm_type {
	WIRE_CM_REQ = 1, /* ConnectRequest: Initiator -> Responder */
	WIRE_CM_REP = 2, /* ConnectReply: the Responder's end of the queue pair exists */
	WIRE_CM_RTU = 3, /* ReadyToUse: the Initiator's end exists; the connection is set up */
};

/* The connection-management header (all big-endian): type(1) version(1) connection(2) local_id(4) remote_id(4)
 * qpn(4) reserved(4). */
struct wire_cm {
	uint8_t type;        /* enum wire_cm_type */
	uint16_t connection; /* the connection's number within its pair, from 0 */
	uint32_t local_id;   /* the sender's id of the connection, never 0 */
	uint32_t remote_id;  /* the receiver's id of it: 0 in a request */
	uint32_t qpn;        /* the sender's end of the queue pair (on the UET NIC: its PDC id); 0 if none yet */
};

/* PFC (IEEE 802.1Qbb): MAC control ethertype 0x8808, opcode 0x0101, to 01:80:C2:00:00:01, a class-enable vector
 * and eight pause times in quanta of 512 bit times; padded to the 60-byte minimum frame (64 B with FCS). */
#define WIRE_ETHERTYPE_MAC_CTRL 0x8808
#define WIRE_PFC_OPCODE 0x0101
#define WIRE_PFC_MIN_LEN (WIRE_ETH_LEN + 2 + 2 + 16)
#define WIRE_PFC_FRAME_LEN 60

/* Packet roles and their DSCP codepoints (defaults: spec 1.5). */
enum wire_role {
	WIRE_ROLE_NO_TRIM = 0,
	WIRE_ROLE_TRIMMABLE,
	WIRE_ROLE_TRIMMABLE_RTX,
	WIRE_ROLE_TRIMMED,
	WIRE_ROLE_TRIMMED_LASTHOP,
	WIRE_ROLE_CONTROL,
	WIRE_ROLE_COUNT
};

/** DSCP value of each role. Embedded in device params, hence public. */
struct wire_dscp_map {
	uint8_t dscp[WIRE_ROLE_COUNT];
};

/** Fill @p m with the defaults: NO_TRIM 0, TRIMMABLE 8, TRIMMABLE_RTX 10, TRIMMED 16, TRIMMED_LASTHOP 18, CONTROL 46. */
void wire_dscp_defaults(struct wire_dscp_map *m);

/** The role whose codepoint is @p dscp in @p m, or -1 if none. */
int wire_dscp_role(const struct wire_dscp_map *m, uint8_t dscp);

/* The PDS header fields of every kind, in one struct; each kind uses its own subset (see the comments). */
struct wire_pds {
	uint8_t type;      /* enum wire_pds_type */
	uint8_t next_hdr;  /* requests: enum wire_next_hdr; CP: enum wire_ctl_type */
	uint8_t flags;     /* 7 bits, meaning per type */
	int16_t psn_off;   /* request: clear_psn_offset; ACK: ack_psn_offset */
	uint16_t probe_opaque; /* CP probe, and ACK with P=1 (then it replaces ack_psn_offset on the wire) */
	uint32_t psn;      /* request/CP: PSN; ACK: CACK_PSN; NACK: NACK_PSN */
	uint16_t spdcid;
	uint16_t dpdcid;   /* with SYN: pdc_info(4) + psn_offset(12) instead; encode what is here */
	/* RUD_CC request */
	uint8_t ccc_id;
	uint32_t credit_target; /* 24 bits */
	/* ACK_CC */
	uint8_t cc_type;   /* 4 bits: 0 NSCC, 1 CREDIT */
	uint8_t cc_flags;  /* 4 bits */
	uint8_t mpr;
	int16_t sack_psn_off;
	uint64_t sack_bitmap;
	uint16_t service_time;  /* NSCC state: 128 ns units */
	uint8_t rc;             /* 1 bit */
	uint8_t rcv_cwnd_pend;  /* 7 bits */
	uint32_t rcvd_bytes;    /* 24 bits, 256 B units */
	uint16_t ooo_count;
	/* NACK */
	uint8_t nack_code;
	uint8_t vendor_code;
	uint32_t payload;  /* NACK payload, CP payload */
};

/* SES standard request header (44 B). */
struct wire_ses {
	uint8_t opcode;    /* 6 bits */
	uint8_t ver;       /* 2 bits */
	uint8_t flags;     /* 6 bits: DC IE REL HD EOM SOM */
	uint16_t message_id;
	uint8_t ri_generation;
	uint32_t job_id;   /* 24 bits */
	uint16_t pid_on_fep;     /* 12 bits */
	uint16_t resource_index; /* 12 bits */
	uint64_t buffer_offset;
	uint32_t initiator;
	uint64_t memory_key;
	uint64_t header_data;    /* with SOM */
	uint16_t payload_length; /* 14 bits, without SOM */
	uint32_t message_offset; /* without SOM */
	uint32_t request_length;
};

/**
 * The packet descriptor the models pass around: headers as fields plus a payload length. Bytes exist only where
 * a frame crosses a boundary (wire_encode / wire_decode). Embedded in pools by its users, hence public.
 */
struct wire_pkt {
	uint8_t kind;       /* enum wire_kind */
	uint32_t payload_len;    /* DATA only: bytes after the SES header (here: a frame's length needs one line) */
	uint8_t dst_mac[6];
	uint8_t src_mac[6];
	uint32_t src_ip;    /* host byte order */
	uint32_t dst_ip;
	uint8_t dscp;       /* 6 bits */
	uint8_t ecn;        /* 2 bits */
	uint8_t ttl;
	uint8_t flow_crc_ok;     /* model only, never encoded: flow_crc holds the 5-tuple's CRC */
	uint16_t ip_id;
	uint16_t sport;     /* entropy value */
	uint16_t dport;
	uint16_t pfc_enable;     /* PFC only: class-enable vector, bit c for class c */
	uint32_t flow_crc;       /* model only: a switch's ECMP hash's CRC-32 register of the 5-tuple from 0, kept by the
				    first switch (nothing changes a packet's 5-tuple in flight; the allocator zeroes it) */
	struct wire_pds pds;
	struct wire_ses ses;     /* DATA only */
	uint16_t pfc_quanta[8];  /* PFC only: pause time per class, in quanta of 512 bit times; 0 = resume (XON) */
	struct wire_cm cm;       /* CM only */
	uint64_t uid;            /* model only, never encoded: the packet's id in the run (uet-monitor packet_UID) */
	void *ctx;               /* model only, never encoded: the sender's own context (its packet record) */
	struct wire_pkt *next;   /* model only, never encoded: the next packet of the queue it waits in */
};

/* Frame length (no FCS) of each kind before its payload: Ethernet + IPv4 + UDP + the kind's own header; 0 for a
 * kind the models do not know. Indexed by enum wire_kind. */
#define WIRE_KIND_SLOTS 8
#define WIRE_BELOW_PDS (WIRE_ETH_LEN + WIRE_IPV4_LEN + WIRE_UDP_LEN)
static const uint16_t wire_kind_hdrs[WIRE_KIND_SLOTS] = {
	[WIRE_KIND_DATA] = WIRE_BELOW_PDS + WIRE_PDS_REQ_CC_LEN + WIRE_SES_STD_LEN,
	[WIRE_KIND_ACK] = WIRE_BELOW_PDS + WIRE_PDS_ACK_CC_LEN,
	[WIRE_KIND_NACK] = WIRE_BELOW_PDS + WIRE_PDS_NACK_LEN,
	[WIRE_KIND_CP] = WIRE_BELOW_PDS + WIRE_PDS_CP_LEN,
	[WIRE_KIND_TRIMMED] = WIRE_BELOW_PDS + WIRE_PDS_REQ_CC_LEN,
	[WIRE_KIND_PFC] = WIRE_PFC_FRAME_LEN,
	[WIRE_KIND_CM] = WIRE_BELOW_PDS + WIRE_CM_LEN,
};

/**
 * Frame length in memory and in captures (no FCS) of @p p, from its kind and payload_len; 0 for an unknown kind.
 * Inline, a table lookup and one add: every hop asks for it, and both fields sit in the descriptor's first line.
 */
static inline size_t wire_frame_len(const struct wire_pkt *p)
{
	if (p->kind >= WIRE_KIND_SLOTS)
		return 0;
	return (size_t)wire_kind_hdrs[p->kind] + (p->kind == WIRE_KIND_DATA ? p->payload_len : 0u);
}
/** Length on the wire, FCS included: wire_frame_len() + 4. This is what serialization time is computed from. */
static inline size_t wire_wire_len(const struct wire_pkt *p)
{
	return wire_frame_len(p) + WIRE_FCS_LEN;
}
/** IP datagram length of @p p (IPv4 total length: the frame less its Ethernet header); 0 for an unknown kind. */
static inline size_t wire_ip_len(const struct wire_pkt *p)
{
	size_t f = wire_frame_len(p);

	return f == 0 ? 0 : f - WIRE_ETH_LEN;
}
/**
 * Encode @p p into @p buf of @p cap bytes: Ethernet II, IPv4 (IHL 5, DF, the given TTL/DSCP/ECN, correct header
 * checksum), UDP (checksum 0), the PDS header of p->kind, the SES header and the payload for DATA (payload bytes
 * are the fixed pattern wire_payload_byte()). TRIMMED encodes the request header only. Reserved bits are zero.
 * The kind decides the PDS type (DATA / TRIMMED: ROD_CC_REQ if pds.type says so, else RUD_CC_REQ) and next_hdr
 * (REQ_STD for DATA / TRIMMED, 0 for ACK / NACK, pds.next_hdr as ctl_type for CP). Without SOM the SES
 * payload_length is written from payload_len, so the frame always agrees with itself.
 * Returns the bytes written (== wire_frame_len(p)), or -EINVAL for an unknown kind or a frame over WIRE_MAX_FRAME,
 * -ENOSPC if @p cap is short.
 */
int wire_encode(const struct wire_pkt *p, uint8_t *buf, size_t cap);

/** Write only the headers of @p p (everything before the payload); returns their length, or as wire_encode(). */
int wire_encode_hdrs(const struct wire_pkt *p, uint8_t *buf, size_t cap);

/**
 * Write the data payload pattern into @p buf of @p cap bytes wherever a data frame's payload can lie (from the end
 * of a data frame's headers to @p cap), for wire_encode_prefilled(). Once, when the buffer is made: it costs a
 * pass over the buffer.
 */
void wire_prefill_payload(uint8_t *buf, size_t cap);

/**
 * wire_encode() into a buffer that wire_prefill_payload() prepared with the same @p cap: writes only the headers,
 * since the payload pattern is already in place and no frame's headers reach it (checked at compile time), so a
 * buffer reused for every frame gives each frame the bytes wire_encode() would. Returns as wire_encode().
 */
int wire_encode_prefilled(const struct wire_pkt *p, uint8_t *buf, size_t cap);

/** Payload pattern byte at offset @p i of a data payload. */
static inline uint8_t wire_payload_byte(size_t i)
{
	return (uint8_t)(i & 0xff);
}

/* Why a frame was refused. 0 is success. One X-macro list gives the enum and the names. */
#define WIRE_REASONS(X) \
	X(OK, "ok", "ok") \
	X(SHORT_ETH, "short_eth", "shorter than an Ethernet header") \
	X(NOT_IPV4, "not_ipv4", "ethertype is not IPv4") \
	X(SHORT_IP, "short_ip", "shorter than an IPv4 header") \
	X(BAD_IP_VERSION, "bad_ip_version", "IP version is not 4") \
	X(BAD_IHL, "bad_ihl", "IPv4 header length is not 20 bytes (options unsupported)") \
	X(BAD_IP_LEN, "bad_ip_len", "IPv4 total length disagrees with the frame") \
	X(BAD_IP_CSUM, "bad_ip_csum", "IPv4 header checksum wrong") \
	X(IP_FRAGMENT, "ip_fragment", "IPv4 fragment") \
	X(NOT_UDP, "not_udp", "IP protocol is not UDP") \
	X(SHORT_UDP, "short_udp", "shorter than a UDP header") \
	X(BAD_UDP_LEN, "bad_udp_len", "UDP length disagrees with the IP length") \
	X(NOT_UET_PORT, "not_uet_port", "UDP destination port is not the UET port") \
	X(SHORT_PDS, "short_pds", "shorter than its PDS header") \
	X(BAD_PDS_TYPE, "bad_pds_type", "PDS type not supported") \
	X(BAD_NEXT_HDR, "bad_next_hdr", "PDS next header not supported") \
	X(SHORT_SES, "short_ses", "shorter than its SES header") \
	X(BAD_SES_LEN, "bad_ses_len", "SES payload length disagrees with the frame") \
	X(TRAILING, "trailing", "bytes after the header of a control packet or connection-management message") \
	X(NOT_PFC, "not_pfc", "MAC control frame that is not PFC") \
	X(SHORT_PFC, "short_pfc", "PFC frame shorter than its 34 bytes") \
	X(SHORT_CM, "short_cm", "connection-management message shorter than its 20 bytes") \
	X(BAD_CM, "bad_cm", "connection-management message with an unknown type or version")

#define WIRE_REASON_ENUM(n, k, s) WIRE_R_##n,
enum wire_reason { WIRE_REASONS(WIRE_REASON_ENUM) WIRE_R_COUNT };
#undef WIRE_REASON_ENUM

/** Text for a reason code; "unknown" outside the enum. */
const char *wire_reason_str(int reason);

/** Key of @p reason, a snake_case identifier (summary.json); "unknown" outside the enum. */
const char *wire_reason_key(int reason);

/**
 * Decode the @p len bytes at @p buf (no FCS; Ethernet padding after the IP datagram is allowed) into @p out.
 * Every length and field is checked before it is read. @p uet_port is the UDP destination port to accept as UET;
 * WIRE_UDP_PORT_CM (when it is not @p uet_port) is a connection-management message (exactly WIRE_CM_LEN bytes).
 * A request whose IP datagram ends right after its PDS header while next_hdr names an SES header is TRIMMED.
 * A datagram longer than WIRE_MAX_FRAME - 14 is BAD_IP_LEN. Fields outside the decoded kind's layout are zero
 * (an ACK with P set fills probe_opaque, not psn_off).
 * Returns WIRE_R_OK (0), or a positive enum wire_reason naming the first problem; @p out is then unspecified.
 */
int wire_decode(const uint8_t *buf, size_t len, uint16_t uet_port, struct wire_pkt *out);

/** RFC 1071 Internet checksum of @p len bytes (used for the IPv4 header). */
uint16_t wire_csum(const uint8_t *buf, size_t len);

#endif /* WIRE_H */
