/* The periodic records: uet-transport-stats and nd-stats, when each periodic record (the NICs' and the switches')
 * falls due, and the shared number formats. */
#include "ctl_records.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ctl_rec_pvt.h"
#include "rec.h"

/*
 * uet-transport-stats (spec/scala/uet-nic-records.md). The page says a row has 69 columns: time_utc, sim_time_sec,
 * component_name, fep_id (4); the 21 counters of its first table in the page's order, each followed by its ivl_
 * twin (42); the four sample blocks exactly as the page names them (4 + 5 + 5 + 5 = 19); the bytes-in-flight
 * block (4).
 */
enum ts_gauge { TS_G_NONE = 0, TS_G_OOO, TS_G_TX };

struct ts_counter {
	const char *name;
	uint8_t c[3];   /* NIC counters summed; NIC_C_NONE (0) = unused */
	uint8_t gauge;  /* a gauge of nic_gauges() instead, whose ivl_ twin is its interval maximum */
};

static const struct ts_counter ts_counters[] = {
	/* total = write + ack + nack: base-RTT probes are counted only in the probe columns */
	{ "total_pkts_sent", { NIC_C_WRITE_PKTS_SENT, NIC_C_ACK_PKTS_SENT, NIC_C_NACK_PKTS_SENT }, TS_G_NONE },
	{ "total_pkts_rcvd", { NIC_C_WRITE_PKTS_RCVD, NIC_C_ACK_PKTS_RCVD, NIC_C_NACK_PKTS_RCVD }, TS_G_NONE },
	{ "write_pkts_sent", { NIC_C_WRITE_PKTS_SENT }, TS_G_NONE },
	{ "write_pkts_rcvd", { NIC_C_WRITE_PKTS_RCVD }, TS_G_NONE },
	{ "ack_pkts_sent", { NIC_C_ACK_PKTS_SENT }, TS_G_NONE },
	{ "ack_pkts_rcvd", { NIC_C_ACK_PKTS_RCVD }, TS_G_NONE },
	{ "nack_pkts_sent", { NIC_C_NACK_PKTS_SENT }, TS_G_NONE },
	{ "nack_pkts_rcvd", { NIC_C_NACK_PKTS_RCVD }, TS_G_NONE },
	{ "wqes_created", { NIC_C_WQES_CREATED }, TS_G_NONE },
	{ "wqes_completed", { NIC_C_WQES_COMPLETED }, TS_G_NONE },
	{ "num_out_of_order_events_on_nic", { NIC_C_OOO_EVENTS }, TS_G_NONE },
	{ "max_out_of_order_on_flow", { 0 }, TS_G_OOO },
	{ "num_dup_events_on_nic", { NIC_C_DUP_EVENTS }, TS_G_NONE },
	{ "probe_sent", { NIC_C_PROBE_SENT }, TS_G_NONE },
	{ "probe_ack_rcvd", { NIC_C_PROBE_ACK_RCVD }, TS_G_NONE },
	{ "num_rto", { NIC_C_NUM_RTO }, TS_G_NONE },
	{ "num_rtx", { NIC_C_NUM_RTX }, TS_G_NONE },
	{ "max_tx_count", { 0 }, TS_G_TX },
	{ "m_marked_pkts_sent", { NIC_C_M_MARKED_PKTS_SENT }, TS_G_NONE },
	{ "m_marked_pkts_rcvd", { NIC_C_M_MARKED_PKTS_RCVD }, TS_G_NONE },
	{ "num_quick_adapt", { NIC_C_NUM_QUICK_ADAPT }, TS_G_NONE },
};
#define TS_N_COUNTERS (sizeof(ts_counters) / sizeof(ts_counters[0]))

enum ts_stat { TS_MIN = 0, TS_MEAN, TS_MAX };

/* One sample column: whichever of min, mean (avg) and max comes first in its name is its statistic. */
struct ts_sample {
	const char *name;
	uint8_t kind;  /* enum nic_sample_kind */
	uint8_t ivl;   /* over the interval (else since the start) */
	uint8_t stat;  /* enum ts_stat */
};

static const struct ts_sample ts_samples[] = {
	{ "ivl_calc_min_rcvr_cwnd_pen", NIC_S_RCVR_CWND_PEN, 1, TS_MIN },
	{ "calc_mean_rcvr_cwnd_pen", NIC_S_RCVR_CWND_PEN, 0, TS_MEAN },
	{ "ivl_calc_mean_rcvr_cwnd_pen", NIC_S_RCVR_CWND_PEN, 1, TS_MEAN },
	{ "ivl_calc_max_rcvr_cwnd_pen", NIC_S_RCVR_CWND_PEN, 1, TS_MAX },
	{ "calc_min_cwnd_bytes", NIC_S_CWND_BYTES, 0, TS_MIN },
	{ "ivl_calc_min_cwnd_bytes", NIC_S_CWND_BYTES, 1, TS_MIN },
	{ "calc_mean_cwnd_bytes", NIC_S_CWND_BYTES, 0, TS_MEAN },
	{ "ivl_calc_mean_cwnd_bytes", NIC_S_CWND_BYTES, 1, TS_MEAN },
	{ "ivl_calc_max_cwnd_bytes", NIC_S_CWND_BYTES, 1, TS_MAX },
	{ "ivl_min_calc_avg_q_delay_usec", NIC_S_AVG_Q_DELAY_PS, 1, TS_MIN },
	{ "avg_calc_avg_q_delay_usec", NIC_S_AVG_Q_DELAY_PS, 0, TS_MEAN },
	{ "ivl_avg_calc_avg_q_delay_usec", NIC_S_AVG_Q_DELAY_PS, 1, TS_MEAN },
	{ "max_calc_avg_q_delay_usec", NIC_S_AVG_Q_DELAY_PS, 0, TS_MAX },
	{ "ivl_max_calc_avg_q_delay_usec", NIC_S_AVG_Q_DELAY_PS, 1, TS_MAX },
	{ "ivl_min_calc_rtt_usec", NIC_S_RTT_PS, 1, TS_MIN },
	{ "max_calc_rtt_usec", NIC_S_RTT_PS, 0, TS_MAX },
	{ "ivl_max_calc_rtt_usec", NIC_S_RTT_PS, 1, TS_MAX },
	{ "avg_calc_rtt_usec", NIC_S_RTT_PS, 0, TS_MEAN },
	{ "ivl_avg_calc_rtt_usec", NIC_S_RTT_PS, 1, TS_MEAN },
	{ "ivl_calc_min_bytes_in_flight", NIC_S_BYTES_IN_FLIGHT, 1, TS_MIN },
	{ "calc_mean_bytes_in_flight", NIC_S_BYTES_IN_FLIGHT, 0, TS_MEAN },
	{ "ivl_calc_mean_bytes_in_flight", NIC_S_BYTES_IN_FLIGHT, 1, TS_MEAN },
	{ "ivl_calc_max_bytes_in_flight", NIC_S_BYTES_IN_FLIGHT, 1, TS_MAX },
};
#define TS_N_SAMPLES (sizeof(ts_samples) / sizeof(ts_samples[0]))

#define TS_N_ID_COLUMNS 4
_Static_assert(TS_N_ID_COLUMNS + 2 * TS_N_COUNTERS + TS_N_SAMPLES == 69, "uet-transport-stats has 69 columns");

/* nd-stats (spec/scala/simulation-output-files.md, Network Device Statistics): 22 columns. */
#define ND_STATS_HEADER \
	"time_utc,sim_time_sec,component_name,nd_name,component_type,ifid,uldl,node_id,tier,subtier," \
	"total_packets_tx,total_packets_rx,total_bytes_tx_GB,total_bytes_rx_GB,interval_bytes_tx_MB," \
	"interval_bytes_rx_MB,tx_rate_Gbps,rx_rate_Gbps,tx_link_percent_util,rx_link_percent_util,tx_drops,rx_drops"
#define ND_NAME "ScalaUETNicNetDevice"

/* A periodic schedule: rows at k x interval (k from 1), and at the run's end unless rows were just written. */
struct ctl_rec_period {
	emu_ps_t interval;
	emu_ps_t last;               /* time of the last rows written, 0 before the first */
	uint64_t k;                  /* the next rows are the k-th */
};

struct ctl_records {
	const struct ctl_config *cfg;
	struct nic *const *nics;
	uint32_t n_nics;
	struct rec_csv *ts;          /* uet-transport-stats, or NULL */
	struct rec_csv *nd;          /* nd-stats, or NULL */
	struct ctl_pfcstats *ep;     /* ecn-pfc-stats, or NULL */
	struct ctl_pcie *pcie;       /* pcie-stats, or NULL */
	struct ctl_netbuff *nb;      /* net-buff-stats, or NULL */
	struct ctl_monitor *mon;     /* uet-monitor, or NULL */
	struct ctl_swrec *sr;        /* the switches' ports (their nd, ep and trimming-stats rows), or NULL */
	struct ctl_swbuf *sb;        /* scala-switch-agg-buff-stats, or NULL */
	struct ctl_swlb *lb;         /* scala-switch-load-balancing-stats, or NULL */
	uint64_t (*prev)[NIC_C_COUNT]; /* per NIC: its counters when the last nd rows were written */
	struct ctl_rec_period nd_p;  /* NDStatsReportInterval: ts, nd, ep, pcie, the switch ports' rows */
	struct ctl_rec_period nb_p;  /* NetworkBufferStatsReportingInterval: nb */
	struct ctl_rec_period sb_p;  /* BufferStatsReportInterval: sb */
	struct ctl_rec_period smp_p; /* BufferStatsReportInterval / 1000: sb's samples */
	struct ctl_rec_period lb_p;  /* LoadBalancingStatsReportInterval: lb */
};

/* Samples per BufferStatsReportInterval (docs/records.md, scala-switch-agg-buff-stats). */
#define CTL_REC_SB_SAMPLES 1000

#ifndef NDEBUG
/* Programmer check of the naming rule of the sample columns: the first of min / mean / avg / max in a name. */
static int stat_of_name(const char *name)
{
	const char *words[] = { "min", "mean", "avg", "max" };
	const int stats[] = { TS_MIN, TS_MEAN, TS_MEAN, TS_MAX };
	const char *best = NULL;
	int stat = -1;

	for (int i = 0; i < 4; i++) {
		const char *p = strstr(name, words[i]);
		if (p != NULL && (best == NULL || p < best)) {
			best = p;
			stat = stats[i];
		}
	}
	return stat;
}
#endif

/* Build the transport-stats header into @p buf (sized for it: 69 names of at most 40 characters). */
static void ts_header(char *buf, size_t len)
{
	size_t n = (size_t)snprintf(buf, len, "time_utc,sim_time_sec,component_name,fep_id");

	for (size_t i = 0; i < TS_N_COUNTERS && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, ",%s,ivl_%s", ts_counters[i].name, ts_counters[i].name);
	for (size_t i = 0; i < TS_N_SAMPLES && n < len; i++) {
		assert(stat_of_name(ts_samples[i].name) == ts_samples[i].stat);
		assert((strncmp(ts_samples[i].name, "ivl_", 4) == 0) == ts_samples[i].ivl);
		n += (size_t)snprintf(buf + n, len - n, ",%s", ts_samples[i].name);
	}
	assert(n < len);
}

static uint64_t ts_value(const uint64_t *c, const struct ts_counter *tc)
{
	uint64_t v = 0;

	for (int j = 0; j < 3; j++)
		v += tc->c[j] != NIC_C_NONE ? c[tc->c[j]] : 0;
	return v;
}

/* One sample column. Times (ps) are written in us with 6 decimals; the rest as counted. No samples: 0. */
static void put_sample(FILE *f, const struct ts_sample *ts, const struct nic_sample *cum, const struct nic_sample *ivl)
{
	const struct nic_sample *s = ts->ivl ? &ivl[ts->kind] : &cum[ts->kind];
	bool ps = ts->kind == NIC_S_AVG_Q_DELAY_PS || ts->kind == NIC_S_RTT_PS;

	fputc(',', f);
	if (s->n == 0) {
		fputc('0', f);
	} else if (ts->stat == TS_MEAN) {
		double mean = (double)s->sum / (double)s->n;
		if (ps)
			fprintf(f, "%.6f", mean / 1e6);
		else
			fprintf(f, "%.3f", mean);
	} else {
		uint64_t v = ts->stat == TS_MIN ? s->min : s->max;
		if (ps)
			ctl_rec_put_fixed(f, v, 6);
		else
			fprintf(f, "%llu", (unsigned long long)v);
	}
}

static void ts_row(struct ctl_records *rc, uint32_t i, emu_ps_t now)
{
	struct nic *nic = rc->nics[i];
	FILE *f = rec_csv_file(rc->ts);
	const uint64_t *c = nic_counters(nic);
	struct nic_sample cum[NIC_S_COUNT], ivl[NIC_S_COUNT];
	struct nic_gauges g;

	nic_samples(nic, cum, ivl);
	nic_gauges(nic, &g);
	ctl_rec_row_head(rc->ts, now);
	fprintf(f, ",%s,%u", nic_name(nic), nic_fep_id(nic));
	for (size_t k = 0; k < TS_N_COUNTERS; k++) {
		const struct ts_counter *tc = &ts_counters[k];
		uint64_t v, d;
		if (tc->gauge == TS_G_OOO) {
			v = g.max_ooo_on_flow;
			d = g.ivl_max_ooo_on_flow;
		} else if (tc->gauge == TS_G_TX) {
			v = g.max_tx_count;
			d = g.ivl_max_tx_count;
		} else {
			v = ts_value(c, tc);
			d = v - ts_value(rc->prev[i], tc);
		}
		fprintf(f, ",%llu,%llu", (unsigned long long)v, (unsigned long long)d);
	}
	for (size_t k = 0; k < TS_N_SAMPLES; k++)
		put_sample(f, &ts_samples[k], cum, ivl);
	fputc('\n', f);
}

/* Gb/s of @p bytes over @p dt ps (bits per ps are Tb/s). */
static double gbps(uint64_t bytes, emu_ps_t dt)
{
	return dt ? (double)bytes * 8.0 * 1000.0 / (double)dt : 0.0;
}

static void nd_row(struct ctl_records *rc, uint32_t i, emu_ps_t now)
{
	struct nic *nic = rc->nics[i];
	FILE *f = rec_csv_file(rc->nd);
	const uint64_t *c = nic_counters(nic), *p = rc->prev[i];
	uint64_t tx = c[NIC_C_PORT_TX_FRAME_BYTES], rx = c[NIC_C_PORT_RX_FRAME_BYTES];
	uint64_t dtx = tx - p[NIC_C_PORT_TX_FRAME_BYTES], drx = rx - p[NIC_C_PORT_RX_FRAME_BYTES];
	emu_ps_t dt = now - rc->nd_p.last;
	double link_gbps = (double)nic_link_bps(nic) / 1e9;

	ctl_rec_row_head(rc->nd, now);
	fprintf(f, ",%s,%s,%s,0,ul,%u,%d,%u,%llu,%llu,", nic_name(nic), ND_NAME, CTL_REC_COMPONENT_TYPE,
		nic_fep_id(nic), CTL_REC_TIER_NIC, CTL_REC_SUBTIER_NONE, (unsigned long long)c[NIC_C_PORT_TX_FRAMES],
		(unsigned long long)c[NIC_C_PORT_RX_FRAMES]);
	ctl_rec_put_fixed(f, tx, 9);
	fputc(',', f);
	ctl_rec_put_fixed(f, rx, 9);
	fputc(',', f);
	ctl_rec_put_fixed(f, dtx, 6);
	fputc(',', f);
	ctl_rec_put_fixed(f, drx, 6);
	double rtx = gbps(dtx, dt), rrx = gbps(drx, dt);
	fprintf(f, ",%.6f,%.6f,%.6f,%.6f,%llu,%llu\n", rtx, rrx, link_gbps > 0 ? 100.0 * rtx / link_gbps : 0.0,
		link_gbps > 0 ? 100.0 * rrx / link_gbps : 0.0, (unsigned long long)c[NIC_C_DROP_TX_CTL_POOL_FULL],
		(unsigned long long)c[NIC_C_DROP_RX_POOL_FULL]);
}

/* The NDStatsReportInterval rows of time @p now, each record in FEP id order, then the new interval starts. */
static void nd_rows_write(struct ctl_records *rc, emu_ps_t now)
{
	for (uint32_t i = 0; i < rc->n_nics; i++) {
		if (rc->ts != NULL) {
			ts_row(rc, i, now);
			nic_interval_reset(rc->nics[i]);
		}
		if (rc->nd != NULL)
			nd_row(rc, i, now);
		memcpy(rc->prev[i], nic_counters(rc->nics[i]), sizeof(rc->prev[i]));
	}
	ctl_swrec_nd_rows(rc->sr, rc->nd, now, rc->nd_p.last);
	ctl_pfcstats_rows(rc->ep, now, rc->nd_p.last);
	ctl_pcie_rows(rc->pcie, now, rc->nd_p.last);
	ctl_swrec_trim_rows(rc->sr, now);
	ctl_swrec_rows_done(rc->sr, now);
	rc->nd_p.last = now;
}

static void nb_rows_write(struct ctl_records *rc, emu_ps_t now)
{
	ctl_netbuff_rows(rc->nb, now, rc->nb_p.last);
	rc->nb_p.last = now;
}

static bool nd_open(const struct ctl_records *rc)
{
	return rc->ts != NULL || rc->nd != NULL || rc->ep != NULL || rc->pcie != NULL ||
	       (rc->sr != NULL && rc->sr->trim != NULL);
}

/* Time of a schedule's next rows, or EMU_PS_NEVER when its records are closed or it has run out of time. */
static emu_ps_t period_due(const struct ctl_rec_period *p, bool open)
{
	if (!open || p->interval == 0 || p->k > (EMU_PS_NEVER - 1) / p->interval)
		return EMU_PS_NEVER;
	return p->k * p->interval;
}

static emu_ps_t min_ps(emu_ps_t a, emu_ps_t b)
{
	return a < b ? a : b;
}

emu_ps_t ctl_records_due(const struct ctl_records *rc)
{
	if (rc == NULL)
		return EMU_PS_NEVER;
	emu_ps_t nd = period_due(&rc->nd_p, nd_open(rc)), nb = period_due(&rc->nb_p, rc->nb != NULL);
	emu_ps_t sb = period_due(&rc->sb_p, rc->sb != NULL), smp = period_due(&rc->smp_p, rc->sb != NULL);

	return min_ps(min_ps(nd, nb), min_ps(min_ps(sb, smp), period_due(&rc->lb_p, rc->lb != NULL)));
}

/* Take the buffer sample due at or before @p t, once: in real time several sample times may have passed. */
static void sample(struct ctl_records *rc, emu_ps_t t)
{
	ctl_swbuf_sample(rc->sb);
	rc->smp_p.last = t;
	rc->smp_p.k = t / rc->smp_p.interval + 1;
}

void ctl_records_advance(struct ctl_records *rc, emu_ps_t t)
{
	for (emu_ps_t due = ctl_records_due(rc); due <= t && due != EMU_PS_NEVER; due = ctl_records_due(rc)) {
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
			rc->sb_p.last = due;
			rc->sb_p.k++;
		}
		if (period_due(&rc->lb_p, rc->lb != NULL) == due) {
			ctl_swlb_rows(rc->lb, due);
			rc->lb_p.last = due;
			rc->lb_p.k++;
		}
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

/* The switch-only records: scala-switch-agg-buff-stats (always, with switches: the page names no switch for it)
 * and scala-switch-load-balancing-stats (EnableLoadBalancingStats, default on). */
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
	if (cfg->sw.lb_stats_enabled) {
		rc->lb = ctl_swlb_open(cfg, rc->sr, dir, epoch_s, err, errlen);
		if (rc->lb == NULL)
			return -errno;
	}
	return 0;
}

struct ctl_records *ctl_records_open(const struct ctl_config *cfg, struct nic *const *nics, struct sw *const *sws,
				     uint32_t n_sws, const struct net_topo *topo, const char *dir, int64_t epoch_s,
				     char *err, size_t errlen)
{
	struct ctl_records *rc = calloc(1, sizeof(*rc));
	char header[4096];
	int e;

	if (rc == NULL)
		goto nomem;
	rc->cfg = cfg;
	rc->nics = nics;
	rc->n_nics = cfg->n_hosts;
	rc->nd_p = (struct ctl_rec_period){ .interval = cfg->sim.nd_stats_interval, .k = 1 };
	rc->nb_p = (struct ctl_rec_period){ .interval = cfg->sim.net_buff_stats_interval, .k = 1 };
	rc->prev = calloc(cfg->n_hosts ? cfg->n_hosts : 1, sizeof(*rc->prev));
	if (rc->prev == NULL)
		goto nomem;
	rc->sr = ctl_swrec_open(cfg, sws, n_sws, topo, dir, epoch_s, err, errlen);
	if (rc->sr == NULL && errno != 0)
		goto fail;
	if (cfg->nic.enable_transport_stats) {
		ts_header(header, sizeof(header));
		rc->ts = ctl_rec_csv_open(cfg, dir, "uet-transport-stats", header, epoch_s, err, errlen);
		if (rc->ts == NULL)
			goto fail;
	}
	if (cfg->sim.enable_net_device_stat_logging) {
		rc->nd = ctl_rec_csv_open(cfg, dir, "nd-stats", ND_STATS_HEADER, epoch_s, err, errlen);
		if (rc->nd == NULL)
			goto fail;
	}
	if (cfg->sim.enable_pfc_ecn_stats_logging) {
		rc->ep = ctl_pfcstats_open(cfg, nics, rc->sr, dir, epoch_s, err, errlen);
		if (rc->ep == NULL)
			goto fail;
	}
	if (cfg->sim.enable_pcie_stats_logging) {
		rc->pcie = ctl_pcie_open(cfg, nics, dir, epoch_s, err, errlen);
		if (rc->pcie == NULL)
			goto fail;
	}
	/* net-buff-stats needs both switches (uet-nic-records.md): with only one, no file */
	if (cfg->nic.enable_buffer_stats && cfg->sim.enable_net_buff_stats) {
		rc->nb = ctl_netbuff_open(cfg, nics, dir, epoch_s, err, errlen);
		if (rc->nb == NULL)
			goto fail;
	}
	if (ctl_records_want_trace(cfg)) {
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
	ctl_records_close(rc, 0);
	errno = e;
	return NULL;
}

int ctl_records_close(struct ctl_records *rc, emu_ps_t end)
{
	if (rc == NULL)
		return 0;
	if (nd_open(rc) && end > rc->nd_p.last)
		nd_rows_write(rc, end);
	if (rc->nb != NULL && end > rc->nb_p.last)
		nb_rows_write(rc, end);
	if (rc->sb != NULL && end > rc->sb_p.last) {
		if (end > rc->smp_p.last) /* the last rows cover the state at the end */
			ctl_swbuf_sample(rc->sb);
		ctl_swbuf_rows(rc->sb, end);
	}
	if (rc->lb != NULL && end > rc->lb_p.last) /* "a last row is written when the simulation ends" */
		ctl_swlb_rows(rc->lb, end);
	int err = 0;
	if (rec_csv_close(rc->ts) < 0)
		err = -EIO;
	if (rec_csv_close(rc->nd) < 0)
		err = -EIO;
	if (ctl_pfcstats_close(rc->ep) < 0)
		err = -EIO;
	if (ctl_pcie_close(rc->pcie) < 0)
		err = -EIO;
	if (ctl_netbuff_close(rc->nb) < 0)
		err = -EIO;
	if (ctl_monitor_close(rc->mon) < 0)
		err = -EIO;
	if (ctl_swbuf_close(rc->sb) < 0)
		err = -EIO;
	if (ctl_swlb_close(rc->lb) < 0)
		err = -EIO;
	if (ctl_swrec_close(rc->sr) < 0)
		err = -EIO;
	free(rc->prev);
	free(rc);
	return err;
}
