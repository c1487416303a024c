/* The host-NIC interface: what the run, its reports and its workloads ask of a host's NIC, whichever model it is.
 * Each NIC model fills one const table (nic_port_ops, roce_port_ops); a host holds its NIC as a handle, the device
 * and its table, and callers go through the table without asking which model it is (as every DPDK driver fills the
 * same eth_dev_ops). The table holds what callers use, no more. Only where the model is chosen (the run's build)
 * names a model; a model's own records reach their model's type through its typed view (uet, roce), NULL on a
 * host of another model. */
#ifndef PORT_NIC_H
#define PORT_NIC_H

#include <stdbool.h>
#include <stdint.h>

#include "emu_time.h"
#include "net.h"
#include "port.h"
#include "port_pcie.h"
#include "port_pfcs.h"

struct wire_cm;
struct nic_uet_rx;
struct nic;
struct roce;

/** The figures every host NIC keeps, whatever its counters are named (summary.json, the telemetry's hosts). */
struct port_nic_stats {
	uint64_t tx_bytes;          /* bytes sent on the wire, FCS included */
	uint64_t rx_bytes;          /* bytes received from the wire, FCS included */
	uint64_t rx_payload_bytes;  /* new payload bytes delivered to the host */
	uint64_t drops;             /* packets the NIC dropped, every reason */
	uint64_t trims;             /* trimmed packets received */
	uint64_t nacks;             /* NACKs (NAKs) sent */
	uint64_t retransmits;       /* the model's retransmission count (packets, or episodes: its counter says) */
	uint64_t timeouts;          /* retransmission timer expiries */
	uint64_t pfc_pauses;        /* PFC pause frames sent */
};

/** What a NIC's rows of the per-NIC records carry that each model counts its own way (nd-stats, ecn-pfc-stats). */
struct port_nic_rec {
	uint64_t port_tx_frames, port_rx_frames; /* frames on the port, PFC frames included */
	uint64_t nd_tx_bytes, nd_rx_bytes;       /* nd-stats' byte columns, as the model's page counts them */
	uint64_t nd_tx_drops, nd_rx_drops;       /* nd-stats' drop columns */
	uint64_t ecn_ce;                         /* ecn-pfc-stats' ECN column of the data class */
};

/** A sending connection's figures now (the run's per-interval stats stream). */
struct port_nic_flow {
	uint64_t acked_bytes;       /* bytes of its current message acknowledged */
	uint64_t retransmits;       /* its retransmissions: packets since the PDC opened (UET), go-back-N rewinds of
	                             * the message under way (RoCE) */
	uint64_t cwnd;              /* the congestion window, bytes (0: the model keeps none) */
	uint64_t rate_bps;          /* the sending rate a rate-based model allows, bit/s (0: none) */
	emu_ps_t rtt;               /* the model's running RTT estimate, ps (0: none yet) */
};

/** The most counters one NIC model has (a caller's array by counter index holds this many). */
#define PORT_NIC_C_MAX 64

/**
 * The four identity entry points of a model whose typed functions are PREFIX_attach(struct T *, struct net_dir *),
 * PREFIX_name(const struct T *), PREFIX_fep_id(const struct T *) and PREFIX_line(const struct T *) (bit/s): defines
 * PREFIX_op_attach, PREFIX_op_name, PREFIX_op_fep_id and PREFIX_op_link_bps with the ops table's void signatures, so
 * each model states its four functions once and no model writes the casts by hand.
 */
#define PORT_NIC_IDENTITY_OPS(prefix, line) \
	static void prefix##_op_attach(void *dev, struct net_dir *out) \
	{ \
		prefix##_attach(dev, out); \
	} \
	static const char *prefix##_op_name(const void *dev) \
	{ \
		return prefix##_name(dev); \
	} \
	static uint32_t prefix##_op_fep_id(const void *dev) \
	{ \
		return prefix##_fep_id(dev); \
	} \
	static uint64_t prefix##_op_link_bps(const void *dev) \
	{ \
		return line(dev); \
	}

/** The ops table's identity entries defined by PORT_NIC_IDENTITY_OPS(prefix, ...). */
#define PORT_NIC_IDENTITY_INIT(prefix) \
	.attach = prefix##_op_attach, .name = prefix##_op_name, .fep_id = prefix##_op_fep_id, \
	.link_bps = prefix##_op_link_bps

/** A host NIC model's entry points. @p dev is port_nic.dev. Entries marked optional may be NULL. */
struct port_nic_ops {
	const char *label;   /* the model in messages: "Scala UET NIC", "Scala RoCE NIC" */
	const char *json_nic; /* a summary.json host's "nic"; NULL leaves it out (the default model, the UET NIC) */
	const char *component_type; /* the records' component type: "ScalaUETNic", "ScalaRoceNic" */
	const char *nd_component;   /* nd-stats' component name: "ScalaUETNicNetDevice", "ScalaRoceNicNetDevice" */
	bool single_lcore;   /* the model's hosts cannot be spread over lcores */
	const struct net_dev_ops *dev_ops; /* the device entry points (net_endpoint.ops) */

	/** Attach the link direction the NIC sends on. */
	void (*attach)(void *dev, struct net_dir *out);
	/** Component name in records; FEP id (node id); line rate in bit/s (after attach). */
	const char *(*name)(const void *dev);
	uint32_t (*fep_id)(const void *dev);
	uint64_t (*link_bps)(const void *dev);
	/** The longest retransmission timeout the model waits, ps (a run's no-progress watchdog). */
	emu_ps_t (*rto_max)(const void *dev);
	/** The shortest retransmission timeout the model arms, ps, and the key that sets it in *@p key (a real-time
	 *  run's timing verdict holds the loop's lateness against it). */
	emu_ps_t (*rto_min)(const void *dev, const char **key);

	/**
	 * The host posts a message of @p bytes to @p dst_ip at @p now on a connection of its own (a UET PDC, a RoCE
	 * queue pair); its id in @p conn (the receiving end's close names it, close_rcv). msg_done gives @p cookie
	 * back. Returns 0 or the model's negative errno (-ENOSPC, -EHOSTUNREACH, -EMSGSIZE).
	 */
	int (*post_msg)(void *dev, uint32_t dst_ip, uint64_t bytes, uint64_t cookie, emu_ps_t now, uint32_t *conn);
	/** Open a long-lived connection to @p dst_ip; its id in @p conn. Returns 0, -EHOSTUNREACH or -ENOSPC. */
	int (*conn_open)(void *dev, uint32_t dst_ip, uint32_t *conn, emu_ps_t now);
	/** Post a message (an RDMA WRITE) of @p bytes on connection @p conn. Returns 0, -ENOENT or -ENOSPC. */
	int (*conn_post)(void *dev, uint32_t conn, uint64_t bytes, uint64_t cookie, emu_ps_t now);
	/** Optional: close connection @p conn (NULL: the model's connections stay open). Returns 0 or -ENOENT. */
	int (*conn_close)(void *dev, uint32_t conn, emu_ps_t now);
	/** Optional: close the receiving end of a post_msg() connection @p peer_conn from @p peer_ip (NULL: the model
	 *  keeps its receiving ends). Returns 0 or -ENOENT. */
	int (*close_rcv)(void *dev, uint32_t peer_ip, uint32_t peer_conn, emu_ps_t now);
	/** Hold (@p on) or release the sending of connection @p conn (post_msg's, conn_open's) at @p now: the
	 *  run's control (uetemu ctl pause HOST MSG). Returns 0 or -ENOENT. */
	int (*conn_hold)(void *dev, uint32_t conn, bool on, emu_ps_t now);
	/** Set uetemu's egress shaper (port_shape.h) to @p bps (0: none) at @p now, its bucket the configured
	 *  EgressShaper.BurstSize (the run's control: uetemu ctl rate HOST RATE). */
	void (*rate_limit)(void *dev, uint64_t bps, emu_ps_t now);
	/** Send connection-management message @p cm to @p dst_ip. Returns 0, -EHOSTUNREACH or -ENOBUFS. */
	int (*cm_send)(void *dev, uint32_t dst_ip, const struct wire_cm *cm, emu_ps_t now);

	/** The counters: n_counters entries (at most PORT_NIC_C_MAX, entry 0 "none"), named and described. */
	uint32_t n_counters;
	const uint64_t *(*counters)(const void *dev);
	const char *(*counter_name)(int c);
	const char *(*counter_desc)(int c);
	/** The figures every NIC has, the pause time counted up to @p now. Reads counters with aligned 64-bit loads
	 *  only: a telemetry thread may call it while the run goes on. */
	void (*stats)(const void *dev, struct port_nic_stats *out, emu_ps_t now);
	/** Optional: add the NIC's drops to @p by_counter (n_counters entries, by counter index): summary.json's
	 *  drop_reasons (NULL: the model's drops are counted in stats.drops only). */
	void (*drops)(const void *dev, uint64_t *by_counter);
	/** Optional: connection @p conn (post_msg's) sending the message of @p cookie, now: 0, or -ENOENT when it no
	 *  longer carries it (a message's own connection still carries it in msg_done, its final figures). Plain loads
	 *  of the sender's state: call it where the NIC's lcore is not running, or from its own hooks. */
	int (*flow)(const void *dev, uint32_t conn, uint64_t cookie, struct port_nic_flow *out);
	/** New payload bytes delivered to the host. */
	uint64_t (*rx_payload)(const void *dev);
	/** Optional: the UET frames received by class (a model that takes UET frames). */
	const struct nic_uet_rx *(*uet_rx)(const void *dev);
	/** Optional: the counts another process keeps of this NIC (the MPI rank that ran it), n_saved words: save()
	 *  copies them out, load() takes them in. */
	uint32_t n_saved;
	void (*save)(const void *dev, uint64_t *out);
	void (*load)(void *dev, const uint64_t *in);

	/** The stats of the receive (@p tx false) or transmit pool of class @p tc (net-buff-stats). */
	void (*pool_stats)(const void *dev, bool tx, uint32_t tc, struct port_pool_stats *out);
	/** Start a new net-buff-stats interval. */
	void (*pool_interval_reset)(void *dev);
	/** Where the device keeps its PFC state machine (a struct port_pfcs) and its PCIe link (a struct
	 *  port_pcie_link), offsets in it: both models keep them as port/ objects, so one adapter reads either's
	 *  (port_nic_pfc_stats(), port_nic_pfc_interval_reset(), port_nic_pcie_stats()). */
	size_t pfcs_off, pcie_off;
	/** The figures of the NIC's record rows now (struct port_nic_rec). */
	void (*rec_row)(const void *dev, struct port_nic_rec *out);
	/** Start a new interval of the transport record's samples (uet-transport-stats, roce-transport-stats). */
	void (*interval_reset)(void *dev);
	/** Optional: the device as a UET NIC, for the UET NIC's own records (uet-transport-stats, pcie-stats,
	 *  uet-monitor, uet-events); NULL: the model has none of them. */
	struct nic *(*uet)(void *dev);
	/** Optional: the device as a RoCE NIC, for its own records (roce-transport-stats); NULL: none. */
	struct roce *(*roce)(void *dev);

	/** Free the NIC. Accepts NULL. */
	void (*destroy)(void *dev);
};

/** A host's NIC: the device and its model's table. */
struct port_nic {
	void *dev;
	const struct port_nic_ops *ops;
};

/** Host @p h's PFC per class (ecn-pfc-stats), the pause time counted up to @p now. */
static inline void port_nic_pfc_stats(const struct port_nic *h, struct port_pfc_stats *out, emu_ps_t now)
{
	port_pfcs_stats((const struct port_pfcs *)((const char *)h->dev + h->ops->pfcs_off), out, now);
}

/** Start a new ecn-pfc-stats interval of host @p h at @p now. */
static inline void port_nic_pfc_interval_reset(const struct port_nic *h, emu_ps_t now)
{
	port_pfcs_interval_reset((struct port_pfcs *)((char *)h->dev + h->ops->pfcs_off), now);
}

/** Hold (@p on) or release host @p h's sending at @p now: every class of its port (port_pfcs_hold()). */
static inline void port_nic_hold(const struct port_nic *h, bool on, emu_ps_t now)
{
	port_pfcs_hold((struct port_pfcs *)((char *)h->dev + h->ops->pfcs_off), on, now);
}

/** Whether host @p h's sending is held. */
static inline bool port_nic_held(const struct port_nic *h)
{
	return ((const struct port_pfcs *)((const char *)h->dev + h->ops->pfcs_off))->held;
}

/** Host @p h's PCIe link counters (pcie-stats), link time still ahead of @p now not counted. */
static inline void port_nic_pcie_stats(const struct port_nic *h, struct port_pcie_stats *out, emu_ps_t now)
{
	port_pcie_link_stats((const struct port_pcie_link *)((const char *)h->dev + h->ops->pcie_off), out, now);
}

/** Host @p h's NIC as a UET NIC (port_nic_ops.uet), or NULL when its model is another. */
static inline struct nic *port_nic_uet(const struct port_nic *h)
{
	return h->ops != NULL && h->ops->uet != NULL ? h->ops->uet(h->dev) : NULL;
}

/** Host @p h's NIC as a RoCE NIC (port_nic_ops.roce), or NULL when its model is another. */
static inline struct roce *port_nic_roce(const struct port_nic *h)
{
	return h->ops != NULL && h->ops->roce != NULL ? h->ops->roce(h->dev) : NULL;
}

#endif /* PORT_NIC_H */
