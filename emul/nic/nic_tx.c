/* The sender: doorbell, the transmit pass (segmentation, egress reservation, PCIe fetch) and ACK processing. */
#include "nic_pvt.h"

#include <errno.h>

static inline uint32_t seg_payload(const struct nic_pdc *pdc, uint32_t idx, uint32_t mss)
{
	uint64_t off = (uint64_t)idx * mss;
	uint64_t left = pdc->bytes - off;

	return (uint32_t)(left < mss ? left : mss);
}

int nic_post(struct nic *nic, uint32_t dst_ip, uint64_t bytes, uint64_t cookie, emu_ps_t now)
{
	if (nic_neigh_mac(nic, dst_ip) == NULL)
		return -EHOSTUNREACH;
	struct nic_pdc *pdc = nic_pdc_open_snd(nic, dst_ip, now);
	if (pdc == NULL)
		return -ENOSPC;
	uint32_t mss = nic->p->rdma_data_mss;

	pdc->wqe_id = nic->next_wqe_id++;
	pdc->cookie = cookie;
	pdc->bytes = bytes;
	/* ceil(N / MSS) packets; a 0-byte message is one packet with no payload. */
	pdc->n_pkts = bytes == 0 ? 1 : (uint32_t)((bytes + mss - 1) / mss);
	nic->c[NIC_C_WQES_CREATED]++;
	nic_event(nic, pdc, NIC_EV_WQE_CREATED, now);
	nic_pdc_rr_add(nic, pdc);
	nic_group_ready(nic, pdc->group, false);
	nic_pump_arm(nic, now + NIC_DOORBELL_DELAY_PS);
	return 0;
}

static bool pdc_can_send(const struct nic_pdc *pdc)
{
	return pdc->pkts_issued < pdc->n_pkts && pdc->next_psn - pdc->snd_una < NIC_SND_WIN;
}

/* AckRequestEveryNthPacket / AckRequestFirstPacket / AckRequestLastPacket (seed 000, Acknowledgements). */
static bool wants_ack(struct nic *nic, struct nic_pdc *pdc, bool last)
{
	uint32_t n = nic->p->ack_req_every_nth;
	uint32_t k = ++pdc->ar_count;

	if (last && nic->p->ack_req_last)
		return true;
	return nic->p->ack_req_first ? (k - 1) % n == 0 : k % n == 0;
}

/* Entropy value of the next data packet of @p g: None (one value per group) or Default Packet Spraying. */
static uint16_t next_entropy(struct nic *nic, struct nic_group *g)
{
	uint32_t base = nic->p->starting_port_offset;

	if (nic->p->spraying == NIC_SPRAY_NONE)
		return (uint16_t)base;
	uint32_t mask = (1u << nic->p->entropy_mask_bits) - 1;
	return (uint16_t)(base + (g->entropy_ctr++ & mask));
}

static void build_data(struct nic *nic, struct nic_pdc *pdc, struct wire_pkt *p, uint32_t idx, uint32_t psn)
{
	uint32_t mss = nic->p->rdma_data_mss;
	uint32_t len = seg_payload(pdc, idx, mss);
	bool first = idx == 0, last = idx + 1 == pdc->n_pkts;

	p->dscp = nic->p->dscp.dscp[nic->p->trimming_enabled ? WIRE_ROLE_TRIMMABLE : WIRE_ROLE_NO_TRIM];
	p->sport = next_entropy(nic, pdc->group);
	p->pds.type = WIRE_PDS_RUD_CC_REQ;
	p->pds.next_hdr = WIRE_NH_REQ_STD;
	p->pds.flags = wants_ack(nic, pdc, last) ? WIRE_REQ_F_AR : 0;
	p->pds.psn = psn;
	int32_t clear = (int32_t)(pdc->snd_una - psn); /* CLEAR_PSN = PSN + offset: everything below snd_una */
	p->pds.psn_off = (int16_t)(clear < INT16_MIN ? INT16_MIN : clear);
	p->pds.spdcid = pdc->id;
	if (pdc->remote_id == 0) {
		/* Until the first ACK names the receiver's PDC, carry SYN and psn_offset so it can create its side. */
		p->pds.flags |= WIRE_REQ_F_SYN;
		p->pds.dpdcid = (uint16_t)((psn - pdc->start_psn) & 0x0fff);
	} else {
		p->pds.dpdcid = pdc->remote_id;
	}
	p->ses.opcode = WIRE_SES_OP_SEND;
	p->ses.flags = (first ? WIRE_SES_F_SOM : 0) | (last ? WIRE_SES_F_EOM : 0);
	p->ses.message_id = (uint16_t)pdc->wqe_id;
	p->ses.initiator = nic->env.fep_id;
	p->ses.buffer_offset = (uint64_t)idx * mss;
	p->ses.payload_length = (uint16_t)len;
	p->ses.message_offset = (uint32_t)((uint64_t)idx * mss);
	p->ses.request_length = (uint32_t)(pdc->bytes > UINT32_MAX ? UINT32_MAX : pdc->bytes);
	p->payload_len = len;
}

static void ev_fetch_done(void *a, void *b, emu_ps_t now)
{
	struct nic *nic = a;

	nic_txq_push(nic, NIC_TC_DATA, b, now);
}

/*
 * Issue one segment: take its PSN, build its packet, and fetch its payload over PCIe: a 64 B read request
 * (+34 B) on the NIC-to-host direction, then the completion on the host-to-NIC direction, each direction
 * serializing its transfers in order. The packet joins the data class when its completion has arrived.
 */
static void issue_segment(struct nic *nic, struct nic_pdc *pdc, uint32_t wl, emu_ps_t now)
{
	struct wire_pkt *p = nic_pkt_new(nic, WIRE_KIND_DATA, pdc);

	if (p == NULL)
		return;
	uint32_t idx = pdc->pkts_issued++;
	uint32_t psn = pdc->next_psn++;

	build_data(nic, pdc, p, idx, psn);
	nic->txq[NIC_TC_DATA].reserved += wl;
	emu_ps_t req = nic->pcie_n2h_busy > now ? nic->pcie_n2h_busy : now;
	nic->pcie_n2h_busy = req + emu_ser_ps(NIC_PCIE_READ_REQ + NIC_PCIE_OVERHEAD, nic->pcie_n2h_bps);
	emu_ps_t cpl = nic->pcie_h2n_busy > nic->pcie_n2h_busy ? nic->pcie_h2n_busy : nic->pcie_n2h_busy;
	nic->pcie_h2n_busy = cpl + emu_ser_ps(nic_pcie_bytes(p->payload_len), nic->pcie_h2n_bps);
	if (net_sched(nic->env.np, nic->pcie_h2n_busy, ev_fetch_done, nic, p, NULL) < 0) {
		nic->txq[NIC_TC_DATA].reserved -= wl;
		net_pkt_free(nic->env.np, p);
		return;
	}
	if (pdc->pkts_issued == pdc->n_pkts)
		nic_event(nic, pdc, NIC_EV_SEND_COMPLETE, now);
}

/* Remove @p pdc, the PDC whose turn it is, from its group's ring. */
static void rr_remove_current(struct nic_group *g)
{
	struct nic_pdc *cur = g->rr;

	cur->in_rr = false;
	if (cur->rr_next == cur) {
		g->rr = NULL;
		return;
	}
	struct nic_pdc *prev = cur;
	while (prev->rr_next != cur)
		prev = prev->rr_next;
	prev->rr_next = cur->rr_next;
	g->rr = cur->rr_next;
}

/* The PDC of @p g that sends next, dropping finished PDCs from the ring; NULL if none can send now. */
static struct nic_pdc *group_pick(struct nic_group *g)
{
	struct nic_pdc *start = NULL;

	while (g->rr != NULL) {
		struct nic_pdc *pdc = g->rr;
		if (pdc->pkts_issued == pdc->n_pkts) {
			rr_remove_current(g);
			continue;
		}
		if (pdc_can_send(pdc))
			return pdc;
		if (pdc == start)
			return NULL;
		if (start == NULL)
			start = pdc;
		g->rr = pdc->rr_next;
	}
	return NULL;
}

/*
 * One transmit pass: serve the ready queue of groups, one packet per turn. A group with nothing it can send
 * leaves the queue; a full egress pool stops the pass with the group left at the head (seed 000, PDC groups and
 * the transmit scheduler).
 */
void nic_tx_pass(struct nic *nic, emu_ps_t now)
{
	struct nic_txq *q = &nic->txq[NIC_TC_DATA];

	nic->pump_blocked = false;
	while (nic->ready_head != NULL) {
		struct nic_group *g = nic->ready_head;
		struct nic_pdc *pdc = group_pick(g);
		if (pdc == NULL) {
			nic_group_unready(nic, g);
			continue;
		}
		uint32_t wl = seg_payload(pdc, pdc->pkts_issued, nic->p->rdma_data_mss) + WIRE_DATA_OVERHEAD;
		if (q->reserved + wl > q->pool_size) {
			nic->pump_blocked = true;
			return;
		}
		issue_segment(nic, pdc, wl, now);
		g->rr = pdc->rr_next; /* the turn passes to the group's next PDC; finished PDCs leave in group_pick */
		/* Back to the tail of the queue: the group still holds @p pdc, so it is not freed here. */
		nic_group_unready(nic, g);
		nic_group_ready(nic, g, false);
	}
}

static inline bool snd_bit(const struct nic_pdc *pdc, uint32_t psn)
{
	uint32_t i = psn % NIC_SND_WIN;

	return (pdc->acked[i / 64] >> (i % 64)) & 1;
}

/* Retire @p psn if it is outstanding and not yet retired. */
static void snd_retire(struct nic_pdc *pdc, uint32_t psn)
{
	if (psn - pdc->snd_una >= pdc->next_psn - pdc->snd_una || snd_bit(pdc, psn))
		return;
	uint32_t i = psn % NIC_SND_WIN;

	pdc->acked[i / 64] |= 1ULL << (i % 64);
	pdc->pkts_acked++;
}

static void snd_advance(struct nic_pdc *pdc)
{
	while (pdc->snd_una != pdc->next_psn && snd_bit(pdc, pdc->snd_una)) {
		uint32_t i = pdc->snd_una % NIC_SND_WIN;
		pdc->acked[i / 64] &= ~(1ULL << (i % 64));
		pdc->snd_una++;
	}
}

/* After the first data ACK of each message on a PDC, one base-RTT probe (seed 000, Acknowledgements). */
static void send_probe(struct nic *nic, struct nic_pdc *pdc, emu_ps_t now)
{
	struct wire_pkt *p = nic_pkt_new(nic, WIRE_KIND_CP, pdc);

	pdc->probe_sent = true;
	if (p == NULL)
		return;
	p->sport = next_entropy(nic, pdc->group);
	p->pds.type = WIRE_PDS_CP;
	p->pds.next_hdr = WIRE_CTL_PROBE;
	p->pds.flags = WIRE_CP_F_AR;
	p->pds.probe_opaque = ++nic->probe_opaque;
	p->pds.psn = pdc->snd_una;
	p->pds.spdcid = pdc->id;
	p->pds.dpdcid = pdc->remote_id;
	p->pds.payload = pdc->snd_una; /* SACK bitmap base PSN */
	if (nic_txq_push(nic, NIC_TC_CTRL, p, now) < 0) {
		nic->c[NIC_C_DROP_TX_CTL_POOL_FULL]++;
		net_pkt_free(nic->env.np, p);
	}
}

static void msg_complete(struct nic *nic, struct nic_pdc *pdc, emu_ps_t now)
{
	nic->c[NIC_C_WQES_COMPLETED]++;
	nic_event(nic, pdc, NIC_EV_WQE_COMPLETE, now);
	if (nic->env.hooks.msg_done != NULL)
		nic->env.hooks.msg_done(nic->env.hooks.arg, pdc->cookie, now);
	/* The messages workload, like Chakra, closes a message's PDC when the message completes. */
	nic_pdc_close(nic, pdc, now);
}

/*
 * An ACK on a sending PDC: the cumulative ACK retires every outstanding PSN at or below it, the bitmap each PSN
 * it lists. Selective ACKs never trigger a retransmission (seed 000, Selective acknowledgements).
 */
void nic_rx_ack(struct nic *nic, struct wire_pkt *pkt, emu_ps_t now)
{
	struct nic_pdc *pdc = nic_pdc_snd_find(nic, pkt->pds.dpdcid);

	nic->c[NIC_C_ACK_PKTS_RCVD]++;
	if (pdc == NULL || pdc->peer_ip != pkt->src_ip) {
		nic->c[NIC_C_DROP_UNKNOWN_PDC]++;
		return;
	}
	if (pdc->remote_id == 0)
		pdc->remote_id = pkt->pds.spdcid;
	if (pkt->pds.flags & WIRE_ACK_F_P) {
		nic->c[NIC_C_PROBE_ACK_RCVD]++;
		return;
	}
	uint32_t cack = pkt->pds.psn;

	while (pdc->snd_una != pdc->next_psn && (int32_t)(cack - pdc->snd_una) >= 0) {
		snd_retire(pdc, pdc->snd_una);
		snd_advance(pdc);
	}
	uint32_t base = cack + (uint32_t)(int32_t)pkt->pds.sack_psn_off;
	for (uint64_t bm = pkt->pds.sack_bitmap; bm != 0; bm &= bm - 1)
		snd_retire(pdc, base + (uint32_t)__builtin_ctzll(bm));
	snd_advance(pdc);
	if (pdc->pkts_acked == pdc->n_pkts) {
		msg_complete(nic, pdc, now);
		return;
	}
	if (!pdc->probe_sent)
		send_probe(nic, pdc, now);
	/* An ACK brings a group whose window was full back at the head of the ready queue. */
	if (pdc_can_send(pdc) && !pdc->in_rr)
		nic_pdc_rr_add(nic, pdc);
	if (pdc->in_rr) {
		nic_group_ready(nic, pdc->group, true);
		nic_pump_arm(nic, now);
	}
}
