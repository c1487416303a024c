/* Frames in and out of a real port for the emulated hosts on it: demultiplexing by MAC and IPv4 address, the
 * answers to ARP and ICMP echo requests, next hops, and UET frames to and from the hosts' NICs. */
#include "net_pvt.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "emu_counter.h"

static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
static const uint8_t pfc_group[6] = { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x01 };

/* ---- names ---- */

EMU_COUNTER_NAMES(net_port_counter, NET_PORT_COUNTERS, NET_PORT_C_COUNT)
EMU_COUNTER_NAMES(net_port_rx_reason, NET_PORT_RX_REASONS, NET_PORT_RX_COUNT)

#define NAME(n, k, s) k,
static const char *const state_names[] = { NET_NEIGH_STATES(NAME) };
static const char *const learnt_names[] = { NET_NEIGH_LEARNT(NAME) };
#undef NAME

static const char *pick(const char *const *t, int n, int i)
{
	return i < 0 || i >= n ? "unknown" : t[i];
}

const char *net_neigh_state_name(int s)
{
	return pick(state_names, NET_NEIGH_STATE_COUNT, s);
}

const char *net_neigh_learnt_name(int l)
{
	return pick(learnt_names, NET_LEARNT_COUNT, l);
}

/* ---- the hosts by MAC and by IPv4 address ---- */

/* A MAC address as a 48-bit number. */
static uint64_t mac_key(const uint8_t *mac)
{
	return (uint64_t)mac[0] << 40 | (uint64_t)mac[1] << 32 | (uint64_t)mac[2] << 24 | (uint64_t)mac[3] << 16 |
	       (uint64_t)mac[4] << 8 | mac[5];
}

/* Fibonacci hashing: the top host_bits bits of the key times 2^64 / phi. */
static uint32_t host_hash(const struct net_port *p, uint64_t key)
{
	return (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> (64 - p->host_bits));
}

static uint32_t slot_by_mac(const struct net_port *p, const uint8_t *mac)
{
	const uint32_t mask = (1u << p->host_bits) - 1;
	const uint64_t key = mac_key(mac);

	for (uint32_t i = host_hash(p, key);; i = (i + 1) & mask) {
		uint32_t s = p->by_mac[i];
		if (s == NET_NIL || mac_key(p->hosts[s].mac) == key)
			return s;
	}
}

static uint32_t slot_by_ip(const struct net_port *p, uint32_t ip)
{
	const uint32_t mask = (1u << p->host_bits) - 1;

	for (uint32_t i = host_hash(p, ip);; i = (i + 1) & mask) {
		uint32_t s = p->by_ip[i];
		if (s == NET_NIL || p->hosts[s].ip == ip)
			return s;
	}
}

/* Enter every host in both tables, in slot order, each key once (the first host that has it). 0 or -ENOMEM. */
static int hosts_index(struct net_port *p)
{
	p->host_bits = 2;
	while ((1u << p->host_bits) < 2 * p->cfg.n_hosts)
		p->host_bits++;

	const uint32_t n = 1u << p->host_bits, mask = n - 1;

	p->by_mac = malloc(n * sizeof(*p->by_mac));
	p->by_ip = malloc(n * sizeof(*p->by_ip));
	if (p->by_mac == NULL || p->by_ip == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++)
		p->by_mac[i] = p->by_ip[i] = NET_NIL;
	for (uint32_t s = 0; s < p->cfg.n_hosts; s++) {
		uint32_t i;

		if (slot_by_mac(p, p->hosts[s].mac) == NET_NIL) {
			for (i = host_hash(p, mac_key(p->hosts[s].mac)); p->by_mac[i] != NET_NIL; i = (i + 1) & mask)
				;
			p->by_mac[i] = s;
		}
		if (slot_by_ip(p, p->hosts[s].ip) == NET_NIL) {
			for (i = host_hash(p, p->hosts[s].ip); p->by_ip[i] != NET_NIL; i = (i + 1) & mask)
				;
			p->by_ip[i] = s;
		}
	}
	return 0;
}

/* ---- create, destroy, counters ---- */

static void set_defaults(struct net_port_cfg *c)
{
	c->neigh_max = c->neigh_max ? c->neigh_max : NET_PORT_NEIGH_MAX;
	c->hold_max = c->hold_max ? c->hold_max : NET_PORT_HOLD_MAX;
	c->hold_per_neigh = c->hold_per_neigh ? c->hold_per_neigh : NET_PORT_HOLD_PER_NEIGH;
	c->arp_retry = c->arp_retry ? c->arp_retry : NET_PORT_ARP_RETRY_PS;
	c->arp_tries = c->arp_tries ? c->arp_tries : NET_PORT_ARP_TRIES;
	c->reachable = c->reachable ? c->reachable : NET_PORT_REACHABLE_PS;
	c->expire = c->expire ? c->expire : NET_PORT_EXPIRE_PS;
	c->arp_burst = c->arp_burst ? c->arp_burst : NET_PORT_ARP_BURST;
	c->arp_interval = c->arp_interval ? c->arp_interval : NET_PORT_ARP_INTERVAL_PS;
}

struct net_port *net_port_create(const struct net_port_cfg *cfg)
{
	struct net_port *p;

	if (cfg->np == NULL || cfg->hosts == NULL || cfg->n_hosts == 0 || cfg->n_hosts > NET_PORT_HOSTS_MAX ||
	    cfg->emit == NULL ||
	    (cfg->n_statics > 0 && cfg->statics == NULL) || cfg->n_statics > UINT32_MAX / 4 ||
	    cfg->vlan > WIRE_VLAN_VID_MAX) {
		errno = EINVAL;
		return NULL;
	}
	p = calloc(1, sizeof(*p));
	if (p == NULL)
		return NULL;
	p->cfg = *cfg;
	set_defaults(&p->cfg);
	p->hosts = calloc(cfg->n_hosts, sizeof(*p->hosts));
	p->statics = calloc(cfg->n_statics ? cfg->n_statics : 1, sizeof(*p->statics));
	if (p->hosts == NULL || p->statics == NULL || p->cfg.neigh_max > UINT32_MAX / 4 ||
	    p->cfg.hold_max >= NET_NIL)
		goto fail;
	memcpy(p->hosts, cfg->hosts, cfg->n_hosts * sizeof(*p->hosts));
	if (hosts_index(p) < 0)
		goto fail;
	if (cfg->n_statics > 0)
		memcpy(p->statics, cfg->statics, cfg->n_statics * sizeof(*p->statics));
	p->cfg.hosts = p->hosts;
	p->cfg.statics = p->statics;
	if (net_neigh_init(p) < 0)
		goto fail;
	p->arp_tokens = p->cfg.arp_burst;
	return p;
fail:
	net_port_destroy(p);
	errno = ENOMEM;
	return NULL;
}

void net_port_destroy(struct net_port *p)
{
	if (p == NULL)
		return;
	net_neigh_fini(p);
	free(p->by_mac);
	free(p->by_ip);
	free(p->hosts);
	free(p->statics);
	free(p);
}

const uint64_t *net_port_counters(const struct net_port *p)
{
	return p->c;
}

const uint64_t *net_port_rx_drops(const struct net_port *p)
{
	return p->rx_drop;
}

const uint64_t *net_port_rx_refused(const struct net_port *p)
{
	return p->rx_bad;
}

/* ---- helpers ---- */

static uint16_t peek_be16(const uint8_t *b)
{
	return (uint16_t)((unsigned)b[0] << 8 | b[1]);
}

static void drop(struct net_port *p, int reason)
{
	p->rx_drop[reason]++;
}

/* A frame a decoder refused: counted here by reason, and in the partition's drop counters. */
static void refused(struct net_port *p, int reason)
{
	p->rx_bad[reason]++;
	p->cfg.np->counters[NET_C_EXT_RX_BAD_FRAME]++;
}

/*
 * Hand the wire the frame of @p n bytes encoded at @p buf + WIRE_VLAN_LEN, followed by @p payload bytes of the
 * pattern. On a VLAN port it goes tagged with the port's VLAN id and priority @p pcp, unless @p pcp is negative
 * (PFC: 802.1Qbb sends it untagged); the tag is written in front in place, so the headers stay one block.
 */
static void emit_at(struct net_port *p, uint8_t *buf, size_t n, size_t payload, int pcp)
{
	if (p->cfg.vlan != 0 && pcp >= 0)
		p->cfg.emit(p->cfg.emit_arg, buf, wire_vlan_push(buf, n, p->cfg.vlan, (uint8_t)pcp), payload);
	else
		p->cfg.emit(p->cfg.emit_arg, buf + WIRE_VLAN_LEN, n, payload);
}

/* Where ARP and ICMP frames are encoded, and how much room there is: after the room for a tag. */
#define REPLY(p) ((p)->reply + WIRE_VLAN_LEN)
#define REPLY_CAP (sizeof(((struct net_port *)0)->reply) - WIRE_VLAN_LEN)

/* An ARP or ICMP frame of @p n bytes (an encoder's result) encoded at REPLY(p): priority 0 on a VLAN port. */
static void emit(struct net_port *p, int n)
{
	if (n > 0)
		emit_at(p, p->reply, (size_t)n, 0, 0);
}

void net_port_emit_pkt(struct net_port *p, const struct wire_pkt *pkt, const uint8_t mac[6])
{
	/* Only the headers are written: the payload is the pattern, which the emitter adds (or attaches). A frame with
	 * a CRC trailer, which follows the payload and covers it, is written whole. */
	bool hdrs = !wire_has_trailer(pkt);
	uint8_t *buf = hdrs ? p->frame : p->whole;
	size_t cap = (hdrs ? sizeof(p->frame) : sizeof(p->whole)) - WIRE_VLAN_LEN;
	int n = hdrs ? wire_encode_hdrs(pkt, buf + WIRE_VLAN_LEN, cap) : wire_encode(pkt, buf + WIRE_VLAN_LEN, cap);

	if (n < 0) {
		p->c[NET_PORT_C_TX_DROP_ENCODE]++;
		return;
	}
	if (mac != NULL)
		memcpy(buf + WIRE_VLAN_LEN, mac, 6);
	emit_at(p, buf, (size_t)n, hdrs ? wire_frame_len(pkt) - (size_t)n : 0,
		pkt->kind == WIRE_KIND_PFC ? -1 : pkt->tc & 7);
	p->c[NET_PORT_C_TX_SENT]++;
}

/* An ARP message from host @p slot: its MAC and address as the sender's. */
static void arp_from(const struct net_port *p, uint32_t slot, uint16_t op, const uint8_t dst[6],
		     struct wire_arp *a)
{
	memset(a, 0, sizeof(*a));
	a->op = op;
	memcpy(a->eth_dst, dst, 6);
	memcpy(a->eth_src, p->hosts[slot].mac, 6);
	memcpy(a->sha, p->hosts[slot].mac, 6);
	a->spa = p->hosts[slot].ip;
}

void net_port_arp_request(struct net_port *p, uint32_t slot, const uint8_t dst[6], uint32_t tpa)
{
	struct wire_arp a;

	arp_from(p, slot, WIRE_ARP_REQUEST, dst, &a);
	a.tpa = tpa;
	emit(p, wire_arp_encode(&a, REPLY(p), REPLY_CAP));
	p->c[NET_PORT_C_ARP_REQUESTS_SENT]++;
}

void net_port_start(struct net_port *p, emu_ps_t wall)
{
	for (uint32_t s = 0; s < p->cfg.n_hosts; s++) {
		struct wire_arp a;

		/* an ARP announcement (RFC 5227): a request for its own address, to everyone */
		arp_from(p, s, WIRE_ARP_REQUEST, bcast, &a);
		a.tpa = a.spa;
		emit(p, wire_arp_encode(&a, REPLY(p), REPLY_CAP));
		p->c[NET_PORT_C_ARP_ANNOUNCEMENTS_SENT]++;
	}
	for (uint32_t s = 0; s < p->cfg.n_hosts; s++)
		if (p->hosts[s].gateway != 0 && slot_by_ip(p, p->hosts[s].gateway) == NET_NIL)
			net_neigh_resolve(p, s, p->hosts[s].gateway, wall);
}

/* ---- receive ---- */

/* An ARP request for host @p slot's address: learn its sender (RFC 826) and answer it. */
static void arp_answer(struct net_port *p, uint32_t slot, const struct wire_arp *q, emu_ps_t wall)
{
	struct wire_arp r;

	if (p->cfg.static_only)
		p->c[NET_PORT_C_ARP_REQUESTS_NOT_LEARNT]++;
	else if (q->spa != 0 && net_neigh_learn(p, q->spa, q->sha, NET_LEARNT_ARP_REQUEST, true, slot, wall))
		p->c[NET_PORT_C_ARP_REQUESTS_LEARNT]++;
	arp_from(p, slot, WIRE_ARP_REPLY, q->sha, &r);
	memcpy(r.tha, q->sha, 6);
	r.tpa = q->spa;
	emit(p, wire_arp_encode(&r, REPLY(p), REPLY_CAP));
	p->c[NET_PORT_C_ARP_REQUESTS_ANSWERED]++;
}

/*
 * An ARP frame. Requests for a host's address are answered; otherwise the sender's entry, if there is one, takes
 * the sender's MAC (an entry is made only by our own requests and by requests to us).
 */
static void rx_arp(struct net_port *p, const uint8_t *frame, size_t len, emu_ps_t wall)
{
	struct wire_arp a;
	int rc = wire_arp_decode(frame, len, &a);

	if (rc != WIRE_R_OK) {
		refused(p, rc);
		return;
	}
	if (memcmp(a.eth_dst, bcast, 6) != 0 && slot_by_mac(p, a.eth_dst) == NET_NIL) {
		drop(p, NET_PORT_RX_NOT_OUR_MAC);
		return;
	}
	if (slot_by_ip(p, a.spa) != NET_NIL) {
		drop(p, NET_PORT_RX_ARP_CONFLICT);
		return;
	}
	uint32_t slot = slot_by_ip(p, a.tpa);
	bool announce = a.spa == a.tpa;

	if (slot != NET_NIL && a.op == WIRE_ARP_REQUEST) {
		arp_answer(p, slot, &a, wall);
		return;
	}
	/* a reply or an announcement: a static neighbour's address with another MAC is a spoof (a static entry never
	 * moves); on a port with neighbours: static, none is learnt */
	const struct net_neigh *st = a.spa != 0 ? net_neigh_find(p, a.spa) : NULL;

	if (a.op != WIRE_ARP_REQUEST || announce) {
		if (st != NULL && st->state == NET_NEIGH_STATIC && memcmp(st->mac, a.sha, 6) != 0) {
			drop(p, NET_PORT_RX_ARP_SPOOFED);
			return;
		}
		if (p->cfg.static_only) {
			drop(p, NET_PORT_RX_ARP_STATIC_ONLY);
			return;
		}
	}
	uint8_t how = announce ? NET_LEARNT_ARP_ANNOUNCEMENT
		    : a.op == WIRE_ARP_REPLY ? NET_LEARNT_ARP_REPLY : NET_LEARNT_ARP_REQUEST;
	bool learnt = a.spa != 0 && net_neigh_learn(p, a.spa, a.sha, how, false, 0, wall);

	if (a.op == WIRE_ARP_REQUEST && !announce) {
		p->c[NET_PORT_C_ARP_REQUESTS_LEARNT] += learnt;
		drop(p, NET_PORT_RX_ARP_OTHER_TARGET);
	} else if (!learnt) {
		drop(p, NET_PORT_RX_ARP_UNSOLICITED);
	} else {
		p->c[announce ? NET_PORT_C_ARP_ANNOUNCEMENTS_LEARNT : NET_PORT_C_ARP_REPLIES_LEARNT]++;
	}
}

/* An ICMP message to host @p slot: an echo request is answered from the host's address to the sender's MAC. */
static void rx_icmp(struct net_port *p, uint32_t slot, const uint8_t *frame, size_t len, const struct wire_ipv4 *ip)
{
	struct wire_icmp m, r;
	int rc = wire_icmp_decode_ipv4(frame, len, ip, &m);

	if (rc != WIRE_R_OK) {
		refused(p, rc);
		return;
	}
	if (m.type != WIRE_ICMP_ECHO_REQUEST || m.code != 0) {
		drop(p, NET_PORT_RX_ICMP_OTHER);
		return;
	}
	r = m;
	memcpy(r.dst_mac, m.src_mac, 6);
	memcpy(r.src_mac, p->hosts[slot].mac, 6);
	r.src_ip = p->hosts[slot].ip;
	r.dst_ip = m.src_ip;
	r.ttl = WIRE_ICMP_TTL;
	r.type = WIRE_ICMP_ECHO_REPLY;
	emit(p, wire_icmp_encode(&r, REPLY(p), REPLY_CAP));
	p->c[NET_PORT_C_ICMP_ECHO_ANSWERED]++;
}

/*
 * Decode a UET, connection-management or PFC frame into a descriptor; NULL when refused (counted). @p ip is the
 * IPv4 header rx_ipv4() read (NULL for PFC): the decoder goes on from it rather than parsing it again.
 */
static struct wire_pkt *decode(struct net_port *p, const uint8_t *frame, size_t len, const struct wire_ipv4 *ip)
{
	struct wire_pkt *pkt = net_pkt_alloc(p->cfg.np);

	if (pkt == NULL) {
		drop(p, NET_PORT_RX_NO_PKT);
		return NULL;
	}
	const struct wire_rx_cfg rx = { .uet_port = p->cfg.uet_port, .crc = p->cfg.crc, .crc_ip = p->cfg.crc_ip,
					.roce_icrc = p->cfg.roce_icrc, .roce_reth = p->cfg.roce_reth, .udp_csum = p->cfg.rx_csum };
	struct wire_rx_info info;
	int rc = ip != NULL ? wire_decode_ipv4(frame, len, ip, &rx, pkt, &info)
			    : wire_decode_rx(frame, len, &rx, pkt, &info);

	if (rc != WIRE_R_OK) {
		refused(p, rc);
		net_pkt_free(p->cfg.np, pkt);
		return NULL;
	}
	p->c[NET_PORT_C_RX_CSUM_PARTIAL] += info.udp_csum == WIRE_CSUM_SEEN_PARTIAL;
	p->c[NET_PORT_C_RX_CSUM_UNVERIFIED] += info.udp_csum == WIRE_CSUM_SEEN_UNVERIFIED;
	return pkt;
}

/*
 * An IPv4 frame: to the host whose MAC it names, if it carries that host's address, by protocol and port. Its
 * Ethernet and IPv4 headers are parsed and checked here, once; ICMP and the UET decoder go on from that decode.
 */
static void rx_ipv4(struct net_port *p, const uint8_t *frame, size_t len, emu_ps_t now)
{
	uint32_t slot = slot_by_mac(p, frame);
	struct wire_ipv4 ip;
	int rc;

	if (slot == NET_NIL) {
		drop(p, NET_PORT_RX_NOT_OUR_MAC);
		return;
	}
	if ((rc = wire_ipv4_decode(frame, len, &ip)) != WIRE_R_OK) { /* the frame's one IPv4 decode */
		refused(p, rc);
		return;
	}
	if (ip.dst_ip != p->hosts[slot].ip) {
		drop(p, NET_PORT_RX_IP_OTHER_HOST);
		return;
	}
	if (ip.proto == WIRE_IPPROTO_ICMP) {
		rx_icmp(p, slot, frame, len, &ip);
		return;
	}
	if (ip.proto != WIRE_IPPROTO_UDP && ip.proto != WIRE_IPPROTO_UET) {
		drop(p, NET_PORT_RX_IP_OTHER_PROTO);
		return;
	}
	if (ip.proto == WIRE_IPPROTO_UDP && ip.l4_len >= 4) { /* the destination port, when the datagram has one; short ones the decoder refuses */
		uint16_t dport = peek_be16(frame + ip.l4_off + 2);
		if (dport != p->cfg.uet_port && dport != WIRE_UDP_PORT_CM &&
		    !(p->cfg.roce && dport == WIRE_UDP_PORT_ROCE)) {
			drop(p, NET_PORT_RX_UDP_OTHER_PORT);
			return;
		}
	}
	struct wire_pkt *pkt = decode(p, frame, len, &ip);

	if (pkt != NULL) {
		net_dir_inject(p->hosts[slot].rx, pkt, now);
		p->c[NET_PORT_C_RX_TO_HOST]++;
	}
}

/* A MAC control frame to the PFC group: a pause of the port, so of every host on it. One to a host's MAC reaches
 * the decoder, which refuses it (bad_pfc_dst: 802.1Qbb pauses go to the MAC control group only). */
static void rx_mac_ctrl(struct net_port *p, const uint8_t *frame, size_t len, emu_ps_t now)
{
	if (memcmp(frame, pfc_group, 6) != 0 && slot_by_mac(p, frame) == NET_NIL) {
		drop(p, NET_PORT_RX_NOT_OUR_MAC);
		return;
	}
	struct wire_pkt *pkt = decode(p, frame, len, NULL);

	if (pkt == NULL)
		return;
	for (uint32_t s = 1; s < p->cfg.n_hosts; s++) {
		struct wire_pkt *q = net_pkt_alloc(p->cfg.np);
		if (q == NULL) /* the hosts left miss this pause: counted in the partition's pkt_pool_empty */
			break;
		*q = *pkt;
		net_dir_inject(p->hosts[s].rx, q, now);
	}
	net_dir_inject(p->hosts[0].rx, pkt, now);
	p->c[NET_PORT_C_RX_TO_HOST]++;
}

/*
 * A frame of a VLAN port: one tagged with the port's VLAN id is taken without its tag (copied to p->untagged:
 * *@p frame and *@p len then name the copy), an untagged PFC frame as it is (802.1Qbb pauses are not tagged).
 * False when the frame was counted instead: another VLAN id, untagged, or a tag cut short.
 */
static bool vlan_rx(struct net_port *p, const uint8_t **frame, size_t *len)
{
	struct wire_vlan v;
	int rc = wire_vlan_decode(*frame, *len, &v);

	if (rc == WIRE_R_NOT_VLAN) {
		if (peek_be16(*frame + 12) == WIRE_ETHERTYPE_MAC_CTRL)
			return true;
		drop(p, NET_PORT_RX_VLAN_UNTAGGED);
		return false;
	}
	if (rc != WIRE_R_OK) {
		refused(p, rc);
		return false;
	}
	if (v.vid != p->cfg.vlan) {
		drop(p, NET_PORT_RX_VLAN_OTHER);
		return false;
	}
	rc = wire_vlan_strip(*frame, *len, p->untagged, sizeof(p->untagged));
	if (rc < 0) { /* longer than WIRE_MAX_FRAME once untagged: no decoder would take it */
		refused(p, WIRE_R_BAD_IP_LEN);
		return false;
	}
	*frame = p->untagged;
	*len = (size_t)rc;
	return true;
}

void net_port_rx(struct net_port *p, const uint8_t *frame, size_t len, emu_ps_t now, emu_ps_t wall)
{
	if (len < WIRE_ETH_LEN) {
		refused(p, WIRE_R_SHORT_ETH);
		return;
	}
	if (slot_by_mac(p, frame + 6) != NET_NIL) {
		drop(p, NET_PORT_RX_OWN_FRAME);
		return;
	}
	if (p->cfg.vlan != 0 && !vlan_rx(p, &frame, &len))
		return;
	switch (peek_be16(frame + 12)) {
	case WIRE_ETHERTYPE_ARP:
		rx_arp(p, frame, len, wall);
		break;
	case WIRE_ETHERTYPE_IPV4:
		rx_ipv4(p, frame, len, now);
		break;
	case WIRE_ETHERTYPE_IPV6:
		drop(p, NET_PORT_RX_IPV6);
		break;
	case WIRE_ETHERTYPE_MAC_CTRL:
		rx_mac_ctrl(p, frame, len, now);
		break;
	default:
		drop(p, NET_PORT_RX_OTHER_ETHERTYPE);
		break;
	}
}

/* ---- send ---- */

/* Is @p ip on host @p h's link: no gateway (every address is), or inside ip/prefix_len. */
static bool on_link(const struct net_port_host *h, uint32_t ip)
{
	uint32_t mask = h->prefix_len == 0 ? 0 : ~0u << (32 - (h->prefix_len > 32 ? 32 : h->prefix_len));

	return h->gateway == 0 || ((ip ^ h->ip) & mask) == 0;
}

/* From one host of the port to another: no wire, no ARP; the frame arrives as it starts. */
static void tx_local(struct net_port *p, uint32_t to, const struct wire_pkt *pkt, emu_ps_t now)
{
	struct wire_pkt *q = net_pkt_alloc(p->cfg.np);

	if (q == NULL) {
		p->c[NET_PORT_C_TX_DROP_NO_PKT]++;
		return;
	}
	*q = *pkt;
	memcpy(q->dst_mac, p->hosts[to].mac, 6);
	q->ctx = NULL; /* the sender's record stays the sender's */
	net_dir_inject(p->hosts[to].rx, q, now);
	p->c[NET_PORT_C_TX_LOCAL]++;
}

void net_port_tx(struct net_port *p, uint32_t slot, const struct wire_pkt *pkt, emu_ps_t now, emu_ps_t wall)
{
	if (pkt->kind == WIRE_KIND_PFC) { /* link-level, to the PFC group: no next hop */
		net_port_emit_pkt(p, pkt, NULL);
		return;
	}
	const struct net_port_host *h = &p->hosts[slot];
	uint32_t hop = on_link(h, pkt->dst_ip) ? pkt->dst_ip : h->gateway;
	uint32_t local = slot_by_ip(p, hop);

	if (local != NET_NIL)
		tx_local(p, local, pkt, now);
	else
		net_neigh_send(p, slot, hop, pkt, wall);
}
