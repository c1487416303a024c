/* Tests of the SPSC record ring (run_spsc.h): order, contents, wrap with padding, full and oversized refusals,
 * and a producer and a consumer on two threads handing over 200,000 records of random sizes. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "emu_rng.h"
#include "run_spsc.h"

static void fill(uint8_t *p, uint32_t len, uint32_t seq)
{
	for (uint32_t i = 0; i < len; i++)
		p[i] = (uint8_t)(seq * 31 + i);
}

static bool check(const uint8_t *p, uint32_t len, uint32_t seq)
{
	for (uint32_t i = 0; i < len; i++)
		if (p[i] != (uint8_t)(seq * 31 + i))
			return false;
	return true;
}

Test(run_spsc, records_come_out_in_order_whole)
{
	struct run_spsc *r = run_spsc_create(1000);
	uint32_t len;

	cr_assert_not_null(r);
	cr_assert_eq(run_spsc_size(r), 1024);
	cr_assert_null(run_spsc_peek(r, &len));
	for (uint32_t s = 0; s < 3; s++) {
		uint8_t *p = run_spsc_reserve(r, 10 + s);
		cr_assert_not_null(p);
		cr_assert_eq((uintptr_t)p % 8, 0);
		fill(p, 10 + s, s);
		run_spsc_commit(r);
	}
	for (uint32_t s = 0; s < 3; s++) {
		const uint8_t *p = run_spsc_peek(r, &len);
		cr_assert_not_null(p);
		cr_assert_eq(len, 10 + s);
		cr_assert(check(p, len, s));
		run_spsc_release(r);
	}
	cr_assert_null(run_spsc_peek(r, &len));
	run_spsc_destroy(r);
}

/* 1,024 B: records of 200 B take 208 + 8 = 216 B; four fit (864), a fifth does not; after two are read the next
 * goes round the end (pad) and comes out whole. A record above a quarter of the ring is refused. */
Test(run_spsc, full_refused_then_wraps)
{
	struct run_spsc *r = run_spsc_create(1024);
	uint32_t len, seq = 0, got = 0;

	cr_assert_null(run_spsc_reserve(r, 257));
	for (int i = 0; i < 4; i++) {
		uint8_t *p = run_spsc_reserve(r, 200);
		cr_assert_not_null(p, "record %d", i);
		fill(p, 200, seq++);
		run_spsc_commit(r);
	}
	cr_assert_null(run_spsc_reserve(r, 200), "a fifth record fits in no free space");
	for (int round = 0; round < 20; round++) {
		const uint8_t *q = run_spsc_peek(r, &len);
		cr_assert_not_null(q);
		cr_assert_eq(len, 200);
		cr_assert(check(q, len, got++), "record %u", got - 1);
		run_spsc_release(r);
		uint8_t *p = run_spsc_reserve(r, 200);
		if (p == NULL) { /* the pad before the end needs one more record gone */
			q = run_spsc_peek(r, &len);
			cr_assert(check(q, len, got++));
			run_spsc_release(r);
			p = run_spsc_reserve(r, 200);
		}
		cr_assert_not_null(p, "round %d", round);
		fill(p, 200, seq++);
		run_spsc_commit(r);
	}
	while (run_spsc_peek(r, &len) != NULL) {
		cr_assert(check(run_spsc_peek(r, &len), len, got++));
		run_spsc_release(r);
	}
	cr_assert_eq(got, seq);
	run_spsc_destroy(r);
}

#define N_RECS 200000u

static void *producer(void *arg)
{
	struct run_spsc *r = arg;
	struct emu_rng rng;

	emu_rng_init(&rng, 7, 1);
	for (uint32_t s = 0; s < N_RECS; s++) {
		uint32_t len = 1 + (uint32_t)emu_rng_below(&rng, 300);
		uint8_t *p;

		while ((p = run_spsc_reserve(r, len)) == NULL)
			;
		fill(p, len, s);
		memcpy(p, &s, len >= 4 ? 4 : 0);
		run_spsc_commit(r);
	}
	return NULL;
}

Test(run_spsc, two_threads_hand_over_every_record)
{
	struct run_spsc *r = run_spsc_create(4096);
	struct emu_rng rng;
	pthread_t t;
	uint32_t bad = 0;

	emu_rng_init(&rng, 7, 1);
	cr_assert_eq(pthread_create(&t, NULL, producer, r), 0);
	for (uint32_t s = 0; s < N_RECS; s++) {
		uint32_t want = 1 + (uint32_t)emu_rng_below(&rng, 300), len, seq = s;
		const uint8_t *p;

		while ((p = run_spsc_peek(r, &len)) == NULL)
			;
		if (len >= 4)
			memcpy(&seq, p, 4);
		bad += len != want || seq != s;
		if (len > 4)
			bad += p[4] != (uint8_t)(s * 31 + 4);
		run_spsc_release(r);
	}
	pthread_join(t, NULL);
	cr_assert_eq(bad, 0);
	cr_assert_null(run_spsc_peek(r, &bad));
	run_spsc_destroy(r);
}
