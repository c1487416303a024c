/* The Scala RoCE NIC device: creation, queue pair table, the network port and its scheduler (buffers page,
 * Transmit scheduling), receive dispatch, the ingress pools and PFC (buffers page, Receive buffer and PFC). */
#include "roce_pvt.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "emu_counter.h"

EMU_COUNTER_NAMES(roce_counter, ROCE_COUNTERS, ROCE_C_COUNT)

static uint32_t pow2_at_least(uint64_t want)
{
	uint32_t n = 16;

	while (n < want && n < (1u << 24))
		n <<= 1;
	return n;
}

static int txq_init(struct roce_txq *q, uint64_t pool)
{
	uint32_t n = pow2_at_least(pool / 122 + 2); /* the smallest frame a pool holds: a 126 B ACK, less 4 */

	q->ring = calloc(n, sizeof(*q->ring));
	if (q->ring == NULL)
		return -ENOMEM;
	q->mask = n - 1;
	q->pool = pool;
	return 0;
}

static void pfc_init(struct roce *r);

static int tables_init(struct roce *r)
{
	r->max_qps = r->env.max_qps ? r->env.max_qps : 4096;
	r->qps = calloc(r->max_qps, sizeof(*r->qps));
	r->hmask = pow2_at_least(2ULL * r->max_qps) - 1;
	r->hash = calloc(r->hmask + 1ULL, sizeof(*r->hash));
	r->wqe_pool = emu_pool_create(sizeof(struct roce_wqe), r->env.max_wqes ? r->env.max_wqes : 1u << 14);
	if (r->qps == NULL || r->hash == NULL || r->wqe_pool == NULL)
		return -ENOMEM;
	for (int tc = 0; tc < PORT_TC_COUNT; tc++)
		if (txq_init(&r->txq[tc], roce_pool_bytes(&r->p->egress, (uint32_t)tc)) < 0)
			return -ENOMEM;
	return 0;
}

struct roce *roce_create(const struct roce_env *env)
{
	struct roce *r = calloc(1, sizeof(*r));

	if (r == NULL)
		goto fail;
	r->env = *env;
	r->p = env->params;
	r->data_tc = env->data_tc;
	r->ctrl_tc = env->ctrl_tc;
	r->line_bps = r->p->data_rate_bps;
	port_shape_set(&r->shape, r->p->rate_limit_bps, r->p->rate_limit_burst, 0);
	r->cc_weight_ppm = (uint32_t)(r->p->cong_prob_weight * 1e6 + 0.5);
	r->cc_keep_ppm = 1000000u - (uint32_t)(r->p->initial_target_rate_frac * 1e6 + 0.5);
	port_pcie_init(&r->pcie, r->p->pcie_nic.lane_bps * r->p->pcie_nic.lane_count,
		      r->p->pcie_host.lane_bps * r->p->pcie_host.lane_count);
	/* the transmit buffers hold the payload (TXDataBufferSize) and the headers (TXHeaderBufferSize, 16 B per
	 * transfer) of the writes waiting for the link: whichever fills first bounds them, as on the UET NIC */
	uint64_t hdr_cap = r->p->pcie_nic.tx_header_buffer / PORT_PCIE_TLP_HDR * (PORT_PCIE_MAX_PAYLOAD + PORT_PCIE_OVERHEAD);

	r->pcie_tx_cap = r->p->pcie_nic.tx_data_buffer < hdr_cap ? r->p->pcie_nic.tx_data_buffer : hdr_cap;
	for (int tc = 0; tc < PORT_TC_COUNT; tc++)
		r->in_pool[tc] = roce_pool_bytes(&r->p->ingress, (uint32_t)tc);
	r->rtt.ivl_min = UINT64_MAX;
	pfc_init(r);
	/* WeightedRoundRobin's turns start at the highest-numbered class with a pool (buffers page) */
	for (uint32_t tc = 0; tc < PORT_TC_COUNT; tc++)
		if (roce_pool_bytes(&r->p->egress, tc) > 0)
			r->tx.sched.next = tc;
	if (tables_init(r) < 0)
		goto fail_r;
	return r;
fail_r:
	roce_destroy(r);
fail:
	errno = ENOMEM;
	return NULL;
}

void roce_destroy(struct roce *r)
{
	if (r == NULL)
		return;
	for (int tc = 0; tc < PORT_TC_COUNT; tc++) {
		struct roce_txq *q = &r->txq[tc];

		for (uint32_t i = q->head; q->ring != NULL && i != q->tail; i++)
			net_pkt_free(r->env.np, q->ring[i & q->mask]);
		free(q->ring);
	}
	while (r->tx.first_head != r->tx.first_tail)
		net_pkt_free(r->env.np, port_tx_pop_first(&r->tx));
	emu_pool_destroy(r->wqe_pool);
	free(r->hash);
	free(r->qps);
	free(r);
}

void roce_attach(struct roce *r, struct net_dir *out)
{
	r->out = out;
	if (out->link->bps < r->line_bps)
		r->line_bps = out->link->bps;
	r->pfcs.bps = r->line_bps; /* pause times at line rate, plus the Delay attribute (buffers page) */
	r->floor_bps = (uint64_t)((double)r->line_bps * r->p->min_rate_frac);
	if (r->floor_bps == 0)
		r->floor_bps = 1;
	for (uint32_t i = 0; i < r->n_qps; i++)
		roce_cc_init(r, &r->qps[i]);
}

uint64_t roce_line_bps(const struct roce *r)
{
	return r->line_bps;
}

const char *roce_name(const struct roce *r)
{
	return r->env.name;
}

uint32_t roce_fep_id(const struct roce *r)
{
	return r->env.fep_id;
}

const uint64_t *roce_counters(const struct roce *r)
{
	return r->c;
}

void roce_rtt(const struct roce *r, struct roce_rtt *out)
{
	*out = r->rtt;
}

void roce_interval_reset(struct roce *r)
{
	r->rtt.ivl_n = r->rtt.ivl_sum = r->rtt.ivl_max = 0;
	r->rtt.ivl_min = UINT64_MAX;
}

void roce_pool_stats(const struct roce *r, bool tx, uint32_t tc, struct port_pool_stats *out)
{
	memset(out, 0, sizeof(*out));
	if (tc >= PORT_TC_COUNT)
		return;
	*out = tx ? r->txs[tc] : r->rxs[tc];
	roce_pool(r, tx, tc, &out->size, &out->occupancy);
}

void roce_pool_interval_reset(struct roce *r)
{
	for (uint32_t tc = 0; tc < PORT_TC_COUNT; tc++) {
		r->rxs[tc].ivl_max_occupancy = r->in_used[tc];
		r->txs[tc].ivl_max_occupancy = r->txq[tc].reserved;
	}
}

void roce_pool(const struct roce *r, bool tx, uint32_t tc, uint64_t *size, uint64_t *occupancy)
{
	*size = tc < PORT_TC_COUNT ? (tx ? r->txq[tc].pool : r->in_pool[tc]) : 0;
	*occupancy = tc < PORT_TC_COUNT ? (tx ? r->txq[tc].reserved : r->in_used[tc]) : 0;
}

void roce_pcie_stats(const struct roce *r, struct port_pcie_stats *out, emu_ps_t now)
{
	port_pcie_link_stats(&r->pcie, out, now);
}

void roce_pfc_stats(const struct roce *r, struct port_pfc_stats *out, emu_ps_t now)
{
	port_pfcs_stats(&r->pfcs, out, now);
}

void roce_pfc_interval_reset(struct roce *r, emu_ps_t now)
{
	port_pfcs_interval_reset(&r->pfcs, now);
}

/* ---- queue pairs ---- */

static uint32_t qp_hash(const struct roce *r, uint32_t peer_ip, uint32_t qpn)
{
	return (uint32_t)(((uint64_t)qpn * 2654435761u) ^ ((uint64_t)peer_ip * 40503u)) & r->hmask;
}

struct roce_qp *roce_qp_find(const struct roce *r, uint32_t peer_ip, uint32_t qpn, bool local)
{
	uint32_t key_ip = local ? 0 : peer_ip;

	for (struct roce_qp *q = r->hash[qp_hash(r, key_ip, qpn)]; q != NULL; q = q->hnext)
		if (q->qpn == qpn && q->local == local && (local || q->peer_ip == peer_ip))
			return q;
	return NULL;
}

/* port_neigh_mac() of this NIC: the gateway's MAC with one, else the neighbour's; NULL for an unknown @p ip. When a
 * queue pair is made, a CM message sent, a CNP sent on a queue pair's first packet; not per packet. */
static const uint8_t *neigh_mac(const struct roce *r, uint32_t ip)
{
	return port_neigh_mac(r->env.neigh, r->env.n_neigh, r->env.has_gw, r->env.gw_mac, ip);
}

struct roce_qp *roce_qp_new(struct roce *r, uint32_t peer_ip, uint32_t qpn, bool local)
{
	const uint8_t *mac = neigh_mac(r, peer_ip);
	struct roce_qp *q;
	uint32_t h;

	if (r->n_qps >= r->max_qps || mac == NULL) {
		r->c[ROCE_C_DROP_NO_QP]++;
		return NULL;
	}
	q = &r->qps[r->n_qps];
	q->idx = r->n_qps++;
	q->qpn = qpn;
	q->peer_ip = peer_ip;
	q->local = local;
	memcpy(q->peer_mac, mac, 6);
	roce_cc_init(r, q);
	h = qp_hash(r, local ? 0 : peer_ip, qpn);
	q->hnext = r->hash[h];
	r->hash[h] = q;
	return q;
}

int roce_qp_open(struct roce *r, uint32_t dst_ip, uint32_t *qpn)
{
	struct roce_qp *q;

	if (neigh_mac(r, dst_ip) == NULL)
		return -EHOSTUNREACH;
	q = roce_qp_new(r, dst_ip, r->n_qps + ROCE_QPN_FIRST, true);
	if (q == NULL)
		return -ENOSPC;
	*qpn = q->qpn;
	return 0;
}

uint64_t roce_qp_rate(const struct roce *r, uint32_t qpn)
{
	struct roce_qp *q = roce_qp_find(r, 0, qpn, true);

	return q == NULL ? 0 : roce_cc_rate(r, q);
}

/* ---- building and queueing frames ---- */

struct wire_pkt *roce_pkt_new(struct roce *r, const struct roce_qp *qp, uint8_t op, uint8_t tc)
{
	struct wire_pkt *p = net_pkt_alloc_kind(r->env.np, WIRE_KIND_ROCE);

	if (p == NULL) {
		r->c[ROCE_C_DROP_NO_PKT]++;
		return NULL;
	}
	memcpy(p->src_mac, r->env.mac, 6);
	memcpy(p->dst_mac, qp->peer_mac, 6);
	p->src_ip = r->env.ip;
	p->dst_ip = qp->peer_ip;
	p->dscp = (uint8_t)(tc * 8); /* class selector CSn (RFC 2474) */
	p->ecn = WIRE_ECN_NOT_ECT;
	p->ttl = WIRE_TTL;
	/* the UDP source port spreads queue pairs over ECMP paths, as RoCEv2 devices do (Annex A17.2.4) */
	p->sport = (uint16_t)(0xc000 | ((qp->qpn * 2654435761u) >> 18));
	p->dport = WIRE_UDP_PORT_ROCE;
	p->encap = roce_encap(r);
	p->roce.opcode = op;
	p->roce.pkey = WIRE_ROCE_PKEY;
	p->roce.dqpn = qp->qpn;
	return p;
}

static void count_sent(struct roce *r, const struct wire_pkt *p)
{
	r->c[ROCE_C_PKTS_SENT]++;
	if (p->kind == WIRE_KIND_CM) {
		r->c[ROCE_C_NON_VERB_PKTS_SENT]++;
		r->c[ROCE_C_CONN_PKTS_SENT]++;
	} else if (wire_roce_is_data(p->roce.opcode)) {
		r->c[ROCE_C_VERB_PKTS_SENT]++;
		r->c[p->roce.opcode <= WIRE_ROCE_SEND_ONLY ? ROCE_C_RDMA_SEND_CNT : ROCE_C_RDMA_WRITE_CNT]++;
	} else {
		r->c[ROCE_C_NON_VERB_PKTS_SENT]++;
	}
}

bool roce_ctl_send(struct roce *r, struct wire_pkt *pkt, uint8_t tc, emu_ps_t now)
{
	struct roce_txq *q = &r->txq[tc];
	uint64_t len = wire_wire_len(pkt);

	if (q->reserved + len > q->pool || q->tail - q->head > q->mask) {
		r->txs[tc].overflow++;
		r->c[ROCE_C_DROP_TX_CTL_POOL_FULL]++;
		net_pkt_free(r->env.np, pkt);
		return false;
	}
	roce_tx_reserve(r, tc, len);
	count_sent(r, pkt);
	q->ring[q->tail++ & q->mask] = pkt;
	roce_port_kick(r, now);
	return true;
}

void roce_pfcq_push(struct roce *r, struct wire_pkt *pkt, emu_ps_t now)
{
	if (!port_tx_push_first(&r->tx, pkt)) { /* PORT_FIRSTQ frames already wait: the newest is one too many */
		net_pkt_free(r->env.np, pkt);
		r->c[ROCE_C_DROP_NO_PKT]++;
		return;
	}
	if (pkt->kind == WIRE_KIND_ROCE)
		count_sent(r, pkt);
	roce_port_kick(r, now);
}

void roce_data_queue(struct roce *r, struct wire_pkt *pkt, uint32_t tc, emu_ps_t now)
{
	struct roce_txq *q = &r->txq[tc];

	count_sent(r, pkt);
	q->ring[q->tail++ & q->mask] = pkt;
	roce_port_kick(r, now);
}

/* ---- the port and its scheduler ---- */

void roce_tx_reserve(struct roce *r, uint32_t tc, uint64_t len)
{
	struct roce_txq *q = &r->txq[tc];

	q->reserved += len;
	port_pool_enq(&r->txs[tc], len, q->reserved);
}

void roce_tx_release(struct roce *r, uint32_t tc, uint64_t len, emu_ps_t now)
{
	struct roce_txq *q = &r->txq[tc];

	q->reserved -= len;
	port_pool_deq(&r->txs[tc], len);
	/* generation stopped on the data pool restarts at the latest when it drains to half (transport page) */
	if (r->gen_blocked && tc == r->data_tc && q->reserved <= q->pool / 2) {
		r->gen_blocked = false;
		roce_gen_arm(r, now);
	}
}

static bool tc_ready(const struct roce *r, uint32_t tc)
{
	const struct roce_txq *q = &r->txq[tc];

	return q->pool > 0 && q->head != q->tail && !port_pfcs_paused(&r->pfcs, tc);
}

/* The classes that could send now: a frame waits, the class has a pool and no pause holds it. */
static uint32_t ready_tcs(const struct roce *r)
{
	uint32_t ready = 0;

	for (uint32_t tc = 0; tc < PORT_TC_COUNT; tc++)
		ready |= tc_ready(r, tc) ? 1u << tc : 0;
	return ready;
}

static void ev_shape(void *a, void *b, emu_ps_t now)
{
	struct roce *r = a;

	(void)b;
	r->shape_armed = false;
	roce_port_kick(r, now);
}

/* The class to send from now (buffers page, Transmit scheduling): the PFC/CNP queue first, else the scheduler
 * the UET NIC uses too (port_sched.h) over the eight classes, skipping empty, pool-less and paused ones; none while
 * uetemu's egress shaper (port_shape.h) holds the classes, the port kicked when it lets the next frame go. */
static int port_pick(struct roce *r, emu_ps_t now)
{
	uint32_t ready = ready_tcs(r);

	if (ready != 0 && r->tx.first_head == r->tx.first_tail && port_shape_holds(&r->shape, now)) {
		if (!r->shape_armed && net_sched(r->env.np, port_shape_ready(&r->shape), ev_shape, r, NULL, NULL) == 0)
			r->shape_armed = true;
		return PORT_TX_NONE;
	}
	return port_tx_pick(&r->tx, &r->p->egress, PORT_TC_COUNT, ready);
}

void roce_rate_limit(struct roce *r, uint64_t bps, emu_ps_t now)
{
	port_shape_set(&r->shape, bps, r->p->rate_limit_burst, now);
	roce_port_kick(r, now);
}

static void ev_port(void *a, void *b, emu_ps_t now)
{
	struct roce *r = a;

	(void)b;
	r->port_timer_armed = false;
	roce_port_kick(r, now);
}

/* Frame @p pkt of class @p tc (PORT_TC_COUNT: from the queue ahead) goes on the wire. */
static void port_send(struct roce *r, struct wire_pkt *pkt, uint32_t tc, emu_ps_t now)
{
	uint32_t len = (uint32_t)wire_wire_len(pkt);
	emu_ps_t end;

	port_tx_start(&r->tx, pkt, tc, len); /* a CNP from the queue ahead leaves in its DSCP's class */
	if (tc < PORT_TC_COUNT)
		port_shape_charge(&r->shape, len, now);
	r->sending_data = pkt->kind == WIRE_KIND_ROCE && wire_roce_is_data(pkt->roce.opcode);
	r->c[ROCE_C_TX_BYTES] += len;
	r->c[ROCE_C_PORT_TX_FRAMES]++;
	if (r->sending_data) {
		struct roce_qp *qp = roce_qp_find(r, 0, pkt->roce.dqpn, true);

		r->sending_qp = qp != NULL ? qp->idx : UINT32_MAX;
		r->sending_psn = pkt->roce.psn;
		r->port_free_at = now + (qp != NULL ? roce_cc_ser(r, qp, len) : 0);
		if (qp != NULL)
			qp->cc.pkt_ivl++;
	}
	end = net_dir_xmit(r->out, pkt, now);
	if (r->port_free_at < end)
		r->port_free_at = end;
}

void roce_port_kick(struct roce *r, emu_ps_t now)
{
	if (r->tx.busy || r->out == NULL)
		return;
	if (now < r->port_free_at) { /* a paced data frame still holds the port (congestion-control page) */
		if (!r->port_timer_armed && net_sched(r->env.np, r->port_free_at, ev_port, r, NULL, &r->port_timer) == 0)
			r->port_timer_armed = true;
		return;
	}
	int tc = port_pick(r, now);

	if (tc == PORT_TX_NONE)
		return;
	if (tc == PORT_TX_FIRST) {
		port_send(r, port_tx_pop_first(&r->tx), PORT_TC_COUNT, now);
		return;
	}
	struct roce_txq *q = &r->txq[tc];

	port_send(r, q->ring[q->head++ & q->mask], (uint32_t)tc, now);
}

static void roce_tx_done(void *dev, uint32_t port, emu_ps_t now)
{
	struct roce *r = dev;
	uint32_t tc = port_tx_done(&r->tx);

	(void)port;
	if (tc < PORT_TC_COUNT)
		roce_tx_release(r, tc, r->tx.sending_len, now);
	if (r->sending_data && r->sending_qp != UINT32_MAX)
		roce_tx_sent(r, &r->qps[r->sending_qp], r->sending_psn, now);
	roce_port_kick(r, now);
}

/* ---- PFC (buffers page, PFC): the state machine is the UET NIC's (port_pfcs.c); the frames are this port's ---- */

static bool pfc_send(void *dev, uint32_t tc, uint16_t quanta, emu_ps_t now)
{
	struct roce *r = dev;
	struct wire_pkt *p;

	if (port_tx_first_full(&r->tx))
		return false;
	p = port_pfc_frame(r->env.np, r->env.mac, tc, quanta);
	if (p == NULL) {
		r->c[ROCE_C_DROP_NO_PKT]++;
		return false;
	}
	roce_pfcq_push(r, p, now);
	return true;
}

static void pfc_kick(void *dev, emu_ps_t now)
{
	roce_port_kick(dev, now);
}

static void pfc_init(struct roce *r)
{
	static const struct port_pfcs_ops ops = { .send = pfc_send, .kick = pfc_kick };

	r->pfcs = (struct port_pfcs){ .np = r->env.np, .ingress = &r->p->ingress, .pool = r->in_pool,
				     .used = r->in_used, .ops = &ops, .dev = r, .bps = r->line_bps,
				     .delay = r->p->delay_ps };
}

void roce_in_release(struct roce *r, uint32_t tc, uint64_t bytes, emu_ps_t now)
{
	r->in_used[tc] -= bytes;
	port_pool_deq(&r->rxs[tc], bytes);
	port_pfcs_check_xon(&r->pfcs, tc, now);
}

/* ---- receive ---- */

/* A CNP to the sender of @p pkt, addressed as its receive end is (hashed), or as the neighbour list says (a linear
 * scan) when the packet is its queue pair's first. */
static void send_cnp(struct roce *r, const struct wire_pkt *pkt, emu_ps_t now)
{
	const struct roce_qp *qp = roce_qp_find(r, pkt->src_ip, pkt->roce.dqpn, false);
	struct roce_qp stand = { .qpn = pkt->roce.dqpn, .peer_ip = pkt->src_ip };
	struct wire_pkt *c;

	if (qp == NULL) {
		const uint8_t *mac = neigh_mac(r, pkt->src_ip);

		if (mac == NULL)
			return;
		memcpy(stand.peer_mac, mac, 6);
		qp = &stand;
	}
	c = roce_pkt_new(r, qp, WIRE_ROCE_CNP, r->ctrl_tc);
	if (c == NULL)
		return;
	r->c[ROCE_C_CNP_SENT]++;
	roce_pfcq_push(r, c, now);
}

static void rx_ctl(struct roce *r, struct wire_pkt *pkt, emu_ps_t now)
{
	struct roce_qp *qp = roce_qp_find(r, pkt->src_ip, pkt->roce.dqpn, true);

	if (pkt->roce.opcode == WIRE_ROCE_CNP)
		r->c[ROCE_C_CNP_RECVD]++;
	else if ((pkt->roce.syndrome & WIRE_AETH_NAK_MASK) == WIRE_AETH_NAK)
		r->c[ROCE_C_NACKS_RECVD]++;
	else
		r->c[ROCE_C_ACKS_RECVD]++;
	if (qp == NULL || qp->peer_ip != pkt->src_ip) {
		r->c[ROCE_C_RX_DROPS_NO_QP_CTRL]++;
		return;
	}
	if (pkt->roce.opcode == WIRE_ROCE_CNP) {
		if (r->p->enable_ecn) /* EnableECN false: CNPs are ignored */
			roce_cc_cnp(r, qp, now);
		return;
	}
	roce_rx_ack(r, qp, pkt, now);
}

static void rx_cm(struct roce *r, struct wire_pkt *pkt, emu_ps_t now)
{
	r->c[ROCE_C_CONN_PKTS_RECVD]++;
	if (r->env.hooks.cm_recv != NULL)
		r->env.hooks.cm_recv(r->env.hooks.arg, r->env.fep_id, pkt->src_ip, &pkt->cm, now);
	net_pkt_free(r->env.np, pkt);
}

/* Charge a frame to its class's receive pool (buffers page, Receive buffer); false when dropped. */
static bool in_admit(struct roce *r, uint32_t tc, uint32_t charge, emu_ps_t now)
{
	port_pfcs_check_xoff(&r->pfcs, tc, r->in_used[tc] + charge, now);
	if (r->in_used[tc] + charge > r->in_pool[tc]) {
		r->c[ROCE_C_RX_DROPS]++;
		r->rxs[tc].overflow++;
		return false;
	}
	r->in_used[tc] += charge;
	port_pool_enq(&r->rxs[tc], charge, r->in_used[tc]);
	return true;
}

static void roce_receive(void *dev, uint32_t port, struct wire_pkt *pkt, emu_ps_t now)
{
	struct roce *r = dev;
	uint32_t tc, charge;

	(void)port;
	r->c[ROCE_C_PORT_RX_FRAMES]++;
	r->c[ROCE_C_RX_BYTES] += wire_wire_len(pkt);
	if (pkt->kind == WIRE_KIND_PFC) {
		port_pfcs_rx(&r->pfcs, pkt, now);
		goto free;
	}
	if (pkt->kind == WIRE_KIND_CM && pkt->dst_ip == r->env.ip) {
		rx_cm(r, pkt, now);
		return;
	}
	if (pkt->kind != WIRE_KIND_ROCE) {
		r->c[ROCE_C_DROP_BAD_KIND]++;
		goto free;
	}
	if (pkt->dst_ip != r->env.ip) {
		r->c[ROCE_C_DROP_NOT_FOR_US]++;
		goto free;
	}
	tc = (uint32_t)(pkt->dscp & 0x3f) / 8;
	charge = (uint32_t)wire_ip_len(pkt); /* without the Ethernet header and FCS */
	if (!in_admit(r, tc, charge, now))
		goto free;
	if (pkt->ecn == WIRE_ECN_CE) {
		r->c[ROCE_C_CE_RCVD]++;
		send_cnp(r, pkt, now); /* whatever this NIC's EnableECN */
	}
	if (wire_roce_is_data(pkt->roce.opcode)) {
		roce_rx_data(r, pkt, charge, tc, now);
		return;
	}
	rx_ctl(r, pkt, now);
	roce_in_release(r, tc, charge, now); /* processed at once */
free:
	net_pkt_free(r->env.np, pkt);
}

const struct net_dev_ops roce_dev_ops = {
	.receive = roce_receive,
	.tx_done = roce_tx_done,
};

int roce_cm_send(struct roce *r, uint32_t dst_ip, const struct wire_cm *cm, emu_ps_t now)
{
	const uint8_t *mac = neigh_mac(r, dst_ip);
	struct roce_qp stand = { .peer_ip = dst_ip };
	struct wire_pkt *p;

	if (mac == NULL)
		return -EHOSTUNREACH;
	memcpy(stand.peer_mac, mac, 6);
	p = roce_pkt_new(r, &stand, 0, r->ctrl_tc);
	if (p == NULL)
		return -ENOBUFS;
	p->kind = WIRE_KIND_CM;
	p->encap = 0;
	p->dport = WIRE_UDP_PORT_CM;
	p->sport = (uint16_t)(0xc000 | (cm->local_id & 0x3fff));
	p->cm = *cm;
	roce_ctl_send(r, p, r->ctrl_tc, now);
	return 0;
}
