/* The ports of a run (real time, and the re-run of a session): each ports[] entry, its hosts, its side in the
 * models. */
#ifndef CTL_RUN_EXT_PVT_H
#define CTL_RUN_EXT_PVT_H

#include "ctl_run_pvt.h"

/* A host bound to a DPDK port in real time: its NIC's link, whose far end is the port. */
struct ctl_ext_host {
	struct ctl_ext *port;
	uint32_t slot;         /* its index among the port's hosts (net_port) */
	uint32_t host;         /* its index in cfg->hosts */
	struct net_link link;  /* dir[0]: NIC -> port, dir[1]: port -> NIC */
};

/* A DPDK port of a real-time run and the hosts sharing it. */
struct ctl_ext {
	struct ctl_run_state *run;
	struct run_lcore *lc;        /* the lcore that polls it: the one running its devices */
	bool off;                    /* its device runs in another process (--partition): not opened here */
	int dp_port;
	emu_ps_t emit_now;           /* the emulated time of the model's call into the port under way, which stamps
	                              * the frames it sends (ctl_run_ext.c); written by its lcore only */
	struct net_port *stack;      /* ARP, ICMP echo, next hops, frames by MAC and IPv4 address to the hosts */
	struct ctl_ext_host *hosts;  /* cfg->ports[i].n_hosts */
	uint32_t n_hosts;
	struct dp_port_stats stats;  /* read when the run ends, before the port closes */
	struct dp_port_stats last;   /* read at the last once-a-second tick of the poll loop */
	uint64_t rx_bps, rx_fps;     /* rates over the last second (frame bytes without FCS, as the port counts) */
	uint64_t tx_bps, tx_fps;
	bool zerocopy;               /* the port sends zero-copy (dp_port_tx_mode()) */
	/* A switch port bound to the DPDK port (ports[].attach "tor0:3"): the fabric link to the external host it
	 * faces, and which end of it is the switch's. No IPv4 side (stack NULL): frames are decoded and switched. */
	struct net_link *sw_link;
	int sw_end;
	uint64_t sw_rx_refused[WIRE_R_COUNT]; /* frames from the port the decoder refused, by reason */
	uint64_t sw_rx_csum[2];      /* frames taken with a partial ([0]) or an unchecked ([1]) UDP checksum */
	uint8_t hdr[WIRE_HDRS_MAX];  /* a frame's headers, encoded here for dp_tx_hdr() */
	uint8_t whole[WIRE_MAX_FRAME]; /* frames with a CRC trailer, encoded whole */
};

/** The device a ports[] entry binds: its switch (a switch port), else its first host. */
static inline uint32_t ctl_run_port_dev(const struct ctl_port *cp)
{
	return cp->sw ? cp->sw_dev : cp->hosts[0];
}

/* ctl_run_ext.c: the model side of the DPDK ports, shared by real time and the re-run */
/** Port @p i's hosts: a link for each host's NIC whose far end is the port, and the port's IPv4 side, which sends
 *  its frames through @p emit. 0 or -ENOMEM with @p err. */
int ctl_run_ext_bind(struct ctl_run_state *r, uint32_t i, net_port_emit_fn emit, char *err, size_t errlen);
/** Port @p i bound to a switch port: the link's end there sends through @p tx. */
void ctl_run_ext_bind_switch(struct ctl_run_state *r, uint32_t i, net_ext_fn tx);
/** A frame port @p x sends at emulated time @p now (its @p len header bytes, then @p payload pattern bytes): to
 *  the port's dev capture and the session log, made whole in x->whole when one of them takes it. */
void ctl_run_ext_cap_tx(struct ctl_ext *x, const uint8_t *hdr, size_t len, size_t payload, emu_ps_t now);
/*
 * A frame a switch sends to the device behind port @p x, encoded for the port: its headers in x->hdr with
 * *@p payload bytes of the pattern to follow, or (a CRC or ICRC trailer covers the payload) the whole frame in
 * x->whole with *@p payload 0; captured (dev:) at @p now. The bytes, or NULL when the encoder refused it.
 */
const uint8_t *ctl_run_ext_sw_encode(struct ctl_ext *x, const struct wire_pkt *pkt, size_t *len, size_t *payload,
				     emu_ps_t now);
/** A frame from port @p x (hosts): captured, logged, then answered or handed to its host at x->lc->rt_now. */
void ctl_run_ext_rx(struct ctl_ext *x, const uint8_t *frame, size_t len);
/** A frame from port @p x (a switch port): captured, logged, decoded (refusals counted) and switched. */
void ctl_run_ext_sw_rx(struct ctl_ext *x, const uint8_t *frame, size_t len);
/** Port @p x's ARP timers at x->lc->wall_now. */
void ctl_run_ext_tick(struct ctl_ext *x);

#endif /* CTL_RUN_EXT_PVT_H */
