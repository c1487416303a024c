/* Internals of the net room's port side, shared by net_port.c (frames in and out, ARP and ICMP answers) and
 * net_neigh.c (the neighbour table, held frames, ARP timers). Not a public API. */
#ifndef NET_PVT_H
#define NET_PVT_H

#include <stdbool.h>
#include <stdint.h>

#include "net_port.h"
#include "wire.h"

#define NET_NIL UINT32_MAX /* no entry, no slot: the end of an index list */

/** One neighbour: an IPv4 next hop and its MAC address, or the resolution under way. */
struct net_neigh {
	uint32_t ip;
	uint8_t mac[6];
	uint8_t state;        /* enum net_neigh_state: FREE, INCOMPLETE, REACHABLE or STATIC (STALE is computed) */
	uint8_t learnt;       /* enum net_neigh_learnt */
	uint8_t tries;        /* requests sent since the last answer */
	uint32_t slot;        /* the host whose address its requests carry */
	uint32_t hnext;       /* next entry of its hash bucket, or NET_NIL */
	uint32_t held_head;   /* frames held for it, oldest first: indexes into the hold slots */
	uint32_t held_tail;
	uint32_t n_held;
	emu_ps_t confirmed;   /* last answer that gave its MAC (wall) */
	emu_ps_t used;        /* last frame sent or held for it */
	emu_ps_t next_try;    /* next ARP request due, or EMU_PS_NEVER */
};

/** A frame held for an unresolved next hop: a copy of the descriptor, encoded once the MAC is known. */
struct net_hold {
	struct wire_pkt pkt;
	uint32_t next;        /* next held frame of its neighbour, or the next free slot */
};

struct net_port {
	struct net_port_cfg cfg;       /* defaults filled in; hosts and statics point at the copies below */
	struct net_port_host *hosts;
	struct net_port_static *statics;
	/* The hosts by MAC and by IPv4 address: open addressing, linear probing, 1 << host_bits slots (at least twice
	 * the hosts), each a host's slot or NET_NIL; a key held by two hosts finds the first, as a scan would. */
	uint32_t *by_mac, *by_ip;
	uint32_t host_bits;
	struct net_neigh *neigh;       /* cfg.neigh_max + n_statics entries */
	uint32_t n_neigh;              /* size of neigh */
	uint32_t n_learnt;             /* entries in use besides the statics (at most cfg.neigh_max) */
	uint32_t neigh_free;           /* free entries, linked through hnext */
	uint32_t *bucket;              /* hash heads: entry indexes or NET_NIL */
	uint32_t bucket_bits;          /* 1 << bucket_bits heads */
	struct net_hold *hold;         /* cfg.hold_max slots */
	uint32_t hold_free;            /* free list head */
	emu_ps_t next_due;             /* the earliest timer of any entry (net_port_tick returns before it) */
	uint32_t arp_tokens;           /* the rate limit: requests that may go now */
	emu_ps_t arp_refill;           /* when the last token was added */
	uint64_t c[NET_PORT_C_COUNT];
	uint64_t rx_drop[NET_PORT_RX_COUNT];
	uint64_t rx_bad[WIRE_R_COUNT];
	/* Frames are encoded WIRE_VLAN_LEN bytes into these buffers, so a VLAN port's tag goes in front in place
	 * (wire_vlan_push moves the 12 MAC bytes, nothing else). */
	uint8_t frame[WIRE_VLAN_LEN + WIRE_HDRS_MAX];  /* a UET frame's headers; the emitter adds the payload */
	uint8_t whole[WIRE_VLAN_LEN + WIRE_MAX_FRAME]; /* a frame with a CRC trailer, encoded whole */
	uint8_t reply[WIRE_VLAN_LEN + WIRE_MAX_FRAME]; /* ARP and ICMP frames */
	uint8_t untagged[WIRE_MAX_FRAME];              /* a received frame of a VLAN port, its tag taken off */
};

/* net_port.c */
/** Encode @p pkt to @p mac and hand it to the wire. */
void net_port_emit_pkt(struct net_port *p, const struct wire_pkt *pkt, const uint8_t mac[6]);
/** Send an ARP request from host @p slot for @p tpa to @p dst (broadcast, or the known MAC to refresh). */
void net_port_arp_request(struct net_port *p, uint32_t slot, const uint8_t dst[6], uint32_t tpa);

/* net_neigh.c */
/** Allocate the neighbour table and the hold slots of @p p, and enter the statics. 0 or -ENOMEM. */
int net_neigh_init(struct net_port *p);
/** Free what net_neigh_init() took. */
void net_neigh_fini(struct net_port *p);
/** The entry of @p ip, or NULL. */
struct net_neigh *net_neigh_find(const struct net_port *p, uint32_t ip);
/** Send or hold @p pkt of host @p slot for next hop @p ip. */
void net_neigh_send(struct net_port *p, uint32_t slot, uint32_t ip, const struct wire_pkt *pkt, emu_ps_t wall);
/** Start resolving @p ip for host @p slot unless an entry exists (a gateway at the start). */
void net_neigh_resolve(struct net_port *p, uint32_t slot, uint32_t ip, emu_ps_t wall);
/**
 * @p ip is at @p mac (an ARP message said so, @p how): update its entry, unless static, and send what it held;
 * with @p create, make an entry when there is none (for host @p slot). Returns true when an entry took it.
 */
bool net_neigh_learn(struct net_port *p, uint32_t ip, const uint8_t mac[6], uint8_t how, bool create,
		     uint32_t slot, emu_ps_t wall);

#endif /* NET_PVT_H */
