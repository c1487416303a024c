/* The load balancer of one PDC group: the entropy value (UDP source port) of each data packet under None, Default
 * Packet Spraying or Recycled Entropy Packet Spraying (spec/scala/uet-nic-multipath.md), with REPS path feedback.
 *
 * Time is picoseconds (emu_ps_t). All randomness comes from the struct emu_rng the caller passes in (the NIC's own
 * stream), so a run repeats exactly. The per-packet functions allocate nothing and use no floating point.
 */
#ifndef NIC_LB_H
#define NIC_LB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "emu_rng.h"
#include "emu_time.h"
#include "nic_params.h"

/* Counters of one load balancer, X(ENUM, "key", "description") (emu_counter.h); 0 is "none". */
#define NIC_LB_COUNTERS(X) \
	X(NONE, "none", "none") \
	X(PICKS, "picks", "entropy values handed out (data packets and retransmissions)") \
	X(EXPLORED, "explored", "REPS: random values drawn from 0..EntropyValueSetSize-1") \
	X(EXPLORED_WINDOW, "explored_window", "REPS: of those, forced by the exploration window after freezing") \
	X(REUSED, "reused", "REPS: cached values reused (the oldest recycled value, then removed)") \
	X(REUSED_FROZEN, "reused_frozen", "REPS: cache entries reused in turn while freezing with no recycled value left") \
	X(RECYCLED, "recycled", "REPS: values added to the cache (ACK without ECN echo, NACK for a last-hop trim)") \
	X(OVERWRITTEN, "overwritten", "REPS: recycled values that took the place of an unused oldest value in a full cache") \
	X(DISCARDED_ECN, "discarded_ecn", "REPS: values discarded from ACKs with the ECN echo") \
	X(DISCARDED_TRIM, "discarded_trim", "REPS: values discarded from NACKs for packets trimmed before the last hop") \
	X(TIMEOUTS, "timeouts", "REPS: path failures from retransmission timeouts") \
	X(LATE, "late", "REPS: path failures from early failure detection") \
	X(FAILURES_IGNORED, "failures_ignored", \
	  "REPS: path failures while freezing or in the exploration window (no new freezing)") \
	X(FROZEN, "frozen", "REPS: freezing periods started") \
	X(WINDOWS, "windows", "REPS: freezing periods ended, each opening an exploration window")

#define NIC_LB_C_ENUM(name, key, desc) NIC_LB_C_##name,
enum nic_lb_counter { NIC_LB_COUNTERS(NIC_LB_C_ENUM) NIC_LB_C_COUNT };
#undef NIC_LB_C_ENUM

/** How the last value handed out was chosen (for uet-monitor rows and tests). */
enum nic_lb_pick {
	NIC_LB_PICK_NONE = 0,     /* nothing handed out yet */
	NIC_LB_PICK_FIXED,        /* None: the group's one value */
	NIC_LB_PICK_ROUND_ROBIN,  /* Default Packet Spraying */
	NIC_LB_PICK_EXPLORE,      /* REPS: a random value */
	NIC_LB_PICK_REUSE,        /* REPS: the oldest recycled value */
	NIC_LB_PICK_REUSE_FROZEN, /* REPS, freezing: a cache entry in turn */
};

/* Caches of up to 2^NIC_LB_INLINE_BITS values (REPSBufferSizeMaskBits 0..4, the default is 3) live inside the
 * struct; a larger cache needs caller storage of nic_lb_storage_bytes() (nic_lb_init_ext()). */
#define NIC_LB_INLINE_BITS 4
#define NIC_LB_INLINE (1u << NIC_LB_INLINE_BITS)

/*
 * One group's spraying state. Public because the NIC embeds one in each PDC group (no allocation per group);
 * callers touch it only through the functions below.
 */
struct nic_lb {
	uint8_t type;          /* enum nic_spray, from PacketSprayingType at init */
	uint8_t last_pick;     /* enum nic_lb_pick */
	bool frozen;           /* REPS: freezing */
	uint16_t fixed;        /* None: the group's value */
	uint16_t last_ev;      /* the value handed out last (before any: None's value, or StartingPortOffset) */
	uint32_t step;         /* Default: values handed out so far (the round robin's position) */
	uint32_t mask;         /* REPS: cache size - 1 */
	uint32_t head;         /* REPS: slot the next recycled value goes to */
	uint32_t count;        /* REPS: slots that hold a value (ever recycled), at most mask + 1 */
	uint32_t fresh;        /* REPS: values recycled and not yet reused, the newest `fresh` slots before head */
	uint32_t frz_next;     /* REPS: slot reused next while freezing with fresh == 0 */
	uint32_t win_len;      /* REPS: exploration window, packets (link rate x InitialBaseRTT / nominal packet) */
	uint32_t win_left;     /* REPS: packets left in the open exploration window, 0 when closed */
	emu_ps_t frozen_since; /* REPS: when the current freezing began */
	uint16_t *ext;         /* REPS: caller storage for a cache above NIC_LB_INLINE values, else NULL */
	uint16_t inl[NIC_LB_INLINE];
	uint64_t c[NIC_LB_C_COUNT];
};

/**
 * Bytes of caller storage the cache needs under @p p: 0 unless PacketSprayingType is REPS and
 * REPSBufferSizeMaskBits exceeds NIC_LB_INLINE_BITS, else 2 x 2^REPSBufferSizeMaskBits (up to 128 KiB at 16).
 */
size_t nic_lb_storage_bytes(const struct nic_params *p);

/**
 * Start a group's spraying state: empty cache, not freezing, round robin at StartingPortOffset, None's value
 * StartingPortOffset until nic_lb_set_fixed(). The exploration window is computed from DataRate
 * (p->data_rate_bps). Only for configurations where nic_lb_storage_bytes(p) is 0 (asserted).
 */
void nic_lb_init(struct nic_lb *lb, const struct nic_params *p);

/**
 * As nic_lb_init(), with the link rate the NIC computes with (@p link_bps, bit/s: the lower of DataRate and its
 * link's) and @p storage of nic_lb_storage_bytes(p) bytes, 2-byte aligned, owned by the caller and valid for as
 * long as @p lb is used (NULL when nic_lb_storage_bytes(p) is 0).
 */
void nic_lb_init_ext(struct nic_lb *lb, const struct nic_params *p, uint64_t link_bps, uint16_t *storage);

/** None: set the group's one value, the local port of the PDC that created the group. Other types ignore it. */
void nic_lb_set_fixed(struct nic_lb *lb, uint16_t ev);

/**
 * The entropy value of the group's next data packet or retransmission, to be written as its UDP source port.
 * Each call is one packet: it advances the round robin, takes a value from the REPS cache, counts a packet of
 * the exploration window, or draws from @p rng (REPS only). @p now is unused today and kept for symmetry.
 */
uint16_t nic_lb_next(struct nic_lb *lb, const struct nic_params *p, struct emu_rng *rng, emu_ps_t now);

/**
 * A data ACK came back carrying @p ev (its UDP source port). REPS: without the ECN echo the value is recycled
 * (added to the cache, which may end freezing); with it, discarded. Ignored under None and Default.
 */
void nic_lb_on_ack(struct nic_lb *lb, const struct nic_params *p, uint16_t ev, bool ecn_echo, emu_ps_t now);

/**
 * A NACK for a packet still outstanding came back carrying @p ev. REPS: a trim on the last hop (@p last_hop,
 * UET_TRIMMED_LASTHOP) recycles the value, since another path cannot avoid it; a trim on the way discards it.
 * Ignored under None and Default.
 */
void nic_lb_on_nack(struct nic_lb *lb, const struct nic_params *p, uint16_t ev, bool last_hop, emu_ps_t now);

/**
 * A path failure of a data packet, counted under @p why: NIC_LB_C_TIMEOUTS when its retransmission timer expired,
 * NIC_LB_C_LATE when it is still unacknowledged nic_lb_failure_deadline() after it was sent (early failure
 * detection); any other value is a programming error (asserted). REPS: starts freezing unless REPS is freezing or
 * in the exploration window already; the packet's entropy value is not looked for in the cache. Ignored under
 * None and Default.
 */
void nic_lb_on_failure(struct nic_lb *lb, enum nic_lb_counter why, emu_ps_t now);

/**
 * Delay after a data packet is sent at which it counts as late: FailureDetectionRTTMultiplier x @p base_rtt (the
 * base RTT congestion control keeps, InitialBaseRTT until a lower one is measured): 18 us at the defaults.
 * EMU_PS_NEVER when PacketSprayingType is not REPS, when the multiplier is 0, or on overflow.
 */
emu_ps_t nic_lb_failure_deadline(const struct nic_params *p, emu_ps_t base_rtt);

/**
 * Exploration window in packets for link rate @p link_bps: link rate x InitialBaseRTT / 8 bytes, divided by the
 * nominal packet RdmaDataMSS + 88 B, rounded down. 71 at the defaults.
 */
uint32_t nic_lb_window_pkts(const struct nic_params *p, uint64_t link_bps);

/** Counter @p c (enum nic_lb_counter); 0 for an unknown index. */
uint64_t nic_lb_counter(const struct nic_lb *lb, int c);

/** Name and description of counter @p c, or "unknown". */
const char *nic_lb_counter_name(int c);
const char *nic_lb_counter_desc(int c);

/** REPS state, for records and tests: freezing; packets left in the exploration window; recycled values not yet
 * reused; slots holding a value. */
bool nic_lb_frozen(const struct nic_lb *lb);
uint32_t nic_lb_window_left(const struct nic_lb *lb);
uint32_t nic_lb_cached(const struct nic_lb *lb);
uint32_t nic_lb_slots_used(const struct nic_lb *lb);

/** How the last value was chosen (enum nic_lb_pick). */
int nic_lb_last_pick(const struct nic_lb *lb);

/**
 * The value the group's last data packet or retransmission took, changing no state: for control packets such as
 * the base-RTT probe, which must not step the round robin or consume a cached value. Before the first packet:
 * None's value, or StartingPortOffset (Default), or 0 (REPS: nothing chosen yet; no draw is made).
 */
uint16_t nic_lb_last_ev(const struct nic_lb *lb);

#endif /* NIC_LB_H */
