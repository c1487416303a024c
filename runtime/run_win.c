/*
 * Virtual time over threads or MPI ranks (docs/parallel.md): conservative windows.
 *
 * Every thread runs its partitions' events up to the window's end, W = (the earliest pending event of any thread)
 * + lookahead - 1, where the lookahead is the smallest delay of a link between two threads (or of an event posted
 * across them): a frame sent in the window arrives after it (a frame takes its serialization, at least a
 * picosecond, and its link's delay). At the window's end (a barrier; between ranks, an all-to-all exchange) each
 * thread takes the frames and events the others sent it, each with the place in the order its sender drew
 * (emu_sched_key), so every device runs its events in one order however the fabric is cut. The outputs go into
 * each thread's log with their tag (emu_sched_tag) and are written sorted by it when the caller's own work falls
 * due, when the logs grow large, and at the end: the same files whatever the number of threads, one included.
 */
#include "run_pvt.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* One thread: between progress checks, run this much simulated time. */
#define RUN_SLICE_PS (10 * EMU_PS_PER_US)

/* ---- crossing between threads ---- */

void run_vt_cross(void *arg, struct net_dir *d, const struct wire_pkt *pkt, emu_ps_t at, const struct emu_sched_key *k)
{
	struct run_xroute *x = arg;
	struct run_vbox *b = &x->from->vout[x->to];

	if (pkt->kind == WIRE_KIND_RAW) { /* a real device's frame in a re-run: its bytes do not cross threads */
		x->from->np->counters[NET_C_RAW_CROSS_DROP]++;
		return;
	}
	if (!run_grow(&b->v, &b->cap, b->n + 1, sizeof(*b->v), 256)) {
		b->lost++;
		return;
	}
	struct run_vmsg *m = &b->v[b->n++];

	m->kind = RUN_X_FRAME;
	m->at = at;
	m->k = *k;
	m->dir = d;
	memcpy(&m->pkt, pkt, wire_pkt_len(pkt->kind)); /* the bytes its kind reads (net_pkt_copy()) */
	x->from->x_sent++;
}

/* A frame another thread or rank sent @p lc: a copy of @p pkt arriving on @p dir at @p at, in the order @p k. */
static void deliver_frame(struct run_lcore *lc, emu_ps_t at, const struct emu_sched_key *k, struct net_dir *dir,
			  const struct wire_pkt *pkt)
{
	struct wire_pkt *p = net_pkt_copy(lc->np, pkt); /* the bytes its kind reads, not the whole descriptor */

	lc->x_recv++;
	if (p == NULL)
		return;
	if (at <= emu_sched_now(lc->np->sched)) /* a window too wide: never, but counted */
		lc->x_late++;
	net_dir_arrive_key(dir, p, at, k);
}

static void deliver(struct run_lcore *lc, const struct run_vmsg *m)
{
	if (m->kind == RUN_X_EVENT)
		run_xev_deliver(lc, m->ev, m->arg, m->at, &m->k);
	else
		deliver_frame(lc, m->at, &m->k, m->dir, &m->pkt);
}

/* Take what the other threads sent @p lc in the window. */
static void take(struct run_engine *e, struct run_lcore *lc)
{
	for (uint32_t s = 0; s < e->n; s++) {
		struct run_vbox *b = &e->lcs[s].vout[lc->idx];

		if (s == lc->idx)
			continue;
		for (size_t i = 0; i < b->n; i++)
			deliver(lc, &b->v[i]);
		b->n = 0;
	}
}

uint64_t run_lcore_lost(const struct run_lcore *lc)
{
	uint64_t lost = lc->vlog != NULL ? lc->vlog->lost : 0;

	for (uint32_t k = 0; lc->vout != NULL && k < lc->eng->n; k++)
		lost += lc->vout[k].lost;
	return lost;
}

/* ---- the outputs' logs ---- */

void run_vt_log(struct run_lcore *lc, const void *hdr, uint32_t hlen, const void *body, uint32_t blen)
{
	struct run_vlog *g = lc->vlog;
	size_t need = ((size_t)hlen + blen + 7) & ~(size_t)7;

	if (!run_grow(&g->e, &g->cap, g->n + 1, sizeof(*g->e), 1024) ||
	    !run_grow(&g->buf, &g->size, g->used + need, 1, 1u << 16)) {
		g->lost++;
		return;
	}
	struct run_vent *v = &g->e[g->n++];

	emu_sched_tag(lc->np->sched, &v->tag);
	v->lc = lc->idx;
	v->off = (uint32_t)g->used;
	v->len = hlen + blen;
	memcpy(g->buf + g->used, hdr, hlen);
	if (blen > 0) /* a header alone may come with no body (NULL) */
		memcpy(g->buf + g->used + hlen, body, blen);
	g->used += need;
}

static int ent_cmp(const void *x, const void *y)
{
	return emu_sched_tag_cmp(&((const struct run_vent *)x)->tag, &((const struct run_vent *)y)->tag);
}

size_t run_win_logged(const struct run_engine *e)
{
	size_t n = 0;

	for (uint32_t i = 0; i < e->n; i++)
		n += e->lcs[i].vlog->n;
	return n;
}

/* Without memory to sort them, the outputs are written thread by thread rather than lost. */
void run_vt_flush(struct run_engine *e)
{
	bool sort = run_grow(&e->all, &e->cap_all, run_win_logged(e), sizeof(*e->all), 1024);
	size_t n = 0;

	for (uint32_t i = 0; i < e->n; i++) {
		struct run_vlog *g = e->lcs[i].vlog;

		for (size_t k = 0; k < g->n; k++)
			if (sort)
				e->all[n++] = g->e[k];
			else
				e->write(e->write_ctx, g->buf + g->e[k].off, g->e[k].len);
	}
	if (n > 0)
		qsort(e->all, n, sizeof(*e->all), ent_cmp);
	for (size_t k = 0; k < n; k++)
		e->write(e->write_ctx, e->lcs[e->all[k].lc].vlog->buf + e->all[k].off, e->all[k].len);
	for (uint32_t i = 0; i < e->n; i++) {
		e->lcs[i].vlog->n = 0;
		e->lcs[i].vlog->used = 0;
	}
}

/* ---- the threads ---- */

/*
 * A window is two phases: every lcore's events up to W, then every lcore takes what the others sent it. A phase
 * is a ticket (e->phase: even to run, odd to take) the main thread publishes; each lcore of the phase is claimed
 * by one thread (its claim word moves from the ticket before to this one), its own thread's first, and a thread
 * with nothing of its own left claims the others' that no one has started (their own thread asleep, or not
 * started within RUN_STEAL_GRACE_NS). So a thread that has no CPU (the machine is busy, or two threads share a
 * core) holds nobody up: the main thread runs its lcores' work instead, the outputs unchanged (an lcore's events
 * run in one order whichever thread runs them, and the phases keep every lcore's run before any take). The main
 * thread waits until the phase's lcores are all done.
 *
 * Waiting spins while that pays, then sleeps on a futex: a thread spins up to twice its typical wait
 * (RUN_SPIN_MIN_NS to RUN_SPIN_MAX_NS); when its waits are longer than that the one awaited is likely off a CPU,
 * so it spins RUN_SPIN_MIN_NS only and sleeps, leaving the CPU to it. A futex is woken only when someone sleeps
 * on it (e->sleepers, e->main_sleeps).
 */
#define RUN_SPIN_MIN_NS 1000u
#define RUN_SPIN_MAX_NS 50000u
#define RUN_STEAL_GRACE_NS 5000u
#define RUN_STEAL_GRACE_TAKE_NS 50000u
#define RUN_ALONE_EVENTS 256u
#define RUN_ALONE_WINDOWS 64u
#define RUN_PHASE_FIRST 1u /* the phase before the first window's: every claim word starts there */

static void futex_wait(uint32_t *w, uint32_t val)
{
	syscall(SYS_futex, w, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

static void futex_wake(uint32_t *w, int n)
{
	syscall(SYS_futex, w, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
}

/* How long @p me spins before sleeping. */
static uint64_t spin_budget(const struct run_engine *e, const struct run_lcore *me)
{
	uint64_t a = me->wait_avg_ns * 2;

	if (e->crowded || me->wait_avg_ns > RUN_SPIN_MAX_NS)
		return RUN_SPIN_MIN_NS;
	return a < RUN_SPIN_MIN_NS ? RUN_SPIN_MIN_NS : a > RUN_SPIN_MAX_NS ? RUN_SPIN_MAX_NS : a;
}

/* @p me waited from @p t0: counted, and its typical wait follows (a long one weighs at most 4 RUN_SPIN_MAX_NS). */
static void waited(struct run_lcore *me, uint64_t t0)
{
	uint64_t w = run_mono_ns() - t0;
	int64_t c = (int64_t)(w < 4 * RUN_SPIN_MAX_NS ? w : 4 * RUN_SPIN_MAX_NS);

	me->wait_ns += w;
	me->wait_avg_ns = (uint64_t)((int64_t)me->wait_avg_ns + (c - (int64_t)me->wait_avg_ns) / 8);
}

/* A worker: wait for a phase other than @p seen (a window's, or the end). */
static uint32_t await_phase(struct run_engine *e, struct run_lcore *me, uint32_t seen)
{
	uint64_t t0 = run_mono_ns(), budget = spin_budget(e, me);
	uint32_t p;

	for (uint32_t k = 0; (p = __atomic_load_n(&e->phase, __ATOMIC_ACQUIRE)) == seen; k++) {
		__builtin_ia32_pause();
		if ((k & 31) != 31 || run_mono_ns() - t0 < budget)
			continue;
		__atomic_store_n(&e->asleep[me->idx], 1, __ATOMIC_RELAXED);
		__atomic_add_fetch(&e->sleepers, 1, __ATOMIC_SEQ_CST);
		if (__atomic_load_n(&e->phase, __ATOMIC_SEQ_CST) == seen)
			futex_wait(&e->phase, seen);
		__atomic_sub_fetch(&e->sleepers, 1, __ATOMIC_SEQ_CST);
		__atomic_store_n(&e->asleep[me->idx], 0, __ATOMIC_RELAXED);
	}
	waited(me, t0);
	return p;
}

/* The main thread: wait until every lcore of the phase is done. */
static void await_done(struct run_engine *e, struct run_lcore *me)
{
	uint64_t t0 = run_mono_ns(), budget = spin_budget(e, me);
	uint32_t d;

	if (__atomic_load_n(&e->done, __ATOMIC_ACQUIRE) == e->n)
		return;
	for (uint32_t k = 0; (d = __atomic_load_n(&e->done, __ATOMIC_ACQUIRE)) != e->n; k++) {
		__builtin_ia32_pause();
		if ((k & 31) != 31 || run_mono_ns() - t0 < budget)
			continue;
		__atomic_store_n(&e->main_sleeps, 1, __ATOMIC_SEQ_CST);
		if ((d = __atomic_load_n(&e->done, __ATOMIC_SEQ_CST)) != e->n)
			futex_wait(&e->done, d);
		__atomic_store_n(&e->main_sleeps, 0, __ATOMIC_SEQ_CST);
	}
	waited(me, t0);
}

/* Thread @p self claims lcore @p i in phase @p T: whether it has it (no one had). */
static bool claim(struct run_engine *e, uint32_t i, uint32_t T)
{
	uint32_t before = T - 1;

	return __atomic_load_n(&e->claim[i], __ATOMIC_RELAXED) == before &&
	       __atomic_compare_exchange_n(&e->claim[i], &before, T, false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
}

/* Thread @p self does lcore @p i's part of phase @p T (claimed). */
static void part(struct run_engine *e, uint32_t self, uint32_t i, uint32_t T)
{
	struct run_lcore *lc = &e->lcs[i];

	if (T & 1)
		take(e, lc);
	else
		emu_sched_run_until(lc->np->sched, e->W);
	lc->helped += i != self;
	if (__atomic_add_fetch(&e->done, 1, __ATOMIC_SEQ_CST) == e->n && __atomic_load_n(&e->main_sleeps, __ATOMIC_SEQ_CST))
		futex_wake(&e->done, 1);
}

/*
 * Thread @p self's part of phase @p T, seen at @p t0: its own lcore if it has claimed it (@p mine), then each other
 * no one has started. An lcore's own thread has RUN_STEAL_GRACE_NS from t0 to start its run unless it sleeps (one
 * on a CPU starts within that, and its partitions' state stays in its caches), and RUN_STEAL_GRACE_TAKE_NS to start
 * its take, asleep or not: a take is short, and one woken from a futex takes about that long to be on a CPU.
 */
static void work(struct run_engine *e, uint32_t self, uint32_t T, bool mine, uint64_t t0)
{
	const uint64_t grace = T & 1 ? RUN_STEAL_GRACE_TAKE_NS : RUN_STEAL_GRACE_NS;

	if (mine)
		part(e, self, self, T);
	for (uint32_t k = 1; k < e->n; k++) {
		uint32_t i = (self + k) % e->n;

		for (uint32_t s = 0; __atomic_load_n(&e->claim[i], __ATOMIC_RELAXED) == T - 1 &&
				     ((T & 1) || !__atomic_load_n(&e->asleep[i], __ATOMIC_RELAXED)); s++) {
			__builtin_ia32_pause();
			if ((s & 7) == 7 && run_mono_ns() - t0 >= grace)
				break;
		}
		if (claim(e, i, T))
			part(e, self, i, T);
	}
}

/* The main thread: publish phase @p T (its own lcore claimed first: a woken worker may take its CPU before it
 * starts), do its part, wait for the rest. */
static void phase(struct run_engine *e, uint32_t T)
{
	bool mine = claim(e, 0, T);

	__atomic_store_n(&e->done, 0, __ATOMIC_RELAXED); /* no one counts until it has claimed in T */
	__atomic_store_n(&e->phase, T, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&e->sleepers, __ATOMIC_SEQ_CST) > 0)
		futex_wake(&e->phase, INT_MAX);
	work(e, 0, T, mine, run_mono_ns());
	await_done(e, &e->lcs[0]);
}

static void *worker(void *arg)
{
	struct run_lcore *lc = arg;
	struct run_engine *e = lc->eng;

	for (uint32_t seen = RUN_PHASE_FIRST;;) {
		seen = await_phase(e, lc, seen);
		if (__atomic_load_n(&e->exit, __ATOMIC_ACQUIRE))
			break;
		work(e, lc->idx, seen, claim(e, lc->idx, seen), run_mono_ns());
	}
	return NULL;
}

/* The main thread tells the workers to end, and waits for them. */
static void end_workers(struct run_engine *e)
{
	__atomic_store_n(&e->exit, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&e->phase, e->phase + 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&e->sleepers, __ATOMIC_SEQ_CST) > 0)
		futex_wake(&e->phase, INT_MAX);
	for (uint32_t i = 1; i <= e->n_tids; i++)
		pthread_join(e->tids[i], NULL);
	e->n_tids = 0;
}

/* Start the threads other than the main one. 0, or -errno with none left running. */
int run_win_start(struct run_engine *e)
{
	int rc = 0;

	e->crowded = e->n > run_cpus();
	e->phase = RUN_PHASE_FIRST;
	for (uint32_t i = 0; i < e->n; i++)
		e->claim[i] = RUN_PHASE_FIRST;
	if (e->n == 1 || e->sync == RUN_SYNC_MPI) /* MPI: the other slots are the other ranks */
		return 0;
	if ((e->tids = calloc(e->n, sizeof(*e->tids))) == NULL)
		return -ENOMEM;
	for (uint32_t i = 1; i < e->n && rc == 0; i++) {
		rc = -pthread_create(&e->tids[i], NULL, worker, &e->lcs[i]);
		if (rc == 0)
			e->n_tids = i;
	}
	if (rc < 0) /* those started leave without a window */
		end_workers(e);
	return rc;
}

void run_win_stop(struct run_engine *e)
{
	if (e->n_tids == 0)
		return;
	end_workers(e);
	free(e->tids);
	e->tids = NULL;
}

/* ---- MPI ---- */

static int ix_cmp(const void *x, const void *y)
{
	uintptr_t a = ((const struct run_split_ix *)x)->addr, b = ((const struct run_split_ix *)y)->addr;

	return a < b ? -1 : a > b;
}

/* The index of the split link @p l (every rank splits the same links in the same order). */
static uint32_t split_index(struct run_engine *e, const struct net_link *l)
{
	if (e->by_addr == NULL) {
		if ((e->by_addr = malloc(sizeof(*e->by_addr) * (e->n_split ? e->n_split : 1))) == NULL)
			run_mpi_abort("out of memory for the split links' index");
		for (size_t i = 0; i < e->n_split; i++)
			e->by_addr[i] = (struct run_split_ix){ .addr = (uintptr_t)e->split[i], .idx = (uint32_t)i };
		qsort(e->by_addr, e->n_split, sizeof(*e->by_addr), ix_cmp);
	}
	struct run_split_ix key = { .addr = (uintptr_t)l };
	const struct run_split_ix *f = bsearch(&key, e->by_addr, e->n_split, sizeof(*e->by_addr), ix_cmp);

	return f != NULL ? f->idx : UINT32_MAX;
}

/* @p m as it crosses to another rank, written into @p w: of a frame, the bytes its kind reads (net_pkt_copy()), not
 * the whole descriptor; the rest of @p w is not read on the other side. */
static void wire_of(struct run_engine *e, const struct run_vmsg *m, struct run_vwire *w)
{
	w->kind = m->kind;
	w->at = m->at;
	w->k = m->k;
	if (m->kind == RUN_X_FRAME) {
		w->idx = split_index(e, m->dir->link) * 2 + m->dir->index;
		w->arg = 0;
		memcpy(&w->pkt, &m->pkt, wire_pkt_len(m->pkt.kind));
	} else {
		w->idx = m->ev;
		w->arg = m->arg;
	}
}

/* A rank's stop as the ranks reduce it: (flag << 32 | rank) when stopped, else all ones; the smallest is the stop
 * every rank takes (a signal, 1, before a failed write, 2). */
static uint64_t stop_word(const struct run_engine *e)
{
	return *e->quit ? (uint64_t)(uint32_t)*e->quit << 32 | e->me : UINT64_MAX;
}

/* Send this rank's window of messages to the others (rank by rank, in one buffer), and schedule what they sent
 * it. Out of memory, MPI aborts every rank (run_mpi_exchange): one rank alone cannot leave an exchange. */
static void exchange(struct run_engine *e, struct run_lcore *lc)
{
	uint64_t t0 = run_mono_ns();
	size_t n = 0;

	for (uint32_t k = 0; k < e->n; k++)
		n += k != e->me ? lc->vout[k].n : 0;
	if (!run_grow(&e->xout, &e->xout_cap, n, sizeof(*e->xout), 64))
		run_mpi_abort("out of memory for a window's frames to the other ranks");
	n = 0;
	for (uint32_t k = 0; k < e->n; k++) {
		for (size_t i = 0; k != e->me && i < lc->vout[k].n; i++)
			wire_of(e, &lc->vout[k].v[i], &e->xout[n++]);
		e->xout_len[k] = k != e->me ? (uint32_t)(lc->vout[k].n * sizeof(*e->xout)) : 0;
		lc->vout[k].n = 0;
	}
	/*
	 * The next window's start rides in the exchange: after it, a rank's earliest event is its own earliest or a
	 * frame or event it took, each at its time (never earlier), so the minimum over the ranks of their earliest
	 * and of the times they sent is the one the reduction after the exchange would give (run_win_next).
	 */
	e->xmin[0] = emu_sched_next(lc->np->sched);
	for (size_t i = 0; i < n; i++)
		e->xmin[0] = e->xout[i].at < e->xmin[0] ? e->xout[i].at : e->xmin[0];
	e->xmin[1] = stop_word(e);
	run_mpi_exchange((const uint8_t *)e->xout, e->xout_len, e->n, &e->xin, e->xin_len, &e->xin_cap, e->xmin,
			 e->quit);
	e->xmin_fresh = true;
	lc->wait_ns += run_mono_ns() - t0;
	for (size_t off = 0, end = 0, k = 0; k < e->n; k++)
		for (end += e->xin_len[k]; off + sizeof(struct run_vwire) <= end; off += sizeof(struct run_vwire)) {
			struct run_vwire w;

			memcpy(&w, e->xin + off, sizeof(w));
			if (w.kind == RUN_X_EVENT)
				run_xev_deliver(lc, w.idx, w.arg, w.at, &w.k);
			else if (w.kind == RUN_X_FRAME && w.idx / 2 < e->n_split)
				deliver_frame(lc, w.at, &w.k, &e->split[w.idx / 2]->dir[w.idx % 2], &w.pkt);
		}
}

/* The events every lcore has run (each idle). */
static uint64_t events_all(const struct run_engine *e)
{
	uint64_t n = 0;

	for (uint32_t i = 0; i < e->n; i++)
		n += emu_sched_events_run(e->lcs[i].np->sched);
	return n;
}

/*
 * The main thread runs a window with the others (MPI: this rank's, then the exchange). A window of fewer than
 * RUN_ALONE_EVENTS events costs more in its two meetings than the other threads save: the main thread runs the
 * next RUN_ALONE_WINDOWS windows alone (every lcore's events, then every lcore's take: the same outputs), unless
 * one of them grows past RUN_ALONE_EVENTS, then tries the threads again.
 */
void run_win_run(struct run_engine *e, emu_ps_t W)
{
	if (e->sync == RUN_SYNC_MPI) {
		emu_sched_run_until(e->lcs[e->me].np->sched, W);
		exchange(e, &e->lcs[e->me]);
		e->windows++;
		return;
	}
	if (e->n == 1) {
		emu_sched_run_until(e->lcs[0].np->sched, W);
	} else if (e->alone_left > 0) { /* the workers wait for a phase meanwhile */
		uint64_t ev = events_all(e);

		for (uint32_t i = 0; i < e->n; i++)
			emu_sched_run_until(e->lcs[i].np->sched, W);
		for (uint32_t i = 0; i < e->n; i++) {
			take(e, &e->lcs[i]);
			e->lcs[i].helped += i != 0 ? 2 : 0;
		}
		e->alone_left = events_all(e) - ev < RUN_ALONE_EVENTS ? e->alone_left - 1 : 0;
		e->windows_alone++;
	} else {
		uint32_t T = e->phase + 1; /* the main thread alone writes it */
		uint64_t ev = events_all(e);

		e->W = W;
		phase(e, T);
		phase(e, T + 1);
		if (events_all(e) - ev < RUN_ALONE_EVENTS)
			e->alone_left = RUN_ALONE_WINDOWS;
	}
	e->windows++;
}

/* ---- the loop ---- */

/* The earliest pending event of any thread (every one idle); MPI: of any rank, and whether any was signalled. */
emu_ps_t run_win_next(struct run_engine *e, bool *quit)
{
	emu_ps_t next = EMU_PS_NEVER;

	*quit = *e->quit;
	if (e->sync == RUN_SYNC_MPI) {
		/* every rank's earliest event and stop (stop_word): from the window's exchange when one came just
		 * before (every rank takes the same path here), else a reduction */
		uint64_t v[2] = { e->xmin[0], e->xmin[1] };

		if (!e->xmin_fresh) {
			uint64_t t0 = run_mono_ns();

			v[0] = emu_sched_next(e->lcs[e->me].np->sched);
			v[1] = stop_word(e);
			run_mpi_min(v, 2, e->quit);
			e->lcs[e->me].wait_ns += run_mono_ns() - t0; /* a meeting, counted as the exchange */
		}
		e->xmin_fresh = false;
		if (v[1] != UINT64_MAX && (uint32_t)v[1] != e->me && *e->quit == 0) {
			/* another rank stopped: this one stops for the same reason, and says so (not "stalled") */
			sig_atomic_t why = (sig_atomic_t)(v[1] >> 32);

			fprintf(stderr, "uetemu: MPI rank %u %s: rank %u stops with it\n", (unsigned)(uint32_t)v[1],
				why == 1 ? "was stopped by a signal" : "stopped (an output it could not write)", e->me);
			*e->quit = why;
		}
		*quit = v[1] != UINT64_MAX;
		return v[0];
	}
	for (uint32_t i = 0; i < e->n; i++) {
		emu_ps_t t = emu_sched_next(e->lcs[i].np->sched);

		next = t < next ? t : next;
	}
	return next;
}

emu_ps_t run_last_event(const struct run_engine *e, uint64_t *events)
{
	emu_ps_t now = 0;

	*events = 0;
	for (uint32_t i = 0; i < e->n; i++) {
		emu_ps_t t = emu_sched_now(e->lcs[i].np->sched);

		now = t > now ? t : now;
		*events += emu_sched_events_run(e->lcs[i].np->sched);
	}
	return now;
}

emu_ps_t run_last_event_all(const struct run_engine *e)
{
	uint64_t ev, t = run_last_event(e, &ev);

	if (e->sync == RUN_SYNC_MPI)
		run_mpi_max(&t, 1, e->quit);
	return t;
}

static emu_ps_t min3(emu_ps_t a, emu_ps_t b, emu_ps_t c)
{
	emu_ps_t m = a < b ? a : b;

	return m < c ? m : c;
}

emu_ps_t run_window_end(emu_ps_t next, emu_ps_t lookahead, uint32_t n, emu_ps_t due, emu_ps_t limit)
{
	emu_ps_t W = n > 1 ? (lookahead > EMU_PS_NEVER - next ? EMU_PS_NEVER - 1 : next + lookahead - 1)
			   : next + RUN_SLICE_PS;

	return min3(W, due, limit);
}

void run_vt_info(const struct run_engine *e, struct run_vt_info *out)
{
	*out = (struct run_vt_info){ .n = e->n, .mpi = e->sync == RUN_SYNC_MPI, .me = e->me, .lookahead = e->lookahead,
				     .la_what = e->la_what, .windows = e->windows, .windows_alone = e->windows_alone };
}
