/* Control packets other than the base-RTT PROBE (nic_rx.c): ACK_REQ, CLEAR, CLEAR_REQ, CLOSE, CLOSE_REQ and NOOP
 * as UET 1.0 defines them, and the ones the model does not run (CREDIT, CREDIT_REQ, NEGOTIATION) answered with NACK
 * UNEXP_EVENT, as the UEC reference provider answers them (docs/wire.md, What the NIC model does with them). */
#include "nic_pvt.h"

static inline void ev(struct nic *nic, int e)
{
	nic->uet_rx.ev[e]++;
}

/* A CP of @p pdc to its peer: ctl_type @p ctl, AR, the PDC's next PSN, @p payload. */
static void send_cp(struct nic *nic, struct nic_pdc *pdc, uint8_t ctl, uint32_t payload, emu_ps_t now)
{
	struct wire_pkt *p = nic_pkt_new(nic, WIRE_KIND_UET, pdc);

	if (p == NULL)
		return;
	p->sport = nic_lb_last_ev(&pdc->group->lb);
	p->pds.type = WIRE_PDS_CP;
	p->pds.next_hdr = ctl;
	p->pds.flags = WIRE_CP_F_AR;
	p->pds.psn = pdc->next_psn;
	p->pds.spdcid = pdc->id;
	p->pds.dpdcid = pdc->remote_id;
	p->pds.payload = payload;
	nic_push_ctrl(nic, p, now);
}

void nic_ctl_send_close(struct nic *nic, struct nic_pdc *pdc, emu_ps_t now)
{
	send_cp(nic, pdc, WIRE_CTL_CLOSE, 0, now); /* payload 0 (spec 1.3) */
	ev(nic, NIC_UE_CP_CLOSE_REQ);
}

/*
 * ACK_REQ, CLEAR and CLOSE come from the initiator to its target's receive PDC (found by the initiator's SPDCID):
 * each is answered with the PDC's ACK, which names CACK_PSN only (ack_psn_offset 0: the CP's PSN carries no data);
 * CLOSE then closes the PDC. A CP for no PDC is NACKed INV_DPDCID.
 */
static void ctl_to_rcv(struct nic *nic, struct wire_pkt *pkt, emu_ps_t now)
{
	struct nic_pdc *pdc = nic_pdc_rcv_find(nic, pkt->src_ip, pkt->pds.spdcid);
	uint8_t ctl = pkt->pds.next_hdr;

	if (pdc == NULL) {
		nic_pds_nack(nic, NULL, pkt, WIRE_NACK_INV_DPDCID, NIC_UE_NACK_INV_DPDCID, now);
		return;
	}
	nic_pdc_rcv_touch(nic, pdc, now);
	nic_trace_now(nic, pkt, NIC_TR_RX, pdc, EMU_PS_NEVER, now);
	struct wire_pkt *ack = nic_build_ack(nic, pdc, pkt);
	if (ack != NULL) {
		ack->pds.psn_off = 0;
		nic_push_ctrl(nic, ack, now);
	}
	ev(nic, ctl == WIRE_CTL_ACK_REQ ? NIC_UE_CP_ACK_REQ : ctl == WIRE_CTL_CLEAR ? NIC_UE_CP_CLEAR : NIC_UE_CP_CLOSE);
	if (ctl == WIRE_CTL_CLOSE)
		nic_pdc_close(nic, pdc, now);
}

/*
 * CLEAR_REQ and CLOSE_REQ come from a target to the initiator's sending PDC (its DPDCID): CLEAR_REQ is answered with
 * CLEAR naming every PSN before the oldest one outstanding; CLOSE_REQ closes the PDC with CLOSE once its message has
 * completed (at once when none is in progress). A connection's PDC closes only when its owner says.
 */
static void ctl_to_snd(struct nic *nic, struct wire_pkt *pkt, emu_ps_t now)
{
	struct nic_pdc *pdc = nic_pdc_snd_find(nic, pkt->pds.dpdcid);

	if (pdc == NULL || pdc->peer_ip != pkt->src_ip) {
		nic_pds_nack(nic, NULL, pkt, WIRE_NACK_INV_DPDCID, NIC_UE_NACK_INV_DPDCID, now);
		return;
	}
	if (pdc->remote_id == 0)
		pdc->remote_id = pkt->pds.spdcid;
	if (pkt->pds.next_hdr == WIRE_CTL_CLEAR_REQ) {
		uint32_t una = pdc->out_head != NULL ? pdc->out_head->psn : pdc->next_psn;
		send_cp(nic, pdc, WIRE_CTL_CLEAR, una - 1, now);
		ev(nic, NIC_UE_CP_CLEAR_REQ);
		return;
	}
	if (pdc->conn) {
		ev(nic, NIC_UE_CP_CLOSE_REQ_BUSY);
		return;
	}
	if (pdc->busy || pdc->out_head != NULL) {
		pdc->close_req = true; /* msg_complete() sends CLOSE before it closes the PDC */
		return;
	}
	nic_ctl_send_close(nic, pdc, now);
	nic_pdc_finish(nic, pdc, now);
}

void nic_ctl_rx(struct nic *nic, struct wire_pkt *pkt, emu_ps_t now)
{
	switch (pkt->pds.next_hdr) {
	case WIRE_CTL_NOOP:
		ev(nic, NIC_UE_CP_NOOP);
		break;
	case WIRE_CTL_ACK_REQ:
	case WIRE_CTL_CLEAR:
	case WIRE_CTL_CLOSE:
		ctl_to_rcv(nic, pkt, now);
		break;
	case WIRE_CTL_CLEAR_REQ:
	case WIRE_CTL_CLOSE_REQ:
		ctl_to_snd(nic, pkt, now);
		break;
	default: /* CREDIT, CREDIT_REQ, NEGOTIATION: credit-based CC and negotiation are not modelled */
		nic_pds_nack(nic, nic_pdc_rcv_find(nic, pkt->src_ip, pkt->pds.spdcid), pkt, WIRE_NACK_UNEXP_EVENT,
			     NIC_UE_NACK_UNEXP_EVENT, now);
		break;
	}
}
