/* The Scala RDMA application in a run (spec seeds/003): placement, connections, the WQE closed loop, rdma-perf. */
#include "ctl_run_pvt.h"
#include "ctl_records_pvt.h"

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

/* One connection: its own Initiator instance and queue pair, a long-lived PDC on the Initiator's NIC. */
struct rdma_conn {
	uint32_t pair;     /* index into pairs */
	uint32_t idx;      /* connection number within the pair, from 0 */
	uint16_t pdc;      /* the Initiator NIC's connection PDC */
	bool open;
	uint64_t sent;     /* WQEs posted (num_wqe_sent) */
	uint64_t done;     /* WQEs completed (num_wqe_complete) */
	char name[CTL_NAME_MAX * 2 + 32]; /* application_name: the Initiator instance */
};

struct rdma_pair_sum {
	uint64_t completed;    /* WQEs completed before the stop (rdma-perf rows) */
	uint64_t window_bytes; /* bytes of the WQEs completed inside the recording window */
};

struct ctl_rdma {
	struct ctl_run_state *r;
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
	uint64_t tx_client;          /* WQEs posted since the start of the run (beacon) */
	uint64_t rx_client;          /* WQEs completed before the stop (beacon) */
	uint64_t *lat;               /* latencies (ps) of the WQEs completed in the recording window */
	uint64_t n_lat, cap_lat;
	uint64_t post_fail;
};

void ctl_rdma_destroy(struct ctl_rdma *rd)
{
	if (rd == NULL)
		return;
	rec_csv_close(rd->perf);
	rec_csv_close(rd->beacon);
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
	const struct ctl_config *cfg = rd->r->cfg;
	uint32_t nc = rd->app->num_connections, mp = rd->app->max_pending;

	rd->n_conns = rd->place.n_pairs * nc;
	rd->sum = calloc(rd->place.n_pairs ? rd->place.n_pairs : 1, sizeof(*rd->sum));
	rd->conns = calloc(rd->n_conns ? rd->n_conns : 1, sizeof(*rd->conns));
	size_t n_db = (size_t)rd->n_conns * mp;

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

int ctl_rdma_create(struct ctl_run_state *r, char *err, size_t errlen)
{
	const struct ctl_config *cfg = r->cfg;
	struct ctl_rdma *rd;
	struct emu_rng rng;
	char why[200];

	r->rdma = NULL;
	if (cfg->rdma_app < 0 || (uint32_t)cfg->rdma_app >= cfg->n_apps)
		return 0;
	if ((rd = calloc(1, sizeof(*rd))) == NULL)
		return -ENOMEM;
	rd->r = r;
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
	r->rdma = rd;
	return 0;
nomem:
	ctl_rdma_destroy(rd);
	snprintf(err, errlen, "out of memory for the ScalaRdma application");
	return -ENOMEM;
}

uint64_t ctl_rdma_events(const struct ctl_rdma *rd)
{
	/* connection start, then the first WQEs; the beacon chain holds one event at a time */
	return rd == NULL ? 0 : 2ull * rd->n_conns + 2;
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

	if (nic_post_conn(rd->r->nics[host], k->pdc, APP_WQE_BYTES, CTL_RDMA_COOKIE | ci, now) < 0) {
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

/*
 * The connection starts: its request goes out now. The setup frames (request, response, acknowledgment) are not
 * modelled: the setup completes at once and the Initiator NIC's queue pair is a connection PDC opened now.
 */
static void ev_conn_start(void *a, void *b, emu_ps_t now)
{
	struct ctl_rdma *rd = a;
	struct rdma_conn *k = b;
	const struct app_pair *p = &rd->pairs[k->pair];
	emu_ps_t at;

	if (now >= rd->tl.stop)
		return;
	if (nic_conn_open(rd->r->nics[p->initiator], rd->r->cfg->hosts[p->responder].ip, &k->pdc, now) < 0) {
		rd->post_fail += rd->app->max_pending;
		return;
	}
	k->open = true;
	at = app_wqe_start(&rd->tl, now);
	if (at == now)
		ev_wqe_start(rd, k, now);
	else if (net_sched(&rd->r->np, at, ev_wqe_start, rd, k, NULL) < 0)
		rd->post_fail += rd->app->max_pending;
}

/* A beacon row at k x BeaconReportInterval, then the next while it is not past the stop time. */
static void ev_beacon(void *a, void *b, emu_ps_t now)
{
	struct ctl_rdma *rd = a;
	FILE *f = rec_csv_file(rd->beacon);
	emu_ps_t ivl = rd->r->cfg->sim.beacon_interval;

	(void)b;
	fprintf(f, "%s,", rd->r->cfg->sim.simulation_name);
	rec_csv_time_utc(rd->beacon, now);
	fputc(',', f);
	ctl_rec_put_sec(f, now);
	fputc(',', f);
	ctl_rec_put_sec(f, ivl);
	fprintf(f, ",%llu,%llu,0,0,0,0,0,0\n", (unsigned long long)rd->tx_client, (unsigned long long)rd->rx_client);
	rec_csv_row_done(rd->beacon);
	if (now + ivl > now && now + ivl <= rd->tl.stop)
		(void)net_sched(&rd->r->np, now + ivl, ev_beacon, rd, NULL, NULL); /* the event it ran in is free */
}

int ctl_rdma_start(struct ctl_rdma *rd, const char *dir, int64_t epoch_s, char *err, size_t errlen)
{
	struct emu_rng rng;

	if (rd == NULL)
		return 0;
	rd->perf = ctl_rec_csv_open(rd->r->cfg, dir, "rdma-perf", RDMA_PERF_HEADER, epoch_s, err, errlen);
	if (rd->perf == NULL)
		return -errno;
	rd->beacon = ctl_rec_csv_open(rd->r->cfg, dir, "beacon", BEACON_HEADER, epoch_s, err, errlen);
	if (rd->beacon == NULL)
		return -errno;
	emu_ps_t first = rd->r->cfg->sim.beacon_interval;
	if (first <= rd->tl.stop && net_sched(&rd->r->np, first, ev_beacon, rd, NULL, NULL) < 0) {
		snprintf(err, errlen, "no event for the beacon record");
		return -ENOSPC;
	}
	/* StartType uniform draws on its own stream, so adding connections does not move the pairs. */
	emu_rng_init(&rng, rd->r->cfg->sim.random_seed, APP_RNG_STREAM_PLACE + 1);
	for (uint32_t i = 0; i < rd->n_conns; i++) {
		emu_ps_t at = app_conn_start(&rd->tl, (enum app_start)rd->app->start_type, i, rd->n_conns, &rng);
		if (net_sched(&rd->r->np, at, ev_conn_start, rd, &rd->conns[i], NULL) < 0) {
			snprintf(err, errlen, "too many ScalaRdma connections for the event scheduler");
			return -ENOSPC;
		}
	}
	return 0;
}

static void perf_row(struct ctl_rdma *rd, const struct rdma_conn *k, emu_ps_t doorbell, emu_ps_t now)
{
	FILE *f = rec_csv_file(rd->perf);

	fprintf(f, "%s,", rd->r->cfg->sim.simulation_name);
	rec_csv_time_utc(rd->perf, now);
	fputc(',', f);
	ctl_rec_put_sec(f, now);
	fputs(",RDMA-WRITE,", f);
	ctl_rec_put_fixed(f, now - doorbell, 6);
	fprintf(f, ",%u,", APP_WQE_BYTES);
	ctl_rec_put_sec(f, doorbell);
	fprintf(f, ",%s,%u,RDMA_VERB_POST_WRITE,%llu,%llu,%llu\n", k->name, rd->pairs[k->pair].initiator,
		(unsigned long long)k->done, (unsigned long long)k->sent, (unsigned long long)k->done);
	rec_csv_row_done(rd->perf);
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

int ctl_rdma_close(struct ctl_rdma *rd)
{
	if (rd == NULL)
		return 0;
	int rc = rec_csv_close(rd->perf);
	int rc2 = rec_csv_close(rd->beacon);

	rd->perf = NULL;
	rd->beacon = NULL;
	ctl_sort_u64(rd->lat, rd->n_lat); /* once, for the summary's percentiles */
	return rc < 0 ? rc : rc2;
}

/* Percentile @p p (100: the max) of the recording window's WQE latencies, in microseconds; sorted at close. */
static double lat_us(const struct ctl_rdma *rd, uint32_t p)
{
	return (double)ctl_pct(rd->lat, rd->n_lat, p) / 1e6;
}

/* Pair @p i's goodput: bytes of its WQEs completed in the recording window over RunTime, in Gb/s. */
static double pair_gbps(const struct ctl_rdma *rd, uint32_t i)
{
	emu_ps_t rt = rd->r->cfg->timeline.run_time;

	/* bits / ps = Tb/s; x 1000 = Gb/s */
	return rt ? (double)rd->sum[i].window_bytes * 8.0 * 1000.0 / (double)rt : 0.0;
}

void ctl_rdma_json(struct ctl_rdma *rd, FILE *f)
{
	if (rd == NULL)
		return;
	const struct ctl_config *cfg = rd->r->cfg;

	fprintf(f, "  \"rdma\": {\"initiators\": %u, \"responders\": %u, \"post_failed\": %llu, \"pairs\": [",
		rd->place.n_initiators, rd->place.n_responders, (unsigned long long)rd->post_fail);
	for (uint32_t i = 0; i < rd->place.n_pairs; i++)
		fprintf(f, "%s\n    {\"initiator\": \"%s\", \"responder\": \"%s\", \"connections\": %u, "
			   "\"wqes_completed\": %llu, \"goodput_gbps\": %.3f}",
			i ? "," : "", cfg->hosts[rd->pairs[i].initiator].name, cfg->hosts[rd->pairs[i].responder].name,
			rd->app->num_connections, (unsigned long long)rd->sum[i].completed, pair_gbps(rd, i));
	fprintf(f, "%s],\n    \"wqe_latency_us\": {\"p50\": %.3f, \"p99\": %.3f, \"max\": %.3f}},\n",
		rd->place.n_pairs ? "\n  " : "", lat_us(rd, 50), lat_us(rd, 99), lat_us(rd, 100));
}

void ctl_rdma_print(struct ctl_rdma *rd, FILE *f)
{
	if (rd == NULL)
		return;
	const struct ctl_config *cfg = rd->r->cfg;

	fprintf(f, "RDMA: %u initiators, %u responders, %u pairs x %u connections, %u WQEs outstanding each\n",
		rd->place.n_initiators, rd->place.n_responders, rd->place.n_pairs, rd->app->num_connections,
		rd->app->max_pending);
	fprintf(f, "%-12s %-12s %14s %12s\n", "initiator", "responder", "wqes_done", "goodput_Gbps");
	for (uint32_t i = 0; i < rd->place.n_pairs; i++)
		fprintf(f, "%-12s %-12s %14llu %12.3f\n", cfg->hosts[rd->pairs[i].initiator].name,
			cfg->hosts[rd->pairs[i].responder].name, (unsigned long long)rd->sum[i].completed,
			pair_gbps(rd, i));
	fprintf(f, "WQE latency (RunTime window): p50 %.3f us, p99 %.3f us, max %.3f us over %llu WQEs\n",
		lat_us(rd, 50), lat_us(rd, 99), lat_us(rd, 100), (unsigned long long)rd->n_lat);
}
