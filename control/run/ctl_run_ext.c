/*
 * The model side of a run's DPDK ports, shared by real time (ctl_run_rt.c, which moves the frames on DPDK) and by
 * the re-run of a recorded session (ctl_run_rerun.c, which takes them from the session log): the hosts' links
 * whose far end is a port, the port's IPv4 side, a switch port's link, and what a frame crossing them does.
 */
#include "ctl_run_pvt.h"
#include "ctl_run_cap_pvt.h"
#include "ctl_run_ext_pvt.h"
#include "ctl_run_rec_pvt.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A frame a host's NIC sends off its port: to the port's IPv4 side, which resolves its next hop and encodes it. */
static void ext_tx(void *arg, const struct wire_pkt *pkt, emu_ps_t now)
{
	struct ctl_ext_host *eh = arg;
	struct ctl_ext *x = eh->port;

	x->emit_now = now;
	ctl_run_rec_touch(x->run); /* the port's IPv4 side reads the wall clock: this pass goes in the session log */
	net_port_tx(x->stack, eh->slot, pkt, now, x->lc->wall_now);
}

void ctl_run_ext_cap_tx(struct ctl_ext *x, const uint8_t *hdr, size_t len, size_t payload, emu_ps_t now)
{
	struct ctl_run_state *r = x->run;
	bool cap = ctl_run_cap_port_on(r, (uint32_t)(x - r->exts));

	if (!cap && r->rec == NULL)
		return;
	if (hdr != x->whole) {
		memcpy(x->whole, hdr, len);
		wire_payload_fill(x->whole + len, payload);
	}
	ctl_run_cap_port(x, x->whole, len + payload, false, now);
	ctl_run_rec_frame(r, (uint32_t)(x - r->exts), x->whole, len + payload, false, now);
}

void ctl_run_ext_rx(struct ctl_ext *x, const uint8_t *frame, size_t len)
{
	struct ctl_run_state *r = x->run;
	const struct run_lcore *lc = x->lc;

	ctl_run_cap_port(x, frame, len, true, lc->rt_now); /* captures: dev (ctl_run_cap.c) */
	ctl_run_rec_frame(r, (uint32_t)(x - r->exts), frame, len, true, lc->rt_now);
	x->emit_now = lc->rt_now;
	net_port_rx(x->stack, frame, len, lc->rt_now, lc->wall_now);
}

void ctl_run_ext_tick(struct ctl_ext *x)
{
	x->emit_now = x->lc->rt_now;
	net_port_tick(x->stack, x->lc->wall_now);
}

void ctl_run_ext_sw_rx(struct ctl_ext *x, const uint8_t *frame, size_t len)
{
	struct ctl_run_state *r = x->run;
	struct run_lcore *lc = x->lc;
	struct wire_pkt *pkt;

	ctl_run_cap_port(x, frame, len, true, lc->rt_now); /* captures: dev (ctl_run_cap.c), bad frames too */
	ctl_run_rec_frame(r, (uint32_t)(x - r->exts), frame, len, true, lc->rt_now);
	if ((pkt = net_pkt_alloc(lc->np)) == NULL)
		return;
	const struct wire_rx_cfg rx = { .uet_port = r->cfg->nic.udp_port, .crc = r->cfg->nic.crc_trailer,
					.roce_icrc = r->cfg->roce.icrc, .roce_reth = r->cfg->roce.reth,
					.udp_csum = r->cfg->ports[x - r->exts].rx_csum };
	struct wire_rx_info info;
	int rc = wire_decode_rx(frame, len, &rx, pkt, &info);
	x->sw_rx_csum[0] += rc == WIRE_R_OK && info.udp_csum == WIRE_CSUM_SEEN_PARTIAL;
	x->sw_rx_csum[1] += rc == WIRE_R_OK && info.udp_csum == WIRE_CSUM_SEEN_UNVERIFIED;
	if (rc != WIRE_R_OK) {
		x->sw_rx_refused[rc < WIRE_R_COUNT ? rc : 0]++;
		lc->np->counters[NET_C_EXT_RX_BAD_FRAME]++;
		net_pkt_free(lc->np, pkt);
		return;
	}
	/* from another process's switch: the link's serialization and delay are still to come, as in one process */
	if (r->cfg->ports[x - r->exts].sw_host == UINT32_MAX)
		net_dir_inject_link(&x->sw_link->dir[1 - x->sw_end], pkt, lc->rt_now);
	else
		net_dir_inject(&x->sw_link->dir[1 - x->sw_end], pkt, lc->rt_now);
}

void ctl_run_ext_bind_switch(struct ctl_run_state *r, uint32_t i, net_ext_fn tx)
{
	const struct ctl_port *cp = &r->cfg->ports[i];
	struct ctl_ext *x = &r->exts[i];

	x->run = r;
	x->sw_link = &r->links[cp->sw_link];
	x->sw_end = r->topo->links[cp->sw_link].a.dev == cp->sw_dev ? 0 : 1;
	x->sw_link->dir[x->sw_end].ext = tx;
	x->sw_link->dir[x->sw_end].ext_arg = x;
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

/* The hosts with a mac: in the config that are not on port @p cp: its static neighbours. Returns how many. */
static uint32_t port_statics(const struct ctl_config *cfg, const struct ctl_port *cp, struct net_port_static *out)
{
	uint32_t n = 0;

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

int ctl_run_ext_bind(struct ctl_run_state *r, uint32_t i, net_port_emit_fn emit, char *err, size_t errlen)
{
	const struct ctl_config *cfg = r->cfg;
	const struct ctl_port *cp = &cfg->ports[i];
	struct ctl_ext *x = &r->exts[i];
	struct net_port_host hosts[CTL_PORT_HOSTS_MAX];

	x->run = r;
	x->hosts = calloc(cp->n_hosts, sizeof(*x->hosts));
	struct net_port_static *statics = calloc(cfg->n_hosts, sizeof(*statics));
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
	struct net_port_cfg pc = { .np = x->lc->np, .hosts = hosts, .n_hosts = cp->n_hosts, .statics = statics,
				   .n_statics = port_statics(cfg, cp, statics), .uet_port = cfg->nic.udp_port,
				   .crc = cfg->nic.crc_trailer, .vlan = cp->vlan, .roce = cfg->nic_model == CTL_NIC_ROCE,
				   .roce_icrc = cfg->roce.icrc, .roce_reth = cfg->roce.reth, .rx_csum = cp->rx_csum,
				   .emit = emit, .emit_arg = x };
	x->stack = net_port_create(&pc);
	free(statics);
	if (x->stack == NULL) {
		snprintf(err, errlen, "port \"%s\": out of memory for its neighbour table", cp->dev);
		return -ENOMEM;
	}
	return 0;
}

const uint8_t *ctl_run_ext_sw_encode(struct ctl_ext *x, const struct wire_pkt *pkt, size_t *len, size_t *payload,
				     emu_ps_t now)
{
	bool hdrs = !wire_has_trailer(pkt); /* a CRC or ICRC trailer follows the payload: the whole frame */
	int n = hdrs ? wire_encode_hdrs(pkt, x->hdr, sizeof(x->hdr)) : wire_encode(pkt, x->whole, sizeof(x->whole));

	if (n <= 0)
		return NULL;
	*len = (size_t)n;
	*payload = hdrs ? wire_frame_len(pkt) - (size_t)n : 0;
	ctl_run_ext_cap_tx(x, hdrs ? x->hdr : x->whole, *len, *payload, now);
	return hdrs ? x->hdr : x->whole;
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
