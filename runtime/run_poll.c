/*
 * Real time (docs/realtime.md): every lcore's poll loop over its partitions and ports, the rings between lcores
 * (frames crossing partitions, stamped with their arrival time, and cross-partition events) and from each to the
 * writer on the main lcore, and the pause in which the main lcore samples the periodic records.
 */
#include "run_pvt.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* What crosses between two lcores in real time. */
struct run_xmsg {
	uint32_t kind;          /* enum run_xkind */
	uint32_t ev;            /* EVENT: its kind */
	emu_ps_t at;            /* FRAME: arrival time; EVENT: its time */
	struct net_dir *dir;    /* FRAME: the direction it crossed */
	uint64_t arg;           /* EVENT */
	struct wire_pkt pkt;    /* FRAME only (an EVENT record stops before it) */
};

/* A frame leaves its lcore on direction @p d: a copy into the ring, its arrival time with it. */
void run_rt_cross(void *arg, struct net_dir *d, const struct wire_pkt *pkt, emu_ps_t at, const struct emu_sched_key *k)
{
	struct run_xroute *x = arg;

	(void)k; /* real time: frames arrive when they are taken, in the order they come */
	uint32_t raw = pkt->kind == WIRE_KIND_RAW ? pkt->payload_len : 0; /* a real device's bytes follow (take_one) */
	struct run_xmsg *m = run_spsc_reserve(x->ring, (uint32_t)sizeof(*m) + raw);

	if (m == NULL) {
		x->from->x_full++;
		return;
	}
	m->kind = RUN_X_FRAME;
	m->at = at;
	m->dir = d;
	m->pkt = *pkt;
	if (raw != 0)
		memcpy(m + 1, pkt->raw.buf, raw);
	run_spsc_commit(x->ring);
	x->from->x_sent++;
}

void run_rt_post(struct run_lcore *lc, uint32_t to, uint32_t ev, uint64_t arg, emu_ps_t at)
{
	struct run_spsc *ring = lc->out[to].ring;
	struct run_xmsg *m = ring != NULL ? run_spsc_reserve(ring, offsetof(struct run_xmsg, pkt)) : NULL;

	if (m == NULL) {
		lc->x_full++;
		return;
	}
	m->kind = RUN_X_EVENT;
	m->ev = ev;
	m->at = at;
	m->arg = arg;
	run_spsc_commit(ring);
}

/* One record from another lcore: a frame to deliver (late if its time has passed), or an event to run. */
static void take_one(struct run_lcore *lc, const struct run_xmsg *m, emu_ps_t now)
{
	if (m->kind == RUN_X_EVENT) {
		run_xev_deliver(lc, m->ev, m->arg, now > m->at ? now : m->at, NULL);
		return;
	}
	struct wire_pkt *p = m->pkt.kind == WIRE_KIND_RAW ? net_pkt_raw_copy(lc->np, &m->pkt, (const uint8_t *)(m + 1)) :
						       net_pkt_alloc(lc->np);

	lc->x_recv++;
	if (p == NULL)
		return;
	if (m->pkt.kind != WIRE_KIND_RAW)
		*p = m->pkt;
	if (m->at < now) {
		lc->x_late++;
		lc->x_late_max = now - m->at > lc->x_late_max ? now - m->at : lc->x_late_max;
	}
	net_dir_arrive(m->dir, p, m->at);
}

/* Take the frames and events other lcores sent @p lc; one due before @p now arrives now. */
void run_ring_take(struct run_lcore *lc, emu_ps_t now)
{
	for (uint32_t k = 0; k < lc->eng->n; k++) {
		struct run_spsc *in = lc->in != NULL ? lc->in[k] : NULL;
		const struct run_xmsg *m;
		uint32_t len;

		if (in == NULL)
			continue;
		while ((m = run_spsc_peek(in, &len)) != NULL) {
			take_one(lc, m, now);
			run_spsc_release(in);
		}
	}
}

void run_rt_drain(struct run_engine *e)
{
	for (uint32_t i = 0; i < e->n; i++) {
		struct run_spsc *wr = e->lcs[i].wr;
		const void *h;
		uint32_t len;

		while (wr != NULL && (h = run_spsc_peek(wr, &len)) != NULL) {
			e->write(e->write_ctx, h, len);
			run_spsc_release(wr);
		}
	}
}

int run_port_add(struct run_engine *e, const struct run_port *p)
{
	if (p->lc >= e->n)
		return -EINVAL;
	if (!run_grow(&e->ports, &e->cap_ports, e->n_ports + 1, sizeof(*e->ports), 8))
		return -ENOMEM;
	e->ports[e->n_ports++] = *p;
	return 0;
}

/* ---- the sampling pause ---- */

/* True once every other lcore has stopped at the top of its pass for pause @p k, or has ended. */
static bool all_paused(struct run_engine *e, uint64_t k)
{
	for (uint32_t i = 1; i < e->n; i++)
		if (__atomic_load_n(&e->lcs[i].samples_ack, __ATOMIC_ACQUIRE) != k &&
		    !__atomic_load_n(&e->lcs[i].exited, __ATOMIC_ACQUIRE))
			return false;
	return true;
}

/*
 * The main lcore never waits for the others: when rows fall due it asks for a pause and goes on with its pass; at
 * a later pass, once every other lcore stands at the top of its pass (or has ended), it samples and lets them go.
 * So a worker that lost the CPU holds up only the others' pause, not the main lcore's passes.
 */
void run_sample(struct run_engine *e, const struct run_hooks *h, emu_ps_t now)
{
	if (e->n == 1) {
		h->sample(h->ctx, now);
		return;
	}
	uint64_t k = e->samples_req; /* written by this lcore only */

	if (k == e->samples_go) { /* no pause asked for */
		if (h->due(h->ctx) <= now)
			__atomic_store_n(&e->samples_req, k + 1, __ATOMIC_RELEASE);
		return;
	}
	if (!all_paused(e, k))
		return;
	h->sample(h->ctx, now);
	__atomic_store_n(&e->samples_go, k, __ATOMIC_RELEASE);
}

/* A worker's side of sample(): wait here while the main lcore samples. */
void run_sample_wait(struct run_lcore *lc)
{
	struct run_engine *e = lc->eng;
	uint64_t k = __atomic_load_n(&e->samples_req, __ATOMIC_ACQUIRE);

	if (k == lc->samples_ack)
		return;
	__atomic_store_n(&lc->samples_ack, k, __ATOMIC_RELEASE);
	while (__atomic_load_n(&e->samples_go, __ATOMIC_ACQUIRE) != k && !*e->quit &&
	       !__atomic_load_n(&e->lc_stop, __ATOMIC_ACQUIRE))
		;
}

void run_stalls(const struct run_engine *e, struct run_rt_stats *out)
{
	if (e->clock == RUN_REALTIME)
		run_stall_stats(&e->stall, out);
}

void run_rt_merge(const struct run_engine *e, struct run_rt_stats *out)
{
	memset(out, 0, sizeof(*out));
	for (uint32_t i = 0; i < e->n; i++)
		run_rt_stats_merge(out, &e->lcs[i].rt);
	run_stalls(e, out); /* the run's stalls, each counted once, over the lcores' sums */
}

/* ---- the ports ---- */

/* Receive on every port of @p lc (each drains what arrived, then its timers), or flush what they staged. */
void run_ports_rx(struct run_engine *e, const struct run_lcore *lc)
{
	for (size_t i = 0; i < e->n_ports; i++)
		if (e->ports[i].lc == lc->idx)
			e->ports[i].rx(e->ports[i].arg);
}

void run_ports_flush(struct run_engine *e, const struct run_lcore *lc)
{
	for (size_t i = 0; i < e->n_ports; i++)
		if (e->ports[i].lc == lc->idx && e->ports[i].flush != NULL)
			e->ports[i].flush(e->ports[i].arg);
}
