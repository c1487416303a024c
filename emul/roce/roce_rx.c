/* The receiver (transport page, Receiving a packet and Acknowledgements): PSN checks, go-back-N discards with one
 * NAK per gap, ACK coalescing by count, by the solicited-event flag and by timer, and the PCIe writes that deliver
 * the payload and release the receive pool. */
#include "roce_pvt.h"

static void send_aeth(struct roce *r, struct roce_qp *qp, bool nak, emu_ps_t now)
{
	struct wire_pkt *p = roce_pkt_new(r, qp, WIRE_ROCE_ACK, r->ctrl_tc);

	if (p == NULL)
		return;
	p->roce.psn = nak ? qp->epsn : (qp->epsn - 1) & ROCE_PSN_MASK;
	p->roce.syndrome = nak ? WIRE_AETH_NAK_SEQ : WIRE_AETH_ACK;
	p->roce.msn = qp->msn & ROCE_PSN_MASK;
	if (roce_ctl_send(r, p, r->ctrl_tc, now))
		r->c[nak ? ROCE_C_NACKS_SENT : ROCE_C_ACKS_SENT]++;
}

static void ev_ack_timer(void *a, void *b, emu_ps_t now)
{
	struct roce *r = a;
	struct roce_qp *qp = b;

	qp->ack_armed = false;
	if (qp->held == 0)
		return;
	qp->held = 0;
	send_aeth(r, qp, false, now);
}

static void ack_timer_start(struct roce *r, struct roce_qp *qp, emu_ps_t now)
{
	if (qp->ack_armed)
		emu_sched_cancel(r->env.np->sched, qp->ack_timer);
	qp->ack_armed = net_sched(r->env.np, now + r->p->ack_delay, ev_ack_timer, r, qp, &qp->ack_timer) == 0;
}

/* The acknowledgement rules for an in-order or duplicate data packet. */
static void ack_rules(struct roce *r, struct roce_qp *qp, bool se, emu_ps_t now)
{
	if (!r->p->ack_coalescing) {
		send_aeth(r, qp, false, now);
		return;
	}
	if (!se && qp->held < r->p->ack_threshold) { /* held: the timer starts if it is idle */
		qp->held++;
		if (!qp->ack_armed)
			ack_timer_start(r, qp, now);
		return;
	}
	qp->held = 0; /* by the count, or by the solicited-event flag: at once, and the timer restarts */
	send_aeth(r, qp, false, now);
	ack_timer_start(r, qp, now);
}

static void ev_release(void *a, void *b, emu_ps_t now)
{
	struct roce *r = a;
	uint64_t v = (uint64_t)(uintptr_t)b;

	roce_in_release(r, (uint32_t)(v >> 32), (uint32_t)v, now);
}

/* The payload's PCIe write (port_pcie.c, the UET NIC's): the packet stays charged to its receive pool until the NIC
 * side's transmit buffers accept the write (buffers page, Receive buffer), writes in arrival order. */
static void deliver(struct roce *r, struct roce_qp *qp, const struct wire_pkt *pkt, uint32_t charge, uint32_t tc,
		    emu_ps_t now)
{
	emu_ps_t accept = port_pcie_write(&r->pcie, pkt->payload_len, r->pcie_tx_cap, now);

	if (accept <= now || net_sched(r->env.np, accept, ev_release, r,
				       (void *)(uintptr_t)((uint64_t)tc << 32 | charge), NULL) != 0)
		roce_in_release(r, tc, charge, now);
	r->c[ROCE_C_RX_PAYLOAD_BYTES] += pkt->payload_len;
	qp->rcv_bytes += pkt->payload_len;
	if (pkt->roce.se) { /* the last packet of a message: the host learns it arrived */
		qp->msn++;
		if (r->env.hooks.msg_recv != NULL)
			r->env.hooks.msg_recv(r->env.hooks.arg, r->env.fep_id, qp->peer_ip, qp->qpn, qp->msn,
					      qp->rcv_bytes, now);
		qp->rcv_bytes = 0;
	}
}

void roce_rx_data(struct roce *r, struct wire_pkt *pkt, uint32_t charge, uint32_t tc, emu_ps_t now)
{
	struct roce_qp *qp = roce_qp_find(r, pkt->src_ip, pkt->roce.dqpn, false);
	uint32_t d;

	r->c[pkt->roce.opcode <= WIRE_ROCE_SEND_ONLY ? ROCE_C_SENDS_RECVD : ROCE_C_WRITES_RECVD]++;
	if (qp == NULL) /* the receiving end is created by the first packet (transport page, Queue pairs) */
		qp = roce_qp_new(r, pkt->src_ip, pkt->roce.dqpn, false);
	if (qp == NULL) {
		r->c[ROCE_C_RX_DROPS_NO_QP_DATA]++;
		goto release;
	}
	d = roce_psn_diff(pkt->roce.psn, qp->epsn);
	if (d == 0) {
		qp->epsn = (qp->epsn + 1) & ROCE_PSN_MASK;
		qp->nak_out = false;
		deliver(r, qp, pkt, charge, tc, now);
		ack_rules(r, qp, pkt->roce.se, now);
		net_pkt_free(r->env.np, pkt);
		return;
	}
	if (d >= ROCE_MSG_PKTS_MAX) { /* lower than expected: a duplicate, acknowledged, not delivered again */
		r->c[ROCE_C_DUPLICATE]++;
		ack_rules(r, qp, pkt->roce.se, now);
		goto release;
	}
	r->c[ROCE_C_RX_DROPS_AFTER_NAK]++; /* a gap: one NAK, then discard until it fills */
	if (!qp->nak_out) {
		qp->nak_out = true;
		qp->held = 0; /* a NAK cancels the acknowledgement being held */
		r->c[ROCE_C_SEQ_OUT_OF_ORDER]++;
		send_aeth(r, qp, true, now);
	}
release:
	roce_in_release(r, tc, charge, now);
	net_pkt_free(r->env.np, pkt);
}
