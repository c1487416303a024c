/* Criterion tests for the RoCEv2 frames (wire_roce.c): the transport page's sizes, round trips, the ICRC, every
 * truncation. */
#include "wire.h"

#include <criterion/criterion.h>
#include <string.h>

static struct wire_pkt mk(uint8_t op, uint32_t payload, uint8_t encap)
{
	struct wire_pkt p;

	memset(&p, 0, sizeof(p));
	p.kind = WIRE_KIND_ROCE;
	p.src_ip = 0x0a000001;
	p.dst_ip = 0x0a000002;
	p.ttl = WIRE_TTL;
	p.sport = 0xc123;
	p.dport = WIRE_UDP_PORT_ROCE;
	p.encap = encap;
	p.dscp = 8;
	p.ecn = WIRE_ECN_ECT0;
	p.roce.opcode = op;
	p.roce.pkey = WIRE_ROCE_PKEY;
	p.roce.dqpn = 0xabcdef;
	p.roce.psn = 0x123456;
	p.roce.se = 1;
	p.roce.ack_req = 1;
	p.roce.syndrome = op == WIRE_ROCE_ACK ? WIRE_AETH_NAK_SEQ : 0;
	p.roce.msn = op == WIRE_ROCE_ACK ? 77 : 0;
	if (encap & WIRE_ENCAP_RETH && (op == WIRE_ROCE_WRITE_FIRST || op == WIRE_ROCE_WRITE_ONLY)) {
		p.roce.va = 0x1122334455667788ULL;
		p.roce.rkey = 0x99;
		p.roce.dma_len = 1048576;
	}
	p.payload_len = wire_roce_is_data(op) ? payload : 0;
	return p;
}

/* roce-nic transport page, Worked example: packet sizes at MSS 4096. */
Test(wire_roce, sizes_of_the_transport_page)
{
	struct wire_pkt d = mk(WIRE_ROCE_WRITE_MIDDLE, 4096, 0), a = mk(WIRE_ROCE_ACK, 0, 0),
			c = mk(WIRE_ROCE_CNP, 0, 0), m = mk(WIRE_ROCE_WRITE_FIRST, 4125, 0);

	cr_expect_eq(wire_wire_len(&d), 4154);
	cr_expect_eq(wire_wire_len(&d) - WIRE_ETH_LEN - WIRE_FCS_LEN, 4136); /* charged to the receiver's pool */
	cr_expect_eq(wire_wire_len(&a), 126);
	cr_expect_eq(wire_wire_len(&c), 122);
	cr_expect_eq(wire_wire_len(&m), 4183); /* the largest MSS the platform's 4,184-byte Mtu allows */
	cr_expect_eq(wire_roce_data_overhead(0), 58);
	cr_expect_eq(wire_roce_data_overhead(WIRE_ENCAP_ICRC), 62);
	d.encap = WIRE_ENCAP_ICRC;
	cr_expect_eq(wire_wire_len(&d), 4158);
	m.encap = WIRE_ENCAP_RETH;
	cr_expect_eq(wire_wire_len(&m), 4199);
}

static void round_trip(uint8_t op, uint32_t payload, uint8_t encap)
{
	struct wire_pkt p = mk(op, payload, encap), q;
	struct wire_rx_cfg cfg = { .uet_port = WIRE_UDP_PORT_UET, .roce_icrc = (encap & WIRE_ENCAP_ICRC) != 0,
				   .roce_reth = (encap & WIRE_ENCAP_RETH) != 0 };
	static uint8_t buf[WIRE_MAX_FRAME];
	int n = wire_encode(&p, buf, sizeof(buf));

	cr_assert_eq((size_t)n, wire_frame_len(&p));
	cr_assert_eq(wire_decode_cfg(buf, (size_t)n, &cfg, &q), WIRE_R_OK, "op %u encap %u", op, encap);
	cr_expect_eq(q.kind, WIRE_KIND_ROCE);
	cr_expect_eq(q.dscp, 8);
	cr_expect_eq(q.ecn, WIRE_ECN_ECT0);
	cr_expect_eq(q.dport, WIRE_UDP_PORT_ROCE);
	cr_expect_eq(q.encap, encap);
	cr_expect_eq(memcmp(&q.roce, &p.roce, sizeof(p.roce)), 0, "op %u encap %u", op, encap);
	cr_expect_eq(q.payload_len, p.payload_len);
	/* every truncation is refused with a reason, never read past */
	for (int cut = 0; cut < n; cut++)
		cr_expect_neq(wire_decode_cfg(buf, (size_t)cut, &cfg, &q), WIRE_R_OK, "cut %d of %d", cut, n);
}

Test(wire_roce, every_opcode_round_trips_and_every_truncation_is_refused)
{
	static const uint8_t ops[] = { WIRE_ROCE_SEND_FIRST, WIRE_ROCE_SEND_MIDDLE, WIRE_ROCE_SEND_LAST,
				       WIRE_ROCE_SEND_ONLY, WIRE_ROCE_WRITE_FIRST, WIRE_ROCE_WRITE_MIDDLE,
				       WIRE_ROCE_WRITE_LAST, WIRE_ROCE_WRITE_ONLY, WIRE_ROCE_ACK, WIRE_ROCE_CNP };

	for (unsigned i = 0; i < sizeof(ops); i++)
		for (uint8_t e = 0; e < 4; e++)
			round_trip(ops[i], 300, (uint8_t)(((e & 1) ? WIRE_ENCAP_ICRC : 0) | ((e & 2) ? WIRE_ENCAP_RETH : 0)));
}

/* With the ICRC a data payload is padded with zeros to a multiple of 4 and BTH PadCnt says how many (IBA 9.2), as a
 * RoCE device expects; without it (the pages' sizes) nothing is padded. */
Test(wire_roce, icrc_frames_pad_the_payload_to_a_multiple_of_4)
{
	static uint8_t buf[WIRE_MAX_FRAME];
	struct wire_rx_cfg cfg = { .uet_port = WIRE_UDP_PORT_UET, .roce_icrc = true };
	struct wire_pkt q;

	for (uint32_t len = 1000; len < 1004; len++) {
		struct wire_pkt p = mk(WIRE_ROCE_WRITE_LAST, len, WIRE_ENCAP_ICRC), u = mk(WIRE_ROCE_WRITE_LAST, len, 0);
		uint32_t pad = (4 - len % 4) % 4;
		int n = wire_encode(&p, buf, sizeof(buf));

		cr_expect_eq(wire_wire_len(&u), 58 + len, "no pad without the ICRC");
		cr_assert_eq(n, (int)(42 + 12 + len + pad + 4), "len %u", len);
		cr_expect_eq(wire_wire_len(&p), 58 + len + pad + 4);
		cr_expect_eq((buf[42 + 1] >> 4) & 3, pad, "PadCnt of %u", len);
		for (uint32_t i = 0; i < pad; i++)
			cr_expect_eq(buf[42 + 12 + len + i], 0, "pad byte %u of %u", i, len);
		cr_expect_eq(wire_roce_icrc(buf, (size_t)n), (uint32_t)buf[n - 4] | (uint32_t)buf[n - 3] << 8 |
			     (uint32_t)buf[n - 2] << 16 | (uint32_t)buf[n - 1] << 24, "the ICRC covers the pad");
		cr_assert_eq(wire_decode_cfg(buf, (size_t)n, &cfg, &q), WIRE_R_OK);
		cr_expect_eq(q.payload_len, len, "the decoder takes the pad off");
	}
	round_trip(WIRE_ROCE_WRITE_ONLY, 1001, WIRE_ENCAP_ICRC | WIRE_ENCAP_RETH);
}

Test(wire_roce, icrc_covers_the_invariant_fields_only)
{
	struct wire_pkt p = mk(WIRE_ROCE_WRITE_LAST, 144, WIRE_ENCAP_ICRC), q;
	struct wire_rx_cfg cfg = { .uet_port = WIRE_UDP_PORT_UET, .roce_icrc = true };
	uint8_t buf[512];
	int n = wire_encode(&p, buf, sizeof(buf));

	cr_assert_gt(n, 0);
	/* a switch may rewrite DSCP/ECN and TTL (and the IPv4 checksum with them): the ICRC still holds */
	buf[14 + 1] = (uint8_t)(buf[14 + 1] | 3); /* CE */
	buf[14 + 8]--;
	buf[14 + 10] = buf[14 + 11] = 0;
	uint32_t icrc = (uint32_t)buf[n - 4] | (uint32_t)buf[n - 3] << 8 | (uint32_t)buf[n - 2] << 16 |
			(uint32_t)buf[n - 1] << 24;
	cr_expect_eq(wire_roce_icrc(buf, (size_t)n) == icrc, 1);
	n = wire_encode(&p, buf, sizeof(buf));
	for (int i = 42; i < n - 4; i += 7) { /* any byte of the BTH or payload flipped (42 + 4 is not one): refused */
		buf[i] ^= 0x01;
		cr_expect_eq(wire_decode_cfg(buf, (size_t)n, &cfg, &q), WIRE_R_BAD_ICRC, "byte %d", i);
		buf[i] ^= 0x01;
	}
	cr_expect_eq(wire_decode_cfg(buf, (size_t)n, &cfg, &q), WIRE_R_OK);
	buf[42 + 4] ^= 0xff; /* the BTH's reserved byte is masked out: the ICRC holds, and the decoder ignores it */
	cr_expect_eq(wire_decode_cfg(buf, (size_t)n, &cfg, &q), WIRE_R_OK);
}

Test(wire_roce, bad_opcode_and_bad_control_length_are_refused)
{
	struct wire_pkt p = mk(WIRE_ROCE_ACK, 0, 0), q;
	struct wire_rx_cfg cfg = { .uet_port = WIRE_UDP_PORT_UET };
	uint8_t buf[256];
	int n = wire_encode(&p, buf, sizeof(buf));

	buf[42] = 0x0c; /* RDMA READ request: not modelled */
	cr_expect_eq(wire_decode_cfg(buf, (size_t)n, &cfg, &q), WIRE_R_BAD_ROCE_OPCODE);
	/* an ACK's 68 bytes after the BTH read as a CNP, and a CNP's 64 read as an ACK: neither is its 64 B of padding */
	buf[42] = WIRE_ROCE_CNP;
	cr_expect_eq(wire_decode_cfg(buf, (size_t)n, &cfg, &q), WIRE_R_BAD_ROCE_LEN);
	p = mk(WIRE_ROCE_CNP, 0, 0);
	n = wire_encode(&p, buf, sizeof(buf));
	cr_assert_eq(n, 118);
	buf[42] = WIRE_ROCE_ACK;
	cr_expect_eq(wire_decode_cfg(buf, (size_t)n, &cfg, &q), WIRE_R_BAD_ROCE_LEN);
	p.roce.opcode = 0x0c;
	cr_expect_lt(wire_encode(&p, buf, sizeof(buf)), 0);
}
