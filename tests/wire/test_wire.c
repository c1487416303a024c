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
	p.ack.sack_bitmap = 0x8000000000000001ULL;
	p.ack.service_time = 0xfffe;
	p.ack.rc = 1;
	p.ack.rcv_cwnd_pend = 0x55;
	p.ack.rcvd_bytes = 0xfedcba;
	p.ack.ooo_count = 0x0102;
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
	EQ(src_ip); EQ(dst_ip); EQ(dscp); EQ(ecn); EQ(ttl); EQ(ip_id); EQ(sport); EQ(dport); EQ(encap); EQ(trim_len);
	EQ(pds.type); EQ(pds.next_hdr); EQ(pds.flags); EQ(pds.psn_off); EQ(pds.probe_opaque); EQ(pds.psn);
	EQ(pds.spdcid); EQ(pds.dpdcid); EQ(pds.ccc_id); EQ(pds.credit_target);
	EQ(pds.cc_type); EQ(pds.cc_flags); EQ(pds.mpr); EQ(pds.sack_psn_off); EQ(ack.sack_bitmap);
	EQ(ack.service_time); EQ(ack.rc); EQ(ack.rcv_cwnd_pend); EQ(ack.rcvd_bytes); EQ(ack.ooo_count);
	EQ(pds.nack_code); EQ(pds.vendor_code); EQ(pds.payload); EQ(ack.cc_raw[0]); EQ(ack.cc_raw[1]);
	EQ(ses.opcode); EQ(ses.ver); EQ(ses.flags); EQ(ses.message_id); EQ(ses.ri_generation); EQ(ses.job_id);
	EQ(ses.pid_on_fep); EQ(ses.resource_index); EQ(ses.buffer_offset); EQ(ses.initiator);
	EQ(ses.memory_key); EQ(ses.header_data); EQ(ses.payload_length); EQ(ses.message_offset);
	EQ(ses.request_length);
	EQ(ses.amo_opcode); EQ(ses.amo_datatype); EQ(ses.amo_sem_ctl); EQ(ses.amo_compare[0]); EQ(ses.amo_compare[1]);
	EQ(ses.amo_swap[0]); EQ(ses.amo_swap[1]); EQ(ses.rdv_eager_len); EQ(ses.rdv_pid_on_fep);
	EQ(ses.rdv_resource_index); EQ(ses.rdv_offset); EQ(ses.rdv_match_bits);
	EQ(rsp.list); EQ(rsp.opcode); EQ(rsp.ver); EQ(rsp.return_code); EQ(rsp.message_id); EQ(rsp.ri_generation);
	EQ(rsp.job_id); EQ(rsp.modified_length); EQ(rsp.read_req_message_id); EQ(rsp.payload_length);
	EQ(rsp.message_offset); EQ(rsp.original_request_psn);
	EQ(tss.sp); EQ(tss.an); EQ(tss.sdi); EQ(tss.ssi); EQ(tss.tsc);
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

/*
 * The inline frame length (a table per encapsulation and kind) against the layout it stands for
 * (wire_frame_len_slow()) and the bytes wire_encode() writes: every kind, every encapsulation, ACKs with and without
 * their SES response header, payloads from 0 to the largest.
 */
Test(wire_wire, sizes_inline_table_is_the_layout)
{
	static const uint8_t kinds[] = { WIRE_KIND_NONE, WIRE_KIND_DATA, WIRE_KIND_ACK, WIRE_KIND_NACK, WIRE_KIND_CP,
					 WIRE_KIND_TRIMMED, WIRE_KIND_PFC, WIRE_KIND_CM };
	static const uint32_t payloads[] = { 0, 1, 4096, WIRE_MAX_FRAME - 110 };
	static uint8_t f[WIRE_MAX_FRAME];
	int checked = 0;

	for (size_t k = 0; k < sizeof(kinds); k++)
		for (uint8_t encap = 0; encap < 4; encap++)
			for (int rsp = 0; rsp < 2; rsp++)
				for (size_t i = 0; i < sizeof(payloads) / sizeof(payloads[0]); i++) {
					struct wire_pkt p = kinds[k] == WIRE_KIND_DATA ? mk_data(payloads[i], 0) :
							    kinds[k] == WIRE_KIND_ACK ? mk_ack(false) :
							    kinds[k] == WIRE_KIND_NACK ? mk_nack() :
							    kinds[k] == WIRE_KIND_CP ? mk_cp_probe() :
							    kinds[k] == WIRE_KIND_TRIMMED ? mk_trimmed() :
							    kinds[k] == WIRE_KIND_CM ? mk_cm(WIRE_CM_REQ) : mk_data(0, 0);
					if (kinds[k] == WIRE_KIND_PFC || kinds[k] == WIRE_KIND_NONE)
						base_pkt(&p, kinds[k]);
					if (kinds[k] != WIRE_KIND_CM && kinds[k] != WIRE_KIND_PFC)
						p.encap = encap;
					if (rsp)
						p.pds.next_hdr = WIRE_NH_RESPONSE;
					size_t n = wire_frame_len(&p);
					cr_assert_eq(n, wire_frame_len_slow(&p), "kind %u encap %u rsp %d payload %u: %zu vs %zu",
						     kinds[k], encap, rsp, payloads[i], n, wire_frame_len_slow(&p));
					if (n != 0 && kinds[k] != WIRE_KIND_PFC) {
						int e = wire_encode(&p, f, sizeof(f));
						if (e > 0) {
							cr_assert_eq((size_t)e, n, "kind %u encap %u", kinds[k], encap);
							checked++;
						}
					}
				}
	cr_assert_gt(checked, 100, "frames encoded: %d", checked);
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

/*
 * What the real-time TX path sends (docs/realtime.md, Zero-copy TX): wire_encode_hdrs() into a WIRE_HDRS_MAX
 * buffer, then the first wire_frame_len() - headers bytes of one wire_payload_fill() pattern. Every kind, every
 * payload length class: byte for byte what wire_encode() writes.
 */
Test(wire_wire, hdrs_then_pattern_match_encode_every_kind)
{
	static uint8_t pat[WIRE_MAX_FRAME], full[WIRE_MAX_FRAME], joined[WIRE_MAX_FRAME];
	uint8_t hdr[WIRE_HDRS_MAX];
	struct wire_pkt pfc = { .kind = WIRE_KIND_PFC, .src_mac = { 2, 0, 0, 0, 0, 9 }, .pfc_enable = 0x01 };
	const struct wire_pkt seq[] = {
		mk_data(4096, WIRE_SES_F_SOM), mk_ack(false), mk_data(WIRE_MAX_FRAME - OFF_PAYLOAD, 0), mk_trimmed(),
		mk_data(1, 0), mk_nack(), mk_data(300, WIRE_SES_F_EOM), mk_cp_probe(), mk_data(0, 0),
		mk_cm(WIRE_CM_REQ), pfc, mk_data(8192, 0), mk_ack(true), mk_data(256, 0), mk_data(257, 0),
	};

	wire_payload_fill(pat, sizeof(pat));
	for (size_t i = 0; i < sizeof(pat); i++)
		cr_assert_eq(pat[i], wire_payload_byte(i));
	for (size_t k = 0; k < sizeof(seq) / sizeof(seq[0]); k++) {
		int n = wire_encode(&seq[k], full, sizeof(full));
		int h = wire_encode_hdrs(&seq[k], hdr, sizeof(hdr));
		size_t pl = wire_frame_len(&seq[k]) - (size_t)h;

		cr_assert_gt(h, 0, "frame %zu: headers fit WIRE_HDRS_MAX", k);
		cr_assert_eq((size_t)n, (size_t)h + pl, "frame %zu", k);
		memcpy(joined, hdr, (size_t)h);
		memcpy(joined + h, pat, pl);
		cr_assert_arr_eq(joined, full, (size_t)n, "frame %zu differs from wire_encode", k);
	}
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
	a.ack.rc = 0xff;
	a.ack.rcv_cwnd_pend = 0xff;
	a.ack.rcvd_bytes = 0xffffffff;
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

/* Set the UDP checksum of frame @p f to its RFC 768 value, plus @p delta. */
static void udp_csum_set(uint8_t *f, uint16_t delta)
{
	size_t ulen = (size_t)f[OFF_UDP + 4] << 8 | f[OFF_UDP + 5];
	uint8_t ph[12 + WIRE_MAX_FRAME];

	memcpy(ph, f + OFF_IP + 12, 8); /* source and destination */
	ph[8] = 0;
	ph[9] = 17;
	ph[10] = (uint8_t)(ulen >> 8);
	ph[11] = (uint8_t)ulen;
	f[OFF_UDP + 6] = f[OFF_UDP + 7] = 0;
	memcpy(ph + 12, f + OFF_UDP, ulen);
	uint16_t c = (uint16_t)(wire_csum(ph, 12 + ulen) + delta);
	f[OFF_UDP + 6] = (uint8_t)(c >> 8);
	f[OFF_UDP + 7] = (uint8_t)c;
}

static void udp_csum_right(uint8_t *f, size_t *n) { (void)n; udp_csum_set(f, 0); }
static void udp_csum_wrong(uint8_t *f, size_t *n) { (void)n; udp_csum_set(f, 1); }

Test(wire_wire, reason_bad_udp_csum_when_non_zero_and_wrong)
{
	struct wire_pkt p = mk_nack();
	struct wire_pkt d = mk_data(101, 0);

	cr_assert_eq(decode_edit(&p, udp_csum_wrong), WIRE_R_BAD_UDP_CSUM);
	cr_assert_eq(decode_edit(&d, udp_csum_wrong), WIRE_R_BAD_UDP_CSUM);
	cr_assert_eq(decode_edit(&p, udp_csum_right), WIRE_R_OK, "a right checksum is taken");
	cr_assert_eq(decode_edit(&d, udp_csum_right), WIRE_R_OK, "a right checksum is taken (odd length)");
}

/* What TX checksum offload leaves in the field on a virtual device: the pseudo-header sum, folded, not inverted. */
static void udp_csum_partial(uint8_t *f, size_t *n)
{
	size_t ulen = (size_t)f[OFF_UDP + 4] << 8 | f[OFF_UDP + 5];
	uint8_t ph[12];

	(void)n;
	memcpy(ph, f + OFF_IP + 12, 8);
	ph[8] = 0;
	ph[9] = 17;
	ph[10] = (uint8_t)(ulen >> 8);
	ph[11] = (uint8_t)ulen;
	uint16_t c = (uint16_t)~wire_csum(ph, sizeof(ph));
	f[OFF_UDP + 6] = (uint8_t)(c >> 8);
	f[OFF_UDP + 7] = (uint8_t)c;
}

/* Decode @p p's frame, edited by @p edit, with UDP checksum mode @p mode; what was seen of the checksum in *@p seen. */
static int decode_csum(const struct wire_pkt *p, void (*edit)(uint8_t *f, size_t *len), uint8_t mode, uint8_t *seen)
{
	static uint8_t buf[WIRE_MAX_FRAME + 64];
	size_t n = enc(p, buf, sizeof(buf));
	const struct wire_rx_cfg cfg = { .uet_port = PORT, .udp_csum = mode };
	struct wire_rx_info info = { .udp_csum = 0xff };
	struct wire_pkt q;

	edit(buf, &n);
	int rc = wire_decode_rx(buf, n, &cfg, &q, &info);
	*seen = info.udp_csum;
	return rc;
}

static void no_edit(uint8_t *f, size_t *n) { (void)f; (void)n; }

/* rx_csum: verify refuses a partial checksum, offload takes it and says so, ignore takes even a wrong one. */
Test(wire_wire, udp_csum_modes)
{
	const struct wire_pkt d = mk_data(101, 0), a = mk_nack();
	uint8_t seen;

	cr_assert_eq(decode_csum(&d, udp_csum_partial, WIRE_CSUM_VERIFY, &seen), WIRE_R_BAD_UDP_CSUM);
	cr_assert_eq(decode_csum(&d, udp_csum_partial, WIRE_CSUM_OFFLOAD, &seen), WIRE_R_OK);
	cr_assert_eq(seen, WIRE_CSUM_SEEN_PARTIAL);
	cr_assert_eq(decode_csum(&a, udp_csum_partial, WIRE_CSUM_OFFLOAD, &seen), WIRE_R_OK);
	cr_assert_eq(seen, WIRE_CSUM_SEEN_PARTIAL);
	cr_assert_eq(decode_csum(&d, udp_csum_right, WIRE_CSUM_OFFLOAD, &seen), WIRE_R_OK);
	cr_assert_eq(seen, WIRE_CSUM_SEEN_GOOD, "a complete checksum is not partial");
	cr_assert_eq(decode_csum(&d, udp_csum_wrong, WIRE_CSUM_OFFLOAD, &seen), WIRE_R_BAD_UDP_CSUM,
		     "a wrong checksum that is not the pseudo-header sum is still refused");
	cr_assert_eq(decode_csum(&d, no_edit, WIRE_CSUM_OFFLOAD, &seen), WIRE_R_OK);
	cr_assert_eq(seen, WIRE_CSUM_SEEN_NONE, "0: not computed");
	cr_assert_eq(decode_csum(&d, udp_csum_wrong, WIRE_CSUM_IGNORE, &seen), WIRE_R_OK);
	cr_assert_eq(seen, WIRE_CSUM_SEEN_UNVERIFIED);
	cr_assert_eq(decode_csum(&d, no_edit, WIRE_CSUM_IGNORE, &seen), WIRE_R_OK);
	cr_assert_eq(seen, WIRE_CSUM_SEEN_NONE);
	/* the plain decoder is verify: what it refused before it still refuses */
	cr_assert_eq(decode_edit(&d, udp_csum_partial), WIRE_R_BAD_UDP_CSUM);
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
	f[OFF_UDP + 6] = f[OFF_UDP + 7] = 0; /* not computed: a random one would be refused (bad_udp_csum) */
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
	for (size_t n = 14; n < 60; n++) /* 802.1Qbb: a whole minimum frame, padding included */
		cr_assert_eq(wire_decode(buf, n, WIRE_UDP_PORT_UET, &q), WIRE_R_SHORT_PFC, "cut at %zu", n);
	buf[5] = 0x02; /* to 01:80:C2:00:00:02 */
	cr_assert_eq(wire_decode(buf, 60, WIRE_UDP_PORT_UET, &q), WIRE_R_BAD_PFC_DST);
	memcpy(buf, (const uint8_t[6]){ 0x02, 0, 0, 0, 0, 1 }, 6); /* to a host's unicast MAC */
	cr_assert_eq(wire_decode(buf, 60, WIRE_UDP_PORT_UET, &q), WIRE_R_BAD_PFC_DST);
	buf[15] = 0x02; /* opcode 0x0102: not PFC */
	cr_assert_eq(wire_decode(buf, 60, WIRE_UDP_PORT_UET, &q), WIRE_R_NOT_PFC);
}

/* ==== every UET 1.0 header: round trips, exact bytes, truncation, reasons, classes (wire.h WIRE_KIND_UET) ==== */

/* A packet with only the Ethernet / IPv4 / UDP fields of base_pkt() and PDS type, next_hdr and flags. */
static struct wire_pkt uet_base(uint8_t kind, uint8_t type, uint8_t nh, uint8_t flags)
{
	struct wire_pkt p;

	base_pkt(&p, kind);
	memset(&p.pds, 0, sizeof(p.pds));
	p.pds.type = type;
	p.pds.next_hdr = nh;
	p.pds.flags = flags;
	return p;
}

/* The request header fields (RUD / ROD, + CC state for RUD_CC / ROD_CC). */
static void fill_req(struct wire_pkt *p)
{
	p->pds.psn_off = -7;
	p->pds.psn = 0x98765432;
	p->pds.spdcid = 0x3456;
	p->pds.dpdcid = (p->pds.flags & WIRE_REQ_F_SYN) ? 0x8876 : 0x9abc; /* with SYN: pdc_info 8 + psn_offset */
	if (p->pds.type == WIRE_PDS_RUD_CC_REQ || p->pds.type == WIRE_PDS_ROD_CC_REQ) {
		p->pds.ccc_id = 0x77;
		p->pds.credit_target = 0x887766;
	}
}

/* Every field of a standard request with @p opcode, @p flags and @p payload bytes. */
static void fill_std(struct wire_pkt *p, uint8_t opcode, uint8_t flags, uint32_t payload)
{
	struct wire_ses *s = &p->ses;

	s->opcode = opcode;
	s->ver = 1;
	s->flags = flags;
	s->message_id = 0x1234;
	s->ri_generation = 0x77;
	s->job_id = 0xabcdef;
	s->pid_on_fep = 0x678;
	s->resource_index = 0x9ab;
	s->buffer_offset = 0xfedcba9876543210ULL;
	s->initiator = 0xfedcba98;
	s->memory_key = 0x1122334455667788ULL;
	if (flags & WIRE_SES_F_SOM) {
		s->header_data = 0xaabbccddeeff0011ULL;
	} else {
		s->payload_length = (uint16_t)payload;
		s->message_offset = 0x77665544;
	}
	s->request_length = 0x99887766;
	p->payload_len = payload;
}

/* Medium (with HD: header_data, else buffer_offset) or small request. */
static void fill_med_small(struct wire_pkt *p, bool medium, uint8_t opcode, uint8_t flags, uint32_t payload)
{
	struct wire_ses *s = &p->ses;

	s->opcode = opcode;
	s->ver = 2;
	s->flags = flags;
	s->request_length = 0x2345;
	s->ri_generation = 0x66;
	s->job_id = 0x123456;
	s->pid_on_fep = 0x321;
	s->resource_index = 0x0fe;
	if (medium && (flags & WIRE_SES_F_HD))
		s->header_data = 0x9876543298765432ULL;
	else
		s->buffer_offset = 0x0102030405060708ULL;
	if (medium) {
		s->initiator = 0x87654321;
		s->memory_key = 0xccbbddeeff009988ULL;
	}
	p->payload_len = payload;
}

static void fill_amo(struct wire_ses *s, uint8_t amo)
{
	s->amo_opcode = amo;
	s->amo_datatype = 0x0c;
	s->amo_sem_ctl = 0x03;
	if (amo >= WIRE_AMO_CSWAP && amo <= WIRE_AMO_CSWAP_GT) {
		s->amo_compare[0] = 0x9876543298765432ULL;
		s->amo_compare[1] = 0x2345678923456789ULL;
		s->amo_swap[0] = 0x0123456789abcdefULL;
		s->amo_swap[1] = 0xfedcba0987654321ULL;
	}
}

static void fill_rdv(struct wire_ses *s)
{
	s->rdv_eager_len = 64;
	s->rdv_pid_on_fep = 0x123;
	s->rdv_resource_index = 0x456;
	s->rdv_offset = 0x1000;
	s->rdv_match_bits = 0x0f0e0d0c0b0a0908ULL;
}

/* A response of form @p nh with @p payload bytes after it. */
static void fill_rsp(struct wire_pkt *p, uint8_t nh, uint32_t payload)
{
	struct wire_rsp *r = &p->rsp;

	r->list = 1;
	r->opcode = nh == WIRE_NH_RESPONSE ? WIRE_RSP_RESPONSE : WIRE_RSP_WITH_DATA;
	r->ver = 1;
	r->return_code = 0x09;
	r->job_id = 0x654321;
	if (nh == WIRE_NH_RESPONSE) {
		r->message_id = 0x1234;
		r->ri_generation = 0x99;
		r->modified_length = 0x9abcdef;
	} else if (nh == WIRE_NH_RESPONSE_DATA) {
		r->message_id = 0x1235;
		r->read_req_message_id = 0x4321;
		r->payload_length = (uint16_t)payload;
		r->modified_length = 0x87654321;
		r->message_offset = 0x9abcdef;
	} else {
		r->payload_length = (uint16_t)payload;
		r->original_request_psn = 0x1234;
	}
	p->payload_len = payload;
}

/* ACK family: ACK (12 B), ACK_CC with NSCC state (the model's ACK) or another CC type, ACK_CCX. */
static void fill_ack(struct wire_pkt *p, uint8_t cc_type)
{
	struct wire_pds *d = &p->pds;

	if (d->flags & WIRE_ACK_F_P)
		d->probe_opaque = 0x5a5a;
	else
		d->psn_off = -300;
	d->psn = 0x2468ace0;
	d->spdcid = 0x3456;
	d->dpdcid = 0x789a;
	if (d->type == WIRE_PDS_ACK)
		return;
	d->cc_type = cc_type;
	d->cc_flags = 0xf;
	d->mpr = 0x87;
	d->sack_psn_off = -0x6678;
	p->ack.sack_bitmap = 0x123456789abcdef0ULL;
	if (d->type == WIRE_PDS_ACK_CC && cc_type == 0) {
		p->ack.service_time = 0x99aa;
		p->ack.rc = 1;
		p->ack.rcv_cwnd_pend = 0x7f;
		p->ack.rcvd_bytes = 0x887766;
		p->ack.ooo_count = 0x8765;
		return;
	}
	p->ack.cc_raw[0] = 0x1234560000008765ULL;
	if (d->type == WIRE_PDS_ACK_CCX)
		p->ack.cc_raw[1] = 0x99aabbccddeeff00ULL;
}

enum { SH_RUD_STD, SH_RUD_SYN_STD_MID, SH_ROD_STD, SH_RUD_CC_READ, SH_ROD_CC_SYN_SEND, SH_RUDI_REQ_STD,
       SH_RUDI_RESP_RSP, SH_RUDI_RESP_NONE, SH_RUDI_RESP_DATA, SH_RUDI_RESP_DATA_SMALL, SH_UUD_STD, SH_ACK_NONE,
       SH_ACK_RSP, SH_ACK_P_RSP, SH_ACK_CC_RSP, SH_ACK_CC_CREDIT, SH_ACK_CC_CREDIT_RSP, SH_ACK_CCX,
       SH_ACK_CCX_DATA_SMALL, SH_NACK_NT, SH_NACK_RSP, SH_NACK_CCX, SH_CP_NOOP, SH_CP_CLOSE_SYN, SH_CP_NEG_ISROD,
       SH_STD_ATOMIC, SH_STD_FETCHING_ATOMIC, SH_STD_TSEND_ATOMIC, SH_STD_TSEND_FETCH_ATOMIC, SH_STD_CAS,
       SH_STD_CAS_GT_MID, SH_STD_RDV_SOM, SH_STD_RDV_MID, SH_STD_RDV_TSEND, SH_STD_DEFERRABLE, SH_MED_HD,
       SH_MED_BUF, SH_MED_ATOMIC, SH_MED_CAS, SH_MED_RDV, SH_SMALL, SH_SMALL_ATOMIC, SH_SMALL_CAS, SH_RUD_RSP_DATA,
       SH_ROD_CC_RSP_DATA_SMALL, SH_TSS, SH_TSS_SSI, SH_TRIM_RUD_PDS, SH_TRIM_RUD_MIN, SH_TRIM_UUD_PDS,
       SH_TRIM_UUD_MIN, SH_TRIM_RUDI_MIN, SH_TRIM_ROD_CC_MED, SH_COUNT };

/* Shape @p i: every field of its layout set, the rest zero, kind as the decoder gives it. */
static struct wire_pkt mk_shape(int i)
{
	struct wire_pkt p;

	switch (i) {
	case SH_RUD_STD:
		p = uet_base(WIRE_KIND_UET, WIRE_PDS_RUD_REQ, WIRE_NH_REQ_STD, WIRE_REQ_F_AR);
		fill_req(&p);
		fill_std(&p, WIRE_SES_OP_WRITE, WIRE_SES_F_SOM | WIRE_SES_F_EOM, 64);
		break;
	case SH_RUD_SYN_STD_MID:
		p = uet_base(WIRE_KIND_UET, WIRE_PDS_RUD_REQ, WIRE_NH_REQ_STD, WIRE_REQ_F_SYN | WIRE_REQ_F_RETX);
		fill_req(&p);
		fill_std(&p, WIRE_SES_OP_SEND, WIRE_SES_F_EOM, 100);
		break;
	case SH_ROD_STD:
		p = uet_base(WIRE_KIND_UET, WIRE_PDS_ROD_REQ, WIRE_NH_REQ_STD, 0);
		fill_req(&p);
		fill_std(&p, WIRE_SES_OP_TAGGED_SEND, WIRE_SES_F_SOM, 33);
		break;
	case SH_RUD_CC_READ:
		p = uet_base(WIRE_KIND_UET, WIRE_PDS_RUD_CC_REQ, WIRE_NH_REQ_STD, WIRE_REQ_F_AR);
		fill_req(&p);
		fill_std(&p, WIRE_SES_OP_READ, WIRE_SES_F_SOM | WIRE_SES_F_EOM, 0);
		break;
	case SH_ROD_CC_SYN_SEND: /* the model's data packet, SYN form */
		p = uet_base(WIRE_KIND_DATA, WIRE_PDS_ROD_CC_REQ, WIRE_NH_REQ_STD, WIRE_REQ_F_SYN | WIRE_REQ_F_AR);
		fill_req(&p);
		fill_std(&p, WIRE_SES_OP_SEND, WIRE_SES_F_SOM, 128);
		break;
	case SH_RUDI_REQ_STD:
		p = uet_base(WIRE_KIND_UET, WIRE_PDS_RUDI_REQ, WIRE_NH_REQ_STD, WIRE_RUDI_F_RETX);
		p.pds.psn = 0x99887766; /* pkt_id */
		fill_std(&p, WIRE_SES_OP_SEND, WIRE_SES_F_SOM | WIRE_SES_F_EOM, 20);
		break;
	case SH_RUDI_RESP_RSP:
	case SH_RUDI_RESP_NONE:
	case SH_RUDI_RESP_DATA:
	case SH_RUDI_RESP_DATA_SMALL: {
		static const uint8_t nh[] = { WIRE_NH_RESPONSE, WIRE_NH_NONE, WIRE_NH_RESPONSE_DATA,
					      WIRE_NH_RESPONSE_DATA_SMALL };
		uint8_t n = nh[i - SH_RUDI_RESP_RSP];
		p = uet_base(WIRE_KIND_UET, WIRE_PDS_RUDI_RESP, n, WIRE_RUDI_F_M);
		p.pds.psn = 0x99887767;
		if (n != WIRE_NH_NONE)
			fill_rsp(&p, n, n == WIRE_NH_RESPONSE ? 0 : 32);
		break;
	}
	case SH_UUD_STD:
		p = uet_base(WIRE_KIND_UET, WIRE_PDS_UUD_REQ, WIRE_NH_REQ_STD, 0);
		fill_std(&p, WIRE_SES_OP_DATAGRAM_SEND, WIRE_SES_F_SOM | WIRE_SES_F_EOM, 10);
		break;
	case SH_ACK_NONE:
	case SH_ACK_RSP:
	case SH_ACK_P_RSP:
		p = uet_base(WIRE_KIND_UET, WIRE_PDS_ACK, i == SH_ACK_NONE ? WIRE_NH_NONE : WIRE_NH_RESPONSE,
			     i == SH_ACK_P_RSP ? WIRE_ACK_F_P : WIRE_ACK_F_M | WIRE_ACK_F_RETX | 0x02);
		fill_ack(&p, 0);
		if (i != SH_ACK_NONE)
			fill_rsp(&p, WIRE_NH_RESPONSE, 0);
		break;
	case SH_ACK_CC_RSP: /* the model's ACK with a default response */
		p = uet_base(WIRE_KIND_ACK, WIRE_PDS_ACK_CC, WIRE_NH_RESPONSE, WIRE_ACK_F_M);
		fill_ack(&p, 0);
		fill_rsp(&p, WIRE_NH_RESPONSE, 0);
		break;
	case SH_ACK_CC_CREDIT:
	case SH_ACK_CC_CREDIT_RSP:
		p = uet_base(WIRE_KIND_UET, WIRE_PDS_ACK_CC, i == SH_ACK_CC_CREDIT ? WIRE_NH_NONE : WIRE_NH_RESPONSE, 0);
		fill_ack(&p, 1);
		if (i == SH_ACK_CC_CREDIT_RSP)
			fill_rsp(&p, WIRE_NH_RESPONSE, 0);
		break;
	case SH_ACK_CCX:
	case SH_ACK_CCX_DATA_SMALL:
		p = uet_base(WIRE_KIND_UET, WIRE_PDS_ACK_CCX,
			     i == SH_ACK_CCX ? WIRE_NH_NONE : WIRE_NH_RESPONSE_DATA_SMALL, WIRE_ACK_F_RETX);
		fill_ack(&p, 0xe);
		if (i == SH_ACK_CCX_DATA_SMALL)
			fill_rsp(&p, WIRE_NH_RESPONSE_DATA_SMALL, 8);
		break;
	case SH_NACK_NT:
	case SH_NACK_RSP:
	case SH_NACK_CCX:
		p = uet_base(i == SH_NACK_NT ? WIRE_KIND_NACK : WIRE_KIND_UET,
			     i == SH_NACK_CCX ? WIRE_PDS_NACK_CCX : WIRE_PDS_NACK,
			     i == SH_NACK_RSP ? WIRE_NH_RESPONSE : WIRE_NH_NONE, i == SH_NACK_NT ? WIRE_NACK_F_NT : 0x30);
		p.pds.nack_code = 0x16;
		p.pds.vendor_code = 0x87;
		p.pds.psn = 0x99887766;
		p.pds.spdcid = i == SH_NACK_NT ? 0 : 0x3456;
		p.pds.dpdcid = i == SH_NACK_NT ? 0 : 0x789a;
		p.pds.payload = 0x56789abc;
		if (i == SH_NACK_RSP)
			fill_rsp(&p, WIRE_NH_RESPONSE, 0);
		if (i == SH_NACK_CCX) {
			p.ack.cc_raw[0] = 3ULL << 60 | 0xf;
			p.ack.cc_raw[1] = 0x0edcba9876543210ULL;
		}
		break;
	case SH_CP_NOOP:
	case SH_CP_CLOSE_SYN:
	case SH_CP_NEG_ISROD: {
		static const uint8_t ctl[] = { WIRE_CTL_NOOP, WIRE_CTL_CLOSE, WIRE_CTL_NEGOTIATION };
		static const uint8_t fl[] = { 0, WIRE_CP_F_SYN | WIRE_CP_F_AR, WIRE_CP_F_ISROD | WIRE_CP_F_RETX };
		p = uet_base(WIRE_KIND_UET, WIRE_PDS_CP, ctl[i - SH_CP_NOOP], fl[i - SH_CP_NOOP]);
		p.pds.psn = 0xcdef0123;
		p.pds.spdcid = 0xcdef;
		p.pds.dpdcid = 0xfedc;
		p.pds.payload = 0x1000u + (unsigned)i;
		break;
	}
	case SH_STD_ATOMIC:
	case SH_STD_FETCHING_ATOMIC:
	case SH_STD_TSEND_ATOMIC:
	case SH_STD_TSEND_FETCH_ATOMIC: {
		static const uint8_t op[] = { WIRE_SES_OP_ATOMIC, WIRE_SES_OP_FETCHING_ATOMIC, WIRE_SES_OP_TSEND_ATOMIC,
					      WIRE_SES_OP_TSEND_FETCH_ATOMIC };
		p = uet_base(WIRE_KIND_UET, WIRE_PDS_RUD_REQ, WIRE_NH_REQ_STD, 0);
		fill_req(&p);
		fill_std(&p, op[i - SH_STD_ATOMIC], WIRE_SES_F_SOM | WIRE_SES_F_EOM, 8);
		fill_amo(&p.ses, 0x0a);
		break;
	}
	case SH_STD_CAS:
	case SH_STD_CAS_GT_MID: /* without SOM: payload_length counts what follows the extension */
		p = uet_base(WIRE_KIND_UET, WIRE_PDS_RUD_CC_REQ, WIRE_NH_REQ_STD, 0);
		fill_req(&p);
		fill_std(&p, WIRE_SES_OP_ATOMIC, i == SH_STD_CAS ? WIRE_SES_F_SOM | WIRE_SES_F_EOM : 0, 5);
		fill_amo(&p.ses, i == SH_STD_CAS ? WIRE_AMO_CSWAP : WIRE_AMO_CSWAP_GT);
		break;
	case SH_STD_RDV_SOM:
	case SH_STD_RDV_MID:
	case SH_STD_RDV_TSEND:
		p = uet_base(WIRE_KIND_UET, WIRE_PDS_RUD_REQ, WIRE_NH_REQ_STD, 0);
		fill_req(&p);
		fill_std(&p, i == SH_STD_RDV_TSEND ? WIRE_SES_OP_RENDEZVOUS_TSEND : WIRE_SES_OP_RENDEZVOUS_SEND,
			 i == SH_STD_RDV_MID ? 0 : WIRE_SES_F_SOM, 64);
		fill_rdv(&p.ses);
		break;
	case SH_STD_DEFERRABLE:
		p = uet_base(WIRE_KIND_UET, WIRE_PDS_ROD_CC_REQ, WIRE_NH_REQ_STD, 0);
		fill_req(&p);
		fill_std(&p, WIRE_SES_OP_DEFERRABLE_SEND, WIRE_SES_F_SOM, 16);
		break;
	case SH_MED_HD:
	case SH_MED_BUF:
	case SH_MED_ATOMIC:
	case SH_MED_CAS:
	case SH_MED_RDV: {
		static const uint8_t op[] = { WIRE_SES_OP_SEND, WIRE_SES_OP_WRITE, WIRE_SES_OP_ATOMIC,
					      WIRE_SES_OP_FETCHING_ATOMIC, WIRE_SES_OP_RENDEZVOUS_SEND };
		p = uet_base(WIRE_KIND_UET, WIRE_PDS_RUD_CC_REQ, WIRE_NH_REQ_MEDIUM, WIRE_REQ_F_AR);
		fill_req(&p);
		fill_med_small(&p, true, op[i - SH_MED_HD],
			       (uint8_t)(WIRE_SES_F_SOM | WIRE_SES_F_EOM | (i == SH_MED_HD ? WIRE_SES_F_HD : 0)), 24);
		if (i == SH_MED_ATOMIC || i == SH_MED_CAS)
			fill_amo(&p.ses, i == SH_MED_CAS ? 0x11 : 0x02);
		break; /* a rendezvous opcode takes no extension after the medium header */
	}
	case SH_SMALL:
	case SH_SMALL_ATOMIC:
	case SH_SMALL_CAS:
		p = uet_base(WIRE_KIND_UET, WIRE_PDS_ROD_REQ, WIRE_NH_REQ_SMALL, 0);
		fill_req(&p);
		fill_med_small(&p, false, i == SH_SMALL ? WIRE_SES_OP_READ : WIRE_SES_OP_ATOMIC,
			       WIRE_SES_F_SOM | WIRE_SES_F_EOM, i == SH_SMALL ? 0 : 8);
		if (i != SH_SMALL)
			fill_amo(&p.ses, i == SH_SMALL_CAS ? 0x0f : 0x08);
		break;
	case SH_RUD_RSP_DATA:
	case SH_ROD_CC_RSP_DATA_SMALL:
		p = uet_base(WIRE_KIND_UET, i == SH_RUD_RSP_DATA ? WIRE_PDS_RUD_REQ : WIRE_PDS_ROD_CC_REQ,
			     i == SH_RUD_RSP_DATA ? WIRE_NH_RESPONSE_DATA : WIRE_NH_RESPONSE_DATA_SMALL, WIRE_REQ_F_AR);
		fill_req(&p);
		fill_rsp(&p, p.pds.next_hdr, 48);
		break;
	case SH_TSS:
	case SH_TSS_SSI:
		p = uet_base(WIRE_KIND_UET, WIRE_PDS_TSS, 0, 0);
		p.tss.sp = i == SH_TSS_SSI;
		p.tss.an = i == SH_TSS;
		p.tss.sdi = 0x123456;
		p.tss.ssi = i == SH_TSS_SSI ? 0xcafef00d : 0;
		p.tss.tsc = 0x0001000000000042ULL;
		p.payload_len = i == SH_TSS ? 48 : WIRE_TSS_ICV_LEN;
		break;
	case SH_TRIM_RUD_PDS:
	case SH_TRIM_RUD_MIN:
		p = uet_base(WIRE_KIND_UET, WIRE_PDS_RUD_REQ, WIRE_NH_REQ_STD, WIRE_REQ_F_AR);
		fill_req(&p);
		p.trim_len = i == SH_TRIM_RUD_PDS ? WIRE_PDS_REQ_LEN : WIRE_MIN_TRIM_LEN;
		p.dscp = 16;
		break;
	case SH_TRIM_UUD_PDS:
	case SH_TRIM_UUD_MIN:
		p = uet_base(WIRE_KIND_UET, WIRE_PDS_UUD_REQ, WIRE_NH_REQ_SMALL, 0);
		p.trim_len = i == SH_TRIM_UUD_PDS ? WIRE_PDS_UUD_LEN : WIRE_MIN_TRIM_LEN;
		p.dscp = 18;
		break;
	case SH_TRIM_RUDI_MIN:
		p = uet_base(WIRE_KIND_UET, WIRE_PDS_RUDI_REQ, WIRE_NH_RESPONSE_DATA, 0);
		p.pds.psn = 5;
		p.trim_len = WIRE_MIN_TRIM_LEN;
		break;
	default: /* SH_TRIM_ROD_CC_MED: the model's trimmed packet, its next_hdr kept */
		p = uet_base(WIRE_KIND_TRIMMED, WIRE_PDS_ROD_CC_REQ, WIRE_NH_REQ_MEDIUM, WIRE_REQ_F_RETX);
		fill_req(&p);
		break;
	}
	return p;
}

/* Whether shape @p p is a trimmed request or a TSS frame: neither ever carries a CRC trailer. */
static bool no_trailer(const struct wire_pkt *p)
{
	return p->kind == WIRE_KIND_TRIMMED || p->trim_len != 0 || p->pds.type == WIRE_PDS_TSS;
}

/* @p p with encapsulation @p encap, as the decoder gives it back (no trailer where none is sent, dport 0 native). */
static struct wire_pkt with_encap(struct wire_pkt p, uint8_t encap)
{
	p.encap = encap;
	if (no_trailer(&p))
		p.encap &= (uint8_t)~WIRE_ENCAP_CRC;
	if (encap & WIRE_ENCAP_NATIVE)
		p.dport = 0;
	return p;
}

static int decode_cfg_copy(const uint8_t *buf, size_t len, bool crc, struct wire_pkt *out)
{
	const struct wire_rx_cfg cfg = { .uet_port = PORT, .crc = crc };
	uint8_t *c = malloc(len ? len : 1);

	cr_assert_not_null(c);
	if (len)
		memcpy(c, buf, len);
	int r = wire_decode_cfg(len ? c : NULL, len, &cfg, out);

	free(c);
	return r;
}

Test(wire_uet, round_trip_every_shape_every_encapsulation)
{
	static uint8_t f[WIRE_MAX_FRAME];

	for (int i = 0; i < SH_COUNT; i++) {
		for (uint8_t e = 0; e < 4; e++) {
			struct wire_pkt p = with_encap(mk_shape(i), e), q;
			size_t n = enc(&p, f, sizeof(f));
			int r = decode_cfg_copy(f, n, e & WIRE_ENCAP_CRC, &q);

			cr_assert_eq(r, WIRE_R_OK, "shape %d encap %u: %s", i, e, wire_reason_str(r));
			cr_assert_eq(q.kind, p.kind, "shape %d encap %u: kind %u, want %u", i, e, q.kind, p.kind);
			assert_pkt_eq(&p, &q);
			cr_assert_eq(wire_pds_class(&q), wire_pds_class(&p), "shape %d", i);
			cr_assert_eq(wire_ses_class(&q), wire_ses_class(&p), "shape %d", i);
		}
	}
}

/* Header sizes (spec 1.3, 1.4): the frame of each shape is below + PDS + SES + extension + payload (+ CRC). */
Test(wire_uet, sizes_every_shape)
{
	static const struct { int shape; size_t uet; } want[] = {
		{ SH_RUD_STD, 12 + 44 + 64 }, { SH_RUDI_REQ_STD, 8 + 44 + 20 }, { SH_UUD_STD, 4 + 44 + 10 },
		{ SH_RUDI_RESP_RSP, 8 + 12 }, { SH_RUDI_RESP_NONE, 8 }, { SH_RUDI_RESP_DATA, 8 + 20 + 32 },
		{ SH_RUDI_RESP_DATA_SMALL, 8 + 12 + 32 }, { SH_ACK_NONE, 12 }, { SH_ACK_RSP, 12 + 12 },
		{ SH_ACK_CC_RSP, 32 + 12 }, { SH_ACK_CC_CREDIT, 32 }, { SH_ACK_CCX, 40 },
		{ SH_ACK_CCX_DATA_SMALL, 40 + 12 + 8 }, { SH_NACK_CCX, 32 }, { SH_NACK_RSP, 16 + 12 }, { SH_CP_NOOP, 16 },
		{ SH_STD_ATOMIC, 12 + 44 + 4 + 8 }, { SH_STD_CAS, 16 + 44 + 36 + 5 }, { SH_STD_RDV_SOM, 12 + 44 + 24 + 64 },
		{ SH_MED_HD, 16 + 32 + 24 }, { SH_MED_CAS, 16 + 32 + 36 + 24 }, { SH_MED_RDV, 16 + 32 + 24 },
		{ SH_SMALL, 12 + 20 }, { SH_SMALL_ATOMIC, 12 + 20 + 4 + 8 }, { SH_RUD_RSP_DATA, 12 + 20 + 48 },
		{ SH_ROD_CC_RSP_DATA_SMALL, 16 + 12 + 48 }, { SH_TSS, 12 + 48 }, { SH_TSS_SSI, 16 + 16 },
		{ SH_TRIM_RUD_PDS, 12 }, { SH_TRIM_RUD_MIN, 16 }, { SH_TRIM_UUD_PDS, 4 }, { SH_TRIM_ROD_CC_MED, 16 },
	};

	for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
		struct wire_pkt p = mk_shape(want[k].shape);
		struct wire_pkt nc = with_encap(p, WIRE_ENCAP_NATIVE | WIRE_ENCAP_CRC);

		cr_assert_eq(wire_frame_len(&p), OFF_PDS + want[k].uet, "shape %d: %zu", want[k].shape, wire_frame_len(&p));
		cr_assert_eq(wire_frame_len(&nc), OFF_PDS - 4 + want[k].uet + (no_trailer(&p) ? 0 : 4),
			     "shape %d native + CRC", want[k].shape);
		cr_assert_eq(wire_ip_len(&nc), wire_frame_len(&nc) - 14);
	}
	cr_assert_eq(wire_data_overhead(0), WIRE_DATA_OVERHEAD);
	cr_assert_eq(wire_data_overhead(WIRE_ENCAP_NATIVE), 102);
	cr_assert_eq(wire_data_overhead(WIRE_ENCAP_CRC), 110);
	cr_assert_eq(wire_data_overhead(WIRE_ENCAP_NATIVE | WIRE_ENCAP_CRC), 106);
	cr_assert_eq(wire_ack_wire_len(0), 78);
	cr_assert_eq(wire_ack_wire_len(WIRE_ENCAP_NATIVE | WIRE_ENCAP_CRC), 78);

	struct wire_pkt d = mk_data(4096, WIRE_SES_F_SOM);

	d.encap = WIRE_ENCAP_NATIVE;
	cr_assert_eq(wire_wire_len(&d), 4096 + 102);
	d.encap = WIRE_ENCAP_CRC;
	cr_assert_eq(wire_wire_len(&d), 4096 + 110);
}

/* Exact bytes of native encapsulation: protocol 253, the entropy header (entropy, reserved 0), no UDP. */
Test(wire_uet, bytes_native_entropy_header)
{
	uint8_t f[256];
	struct wire_pkt p = mk_cp_probe();

	p.encap = WIRE_ENCAP_NATIVE;
	size_t n = enc(&p, f, sizeof(f));

	cr_assert_eq(n, 14 + 20 + 4 + 16);
	cr_assert_eq(f[OFF_IP + 9], WIRE_IPPROTO_UET);
	cr_assert_eq(f[OFF_IP + 2] << 8 | f[OFF_IP + 3], 20 + 4 + 16, "IPv4 total length");
	cr_assert_eq(wire_csum(f + OFF_IP, 20), 0);
	const uint8_t ent[4] = { 0xbe, 0xef, 0x00, 0x00 };

	cr_assert_arr_eq(f + OFF_UDP, ent, 4);
	cr_assert_eq(f[OFF_UDP + 4], 0x5b, "CP PROBE prologue right after the entropy header");
}

/* CRC-32C: the check value of "123456789", and the trailer after a frame's UET bytes, big-endian. */
Test(wire_uet, crc32c_check_value_and_trailer)
{
	uint8_t f[256];
	struct wire_pkt p = mk_nack(), q;

	cr_assert_eq(wire_crc32c((const uint8_t *)"123456789", 9), 0xe3069283u);
	cr_assert_eq(wire_crc32c(f, 0), 0);
	p.encap = WIRE_ENCAP_CRC;
	size_t n = enc(&p, f, sizeof(f));

	cr_assert_eq(n, 58 + 4);
	uint32_t c = wire_crc32c(f + OFF_PDS, 16);

	cr_assert_eq((uint32_t)f[n - 4] << 24 | (uint32_t)f[n - 3] << 16 | (uint32_t)f[n - 2] << 8 | f[n - 1], c);
	cr_assert_eq(decode_cfg_copy(f, n, true, &q), WIRE_R_OK);
	cr_assert_eq(q.encap, WIRE_ENCAP_CRC);
	f[n - 1] ^= 1; /* a wrong trailer */
	cr_assert_eq(decode_cfg_copy(f, n, true, &q), WIRE_R_BAD_CRC);
	f[n - 1] ^= 1;
	f[OFF_PDS + 5] ^= 0x40; /* a flipped bit the trailer covers */
	cr_assert_eq(decode_cfg_copy(f, n, true, &q), WIRE_R_BAD_CRC);
	/* no trailer where one is required */
	p.encap = 0;
	n = enc(&p, f, sizeof(f));
	cr_assert_eq(decode_cfg_copy(f, n, true, &q), WIRE_R_BAD_CRC);
	/* a trailer where none is expected: bytes after a NACK */
	p.encap = WIRE_ENCAP_CRC;
	n = enc(&p, f, sizeof(f));
	cr_assert_eq(decode_cfg_copy(f, n, false, &q), WIRE_R_TRAILING);
	/* a trimmed request carries none, even where trailers are required */
	struct wire_pkt t = mk_trimmed();

	t.encap = WIRE_ENCAP_CRC;
	n = enc(&t, f, sizeof(f));
	cr_assert_eq(n, 58);
	cr_assert_eq(decode_cfg_copy(f, n, true, &q), WIRE_R_OK);
	cr_assert_eq(q.kind, WIRE_KIND_TRIMMED);
}

/* Exact bytes of the SES forms new to the decoder (spec 1.4). */
Test(wire_uet, bytes_ses_medium_small_extensions_responses)
{
	static uint8_t f[WIRE_MAX_FRAME];
	struct wire_pkt p = mk_shape(SH_MED_CAS);
	size_t pds = OFF_PDS + 16;

	enc(&p, f, sizeof(f));
	/* FETCHING_ATOMIC; ver 2 | SOM EOM; rsvd + request_length 0x2345; RI 0x66; job; pid; RI; buffer_offset ... */
	const uint8_t med[32] = { 0x04, 0x83, 0x23, 0x45, 0x66, 0x12, 0x34, 0x56, 0x03, 0x21, 0x00, 0xfe,
				  1, 2, 3, 4, 5, 6, 7, 8, 0x87, 0x65, 0x43, 0x21,
				  0xcc, 0xbb, 0xdd, 0xee, 0xff, 0x00, 0x99, 0x88 };
	const uint8_t cas[8] = { 0x11, 0x0c, 0x03, 0x00, 0x98, 0x76, 0x54, 0x32 };

	cr_assert_arr_eq(f + pds, med, 32);
	cr_assert_arr_eq(f + pds + 32, cas, 8, "compare-and-swap extension: opcode, datatype, sem_ctl, rsvd, compare");
	cr_assert_eq(f[pds + 32 + 20], 0x01, "swap value at 20 of the extension");

	p = mk_shape(SH_SMALL_ATOMIC);
	enc(&p, f, sizeof(f));
	pds = OFF_PDS + 12;
	const uint8_t small[20] = { 0x03, 0x83, 0x23, 0x45, 0x66, 0x12, 0x34, 0x56, 0x03, 0x21, 0x00, 0xfe,
				    1, 2, 3, 4, 5, 6, 7, 8 };

	cr_assert_arr_eq(f + pds, small, 20);
	cr_assert_eq(f[pds + 20], 0x08, "atomic opcode after the small header");

	p = mk_shape(SH_STD_RDV_SOM);
	enc(&p, f, sizeof(f));
	const uint8_t rdv[24] = { 0, 0, 0, 64, 0x01, 0x23, 0x04, 0x56, 0, 0, 0, 0, 0, 0, 0x10, 0,
				  0x0f, 0x0e, 0x0d, 0x0c, 0x0b, 0x0a, 0x09, 0x08 };

	cr_assert_arr_eq(f + OFF_PDS + 12 + 44, rdv, 24);

	p = mk_shape(SH_RUDI_RESP_DATA);
	enc(&p, f, sizeof(f));
	/* RUDI_RESP 5 << 11 | RESPONSE_DATA 5 << 7 | M = 0x2aa0, rsvd, pkt_id; then list 1 | WITH_DATA 2, ver 1 | rc 9,
	 * message id, rsvd, job, read request id, payload_length 32, modified length, message offset */
	const uint8_t rudi[8] = { 0x2a, 0xa0, 0, 0, 0x99, 0x88, 0x77, 0x67 };
	const uint8_t rd[20] = { 0x42, 0x49, 0x12, 0x35, 0x00, 0x65, 0x43, 0x21, 0x43, 0x21, 0x00, 0x20,
				 0x87, 0x65, 0x43, 0x21, 0x09, 0xab, 0xcd, 0xef };

	cr_assert_arr_eq(f + OFF_PDS, rudi, 8);
	cr_assert_arr_eq(f + OFF_PDS + 8, rd, 20);

	p = mk_shape(SH_ACK_CCX_DATA_SMALL);
	enc(&p, f, sizeof(f));
	const uint8_t rs[12] = { 0x42, 0x49, 0x00, 0x08, 0x00, 0x65, 0x43, 0x21, 0x00, 0x00, 0x12, 0x34 };
	const uint8_t st[8] = { 0x12, 0x34, 0x56, 0, 0, 0, 0x87, 0x65 };

	cr_assert_eq(f[OFF_PDS] >> 3, WIRE_PDS_ACK_CCX);
	cr_assert_arr_eq(f + OFF_PDS + 24, st, 8, "ack_cc_state");
	cr_assert_arr_eq(f + OFF_PDS + 40, rs, 12);

	p = mk_shape(SH_TSS_SSI);
	enc(&p, f, sizeof(f));
	/* type 1 << 27 | SP << 26 | SDI 0x123456; SSI; epoch/TSC */
	const uint8_t tss[16] = { 0x0c, 0x12, 0x34, 0x56, 0xca, 0xfe, 0xf0, 0x0d, 0, 1, 0, 0, 0, 0, 0, 0x42 };

	cr_assert_arr_eq(f + OFF_PDS, tss, 16);
}

/* What the models act on: the rest of UET is WIRE_KIND_UET, counted, not used. */
Test(wire_uet, kinds_the_models_act_on)
{
	uint8_t f[512];
	struct wire_pkt q, d = mk_data(64, WIRE_SES_F_SOM), a = mk_ack(false), c = mk_cp_probe(), n = mk_nack();

	d.ses.opcode = WIRE_SES_OP_SEND;
	cr_assert_eq(decode_copy(f, enc(&d, f, sizeof(f)), &q), WIRE_R_OK);
	cr_assert_eq(q.kind, WIRE_KIND_DATA, "SEND on RUD_CC with a standard header");
	d.ses.opcode = WIRE_SES_OP_READ;
	cr_assert_eq(decode_copy(f, enc(&d, f, sizeof(f)), &q), WIRE_R_OK);
	cr_assert_eq(q.kind, WIRE_KIND_UET, "READ: not a data packet of the model");
	d.ses.opcode = WIRE_SES_OP_TAGGED_SEND;
	cr_assert_eq(decode_copy(f, enc(&d, f, sizeof(f)), &q), WIRE_R_OK);
	cr_assert_eq(q.kind, WIRE_KIND_UET);
	a.pds.cc_type = 1; /* CREDIT */
	a.kind = WIRE_KIND_UET;
	a.ack.cc_raw[0] = 7;
	cr_assert_eq(decode_copy(f, enc(&a, f, sizeof(f)), &q), WIRE_R_OK);
	cr_assert_eq(q.kind, WIRE_KIND_UET, "ACK_CC with credit state");
	for (uint8_t t = WIRE_CTL_NOOP; t <= WIRE_CTL_NEGOTIATION; t++) {
		c.pds.next_hdr = t;
		cr_assert_eq(decode_copy(f, enc(&c, f, sizeof(f)), &q), WIRE_R_OK);
		cr_assert_eq(q.kind, t == WIRE_CTL_PROBE ? WIRE_KIND_CP : WIRE_KIND_UET, "ctl_type %u", t);
		cr_assert_eq(wire_pds_class(&q), WIRE_PC_CP_NOOP + t);
	}
	n.pds.flags = WIRE_NACK_F_NT;
	cr_assert_eq(decode_copy(f, enc(&n, f, sizeof(f)), &q), WIRE_R_OK);
	cr_assert_eq(q.kind, WIRE_KIND_NACK, "a RUDI NACK is a NACK");
}

/* Classes and their keys: one per PDS type (a CP per ctl_type) and SES form, snake_case, distinct. */
Test(wire_uet, class_keys)
{
	for (int c = 0; c < WIRE_PC_COUNT; c++) {
		const char *k = wire_pds_class_key(c);

		cr_assert_str_neq(k, "unknown");
		cr_assert_str_neq(wire_pds_class_str(c), "unknown");
		for (const char *s = k; *s; s++)
			cr_assert((*s >= 'a' && *s <= 'z') || *s == '_' || (*s >= '0' && *s <= '9'), "%s", k);
		for (int o = 0; o < c; o++)
			cr_assert_str_neq(k, wire_pds_class_key(o));
	}
	for (int c = 0; c < WIRE_SC_COUNT; c++) {
		cr_assert_str_neq(wire_ses_class_key(c), "unknown");
		cr_assert_str_neq(wire_ses_class_str(c), "unknown");
		for (int o = 0; o < c; o++)
			cr_assert_str_neq(wire_ses_class_key(c), wire_ses_class_key(o));
	}
	cr_assert_str_eq(wire_pds_class_key(-1), "unknown");
	cr_assert_str_eq(wire_ses_class_key(WIRE_SC_COUNT), "unknown");
	cr_assert_str_eq(wire_pds_class_key(WIRE_PC_RUD_CC_REQ), "rud_cc_req");
	cr_assert_str_eq(wire_pds_class_key(WIRE_PC_CP_PROBE), "cp_probe");

	struct wire_pkt pfc = { .kind = WIRE_KIND_PFC }, cm = mk_cm(WIRE_CM_REQ);

	cr_assert_eq(wire_pds_class(&pfc), -1);
	cr_assert_eq(wire_ses_class(&cm), -1);
}

/* Whether PDS @p type is a request (a switch may trim it). */
static bool is_req(uint8_t type)
{
	return type == WIRE_PDS_RUD_REQ || type == WIRE_PDS_ROD_REQ || type == WIRE_PDS_RUDI_REQ ||
	       type == WIRE_PDS_UUD_REQ || type == WIRE_PDS_RUD_CC_REQ || type == WIRE_PDS_ROD_CC_REQ;
}

/* The test's own table of header sizes (spec 1.3, 1.4) for shape @p p: PDS (or TSS), SES, extension. */
static void uet_sizes(const struct wire_pkt *p, size_t *pds, size_t *ses, size_t *ext)
{
	static const size_t pds_len[15] = { 0, 0, 12, 12, 8, 8, 4, 12, 32, 40, 16, 16, 32, 16, 16 };
	static const size_t ses_len[7] = { 0, 20, 32, 44, 12, 20, 12 };
	uint8_t t = p->kind == WIRE_KIND_TRIMMED ? WIRE_PDS_ROD_CC_REQ : p->pds.type, nh = p->pds.next_hdr;
	int x = p->kind == WIRE_KIND_TRIMMED || p->trim_len ? WIRE_EXT_NONE : wire_ses_ext(nh, &p->ses);

	*pds = t == WIRE_PDS_TSS ? (p->tss.sp ? 16 : 12) : pds_len[t];
	*ses = t == WIRE_PDS_CP || t == WIRE_PDS_TSS || nh > 6 ? 0 : ses_len[nh];
	*ext = x == WIRE_EXT_ATOMIC ? 4 : x == WIRE_EXT_CAS ? 36 : x == WIRE_EXT_RDV ? 24 : 0;
}

/*
 * The reason a UET frame of shape @p p cut to @p u of its UET bytes (lengths fixed) must get, from its layout: short
 * PDS / TSS / SES / extension, a trimmed request where the trim rule says so (spec 1.6: after the PDS header, or at
 * 16 B inside the SES header), a payload length field that disagrees, or a shorter payload where no field gives it.
 */
static int cut_expect_uet(const struct wire_pkt *p, size_t u)
{
	size_t pds, ses, ext;
	uint8_t nh = p->pds.next_hdr;
	bool plen = (nh == WIRE_NH_REQ_STD && !(p->ses.flags & WIRE_SES_F_SOM)) || nh == WIRE_NH_RESPONSE_DATA ||
		    nh == WIRE_NH_RESPONSE_DATA_SMALL;

	uet_sizes(p, &pds, &ses, &ext);
	if (u < 2)
		return WIRE_R_SHORT_PDS;
	if (p->pds.type == WIRE_PDS_TSS && p->kind == WIRE_KIND_UET)
		return u < pds + WIRE_TSS_ICV_LEN ? WIRE_R_SHORT_TSS : WIRE_R_OK;
	if (u < pds)
		return WIRE_R_SHORT_PDS;
	if ((is_req(p->pds.type) || p->kind == WIRE_KIND_TRIMMED) && (u == pds || (u == 16 && pds + ses > u)))
		return WIRE_R_OK;
	if (u < pds + ses)
		return WIRE_R_SHORT_SES;
	if (u < pds + ses + ext)
		return WIRE_R_SHORT_SES_EXT;
	return plen ? WIRE_R_BAD_SES_LEN : WIRE_R_OK;
}

/* Make a native frame's IP datagram @p dgram bytes long: total length and header checksum (no UDP length). */
static void set_ip_len(uint8_t *f, size_t dgram)
{
	f[OFF_IP + 2] = (uint8_t)(dgram >> 8);
	f[OFF_IP + 3] = (uint8_t)dgram;
	f[OFF_IP + 10] = 0;
	f[OFF_IP + 11] = 0;
	uint16_t c = wire_csum(f + OFF_IP, 20);

	f[OFF_IP + 10] = (uint8_t)(c >> 8);
	f[OFF_IP + 11] = (uint8_t)c;
}

/* Every shape, UDP and native, cut at every byte of the frame without fixing the lengths: never accepted; and cut
 * at every UET byte with the IP (and UDP) lengths fixed: the reason its layout says, the payload what is left. */
Test(wire_uet, truncate_every_shape_at_every_byte)
{
	static uint8_t f[WIRE_MAX_FRAME];

	for (int i = 0; i < SH_COUNT; i++) {
		for (uint8_t e = 0; e < 2; e++) {
			struct wire_pkt p = with_encap(mk_shape(i), e), q;
			size_t n = enc(&p, f, sizeof(f)), below = e ? OFF_PDS - 4 : OFF_PDS, pds, ses, ext;

			uet_sizes(&p, &pds, &ses, &ext);
			for (size_t cut = 0; cut < n; cut++)
				cr_assert_neq(decode_copy(f, cut, &q), WIRE_R_OK, "shape %d encap %u cut %zu", i, e, cut);
			for (size_t cut = below; cut < n; cut++) {
				size_t u = cut - below;
				int want = cut_expect_uet(&p, u);

				if (e)
					set_ip_len(f, cut - OFF_IP);
				else
					set_dgram(f, cut - OFF_IP);
				int got = decode_copy(f, cut, &q);

				cr_assert_eq(got, want, "shape %d encap %u UET bytes %zu of %zu: %s, want %s", i, e, u,
					     n - below, wire_reason_str(got), wire_reason_str(want));
				if (got == WIRE_R_OK && q.kind != WIRE_KIND_TRIMMED && q.trim_len == 0)
					cr_assert_eq(q.payload_len, u - pds - ses - ext, "shape %d cut %zu", i, cut);
				if (got == WIRE_R_OK && u == pds && is_req(q.pds.type))
					cr_assert(q.kind == WIRE_KIND_TRIMMED || q.trim_len == pds, "shape %d: trimmed", i);
			}
		}
	}
}

Test(wire_uet, reasons_entropy_trailing_ext)
{
	uint8_t f[512];
	struct wire_pkt p = mk_shape(SH_ACK_CC_RSP), q;
	size_t n = enc(&p, f, sizeof(f));

	/* bytes after a response header (no payload follows one) */
	f[n] = 0;
	set_dgram(f, n + 1 - OFF_IP);
	cr_assert_eq(decode_copy(f, n + 1, &q), WIRE_R_TRAILING);
	/* a native datagram too short for its entropy header */
	p = with_encap(mk_cp_probe(), WIRE_ENCAP_NATIVE);
	n = enc(&p, f, sizeof(f));
	for (size_t dg = 20; dg < 24; dg++) {
		set_ip_len(f, dg);
		cr_assert_eq(decode_copy(f, OFF_IP + dg, &q), WIRE_R_SHORT_ENTROPY, "datagram %zu", dg);
	}
	/* an atomic opcode whose extension is missing: the payload is too short to hold it */
	p = mk_shape(SH_STD_ATOMIC);
	p.payload_len = 0;
	p.ses.opcode = WIRE_SES_OP_WRITE; /* encoded without the extension ... */
	n = enc(&p, f, sizeof(f));
	f[OFF_PDS + 12] = WIRE_SES_OP_ATOMIC; /* ... then named atomic */
	cr_assert_eq(decode_copy(f, n, &q), WIRE_R_SHORT_SES_EXT);
}

/* Padding after a native datagram is Ethernet padding, as after a UDP one. */
Test(wire_uet, padding_after_native_datagram)
{
	struct wire_pkt all[] = { with_encap(mk_cp_probe(), WIRE_ENCAP_NATIVE), with_encap(mk_trimmed(), WIRE_ENCAP_NATIVE),
				  with_encap(mk_shape(SH_TRIM_UUD_PDS), WIRE_ENCAP_NATIVE) };

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		uint8_t f[128] = { 0 };
		struct wire_pkt q;
		size_t n = enc(&all[i], f, sizeof(f));

		cr_assert_lt(n, 60);
		cr_assert_eq(decode_copy(f, 60, &q), WIRE_R_OK, "frame %zu", i);
		assert_pkt_eq(&all[i], &q);
	}
}

/* The prefilled buffer takes the frames laid out as it is (UDP data without trailer, anything ending before a data
 * payload would start); a native or CRC data frame is refused there and encoded whole elsewhere. */
Test(wire_uet, prefilled_fits)
{
	static uint8_t pre[WIRE_MAX_FRAME], full[WIRE_MAX_FRAME];
	struct wire_pkt d = mk_data(1000, 0), a = mk_ack(false), u = mk_shape(SH_RUD_STD), c = mk_shape(SH_CP_NOOP);

	wire_prefill_payload(pre, sizeof(pre));
	cr_assert(wire_prefilled_fits(&d));
	d.encap = WIRE_ENCAP_NATIVE;
	cr_assert_not(wire_prefilled_fits(&d));
	cr_assert_eq(wire_encode_prefilled(&d, pre, sizeof(pre)), -EINVAL);
	d.encap = WIRE_ENCAP_CRC;
	cr_assert_not(wire_prefilled_fits(&d));
	cr_assert_not(wire_prefilled_fits(&u), "a UET frame with a payload past the data headers");
	a = with_encap(a, WIRE_ENCAP_NATIVE | WIRE_ENCAP_CRC);
	c = with_encap(c, WIRE_ENCAP_CRC);
	const struct wire_pkt seq[] = { a, mk_data(4096, 0), c, mk_data(300, WIRE_SES_F_SOM), mk_shape(SH_ACK_CC_RSP) };

	for (size_t k = 0; k < sizeof(seq) / sizeof(seq[0]); k++) {
		cr_assert(wire_prefilled_fits(&seq[k]), "frame %zu", k);
		int n = wire_encode_prefilled(&seq[k], pre, sizeof(pre));

		cr_assert_eq(n, wire_encode(&seq[k], full, sizeof(full)), "frame %zu", k);
		cr_assert_arr_eq(pre, full, (size_t)n, "frame %zu differs from wire_encode", k);
	}
}

/* Encoding refuses shapes that are not UET 1.0. */
Test(wire_uet, encode_einval_not_uet)
{
	uint8_t f[512];
	struct wire_pkt p = mk_shape(SH_RUD_STD);

	p.pds.type = 0;
	cr_assert_eq(wire_encode(&p, f, sizeof(f)), -EINVAL, "reserved type");
	p.pds.type = 15;
	cr_assert_eq(wire_frame_len(&p), 0);
	p = mk_shape(SH_RUD_STD);
	p.pds.next_hdr = WIRE_NH_RESPONSE;
	cr_assert_eq(wire_encode(&p, f, sizeof(f)), -EINVAL, "a request with a response without data");
	p.pds.next_hdr = 7;
	cr_assert_eq(wire_encode(&p, f, sizeof(f)), -EINVAL, "reserved next_hdr");
	p = mk_shape(SH_CP_NOOP);
	p.pds.next_hdr = 10;
	cr_assert_eq(wire_encode(&p, f, sizeof(f)), -EINVAL, "reserved ctl_type");
	p = mk_shape(SH_TSS);
	p.payload_len = WIRE_TSS_ICV_LEN - 1;
	cr_assert_eq(wire_encode(&p, f, sizeof(f)), -EINVAL, "TSS without room for its ICV");
	p = mk_shape(SH_TRIM_RUD_MIN);
	p.trim_len = 14;
	cr_assert_eq(wire_encode(&p, f, sizeof(f)), -EINVAL, "a trim that is neither after the PDS header nor at 16");
	p = mk_shape(SH_ACK_RSP);
	p.trim_len = 12;
	cr_assert_eq(wire_encode(&p, f, sizeof(f)), -EINVAL, "only requests are trimmed");
}

/* Random mutations of every shape, both encapsulations, with and without a required trailer: never a crash, and
 * whatever decodes re-encodes to a frame that decodes to the same fields. */
Test(wire_uet, mutate_every_shape_never_crash)
{
	static uint8_t f[WIRE_MAX_FRAME], g[WIRE_MAX_FRAME];
	uint64_t s = 0x0123456789abcdefULL;
	size_t ok = 0;

	for (int i = 0; i < 60000; i++) {
		uint8_t e = (uint8_t)(i / SH_COUNT % 4);
		struct wire_pkt p = with_encap(mk_shape(i % SH_COUNT), e), q, r;
		size_t n = enc(&p, f, sizeof(f));
		uint64_t x = rng_next(&s);
		bool crc = e & WIRE_ENCAP_CRC;

		size_t below = e & WIRE_ENCAP_NATIVE ? OFF_PDS - 4 : OFF_PDS; /* mutate the UET bytes */

		f[below + x % (n - below)] ^= (uint8_t)((x >> 32) | 1);
		int rc = decode_cfg_copy(f, n, crc, &q);

		cr_assert(rc >= 0 && rc < WIRE_R_COUNT);
		if (rc != WIRE_R_OK)
			continue;
		ok++;
		size_t m = wire_frame_len(&q);
		cr_assert_gt(m, 0, "shape %d: a decoded frame must re-encode", i % SH_COUNT);
		cr_assert_eq(wire_encode(&q, g, sizeof(g)), (int)m);
		cr_assert_eq(decode_cfg_copy(g, m, crc, &r), WIRE_R_OK);
		assert_pkt_eq(&q, &r);
	}
	cr_assert_gt(ok, 0);
}

/* A real device's frame (WIRE_KIND_RAW): an ICMP echo taken, marked CE, readdressed and encoded is its bytes with
 * only the MACs, the ECN bits and the IPv4 checksum changed; ARP is routed by its target; non-IPv4 is refused. */
Test(wire_raw, take_mark_encode)
{
	uint8_t data[40], frame[128], out[128];
	struct wire_icmp m = { .dst_mac = { 2, 0, 0, 0, 0, 4 }, .src_mac = { 2, 0, 0, 0, 0, 2 }, .src_ip = 0x0a000002,
			       .dst_ip = 0x0a000004, .ttl = 64, .type = WIRE_ICMP_ECHO_REQUEST, .id = 7, .seq = 1,
			       .data = data, .data_len = sizeof(data) };
	struct wire_pkt p = { 0 };

	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 7);
	int n = wire_icmp_encode(&m, frame, sizeof(frame));
	cr_assert_gt(n, 0);
	frame[15] = WIRE_ECN_ECT0; /* TOS: DSCP 0, ECT(0) */
	frame[24] = frame[25] = 0;
	uint16_t c = wire_csum(frame + 14, 20);
	frame[24] = (uint8_t)(c >> 8);
	frame[25] = (uint8_t)c;
	cr_assert_eq(wire_raw_take(frame, (size_t)n, WIRE_UDP_PORT_UET, &p), WIRE_R_OK);
	cr_assert_eq(p.kind, WIRE_KIND_RAW);
	cr_assert_eq(p.raw.cls, WIRE_FC_ICMP);
	cr_assert_eq(p.dst_ip, 0x0a000004);
	cr_assert_eq(p.ecn, WIRE_ECN_ECT0);
	cr_assert_eq(wire_frame_len(&p), (size_t)n);
	p.raw.buf = frame;
	cr_assert_eq(wire_encode(&p, out, sizeof(out)), n);
	cr_assert_arr_eq(out, frame, (size_t)n); /* unchanged: byte for byte */
	p.ecn = WIRE_ECN_CE;
	memset(p.dst_mac, 0xaa, 6);
	cr_assert_eq(wire_encode(&p, out, sizeof(out)), n);
	cr_assert_eq(out[15], WIRE_ECN_CE);
	cr_assert_eq(wire_csum(out + 14, 20), 0, "IPv4 checksum recomputed");
	cr_assert_eq(out[0], 0xaa);
	cr_assert_arr_eq(out + 34, frame + 34, (size_t)n - 34);
	struct wire_icmp back;
	cr_assert_eq(wire_icmp_decode(out, (size_t)n, &back), WIRE_R_OK);
	cr_assert_eq(wire_encode_prefilled(&p, out, sizeof(out)), -EINVAL);
	cr_assert_eq(wire_encode(&p, out, 20), -ENOSPC);

	struct wire_arp a = { .eth_dst = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff }, .eth_src = { 2, 0, 0, 0, 0, 2 },
			      .op = WIRE_ARP_REQUEST, .sha = { 2, 0, 0, 0, 0, 2 }, .spa = 0x0a000002, .tpa = 0x0a000004 };
	struct wire_pkt q = { 0 };
	n = wire_arp_encode(&a, frame, sizeof(frame));
	cr_assert_eq(wire_raw_take(frame, (size_t)n, WIRE_UDP_PORT_UET, &q), WIRE_R_OK);
	cr_assert_eq(q.raw.cls, WIRE_FC_ARP);
	cr_assert_eq(q.dst_ip, 0x0a000004, "routed by its target protocol address");
	cr_assert_eq(q.src_ip, 0x0a000002);
	cr_assert_eq(wire_fabric_class(&q), WIRE_FC_ARP);

	frame[12] = 0x86; /* IPv6 */
	frame[13] = 0xdd;
	struct wire_pkt r = { 0 };
	cr_assert_eq(wire_raw_take(frame, (size_t)n, WIRE_UDP_PORT_UET, &r), WIRE_R_NOT_IPV4);
	cr_assert_eq(wire_fabric_class_bytes(frame, (size_t)n, WIRE_UDP_PORT_UET), WIRE_FC_NON_IPV4);
	cr_assert_str_eq(wire_fabric_class_key(WIRE_FC_OTHER_IPV4), "other_ipv4");
	cr_assert_str_eq(wire_fabric_class_key(WIRE_FC_COUNT), "unknown");
}

/* The in-place rewrite of a real device's frame patches the IPv4 checksum (RFC 1624, eqn. 3) for the TOS and TTL
 * words it changes: over random valid headers and every TOS and TTL change, the patched checksum is the one the
 * header summed again gives (wire_csum() over it is 0), and nothing else in the header moves. */
Test(wire_raw, csum_patch_equals_the_sum_done_again_for_tos_and_ttl)
{
	uint32_t x = 12345;

	for (int k = 0; k < 20000; k++) {
		uint8_t ip[WIRE_IPV4_LEN], want[WIRE_IPV4_LEN];

		for (int i = 0; i < WIRE_IPV4_LEN; i++) {
			x = x * 1103515245u + 12345u;
			ip[i] = (uint8_t)(x >> 16);
		}
		ip[0] = 0x45;
		ip[10] = ip[11] = 0;
		uint16_t c = wire_csum(ip, WIRE_IPV4_LEN);
		ip[10] = (uint8_t)(c >> 8);
		ip[11] = (uint8_t)c;
		memcpy(want, ip, sizeof(ip));
		const uint8_t tos = (uint8_t)(x >> 8), ttl = (uint8_t)x;

		wire_csum_patch(ip, 0, 1, tos);
		wire_csum_patch(ip, 8, 8, ttl);
		want[1] = tos;
		want[8] = ttl;
		cr_assert_eq(wire_csum(ip, WIRE_IPV4_LEN), 0, "header %d: checksum valid", k);
		want[10] = want[11] = 0;
		c = wire_csum(want, WIRE_IPV4_LEN);
		want[10] = (uint8_t)(c >> 8);
		want[11] = (uint8_t)c;
		cr_assert_arr_eq(ip, want, sizeof(ip), "header %d: as summed again", k);
	}
}
