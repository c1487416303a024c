/* The receiver's order tracking: CACK_PSN, the out-of-order PSNs past it and the SACK blocks the ACKs report.
 *
 * A PDC keeps only rcv_next while packets arrive in order. Out-of-order PSNs are bits in chunks of 256 PSNs taken
 * from a NIC-wide pool, on the PDC's list in PSN order from rcv_next, so a PDC pays for the spread of its
 * out-of-order packets, not for its window. PSNs are tracked up to NIC_RCV_WIN past rcv_next: the ACK names its PSN
 * and its SACK base as signed 16-bit offsets from CACK_PSN (docs/design-notes.md, The NIC).
 */
#include "nic_pvt.h"

#define CHUNK_PSNS 256u
#define CHUNK_MASK (~(CHUNK_PSNS - 1))

/* Is @p a before @p b in the PDC's PSN order (circular, from rcv_next)? */
static inline bool psn_before(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) < 0;
}

static struct nic_rcv_chunk *chunk_of(const struct nic_pdc *pdc, uint32_t psn)
{
	uint32_t base = psn & CHUNK_MASK;

	for (struct nic_rcv_chunk *c = pdc->ooo; c != NULL && !psn_before(base, c->base); c = c->next)
		if (c->base == base)
			return c;
	return NULL;
}

static bool rcv_bit(const struct nic_pdc *pdc, uint32_t psn)
{
	const struct nic_rcv_chunk *c = chunk_of(pdc, psn);
	uint32_t i = psn - (psn & CHUNK_MASK);

	return c != NULL && (c->w[i / 64] >> (i % 64)) & 1;
}

/* Record out-of-order @p psn; false when the chunk pool is empty. */
static bool rcv_set(struct nic *nic, struct nic_pdc *pdc, uint32_t psn)
{
	uint32_t base = psn & CHUNK_MASK, i = psn - base;
	struct nic_rcv_chunk **pp = &pdc->ooo;

	while (*pp != NULL && psn_before((*pp)->base, base))
		pp = &(*pp)->next;
	if (*pp == NULL || (*pp)->base != base) {
		struct nic_rcv_chunk *c = emu_pool_get(nic->chunk_pool);
		if (c == NULL)
			return false;
		*c = (struct nic_rcv_chunk){ .next = *pp, .base = base };
		*pp = c;
	}
	(*pp)->w[i / 64] |= 1ULL << (i % 64);
	(*pp)->n++;
	return true;
}

/* rcv_next has moved on by one: while the PSN it names has already arrived, clear it and move on past it; chunks
 * left empty return to the pool. */
static void rcv_advance(struct nic *nic, struct nic_pdc *pdc)
{
	struct nic_rcv_chunk *c;

	while ((c = pdc->ooo) != NULL) {
		uint32_t i = pdc->rcv_next - c->base;
		if (c->n > 0 && psn_before(pdc->rcv_next, c->base))
			return; /* the next out-of-order PSN is further on */
		if (c->n > 0 && i < CHUNK_PSNS) {
			if (!((c->w[i / 64] >> (i % 64)) & 1))
				return;
			c->w[i / 64] &= ~(1ULL << (i % 64));
			c->n--;
			pdc->rcv_next++;
			pdc->ooo_count--;
			if (c->n > 0)
				continue;
		}
		pdc->ooo = c->next; /* empty (or wholly behind rcv_next) */
		emu_pool_put(nic->chunk_pool, c);
	}
}

void nic_rcv_free(struct nic *nic, struct nic_pdc *pdc)
{
	while (pdc->ooo != NULL) {
		struct nic_rcv_chunk *c = pdc->ooo;
		pdc->ooo = c->next;
		emu_pool_put(nic->chunk_pool, c);
	}
	pdc->ooo_count = 0;
}

uint32_t nic_rcv_forget_after(struct nic *nic, struct nic_pdc *pdc, uint32_t psn)
{
	struct nic_rcv_chunk **pp = &pdc->ooo;
	uint32_t gone = 0;

	while (*pp != NULL) {
		struct nic_rcv_chunk *c = *pp;

		/* the chunk's PSNs after @p psn: all of them, some, or none (a chunk wholly at or before it) */
		uint32_t from = psn_before(psn, c->base) ? 0 : psn - c->base + 1;

		for (uint32_t i = from; i < CHUNK_PSNS && c->n > 0; i++) {
			uint64_t bit = 1ULL << (i % 64);
			if (c->w[i / 64] & bit) {
				c->w[i / 64] &= ~bit;
				c->n--;
				gone++;
			}
		}
		if (c->n > 0) {
			pp = &c->next;
			continue;
		}
		*pp = c->next;
		emu_pool_put(nic->chunk_pool, c);
	}
	pdc->ooo_count = (uint16_t)(pdc->ooo_count - gone);
	return gone;
}

int nic_rcv_track(struct nic *nic, struct nic_pdc *pdc, uint32_t psn)
{
	int32_t d = (int32_t)(psn - pdc->rcv_next);

	if (d < 0 || (d > 0 && rcv_bit(pdc, psn))) {
		nic->c[NIC_C_DUP_EVENTS]++;
		return NIC_TRACK_DUP;
	}
	if (d == 0) {
		pdc->rcv_next++;
		rcv_advance(nic, pdc);
		return NIC_TRACK_NEW;
	}
	if (!rcv_set(nic, pdc, psn))
		return NIC_TRACK_NO_ROOM;
	pdc->ooo_count++;
	nic->c[NIC_C_OOO_EVENTS]++;
	nic_gauge_max(&nic->g.max_ooo_on_flow, &nic->g.ivl_max_ooo_on_flow, pdc->ooo_count);
	return NIC_TRACK_NEW;
}

/* The 64 bits of the chunk word holding PSN @p q (a multiple of 64), 0 when no chunk holds it. */
static uint64_t word_at(const struct nic_pdc *pdc, uint32_t q)
{
	const struct nic_rcv_chunk *c = chunk_of(pdc, q);

	return c != NULL ? c->w[(q - c->base) / 64] : 0;
}

/* The 64-PSN bitmap from PSN @p s: bit N set when s + N has arrived. Two words shifted together, no bit loop. */
static uint64_t bitmap_at(const struct nic_pdc *pdc, uint32_t s)
{
	uint32_t sh = s % 64, q = s - sh;
	uint64_t lo = word_at(pdc, q) >> sh;

	return sh == 0 ? lo : lo | word_at(pdc, q + 64) << (64 - sh);
}

/* Offset from rcv_next of the first out-of-order PSN at or after @p from, or -1 when there is none. */
static int32_t next_set(const struct nic_pdc *pdc, uint32_t from)
{
	for (const struct nic_rcv_chunk *c = pdc->ooo; c != NULL; c = c->next) {
		if (!psn_before(from, c->base + CHUNK_PSNS))
			continue;
		uint32_t i = psn_before(from, c->base) ? 0 : from - c->base;
		for (uint32_t w = i / 64; w < CHUNK_PSNS / 64; w++) {
			uint64_t x = c->w[w] & (w == i / 64 ? ~0ULL << (i % 64) : ~0ULL);
			if (x != 0)
				return (int32_t)(c->base + 64 * w + (uint32_t)__builtin_ctzll(x) - pdc->rcv_next);
		}
	}
	return -1;
}

uint32_t nic_rcv_sack(struct nic_pdc *pdc, uint64_t *bm)
{
	uint64_t first = bitmap_at(pdc, pdc->rcv_next);

	/* every out-of-order packet held is in the first block: the common case, one block */
	if ((uint32_t)__builtin_popcountll(first) == pdc->ooo_count) {
		pdc->sack_block = 0;
		*bm = first;
		return 0;
	}
	int32_t d = next_set(pdc, pdc->rcv_next + 64 * (uint32_t)pdc->sack_block);
	if (d < 0)
		d = next_set(pdc, pdc->rcv_next); /* past the last block: wrap to the first non-empty one */
	uint32_t blk = d < 0 ? 0 : (uint32_t)d / 64;

	pdc->sack_block = (uint16_t)(blk + 1);
	*bm = bitmap_at(pdc, pdc->rcv_next + 64 * blk);
	return blk;
}
