/* The dataplane's control side: EAL bring-up and teardown, the mbuf pool, probing and starting ports. */
/* rte_pktmbuf_pool_create_extbuf() (the zero-copy payload pool) is experimental in DPDK 22.11, as it has been
 * since 20.02: in this file only. */
#define ALLOW_EXPERIMENTAL_API
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_dev.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_memzone.h>

#include "dp.h"
#include "dp_pvt.h"

void dp_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL || errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* The EAL command line (dp_eal_args(): the defaults with the per-pid prefix, merged with the user's args). */
static int dp_eal_argv(struct dp_ctx *dp, int eal_argc, char **eal_argv, char *err, size_t errlen)
{
	/* A per-pid prefix so two runs on one machine do not share (or fight over) EAL runtime files. */
	snprintf(dp->prefix, sizeof(dp->prefix), "uetemu-%ld", (long)getpid());
	if (dp_eal_args(&dp->eal, eal_argc, eal_argv, dp->prefix) < 0) {
		dp_err(err, errlen, "EAL: %d arguments given, too many with uetemu's defaults (at most %d in all)",
		       eal_argc, DP_EAL_ARGS_MAX);
		return -E2BIG;
	}
	memcpy(dp->eal_argv, dp->eal.argv, sizeof(dp->eal_argv));
	return dp->eal.argc;
}

/*
 * The mbuf pool. Size formula: every port can hold a full RX ring, a full TX ring and one staged burst at once,
 * plus what the per-lcore caches can hide (the mempool lets a cache grow to 1.5 x its size):
 *     n = DP_MAX_PORTS x (DP_RX_DESC + DP_TX_DESC + DP_BURST) + lcores x 1.5 x DP_POOL_CACHE
 * rounded up to 2^k - 1, the size the mempool's ring stores without waste. With 16 ports and 2 lcores that is
 * 16 x 1056 + 768 = 17,664 -> 32,767 mbufs of about 4.7 KB (DP_MBUF_ROOM + headroom + header): ~155 MB, which is
 * why the EAL needs -m 256 or more.
 */
static int dp_pool_create(struct dp_ctx *dp, char *err, size_t errlen)
{
	uint32_t n = DP_MAX_PORTS * (DP_RX_DESC + DP_TX_DESC + DP_BURST) + rte_lcore_count() * DP_POOL_CACHE * 3 / 2;

	n = rte_align32pow2(n + 1) - 1;
	dp->pool = rte_pktmbuf_pool_create("dp_mbuf", n, DP_POOL_CACHE, 0, RTE_PKTMBUF_HEADROOM + DP_MBUF_ROOM,
					   SOCKET_ID_ANY);
	if (dp->pool == NULL) {
		int e = rte_errno;
		dp_err(err, errlen, "mbuf pool of %u x %u B: %s (give the EAL more memory with -m)", n,
		       RTE_PKTMBUF_HEADROOM + DP_MBUF_ROOM, rte_strerror(e));
		return e > 0 ? -e : -ENOMEM;
	}
	return 0;
}

/*
 * Remove the EAL runtime directory (/var/run/dpdk/<prefix>: config, fbarray_*, the telemetry socket, a few MB of
 * tmpfs) that rte_eal_cleanup() leaves behind. Only for the default per-pid prefix, which no other process can be
 * using, and only a directory of that name (the EAL may not have got as far as creating it).
 */
static void dp_runtime_dir_remove(const char *path, const char *prefix)
{
	const char *base = strrchr(path, '/');
	char file[PATH_MAX];
	struct dirent *e;
	DIR *d;

	if (base == NULL || strcmp(base + 1, prefix) != 0)
		return;
	d = opendir(path);
	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (snprintf(file, sizeof(file), "%s/%s", path, e->d_name) < (int)sizeof(file))
			(void)unlink(file);
	}
	closedir(d);
	(void)rmdir(path);
}

/* Clean up the EAL, then (default prefix only) the runtime directory it leaves. */
static void dp_eal_fini(struct dp_ctx *dp)
{
	char runtime_dir[PATH_MAX] = "";

	if (dp->eal.own_prefix)
		snprintf(runtime_dir, sizeof(runtime_dir), "%s", rte_eal_get_runtime_dir());
	rte_eal_cleanup();
	if (runtime_dir[0] != '\0')
		dp_runtime_dir_remove(runtime_dir, dp->prefix);
}

/*
 * The pools of zero-copy TX. Size formula: every port can hold a full TX ring and one staged burst of two-mbuf
 * frames (headers, payload) at once, and its stash of a burst's worth of mbufs, plus what the per-lcore caches can
 * hide:
 *     n = DP_MAX_PORTS x (DP_TX_DESC + 2 x DP_BURST) + lcores x 1.5 x DP_POOL_CACHE
 * mbufs in each of the two pools (headers, payloads), rounded up to 2^k - 1 and capped at DP_HDR_POOL_MAX. With 16
 * ports and 2 lcores: 16 x 576 + 768 = 9,984 -> 16,383 header mbufs of DP_HDR_ROOM + headroom + header = 384 B
 * (about 6 MB) and as many payload mbufs of a header and its shared info (about 3 MB): those have no buffer of
 * their own. Each is pinned to the pattern (rte_pktmbuf_pool_create_extbuf(), one memory descriptor per mbuf, all
 * naming the pattern's memzone), so a payload mbuf is taken and given back as a plain one: no attach, no
 * reference count on the pattern to update with an atomic at every free, no buffer fields rewritten at detach.
 */
static int dp_zc_pools_create(struct dp_ctx *dp, const struct rte_memzone *mz, size_t len, char *err,
			      size_t errlen)
{
	uint32_t n = DP_MAX_PORTS * (DP_TX_DESC + 2 * DP_BURST) + rte_lcore_count() * DP_POOL_CACHE * 3 / 2;
	const uint16_t room = (uint16_t)(RTE_PKTMBUF_HEADROOM + len);
	struct rte_pktmbuf_extmem *ext;
	int e;

	n = RTE_MIN(rte_align32pow2(n + 1) - 1, DP_HDR_POOL_MAX);
	dp->hdr_pool = rte_pktmbuf_pool_create("dp_hdr", n, DP_POOL_CACHE, 0, RTE_PKTMBUF_HEADROOM + DP_HDR_ROOM,
					       SOCKET_ID_ANY);
	if (dp->hdr_pool == NULL) {
		e = rte_errno;
		dp_err(err, errlen, "header mbuf pool of %u x %u B: %s (give the EAL more memory with -m)", n,
		       RTE_PKTMBUF_HEADROOM + DP_HDR_ROOM, rte_strerror(e));
		return e > 0 ? -e : -ENOMEM;
	}
	/* one descriptor per mbuf, each the pattern's buffer: its headroom, then the pattern (dp->pat) */
	ext = calloc(n, sizeof(*ext));
	if (ext == NULL) {
		dp_err(err, errlen, "payload mbuf pool of %u: out of memory", n);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < n; i++)
		ext[i] = (struct rte_pktmbuf_extmem){ .buf_ptr = mz->addr, .buf_iova = mz->iova, .buf_len = room,
						      .elt_size = room };
	dp->pay_pool = rte_pktmbuf_pool_create_extbuf("dp_pay", n, DP_POOL_CACHE, 0, room, SOCKET_ID_ANY, ext, n);
	e = rte_errno;
	free(ext);
	if (dp->pay_pool == NULL) {
		dp_err(err, errlen, "payload mbuf pool of %u: %s (give the EAL more memory with -m)", n, rte_strerror(e));
		rte_mempool_free(dp->hdr_pool);
		dp->hdr_pool = NULL;
		return e > 0 ? -e : -ENOMEM;
	}
	return 0;
}

int dp_tx_pattern_set(struct dp_ctx *dp, const uint8_t *pattern, size_t len, char *err, size_t errlen)
{
	const struct rte_memzone *mz;
	int rc;

	if (dp->pat != NULL || dp->n_ports > 0) {
		dp_err(err, errlen, "payload pattern: set once, before the first port");
		return -EBUSY;
	}
	if (len == 0 || len > DP_FRAME_MAX) {
		dp_err(err, errlen, "payload pattern of %zu B: 1 to %d B", len, DP_FRAME_MAX);
		return -EINVAL;
	}
	/* IOVA-contiguous so a NIC can DMA any slice of it; --no-huge memory may not offer that, and the software
	 * PMDs read it by virtual address anyway. The headroom in front is the payload mbufs' (each starts its data
	 * RTE_PKTMBUF_HEADROOM into its buffer, as every mbuf does): there the pattern starts. */
	mz = rte_memzone_reserve_aligned("dp_pattern", RTE_PKTMBUF_HEADROOM + len, SOCKET_ID_ANY,
					 RTE_MEMZONE_IOVA_CONTIG, RTE_CACHE_LINE_SIZE);
	if (mz == NULL)
		mz = rte_memzone_reserve_aligned("dp_pattern", RTE_PKTMBUF_HEADROOM + len, SOCKET_ID_ANY, 0,
						 RTE_CACHE_LINE_SIZE);
	if (mz == NULL) {
		rc = rte_errno > 0 ? rte_errno : ENOMEM;
		dp_err(err, errlen, "payload pattern of %zu B: %s", len, rte_strerror(rc));
		return -rc;
	}
	rc = dp_zc_pools_create(dp, mz, len, err, errlen);
	if (rc < 0) {
		rte_memzone_free(mz);
		return rc;
	}
	memcpy((uint8_t *)mz->addr + RTE_PKTMBUF_HEADROOM, pattern, len);
	dp->pat_mz = mz;
	dp->pat = (const uint8_t *)mz->addr + RTE_PKTMBUF_HEADROOM;
	dp->pat_len = (uint16_t)len;
	return 0;
}

struct dp_ctx *dp_create(int eal_argc, char **eal_argv, char *err, size_t errlen)
{
	struct dp_ctx *dp;
	int argc, rc;

	dp = aligned_alloc(RTE_CACHE_LINE_SIZE, RTE_ALIGN_CEIL(sizeof(*dp), RTE_CACHE_LINE_SIZE));
	if (dp == NULL) {
		dp_err(err, errlen, "dataplane context: %s", strerror(ENOMEM));
		errno = ENOMEM;
		return NULL;
	}
	memset(dp, 0, sizeof(*dp));
	argc = dp_eal_argv(dp, eal_argc, eal_argv, err, errlen);
	if (argc < 0) {
		rc = -argc;
		goto fail_free;
	}
	if (rte_eal_init(argc, dp->eal_argv) < 0) {
		rc = rte_errno > 0 ? rte_errno : EINVAL;
		dp_err(err, errlen, "rte_eal_init: %s (check the EAL args; the EAL can start once per process)",
		       rte_strerror(rc));
		/* A failed start may leave our runtime directory; EALREADY means it belongs to the EAL that runs. */
		if (rc != EALREADY && dp->eal.own_prefix)
			dp_runtime_dir_remove(rte_eal_get_runtime_dir(), dp->prefix);
		goto fail_free;
	}
	dp->eal_up = true;
	rc = dp_pool_create(dp, err, errlen);
	if (rc < 0) {
		rc = -rc;
		goto fail_eal;
	}
	return dp;

fail_eal:
	dp_eal_fini(dp);
fail_free:
	free(dp);
	errno = rc;
	return NULL;
}

/* Stop and close one port; remove its device if we were the ones who probed it. */
static void dp_port_release(struct dp_port *p)
{
	if (p->n_stash > 0)
		rte_pktmbuf_free_bulk(p->stash, p->n_stash);
	if (p->n_pstash > 0)
		rte_pktmbuf_free_bulk(p->pstash, p->n_pstash);
	p->n_stash = p->n_pstash = 0;
	if (p->n_rx_held > 0)
		rte_pktmbuf_free_bulk(p->rx_held, p->n_rx_held);
	p->n_rx_held = 0;
	free(p->rx_flat);
	p->rx_flat = NULL;
	dp_xdp_release(p);
	(void)rte_eth_dev_stop(p->port_id);
	(void)rte_eth_dev_close(p->port_id);
	if (p->probed && p->dev != NULL)
		(void)rte_dev_remove(p->dev);
	rte_mempool_free(p->own_pool); /* after the close: an AF_XDP socket's UMEM is this pool's memory */
	p->own_pool = NULL;
}

const struct dp_eal_args *dp_eal(const struct dp_ctx *dp)
{
	return &dp->eal;
}

void dp_destroy(struct dp_ctx *dp)
{
	if (dp == NULL)
		return;
	dp_tel_unregister(dp); /* no telemetry handler reads the context from here on */
	dp_flush(dp); /* staged frames go out rather than leak from the pool */
	for (int i = dp->n_ports - 1; i >= 0; i--)
		dp_port_release(&dp->port[i]);
	rte_mempool_free(dp->pool);
	rte_mempool_free(dp->hdr_pool);
	rte_mempool_free(dp->pay_pool);
	rte_memzone_free(dp->pat_mz); /* after the ports: a stopped port has given back every payload mbuf */
	if (dp->eal_up)
		dp_eal_fini(dp);
	free(dp);
}

/*
 * Find the ethdev for @p devargs, probing the device unless the EAL already has (a --vdev or a scanned PCI NIC):
 * then the port is adopted as is. The ethdev name is the devargs up to the first comma.
 */
static int dp_port_find(struct dp_ctx *dp, struct dp_port *p, const char *devargs, char *err, size_t errlen)
{
	char name[RTE_ETH_NAME_MAX_LEN];
	size_t n = strcspn(devargs, ",");
	int rc;

	if (n == 0 || n >= sizeof(name)) {
		dp_err(err, errlen, "port \"%s\": bad device name", devargs);
		return -EINVAL;
	}
	memcpy(name, devargs, n);
	name[n] = '\0';
	p->probed = false;
	if (rte_eth_dev_get_port_by_name(name, &p->port_id) != 0) {
		rc = rte_dev_probe(devargs);
		if (rc < 0) {
			dp_err(err, errlen, "port \"%s\": probe failed: %s", devargs, rte_strerror(-rc));
			return rc;
		}
		p->probed = true;
		if (rte_eth_dev_get_port_by_name(name, &p->port_id) != 0) {
			dp_err(err, errlen, "port \"%s\": probed, but no ethdev is named \"%s\"", devargs, name);
			return -ENODEV; /* the device stays probed (it may be a non-ethdev) until rte_eal_cleanup() */
		}
	}
	for (int i = 0; i < dp->n_ports; i++) {
		if (dp->port[i].port_id == p->port_id) {
			dp_err(err, errlen, "port \"%s\": already added as port %d", devargs, i);
			return -EEXIST;
		}
	}
	return 0;
}

/*
 * The MTU to ask for: a DP_FRAME_MAX frame, cut to what the device takes and, unless it scatters RX into mbuf
 * chains, to one mbuf. Overhead is computed the way ethdev does (max_rx_pktlen - max_mtu when the PMD gives both).
 */
static uint16_t dp_port_mtu(const struct rte_eth_dev_info *di, bool scatter, uint32_t room)
{
	uint32_t overhead = RTE_ETHER_HDR_LEN + RTE_ETHER_CRC_LEN;
	uint32_t mtu = DP_FRAME_MAX - RTE_ETHER_HDR_LEN;

	if (di->max_mtu != UINT16_MAX && di->max_rx_pktlen > di->max_mtu)
		overhead = di->max_rx_pktlen - di->max_mtu;
	if (!scatter && mtu + overhead > room)
		mtu = room - overhead;
	if (mtu + overhead > di->max_rx_pktlen)
		mtu = di->max_rx_pktlen > overhead ? di->max_rx_pktlen - overhead : di->min_mtu;
	return (uint16_t)RTE_MAX(RTE_MIN(mtu, (uint32_t)di->max_mtu), (uint32_t)di->min_mtu);
}

/*
 * Does the PMD take mbuf chains on TX? Those that declare RTE_ETH_TX_OFFLOAD_MULTI_SEGS do (net_tap, net_ring,
 * net_af_packet, net_memif, most NICs); in DPDK 22.11 two declare no TX offload at all but handle chains: net_null
 * frees them whole, net_pcap reads them into its bounce buffer with rte_pktmbuf_read() before writing.
 */
static bool dp_pmd_takes_chains(const struct rte_eth_dev_info *di, const char **why)
{
	if (di->tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS) {
		*why = "its PMD takes mbuf chains (RTE_ETH_TX_OFFLOAD_MULTI_SEGS)";
		return true;
	}
	if (di->driver_name != NULL && strcmp(di->driver_name, "net_null") == 0) {
		*why = "net_null frees mbuf chains whole (it declares no TX offload in DPDK 22.11)";
		return true;
	}
	if (di->driver_name != NULL && strcmp(di->driver_name, "net_pcap") == 0) {
		*why = "net_pcap reads mbuf chains with rte_pktmbuf_read (it declares no TX offload in DPDK 22.11)";
		return true;
	}
	*why = "its PMD does not take mbuf chains (no RTE_ETH_TX_OFFLOAD_MULTI_SEGS)";
	return false;
}

/* Zero-copy or copy TX for a port being set up, and why; also whether frames above one mbuf can go out. */
static void dp_port_tx_choose(const struct dp_ctx *dp, struct dp_port *p, const struct rte_eth_dev_info *di,
			      unsigned flags)
{
	const char *why;

	p->multi_seg = dp_pmd_takes_chains(di, &why);
	p->zerocopy = p->multi_seg && dp->pat != NULL && !(flags & DP_PORT_TX_COPY) && p->own_pool == NULL;
	if (p->own_pool != NULL)
		why = "net_af_xdp: frames go out of its own page-sized pool (its UMEM), copied";
	if (p->multi_seg && (flags & DP_PORT_TX_COPY))
		why = "copy asked for (its PMD would take zero-copy frames)";
	else if (p->multi_seg && dp->pat == NULL)
		why = "no payload pattern set (dp_tx_pattern_set)";
	p->tx_why = why;
}

/*
 * A net_af_xdp port's own pool. The PMD (22.11, built with unaligned UMEM chunks) registers the pool's memory as
 * the socket's UMEM with every mempool object as one chunk, and the kernel refuses chunks over a page when the
 * memory is not hugepages (--no-huge): so the largest data room whose object (header, mbuf, headroom, data,
 * rounded as the mempool rounds it) fits a page. A received frame sits after the kernel's 256 B XDP headroom
 * inside that room, so the port takes frames of room - 256 B (3,456 B with 4 KB pages).
 */
static int dp_xdp_pool(struct dp_port *p, int socket, char *err, size_t errlen, const char *devargs)
{
	const uint32_t page = (uint32_t)getpagesize(), fixed = sizeof(struct rte_mbuf) + RTE_PKTMBUF_HEADROOM;
	struct rte_mempool_objsz sz;
	char name[RTE_MEMPOOL_NAMESIZE];
	uint32_t room = page;

	while (room > 1024 && rte_mempool_calc_obj_size(fixed + room, 0, &sz) > page)
		room -= RTE_CACHE_LINE_SIZE;
	snprintf(name, sizeof(name), "dp_xdp%u", p->port_id);
	p->own_pool = rte_pktmbuf_pool_create(name, DP_XDP_POOL_N, DP_POOL_CACHE, 0,
					      (uint16_t)(RTE_PKTMBUF_HEADROOM + room), socket);
	if (p->own_pool == NULL) {
		int e = rte_errno;
		dp_err(err, errlen, "port \"%s\": AF_XDP pool of %u x %u B: %s (give the EAL more memory with -m)",
		       devargs, DP_XDP_POOL_N, page, rte_strerror(e));
		return e > 0 ? -e : -ENOMEM;
	}
	p->pool = p->own_pool;
	p->room = room - DP_XDP_HEADROOM;
	return 0;
}

/* One RX queue and one TX queue of 512 descriptors (or what the device allows), offloads only for size and speed. */
static int dp_port_configure(struct dp_ctx *dp, struct dp_port *p, const char *devargs, unsigned flags, char *err,
			     size_t errlen)
{
	struct rte_eth_conf conf = { 0 };
	struct rte_eth_dev_info di;
	struct rte_eth_rxconf rxq;
	struct rte_eth_txconf txq;
	uint16_t nrxd = DP_RX_DESC, ntxd = DP_TX_DESC;
	const char *step;
	int rc, socket = rte_eth_dev_socket_id(p->port_id);

	step = "dev_info_get";
	rc = rte_eth_dev_info_get(p->port_id, &di);
	if (rc < 0)
		goto fail;
	p->dev = di.device;
	p->pool = dp->pool;
	p->room = DP_MBUF_ROOM;
	if (di.driver_name != NULL && strcmp(di.driver_name, "net_af_xdp") == 0) {
		rc = dp_xdp_pool(p, socket, err, errlen, devargs);
		if (rc < 0)
			return rc;
	}
	conf.rxmode.offloads = di.rx_offload_capa & RTE_ETH_RX_OFFLOAD_SCATTER;
	conf.rxmode.mtu = dp_port_mtu(&di, conf.rxmode.offloads != 0, p->room);
	dp_port_tx_choose(dp, p, &di, flags);
	conf.txmode.offloads = di.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
	/* Fast free puts mbufs back without detaching them: only for copied frames, whose mbufs all come from one
	 * pool with refcnt 1. A zero-copy frame's payload mbuf must be detached from the pattern when freed. */
	if (!p->zerocopy)
		conf.txmode.offloads |= di.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE;
	step = "configure";
	rc = rte_eth_dev_configure(p->port_id, 1, 1, &conf);
	if (rc < 0)
		goto fail;
	p->max_frame = conf.rxmode.mtu + RTE_ETHER_HDR_LEN + RTE_VLAN_HLEN;
	p->tx_mtu_refuses = di.driver_name != NULL && strcmp(di.driver_name, "net_tap") == 0;
	step = "adjust_nb_rx_tx_desc";
	rc = rte_eth_dev_adjust_nb_rx_tx_desc(p->port_id, &nrxd, &ntxd);
	if (rc < 0)
		goto fail;
	rxq = di.default_rxconf;
	rxq.offloads = conf.rxmode.offloads;
	step = "rx_queue_setup";
	rc = rte_eth_rx_queue_setup(p->port_id, 0, nrxd, (unsigned int)socket, &rxq, p->pool);
	if (rc < 0)
		goto fail;
	txq = di.default_txconf;
	txq.offloads = conf.txmode.offloads;
	step = "tx_queue_setup";
	rc = rte_eth_tx_queue_setup(p->port_id, 0, ntxd, (unsigned int)socket, &txq);
	if (rc < 0)
		goto fail;
	return 0;

fail:
	dp_err(err, errlen, "port \"%s\": %s: %s", devargs, step, rte_strerror(-rc));
	return rc;
}

/* The MTU of kernel interface @p ifindex in this network namespace (SIOCGIFMTU), 0 when it cannot be read. */
static uint32_t dp_kernel_mtu(unsigned ifindex)
{
	struct ifreq ifr;
	uint32_t mtu = 0;
	int fd;

	memset(&ifr, 0, sizeof(ifr));
	if (if_indextoname(ifindex, ifr.ifr_name) == NULL || (fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0)
		return 0;
	if (ioctl(fd, SIOCGIFMTU, &ifr) == 0 && ifr.ifr_mtu > 0)
		mtu = (uint32_t)ifr.ifr_mtu;
	close(fd);
	return mtu;
}

uint32_t dp_port_tx_mtu(const struct dp_ctx *dp, int port)
{
	return dp->port[port].tx_mtu;
}

bool dp_is_af_xdp(const char *devargs)
{
	return strncmp(devargs, "net_af_xdp", 10) == 0;
}

const char *dp_pmd_dir(void)
{
#ifdef RTE_EAL_PMD_PATH
	return RTE_EAL_PMD_PATH;
#else
	return "";
#endif
}

int dp_port_add(struct dp_ctx *dp, const char *devargs, unsigned flags, char *err, size_t errlen)
{
	const struct dp_port_opts o = { .flags = flags };

	return dp_port_add_opts(dp, devargs, &o, err, errlen);
}

int dp_port_add_opts(struct dp_ctx *dp, const char *devargs, const struct dp_port_opts *opts, char *err,
		     size_t errlen)
{
	bool steer = opts != NULL && opts->xdp_steer;
	unsigned flags = opts != NULL ? opts->flags : 0;
	struct rte_eth_dev_info di;
	struct rte_ether_addr mac;
	char probe[2 * PATH_MAX];
	struct dp_port *p;
	int rc;

	if (dp->n_ports >= DP_MAX_PORTS) {
		dp_err(err, errlen, "port \"%s\": at most %d ports", devargs, DP_MAX_PORTS);
		return -ENOSPC;
	}
	p = &dp->port[dp->n_ports];
	memset(p, 0, sizeof(*p));
	p->xdp_stats_fd = -1;
	p->dp = dp;
	p->idx = dp->n_ports;
	/* not zeroed: its pages are only touched when a chained frame arrives */
	p->rx_flat = malloc(DP_BURST * sizeof(*p->rx_flat));
	if (p->rx_flat == NULL) {
		dp_err(err, errlen, "port \"%s\": %s", devargs, strerror(ENOMEM));
		return -ENOMEM;
	}
	snprintf(probe, sizeof(probe), "%s", devargs);
	if (steer) {
		rc = dp_xdp_devargs(devargs, opts, probe, sizeof(probe), err, errlen);
		if (rc < 0)
			goto fail_free;
	}
	rc = dp_port_find(dp, p, probe, err, errlen);
	if (rc < 0)
		goto fail_free;
	rc = dp_port_configure(dp, p, devargs, flags, err, errlen);
	if (rc < 0)
		goto fail_release;
	if (steer) { /* the PMD loaded and attached the program at RX queue setup: fill its maps before the start */
		rc = rte_eth_dev_info_get(p->port_id, &di);
		if (rc == 0)
			rc = dp_xdp_steer(p, (int)di.if_index, opts, devargs, err, errlen);
		else
			dp_err(err, errlen, "port \"%s\": dev_info_get: %s", devargs, rte_strerror(-rc));
		if (rc < 0)
			goto fail_release;
	}
	/* Promiscuous so the emulated hosts' own MACs are received; some vdevs have no filter at all (-ENOTSUP). */
	rc = rte_eth_promiscuous_enable(p->port_id);
	if (rc < 0 && rc != -ENOTSUP) {
		dp_err(err, errlen, "port \"%s\": promiscuous_enable: %s", devargs, rte_strerror(-rc));
		goto fail_release;
	}
	rc = rte_eth_dev_start(p->port_id);
	if (rc < 0) {
		dp_err(err, errlen, "port \"%s\": start: %s", devargs, rte_strerror(-rc));
		goto fail_release;
	}
	rc = rte_eth_macaddr_get(p->port_id, &mac);
	if (rc == 0)
		memcpy(p->mac, mac.addr_bytes, sizeof(p->mac));
	p->tx_mtu = opts != NULL ? opts->mtu : 0;
	if (rte_eth_dev_info_get(p->port_id, &di) == 0 && di.if_index > 0) { /* started: the PMD has set its MTU */
		uint32_t k = dp_kernel_mtu(di.if_index);
		if (k > 0 && (p->tx_mtu == 0 || k < p->tx_mtu))
			p->tx_mtu = k;
	}
	return dp->n_ports++;

fail_release:
	if (p->probed)
		dp_port_release(p);
	else {
		dp_xdp_release(p);
		rte_mempool_free(p->own_pool);
		p->own_pool = NULL;
	}
fail_free:
	free(p->rx_flat);
	p->rx_flat = NULL;
	return rc;
}

enum dp_tx_mode dp_port_tx_mode(const struct dp_ctx *dp, int port, const char **why)
{
	if (why != NULL)
		*why = dp->port[port].tx_why;
	return dp->port[port].zerocopy ? DP_TXM_ZEROCOPY : DP_TXM_COPY;
}

void dp_port_mac(const struct dp_ctx *dp, int port, uint8_t mac[6])
{
	memcpy(mac, dp->port[port].mac, 6);
}

void dp_port_stats(const struct dp_ctx *dp, int port, struct dp_port_stats *out)
{
	const struct dp_port_stats *st = &dp->port[port].st;

	/* field by field, each one load: a telemetry handler calls this while the poll thread counts */
	out->rx_frames = DP_LOAD(st->rx_frames);
	out->rx_bytes = DP_LOAD(st->rx_bytes);
	const struct dp_port_stats *th = &dp->port[port].th_st; /* the TX thread's (dp_tx_thread_start()) */

	out->tx_frames = DP_LOAD(st->tx_frames) + DP_LOAD(th->tx_frames);
	out->tx_bytes = DP_LOAD(st->tx_bytes) + DP_LOAD(th->tx_bytes);
	out->tx_drop_full = DP_LOAD(st->tx_drop_full) + DP_LOAD(th->tx_drop_full);
	out->tx_drop_nombuf = DP_LOAD(st->tx_drop_nombuf);
	out->tx_drop_toobig = DP_LOAD(st->tx_drop_toobig) + DP_LOAD(th->tx_drop_toobig);
	out->rx_drop_toobig = DP_LOAD(st->rx_drop_toobig);
	out->tx_drop_mtu = DP_LOAD(st->tx_drop_mtu);
	out->rx_kept = DP_LOAD(st->rx_kept);
}

uint64_t dp_tsc(void)
{
	return rte_rdtsc();
}

uint64_t dp_tsc_hz(void)
{
	return rte_get_tsc_hz();
}
