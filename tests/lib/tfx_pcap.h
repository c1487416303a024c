/* The test tools' pcap reader: every frame of a little-endian pcap file, in order, to a callback. */
#ifndef TFX_PCAP_H
#define TFX_PCAP_H

#include <stddef.h>
#include <stdint.h>

/** Frame @p n (from 1) of the file, @p len bytes at @p frame (valid for the call only); @p ctx the caller's. */
typedef void (*tfx_pcap_fn)(void *ctx, unsigned n, const uint8_t *frame, size_t len);

/**
 * Hand every frame of the pcap @p path (microsecond or nanosecond, little-endian; frames up to 65,536 bytes) to
 * @p fn. Returns 0 when the file was read to its end; 2 (a tool's exit code) with "TOOL: PATH is not a
 * little-endian pcap" or "TOOL: frame N cut short" on stderr, @p tool naming the caller.
 */
int tfx_pcap_each(const char *tool, const char *path, tfx_pcap_fn fn, void *ctx);

#endif /* TFX_PCAP_H */
