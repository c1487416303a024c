/* The IPv4 side of emulated hosts on a real port: ARP, ICMP echo, next hops and gateways, several hosts sharing
 * one port. Frames in and out are bytes; the hosts' NICs see only UET packet descriptors (docs/realtime.md). */
#ifndef NET_PORT_H
#define NET_PORT_H

#include <stddef.h>
#include <stdint.h>

#include "net.h"

/* Frames from the port that no host takes, by reason: well-formed, but not for uetemu. A frame a decoder refuses
 * is counted by its enum wire_reason instead (net_port_rx_refused()). */
#define NET_PORT_RX_REASONS(X) \
	X(NONE, "none", "none") \
	X(NOT_OUR_MAC, "not_our_mac", "frame to a MAC address none of the port's hosts has (unicast, multicast or " \
	  "broadcast; ARP broadcasts and PFC aside)") \
	X(OWN_FRAME, "own_frame", "frame from one of the port's hosts' own MAC addresses (a loop or a reflection)") \
	X(IPV6, "ipv6", "IPv6 frame (the emulated hosts speak IPv4)") \
	X(OTHER_ETHERTYPE, "other_ethertype", "ethertype other than IPv4, ARP, IPv6 and MAC control (LLDP, VLAN, ...)") \
	X(ARP_OTHER_TARGET, "arp_other_target", "ARP request for an address none of the port's hosts has") \
	X(ARP_UNSOLICITED, "arp_unsolicited", "ARP reply or announcement about an address with no neighbour entry") \
	X(ARP_CONFLICT, "arp_conflict", "ARP from another node claiming the address of one of the port's hosts") \
	X(IP_OTHER_HOST, "ip_other_host", "IPv4 frame to a host's MAC address but another IPv4 address") \
	X(ICMP_OTHER, "icmp_other", "ICMP other than an echo request (an unreachable, an echo reply, ...)") \
	X(IP_OTHER_PROTO, "ip_other_proto", "IPv4 protocol other than UDP, ICMP and UET's 253") \
	X(UDP_OTHER_PORT, "udp_other_port", "UDP to a port other than the UET and connection-management ports") \
	X(NO_PKT, "no_pkt", "packet pool empty: a frame for a host could not be handed over") \
	X(VLAN_OTHER, "vlan_other", "802.1Q-tagged frame with a VLAN id other than the port's vlan: (a priority tag, " \
	  "VID 0, included)") \
	X(VLAN_UNTAGGED, "vlan_untagged", "untagged frame on a port with vlan: (PFC aside, which 802.1Qbb sends " \
	  "untagged)") \
	X(ARP_SPOOFED, "arp_spoofed", "ARP reply or announcement whose sender claims a static neighbour's address " \
	  "with another MAC (ignored: a static entry never moves)") \
	X(ARP_STATIC_ONLY, "arp_static_only", "ARP reply or announcement on a port with neighbours: static (ignored: " \
	  "its neighbours come from the config only)")

#define NET_PORT_RX_ENUM(n, k, s) NET_PORT_RX_##n,
enum net_port_rx_reason { NET_PORT_RX_REASONS(NET_PORT_RX_ENUM) NET_PORT_RX_COUNT };
#undef NET_PORT_RX_ENUM

/* What the port's IPv4 side did. The frames a port receives are each counted once: in rx_to_host,
 * arp_requests_answered, arp_replies_learnt, arp_announcements_learnt, icmp_echo_answered, or by a drop reason. */
#define NET_PORT_COUNTERS(X) \
	X(NONE, "none", "none") \
	X(RX_TO_HOST, "rx_to_host", "UET, connection-management and PFC frames handed to a host's NIC") \
	X(ARP_REQUESTS_ANSWERED, "arp_requests_answered", "ARP requests for a host's address, answered") \
	X(ARP_REPLIES_LEARNT, "arp_replies_learnt", "ARP replies that resolved or refreshed a neighbour entry") \
	X(ARP_ANNOUNCEMENTS_LEARNT, "arp_announcements_learnt", \
	  "gratuitous ARPs that refreshed a neighbour entry (no entry is made from one)") \
	X(ICMP_ECHO_ANSWERED, "icmp_echo_answered", "ICMP echo requests to a host's address, answered") \
	X(ARP_REQUESTS_LEARNT, "arp_requests_learnt", \
	  "neighbour entries made or refreshed from the sender of an ARP request (RFC 826), besides the count above") \
	X(ARP_REQUESTS_SENT, "arp_requests_sent", "ARP requests sent to resolve or refresh a next hop") \
	X(ARP_ANNOUNCEMENTS_SENT, "arp_announcements_sent", "gratuitous ARPs sent: one per host at the start") \
	X(ARP_RATE_LIMITED, "arp_rate_limited", "ARP requests put off by the port's rate limit") \
	X(TX_SENT, "tx_sent", "frames of the hosts sent to the port, held frames included once sent") \
	X(TX_LOCAL, "tx_local", "frames from one host of the port to another, handed over without the wire") \
	X(TX_HELD, "tx_held", "frames held while their next hop was being resolved") \
	X(TX_HELD_SENT, "tx_held_sent", "held frames sent once their next hop answered") \
	X(TX_DROP_HOLD_FULL, "tx_drop_hold_full", "held frames dropped, oldest first, past the per-next-hop limit") \
	X(TX_DROP_HOLD_POOL, "tx_drop_hold_pool", "frames dropped: every hold slot of the port in use") \
	X(TX_DROP_UNRESOLVED, "tx_drop_unresolved", "held frames dropped: their next hop did not answer ARP") \
	X(TX_DROP_NEIGH_FULL, "tx_drop_neigh_full", "frames dropped: no neighbour entry could be made for the next hop") \
	X(TX_DROP_NO_PKT, "tx_drop_no_pkt", "frames between two hosts of the port dropped: packet pool empty") \
	X(TX_DROP_ENCODE, "tx_drop_encode", "frames the encoder refused") \
	X(NEIGH_FAILED, "neigh_failed", "neighbour entries freed after their ARP requests went unanswered") \
	X(NEIGH_EVICTED, "neigh_evicted", "neighbour entries reclaimed, least recently used first, to make room") \
	X(NEIGH_EXPIRED, "neigh_expired", "neighbour entries freed after going unused for the expiry time") \
	X(TX_DROP_NO_STATIC, "tx_drop_no_static", "frames dropped: on a port with neighbours: static, the next hop " \
	  "has no MAC in the config") \
	X(ARP_REQUESTS_NOT_LEARNT, "arp_requests_not_learnt", "ARP requests answered whose sender was not learnt " \
	  "(neighbours: static)") \
	X(RX_CSUM_PARTIAL, "rx_csum_partial", "frames taken with a partial UDP checksum (a Linux sender's TX checksum " \
	  "offload on a veth or tap; rx_csum: offload)") \
	X(RX_CSUM_UNVERIFIED, "rx_csum_unverified", "frames taken with a non-zero UDP checksum left unchecked " \
	  "(rx_csum: ignore)")

#define NET_PORT_C_ENUM(n, k, s) NET_PORT_C_##n,
enum net_port_counter { NET_PORT_COUNTERS(NET_PORT_C_ENUM) NET_PORT_C_COUNT };
#undef NET_PORT_C_ENUM

/* A neighbour entry's state, and how its MAC address was learnt. */
#define NET_NEIGH_STATES(X) \
	X(FREE, "free", "unused slot") \
	X(INCOMPLETE, "incomplete", "ARP request sent, no answer yet; frames to it are held") \
	X(REACHABLE, "reachable", "MAC known and confirmed within the reachable time") \
	X(STALE, "stale", "MAC known, confirmed longer ago than the reachable time: used, and refreshed by a request") \
	X(STATIC, "static", "MAC from the config (a peer's mac:), never resolved nor expired")

#define NET_NEIGH_STATE_ENUM(n, k, s) NET_NEIGH_##n,
enum net_neigh_state { NET_NEIGH_STATES(NET_NEIGH_STATE_ENUM) NET_NEIGH_STATE_COUNT };
#undef NET_NEIGH_STATE_ENUM

#define NET_NEIGH_LEARNT(X) \
	X(NONE, "none", "not learnt yet") \
	X(CONFIG, "config", "the config's mac: of the peer") \
	X(ARP_REPLY, "arp_reply", "an ARP reply to a request of the port") \
	X(ARP_REQUEST, "arp_request", "the sender of an ARP request") \
	X(ARP_ANNOUNCEMENT, "arp_announcement", "a gratuitous ARP of the neighbour")

#define NET_NEIGH_LEARNT_ENUM(n, k, s) NET_LEARNT_##n,
enum net_neigh_learnt { NET_NEIGH_LEARNT(NET_NEIGH_LEARNT_ENUM) NET_LEARNT_COUNT };
#undef NET_NEIGH_LEARNT_ENUM

/** Key of a port counter, a port drop reason, a neighbour state, a learnt source; "unknown" outside the enum. */
const char *net_port_counter_name(int c);
/** What port counter @p c counts, in words. */
const char *net_port_counter_desc(int c);
/** Key of drop reason @p r (enum net_port_rx_reason). */
const char *net_port_rx_reason_name(int r);
/** What drop reason @p r means, in words. */
const char *net_port_rx_reason_desc(int r);
/** Key of neighbour state @p s. */
const char *net_neigh_state_name(int s);
/** Key of learnt source @p l. */
const char *net_neigh_learnt_name(int l);

#define NET_PORT_HOSTS_MAX 4096 /* hosts sharing one port at most (net_port_create()); found by a hash */

/** One emulated host on the port. */
struct net_port_host {
	uint32_t ip;          /* host byte order */
	uint8_t mac[6];
	uint8_t prefix_len;   /* the on-link subnet is ip/prefix_len; 0: every address */
	uint32_t gateway;     /* next hop to addresses off the subnet; 0: none, every address is on-link */
	struct net_dir *rx;   /* the direction that hands frames to the host's NIC (net_dir_inject) */
};

/** A neighbour with a MAC address from the config: used as is, never ARPed. */
struct net_port_static {
	uint32_t ip;
	uint8_t mac[6];
};

/**
 * Takes a frame for the wire: its first @p len bytes in @p hdr (not kept), followed by the first @p payload bytes
 * of the payload pattern (wire_payload_fill()), which the caller adds (a zero-copy port attaches them). ARP and
 * ICMP frames come whole, with @p payload 0.
 */
typedef void (*net_port_emit_fn)(void *arg, const uint8_t *hdr, size_t len, size_t payload);

/* Defaults of the limits (a 0 in struct net_port_cfg takes them); docs/realtime.md says why each. */
#define NET_PORT_NEIGH_MAX 256
#define NET_PORT_HOLD_MAX 1024
#define NET_PORT_HOLD_PER_NEIGH 128
#define NET_PORT_ARP_RETRY_PS (1 * EMU_PS_PER_S)
#define NET_PORT_ARP_TRIES 3
#define NET_PORT_REACHABLE_PS (30 * EMU_PS_PER_S)
#define NET_PORT_EXPIRE_PS (60 * EMU_PS_PER_S)
#define NET_PORT_ARP_BURST 16
#define NET_PORT_ARP_INTERVAL_PS (10 * EMU_PS_PER_MS)

/**
 * What a port is made from. Times are wall-clock picoseconds since the start of the run (ARP lives on the real
 * network, whatever TimeScale does to emulated time). The arrays are copied by net_port_create().
 */
struct net_port_cfg {
	struct net_part *np;                  /* descriptors for the hosts come from its pool */
	const struct net_port_host *hosts;
	uint32_t n_hosts;                     /* 1 or more */
	const struct net_port_static *statics;
	uint32_t n_statics;
	uint16_t uet_port;                    /* the UDP port of UET (WIRE_UDP_PORT_CM is taken too); native UET,
	                                       * IPv4 protocol 253, is taken whatever the NICs send */
	bool crc;                             /* UET frames end in a CRC-32C trailer (nic.UETEncapsulation.CrcTrailer) */
	bool crc_ip;                          /* with crc: it covers from the IPv4 source address (CrcCoverage refprov) */
	bool roce;                            /* the hosts are RoCE NICs: UDP 4791 frames go to them too */
	bool roce_icrc, roce_reth;            /* RoCE frames carry the ICRC / the RETH (roce_nic.RoCEEncapsulation) */
	uint8_t rx_csum;                      /* enum wire_csum_mode: how UDP checksums are taken (the port's
	                                       * rx_csum:; 0 = verify) */
	uint16_t vlan;                        /* 802.1Q VLAN id 1..WIRE_VLAN_VID_MAX of the port's frames: sent
	                                       * tagged with it, PCP = the frame's class (wire_pkt.tc), PFC untagged;
	                                       * only frames tagged with it (and untagged PFC) taken. 0: untagged */
	bool static_only;                     /* neighbours: static: next hops only from @c statics; ARP never makes
	                                       * nor moves an entry, and no request is sent for a next hop */
	net_port_emit_fn emit;
	void *emit_arg;
	uint32_t neigh_max;       /* learnt and unresolved entries, statics on top (NET_PORT_NEIGH_MAX) */
	uint32_t hold_max;        /* frames held for unresolved next hops, port-wide (NET_PORT_HOLD_MAX) */
	uint32_t hold_per_neigh;  /* ... for one next hop (NET_PORT_HOLD_PER_NEIGH) */
	emu_ps_t arp_retry;       /* between two requests for one next hop (NET_PORT_ARP_RETRY_PS) */
	uint32_t arp_tries;       /* unanswered requests before an entry fails (NET_PORT_ARP_TRIES) */
	emu_ps_t reachable;       /* an entry confirmed longer ago is stale (NET_PORT_REACHABLE_PS) */
	emu_ps_t expire;          /* an entry neither used nor confirmed this long is freed (NET_PORT_EXPIRE_PS) */
	uint32_t arp_burst;       /* ARP requests the port may send back to back (NET_PORT_ARP_BURST) */
	emu_ps_t arp_interval;    /* then one per interval (NET_PORT_ARP_INTERVAL_PS) */
};

struct net_port;

/**
 * Create a port and every table it will use (nothing is allocated later), its hosts (1 to NET_PORT_HOSTS_MAX)
 * found by MAC and by IPv4 address through a hash. NULL with errno EINVAL or ENOMEM.
 */
struct net_port *net_port_create(const struct net_port_cfg *cfg);

/** Free the port and the frames it holds. Accepts NULL. */
void net_port_destroy(struct net_port *p);

/** At the start (@p wall): one gratuitous ARP per host, and an ARP request for each host's gateway. */
void net_port_start(struct net_port *p, emu_ps_t wall);

/**
 * A frame of @p len bytes from the port. UET, connection-management and PFC frames go to their host's NIC at
 * emulated time @p now (PFC to every host); ARP requests and ICMP echo requests for a host's address are
 * answered; ARP replies resolve next hops and send what was held for them; anything else is counted by reason.
 * On a port with a vlan, a frame tagged with it is taken without its tag (copied once), an untagged PFC frame as
 * it is, and every other frame counted (vlan_other, vlan_untagged).
 */
void net_port_rx(struct net_port *p, const uint8_t *frame, size_t len, emu_ps_t now, emu_ps_t wall);

/**
 * Host @p slot's NIC sends @p pkt (not kept) at emulated time @p now: to another host of the port without the
 * wire, else to its next hop (the peer on-link, else the gateway): at once when its MAC is known, otherwise held
 * (bounded) while it is resolved by ARP.
 */
void net_port_tx(struct net_port *p, uint32_t slot, const struct wire_pkt *pkt, emu_ps_t now, emu_ps_t wall);

/** Timers at @p wall: ARP retries, failures, refreshes and expiry. Cheap when nothing is due: call every pass. */
void net_port_tick(struct net_port *p, emu_ps_t wall);

/** Wall-clock time at which net_port_tick() next has work (EMU_PS_NEVER: none); before it, a tick does nothing. */
emu_ps_t net_port_next_due(const struct net_port *p);

/** The port's counters: NET_PORT_C_COUNT entries. */
const uint64_t *net_port_counters(const struct net_port *p);

/** Frames not taken, by reason: NET_PORT_RX_COUNT entries. */
const uint64_t *net_port_rx_drops(const struct net_port *p);

/** Frames a decoder refused, by reason: WIRE_R_COUNT entries. */
const uint64_t *net_port_rx_refused(const struct net_port *p);

/** A neighbour entry as the report shows it. */
struct net_neigh_info {
	uint32_t ip;
	uint8_t mac[6];
	uint8_t state;    /* enum net_neigh_state, STALE computed at the time asked */
	uint8_t learnt;   /* enum net_neigh_learnt */
	uint32_t held;    /* frames held for it */
};

/** Copy up to @p max entries in use at @p wall into @p out, in table order. Returns how many there are. */
uint32_t net_port_neighbours(const struct net_port *p, emu_ps_t wall, struct net_neigh_info *out, uint32_t max);

#endif /* NET_PORT_H */
