/* bpf/: uetemu's kernel-side programs and what user space shares with them (prefix ebpf_).
 *
 *   ebpf_ecn.bpf.c          tc (clsact egress) CE marker: a virtual queue drained at a configured rate, RED band
 *   ebpf_trim.bpf.c         tc (clsact egress) trimmer: the same virtual queue; above a threshold UET data packets
 *                           are cut to MIN_TRIM_SIZE and re-marked DSCP_TRIMMED (a trimming switch, spec 1.6)
 *   ebpf_xdp_steer.bpf.c    XDP steering for net_af_xdp ports: UET, ARP and ICMP of emulated hosts to the
 *                           AF_XDP socket, every other frame to the kernel
 *   uetemu_ecn.c            the CE marker's loader and reader, `uetemu-ecn attach|detach|stats IFACE`
 *   uetemu_trim.c           the trimmer's, `uetemu-trim attach|detach|stats IFACE`
 *   ebpf_util.c             parsing of rates and sizes for the loader (unit-tested, no libbpf)
 *   ebpf_tc.c, ebpf_tc.h    the loaders' shared tc attach, re-configure, detach and map reads (libbpf)
 *
 * This header is the one public header of the module. It is included both by the BPF programs (clang -target bpf)
 * and by host C (the loader, dataplane/dp_xdp.c): it holds only the map names, the layouts of the map values and a
 * few constants, with kernel UAPI integer types. The layouts are part of the contract between a program built now
 * and a reader built now; a program and a reader from different builds of uetemu must not be mixed.
 */
#ifndef EBPF_H
#define EBPF_H

#include <linux/bpf.h> /* struct bpf_spin_lock */
#include <linux/types.h>

/* ---- The CE marker (ebpf_ecn.bpf.c): one program instance per interface, so one state per map. ---- */

/** Map names (array maps of one entry, key 0). The loader finds them through the tc filter's program id. */
#define EBPF_ECN_CFG_MAP "ecn_cfg"
#define EBPF_ECN_STATE_MAP "ecn_state"
#define EBPF_ECN_PROG "uetemu_ecn" /* the program's (function's) name */

/** tc filter handle and priority the loader attaches with on clsact egress (0xece = "ECE"). */
#define EBPF_ECN_TC_HANDLE 0xece
#define EBPF_ECN_TC_PRIO 0xece

#define EBPF_PPM 1000000u       /* probabilities are parts per million */
#define EBPF_ECN_LIMIT_MAX (1ull << 30) /* the virtual queue's byte limit cannot be set above 1 GiB */

/**
 * Configuration (map ecn_cfg), written by `uetemu-ecn attach`, read by the program on every packet. A packet is
 * marked against the virtual queue length q after the packet is counted in (as the Scala Switch updates its
 * average with the occupancy after admission): q < min_bytes never; q >= max_bytes always (ECT packets);
 * in between with probability pmax_ppm / 1e6 x (q - min_bytes) / (max_bytes - min_bytes).
 */
struct ebpf_ecn_cfg {
	__u64 rate_bps;     /* drain rate of the virtual queue, bit/s (>= 1000); 0: the program passes packets unseen */
	__u64 min_bytes;    /* lower threshold */
	__u64 max_bytes;    /* upper threshold, > min_bytes */
	__u64 limit_bytes;  /* the virtual queue holds at most this many bytes: a packet that would go over is not
	                     * counted in (a real queue would have dropped it; here it passes, counted in overflow) */
	__u32 pmax_ppm;     /* probability at max_bytes, parts per million (1,000,000 = 1.0) */
	__u32 generation;   /* bumped by every attach/re-config; the program restarts the virtual queue on a change */
	__u32 flags;        /* EBPF_ECN_F_* */
	__u32 pad;
};

#define EBPF_ECN_F_CLSACT_OURS 1u /* the loader created the clsact qdisc, so detach removes it */

/**
 * State and counters (map ecn_state), one value updated under its spin lock by every packet on any CPU, so the
 * counters are exact and consistent with one another. Bytes are skb->len at clsact egress: the frame from the
 * Ethernet header on, without FCS (a GSO packet counts once, with all its bytes).
 */
struct ebpf_ecn_state {
	struct bpf_spin_lock lock;
	__u32 generation;      /* the cfg generation this state was started with */
	__u64 empty_at_ns;     /* bpf_ktime_get_ns() at which the virtual queue would be empty (its backlog's end) */
	__u64 packets;         /* every packet seen */
	__u64 bytes;           /* their bytes */
	__u64 ipv4;            /* IPv4 packets (the only ones whose ECN field is read) */
	__u64 ect;             /* IPv4 with ECT(0), ECT(1) or CE */
	__u64 not_ect;         /* IPv4 with Not-ECT */
	__u64 marked;          /* ECT packets this program set to CE */
	__u64 ce_in;           /* packets that already carried CE (counted in ect, not in marked) */
	__u64 would_drop;      /* Not-ECT packets that arrived with q >= max_bytes: a RED queue would drop them */
	__u64 overflow;        /* packets not counted into a virtual queue at its limit */
	__u64 vq_bytes;        /* the virtual queue length after the last packet */
	__u64 vq_peak;         /* the largest vq_bytes since the last (re)start */
	__u64 last_ns;         /* bpf_ktime_get_ns() of the last packet */
};

/** What ebpf_ecn_step() was told about a packet's ECN field. */
enum ebpf_ecn_kind {
	EBPF_ECN_OTHER = -1, /* not IPv4: takes its place in the virtual queue, never marked */
	EBPF_ECN_NOT_ECT = 0,
	EBPF_ECN_ECT1 = 1,
	EBPF_ECN_ECT0 = 2,
	EBPF_ECN_CE = 3,
};

/**
 * One packet of @p len bytes at time @p now_ns through the virtual queue of @p st under configuration @p cfg
 * (rate_bps > 0, max_bytes > min_bytes, limit_bytes <= EBPF_ECN_LIMIT_MAX, checked by the loader). @p kind is the
 * packet's ECN field (enum ebpf_ecn_kind), @p rnd a uniform 32-bit random number. Updates the queue and the
 * counters; returns 1 when the packet is to be set to CE, else 0. The queue is kept as the time it would be
 * empty, so it drains exactly at rate_bps with no rounding carried from packet to packet; its length in bytes is
 * backlog_ns x rate_bps / 8e9 (at most limit x 8 x 1e9 < 2^64 before the division). Called by the BPF program
 * under the state's spin lock (so no helper call here: the caller draws @p rnd and reads the clock first), and by
 * the unit tests on the host.
 */
static inline int ebpf_ecn_step(const struct ebpf_ecn_cfg *cfg, struct ebpf_ecn_state *st, __u64 now_ns, __u32 len,
				int kind, __u32 rnd)
{
	const __u64 ns_per_s8 = 8000000000ull; /* bit per byte x ns per second */
	__u64 base, q, thr;
	int mark = 0;

	if (st->generation != cfg->generation) { /* a new configuration: the virtual queue starts empty */
		st->generation = cfg->generation;
		st->empty_at_ns = 0;
		st->vq_bytes = 0;
		st->vq_peak = 0;
	}
	base = st->empty_at_ns > now_ns ? st->empty_at_ns : now_ns;
	q = (base - now_ns) * cfg->rate_bps / ns_per_s8; /* bytes still queued ahead of this packet */
	if (q + len > cfg->limit_bytes) {
		st->overflow++;
	} else {
		st->empty_at_ns = base + (__u64)len * ns_per_s8 / cfg->rate_bps;
		q += len;
	}
	st->packets++;
	st->bytes += len;
	st->last_ns = now_ns;
	st->vq_bytes = q;
	if (q > st->vq_peak)
		st->vq_peak = q;
	if (kind == EBPF_ECN_OTHER)
		return 0;
	st->ipv4++;
	if (kind == EBPF_ECN_NOT_ECT) {
		st->not_ect++;
		if (q >= cfg->max_bytes)
			st->would_drop++;
		return 0;
	}
	st->ect++;
	if (kind == EBPF_ECN_CE) {
		st->ce_in++;
		return 0;
	}
	if (q >= cfg->max_bytes) {
		mark = 1;
	} else if (q >= cfg->min_bytes) {
		/* probability pmax x (q - min) / (max - min), in ppm; the draw is rnd scaled to [0, 1e6) */
		thr = (q - cfg->min_bytes) * cfg->pmax_ppm / (cfg->max_bytes - cfg->min_bytes);
		mark = (((__u64)rnd * EBPF_PPM) >> 32) < thr;
	}
	if (mark)
		st->marked++;
	return mark;
}

/* ---- The trimmer (ebpf_trim.bpf.c): the CE marker's sibling, one program instance per interface. ---- */

#define EBPF_TRIM_CFG_MAP "trim_cfg"
#define EBPF_TRIM_STATE_MAP "trim_state"
#define EBPF_TRIM_PROG "uetemu_trim"

/** tc filter handle and priority of the trimmer on clsact egress (0x7e1 = "TRI"), beside the CE marker's. */
#define EBPF_TRIM_TC_HANDLE 0x7e1
#define EBPF_TRIM_TC_PRIO 0x7e1

/** UET bytes a trim leaves after the UDP header or the entropy header: MIN_TRIM_SIZE (24 B of IP payload over
 *  UDP) less the UDP header, the largest PDS request header (RUD_CC / ROD_CC). */
#define EBPF_TRIM_UET_BYTES 16
#define EBPF_DSCP_TRIMMABLE_DEFAULT 8 /* nic.UETEncapsulation.DscpTrimmable */
#define EBPF_DSCP_TRIMMED_DEFAULT 16  /* nic.UETEncapsulation.DscpTrimmed */

/**
 * Configuration (map trim_cfg), written by `uetemu-trim attach`. Every packet goes through a virtual queue drained
 * at rate_bps (as the CE marker's); a UET data packet (IPv4 UDP to uet_port, or IPv4 protocol 253, with DSCP
 * dscp_trimmable) that would take the queue above min_bytes is trimmed instead: cut to its headers and
 * EBPF_TRIM_UET_BYTES of UET, re-marked dscp_trimmed, and counted into the queue at its trimmed length.
 */
struct ebpf_trim_cfg {
	__u64 rate_bps;        /* drain rate of the virtual queue, bit/s (>= 1000); 0: packets pass unseen */
	__u64 min_bytes;       /* the threshold: a trimmable packet that would take the queue above it is trimmed */
	__u64 limit_bytes;     /* the queue holds at most this (>= min_bytes): a packet that would go over is not
	                        * counted in (overflow); a trimmed one always is */
	__u32 generation;      /* bumped by every attach/re-config; a change restarts the virtual queue */
	__u32 flags;           /* EBPF_ECN_F_CLSACT_OURS */
	__u16 uet_port;        /* UDP destination port of UET, host order */
	__u8 dscp_trimmable;   /* only packets with this DSCP are trimmed */
	__u8 dscp_trimmed;     /* the DSCP a trimmed packet leaves with */
	__u32 pad;
};

/** State and counters (map trim_state), under its spin lock. Bytes are skb->len at clsact egress. */
struct ebpf_trim_state {
	struct bpf_spin_lock lock;
	__u32 generation;
	__u64 empty_at_ns;     /* when the virtual queue would be empty */
	__u64 packets;         /* every packet seen */
	__u64 bytes;           /* their bytes, as they arrived */
	__u64 uet;             /* UET packets (UDP to uet_port, or protocol 253), any DSCP */
	__u64 trimmable;       /* of those, with dscp_trimmable and longer than a trimmed packet */
	__u64 trimmed;         /* packets this program trimmed */
	__u64 trimmed_bytes;   /* bytes it cut off them */
	__u64 trim_failed;     /* packets it meant to trim that the kernel would not shorten (passed whole) */
	__u64 overflow;        /* packets not counted into a queue at its limit */
	__u64 vq_bytes;        /* the virtual queue after the last packet */
	__u64 vq_peak;         /* its largest since the last (re)start */
	__u64 last_ns;         /* bpf_ktime_get_ns() of the last packet */
};

/**
 * One packet of @p len bytes at @p now_ns through the trimmer's virtual queue. @p trim_len is the length the packet
 * would have trimmed, or 0 when it is not trimmable (not UET, another DSCP, or no longer than that already).
 * Returns 1 when the packet is to be trimmed (the queue then holds it at @p trim_len), else 0. The counters of
 * what the program does after the call (trimmed_bytes, trim_failed) are its own. Under the state's lock; no
 * helper call here (the unit tests run it on the host).
 */
static inline int ebpf_trim_step(const struct ebpf_trim_cfg *cfg, struct ebpf_trim_state *st, __u64 now_ns,
				 __u32 len, __u32 trim_len)
{
	const __u64 ns_per_s8 = 8000000000ull;
	__u64 base, q;
	int trim = 0;

	if (st->generation != cfg->generation) {
		st->generation = cfg->generation;
		st->empty_at_ns = 0;
		st->vq_bytes = 0;
		st->vq_peak = 0;
	}
	base = st->empty_at_ns > now_ns ? st->empty_at_ns : now_ns;
	q = (base - now_ns) * cfg->rate_bps / ns_per_s8;
	st->packets++;
	st->bytes += len;
	st->last_ns = now_ns;
	if (trim_len > 0) {
		st->trimmable++;
		if (q + len > cfg->min_bytes) { /* the queue would go above the threshold: trim, queue the rest */
			trim = 1;
			st->trimmed++;
			len = trim_len;
		}
	}
	if (!trim && q + len > cfg->limit_bytes) {
		st->overflow++;
	} else {
		st->empty_at_ns = base + (__u64)len * ns_per_s8 / cfg->rate_bps;
		q += len;
	}
	st->vq_bytes = q;
	if (q > st->vq_peak)
		st->vq_peak = q;
	return trim;
}

/* ---- XDP steering (ebpf_xdp_steer.bpf.c), loaded by DPDK's net_af_xdp PMD through its xdp_prog= devarg. ---- */

#define EBPF_STEER_PROG "uetemu_steer"
#define EBPF_STEER_XSKS_MAP "xsks_map"     /* the name DPDK 22.11's net_af_xdp PMD looks up */
#define EBPF_STEER_CFG_MAP "steer_cfg"     /* array of one struct ebpf_steer_cfg */
#define EBPF_STEER_HOSTS_MAP "steer_hosts" /* hash: IPv4 address (network order) -> 1 */
#define EBPF_STEER_STATS_MAP "steer_stats" /* per-CPU array of EBPF_STEER_N counters */
#define EBPF_STEER_HOSTS_MAX 1024
#define EBPF_STEER_QUEUES_MAX 64

/** What the steering program redirects (to the AF_XDP socket of the frame's RX queue); the rest goes to the kernel. */
struct ebpf_steer_cfg {
	__u16 uet_port;   /* UDP destination port of UET (nic.UETEncapsulation.UdpDestinationPort), host order */
	__u16 cm_port;    /* UDP destination port of uetemu's connection setup frames (4794), host order */
	__u32 ready;      /* 0 until uetemu has filled the maps: until then UET is matched on 4793 and 4794 */
};

/** Counters: frames per class (index), summed over CPUs by the reader. */
enum ebpf_steer_stat {
	EBPF_STEER_UET = 0,   /* IPv4 UDP to uet_port */
	EBPF_STEER_CM,        /* IPv4 UDP to cm_port */
	EBPF_STEER_PROTO253,  /* IPv4 protocol 253 */
	EBPF_STEER_ARP,       /* ARP whose target IPv4 address is an emulated host's */
	EBPF_STEER_ICMP,      /* ICMP to an emulated host's address */
	EBPF_STEER_PFC,       /* MAC control (802.3x / 802.1Qbb PFC, EtherType 0x8808) */
	EBPF_STEER_PASS,      /* everything else: to the kernel */
	EBPF_STEER_NOSOCK,    /* matched, but no AF_XDP socket on that RX queue: to the kernel */
	EBPF_STEER_N
};

#define EBPF_UET_PORT_DEFAULT 4793
#define EBPF_CM_PORT_DEFAULT 4794
#define EBPF_IPPROTO_UET 253

/* ---- Host side (ebpf_util.c): not for the BPF programs. ---- */
#ifndef __bpf__
#include <stddef.h>
#include <stdint.h>

#define EBPF_ECN_OBJ "ebpf_ecn.bpf.o"
#define EBPF_TRIM_OBJ "ebpf_trim.bpf.o"
#define EBPF_STEER_OBJ "ebpf_xdp_steer.bpf.o"

/**
 * A rate for the CE marker: uetemu's datarates ("1Gbps", "100Mbps", bit/s as in every uetemu config) or tc's
 * spelling of bit/s ("1Gbit", "100mbit", "64kbit", "1000bit"). Below 1000 bit/s is refused. Returns 0, -EINVAL or
 * -ERANGE with a message in @p err.
 */
int ebpf_parse_rate(const char *s, uint64_t *bps, char *err, size_t errlen);

/**
 * Check a CE marker configuration: rate >= 1000 bit/s, min < max <= limit <= EBPF_ECN_LIMIT_MAX, pmax <= 1e6 ppm.
 * Returns 0, or -EINVAL with the reason in @p err.
 */
int ebpf_ecn_cfg_check(const struct ebpf_ecn_cfg *cfg, char *err, size_t errlen);

/**
 * Check a trimmer configuration: rate >= 1000 bit/s, min <= limit <= EBPF_ECN_LIMIT_MAX, DSCPs 0..63 and
 * trimmable != trimmed, a UET port. Returns 0, or -EINVAL with the reason in @p err.
 */
int ebpf_trim_cfg_check(const struct ebpf_trim_cfg *cfg, char *err, size_t errlen);

/**
 * Find the BPF object @p name (EBPF_ECN_OBJ, EBPF_STEER_OBJ): in $UETEMU_BPF_DIR if set, else next to the running
 * executable, in its bpf/ subdirectory (the build tree: build/uetemu finds build/bpf/NAME), in ../share/uetemu/bpf
 * from it (an installed tree), and last in the directory meson installs them to (EBPF_OBJ_DIR). Writes the path
 * into @p out. Returns 0, or -ENOENT with the places looked at in @p out (as a message).
 */
int ebpf_obj_find(const char *name, char *out, size_t outlen);

/**
 * The maps of the loaded program with id @p prog_id (ebpf_maps.c, libbpf): checks that its name is @p prog_name,
 * then opens each map named in @p names (@p n of them) into @p fds. Returns 0 (the caller closes the fds), or
 * -errno with a message in @p err (no fd left open): -ESRCH when the program is gone, -EPERM without CAP_BPF,
 * -ENOENT when it is another program or lacks one of the maps.
 */
int ebpf_prog_maps(uint32_t prog_id, const char *prog_name, const char *const *names, int *fds, int n, char *err,
		   size_t errlen);
#endif

#endif /* EBPF_H */
