/*
 * The clocks of a run (docs/realtime.md, Lateness): virtual time is the schedulers' own; real time is the TSC
 * (dataplane/dp.h) scaled by TimeScale, paced against the events' timestamps, with its lateness measured and the
 * LagPolicy applied; a re-run's clock is the recorded passes'. The models never read a clock: each event's own
 * timestamp is its "now".
 */
#ifndef RUN_CLOCK_H
#define RUN_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "emu_hist.h"
#include "emu_time.h"

/* How a real-time run kept up with the clock. A pass's lateness is how far past its timestamp the earliest due
 * event ran; passes with no event due are not counted in it. */
struct run_rt_stats {
	uint64_t polls;          /* poll passes */
	struct emu_hist late_ns; /* lateness of the passes that had an event due, in whole nanoseconds */
	emu_ps_t late_max;       /* the largest lateness, exact */
	uint64_t late_over[3];   /* passes more than 1 us, 10 us, 100 us late */
	emu_ps_t held;           /* LagPolicy elastic: emulated time held back in all */
	uint64_t holds;          /* LagPolicy elastic: passes that held it back */
	emu_ps_t lag_late;       /* LagPolicy abort: the lateness that stopped the run (0 if none did) */
	emu_ps_t lag_at;         /* LagPolicy abort: the timestamp of the event that was that late */
	uint64_t timers;         /* timers (events scheduled with a handle: timeouts, PFC and pacing timers) run */
	uint64_t timers_late;    /* ... more than RUN_TIMER_LATE_MARGIN after their time: the loop made them late */
};

/* The parts of a real-time pass that --pass-profile times (docs/realtime.md, Lateness), in the loop's order. */
enum run_prof_part {
	RUN_PROF_RX = 0,  /* the ports' receive, before the pass reads its clock */
	RUN_PROF_EVENTS,  /* the events due (and what other lcores sent) */
	RUN_PROF_SAMPLE,  /* the periodic records due */
	RUN_PROF_FLUSH,   /* the ports' flush: what the pass staged goes out */
	RUN_PROF_WRITER,  /* the main lcore's writer: the other lcores' outputs, the sums */
	RUN_PROF_END,     /* the pass's end: the caller's end of the step, the once-a-second tick */
	RUN_PROF_PARTS,
	RUN_PROF_PASS = RUN_PROF_PARTS, /* the whole pass */
	RUN_PROF_N,
};

/* --pass-profile: where a busy pass's time went (one with an event due, or that took 1 us or more), and which of
 * the previous pass's parts (or this pass's receive) was the longest before each pass late by more than 10 us. */
struct run_prof {
	uint64_t busy;                    /* busy passes */
	struct emu_hist ns[RUN_PROF_N];   /* each part's wall-clock time in busy passes, in ns */
	uint64_t over10[RUN_PROF_N];      /* busy passes in which that part took more than 10 us */
	uint64_t late_after[RUN_PROF_PARTS]; /* passes late > 10 us, by the longest part before them */
	uint64_t last[RUN_PROF_PARTS];    /* the previous pass's parts, in TSC ticks */
};

/** The name of part @p k ("rx", "events", "sample", "flush", "writer", "end", "pass"). */
const char *run_prof_name(enum run_prof_part k);

/* A timer that runs more than this after its time (emulated) is counted late (run_rt_stats.timers_late). */
#define RUN_TIMER_LATE_MARGIN (10 * EMU_PS_PER_US)

/* A TSC-paced clock: origin and rate, time scale, LagPolicy, and the emulated time held back. */
struct run_clock {
	uint64_t t0, hz, scale;
	uint64_t mul;    /* TSC ticks to emulated ps: ps = ticks x mul >> shift */
	unsigned shift;
	emu_ps_t limit;  /* LagLimit */
	emu_ps_t held;   /* elastic: emulated time = TSC time / scale - held */
	uint8_t policy;  /* enum emu_lag_policy */
};

/** A clock from TSC @p t0 at @p hz ticks a second, slowed @p scale times (0: 1), with LagLimit @p limit and
 *  LagPolicy @p policy (enum emu_lag_policy). */
void run_clock_init(struct run_clock *c, uint64_t t0, uint64_t hz, uint64_t scale, emu_ps_t limit, uint8_t policy);

/** Emulated ps of @p dt TSC ticks on @p c (a multiply and a shift, exact to under 1 ps in 2^50 ticks). */
static inline emu_ps_t run_clock_ps(const struct run_clock *c, uint64_t dt)
{
	return (emu_ps_t)(((unsigned __int128)dt * c->mul) >> c->shift);
}

/** Count in @p st a pass whose earliest due event ran @p late past its timestamp. Integers only. */
void run_clock_late(struct run_rt_stats *st, emu_ps_t late);

/**
 * The emulated time of the pass that starts at @p tsc, its earliest pending event at @p next, into *@p out. The
 * event's lateness is measured into @p st and the worst of the second kept in *@p late_win (atomic); past LagLimit,
 * abort returns false (@p st says when and by how much) and elastic holds the clock back to that event's time +
 * LagLimit. The time never passes @p stop.
 */
bool run_clock_pass(struct run_clock *c, struct run_rt_stats *st, emu_ps_t *late_win, uint64_t tsc, emu_ps_t next,
		    emu_ps_t stop, emu_ps_t *out);

/** @p into gets @p s added: histograms and counts summed, maxima kept, the latest abort's figures. */
void run_rt_stats_merge(struct run_rt_stats *into, const struct run_rt_stats *s);

#endif /* RUN_CLOCK_H */
