/* Writes a pcap of one RoCE frame of every kind the Scala RoCE NIC sends (WRITE FIRST / MIDDLE / LAST / ONLY, SEND
 * ONLY, ACK, NAK, CNP; with RETH also an empty WRITE ONLY), encoded by wire_encode(), for tshark to decode
 * (test_roce_tshark.sh).
 * Usage: roce_pcap OUT.pcap [icrc] [reth] */
#include "wire.h"

#include <stdio.h>
#include <string.h>

static void put32(FILE *f, uint32_t v)
{
	fwrite(&v, 4, 1, f); /* the pcap header in host order: readers take either */
}

static void put16(FILE *f, uint16_t v)
{
	fwrite(&v, 2, 1, f);
}

static struct wire_pkt mk(uint8_t op, uint32_t payload, uint8_t encap, uint32_t i)
{
	static const uint8_t a[6] = { 0x02, 0, 0, 0, 0, 1 }, b[6] = { 0x02, 0, 0, 0, 0, 2 };
	struct wire_pkt p;

	memset(&p, 0, sizeof(p));
	p.kind = WIRE_KIND_ROCE;
	memcpy(p.src_mac, a, 6);
	memcpy(p.dst_mac, b, 6);
	p.src_ip = 0x0a000001;
	p.dst_ip = 0x0a000002;
	p.ttl = 64;
	p.ip_id = (uint16_t)i;
	p.sport = 0xc000 | (uint16_t)i;
	p.dport = WIRE_UDP_PORT_ROCE;
	p.encap = encap;
	p.dscp = wire_roce_is_data(op) ? 0 : 8;
	p.ecn = wire_roce_is_data(op) ? WIRE_ECN_ECT0 : WIRE_ECN_NOT_ECT;
	p.roce.opcode = op;
	p.roce.pkey = WIRE_ROCE_PKEY;
	p.roce.dqpn = 0x11;
	p.roce.psn = 100 + i;
	p.roce.se = op == WIRE_ROCE_WRITE_LAST || op == WIRE_ROCE_WRITE_ONLY || op == WIRE_ROCE_SEND_ONLY;
	p.roce.ack_req = p.roce.se;
	p.roce.va = 0x1000;
	p.roce.rkey = 0x42;
	p.roce.dma_len = 250000;
	p.roce.syndrome = i == 6 ? WIRE_AETH_NAK_SEQ : WIRE_AETH_ACK;
	p.roce.msn = 1;
	p.payload_len = payload;
	return p;
}

int main(int argc, char **argv)
{
	static const uint8_t ops[] = { WIRE_ROCE_WRITE_FIRST, WIRE_ROCE_WRITE_MIDDLE, WIRE_ROCE_WRITE_LAST,
				       WIRE_ROCE_WRITE_ONLY, WIRE_ROCE_SEND_ONLY, WIRE_ROCE_ACK, WIRE_ROCE_ACK,
				       WIRE_ROCE_CNP, WIRE_ROCE_WRITE_ONLY };
	static const uint32_t len[] = { 4096, 4096, 143, 100, 61, 0, 0, 0, 0 }; /* 143, 61: padded with the ICRC */
	static uint8_t buf[WIRE_MAX_FRAME];
	uint8_t encap = 0;
	FILE *f;

	if (argc < 2)
		return 2;
	for (int i = 2; i < argc; i++)
		encap |= strcmp(argv[i], "icrc") == 0 ? WIRE_ENCAP_ICRC : strcmp(argv[i], "reth") == 0 ? WIRE_ENCAP_RETH : 0;
	f = fopen(argv[1], "wb");
	if (f == NULL)
		return 1;
	put32(f, 0xa1b2c3d4);
	put16(f, 2);
	put16(f, 4);
	put32(f, 0);
	put32(f, 0);
	put32(f, 65535);
	put32(f, 1);
	/* the last, an empty WRITE ONLY, needs its RETH: without one Wireshark reads none and calls it malformed */
	uint32_t n_ops = (uint32_t)sizeof(ops) - ((encap & WIRE_ENCAP_RETH) ? 0 : 1);

	for (uint32_t i = 0; i < n_ops; i++) {
		struct wire_pkt p = mk(ops[i], len[i], encap, i);
		int n = wire_encode(&p, buf, sizeof(buf));

		if (n < 0) {
			fprintf(stderr, "encode %u: %d\n", i, n);
			return 1;
		}
		put32(f, i);
		put32(f, 0);
		put32(f, (uint32_t)n);
		put32(f, (uint32_t)n);
		fwrite(buf, 1, (size_t)n, f);
	}
	return fclose(f) == 0 ? 0 : 1;
}
