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

#define PERF_HEADER "time_utc,metric_name,sim_time_sec,perf_metric_usec,metric_path,metric_aggregation_id," \
	"start_time_sec,is_added_synchronization_flow,comm_tag,group_size,flow_comm_size,sending_app_name," \
	"receiving_app_name"
#define COMPLETION_HEADER "metric_path,chakra_app_logical_id,chakra_trace_completion_time_us," \
	"chakra_full_payload_bytes_sent,chakra_full_payload_bytes_received,num_chakra_sends_completed," \
	"num_chakra_receives_completed,num_chakra_sends_fully_acked,num_chakra_computations_completed," \
	"total_chakra_computation_time_us,post_annotated_results_path"
#define CDF_HEADER "sim_time_sec,CDF_send_bytes,CDF_chakra_sends_completed,CDF_chakra_receives_completed," \
	"CDF_chakra_sends_fully_acked,CDF_chakra_computations_completed"

static int placement(struct ctl_chakra_run *k, const char *dir, char *err, size_t errlen)
{
	struct rec_csv *cap = ctl_rec_csv_open(k->cfg, dir, "chakra-capable-hosts", "Host,ChakraCapable", k->epoch_s,
					       err, errlen);
	struct rec_csv *map = cap ? ctl_rec_csv_open(k->cfg, dir, "chakra-mapping", k->su_members ?
						     "ChakraId,Hostname,NicNodeID,ServerNodeID,ServerID,Core,IPAddress,"
						     "ScaleUpGroupId,ScaleUpSubgroupId" : "ChakraId,Hostname,NicNodeID,"
						     "ServerNodeID,ServerID,Core,IPAddress", k->epoch_s, err, errlen)
				  : NULL;
	struct rec_csv *apps = map ? ctl_rec_csv_open(k->cfg, dir, "chakra-apps", "AppName,Core", k->epoch_s, err,
						      errlen) : NULL;

	for (uint32_t h = 0; apps && h < k->cfg->n_hosts; h++)
		if (!k->cfg->hosts[h].external)
			fprintf(rec_csv_file(cap), "%" PRIu32 ",true\n", h);
	for (uint32_t r = 0; apps && r < k->set.n_ranks; r++) {
		uint32_t h = k->rank_host[r];
		FILE *f = rec_csv_file(map);

		/* node ids: a host's NIC is its FEP id, the server the same host index (one node per host here) */
		fprintf(f, "%" PRIu32 ",%s,%" PRIu32 ",%" PRIu32 ",%" PRIu32 ",0,", r, k->cfg->hosts[h].name, h, h, h);
		rec_fmt_ip(f, k->cfg->hosts[h].ip);
		if (k->su_members && k->rank_group[r] != APP_CK_NONE) /* a rank outside every group: empty cells */
			fprintf(f, ",%" PRId64 ",%" PRIu32, k->su_group_ids[k->rank_group[r]], k->rank_sub[r]);
		else if (k->su_members)
			rec_put_str(f, ",,");
		rec_put_ch(f, '\n');
		fprintf(rec_csv_file(apps), "ChakraApp-%" PRIu32 ",0\n", r);
	}
	int rc = apps ? 0 : -errno;

	if (rec_csv_close(cap, err, errlen) && !rc)
		rc = -EIO;
	if (rec_csv_close(map, err, errlen) && !rc)
		rc = -EIO;
	if (rec_csv_close(apps, err, errlen) && !rc)
		rc = -EIO;
	return rc;
}

int ctl_chakra_rec_open(struct ctl_chakra_run *k, const char *dir, char *err, size_t errlen)
{
	int rc = placement(k, dir, err, errlen);

	snprintf(k->dir, sizeof(k->dir), "%s", dir);
	if (rc)
		return rc;
	k->perf = ctl_rec_csv_open(k->cfg, dir, "chakra-perf", PERF_HEADER, k->epoch_s, err, errlen);
	k->completion = k->perf ? ctl_rec_csv_open(k->cfg, dir, "chakra-completion-stats", COMPLETION_HEADER,
						   k->epoch_s, err, errlen) : NULL;
	k->cdf = k->completion ? ctl_rec_csv_open(k->cfg, dir, "chakra-cdf", CDF_HEADER, k->epoch_s, err, errlen)
			       : NULL;
	return k->cdf ? 0 : -errno;
}

static void app_name(FILE *f, uint32_t rank)
{
	rec_put_str(f, "ChakraApp-");
	rec_put_u64(f, rank);
}

void ctl_chakra_rec_perf(struct ctl_chakra_run *k, const struct app_ck_xfer_done *x)
{
	FILE *f = rec_csv_file(k->perf);
	const struct app_ck_coll_info *c = x->coll_id >= 0 ? &k->prep.colls[x->coll_id] : NULL;
	uint32_t gsize = c ? k->set.pgs[c->pg].n : 0;

	if (c && !x->sync) {
		struct ctl_chakra_coll *s = &k->colls[x->coll_id];
		int q = app_ck_pg_pos(&k->set.pgs[c->pg], x->src);

		s->acked++;
		s->end = x->acked > s->end ? x->acked : s->end;
		if (q >= 0 && x->start < s->first[q])
			s->first[q] = x->start;
	}
	if (!x->sync)
		k->acked_bytes += x->bytes;
	rec_csv_time_utc(k->perf, x->acked);
	rec_put_str(f, ",ChakraFCT,");
	ctl_rec_put_sec(f, x->acked);
	rec_put_ch(f, ',');
	ctl_rec_put_fixed(f, x->acked - x->start, 6);
	fprintf(f, ",ChakraFCT.%s.GroupSize%" PRIu32 ".CommSize%" PRIu64 "Bytes,%" PRId64 ",",
		c ? app_ck_coll_name(c->type) : "Send", gsize, c ? c->bytes : x->bytes, c ? x->coll_id : -1);
	ctl_rec_put_sec(f, x->start);
	rec_put_str(f, x->sync ? ",true," : ",false,");
	rec_put_i64(f, x->tag);
	rec_put_ch(f, ',');
	rec_put_i64(f, c ? (int64_t)gsize : -1);
	rec_put_cu64(f, x->bytes);
	rec_put_ch(f, ',');
	app_name(f, x->src);
	rec_put_ch(f, ',');
	app_name(f, x->dst);
	rec_put_ch(f, '\n');
}

void ctl_chakra_rec_rank_end(struct ctl_chakra_run *k, uint32_t rank, const struct app_ck_rank_stats *st, emu_ps_t now)
{
	FILE *f;

	if (!k->completion)
		return;
	f = rec_csv_file(k->completion);
	rec_put_str(f, "ChakraGenerator.ChakraApp,");
	rec_put_u64(f, rank);
	rec_put_ch(f, ',');
	ctl_rec_put_fixed(f, now > k->start ? now - k->start : 0, 6);
	rec_put_cu64(f, st->bytes_sent);
	rec_put_cu64(f, st->bytes_received);
	rec_put_cu64(f, st->sends_completed);
	rec_put_cu64(f, st->receives_completed);
	rec_put_cu64(f, st->sends_acked);
	rec_put_cu64(f, st->comps_completed);
	rec_put_cu64(f, st->comp_time_us);
	fprintf(f, ",post_annotated/%s.%" PRIu32 ".json\n", k->set.prefix, rank);
}

/* chakra-cdf: the run's progress, every BeaconReportInterval from StartTime until every rank has ended. */
static void cdf_row(struct ctl_chakra_run *k, emu_ps_t now)
{
	uint64_t bytes = 0, sends = 0, recvs = 0, acked = 0, comps = 0;
	FILE *f = rec_csv_file(k->cdf);

	for (uint32_t r = 0; r < k->set.n_ranks; r++) {
		const struct app_ck_rank_stats *st = app_ck_run_rank(k->run, r);

		bytes += st->bytes_sent, sends += st->sends_completed, recvs += st->receives_completed;
		acked += st->sends_acked, comps += st->comps_completed;
	}
	ctl_rec_put_sec(f, now);
	const uint64_t num[5] = {bytes, sends, recvs, acked, comps};
	const uint64_t den[5] = {k->tot_bytes, k->tot_sends, k->tot_recvs, k->tot_sends, k->tot_comps};

	for (int i = 0; i < 5; i++) {
		rec_put_ch(f, ',');
		if (den[i])
			ctl_rec_put_quot(f, num[i], 1, den[i], 6);
		else
			rec_put_ch(f, '1'); /* nothing of the kind in the run: all of it done */
	}
	rec_put_ch(f, '\n');
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
	return fopen(path, mode);
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
