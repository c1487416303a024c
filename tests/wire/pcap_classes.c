/*
 * Decode every frame of a pcap with wire_decode_cfg() and print one line per frame:
 *   <frame> <reason key> <kind> <PDS class key> <SES class key> <extension> <encap flags>
 * ("-" where a field does not apply). Used by tests/wire/test_uet_vectors.sh to check an independent generator's
 * vectors against the decoder without a DPDK port.
 * Usage: pcap_classes FILE.pcap [--crc] [--crc-refprov] [--port N] (--crc-refprov: the trailer covers from the IPv4
 * source address, CrcCoverage refprov)
 */
#include "tfx_pcap.h"
#include "wire.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


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

static void each(void *ctx, unsigned n, const uint8_t *f, size_t len)
{
	print_frame(n, f, len, ctx);
}

int main(int argc, char **argv)
{
	struct wire_rx_cfg cfg = { .uet_port = WIRE_UDP_PORT_UET, .crc = false };

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
	return tfx_pcap_each("pcap_classes", argv[1], each, &cfg);
}
