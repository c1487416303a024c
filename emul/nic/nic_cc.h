/* NSCC, the sender's congestion window (spec/scala/uet-nic-congestion-control.md; UET 1.0 §3.6.13 as summarised
 * in spec/uet-wire-and-algorithms.md §2): a self-contained engine the NIC embeds once per PDC group.
 *
 * Representation (docs/nscc.md): windows and byte counts are integer bytes at the nominal packet size (payload +
 * 88); times are emu_ps_t picoseconds; the configured double multipliers are turned once, in
 * nic_cc_consts_init(), into parts per million (ppm: 0.15 -> 150,000, so every decimal default is exact) and the
 * increase gains into reduced integer fractions. The per-event paths use integer arithmetic only (128-bit
 * intermediates), allocate nothing and print nothing, so the same inputs give the same window bit for bit.
 */
#ifndef NIC_CC_H
#define NIC_CC_H

#include <stdbool.h>
#include <stdint.h>

#include "emu_time.h"
#include "nic_params.h"

/** A measured RTT lowers the base RTT only when it is more than this below it; the base becomes RTT + this
 * ("about 1 µs", page section Base RTT). */
#define NIC_CC_BASE_SLACK_PS (1 * EMU_PS_PER_US)
/** Increases are batched and applied once more than this many nominal packets have been acknowledged (UET
 * adjust_bytes_threshold = 8 x MTU), or once a base RTT has passed since the last application. */
#define NIC_CC_ADJUST_PKTS 8
/** The unit of the converted multipliers. */
#define NIC_CC_PPM 1000000ULL
/** Largest receiver penalty (the 7-bit rcv_cwnd_pend field). */
#define NIC_CC_PENALTY_MAX 127

/** An integer fraction num / den, reduced; applied as floor(x * num / den) with a 128-bit product. */
struct nic_cc_frac {
	uint64_t num;
	uint64_t den;
};

/**
 * Everything NSCC derives from the NIC's attributes and link rate: computed once per NIC by nic_cc_consts_init()
 * and read-only afterwards (one copy shared by all the NIC's groups). Public so the NIC can embed it.
 */
struct nic_cc_consts {
	uint64_t mtu;                /* nominal packet: RdmaDataMSS + 88 B (4,184 B); the window's lower bound */
	uint64_t link_bps;           /* link rate counted in whole Gb/s (page: The congestion window) */
	uint64_t bdp;                /* link rate x InitialBaseRTT / 8, bytes (300,000 B) */
	uint64_t ref_bdp;            /* ReferenceNetworkLinkSpeed x ReferenceNetworkRTT / 8, bytes (300,000 B) */
	uint64_t max_wnd;            /* initial max window: 1.5 x BDP, or MaxCongestionWindow x mtu with the override */
	emu_ps_t base_rtt0;          /* InitialBaseRTT */
	emu_ps_t target;             /* target queue delay (6 us; 4.5 us with trimming; TargetQueueDelay override) */
	emu_ps_t margin;             /* TargetQueueDelayMargin: fast-increase entry */
	emu_ps_t qa_threshold;       /* QuickAdaptThreshold (delay trigger, trimming off only) */
	uint32_t qa_gate;            /* QuickAdaptGate: byte threshold = max window >> gate */
	uint64_t adjust_bytes;       /* NIC_CC_ADJUST_PKTS x mtu (33,472 B) */
	struct nic_cc_frac prop;     /* proportional increase, bytes^2 per (acked byte x ps below target) */
	struct nic_cc_frac fair;     /* fair increase, bytes^2 per acked byte */
	struct nic_cc_frac fast;     /* fast increase, window bytes per acked byte */
	uint64_t eta;                /* additive term, bytes per adjust period (627 B) */
	uint32_t gamma_ppm;          /* Gamma */
	uint32_t md_jump_ppm;        /* MaxMultiplicativeDecreaseJump */
	uint32_t delay_alpha_ppm;    /* DelayAlpha */
	uint64_t pen_low;            /* receiver side: penalty band in bytes of the data pool (900,000 B) */
	uint64_t pen_high;           /* (2,700,000 B) */
	bool nscc;                   /* NSCCEnable */
	bool quick_adapt;            /* !DisableQuickAdapt */
	bool qa_delay_trigger;       /* !TrimmingEnabled: the average delay may trigger Quick Adapt */
	bool restore;                /* receiver side: RestoreCWindEnable, the RC bit of every ACK this NIC sends */
};

/**
 * Derive the constants.
 * @param k        filled in
 * @param p        the NIC's attributes (validated: nic_params_check_link() accepted them for @p link_bps)
 * @param link_bps the NIC's link rate, bit/s: min(own DataRate, rack switch's downlink rate); counted in whole
 *                 Gb/s here
 * @param rx_data_pool_bytes the size of this NIC's receive pool for the data class (3,600,000 B at the defaults),
 *                 for the penalty band it applies as a receiver
 */
void nic_cc_consts_init(struct nic_cc_consts *k, const struct nic_params *p, uint64_t link_bps,
			uint64_t rx_data_pool_bytes);

/** Max window for a base RTT: 1.5 x link rate x @p rtt / 8, at least one nominal packet. */
uint64_t nic_cc_max_wnd_for(const struct nic_cc_consts *k, emu_ps_t rtt);

/**
 * One congestion-control context (UET CCC): the state of one PDC group's window. Public because the NIC embeds
 * one in each group, so creating a group allocates nothing. Fields are private to nic_cc.c; use the getters.
 */
struct nic_cc {
	uint64_t cwnd;            /* window, nominal bytes, in [mtu, max_wnd] */
	uint64_t max_wnd;         /* current max window (follows a lower base RTT) */
	uint64_t saved_cwnd;      /* window saved when a receiver penalty began; 0 = none */
	uint64_t inc_bytes;       /* batched increases, bytes^2 (applied as inc_bytes / cwnd) */
	uint64_t received_bytes;  /* acknowledged since the last batched application */
	uint64_t achieved_bytes;  /* acknowledged in the current Quick Adapt observation window */
	uint64_t fi_count;        /* bytes acknowledged with delay below the margin (fast increase entry) */
	uint64_t bytes_to_ignore; /* in flight when Quick Adapt last fired */
	uint64_t bytes_ignored;   /* acknowledged, trimmed or timed out since then */
	emu_ps_t base_rtt;        /* current base RTT: InitialBaseRTT, or a lowering sample + 1 us */
	emu_ps_t delay_ref;       /* RTT the delay samples are measured against: InitialBaseRTT or that sample */
	emu_ps_t avg_qdelay;      /* DelayAlpha moving average of the delay samples */
	emu_ps_t qa_end;          /* end of the current observation window */
	emu_ps_t last_adjust;     /* last time the additive term was added */
	emu_ps_t last_dec;        /* last multiplicative decrease */
	uint32_t quick_adapts;    /* Quick Adapt firings (num_quick_adapt) */
	uint8_t flags;            /* NIC_CC_F_* in nic_cc.c */
};

/** What the NIC learned from one ACK of data (ACK_CC) on the group. */
struct nic_cc_ack {
	uint64_t acked;       /* nominal bytes newly acknowledged by this ACK (0 allowed) */
	uint64_t in_flight;   /* the group's nominal bytes in flight after the ACK retired its packets */
	emu_ps_t rtt;         /* the RTT sample, already minus the receiver's service time; only if has_rtt */
	bool has_rtt;         /* the ACK gave a sample (first transmission or first retransmission) */
	bool ecn;             /* ECN echo (the M flag) */
	bool restore;         /* the RC flag: the receiver's RestoreCWindEnable */
	uint8_t penalty;      /* rcv_cwnd_pend, 0..127 */
};

/** Start a group's window at the max window with base RTT InitialBaseRTT (@p now: the group's creation). */
void nic_cc_init(struct nic_cc *cc, const struct nic_cc_consts *k, emu_ps_t now);

/**
 * An ACK of data: receiver penalty, then (with a sample) base RTT, delay average, Quick Adapt, one routine, the
 * batched increases and eta, bounds. With NSCCEnable false only the base RTT (and with it the max window and the
 * window) moves.
 */
void nic_cc_on_ack(struct nic_cc *cc, const struct nic_cc_consts *k, const struct nic_cc_ack *a, emu_ps_t now);

/**
 * A trim NACK for a packet still in flight.
 * @param bytes     the trimmed packet's nominal size
 * @param rtt       the NACK's RTT sample under the ACK rule (offered to the base RTT), or EMU_PS_NEVER for none
 * @param in_flight the group's bytes in flight after the packet left flight
 */
void nic_cc_on_trim(struct nic_cc *cc, const struct nic_cc_consts *k, uint64_t bytes, emu_ps_t rtt,
		    uint64_t in_flight, emu_ps_t now);

/** A packet of @p bytes nominal bytes, still in flight, whose retransmission timer expired. */
void nic_cc_on_timeout(struct nic_cc *cc, const struct nic_cc_consts *k, uint64_t bytes, emu_ps_t now);

/** An RTT sample that only feeds the base RTT: the per-message base-RTT probe's. */
void nic_cc_on_probe_rtt(struct nic_cc *cc, const struct nic_cc_consts *k, emu_ps_t rtt, emu_ps_t now);

/** The window, nominal bytes. */
static inline uint64_t nic_cc_cwnd(const struct nic_cc *cc)
{
	return cc->cwnd;
}

/** The current max window, nominal bytes. */
static inline uint64_t nic_cc_max_wnd(const struct nic_cc *cc)
{
	return cc->max_wnd;
}

/** The base RTT, ps. */
static inline emu_ps_t nic_cc_base_rtt(const struct nic_cc *cc)
{
	return cc->base_rtt;
}

/** The average queueing delay, ps (0 with NSCCEnable false). */
static inline emu_ps_t nic_cc_avg_qdelay(const struct nic_cc *cc)
{
	return cc->avg_qdelay;
}

/** Quick Adapt firings on this window (add to num_quick_adapt as they happen or when the group goes). */
static inline uint32_t nic_cc_quick_adapts(const struct nic_cc *cc)
{
	return cc->quick_adapts;
}

/**
 * Receiver side: the penalty an ACK carries for a data-pool occupancy of @p occupancy bytes: 0 below the low
 * threshold, 127 at or above the high one, floor(127 x (occ - low) / (high - low)) in between.
 */
uint8_t nic_cc_penalty(const struct nic_cc_consts *k, uint64_t occupancy);

/** Receiver side: the RC (restore) flag of every ACK this NIC sends: its RestoreCWindEnable. */
static inline bool nic_cc_rc_bit(const struct nic_cc_consts *k)
{
	return k->restore;
}

#endif /* NIC_CC_H */
