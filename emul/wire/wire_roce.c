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
#define BTH_PAD_SHIFT 4 /* PadCnt: bits 5-4 of the flags byte */
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

uint32_t wire_roce_pad(const struct wire_pkt *p)
{
	if (!(p->encap & WIRE_ENCAP_ICRC) || !wire_roce_is_data(p->roce.opcode))
		return 0;
	return (4 - (p->payload_len & 3)) & 3;
}

void wire_roce_enc(const struct wire_pkt *p, uint8_t *b)
{
	const struct wire_roce *r = &p->roce;
	size_t hl = wire_roce_hdr_len(p);

	memset(b, 0, hl);
	b[BTH_OPCODE] = r->opcode;
	/* M 0, TVer 0; PadCnt: the bytes that pad the payload to a multiple of 4 (with the ICRC only) */
	b[BTH_FLAGS] = (uint8_t)((r->se ? BTH_F_SE : 0) | wire_roce_pad(p) << BTH_PAD_SHIFT);
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

/* CRC-32 of IEEE 802.3, reflected polynomial 0xEDB88320: entry i is the CRC of byte i (a const table, computed
 * once when this file was written: for each i, eight shifts of i, xoring the polynomial on a one bit). */
static const uint32_t crc32_tab[256] = {
	0x00000000u, 0x77073096u, 0xee0e612cu, 0x990951bau, 0x076dc419u, 0x706af48fu,
	0xe963a535u, 0x9e6495a3u, 0x0edb8832u, 0x79dcb8a4u, 0xe0d5e91eu, 0x97d2d988u,
	0x09b64c2bu, 0x7eb17cbdu, 0xe7b82d07u, 0x90bf1d91u, 0x1db71064u, 0x6ab020f2u,
	0xf3b97148u, 0x84be41deu, 0x1adad47du, 0x6ddde4ebu, 0xf4d4b551u, 0x83d385c7u,
	0x136c9856u, 0x646ba8c0u, 0xfd62f97au, 0x8a65c9ecu, 0x14015c4fu, 0x63066cd9u,
	0xfa0f3d63u, 0x8d080df5u, 0x3b6e20c8u, 0x4c69105eu, 0xd56041e4u, 0xa2677172u,
	0x3c03e4d1u, 0x4b04d447u, 0xd20d85fdu, 0xa50ab56bu, 0x35b5a8fau, 0x42b2986cu,
	0xdbbbc9d6u, 0xacbcf940u, 0x32d86ce3u, 0x45df5c75u, 0xdcd60dcfu, 0xabd13d59u,
	0x26d930acu, 0x51de003au, 0xc8d75180u, 0xbfd06116u, 0x21b4f4b5u, 0x56b3c423u,
	0xcfba9599u, 0xb8bda50fu, 0x2802b89eu, 0x5f058808u, 0xc60cd9b2u, 0xb10be924u,
	0x2f6f7c87u, 0x58684c11u, 0xc1611dabu, 0xb6662d3du, 0x76dc4190u, 0x01db7106u,
	0x98d220bcu, 0xefd5102au, 0x71b18589u, 0x06b6b51fu, 0x9fbfe4a5u, 0xe8b8d433u,
	0x7807c9a2u, 0x0f00f934u, 0x9609a88eu, 0xe10e9818u, 0x7f6a0dbbu, 0x086d3d2du,
	0x91646c97u, 0xe6635c01u, 0x6b6b51f4u, 0x1c6c6162u, 0x856530d8u, 0xf262004eu,
	0x6c0695edu, 0x1b01a57bu, 0x8208f4c1u, 0xf50fc457u, 0x65b0d9c6u, 0x12b7e950u,
	0x8bbeb8eau, 0xfcb9887cu, 0x62dd1ddfu, 0x15da2d49u, 0x8cd37cf3u, 0xfbd44c65u,
	0x4db26158u, 0x3ab551ceu, 0xa3bc0074u, 0xd4bb30e2u, 0x4adfa541u, 0x3dd895d7u,
	0xa4d1c46du, 0xd3d6f4fbu, 0x4369e96au, 0x346ed9fcu, 0xad678846u, 0xda60b8d0u,
	0x44042d73u, 0x33031de5u, 0xaa0a4c5fu, 0xdd0d7cc9u, 0x5005713cu, 0x270241aau,
	0xbe0b1010u, 0xc90c2086u, 0x5768b525u, 0x206f85b3u, 0xb966d409u, 0xce61e49fu,
	0x5edef90eu, 0x29d9c998u, 0xb0d09822u, 0xc7d7a8b4u, 0x59b33d17u, 0x2eb40d81u,
	0xb7bd5c3bu, 0xc0ba6cadu, 0xedb88320u, 0x9abfb3b6u, 0x03b6e20cu, 0x74b1d29au,
	0xead54739u, 0x9dd277afu, 0x04db2615u, 0x73dc1683u, 0xe3630b12u, 0x94643b84u,
	0x0d6d6a3eu, 0x7a6a5aa8u, 0xe40ecf0bu, 0x9309ff9du, 0x0a00ae27u, 0x7d079eb1u,
	0xf00f9344u, 0x8708a3d2u, 0x1e01f268u, 0x6906c2feu, 0xf762575du, 0x806567cbu,
	0x196c3671u, 0x6e6b06e7u, 0xfed41b76u, 0x89d32be0u, 0x10da7a5au, 0x67dd4accu,
	0xf9b9df6fu, 0x8ebeeff9u, 0x17b7be43u, 0x60b08ed5u, 0xd6d6a3e8u, 0xa1d1937eu,
	0x38d8c2c4u, 0x4fdff252u, 0xd1bb67f1u, 0xa6bc5767u, 0x3fb506ddu, 0x48b2364bu,
	0xd80d2bdau, 0xaf0a1b4cu, 0x36034af6u, 0x41047a60u, 0xdf60efc3u, 0xa867df55u,
	0x316e8eefu, 0x4669be79u, 0xcb61b38cu, 0xbc66831au, 0x256fd2a0u, 0x5268e236u,
	0xcc0c7795u, 0xbb0b4703u, 0x220216b9u, 0x5505262fu, 0xc5ba3bbeu, 0xb2bd0b28u,
	0x2bb45a92u, 0x5cb36a04u, 0xc2d7ffa7u, 0xb5d0cf31u, 0x2cd99e8bu, 0x5bdeae1du,
	0x9b64c2b0u, 0xec63f226u, 0x756aa39cu, 0x026d930au, 0x9c0906a9u, 0xeb0e363fu,
	0x72076785u, 0x05005713u, 0x95bf4a82u, 0xe2b87a14u, 0x7bb12baeu, 0x0cb61b38u,
	0x92d28e9bu, 0xe5d5be0du, 0x7cdcefb7u, 0x0bdbdf21u, 0x86d3d2d4u, 0xf1d4e242u,
	0x68ddb3f8u, 0x1fda836eu, 0x81be16cdu, 0xf6b9265bu, 0x6fb077e1u, 0x18b74777u,
	0x88085ae6u, 0xff0f6a70u, 0x66063bcau, 0x11010b5cu, 0x8f659effu, 0xf862ae69u,
	0x616bffd3u, 0x166ccf45u, 0xa00ae278u, 0xd70dd2eeu, 0x4e048354u, 0x3903b3c2u,
	0xa7672661u, 0xd06016f7u, 0x4969474du, 0x3e6e77dbu, 0xaed16a4au, 0xd9d65adcu,
	0x40df0b66u, 0x37d83bf0u, 0xa9bcae53u, 0xdebb9ec5u, 0x47b2cf7fu, 0x30b5ffe9u,
	0xbdbdf21cu, 0xcabac28au, 0x53b39330u, 0x24b4a3a6u, 0xbad03605u, 0xcdd70693u,
	0x54de5729u, 0x23d967bfu, 0xb3667a2eu, 0xc4614ab8u, 0x5d681b02u, 0x2a6f2b94u,
	0xb40bbe37u, 0xc30c8ea1u, 0x5a05df1bu, 0x2d02ef8du,
};

/* The running CRC, without the initial or final inversion: what the ICRC is built from. */
static uint32_t crc32_run(uint32_t crc, const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		crc = crc32_tab[(crc ^ b[i]) & 0xff] ^ (crc >> 8);
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
	uint32_t pad = (uint32_t)(frame[off + BTH_FLAGS] >> BTH_PAD_SHIFT) & 3;

	off += (size_t)rc;
	rc = dec_after_bth(frame + off, end - off, out);
	if (rc < 0 || !wire_roce_is_data(out->roce.opcode))
		return rc;
	if (pad > out->payload_len) /* PadCnt names more bytes than the payload has */
		return -WIRE_R_BAD_ROCE_LEN;
	out->payload_len -= pad;
	return 0;
}
