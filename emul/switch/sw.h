/* The Scala Switch device (spec/scala/switch-packet-handling.md, switch-shared-buffer.md): classification, shared
 * buffer admission, trimming, store-and-forward egress with strict priority, ECN (RED), PFC and ECMP/flowlets. */
#ifndef SW_H
#define SW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "net.h"
#include "sw_buffer.h"
#include "sw_params.h"
#include "wire.h"

struct sw;

/* Counters of one switch, with named reasons. Drops are counted once each, under the first reason that applies. */
#define SW_COUNTERS(X) \
	X(NONE, "none", "none") \
	X(RX_FRAMES, "rx_frames", "frames received, PFC frames included") \
	X(TX_FRAMES, "tx_frames", "frames sent, PFC frames included") \
	X(FORWARDED, "forwarded", "packets admitted to an egress queue") \
	X(DROP_HEADROOM, "drop_headroom", "drop at ingress: the paused port's headroom in the pool would be exceeded") \
	X(DROP_INGRESS_POOL, "drop_ingress_pool", "drop at ingress: the pool's occupancy went over its size") \
	X(DROP_NO_ROUTE, "drop_no_route", "drop: no route to the destination address") \
	X(DROP_PORT_DOWN, "drop_port_down", "drop: the chosen egress port has no link") \
	X(DROP_EGRESS_LIMIT, "drop_egress_limit", \
	  "drop at egress: over the egress queue limit or the pool's egress capacity") \
	X(DROP_TRIMMED_LIMIT, "drop_trimmed_limit", "drop at egress: a trimmed packet over its TC1 queue's bounds") \
	X(DROP_NO_TAG, "drop_no_tag", "drop: every switch tag in use (tag pool sized too small)") \
	X(DROP_BAD_KIND, "drop_bad_kind", "drop: a frame of a kind the switch does not forward") \
	X(DROP_BAD_PORT, "drop_bad_port", "drop: received on a port number the switch does not have") \
	X(TRIMS, "trims", "packets trimmed instead of dropped") \
	X(TRIMMED_DROPS, "trimmed_drops", \
	  "trimmed packets dropped, whatever the reason (each also counted under its drop reason)") \
	X(ECN_MARKS, "ecn_marks", "packets marked CE as their transmission started") \
	X(PFC_PAUSES_SENT, "pfc_pauses_sent", "PFC pause frames sent (refreshes included), one per class") \
	X(PFC_RESUMES_SENT, "pfc_resumes_sent", "PFC resume frames sent, one per class") \
	X(PFC_PAUSES_RCVD, "pfc_pauses_rcvd", "PFC pause requests received, one per class named") \
	X(PFC_RESUMES_RCVD, "pfc_resumes_rcvd", "PFC resume requests received, one per class named") \
	X(PFC_NOT_SENT, "pfc_not_sent", "PFC frame not sent: packet pool empty or the port's PFC queue full") \
	X(FLOWLET_ASSIGNMENTS, "flowlet_assignments", "flows placed on a member when their flow slot was empty") \
	X(FLOWLET_MOVES, "flowlet_moves", "flows moved to another member after a gap")

#define SW_COUNTER_ENUM(n, k, s) SW_C_##n,
enum sw_counter { SW_COUNTERS(SW_COUNTER_ENUM) SW_C_COUNT };
#undef SW_COUNTER_ENUM

/** Key of counter @p c, a snake_case identifier (summary.json); "unknown" outside the enum. */
const char *sw_counter_name(int c);

/** What counter @p c counts, in words (docs/summary.md); "unknown" outside the enum. */
const char *sw_counter_desc(int c);

/**
 * Everything a switch is made from. Copied by sw_create(); @p params, @p dscp and @p name must outlive the switch.
 * @p n_ports is the number of connected ports (ports 0 .. n_ports - 1): it sizes the headroom (Stage 1), so the
 * topology builder creates a switch with exactly the ports it will attach.
 */
struct sw_env {
	struct net_part *np;
	const struct sw_params *params;
	uint32_t node_id;                 /* node id: seeds the ECMP salt and, with seed, the RNG stream */
	const char *name;                 /* component name in records */
	uint32_t n_ports;
	uint64_t seed;                    /* RandomSeed */
	uint64_t run;                     /* the run number (simulation.RunNumber, 0..65535): with seed and node id,
					     seeds the flowlet tie-break draws */
	const struct wire_dscp_map *dscp; /* the codepoints the NICs send (UET policy, trimming); NULL = defaults */
	bool shell;                       /* another MPI rank runs it (docs/parallel.md): its ports, counters and
					     stats only, no flowlet slots; give it no routes, hand it no packet */
};

/**
 * Create a switch: runs the shared-buffer setup and sizes its tag pool (see sw_pvt.h for the formula).
 * Returns NULL with errno EINVAL (n_ports 0 or above 65535, or sw_buffer_setup() refused the attributes: call it
 * first for the message) or ENOMEM.
 */
struct sw *sw_create(const struct sw_env *env);

/** Free the switch and the packets it holds. Accepts NULL. */
void sw_destroy(struct sw *sw);

/** The device entry points, for net_endpoint.ops. */
extern const struct net_dev_ops sw_dev_ops;

/**
 * Attach the link direction port @p port sends on. The port's data rate and delay (pause times, PFC refresh) are
 * @p out's link's. @p faces_nic: the far end is a NIC, so a packet trimmed on this port is TRIMMED_LASTHOP.
 * Call before the run starts; @p port must be below n_ports (asserted).
 */
void sw_attach(struct sw *sw, uint32_t port, struct net_dir *out, bool faces_nic);

/**
 * Give port @p port its MAC @p mac and the MAC @p peer_mac of the port at the other end of its link (a NIC's, or
 * the next switch's port). A frame forwarded out of the port leaves with source @p mac and destination
 * @p peer_mac, as a routed (L3) hop rewrites them; PFC frames the port sends take @p mac as their source. Until
 * this is called a port's MAC is 02:53:nn:nn:pp:pp (node id, port) and its peer's 00:00:00:00:00:00. The switch
 * never filters on the destination MAC of what it receives. Build time; @p port must be below n_ports (asserted).
 */
void sw_port_mac(struct sw *sw, uint32_t port, const uint8_t mac[6], const uint8_t peer_mac[6]);

/**
 * Route destination @p dst_ip (host byte order, exact match) to the equal-cost set of egress ports @p ports
 * (@p n of them, in order; member i is ports[i]). Destinations with the same port list share one set. Build time
 * only (allocates). Returns 0, -EINVAL (n 0 or above 65535, a port out of range), -EEXIST (already routed) or
 * -ENOMEM.
 */
int sw_route_add(struct sw *sw, uint32_t dst_ip, const uint32_t *ports, uint32_t n);

/** The switch's counters, SW_C_COUNT entries. */
const uint64_t *sw_counters(const struct sw *sw);

/** The buffer sizes and thresholds computed at creation. */
const struct sw_buffer *sw_buffer(const struct sw *sw);

/** Node id, component name, number of ports. */
uint32_t sw_node_id(const struct sw *sw);
const char *sw_name(const struct sw *sw);
uint32_t sw_n_ports(const struct sw *sw);

/**
 * SwitchingCapacity against the sum of the attached ports' link rates: true when the ports can bring in more than
 * the capacity (shown, never enforced: the switch forwards regardless). @p sum_bps, if not NULL, receives the sum.
 */
bool sw_oversubscribed(const struct sw *sw, uint64_t *sum_bps);

/** One port (nd-stats, ecn-pfc-stats). Bytes are on the wire, FCS included; frame_bytes exclude the FCS. */
struct sw_port_stats {
	uint64_t rx_frames, rx_bytes, rx_frame_bytes;
	uint64_t tx_frames, tx_bytes, tx_frame_bytes;
	uint64_t rx_drops;                  /* ingress admission drops of frames received on the port */
	uint64_t tx_drops;                  /* egress admission drops (and no-link drops) on the port */
	uint64_t trims;                     /* packets trimmed at this egress port */
	uint64_t trimmed_bytes;             /* bytes those trims cut away (IP length before minus after) */
	/* Drops of trimmed packets (trimmed here or upstream), each also a tx_drop or an rx_drop of the port */
	uint64_t trimmed_tx_drops;          /* headed out of this port: over TC1's bounds, or the port has no link */
	uint64_t trimmed_rx_drops;          /* arrived on this port: refused at ingress admission, or no route */
	uint64_t ecn_marked[SW_TC_COUNT];   /* packets marked CE at transmission, per class */
	uint64_t xoff_tx[SW_TC_COUNT], xon_tx[SW_TC_COUNT]; /* PFC frames sent to the peer, per class */
	uint64_t xoff_rx[SW_TC_COUNT], xon_rx[SW_TC_COUNT]; /* PFC requests received from the peer, per class */
	emu_ps_t paused_ps[SW_TC_COUNT];    /* time this port's transmission of the class was held by the peer */
	/* the longest single pause (held without a break) since sw_port_pfc_interval_reset(), the part of it in the
	 * interval; a pause still on counts up to the stats' time */
	emu_ps_t ivl_max_pause_ps[SW_TC_COUNT];
};

/** A new interval of port @p port's PFC records starts at @p now: its longest pause restarts (ecn-pfc-stats). */
void sw_port_pfc_interval_reset(struct sw *sw, uint32_t port, emu_ps_t now);

/** Copy port @p port's stats, paused time counted up to @p now (zeros for a port out of range). */
void sw_port_stats(const struct sw *sw, uint32_t port, struct sw_port_stats *out, emu_ps_t now);

/**
 * Take another process's counts of this switch (the MPI rank that ran it): its counters and each port's stats as
 * sw_port_stats() gave them (@p ports: sw_n_ports() of them); pauses under way end.
 */
void sw_stats_load(struct sw *sw, const uint64_t *c, const struct sw_port_stats *ports);

/** The sum of every port's stats: a switch-wide summary line. */
void sw_link_stats(const struct sw *sw, struct sw_port_stats *sum, emu_ps_t now);

/** Occupancy of one port now, per pool (scala-switch-agg-buff-stats samples it). */
struct sw_port_occ {
	uint64_t ingress[SW_POOL_COUNT];   /* bytes the port brought into the pool, not yet released */
	uint64_t headroom[SW_POOL_COUNT];  /* bytes held in the port's headroom for the pool */
	uint64_t egress[SW_POOL_COUNT];    /* bytes queued at the port for the pool, the frame being sent included */
	uint8_t pausing[SW_POOL_COUNT];    /* the port has paused its sender for the pool */
	uint64_t ecn_avg[SW_POOL_COUNT];   /* the ECN moving average, bytes (rounded down) */
	uint64_t ingress_total[SW_POOL_COUNT]; /* bytes the port ever brought into the pool (headroom included) */
	uint64_t egress_total[SW_POOL_COUNT];  /* bytes ever queued at the port for the pool */
};

/** Copy port @p port's occupancy (zeros for a port out of range). */
void sw_port_occ(const struct sw *sw, uint32_t port, struct sw_port_occ *out);

/**
 * Pool @p pool's occupancy now, summed over two groups of ports: @p group[port] (0 or 1, sw_n_ports() entries)
 * puts a port in group 0 or 1; @p in[g] and @p eg[g] get the sums of sw_port_occ()'s ingress[pool] and
 * egress[pool] over group g's ports, and @p shared the pool's ingress (sw_pool_occ()'s). For a record that samples
 * them a thousand times per interval, without copying the rest.
 */
void sw_pool_group_occ(const struct sw *sw, uint32_t pool, const uint8_t *group, uint64_t in[2], uint64_t eg[2],
		       uint64_t *shared);

/** Occupancy of one pool now, summed over the ports. */
struct sw_pool_occ {
	uint64_t size;      /* after the Stage 2 adjustment */
	uint64_t ingress;   /* bytes charged to the pool at ingress (headroom not included) */
	uint64_t headroom;  /* bytes in the ports' headroom for the pool */
	uint64_t egress;    /* bytes charged to the pool at egress */
};

/** Copy pool @p pool's occupancy (zeros past the pools). */
void sw_pool_occ(const struct sw *sw, uint32_t pool, struct sw_pool_occ *out);

/** One equal-cost set (scala-switch-load-balancing-stats). */
struct sw_ecmp_set_info {
	uint32_t n;                 /* members */
	const uint32_t *ports;      /* member i's egress port */
	uint32_t flow_table_slots;  /* 512 under flowlet for the first 128 sets seen, else 0 */
	bool seen;                  /* a packet has used the set */
	emu_ps_t formed;            /* when the first packet used it */
};

/** What was assigned to one member of a set, since the start. */
struct sw_ecmp_member_stats {
	uint64_t bytes, packets;     /* admitted to the member's egress queue (bytes as charged) */
	uint64_t assignments;        /* flows placed on the member when their slot was empty */
	uint64_t movements_in, movements_out;
	uint64_t paused_skips;       /* decisions that skipped the member because PFC had paused it */
	uint64_t paused_selections;  /* decisions that selected it while paused */
};

/** Number of equal-cost sets. */
uint32_t sw_ecmp_set_count(const struct sw *sw);

/** Describe set @p set; returns 0 or -ENOENT. */
int sw_ecmp_set_info(const struct sw *sw, uint32_t set, struct sw_ecmp_set_info *out);

/** Copy the stats of member @p m of set @p set; returns 0 or -ENOENT. */
int sw_ecmp_member_stats(const struct sw *sw, uint32_t set, uint32_t m, struct sw_ecmp_member_stats *out);

/**
 * The stream id of the flowlet tie-break generator of switch @p node_id in run @p run (below 2^16):
 * emu_rng_init(rng, RandomSeed, sw_flowlet_stream(run, node_id)) is the generator "seeded from the simulation's
 * seed, the run number, and the switch's node identifier" (Packet handling, Flowlet). Apart from every device's
 * own stream (ids below 2^32) and from every other (run, node id).
 */
uint64_t sw_flowlet_stream(uint64_t run, uint32_t node_id);

#define SW_ECMP_PERM 128 /* crc32WithSalt permutes the hash's low 7 bits: sets of up to 128 members read them */

/** crc32WithSalt's permutation of 0..127 for @p salt (a switch's, sw_ecmp_salt()): drawn from the salt, the same on
 *  every run (docs/switch.md, ECMP). */
void sw_ecmp_perm(uint32_t salt, uint8_t perm[SW_ECMP_PERM]);

/** The per-switch ECMP salt derived from @p node_id (the same on every run). */
uint32_t sw_ecmp_salt(uint32_t node_id);

/**
 * The 16-bit flow hash of @p pkt by @p method (enum sw_hash_method) with @p salt, for a set of @p n members
 * (dprWithFallback needs it). Packets that are not UDP share the single flow identity 0.
 */
uint16_t sw_flow_hash(uint8_t method, uint32_t salt, const struct wire_pkt *pkt, uint32_t n);

/** Quanta in every pause the switch sends. */
#define SW_PFC_QUANTA 65535

#define SW_MIN_CHARGE 46u /* the smallest charge: a 46 B Ethernet payload */

/** Bytes the buffer charges for a packet of @p ip_len IP bytes: the size without the Ethernet header, at least
 * SW_MIN_CHARGE. */
static inline uint32_t sw_charge_bytes(size_t ip_len)
{
	return ip_len < SW_MIN_CHARGE ? SW_MIN_CHARGE : (uint32_t)ip_len;
}

#endif /* SW_H */
