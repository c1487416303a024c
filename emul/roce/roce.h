/* The Scala RoCE NIC model: reliable connected queue pairs over RoCEv2, go-back-N, a transport timer per queue pair,
 * DCQCN-style rate control, per-class egress and ingress pools with PFC, and the PCIe host link. */
#ifndef ROCE_H
#define ROCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "net.h"
#include "port.h"
#include "port_pcie.h"
#include "port_pfcs.h"
#include "roce_params.h"

struct roce;

/*
 * The first queue pair number a NIC gives out. IBA reserves QP0 (subnet management) and QP1 (the general services
 * interface): a RoCE device hands what it receives for QP1 to its management agent, and Wireshark decodes it as a
 * MAD. Queue pairs are numbered from 2 on, as a real device's are.
 */
#define ROCE_QPN_FIRST 2u

/* Counters of one NIC, named as the roce-transport-stats columns (transport page, Records the transport writes),
 * then the port's and the buffers' own. */
#define ROCE_COUNTERS(X) \
	X(NONE, "none", "none") \
	X(PKTS_SENT, "num_pkts_sent", "packets sent: data and control") \
	X(VERB_PKTS_SENT, "num_verb_pkts_sent", "data packets sent") \
	X(NON_VERB_PKTS_SENT, "num_non_verb_pkts_sent", "control packets sent: ACKs, NAKs, CNPs, connection packets") \
	X(CONN_PKTS_SENT, "num_conn_pkts_sent", "connection packets sent") \
	X(CONN_PKTS_RECVD, "num_conn_pkts_recvd", "connection packets received") \
	X(RDMA_WRITE_CNT, "rdma_write_cnt", "RDMA WRITE packets sent, retransmissions included") \
	X(RDMA_SEND_CNT, "rdma_send_cnt", "SEND packets sent, retransmissions included") \
	X(WRITES_RECVD, "num_writes_recvd", "RDMA WRITE packets received") \
	X(SENDS_RECVD, "num_sends_recvd", "SEND packets received") \
	X(ACKS_SENT, "num_acks_sent", "ACKs sent") \
	X(ACKS_RECVD, "num_acks_recvd", "ACKs received") \
	X(NACKS_SENT, "num_nacks_sent", "NAKs sent") \
	X(NACKS_RECVD, "num_nacks_recvd", "NAKs received") \
	X(CNP_SENT, "num_cnp_sent", "CNPs sent for CE-marked packets received") \
	X(CNP_RECVD, "num_cnp_recvd", "CNPs received") \
	X(SEQ_OUT_OF_ORDER, "num_seq_out_of_order", "gaps detected as a receiver: one per NAK sent") \
	X(DUPLICATE, "num_duplicate", "duplicate data packets received") \
	X(WQE_CREATED, "num_wqe_created", "work requests posted") \
	X(WQE_COMPLETED, "num_wqe_completed", "work requests completed by the ACK of their last packet") \
	X(RTX, "num_rtx", "retransmission episodes: one per NAK received and per transport timer expiry") \
	X(RTO, "num_rto", "transport timer expiries") \
	X(RX_DROPS_NO_QP_DATA, "num_rx_drops_no_qp_data", "drop: data packet for no queue pair") \
	X(RX_DROPS_NO_QP_CTRL, "num_rx_drops_no_qp_ctrl", "drop: ACK, NAK or CNP for no queue pair") \
	X(RX_DROPS_AFTER_NAK, "num_rx_drops_after_nak", "drop: data packet behind a gap (go-back-N)") \
	X(RX_DROPS_GHOST_ACK, "num_rx_drops_ghost_ack", "drop: ACK or NAK naming a PSN the queue pair has not sent") \
	X(TX_PAYLOAD_DISCARDS, "num_tx_payload_discards", "payload fetched, then discarded as stale by a rewind") \
	X(RATE_CUTS, "rate_cuts", "congestion control: rate reductions (episode starts included)") \
	X(RATE_EPISODES, "rate_episodes", "congestion control: episodes begun by a CNP") \
	X(CE_RCVD, "ce_rcvd", "packets received with ECN CE") \
	X(PORT_TX_FRAMES, "port_tx_frames", "frames sent on the port, PFC frames included") \
	X(PORT_RX_FRAMES, "port_rx_frames", "frames received on the port, PFC frames included") \
	X(TX_BYTES, "tx_bytes", "bytes sent on the wire, FCS included") \
	X(RX_BYTES, "rx_bytes", "bytes received from the wire, FCS included") \
	X(RX_PAYLOAD_BYTES, "rx_payload_bytes", "new payload bytes delivered to the host") \
	X(RX_DROPS, "rx_drops", "drop: receive pool of the class full") \
	X(DROP_TX_CTL_POOL_FULL, "drop_tx_ctl_pool_full", "drop: control egress pool full, ACK or NAK not sent") \
	X(DROP_NOT_FOR_US, "drop_not_for_us", "drop: destination IP is not this NIC") \
	X(DROP_BAD_KIND, "drop_bad_kind", "drop: frame the RoCE NIC does not take (not RoCE, PFC or CM)") \
	X(DROP_NO_PKT, "drop_no_pkt", "drop: packet pool empty when building a packet") \
	X(DROP_NO_QP, "drop_no_qp", "drop: no queue pair could be created (table full)") \
	X(DROP_NO_WQE, "drop_no_wqe", "drop: a work request found no free entry to wait in")

#define ROCE_COUNTER_ENUM(n, k, s) ROCE_C_##n,
enum roce_counter { ROCE_COUNTERS(ROCE_COUNTER_ENUM) ROCE_C_COUNT };
#undef ROCE_COUNTER_ENUM

/** Name of counter @p c (the record column). */
const char *roce_counter_name(int c);
/** What counter @p c counts; "unknown" outside the enum. */
const char *roce_counter_desc(int c);

/** What the run learns from a NIC. All optional; @p arg is hooks.arg. */
struct roce_hooks {
	void *arg;
	/** The sender's work request @p cookie completed: the ACK of its last packet arrived. */
	void (*msg_done)(void *arg, uint64_t cookie, emu_ps_t now);
	/** Every byte of work request @p cookie has been sent: its last packet finished serializing for the first
	 *  time (before msg_done; once per work request). Without it the transmit path tests nothing more. */
	void (*msg_sent)(void *arg, uint64_t cookie, emu_ps_t now);
	/** The receiver has all @p bytes of a message from @p src_ip, in order: the @p msn-th message (1, 2, ...)
	 *  of queue pair @p qpn (the sender's number). A sender's (qpn, msn) names one of its work requests exactly:
	 *  the @p msn-th it posted on that queue pair. */
	void (*msg_recv)(void *arg, uint32_t fep_id, uint32_t src_ip, uint32_t qpn, uint32_t msn, uint64_t bytes,
			 emu_ps_t now);
	/** A connection-management message reached this NIC's host. */
	void (*cm_recv)(void *arg, uint32_t fep_id, uint32_t src_ip, const struct wire_cm *cm, emu_ps_t now);
	/** The congestion control of queue pair @p qpn set its allowed rate to @p bps (a cut or an increase). */
	void (*rate)(void *arg, uint32_t fep_id, uint32_t qpn, uint64_t bps, emu_ps_t now);
};

/** Everything a NIC is made from. Copied by roce_create(); @p params and @p neigh must outlive the NIC. */
struct roce_env {
	struct net_part *np;
	const struct roce_params *params;
	uint32_t fep_id;
	const char *name;
	uint32_t ip;
	uint8_t mac[6];
	bool has_gw;                /* as nic_env.has_gw: frames go to gw_mac */
	uint8_t gw_mac[6];
	const struct port_neigh *neigh;
	uint32_t n_neigh;
	uint32_t max_qps;           /* queue pairs, both ends together (0: 4,096) */
	uint32_t max_wqes;          /* work requests waiting NIC-wide (0: 16,384) */
	uint8_t data_tc, ctrl_tc;   /* the application's classes (RdmaDataPacketTC, RdmaControlPacketTC): 0 and 1 */
	uint64_t doorbell_bytes;    /* a doorbell on PCIe, DoorbellPayloadSize + 28 B (0: 92 B) */
	struct roce_hooks hooks;
};

/** Create a NIC; NULL with errno ENOMEM. */
struct roce *roce_create(const struct roce_env *env);

/** Free the NIC and the packets it holds. Accepts NULL. */
void roce_destroy(struct roce *r);

/** The device entry points, for net_endpoint.ops. */
extern const struct net_dev_ops roce_dev_ops;

struct port_nic_ops;
/** The RoCE NIC behind the host-NIC interface (port_nic.h). */
extern const struct port_nic_ops roce_port_ops;

/** Attach the link direction this NIC sends on. Line rate is the lower of DataRate and the link's rate. */
void roce_attach(struct roce *r, struct net_dir *out);

/** Line rate, bit/s (after roce_attach()). */
uint64_t roce_line_bps(const struct roce *r);

/**
 * Create this NIC's end of a queue pair to @p dst_ip; its number in @p qpn. The far end is created by the first
 * packet that reaches it (transport page, Queue pairs and messages). Returns 0, -EHOSTUNREACH, or -ENOSPC.
 */
int roce_qp_open(struct roce *r, uint32_t dst_ip, uint32_t *qpn);

enum roce_verb { ROCE_VERB_WRITE = 0, ROCE_VERB_SEND };

/** The largest message (bytes) a RoCE NIC with MSS @p mss can send: 2^23 packets, half the 24-bit PSN space. */
static inline uint64_t roce_msg_bytes_max(uint32_t mss)
{
	return (1ULL << 23) * mss;
}

/**
 * The host posts a work request of @p bytes on queue pair @p qpn at @p now (the doorbell's PCIe transfer first). It
 * waits behind the queue pair's earlier ones: one message at a time per queue pair. Returns 0, -ENOENT (no such
 * queue pair), -EMSGSIZE (more than 2^23 packets: PSNs are 24 bits), or -ENOSPC (no free entry; counted).
 */
int roce_post(struct roce *r, uint32_t qpn, enum roce_verb verb, uint64_t bytes, uint64_t cookie, emu_ps_t now);

/**
 * The host sends connection-management message @p cm to @p dst_ip: the same 62 B UDP frame as the UET NIC's
 * (nic_cm_send()), on the control class. Returns 0, -EHOSTUNREACH or -ENOBUFS.
 */
int roce_cm_send(struct roce *r, uint32_t dst_ip, const struct wire_cm *cm, emu_ps_t now);

/** The counters (ROCE_C_COUNT entries). */
const uint64_t *roce_counters(const struct roce *r);

/** The RTT samples (the sender: end of a data packet's serialization to the ACK retiring it), ps. */
struct roce_rtt {
	uint64_t n, sum, max;           /* since the start */
	uint64_t ivl_n, ivl_sum, ivl_min, ivl_max;
};
void roce_rtt(const struct roce *r, struct roce_rtt *out);
/** Start a new interval of the RTT samples. */
void roce_interval_reset(struct roce *r);

/** PFC per class, as the UET NIC's (ecn-pfc-stats); the pause time accrued up to @p now. */
void roce_pfc_stats(const struct roce *r, struct port_pfc_stats *out, emu_ps_t now);
/** Start a new interval of the longest-pause statistic (ecn-pfc-stats rows). */
void roce_pfc_interval_reset(struct roce *r, emu_ps_t now);

/** The stats of the receive (@p tx false) or transmit pool of class @p tc (net-buff-stats), as the UET NIC's. */
void roce_pool_stats(const struct roce *r, bool tx, uint32_t tc, struct port_pool_stats *out);
/** Start a new net-buff-stats interval. */
void roce_pool_interval_reset(struct roce *r);

/** The PCIe link's counters (pcie-stats), as the UET NIC's, link time still ahead of @p now not counted. */
void roce_pcie_stats(const struct roce *r, struct port_pcie_stats *out, emu_ps_t now);

/** Pool size and occupancy of class @p tc: receive (@p tx false) or transmit. */
void roce_pool(const struct roce *r, bool tx, uint32_t tc, uint64_t *size, uint64_t *occupancy);

/** A queue pair's allowed rate now (bit/s): line rate unless congestion control has slowed it. 0 for no such QP. */
uint64_t roce_qp_rate(const struct roce *r, uint32_t qpn);

const char *roce_name(const struct roce *r);
uint32_t roce_fep_id(const struct roce *r);

#endif /* ROCE_H */
