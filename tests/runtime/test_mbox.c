/* Tests of the mailbox (run_mbox.h): records out in order and whole, a full mailbox refuses, bad sizes refused, and
 * four producer threads taking turns against one consumer: every record arrives once, each producer's in order. */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "run_mbox.h"

struct rec {
	uint32_t producer, seq;
	uint64_t check;
};

Test(run_mbox, in_order_and_a_full_box_refuses)
{
	struct run_mbox *m = run_mbox_create(sizeof(struct rec), 1024);
	struct rec r, out;
	uint32_t n = 0;

	cr_assert_not_null(m);
	cr_assert(!run_mbox_take(m, &out));
	for (;; n++) {
		r = (struct rec){ .producer = 0, .seq = n, .check = n * 7919u };
		run_mbox_lock(m);
		int rc = run_mbox_post(m, &r);
		run_mbox_unlock(m);
		if (rc < 0) {
			cr_assert_eq(rc, -ENOSPC);
			break;
		}
	}
	cr_assert_gt(n, 10); /* 1 KiB of 16-byte records (24 with their header) */
	cr_assert_leq(n, 1024 / 24);
	for (uint32_t i = 0; i < n; i++) {
		cr_assert(run_mbox_take(m, &out));
		cr_assert_eq(out.seq, i);
		cr_assert_eq(out.check, i * 7919u);
	}
	cr_assert(!run_mbox_take(m, &out));
	run_mbox_destroy(m);
}

Test(run_mbox, bad_sizes_refused)
{
	errno = 0;
	cr_assert_null(run_mbox_create(0, 1024));
	cr_assert_eq(errno, EINVAL);
	cr_assert_null(run_mbox_create(2000, 1 << 20));
	cr_assert_null(run_mbox_create(512, 1024)); /* a record above a quarter of the ring */
	run_mbox_destroy(NULL);
}

#define PRODUCERS 4
#define PER 20000u

static struct run_mbox *box;

static void *producer(void *arg)
{
	uint32_t id = (uint32_t)(uintptr_t)arg;

	for (uint32_t s = 0; s < PER;) {
		struct rec r = { .producer = id, .seq = s, .check = (uint64_t)id << 32 | s };

		run_mbox_lock(box);
		int rc = run_mbox_post(box, &r);
		run_mbox_unlock(box);
		if (rc == 0)
			s++;
	}
	return NULL;
}

Test(run_mbox, producers_take_turns_one_consumer)
{
	pthread_t t[PRODUCERS];
	uint32_t next[PRODUCERS] = { 0 }, got = 0;
	struct rec out;

	box = run_mbox_create(sizeof(struct rec), 4096);
	cr_assert_not_null(box);
	for (uintptr_t i = 0; i < PRODUCERS; i++)
		cr_assert_eq(pthread_create(&t[i], NULL, producer, (void *)i), 0);
	while (got < PRODUCERS * PER) {
		if (!run_mbox_take(box, &out))
			continue;
		cr_assert_lt(out.producer, PRODUCERS);
		cr_assert_eq(out.seq, next[out.producer], "producer %u: record %u, expected %u", out.producer, out.seq,
			     next[out.producer]);
		cr_assert_eq(out.check, (uint64_t)out.producer << 32 | out.seq);
		next[out.producer]++;
		got++;
	}
	for (int i = 0; i < PRODUCERS; i++)
		pthread_join(t[i], NULL);
	cr_assert(!run_mbox_take(box, &out));
	run_mbox_destroy(box);
}
