/* The TSC-paced clock of real time: pacing, lateness, LagPolicy (run_clock.h). */
#include "run_clock.h"

#include <stddef.h>

#include "emu_sim.h"

/* @p a x @p b / @p c in 128 bits, at most UINT64_MAX: the units' conversions never wrap. */
static uint64_t muldiv_sat(uint64_t a, uint64_t b, uint64_t c)
{
	unsigned __int128 v = (unsigned __int128)a * b / (c ? c : 1);

	return v > UINT64_MAX ? UINT64_MAX : (uint64_t)v;
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

void run_stall_init(struct run_stall *s, uint64_t t0, uint64_t hz, uint64_t thresh_ns, bool hold, uint32_t budget_pct,
		    emu_ps_t rto)
{
	uint64_t thresh = thresh_ns != 0 ? muldiv_sat(thresh_ns, hz, 1000000000u) : 0;

	*s = (struct run_stall){ .thresh = thresh_ns != 0 && thresh == 0 ? 1 : thresh, .t0 = t0, .hz = hz,
				 .budget_pct = budget_pct > 100 ? 100 : budget_pct, .hold = hold, .rto = rto };
}

/* *@p at becomes @p v if that is more (a compare-and-swap loop: several lcores may write it). */
static void atomic_max(uint64_t *at, uint64_t v)
{
	uint64_t cur = __atomic_load_n(at, __ATOMIC_RELAXED);

	while (v > cur && !__atomic_compare_exchange_n(at, &cur, v, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

/*
 * Take @p more ticks into the time held back if the whole stays within the budget, budget_pct % of @p wall: a
 * compare-and-swap on the sum, so lcores that see stalls at once never take more than the budget between them.
 */
static bool hold_reserve(struct run_stall *s, uint64_t more, uint64_t wall)
{
	uint64_t held = __atomic_load_n(&s->held, __ATOMIC_RELAXED);

	do { /* 128 bits: no wrap */
		if (!s->hold || ((unsigned __int128)held + more) * 100 > (unsigned __int128)wall * s->budget_pct)
			return false;
	} while (!__atomic_compare_exchange_n(&s->held, &held, held + more, true, __ATOMIC_RELEASE, __ATOMIC_RELAXED));
	return true;
}

/* Whether an event of any lcore fell due by @p at: its own @p next, or one another lcore published. */
static bool any_due(const struct run_stall *s, emu_ps_t next, emu_ps_t at)
{
	if (next <= at)
		return true;
	for (int i = 0; i < RUN_STALL_LCORES && s->next[i] != NULL; i++)
		if (__atomic_load_n(s->next[i], __ATOMIC_RELAXED) <= at)
			return true;
	return false;
}

/*
 * One lcore's gap from its pass at TSC @p prev to this one at @p tsc, longer than the threshold: counted in @p st,
 * and its part past the threshold not yet accounted for by another lcore taken (covered moved to @p tsc), then
 * held back if the held time stays within the budget, else charged; unless no lcore's event fell due by the time
 * the clock would jump to (@p next this lcore's earliest): idle, jumped over. Returns whether the lcore's clock
 * jumped over a charged stall (its own part charged, or another lcore's charge within its gap).
 */
static bool stall_seen(struct run_clock *c, struct run_rt_stats *st, emu_ps_t next, uint64_t tsc)
{
	struct run_stall *s = c->stall;
	uint64_t prev = c->prev;
	uint64_t gap = tsc - prev, from = add_sat(prev, s->thresh), gap_ns = muldiv_sat(gap, 1000000000u, s->hz);
	uint64_t cov = __atomic_load_n(&s->covered, __ATOMIC_RELAXED), start;

	st->stalls++;
	st->stall_ns = add_sat(st->stall_ns, gap_ns);
	st->stall_max_ns = gap_ns > st->stall_max_ns ? gap_ns : st->stall_max_ns;
	do {
		start = from > cov ? from : cov;
		if (start >= tsc)
			break;
	} while (!__atomic_compare_exchange_n(&s->covered, &cov, tsc, true, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED));
	atomic_max(&s->max_ticks, gap);
	if (start < tsc) {
		uint64_t more = tsc - start, wall = tsc > s->t0 ? tsc - s->t0 : 0;
		uint64_t held = __atomic_load_n(&s->held, __ATOMIC_RELAXED);
		bool fresh = start == from; /* not the tail of a stall another lcore counted */
		uint64_t d = tsc > c->t0 ? tsc - c->t0 : 0;
		emu_ps_t jump = run_clock_ps(c, d > held ? d - held : 0);

		if (!any_due(s, next, jump > c->held ? jump - c->held : 0)) {
			__atomic_fetch_add(&s->idle, fresh, __ATOMIC_RELAXED);
		} else if (hold_reserve(s, more, wall)) { /* held in all, this one with it, within the budget */
		} else {
			atomic_max(&s->charged_at, tsc);
			__atomic_fetch_add(&s->charged, fresh, __ATOMIC_RELAXED);
		}
		__atomic_fetch_add(&s->stalls, fresh, __ATOMIC_RELAXED);
		__atomic_fetch_add(&s->past_ticks, more, __ATOMIC_RELAXED);
	}
	bool charged = __atomic_load_n(&s->charged_at, __ATOMIC_ACQUIRE) > prev;

	st->stalls_charged += charged;
	return charged;
}

void run_stall_stats(const struct run_stall *s, struct run_rt_stats *out)
{
	if (s == NULL)
		return;
	out->stalls = __atomic_load_n(&s->stalls, __ATOMIC_RELAXED);
	out->stalls_charged = __atomic_load_n(&s->charged, __ATOMIC_RELAXED);
	out->stalls_idle = __atomic_load_n(&s->idle, __ATOMIC_RELAXED);
	out->stall_ns = muldiv_sat(__atomic_load_n(&s->past_ticks, __ATOMIC_RELAXED), 1000000000u, s->hz);
	out->stall_max_ns = muldiv_sat(__atomic_load_n(&s->max_ticks, __ATOMIC_RELAXED), 1000000000u, s->hz);
	out->stall_held_ns = muldiv_sat(__atomic_load_n(&s->held, __ATOMIC_RELAXED), 1000000000u, s->hz);
}

/*
 * ps = ticks x 10^12 / (hz x scale) with a multiply and a shift instead of a 128-bit division each pass: mul is
 * 10^12 x 2^shift / (hz x scale) for the largest shift (at most 64) that keeps it under 2^63. Its truncation then
 * costs under ticks / 2^shift ps: with the shift above 50 for any TSC rate and TimeScale, under 1 ps in 2^50
 * ticks (4 days at 3 GHz).
 */
void run_clock_init(struct run_clock *c, uint64_t t0, uint64_t hz, uint64_t scale, emu_ps_t limit, uint8_t policy)
{
	*c = (struct run_clock){ .t0 = t0, .hz = hz, .scale = scale ? scale : 1, .limit = limit, .policy = policy };
	unsigned __int128 den = (unsigned __int128)c->hz * c->scale, top = (unsigned __int128)1 << 63;

	c->shift = 0;
	while (c->shift < 64 && ((unsigned __int128)EMU_PS_PER_S << (c->shift + 1)) / den < top)
		c->shift++;
	c->mul = (uint64_t)(((unsigned __int128)EMU_PS_PER_S << c->shift) / den);
}

void run_clock_late(struct run_rt_stats *st, emu_ps_t late)
{
	emu_hist_add(&st->late_ns, late / EMU_PS_PER_NS);
	if (late > st->late_max)
		st->late_max = late;
	st->late_over[0] += late > EMU_PS_PER_US;
	st->late_over[1] += late > 10 * EMU_PS_PER_US;
	st->late_over[2] += late > 100 * EMU_PS_PER_US;
}

bool run_clock_pass(struct run_clock *c, struct run_rt_stats *st, emu_ps_t *late_win, uint64_t tsc, emu_ps_t next,
		    emu_ps_t stop, emu_ps_t *out)
{
	uint64_t d = tsc > c->t0 ? tsc - c->t0 : 0;
	bool charged = false;

	if (c->stall != NULL) { /* a stall since the last pass; then what every lcore's clock holds back */
		struct run_stall *s = c->stall;

		if (s->thresh != 0 && c->prev != 0 && tsc > c->prev && tsc - c->prev > s->thresh)
			charged = stall_seen(c, st, next, tsc);
		c->prev = tsc;
		uint64_t h = __atomic_load_n(&s->held, __ATOMIC_ACQUIRE);

		d = d > h ? d - h : 0;
	}
	emu_ps_t now = run_clock_ps(c, d);

	now = now > c->held ? now - c->held : 0;
	/* another lcore's hold can land between this lcore's passes with more than the TSC moved: never go back */
	now = now < c->last ? c->last : now;

	if (next <= now) {
		emu_ps_t late = now - next;
		if (late > c->limit && c->policy == EMU_LAG_ABORT) {
			run_clock_late(st, late);
			st->lag_late = late;
			st->lag_at = next;
			return false;
		}
		if (late > c->limit && c->policy == EMU_LAG_ELASTIC) {
			c->held += late - c->limit;
			st->held += late - c->limit;
			st->holds++;
			now = next + c->limit;
			late = c->limit;
		}
		run_clock_late(st, late);
		/* this second's worst, for telemetry (the main lcore takes it once a second) */
		if (late > __atomic_load_n(late_win, __ATOMIC_RELAXED))
			__atomic_store_n(late_win, late, __ATOMIC_RELAXED);
	}
	c->last = now;
	if (charged)
		c->charged_until = add_sat(now, c->stall->rto);
	*out = now > stop ? stop : now;
	return true;
}

void run_rt_stats_merge(struct run_rt_stats *into, const struct run_rt_stats *s)
{
	into->polls += s->polls;
	emu_hist_merge(&into->late_ns, &s->late_ns);
	into->late_max = s->late_max > into->late_max ? s->late_max : into->late_max;
	for (int k = 0; k < 3; k++)
		into->late_over[k] += s->late_over[k];
	into->held = s->held > into->held ? s->held : into->held;
	into->holds += s->holds;
	into->timers += s->timers;
	into->timers_late += s->timers_late;
	into->stalls += s->stalls;
	into->stalls_charged += s->stalls_charged;
	into->stalls_idle += s->stalls_idle;
	into->stall_ns = add_sat(into->stall_ns, s->stall_ns);
	into->stall_max_ns = s->stall_max_ns > into->stall_max_ns ? s->stall_max_ns : into->stall_max_ns;
	into->stall_held_ns = add_sat(into->stall_held_ns, s->stall_held_ns);
	into->timeouts_after_stall += s->timeouts_after_stall;
	if (s->lag_late > into->lag_late) {
		into->lag_late = s->lag_late;
		into->lag_at = s->lag_at;
	}
}

const char *run_prof_name(enum run_prof_part k)
{
	static const char *const names[RUN_PROF_N] = { "rx", "events", "sample", "flush", "writer", "end", "pass" };

	return (unsigned)k < RUN_PROF_N ? names[k] : "?";
}
