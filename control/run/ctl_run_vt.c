/*
 * Virtual time (docs/parallel.md): the run's events in the schedulers' order until the work is done or the stop
 * time, on one thread or over the config's partitions on several.
 *
 * Several threads run conservatively in windows. Every thread runs its partitions' events up to the window's end,
 * W = (the earliest pending event of any thread) + lookahead - 1, where the lookahead is the smallest delay of a
 * link between two threads: a frame sent in the window arrives after it (a frame takes its serialization, at
 * least a picosecond, and its link's delay). At the window's end (a barrier) each thread takes the frames the
 * others sent it, each with the place in the order its sender drew (emu_sched_key), so every device runs its
 * events in one order however the fabric is cut. The outputs (record rows, captured frames) go into each thread's
 * log with their tag (emu_sched_tag) and are written sorted by it when the run's own work falls due (periodic
 * records, the no-progress watchdog, the end): the same files whatever the number of threads, one thread
 * included. The run's own work happens at times that do not depend on the windows either.
 */
#include "ctl_run_pvt.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* One thread: between progress checks, run this much simulated time. */
#define VT_SLICE_PS (10 * EMU_PS_PER_US)
/* The no-progress watchdog looks every simulated millisecond, at whole milliseconds. */
#define VT_CHECK_PS EMU_PS_PER_MS
/* The shortest no-progress window before a run without a stop time is stopped as stalled. */
#define VT_STALL_MIN_PS (100 * EMU_PS_PER_MS)
/* Logs are written out once they hold this many outputs, at the next window's end. */
#define VT_LOG_FLUSH 65536u
/* Spins at a barrier before yielding the CPU; with more threads than cores, a few only: the one awaited needs the
 * core. */
#define VT_SPINS 4096u
#define VT_SPINS_CROWDED 16u

/* What crosses between two threads: a frame, or the close of a message's receive side. */
enum vt_kind { VT_FRAME = 1, VT_CLOSE };

struct vt_msg {
	uint32_t kind;
	emu_ps_t at;
	struct emu_sched_key k;
	struct net_dir *dir;    /* FRAME */
	struct ctl_msg *m;      /* CLOSE */
	struct wire_pkt pkt;    /* FRAME */
};

/* Messages from one thread to another in a window: taken by the receiver at the window's end. */
struct ctl_vbox {
	struct vt_msg *v;
	size_t n, cap;
	uint64_t lost;          /* no memory to hold one: counted, the run is flagged */
};

/* An output of a thread, tagged: its bytes (a ctl_whdr and its body) at off in the log's buffer. */
struct vt_ent {
	struct emu_sched_tag tag;
	uint32_t lc;
	uint32_t off;
};

struct ctl_vlog {
	struct vt_ent *e;
	size_t n, cap;
	uint8_t *buf;
	size_t used, size;
	uint64_t lost;
};

struct ctl_vt {
	uint32_t n;                  /* threads (or MPI ranks) */
	bool mpi;                    /* the threads are MPI ranks: this process runs lcs[me] only */
	uint32_t me;
	struct vt_wire *xout;        /* MPI: a window's messages to every rank, rank by rank */
	size_t xout_cap;
	uint32_t *xout_len;          /* bytes of them to each rank */
	uint8_t *xin;                /* MPI: the messages from every rank */
	size_t xin_cap;
	uint32_t *xin_len;
	uint64_t *rank_stat;         /* MPI, at the end: per rank events, wait_ns, frames out, in, late, lost */
	uint64_t *dev_created;       /* MPI, at the end: events each device created, on its rank */
	uint8_t *local;              /* MPI: per device, whether this rank runs it (its records' rows) */
	emu_ps_t lookahead;          /* the window: the smallest delay between two threads (n > 1) */
	emu_ps_t close_delay;        /* a message's receive side closes this long after the sender's completion */
	char la_what[96];            /* what gives the lookahead: "link tor0-agg1" or "message close" */
	uint64_t windows;
	emu_ps_t W;                  /* the window's end, written by the main thread before the start barrier */
	int exit;                    /* the main thread tells the others to end */
	int go;                      /* every thread is started (or failed is set): the others may meet at barriers */
	int failed;                  /* a thread could not start: those started leave at once */
	uint32_t bar_count;          /* the barrier (atomic) */
	uint32_t bar_sense;
	uint32_t sense[CTL_PARTS_MAX]; /* each thread's own sense */
	uint32_t spins;              /* at a barrier before yielding */
	struct vt_ent *all;          /* the merge of the logs */
	size_t cap_all;
	pthread_t *tids;
	uint32_t n_tids;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * Room for @p need elements of @p elem bytes in *@p p, which holds *@p cap: doubled from @p first as needed (off the
 * common path: the arrays keep their size from window to window). False, *@p p untouched, without memory.
 */
static bool grow(void *p, size_t *cap, size_t need, size_t elem, size_t first)
{
	size_t n = *cap ? *cap : first;
	void *q;

	if (need <= *cap)
		return true;
	while (n < need)
		n *= 2;
	if ((q = realloc(*(void **)p, n * elem)) == NULL)
		return false;
	*(void **)p = q;
	*cap = n;
	return true;
}

static double wall_now(void)
{
	return (double)mono_ns() / 1e9;
}

bool ctl_run_vt_on(const struct ctl_run_state *r)
{
	return r->vt != NULL;
}

/* ---- the plan ---- */

/* Lookahead and the close delay; the errors of a cut a window cannot cross. */
static int plan_windows(struct ctl_run_state *r, struct ctl_vt *vt, char *err, size_t errlen)
{
	const struct ctl_config *cfg = r->cfg;
	emu_ps_t sw_min = EMU_PS_NEVER, any_min = EMU_PS_NEVER;
	int rc = 0;
	size_t used = 0;

	vt->lookahead = EMU_PS_NEVER;
	for (uint32_t i = 0; i < r->n_links; i++) {
		uint32_t a, b;
		emu_ps_t d = r->links[i].delay;

		ctl_run_link_ends(r, i, &a, &b);
		any_min = d < any_min ? d : any_min;
		if (a >= cfg->n_hosts && b >= cfg->n_hosts)
			sw_min = d < sw_min ? d : sw_min;
		if (vt->n > 1 && d == 0 && cfg->dev_part[a] != cfg->dev_part[b]) {
			used += (size_t)snprintf(err + used, used < errlen ? errlen - used : 0,
						 "%s%s: link %s-%s joins partitions %s and %s with a delay of 0: a "
						 "window between threads needs a link delay above 0 (lookahead); give it a "
						 "delay, put both ends in one partition, or run one thread",
						 used ? "\n" : "", cfg->path, ctl_run_dev_name(r, a), ctl_run_dev_name(r, b),
						 cfg->parts[cfg->dev_part[a]].name, cfg->parts[cfg->dev_part[b]].name);
			rc = -EINVAL;
		}
		if (r->dev_lc[a] != r->dev_lc[b] && d < vt->lookahead) {
			vt->lookahead = d;
			snprintf(vt->la_what, sizeof(vt->la_what), "link %s-%s", ctl_run_dev_name(r, a),
				 ctl_run_dev_name(r, b));
		}
	}
	/* the workload closes a message's receive side after its sender's completion: one switch-to-switch delay
	 * later (the fabric's smallest; without switches, its smallest link's), the same however it is cut */
	vt->close_delay = sw_min != EMU_PS_NEVER ? sw_min : any_min != EMU_PS_NEVER ? any_min : 0;
	for (uint32_t a = 0; vt->n > 1 && a < cfg->n_apps; a++)
		for (uint32_t i = 0; i < cfg->apps[a].n_list; i++) {
			const struct ctl_message *m = &cfg->apps[a].list[i];

			if (r->dev_lc[m->src] == r->dev_lc[m->dst] || vt->close_delay >= vt->lookahead)
				continue;
			vt->lookahead = vt->close_delay;
			snprintf(vt->la_what, sizeof(vt->la_what), "message close (%s to %s)", cfg->hosts[m->src].name,
				 cfg->hosts[m->dst].name);
			if (vt->close_delay == 0 && rc == 0) {
				snprintf(err, errlen, "%s: applications.%u.list.%u from %s to %s crosses threads, and the "
					 "fabric has a link delay of 0: its receive side's close needs a delay above 0 to "
					 "cross; run one thread", cfg->path, a, i, cfg->hosts[m->src].name,
					 cfg->hosts[m->dst].name);
				rc = -EINVAL;
			}
		}
	return rc;
}

int ctl_run_vt_plan(struct ctl_run_state *r, char *err, size_t errlen)
{
	struct ctl_vt *vt;

	if (r->opts->mode != CTL_MODE_VIRTUAL || r->rerun)
		return 0;
	if ((vt = calloc(1, sizeof(*vt))) == NULL)
		return -ENOMEM;
	r->vt = vt;
	vt->n = r->n_lcs;
	vt->mpi = r->opts->ranks > 1;
	vt->me = vt->mpi ? r->opts->rank : 0;
	if (vt->mpi && ((vt->xout_len = calloc(vt->n, sizeof(*vt->xout_len))) == NULL ||
			(vt->xin_len = calloc(vt->n, sizeof(*vt->xin_len))) == NULL))
		return -ENOMEM;
	int rc = plan_windows(r, vt, err, errlen);

	if (rc < 0)
		return rc;
	if (vt->mpi) {
		if ((vt->local = calloc(r->cfg->n_devs ? r->cfg->n_devs : 1, 1)) == NULL)
			return -ENOMEM;
		for (uint32_t d = 0; d < r->cfg->n_devs; d++)
			vt->local[d] = r->dev_lc[d] == vt->me;
	}
	for (uint32_t i = 0; i < r->n_lcs; i++) {
		struct ctl_lcore *lc = &r->lcs[i];

		if (emu_sched_entities(lc->np->sched, r->cfg->n_devs + 1) < 0 ||
		    (lc->vout = calloc(r->n_lcs, sizeof(*lc->vout))) == NULL ||
		    (lc->vlog = calloc(1, sizeof(*lc->vlog))) == NULL) {
			snprintf(err, errlen, "out of memory for the threads' state");
			return -ENOMEM;
		}
	}
	return 0;
}

void ctl_run_vt_fini(struct ctl_run_state *r)
{
	for (uint32_t i = 0; r->lcs != NULL && i < r->n_lcs; i++) {
		struct ctl_lcore *lc = &r->lcs[i];

		for (uint32_t k = 0; lc->vout != NULL && k < r->n_lcs; k++)
			free(lc->vout[k].v);
		free(lc->vout);
		lc->vout = NULL;
		if (lc->vlog != NULL) {
			free(lc->vlog->e);
			free(lc->vlog->buf);
			free(lc->vlog);
			lc->vlog = NULL;
		}
	}
	if (r->vt != NULL) {
		free(r->vt->all);
		free(r->vt->xout);
		free(r->vt->xout_len);
		free(r->vt->xin);
		free(r->vt->xin_len);
		free(r->vt->rank_stat);
		free(r->vt->dev_created);
		free(r->vt->local);
	}
	free(r->vt);
	r->vt = NULL;
}

/* ---- crossing between threads ---- */

/* Room for one message to another thread; NULL (counted) without memory. */
static struct vt_msg *box_add(struct ctl_vbox *b)
{
	if (!grow(&b->v, &b->cap, b->n + 1, sizeof(*b->v), 256)) {
		b->lost++;
		return NULL;
	}
	return &b->v[b->n++];
}

/* What @p lc's boxes to the @p n threads could not hold (no memory). */
static uint64_t box_lost(const struct ctl_lcore *lc, uint32_t n)
{
	uint64_t lost = 0;

	for (uint32_t k = 0; lc->vout != NULL && k < n; k++)
		lost += lc->vout[k].lost;
	return lost;
}

void ctl_run_vt_cross(void *arg, struct net_dir *d, const struct wire_pkt *pkt, emu_ps_t at,
		      const struct emu_sched_key *k)
{
	struct ctl_xroute *x = arg;

	if (pkt->kind == WIRE_KIND_RAW) { /* a real device's frame in a re-run: its bytes do not cross threads */
		x->from->np->counters[NET_C_RAW_CROSS_DROP]++;
		return;
	}
	struct vt_msg *m = box_add(&x->from->vout[x->to]);

	if (m == NULL)
		return;
	m->kind = VT_FRAME;
	m->at = at;
	m->k = *k;
	m->dir = d;
	m->pkt = *pkt;
	x->from->x_sent++;
}

/* The receive side of message @p b closes on its receiver. */
static void ev_close(void *a, void *b, emu_ps_t now)
{
	struct ctl_run_state *r = a;
	struct ctl_msg *m = b;

	emu_sched_set_ent(ctl_run_dev_np(r, m->m->dst)->sched, m->m->dst + 1);
	const struct port_nic *h = &r->hosts[m->m->dst];

	h->ops->close_rcv(h->dev, r->cfg->hosts[m->m->src].ip, m->pdc, now);
}

/*
 * Schedule on @p lc what a thread or a rank sent it (@p kind VT_FRAME: a copy of @p pkt arriving on @p dir; VT_CLOSE:
 * message @p m's receive side closing), at @p at in the order @p k its sender drew.
 */
static void deliver(struct ctl_run_state *r, struct ctl_lcore *lc, uint32_t kind, emu_ps_t at,
		    const struct emu_sched_key *k, struct net_dir *dir, struct ctl_msg *m, const struct wire_pkt *pkt)
{
	if (kind == VT_CLOSE) {
		if (emu_sched_at_key(lc->np->sched, at, k, ev_close, r, m) < 0)
			lc->np->counters[NET_C_SCHED_FULL]++;
		return;
	}
	struct wire_pkt *p = net_pkt_alloc(lc->np);

	lc->x_recv++;
	if (p == NULL)
		return;
	*p = *pkt;
	if (at <= emu_sched_now(lc->np->sched)) /* a window too wide: never, but counted */
		lc->x_late++;
	net_dir_arrive_key(dir, p, at, k);
}

void ctl_run_vt_close(struct ctl_lcore *lc, struct ctl_msg *m, emu_ps_t now)
{
	struct ctl_run_state *r = lc->run;
	uint32_t to = r->dev_lc[m->m->dst];
	struct emu_sched_key k;

	emu_sched_key_draw(lc->np->sched, &k);
	if (to == lc->idx) {
		deliver(r, lc, VT_CLOSE, now + r->vt->close_delay, &k, NULL, m, NULL);
		return;
	}
	struct vt_msg *x = box_add(&lc->vout[to]);

	if (x == NULL)
		return;
	x->kind = VT_CLOSE;
	x->at = now + r->vt->close_delay;
	x->k = k;
	x->m = m;
}

/* Take what the other threads sent @p lc in the window. */
static void take(struct ctl_run_state *r, struct ctl_lcore *lc)
{
	for (uint32_t s = 0; s < r->n_lcs; s++) {
		struct ctl_vbox *b = &r->lcs[s].vout[lc->idx];

		for (size_t i = 0; s != lc->idx && i < b->n; i++) {
			const struct vt_msg *m = &b->v[i];

			deliver(r, lc, m->kind, m->at, &m->k, m->dir, m->m, &m->pkt);
		}
		if (s != lc->idx)
			b->n = 0;
	}
}

/* ---- the outputs' logs ---- */

bool ctl_run_vt_log(struct ctl_lcore *lc, const struct ctl_whdr *h, const void *body)
{
	struct ctl_vlog *g = lc->vlog;

	if (g == NULL)
		return false;
	size_t need = (sizeof(*h) + h->len + 7) & ~(size_t)7;

	if (!grow(&g->e, &g->cap, g->n + 1, sizeof(*g->e), 1024) || !grow(&g->buf, &g->size, g->used + need, 1, 1u << 16)) {
		g->lost++;
		return true;
	}
	struct vt_ent *e = &g->e[g->n++];

	emu_sched_tag(lc->np->sched, &e->tag);
	e->lc = lc->idx;
	e->off = (uint32_t)g->used;
	memcpy(g->buf + g->used, h, sizeof(*h));
	memcpy(g->buf + g->used + sizeof(*h), body, h->len);
	g->used += need;
	return true;
}

static int ent_cmp(const void *x, const void *y)
{
	return emu_sched_tag_cmp(&((const struct vt_ent *)x)->tag, &((const struct vt_ent *)y)->tag);
}

/* Outputs the threads' logs hold. */
static size_t logged(const struct ctl_run_state *r)
{
	size_t n = 0;

	for (uint32_t i = 0; i < r->n_lcs; i++)
		n += r->lcs[i].vlog->n;
	return n;
}

/* Write what the logs hold, sorted by tag, and empty them (every thread at a window's end). Without memory to sort
 * them, they are written thread by thread rather than lost. */
static void flush(struct ctl_run_state *r)
{
	struct ctl_vt *vt = r->vt;
	bool sort = grow(&vt->all, &vt->cap_all, logged(r), sizeof(*vt->all), 1024);
	size_t n = 0;

	for (uint32_t i = 0; i < r->n_lcs; i++) {
		struct ctl_vlog *g = r->lcs[i].vlog;

		for (size_t k = 0; k < g->n; k++)
			if (sort)
				vt->all[n++] = g->e[k];
			else
				ctl_run_lcore_write(r, (const struct ctl_whdr *)(g->buf + g->e[k].off));
	}
	qsort(vt->all, n, sizeof(*vt->all), ent_cmp);
	for (size_t k = 0; k < n; k++)
		ctl_run_lcore_write(r, (const struct ctl_whdr *)(r->lcs[vt->all[k].lc].vlog->buf + vt->all[k].off));
	for (uint32_t i = 0; i < r->n_lcs; i++) {
		r->lcs[i].vlog->n = 0;
		r->lcs[i].vlog->used = 0;
	}
}

/* ---- the threads ---- */

static void bar_wait(struct ctl_vt *vt, struct ctl_lcore *lc)
{
	if (vt->n == 1)
		return;
	uint32_t sense = vt->sense[lc->idx] ^= 1;
	uint64_t t0 = mono_ns();

	if (__atomic_add_fetch(&vt->bar_count, 1, __ATOMIC_ACQ_REL) == vt->n) {
		__atomic_store_n(&vt->bar_count, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&vt->bar_sense, sense, __ATOMIC_RELEASE);
	} else {
		for (uint32_t spins = 0; __atomic_load_n(&vt->bar_sense, __ATOMIC_ACQUIRE) != sense;) {
			if (++spins < vt->spins)
				__builtin_ia32_pause();
			else
				sched_yield();
		}
	}
	lc->wait_ns += mono_ns() - t0;
}

/* One window on @p lc: its events up to W, then (every thread done) the frames sent to it. */
static void window(struct ctl_run_state *r, struct ctl_lcore *lc, emu_ps_t W)
{
	emu_sched_run_until(lc->np->sched, W);
	bar_wait(r->vt, lc);
	take(r, lc);
}

static void *worker(void *arg)
{
	struct ctl_lcore *lc = arg;
	struct ctl_vt *vt = lc->run->vt;

	while (!__atomic_load_n(&vt->go, __ATOMIC_ACQUIRE)) /* until every thread is there, or the start failed */
		sched_yield();
	if (__atomic_load_n(&vt->failed, __ATOMIC_ACQUIRE))
		return NULL;
	for (;;) {
		bar_wait(vt, lc); /* start: the main thread has set W, or exit */
		if (__atomic_load_n(&vt->exit, __ATOMIC_ACQUIRE))
			break;
		window(lc->run, lc, vt->W);
		bar_wait(vt, lc); /* end: every frame taken */
	}
	return NULL;
}

/* Start the threads other than the main one. 0, or -errno with none left running. */
static int start_workers(struct ctl_run_state *r)
{
	struct ctl_vt *vt = r->vt;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int rc = 0;

	vt->spins = cpus > 0 && vt->n > (uint32_t)cpus ? VT_SPINS_CROWDED : VT_SPINS;
	if (vt->n == 1 || vt->mpi) /* MPI: the other slots are the other ranks */
		return 0;
	if ((vt->tids = calloc(vt->n, sizeof(*vt->tids))) == NULL)
		return -ENOMEM;
	for (uint32_t i = 1; i < vt->n && rc == 0; i++) {
		rc = -pthread_create(&vt->tids[i], NULL, worker, &r->lcs[i]);
		if (rc == 0)
			vt->n_tids = i;
	}
	if (rc < 0) /* those started leave without meeting */
		__atomic_store_n(&vt->failed, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&vt->go, 1, __ATOMIC_RELEASE);
	if (rc < 0) {
		for (uint32_t i = 1; i <= vt->n_tids; i++)
			pthread_join(vt->tids[i], NULL);
		vt->n_tids = 0;
	}
	return rc;
}

/* A message between ranks: what vt_msg holds, pointers as indexes (every rank builds the same model). */
struct vt_wire {
	uint32_t kind;
	uint32_t idx;           /* FRAME: link * 2 + direction; CLOSE: the message's index */
	uint32_t pdc;           /* CLOSE: the sender's PDC (set on the sender's rank only) */
	emu_ps_t at;
	struct emu_sched_key k;
	struct wire_pkt pkt;    /* FRAME */
};

/* @p m as it crosses to another rank. */
static struct vt_wire wire_of(const struct ctl_run_state *r, const struct vt_msg *m)
{
	struct vt_wire w = { .kind = m->kind, .at = m->at, .k = m->k };

	if (m->kind == VT_FRAME) {
		w.idx = (uint32_t)(m->dir->link - r->links) * 2 + m->dir->index;
		w.pkt = m->pkt;
	} else {
		w.idx = (uint32_t)(m->m - r->msgs);
		w.pdc = m->m->pdc;
	}
	return w;
}

/* MPI: send this rank's window of messages to the others (rank by rank, in one buffer), and schedule what they sent
 * it. Out of memory, MPI aborts every rank (ctl_run_mpi_exchange): one rank alone cannot leave an exchange. */
static void exchange(struct ctl_run_state *r, struct ctl_lcore *lc)
{
	struct ctl_vt *vt = r->vt;
	uint64_t t0 = mono_ns();
	size_t n = 0;

	for (uint32_t k = 0; k < vt->n; k++)
		n += k != vt->me ? lc->vout[k].n : 0;
	if (!grow(&vt->xout, &vt->xout_cap, n, sizeof(*vt->xout), 64))
		ctl_run_mpi_abort("out of memory for a window's frames to the other ranks");
	n = 0;
	for (uint32_t k = 0; k < vt->n; k++) {
		for (size_t i = 0; k != vt->me && i < lc->vout[k].n; i++)
			vt->xout[n++] = wire_of(r, &lc->vout[k].v[i]);
		vt->xout_len[k] = k != vt->me ? (uint32_t)(lc->vout[k].n * sizeof(*vt->xout)) : 0;
		lc->vout[k].n = 0;
	}
	ctl_run_mpi_exchange((const uint8_t *)vt->xout, vt->xout_len, vt->n, &vt->xin, vt->xin_len, &vt->xin_cap);
	lc->wait_ns += mono_ns() - t0;
	for (size_t off = 0, end = 0, k = 0; k < vt->n; k++)
		for (end += vt->xin_len[k]; off + sizeof(struct vt_wire) <= end; off += sizeof(struct vt_wire)) {
			struct vt_wire w;

			memcpy(&w, vt->xin + off, sizeof(w));
			if (w.kind == VT_CLOSE && w.idx < r->n_msgs) {
				r->msgs[w.idx].pdc = (uint16_t)w.pdc; /* the sender's rank knows it */
				deliver(r, lc, VT_CLOSE, w.at, &w.k, NULL, &r->msgs[w.idx], NULL);
			} else if (w.kind == VT_FRAME && w.idx / 2 < r->n_links) {
				deliver(r, lc, VT_FRAME, w.at, &w.k, &r->links[w.idx / 2].dir[w.idx % 2], NULL, &w.pkt);
			}
		}
}

/* The main thread runs a window with the others (MPI: this rank's, then the exchange). */
static void run_window(struct ctl_run_state *r, emu_ps_t W)
{
	struct ctl_vt *vt = r->vt;

	if (vt->mpi) {
		emu_sched_run_until(r->lcs[vt->me].np->sched, W);
		exchange(r, &r->lcs[vt->me]);
		vt->windows++;
		return;
	}

	vt->W = W;
	bar_wait(vt, &r->lcs[0]);
	window(r, &r->lcs[0], W);
	bar_wait(vt, &r->lcs[0]);
	vt->windows++;
}

static void stop_workers(struct ctl_run_state *r)
{
	struct ctl_vt *vt = r->vt;

	if (vt->n_tids == 0)
		return;
	__atomic_store_n(&vt->exit, 1, __ATOMIC_RELEASE);
	bar_wait(vt, &r->lcs[0]);
	for (uint32_t i = 1; i <= vt->n_tids; i++)
		pthread_join(vt->tids[i], NULL);
	free(vt->tids);
	vt->tids = NULL;
	vt->n_tids = 0;
}

/* ---- the loop ---- */

/* The earliest pending event of any thread (every one idle); MPI: of any rank, and whether any was signalled. */
static emu_ps_t next_event(struct ctl_run_state *r, bool *quit)
{
	emu_ps_t next = EMU_PS_NEVER;

	*quit = *r->opts->quit;
	if (r->vt->mpi) {
		uint64_t v[2] = { emu_sched_next(r->lcs[r->vt->me].np->sched), *quit ? 0 : 1 };

		ctl_run_mpi_min(v, 2);
		*quit = v[1] == 0;
		return v[0];
	}
	for (uint32_t i = 0; i < r->n_lcs; i++) {
		emu_ps_t t = emu_sched_next(r->lcs[i].np->sched);

		next = t < next ? t : next;
	}
	return next;
}

/* The time of the last event run by any thread, and the events run. */
static emu_ps_t last_event(const struct ctl_run_state *r, uint64_t *events)
{
	emu_ps_t now = 0;

	*events = 0;
	for (uint32_t i = 0; i < r->n_lcs; i++) {
		emu_ps_t t = emu_sched_now(r->lcs[i].np->sched);

		now = t > now ? t : now;
		*events += emu_sched_events_run(r->lcs[i].np->sched);
	}
	return now;
}

/* last_event() of every rank (MPI: a collective, every rank calls it at the same point). */
static emu_ps_t last_event_all(const struct ctl_run_state *r)
{
	uint64_t ev, t = last_event(r, &ev);

	if (r->vt->mpi)
		ctl_run_mpi_max(&t, 1);
	return t;
}

/*
 * The progress bar on stderr: with a stop time a bar and the share of it simulated, then simulated time, wall time
 * and events per second. On a terminal (@p tty, tested once per run) it redraws in place every 0.1 s; otherwise a
 * line a second. @p final draws the last state whatever the time, so a run shorter than the period shows one.
 */
static void progress(struct ctl_run_state *r, double t0, double *last, bool tty, bool final)
{
	double w = wall_now();

	if (!r->opts->progress || (!final && w - *last < (tty ? 0.1 : 1.0)))
		return;
	*last = w;
	uint64_t ev;
	emu_ps_t now = last_event(r, &ev);
	double el = w - t0 > 1e-9 ? w - t0 : 1e-9;
	static const char full[] = "####################", empty[] = "....................";

	now = final ? r->end : now;
	if (r->has_stop && r->stop > 0) {
		double share = now >= r->stop ? 1.0 : (double)now / (double)r->stop;
		int fill = (int)(share * 20.0);

		fprintf(stderr, "%s[uetemu] [%.*s%.*s] %3.0f%% ", tty ? "\r" : "", fill, full, 20 - fill, empty,
			100.0 * share);
	} else {
		fprintf(stderr, "%s[uetemu] ", tty ? "\r" : "");
	}
	fprintf(stderr, "sim %.6f s, %.1f s wall, %.2f M events/s", (double)now / 1e12, el, (double)ev / el / 1e6);
	if (r->n_msgs > 0)
		fprintf(stderr, ", messages %u/%u done", r->n_completed, r->n_msgs);
	if (r->rdma != NULL)
		fprintf(stderr, ", WQEs %llu done", (unsigned long long)ctl_rdma_wqes_done(r->rdma));
	if (r->chakra != NULL)
		fprintf(stderr, ", Chakra ranks %u ended", ctl_chakra_ranks_ended(r->chakra));
	fputs(tty && !final ? "  " : "\n", stderr);
}

/* What a run's progress is measured by: new payload delivered, messages and WQEs completed. */
static uint64_t progress_mark(const struct ctl_run_state *r)
{
	uint64_t n = r->n_completed + ctl_rdma_wqes_done(r->rdma) + ctl_chakra_ranks_ended(r->chakra) +
		     ctl_run_replays_sent(r);

	for (uint32_t i = 0; i < r->cfg->n_hosts; i++)
		n += ctl_run_host_rx_payload(r, i);
	return n;
}

/*
 * The no-progress watchdog of a run without a stop time, which ends only when its work is done: one whose work can
 * no longer progress (a receiver whose buffers take nothing, a link that never comes back) would retransmit for
 * ever. Looked at every simulated millisecond @p t, once every event up to it has run; true (said on stderr) when
 * nothing progressed for the window: the longest retransmission timeout times four, and at least 100 ms.
 */
static bool no_progress(struct ctl_run_state *r, emu_ps_t t, uint64_t *mark, emu_ps_t *since)
{
	emu_ps_t rto = r->cfg->n_hosts > 0 ? r->hosts[0].ops->rto_max(r->hosts[0].dev) : 0;
	emu_ps_t win = 4 * rto > VT_STALL_MIN_PS ? 4 * rto : VT_STALL_MIN_PS;

	if (r->n_lcs > 1)
		ctl_run_lcore_sum(r);
	uint64_t m = progress_mark(r);

	if (r->vt->mpi) /* each rank's hosts: the run's progress is their sum */
		ctl_run_mpi_sum(&m, 1);

	if (m != *mark) {
		*mark = m;
		*since = t;
		return false;
	}
	if (t - *since < win)
		return false;
	uint64_t done = r->n_completed;

	if (r->vt->mpi) /* every rank gets here alike: the messages done are every rank's */
		ctl_run_mpi_sum(&done, 1);
	if (r->opts->rank == 0) /* MPI: said once */
		fprintf(stderr, "uetemu: no progress for %.3f s of simulated time (no payload delivered, nothing completed) "
			"with %llu of %u messages open: stopped at %.6f s\n", (double)(t - *since) / 1e12,
			(unsigned long long)(r->n_msgs - done), r->n_msgs, (double)t / 1e12);
	return true;
}

static emu_ps_t min3(emu_ps_t a, emu_ps_t b, emu_ps_t c)
{
	emu_ps_t m = a < b ? a : b;

	return m < c ? m : c;
}

/* The windows, until none is left, SimulationDuration is reached, a signal, or no progress. */
static void loop(struct ctl_run_state *r, double t0)
{
	struct ctl_vt *vt = r->vt;
	emu_ps_t limit = r->has_stop ? r->stop : EMU_PS_NEVER - 1, check = VT_CHECK_PS, since = 0;
	double last = t0;
	bool tty = r->opts->progress && isatty(fileno(stderr));
	uint64_t mark = 0;

	for (;;) {
		emu_ps_t ck_end;
		bool quit;

		if (ctl_chakra_ended(r->chakra, &ck_end) && ck_end < limit) /* every rank has ended */
			limit = r->stop = ck_end;
		emu_ps_t next = next_event(r, &quit);

		if (quit || next == EMU_PS_NEVER || next > limit)
			break;
		emu_ps_t due = ctl_records_due(r->records);

		if (due < next) { /* periodic rows fall due between events: the run goes on past them */
			flush(r);
			ctl_records_advance(r->records, due);
			continue;
		}
		if (!r->has_stop && check < next) { /* at whole milliseconds, whatever the windows */
			bool ran = last_event_all(r) + VT_CHECK_PS > check;

			/* a millisecond in which nothing ran is not looked at: the fabric waits for a later start */
			if (ran && no_progress(r, check, &mark, &since)) {
				r->stalled = true;
				break;
			}
			check = ran ? check + VT_CHECK_PS : (next / VT_CHECK_PS + 1) * VT_CHECK_PS;
			continue;
		}
		emu_ps_t W = vt->n > 1 ? (vt->lookahead > EMU_PS_NEVER - next ? EMU_PS_NEVER - 1 : next + vt->lookahead - 1)
				       : next + VT_SLICE_PS;

		W = min3(W, due, limit);
		if (!r->has_stop && check < W)
			W = check;
		run_window(r, W);
		if (logged(r) >= VT_LOG_FLUSH)
			flush(r);
		progress(r, t0, &last, tty, false);
	}
}

/* ---- MPI: what rank 0 reports ---- */

#define VT_RSTATS 7

/* Sum @p n values each rank gives for what it ran (zeros for the rest) into every rank's @p v. */
static void sum_local(uint64_t *v, size_t n)
{
	ctl_run_mpi_sum(v, n);
}

static bool dev_here(const struct ctl_run_state *r, uint32_t dev)
{
	return r->dev_lc[dev] == r->vt->me;
}

/* The hosts' NIC counters and the switches' counters and ports, from the ranks that ran them. */
static int merge_devices(struct ctl_run_state *r)
{
	const struct ctl_config *cfg = r->cfg;
	const struct port_nic_ops *ops = cfg->n_hosts > 0 ? r->hosts[0].ops : NULL;
	size_t per_nic = ops != NULL ? ops->n_saved : 0; /* every host has the same model */
	size_t per_port = sizeof(struct sw_port_stats) / 8, n = (size_t)cfg->n_hosts * per_nic;

	for (uint32_t s = 0; s < r->n_sws; s++)
		n += SW_C_COUNT + (size_t)sw_n_ports(r->sws[s]) * per_port;
	uint64_t *v = calloc(n ? n : 1, sizeof(*v)), *p = v;

	if (v == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; i < cfg->n_hosts; i++, p += per_nic)
		if (per_nic > 0 && dev_here(r, i))
			ops->save(r->hosts[i].dev, p);
	for (uint32_t s = 0; s < r->n_sws; s++) {
		uint32_t np = sw_n_ports(r->sws[s]);

		if (dev_here(r, cfg->n_hosts + s)) {
			memcpy(p, sw_counters(r->sws[s]), SW_C_COUNT * 8);
			for (uint32_t k = 0; k < np; k++)
				sw_port_stats(r->sws[s], k, (struct sw_port_stats *)(p + SW_C_COUNT + k * per_port), r->end);
		}
		p += SW_C_COUNT + (size_t)np * per_port;
	}
	sum_local(v, n);
	p = v;
	for (uint32_t i = 0; per_nic > 0 && i < cfg->n_hosts; i++, p += per_nic)
		ops->load(r->hosts[i].dev, p);
	for (uint32_t s = 0; s < r->n_sws; s++) {
		uint32_t np = sw_n_ports(r->sws[s]);

		sw_stats_load(r->sws[s], p, (const struct sw_port_stats *)(p + SW_C_COUNT));
		p += SW_C_COUNT + (size_t)np * per_port;
	}
	free(v);
	return 0;
}

/* The links' directions (from their senders' ranks), the messages (from theirs), the run's counts. */
static int merge_run(struct ctl_run_state *r)
{
	struct ctl_vt *vt = r->vt;
	size_t n = (size_t)r->n_links * 2 * 5 + (size_t)r->n_msgs * 4 + 3 + NET_C_COUNT + 1 + r->cfg->n_devs;
	uint64_t *v = calloc(n, sizeof(*v)), *p = v;

	if (v == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; i < r->n_links; i++)
		for (uint32_t e = 0; e < 2; e++, p += 5) {
			const struct net_dir *d = &r->links[i].dir[e];

			if (d->from.ent == 0 || !dev_here(r, d->from.ent - 1))
				continue;
			p[0] = d->frames, p[1] = d->bytes, p[2] = d->drops, p[3] = d->trims, p[4] = d->pauses;
		}
	for (uint32_t i = 0; i < r->n_msgs; i++, p += 4)
		if (dev_here(r, r->msgs[i].m->src)) {
			const struct ctl_msg *m = &r->msgs[i];

			p[0] = m->done, p[1] = m->completed, p[2] = m->posted, p[3] = m->pdc;
		}
	p[0] = r->n_completed, p[1] = r->n_posted, p[2] = r->post_fail;
	p += 3;
	memcpy(p, r->lcs[vt->me].np->counters, NET_C_COUNT * 8);
	p += NET_C_COUNT;
	*p++ = emu_sched_events_run(r->lcs[vt->me].np->sched);
	for (uint32_t d = 0; d < r->cfg->n_devs; d++)
		if (dev_here(r, d))
			p[d] = emu_sched_created(r->lcs[vt->me].np->sched, d + 1);
	sum_local(v, n);
	p = v;
	for (uint32_t i = 0; i < r->n_links; i++)
		for (uint32_t e = 0; e < 2; e++, p += 5) {
			struct net_dir *d = &r->links[i].dir[e];

			d->frames = p[0], d->bytes = p[1], d->drops = p[2], d->trims = p[3], d->pauses = p[4];
		}
	for (uint32_t i = 0; i < r->n_msgs; i++, p += 4) {
		struct ctl_msg *m = &r->msgs[i];

		m->done = p[0], m->completed = p[1] != 0, m->posted = p[2] != 0, m->pdc = (uint16_t)p[3];
	}
	r->n_completed = (uint32_t)p[0], r->n_posted = (uint32_t)p[1], r->post_fail = p[2];
	p += 3;
	for (uint32_t i = 0; i < r->n_lcs; i++)
		memset(r->lcs[i].np->counters, 0, sizeof(r->lcs[i].np->counters));
	memcpy(r->lcs[0].np->counters, p, NET_C_COUNT * 8);
	p += NET_C_COUNT;
	r->events_other = *p++ - emu_sched_events_run(r->lcs[vt->me].np->sched);
	if ((vt->dev_created = malloc(sizeof(*vt->dev_created) * (r->cfg->n_devs ? r->cfg->n_devs : 1))) != NULL)
		memcpy(vt->dev_created, p, sizeof(*vt->dev_created) * r->cfg->n_devs);
	free(v);
	return 0;
}

/* Every rank's figures for summary.json's parallel member. */
static int merge_ranks(struct ctl_run_state *r)
{
	struct ctl_vt *vt = r->vt;
	const struct ctl_lcore *lc = &r->lcs[vt->me];
	uint64_t mine[VT_RSTATS] = { emu_sched_events_run(lc->np->sched), lc->wait_ns, lc->x_sent, lc->x_recv,
				     lc->x_late, lc->vlog->lost + box_lost(lc, r->n_lcs),
				     (uint64_t)(r->wall_s * 1e9) };

	if ((vt->rank_stat = calloc((size_t)vt->n * VT_RSTATS, sizeof(*vt->rank_stat))) == NULL)
		return -ENOMEM;
	ctl_run_mpi_allgather(mine, sizeof(mine), vt->rank_stat);
	return 0;
}

/* MPI, every rank at the run's end: gather what rank 0 writes the summary from. 0 or -ENOMEM. */
static int merge(struct ctl_run_state *r)
{
	int rc = merge_devices(r);

	rc = rc < 0 ? rc : merge_run(r);
	return rc < 0 ? rc : merge_ranks(r);
}

int ctl_run_virtual(struct ctl_run_state *r, char *err, size_t errlen)
{
	struct ctl_vt *vt = r->vt;
	double t0 = wall_now(), last = t0;
	uint64_t ev;
	int rc;

	if (vt->mpi) /* each rank writes the rows of its own devices: its shard */
		ctl_records_local(r->records, vt->local);
	if ((rc = start_workers(r)) < 0) {
		snprintf(err, errlen, "could not start %u threads: %s", vt->n, strerror(-rc));
		return rc;
	}
	loop(r, t0);
	stop_workers(r);
	r->end = last_event_all(r);
	(void)ev;
	if (r->n_lcs > 1)
		ctl_run_lcore_sum(r);
	flush(r);
	if (r->has_stop && !*r->opts->quit) {
		r->end = r->stop;
		/* the run lasts to its stop time: the periodic rows due after the last event, up to it, are written */
		ctl_records_advance(r->records, r->end);
	}
	r->wall_s = wall_now() - t0;
	if (vt->mpi && (rc = merge(r)) < 0) {
		snprintf(err, errlen, "out of memory gathering the ranks' counters");
		return rc;
	}
	progress(r, t0, &last, r->opts->progress && isatty(fileno(stderr)), true);
	return 0;
}

/* ---- the summary ---- */



/* Events the devices of partition @p p created. */
static uint64_t part_events(const struct ctl_run_state *r, uint32_t p)
{
	uint64_t n = 0;

	for (uint32_t d = 0; d < r->cfg->n_devs; d++)
		if (r->cfg->dev_part[d] == p)
			n += r->vt->dev_created != NULL ? r->vt->dev_created[d]
						       : emu_sched_created(ctl_run_dev_np(r, d)->sched,
									   d + 1);
	return n;
}

/* Thread (or rank) @p i's events, wait_ns, frames out, in, late, lost, and its run's wall time in ns. */
static void thread_stats(const struct ctl_run_state *r, uint32_t i, uint64_t st[VT_RSTATS])
{
	const struct ctl_lcore *lc = &r->lcs[i];

	if (r->vt->rank_stat != NULL) {
		memcpy(st, r->vt->rank_stat + (size_t)i * VT_RSTATS, sizeof(*st) * VT_RSTATS);
		return;
	}
	st[0] = emu_sched_events_run(lc->np->sched), st[1] = lc->wait_ns, st[2] = lc->x_sent, st[3] = lc->x_recv;
	st[4] = lc->x_late, st[5] = lc->vlog->lost + box_lost(lc, r->n_lcs);
	st[6] = (uint64_t)(r->wall_s * 1e9);
}

void ctl_run_vt_json(FILE *f, const struct ctl_run_state *r)
{
	const struct ctl_vt *vt = r->vt;

	if (vt == NULL)
		return;
	fprintf(f, "  \"parallel\": {\"mpi_ranks\": %u, \"threads\": %u, \"lookahead_ps\": %llu, \"lookahead_from\": \"%s\", "
		"\"windows\": %llu, \"close_delay_ps\": %llu, \"threads_detail\": [", vt->mpi ? vt->n : 0, vt->n,
		(unsigned long long)(vt->n > 1 ? vt->lookahead : 0), vt->n > 1 ? vt->la_what : "",
		(unsigned long long)vt->windows, (unsigned long long)vt->close_delay);
	for (uint32_t i = 0; i < r->n_lcs; i++) {
		uint64_t st[VT_RSTATS];

		thread_stats(r, i, st);
		fprintf(f, "%s{\"thread\": %u, \"events\": %llu, \"barrier_wait_s\": %.6f, \"frames_out\": %llu, "
			"\"frames_in\": %llu, \"late\": %llu, \"lost\": %llu, \"partitions\": [", i ? ", " : "", i,
			(unsigned long long)st[0], (double)st[1] / 1e9, (unsigned long long)st[2],
			(unsigned long long)st[3], (unsigned long long)st[4], (unsigned long long)st[5]);
		for (uint32_t p = 0, k = 0; p < r->cfg->n_parts; p++)
			if (r->part_lc[p] == i)
				fprintf(f, "%s{\"name\": \"%s\", \"events\": %llu}", k++ ? ", " : "",
					r->cfg->parts[p].name, (unsigned long long)part_events(r, p));
		fputs("]}", f);
	}
	fputs("]},\n", f);
}

void ctl_run_vt_print(const struct ctl_run_state *r)
{
	const struct ctl_vt *vt = r->vt;

	if (vt == NULL || vt->n < 2)
		return;
	printf("parallel: %u %s, lookahead %.3f us (%s), %llu windows\n", vt->n, vt->mpi ? "MPI ranks" : "threads",
	       (double)vt->lookahead / 1e6, vt->la_what, (unsigned long long)vt->windows);
	for (uint32_t i = 0; i < r->n_lcs; i++) {
		uint64_t st[VT_RSTATS];

		thread_stats(r, i, st);
		double w = st[6] > 0 ? 100.0 * (double)st[1] / (double)st[6] : 0; /* of its own run: ranks start apart */

		printf("  %s %u: %llu events, %llu frames out, %llu in, barrier wait %.3f s (%.1f%% of the run)\n",
		       vt->mpi ? "rank" : "thread", i, (unsigned long long)st[0], (unsigned long long)st[2],
		       (unsigned long long)st[3], (double)st[1] / 1e9, w);
	}
}


void ctl_run_vt_merge_caps(struct ctl_run_state *r)
{
	uint32_t n = r->cfg->n_captures;
	uint64_t *v = calloc((size_t)n * 9 + 1, sizeof(*v));

	if (v == NULL || r->cap_stats == NULL) {
		free(v);
		return;
	}
	for (uint32_t i = 0; i < n; i++) {
		const struct cap_stats *st = &r->cap_stats[i];
		uint64_t *p = v + (size_t)i * 9;

		p[0] = st->seen, p[1] = st->filtered_out, p[2] = st->written, p[3] = st->cut, p[4] = st->snapped;
		p[5] = st->lost_noted, p[6] = st->bytes, p[7] = st->files_opened, p[8] = st->n_files;
	}
	ctl_run_mpi_sum(v, (size_t)n * 9);
	for (uint32_t i = 0; i < n; i++) {
		struct cap_stats *st = &r->cap_stats[i];
		const uint64_t *p = v + (size_t)i * 9;

		*st = (struct cap_stats){ .seen = p[0], .filtered_out = p[1], .written = p[2], .cut = p[3],
					  .snapped = p[4], .lost_noted = p[5], .bytes = p[6],
					  .files_opened = (uint32_t)p[7], .n_files = (uint32_t)p[8] };
	}
	free(v);
}
