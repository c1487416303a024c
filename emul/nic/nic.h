/* The Scala UET NIC model: segmentation, PCIe fetch, PDS transmit/receive, ACKs, egress and ingress pools. */
#ifndef NIC_H
#define NIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "net.h"
#include "nic_params.h"
#include "port.h"
#include "port_pcie.h"
#include "port_pfcs.h"

struct nic;

/* Counters of one NIC, named as the uet-transport-stats columns where one exists. */
#define NIC_COUNTERS(X) \
	X(NONE, "none", "none") \
	X(WRITE_PKTS_SENT, "write_pkts_sent", "data (RDMA WRITE) packets sent, retransmissions included") \
	X(WRITE_PKTS_RCVD, "write_pkts_rcvd", "data packets received") \
	X(ACK_PKTS_SENT, "ack_pkts_sent", "ACKs sent") \
	X(ACK_PKTS_RCVD, "ack_pkts_rcvd", "ACKs received") \
	X(NACK_PKTS_SENT, "nack_pkts_sent", "NACKs sent") \
	X(NACK_PKTS_RCVD, "nack_pkts_rcvd", "NACKs received") \
	X(PROBE_SENT, "probe_sent", "probes sent") \
	X(PROBE_ACK_RCVD, "probe_ack_rcvd", "probe ACKs received") \
	X(WQES_CREATED, "wqes_created", "WQEs (messages) posted to the NIC") \
	X(WQES_COMPLETED, "wqes_completed", "WQEs completed (last ACK received)") \
	X(OOO_EVENTS, "num_out_of_order_events_on_nic", "data packets received out of PSN order") \
	X(DUP_EVENTS, "num_dup_events_on_nic", "duplicate data packets received") \
	X(NUM_RTO, "num_rto", "retransmission timer expiries") \
	X(NUM_RTX, "num_rtx", "packets retransmitted") \
	X(M_MARKED_PKTS_SENT, "m_marked_pkts_sent", "packets sent with the M (ECN echo) mark") \
	X(M_MARKED_PKTS_RCVD, "m_marked_pkts_rcvd", "packets received with the M (ECN echo) mark") \
	X(NUM_QUICK_ADAPT, "num_quick_adapt", "NSCC Quick Adapt reductions") \
	X(PORT_TX_FRAMES, "port_tx_frames", "frames sent on the port, PFC frames included") \
	X(PORT_RX_FRAMES, "port_rx_frames", "frames received on the port, PFC frames included") \
	X(PORT_TX_FRAME_BYTES, "port_tx_frame_bytes", "bytes sent on the port from the Ethernet header on, no FCS") \
	X(PORT_RX_FRAME_BYTES, "port_rx_frame_bytes", "bytes received on the port from the Ethernet header on, no FCS") \
	X(LATE_NO_PDC, "late_no_pdc", "ACKs and NACKs ignored: their PDC is closed (late) or was never open") \
	X(PROBE_NO_PDC, "probe_no_pdc", "probes answered for a PDC already closed") \
	X(CM_SENT, "cm_sent", "connection-management messages sent (the RDMA application's connection setup)") \
	X(CM_RCVD, "cm_rcvd", "connection-management messages received and handed to the host") \
	X(CM_DEFERRED, "cm_deferred", "connection-management messages that waited for control egress pool room") \
	X(UET_NOT_USED, "uet_not_used", "valid UET frames of a kind this model does not act on (by type: uet_rx.not_used)") \
	X(TRIMS_RCVD, "trims_rcvd", "trimmed packets received") \
	X(ECN_CE_RCVD, "ecn_ce_rcvd", "data packets received with ECN CE") \
	X(PFC_PAUSES_RCVD, "pfc_pauses_rcvd", "PFC pause frames received") \
	X(PFC_PAUSES_SENT, "pfc_pauses_sent", "PFC pause frames sent") \
	X(TX_BYTES, "tx_bytes", "bytes sent on the wire, FCS included") \
	X(RX_BYTES, "rx_bytes", "bytes received from the wire, FCS included") \
	X(RX_PAYLOAD_BYTES, "rx_payload_bytes", "new payload bytes delivered to the host") \
	X(DROP_RX_POOL_FULL, "drop_rx_pool_full", "drop: receive pool of the class full") \
	X(DROP_TX_CTL_POOL_FULL, "drop_tx_ctl_pool_full", "drop: control egress pool full, ACK not sent") \
	X(DROP_NOT_FOR_US, "drop_not_for_us", "drop: destination IP is not this NIC") \
	X(DROP_PSN_OUT_OF_WINDOW, "drop_psn_out_of_window", "drop: data PSN outside the receive window") \
	X(DROP_OOO_POOL_EMPTY, "drop_ooo_pool_empty", "drop: no room left to track an out-of-order data PSN") \
	X(DROP_BAD_KIND, "drop_bad_kind", "drop: packet kind the NIC does not take") \
	X(DROP_NO_PDC, "drop_no_pdc", "drop: no PDC could be created (pool empty or ids exhausted)") \
	X(DROP_NO_RCV_PDC, "drop_no_rcv_pdc", "drop: data without SYN for a receive PDC this NIC does not have") \
	X(DROP_NO_WQE, "drop_no_wqe", "drop: a WQE posted on a connection found no free entry to wait in") \
	X(DROP_NO_PKT, "drop_no_pkt", "drop: packet pool empty when building a packet") \
	X(DROP_BEYOND_MESSAGE, "drop_beyond_message", \
	  "drop: data outside the message it names (past its EOM, past its request_length, another request_length)") \
	X(DROP_ACK_BEYOND_SENT, "drop_ack_beyond_sent", \
	  "drop: ACK or NACK acknowledging or reporting a PSN this NIC has not sent on the PDC") \
	X(DROP_RCV_PEER_CAP, "drop_rcv_peer_cap", \
	  "drop: SYN from a source IP already holding its cap of receive PDCs (nic_env.rcv_per_peer_max)") \
	X(RCV_PDC_EVICTED_HALF_OPEN, "rcv_pdc_evicted_half_open", \
	  "receive PDCs that had seen one packet, evicted (oldest first) to admit a new SYN into a full pool") \
	X(RCV_PDC_IDLE_RECLAIMED, "rcv_pdc_idle_reclaimed", \
	  "receive PDCs idle for 4 x the longest RTO, reclaimed to admit a new SYN into a full pool")

#define NIC_COUNTER_ENUM(n, k, s) NIC_C_##n,
enum nic_counter { NIC_COUNTERS(NIC_COUNTER_ENUM) NIC_C_COUNT };
#undef NIC_COUNTER_ENUM

/** Name of counter @p c. */
const char *nic_counter_name(int c);

/** What counter @p c counts, in words (docs/summary.md); "unknown" outside the enum. */
const char *nic_counter_desc(int c);

/* Sampled quantities of uet-transport-stats, each kept as count/sum/min/max since the start and in the interval. */
enum nic_sample_kind {
	NIC_S_RCVR_CWND_PEN = 0, /* receiver penalty 0..127 in each data ACK that gives an RTT sample */
	NIC_S_CWND_BYTES,        /* the group's window, bytes, at each first transmission of a data packet */
	NIC_S_AVG_Q_DELAY_PS,    /* NSCC's average queueing delay at each data ACK with an RTT sample */
	NIC_S_RTT_PS,            /* each RTT sample: end of the data's serialization to the ACK, less the hold */
	NIC_S_BYTES_IN_FLIGHT,   /* the group's bytes in flight at each first transmission of a data packet */
	NIC_S_COUNT
};

/** One sampled quantity. min is UINT64_MAX and max 0 while n is 0. */
struct nic_sample {
	uint64_t n, sum, min, max;
};

/** Gauges of uet-transport-stats (max_out_of_order_on_flow, max_tx_count), since the start and in the interval. */
struct nic_gauges {
	uint64_t max_ooo_on_flow, ivl_max_ooo_on_flow;
	uint64_t max_tx_count, ivl_max_tx_count;
};

/** Copy the samples since the start (@p cum) and in the current interval (@p ivl), NIC_S_COUNT entries each. */
void nic_samples(const struct nic *nic, struct nic_sample *cum, struct nic_sample *ivl);

/** Copy the gauges. */
void nic_gauges(const struct nic *nic, struct nic_gauges *g);

/** Start a new reporting interval: clear the interval samples and interval gauges. */
void nic_interval_reset(struct nic *nic);

/* uet-monitor row kinds. */
enum nic_trace_dir { NIC_TR_TX = 0, NIC_TR_RETX, NIC_TR_RX };

/**
 * One packet as uet-monitor logs it (spec/scala/uet-nic-records.md, uet-monitor). Data, ACKs and probes the NIC
 * sends are traced when they finish going out on the wire; NACKs it sends, and every packet it receives, when it
 * processes them. Fields that do not apply to the row's kind are zero / has_* false.
 */
struct nic_trace {
	emu_ps_t now;
	uint32_t fep_id;
	uint64_t packet_uid;
	uint32_t packet_size;      /* bytes on the wire, FCS included */
	uint32_t local_ip, remote_ip;
	uint16_t local_pdc, remote_pdc;
	uint8_t dir;               /* enum nic_trace_dir */
	uint8_t kind;              /* enum wire_kind: DATA (also trimmed data received), ACK, NACK, CP */
	uint8_t trimmed;
	uint8_t dscp_role;         /* enum wire_role, or WIRE_ROLE_COUNT for an unrecognized codepoint */
	uint64_t job_id;           /* the wqe id; 0 where none applies */
	uint32_t entropy;
	uint8_t has_rtt;
	emu_ps_t rtt;
	uint8_t nack_code;
	uint8_t ar, ecn_marked, m_flag;
	uint8_t has_sender_state;  /* the prefetch / fetched / in-flight / window columns apply */
	uint64_t nic_prefetched, pdc_prefetched, bytes_fetched, bytes_in_flight, cwnd;
	uint8_t has_penalty;
	uint8_t penalty;
	uint32_t psn;              /* data PSN; ACK: the PSN it acknowledges; NACK: the PSN it reports; probe: its tag */
	uint8_t has_ack;
	uint32_t cack_psn, sack_base;
	uint64_t sack_bitmap;      /* bit N: PSN sack_base + N acknowledged */
};

/* uet-events ev_type values (spec/scala/uet-nic-records.md). */
enum nic_ev_type {
	NIC_EV_PDC_CREATED = 0,
	NIC_EV_WQE_CREATED,
	NIC_EV_SEND_COMPLETE,
	NIC_EV_WQE_COMPLETE,
	NIC_EV_RECV_COMPLETE,
	NIC_EV_PDC_TERMINATED,
	NIC_EV_COUNT
};

/** Name of an ev_type, as the record writes it. */
const char *nic_ev_name(int ev);

/** One uet-events row. */
struct nic_event {
	emu_ps_t now;
	uint32_t fep_id;
	uint32_t local_ip;
	uint16_t local_pdc;
	uint32_t remote_ip;
	uint16_t remote_pdc;  /* 0 until the sender learns it */
	uint64_t wqe_id;      /* valid when has_wqe */
	uint64_t wqe_size;
	uint8_t has_wqe;
	uint8_t type;         /* enum nic_ev_type */
};

/** What the run learns from a NIC. All optional; @p arg is hooks.arg. */
struct nic_hooks {
	void *arg;
	/** A uet-events row (called only with EnableEventLogging). */
	void (*event)(void *arg, const struct nic_event *ev);
	/** The sender saw every byte of message @p cookie acknowledged. */
	void (*msg_done)(void *arg, uint64_t cookie, emu_ps_t now);
	/** Every byte of message @p cookie has been sent: its last packet finished serializing for the first time
	 *  (before msg_done; once per message). Without it the transmit path tests nothing more. */
	void (*msg_sent)(void *arg, uint64_t cookie, emu_ps_t now);
	/** The receiver has all @p bytes of a message from @p src_ip with no gap; @p cookie is the sender's wqe id. */
	void (*msg_recv)(void *arg, uint32_t fep_id, uint32_t src_ip, uint64_t wqe_id, uint64_t bytes, emu_ps_t now);
	/** A connection-management message from @p src_ip reached this NIC's host (without this hook: a BAD_KIND drop). */
	void (*cm_recv)(void *arg, uint32_t fep_id, uint32_t src_ip, const struct wire_cm *cm, emu_ps_t now);
	/** A uet-monitor row candidate (called only when nic_env.trace is set); the writer applies the filters. */
	void (*trace)(void *arg, const struct nic_trace *tr);
};

/** Everything a NIC is made from. Copied by nic_create(); @p params and @p neigh must outlive the NIC. */
struct nic_env {
	struct net_part *np;
	const struct nic_params *params;
	uint32_t fep_id;        /* node id, also the RNG stream id */
	const char *name;       /* component name in records */
	uint32_t ip;
	uint8_t mac[6];
	/*
	 * has_gw: the NIC's link goes to a switch (a routed fabric), so every frame it sends is addressed to gw_mac,
	 * the MAC of that switch port; the neighbour table still decides which IPs are reachable. Without it frames go
	 * to the neighbour's own MAC (hosts back to back, or a real port).
	 */
	bool has_gw;
	uint8_t gw_mac[6];
	uint64_t seed;          /* RandomSeed */
	const struct port_neigh *neigh;
	uint32_t n_neigh;
	uint32_t max_pdcs;      /* PDCs open at once, sending and receiving together */
	uint32_t rcv_per_peer_max; /* receive PDCs one source IP may hold at once (0: max_pdcs / 4) */
	uint32_t max_wqes;      /* WQEs waiting on connection PDCs at once, NIC-wide (0: 16,384) */
	uint64_t doorbell_bytes; /* a doorbell of the application posting on connections, DoorbellPayloadSize + 28 B
				  * of UDP and IPv4 headers, on PCIe (0: the default 64 + 28 = 92 B) */
	bool trace;             /* call hooks.trace for every packet (the UET monitor or one of its triggers is on) */
	/*
	 * shell: another MPI rank runs this NIC (docs/parallel.md). A shell has its counters, name and link, so that
	 * the ranks' figures can be loaded into it for the summary, but no pools, PDC tables or closed-PDC table: it
	 * must never be posted to nor handed a packet.
	 */
	bool shell;
	struct nic_hooks hooks;
};

/** Create a NIC; NULL with errno ENOMEM or EINVAL (bad params). */
struct nic *nic_create(const struct nic_env *env);

/** Free the NIC and what it holds, packets included. Accepts NULL. */
void nic_destroy(struct nic *nic);

/** The device entry points, for net_endpoint.ops. */
extern const struct net_dev_ops nic_dev_ops;

struct port_nic_ops;
/** The UET NIC behind the host-NIC interface (port_nic.h). */
extern const struct port_nic_ops nic_port_ops;

/** Attach the link direction this NIC sends on (its port 0). Its rate is the link rate the NIC computes with. */
void nic_attach(struct nic *nic, struct net_dir *out);

/* The most packets one message may take: PSN arithmetic compares 32-bit sequence numbers modulo 2^32, so a
 * message spans at most half the space. nic_msg_bytes_max() turns it into bytes for an MSS. */
#define NIC_MSG_PKTS_MAX (1ULL << 31)

/** The largest message (bytes) a NIC with RdmaDataMSS @p mss can send: NIC_MSG_PKTS_MAX packets of @p mss. */
static inline uint64_t nic_msg_bytes_max(uint32_t mss)
{
	return NIC_MSG_PKTS_MAX * mss;
}

/**
 * The host rings the doorbell for a message of @p bytes to @p dst_ip at @p now: a new PDC is created and the
 * message queued on it; the transmit process starts 15 ns later. @p cookie comes back in msg_done.
 * Returns 0, or -ENOSPC when no PDC can be created (counted), -EHOSTUNREACH when @p dst_ip has no neighbour entry,
 * -EMSGSIZE when @p bytes is over nic_msg_bytes_max() (the config refuses such a message first).
 */
int nic_post(struct nic *nic, uint32_t dst_ip, uint64_t bytes, uint64_t cookie, emu_ps_t now);

/** nic_post(), also giving the sending PDC's id in @p pdc_id, which the workload needs to close the far end. */
int nic_post_pdc(struct nic *nic, uint32_t dst_ip, uint64_t bytes, uint64_t cookie, emu_ps_t now, uint16_t *pdc_id);

/**
 * Open a connection's long-lived sending PDC to @p dst_ip (the RDMA application's queue pair on a UET NIC): messages
 * posted on it with nic_post_conn() share its PSN space and its group, and it stays open when they complete.
 * Returns 0 with the id in @p pdc_id, -EHOSTUNREACH, or -ENOSPC (counted).
 */
int nic_conn_open(struct nic *nic, uint32_t dst_ip, uint16_t *pdc_id, emu_ps_t now);

/**
 * Ring the doorbell for a message of @p bytes on connection PDC @p pdc_id. The NIC sends one message of a
 * connection at a time: a message posted while another is being sent waits, in posting order, until the ones
 * ahead of it complete (seed 003, WQEs). msg_done gives @p cookie back on completion.
 * Returns 0, -ENOENT for no such connection, -ENOSPC when none of the nic_env.max_wqes entries is free (counted as
 * DROP_NO_WQE, not in wqes_created).
 */
int nic_post_conn(struct nic *nic, uint16_t pdc_id, uint64_t bytes, uint64_t cookie, emu_ps_t now);

/**
 * The host sends connection-management message @p cm to @p dst_ip (the RDMA application's connection setup,
 * seed 003): a 62 B frame to UDP port WIRE_UDP_PORT_CM in the control egress class, CONTROL codepoint, not
 * ECN-capable, entropy (UDP source port) 0xC000 | the low 14 bits of cm->local_id. No PCIe cost, no retry here:
 * the application retries. Like data, a message the host posts is never dropped at egress: while the control pool
 * has no room for it, it waits (cm_deferred), in posting order. Returns 0, -EHOSTUNREACH, or -ENOBUFS (no packet
 * descriptor; counted).
 */
int nic_cm_send(struct nic *nic, uint32_t dst_ip, const struct wire_cm *cm, emu_ps_t now);

/** Close connection PDC @p pdc_id (PDC_TERMINATED); messages still waiting are dropped. Returns 0 or -ENOENT. */
int nic_conn_close(struct nic *nic, uint16_t pdc_id, emu_ps_t now);

/**
 * The workload closes the receiving end of a message's PDC (PDC_TERMINATED): the PDC from @p peer_ip whose
 * sending end is @p peer_pdc. Returns 0, or -ENOENT when no such PDC is open.
 */
int nic_close_rcv(struct nic *nic, uint32_t peer_ip, uint16_t peer_pdc, emu_ps_t now);


/** Copy the stats of the receive (@p tx false) or transmit pool of class @p tc (zeros past the classes). */
void nic_pool_stats(const struct nic *nic, bool tx, uint32_t tc, struct port_pool_stats *out);

/** Start a new net-buff-stats interval: the interval maximum occupancy restarts from the occupancy now. */
void nic_pool_interval_reset(struct nic *nic);

/** The PCIe link at each end (pcie-stats): index 0 the NIC side (NIC-to-host), 1 the host side (host-to-NIC). */
/** Copy the PCIe counters, with link time still ahead of @p now not counted as busy yet. */
void nic_pcie_stats(const struct nic *nic, struct port_pcie_stats *out, emu_ps_t now);

/** Copy the PFC counters, with paused time counted up to @p now. */
void nic_pfc_stats(const struct nic *nic, struct port_pfc_stats *out, emu_ps_t now);

/** Start a new ecn-pfc-stats interval at @p now: the longest pause restarts from the pause holding now, if any. */
void nic_pfc_interval_reset(struct nic *nic, emu_ps_t now);


/** The rate of the NIC's link, bit/s: the lower of its DataRate and the rate of the link it is attached to. */
uint64_t nic_link_bps(const struct nic *nic);

/** The NIC's FEP id (node id) and component name. */
uint32_t nic_fep_id(const struct nic *nic);
const char *nic_name(const struct nic *nic);

/** The NIC's counters, NIC_C_COUNT entries. */
const uint64_t *nic_counters(const struct nic *nic);

/*
 * What the NIC did with the UET 1.0 forms other than the Scala pages' own (docs/wire.md, "What the NIC model does
 * with them"): each answer it sent and each frame it ignored as UET 1.0 says, by reason. Kept apart from
 * NIC_COUNTERS, whose every entry summary.json prints per host: these are printed only when non-zero
 * (hosts[].uet_rx.pds_events), so a run of uetemu's own frames reports exactly what it did before.
 */
#define NIC_UET_EVENTS(X) \
	X(NONE, "none", "none") \
	X(REQ_RCVD, "req_rcvd", "RUD / ROD requests of a form other than uetemu's own received (trims included)") \
	X(REQ_DELIVERED, "req_delivered", "of them new PSNs whose payload was delivered to the host") \
	X(REQ_NO_DELIVERY, "req_no_delivery", \
	  "requests acknowledged with nothing delivered: an SES operation the model does not run, or NO_OP") \
	X(ACK_SENT, "ack_sent", "ACKs sent for them (AR, SYN, ECN-CE, or ACK_Gen_Trigger bytes coalesced)") \
	X(ACK_SES_RSP, "ack_ses_rsp", "ACKs sent with an SES response (nic_params.ack_ses_response)") \
	X(ACK_COALESCED, "ack_coalesced", "requests accepted without an ACK of their own (coalesced into a later one)") \
	X(NACK_INV_DPDCID, "nack_inv_dpdcid", "NACK INV_DPDCID sent: a request without SYN or a control packet for no PDC") \
	X(NACK_NO_PDC_AVAIL, "nack_no_pdc_avail", "NACK NO_PDC_AVAIL sent: a SYN for which no PDC could be made") \
	X(NACK_MODE_MISMATCH, "nack_pdc_mode_mismatch", "NACK PDC_MODE_MISMATCH sent: a RUD request on a ROD PDC or back") \
	X(NACK_PSN_OOR, "nack_psn_oor_window", "NACK PSN_OOR_WINDOW sent: a PSN past the receive window") \
	X(NACK_ROD_OOO, "nack_rod_ooo", "NACK ROD_OOO sent: a ROD request that is not the next expected PSN") \
	X(NACK_NO_PKT_BUFFER, "nack_no_pkt_buffer", "NACK NO_PKT_BUFFER sent: the receive pool of the class full") \
	X(NACK_NO_BITMAP, "nack_no_bitmap", "NACK NO_BITMAP sent: no room left to track an out-of-order PSN") \
	X(NACK_TRIMMED, "nack_trimmed", "NACK UET_TRIMMED / UET_TRIMMED_LASTHOP sent for a trimmed RUD, ROD or RUDI") \
	X(NACK_UNEXP_EVENT, "nack_unexp_event", "NACK UNEXP_EVENT sent: a CREDIT, CREDIT_REQ or NEGOTIATION CP") \
	X(RUDI_RESP_SENT, "rudi_resp_sent", "RUDI requests answered with a RUDI_RESP (and an SES response)") \
	X(UUD_DELIVERED, "uud_delivered", "UUD requests delivered (never answered)") \
	X(UUD_TRIMMED, "uud_trimmed", "trimmed UUD requests: lost, as UUD is unreliable (no NACK)") \
	X(RUDI_RESP_UNMATCHED, "rudi_resp_unmatched", "RUDI responses ignored: this NIC sends no RUDI requests") \
	X(RUDI_NACK_UNMATCHED, "rudi_nack_unmatched", "NACKs with NT (RUDI) ignored: this NIC sends no RUDI requests") \
	X(ACK_FORM_RCVD, "ack_form_rcvd", "ACK, ACK_CC (credit) and ACK_CCX received and matched as ACKs") \
	X(NACK_FORM_RCVD, "nack_form_rcvd", "NACK_CCX and NACKs with an SES header received and matched as NACKs") \
	X(SES_RSP_ERROR, "ses_rsp_error", "SES responses on ACKs and NACKs whose return code is neither NULL nor RC_OK") \
	X(NACK_RTX, "nack_rtx", "NACKs of a retransmit code (not a trim) that queued their PSN again") \
	X(NACK_GO_BACK_N, "nack_go_back_n", "ROD_OOO NACKs: the PSN and every later one outstanding queued again") \
	X(NACK_PDC_RESTART, "nack_pdc_restart", \
	  "PDC_FATAL or NEW_START_PSN NACKs: the PDC starts again with SYN, everything outstanding resent") \
	X(NACK_CODE_IGNORED, "nack_code_ignored", "NACKs of a reserved or experimental code: ignored") \
	X(CP_NOOP, "cp_noop", "NOOP control packets: nothing to do") \
	X(CP_ACK_REQ, "cp_ack_req", "ACK_REQ answered with an ACK") \
	X(CP_CLEAR, "cp_clear", "CLEAR answered with an ACK") \
	X(CP_CLEAR_REQ, "cp_clear_req", "CLEAR_REQ answered with a CLEAR") \
	X(CP_CLOSE, "cp_close", "CLOSE: the receive PDC closed, answered with an ACK") \
	X(CP_CLOSE_REQ, "cp_close_req", "CLOSE sent for a CLOSE_REQ: at once when idle, else once its message completed") \
	X(CP_CLOSE_REQ_BUSY, "cp_close_req_busy", "CLOSE_REQ ignored: a connection's PDC closes only when its owner says")

#define NIC_UET_EVENT_ENUM(n, k, s) NIC_UE_##n,
enum nic_uet_event { NIC_UET_EVENTS(NIC_UET_EVENT_ENUM) NIC_UE_COUNT };
#undef NIC_UET_EVENT_ENUM

/** Key (snake_case, summary.json) of UET event @p e; "unknown" outside the enum. */
const char *nic_uet_event_name(int e);

/** What UET event @p e counts, in words; "unknown" outside the enum. */
const char *nic_uet_event_desc(int e);

/**
 * UET frames the NIC received on its port, by class (wire.h WIRE_PDS_CLASSES, WIRE_SES_CLASSES): every one, the
 * well-formed ones the model cannot act on (TSS: counted, then freed), and what it did with the UET 1.0 forms other
 * than its own (NIC_UET_EVENTS).
 */
struct nic_uet_rx {
	uint64_t pds[WIRE_PC_COUNT];      /* every UET frame, by PDS type (a control packet by its ctl_type) */
	uint64_t ses[WIRE_SC_COUNT];      /* by SES header form; an extension header counts besides its header */
	uint64_t not_used[WIRE_PC_COUNT]; /* valid, not used by this model, by PDS class */
	uint64_t ev[NIC_UE_COUNT];        /* what the NIC did with the forms other than its own (NIC_UET_EVENTS) */
};

/** The NIC's UET receive counts by class. */
const struct nic_uet_rx *nic_uet_rx(const struct nic *nic);

/** Take another process's counts of this NIC (the MPI rank that ran it): its counters and UET receive counts. */
void nic_counters_load(struct nic *nic, const uint64_t *c, const struct nic_uet_rx *u);

/** The transmit process start delay after a doorbell: 15 ns (spec seed 000, Messages and PDCs). */
#define NIC_DOORBELL_DELAY_PS (15 * EMU_PS_PER_NS)
/* The doorbell message: DoorbellPayloadSize (64 B by default) + 28 B of UDP and IPv4 headers, 92 B over PCIe (seed
 * 003, WQEs: "doorbell 64 + 28 = 92 bytes over PCIe"), in transfers of at most 512 B with 34 B of overhead each. */
#define NIC_DOORBELL_PAYLOAD 64
#define NIC_DOORBELL_HDR 28

/**
 * The maximum congestion window in bytes (counted at nominal size, payload + 88) for @p link_bps: 1.5 x BDP with
 * BDP = link rate x InitialBaseRTT, or MaxCongestionWindow nominal packets with OverrideUetSpecMaxCWind.
 * 450,000 B at the defaults (uet-nic-configuration.md, InitialBaseRTT).
 */
uint64_t nic_max_cwnd(const struct nic_params *p, uint64_t link_bps);

/**
 * The congestion-control rules that stop a run, which need the link rate (uet-nic-configuration.md, "The NIC
 * checks its congestion control settings when it opens its first connection"): target queue delay 0, maximum
 * window below one nominal packet or above 4,294,967,295 B, ReferenceNetworkRTT 0, ReferenceNetworkLinkSpeed
 * below 1 Gb/s, reference BDP above 4,294,967,295 B, link rate below 1 Gb/s.
 * Returns 0, or -EINVAL with "<what>; <suggestion>" in @p err.
 */
int nic_params_check_link(const struct nic_params *p, uint64_t link_bps, char *err, size_t errlen);

/** Size in bytes of the receive (@p tx false) or transmit pool of class @p tc. */
uint64_t nic_pool_size(const struct nic *nic, bool tx, uint32_t tc);


#endif /* NIC_H */
