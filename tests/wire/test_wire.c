/* Criterion tests for the wire encoder and decoder: round trips, sizes, exact bytes, every reason, truncation, fuzz. */
#include "wire.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define PORT WIRE_UDP_PORT_UET
/* Byte offsets of the headers inside a frame (spec 1.1 stacking: Eth 14 / IPv4 20 / UDP 8 / PDS / SES). */
#define OFF_IP 14
#define OFF_UDP 34
#define OFF_PDS 42
#define OFF_SES 58
#define OFF_PAYLOAD 102

/* ---- helpers ---- */

/* xorshift64*: the tests' own deterministic stream (no rand()). */
static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1DULL;
}

static void base_pkt(struct wire_pkt *p, uint8_t kind)
{
	static const uint8_t dst[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x02 };
	static const uint8_t src[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 };

	memset(p, 0, sizeof(*p));
	p->kind = kind;
	memcpy(p->dst_mac, dst, 6);
	memcpy(p->src_mac, src, 6);
	p->src_ip = 0x0a000001; /* 10.0.0.1 */
	p->dst_ip = 0x0a000102; /* 10.0.1.2 */
	p->dscp = 46;
	p->ecn = WIRE_ECN_ECT1;
	p->ttl = WIRE_TTL;
	p->ip_id = 0x1234;
	p->sport = 0xbeef;
	p->dport = PORT;
	p->pds.psn = 0x89abcdef;
	p->pds.spdcid = 0x0102;
	p->pds.dpdcid = 0xfedc;
}

/* A data packet of @p payload bytes; without SOM it carries payload_length and message_offset instead. */
static struct wire_pkt mk_data(uint32_t payload, uint8_t ses_flags)
{
	struct wire_pkt p;

	base_pkt(&p, WIRE_KIND_DATA);
	p.dscp = 8;
	p.pds.type = WIRE_PDS_RUD_CC_REQ;
	p.pds.next_hdr = WIRE_NH_REQ_STD;
	p.pds.flags = WIRE_REQ_F_AR;
	p.pds.psn_off = -5;
	p.pds.ccc_id = 0x7e;
	p.pds.credit_target = 0xabcdef;
	p.ses.opcode = WIRE_SES_OP_WRITE;
	p.ses.ver = 1;
	p.ses.flags = ses_flags;
	p.ses.message_id = 0x4242;
	p.ses.ri_generation = 0x99;
	p.ses.job_id = 0x123456;
	p.ses.pid_on_fep = 0xabc;
	p.ses.resource_index = 0x321;
	p.ses.buffer_offset = 0x0102030405060708ULL;
	p.ses.initiator = 0xcafef00d;
	p.ses.memory_key = 0x1122334455667788ULL;
	if (ses_flags & WIRE_SES_F_SOM) {
		p.ses.header_data = 0xa1a2a3a4a5a6a7a8ULL;
	} else {
		p.ses.payload_length = (uint16_t)payload;
		p.ses.message_offset = 8192;
	}
	p.ses.request_length = 1u << 20;
	p.payload_len = payload;
	return p;
}

static struct wire_pkt mk_trimmed(void)
{
	struct wire_pkt p = mk_data(0, WIRE_SES_F_SOM);

	p.kind = WIRE_KIND_TRIMMED;
	p.dscp = 16;
	memset(&p.ses, 0, sizeof(p.ses));
	return p;
}

static struct wire_pkt mk_ack(bool probe)
{
	struct wire_pkt p;

	base_pkt(&p, WIRE_KIND_ACK);
	p.pds.type = WIRE_PDS_ACK_CC;
	if (probe) {
		p.pds.flags = WIRE_ACK_F_P;
		p.pds.probe_opaque = 0x5a5a;
	} else {
		p.pds.flags = WIRE_ACK_F_M | WIRE_ACK_F_RETX;
		p.pds.psn_off = -300;
	}
	p.pds.cc_type = 0;
	p.pds.cc_flags = 0x5;
	p.pds.mpr = 128;
	p.pds.sack_psn_off = 7;
	p.pds.sack_bitmap = 0x8000000000000001ULL;
	p.pds.service_time = 0xfffe;
	p.pds.rc = 1;
	p.pds.rcv_cwnd_pend = 0x55;
	p.pds.rcvd_bytes = 0xfedcba;
	p.pds.ooo_count = 0x0102;
	return p;
}

static struct wire_pkt mk_nack(void)
{
	struct wire_pkt p;

	base_pkt(&p, WIRE_KIND_NACK);
	p.pds.type = WIRE_PDS_NACK;
	p.pds.flags = WIRE_NACK_F_M;
	p.pds.nack_code = WIRE_NACK_TRIMMED_LASTHOP;
	p.pds.vendor_code = 0xee;
	p.pds.payload = 0x01020304;
	return p;
}

static struct wire_pkt mk_cp_probe(void)
{
	struct wire_pkt p;

	base_pkt(&p, WIRE_KIND_CP);
	p.pds.type = WIRE_PDS_CP;
	p.pds.next_hdr = WIRE_CTL_PROBE;
	p.pds.flags = WIRE_CP_F_AR;
	p.pds.probe_opaque = 0x7777;
	p.pds.payload = 0x89abcde0;
	return p;
}

/* A connection-management message of @p type (the RDMA application's setup; UDP WIRE_UDP_PORT_CM). */
static struct wire_pkt mk_cm(uint8_t type)
{
	struct wire_pkt p;

	base_pkt(&p, WIRE_KIND_CM);
	p.ecn = WIRE_ECN_NOT_ECT;
	p.dport = WIRE_UDP_PORT_CM;
	p.pds.psn = 0;
	p.pds.spdcid = 0;
	p.pds.dpdcid = 0;
	p.cm.type = type;
	p.cm.connection = 0x0203;
	p.cm.local_id = 0x11223344;
	p.cm.remote_id = type == WIRE_CM_REQ ? 0 : 0x55667788;
	p.cm.qpn = type == WIRE_CM_RTU ? 0x00000102 : 0;
	return p;
}

static void assert_pkt_eq(const struct wire_pkt *a, const struct wire_pkt *b)
{
#define EQ(f) cr_assert_eq(a->f, b->f, #f ": %llu != %llu", (unsigned long long)a->f, (unsigned long long)b->f)
	EQ(kind);
	cr_assert_arr_eq(a->dst_mac, b->dst_mac, 6);
	cr_assert_arr_eq(a->src_mac, b->src_mac, 6);
	EQ(src_ip); EQ(dst_ip); EQ(dscp); EQ(ecn); EQ(ttl); EQ(ip_id); EQ(sport); EQ(dport);
	EQ(pds.type); EQ(pds.next_hdr); EQ(pds.flags); EQ(pds.psn_off); EQ(pds.probe_opaque); EQ(pds.psn);
	EQ(pds.spdcid); EQ(pds.dpdcid); EQ(pds.ccc_id); EQ(pds.credit_target);
	EQ(pds.cc_type); EQ(pds.cc_flags); EQ(pds.mpr); EQ(pds.sack_psn_off); EQ(pds.sack_bitmap);
	EQ(pds.service_time); EQ(pds.rc); EQ(pds.rcv_cwnd_pend); EQ(pds.rcvd_bytes); EQ(pds.ooo_count);
	EQ(pds.nack_code); EQ(pds.vendor_code); EQ(pds.payload);
	EQ(ses.opcode); EQ(ses.ver); EQ(ses.flags); EQ(ses.message_id); EQ(ses.ri_generation); EQ(ses.job_id);
	EQ(ses.pid_on_fep); EQ(ses.resource_index); EQ(ses.buffer_offset); EQ(ses.initiator);
	EQ(ses.memory_key); EQ(ses.header_data); EQ(ses.payload_length); EQ(ses.message_offset);
	EQ(ses.request_length);
	EQ(payload_len);
	EQ(cm.type); EQ(cm.connection); EQ(cm.local_id); EQ(cm.remote_id); EQ(cm.qpn);
#undef EQ
}

static size_t enc(const struct wire_pkt *p, uint8_t *buf, size_t cap)
{
	int n = wire_encode(p, buf, cap);

	cr_assert_gt(n, 0, "wire_encode: %d", n);
	cr_assert_eq((size_t)n, wire_frame_len(p));
	return (size_t)n;
}

static void round_trip(const struct wire_pkt *p)
{
	static uint8_t buf[WIRE_MAX_FRAME];
	size_t n = enc(p, buf, sizeof(buf));
	struct wire_pkt q;
	int r = wire_decode(buf, n, PORT, &q);

	cr_assert_eq(r, WIRE_R_OK, "decode: %s", wire_reason_str(r));
	assert_pkt_eq(p, &q);
}

/* Decode the first @p len bytes of @p buf from an exact-size heap copy, so ASan sees any read past the end. */
static int decode_copy(const uint8_t *buf, size_t len, struct wire_pkt *out)
{
	uint8_t *c = malloc(len ? len : 1);

	cr_assert_not_null(c);
	if (len)
		memcpy(c, buf, len);
	int r = wire_decode(len ? c : NULL, len, PORT, out);

	free(c);
	return r;
}

/* Make the IP datagram @p dgram bytes long: rewrite the IPv4 total length, UDP length and IP checksum. */
static void set_dgram(uint8_t *f, size_t dgram)
{
	f[OFF_IP + 2] = (uint8_t)(dgram >> 8);
	f[OFF_IP + 3] = (uint8_t)dgram;
	f[OFF_UDP + 4] = (uint8_t)((dgram - 20) >> 8);
	f[OFF_UDP + 5] = (uint8_t)(dgram - 20);
	f[OFF_IP + 10] = 0;
	f[OFF_IP + 11] = 0;
	uint16_t c = wire_csum(f + OFF_IP, 20);

	f[OFF_IP + 10] = (uint8_t)(c >> 8);
	f[OFF_IP + 11] = (uint8_t)c;
}

/* Fix only the IP checksum after editing the header. */
static void fix_csum(uint8_t *f)
{
	size_t dgram = (size_t)f[OFF_IP + 2] << 8 | f[OFF_IP + 3];
	uint8_t udp_len[2] = { f[OFF_UDP + 4], f[OFF_UDP + 5] };

	set_dgram(f, dgram);
	f[OFF_UDP + 4] = udp_len[0];
	f[OFF_UDP + 5] = udp_len[1];
}

static int decode_edit(const struct wire_pkt *p, void (*edit)(uint8_t *f, size_t *len))
{
	static uint8_t buf[WIRE_MAX_FRAME + 64];
	size_t n = enc(p, buf, sizeof(buf));
	struct wire_pkt q;

	edit(buf, &n);
	return decode_copy(buf, n, &q);
}

/* ---- round trips ---- */

Test(wire_wire, round_trip_data_som_eom)
{
	struct wire_pkt p = mk_data(4096, WIRE_SES_F_SOM | WIRE_SES_F_EOM);

	round_trip(&p);
}

Test(wire_wire, round_trip_data_middle_segment)
{
	struct wire_pkt p = mk_data(1000, 0);

	cr_assert_eq(p.ses.payload_length, 1000);
	round_trip(&p);
}

Test(wire_wire, round_trip_data_rod_zero_payload)
{
	struct wire_pkt p = mk_data(0, WIRE_SES_F_SOM | WIRE_SES_F_EOM);

	p.pds.type = WIRE_PDS_ROD_CC_REQ;
	p.pds.flags = WIRE_REQ_F_SYN | WIRE_REQ_F_RETX;
	round_trip(&p);
}

Test(wire_wire, round_trip_ack_without_probe)
{
	struct wire_pkt p = mk_ack(false);

	round_trip(&p);
}

Test(wire_wire, round_trip_ack_with_probe)
{
	struct wire_pkt p = mk_ack(true);

	round_trip(&p);
}

Test(wire_wire, round_trip_nack)
{
	struct wire_pkt p = mk_nack();

	round_trip(&p);
}

Test(wire_wire, round_trip_cp_probe)
{
	struct wire_pkt p = mk_cp_probe();

	round_trip(&p);
}

Test(wire_wire, round_trip_trimmed)
{
	struct wire_pkt p = mk_trimmed();

	round_trip(&p);
}

Test(wire_wire, round_trip_cm_every_type)
{
	for (uint8_t t = WIRE_CM_REQ; t <= WIRE_CM_RTU; t++) {
		struct wire_pkt p = mk_cm(t);

		round_trip(&p);
	}
}

/* 14 + 20 + 8 + 20 = 62 B in memory and in captures, 66 B on the wire; the header's bytes exactly. */
Test(wire_wire, bytes_cm)
{
	struct wire_pkt p = mk_cm(WIRE_CM_RTU);
	uint8_t f[128];
	static const uint8_t want[WIRE_CM_LEN] = { 3, 1, 0x02, 0x03, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
						   0, 0, 0x01, 0x02, 0, 0, 0, 0 };

	cr_assert_eq(wire_frame_len(&p), 62);
	cr_assert_eq(wire_wire_len(&p), 66);
	cr_assert_eq(wire_ip_len(&p), 48);
	cr_assert_eq(enc(&p, f, sizeof(f)), 62);
	cr_assert_eq(f[OFF_UDP + 2] << 8 | f[OFF_UDP + 3], 4794, "UDP destination port 4794");
	cr_assert_eq(f[OFF_UDP + 4] << 8 | f[OFF_UDP + 5], 28, "UDP length 8 + 20");
	cr_assert_arr_eq(f + OFF_UDP + 8, want, WIRE_CM_LEN);
}

Test(wire_wire, round_trip_max_payload)
{
	struct wire_pkt p = mk_data(WIRE_MAX_FRAME - 102, WIRE_SES_F_SOM);

	round_trip(&p);
}

/* ---- sizes (wire.h: data = payload + 106 on the wire, ACK_CC 78, NACK / CP / trimmed 62) ---- */

Test(wire_wire, sizes_data_4096)
{
	struct wire_pkt p = mk_data(4096, WIRE_SES_F_SOM);

	cr_assert_eq(wire_wire_len(&p), 4202);
	cr_assert_eq(wire_frame_len(&p), 4198);
	cr_assert_eq(wire_ip_len(&p), 4184);
	cr_assert_eq(wire_ip_len(&p), 4096 + WIRE_DATA_IP_OVERHEAD);
}

Test(wire_wire, sizes_control_kinds)
{
	struct wire_pkt a = mk_ack(false), n = mk_nack(), c = mk_cp_probe(), t = mk_trimmed();

	cr_assert_eq(wire_wire_len(&a), 78);
	cr_assert_eq(wire_frame_len(&a), 74);
	cr_assert_eq(wire_ip_len(&a), 60);
	cr_assert_eq(wire_wire_len(&n), 62);
	cr_assert_eq(wire_wire_len(&c), 62);
	cr_assert_eq(wire_wire_len(&t), 62);
	cr_assert_eq(wire_ip_len(&t), WIRE_TRIMMED_IP_LEN);
	cr_assert_eq(wire_ip_len(&n), 44);
}

Test(wire_wire, sizes_unknown_kind_zero)
{
	struct wire_pkt p;

	base_pkt(&p, WIRE_KIND_NONE);
	cr_assert_eq(wire_frame_len(&p), 0);
	cr_assert_eq(wire_ip_len(&p), 0);
}

/* ---- encoder results ---- */

Test(wire_wire, encode_einval_unknown_kind)
{
	uint8_t buf[128];
	struct wire_pkt p;

	base_pkt(&p, WIRE_KIND_NONE);
	cr_assert_eq(wire_encode(&p, buf, sizeof(buf)), -EINVAL);
	p.kind = 99;
	cr_assert_eq(wire_encode(&p, buf, sizeof(buf)), -EINVAL);
	cr_assert_eq(wire_encode_hdrs(&p, buf, sizeof(buf)), -EINVAL);
}

Test(wire_wire, encode_einval_payload_too_big)
{
	static uint8_t buf[WIRE_MAX_FRAME + 16];
	struct wire_pkt p = mk_data(WIRE_MAX_FRAME - 101, WIRE_SES_F_SOM);

	cr_assert_eq(wire_encode(&p, buf, sizeof(buf)), -EINVAL);
	p.payload_len = UINT32_MAX;
	cr_assert_eq(wire_encode(&p, buf, sizeof(buf)), -EINVAL);
	cr_assert_eq(wire_encode_hdrs(&p, buf, sizeof(buf)), -EINVAL);
	p.payload_len = WIRE_MAX_FRAME - 102;
	cr_assert_eq(wire_encode(&p, buf, sizeof(buf)), WIRE_MAX_FRAME);
}

Test(wire_wire, encode_enospc_short_cap)
{
	uint8_t buf[256];
	struct wire_pkt p = mk_data(100, WIRE_SES_F_SOM);
	struct wire_pkt a = mk_ack(false);

	cr_assert_eq(wire_encode(&p, buf, 201), -ENOSPC);
	cr_assert_eq(wire_encode(&p, buf, 202), 202);
	cr_assert_eq(wire_encode(&a, buf, 73), -ENOSPC);
	cr_assert_eq(wire_encode(&a, buf, 74), 74);
	cr_assert_eq(wire_encode_hdrs(&p, buf, 101), -ENOSPC);
	cr_assert_eq(wire_encode_hdrs(&p, buf, 102), 102);
}

Test(wire_wire, encode_hdrs_matches_encode_prefix)
{
	static uint8_t full[WIRE_MAX_FRAME], hdrs[WIRE_MAX_FRAME];
	struct wire_pkt p = mk_data(4096, 0);

	memset(hdrs, 0xcc, sizeof(hdrs));
	size_t n = enc(&p, full, sizeof(full));

	cr_assert_eq(wire_encode_hdrs(&p, hdrs, OFF_PAYLOAD), OFF_PAYLOAD);
	cr_assert_arr_eq(full, hdrs, OFF_PAYLOAD);
	cr_assert_eq(hdrs[OFF_PAYLOAD], 0xcc, "wrote past the headers");
	for (size_t i = OFF_PAYLOAD; i < n; i++)
		cr_assert_eq(full[i], wire_payload_byte(i - OFF_PAYLOAD));

	struct wire_pkt a = mk_ack(true);

	cr_assert_eq(wire_encode_hdrs(&a, hdrs, sizeof(hdrs)), 74);
}


/* One prefilled buffer reused for every kind, short frames between data frames: each frame as wire_encode gives it. */
Test(wire_wire, encode_prefilled_matches_encode_every_kind)
{
	static uint8_t pre[WIRE_MAX_FRAME], full[WIRE_MAX_FRAME];
	struct wire_pkt pfc = { .kind = WIRE_KIND_PFC, .src_mac = { 2, 0, 0, 0, 0, 9 }, .pfc_enable = 0x01 };
	const struct wire_pkt seq[] = {
		mk_data(4096, WIRE_SES_F_SOM), mk_ack(false), mk_data(WIRE_MAX_FRAME - OFF_PAYLOAD, 0), mk_trimmed(),
		mk_data(1, 0), mk_nack(), mk_data(300, WIRE_SES_F_EOM), mk_cp_probe(), mk_data(0, 0),
		mk_cm(WIRE_CM_REQ), pfc, mk_data(4096, 0), mk_ack(true), mk_data(WIRE_MAX_FRAME - OFF_PAYLOAD, 0),
	};

	wire_prefill_payload(pre, sizeof(pre));
	for (size_t k = 0; k < sizeof(seq) / sizeof(seq[0]); k++) {
		int n = wire_encode_prefilled(&seq[k], pre, sizeof(pre));

		cr_assert_eq(n, wire_encode(&seq[k], full, sizeof(full)), "frame %zu", k);
		cr_assert_arr_eq(pre, full, (size_t)n, "frame %zu differs from wire_encode", k);
	}
	struct wire_pkt big = mk_data(WIRE_MAX_FRAME - OFF_PAYLOAD, 0);

	cr_assert_eq(wire_encode_prefilled(&big, pre, WIRE_MAX_FRAME - 1), -ENOSPC);
	big.payload_len++;
	cr_assert_eq(wire_encode_prefilled(&big, pre, sizeof(pre)), -EINVAL);
}
Test(wire_wire, encode_forces_request_type_and_next_hdr)
{
	uint8_t buf[256];
	struct wire_pkt p = mk_data(8, WIRE_SES_F_SOM);

	p.pds.type = 0;
	p.pds.next_hdr = WIRE_NH_NONE;
	enc(&p, buf, sizeof(buf));
	cr_assert_eq(buf[OFF_PDS] >> 3, WIRE_PDS_RUD_CC_REQ);
	cr_assert_eq((buf[OFF_PDS] << 8 | buf[OFF_PDS + 1]) >> 7 & 0xf, WIRE_NH_REQ_STD);

	struct wire_pkt a = mk_ack(false);

	a.pds.type = 0;
	a.pds.next_hdr = 9;
	enc(&a, buf, sizeof(buf));
	cr_assert_eq(buf[OFF_PDS], WIRE_PDS_ACK_CC << 3, "ACK_CC type, next_hdr 0");
}

/* ---- exact bytes (spec 1.2-1.4) ---- */

Test(wire_wire, bytes_data_headers)
{
	static uint8_t f[WIRE_MAX_FRAME];
	struct wire_pkt p = mk_data(4096, WIRE_SES_F_SOM | WIRE_SES_F_EOM);

	size_t n = enc(&p, f, sizeof(f));

	cr_assert_eq(n, 4198);
	/* Ethernet II */
	cr_assert_arr_eq(f, p.dst_mac, 6);
	cr_assert_arr_eq(f + 6, p.src_mac, 6);
	cr_assert_eq(f[12], 0x08);
	cr_assert_eq(f[13], 0x00);
	/* IPv4: 0x45, TOS = DSCP 8 << 2 | ECT(1), total 4184 = 0x1058, id, DF, TTL 255, UDP, checksum */
	const uint8_t ip[20] = { 0x45, (8 << 2) | 1, 0x10, 0x58, 0x12, 0x34, 0x40, 0x00, 255, 17,
				 f[OFF_IP + 10], f[OFF_IP + 11], 10, 0, 0, 1, 10, 0, 1, 2 };

	cr_assert_arr_eq(f + OFF_IP, ip, 20);
	cr_assert_eq(wire_csum(f + OFF_IP, 20), 0);
	/* UDP: sport = entropy 0xbeef, dport 4793 = 0x12b9, length 4164 = 0x1044, checksum 0 */
	const uint8_t udp[8] = { 0xbe, 0xef, 0x12, 0xb9, 0x10, 0x44, 0x00, 0x00 };

	cr_assert_arr_eq(f + OFF_UDP, udp, 8);
	/* PDS RUD_CC_REQ: 13 << 11 | 3 << 7 | AR 0x08 = 0x6988; clear_psn_offset -5 = 0xfffb; PSN; PDC ids;
	 * ccc_id 0x7e; credit_target 0xabcdef */
	const uint8_t pds[16] = { 0x69, 0x88, 0xff, 0xfb, 0x89, 0xab, 0xcd, 0xef,
				  0x01, 0x02, 0xfe, 0xdc, 0x7e, 0xab, 0xcd, 0xef };

	cr_assert_arr_eq(f + OFF_PDS, pds, 16);
	for (size_t i = 0; i < 4096; i++)
		cr_assert_eq(f[OFF_PAYLOAD + i], (uint8_t)i);
}

Test(wire_wire, bytes_ses_with_som)
{
	uint8_t f[256];
	struct wire_pkt p = mk_data(8, WIRE_SES_F_SOM | WIRE_SES_F_EOM);

	enc(&p, f, sizeof(f));
	const uint8_t ses[44] = {
		0x01, 0x43, 0x42, 0x42, 0x99, 0x12, 0x34, 0x56,		/* WRITE; ver 1 | EOM SOM; msg id; RI; job */
		0x0a, 0xbc, 0x03, 0x21,					/* pid_on_fep 0xabc; resource_index 0x321 */
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,		/* buffer_offset */
		0xca, 0xfe, 0xf0, 0x0d,					/* initiator */
		0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,		/* memory_key */
		0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8,		/* header_data */
		0x00, 0x10, 0x00, 0x00,					/* request_length 1 MiB */
	};

	cr_assert_arr_eq(f + OFF_SES, ses, 44);
}

Test(wire_wire, bytes_ses_without_som)
{
	uint8_t f[2048];
	struct wire_pkt p = mk_data(1000, WIRE_SES_F_EOM);

	enc(&p, f, sizeof(f));
	cr_assert_eq(f[OFF_SES + 1], 0x42);
	/* rsvd(18) + payload_length(14) = 1000 = 0x3e8, then message_offset 8192 */
	const uint8_t tail[8] = { 0x00, 0x00, 0x03, 0xe8, 0x00, 0x00, 0x20, 0x00 };

	cr_assert_arr_eq(f + OFF_SES + 32, tail, 8);
}

Test(wire_wire, bytes_ack_cc)
{
	uint8_t f[128];
	struct wire_pkt p = mk_ack(false);

	enc(&p, f, sizeof(f));
	/* 8 << 11 | M 0x20 | RETX 0x10 = 0x4030; ack_psn_offset -300 = 0xfed4 */
	const uint8_t pds[32] = {
		0x40, 0x30, 0xfe, 0xd4, 0x89, 0xab, 0xcd, 0xef, 0x01, 0x02, 0xfe, 0xdc,
		0x05, 128, 0x00, 0x07,						/* cc NSCC|5, MPR, sack off */
		0x80, 0, 0, 0, 0, 0, 0, 0x01,					/* sack_bitmap */
		0xff, 0xfe, 0x80 | 0x55, 0xfe, 0xdc, 0xba, 0x01, 0x02,		/* st, RC|pend, rcvd, ooo */
	};

	cr_assert_arr_eq(f + OFF_PDS, pds, 32);

	struct wire_pkt q = mk_ack(true);

	enc(&q, f, sizeof(f));
	cr_assert_eq(f[OFF_PDS + 1], WIRE_ACK_F_P);
	cr_assert_eq(f[OFF_PDS + 2], 0x5a, "probe_opaque replaces ack_psn_offset");
	cr_assert_eq(f[OFF_PDS + 3], 0x5a);
}

Test(wire_wire, bytes_nack_and_cp)
{
	uint8_t f[128];
	struct wire_pkt n = mk_nack(), c = mk_cp_probe();

	enc(&n, f, sizeof(f));
	const uint8_t nack[16] = { 0x50, 0x20, 0x02, 0xee, 0x89, 0xab, 0xcd, 0xef,
				   0x01, 0x02, 0xfe, 0xdc, 0x01, 0x02, 0x03, 0x04 };

	cr_assert_arr_eq(f + OFF_PDS, nack, 16);
	enc(&c, f, sizeof(f));
	/* 11 << 11 | PROBE 6 << 7 | AR 0x08 = 0x5b08 */
	const uint8_t cp[16] = { 0x5b, 0x08, 0x77, 0x77, 0x89, 0xab, 0xcd, 0xef,
				 0x01, 0x02, 0xfe, 0xdc, 0x89, 0xab, 0xcd, 0xe0 };

	cr_assert_arr_eq(f + OFF_PDS, cp, 16);
}

Test(wire_wire, bytes_fields_masked_to_width)
{
	uint8_t f[256];
	struct wire_pkt p = mk_data(0, 0xff), q;

	p.dscp = 0xff;
	p.ecn = 0xff;
	p.pds.flags = 0xff;
	p.pds.credit_target = 0xffffffff;
	p.ses.opcode = 0xff;
	p.ses.ver = 0xff;
	p.ses.job_id = 0xffffffff;
	p.ses.pid_on_fep = 0xffff;
	p.ses.resource_index = 0xffff;
	enc(&p, f, sizeof(f));
	cr_assert_eq(f[OFF_IP + 1], 0xff);
	cr_assert_eq(f[OFF_PDS] & 0x07, 0x01, "flags bled into next_hdr");
	cr_assert_eq(f[OFF_PDS + 12], p.pds.ccc_id, "credit_target bled into ccc_id");
	cr_assert_eq(f[OFF_SES + 4], p.ses.ri_generation, "job_id bled into RI generation");
	cr_assert_eq(f[OFF_SES + 8], 0x0f);
	cr_assert_eq(f[OFF_SES + 10], 0x0f);
	cr_assert_eq(wire_decode(f, wire_frame_len(&p), PORT, &q), WIRE_R_OK);
	cr_assert_eq(q.pds.credit_target, 0xffffff);
	cr_assert_eq(q.ses.job_id, 0xffffff);
	cr_assert_eq(q.ses.pid_on_fep, 0xfff);
	cr_assert_eq(q.ses.flags, 0x3f);
	cr_assert_eq(q.ses.ver, 3);

	struct wire_pkt a = mk_ack(false);

	a.pds.cc_type = 0xff;
	a.pds.cc_flags = 0xff;
	a.pds.rc = 0xff;
	a.pds.rcv_cwnd_pend = 0xff;
	a.pds.rcvd_bytes = 0xffffffff;
	enc(&a, f, sizeof(f));
	cr_assert_eq(f[OFF_PDS + 12], 0xff);
	cr_assert_eq(f[OFF_PDS + 26], 0xff);
	cr_assert_eq(f[OFF_PDS + 25], 0xfe, "rcvd_bytes or pend bled into service_time");
}

Test(wire_wire, decode_ignores_reserved_bits)
{
	uint8_t f[256];
	struct wire_pkt p = mk_data(16, WIRE_SES_F_EOM), q;

	enc(&p, f, sizeof(f));
	f[OFF_SES] |= 0xc0;	 /* rsvd above opcode */
	f[OFF_SES + 8] |= 0xf0;	 /* rsvd above pid_on_fep */
	f[OFF_SES + 10] |= 0xf0; /* rsvd above resource_index */
	f[OFF_SES + 32] = 0xff;	 /* rsvd above payload_length */
	f[OFF_SES + 33] = 0xff;
	f[OFF_SES + 34] |= 0xc0;
	cr_assert_eq(wire_decode(f, wire_frame_len(&p), PORT, &q), WIRE_R_OK);
	assert_pkt_eq(&p, &q);
}

/* ---- padding ---- */

Test(wire_wire, padding_after_datagram_accepted)
{
	struct wire_pkt all[] = { mk_nack(), mk_cp_probe(), mk_trimmed(), mk_ack(false) };

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		uint8_t f[128] = { 0 };
		struct wire_pkt q;
		size_t n = enc(&all[i], f, sizeof(f));
		size_t padded = n < 60 ? 60 : n + 6; /* Ethernet minimum 60 B without FCS */

		cr_assert_eq(decode_copy(f, padded, &q), WIRE_R_OK, "kind %zu", i);
		assert_pkt_eq(&all[i], &q); /* a padded trimmed packet stays TRIMMED */
	}
}

/* ---- one test per reason ---- */

static void cut_eth(uint8_t *f, size_t *n) { (void)f; *n = 13; }
static void set_ipv6_type(uint8_t *f, size_t *n) { (void)n; f[12] = 0x86; f[13] = 0xdd; }
static void cut_ip(uint8_t *f, size_t *n) { (void)f; *n = 33; }
static void set_ver6(uint8_t *f, size_t *n) { (void)n; f[OFF_IP] = 0x65; fix_csum(f); }
static void set_ihl6(uint8_t *f, size_t *n) { (void)n; f[OFF_IP] = 0x46; fix_csum(f); }
static void drop_last(uint8_t *f, size_t *n) { (void)f; *n -= 1; }
static void tot_len_19(uint8_t *f, size_t *n) { (void)n; f[OFF_IP + 2] = 0; f[OFF_IP + 3] = 19; fix_csum(f); }
static void bad_csum(uint8_t *f, size_t *n) { (void)n; f[OFF_IP + 11] ^= 1; }
static void set_mf(uint8_t *f, size_t *n) { (void)n; f[OFF_IP + 6] |= 0x20; fix_csum(f); }
static void set_frag_off(uint8_t *f, size_t *n) { (void)n; f[OFF_IP + 7] = 1; fix_csum(f); }
static void set_tcp(uint8_t *f, size_t *n) { (void)n; f[OFF_IP + 9] = 6; fix_csum(f); }
static void cut_udp(uint8_t *f, size_t *n) { *n = OFF_UDP + 7; set_dgram(f, 27); }
static void udp_len_plus1(uint8_t *f, size_t *n) { (void)n; f[OFF_UDP + 5] += 1; }
static void cut_prologue(uint8_t *f, size_t *n) { *n = OFF_PDS + 1; set_dgram(f, 29); }
static void cut_pds_1(uint8_t *f, size_t *n) { *n -= 1; set_dgram(f, *n - 14); }
static void set_type_0(uint8_t *f, size_t *n) { (void)n; f[OFF_PDS] &= 0x07; }
static void set_type_15(uint8_t *f, size_t *n) { (void)n; f[OFF_PDS] = (uint8_t)(15 << 3 | (f[OFF_PDS] & 7)); }
static void set_type_31(uint8_t *f, size_t *n) { (void)n; f[OFF_PDS] |= 0xf8; }
/* next_hdr: bits 10..8 in the low 3 bits of the first byte, bit 7 in the top bit of the second */
static void set_nh(uint8_t *f, unsigned nh) { f[OFF_PDS] = (uint8_t)((f[OFF_PDS] & 0xf8) | nh >> 1);
	f[OFF_PDS + 1] = (uint8_t)((f[OFF_PDS + 1] & 0x7f) | (nh & 1) << 7); }
static void set_nh_7(uint8_t *f, size_t *n) { (void)n; set_nh(f, 7); }
static void set_nh_15(uint8_t *f, size_t *n) { (void)n; set_nh(f, 15); }
static void set_nh_response(uint8_t *f, size_t *n) { (void)n; set_nh(f, WIRE_NH_RESPONSE); }
static void set_nh_small(uint8_t *f, size_t *n) { (void)n; set_nh(f, WIRE_NH_REQ_SMALL); }
static void set_nh_none(uint8_t *f, size_t *n) { f[OFF_PDS] &= 0xf8; f[OFF_PDS + 1] &= 0x7f; *n = 58; set_dgram(f, 44); }
static void cut_ses(uint8_t *f, size_t *n) { *n = OFF_PAYLOAD - 1; set_dgram(f, *n - 14); }
static void ses_len_plus1(uint8_t *f, size_t *n) { (void)n; f[OFF_SES + 35] += 1; }
static void add_byte(uint8_t *f, size_t *n) { f[*n] = 0; *n += 1; set_dgram(f, *n - 14); }

Test(wire_wire, reason_ok)
{
	struct wire_pkt p = mk_nack();
	uint8_t f[64];
	struct wire_pkt q;

	cr_assert_eq(decode_copy(f, enc(&p, f, sizeof(f)), &q), WIRE_R_OK);
	cr_assert_str_eq(wire_reason_str(WIRE_R_OK), "ok");
}

Test(wire_wire, reason_short_eth)
{
	struct wire_pkt p = mk_nack(), q;

	cr_assert_eq(decode_edit(&p, cut_eth), WIRE_R_SHORT_ETH);
	cr_assert_eq(decode_copy(NULL, 0, &q), WIRE_R_SHORT_ETH);
}

Test(wire_wire, reason_not_ipv4)
{
	struct wire_pkt p = mk_nack();

	cr_assert_eq(decode_edit(&p, set_ipv6_type), WIRE_R_NOT_IPV4);
}

Test(wire_wire, reason_short_ip)
{
	struct wire_pkt p = mk_nack();

	cr_assert_eq(decode_edit(&p, cut_ip), WIRE_R_SHORT_IP);
}

Test(wire_wire, reason_bad_ip_version)
{
	struct wire_pkt p = mk_nack();

	cr_assert_eq(decode_edit(&p, set_ver6), WIRE_R_BAD_IP_VERSION);
}

Test(wire_wire, reason_bad_ihl)
{
	struct wire_pkt p = mk_nack();

	cr_assert_eq(decode_edit(&p, set_ihl6), WIRE_R_BAD_IHL);
}

Test(wire_wire, reason_bad_ip_len)
{
	struct wire_pkt p = mk_nack();
	static uint8_t big[WIRE_MAX_FRAME + 64];
	struct wire_pkt d = mk_data(WIRE_MAX_FRAME - 102, WIRE_SES_F_SOM), q;

	cr_assert_eq(decode_edit(&p, drop_last), WIRE_R_BAD_IP_LEN);
	cr_assert_eq(decode_edit(&p, tot_len_19), WIRE_R_BAD_IP_LEN);
	/* One byte over WIRE_MAX_FRAME, with consistent lengths: refused, since it could not be re-encoded. */
	size_t n = enc(&d, big, sizeof(big));

	add_byte(big, &n);
	cr_assert_eq(decode_copy(big, n, &q), WIRE_R_BAD_IP_LEN);
}

Test(wire_wire, reason_bad_ip_csum)
{
	struct wire_pkt p = mk_nack();

	cr_assert_eq(decode_edit(&p, bad_csum), WIRE_R_BAD_IP_CSUM);
}

Test(wire_wire, reason_ip_fragment)
{
	struct wire_pkt p = mk_nack();

	cr_assert_eq(decode_edit(&p, set_mf), WIRE_R_IP_FRAGMENT);
	cr_assert_eq(decode_edit(&p, set_frag_off), WIRE_R_IP_FRAGMENT);
}

Test(wire_wire, reason_not_udp)
{
	struct wire_pkt p = mk_nack();

	cr_assert_eq(decode_edit(&p, set_tcp), WIRE_R_NOT_UDP);
}

Test(wire_wire, reason_short_udp)
{
	struct wire_pkt p = mk_nack();

	cr_assert_eq(decode_edit(&p, cut_udp), WIRE_R_SHORT_UDP);
}

Test(wire_wire, reason_bad_udp_len)
{
	struct wire_pkt p = mk_nack();

	cr_assert_eq(decode_edit(&p, udp_len_plus1), WIRE_R_BAD_UDP_LEN);
}

Test(wire_wire, reason_not_uet_port)
{
	struct wire_pkt p = mk_nack(), q;
	uint8_t f[64];
	size_t n = enc(&p, f, sizeof(f));

	cr_assert_eq(wire_decode(f, n, 49150, &q), WIRE_R_NOT_UET_PORT);
	p.dport = 49150;
	n = enc(&p, f, sizeof(f));
	cr_assert_eq(wire_decode(f, n, 49150, &q), WIRE_R_OK);
	cr_assert_eq(wire_decode(f, n, PORT, &q), WIRE_R_NOT_UET_PORT);
}

Test(wire_wire, reason_short_pds)
{
	struct wire_pkt a = mk_ack(false), n = mk_nack(), c = mk_cp_probe(), t = mk_trimmed();

	cr_assert_eq(decode_edit(&n, cut_prologue), WIRE_R_SHORT_PDS);
	cr_assert_eq(decode_edit(&a, cut_pds_1), WIRE_R_SHORT_PDS);
	cr_assert_eq(decode_edit(&n, cut_pds_1), WIRE_R_SHORT_PDS);
	cr_assert_eq(decode_edit(&c, cut_pds_1), WIRE_R_SHORT_PDS);
	cr_assert_eq(decode_edit(&t, cut_pds_1), WIRE_R_SHORT_PDS);
}

/* Only the reserved codes are refused: 0 and 15..31 (every UET 1.0 type is decoded). */
Test(wire_wire, reason_bad_pds_type)
{
	struct wire_pkt a = mk_ack(false), d = mk_data(64, WIRE_SES_F_SOM);

	cr_assert_eq(decode_edit(&a, set_type_0), WIRE_R_BAD_PDS_TYPE);
	cr_assert_eq(decode_edit(&d, set_type_15), WIRE_R_BAD_PDS_TYPE);
	cr_assert_eq(decode_edit(&d, set_type_31), WIRE_R_BAD_PDS_TYPE);
}

/* Reserved next_hdr values, and pairings UET does not make: a request with no SES header or with a response
 * without data, an ACK with a request header. */
Test(wire_wire, reason_bad_next_hdr)
{
	struct wire_pkt d = mk_data(64, WIRE_SES_F_SOM), a = mk_ack(false);

	cr_assert_eq(decode_edit(&d, set_nh_7), WIRE_R_BAD_NEXT_HDR);
	cr_assert_eq(decode_edit(&d, set_nh_15), WIRE_R_BAD_NEXT_HDR);
	cr_assert_eq(decode_edit(&d, set_nh_response), WIRE_R_BAD_NEXT_HDR);
	cr_assert_eq(decode_edit(&a, set_nh_small), WIRE_R_BAD_NEXT_HDR);
	/* A request naming no SES header and carrying none is not taken for a trimmed packet. */
	cr_assert_eq(decode_edit(&d, set_nh_none), WIRE_R_BAD_NEXT_HDR);
}

/* Control packet types 10..15 are reserved. */
Test(wire_wire, reason_bad_ctl_type)
{
	struct wire_pkt c = mk_cp_probe();

	cr_assert_eq(decode_edit(&c, set_nh_15), WIRE_R_BAD_CTL_TYPE);
	for (uint8_t t = 10; t < 16; t++) {
		uint8_t f[128];
		struct wire_pkt q;

		c.pds.next_hdr = t;
		cr_assert_eq(decode_copy(f, enc(&c, f, sizeof(f)), &q), WIRE_R_BAD_CTL_TYPE, "ctl_type %u", t);
	}
}

Test(wire_wire, reason_short_ses)
{
	struct wire_pkt d = mk_data(64, WIRE_SES_F_SOM);

	cr_assert_eq(decode_edit(&d, cut_ses), WIRE_R_SHORT_SES);
}

Test(wire_wire, reason_bad_ses_len)
{
	struct wire_pkt d = mk_data(64, 0);

	cr_assert_eq(decode_edit(&d, ses_len_plus1), WIRE_R_BAD_SES_LEN);
}

Test(wire_wire, reason_trailing)
{
	struct wire_pkt a = mk_ack(true), n = mk_nack(), c = mk_cp_probe();

	cr_assert_eq(decode_edit(&a, add_byte), WIRE_R_TRAILING);
	cr_assert_eq(decode_edit(&n, add_byte), WIRE_R_TRAILING);
	cr_assert_eq(decode_edit(&c, add_byte), WIRE_R_TRAILING);
}

Test(wire_wire, reason_cm)
{
	struct wire_pkt p = mk_cm(WIRE_CM_REQ), q;
	uint8_t f[128];
	size_t n = enc(&p, f, sizeof(f));

	/* the UET port does not change what port 4794 carries */
	cr_assert_eq(wire_decode(f, n, 49150, &q), WIRE_R_OK);
	cr_assert_eq(q.kind, WIRE_KIND_CM);
	f[OFF_UDP + 8] = 4; /* no type 4 */
	cr_assert_eq(decode_copy(f, n, &q), WIRE_R_BAD_CM);
	f[OFF_UDP + 8] = 0;
	cr_assert_eq(decode_copy(f, n, &q), WIRE_R_BAD_CM);
	f[OFF_UDP + 8] = WIRE_CM_REQ;
	f[OFF_UDP + 9] = 2; /* version 2 */
	cr_assert_eq(decode_copy(f, n, &q), WIRE_R_BAD_CM);
	f[OFF_UDP + 9] = WIRE_CM_VERSION;
	cr_assert_eq(decode_edit(&p, add_byte), WIRE_R_TRAILING);
	set_dgram(f, 20 + 8 + 19);
	cr_assert_eq(decode_copy(f, n - 1, &q), WIRE_R_SHORT_CM);
}

Test(wire_wire, reason_str_every_code)
{
	for (int r = 0; r < WIRE_R_COUNT; r++) {
		cr_assert_not_null(wire_reason_str(r));
		cr_assert_str_neq(wire_reason_str(r), "unknown", "reason %d", r);
		for (int s = 0; s < r; s++)
			cr_assert_str_neq(wire_reason_str(r), wire_reason_str(s));
	}
	cr_assert_str_eq(wire_reason_str(-1), "unknown");
	cr_assert_str_eq(wire_reason_str(WIRE_R_COUNT), "unknown");
}

/* ---- truncation ---- */

static void all_kinds(struct wire_pkt out[7])
{
	out[6] = mk_cm(WIRE_CM_REP);
	out[0] = mk_data(300, WIRE_SES_F_SOM | WIRE_SES_F_EOM);
	out[1] = mk_data(300, 0);
	out[2] = mk_ack(false);
	out[3] = mk_nack();
	out[4] = mk_cp_probe();
	out[5] = mk_trimmed();
}

Test(wire_wire, truncate_every_byte_rejected)
{
	struct wire_pkt all[7], q;

	all_kinds(all);
	for (size_t k = 0; k < 7; k++) {
		uint8_t f[512];
		size_t n = enc(&all[k], f, sizeof(f));

		for (size_t cut = 0; cut < n; cut++)
			cr_assert_neq(decode_copy(f, cut, &q), WIRE_R_OK, "kind %zu cut %zu", k, cut);
	}
}

/*
 * Expected result of a datagram cut to @p pds_bytes after UDP (short of the full packet), lengths and checksum fixed:
 * a control packet or trimmed request is short; a data request cut after 16 B is a trimmed packet (spec 1.6).
 */
static int cut_expect(const struct wire_pkt *p, size_t pds_bytes)
{
	if (p->kind == WIRE_KIND_CM)
		return WIRE_R_SHORT_CM;
	if (p->kind != WIRE_KIND_DATA || pds_bytes < WIRE_PDS_REQ_CC_LEN)
		return WIRE_R_SHORT_PDS;
	if (pds_bytes == WIRE_PDS_REQ_CC_LEN)
		return WIRE_R_OK;
	if (pds_bytes < WIRE_PDS_REQ_CC_LEN + WIRE_SES_STD_LEN)
		return WIRE_R_SHORT_SES;
	return (p->ses.flags & WIRE_SES_F_SOM) ? WIRE_R_OK : WIRE_R_BAD_SES_LEN;
}

Test(wire_wire, truncate_datagram_with_fixed_lengths)
{
	struct wire_pkt all[7], q;

	all_kinds(all);
	for (size_t k = 0; k < 7; k++) {
		uint8_t f[512];
		size_t n = enc(&all[k], f, sizeof(f));

		for (size_t cut = OFF_PDS; cut < n; cut++) {
			set_dgram(f, cut - OFF_IP);
			int want = cut_expect(&all[k], cut - OFF_PDS);
			int got = decode_copy(f, cut, &q);

			cr_assert_eq(got, want, "kind %zu cut %zu: %s", k, cut, wire_reason_str(got));
			if (got == WIRE_R_OK && cut == OFF_SES)
				cr_assert_eq(q.kind, WIRE_KIND_TRIMMED);
			if (got == WIRE_R_OK && cut > OFF_SES)
				cr_assert_eq(q.payload_len, cut - OFF_PAYLOAD);
		}
	}
}

/* ---- random bytes ---- */

/* Random bytes, sometimes dressed as IPv4/UDP to port 4793 with right lengths and checksum so they reach the PDS. */
static size_t random_frame(uint64_t *s, uint8_t *f, size_t cap)
{
	size_t n = (size_t)(rng_next(s) % 160);
	uint64_t mode = rng_next(s) % 4;

	if (mode != 0 && n < OFF_PDS)
		n += OFF_PDS;
	for (size_t i = 0; i < n && i < cap; i++)
		f[i] = (uint8_t)rng_next(s);
	if (mode == 0)
		return n;
	f[12] = 0x08;
	f[13] = 0x00;
	f[OFF_IP] = 0x45;
	f[OFF_IP + 6] &= 0x40;
	f[OFF_IP + 7] = 0;
	f[OFF_IP + 9] = WIRE_IPPROTO_UDP;
	f[OFF_UDP + 2] = PORT >> 8;
	f[OFF_UDP + 3] = PORT & 0xff;
	if (mode >= 2)
		f[OFF_PDS] = (uint8_t)((mode == 2 ? WIRE_PDS_RUD_CC_REQ : WIRE_PDS_ACK_CC) << 3 | 1);
	set_dgram(f, n - OFF_IP);
	return n;
}

Test(wire_wire, random_bytes_never_crash)
{
	uint64_t s = 0x5eed5eed12345678ULL;
	uint8_t f[256];
	size_t ok = 0;

	for (int i = 0; i < 100000; i++) {
		struct wire_pkt q;
		size_t n = random_frame(&s, f, sizeof(f));
		int r = decode_copy(f, n, &q);

		cr_assert(r >= 0 && r < WIRE_R_COUNT);
		if (r == WIRE_R_OK) {
			ok++;
			cr_assert((q.kind >= WIRE_KIND_DATA && q.kind <= WIRE_KIND_TRIMMED) || q.kind == WIRE_KIND_UET);
		}
	}
	cr_assert_gt(ok, 0, "random frames never reached a successful decode");
}

Test(wire_wire, mutate_one_byte_never_crash)
{
	uint64_t s = 0xfeedfacecafebeefULL;
	struct wire_pkt all[7];

	all_kinds(all);
	for (int i = 0; i < 100000; i++) {
		uint8_t f[512];
		struct wire_pkt q;
		size_t n = enc(&all[i % 7], f, sizeof(f));
		uint64_t r = rng_next(&s);

		f[r % n] ^= (uint8_t)((r >> 32) | 1);
		int rc = decode_copy(f, n, &q);

		cr_assert(rc >= 0 && rc < WIRE_R_COUNT);
	}
}

/* ---- DSCP and checksum ---- */

Test(wire_wire, dscp_defaults_and_roles)
{
	struct wire_dscp_map m;

	wire_dscp_defaults(&m);
	cr_assert_eq(m.dscp[WIRE_ROLE_NO_TRIM], 0);
	cr_assert_eq(m.dscp[WIRE_ROLE_TRIMMABLE], 8);
	cr_assert_eq(m.dscp[WIRE_ROLE_TRIMMABLE_RTX], 10);
	cr_assert_eq(m.dscp[WIRE_ROLE_TRIMMED], 16);
	cr_assert_eq(m.dscp[WIRE_ROLE_TRIMMED_LASTHOP], 18);
	cr_assert_eq(m.dscp[WIRE_ROLE_CONTROL], 46);
	for (int r = 0; r < WIRE_ROLE_COUNT; r++)
		cr_assert_eq(wire_dscp_role(&m, m.dscp[r]), r);
	cr_assert_eq(wire_dscp_role(&m, 63), -1);
	m.dscp[WIRE_ROLE_TRIMMED] = 8;
	cr_assert_eq(wire_dscp_role(&m, 8), WIRE_ROLE_TRIMMABLE, "first role wins");
}

Test(wire_wire, csum_rfc1071_example)
{
	/* RFC 1071 section 3: the words 0001 f203 f4f5 f6f7 sum to 0xddf2; the checksum is its complement. */
	const uint8_t b[8] = { 0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7 };

	cr_assert_eq(wire_csum(b, 8), (uint16_t)~0xddf2);
	/* An odd trailing byte counts as the high byte of a word. */
	const uint8_t odd[3] = { 0x12, 0x34, 0x56 };

	cr_assert_eq(wire_csum(odd, 3), (uint16_t)~(0x1234 + 0x5600));
	cr_assert_eq(wire_csum(odd, 0), 0xffff);
}

Test(wire_wire, pfc_frame_round_trip_and_layout)
{
	struct wire_pkt p = { .kind = WIRE_KIND_PFC, .src_mac = { 2, 0, 0, 0, 0, 9 }, .pfc_enable = 0x01 };
	struct wire_pkt q;
	uint8_t buf[128];

	p.pfc_quanta[0] = 65535;
	cr_assert_eq(wire_frame_len(&p), 60);
	cr_assert_eq(wire_wire_len(&p), 64, "a PFC frame is a minimum Ethernet frame: 64 B with FCS");
	cr_assert_eq(wire_encode(&p, buf, sizeof(buf)), 60);
	const uint8_t head[] = { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x01, 2, 0, 0, 0, 0, 9, 0x88, 0x08, 0x01, 0x01, 0x00, 0x01,
				 0xff, 0xff, 0x00, 0x00 };
	cr_assert_arr_eq(buf, head, sizeof(head));
	/* head ends inside class 1's quanta; classes 2..7 follow, up to WIRE_PFC_MIN_LEN (34), then zero padding */
	for (int i = (int)sizeof(head); i < WIRE_PFC_MIN_LEN; i++)
		cr_assert_eq(buf[i], 0, "quanta byte %d (classes 2..7 resume: 0)", i);
	for (int i = WIRE_PFC_MIN_LEN; i < 60; i++)
		cr_assert_eq(buf[i], 0, "padding byte %d", i);
	cr_assert_eq(wire_decode(buf, 60, WIRE_UDP_PORT_UET, &q), WIRE_R_OK);
	cr_assert_eq(q.kind, WIRE_KIND_PFC);
	cr_assert_eq(q.pfc_enable, 0x01);
	cr_assert_eq(q.pfc_quanta[0], 65535);
	cr_assert_eq(q.pfc_quanta[1], 0);
	for (size_t n = 14; n < WIRE_PFC_MIN_LEN; n++)
		cr_assert_eq(wire_decode(buf, n, WIRE_UDP_PORT_UET, &q), WIRE_R_SHORT_PFC, "cut at %zu", n);
	buf[15] = 0x02; /* opcode 0x0102: not PFC */
	cr_assert_eq(wire_decode(buf, 60, WIRE_UDP_PORT_UET, &q), WIRE_R_NOT_PFC);
}
