/* A host NIC port's transmit side as both NIC models run it: the queue of frames that go ahead of every class (PFC
 * frames, the RoCE NIC's CNPs), the choice of what to send next (that queue first, then port_sched.h over the
 * classes that are ready), and the frame being serialized, from the port kick to tx_done. The classes' own queues,
 * pools and what happens when a frame has left stay each model's. */
#ifndef PORT_TX_H
#define PORT_TX_H

#include <stdbool.h>
#include <stdint.h>

#include "port_params.h"
#include "port_sched.h"
#include "wire.h"

#define PORT_FIRSTQ 16 /* frames waiting ahead of every class (a power of two): PFC needs one per class at most */

/** Pick result: nothing to send. */
#define PORT_TX_NONE (-1)
/** Pick result: the queue ahead of every class (port_tx_pop_first()). */
#define PORT_TX_FIRST (-2)

/** One port's transmit state: embedded in each NIC, hence public. Zero is a valid start (idle, queue empty). */
struct port_tx {
	struct wire_pkt *firstq[PORT_FIRSTQ];
	uint32_t first_head, first_tail;
	struct port_sched sched;
	bool busy;                 /* a frame is being serialized */
	uint32_t sending_tc;       /* its class, PORT_TC_COUNT for a frame of the queue ahead (charged to no pool) */
	uint32_t sending_len;      /* its bytes on the wire, FCS included */
};

/** Whether PORT_FIRSTQ frames already wait ahead of every class. */
static inline bool port_tx_first_full(const struct port_tx *t)
{
	return t->first_tail - t->first_head >= PORT_FIRSTQ;
}

/** Queue @p pkt ahead of every class. Returns false, keeping nothing, when the queue is full (the caller frees). */
static inline bool port_tx_push_first(struct port_tx *t, struct wire_pkt *pkt)
{
	if (port_tx_first_full(t))
		return false;
	t->firstq[t->first_tail++ & (PORT_FIRSTQ - 1)] = pkt;
	return true;
}

/** The oldest frame of the queue ahead (after port_tx_pick() gave PORT_TX_FIRST). */
static inline struct wire_pkt *port_tx_pop_first(struct port_tx *t)
{
	return t->firstq[t->first_head++ & (PORT_FIRSTQ - 1)];
}

/**
 * What the port sends next: PORT_TX_FIRST while frames wait ahead of every class; else the class among 0 .. @p n - 1
 * whose bit is set in @p ready (a packet waits, the class has a pool and no received pause holds it) that the
 * egress discipline of @p egress chooses (port_sched_pick()); PORT_TX_NONE when none is ready.
 */
static inline int port_tx_pick(struct port_tx *t, const struct port_buf_params *egress, uint32_t n, uint32_t ready)
{
	if (t->first_head != t->first_tail)
		return PORT_TX_FIRST;
	return port_sched_pick(&t->sched, egress->queue_scheduling, egress->wrr_weights, n, ready);
}

/**
 * Frame @p pkt of class @p tc (PORT_TC_COUNT for one from the queue ahead, which leaves in the class its DSCP
 * names) starts on the port: the port is busy, the class and @p len (its bytes on the wire) are kept for
 * port_tx_done(). Sets pkt->tc, the class it leaves from (a VLAN port's PCP; PFC goes untagged).
 */
static inline void port_tx_start(struct port_tx *t, struct wire_pkt *pkt, uint32_t tc, uint32_t len)
{
	pkt->tc = (uint8_t)(tc < PORT_TC_COUNT ? tc : (pkt->dscp & 0x3fu) / 8u);
	t->busy = true;
	t->sending_tc = tc;
	t->sending_len = len;
}

/** The frame finished serializing (net_dev_ops.tx_done): the port is idle. Returns the frame's class. */
static inline uint32_t port_tx_done(struct port_tx *t)
{
	t->busy = false;
	return t->sending_tc;
}

#endif /* PORT_TX_H */
