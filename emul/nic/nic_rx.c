/* The receiver: data delivery over PCIe, order tracking, ACKs held for the PCIe service time, NACKs, probes. */
#include "nic_pvt.h"

#include <string.h>

/* nic.TestFaults (uetemu-only, for testing conformance tools): spoil answer @p p as the switches set say. */
static void test_faults(const struct nic_params *np, struct wire_pkt *p)
{
	uint8_t type = p->kind == WIRE_KIND_ACK ? WIRE_PDS_ACK_CC : p->kind == WIRE_KIND_NACK ? WIRE_PDS_NACK : p->pds.type;
	bool ack = type == WIRE_PDS_ACK || type == WIRE_PDS_ACK_CC || type == WIRE_PDS_ACK_CCX;
	bool nack = type == WIRE_PDS_NACK || type == WIRE_PDS_NACK_CCX;

	if (np->fault_no_sack && ack)
		p->ack.sack_bitmap = 0;
	if (np->fault_wrong_nack_code && nack)
		p->pds.nack_code = WIRE_NACK_NO_RESOURCE;
	if (np->fault_no_ses_response && (ack || type == WIRE_PDS_RUDI_RESP) && p->pds.next_hdr == WIRE_NH_RESPONSE)
		p->pds.next_hdr = WIRE_NH_NONE;
	if (np->fault_no_ecn_echo && (ack || nack || type == WIRE_PDS_RUDI_RESP))
		p->pds.flags &= (uint8_t)~WIRE_ACK_F_M; /* M is 0x20 in ACK, NACK and RUDI response alike */
}

void nic_push_ctrl(struct nic *nic, struct wire_pkt *p, emu_ps_t now)
{
	if (nic->p->fault_no_sack | nic->p->fault_wrong_nack_code | nic->p->fault_no_ses_response |
	    nic->p->fault_no_ecn_echo)
		test_faults(nic->p, p);
	if ((p->kind == WIRE_KIND_ACK || (p->kind == WIRE_KIND_UET && p->pds.type == WIRE_PDS_ACK)) &&
	    (p->pds.flags & WIRE_ACK_F_M))
		nic->c[NIC_C_M_MARKED_PKTS_SENT]++;
	if (nic_txq_push(nic, NIC_TC_CTRL, p, now) < 0) {
		nic->c[NIC_C_DROP_TX_CTL_POOL_FULL]++;
		net_pkt_free(nic->env.np, p);
	}
}

static void ev_ack_send(void *a, void *b, emu_ps_t now)
{
	nic_push_ctrl(a, b, now);
}

/* An ACK_CC for @p pdc as it stands now, answering @p req (a data packet or a probe), in the NIC's ACK form
 * (nic_pds_ack_form(): ACK_CC at the defaults). */
struct wire_pkt *nic_build_ack(struct nic *nic, struct nic_pdc *pdc, const struct wire_pkt *req)
{
	struct wire_pkt *p = nic_pkt_new(nic, WIRE_KIND_ACK, pdc);

	if (p == NULL)
		return NULL;
	uint32_t cack = pdc->rcv_next - 1;
	int32_t off = (int32_t)(req->pds.psn - cack);

	p->sport = req->sport; /* the entropy value goes back to the sender as path feedback */
	p->pds.type = WIRE_PDS_ACK_CC;
	p->pds.flags = (req->ecn == WIRE_ECN_CE ? WIRE_ACK_F_M : 0) | (req->pds.flags & WIRE_REQ_F_RETX ? WIRE_ACK_F_RETX : 0);
	p->pds.psn_off = (int16_t)(off > INT16_MAX ? INT16_MAX : off < INT16_MIN ? INT16_MIN : off);
	p->pds.psn = cack;
	p->pds.spdcid = pdc->id;
	p->pds.dpdcid = req->pds.spdcid;
	p->pds.cc_type = 0; /* NSCC */
	p->pds.mpr = 64;
	uint64_t bm;
	uint32_t blk = nic_rcv_sack(pdc, &bm);
	p->pds.sack_psn_off = (int16_t)(1 + 64 * blk); /* SACK base = CACK_PSN + 1 + 64 x block */
	p->ack.sack_bitmap = bm;
	p->ack.rcvd_bytes = (uint32_t)(((pdc->rcvd_bytes_cc + 255) >> 8) & 0xffffff);
	/* NSCC receiver: the penalty from the data pool's occupancy, and RestoreCWindEnable's RC bit */
	p->ack.rcv_cwnd_pend = nic_cc_penalty(&nic->cc_k, nic->in_pool_used[NIC_TC_DATA]);
	p->ack.rc = nic_cc_rc_bit(&nic->cc_k);
	p->ack.ooo_count = pdc->ooo_count;
	nic_pds_ack_form(nic, p, req);
	return p;
}

/* A trimmed packet: NACK at once with the trim code, deliver nothing, no ACK (seed 000, Trimmed packets). */
void nic_rx_trimmed(struct nic *nic, struct nic_pdc *pdc, const struct wire_pkt *pkt, emu_ps_t now)
{
	struct wire_pkt *p = nic_pkt_new(nic, WIRE_KIND_NACK, pdc);

	nic->c[NIC_C_TRIMS_RCVD]++;
	if (p == NULL)
		return;
	p->sport = pkt->sport;
	p->pds.type = WIRE_PDS_NACK;
	p->pds.flags = (pkt->ecn == WIRE_ECN_CE ? WIRE_NACK_F_M : 0) | (pkt->pds.flags & WIRE_REQ_F_RETX ? WIRE_NACK_F_RETX : 0);
	p->pds.nack_code = pkt->dscp == nic->p->dscp.dscp[WIRE_ROLE_TRIMMED_LASTHOP] ? WIRE_NACK_TRIMMED_LASTHOP
										     : WIRE_NACK_TRIMMED;
	p->pds.psn = pkt->pds.psn;
	p->pds.spdcid = pdc->id;
	p->pds.dpdcid = pkt->pds.spdcid;
	p->pds.payload = pdc->rcv_next;
	nic_trace_now(nic, p, NIC_TR_TX, pdc, EMU_PS_NEVER, now); /* a NACK is logged when the NIC makes it */
	nic_push_ctrl(nic, p, now);
}

static void ev_pool_release(void *a, void *b, emu_ps_t now)
{
	struct nic *nic = a;

	nic->in_pool_used[NIC_TC_DATA] -= (uint64_t)(uintptr_t)b;
	port_pool_deq(&nic->rxs[NIC_TC_DATA], (uint64_t)(uintptr_t)b);
	nic_pfc_check_xon(nic, NIC_TC_DATA, now);
}

/*
 * Write a new packet's payload to host memory over the NIC-to-host PCIe direction, in arrival order. Its IP size
 * stays charged to the data class's receive pool until the write is accepted into the NIC side's PCIe transmit
 * buffer (TXDataBufferSize): at once while the writes queued ahead of it leave room for it, else when they have
 * drained enough (uet-nic-buffers-and-pfc.md, Receive buffer). False when the write can never go (a buffer on its
 * way smaller than one transfer): nothing reaches the host.
 */
bool nic_rx_deliver(struct nic *nic, struct nic_pdc *pdc, const struct wire_pkt *pkt, emu_ps_t now)
{
	if (!nic_pcie_fits(&nic->p->pcie_nic, &nic->p->pcie_host, pkt->payload_len)) {
		/* a buffer smaller than one transfer: the write never goes, the data stays in the pool for good */
		nic->in_pool_used[NIC_TC_DATA] += wire_ip_len(pkt);
		nic->rx_held = true;
		return false;
	}
	/* The transmit buffers hold the payload (TXDataBufferSize) and the headers (TXHeaderBufferSize, 16 B per
	 * transfer) of the writes waiting for the link: whichever fills first bounds the bytes waiting. */
	uint64_t hdr_cap = nic->p->pcie_nic.tx_header_buffer / PORT_PCIE_TLP_HDR * (PORT_PCIE_MAX_PAYLOAD + PORT_PCIE_OVERHEAD);
	uint64_t cap = nic->p->pcie_nic.tx_data_buffer < hdr_cap ? nic->p->pcie_nic.tx_data_buffer : hdr_cap;
	uint64_t ip_len = wire_ip_len(pkt);
	emu_ps_t accept = port_pcie_write(&nic->pcie, pkt->payload_len, cap, now);

	if (accept > now) {
		nic->in_pool_used[NIC_TC_DATA] += ip_len;
		if (net_sched(nic->env.np, accept, ev_pool_release, nic, (void *)(uintptr_t)ip_len, NULL) < 0)
			nic->in_pool_used[NIC_TC_DATA] -= ip_len;
		else
			nic->rx_held = true;
	}
	pdc->rcv_payload += pkt->payload_len;
	pdc->rcvd_bytes_cc += wire_ip_len(pkt);
	nic->c[NIC_C_RX_PAYLOAD_BYTES] += pkt->payload_len;
	return true;
}

static void check_recv_complete(struct nic *nic, struct nic_pdc *pdc, emu_ps_t now)
{
	if (pdc->recv_done || !pdc->eom_seen || (int32_t)(pdc->rcv_next - pdc->eom_psn) <= 0)
		return;
	pdc->recv_done = true;
	nic_event(nic, pdc, NIC_EV_RECV_COMPLETE, now);
	if (nic->env.hooks.msg_recv != NULL)
		nic->env.hooks.msg_recv(nic->env.hooks.arg, nic->env.fep_id, pdc->peer_ip, pdc->rcv_wqe_id,
					pdc->rcv_payload, now);
}

/*
 * Whether data packet @p pkt fits the message it belongs to (docs/security.md): messages go one at a time on a PDC,
 * so a PSN past the EOM of the message still being received belongs to none; every packet of a message names the
 * same request_length (exact below UINT32_MAX, the most the header carries), and its bytes, at their
 * message_offset and added to those delivered, stay within it. The first packet past a completed message's EOM
 * begins the next message, whichever of its packets comes first.
 */
bool nic_rx_fits(struct nic *nic, struct nic_pdc *pdc, const struct wire_pkt *pkt)
{
	bool past_eom = pdc->eom_seen && (int32_t)(pkt->pds.psn - pdc->eom_psn) > 0;
	uint32_t len = pkt->ses.request_length;

	if (past_eom && !pdc->recv_done)
		return false;
	if (past_eom) {
		/* the next message on a connection's PDC (one at a time, so the last one is all here) */
		pdc->recv_done = false;
		pdc->eom_seen = false;
		pdc->rcv_payload = 0;
		pdc->rcv_msg_len_set = false;
	}
	if (!pdc->rcv_msg_len_set) {
		pdc->rcv_msg_len = len;
		pdc->rcv_msg_len_set = true;
	} else if (pdc->rcv_msg_len != len) {
		return false;
	}
	uint64_t off = pkt->ses.flags & WIRE_SES_F_SOM ? 0 : pkt->ses.message_offset;

	/* a request_length of UINT32_MAX is clamped for a message of 4 GiB or more: nothing exact to check against */
	if (len != UINT32_MAX && off + pkt->payload_len > len)
		return false;
	if (pkt->ses.flags & WIRE_SES_F_EOM) /* PSNs already tracked past the end belong to no message */
		nic->c[NIC_C_DROP_BEYOND_MESSAGE] += nic_rcv_forget_after(nic, pdc, pkt->pds.psn);
	return true;
}

/* A data packet with a new PSN: delivered, and the message's end noted. */
void nic_rx_new(struct nic *nic, struct nic_pdc *pdc, const struct wire_pkt *pkt, emu_ps_t now)
{
	if (pdc->rcv_msg_len != UINT32_MAX && pdc->rcv_payload + pkt->payload_len > pdc->rcv_msg_len)
		/* more new bytes than the message holds: packets forged at PSNs the message does not use came first;
		 * the PSN counts as received (the sender did send it), its bytes are not delivered twice */
		nic->c[NIC_C_DROP_BEYOND_MESSAGE]++;
	else if (!nic_rx_deliver(nic, pdc, pkt, now))
		return;
	if (pkt->ses.flags & WIRE_SES_F_SOM)
		pdc->rcv_wqe_id = pkt->ses.message_id;
	if (pkt->ses.flags & WIRE_SES_F_EOM) {
		pdc->eom_seen = true;
		pdc->eom_psn = pkt->pds.psn;
	}
	check_recv_complete(nic, pdc, now);
}

/*
 * The receiving PDC of @p pkt, or NULL when it has none. Only a packet with SYN opens one (UET: the first packets of
 * a PDC carry SYN and psn_offset = PSN - Start_PSN in the DPDCID slot). A packet for a PDC this NIC closed is a late
 * duplicate (the PDC closed once everything had arrived): counted as one, never delivered again, and it opens
 * nothing; a packet without SYN for a PDC never seen is dropped (docs/design-notes.md, The NIC).
 */
static struct nic_pdc *rcv_pdc(struct nic *nic, const struct wire_pkt *pkt, emu_ps_t now)
{
	struct nic_pdc *pdc = nic_pdc_rcv_find(nic, pkt->src_ip, pkt->pds.spdcid);
	bool syn = (pkt->pds.flags & WIRE_REQ_F_SYN) != 0;
	uint32_t start = pkt->pds.psn - (syn ? (pkt->pds.dpdcid & 0x0fffu) : 0);

	if (pdc != NULL)
		return pdc;
	const struct nic_closed *gone = nic_pdc_closed_find(nic, pkt->src_ip, pkt->pds.spdcid);
	if (gone != NULL && (!syn || gone->start_psn == start)) {
		nic->c[NIC_C_DUP_EVENTS]++;
		return NULL;
	}
	if (!syn) {
		nic->c[NIC_C_DROP_NO_RCV_PDC]++;
		return NULL;
	}
	pdc = nic_pdc_open_rcv(nic, pkt->src_ip, pkt->pds.spdcid, now);
	if (pdc != NULL)
		pdc->rcv_start = pdc->rcv_next = start;
	return pdc;
}

void nic_rx_data(struct nic *nic, struct wire_pkt *pkt, emu_ps_t now)
{
	uint64_t waiting = nic->in_pool_used[NIC_TC_DATA]; /* received data not yet accepted by PCIe, before this one */

	if (pkt->pds.type == WIRE_PDS_ROD_CC_REQ) { /* uetemu sends RUD_CC only: ROD's in-order rules (nic_pds.c) */
		nic_pds_rx_req(nic, pkt, now);
		return;
	}
	nic->c[NIC_C_WRITE_PKTS_RCVD]++;
	if (pkt->ecn == WIRE_ECN_CE)
		nic->c[NIC_C_ECN_CE_RCVD]++;
	struct nic_pdc *pdc = rcv_pdc(nic, pkt, now);
	if (pdc == NULL)
		return;
	nic_pdc_rcv_touch(nic, pdc, now);
	nic_trace_now(nic, pkt, NIC_TR_RX, pdc, EMU_PS_NEVER, now);
	if (pkt->kind == WIRE_KIND_TRIMMED) {
		nic_rx_trimmed(nic, pdc, pkt, now);
		return;
	}
	uint32_t psn = pkt->pds.psn;
	if ((int32_t)(psn - pdc->rcv_next) >= NIC_RCV_WIN) {
		nic->c[NIC_C_DROP_PSN_OUT_OF_WINDOW]++;
		return;
	}
	if ((int32_t)(psn - pdc->rcv_next) >= 0 && !nic_rx_fits(nic, pdc, pkt)) { /* below rcv_next: a duplicate */
		nic->c[NIC_C_DROP_BEYOND_MESSAGE]++;
		return;
	}
	int tr = nic_rcv_track(nic, pdc, psn);
	if (tr == NIC_TRACK_NO_ROOM) {
		nic->c[NIC_C_DROP_OOO_POOL_EMPTY]++;
		return;
	}
	if (tr == NIC_TRACK_NEW)
		nic_rx_new(nic, pdc, pkt, now);
	if (!(pkt->pds.flags & WIRE_REQ_F_AR))
		return;
	nic_ack_held(nic, pdc, pkt, waiting, now);
}

/*
 * Hold the ACK for the receiver's PCIe service time: the data class's receive-pool backlog plus this packet
 * at the NIC side's LaneBps x LaneCount; report it in 128 ns units. ACKs leave in the order generated.
 */
bool nic_ack_held(struct nic *nic, struct nic_pdc *pdc, const struct wire_pkt *pkt, uint64_t waiting, emu_ps_t now)
{
	emu_ps_t hold = emu_ser_ps(waiting + wire_ip_len(pkt), nic->pcie.bps[0]);
	struct wire_pkt *ack = nic_build_ack(nic, pdc, pkt);
	if (ack == NULL)
		return false;
	uint64_t st = hold / (128 * EMU_PS_PER_NS);
	ack->ack.service_time = (uint16_t)(st > 0xffff ? 0xffff : st);
	emu_ps_t when = now + hold > nic->ack_last ? now + hold : nic->ack_last;
	nic->ack_last = when;
	if (net_sched(nic->env.np, when, ev_ack_send, nic, ack, NULL) < 0) {
		net_pkt_free(nic->env.np, ack);
		return false;
	}
	return true;
}

/* A base-RTT probe is answered at once with an ACK carrying P and the probe's opaque value, without the hold. */
void nic_rx_cp(struct nic *nic, struct wire_pkt *pkt, emu_ps_t now)
{
	if (pkt->pds.next_hdr != WIRE_CTL_PROBE) {
		nic->c[NIC_C_DROP_BAD_KIND]++;
		return;
	}
	struct nic_pdc *pdc = nic_pdc_rcv_find(nic, pkt->src_ip, pkt->pds.spdcid);
	struct nic_pdc gone;

	if (pdc == NULL) {
		/* The message completed and its PDC closed while the probe was on its way: answer it all the same
		 * (each message draws one probe and one probe ACK), from a stand-in that knows only the probe. */
		nic->c[NIC_C_PROBE_NO_PDC]++;
		memset(&gone, 0, sizeof(gone));
		gone.peer_ip = pkt->src_ip;
		gone.remote_id = pkt->pds.spdcid;
		gone.rcv_next = pkt->pds.payload; /* the probe's SACK base */
		gone.group = NULL;
		pdc = &gone;
	}
	nic_trace_now(nic, pkt, NIC_TR_RX, pdc, EMU_PS_NEVER, now);
	struct wire_pkt *ack = nic_build_ack(nic, pdc, pkt);
	if (ack == NULL)
		return;
	ack->pds.flags |= WIRE_ACK_F_P;
	ack->pds.probe_opaque = pkt->pds.probe_opaque;
	nic_push_ctrl(nic, ack, now);
}
