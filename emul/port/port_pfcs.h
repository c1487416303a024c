/* PFC (IEEE 802.1Qbb) at a NIC's port, shared by the Scala UET NIC and the Scala RoCE NIC, whose buffers pages
 * describe the same mechanism: pauses sent when a receive pool of a PFC-enabled class reaches Xoff, refreshed every
 * half pause time while at or above it, XON when it drains to Xon (or at a refresh below Xoff); pauses received
 * honoured per class for their time, whatever PFCEnableVector says. The NIC keeps the pools and queues the frames. */
#ifndef PORT_PFCS_H
#define PORT_PFCS_H

#include <stdbool.h>
#include <stdint.h>

#include "emu_sched.h"
#include "net.h"
#include "port_params.h"

/** PFC per traffic class (ecn-pfc-stats): frames sent and received, and the time the NIC's sending was paused. */
struct port_pfc_stats {
	uint64_t xoff_tx[PORT_TC_COUNT], xon_tx[PORT_TC_COUNT];
	uint64_t xoff_rx[PORT_TC_COUNT], xon_rx[PORT_TC_COUNT];
	emu_ps_t paused_ps[PORT_TC_COUNT]; /* time this NIC's transmission of the class was held by received pauses */
	emu_ps_t ivl_max_pause_ps[PORT_TC_COUNT]; /* the longest single pause (held without a break) since
						  * nic_pfc_interval_reset(), only its part since then counted */
};

/** What the NIC does for its PFC: @p dev is port_pfcs.dev. */
struct port_pfcs_ops {
	/** Queue a PFC frame for class @p tc (quanta 0: XON) ahead of every class; false when it could not be. */
	bool (*send)(void *dev, uint32_t tc, uint16_t quanta, emu_ps_t now);
	/** A class resumed: the port may send. */
	void (*kick)(void *dev, emu_ps_t now);
};

/** One port's PFC: embedded in each NIC, hence public. Fill the first block, zero the rest (port_pfcs_init()). */
struct port_pfcs {
	struct net_part *np;
	const struct port_buf_params *ingress;  /* PFCEnableVector, PfcStaticXoffThreshold, PfcXonResumeThreshold,
						* QuantaValue */
	const uint64_t *pool, *used;           /* the receive pools' sizes and occupancy, PORT_TC_COUNT each */
	const struct port_pfcs_ops *ops;
	void *dev;
	uint64_t bps;                          /* pause times: the port's rate and its link's delay (set at attach) */
	emu_ps_t delay;
	/* state */
	bool out[PORT_TC_COUNT];                /* a pause we sent is outstanding */
	emu_timer_t refresh[PORT_TC_COUNT];
	emu_ps_t paused_until[PORT_TC_COUNT];   /* a received pause holds the class until then (0: not paused) */
	emu_timer_t resume[PORT_TC_COUNT];
	emu_ps_t paused_since[PORT_TC_COUNT];
	emu_ps_t ivl_start;                    /* the interval the longest pauses are measured in began then */
	struct port_pfc_stats st;
	bool held;                             /* every class held by the run's control (uetemu ctl pause) */
};

/**
 * A PFC frame from @p mac for class @p tc (@p quanta 0: XON), in a descriptor of @p np's pool: the frame both NIC
 * models send. NULL when the pool is empty (the caller counts it).
 */
struct wire_pkt *port_pfc_frame(struct net_part *np, const uint8_t mac[6], uint32_t tc, uint16_t quanta);

/** A packet of class @p tc arrives: @p occupancy is its pool's with it added. Pauses the sender at Xoff. */
void port_pfcs_check_xoff(struct port_pfcs *s, uint32_t tc, uint64_t occupancy, emu_ps_t now);

/** Received bytes of class @p tc were released: XON at once when occupancy is at or below Xon. */
void port_pfcs_check_xon(struct port_pfcs *s, uint32_t tc, emu_ps_t now);

/** A PFC frame from the link: pause (for quanta x 512 bit at @c bps, + @c delay) or resume each class it names. */
void port_pfcs_rx(struct port_pfcs *s, const struct wire_pkt *pkt, emu_ps_t now);

/** Whether a received pause, or the run's control (port_pfcs_hold()), holds class @p tc. */
static inline bool port_pfcs_paused(const struct port_pfcs *s, uint32_t tc)
{
	return s->paused_until[tc] != 0 || s->held;
}

/** Hold every class of the port (@p on), or release them at @p now (the port is kicked): the NIC's sending
 *  paused and resumed by the run's control, not counted as PFC. */
static inline void port_pfcs_hold(struct port_pfcs *s, bool on, emu_ps_t now)
{
	bool was = s->held;

	s->held = on;
	if (was && !on)
		s->ops->kick(s->dev, now);
}

/** The statistics, the pause still held counted up to @p now. */
void port_pfcs_stats(const struct port_pfcs *s, struct port_pfc_stats *out, emu_ps_t now);

/** Start a new interval of the longest-pause statistic. */
void port_pfcs_interval_reset(struct port_pfcs *s, emu_ps_t now);

#endif /* PORT_PFCS_H */
