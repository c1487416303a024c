/* PFC at the switch (switch-packet-handling.md, PFC pause and resume): pauses sent per port and pool when the
 * port's ingress occupancy would pass Xoff, refreshed every half pause time, resumed at Xon with the headroom
 * empty; pauses received honoured per class on the receiving port. */
#include "sw_pvt.h"

#include <string.h>

/* Queue a PFC frame for class @p tc on port @p in (quanta 0 resumes); sent ahead of all data. */
static void pfc_send(struct sw *sw, struct sw_port *in, uint32_t tc, uint16_t quanta, emu_ps_t now)
{
	struct wire_pkt *p;

	if (in->pfcq_tail - in->pfcq_head == SW_PFCQ || (p = net_pkt_alloc_kind(sw->env.np, WIRE_KIND_PFC)) == NULL) {
		sw->c[SW_C_PFC_NOT_SENT]++;
		return;
	}
	memcpy(p->src_mac, in->mac, sizeof(in->mac)); /* the port's own MAC (sw_port_mac()); the dst is 802.1Qbb's */
	p->pfc_enable = (uint16_t)(1u << tc);
	p->pfc_quanta[tc] = quanta;
	if (quanta != 0) {
		sw->c[SW_C_PFC_PAUSES_SENT]++;
		in->st.xoff_tx[tc]++;
	} else {
		sw->c[SW_C_PFC_RESUMES_SENT]++;
		in->st.xon_tx[tc]++;
	}
	in->pfcq[in->pfcq_tail++ % SW_PFCQ] = p;
	sw_port_kick(sw, in, now);
}

/* One frame for each lossless class of the pool's priority group. */
static void pfc_send_group(struct sw *sw, struct sw_port *in, uint32_t pool, uint16_t quanta, emu_ps_t now)
{
	for (uint32_t tc = 0; tc < SW_TC_COUNT; tc++)
		if (sw->b.pool_pg[pool] & (1u << tc))
			pfc_send(sw, in, tc, quanta, now);
}

static void ev_refresh(void *a, void *b, emu_ps_t now);

static void pause_and_arm(struct sw *sw, struct sw_port *in, uint32_t pool, emu_ps_t now)
{
	emu_ps_t half = net_pfc_pause_time(SW_PFC_QUANTA, in->bps, in->delay) / 2;

	pfc_send_group(sw, in, pool, SW_PFC_QUANTA, now);
	net_sched(sw->env.np, now + half, ev_refresh, in, (void *)(uintptr_t)pool, &in->pl[pool].refresh);
}

/* Every half pause time while the port stays paused: pause again, so the sender's pause does not run out. */
static void ev_refresh(void *a, void *b, emu_ps_t now)
{
	struct sw_port *in = a;
	uint32_t pool = (uint32_t)(uintptr_t)b;

	in->pl[pool].refresh = 0;
	if (in->pl[pool].pausing)
		pause_and_arm(in->sw, in, pool, now);
}

void sw_pfc_pause(struct sw *sw, struct sw_port *in, uint32_t pool, emu_ps_t now)
{
	if (in->pl[pool].pausing || in->out == NULL)
		return; /* already pausing; or a port with no link to send on */
	in->pl[pool].pausing = true;
	pause_and_arm(sw, in, pool, now);
}

/* A lossless packet that arrived on @p in left the switch: resume when the port's headroom for the pool is empty
 * and its occupancy is at or below Xon. */
void sw_pfc_check_xon(struct sw *sw, struct sw_port *in, uint32_t pool, emu_ps_t now)
{
	if (!in->pl[pool].pausing || in->pl[pool].hr_occ != 0 || in->pl[pool].in_occ > sw->b.xon)
		return;
	emu_sched_cancel(sw->env.np->sched, in->pl[pool].refresh);
	in->pl[pool].refresh = 0;
	in->pl[pool].pausing = false;
	pfc_send_group(sw, in, pool, 0, now);
}

emu_ps_t sw_pause_in_ivl(const struct sw_port *e, uint32_t tc, emu_ps_t now)
{
	emu_ps_t from = e->paused_since[tc] > e->pfc_ivl_start ? e->paused_since[tc] : e->pfc_ivl_start;

	return now > from ? now - from : 0;
}

static void resume(struct sw *sw, struct sw_port *e, uint32_t tc, emu_ps_t now)
{
	if (e->paused_until[tc] == 0)
		return;
	emu_ps_t d = sw_pause_in_ivl(e, tc, now);

	if (d > e->st.ivl_max_pause_ps[tc])
		e->st.ivl_max_pause_ps[tc] = d;
	e->st.paused_ps[tc] += now - e->paused_since[tc];
	e->paused_until[tc] = 0;
	e->pmask &= (uint8_t)~(1u << tc);
	sw_port_kick(sw, e, now);
}

static void ev_resume(void *a, void *b, emu_ps_t now)
{
	struct sw_port *e = a;
	uint32_t tc = (uint32_t)(uintptr_t)b;

	e->resume[tc] = 0;
	resume(e->sw, e, tc, now);
}

/* A PFC frame from the peer on port @p e: pause or resume each class it names, whatever EnablePFC says. A fresh
 * pause restarts the timer in full: quanta at the port's data rate plus the link's delay. */
void sw_pfc_rx(struct sw *sw, struct sw_port *e, const struct wire_pkt *pkt, emu_ps_t now)
{
	if (e->out == NULL)
		return; /* nothing to pause on a port with no link to send on */
	for (uint32_t tc = 0; tc < SW_TC_COUNT; tc++) {
		if (!(pkt->pfc_enable & (1u << tc)))
			continue;
		emu_sched_cancel(sw->env.np->sched, e->resume[tc]);
		e->resume[tc] = 0;
		if (pkt->pfc_quanta[tc] == 0) {
			sw->c[SW_C_PFC_RESUMES_RCVD]++;
			e->st.xon_rx[tc]++;
			resume(sw, e, tc, now);
			continue;
		}
		sw->c[SW_C_PFC_PAUSES_RCVD]++;
		e->st.xoff_rx[tc]++;
		if (e->paused_until[tc] == 0)
			e->paused_since[tc] = now;
		e->paused_until[tc] = now + net_pfc_pause_time(pkt->pfc_quanta[tc], e->bps, e->delay);
		e->pmask |= (uint8_t)(1u << tc);
		net_sched(sw->env.np, e->paused_until[tc], ev_resume, e, (void *)(uintptr_t)tc, &e->resume[tc]);
	}
}
