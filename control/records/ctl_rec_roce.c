/* The Scala RoCE NIC's own records: roce-transport-stats (its transport page, Records the transport writes) every
 * NDStatsReportInterval, and uetemu's roce-rate-events, one row per change of a queue pair's allowed rate. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ctl_rec_pvt.h"

/* simulation-output-files.md, RoCE Transport Statistics: 74 columns (tests/scenario/test_roce.py checks them). */
#define RT_HEADER \
	"time_utc,sim_time_sec,component_name,node_id,num_pkts_sent,ivl_num_pkts_sent,num_verb_pkts_sent," \
	"ivl_num_verb_pkts_sent,num_non_verb_pkts_sent,ivl_num_non_verb_pkts_sent,num_conn_pkts_sent," \
	"ivl_num_conn_pkts_sent,num_conn_pkts_recvd,ivl_num_conn_pkts_recvd,rdma_write_cnt,ivl_rdma_write_cnt," \
	"rdma_send_cnt,ivl_rdma_send_cnt,rdma_atomic_cnt,ivl_rdma_atomic_cnt,num_acks_sent,ivl_num_acks_sent," \
	"num_acks_recvd,ivl_num_acks_recvd,num_sacks_sent,ivl_num_sacks_sent,num_sacks_recvd,ivl_num_sacks_recvd," \
	"num_nacks_sent,ivl_num_nacks_sent,num_nacks_recvd,ivl_num_nacks_recvd,num_writes_recvd," \
	"ivl_num_writes_recvd,num_sends_recvd,ivl_num_sends_recvd,num_cnp_sent,ivl_num_cnp_sent,num_cnp_recvd," \
	"ivl_num_cnp_recvd,num_seq_out_of_order,ivl_num_seq_out_of_order,num_duplicate,ivl_num_duplicate," \
	"ivl_min_size_reorder_buf_psn,max_size_reorder_buf_psn,ivl_max_size_reorder_buf_psn," \
	"avg_size_reorder_buf_psn,ivl_avg_size_reorder_buf_psn,num_wqe_created,ivl_num_wqe_created," \
	"num_wqe_completed,ivl_num_wqe_completed,num_rtx,ivl_num_rtx,num_rto,ivl_num_rto,ivl_min_calc_rtt_usec," \
	"max_calc_rtt_usec,ivl_max_calc_rtt_usec,avg_calc_rtt_usec,ivl_avg_calc_rtt_usec,num_rx_drops," \
	"ivl_num_rx_drops,num_rx_drops_no_qp_data,ivl_num_rx_drops_no_qp_data,num_rx_drops_no_qp_ctrl," \
	"ivl_num_rx_drops_no_qp_ctrl,num_rx_drops_after_nak,ivl_num_rx_drops_after_nak,num_rx_drops_ghost_ack," \
	"ivl_num_rx_drops_ghost_ack,num_tx_payload_discards,ivl_num_tx_payload_discards"
#define RATE_HEADER "time_utc,sim_time_sec,component_name,node_id,qpn,rate_Gbps"

/* The counter pairs (cumulative, interval) in column order; -1 for the columns the model keeps at 0 (atomic
 * operations, selective acknowledgements: it has none). The reorder-buffer and RTT columns come between. */
static const int rt_first[] = {
	ROCE_C_PKTS_SENT, ROCE_C_VERB_PKTS_SENT, ROCE_C_NON_VERB_PKTS_SENT, ROCE_C_CONN_PKTS_SENT,
	ROCE_C_CONN_PKTS_RECVD, ROCE_C_RDMA_WRITE_CNT, ROCE_C_RDMA_SEND_CNT, -1, ROCE_C_ACKS_SENT, ROCE_C_ACKS_RECVD, -1,
	-1, ROCE_C_NACKS_SENT, ROCE_C_NACKS_RECVD, ROCE_C_WRITES_RECVD, ROCE_C_SENDS_RECVD, ROCE_C_CNP_SENT,
	ROCE_C_CNP_RECVD, ROCE_C_SEQ_OUT_OF_ORDER, ROCE_C_DUPLICATE,
};
static const int rt_mid[] = { ROCE_C_WQE_CREATED, ROCE_C_WQE_COMPLETED, ROCE_C_RTX, ROCE_C_RTO };
#define RT_N(a) (sizeof(a) / sizeof((a)[0]))

static const int rt_drops[] = { ROCE_C_RX_DROPS_NO_QP_DATA, ROCE_C_RX_DROPS_NO_QP_CTRL, ROCE_C_RX_DROPS_AFTER_NAK,
				ROCE_C_RX_DROPS_GHOST_ACK };

struct ctl_roce_rec {
	struct roce *const *roces;
	uint32_t n;
	struct rec_csv *ts;            /* roce-transport-stats, or NULL */
	struct rec_csv *rate;          /* roce-rate-events, or NULL */
	uint64_t (*prev)[ROCE_C_COUNT];
	const struct ctl_config *cfg;
};

struct ctl_roce_rec *ctl_roce_rec_open(const struct ctl_config *cfg, struct roce *const *roces, const char *dir,
				       int64_t epoch_s, char *err, size_t errlen)
{
	struct ctl_roce_rec *t = calloc(1, sizeof(*t));

	if (t == NULL || (t->prev = calloc(cfg->n_hosts ? cfg->n_hosts : 1, sizeof(*t->prev))) == NULL) {
		free(t);
		snprintf(err, errlen, "out of memory opening the RoCE records");
		errno = ENOMEM;
		return NULL;
	}
	t->cfg = cfg;
	t->roces = roces;
	t->n = cfg->n_hosts;
	if (!cfg->enable_roce_transport_stats)
		return t;
	t->ts = ctl_rec_csv_open(cfg, dir, "roce-transport-stats", RT_HEADER, epoch_s, err, errlen);
	t->rate = t->ts != NULL ? ctl_rec_csv_open(cfg, dir, "roce-rate-events", RATE_HEADER, epoch_s, err, errlen)
				: NULL;
	if (t->rate == NULL) {
		int e = errno;

		ctl_roce_rec_close(t, NULL, 0);
		errno = e;
		return NULL;
	}
	return t;
}

static void pairs(FILE *f, const uint64_t *c, const uint64_t *p, const int *k, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(f, ",%llu,%llu", k[i] < 0 ? 0ULL : (unsigned long long)c[k[i]],
			k[i] < 0 ? 0ULL : (unsigned long long)(c[k[i]] - p[k[i]]));
}

static void usec(FILE *f, uint64_t ps)
{
	fputc(',', f);
	ctl_rec_put_fixed(f, ps, 6);
}

static void rt_row(struct ctl_roce_rec *t, uint32_t i, emu_ps_t now)
{
	struct roce *r = t->roces[i];
	const uint64_t *c = roce_counters(r), *p = t->prev[i];
	FILE *f = rec_csv_file(t->ts);
	struct roce_rtt s;
	uint64_t drops = 0, ivl_drops = 0;

	roce_rtt(r, &s);
	ctl_rec_row_head(t->ts, now);
	fprintf(f, ",%s,%u", roce_name(r), roce_fep_id(r));
	pairs(f, c, p, rt_first, RT_N(rt_first));
	fputs(",0,0,0,0.000000,0.000000", f); /* no reorder buffer: the receiver discards behind a gap */
	pairs(f, c, p, rt_mid, RT_N(rt_mid));
	usec(f, s.ivl_n ? s.ivl_min : 0);
	usec(f, s.max);
	usec(f, s.ivl_max);
	usec(f, s.n ? s.sum / s.n : 0);
	usec(f, s.ivl_n ? s.ivl_sum / s.ivl_n : 0);
	for (size_t k = 0; k < RT_N(rt_drops); k++) { /* num_rx_drops: the four reasons below added up */
		drops += c[rt_drops[k]];
		ivl_drops += c[rt_drops[k]] - p[rt_drops[k]];
	}
	fprintf(f, ",%llu,%llu", (unsigned long long)drops, (unsigned long long)ivl_drops);
	pairs(f, c, p, rt_drops, RT_N(rt_drops));
	pairs(f, c, p, (const int[]){ ROCE_C_TX_PAYLOAD_DISCARDS }, 1);
	fputc('\n', f);
}

void ctl_roce_rec_rows(struct ctl_roce_rec *t, emu_ps_t now)
{
	if (t == NULL || t->ts == NULL)
		return;
	for (uint32_t i = 0; i < t->n; i++) {
		rt_row(t, i, now);
		memcpy(t->prev[i], roce_counters(t->roces[i]), sizeof(t->prev[i]));
		roce_interval_reset(t->roces[i]);
	}
}

void ctl_roce_rec_rate(struct ctl_roce_rec *t, uint32_t fep_id, uint32_t qpn, uint64_t bps, emu_ps_t now)
{
	if (t == NULL || t->rate == NULL)
		return;
	FILE *f = rec_csv_file(t->rate);

	ctl_rec_row_head(t->rate, now);
	fprintf(f, ",%s,%u,%u,", t->cfg->hosts[fep_id].name, fep_id, qpn);
	ctl_rec_put_fixed(f, bps, 9);
	fputc('\n', f);
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
