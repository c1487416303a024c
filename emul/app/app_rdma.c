/* The Scala RDMA application (spec seeds/003): placement, connections, the WQE closed loop, the beacon's timing. */
#include "app_rdma.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_wqe.h"
#include "emu_counter.h"
#include "emu_rng.h"
#include "rec.h"

/*
 * Connection setup (seed 003): ConnectRequest, ConnectReply, ReadyToUse as real frames (wire.h, WIRE_KIND_CM).
 * The Initiator's id of connection i is i + 1, the Responder's APP_RDMA_RESP_ID | (i + 1). A request without a
 * reply is sent again every APP_RDMA_CM_TIMEOUT, at most APP_RDMA_CM_RETRIES times (the page gives no retry rule:
 * these are InfiniBand CM's usual shape; docs/rdma-app.md).
 */
#define APP_RDMA_RESP_ID 0x80000000u
#define APP_RDMA_CM_TIMEOUT (100 * EMU_PS_PER_US)
#define APP_RDMA_CM_RETRIES 15

EMU_COUNTER_NAMES(app_rdma_counter, APP_RDMA_COUNTERS, APP_RDMA_C_COUNT)

/* One connection: its own Initiator instance and queue pair, a long-lived connection on the Initiator's NIC. */
struct rdma_conn {
	uint32_t pair;     /* index into pairs */
	uint32_t idx;      /* connection number within the pair, from 0 */
	uint32_t conn;     /* the Initiator NIC's connection (a UET NIC's PDC, a RoCE NIC's queue pair) */
	bool open;         /* the Initiator's end exists: the reply came, the connection is set up */
	bool established;  /* the Responder has the ReadyToUse */
	bool rep_sent;     /* the Responder has sent a ConnectReply: a ReadyToUse may come */
	emu_ps_t rep_at;   /* when it last did: a request repeated sooner draws none (a forged one, or a copy) */
	uint32_t tries;    /* requests sent */
	emu_ps_t setup_at; /* the reply reached the Initiator (0: not yet) */
	uint64_t sent;     /* WQEs posted (num_wqe_sent) */
	uint64_t done;     /* WQEs completed (num_wqe_complete) */
};

struct app_rdma {
	struct app_rdma_params p;
	struct app_rdma_cb cb;
	const struct port_nic *hosts; /* bound by app_rdma_start(), index = FEP id */
	struct net_part *np;         /* the partition whose scheduler runs the application */
	struct app_timeline tl;
	struct app_place_out place;  /* role and pairs point at the arrays below */
	uint8_t *role;
	struct app_pair *pairs;
	struct app_rdma_pair_stats *sum; /* [n_pairs]: completed and window_bytes; setup times are computed */
	struct rdma_conn *conns;     /* [n_pairs x NumConnections], pair-major */
	uint32_t n_conns;
	emu_ps_t *doorbell;          /* [n_conns x MaxPendingWQEs]: doorbell times of the outstanding WQEs, a ring
				      * per connection indexed by the WQE's number; completions come in posting order */
	struct emu_sched_end beacon_end; /* a beacon row waits for the end of its instant */
	emu_ps_t beacon_last;        /* time of the previous beacon row, 0 before the first */
	uint64_t tx_client;          /* WQEs posted since the start of the run (beacon) */
	uint64_t rx_client;          /* WQEs completed before the stop (beacon) */
	uint64_t *lat;               /* latencies (ps) of the WQEs completed in the recording window */
	uint64_t n_lat, cap_lat;
	uint64_t c[APP_RDMA_C_COUNT];
};

void app_rdma_destroy(struct app_rdma *rd)
{
	if (rd == NULL)
		return;
	free(rd->role);
	free(rd->pairs);
	free(rd->sum);
	free(rd->conns);
	free(rd->doorbell);
	free(rd->lat);
	free(rd);
}

/* Allocate the connections. Returns 0 or -ENOMEM. */
static int make_conns(struct app_rdma *rd)
{
	uint32_t nc = rd->p.num_connections, mp = rd->p.max_pending;

	rd->n_conns = rd->place.n_pairs * nc;
	rd->sum = calloc(rd->place.n_pairs ? rd->place.n_pairs : 1, sizeof(*rd->sum));
	rd->conns = calloc(rd->n_conns ? rd->n_conns : 1, sizeof(*rd->conns));
	size_t n_db = app_wqes_outstanding(rd->place.n_pairs, nc, mp); /* a doorbell time per outstanding WQE */

	rd->doorbell = calloc(n_db > 0 ? n_db : 1, sizeof(*rd->doorbell));
	if (rd->sum == NULL || rd->conns == NULL || rd->doorbell == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; i < rd->n_conns; i++) {
		rd->conns[i].pair = i / nc;
		rd->conns[i].idx = i % nc;
	}
	return 0;
}

struct app_rdma *app_rdma_create(const struct app_rdma_params *p, char *err, size_t errlen)
{
	struct app_rdma *rd;
	struct emu_rng rng;

	if ((rd = calloc(1, sizeof(*rd))) == NULL)
		goto nomem;
	rd->p = *p;
	rd->role = calloc(p->n_hosts, sizeof(*rd->role));
	rd->pairs = calloc(p->n_hosts, sizeof(*rd->pairs));
	if (rd->role == NULL || rd->pairs == NULL)
		goto nomem;
	rd->place = (struct app_place_out){ .role = rd->role, .pairs = rd->pairs };
	struct app_place_in in = { .n_hosts = p->n_hosts, .pr_initiator = p->pr_initiator,
				   .pr_responder = p->pr_responder };
	emu_rng_init(&rng, p->random_seed, APP_RNG_STREAM_PLACE);
	if (app_place(&in, &rd->place, &rng, err, errlen) < 0 ||
	    app_timeline_compute(&p->timeline, &rd->tl, err, errlen) < 0) {
		app_rdma_destroy(rd);
		errno = EINVAL;
		return NULL;
	}
	if (make_conns(rd) < 0)
		goto nomem;
	return rd;
nomem:
	app_rdma_destroy(rd);
	snprintf(err, errlen, "out of memory for the ScalaRdma application");
	errno = ENOMEM;
	return NULL;
}

const struct app_place_out *app_rdma_place(const struct app_rdma *rd)
{
	return &rd->place;
}

const struct app_timeline *app_rdma_timeline(const struct app_rdma *rd)
{
	return &rd->tl;
}

uint32_t app_rdma_conns(const struct app_rdma *rd)
{
	return rd->n_conns;
}

bool app_rdma_conn_view(const struct app_rdma *rd, uint32_t c, struct app_rdma_conn_view *out)
{
	if (c >= rd->n_conns)
		return false;
	const struct rdma_conn *k = &rd->conns[c];

	*out = (struct app_rdma_conn_view){ .initiator = rd->pairs[k->pair].initiator,
					    .responder = rd->pairs[k->pair].responder, .conn = k->conn, .open = k->open,
					    .done = k->done, .wqe_bytes = APP_WQE_BYTES };
	return true;
}

uint64_t app_rdma_events(const struct app_rdma *rd)
{
	/* connection start or its request's retry timer, then the first WQEs; the beacon chain holds one at a time */
	return 2ull * rd->n_conns + 2;
}

void app_rdma_host_budget(const struct app_rdma *rd, uint32_t host, uint64_t *pdcs, uint64_t *wqes)
{
	uint64_t nc = rd->p.num_connections;

	*pdcs = *wqes = 0;
	for (uint32_t i = 0; i < rd->place.n_pairs; i++) {
		if (rd->pairs[i].initiator == host) {
			*pdcs += nc;
			*wqes += nc * rd->p.max_pending;
		}
		if (rd->pairs[i].responder == host)
			*pdcs += nc;
	}
}

/* Ring the doorbell for the connection's next WQE (an RDMA WRITE of 250,000 B). */
static void post_wqe(struct app_rdma *rd, uint32_t ci, emu_ps_t now)
{
	struct rdma_conn *k = &rd->conns[ci];
	uint32_t mp = rd->p.max_pending;
	const struct port_nic *h = &rd->hosts[rd->pairs[k->pair].initiator];

	if (h->ops->conn_post(h->dev, k->conn, APP_WQE_BYTES, APP_RDMA_COOKIE | ci, now) < 0) {
		rd->c[APP_RDMA_C_POST_FAILED]++;
		return;
	}
	rd->doorbell[(size_t)ci * mp + k->sent % mp] = now;
	k->sent++;
	rd->tx_client++;
}

/* From the end of the client start window (or the setup's end): MaxPendingWQEs WQEs at once. */
static void ev_wqe_start(void *a, void *b, emu_ps_t now)
{
	struct app_rdma *rd = a;
	uint32_t ci = (uint32_t)((struct rdma_conn *)b - rd->conns);

	if (now >= rd->tl.stop || !rd->conns[ci].open)
		return;
	for (uint32_t i = 0; i < rd->p.max_pending; i++)
		post_wqe(rd, ci, now);
}

/* The setup messages by type (enum wire_cm_type), as counters. */
static const uint8_t cm_counter[WIRE_CM_RTU + 1] = {
	[WIRE_CM_REQ] = APP_RDMA_C_REQUESTS, [WIRE_CM_REP] = APP_RDMA_C_REPLIES, [WIRE_CM_RTU] = APP_RDMA_C_READY_TO_USE,
};

static void cm_send(struct app_rdma *rd, uint32_t from, uint32_t to, const struct wire_cm *cm, emu_ps_t now)
{
	const struct port_nic *h = &rd->hosts[from];

	if (h->ops->cm_send(h->dev, rd->p.host_ip[to], cm, now) < 0) {
		rd->c[APP_RDMA_C_SEND_FAILED]++;
		return;
	}
	rd->c[cm_counter[cm->type]]++;
}

static void ev_cm_retry(void *a, void *b, emu_ps_t now);

/* The Initiator sends connection @p k's request, and arms the timer that sends it again without a reply. */
static void send_req(struct app_rdma *rd, struct rdma_conn *k, emu_ps_t now)
{
	const struct app_pair *p = &rd->pairs[k->pair];
	struct wire_cm cm = { .type = WIRE_CM_REQ, .connection = (uint16_t)k->idx,
			      .local_id = (uint32_t)(k - rd->conns) + 1 };

	k->tries++;
	cm_send(rd, p->initiator, p->responder, &cm, now);
	if (now + APP_RDMA_CM_TIMEOUT < rd->tl.stop &&
	    net_sched(rd->np, now + APP_RDMA_CM_TIMEOUT, ev_cm_retry, rd, k, NULL) < 0)
		rd->c[APP_RDMA_C_SEND_FAILED]++;
}

static void ev_cm_retry(void *a, void *b, emu_ps_t now)
{
	struct app_rdma *rd = a;
	struct rdma_conn *k = b;

	if (k->open)
		return;
	if (k->tries > APP_RDMA_CM_RETRIES) {
		rd->c[APP_RDMA_C_FAILED]++;
		rd->c[APP_RDMA_C_POST_FAILED] += rd->p.max_pending;
		return;
	}
	rd->c[APP_RDMA_C_RETRIES]++;
	send_req(rd, k, now);
}

/* The connection starts: its Initiator sends the connection request (StartType decides when). */
static void ev_conn_start(void *a, void *b, emu_ps_t now)
{
	struct app_rdma *rd = a;
	struct rdma_conn *k = b;

	if (now >= rd->tl.stop)
		return;
	send_req(rd, k, now);
}

/* The reply reached the Initiator: its NIC creates its end of the queue pair (a connection PDC), the Initiator
 * acknowledges, and the WQEs start at the end of the client start window, or now if that has passed. */
static void cm_reply(struct app_rdma *rd, struct rdma_conn *k, const struct wire_cm *in, emu_ps_t now)
{
	const struct app_pair *p = &rd->pairs[k->pair];

	if (!k->open) {
		const struct port_nic *h = &rd->hosts[p->initiator];

		if (h->ops->conn_open(h->dev, rd->p.host_ip[p->responder], &k->conn, now) < 0) {
			rd->c[APP_RDMA_C_POST_FAILED] += rd->p.max_pending;
			return;
		}
		k->open = true;
		k->setup_at = now;
		emu_ps_t at = app_wqe_start(&rd->tl, now);
		if (at == now)
			ev_wqe_start(rd, k, now);
		else if (net_sched(rd->np, at, ev_wqe_start, rd, k, NULL) < 0)
			rd->c[APP_RDMA_C_POST_FAILED] += rd->p.max_pending;
	}
	/* a reply to a repeated request is acknowledged again; the queue pair is made once */
	struct wire_cm rtu = { .type = WIRE_CM_RTU, .connection = (uint16_t)k->idx,
			       .local_id = (uint32_t)(k - rd->conns) + 1, .remote_id = in->local_id,
			       .qpn = k->conn };
	cm_send(rd, p->initiator, p->responder, &rtu, now);
}

/*
 * Does @p cm (already known to come from connection @p k's peer, to the right side) match an exchange outstanding on
 * @p k? A request: the connection is not yet established and no reply went out in the last half retry timeout (the
 * Initiator repeats every APP_RDMA_CM_TIMEOUT, so its retries are all answered; a flood of copies draws one reply).
 * A reply: the Initiator sent a request, and the reply names both ends' ids. A ReadyToUse: the Responder sent a
 * reply, and it names both ends' ids. Nothing a peer sends changes setup state otherwise.
 */
static bool cm_expected(const struct rdma_conn *k, uint32_t ci, const struct wire_cm *cm, emu_ps_t now)
{
	switch (cm->type) {
	case WIRE_CM_REQ:
		return !k->established && (!k->rep_sent || now - k->rep_at >= APP_RDMA_CM_TIMEOUT / 2);
	case WIRE_CM_REP:
		return k->tries > 0 && cm->local_id == (APP_RDMA_RESP_ID | (ci + 1));
	default:
		return k->rep_sent && cm->local_id == ci + 1;
	}
}

/*
 * A connection-management message reached host @p host from @p src_ip. Each names the connection by the id its
 * receiver gave it (the request: the Initiator's own); one that names no connection of this pair of hosts, or
 * comes to the wrong side, is counted as invalid and dropped.
 */
void app_rdma_cm(struct app_rdma *rd, uint32_t host, uint32_t src_ip, const struct wire_cm *cm, emu_ps_t now)
{
	/* the Initiator's id in a request and a reply, the Responder's (bit 31 set) in a ReadyToUse */
	uint32_t id = cm->type == WIRE_CM_REQ ? cm->local_id : cm->remote_id;
	uint32_t resp_bit = cm->type == WIRE_CM_RTU ? APP_RDMA_RESP_ID : 0;
	bool to_resp = cm->type != WIRE_CM_REP;

	if (rd == NULL || now >= rd->tl.stop)
		return;
	uint32_t ci = (id & ~APP_RDMA_RESP_ID) - 1; /* id 0 wraps past n_conns */

	if ((id & APP_RDMA_RESP_ID) != resp_bit || ci >= rd->n_conns) {
		rd->c[APP_RDMA_C_INVALID]++;
		return;
	}
	struct rdma_conn *k = &rd->conns[ci];
	const struct app_pair *p = &rd->pairs[k->pair];
	uint32_t me = to_resp ? p->responder : p->initiator, peer = to_resp ? p->initiator : p->responder;

	if (host != me || src_ip != rd->p.host_ip[peer] || cm->connection != k->idx || !cm_expected(k, ci, cm, now)) {
		rd->c[APP_RDMA_C_INVALID]++;
		return;
	}
	switch (cm->type) {
	case WIRE_CM_REQ: {
		/* The Responders listen from StartTime: a request before that goes unanswered (the retry comes). */
		if (now < rd->tl.responders_start) {
			rd->c[APP_RDMA_C_NOT_LISTENING]++;
			return;
		}
		/* the Responder's end of the queue pair: its id for the connection, sent back in the reply */
		struct wire_cm rep = { .type = WIRE_CM_REP, .connection = (uint16_t)k->idx,
				       .local_id = APP_RDMA_RESP_ID | (ci + 1), .remote_id = cm->local_id };
		k->rep_sent = true;
		k->rep_at = now;
		cm_send(rd, me, peer, &rep, now);
		break;
	}
	case WIRE_CM_REP:
		cm_reply(rd, k, cm, now);
		break;
	default: /* WIRE_CM_RTU */
		k->established = true;
		break;
	}
}

/* The next beacon row after one at @p now: k x BeaconReportInterval, and a last one at the stop time when the
 * grid does not land on it; EMU_PS_NEVER after the row at the stop time. */
static emu_ps_t beacon_next(const struct app_rdma *rd, emu_ps_t now)
{
	emu_ps_t next = now + rd->p.beacon_interval;

	if (now >= rd->tl.stop)
		return EMU_PS_NEVER;
	return next < now || next > rd->tl.stop ? rd->tl.stop : next;
}

static void ev_beacon(void *a, void *b, emu_ps_t now);

/*
 * A beacon row, once everything due at its time has run (the WQEs posted at a row's time are in it): WQEs posted
 * and completed since the start, over the time since the previous row (seed 003, Beacon).
 */
static void beacon_row(void *a, void *b, emu_ps_t now)
{
	struct app_rdma *rd = a;
	emu_ps_t next = beacon_next(rd, now);

	(void)b;
	if (rd->cb.beacon != NULL)
		rd->cb.beacon(rd->cb.ctx, now - rd->beacon_last, rd->tx_client, rd->rx_client, now);
	rd->beacon_last = now;
	if (next != EMU_PS_NEVER)
		(void)net_sched(rd->np, next, ev_beacon, rd, NULL, NULL); /* the event it ran in is free */
}

static void ev_beacon(void *a, void *b, emu_ps_t now)
{
	struct app_rdma *rd = a;

	(void)b;
	(void)now;
	rd->beacon_end = (struct emu_sched_end){ .fn = beacon_row, .a = rd };
	emu_sched_at_end(rd->np->sched, &rd->beacon_end);
}

int app_rdma_start(struct app_rdma *rd, const struct port_nic *hosts, struct net_part *np,
		   const struct app_rdma_cb *cb, char *err, size_t errlen)
{
	struct emu_rng rng;

	rd->hosts = hosts;
	rd->np = np;
	if (cb != NULL)
		rd->cb = *cb;
	emu_ps_t first = rd->p.beacon_interval < rd->tl.stop ? rd->p.beacon_interval : rd->tl.stop;
	if (net_sched(rd->np, first, ev_beacon, rd, NULL, NULL) < 0) {
		snprintf(err, errlen, "no event for the beacon record");
		return -ENOSPC;
	}
	/* StartType uniform draws on its own stream, so adding connections does not move the pairs. */
	emu_rng_init(&rng, rd->p.random_seed, APP_RNG_STREAM_PLACE + 1);
	for (uint32_t i = 0; i < rd->n_conns; i++) {
		emu_ps_t at = app_conn_start(&rd->tl, (enum app_start)rd->p.start_type, i, rd->n_conns, &rng);
		if (net_sched(rd->np, at, ev_conn_start, rd, &rd->conns[i], NULL) < 0) {
			snprintf(err, errlen, "too many ScalaRdma connections for the event scheduler");
			return -ENOSPC;
		}
	}
	return 0;
}

/* Keep the latency of a WQE completed in the recording window (the array doubles; a WQE it cannot hold is left
 * out of the percentiles). */
static void keep_latency(struct app_rdma *rd, uint64_t lat)
{
	if (rd->n_lat == rd->cap_lat) {
		uint64_t cap = rd->cap_lat ? 2 * rd->cap_lat : 1024;
		uint64_t *p = realloc(rd->lat, cap * sizeof(*p));
		if (p != NULL) {
			rd->lat = p;
			rd->cap_lat = cap;
		}
	}
	if (rd->n_lat < rd->cap_lat)
		rd->lat[rd->n_lat++] = lat;
}

void app_rdma_done(struct app_rdma *rd, uint64_t cookie, emu_ps_t now)
{
	uint32_t ci = (uint32_t)(cookie & ~APP_RDMA_COOKIE);

	if (rd == NULL || !(cookie & APP_RDMA_COOKIE) || ci >= rd->n_conns)
		return;
	struct rdma_conn *k = &rd->conns[ci];
	uint32_t mp = rd->p.max_pending;

	/* A WQE completing at or after the stop time is outstanding when the run ends: not recorded. */
	if (now >= rd->tl.stop)
		return;
	emu_ps_t doorbell = rd->doorbell[(size_t)ci * mp + k->done % mp];
	k->done++;
	rd->rx_client++;
	if (rd->cb.wqe_done != NULL) {
		struct app_rdma_wqe w = { .conn = ci, .initiator = rd->pairs[k->pair].initiator, .sent = k->sent,
					  .done = k->done, .doorbell = doorbell };
		rd->cb.wqe_done(rd->cb.ctx, &w, now);
	}
	rd->sum[k->pair].completed++;
	if (app_in_record_window(&rd->tl, now)) {
		rd->sum[k->pair].window_bytes += APP_WQE_BYTES;
		keep_latency(rd, now - doorbell);
	}
	post_wqe(rd, ci, now); /* closed loop: one new WQE per completion */
}

uint64_t app_rdma_counter(const struct app_rdma *rd, unsigned c)
{
	return c < APP_RDMA_C_COUNT ? rd->c[c] : 0;
}

void app_rdma_setup_counts(const struct app_rdma *rd, uint32_t *up, uint32_t *est)
{
	*up = *est = 0;
	for (uint32_t c = 0; c < rd->n_conns; c++) {
		*up += rd->conns[c].open;
		*est += rd->conns[c].established;
	}
}

void app_rdma_pair_stats(const struct app_rdma *rd, uint32_t i, struct app_rdma_pair_stats *out)
{
	uint32_t nc = rd->p.num_connections;

	memset(out, 0, sizeof(*out));
	if (i >= rd->place.n_pairs)
		return;
	out->completed = rd->sum[i].completed;
	out->window_bytes = rd->sum[i].window_bytes;
	for (uint32_t c = i * nc; c < (i + 1) * nc; c++) {
		emu_ps_t t = rd->conns[c].setup_at;
		if (!rd->conns[c].open)
			continue;
		if (out->setup_first == 0 || t < out->setup_first)
			out->setup_first = t;
		if (t > out->setup_last)
			out->setup_last = t;
	}
}

uint64_t app_rdma_wqes_done(const struct app_rdma *rd)
{
	return rd->rx_client;
}

void app_rdma_finish(struct app_rdma *rd)
{
	rec_sort_u64(rd->lat, rd->n_lat);
}

uint64_t app_rdma_latency(const struct app_rdma *rd, uint32_t p, uint64_t *n)
{
	if (n != NULL)
		*n = rd->n_lat;
	return rec_pct(rd->lat, rd->n_lat, p);
}
