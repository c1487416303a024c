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
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One thread: between progress checks, run this much simulated time. */
#define RUN_SLICE_PS (10 * EMU_PS_PER_US)
/* Spins at a barrier before yielding the CPU; with more threads than cores, a few only: the one awaited needs the
 * core. */
#define RUN_SPINS 4096u
#define RUN_SPINS_CROWDED 16u

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
	m->pkt = *pkt;
	x->from->x_sent++;
}

/* A frame another thread or rank sent @p lc: a copy of @p pkt arriving on @p dir at @p at, in the order @p k. */
static void deliver_frame(struct run_lcore *lc, emu_ps_t at, const struct emu_sched_key *k, struct net_dir *dir,
			  const struct wire_pkt *pkt)
{
	struct wire_pkt *p = net_pkt_alloc(lc->np);

	lc->x_recv++;
	if (p == NULL)
		return;
	*p = *pkt;
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

/* A sense-reversing spin barrier over the engine's threads. */
static void bar_wait(struct run_engine *e, struct run_lcore *lc)
{
	if (e->n == 1)
		return;
	uint32_t sense = e->sense[lc->idx] ^= 1;
	uint64_t t0 = run_mono_ns();

	if (__atomic_add_fetch(&e->bar_count, 1, __ATOMIC_ACQ_REL) == e->n) {
		__atomic_store_n(&e->bar_count, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&e->bar_sense, sense, __ATOMIC_RELEASE);
	} else {
		for (uint32_t spins = 0; __atomic_load_n(&e->bar_sense, __ATOMIC_ACQUIRE) != sense;) {
			if (++spins < e->spins)
				__builtin_ia32_pause();
			else
				sched_yield();
		}
	}
	lc->wait_ns += run_mono_ns() - t0;
}

/* One window on @p lc: its events up to W, then (every thread done) what was sent to it. */
static void window(struct run_engine *e, struct run_lcore *lc, emu_ps_t W)
{
	emu_sched_run_until(lc->np->sched, W);
	bar_wait(e, lc);
	take(e, lc);
}

static void *worker(void *arg)
{
	struct run_lcore *lc = arg;
	struct run_engine *e = lc->eng;

	while (!__atomic_load_n(&e->go, __ATOMIC_ACQUIRE)) /* until every thread is there, or the start failed */
		sched_yield();
	if (__atomic_load_n(&e->failed, __ATOMIC_ACQUIRE))
		return NULL;
	for (;;) {
		bar_wait(e, lc); /* start: the main thread has set W, or exit */
		if (__atomic_load_n(&e->exit, __ATOMIC_ACQUIRE))
			break;
		window(e, lc, e->W);
		bar_wait(e, lc); /* end: everything taken */
	}
	return NULL;
}

/* Start the threads other than the main one. 0, or -errno with none left running. */
int run_win_start(struct run_engine *e)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int rc = 0;

	e->spins = cpus > 0 && e->n > (uint32_t)cpus ? RUN_SPINS_CROWDED : RUN_SPINS;
	if (e->n == 1 || e->sync == RUN_SYNC_MPI) /* MPI: the other slots are the other ranks */
		return 0;
	if ((e->tids = calloc(e->n, sizeof(*e->tids))) == NULL)
		return -ENOMEM;
	for (uint32_t i = 1; i < e->n && rc == 0; i++) {
		rc = -pthread_create(&e->tids[i], NULL, worker, &e->lcs[i]);
		if (rc == 0)
			e->n_tids = i;
	}
	if (rc < 0) /* those started leave without meeting */
		__atomic_store_n(&e->failed, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&e->go, 1, __ATOMIC_RELEASE);
	if (rc < 0) {
		for (uint32_t i = 1; i <= e->n_tids; i++)
			pthread_join(e->tids[i], NULL);
		e->n_tids = 0;
	}
	return rc;
}

void run_win_stop(struct run_engine *e)
{
	if (e->n_tids == 0)
		return;
	__atomic_store_n(&e->exit, 1, __ATOMIC_RELEASE);
	bar_wait(e, &e->lcs[0]);
	for (uint32_t i = 1; i <= e->n_tids; i++)
		pthread_join(e->tids[i], NULL);
	free(e->tids);
	e->tids = NULL;
	e->n_tids = 0;
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

/* @p m as it crosses to another rank. */
static struct run_vwire wire_of(struct run_engine *e, const struct run_vmsg *m)
{
	struct run_vwire w = { .kind = m->kind, .at = m->at, .k = m->k };

	if (m->kind == RUN_X_FRAME) {
		w.idx = split_index(e, m->dir->link) * 2 + m->dir->index;
		w.pkt = m->pkt;
	} else {
		w.idx = m->ev;
		w.arg = m->arg;
	}
	return w;
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
			e->xout[n++] = wire_of(e, &lc->vout[k].v[i]);
		e->xout_len[k] = k != e->me ? (uint32_t)(lc->vout[k].n * sizeof(*e->xout)) : 0;
		lc->vout[k].n = 0;
	}
	run_mpi_exchange((const uint8_t *)e->xout, e->xout_len, e->n, &e->xin, e->xin_len, &e->xin_cap, e->quit);
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

/* The main thread runs a window with the others (MPI: this rank's, then the exchange). */
void run_win_run(struct run_engine *e, emu_ps_t W)
{
	if (e->sync == RUN_SYNC_MPI) {
		emu_sched_run_until(e->lcs[e->me].np->sched, W);
		exchange(e, &e->lcs[e->me]);
		e->windows++;
		return;
	}
	e->W = W;
	bar_wait(e, &e->lcs[0]);
	window(e, &e->lcs[0], W);
	bar_wait(e, &e->lcs[0]);
	e->windows++;
}

/* ---- the loop ---- */

/* The earliest pending event of any thread (every one idle); MPI: of any rank, and whether any was signalled. */
emu_ps_t run_win_next(struct run_engine *e, bool *quit)
{
	emu_ps_t next = EMU_PS_NEVER;

	*quit = *e->quit;
	if (e->sync == RUN_SYNC_MPI) {
		/* a stopped rank gives its stop flag and rank, (flag << 32 | rank), the others all ones: the smallest
		 * is the stop every rank takes (a signal, 1, before a failed write, 2) */
		uint64_t v[2] = { emu_sched_next(e->lcs[e->me].np->sched),
				  *quit ? (uint64_t)(uint32_t)*e->quit << 32 | e->me : UINT64_MAX };

		run_mpi_min(v, 2, e->quit);
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
				     .la_what = e->la_what, .windows = e->windows };
}
