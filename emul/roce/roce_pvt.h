/* Internals of the Scala RoCE NIC: queue pairs, the egress classes, the ingress pools, the PCIe link. */
#ifndef ROCE_PVT_H
#define ROCE_PVT_H

#include "emu_pool.h"
#include "emu_sched.h"
#include "port_shape.h"
#include "port_tx.h"
#include "roce.h"

#define ROCE_PSN_MASK 0xffffffu
#define ROCE_MSG_PKTS_MAX (1u << 23)  /* half the 24-bit PSN space */
#define ROCE_GEN_DELAY_PS (80 * EMU_PS_PER_NS) /* packet generation (re)starts 80 ns later (transport page) */
#define ROCE_RTT_RING 256             /* send times kept per QP for RTT samples (a power of two) */
#define ROCE_RATE_EPS_BPS 100000000ULL /* an episode ends within 0.1 Gb/s of line rate */

/* A work request waiting on its queue pair. */
struct roce_wqe {
	struct roce_wqe *next;
	uint32_t qp;               /* index of its queue pair */
	uint64_t bytes, cookie;
	uint8_t verb;
};

/* DCQCN-style state of one queue pair (congestion-control page). Rates in bit/s; the estimate in ppm. */
struct roce_cc {
	bool congested;
	bool reduce_next;          /* the next run of the loop is a reduction half */
	uint64_t rate, target, step;
	uint32_t alpha_ppm;        /* congestion estimate, 0..1e6; starts at 1 (DCQCN's initial alpha) */
	uint32_t recovery;         /* recovery count */
	uint32_t cnp_ivl, pkt_ivl; /* CNPs received and data packets sent since the last reduction half */
	uint32_t cnp_halves;       /* increase halves that saw CNPs, for NumOfControlLoopsPerIncrease */
	emu_timer_t timer;
};

/* One queue pair end. A sender and a receiver side share the struct; an end created by a packet is receive-only
 * until the host posts on it. */
struct roce_qp {
	struct roce_qp *hnext;     /* hash chain: (peer_ip, qpn) of receive ends; own qpn of local ones */
	struct roce_qp *ready_next;
	uint32_t idx;
	uint32_t qpn;              /* the number on the wire: the creating NIC's, shared by the far end */
	uint32_t peer_ip;
	uint8_t peer_mac[6];
	bool local;                /* created by this NIC's host (it sends data); else created by a packet */
	bool in_ready;
	/* sender */
	struct roce_wqe *wq_head, *wq_tail;
	bool busy;                 /* a message is being sent */
	bool ctl_held;             /* its sending held by the run's control (uetemu ctl pause HOST MSG) */
	bool sent_told;            /* its last packet was serialized: hooks.msg_sent given */
	uint8_t verb;
	uint64_t bytes, cookie;
	uint32_t n_pkts;
	uint32_t first_psn;        /* PSN of the message's first packet */
	uint32_t next_seg;         /* next segment to fetch (its index in the message) */
	uint32_t rewinds;          /* go-back-N rewinds of the message (the stats stream, port_nic_flow) */
	uint32_t snd_una, snd_nxt; /* oldest unacknowledged PSN, next PSN to give (24-bit, wrapping) */
	uint32_t snd_max;          /* one past the highest PSN ever given: an ACK or NAK at or past it is a ghost */
	uint32_t gen;              /* bumped by a rewind: fetches of an older generation are stale */
	emu_timer_t rto;
	bool rto_armed;
	emu_ps_t sent_at[ROCE_RTT_RING]; /* end of serialization of PSN & (ring - 1) */
	struct roce_cc cc;
	/* receiver */
	uint32_t epsn;             /* next expected PSN */
	bool nak_out;              /* a NAK was sent for the gap at epsn: discard until it fills */
	uint32_t held;             /* packets held for a coalesced ACK */
	emu_timer_t ack_timer;
	bool ack_armed;
	uint32_t msn;              /* messages completed (AETH MSN) */
	uint64_t rcv_bytes;        /* payload of the message being received */
};

/* One egress class: its FIFO and its pool. */
struct roce_txq {
	struct wire_pkt **ring;
	uint32_t mask, head, tail;
	uint64_t pool, reserved;
};

struct roce {
	struct roce_env env;
	const struct roce_params *p;
	struct net_dir *out;
	uint64_t line_bps;
	uint64_t floor_bps;
	uint32_t cc_weight_ppm;    /* CongestionProbabilityWeight, ppm (set at creation: no floating point later) */
	uint32_t cc_keep_ppm;      /* 1 - InitialTargetRatePercentage, ppm */
	uint8_t data_tc, ctrl_tc;
	/* PCIe (transport page, Fetching the payload over PCIe): the UET NIC's link model (port_pcie.c) */
	struct port_pcie_link pcie;
	uint64_t pcie_tx_cap;      /* bytes the NIC side's transmit buffers hold for the link */
	/* egress */
	struct roce_txq txq[PORT_TC_COUNT];
	struct port_tx tx;         /* PFC frames and CNPs ahead of the classes, the scheduler between the classes, the
				    * frame being serialized (port_tx.h, shared with the UET NIC) */
	emu_ps_t port_free_at;     /* a paced data frame holds the port until then */
	emu_timer_t port_timer;
	bool port_timer_armed;
	struct port_shape shape;   /* uetemu's egress shaper (port_shape.h): rate 0, the default, is none */
	bool shape_armed;          /* the port is kicked when the shaper lets the next frame go */
	uint32_t sending_qp, sending_psn;
	bool sending_data;
	/* generation */
	struct roce_qp *ready_head, *ready_tail;
	bool gen_armed;
	bool gen_blocked;          /* stopped until the data class's egress pool drains to half */
	/* ingress and PFC */
	uint64_t in_pool[PORT_TC_COUNT], in_used[PORT_TC_COUNT];
	struct port_pfcs pfcs;      /* PFC sent and honoured: the UET NIC's state machine (port_pfcs.c) */
	struct port_pool_stats rxs[PORT_TC_COUNT], txs[PORT_TC_COUNT]; /* net-buff-stats, counted as the UET NIC does */
	/* queue pairs */
	struct roce_qp *qps;
	uint32_t n_qps, max_qps;
	struct roce_qp **hash;     /* max_qps * 2 buckets (a power of two) */
	uint32_t hmask;
	struct emu_pool *wqe_pool;
	struct roce_rtt rtt;
	uint64_t c[ROCE_C_COUNT];
};

/* roce.c */
struct wire_pkt *roce_pkt_new(struct roce *r, const struct roce_qp *qp, uint8_t op, uint8_t tc);
/* Queue a control packet (ACK, NAK) on its class, charging the pool; counted and freed when it has no room. */
bool roce_ctl_send(struct roce *r, struct wire_pkt *pkt, uint8_t tc, emu_ps_t now);
/* Charge @p len bytes to class @p tc's egress pool (its occupancy and net-buff-stats). */
void roce_tx_reserve(struct roce *r, uint32_t tc, uint64_t len);
/* Release them when the frame has left, or its fetch went stale; generation blocked on the data pool restarts when
 * the pool is down to half. */
void roce_tx_release(struct roce *r, uint32_t tc, uint64_t len, emu_ps_t now);
/* Queue a data packet whose egress room the transmit path reserved before its fetch. */
void roce_data_queue(struct roce *r, struct wire_pkt *pkt, uint32_t tc, emu_ps_t now);
/* Queue a CNP or PFC frame ahead of all classes. */
void roce_pfcq_push(struct roce *r, struct wire_pkt *pkt, emu_ps_t now);
void roce_port_kick(struct roce *r, emu_ps_t now);
/** uetemu's egress shaper set to @p bps (0: none) at @p now, its bucket EgressShaper.BurstSize (port_shape.h). */
void roce_rate_limit(struct roce *r, uint64_t bps, emu_ps_t now);
/** Hold (@p on) or release the sending of local queue pair @p qpn at @p now. 0, or -ENOENT. */
int roce_qp_hold(struct roce *r, uint32_t qpn, bool on, emu_ps_t now);
void roce_in_release(struct roce *r, uint32_t tc, uint64_t bytes, emu_ps_t now);
struct roce_qp *roce_qp_find(const struct roce *r, uint32_t peer_ip, uint32_t qpn, bool local);
struct roce_qp *roce_qp_new(struct roce *r, uint32_t peer_ip, uint32_t qpn, bool local);

/* roce_tx.c: the sender */
void roce_gen_arm(struct roce *r, emu_ps_t now);
void roce_ready(struct roce *r, struct roce_qp *qp, emu_ps_t now);
void roce_tx_sent(struct roce *r, struct roce_qp *qp, uint32_t psn, emu_ps_t now);
void roce_rx_ack(struct roce *r, struct roce_qp *qp, const struct wire_pkt *pkt, emu_ps_t now);

/* roce_rx.c: the receiver */
void roce_rx_data(struct roce *r, struct wire_pkt *pkt, uint32_t charge, uint32_t tc, emu_ps_t now);


/* roce_cc.c: the rate control loop */
void roce_cc_init(struct roce *r, struct roce_qp *qp);
void roce_cc_cnp(struct roce *r, struct roce_qp *qp, emu_ps_t now);
/* The rate @p qp may send at, bit/s: its loop's during an episode, else line rate (not yet floored). */
uint64_t roce_cc_rate(const struct roce *r, const struct roce_qp *qp);
/* The port's time for a data frame of @p len bytes of @p qp: at its allowed rate, never below the floor. */
emu_ps_t roce_cc_ser(const struct roce *r, const struct roce_qp *qp, uint32_t len);

/* The encapsulation of this NIC's RoCE frames (RoCEEncapsulation.ICRC and .RETH) as WIRE_ENCAP_* flags. */
static inline uint8_t roce_encap(const struct roce *r)
{
	return (uint8_t)((r->p->icrc ? WIRE_ENCAP_ICRC : 0) | (r->p->reth ? WIRE_ENCAP_RETH : 0));
}

static inline uint32_t roce_psn_diff(uint32_t a, uint32_t b) /* a - b in the 24-bit space */
{
	return (a - b) & ROCE_PSN_MASK;
}

#endif /* ROCE_PVT_H */
