/* uet-monitor rows: what the NIC knows about each packet it sends or receives, handed to the trace hook. */
#include "nic_pvt.h"

#include <string.h>

static uint8_t role_of(const struct nic *nic, uint8_t dscp)
{
	int r = wire_dscp_role(&nic->p->dscp, dscp);

	return r < 0 ? WIRE_ROLE_COUNT : (uint8_t)r;
}

/* The sender-side columns: prefetch occupancy (0 without the prefetch buffer), bytes fetched, in flight, window. */
static void sender_state(const struct nic *nic, struct nic_trace *t, const struct nic_pdc *pdc)
{
	if (pdc == NULL || !pdc->sender)
		return;
	t->has_sender_state = 1;
	t->nic_prefetched = nic->pf_used;
	t->pdc_prefetched = pdc->pf_bytes;
	t->bytes_fetched = pdc->group->fetched;
	t->bytes_in_flight = pdc->group->in_flight;
	t->cwnd = nic_cc_cwnd(&pdc->group->cc);
	t->job_id = pdc->wqe_id;
}

static void fill(struct nic *nic, struct nic_trace *t, const struct wire_pkt *p, uint8_t dir, const struct nic_pdc *pdc)
{
	bool rx = dir == NIC_TR_RX;

	memset(t, 0, sizeof(*t));
	t->fep_id = nic->env.fep_id;
	t->packet_uid = p->uid;
	t->packet_size = (uint32_t)wire_wire_len(p);
	t->local_ip = nic->env.ip;
	t->remote_ip = rx ? p->src_ip : p->dst_ip;
	t->local_pdc = pdc != NULL ? pdc->id : (rx ? p->pds.dpdcid : p->pds.spdcid);
	t->remote_pdc = pdc != NULL ? pdc->remote_id : (rx ? p->pds.spdcid : p->pds.dpdcid);
	t->dir = dir;
	t->kind = p->kind == WIRE_KIND_TRIMMED ? WIRE_KIND_DATA : p->kind;
	t->trimmed = p->kind == WIRE_KIND_TRIMMED;
	t->dscp_role = role_of(nic, p->dscp);
	t->entropy = p->sport;
	t->psn = p->pds.psn;
	if (rx)
		t->ecn_marked = p->ecn == WIRE_ECN_CE;
	switch (t->kind) {
	case WIRE_KIND_DATA:
		t->ar = (p->pds.flags & WIRE_REQ_F_AR) != 0;
		if (!rx)
			sender_state(nic, t, pdc);
		break;
	case WIRE_KIND_ACK: {
		int32_t off = p->pds.psn_off, sack_off = p->pds.sack_psn_off; /* (a named int32_t: gcc's -Wconversion) */

		t->has_ack = 1;
		t->cack_psn = p->pds.psn;
		t->psn = p->pds.flags & WIRE_ACK_F_P ? p->pds.probe_opaque : p->pds.psn + (uint32_t)off;
		t->sack_base = p->pds.psn + (uint32_t)sack_off;
		t->sack_bitmap = p->ack.sack_bitmap;
		t->m_flag = (p->pds.flags & WIRE_ACK_F_M) != 0;
		t->has_penalty = 1;
		t->penalty = p->ack.rcv_cwnd_pend;
		if (rx)
			sender_state(nic, t, pdc);
		break;
	}
	case WIRE_KIND_NACK:
		t->nack_code = p->pds.nack_code;
		t->m_flag = (p->pds.flags & WIRE_NACK_F_M) != 0;
		t->entropy = rx ? t->remote_pdc : t->local_pdc;
		break;
	case WIRE_KIND_CP:
		t->psn = p->pds.probe_opaque; /* the probe's tag */
		t->entropy = rx ? t->remote_pdc : t->local_pdc;
		if (!rx)
			sender_state(nic, t, pdc);
		break;
	default:
		break;
	}
}

void nic_trace_tx_start_do(struct nic *nic, const struct wire_pkt *p)
{
	struct nic_pdc *pdc = NULL;

	if (!nic->env.trace)
		return;
	if (p->kind == WIRE_KIND_DATA || p->kind == WIRE_KIND_CP)
		pdc = nic_pdc_snd_find(nic, p->pds.spdcid);
	else if (p->kind == WIRE_KIND_ACK)
		pdc = nic_pdc_rcv_find(nic, p->dst_ip, p->pds.dpdcid);
	bool retx = p->kind == WIRE_KIND_DATA && (p->pds.flags & WIRE_REQ_F_RETX);
	fill(nic, &nic->tr_sending, p, retx ? NIC_TR_RETX : NIC_TR_TX, pdc);
}

void nic_trace_tx_done_do(struct nic *nic, emu_ps_t now)
{
	if (!nic->env.trace || nic->env.hooks.trace == NULL || nic->tr_sending.kind == WIRE_KIND_NACK)
		return;
	nic->tr_sending.now = now;
	nic->env.hooks.trace(nic->env.hooks.arg, &nic->tr_sending);
}

void nic_trace_now_do(struct nic *nic, const struct wire_pkt *p, uint8_t dir, const struct nic_pdc *pdc,
		      emu_ps_t rtt, emu_ps_t now)
{
	struct nic_trace t;

	if (!nic->env.trace || nic->env.hooks.trace == NULL)
		return;
	fill(nic, &t, p, dir, pdc);
	t.now = now;
	if (rtt != EMU_PS_NEVER) {
		t.has_rtt = 1;
		t.rtt = rtt;
	}
	nic->env.hooks.trace(nic->env.hooks.arg, &t);
}
