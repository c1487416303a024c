/* The Chakra workload's records (the records page): chakra-capable-hosts, chakra-mapping, chakra-apps at the start;
 * chakra-perf per acknowledged transfer; chakra-completion-stats per rank; chakra-cdf every BeaconReportInterval;
 * chakra-comm-collective-stats and chakra-comm-collective-percentiles-stats at the end; the annotated traces; and
 * the summary's Chakra part. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ctl_chakra_pvt.h"
#include "ctl_rec.h"

/* chakra-capable-hosts: a row per host that runs a rank (an external host does not). */
struct host_row {
	uint64_t host;
};

static const struct ctl_rec_col hosts_cols[] = {
	CTL_REC_COL_U64("Host", struct host_row, host),
	CTL_REC_COL_CONST("ChakraCapable", "true"),
};
const struct ctl_rec_schema ctl_rec_ck_hosts_schema = CTL_REC_SCHEMA("chakra-capable-hosts", hosts_cols);

/* chakra-mapping: a row per rank. Node ids: a host's NIC is its FEP id, the server the same host index (one node
 * per host here). */
struct map_row {
	uint64_t rank, host;
	const char *name;
	uint64_t ip;
	bool in_group;                /* the rank is in a scale-up group: its two ScaleUp columns are filled */
	int64_t group_id;
	uint64_t sub;
};

/* ScaleUpGroupId (@p arg 0), ScaleUpSubgroupId (1): empty for a rank outside every group. */
static void map_su(const void *row, uint32_t arg, struct ctl_rec_val *v)
{
	const struct map_row *r = row;

	if (!r->in_group)
		v->fmt = CTL_REC_F_EMPTY;
	else if (arg == 0)
		v->i = r->group_id;
	else
		v->u = r->sub;
}

static const struct ctl_rec_col map_cols[] = {
	CTL_REC_COL_U64("ChakraId", struct map_row, rank),
	CTL_REC_COL_STR("Hostname", struct map_row, name),
	CTL_REC_COL_U64("NicNodeID", struct map_row, host),
	CTL_REC_COL_U64("ServerNodeID", struct map_row, host),
	CTL_REC_COL_U64("ServerID", struct map_row, host),
	CTL_REC_COL_CONST("Core", "0"),
	CTL_REC_COL("IPAddress", IP, 0, ctl_rec_get_u64, CTL_REC_OFF_U64(struct map_row, ip)),
	CTL_REC_COL("ScaleUpGroupId", I64, 0, map_su, 0),
	CTL_REC_COL("ScaleUpSubgroupId", U64, 0, map_su, 1),
};
const struct ctl_rec_schema ctl_rec_ck_map_schema = CTL_REC_SCHEMA("chakra-mapping", map_cols);
/* Without scale-up groups: the same columns less the two ScaleUp ones. */
static const struct ctl_rec_schema map_flat_schema = {
	"chakra-mapping", map_cols, sizeof(map_cols) / sizeof(map_cols[0]) - 2 };

/* chakra-apps: a row per rank's application. */
struct app_row {
	const char *name;             /* "ChakraApp-<rank>" */
};

static const struct ctl_rec_col apps_cols[] = {
	CTL_REC_COL_STR("AppName", struct app_row, name),
	CTL_REC_COL_CONST("Core", "0"),
};
const struct ctl_rec_schema ctl_rec_ck_apps_schema = CTL_REC_SCHEMA("chakra-apps", apps_cols);

/* An application's name, "ChakraApp-<rank>", into @p buf (room for 32 bytes). */
static const char *app_name(char *buf, uint32_t rank)
{
	snprintf(buf, 32, "ChakraApp-%" PRIu32, rank);
	return buf;
}

static void placement_rows(struct ctl_chakra_run *k, struct rec_csv *cap, struct rec_csv *map, struct rec_csv *apps)
{
	const struct ctl_rec_schema *ms = k->su_members ? &ctl_rec_ck_map_schema : &map_flat_schema;
	char name[32];

	for (uint32_t h = 0; h < k->cfg->n_hosts; h++)
		if (!k->cfg->hosts[h].external)
			ctl_rec_row(cap, &ctl_rec_ck_hosts_schema, &(struct host_row){ h }, 0);
	for (uint32_t r = 0; r < k->set.n_ranks; r++) {
		uint32_t h = k->rank_host[r];
		struct map_row m = { .rank = r, .host = h, .name = k->cfg->hosts[h].name, .ip = k->cfg->hosts[h].ip,
				     .in_group = k->su_members && k->rank_group[r] != APP_CK_NONE };

		if (m.in_group) {
			m.group_id = k->su_group_ids[k->rank_group[r]];
			m.sub = k->rank_sub[r];
		}
		ctl_rec_row(map, ms, &m, 0);
		ctl_rec_row(apps, &ctl_rec_ck_apps_schema, &(struct app_row){ app_name(name, r) }, 0);
	}
}

static int placement(struct ctl_chakra_run *k, const char *dir, char *err, size_t errlen)
{
	struct rec_csv *cap = ctl_rec_schema_open(k->cfg, dir, &ctl_rec_ck_hosts_schema, k->epoch_s, err, errlen);
	struct rec_csv *map = cap ? ctl_rec_schema_open(k->cfg, dir, k->su_members ? &ctl_rec_ck_map_schema
										    : &map_flat_schema,
							k->epoch_s, err, errlen)
				  : NULL;
	struct rec_csv *apps = map ? ctl_rec_schema_open(k->cfg, dir, &ctl_rec_ck_apps_schema, k->epoch_s, err, errlen)
				   : NULL;

	if (apps)
		placement_rows(k, cap, map, apps);
	int rc = apps ? 0 : -errno;

	if (rec_csv_close(cap, err, errlen) && !rc)
		rc = -EIO;
	if (rec_csv_close(map, err, errlen) && !rc)
		rc = -EIO;
	if (rec_csv_close(apps, err, errlen) && !rc)
		rc = -EIO;
	return rc;
}

/* chakra-perf: a row per acknowledged transfer, at its acknowledgement (the row's time). */
struct perf_row {
	uint64_t fct, start;          /* ps: from its start to its acknowledgement; its start */
	const char *path, *sync, *src, *dst;
	int64_t coll_id, tag, gsize;
	uint64_t bytes;
};

static const struct ctl_rec_col perf_cols[] = {
	CTL_REC_COL_TIME_UTC,
	CTL_REC_COL_CONST("metric_name", "ChakraFCT"),
	CTL_REC_COL_SIM_SEC,
	CTL_REC_COL_FIXED("perf_metric_usec", 6, struct perf_row, fct),
	CTL_REC_COL_STR("metric_path", struct perf_row, path),
	CTL_REC_COL_I64("metric_aggregation_id", struct perf_row, coll_id),
	CTL_REC_COL_FIXED("start_time_sec", 12, struct perf_row, start),
	CTL_REC_COL_STR("is_added_synchronization_flow", struct perf_row, sync),
	CTL_REC_COL_I64("comm_tag", struct perf_row, tag),
	CTL_REC_COL_I64("group_size", struct perf_row, gsize),
	CTL_REC_COL_U64("flow_comm_size", struct perf_row, bytes),
	CTL_REC_COL_STR("sending_app_name", struct perf_row, src),
	CTL_REC_COL_STR("receiving_app_name", struct perf_row, dst),
};
const struct ctl_rec_schema ctl_rec_ck_perf_schema = CTL_REC_SCHEMA("chakra-perf", perf_cols);

/* chakra-completion-stats: a row per rank, when it ends. */
struct completion_row {
	uint64_t rank, time;          /* time: ps from the start to the rank's end */
	const struct app_ck_rank_stats *st;
	const char *annotated;        /* post_annotated_results_path */
};

/* A counter of the rank's stats: @p arg its offset in struct app_ck_rank_stats. */
static void completion_stat(const void *row, uint32_t arg, struct ctl_rec_val *v)
{
	memcpy(&v->u, (const char *)((const struct completion_row *)row)->st + arg, sizeof(v->u));
}

#define COMPLETION_STAT(name, field) \
	CTL_REC_COL(name, U64, 0, completion_stat, CTL_REC_OFF_U64(struct app_ck_rank_stats, field))

static const struct ctl_rec_col completion_cols[] = {
	CTL_REC_COL_CONST("metric_path", "ChakraGenerator.ChakraApp"),
	CTL_REC_COL_U64("chakra_app_logical_id", struct completion_row, rank),
	CTL_REC_COL_FIXED("chakra_trace_completion_time_us", 6, struct completion_row, time),
	COMPLETION_STAT("chakra_full_payload_bytes_sent", bytes_sent),
	COMPLETION_STAT("chakra_full_payload_bytes_received", bytes_received),
	COMPLETION_STAT("num_chakra_sends_completed", sends_completed),
	COMPLETION_STAT("num_chakra_receives_completed", receives_completed),
	COMPLETION_STAT("num_chakra_sends_fully_acked", sends_acked),
	COMPLETION_STAT("num_chakra_computations_completed", comps_completed),
	COMPLETION_STAT("total_chakra_computation_time_us", comp_time_us),
	CTL_REC_COL_STR("post_annotated_results_path", struct completion_row, annotated),
};
const struct ctl_rec_schema ctl_rec_ck_completion_schema =
	CTL_REC_SCHEMA("chakra-completion-stats", completion_cols);

/* chakra-cdf: the fractions done of the run's bytes, sends, receives, acknowledged sends and computations. */
struct cdf_row {
	uint64_t num[5], den[5];
};

/* Fraction @p arg, 6 decimals; 1.000000 when the run has nothing of the kind (all of it done), written as every
 * other fraction is. */
static void cdf_frac(const void *row, uint32_t arg, struct ctl_rec_val *v)
{
	const struct cdf_row *r = row;

	if (r->den[arg] == 0) {
		v->fmt = CTL_REC_F_STR;
		v->s = "1.000000";
	} else {
		v->num = r->num[arg];
		v->den = r->den[arg];
	}
}

static const struct ctl_rec_col cdf_cols[] = {
	CTL_REC_COL_SIM_SEC,
	CTL_REC_COL("CDF_send_bytes", QUOT, 6, cdf_frac, 0),
	CTL_REC_COL("CDF_chakra_sends_completed", QUOT, 6, cdf_frac, 1),
	CTL_REC_COL("CDF_chakra_receives_completed", QUOT, 6, cdf_frac, 2),
	CTL_REC_COL("CDF_chakra_sends_fully_acked", QUOT, 6, cdf_frac, 3),
	CTL_REC_COL("CDF_chakra_computations_completed", QUOT, 6, cdf_frac, 4),
};
const struct ctl_rec_schema ctl_rec_ck_cdf_schema = CTL_REC_SCHEMA("chakra-cdf", cdf_cols);

int ctl_chakra_rec_open(struct ctl_chakra_run *k, const char *dir, char *err, size_t errlen)
{
	int rc = placement(k, dir, err, errlen);

	snprintf(k->dir, sizeof(k->dir), "%s", dir);
	if (rc)
		return rc;
	k->perf = ctl_rec_schema_open(k->cfg, dir, &ctl_rec_ck_perf_schema, k->epoch_s, err, errlen);
	k->completion = k->perf ? ctl_rec_schema_open(k->cfg, dir, &ctl_rec_ck_completion_schema, k->epoch_s, err,
						      errlen) : NULL;
	k->cdf = k->completion ? ctl_rec_schema_open(k->cfg, dir, &ctl_rec_ck_cdf_schema, k->epoch_s, err, errlen)
			       : NULL;
	return k->cdf ? 0 : -errno;
}

/* Fold collective @p c's per-position first starts into lo and hi (the positions with none left out). */
static void coll_fold(const struct ctl_chakra_run *k, uint32_t c, emu_ps_t *lo, emu_ps_t *hi)
{
	const struct ctl_chakra_coll *st = &k->colls[c];
	uint32_t n = k->set.pgs[k->prep.colls[c].pg].n;

	*lo = UINT64_MAX, *hi = 0;
	for (uint32_t q = 0; st->first != NULL && q < n; q++)
		if (st->first[q] != UINT64_MAX) {
			*lo = st->first[q] < *lo ? st->first[q] : *lo;
			*hi = st->first[q] > *hi ? st->first[q] : *hi;
		}
}

/* A transfer of collective @p c from group position @p q (-1: none) started at @p start was acknowledged: the
 * collective's per-position array comes now if it has none (without memory its start is reported as 0: the
 * run goes on), and goes once its last transfer is in, its extremes kept. */
static void coll_first(struct ctl_chakra_run *k, int64_t c, int q, emu_ps_t start)
{
	struct ctl_chakra_coll *s = &k->colls[c];
	uint32_t n = k->set.pgs[k->prep.colls[c].pg].n;

	if (s->first == NULL && s->acked == 1 && (s->first = malloc((n + 1) * sizeof(emu_ps_t))) != NULL)
		for (uint32_t i = 0; i < n; i++)
			s->first[i] = UINT64_MAX;
	if (s->first != NULL && q >= 0 && start < s->first[q])
		s->first[q] = start;
	if (s->acked == k->prep.colls[c].n_transfers) {
		coll_fold(k, (uint32_t)c, &s->lo, &s->hi);
		free(s->first);
		s->first = NULL;
	}
}

int ctl_chakra_coll_times(const struct ctl_chakra_run *k, uint32_t c, emu_ps_t *s, emu_ps_t *e)
{
	const struct ctl_chakra_coll *st = &k->colls[c];
	emu_ps_t lo = st->lo, hi = st->hi;

	if (st->acked != k->prep.colls[c].n_transfers)
		coll_fold(k, c, &lo, &hi);
	*e = st->end;
	*s = k->ck->use_max_start || lo == UINT64_MAX ? hi : lo;
	return st->acked == k->prep.colls[c].n_transfers;
}

void ctl_chakra_rec_perf(struct ctl_chakra_run *k, const struct app_ck_xfer_done *x)
{
	const struct app_ck_coll_info *c = x->coll_id >= 0 ? &k->prep.colls[x->coll_id] : NULL;
	uint32_t gsize = c ? k->set.pgs[c->pg].n : 0;
	char path[128], src[32], dst[32];

	if (c && !x->sync) {
		struct ctl_chakra_coll *s = &k->colls[x->coll_id];
		int q = app_ck_pg_pos(&k->set.pgs[c->pg], x->src);

		s->acked++;
		s->end = x->acked > s->end ? x->acked : s->end;
		coll_first(k, x->coll_id, q, x->start);
	}
	if (!x->sync)
		k->acked_bytes += x->bytes;
	snprintf(path, sizeof(path), "ChakraFCT.%s.GroupSize%" PRIu32 ".CommSize%" PRIu64 "Bytes",
		 c ? app_ck_coll_name(c->type) : "Send", gsize, c ? c->bytes : x->bytes);
	struct perf_row r = {
		.fct = x->acked - x->start, .start = x->start, .path = path, .sync = x->sync ? "true" : "false",
		.src = app_name(src, x->src), .dst = app_name(dst, x->dst), .coll_id = c ? x->coll_id : -1,
		.tag = x->tag, .gsize = c ? (int64_t)gsize : -1, .bytes = x->bytes,
	};

	ctl_rec_row(k->perf, &ctl_rec_ck_perf_schema, &r, x->acked);
}

void ctl_chakra_rec_rank_end(struct ctl_chakra_run *k, uint32_t rank, const struct app_ck_rank_stats *st, emu_ps_t now)
{
	char annotated[sizeof(k->set.prefix) + 48];

	if (!k->completion)
		return;
	snprintf(annotated, sizeof(annotated), "post_annotated/%s.%" PRIu32 ".json", k->set.prefix, rank);
	struct completion_row r = { .rank = rank, .time = now > k->start ? now - k->start : 0, .st = st,
				    .annotated = annotated };

	ctl_rec_row(k->completion, &ctl_rec_ck_completion_schema, &r, now);
}

/* chakra-cdf: the run's progress, every BeaconReportInterval from StartTime until every rank has ended. */
static void cdf_row(struct ctl_chakra_run *k, emu_ps_t now)
{
	uint64_t bytes = 0, sends = 0, recvs = 0, acked = 0, comps = 0;

	for (uint32_t r = 0; r < k->set.n_ranks; r++) {
		const struct app_ck_rank_stats *st = app_ck_run_rank(k->run, r);

		bytes += st->bytes_sent, sends += st->sends_completed, recvs += st->receives_completed;
		acked += st->sends_acked, comps += st->comps_completed;
	}
	struct cdf_row row = { .num = { bytes, sends, recvs, acked, comps },
			       .den = { k->tot_bytes, k->tot_sends, k->tot_recvs, k->tot_sends, k->tot_comps } };

	ctl_rec_row(k->cdf, &ctl_rec_ck_cdf_schema, &row, now);
}

static void ev_cdf(void *a, void *b, emu_ps_t now)
{
	struct ctl_chakra_run *k = a;

	(void)b;
	cdf_row(k, now);
	if (app_ck_run_ended(k->run) < k->set.n_ranks && now + k->cfg->sim.beacon_interval < k->stop)
		net_sched(k->np, now + k->cfg->sim.beacon_interval, ev_cdf, k, NULL, NULL);
}

void ctl_chakra_rec_cdf_start(struct ctl_chakra_run *k)
{
	if (k->cfg->sim.beacon_interval)
		net_sched(k->np, k->start + k->cfg->sim.beacon_interval, ev_cdf, k, NULL, NULL);
}

/* Profiling (ProfilingEnabled): {sim}-chakra-profiling-<rank>-0.txt, a block of the rank's running nodes every
 * ProfilingInterval from one interval after the start, until the rank ends. Appended block by block, so a run of
 * thousands of ranks holds no file open. */
static FILE *prof_file(const struct ctl_chakra_run *k, uint32_t rank, const char *mode)
{
	char path[1024];

	snprintf(path, sizeof(path), "%s/%s-chakra-profiling-%" PRIu32 "-0.txt", k->dir, k->cfg->sim.simulation_name,
		 rank);
	return rec_file_open(path, mode[0] == 'a', k->cfg->sim.budget, '\n'); /* within the run's output budget */
}

static void prof_deps(FILE *f, const struct app_ck_trace *t, const struct app_ck_node *n)
{
	/* the trace's lists, as ids; data and control dependencies are one list in the replay: written as data */
	fputs(",[", f);
	for (uint32_t d = 0; d < n->n_deps; d++)
		fprintf(f, "%s%" PRIu64, d ? "," : "", t->nodes[n->deps[d]].id);
	fputs("],[])", f);
}

static void prof_block(struct ctl_chakra_run *k, uint32_t rank, FILE *f, emu_ps_t now)
{
	static const char *const sect[3] = {"send_nodes:\n", "receive_nodes:\n", "computation_nodes:\n"};
	const struct app_ck_trace *t = &k->set.ranks[rank];

	fputs("================================\nsim_time_sec: ", f);
	ctl_rec_put_sec(f, now);
	rec_put_ch(f, '\n');
	for (int s = 0; s < 3; s++) {
		fputs(sect[s], f);
		for (uint32_t i = 0; i < t->n; i++) {
			const struct app_ck_node *n = &t->nodes[i];
			int kind = n->kind == APP_CK_SEND ? 0 : n->kind == APP_CK_RECV ? 1 : 2;

			if (kind != s || !app_ck_run_node_running(k->run, rank, i))
				continue;
			if (s < 2)
				fprintf(f, "    %c(%" PRIu64 ",%" PRId32 ",%" PRIu64, s ? 'R' : 'S', n->id, n->peer, n->bytes);
			else
				fprintf(f, "    C(%" PRIu64, n->id);
			prof_deps(f, t, n);
			rec_put_ch(f, '\n');
		}
	}
}

static void ev_prof(void *a, void *b, emu_ps_t now)
{
	struct ctl_chakra_run *k = a;
	int more = 0;

	(void)b;
	uint64_t limit = k->cfg->sim.record_size_limit;

	for (uint32_t r = 0; r < k->set.n_ranks; r++) {
		FILE *f;

		if (app_ck_run_rank(k->run, r)->ended || !(f = prof_file(k, r, "a")))
			continue;
		long before = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;

		prof_block(k, r, f, now);
		long after = ftell(f);

		if (before >= 0 && after > before)
			k->prof_bytes += (uint64_t)(after - before);
		fclose(f);
		more = 1;
	}
	if (more && limit && k->prof_bytes >= limit) { /* the profiling files count against the records' budget */
		fprintf(stderr, "uetemu: warning: the Chakra profiling files reached simulation.RecordSizeLimit (%" PRIu64
			" B) at %.6f s simulated: no more blocks are written; raise ProfilingInterval or RecordSizeLimit\n",
			limit, (double)now / 1e12);
		more = 0;
	}
	if (more && now + k->ck->profiling_interval < k->stop)
		net_sched(k->np, now + k->ck->profiling_interval, ev_prof, k, NULL, NULL);
}

int ctl_chakra_rec_prof_start(struct ctl_chakra_run *k, char *err, size_t errlen)
{
	if (!k->ck->profiling)
		return 0;
	for (uint32_t r = 0; r < k->set.n_ranks; r++) {
		FILE *f = prof_file(k, r, "w");

		if (!f || fputs("CHAKRA PROFILING\n", f) < 0 || fclose(f)) {
			snprintf(err, errlen, "%s: cannot create the profiling file of rank %" PRIu32 ": %s", k->dir, r,
				 strerror(errno));
			return -EIO;
		}
	}
	if (net_sched(k->np, k->start + k->ck->profiling_interval, ev_prof, k, NULL, NULL) < 0) {
		snprintf(err, errlen, "the event scheduler is full: cannot schedule Chakra profiling");
		return -ENOSPC;
	}
	return 0;
}
