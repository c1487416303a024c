/* uet-transport-stats: every NIC's transport counters, their interval differences and the NSCC samples, every
 * NDStatsReportInterval (docs/records.md). */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ctl_rec_pvt.h"

/*
 * uet-transport-stats (the Scala UET NIC page Records). The page says a row has 69 columns: time_utc, sim_time_sec,
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

struct ctl_transport {
	struct ctl_rec_nics w;        /* first: the NICs, the file, prev (the same array as the typed prev) */
	uint64_t (*prev)[NIC_C_COUNT]; /* per NIC: its counters at the previous rows */
};

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

	rec_put_ch(f, ',');
	if (s->n == 0) {
		rec_put_ch(f, '0');
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
			rec_put_u64(f, v);
	}
}

static void ts_row(struct ctl_transport *rc, uint32_t i, emu_ps_t now)
{
	struct nic *nic = rc->w.nics[i];
	FILE *f = rec_csv_file(rc->w.csv);
	const uint64_t *c = nic_counters(nic);
	struct nic_sample cum[NIC_S_COUNT], ivl[NIC_S_COUNT];
	struct nic_gauges g;

	nic_samples(nic, cum, ivl);
	nic_gauges(nic, &g);
	ctl_rec_row_head(rc->w.csv, now);
	rec_put_ch(f, ',');
	rec_put_str(f, nic_name(nic));
	rec_put_cu64(f, nic_fep_id(nic));
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
		rec_put_cu64(f, v);
		rec_put_cu64(f, d);
	}
	for (size_t k = 0; k < TS_N_SAMPLES; k++)
		put_sample(f, &ts_samples[k], cum, ivl);
	rec_put_ch(f, '\n');
}

struct ctl_transport *ctl_transport_open(const struct ctl_config *cfg, struct nic *const *nics, const char *dir,
					 int64_t epoch_s, char *err, size_t errlen)
{
	char header[4096];

	ts_header(header, sizeof(header));
	struct ctl_transport *t = ctl_rec_nics_new(sizeof(*t), sizeof(*t->prev), cfg, nics, dir,
						   "uet-transport-stats", header, epoch_s, err, errlen);

	if (t == NULL)
		return NULL;
	t->prev = t->w.prev;
	return t;
}

void ctl_transport_rows(struct ctl_transport *t, emu_ps_t now)
{
	if (t == NULL)
		return;
	for (uint32_t i = 0; i < t->w.n_nics; i++) {
		if (!ctl_rec_nic_here(&t->w, i))
			continue;
		ts_row(t, i, now);
		nic_interval_reset(t->w.nics[i]);
		memcpy(t->prev[i], nic_counters(t->w.nics[i]), sizeof(t->prev[i]));
	}
}

int ctl_transport_close(struct ctl_transport *t, char *err, size_t errlen)
{
	return ctl_rec_nics_free(t != NULL ? &t->w : NULL, err, errlen);
}
