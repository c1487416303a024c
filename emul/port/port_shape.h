/*
 * A host NIC port's egress shaper, shared by the two NIC models: uetemu's own rate limit of what a host sends
 * (nic.EgressShaper.RateLimit, roce_nic.EgressShaper.RateLimit, `uetemu ctl PREFIX rate HOST RATE`), not a
 * model's attribute. A token bucket of BurstSize bytes filling at RateLimit, kept as its virtual-scheduling form
 * (the GCRA): @c tat, the time the frames sent so far would have left at the rate, each charged its bytes on the
 * wire (FCS included, as tx_bytes counts them) at 8 * 10^12 / rate ps a byte, the division's remainder carried so
 * the long-run rate is exact. A frame of a class may start when now >= tat - burst time; PFC frames and CNPs (the
 * queue ahead of the classes) are neither held nor charged: they answer the fabric. All integer: ps and bytes.
 * Rate 0 is no shaper at all: nothing held, nothing charged, the port as it was.
 */
#ifndef PORT_SHAPE_H
#define PORT_SHAPE_H

#include <stdbool.h>
#include <stdint.h>

#include "emu_time.h"

/** One port's shaper: embedded in each NIC, hence public. Zero is no shaper. */
struct port_shape {
	uint64_t bps;        /* the rate limit, bit/s (0: none) */
	uint64_t burst;      /* the bucket's depth, bytes */
	emu_ps_t tau;        /* the burst's time at the rate: how far ahead of now tat may be for a frame to go */
	emu_ps_t tat;        /* when the frames charged so far would have left at the rate */
	uint64_t rem;        /* the charges' remainders, in (8 * 10^12 / bps) ps units times bps */
};

/**
 * Set the rate to @p bps (0: off) and the bucket to @p burst bytes at @p now. The time still owed at the old rate
 * is rescaled to the new one (a faster rate frees the port sooner). Off the packet path (the config, a control
 * command); the caller kicks its port, whose frames may go sooner now.
 */
static inline void port_shape_set(struct port_shape *s, uint64_t bps, uint64_t burst, emu_ps_t now)
{
	uint64_t old = s->bps;

	if (bps == 0) {
		*s = (struct port_shape){ 0 };
		return;
	}
	if (old == 0 || s->tat <= now)
		s->tat = now;
	else /* what was owed at the old rate, owed at the new */
		s->tat = now + (emu_ps_t)((unsigned __int128)(s->tat - now) * old / bps);
	s->rem = 0;
	s->bps = bps;
	s->burst = burst;
	unsigned __int128 tau = (unsigned __int128)burst * 8u * EMU_PS_PER_S / bps;

	s->tau = tau > EMU_PS_NEVER / 2 ? EMU_PS_NEVER / 2 : (emu_ps_t)tau;
}

/** When the next frame of a class may start (0: now, or no shaper). */
static inline emu_ps_t port_shape_ready(const struct port_shape *s)
{
	return s->bps != 0 && s->tat > s->tau ? s->tat - s->tau : 0;
}

/** Whether the shaper holds a frame of a class at @p now. */
static inline bool port_shape_holds(const struct port_shape *s, emu_ps_t now)
{
	return s->bps != 0 && now < port_shape_ready(s);
}

/** A frame of a class of @p len bytes on the wire starts at @p now: charge it. */
static inline void port_shape_charge(struct port_shape *s, uint32_t len, emu_ps_t now)
{
	if (s->bps == 0)
		return;
	uint64_t num = (uint64_t)len * 8u * EMU_PS_PER_S; /* a frame is far below 2^64 / 8e12 bytes */

	if (s->tat < now) { /* the bucket refilled meanwhile: the carry is spent with it */
		s->tat = now;
		s->rem = 0;
	}
	s->tat += num / s->bps;
	s->rem += num % s->bps;
	if (s->rem >= s->bps) {
		s->tat++;
		s->rem -= s->bps;
	}
}

#endif /* PORT_SHAPE_H */
