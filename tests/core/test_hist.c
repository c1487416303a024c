/* Tests of the log2 histogram (emu_hist.h): bucket bounds, and percentiles checked against rec_pct()'s exact
 * nearest rank over the sorted values. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "emu_hist.h"
#include "emu_rng.h"
#include "rec.h"

/* Every bucket's bounds map back to it, buckets tile 0..UINT64_MAX without gaps, and each spans at most 1/8 of
 * its low bound (exact below 8). */
Test(emu_hist, buckets_tile_the_integers)
{
	cr_assert_eq(emu_hist_bucket_low(0), 0);
	cr_assert_eq(emu_hist_bucket_high(EMU_HIST_BUCKETS - 1), UINT64_MAX);
	cr_assert_eq(emu_hist_bucket(UINT64_MAX), EMU_HIST_BUCKETS - 1);
	for (unsigned b = 0; b < EMU_HIST_BUCKETS; b++) {
		uint64_t lo = emu_hist_bucket_low(b), hi = emu_hist_bucket_high(b);

		cr_assert_eq(emu_hist_bucket(lo), b, "bucket %u low %llu", b, (unsigned long long)lo);
		cr_assert_eq(emu_hist_bucket(hi), b, "bucket %u high %llu", b, (unsigned long long)hi);
		if (b + 1 < EMU_HIST_BUCKETS)
			cr_assert_eq(hi + 1, emu_hist_bucket_low(b + 1), "gap after bucket %u", b);
		if (lo < 8)
			cr_assert_eq(lo, hi);
		else
			cr_assert_leq(hi - lo + 1, lo / 8, "bucket %u wider than 1/8 of %llu", b, (unsigned long long)lo);
	}
	/* worked examples: 1,000 ns = 0b1111101000: exponent 9, the 3 bits after the leading one 111 -> [960, 1023] */
	cr_expect_eq(emu_hist_bucket_low(emu_hist_bucket(1000)), 960);
	cr_expect_eq(emu_hist_bucket_high(emu_hist_bucket(1000)), 1023);
	cr_expect_eq(emu_hist_bucket(7), 7);
	cr_expect_eq(emu_hist_bucket(8), 8);
	cr_expect_eq(emu_hist_bucket(16), 16);
	cr_expect_eq(emu_hist_bucket(17), 16);
}

Test(emu_hist, empty_and_small_values_are_exact)
{
	struct emu_hist h;

	memset(&h, 0, sizeof(h));
	cr_expect_eq(emu_hist_pct(&h, 50), 0);
	cr_expect_eq(emu_hist_pct(&h, 100), 0);
	for (uint64_t v = 0; v < 8; v++)
		emu_hist_add(&h, v);
	cr_expect_eq(h.count, 8);
	cr_expect_eq(h.max, 7);
	cr_expect_eq(emu_hist_pct(&h, 0), 0);   /* rank 1 */
	cr_expect_eq(emu_hist_pct(&h, 50), 3);  /* rank 4 of 0..7 */
	cr_expect_eq(emu_hist_pct(&h, 99), 7);  /* rank ceil(7.92) = 8 */
	cr_expect_eq(emu_hist_pct(&h, 100), 7);
	cr_expect_eq(emu_hist_pct(&h, 1000), 7); /* above 100: the maximum */
}

/* 1..100: p50 is rank 50, in bucket [48, 51], reported as its top 51; p99 rank 99 in [96, 103] capped at the
 * maximum 100; p100 the maximum. */
Test(emu_hist, one_to_a_hundred)
{
	struct emu_hist h;

	memset(&h, 0, sizeof(h));
	for (uint64_t v = 1; v <= 100; v++)
		emu_hist_add(&h, v);
	cr_expect_eq(emu_hist_pct(&h, 50), 51);
	cr_expect_eq(emu_hist_pct(&h, 99), 100);
	cr_expect_eq(emu_hist_pct(&h, 100), 100);
	cr_expect_eq(emu_hist_pct(&h, 1), 1);
}

/* Random values over many magnitudes: each percentile lies in the same bucket as the exact nearest-rank value, at
 * or above it, and never above the maximum. */
Test(emu_hist, percentiles_bound_the_exact_nearest_rank)
{
	static const uint32_t ps[] = { 0, 1, 10, 50, 90, 99, 100 };
	enum { N = 20000 };
	uint64_t *v = malloc(N * sizeof(*v));
	struct emu_rng rng;
	struct emu_hist h;

	cr_assert_not_null(v);
	memset(&h, 0, sizeof(h));
	emu_rng_init(&rng, 18760, 1);
	for (int i = 0; i < N; i++) {
		uint64_t x = emu_rng_next(&rng);
		v[i] = x >> (x % 64); /* every magnitude from 1 to 2^64 */
		emu_hist_add(&h, v[i]);
	}
	rec_sort_u64(v, N);
	cr_assert_eq(h.max, v[N - 1]);
	for (size_t k = 0; k < sizeof(ps) / sizeof(ps[0]); k++) {
		uint64_t exact = rec_pct(v, N, ps[k]), got = emu_hist_pct(&h, ps[k]);

		cr_expect_eq(emu_hist_bucket(got), emu_hist_bucket(exact), "p%u: %llu vs exact %llu", ps[k],
			     (unsigned long long)got, (unsigned long long)exact);
		cr_expect_geq(got, exact, "p%u", ps[k]);
		cr_expect_leq(got, h.max, "p%u", ps[k]);
	}
	free(v);
}
