/* The Scala RoCE NIC's own records: roce-transport-stats (its transport page, Records the transport writes) every
 * NDStatsReportInterval, and uetemu's roce-rate-events, one row per change of a queue pair's allowed rate. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ctl_rec_pvt.h"

/* A roce-transport-stats row: the counters now and at the previous rows (struct ctl_rec_cur: the arrays), the
 * RTT samples. */
struct rt_row {
	struct ctl_rec_cur c;
	const char *name;
	uint64_t node_id;
	struct roce_rtt rtt;
};

/* The RTT columns, us with 6 decimals: @p arg 0 the interval's minimum, 1 the maximum, 2 the interval's, 3 the
 * mean, 4 the interval's (0 without samples). */
static void rt_rtt(const void *row, uint32_t arg, struct ctl_rec_val *v)
{
	const struct roce_rtt *s = &((const struct rt_row *)row)->rtt;
	const uint64_t val[5] = { s->ivl_n ? s->ivl_min : 0, s->max, s->ivl_max, s->n ? s->sum / s->n : 0,
				  s->ivl_n ? s->ivl_sum / s->ivl_n : 0 };

	v->u = val[arg];
}

/* num_rx_drops (@p arg 0) and its ivl_ twin (1): the four reasons of the columns after it added up. */
static void rt_drops(const void *row, uint32_t arg, struct ctl_rec_val *v)
{
	static const int k[] = { ROCE_C_RX_DROPS_NO_QP_DATA, ROCE_C_RX_DROPS_NO_QP_CTRL, ROCE_C_RX_DROPS_AFTER_NAK,
				 ROCE_C_RX_DROPS_GHOST_ACK };
	const uint64_t *c = ((const struct rt_row *)row)->c.cur, *p = ((const struct rt_row *)row)->c.prev;

	v->u = 0;
	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++)
		v->u += arg ? c[k[i]] - p[k[i]] : c[k[i]];
}

/* simulation-output-files.md, RoCE Transport Statistics: 74 columns. The model has no atomic operations and no
 * selective acknowledgements (those pairs read 0), and no reorder buffer: the receiver discards behind a gap. */
static const struct ctl_rec_col rt_cols[] = {
	CTL_REC_COLS_OPEN(struct rt_row),
	CTL_REC_COL_NODE_ID(struct rt_row),
	CTL_REC_COL_CTR_PAIR(num_pkts_sent, ROCE_C_PKTS_SENT),
	CTL_REC_COL_CTR_PAIR(num_verb_pkts_sent, ROCE_C_VERB_PKTS_SENT),
	CTL_REC_COL_CTR_PAIR(num_non_verb_pkts_sent, ROCE_C_NON_VERB_PKTS_SENT),
	CTL_REC_COL_CTR_PAIR(num_conn_pkts_sent, ROCE_C_CONN_PKTS_SENT),
	CTL_REC_COL_CTR_PAIR(num_conn_pkts_recvd, ROCE_C_CONN_PKTS_RECVD),
	CTL_REC_COL_CTR_PAIR(rdma_write_cnt, ROCE_C_RDMA_WRITE_CNT),
	CTL_REC_COL_CTR_PAIR(rdma_send_cnt, ROCE_C_RDMA_SEND_CNT),
	CTL_REC_COL_ZERO_PAIR(rdma_atomic_cnt),
	CTL_REC_COL_CTR_PAIR(num_acks_sent, ROCE_C_ACKS_SENT),
	CTL_REC_COL_CTR_PAIR(num_acks_recvd, ROCE_C_ACKS_RECVD),
	CTL_REC_COL_ZERO_PAIR(num_sacks_sent),
	CTL_REC_COL_ZERO_PAIR(num_sacks_recvd),
	CTL_REC_COL_CTR_PAIR(num_nacks_sent, ROCE_C_NACKS_SENT),
	CTL_REC_COL_CTR_PAIR(num_nacks_recvd, ROCE_C_NACKS_RECVD),
	CTL_REC_COL_CTR_PAIR(num_writes_recvd, ROCE_C_WRITES_RECVD),
	CTL_REC_COL_CTR_PAIR(num_sends_recvd, ROCE_C_SENDS_RECVD),
	CTL_REC_COL_CTR_PAIR(num_cnp_sent, ROCE_C_CNP_SENT),
	CTL_REC_COL_CTR_PAIR(num_cnp_recvd, ROCE_C_CNP_RECVD),
	CTL_REC_COL_CTR_PAIR(num_seq_out_of_order, ROCE_C_SEQ_OUT_OF_ORDER),
	CTL_REC_COL_CTR_PAIR(num_duplicate, ROCE_C_DUPLICATE),
	CTL_REC_COL_CONST("ivl_min_size_reorder_buf_psn", "0"),
	CTL_REC_COL_CONST("max_size_reorder_buf_psn", "0"),
	CTL_REC_COL_CONST("ivl_max_size_reorder_buf_psn", "0"),
	CTL_REC_COL_CONST("avg_size_reorder_buf_psn", "0.000000"),
	CTL_REC_COL_CONST("ivl_avg_size_reorder_buf_psn", "0.000000"),
	CTL_REC_COL_CTR_PAIR(num_wqe_created, ROCE_C_WQE_CREATED),
	CTL_REC_COL_CTR_PAIR(num_wqe_completed, ROCE_C_WQE_COMPLETED),
	CTL_REC_COL_CTR_PAIR(num_rtx, ROCE_C_RTX),
	CTL_REC_COL_CTR_PAIR(num_rto, ROCE_C_RTO),
	CTL_REC_COL("ivl_min_calc_rtt_usec", FIXED, 6, rt_rtt, 0),
	CTL_REC_COL("max_calc_rtt_usec", FIXED, 6, rt_rtt, 1),
	CTL_REC_COL("ivl_max_calc_rtt_usec", FIXED, 6, rt_rtt, 2),
	CTL_REC_COL("avg_calc_rtt_usec", FIXED, 6, rt_rtt, 3),
	CTL_REC_COL("ivl_avg_calc_rtt_usec", FIXED, 6, rt_rtt, 4),
	CTL_REC_COL("num_rx_drops", U64, 0, rt_drops, 0),
	CTL_REC_COL("ivl_num_rx_drops", U64, 0, rt_drops, 1),
	CTL_REC_COL_CTR_PAIR(num_rx_drops_no_qp_data, ROCE_C_RX_DROPS_NO_QP_DATA),
	CTL_REC_COL_CTR_PAIR(num_rx_drops_no_qp_ctrl, ROCE_C_RX_DROPS_NO_QP_CTRL),
	CTL_REC_COL_CTR_PAIR(num_rx_drops_after_nak, ROCE_C_RX_DROPS_AFTER_NAK),
	CTL_REC_COL_CTR_PAIR(num_rx_drops_ghost_ack, ROCE_C_RX_DROPS_GHOST_ACK),
	CTL_REC_COL_CTR_PAIR(num_tx_payload_discards, ROCE_C_TX_PAYLOAD_DISCARDS),
};
const struct ctl_rec_schema ctl_rec_rt_schema = CTL_REC_SCHEMA("roce-transport-stats", rt_cols);
_Static_assert(sizeof(rt_cols) / sizeof(rt_cols[0]) == 74, "roce-transport-stats has 74 columns");

/* A roce-rate-events row: a queue pair's allowed rate changed. */
struct rate_row {
	const char *name;
	uint64_t node_id, qpn, bps;
};

static const struct ctl_rec_col rate_cols[] = {
	CTL_REC_COLS_OPEN(struct rate_row),
	CTL_REC_COL_NODE_ID(struct rate_row),
	CTL_REC_COL_U64("qpn", struct rate_row, qpn),
	CTL_REC_COL_FIXED("rate_Gbps", 9, struct rate_row, bps),
};
const struct ctl_rec_schema ctl_rec_rate_schema = CTL_REC_SCHEMA("roce-rate-events", rate_cols);

struct ctl_roce_rec {
	const struct port_nic *hosts; /* every host's NIC: the RoCE NICs' rows (port_nic_roce()) */
	uint32_t n;
	struct rec_csv *ts;            /* roce-transport-stats, or NULL */
	struct rec_csv *rate;          /* roce-rate-events, or NULL */
	uint64_t (*prev)[ROCE_C_COUNT];
	const struct ctl_config *cfg;
};

struct ctl_roce_rec *ctl_roce_rec_open(const struct ctl_config *cfg, const struct port_nic *hosts,
				       const char *dir, int64_t epoch_s, char *err, size_t errlen)
{
	struct ctl_roce_rec *t = calloc(1, sizeof(*t));

	if (t == NULL || (t->prev = calloc(cfg->n_hosts ? cfg->n_hosts : 1, sizeof(*t->prev))) == NULL) {
		free(t);
		snprintf(err, errlen, "out of memory opening the RoCE records");
		errno = ENOMEM;
		return NULL;
	}
	t->cfg = cfg;
	t->hosts = hosts;
	t->n = cfg->n_hosts;
	if (!cfg->enable_roce_transport_stats)
		return t;
	t->ts = ctl_rec_schema_open(cfg, dir, &ctl_rec_rt_schema, epoch_s, err, errlen);
	t->rate = t->ts != NULL ? ctl_rec_schema_open(cfg, dir, &ctl_rec_rate_schema, epoch_s, err, errlen) : NULL;
	if (t->rate == NULL) {
		int e = errno;

		ctl_roce_rec_close(t, NULL, 0);
		errno = e;
		return NULL;
	}
	return t;
}

static void rt_row(struct ctl_roce_rec *t, struct roce *r, uint32_t i, emu_ps_t now)
{
	struct rt_row row = { .c = { roce_counters(r), t->prev[i] }, .name = roce_name(r), .node_id = roce_fep_id(r) };

	roce_rtt(r, &row.rtt);
	ctl_rec_row(t->ts, &ctl_rec_rt_schema, &row, now);
}

void ctl_roce_rec_rows(struct ctl_roce_rec *t, emu_ps_t now)
{
	if (t == NULL || t->ts == NULL)
		return;
	for (uint32_t i = 0; i < t->n; i++) {
		struct roce *r = port_nic_roce(&t->hosts[i]); /* the RoCE NIC's record: other models have no row */

		if (r == NULL)
			continue;
		rt_row(t, r, i, now);
		memcpy(t->prev[i], roce_counters(r), sizeof(t->prev[i]));
		roce_interval_reset(r);
	}
}

void ctl_roce_rec_rate(struct ctl_roce_rec *t, uint32_t fep_id, uint32_t qpn, uint64_t bps, emu_ps_t now)
{
	if (t == NULL || t->rate == NULL)
		return;
	struct rate_row row = { .name = t->cfg->hosts[fep_id].name, .node_id = fep_id, .qpn = qpn, .bps = bps };

	ctl_rec_row(t->rate, &ctl_rec_rate_schema, &row, now);
}

int ctl_roce_rec_close(struct ctl_roce_rec *t, char *err, size_t errlen)
{
	if (t == NULL)
		return 0;
	int a = rec_csv_close(t->ts, err, errlen), b = rec_csv_close(t->rate, a == 0 ? err : NULL, errlen);

	free(t->prev);
	free(t);
	return a != 0 ? a : b;
}
