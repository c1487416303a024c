/* uet-transport-stats: every NIC's transport counters, their interval differences and the NSCC samples, every
 * NDStatsReportInterval (docs/records.md). */
#include <assert.h>
#include <string.h>

#include "ctl_rec_pvt.h"

/*
 * uet-transport-stats (the Scala UET NIC page Records). The page says a row has 69 columns: time_utc, sim_time_sec,
 * component_name, fep_id (4); the 21 counters of its first table in the page's order, each followed by its ivl_
 * twin (42); the four sample blocks exactly as the page names them (4 + 5 + 5 + 5 = 19); the bytes-in-flight
 * block (4).
 */
enum ts_gauge { TS_G_NONE = 0, TS_G_OOO, TS_G_TX };

/* The counters in the page's order: X(column, gauge, NIC counters summed) (NIC_C_NONE, 0, where unused); a gauge
 * of nic_gauges() instead has its interval maximum as its ivl_ twin. total = write + ack + nack: base-RTT probes
 * are counted only in the probe columns. */
#define TS_COUNTERS(X) \
	X(total_pkts_sent, TS_G_NONE, NIC_C_WRITE_PKTS_SENT, NIC_C_ACK_PKTS_SENT, NIC_C_NACK_PKTS_SENT) \
	X(total_pkts_rcvd, TS_G_NONE, NIC_C_WRITE_PKTS_RCVD, NIC_C_ACK_PKTS_RCVD, NIC_C_NACK_PKTS_RCVD) \
	X(write_pkts_sent, TS_G_NONE, NIC_C_WRITE_PKTS_SENT, 0, 0) \
	X(write_pkts_rcvd, TS_G_NONE, NIC_C_WRITE_PKTS_RCVD, 0, 0) \
	X(ack_pkts_sent, TS_G_NONE, NIC_C_ACK_PKTS_SENT, 0, 0) \
	X(ack_pkts_rcvd, TS_G_NONE, NIC_C_ACK_PKTS_RCVD, 0, 0) \
	X(nack_pkts_sent, TS_G_NONE, NIC_C_NACK_PKTS_SENT, 0, 0) \
	X(nack_pkts_rcvd, TS_G_NONE, NIC_C_NACK_PKTS_RCVD, 0, 0) \
	X(wqes_created, TS_G_NONE, NIC_C_WQES_CREATED, 0, 0) \
	X(wqes_completed, TS_G_NONE, NIC_C_WQES_COMPLETED, 0, 0) \
	X(num_out_of_order_events_on_nic, TS_G_NONE, NIC_C_OOO_EVENTS, 0, 0) \
	X(max_out_of_order_on_flow, TS_G_OOO, 0, 0, 0) \
	X(num_dup_events_on_nic, TS_G_NONE, NIC_C_DUP_EVENTS, 0, 0) \
	X(probe_sent, TS_G_NONE, NIC_C_PROBE_SENT, 0, 0) \
	X(probe_ack_rcvd, TS_G_NONE, NIC_C_PROBE_ACK_RCVD, 0, 0) \
	X(num_rto, TS_G_NONE, NIC_C_NUM_RTO, 0, 0) \
	X(num_rtx, TS_G_NONE, NIC_C_NUM_RTX, 0, 0) \
	X(max_tx_count, TS_G_TX, 0, 0, 0) \
	X(m_marked_pkts_sent, TS_G_NONE, NIC_C_M_MARKED_PKTS_SENT, 0, 0) \
	X(m_marked_pkts_rcvd, TS_G_NONE, NIC_C_M_MARKED_PKTS_RCVD, 0, 0) \
	X(num_quick_adapt, TS_G_NONE, NIC_C_NUM_QUICK_ADAPT, 0, 0)

#define TS_ENUM(name, g, a, b, c) TS_K_##name,
enum ts_key { TS_COUNTERS(TS_ENUM) TS_N_COUNTERS };

struct ts_counter {
	uint8_t c[3];   /* NIC counters summed; NIC_C_NONE (0) = unused */
	uint8_t gauge;  /* enum ts_gauge */
};

#define TS_TABLE(name, g, a, b, c) [TS_K_##name] = { { a, b, c }, g },
static const struct ts_counter ts_counters[TS_N_COUNTERS] = { TS_COUNTERS(TS_TABLE) };

enum ts_stat { TS_MIN = 0, TS_MEAN, TS_MAX };

/* The sample columns, X(name, kind, over the interval, statistic): whichever of min, mean (avg) and max comes
 * first in a name is its statistic, and the interval's names start ivl_ (checked at open). */
#define TS_SAMPLES(X) \
	X(ivl_calc_min_rcvr_cwnd_pen, NIC_S_RCVR_CWND_PEN, 1, TS_MIN) \
	X(calc_mean_rcvr_cwnd_pen, NIC_S_RCVR_CWND_PEN, 0, TS_MEAN) \
	X(ivl_calc_mean_rcvr_cwnd_pen, NIC_S_RCVR_CWND_PEN, 1, TS_MEAN) \
	X(ivl_calc_max_rcvr_cwnd_pen, NIC_S_RCVR_CWND_PEN, 1, TS_MAX) \
	X(calc_min_cwnd_bytes, NIC_S_CWND_BYTES, 0, TS_MIN) \
	X(ivl_calc_min_cwnd_bytes, NIC_S_CWND_BYTES, 1, TS_MIN) \
	X(calc_mean_cwnd_bytes, NIC_S_CWND_BYTES, 0, TS_MEAN) \
	X(ivl_calc_mean_cwnd_bytes, NIC_S_CWND_BYTES, 1, TS_MEAN) \
	X(ivl_calc_max_cwnd_bytes, NIC_S_CWND_BYTES, 1, TS_MAX) \
	X(ivl_min_calc_avg_q_delay_usec, NIC_S_AVG_Q_DELAY_PS, 1, TS_MIN) \
	X(avg_calc_avg_q_delay_usec, NIC_S_AVG_Q_DELAY_PS, 0, TS_MEAN) \
	X(ivl_avg_calc_avg_q_delay_usec, NIC_S_AVG_Q_DELAY_PS, 1, TS_MEAN) \
	X(max_calc_avg_q_delay_usec, NIC_S_AVG_Q_DELAY_PS, 0, TS_MAX) \
	X(ivl_max_calc_avg_q_delay_usec, NIC_S_AVG_Q_DELAY_PS, 1, TS_MAX) \
	X(ivl_min_calc_rtt_usec, NIC_S_RTT_PS, 1, TS_MIN) \
	X(max_calc_rtt_usec, NIC_S_RTT_PS, 0, TS_MAX) \
	X(ivl_max_calc_rtt_usec, NIC_S_RTT_PS, 1, TS_MAX) \
	X(avg_calc_rtt_usec, NIC_S_RTT_PS, 0, TS_MEAN) \
	X(ivl_avg_calc_rtt_usec, NIC_S_RTT_PS, 1, TS_MEAN) \
	X(ivl_calc_min_bytes_in_flight, NIC_S_BYTES_IN_FLIGHT, 1, TS_MIN) \
	X(calc_mean_bytes_in_flight, NIC_S_BYTES_IN_FLIGHT, 0, TS_MEAN) \
	X(ivl_calc_mean_bytes_in_flight, NIC_S_BYTES_IN_FLIGHT, 1, TS_MEAN) \
	X(ivl_calc_max_bytes_in_flight, NIC_S_BYTES_IN_FLIGHT, 1, TS_MAX)

/* A sample column's getter argument: kind | ivl << 8 | stat << 16. */
#define TS_SARG(kind, ivl, stat) ((uint32_t)(kind) | (uint32_t)(ivl) << 8 | (uint32_t)(stat) << 16)

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

/* The writer: per NIC its counters at the previous rows (prev). */
struct ctl_transport {
	struct ctl_rec_nics w;
};

/* One row: a NIC, its counters now and at the previous rows, its gauges and samples. */
struct ts_row {
	const char *name;
	uint64_t fep_id;
	const uint64_t *c, *p;
	struct nic_gauges g;
	struct nic_sample cum[NIC_S_COUNT], ivl[NIC_S_COUNT];
};

static uint64_t ts_value(const uint64_t *c, const struct ts_counter *tc)
{
	uint64_t v = 0;

	for (int j = 0; j < 3; j++)
		v += tc->c[j] != NIC_C_NONE ? c[tc->c[j]] : 0;
	return v;
}

/* Counter @p arg (enum ts_key) since the start. */
static void ts_cum(const void *row, uint32_t arg, struct ctl_rec_val *v)
{
	const struct ts_row *r = row;
	const struct ts_counter *tc = &ts_counters[arg];

	v->u = tc->gauge == TS_G_OOO ? r->g.max_ooo_on_flow : tc->gauge == TS_G_TX ? r->g.max_tx_count
										    : ts_value(r->c, tc);
}

/* Its ivl_ twin: the interval's difference, or a gauge's interval maximum. */
static void ts_ivl(const void *row, uint32_t arg, struct ctl_rec_val *v)
{
	const struct ts_row *r = row;
	const struct ts_counter *tc = &ts_counters[arg];

	v->u = tc->gauge == TS_G_OOO ? r->g.ivl_max_ooo_on_flow
	       : tc->gauge == TS_G_TX ? r->g.ivl_max_tx_count
				      : ts_value(r->c, tc) - ts_value(r->p, tc);
}

/* A sample column (@p arg TS_SARG()). Times (ps) are written in us with 6 decimals; the rest as counted. No
 * samples: 0. */
static void ts_sample(const void *row, uint32_t arg, struct ctl_rec_val *v)
{
	const struct ts_row *r = row;
	uint32_t kind = arg & 0xff, stat = arg >> 16;
	const struct nic_sample *s = (arg >> 8 & 0xff) ? &r->ivl[kind] : &r->cum[kind];
	bool ps = kind == NIC_S_AVG_Q_DELAY_PS || kind == NIC_S_RTT_PS;

	if (s->n == 0) {
		v->fmt = CTL_REC_F_U64;
		v->u = 0;
	} else if (stat == TS_MEAN) {
		double mean = (double)s->sum / (double)s->n;

		v->fmt = CTL_REC_F_DBL;
		v->digits = ps ? 6 : 3;
		v->d = ps ? mean / 1e6 : mean;
	} else {
		v->fmt = ps ? CTL_REC_F_FIXED : CTL_REC_F_U64;
		v->digits = 6;
		v->u = stat == TS_MIN ? s->min : s->max;
	}
}

#define TS_COL_PAIR(name, g, a, b, c) CTL_REC_COL(#name, U64, 0, ts_cum, TS_K_##name), \
				      CTL_REC_COL("ivl_" #name, U64, 0, ts_ivl, TS_K_##name),
#define TS_COL_SAMPLE(name, kind, ivl, stat) CTL_REC_COL(#name, U64, 0, ts_sample, TS_SARG(kind, ivl, stat)),

/*
 * uet-transport-stats (the Scala UET NIC page Records). The page says a row has 69 columns: time_utc, sim_time_sec,
 * component_name, fep_id (4); the 21 counters of its first table in the page's order, each followed by its ivl_
 * twin (42); the four sample blocks exactly as the page names them (4 + 5 + 5 + 5 = 19); the bytes-in-flight
 * block (4).
 */
static const struct ctl_rec_col ts_cols[] = {
	CTL_REC_COLS_OPEN(struct ts_row),
	CTL_REC_COL_U64("fep_id", struct ts_row, fep_id),
	TS_COUNTERS(TS_COL_PAIR)
	TS_SAMPLES(TS_COL_SAMPLE)
};
const struct ctl_rec_schema ctl_rec_ts_schema = CTL_REC_SCHEMA("uet-transport-stats", ts_cols);
_Static_assert(sizeof(ts_cols) / sizeof(ts_cols[0]) == 69, "uet-transport-stats has 69 columns");

#ifndef NDEBUG
/* Programmer check of the naming rule of the sample columns. */
static void ts_check_names(void)
{
	for (uint32_t i = 0; i < ctl_rec_ts_schema.n_cols; i++) {
		const struct ctl_rec_col *c = &ctl_rec_ts_schema.cols[i];

		if (c->get != ts_sample)
			continue;
		assert(stat_of_name(c->name) == (int)(c->arg >> 16));
		assert((strncmp(c->name, "ivl_", 4) == 0) == ((c->arg >> 8 & 0xff) != 0));
	}
}
#endif

static void ts_row(struct ctl_transport *rc, struct nic *nic, uint32_t i, emu_ps_t now)
{
	const uint64_t (*prev)[NIC_C_COUNT] = rc->w.prev;
	struct ts_row r = { .name = nic_name(nic), .fep_id = nic_fep_id(nic), .c = nic_counters(nic), .p = prev[i] };

	nic_samples(nic, r.cum, r.ivl);
	nic_gauges(nic, &r.g);
	ctl_rec_row(rc->w.csv, &ctl_rec_ts_schema, &r, now);
}

struct ctl_transport *ctl_transport_open(const struct ctl_config *cfg, const struct port_nic *hosts,
					 const char *dir, int64_t epoch_s, char *err, size_t errlen)
{
#ifndef NDEBUG
	ts_check_names();
#endif
	return ctl_rec_nics_new(sizeof(struct ctl_transport), sizeof(uint64_t[NIC_C_COUNT]), cfg, hosts, dir,
				&ctl_rec_ts_schema, epoch_s, err, errlen);
}

void ctl_transport_rows(struct ctl_transport *t, emu_ps_t now)
{
	if (t == NULL)
		return;
	uint64_t (*prev)[NIC_C_COUNT] = t->w.prev;

	for (uint32_t i = 0; i < t->w.n_hosts; i++) {
		struct nic *nic = port_nic_uet(&t->w.hosts[i]); /* the UET NIC's record: other models have no row */

		if (nic == NULL || !ctl_rec_nic_here(&t->w, i))
			continue;
		ts_row(t, nic, i, now);
		nic_interval_reset(nic);
		memcpy(prev[i], nic_counters(nic), sizeof(prev[i]));
	}
}

