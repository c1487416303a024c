/* Internals shared by the switch's files: the switch, its ports, tags, routes and equal-cost sets. */
#ifndef SW_PVT_H
#define SW_PVT_H

#include "emu_rng.h"
#include "sw.h"

#define SW_NIL UINT32_MAX
#define SW_NIL16 UINT16_MAX   /* no route, in the direct route table */
#define SW_PFCQ 32            /* PFC frames waiting per port: 8 classes x (pause + resume), twice over */
#define SW_FLOW_SLOTS 512     /* flow slots per equal-cost set (flowlet) */
#define SW_FLOW_SETS 128      /* only the first 128 sets seen get slots */
#define SW_EWMA_SHIFT 16      /* the ECN average is kept in bytes x 2^16 */

/*
 * The switch tag of an admitted packet (packet-handling.md, Ingress admission step 7): class, pools, ingress port
 * and byte count, used to release the charges. Tags also link a port's class queues (FIFO by index).
 *
 * Tag pool size (sw_create): the packets the switch can hold at once, bounded both by the buffer,
 * (TotalSharedBufferSize + headroom of every port in every lossless pool) / 46 B + one frame in flight per port,
 * and by the partition's packet pool (a switch cannot hold more packets than exist); the smaller, rounded up to a
 * power of two. That is a cap: the array starts at 64 tags and doubles when every tag is taken.
 */
struct sw_tag {
	struct wire_pkt *pkt;  /* NULL once handed to the link */
	uint32_t next;         /* next tag in the class queue, or in the free list */
	uint16_t bytes;        /* charged at ingress and at egress: an IP datagram, at most WIRE_MAX_FRAME */
	uint8_t lossless;      /* charged as a lossless class at ingress */
	uint8_t ect;           /* the packet is ECN-capable (ECT(0) or ECT(1)): a mark needs no look at it before */
	uint16_t in_port;
	uint8_t tc;            /* egress class: the packet's, or TC1 after a trim */
	uint8_t in_pool;
	uint8_t eg_pool;
	uint16_t wl;           /* the frame's length on the wire, FCS included: computed once, at arrival (or trim) */
};

struct sw_fifo {
	uint32_t head, tail;   /* tag indexes, SW_NIL when empty */
};

struct sw;

/* A port's accounting for one pool: one cache line, so a packet's charges touch one line per port. */
struct __attribute__((aligned(64))) sw_port_pool {
	uint64_t in_occ;      /* ingress: bytes brought into the pool and not released */
	uint64_t hr_occ;      /* ingress: bytes held in the port's headroom */
	uint64_t eg_occ;      /* egress: queued bytes, the frame being serialized included */
	uint64_t ecn_avg;     /* egress: EWMA of eg_occ at admissions, bytes << SW_EWMA_SHIFT */
	uint64_t in_total;    /* bytes ever charged at ingress, for scala-switch-agg-buff-stats */
	uint64_t eg_total_b;  /* bytes ever queued at egress */
	emu_timer_t refresh;  /* the pause we sent for the pool is refreshed */
	bool pausing;         /* a pause we sent for the pool is in force */
};

/*
 * A switch port, 64-byte aligned, laid out by what a forwarded packet touches: line 0 holds the link, the sending
 * state and the head of the stats (the frame and byte counters), then one line of addresses and the sending tag's
 * charges, one of class queues, one per pool's accounting; the pause state and the rest after.
 */
struct sw_port {
	struct net_dir *out;
	uint32_t sending;                 /* tag being serialized; SW_NIL for a PFC frame */
	bool busy;
	bool faces_nic;
	uint8_t qmask;                    /* bit tc: class tc has frames queued */
	uint8_t pmask;                    /* bit tc: the peer has paused class tc (paused_until[tc] != 0) */
	struct sw_port_stats st;
	_Alignas(64) uint8_t mac[6];      /* the port's own MAC: a forwarded frame's and a PFC frame's source */
	uint8_t peer_mac[6];              /* the MAC at the link's other end: a forwarded frame's destination */
	uint32_t pfcq_head, pfcq_tail;
	uint64_t eg_total;                /* eg_occ summed: the member's occupancy for flowlets */
	struct sw_fifo arb;               /* frames received in this picosecond, waiting for the arbiter (sw_rx.c) */
	struct sw_tag snd;                /* a copy of the sending tag's charges: tx_done reads them here */
	_Alignas(64) struct sw_fifo q[SW_TC_COUNT];
	struct sw_port_pool pl[SW_POOL_COUNT];
	struct sw *sw;
	uint32_t idx;
	uint64_t bps;
	emu_ps_t delay;
	/* pauses received from the peer, per class */
	emu_ps_t paused_until[SW_TC_COUNT]; /* 0 when not paused */
	emu_ps_t paused_since[SW_TC_COUNT];
	emu_ps_t pfc_ivl_start;             /* where the current interval of the PFC records began */
	emu_timer_t resume[SW_TC_COUNT];
	struct wire_pkt *pfcq[SW_PFCQ];   /* PFC frames, sent ahead of all data */
} __attribute__((aligned(64)));

/* One flow slot of a set's flow table. */
struct sw_flow_slot {
	emu_ps_t last;     /* time of the slot's last packet admitted to an egress queue */
	uint16_t member;
	uint8_t used;
};

/* An equal-cost set: the member ports, their stats, and (flowlet) its flow table. */
struct sw_set {
	uint32_t n;
	uint32_t first;              /* ports[0] when the ports run ports[0], ports[0] + 1, ...: no lookup; else SW_NIL */
	uint64_t mod_m;              /* sw_fastmod()'s multiplier for n: a member from a hash with no division */
	uint32_t *ports;
	struct sw_ecmp_member_stats *st;
	struct sw_flow_slot *slots;  /* SW_FLOW_SLOTS, or NULL (none, one member, or past the 128th set) */
	bool seen;
	emu_ps_t formed;
};

/* One exact-match route; open addressing, linear probing. */
struct sw_route {
	uint32_t ip;
	uint32_t set;      /* SW_NIL: empty bucket */
};

/* What a flowlet decision does to its slot once the packet is admitted. */
enum sw_choice_kind { SW_CH_KEEP = 0, SW_CH_ASSIGN, SW_CH_MOVE };

/* The member chosen for a packet, and what to commit when it is admitted (flowlet). */
struct sw_choice {
	uint32_t set;
	uint32_t member;            /* index in the set */
	uint32_t port;              /* its egress port */
	struct sw_flow_slot *slot;  /* NULL: nothing to commit */
	uint8_t kind;               /* enum sw_choice_kind */
	uint16_t from;              /* member before a move */
};

struct sw {
	struct sw_env env;
	const struct sw_params *p;
	struct wire_dscp_map dscp;
	int8_t role_of[64];         /* wire_dscp_role(&dscp, d) for each 6-bit codepoint d, looked up per packet */
	struct sw_buffer b;
	struct emu_rng rng;         /* (seed, node id): the ECN draws */
	struct emu_rng fl_rng;      /* (seed, run number, node id): the flowlet tie-breaks */
	uint32_t salt;
	uint32_t crc_z[2];          /* sw_flow_crc_consts(salt) */
	uint8_t ecmp_perm[SW_ECMP_PERM]; /* sw_ecmp_perm(salt): crc32WithSalt's permutation of the low 7 bits */
	struct sw_port *ports;       /* [n_ports]; NULL in a shell (sw_env.shell), which keeps shell_st instead */
	struct sw_port_stats *shell_st; /* a shell's ports' figures, loaded from the rank that ran it, or NULL */
	uint32_t n_ports;
	/* tags */
	struct sw_tag *tags;
	uint32_t n_tags;         /* the most tags the switch may have */
	uint32_t n_tags_alloc;   /* tags in the array so far: it doubles on demand (sw_tag_get()) */
	uint32_t tag_free;
	/* switch-wide pool occupancy */
	uint64_t in_occ[SW_POOL_COUNT];
	uint64_t hr_occ[SW_POOL_COUNT];
	uint64_t eg_occ[SW_POOL_COUNT];
	/* routes and equal-cost sets (sw_route.c) */
	uint16_t *dense;         /* set of destination route_lo + i, SW_NIL16 for none; while routes is NULL */
	uint32_t route_lo, route_span;
	struct sw_route *routes; /* hash table, once the routes are not dense; NULL before */
	uint32_t route_mask;     /* buckets - 1 */
	uint32_t n_routes;
	struct sw_set *sets;
	uint32_t n_sets, cap_sets;
	uint32_t set_last;           /* the set sw_route_add() found or made last: tried first (sw_route.c) */
	uint32_t n_flow_sets;    /* sets given a flow table so far */
	struct sw_flow_slot *flow_mem; /* SW_FLOW_SETS x SW_FLOW_SLOTS, flowlet only */
	/* the arbiter of frames received in one picosecond (sw_rx.c): one round-robin pointer for the switch */
	uint16_t *arb_ports;     /* ingress ports with frames in their arb queue, n_ports long */
	uint32_t arb_n;          /* > 0: they wait for the end of the scheduler's instant, on arb_end */
	uint32_t arb_next;       /* the ingress port served first next time, round robin */
	struct emu_sched_end arb_end;
	uint64_t c[SW_C_COUNT];
};

static inline void sw_fifo_push(struct sw *sw, struct sw_fifo *q, uint32_t t)
{
	sw->tags[t].next = SW_NIL;
	if (q->tail == SW_NIL)
		q->head = t;
	else
		sw->tags[q->tail].next = t;
	q->tail = t;
}

static inline uint32_t sw_fifo_pop(struct sw *sw, struct sw_fifo *q)
{
	uint32_t t = q->head;

	q->head = sw->tags[t].next;
	if (q->head == SW_NIL)
		q->tail = SW_NIL;
	return t;
}

/* The role of codepoint @p dscp: wire_dscp_role(&sw->dscp, dscp) from the switch's table. */
static inline int sw_dscp_role(const struct sw *sw, uint8_t dscp)
{
	return dscp < 64 ? sw->role_of[dscp] : -1;
}

/*
 * @p a % @p n for 32-bit values, with @p m = UINT64_MAX / n + 1 computed once (Lemire, Kaser, Kurz, "Faster
 * remainder by direct computation", 2019): exact for every a and n >= 1, two multiplies instead of a division.
 */
static inline uint32_t sw_fastmod(uint32_t a, uint64_t m, uint32_t n)
{
	return (uint32_t)(((unsigned __int128)(m * a) * n) >> 64);
}

/* The murmur3 32-bit finalizer: a bijective non-linear mix (route buckets, the ECMP salt and finalizer). */
static inline uint32_t sw_mix32(uint32_t h)
{
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
	return h;
}

/* sw.c: tags */
/** sw_tag_get() when every tag is taken: the array doubles, up to n_tags. SW_NIL at n_tags or without memory. */
uint32_t sw_tag_get_slow(struct sw *sw);

/** A free tag, or SW_NIL (the caller counts DROP_NO_TAG). */
static inline uint32_t sw_tag_get(struct sw *sw)
{
	uint32_t t = sw->tag_free;

	if (t == SW_NIL)
		return sw_tag_get_slow(sw);
	sw->tag_free = sw->tags[t].next;
	return t;
}

static inline void sw_tag_put(struct sw *sw, uint32_t t)
{
	sw->tags[t].pkt = NULL;
	sw->tags[t].next = sw->tag_free;
	sw->tag_free = t;
}

/* sw_route.c: routes and equal-cost sets */
/** sw_route_set() from the hash table, once the routes are not dense. */
uint32_t sw_route_set_hash(const struct sw *sw, uint32_t ip);

/** The set routing to @p ip, or SW_NIL. */
static inline uint32_t sw_route_set(const struct sw *sw, uint32_t ip)
{
	if (sw->routes == NULL) {
		uint32_t i = ip - sw->route_lo;

		return i < sw->route_span && sw->dense[i] != SW_NIL16 ? sw->dense[i] : SW_NIL;
	}
	return sw_route_set_hash(sw, ip);
}
/** Free the routes and the sets. */
void sw_routes_free(struct sw *sw);

/* sw_rx.c: receive path */
void sw_ingress_release(struct sw *sw, struct sw_tag *tag, emu_ps_t now);
void sw_arb_run(void *sw, void *unused, emu_ps_t now); /* the arbiter, as sw->arb_end's callback */

/* sw_tx.c: egress scheduling and transmission */
void sw_port_kick(struct sw *sw, struct sw_port *e, emu_ps_t now);
bool sw_ecn_decide(struct sw *sw, const struct sw_port *e, uint32_t pool);

/*
 * The queue's moving average after an admission, with the queue's occupancy counted:
 * meanQlen = (1 - EwmaWeight) x meanQlen + EwmaWeight x currQlen, in bytes x 2^16, rounded down.
 */
static inline void sw_ecn_update(const struct sw *sw, struct sw_port *e, uint32_t pool)
{
	uint64_t w = sw->p->ewma_weight_ppm, avg = e->pl[pool].ecn_avg;

	if (e->pl[pool].eg_occ < (1ull << (44 - SW_EWMA_SHIFT)) && avg < (1ull << 44)) {
		/* both below 2^44: the weighted sum stays below 2^44 x 10^6 < 2^64, the same value in 64 bits */
		uint64_t cur = e->pl[pool].eg_occ << SW_EWMA_SHIFT;

		e->pl[pool].ecn_avg = (avg * (SW_PPM - w) + cur * w) / SW_PPM;
		return;
	}
	unsigned __int128 cur = (unsigned __int128)e->pl[pool].eg_occ << SW_EWMA_SHIFT;

	e->pl[pool].ecn_avg = (uint64_t)(((unsigned __int128)avg * (SW_PPM - w) + cur * w) / SW_PPM);
}

/* sw_pfc.c: PFC sent on ingress occupancy, PFC received */
void sw_pfc_pause(struct sw *sw, struct sw_port *in, uint32_t pool, emu_ps_t now);
void sw_pfc_check_xon(struct sw *sw, struct sw_port *in, uint32_t pool, emu_ps_t now);
void sw_pfc_rx(struct sw *sw, struct sw_port *e, const struct wire_pkt *pkt, emu_ps_t now);

/* sw_ecmp.c: route lookup, member choice, flowlets */
/** Find @p dst's set and choose the member for @p pkt of class @p tc. Returns false when there is no route. */
bool sw_ecmp_choose(struct sw *sw, struct wire_pkt *pkt, uint32_t tc, emu_ps_t now, struct sw_choice *ch);
/** sw_flow_hash() with the switch's own method and salt, as the per-packet path computes it (the 5-tuple's CRC kept
 * in @p p by its first switch): the same values. */
uint16_t sw_flow_hash_pkt(const struct sw *sw, struct wire_pkt *p, uint32_t n);
/** The CRC registers after 13 zero bytes from @p salt (z[0]) and from all ones (z[1]). */
void sw_flow_crc_consts(uint32_t salt, uint32_t z[2]);
/** The packet was admitted to the chosen member's queue with @p bytes: update the slot and the member stats. */
void sw_ecmp_commit(struct sw *sw, const struct sw_choice *ch, uint32_t bytes, emu_ps_t now);

/** The part of port @p e's ongoing pause of class @p tc inside its current PFC records interval, at @p now. */
emu_ps_t sw_pause_in_ivl(const struct sw_port *e, uint32_t tc, emu_ps_t now);

#endif /* SW_PVT_H */
