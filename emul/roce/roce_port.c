/* The RoCE NIC behind the host-NIC interface (port_nic.h): roce_port_ops. */
#include "roce_pvt.h"

#include <errno.h>

#include "port_nic.h"

#define LOAD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED) /* a telemetry thread reads while the run goes on */

_Static_assert(ROCE_C_COUNT <= PORT_NIC_C_MAX, "PORT_NIC_C_MAX holds the RoCE NIC's counters");

/* Every drop the NIC counts: receive pools, transport discards, the control pool, the tables. */
static const int drop_counters[] = { ROCE_C_RX_DROPS, ROCE_C_RX_DROPS_NO_QP_DATA, ROCE_C_RX_DROPS_NO_QP_CTRL,
				     ROCE_C_RX_DROPS_AFTER_NAK, ROCE_C_RX_DROPS_GHOST_ACK, ROCE_C_DROP_TX_CTL_POOL_FULL,
				     ROCE_C_DROP_NOT_FOR_US, ROCE_C_DROP_BAD_KIND, ROCE_C_DROP_NO_PKT, ROCE_C_DROP_NO_QP,
				     ROCE_C_DROP_NO_WQE };

PORT_NIC_IDENTITY_OPS(roce, roce_line_bps)

static emu_ps_t op_rto_max(const void *dev)
{
	return ((const struct roce *)dev)->p->retransmit_timeout; /* one transport timer, no backoff */
}

static emu_ps_t op_rto_min(const void *dev, const char **key)
{
	*key = "roce_nic.TransportProcessingLayers.RoceTransportLayer.RetransmitTimeout";
	return ((const struct roce *)dev)->p->retransmit_timeout;
}

/* A message is one RDMA WRITE on a queue pair of its own, as a message is a PDC of its own on the UET NIC. */
static int op_post_msg(void *dev, uint32_t dst_ip, uint64_t bytes, uint64_t cookie, emu_ps_t now, uint32_t *conn)
{
	uint32_t qpn;
	int rc = roce_qp_open(dev, dst_ip, &qpn);

	if (rc < 0)
		return rc;
	rc = roce_post(dev, qpn, ROCE_VERB_WRITE, bytes, cookie, now);
	if (rc == 0)
		*conn = qpn;
	return rc;
}

static int op_conn_open(void *dev, uint32_t dst_ip, uint32_t *conn, emu_ps_t now)
{
	(void)now;
	return roce_qp_open(dev, dst_ip, conn);
}

static int op_conn_post(void *dev, uint32_t conn, uint64_t bytes, uint64_t cookie, emu_ps_t now)
{
	return roce_post(dev, conn, ROCE_VERB_WRITE, bytes, cookie, now);
}

static int op_conn_hold(void *dev, uint32_t conn, bool on, emu_ps_t now)
{
	return roce_qp_hold(dev, conn, on, now);
}

static void op_rate_limit(void *dev, uint64_t bps, emu_ps_t now)
{
	roce_rate_limit(dev, bps, now);
}

static int op_cm_send(void *dev, uint32_t dst_ip, const struct wire_cm *cm, emu_ps_t now)
{
	return roce_cm_send(dev, dst_ip, cm, now);
}

/* Queue pair @p conn while it sends the message of @p cookie: acked bytes (whole segments below snd_una), its
 * go-back-N rewinds, its DCQCN rate, and the NIC's mean RTT so far (the model keeps no per-QP estimate). */
static int op_flow(const void *dev, uint32_t conn, uint64_t cookie, struct port_nic_flow *out)
{
	const struct roce *r = dev;
	const struct roce_qp *qp = roce_qp_find(r, 0, conn, true);

	if (qp == NULL || !qp->busy || qp->cookie != cookie)
		return -ENOENT;
	uint64_t acked = (uint64_t)roce_psn_diff(qp->snd_una, qp->first_psn) * r->p->mss;

	*out = (struct port_nic_flow){ .acked_bytes = acked < qp->bytes ? acked : qp->bytes, .retransmits = qp->rewinds,
				       .rate_bps = qp->cc.rate, .rtt = r->rtt.n > 0 ? r->rtt.sum / r->rtt.n : 0 };
	return 0;
}

static const uint64_t *op_counters(const void *dev)
{
	return roce_counters(dev);
}

static void op_stats(const void *dev, struct port_nic_stats *out, emu_ps_t now)
{
	const struct roce *r = dev;
	const uint64_t *c = r->c;

	*out = (struct port_nic_stats){ .tx_bytes = LOAD(c[ROCE_C_TX_BYTES]), .rx_bytes = LOAD(c[ROCE_C_RX_BYTES]),
					.rx_payload_bytes = LOAD(c[ROCE_C_RX_PAYLOAD_BYTES]),
					.nacks = LOAD(c[ROCE_C_NACKS_SENT]), .retransmits = LOAD(c[ROCE_C_RTX]),
					.timeouts = LOAD(c[ROCE_C_RTO]) };
	for (size_t k = 0; k < sizeof(drop_counters) / sizeof(drop_counters[0]); k++)
		out->drops += LOAD(c[drop_counters[k]]);
	(void)now;
	for (int tc = 0; tc < PORT_TC_COUNT; tc++) /* pauses sent: the PFC state machine's count (no counter of its own) */
		out->pfc_pauses += r->pfcs.st.xoff_tx[tc];
}

static uint64_t op_rx_payload(const void *dev)
{
	return roce_counters(dev)[ROCE_C_RX_PAYLOAD_BYTES];
}

static void op_pool_stats(const void *dev, bool tx, uint32_t tc, struct port_pool_stats *out)
{
	roce_pool_stats(dev, tx, tc, out);
}

static void op_pool_interval_reset(void *dev)
{
	roce_pool_interval_reset(dev);
}

/* The RoCE buffers page's Records: every frame, Ethernet header and FCS included; no transmit drop column of its
 * own (0); rx drops the packets dropped because their receive pool was full "and nothing else" (the transport's
 * discards, for no queue pair or behind a gap, are roce-transport-stats' columns); no ECN column in ecn-pfc-stats
 * (0). */
static void op_rec_row(const void *dev, struct port_nic_rec *out)
{
	const uint64_t *c = roce_counters(dev);

	*out = (struct port_nic_rec){ .port_tx_frames = c[ROCE_C_PORT_TX_FRAMES],
				      .port_rx_frames = c[ROCE_C_PORT_RX_FRAMES], .nd_tx_bytes = c[ROCE_C_TX_BYTES],
				      .nd_rx_bytes = c[ROCE_C_RX_BYTES],
				      .nd_rx_drops = c[ROCE_C_RX_DROPS] };
}

static void op_interval_reset(void *dev)
{
	roce_interval_reset(dev);
}

static struct roce *op_roce(void *dev)
{
	return dev;
}

static void op_destroy(void *dev)
{
	roce_destroy(dev);
}

const struct port_nic_ops roce_port_ops = {
	.label = "Scala RoCE NIC",
	.json_nic = "ScalaRoceNic",
	.component_type = "ScalaRoceNic",
	.nd_component = "ScalaRoceNicNetDevice",
	.single_lcore = true,
	.dev_ops = &roce_dev_ops,
	PORT_NIC_IDENTITY_INIT(roce),
	.rto_max = op_rto_max,
	.rto_min = op_rto_min,
	.post_msg = op_post_msg,
	.flow = op_flow,
	.conn_open = op_conn_open,
	.conn_post = op_conn_post,
	.conn_close = NULL, /* a queue pair stays open */
	.close_rcv = NULL,  /* the far end a packet created stays */
	.conn_hold = op_conn_hold,
	.rate_limit = op_rate_limit,
	.cm_send = op_cm_send,
	.n_counters = ROCE_C_COUNT,
	.counters = op_counters,
	.counter_name = roce_counter_name,
	.counter_desc = roce_counter_desc,
	.stats = op_stats,
	.drops = NULL, /* summary.json gives the RoCE NIC's drops in the total only */
	.rx_payload = op_rx_payload,
	.uet_rx = NULL,
	.n_saved = 0, /* the RoCE NIC runs in one process */
	.pool_stats = op_pool_stats,
	.pool_interval_reset = op_pool_interval_reset,
	.pfcs_off = offsetof(struct roce, pfcs),
	.pcie_off = offsetof(struct roce, pcie),
	.rec_row = op_rec_row,
	.interval_reset = op_interval_reset,
	.uet = NULL,
	.roce = op_roce,
	.destroy = op_destroy,
};
