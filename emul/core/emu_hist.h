/* A histogram of unsigned integers in log2 buckets, each power of two split into 8 equal steps: integer
 * arithmetic only, a fixed 4 KB, so adding a value is cheap enough for a poll loop. Percentiles are nearest-rank,
 * as rec_pct() computes them over sorted values, to within one step (12.5 %) and never above the exact maximum. */
#ifndef EMU_HIST_H
#define EMU_HIST_H

#include <stdint.h>

#define EMU_HIST_SUB_BITS 3                       /* 2^3 = 8 steps per power of two */
#define EMU_HIST_SUB (1u << EMU_HIST_SUB_BITS)
/* Values 0..7 have a bucket each; then 8 buckets for each exponent 3..63. */
#define EMU_HIST_BUCKETS ((64 - EMU_HIST_SUB_BITS + 1) * EMU_HIST_SUB)

struct emu_hist {
	uint64_t count;                     /* values added */
	uint64_t max;                       /* the largest, exact */
	uint64_t bucket[EMU_HIST_BUCKETS];
};

/** The bucket of @p v: v itself below 8, else 8 x (exponent - 2) + the 3 bits after the leading one. */
static inline unsigned emu_hist_bucket(uint64_t v)
{
	if (v < EMU_HIST_SUB)
		return (unsigned)v;
	unsigned e = 63u - (unsigned)__builtin_clzll(v); /* >= EMU_HIST_SUB_BITS */

	unsigned step = (unsigned)(v >> (e - EMU_HIST_SUB_BITS)) & (EMU_HIST_SUB - 1);

	return (e - EMU_HIST_SUB_BITS + 1) * EMU_HIST_SUB + step;
}

/** Count @p v in @p h. */
static inline void emu_hist_add(struct emu_hist *h, uint64_t v)
{
	h->bucket[emu_hist_bucket(v)]++;
	h->count++;
	if (v > h->max)
		h->max = v;
}

/** Add the values counted in @p src to @p dst (the histograms of several loops, merged). */
void emu_hist_merge(struct emu_hist *dst, const struct emu_hist *src);

/** The smallest value of bucket @p b (b < EMU_HIST_BUCKETS). */
uint64_t emu_hist_bucket_low(unsigned b);

/** The largest value of bucket @p b (b < EMU_HIST_BUCKETS). */
uint64_t emu_hist_bucket_high(unsigned b);

/**
 * Nearest-rank percentile @p p (0 to 100) of the values in @p h: the largest value of the bucket that holds the
 * value of rank ceil(p x count / 100) (at least 1), capped at the exact maximum. So p100 is the maximum, and a
 * value below 8 is exact. 0 when @p h is empty.
 */
uint64_t emu_hist_pct(const struct emu_hist *h, uint32_t p);

#endif /* EMU_HIST_H */
