/* Internals shared by the NIC's files: the NIC, its PDCs, groups, and egress/ingress state. */
#ifndef NIC_PVT_H
#define NIC_PVT_H

#include <stdbool.h>

#include "emu_rng.h"
#include "nic_cc.h"
#include "nic_lb.h"
#include "port_shape.h"
#include "port_tx.h"
#include "nic.h"

/* Receiver: PSNs tracked past rcv_next. The ACK gives its PSN and its SACK base as s16 offsets from CACK_PSN, so a
 * PSN further on could not be acknowledged by name; the sender keeps its PSNs within it (nic_tx.c). */
#define NIC_RCV_WIN 32767
#define NIC_RCV_CHUNKS (1u << 14) /* out-of-order tracking chunks of 256 PSNs, NIC-wide */
#define NIC_SYN_PSNS 4096     /* SYN packets carry PSN - Start_PSN in 12 bits: PSNs past that wait for the first ACK */
#define NIC_START_PSN_LO 0x10000u    /* StartPsn RefProv: Start_PSN in [2^16, 2^31) */
#define NIC_START_PSN_HI 0x80000000u
#define NIC_HASH_BUCKETS_MIN 256   /* buckets of the PDC and group tables at first; doubled while the PDCs open */
#define NIC_HASH_BUCKETS_MAX 65536 /* pass twice the buckets, up to this (nic_pdc.c, hash_grow()) */
#define NIC_SND_ID_MIN 1      /* sending PDC ids 1..32767 (uet-nic-records, Identifying a PDC) */
#define NIC_SND_ID_MAX 32767
#define NIC_RCV_ID_MIN 32769  /* receiving PDC ids 32769..65535 */
#define NIC_RCV_ID_MAX 65535
#define NIC_LPORT_BASE 49152  /* PDCs' local UDP ports: the dynamic range 49152..65535 (None spraying's value) */
#define NIC_LPORT_COUNT 16384
#define NIC_TC_DATA 0
#define NIC_TC_CTRL 1
#define NIC_CLOSED_SLOTS 1024 /* receive PDCs remembered after closing, to know their late duplicates */

struct nic_group;

enum nic_rec_state {
	NIC_REC_FETCHING = 0, /* first transmission: payload being fetched or waiting in the egress queue */
	NIC_REC_SENT,         /* on the wire or sent: in flight, its retransmission timer armed once serialized */
	NIC_REC_LOST,         /* timed out or NACKed: out of flight, waiting in the PDC's retransmission queue */
	NIC_REC_RESENDING,    /* retransmission built and waiting in the egress queue */
	NIC_REC_PREFETCHING,  /* prefetch buffer on: payload being fetched into the prefetch buffer */
	NIC_REC_PREFETCHED,   /* prefetch buffer on: payload waiting in the prefetch buffer to be committed */
};

/*
 * One outstanding data packet of a sending PDC, from its fetch until it is acknowledged. Records come from a
 * NIC-wide pool and hang on their PDC's list in PSN order, so a PDC costs no per-PSN array: the cumulative ACK
 * retires from the head, the SACK bitmap and a NACK walk a short list (at most a window of packets).
 */
struct nic_rec {
	struct nic_rec *next, *prev;  /* PDC's outstanding list, PSN order */
	struct nic_rec *rtx_next;     /* PDC's retransmission queue, FIFO */
	struct nic_pdc *pdc;
	uint64_t uid;                 /* uid of the packet last built from this record */
	emu_ps_t sent_end;            /* end of its last serialization */
	emu_ps_t rto_at;              /* retransmission deadline, EMU_PS_NEVER while not armed */
	uint32_t psn;
	uint32_t seg;                 /* segment index in the message */
	uint32_t payload;
	uint16_t tx_count;            /* transmissions so far */
	uint16_t ev;                  /* entropy value of its last transmission (REPS feedback) */
	emu_ps_t late_at;             /* REPS early failure detection deadline, EMU_PS_NEVER when not armed */
	uint8_t state;                /* enum nic_rec_state */
	uint8_t in_flight;            /* counted in the group's bytes in flight */
};

/* 256 PSNs of a receive PDC's out-of-order arrivals (nic_rcv.c): bit i for PSN base + i. */
struct nic_rcv_chunk {
	struct nic_rcv_chunk *next;   /* the PDC's chunks in PSN order from rcv_next */
	uint32_t base;                /* a multiple of 256 */
	uint32_t n;                   /* bits set */
	uint64_t w[4];
};

enum nic_track { NIC_TRACK_NEW = 0, NIC_TRACK_DUP, NIC_TRACK_NO_ROOM };

/* A work request waiting on a connection's PDC behind the one being sent (RDMA application: one WQE of a
 * connection at a time). From a NIC-wide pool. */
struct nic_wqe {
	struct nic_wqe *next;
	uint64_t cookie;
	uint64_t bytes;
};

/* One end of a PDC. A sending PDC carries one message (the messages workload, like Chakra, opens a PDC per
 * message); a receiving PDC records what has arrived. */
struct nic_pdc {
	struct nic_pdc *hnext;     /* hash chain */
	struct nic_pdc *rr_next;   /* group's ring of PDCs with data to send */
	struct nic_pdc *rr_prev;   /* ... linked both ways: joining and leaving it cost O(1) however many are on it */
	struct nic_group *group;
	uint32_t peer_ip;
	uint16_t id;               /* local PDC id */
	uint16_t remote_id;        /* 0 until known */
	struct nic_pdc *idle_next; /* group's list of ring PDCs that may have nothing left to send (nic_pdc.c) */
	struct nic_pdc *idle_prev;
	uint32_t rr_lp;            /* on the ring: its message's smallest segment payload, counted in the group */
	bool sender;
	bool in_rr;
	bool in_idle;              /* on the group's idle list */
	bool conn;                 /* a connection's long-lived PDC: messages queue on it, it stays open */
	bool busy;                 /* conn: a message is being sent */
	bool held;                 /* its sending held by the run's control (uetemu ctl pause HOST MSG) */
	struct nic_wqe *wq_head, *wq_tail; /* conn: messages waiting, in posting order */
	/* sender */
	uint64_t wqe_id;
	uint64_t cookie;
	uint64_t bytes;
	uint32_t n_pkts;
	uint32_t pkts_issued;      /* segments whose fetch was issued */
	uint32_t pkts_acked;
	uint32_t rtx;              /* packets retransmitted since the PDC opened (the stats stream, port_nic_flow) */
	uint32_t start_psn;
	uint32_t next_psn;
	uint32_t ar_count;         /* data transmissions, for AckRequestEveryNthPacket */
	struct nic_rec *out_head, *out_tail;  /* outstanding packets, PSN order */
	struct nic_rec *rtx_head, *rtx_tail;  /* waiting retransmissions */
	struct nic_rec *pf_next;   /* prefetch buffer on: oldest record not yet committed to the wire */
	uint64_t pf_bytes;         /* prefetch buffer on: this PDC's bytes in the prefetch buffer */
	emu_timer_t rto_timer;     /* one timer per PDC, armed at rto_armed for the earliest deadline */
	emu_ps_t rto_armed;
	emu_timer_t late_timer;    /* REPS early failure detection: one timer per PDC for the earliest late_at */
	emu_ps_t late_armed;
	bool probe_sent;
	bool sent_told;            /* the current message's last packet was serialized: hooks.msg_sent given */
	emu_ps_t probe_at;         /* when the base-RTT probe was handed down to be sent */
	/* receiver */
	uint32_t rcv_start;        /* the Start_PSN the SYN packets gave (PSN - psn_offset) */
	uint32_t rcv_next;         /* next expected PSN; CACK_PSN = rcv_next - 1 */
	struct nic_rcv_chunk *ooo; /* PSNs arrived past rcv_next, within NIC_RCV_WIN of it */
	uint64_t rcv_payload;      /* unique payload bytes received */
	uint64_t rcvd_bytes_cc;    /* unique IP bytes, for the NSCC rcvd_bytes field */
	uint64_t rcv_wqe_id;
	uint32_t rcv_msg_len;      /* the message being received: its request_length, from its first packet */
	bool rcv_msg_len_set;
	uint32_t eom_psn;
	uint16_t ooo_count;
	uint16_t sack_block;       /* next 64-PSN block to report when more than one holds out-of-order packets */
	bool eom_seen;
	bool recv_done;
	bool half_open;            /* receiver: only the packet that opened it seen, on the half-open list */
	bool reclaimed;            /* receiver: closed to make room: not remembered as closed */
	uint8_t rcv_pkts;          /* receiver: packets seen, counted up to 2 */
	bool rod;                  /* receiver: opened by a ROD request: in-order delivery only (nic_pds.c) */
	uint32_t ack_bytes;        /* receiver, UET forms: bytes accepted since the last ACK (ACK coalescing) */
	bool close_req;            /* sender: the target sent CLOSE_REQ: CLOSE goes when the message completes */
	emu_ps_t rcv_last;         /* receiver: when the last packet came */
	struct nic_pdc *ho_prev, *ho_next;   /* receiver: the half-open list, oldest first */
	struct nic_pdc *lru_prev, *lru_next; /* receiver: all receive PDCs by last packet, least recent first */
};

/* PDCs to one peer: one window and one load balancer (the spraying counter), scheduled as one. */
struct nic_group {
	struct nic_group *hnext;
	struct nic_group *ready_next;
	struct nic_pdc *rr;        /* ring of PDCs with data to send; rr points at the one whose turn it is */
	/* The transmit scheduler's shortcut (nic_tx.c, group_pick()): no payload a PDC on the ring can send next is
	 * smaller than rr_lp_min, so a window without room for it holds back every one of them, unwalked. rr_lp_n of
	 * them have that smallest payload (0: the bound may be below them all, until a walk recounts it). The idle list
	 * holds every PDC on the ring with nothing left to send (and maybe some that have), for the walk's removals. */
	uint32_t rr_lp_min, rr_lp_n;
	struct nic_pdc *idle;
	uint32_t peer_ip;
	uint8_t peer_mac[6];       /* looked up once, when the group is created */
	uint32_t n_pdcs;
	uint32_t n_rcv;            /* of them receiving */
	struct nic_lb lb;          /* the group's load balancer: None, Default Packet Spraying or REPS */
	struct nic_cc cc;          /* the group's NSCC window, counted at nominal size (payload + 88) */
	uint64_t in_flight;        /* nominal bytes fetched or sent and not yet acked, nacked or timed out */
	uint64_t fetched;          /* payload bytes fetched from the host (uet-monitor bytes_fetched) */
	uint64_t pf_nominal;       /* prefetch buffer on: nominal bytes of its payloads fetched, not yet committed */
	bool in_ready;
};

/* A receive PDC after it closed: the packets still on their way for it are duplicates (nic_rx.c, rcv_pdc()). */
struct nic_closed {
	uint32_t peer_ip;
	uint32_t start_psn;
	uint16_t peer_id;
	bool used;
};

/* A FIFO of packets waiting in one egress class (linked through wire_pkt.next), with its pool. */
struct nic_txq {
	struct wire_pkt *head, *tail;
	uint32_t n, max;           /* packets queued; the most a class may queue (its pool / 62 B, a power of two) */
	uint64_t pool_size;        /* bytes */
	uint64_t reserved;         /* bytes reserved: waiting, being fetched, or being serialized */
};

struct nic {
	struct nic_env env;
	const struct nic_params *p;
	struct emu_rng rng;
	struct net_dir *out;
	uint64_t link_bps;
	struct port_pcie_link pcie; /* the host link (port_pcie.c, shared with the RoCE NIC): [0] NIC-to-host, read
				    * requests and received-data writes; [1] host-to-NIC, doorbells and completions */
	uint64_t cpl_data, cpl_hdr; /* NIC side's receive buffers: payload and headers of the completions expected */
	bool cpl_blocked;          /* a fetch waited for room there: the pass restarts when a completion lands */
	emu_ps_t ack_last;         /* ACKs leave in the order generated */
	uint64_t in_pool_size[PORT_TC_COUNT];
	uint64_t in_pool_used[PORT_TC_COUNT];
	struct nic_txq txq[2];     /* classes 0 (data) and 1 (control) */
	struct wire_pkt *cm_head, *cm_tail; /* setup messages waiting for control pool room, linked through ctx */
	struct port_tx tx;         /* PFC frames ahead of the classes, the scheduler, the frame being serialized
				    * (port_tx.h, shared with the RoCE NIC) */
	uint8_t sending_kind;
	uint64_t sending_uid;      /* the data packet being serialized, to start its record's timer */
	struct nic_rec *sending_rec;  /* its record; may have been retired meanwhile: check sending_uid */
	bool pump_armed;           /* a transmit pass is scheduled */
	struct port_shape shape;   /* uetemu's egress shaper (port_shape.h): rate 0, the default, is none */
	bool shape_armed;          /* the port is kicked when the shaper lets the next frame go */
	bool pump_blocked;         /* stopped on a full egress pool */
	bool pkt_blocked;          /* stopped on an empty packet or record pool, or a full scheduler */
	struct nic_group *ready_head, *ready_tail;
	struct emu_pool *pdc_pool;
	struct nic_pdc *ho_head, *ho_tail;   /* half-open receive PDCs, oldest first */
	struct nic_pdc *lru_head, *lru_tail; /* receive PDCs, least recently active first */
	uint32_t rcv_per_peer_max;
	emu_ps_t rcv_idle;         /* a receive PDC idle this long may be reclaimed when the pool is full */
	struct emu_pool *rec_pool;
	struct emu_pool *wqe_pool;
	struct emu_pool *chunk_pool; /* struct nic_rcv_chunk */
	/* PFC (uet-nic-buffers-and-pfc.md, PFC) */
	struct port_pfcs pfcs;      /* PFC sent and honoured (port_pfcs.c, shared with the RoCE NIC) */
	struct port_pool_stats rxs[PORT_TC_COUNT], txs[2];
	bool rx_held;              /* the packet being received stays charged until PCIe accepts its write */
	uint64_t pf_used;          /* prefetch buffer occupancy, bytes on the wire of the payloads it holds */
	bool pf_blocked;           /* a fetch waited for prefetch room: restart when it drains to half */
	struct nic_cc_consts cc_k; /* NSCC's constants for this NIC's link */
	struct emu_pool *grp_pool;
	uint16_t next_snd_id, next_rcv_id;
	uint64_t next_wqe_id;
	uint16_t probe_opaque;
	uint64_t c[NIC_C_COUNT];
	struct nic_uet_rx uet_rx;  /* UET frames received, by class */
	struct nic_sample s_cum[NIC_S_COUNT];
	struct nic_sample s_ivl[NIC_S_COUNT];
	struct nic_gauges g;
	uint64_t next_uid;
	struct nic_trace tr_sending; /* uet-monitor row of the frame being serialized, emitted when it ends */
	/* the PDC, group and closed-PDC tables last, so that the scalars every packet touches share fewer lines */
	struct nic_pdc **snd_hash;    /* [hash_mask + 1] each */
	struct nic_pdc **rcv_hash;
	struct nic_group **grp_hash;
	uint32_t hash_mask;
	uint32_t n_snd;               /* sending PDCs open: alloc_snd_id gives up at once when every id is taken */
	/* closed receive PDCs, one per slot of hash(peer IP, peer id): [NIC_CLOSED_SLOTS], taken apart from the NIC so
	 * that a shell (nic_env.shell) does without its 12 KiB */
	struct nic_closed *closed;
};

/* Bytes on the wire around a data payload as this NIC sends it: 106, less 4 native, plus 4 with the CRC trailer. */
static inline uint32_t nic_data_ovh(const struct nic *nic)
{
	return wire_data_overhead(nic_params_encap(nic->p));
}

/* The size a data packet counts at in the window and bytes in flight: the IP datagram, payload + 88 B (seed 000,
 * Segmentation), whatever the encapsulation. */
static inline uint64_t nic_nominal(uint32_t payload)
{
	return (uint64_t)payload + WIRE_DATA_IP_OVERHEAD;
}

/* Record one sample of kind @p k. */
static inline void nic_sample_add(struct nic *nic, int k, uint64_t v)
{
	struct nic_sample *s[2] = { &nic->s_cum[k], &nic->s_ivl[k] };

	for (int i = 0; i < 2; i++) {
		s[i]->n++;
		s[i]->sum += v;
		if (v < s[i]->min)
			s[i]->min = v;
		if (v > s[i]->max)
			s[i]->max = v;
	}
}

/* Transfers of @p payload bytes on PCIe: at most 512 B each, one for an empty payload. */
static inline uint64_t nic_pcie_xfers(uint64_t payload)
{
	return payload == 0 ? 1 : (payload + PORT_PCIE_MAX_PAYLOAD - 1) / PORT_PCIE_MAX_PAYLOAD;
}

/* Can one transfer of up to @p payload bytes (the first, largest, of a PCIe write or completion) leave transmit
 * buffers @p tx for receive buffers @p rx? Each end holds a transfer while it is on the link and the receiving end
 * consumes it once there (uet-nic-buffers-and-pfc.md, PCIe host interface), so only a buffer smaller than one
 * transfer stops it, for good. */
static inline bool nic_pcie_fits(const struct port_pcie_params *tx, const struct port_pcie_params *rx, uint64_t payload)
{
	uint64_t first = payload < PORT_PCIE_MAX_PAYLOAD ? payload : PORT_PCIE_MAX_PAYLOAD;

	return tx->tx_header_buffer >= PORT_PCIE_TLP_HDR && rx->rx_header_buffer >= PORT_PCIE_TLP_HDR &&
	       tx->tx_data_buffer >= first && rx->rx_data_buffer >= first;
}


static inline void nic_gauge_max(uint64_t *cum, uint64_t *ivl, uint64_t v)
{
	if (v > *cum)
		*cum = v;
	if (v > *ivl)
		*ivl = v;
}

/* nic.c: port, egress, events */
void nic_event(struct nic *nic, struct nic_pdc *pdc, int type, emu_ps_t now);
int nic_txq_push(struct nic *nic, uint32_t tc, struct wire_pkt *pkt, emu_ps_t now);
void nic_port_kick(struct nic *nic, emu_ps_t now);
void nic_pump_arm(struct nic *nic, emu_ps_t when);
struct wire_pkt *nic_pkt_new(struct nic *nic, uint8_t kind, const struct nic_pdc *pdc);

/* A connection-management message for the host (nic_cm.c). */
void nic_rx_cm(struct nic *nic, struct wire_pkt *pkt, emu_ps_t now);
/* The control pool has released room: the setup messages waiting for it go, in order, while they fit. */
void nic_cm_drain(struct nic *nic, emu_ps_t now);
const uint8_t *nic_neigh_mac(const struct nic *nic, uint32_t ip);

/* nic_pdc.c: PDCs and groups */
struct nic_pdc *nic_pdc_snd_find(const struct nic *nic, uint16_t id);
struct nic_pdc *nic_pdc_rcv_find(struct nic *nic, uint32_t peer_ip, uint16_t peer_id);
/** The closed receive PDC from @p peer_ip whose sending end is @p peer_id, remembered since it closed, or NULL. */
const struct nic_closed *nic_pdc_closed_find(const struct nic *nic, uint32_t peer_ip, uint16_t peer_id);
struct nic_pdc *nic_pdc_open_snd(struct nic *nic, uint32_t peer_ip, emu_ps_t now);
struct nic_pdc *nic_pdc_open_rcv(struct nic *nic, uint32_t peer_ip, uint16_t peer_id, emu_ps_t now);
/** A packet reached receive PDC @p pdc: it leaves the half-open list at its second, and is the most recent. */
void nic_pdc_rcv_touch(struct nic *nic, struct nic_pdc *pdc, emu_ps_t now);
void nic_pdc_close(struct nic *nic, struct nic_pdc *pdc, emu_ps_t now);
void nic_group_ready(struct nic *nic, struct nic_group *g, bool at_head);
void nic_pdc_rr_add(struct nic *nic, struct nic_pdc *pdc);
/** Take @p pdc off its group's ring (the turn passes to the next PDC if it was its turn). */
void nic_pdc_rr_unlink(struct nic_pdc *pdc);
/** @p pdc may have nothing left to send: if it is on its ring, it goes on the group's idle list. */
void nic_pdc_idle_note(struct nic_pdc *pdc);
/** Take off the ring every PDC of @p g's idle list with nothing left to send; the idle list ends empty. */
void nic_group_idle_sweep(struct nic_group *g);
/** Does @p pdc have anything left to send (a retransmission, a prefetched or prefetching payload, a segment)? */
static inline bool nic_pdc_has_work(const struct nic_pdc *pdc)
{
	return pdc->rtx_head != NULL || pdc->pkts_issued < pdc->n_pkts || pdc->pf_next != NULL;
}
void nic_group_unready(struct nic *nic, struct nic_group *g);

/* nic_tx.c: the transmit process (segmentation, PCIe fetch, retransmissions) */
void nic_tx_pass(struct nic *nic, emu_ps_t now);
void nic_data_serialized(struct nic *nic, struct nic_rec *r, uint64_t uid, emu_ps_t now);
void nic_late_arm(struct nic *nic, struct nic_pdc *pdc, emu_ps_t deadline);
void nic_msg_start(struct nic *nic, struct nic_pdc *pdc, uint64_t bytes, uint64_t cookie, emu_ps_t now);
/** Close a sending PDC: cancel its timers, free its outstanding records, release its prefetch room, close it. */
void nic_pdc_finish(struct nic *nic, struct nic_pdc *pdc, emu_ps_t now);
/** Release @p bytes of the prefetch buffer; a transmit pass waiting for room restarts once it is half empty. */
void nic_pf_release(struct nic *nic, uint64_t bytes, emu_ps_t now);

/* nic_ack.c: the sender's ACK, NACK and timeout handling */
void nic_rx_ack(struct nic *nic, struct wire_pkt *pkt, emu_ps_t now);
void nic_rx_nack(struct nic *nic, struct wire_pkt *pkt, emu_ps_t now);
void nic_rto_arm(struct nic *nic, struct nic_pdc *pdc, emu_ps_t deadline);
void nic_pdc_wake(struct nic *nic, struct nic_pdc *pdc, emu_ps_t now);

/* nic_pfc.c: PFC sent on receive-pool thresholds, PFC received; the egress class scheduler */
void nic_pfc_check_xoff(struct nic *nic, uint32_t tc, uint64_t occupancy, emu_ps_t now);
void nic_pfc_check_xon(struct nic *nic, uint32_t tc, emu_ps_t now);
void nic_pfc_rx(struct nic *nic, const struct wire_pkt *pkt, emu_ps_t now);
/** Set up nic->pfcs (nic_create()). */
void nic_pfc_init(struct nic *nic);
/** The egress class to send from now (PORT_TX_FIRST: a PFC frame; PORT_TX_NONE: nothing can go). */
int nic_port_pick(struct nic *nic, emu_ps_t now);
/** uetemu's egress shaper set to @p bps (0: none) at @p now, its bucket EgressShaper.BurstSize (port_shape.h). */
void nic_rate_limit(struct nic *nic, uint64_t bps, emu_ps_t now);
/** Hold (@p on) or release the sending of PDC @p pdc_id at @p now. 0, or -ENOENT (no such sending PDC). */
int nic_pdc_hold(struct nic *nic, uint16_t pdc_id, bool on, emu_ps_t now);

/* nic_trace.c: uet-monitor rows (only with nic_env.trace; the test is inline, the rows out of line) */
void nic_trace_tx_start_do(struct nic *nic, const struct wire_pkt *p);
void nic_trace_tx_done_do(struct nic *nic, emu_ps_t now);
void nic_trace_now_do(struct nic *nic, const struct wire_pkt *p, uint8_t dir, const struct nic_pdc *pdc, emu_ps_t rtt,
		      emu_ps_t now);

static inline void nic_trace_tx_start(struct nic *nic, const struct wire_pkt *p)
{
	if (nic->env.trace)
		nic_trace_tx_start_do(nic, p);
}

static inline void nic_trace_tx_done(struct nic *nic, emu_ps_t now)
{
	if (nic->env.trace)
		nic_trace_tx_done_do(nic, now);
}

/** A row now: a NACK sent, or a packet received (@p rtt EMU_PS_NEVER when it gave no RTT sample). */
static inline void nic_trace_now(struct nic *nic, const struct wire_pkt *p, uint8_t dir, const struct nic_pdc *pdc,
				 emu_ps_t rtt, emu_ps_t now)
{
	if (nic->env.trace)
		nic_trace_now_do(nic, p, dir, pdc, rtt, now);
}

/* nic_rcv.c: the receiver's order tracking */
/** Track data PSN @p psn (within NIC_RCV_WIN of rcv_next): enum nic_track; duplicates and out-of-order counted. */
int nic_rcv_track(struct nic *nic, struct nic_pdc *pdc, uint32_t psn);
/** The SACK block an ACK reports now: its index past rcv_next (base CACK_PSN + 1 + 64 x index); *bm its bitmap. */
uint32_t nic_rcv_sack(struct nic_pdc *pdc, uint64_t *bm);
/** Return a receive PDC's tracking chunks to the pool. */
void nic_rcv_free(struct nic *nic, struct nic_pdc *pdc);
/* Forget the out-of-order PSNs tracked past @p psn (a message's EOM: they belong to no message); how many. */
uint32_t nic_rcv_forget_after(struct nic *nic, struct nic_pdc *pdc, uint32_t psn);

/* nic_rx.c: the receiver */
void nic_rx_data(struct nic *nic, struct wire_pkt *pkt, emu_ps_t now);
void nic_rx_cp(struct nic *nic, struct wire_pkt *pkt, emu_ps_t now);
/** Queue control packet @p p in the control egress class (counted and freed when the pool is full). */
void nic_push_ctrl(struct nic *nic, struct wire_pkt *p, emu_ps_t now);
/** The ACK of receive PDC @p pdc as it stands, answering @p req, in the NIC's ACK form; NULL: no descriptor. */
struct wire_pkt *nic_build_ack(struct nic *nic, struct nic_pdc *pdc, const struct wire_pkt *req);
/** NACK trimmed request @p pkt of @p pdc at once (UET_TRIMMED or UET_TRIMMED_LASTHOP by its DSCP). */
void nic_rx_trimmed(struct nic *nic, struct nic_pdc *pdc, const struct wire_pkt *pkt, emu_ps_t now);
/** Write @p pkt's payload to the host over PCIe; false when the write can never go. */
bool nic_rx_deliver(struct nic *nic, struct nic_pdc *pdc, const struct wire_pkt *pkt, emu_ps_t now);
/** Does data packet @p pkt fit the message being received on @p pdc (a PSN at or past rcv_next)? */
bool nic_rx_fits(struct nic *nic, struct nic_pdc *pdc, const struct wire_pkt *pkt);
/** A new PSN's payload delivered, the message's end noted, its completion told. */
void nic_rx_new(struct nic *nic, struct nic_pdc *pdc, const struct wire_pkt *pkt, emu_ps_t now);
/** Send @p pdc's ACK of @p pkt after the PCIe service time (@p waiting: data bytes held before it); false if none
 *  could be made or scheduled. */
bool nic_ack_held(struct nic *nic, struct nic_pdc *pdc, const struct wire_pkt *pkt, uint64_t waiting, emu_ps_t now);

/* Is PDS type @p t a request (RUD, ROD, RUDI, UUD, RUD_CC, ROD_CC)? */
static inline bool nic_pds_is_req(uint8_t t)
{
	return t == WIRE_PDS_RUD_REQ || t == WIRE_PDS_ROD_REQ || t == WIRE_PDS_RUDI_REQ || t == WIRE_PDS_UUD_REQ ||
	       t == WIRE_PDS_RUD_CC_REQ || t == WIRE_PDS_ROD_CC_REQ;
}

/* nic_pds.c: the UET 1.0 forms other than uetemu's own (docs/wire.md, What the NIC model does with them) */
/** Does the NIC act on WIRE_KIND_UET frame @p pkt (false: a TSS frame, counted as not_used)? */
bool nic_pds_takes(const struct wire_pkt *pkt);
/** A WIRE_KIND_UET frame the NIC takes, charged to its receive pool: dispatched by PDS type. */
void nic_rx_uet(struct nic *nic, struct wire_pkt *pkt, emu_ps_t now);
/** A RUD / ROD request (with or without CC) of a form other than uetemu's own, or a ROD_CC one. */
void nic_pds_rx_req(struct nic *nic, struct wire_pkt *pkt, emu_ps_t now);
/** A UET request found its receive pool full: NACK NO_PKT_BUFFER (RUD, ROD, RUDI; a UUD is lost). */
void nic_pds_no_buffer(struct nic *nic, const struct wire_pkt *pkt, emu_ps_t now);
/** Give ACK @p ack, answering @p req, the NIC's ACK form and SES response (nothing at the defaults). */
void nic_pds_ack_form(struct nic *nic, struct wire_pkt *ack, const struct wire_pkt *req);
/** A NACK of a code other than a trim, for sending PDC @p pdc (matched, its PSN sent). */
void nic_pds_nack_code(struct nic *nic, struct nic_pdc *pdc, const struct wire_pkt *pkt, emu_ps_t now);
/** A UET frame of @p pkt's kind to the sender of @p req (its MAC when no neighbour entry has it). */
struct wire_pkt *nic_pds_reply_new(struct nic *nic, uint8_t kind, const struct nic_pdc *pdc,
				   const struct wire_pkt *req);
/** NACK @p req with @p code; @p pdc is the local PDC or NULL (SPDCID 0). Counted as UET event @p ev. */
void nic_pds_nack(struct nic *nic, const struct nic_pdc *pdc, const struct wire_pkt *req, uint8_t code, int ev,
		  emu_ps_t now);

/* nic_ctl.c: control packets other than PROBE */
void nic_ctl_rx(struct nic *nic, struct wire_pkt *pkt, emu_ps_t now);
/** Send CLOSE for sending PDC @p pdc (the target asked with CLOSE_REQ); the caller then closes it. */
void nic_ctl_send_close(struct nic *nic, struct nic_pdc *pdc, emu_ps_t now);

/* nic_ack.c, for the NACK codes (nic_pds.c) */
/** Queue outstanding @p r of @p pdc for retransmission (out of flight) if it is in flight; true if it was. */
bool nic_rec_requeue(struct nic_pdc *pdc, struct nic_rec *r);

#endif /* NIC_PVT_H */
