/* The sender (transport page): work requests, the ready queue and packet generation, egress reservations, the PCIe
 * fetch of each segment, PSNs, the transport timer, ACKs and NAKs, go-back-N and completion. */
#include "roce_pvt.h"

#include <errno.h>

static uint32_t seg_bytes(const struct roce *r, const struct roce_qp *qp, uint32_t seg)
{
	uint64_t off = (uint64_t)seg * r->p->mss;

	if (qp->bytes <= off)
		return 0;
	return qp->bytes - off < r->p->mss ? (uint32_t)(qp->bytes - off) : r->p->mss;
}

static uint8_t opcode_of(const struct roce_qp *qp, uint32_t seg)
{
	bool first = seg == 0, last = seg + 1 == qp->n_pkts;
	uint8_t base = qp->verb == ROCE_VERB_SEND ? WIRE_ROCE_SEND_FIRST : WIRE_ROCE_WRITE_FIRST;

	if (first && last)
		return qp->verb == ROCE_VERB_SEND ? WIRE_ROCE_SEND_ONLY : WIRE_ROCE_WRITE_ONLY;
	return (uint8_t)(base + (first ? 0 : last ? 2 : 1));
}

/* Bytes on the wire of segment @p seg: payload + 58, the RETH and the ICRC when they are on, and with the ICRC the
 * pad to a multiple of 4. wire_wire_len() of the frame it becomes, so that what generation reserves in the egress
 * pool is what leaves it when the frame is sent (roce_tx_done() releases wire_wire_len()). */
static uint32_t seg_wire_len(const struct roce *r, const struct roce_qp *qp, uint32_t seg)
{
	struct wire_pkt f = { .kind = WIRE_KIND_ROCE, .encap = roce_encap(r), .payload_len = seg_bytes(r, qp, seg) };

	f.roce.opcode = opcode_of(qp, seg);
	return (uint32_t)wire_wire_len(&f);
}

static void rto_stop(struct roce *r, struct roce_qp *qp)
{
	if (qp->rto_armed)
		emu_sched_cancel(r->env.np->sched, qp->rto);
	qp->rto_armed = false;
}

static void ev_rto(void *a, void *b, emu_ps_t now);

static void rto_start(struct roce *r, struct roce_qp *qp, emu_ps_t now)
{
	rto_stop(r, qp);
	if (net_sched(r->env.np, now + r->p->retransmit_timeout, ev_rto, r, qp, &qp->rto) == 0)
		qp->rto_armed = true;
}

/* Go back to @p psn: fetches in flight become stale, the window empties, the segments from @p psn are fetched
 * again (transport page, Loss recovery, step 3). */
static void rewind_to(struct roce *r, struct roce_qp *qp, uint32_t psn, emu_ps_t now)
{
	qp->gen++;
	qp->snd_nxt = psn;
	qp->next_seg = roce_psn_diff(psn, qp->first_psn);
	rto_stop(r, qp); /* the window is empty: the first resent packet starts the timer again */
	r->c[ROCE_C_RTX]++;
	qp->rewinds++;
	roce_ready(r, qp, now);
}

static void ev_rto(void *a, void *b, emu_ps_t now)
{
	struct roce *r = a;
	struct roce_qp *qp = b;

	qp->rto_armed = false;
	if (qp->snd_una == qp->snd_nxt)
		return;
	r->c[ROCE_C_RTO]++;
	rewind_to(r, qp, qp->snd_una, now); /* no retry limit, no backoff */
}

static void msg_start(struct roce *r, struct roce_qp *qp, emu_ps_t now)
{
	struct roce_wqe *w = qp->wq_head;
	uint64_t mss = r->p->mss;

	qp->wq_head = w->next;
	if (qp->wq_head == NULL)
		qp->wq_tail = NULL;
	qp->busy = true;
	qp->bytes = w->bytes;
	qp->cookie = w->cookie;
	qp->verb = w->verb;
	qp->n_pkts = w->bytes == 0 ? 1 : (uint32_t)((w->bytes + mss - 1) / mss);
	qp->first_psn = qp->snd_nxt;
	qp->next_seg = 0;
	qp->rewinds = 0;
	qp->sent_told = false;
	emu_pool_put(r->wqe_pool, w);
	roce_ready(r, qp, now);
}

static void ev_doorbell(void *a, void *b, emu_ps_t now)
{
	struct roce *r = a;
	struct roce_wqe *w = b;
	struct roce_qp *qp = &r->qps[w->qp];

	if (qp->wq_tail != NULL)
		qp->wq_tail->next = w;
	else
		qp->wq_head = w;
	qp->wq_tail = w;
	if (!qp->busy)
		msg_start(r, qp, now);
}

int roce_post(struct roce *r, uint32_t qpn, enum roce_verb verb, uint64_t bytes, uint64_t cookie, emu_ps_t now)
{
	struct roce_qp *qp = roce_qp_find(r, 0, qpn, true);
	uint64_t db = r->env.doorbell_bytes ? r->env.doorbell_bytes : 92;
	struct roce_wqe *w;
	emu_ps_t landed;

	if (qp == NULL)
		return -ENOENT;
	if (bytes > roce_msg_bytes_max(r->p->mss)) /* ROCE_MSG_PKTS_MAX packets */
		return -EMSGSIZE;
	w = emu_pool_get(r->wqe_pool);
	if (w == NULL) {
		r->c[ROCE_C_DROP_NO_WQE]++;
		return -ENOSPC;
	}
	*w = (struct roce_wqe){ .qp = qp->idx, .bytes = bytes, .cookie = cookie, .verb = (uint8_t)verb };
	r->c[ROCE_C_WQE_CREATED]++;
	/* the doorbell crosses the host-to-NIC direction of PCIe first (seed 003, WQEs) */
	landed = port_pcie_doorbell(&r->pcie, db, now);
	if (net_sched(r->env.np, landed, ev_doorbell, r, w, NULL) != 0) {
		emu_pool_put(r->wqe_pool, w);
		return -ENOSPC;
	}
	return 0;
}

/* ---- packet generation ---- */

static void ev_gen(void *a, void *b, emu_ps_t now);

void roce_gen_arm(struct roce *r, emu_ps_t now)
{
	if (r->gen_armed || r->gen_blocked || r->ready_head == NULL)
		return;
	if (net_sched(r->env.np, now + ROCE_GEN_DELAY_PS, ev_gen, r, NULL, NULL) == 0)
		r->gen_armed = true;
}

void roce_ready(struct roce *r, struct roce_qp *qp, emu_ps_t now)
{
	bool was_empty = r->ready_head == NULL;

	if (qp->in_ready)
		return;
	qp->in_ready = true;
	qp->ready_next = NULL;
	if (r->ready_tail != NULL)
		r->ready_tail->ready_next = qp;
	else
		r->ready_head = qp;
	r->ready_tail = qp;
	if (was_empty)
		roce_gen_arm(r, now);
}

static struct roce_qp *ready_pop(struct roce *r)
{
	struct roce_qp *qp = r->ready_head;

	r->ready_head = qp->ready_next;
	if (r->ready_head == NULL)
		r->ready_tail = NULL;
	qp->in_ready = false;
	return qp;
}

/* Fetch events carry the segment, the queue pair and its generation packed in one word. */
#define FETCH_ARG(seg, qp, gen) ((void *)(uintptr_t)((uint64_t)(seg) | (uint64_t)(qp) << 24 | (uint64_t)(gen) << 48))

static void ev_fetched(void *a, void *b, emu_ps_t now);

/* The segment's PCIe read: its request on the NIC-to-host direction, the payload back on the host-to-NIC one. */
/* Planned first and charged once its landing is scheduled, so a full scheduler leaves PCIe untouched; false then. */
static bool fetch(struct roce *r, struct roce_qp *qp, uint32_t seg, emu_ps_t now)
{
	struct port_pcie_fetch f;

	port_pcie_fetch_plan(&r->pcie, r->p->read_request_size + PORT_PCIE_OVERHEAD, seg_bytes(r, qp, seg), now, &f);
	if (net_sched(r->env.np, f.cpl_end, ev_fetched, r, FETCH_ARG(seg, qp->idx, qp->gen & 0xffff), NULL) != 0)
		return false;
	port_pcie_fetch_charge(&r->pcie, &f);
	return true;
}

static void ev_gen(void *a, void *b, emu_ps_t now)
{
	struct roce *r = a;

	(void)b;
	r->gen_armed = false;
	while (r->ready_head != NULL) {
		struct roce_qp *qp = r->ready_head;

		if (!qp->busy || qp->next_seg >= qp->n_pkts || qp->ctl_held) { /* rewound past, completed meanwhile, or
									       * held by the run's control */
			ready_pop(r);
			continue;
		}
		struct roce_txq *q = &r->txq[r->data_tc];
		uint32_t len = seg_wire_len(r, qp, qp->next_seg);

		if (q->reserved + len > q->pool) { /* generation stops until the pool drains (transport page) */
			r->gen_blocked = true;
			return;
		}
		if (!fetch(r, qp, qp->next_seg, now)) {
			/* the scheduler is full (counted by the partition): the fetches in flight for this queue pair
			 * go stale, its segments are taken again from the first unnumbered one, a pass later */
			qp->gen++;
			qp->next_seg = roce_psn_diff(qp->snd_nxt, qp->first_psn);
			roce_gen_arm(r, now);
			return;
		}
		roce_tx_reserve(r, r->data_tc, len);
		qp->next_seg++;
		ready_pop(r);
		if (qp->next_seg < qp->n_pkts)
			roce_ready(r, qp, now);
	}
}

int roce_qp_hold(struct roce *r, uint32_t qpn, bool on, emu_ps_t now)
{
	struct roce_qp *qp = roce_qp_find(r, 0, qpn, true);

	if (qp == NULL)
		return -ENOENT;
	bool was = qp->ctl_held;

	qp->ctl_held = on;
	if (was && !on && qp->busy && qp->next_seg < qp->n_pkts)
		roce_ready(r, qp, now);
	return 0;
}

static void ev_fetched(void *a, void *b, emu_ps_t now)
{
	struct roce *r = a;
	uint64_t v = (uint64_t)(uintptr_t)b;
	uint32_t seg = (uint32_t)(v & 0xffffff), gen = (uint32_t)(v >> 48);
	struct roce_qp *qp = &r->qps[(v >> 24) & 0xffffff];
	uint32_t len = seg_wire_len(r, qp, seg);
	struct wire_pkt *p;

	if (gen != (qp->gen & 0xffff) || !qp->busy) { /* a rewind made it stale */
		r->c[ROCE_C_TX_PAYLOAD_DISCARDS]++;
		roce_tx_release(r, r->data_tc, len, now);
		return;
	}
	p = roce_pkt_new(r, qp, opcode_of(qp, seg), r->data_tc);
	if (p == NULL) /* counted; the transport timer resends it */
		roce_tx_release(r, r->data_tc, len, now);
	if (qp->snd_una == qp->snd_nxt) /* a PSN added to an empty window starts the timer */
		rto_start(r, qp, now);
	if (p != NULL) {
		p->roce.psn = qp->snd_nxt;
		p->roce.se = p->roce.ack_req = seg + 1 == qp->n_pkts; /* the solicited-event flag on the last */
		p->ecn = r->p->enable_ecn ? WIRE_ECN_ECT0 : WIRE_ECN_NOT_ECT;
		p->payload_len = seg_bytes(r, qp, seg);
		p->roce.rkey = qp->qpn;
		p->roce.dma_len = (uint32_t)(qp->bytes > UINT32_MAX ? UINT32_MAX : qp->bytes);
		roce_data_queue(r, p, r->data_tc, now);
	}
	qp->snd_nxt = (qp->snd_nxt + 1) & ROCE_PSN_MASK;
	if (roce_psn_diff(qp->snd_nxt, qp->snd_max) < ROCE_MSG_PKTS_MAX)
		qp->snd_max = qp->snd_nxt;
}

void roce_tx_sent(struct roce *r, struct roce_qp *qp, uint32_t psn, emu_ps_t now)
{
	qp->sent_at[psn & (ROCE_RTT_RING - 1)] = now;
	/* the message's last PSN left the NIC for the first time: every byte has been sent */
	if (r->env.hooks.msg_sent != NULL && qp->busy && !qp->sent_told &&
	    psn == ((qp->first_psn + qp->n_pkts - 1) & ROCE_PSN_MASK)) {
		qp->sent_told = true;
		r->env.hooks.msg_sent(r->env.hooks.arg, qp->cookie, now);
	}
}

/* ---- ACKs and NAKs at the sender ---- */

static void rtt_sample(struct roce *r, struct roce_qp *qp, uint32_t psn, emu_ps_t now)
{
	emu_ps_t at = qp->sent_at[psn & (ROCE_RTT_RING - 1)];
	uint64_t v;

	if (at == 0 || at > now || roce_psn_diff(qp->snd_nxt, psn) > ROCE_RTT_RING)
		return;
	v = now - at;
	r->rtt.n++;
	r->rtt.sum += v;
	r->rtt.ivl_n++;
	r->rtt.ivl_sum += v;
	if (v > r->rtt.max)
		r->rtt.max = v;
	if (v > r->rtt.ivl_max)
		r->rtt.ivl_max = v;
	if (v < r->rtt.ivl_min)
		r->rtt.ivl_min = v;
}

static void msg_done(struct roce *r, struct roce_qp *qp, emu_ps_t now)
{
	qp->busy = false;
	qp->gen++; /* fetches still in flight for it are stale */
	rto_stop(r, qp);
	r->c[ROCE_C_WQE_COMPLETED]++;
	if (r->env.hooks.msg_done != NULL)
		r->env.hooks.msg_done(r->env.hooks.arg, qp->cookie, now);
	if (qp->wq_head != NULL)
		msg_start(r, qp, now);
}

/* Retire every PSN before @p upto (exclusive). */
static void retire(struct roce *r, struct roce_qp *qp, uint32_t upto, emu_ps_t now)
{
	if (roce_psn_diff(upto, qp->snd_nxt) - 1 < ROCE_MSG_PKTS_MAX) { /* past snd_nxt after a rewind */
		qp->gen++;
		qp->snd_nxt = upto;
		qp->next_seg = roce_psn_diff(upto, qp->first_psn);
	}
	qp->snd_una = upto;
	if (roce_psn_diff(qp->snd_una, qp->first_psn) >= qp->n_pkts) {
		msg_done(r, qp, now);
		return;
	}
	if (qp->snd_una != qp->snd_nxt)
		rto_start(r, qp, now); /* restarts while PSNs remain outstanding */
	else
		rto_stop(r, qp);
}

void roce_rx_ack(struct roce *r, struct roce_qp *qp, const struct wire_pkt *pkt, emu_ps_t now)
{
	uint32_t psn = pkt->roce.psn;
	bool nak = (pkt->roce.syndrome & WIRE_AETH_NAK_MASK) == WIRE_AETH_NAK;
	/* an ACK names the last PSN received in order, a NAK the PSN expected: both must be below snd_max */
	uint32_t upto = nak ? psn : (psn + 1) & ROCE_PSN_MASK;

	if (roce_psn_diff(psn, qp->snd_max) < ROCE_MSG_PKTS_MAX) {
		r->c[ROCE_C_RX_DROPS_GHOST_ACK]++;
		return;
	}
	if (!qp->busy || roce_psn_diff(upto, qp->snd_una) >= ROCE_MSG_PKTS_MAX)
		return; /* an old ACK or NAK: nothing left to retire */
	if (!nak) {
		if (upto != qp->snd_una) {
			rtt_sample(r, qp, psn, now);
			retire(r, qp, upto, now);
		}
		return;
	}
	qp->snd_una = upto; /* a NAK retires every PSN below the one it names */
	rewind_to(r, qp, upto, now);
}
