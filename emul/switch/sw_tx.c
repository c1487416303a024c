/* Egress scheduling and transmission (switch-packet-handling.md, Egress scheduling; ECN marking): PFC frames
 * first, then strict priority TC7 down to TC0 skipping paused classes; RED marking as transmission starts. */
#include "sw_pvt.h"

/*
 * RED on the queue's average: never below the lower threshold, always at or above the upper one, in between
 * with probability MaxMarkProbability x (avg - lower) / (upper - lower). The draw is 32 bits of the switch's
 * stream u, and the packet is marked when u / 2^32 < p, compared exactly as u x den < num x 2^32.
 */
bool sw_ecn_decide(struct sw *sw, const struct sw_port *e, uint32_t pool)
{
	uint64_t avg = e->pl[pool].ecn_avg;
	uint64_t lo = sw->b.ecn_min[pool] << SW_EWMA_SHIFT, hi = sw->b.ecn_max[pool] << SW_EWMA_SHIFT;

	if (avg < lo)
		return false;
	if (avg >= hi)
		return true;
	unsigned __int128 num = (unsigned __int128)sw->p->ecn_max_prob_ppm * (avg - lo);
	unsigned __int128 den = (unsigned __int128)SW_PPM * (hi - lo);
	uint64_t u = emu_rng_next(&sw->rng) >> 32;

	return (unsigned __int128)u * den < num << 32;
}

/* ECN as transmission starts: only ECT(0) / ECT(1) packets, against the egress queue's band. */
static void ecn_mark(struct sw *sw, struct sw_port *e, const struct sw_tag *t, struct wire_pkt *pkt)
{
	if (!sw->p->ecn_enabled || !t->ect) /* the packet's own ECN field, seen at arrival: nothing changes it here */
		return;
	if (!sw_ecn_decide(sw, e, t->eg_pool))
		return;
	pkt->ecn = WIRE_ECN_CE;
	sw->c[SW_C_ECN_MARKS]++;
	e->st.ecn_marked[t->tc]++;
}

/* The next data frame: strict priority from TC7 down, skipping classes the peer has paused. SW_NIL if none. */
static uint32_t pick(struct sw *sw, struct sw_port *e)
{
	uint32_t m = (uint32_t)(e->qmask & ~e->pmask), tc, ti;

	if (m == 0)
		return SW_NIL;
	tc = 31u - (uint32_t)__builtin_clz(m); /* the highest class queued and not paused */
	ti = sw_fifo_pop(sw, &e->q[tc]);
	if (e->q[tc].head == SW_NIL)
		e->qmask &= (uint8_t)~(1u << tc);
	return ti;
}

/* Start the next frame if the port is idle: a PFC frame first, then a data frame (store-and-forward: the whole
 * packet is in the buffer before it is queued; no interframe gap). */
void sw_port_kick(struct sw *sw, struct sw_port *e, emu_ps_t now)
{
	struct wire_pkt *pkt;
	size_t wl;

	if (e->busy || e->out == NULL)
		return;
	if (e->pfcq_head != e->pfcq_tail) {
		pkt = e->pfcq[e->pfcq_head++ % SW_PFCQ];
		e->sending = SW_NIL;
		wl = wire_wire_len(pkt);
	} else {
		uint32_t ti = pick(sw, e);

		if (ti == SW_NIL)
			return;
		struct sw_tag *t = &sw->tags[ti];

		pkt = t->pkt;
		t->pkt = NULL; /* the link owns it now; the tag stays until serialization ends */
		pkt->tc = t->tc; /* the class it was queued in: a VLAN port's PCP */
		ecn_mark(sw, e, t, pkt);
		e->sending = ti;
		e->snd = *t;
		wl = t->wl;
	}
	e->busy = true;
	sw->c[SW_C_TX_FRAMES]++;
	e->st.tx_frames++;
	e->st.tx_bytes += wl;
	e->st.tx_frame_bytes += wl - WIRE_FCS_LEN;
	net_dir_xmit_len(e->out, pkt, wl, e->sending == SW_NIL ? WIRE_KIND_PFC : WIRE_KIND_NONE, now);
}
