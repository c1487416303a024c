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

/* Header sizes (bytes; spec 1.3, 1.4). The PDS sizes include the 2-byte prologue. */
#define WIRE_ETH_LEN 14
#define WIRE_IPV4_LEN 20
#define WIRE_UDP_LEN 8
#define WIRE_ENTROPY_LEN 4     /* native IPv4: entropy u16 + reserved u16 instead of UDP */
#define WIRE_PDS_PROLOGUE_LEN 2
#define WIRE_PDS_REQ_LEN 12    /* RUD / ROD request */
#define WIRE_PDS_REQ_CC_LEN 16 /* RUD_CC / ROD_CC request */
#define WIRE_PDS_RUDI_LEN 8    /* RUDI request and response */
#define WIRE_PDS_UUD_LEN 4
#define WIRE_PDS_ACK_LEN 12
#define WIRE_PDS_ACK_CC_LEN 32
#define WIRE_PDS_ACK_CCX_LEN 40
#define WIRE_PDS_NACK_LEN 16
#define WIRE_PDS_NACK_CCX_LEN 32
#define WIRE_PDS_CP_LEN 16
#define WIRE_TSS_LEN 12        /* TSS security header without SSI: type/flags/SDI u32 + epoch/TSC u64 */
#define WIRE_TSS_SSI_LEN 16    /* with SP set: SSI u32 after the first word */
#define WIRE_TSS_ICV_LEN 16    /* the AES-GCM ICV that ends a TSS frame */
#define WIRE_SES_SMALL_LEN 20
#define WIRE_SES_MEDIUM_LEN 32
#define WIRE_SES_STD_LEN 44
#define WIRE_SES_RSP_LEN 12
#define WIRE_SES_RSP_DATA_LEN 20
#define WIRE_SES_RSP_DATA_SMALL_LEN 12
#define WIRE_SES_ATOMIC_LEN 4  /* atomic extension: opcode, datatype, semantic control, reserved */
#define WIRE_SES_CAS_LEN 36    /* compare-and-swap extension: the atomic one + compare 16 B + swap 16 B */
#define WIRE_SES_RDV_LEN 24    /* rendezvous extension */
#define WIRE_MIN_TRIM_LEN 16   /* MIN_TRIM_SIZE (spec 1.6) less the UDP header: UET bytes left by a trim */
#define WIRE_CRC_LEN 4         /* the optional CRC-32C trailer */
#define WIRE_IPV4_CRC_FROM 12  /* CrcCoverage refprov: the trailer covers from this IPv4 header offset (source address) */
#define WIRE_FCS_LEN 4
/* Bytes on the wire around a data payload: 14 + 20 + 8 + 16 + 44 + 4 FCS = 106. */
#define WIRE_DATA_OVERHEAD (WIRE_ETH_LEN + WIRE_IPV4_LEN + WIRE_UDP_LEN + WIRE_PDS_REQ_CC_LEN + WIRE_SES_STD_LEN + WIRE_FCS_LEN)
/* The IP datagram of a data packet is payload + 88: the "nominal" packet congestion control counts. */
#define WIRE_DATA_IP_OVERHEAD (WIRE_IPV4_LEN + WIRE_UDP_LEN + WIRE_PDS_REQ_CC_LEN + WIRE_SES_STD_LEN)
/* A switch trims a data packet to IPv4 + UDP + the PDS request header: 44 B IP, 62 B on the wire. */
#define WIRE_TRIMMED_IP_LEN (WIRE_IPV4_LEN + WIRE_UDP_LEN + WIRE_PDS_REQ_CC_LEN)
#define WIRE_MAX_FRAME 9216 /* largest frame encoded or accepted, without FCS */
#define WIRE_HDRS_MAX 128   /* no frame's headers (wire_encode_hdrs()) are longer: a data frame's are 102 B */

#define WIRE_ETHERTYPE_IPV4 0x0800
#define WIRE_IPPROTO_UDP 17
#define WIRE_IPPROTO_UET 253 /* native IPv4 encapsulation (spec 1.1): the entropy header, then PDS */
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

/* PDS type codes (UET 1.0, spec 1.2); 0 and 15..31 are reserved. */
enum wire_pds_type {
	WIRE_PDS_TSS = 1,
	WIRE_PDS_RUD_REQ = 2,
	WIRE_PDS_ROD_REQ = 3,
	WIRE_PDS_RUDI_REQ = 4,
	WIRE_PDS_RUDI_RESP = 5,
	WIRE_PDS_UUD_REQ = 6,
	WIRE_PDS_ACK = 7,
	WIRE_PDS_ACK_CC = 8,
	WIRE_PDS_ACK_CCX = 9,
	WIRE_PDS_NACK = 10,
	WIRE_PDS_CP = 11,
	WIRE_PDS_NACK_CCX = 12,
	WIRE_PDS_RUD_CC_REQ = 13,
	WIRE_PDS_ROD_CC_REQ = 14,
};

/* next_hdr values: the SES header after a PDS header (7..15 are reserved). */
enum wire_next_hdr {
	WIRE_NH_NONE = 0,
	WIRE_NH_REQ_SMALL = 1,
	WIRE_NH_REQ_MEDIUM = 2,
	WIRE_NH_REQ_STD = 3,
	WIRE_NH_RESPONSE = 4,
	WIRE_NH_RESPONSE_DATA = 5,
	WIRE_NH_RESPONSE_DATA_SMALL = 6,
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
/* RUDI request / response flags. */
#define WIRE_RUDI_F_M 0x20
#define WIRE_RUDI_F_RETX 0x10
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

/* NACK codes (spec 1.3; 0x03 and 0x0C reserved, 0x1B..0xFC reserved, 0xFD..0xFF experimental). */
#define WIRE_NACK_TRIMMED 0x01
#define WIRE_NACK_TRIMMED_LASTHOP 0x02
#define WIRE_NACK_NO_PDC_AVAIL 0x04
#define WIRE_NACK_NO_CCC_AVAIL 0x05
#define WIRE_NACK_NO_BITMAP 0x06
#define WIRE_NACK_NO_PKT_BUFFER 0x07
#define WIRE_NACK_NO_GTD_DEL_AVAIL 0x08
#define WIRE_NACK_NO_SES_MSG_AVAIL 0x09
#define WIRE_NACK_NO_RESOURCE 0x0a
#define WIRE_NACK_PSN_OOR_WINDOW 0x0b
#define WIRE_NACK_ROD_OOO 0x0d
#define WIRE_NACK_INV_DPDCID 0x0e
#define WIRE_NACK_PDC_HDR_MISMATCH 0x0f
#define WIRE_NACK_CLOSING 0x10
#define WIRE_NACK_CLOSING_IN_ERR 0x11
#define WIRE_NACK_PKT_NOT_RCVD 0x12
#define WIRE_NACK_GTD_RESP_UNAVAIL 0x13
#define WIRE_NACK_ACK_WITH_DATA 0x14
#define WIRE_NACK_INVALID_SYN 0x15
#define WIRE_NACK_PDC_MODE_MISMATCH 0x16
#define WIRE_NACK_NEW_START_PSN 0x17
#define WIRE_NACK_RCVD_SES_PROCG 0x18
#define WIRE_NACK_UNEXP_EVENT 0x19
#define WIRE_NACK_RCVR_INFER_LOSS 0x1a
/* SES response return codes used (spec 1.4; UEC reference provider uet_ses_rc_t). */
#define WIRE_SES_RC_NULL 0x00
#define WIRE_SES_RC_OK 0x01
#define WIRE_SES_RC_UNSUPPORTED_OP 0x06

/* SES request opcodes (spec 1.4); 0x10..0x2f reserved, 0x30..0x3e vendor, 0x3f extended. */
#define WIRE_SES_OP_NO_OP 0x00
#define WIRE_SES_OP_WRITE 0x01
#define WIRE_SES_OP_READ 0x02
#define WIRE_SES_OP_ATOMIC 0x03
#define WIRE_SES_OP_FETCHING_ATOMIC 0x04
#define WIRE_SES_OP_SEND 0x05
#define WIRE_SES_OP_RENDEZVOUS_SEND 0x06
#define WIRE_SES_OP_DATAGRAM_SEND 0x07
#define WIRE_SES_OP_DEFERRABLE_SEND 0x08
#define WIRE_SES_OP_TAGGED_SEND 0x09
#define WIRE_SES_OP_RENDEZVOUS_TSEND 0x0a
#define WIRE_SES_OP_DEFERRABLE_TSEND 0x0b
#define WIRE_SES_OP_DEFERRABLE_RTR 0x0c
#define WIRE_SES_OP_TSEND_ATOMIC 0x0d
#define WIRE_SES_OP_TSEND_FETCH_ATOMIC 0x0e
#define WIRE_SES_OP_MSG_ERROR 0x0f
/* Atomic opcodes of the compare-and-swap family, whose extension carries compare and swap values. */
#define WIRE_AMO_CSWAP 0x0d
#define WIRE_AMO_CSWAP_GT 0x12
/* SES response opcodes. */
#define WIRE_RSP_DEFAULT 0
#define WIRE_RSP_RESPONSE 1
#define WIRE_RSP_WITH_DATA 2
#define WIRE_RSP_NO_RESPONSE 3
/* SES request flags. */
#define WIRE_SES_F_DC 0x20
#define WIRE_SES_F_IE 0x10
#define WIRE_SES_F_REL 0x08
#define WIRE_SES_F_HD 0x04
#define WIRE_SES_F_EOM 0x02
#define WIRE_SES_F_SOM 0x01

/*
 * What a frame is, as the models see it. The UET kinds the NIC model acts on are exact shapes:
 *   DATA     RUD_CC / ROD_CC request + standard SES header with opcode SEND or WRITE (no extension) + payload
 *   TRIMMED  RUD_CC / ROD_CC request cut after its PDS header by a switch (its SES header, payload and trailer gone)
 *   ACK      ACK_CC with NSCC state, alone or with an SES default response (next_hdr RESPONSE)
 *   NACK     NACK alone
 *   CP       control packet PROBE
 * Every other well-formed UET 1.0 frame is UET: decoded field by field, counted by class; the UET NIC acts on it by
 * its PDS type as UET 1.0 says (emul/nic/nic_pds.c), TSS aside.
 */
enum wire_kind {
	WIRE_KIND_NONE = 0,
	WIRE_KIND_DATA,
	WIRE_KIND_ACK,
	WIRE_KIND_NACK,
	WIRE_KIND_CP,
	WIRE_KIND_TRIMMED,
	WIRE_KIND_PFC,      /* 802.1Qbb priority flow control frame (MAC control, not UET) */
	WIRE_KIND_CM,       /* the RDMA application's connection setup message (UDP WIRE_UDP_PORT_CM, not UET) */
	WIRE_KIND_UET,      /* any other valid UET frame: pds.type and pds.next_hdr say which */
	WIRE_KIND_ROCE,     /* RoCEv2 (UDP WIRE_UDP_PORT_ROCE): BTH, then RETH / AETH / CNP as roce.opcode says */
	WIRE_KIND_RAW,      /* a real device's frame the models do not know (ARP, ICMP, TCP, ...): its bytes are kept
			     * in raw.buf, payload_len of them, and re-emitted as they came (wire_raw.c) */
};

/* Encapsulation flags of a UET frame (struct wire_pkt.encap; nic.UETEncapsulation on send). */
#define WIRE_ENCAP_NATIVE 0x01 /* IPv4 protocol 253 + the entropy header (sport) instead of UDP (spec 1.1) */
#define WIRE_ENCAP_CRC 0x02    /* a CRC-32C trailer over the UET bytes, after the payload (not on a trimmed one) */
#define WIRE_ENCAP_ICRC 0x04   /* RoCE: the invariant CRC after the payload (roce-nic RoCEEncapsulation.ICRC) */
#define WIRE_ENCAP_RETH 0x08   /* RoCE: WRITE FIRST / ONLY carry the 16 B RETH (RoCEEncapsulation.RETH) */
#define WIRE_ENCAP_PLAIN_REQ 0x10 /* DATA / TRIMMED: the 12 B RUD_REQ / ROD_REQ header instead of the CC one (a peer
				     profile's RequestForm; pds.type says RUD or ROD) */
#define WIRE_ENCAP_CRC_IP 0x20 /* with WIRE_ENCAP_CRC: the trailer covers from the IPv4 source address (IPv4 offset
				  12) to the end of the payload, as the UEC reference provider's (CrcCoverage refprov) */

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

/* ---- RoCEv2 (InfiniBand Architecture Specification vol. 1, chapter 9, and Annex A17) ---- */

#define WIRE_UDP_PORT_ROCE 4791
#define WIRE_BTH_LEN 12
#define WIRE_RETH_LEN 16
#define WIRE_AETH_LEN 4
#define WIRE_ICRC_LEN 4
/* The roce-nic pages' control frames carry 64 B after their headers (transport page, Packets on the wire): an
 * ACK / NAK is BTH + AETH + 64 B = 126 B on the wire, a CNP BTH + 64 B (its 16 reserved bytes and 48 of zeros)
 * = 122 B. Both are zeros on the wire. */
#define WIRE_ROCE_CTL_PAD 64

/* BTH opcodes of the reliable connected transport the model uses, and the CNP (Annex A17.9). */
enum wire_roce_op {
	WIRE_ROCE_SEND_FIRST = 0x00,
	WIRE_ROCE_SEND_MIDDLE = 0x01,
	WIRE_ROCE_SEND_LAST = 0x02,
	WIRE_ROCE_SEND_ONLY = 0x04,
	WIRE_ROCE_WRITE_FIRST = 0x06,
	WIRE_ROCE_WRITE_MIDDLE = 0x07,
	WIRE_ROCE_WRITE_LAST = 0x08,
	WIRE_ROCE_WRITE_ONLY = 0x0a,
	WIRE_ROCE_ACK = 0x11,
	WIRE_ROCE_CNP = 0x81,
};

/* AETH syndromes: an ACK with the credit field "invalid" (0x1f), a NAK "PSN sequence error" (0x60). */
#define WIRE_AETH_ACK 0x1f
#define WIRE_AETH_NAK_SEQ 0x60
#define WIRE_AETH_NAK_MASK 0xe0
#define WIRE_AETH_NAK 0x60
#define WIRE_ROCE_PKEY 0xffff /* the default partition */

/* The RoCE headers after UDP. Fields the opcode does not carry are zero. */
struct wire_roce {
	uint8_t opcode;    /* enum wire_roce_op */
	uint8_t se;        /* solicited event: the last packet of a message */
	uint16_t pkey;
	uint32_t dqpn;     /* 24 bits: the destination queue pair */
	uint8_t ack_req;   /* the A bit */
	uint32_t psn;      /* 24 bits */
	/* RETH (WRITE FIRST / ONLY with WIRE_ENCAP_RETH) */
	uint64_t va;
	uint32_t rkey;
	uint32_t dma_len;
	/* AETH (ACK, NAK) */
	uint8_t syndrome;
	uint32_t msn;      /* 24 bits */
};

/** True for a RoCE opcode that carries a payload (SEND / WRITE). */
static inline bool wire_roce_is_data(uint8_t op)
{
	switch (op) {
	case WIRE_ROCE_SEND_FIRST: case WIRE_ROCE_SEND_MIDDLE: case WIRE_ROCE_SEND_LAST: case WIRE_ROCE_SEND_ONLY:
	case WIRE_ROCE_WRITE_FIRST: case WIRE_ROCE_WRITE_MIDDLE: case WIRE_ROCE_WRITE_LAST: case WIRE_ROCE_WRITE_ONLY:
		return true;
	default:
		return false;
	}
}

/**
 * Bytes on the wire (FCS included) around a RoCE data payload sent with encapsulation @p encap: 58 (BTH, UDP,
 * IPv4, Ethernet, FCS), 4 more with the ICRC; RETH frames 16 more besides.
 */
static inline uint32_t wire_roce_data_overhead(uint8_t encap)
{
	return WIRE_ETH_LEN + WIRE_IPV4_LEN + WIRE_UDP_LEN + WIRE_BTH_LEN + WIRE_FCS_LEN +
	       (encap & WIRE_ENCAP_ICRC ? WIRE_ICRC_LEN : 0);
}

/**
 * The RoCEv2 invariant CRC of the frame @p frame of @p len bytes (Ethernet header first, ICRC last): CRC-32
 * (IEEE 802.3) seeded as if over 8 bytes of 0xff (the masked LRH), then over the IPv4 header with TOS, TTL and
 * checksum set to ones, the UDP header with its checksum set to ones, the BTH with its reserved byte set to ones,
 * and the rest up to the ICRC. Returns the value as the frame carries it, least significant byte first.
 */
uint32_t wire_roce_icrc(const uint8_t *frame, size_t len);

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
	/* Laid out by size, so the struct has no holes (32 B); the ACK's 8-byte fields are in struct wire_ack. */
	uint8_t type;      /* enum wire_pds_type */
	uint8_t next_hdr;  /* requests: enum wire_next_hdr; CP: enum wire_ctl_type */
	uint8_t flags;     /* 7 bits, meaning per type */
	uint8_t ccc_id;    /* RUD_CC request */
	int16_t psn_off;   /* request: clear_psn_offset; ACK: ack_psn_offset */
	uint16_t probe_opaque; /* CP probe, and ACK with P=1 (then it replaces ack_psn_offset on the wire) */
	uint32_t psn;      /* request/CP: PSN; ACK: CACK_PSN; NACK: NACK_PSN; RUDI: pkt_id */
	uint16_t spdcid;
	uint16_t dpdcid;   /* with SYN: pdc_info(4) + psn_offset(12) instead; encode what is here */
	uint32_t credit_target; /* RUD_CC request: 24 bits */
	/* ACK_CC (the rest of its state: struct wire_ack) */
	uint8_t cc_type;   /* 4 bits: 0 NSCC, 1 CREDIT */
	uint8_t cc_flags;  /* 4 bits */
	uint8_t mpr;
	uint8_t nack_code;   /* NACK */
	int16_t sack_psn_off;
	uint8_t vendor_code; /* NACK */
	uint32_t payload;  /* NACK payload, CP payload */
};
_Static_assert(sizeof(struct wire_pds) == 32, "wire_pds packs without holes");

/*
 * The 8-byte fields of an ACK_CC / ACK_CCX (and the CC state of a NACK_CCX): out of struct wire_pds, into the
 * descriptor's union beside the SES response header, since no frame carries them and a request header at once
 * (an ACK or NACK has at most a response header, wire_pds_nh_ok()).
 */
struct wire_ack {
	uint64_t sack_bitmap;
	union { /* the CC state: NSCC's fields (the model's ACK_CC), or as on the wire */
		struct {
			uint16_t service_time;  /* NSCC state: 128 ns units */
			uint8_t rc;             /* 1 bit */
			uint8_t rcv_cwnd_pend;  /* 7 bits */
			uint32_t rcvd_bytes;    /* 24 bits, 256 B units */
			uint16_t ooo_count;
		};
		/* CC state uetemu keeps as on the wire (no model reads it): ACK_CC other than NSCC: [0] =
		 * ack_cc_state; ACK_CCX: [0] = ack_cc_state, [1] = ack_ccx_state; NACK_CCX: the 16 bytes after the
		 * NACK, [0] first. */
		uint64_t cc_raw[2];
	};
};

/*
 * SES request headers: standard (44 B), medium (32 B), small (20 B), and their extensions (spec 1.4). Medium and
 * small carry request_length (14 bits) where the standard header has message_id; medium carries header_data when
 * HD is set, else buffer_offset.
 */
struct wire_ses {
	/* Laid out by size, so the struct has no holes (88 B): the small fields first, the 8-byte ones after. */
	uint8_t opcode;    /* 6 bits */
	uint8_t ver;       /* 2 bits */
	uint8_t flags;     /* 6 bits: DC IE REL HD EOM SOM */
	uint8_t ri_generation;
	uint16_t message_id;
	uint16_t payload_length; /* 14 bits, without SOM */
	uint32_t job_id;   /* 24 bits */
	uint16_t pid_on_fep;     /* 12 bits */
	uint16_t resource_index; /* 12 bits */
	uint32_t initiator;
	uint32_t message_offset; /* without SOM */
	uint32_t request_length;
	/* Atomic extension (opcodes ATOMIC, FETCHING_ATOMIC, TSEND_ATOMIC, TSEND_FETCH_ATOMIC); with an amo_opcode of
	 * the compare-and-swap family (CSWAP .. CSWAP_GT) compare and swap values too (in the union below). */
	uint8_t amo_opcode;
	uint8_t amo_datatype;
	uint8_t amo_sem_ctl;
	uint64_t buffer_offset;
	uint64_t memory_key;
	uint64_t header_data;    /* with SOM */
	union { /* the extension header its opcode calls for (wire_ses_ext()): one or the other */
		struct {
			uint64_t amo_compare[2]; /* 16 B as on the wire: [0] first */
			uint64_t amo_swap[2];
		};
		struct {
			/* Rendezvous extension (RENDEZVOUS_SEND, RENDEZVOUS_TSEND, standard header only). */
			uint32_t rdv_eager_len;
			uint16_t rdv_pid_on_fep;     /* 12 bits */
			uint16_t rdv_resource_index; /* 12 bits */
			uint64_t rdv_offset;
			uint64_t rdv_match_bits;
		};
	};
};
_Static_assert(sizeof(struct wire_ses) == 88, "wire_ses packs without holes");


/* SES response headers: RESPONSE 12 B, RESPONSE_DATA 20 B, RESPONSE_DATA_SMALL 12 B (spec 1.4). */
struct wire_rsp {
	uint8_t list;                  /* 2 bits: 0 expected, 1 overflow */
	uint8_t opcode;                /* 6 bits: WIRE_RSP_* */
	uint8_t ver;                   /* 2 bits */
	uint8_t return_code;           /* 6 bits */
	uint16_t message_id;           /* RESPONSE, RESPONSE_DATA */
	uint8_t ri_generation;         /* RESPONSE */
	uint32_t job_id;               /* 24 bits */
	uint32_t modified_length;      /* RESPONSE, RESPONSE_DATA */
	uint16_t read_req_message_id;  /* RESPONSE_DATA */
	uint16_t payload_length;       /* 14 bits, RESPONSE_DATA and RESPONSE_DATA_SMALL: the payload in the packet */
	uint32_t message_offset;       /* RESPONSE_DATA */
	uint32_t original_request_psn; /* RESPONSE_DATA_SMALL */
};

/* TSS security header (type 1, spec 1.3: 12 B, 16 B with SSI); what follows it is opaque (encrypted + ICV). */
struct wire_tss {
	uint8_t sp;       /* 1 bit: SSI present */
	uint8_t an;       /* 1 bit: association number */
	uint32_t sdi;     /* 24 bits */
	uint32_t ssi;     /* with SP */
	uint64_t tsc;     /* epoch (16 bits) + counter (48 bits) */
};

/**
 * The packet descriptor the models pass around: headers as fields plus a payload length. Bytes exist only where
 * a frame crosses a boundary (wire_encode / wire_decode). Embedded in pools by its users, hence public.
 *
 * Laid out for the event loop (docs/performance.md, "Where the time went"): what every hop reads (kind, length,
 * addresses, DSCP/ECN, ports, the ECMP hash's register, the queue link, the id) in the first 64 bytes; then the PDS
 * header; then one union of what follows it, so a packet touches the lines of its own form only. 192 B (three cache
 * lines), in pools of that stride aligned to the line (NET_PKT_STRIDE). The union's members are what a kind reads, and
 * WIRE_PKT_LEN() how much of the descriptor that is (what the allocator zeroes and a crossing copies).
 */
struct wire_pkt {
	uint8_t kind;       /* enum wire_kind */
	uint8_t encap;      /* WIRE_ENCAP_* flags; 0 = UDP without trailer. Not for PFC and CM frames. */
	uint8_t trim_len;   /* UET only: a trimmed request's UET bytes (its PDS header or WIRE_MIN_TRIM_LEN); 0 if whole */
	uint8_t flow_crc_ok;     /* model only, never encoded: flow_crc holds the 5-tuple's CRC */
	uint32_t payload_len;    /* DATA, UET: bytes after the SES header (TSS: after its header, ICV included); here
				    with kind and encap, so a frame's length reads one line */
	uint8_t dst_mac[6];
	uint8_t src_mac[6];
	uint32_t src_ip;    /* host byte order */
	uint32_t dst_ip;
	uint8_t dscp;       /* 6 bits */
	uint8_t ecn;        /* 2 bits */
	uint8_t ttl;
	uint8_t tc;         /* model only, never in the frame's bytes: the traffic class (0..7) the sending device queued
	                     * it in (NIC egress class, switch class); a VLAN port's PCP (docs/realtime.md, VLANs) */
	uint16_t ip_id;
	uint16_t sport;     /* entropy value: the UDP source port, or the entropy header's value when native */
	uint16_t dport;     /* UDP destination port; 0 in a decoded native frame */
	uint32_t flow_crc;       /* model only: a switch's ECMP hash's CRC-32 register of the 5-tuple from 0, kept by the
				    first switch (nothing changes a packet's 5-tuple in flight; the allocator zeroes it) */
	struct wire_pkt *next;   /* model only, never encoded: the next packet of the queue it waits in */
	uint64_t uid;            /* model only, never encoded: the packet's id in the run (uet-monitor packet_UID) */
	void *ctx;               /* model only, never encoded: the sender's own context (its packet record) */
	struct wire_pds pds;     /* UET kinds; zero in the others */
	union { /* what follows the PDS header, or a non-UET kind's own header: one of them, as the kind says */
		struct wire_ses ses;     /* DATA, TRIMMED (the header the switch cut, kept); UET with a request hdr */
		struct {
			struct wire_rsp rsp; /* ACK with next_hdr RESPONSE; UET with a response header */
			struct wire_ack ack; /* ACK (SACK and CC state); UET of an ACK_CC, ACK_CCX, NACK_CCX type */
		};
		struct wire_tss tss;     /* UET of type TSS (what follows its header is not decoded) */
		struct wire_roce roce;   /* ROCE */
		struct wire_cm cm;       /* CM */
		struct {                 /* PFC */
			uint16_t pfc_enable;     /* class-enable vector, bit c for class c */
			uint16_t pfc_quanta[8];  /* pause time per class, quanta of 512 bit times; 0 = resume (XON) */
		};
		struct {                 /* RAW: the frame's bytes (a buffer of the partition's raw pool, or the
					  * received buffer of the port it came from: buf_ref) */
			uint8_t *buf;
			uint8_t cls;     /* enum wire_fabric_class */
			uint8_t uet;     /* enum wire_raw_uet: a UET frame a switch may trim (wire_raw_trim()), and how */
			uint8_t trimmed; /* 1 once wire_raw_trim() cut it (a trimmed packet, not trimmable again) */
			uint16_t ref_slot; /* with buf_ref: its slot in the partition's table (net_part_refs) */
			void *buf_ref;   /* model only: the port's handle of the buffer buf points into (a DPDK mbuf,
					  * net_bind.h keep), which the packet owns; NULL when buf is the raw pool's */
		} raw;
	};
};
_Static_assert(sizeof(((struct wire_pkt *)0)->raw) <= sizeof(((struct wire_pkt *)0)->ses),
	       "a RAW descriptor's fields do not grow the union (the SES header is its largest member)");
_Static_assert(sizeof(struct wire_pkt) == 192, "three cache lines: a new field goes where it has room");
_Static_assert(offsetof(struct wire_pkt, uid) + sizeof(uint64_t) <= 64, "what every hop reads is in the first line");

/* Bytes of the descriptor up to the end of union member @p m: what a packet of a kind that reads m uses. */
#define WIRE_PKT_UPTO(m) (offsetof(struct wire_pkt, m) + sizeof(((struct wire_pkt *)0)->m))

/**
 * Bytes of the descriptor a packet of kind @p kind reads, from its start: the common part, the PDS header and the
 * kind's member of the union (DATA, TRIMMED and UET the SES header, the largest: the whole descriptor). An
 * unknown kind gets the whole descriptor.
 */
static inline size_t wire_pkt_len(uint8_t kind)
{
	switch (kind) {
	case WIRE_KIND_ACK:
	case WIRE_KIND_NACK:
		return WIRE_PKT_UPTO(ack);
	case WIRE_KIND_CP:
		return offsetof(struct wire_pkt, ses);
	case WIRE_KIND_PFC:
		return WIRE_PKT_UPTO(pfc_quanta);
	case WIRE_KIND_CM:
		return WIRE_PKT_UPTO(cm);
	case WIRE_KIND_ROCE:
		return WIRE_PKT_UPTO(roce);
	case WIRE_KIND_RAW:
		return WIRE_PKT_UPTO(raw);
	default:
		return sizeof(struct wire_pkt);
	}
}


/*
 * Frame length (no FCS) of each kind before its payload, per encapsulation (WIRE_ENCAP_* & 3): Ethernet + IPv4 + UDP
 * (or the entropy header when native) + the kind's own header + the CRC trailer when asked (not on a trimmed
 * frame). PFC and CM frames ignore the encapsulation; UET frames (and NONE) read 0 here. Indexed [encap][kind].
 */
#define WIRE_KIND_SLOTS 8
#define WIRE_BELOW(e) (WIRE_ETH_LEN + WIRE_IPV4_LEN + ((e) & WIRE_ENCAP_NATIVE ? WIRE_ENTROPY_LEN : WIRE_UDP_LEN))
#define WIRE_TRAILER(e) ((e) & WIRE_ENCAP_CRC ? WIRE_CRC_LEN : 0)
#define WIRE_KIND_HDRS(e) { \
	[WIRE_KIND_DATA] = WIRE_BELOW(e) + WIRE_PDS_REQ_CC_LEN + WIRE_SES_STD_LEN + WIRE_TRAILER(e), \
	[WIRE_KIND_ACK] = WIRE_BELOW(e) + WIRE_PDS_ACK_CC_LEN + WIRE_TRAILER(e), \
	[WIRE_KIND_NACK] = WIRE_BELOW(e) + WIRE_PDS_NACK_LEN + WIRE_TRAILER(e), \
	[WIRE_KIND_CP] = WIRE_BELOW(e) + WIRE_PDS_CP_LEN + WIRE_TRAILER(e), \
	[WIRE_KIND_TRIMMED] = WIRE_BELOW(e) + WIRE_PDS_REQ_CC_LEN, \
	[WIRE_KIND_PFC] = WIRE_PFC_FRAME_LEN, \
	[WIRE_KIND_CM] = WIRE_ETH_LEN + WIRE_IPV4_LEN + WIRE_UDP_LEN + WIRE_CM_LEN, \
}
static const uint16_t wire_kind_hdrs[4][WIRE_KIND_SLOTS] = {
	WIRE_KIND_HDRS(0), WIRE_KIND_HDRS(1), WIRE_KIND_HDRS(2), WIRE_KIND_HDRS(3),
};
_Static_assert(WIRE_KIND_UET == WIRE_KIND_SLOTS, "every kind but UET has a slot in wire_kind_hdrs");
_Static_assert((WIRE_ENCAP_NATIVE | WIRE_ENCAP_CRC) == 3, "wire_kind_hdrs has a row per encapsulation");

/**
 * wire_frame_len() worked out from the frame's layout, for every kind (UET included): the definition the table
 * above agrees with (tests/wire check it on every kind, encapsulation and next_hdr).
 */
size_t wire_frame_len_slow(const struct wire_pkt *p);

/**
 * Frame length in memory and in captures (no FCS) of @p p, from its kind, encapsulation and payload_len; 0 for an
 * unknown kind or a UET shape wire_encode() refuses. Inline, a table lookup and an add for the kinds the models
 * send (every hop asks); UET frames go through wire_frame_len_slow().
 */
static inline size_t wire_frame_len(const struct wire_pkt *p)
{
	size_t n;

	if (p->kind >= WIRE_KIND_SLOTS)
		return wire_frame_len_slow(p);
	n = wire_kind_hdrs[p->encap & 3][p->kind];
	if (p->encap & WIRE_ENCAP_PLAIN_REQ && (p->kind == WIRE_KIND_DATA || p->kind == WIRE_KIND_TRIMMED))
		n -= WIRE_PDS_REQ_CC_LEN - WIRE_PDS_REQ_LEN;
	if (p->kind == WIRE_KIND_DATA)
		n += p->payload_len;
	else if (p->kind == WIRE_KIND_ACK && p->pds.next_hdr == WIRE_NH_RESPONSE)
		n += WIRE_SES_RSP_LEN;
	return n;
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

/** True when a trailer (the UET CRC-32C, the RoCE ICRC) follows the payload and covers it: such a frame is
 *  encoded whole, never as headers with the payload pattern attached. */
static inline bool wire_has_trailer(const struct wire_pkt *p)
{
	return (p->encap & (WIRE_ENCAP_CRC | WIRE_ENCAP_ICRC)) != 0;
}

/**
 * Bytes on the wire (FCS included) around the payload of a data packet sent with encapsulation @p encap: 106 for
 * UDP (WIRE_DATA_OVERHEAD), 4 less native, 4 more with the CRC trailer.
 */
static inline uint32_t wire_data_overhead(uint8_t encap)
{
	uint32_t n = WIRE_DATA_OVERHEAD;

	if (encap & WIRE_ENCAP_NATIVE)
		n = n - WIRE_UDP_LEN + WIRE_ENTROPY_LEN;
	if (encap & WIRE_ENCAP_PLAIN_REQ)
		n -= WIRE_PDS_REQ_CC_LEN - WIRE_PDS_REQ_LEN;
	return encap & WIRE_ENCAP_CRC ? n + WIRE_CRC_LEN : n;
}

/** Bytes on the wire (FCS included) of an ACK_CC without SES header sent with encapsulation @p encap (78 for UDP). */
uint32_t wire_ack_wire_len(uint8_t encap);

/* SES extension headers (spec 1.4). */
enum wire_ses_ext_kind { WIRE_EXT_NONE = 0, WIRE_EXT_ATOMIC, WIRE_EXT_CAS, WIRE_EXT_RDV };

/**
 * The SES extension header @p s carries after SES header @p next_hdr (enum wire_ses_ext_kind): ATOMIC for the
 * atomic opcodes after a request header, CAS when its amo_opcode is of the compare-and-swap family, RDV for the
 * rendezvous opcodes after the standard header, else NONE.
 */
int wire_ses_ext(uint8_t next_hdr, const struct wire_ses *s);

/**
 * Encode @p p into @p buf of @p cap bytes: Ethernet II, IPv4 (IHL 5, DF, the given TTL/DSCP/ECN, correct header
 * checksum), UDP (checksum 0) or, with WIRE_ENCAP_NATIVE, protocol 253 and the entropy header (sport), the PDS
 * header of p->kind, the SES header and the payload for DATA (payload bytes are the fixed pattern
 * wire_payload_byte()), and with WIRE_ENCAP_CRC the CRC-32C trailer. TRIMMED encodes the request header only.
 * Reserved bits are zero. The kind decides the PDS type (DATA / TRIMMED: ROD_CC_REQ if pds.type says so, else
 * RUD_CC_REQ) and next_hdr (REQ_STD for DATA, pds.next_hdr for TRIMMED when it names a request header, else
 * REQ_STD; for ACK RESPONSE when pds.next_hdr says so, else 0; 0 for NACK; pds.next_hdr as ctl_type for CP). UET
 * encodes every field of pds.type's header, the SES header pds.next_hdr names with its extension, payload_len bytes
 * where the shape carries a payload, and a trimmed request cut to trim_len. Payload length fields (SES standard
 * without SOM, responses with data) are written from payload_len, so the frame always agrees with itself.
 * Returns the bytes written (== wire_frame_len(p)), or -EINVAL for an unknown kind, a UET shape that is not one of
 * UET 1.0 (reserved type or ctl_type, a next_hdr the type does not take) or a frame over WIRE_MAX_FRAME, -ENOSPC if
 * @p cap is short.
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
 * buffer reused for every frame gives each frame the bytes wire_encode() would. Only for frames with
 * wire_prefilled_fits(); others are -EINVAL (encode them with wire_encode() into another buffer). Returns as
 * wire_encode().
 */
int wire_encode_prefilled(const struct wire_pkt *p, uint8_t *buf, size_t cap);

/**
 * Whether wire_encode_prefilled() can write @p p: a data frame with UDP encapsulation and no trailer (its payload
 * sits where the prefill put it), or any frame that ends before a data payload would start.
 */
bool wire_prefilled_fits(const struct wire_pkt *p);

/** Payload pattern byte at offset @p i of a data payload. */
static inline uint8_t wire_payload_byte(size_t i)
{
	return (uint8_t)(i & 0xff);
}

/**
 * Write the first @p len bytes of the payload pattern into @p buf: a frame is its wire_encode_hdrs() headers
 * followed by the first wire_frame_len() - (header length) bytes of it, byte for byte what wire_encode() writes.
 * For a transmitter that keeps one read-only copy of the pattern and attaches slices of it to frames.
 */
void wire_payload_fill(uint8_t *buf, size_t len);

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
	X(NOT_UDP, "not_udp", "IP protocol is neither UDP nor UET's 253") \
	X(SHORT_UDP, "short_udp", "shorter than a UDP header") \
	X(SHORT_ENTROPY, "short_entropy", "native IPv4 frame shorter than its entropy header") \
	X(BAD_UDP_LEN, "bad_udp_len", "UDP length disagrees with the IP length") \
	X(NOT_UET_PORT, "not_uet_port", "UDP destination port is not the UET port") \
	X(SHORT_PDS, "short_pds", "shorter than its PDS header") \
	X(BAD_PDS_TYPE, "bad_pds_type", "PDS type reserved (0, 15..31)") \
	X(BAD_NEXT_HDR, "bad_next_hdr", "PDS next header reserved, or one its PDS type cannot carry") \
	X(BAD_CTL_TYPE, "bad_ctl_type", "control packet type reserved (10..15)") \
	X(SHORT_TSS, "short_tss", "shorter than its TSS header and ICV") \
	X(SHORT_SES, "short_ses", "shorter than its SES header") \
	X(SHORT_SES_EXT, "short_ses_ext", "shorter than its SES extension header (atomic, compare-and-swap, rendezvous)") \
	X(BAD_SES_LEN, "bad_ses_len", "SES payload length disagrees with the frame") \
	X(TRAILING, "trailing", "bytes after a header that carries nothing more (no payload)") \
	X(BAD_CRC, "bad_crc", "CRC trailer missing or wrong (nic.UETEncapsulation.CrcTrailer)") \
	X(NOT_PFC, "not_pfc", "MAC control frame that is not PFC") \
	X(SHORT_PFC, "short_pfc", "PFC frame shorter than the 60-byte minimum Ethernet frame (FCS excluded)") \
	X(SHORT_CM, "short_cm", "connection-management message shorter than its 20 bytes") \
	X(BAD_CM, "bad_cm", "connection-management message with an unknown type or version") \
	X(NOT_ARP, "not_arp", "ethertype is not ARP") \
	X(SHORT_ARP, "short_arp", "ARP message shorter than the 28 bytes of an Ethernet/IPv4 ARP") \
	X(BAD_ARP, "bad_arp", "ARP for other than Ethernet/IPv4 addresses, or neither a request nor a reply") \
	X(NOT_ICMP, "not_icmp", "IP protocol is not ICMP") \
	X(SHORT_ICMP, "short_icmp", "ICMP message shorter than its 8-byte header") \
	X(BAD_ICMP_CSUM, "bad_icmp_csum", "ICMP checksum wrong") \
	X(BAD_UDP_CSUM, "bad_udp_csum", "UDP checksum non-zero and wrong (0: not computed, and a partial one under " \
	  "rx_csum: offload, accepted)") \
	X(BAD_PFC_DST, "bad_pfc_dst", "PFC frame not addressed to the MAC control group 01:80:C2:00:00:01") \
	X(SHORT_BTH, "short_bth", "RoCE frame shorter than its BTH (and ICRC)") \
	X(BAD_ROCE_OPCODE, "bad_roce_opcode", "RoCE BTH opcode not modelled (only RC SEND, RDMA WRITE, ACK, CNP)") \
	X(SHORT_ROCE_EXT, "short_roce_ext", "RoCE frame shorter than the RETH or AETH its opcode carries") \
	X(BAD_ROCE_LEN, "bad_roce_len", "RoCE ACK, NAK or CNP not followed by exactly its 64 bytes") \
	X(BAD_ICRC, "bad_icrc", "RoCE invariant CRC missing or wrong (roce_nic.RoCEEncapsulation.ICRC)") \
	X(NOT_VLAN, "not_vlan", "ethertype is not 802.1Q (0x8100): the frame has no VLAN tag") \
	X(SHORT_VLAN, "short_vlan", "802.1Q-tagged frame shorter than its tag and inner ethertype")

#define WIRE_REASON_ENUM(n, k, s) WIRE_R_##n,
enum wire_reason { WIRE_REASONS(WIRE_REASON_ENUM) WIRE_R_COUNT };
#undef WIRE_REASON_ENUM

/** Text for a reason code; "unknown" outside the enum. */
const char *wire_reason_str(int reason);

/** Key of @p reason, a snake_case identifier (summary.json); "unknown" outside the enum. */
const char *wire_reason_key(int reason);

/*
 * How a receiver takes a UDP checksum (a port's rx_csum:, docs/realtime.md). A checksum of 0 ("not computed", what
 * uetemu sends) is taken in every mode. A partial checksum is what a Linux sender leaves in the field when it hands
 * the checksum to the device (TX checksum offload) and the device is virtual (a veth, a tap): the one's complement
 * sum of the pseudo-header only, folded to 16 bits and not complemented (docs/wire.md, Partial UDP checksums).
 */
enum wire_csum_mode {
	WIRE_CSUM_VERIFY = 0, /* "verify": a non-zero checksum must be complete and right, else BAD_UDP_CSUM */
	WIRE_CSUM_OFFLOAD,    /* "offload": as verify, and a partial checksum is taken too (WIRE_CSUM_SEEN_PARTIAL) */
	WIRE_CSUM_IGNORE,     /* "ignore": not checked; a non-zero one is WIRE_CSUM_SEEN_UNVERIFIED */
};

/** What the decoder found in a taken frame's UDP checksum (struct wire_rx_info.udp_csum). */
enum wire_csum_seen {
	WIRE_CSUM_SEEN_NONE = 0,   /* no UDP checksum to look at: 0 (not computed), native UET, PFC */
	WIRE_CSUM_SEEN_GOOD,       /* complete and right */
	WIRE_CSUM_SEEN_PARTIAL,    /* the pseudo-header sum of TX checksum offload (WIRE_CSUM_OFFLOAD) */
	WIRE_CSUM_SEEN_UNVERIFIED, /* non-zero, not checked (WIRE_CSUM_IGNORE) */
};

/** What a receiver expects of the frames it decodes (nic.UETEncapsulation, and the port's rx_csum:). */
struct wire_rx_cfg {
	uint16_t uet_port; /* the UDP destination port to accept as UET */
	bool crc;          /* every UET frame but a trimmed request ends in a CRC-32C trailer (checked, then cut) */
	bool crc_ip;       /* with crc: the trailer covers from the IPv4 source address on (WIRE_ENCAP_CRC_IP set) */
	bool roce_icrc;    /* every RoCE frame ends in the ICRC (checked, then cut; WIRE_ENCAP_ICRC set) */
	bool roce_reth;    /* RoCE WRITE FIRST / ONLY carry a RETH (WIRE_ENCAP_RETH set) */
	uint8_t udp_csum;  /* enum wire_csum_mode; 0 (verify) in a zeroed cfg */
};

/** What wire_decode_rx() says about a frame beyond its descriptor (for a port's counters). */
struct wire_rx_info {
	uint8_t udp_csum;  /* enum wire_csum_seen */
};

/**
 * Decode the @p len bytes at @p buf (no FCS; Ethernet padding after the IP datagram is allowed) into @p out.
 * Every length and field is checked before it is read. UET comes in either encapsulation: UDP to
 * @p cfg->uet_port, or IPv4 protocol 253 with the entropy header (WIRE_ENCAP_NATIVE set, the entropy in sport).
 * WIRE_UDP_PORT_CM (when it is not the UET port) is a connection-management message (exactly WIRE_CM_LEN bytes).
 * WIRE_UDP_PORT_ROCE (likewise) is RoCEv2 (WIRE_KIND_ROCE): BTH, the RETH of a WRITE FIRST / ONLY with
 * @p cfg->roce_reth, the AETH and 64 zero bytes of an ACK / NAK, the 64 bytes of a CNP, and with @p cfg->roce_icrc
 * the ICRC, checked and cut.
 * With @p cfg->crc the trailer must be there and right (else BAD_CRC); it is cut and WIRE_ENCAP_CRC set.
 * Every PDS type and SES header of UET 1.0 is decoded; the frame's kind is one the models act on when its shape is
 * (enum wire_kind), else WIRE_KIND_UET. A request whose UET bytes end right after its PDS header, or at
 * WIRE_MIN_TRIM_LEN inside its SES header, is trimmed (TRIMMED, or UET with trim_len).
 * A datagram longer than WIRE_MAX_FRAME - 14 is BAD_IP_LEN. Fields outside the decoded layout are zero (an ACK with
 * P set fills probe_opaque, not psn_off). Any TTL is accepted (a routed frame arrives with less than WIRE_TTL).
 * Returns WIRE_R_OK (0), or a positive enum wire_reason naming the first problem; @p out is then unspecified.
 */
int wire_decode_cfg(const uint8_t *buf, size_t len, const struct wire_rx_cfg *cfg, struct wire_pkt *out);

/**
 * wire_decode_cfg(), and what it saw of the frame's UDP checksum in @p info (may be NULL; written when the frame
 * is taken, WIRE_R_OK). The UDP checksum is checked as @p cfg->udp_csum says (enum wire_csum_mode).
 */
int wire_decode_rx(const uint8_t *buf, size_t len, const struct wire_rx_cfg *cfg, struct wire_pkt *out,
		   struct wire_rx_info *info);

/**
 * The rest of wire_decode_rx() for a frame whose Ethernet and IPv4 headers wire_ipv4_decode() has read into
 * @p ip (so they are not parsed nor checksummed again): its protocol (NOT_UDP unless UDP or 253), then UDP or the
 * entropy header, UET, a connection-management message or RoCE, as wire_decode_rx() decodes them, with the same
 * reasons and the same @p info (may be NULL). For a frame that is IPv4, wire_ipv4_decode() then this returns what
 * wire_decode_rx() returns and fills @p out alike. BAD_IP_LEN when @p ip does not fit the @p len bytes (the decode
 * of another frame).
 */
struct wire_ipv4; /* below, with the decoders of what a host answers besides UET */
int wire_decode_ipv4(const uint8_t *buf, size_t len, const struct wire_ipv4 *ip, const struct wire_rx_cfg *cfg,
		     struct wire_pkt *out, struct wire_rx_info *info);

/** wire_decode_cfg() with UET port @p uet_port and no CRC trailer expected. */
int wire_decode(const uint8_t *buf, size_t len, uint16_t uet_port, struct wire_pkt *out);

/** CRC-32C (Castagnoli: reflected polynomial 0x82F63B78, initial value and final XOR all ones) of @p len bytes. */
uint32_t wire_crc32c(const uint8_t *buf, size_t len);

/*
 * The classes a receiver counts UET frames by (summary.json hosts[].uet_rx): each PDS type, a control packet by its
 * ctl_type; and each SES header form, its extension headers, and trimmed requests.
 */
#define WIRE_PDS_CLASSES(X) \
	X(TSS, "tss", "TSS security header (what follows is encrypted)") \
	X(RUD_REQ, "rud_req", "RUD request without CC state") \
	X(ROD_REQ, "rod_req", "ROD request without CC state") \
	X(RUDI_REQ, "rudi_req", "RUDI request") \
	X(RUDI_RESP, "rudi_resp", "RUDI response") \
	X(UUD_REQ, "uud_req", "UUD request") \
	X(ACK, "ack", "ACK without CC state") \
	X(ACK_CC, "ack_cc", "ACK with CC state (NSCC or credit)") \
	X(ACK_CCX, "ack_ccx", "ACK with extended CC state") \
	X(NACK, "nack", "NACK") \
	X(NACK_CCX, "nack_ccx", "NACK with extended CC state") \
	X(RUD_CC_REQ, "rud_cc_req", "RUD request with CC state") \
	X(ROD_CC_REQ, "rod_cc_req", "ROD request with CC state") \
	X(CP_NOOP, "cp_noop", "control packet NOOP") \
	X(CP_ACK_REQ, "cp_ack_req", "control packet ACK_REQ") \
	X(CP_CLEAR, "cp_clear", "control packet CLEAR") \
	X(CP_CLEAR_REQ, "cp_clear_req", "control packet CLEAR_REQ") \
	X(CP_CLOSE, "cp_close", "control packet CLOSE") \
	X(CP_CLOSE_REQ, "cp_close_req", "control packet CLOSE_REQ") \
	X(CP_PROBE, "cp_probe", "control packet PROBE") \
	X(CP_CREDIT, "cp_credit", "control packet CREDIT") \
	X(CP_CREDIT_REQ, "cp_credit_req", "control packet CREDIT_REQ") \
	X(CP_NEGOTIATION, "cp_negotiation", "control packet NEGOTIATION")

#define WIRE_SES_CLASSES(X) \
	X(NONE, "none", "no SES header") \
	X(TRIMMED, "trimmed", "a request whose SES header a switch cut") \
	X(STD, "std", "standard request header") \
	X(MEDIUM, "medium", "medium request header") \
	X(SMALL, "small", "small request header") \
	X(RESPONSE, "response", "response header") \
	X(RESPONSE_DATA, "response_data", "response with data header") \
	X(RESPONSE_DATA_SMALL, "response_data_small", "small response with data header") \
	X(EXT_ATOMIC, "ext_atomic", "atomic extension header (counted besides its request header)") \
	X(EXT_CAS, "ext_compare_swap", "compare-and-swap extension header (counted besides its request header)") \
	X(EXT_RDV, "ext_rendezvous", "rendezvous extension header (counted besides its request header)")

#define WIRE_CLASS_ENUM_PC(n, k, s) WIRE_PC_##n,
enum wire_pds_class { WIRE_PDS_CLASSES(WIRE_CLASS_ENUM_PC) WIRE_PC_COUNT };
#undef WIRE_CLASS_ENUM_PC
#define WIRE_CLASS_ENUM_SC(n, k, s) WIRE_SC_##n,
enum wire_ses_class { WIRE_SES_CLASSES(WIRE_CLASS_ENUM_SC) WIRE_SC_COUNT };
#undef WIRE_CLASS_ENUM_SC

/** PDS class of a decoded or built UET frame @p p (any kind but PFC and CM), or -1 when it is none. */
int wire_pds_class(const struct wire_pkt *p);

/** SES header class of @p p (NONE, TRIMMED or a header form; its extension is wire_ses_ext()), or -1. */
int wire_ses_class(const struct wire_pkt *p);

/** Key (snake_case, summary.json) of PDS class @p c; "unknown" outside the enum. */
const char *wire_pds_class_key(int c);

/** Key of SES class @p c; "unknown" outside the enum. */
const char *wire_ses_class_key(int c);

/** What PDS class @p c is, in words; "unknown" outside the enum. */
const char *wire_pds_class_str(int c);

/** What SES class @p c is, in words; "unknown" outside the enum. */
const char *wire_ses_class_str(int c);

/** RFC 1071 Internet checksum of @p len bytes (used for the IPv4 header). */
uint16_t wire_csum(const uint8_t *buf, size_t len);

/* ---- What a host on a real network answers besides UET: IPv4 headers, ARP, ICMP echo (wire_arp.c) ---- */

#define WIRE_ETHERTYPE_ARP 0x0806
#define WIRE_ETHERTYPE_IPV6 0x86dd
#define WIRE_IPPROTO_ICMP 1
#define WIRE_ETH_MIN_FRAME 60 /* shortest Ethernet frame without FCS: the encoders below pad to it with zeros */
#define WIRE_ARP_LEN 28       /* an ARP message for Ethernet and IPv4 (RFC 826) */
#define WIRE_ARP_REQUEST 1
#define WIRE_ARP_REPLY 2
#define WIRE_ICMP_HDR_LEN 8   /* type, code, checksum, identifier, sequence number (RFC 792) */
#define WIRE_ICMP_ECHO_REPLY 0
#define WIRE_ICMP_ECHO_REQUEST 8
#define WIRE_ICMP_TTL 64      /* TTL of the echo replies a host sends (a usual host default) */

/** An IPv4 header as wire_ipv4_decode() reads it, whatever its protocol, and where its payload lies. */
struct wire_ipv4 {
	uint8_t dst_mac[6];
	uint8_t src_mac[6];
	uint32_t src_ip;    /* host byte order */
	uint32_t dst_ip;
	uint8_t proto;
	uint8_t ttl;
	uint8_t dscp;
	uint8_t ecn;
	uint16_t ip_id;
	size_t l4_off;      /* offset of the IP payload in the frame (34) */
	size_t l4_len;      /* its length: the IPv4 total length - 20; bytes after it are padding */
};

/**
 * Decode the Ethernet and IPv4 headers of the @p len bytes at @p buf, with every check wire_decode() makes of
 * them (IHL 5, lengths, checksum, no fragment; any TTL) but none of the protocol. Returns WIRE_R_OK or the
 * reason (SHORT_ETH, NOT_IPV4, SHORT_IP, BAD_IP_VERSION, BAD_IHL, BAD_IP_LEN, BAD_IP_CSUM, IP_FRAGMENT).
 */
int wire_ipv4_decode(const uint8_t *buf, size_t len, struct wire_ipv4 *out);

/** An Ethernet/IPv4 ARP message (RFC 826) and the Ethernet addresses of its frame. Addresses in host order. */
struct wire_arp {
	uint8_t eth_dst[6];
	uint8_t eth_src[6];
	uint16_t op;        /* WIRE_ARP_REQUEST or WIRE_ARP_REPLY */
	uint8_t sha[6];     /* sender hardware address */
	uint32_t spa;       /* sender protocol address */
	uint8_t tha[6];     /* target hardware address (zero in a request) */
	uint32_t tpa;       /* target protocol address */
};

/**
 * Decode the ARP frame of @p len bytes at @p buf: Ethernet II with ethertype ARP, then hardware type 1 (Ethernet),
 * protocol 0x0800, lengths 6 and 4, a request or a reply. Padding after the 28 bytes is allowed. Returns
 * WIRE_R_OK, or SHORT_ETH, NOT_ARP, SHORT_ARP, BAD_ARP; @p out is then unspecified.
 */
int wire_arp_decode(const uint8_t *buf, size_t len, struct wire_arp *out);

/** Encode @p a as an Ethernet frame padded to WIRE_ETH_MIN_FRAME. Returns 60, or -ENOSPC if @p cap is short. */
int wire_arp_encode(const struct wire_arp *a, uint8_t *buf, size_t cap);

/** An ICMP message in an IPv4 frame. For echo request and reply, id and seq are the identifier and sequence
 *  number; for other types they are the 4 bytes after the checksum. @p data points into the decoded frame. */
struct wire_icmp {
	uint8_t dst_mac[6];
	uint8_t src_mac[6];
	uint32_t src_ip;    /* host byte order */
	uint32_t dst_ip;
	uint8_t ttl;
	uint8_t type;
	uint8_t code;
	uint16_t id;
	uint16_t seq;
	const uint8_t *data; /* the bytes after the 8-byte header */
	size_t data_len;
};

/**
 * Decode the ICMP frame of @p len bytes at @p buf: the headers as wire_ipv4_decode(), protocol ICMP, at least the
 * 8-byte ICMP header, a right checksum over the whole message. Any type and code is decoded (the caller picks).
 * Returns WIRE_R_OK, a reason of wire_ipv4_decode(), or NOT_ICMP, SHORT_ICMP, BAD_ICMP_CSUM.
 */
int wire_icmp_decode(const uint8_t *buf, size_t len, struct wire_icmp *out);

/** wire_icmp_decode() of a frame whose headers wire_ipv4_decode() has read into @p ip: from the protocol on
 *  (NOT_ICMP, SHORT_ICMP, BAD_ICMP_CSUM), the IPv4 header not parsed again. BAD_IP_LEN when @p ip does not fit. */
int wire_icmp_decode_ipv4(const uint8_t *buf, size_t len, const struct wire_ipv4 *ip, struct wire_icmp *out);

/**
 * Encode @p m: Ethernet, IPv4 (IHL 5, DF, ID 0, DSCP 0, m->ttl, checksum), ICMP type, code, id, seq, data and its
 * checksum, padded to WIRE_ETH_MIN_FRAME. m->data may lie inside @p buf. Returns the frame length, -EINVAL for a
 * frame over WIRE_MAX_FRAME, or -ENOSPC if @p cap is short.
 */
int wire_icmp_encode(const struct wire_icmp *m, uint8_t *buf, size_t cap);

/* ---- Real devices' frames across the fabric (wire_raw.c, docs/realtime.md "Real devices across the fabric") ---- */

/* The classes a switch port facing a real device counts its frames by (summary.json ports[].rx_class, tx_class). */
#define WIRE_FABRIC_CLASSES(X) \
	X(ARP, "arp", "ARP (routed by its target protocol address)") \
	X(ICMP, "icmp", "IPv4 ICMP") \
	X(TCP, "tcp", "IPv4 TCP") \
	X(UDP, "udp", "IPv4 UDP, neither UET nor RoCEv2 (uetemu's connection-management messages too)") \
	X(ROCE, "roce", "RoCEv2 (UDP 4791), any opcode") \
	X(UET, "uet", "UET, over UDP or native IPv4") \
	X(OTHER_IPV4, "other_ipv4", "IPv4 of any other protocol") \
	X(NON_IPV4, "non_ipv4", "neither IPv4 nor ARP (PFC frames the switch sends among them)")

#define WIRE_FC_ENUM(n, k, s) WIRE_FC_##n,
enum wire_fabric_class { WIRE_FABRIC_CLASSES(WIRE_FC_ENUM) WIRE_FC_COUNT };
#undef WIRE_FC_ENUM

/** Key (snake_case, summary.json) of fabric class @p c; "unknown" outside the enum. */
const char *wire_fabric_class_key(int c);

/** The fabric class of any descriptor @p p (a RAW one's own, UET kinds UET, ...); -1 for WIRE_KIND_NONE. */
int wire_fabric_class(const struct wire_pkt *p);

/** The fabric class of the frame of @p len bytes at @p buf as it came (@p uet_port: the UET UDP port). */
int wire_fabric_class_bytes(const uint8_t *buf, size_t len, uint16_t uet_port);

/**
 * Describe the frame of @p len bytes at @p buf as a WIRE_KIND_RAW descriptor in @p out (zeroed by the caller;
 * raw.buf is the caller's to set): an IPv4 frame (the checks of wire_ipv4_decode()) by its addresses, DSCP, ECN,
 * TTL and, for TCP and UDP, ports (the switches' ECMP hash), and raw.uet for a UET frame longer than a trim; an Ethernet/IPv4 ARP message (wire_arp_decode()) with
 * dst_ip its target protocol address and src_ip its sender's, so the fabric routes it to the host that owns the
 * address. payload_len is @p len (at most WIRE_MAX_FRAME). Returns WIRE_R_OK, or the reason of those decoders
 * (NOT_IPV4 for any other ethertype: the fabric routes by IPv4 address, it has nowhere to send such a frame).
 */
int wire_raw_take(const uint8_t *buf, size_t len, uint16_t uet_port, struct wire_pkt *out);

/* What wire_raw_take() records of a UET frame (raw.uet): the transport header a trim keeps before the PDS bytes. */
enum wire_raw_uet {
	WIRE_RAW_UET_NO,     /* not UET, or nothing to cut: never trimmed */
	WIRE_RAW_UET_UDP,    /* UET over UDP (the UET port): UDP 8 B, then the PDS header */
	WIRE_RAW_UET_NATIVE, /* native UET (IPv4 protocol 253): entropy header 4 B, then the PDS header */
};

/**
 * Trim RAW descriptor @p p's UET frame in its own bytes, as spec 1.6 and the models do: cut to MIN_TRIM_SIZE of IP
 * payload (UDP 8 + WIRE_MIN_TRIM_LEN, or entropy header 4 + WIRE_MIN_TRIM_LEN when native), IPv4 total length and
 * checksum rewritten, and over UDP the UDP length rewritten and its checksum 0. payload_len shrinks to the cut
 * frame and raw.trimmed is set; the buffer stays. The caller re-marks DSCP (wire_raw_encode() writes it).
 * Returns the bytes cut, or -EINVAL when @p p is not a RAW UET frame with bytes past the cut (raw.uet NO).
 */
int wire_raw_trim(struct wire_pkt *p);

/**
 * Write RAW descriptor @p p's frame into @p buf: its bytes as they came, with the MACs of p->dst_mac and src_mac
 * (the switch addresses every frame for its hop) and, for IPv4, the DSCP and ECN of the descriptor (a CE mark)
 * with the header checksum recomputed. Returns p->payload_len, -EINVAL for a descriptor without bytes, -ENOSPC.
 */
int wire_raw_encode(const struct wire_pkt *p, uint8_t *buf, size_t cap);

/**
 * Set byte @p at of the IPv4 header at @p ip to @p v, its header checksum patched for the change of the 16-bit word
 * at offset @p word (the even offset holding @p at) as RFC 1624 (eqn. 3) says, the other words not read. The
 * checksum is what summing the header again gives, when it was right before.
 */
void wire_csum_patch(uint8_t *ip, unsigned word, unsigned at, uint8_t v);

/* ---- 802.1Q VLAN tags on a real port's frames (wire_vlan.c) ---- */

#define WIRE_ETHERTYPE_VLAN 0x8100 /* C-tag TPID */
#define WIRE_VLAN_LEN 4            /* TPID + TCI, between the source MAC and the inner ethertype */
#define WIRE_VLAN_VID_MAX 4094     /* VIDs 1..4094 name a VLAN; 0 (priority tag) and 4095 are reserved */
#define WIRE_VLAN_TAGGED_MIN (WIRE_ETH_LEN + WIRE_VLAN_LEN) /* MACs, tag and inner ethertype: 18 B */

/** An 802.1Q tag as wire_vlan_decode() reads it. */
struct wire_vlan {
	uint16_t vid;       /* 12 bits */
	uint8_t pcp;        /* 3 bits: the priority code point (802.1Qbb priority) */
	uint8_t dei;        /* 1 bit */
	uint16_t ethertype; /* the inner ethertype, after the tag */
};

/**
 * Tag a frame of @p len bytes encoded at @p buf + WIRE_VLAN_LEN (the caller leaves those 4 bytes free in front):
 * its 12 MAC bytes move to @p buf and the tag (TPID 0x8100, PCP @p pcp & 7, DEI 0, VID @p vid & 0xfff) follows
 * them, so the frame at @p buf is @p len + 4 bytes. Only 16 bytes are written: the rest of the frame stays.
 * Returns @p len + WIRE_VLAN_LEN; @p len must be at least WIRE_ETH_LEN.
 */
size_t wire_vlan_push(uint8_t *buf, size_t len, uint16_t vid, uint8_t pcp);

/**
 * Read the 802.1Q tag of the frame of @p len bytes at @p buf. Returns WIRE_R_OK with @p out filled, SHORT_ETH,
 * NOT_VLAN (the ethertype is not 0x8100: an untagged frame), or SHORT_VLAN (shorter than WIRE_VLAN_TAGGED_MIN).
 */
int wire_vlan_decode(const uint8_t *buf, size_t len, struct wire_vlan *out);

/**
 * Copy the tagged frame of @p len bytes at @p buf into @p out without its tag: the MACs, then everything after the
 * tag. Returns the untagged length (@p len - 4), -EINVAL when @p len is under WIRE_VLAN_TAGGED_MIN, -ENOSPC when
 * @p cap is short. @p out must not overlap @p buf.
 */
int wire_vlan_strip(const uint8_t *buf, size_t len, uint8_t *out, size_t cap);

#endif /* WIRE_H */
