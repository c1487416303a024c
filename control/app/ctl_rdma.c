/* The Scala RDMA application in a run (spec seeds/003): emul/app's app_rdma filled from the config and bound to the
 * run's NICs; its rdma-perf and beacon rows, and its part of the summary. */
#include "ctl_rdma.h"
#include "ctl_rec.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "app_rdma.h"
#include "app_wqe.h"

/* A row of rdma-perf: a WQE completed (its time is the row's). */
struct perf_row {
	const char *job_id, *app_name;
	uint64_t lat;                 /* ps from its doorbell to its completion */
	uint64_t bytes, start, node_id, wqe_id, sent, done;
};

/* rdma-perf (seed 003, Perf records): a row per WQE completed. */
static const struct ctl_rec_col perf_cols[] = {
	CTL_REC_COL_STR("job_id", struct perf_row, job_id),
	CTL_REC_COL_TIME_UTC,
	CTL_REC_COL_SIM_SEC,
	CTL_REC_COL_CONST("metric_name", "RDMA-WRITE"),
	CTL_REC_COL_FIXED("perf_metric_usec", 6, struct perf_row, lat),
	CTL_REC_COL_U64("transfer_size", struct perf_row, bytes),
	CTL_REC_COL_FIXED("start_time_sec", 12, struct perf_row, start),
	CTL_REC_COL_STR("application_name", struct perf_row, app_name),
	CTL_REC_COL_NODE_ID(struct perf_row),
	CTL_REC_COL_CONST("rdma_verb", "RDMA_VERB_POST_WRITE"),
	CTL_REC_COL_U64("wqe_id", struct perf_row, wqe_id),
	CTL_REC_COL_U64("num_wqe_sent", struct perf_row, sent),
	CTL_REC_COL_U64("num_wqe_complete", struct perf_row, done),
};
const struct ctl_rec_schema ctl_rec_rdma_perf_schema = CTL_REC_SCHEMA("rdma-perf", perf_cols);

/* A beacon row: WQEs posted (tx_client) and completed (rx_client) since the start, over @c since ps. */
struct beacon_row {
	const char *job_id;
	uint64_t since, tx_client, rx_client;
};

/* simulation-output-files.md, Beacon: the application adds to tx_client and rx_client; the rest stay 0. */
static const struct ctl_rec_col beacon_cols[] = {
	CTL_REC_COL_STR("job_id", struct beacon_row, job_id),
	CTL_REC_COL_TIME_UTC,
	CTL_REC_COL_SIM_SEC,
	CTL_REC_COL_FIXED("interval_duration_sec", 12, struct beacon_row, since),
	CTL_REC_COL_U64("tx_client", struct beacon_row, tx_client),
	CTL_REC_COL_U64("rx_client", struct beacon_row, rx_client),
	CTL_REC_COL_CONST("tx_server", "0"),
	CTL_REC_COL_CONST("rx_server", "0"),
	CTL_REC_COL_CONST("rx_bytes_reader", "0"),
	CTL_REC_COL_CONST("rx_bytes_writer", "0"),
	CTL_REC_COL_CONST("goodput_reader_MB_per_sec", "0"),
	CTL_REC_COL_CONST("goodput_writer_MB_per_sec", "0"),
};
const struct ctl_rec_schema ctl_rec_beacon_schema = CTL_REC_SCHEMA("beacon", beacon_cols);

struct ctl_rdma {
	const struct ctl_config *cfg;
	const struct ctl_app *app;
	struct app_rdma *model;      /* the application (emul/app) */
	uint32_t *host_ip;           /* [n_hosts], its params' addresses */
	char (*names)[CTL_NAME_MAX * 2 + 32]; /* per connection: application_name, the Initiator instance */
	struct rec_csv *perf;
	struct rec_csv *beacon;
};

void ctl_rdma_destroy(struct ctl_rdma *rd)
{
	if (rd == NULL)
		return;
	rec_csv_close(rd->perf, NULL, 0);
	rec_csv_close(rd->beacon, NULL, 0);
	app_rdma_destroy(rd->model);
	free(rd->host_ip);
	free(rd->names);
	free(rd);
}

/* Give each connection its Initiator instance's name (connection c: number c % NumConnections of pair
 * c / NumConnections). Returns 0 or -ENOMEM. */
static int name_conns(struct ctl_rdma *rd)
{
	const struct ctl_config *cfg = rd->cfg;
	const struct app_place_out *pl = app_rdma_place(rd->model);
	uint32_t nc = rd->app->num_connections, n = app_rdma_conns(rd->model);

	rd->names = calloc(n ? n : 1, sizeof(*rd->names));
	if (rd->names == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		const struct app_pair *p = &pl->pairs[i / nc];

		snprintf(rd->names[i], sizeof(rd->names[i]), "ScalaRdmaInitiator-%s-%s-%u",
			 cfg->hosts[p->initiator].name, cfg->hosts[p->responder].name, i % nc);
	}
	return 0;
}

int ctl_rdma_create(const struct ctl_config *cfg, struct ctl_rdma **out, char *err, size_t errlen)
{
	struct ctl_rdma *rd;
	char why[200];

	*out = NULL;
	if (cfg->rdma_app < 0 || (uint32_t)cfg->rdma_app >= cfg->n_apps)
		return 0;
	if ((rd = calloc(1, sizeof(*rd))) == NULL)
		return -ENOMEM;
	rd->cfg = cfg;
	rd->app = &cfg->apps[cfg->rdma_app];
	rd->host_ip = calloc(cfg->n_hosts ? cfg->n_hosts : 1, sizeof(*rd->host_ip));
	if (rd->host_ip == NULL)
		goto nomem;
	for (uint32_t h = 0; h < cfg->n_hosts; h++)
		rd->host_ip[h] = cfg->hosts[h].ip;
	struct app_rdma_params p = {
		.n_hosts = cfg->n_hosts, .host_ip = rd->host_ip, .pr_initiator = rd->app->pr_initiator,
		.pr_responder = rd->app->pr_responder, .num_connections = rd->app->num_connections,
		.max_pending = rd->app->max_pending, .start_type = rd->app->start_type, .timeline = cfg->timeline,
		.beacon_interval = cfg->sim.beacon_interval, .random_seed = cfg->sim.random_seed,
	};
	why[0] = '\0';
	rd->model = app_rdma_create(&p, why, sizeof(why));
	if (rd->model == NULL && errno == EINVAL) {
		snprintf(err, errlen, "%s: applications.%d: %s", cfg->path, cfg->rdma_app, why);
		ctl_rdma_destroy(rd);
		return -EINVAL;
	}
	if (rd->model == NULL || name_conns(rd) < 0)
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
	return rd == NULL ? 0 : app_rdma_events(rd->model);
}

void ctl_rdma_host_budget(const struct ctl_rdma *rd, uint32_t host, uint64_t *pdcs, uint64_t *wqes)
{
	*pdcs = *wqes = 0;
	if (rd != NULL)
		app_rdma_host_budget(rd->model, host, pdcs, wqes);
}

uint64_t ctl_rdma_doorbell_bytes(const struct ctl_rdma *rd)
{
	return rd == NULL ? 0 : app_doorbell_bytes(rd->app->doorbell_payload);
}

bool ctl_rdma_stop(const struct ctl_rdma *rd, emu_ps_t *stop)
{
	if (rd == NULL)
		return false;
	*stop = app_rdma_timeline(rd->model)->stop;
	return true;
}

/* A beacon row (seed 003, Beacon): WQEs posted and completed since the start, over the time since the last row. */
static void beacon_row(void *ctx, emu_ps_t since, uint64_t tx_client, uint64_t rx_client, emu_ps_t now)
{
	struct ctl_rdma *rd = ctx;
	struct beacon_row r = { .job_id = rd->cfg->sim.simulation_name, .since = since, .tx_client = tx_client,
				.rx_client = rx_client };

	ctl_rec_row(rd->beacon, &ctl_rec_beacon_schema, &r, now);
}

/* A WQE completed: its rdma-perf row. */
static void perf_row(void *ctx, const struct app_rdma_wqe *w, emu_ps_t now)
{
	struct ctl_rdma *rd = ctx;
	struct perf_row r = { .job_id = rd->cfg->sim.simulation_name, .app_name = rd->names[w->conn],
			      .lat = now - w->doorbell, .bytes = APP_WQE_BYTES, .start = w->doorbell,
			      .node_id = w->initiator, .wqe_id = w->done, .sent = w->sent, .done = w->done };

	ctl_rec_row(rd->perf, &ctl_rec_rdma_perf_schema, &r, now);
}

int ctl_rdma_start(struct ctl_rdma *rd, const struct port_nic *hosts, struct net_part *np, const char *dir,
		   int64_t epoch_s, char *err, size_t errlen)
{
	struct app_rdma_cb cb = { .wqe_done = perf_row, .beacon = beacon_row, .ctx = rd };

	if (rd == NULL)
		return 0;
	rd->perf = ctl_rec_schema_open(rd->cfg, dir, &ctl_rec_rdma_perf_schema, epoch_s, err, errlen);
	if (rd->perf == NULL)
		return -errno;
	rd->beacon = ctl_rec_schema_open(rd->cfg, dir, &ctl_rec_beacon_schema, epoch_s, err, errlen);
	if (rd->beacon == NULL)
		return -errno;
	return app_rdma_start(rd->model, hosts, np, &cb, err, errlen);
}

void ctl_rdma_done(struct ctl_rdma *rd, uint64_t cookie, emu_ps_t now)
{
	if (rd != NULL)
		app_rdma_done(rd->model, cookie, now);
}

void ctl_rdma_cm(struct ctl_rdma *rd, uint32_t host, uint32_t src_ip, const struct wire_cm *cm, emu_ps_t now)
{
	if (rd != NULL)
		app_rdma_cm(rd->model, host, src_ip, cm, now);
}

uint32_t ctl_rdma_conns(const struct ctl_rdma *rd)
{
	return rd == NULL ? 0 : app_rdma_conns(rd->model);
}

bool ctl_rdma_conn(const struct ctl_rdma *rd, uint32_t c, struct app_rdma_conn_view *out)
{
	return rd != NULL && app_rdma_conn_view(rd->model, c, out);
}

uint32_t ctl_rdma_pairs(const struct ctl_rdma *rd)
{
	return rd == NULL ? 0 : app_rdma_place(rd->model)->n_pairs;
}

bool ctl_rdma_pair_idle(const struct ctl_rdma *rd, uint32_t i, uint32_t *initiator, uint32_t *responder)
{
	const struct app_place_out *pl = rd != NULL ? app_rdma_place(rd->model) : NULL;
	struct app_rdma_pair_stats st;

	if (pl == NULL || i >= pl->n_pairs)
		return false;
	app_rdma_pair_stats(rd->model, i, &st);
	*initiator = pl->pairs[i].initiator;
	*responder = pl->pairs[i].responder;
	return st.completed == 0;
}

uint64_t ctl_rdma_wqes_done(const struct ctl_rdma *rd)
{
	return rd == NULL ? 0 : app_rdma_wqes_done(rd->model);
}

int ctl_rdma_close(struct ctl_rdma *rd, char *err, size_t errlen)
{
	if (rd == NULL)
		return 0;
	int rc = rec_csv_close(rd->perf, err, errlen);
	int rc2 = rec_csv_close(rd->beacon, err, errlen);

	rd->perf = NULL;
	rd->beacon = NULL;
	app_rdma_finish(rd->model); /* once, for the summary's percentiles */
	return rc < 0 ? rc : rc2;
}

/* Percentile @p p (100: the max) of the recording window's WQE latencies, in microseconds; sorted at close. */
static double lat_us(const struct ctl_rdma *rd, uint32_t p)
{
	return (double)app_rdma_latency(rd->model, p, NULL) / 1e6;
}

/* Pair @p i's goodput: bytes of its WQEs completed in the recording window over RunTime, in Gb/s. */
static double pair_gbps(const struct ctl_rdma *rd, uint32_t i)
{
	emu_ps_t rt = rd->cfg->timeline.run_time;
	struct app_rdma_pair_stats st;

	app_rdma_pair_stats(rd->model, i, &st);
	/* bits / ps = Tb/s; x 1000 = Gb/s */
	return rt ? (double)st.window_bytes * 8.0 * 1000.0 / (double)rt : 0.0;
}

double ctl_rdma_host_gbps(const struct ctl_rdma *rd, uint32_t host)
{
	double g = 0.0;

	if (rd == NULL)
		return 0.0;
	const struct app_place_out *pl = app_rdma_place(rd->model);

	for (uint32_t i = 0; i < pl->n_pairs; i++)
		if (pl->pairs[i].responder == host)
			g += pair_gbps(rd, i);
	return g;
}

static unsigned long long cnt(const struct ctl_rdma *rd, enum app_rdma_counter c)
{
	return (unsigned long long)app_rdma_counter(rd->model, c);
}

void ctl_rdma_json(struct ctl_rdma *rd, FILE *f)
{
	if (rd == NULL)
		return;
	const struct ctl_config *cfg = rd->cfg;
	const struct app_place_out *pl = app_rdma_place(rd->model);
	const struct app_timeline *tl = app_rdma_timeline(rd->model);
	uint32_t up, est;

	app_rdma_setup_counts(rd->model, &up, &est);
	fprintf(f, "  \"rdma\": {\"initiators\": %u, \"responders\": %u, \"post_failed\": %llu,\n",
		pl->n_initiators, pl->n_responders, cnt(rd, APP_RDMA_C_POST_FAILED));
	fprintf(f, "    \"setup\": {\"connections\": %u, \"set_up\": %u, \"established\": %u, \"requests\": %llu, "
		   "\"replies\": %llu, \"ready_to_use\": %llu, \"retries\": %llu, \"failed\": %llu, "
		   "\"not_listening\": %llu, \"invalid\": %llu, \"send_failed\": %llu},\n    \"pairs\": [",
		app_rdma_conns(rd->model), up, est, cnt(rd, APP_RDMA_C_REQUESTS), cnt(rd, APP_RDMA_C_REPLIES),
		cnt(rd, APP_RDMA_C_READY_TO_USE), cnt(rd, APP_RDMA_C_RETRIES), cnt(rd, APP_RDMA_C_FAILED),
		cnt(rd, APP_RDMA_C_NOT_LISTENING), cnt(rd, APP_RDMA_C_INVALID), cnt(rd, APP_RDMA_C_SEND_FAILED));
	for (uint32_t i = 0; i < pl->n_pairs; i++) {
		struct app_rdma_pair_stats st;

		app_rdma_pair_stats(rd->model, i, &st);
		fprintf(f, "%s\n    {\"initiator\": \"%s\", \"responder\": \"%s\", \"connections\": %u, "
			   "\"setup_first_s\": ", i ? "," : "", cfg->hosts[pl->pairs[i].initiator].name,
			cfg->hosts[pl->pairs[i].responder].name, rd->app->num_connections);
		ctl_rec_put_sec(f, st.setup_first);
		fputs(", \"setup_last_s\": ", f);
		ctl_rec_put_sec(f, st.setup_last);
		fprintf(f, ", \"wqes_completed\": %llu, \"goodput_gbps\": %.3f}", (unsigned long long)st.completed,
			pair_gbps(rd, i));
	}
	/* the recording window the WQE latency and the goodput cover (both ends included), for plots and scripts */
	fprintf(f, "%s],\n    \"record_window_ps\": [%llu, %llu],\n", pl->n_pairs ? "\n  " : "",
		(unsigned long long)tl->record_start, (unsigned long long)tl->record_end);
	fprintf(f, "    \"wqe_latency_us\": {\"p50\": %.3f, \"p99\": %.3f, \"max\": %.3f}},\n", lat_us(rd, 50),
		lat_us(rd, 99), lat_us(rd, 100));
}

void ctl_rdma_print(struct ctl_rdma *rd, FILE *f)
{
	if (rd == NULL)
		return;
	const struct ctl_config *cfg = rd->cfg;
	const struct app_place_out *pl = app_rdma_place(rd->model);
	uint64_t n_lat;

	fprintf(f, "RDMA: %u initiators, %u responders, %u pairs x %u connections, %u WQEs outstanding each\n",
		pl->n_initiators, pl->n_responders, pl->n_pairs, rd->app->num_connections, rd->app->max_pending);
	uint32_t up, est;

	app_rdma_setup_counts(rd->model, &up, &est);
	fprintf(f, "connection setup: %u of %u set up (%llu requests, %llu replies, %llu ready-to-use; %llu retries)\n",
		up, app_rdma_conns(rd->model), cnt(rd, APP_RDMA_C_REQUESTS), cnt(rd, APP_RDMA_C_REPLIES),
		cnt(rd, APP_RDMA_C_READY_TO_USE), cnt(rd, APP_RDMA_C_RETRIES));
	fprintf(f, "%-12s %-12s %14s %12s\n", "initiator", "responder", "wqes_done", "goodput_Gbps");
	for (uint32_t i = 0; i < pl->n_pairs; i++) {
		struct app_rdma_pair_stats st;

		app_rdma_pair_stats(rd->model, i, &st);
		fprintf(f, "%-12s %-12s %14llu %12.3f\n", cfg->hosts[pl->pairs[i].initiator].name,
			cfg->hosts[pl->pairs[i].responder].name, (unsigned long long)st.completed, pair_gbps(rd, i));
	}
	(void)app_rdma_latency(rd->model, 50, &n_lat);
	if (n_lat == 0) /* a percentile of nothing is no figure (summary.json keeps 0.000) */
		fprintf(f, "WQE latency (RunTime window): p50 n/a, p99 n/a, max n/a over 0 WQEs\n");
	else
		fprintf(f, "WQE latency (RunTime window): p50 %.3f us, p99 %.3f us, max %.3f us over %llu WQEs\n",
			lat_us(rd, 50), lat_us(rd, 99), lat_us(rd, 100), (unsigned long long)n_lat);
}
