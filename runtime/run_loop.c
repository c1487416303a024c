/*
 * The loop (run.h, run_go): one structure for every clock, like an event loop whose backend is chosen once. A step
 * takes its time from the clock, meets the other lcores, runs the events up to that time, then does the step's
 * work: the periodic rows, the ports' receive and flush, the outputs, the end. The clock is chosen when the engine
 * is made (virtual: the window's end; real: the TSC, paced; a re-run: the recorded passes), and so is the
 * synchronisation (none; threads: the windows' barrier in virtual time, the rings in real time; MPI ranks: the
 * exchange). Virtual time runs the loop on the main thread, the other threads following the windows it sets;
 * real time runs it on every lcore, each on its own partitions and ports.
 */
#include "run_pvt.h"

#include <stdio.h>
#include <stdlib.h>

#include "dp.h"

/* Logs are written out once they hold this many outputs, at the next step's end. */
#define RUN_LOG_FLUSH 65536u

/* What one lcore's loop keeps between steps. */
struct run_step_state {
	struct run_clock c, wall;    /* real time: emulated and wall-clock time from the TSC */
	uint64_t tsc;                /* real time: the TSC the step started at */
	uint64_t last_tick;          /* real time: the TSC of the last once-a-second tick */
	emu_ps_t check;              /* virtual time: the next no-progress check */
};

/* ---- the clocks: the time a step runs to ---- */

/*
 * Virtual time (the main thread): the end of the next window, W = next + lookahead - 1 (run_window_end), once the
 * caller's work due before the next event is done and the no-progress check passed; END with e->why set when no
 * event is left before the limit, on a signal, or when the check stops the run.
 */
static enum run_step clock_virtual(struct run_engine *e, struct run_lcore *lc, struct run_step_state *st,
				   emu_ps_t *t)
{
	const struct run_hooks *h = e->h;
	const emu_ps_t P = h->check_period;

	(void)lc;
	for (;;) {
		emu_ps_t limit = h->limit(h->ctx);
		bool quit;
		emu_ps_t next = run_win_next(e, &quit);

		if (quit) {
			e->why = RUN_END_QUIT;
			return RUN_STEP_END;
		}
		if (next == EMU_PS_NEVER || next > limit)
			return RUN_STEP_END;
		emu_ps_t due = h->due(h->ctx);

		if (due < next) { /* the caller's work falls due between events: the run goes on past it */
			run_vt_flush(e);
			h->sample(h->ctx, due);
			continue;
		}
		if (P != 0 && st->check < next) { /* at whole periods, whatever the windows */
			bool ran = run_last_event_all(e) + P > st->check;

			/* a period in which nothing ran is not looked at: the fabric waits for a later start */
			if (ran && h->stalled(h->ctx, st->check)) {
				e->why = RUN_END_STALLED;
				return RUN_STEP_END;
			}
			st->check = ran ? st->check + P : (next / P + 1) * P;
			continue;
		}
		emu_ps_t W = run_window_end(next, e->lookahead, e->n, due, limit);

		*t = P != 0 && st->check < W ? st->check : W;
		return RUN_STEP_RUN;
	}
}

/* The stop time now. */
static emu_ps_t stop_of(const struct run_hooks *h)
{
	return h->stop != NULL ? h->stop(h->ctx) : EMU_PS_NEVER;
}

/*
 * Real time (every lcore): the TSC now as emulated time, the earliest due event's lateness measured and the
 * LagPolicy applied (abort: END, the lcore lagged); END when a signal or the main lcore says so.
 */
static enum run_step clock_tsc(struct run_engine *e, struct run_lcore *lc, struct run_step_state *st, emu_ps_t *t)
{
	/*
	 * The ports' turn first: what waits on them is taken stamped with the last pass's time (rt_now, the
	 * scheduler's clock, when the loop last looked) and its wall clock, as the end of that pass, before this
	 * pass's time is taken and its events run. So a pass that comes late (the loop lost the CPU, a slow
	 * syscall) hands the frames that came meanwhile (ACKs) to their NICs before the timers they would have
	 * stopped fire, as a NIC that kept receiving would have; and their lateness counts in this pass's. A
	 * recorded session logs them after that pass's events, where a re-run's loop takes them. A worker takes
	 * them once the main lcore's sampling pause (run_sample) has let it go, which it waits for here untouched.
	 */
	if (e->n > 1 && lc->idx != 0)
		run_sample_wait(lc);
	run_ports_rx(e, lc);
	if (*e->quit || __atomic_load_n(&e->lc_stop, __ATOMIC_RELAXED))
		return RUN_STEP_END;
	uint64_t tsc = st->tsc = dp_tsc();

	lc->wall_now = run_clock_ps(&st->wall, tsc - st->wall.t0);
	lc->rt.polls++;
	if (!run_clock_pass(&st->c, &lc->rt, &lc->late_win, tsc, emu_sched_next(lc->np->sched), stop_of(e->h), t)) {
		lc->lagged = true;
		return RUN_STEP_END;
	}
	lc->stall_until = st->c.charged_until;
	return RUN_STEP_RUN;
}

/* A re-run (one lcore): the next pass the session log recorded, with the wall clock it ran at. */
static enum run_step clock_recorded(struct run_engine *e, struct run_lcore *lc, struct run_step_state *st,
				    emu_ps_t *t)
{
	emu_ps_t wall = lc->wall_now;
	enum run_step s;

	(void)st;
	if (*e->quit)
		return RUN_STEP_END;
	s = e->h->recorded(e->h->ctx, t, &wall);
	if (s != RUN_STEP_END)
		lc->wall_now = wall;
	return s;
}

typedef enum run_step (*run_clock_fn)(struct run_engine *e, struct run_lcore *lc, struct run_step_state *st,
				      emu_ps_t *t);

static const run_clock_fn clocks[] = {
	[RUN_VIRTUAL] = clock_virtual,
	[RUN_REALTIME] = clock_tsc,
	[RUN_RERUN] = clock_recorded,
};

/* ---- the synchronisation: meet the other lcores, run the events to the step's time ---- */

/* Real time over several lcores: what the others sent, before the step's events (a frame late arrives now). */
static void meet_rings(struct run_lcore *lc, emu_ps_t t)
{
	run_ring_take(lc, t);
}

static void meet_none(struct run_lcore *lc, emu_ps_t t)
{
	(void)lc;
	(void)t;
}

/* Virtual time: a window with every thread (a barrier, then what crossed), or every rank (the exchange). */
static void run_window(struct run_lcore *lc, emu_ps_t t)
{
	run_win_run(lc->eng, t);
}

/* A re-run: the events due; the scheduler's clock moves to the step's time. */
static void run_due(struct run_lcore *lc, emu_ps_t t)
{
	emu_sched_run_until(lc->np->sched, t);
	if (!*lc->eng->quit) /* stopped part way (a signal): the time reached is the last event's */
		emu_sched_advance(lc->np->sched, t);
}

/* Real time: the same, the timers among the events counted, and those due more than RUN_TIMER_LATE_MARGIN before
 * the pass's time counted as late (docs/realtime.md, Lateness). */
static void run_due_rt(struct run_lcore *lc, emu_ps_t t)
{
	struct emu_sched_late n = { 0 };

	emu_sched_run_until_late(lc->np->sched, t, t > RUN_TIMER_LATE_MARGIN ? t - RUN_TIMER_LATE_MARGIN : 0, &n);
	emu_sched_advance(lc->np->sched, t);
	lc->rt.timers += n.timers;
	lc->rt.timers_late += n.late;
	if (t <= lc->stall_until) /* the timers a charged stall's jump made late */
		lc->rt.timeouts_after_stall += n.late;
	/* for another lcore that sees a stall: whether one of this lcore's events falls due in it (run_stall) */
	__atomic_store_n(&lc->next_due, emu_sched_next(lc->np->sched), __ATOMIC_RELAXED);
}

/* ---- --pass-profile (real time): where a pass's time goes ---- */

/* The end of part @p k of the pass: its TSC ticks since *@p at into @p cur, and *@p at moved on. */
static inline void prof_mark(uint64_t *cur, uint64_t *at, enum run_prof_part k)
{
	uint64_t now = dp_tsc();

	cur[k] = now - *at;
	*at = now;
}

static uint64_t ticks_ns(uint64_t ticks, uint64_t hz)
{
	return (uint64_t)((unsigned __int128)ticks * 1000000000u / hz);
}

/*
 * A pass is over, its parts' ticks in @p cur: counted if it was busy (@p due: it had an event due; or it took
 * 1 us or more); if it was late by more than 10 us, the longest of the previous pass's parts after its receive,
 * or this pass's own receive, is counted as what came before it. Then @p cur becomes the previous pass's.
 */
static void prof_pass(struct run_prof *p, const uint64_t *cur, uint64_t hz, bool due, bool late)
{
	uint64_t all = 0;

	for (int k = 0; k < RUN_PROF_PARTS; k++)
		all += cur[k];
	if (late) {
		enum run_prof_part worst = RUN_PROF_RX;

		for (int k = RUN_PROF_EVENTS; k < RUN_PROF_PARTS; k++)
			if (p->last[k] > (worst == RUN_PROF_RX ? cur[RUN_PROF_RX] : p->last[worst]))
				worst = (enum run_prof_part)k;
		p->late_after[worst]++;
	}
	for (int k = 0; k < RUN_PROF_PARTS; k++)
		p->last[k] = cur[k];
	uint64_t all_ns = ticks_ns(all, hz);

	if (!due && all_ns < 1000)
		return;
	p->busy++;
	for (int k = 0; k < RUN_PROF_N; k++) {
		uint64_t ns = k == RUN_PROF_PASS ? all_ns : ticks_ns(cur[k], hz);

		emu_hist_add(&p->ns[k], ns);
		p->over10[k] += ns > 10000;
	}
}

/* ---- the loop ---- */

/* One lcore's loop: steps until its clock ends it, or (real time) the stop time or the caller's end. */
static void loop(struct run_lcore *lc)
{
	struct run_engine *e = lc->eng;
	const struct run_hooks *h = e->h;
	const bool main_lc = lc->idx == 0;
	const run_clock_fn clock = clocks[e->clock];
	/* chosen once: how the step meets the other lcores, and how it runs its events */
	const bool rings = e->clock == RUN_REALTIME && e->n > 1;
	void (*const meet)(struct run_lcore *, emu_ps_t) = rings ? meet_rings : meet_none;
	void (*const run)(struct run_lcore *, emu_ps_t) = e->clock == RUN_VIRTUAL ? run_window :
							  e->clock == RUN_REALTIME ? run_due_rt : run_due;
	/* real time takes what waits on the ports in its clock (clock_tsc), before the pass's events run */
	const bool rx_in_clock = e->clock == RUN_REALTIME;
	struct run_step_state st = { .last_tick = h->t0, .check = h->check_period };
	struct run_prof *const prof = e->clock == RUN_REALTIME ? lc->prof : NULL;
	uint64_t cur[RUN_PROF_PARTS] = { 0 }, at = 0, due0 = 0, late0 = 0;

	if (e->clock == RUN_REALTIME) {
		run_clock_init(&st.c, h->t0, h->hz, h->scale, h->lag_limit, h->lag_policy);
		run_clock_init(&st.wall, h->t0, h->hz, 1, 0, 0);
		run_clock_stall(&st.c, &e->stall);
	}
	for (;;) {
		emu_ps_t t;

		if (prof != NULL) {
			at = dp_tsc();
			due0 = lc->rt.late_ns.count;
			late0 = lc->rt.late_over[1];
		}
		enum run_step s = clock(e, lc, &st, &t);

		if (prof != NULL) { /* the clock took the ports' frames, then read the TSC into st.tsc */
			cur[RUN_PROF_RX] = st.tsc - at;
			at = st.tsc;
		}
		if (s == RUN_STEP_END) {
			if (rx_in_clock) /* the clock gave the ports their turn: what it staged goes out */
				run_ports_flush(e, lc);
			break;
		}
		meet(lc, t);
		if (main_lc && s == RUN_STEP_RUN && h->pass != NULL)
			h->pass(h->ctx, t);
		run(lc, t);
		if (prof != NULL)
			prof_mark(cur, &at, RUN_PROF_EVENTS);
		if (main_lc && h->sample != NULL && e->clock != RUN_VIRTUAL)
			run_sample(e, h, t);
		if (prof != NULL)
			prof_mark(cur, &at, RUN_PROF_SAMPLE);
		__atomic_store_n(&lc->rt_now, t, __ATOMIC_RELAXED);
		if (s == RUN_STEP_LAST)
			break;
		if (!rx_in_clock)
			run_ports_rx(e, lc);
		if (main_lc && h->after_rx != NULL)
			h->after_rx(h->ctx);
		else if (!main_lc && h->lc_after_rx != NULL)
			h->lc_after_rx(h->ctx, lc->idx);
		run_ports_flush(e, lc);
		if (prof != NULL)
			prof_mark(cur, &at, RUN_PROF_FLUSH);
		if (main_lc) {
			if (e->clock == RUN_VIRTUAL) {
				if (run_win_logged(e) >= RUN_LOG_FLUSH)
					run_vt_flush(e);
			} else {
				run_rt_drain(e);
			}
			if (e->n > 1 && h->sum != NULL)
				h->sum(h->ctx);
		}
		if (prof != NULL)
			prof_mark(cur, &at, RUN_PROF_WRITER);
		/* the caller's end of the step: it may bring the stop time forward */
		bool done = main_lc && h->pass_end != NULL && h->pass_end(h->ctx, t);
		emu_ps_t stop = stop_of(h);

		if (stop != EMU_PS_NEVER ? t >= stop : done) {
			if (rx_in_clock) { /* the ports' last turn, as the pass's end had it before the next clock */
				run_ports_rx(e, lc);
				run_ports_flush(e, lc);
			}
			break;
		}
		if (main_lc && h->tick != NULL && e->clock == RUN_REALTIME) {
			uint64_t tsc = st.tsc;

			if (tsc - st.last_tick >= h->hz) {
				/* each lcore's worst of the second (another's: as it is) */
				for (uint32_t i = 0; i < e->n; i++) {
					struct run_lcore *o = &e->lcs[i];
					emu_ps_t w = __atomic_exchange_n(&o->late_win, 0, __ATOMIC_RELAXED);

					__atomic_store_n(&o->late_last_s, w, __ATOMIC_RELAXED);
				}
				h->tick(h->ctx, tsc, tsc - st.last_tick);
				st.last_tick = tsc;
			}
		}
		if (prof != NULL) {
			prof_mark(cur, &at, RUN_PROF_END);
			prof_pass(prof, cur, h->hz, lc->rt.late_ns.count != due0, lc->rt.late_over[1] != late0);
		}
	}
	if (e->clock == RUN_REALTIME) {
		if (main_lc || lc->lagged)
			__atomic_store_n(&e->lc_stop, 1, __ATOMIC_RELEASE);
		__atomic_store_n(&lc->exited, 1, __ATOMIC_RELEASE);
	}
}

static int lcore_main(void *arg)
{
	loop(arg);
	return 0;
}

int run_go(struct run_engine *e, const struct run_hooks *h, enum run_end *why, emu_ps_t *end)
{
	uint32_t launched = 1;
	int rc = 0;

	e->h = h;
	e->why = RUN_END_DONE;
	for (uint32_t i = 0; i < e->n; i++) /* a signal ends a step whose events never run out, too */
		if (e->lcs[i].np != NULL && e->lcs[i].np->sched != NULL)
			emu_sched_stop_on(e->lcs[i].np->sched, e->quit);
	if (e->clock == RUN_VIRTUAL && (rc = run_win_start(e)) < 0) {
		e->h = NULL;
		return rc;
	}
	if (e->clock == RUN_REALTIME) {
		run_stall_init(&e->stall, h->t0, h->hz, h->stall_ns, h->stall_hold, h->stall_budget_pct, h->stall_rto);
		/* before any lcore's loop starts; 0 until its first pass: a stall then is never taken for idle */
		for (uint32_t i = 0; i < e->n && i < RUN_STALL_LCORES; i++) {
			e->lcs[i].next_due = 0;
			e->stall.next[i] = &e->lcs[i].next_due;
		}
	}
	for (uint32_t i = 0; h->profile && e->clock == RUN_REALTIME && i < e->n; i++)
		if (e->lcs[i].prof == NULL && (e->lcs[i].prof = calloc(1, sizeof(*e->lcs[i].prof))) == NULL)
			fprintf(stderr, "[uetemu] lcore %u: no memory for --pass-profile; its passes are not timed\n",
				e->lcs[i].lcore_id);
	for (uint32_t i = 1; e->clock == RUN_REALTIME && i < e->n; i++, launched++)
		if (h->launch(h->launch_ctx, e->lcs[i].lcore_id, lcore_main, &e->lcs[i]) < 0) {
			fprintf(stderr, "[uetemu] lcore %u would not start; the run stops\n", e->lcs[i].lcore_id);
			__atomic_store_n(&e->lc_stop, 1, __ATOMIC_RELEASE);
			break;
		}
	loop(&e->lcs[0]);
	if (e->clock == RUN_VIRTUAL)
		run_win_stop(e);
	for (uint32_t i = 1; e->clock == RUN_REALTIME && i < launched; i++)
		h->join(h->launch_ctx, e->lcs[i].lcore_id);
	*end = 0;
	if (e->clock == RUN_REALTIME) {
		run_rt_drain(e);
		if (h->sum != NULL)
			h->sum(h->ctx);
	}
	for (uint32_t i = 0; e->clock != RUN_VIRTUAL && i < e->n; i++) {
		*end = e->lcs[i].rt_now > *end ? e->lcs[i].rt_now : *end;
		e->why = e->lcs[i].lagged ? RUN_END_LAG : e->why;
	}
	if (e->clock == RUN_REALTIME && *e->quit && e->why == RUN_END_DONE)
		e->why = RUN_END_QUIT;
	*why = e->why;
	e->h = NULL;
	return 0;
}
