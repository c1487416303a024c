/* PFC (802.1Qbb) at the UET NIC: its frames and counters around the state machine both NIC models share
 * (port_pfcs.c: pauses sent at Xoff, refreshed, resumed at Xon; pauses received honoured per class); and the choice
 * between its egress classes (port_sched.c). */
#include "nic_pvt.h"

/* Queue a PFC frame for class @p tc (quanta 0 is XON); PFC frames go first and are never charged to a pool. */
static bool pfc_send(void *dev, uint32_t tc, uint16_t quanta, emu_ps_t now)
{
	struct nic *nic = dev;

	if (port_tx_first_full(&nic->tx))
		return false; /* PORT_FIRSTQ frames waiting cannot happen with 8 classes and one pause or XON each */
	struct wire_pkt *p = port_pfc_frame(nic->env.np, nic->env.mac, tc, quanta);

	if (p == NULL) {
		nic->c[NIC_C_DROP_NO_PKT]++;
		return false;
	}
	p->uid = nic->next_uid++;
	if (quanta)
		nic->c[NIC_C_PFC_PAUSES_SENT]++;
	port_tx_push_first(&nic->tx, p);
	nic_port_kick(nic, now);
	return true;
}

static void pfc_kick(void *dev, emu_ps_t now)
{
	nic_port_kick(dev, now);
}

void nic_pfc_init(struct nic *nic)
{
	static const struct port_pfcs_ops ops = { .send = pfc_send, .kick = pfc_kick };

	nic->pfcs = (struct port_pfcs){ .np = nic->env.np, .ingress = &nic->p->ingress, .pool = nic->in_pool_size,
				       .used = nic->in_pool_used, .ops = &ops, .dev = nic, .bps = nic->link_bps,
				       .delay = nic->p->delay_ps };
}

void nic_pfc_check_xoff(struct nic *nic, uint32_t tc, uint64_t occupancy, emu_ps_t now)
{
	port_pfcs_check_xoff(&nic->pfcs, tc, occupancy, now);
}

void nic_pfc_check_xon(struct nic *nic, uint32_t tc, emu_ps_t now)
{
	port_pfcs_check_xon(&nic->pfcs, tc, now);
}

/* A PFC frame from the link: each class it names paused or resumed (port_pfcs.c); pauses counted here too. */
void nic_pfc_rx(struct nic *nic, const struct wire_pkt *pkt, emu_ps_t now)
{
	for (uint32_t tc = 0; tc < PORT_TC_COUNT; tc++)
		if ((pkt->pfc_enable & (1u << tc)) && pkt->pfc_quanta[tc] != 0)
			nic->c[NIC_C_PFC_PAUSES_RCVD]++;
	port_pfcs_rx(&nic->pfcs, pkt, now);
}

void nic_pfc_stats(const struct nic *nic, struct port_pfc_stats *out, emu_ps_t now)
{
	port_pfcs_stats(&nic->pfcs, out, now);
}

void nic_pfc_interval_reset(struct nic *nic, emu_ps_t now)
{
	port_pfcs_interval_reset(&nic->pfcs, now);
}

static bool ready(const struct nic *nic, uint32_t tc)
{
	const struct nic_txq *q = &nic->txq[tc];

	return q->head != NULL && !port_pfcs_paused(&nic->pfcs, tc);
}

static void ev_shape(void *a, void *b, emu_ps_t now)
{
	struct nic *nic = a;

	(void)b;
	nic->shape_armed = false;
	nic_port_kick(nic, now);
}

/* The class to send from (uet-nic-configuration.md, EgressBufferManager QueueSchedulingType): PFC frames first, then
 * the shared scheduler (port_sched.c) over the two classes with an egress queue, 0 data and 1 control; none while
 * uetemu's egress shaper (port_shape.h) holds the classes, the port kicked when it lets the next frame go. */
int nic_port_pick(struct nic *nic, emu_ps_t now)
{
	uint32_t ready_tcs = (ready(nic, 0) ? 1u : 0u) | (ready(nic, 1) ? 2u : 0u);

	if (ready_tcs != 0 && nic->tx.first_head == nic->tx.first_tail && port_shape_holds(&nic->shape, now)) {
		if (!nic->shape_armed &&
		    net_sched(nic->env.np, port_shape_ready(&nic->shape), ev_shape, nic, NULL, NULL) == 0)
			nic->shape_armed = true;
		return PORT_TX_NONE;
	}
	return port_tx_pick(&nic->tx, &nic->p->egress, 2, ready_tcs);
}

void nic_rate_limit(struct nic *nic, uint64_t bps, emu_ps_t now)
{
	port_shape_set(&nic->shape, bps, nic->p->rate_limit_burst, now);
	nic_port_kick(nic, now);
}
