/* Internals of the wire room shared by the encoder (wire.c), the decoder (wire_dec.c) and ARP / ICMP echo
 * (wire_arp.c): big-endian helpers, field offsets (the UET 1.0 wire-format reference, section 1; all fields
 * big-endian), the sizes of each header, the IPv4 header check. Not a public API. */
#ifndef WIRE_PVT_H
#define WIRE_PVT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wire.h"

/* Ethernet II. */
#define ETH_DST 0
#define ETH_SRC 6
#define ETH_TYPE 12

/* IPv4 (RFC 791). */
#define IP_VER_IHL 0
#define IP_TOS 1
#define IP_TOT_LEN 2
#define IP_ID 4
#define IP_FRAG 6
#define IP_TTL 8
#define IP_PROTO 9
#define IP_CSUM 10
#define IP_SRC 12
#define IP_DST 16
#define IP_VER_IHL_V4_5 0x45 /* version 4, IHL 5 words */
#define IP_F_DF 0x4000
#define IP_F_MF 0x2000
#define IP_FRAG_OFF_MASK 0x1fff

/* UDP (RFC 768). */
#define UDP_SPORT 0
#define UDP_DPORT 2
#define UDP_LEN 4
#define UDP_CSUM 6

/* Entropy header of native IPv4 encapsulation (spec 1.1): entropy u16, reserved u16. */
#define ENT_VALUE 0
#define ENT_RSVD 2

/* PDS prologue (spec 1.2): type [15:11], next_hdr / ctl_type [10:7], flags [6:0]. */
#define PDS_TYPE_SHIFT 11
#define PDS_TYPE_MASK 0x1f
#define PDS_NH_SHIFT 7
#define PDS_NH_MASK 0x0f
#define PDS_FLAGS_MASK 0x7f
#define PDS_CTL_MAX WIRE_CTL_NEGOTIATION

/* Offsets shared by the request, ACK, NACK and CP headers (spec 1.3). */
#define PDS_OFF2 2 /* clear_psn_offset / ack_psn_offset / probe_opaque / nack_code+vendor_code / RUDI, UUD rsvd */
#define PDS_PSN 4  /* PSN / CACK_PSN / NACK_PSN / RUDI pkt_id */
#define PDS_SPDCID 8
#define PDS_DPDCID 10
/* RUD_CC / ROD_CC request. */
#define REQ_CCC_ID 12
#define REQ_CREDIT_TARGET 13
/* NACK, NACK_CCX. */
#define NACK_CODE 2
#define NACK_VENDOR 3
#define NACK_PAYLOAD 12
#define NACK_CCX_STATE 16
/* CP. */
#define CP_PAYLOAD 12
/* ACK_CC, ACK_CCX. */
#define ACK_CC_TYPE_FLAGS 12
#define ACK_MPR 13
#define ACK_SACK_PSN_OFF 14
#define ACK_SACK_BITMAP 16
#define ACK_CC_STATE 24
#define ACK_SERVICE_TIME 24
#define ACK_RC_PEND 26
#define ACK_RCVD_BYTES 27
#define ACK_OOO_COUNT 30
#define ACK_CCX_STATE 32
#define ACK_RC_SHIFT 7
#define ACK_PEND_MASK 0x7f
#define ACK_CC_NSCC 0

/* TSS (spec 1.3): type [31:27], SP [26], reserved [25], AN [24], SDI [23:0]; SSI u32 with SP; epoch/TSC u64. */
#define TSS_SP_BIT 26
#define TSS_AN_BIT 24
#define TSS_SSI 4

/* connection-management header */
#define CM_TYPE 0
#define CM_VERSION 1
#define CM_CONNECTION 2
#define CM_LOCAL_ID 4
#define CM_REMOTE_ID 8
#define CM_QPN 12
#define CM_RESERVED 16

/* SES request headers (spec 1.4): the first 12 bytes are common; small and medium carry request_length at 2. */
#define SES_OPCODE 0
#define SES_VER_FLAGS 1
#define SES_MESSAGE_ID 2
#define SES_REQ_LEN14 2 /* small, medium: rsvd(2) + request_length(14) */
#define SES_RI_GEN 4
#define SES_JOB_ID 5
#define SES_PID_ON_FEP 8
#define SES_RESOURCE_INDEX 10
#define SES_BUFFER_OFFSET 12
#define SES_INITIATOR 20
#define SES_MEMORY_KEY 24
#define SES_HEADER_DATA 32 /* with SOM */
#define SES_PAYLOAD_LENGTH 32 /* without SOM: rsvd(18) + payload_length(14) as a u32 */
#define SES_MESSAGE_OFFSET 36 /* without SOM */
#define SES_REQUEST_LENGTH 40
#define SES_MED_HD_OR_BUF 12 /* medium: header_data with HD, else buffer_offset */
#define SES_MED_INITIATOR 20
#define SES_MED_MEMORY_KEY 24
#define SES_SMALL_BUFFER_OFFSET 12
#define SES_OPCODE_MASK 0x3f
#define SES_VER_SHIFT 6
#define SES_VER_MASK 0x03
#define SES_FLAGS_MASK 0x3f
#define SES_U12_MASK 0x0fff
#define SES_U14_MASK 0x3fff
#define SES_PAYLOAD_LENGTH_MASK 0x3fff
/* Atomic extension, then compare and swap values in the CAS form. */
#define AMO_OPCODE 0
#define AMO_DATATYPE 1
#define AMO_SEM_CTL 2
#define AMO_COMPARE 4
#define AMO_SWAP 20
/* Rendezvous extension. */
#define RDV_EAGER_LEN 0
#define RDV_PID_ON_FEP 4
#define RDV_RESOURCE_INDEX 6
#define RDV_OFFSET 8
#define RDV_MATCH_BITS 16
/* Responses: list(2) + opcode(6), ver(2) + return_code(6), then per form. */
#define RSP_LIST_OPCODE 0
#define RSP_VER_RC 1
#define RSP_MESSAGE_ID 2      /* RESPONSE, RESPONSE_DATA */
#define RSP_SMALL_PLEN 2      /* RESPONSE_DATA_SMALL: rsvd(2) + payload_length(14) */
#define RSP_RI_GEN 4          /* RESPONSE; reserved in the data forms */
#define RSP_JOB_ID 5
#define RSP_MODIFIED_LENGTH 8 /* RESPONSE */
#define RSP_READ_REQ_MID 8    /* RESPONSE_DATA */
#define RSP_DATA_PLEN 10      /* RESPONSE_DATA: rsvd(2) + payload_length(14) */
#define RSP_DATA_MODIFIED 12
#define RSP_DATA_MSG_OFFSET 16
#define RSP_SMALL_ORIG_PSN 8  /* RESPONSE_DATA_SMALL */
#define RSP_LIST_SHIFT 6
#define RSP_LOW6_MASK 0x3f

#define U24_MASK 0xffffffu

/* Everything before the PDS header of a UDP frame, and a data frame's headers (without FCS). */
#define HDRS_BELOW_PDS (WIRE_ETH_LEN + WIRE_IPV4_LEN + WIRE_UDP_LEN)
#define DATA_HDRS_LEN (HDRS_BELOW_PDS + WIRE_PDS_REQ_CC_LEN + WIRE_SES_STD_LEN)

/* ---- big-endian helpers ---- */

/* Big-endian helpers. */

static inline void put_be16(uint8_t *b, uint16_t v)
{
	b[0] = (uint8_t)(v >> 8);
	b[1] = (uint8_t)v;
}

static inline void put_be24(uint8_t *b, uint32_t v)
{
	b[0] = (uint8_t)(v >> 16);
	b[1] = (uint8_t)(v >> 8);
	b[2] = (uint8_t)v;
}

static inline void put_be32(uint8_t *b, uint32_t v)
{
	put_be16(b, (uint16_t)(v >> 16));
	put_be16(b + 2, (uint16_t)v);
}

static inline void put_be64(uint8_t *b, uint64_t v)
{
	put_be32(b, (uint32_t)(v >> 32));
	put_be32(b + 4, (uint32_t)v);
}

static inline uint16_t get_be16(const uint8_t *b)
{
	return (uint16_t)((unsigned)b[0] << 8 | b[1]);
}

static inline uint32_t get_be24(const uint8_t *b)
{
	return (uint32_t)b[0] << 16 | (uint32_t)b[1] << 8 | b[2];
}

static inline uint32_t get_be32(const uint8_t *b)
{
	return (uint32_t)get_be16(b) << 16 | get_be16(b + 2);
}

static inline uint64_t get_be64(const uint8_t *b)
{
	return (uint64_t)get_be32(b) << 32 | get_be32(b + 4);
}

/* Two's complement s16 from its wire bits, without implementation-defined conversion. */
static inline int16_t get_s16(const uint8_t *b)
{
	uint16_t v = get_be16(b);

	return v >= 0x8000u ? (int16_t)((int32_t)v - 0x10000) : (int16_t)v;
}

/**
 * Check the IPv4 header at @p b (@p n bytes to the end of the frame) and fill @p out from it; the protocol is not
 * checked. *@p dgram gets the total length (bytes past it are Ethernet padding). Returns the header length
 * (WIRE_IPV4_LEN) or a negative enum wire_reason.
 */
int wire_dec_ipv4_hdr(const uint8_t *b, size_t n, struct wire_ipv4 *out, size_t *dgram);

/* ---- header sizes and pairings (wire.c) ---- */

/** Length of the PDS header of @p type (enum wire_pds_type, TSS excluded); 0 for a reserved type or TSS. */
size_t wire_pds_hdr_len(uint8_t type);

/** Length of the SES header @p next_hdr names; 0 for NONE or a reserved value. */
size_t wire_ses_hdr_len(uint8_t next_hdr);

/** Length of extension header @p ext (enum wire_ses_ext_kind). */
size_t wire_ses_ext_len(int ext);

/** Whether PDS @p type is a request (a switch may trim it; it carries a request or read-response SES header). */
bool wire_pds_is_request(uint8_t type);

/**
 * Whether PDS @p type (not CP, not TSS) may carry SES header @p next_hdr: a request takes a request header or a
 * response with data; RUDI_RESP, the ACKs and the NACKs take none or a response form.
 */
bool wire_pds_nh_ok(uint8_t type, uint8_t next_hdr);

/** Whether bytes after SES header @p next_hdr are a payload: after a request header or a response with data. */
bool wire_nh_has_payload(uint8_t next_hdr);

/** Length of a TSS header whose first byte is @p b0 (12, or 16 with SP set). */
size_t wire_tss_hdr_len(uint8_t b0);

/* wire_roce.c: RoCE after the UDP header. */
/* Bytes of the RoCE headers after UDP (BTH, RETH, AETH, control padding) of @p p; 0 for an unknown opcode. */
size_t wire_roce_hdr_len(const struct wire_pkt *p);
/* Write them at @p b. */
/* Bytes of zeros after a data packet's payload up to a multiple of 4 (BTH PadCnt): with the ICRC only, so the
 * pages' sizes hold without it. */
uint32_t wire_roce_pad(const struct wire_pkt *p);
void wire_roce_enc(const struct wire_pkt *p, uint8_t *b);
/* Write the ICRC into the last 4 bytes of the @p len-byte frame (Ethernet header first). */
void wire_roce_icrc_put(uint8_t *frame, size_t len);
/* Decode the RoCE part of @p frame from @p off (after UDP) to the datagram's end @p end; 0 or a negative reason. */
int wire_roce_dec(const uint8_t *frame, size_t end, size_t off, const struct wire_rx_cfg *cfg, struct wire_pkt *out);

#endif /* WIRE_PVT_H */
