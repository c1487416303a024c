/* Encoder, sizes and classes of uetemu frames: Ethernet II / IPv4 / UDP or the entropy header / UET PDS (+ SES and
 * payload) / optional CRC trailer; PFC and connection-management frames. The decoder is wire_dec.c. */
#include "wire_pvt.h"

#include <errno.h>
#include <string.h>

#define DATA_MAX_PAYLOAD (WIRE_MAX_FRAME - DATA_HDRS_LEN)

/* ---- DSCP roles, reasons, classes, checksums ---- */

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

#define WIRE_NAME_STR(n, k, s) s,
#define WIRE_NAME_KEY(n, k, s) k,
static const char *const wire_reason_names[] = { WIRE_REASONS(WIRE_NAME_STR) };
static const char *const wire_reason_keys[] = { WIRE_REASONS(WIRE_NAME_KEY) };
static const char *const pds_class_names[] = { WIRE_PDS_CLASSES(WIRE_NAME_STR) };
static const char *const pds_class_keys[] = { WIRE_PDS_CLASSES(WIRE_NAME_KEY) };
static const char *const ses_class_names[] = { WIRE_SES_CLASSES(WIRE_NAME_STR) };
static const char *const ses_class_keys[] = { WIRE_SES_CLASSES(WIRE_NAME_KEY) };
#undef WIRE_NAME_STR
#undef WIRE_NAME_KEY
_Static_assert(sizeof(wire_reason_names) / sizeof(wire_reason_names[0]) == WIRE_R_COUNT,
	       "wire reason names and enum differ in length");
_Static_assert(sizeof(pds_class_keys) / sizeof(pds_class_keys[0]) == WIRE_PC_COUNT, "PDS class keys");
_Static_assert(sizeof(ses_class_keys) / sizeof(ses_class_keys[0]) == WIRE_SC_COUNT, "SES class keys");
/* wire_pds_class() maps ctl_type c to WIRE_PC_CP_NOOP + c. */
_Static_assert(WIRE_PC_CP_NEGOTIATION - WIRE_PC_CP_NOOP == WIRE_CTL_NEGOTIATION, "one CP class per ctl_type");

/* @p tab[i] for 0 <= i < @p n, else "unknown". */
static const char *name_in(const char *const *tab, int n, int i)
{
	return i < 0 || i >= n ? "unknown" : tab[i];
}

const char *wire_reason_str(int reason)
{
	return name_in(wire_reason_names, WIRE_R_COUNT, reason);
}

const char *wire_reason_key(int reason)
{
	return name_in(wire_reason_keys, WIRE_R_COUNT, reason);
}

const char *wire_pds_class_key(int c)
{
	return name_in(pds_class_keys, WIRE_PC_COUNT, c);
}

const char *wire_pds_class_str(int c)
{
	return name_in(pds_class_names, WIRE_PC_COUNT, c);
}

const char *wire_ses_class_key(int c)
{
	return name_in(ses_class_keys, WIRE_SC_COUNT, c);
}

const char *wire_ses_class_str(int c)
{
	return name_in(ses_class_names, WIRE_SC_COUNT, c);
}

uint16_t wire_csum(const uint8_t *buf, size_t len)
{
	uint64_t sum = 0;
	size_t i = 0;

	/* RFC 1071: one's complement sum of big-endian 16-bit words. The carries are deferred (RFC 1071 2(B)) and
	 * folded once at the end: a 64-bit sum of 32-bit words cannot overflow below 2^32 words. The words are added
	 * as the machine reads them, four bytes at a time, and the sum is swapped once at the end: the one's
	 * complement sum does not depend on the byte order (RFC 1071 2(A)). An IPv4 header is five loads, not ten
	 * pairs of byte loads (the encoder's largest cost after the header writes themselves). */
	for (; i + 4 <= len; i += 4) {
		uint32_t w;
		memcpy(&w, buf + i, 4);
		sum += w;
	}
	for (; i + 2 <= len; i += 2) {
		uint16_t w;
		memcpy(&w, buf + i, 2);
		sum += w;
	}
	if (i < len) { /* the odd last byte: the high byte of a big-endian word, the first of the pair in memory */
		const uint8_t last[2] = { buf[i], 0 };
		uint16_t w;
		memcpy(&w, last, 2);
		sum += w;
	}
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	sum = (uint16_t)(sum << 8 | sum >> 8);
#endif
	return (uint16_t)~sum;
}

/* CRC-32C, one byte per step: crc32c_tab[i] is byte i run through the reflected polynomial 0x82F63B78. */
static const uint32_t crc32c_tab[256] = {
	0x00000000, 0xf26b8303, 0xe13b70f7, 0x1350f3f4, 0xc79a971f, 0x35f1141c, 0x26a1e7e8, 0xd4ca64eb,
	0x8ad958cf, 0x78b2dbcc, 0x6be22838, 0x9989ab3b, 0x4d43cfd0, 0xbf284cd3, 0xac78bf27, 0x5e133c24,
	0x105ec76f, 0xe235446c, 0xf165b798, 0x030e349b, 0xd7c45070, 0x25afd373, 0x36ff2087, 0xc494a384,
	0x9a879fa0, 0x68ec1ca3, 0x7bbcef57, 0x89d76c54, 0x5d1d08bf, 0xaf768bbc, 0xbc267848, 0x4e4dfb4b,
	0x20bd8ede, 0xd2d60ddd, 0xc186fe29, 0x33ed7d2a, 0xe72719c1, 0x154c9ac2, 0x061c6936, 0xf477ea35,
	0xaa64d611, 0x580f5512, 0x4b5fa6e6, 0xb93425e5, 0x6dfe410e, 0x9f95c20d, 0x8cc531f9, 0x7eaeb2fa,
	0x30e349b1, 0xc288cab2, 0xd1d83946, 0x23b3ba45, 0xf779deae, 0x05125dad, 0x1642ae59, 0xe4292d5a,
	0xba3a117e, 0x4851927d, 0x5b016189, 0xa96ae28a, 0x7da08661, 0x8fcb0562, 0x9c9bf696, 0x6ef07595,
	0x417b1dbc, 0xb3109ebf, 0xa0406d4b, 0x522bee48, 0x86e18aa3, 0x748a09a0, 0x67dafa54, 0x95b17957,
	0xcba24573, 0x39c9c670, 0x2a993584, 0xd8f2b687, 0x0c38d26c, 0xfe53516f, 0xed03a29b, 0x1f682198,
	0x5125dad3, 0xa34e59d0, 0xb01eaa24, 0x42752927, 0x96bf4dcc, 0x64d4cecf, 0x77843d3b, 0x85efbe38,
	0xdbfc821c, 0x2997011f, 0x3ac7f2eb, 0xc8ac71e8, 0x1c661503, 0xee0d9600, 0xfd5d65f4, 0x0f36e6f7,
	0x61c69362, 0x93ad1061, 0x80fde395, 0x72966096, 0xa65c047d, 0x5437877e, 0x4767748a, 0xb50cf789,
	0xeb1fcbad, 0x197448ae, 0x0a24bb5a, 0xf84f3859, 0x2c855cb2, 0xdeeedfb1, 0xcdbe2c45, 0x3fd5af46,
	0x7198540d, 0x83f3d70e, 0x90a324fa, 0x62c8a7f9, 0xb602c312, 0x44694011, 0x5739b3e5, 0xa55230e6,
	0xfb410cc2, 0x092a8fc1, 0x1a7a7c35, 0xe811ff36, 0x3cdb9bdd, 0xceb018de, 0xdde0eb2a, 0x2f8b6829,
	0x82f63b78, 0x709db87b, 0x63cd4b8f, 0x91a6c88c, 0x456cac67, 0xb7072f64, 0xa457dc90, 0x563c5f93,
	0x082f63b7, 0xfa44e0b4, 0xe9141340, 0x1b7f9043, 0xcfb5f4a8, 0x3dde77ab, 0x2e8e845f, 0xdce5075c,
	0x92a8fc17, 0x60c37f14, 0x73938ce0, 0x81f80fe3, 0x55326b08, 0xa759e80b, 0xb4091bff, 0x466298fc,
	0x1871a4d8, 0xea1a27db, 0xf94ad42f, 0x0b21572c, 0xdfeb33c7, 0x2d80b0c4, 0x3ed04330, 0xccbbc033,
	0xa24bb5a6, 0x502036a5, 0x4370c551, 0xb11b4652, 0x65d122b9, 0x97baa1ba, 0x84ea524e, 0x7681d14d,
	0x2892ed69, 0xdaf96e6a, 0xc9a99d9e, 0x3bc21e9d, 0xef087a76, 0x1d63f975, 0x0e330a81, 0xfc588982,
	0xb21572c9, 0x407ef1ca, 0x532e023e, 0xa145813d, 0x758fe5d6, 0x87e466d5, 0x94b49521, 0x66df1622,
	0x38cc2a06, 0xcaa7a905, 0xd9f75af1, 0x2b9cd9f2, 0xff56bd19, 0x0d3d3e1a, 0x1e6dcdee, 0xec064eed,
	0xc38d26c4, 0x31e6a5c7, 0x22b65633, 0xd0ddd530, 0x0417b1db, 0xf67c32d8, 0xe52cc12c, 0x1747422f,
	0x49547e0b, 0xbb3ffd08, 0xa86f0efc, 0x5a048dff, 0x8ecee914, 0x7ca56a17, 0x6ff599e3, 0x9d9e1ae0,
	0xd3d3e1ab, 0x21b862a8, 0x32e8915c, 0xc083125f, 0x144976b4, 0xe622f5b7, 0xf5720643, 0x07198540,
	0x590ab964, 0xab613a67, 0xb831c993, 0x4a5a4a90, 0x9e902e7b, 0x6cfbad78, 0x7fab5e8c, 0x8dc0dd8f,
	0xe330a81a, 0x115b2b19, 0x020bd8ed, 0xf0605bee, 0x24aa3f05, 0xd6c1bc06, 0xc5914ff2, 0x37faccf1,
	0x69e9f0d5, 0x9b8273d6, 0x88d28022, 0x7ab90321, 0xae7367ca, 0x5c18e4c9, 0x4f48173d, 0xbd23943e,
	0xf36e6f75, 0x0105ec76, 0x12551f82, 0xe03e9c81, 0x34f4f86a, 0xc69f7b69, 0xd5cf889d, 0x27a40b9e,
	0x79b737ba, 0x8bdcb4b9, 0x988c474d, 0x6ae7c44e, 0xbe2da0a5, 0x4c4623a6, 0x5f16d052, 0xad7d5351,
};

uint32_t wire_crc32c(const uint8_t *buf, size_t len)
{
	uint32_t c = 0xffffffffu;

	for (size_t i = 0; i < len; i++)
		c = crc32c_tab[(c ^ buf[i]) & 0xff] ^ (c >> 8);
	return ~c;
}

/* ---- header sizes and pairings ---- */

size_t wire_pds_hdr_len(uint8_t type)
{
	switch (type) {
	case WIRE_PDS_RUD_REQ:
	case WIRE_PDS_ROD_REQ:
		return WIRE_PDS_REQ_LEN;
	case WIRE_PDS_RUD_CC_REQ:
	case WIRE_PDS_ROD_CC_REQ:
		return WIRE_PDS_REQ_CC_LEN;
	case WIRE_PDS_RUDI_REQ:
	case WIRE_PDS_RUDI_RESP:
		return WIRE_PDS_RUDI_LEN;
	case WIRE_PDS_UUD_REQ:
		return WIRE_PDS_UUD_LEN;
	case WIRE_PDS_ACK:
		return WIRE_PDS_ACK_LEN;
	case WIRE_PDS_ACK_CC:
		return WIRE_PDS_ACK_CC_LEN;
	case WIRE_PDS_ACK_CCX:
		return WIRE_PDS_ACK_CCX_LEN;
	case WIRE_PDS_NACK:
		return WIRE_PDS_NACK_LEN;
	case WIRE_PDS_NACK_CCX:
		return WIRE_PDS_NACK_CCX_LEN;
	case WIRE_PDS_CP:
		return WIRE_PDS_CP_LEN;
	default: /* reserved, and TSS (wire_tss_hdr_len()) */
		return 0;
	}
}

size_t wire_ses_hdr_len(uint8_t next_hdr)
{
	switch (next_hdr) {
	case WIRE_NH_REQ_SMALL:
		return WIRE_SES_SMALL_LEN;
	case WIRE_NH_REQ_MEDIUM:
		return WIRE_SES_MEDIUM_LEN;
	case WIRE_NH_REQ_STD:
		return WIRE_SES_STD_LEN;
	case WIRE_NH_RESPONSE:
		return WIRE_SES_RSP_LEN;
	case WIRE_NH_RESPONSE_DATA:
		return WIRE_SES_RSP_DATA_LEN;
	case WIRE_NH_RESPONSE_DATA_SMALL:
		return WIRE_SES_RSP_DATA_SMALL_LEN;
	default:
		return 0;
	}
}

size_t wire_ses_ext_len(int ext)
{
	switch (ext) {
	case WIRE_EXT_ATOMIC:
		return WIRE_SES_ATOMIC_LEN;
	case WIRE_EXT_CAS:
		return WIRE_SES_CAS_LEN;
	case WIRE_EXT_RDV:
		return WIRE_SES_RDV_LEN;
	default:
		return 0;
	}
}

bool wire_pds_is_request(uint8_t type)
{
	return type == WIRE_PDS_RUD_REQ || type == WIRE_PDS_ROD_REQ || type == WIRE_PDS_RUDI_REQ ||
	       type == WIRE_PDS_UUD_REQ || type == WIRE_PDS_RUD_CC_REQ || type == WIRE_PDS_ROD_CC_REQ;
}

static bool nh_is_request_hdr(uint8_t nh)
{
	return nh == WIRE_NH_REQ_SMALL || nh == WIRE_NH_REQ_MEDIUM || nh == WIRE_NH_REQ_STD;
}

static bool nh_is_data_response(uint8_t nh)
{
	return nh == WIRE_NH_RESPONSE_DATA || nh == WIRE_NH_RESPONSE_DATA_SMALL;
}

bool wire_pds_nh_ok(uint8_t type, uint8_t next_hdr)
{
	if (wire_pds_is_request(type))
		return nh_is_request_hdr(next_hdr) || nh_is_data_response(next_hdr);
	return next_hdr == WIRE_NH_NONE || next_hdr == WIRE_NH_RESPONSE || nh_is_data_response(next_hdr);
}

bool wire_nh_has_payload(uint8_t next_hdr)
{
	return nh_is_request_hdr(next_hdr) || nh_is_data_response(next_hdr);
}

size_t wire_tss_hdr_len(uint8_t b0)
{
	/* SP is bit 26 of the first word: bit 2 of its first byte */
	return (b0 >> (TSS_SP_BIT - 24)) & 1 ? WIRE_TSS_SSI_LEN : WIRE_TSS_LEN;
}

int wire_ses_ext(uint8_t next_hdr, const struct wire_ses *s)
{
	if (!nh_is_request_hdr(next_hdr))
		return WIRE_EXT_NONE;
	switch (s->opcode & SES_OPCODE_MASK) {
	case WIRE_SES_OP_ATOMIC:
	case WIRE_SES_OP_FETCHING_ATOMIC:
	case WIRE_SES_OP_TSEND_ATOMIC:
	case WIRE_SES_OP_TSEND_FETCH_ATOMIC:
		return s->amo_opcode >= WIRE_AMO_CSWAP && s->amo_opcode <= WIRE_AMO_CSWAP_GT ? WIRE_EXT_CAS
											  : WIRE_EXT_ATOMIC;
	case WIRE_SES_OP_RENDEZVOUS_SEND:
	case WIRE_SES_OP_RENDEZVOUS_TSEND:
		return next_hdr == WIRE_NH_REQ_STD ? WIRE_EXT_RDV : WIRE_EXT_NONE;
	default:
		return WIRE_EXT_NONE;
	}
}

/* ---- classes ---- */

int wire_pds_class(const struct wire_pkt *p)
{
	uint8_t type = p->pds.type;

	switch (p->kind) {
	case WIRE_KIND_DATA:
	case WIRE_KIND_TRIMMED:
		return type == WIRE_PDS_ROD_CC_REQ ? WIRE_PC_ROD_CC_REQ : WIRE_PC_RUD_CC_REQ;
	case WIRE_KIND_ACK:
		return WIRE_PC_ACK_CC;
	case WIRE_KIND_NACK:
		return WIRE_PC_NACK;
	case WIRE_KIND_CP:
		type = WIRE_PDS_CP;
		break;
	case WIRE_KIND_UET:
		break;
	default:
		return -1;
	}
	switch (type) {
	case WIRE_PDS_TSS:
		return WIRE_PC_TSS;
	case WIRE_PDS_RUD_REQ:
		return WIRE_PC_RUD_REQ;
	case WIRE_PDS_ROD_REQ:
		return WIRE_PC_ROD_REQ;
	case WIRE_PDS_RUDI_REQ:
		return WIRE_PC_RUDI_REQ;
	case WIRE_PDS_RUDI_RESP:
		return WIRE_PC_RUDI_RESP;
	case WIRE_PDS_UUD_REQ:
		return WIRE_PC_UUD_REQ;
	case WIRE_PDS_ACK:
		return WIRE_PC_ACK;
	case WIRE_PDS_ACK_CC:
		return WIRE_PC_ACK_CC;
	case WIRE_PDS_ACK_CCX:
		return WIRE_PC_ACK_CCX;
	case WIRE_PDS_NACK:
		return WIRE_PC_NACK;
	case WIRE_PDS_NACK_CCX:
		return WIRE_PC_NACK_CCX;
	case WIRE_PDS_RUD_CC_REQ:
		return WIRE_PC_RUD_CC_REQ;
	case WIRE_PDS_ROD_CC_REQ:
		return WIRE_PC_ROD_CC_REQ;
	case WIRE_PDS_CP:
		return p->pds.next_hdr <= PDS_CTL_MAX ? WIRE_PC_CP_NOOP + p->pds.next_hdr : -1;
	default:
		return -1;
	}
}

int wire_ses_class(const struct wire_pkt *p)
{
	switch (p->kind) {
	case WIRE_KIND_DATA:
		return WIRE_SC_STD;
	case WIRE_KIND_TRIMMED:
		return WIRE_SC_TRIMMED;
	case WIRE_KIND_ACK:
		return p->pds.next_hdr == WIRE_NH_RESPONSE ? WIRE_SC_RESPONSE : WIRE_SC_NONE;
	case WIRE_KIND_NACK:
	case WIRE_KIND_CP:
		return WIRE_SC_NONE;
	case WIRE_KIND_UET:
		break;
	default:
		return -1;
	}
	if (p->trim_len != 0)
		return WIRE_SC_TRIMMED;
	if (p->pds.type == WIRE_PDS_TSS || p->pds.type == WIRE_PDS_CP)
		return WIRE_SC_NONE;
	switch (p->pds.next_hdr) {
	case WIRE_NH_REQ_SMALL:
		return WIRE_SC_SMALL;
	case WIRE_NH_REQ_MEDIUM:
		return WIRE_SC_MEDIUM;
	case WIRE_NH_REQ_STD:
		return WIRE_SC_STD;
	case WIRE_NH_RESPONSE:
		return WIRE_SC_RESPONSE;
	case WIRE_NH_RESPONSE_DATA:
		return WIRE_SC_RESPONSE_DATA;
	case WIRE_NH_RESPONSE_DATA_SMALL:
		return WIRE_SC_RESPONSE_DATA_SMALL;
	default:
		return WIRE_SC_NONE;
	}
}

/* ---- layout of a frame to encode ---- */

/* Where the parts of a frame lie, and the PDS type and next_hdr (ctl_type) the encoder writes. */
struct layout {
	size_t below;   /* Ethernet + IPv4 + UDP or the entropy header */
	size_t pds;     /* PDS header (TSS: its header; CM: the connection-management header) */
	size_t ses;     /* SES header (a trimmed UET request: what is left of it, written as zeros) */
	size_t ext;     /* SES extension header */
	size_t payload; /* payload (TSS: everything after its header) */
	size_t crc;     /* WIRE_CRC_LEN or 0 */
	uint8_t type;
	uint8_t nh;
	int ext_kind;
};

static size_t lay_hdrs(const struct layout *l)
{
	return l->below + l->pds + l->ses + l->ext;
}

static size_t lay_frame(const struct layout *l)
{
	return lay_hdrs(l) + l->payload + l->crc;
}

/* A UET frame of any shape; 0 or -EINVAL for one that is not of UET 1.0 (wire_encode()). */
static int lay_uet(const struct wire_pkt *p, struct layout *l)
{
	const struct wire_pds *d = &p->pds;
	size_t hl;

	l->type = d->type;
	l->nh = d->next_hdr;
	if (d->type == WIRE_PDS_TSS) { /* the TSS header, then opaque bytes ending in the ICV; never a CRC */
		if (p->payload_len < WIRE_TSS_ICV_LEN)
			return -EINVAL;
		l->pds = p->tss.sp ? WIRE_TSS_SSI_LEN : WIRE_TSS_LEN;
		l->payload = p->payload_len;
		l->crc = 0;
		return 0;
	}
	hl = wire_pds_hdr_len(d->type);
	if (hl == 0 || (d->type == WIRE_PDS_CP ? d->next_hdr > PDS_CTL_MAX : !wire_pds_nh_ok(d->type, d->next_hdr)))
		return -EINVAL;
	l->pds = hl;
	if (p->trim_len != 0) { /* a request cut after its PDS header, or at MIN_TRIM inside its SES header */
		bool cut_ses = p->trim_len == WIRE_MIN_TRIM_LEN && hl + wire_ses_hdr_len(d->next_hdr) > p->trim_len;
		if (!wire_pds_is_request(d->type) || (p->trim_len != hl && !cut_ses))
			return -EINVAL;
		l->ses = p->trim_len - hl;
		l->crc = 0;
		return 0;
	}
	if (d->type == WIRE_PDS_CP)
		return 0;
	l->ses = wire_ses_hdr_len(d->next_hdr);
	l->ext_kind = wire_ses_ext(d->next_hdr, &p->ses);
	l->ext = wire_ses_ext_len(l->ext_kind);
	if (wire_nh_has_payload(d->next_hdr))
		l->payload = p->payload_len;
	return 0;
}

/* The PDS type of DATA / TRIMMED @p p: ROD when pds.type says so, RUD else; with or without CC by its encap. */
static uint8_t req_type(const struct wire_pkt *p)
{
	bool rod = p->pds.type == WIRE_PDS_ROD_CC_REQ || p->pds.type == WIRE_PDS_ROD_REQ;

	if (p->encap & WIRE_ENCAP_PLAIN_REQ)
		return rod ? WIRE_PDS_ROD_REQ : WIRE_PDS_RUD_REQ;
	return rod ? WIRE_PDS_ROD_CC_REQ : WIRE_PDS_RUD_CC_REQ;
}

/*
 * The layout of @p p (not PFC); 0, or -EINVAL for an unknown kind or shape. Sizes only: the payload bound is
 * enc_lengths()' business.
 */
static int layout_of(const struct wire_pkt *p, struct layout *l)
{
	memset(l, 0, sizeof(*l));
	if (p->kind == WIRE_KIND_CM) { /* uetemu's own UDP message: never native, never a trailer */
		l->below = HDRS_BELOW_PDS;
		l->pds = WIRE_CM_LEN;
		return 0;
	}
	if (p->kind == WIRE_KIND_ROCE) { /* RoCEv2: always UDP; the ICRC as the trailer */
		l->below = HDRS_BELOW_PDS;
		l->pds = wire_roce_hdr_len(p);
		l->payload = wire_roce_is_data(p->roce.opcode) ? p->payload_len + wire_roce_pad(p) : 0;
		l->crc = p->encap & WIRE_ENCAP_ICRC ? WIRE_ICRC_LEN : 0;
		return l->pds != 0 ? 0 : -EINVAL;
	}
	l->below = WIRE_ETH_LEN + WIRE_IPV4_LEN + (p->encap & WIRE_ENCAP_NATIVE ? WIRE_ENTROPY_LEN : WIRE_UDP_LEN);
	l->crc = p->encap & WIRE_ENCAP_CRC ? WIRE_CRC_LEN : 0;
	switch (p->kind) {
	case WIRE_KIND_DATA:
		l->type = req_type(p);
		l->nh = WIRE_NH_REQ_STD;
		l->pds = p->encap & WIRE_ENCAP_PLAIN_REQ ? WIRE_PDS_REQ_LEN : WIRE_PDS_REQ_CC_LEN;
		l->ses = WIRE_SES_STD_LEN;
		l->payload = p->payload_len;
		return 0;
	case WIRE_KIND_TRIMMED: /* a switch cut the SES header, the payload and any trailer */
		l->type = req_type(p);
		l->nh = wire_pds_nh_ok(l->type, p->pds.next_hdr) ? p->pds.next_hdr : WIRE_NH_REQ_STD;
		l->pds = p->encap & WIRE_ENCAP_PLAIN_REQ ? WIRE_PDS_REQ_LEN : WIRE_PDS_REQ_CC_LEN;
		l->crc = 0;
		return 0;
	case WIRE_KIND_ACK:
		l->type = WIRE_PDS_ACK_CC;
		l->nh = p->pds.next_hdr == WIRE_NH_RESPONSE ? WIRE_NH_RESPONSE : WIRE_NH_NONE;
		l->pds = WIRE_PDS_ACK_CC_LEN;
		l->ses = l->nh == WIRE_NH_RESPONSE ? WIRE_SES_RSP_LEN : 0;
		return 0;
	case WIRE_KIND_NACK:
		l->type = WIRE_PDS_NACK;
		l->pds = WIRE_PDS_NACK_LEN;
		return 0;
	case WIRE_KIND_CP:
		l->type = WIRE_PDS_CP;
		l->nh = p->pds.next_hdr & PDS_NH_MASK; /* ctl_type */
		l->pds = WIRE_PDS_CP_LEN;
		return 0;
	case WIRE_KIND_UET:
		return lay_uet(p, l);
	default:
		return -EINVAL;
	}
}

size_t wire_frame_len_slow(const struct wire_pkt *p)
{
	struct layout l;

	if (p->kind == WIRE_KIND_PFC)
		return WIRE_PFC_FRAME_LEN;
	if (p->kind == WIRE_KIND_RAW) /* its bytes as they came */
		return p->payload_len;
	return layout_of(p, &l) == 0 ? lay_frame(&l) : 0;
}

uint32_t wire_ack_wire_len(uint8_t encap)
{
	return wire_data_overhead(encap) - WIRE_PDS_REQ_CC_LEN - WIRE_SES_STD_LEN + WIRE_PDS_ACK_CC_LEN;
}

bool wire_prefilled_fits(const struct wire_pkt *p)
{
	if (p->kind == WIRE_KIND_ROCE || p->kind == WIRE_KIND_RAW) /* a payload before DATA_HDRS_LEN; a RAW one's own */
		return false;
	if (p->kind == WIRE_KIND_DATA)
		return (p->encap & (WIRE_ENCAP_NATIVE | WIRE_ENCAP_CRC | WIRE_ENCAP_PLAIN_REQ)) == 0;
	return wire_frame_len(p) <= DATA_HDRS_LEN;
}

/* ---- encoder: below the PDS header ---- */

static void enc_eth_ip(const struct wire_pkt *p, uint8_t *b, size_t ip_len, uint8_t proto)
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
	ip[IP_PROTO] = proto;
	put_be32(ip + IP_SRC, p->src_ip);
	put_be32(ip + IP_DST, p->dst_ip);
	/* The header checksum from the values just written, not read back from the bytes: a read of bytes stored a
	 * moment ago one or two at a time waits for the stores (no store-to-load forwarding across them), which was
	 * a tenth of a zero-copy frame's cost. The same sum of the same ten 16-bit words (wire_csum()). */
	uint64_t sum = (uint32_t)(IP_VER_IHL_V4_5 << 8 | ip[IP_TOS]) + (uint16_t)ip_len + p->ip_id + IP_F_DF +
		       (uint32_t)(p->ttl << 8 | proto) + (p->src_ip >> 16) + (p->src_ip & 0xffff) + (p->dst_ip >> 16) +
		       (p->dst_ip & 0xffff);

	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	put_be16(ip + IP_CSUM, (uint16_t)~sum);
}

/* Ethernet, IPv4 and the UDP header, or the entropy header of a native frame; @p frame is the frame length. */
static void enc_below(const struct wire_pkt *p, uint8_t *b, size_t frame, bool native)
{
	size_t ip_len = frame - WIRE_ETH_LEN;
	uint8_t *l4 = b + WIRE_ETH_LEN + WIRE_IPV4_LEN;

	enc_eth_ip(p, b, ip_len, native ? WIRE_IPPROTO_UET : WIRE_IPPROTO_UDP);
	if (native) {
		put_be16(l4 + ENT_VALUE, p->sport);
		put_be16(l4 + ENT_RSVD, 0);
		return;
	}
	put_be16(l4 + UDP_SPORT, p->sport);
	put_be16(l4 + UDP_DPORT, p->dport);
	put_be16(l4 + UDP_LEN, (uint16_t)(ip_len - WIRE_IPV4_LEN));
	put_be16(l4 + UDP_CSUM, 0); /* UE spec 1.0.3 3.5.10.1: zero on send */
}

/* ---- encoder: PDS headers ---- */

static void enc_prologue(uint8_t *b, unsigned type, unsigned nh, unsigned flags)
{
	put_be16(b, (uint16_t)((type & PDS_TYPE_MASK) << PDS_TYPE_SHIFT | (nh & PDS_NH_MASK) << PDS_NH_SHIFT |
			       (flags & PDS_FLAGS_MASK)));
}

/* Offsets 4..11 of the request, ACK, NACK and CP headers. */
static void enc_pds_common(const struct wire_pds *d, uint8_t *b)
{
	put_be32(b + PDS_PSN, d->psn);
	put_be16(b + PDS_SPDCID, d->spdcid);
	put_be16(b + PDS_DPDCID, d->dpdcid);
}

/* A RUD / ROD request, 12 B, or 16 B with CC state (RUD_CC / ROD_CC). */
static void enc_req(const struct wire_pds *d, const struct layout *l, uint8_t *b)
{
	enc_prologue(b, l->type, l->nh, d->flags);
	put_be16(b + PDS_OFF2, (uint16_t)d->psn_off);
	enc_pds_common(d, b);
	if (l->pds == WIRE_PDS_REQ_CC_LEN) {
		b[REQ_CCC_ID] = d->ccc_id;
		put_be24(b + REQ_CREDIT_TARGET, d->credit_target & U24_MASK);
	}
}

/* The ACK header (12 B), and the SACK part of ACK_CC / ACK_CCX: with P set the offset slot carries probe_opaque. */
static void enc_ack(const struct wire_pds *d, const struct wire_ack *a, const struct layout *l, bool nscc,
		    uint8_t *b)
{
	enc_prologue(b, l->type, l->nh, d->flags);
	if (d->flags & WIRE_ACK_F_P)
		put_be16(b + PDS_OFF2, d->probe_opaque);
	else
		put_be16(b + PDS_OFF2, (uint16_t)d->psn_off);
	enc_pds_common(d, b);
	if (l->type == WIRE_PDS_ACK)
		return;
	b[ACK_CC_TYPE_FLAGS] = (uint8_t)((d->cc_type & 0xf) << 4 | (d->cc_flags & 0xf));
	b[ACK_MPR] = d->mpr;
	put_be16(b + ACK_SACK_PSN_OFF, (uint16_t)d->sack_psn_off);
	put_be64(b + ACK_SACK_BITMAP, a->sack_bitmap);
	if (!nscc) { /* ACK_CCX, or ACK_CC with a CC type other than NSCC: the state as it came */
		put_be64(b + ACK_CC_STATE, a->cc_raw[0]);
		if (l->type == WIRE_PDS_ACK_CCX)
			put_be64(b + ACK_CCX_STATE, a->cc_raw[1]);
		return;
	}
	put_be16(b + ACK_SERVICE_TIME, a->service_time);
	b[ACK_RC_PEND] = (uint8_t)((a->rc & 1) << ACK_RC_SHIFT | (a->rcv_cwnd_pend & ACK_PEND_MASK));
	put_be24(b + ACK_RCVD_BYTES, a->rcvd_bytes & U24_MASK);
	put_be16(b + ACK_OOO_COUNT, a->ooo_count);
}

static void enc_nack(const struct wire_pds *d, const struct wire_ack *a, const struct layout *l, uint8_t *b)
{
	enc_prologue(b, l->type, l->nh, d->flags);
	b[NACK_CODE] = d->nack_code;
	b[NACK_VENDOR] = d->vendor_code;
	enc_pds_common(d, b);
	put_be32(b + NACK_PAYLOAD, d->payload);
	if (l->type == WIRE_PDS_NACK_CCX) {
		put_be64(b + NACK_CCX_STATE, a->cc_raw[0]);
		put_be64(b + NACK_CCX_STATE + 8, a->cc_raw[1]);
	}
}

static void enc_cp(const struct wire_pds *d, const struct layout *l, uint8_t *b)
{
	enc_prologue(b, WIRE_PDS_CP, l->nh, d->flags); /* ctl_type in the next_hdr slot */
	put_be16(b + PDS_OFF2, d->probe_opaque);
	enc_pds_common(d, b);
	put_be32(b + CP_PAYLOAD, d->payload);
}

/* RUDI request / response (8 B: prologue, reserved, pkt_id) and UUD request (4 B: prologue, reserved). */
static void enc_rudi_uud(const struct wire_pds *d, const struct layout *l, uint8_t *b)
{
	enc_prologue(b, l->type, l->nh, d->flags);
	put_be16(b + PDS_OFF2, 0);
	if (l->type != WIRE_PDS_UUD_REQ)
		put_be32(b + PDS_PSN, d->psn);
}

static void enc_tss(const struct wire_tss *t, uint8_t *b)
{
	size_t tsc = t->sp ? TSS_SSI + 4 : TSS_SSI;

	put_be32(b, (uint32_t)WIRE_PDS_TSS << 27 | (uint32_t)(t->sp & 1) << TSS_SP_BIT |
			   (uint32_t)(t->an & 1) << TSS_AN_BIT | (t->sdi & U24_MASK));
	if (t->sp)
		put_be32(b + TSS_SSI, t->ssi);
	put_be64(b + tsc, t->tsc);
}

/* The PDS (or TSS) header of @p p as @p l lays it out. */
static void enc_pds(const struct wire_pkt *p, const struct layout *l, uint8_t *b)
{
	const struct wire_pds *d = &p->pds;

	switch (l->type) {
	case WIRE_PDS_TSS:
		enc_tss(&p->tss, b);
		break;
	case WIRE_PDS_RUD_REQ:
	case WIRE_PDS_ROD_REQ:
	case WIRE_PDS_RUD_CC_REQ:
	case WIRE_PDS_ROD_CC_REQ:
		enc_req(d, l, b);
		break;
	case WIRE_PDS_RUDI_REQ:
	case WIRE_PDS_RUDI_RESP:
	case WIRE_PDS_UUD_REQ:
		enc_rudi_uud(d, l, b);
		break;
	case WIRE_PDS_ACK:
	case WIRE_PDS_ACK_CC:
	case WIRE_PDS_ACK_CCX:
		/* the model's ACK always carries NSCC state; a UET one as its CC type says */
		enc_ack(d, &p->ack, l,
			l->type == WIRE_PDS_ACK_CC && (p->kind == WIRE_KIND_ACK || d->cc_type == ACK_CC_NSCC), b);
		break;
	case WIRE_PDS_NACK:
	case WIRE_PDS_NACK_CCX:
		enc_nack(d, &p->ack, l, b);
		break;
	default: /* WIRE_PDS_CP; layout_of() refused every other type */
		enc_cp(d, l, b);
		break;
	}
}

/* ---- encoder: SES headers ---- */

/* The first 12 bytes of a request header; @p mid is message_id (standard) or request_length (small, medium). */
static void enc_ses_head(const struct wire_ses *s, uint16_t mid, uint8_t *b)
{
	b[SES_OPCODE] = s->opcode & SES_OPCODE_MASK;
	b[SES_VER_FLAGS] = (uint8_t)((s->ver & SES_VER_MASK) << SES_VER_SHIFT | (s->flags & SES_FLAGS_MASK));
	put_be16(b + SES_MESSAGE_ID, mid);
	b[SES_RI_GEN] = s->ri_generation;
	put_be24(b + SES_JOB_ID, s->job_id & U24_MASK);
	put_be16(b + SES_PID_ON_FEP, s->pid_on_fep & SES_U12_MASK);
	put_be16(b + SES_RESOURCE_INDEX, s->resource_index & SES_U12_MASK);
}

/* The 44 B standard SES request. payload_length is written from @p payload_len so the frame is self-consistent. */
static void enc_ses_std(const struct wire_ses *s, uint32_t payload_len, uint8_t *b)
{
	enc_ses_head(s, s->message_id, b);
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

/* Medium (32 B: header_data with HD, else buffer_offset; initiator; memory key) and small (20 B) requests. */
static void enc_ses_med_small(const struct wire_ses *s, bool medium, uint8_t *b)
{
	enc_ses_head(s, (uint16_t)(s->request_length & SES_U14_MASK), b);
	if (!medium) {
		put_be64(b + SES_SMALL_BUFFER_OFFSET, s->buffer_offset);
		return;
	}
	put_be64(b + SES_MED_HD_OR_BUF, s->flags & WIRE_SES_F_HD ? s->header_data : s->buffer_offset);
	put_be32(b + SES_MED_INITIATOR, s->initiator);
	put_be64(b + SES_MED_MEMORY_KEY, s->memory_key);
}

/* A response header of form @p nh; payload_length is written from @p payload_len. */
static void enc_rsp(const struct wire_rsp *r, uint8_t nh, uint32_t payload_len, uint8_t *b)
{
	uint16_t plen = (uint16_t)(payload_len & SES_U14_MASK);

	b[RSP_LIST_OPCODE] = (uint8_t)((r->list & 3) << RSP_LIST_SHIFT | (r->opcode & RSP_LOW6_MASK));
	b[RSP_VER_RC] = (uint8_t)((r->ver & 3) << RSP_LIST_SHIFT | (r->return_code & RSP_LOW6_MASK));
	b[RSP_RI_GEN] = nh == WIRE_NH_RESPONSE ? r->ri_generation : 0;
	put_be24(b + RSP_JOB_ID, r->job_id & U24_MASK);
	switch (nh) {
	case WIRE_NH_RESPONSE:
		put_be16(b + RSP_MESSAGE_ID, r->message_id);
		put_be32(b + RSP_MODIFIED_LENGTH, r->modified_length);
		break;
	case WIRE_NH_RESPONSE_DATA:
		put_be16(b + RSP_MESSAGE_ID, r->message_id);
		put_be16(b + RSP_READ_REQ_MID, r->read_req_message_id);
		put_be16(b + RSP_DATA_PLEN, plen);
		put_be32(b + RSP_DATA_MODIFIED, r->modified_length);
		put_be32(b + RSP_DATA_MSG_OFFSET, r->message_offset);
		break;
	default: /* WIRE_NH_RESPONSE_DATA_SMALL */
		put_be16(b + RSP_SMALL_PLEN, plen);
		put_be32(b + RSP_SMALL_ORIG_PSN, r->original_request_psn);
		break;
	}
}

static void enc_ext(const struct wire_ses *s, int ext, uint8_t *b)
{
	if (ext == WIRE_EXT_RDV) {
		put_be32(b + RDV_EAGER_LEN, s->rdv_eager_len);
		put_be16(b + RDV_PID_ON_FEP, s->rdv_pid_on_fep & SES_U12_MASK);
		put_be16(b + RDV_RESOURCE_INDEX, s->rdv_resource_index & SES_U12_MASK);
		put_be64(b + RDV_OFFSET, s->rdv_offset);
		put_be64(b + RDV_MATCH_BITS, s->rdv_match_bits);
		return;
	}
	b[AMO_OPCODE] = s->amo_opcode;
	b[AMO_DATATYPE] = s->amo_datatype;
	b[AMO_SEM_CTL] = s->amo_sem_ctl;
	b[AMO_SEM_CTL + 1] = 0;
	if (ext == WIRE_EXT_CAS) {
		put_be64(b + AMO_COMPARE, s->amo_compare[0]);
		put_be64(b + AMO_COMPARE + 8, s->amo_compare[1]);
		put_be64(b + AMO_SWAP, s->amo_swap[0]);
		put_be64(b + AMO_SWAP + 8, s->amo_swap[1]);
	}
}

/* The SES header (and extension) @p l names, right after the PDS header at @p b. */
static void enc_ses(const struct wire_pkt *p, const struct layout *l, uint8_t *b)
{
	if (l->ses == 0)
		return;
	if (p->kind == WIRE_KIND_UET && p->trim_len != 0) { /* what a trim left of the SES header */
		memset(b, 0, l->ses);
		return;
	}
	switch (l->nh) {
	case WIRE_NH_REQ_STD:
		enc_ses_std(&p->ses, (uint32_t)l->payload, b);
		break;
	case WIRE_NH_REQ_MEDIUM:
	case WIRE_NH_REQ_SMALL:
		enc_ses_med_small(&p->ses, l->nh == WIRE_NH_REQ_MEDIUM, b);
		break;
	default:
		enc_rsp(&p->rsp, l->nh, (uint32_t)l->payload, b);
		break;
	}
	if (l->ext != 0)
		enc_ext(&p->ses, l->ext_kind, b + l->ses);
}

/* ---- encoder: whole frames ---- */

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

/*
 * Check @p p and lay it out; 0 or -EINVAL. The payload bound is checked before any addition, so no length here
 * can overflow.
 */
static int enc_lengths(const struct wire_pkt *p, struct layout *l)
{
	int rc = layout_of(p, l);

	if (rc != 0)
		return rc;
	if (l->payload > DATA_MAX_PAYLOAD || lay_frame(l) > WIRE_MAX_FRAME)
		return -EINVAL;
	return 0;
}

/* Encode the headers of @p p into @p buf (cap already checked) as @p l lays them out. */
static void enc_hdrs(const struct wire_pkt *p, const struct layout *l, uint8_t *buf)
{
	uint8_t *pds = buf + l->below;

	enc_below(p, buf, lay_frame(l), p->kind != WIRE_KIND_CM && p->kind != WIRE_KIND_ROCE &&
						(p->encap & WIRE_ENCAP_NATIVE));
	if (p->kind == WIRE_KIND_ROCE) {
		wire_roce_enc(p, pds);
		return;
	}
	if (p->kind == WIRE_KIND_CM) {
		enc_cm(&p->cm, pds);
		return;
	}
	enc_pds(p, l, pds);
	enc_ses(p, l, pds + l->pds);
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
 * data frame would carry the bytes of an earlier frame's headers. Other frames are checked by
 * wire_prefilled_fits().
 */
_Static_assert(WIRE_PFC_FRAME_LEN <= DATA_HDRS_LEN, "PFC frame overlaps the data payload");
_Static_assert(HDRS_BELOW_PDS + WIRE_PDS_ACK_CC_LEN + WIRE_SES_RSP_LEN + WIRE_CRC_LEN <= DATA_HDRS_LEN,
	       "ACK headers overlap the data payload");
_Static_assert(HDRS_BELOW_PDS + WIRE_PDS_NACK_LEN + WIRE_CRC_LEN <= DATA_HDRS_LEN,
	       "NACK headers overlap the data payload");
_Static_assert(HDRS_BELOW_PDS + WIRE_PDS_CP_LEN + WIRE_CRC_LEN <= DATA_HDRS_LEN, "CP headers overlap the data payload");
_Static_assert(HDRS_BELOW_PDS + WIRE_CM_LEN <= DATA_HDRS_LEN, "CM headers overlap the data payload");
_Static_assert(HDRS_BELOW_PDS + WIRE_PDS_REQ_CC_LEN <= DATA_HDRS_LEN, "trimmed headers overlap the data payload");

/* Write the headers of @p p (and, in ENC_FRAME, its payload pattern and trailer); the bytes written or -errno. */
static int encode(const struct wire_pkt *p, uint8_t *buf, size_t cap, enum enc_mode mode)
{
	if (p->kind == WIRE_KIND_PFC)
		return enc_pfc(p, buf, cap);
	if (p->kind == WIRE_KIND_RAW) /* headers and payload are one: its own bytes */
		return mode == ENC_PREFILLED ? -EINVAL : wire_raw_encode(p, buf, cap);

	struct layout l;
	int rc = enc_lengths(p, &l);

	if (rc != 0)
		return rc;
	if (mode == ENC_PREFILLED && !wire_prefilled_fits(p))
		return -EINVAL;

	size_t hdrs = lay_hdrs(&l), frame = lay_frame(&l);

	if (cap < (mode == ENC_HDRS ? hdrs : frame))
		return -ENOSPC;
	enc_hdrs(p, &l, buf);
	if (mode == ENC_HDRS)
		return (int)hdrs;
	for (size_t i = 0; mode == ENC_FRAME && i < l.payload; i++)
		buf[hdrs + i] = wire_payload_byte(i);
	if (mode == ENC_FRAME && p->kind == WIRE_KIND_ROCE && l.payload > p->payload_len) /* RoCE pad bytes: zeros */
		memset(buf + hdrs + p->payload_len, 0, l.payload - p->payload_len);
	if (l.crc != 0 && p->kind == WIRE_KIND_ROCE)
		wire_roce_icrc_put(buf, frame);
	else if (l.crc != 0) { /* over the UET bytes: from the PDS (or TSS) header to the end of the payload; or from
				  the IPv4 source address (CrcCoverage refprov) */
		size_t from = p->encap & WIRE_ENCAP_CRC_IP ? WIRE_ETH_LEN + WIRE_IPV4_CRC_FROM : l.below;
		put_be32(buf + frame - WIRE_CRC_LEN, wire_crc32c(buf + from, frame - WIRE_CRC_LEN - from));
	}
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

_Static_assert(DATA_HDRS_LEN <= WIRE_HDRS_MAX && WIRE_PFC_FRAME_LEN <= WIRE_HDRS_MAX, "WIRE_HDRS_MAX too small");

void wire_payload_fill(uint8_t *buf, size_t len)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = wire_payload_byte(i);
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
