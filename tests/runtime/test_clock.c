/* Tests of the real-time clock's stalls (run_clock.h, docs/realtime.md, Stalls): pass times fed by hand, with gaps
 * held back or charged against the budget, shared by two lcores' clocks, monotonic, and no wrap near UINT64_MAX. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdint.h>

#include "emu_sim.h"
#include "run_clock.h"

/* A 1 GHz TSC: one tick is one ns, 1000 emulated ps at TimeScale 1. */
#define HZ 1000000000ull
#define US 1000ull /* ticks */

static void clock_at(struct run_clock *c, uint64_t t0, struct run_stall *s)
{
	run_clock_init(c, t0, HZ, 1, 10 * EMU_PS_PER_MS, EMU_LAG_BESTEFFORT);
	run_clock_stall(c, s);
}

/* One pass at @p tsc with the earliest event at @p next: its emulated time. */
static emu_ps_t pass_next(struct run_clock *c, struct run_rt_stats *st, uint64_t tsc, emu_ps_t next)
{
	emu_ps_t late_win = 0, now = 0;

	cr_assert(run_clock_pass(c, st, &late_win, tsc, next, EMU_PS_NEVER, &now));
	return now;
}

/* One pass at @p tsc with an event due all along (a busy model): a stall is never idle. */
static emu_ps_t pass(struct run_clock *c, struct run_rt_stats *st, uint64_t tsc)
{
	return pass_next(c, st, tsc, 0);
}

Test(run_clock, no_gap_no_stall)
{
	struct run_stall stall;
	struct run_clock c;
	struct run_rt_stats st = { 0 };

	run_stall_init(&stall, 1000, HZ, 100 * US, true, 50, EMU_PS_PER_MS);
	cr_assert_eq(stall.thresh, 100 * US);
	clock_at(&c, 1000, &stall);
	for (uint64_t k = 1; k <= 100; k++)
		cr_assert_eq(pass(&c, &st, 1000 + k * 50 * US), k * 50 * US * 1000);
	cr_assert_eq(st.stalls, 0);
	cr_assert_eq(stall.held, 0);
}

/* 1 ms run, then 300 us lost: 200 us past the 100 us threshold held (200 <= 50% of 1.3 ms): the time resumes from
 * the last pass's plus the threshold. */
Test(run_clock, gap_held_resumes_at_threshold)
{
	struct run_stall stall;
	struct run_clock c;
	struct run_rt_stats st = { 0 }, sum = { 0 };

	run_stall_init(&stall, 0, HZ, 100 * US, true, 50, EMU_PS_PER_MS);
	clock_at(&c, 0, &stall);
	emu_ps_t a = pass(&c, &st, 1000 * US);
	emu_ps_t b = pass(&c, &st, 1300 * US);

	cr_assert_eq(a, 1000 * US * 1000);
	cr_assert_eq(b, a + 100 * US * 1000);
	cr_assert_eq(stall.held, 200 * US);
	cr_assert_eq(st.stalls, 1);
	cr_assert_eq(st.stalls_charged, 0);
	cr_assert_eq(st.stall_max_ns, 300 * US);
	cr_assert_eq(c.charged_until, 0);
	/* the time goes on from there, at the TSC's rate */
	cr_assert_eq(pass(&c, &st, 1310 * US), b + 10 * US * 1000);
	run_stall_stats(&stall, &sum);
	cr_assert_eq(sum.stalls, 1);
	cr_assert_eq(sum.stall_held_ns, 200 * US);
	cr_assert_eq(sum.stall_ns, 200 * US);
	cr_assert_eq(sum.stalls_charged, 0);
}

/* The budget: 10% of 1.3 ms is 130 us, under the 200 us to hold: charged, the clock jumps as without stalls. */
Test(run_clock, gap_past_budget_charged)
{
	struct run_stall stall;
	struct run_clock c;
	struct run_rt_stats st = { 0 }, sum = { 0 };

	run_stall_init(&stall, 0, HZ, 100 * US, true, 10, EMU_PS_PER_MS);
	clock_at(&c, 0, &stall);
	pass(&c, &st, 1000 * US);
	emu_ps_t b = pass(&c, &st, 1300 * US);

	cr_assert_eq(b, 1300 * US * 1000);
	cr_assert_eq(stall.held, 0);
	cr_assert_eq(st.stalls_charged, 1);
	cr_assert_eq(c.charged_until, b + EMU_PS_PER_MS);
	run_stall_stats(&stall, &sum);
	cr_assert_eq(sum.stalls, 1);
	cr_assert_eq(sum.stalls_charged, 1);
	cr_assert_eq(sum.stall_held_ns, 0);
	/* a later, smaller stall fits the budget again: 50 us of 10% of 2.45 ms */
	for (uint64_t t = 1400; t <= 2300; t += 100)
		pass(&c, &st, t * US); /* 100 us apart: not over the threshold */
	emu_ps_t d = pass(&c, &st, 2450 * US);

	cr_assert_eq(stall.held, 50 * US);
	cr_assert_eq(d, (2450 - 50) * US * 1000);
	cr_assert_eq(st.stalls, 2);
	cr_assert_eq(st.stalls_charged, 1);
}

/* Exactly at the budget is held; one tick more is charged (held + gap <= P% of the wall time). */
Test(run_clock, budget_edge)
{
	struct run_stall stall;
	struct run_clock c;
	struct run_rt_stats st = { 0 };

	run_stall_init(&stall, 0, HZ, 100 * US, true, 50, 0);
	clock_at(&c, 0, &stall);
	pass(&c, &st, 100 * US);
	pass(&c, &st, 400 * US); /* 200 us held: 50% of 400 us */
	cr_assert_eq(stall.held, 200 * US);
	cr_assert_eq(st.stalls_charged, 0);
	run_stall_init(&stall, 0, HZ, 100 * US, true, 50, 0);
	clock_at(&c, 0, &stall);
	pass(&c, &st, 100 * US);
	pass(&c, &st, 400 * US + 1); /* 200 us + 1 > 50% of 400 us + 1 */
	cr_assert_eq(stall.held, 0);
	cr_assert_eq(st.stalls_charged, 1);
}

/* --stall-threshold off: the stall is seen and counted, never held. */
Test(run_clock, off_counts_charged)
{
	struct run_stall stall;
	struct run_clock c;
	struct run_rt_stats st = { 0 };

	run_stall_init(&stall, 0, HZ, 100 * US, false, 50, EMU_PS_PER_MS);
	clock_at(&c, 0, &stall);
	pass(&c, &st, 1000 * US);
	cr_assert_eq(pass(&c, &st, 1300 * US), 1300 * US * 1000);
	cr_assert_eq(st.stalls, 1);
	cr_assert_eq(st.stalls_charged, 1);
	cr_assert_eq(stall.charged, 1);
	cr_assert_eq(stall.held, 0);
}

/* Two lcores stopped together: each sees the gap, the stall is counted and held once, both clocks agree. */
Test(run_clock, two_lcores_one_stall)
{
	struct run_stall stall;
	struct run_clock a, b;
	struct run_rt_stats sa = { 0 }, sb = { 0 }, sum = { 0 };

	run_stall_init(&stall, 0, HZ, 100 * US, true, 50, EMU_PS_PER_MS);
	clock_at(&a, 0, &stall);
	clock_at(&b, 0, &stall);
	pass(&a, &sa, 1000 * US);
	pass(&b, &sb, 1001 * US);
	emu_ps_t ta = pass(&a, &sa, 1400 * US); /* a: 400 us gap, 300 us held */
	emu_ps_t tb = pass(&b, &sb, 1402 * US); /* b: 401 us gap, its last 2 us past a's covered too */

	cr_assert_eq(stall.held, 302 * US);
	cr_assert_eq(ta, 1100 * US * 1000);
	cr_assert_eq(tb, 1100 * US * 1000);
	cr_assert_eq(sa.stalls, 1);
	cr_assert_eq(sb.stalls, 1);
	run_stall_stats(&stall, &sum);
	cr_assert_eq(sum.stalls, 1);
	cr_assert_eq(sum.stall_max_ns, 401 * US);
}

/* Another lcore's hold lands between two passes with more than the TSC moved: the time stays, never goes back. */
Test(run_clock, monotonic_across_lcores)
{
	struct run_stall stall;
	struct run_clock a, b;
	struct run_rt_stats sa = { 0 }, sb = { 0 };

	run_stall_init(&stall, 0, HZ, 100 * US, true, 90, 0);
	clock_at(&a, 0, &stall);
	clock_at(&b, 0, &stall);
	pass(&b, &sb, 500 * US);
	emu_ps_t t1 = pass(&a, &sa, 1000 * US);

	pass(&b, &sb, 3000 * US); /* b lost 2.5 ms: 2.4 ms held, more than a's next 100 us */
	cr_assert_eq(stall.held, 2400 * US);
	emu_ps_t t2 = pass(&a, &sa, 1100 * US);

	cr_assert_geq(t2, t1);
	cr_assert_geq(pass(&a, &sa, 3100 * US), t2);
}

/* Gaps near UINT64_MAX: the TSC's last ticks, a gap of 2^63 ticks, a threshold of UINT64_MAX ns: no wrap, the time
 * monotonic and saturated below EMU_PS_NEVER. */
Test(run_clock, huge_gaps_no_wrap)
{
	struct run_stall stall;
	struct run_clock c;
	struct run_rt_stats st = { 0 };
	uint64_t t0 = UINT64_MAX - (3ull << 62);
	emu_ps_t last = 0, now;

	run_stall_init(&stall, t0, HZ, 100 * US, true, 100, EMU_PS_NEVER - 1);
	clock_at(&c, t0, &stall);
	uint64_t at[] = { t0 + 1, t0 + 1000 * US, t0 + (1ull << 62), t0 + (1ull << 62) + 1, UINT64_MAX - 5,
			  UINT64_MAX - 1, UINT64_MAX };

	for (size_t k = 0; k < sizeof(at) / sizeof(at[0]); k++) {
		now = pass(&c, &st, at[k]);
		cr_assert_geq(now, last, "pass %zu went back", k);
		cr_assert_lt(now, EMU_PS_NEVER);
		last = now;
	}
	cr_assert_eq(st.stalls, 3);
	cr_assert_lt(stall.held, UINT64_MAX - t0);
	/* a charged stall's window: now + the RTO, saturated */
	run_stall_init(&stall, 0, HZ, 1, false, 0, EMU_PS_NEVER - 1);
	clock_at(&c, 0, &stall);
	pass(&c, &st, 1);
	now = pass(&c, &st, UINT64_MAX);
	cr_assert_eq(now, EMU_PS_NEVER - 1);
	cr_assert_eq(c.charged_until, UINT64_MAX);
	/* a threshold of UINT64_MAX ns: no gap is a stall, none wraps its sum */
	run_stall_init(&stall, 0, HZ, UINT64_MAX, true, 50, 0);
	cr_assert_eq(stall.thresh, UINT64_MAX);
	clock_at(&c, 0, &stall);
	pass(&c, &st, 1);
	pass(&c, &st, UINT64_MAX);
	cr_assert_eq(stall.stalls, 0);
}

/* No event falls due in the stall (the next 5 ms on): idle, jumped over at no cost; one due within it (its own, or
 * another lcore's published one) is held. */
Test(run_clock, idle_stall_jumped)
{
	struct run_stall stall;
	struct run_clock c;
	struct run_rt_stats st = { 0 }, sum = { 0 };
	emu_ps_t other = EMU_PS_NEVER;

	run_stall_init(&stall, 0, HZ, 100 * US, true, 50, EMU_PS_PER_MS);
	stall.next[0] = &other;
	clock_at(&c, 0, &stall);
	pass_next(&c, &st, 1000 * US, 6000 * US * 1000);
	cr_assert_eq(pass_next(&c, &st, 1300 * US, 6000 * US * 1000), 1300 * US * 1000);
	cr_assert_eq(stall.held, 0);
	cr_assert_eq(st.stalls_charged, 0);
	run_stall_stats(&stall, &sum);
	cr_assert_eq(sum.stalls, 1);
	cr_assert_eq(sum.stalls_idle, 1);
	cr_assert_eq(sum.stalls_charged, 0);
	/* its own event at 1.35 ms falls due in the next one (1.4 to 1.7 ms): held */
	pass_next(&c, &st, 1400 * US, 1350 * US * 1000);
	pass_next(&c, &st, 1700 * US, 1350 * US * 1000);
	cr_assert_eq(stall.held, 200 * US);
	/* another lcore's event at 1.8 ms (emulated 1.6 ms on): the stall from 1.8 to 2.2 ms wall is held */
	other = 1650 * US * 1000;
	pass_next(&c, &st, 1800 * US, EMU_PS_NEVER);
	pass_next(&c, &st, 2200 * US, EMU_PS_NEVER);
	cr_assert_eq(stall.held, 500 * US);
	run_stall_stats(&stall, &sum);
	cr_assert_eq(sum.stalls, 3);
	cr_assert_eq(sum.stalls_idle, 1);
}

/* No stall record (another clock's use): the clock is the TSC's, as before stalls. */
Test(run_clock, no_record_no_detection)
{
	struct run_clock c;
	struct run_rt_stats st = { 0 };

	clock_at(&c, 0, NULL);
	pass(&c, &st, 1);
	cr_assert_eq(pass(&c, &st, 10000 * US), 10000 * US * 1000);
	cr_assert_eq(st.stalls, 0);
}

/*
 * Two lcores on two threads losing the CPU at once, over and over, with stalls past the budget: the time held back
 * never passes the budget of the latest wall time either lcore has reached (each publishes its TSC before its
 * pass). Taking the held time with one load and a later add let two lcores both take the last of the budget.
 */
#define RACE_PASSES 3000000

struct race {
	struct run_stall *stall;
	uint64_t *wall_hi; /* the latest TSC any lcore has passed, before its pass */
	uint64_t offset;   /* this lcore's first pass */
	uint64_t over;     /* passes after which the held time was past the budget */
	pthread_barrier_t *go;
};

static void *race_lcore(void *arg)
{
	struct race *r = arg;
	struct run_clock c;
	struct run_rt_stats st = { 0 };

	clock_at(&c, 0, r->stall);
	pthread_barrier_wait(r->go);
	for (uint64_t j = 1; j <= RACE_PASSES; j++) {
		uint64_t tsc = r->offset + j * 300; /* every gap 300 ticks, 200 past the threshold: above the budget */
		uint64_t hi = __atomic_load_n(r->wall_hi, __ATOMIC_RELAXED);

		while (tsc > hi && !__atomic_compare_exchange_n(r->wall_hi, &hi, tsc, true, __ATOMIC_SEQ_CST,
								 __ATOMIC_RELAXED))
			;
		pass(&c, &st, tsc);
		uint64_t held = __atomic_load_n(&r->stall->held, __ATOMIC_SEQ_CST);
		hi = __atomic_load_n(r->wall_hi, __ATOMIC_SEQ_CST);
		r->over += held * 100 > hi * 50;
	}
	return NULL;
}

Test(run_clock, budget_never_overshot_by_racing_lcores)
{
	struct run_stall stall;
	uint64_t wall_hi = 0;
	pthread_barrier_t go;
	pthread_t t[2];
	struct race r[2];

	run_stall_init(&stall, 0, HZ, 100, true, 50, EMU_PS_PER_MS);
	pthread_barrier_init(&go, NULL, 2);
	for (int i = 0; i < 2; i++) {
		r[i] = (struct race){ .stall = &stall, .wall_hi = &wall_hi, .offset = 1000 + (uint64_t)i * 150, .go = &go };
		cr_assert_eq(pthread_create(&t[i], NULL, race_lcore, &r[i]), 0);
	}
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&go);
	cr_assert_eq(r[0].over + r[1].over, 0, "held past the budget after %llu and %llu passes",
		     (unsigned long long)r[0].over, (unsigned long long)r[1].over);
	cr_assert_gt(stall.held, 0);
	cr_assert_gt(stall.charged, 0, "the stalls pass the budget: some are charged");
}
