/* The engine's own state, shared by its files (run.c, run_win.c, run_poll.c). */
#ifndef RUN_PVT_H
#define RUN_PVT_H

#include <pthread.h>

#include "run.h"
#include "run_spsc.h"

#define RUN_XEV_MAX 16 /* kinds of cross-partition event */

/* What crosses between two lcores: a frame, or a generic event. */
enum run_xkind { RUN_X_FRAME = 1, RUN_X_EVENT };

/* A registered event kind. */
struct run_xev {
	run_xev_fn fn;
	void *ctx;
	struct run_engine *eng;
};

/* One way between two lcores: the sender (its counters), the receiver, the ring (real time). The cross_arg of the
 * links it carries. */
struct run_xroute {
	struct run_lcore *from;
	uint32_t to;
	struct run_spsc *ring;
};

/* A virtual-time message to another thread: a frame arriving on @p dir, or an event; at @p at in the order @p k. */
struct run_vmsg {
	uint32_t kind;           /* enum run_xkind */
	uint32_t ev;             /* EVENT: its kind */
	emu_ps_t at;
	struct emu_sched_key k;
	struct net_dir *dir;     /* FRAME */
	uint64_t arg;            /* EVENT */
	struct wire_pkt pkt;     /* FRAME */
};

/* Messages from one thread to another in a window: taken by the receiver at the window's end. */
struct run_vbox {
	struct run_vmsg *v;
	size_t n, cap;
	uint64_t lost;           /* no memory to hold one: counted */
};

/* An output of a thread, tagged: its bytes at off in the log's buffer. */
struct run_vent {
	struct emu_sched_tag tag;
	uint32_t lc;
	uint32_t off, len;
};

struct run_vlog {
	struct run_vent *e;
	size_t n, cap;
	uint8_t *buf;
	size_t used, size;
	uint64_t lost;
};

/* A message between ranks: what run_vmsg holds, the direction as its link's index (every rank builds the same
 * model, its links in one array: the split links' order). */
struct run_vwire {
	uint32_t kind;
	uint32_t idx;            /* FRAME: split link * 2 + direction; EVENT: its kind */
	emu_ps_t at;
	struct emu_sched_key k;
	uint64_t arg;            /* EVENT */
	struct wire_pkt pkt;     /* FRAME */
};

/* A split link and its index, sorted by address (MPI: a frame's direction crosses as its index). */
struct run_split_ix {
	uintptr_t addr;
	uint32_t idx;
};

struct run_engine {
	enum run_clock_kind clock;
	enum run_sync sync;
	uint32_t n;                  /* lcores (threads, ranks) */
	uint32_t me;                 /* MPI: this rank (its lcore); else 0 */
	struct run_lcore *lcs;
	volatile sig_atomic_t *quit;
	run_write_fn write;
	void *write_ctx;
	struct run_xev xev[RUN_XEV_MAX];
	uint32_t n_xev;
	/* split links (MPI: a direction crosses as its index here) */
	struct net_link **split;
	size_t n_split, cap_split;
	struct run_split_ix *by_addr; /* MPI: the split links sorted by address, for a direction's index */
	/* virtual time */
	emu_ps_t lookahead;
	char la_what[96];
	uint64_t windows;
	uint64_t windows_alone;      /* threads: windows the main thread ran alone, too small for the others */
	uint32_t alone_left;         /* ... and how many more it runs so */
	emu_ps_t W;                  /* the window's end, written by the main thread before the start barrier */
	int exit;                    /* the main thread tells the others to end (atomic) */
	uint32_t phase;              /* the phase under way: even, run to W; odd, take (atomic; a futex) */
	uint32_t done;               /* lcores done in the phase (atomic; a futex the main thread sleeps on) */
	uint32_t sleepers;           /* workers asleep on phase (atomic) */
	uint32_t main_sleeps;        /* the main thread sleeps on done (atomic) */
	uint32_t claim[RUN_LCORES_MAX]; /* each lcore's last phase, once a thread has claimed it (atomic) */
	uint32_t asleep[RUN_LCORES_MAX]; /* each worker sleeps on phase (atomic) */
	bool crowded;                /* more threads than CPUs: no spinning */
	struct run_vent *all;        /* the merge of the logs */
	size_t cap_all;
	pthread_t *tids;
	uint32_t n_tids;
	struct run_vwire *xout;      /* MPI: a window's messages to every rank, rank by rank */
	size_t xout_cap;
	uint32_t xout_len[RUN_LCORES_MAX];
	uint8_t *xin;
	size_t xin_cap;
	uint32_t xin_len[RUN_LCORES_MAX];
	uint64_t xmin[RUN_MPI_XMIN]; /* MPI: the next event and the stop, as the last exchange left them */
	bool xmin_fresh;             /* MPI: xmin is the next window's (no run_win_next since the exchange) */
	/* real time */
	struct run_port *ports;
	size_t n_ports, cap_ports;
	const struct run_hooks *h;   /* the loop under way */
	enum run_end why;
	int lc_stop;                 /* the main lcore tells the others to stop (atomic) */
	uint64_t samples_req;        /* the sampling pause the main lcore asks for (atomic) */
	uint64_t samples_go;         /* ... and the one it has finished (atomic) */
	struct run_stall stall;      /* the stalls, shared by every lcore's clock (run_clock.h) */
};

/** Room for @p need elements of @p elem bytes in *@p p (holding *@p cap), doubled from @p first. False without
 *  memory, *@p p untouched. */
bool run_grow(void *p, size_t *cap, size_t need, size_t elem, size_t first);
uint64_t run_mono_ns(void);
/** The CPUs this process may run on (sched_getaffinity), at least 1. */
uint32_t run_cpus(void);
/** Schedule on @p lc an event of kind @p ev (virtual time: at @p at in the order @p k). */
void run_xev_deliver(struct run_lcore *lc, uint32_t ev, uint64_t arg, emu_ps_t at, const struct emu_sched_key *k);
/** Virtual time: the net_cross_fn of a link between two threads. */
void run_vt_cross(void *arg, struct net_dir *d, const struct wire_pkt *pkt, emu_ps_t at, const struct emu_sched_key *k);
/** Real time: the net_cross_fn of a link between two lcores. */
void run_rt_cross(void *arg, struct net_dir *d, const struct wire_pkt *pkt, emu_ps_t at, const struct emu_sched_key *k);
/** Real time: post an event through the ring to lcore @p to. */
void run_rt_post(struct run_lcore *lc, uint32_t to, uint32_t ev, uint64_t arg, emu_ps_t at);
/** Virtual time: put an output of @p lc in its log. */
void run_vt_log(struct run_lcore *lc, const void *hdr, uint32_t hlen, const void *body, uint32_t blen);
/** Virtual time: write the logs sorted by tag, and empty them. */
void run_vt_flush(struct run_engine *e);
/** Real time: write what the rings to the writer hold. */
void run_rt_drain(struct run_engine *e);

/* run_win.c: the windows' synchronisation */
/** Start the threads other than the main one (threads only). 0, or -errno with none left running. */
int run_win_start(struct run_engine *e);
void run_win_stop(struct run_engine *e);
/** The earliest pending event of any thread (every one idle); MPI: of any rank, and whether any was signalled. */
emu_ps_t run_win_next(struct run_engine *e, bool *quit);
/** The main thread runs a window to @p W with the others (MPI: this rank's, then the exchange). */
void run_win_run(struct run_engine *e, emu_ps_t W);
/** Outputs the threads' logs hold. */
size_t run_win_logged(const struct run_engine *e);

/* run_poll.c: the rings, the sampling pause, the ports */
/** Take what other lcores sent @p lc; one due before @p now arrives now. */
void run_ring_take(struct run_lcore *lc, emu_ps_t now);
/** Main: the periodic rows due by @p now, sampled while every other lcore waits at the top of its pass. */
void run_sample(struct run_engine *e, const struct run_hooks *h, emu_ps_t now);
/** A worker's side of run_sample(): wait here while the main lcore samples. */
void run_sample_wait(struct run_lcore *lc);
void run_ports_rx(struct run_engine *e, const struct run_lcore *lc);
void run_ports_flush(struct run_engine *e, const struct run_lcore *lc);

#endif /* RUN_PVT_H */
