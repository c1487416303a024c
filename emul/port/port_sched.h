/* The scheduler between a NIC's egress classes (QueueSchedulingType of the EgressBufferManager), shared by the
 * Scala UET NIC and the Scala RoCE NIC: the two pages describe the same three disciplines. PFC frames (and the RoCE
 * NIC's CNPs) go ahead of every class; that queue is the caller's. */
#ifndef PORT_SCHED_H
#define PORT_SCHED_H

#include <stdint.h>

/** Where the rotation is: embedded in each NIC, hence public. Zero is a valid start (class 0's turn). */
struct port_sched {
	uint32_t next;   /* RoundRobin: the class to look at first; WeightedRoundRobin: the class whose turn it is */
	uint32_t sent;   /* WeightedRoundRobin: packets the class has sent in its turn */
};

/**
 * The class to send from among classes 0 .. @p n - 1 (n at most 32), given @p ready (bit c: class c has a packet
 * waiting and is not paused), under discipline @p type (enum port_qsched) with @p wrr_weights (n entries):
 * StrictPriority the highest-numbered ready class; RoundRobin the next ready class from s->next on; WeightedRoundRobin
 * up to wrr_weights[c] packets from class c in its turn, then the next ready class's turn, a class with nothing to
 * send giving its turn up. Updates @p s. Returns the class, or -1 when none is ready.
 */
int port_sched_pick(struct port_sched *s, uint8_t type, const uint32_t *wrr_weights, uint32_t n, uint32_t ready);

#endif /* PORT_SCHED_H */
