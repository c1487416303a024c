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
	/* stalls (docs/realtime.md, Stalls): per lcore, the gaps between two of its passes longer than the threshold;
	 * merged over a run's lcores (run_rt_merge), the run's own, each stall counted once (struct run_stall) */
	uint64_t stalls;         /* stalls */
	uint64_t stalls_charged; /* ... whose time the clock was not held back for (past the budget, or off) */
	uint64_t stalls_idle;    /* ... in which no event of any lcore fell due: jumped over, neither held nor charged */
	uint64_t stall_ns;       /* per lcore: its gaps' wall time; merged: the stalls' time past the threshold */
	uint64_t stall_max_ns;   /* the longest gap, wall ns */
	uint64_t stall_held_ns;  /* merged: the wall time the clock was held back for stalls */
	uint64_t timeouts_after_stall; /* late timers run within one RTO after a charged stall */
};

#define RUN_STALL_LCORES 64 /* RUN_LCORES_MAX */

/*
 * Stalls (docs/realtime.md, Stalls): the one record of a run's stalls that every lcore's clock shares. A gap between
 * two passes of one lcore longer than the threshold is a stall; its time past the threshold is held back (taken
 * out of every lcore's emulated time) while the time held back in all stays within the budget's share of the wall
 * time run so far, else charged (the clock jumps). The lcores that lost the CPU together each see the gap: the part
 * of it not yet accounted for (covered) is taken with a compare-and-swap, so each wall tick is held or charged once
 * and the stall counted once. A stall in which no lcore's earliest event fell due (each lcore publishes it at every
 * pass, in its own cache line) is idle: jumping over it fires nothing, so it is neither held nor charged and costs
 * no budget. Written only when a stall is seen (atomics, no lock); read at every pass (held).
 */
struct run_stall {
	uint64_t thresh;      /* TSC ticks: a gap longer than this is a stall (0: no stall detection) */
	uint64_t t0;          /* the TSC at the run's time 0 (the budget's wall time is counted from it) */
	uint32_t budget_pct;  /* held in all <= this % of the wall time so far, 0..100 */
	bool hold;            /* false (--stall-threshold off): stalls are only counted, all charged */
	uint64_t hz;          /* TSC rate, for ns */
	emu_ps_t rto;         /* the smallest RTO (emulated): a charged stall's late timers are counted this long */
	/* atomic */
	uint64_t held;        /* TSC ticks held back in all: every lcore's emulated time is that of TSC - held */
	uint64_t covered;     /* the TSC up to which stalls are accounted for */
	uint64_t stalls, charged, idle, past_ticks, max_ticks, charged_at;
	/* each lcore's earliest pending event once its last pass's events ran, as it published it (its own cache
	 * line, run_lcore.next_due; the slots set before the run, NULL ends them) */
	const emu_ps_t *next[RUN_STALL_LCORES];
};

/** @p s for a run from TSC @p t0 at @p hz; a stall is a gap over @p thresh_ns (0: none detected), held (when
 *  @p hold) within @p budget_pct % (0..100) of the wall time, late timers counted @p rto after a charged one. */
void run_stall_init(struct run_stall *s, uint64_t t0, uint64_t hz, uint64_t thresh_ns, bool hold, uint32_t budget_pct,
		    emu_ps_t rto);

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
	struct run_stall *stall; /* the run's stalls, shared by its lcores' clocks; NULL: none detected */
	uint64_t prev;   /* the TSC of this lcore's previous pass (0: none yet) */
	emu_ps_t last;   /* the emulated time of the previous pass: never gone back from */
	emu_ps_t charged_until; /* late timers up to this time count as after a charged stall (0: none) */
};

/** A clock from TSC @p t0 at @p hz ticks a second, slowed @p scale times (0: 1), with LagLimit @p limit and
 *  LagPolicy @p policy (enum emu_lag_policy). */
void run_clock_init(struct run_clock *c, uint64_t t0, uint64_t hz, uint64_t scale, emu_ps_t limit, uint8_t policy);

/** The clock @p c shares the stall record @p s (its run's; NULL: no stall detection). */
static inline void run_clock_stall(struct run_clock *c, struct run_stall *s)
{
	c->stall = s;
}

/** Emulated ps of @p dt TSC ticks on @p c (a multiply and a shift, exact to under 1 ps in 2^50 ticks). */
static inline emu_ps_t run_clock_ps(const struct run_clock *c, uint64_t dt)
{
	unsigned __int128 ps = ((unsigned __int128)dt * c->mul) >> c->shift;

	return ps < EMU_PS_NEVER ? (emu_ps_t)ps : EMU_PS_NEVER - 1; /* never wraps (2^64 ticks: 2^64 ps is 213 days) */
}

/** Count in @p st a pass whose earliest due event ran @p late past its timestamp. Integers only. */
void run_clock_late(struct run_rt_stats *st, emu_ps_t late);

/**
 * The emulated time of the pass that starts at @p tsc, its earliest pending event at @p next, into *@p out. The
 * event's lateness is measured into @p st and the worst of the second kept in *@p late_win (atomic); past LagLimit,
 * abort returns false (@p st says when and by how much) and elastic holds the clock back to that event's time +
 * LagLimit. A gap since the lcore's previous pass longer than the stall threshold is a stall (run_stall): held
 * back or charged. The time never goes back and never passes @p stop.
 */
bool run_clock_pass(struct run_clock *c, struct run_rt_stats *st, emu_ps_t *late_win, uint64_t tsc, emu_ps_t next,
		    emu_ps_t stop, emu_ps_t *out);

/** The run's stall figures (@p s, NULL: none) into @p out, replacing the lcores' sum: each stall counted once. */
void run_stall_stats(const struct run_stall *s, struct run_rt_stats *out);

/** @p into gets @p s added: histograms and counts summed, maxima kept, the latest abort's figures. */
void run_rt_stats_merge(struct run_rt_stats *into, const struct run_rt_stats *s);

#endif /* RUN_CLOCK_H */
