/* The test tools' pcap reader (tfx_pcap.h). */
#include "tfx_pcap.h"

#include <stdio.h>

#define PCAP_MAGIC_US 0xa1b2c3d4u
#define PCAP_MAGIC_NS 0xa1b23c4du
#define PCAP_HDR_LEN 24 /* the file header */
#define PCAP_REC_LEN 16 /* each frame's record header: caplen at offset 8 */

static uint32_t le32(const uint8_t *b)
{
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

int tfx_pcap_each(const char *tool, const char *path, tfx_pcap_fn fn, void *ctx)
{
	static uint8_t frame[65536];
	uint8_t h[PCAP_HDR_LEN];
	FILE *f = fopen(path, "rb");

	if (f == NULL || fread(h, 1, sizeof(h), f) != sizeof(h) ||
	    (le32(h) != PCAP_MAGIC_US && le32(h) != PCAP_MAGIC_NS)) {
		fprintf(stderr, "%s: %s is not a little-endian pcap\n", tool, path);
		if (f)
			fclose(f);
		return 2;
	}
	for (unsigned n = 1;; n++) {
		uint8_t rec[PCAP_REC_LEN];

		if (fread(rec, 1, sizeof(rec), f) != sizeof(rec))
			break;
		uint32_t caplen = le32(rec + 8);
		if (caplen > sizeof(frame) || fread(frame, 1, caplen, f) != caplen) {
			fprintf(stderr, "%s: frame %u cut short\n", tool, n);
			fclose(f);
			return 2;
		}
		fn(ctx, n, frame, caplen);
	}
	fclose(f);
	return 0;
}
