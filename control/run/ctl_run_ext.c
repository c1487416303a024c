/*
 * The model side of a run's real ports, shared by real time (ctl_run_rt.c, whose ports are DPDK's) and by the
 * re-run of a recorded session (ctl_run_rerun.c, whose ports play the session log): the hosts' links whose far end
 * is a port, the port's IPv4 side, a switch port's link, and what a frame crossing them does. Frames cross the port
 * through its binding (net_bind.h) in bursts; docs/realtime.md, "A frame's path", follows one.
 */
#include "ctl_run_pvt.h"
#include "ctl_run_cap_pvt.h"
#include "ctl_run_ext_pvt.h"
#include "ctl_run_rec_pvt.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the taps: dev captures and the session log, called only when x->tap is set ---- */

/* A frame port @p x sends at emulated time @p now (its @p len header bytes, then @p payload pattern bytes), made
 * whole in x->whole when it is not already. */
static void tap_tx(struct ctl_ext *x, const uint8_t *hdr, size_t len, size_t payload, emu_ps_t now)
{
	struct ctl_run_state *r = x->run;

	if (hdr != x->whole) {
		memcpy(x->whole, hdr, len);
		wire_payload_fill(x->whole + len, payload);
	}
	ctl_run_cap_port(x, x->whole, len + payload, false, now);
	ctl_run_rec_frame(r, (uint32_t)(x - r->exts), x->whole, len + payload, false, now);
}

/* A frame that arrived on port @p x, bad ones too. */
static void tap_rx(struct ctl_ext *x, const struct net_rx_frame *f)
{
	struct ctl_run_state *r = x->run;

	ctl_run_cap_port(x, f->data, f->len, true, f->t);
	ctl_run_rec_frame(r, (uint32_t)(x - r->exts), f->data, f->len, true, f->t);
}

/* ---- out of the port ---- */

/* A frame from the port's IPv4 side (net_port_emit_fn): tapped, then staged on the port. Stamped with the emulated
 * time of the model's call that made it (emit_now). */
static void port_emit(void *arg, const uint8_t *hdr, size_t len, size_t payload)
{
	struct ctl_ext *x = arg;
	const struct net_tx_frame f = { .hdr = hdr, .len = (uint32_t)len, .payload = (uint32_t)payload };

	if (__builtin_expect(x->tap, 0))
		tap_tx(x, hdr, len, payload, x->emit_now);
	x->bind.ops->tx_burst(x->bind.port, &f, 1);
}

/* A frame a host's NIC sends off its port: to the port's IPv4 side, which resolves its next hop and encodes it. */
static void ext_tx(void *arg, const struct wire_pkt *pkt, emu_ps_t now)
{
	struct ctl_ext_host *eh = arg;
	struct ctl_ext *x = eh->port;

	x->emit_now = now;
	if (__builtin_expect(x->tap, 0)) /* the port's IPv4 side reads the wall clock: this pass goes in the log */
		ctl_run_rec_touch(x->run);
	net_port_tx(x->stack, eh->slot, pkt, now, x->lc->wall_now);
}

/*
 * A frame a switch sends to the device behind port @p arg: its headers encoded in x->hdr with the payload pattern
 * to follow, or (a CRC or ICRC trailer covers the payload) the whole frame in x->whole; tapped, then staged.
 */
static void sw_tx(void *arg, const struct wire_pkt *pkt, emu_ps_t now)
{
	struct ctl_ext *x = arg;
	/* a CRC or ICRC trailer follows the payload, or a real device's frame (RAW): the whole frame. A RAW frame is
	 * re-emitted in its own buffer (what the switch changed rewritten in place: the packet ends here), not copied
	 * into x->whole first. */
	const bool raw = pkt->kind == WIRE_KIND_RAW && pkt->raw.buf != NULL;
	bool hdrs = !wire_has_trailer(pkt) && pkt->kind != WIRE_KIND_RAW;
	uint8_t *out = hdrs ? x->hdr : raw ? pkt->raw.buf : x->whole;
	int n = hdrs ? wire_encode_hdrs(pkt, x->hdr, sizeof(x->hdr)) :
		raw  ? wire_raw_encode(pkt, out, WIRE_MAX_FRAME) : wire_encode(pkt, x->whole, sizeof(x->whole));

	if (n <= 0)
		return;
	if (wire_fabric_class(pkt) >= 0)
		x->sw_tx_class[wire_fabric_class(pkt)]++;
	const struct net_tx_frame f = { .hdr = out, .len = (uint32_t)n,
					.payload = hdrs ? (uint32_t)(wire_frame_len(pkt) - (size_t)n) : 0 };

	if (__builtin_expect(x->tap, 0))
		tap_tx(x, f.hdr, f.len, f.payload, now);
	/* zero-copy forwarding: the frame was rewritten in the buffer it came in (a port's, net_pkt_raw_keep()),
	 * which this port sends as it is; the descriptor, freed after this call, no longer holds it */
	void *ref = raw && pkt->raw.buf_ref != NULL && x->bind.ops->tx_buf != NULL ?
			    net_pkt_ref_take(x->lc->np, pkt, x->bind.ops) : NULL;

	if (ref != NULL)
		x->bind.ops->tx_buf(x->bind.port, ref, f.len);
	else
		x->bind.ops->tx_burst(x->bind.port, &f, 1);
}

/* ---- hellos on a link to another process (docs/realtime.md, When a peer fails) ---- */

static void put32(uint8_t *b, uint32_t v)
{
	b[0] = (uint8_t)(v >> 24);
	b[1] = (uint8_t)(v >> 16);
	b[2] = (uint8_t)(v >> 8);
	b[3] = (uint8_t)v;
}

static uint32_t get32(const uint8_t *b)
{
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

/* Our hello (CTL_PEER_HELLO) or bye (CTL_PEER_BYE) on port @p x, staged on its binding; not tapped (the dev
 * captures hold what the models send and take). From 02:75:65:74:00:NN ("uet", NN the port's index). */
static void peer_tx(struct ctl_ext *x, uint8_t kind)
{
	struct ctl_run_state *r = x->run;
	uint8_t f[60] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, 'u', 'e', 't', 0, (uint8_t)(x - r->exts),
			  CTL_PEER_ETHERTYPE >> 8, CTL_PEER_ETHERTYPE & 0xff, 'U', 'E', 'T', 'P', CTL_PEER_VERSION, kind };
	const struct net_tx_frame t = { .hdr = f, .len = sizeof(f), .payload = 0 };

	put32(f + 20, x->peer_seq++);
	put32(f + 24, (uint32_t)(CTL_PEER_HELLO_PS / EMU_PS_PER_MS));
	put32(f + 28, (uint32_t)r->part);
	x->bind.ops->tx_burst(x->bind.port, &t, 1);
	x->peer_st.c[CTL_PEER_C_HELLOS_SENT]++;
}

/* A frame of the hello ethertype from port @p x: a hello or a bye refreshes the other process's liveness (and
 * gives its interval); anything else is counted and ignored. */
static void peer_rx(struct ctl_ext *x, const struct net_rx_frame *f)
{
	const uint8_t *b = f->data;

	if (f->len < 32 || memcmp(b + 14, "UETP", 4) != 0 || b[18] != CTL_PEER_VERSION ||
	    (b[19] != CTL_PEER_HELLO && b[19] != CTL_PEER_BYE) || get32(b + 24) == 0 || get32(b + 24) > 60000) {
		x->peer_st.c[CTL_PEER_C_BAD_HELLOS]++;
		return;
	}
	x->peer_st.c[CTL_PEER_C_HELLOS_RECEIVED]++;
	x->peer_st.c[CTL_PEER_C_BYES_RECEIVED] += b[19] == CTL_PEER_BYE;
	x->peer_st.last_rx = x->lc->wall_now;
	x->peer_ivl = (emu_ps_t)get32(b + 24) * EMU_PS_PER_MS;
}

/* Port @p x's hellos at its lcore's wall clock: ours when due; the other process lost when none has come for
 * peer_timeout past the next one's due time; while none has come yet, three times as long from the start (the
 * other process may still be starting: its EAL, its ports). */
static void peer_tick(struct ctl_ext *x)
{
	struct ctl_run_state *r = x->run;
	const emu_ps_t wall = x->lc->wall_now, to = r->cfg->ports[x - r->exts].peer_timeout;
	uint32_t none = 0;

	if (wall >= x->peer_next_tx) {
		peer_tx(x, CTL_PEER_HELLO);
		x->peer_next_tx = wall + CTL_PEER_HELLO_PS;
	}
	const bool heard = x->peer_st.c[CTL_PEER_C_HELLOS_RECEIVED] != 0;
	const emu_ps_t due = heard ? x->peer_st.last_rx + x->peer_ivl + to : x->peer_ivl + 3 * to;

	if (to == 0 || x->peer_st.lost || wall <= due)
		return;
	x->peer_st.lost = true;
	__atomic_compare_exchange_n(&r->peer_lost, &none, (uint32_t)(x - r->exts) + 1, false, __ATOMIC_RELEASE,
				    __ATOMIC_RELAXED);
}

void ctl_run_ext_bye(struct ctl_run_state *r)
{
	for (uint32_t i = 0; i < r->n_exts; i++) {
		struct ctl_ext *x = &r->exts[i];

		if (x->off || !x->peer)
			continue;
		peer_tx(x, CTL_PEER_BYE);
		x->bind.ops->flush(x->bind.port);
	}
}

void ctl_run_ext_peer_lost_say(const struct ctl_run_state *r, uint32_t i)
{
	const struct ctl_ext *x = &r->exts[i];
	const struct ctl_port *cp = &r->cfg->ports[i];
	const struct ctl_peer_stats *st = &x->peer_st;
	const double ivl = (double)x->peer_ivl / 1e12, to = (double)cp->peer_timeout / 1e12;

	fprintf(stderr, "[uetemu] port %s (%s:%u, the link to %s): ", cp->dev, r->topo->devs[cp->sw_dev].name,
		cp->sw_port, r->topo->devs[cp->sw_peer].name);
	if (st->c[CTL_PEER_C_HELLOS_RECEIVED] == 0) {
		fprintf(stderr, "no hello from the other process at all (the first was due at %.1f s; waited three "
				"times peer_timeout %.1f s): it has not started, or cannot reach this one; the run stops\n",
			ivl, to);
		return;
	}
	fprintf(stderr, "no hello from the other process since %.1f s (the next was due at %.1f s, peer_timeout %.1f "
			"s): it has %s; the run stops\n", (double)st->last_rx / 1e12, (double)st->last_rx / 1e12 + ivl, to,
		st->c[CTL_PEER_C_BYES_RECEIVED] ? "ended its run (its last hello said so)"
						: "gone (killed, hung, or its link cut)");
}

/* ---- into the port ---- */

/* A burst from a port with hosts: each frame answered, handed to its host's NIC at its time, or counted. */
static void host_rx(struct ctl_ext *x, const struct net_rx_frame *f, unsigned n)
{
	const struct run_lcore *lc = x->lc;

	for (unsigned i = 0; i < n; i++) {
		if (__builtin_expect(x->tap, 0))
			tap_rx(x, &f[i]);
		x->emit_now = f[i].t;
		net_port_rx(x->stack, f[i].data, f[i].len, f[i].t, lc->wall_now);
	}
}

/* Whether @p ip is an external host's address: a real device behind a switch port (of this process or another). */
static bool ext_host_ip(const struct ctl_config *cfg, uint32_t ip)
{
	for (uint32_t k = 0; k < cfg->n_ports; k++)
		if (cfg->ports[k].sw && cfg->ports[k].sw_host != UINT32_MAX && cfg->hosts[cfg->ports[k].sw_host].ip == ip)
			return true;
	return false;
}

/* Whether @p ip is one of the external hosts' addresses port @p x keeps (ctl_run_ext_bind_switch()). */
static inline bool ext_ip_has(const struct ctl_ext *x, uint32_t ip)
{
	for (uint32_t k = 0; k < x->n_ext_ip; k++)
		if (x->ext_ip[k] == ip)
			return true;
	return false;
}

/*
 * Real devices across the fabric (docs/realtime.md): a frame to another real device, or one the decoder refuses
 * that is still IPv4 or ARP, enters as WIRE_KIND_RAW with its own bytes, in the port's buffer when the port hands
 * it over (net_pkt_raw_keep(): zero-copy forwarding), else copied; the models' own frames to
 * emulated hosts are decoded as before. Returns the descriptor, or NULL with the frame counted.
 */
static struct wire_pkt *sw_rx_take(struct ctl_ext *x, const struct wire_rx_cfg *rx, const struct net_rx_frame *f)
{
	const uint8_t *frame = f->data;
	const size_t len = f->len;
	struct ctl_run_state *r = x->run;
	struct net_part *np = x->lc->np;
	struct wire_pkt *pkt;
	struct wire_rx_info info;
	int rc;

	/* An untagged IPv4 frame to a real device goes across as it is (RAW) whatever it holds: described from its
	 * bytes at once, without the full decode and the descriptor it would fill only to be given back. Should its
	 * bytes not describe (refused), the decode below names the reason, as it did before. */
	if (len >= WIRE_ETH_LEN + WIRE_IPV4_LEN && frame[12] == (WIRE_ETHERTYPE_IPV4 >> 8) &&
	    frame[13] == (WIRE_ETHERTYPE_IPV4 & 0xff) && x->n_ext_ip > 0 &&
	    ext_ip_has(x, (uint32_t)frame[30] << 24 | (uint32_t)frame[31] << 16 | (uint32_t)frame[32] << 8 | frame[33])) {
		int why;

		if ((pkt = net_pkt_raw_keep(np, &x->bind, f, r->cfg->nic.udp_port, &why)) != NULL || why == WIRE_R_OK)
			return pkt; /* NULL: a pool was empty (counted) */
	}
	if ((pkt = net_pkt_alloc(np)) == NULL)
		return NULL;
	rc = wire_decode_rx(frame, len, rx, pkt, &info); /* the frame's one decode (a second only to describe it raw) */
	if (rc == WIRE_R_OK && (pkt->kind == WIRE_KIND_PFC || !ext_host_ip(r->cfg, pkt->dst_ip))) {
		x->sw_rx_csum[0] += info.udp_csum == WIRE_CSUM_SEEN_PARTIAL;
		x->sw_rx_csum[1] += info.udp_csum == WIRE_CSUM_SEEN_UNVERIFIED;
		return pkt;
	}
	net_pkt_free(np, pkt);
	int why = rc;

	if ((pkt = net_pkt_raw_keep(np, &x->bind, f, r->cfg->nic.udp_port, &why)) != NULL || why == WIRE_R_OK)
		return pkt; /* NULL: a pool was empty (counted) */
	rc = rc == WIRE_R_OK ? why : rc;
	x->sw_rx_refused[rc < WIRE_R_COUNT ? rc : 0]++;
	np->counters[NET_C_EXT_RX_BAD_FRAME]++;
	return NULL;
}

/* A burst from the device behind a switch port: each frame decoded (a bad one counted by reason) and handed to the
 * switch port at its time; a real device's frame the models do not know as RAW (sw_rx_take()). */
static void sw_rx(struct ctl_ext *x, const struct net_rx_frame *f, unsigned n)
{
	struct ctl_run_state *r = x->run;
	const struct wire_rx_cfg rx = { .uet_port = r->cfg->nic.udp_port, .crc = r->cfg->nic.crc_trailer,
					.crc_ip = r->cfg->nic.crc_coverage == NIC_CRC_COV_REFPROV,
					.roce_icrc = r->cfg->roce.icrc, .roce_reth = r->cfg->roce.reth,
					.udp_csum = r->cfg->ports[x - r->exts].rx_csum };
	/* from another process's switch: the link's serialization and delay are still to come, as in one process */
	const bool remote = r->cfg->ports[x - r->exts].sw_host == UINT32_MAX;
	struct net_dir *d = &x->sw_link->dir[1 - x->sw_end];

	for (unsigned i = 0; i < n; i++) {
		struct wire_pkt *pkt;

		if (x->peer && f[i].len >= 14 && f[i].data[12] == CTL_PEER_ETHERTYPE >> 8 &&
		    f[i].data[13] == (CTL_PEER_ETHERTYPE & 0xff)) {
			peer_rx(x, &f[i]);
			continue;
		}
		if (__builtin_expect(x->tap, 0))
			tap_rx(x, &f[i]);
		if ((pkt = sw_rx_take(x, &rx, &f[i])) == NULL)
			continue;
		if (wire_fabric_class(pkt) >= 0)
			x->sw_rx_class[wire_fabric_class(pkt)]++;
		if (remote)
			net_dir_inject_link(d, pkt, f[i].t);
		else
			net_dir_inject(d, pkt, f[i].t);
	}
}

void ctl_run_ext_poll(struct ctl_ext *x)
{
	struct net_rx_frame f[NET_BIND_BURST];
	unsigned n = NET_BIND_BURST;

	for (int b = 0; b < NET_BIND_DRAIN_BURSTS && n == NET_BIND_BURST; b++) {
		n = x->bind.ops->rx_burst(x->bind.port, f, NET_BIND_BURST, x->lc->rt_now);
		if (x->stack != NULL)
			host_rx(x, f, n);
		else
			sw_rx(x, f, n);
	}
	if (x->stack != NULL) { /* the port's ARP timers */
		x->emit_now = x->lc->rt_now;
		net_port_tick(x->stack, x->lc->wall_now);
	}
	if (x->peer)
		peer_tick(x);
}

void ctl_run_ext_flush(struct ctl_ext *x)
{
	x->bind.ops->flush(x->bind.port);
}

void ctl_run_ext_start(struct ctl_run_state *r)
{
	for (uint32_t i = 0; i < r->n_exts; i++) {
		struct ctl_ext *x = &r->exts[i];

		if (x->off)
			continue;
		x->tap = ctl_run_cap_port_on(r, i) || ctl_run_rec_on(r);
		if (x->stack != NULL)
			net_port_start(x->stack, 0);
	}
}

/* ---- binding ---- */

void ctl_run_ext_bind_switch(struct ctl_run_state *r, uint32_t i)
{
	const struct ctl_port *cp = &r->cfg->ports[i];
	struct ctl_ext *x = &r->exts[i];

	x->run = r;
	x->sw_link = &r->links[cp->sw_link];
	x->sw_end = r->topo->links[cp->sw_link].a.dev == cp->sw_dev ? 0 : 1;
	x->sw_link->dir[x->sw_end].ext = sw_tx;
	x->sw_link->dir[x->sw_end].ext_arg = x;
	/* a link to another process's switch (--partition): hellos both ways */
	x->peer = r->part >= 0 && !r->rerun && cp->sw_host == UINT32_MAX;
	x->peer_ivl = CTL_PEER_HELLO_PS;
	/* real devices' frames (sw_rx_take()): bounded; should the pool not be made, each is a counted drop */
	(void)net_part_raw_init(x->lc->np, NET_RAW_BUFS);
	/* the external hosts' addresses, for sw_rx_take()'s look at a frame's destination (ext_host_ip()'s, kept) */
	x->n_ext_ip = 0;
	for (uint32_t k = 0; k < r->cfg->n_ports && x->n_ext_ip < CTL_EXT_IP_MAX; k++)
		if (r->cfg->ports[k].sw && r->cfg->ports[k].sw_host != UINT32_MAX)
			x->ext_ip[x->n_ext_ip++] = r->cfg->hosts[r->cfg->ports[k].sw_host].ip;
	if (x->n_ext_ip < CTL_EXT_IP_MAX)
		return;
	x->n_ext_ip = 0; /* more than it keeps: every frame takes the decode, which asks ext_host_ip() */
}

/*
 * Host @p h of port @p cp as the port's IPv4 side sees it. Its gateway is its own, else the port's; its subnet is
 * ip/prefix as written, else /32 with a gateway (every other address through it), else every address on-link.
 */
static struct net_port_host port_host(const struct ctl_config *cfg, const struct ctl_port *cp, uint32_t h,
				      struct net_dir *rx)
{
	const struct ctl_host *ch = &cfg->hosts[h];
	struct net_port_host ph = { .ip = ch->ip, .gateway = ch->gateway ? ch->gateway : cp->gateway, .rx = rx };

	memcpy(ph.mac, ch->mac, 6);
	ph.prefix_len = ch->has_prefix ? ch->prefix_len : ph.gateway != 0 ? 32 : 0;
	return ph;
}

/* Port @p cp's static neighbours: its neighbour_macs, then the hosts with a mac: in the config that are not on
 * it (an address named twice keeps its first MAC). Returns how many. */
static uint32_t port_statics(const struct ctl_config *cfg, const struct ctl_port *cp, struct net_port_static *out)
{
	uint32_t n = 0;

	for (uint32_t k = 0; k < cp->n_neigh_macs; k++, n++) {
		out[n].ip = cp->neigh_macs[k].ip;
		memcpy(out[n].mac, cp->neigh_macs[k].mac, 6);
	}

	for (uint32_t h = 0; h < cfg->n_hosts; h++) {
		bool here = false;
		for (uint32_t k = 0; k < cp->n_hosts; k++)
			here |= cp->hosts[k] == h;
		if (!cfg->hosts[h].mac_static || here)
			continue;
		out[n].ip = cfg->hosts[h].ip;
		memcpy(out[n].mac, cfg->hosts[h].mac, 6);
		n++;
	}
	return n;
}

int ctl_run_ext_bind(struct ctl_run_state *r, uint32_t i, char *err, size_t errlen)
{
	const struct ctl_config *cfg = r->cfg;
	const struct ctl_port *cp = &cfg->ports[i];
	struct ctl_ext *x = &r->exts[i];
	struct net_port_host hosts[CTL_PORT_HOSTS_MAX];
	/* what its hosts' NICs expect (a peer profile's trailer): the first host's; a port's hosts share a wire */
	const struct nic_params *hn = cp->n_hosts > 0 ? ctl_run_host_nic(r, cp->hosts[0]) : &cfg->nic;

	x->run = r;
	x->hosts = calloc(cp->n_hosts, sizeof(*x->hosts));
	struct net_port_static *statics = calloc(cfg->n_hosts + cp->n_neigh_macs, sizeof(*statics));
	if (x->hosts == NULL || statics == NULL) {
		free(statics);
		snprintf(err, errlen, "port \"%s\": out of memory", cp->dev);
		return -ENOMEM;
	}
	x->n_hosts = cp->n_hosts;
	for (uint32_t k = 0; k < cp->n_hosts; k++) {
		struct ctl_ext_host *eh = &x->hosts[k];
		uint32_t h = cp->hosts[k];
		struct net_endpoint nic = ctl_run_host_ep(r, h);

		*eh = (struct ctl_ext_host){ .port = x, .slot = k, .host = h };
		net_link_init(&eh->link, x->lc->np, ctl_config_host_bps(cfg), 0, nic, (struct net_endpoint){ 0 });
		eh->link.dir[0].ext = ext_tx;
		eh->link.dir[0].ext_arg = eh;
		ctl_run_host_attach(r, h, &eh->link.dir[0]);
		hosts[k] = port_host(cfg, cp, h, &eh->link.dir[1]);
	}
	uint32_t n_statics = port_statics(cfg, cp, statics);

	/* neighbours: static: a host's gateway must be among them, or every frame off its subnet would be dropped */
	for (uint32_t k = 0; cp->neigh_static && k < cp->n_hosts; k++) {
		uint32_t gw = hosts[k].gateway, s = 0;

		while (gw != 0 && s < n_statics && statics[s].ip != gw)
			s++;
		if (gw != 0 && s == n_statics) {
			snprintf(err, errlen, "ports.%u has neighbours: static, but %s's gateway %u.%u.%u.%u has no MAC "
				 "in the config: give it in neighbour_macs, e.g. [{ip: %u.%u.%u.%u, mac: \"...\"}]", i,
				 cfg->hosts[cp->hosts[k]].name, gw >> 24, (gw >> 16) & 255, (gw >> 8) & 255, gw & 255,
				 gw >> 24, (gw >> 16) & 255, (gw >> 8) & 255, gw & 255);
			free(statics);
			return -EINVAL;
		}
	}
	struct net_port_cfg pc = { .np = x->lc->np, .hosts = hosts, .n_hosts = cp->n_hosts, .statics = statics,
				   .n_statics = n_statics, .uet_port = cfg->nic.udp_port,
				   .crc = hn->crc_trailer, .crc_ip = hn->crc_coverage == NIC_CRC_COV_REFPROV, .vlan = cp->vlan,
				   .roce = ctl_config_nic_model(cfg)->rocev2,
				   .roce_icrc = cfg->roce.icrc, .roce_reth = cfg->roce.reth, .rx_csum = cp->rx_csum,
				   .static_only = cp->neigh_static, .emit = port_emit, .emit_arg = x };
	x->stack = net_port_create(&pc);
	free(statics);
	if (x->stack == NULL) {
		snprintf(err, errlen, "port \"%s\": out of memory for its neighbour table", cp->dev);
		return -ENOMEM;
	}
	return 0;
}

void ctl_run_ext_free(struct ctl_run_state *r)
{
	for (uint32_t i = 0; r->exts != NULL && i < r->cfg->n_ports; i++) {
		net_port_destroy(r->exts[i].stack);
		free(r->exts[i].hosts);
	}
	free(r->exts);
	r->exts = NULL;
	r->n_exts = 0;
}
