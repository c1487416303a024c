/* PFC (IEEE 802.1Qbb) at a NIC's port, shared by the Scala UET NIC and the Scala RoCE NIC, whose buffers pages
 * describe the same mechanism: pauses sent when a receive pool of a PFC-enabled class reaches Xoff, refreshed every
 * half pause time while at or above it, XON when it drains to Xon (or at a refresh below Xoff); pauses received
 * honoured per class for their time, whatever PFCEnableVector says. The NIC keeps the pools and queues the frames. */
#ifndef NIC_PFCS_H
#define NIC_PFCS_H

#include <stdbool.h>
#include <stdint.h>

#include "emu_sched.h"
#include "net.h"
#include "nic_params.h"

/** PFC per traffic class (ecn-pfc-stats): frames sent and received, and the time the NIC's sending was paused. */
struct nic_pfc_stats {
	uint64_t xoff_tx[NIC_TC_COUNT], xon_tx[NIC_TC_COUNT];
	uint64_t xoff_rx[NIC_TC_COUNT], xon_rx[NIC_TC_COUNT];
	emu_ps_t paused_ps[NIC_TC_COUNT]; /* time this NIC's transmission of the class was held by received pauses */
	emu_ps_t ivl_max_pause_ps[NIC_TC_COUNT]; /* the longest single pause (held without a break) since
						  * nic_pfc_interval_reset(), only its part since then counted */
};

/** What the NIC does for its PFC: @p dev is nic_pfcs.dev. */
struct nic_pfcs_ops {
	/** Queue a PFC frame for class @p tc (quanta 0: XON) ahead of every class; false when it could not be. */
	bool (*send)(void *dev, uint32_t tc, uint16_t quanta, emu_ps_t now);
	/** A class resumed: the port may send. */
	void (*kick)(void *dev, emu_ps_t now);
};

/** One port's PFC: embedded in each NIC, hence public. Fill the first block, zero the rest (nic_pfcs_init()). */
struct nic_pfcs {
	struct net_part *np;
	const struct nic_buf_params *ingress;  /* PFCEnableVector, PfcStaticXoffThreshold, PfcXonResumeThreshold,
						* QuantaValue */
	const uint64_t *pool, *used;           /* the receive pools' sizes and occupancy, NIC_TC_COUNT each */
	const struct nic_pfcs_ops *ops;
	void *dev;
	uint64_t bps;                          /* pause times: the port's rate and its link's delay (set at attach) */
	emu_ps_t delay;
	/* state */
	bool out[NIC_TC_COUNT];                /* a pause we sent is outstanding */
	emu_timer_t refresh[NIC_TC_COUNT];
	emu_ps_t paused_until[NIC_TC_COUNT];   /* a received pause holds the class until then (0: not paused) */
	emu_timer_t resume[NIC_TC_COUNT];
	emu_ps_t paused_since[NIC_TC_COUNT];
	emu_ps_t ivl_start;                    /* the interval the longest pauses are measured in began then */
	struct nic_pfc_stats st;
};

/** A packet of class @p tc arrives: @p occupancy is its pool's with it added. Pauses the sender at Xoff. */
void nic_pfcs_check_xoff(struct nic_pfcs *s, uint32_t tc, uint64_t occupancy, emu_ps_t now);

/** Received bytes of class @p tc were released: XON at once when occupancy is at or below Xon. */
void nic_pfcs_check_xon(struct nic_pfcs *s, uint32_t tc, emu_ps_t now);

/** A PFC frame from the link: pause (for quanta x 512 bit at @c bps, + @c delay) or resume each class it names. */
void nic_pfcs_rx(struct nic_pfcs *s, const struct wire_pkt *pkt, emu_ps_t now);

/** Whether a received pause holds class @p tc. */
static inline bool nic_pfcs_paused(const struct nic_pfcs *s, uint32_t tc)
{
	return s->paused_until[tc] != 0;
}

/** The statistics, the pause still held counted up to @p now. */
void nic_pfcs_stats(const struct nic_pfcs *s, struct nic_pfc_stats *out, emu_ps_t now);

/** Start a new interval of the longest-pause statistic. */
void nic_pfcs_interval_reset(struct nic_pfcs *s, emu_ps_t now);

#endif /* NIC_PFCS_H */
