/* The receive path (switch-packet-handling.md): classification, ingress admission, route lookup, egress
 * admission and trimming. Every rejection is a counted drop that releases what the packet was charged. */
#include "sw_pvt.h"

#include <string.h>

/* The UET policy's classes (switch-shared-buffer.md, Buffer under the UET policy). */
#define SW_UET_TC_DATA 0
#define SW_UET_TC_TRIMMED 1
#define SW_UET_TC_CONTROL 2

/* Classification: DSCP / 8, or under the UET policy by codepoint (CONTROL TC2, trimmed TC1, the rest TC0). */
static uint32_t classify(const struct sw *sw, const struct wire_pkt *pkt)
{
	if (!sw->p->uet_policy)
		return (pkt->dscp & 0x3f) / 8;
	switch (sw_dscp_role(sw, pkt->dscp)) {
	case WIRE_ROLE_CONTROL:
		return SW_UET_TC_CONTROL;
	case WIRE_ROLE_TRIMMED:
	case WIRE_ROLE_TRIMMED_LASTHOP:
		return SW_UET_TC_TRIMMED;
	default:
		return SW_UET_TC_DATA;
	}
}

/* A drop under @p reason, on the port counters @p drops and, for a trimmed packet, @p trimmed_drops. */
static void count_drop(struct sw *sw, const struct wire_pkt *pkt, enum sw_counter reason, uint64_t *drops,
		       uint64_t *trimmed_drops)
{
	sw->c[reason]++;
	(*drops)++;
	if (pkt->kind == WIRE_KIND_TRIMMED) {
		sw->c[SW_C_TRIMMED_DROPS]++;
		(*trimmed_drops)++;
	}
}

/* A drop of a packet that arrived on @p in (ingress admission, no route, a frame with no IP datagram). */
static void rx_drop(struct sw *sw, struct sw_port *in, const struct wire_pkt *pkt, enum sw_counter reason)
{
	count_drop(sw, pkt, reason, &in->st.rx_drops, &in->st.trimmed_rx_drops);
}

/* A drop of a packet headed out of @p e (egress admission, no link). */
static void tx_drop(struct sw *sw, struct sw_port *e, const struct wire_pkt *pkt, enum sw_counter reason)
{
	count_drop(sw, pkt, reason, &e->st.tx_drops, &e->st.trimmed_tx_drops);
}

/*
 * Ingress admission, steps 3 to 6. A lossless packet on a port that has paused its sender for the pool goes to
 * the port's headroom (not checked against the pool); otherwise the packet is charged to the pool and the port's
 * ingress occupancy, a lossless one first sending a pause if that occupancy with it would pass Xoff.
 * Returns SW_C_NONE when admitted, else the drop reason (nothing stays charged; the caller counts it).
 */
static enum sw_counter ingress_admit(struct sw *sw, struct sw_port *in, const struct sw_tag *t, emu_ps_t now)
{
	uint32_t pool = t->in_pool;
	uint64_t b = t->bytes;

	if (t->lossless && in->pl[pool].pausing) {
		if (in->pl[pool].hr_occ + b > sw->b.headroom_per_port)
			return SW_C_DROP_HEADROOM;
		in->pl[pool].hr_occ += b;
		sw->hr_occ[pool] += b;
		in->pl[pool].in_total += b;
		return SW_C_NONE;
	}
	if (t->lossless && in->pl[pool].in_occ + b > sw->b.xoff)
		sw_pfc_pause(sw, in, pool, now);
	in->pl[pool].in_occ += b;
	sw->in_occ[pool] += b;
	if (sw->in_occ[pool] > sw->b.pool_size[pool]) {
		in->pl[pool].in_occ -= b;
		sw->in_occ[pool] -= b;
		return SW_C_DROP_INGRESS_POOL;
	}
	in->pl[pool].in_total += b;
	return SW_C_NONE;
}

/* Release the ingress charge of @p t: a lossless release empties the port's headroom first, then its occupancy,
 * and may resume the port's sender (switch-shared-buffer.md, Run-time accounting, "Transmission completes"). */
void sw_ingress_release(struct sw *sw, struct sw_tag *t, emu_ps_t now)
{
	struct sw_port *in = &sw->ports[t->in_port];
	uint32_t pool = t->in_pool;
	uint64_t b = t->bytes;

	if (t->lossless) {
		uint64_t take = in->pl[pool].hr_occ < b ? in->pl[pool].hr_occ : b;

		in->pl[pool].hr_occ -= take;
		sw->hr_occ[pool] -= take;
		b -= take;
	}
	in->pl[pool].in_occ -= b;
	sw->in_occ[pool] -= b;
	if (t->lossless)
		if (in->pl[pool].pausing) /* the rest of the test, and a resume, in sw_pfc.c */
			sw_pfc_check_xon(sw, in, pool, now);
}

/* Within the egress queue limit of (port, pool) and the pool's egress capacity. */
static bool egress_fits(const struct sw *sw, const struct sw_port *e, uint32_t pool, uint64_t b, bool rtx)
{
	uint64_t lim = sw_buffer_egress_limit(&sw->b, pool, sw->eg_occ[pool], rtx);

	return e->pl[pool].eg_occ + b <= lim && sw->eg_occ[pool] + b <= sw->b.pool_size[pool];
}

/*
 * Cut @p t's packet to its headers (spec 1.6: IPv4 + UDP + the PDS request header, 62 B on the wire), re-mark it
 * TRIMMED, or TRIMMED_LASTHOP on a port facing a NIC, and move it to TC1. The payload leaves the buffer at once,
 * so the ingress charge shrinks to the trimmed size (a lossy charge: trimming runs with PFC off).
 */
static void trim(struct sw *sw, struct sw_port *e, struct sw_tag *t)
{
	struct wire_pkt *p = t->pkt;
	struct sw_port *in = &sw->ports[t->in_port];
	uint32_t nb, ip_before = (uint32_t)wire_ip_len(p);

	p->kind = WIRE_KIND_TRIMMED;
	p->payload_len = 0;
	p->dscp = sw->dscp.dscp[e->faces_nic ? WIRE_ROLE_TRIMMED_LASTHOP : WIRE_ROLE_TRIMMED];
	nb = sw_charge_bytes(wire_ip_len(p));
	t->wl = (uint16_t)wire_wire_len(p);
	in->pl[t->in_pool].in_occ -= t->bytes - nb;
	sw->in_occ[t->in_pool] -= t->bytes - nb;
	t->bytes = (uint16_t)nb;
	t->tc = SW_UET_TC_TRIMMED;
	t->eg_pool = sw->b.tc_pool[SW_UET_TC_TRIMMED];
	sw->c[SW_C_TRIMS]++;
	e->st.trims++;
	e->st.trimmed_bytes += ip_before - wire_ip_len(p);
}

/*
 * Egress admission: a lossless class with no limit check; a lossy class within both bounds, else trimmed (when
 * trimming is on and its codepoint is TRIMMABLE or TRIMMABLE_RTX) and offered to TC1, else dropped. An admitted
 * packet is charged to the egress pool and queue, and the ECN average of the queue is updated.
 * Returns false for a drop (counted on the egress port; the caller releases the ingress charge).
 */
static bool egress_admit(struct sw *sw, struct sw_port *e, uint32_t ti)
{
	struct sw_tag *t = &sw->tags[ti];
	int role = sw_dscp_role(sw, t->pkt->dscp);
	bool rtx = role == WIRE_ROLE_TRIMMABLE_RTX;

	if (!sw->b.tc_lossless[t->tc] && !egress_fits(sw, e, t->eg_pool, t->bytes, rtx)) {
		bool trimmable = sw->p->trimming_enabled && t->pkt->kind == WIRE_KIND_DATA &&
				 (role == WIRE_ROLE_TRIMMABLE || role == WIRE_ROLE_TRIMMABLE_RTX);

		if (!trimmable) { /* a packet trimmed upstream is not trimmable again: a trimmed drop */
			tx_drop(sw, e, t->pkt, SW_C_DROP_EGRESS_LIMIT);
			return false;
		}
		trim(sw, e, t);
		if (!sw->b.tc_lossless[t->tc] && !egress_fits(sw, e, t->eg_pool, t->bytes, false)) {
			tx_drop(sw, e, t->pkt, SW_C_DROP_TRIMMED_LIMIT);
			return false;
		}
	}
	e->pl[t->eg_pool].eg_occ += t->bytes;
	e->eg_total += t->bytes;
	e->pl[t->eg_pool].eg_total_b += t->bytes;
	sw->eg_occ[t->eg_pool] += t->bytes;
	sw_ecn_update(sw, e, t->eg_pool);
	sw_fifo_push(sw, &e->q[t->tc], ti);
	e->qmask |= (uint8_t)(1u << t->tc);
	sw->c[SW_C_FORWARDED]++;
	return true;
}

/* Drop an admitted packet: release its ingress charge, free it and its tag. */
static void drop_admitted(struct sw *sw, uint32_t ti, emu_ps_t now)
{
	struct sw_tag *t = &sw->tags[ti];

	sw_ingress_release(sw, t, now);
	net_pkt_free(sw->env.np, t->pkt);
	sw_tag_put(sw, ti);
}

/*
 * Forward an admitted packet: choose its egress port and offer it there. Once admitted to the port's queue the
 * frame is addressed for the hop, as a routed fabric does: source the port's MAC, destination its peer's.
 */
static void forward(struct sw *sw, struct sw_port *in, uint32_t ti, emu_ps_t now)
{
	struct sw_tag *t = &sw->tags[ti];
	struct sw_choice ch;

	if (!sw_ecmp_choose(sw, t->pkt, t->tc, now, &ch)) {
		rx_drop(sw, in, t->pkt, SW_C_DROP_NO_ROUTE);
		drop_admitted(sw, ti, now);
		return;
	}
	struct sw_port *e = &sw->ports[ch.port];

	if (e->out == NULL) {
		tx_drop(sw, e, t->pkt, SW_C_DROP_PORT_DOWN);
		drop_admitted(sw, ti, now);
		return;
	}
	if (!egress_admit(sw, e, ti)) {
		drop_admitted(sw, ti, now);
		return;
	}
	memcpy(t->pkt->src_mac, e->mac, sizeof(e->mac));
	memcpy(t->pkt->dst_mac, e->peer_mac, sizeof(e->peer_mac));
	sw_ecmp_commit(sw, &ch, t->bytes, now);
	sw_port_kick(sw, e, now);
}

/* Where @p p comes in the round robin that starts at @p first. */
static uint32_t arb_rank(const struct sw *sw, uint32_t p, uint32_t first)
{
	return p >= first ? p - first : p + sw->n_ports - first;
}

/*
 * The arbiter: forward the frames received in this picosecond, ingress port by ingress port in round-robin order,
 * each port's in the order they came. The port served first moves on by one each time, so ports whose frames
 * keep arriving together take turns at the head of the line (and at the one free slot of a full queue).
 */
void sw_arb_run(void *a, void *b, emu_ps_t now)
{
	struct sw *sw = a;
	uint32_t n = sw->arb_n, first = sw->arb_next;
	uint16_t *ps = sw->arb_ports;

	(void)b;
	for (uint32_t i = 1; i < n; i++) { /* insertion sort by rank: a handful of ports */
		uint16_t p = ps[i];
		uint32_t j = i;

		for (; j > 0 && arb_rank(sw, ps[j - 1], first) > arb_rank(sw, p, first); j--)
			ps[j] = ps[j - 1];
		ps[j] = p;
	}
	sw->arb_n = 0;
	if (n > 1) /* a port alone in its picosecond had nobody to take turns with: the pointer stays */
		sw->arb_next = ps[0] + 1u == sw->n_ports ? 0 : ps[0] + 1u; /* (ps[0] + 1) mod n_ports */
	for (uint32_t i = 0; i < n; i++) {
		struct sw_port *in = &sw->ports[ps[i]];
		struct sw_fifo q = in->arb;

		in->arb.head = in->arb.tail = SW_NIL;
		while (q.head != SW_NIL)
			forward(sw, in, sw_fifo_pop(sw, &q), now);
	}
}

/*
 * Frames from several ports can reach the switch in the same picosecond (senders in lockstep, as in an incast).
 * Taken in event order, the same port would always win the free slot of a full queue; a switch's arbiter takes
 * turns. A frame is forwarded at once when nothing else is due this picosecond, and otherwise waits for the
 * arbiter, which runs once every event of the picosecond has (emu_sched_at_end()).
 */
static void arbitrate(struct sw *sw, struct sw_port *in, uint32_t ti, emu_ps_t now)
{
	struct emu_sched *s = sw->env.np->sched;

	if (emu_sched_next(s) > now) { /* nothing else this picosecond (a waiting batch keeps next at now) */
		forward(sw, in, ti, now);
		return;
	}
	if (sw->arb_n == 0) /* the instant's first frame here */
		emu_sched_at_end(s, &sw->arb_end);
	if (in->arb.head == SW_NIL)
		sw->arb_ports[sw->arb_n++] = (uint16_t)in->idx;
	sw_fifo_push(sw, &in->arb, ti);
}

static void sw_receive(void *dev, uint32_t port, struct wire_pkt *pkt, emu_ps_t now)
{
	struct sw *sw = dev;
	size_t wl = wire_wire_len(pkt), ip_len = wire_ip_len(pkt);

	sw->c[SW_C_RX_FRAMES]++;
	if (port >= sw->n_ports) {
		sw->c[SW_C_DROP_BAD_PORT]++;
		goto free;
	}
	struct sw_port *in = &sw->ports[port];

	in->st.rx_frames++;
	in->st.rx_bytes += wl;
	in->st.rx_frame_bytes += wl - WIRE_FCS_LEN;
	if (pkt->kind == WIRE_KIND_PFC) { /* pauses or resumes this port's classes; never buffered */
		sw_pfc_rx(sw, in, pkt, now);
		goto free;
	}
	if (ip_len == 0) {
		rx_drop(sw, in, pkt, SW_C_DROP_BAD_KIND);
		goto free;
	}
	uint32_t ti = sw_tag_get(sw);

	if (ti == SW_NIL) {
		rx_drop(sw, in, pkt, SW_C_DROP_NO_TAG);
		goto free;
	}
	uint32_t tc = classify(sw, pkt);
	struct sw_tag *t = &sw->tags[ti];

	*t = (struct sw_tag){ .pkt = pkt, .next = SW_NIL, .bytes = (uint16_t)sw_charge_bytes(ip_len),
			      .in_port = (uint16_t)port,
			      .tc = (uint8_t)tc, .in_pool = sw->b.tc_pool[tc], .eg_pool = sw->b.tc_pool[tc],
			      .lossless = sw->b.tc_lossless[tc] != 0, .wl = (uint16_t)wl,
			      .ect = pkt->ecn == WIRE_ECN_ECT0 || pkt->ecn == WIRE_ECN_ECT1 };
	enum sw_counter why = ingress_admit(sw, in, t, now);

	if (why != SW_C_NONE) {
		rx_drop(sw, in, pkt, why);
		sw_tag_put(sw, ti);
		goto free;
	}
	arbitrate(sw, in, ti, now);
	return;
free:
	net_pkt_free(sw->env.np, pkt);
}

static void sw_tx_done(void *dev, uint32_t port, emu_ps_t now);

const struct net_dev_ops sw_dev_ops = {
	.receive = sw_receive,
	.tx_done = sw_tx_done,
};

/* Serialization ended: release the frame's egress and ingress charges, then send the next frame. */
static void sw_tx_done(void *dev, uint32_t port, emu_ps_t now)
{
	struct sw *sw = dev;
	struct sw_port *e = &sw->ports[port];

	e->busy = false;
	if (e->sending != SW_NIL) {
		uint32_t ti = e->sending;
		struct sw_tag *t = &e->snd; /* the tag's charges, copied when it started */

		e->sending = SW_NIL;
		e->pl[t->eg_pool].eg_occ -= t->bytes;
		e->eg_total -= t->bytes;
		sw->eg_occ[t->eg_pool] -= t->bytes;
		sw_ingress_release(sw, t, now);
		sw_tag_put(sw, ti);
	}
	sw_port_kick(sw, e, now);
}
