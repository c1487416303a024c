/* The TSC-paced clock of real time: pacing, lateness, LagPolicy (run_clock.h). */
#include "run_clock.h"

#include "emu_sim.h"

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
	emu_ps_t now = run_clock_ps(c, tsc - c->t0) - c->held;

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
