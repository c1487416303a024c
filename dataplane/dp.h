/* The DPDK dataplane: EAL bring-up, mempool, ports, bursts of frames in and out, and the TSC clock.
 * The only module that includes rte_*; everything it exposes is plain C so control/ stays DPDK-free.
 */
#ifndef DP_H
#define DP_H

#include <stddef.h>
#include <stdint.h>

#define DP_BURST 32
#define DP_MAX_PORTS 16
#define DP_FRAME_MAX 9216 /* longest frame in or out, bytes without FCS (jumbo) */

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
};

/** What dp_tx() did with a frame: 0 = staged, else the reason it was dropped (and counted). */
enum dp_tx_result {
	DP_TX_OK = 0,
	DP_TX_NOMBUF, /* counted in tx_drop_nombuf */
	DP_TX_TOOBIG, /* counted in tx_drop_toobig */
};

/**
 * Bring up the EAL once. @p eal_argv / @p eal_argc are the user's EAL args (after "--"); when none are given the
 * defaults are "--no-huge --no-pci -m 256 --file-prefix uetemu-<pid> --log-level=lib.*:warning". Creates one
 * mempool sized for DP_MAX_PORTS ports (size formula written next to it).
 * Returns the context, or NULL with a message in @p err.
 */
struct dp_ctx *dp_create(int eal_argc, char **eal_argv, char *err, size_t errlen);

/** Stop and close every port, free the mempool, and clean up the EAL. Accepts NULL. */
void dp_destroy(struct dp_ctx *dp);

/**
 * Probe the virtual or PCI device @p devargs (e.g. "net_tap0,iface=uet0", "net_af_packet0,iface=veth0",
 * "0000:03:00.0"), configure one RX and one TX queue, enable promiscuous mode, start it.
 * Returns the port index (0, 1, ... in order of adding), or -errno with a message in @p err.
 */
int dp_port_add(struct dp_ctx *dp, const char *devargs, char *err, size_t errlen);

/** MAC address of port @p port. */
void dp_port_mac(const struct dp_ctx *dp, int port, uint8_t mac[6]);

/**
 * Stage one frame of @p len bytes (no FCS) for port @p port: copied into an mbuf; the staged burst is sent
 * when it reaches DP_BURST frames or at dp_flush(). Returns DP_TX_OK (0), or a counted drop reason > 0 from
 * enum dp_tx_result (no errno). A burst the port does not take is counted in tx_drop_full at send time.
 */
int dp_tx(struct dp_ctx *dp, int port, const uint8_t *frame, size_t len);

/** Send every staged frame on every port (call once per poll pass, so batching delay is bounded by one pass). */
void dp_flush(struct dp_ctx *dp);

/** Called for each received frame; the bytes are valid only during the call. */
typedef void (*dp_rx_fn)(void *arg, int port, const uint8_t *frame, size_t len);

/**
 * Receive up to DP_BURST frames from @p port, calling @p fn on each, then free them. A frame the port delivers
 * as an mbuf chain is linearized first (up to DP_FRAME_MAX, else counted in rx_drop_toobig and not passed on).
 * Returns how many frames were taken from the port (passed on plus dropped).
 */
unsigned dp_rx(struct dp_ctx *dp, int port, dp_rx_fn fn, void *arg);

/** Counters of @p port. */
void dp_port_stats(const struct dp_ctx *dp, int port, struct dp_port_stats *out);

/** Current TSC, and its rate in Hz. */
uint64_t dp_tsc(void);
uint64_t dp_tsc_hz(void);

#endif /* DP_H */
