/* The UET NIC behind the host-NIC interface (port_nic.h): nic_port_ops. */
#include "nic_pvt.h"

#include <errno.h>
#include <string.h>

#include "port_nic.h"

#define LOAD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED) /* a telemetry thread reads while the run goes on */

_Static_assert(NIC_C_COUNT <= PORT_NIC_C_MAX, "PORT_NIC_C_MAX holds the UET NIC's counters");
_Static_assert(sizeof(struct nic_uet_rx) % 8 == 0, "the UET receive counts are 64-bit words");

PORT_NIC_IDENTITY_OPS(nic, nic_link_bps)

/* FixedRexmitTimeout when fixed, else InitialRetransmitTimeout at its full exponential backoff. */
static emu_ps_t op_rto_max(const void *dev)
{
	const struct nic_params *p = ((const struct nic *)dev)->p;

	return p->fixed_rexmit_enable ? p->fixed_rexmit_timeout : p->initial_rto << p->max_rto_backoff;
}

/* FixedRexmitTimeout when fixed, else InitialRetransmitTimeout before any backoff. */
static emu_ps_t op_rto_min(const void *dev, const char **key)
{
	const struct nic_params *p = ((const struct nic *)dev)->p;

	*key = p->fixed_rexmit_enable ? "nic.TransportProcessingLayers.ScalaUETPdsManager.FixedRexmitTimeout" :
					"nic.TransportProcessingLayers.ScalaUETPdsManager.InitialRetransmitTimeout";
	return p->fixed_rexmit_enable ? p->fixed_rexmit_timeout : p->initial_rto;
}

static int op_post_msg(void *dev, uint32_t dst_ip, uint64_t bytes, uint64_t cookie, emu_ps_t now, uint32_t *conn)
{
	uint16_t pdc = 0;
	int rc = nic_post_pdc(dev, dst_ip, bytes, cookie, now, &pdc);

	if (rc == 0)
		*conn = pdc;
	return rc;
}

static int op_conn_open(void *dev, uint32_t dst_ip, uint32_t *conn, emu_ps_t now)
{
	uint16_t pdc = 0;
	int rc = nic_conn_open(dev, dst_ip, &pdc, now);

	if (rc == 0)
		*conn = pdc;
	return rc;
}

static int op_conn_post(void *dev, uint32_t conn, uint64_t bytes, uint64_t cookie, emu_ps_t now)
{
	return conn > UINT16_MAX ? -ENOENT : nic_post_conn(dev, (uint16_t)conn, bytes, cookie, now);
}

static int op_conn_close(void *dev, uint32_t conn, emu_ps_t now)
{
	return conn > UINT16_MAX ? -ENOENT : nic_conn_close(dev, (uint16_t)conn, now);
}

static int op_close_rcv(void *dev, uint32_t peer_ip, uint32_t peer_conn, emu_ps_t now)
{
	return peer_conn > UINT16_MAX ? -ENOENT : nic_close_rcv(dev, peer_ip, (uint16_t)peer_conn, now);
}

static int op_conn_hold(void *dev, uint32_t conn, bool on, emu_ps_t now)
{
	return conn > UINT16_MAX ? -ENOENT : nic_pdc_hold(dev, (uint16_t)conn, on, now);
}

static void op_rate_limit(void *dev, uint64_t bps, emu_ps_t now)
{
	nic_rate_limit(dev, bps, now);
}

static int op_cm_send(void *dev, uint32_t dst_ip, const struct wire_cm *cm, emu_ps_t now)
{
	return nic_cm_send(dev, dst_ip, cm, now);
}

static const uint64_t *op_counters(const void *dev)
{
	return nic_counters(dev);
}

static void op_stats(const void *dev, struct port_nic_stats *out, emu_ps_t now)
{
	const uint64_t *c = nic_counters(dev);

	(void)now;
	*out = (struct port_nic_stats){ .tx_bytes = LOAD(c[NIC_C_TX_BYTES]), .rx_bytes = LOAD(c[NIC_C_RX_BYTES]),
					.rx_payload_bytes = LOAD(c[NIC_C_RX_PAYLOAD_BYTES]),
					.trims = LOAD(c[NIC_C_TRIMS_RCVD]), .nacks = LOAD(c[NIC_C_NACK_PKTS_SENT]),
					.retransmits = LOAD(c[NIC_C_NUM_RTX]), .timeouts = LOAD(c[NIC_C_NUM_RTO]),
					.pfc_pauses = LOAD(c[NIC_C_PFC_PAUSES_SENT]) };
	for (int k = NIC_C_DROP_RX_POOL_FULL; k <= NIC_C_DROP_NO_PKT; k++)
		out->drops += LOAD(c[k]);
}

/* The drop_* counters from DROP_RX_POOL_FULL to DROP_NO_PKT, by reason. */
static void op_drops(const void *dev, uint64_t *by_counter)
{
	const uint64_t *c = nic_counters(dev);

	for (int k = NIC_C_DROP_RX_POOL_FULL; k <= NIC_C_DROP_NO_PKT; k++)
		by_counter[k] += LOAD(c[k]);
}

/* The sending PDC @p conn while it sends a message of @p cookie: that message's acked bytes (whole segments, the
 * last one short), the PDC's retransmissions, its group's NSCC window and RTT (base RTT plus the average queueing
 * delay). */
static int op_flow(const void *dev, uint32_t conn, uint64_t cookie, struct port_nic_flow *out)
{
	const struct nic *nic = dev;
	const struct nic_pdc *pdc = nic_pdc_snd_find(nic, (uint16_t)conn);
	uint64_t acked;

	/* a message's own PDC also in its completion's hook, before it closes (busy is false then) */
	if (pdc == NULL || !pdc->sender || pdc->cookie != cookie || pdc->group == NULL ||
	    (!pdc->busy && (pdc->conn || pdc->pkts_acked != pdc->n_pkts)))
		return -ENOENT;
	acked = (uint64_t)pdc->pkts_acked * nic->p->rdma_data_mss;
	*out = (struct port_nic_flow){ .acked_bytes = acked < pdc->bytes ? acked : pdc->bytes, .retransmits = pdc->rtx,
				       .cwnd = nic_cc_cwnd(&pdc->group->cc),
				       .rtt = nic_cc_base_rtt(&pdc->group->cc) + nic_cc_avg_qdelay(&pdc->group->cc) };
	return 0;
}

static uint64_t op_rx_payload(const void *dev)
{
	return nic_counters(dev)[NIC_C_RX_PAYLOAD_BYTES];
}

static const struct nic_uet_rx *op_uet_rx(const void *dev)
{
	return nic_uet_rx(dev);
}

/* The counters, then the UET receive counts. */
static void op_save(const void *dev, uint64_t *out)
{
	memcpy(out, nic_counters(dev), NIC_C_COUNT * sizeof(uint64_t));
	memcpy(out + NIC_C_COUNT, nic_uet_rx(dev), sizeof(struct nic_uet_rx));
}

static void op_load(void *dev, const uint64_t *in)
{
	struct nic_uet_rx u;

	memcpy(&u, in + NIC_C_COUNT, sizeof(u));
	nic_counters_load(dev, in, &u);
}

static void op_pool_stats(const void *dev, bool tx, uint32_t tc, struct port_pool_stats *out)
{
	nic_pool_stats(dev, tx, tc, out);
}

static void op_pool_interval_reset(void *dev)
{
	nic_pool_interval_reset(dev);
}

/* nd-stats counts the port's bytes from the Ethernet header on, without the FCS (uet-nic-records.md). */
static void op_rec_row(const void *dev, struct port_nic_rec *out)
{
	const uint64_t *c = nic_counters(dev);

	*out = (struct port_nic_rec){ .port_tx_frames = c[NIC_C_PORT_TX_FRAMES], .port_rx_frames = c[NIC_C_PORT_RX_FRAMES],
				      .nd_tx_bytes = c[NIC_C_PORT_TX_FRAME_BYTES],
				      .nd_rx_bytes = c[NIC_C_PORT_RX_FRAME_BYTES],
				      .nd_tx_drops = c[NIC_C_DROP_TX_CTL_POOL_FULL],
				      .nd_rx_drops = c[NIC_C_DROP_RX_POOL_FULL], .ecn_ce = c[NIC_C_ECN_CE_RCVD] };
}

static void op_interval_reset(void *dev)
{
	nic_interval_reset(dev);
}

static struct nic *op_uet(void *dev)
{
	return dev;
}

static void op_destroy(void *dev)
{
	nic_destroy(dev);
}

const struct port_nic_ops nic_port_ops = {
	.label = "Scala UET NIC",
	.json_nic = NULL,
	.component_type = "ScalaUETNic",
	.nd_component = "ScalaUETNicNetDevice",
	.single_lcore = false,
	.dev_ops = &nic_dev_ops,
	PORT_NIC_IDENTITY_INIT(nic),
	.rto_max = op_rto_max,
	.rto_min = op_rto_min,
	.post_msg = op_post_msg,
	.conn_open = op_conn_open,
	.conn_post = op_conn_post,
	.conn_close = op_conn_close,
	.close_rcv = op_close_rcv,
	.conn_hold = op_conn_hold,
	.rate_limit = op_rate_limit,
	.cm_send = op_cm_send,
	.n_counters = NIC_C_COUNT,
	.counters = op_counters,
	.counter_name = nic_counter_name,
	.counter_desc = nic_counter_desc,
	.stats = op_stats,
	.drops = op_drops,
	.rx_payload = op_rx_payload,
	.flow = op_flow,
	.uet_rx = op_uet_rx,
	.n_saved = NIC_C_COUNT + sizeof(struct nic_uet_rx) / 8,
	.save = op_save,
	.load = op_load,
	.pool_stats = op_pool_stats,
	.pool_interval_reset = op_pool_interval_reset,
	.pfcs_off = offsetof(struct nic, pfcs),
	.pcie_off = offsetof(struct nic, pcie),
	.rec_row = op_rec_row,
	.interval_reset = op_interval_reset,
	.uet = op_uet,
	.roce = NULL,
	.destroy = op_destroy,
};
