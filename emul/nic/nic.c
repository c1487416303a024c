/* The Scala UET NIC device: creation, the network port with its egress classes, and receive dispatch. */
#include "nic_pvt.h"
#include "emu_counter.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

EMU_COUNTER_NAMES(nic_counter, NIC_COUNTERS, NIC_C_COUNT)

static const char *const nic_ev_names[NIC_EV_COUNT] = {
	"PDC_CREATED", "WQE_CREATED", "SEND_COMPLETE", "WQE_COMPLETE", "RECV_COMPLETE", "PDC_TERMINATED",
};

const char *nic_ev_name(int ev)
{
	return ev >= 0 && ev < NIC_EV_COUNT ? nic_ev_names[ev] : "UNKNOWN";
}

uint64_t nic_max_cwnd(const struct nic_params *p, uint64_t link_bps)
{
	if (p->override_max_cwnd)
		return (uint64_t)p->max_cwnd_pkts * nic_nominal(p->rdma_data_mss);
	/* BDP = link rate x InitialBaseRTT / 8; the maximum window is 1.5 x BDP (450,000 B at the defaults) */
	unsigned __int128 bdp = (unsigned __int128)link_bps * p->initial_base_rtt / (8 * EMU_PS_PER_S);
	return (uint64_t)(bdp * 3 / 2);
}

int nic_params_check_link(const struct nic_params *p, uint64_t link_bps, char *err, size_t errlen)
{
	const uint64_t u32max = 4294967295ULL, gbps = 1000000000ULL;
	uint64_t nominal = nic_nominal(p->rdma_data_mss);
	unsigned __int128 max_wnd = (unsigned __int128)link_bps * p->initial_base_rtt * 3 / (2 * 8 * EMU_PS_PER_S);
	unsigned __int128 ref_bdp = (unsigned __int128)p->reference_link_bps * p->reference_network_rtt /
				    (8 * EMU_PS_PER_S);

	if (link_bps < gbps)
		snprintf(err, errlen, "link rate %llu bit/s is below 1 Gb/s; raise DataRate",
			 (unsigned long long)link_bps);
	else if (p->override_target_qdelay ? p->target_qdelay == 0 : p->initial_base_rtt == 0)
		snprintf(err, errlen, "the target queue delay resolves to 0; set %s above 0",
			 p->override_target_qdelay ? "TargetQueueDelay" : "InitialBaseRTT");
	else if (!p->override_max_cwnd && max_wnd < nominal)
		snprintf(err, errlen, "1.5 x link rate x InitialBaseRTT is %llu B, below one nominal packet (%llu B); "
			 "raise InitialBaseRTT", (unsigned long long)max_wnd, (unsigned long long)nominal);
	else if (max_wnd > u32max)
		snprintf(err, errlen, "1.5 x link rate x InitialBaseRTT exceeds 4,294,967,295 B; lower InitialBaseRTT");
	else if (p->reference_network_rtt == 0)
		snprintf(err, errlen, "ReferenceNetworkRTT is 0; set it above 0, e.g. 6us");
	else if (p->reference_link_bps < gbps)
		snprintf(err, errlen, "ReferenceNetworkLinkSpeed is below 1 Gb/s; e.g. 400Gbps");
	else if (ref_bdp > u32max)
		snprintf(err, errlen, "ReferenceNetworkLinkSpeed x ReferenceNetworkRTT exceeds 4,294,967,295 B; lower "
			 "ReferenceNetworkRTT");
	else
		return 0;
	return -EINVAL;
}

static uint64_t ppm_of(uint64_t total, uint32_t ppm);

uint64_t nic_pool_size(const struct nic *nic, bool tx, uint32_t tc)
{
	if (tc >= PORT_TC_COUNT)
		return 0;
	if (!tx)
		return nic->in_pool_size[tc];
	if (tc < 2)
		return nic->txq[tc].pool_size;
	return ppm_of(nic->p->egress.total_buffer_size, nic->p->egress.pool_alloc_ppm[tc]);
}

void nic_pool_stats(const struct nic *nic, bool tx, uint32_t tc, struct port_pool_stats *out)
{
	memset(out, 0, sizeof(*out));
	if (tc >= (tx ? 2u : PORT_TC_COUNT)) {
		out->size = nic_pool_size(nic, tx, tc);
		return;
	}
	*out = tx ? nic->txs[tc] : nic->rxs[tc];
	out->size = nic_pool_size(nic, tx, tc);
	out->occupancy = tx ? nic->txq[tc].reserved : nic->in_pool_used[tc];
}

void nic_pool_interval_reset(struct nic *nic)
{
	for (uint32_t tc = 0; tc < PORT_TC_COUNT; tc++)
		nic->rxs[tc].ivl_max_occupancy = nic->in_pool_used[tc];
	for (uint32_t tc = 0; tc < 2; tc++)
		nic->txs[tc].ivl_max_occupancy = nic->txq[tc].reserved;
}

void nic_pcie_stats(const struct nic *nic, struct port_pcie_stats *out, emu_ps_t now)
{
	port_pcie_link_stats(&nic->pcie, out, now);
}

static uint64_t ppm_of(uint64_t total, uint32_t ppm)
{
	return (uint64_t)(((unsigned __int128)total * ppm) / 1000000u);
}

static void samples_clear(struct nic_sample *s)
{
	for (int k = 0; k < NIC_S_COUNT; k++)
		s[k] = (struct nic_sample){ .min = UINT64_MAX };
}

/* The most packets a class may queue: what its pool can hold (smallest frame 62 B), as a power of two. */
static void txq_init(struct nic_txq *q, uint64_t pool_size)
{
	uint64_t want = pool_size / 62 + 2;
	uint32_t n = 16;

	while (n < want && n < (1u << 24))
		n <<= 1;
	q->max = n;
	q->pool_size = pool_size;
}

struct nic *nic_create(const struct nic_env *env)
{
	const struct nic_params *p = env->params;
	struct nic *nic = calloc(1, sizeof(*nic));

	if (nic == NULL)
		goto fail;
	nic->env = *env;
	nic->p = p;
	emu_rng_init(&nic->rng, env->seed, env->fep_id);
	port_pcie_init(&nic->pcie, p->pcie_nic.lane_bps * p->pcie_nic.lane_count,
		      p->pcie_host.lane_bps * p->pcie_host.lane_count);
	nic->link_bps = p->data_rate_bps;
	port_shape_set(&nic->shape, p->rate_limit_bps, p->rate_limit_burst, 0);
	for (int tc = 0; tc < PORT_TC_COUNT; tc++)
		nic->in_pool_size[tc] = ppm_of(p->ingress.total_buffer_size, p->ingress.pool_alloc_ppm[tc]);
	nic_pfc_init(nic);
	for (int tc = 0; tc < 2; tc++)
		txq_init(&nic->txq[tc], ppm_of(p->egress.total_buffer_size, p->egress.pool_alloc_ppm[tc]));
	uint32_t max_pdcs = env->max_pdcs ? env->max_pdcs : 4096;
	nic->rcv_per_peer_max = env->rcv_per_peer_max ? env->rcv_per_peer_max : (max_pdcs / 4 ? max_pdcs / 4 : 1);
	nic->rcv_idle = 4 * (p->initial_rto << (p->max_rto_backoff < 16 ? p->max_rto_backoff : 15));
	nic->next_snd_id = NIC_SND_ID_MIN;
	nic->next_rcv_id = NIC_RCV_ID_MIN;
	nic->next_wqe_id = 1;
	nic->next_uid = (uint64_t)env->fep_id << 40; /* unique across NICs, stable across runs */
	samples_clear(nic->s_cum);
	samples_clear(nic->s_ivl);
	if (env->shell) /* another rank's: its counters only (nic_env.shell) */
		return nic;
	nic->pdc_pool = emu_pool_create(sizeof(struct nic_pdc), max_pdcs);
	/* Outstanding packets NIC-wide: 64 full windows' worth at the defaults; an empty pool holds back sending. */
	nic->rec_pool = emu_pool_create(sizeof(struct nic_rec), 1u << 16);
	/* WQEs waiting on connections: as many as the workload says it keeps outstanding on this NIC */
	nic->wqe_pool = emu_pool_create(sizeof(struct nic_wqe), env->max_wqes ? env->max_wqes : 1u << 14);
	/* out-of-order PSNs: 16,384 chunks of 256 track 4 Mi PSNs past their PDCs' rcv_next, NIC-wide */
	nic->chunk_pool = emu_pool_create(sizeof(struct nic_rcv_chunk), NIC_RCV_CHUNKS);
	/* a group carries its load balancer's cache behind it when REPSBufferSizeMaskBits asks for a large one */
	nic->grp_pool = emu_pool_create(sizeof(struct nic_group) + nic_lb_storage_bytes(p), max_pdcs);
	uint32_t buckets = NIC_HASH_BUCKETS_MIN; /* doubled as PDCs open (nic_pdc.c, hash_grow()) */
	nic->hash_mask = buckets - 1;
	nic->snd_hash = calloc(buckets, sizeof(*nic->snd_hash));
	nic->rcv_hash = calloc(buckets, sizeof(*nic->rcv_hash));
	nic->grp_hash = calloc(buckets, sizeof(*nic->grp_hash));
	nic->closed = calloc(NIC_CLOSED_SLOTS, sizeof(*nic->closed));
	if (nic->pdc_pool == NULL || nic->grp_pool == NULL || nic->rec_pool == NULL || nic->wqe_pool == NULL ||
	    nic->chunk_pool == NULL || nic->snd_hash == NULL || nic->rcv_hash == NULL || nic->grp_hash == NULL ||
	    nic->closed == NULL)
		goto fail_nic;
	return nic;

fail_nic:
	nic_destroy(nic);
fail:
	errno = ENOMEM;
	return NULL;
}

void nic_destroy(struct nic *nic)
{
	if (nic == NULL)
		return;
	for (int tc = 0; tc < 2; tc++) {
		for (struct wire_pkt *p = nic->txq[tc].head, *next; p != NULL; p = next) {
			next = p->next;
			net_pkt_free(nic->env.np, p);
		}
	}
	while (nic->cm_head != NULL) {
		struct wire_pkt *p = nic->cm_head;
		nic->cm_head = p->ctx;
		net_pkt_free(nic->env.np, p);
	}
	emu_pool_destroy(nic->pdc_pool);
	emu_pool_destroy(nic->rec_pool);
	emu_pool_destroy(nic->wqe_pool);
	emu_pool_destroy(nic->chunk_pool);
	emu_pool_destroy(nic->grp_pool);
	free(nic->snd_hash);
	free(nic->rcv_hash);
	free(nic->grp_hash);
	free(nic->closed);
	free(nic);
}

void nic_attach(struct nic *nic, struct net_dir *out)
{
	nic->out = out;
	if (out->link->bps < nic->link_bps)
		nic->link_bps = out->link->bps;
	nic->pfcs.bps = nic->link_bps; /* pause times at the link's rate, plus its delay */
	nic->pfcs.delay = out->link->delay;
	nic_cc_consts_init(&nic->cc_k, nic->p, nic->link_bps, nic->in_pool_size[NIC_TC_DATA]);
}

uint64_t nic_link_bps(const struct nic *nic)
{
	return nic->link_bps;
}

uint32_t nic_fep_id(const struct nic *nic)
{
	return nic->env.fep_id;
}

const char *nic_name(const struct nic *nic)
{
	return nic->env.name;
}

const struct nic_uet_rx *nic_uet_rx(const struct nic *nic)
{
	return &nic->uet_rx;
}

const uint64_t *nic_counters(const struct nic *nic)
{
	return nic->c;
}

void nic_counters_load(struct nic *nic, const uint64_t *c, const struct nic_uet_rx *u)
{
	memcpy(nic->c, c, sizeof(nic->c));
	nic->uet_rx = *u;
}

void nic_samples(const struct nic *nic, struct nic_sample *cum, struct nic_sample *ivl)
{
	memcpy(cum, nic->s_cum, sizeof(nic->s_cum));
	memcpy(ivl, nic->s_ivl, sizeof(nic->s_ivl));
}

void nic_gauges(const struct nic *nic, struct nic_gauges *g)
{
	*g = nic->g;
}

void nic_interval_reset(struct nic *nic)
{
	samples_clear(nic->s_ivl);
	nic->g.ivl_max_ooo_on_flow = 0;
	nic->g.ivl_max_tx_count = 0;
}

void nic_event(struct nic *nic, struct nic_pdc *pdc, int type, emu_ps_t now)
{
	if (!nic->p->enable_event_logging || nic->env.hooks.event == NULL)
		return;
	struct nic_event ev = {
		.now = now,
		.fep_id = nic->env.fep_id,
		.local_ip = nic->env.ip,
		.local_pdc = pdc->id,
		.remote_ip = pdc->peer_ip,
		.remote_pdc = pdc->remote_id,
		.type = (uint8_t)type,
	};
	if (pdc->sender && (type == NIC_EV_WQE_CREATED || type == NIC_EV_SEND_COMPLETE || type == NIC_EV_WQE_COMPLETE)) {
		ev.has_wqe = 1;
		ev.wqe_id = pdc->wqe_id;
		ev.wqe_size = pdc->bytes;
	}
	nic->env.hooks.event(nic->env.hooks.arg, &ev);
}

/* The destination MAC of frames to neighbour @p ip: the gateway's when the NIC has one, else the neighbour's; NULL
 * when @p ip is not a neighbour. Linear: called when a group is created, never per packet. */
const uint8_t *nic_neigh_mac(const struct nic *nic, uint32_t ip)
{
	return port_neigh_mac(nic->env.neigh, nic->env.n_neigh, nic->env.has_gw, nic->env.gw_mac, ip);
}

/* A descriptor to @p pdc's peer with this NIC's Ethernet, IPv4 and UDP fields filled in. */
struct wire_pkt *nic_pkt_new(struct nic *nic, uint8_t kind, const struct nic_pdc *pdc)
{
	struct wire_pkt *p = net_pkt_alloc_kind(nic->env.np, kind);

	if (p == NULL) {
		nic->c[NIC_C_DROP_NO_PKT]++;
		return NULL;
	}
	p->uid = nic->next_uid++;
	memcpy(p->src_mac, nic->env.mac, 6);
	if (pdc->group != NULL) {
		memcpy(p->dst_mac, pdc->group->peer_mac, 6);
	} else { /* a stand-in for a closed PDC (a late probe): look the peer up */
		const uint8_t *mac = nic_neigh_mac(nic, pdc->peer_ip);
		if (mac != NULL)
			memcpy(p->dst_mac, mac, 6);
	}
	p->src_ip = nic->env.ip;
	p->dst_ip = pdc->peer_ip;
	p->ecn = nic_params_ecn(nic->p);
	p->ttl = nic->p->ttl;
	p->dport = nic->p->udp_port;
	p->encap = kind == WIRE_KIND_CM ? 0 : nic_params_encap(nic->p); /* CM is uetemu's own UDP message */
	p->dscp = nic->p->dscp.dscp[WIRE_ROLE_CONTROL];
	return p;
}

static void nic_count_sent(struct nic *nic, const struct wire_pkt *pkt)
{
	switch (pkt->kind) {
	case WIRE_KIND_DATA:
		nic->c[NIC_C_WRITE_PKTS_SENT]++;
		break;
	case WIRE_KIND_ACK:
		nic->c[NIC_C_ACK_PKTS_SENT]++;
		break;
	case WIRE_KIND_NACK:
		nic->c[NIC_C_NACK_PKTS_SENT]++;
		break;
	case WIRE_KIND_CP:
		nic->c[NIC_C_PROBE_SENT]++;
		break;
	case WIRE_KIND_UET: /* the UET 1.0 forms other than uetemu's own (nic_pds.c): plain ACKs, RUDI responses */
		if (pkt->pds.type == WIRE_PDS_ACK || pkt->pds.type == WIRE_PDS_RUDI_RESP)
			nic->c[NIC_C_ACK_PKTS_SENT]++;
		break;
	default:
		break;
	}
}

/* Queue a built packet in egress class @p tc. Data was reserved when its fetch was issued; control packets
 * reserve here. Returns 0, or -ENOBUFS when a control packet does not fit (the caller counts and frees). */
int nic_txq_push(struct nic *nic, uint32_t tc, struct wire_pkt *pkt, emu_ps_t now)
{
	struct nic_txq *q = &nic->txq[tc];

	if (tc == NIC_TC_CTRL) {
		uint64_t len = wire_wire_len(pkt);
		if (q->reserved + len > q->pool_size || q->n >= q->max) {
			nic->txs[tc].overflow++;
			return -ENOBUFS;
		}
		q->reserved += len;
		port_pool_enq(&nic->txs[tc], len, q->reserved);
	}
	nic_count_sent(nic, pkt); /* counted when handed down to be sent, before the egress queue */
	pkt->next = NULL;
	if (q->tail != NULL)
		q->tail->next = pkt;
	else
		q->head = pkt;
	q->tail = pkt;
	q->n++;
	nic_port_kick(nic, now);
	return 0;
}

/* Send the next frame if the port is idle: the class nic_port_pick() chooses, or a PFC frame first. */
void nic_port_kick(struct nic *nic, emu_ps_t now)
{
	if (nic->tx.busy || nic->out == NULL)
		return;
	int tc = nic_port_pick(nic, now);

	if (tc != PORT_TX_NONE) {
		struct wire_pkt *pkt;
		if (tc == PORT_TX_FIRST) {
			pkt = port_tx_pop_first(&nic->tx);
			tc = PORT_TC_COUNT; /* not charged to any pool */
		} else {
			struct nic_txq *q = &nic->txq[tc];
			pkt = q->head;
			q->head = pkt->next;
			if (q->head == NULL)
				q->tail = NULL;
			q->n--;
		}
		uint32_t len = (uint32_t)wire_wire_len(pkt);

		port_tx_start(&nic->tx, pkt, (uint32_t)tc, len); /* a PFC frame's DSCP is 0: class 0, untagged */
		if (tc < PORT_TC_COUNT)
			port_shape_charge(&nic->shape, len, now);
		nic->sending_kind = pkt->kind;
		nic->sending_uid = pkt->uid;
		nic->sending_rec = pkt->kind == WIRE_KIND_DATA ? pkt->ctx : NULL;
		nic->c[NIC_C_TX_BYTES] += len;
		nic->c[NIC_C_PORT_TX_FRAMES]++;
		nic->c[NIC_C_PORT_TX_FRAME_BYTES] += len - WIRE_FCS_LEN;
		nic_trace_tx_start(nic, pkt);
		net_dir_xmit_len(nic->out, pkt, len, nic->sending_kind, now);
	}
}

static void ev_pump(void *a, void *b, emu_ps_t now)
{
	struct nic *nic = a;

	(void)b;
	nic->pump_armed = false;
	nic_tx_pass(nic, now);
}

void nic_pump_arm(struct nic *nic, emu_ps_t when)
{
	if (nic->pump_armed)
		return;
	if (net_sched(nic->env.np, when, ev_pump, nic, NULL, NULL) == 0)
		nic->pump_armed = true;
}

/* Serialization ended: release the frame's egress reservation and send the next one. */
static void nic_tx_done(void *dev, uint32_t port, emu_ps_t now)
{
	struct nic *nic = dev;
	uint32_t tc = port_tx_done(&nic->tx), len = nic->tx.sending_len;

	(void)port;
	if (tc < 2) {
		nic->txq[tc].reserved -= len;
		port_pool_deq(&nic->txs[tc], len);
	}
	if (nic->sending_kind == WIRE_KIND_DATA)
		nic_data_serialized(nic, nic->sending_rec, nic->sending_uid, now);
	nic_trace_tx_done(nic, now);
	/* A pass blocked on a full pool retries at the latest when the pool drains to half its size. */
	if (tc == NIC_TC_DATA && nic->pump_blocked &&
	    nic->txq[NIC_TC_DATA].reserved <= nic->txq[NIC_TC_DATA].pool_size / 2)
		nic_pump_arm(nic, now);
	if (tc == NIC_TC_CTRL && nic->cm_head != NULL)
		nic_cm_drain(nic, now);
	/* A pass stopped on an empty packet or record pool retries at each frame this port finishes. */
	if (nic->pkt_blocked)
		nic_pump_arm(nic, now);
	nic_port_kick(nic, now);
}

static int in_tc_of(const struct wire_pkt *pkt)
{
	if (pkt->kind == WIRE_KIND_UET) /* requests of the other UET forms are data too (nic_pds.c) */
		return nic_pds_is_req(pkt->pds.type) ? NIC_TC_DATA : NIC_TC_CTRL;
	return pkt->kind == WIRE_KIND_DATA ? NIC_TC_DATA : NIC_TC_CTRL;
}

/* A UET frame on the port: counted by PDS and SES class (an extension header besides its header). */
static void count_uet_rx(struct nic *nic, const struct wire_pkt *pkt)
{
	int pc = wire_pds_class(pkt), sc = wire_ses_class(pkt);

	if (pc >= 0)
		nic->uet_rx.pds[pc]++;
	if (sc >= 0)
		nic->uet_rx.ses[sc]++;
	switch (sc >= 0 && pkt->kind != WIRE_KIND_TRIMMED && pkt->trim_len == 0 ?
			wire_ses_ext(pkt->pds.next_hdr, &pkt->ses) : WIRE_EXT_NONE) {
	case WIRE_EXT_ATOMIC:
		nic->uet_rx.ses[WIRE_SC_EXT_ATOMIC]++;
		break;
	case WIRE_EXT_CAS:
		nic->uet_rx.ses[WIRE_SC_EXT_CAS]++;
		break;
	case WIRE_EXT_RDV:
		nic->uet_rx.ses[WIRE_SC_EXT_RDV]++;
		break;
	default:
		break;
	}
}

/* A well-formed UET frame of a kind the model does not act on: counted by class, never charged to a pool. */
static void rx_not_used(struct nic *nic, const struct wire_pkt *pkt)
{
	int pc = wire_pds_class(pkt);

	nic->c[NIC_C_UET_NOT_USED]++;
	if (pc >= 0)
		nic->uet_rx.not_used[pc]++;
}

/* A request a peer profile sent without CC state (RequestForm RUD_REQ / ROD_REQ) is, to a receiver, what decoding
 * its bytes gives: a UET frame of that PDS type (trimmed: cut after its 12 B header), not uetemu's own data. */
static void rx_plain_req(struct wire_pkt *pkt)
{
	if (!(pkt->encap & WIRE_ENCAP_PLAIN_REQ))
		return;
	if (pkt->kind == WIRE_KIND_TRIMMED)
		pkt->trim_len = WIRE_PDS_REQ_LEN;
	else if (pkt->kind != WIRE_KIND_DATA)
		return;
	pkt->kind = WIRE_KIND_UET;
	pkt->encap = (uint8_t)(pkt->encap & ~WIRE_ENCAP_PLAIN_REQ);
}

static void nic_receive(void *dev, uint32_t port, struct wire_pkt *pkt, emu_ps_t now)
{
	struct nic *nic = dev;
	rx_plain_req(pkt);
	int tc = in_tc_of(pkt);
	uint64_t ip_len = wire_ip_len(pkt);

	(void)port;
	nic->c[NIC_C_RX_BYTES] += wire_wire_len(pkt);
	nic->c[NIC_C_PORT_RX_FRAMES]++;
	nic->c[NIC_C_PORT_RX_FRAME_BYTES] += wire_frame_len(pkt);
	if (pkt->kind == WIRE_KIND_PFC) { /* consumed by the port, never charged to a pool */
		nic_pfc_rx(nic, pkt, now);
		goto free;
	}
	if (pkt->kind != WIRE_KIND_CM)
		count_uet_rx(nic, pkt);
	if (pkt->dst_ip != nic->env.ip) {
		nic->c[NIC_C_DROP_NOT_FOR_US]++;
		goto free;
	}
	if (pkt->kind == WIRE_KIND_UET && !nic_pds_takes(pkt)) {
		rx_not_used(nic, pkt);
		goto free;
	}
	if (nic->in_pool_used[tc] + ip_len > nic->in_pool_size[tc]) {
		nic->c[NIC_C_DROP_RX_POOL_FULL]++;
		if (pkt->kind == WIRE_KIND_UET) /* UET 1.0's answer to the other forms: NACK NO_PKT_BUFFER */
			nic_pds_no_buffer(nic, pkt, now);
		nic->rxs[tc].overflow++;
		nic_pfc_check_xoff(nic, (uint32_t)tc, nic->in_pool_used[tc] + ip_len, now);
		goto free;
	}
	port_pool_enq(&nic->rxs[tc], ip_len, nic->in_pool_used[tc] + ip_len);
	nic_pfc_check_xoff(nic, (uint32_t)tc, nic->in_pool_used[tc] + ip_len, now);
	nic->rx_held = false;
	switch (pkt->kind) {
	case WIRE_KIND_DATA:
	case WIRE_KIND_TRIMMED:
		nic_rx_data(nic, pkt, now);
		break;
	case WIRE_KIND_ACK:
		nic_rx_ack(nic, pkt, now);
		break;
	case WIRE_KIND_CP:
		nic_rx_cp(nic, pkt, now);
		break;
	case WIRE_KIND_NACK:
		nic_rx_nack(nic, pkt, now);
		break;
	case WIRE_KIND_CM:
		nic_rx_cm(nic, pkt, now);
		break;
	case WIRE_KIND_UET:
		nic_rx_uet(nic, pkt, now);
		break;
	default:
		nic->c[NIC_C_DROP_BAD_KIND]++;
		break;
	}
	if (!nic->rx_held) /* processed: released at once (data accepted at once by PCIe, control, trims) */
		port_pool_deq(&nic->rxs[tc], ip_len);
free:
	net_pkt_free(nic->env.np, pkt);
	/* ... and at each packet this NIC receives, which returns one descriptor to the shared pool. */
	if (nic->pkt_blocked)
		nic_pump_arm(nic, now);
}

const struct net_dev_ops nic_dev_ops = {
	.receive = nic_receive,
	.tx_done = nic_tx_done,
};
