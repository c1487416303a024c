/* The binding of a real port to the models: one ops table of burst calls that every kind of port implements, so
 * the model side of a port (its hosts' IPv4 side, or a switch port) is the same code whatever moves the frames.
 * docs/realtime.md, "A frame's path", says who implements it and how a frame crosses it. */
#ifndef NET_BIND_H
#define NET_BIND_H

#include <stddef.h>
#include <stdint.h>

#include "emu_time.h"

/*
 * Frames per burst (DPDK's usual 32, DP_BURST), and bursts a port is drained of per poll pass at most: 16 x 32 =
 * a full 512-frame RX ring, so a pass that comes after the loop lost the CPU for a while takes everything that
 * arrived meanwhile.
 */
#define NET_BIND_BURST 32
#define NET_BIND_DRAIN_BURSTS 16

/** A frame received from a port: its bytes (no FCS), the emulated time it arrives at, and which buffer of the
 *  port's last burst holds it (for keep; the port's own index, 0 for a port without keep). */
struct net_rx_frame {
	const uint8_t *data;
	uint32_t len;
	uint32_t held;
	emu_ps_t t;
};

/** A frame for a port: @c len header bytes at @c hdr, then the first @c payload bytes of the payload pattern
 *  (wire_payload_fill()), which the port adds (a zero-copy port attaches them, never copies). */
struct net_tx_frame {
	const uint8_t *hdr;
	uint32_t len;
	uint32_t payload;
};

/**
 * What a port does, called by the lcore that polls it only. @c port is the implementation's own handle.
 *
 * rx_burst: up to @p n frames into @p frames, stamped with emulated time @p now (a port that replays a recording
 * gives the times it recorded). Returns how many; fewer than @p n means the port had no more at the time (or
 * dropped one it could not hand up, counted by the port), so a caller draining it stops there. The bytes stay
 * valid until the port's next rx_burst or flush.
 *
 * tx_burst: stage the @p n frames (their header bytes are copied, not kept); a port sends a full burst at once
 * and what is left at flush. Returns how many were staged; the rest were dropped, counted by the port.
 *
 * flush: send what is staged, and give back the last received burst. Once per poll pass, so the batching delay of
 * a frame is bounded by one pass.
 *
 * Zero-copy forwarding (docs/realtime.md, "Real devices across the fabric"); NULL in a port that copies:
 *
 * keep: take frame @p f of the last rx_burst over from the port: its buffer is no longer given back at the next
 * rx_burst or flush. Returns the buffer's handle, and in *@p bytes the frame's bytes, writable, valid until the
 * handle goes back (tx_buf or buf_free of a port of the same ops); NULL when the port cannot hand it over (a
 * frame it made whole from pieces, a shared buffer): then copy it, as a port without keep.
 *
 * tx_buf: stage kept buffer @p buf, its first @p len bytes a frame, as tx_burst would (no copy); the port owns
 * the buffer from here, whether it sends it or drops it (counted). Returns 1 when staged, 0 when dropped.
 *
 * buf_free: give kept buffer @p buf back (its packet was dropped, or the run ended). Any lcore that owns it.
 */
struct net_bind_ops {
	unsigned (*rx_burst)(void *port, struct net_rx_frame *frames, unsigned n, emu_ps_t now);
	unsigned (*tx_burst)(void *port, const struct net_tx_frame *frames, unsigned n);
	void (*flush)(void *port);
	void *(*keep)(void *port, const struct net_rx_frame *f, uint8_t **bytes);
	unsigned (*tx_buf)(void *port, void *buf, uint32_t len);
	void (*buf_free)(void *port, void *buf);
};

/** A bound port: its ops and its handle. Embedded by its owner (struct ctl_ext), filled by the implementation. */
struct net_bind {
	const struct net_bind_ops *ops;
	void *port;
};

#endif /* NET_BIND_H */
