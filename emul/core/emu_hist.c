/* Log2 histogram: bucket bounds and nearest-rank percentiles. */
#include "emu_hist.h"

uint64_t emu_hist_bucket_low(unsigned b)
{
	if (b < EMU_HIST_SUB)
		return b;
	unsigned e = b / EMU_HIST_SUB + EMU_HIST_SUB_BITS - 1, m = b % EMU_HIST_SUB;

	return (uint64_t)(EMU_HIST_SUB + m) << (e - EMU_HIST_SUB_BITS);
}

uint64_t emu_hist_bucket_high(unsigned b)
{
	return b + 1 < EMU_HIST_BUCKETS ? emu_hist_bucket_low(b + 1) - 1 : UINT64_MAX;
}

uint64_t emu_hist_pct(const struct emu_hist *h, uint32_t p)
{
	if (h->count == 0)
		return 0;
	if (p > 100)
		p = 100;
	/* rank = ceil(p x count / 100), in 128 bits so no count overflows it */
	uint64_t rank = (uint64_t)(((unsigned __int128)h->count * p + 99) / 100), seen = 0;

	if (rank == 0)
		rank = 1;
	for (unsigned b = 0; b < EMU_HIST_BUCKETS; b++) {
		seen += h->bucket[b];
		if (seen >= rank) {
			uint64_t hi = emu_hist_bucket_high(b);
			return hi < h->max ? hi : h->max;
		}
	}
	return h->max;
}

void emu_hist_merge(struct emu_hist *dst, const struct emu_hist *src)
{
	for (unsigned b = 0; b < EMU_HIST_BUCKETS; b++)
		dst->bucket[b] += src->bucket[b];
	dst->count += src->count;
	if (src->max > dst->max)
		dst->max = src->max;
}
