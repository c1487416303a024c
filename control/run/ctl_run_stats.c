/*
 * The per-interval stats stream (--stats-interval T, docs/metrics.md): JSON lines, one object per interval per
 * message that was open in it, and one with the interval's totals, as iperf3 --json-stream gives its intervals.
 * The intervals are emulated time in virtual time; in real time they are T of wall time (T / TimeScale of emulated
 * time). The loop's periodic-work hook (the records' sampling point: every event before the interval's end run,
 * the other lcores waiting) fills a buffer; the buffer is written when it is nearly full, on the real-time loop's
 * once-a-second tick and at the end, never inside a pass's events. The stream stops, at a whole line, before it
 * would pass simulation.RecordSizeLimit bytes; summary.json's stats_stream says so.
 */
#include "ctl_run_mon_pvt.h"
#include "rec.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define STATS_BUF (256 * 1024) /* written when less than a line's room is left */
#define STATS_LINE 512         /* the longest object */

struct ctl_stats {
	FILE *f;
	bool own;                 /* f is our file (not stdout) */
	char path[512];
	char *buf;
	size_t used;
	emu_ps_t ivl;             /* emulated time of one interval */
	emu_ps_t wall_ivl;        /* what the user gave: emulated (virtual time) or wall (real time) time */
	emu_ps_t last;            /* the end of the last interval written */
	uint64_t limit;           /* RecordSizeLimit; 0: none */
	uint64_t bytes;           /* bytes of the stream so far, buffered ones included */
	emu_ps_t cut_at;          /* the stream stopped here at the limit, or EMU_PS_NEVER */
	const char *cut_by;       /* the limit that stopped it: "RecordSizeLimit" or "OutputSizeLimit" */
	uint64_t intervals, objects;
	int werr;                 /* errno of the first failed write, or 0 */
	uint32_t n_conns;         /* the ScalaRdma application's connections: flows after the messages */
	uint64_t *done;           /* per flow (messages, then connections): its bytes counted so far */
	uint64_t *rtx;            /* per flow: the NIC's retransmission count at the last sample */
	bool *ended;              /* per message: its last interval written */
	uint64_t *wqes;           /* per connection: its WQEs completed at the last sample */
	uint64_t host_rtx;        /* every host's retransmissions at the last interval */
};

static uint64_t hosts_rtx(const struct ctl_run_state *r)
{
	uint64_t n = 0;

	for (uint32_t h = 0; h < r->cfg->n_hosts; h++) {
		struct port_nic_stats st;

		r->hosts[h].ops->stats(r->hosts[h].dev, &st, 0);
		n += st.retransmits;
	}
	return n;
}

int ctl_run_stats_open(struct ctl_run_state *r, char *err, size_t errlen)
{
	const struct ctl_run_opts *o = r->opts;
	struct ctl_stats *s;

	if (o->stats_interval == 0)
		return 0;
	if (o->ranks > 1) {
		snprintf(err, errlen, "--stats-interval: not under mpirun (each rank holds only its own messages' state); "
			 "run on threads (--threads N) instead");
		return -EINVAL;
	}
	if ((s = calloc(1, sizeof(*s))) == NULL)
		return -ENOMEM;
	r->stats = s;
	s->wall_ivl = o->stats_interval;
	s->ivl = o->stats_interval;
	if (o->mode == CTL_MODE_REALTIME && r->cfg->sim.time_scale > 1) /* wall time: TimeScale times slower */
		s->ivl = o->stats_interval / r->cfg->sim.time_scale > 0 ? o->stats_interval / r->cfg->sim.time_scale : 1;
	s->limit = r->cfg->sim.record_size_limit;
	s->cut_at = EMU_PS_NEVER;
	s->buf = malloc(STATS_BUF);
	s->n_conns = ctl_rdma_conns(r->rdma);
	size_t nf = (size_t)r->n_msgs + s->n_conns + 1;

	s->done = calloc(nf, sizeof(*s->done));
	s->rtx = calloc(nf, sizeof(*s->rtx));
	s->ended = calloc(nf, sizeof(*s->ended));
	s->wqes = calloc(s->n_conns + 1, sizeof(*s->wqes));
	if (s->buf == NULL || s->done == NULL || s->rtx == NULL || s->ended == NULL || s->wqes == NULL)
		return -ENOMEM;
	if (o->stats_out != NULL && strcmp(o->stats_out, "-") == 0) {
		snprintf(s->path, sizeof(s->path), "-");
		s->f = stdout;
		return 0;
	}
	if (o->stats_out != NULL)
		snprintf(s->path, sizeof(s->path), "%s", o->stats_out);
	else
		snprintf(s->path, sizeof(s->path), "%s/stats.jsonl", o->out_dir);
	if ((s->f = fopen(s->path, "w")) == NULL) {
		int e = errno;

		snprintf(err, errlen, "%s: %s (--stats-out)", s->path, strerror(e));
		return -e;
	}
	s->own = true;
	return 0;
}

emu_ps_t ctl_run_stats_due(const struct ctl_run_state *r)
{
	const struct ctl_stats *s = r->stats;

	return s == NULL || s->cut_at != EMU_PS_NEVER ? EMU_PS_NEVER : s->last + s->ivl;
}

void ctl_run_stats_flush(struct ctl_run_state *r)
{
	struct ctl_stats *s = r->stats;

	if (s == NULL || s->used == 0)
		return;
	if (s->werr == 0 && (fwrite(s->buf, 1, s->used, s->f) != s->used || fflush(s->f) != 0))
		s->werr = errno ? errno : EIO;
	s->used = 0;
}

/* One line into the buffer, unless it would pass the limit: then the stream stops at @p t. */
static bool put(struct ctl_run_state *r, emu_ps_t t, const char *line, size_t n)
{
	struct ctl_stats *s = r->stats;

	if (s->cut_at != EMU_PS_NEVER)
		return false;
	if (s->limit != 0 && s->bytes + n > s->limit) {
		s->cut_at = t;
		s->cut_by = "RecordSizeLimit";
		fprintf(stderr, "uetemu: warning: the stats stream reached simulation.RecordSizeLimit (%llu B) at %.6f s "
			"simulated; no intervals after it (summary.json stats_stream)\n", (unsigned long long)s->limit,
			(double)t / 1e12);
		return false;
	}
	/* a file counts in the run's output budget (simulation.OutputSizeLimit), which says its own cut */
	if (s->own && !rec_budget_take(r->cfg->sim.budget, n, s->path, t)) {
		s->cut_at = t;
		s->cut_by = "OutputSizeLimit";
		return false;
	}
	if (STATS_BUF - s->used < n)
		ctl_run_stats_flush(r);
	memcpy(s->buf + s->used, line, n);
	s->used += n;
	s->bytes += n;
	s->objects++;
	return true;
}

static double bps(uint64_t bytes, emu_ps_t ps)
{
	return ps > 0 ? (double)bytes * 8.0 * 1e12 / (double)ps : 0.0;
}

/* What one flow's object says, and the interval it is in. */
struct flow_obj {
	emu_ps_t from, to, shown;
	const char *kind;          /* "message" or "connection" */
	uint32_t id, src, dst;
	uint64_t size;             /* a message's bytes; 0 for a connection */
	uint64_t bytes, rtx, wqes; /* in the interval (wqes: a connection's WQEs completed) */
	const struct port_nic_flow *fl; /* the NIC's figures, or NULL */
	bool completed;
};

static bool flow_put(struct ctl_run_state *r, const struct flow_obj *o)
{
	char line[STATS_LINE];
	int k = snprintf(line, sizeof(line),
			 "{\"type\":\"flow\",\"time_ps\":%llu,\"start_ps\":%llu,\"interval_ps\":%llu,\"kind\":\"%s\","
			 "\"flow\":%u,\"host\":\"%s\",\"dst\":\"%s\",",
			 (unsigned long long)o->to, (unsigned long long)o->from, (unsigned long long)o->shown, o->kind, o->id,
			 r->cfg->hosts[o->src].name, r->cfg->hosts[o->dst].name);

	if (o->size > 0 || o->kind[0] == 'm')
		k += snprintf(line + k, sizeof(line) - (size_t)k, "\"message_bytes\":%llu,", (unsigned long long)o->size);
	else
		k += snprintf(line + k, sizeof(line) - (size_t)k, "\"wqes\":%llu,", (unsigned long long)o->wqes);
	k += snprintf(line + k, sizeof(line) - (size_t)k, "\"bytes\":%llu,\"bits_per_second\":%.0f,\"retransmits\":%llu,",
		      (unsigned long long)o->bytes, bps(o->bytes, o->shown), (unsigned long long)o->rtx);
	if (o->fl != NULL && o->fl->cwnd > 0)
		k += snprintf(line + k, sizeof(line) - (size_t)k, "\"cwnd_bytes\":%llu,", (unsigned long long)o->fl->cwnd);
	else
		k += snprintf(line + k, sizeof(line) - (size_t)k, "\"cwnd_bytes\":null,");
	if (o->fl != NULL && o->fl->rate_bps > 0)
		k += snprintf(line + k, sizeof(line) - (size_t)k, "\"rate_bps\":%llu,", (unsigned long long)o->fl->rate_bps);
	if (o->fl != NULL && o->fl->rtt > 0)
		k += snprintf(line + k, sizeof(line) - (size_t)k, "\"rtt_ps\":%llu,", (unsigned long long)o->fl->rtt);
	else
		k += snprintf(line + k, sizeof(line) - (size_t)k, "\"rtt_ps\":null,");
	k += snprintf(line + k, sizeof(line) - (size_t)k, "\"completed\":%s}\n", o->completed ? "true" : "false");
	return put(r, o->to, line, (size_t)k);
}

/* The retransmissions since the last sample, from the NIC's count @p now and the one seen then, @p *last: a count
 * that went down started again (a RoCE queue pair's next message). */
static uint64_t rtx_delta(uint64_t now, uint64_t *last)
{
	uint64_t d = now >= *last ? now - *last : now;

	*last = now;
	return d;
}

/* The interval (@p from, @p to]: each message open in it, each ScalaRdma connection set up, then the totals. */
static void interval(struct ctl_run_state *r, emu_ps_t from, emu_ps_t to)
{
	struct ctl_stats *s = r->stats;
	/* the user's interval: wall time in real time */
	emu_ps_t shown = r->opts->mode == CTL_MODE_REALTIME && r->cfg->sim.time_scale > 1
				 ? (to - from) * r->cfg->sim.time_scale : to - from;
	uint64_t sum = 0, flows = 0, done_n = 0;
	char line[STATS_LINE];

	for (uint32_t i = 0; i < r->n_msgs; i++) {
		struct ctl_msg *m = &r->msgs[i];
		const struct port_nic *n = &r->hosts[m->m->src];
		bool completed = __atomic_load_n(&m->completed, __ATOMIC_RELAXED);
		struct port_nic_flow fl = { 0 };
		bool has = false;
		uint64_t cum = s->done[i], rtx = 0;

		done_n += completed;
		if (s->ended[i] || !__atomic_load_n(&m->posted, __ATOMIC_RELAXED))
			continue;
		if (n->ops->flow != NULL && n->ops->flow(n->dev, m->pdc, i, &fl) == 0) {
			has = true;
			cum = fl.acked_bytes > cum ? fl.acked_bytes : cum;
			rtx = rtx_delta(fl.retransmits, &s->rtx[i]);
		}
		if (completed) {
			cum = m->m->bytes;
			s->ended[i] = true;
		}
		struct flow_obj o = { .from = from, .to = to, .shown = shown, .kind = "message", .id = i,
				      .src = m->m->src, .dst = m->m->dst, .size = m->m->bytes, .bytes = cum - s->done[i],
				      .rtx = rtx, .fl = has ? &fl : NULL, .completed = completed };
		if (!flow_put(r, &o))
			return;
		s->done[i] = cum;
		sum += o.bytes, flows++;
	}
	for (uint32_t c = 0; c < s->n_conns; c++) {
		struct app_rdma_conn_view v;
		uint32_t k = r->n_msgs + c;

		if (!ctl_rdma_conn(r->rdma, c, &v) || !v.open)
			continue;
		const struct port_nic *n = &r->hosts[v.initiator];
		struct port_nic_flow fl = { 0 };
		bool has = n->ops->flow != NULL && n->ops->flow(n->dev, v.conn, CTL_RDMA_COOKIE | c, &fl) == 0;
		uint64_t cum = v.done * v.wqe_bytes + (has ? fl.acked_bytes : 0), rtx = 0;

		cum = cum > s->done[k] ? cum : s->done[k];
		if (has)
			rtx = rtx_delta(fl.retransmits, &s->rtx[k]);
		struct flow_obj o = { .from = from, .to = to, .shown = shown, .kind = "connection", .id = c,
				      .src = v.initiator, .dst = v.responder, .bytes = cum - s->done[k], .rtx = rtx,
				      .wqes = v.done - s->wqes[c], .fl = has ? &fl : NULL };
		if (!flow_put(r, &o))
			return;
		s->done[k] = cum;
		s->wqes[c] = v.done;
		sum += o.bytes, flows++;
	}
	uint64_t hr = hosts_rtx(r);
	int k = snprintf(line, sizeof(line),
			 "{\"type\":\"interval\",\"time_ps\":%llu,\"start_ps\":%llu,\"interval_ps\":%llu,\"flows\":%llu,"
			 "\"bytes\":%llu,\"bits_per_second\":%.0f,\"retransmits\":%llu,\"messages_completed\":%llu,"
			 "\"messages\":%u}\n",
			 (unsigned long long)to, (unsigned long long)from, (unsigned long long)shown,
			 (unsigned long long)flows, (unsigned long long)sum, bps(sum, shown),
			 (unsigned long long)(hr - s->host_rtx), (unsigned long long)done_n, r->n_msgs);

	if (put(r, to, line, (size_t)k))
		s->intervals++;
	s->host_rtx = hr;
}

void ctl_run_stats_sample(struct ctl_run_state *r, emu_ps_t t)
{
	struct ctl_stats *s = r->stats;

	while (s != NULL && s->cut_at == EMU_PS_NEVER && s->last + s->ivl <= t) {
		interval(r, s->last, s->last + s->ivl);
		s->last += s->ivl;
	}
}

int ctl_run_stats_close(struct ctl_run_state *r, emu_ps_t end, char *err, size_t errlen)
{
	struct ctl_stats *s = r->stats;

	if (s == NULL || s->f == NULL)
		return 0;
	ctl_run_stats_sample(r, end);
	if (s->cut_at == EMU_PS_NEVER && end > s->last) { /* the part of an interval the run ended in */
		interval(r, s->last, end);
		s->last = end;
	}
	ctl_run_stats_flush(r);
	if (s->own && fclose(s->f) != 0 && s->werr == 0)
		s->werr = errno ? errno : EIO;
	s->f = NULL;
	if (s->werr != 0) {
		if (err != NULL && errlen > 0 && err[0] == '\0')
			snprintf(err, errlen, "%s: %s (--stats-out)", s->path, strerror(s->werr));
		return -EIO;
	}
	return 0;
}

void ctl_run_stats_json(FILE *f, const struct ctl_run_state *r)
{
	const struct ctl_stats *s = r->stats;

	if (s == NULL)
		return;
	fprintf(f, "  \"stats_stream\": {\"path\": \"%s\", \"interval_ps\": %llu, \"clock\": \"%s\", \"intervals\": %llu, "
		"\"objects\": %llu, \"bytes\": %llu, \"limit_bytes\": %llu, \"cut\": %s, \"cut_at_ps\": ",
		s->path, (unsigned long long)s->wall_ivl, r->opts->mode == CTL_MODE_REALTIME ? "wall" : "emulated",
		(unsigned long long)s->intervals, (unsigned long long)s->objects, (unsigned long long)s->bytes,
		(unsigned long long)s->limit, s->cut_at != EMU_PS_NEVER ? "true" : "false");
	if (s->cut_at != EMU_PS_NEVER)
		fprintf(f, "%llu, \"cut_by\": \"%s\"},\n", (unsigned long long)s->cut_at, s->cut_by);
	else
		fputs("null},\n", f);
}

void ctl_run_stats_print(const struct ctl_run_state *r)
{
	const struct ctl_stats *s = r->stats;

	if (s == NULL)
		return;
	printf("stats stream: %s, %llu intervals of %.3f us (%s time), %llu objects, %llu B", s->path,
	       (unsigned long long)s->intervals, (double)s->wall_ivl / 1e6,
	       r->opts->mode == CTL_MODE_REALTIME ? "wall" : "emulated", (unsigned long long)s->objects,
	       (unsigned long long)s->bytes);
	if (s->cut_at != EMU_PS_NEVER)
		printf("; cut at simulation.%s at %.6f s", s->cut_by, (double)s->cut_at / 1e12);
	putchar('\n');
}

void ctl_run_stats_free(struct ctl_run_state *r)
{
	struct ctl_stats *s = r->stats;

	if (s == NULL)
		return;
	if (s->own && s->f != NULL)
		fclose(s->f);
	free(s->buf);
	free(s->done);
	free(s->rtx);
	free(s->ended);
	free(s->wqes);
	free(s);
	r->stats = NULL;
}
