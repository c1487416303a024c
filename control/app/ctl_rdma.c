/* The Scala RDMA application in a run (spec seeds/003): placement, connections, the WQE closed loop, rdma-perf. */
#include "ctl_rdma.h"
#include "ctl_rec.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "app_place.h"
#include "app_timeline.h"
#include "app_wqe.h"

#define RDMA_PERF_HEADER \
	"job_id,time_utc,sim_time_sec,metric_name,perf_metric_usec,transfer_size,start_time_sec,application_name," \
	"node_id,rdma_verb,wqe_id,num_wqe_sent,num_wqe_complete"
/* simulation-output-files.md, Beacon: the application adds to tx_client and rx_client; the rest stay 0. */
#define BEACON_HEADER \
	"job_id,time_utc,sim_time_sec,interval_duration_sec,tx_client,rx_client,tx_server,rx_server," \
	"rx_bytes_reader,rx_bytes_writer,goodput_reader_MB_per_sec,goodput_writer_MB_per_sec"

/*
 * Connection setup (seed 003): ConnectRequest, ConnectReply, ReadyToUse as real frames (wire.h, WIRE_KIND_CM).
 * The Initiator's id of connection i is i + 1, the Responder's RDMA_CM_RESP_ID | (i + 1). A request without a reply
 * is sent again every RDMA_CM_TIMEOUT, at most RDMA_CM_RETRIES times (the page gives no retry rule: these are
 * InfiniBand CM's usual shape; docs/rdma-app.md).
 */
#define RDMA_CM_RESP_ID 0x80000000u
#define RDMA_CM_TIMEOUT (100 * EMU_PS_PER_US)
#define RDMA_CM_RETRIES 15

/* One connection: its own Initiator instance and queue pair, a long-lived PDC on the Initiator's NIC. */
struct rdma_conn {
	uint32_t pair;     /* index into pairs */
	uint32_t idx;      /* connection number within the pair, from 0 */
	uint16_t pdc;      /* the Initiator NIC's connection PDC */
	bool open;         /* the Initiator's end exists: the reply came, the connection is set up */
	bool established;  /* the Responder has the ReadyToUse */
	bool rep_sent;     /* the Responder has sent a ConnectReply: a ReadyToUse may come */
	emu_ps_t rep_at;   /* when it last did: a request repeated sooner draws none (a forged one, or a copy) */
	uint32_t tries;    /* requests sent */
	emu_ps_t setup_at; /* the reply reached the Initiator (0: not yet) */
	uint64_t sent;     /* WQEs posted (num_wqe_sent) */
	uint64_t done;     /* WQEs completed (num_wqe_complete) */
	char name[CTL_NAME_MAX * 2 + 32]; /* application_name: the Initiator instance */
};

struct rdma_pair_sum {
	uint64_t completed;    /* WQEs completed before the stop (rdma-perf rows) */
	uint64_t window_bytes; /* bytes of the WQEs completed inside the recording window */
};

struct ctl_rdma {
	const struct ctl_config *cfg;
	struct nic *const *nics;     /* bound by ctl_rdma_start(), index = FEP id */
	struct net_part *np;         /* the partition whose scheduler runs the application */
	const struct ctl_app *app;
	struct app_timeline tl;
	struct app_place_out place;  /* role and pairs point at the arrays below */
	uint8_t *role;
	struct app_pair *pairs;
	struct rdma_pair_sum *sum;   /* [n_pairs] */
	struct rdma_conn *conns;     /* [n_pairs x NumConnections], pair-major */
	uint32_t n_conns;
	emu_ps_t *doorbell;          /* [n_conns x MaxPendingWQEs]: doorbell times of the outstanding WQEs, a ring
				      * per connection indexed by the WQE's number; completions come in posting order */
	struct rec_csv *perf;
	struct rec_csv *beacon;
	struct emu_sched_end beacon_end; /* a beacon row waits for the end of its instant */
	emu_ps_t beacon_last;        /* time of the previous beacon row, 0 before the first */
	uint64_t tx_client;          /* WQEs posted since the start of the run (beacon) */
	uint64_t rx_client;          /* WQEs completed before the stop (beacon) */
	uint64_t *lat;               /* latencies (ps) of the WQEs completed in the recording window */
	uint64_t n_lat, cap_lat;
	uint64_t post_fail;
	/* connection setup: messages sent by type (index enum wire_cm_type), and what went wrong */
	uint64_t cm_sent[WIRE_CM_RTU + 1];
	uint64_t cm_retries, cm_failed, cm_not_listening, cm_invalid, cm_send_fail;
};

void ctl_rdma_destroy(struct ctl_rdma *rd)
{
	if (rd == NULL)
		return;
	rec_csv_close(rd->perf, NULL, 0);
	rec_csv_close(rd->beacon, NULL, 0);
	free(rd->role);
	free(rd->pairs);
	free(rd->sum);
	free(rd->conns);
	free(rd->doorbell);
	free(rd->lat);
	free(rd);
}

/* Allocate the connections and give each its Initiator instance's name. Returns 0 or -ENOMEM. */
static int make_conns(struct ctl_rdma *rd)
{
	const struct ctl_config *cfg = rd->cfg;
	uint32_t nc = rd->app->num_connections, mp = rd->app->max_pending;

	rd->n_conns = rd->place.n_pairs * nc;
	rd->sum = calloc(rd->place.n_pairs ? rd->place.n_pairs : 1, sizeof(*rd->sum));
	rd->conns = calloc(rd->n_conns ? rd->n_conns : 1, sizeof(*rd->conns));
	size_t n_db = app_wqes_outstanding(rd->place.n_pairs, nc, mp); /* a doorbell time per outstanding WQE */

	rd->doorbell = calloc(n_db > 0 ? n_db : 1, sizeof(*rd->doorbell));
	if (rd->sum == NULL || rd->conns == NULL || rd->doorbell == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; i < rd->n_conns; i++) {
		struct rdma_conn *k = &rd->conns[i];
		const struct app_pair *p = &rd->pairs[i / nc];

		k->pair = i / nc;
		k->idx = i % nc;
		snprintf(k->name, sizeof(k->name), "ScalaRdmaInitiator-%s-%s-%u", cfg->hosts[p->initiator].name,
			 cfg->hosts[p->responder].name, k->idx);
	}
	return 0;
}

int ctl_rdma_create(const struct ctl_config *cfg, struct ctl_rdma **out, char *err, size_t errlen)
{
	struct ctl_rdma *rd;
	struct emu_rng rng;
	char why[200];

	*out = NULL;
	if (cfg->rdma_app < 0 || (uint32_t)cfg->rdma_app >= cfg->n_apps)
		return 0;
	if ((rd = calloc(1, sizeof(*rd))) == NULL)
		return -ENOMEM;
	rd->cfg = cfg;
	rd->app = &cfg->apps[cfg->rdma_app];
	rd->role = calloc(cfg->n_hosts, sizeof(*rd->role));
	rd->pairs = calloc(cfg->n_hosts, sizeof(*rd->pairs));
	if (rd->role == NULL || rd->pairs == NULL)
		goto nomem;
	rd->place = (struct app_place_out){ .role = rd->role, .pairs = rd->pairs };
	struct app_place_in in = { .n_hosts = cfg->n_hosts, .pr_initiator = rd->app->pr_initiator,
				   .pr_responder = rd->app->pr_responder };
	emu_rng_init(&rng, cfg->sim.random_seed, APP_RNG_STREAM_PLACE);
	if (app_place(&in, &rd->place, &rng, why, sizeof(why)) < 0 ||
	    app_timeline_compute(&cfg->timeline, &rd->tl, why, sizeof(why)) < 0) {
		snprintf(err, errlen, "%s: applications.%d: %s", cfg->path, cfg->rdma_app, why);
		ctl_rdma_destroy(rd);
		return -EINVAL;
	}
	if (make_conns(rd) < 0)
		goto nomem;
	*out = rd;
	return 0;
nomem:
	ctl_rdma_destroy(rd);
	snprintf(err, errlen, "out of memory for the ScalaRdma application");
	return -ENOMEM;
}

uint64_t ctl_rdma_events(const struct ctl_rdma *rd)
{
	/* connection start or its request's retry timer, then the first WQEs; the beacon chain holds one at a time */
	return rd == NULL ? 0 : 2ull * rd->n_conns + 2;
}

void ctl_rdma_host_budget(const struct ctl_rdma *rd, uint32_t host, uint64_t *pdcs, uint64_t *wqes)
{
	*pdcs = *wqes = 0;
	if (rd == NULL)
		return;
	uint64_t nc = rd->app->num_connections;

	for (uint32_t i = 0; i < rd->place.n_pairs; i++) {
		if (rd->pairs[i].initiator == host) {
			*pdcs += nc;
			*wqes += nc * rd->app->max_pending;
		}
		if (rd->pairs[i].responder == host)
			*pdcs += nc;
	}
}

uint64_t ctl_rdma_doorbell_bytes(const struct ctl_rdma *rd)
{
	return rd == NULL ? 0 : app_doorbell_bytes(rd->app->doorbell_payload);
}

bool ctl_rdma_stop(const struct ctl_rdma *rd, emu_ps_t *stop)
{
	if (rd == NULL)
		return false;
	*stop = rd->tl.stop;
	return true;
}

/* Ring the doorbell for the connection's next WQE (an RDMA WRITE of 250,000 B). */
static void post_wqe(struct ctl_rdma *rd, uint32_t ci, emu_ps_t now)
{
	struct rdma_conn *k = &rd->conns[ci];
	uint32_t mp = rd->app->max_pending;
	uint32_t host = rd->pairs[k->pair].initiator;

	if (nic_post_conn(rd->nics[host], k->pdc, APP_WQE_BYTES, CTL_RDMA_COOKIE | ci, now) < 0) {
		rd->post_fail++;
		return;
	}
	rd->doorbell[(size_t)ci * mp + k->sent % mp] = now;
	k->sent++;
	rd->tx_client++;
}

/* From the end of the client start window (or the setup's end): MaxPendingWQEs WQEs at once. */
static void ev_wqe_start(void *a, void *b, emu_ps_t now)
{
	struct ctl_rdma *rd = a;
	uint32_t ci = (uint32_t)((struct rdma_conn *)b - rd->conns);

	if (now >= rd->tl.stop || !rd->conns[ci].open)
		return;
	for (uint32_t i = 0; i < rd->app->max_pending; i++)
		post_wqe(rd, ci, now);
}

static void cm_send(struct ctl_rdma *rd, uint32_t from, uint32_t to, const struct wire_cm *cm, emu_ps_t now)
{
	if (nic_cm_send(rd->nics[from], rd->cfg->hosts[to].ip, cm, now) < 0) {
		rd->cm_send_fail++;
		return;
	}
	rd->cm_sent[cm->type]++;
}

static void ev_cm_retry(void *a, void *b, emu_ps_t now);

/* The Initiator sends connection @p k's request, and arms the timer that sends it again without a reply. */
static void send_req(struct ctl_rdma *rd, struct rdma_conn *k, emu_ps_t now)
{
	const struct app_pair *p = &rd->pairs[k->pair];
	struct wire_cm cm = { .type = WIRE_CM_REQ, .connection = (uint16_t)k->idx,
			      .local_id = (uint32_t)(k - rd->conns) + 1 };

	k->tries++;
	cm_send(rd, p->initiator, p->responder, &cm, now);
	if (now + RDMA_CM_TIMEOUT < rd->tl.stop && net_sched(rd->np, now + RDMA_CM_TIMEOUT, ev_cm_retry, rd, k,
							      NULL) < 0)
		rd->cm_send_fail++;
}

static void ev_cm_retry(void *a, void *b, emu_ps_t now)
{
	struct ctl_rdma *rd = a;
	struct rdma_conn *k = b;

	if (k->open)
		return;
	if (k->tries > RDMA_CM_RETRIES) {
		rd->cm_failed++;
		rd->post_fail += rd->app->max_pending;
		return;
	}
	rd->cm_retries++;
	send_req(rd, k, now);
}

/* The connection starts: its Initiator sends the connection request (StartType decides when). */
static void ev_conn_start(void *a, void *b, emu_ps_t now)
{
	struct ctl_rdma *rd = a;
	struct rdma_conn *k = b;

	if (now >= rd->tl.stop)
		return;
	send_req(rd, k, now);
}

/* The reply reached the Initiator: its NIC creates its end of the queue pair (a connection PDC), the Initiator
 * acknowledges, and the WQEs start at the end of the client start window, or now if that has passed. */
static void cm_reply(struct ctl_rdma *rd, struct rdma_conn *k, const struct wire_cm *in, emu_ps_t now)
{
	const struct app_pair *p = &rd->pairs[k->pair];

	if (!k->open) {
		if (nic_conn_open(rd->nics[p->initiator], rd->cfg->hosts[p->responder].ip, &k->pdc, now) < 0) {
			rd->post_fail += rd->app->max_pending;
			return;
		}
		k->open = true;
		k->setup_at = now;
		emu_ps_t at = app_wqe_start(&rd->tl, now);
		if (at == now)
			ev_wqe_start(rd, k, now);
		else if (net_sched(rd->np, at, ev_wqe_start, rd, k, NULL) < 0)
			rd->post_fail += rd->app->max_pending;
	}
	/* a reply to a repeated request is acknowledged again; the queue pair is made once */
	struct wire_cm rtu = { .type = WIRE_CM_RTU, .connection = (uint16_t)k->idx,
			       .local_id = (uint32_t)(k - rd->conns) + 1, .remote_id = in->local_id, .qpn = k->pdc };
	cm_send(rd, p->initiator, p->responder, &rtu, now);
}

/*
 * Does @p cm (already known to come from connection @p k's peer, to the right side) match an exchange outstanding on
 * @p k? A request: the connection is not yet established and no reply went out in the last half retry timeout (the
 * Initiator repeats every RDMA_CM_TIMEOUT, so its retries are all answered; a flood of copies draws one reply). A
 * reply: the Initiator sent a request, and the reply names both ends' ids. A ReadyToUse: the Responder sent a reply,
 * and it names both ends' ids. Nothing a peer sends changes setup state otherwise.
 */
static bool cm_expected(const struct rdma_conn *k, uint32_t ci, const struct wire_cm *cm, emu_ps_t now)
{
	switch (cm->type) {
	case WIRE_CM_REQ:
		return !k->established && (!k->rep_sent || now - k->rep_at >= RDMA_CM_TIMEOUT / 2);
	case WIRE_CM_REP:
		return k->tries > 0 && cm->local_id == (RDMA_CM_RESP_ID | (ci + 1));
	default:
		return k->rep_sent && cm->local_id == ci + 1;
	}
}

/*
 * A connection-management message reached host @p host from @p src_ip. Each names the connection by the id its
 * receiver gave it (the request: the Initiator's own); one that names no connection of this pair of hosts, or
 * comes to the wrong side, is counted as invalid and dropped.
 */
void ctl_rdma_cm(struct ctl_rdma *rd, uint32_t host, uint32_t src_ip, const struct wire_cm *cm, emu_ps_t now)
{
	/* the Initiator's id in a request and a reply, the Responder's (bit 31 set) in a ReadyToUse */
	uint32_t id = cm->type == WIRE_CM_REQ ? cm->local_id : cm->remote_id;
	uint32_t resp_bit = cm->type == WIRE_CM_RTU ? RDMA_CM_RESP_ID : 0;
	bool to_resp = cm->type != WIRE_CM_REP;

	if (rd == NULL || now >= rd->tl.stop)
		return;
	uint32_t ci = (id & ~RDMA_CM_RESP_ID) - 1; /* id 0 wraps past n_conns */

	if ((id & RDMA_CM_RESP_ID) != resp_bit || ci >= rd->n_conns) {
		rd->cm_invalid++;
		return;
	}
	struct rdma_conn *k = &rd->conns[ci];
	const struct app_pair *p = &rd->pairs[k->pair];
	uint32_t me = to_resp ? p->responder : p->initiator, peer = to_resp ? p->initiator : p->responder;

	if (host != me || src_ip != rd->cfg->hosts[peer].ip || cm->connection != k->idx) {
		rd->cm_invalid++;
		return;
	}
	if (!cm_expected(k, ci, cm, now)) {
		rd->cm_invalid++;
		return;
	}
	switch (cm->type) {
	case WIRE_CM_REQ: {
		/* The Responders listen from StartTime: a request before that goes unanswered (the retry comes). */
		if (now < rd->tl.responders_start) {
			rd->cm_not_listening++;
			return;
		}
		/* the Responder's end of the queue pair: its id for the connection, sent back in the reply */
		struct wire_cm rep = { .type = WIRE_CM_REP, .connection = (uint16_t)k->idx,
				       .local_id = RDMA_CM_RESP_ID | (ci + 1), .remote_id = cm->local_id };
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
static emu_ps_t beacon_next(const struct ctl_rdma *rd, emu_ps_t now)
{
	emu_ps_t ivl = rd->cfg->sim.beacon_interval, next = now + ivl;

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
	struct ctl_rdma *rd = a;
	FILE *f = rec_csv_file(rd->beacon);
	emu_ps_t next = beacon_next(rd, now);

	(void)b;
	rec_put_str(f, rd->cfg->sim.simulation_name);
	rec_put_ch(f, ',');
	ctl_rec_row_head(rd->beacon, now);
	rec_put_ch(f, ',');
	ctl_rec_put_sec(f, now - rd->beacon_last);
	rec_put_cu64(f, rd->tx_client);
	rec_put_cu64(f, rd->rx_client);
	rec_put_str(f, ",0,0,0,0,0,0\n");
	rd->beacon_last = now;
	if (next != EMU_PS_NEVER)
		(void)net_sched(rd->np, next, ev_beacon, rd, NULL, NULL); /* the event it ran in is free */
}

static void ev_beacon(void *a, void *b, emu_ps_t now)
{
	struct ctl_rdma *rd = a;

	(void)b;
	(void)now;
	rd->beacon_end = (struct emu_sched_end){ .fn = beacon_row, .a = rd };
	emu_sched_at_end(rd->np->sched, &rd->beacon_end);
}

int ctl_rdma_start(struct ctl_rdma *rd, struct nic *const *nics, struct net_part *np, const char *dir,
		   int64_t epoch_s, char *err, size_t errlen)
{
	struct emu_rng rng;

	if (rd == NULL)
		return 0;
	rd->nics = nics;
	rd->np = np;
	rd->perf = ctl_rec_csv_open(rd->cfg, dir, "rdma-perf", RDMA_PERF_HEADER, epoch_s, err, errlen);
	if (rd->perf == NULL)
		return -errno;
	rd->beacon = ctl_rec_csv_open(rd->cfg, dir, "beacon", BEACON_HEADER, epoch_s, err, errlen);
	if (rd->beacon == NULL)
		return -errno;
	emu_ps_t first = rd->cfg->sim.beacon_interval < rd->tl.stop ? rd->cfg->sim.beacon_interval : rd->tl.stop;
	if (net_sched(rd->np, first, ev_beacon, rd, NULL, NULL) < 0) {
		snprintf(err, errlen, "no event for the beacon record");
		return -ENOSPC;
	}
	/* StartType uniform draws on its own stream, so adding connections does not move the pairs. */
	emu_rng_init(&rng, rd->cfg->sim.random_seed, APP_RNG_STREAM_PLACE + 1);
	for (uint32_t i = 0; i < rd->n_conns; i++) {
		emu_ps_t at = app_conn_start(&rd->tl, (enum app_start)rd->app->start_type, i, rd->n_conns, &rng);
		if (net_sched(rd->np, at, ev_conn_start, rd, &rd->conns[i], NULL) < 0) {
			snprintf(err, errlen, "too many ScalaRdma connections for the event scheduler");
			return -ENOSPC;
		}
	}
	return 0;
}

static void perf_row(struct ctl_rdma *rd, const struct rdma_conn *k, emu_ps_t doorbell, emu_ps_t now)
{
	FILE *f = rec_csv_file(rd->perf);

	rec_put_str(f, rd->cfg->sim.simulation_name);
	rec_put_ch(f, ',');
	ctl_rec_row_head(rd->perf, now);
	rec_put_str(f, ",RDMA-WRITE,");
	ctl_rec_put_fixed(f, now - doorbell, 6);
	rec_put_cu64(f, APP_WQE_BYTES);
	rec_put_ch(f, ',');
	ctl_rec_put_sec(f, doorbell);
	rec_put_ch(f, ',');
	rec_put_str(f, k->name);
	rec_put_cu64(f, rd->pairs[k->pair].initiator);
	rec_put_str(f, ",RDMA_VERB_POST_WRITE");
	rec_put_cu64(f, k->done);
	rec_put_cu64(f, k->sent);
	rec_put_cu64(f, k->done);
	rec_put_ch(f, '\n');
}

void ctl_rdma_done(struct ctl_rdma *rd, uint64_t cookie, emu_ps_t now)
{
	uint32_t ci = (uint32_t)(cookie & ~CTL_RDMA_COOKIE);
	struct rdma_conn *k = &rd->conns[ci];
	uint32_t mp = rd->app->max_pending;

	/* A WQE completing at or after the stop time is outstanding when the run ends: not recorded. */
	if (now >= rd->tl.stop)
		return;
	emu_ps_t doorbell = rd->doorbell[(size_t)ci * mp + k->done % mp];
	k->done++;
	rd->rx_client++;
	perf_row(rd, k, doorbell, now);
	rd->sum[k->pair].completed++;
	if (app_in_record_window(&rd->tl, now)) {
		rd->sum[k->pair].window_bytes += APP_WQE_BYTES;
		if (rd->n_lat == rd->cap_lat) {
			uint64_t cap = rd->cap_lat ? 2 * rd->cap_lat : 1024;
			uint64_t *p = realloc(rd->lat, cap * sizeof(*p));
			if (p != NULL) {
				rd->lat = p;
				rd->cap_lat = cap;
			}
		}
		if (rd->n_lat < rd->cap_lat)
			rd->lat[rd->n_lat++] = now - doorbell;
	}
	post_wqe(rd, ci, now); /* closed loop: one new WQE per completion */
}

uint64_t ctl_rdma_wqes_done(const struct ctl_rdma *rd)
{
	return rd == NULL ? 0 : rd->rx_client;
}

int ctl_rdma_close(struct ctl_rdma *rd, char *err, size_t errlen)
{
	if (rd == NULL)
		return 0;
	int rc = rec_csv_close(rd->perf, err, errlen);
	int rc2 = rec_csv_close(rd->beacon, err, errlen);

	rd->perf = NULL;
	rd->beacon = NULL;
	rec_sort_u64(rd->lat, rd->n_lat); /* once, for the summary's percentiles */
	return rc < 0 ? rc : rc2;
}

/* Percentile @p p (100: the max) of the recording window's WQE latencies, in microseconds; sorted at close. */
static double lat_us(const struct ctl_rdma *rd, uint32_t p)
{
	return (double)rec_pct(rd->lat, rd->n_lat, p) / 1e6;
}

/* Pair @p i's goodput: bytes of its WQEs completed in the recording window over RunTime, in Gb/s. */
static double pair_gbps(const struct ctl_rdma *rd, uint32_t i)
{
	emu_ps_t rt = rd->cfg->timeline.run_time;

	/* bits / ps = Tb/s; x 1000 = Gb/s */
	return rt ? (double)rd->sum[i].window_bytes * 8.0 * 1000.0 / (double)rt : 0.0;
}

double ctl_rdma_host_gbps(const struct ctl_rdma *rd, uint32_t host)
{
	double g = 0.0;

	if (rd == NULL)
		return 0.0;
	for (uint32_t i = 0; i < rd->place.n_pairs; i++)
		if (rd->pairs[i].responder == host)
			g += pair_gbps(rd, i);
	return g;
}

/* The earliest and latest setup completion of pair @p i's connections, in ps (0, 0 if none was set up). */
static void pair_setup(const struct ctl_rdma *rd, uint32_t i, emu_ps_t *first, emu_ps_t *last)
{
	uint32_t nc = rd->app->num_connections;

	*first = *last = 0;
	for (uint32_t c = i * nc; c < (i + 1) * nc; c++) {
		emu_ps_t t = rd->conns[c].setup_at;
		if (!rd->conns[c].open)
			continue;
		if (*first == 0 || t < *first)
			*first = t;
		if (t > *last)
			*last = t;
	}
}

/* Connections set up (the Initiator has the reply), and the Responders that have the ReadyToUse. */
static void setup_counts(const struct ctl_rdma *rd, uint32_t *up, uint32_t *est)
{
	*up = *est = 0;
	for (uint32_t c = 0; c < rd->n_conns; c++) {
		*up += rd->conns[c].open;
		*est += rd->conns[c].established;
	}
}

void ctl_rdma_json(struct ctl_rdma *rd, FILE *f)
{
	if (rd == NULL)
		return;
	const struct ctl_config *cfg = rd->cfg;
	uint32_t up, est;

	setup_counts(rd, &up, &est);
	fprintf(f, "  \"rdma\": {\"initiators\": %u, \"responders\": %u, \"post_failed\": %llu,\n",
		rd->place.n_initiators, rd->place.n_responders, (unsigned long long)rd->post_fail);
	fprintf(f, "    \"setup\": {\"connections\": %u, \"set_up\": %u, \"established\": %u, \"requests\": %llu, "
		   "\"replies\": %llu, \"ready_to_use\": %llu, \"retries\": %llu, \"failed\": %llu, "
		   "\"not_listening\": %llu, \"invalid\": %llu, \"send_failed\": %llu},\n    \"pairs\": [",
		rd->n_conns, up, est, (unsigned long long)rd->cm_sent[WIRE_CM_REQ],
		(unsigned long long)rd->cm_sent[WIRE_CM_REP], (unsigned long long)rd->cm_sent[WIRE_CM_RTU],
		(unsigned long long)rd->cm_retries, (unsigned long long)rd->cm_failed,
		(unsigned long long)rd->cm_not_listening, (unsigned long long)rd->cm_invalid,
		(unsigned long long)rd->cm_send_fail);
	for (uint32_t i = 0; i < rd->place.n_pairs; i++) {
		emu_ps_t s0, s1;

		pair_setup(rd, i, &s0, &s1);
		fprintf(f, "%s\n    {\"initiator\": \"%s\", \"responder\": \"%s\", \"connections\": %u, "
			   "\"setup_first_s\": ", i ? "," : "", cfg->hosts[rd->pairs[i].initiator].name,
			cfg->hosts[rd->pairs[i].responder].name, rd->app->num_connections);
		ctl_rec_put_sec(f, s0);
		fputs(", \"setup_last_s\": ", f);
		ctl_rec_put_sec(f, s1);
		fprintf(f, ", \"wqes_completed\": %llu, \"goodput_gbps\": %.3f}",
			(unsigned long long)rd->sum[i].completed, pair_gbps(rd, i));
	}
	/* the recording window the WQE latency and the goodput cover (both ends included), for plots and scripts */
	fprintf(f, "%s],\n    \"record_window_ps\": [%llu, %llu],\n", rd->place.n_pairs ? "\n  " : "",
		(unsigned long long)rd->tl.record_start, (unsigned long long)rd->tl.record_end);
	fprintf(f, "    \"wqe_latency_us\": {\"p50\": %.3f, \"p99\": %.3f, \"max\": %.3f}},\n", lat_us(rd, 50),
		lat_us(rd, 99), lat_us(rd, 100));
}

void ctl_rdma_print(struct ctl_rdma *rd, FILE *f)
{
	if (rd == NULL)
		return;
	const struct ctl_config *cfg = rd->cfg;

	fprintf(f, "RDMA: %u initiators, %u responders, %u pairs x %u connections, %u WQEs outstanding each\n",
		rd->place.n_initiators, rd->place.n_responders, rd->place.n_pairs, rd->app->num_connections,
		rd->app->max_pending);
	uint32_t up, est;

	setup_counts(rd, &up, &est);
	fprintf(f, "connection setup: %u of %u set up (%llu requests, %llu replies, %llu ready-to-use; %llu retries)\n",
		up, rd->n_conns, (unsigned long long)rd->cm_sent[WIRE_CM_REQ],
		(unsigned long long)rd->cm_sent[WIRE_CM_REP], (unsigned long long)rd->cm_sent[WIRE_CM_RTU],
		(unsigned long long)rd->cm_retries);
	fprintf(f, "%-12s %-12s %14s %12s\n", "initiator", "responder", "wqes_done", "goodput_Gbps");
	for (uint32_t i = 0; i < rd->place.n_pairs; i++)
		fprintf(f, "%-12s %-12s %14llu %12.3f\n", cfg->hosts[rd->pairs[i].initiator].name,
			cfg->hosts[rd->pairs[i].responder].name, (unsigned long long)rd->sum[i].completed,
			pair_gbps(rd, i));
	fprintf(f, "WQE latency (RunTime window): p50 %.3f us, p99 %.3f us, max %.3f us over %llu WQEs\n",
		lat_us(rd, 50), lat_us(rd, 99), lat_us(rd, 100), (unsigned long long)rd->n_lat);
}
