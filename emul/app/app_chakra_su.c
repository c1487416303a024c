/* The Chakra scale-up fabric (the execution page's Scale-up groups): a transfer between two ranks of one scale-up
 * group is cut into packets of at most max_payload data bytes plus a header; the sender serves one queue per
 * receiver in turn, each packet taking its size at the group bandwidth times the number of receivers it is sending
 * to; a packet crosses one switch hop and two cables within a subgroup, three hops and four cables between
 * subgroups; the receiver serves one queue per sender the same way. The send node finishes when its last packet is
 * sent, the receive node when its last packet is received, the acknowledgment comes one round trip of latency after
 * the last packet was sent.
 *
 * Event-driven on the run's scheduler with at most three events per rank pending (its sender, its receiver, its
 * acknowledgments; the next packets are chosen by end-of-instant callbacks, which are not events): packets in
 * flight wait in per-pair rings with their arrival times, acknowledgments in two rings per rank (one per latency,
 * each in time order). The rings grow by doubling, never per packet. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "app_chakra.h"

/* A ring of fixed-size entries, grown by doubling. */
struct su_ring {
	void *v;
	uint32_t head, n, cap, size;
};

struct su_xfer { /* a transfer waiting in a sender's queue */
	uint64_t xfer, left;
};

struct su_pkt { /* a packet on its way to, or waiting at, its receiver */
	emu_ps_t arrive;
	uint64_t xfer;
	uint32_t wire;
	uint8_t last;
};

struct su_ack {
	emu_ps_t at;
	uint64_t xfer;
};

/* One ordered pair of group members: the sender's queue to the receiver, and the packets for the receiver. */
struct su_pair {
	struct su_ring tx; /* struct su_xfer */
	struct su_ring rx; /* struct su_pkt */
};

/* A port: the sender or the receiver side of a rank. */
struct su_port {
	emu_timer_t timer;
	emu_ps_t wake;     /* receiver: time of its armed wake-up for an arrival, 0 none */
	uint32_t cursor;   /* position of the partner served last */
	uint32_t active;   /* sender: queues with data left */
	uint8_t busy;
	struct su_pkt cur; /* the packet being served */
	uint32_t cur_pair;
};

struct su_rank {
	int32_t g;          /* group index, APP_CK_NONE outside every group */
	uint32_t pos;       /* position among the group's members */
	uint32_t sub;
	struct su_port tx, rx;
	/* the next packet of the sender and of the receiver is chosen at the end of the instant, once every transfer
	 * posted and every packet arrived at this time is queued */
	struct emu_sched_end tx_end, rx_end;
	uint8_t tx_waiting, rx_waiting;
	struct su_ring acks[2]; /* struct su_ack: [0] within the subgroup, [1] between subgroups */
	emu_timer_t ack_timer;
	emu_ps_t ack_at;
	struct app_ck_su_stats st;
};

struct su_group {
	struct app_ck_su_group p;
	uint32_t m;           /* members */
	uint32_t *ranks;      /* position -> rank */
	struct su_pair *pairs; /* m x m, [src pos * m + dst pos] */
};

struct app_ck_su {
	struct emu_sched *s;
	struct app_ck_run *run;
	uint64_t max_payload, header;
	uint32_t n_ranks, n_groups;
	struct su_rank *ranks;
	struct su_group *groups;
	uint64_t sched_errors;
};

static int ring_push(struct su_ring *q, const void *e)
{
	if (q->n == q->cap) {
		uint32_t cap = q->cap ? q->cap * 2 : 16;
		char *v = malloc((size_t)cap * q->size);

		if (!v)
			return -ENOMEM;
		for (uint32_t i = 0; i < q->n; i++)
			memcpy(v + (size_t)i * q->size, (char *)q->v + (size_t)((q->head + i) % q->cap) * q->size,
			       q->size);
		free(q->v);
		q->v = v, q->head = 0, q->cap = cap;
	}
	memcpy((char *)q->v + (size_t)((q->head + q->n) % q->cap) * q->size, e, q->size);
	q->n++;
	return 0;
}

static void *ring_front(const struct su_ring *q)
{
	return q->n ? (char *)q->v + (size_t)q->head * q->size : NULL;
}

static void ring_pop(struct su_ring *q)
{
	q->head = (q->head + 1) % q->cap;
	q->n--;
}

emu_ps_t app_ck_su_latency(const struct app_ck_su_group *g, int same_subgroup)
{
	return same_subgroup ? g->switch_lat + 2 * g->cable_lat : 3 * g->switch_lat + 4 * g->cable_lat;
}

emu_ps_t app_ck_su_serial(const struct app_ck_su_group *g, uint64_t wire, uint32_t share)
{
	unsigned __int128 bits = (unsigned __int128)wire * 8u * share * EMU_PS_PER_S;

	return g->bps ? (emu_ps_t)((bits + g->bps - 1) / g->bps) : 0;
}

static void tx_next(struct app_ck_su *su, uint32_t rank, emu_ps_t now);
static void rx_next(struct app_ck_su *su, uint32_t rank, emu_ps_t now);
static void rx_kick(struct app_ck_su *su, uint32_t rank);

static void tx_end(void *a, void *b, emu_ps_t now)
{
	struct app_ck_su *su = a;

	su->ranks[(uintptr_t)b].tx_waiting = 0;
	tx_next(su, (uint32_t)(uintptr_t)b, now);
}

static void rx_end(void *a, void *b, emu_ps_t now)
{
	struct app_ck_su *su = a;

	su->ranks[(uintptr_t)b].rx_waiting = 0;
	rx_next(su, (uint32_t)(uintptr_t)b, now);
}

static void rx_kick(struct app_ck_su *su, uint32_t rank)
{
	struct su_rank *k = &su->ranks[rank];

	if (k->rx.busy || k->rx_waiting)
		return;
	k->rx_waiting = 1;
	k->rx_end = (struct emu_sched_end){.fn = rx_end, .a = su, .b = (void *)(uintptr_t)rank};
	emu_sched_at_end(su->s, &k->rx_end);
}

/* An idle sender starts its next packet at the end of the instant, when every transfer posted at this time is
 * queued: two posted together share the bandwidth from their first packet. */
static void tx_kick(struct app_ck_su *su, uint32_t rank)
{
	struct su_rank *k = &su->ranks[rank];

	if (k->tx.busy || k->tx_waiting || !k->tx.active)
		return;
	k->tx_waiting = 1;
	k->tx_end = (struct emu_sched_end){.fn = tx_end, .a = su, .b = (void *)(uintptr_t)rank};
	emu_sched_at_end(su->s, &k->tx_end);
}

static void sched(struct app_ck_su *su, emu_ps_t when, emu_event_fn fn, uint32_t rank, emu_timer_t *h)
{
	if (emu_sched_at(su->s, when, fn, su, (void *)(uintptr_t)rank, h))
		su->sched_errors++;
}

static void ack_arm(struct app_ck_su *su, uint32_t rank);

static void ack_fire(void *a, void *b, emu_ps_t now)
{
	struct app_ck_su *su = a;
	struct su_rank *k = &su->ranks[(uintptr_t)b];

	k->ack_timer = 0, k->ack_at = 0;
	for (int i = 0; i < 2; i++)
		for (struct su_ack *e; (e = ring_front(&k->acks[i])) && e->at <= now;) {
			uint64_t xfer = e->xfer;

			ring_pop(&k->acks[i]);
			app_ck_acked(su->run, xfer, now);
		}
	ack_arm(su, (uint32_t)(uintptr_t)b);
}

/* Arm the rank's acknowledgment timer for the earliest head of its two rings. */
static void ack_arm(struct app_ck_su *su, uint32_t rank)
{
	struct su_rank *k = &su->ranks[rank];
	emu_ps_t at = EMU_PS_NEVER;

	for (int i = 0; i < 2; i++) {
		struct su_ack *e = ring_front(&k->acks[i]);

		if (e && e->at < at)
			at = e->at;
	}
	if (at == EMU_PS_NEVER || (k->ack_timer && k->ack_at <= at))
		return;
	if (k->ack_timer)
		emu_sched_cancel(su->s, k->ack_timer);
	k->ack_at = at;
	sched(su, at, ack_fire, rank, &k->ack_timer);
}

static struct su_pair *pair(struct app_ck_su *su, uint32_t src, uint32_t dst)
{
	struct su_group *g = &su->groups[su->ranks[src].g];

	return &g->pairs[su->ranks[src].pos * g->m + su->ranks[dst].pos];
}

/* A packet left rank src: on its way to its receiver; the last of a transfer finishes the send node. */
static void tx_done(void *a, void *b, emu_ps_t now)
{
	struct app_ck_su *su = a;
	uint32_t src = (uint32_t)(uintptr_t)b;
	struct su_rank *k = &su->ranks[src];
	struct su_group *g = &su->groups[k->g];
	uint32_t dst = g->ranks[k->tx.cur_pair % g->m];
	int same = su->ranks[dst].sub == k->sub;
	emu_ps_t lat = app_ck_su_latency(&g->p, same);
	struct su_pkt p = k->tx.cur;

	k->tx.busy = 0, k->tx.timer = 0;
	k->st.pkts_tx++, k->st.bytes_tx += p.wire;
	p.arrive = now + lat;
	if (ring_push(&g->pairs[k->tx.cur_pair].rx, &p))
		su->sched_errors++;
	else if (!su->ranks[dst].rx.busy && (!su->ranks[dst].rx.wake || p.arrive < su->ranks[dst].rx.wake))
		rx_kick(su, dst); /* idle, and this packet comes before the wake-up armed: choose again */
	if (p.last) {
		struct su_ack e = {now + 2 * lat, p.xfer};

		if (ring_push(&k->acks[!same], &e))
			su->sched_errors++;
		ack_arm(su, src);
		app_ck_sent(su->run, p.xfer, now);
	}
	tx_kick(su, src);
}

/* Start the rank's next packet: the next receiver in turn with data queued, at the bandwidth shared among them. */
static void tx_next(struct app_ck_su *su, uint32_t rank, emu_ps_t now)
{
	struct su_rank *k = &su->ranks[rank];
	struct su_group *g;
	struct su_pair *pr = NULL;
	uint32_t pos = 0;

	if (k->tx.busy || !k->tx.active)
		return;
	g = &su->groups[k->g];
	for (uint32_t i = 1; i <= g->m && !pr; i++) {
		pos = (k->tx.cursor + i) % g->m;
		if (g->pairs[k->pos * g->m + pos].tx.n)
			pr = &g->pairs[k->pos * g->m + pos];
	}
	struct su_xfer *x = ring_front(&pr->tx);
	uint64_t data = x->left < su->max_payload ? x->left : su->max_payload;
	uint32_t share = k->tx.active;

	x->left -= data;
	k->tx.cur = (struct su_pkt){.xfer = x->xfer, .wire = (uint32_t)(data + su->header), .last = x->left == 0};
	k->tx.cur_pair = k->pos * g->m + pos;
	k->tx.cursor = pos;
	if (x->left == 0) {
		ring_pop(&pr->tx);
		if (!pr->tx.n)
			k->tx.active--;
	}
	k->tx.busy = 1;
	sched(su, now + app_ck_su_serial(&g->p, k->tx.cur.wire, share), tx_done, rank, &k->tx.timer);
}

static void rx_done(void *a, void *b, emu_ps_t now)
{
	struct app_ck_su *su = a;
	uint32_t rank = (uint32_t)(uintptr_t)b;
	struct su_rank *k = &su->ranks[rank];

	k->rx.busy = 0, k->rx.timer = 0;
	k->st.pkts_rx++, k->st.bytes_rx += k->rx.cur.wire;
	if (k->rx.cur.last)
		app_ck_delivered_noack(su->run, k->rx.cur.xfer, now);
	rx_kick(su, rank);
}

static void rx_wake(void *a, void *b, emu_ps_t now)
{
	struct app_ck_su *su = a;
	struct su_rank *k = &su->ranks[(uintptr_t)b];

	(void)now;
	k->rx.timer = 0, k->rx.wake = 0;
	rx_kick(su, (uint32_t)(uintptr_t)b);
}

/* Serve the next sender in turn with a packet arrived, at the bandwidth shared among the senders with packets
 * arrived; with none arrived, wake up at the earliest arrival. */
static void rx_next(struct app_ck_su *su, uint32_t rank, emu_ps_t now)
{
	struct su_rank *k = &su->ranks[rank];
	struct su_group *g = &su->groups[k->g];
	uint32_t share = 0, pick = UINT32_MAX;
	emu_ps_t first = EMU_PS_NEVER;

	if (k->rx.busy)
		return;
	for (uint32_t i = 1; i <= g->m; i++) {
		uint32_t pos = (k->rx.cursor + i) % g->m;
		struct su_pkt *p = ring_front(&g->pairs[pos * g->m + k->pos].rx);

		if (p && p->arrive <= now) {
			share++;
			pick = pick == UINT32_MAX ? pos : pick;
		} else if (p && p->arrive < first) {
			first = p->arrive;
		}
	}
	if (k->rx.timer) { /* re-armed below, or served now */
		emu_sched_cancel(su->s, k->rx.timer);
		k->rx.timer = 0, k->rx.wake = 0;
	}
	if (pick == UINT32_MAX) {
		if (first != EMU_PS_NEVER) {
			k->rx.wake = first;
			sched(su, first, rx_wake, rank, &k->rx.timer);
		}
		return;
	}
	struct su_ring *q = &g->pairs[pick * g->m + k->pos].rx;

	k->rx.cur = *(struct su_pkt *)ring_front(q);
	ring_pop(q);
	k->rx.cursor = pick;
	k->rx.busy = 1;
	sched(su, now + app_ck_su_serial(&g->p, k->rx.cur.wire, share), rx_done, rank, &k->rx.timer);
}

int app_ck_su_same(const struct app_ck_su *su, uint32_t a, uint32_t b)
{
	return su && a < su->n_ranks && b < su->n_ranks && su->ranks[a].g != APP_CK_NONE &&
	       su->ranks[a].g == su->ranks[b].g;
}

int app_ck_su_post(struct app_ck_su *su, uint32_t src, uint32_t dst, uint64_t bytes, uint64_t xfer, emu_ps_t now)
{
	struct su_xfer x = {xfer, bytes};
	struct su_pair *pr;

	(void)now; /* the sender starts at the end of this instant (tx_kick) */
	if (!app_ck_su_same(su, src, dst) || src == dst)
		return -EINVAL;
	pr = pair(su, src, dst);
	if (ring_push(&pr->tx, &x))
		return -ENOMEM;
	if (pr->tx.n == 1)
		su->ranks[src].tx.active++;
	tx_kick(su, src);
	return 0;
}

static void rings_init(struct su_pair *p)
{
	p->tx.size = sizeof(struct su_xfer);
	p->rx.size = sizeof(struct su_pkt);
}

static int groups_init(struct app_ck_su *su, const struct app_ck_su_cfg *cfg)
{
	for (uint32_t r = 0; r < cfg->n_ranks; r++)
		if (cfg->group[r] != APP_CK_NONE)
			su->groups[cfg->group[r]].m++;
	for (uint32_t gi = 0; gi < su->n_groups; gi++) {
		struct su_group *g = &su->groups[gi];

		g->p = cfg->groups[gi];
		g->ranks = calloc(g->m + 1, sizeof(*g->ranks));
		g->pairs = calloc((size_t)g->m * g->m + 1, sizeof(*g->pairs));
		if (!g->ranks || !g->pairs)
			return -ENOMEM;
		for (uint32_t i = 0; i < g->m * g->m; i++)
			rings_init(&g->pairs[i]);
		g->m = 0;
	}
	for (uint32_t r = 0; r < cfg->n_ranks; r++) {
		struct su_rank *k = &su->ranks[r];

		k->g = cfg->group[r];
		k->acks[0].size = k->acks[1].size = sizeof(struct su_ack);
		if (k->g == APP_CK_NONE)
			continue;
		k->sub = cfg->subgroup[r];
		k->pos = su->groups[k->g].m;
		su->groups[k->g].ranks[su->groups[k->g].m++] = r;
		k->tx.cursor = k->rx.cursor = k->pos; /* the first turn goes to the next member */
	}
	return 0;
}

struct app_ck_su *app_ck_su_create(const struct app_ck_su_cfg *cfg, struct emu_sched *s)
{
	struct app_ck_su *su = calloc(1, sizeof(*su));

	if (!su)
		goto nomem;
	for (uint32_t r = 0; r < cfg->n_ranks; r++)
		if (cfg->group[r] != APP_CK_NONE && (uint32_t)cfg->group[r] >= cfg->n_groups) {
			free(su);
			errno = EINVAL;
			return NULL;
		}
	su->s = s, su->n_ranks = cfg->n_ranks, su->n_groups = cfg->n_groups;
	su->max_payload = cfg->max_payload ? cfg->max_payload : 1, su->header = cfg->header;
	su->ranks = calloc(cfg->n_ranks + 1, sizeof(*su->ranks));
	su->groups = calloc(cfg->n_groups + 1, sizeof(*su->groups));
	if (!su->ranks || !su->groups || groups_init(su, cfg))
		goto nomem;
	return su;
nomem:
	app_ck_su_destroy(su);
	errno = ENOMEM;
	return NULL;
}

void app_ck_su_bind(struct app_ck_su *su, struct app_ck_run *run)
{
	if (su)
		su->run = run;
}

void app_ck_su_destroy(struct app_ck_su *su)
{
	if (!su)
		return;
	for (uint32_t gi = 0; su->groups && gi < su->n_groups; gi++) {
		struct su_group *g = &su->groups[gi];

		for (uint32_t i = 0; g->pairs && i < g->m * g->m; i++)
			free(g->pairs[i].tx.v), free(g->pairs[i].rx.v);
		free(g->pairs), free(g->ranks);
	}
	for (uint32_t r = 0; su->ranks && r < su->n_ranks; r++)
		free(su->ranks[r].acks[0].v), free(su->ranks[r].acks[1].v);
	free(su->groups), free(su->ranks);
	free(su);
}

const struct app_ck_su_stats *app_ck_su_stats(const struct app_ck_su *su, uint32_t rank)
{
	return su && rank < su->n_ranks ? &su->ranks[rank].st : NULL;
}

uint64_t app_ck_su_errors(const struct app_ck_su *su)
{
	return su ? su->sched_errors : 0;
}
