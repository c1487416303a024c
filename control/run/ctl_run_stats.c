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
	uint64_t intervals, objects;
	int werr;                 /* errno of the first failed write, or 0 */
	uint64_t *done;           /* per message: its bytes counted so far */
	uint64_t *rtx;            /* per message: its retransmissions counted so far */
	bool *ended;              /* per message: its last interval written */
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
	s->done = calloc(r->n_msgs ? r->n_msgs : 1, sizeof(*s->done));
	s->rtx = calloc(r->n_msgs ? r->n_msgs : 1, sizeof(*s->rtx));
	s->ended = calloc(r->n_msgs ? r->n_msgs : 1, sizeof(*s->ended));
	if (s->buf == NULL || s->done == NULL || s->rtx == NULL || s->ended == NULL)
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
		fprintf(stderr, "uetemu: warning: the stats stream reached simulation.RecordSizeLimit (%llu B) at %.6f s "
			"simulated; no intervals after it (summary.json stats_stream)\n", (unsigned long long)s->limit,
			(double)t / 1e12);
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

/* The interval (@p from, @p to]: each message open in it, then the totals. */
static void interval(struct ctl_run_state *r, emu_ps_t from, emu_ps_t to)
{
	struct ctl_stats *s = r->stats;
	emu_ps_t len = to - from;
	/* the user's interval: wall time in real time */
	emu_ps_t shown = r->opts->mode == CTL_MODE_REALTIME && r->cfg->sim.time_scale > 1 ? len * r->cfg->sim.time_scale
											    : len;
	uint64_t sum = 0, flows = 0, done_n = 0;
	char line[STATS_LINE];

	for (uint32_t i = 0; i < r->n_msgs; i++) {
		struct ctl_msg *m = &r->msgs[i];
		const struct port_nic *n = &r->hosts[m->m->src];
		bool completed = __atomic_load_n(&m->completed, __ATOMIC_RELAXED);
		struct port_nic_flow fl = { 0 };
		bool has = false;
		uint64_t cum = s->done[i], rtx = s->rtx[i];

		done_n += completed;
		if (s->ended[i] || !__atomic_load_n(&m->posted, __ATOMIC_RELAXED))
			continue;
		if (n->ops->flow != NULL && n->ops->flow(n->dev, m->pdc, i, &fl) == 0) {
			has = true;
			cum = fl.acked_bytes > cum ? fl.acked_bytes : cum;
			rtx = fl.retransmits > rtx ? fl.retransmits : rtx;
		}
		if (completed) {
			cum = m->m->bytes;
			s->ended[i] = true;
		}
		uint64_t d = cum - s->done[i], dr = rtx - s->rtx[i];
		int k = snprintf(line, sizeof(line),
				 "{\"type\":\"flow\",\"time_ps\":%llu,\"start_ps\":%llu,\"interval_ps\":%llu,\"flow\":%u,"
				 "\"host\":\"%s\",\"dst\":\"%s\",\"message_bytes\":%llu,\"bytes\":%llu,"
				 "\"bits_per_second\":%.0f,\"retransmits\":%llu,",
				 (unsigned long long)to, (unsigned long long)from, (unsigned long long)shown, i,
				 r->cfg->hosts[m->m->src].name, r->cfg->hosts[m->m->dst].name,
				 (unsigned long long)m->m->bytes, (unsigned long long)d, bps(d, shown),
				 (unsigned long long)dr);
		if (has && fl.cwnd > 0)
			k += snprintf(line + k, sizeof(line) - (size_t)k, "\"cwnd_bytes\":%llu,",
				      (unsigned long long)fl.cwnd);
		else
			k += snprintf(line + k, sizeof(line) - (size_t)k, "\"cwnd_bytes\":null,");
		if (has && fl.rate_bps > 0)
			k += snprintf(line + k, sizeof(line) - (size_t)k, "\"rate_bps\":%llu,",
				      (unsigned long long)fl.rate_bps);
		if (has && fl.rtt > 0)
			k += snprintf(line + k, sizeof(line) - (size_t)k, "\"rtt_ps\":%llu,", (unsigned long long)fl.rtt);
		else
			k += snprintf(line + k, sizeof(line) - (size_t)k, "\"rtt_ps\":null,");
		k += snprintf(line + k, sizeof(line) - (size_t)k, "\"completed\":%s}\n", completed ? "true" : "false");
		if (!put(r, to, line, (size_t)k))
			return;
		s->done[i] = cum, s->rtx[i] = rtx;
		sum += d, flows++;
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
		fprintf(f, "%llu},\n", (unsigned long long)s->cut_at);
	else
		fputs("null},\n", f);
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
	free(s);
	r->stats = NULL;
}
