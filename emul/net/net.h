/* Partitions, devices and links: how a packet descriptor gets from one device port to another in time. */
#ifndef NET_H
#define NET_H

#include <stdint.h>
#include <string.h>

#include "emu_pool.h"
#include "emu_rng.h"
#include "emu_sched.h"
#include "emu_time.h"
#include "net_bind.h"
#include "wire.h"

/*
 * One device entry point (STYLE 19): every device (NIC, switch) implements receive(). The device takes ownership
 * of @p pkt: it queues, forwards, or counts and frees it. tx_done() tells the device that its port finished
 * serializing and is idle again, so it can pick the next frame (one pending event per port).
 */
struct net_dev_ops {
	void (*receive)(void *dev, uint32_t port, struct wire_pkt *pkt, emu_ps_t now);
	void (*tx_done)(void *dev, uint32_t port, emu_ps_t now);
};

/* Counters of a partition, with named reasons. */
#define NET_COUNTERS(X) \
	X(NONE, "none", "none") \
	X(PKT_POOL_EMPTY, "pkt_pool_empty", "packet pool empty: a packet could not be created") \
	X(SCHED_FULL, "sched_full", "scheduler full: an event could not be scheduled") \
	X(LINK_UNCONNECTED, "link_unconnected", "frame sent on a link direction with no receiver") \
	X(EXT_RX_BAD_FRAME, "ext_rx_bad_frame", "frame from an external port refused by the decoder") \
	X(EXT_RX_NO_DEVICE, "ext_rx_no_device", "frame from an external port with no device attached") \
	X(IMPAIR_DROP, "impair_drop", "data frame dropped by a link fixture (impair: drop)") \
	X(LINK_DOWN_DROP, "link_down_drop", "frame lost: its link was down (topology.faults)") \
	X(LINK_LOSS_DROP, "link_loss_drop", "frame lost to its link's loss rate (topology.faults)") \
	X(RAW_POOL_FULL, "raw_pool_full", "real device's frame dropped: every buffer of the partition's raw pool in use") \
	X(RAW_CROSS_DROP, "raw_cross_drop", "real device's frame dropped: a virtual-time re-run's threads carry no bytes")

#define NET_COUNTER_ENUM(n, k, s) NET_C_##n,
enum net_counter { NET_COUNTERS(NET_COUNTER_ENUM) NET_C_COUNT };
#undef NET_COUNTER_ENUM

/** Name of counter @p c. */
const char *net_counter_name(int c);

/** What counter @p c counts, in words (docs/summary.md); "unknown" outside the enum. */
const char *net_counter_desc(int c);

/**
 * A partition: one scheduler, one packet pool, its counters. Every device of the partition takes its packets and
 * schedules its events here. Embedded by the run, hence public.
 */
struct net_part {
	struct emu_sched *sched;
	struct emu_pool *pkts;
	struct emu_pool *raw;     /* WIRE_MAX_FRAME buffers of RAW descriptors (net_part_raw_init()); NULL if none */
	struct net_refs *refs;    /* real ports' buffers its RAW descriptors hold (net_pkt_raw_keep()); NULL if none */
	uint64_t counters[NET_C_COUNT];
};

/**
 * Create the scheduler and packet pool of @p np: at most @p max_events pending events, @p max_pkts descriptors
 * (caps: both take memory as they fill). Returns 0 or -ENOMEM.
 */
int net_part_init(struct net_part *np, uint32_t max_events, uint32_t max_pkts);

/** Free what net_part_init() took. Accepts a zeroed partition. */
void net_part_fini(struct net_part *np);

/* The packet pool's stride: the descriptor rounded up to the cache line (192 B, three lines), so every descriptor
 * starts a line (emu_pool aligns objects of a multiple of 64 to 64) and a kind's bytes span no more lines than
 * they must: two for a NACK or CP (wire_pkt_len()), three for the rest. */
#define NET_PKT_STRIDE ((sizeof(struct wire_pkt) + 63) & ~(size_t)63)
_Static_assert(sizeof(struct wire_pkt) <= NET_PKT_STRIDE, "a descriptor fits the pool's stride");

/** A zeroed descriptor from the pool, or NULL (counted as NET_C_PKT_POOL_EMPTY). */
static inline struct wire_pkt *net_pkt_alloc(struct net_part *np)
{
	struct wire_pkt *p = emu_pool_get(np->pkts);

	if (p == NULL) {
		np->counters[NET_C_PKT_POOL_EMPTY]++;
		return NULL;
	}
	memset(p, 0, sizeof(*p));
	return p;
}

/*
 * A descriptor of kind @p kind from the pool with the bytes its kind reads zeroed (wire_pkt_len(): the common part,
 * the PDS header and the kind's member of the union; an ACK 160 of the 192 B), kind set; or NULL (counted as
 * NET_C_PKT_POOL_EMPTY). The rest is left as the pool had it: a kind never reads it. Built with NET_PKT_POISON, the
 * rest is filled with 0xa5 instead, so a test that reads it sees garbage (docs/performance.md, "Lean packets").
 */
static inline struct wire_pkt *net_pkt_alloc_kind(struct net_part *np, uint8_t kind)
{
	struct wire_pkt *p = emu_pool_get(np->pkts);
	size_t len = wire_pkt_len(kind);

	if (p == NULL) {
		np->counters[NET_C_PKT_POOL_EMPTY]++;
		return NULL;
	}
	memset(p, 0, len);
#ifdef NET_PKT_POISON
	memset((uint8_t *)p + len, 0xa5, sizeof(*p) - len);
#endif
	p->kind = kind;
	return p;
}

/*
 * A copy of @p src from the pool: the bytes its kind reads (wire_pkt_len()), not the whole descriptor; or NULL
 * (counted as NET_C_PKT_POOL_EMPTY). The copy's next, uid and ctx are @p src's: the caller resets what it must.
 */
static inline struct wire_pkt *net_pkt_copy(struct net_part *np, const struct wire_pkt *src)
{
	struct wire_pkt *p = emu_pool_get(np->pkts);
	size_t len = wire_pkt_len(src->kind);

	if (p == NULL) {
		np->counters[NET_C_PKT_POOL_EMPTY]++;
		return NULL;
	}
	memcpy(p, src, len);
#ifdef NET_PKT_POISON
	memset((uint8_t *)p + len, 0xa5, sizeof(*p) - len);
#endif
	return p;
}

/** Give the port's buffer RAW descriptor @p p holds back to its port (net_pkt_free(); net_part_refs). */
void net_pkt_ref_free(struct net_part *np, const struct wire_pkt *p);

/** Return @p p to the pool, a RAW one's bytes to the raw pool or its port's buffer to the port. Accepts NULL. */
static inline void net_pkt_free(struct net_part *np, struct wire_pkt *p)
{
	if (p != NULL && p->kind == WIRE_KIND_RAW) {
		if (p->raw.buf_ref != NULL)
			net_pkt_ref_free(np, p);
		else if (p->raw.buf != NULL)
			emu_pool_put(np->raw, p->raw.buf);
	}
	emu_pool_put(np->pkts, p);
}

/* Buffers of a partition's raw pool: real devices' frames in its part of the fabric at once (WIRE_MAX_FRAME each,
 * taken as they fill: 4.5 MiB at most). A frame that finds none is dropped, counted as raw_pool_full. */
#define NET_RAW_BUFS 512

/**
 * Give @p np a pool of @p count buffers of WIRE_MAX_FRAME bytes for RAW descriptors (taken as they fill). Once;
 * again is a no-op. Returns 0 or -ENOMEM.
 */
int net_part_raw_init(struct net_part *np, uint32_t count);

/**
 * A RAW descriptor (wire_raw_take()) of the @p len bytes at @p frame (at most WIRE_MAX_FRAME), its bytes copied to
 * a buffer of the raw pool. NULL when the frame does not describe (*@p reason set to the wire reason) or a pool is
 * empty (*@p reason 0; counted as NET_C_RAW_POOL_FULL or NET_C_PKT_POOL_EMPTY).
 */
struct wire_pkt *net_pkt_raw(struct net_part *np, const uint8_t *frame, size_t len, uint16_t uet_port, int *reason);

/**
 * A copy of RAW descriptor @p d in @p np, its d->payload_len bytes copied from @p bytes to a buffer of @p np's raw
 * pool (made at the first one: another partition's frames crossing to this one). NULL when a pool is empty
 * (counted as for net_pkt_raw()).
 */
struct wire_pkt *net_pkt_raw_copy(struct net_part *np, const struct wire_pkt *d, const uint8_t *bytes);

/*
 * Zero-copy forwarding (docs/realtime.md, "Real devices across the fabric"): a real port's frame bound for another
 * real device crosses the fabric in the buffer the port received it in (net_bind.h keep), rewritten there, and
 * that buffer is what the port it leaves by sends (tx_buf). The partition keeps a table of the buffers its RAW
 * descriptors hold, at most NET_REFS_MAX (past it a frame is copied into the raw pool, as before), so every one
 * goes back exactly once: sent on, freed with its descriptor (a drop), or at the run's end
 * (net_part_refs_release()). Written by the partition's lcore only.
 *
 * NET_REFS_MAX: a switch buffer of 8 MB (the forwarding benchmark's) holds ~2,000 frames of 4 KiB; the DPDK mbuf
 * pool has room for them beside its rings (dataplane/dp.c: 32,767 mbufs where the rings of 16 ports and the caches
 * need 17,664, so two lcores' tables of 2,048 still leave every ring its fill).
 */
#define NET_REFS_MAX 2048
struct net_refs {
	uint64_t kept;     /* buffers taken from the ports */
	uint64_t sent;     /* handed to a port to send (net_pkt_ref_take()) */
	uint64_t freed;    /* given back with their descriptors (drops) */
	uint64_t released; /* given back at the run's end, their descriptors still in the fabric */
	uint32_t n_free;
	uint16_t free[NET_REFS_MAX];      /* slots not in use */
	void *ref[NET_REFS_MAX];          /* a slot's buffer, NULL when free */
	const struct net_bind *from[NET_REFS_MAX]; /* and the port it came from (its buf_free) */
};

/**
 * A RAW descriptor (wire_raw_take()) of frame @p f of port @p b's last burst, holding the port's own buffer when
 * the port can hand it over (keep) and the table has a slot; else its bytes copied, as net_pkt_raw(). NULL when
 * the frame does not describe (*@p reason set) or a pool is empty (*@p reason 0, counted); the port keeps the
 * buffer then.
 */
struct wire_pkt *net_pkt_raw_keep(struct net_part *np, const struct net_bind *b, const struct net_rx_frame *f,
				  uint16_t uet_port, int *reason);

/**
 * The port buffer RAW descriptor @p p holds, taken from it to be sent by a port whose ops are @p ops (tx_buf):
 * the descriptor no longer owns it (its net_pkt_free() leaves it alone). NULL when @p p holds none, or one of
 * ports of other ops (copy it then).
 */
void *net_pkt_ref_take(struct net_part *np, const struct wire_pkt *p, const struct net_bind_ops *ops);

/** Give back every port buffer @p np's descriptors still hold (the run's end, before the ports close). Their
 *  descriptors must not be sent after. Accepts a partition without a table. */
void net_part_refs_release(struct net_part *np);

/** Port buffers @p np's descriptors hold now: 0 once net_part_refs_release() ran. */
uint32_t net_part_refs_out(const struct net_part *np);

/** Schedule an event, counting NET_C_SCHED_FULL on failure. Returns 0 or -ENOSPC. */
static inline int net_sched(struct net_part *np, emu_ps_t when, emu_event_fn fn, void *a, void *b, emu_timer_t *h)
{
	int rc = emu_sched_at(np->sched, when, fn, a, b, h);

	if (rc < 0)
		np->counters[NET_C_SCHED_FULL]++;
	return rc;
}

/** A device port: the device, its ops and the port number passed back to them, and the device's entity in the
 * schedulers' order (emu_sched_set_ent(): a frame's arrival runs as its receiver; 0 when the run counts none). */
struct net_endpoint {
	void *dev;
	const struct net_dev_ops *ops;
	uint32_t port;
	uint32_t ent;
};

/** Sees every frame entering a link direction, at the time its first bit enters (capture points). */
typedef void (*net_tap_fn)(void *arg, uint32_t dir, const struct wire_pkt *pkt, emu_ps_t now);

/**
 * Sees a frame a link direction loses (a fixture's drop, a fault) at the time its first bit would have entered the
 * link, with the reason it is counted under (enum net_counter: NET_C_IMPAIR_DROP, NET_C_LINK_DOWN_DROP,
 * NET_C_LINK_LOSS_DROP): capture points note "dropped here" (pcapng). Must not keep @p pkt.
 */
typedef void (*net_drop_fn)(void *arg, uint32_t dir, const struct wire_pkt *pkt, emu_ps_t now, int reason);

/** Takes frames a link direction sends off the model, to a real port; must not keep @p pkt. */
typedef void (*net_ext_fn)(void *arg, const struct wire_pkt *pkt, emu_ps_t now);

struct net_dir;

/**
 * Takes a frame that crosses to another partition on direction @p d, due to arrive at @p at (last bit in), its
 * arrival's place in the order drawn by the sender (@p k): the partition's run copies it to the receiver's, which
 * gives it to net_dir_arrive() or net_dir_arrive_key(). Must not keep @p pkt (the sender's partition frees it).
 */
typedef void (*net_cross_fn)(void *arg, struct net_dir *d, const struct wire_pkt *pkt, emu_ps_t at,
			     const struct emu_sched_key *k);

#define NET_LINK_MAX_TAPS 8 /* taps per link (capture points: at most 8 captures of one link) */

/* What a test fixture does to one data frame on a link direction (a lab impairment). */
enum net_impair_action {
	NET_IMPAIR_TRIM = 0,      /* cut to its PDS header, DSCP rewritten to TRIMMED */
	NET_IMPAIR_TRIM_LASTHOP,  /* the same, DSCP TRIMMED_LASTHOP */
	NET_IMPAIR_DROP,          /* lost: neither the taps nor the receiver see it */
	NET_IMPAIR_DELAY,         /* arrives @p delay later than it would */
};

/** Impair the @p nth data frame (1-based, retransmissions included) sent on a direction. */
struct net_impair {
	uint64_t nth;
	uint8_t action;       /* enum net_impair_action */
	emu_ps_t delay;
};

/** One direction of a link. */
struct net_dir {
	struct net_link *link;
	uint32_t index;            /* 0: a -> b, 1: b -> a */
	struct net_endpoint from;  /* told tx_done */
	struct net_endpoint to;    /* receives the frame, unless ext is set */
	struct net_part *np;       /* the sender's partition: its tx_done, its frames' descriptors, its drops */
	struct net_part *rx_np;    /* the receiver's: the arrival (the link's partition unless net_link_parts()) */
	emu_ps_t busy_until;       /* end of the frame being serialized */
	net_ext_fn ext;
	void *ext_arg;
	net_cross_fn cross;        /* set: the receiver is in another partition, run by another thread */
	void *cross_arg;
	uint64_t frames, bytes;    /* frames and wire bytes (FCS included) sent */
	uint64_t drops;            /* frames lost on the direction (a fixture's drop) */
	uint64_t trims;            /* data frames trimmed on the direction (a fixture's trim) */
	uint64_t pauses;           /* PFC pause frames (non-zero quanta) sent on the direction */
	const struct net_impair *impair; /* test fixture, applied where the frame leaves the sender's port */
	uint32_t n_impair;
	uint8_t dscp_trimmed, dscp_trimmed_lasthop;
	uint64_t data_frames;      /* data frames sent, to match net_impair.nth */
	uint32_t down;             /* faults holding the direction down now: frames entering it are lost */
	struct emu_rng loss_rng;   /* the direction's own stream for the link's loss draws (its sender's only) */
};

/**
 * A full-duplex point-to-point link: rate, propagation delay, no interframe gap (Scala). A frame of L wire bytes
 * sent at t occupies the direction until t + ser(L), and arrives (last bit) at t + ser(L) + delay.
 */
struct net_link {
	struct net_part *np;
	uint64_t bps;
	emu_ps_t ps_per_byte;      /* emu_ps_per_byte(bps): serialization by one multiply when whole, else 0 */
	emu_ps_t delay;
	struct net_dir dir[2];
	uint32_t loss_ppm;         /* a fault's loss rate: each frame entering is lost with this probability */
	net_tap_fn taps[NET_LINK_MAX_TAPS];
	void *tap_args[NET_LINK_MAX_TAPS];
	uint32_t n_taps;
	net_drop_fn drop_taps[NET_LINK_MAX_TAPS]; /* called on the drop path only: no cost to frames that cross */
	void *drop_tap_args[NET_LINK_MAX_TAPS];
	uint32_t n_drop_taps;
};

/** Set up @p l between endpoints @p a and @p b. */
void net_link_init(struct net_link *l, struct net_part *np, uint64_t bps, emu_ps_t delay, struct net_endpoint a,
		   struct net_endpoint b);

/**
 * Put the two ends of @p l in partitions @p a (end a) and @p b (end b): each direction's sender uses its own
 * partition, its arrival is the receiver's. Both the same: as net_link_init() left it. Before faults: a fault's
 * events go to each direction's sender (net_link_fault_down).
 */
void net_link_parts(struct net_link *l, struct net_part *a, struct net_part *b);

/**
 * Give direction @p d a fixture that trims, drops or delays chosen data frames (@p imp must outlive the link).
 * Trimmed frames take DSCP @p dscp_trimmed or @p dscp_trimmed_lasthop. The sender's serialization is that of the
 * full frame; the taps and the receiver see the frame as the fixture leaves it.
 */
void net_dir_set_impair(struct net_dir *d, const struct net_impair *imp, uint32_t n, uint8_t dscp_trimmed,
			uint8_t dscp_trimmed_lasthop);

/**
 * The pause a PFC frame of @p quanta asks for on a link of @p bps and @p delay: 512 bit times per quantum (64 B at
 * the link rate), plus the delay (802.1Qbb; the NICs and the switches alike).
 */
static inline emu_ps_t net_pfc_pause_time(uint32_t quanta, uint64_t bps, emu_ps_t delay)
{
	return emu_ser_ps((uint64_t)quanta * 64, bps) + delay;
}

/**
 * Faults (a lab's gray failures): take @p l down at @p down and back up at @p up (EMU_PS_NEVER: stays down), both
 * directions, each in its sender's partition, as its sender's entity; frames entering a down link are lost,
 * frames already on it arrive. Returns 0 or -ENOSPC.
 */
int net_link_fault_down(struct net_link *l, emu_ps_t down, emu_ps_t up);

/** Lose each frame entering @p l with probability @p ppm / 1e6, drawn by each direction from a stream of its own
 *  seeded by (@p seed, @p id) (direction a -> b) and (@p seed, @p id + 2^62) (b -> a). */
void net_link_fault_loss(struct net_link *l, uint32_t ppm, uint64_t seed, uint64_t id);

/** Add a tap; returns 0 or -ENOSPC past NET_LINK_MAX_TAPS. */
int net_link_add_tap(struct net_link *l, net_tap_fn fn, void *arg);

/** Add a tap of the frames the link loses; returns 0 or -ENOSPC past NET_LINK_MAX_TAPS. */
int net_link_add_drop_tap(struct net_link *l, net_drop_fn fn, void *arg);

/**
 * Send @p pkt on direction @p d at @p now. The direction must be idle (now >= busy_until; asserted). Takes
 * ownership of @p pkt. Taps see it at @p now; the receiver gets it at the arrival time, or the external sink
 * gets it at @p now and the descriptor is freed. The sender's tx_done runs when serialization ends.
 * Returns the time serialization ends.
 */
emu_ps_t net_dir_xmit(struct net_dir *d, struct wire_pkt *pkt, emu_ps_t now);

/**
 * net_dir_xmit() for a sender that knows the frame's length on the wire already, @p wl = wire_wire_len(@p pkt), and
 * whether it is a PFC frame (@p kind WIRE_KIND_PFC) or not (WIRE_KIND_NONE), or its kind: the common path then
 * reads nothing of @p pkt, which stays out of the cache until its receiver takes it.
 */
emu_ps_t net_dir_xmit_len(struct net_dir *d, struct wire_pkt *pkt, size_t wl, uint8_t kind, emu_ps_t now);

/**
 * A frame that crossed from another partition (net_cross_fn), in a descriptor of the receiver's partition: it
 * arrives at @p at, or at the partition's current time if that has passed. Takes ownership of @p pkt. Returns 0,
 * or -ENOSPC (the scheduler is full: counted, and @p pkt freed).
 */
int net_dir_arrive(struct net_dir *d, struct wire_pkt *pkt, emu_ps_t at);

/** net_dir_arrive() in the place of the order the sender drew (@p k): virtual time over partitions. */
int net_dir_arrive_key(struct net_dir *d, struct wire_pkt *pkt, emu_ps_t at, const struct emu_sched_key *k);

/** Hand a frame that arrived from an external port to the receiving endpoint of @p d at @p now. */
void net_dir_inject(struct net_dir *d, struct wire_pkt *pkt, emu_ps_t now);

/**
 * A frame from an external port that stands for the far end of @p d itself (another process's switch, which
 * handed it over as its serialization started): counted and seen by the taps at @p now, as a frame entering the
 * link, and delivered at now + its serialization at the link's rate + the link's delay, as the link would.
 */
void net_dir_inject_link(struct net_dir *d, struct wire_pkt *pkt, emu_ps_t now);

#endif /* NET_H */
