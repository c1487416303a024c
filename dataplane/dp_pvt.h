/* Internals of the dataplane shared by dp.c (EAL, pool, ports) and dp_mbuf.c (frames <-> mbufs); not installed. */
#ifndef DP_PVT_H
#define DP_PVT_H

#include <stdbool.h>
#include <stdint.h>

#include <pthread.h>

#include <rte_common.h>
#include <rte_mbuf.h>
#include <rte_memzone.h>
#include <rte_mempool.h>

#include "dp.h"

#define DP_RX_DESC 512   /* RX ring per port; adjusted to the device's limits */
#define DP_TX_DESC 512   /* TX ring per port; adjusted to the device's limits */
#define DP_POOL_CACHE 256 /* per-lcore mempool cache, in mbufs */
#define DP_MBUF_ROOM 4352 /* data bytes per mbuf after the headroom: a 4198 B frame (4096 B MSS) fits in one */
#define DP_TX_SEGS_MAX ((DP_FRAME_MAX + DP_MBUF_ROOM - 1) / DP_MBUF_ROOM) /* mbufs in the longest chain */
#define DP_HDR_ROOM 128   /* header bytes a zero-copy frame's first mbuf holds: a data frame's are 102 */
_Static_assert(DP_HDR_ROOM == DP_TX_HDR_ROOM, "dp_tx_hdr_reserve() hands out a header mbuf's whole room");
/* Mbufs of the header pool at most, and of the payload pool. */
#define DP_HDR_POOL_MAX 32767u

/** One port: its staged TX burst and its counters, written only by the lcore that polls it. */
struct dp_port {
	struct rte_mbuf *tx[DP_BURST]; /* staged frames, sent at DP_BURST or at dp_flush() */
	uint32_t n_tx;                 /* how many are staged */
	struct rte_mbuf *stash[DP_BURST]; /* zero-copy: header mbufs taken a burst's worth at a time */
	struct rte_mbuf *pstash[DP_BURST]; /* and payload mbufs (pinned to the pattern) */
	uint32_t n_stash, n_pstash;
	uint64_t tx_staged_bytes;      /* sum of their pkt_len, so the sent bytes are known without touching sent mbufs */
	struct dp_port_stats st;
	struct rte_ring *txr;          /* dp_tx_thread_start(): its bursts go here, the TX thread sends them; or NULL */
	struct dp_port_stats th_st;    /* ... and what the TX thread counts (sent, too big, full), in dp_port_stats() */
	struct rte_device *dev;        /* the bus device behind the port, for rte_dev_remove() */
	uint32_t max_frame;            /* MTU + Ethernet + VLAN header: longer frames a PMD may refuse (net_tap does) */
	bool tx_mtu_refuses;           /* its PMD stops a TX burst at a frame over max_frame (net_tap); others take
	                                * frames above the MTU they report (net_memif reports 1,500, carries 9,216) */
	uint32_t tx_mtu;               /* the IP MTU frames are held to (dp_port_opts.mtu, the kernel's); 0 none */
	uint16_t port_id;              /* ethdev port id */
	bool probed;                   /* we probed it (so we remove it); false when the EAL had already (--vdev, PCI scan) */
	bool multi_seg;                /* TX takes mbuf chains, so frames above DP_MBUF_ROOM can go out */
	bool zerocopy;                 /* dp_tx_hdr() attaches the payload from the pattern (enum dp_tx_mode) */
	const char *tx_why;            /* why the port sends as it does, for dp_port_tx_mode() */
	uint8_t mac[6];
	struct rte_mempool *pool;      /* where its RX and TX mbufs come from: the shared pool, or its own (net_af_xdp) */
	struct rte_mempool *own_pool;  /* its own pool, freed with the port; NULL when it uses the shared one */
	uint32_t room;                 /* data bytes one of its mbufs holds (DP_MBUF_ROOM in the shared pool) */
	int xdp_stats_fd;              /* the steering program's counters map, or -1 (dp_xdp.c) */
	struct dp_ctx *dp;              /* the context it belongs to, and its index there (dp_port_bind()) */
	int idx;
	struct rte_mbuf *rx_held[DP_BURST]; /* the last received burst, held while the models read its bytes */
	uint16_t n_rx_held;
	/* Received chained frames are copied here to be handed up whole, one buffer per frame of a burst; allocated
	 * with the port, only touched when one arrives. */
	uint8_t (*rx_flat)[DP_FRAME_MAX];
} __rte_cache_aligned;

/**
 * The whole dataplane: everything hangs off this. The one exception to "no globals" is dp_tel.c's pointer to the
 * context that answers telemetry (DPDK 22.11's telemetry callbacks take no argument).
 */
struct dp_ctx {
	struct dp_port port[DP_MAX_PORTS];
	struct rte_mempool *pool;     /* RX, and TX on the copy path: DP_MBUF_ROOM data bytes each */
	struct rte_mempool *hdr_pool; /* zero-copy TX: header mbufs */
	struct rte_mempool *pay_pool; /* zero-copy TX: payload mbufs, each pinned to the pattern (dp_zc_pools_create) */
	const struct rte_memzone *pat_mz; /* RTE_PKTMBUF_HEADROOM, then the payload pattern (read-only once set),
	                                   * IOVA-contiguous if possible */
	const uint8_t *pat;           /* the pattern: pat_mz's address + RTE_PKTMBUF_HEADROOM */
	uint16_t pat_len;
	int n_ports;
	bool eal_up;
	struct dp_eal_args eal; /* the EAL command line, as merged */
	char *eal_argv[DP_EAL_ARGS_MAX + 1]; /* a copy of eal.argv for rte_eal_init(), which permutes it */
	char prefix[48];        /* "uetemu-<pid>", the default --file-prefix */
	pthread_t tx_tid;       /* the TX thread (dp_tx_thread_start()), while tx_on */
	bool tx_on;
	int tx_stop;            /* the thread is told to send what is left and end (atomic) */
	struct dp_tel_cmd tel[DP_TEL_CMDS_MAX]; /* the telemetry commands it answers (dp_tel.c) */
	unsigned n_tel;
	void *tel_arg;
} __rte_cache_aligned;

/* net_af_xdp: the kernel takes a UMEM chunk of at most one page (with no hugepages), and the PMD makes every mbuf
 * of the pool a chunk, so such a port gets a pool of its own with page-sized mbufs (dp.c, dp_xdp_pool()). */
#define DP_XDP_POOL_N 8191       /* mbufs in a net_af_xdp port's pool (2^13 - 1): 32 MB with 4 KB objects */
#define DP_XDP_HEADROOM 256      /* XDP_PACKET_HEADROOM: the kernel's headroom inside a received UMEM chunk */

/** Write a one-line message into the caller's buffer (which may be NULL or empty). */
void dp_err(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/**
 * net_af_xdp steering (dp_xdp.c): the devargs to probe with, @p devargs plus ",xdp_prog=PATH" of the steering
 * object (from @p opts or found by ebpf_obj_find()), into @p out. Returns 0, or -errno with a message.
 */
int dp_xdp_devargs(const char *devargs, const struct dp_port_opts *opts, char *out, size_t outlen, char *err,
		   size_t errlen);

/**
 * Once the PMD has loaded and attached the steering program (at RX queue setup), fill its maps for @p opts: the
 * UET and connection-setup ports and the emulated hosts' addresses. Keeps the counters map's fd in the port.
 * Returns 0, or -errno with a message.
 */
int dp_xdp_steer(struct dp_port *p, int ifindex, const struct dp_port_opts *opts, const char *devargs, char *err,
		 size_t errlen);

/** Close what dp_xdp_steer() kept. */
void dp_xdp_release(struct dp_port *p);

#endif /* DP_PVT_H */
