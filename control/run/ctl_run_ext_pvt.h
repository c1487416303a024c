/* The ports of a run (real time, and the re-run of a session): each ports[] entry, its hosts, its side in the
 * models. */
#ifndef CTL_RUN_EXT_PVT_H
#define CTL_RUN_EXT_PVT_H

#include "ctl_run_pvt.h"

#define CTL_EXT_IP_MAX 16 /* external hosts' addresses a switch port keeps for sw_rx_take() */

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
	struct net_bind bind;        /* how frames cross it: the DPDK port (dp_port_bind()), or a re-run's log */
	bool tap;                    /* a dev capture or the session log takes its frames (ctl_run_ext_start()) */
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
	uint64_t sw_rx_class[WIRE_FC_COUNT]; /* frames from the port taken into the switch, by fabric class */
	uint64_t sw_tx_class[WIRE_FC_COUNT]; /* frames the switch sent out of the port, by fabric class */
	/* the external hosts' addresses (the real devices behind switch ports, of this process or another), for a
	 * look at a received frame's destination without a decode; n_ext_ip 0: more than CTL_EXT_IP_MAX, none kept */
	uint32_t ext_ip[CTL_EXT_IP_MAX];
	uint32_t n_ext_ip;
	/* A switch port facing a switch of another process (--partition; docs/realtime.md, When a peer fails): a
	 * hello goes out every CTL_PEER_HELLO_PS of wall clock; the other process is gone when no hello has come for
	 * peer_timeout past the next one's due time. Written by the port's lcore only. */
	bool peer;
	emu_ps_t peer_next_tx;       /* wall clock of our next hello */
	emu_ps_t peer_ivl;           /* the other process's hello interval (its last hello's) */
	uint32_t peer_seq;           /* our hellos' sequence number */
	struct ctl_peer_stats peer_st;
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
 *  its frames through the port's binding (x->bind, set before). 0 or -ENOMEM with @p err. */
int ctl_run_ext_bind(struct ctl_run_state *r, uint32_t i, char *err, size_t errlen);
/** Port @p i bound to a switch port: what the switch sends on the link's end there goes out of the port's binding
 *  (x->bind, set before). */
void ctl_run_ext_bind_switch(struct ctl_run_state *r, uint32_t i);
/** Once the captures and the session log are open, before the first pass: each port's taps flag (x->tap: a dev
 *  capture of the port, or the session log), then every host announces itself and starts resolving its gateway. */
void ctl_run_ext_start(struct ctl_run_state *r);
/**
 * Port @p x's turn in a poll pass, by the lcore that polls it: its binding drained (up to NET_BIND_DRAIN_BURSTS
 * bursts) at x->lc->rt_now, each frame tapped when x->tap, then answered, handed to its host or decoded and
 * switched, or counted; then the port's ARP timers at x->lc->wall_now.
 */
void ctl_run_ext_poll(struct ctl_ext *x);
/** The end of port @p x's pass: what it staged goes out (its binding's flush). */
void ctl_run_ext_flush(struct ctl_ext *x);

/* Hellos on a link to another process (docs/realtime.md, When a peer fails): an Ethernet frame of the IEEE 802
 * local experimental ethertype 1, to the broadcast address, 60 bytes: "UETP", version, kind, sequence number, the
 * sender's hello interval in ms, the sender's partition index (each field big-endian). */
#define CTL_PEER_ETHERTYPE 0x88b5
#define CTL_PEER_HELLO_PS (1 * EMU_PS_PER_S) /* a hello every second of wall clock */
#define CTL_PEER_VERSION 1
enum { CTL_PEER_HELLO = 1, CTL_PEER_BYE = 2 };

/**
 * The end of the run, on the main lcore once every lcore's loop has returned: a bye on every port facing another
 * process, so it knows this run ended rather than died, then each port's flush.
 */
void ctl_run_ext_bye(struct ctl_run_state *r);
/** A port whose peer was lost (ctl_run_state.peer_lost): the line that says so, on stderr. */
void ctl_run_ext_peer_lost_say(const struct ctl_run_state *r, uint32_t i);

#endif /* CTL_RUN_EXT_PVT_H */
