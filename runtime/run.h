/*
 * The engine of a run (docs/architecture.md, Layers; docs/parallel.md; docs/realtime.md): partitions spread over
 * lcores (real time: DPDK lcores; virtual time: threads, or MPI ranks), their schedulers and packet pools, the
 * links split between two of them, generic cross-partition events, the outputs going to the writer, and the
 * loops that run them: the conservative windows of virtual time, the TSC-paced poll loop of real time. It knows
 * nothing of configs, hosts or NIC kinds: the caller says which partition runs where, which links are split, and
 * what its own events do.
 *
 * One engine is made once per run, its clock (virtual, real, a re-run's recorded one) and its synchronisation
 * (none, threads, MPI ranks) chosen then.
 */
#ifndef RUN_H
#define RUN_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "emu_sched.h"
#include "emu_time.h"
#include "net.h"
#include "run_clock.h"
#include "run_mpi.h"

/* The clock a run keeps. */
enum run_clock_kind {
	RUN_VIRTUAL = 0, /* the schedulers' own time, as fast as the CPU allows */
	RUN_REALTIME,    /* the TSC, paced (run_clock.h) */
	RUN_RERUN,       /* the passes of a recorded real-time session, played in virtual time (one lcore) */
};

/* How the lcores of a run keep in step. */
enum run_sync {
	RUN_SYNC_NONE = 0, /* one lcore */
	RUN_SYNC_THREADS,  /* virtual time: threads in windows (barriers); real time: lcores through rings */
	RUN_SYNC_MPI,      /* virtual time: MPI ranks in windows (all-to-all exchanges) */
};

#define RUN_REMOTE UINT32_MAX /* the lcore of a partition another process runs */

struct run_engine;
struct run_spsc;
struct run_xroute;
struct run_vbox;
struct run_vlog;

/*
 * One lcore (thread, rank) of a run: the partitions it runs, with one scheduler, descriptor pool and counters for
 * them all, its real-time clock and lateness, and what crossed to and from the others. Written only by its own
 * lcore; read by the main lcore, reports and telemetry (relaxed loads). Index 0 runs on the main lcore.
 */
struct run_lcore {
	struct run_engine *eng;
	uint32_t idx;                /* index among the engine's lcores */
	unsigned lcore_id;           /* the EAL lcore (real time) */
	struct net_part *np;         /* its partition state: the caller's for index 0, else own_np */
	struct net_part own_np;
	void *user;                  /* the caller's, for its hooks */
	emu_ps_t rt_now;             /* real time, a re-run: the emulated time of its current pass */
	emu_ps_t wall_now;           /* real time, a re-run: the wall-clock time of that pass */
	emu_ps_t late_win, late_last_s; /* real time: the most an event ran late in the current second, and the last */
	emu_ps_t stall_until;        /* real time: late timers up to this time count as after a charged stall */
	emu_ps_t next_due;           /* real time: its earliest pending event at its last pass (run_stall.next) */
	struct run_rt_stats rt;      /* real time: its passes' lateness, what the LagPolicy did */
	struct run_prof *prof;       /* real time, run_hooks.profile: where its passes' time went; else NULL */
	bool lagged;                 /* real time: LagPolicy abort stopped it */
	uint64_t x_sent, x_recv;     /* frames it sent to, and took from, other lcores */
	uint64_t x_late;             /* frames taken after their arrival time: delivered at once */
	emu_ps_t x_late_max;         /* the latest of them */
	uint64_t x_full;             /* frames and events lost: the ring to another lcore was full */
	uint64_t wr_full;            /* outputs lost: the ring to the writer was full */
	uint64_t wait_ns;            /* virtual time: what its thread waited at the windows' barriers (MPI: the rank
	                                at the window's minimum and exchange) */
	uint64_t helped;             /* virtual time: phases of its windows another thread ran (its own had no CPU) */
	uint64_t wait_avg_ns;        /* virtual time: its thread's typical wait (the engine's spin budget) */
	uint64_t samples_ack;        /* real time: the last sampling pause it stopped for (atomic) */
	int exited;                  /* real time: its loop has ended (atomic) */
	/* the engine's own */
	struct run_spsc **in;        /* real time: from each other lcore (index = sender; NULL for itself) */
	struct run_xroute *out;      /* to each other lcore (index = receiver) */
	struct run_spsc *wr;         /* real time: to the writer on the main lcore */
	struct run_vbox *vout;       /* virtual time: frames and events to each other thread, for the window's end */
	struct run_vlog *vlog;       /* virtual time: its outputs with their tags */
} __attribute__((aligned(64)));

/** Writes one output (run_out()) on the main lcore: @p rec, @p len bytes, 8-aligned. */
typedef void (*run_write_fn)(void *ctx, const void *rec, uint32_t len);

/* How to make an engine. */
struct run_params {
	enum run_clock_kind clock;
	enum run_sync sync;
	uint32_t n_lcores;             /* lcores (threads, ranks): 1 .. RUN_LCORES_MAX */
	uint32_t rank;                 /* RUN_SYNC_MPI: the lcore this process runs */
	const unsigned *lcore_ids;     /* real time: the EAL lcores, main first; else NULL */
	struct net_part *main_np;      /* lcore 0's partition state, made by the caller */
	uint32_t max_events, max_pkts; /* each other lcore's partition state */
	volatile sig_atomic_t *quit;   /* set by a signal: the loops stop */
	run_write_fn write;            /* the writer of the outputs */
	void *write_ctx;
};

/** Make an engine: its lcores and their partitions. 0, or -errno with @p err. */
int run_create(struct run_engine **out, const struct run_params *p, char *err, size_t errlen);
/** Free @p e, its lcores, their partitions (not lcore 0's, the caller's) and rings. Accepts NULL. */
void run_destroy(struct run_engine *e);

/** Virtual time, once the models are built: the schedulers count @p n entities (emu_sched_entities()), which
 *  order the events of one time. 0 or -ENOMEM. */
int run_entities(struct run_engine *e, uint32_t n);

uint32_t run_n_lcores(const struct run_engine *e);
struct run_lcore *run_lcore(struct run_engine *e, uint32_t i);
const struct run_lcore *run_lcore_c(const struct run_engine *e, uint32_t i);
enum run_clock_kind run_clock(const struct run_engine *e);
/** The CPUs this process may run on (sched_getaffinity, at least 1), and how many of them are free: less those
 *  others keep busy by /proc/loadavg, the fewer of its 1-minute load (rounded) and the tasks running now but the
 *  caller; at least 1. */
uint32_t run_cpus_free(uint32_t *cpus);
/** Whether @p lc writes the outputs itself (the main lcore of real time or a re-run): else run_out() hands them. */
bool run_lcore_is_writer(const struct run_lcore *lc);

/**
 * Split link @p l between lcores @p la (end a) and @p lb (end b): each direction's sender uses its own partition,
 * its arrival the receiver's; between two lcores each direction crosses (virtual time: the window's boxes; real
 * time: the rings). @p name says what the link is, should its delay give the lookahead.
 */
void run_split_link(struct run_engine *e, struct net_link *l, uint32_t la, uint32_t lb, const char *name);
/** Virtual time: the windows' lookahead is at most @p delay (@p what gives it, for the summary). */
void run_lookahead_bound(struct run_engine *e, emu_ps_t delay, const char *what);

/** Real time: the rings between every two lcores, and from each to the writer. 0 or -ENOMEM. */
int run_rings(struct run_engine *e);

/* ---- generic cross-partition events ---- */

/** What a cross-partition event does, on the lcore it was sent to, at @p now. */
typedef void (*run_xev_fn)(void *ctx, struct run_lcore *lc, uint64_t arg, emu_ps_t now);

/** Register a kind of event (its function and context, the same on every rank, in the same order): its number,
 *  or -ENOSPC. An event's argument is at most 58 bits. */
int run_xev_kind(struct run_engine *e, run_xev_fn fn, void *ctx);
/**
 * Post an event of @p kind with @p arg from @p lc to the partitions of lcore @p to, due at @p at. Virtual time: it
 * runs there at @p at in the order @p lc draws now (emu_sched_key), whichever lcore it is (at least one lookahead
 * away when @p to is another). Real time: on @p lc itself at once, on another once taken from the ring, stamped the
 * later of @p at and that pass's time. RUN_REMOTE: dropped (another process).
 */
void run_xev_post(struct run_lcore *lc, uint32_t to, int kind, uint64_t arg, emu_ps_t at);

/* ---- outputs to the writer ---- */

/**
 * Hand an output (@p hdr then @p body) from @p lc to the writer: virtual time into its thread's log, tagged with the
 * event under way and written sorted by the tags (the same files whatever the number of threads); real time
 * through its ring (a full ring counted in wr_full); a re-run, written at once.
 */
void run_out(struct run_lcore *lc, const void *hdr, uint32_t hlen, const void *body, uint32_t blen);
/** The main lcore: write what the logs or rings hold. */
void run_out_drain(struct run_engine *e);

/* ---- virtual time ---- */

/**
 * The end of the window that starts at the earliest pending event @p next, over @p n threads (or ranks) with
 * @p lookahead: next + lookahead - 1 (what any thread sends in it arrives after it), a slice on one thread; never
 * past the caller's work @p due or the @p limit, never EMU_PS_NEVER.
 */
emu_ps_t run_window_end(emu_ps_t next, emu_ps_t lookahead, uint32_t n, emu_ps_t due, emu_ps_t limit);

/* A virtual-time run's figures. */
struct run_vt_info {
	uint32_t n;             /* threads or ranks */
	bool mpi;
	uint32_t me;            /* MPI: this rank */
	emu_ps_t lookahead;     /* the smallest delay between two threads (n > 1) */
	const char *la_what;    /* what gives it */
	uint64_t windows;
	uint64_t windows_alone; /* threads: of them, those the main thread ran alone (too few events for more) */
};
void run_vt_info(const struct run_engine *e, struct run_vt_info *out);
/** The time of the last event run by any lcore, and the events run (this process's). */
emu_ps_t run_last_event(const struct run_engine *e, uint64_t *events);
/** run_last_event() over every rank (MPI: a collective, every rank calls it at the same point). */
emu_ps_t run_last_event_all(const struct run_engine *e);
/** Outputs and frames @p lc lost for want of memory (its log, its boxes). */
uint64_t run_lcore_lost(const struct run_lcore *lc);

/* ---- real time ---- */

/* A DPDK port (or anything polled) of a real-time run: the loop of its lcore calls rx once a pass, after the
 * events due, then (every port received) flush. */
struct run_port {
	uint32_t lc;
	void (*rx)(void *arg);
	void (*flush)(void *arg);
	void *arg;
};

/** Poll @p p from its lcore's loop. 0 or -ENOMEM. */
int run_port_add(struct run_engine *e, const struct run_port *p);

/** Real time: the run's stall figures so far (run_stall_stats(): stalls, stalls_charged, stall_ns, stall_max_ns,
 *  stall_held_ns) into @p out, its other fields untouched; relaxed loads, callable from any thread. */
void run_stalls(const struct run_engine *e, struct run_rt_stats *out);

/** The lcores' lateness and LagPolicy figures merged into @p out. */
void run_rt_merge(const struct run_engine *e, struct run_rt_stats *out);

/* ---- the loop ---- */

/* What a step of the loop does: run to its time and go on, run to it and end there, or end now. */
enum run_step { RUN_STEP_RUN = 0, RUN_STEP_LAST, RUN_STEP_END };

enum run_end { RUN_END_DONE = 0, RUN_END_STALLED, RUN_END_QUIT, RUN_END_LAG };

/** A worker lcore's start (real time): the dataplane launches @p arg's loop there. 0 or -errno. */
typedef int (*run_launch_fn)(void *ctx, unsigned lcore_id, int (*fn)(void *), void *arg);
typedef void (*run_join_fn)(void *ctx, unsigned lcore_id);

/*
 * What the loop asks of its caller. One loop serves every clock: each step takes the time it runs to from the
 * clock (virtual: the window's end; real: the TSC, paced; a re-run: the next recorded pass), meets the other lcores
 * (threads: the windows' barrier; real time: the rings; MPI: the exchange), runs the events up to it, then the
 * caller's work of the step: periodic rows, the ports' receive and flush, the outputs, the end. NULL hooks are
 * skipped; those marked main run on the main lcore only.
 */
struct run_hooks {
	void *ctx;
	/** Main: the next time periodic rows fall due (EMU_PS_NEVER: none), and their sampling at @p t (real time
	 *  over several lcores: every other lcore paused; virtual time: every event before @p t run). */
	emu_ps_t (*due)(void *ctx);
	void (*sample)(void *ctx, emu_ps_t t);
	/* virtual time */
	/** The time the run stops at now (EMU_PS_NEVER - 1: none); it may come down as the run goes. */
	emu_ps_t (*limit)(void *ctx);
	/** 0, or the period of a no-progress check: at each multiple of it in which an event ran, every event before
	 *  it run (every rank calls it alike); true stops the run as stalled. */
	emu_ps_t check_period;
	bool (*stalled)(void *ctx, emu_ps_t t);
	/* real time */
	uint64_t t0, hz;             /* the TSC at the run's time 0, and its rate */
	uint64_t scale;              /* TimeScale */
	emu_ps_t lag_limit;
	uint8_t lag_policy;          /* enum emu_lag_policy */
	uint64_t stall_ns;           /* a gap between two passes of an lcore over this (wall ns) is a stall; 0 none */
	bool stall_hold;             /* stalls are held back (the clock keeps time), within stall_budget_pct % */
	uint32_t stall_budget_pct;   /* ... of the wall time run so far; past it they are charged (docs/realtime.md) */
	emu_ps_t stall_rto;          /* the smallest RTO: late timers this long after a charged stall are counted */
	run_launch_fn launch;        /* the worker lcores' start and end */
	run_join_fn join;
	void *launch_ctx;
	/** The stop time now (EMU_PS_NEVER: none). */
	emu_ps_t (*stop)(void *ctx);
	bool profile;                /* time the parts of every lcore's passes (run_lcore.prof, --pass-profile) */
	/** Main, once a second: @p dt TSC ticks since the last. */
	void (*tick)(void *ctx, uint64_t tsc, uint64_t dt);
	/* a re-run */
	/** The next recorded step: its time and wall clock; RUN_STEP_LAST the log's end, RUN_STEP_END none left. */
	enum run_step (*recorded)(void *ctx, emu_ps_t *t, emu_ps_t *wall);
	/* every clock */
	/** Main: a pass at @p now begins, before its events (a session log). */
	void (*pass)(void *ctx, emu_ps_t now);
	/** Main: every port received (DPDK-port replays stage their frames). */
	void (*after_rx)(void *ctx);
	/** Every other lcore, at the same point of its own pass: lcore @p lc's ports received (control commands for
	 *  its hosts are applied there). Optional. */
	void (*lc_after_rx)(void *ctx, uint32_t lc);
	/** Main: the step at @p now is over, the outputs written; it may bring the stop time forward. Without a stop
	 *  time, true ends the run (the work is done). */
	bool (*pass_end)(void *ctx, emu_ps_t now);
	/** Main, where every lcore's figures are wanted (several lcores): the caller sums its own. */
	void (*sum)(void *ctx);
};

/**
 * Run the loop until its clock ends it (virtual time: no event left, the limit, the stall check; real time: the
 * stop time, pass_end, LagPolicy abort; a re-run: the log's end) or a signal. Real time launches the worker
 * lcores' loops; virtual time starts the threads that follow the windows. *@p why says how it ended, *@p end the
 * latest time any lcore reached (real time, a re-run). 0, or -errno (threads that could not start).
 */
int run_go(struct run_engine *e, const struct run_hooks *h, enum run_end *why, emu_ps_t *end);

/** A re-run: lcore 0's events up to @p t, the clock advanced to it (past the log's last record). */
void run_rerun_until(struct run_engine *e, emu_ps_t t);

#endif /* RUN_H */
