/* PFC at a NIC's port, shared by both NIC models (port_pfcs.h). */
#include "port_pfcs.h"

#include <string.h>

static uint64_t ppm(uint64_t total, uint32_t ppm)
{
	return (uint64_t)(((unsigned __int128)total * ppm) / 1000000u);
}

static void send(struct port_pfcs *s, uint32_t tc, uint16_t quanta, emu_ps_t now)
{
	if (!s->ops->send(s->dev, tc, quanta, now))
		return;
	if (quanta)
		s->st.xoff_tx[tc]++;
	else
		s->st.xon_tx[tc]++;
}

static void ev_refresh(void *a, void *b, emu_ps_t now);

static void pause_and_arm(struct port_pfcs *s, uint32_t tc, emu_ps_t now)
{
	uint32_t q = s->ingress->quanta[tc];
	emu_ps_t half = net_pfc_pause_time(q, s->bps, s->delay) / 2;

	send(s, tc, (uint16_t)q, now);
	s->out[tc] = true;
	net_sched(s->np, now + half, ev_refresh, s, (void *)(uintptr_t)tc, &s->refresh[tc]);
}

/* Every half pause time: pause again while occupancy is at or above Xoff, else XON. */
static void ev_refresh(void *a, void *b, emu_ps_t now)
{
	struct port_pfcs *s = a;
	uint32_t tc = (uint32_t)(uintptr_t)b;

	s->refresh[tc] = 0;
	if (s->used[tc] >= ppm(s->pool[tc], s->ingress->pfc_xoff_ppm[tc])) {
		pause_and_arm(s, tc, now);
		return;
	}
	s->out[tc] = false;
	send(s, tc, 0, now);
}

void port_pfcs_check_xoff(struct port_pfcs *s, uint32_t tc, uint64_t occupancy, emu_ps_t now)
{
	if (tc >= PORT_TC_COUNT || s->ingress->pfc_enable[tc] != 1 || s->out[tc])
		return;
	if (occupancy >= ppm(s->pool[tc], s->ingress->pfc_xoff_ppm[tc]))
		pause_and_arm(s, tc, now);
}

void port_pfcs_check_xon(struct port_pfcs *s, uint32_t tc, emu_ps_t now)
{
	if (!s->out[tc] || s->used[tc] > ppm(s->pool[tc], s->ingress->pfc_xon_ppm[tc]))
		return;
	emu_sched_cancel(s->np->sched, s->refresh[tc]);
	s->refresh[tc] = 0;
	s->out[tc] = false;
	send(s, tc, 0, now);
}

/* The part since the interval began of the pause of class @p tc holding until @p now. */
static emu_ps_t pause_in_ivl(const struct port_pfcs *s, uint32_t tc, emu_ps_t now)
{
	emu_ps_t from = s->paused_since[tc] > s->ivl_start ? s->paused_since[tc] : s->ivl_start;

	return now > from ? now - from : 0;
}

static void resume(struct port_pfcs *s, uint32_t tc, emu_ps_t now)
{
	if (s->paused_until[tc] == 0)
		return;
	emu_ps_t d = pause_in_ivl(s, tc, now);

	if (d > s->st.ivl_max_pause_ps[tc])
		s->st.ivl_max_pause_ps[tc] = d;
	s->st.paused_ps[tc] += now - s->paused_since[tc];
	s->paused_until[tc] = 0;
	s->ops->kick(s->dev, now);
}

static void ev_resume(void *a, void *b, emu_ps_t now)
{
	struct port_pfcs *s = a;
	uint32_t tc = (uint32_t)(uintptr_t)b;

	s->resume[tc] = 0;
	resume(s, tc, now);
}

/* A fresh pause restarts the pause time in full: quanta at the port's rate plus the link's delay. */
void port_pfcs_rx(struct port_pfcs *s, const struct wire_pkt *pkt, emu_ps_t now)
{
	for (uint32_t tc = 0; tc < PORT_TC_COUNT; tc++) {
		if (!(pkt->pfc_enable & (1u << tc)))
			continue;
		emu_sched_cancel(s->np->sched, s->resume[tc]);
		s->resume[tc] = 0;
		if (pkt->pfc_quanta[tc] == 0) {
			s->st.xon_rx[tc]++;
			resume(s, tc, now);
			continue;
		}
		s->st.xoff_rx[tc]++;
		if (s->paused_until[tc] == 0)
			s->paused_since[tc] = now;
		s->paused_until[tc] = now + net_pfc_pause_time(pkt->pfc_quanta[tc], s->bps, s->delay);
		net_sched(s->np, s->paused_until[tc], ev_resume, s, (void *)(uintptr_t)tc, &s->resume[tc]);
	}
}

void port_pfcs_stats(const struct port_pfcs *s, struct port_pfc_stats *out, emu_ps_t now)
{
	*out = s->st;
	for (uint32_t tc = 0; tc < PORT_TC_COUNT; tc++) {
		if (s->paused_until[tc] == 0)
			continue;
		out->paused_ps[tc] += now - s->paused_since[tc];
		if (pause_in_ivl(s, tc, now) > out->ivl_max_pause_ps[tc])
			out->ivl_max_pause_ps[tc] = pause_in_ivl(s, tc, now);
	}
}

void port_pfcs_interval_reset(struct port_pfcs *s, emu_ps_t now)
{
	s->ivl_start = now;
	for (uint32_t tc = 0; tc < PORT_TC_COUNT; tc++)
		s->st.ivl_max_pause_ps[tc] = 0;
}

struct wire_pkt *port_pfc_frame(struct net_part *np, const uint8_t mac[6], uint32_t tc, uint16_t quanta)
{
	struct wire_pkt *p = net_pkt_alloc_kind(np, WIRE_KIND_PFC);

	if (p == NULL)
		return NULL;
	memcpy(p->src_mac, mac, 6);
	p->pfc_enable = (uint16_t)(1u << tc);
	p->pfc_quanta[tc] = quanta;
	return p;
}
