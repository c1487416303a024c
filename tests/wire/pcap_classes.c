/*
 * Decode every frame of a pcap with wire_decode_cfg() and print one line per frame:
 *   <frame> <reason key> <kind> <PDS class key> <SES class key> <extension> <encap flags>
 * ("-" where a field does not apply). Used by tests/wire/test_uet_vectors.sh to check an independent generator's
 * vectors against the decoder without a DPDK port.
 * Usage: pcap_classes FILE.pcap [--crc] [--crc-refprov] [--port N] (--crc-refprov: the trailer covers from the IPv4
 * source address, CrcCoverage refprov)
 */
#include "wire.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PCAP_MAGIC_US 0xa1b2c3d4u
#define PCAP_MAGIC_NS 0xa1b23c4du
#define PCAP_HDR_LEN 24
#define PCAP_REC_LEN 16

static uint32_t le32(const uint8_t *b)
{
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static const char *kind_name(uint8_t k)
{
	static const char *const names[] = { "none", "data", "ack", "nack", "cp", "trimmed", "pfc", "cm", "uet" };

	return k < sizeof(names) / sizeof(names[0]) ? names[k] : "unknown";
}

static const char *ext_name(int e)
{
	static const char *const names[] = { "-", "ext_atomic", "ext_compare_swap", "ext_rendezvous" };

	return e >= 0 && e < 4 ? names[e] : "unknown";
}

/* One decoded frame's line. */
static void print_frame(unsigned n, const uint8_t *f, size_t len, const struct wire_rx_cfg *cfg)
{
	struct wire_pkt p;
	int r = wire_decode_cfg(f, len, cfg, &p);

	if (r != WIRE_R_OK) {
		printf("%u %s - - - - -\n", n, wire_reason_key(r));
		return;
	}
	int pc = wire_pds_class(&p), sc = wire_ses_class(&p);
	int ext = p.kind == WIRE_KIND_TRIMMED || p.trim_len != 0 ? WIRE_EXT_NONE : wire_ses_ext(p.pds.next_hdr, &p.ses);

	printf("%u ok %s %s %s %s %u\n", n, kind_name(p.kind), pc >= 0 ? wire_pds_class_key(pc) : "-",
	       sc >= 0 ? wire_ses_class_key(sc) : "-", ext_name(ext), p.encap);
}

int main(int argc, char **argv)
{
	struct wire_rx_cfg cfg = { .uet_port = WIRE_UDP_PORT_UET, .crc = false };
	static uint8_t frame[65536];
	uint8_t h[PCAP_HDR_LEN];
	FILE *f;

	if (argc < 2) {
		fprintf(stderr, "usage: pcap_classes FILE.pcap [--crc] [--crc-refprov] [--port N]\n");
		return 2;
	}
	for (int i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--crc") == 0)
			cfg.crc = true;
		else if (strcmp(argv[i], "--crc-refprov") == 0)
			cfg.crc = cfg.crc_ip = true;
		else if (strcmp(argv[i], "--port") == 0 && i + 1 < argc)
			cfg.uet_port = (uint16_t)strtoul(argv[++i], NULL, 10);
	}
	f = fopen(argv[1], "rb");
	if (f == NULL || fread(h, 1, sizeof(h), f) != sizeof(h) ||
	    (le32(h) != PCAP_MAGIC_US && le32(h) != PCAP_MAGIC_NS)) {
		fprintf(stderr, "pcap_classes: %s is not a little-endian pcap\n", argv[1]);
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
			fprintf(stderr, "pcap_classes: frame %u cut short\n", n);
			fclose(f);
			return 2;
		}
		print_frame(n, frame, caplen, &cfg);
	}
	fclose(f);
	return 0;
}
