/* Encoder and decoder for uetemu frames: Ethernet II / IPv4 / UDP / UET PDS (+ SES and payload for data). */
#include "wire.h"

#include <errno.h>
#include <string.h>

/*
 * Field offsets and masks. Offsets are from the start of their header (spec section 1); all fields are big-endian.
 */

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

/* PDS prologue (spec 1.2): type [15:11], next_hdr / ctl_type [10:7], flags [6:0]. */
#define PDS_PROLOGUE_LEN 2
#define PDS_TYPE_SHIFT 11
#define PDS_TYPE_MASK 0x1f
#define PDS_NH_SHIFT 7
#define PDS_NH_MASK 0x0f
#define PDS_FLAGS_MASK 0x7f

/* Offsets shared by the request, ACK_CC, NACK and CP headers (spec 1.3). */
#define PDS_OFF2 2 /* clear_psn_offset / ack_psn_offset / probe_opaque / nack_code+vendor_code */
#define PDS_PSN 4
#define PDS_SPDCID 8
#define PDS_DPDCID 10
/* RUD_CC / ROD_CC request. */
#define REQ_CCC_ID 12
#define REQ_CREDIT_TARGET 13
/* NACK. */
#define NACK_CODE 2
#define NACK_VENDOR 3
#define NACK_PAYLOAD 12
/* CP. */
#define CP_PAYLOAD 12
/* connection-management header */
#define CM_TYPE 0
#define CM_VERSION 1
#define CM_CONNECTION 2
#define CM_LOCAL_ID 4
#define CM_REMOTE_ID 8
#define CM_QPN 12
#define CM_RESERVED 16
/* ACK_CC. */
#define ACK_CC_TYPE_FLAGS 12
#define ACK_MPR 13
#define ACK_SACK_PSN_OFF 14
#define ACK_SACK_BITMAP 16
#define ACK_SERVICE_TIME 24
#define ACK_RC_PEND 26
#define ACK_RCVD_BYTES 27
#define ACK_OOO_COUNT 30
#define ACK_RC_SHIFT 7
#define ACK_PEND_MASK 0x7f

/* SES standard request (spec 1.4). */
#define SES_OPCODE 0
#define SES_VER_FLAGS 1
#define SES_MESSAGE_ID 2
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
#define SES_OPCODE_MASK 0x3f
#define SES_VER_SHIFT 6
#define SES_VER_MASK 0x03
#define SES_FLAGS_MASK 0x3f
#define SES_U12_MASK 0x0fff
#define SES_PAYLOAD_LENGTH_MASK 0x3fff

#define U24_MASK 0xffffffu

/* Everything before the PDS header, and the frame sizes per kind (without FCS). */
#define HDRS_BELOW_PDS (WIRE_ETH_LEN + WIRE_IPV4_LEN + WIRE_UDP_LEN)
#define DATA_HDRS_LEN (HDRS_BELOW_PDS + WIRE_PDS_REQ_CC_LEN + WIRE_SES_STD_LEN)
#define DATA_MAX_PAYLOAD (WIRE_MAX_FRAME - DATA_HDRS_LEN)

/* ---- big-endian helpers ---- */

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

/* ---- DSCP roles, reasons, checksum ---- */

void wire_dscp_defaults(struct wire_dscp_map *m)
{
	/* Spec 1.5: ns-3 model defaults (CS1, CS2, AF21, EF) plus AF11 for retransmissions; 0 for non-trimmable. */
	m->dscp[WIRE_ROLE_NO_TRIM] = 0;
	m->dscp[WIRE_ROLE_TRIMMABLE] = 8;
	m->dscp[WIRE_ROLE_TRIMMABLE_RTX] = 10;
	m->dscp[WIRE_ROLE_TRIMMED] = 16;
	m->dscp[WIRE_ROLE_TRIMMED_LASTHOP] = 18;
	m->dscp[WIRE_ROLE_CONTROL] = 46;
}

int wire_dscp_role(const struct wire_dscp_map *m, uint8_t dscp)
{
	for (int r = 0; r < WIRE_ROLE_COUNT; r++)
		if (m->dscp[r] == dscp)
			return r;
	return -1;
}

#define WIRE_REASON_STR(n, k, s) s,
#define WIRE_REASON_KEY(n, k, s) k,
static const char *const wire_reason_names[] = { WIRE_REASONS(WIRE_REASON_STR) };
static const char *const wire_reason_keys[] = { WIRE_REASONS(WIRE_REASON_KEY) };
#undef WIRE_REASON_STR
#undef WIRE_REASON_KEY
_Static_assert(sizeof(wire_reason_names) / sizeof(wire_reason_names[0]) == WIRE_R_COUNT,
	       "wire reason names and enum differ in length");

const char *wire_reason_str(int reason)
{
	if (reason < 0 || reason >= WIRE_R_COUNT)
		return "unknown";
	return wire_reason_names[reason];
}

const char *wire_reason_key(int reason)
{
	if (reason < 0 || reason >= WIRE_R_COUNT)
		return "unknown";
	return wire_reason_keys[reason];
}

uint16_t wire_csum(const uint8_t *buf, size_t len)
{
	uint32_t sum = 0;
	size_t i = 0;

	/* RFC 1071: one's complement sum of big-endian 16-bit words, folded as we go so it cannot overflow. */
	for (; i + 1 < len; i += 2) {
		sum += get_be16(buf + i);
		sum = (sum & 0xffff) + (sum >> 16);
	}
	if (i < len) {
		sum += (uint32_t)buf[i] << 8;
		sum = (sum & 0xffff) + (sum >> 16);
	}
	return (uint16_t)~sum;
}

/* ---- sizes ---- */

/* Length of the PDS header (plus SES for DATA) of @p kind, or 0 for an unknown kind. */
static size_t upper_hdrs_len(uint8_t kind)
{
	switch (kind) {
	case WIRE_KIND_DATA:
		return WIRE_PDS_REQ_CC_LEN + WIRE_SES_STD_LEN;
	case WIRE_KIND_TRIMMED:
		return WIRE_PDS_REQ_CC_LEN;
	case WIRE_KIND_ACK:
		return WIRE_PDS_ACK_CC_LEN;
	case WIRE_KIND_NACK:
		return WIRE_PDS_NACK_LEN;
	case WIRE_KIND_CP:
		return WIRE_PDS_CP_LEN;
	case WIRE_KIND_CM:
		return WIRE_CM_LEN;
	default:
		return 0;
	}
}

/* ---- encoder ---- */

static void enc_eth_ip_udp(const struct wire_pkt *p, uint8_t *b, size_t ip_len)
{
	memcpy(b + ETH_DST, p->dst_mac, 6);
	memcpy(b + ETH_SRC, p->src_mac, 6);
	put_be16(b + ETH_TYPE, WIRE_ETHERTYPE_IPV4);

	uint8_t *ip = b + WIRE_ETH_LEN;

	ip[IP_VER_IHL] = IP_VER_IHL_V4_5;
	ip[IP_TOS] = (uint8_t)((p->dscp & 0x3f) << 2 | (p->ecn & 0x3));
	put_be16(ip + IP_TOT_LEN, (uint16_t)ip_len);
	put_be16(ip + IP_ID, p->ip_id);
	put_be16(ip + IP_FRAG, IP_F_DF);
	ip[IP_TTL] = p->ttl;
	ip[IP_PROTO] = WIRE_IPPROTO_UDP;
	put_be16(ip + IP_CSUM, 0);
	put_be32(ip + IP_SRC, p->src_ip);
	put_be32(ip + IP_DST, p->dst_ip);
	put_be16(ip + IP_CSUM, wire_csum(ip, WIRE_IPV4_LEN));

	uint8_t *udp = ip + WIRE_IPV4_LEN;

	put_be16(udp + UDP_SPORT, p->sport);
	put_be16(udp + UDP_DPORT, p->dport);
	put_be16(udp + UDP_LEN, (uint16_t)(ip_len - WIRE_IPV4_LEN));
	put_be16(udp + UDP_CSUM, 0); /* UE spec 1.0.3 3.5.10.1: zero on send */
}

static void enc_prologue(uint8_t *b, unsigned type, unsigned nh, unsigned flags)
{
	put_be16(b, (uint16_t)((type & PDS_TYPE_MASK) << PDS_TYPE_SHIFT | (nh & PDS_NH_MASK) << PDS_NH_SHIFT |
			       (flags & PDS_FLAGS_MASK)));
}

/* The 16 B RUD_CC / ROD_CC request header; next_hdr always names the standard SES header. */
static void enc_req(const struct wire_pds *d, uint8_t *b)
{
	unsigned type = d->type == WIRE_PDS_ROD_CC_REQ ? WIRE_PDS_ROD_CC_REQ : WIRE_PDS_RUD_CC_REQ;

	enc_prologue(b, type, WIRE_NH_REQ_STD, d->flags);
	put_be16(b + PDS_OFF2, (uint16_t)d->psn_off);
	put_be32(b + PDS_PSN, d->psn);
	put_be16(b + PDS_SPDCID, d->spdcid);
	put_be16(b + PDS_DPDCID, d->dpdcid);
	b[REQ_CCC_ID] = d->ccc_id;
	put_be24(b + REQ_CREDIT_TARGET, d->credit_target & U24_MASK);
}

/* The 44 B standard SES request. payload_length is written from @p payload_len so the frame is self-consistent. */
static void enc_ses(const struct wire_ses *s, uint32_t payload_len, uint8_t *b)
{
	b[SES_OPCODE] = s->opcode & SES_OPCODE_MASK;
	b[SES_VER_FLAGS] = (uint8_t)((s->ver & SES_VER_MASK) << SES_VER_SHIFT | (s->flags & SES_FLAGS_MASK));
	put_be16(b + SES_MESSAGE_ID, s->message_id);
	b[SES_RI_GEN] = s->ri_generation;
	put_be24(b + SES_JOB_ID, s->job_id & U24_MASK);
	put_be16(b + SES_PID_ON_FEP, s->pid_on_fep & SES_U12_MASK);
	put_be16(b + SES_RESOURCE_INDEX, s->resource_index & SES_U12_MASK);
	put_be64(b + SES_BUFFER_OFFSET, s->buffer_offset);
	put_be32(b + SES_INITIATOR, s->initiator);
	put_be64(b + SES_MEMORY_KEY, s->memory_key);
	if (s->flags & WIRE_SES_F_SOM) {
		put_be64(b + SES_HEADER_DATA, s->header_data);
	} else {
		put_be32(b + SES_PAYLOAD_LENGTH, payload_len & SES_PAYLOAD_LENGTH_MASK);
		put_be32(b + SES_MESSAGE_OFFSET, s->message_offset);
	}
	put_be32(b + SES_REQUEST_LENGTH, s->request_length);
}

/* The 32 B ACK_CC header with the NSCC ack_cc_state layout. */
static void enc_ack(const struct wire_pds *d, uint8_t *b)
{
	enc_prologue(b, WIRE_PDS_ACK_CC, WIRE_NH_NONE, d->flags);
	/* With P set the offset slot carries the probe's opaque value instead (spec 1.3, ACK). */
	if (d->flags & WIRE_ACK_F_P)
		put_be16(b + PDS_OFF2, d->probe_opaque);
	else
		put_be16(b + PDS_OFF2, (uint16_t)d->psn_off);
	put_be32(b + PDS_PSN, d->psn);
	put_be16(b + PDS_SPDCID, d->spdcid);
	put_be16(b + PDS_DPDCID, d->dpdcid);
	b[ACK_CC_TYPE_FLAGS] = (uint8_t)((d->cc_type & 0xf) << 4 | (d->cc_flags & 0xf));
	b[ACK_MPR] = d->mpr;
	put_be16(b + ACK_SACK_PSN_OFF, (uint16_t)d->sack_psn_off);
	put_be64(b + ACK_SACK_BITMAP, d->sack_bitmap);
	put_be16(b + ACK_SERVICE_TIME, d->service_time);
	b[ACK_RC_PEND] = (uint8_t)((d->rc & 1) << ACK_RC_SHIFT | (d->rcv_cwnd_pend & ACK_PEND_MASK));
	put_be24(b + ACK_RCVD_BYTES, d->rcvd_bytes & U24_MASK);
	put_be16(b + ACK_OOO_COUNT, d->ooo_count);
}

static void enc_nack(const struct wire_pds *d, uint8_t *b)
{
	enc_prologue(b, WIRE_PDS_NACK, WIRE_NH_NONE, d->flags);
	b[NACK_CODE] = d->nack_code;
	b[NACK_VENDOR] = d->vendor_code;
	put_be32(b + PDS_PSN, d->psn);
	put_be16(b + PDS_SPDCID, d->spdcid);
	put_be16(b + PDS_DPDCID, d->dpdcid);
	put_be32(b + NACK_PAYLOAD, d->payload);
}

static void enc_cp(const struct wire_pds *d, uint8_t *b)
{
	enc_prologue(b, WIRE_PDS_CP, d->next_hdr, d->flags); /* ctl_type in the next_hdr slot */
	put_be16(b + PDS_OFF2, d->probe_opaque);
	put_be32(b + PDS_PSN, d->psn);
	put_be16(b + PDS_SPDCID, d->spdcid);
	put_be16(b + PDS_DPDCID, d->dpdcid);
	put_be32(b + CP_PAYLOAD, d->payload);
}

/*
 * Check @p p and give its frame length and header length; 0 or -EINVAL. The payload bound is checked before any
 * addition, so no length here can overflow.
 */
static int enc_lengths(const struct wire_pkt *p, size_t *frame, size_t *hdrs)
{
	size_t upper = upper_hdrs_len(p->kind);

	if (upper == 0)
		return -EINVAL;
	*hdrs = HDRS_BELOW_PDS + upper;
	*frame = *hdrs;
	if (p->kind == WIRE_KIND_DATA) {
		if (p->payload_len > DATA_MAX_PAYLOAD)
			return -EINVAL;
		*frame += p->payload_len;
	}
	return 0;
}

/* The connection-management header; its UDP ports are the packet's (WIRE_UDP_PORT_CM by the sender). */
static void enc_cm(const struct wire_cm *c, uint8_t *b)
{
	b[CM_TYPE] = c->type;
	b[CM_VERSION] = WIRE_CM_VERSION;
	put_be16(b + CM_CONNECTION, c->connection);
	put_be32(b + CM_LOCAL_ID, c->local_id);
	put_be32(b + CM_REMOTE_ID, c->remote_id);
	put_be32(b + CM_QPN, c->qpn);
	put_be32(b + CM_RESERVED, 0);
}

/** Encode the headers of @p p into @p buf (cap already checked); @p frame is the full frame length. */
static void enc_hdrs(const struct wire_pkt *p, uint8_t *buf, size_t frame)
{
	uint8_t *pds = buf + HDRS_BELOW_PDS;

	enc_eth_ip_udp(p, buf, frame - WIRE_ETH_LEN);
	switch (p->kind) {
	case WIRE_KIND_DATA:
		enc_req(&p->pds, pds);
		enc_ses(&p->ses, p->payload_len, pds + WIRE_PDS_REQ_CC_LEN);
		break;
	case WIRE_KIND_TRIMMED:
		enc_req(&p->pds, pds);
		break;
	case WIRE_KIND_ACK:
		enc_ack(&p->pds, pds);
		break;
	case WIRE_KIND_NACK:
		enc_nack(&p->pds, pds);
		break;
	case WIRE_KIND_CM:
		enc_cm(&p->cm, pds);
		break;
	default: /* WIRE_KIND_CP; enc_lengths() refused every other kind */
		enc_cp(&p->pds, pds);
		break;
	}
}

/* A PFC frame: MAC control header, opcode, class-enable vector, 8 quanta, zero padding to 60 bytes. */
static int enc_pfc(const struct wire_pkt *p, uint8_t *buf, size_t cap)
{
	static const uint8_t pfc_dst[6] = { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x01 };

	if (cap < WIRE_PFC_FRAME_LEN)
		return -ENOSPC;
	memset(buf, 0, WIRE_PFC_FRAME_LEN);
	memcpy(buf + ETH_DST, pfc_dst, 6);
	memcpy(buf + ETH_SRC, p->src_mac, 6);
	put_be16(buf + ETH_TYPE, WIRE_ETHERTYPE_MAC_CTRL);
	put_be16(buf + WIRE_ETH_LEN, WIRE_PFC_OPCODE);
	put_be16(buf + WIRE_ETH_LEN + 2, p->pfc_enable & 0xff);
	for (int c = 0; c < 8; c++)
		put_be16(buf + WIRE_ETH_LEN + 4 + 2 * c, p->pfc_quanta[c]);
	return WIRE_PFC_FRAME_LEN;
}

/*
 * What encode() writes: the headers only, the whole frame, or the headers of a frame whose buffer already holds
 * the payload pattern (wire_prefill_payload()).
 */
enum enc_mode {
	ENC_HDRS,
	ENC_FRAME,
	ENC_PREFILLED,
};

/*
 * A prefilled buffer keeps the payload pattern from DATA_HDRS_LEN on: no frame's headers may reach it, or a later
 * data frame would carry the bytes of an earlier frame's headers.
 */
_Static_assert(WIRE_PFC_FRAME_LEN <= DATA_HDRS_LEN, "PFC frame overlaps the data payload");
_Static_assert(HDRS_BELOW_PDS + WIRE_PDS_ACK_CC_LEN <= DATA_HDRS_LEN, "ACK headers overlap the data payload");
_Static_assert(HDRS_BELOW_PDS + WIRE_PDS_NACK_LEN <= DATA_HDRS_LEN, "NACK headers overlap the data payload");
_Static_assert(HDRS_BELOW_PDS + WIRE_PDS_CP_LEN <= DATA_HDRS_LEN, "CP headers overlap the data payload");
_Static_assert(HDRS_BELOW_PDS + WIRE_CM_LEN <= DATA_HDRS_LEN, "CM headers overlap the data payload");
_Static_assert(HDRS_BELOW_PDS + WIRE_PDS_REQ_CC_LEN <= DATA_HDRS_LEN, "trimmed headers overlap the data payload");

/* Write the headers of @p p (and, in ENC_FRAME, its payload pattern); returns the bytes written or -errno. */
static int encode(const struct wire_pkt *p, uint8_t *buf, size_t cap, enum enc_mode mode)
{
	if (p->kind == WIRE_KIND_PFC)
		return enc_pfc(p, buf, cap);
	size_t frame, hdrs;
	int rc = enc_lengths(p, &frame, &hdrs);

	if (rc != 0)
		return rc;
	if (cap < (mode == ENC_HDRS ? hdrs : frame))
		return -ENOSPC;
	enc_hdrs(p, buf, frame);
	if (mode == ENC_HDRS)
		return (int)hdrs;
	for (size_t i = 0; mode == ENC_FRAME && i < frame - hdrs; i++)
		buf[hdrs + i] = wire_payload_byte(i);
	return (int)frame;
}

int wire_encode_hdrs(const struct wire_pkt *p, uint8_t *buf, size_t cap)
{
	return encode(p, buf, cap, ENC_HDRS);
}

int wire_encode(const struct wire_pkt *p, uint8_t *buf, size_t cap)
{
	return encode(p, buf, cap, ENC_FRAME);
}

void wire_prefill_payload(uint8_t *buf, size_t cap)
{
	for (size_t i = DATA_HDRS_LEN; i < cap; i++)
		buf[i] = wire_payload_byte(i - DATA_HDRS_LEN);
}

int wire_encode_prefilled(const struct wire_pkt *p, uint8_t *buf, size_t cap)
{
	return encode(p, buf, cap, ENC_PREFILLED);
}

/* ---- decoder ----
 * Each step takes the bytes left for its header (b, n), checks n against the header's named minimum before
 * reading, and returns the bytes it consumed or a negative enum wire_reason.
 */

static int dec_eth(const uint8_t *b, size_t n, struct wire_pkt *out)
{
	if (n < WIRE_ETH_LEN)
		return -WIRE_R_SHORT_ETH;
	if (get_be16(b + ETH_TYPE) != WIRE_ETHERTYPE_IPV4)
		return -WIRE_R_NOT_IPV4;
	memcpy(out->dst_mac, b + ETH_DST, 6);
	memcpy(out->src_mac, b + ETH_SRC, 6);
	return WIRE_ETH_LEN;
}

/* IPv4 header; *dgram gets the total length, which the caller uses as the end (bytes past it are padding). */
static int dec_ipv4(const uint8_t *b, size_t n, struct wire_pkt *out, size_t *dgram)
{
	if (n < WIRE_IPV4_LEN)
		return -WIRE_R_SHORT_IP;
	if (b[IP_VER_IHL] >> 4 != 4)
		return -WIRE_R_BAD_IP_VERSION;
	if ((b[IP_VER_IHL] & 0xf) != WIRE_IPV4_LEN / 4)
		return -WIRE_R_BAD_IHL;

	size_t tot = get_be16(b + IP_TOT_LEN);

	/* The frame cap counts too: a datagram we could not re-encode is not accepted. */
	if (tot < WIRE_IPV4_LEN || tot > n || tot > WIRE_MAX_FRAME - WIRE_ETH_LEN)
		return -WIRE_R_BAD_IP_LEN;
	if (wire_csum(b, WIRE_IPV4_LEN) != 0)
		return -WIRE_R_BAD_IP_CSUM;

	uint16_t frag = get_be16(b + IP_FRAG);

	if ((frag & IP_F_MF) || (frag & IP_FRAG_OFF_MASK) != 0)
		return -WIRE_R_IP_FRAGMENT;
	if (b[IP_PROTO] != WIRE_IPPROTO_UDP)
		return -WIRE_R_NOT_UDP;
	out->dscp = b[IP_TOS] >> 2;
	out->ecn = b[IP_TOS] & 0x3;
	out->ip_id = get_be16(b + IP_ID);
	out->ttl = b[IP_TTL];
	out->src_ip = get_be32(b + IP_SRC);
	out->dst_ip = get_be32(b + IP_DST);
	*dgram = tot;
	return WIRE_IPV4_LEN;
}

/* UDP header; @p n is exactly the IP payload length. */
static int dec_udp(const uint8_t *b, size_t n, uint16_t uet_port, struct wire_pkt *out)
{
	if (n < WIRE_UDP_LEN)
		return -WIRE_R_SHORT_UDP;
	if (get_be16(b + UDP_LEN) != n)
		return -WIRE_R_BAD_UDP_LEN;
	if (get_be16(b + UDP_DPORT) != uet_port && get_be16(b + UDP_DPORT) != WIRE_UDP_PORT_CM)
		return -WIRE_R_NOT_UET_PORT;
	out->sport = get_be16(b + UDP_SPORT);
	out->dport = get_be16(b + UDP_DPORT);
	return WIRE_UDP_LEN;
}

/* The fields at offsets 4..11 shared by every PDS header decoded here. */
static void dec_pds_common(const uint8_t *b, struct wire_pds *d)
{
	d->psn = get_be32(b + PDS_PSN);
	d->spdcid = get_be16(b + PDS_SPDCID);
	d->dpdcid = get_be16(b + PDS_DPDCID);
}

/* Standard SES request; @p n is every byte after the PDS header, so the payload is n - 44. */
static int dec_ses(const uint8_t *b, size_t n, struct wire_pkt *out)
{
	struct wire_ses *s = &out->ses;

	if (n < WIRE_SES_STD_LEN)
		return -WIRE_R_SHORT_SES;
	s->opcode = b[SES_OPCODE] & SES_OPCODE_MASK;
	s->ver = (b[SES_VER_FLAGS] >> SES_VER_SHIFT) & SES_VER_MASK;
	s->flags = b[SES_VER_FLAGS] & SES_FLAGS_MASK;
	s->message_id = get_be16(b + SES_MESSAGE_ID);
	s->ri_generation = b[SES_RI_GEN];
	s->job_id = get_be24(b + SES_JOB_ID);
	s->pid_on_fep = get_be16(b + SES_PID_ON_FEP) & SES_U12_MASK;
	s->resource_index = get_be16(b + SES_RESOURCE_INDEX) & SES_U12_MASK;
	s->buffer_offset = get_be64(b + SES_BUFFER_OFFSET);
	s->initiator = get_be32(b + SES_INITIATOR);
	s->memory_key = get_be64(b + SES_MEMORY_KEY);
	s->request_length = get_be32(b + SES_REQUEST_LENGTH);
	out->payload_len = (uint32_t)(n - WIRE_SES_STD_LEN); /* n <= WIRE_MAX_FRAME */
	if (s->flags & WIRE_SES_F_SOM) {
		s->header_data = get_be64(b + SES_HEADER_DATA);
	} else {
		s->payload_length = (uint16_t)(get_be32(b + SES_PAYLOAD_LENGTH) & SES_PAYLOAD_LENGTH_MASK);
		s->message_offset = get_be32(b + SES_MESSAGE_OFFSET);
		if (s->payload_length != out->payload_len)
			return -WIRE_R_BAD_SES_LEN;
	}
	return (int)n;
}

/* RUD_CC / ROD_CC request: TRIMMED if nothing follows the PDS header, else DATA with its SES header. */
static int dec_req(const uint8_t *b, size_t n, struct wire_pkt *out)
{
	struct wire_pds *d = &out->pds;

	if (n < WIRE_PDS_REQ_CC_LEN)
		return -WIRE_R_SHORT_PDS;
	if (d->next_hdr != WIRE_NH_REQ_STD)
		return -WIRE_R_BAD_NEXT_HDR;
	d->psn_off = get_s16(b + PDS_OFF2);
	dec_pds_common(b, d);
	d->ccc_id = b[REQ_CCC_ID];
	d->credit_target = get_be24(b + REQ_CREDIT_TARGET);
	if (n == WIRE_PDS_REQ_CC_LEN) {
		out->kind = WIRE_KIND_TRIMMED;
		return (int)n;
	}
	out->kind = WIRE_KIND_DATA;

	int rc = dec_ses(b + WIRE_PDS_REQ_CC_LEN, n - WIRE_PDS_REQ_CC_LEN, out);

	return rc < 0 ? rc : (int)n;
}

static int dec_ack(const uint8_t *b, size_t n, struct wire_pkt *out)
{
	struct wire_pds *d = &out->pds;

	if (n < WIRE_PDS_ACK_CC_LEN)
		return -WIRE_R_SHORT_PDS;
	if (n > WIRE_PDS_ACK_CC_LEN)
		return -WIRE_R_TRAILING;
	out->kind = WIRE_KIND_ACK;
	if (d->flags & WIRE_ACK_F_P)
		d->probe_opaque = get_be16(b + PDS_OFF2);
	else
		d->psn_off = get_s16(b + PDS_OFF2);
	dec_pds_common(b, d);
	d->cc_type = b[ACK_CC_TYPE_FLAGS] >> 4;
	d->cc_flags = b[ACK_CC_TYPE_FLAGS] & 0xf;
	d->mpr = b[ACK_MPR];
	d->sack_psn_off = get_s16(b + ACK_SACK_PSN_OFF);
	d->sack_bitmap = get_be64(b + ACK_SACK_BITMAP);
	d->service_time = get_be16(b + ACK_SERVICE_TIME);
	d->rc = b[ACK_RC_PEND] >> ACK_RC_SHIFT;
	d->rcv_cwnd_pend = b[ACK_RC_PEND] & ACK_PEND_MASK;
	d->rcvd_bytes = get_be24(b + ACK_RCVD_BYTES);
	d->ooo_count = get_be16(b + ACK_OOO_COUNT);
	return (int)n;
}

/* NACK and CP: both exactly 16 B, PSN/SPDCID/DPDCID at 4..11 and a u32 payload at 12. */
static int dec_nack_cp(const uint8_t *b, size_t n, struct wire_pkt *out)
{
	struct wire_pds *d = &out->pds;

	if (n < WIRE_PDS_NACK_LEN)
		return -WIRE_R_SHORT_PDS;
	if (n > WIRE_PDS_NACK_LEN)
		return -WIRE_R_TRAILING;
	if (d->type == WIRE_PDS_NACK) {
		out->kind = WIRE_KIND_NACK;
		d->nack_code = b[NACK_CODE];
		d->vendor_code = b[NACK_VENDOR];
	} else {
		out->kind = WIRE_KIND_CP;
		d->probe_opaque = get_be16(b + PDS_OFF2);
	}
	dec_pds_common(b, d);
	d->payload = get_be32(b + NACK_PAYLOAD);
	return (int)n;
}

/* PDS prologue, then the header of its type; @p n is every byte of the UDP payload. */
static int dec_pds(const uint8_t *b, size_t n, struct wire_pkt *out)
{
	struct wire_pds *d = &out->pds;

	if (n < PDS_PROLOGUE_LEN)
		return -WIRE_R_SHORT_PDS;

	uint16_t pro = get_be16(b);

	d->type = (pro >> PDS_TYPE_SHIFT) & PDS_TYPE_MASK;
	d->next_hdr = (pro >> PDS_NH_SHIFT) & PDS_NH_MASK;
	d->flags = pro & PDS_FLAGS_MASK;
	switch (d->type) {
	case WIRE_PDS_RUD_CC_REQ:
	case WIRE_PDS_ROD_CC_REQ:
		return dec_req(b, n, out);
	case WIRE_PDS_ACK_CC:
		return dec_ack(b, n, out);
	case WIRE_PDS_NACK:
	case WIRE_PDS_CP:
		return dec_nack_cp(b, n, out);
	default:
		return -WIRE_R_BAD_PDS_TYPE;
	}
}

/* A connection-management message: exactly its header, a known type and our version. */
static int dec_cm(const uint8_t *b, size_t n, struct wire_pkt *out)
{
	if (n < WIRE_CM_LEN)
		return -WIRE_R_SHORT_CM;
	if (n > WIRE_CM_LEN)
		return -WIRE_R_TRAILING;
	if (b[CM_VERSION] != WIRE_CM_VERSION || b[CM_TYPE] < WIRE_CM_REQ || b[CM_TYPE] > WIRE_CM_RTU)
		return -WIRE_R_BAD_CM;
	out->kind = WIRE_KIND_CM;
	out->cm.type = b[CM_TYPE];
	out->cm.connection = get_be16(b + CM_CONNECTION);
	out->cm.local_id = get_be32(b + CM_LOCAL_ID);
	out->cm.remote_id = get_be32(b + CM_REMOTE_ID);
	out->cm.qpn = get_be32(b + CM_QPN);
	return (int)n;
}

/* A MAC control frame: only PFC is taken. */
static int dec_pfc(const uint8_t *b, size_t n, struct wire_pkt *out)
{
	if (n < WIRE_PFC_MIN_LEN)
		return WIRE_R_SHORT_PFC;
	if (get_be16(b + WIRE_ETH_LEN) != WIRE_PFC_OPCODE)
		return WIRE_R_NOT_PFC;
	out->kind = WIRE_KIND_PFC;
	memcpy(out->dst_mac, b + ETH_DST, 6);
	memcpy(out->src_mac, b + ETH_SRC, 6);
	out->pfc_enable = get_be16(b + WIRE_ETH_LEN + 2) & 0xff;
	for (int c = 0; c < 8; c++)
		out->pfc_quanta[c] = get_be16(b + WIRE_ETH_LEN + 4 + 2 * c);
	return WIRE_R_OK;
}

int wire_decode(const uint8_t *buf, size_t len, uint16_t uet_port, struct wire_pkt *out)
{
	size_t off, end, dgram = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	if (len >= WIRE_ETH_LEN && get_be16(buf + ETH_TYPE) == WIRE_ETHERTYPE_MAC_CTRL)
		return dec_pfc(buf, len, out);
	rc = dec_eth(buf, len, out);
	if (rc < 0)
		return -rc;
	off = (size_t)rc;
	rc = dec_ipv4(buf + off, len - off, out, &dgram);
	if (rc < 0)
		return -rc;
	/* dec_ipv4 checked dgram <= len - off: the datagram ends here, anything after is Ethernet padding. */
	end = off + dgram;
	off += (size_t)rc;
	rc = dec_udp(buf + off, end - off, uet_port, out);
	if (rc < 0)
		return -rc;
	off += (size_t)rc;
	if (out->dport == WIRE_UDP_PORT_CM && out->dport != uet_port)
		rc = dec_cm(buf + off, end - off, out);
	else
		rc = dec_pds(buf + off, end - off, out);
	if (rc < 0)
		return -rc;
	return WIRE_R_OK;
}
