/* The Chakra workload at the end of a run: completion rows of the ranks still running, the collective records
 * (each collective's start and end; percentiles of run time against an ideal time), the annotated traces, and the
 * summary (table and summary.json). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ctl_chakra_pvt.h"
#include "ctl_rec.h"

#define COLL_HEADER "collective_hash,comm_type,comm_size,pg_name,pg_size,simulation_start_time_us," \
	"simulation_end_time_us,use_max_as_collective_start_time,is_valid"
#define PCT_HEADER "comm_type,expansion_algo,comm_size,pg_size,count,mean_run_time_us,p50_run_time_us," \
	"p99_run_time_us,p99_9_run_time_us,p100_run_time_us,mean_ideal_ratio,p50_ideal_ratio,p99_ideal_ratio," \
	"p99_9_ideal_ratio,p100_ideal_ratio"
#define ANNOT_WIDTH 13 /* characters of an annotated time in us, and of its placeholder */

static int coll_stats(struct ctl_chakra_run *k, char *err, size_t errlen)
{
	struct rec_csv *csv = ctl_rec_csv_open(k->cfg, k->dir, "chakra-comm-collective-stats", COLL_HEADER,
					       k->epoch_s, err, errlen);

	if (!csv)
		return -errno;
	for (uint32_t c = 0; c < k->prep.n_colls; c++) {
		const struct app_ck_coll_info *ci = &k->prep.colls[c];
		emu_ps_t s, e;
		int valid = ctl_chakra_coll_times(k, c, &s, &e);
		FILE *f = rec_csv_file(csv);

		fprintf(f, "%" PRIu32 ",%s,%" PRIu64 ",%s,%" PRIu32 ",", c, app_ck_coll_name(ci->type), ci->bytes,
			k->set.pgs[ci->pg].name, k->set.pgs[ci->pg].n);
		ctl_rec_put_fixed(f, s, 6);
		rec_put_ch(f, ',');
		ctl_rec_put_fixed(f, e, 6);
		rec_put_str(f, k->ck->use_max_start ? ",1," : ",0,");
		rec_put_str(f, valid ? "1\n" : "0\n");
	}
	return rec_csv_close(csv, err, errlen);
}

/* Nearest rank, in thousandths: the value below which @p pm / 1000 of the sorted @p v lie. */
static uint64_t pct(const uint64_t *v, uint64_t n, uint64_t pm)
{
	uint64_t i = (pm * n + 999) / 1000;

	return n ? v[i ? i - 1 : 0] : 0;
}

/* One percentiles row: the valid collectives of one (type, algorithm, size, group size). */
static void pct_row(struct ctl_chakra_run *k, FILE *f, uint32_t c0, uint64_t *rt, uint64_t n)
{
	const struct app_ck_coll_info *ci = &k->prep.colls[c0];
	/* ideal: the bytes the busiest rank sends, at the NIC link's rate; for AllReduce ring that is the page's
	 * 2 x S x 8 x (N - 1) / (N x B) */
	emu_ps_t ideal = emu_ser_ps(k->colls[c0].busiest_bytes, ctl_config_host_bps(k->cfg));
	static const uint64_t pms[4] = {500, 990, 999, 1000};
	uint64_t sum = 0;

	rec_sort_u64(rt, n);
	for (uint64_t i = 0; i < n; i++)
		sum += rt[i];
	fprintf(f, "%s,%s,%" PRIu64 ",%" PRIu32 ",%" PRIu64 ",", app_ck_coll_name(ci->type),
		app_ck_algo_name(ci->algo), ci->bytes, k->set.pgs[ci->pg].n, n);
	ctl_rec_put_fixed(f, n ? sum / n : 0, 6);
	for (int i = 0; i < 4; i++) {
		rec_put_ch(f, ',');
		ctl_rec_put_fixed(f, pct(rt, n, pms[i]), 6);
	}
	for (int i = -1; i < 4; i++) {
		rec_put_ch(f, ',');
		if (ci->type == APP_CK_BARRIER || ideal == 0)
			rec_put_str(f, "NA");
		else
			ctl_rec_put_quot(f, i < 0 ? (n ? sum / n : 0) : pct(rt, n, pms[i]), 1, ideal, 6);
	}
	rec_put_ch(f, '\n');
}

static int same_kind(const struct ctl_chakra_run *k, uint32_t a, uint32_t b)
{
	const struct app_ck_coll_info *x = &k->prep.colls[a], *y = &k->prep.colls[b];

	return x->type == y->type && x->algo == y->algo && x->bytes == y->bytes &&
	       k->set.pgs[x->pg].n == k->set.pgs[y->pg].n;
}

static int coll_pcts(struct ctl_chakra_run *k, char *err, size_t errlen)
{
	struct rec_csv *csv = ctl_rec_csv_open(k->cfg, k->dir, "chakra-comm-collective-percentiles-stats", PCT_HEADER,
					       k->epoch_s, err, errlen);
	uint8_t *done = calloc(k->prep.n_colls + 1, 1);
	uint64_t *rt = malloc((k->prep.n_colls + 1) * sizeof(*rt));

	if (!csv || !done || !rt) {
		free(done), free(rt);
		rec_csv_close(csv, NULL, 0);
		return csv ? -ENOMEM : -errno;
	}
	for (uint32_t c = 0; c < k->prep.n_colls; c++) {
		uint64_t n = 0;

		if (done[c])
			continue;
		for (uint32_t d = c; d < k->prep.n_colls; d++) {
			emu_ps_t s, e;

			if (done[d] || !same_kind(k, c, d))
				continue;
			done[d] = 1;
			if (ctl_chakra_coll_times(k, d, &s, &e))
				rt[n++] = e > s ? e - s : 0;
		}
		pct_row(k, rec_csv_file(csv), c, rt, n);
	}
	free(done), free(rt);
	return rec_csv_close(csv, err, errlen);
}

static void put_time(FILE *f, const char *key, emu_ps_t t, int have)
{
	fprintf(f, ",\"%s\":\"", key);
	uint64_t ns = (uint64_t)(t / EMU_PS_PER_NS);

	if (have && ns < 1000000000000ull) /* us to the ns, 9 digits, a point and 3: 13 characters */
		fprintf(f, "%09" PRIu64 ".%03" PRIu64, ns / 1000, ns % 1000);
	else if (have) /* from 10^9 us (1,000 s) on, whole us: 13 digits reach past the emulated range's 2^63 ps */
		fprintf(f, "%0*" PRIu64, ANNOT_WIDTH, (uint64_t)(t / EMU_PS_PER_US));
	else
		fputs("XXXXXXXXXXXXX", f);
	rec_put_ch(f, '"');
}

/* post_annotated/<prefix>.<rank>.json: every node with s and e in us to the ns (the placeholder for a time not
 * reached), its type as the trace gave it (a collective stays COMM_COLL_NODE, 7, though preparation made it the
 * join of its transfers) and, for a collective, s the real start: the earliest start of the rank's transfers of it
 * (its barrier's included), when its trace dependencies had finished; r, the wall clock at the node's start, is
 * the placeholder: uetemu's models never read the wall clock. */
static int annotate(struct ctl_chakra_run *k, uint32_t rank)
{
	char path[1024];
	FILE *f;
	const struct app_ck_trace *t = &k->set.ranks[rank];
	emu_ps_t *cs = calloc(k->prep.n_colls + 1, sizeof(*cs)); /* per collective: its earliest transfer start */

	if (!cs)
		return -ENOMEM;
	for (uint32_t i = 0; i < t->n; i++) {
		const struct app_ck_node *n = &t->nodes[i];
		emu_ps_t s, e;

		if (n->coll_id < 0 || (uint64_t)n->coll_id >= k->prep.n_colls || n->trace_kind == APP_CK_COLL)
			continue;
		app_ck_run_node_times(k->run, rank, i, &s, &e);
		if (s && (!cs[n->coll_id] || s < cs[n->coll_id]))
			cs[n->coll_id] = s;
	}

	snprintf(path, sizeof(path), "%s/post_annotated/%s.%" PRIu32 ".json", k->dir, k->set.prefix, rank);
	f = rec_file_open(path, false, k->cfg->sim.budget, '\n'); /* within the run's output budget */
	if (!f) {
		int e = errno;

		free(cs);
		return -e;
	}
	fprintf(f, "{\"rank\":%" PRIu32 ",\"nodes\":[", rank);
	for (uint32_t i = 0; i < t->n; i++) {
		const struct app_ck_node *n = &t->nodes[i];
		emu_ps_t s, e;

		app_ck_run_node_times(k->run, rank, i, &s, &e);
		if (n->trace_kind == APP_CK_COLL && n->coll_id >= 0 && (uint64_t)n->coll_id < k->prep.n_colls &&
		    cs[n->coll_id] && (!s || cs[n->coll_id] < s))
			s = cs[n->coll_id];
		fprintf(f, "%s\n{\"id\":%" PRIu64 ",\"type\":%u", i ? "," : "", n->id,
			n->trace_kind ? n->trace_kind : n->kind);
		if (n->kind == APP_CK_SEND || n->kind == APP_CK_RECV)
			fprintf(f, ",\"peer\":%" PRId32 ",\"comm_size\":%" PRIu64 ",\"comm_tag\":%" PRId64, n->peer,
				n->bytes, n->tag);
		put_time(f, "s", s, s != 0);
		put_time(f, "e", e, e != 0);
		put_time(f, "r", 0, 0);
		rec_put_ch(f, '}');
	}
	fputs("\n]}\n", f);
	free(cs);
	return fclose(f) ? -errno : 0;
}

int ctl_chakra_rec_close(struct ctl_chakra_run *k, emu_ps_t end, char *err, size_t errlen)
{
	char path[1024];
	int rc = 0;

	if (!k->run)
		return 0;
	for (uint32_t r = 0; r < k->set.n_ranks; r++) /* a rank still running writes what it completed */
		if (!app_ck_run_rank(k->run, r)->ended)
			ctl_chakra_rec_rank_end(k, r, app_ck_run_rank(k->run, r), end);
	snprintf(path, sizeof(path), "%s/post_annotated", k->dir);
	if (mkdir(path, 0777) && errno != EEXIST)
		rc = -errno;
	/* the annotated traces hold every node of every rank: a run stopped by a signal (or a failed write) leaves
	 * them out, so it ends at once; the chakra records hold what completed */
	for (uint32_t r = 0; !rc && r < k->set.n_ranks && !rec_budget_halted(k->cfg->sim.budget); r++)
		rc = annotate(k, r);
	if (rc)
		snprintf(err, errlen, "%s: cannot write the annotated traces: %s", path, strerror(-rc));
	if (!rc)
		rc = coll_stats(k, err, errlen);
	if (!rc)
		rc = coll_pcts(k, err, errlen);
	int e1 = rec_csv_close(k->perf, rc ? NULL : err, errlen);
	int e2 = rec_csv_close(k->completion, rc || e1 ? NULL : err, errlen);
	int e3 = rec_csv_close(k->cdf, rc || e1 || e2 ? NULL : err, errlen);

	k->perf = k->completion = k->cdf = NULL;
	return rc ? rc : e1 ? e1 : e2 ? e2 : e3;
}

/* @p v as a JSON string (the names come from the trace: quotes, backslashes and control bytes escaped). */
static void json_str(FILE *f, const char *v)
{
	rec_put_ch(f, '"');
	for (; *v; v++) {
		unsigned char c = (unsigned char)*v;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			rec_put_ch(f, (char)c);
	}
	rec_put_ch(f, '"');
}

/* 1 when the traceset had anything the trace lines report: files inflated, ctrl_deps dropped, groups taken as every
 * rank, items read and not replayed (a traceset of uetemu's generator has none: its summary is unchanged). */
static int trace_notes(const struct ctl_chakra_run *k)
{
	return k->set.gz_files || k->set.pg_world || k->set.n_ign || k->set.ign_other || k->prep.ctrl_absent ||
	       k->prep.ctrl_self || k->prep.ctrl_cycle;
}

static void print_trace_notes(const struct ctl_chakra_run *k, FILE *f)
{
	if (!trace_notes(k))
		return;
	fprintf(f, "  traces: schema %s, %u of %u files gzip-compressed; ctrl_deps dropped: %" PRIu64 " naming absent "
		"nodes, %" PRIu64 " their own node, %" PRIu64 " closing a cycle; %u process group%s taken as every rank\n",
		k->set.version[0] ? k->set.version : "(none)", k->set.gz_files, k->set.n_ranks, k->prep.ctrl_absent,
		k->prep.ctrl_self, k->prep.ctrl_cycle, k->set.pg_world, k->set.pg_world == 1 ? "" : "s");
	if (!k->set.n_ign && !k->set.ign_other)
		return;
	fputs("  read, not replayed:", f);
	for (uint32_t i = 0; i < k->set.n_ign; i++)
		fprintf(f, "%s %s %" PRIu64, i ? "," : "", k->set.ign[i].name, k->set.ign[i].n);
	if (k->set.ign_other)
		fprintf(f, "%s others %" PRIu64, k->set.n_ign ? "," : "", k->set.ign_other);
	fputc('\n', f);
}

static void json_trace_notes(const struct ctl_chakra_run *k, FILE *f)
{
	if (!trace_notes(k))
		return;
	fputs(",\"trace\":{\"schema\":", f);
	json_str(f, k->set.version);
	fprintf(f, ",\"gzip_files\":%u,\"ctrl_deps_dropped\":{\"absent\":%" PRIu64 ",\"self\":%" PRIu64
		",\"cycle\":%" PRIu64 "},\"pg_world\":%u,\"ignored\":{", k->set.gz_files, k->prep.ctrl_absent,
		k->prep.ctrl_self, k->prep.ctrl_cycle, k->set.pg_world);
	for (uint32_t i = 0; i < k->set.n_ign; i++) {
		if (i)
			rec_put_ch(f, ',');
		json_str(f, k->set.ign[i].name);
		fprintf(f, ":%" PRIu64, k->set.ign[i].n);
	}
	if (k->set.ign_other)
		fprintf(f, "%s\"(others)\":%" PRIu64, k->set.n_ign ? "," : "", k->set.ign_other);
	fputs("}}", f);
}

void ctl_chakra_print(const struct ctl_chakra_run *k, FILE *f)
{
	if (!k || !k->run)
		return;
	fprintf(f, "\nChakra workload: %u ranks, %u ended; %u collectives expanded into %" PRIu64 " transfers "
		"(%" PRIu64 " of synchronization barriers)\n", k->set.n_ranks, app_ck_run_ended(k->run),
		k->prep.n_colls, k->prep.n_transfers, k->prep.n_sync_transfers);
	fprintf(f, "  %-6s %-12s %18s %14s %14s %8s %8s %8s\n", "rank", "host", "completion_us", "bytes_sent",
		"bytes_recv", "sends", "recvs", "comps");
	for (uint32_t r = 0; r < k->set.n_ranks; r++) {
		const struct app_ck_rank_stats *st = app_ck_run_rank(k->run, r);

		fprintf(f, "  %-6" PRIu32 " %-12s ", r, k->cfg->hosts[k->rank_host[r]].name);
		if (st->ended)
			fprintf(f, "%18.3f", (double)(st->end - k->start) / 1e6);
		else
			fprintf(f, "%18s", "running");
		fprintf(f, " %14" PRIu64 " %14" PRIu64 " %8" PRIu64 " %8" PRIu64 " %8" PRIu64 "\n", st->bytes_sent,
			st->bytes_received, st->sends_completed, st->receives_completed, st->comps_completed);
	}
	uint64_t unmatched = app_ck_net_recv_unmatched(k->net), clashes = app_ck_net_id_clashes(k->net);

	if (unmatched + clashes + app_ck_run_post_errors(k->run))
		fprintf(f, "  transfers the NIC refused %" PRIu64 ", receives matching no transfer %" PRIu64
			", message-id clashes %" PRIu64 "\n", app_ck_run_post_errors(k->run), unmatched, clashes);
	if (app_ck_su_errors(k->su))
		fprintf(f, "  scale-up packets stalled (no event or memory left) %" PRIu64 "\n", app_ck_su_errors(k->su));
	print_trace_notes(k, f);
}

void ctl_chakra_json(const struct ctl_chakra_run *k, FILE *f)
{
	if (!k || !k->run)
		return;
	fprintf(f, "\"chakra\":{\"ranks\":%" PRIu32 ",\"ranks_ended\":%" PRIu32 ",\"collectives\":%" PRIu32
		",\"transfers\":%" PRIu64 ",\"post_errors\":%" PRIu64 ",\"recv_unmatched\":%" PRIu64
		",\"scaleup_errors\":%" PRIu64 ",\"completion_us\":[", k->set.n_ranks, app_ck_run_ended(k->run),
		k->prep.n_colls, k->prep.n_transfers, app_ck_run_post_errors(k->run), app_ck_net_recv_unmatched(k->net),
		app_ck_su_errors(k->su));
	for (uint32_t r = 0; r < k->set.n_ranks; r++) {
		const struct app_ck_rank_stats *st = app_ck_run_rank(k->run, r);

		if (st->ended)
			fprintf(f, "%s%.3f", r ? "," : "", (double)(st->end - k->start) / 1e6);
		else
			fprintf(f, "%snull", r ? "," : "");
	}
	fputc(']', f);
	json_trace_notes(k, f);
	fputs("},", f);
}
