/* The DPDK dataplane: EAL bring-up, mempool, ports, bursts of frames in and out, and the TSC clock.
 * The only module that includes rte_*; everything it exposes is plain C so control/ stays DPDK-free.
 */
#ifndef DP_H
#define DP_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "net_bind.h"

#define DP_BURST 32
#define DP_MAX_PORTS 16
#define DP_FRAME_MAX 9216 /* longest frame in or out, bytes without FCS (jumbo) */
#define DP_EAL_ARGS_MAX 64 /* entries of the EAL's argv: "uetemu", the defaults kept, the user's args */
#define DP_TEL_CMDS_MAX 16 /* telemetry commands one context answers */

/**
 * Read a variable that another thread writes, without a lock: one relaxed atomic load, which for an aligned
 * 64-bit (or narrower) variable is a single plain load on x86-64 and on the other 64-bit targets DPDK supports.
 * The value is one the variable really had, never half of an update. Several reads are not a snapshot: the writer
 * may move on between them. Telemetry handlers read the poll thread's counters this way.
 */
#define DP_LOAD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)

#define DP_RX_DRAIN_BURSTS 16 /* dp_rx_drain(): bursts per port per call at most, 16 x 32 = a full 512-frame ring */

/* dp_port_add() flags. */
#define DP_PORT_TX_COPY 0x1u /* copy every frame into mbufs even where zero-copy TX is possible */

struct dp_ctx;

/** Counters of one port, with named reasons for every frame not passed on. */
struct dp_port_stats {
	uint64_t rx_frames, rx_bytes;
	uint64_t tx_frames, tx_bytes;
	uint64_t tx_drop_full;   /* the port did not take a staged burst (its TX ring full) */
	uint64_t tx_drop_nombuf; /* the mempool had no mbuf */
	uint64_t tx_drop_toobig; /* frame larger than an mbuf's data room (DP_FRAME_MAX if the port takes chains),
	                          * or refused by a PMD that enforces its MTU (net_tap: MTU 1504, so 1522 B) */
	uint64_t rx_drop_toobig; /* received chained frame longer than DP_FRAME_MAX, so not linearized */
	uint64_t rx_kept;        /* received mbufs kept by the models: a real device's frame forwarded in its own
	                          * mbuf (zero-copy forwarding, net_bind.h keep) */
	uint64_t tx_drop_mtu;    /* frame longer than the port's MTU allows (its kernel interface's MTU, or the
	                          * config's mtu:, + 14 B of Ethernet header, + 4 B when 802.1Q-tagged): dropped here
	                          * and counted rather than left to vanish in the kernel (net_af_packet) */
};

/** How a port sends frames (dp_port_tx_mode()). */
enum dp_tx_mode {
	DP_TXM_COPY = 0, /* headers and payload copied into mbufs from the pool */
	DP_TXM_ZEROCOPY, /* headers copied into a small mbuf, the payload an mbuf pinned to the shared pattern */
};

/** What dp_tx() and dp_tx_hdr() did with a frame: 0 = staged, else the reason it was dropped (and counted). */
enum dp_tx_result {
	DP_TX_OK = 0,
	DP_TX_NOMBUF, /* counted in tx_drop_nombuf */
	DP_TX_TOOBIG, /* counted in tx_drop_toobig */
	DP_TX_MTU,    /* counted in tx_drop_mtu */
};

/** The EAL command line: uetemu's defaults merged with the user's EAL args (dp_eal_args()). */
struct dp_eal_args {
	char *argv[DP_EAL_ARGS_MAX + 1]; /* NULL-terminated; the strings are literals, the user's, or @c prefix */
	int argc;
	const char *file_prefix;         /* the --file-prefix in effect: the default's or the user's (the last) */
	bool own_prefix;                 /* the default --file-prefix stayed: its runtime directory is ours to remove */
	bool hugepages;                  /* a hugepage option was given, so --no-huge and -m were left out */
	bool telemetry;                  /* no --no-telemetry (or a --telemetry after it) */
};

/**
 * Merge the user's EAL args @p argv (@p argc of them, what follows "--") into uetemu's defaults, with no EAL (a
 * pure function): @p out->argv is "uetemu", the defaults
 *     --no-huge --no-pci -m 256 --file-prefix PREFIX --log-level=lib.*:warning
 * less those the user's args replace, then the user's args unchanged and in order. A default is left out when
 * the user gives the same option, in either spelling ("--file-prefix X" or "--file-prefix=X", "-m 512" or
 * "-m512"); and
 *   - --no-huge and -m are left out when the user gives a hugepage option (--huge-dir, --socket-mem,
 *     --socket-limit, --huge-unlink, --in-memory): the EAL refuses or ignores those with --no-huge, so they
 *     can only mean "use hugepages" (and --socket-mem cannot go with -m);
 *   - --no-pci is left out when the user gives -a/--allow or -b/--block, which name devices on a bus the EAL
 *     scans (a PCI NIC).
 * Options count spelled in full, not as getopt abbreviations. The value of an EAL option that takes one ("--vdev
 * X", "-l 0") is never read as an option. @p prefix is the default file prefix ("uetemu-<pid>"); it must outlive
 * @p out. Returns out->argc, or -E2BIG (out->argc 0) when the result would exceed DP_EAL_ARGS_MAX entries.
 */
int dp_eal_args(struct dp_eal_args *out, int argc, char **argv, char *prefix);

/**
 * Bring up the EAL once per process, with dp_eal_args() of @p eal_argv / @p eal_argc (the user's EAL args, after
 * "--") and the default prefix "uetemu-<pid>". Creates one mempool sized for DP_MAX_PORTS ports (size formula
 * written next to it). When the default prefix is in use its runtime directory (/var/run/dpdk/uetemu-<pid>) is
 * removed again by dp_destroy(), or here if the EAL does not start.
 * Returns the context, or NULL with a message in @p err.
 */
struct dp_ctx *dp_create(int eal_argc, char **eal_argv, char *err, size_t errlen);

/** The EAL command line dp_create() used (its file prefix names the telemetry socket's directory). */
const struct dp_eal_args *dp_eal(const struct dp_ctx *dp);

/**
 * Stop answering telemetry (dp_tel_unregister()), stop and close every port, free the mempool, clean up the EAL
 * and remove a runtime directory named by the default prefix. Accepts NULL.
 */
void dp_destroy(struct dp_ctx *dp);

/** Options of a port beyond its devargs (dp_port_add_opts()). */
struct dp_port_opts {
	unsigned flags;          /* DP_PORT_TX_COPY ... (dp_port_add()) */
	/* net_af_xdp only: load uetemu's XDP steering program (bpf/ebpf_xdp_steer.bpf.c) through the PMD's
	 * xdp_prog= devarg, so only UET (UDP to uet_udp_port or cm_udp_port, IP protocol 253), PFC, and ARP and
	 * ICMP for the addresses in @c ip reach the port; every other frame stays with the kernel. */
	bool xdp_steer;
	const char *xdp_obj;     /* the steering object's path; NULL: found by ebpf_obj_find() */
	uint16_t uet_udp_port;   /* nic.UETEncapsulation.UdpDestinationPort */
	uint16_t cm_udp_port;    /* the connection setup frames' port (4794) */
	const uint32_t *ip;      /* the emulated hosts behind the port, IPv4 in host byte order */
	unsigned n_ip;
	/* The IP MTU of the port's link (the config's mtu:), 0 for none. Frames longer than it allows are dropped
	 * as tx_drop_mtu; so are those longer than the MTU of the port's kernel interface (net_af_packet, net_tap,
	 * net_af_xdp: read when the port has started), whichever is smaller. */
	uint32_t mtu;
};

/** The IP MTU frames leaving port @p port are held to (dp_port_opts.mtu, the kernel interface's); 0 for none. */
uint32_t dp_port_tx_mtu(const struct dp_ctx *dp, int port);

/** The XDP steering program's counters of a port, summed over CPUs (frames per class; see bpf/ebpf.h). */
struct dp_xdp_stats {
	uint64_t uet, cm, proto253, arp, icmp, pfc; /* redirected to the port's AF_XDP socket */
	uint64_t pass;                              /* left to the kernel */
	uint64_t nosock;                            /* matched, but no socket on the RX queue: left to the kernel */
};

/**
 * Set the payload pattern: dp_tx_hdr() frames carry the first payload_len bytes of it after their headers. The
 * @p len bytes (at most DP_FRAME_MAX) are copied into one read-only DPDK buffer that zero-copy frames point to.
 * Call once, before dp_port_add(): a port added without a pattern copies. Returns 0, or -errno with a message in
 * @p err (-EBUSY: ports already added or a pattern already set; -ENOMEM).
 */
int dp_tx_pattern_set(struct dp_ctx *dp, const uint8_t *pattern, size_t len, char *err, size_t errlen);

/**
 * Probe the virtual or PCI device @p devargs (e.g. "net_tap0,iface=uet0", "net_af_packet0,iface=veth0",
 * "0000:03:00.0"), configure one RX and one TX queue, enable promiscuous mode, start it. The port sends
 * zero-copy when a pattern is set, @p flags has no DP_PORT_TX_COPY and its PMD takes mbuf chains (it declares
 * RTE_ETH_TX_OFFLOAD_MULTI_SEGS, or it is net_null or net_pcap, which read chains without declaring it in DPDK
 * 22.11); otherwise it copies (dp_port_tx_mode() says which, and why).
 * Returns the port index (0, 1, ... in order of adding), or -errno with a message in @p err.
 */
int dp_port_add(struct dp_ctx *dp, const char *devargs, unsigned flags, char *err, size_t errlen);

/** How port @p port sends, with a one-line reason in *@p why (static text; @p why may be NULL). */
enum dp_tx_mode dp_port_tx_mode(const struct dp_ctx *dp, int port, const char **why);

/**
 * dp_port_add() with options (@p opts may be NULL). A net_af_xdp port always gets an mbuf pool of its own with
 * page-sized mbufs (the kernel's UMEM chunks are at most a page): frames up to about 3,450 B. With
 * opts->xdp_steer the device is probed with ",xdp_prog=<steering object>" added to @p devargs (the PMD loads
 * the program, attaches it to the interface and puts its socket into the program's xsks_map) and the program's
 * maps are filled before the port starts; the PMD detaches it when the port closes. Fails (-EINVAL) when
 * xdp_steer is asked of a device that is not net_af_xdp, that gives its own xdp_prog=, or that the EAL had already
 * probed (--vdev) without uetemu's program; -ENOENT when the object is not found; -ENOTSUP without libbpf.
 */
int dp_port_add_opts(struct dp_ctx *dp, const char *devargs, const struct dp_port_opts *opts, char *err,
		     size_t errlen);

/** Whether @p devargs names a net_af_xdp device ("net_af_xdp", "net_af_xdp0,iface=eth1", ...). */
bool dp_is_af_xdp(const char *devargs);

/**
 * The directory whose PMD libraries (librte_net_tap.so, ...) the EAL of this build loads when it starts
 * (DPDK's RTE_EAL_PMD_PATH), for a preflight that checks a port's driver exists without starting the EAL.
 * "" when the build links its drivers in (a static DPDK) or has no DPDK: then no directory says which exist.
 */
const char *dp_pmd_dir(void);

/**
 * The steering program's counters of port @p port. Returns 0, or -ENOENT when the port has no steering program
 * (and @p out is zeroed). Reads a BPF map: not for the packet path.
 */
int dp_port_xdp_stats(const struct dp_ctx *dp, int port, struct dp_xdp_stats *out);

/** MAC address of port @p port. */
void dp_port_mac(const struct dp_ctx *dp, int port, uint8_t mac[6]);

/**
 * Stage one frame of @p len bytes (no FCS) for port @p port: copied into an mbuf; the staged burst is sent
 * when it reaches DP_BURST frames or at dp_flush(). Returns DP_TX_OK (0), or a counted drop reason > 0 from
 * enum dp_tx_result (no errno). A burst the port does not take is counted in tx_drop_full at send time.
 */
int dp_tx(struct dp_ctx *dp, int port, const uint8_t *frame, size_t len);

/**
 * Stage the frame made of the @p hdr_len bytes at @p hdr followed by the first @p payload_len bytes of the
 * pattern (dp_tx_pattern_set()) for port @p port. On a zero-copy port the headers go into a small mbuf and the
 * payload is a second mbuf pinned to the pattern, never copied; on a copy port both are copied, as dp_tx() does.
 * Returns as dp_tx(); a payload longer than the pattern is DP_TX_TOOBIG.
 */
int dp_tx_hdr(struct dp_ctx *dp, int port, const uint8_t *hdr, size_t hdr_len, size_t payload_len);

/** Header bytes dp_tx_hdr_reserve() hands out at least (a data frame's headers are 102). */
#define DP_TX_HDR_ROOM 128

/**
 * dp_tx_hdr() without the copy of the headers: the data room of the header mbuf the next zero-copy frame of port
 * @p port goes out in, DP_TX_HDR_ROOM bytes, for the caller to encode the headers straight into, then send with
 * dp_tx_hdr_commit(). The room stays the port's until committed (a frame not committed costs nothing; the next
 * reserve gives the same room). Returns NULL on a copy port (encode elsewhere and call dp_tx_hdr()) or when the
 * header pool is empty (nothing counted: dp_tx_hdr() then counts its drop).
 */
uint8_t *dp_tx_hdr_reserve(struct dp_ctx *dp, int port);

/**
 * Stage the frame whose @p hdr_len header bytes were written into the room dp_tx_hdr_reserve() gave (just before,
 * on this port), followed by the first @p payload_len bytes of the pattern. Returns as dp_tx_hdr().
 */
int dp_tx_hdr_commit(struct dp_ctx *dp, int port, size_t hdr_len, size_t payload_len);

/** Send every staged frame on every port (call once per poll pass, so batching delay is bounded by one pass). */
void dp_flush(struct dp_ctx *dp);

/**
 * A thread of its own, on @p cpus (NULL or empty: the caller's), makes the sends of the ports @p ports marks (an
 * array of dp's ports, in dp_port_add() order): their staged bursts go into a ring it polls, busy, and it calls
 * the PMD's TX (net_af_packet's sendto kick, net_tap's writev) there, so the poll lcore makes no system call to
 * send (docs/realtime.md, Lateness). What a ring has no room for is dropped as tx_drop_full. Returns how many
 * ports it sends for (0: none marked, no thread), or -errno with a message. Stop it before the ports close.
 */
int dp_tx_thread_start(struct dp_ctx *dp, const bool *ports, const cpu_set_t *cpus, char *err, size_t errlen);

/** The TX thread sends what its rings hold and ends; the ports send for themselves again. Accepts none started. */
void dp_tx_thread_stop(struct dp_ctx *dp);

/** Send the frames staged on @p port (the lcore that polls it, once per pass: dp_flush() for one port). */
void dp_flush_port(struct dp_ctx *dp, int port);

/**
 * The EAL's lcores: their ids in @p ids (the main lcore first, then the workers in order), at most @p max.
 * Returns how many the EAL has (-l 0: 1; -l 0-1: 2; without -l: one per core it may use).
 */
unsigned dp_lcores(const struct dp_ctx *dp, unsigned *ids, unsigned max);

/** Run @p fn(@p arg) on worker lcore @p lcore (rte_eal_remote_launch). 0 or -errno (-EBUSY: it runs already). */
int dp_launch(struct dp_ctx *dp, unsigned lcore, int (*fn)(void *), void *arg);

/** Wait until worker lcore @p lcore has returned from what dp_launch() gave it; returns what that returned. */
int dp_wait(struct dp_ctx *dp, unsigned lcore);

/** Called for each received frame; the bytes are valid only during the call. */
typedef void (*dp_rx_fn)(void *arg, int port, const uint8_t *frame, size_t len);

/**
 * Receive up to DP_BURST frames from @p port, calling @p fn on each, then free them. A frame the port delivers
 * as an mbuf chain is linearized first (up to DP_FRAME_MAX, else counted in rx_drop_toobig and not passed on).
 * Returns how many frames were taken from the port (passed on plus dropped).
 */
unsigned dp_rx(struct dp_ctx *dp, int port, dp_rx_fn fn, void *arg);

/**
 * dp_rx() until @p port has nothing more to give (a burst shorter than DP_BURST) or DP_RX_DRAIN_BURSTS bursts
 * were taken, so a caller that lost the CPU for a while empties a full RX ring in one call. Returns the frames
 * taken.
 */
unsigned dp_rx_drain(struct dp_ctx *dp, int port, dp_rx_fn fn, void *arg);

/**
 * Bind port @p port to the models (net_bind.h): @p out gets the dataplane's ops and the port. rx_burst takes up to
 * @p n (at most DP_BURST) frames as dp_rx() does (a chain linearized, a frame too long for that counted in
 * rx_drop_toobig and left out, a stripped VLAN tag put back), holding their mbufs until the next rx_burst or flush;
 * tx_burst stages each frame with dp_tx_hdr(); flush sends what is staged (dp_flush_port()) and frees the held
 * mbufs. Called by the lcore that polls the port only.
 */
void dp_port_bind(struct dp_ctx *dp, int port, struct net_bind *out);

/**
 * Counters of @p port. Safe from another thread while the poll loop runs (a telemetry handler): each counter is
 * read with DP_LOAD(), so each is exact, but together they are not a snapshot.
 */
void dp_port_stats(const struct dp_ctx *dp, int port, struct dp_port_stats *out);

/*
 * Telemetry: commands answered on DPDK's telemetry socket (/var/run/dpdk/<file prefix>/dpdk_telemetry.v2, e.g.
 * with `dpdk-telemetry.py -f <file prefix>`). The dataplane registers them with rte_telemetry; the caller builds
 * each answer through dp_tel_u64() and friends, so it never sees an rte_* type. An answer is a JSON object.
 * Handlers run on DPDK's telemetry thread, concurrently with the poll loop: they may read the poll thread's state
 * only (no lock anywhere), counters with DP_LOAD(); they may allocate and format, being off the packet path.
 */
struct dp_tel; /* an answer being built: a JSON object */

/** Build the answer to a command in @p out. @p params is what followed the command's comma, or "". 0 or -errno
 *  (the client then reads null). */
typedef int (*dp_tel_fn)(void *arg, const char *params, struct dp_tel *out);

/** A command: @c name "/uetemu/summary" ('/', letters, digits, '_', under 56 chars), one line of @c help (under
 *  128 chars), and its handler. The strings must outlive the context. */
struct dp_tel_cmd {
	const char *name;
	const char *help;
	dp_tel_fn fn;
};

/**
 * Register @p n commands (at most DP_TEL_CMDS_MAX), answered by calling their handlers with @p arg until
 * dp_tel_unregister(). Once per process: DPDK cannot unregister a command, and only one context answers.
 * Returns 0, or -errno with a message in @p err (a bad name or help, -EBUSY if a context already answers).
 */
int dp_tel_register(struct dp_ctx *dp, const struct dp_tel_cmd *cmds, unsigned n, void *arg, char *err,
		    size_t errlen);

/** Stop answering (the commands then answer null) and wait for running handlers to return. Accepts NULL. */
void dp_tel_unregister(struct dp_ctx *dp);

/**
 * Add to an answer: a number, a string, or a nested object (returned, NULL if it cannot be added). Keys may only
 * hold letters, digits, '_' and '/': any other character is written as '_' (a link "host0-host1" becomes key
 * "host0_host1"). An answer holds at most 256 keys per object and 16 KB of JSON; DPDK cuts what goes beyond.
 * 0 or -errno.
 */
int dp_tel_u64(struct dp_tel *out, const char *key, uint64_t v);
int dp_tel_str(struct dp_tel *out, const char *key, const char *v);
struct dp_tel *dp_tel_obj(struct dp_tel *out, const char *key);

/**
 * Start the rte_pdump server, so dpdk-dumpcap can attach to this process and capture its ports, when the EAL runs
 * with hugepages (a secondary process cannot reach --no-huge memory). Returns 1 when started, 0 without
 * hugepages (nothing started), or -EIO with a message in @p err.
 */
int dp_pdump_start(struct dp_ctx *dp, char *err, size_t errlen);

/** Stop the server dp_pdump_start() started (call only when it returned 1), before dp_destroy(). */
void dp_pdump_stop(struct dp_ctx *dp);

/** Current TSC, and its rate in Hz. */
uint64_t dp_tsc(void);
uint64_t dp_tsc_hz(void);

#endif /* DP_H */
