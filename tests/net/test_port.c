/* Criterion tests of the port side of emulated hosts on a real port (net_port): ARP answers and resolution, held
 * frames and their bounds, retries, the rate limit, expiry, gateways, statics, hosts sharing a port, ICMP echo, and
 * every frame counted once by reason, truncated at every byte or random. No DPDK: frames are byte buffers. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "net.h"
#include "net_port.h"

#define MS EMU_PS_PER_MS
#define S EMU_PS_PER_S
#define MAX_FRAMES 512
#define MAX_HOSTS 64 /* CTL_PORT_HOSTS_MAX: the most a config shares one port among */

static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
static const uint8_t kmac[6] = { 0x52, 0x54, 0x00, 0xaa, 0xbb, 0x01 }; /* the kernel side */
static const uint8_t gmac[6] = { 0x52, 0x54, 0x00, 0xaa, 0xbb, 0xfe }; /* a router */
#define KIP 0x0a5800feu /* 10.88.0.254 */
#define GW 0x0a580001u  /* 10.88.0.1 */

/* What the wire got: copies of the frames the port emitted. */
struct wire_log {
	uint8_t f[MAX_FRAMES][256];
	size_t len[MAX_FRAMES];
	uint32_t n;
};

/* A stand-in for a NIC: counts and keeps the last descriptor it is handed. */
struct sink {
	struct net_part *np;
	uint32_t n;
	struct wire_pkt last;
};

static void sink_receive(void *dev, uint32_t port, struct wire_pkt *pkt, emu_ps_t now)
{
	struct sink *s = dev;

	(void)port;
	(void)now;
	s->n++;
	s->last = *pkt;
	net_pkt_free(s->np, pkt);
}

static void sink_tx_done(void *dev, uint32_t port, emu_ps_t now)
{
	(void)dev, (void)port, (void)now;
}

static const struct net_dev_ops sink_ops = { .receive = sink_receive, .tx_done = sink_tx_done };

struct fx {
	struct net_part np;
	struct sink sinks[MAX_HOSTS];
	struct net_link links[MAX_HOSTS];
	struct net_port_host hosts[MAX_HOSTS];
	struct wire_log w;
	struct net_port *p;
};

static struct fx F;

/* The frame as the wire carries it: the headers, then @p payload bytes of the pattern (first 256 bytes kept). */
static void on_emit(void *arg, const uint8_t *hdr, size_t len, size_t payload)
{
	struct wire_log *w = arg;
	uint8_t pat[WIRE_MAX_FRAME];

	if (w->n < MAX_FRAMES) { /* past that, counted only */
		size_t keep = len < 256 ? len : 256;

		w->len[w->n] = len + payload;
		memcpy(w->f[w->n], hdr, keep);
		if (keep < 256 && payload > 0) {
			wire_payload_fill(pat, payload);
			memcpy(w->f[w->n] + keep, pat, payload < 256 - keep ? payload : 256 - keep);
		}
	}
	w->n++;
}

/* Hosts 10.88.0.(10 + i), MAC 02:00:00:00:00:(i + 1), on-link everything unless a test says otherwise. */
static void fx_hosts(uint32_t n)
{
	cr_assert_eq(net_part_init(&F.np, 1024, 1024), 0);
	for (uint32_t i = 0; i < n; i++) {
		F.sinks[i].np = &F.np;
		struct net_endpoint ep = { .dev = &F.sinks[i], .ops = &sink_ops, .port = 0 };
		net_link_init(&F.links[i], &F.np, 1000000000ULL, 0, ep, (struct net_endpoint){ 0 });
		F.hosts[i] = (struct net_port_host){ .ip = 0x0a58000au + i, .mac = { 0x02, 0, 0, 0, 0, (uint8_t)(i + 1) },
						     .rx = &F.links[i].dir[1] };
	}
}

static void fx_create(struct net_port_cfg *c, uint32_t n)
{
	c->np = &F.np;
	c->hosts = F.hosts;
	c->n_hosts = n;
	c->uet_port = WIRE_UDP_PORT_UET;
	c->emit = on_emit;
	c->emit_arg = &F.w;
	F.p = net_port_create(c);
	cr_assert_not_null(F.p);
}

static void fx_init(uint32_t n)
{
	struct net_port_cfg c = { 0 };

	fx_hosts(n);
	fx_create(&c, n);
}

static void fx_fini(void)
{
	net_port_destroy(F.p);
	net_part_fini(&F.np);
	memset(&F, 0, sizeof(F));
}

static uint64_t C(int c)
{
	return net_port_counters(F.p)[c];
}

static uint64_t D(int r)
{
	return net_port_rx_drops(F.p)[r];
}

static uint64_t R(int r)
{
	return net_port_rx_refused(F.p)[r];
}

/* Every frame received is counted once: taken (five counters), dropped by reason, or refused by a decoder. */
static uint64_t accounted(void)
{
	uint64_t n = C(NET_PORT_C_RX_TO_HOST) + C(NET_PORT_C_ARP_REQUESTS_ANSWERED) + C(NET_PORT_C_ARP_REPLIES_LEARNT) +
		     C(NET_PORT_C_ARP_ANNOUNCEMENTS_LEARNT) + C(NET_PORT_C_ICMP_ECHO_ANSWERED);

	for (int r = 1; r < NET_PORT_RX_COUNT; r++)
		n += D(r);
	for (int r = 1; r < WIRE_R_COUNT; r++)
		n += R(r);
	return n;
}

static size_t arp_frame(uint8_t *f, uint16_t op, const uint8_t *dst, const uint8_t *sha, uint32_t spa,
			const uint8_t *tha, uint32_t tpa)
{
	struct wire_arp a = { .op = op, .spa = spa, .tpa = tpa };

	memcpy(a.eth_dst, dst, 6);
	memcpy(a.eth_src, sha, 6);
	memcpy(a.sha, sha, 6);
	if (tha != NULL)
		memcpy(a.tha, tha, 6);
	return (size_t)wire_arp_encode(&a, f, 60);
}

static void rx(const uint8_t *f, size_t len, emu_ps_t wall)
{
	net_port_rx(F.p, f, len, wall, wall);
}

/* A UET ACK from @p src to host @p slot's address, to @p dst_mac. */
static struct wire_pkt mk_ack(uint32_t src, uint32_t dst_ip, const uint8_t *dst_mac, const uint8_t *src_mac)
{
	struct wire_pkt p;

	memset(&p, 0, sizeof(p));
	p.kind = WIRE_KIND_ACK;
	memcpy(p.dst_mac, dst_mac, 6);
	memcpy(p.src_mac, src_mac, 6);
	p.src_ip = src;
	p.dst_ip = dst_ip;
	p.ttl = WIRE_TTL;
	p.dport = WIRE_UDP_PORT_UET;
	p.pds.type = WIRE_PDS_ACK_CC;
	return p;
}

static size_t enc(const struct wire_pkt *p, uint8_t *f, size_t cap)
{
	int n = wire_encode(p, f, cap);

	cr_assert_gt(n, 0);
	return (size_t)n;
}

/* The last frame on the wire, as ARP. */
static struct wire_arp last_arp(void)
{
	struct wire_arp a;

	cr_assert_gt(F.w.n, 0);
	cr_assert_eq(wire_arp_decode(F.w.f[F.w.n - 1], F.w.len[F.w.n - 1], &a), WIRE_R_OK);
	return a;
}

static struct net_neigh_info neigh_of(uint32_t ip, emu_ps_t wall)
{
	struct net_neigh_info info[64];
	uint32_t n = net_port_neighbours(F.p, wall, info, 64);

	for (uint32_t i = 0; i < n && i < 64; i++)
		if (info[i].ip == ip)
			return info[i];
	return (struct net_neigh_info){ .state = NET_NEIGH_FREE };
}

TestSuite(net_port, .fini = fx_fini);

/* ---- ARP answers ---- */

Test(net_port, answers_arp_request_and_learns_sender)
{
	uint8_t f[60];

	fx_init(1);
	rx(f, arp_frame(f, WIRE_ARP_REQUEST, bcast, kmac, KIP, NULL, 0x0a58000a), 5 * MS);
	struct wire_arp a = last_arp();
	cr_assert_eq(F.w.n, 1);
	cr_assert_eq(F.w.len[0], 60);
	cr_assert_eq(a.op, WIRE_ARP_REPLY);
	cr_assert_arr_eq(a.eth_dst, kmac, 6);
	cr_assert_arr_eq(a.eth_src, F.hosts[0].mac, 6);
	cr_assert_arr_eq(a.sha, F.hosts[0].mac, 6);
	cr_assert_eq(a.spa, 0x0a58000a);
	cr_assert_arr_eq(a.tha, kmac, 6);
	cr_assert_eq(a.tpa, KIP);
	cr_assert_eq(C(NET_PORT_C_ARP_REQUESTS_ANSWERED), 1);
	cr_assert_eq(C(NET_PORT_C_ARP_REQUESTS_LEARNT), 1);
	struct net_neigh_info e = neigh_of(KIP, 5 * MS);
	cr_assert_eq(e.state, NET_NEIGH_REACHABLE);
	cr_assert_eq(e.learnt, NET_LEARNT_ARP_REQUEST);
	cr_assert_arr_eq(e.mac, kmac, 6);
	cr_assert_eq(accounted(), 1);
}

Test(net_port, arp_for_others_and_conflicts_counted_not_answered)
{
	uint8_t f[60];
	static const uint8_t other[6] = { 0x02, 0x99, 0, 0, 0, 1 };

	fx_init(2);
	rx(f, arp_frame(f, WIRE_ARP_REQUEST, bcast, kmac, KIP, NULL, 0x0a580063), 0);     /* who has .99 */
	rx(f, arp_frame(f, WIRE_ARP_REPLY, bcast, kmac, KIP, NULL, KIP), 0);               /* announcement, unknown */
	rx(f, arp_frame(f, WIRE_ARP_REPLY, F.hosts[0].mac, kmac, KIP, F.hosts[0].mac, 0x0a58000a), 0); /* unasked */
	rx(f, arp_frame(f, WIRE_ARP_REQUEST, other, kmac, KIP, NULL, 0x0a58000a), 0);      /* to another MAC */
	rx(f, arp_frame(f, WIRE_ARP_REQUEST, bcast, other, 0x0a58000b, NULL, 0x0a58000b), 0); /* claims host1's */
	rx(f, arp_frame(f, WIRE_ARP_REQUEST, bcast, F.hosts[1].mac, 0x0a58000b, NULL, KIP), 0); /* our own */
	cr_assert_eq(F.w.n, 0, "nothing answered");
	cr_assert_eq(D(NET_PORT_RX_ARP_OTHER_TARGET), 1);
	cr_assert_eq(D(NET_PORT_RX_ARP_UNSOLICITED), 2);
	cr_assert_eq(D(NET_PORT_RX_NOT_OUR_MAC), 1);
	cr_assert_eq(D(NET_PORT_RX_ARP_CONFLICT), 1);
	cr_assert_eq(D(NET_PORT_RX_OWN_FRAME), 1);
	cr_assert_eq(neigh_of(KIP, 0).state, NET_NEIGH_FREE, "no entry made from frames not for us");
	cr_assert_eq(accounted(), 6);
}

Test(net_port, announcement_refreshes_known_entry)
{
	uint8_t f[60];
	static const uint8_t moved[6] = { 0x52, 0x54, 0x00, 0xaa, 0xbb, 0x77 };

	fx_init(1);
	rx(f, arp_frame(f, WIRE_ARP_REQUEST, bcast, kmac, KIP, NULL, 0x0a58000a), 0);
	rx(f, arp_frame(f, WIRE_ARP_REQUEST, bcast, moved, KIP, NULL, KIP), 1 * MS);
	cr_assert_eq(C(NET_PORT_C_ARP_ANNOUNCEMENTS_LEARNT), 1);
	struct net_neigh_info e = neigh_of(KIP, 1 * MS);
	cr_assert_arr_eq(e.mac, moved, 6);
	cr_assert_eq(e.learnt, NET_LEARNT_ARP_ANNOUNCEMENT);
}

/* ---- start, resolution, held frames ---- */

Test(net_port, start_announces_and_resolves_gateway)
{
	struct net_port_cfg c = { 0 };

	fx_hosts(2);
	F.hosts[0].gateway = GW;
	F.hosts[0].prefix_len = 24;
	fx_create(&c, 2);
	net_port_start(F.p, 0);
	cr_assert_eq(F.w.n, 3, "two announcements and a request for the gateway");
	for (uint32_t i = 0; i < 2; i++) {
		struct wire_arp a;
		cr_assert_eq(wire_arp_decode(F.w.f[i], F.w.len[i], &a), WIRE_R_OK);
		cr_assert_eq(a.op, WIRE_ARP_REQUEST);
		cr_assert_arr_eq(a.eth_dst, bcast, 6);
		cr_assert_eq(a.spa, F.hosts[i].ip);
		cr_assert_eq(a.tpa, F.hosts[i].ip);
	}
	struct wire_arp a = last_arp();
	cr_assert_eq(a.tpa, GW);
	cr_assert_eq(a.spa, F.hosts[0].ip);
	cr_assert_eq(C(NET_PORT_C_ARP_ANNOUNCEMENTS_SENT), 2);
	cr_assert_eq(C(NET_PORT_C_ARP_REQUESTS_SENT), 1);
	cr_assert_eq(neigh_of(GW, 0).state, NET_NEIGH_INCOMPLETE);
}

Test(net_port, holds_until_reply_then_sends_to_learnt_mac)
{
	uint8_t f[128];
	struct wire_pkt ack = mk_ack(0x0a58000a, KIP, bcast, F.hosts[0].mac);

	fx_init(1);
	memcpy(ack.src_mac, F.hosts[0].mac, 6);
	net_port_tx(F.p, 0, &ack, 0, 0);
	net_port_tx(F.p, 0, &ack, 0, 1 * MS);
	cr_assert_eq(F.w.n, 1, "one request, both frames held");
	struct wire_arp q = last_arp();
	cr_assert_eq(q.tpa, KIP);
	cr_assert_arr_eq(q.eth_dst, bcast, 6);
	cr_assert_eq(C(NET_PORT_C_TX_HELD), 2);
	cr_assert_eq(neigh_of(KIP, 0).held, 2);
	rx(f, arp_frame(f, WIRE_ARP_REPLY, F.hosts[0].mac, kmac, KIP, F.hosts[0].mac, 0x0a58000a), 2 * MS);
	cr_assert_eq(F.w.n, 3);
	cr_assert_eq(C(NET_PORT_C_TX_HELD_SENT), 2);
	cr_assert_eq(C(NET_PORT_C_ARP_REPLIES_LEARNT), 1);
	struct wire_pkt d;
	cr_assert_eq(wire_decode(F.w.f[1], F.w.len[1], WIRE_UDP_PORT_UET, &d), WIRE_R_OK);
	cr_assert_arr_eq(d.dst_mac, kmac, 6);
	cr_assert_arr_eq(d.src_mac, F.hosts[0].mac, 6);
	net_port_tx(F.p, 0, &ack, 0, 3 * MS);
	cr_assert_eq(F.w.n, 4, "resolved: sent at once");
	cr_assert_eq(C(NET_PORT_C_TX_SENT), 3);
	struct net_neigh_info e = neigh_of(KIP, 3 * MS);
	cr_assert_eq(e.learnt, NET_LEARNT_ARP_REPLY);
	cr_assert_eq(e.held, 0);
}

Test(net_port, retries_then_fails_and_reclaims)
{
	struct wire_pkt ack = mk_ack(0x0a58000a, KIP, bcast, bcast);

	fx_init(1);
	net_port_tx(F.p, 0, &ack, 0, 0);
	for (emu_ps_t t = 0; t <= 5 * S; t += 100 * MS)
		net_port_tick(F.p, t);
	cr_assert_eq(C(NET_PORT_C_ARP_REQUESTS_SENT), NET_PORT_ARP_TRIES, "one request per second, three in all");
	cr_assert_eq(C(NET_PORT_C_NEIGH_FAILED), 1);
	cr_assert_eq(C(NET_PORT_C_TX_DROP_UNRESOLVED), 1);
	cr_assert_eq(net_port_neighbours(F.p, 5 * S, NULL, 0), 0, "the entry is gone");
	/* the requests went at 0, 1 s and 2 s; the entry failed at 3 s */
	net_port_tx(F.p, 0, &ack, 0, 6 * S);
	cr_assert_eq(C(NET_PORT_C_ARP_REQUESTS_SENT), NET_PORT_ARP_TRIES + 1, "a new frame starts again");
}

Test(net_port, hold_bounds_per_neighbour_and_port)
{
	struct net_port_cfg c = { .hold_per_neigh = 4, .hold_max = 6 };
	struct wire_pkt ack = mk_ack(0x0a58000a, KIP, bcast, bcast);

	fx_hosts(1);
	fx_create(&c, 1);
	for (int i = 0; i < 10; i++)
		net_port_tx(F.p, 0, &ack, 0, 0);
	cr_assert_eq(neigh_of(KIP, 0).held, 4);
	cr_assert_eq(C(NET_PORT_C_TX_DROP_HOLD_FULL), 6);
	ack.dst_ip = KIP + 1;
	for (int i = 0; i < 4; i++)
		net_port_tx(F.p, 0, &ack, 0, 0);
	cr_assert_eq(neigh_of(KIP + 1, 0).held, 2, "the port's 6 slots are shared");
	cr_assert_eq(C(NET_PORT_C_TX_DROP_HOLD_POOL), 2);
}

Test(net_port, arp_rate_limited_then_refilled)
{
	struct wire_pkt ack = mk_ack(0x0a58000a, 0, bcast, bcast);

	fx_init(1);
	for (uint32_t i = 0; i < 40; i++) {
		ack.dst_ip = 0x0a590000u + i;
		net_port_tx(F.p, 0, &ack, 0, 0);
	}
	cr_assert_eq(C(NET_PORT_C_ARP_REQUESTS_SENT), NET_PORT_ARP_BURST);
	cr_assert_eq(C(NET_PORT_C_ARP_RATE_LIMITED), 40 - NET_PORT_ARP_BURST);
	/* one token per 10 ms: by 240 ms the 24 put off have gone */
	for (emu_ps_t t = 0; t <= 240 * MS; t += 1 * MS)
		net_port_tick(F.p, t);
	cr_assert_eq(C(NET_PORT_C_ARP_REQUESTS_SENT), 40);
	for (emu_ps_t t = 240 * MS; t <= 1 * S; t += 1 * MS)
		net_port_tick(F.p, t);
	cr_assert_leq(C(NET_PORT_C_ARP_REQUESTS_SENT), 40 + 1 * S / (10 * MS), "never faster than the limit");
}

/* ---- bounds on what a remote node can make ---- */

Test(net_port, remote_cannot_grow_the_table)
{
	struct net_port_cfg c = { .neigh_max = 8 };
	uint8_t f[60], mac[6] = { 0x52, 0, 0, 0, 0, 0 };

	fx_hosts(1);
	fx_create(&c, 1);
	for (uint32_t i = 0; i < 1000; i++) {
		mac[4] = (uint8_t)(i >> 8), mac[5] = (uint8_t)i;
		rx(f, arp_frame(f, WIRE_ARP_REQUEST, bcast, mac, 0x0b000000u + i, NULL, 0x0a58000a), i * MS);
	}
	cr_assert_eq(C(NET_PORT_C_ARP_REQUESTS_ANSWERED), 1000, "every request answered");
	cr_assert_eq(net_port_neighbours(F.p, 1 * S, NULL, 0), 8);
	cr_assert_eq(C(NET_PORT_C_NEIGH_EVICTED), 992);
	cr_assert_eq(neigh_of(0x0b000000u + 999, 1 * S).state, NET_NEIGH_REACHABLE, "the newest stays");
	/* and every one of them goes when unused for the expiry time */
	net_port_tick(F.p, 1 * S + NET_PORT_EXPIRE_PS);
	cr_assert_eq(net_port_neighbours(F.p, 70 * S, NULL, 0), 0);
	cr_assert_eq(C(NET_PORT_C_NEIGH_EXPIRED), 8);
}

Test(net_port, table_of_unresolved_refuses_more)
{
	struct net_port_cfg c = { .neigh_max = 4 };
	struct wire_pkt ack = mk_ack(0x0a58000a, 0, bcast, bcast);

	fx_hosts(1);
	fx_create(&c, 1);
	for (uint32_t i = 0; i < 6; i++) {
		ack.dst_ip = 0x0b000000u + i;
		net_port_tx(F.p, 0, &ack, 0, 0);
	}
	cr_assert_eq(C(NET_PORT_C_TX_DROP_NEIGH_FULL), 2);
	cr_assert_eq(net_port_neighbours(F.p, 0, NULL, 0), 4);
}

Test(net_port, stale_entry_refreshed_by_unicast_request)
{
	uint8_t f[60];
	struct wire_pkt ack = mk_ack(0x0a58000a, KIP, bcast, bcast);

	fx_init(1);
	rx(f, arp_frame(f, WIRE_ARP_REQUEST, bcast, kmac, KIP, NULL, 0x0a58000a), 0);
	net_port_tx(F.p, 0, &ack, 0, 31 * S);
	cr_assert_eq(neigh_of(KIP, 31 * S).state, NET_NEIGH_STALE);
	cr_assert_eq(F.w.n, 3, "the reply, a refresh request, the frame");
	struct wire_arp q;
	cr_assert_eq(wire_arp_decode(F.w.f[1], F.w.len[1], &q), WIRE_R_OK);
	cr_assert_arr_eq(q.eth_dst, kmac, 6, "unicast to the MAC it knows");
	rx(f, arp_frame(f, WIRE_ARP_REPLY, F.hosts[0].mac, kmac, KIP, F.hosts[0].mac, 0x0a58000a), 31 * S + MS);
	cr_assert_eq(neigh_of(KIP, 31 * S + MS).state, NET_NEIGH_REACHABLE);
}

/* ---- next hops ---- */

Test(net_port, gateway_for_off_link_peers_static_mac_wins)
{
	struct net_port_static st = { .ip = 0x0a580020u, .mac = { 0x02, 0xaa, 0, 0, 0, 0x20 } };
	struct net_port_cfg c = { .statics = &st, .n_statics = 1 };
	uint8_t f[128];

	fx_hosts(1);
	F.hosts[0].gateway = GW;
	F.hosts[0].prefix_len = 24;
	fx_create(&c, 1);
	struct wire_pkt off = mk_ack(0x0a58000a, 0x0a020001u, bcast, bcast); /* 10.2.0.1: through the gateway */
	net_port_tx(F.p, 0, &off, 0, 0);
	cr_assert_eq(last_arp().tpa, GW);
	rx(f, arp_frame(f, WIRE_ARP_REPLY, F.hosts[0].mac, gmac, GW, F.hosts[0].mac, 0x0a58000a), MS);
	struct wire_pkt d;
	cr_assert_eq(wire_decode(F.w.f[F.w.n - 1], F.w.len[F.w.n - 1], WIRE_UDP_PORT_UET, &d), WIRE_R_OK);
	cr_assert_arr_eq(d.dst_mac, gmac, 6);
	cr_assert_eq(d.dst_ip, 0x0a020001u, "the IP header still names the peer");
	struct wire_pkt on = mk_ack(0x0a58000a, 0x0a580020u, bcast, bcast); /* on-link, static */
	uint32_t before = F.w.n;
	net_port_tx(F.p, 0, &on, 0, 2 * MS);
	cr_assert_eq(F.w.n, before + 1, "no ARP for a static neighbour");
	cr_assert_eq(wire_decode(F.w.f[before], F.w.len[before], WIRE_UDP_PORT_UET, &d), WIRE_R_OK);
	cr_assert_arr_eq(d.dst_mac, st.mac, 6);
	cr_assert_eq(neigh_of(0x0a580020u, 0).state, NET_NEIGH_STATIC);
	cr_assert_eq(neigh_of(0x0a580020u, 0).learnt, NET_LEARNT_CONFIG);
	/* an ARP reply does not move a static entry */
	rx(f, arp_frame(f, WIRE_ARP_REPLY, F.hosts[0].mac, kmac, 0x0a580020u, F.hosts[0].mac, 0x0a58000a), 3 * MS);
	cr_assert_arr_eq(neigh_of(0x0a580020u, 0).mac, st.mac, 6);
}

/* neighbours: static: next hops only from the config; ARP answered, never learnt, never sent for a next hop. */
Test(net_port, static_only_takes_neighbours_from_the_config)
{
	struct net_port_static st = { .ip = KIP, .mac = { 0x02, 0xaa, 0, 0, 0, 0x01 } };
	struct net_port_cfg c = { .statics = &st, .n_statics = 1, .static_only = true };
	static const uint8_t forged[6] = { 0x02, 0x66, 0x66, 0x66, 0x66, 0x66 };
	uint8_t f[128];
	struct wire_pkt d;

	fx_hosts(1);
	F.hosts[0].gateway = GW;
	fx_create(&c, 1);
	net_port_start(F.p, 0);
	cr_assert_eq(C(NET_PORT_C_ARP_REQUESTS_SENT), 0, "no request for the gateway: it is not in the config");
	cr_assert_eq(C(NET_PORT_C_ARP_ANNOUNCEMENTS_SENT), 1, "the host still announces itself");
	/* a forged reply and announcement for the static neighbour: counted, nothing moves */
	rx(f, arp_frame(f, WIRE_ARP_REPLY, F.hosts[0].mac, forged, KIP, F.hosts[0].mac, 0x0a58000a), MS);
	rx(f, arp_frame(f, WIRE_ARP_REQUEST, bcast, forged, KIP, NULL, KIP), MS);
	cr_assert_eq(D(NET_PORT_RX_ARP_SPOOFED), 2);
	cr_assert_arr_eq(neigh_of(KIP, MS).mac, st.mac, 6);
	/* a reply from an address the config does not name: no entry is made */
	rx(f, arp_frame(f, WIRE_ARP_REPLY, F.hosts[0].mac, gmac, GW, F.hosts[0].mac, 0x0a58000a), MS);
	cr_assert_eq(D(NET_PORT_RX_ARP_STATIC_ONLY), 1);
	cr_assert_eq(neigh_of(GW, MS).state, NET_NEIGH_FREE);
	/* a request for the host: answered, its sender not learnt */
	uint32_t before = F.w.n;
	rx(f, arp_frame(f, WIRE_ARP_REQUEST, bcast, gmac, GW, NULL, 0x0a58000a), 2 * MS);
	cr_assert_eq(F.w.n, before + 1);
	cr_assert_eq(last_arp().op, WIRE_ARP_REPLY);
	cr_assert_eq(C(NET_PORT_C_ARP_REQUESTS_ANSWERED), 1);
	cr_assert_eq(C(NET_PORT_C_ARP_REQUESTS_NOT_LEARNT), 1);
	cr_assert_eq(neigh_of(GW, 2 * MS).state, NET_NEIGH_FREE);
	/* frames: to the static neighbour at its configured MAC; through the gateway (no MAC given): dropped */
	struct wire_pkt on = mk_ack(0x0a58000a, KIP, bcast, bcast), off = mk_ack(0x0a58000a, 0x0a020001u, bcast, bcast);
	before = F.w.n;
	net_port_tx(F.p, 0, &on, 0, 3 * MS);
	cr_assert_eq(F.w.n, before + 1);
	cr_assert_eq(wire_decode(F.w.f[before], F.w.len[before], WIRE_UDP_PORT_UET, &d), WIRE_R_OK);
	cr_assert_arr_eq(d.dst_mac, st.mac, 6);
	F.hosts[0].prefix_len = 24;
	net_port_tx(F.p, 0, &off, 0, 4 * MS);
	cr_assert_eq(F.w.n, before + 1, "nothing sent, no ARP");
	cr_assert_eq(C(NET_PORT_C_TX_DROP_NO_STATIC), 1);
	cr_assert_eq(accounted(), 4);
}

/* Without static_only a forged reply for a static neighbour is arp_spoofed too, and a learnt entry still moves. */
Test(net_port, spoofed_static_counted_on_an_arp_port)
{
	struct net_port_static st = { .ip = 0x0a580020u, .mac = { 0x02, 0xaa, 0, 0, 0, 0x20 } };
	struct net_port_cfg c = { .statics = &st, .n_statics = 1 };
	uint8_t f[60];

	fx_hosts(1);
	fx_create(&c, 1);
	rx(f, arp_frame(f, WIRE_ARP_REPLY, F.hosts[0].mac, kmac, 0x0a580020u, F.hosts[0].mac, 0x0a58000a), MS);
	cr_assert_eq(D(NET_PORT_RX_ARP_SPOOFED), 1);
	cr_assert_eq(D(NET_PORT_RX_ARP_UNSOLICITED), 0);
	cr_assert_arr_eq(neigh_of(0x0a580020u, MS).mac, st.mac, 6);
	cr_assert_eq(accounted(), 1);
}

Test(net_port, pfc_goes_out_as_is)
{
	struct wire_pkt p;

	fx_init(1);
	memset(&p, 0, sizeof(p));
	p.kind = WIRE_KIND_PFC;
	memcpy(p.src_mac, F.hosts[0].mac, 6);
	net_port_tx(F.p, 0, &p, 0, 0);
	cr_assert_eq(F.w.n, 1);
	cr_assert_eq(F.w.f[0][0], 0x01);
	cr_assert_eq(F.w.f[0][5], 0x01);
}

/* ---- hosts sharing a port ---- */

Test(net_port, shared_port_delivers_by_mac_and_ip)
{
	uint8_t f[128];

	fx_init(3);
	for (uint32_t h = 0; h < 3; h++) {
		struct wire_pkt a = mk_ack(KIP, F.hosts[h].ip, F.hosts[h].mac, kmac);
		a.ttl = 254; /* through a router */
		rx(f, enc(&a, f, sizeof(f)), 0);
		cr_assert_eq(F.sinks[h].n, 1, "host %u", h);
		cr_assert_eq(F.sinks[h].last.ttl, 254);
	}
	struct wire_pkt wrong = mk_ack(KIP, F.hosts[0].ip, F.hosts[1].mac, kmac);
	rx(f, enc(&wrong, f, sizeof(f)), 0);
	struct wire_pkt stranger = mk_ack(KIP, F.hosts[0].ip, gmac, kmac);
	rx(f, enc(&stranger, f, sizeof(f)), 0);
	cr_assert_eq(D(NET_PORT_RX_IP_OTHER_HOST), 1);
	cr_assert_eq(D(NET_PORT_RX_NOT_OUR_MAC), 1);
	cr_assert_eq(F.sinks[0].n + F.sinks[1].n + F.sinks[2].n, 3);
	cr_assert_eq(C(NET_PORT_C_RX_TO_HOST), 3);
	/* an ARP request for each host's address is answered by that host */
	for (uint32_t h = 0; h < 3; h++) {
		rx(f, arp_frame(f, WIRE_ARP_REQUEST, bcast, kmac, KIP, NULL, F.hosts[h].ip), 0);
		cr_assert_arr_eq(last_arp().sha, F.hosts[h].mac, 6);
	}
	cr_assert_eq(accounted(), 8);
}

Test(net_port, shared_port_of_64_hosts_finds_each_by_mac_and_ip)
{
	uint8_t f[128];

	fx_hosts(MAX_HOSTS);
	for (uint32_t h = 0; h < MAX_HOSTS; h++) { /* MACs and addresses alike but for a bit or two */
		F.hosts[h].mac[4] = (uint8_t)(h >> 3);
		F.hosts[h].mac[5] = (uint8_t)(h & 7);
		F.hosts[h].ip = 0x0a580000u | h << 8 | 10;
	}
	F.hosts[MAX_HOSTS - 1].ip = F.hosts[0].ip; /* one address twice: the first host has it, as a scan finds */
	struct net_port_cfg c = { 0 };
	fx_create(&c, MAX_HOSTS);
	for (uint32_t h = 0; h < MAX_HOSTS; h++) {
		struct wire_pkt a = mk_ack(KIP, F.hosts[h].ip, F.hosts[h].mac, kmac);
		rx(f, enc(&a, f, sizeof(f)), 0);
		cr_assert_eq(F.sinks[h].n, 1, "host %u", h);
	}
	for (uint32_t h = 0; h < MAX_HOSTS - 1; h++) {
		rx(f, arp_frame(f, WIRE_ARP_REQUEST, bcast, kmac, KIP, NULL, F.hosts[h].ip), 0);
		cr_assert_arr_eq(last_arp().sha, F.hosts[h].mac, 6, "host %u", h);
	}
	rx(f, arp_frame(f, WIRE_ARP_REQUEST, bcast, kmac, KIP, NULL, F.hosts[MAX_HOSTS - 1].ip), 0);
	cr_assert_arr_eq(last_arp().sha, F.hosts[0].mac, 6);
	/* a MAC or an address none of them has */
	struct wire_pkt stranger = mk_ack(KIP, F.hosts[1].ip, gmac, kmac);
	rx(f, enc(&stranger, f, sizeof(f)), 0);
	cr_assert_eq(D(NET_PORT_RX_NOT_OUR_MAC), 1);
	rx(f, arp_frame(f, WIRE_ARP_REQUEST, bcast, kmac, KIP, NULL, 0x0a5900fe), 0);
	cr_assert_eq(D(NET_PORT_RX_ARP_OTHER_TARGET), 1);
	/* a frame from one of their own MACs is a reflection */
	struct wire_pkt own = mk_ack(KIP, F.hosts[2].ip, F.hosts[2].mac, F.hosts[40].mac);
	rx(f, enc(&own, f, sizeof(f)), 0);
	cr_assert_eq(D(NET_PORT_RX_OWN_FRAME), 1);
	cr_assert_eq(C(NET_PORT_C_RX_TO_HOST), MAX_HOSTS);
}

Test(net_port, shared_port_hosts_talk_without_the_wire)
{
	fx_init(2);
	struct wire_pkt a = mk_ack(F.hosts[0].ip, F.hosts[1].ip, bcast, F.hosts[0].mac);
	net_port_tx(F.p, 0, &a, 7, 0);
	cr_assert_eq(F.w.n, 0);
	cr_assert_eq(F.sinks[1].n, 1);
	cr_assert_arr_eq(F.sinks[1].last.dst_mac, F.hosts[1].mac, 6);
	cr_assert_eq(C(NET_PORT_C_TX_LOCAL), 1);
}

Test(net_port, pfc_from_the_port_pauses_every_host)
{
	uint8_t f[64];
	struct wire_pkt p;

	fx_init(3);
	memset(&p, 0, sizeof(p));
	p.kind = WIRE_KIND_PFC;
	memcpy(p.src_mac, kmac, 6);
	p.pfc_enable = 1;
	p.pfc_quanta[0] = 0xffff;
	rx(f, enc(&p, f, sizeof(f)), 0);
	for (uint32_t h = 0; h < 3; h++)
		cr_assert_eq(F.sinks[h].last.kind, WIRE_KIND_PFC, "host %u", h);
	cr_assert_eq(C(NET_PORT_C_RX_TO_HOST), 1);
}

/* ---- ICMP echo ---- */

static size_t echo_frame(uint8_t *f, size_t cap, uint8_t type, size_t data_len)
{
	static const uint8_t data[1500] = { 1, 2, 3 };
	struct wire_icmp m = { .src_ip = KIP, .dst_ip = 0x0a58000a, .ttl = 64, .type = type, .id = 0x77, .seq = 3,
			       .data = data, .data_len = data_len };

	memcpy(m.dst_mac, F.hosts[0].mac, 6);
	memcpy(m.src_mac, kmac, 6);
	int n = wire_icmp_encode(&m, f, cap);
	cr_assert_gt(n, 0);
	return (size_t)n;
}

Test(net_port, answers_echo_request)
{
	static uint8_t f[1600];
	struct wire_icmp r;

	fx_init(1);
	rx(f, echo_frame(f, sizeof(f), WIRE_ICMP_ECHO_REQUEST, 56), 0);
	cr_assert_eq(F.w.n, 1);
	cr_assert_eq(wire_icmp_decode(F.w.f[0], F.w.len[0], &r), WIRE_R_OK);
	cr_assert_eq(r.type, WIRE_ICMP_ECHO_REPLY);
	cr_assert_eq(r.id, 0x77);
	cr_assert_eq(r.seq, 3);
	cr_assert_eq(r.src_ip, 0x0a58000a);
	cr_assert_eq(r.dst_ip, KIP);
	cr_assert_arr_eq(r.dst_mac, kmac, 6);
	cr_assert_arr_eq(r.src_mac, F.hosts[0].mac, 6);
	cr_assert_eq(r.data_len, 56);
	cr_assert_eq(r.data[2], 3);
	cr_assert_eq(C(NET_PORT_C_ICMP_ECHO_ANSWERED), 1);
	rx(f, echo_frame(f, sizeof(f), WIRE_ICMP_ECHO_REPLY, 56), 0);
	rx(f, echo_frame(f, sizeof(f), 3, 28), 0);
	cr_assert_eq(D(NET_PORT_RX_ICMP_OTHER), 2);
	rx(f, echo_frame(f, sizeof(f), WIRE_ICMP_ECHO_REQUEST, 56) - 1, 0);
	cr_assert_eq(R(WIRE_R_BAD_IP_LEN), 1);
	cr_assert_eq(F.w.n, 1, "nothing else answered");
}

/* ---- VLAN ports: tags out, tags in ---- */

static void feed_prefixes(const uint8_t *f, size_t n);

#define VID 10

/* A VLAN port's fixture: one host, the kernel side a static neighbour (no ARP before the first frame). */
static void fx_vlan(void)
{
	static const struct net_port_static st = { .ip = KIP, .mac = { 0x52, 0x54, 0x00, 0xaa, 0xbb, 0x01 } };
	struct net_port_cfg c = { .vlan = VID, .statics = &st, .n_statics = 1 };

	fx_hosts(1);
	fx_create(&c, 1);
}

/* Frame @p f of @p n bytes tagged with @p vid and @p pcp into @p out; returns its length. */
static size_t tagged(uint8_t *out, const uint8_t *f, size_t n, uint16_t vid, uint8_t pcp)
{
	memmove(out + WIRE_VLAN_LEN, f, n);
	return wire_vlan_push(out, n, vid, pcp);
}

/* Frame k on the wire: its tag into *@p v, and decoded as UET once untagged. */
static void wire_tagged(uint32_t k, struct wire_vlan *v, struct wire_pkt *d)
{
	uint8_t u[256];

	cr_assert_eq(wire_vlan_decode(F.w.f[k], F.w.len[k], v), WIRE_R_OK, "frame %u is tagged", k);
	int n = wire_vlan_strip(F.w.f[k], F.w.len[k] < 256 ? F.w.len[k] : 256, u, sizeof(u));
	cr_assert_gt(n, 0);
	if (d != NULL)
		cr_assert_eq(wire_decode(u, (size_t)n, WIRE_UDP_PORT_UET, d), WIRE_R_OK);
}

Test(net_port, vlan_port_tags_frames_pcp_is_the_class)
{
	struct wire_vlan v;
	struct wire_pkt d, pfc;

	fx_vlan();
	for (uint8_t tc = 0; tc < 8; tc++) {
		struct wire_pkt a = mk_ack(F.hosts[0].ip, KIP, bcast, F.hosts[0].mac);
		a.tc = tc;
		net_port_tx(F.p, 0, &a, 0, 0);
		cr_assert_eq(F.w.n, tc + 1u);
		cr_assert_eq(F.w.len[tc], 78 - 4 + 4, "an ACK is 74 B without FCS, 78 B tagged");
		wire_tagged(tc, &v, &d);
		cr_assert_eq(v.vid, VID);
		cr_assert_eq(v.pcp, tc, "PCP = the frame's traffic class");
		cr_assert_eq(v.ethertype, WIRE_ETHERTYPE_IPV4);
		cr_assert_arr_eq(d.dst_mac, kmac, 6, "to the neighbour's MAC, in front of the tag");
		cr_assert_eq(d.kind, WIRE_KIND_ACK);
	}
	/* PFC goes untagged (802.1Qbb), whatever its class */
	memset(&pfc, 0, sizeof(pfc));
	pfc.kind = WIRE_KIND_PFC;
	pfc.tc = 3;
	memcpy(pfc.src_mac, F.hosts[0].mac, 6);
	net_port_tx(F.p, 0, &pfc, 0, 0);
	cr_assert_eq(wire_vlan_decode(F.w.f[8], F.w.len[8], &v), WIRE_R_NOT_VLAN);
	cr_assert_eq(F.w.len[8], WIRE_PFC_FRAME_LEN);
	cr_assert_eq(C(NET_PORT_C_TX_SENT), 9);
}

Test(net_port, vlan_port_tags_headers_payload_stays_the_pattern)
{
	struct wire_vlan v;
	struct wire_pkt data, d;
	uint8_t full[1200], want[1200];

	fx_vlan();
	data = mk_ack(F.hosts[0].ip, KIP, bcast, F.hosts[0].mac);
	data.kind = WIRE_KIND_DATA;
	data.pds.type = WIRE_PDS_RUD_CC_REQ;
	data.pds.next_hdr = WIRE_NH_REQ_STD;
	data.ses.opcode = WIRE_SES_OP_WRITE;
	data.ses.ver = 1;
	data.ses.flags = WIRE_SES_F_SOM | WIRE_SES_F_EOM;
	data.payload_len = 1024;
	data.tc = 0;
	net_port_tx(F.p, 0, &data, 0, 0);
	cr_assert_eq(F.w.n, 1);
	cr_assert_eq(F.w.len[0], 1024 + 102 + 4, "headers 102 B + tag 4 B + payload");
	wire_tagged(0, &v, NULL);
	cr_assert_eq(v.pcp, 0);
	/* the frame as the wire carries it, headers then pattern, is the tagged encoding of the whole frame */
	int n = wire_encode(&data, want + WIRE_VLAN_LEN, sizeof(want) - WIRE_VLAN_LEN);
	cr_assert_eq(n, 1126);
	memcpy(want + WIRE_VLAN_LEN, kmac, 6);
	size_t t = wire_vlan_push(want, (size_t)n, VID, 0);
	memcpy(full, F.w.f[0], 256);
	cr_assert_arr_eq(full, want, 256);
	cr_assert_eq(t, F.w.len[0]);
	cr_assert_eq(wire_vlan_strip(want, t, full, sizeof(full)), n);
	cr_assert_eq(wire_decode(full, (size_t)n, WIRE_UDP_PORT_UET, &d), WIRE_R_OK);
	cr_assert_eq(d.payload_len, 1024);
}

Test(net_port, vlan_port_answers_arp_and_ping_tagged)
{
	static uint8_t f[1600], g[1600];
	struct wire_vlan v;
	struct wire_arp a;
	struct wire_icmp r;
	uint8_t u[256];

	fx_vlan();
	size_t n = arp_frame(f, WIRE_ARP_REQUEST, bcast, gmac, GW, NULL, F.hosts[0].ip);
	rx(g, tagged(g, f, n, VID, 6), 0);
	cr_assert_eq(C(NET_PORT_C_ARP_REQUESTS_ANSWERED), 1);
	cr_assert_eq(F.w.n, 1);
	cr_assert_eq(wire_vlan_decode(F.w.f[0], F.w.len[0], &v), WIRE_R_OK);
	cr_assert_eq(v.vid, VID);
	cr_assert_eq(v.pcp, 0, "ARP and ICMP go at priority 0");
	cr_assert_eq(F.w.len[0], 64, "a 60 B ARP frame, tagged");
	cr_assert_eq(wire_vlan_strip(F.w.f[0], F.w.len[0], u, sizeof(u)), 60);
	cr_assert_eq(wire_arp_decode(u, 60, &a), WIRE_R_OK);
	cr_assert_eq(a.op, WIRE_ARP_REPLY);
	cr_assert_arr_eq(a.eth_dst, gmac, 6);
	cr_assert_eq(neigh_of(GW, 0).state, NET_NEIGH_REACHABLE, "the sender learnt through the tag");
	n = echo_frame(f, sizeof(f), WIRE_ICMP_ECHO_REQUEST, 56);
	rx(g, tagged(g, f, n, VID, 0), 0);
	cr_assert_eq(C(NET_PORT_C_ICMP_ECHO_ANSWERED), 1);
	cr_assert_eq(F.w.n, 2);
	int k = wire_vlan_strip(F.w.f[1], F.w.len[1], u, sizeof(u));
	cr_assert_eq(k, (int)n);
	cr_assert_eq(wire_icmp_decode(u, (size_t)k, &r), WIRE_R_OK);
	cr_assert_eq(r.type, WIRE_ICMP_ECHO_REPLY);
	cr_assert_eq(accounted(), 2);
}

Test(net_port, vlan_port_takes_its_vid_counts_the_rest)
{
	static uint8_t f[256], g[256];
	struct wire_pkt a = mk_ack(KIP, 0x0a58000a, (const uint8_t[6]){ 0x02, 0, 0, 0, 0, 1 }, kmac), pfc;

	fx_vlan();
	size_t n = enc(&a, f, sizeof(f));
	rx(g, tagged(g, f, n, VID, 1), 0);
	cr_assert_eq(F.sinks[0].n, 1, "its VID: to the host, without the tag");
	cr_assert_eq(F.sinks[0].last.kind, WIRE_KIND_ACK);
	rx(g, tagged(g, f, n, 20, 1), 0);
	rx(g, tagged(g, f, n, 0, 1), 0); /* a priority tag */
	cr_assert_eq(D(NET_PORT_RX_VLAN_OTHER), 2);
	rx(f, n, 0);
	size_t m = arp_frame(g, WIRE_ARP_REQUEST, bcast, kmac, KIP, NULL, 0x0a58000a);
	rx(g, m, 0);
	cr_assert_eq(D(NET_PORT_RX_VLAN_UNTAGGED), 2, "untagged UET and ARP are not for the VLAN's hosts");
	cr_assert_eq(C(NET_PORT_C_ARP_REQUESTS_ANSWERED), 0);
	tagged(g, f, n, VID, 1);
	rx(g, 17, 0);
	cr_assert_eq(R(WIRE_R_SHORT_VLAN), 1);
	/* PFC, untagged as 802.1Qbb sends it, pauses the host; tagged with the VID too */
	memset(&pfc, 0, sizeof(pfc));
	pfc.kind = WIRE_KIND_PFC;
	memcpy(pfc.src_mac, kmac, 6);
	pfc.pfc_enable = 1u << 3;
	pfc.pfc_quanta[3] = 0xffff;
	n = enc(&pfc, f, sizeof(f));
	rx(f, n, 0);
	cr_assert_eq(F.sinks[0].last.kind, WIRE_KIND_PFC);
	cr_assert_eq(F.sinks[0].last.pfc_enable, 1u << 3, "priority 3 only");
	rx(g, tagged(g, f, n, VID, 3), 0);
	cr_assert_eq(F.sinks[0].n, 3);
	cr_assert_eq(C(NET_PORT_C_RX_TO_HOST), 3);
	cr_assert_eq(accounted(), 8);
	cr_assert_eq(F.w.n, 0, "nothing answered off the VLAN");
}

Test(net_port, vlan_port_truncated_at_every_byte)
{
	static uint8_t f[256], g[256];
	struct wire_pkt a = mk_ack(KIP, 0x0a58000a, (const uint8_t[6]){ 0x02, 0, 0, 0, 0, 1 }, kmac);

	fx_vlan();
	feed_prefixes(g, tagged(g, f, enc(&a, f, sizeof(f)), VID, 1));
	cr_assert_eq(C(NET_PORT_C_RX_TO_HOST), 0);
	feed_prefixes(g, tagged(g, f, arp_frame(f, WIRE_ARP_REQUEST, bcast, kmac, KIP, NULL, 0x0a58000a), VID, 0));
	cr_assert_eq(C(NET_PORT_C_ARP_REQUESTS_ANSWERED), 64 - 46, "the cuts of 46 B or more carry a whole request");
}

Test(net_port, vlan_id_out_of_range_refused)
{
	struct net_port_cfg c = { .vlan = WIRE_VLAN_VID_MAX + 1 };

	fx_hosts(1);
	c.np = &F.np;
	c.hosts = F.hosts;
	c.n_hosts = 1;
	c.emit = on_emit;
	errno = 0;
	cr_assert_null(net_port_create(&c));
	cr_assert_eq(errno, EINVAL);
	c.vlan = WIRE_VLAN_VID_MAX; /* the highest id is taken */
	F.p = net_port_create(&c);
	cr_assert_not_null(F.p);
}

/* ---- every other frame, counted once ---- */

Test(net_port, every_drop_reason)
{
	uint8_t f[256];
	struct wire_pkt a = mk_ack(KIP, 0x0a58000a, (const uint8_t[6]){ 0x02, 0, 0, 0, 0, 1 }, kmac);
	size_t n;

	fx_init(1);
	n = enc(&a, f, sizeof(f));
	f[12] = 0x86, f[13] = 0xdd;
	rx(f, n, 0);
	f[12] = 0x88, f[13] = 0xcc; /* LLDP */
	rx(f, n, 0);
	n = enc(&a, f, sizeof(f));
	f[36] = 0x12, f[37] = 0xb7; /* UDP to 4791 */
	rx(f, n, 0);
	n = enc(&a, f, sizeof(f));
	f[23] = 6; /* TCP, checksum left wrong */
	rx(f, n, 0);
	f[24] = f[25] = 0;
	uint16_t c = wire_csum(f + 14, 20);
	f[24] = (uint8_t)(c >> 8), f[25] = (uint8_t)c;
	rx(f, n, 0);
	cr_assert_eq(D(NET_PORT_RX_IPV6), 1);
	cr_assert_eq(D(NET_PORT_RX_OTHER_ETHERTYPE), 1);
	cr_assert_eq(D(NET_PORT_RX_UDP_OTHER_PORT), 1);
	cr_assert_eq(R(WIRE_R_BAD_IP_CSUM), 1);
	cr_assert_eq(D(NET_PORT_RX_IP_OTHER_PROTO), 1);
	cr_assert_eq(F.w.n, 0);
	cr_assert_eq(accounted(), 5);
	cr_assert_eq(F.np.counters[NET_C_EXT_RX_BAD_FRAME], 1);
}

/* Feed every prefix of @p f (heap copies of the exact size) and check each is counted once. */
static void feed_prefixes(const uint8_t *f, size_t n)
{
	uint64_t before = accounted();

	for (size_t cut = 0; cut < n; cut++) {
		uint8_t *c = malloc(cut ? cut : 1);
		cr_assert_not_null(c);
		memcpy(c, f, cut);
		rx(c, cut, 0);
		free(c);
	}
	cr_assert_eq(accounted() - before, n, "every cut counted once");
}

Test(net_port, truncated_at_every_byte)
{
	static uint8_t f[1600];
	struct wire_pkt a = mk_ack(KIP, 0x0a58000a, (const uint8_t[6]){ 0x02, 0, 0, 0, 0, 1 }, kmac);

	fx_init(1);
	feed_prefixes(f, arp_frame(f, WIRE_ARP_REQUEST, bcast, kmac, KIP, NULL, 0x0a58000a));
	/* only the 18 cuts of 42 bytes or more carry a whole request */
	cr_assert_eq(C(NET_PORT_C_ARP_REQUESTS_ANSWERED), 60 - 42);
	feed_prefixes(f, echo_frame(f, sizeof(f), WIRE_ICMP_ECHO_REQUEST, 56));
	cr_assert_eq(C(NET_PORT_C_ICMP_ECHO_ANSWERED), 0);
	feed_prefixes(f, enc(&a, f, sizeof(f)));
	cr_assert_eq(C(NET_PORT_C_RX_TO_HOST), 0);
	cr_assert_eq(F.sinks[0].n, 0);
}

Test(net_port, random_bytes_counted_never_crash)
{
	uint64_t s = 0x9e3779b97f4a7c15ULL;
	uint8_t f[300];

	fx_init(2);
	for (uint32_t i = 0; i < 50000; i++) {
		s ^= s >> 12, s ^= s << 25, s ^= s >> 27;
		size_t n = (size_t)((s * 0x2545F4914F6CDD1DULL) % sizeof(f));
		for (size_t k = 0; k < n; k++) {
			s ^= s >> 12, s ^= s << 25, s ^= s >> 27;
			f[k] = (uint8_t)(s * 0x2545F4914F6CDD1DULL);
		}
		if (n >= 14 && i % 3 == 0)
			memcpy(f, F.hosts[i % 2].mac, 6); /* to a host: reach the IPv4 and ARP paths */
		if (n >= 14 && i % 5 == 0)
			f[12] = 0x08, f[13] = (uint8_t)(i % 10 == 0 ? 0x06 : 0x00);
		rx(f, n, (emu_ps_t)i * MS);
		net_port_tick(F.p, (emu_ps_t)i * MS);
	}
	cr_assert_eq(accounted(), 50000);
}

/* Put into frame @p f (Ethernet, IPv4, UDP) the partial checksum of TX offload: the pseudo-header sum, folded. */
static void partial_csum(uint8_t *f)
{
	uint8_t ph[12];
	size_t ulen = (size_t)f[38] << 8 | f[39];

	memcpy(ph, f + 26, 8);
	ph[8] = 0;
	ph[9] = 17;
	ph[10] = (uint8_t)(ulen >> 8);
	ph[11] = (uint8_t)ulen;
	uint16_t c = (uint16_t)~wire_csum(ph, sizeof(ph));
	f[40] = (uint8_t)(c >> 8);
	f[41] = (uint8_t)c;
}

/* rx_csum: offload takes a partial checksum and counts it; verify refuses it; ignore takes a wrong one, counted. */
Test(net_port, rx_csum_modes_count_what_they_take)
{
	static const uint8_t modes[] = { WIRE_CSUM_OFFLOAD, WIRE_CSUM_VERIFY, WIRE_CSUM_IGNORE };
	uint8_t f[128];

	for (size_t m = 0; m < sizeof(modes); m++) {
		struct net_port_cfg c = { .rx_csum = modes[m] };
		struct wire_pkt a = mk_ack(KIP, 0x0a58000au, (const uint8_t[6]){ 0x02, 0, 0, 0, 0, 1 }, kmac);
		size_t n;

		fx_hosts(1);
		fx_create(&c, 1);
		n = enc(&a, f, sizeof(f));
		partial_csum(f);
		rx(f, n, 0);
		f[41] ^= 1; /* neither right nor partial */
		rx(f, n, 0);
		f[40] = f[41] = 0; /* not computed */
		rx(f, n, 0);
		if (modes[m] == WIRE_CSUM_OFFLOAD) {
			cr_assert_eq(C(NET_PORT_C_RX_CSUM_PARTIAL), 1);
			cr_assert_eq(R(WIRE_R_BAD_UDP_CSUM), 1);
			cr_assert_eq(F.sinks[0].n, 2);
		} else if (modes[m] == WIRE_CSUM_VERIFY) {
			cr_assert_eq(C(NET_PORT_C_RX_CSUM_PARTIAL), 0);
			cr_assert_eq(R(WIRE_R_BAD_UDP_CSUM), 2);
			cr_assert_eq(F.sinks[0].n, 1);
		} else {
			cr_assert_eq(C(NET_PORT_C_RX_CSUM_UNVERIFIED), 2);
			cr_assert_eq(R(WIRE_R_BAD_UDP_CSUM), 0);
			cr_assert_eq(F.sinks[0].n, 3);
		}
		cr_assert_eq(accounted(), 3);
		fx_fini();
	}
}
