/* When each periodic record falls due (the NICs' and the switches'), in time order: the one interface the run
 * calls. Each record is written by its own file, ctl_rec_<record>.c. */
#include "ctl_records.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ctl_rec_pvt.h"
#include "rec.h"

/* A periodic schedule: rows at origin + k x interval (k from 1), and at the run's end unless rows were just
 * written. */
struct ctl_rec_period {
	emu_ps_t origin;
	emu_ps_t interval;
	emu_ps_t last;               /* time of the last rows written, 0 before the first */
	uint64_t k;                  /* the next rows are the k-th */
};

struct ctl_records {
	const struct ctl_config *cfg;
	const struct port_nic *hosts; /* every host's NIC, cfg->n_hosts */
	struct ctl_roce_rec *rr;     /* roce-transport-stats and roce-rate-events, or NULL */
	struct ctl_transport *ts;    /* uet-transport-stats, or NULL */
	struct ctl_ndstats *nd;      /* nd-stats, or NULL */
	struct ctl_pfcstats *ep;     /* ecn-pfc-stats, or NULL */
	struct ctl_pcie *pcie;       /* pcie-stats, or NULL */
	struct ctl_netbuff *nb;      /* net-buff-stats, or NULL */
	struct ctl_monitor *mon;     /* uet-monitor, or NULL */
	struct ctl_swrec *sr;        /* the switches' ports (their nd, ep and trimming-stats rows), or NULL */
	struct ctl_swbuf *sb;        /* scala-switch-agg-buff-stats, or NULL */
	struct ctl_swportbuf *pb;    /* scala-switch-buff-stats, or NULL: sampled and written with sb */
	struct ctl_swlb *lb;         /* scala-switch-load-balancing-stats, or NULL */
	struct ctl_rec_period nd_p;  /* NDStatsReportInterval: ts, nd, ep, pcie, the switch ports' rows */
	struct ctl_rec_period nb_p;  /* NetworkBufferStatsReportingInterval: nb */
	struct ctl_rec_period sb_p;  /* BufferStatsReportInterval: sb and pb */
	struct ctl_rec_period smp_p; /* BufferStatsReportInterval / 1000: sb's and pb's samples */
	struct ctl_rec_period lb_p;  /* LoadBalancingStatsReportInterval: lb */
	emu_ps_t horizon;            /* when the run is expected to end (ctl_records_expect()), 0 unknown */
	uint64_t first_bytes;        /* bytes when rows first reached the files (headers and a round of rows) */
	emu_ps_t first_at;           /* when */
	bool projected;              /* the size projection was made (at the second round of rows, once) */
	emu_ps_t cut_at;             /* periodic rows stopped here at RecordSizeLimit; EMU_PS_NEVER while not */
	ctl_records_nd_fn nd_extra;  /* another module's nd-stats rows (the Chakra scale-up devices), or NULL */
	void *nd_extra_ctx;
};

/* Samples per BufferStatsReportInterval (docs/records.md, scala-switch-agg-buff-stats). */
#define CTL_REC_SB_SAMPLES 1000

/* The NDStatsReportInterval rows of time @p now, each record in FEP id order, then the new interval starts. */
static void nd_rows_write(struct ctl_records *rc, emu_ps_t now)
{
	ctl_transport_rows(rc->ts, now);
	ctl_roce_rec_rows(rc->rr, now);
	ctl_ndstats_rows(rc->nd, now, rc->nd_p.last);
	ctl_swrec_nd_rows(rc->sr, ctl_rec_nics_csv(rc->nd), now, rc->nd_p.last);
	if (rc->nd_extra != NULL && rc->nd != NULL)
		rc->nd_extra(rc->nd_extra_ctx, ctl_rec_nics_csv(rc->nd), now, rc->nd_p.last);
	ctl_pfcstats_rows(rc->ep, now, rc->nd_p.last);
	ctl_pcie_rows(rc->pcie, now, rc->nd_p.last);
	ctl_swrec_trim_rows(rc->sr, now);
	ctl_swrec_rows_done(rc->sr, now);
	rc->nd_p.last = now;
}

void ctl_records_nd_extra(struct ctl_records *rc, ctl_records_nd_fn fn, void *ctx)
{
	if (rc == NULL)
		return;
	rc->nd_extra = fn;
	rc->nd_extra_ctx = ctx;
}

static void nb_rows_write(struct ctl_records *rc, emu_ps_t now)
{
	ctl_netbuff_rows(rc->nb, now, rc->nb_p.last);
	rc->nb_p.last = now;
}

static bool nd_open(const struct ctl_records *rc)
{
	return rc->ts != NULL || rc->rr != NULL || rc->nd != NULL || rc->ep != NULL || rc->pcie != NULL ||
	       (rc->sr != NULL && rc->sr->trim != NULL);
}

/* Time of a schedule's next rows, or EMU_PS_NEVER when its records are closed or it has run out of time. */
static emu_ps_t period_due(const struct ctl_rec_period *p, bool open)
{
	if (!open || p->interval == 0 || p->k > (EMU_PS_NEVER - 1 - p->origin) / p->interval)
		return EMU_PS_NEVER;
	return p->origin + p->k * p->interval;
}

static emu_ps_t min_ps(emu_ps_t a, emu_ps_t b)
{
	return a < b ? a : b;
}

emu_ps_t ctl_records_due(const struct ctl_records *rc)
{
	if (rc == NULL || rc->cut_at != EMU_PS_NEVER)
		return EMU_PS_NEVER;
	emu_ps_t nd = period_due(&rc->nd_p, nd_open(rc)), nb = period_due(&rc->nb_p, rc->nb != NULL);
	emu_ps_t sb = period_due(&rc->sb_p, rc->sb != NULL), smp = period_due(&rc->smp_p, rc->sb != NULL);

	return min_ps(min_ps(nd, nb), min_ps(min_ps(sb, smp), period_due(&rc->lb_p, rc->lb != NULL)));
}

/* Take the buffer sample due at or before @p t, once: in real time several sample times may have passed. */
static void sample(struct ctl_records *rc, emu_ps_t t)
{
	ctl_swbuf_sample(rc->sb);
	ctl_swportbuf_sample(rc->pb);
	rc->smp_p.last = t;
	rc->smp_p.k = t / rc->smp_p.interval + 1;
}

/* Bytes every record file holds now (a few stream positions: once per round of rows, never per packet). */
static uint64_t records_bytes(const struct ctl_records *rc)
{
	struct rec_csv *f[] = {
		ctl_rec_nics_csv(rc->ts), ctl_rec_nics_csv(rc->nd), ctl_rec_nics_csv(rc->ep), ctl_rec_nics_csv(rc->pcie),
		ctl_rec_nics_csv(rc->nb), ctl_monitor_csv(rc->mon), ctl_rec_sws_csv(rc->sb), ctl_rec_sws_csv(rc->lb),
		ctl_rec_sws_csv(rc->pb),
		rc->sr != NULL ? rc->sr->trim : NULL,
	};
	uint64_t n = 0;

	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		n += rec_csv_bytes(f[i]);
	return n;
}

/*
 * The size budget (simulation.RecordSizeLimit), checked after each round of rows: at the second, warn when the
 * rows up to the run's expected end, at the rate since the first, would pass it; once passed, the periodic rows stop, said once on stderr.
 */
static void budget(struct ctl_records *rc, emu_ps_t now)
{
	uint64_t limit = rc->cfg->sim.record_size_limit, n;
	struct rec_budget *b = rc->cfg->sim.budget;

	if (b != NULL && !b->warned && now > 0) /* every output's bytes so far, projected (simulation.OutputSizeLimit) */
		rec_budget_expect(b, b->used, now, rc->horizon);
	if (limit == 0)
		return;
	n = records_bytes(rc);
	if (rc->first_bytes == 0 && n > 0 && now > 0) { /* the first rows (and the files' headers) reached the files */
		rc->first_bytes = n;
		rc->first_at = now;
	} else if (!rc->projected && rc->first_bytes > 0 && n > rc->first_bytes && now > rc->first_at) {
		/* from the second round on: the rows' bytes per ps since the first, to the run's expected end (headers
		 * counted once, and the records' own start, RecordStartTime, whatever it is) */
		rc->projected = true;
		unsigned __int128 want = n;
		if (rc->horizon > now)
			want += (unsigned __int128)(n - rc->first_bytes) * (rc->horizon - now) / (now - rc->first_at);
		if (want > limit)
			fprintf(stderr, "uetemu: warning: the records would take about %.1f MB by the run's end (%.6f s "
				"simulated); their periodic rows stop at simulation.RecordSizeLimit (%.1f MB): raise "
				"NDStatsReportInterval or RecordSizeLimit\n", (double)want / 1e6,
				(double)rc->horizon / 1e12, (double)limit / 1e6);
	}
	if (n >= limit) {
		rc->cut_at = now;
		fprintf(stderr, "uetemu: warning: the records reached simulation.RecordSizeLimit (%llu B) at %.6f s "
			"simulated; no periodic rows after it (summary.json records_cut_at_ps)\n",
			(unsigned long long)limit, (double)now / 1e12);
	}
}

void ctl_records_expect(struct ctl_records *rc, emu_ps_t end)
{
	if (rc != NULL)
		rc->horizon = end;
}

emu_ps_t ctl_records_cut_at(const struct ctl_records *rc)
{
	return rc != NULL ? rc->cut_at : EMU_PS_NEVER;
}

/* Whether the rows must stop: the run's outputs reached simulation.OutputSizeLimit or one failed (the rows stop
 * for good, as at RecordSizeLimit), or the run is asked to stop (a signal: the rows up to now are enough). */
static bool outputs_stop(struct ctl_records *rc, emu_ps_t due)
{
	const struct rec_budget *b = rc->cfg->sim.budget;

	if (b == NULL)
		return false;
	if (b->cut || b->err != 0) {
		rc->cut_at = due;
		return true;
	}
	return b->halt != NULL && *b->halt != 0;
}

void ctl_records_advance(struct ctl_records *rc, emu_ps_t t)
{
	for (emu_ps_t due = ctl_records_due(rc); due <= t && due != EMU_PS_NEVER; due = ctl_records_due(rc)) {
		if (outputs_stop(rc, due))
			break;
		/* schedules can fall due at one time: the buffer sample first (rows cover it), then each its own files */
		if (period_due(&rc->smp_p, rc->sb != NULL) == due)
			sample(rc, t);
		if (period_due(&rc->nd_p, nd_open(rc)) == due) {
			nd_rows_write(rc, due);
			rc->nd_p.k++;
		}
		if (period_due(&rc->nb_p, rc->nb != NULL) == due) {
			nb_rows_write(rc, due);
			rc->nb_p.k++;
		}
		if (period_due(&rc->sb_p, rc->sb != NULL) == due) {
			ctl_swbuf_rows(rc->sb, due);
			ctl_swportbuf_rows(rc->pb, due);
			rc->sb_p.last = due;
			rc->sb_p.k++;
		}
		if (period_due(&rc->lb_p, rc->lb != NULL) == due) {
			ctl_swlb_rows(rc->lb, due);
			rc->lb_p.last = due;
			rc->lb_p.k++;
		}
		if (rc->nd_p.last == due || rc->nb_p.last == due || rc->sb_p.last == due || rc->lb_p.last == due)
			budget(rc, due);
	}
}

bool ctl_records_want_trace(const struct ctl_config *cfg)
{
	const struct nic_params *p = &cfg->nic;

	return p->monitor_enable || p->trigger_rtt_enable || p->trigger_cwnd_pen;
}

void ctl_records_trace(void *arg, const struct nic_trace *tr)
{
	struct ctl_records *rc = arg;

	if (rc != NULL && rc->mon != NULL)
		ctl_monitor_trace(rc->mon, tr);
}

/* The switch-only records: scala-switch-agg-buff-stats (always, with switches: the page names no switch for it),
 * scala-switch-buff-stats (ReportPerPortBufferStats, default off; on sb's schedule) and
 * scala-switch-load-balancing-stats (EnableLoadBalancingStats, default on). */
static int open_switch_records(struct ctl_records *rc, const char *dir, int64_t epoch_s, char *err, size_t errlen)
{
	const struct ctl_config *cfg = rc->cfg;

	if (rc->sr == NULL)
		return 0;
	emu_ps_t bi = cfg->sw.buffer_stats_interval;
	rc->sb_p = (struct ctl_rec_period){ .interval = bi, .k = 1 };
	rc->smp_p = (struct ctl_rec_period){ .interval = bi / CTL_REC_SB_SAMPLES ? bi / CTL_REC_SB_SAMPLES : 1,
					     .k = 1 };
	rc->lb_p = (struct ctl_rec_period){ .interval = cfg->sw.lb_stats_interval, .k = 1 };
	if (bi != 0) {
		rc->sb = ctl_swbuf_open(cfg, rc->sr, dir, epoch_s, err, errlen);
		if (rc->sb == NULL)
			return -errno;
	}
	if (bi != 0 && cfg->sw.per_port_buffer_stats) {
		rc->pb = ctl_swportbuf_open(cfg, rc->sr, dir, epoch_s, err, errlen);
		if (rc->pb == NULL)
			return -errno;
	}
	if (cfg->sw.lb_stats_enabled) {
		rc->lb = ctl_swlb_open(cfg, rc->sr, dir, epoch_s, err, errlen);
		if (rc->lb == NULL)
			return -errno;
	}
	return 0;
}

/*
 * The NICs' periodic records (and the switch ports' rows that share nd-stats and ecn-pfc-stats with them) write
 * their first rows at their start + the interval: simulation.RecordStartTime when given; else, with a ScalaRdma
 * application, StartTime + ClientStartOffset, the start the UET NIC Records page gives (the application's own
 * timeline); else 0, so a message or Chakra workload that ends within a few ms still gets rows every interval.
 */
static emu_ps_t nic_origin(const struct ctl_config *cfg)
{
	if (cfg->record_start_set)
		return cfg->record_start;
	if (cfg->rdma_app >= 0)
		return cfg->timeline.start_time + cfg->timeline.client_start_offset;
	return 0;
}

void ctl_records_roce_rate(struct ctl_records *rc, uint32_t fep_id, uint32_t qpn, uint64_t bps, emu_ps_t now)
{
	if (rc != NULL)
		ctl_roce_rec_rate(rc->rr, fep_id, qpn, bps, now);
}

/* Whether some host's NIC is a UET NIC (@p roce false) or a RoCE NIC (true). */
static bool some_host(const struct ctl_records *rc, bool roce)
{
	for (uint32_t i = 0; i < rc->cfg->n_hosts; i++)
		if (roce ? port_nic_roce(&rc->hosts[i]) != NULL : port_nic_uet(&rc->hosts[i]) != NULL)
			return true;
	return false;
}

struct ctl_records *ctl_records_open(const struct ctl_config *cfg, const struct port_nic *hosts,
				     struct sw *const *sws, uint32_t n_sws, const struct net_topo *topo,
				     const char *dir, int64_t epoch_s, char *err, size_t errlen)
{
	struct ctl_records *rc = calloc(1, sizeof(*rc));
	int e;

	if (rc == NULL)
		goto nomem;
	rc->cfg = cfg;
	rc->cut_at = EMU_PS_NEVER;
	rc->hosts = hosts;
	rc->nd_p = (struct ctl_rec_period){ .origin = nic_origin(cfg), .interval = cfg->sim.nd_stats_interval, .k = 1 };
	rc->nb_p = (struct ctl_rec_period){ .origin = nic_origin(cfg), .interval = cfg->sim.net_buff_stats_interval,
					    .k = 1 };
	rc->sr = ctl_swrec_open(cfg, sws, n_sws, topo, dir, epoch_s, err, errlen);
	if (rc->sr == NULL && errno != 0)
		goto fail;
	/* a model's own records open when a host's NIC is of that model (port_nic_uet(), port_nic_roce()) */
	bool uet = some_host(rc, false), roce = some_host(rc, true);

	if (cfg->nic.enable_transport_stats && uet) {
		rc->ts = ctl_transport_open(cfg, hosts, dir, epoch_s, err, errlen);
		if (rc->ts == NULL)
			goto fail;
	}
	if (cfg->sim.enable_net_device_stat_logging) {
		rc->nd = ctl_ndstats_open(cfg, hosts, dir, epoch_s, err, errlen);
		if (rc->nd == NULL)
			goto fail;
	}
	if (cfg->sim.enable_pfc_ecn_stats_logging) {
		rc->ep = ctl_pfcstats_open(cfg, hosts, rc->sr, dir, epoch_s, err, errlen);
		if (rc->ep == NULL)
			goto fail;
	}
	if (cfg->sim.enable_pcie_stats_logging && uet) {
		rc->pcie = ctl_pcie_open(cfg, hosts, dir, epoch_s, err, errlen);
		if (rc->pcie == NULL)
			goto fail;
	}
	/* net-buff-stats needs both switches (uet-nic-records.md): with only one, no file; each model has its own */
	if (cfg->sim.enable_net_buff_stats &&
	    (uet ? cfg->nic.enable_buffer_stats : roce && cfg->roce.enable_buffer_stats)) {
		rc->nb = ctl_netbuff_open(cfg, hosts, dir, epoch_s, err, errlen);
		if (rc->nb == NULL)
			goto fail;
	}
	if (roce) {
		rc->rr = ctl_roce_rec_open(cfg, hosts, dir, epoch_s, err, errlen);
		if (rc->rr == NULL)
			goto fail;
	}
	if (ctl_records_want_trace(cfg) && uet) {
		rc->mon = ctl_monitor_open(cfg, dir, err, errlen);
		if (rc->mon == NULL)
			goto fail;
	}
	if (open_switch_records(rc, dir, epoch_s, err, errlen) < 0)
		goto fail;
	return rc;

nomem:
	snprintf(err, errlen, "out of memory opening the records");
	errno = ENOMEM;
fail:
	e = errno;
	ctl_records_close(rc, 0, err, errlen);
	errno = e;
	return NULL;
}

int ctl_records_close(struct ctl_records *rc, emu_ps_t end, char *err, size_t errlen)
{
	if (rc == NULL)
		return 0;
	if (rc->cut_at != EMU_PS_NEVER)
		end = 0; /* past the size budget: no last rows */
	if (nd_open(rc) && end > rc->nd_p.last)
		nd_rows_write(rc, end);
	if (rc->nb != NULL && end > rc->nb_p.last)
		nb_rows_write(rc, end);
	if (rc->sb != NULL && end > rc->sb_p.last) {
		if (end > rc->smp_p.last) { /* the last rows cover the state at the end */
			ctl_swbuf_sample(rc->sb);
			ctl_swportbuf_sample(rc->pb);
		}
		ctl_swbuf_rows(rc->sb, end);
		ctl_swportbuf_rows(rc->pb, end);
	}
	if (rc->lb != NULL && end > rc->lb_p.last) /* "a last row is written when the simulation ends" */
		ctl_swlb_rows(rc->lb, end);
	/* every record is closed whatever the others gave; the first failure is named in @p err */
	int e[] = {
		ctl_rec_nics_free(rc->ts, err, errlen),   ctl_rec_nics_free(rc->nd, err, errlen),
		ctl_rec_nics_free(rc->ep, err, errlen),   ctl_rec_nics_free(rc->pcie, err, errlen),
		ctl_rec_nics_free(rc->nb, err, errlen),   ctl_monitor_close(rc->mon, err, errlen),
		ctl_rec_sws_free(rc->sb, err, errlen),    ctl_rec_sws_free(rc->pb, err, errlen),
		ctl_rec_sws_free(rc->lb, err, errlen),
		ctl_swrec_close(rc->sr, err, errlen),     ctl_roce_rec_close(rc->rr, err, errlen),
	};
	int first = 0;

	for (size_t i = 0; i < sizeof(e) / sizeof(e[0]) && first == 0; i++)
		first = e[i];
	free(rc);
	return first;
}

void ctl_records_local(struct ctl_records *rc, const uint8_t *dev_local)
{
	/* each NIC record's writer starts with its struct ctl_rec_nics (ctl_rec.h) */
	void *w[] = { rc != NULL ? rc->ts : NULL, rc != NULL ? rc->nd : NULL, rc != NULL ? rc->ep : NULL,
		      rc != NULL ? rc->pcie : NULL, rc != NULL ? rc->nb : NULL };

	if (rc == NULL)
		return;
	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		if (w[i] != NULL)
			((struct ctl_rec_nics *)w[i])->local = dev_local;
	if (rc->sr != NULL)
		rc->sr->local = dev_local != NULL ? dev_local + rc->cfg->n_hosts : NULL;
}

/* Every record whose columns a schema declares, in the order docs/records.md lists them. */
static const struct ctl_rec_schema *const schemas[] = {
	&ctl_rec_ts_schema,  &ctl_rec_nd_schema,  &ctl_rec_mon_schema, &ctl_rec_ev_schema, &ctl_rec_ep_schema,
	&ctl_rec_nb_schema,  &ctl_rec_pcie_schema, &ctl_rec_trim_schema, &ctl_rec_sb_schema, &ctl_rec_pb_schema,
	&ctl_rec_lb_schema,  &ctl_rec_rt_schema,  &ctl_rec_rate_schema, &ctl_rec_rdma_perf_schema,
	&ctl_rec_beacon_schema, &ctl_rec_ck_hosts_schema, &ctl_rec_ck_map_schema, &ctl_rec_ck_apps_schema,
	&ctl_rec_ck_perf_schema, &ctl_rec_ck_completion_schema, &ctl_rec_ck_cdf_schema, &ctl_rec_flow_fct_schema,
};

int ctl_records_columns(FILE *out, const char *record)
{
	for (size_t i = 0; i < sizeof(schemas) / sizeof(schemas[0]); i++) {
		const struct ctl_rec_schema *s = schemas[i];

		if (record != NULL && strcmp(record, s->record) != 0)
			continue;
		if (record == NULL)
			fprintf(out, "%s ", s->record);
		for (uint32_t c = 0; c < s->n_cols; c++)
			fprintf(out, "%s%s", c ? "," : "", s->cols[c].name);
		fputc('\n', out);
		if (record != NULL)
			return 0;
	}
	return record != NULL ? -ENOENT : 0;
}
