/*
 * The engine (run.h): its lcores and their partitions, split links, cross-partition events and the outputs to the
 * writer. The loops are run_win.c's (virtual time) and run_poll.c's (real time).
 */
#include "run_pvt.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

_Static_assert(sizeof(void *) == sizeof(uint64_t), "a cross-partition event's argument rides in a pointer");
_Static_assert(RUN_STALL_LCORES == RUN_LCORES_MAX, "every lcore publishes its next event to the stall record");

uint64_t run_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint32_t run_cpus(void)
{
	cpu_set_t set;
	int n;

	if (sched_getaffinity(0, sizeof(set), &set) == 0 && (n = CPU_COUNT(&set)) > 0)
		return (uint32_t)n;
	long c = sysconf(_SC_NPROCESSORS_ONLN);

	return c > 0 ? (uint32_t)c : 1;
}

uint32_t run_cpus_free(uint32_t *cpus)
{
	FILE *f = fopen("/proc/loadavg", "r");
	double load = 0;
	unsigned running = 1, total = 0;
	uint32_t busy = 0;

	*cpus = run_cpus();
	if (f != NULL) {
		if (fscanf(f, "%lf %*f %*f %u/%u", &load, &running, &total) == 3 && running >= 1) {
			uint32_t avg = load > 0 ? (uint32_t)(load + 0.5) : 0;

			busy = avg < running - 1 ? avg : running - 1;
		}
		fclose(f);
	}
	return busy < *cpus ? *cpus - busy : 1;
}

/* Off the common path: the arrays keep their size from window to window. */
bool run_grow(void *p, size_t *cap, size_t need, size_t elem, size_t first)
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

int run_create(struct run_engine **out, const struct run_params *p, char *err, size_t errlen)
{
	struct run_engine *e;

	*out = NULL;
	if (p->n_lcores < 1 || p->n_lcores > RUN_LCORES_MAX || (p->sync == RUN_SYNC_MPI && p->rank >= p->n_lcores)) {
		snprintf(err, errlen, "%u lcores: a run has 1 to %u", p->n_lcores, RUN_LCORES_MAX);
		return -EINVAL;
	}
	if ((e = calloc(1, sizeof(*e))) == NULL)
		return -ENOMEM;
	*out = e;
	e->clock = p->clock;
	e->sync = p->sync;
	e->n = p->n_lcores;
	e->me = p->sync == RUN_SYNC_MPI ? p->rank : 0;
	e->quit = p->quit;
	e->write = p->write;
	e->write_ctx = p->write_ctx;
	e->lookahead = EMU_PS_NEVER;
	if ((e->lcs = aligned_alloc(64, sizeof(*e->lcs) * e->n)) == NULL)
		return -ENOMEM;
	memset(e->lcs, 0, sizeof(*e->lcs) * e->n);
	for (uint32_t i = 0; i < e->n; i++) {
		struct run_lcore *lc = &e->lcs[i];

		lc->eng = e;
		lc->idx = i;
		lc->lcore_id = p->lcore_ids != NULL ? p->lcore_ids[i] : 0;
		lc->np = i == 0 ? p->main_np : &lc->own_np;
		if ((lc->out = calloc(e->n, sizeof(*lc->out))) == NULL)
			return -ENOMEM;
		if (i > 0 && net_part_init(&lc->own_np, p->max_events, p->max_pkts) < 0) {
			snprintf(err, errlen, "out of memory for lcore %u's event scheduler and packet pool", i);
			return -ENOMEM;
		}
	}
	if (e->clock != RUN_VIRTUAL)
		return 0;
	for (uint32_t i = 0; i < e->n; i++) {
		struct run_lcore *lc = &e->lcs[i];

		if ((lc->vout = calloc(e->n, sizeof(*lc->vout))) == NULL ||
		    (lc->vlog = calloc(1, sizeof(*lc->vlog))) == NULL) {
			snprintf(err, errlen, "out of memory for the threads' state");
			return -ENOMEM;
		}
	}
	return 0;
}

void run_destroy(struct run_engine *e)
{
	if (e == NULL)
		return;
	for (uint32_t i = 0; e->lcs != NULL && i < e->n; i++) {
		struct run_lcore *lc = &e->lcs[i];

		for (uint32_t k = 0; lc->in != NULL && k < e->n; k++)
			run_spsc_destroy(lc->in[k]);
		free(lc->in);
		free(lc->prof);
		free(lc->out);
		run_spsc_destroy(lc->wr);
		for (uint32_t k = 0; lc->vout != NULL && k < e->n; k++)
			free(lc->vout[k].v);
		free(lc->vout);
		if (lc->vlog != NULL) {
			free(lc->vlog->e);
			free(lc->vlog->buf);
			free(lc->vlog);
		}
		if (i > 0)
			net_part_fini(&lc->own_np);
	}
	free(e->lcs);
	free(e->split);
	free(e->by_addr);
	free(e->all);
	free(e->xout);
	free(e->xin);
	free(e->ports);
	free(e->tids);
	free(e);
}

int run_entities(struct run_engine *e, uint32_t n)
{
	for (uint32_t i = 0; i < e->n; i++)
		if (emu_sched_entities(e->lcs[i].np->sched, n) < 0)
			return -ENOMEM;
	return 0;
}

uint32_t run_n_lcores(const struct run_engine *e)
{
	return e->n;
}

struct run_lcore *run_lcore(struct run_engine *e, uint32_t i)
{
	return &e->lcs[i];
}

const struct run_lcore *run_lcore_c(const struct run_engine *e, uint32_t i)
{
	return &e->lcs[i];
}

enum run_clock_kind run_clock(const struct run_engine *e)
{
	return e->clock;
}

bool run_lcore_is_writer(const struct run_lcore *lc)
{
	return lc->idx == 0 && lc->eng->clock != RUN_VIRTUAL;
}

/* ---- split links ---- */

void run_split_link(struct run_engine *e, struct net_link *l, uint32_t la, uint32_t lb, const char *name)
{
	net_cross_fn fn = e->clock == RUN_REALTIME ? run_rt_cross : run_vt_cross;

	net_link_parts(l, e->lcs[la].np, e->lcs[lb].np);
	if (la == lb)
		return;
	if (run_grow(&e->split, &e->cap_split, e->n_split + 1, sizeof(*e->split), 64))
		e->split[e->n_split++] = l;
	e->lcs[la].out[lb] = (struct run_xroute){ .from = &e->lcs[la], .to = lb, .ring = e->lcs[la].out[lb].ring };
	e->lcs[lb].out[la] = (struct run_xroute){ .from = &e->lcs[lb], .to = la, .ring = e->lcs[lb].out[la].ring };
	l->dir[0].cross = fn;
	l->dir[0].cross_arg = &e->lcs[la].out[lb];
	l->dir[1].cross = fn;
	l->dir[1].cross_arg = &e->lcs[lb].out[la];
	if (e->clock == RUN_VIRTUAL)
		run_lookahead_bound(e, l->delay, name);
}

void run_lookahead_bound(struct run_engine *e, emu_ps_t delay, const char *what)
{
	if (delay >= e->lookahead)
		return;
	e->lookahead = delay;
	snprintf(e->la_what, sizeof(e->la_what), "%s", what);
}

int run_rings(struct run_engine *e)
{
	/* Between two lcores: 4 MiB, about 14,000 frames (a 296 B record each), 1.7 ms of 4 KiB frames at 400 Gb/s.
	 * To the writer: 8 MiB, about 900 full-size frames of a port capture or 24,000 of a link capture. */
	const uint32_t xring = 1u << 22, wring = 1u << 23;

	for (uint32_t i = 0; i < e->n; i++) {
		struct run_lcore *lc = &e->lcs[i];

		lc->in = calloc(e->n, sizeof(*lc->in));
		lc->wr = run_spsc_create(wring);
		if (lc->in == NULL || lc->wr == NULL)
			return -ENOMEM;
	}
	for (uint32_t i = 0; i < e->n; i++)
		for (uint32_t k = 0; k < e->n; k++)
			if (k != i && (e->lcs[k].in[i] = run_spsc_create(xring)) == NULL)
				return -ENOMEM;
	for (uint32_t i = 0; i < e->n; i++)
		for (uint32_t k = 0; k < e->n; k++)
			e->lcs[i].out[k] = (struct run_xroute){ .from = &e->lcs[i], .to = k,
								.ring = k != i ? e->lcs[k].in[i] : NULL };
	return 0;
}

/* ---- cross-partition events ---- */

int run_xev_kind(struct run_engine *e, run_xev_fn fn, void *ctx)
{
	if (e->n_xev == RUN_XEV_MAX)
		return -ENOSPC;
	e->xev[e->n_xev] = (struct run_xev){ .fn = fn, .ctx = ctx, .eng = e };
	return (int)e->n_xev++;
}

/* An event falls due on its lcore's scheduler: the lcore is the one whose scheduler runs it. */
static void ev_xev(void *a, void *b, emu_ps_t now)
{
	const struct run_xev *x = a;
	struct run_engine *e = x->eng;
	uint64_t arg = (uint64_t)(uintptr_t)b;
	uint32_t lc = arg >> 58 < e->n ? (uint32_t)(arg >> 58) : 0;

	x->fn(x->ctx, &e->lcs[lc], arg & ((1ull << 58) - 1), now);
}

void run_xev_deliver(struct run_lcore *lc, uint32_t ev, uint64_t arg, emu_ps_t at, const struct emu_sched_key *k)
{
	struct run_engine *e = lc->eng;

	if (ev >= e->n_xev)
		return;
	if (e->clock != RUN_VIRTUAL) { /* real time: at once, no earlier than its time */
		e->xev[ev].fn(e->xev[ev].ctx, lc, arg, at);
		return;
	}
	/* the lcore rides in the argument's top bits: the scheduler's event has two pointers */
	void *b = (void *)(uintptr_t)(arg | (uint64_t)lc->idx << 58);

	if (emu_sched_at_key(lc->np->sched, at, k, ev_xev, &e->xev[ev], b) < 0)
		lc->np->counters[NET_C_SCHED_FULL]++;
}

void run_xev_post(struct run_lcore *lc, uint32_t to, int kind, uint64_t arg, emu_ps_t at)
{
	struct run_engine *e = lc->eng;

	if (to == RUN_REMOTE || kind < 0 || (uint32_t)kind >= e->n_xev)
		return;
	if (e->clock != RUN_VIRTUAL) {
		if (to == lc->idx)
			e->xev[kind].fn(e->xev[kind].ctx, lc, arg, at);
		else
			run_rt_post(lc, to, (uint32_t)kind, arg, at);
		return;
	}
	struct emu_sched_key k;

	emu_sched_key_draw(lc->np->sched, &k);
	if (to == lc->idx) {
		run_xev_deliver(lc, (uint32_t)kind, arg, at, &k);
		return;
	}
	struct run_vbox *b = &lc->vout[to];

	if (!run_grow(&b->v, &b->cap, b->n + 1, sizeof(*b->v), 256)) {
		b->lost++;
		return;
	}
	b->v[b->n++] = (struct run_vmsg){ .kind = RUN_X_EVENT, .ev = (uint32_t)kind, .at = at, .k = k, .arg = arg };
}

/* ---- outputs ---- */

void run_out(struct run_lcore *lc, const void *hdr, uint32_t hlen, const void *body, uint32_t blen)
{
	struct run_engine *e = lc->eng;
	uint8_t *w;

	if (lc->vlog != NULL) {
		run_vt_log(lc, hdr, hlen, body, blen);
		return;
	}
	if (lc->wr == NULL) { /* a re-run: one lcore, no rings */
		uint64_t buf[(hlen + blen + 7) / 8 + 1];

		memcpy(buf, hdr, hlen);
		if (blen > 0) /* a header alone may come with no body (NULL) */
			memcpy((uint8_t *)buf + hlen, body, blen);
		e->write(e->write_ctx, buf, hlen + blen);
		return;
	}
	if ((w = run_spsc_reserve(lc->wr, hlen + blen)) == NULL) {
		lc->wr_full++;
		return;
	}
	memcpy(w, hdr, hlen);
	if (blen > 0) /* a header alone may come with no body (NULL) */
		memcpy(w + hlen, body, blen);
	run_spsc_commit(lc->wr);
}

void run_out_drain(struct run_engine *e)
{
	if (e->clock == RUN_VIRTUAL)
		run_vt_flush(e);
	else
		run_rt_drain(e);
}

/* ---- a re-run ---- */

void run_rerun_until(struct run_engine *e, emu_ps_t t)
{
	emu_sched_run_until(e->lcs[0].np->sched, t);
	if (!*e->quit) /* stopped part way (a signal): the time reached is the last event's */
		emu_sched_advance(e->lcs[0].np->sched, t);
}
