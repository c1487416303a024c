/* Internals shared by the NIC's files: the NIC, its PDCs, groups, and egress/ingress state. */
#ifndef NIC_PVT_H
#define NIC_PVT_H

#include <stdbool.h>

#include "emu_rng.h"
#include "nic_cc.h"
#include "nic_lb.h"
#include "nic.h"

#define NIC_RCV_WIN 256       /* receiver: PSNs tracked beyond rcv_next (4 SACK blocks of 64) */
#define NIC_HASH_BUCKETS 256
#define NIC_SND_ID_MIN 1      /* sending PDC ids 1..32767 (uet-nic-records, Identifying a PDC) */
#define NIC_SND_ID_MAX 32767
#define NIC_RCV_ID_MIN 32769  /* receiving PDC ids 32769..65535 */
#define NIC_RCV_ID_MAX 65535
#define NIC_LPORT_BASE 49152  /* PDCs' local UDP ports: the dynamic range 49152..65535 (None spraying's value) */
#define NIC_LPORT_COUNT 16384
#define NIC_TC_DATA 0
#define NIC_TC_CTRL 1

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
	struct nic_group *group;
	uint32_t peer_ip;
	uint16_t id;               /* local PDC id */
	uint16_t remote_id;        /* 0 until known */
	bool sender;
	bool in_rr;
	bool conn;                 /* a connection's long-lived PDC: messages queue on it, it stays open */
	bool busy;                 /* conn: a message is being sent */
	struct nic_wqe *wq_head, *wq_tail; /* conn: messages waiting, in posting order */
	/* sender */
	uint64_t wqe_id;
	uint64_t cookie;
	uint64_t bytes;
	uint32_t n_pkts;
	uint32_t pkts_issued;      /* segments whose fetch was issued */
	uint32_t pkts_acked;
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
	emu_ps_t probe_at;         /* when the base-RTT probe was handed down to be sent */
	/* receiver */
	uint32_t rcv_next;         /* next expected PSN; CACK_PSN = rcv_next - 1 */
	uint64_t rcvd[NIC_RCV_WIN / 64];  /* bit (psn % NIC_RCV_WIN) for psn in (rcv_next, rcv_next + WIN) */
	uint64_t rcv_payload;      /* unique payload bytes received */
	uint64_t rcvd_bytes_cc;    /* unique IP bytes, for the NSCC rcvd_bytes field */
	uint64_t rcv_wqe_id;
	uint32_t eom_psn;
	uint16_t ooo_count;
	uint8_t sack_block;        /* next 64-PSN block to report when more than one holds out-of-order packets */
	bool eom_seen;
	bool recv_done;
};

/* PDCs to one peer: one window and one load balancer (the spraying counter), scheduled as one. */
struct nic_group {
	struct nic_group *hnext;
	struct nic_group *ready_next;
	struct nic_pdc *rr;        /* ring of PDCs with data to send; rr points at the one whose turn it is */
	uint32_t peer_ip;
	uint8_t peer_mac[6];       /* looked up once, when the group is created */
	uint32_t n_pdcs;
	struct nic_lb lb;          /* the group's load balancer: None, Default Packet Spraying or REPS */
	struct nic_cc cc;          /* the group's NSCC window, counted at nominal size (payload + 88) */
	uint64_t in_flight;        /* nominal bytes fetched or sent and not yet acked, nacked or timed out */
	uint64_t fetched;          /* payload bytes fetched from the host (uet-monitor bytes_fetched) */
	uint64_t pf_nominal;       /* prefetch buffer on: nominal bytes of its payloads fetched, not yet committed */
	bool in_ready;
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
	uint64_t pcie_n2h_bps;     /* NIC side: read requests and received-data writes */
	uint64_t pcie_h2n_bps;     /* host side: payload completions */
	emu_ps_t pcie_n2h_busy;
	emu_ps_t pcie_h2n_busy;
	emu_ps_t ack_last;         /* ACKs leave in the order generated */
	uint64_t in_pool_size[NIC_TC_COUNT];
	uint64_t in_pool_used[NIC_TC_COUNT];
	struct nic_txq txq[2];     /* classes 0 (data) and 1 (control) */
	uint32_t sending_tc;       /* class of the frame being serialized */
	uint32_t sending_len;
	uint8_t sending_kind;
	uint64_t sending_uid;      /* the data packet being serialized, to start its record's timer */
	struct nic_rec *sending_rec;  /* its record; may have been retired meanwhile: check sending_uid */
	bool port_busy;
	bool pump_armed;           /* a transmit pass is scheduled */
	bool pump_blocked;         /* stopped on a full egress pool */
	bool pkt_blocked;          /* stopped on an empty packet or record pool, or a full scheduler */
	struct nic_group *ready_head, *ready_tail;
	struct emu_pool *pdc_pool;
	struct emu_pool *rec_pool;
	struct emu_pool *wqe_pool;
	/* PFC (uet-nic-buffers-and-pfc.md, PFC) */
	struct wire_pkt *pfcq[16]; /* PFC frames to send, ahead of all traffic */
	uint32_t pfcq_head, pfcq_tail;
	bool pfc_out[NIC_TC_COUNT];          /* a pause we sent is outstanding */
	emu_timer_t pfc_refresh[NIC_TC_COUNT];
	emu_ps_t paused_until[NIC_TC_COUNT]; /* a received pause holds the class until then */
	emu_timer_t pfc_resume[NIC_TC_COUNT];
	emu_ps_t paused_since[NIC_TC_COUNT];
	struct nic_pfc_stats pfc;
	uint32_t rr_next_tc;       /* RoundRobin / WeightedRoundRobin between egress classes */
	uint32_t wrr_sent;         /* packets the current class has sent in its WRR turn */
	struct nic_pool_stats rxs[NIC_TC_COUNT], txs[2];
	bool rx_held;              /* the packet being received stays charged until PCIe accepts its write */
	struct nic_pcie_stats pcie;
	uint64_t pf_used;          /* prefetch buffer occupancy, bytes on the wire of the payloads it holds */
	bool pf_blocked;           /* a fetch waited for prefetch room: restart when it drains to half */
	struct nic_cc_consts cc_k; /* NSCC's constants for this NIC's link */
	struct emu_pool *grp_pool;
	uint16_t next_snd_id, next_rcv_id;
	uint64_t next_wqe_id;
	uint16_t probe_opaque;
	uint64_t c[NIC_C_COUNT];
	struct nic_sample s_cum[NIC_S_COUNT];
	struct nic_sample s_ivl[NIC_S_COUNT];
	struct nic_gauges g;
	uint64_t next_uid;
	struct nic_trace tr_sending; /* uet-monitor row of the frame being serialized, emitted when it ends */
	/* the PDC and group tables last (6 KiB), so that the scalars every packet touches share fewer lines */
	struct nic_pdc *snd_hash[NIC_HASH_BUCKETS];
	struct nic_pdc *rcv_hash[NIC_HASH_BUCKETS];
	struct nic_group *grp_hash[NIC_HASH_BUCKETS];
};

/* The size a data packet counts at in the window and bytes in flight: the IP datagram, payload + 88 B (seed 000,
 * Segmentation). */
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

static inline void nic_pool_enq(struct nic_pool_stats *s, uint64_t bytes, uint64_t occupancy_with_it)
{
	s->num_enq++;
	s->enq_bytes += bytes;
	if (occupancy_with_it > s->max_occupancy)
		s->max_occupancy = occupancy_with_it;
	if (occupancy_with_it > s->ivl_max_occupancy)
		s->ivl_max_occupancy = occupancy_with_it;
}

static inline void nic_pool_deq(struct nic_pool_stats *s, uint64_t bytes)
{
	s->num_deq++;
	s->deq_bytes += bytes;
}

/* Count a PCIe transfer of @p bytes on the link (@p side 0: NIC-to-host, 1: host-to-NIC) taking @p ps. */
static inline void nic_pcie_count(struct nic *nic, int side, uint64_t tlps, uint64_t bytes, uint64_t payload,
				  emu_ps_t ps)
{
	nic->pcie.tlps[side] += tlps;
	nic->pcie.bytes[side] += bytes;
	nic->pcie.payload_bytes[side] += payload;
	nic->pcie.busy_ps[side] += ps;
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
const uint8_t *nic_neigh_mac(const struct nic *nic, uint32_t ip);

/* nic_pdc.c: PDCs and groups */
struct nic_pdc *nic_pdc_snd_find(struct nic *nic, uint16_t id);
struct nic_pdc *nic_pdc_rcv_find(struct nic *nic, uint32_t peer_ip, uint16_t peer_id);
struct nic_pdc *nic_pdc_open_snd(struct nic *nic, uint32_t peer_ip, emu_ps_t now);
struct nic_pdc *nic_pdc_open_rcv(struct nic *nic, uint32_t peer_ip, uint16_t peer_id, emu_ps_t now);
void nic_pdc_close(struct nic *nic, struct nic_pdc *pdc, emu_ps_t now);
void nic_group_ready(struct nic *nic, struct nic_group *g, bool at_head);
void nic_pdc_rr_add(struct nic *nic, struct nic_pdc *pdc);
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
/** The egress class to send from now (-2: a PFC frame; -1: nothing can go). */
int nic_port_pick(struct nic *nic, emu_ps_t now);

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

/* nic_rx.c: the receiver */
void nic_rx_data(struct nic *nic, struct wire_pkt *pkt, emu_ps_t now);
void nic_rx_cp(struct nic *nic, struct wire_pkt *pkt, emu_ps_t now);

#endif /* NIC_PVT_H */
