/* PFC (802.1Qbb) at the NIC: pauses sent when a receive pool crosses Xoff, refreshed every half pause time,
 * resumed at Xon; pauses received honoured per class; and the scheduler between the egress classes. */
#include "nic_pvt.h"

#include <string.h>

static emu_ps_t link_delay(const struct nic *nic)
{
	return nic->out != NULL ? nic->out->link->delay : nic->p->delay_ps;
}

static uint64_t ppm(uint64_t total, uint32_t ppm)
{
	return (uint64_t)(((unsigned __int128)total * ppm) / 1000000u);
}

/* Queue a PFC frame for class @p tc (quanta 0 is XON); PFC frames go first and are never charged to a pool. */
static void pfc_send(struct nic *nic, uint32_t tc, uint16_t quanta, emu_ps_t now)
{
	if (nic->pfcq_tail - nic->pfcq_head == 16)
		return; /* 16 frames waiting cannot happen with 8 classes and one pause or XON each */
	struct wire_pkt *p = net_pkt_alloc(nic->env.np);

	if (p == NULL) {
		nic->c[NIC_C_DROP_NO_PKT]++;
		return;
	}
	p->kind = WIRE_KIND_PFC;
	p->uid = nic->next_uid++;
	memcpy(p->src_mac, nic->env.mac, 6);
	p->pfc_enable = (uint16_t)(1u << tc);
	p->pfc_quanta[tc] = quanta;
	if (quanta)
		nic->pfc.xoff_tx[tc]++, nic->c[NIC_C_PFC_PAUSES_SENT]++;
	else
		nic->pfc.xon_tx[tc]++;
	nic->pfcq[nic->pfcq_tail++ & 15] = p;
	nic_port_kick(nic, now);
}

static void ev_refresh(void *a, void *b, emu_ps_t now);

static void pause_and_arm(struct nic *nic, uint32_t tc, emu_ps_t now)
{
	uint32_t q = nic->p->ingress.quanta[tc];
	emu_ps_t half = net_pfc_pause_time(q, nic->link_bps, link_delay(nic)) / 2;

	pfc_send(nic, tc, (uint16_t)q, now);
	nic->pfc_out[tc] = true;
	net_sched(nic->env.np, now + half, ev_refresh, nic, (void *)(uintptr_t)tc, &nic->pfc_refresh[tc]);
}

/* Every half pause time: pause again while occupancy is at or above Xoff, else XON. */
static void ev_refresh(void *a, void *b, emu_ps_t now)
{
	struct nic *nic = a;
	uint32_t tc = (uint32_t)(uintptr_t)b;
	uint64_t xoff = ppm(nic->in_pool_size[tc], nic->p->ingress.pfc_xoff_ppm[tc]);

	nic->pfc_refresh[tc] = 0;
	if (nic->in_pool_used[tc] >= xoff) {
		pause_and_arm(nic, tc, now);
		return;
	}
	nic->pfc_out[tc] = false;
	pfc_send(nic, tc, 0, now);
}

/* A packet of class @p tc arrived: @p occupancy is the pool's with it added. */
void nic_pfc_check_xoff(struct nic *nic, uint32_t tc, uint64_t occupancy, emu_ps_t now)
{
	if (tc >= NIC_TC_COUNT || nic->p->ingress.pfc_enable[tc] != 1 || nic->pfc_out[tc])
		return;
	if (occupancy >= ppm(nic->in_pool_size[tc], nic->p->ingress.pfc_xoff_ppm[tc]))
		pause_and_arm(nic, tc, now);
}

/* Received bytes of class @p tc were released: XON at once when occupancy is at or below Xon. */
void nic_pfc_check_xon(struct nic *nic, uint32_t tc, emu_ps_t now)
{
	if (!nic->pfc_out[tc] || nic->in_pool_used[tc] > ppm(nic->in_pool_size[tc], nic->p->ingress.pfc_xon_ppm[tc]))
		return;
	emu_sched_cancel(nic->env.np->sched, nic->pfc_refresh[tc]);
	nic->pfc_refresh[tc] = 0;
	nic->pfc_out[tc] = false;
	pfc_send(nic, tc, 0, now);
}

/* The part since the interval began of the pause of class @p tc holding until @p now. */
static emu_ps_t pause_in_ivl(const struct nic *nic, uint32_t tc, emu_ps_t now)
{
	emu_ps_t from = nic->paused_since[tc] > nic->pfc_ivl_start ? nic->paused_since[tc] : nic->pfc_ivl_start;

	return now > from ? now - from : 0;
}

static void resume(struct nic *nic, uint32_t tc, emu_ps_t now)
{
	if (nic->paused_until[tc] == 0)
		return;
	emu_ps_t d = pause_in_ivl(nic, tc, now);
	if (d > nic->pfc.ivl_max_pause_ps[tc])
		nic->pfc.ivl_max_pause_ps[tc] = d;
	nic->pfc.paused_ps[tc] += now - nic->paused_since[tc];
	nic->paused_until[tc] = 0;
	nic_port_kick(nic, now);
}

static void ev_resume(void *a, void *b, emu_ps_t now)
{
	struct nic *nic = a;
	uint32_t tc = (uint32_t)(uintptr_t)b;

	nic->pfc_resume[tc] = 0;
	resume(nic, tc, now);
}

/* A PFC frame from the link: pause or resume each class it names, whatever PFCEnableVector says. A fresh pause
 * restarts the pause time in full: quanta at the NIC's link rate plus the link's Delay. */
void nic_pfc_rx(struct nic *nic, const struct wire_pkt *pkt, emu_ps_t now)
{
	for (uint32_t tc = 0; tc < NIC_TC_COUNT; tc++) {
		if (!(pkt->pfc_enable & (1u << tc)))
			continue;
		emu_sched_cancel(nic->env.np->sched, nic->pfc_resume[tc]);
		nic->pfc_resume[tc] = 0;
		if (pkt->pfc_quanta[tc] == 0) {
			nic->pfc.xon_rx[tc]++;
			resume(nic, tc, now);
			continue;
		}
		nic->pfc.xoff_rx[tc]++;
		nic->c[NIC_C_PFC_PAUSES_RCVD]++;
		if (nic->paused_until[tc] == 0)
			nic->paused_since[tc] = now;
		nic->paused_until[tc] = now + net_pfc_pause_time(pkt->pfc_quanta[tc], nic->link_bps, link_delay(nic));
		net_sched(nic->env.np, nic->paused_until[tc], ev_resume, nic, (void *)(uintptr_t)tc, &nic->pfc_resume[tc]);
	}
}

void nic_pfc_stats(const struct nic *nic, struct nic_pfc_stats *out, emu_ps_t now)
{
	*out = nic->pfc;
	for (uint32_t tc = 0; tc < NIC_TC_COUNT; tc++) {
		if (nic->paused_until[tc] == 0)
			continue;
		out->paused_ps[tc] += now - nic->paused_since[tc];
		if (pause_in_ivl(nic, tc, now) > out->ivl_max_pause_ps[tc])
			out->ivl_max_pause_ps[tc] = pause_in_ivl(nic, tc, now);
	}
}

void nic_pfc_interval_reset(struct nic *nic, emu_ps_t now)
{
	nic->pfc_ivl_start = now;
	for (uint32_t tc = 0; tc < NIC_TC_COUNT; tc++)
		nic->pfc.ivl_max_pause_ps[tc] = 0;
}

static bool ready(const struct nic *nic, uint32_t tc)
{
	const struct nic_txq *q = &nic->txq[tc];

	return q->head != NULL && nic->paused_until[tc] == 0;
}

/*
 * The class to send from (uet-nic-configuration.md, EgressBufferManager QueueSchedulingType): PFC frames first;
 * StrictPriority takes the highest-numbered class with a packet waiting and not paused; RoundRobin takes the
 * classes in turn; WeightedRoundRobin lets each class send up to WRRQueueWeights[c] packets in its turn.
 */
int nic_port_pick(struct nic *nic, emu_ps_t now)
{
	const uint32_t n = 2; /* classes with an egress queue: 0 data, 1 control */

	(void)now;
	if (nic->pfcq_head != nic->pfcq_tail)
		return -2;
	if (nic->p->egress.queue_scheduling == NIC_QSCHED_STRICT) {
		for (int tc = (int)n - 1; tc >= 0; tc--)
			if (ready(nic, (uint32_t)tc))
				return tc;
		return -1;
	}
	uint32_t cur = nic->rr_next_tc % n;

	if (nic->p->egress.queue_scheduling == NIC_QSCHED_RR) {
		for (uint32_t i = 0; i < n; i++) {
			uint32_t tc = (cur + i) % n;
			if (ready(nic, tc)) {
				nic->rr_next_tc = tc + 1;
				return (int)tc;
			}
		}
		return -1;
	}
	if (ready(nic, cur) && nic->wrr_sent < nic->p->egress.wrr_weights[cur]) {
		nic->wrr_sent++;
		return (int)cur;
	}
	for (uint32_t i = 1; i <= n; i++) {
		uint32_t tc = (cur + i) % n;
		if (ready(nic, tc)) {
			nic->rr_next_tc = tc;
			nic->wrr_sent = 1;
			return (int)tc;
		}
	}
	return -1;
}
