/* The sender's feedback: ACKs (cumulative and selective), trim NACKs, the per-PDC retransmission timer. */
#include "nic_pvt.h"

/* Take @p r out of the group's bytes in flight, once. */
static void out_of_flight(struct nic_pdc *pdc, struct nic_rec *r)
{
	if (r->in_flight) {
		r->in_flight = 0;
		pdc->group->in_flight -= nic_nominal(r->payload);
	}
}

static void rtx_unlink(struct nic_pdc *pdc, struct nic_rec *r)
{
	struct nic_rec **pp = &pdc->rtx_head, *prev = NULL;

	while (*pp != NULL && *pp != r) {
		prev = *pp;
		pp = &(*pp)->rtx_next;
	}
	if (*pp == NULL)
		return;
	*pp = r->rtx_next;
	if (pdc->rtx_tail == r)
		pdc->rtx_tail = prev;
	r->rtx_next = NULL;
	if (pdc->rtx_head == NULL)
		nic_pdc_idle_note(pdc);
}

/* An acknowledged packet leaves flight, the retransmission queue and the outstanding list. */
static void retire(struct nic *nic, struct nic_pdc *pdc, struct nic_rec *r)
{
	out_of_flight(pdc, r);
	if (r->state == NIC_REC_LOST)
		rtx_unlink(pdc, r);
	if (r->prev != NULL)
		r->prev->next = r->next;
	else
		pdc->out_head = r->next;
	if (r->next != NULL)
		r->next->prev = r->prev;
	else
		pdc->out_tail = r->prev;
	r->uid = 0; /* a copy still waiting to go out no longer names this record */
	pdc->pkts_acked++;
	emu_pool_put(nic->rec_pool, r);
}

/* Queue @p r for retransmission ahead of new data; it no longer counts as in flight. */
static void mark_lost(struct nic_pdc *pdc, struct nic_rec *r)
{
	out_of_flight(pdc, r);
	r->late_at = EMU_PS_NEVER;
	r->state = NIC_REC_LOST;
	r->rto_at = EMU_PS_NEVER;
	r->rtx_next = NULL;
	if (pdc->rtx_tail != NULL)
		pdc->rtx_tail->rtx_next = r;
	else
		pdc->rtx_head = r;
	pdc->rtx_tail = r;
}

bool nic_rec_requeue(struct nic_pdc *pdc, struct nic_rec *r)
{
	if (!r->in_flight || r->state == NIC_REC_LOST)
		return false;
	mark_lost(pdc, r);
	return true;
}

/* After an ACK, NACK or timeout: the group comes back at the head of the ready queue and the pass runs now. */
void nic_pdc_wake(struct nic *nic, struct nic_pdc *pdc, emu_ps_t now)
{
	if (!pdc->in_rr)
		nic_pdc_rr_add(nic, pdc);
	nic_group_ready(nic, pdc->group, true);
	nic_pump_arm(nic, now);
}

static void ev_rto(void *a, void *b, emu_ps_t now);
static void ev_late(void *a, void *b, emu_ps_t now);

void nic_late_arm(struct nic *nic, struct nic_pdc *pdc, emu_ps_t deadline)
{
	if (pdc->late_timer != 0 && pdc->late_armed <= deadline)
		return;
	emu_sched_cancel(nic->env.np->sched, pdc->late_timer);
	pdc->late_timer = 0;
	if (net_sched(nic->env.np, deadline, ev_late, nic, pdc, &pdc->late_timer) == 0)
		pdc->late_armed = deadline;
}

/* Early failure detection: each packet past its deadline is reported once to the load balancer; it is neither
 * retransmitted nor is its retransmission timer touched (uet-nic-multipath.md, Early failure detection). */
static void ev_late(void *a, void *b, emu_ps_t now)
{
	struct nic *nic = a;
	struct nic_pdc *pdc = b;
	emu_ps_t next = EMU_PS_NEVER;

	pdc->late_timer = 0;
	for (struct nic_rec *r = pdc->out_head; r != NULL; r = r->next) {
		if (r->late_at == EMU_PS_NEVER)
			continue;
		if (r->late_at <= now && r->state == NIC_REC_SENT) {
			r->late_at = EMU_PS_NEVER;
			nic_lb_on_failure(&pdc->group->lb, NIC_LB_C_LATE, now);
		} else if (r->late_at < next) {
			next = r->late_at;
		}
	}
	if (next != EMU_PS_NEVER)
		nic_late_arm(nic, pdc, next);
}

/* Arm the PDC's one timer for @p deadline if nothing earlier is armed. */
void nic_rto_arm(struct nic *nic, struct nic_pdc *pdc, emu_ps_t deadline)
{
	if (pdc->rto_timer != 0 && pdc->rto_armed <= deadline)
		return;
	emu_sched_cancel(nic->env.np->sched, pdc->rto_timer);
	pdc->rto_timer = 0;
	if (net_sched(nic->env.np, deadline, ev_rto, nic, pdc, &pdc->rto_timer) == 0)
		pdc->rto_armed = deadline;
}

/*
 * The PDC's timer: every packet past its deadline is lost (num_rto), queued for retransmission, and the timer is
 * re-armed for the earliest remaining deadline. A timer for packets already acknowledged finds nothing to do.
 */
static void ev_rto(void *a, void *b, emu_ps_t now)
{
	struct nic *nic = a;
	struct nic_pdc *pdc = b;
	emu_ps_t next = EMU_PS_NEVER;
	int lost = 0;

	pdc->rto_timer = 0;
	for (struct nic_rec *r = pdc->out_head; r != NULL; r = r->next) {
		if (r->state != NIC_REC_SENT)
			continue;
		if (r->rto_at <= now) {
			nic->c[NIC_C_NUM_RTO]++;
			nic_lb_on_failure(&pdc->group->lb, NIC_LB_C_TIMEOUTS, now);
			mark_lost(pdc, r);
			nic_cc_on_timeout(&pdc->group->cc, &nic->cc_k, nic_nominal(r->payload), now);
			lost++;
		} else if (r->rto_at < next) {
			next = r->rto_at;
		}
	}
	if (next != EMU_PS_NEVER)
		nic_rto_arm(nic, pdc, next);
	if (lost)
		nic_pdc_wake(nic, pdc, now);
}

/* After the first data ACK of each message on a PDC, one base-RTT probe (seed 000, Acknowledgements). */
static void send_probe(struct nic *nic, struct nic_pdc *pdc, emu_ps_t now)
{
	struct wire_pkt *p = nic_pkt_new(nic, WIRE_KIND_CP, pdc);
	uint32_t una = pdc->out_head != NULL ? pdc->out_head->psn : pdc->next_psn;

	pdc->probe_sent = true;
	pdc->probe_at = now;
	if (p == NULL)
		return;
	p->sport = nic_lb_last_ev(&pdc->group->lb); /* a probe takes no step of the load balancer */
	p->pds.type = WIRE_PDS_CP;
	p->pds.next_hdr = WIRE_CTL_PROBE;
	p->pds.flags = WIRE_CP_F_AR;
	p->pds.probe_opaque = ++nic->probe_opaque;
	p->pds.psn = una;
	p->pds.spdcid = pdc->id;
	p->pds.dpdcid = pdc->remote_id;
	p->pds.payload = una; /* SACK bitmap base PSN */
	if (nic_txq_push(nic, NIC_TC_CTRL, p, now) < 0) {
		nic->c[NIC_C_DROP_TX_CTL_POOL_FULL]++;
		net_pkt_free(nic->env.np, p);
	}
}

static void msg_complete(struct nic *nic, struct nic_pdc *pdc, emu_ps_t now)
{
	uint64_t cookie = pdc->cookie; /* before a connection's next message takes its place */

	nic->c[NIC_C_WQES_COMPLETED]++;
	nic_event(nic, pdc, NIC_EV_WQE_COMPLETE, now);
	pdc->busy = false;
	if (pdc->conn) {
		/* a connection's next message starts once the one ahead of it has completed */
		struct nic_wqe *w = pdc->wq_head;
		if (w != NULL) {
			pdc->wq_head = w->next;
			if (pdc->wq_head == NULL)
				pdc->wq_tail = NULL;
			nic_msg_start(nic, pdc, w->bytes, w->cookie, now);
			emu_pool_put(nic->wqe_pool, w);
		}
	}
	if (nic->env.hooks.msg_done != NULL)
		nic->env.hooks.msg_done(nic->env.hooks.arg, cookie, now);
	/* The messages workload, like Chakra, closes a message's PDC when the message completes. */
	if (!pdc->conn && pdc->close_req) /* the target asked (CLOSE_REQ, nic_ctl.c): CLOSE tells it */
		nic_ctl_send_close(nic, pdc, now);
	if (!pdc->conn)
		nic_pdc_finish(nic, pdc, now);
}

void nic_pdc_finish(struct nic *nic, struct nic_pdc *pdc, emu_ps_t now)
{
	emu_sched_cancel(nic->env.np->sched, pdc->rto_timer);
	emu_sched_cancel(nic->env.np->sched, pdc->late_timer);
	pdc->rto_timer = 0;
	pdc->late_timer = 0;
	while (pdc->out_head != NULL) { /* a connection closed with packets outstanding */
		struct nic_rec *r = pdc->out_head;
		pdc->out_head = r->next;
		out_of_flight(pdc, r);
		r->uid = 0;
		if (r->state == NIC_REC_PREFETCHING || r->state == NIC_REC_PREFETCHED)
			pdc->group->pf_nominal -= nic_nominal(r->payload);
		if (r->state == NIC_REC_PREFETCHING) {
			/* its fetch is still on PCIe: ev_prefetch_done() finds no PDC and returns it to the pool */
			r->pdc = NULL;
			continue;
		}
		emu_pool_put(nic->rec_pool, r);
	}
	pdc->out_tail = NULL;
	pdc->pf_next = NULL;
	/* the prefetch buffer room its fetched and fetching payloads held is free at once */
	nic_pf_release(nic, pdc->pf_bytes, now);
	pdc->pf_bytes = 0;
	nic_pdc_close(nic, pdc, now);
}

/* The RTT sample of an ACK: from the end of the acked packet's serialization to the ACK, less the receiver's
 * reported hold. Only a packet sent once gives one (a retransmitted packet's ACK is ambiguous). */
/*
 * The RTT sample @p r gives when feedback for it arrives at @p now, less the receiver's @p hold: only from a first
 * transmission or a first retransmission, the feedback's RETX flag (@p retx) telling which copy it answers.
 * EMU_PS_NEVER when the rule gives none.
 */
static emu_ps_t rtt_of(const struct nic_rec *r, bool retx, emu_ps_t hold, emu_ps_t now)
{
	emu_ps_t rtt = now - r->sent_end;

	if (r->state != NIC_REC_SENT || !((r->tx_count == 1 && !retx) || (r->tx_count == 2 && retx)))
		return EMU_PS_NEVER;
	return rtt > hold ? rtt - hold : 0;
}

/* An ACK's sample (held for the PCIe service time it reports), counted in the transport stats with its penalty
 * and ECN echo. */
static emu_ps_t rtt_sample(struct nic *nic, const struct nic_rec *r, const struct wire_pkt *ack, emu_ps_t now)
{
	emu_ps_t rtt = rtt_of(r, (ack->pds.flags & WIRE_ACK_F_RETX) != 0,
			      (emu_ps_t)ack->ack.service_time * 128 * EMU_PS_PER_NS, now);

	if (rtt == EMU_PS_NEVER)
		return rtt;
	nic_sample_add(nic, NIC_S_RTT_PS, rtt);
	nic_sample_add(nic, NIC_S_RCVR_CWND_PEN, ack->ack.rcv_cwnd_pend);
	if (ack->pds.flags & WIRE_ACK_F_M)
		nic->c[NIC_C_M_MARKED_PKTS_RCVD]++;
	return rtt;
}

/* Retire every outstanding PSN at or below the cumulative ACK, each PSN the bitmap lists, and the ACK's own PSN, the
 * packet that drew it, which its bitmap may leave out when it reports another 64-PSN block (page *Transport*, What
 * an ACK carries). Returns the RTT sample the ACK gave, or EMU_PS_NEVER. */
static emu_ps_t apply_ack(struct nic *nic, struct nic_pdc *pdc, const struct wire_pkt *pkt, emu_ps_t now,
			  uint64_t *acked_bytes)
{
	emu_ps_t rtt = EMU_PS_NEVER;
	uint32_t cack = pkt->pds.psn;
	int32_t off = pkt->pds.psn_off, sack_off = pkt->pds.sack_psn_off; /* (a named int32_t: gcc's -Wconversion) */
	uint32_t ack_psn = cack + (uint32_t)off;
	uint32_t base = cack + (uint32_t)sack_off;
	/* past the cumulative ACK, only the bitmap's last set PSN matters: stop there (no walk when it is empty) */
	uint32_t last = pkt->ack.sack_bitmap ? base + 63u - (uint32_t)__builtin_clzll(pkt->ack.sack_bitmap) : cack;
	struct nic_rec *r = pdc->out_head;

	if ((int32_t)(ack_psn - last) > 0)
		last = ack_psn;
	while (r != NULL) {
		struct nic_rec *next = r->next;
		uint32_t d = r->psn - base;
		bool acked = (int32_t)(cack - r->psn) >= 0 || (d < 64 && (pkt->ack.sack_bitmap >> d) & 1) ||
			     r->psn == ack_psn;
		if (acked) {
			if (r->psn == ack_psn)
				rtt = rtt_sample(nic, r, pkt, now);
			if (r->in_flight)
				*acked_bytes += nic_nominal(r->payload);
			retire(nic, pdc, r);
		} else if ((int32_t)(r->psn - last) > 0) {
			break; /* PSN order: nothing further can be acknowledged by this ACK */
		}
		r = next;
	}
	return rtt;
}

/* Is @p psn one this PDC has sent (issued), i.e. at most next_psn - 1? */
static bool psn_sent(const struct nic_pdc *pdc, uint32_t psn)
{
	return (int32_t)(psn - (pdc->next_psn - 1)) <= 0;
}

/*
 * Does @p pkt claim only PSNs this PDC has sent: its cumulative PSN, its own PSN and the bitmap's last set PSN? A peer
 * (or a forger) acknowledging more would retire packets that never arrived and complete a message never delivered.
 */
static bool ack_within_sent(const struct nic_pdc *pdc, const struct wire_pkt *pkt)
{
	uint32_t cack = pkt->pds.psn;
	int32_t off = pkt->pds.psn_off, sack_off = pkt->pds.sack_psn_off;
	uint32_t base = cack + (uint32_t)sack_off;

	if (!psn_sent(pdc, cack) || !psn_sent(pdc, cack + (uint32_t)off))
		return false;
	return pkt->ack.sack_bitmap == 0 ||
	       psn_sent(pdc, base + 63u - (uint32_t)__builtin_clzll(pkt->ack.sack_bitmap));
}

/*
 * An ACK on a sending PDC. Selective ACKs never trigger a retransmission (seed 000, Selective acknowledgements):
 * a gap is recovered by a trim NACK or by the retransmission timer.
 */
void nic_rx_ack(struct nic *nic, struct wire_pkt *pkt, emu_ps_t now)
{
	struct nic_pdc *pdc = nic_pdc_snd_find(nic, pkt->pds.dpdcid);

	nic->c[NIC_C_ACK_PKTS_RCVD]++;
	if (pdc == NULL || pdc->peer_ip != pkt->src_ip) {
		/* the probe ACK of a message that completed on its first ACK comes back after its PDC closed */
		if (pkt->pds.flags & WIRE_ACK_F_P)
			nic->c[NIC_C_PROBE_ACK_RCVD]++;
		nic->c[NIC_C_LATE_NO_PDC]++;
		nic_trace_now(nic, pkt, NIC_TR_RX, NULL, EMU_PS_NEVER, now); /* received all the same (uet-monitor) */
		return;
	}
	if (!ack_within_sent(pdc, pkt)) {
		nic->c[NIC_C_DROP_ACK_BEYOND_SENT]++;
		return;
	}
	if (pdc->remote_id == 0)
		pdc->remote_id = pkt->pds.spdcid;
	if (pkt->pds.flags & WIRE_ACK_F_P) {
		/* the probe's round trip (its ACK is not held) feeds the base RTT */
		emu_ps_t rtt = now - pdc->probe_at;
		nic->c[NIC_C_PROBE_ACK_RCVD]++;
		nic_cc_on_probe_rtt(&pdc->group->cc, &nic->cc_k, rtt, now);
		nic_trace_now(nic, pkt, NIC_TR_RX, pdc, rtt, now);
		return;
	}
	/* path and congestion feedback first: msg_complete() may free the group */
	struct nic_group *g = pdc->group;
	uint64_t acked = 0, qa = nic_cc_quick_adapts(&g->cc);

	nic_lb_on_ack(&g->lb, nic->p, pkt->sport, (pkt->pds.flags & WIRE_ACK_F_M) != 0, now);
	emu_ps_t rtt = apply_ack(nic, pdc, pkt, now, &acked);
	struct nic_cc_ack ca = { .acked = acked, .in_flight = g->in_flight, .rtt = rtt, .has_rtt = rtt != EMU_PS_NEVER,
				 .ecn = (pkt->pds.flags & WIRE_ACK_F_M) != 0, .restore = pkt->ack.rc != 0,
				 .penalty = pkt->ack.rcv_cwnd_pend };
	nic_cc_on_ack(&g->cc, &nic->cc_k, &ca, now);
	nic->c[NIC_C_NUM_QUICK_ADAPT] += nic_cc_quick_adapts(&g->cc) - qa;
	if (ca.has_rtt)
		nic_sample_add(nic, NIC_S_AVG_Q_DELAY_PS, nic_cc_avg_qdelay(&g->cc));
	nic_trace_now(nic, pkt, NIC_TR_RX, pdc, rtt, now);
	/*
	 * The ACK brings the group back at the head of the ready queue, whichever of its PDCs can use the window it
	 * opened (seed 000, PDC groups and the transmit scheduler). The PDCs with data to send are those on the
	 * group's ring (the others leave it lazily, in group_pick()): with none there, no pass is needed.
	 */
	/* after the first data ACK of each message, one probe: also when that ACK completes the message (page
	 * *Transport*, Acknowledgements: each message on a PDC draws one probe and one probe ACK) */
	if (!pdc->probe_sent)
		send_probe(nic, pdc, now);
	if (pdc->pkts_acked == pdc->n_pkts) {
		/* Only for the other PDCs on the ring: a connection's next message waits its 15 ns doorbell delay
		 * (nic_msg_start()). In the ready queue the group outlives msg_complete() closing this PDC. */
		if (g->rr != NULL && (g->rr != pdc || pdc->rr_next != pdc)) {
			nic_group_ready(nic, g, true);
			nic_pump_arm(nic, now);
		}
		msg_complete(nic, pdc, now);
		return;
	}
	if (g->rr != NULL) {
		nic_group_ready(nic, g, true);
		nic_pump_arm(nic, now);
	}
}

/*
 * A trim NACK: if the packet is still outstanding (in flight), it leaves flight and is queued for retransmission
 * ahead of new data. A NACK for a packet already acknowledged or already queued does nothing.
 */
void nic_rx_nack(struct nic *nic, struct wire_pkt *pkt, emu_ps_t now)
{
	struct nic_pdc *pdc = nic_pdc_snd_find(nic, pkt->pds.dpdcid);

	nic->c[NIC_C_NACK_PKTS_RCVD]++;
	if (pkt->pds.flags & WIRE_NACK_F_NT) { /* a RUDI NACK: its PSN is a pkt_id, no PDC; this NIC sends no RUDI */
		nic->uet_rx.ev[NIC_UE_RUDI_NACK_UNMATCHED]++;
		return;
	}
	if (pdc == NULL || pdc->peer_ip != pkt->src_ip) {
		nic->c[NIC_C_LATE_NO_PDC]++;
		return;
	}
	if (!psn_sent(pdc, pkt->pds.psn)) {
		nic->c[NIC_C_DROP_ACK_BEYOND_SENT]++;
		return;
	}
	if (pdc->remote_id == 0)
		pdc->remote_id = pkt->pds.spdcid;
	nic_trace_now(nic, pkt, NIC_TR_RX, pdc, EMU_PS_NEVER, now);
	if (pkt->pds.nack_code != WIRE_NACK_TRIMMED && pkt->pds.nack_code != WIRE_NACK_TRIMMED_LASTHOP) {
		nic_pds_nack_code(nic, pdc, pkt, now); /* the other codes of UET 1.0 (nic_pds.c) */
		return;
	}
	for (struct nic_rec *r = pdc->out_head; r != NULL; r = r->next) {
		if (r->psn != pkt->pds.psn)
			continue;
		if (r->in_flight && r->state != NIC_REC_LOST) {
			uint64_t qa = nic_cc_quick_adapts(&pdc->group->cc);
			nic_lb_on_nack(&pdc->group->lb, nic->p, pkt->sport, pkt->pds.nack_code == WIRE_NACK_TRIMMED_LASTHOP,
				       now);
			/* its RTT sample, under an ACK's rule with no hold, is offered to the base RTT (congestion-control
			 * page, Loss reactions) */
			emu_ps_t rtt = rtt_of(r, (pkt->pds.flags & WIRE_NACK_F_RETX) != 0, 0, now);

			mark_lost(pdc, r);
			nic_cc_on_trim(&pdc->group->cc, &nic->cc_k, nic_nominal(r->payload), rtt, pdc->group->in_flight,
				       now);
			nic->c[NIC_C_NUM_QUICK_ADAPT] += nic_cc_quick_adapts(&pdc->group->cc) - qa;
			nic_pdc_wake(nic, pdc, now);
		}
		return;
	}
}
