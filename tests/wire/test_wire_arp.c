/* Criterion tests for the IPv4 header, ARP and ICMP echo codec: exact bytes, round trips, every reason, truncation
 * at every byte, random bytes; and that a routed UET frame (TTL 254) is accepted. */
#include "wire.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const uint8_t mac_a[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 };
static const uint8_t mac_b[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };
static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

/* xorshift64*: the tests' own deterministic stream. */
static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1DULL;
}

static struct wire_arp mk_arp(uint16_t op)
{
	struct wire_arp a;

	memset(&a, 0, sizeof(a));
	a.op = op;
	memcpy(a.eth_dst, op == WIRE_ARP_REQUEST ? bcast : mac_b, 6);
	memcpy(a.eth_src, mac_a, 6);
	memcpy(a.sha, mac_a, 6);
	a.spa = 0x0a580001; /* 10.88.0.1 */
	if (op == WIRE_ARP_REPLY)
		memcpy(a.tha, mac_b, 6);
	a.tpa = 0x0a5800fe; /* 10.88.0.254 */
	return a;
}

/* Decode from an exact-size heap copy, so ASan sees a read past the end. */
static int arp_copy(const uint8_t *buf, size_t len, struct wire_arp *out)
{
	uint8_t *c = malloc(len ? len : 1);

	cr_assert_not_null(c);
	memcpy(c, buf, len);
	int r = wire_arp_decode(c, len, out);
	free(c);
	return r;
}

static int icmp_copy(const uint8_t *buf, size_t len, struct wire_icmp *out)
{
	uint8_t *c = malloc(len ? len : 1);
	struct wire_icmp m;

	cr_assert_not_null(c);
	memcpy(c, buf, len);
	int r = wire_icmp_decode(c, len, &m);
	if (out != NULL) {
		*out = m;
		out->data = NULL; /* it pointed into the copy */
	}
	free(c);
	return r;
}

/* ---- ARP ---- */

Test(wire_arp, request_bytes)
{
	/* An ARP request as tcpdump shows one: who-has 10.88.0.254 tell 10.88.0.1, padded to 60 bytes. */
	static const uint8_t want[60] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06,
		0x00, 0x01, 0x08, 0x00, 0x06, 0x04, 0x00, 0x01,
		0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x0a, 0x58, 0x00, 0x01,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0a, 0x58, 0x00, 0xfe,
	};
	struct wire_arp a = mk_arp(WIRE_ARP_REQUEST);
	uint8_t buf[64];

	memset(buf, 0xee, sizeof(buf));
	cr_assert_eq(wire_arp_encode(&a, buf, sizeof(buf)), WIRE_ETH_MIN_FRAME);
	cr_assert_arr_eq(buf, want, sizeof(want));
	cr_assert_eq(buf[60], 0xee, "nothing written past 60 bytes");
}

Test(wire_arp, round_trip_request_and_reply)
{
	for (uint16_t op = WIRE_ARP_REQUEST; op <= WIRE_ARP_REPLY; op++) {
		struct wire_arp a = mk_arp(op), b;
		uint8_t buf[60];

		cr_assert_eq(wire_arp_encode(&a, buf, sizeof(buf)), 60);
		cr_assert_eq(arp_copy(buf, sizeof(buf), &b), WIRE_R_OK);
		cr_assert_eq(b.op, op);
		cr_assert_arr_eq(b.eth_dst, a.eth_dst, 6);
		cr_assert_arr_eq(b.eth_src, a.eth_src, 6);
		cr_assert_arr_eq(b.sha, a.sha, 6);
		cr_assert_arr_eq(b.tha, a.tha, 6);
		cr_assert_eq(b.spa, a.spa);
		cr_assert_eq(b.tpa, a.tpa);
		/* unpadded (as the kernel hands a locally made one to a packet socket) */
		cr_assert_eq(arp_copy(buf, WIRE_ETH_LEN + WIRE_ARP_LEN, &b), WIRE_R_OK);
	}
}

Test(wire_arp, encode_enospc)
{
	struct wire_arp a = mk_arp(WIRE_ARP_REQUEST);
	uint8_t buf[60];

	cr_assert_eq(wire_arp_encode(&a, buf, 59), -ENOSPC);
}

Test(wire_arp, every_reason)
{
	struct wire_arp a = mk_arp(WIRE_ARP_REQUEST), b;
	uint8_t f[60], g[60];

	wire_arp_encode(&a, f, sizeof(f));
	cr_assert_eq(arp_copy(f, 13, &b), WIRE_R_SHORT_ETH);
	memcpy(g, f, 60);
	g[13] = 0x00; /* 0x0800: IPv4 */
	cr_assert_eq(arp_copy(g, 60, &b), WIRE_R_NOT_ARP);
	cr_assert_eq(arp_copy(f, 41, &b), WIRE_R_SHORT_ARP);
	static const size_t field[] = { 15, 17, 18, 19, 21 }; /* htype, ptype, hlen, plen, op */
	for (size_t i = 0; i < sizeof(field) / sizeof(field[0]); i++) {
		memcpy(g, f, 60);
		g[field[i]] ^= 0x04;
		cr_assert_eq(arp_copy(g, 60, &b), WIRE_R_BAD_ARP, "field at %zu", field[i]);
	}
	memcpy(g, f, 60);
	g[21] = 3; /* RARP request */
	cr_assert_eq(arp_copy(g, 60, &b), WIRE_R_BAD_ARP);
}

Test(wire_arp, truncate_every_byte)
{
	struct wire_arp a = mk_arp(WIRE_ARP_REPLY), b;
	uint8_t f[60];

	wire_arp_encode(&a, f, sizeof(f));
	for (size_t cut = 0; cut <= 60; cut++) {
		int r = arp_copy(f, cut, &b);
		int want = cut < WIRE_ETH_LEN ? WIRE_R_SHORT_ETH : cut < 42 ? WIRE_R_SHORT_ARP : WIRE_R_OK;
		cr_assert_eq(r, want, "cut %zu: %s", cut, wire_reason_str(r));
	}
}

/* ---- ICMP ---- */

static struct wire_icmp mk_echo(const uint8_t *data, size_t n)
{
	struct wire_icmp m;

	memset(&m, 0, sizeof(m));
	memcpy(m.dst_mac, mac_a, 6);
	memcpy(m.src_mac, mac_b, 6);
	m.src_ip = 0x0a5800fe;
	m.dst_ip = 0x0a580001;
	m.ttl = 64;
	m.type = WIRE_ICMP_ECHO_REQUEST;
	m.id = 0x1234;
	m.seq = 7;
	m.data = data;
	m.data_len = n;
	return m;
}

Test(wire_icmp, echo_bytes)
{
	/* An echo request with 4 bytes of data: a 46-byte frame padded to 60; checksums worked out by RFC 1071. */
	static const uint8_t want[60] = {
		0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x52, 0x54, 0x00, 0x12, 0x34, 0x56, 0x08, 0x00,
		0x45, 0x00, 0x00, 0x20, 0x00, 0x00, 0x40, 0x00, 0x40, 0x01, 0x25, 0x2f,
		0x0a, 0x58, 0x00, 0xfe, 0x0a, 0x58, 0x00, 0x01,
		0x08, 0x00, 0xe1, 0xbe, 0x12, 0x34, 0x00, 0x07, 0x01, 0x02, 0x03, 0x04,
	};
	static const uint8_t data[4] = { 1, 2, 3, 4 };
	struct wire_icmp m = mk_echo(data, sizeof(data));
	uint8_t buf[64];

	cr_assert_eq(wire_icmp_encode(&m, buf, sizeof(buf)), 60);
	cr_assert_arr_eq(buf, want, sizeof(want));
	cr_assert_eq(wire_csum(buf + 14, 20), 0);
	cr_assert_eq(wire_csum(buf + 34, 12), 0);
}

Test(wire_icmp, round_trip_sizes_and_reply_in_place)
{
	static uint8_t data[WIRE_MAX_FRAME], buf[WIRE_MAX_FRAME];
	static const size_t sizes[] = { 0, 1, 17, 18, 56, 1472, WIRE_MAX_FRAME - 42 };

	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 7);
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		struct wire_icmp m = mk_echo(data, sizes[k]), q;
		int n = wire_icmp_encode(&m, buf, sizeof(buf));

		cr_assert_eq(n, (int)(sizes[k] + 42 < 60 ? 60 : sizes[k] + 42), "size %zu", sizes[k]);
		cr_assert_eq(wire_icmp_decode(buf, (size_t)n, &q), WIRE_R_OK, "size %zu", sizes[k]);
		cr_assert_eq(q.type, WIRE_ICMP_ECHO_REQUEST);
		cr_assert_eq(q.id, 0x1234);
		cr_assert_eq(q.seq, 7);
		cr_assert_eq(q.ttl, 64);
		cr_assert_eq(q.src_ip, m.src_ip);
		cr_assert_eq(q.dst_ip, m.dst_ip);
		cr_assert_eq(q.data_len, sizes[k]);
		cr_assert(sizes[k] == 0 || memcmp(q.data, data, sizes[k]) == 0);
		/* the reply built over its own request, as a responder may: the data stays */
		q.type = WIRE_ICMP_ECHO_REPLY;
		q.src_ip = m.dst_ip;
		q.dst_ip = m.src_ip;
		cr_assert_eq(wire_icmp_encode(&q, buf, sizeof(buf)), n);
		cr_assert_eq(wire_icmp_decode(buf, (size_t)n, &q), WIRE_R_OK);
		cr_assert_eq(q.type, WIRE_ICMP_ECHO_REPLY);
		cr_assert(sizes[k] == 0 || memcmp(q.data, data, sizes[k]) == 0);
	}
}

Test(wire_icmp, encode_limits)
{
	static uint8_t data[WIRE_MAX_FRAME], buf[WIRE_MAX_FRAME];
	struct wire_icmp m = mk_echo(data, WIRE_MAX_FRAME - 41);

	cr_assert_eq(wire_icmp_encode(&m, buf, sizeof(buf)), -EINVAL);
	m.data_len = 100;
	cr_assert_eq(wire_icmp_encode(&m, buf, 141), -ENOSPC);
	cr_assert_eq(wire_icmp_encode(&m, buf, 142), 142);
}

Test(wire_icmp, every_reason)
{
	static const uint8_t data[8] = { 0 };
	struct wire_icmp m = mk_echo(data, sizeof(data)), q;
	uint8_t f[60], g[60];
	int n = wire_icmp_encode(&m, f, sizeof(f));

	cr_assert_eq(n, 60);
	cr_assert_eq(icmp_copy(f, 60, &q), WIRE_R_OK, "padding after the datagram is allowed");
	cr_assert_eq(icmp_copy(f, 10, &q), WIRE_R_SHORT_ETH);
	memcpy(g, f, 60);
	g[12] = 0x86, g[13] = 0xdd;
	cr_assert_eq(icmp_copy(g, 60, &q), WIRE_R_NOT_IPV4);
	memcpy(g, f, 60);
	g[23] = WIRE_IPPROTO_UDP;
	g[24] = g[25] = 0;
	uint16_t c = wire_csum(g + 14, 20);
	g[24] = (uint8_t)(c >> 8), g[25] = (uint8_t)c;
	cr_assert_eq(icmp_copy(g, 60, &q), WIRE_R_NOT_ICMP);
	memcpy(g, f, 60);
	g[24] ^= 1;
	cr_assert_eq(icmp_copy(g, 60, &q), WIRE_R_BAD_IP_CSUM);
	memcpy(g, f, 60);
	g[45] ^= 0x10; /* a data byte: the ICMP checksum no longer fits */
	cr_assert_eq(icmp_copy(g, 60, &q), WIRE_R_BAD_ICMP_CSUM);
	/* an IP datagram of 27 bytes: 7 of ICMP */
	memcpy(g, f, 60);
	g[17] = 27;
	g[24] = g[25] = 0;
	c = wire_csum(g + 14, 20);
	g[24] = (uint8_t)(c >> 8), g[25] = (uint8_t)c;
	cr_assert_eq(icmp_copy(g, 60, &q), WIRE_R_SHORT_ICMP);
}

Test(wire_icmp, other_types_decode)
{
	/* port unreachable (type 3 code 3), as a kernel answers a UET frame to a port nobody listens on */
	static const uint8_t quoted[28] = { 0x45 };
	struct wire_icmp m = mk_echo(quoted, sizeof(quoted)), q;
	uint8_t f[128];

	m.type = 3;
	m.code = 3;
	m.id = 0;
	m.seq = 1500;
	int n = wire_icmp_encode(&m, f, sizeof(f));
	cr_assert_eq(wire_icmp_decode(f, (size_t)n, &q), WIRE_R_OK);
	cr_assert_eq(q.type, 3);
	cr_assert_eq(q.code, 3);
	cr_assert_eq(q.seq, 1500);
}

Test(wire_icmp, truncate_every_byte)
{
	static const uint8_t data[56] = { 9, 8, 7 };
	struct wire_icmp m = mk_echo(data, sizeof(data)), q;
	uint8_t f[128];
	int n = wire_icmp_encode(&m, f, sizeof(f));

	cr_assert_eq(n, 98);
	for (int cut = 0; cut < n; cut++)
		cr_assert_neq(icmp_copy(f, (size_t)cut, &q), WIRE_R_OK, "cut %d", cut);
	cr_assert_eq(icmp_copy(f, (size_t)n, &q), WIRE_R_OK);
}

/* ---- IPv4 header, TTL ---- */

Test(wire_ipv4, any_protocol_and_payload_bounds)
{
	static const uint8_t data[10] = { 0 };
	struct wire_icmp m = mk_echo(data, sizeof(data));
	struct wire_ipv4 ip;
	uint8_t f[64];
	int n = wire_icmp_encode(&m, f, sizeof(f));

	f[23] = 132; /* SCTP: the header decoder does not care */
	f[24] = f[25] = 0;
	uint16_t c = wire_csum(f + 14, 20);
	f[24] = (uint8_t)(c >> 8), f[25] = (uint8_t)c;
	cr_assert_eq(wire_ipv4_decode(f, (size_t)n, &ip), WIRE_R_OK);
	cr_assert_eq(ip.proto, 132);
	cr_assert_eq(ip.l4_off, 34);
	cr_assert_eq(ip.l4_len, 18);
	cr_assert_eq(ip.dst_ip, 0x0a580001);
	cr_assert_arr_eq(ip.dst_mac, mac_a, 6);
	cr_assert_arr_eq(ip.src_mac, mac_b, 6);
	for (size_t cut = 0; cut < 52; cut++)
		cr_assert_neq(wire_ipv4_decode(f, cut, &ip), WIRE_R_OK, "cut %zu", cut);
}

Test(wire_ipv4, routed_uet_frame_ttl_accepted)
{
	/* A UET ACK as a Linux router forwards it: TTL 255 - 1, checksum recomputed. */
	struct wire_pkt p, q;
	uint8_t f[128];

	memset(&p, 0, sizeof(p));
	p.kind = WIRE_KIND_ACK;
	memcpy(p.dst_mac, mac_a, 6);
	memcpy(p.src_mac, mac_b, 6);
	p.src_ip = 0x0a020001;
	p.dst_ip = 0x0a010001;
	p.dport = WIRE_UDP_PORT_UET;
	p.pds.type = WIRE_PDS_ACK_CC;
	for (unsigned ttl = 1; ttl <= 255; ttl++) {
		p.ttl = (uint8_t)ttl;
		int n = wire_encode(&p, f, sizeof(f));
		cr_assert_eq(wire_decode(f, (size_t)n, WIRE_UDP_PORT_UET, &q), WIRE_R_OK, "ttl %u", ttl);
		cr_assert_eq(q.ttl, ttl);
	}
	p.ttl = 254;
	cr_assert_eq(wire_encode(&p, f, sizeof(f)), 74);
	cr_assert_eq(f[22], 254);
}

/* wire_decode_rx() of @p f, and wire_ipv4_decode() then wire_decode_ipv4() of it: the same reason, the same
 * descriptor and checksum finding when it is taken. Returns the reason. */
static int same_as_one_decode(const uint8_t *f, size_t n, const struct wire_rx_cfg *cfg)
{
	struct wire_pkt whole, split;
	struct wire_rx_info iw = { 0xff }, is = { 0xee };
	struct wire_ipv4 ip;
	int a = wire_decode_rx(f, n, cfg, &whole, &iw), b = wire_ipv4_decode(f, n, &ip);

	if (b == WIRE_R_OK)
		b = wire_decode_ipv4(f, n, &ip, cfg, &split, &is);
	cr_assert_eq(a, b, "%zu bytes: %s, in two steps %s", n, wire_reason_key(a), wire_reason_key(b));
	if (a == WIRE_R_OK) {
		cr_assert_arr_eq(&whole, &split, sizeof(whole), "%zu bytes", n);
		cr_assert_eq(iw.udp_csum, is.udp_csum, "%zu bytes", n);
	}
	return a;
}

Test(wire_ipv4, decode_on_from_the_header_is_wire_decode)
{
	static const uint8_t data[8] = { 0 };
	const struct wire_rx_cfg crc = { .uet_port = WIRE_UDP_PORT_UET, .crc = true },
				 plain = { .uet_port = WIRE_UDP_PORT_UET };
	struct wire_icmp m = mk_echo(data, sizeof(data));
	struct wire_ipv4 ip;
	struct wire_pkt p, q;
	uint8_t f[512];
	int n;

	memset(&p, 0, sizeof(p));
	p.kind = WIRE_KIND_DATA;
	memcpy(p.dst_mac, mac_a, 6);
	memcpy(p.src_mac, mac_b, 6);
	p.src_ip = 0x0a020001;
	p.dst_ip = 0x0a010001;
	p.ttl = 254;
	p.dscp = 26;
	p.ecn = 2;
	p.dport = WIRE_UDP_PORT_UET;
	p.pds.type = WIRE_PDS_RUD_CC_REQ;
	p.ses.opcode = WIRE_SES_OP_WRITE;
	p.ses.request_length = 300;
	p.payload_len = 300;
	/* a data frame with and without its CRC trailer, an ACK, one natively encapsulated, each cut at every byte */
	for (int k = 0; k < 4; k++) {
		struct wire_pkt e = p;

		if (k == 1)
			e.encap |= WIRE_ENCAP_CRC;
		if (k == 2) {
			e.kind = WIRE_KIND_ACK;
			e.pds.type = WIRE_PDS_ACK_CC;
			e.payload_len = 0;
			memset(&e.ses, 0, sizeof(e.ses));
		}
		if (k == 3)
			e.encap |= WIRE_ENCAP_NATIVE;
		n = wire_encode(&e, f, sizeof(f));
		cr_assert_gt(n, 0, "frame %d", k);
		for (int cut = 0; cut <= n; cut++)
			same_as_one_decode(f, (size_t)cut, k == 1 ? &crc : &plain);
	}
	n = wire_encode(&p, f, sizeof(f));
	cr_assert_eq(wire_decode_cfg(f, (size_t)n, &plain, &q), WIRE_R_OK);
	/* a UDP checksum that is wrong: refused when verified, taken unverified under rx_csum: ignore, either way */
	f[40] = 0x12, f[41] = 0x34;
	cr_assert_eq(same_as_one_decode(f, (size_t)n, &plain), WIRE_R_BAD_UDP_CSUM);
	const struct wire_rx_cfg ignore = { .uet_port = WIRE_UDP_PORT_UET, .udp_csum = WIRE_CSUM_IGNORE };
	cr_assert_eq(same_as_one_decode(f, (size_t)n, &ignore), WIRE_R_OK);
	/* ICMP is NOT_UDP to the UET decoder, as it is to wire_decode() */
	n = wire_icmp_encode(&m, f, sizeof(f));
	same_as_one_decode(f, (size_t)n, &plain);
	cr_assert_eq(wire_ipv4_decode(f, (size_t)n, &ip), WIRE_R_OK);
	cr_assert_eq(wire_decode_ipv4(f, (size_t)n, &ip, &plain, &q, NULL), WIRE_R_NOT_UDP);
	/* the decode of a longer frame does not fit this one */
	cr_assert_eq(wire_decode_ipv4(f, ip.l4_off + ip.l4_len - 1, &ip, &plain, &q, NULL), WIRE_R_BAD_IP_LEN);
}

Test(wire_icmp, decode_on_from_the_header_is_wire_icmp_decode)
{
	static const uint8_t data[56] = { 9, 8, 7 };
	struct wire_icmp m = mk_echo(data, sizeof(data)), a, b;
	struct wire_ipv4 ip;
	uint8_t f[128];
	int n = wire_icmp_encode(&m, f, sizeof(f));

	for (int cut = 0; cut <= n; cut++) {
		int ra = wire_icmp_decode(f, (size_t)cut, &a), rb = wire_ipv4_decode(f, (size_t)cut, &ip);

		if (rb == WIRE_R_OK)
			rb = wire_icmp_decode_ipv4(f, (size_t)cut, &ip, &b);
		cr_assert_eq(ra, rb, "cut %d", cut);
		if (ra == WIRE_R_OK)
			cr_assert_arr_eq(&a, &b, sizeof(a), "cut %d", cut);
	}
	cr_assert_eq(wire_ipv4_decode(f, (size_t)n, &ip), WIRE_R_OK);
	cr_assert_eq(wire_icmp_decode_ipv4(f, 40, &ip, &b), WIRE_R_BAD_IP_LEN);
}

Test(wire_arp, random_bytes_never_crash)
{
	uint64_t s = 0xa5a5a5a5deadbeefULL;
	uint8_t f[200];
	size_t ok_arp = 0; /* random bytes with a right ICMP checksum are too rare to count on */

	for (int i = 0; i < 100000; i++) {
		size_t n = (size_t)(rng_next(&s) % sizeof(f));
		struct wire_arp a;
		struct wire_icmp m;

		for (size_t k = 0; k < n; k++)
			f[k] = (uint8_t)rng_next(&s);
		if (n >= 22 && i % 2) { /* dressed as ARP for Ethernet/IPv4 half the time */
			memcpy(f + 12, (const uint8_t[]){ 0x08, 0x06, 0, 1, 8, 0, 6, 4, 0, (uint8_t)(1 + i % 4) }, 10);
		}
		int r = arp_copy(f, n, &a);
		cr_assert(r >= 0 && r < WIRE_R_COUNT);
		ok_arp += r == WIRE_R_OK;
		r = icmp_copy(f, n, &m);
		cr_assert(r >= 0 && r < WIRE_R_COUNT);
	}
	cr_assert_gt(ok_arp, 0);
}

Test(wire_arp, reason_keys)
{
	static const int mine[] = { WIRE_R_NOT_ARP, WIRE_R_SHORT_ARP, WIRE_R_BAD_ARP, WIRE_R_NOT_ICMP,
				    WIRE_R_SHORT_ICMP, WIRE_R_BAD_ICMP_CSUM };
	static const char *const keys[] = { "not_arp", "short_arp", "bad_arp", "not_icmp", "short_icmp",
					    "bad_icmp_csum" };

	for (size_t i = 0; i < sizeof(mine) / sizeof(mine[0]); i++)
		cr_assert_str_eq(wire_reason_key(mine[i]), keys[i]);
}
