/* RoCEv2 frames after the UDP header: BTH, RETH, AETH, the CNP, the roce-nic pages' 64 B of control padding and
 * the invariant CRC (InfiniBand Architecture Specification vol. 1 chapter 9 and Annex A17). Encoding and a cursor-
 * and-length decoder; the Ethernet, IPv4 and UDP layers are wire.c's and wire_dec.c's. */
#include "wire_pvt.h"

#include <string.h>

/* BTH (9.2): opcode(8) | SE(1) M(1) PadCnt(2) TVer(4) | P_Key(16) | resv8 | DestQP(24) | A(1) resv7 | PSN(24). */
#define BTH_OPCODE 0
#define BTH_FLAGS 1
#define BTH_PKEY 2
#define BTH_RSVD8 4
#define BTH_DQPN 4   /* the 32-bit word whose low 24 bits are DestQP */
#define BTH_APSN 8   /* the 32-bit word: A in bit 31, PSN in bits 23..0 */
#define BTH_F_SE 0x80
#define BTH_A 0x80000000u
#define BTH_24 0x00ffffffu
/* RETH (9.3.3): VA(64) R_Key(32) DMA length(32). AETH (9.3.5): syndrome(8) MSN(24). */
#define RETH_VA 0
#define RETH_RKEY 8
#define RETH_LEN 12
#define AETH_SYN 0
#define AETH_MSN 0

static bool has_reth(uint8_t op, uint8_t encap)
{
	return (encap & WIRE_ENCAP_RETH) && (op == WIRE_ROCE_WRITE_FIRST || op == WIRE_ROCE_WRITE_ONLY);
}

size_t wire_roce_hdr_len(const struct wire_pkt *p)
{
	uint8_t op = p->roce.opcode;

	if (op == WIRE_ROCE_ACK)
		return WIRE_BTH_LEN + WIRE_AETH_LEN + WIRE_ROCE_CTL_PAD;
	if (op == WIRE_ROCE_CNP)
		return WIRE_BTH_LEN + WIRE_ROCE_CTL_PAD;
	if (!wire_roce_is_data(op))
		return 0;
	return WIRE_BTH_LEN + (has_reth(op, p->encap) ? WIRE_RETH_LEN : 0);
}

void wire_roce_enc(const struct wire_pkt *p, uint8_t *b)
{
	const struct wire_roce *r = &p->roce;
	size_t hl = wire_roce_hdr_len(p);

	memset(b, 0, hl);
	b[BTH_OPCODE] = r->opcode;
	b[BTH_FLAGS] = r->se ? BTH_F_SE : 0; /* M 0, PadCnt 0, TVer 0 */
	put_be16(b + BTH_PKEY, r->pkey);
	put_be32(b + BTH_DQPN, r->dqpn & BTH_24);
	put_be32(b + BTH_APSN, (r->ack_req ? BTH_A : 0) | (r->psn & BTH_24));
	b += WIRE_BTH_LEN;
	if (r->opcode == WIRE_ROCE_ACK) {
		put_be32(b + AETH_MSN, r->msn & BTH_24);
		b[AETH_SYN] = r->syndrome;
	} else if (has_reth(r->opcode, p->encap)) {
		put_be64(b + RETH_VA, r->va);
		put_be32(b + RETH_RKEY, r->rkey);
		put_be32(b + RETH_LEN, r->dma_len);
	}
}

/* CRC-32 of IEEE 802.3 (reflected polynomial 0xEDB88320), without the initial or final inversion: the running
 * value the ICRC is built from. */
static uint32_t crc32_run(uint32_t crc, const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		crc ^= b[i];
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
	}
	return crc;
}

uint32_t wire_roce_icrc(const uint8_t *frame, size_t len)
{
	static const uint8_t lrh[8] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	uint8_t h[WIRE_IPV4_LEN + WIRE_UDP_LEN + WIRE_BTH_LEN];
	size_t hl = sizeof(h), start = WIRE_ETH_LEN;
	uint32_t crc;

	if (len < start + hl + WIRE_ICRC_LEN)
		return 0;
	memcpy(h, frame + start, hl);
	h[IP_TOS] = 0xff;
	h[IP_TTL] = 0xff;
	h[IP_CSUM] = h[IP_CSUM + 1] = 0xff;
	h[WIRE_IPV4_LEN + UDP_CSUM] = h[WIRE_IPV4_LEN + UDP_CSUM + 1] = 0xff;
	h[WIRE_IPV4_LEN + WIRE_UDP_LEN + BTH_RSVD8] = 0xff;
	crc = crc32_run(0xffffffffu, lrh, sizeof(lrh));
	crc = crc32_run(crc, h, hl);
	crc = crc32_run(crc, frame + start + hl, len - start - hl - WIRE_ICRC_LEN);
	return ~crc;
}

void wire_roce_icrc_put(uint8_t *frame, size_t len)
{
	uint32_t c = wire_roce_icrc(frame, len);
	uint8_t *t = frame + len - WIRE_ICRC_LEN;

	for (int i = 0; i < 4; i++) /* least significant byte first, as the Ethernet FCS */
		t[i] = (uint8_t)(c >> (8 * i));
}

static bool icrc_ok(const uint8_t *frame, size_t len)
{
	uint32_t c = wire_roce_icrc(frame, len);
	const uint8_t *t = frame + len - WIRE_ICRC_LEN;

	return t[0] == (uint8_t)c && t[1] == (uint8_t)(c >> 8) && t[2] == (uint8_t)(c >> 16) &&
	       t[3] == (uint8_t)(c >> 24);
}

/* The BTH at @p b, @p n bytes left: its fields into out->roce; the bytes read or a negative reason. */
static int dec_bth(const uint8_t *b, size_t n, struct wire_pkt *out)
{
	struct wire_roce *r = &out->roce;

	if (n < WIRE_BTH_LEN)
		return -WIRE_R_SHORT_BTH;
	r->opcode = b[BTH_OPCODE];
	if (!wire_roce_is_data(r->opcode) && r->opcode != WIRE_ROCE_ACK && r->opcode != WIRE_ROCE_CNP)
		return -WIRE_R_BAD_ROCE_OPCODE;
	r->se = (b[BTH_FLAGS] & BTH_F_SE) != 0;
	r->pkey = get_be16(b + BTH_PKEY);
	r->dqpn = get_be32(b + BTH_DQPN) & BTH_24;
	r->ack_req = (get_be32(b + BTH_APSN) & BTH_A) != 0;
	r->psn = get_be32(b + BTH_APSN) & BTH_24;
	return WIRE_BTH_LEN;
}

/* What follows the BTH (@p n bytes, the ICRC already cut): RETH or AETH, control padding, payload. */
static int dec_after_bth(const uint8_t *b, size_t n, struct wire_pkt *out)
{
	struct wire_roce *r = &out->roce;

	if (r->opcode == WIRE_ROCE_ACK) {
		if (n < WIRE_AETH_LEN)
			return -WIRE_R_SHORT_ROCE_EXT;
		r->syndrome = b[AETH_SYN];
		r->msn = get_be32(b + AETH_MSN) & BTH_24;
		return n - WIRE_AETH_LEN == WIRE_ROCE_CTL_PAD ? 0 : -WIRE_R_BAD_ROCE_LEN;
	}
	if (r->opcode == WIRE_ROCE_CNP)
		return n == WIRE_ROCE_CTL_PAD ? 0 : -WIRE_R_BAD_ROCE_LEN;
	if (has_reth(r->opcode, out->encap)) {
		if (n < WIRE_RETH_LEN)
			return -WIRE_R_SHORT_ROCE_EXT;
		r->va = get_be64(b + RETH_VA);
		r->rkey = get_be32(b + RETH_RKEY);
		r->dma_len = get_be32(b + RETH_LEN);
		n -= WIRE_RETH_LEN;
	}
	out->payload_len = (uint32_t)n;
	return 0;
}

int wire_roce_dec(const uint8_t *frame, size_t end, size_t off, const struct wire_rx_cfg *cfg, struct wire_pkt *out)
{
	int rc;

	out->kind = WIRE_KIND_ROCE;
	out->encap = (uint8_t)((cfg->roce_icrc ? WIRE_ENCAP_ICRC : 0) | (cfg->roce_reth ? WIRE_ENCAP_RETH : 0));
	if (cfg->roce_icrc) {
		if (end - off < WIRE_BTH_LEN + WIRE_ICRC_LEN)
			return -WIRE_R_SHORT_BTH;
		if (!icrc_ok(frame, end))
			return -WIRE_R_BAD_ICRC;
		end -= WIRE_ICRC_LEN;
	}
	rc = dec_bth(frame + off, end - off, out);
	if (rc < 0)
		return rc;
	off += (size_t)rc;
	return dec_after_bth(frame + off, end - off, out);
}
