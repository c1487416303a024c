/* The sender's transmit process: doorbell, segmentation, window and egress gating, PCIe fetch, retransmissions. */
#include "nic_pvt.h"

#include <errno.h>
#include <string.h>

static inline uint32_t seg_payload(const struct nic_pdc *pdc, uint32_t idx, uint32_t mss)
{
	uint64_t left = pdc->bytes - (uint64_t)idx * mss;

	return (uint32_t)(left < mss ? left : mss);
}

/* The doorbell: the host writes the work request to the NIC on the host-to-NIC direction, @p db bytes, its payload
 * and 28 of UDP and IPv4 headers (92 B, one transfer, 126 B of link time at the default 64 B); the transmit process
 * starts 15 ns after the doorbell regardless, but a payload fetched later waits behind it on the link. */
static void doorbell_write(struct nic *nic, uint64_t db, emu_ps_t now)
{
	port_pcie_doorbell(&nic->pcie, db, now);
}

int nic_post(struct nic *nic, uint32_t dst_ip, uint64_t bytes, uint64_t cookie, emu_ps_t now)
{
	return nic_post_pdc(nic, dst_ip, bytes, cookie, now, NULL);
}

int nic_close_rcv(struct nic *nic, uint32_t peer_ip, uint16_t peer_pdc, emu_ps_t now)
{
	struct nic_pdc *pdc = nic_pdc_rcv_find(nic, peer_ip, peer_pdc);

	if (pdc == NULL)
		return -ENOENT;
	nic_pdc_close(nic, pdc, now);
	return 0;
}

int nic_post_pdc(struct nic *nic, uint32_t dst_ip, uint64_t bytes, uint64_t cookie, emu_ps_t now, uint16_t *pdc_id)
{
	if (bytes > nic_msg_bytes_max(nic->p->rdma_data_mss))
		return -EMSGSIZE;
	if (nic_neigh_mac(nic, dst_ip) == NULL)
		return -EHOSTUNREACH;
	struct nic_pdc *pdc = nic_pdc_open_snd(nic, dst_ip, now);
	if (pdc == NULL)
		return -ENOSPC;
	if (pdc_id != NULL)
		*pdc_id = pdc->id;
	doorbell_write(nic, NIC_DOORBELL_PAYLOAD + NIC_DOORBELL_HDR, now);
	nic->c[NIC_C_WQES_CREATED]++;
	nic_msg_start(nic, pdc, bytes, cookie, now);
	return 0;
}

/* Start sending a message on @p pdc: its segments follow the PDC's PSNs; the transmit process starts 15 ns later. */
void nic_msg_start(struct nic *nic, struct nic_pdc *pdc, uint64_t bytes, uint64_t cookie, emu_ps_t now)
{
	uint32_t mss = nic->p->rdma_data_mss;

	pdc->wqe_id = nic->next_wqe_id++;
	pdc->cookie = cookie;
	pdc->bytes = bytes;
	/* ceil(N / MSS) packets; a 0-byte message is one packet with no payload. */
	pdc->n_pkts = bytes == 0 ? 1 : (uint32_t)((bytes + mss - 1) / mss);
	pdc->pkts_issued = 0;
	pdc->pkts_acked = 0;
	pdc->probe_sent = false; /* one base-RTT probe per message on a PDC */
	pdc->sent_told = false;
	pdc->busy = true;
	nic_event(nic, pdc, NIC_EV_WQE_CREATED, now);
	nic_pdc_rr_add(nic, pdc);
	nic_group_ready(nic, pdc->group, false); /* a new message joins the tail */
	nic_pump_arm(nic, now + NIC_DOORBELL_DELAY_PS);
}

int nic_conn_open(struct nic *nic, uint32_t dst_ip, uint16_t *pdc_id, emu_ps_t now)
{
	if (nic_neigh_mac(nic, dst_ip) == NULL)
		return -EHOSTUNREACH;
	struct nic_pdc *pdc = nic_pdc_open_snd(nic, dst_ip, now);
	if (pdc == NULL)
		return -ENOSPC;
	pdc->conn = true;
	*pdc_id = pdc->id;
	return 0;
}

int nic_post_conn(struct nic *nic, uint16_t pdc_id, uint64_t bytes, uint64_t cookie, emu_ps_t now)
{
	struct nic_pdc *pdc = nic_pdc_snd_find(nic, pdc_id);

	if (pdc == NULL || !pdc->conn)
		return -ENOENT;
	struct nic_wqe *w = NULL;
	if (pdc->busy && (w = emu_pool_get(nic->wqe_pool)) == NULL) {
		nic->c[NIC_C_DROP_NO_WQE]++;
		return -ENOSPC;
	}
	doorbell_write(nic, nic->env.doorbell_bytes ? nic->env.doorbell_bytes : NIC_DOORBELL_PAYLOAD + NIC_DOORBELL_HDR,
		       now);
	nic->c[NIC_C_WQES_CREATED]++;
	if (w == NULL) {
		nic_msg_start(nic, pdc, bytes, cookie, now);
		return 0;
	}
	*w = (struct nic_wqe){ .cookie = cookie, .bytes = bytes };
	if (pdc->wq_tail != NULL)
		pdc->wq_tail->next = w;
	else
		pdc->wq_head = w;
	pdc->wq_tail = w;
	return 0;
}

int nic_conn_close(struct nic *nic, uint16_t pdc_id, emu_ps_t now)
{
	struct nic_pdc *pdc = nic_pdc_snd_find(nic, pdc_id);

	if (pdc == NULL || !pdc->conn)
		return -ENOENT;
	while (pdc->wq_head != NULL) {
		struct nic_wqe *w = pdc->wq_head;
		pdc->wq_head = w->next;
		emu_pool_put(nic->wqe_pool, w);
	}
	nic_pdc_finish(nic, pdc, now);
	return 0;
}

/* What a PDC sends next, in the order of seed 000 (PDC groups and the transmit scheduler): its oldest waiting
 * retransmission, then a payload already in the prefetch buffer, then a new segment. */
enum next_kind { NEXT_NONE = 0, NEXT_RTX, NEXT_COMMIT, NEXT_FETCH, NEXT_NEW };

static enum next_kind next_kind(const struct nic *nic, const struct nic_pdc *pdc, uint32_t *payload)
{
	if (pdc->rtx_head != NULL) {
		*payload = pdc->rtx_head->payload;
		return NEXT_RTX;
	}
	if (pdc->pf_next != NULL && pdc->pf_next->state == NIC_REC_PREFETCHED) {
		*payload = pdc->pf_next->payload;
		return NEXT_COMMIT;
	}
	if (pdc->pkts_issued == pdc->n_pkts)
		return NEXT_NONE;
	/* The PSN range the wire allows: no new PSN NIC_RCV_WIN or more past the oldest outstanding one (the ACK
	 * names PSNs as s16 offsets from CACK_PSN), nor, until the first ACK names the receiver's PDC, NIC_SYN_PSNS
	 * or more past Start_PSN (SYN packets carry the offset in 12 bits). The window bounds it first in practice. */
	if (pdc->out_head != NULL && pdc->next_psn - pdc->out_head->psn >= NIC_RCV_WIN)
		return NEXT_NONE;
	if (pdc->remote_id == 0 && pdc->next_psn - pdc->start_psn >= NIC_SYN_PSNS)
		return NEXT_NONE;
	*payload = seg_payload(pdc, pdc->pkts_issued, nic->p->rdma_data_mss);
	return nic->p->prefetch_enable ? NEXT_FETCH : NEXT_NEW;
}

static bool window_room(const struct nic *nic, const struct nic_group *g, uint32_t payload)
{
	/* The window holds back nothing when PassThrough is set (NSCC still computes it, issue 5). */
	return nic->p->cc_pass_through || g->in_flight + nic_nominal(payload) <= nic_cc_cwnd(&g->cc);
}

/* A fetch into the prefetch buffer: the group's bytes fetched and not yet acknowledged (in flight, and waiting in
 * the prefetch buffer), with this payload, must fit the window too (Congestion control, The congestion window). */
static bool fetch_window_room(const struct nic *nic, const struct nic_group *g, uint32_t payload)
{
	return nic->p->cc_pass_through || g->in_flight + g->pf_nominal + nic_nominal(payload) <= nic_cc_cwnd(&g->cc);
}

/* Can @p pdc send its next packet now, window and prefetch room permitting (the egress pool is checked by the
 * pass)? A fetch into the prefetch buffer needs room for the bytes fetched in the window and room in the buffer. */
static bool can_send(struct nic *nic, const struct nic_pdc *pdc, enum next_kind *kind, uint32_t *payload)
{
	if (pdc->held) { /* the run's control holds it: it keeps its place in the ring */
		*kind = NEXT_NONE;
		return false;
	}
	*kind = next_kind(nic, pdc, payload);
	switch (*kind) {
	case NEXT_RTX:
	case NEXT_COMMIT:
	case NEXT_NEW:
		return window_room(nic, pdc->group, *payload);
	case NEXT_FETCH:
		if (!fetch_window_room(nic, pdc->group, *payload))
			return false;
		if (nic->pf_used + *payload + nic_data_ovh(nic) <= nic->p->prefetch_size)
			return true;
		nic->pf_blocked = true;
		return false;
	case NEXT_NONE:
	default:
		return false;
	}
}

/* AckRequestEveryNthPacket / AckRequestFirstPacket / AckRequestLastPacket (seed 000, Acknowledgements). Every
 * transmission, retransmissions included, counts. */
static bool wants_ack(struct nic *nic, struct nic_pdc *pdc, bool last)
{
	uint32_t n = nic->p->ack_req_every_nth;
	uint32_t k = ++pdc->ar_count;

	if (last && nic->p->ack_req_last)
		return true;
	return nic->p->ack_req_first ? (k - 1) % n == 0 : k % n == 0;
}

static void build_data(struct nic *nic, struct nic_pdc *pdc, struct wire_pkt *p, struct nic_rec *r, emu_ps_t now)
{
	uint32_t mss = nic->p->rdma_data_mss;
	bool first = r->seg == 0, last = r->seg + 1 == pdc->n_pkts, rtx = r->tx_count > 1;
	int role = nic->p->trimming_enabled ? WIRE_ROLE_TRIMMABLE : WIRE_ROLE_NO_TRIM;

	if (rtx && nic->p->use_distinct_dscp_rtx)
		role = WIRE_ROLE_TRIMMABLE_RTX;
	p->dscp = nic->p->dscp.dscp[role];
	/* every transmission, retransmissions too, takes a new value from the group's load balancer */
	p->sport = r->ev = nic_lb_next(&pdc->group->lb, nic->p, &nic->rng, now);
	p->pds.type = nic->p->req_form == NIC_REQ_RUD ? WIRE_PDS_RUD_REQ
		    : nic->p->req_form == NIC_REQ_ROD ? WIRE_PDS_ROD_REQ : WIRE_PDS_RUD_CC_REQ;
	p->pds.next_hdr = WIRE_NH_REQ_STD;
	bool ar = wants_ack(nic, pdc, last);
	/* RequestForm without CC state: its receiver ACKs on AR, SYN or ACK_Gen_Trigger only (coalescing), so a packet
	 * that leaves no window for another full one, or is sent again, asks for its ACK (docs/wire.md, Peer profiles) */
	if (nic->p->req_form != NIC_REQ_RUD_CC && (rtx || !window_room(nic, pdc->group, nic->p->rdma_data_mss)))
		ar = true;
	p->pds.flags = (ar ? WIRE_REQ_F_AR : 0) | (rtx ? WIRE_REQ_F_RETX : 0);
	p->pds.psn = r->psn;
	uint32_t una = pdc->out_head != NULL ? pdc->out_head->psn : pdc->next_psn;
	int32_t clear = (int32_t)(una - r->psn); /* CLEAR_PSN = PSN + offset: everything below the oldest outstanding */
	p->pds.psn_off = (int16_t)(clear < INT16_MIN ? INT16_MIN : clear);
	p->pds.spdcid = pdc->id;
	if (pdc->remote_id == 0) {
		/* Until the first ACK names the receiver's PDC, carry SYN and psn_offset so it can create its side. */
		p->pds.flags |= WIRE_REQ_F_SYN;
		p->pds.dpdcid = (uint16_t)((r->psn - pdc->start_psn) & 0x0fff);
	} else {
		p->pds.dpdcid = pdc->remote_id;
	}
	p->ses.opcode = WIRE_SES_OP_SEND;
	p->ses.flags = (first ? WIRE_SES_F_SOM : 0) | (last ? WIRE_SES_F_EOM : 0);
	p->ses.message_id = (uint16_t)pdc->wqe_id;
	p->ses.job_id = nic->p->ses_job_id & 0xffffffu; /* the SES identity: 0 at the defaults (a peer profile's) */
	p->ses.pid_on_fep = (uint16_t)(nic->p->ses_pid_on_fep & 0xfffu);
	p->ses.resource_index = (uint16_t)(nic->p->ses_resource_index & 0xfffu);
	p->ses.initiator = nic->p->ses_initiator != 0 ? nic->p->ses_initiator : nic->env.fep_id;
	p->ses.buffer_offset = (uint64_t)r->seg * mss;
	p->ses.payload_length = (uint16_t)r->payload;
	p->ses.message_offset = (uint32_t)((uint64_t)r->seg * mss);
	p->ses.request_length = (uint32_t)(pdc->bytes > UINT32_MAX ? UINT32_MAX : pdc->bytes);
	p->payload_len = r->payload;
}

/* A completion of @p payload bytes was consumed: its room in the NIC side's receive buffers is free again. */
static void cpl_release(struct nic *nic, uint64_t payload, emu_ps_t now)
{
	nic->cpl_data -= payload;
	nic->cpl_hdr -= PORT_PCIE_TLP_HDR * nic_pcie_xfers(payload);
	if (nic->cpl_blocked) {
		nic->cpl_blocked = false;
		nic_pump_arm(nic, now);
	}
}

/*
 * Room for the fetch of @p payload bytes on PCIe: its read request (a header) goes from the NIC's transmit to the
 * host's receive buffers, its completion's transfers from the host's transmit buffers to the NIC's receive buffers,
 * and the NIC, which consumes completions at once, asks for no more than its receive buffers hold
 * (RXDataBufferSize, RXHeaderBufferSize: the completions expected). False: the pass waits for a completion to land,
 * or for good when a buffer cannot hold one transfer.
 */
static bool fetch_room(const struct nic *nic, uint64_t payload)
{
	const struct port_pcie_params *n = &nic->p->pcie_nic, *h = &nic->p->pcie_host;

	return nic_pcie_fits(n, h, 0) && nic_pcie_fits(h, n, payload) && nic->cpl_data + payload <= n->rx_data_buffer &&
	       nic->cpl_hdr + PORT_PCIE_TLP_HDR * nic_pcie_xfers(payload) <= n->rx_header_buffer;
}

static void ev_fetch_done(void *a, void *b, emu_ps_t now)
{
	uint64_t payload = ((struct wire_pkt *)b)->payload_len;

	nic_txq_push(a, NIC_TC_DATA, b, now);
	cpl_release(a, payload, now);
}

/* A payload reached the prefetch buffer: its group comes back at the tail of the ready queue. A record whose PDC
 * closed while the fetch was on PCIe (nic_pdc_finish()) was kept for this event: it goes back to the pool now. */
static void ev_prefetch_done(void *a, void *b, emu_ps_t now)
{
	struct nic *nic = a;
	struct nic_rec *r = b;

	cpl_release(nic, r->payload, now);
	if (r->pdc == NULL) {
		emu_pool_put(nic->rec_pool, r);
		return;
	}
	r->state = NIC_REC_PREFETCHED;
	nic_pdc_rr_add(nic, r->pdc);
	nic_group_ready(nic, r->pdc->group, false);
	nic_pump_arm(nic, now);
}

/* Append @p r to the PDC's outstanding list (PSNs are taken in order, so the tail is the right place). */
static void out_append(struct nic_pdc *pdc, struct nic_rec *r)
{
	r->next = NULL;
	r->prev = pdc->out_tail;
	if (pdc->out_tail != NULL)
		pdc->out_tail->next = r;
	else
		pdc->out_head = r;
	pdc->out_tail = r;
}

/*
 * A payload fetch over PCIe: a 64 B read request (+34 B) on the NIC-to-host direction, then the completion on the
 * host-to-NIC direction, each direction serializing its transfers in order. Planned first and charged only once
 * the event for its arrival is scheduled, so a full scheduler leaves PCIe untouched.
 */
/* The UET NIC's fetch: the shared plan (port_pcie.c) with its 64 B read requests. */
static void pcie_fetch_plan(const struct nic *nic, uint32_t payload, emu_ps_t now, struct port_pcie_fetch *f)
{
	port_pcie_fetch_plan(&nic->pcie, PORT_PCIE_READ_REQ + PORT_PCIE_OVERHEAD, payload, now, f);
}

/* Charged: the link, and the NIC side's receive buffers holding the completion's payload and headers. */
static void pcie_fetch_charge(struct nic *nic, const struct port_pcie_fetch *f)
{
	nic->cpl_data += f->payload;
	nic->cpl_hdr += PORT_PCIE_TLP_HDR * nic_pcie_xfers(f->payload);
	port_pcie_fetch_charge(&nic->pcie, f);
}

/* A record from the NIC-wide pool, not yet tied to a PDC; NULL (counted) when the pool is empty. */
static struct nic_rec *rec_take(struct nic *nic)
{
	struct nic_rec *r = emu_pool_get(nic->rec_pool);

	if (r == NULL)
		nic->c[NIC_C_DROP_NO_PKT]++;
	return r;
}

/* Make @p r the PDC's next segment, with its PSN (taken when the fetch is issued), on the outstanding list. */
static void rec_init(struct nic *nic, struct nic_pdc *pdc, struct nic_rec *r, emu_ps_t now)
{
	memset(r, 0, sizeof(*r));
	r->psn = pdc->next_psn++;
	r->seg = pdc->pkts_issued++;
	r->payload = seg_payload(pdc, r->seg, nic->p->rdma_data_mss);
	r->tx_count = 1;
	r->rto_at = EMU_PS_NEVER;
	r->late_at = EMU_PS_NEVER;
	r->pdc = pdc;
	out_append(pdc, r);
	pdc->group->fetched += r->payload;
	if (pdc->pkts_issued == pdc->n_pkts) {
		nic_event(nic, pdc, NIC_EV_SEND_COMPLETE, now);
		nic_pdc_idle_note(pdc);
	}
}

/* @p p, the packet of @p r, is committed to go out now: counted in flight, built, and its uid remembered. */
static void commit(struct nic *nic, struct nic_pdc *pdc, struct nic_rec *r, struct wire_pkt *p, emu_ps_t now)
{
	struct nic_group *g = pdc->group;

	if (r->tx_count == 1) { /* sampled at each first transmission (uet-transport-stats) */
		nic_sample_add(nic, NIC_S_CWND_BYTES, nic_cc_cwnd(&g->cc));
		nic_sample_add(nic, NIC_S_BYTES_IN_FLIGHT, g->in_flight);
	}
	r->in_flight = 1;
	g->in_flight += nic_nominal(r->payload);
	build_data(nic, pdc, p, r, now);
	r->uid = p->uid;
	p->ctx = r;
}

/*
 * Each issue_*() either sends, or changes nothing and returns false: a pool it needs (records, packets) is empty
 * or the scheduler is full. Everything that can fail is taken before any state of the PDC, PCIe or egress moves.
 */

/* A new segment without the prefetch buffer: egress space reserved and window counted when the fetch is issued;
 * the packet joins the data class's queue when its payload has arrived. */
static bool issue_new(struct nic *nic, struct nic_pdc *pdc, uint32_t wl, emu_ps_t now)
{
	struct nic_rec *r = rec_take(nic);
	struct wire_pkt *p = r != NULL ? nic_pkt_new(nic, WIRE_KIND_DATA, pdc) : NULL;
	struct port_pcie_fetch f;

	if (p == NULL)
		goto fail;
	pcie_fetch_plan(nic, seg_payload(pdc, pdc->pkts_issued, nic->p->rdma_data_mss), now, &f);
	if (net_sched(nic->env.np, f.cpl_end, ev_fetch_done, nic, p, NULL) < 0)
		goto fail;
	pcie_fetch_charge(nic, &f);
	rec_init(nic, pdc, r, now);
	commit(nic, pdc, r, p, now);
	nic->txq[NIC_TC_DATA].reserved += wl;
	port_pool_enq(&nic->txs[NIC_TC_DATA], wl, nic->txq[NIC_TC_DATA].reserved);
	return true;
fail:
	net_pkt_free(nic->env.np, p);
	if (r != NULL)
		emu_pool_put(nic->rec_pool, r);
	return false;
}

/* A new segment with the prefetch buffer: prefetch space is taken and the fetched bytes counted against the window;
 * bytes in flight and egress space wait for the commit. */
static bool issue_fetch(struct nic *nic, struct nic_pdc *pdc, uint32_t wl, emu_ps_t now)
{
	struct nic_rec *r = rec_take(nic);
	struct port_pcie_fetch f;

	if (r == NULL)
		return false;
	pcie_fetch_plan(nic, seg_payload(pdc, pdc->pkts_issued, nic->p->rdma_data_mss), now, &f);
	if (net_sched(nic->env.np, f.cpl_end, ev_prefetch_done, nic, r, NULL) < 0) {
		emu_pool_put(nic->rec_pool, r);
		return false;
	}
	pcie_fetch_charge(nic, &f);
	rec_init(nic, pdc, r, now);
	r->state = NIC_REC_PREFETCHING;
	nic->pf_used += wl;
	pdc->pf_bytes += wl;
	pdc->group->pf_nominal += nic_nominal(r->payload);
	if (pdc->pf_next == NULL)
		pdc->pf_next = r;
	return true;
}

void nic_pf_release(struct nic *nic, uint64_t bytes, emu_ps_t now)
{
	nic->pf_used -= bytes;
	if (nic->pf_blocked && nic->pf_used <= nic->p->prefetch_size / 2) {
		/* the transmit process starts again when the prefetch buffer drains to half its size or less */
		nic->pf_blocked = false;
		nic_pump_arm(nic, now);
	}
}

/* The oldest prefetched payload goes to the wire: prefetch space released, egress reserved, window counted. */
static bool issue_commit(struct nic *nic, struct nic_pdc *pdc, uint32_t wl, emu_ps_t now)
{
	struct nic_rec *r = pdc->pf_next;
	struct wire_pkt *p = nic_pkt_new(nic, WIRE_KIND_DATA, pdc);

	if (p == NULL)
		return false;
	commit(nic, pdc, r, p, now);
	pdc->pf_next = r->next; /* uncommitted records are the tail of the PSN-ordered list */
	if (pdc->pf_next == NULL)
		nic_pdc_idle_note(pdc);
	r->state = NIC_REC_FETCHING;
	pdc->pf_bytes -= wl;
	pdc->group->pf_nominal -= nic_nominal(r->payload);
	nic_pf_release(nic, wl, now);
	nic->txq[NIC_TC_DATA].reserved += wl;
	port_pool_enq(&nic->txs[NIC_TC_DATA], wl, nic->txq[NIC_TC_DATA].reserved);
	nic_txq_push(nic, NIC_TC_DATA, p, now);
	return true;
}

/* The oldest waiting retransmission: rebuilt from its record, with no PCIe read (seed 000, Fetching). */
static bool issue_rtx(struct nic *nic, struct nic_pdc *pdc, uint32_t wl, emu_ps_t now)
{
	struct nic_rec *r = pdc->rtx_head;
	struct wire_pkt *p = nic_pkt_new(nic, WIRE_KIND_DATA, pdc);

	if (p == NULL)
		return false;
	r->tx_count++;
	commit(nic, pdc, r, p, now);
	pdc->rtx_head = r->rtx_next;
	if (pdc->rtx_head == NULL) {
		pdc->rtx_tail = NULL;
		nic_pdc_idle_note(pdc);
	}
	r->rtx_next = NULL;
	nic_gauge_max(&nic->g.max_tx_count, &nic->g.ivl_max_tx_count, r->tx_count);
	r->state = NIC_REC_RESENDING;
	nic->c[NIC_C_NUM_RTX]++;
	pdc->rtx++;
	nic->txq[NIC_TC_DATA].reserved += wl;
	port_pool_enq(&nic->txs[NIC_TC_DATA], wl, nic->txq[NIC_TC_DATA].reserved);
	nic_txq_push(nic, NIC_TC_DATA, p, now);
	return true;
}

/*
 * The PDC of @p g that sends next, dropping PDCs with nothing left from the ring; NULL if none can send now. The walk
 * goes round the ring from the PDC whose turn it is to the first that can send, or once round when none can. A
 * window without room for the smallest payload any PDC on the ring could send next (rr_lp_min) holds every one of
 * them back: then the walk would only drop the PDCs with nothing left, which the idle list names, and end at the
 * first PDC left from the one whose turn it was, so that is what is done, without the walk, whose cost grew with the
 * PDCs the window held back on every pass. A walk once round recounts rr_lp_min over the PDCs it leaves.
 */
static struct nic_pdc *group_pick(struct nic *nic, struct nic_group *g, enum next_kind *kind, uint32_t *payload)
{
	struct nic_pdc *start = NULL;
	uint32_t lp_min = UINT32_MAX, lp_n = 0;

	if (g->rr != NULL && !nic->p->cc_pass_through &&
	    g->in_flight + nic_nominal(g->rr_lp_min) > nic_cc_cwnd(&g->cc)) {
		nic_group_idle_sweep(g);
		return NULL;
	}
	while (g->rr != NULL) {
		struct nic_pdc *pdc = g->rr;
		if (!nic_pdc_has_work(pdc)) {
			nic_pdc_rr_unlink(pdc);
			continue;
		}
		if (can_send(nic, pdc, kind, payload))
			return pdc;
		if (pdc == start) {
			g->rr_lp_min = lp_min;
			g->rr_lp_n = lp_n;
			return NULL;
		}
		if (start == NULL)
			start = pdc;
		if (pdc->rr_lp < lp_min) {
			lp_min = pdc->rr_lp;
			lp_n = 1;
		} else if (pdc->rr_lp == lp_min) {
			lp_n++;
		}
		g->rr = pdc->rr_next;
	}
	return NULL;
}

/* Issue what group_pick() chose: false, with nothing changed, when a pool or the scheduler refused. */
static bool issue(struct nic *nic, struct nic_pdc *pdc, enum next_kind kind, uint32_t wl, emu_ps_t now)
{
	switch (kind) {
	case NEXT_RTX:
		return issue_rtx(nic, pdc, wl, now);
	case NEXT_COMMIT:
		return issue_commit(nic, pdc, wl, now);
	case NEXT_FETCH:
		return issue_fetch(nic, pdc, wl, now);
	case NEXT_NEW:
	case NEXT_NONE:
	default:
		return issue_new(nic, pdc, wl, now);
	}
}

/*
 * One transmit pass: serve the ready queue of groups, one packet per turn. A group with nothing it can send
 * (window full, or waiting for a prefetched payload) leaves the queue; a full egress pool stops the pass with the
 * group left at the head (seed 000, PDC groups and the transmit scheduler). So does an empty packet or record
 * pool (or a full scheduler): the pool is shared, so the pass retries when this NIC's port finishes a frame or it
 * receives a packet (nic.c), or after one full frame's time when its port is idle and neither may come soon.
 */
void nic_tx_pass(struct nic *nic, emu_ps_t now)
{
	struct nic_txq *q = &nic->txq[NIC_TC_DATA];

	nic->pump_blocked = false;
	nic->pkt_blocked = false;
	while (nic->ready_head != NULL) {
		struct nic_group *g = nic->ready_head;
		enum next_kind kind;
		uint32_t payload;
		struct nic_pdc *pdc = group_pick(nic, g, &kind, &payload);
		if (pdc == NULL) {
			nic_group_unready(nic, g);
			continue;
		}
		uint32_t wl = payload + nic_data_ovh(nic);
		if (kind != NEXT_FETCH && q->reserved + wl > q->pool_size) {
			nic->pump_blocked = true;
			return;
		}
		if ((kind == NEXT_NEW || kind == NEXT_FETCH) && !fetch_room(nic, payload)) {
			nic->cpl_blocked = true;
			return;
		}
		if (!issue(nic, pdc, kind, wl, now)) {
			nic->pkt_blocked = true;
			if (!nic->tx.busy)
				nic_pump_arm(nic, now + emu_ser_ps(nic->p->rdma_data_mss + nic_data_ovh(nic),
								   nic->link_bps));
			return;
		}
		g->rr = pdc->rr_next; /* the turn passes to the group's next PDC; finished PDCs leave in group_pick */
		/* Back to the tail of the queue: the group still holds @p pdc, so it is not freed here. */
		nic_group_unready(nic, g);
		nic_group_ready(nic, g, false);
	}
}

int nic_pdc_hold(struct nic *nic, uint16_t pdc_id, bool on, emu_ps_t now)
{
	struct nic_pdc *pdc = nic_pdc_snd_find(nic, pdc_id);

	if (pdc == NULL || !pdc->sender)
		return -ENOENT;
	bool was = pdc->held;

	pdc->held = on;
	if (was && !on && nic_pdc_has_work(pdc))
		nic_pdc_wake(nic, pdc, now);
	return 0;
}

/* Retransmission timeout of a packet's @p tx_count-th transmission (seed 000, Retransmission timer). */
static emu_ps_t rto_of(const struct nic *nic, uint32_t tx_count)
{
	if (nic->p->fixed_rexmit_enable)
		return nic->p->fixed_rexmit_timeout;
	uint32_t doublings = tx_count - 1;

	if (doublings > nic->p->max_rto_backoff)
		doublings = nic->p->max_rto_backoff;
	return nic->p->initial_rto << doublings;
}

/*
 * A data packet finished serializing: its retransmission timer starts now. @p r may have been retired (and its
 * memory reused) while this copy waited; the uid, unique per packet built, tells.
 */
void nic_data_serialized(struct nic *nic, struct nic_rec *r, uint64_t uid, emu_ps_t now)
{
	if (r == NULL || r->uid != uid || r->state == NIC_REC_LOST)
		return;
	r->state = NIC_REC_SENT;
	r->sent_end = now;
	r->rto_at = now + rto_of(nic, r->tx_count);
	nic_rto_arm(nic, r->pdc, r->rto_at);
	/* REPS early failure detection: a packet still unacknowledged this long after it was sent is reported to
	 * the load balancer as a failure of its path (FailureDetectionRTTMultiplier x the base RTT congestion control
	 * keeps: InitialBaseRTT until a lower RTT is measured, multipath.md) */
	emu_ps_t d = nic_lb_failure_deadline(nic->p, nic_cc_base_rtt(&r->pdc->group->cc)); /* NSCC's, as it falls */
	if (d != EMU_PS_NEVER) {
		r->late_at = now + d;
		nic_late_arm(nic, r->pdc, r->late_at);
	}
	/* the message's last packet left the NIC: every byte has been sent (last: the hook may post at once) */
	if (nic->env.hooks.msg_sent != NULL && r->seg + 1 == r->pdc->n_pkts && !r->pdc->sent_told) {
		r->pdc->sent_told = true;
		nic->env.hooks.msg_sent(nic->env.hooks.arg, r->pdc->cookie, now);
	}
}
