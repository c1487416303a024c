/* Capture points: nanosecond pcap files written from link taps, stamped in emulated time. */
#ifndef CAP_H
#define CAP_H

#include <stddef.h>
#include <stdint.h>

#include "emu_time.h"
#include "wire.h"

struct cap_pcap;

/**
 * Create @p path as a nanosecond-resolution pcap (magic 0xa1b23c4d, LINKTYPE_ETHERNET, snaplen 65535).
 * Returns NULL with errno set (from fopen).
 */
struct cap_pcap *cap_pcap_open(const char *path);

/** Flush and close. Accepts NULL. Returns 0, or -errno of the first write that failed (-ENOSPC on a full disk);
 *  the file is then cut after its last whole record, so it stays readable. */
int cap_pcap_close(struct cap_pcap *c);

/**
 * A net_tap_fn for capture points: encodes @p pkt (as wire_encode) and writes it to the struct cap_pcap @p arg,
 * stamped with @p now, the time its first bit enters the link.
 */
void cap_tap(void *arg, uint32_t dir, const struct wire_pkt *pkt, emu_ps_t now);

#endif /* CAP_H */
