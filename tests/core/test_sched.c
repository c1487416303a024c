/* Unit tests of the event scheduler, pools and RNG streams (emul/core). */
#include <criterion/criterion.h>
#include <errno.h>

#include "emu_pool.h"
#include "emu_rng.h"
#include "emu_sched.h"
#include "emu_time.h"

struct trace {
	int order[64];
	emu_ps_t when[64];
	int n;
};

static void record(void *a, void *b, emu_ps_t now)
{
	struct trace *t = a;

	t->order[t->n] = (int)(intptr_t)b;
	t->when[t->n] = now;
	t->n++;
}

Test(core_sched, same_time_events_run_in_schedule_order)
{
	struct emu_sched *s = emu_sched_create(64);
	struct trace t = { 0 };

	for (int i = 0; i < 10; i++)
		cr_assert_eq(emu_sched_at(s, 1000, record, &t, (void *)(intptr_t)i, NULL), 0);
	emu_sched_run_until(s, EMU_PS_NEVER - 1);
	cr_assert_eq(t.n, 10);
	for (int i = 0; i < 10; i++)
		cr_assert_eq(t.order[i], i, "event %d ran at position %d", t.order[i], i);
	emu_sched_destroy(s);
}

/* At 1000: event 1 adds an end-of-instant callback (10) and an event for the same instant (2); the callback adds
 * event 3 at 1000 and callback -1, which adds callback 11 on node 10's node again; both run once 3 has. */
static struct emu_sched *end_s;
static struct emu_sched_end end_node[2];

static void end_second(void *a, void *b, emu_ps_t now)
{
	record(a, b, now);
	end_node[0] = (struct emu_sched_end){ .fn = record, .a = a, .b = (void *)(intptr_t)11 };
	emu_sched_at_end(end_s, &end_node[0]);
}

static void end_first(void *a, void *b, emu_ps_t now)
{
	record(a, b, now);
	cr_assert_eq(emu_sched_at(end_s, now, record, a, (void *)(intptr_t)3, NULL), 0);
	end_node[1] = (struct emu_sched_end){ .fn = end_second, .a = a, .b = (void *)(intptr_t)-1 };
	emu_sched_at_end(end_s, &end_node[1]);
}

static void start_instant(void *a, void *b, emu_ps_t now)
{
	record(a, b, now);
	end_node[0] = (struct emu_sched_end){ .fn = end_first, .a = a, .b = (void *)(intptr_t)10 };
	emu_sched_at_end(end_s, &end_node[0]);
	cr_assert_eq(emu_sched_next(end_s), now, "a waiting callback keeps the instant open");
	cr_assert_eq(emu_sched_at(end_s, now, record, a, (void *)(intptr_t)2, NULL), 0);
}

Test(core_sched, end_of_instant_callbacks_run_after_the_instant_s_events)
{
	struct trace t = { 0 };
	const int want[] = { 1, 2, 10, 3, -1, 11, 4 };

	end_s = emu_sched_create(64);
	cr_assert_eq(emu_sched_at(end_s, 1000, start_instant, &t, (void *)(intptr_t)1, NULL), 0);
	cr_assert_eq(emu_sched_at(end_s, 1001, record, &t, (void *)(intptr_t)4, NULL), 0);
	cr_assert_eq(emu_sched_run_until(end_s, EMU_PS_NEVER - 1), 4, "callbacks are not counted as events");
	cr_assert_eq(t.n, 7);
	for (int i = 0; i < 7; i++) {
		cr_assert_eq(t.order[i], want[i], "position %d: %d, want %d", i, t.order[i], want[i]);
		cr_assert_eq(t.when[i], i < 6 ? 1000 : 1001);
	}
	cr_assert_eq(emu_sched_next(end_s), EMU_PS_NEVER);
	emu_sched_destroy(end_s);
}

Test(core_sched, time_order_then_seq)
{
	struct emu_sched *s = emu_sched_create(64);
	struct trace t = { 0 };

	emu_sched_at(s, 300, record, &t, (void *)3, NULL);
	emu_sched_at(s, 100, record, &t, (void *)1, NULL);
	emu_sched_at(s, 200, record, &t, (void *)2, NULL);
	emu_sched_at(s, 100, record, &t, (void *)4, NULL);
	emu_sched_run_until(s, 250);
	cr_assert_eq(t.n, 3);
	cr_assert_eq(t.order[0], 1);
	cr_assert_eq(t.order[1], 4);
	cr_assert_eq(t.order[2], 2);
	cr_assert_eq(emu_sched_now(s), 200);
	cr_assert_eq(emu_sched_next(s), 300);
	emu_sched_destroy(s);
}

Test(core_sched, cancel_pending_and_stale_handles)
{
	struct emu_sched *s = emu_sched_create(64);
	struct trace t = { 0 };
	emu_timer_t h1, h2;

	emu_sched_at(s, 100, record, &t, (void *)1, &h1);
	emu_sched_at(s, 200, record, &t, (void *)2, &h2);
	cr_assert_eq(emu_sched_cancel(s, h1), 0);
	cr_assert_eq(emu_sched_cancel(s, h1), -ENOENT, "second cancel of the same handle");
	cr_assert_eq(emu_sched_cancel(s, 0), -ENOENT, "zero handle");
	cr_assert_eq(emu_sched_pending(s), 1);
	emu_sched_run_until(s, 1000);
	cr_assert_eq(t.n, 1);
	cr_assert_eq(t.order[0], 2);
	cr_assert_eq(emu_sched_cancel(s, h2), -ENOENT, "cancel after fire");
	/* the freed slot is reused: the old handle must still miss */
	emu_timer_t h3;
	emu_sched_at(s, 1500, record, &t, (void *)3, &h3);
	cr_assert_eq(emu_sched_cancel(s, h1), -ENOENT);
	cr_assert_eq(emu_sched_cancel(s, h3), 0);
	emu_sched_destroy(s);
}

struct self_cancel {
	struct emu_sched *s;
	emu_timer_t other;
	int fired;
};

static void cancel_other(void *a, void *b, emu_ps_t now)
{
	struct self_cancel *c = a;

	(void)b;
	(void)now;
	c->fired++;
	cr_assert_eq(emu_sched_cancel(c->s, c->other), 0);
}

static void must_not_run(void *a, void *b, emu_ps_t now)
{
	(void)a;
	(void)b;
	(void)now;
	cr_assert_fail("a cancelled event ran");
}

Test(core_sched, callback_cancels_a_same_time_event)
{
	struct emu_sched *s = emu_sched_create(64);
	struct self_cancel c = { .s = s };

	emu_sched_at(s, 50, cancel_other, &c, NULL, NULL);
	emu_sched_at(s, 50, must_not_run, NULL, NULL, &c.other);
	emu_sched_run_until(s, 100);
	cr_assert_eq(c.fired, 1);
	emu_sched_destroy(s);
}

static void chain(void *a, void *b, emu_ps_t now)
{
	struct emu_sched *s = a;
	intptr_t left = (intptr_t)b;

	if (left > 0)
		emu_sched_at(s, now + 10, chain, s, (void *)(left - 1), NULL);
}

Test(core_sched, callbacks_schedule_within_limit)
{
	struct emu_sched *s = emu_sched_create(64);

	emu_sched_at(s, 0, chain, s, (void *)99, NULL);
	cr_assert_eq(emu_sched_run_until(s, 495), 50);
	cr_assert_eq(emu_sched_run_until(s, EMU_PS_NEVER - 1), 50);
	cr_assert_eq(emu_sched_events_run(s), 100);
	cr_assert_eq(emu_sched_now(s), 990);
	emu_sched_destroy(s);
}

Test(core_sched, full_scheduler_refuses_and_cancel_churn_stays_bounded)
{
	struct emu_sched *s = emu_sched_create(64);
	struct trace t = { 0 };
	emu_timer_t h = 0;

	for (int i = 0; i < 64; i++)
		cr_assert_eq(emu_sched_at(s, 1000 + (emu_ps_t)i, record, &t, NULL, NULL), 0);
	cr_assert_eq(emu_sched_at(s, 5, record, &t, NULL, NULL), -ENOSPC);
	emu_sched_destroy(s);

	/* re-arming one timer a million times must not exhaust anything (stale entries are compacted) */
	s = emu_sched_create(64);
	for (int i = 0; i < 1000000; i++) {
		emu_sched_cancel(s, h);
		cr_assert_eq(emu_sched_at(s, 1000000 + (emu_ps_t)i, record, &t, NULL, &h), 0);
	}
	cr_assert_eq(emu_sched_pending(s), 1);
	emu_sched_destroy(s);
}

/* Two events scheduled together run exactly as two emu_sched_at() calls would, ties included; a full scheduler
 * refuses the ones it has no room for. */
Test(core_sched, a_pair_is_two_schedulings_in_order)
{
	struct emu_sched *s = emu_sched_create(64);
	struct trace t = { 0 };

	emu_sched_at(s, 200, record, &t, (void *)1, NULL);
	cr_assert_eq(emu_sched_at2(s, 300, record, &t, (void *)2, 200, record, &t, (void *)3), 0);
	emu_sched_at(s, 200, record, &t, (void *)4, NULL);
	cr_assert_eq(emu_sched_at2(s, 5000000, record, &t, (void *)5, 10, record, &t, (void *)6), 0, "one far");
	emu_sched_run_until(s, EMU_PS_NEVER - 1);
	const int want[] = { 6, 1, 3, 4, 2, 5 };

	cr_assert_eq(t.n, 6);
	for (int i = 0; i < 6; i++)
		cr_assert_eq(t.order[i], want[i], "position %d: %d, want %d", i, t.order[i], want[i]);
	emu_sched_destroy(s);

	s = emu_sched_create(64);
	for (int i = 0; i < 63; i++)
		cr_assert_eq(emu_sched_at(s, 1000, record, &t, NULL, NULL), 0);
	cr_assert_eq(emu_sched_at2(s, 2000, record, &t, NULL, 3000, record, &t, NULL), 2, "room for the first only");
	cr_assert_eq(emu_sched_at2(s, 2000, record, &t, NULL, 3000, record, &t, NULL), 3, "for neither");
	emu_sched_destroy(s);
}

Test(core_sched, past_time_runs_now)
{
	struct emu_sched *s = emu_sched_create(64);
	struct trace t = { 0 };

	emu_sched_at(s, 500, record, &t, (void *)1, NULL);
	emu_sched_run_until(s, 1000);
	emu_sched_at(s, 100, record, &t, (void *)2, NULL);
	emu_sched_run_until(s, 1000);
	cr_assert_eq(t.when[1], 500, "an event in the past runs at the current time");
	emu_sched_destroy(s);
}

/* The order over partitions (docs/parallel.md): (time, time scheduled, creator entity, the creator's count). */

struct as_ent {
	struct emu_sched *s;
	struct trace t;
};

/* Schedule b's event at 500 as entity (intptr_t)b / 100, from inside an event. */
static void sched_as(void *a, void *b, emu_ps_t now)
{
	struct as_ent *x = a;

	(void)now;
	emu_sched_set_ent(x->s, (uint32_t)((intptr_t)b / 100));
	cr_assert_eq(emu_sched_at(x->s, 500, record, &x->t, b, NULL), 0);
}

Test(core_sched, one_instant_two_entities_run_in_the_entities_order)
{
	struct emu_sched *s = emu_sched_create(64);
	struct as_ent x = { .s = s };
	struct trace *t = &x.t;

	cr_assert_eq(emu_sched_entities(s, 4), 0);
	/* at 100, entity 3 schedules (300) then entity 1 (100), then entity 2 (200), all for 500 */
	emu_sched_at(s, 100, sched_as, &x, (void *)(intptr_t)300, NULL);
	emu_sched_at(s, 100, sched_as, &x, (void *)(intptr_t)100, NULL);
	emu_sched_at(s, 100, sched_as, &x, (void *)(intptr_t)200, NULL);
	/* at 50, entity 3 schedules 301 for 500: scheduled earlier, it runs first whatever its entity */
	emu_sched_at(s, 50, sched_as, &x, (void *)(intptr_t)301, NULL);
	emu_sched_run_until(s, EMU_PS_NEVER - 1);
	cr_assert_eq(t->n, 4);
	int want[] = { 301, 100, 200, 300 };

	for (int i = 0; i < 4; i++)
		cr_assert_eq(t->order[i], want[i], "position %d: %d, expected %d", i, t->order[i], want[i]);
	cr_assert_eq(emu_sched_created(s, 3), 2, "entity 3 created two events");
	cr_assert_eq(emu_sched_created(s, 1), 1);
	emu_sched_destroy(s);
}

Test(core_sched, a_key_drawn_on_one_scheduler_orders_the_event_on_another_as_on_one)
{
	/* one scheduler: entity 1 and entity 2 each schedule an event for 1000 at time 10, entity 2 first */
	struct emu_sched *one = emu_sched_create(64), *a = emu_sched_create(64), *b = emu_sched_create(64);
	struct trace t1 = { 0 }, t2 = { 0 };
	struct emu_sched_key k;

	cr_assert_eq(emu_sched_entities(one, 3), 0);
	cr_assert_eq(emu_sched_entities(a, 3), 0);
	cr_assert_eq(emu_sched_entities(b, 3), 0);
	emu_sched_advance(one, 10);
	emu_sched_set_ent(one, 2);
	emu_sched_at(one, 1000, record, &t1, (void *)(intptr_t)2, NULL);
	emu_sched_set_ent(one, 1);
	emu_sched_at(one, 1000, record, &t1, (void *)(intptr_t)1, NULL);
	emu_sched_run_until(one, EMU_PS_NEVER - 1);
	/* two: entity 2's event is local to b, entity 1's is drawn on a and given to b later */
	emu_sched_advance(a, 10);
	emu_sched_advance(b, 10);
	emu_sched_set_ent(b, 2);
	emu_sched_at(b, 1000, record, &t2, (void *)(intptr_t)2, NULL);
	emu_sched_set_ent(a, 1);
	emu_sched_key_draw(a, &k);
	cr_assert_eq(k.ctime, 10);
	cr_assert_eq(k.key >> EMU_SCHED_ENT_SHIFT, 1);
	cr_assert_eq(emu_sched_at_key(b, 1000, &k, record, &t2, (void *)(intptr_t)1), 0);
	emu_sched_run_until(b, EMU_PS_NEVER - 1);
	cr_assert_eq(t1.n, 2);
	cr_assert_eq(t2.n, 2);
	for (int i = 0; i < 2; i++)
		cr_assert_eq(t1.order[i], t2.order[i], "position %d: %d on one, %d on two", i, t1.order[i], t2.order[i]);
	cr_assert_eq(t1.order[0], 1, "entity 1 before entity 2 at one instant");
	emu_sched_destroy(one);
	emu_sched_destroy(a);
	emu_sched_destroy(b);
}

struct tagged {
	struct emu_sched *s;
	struct emu_sched_tag tag[8];
	uint32_t ent[8];
	int n;
	struct emu_sched_end end;
};

static void tag_it(void *a, void *b, emu_ps_t now)
{
	struct tagged *g = a;

	(void)now;
	g->ent[g->n] = emu_sched_ent(g->s);
	emu_sched_tag(g->s, &g->tag[g->n++]);
	if (b != NULL) { /* a second output of the same event, and an end-of-instant callback */
		emu_sched_tag(g->s, &g->tag[g->n++]);
		g->end = (struct emu_sched_end){ .fn = tag_it, .a = g };
		emu_sched_at_end(g->s, &g->end);
	}
}

Test(core_sched, outputs_are_tagged_in_the_order_they_run)
{
	struct tagged g = { .s = emu_sched_create(64) };

	cr_assert_eq(emu_sched_entities(g.s, 8), 0);
	emu_sched_set_ent(g.s, 5);
	emu_sched_at(g.s, 700, tag_it, &g, (void *)1, NULL);
	emu_sched_set_ent(g.s, 6);
	emu_sched_at(g.s, 700, tag_it, &g, NULL, NULL);
	emu_sched_set_ent(g.s, 0);
	emu_sched_run_until(g.s, EMU_PS_NEVER - 1);
	cr_assert_eq(g.n, 4);
	cr_assert_eq(g.ent[0], 5, "an event runs as its creator");
	cr_assert_eq(g.ent[3], 5, "an end-of-instant callback runs as the entity that asked for it");
	cr_assert_eq(g.tag[1].idx, 1, "a second output of one event");
	cr_assert_eq(g.tag[3].ctime, EMU_PS_NEVER, "an end-of-instant callback's outputs come after the instant's events");
	for (int i = 1; i < 4; i++)
		cr_assert_lt(emu_sched_tag_cmp(&g.tag[i - 1], &g.tag[i]), 0, "tag %d before tag %d", i - 1, i);
	emu_sched_destroy(g.s);
}

Test(core_time, serialization_rounding_matches_spec_examples)
{
	/* 4,202 B at 400 Gb/s: 84.04 ns exactly (seed 000, Packets on the wire) */
	cr_assert_eq(emu_ser_ps(4202, 400000000000ULL), 84040);
	/* 98 B PCIe read request at 16 x 31.52 Gb/s: 1554.57 ps, rounded up */
	cr_assert_eq(emu_ser_ps(98, 16ULL * 31520000000ULL), 1555);
	/* 4,368 B completion: 69.289... ns -> 69290 ps */
	cr_assert_eq(emu_ser_ps(4368, 16ULL * 31520000000ULL), 69290);
	/* 4,184 B ACK hold: 66.37 ns ("66.4 ns", seed 000 ACK cadence) */
	cr_assert_eq(emu_ser_ps(4184, 16ULL * 31520000000ULL), 66371);
	cr_assert_eq(emu_ser_ps(0, 1), 0);
}

Test(core_pool, empty_pool_fails_and_counts)
{
	struct emu_pool *p = emu_pool_create(40, 3); /* rounded up to 4 */
	void *o[4];

	cr_assert_eq(emu_pool_size(p), 4);
	for (int i = 0; i < 4; i++)
		cr_assert_not_null(o[i] = emu_pool_get(p));
	cr_assert_null(emu_pool_get(p));
	cr_assert_eq(emu_pool_failures(p), 1);
	cr_assert_eq(emu_pool_in_use(p), 4);
	emu_pool_put(p, o[2]);
	cr_assert_eq(emu_pool_get(p), o[2]);
	cr_assert_eq(emu_pool_high_water(p), 4);
	for (int i = 0; i < 4; i++)
		cr_assert_eq(((uintptr_t)o[i]) % 16, 0, "objects 16-byte aligned");
	emu_pool_destroy(p);
	emu_pool_destroy(NULL);
}

Test(core_rng, streams_reproducible_and_independent)
{
	struct emu_rng a, b, c;

	emu_rng_init(&a, EMU_RNG_DEFAULT_SEED, 0);
	emu_rng_init(&b, EMU_RNG_DEFAULT_SEED, 0);
	emu_rng_init(&c, EMU_RNG_DEFAULT_SEED, 1);
	int same_c = 0;
	for (int i = 0; i < 1000; i++) {
		uint64_t x = emu_rng_next(&a);
		cr_assert_eq(x, emu_rng_next(&b));
		same_c += x == emu_rng_next(&c);
	}
	cr_assert_eq(same_c, 0);
	uint64_t hist[10] = { 0 };
	for (int i = 0; i < 100000; i++)
		hist[emu_rng_below(&a, 10)]++;
	for (int i = 0; i < 10; i++)
		cr_assert(hist[i] > 9000 && hist[i] < 11000, "bucket %d has %llu", i, (unsigned long long)hist[i]);
	cr_assert_eq(emu_rng_below(&a, 0), 0);
}

Test(core_sched, run_until_late_counts_the_timers_and_those_run_late)
{
	struct emu_sched *s = emu_sched_create(64);
	struct trace t = { 0 };
	struct emu_sched_late n = { 0 };
	emu_timer_t h1, h2, h3, h4;

	emu_sched_at(s, 100, record, &t, (void *)1, &h1);          /* a timer, run late */
	emu_sched_at(s, 150, record, &t, (void *)2, NULL);         /* not a timer */
	emu_sched_at2(s, 160, record, &t, (void *)3, 170, record, &t, (void *)4); /* not timers */
	emu_sched_at(s, 600, record, &t, (void *)5, &h2);          /* a timer, on time */
	emu_sched_at(s, 700, record, &t, (void *)6, &h3);          /* a timer, cancelled */
	emu_sched_at(s, 5000000, record, &t, (void *)7, &h4);      /* a timer past the limit (the far heap) */
	cr_assert_eq(emu_sched_cancel(s, h3), 0);
	cr_assert_eq(emu_sched_run_until_late(s, 1000, 500, &n), 5, "the events run are run_until's");
	cr_assert_eq(t.n, 5);
	cr_assert_eq(n.timers, 2);
	cr_assert_eq(n.late, 1, "only the timer due before 500");
	cr_assert_eq(emu_sched_run_until_late(s, 6000000, 0, &n), 1);
	cr_assert_eq(n.timers, 3);
	cr_assert_eq(n.late, 1);
	(void)h1;
	emu_sched_destroy(s);
}
