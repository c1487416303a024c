/* Criterion tests of the 802.1Q tag codec (wire_vlan.c): the exact bytes a tag puts in front of a frame's
 * ethertype, every field read back, a tagged UET frame decoded once untagged, every reason, truncation at every
 * byte. */
#include "wire.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

static struct wire_pkt mk_data(void)
{
	struct wire_pkt p;

	memset(&p, 0, sizeof(p));
	p.kind = WIRE_KIND_DATA;
	memcpy(p.dst_mac, (const uint8_t[6]){ 0x52, 0x54, 0, 0x12, 0x34, 0x56 }, 6);
	memcpy(p.src_mac, (const uint8_t[6]){ 0x02, 0, 0, 0, 0, 1 }, 6);
	p.src_ip = 0x0a010001;
	p.dst_ip = 0x0a020001;
	p.ttl = WIRE_TTL;
	p.ecn = WIRE_ECN_ECT1;
	p.sport = 0xc001;
	p.dport = WIRE_UDP_PORT_UET;
	p.pds.type = WIRE_PDS_RUD_CC_REQ;
	p.pds.next_hdr = WIRE_NH_REQ_STD;
	p.ses.opcode = WIRE_SES_OP_WRITE;
	p.ses.ver = 1;
	p.ses.flags = WIRE_SES_F_SOM | WIRE_SES_F_EOM;
	p.payload_len = 1024;
	return p;
}

Test(wire_vlan, push_writes_tag_in_front_of_ethertype)
{
	uint8_t buf[WIRE_VLAN_LEN + 2048], plain[2048];
	struct wire_pkt p = mk_data();
	int n = wire_encode(&p, buf + WIRE_VLAN_LEN, sizeof(buf) - WIRE_VLAN_LEN);

	cr_assert_gt(n, 0);
	memcpy(plain, buf + WIRE_VLAN_LEN, (size_t)n);
	size_t t = wire_vlan_push(buf, (size_t)n, 10, 5);

	cr_assert_eq(t, (size_t)n + 4);
	cr_assert_arr_eq(buf, plain, 12, "the MACs first");
	/* TPID 0x8100, then PCP 5, DEI 0, VID 10: 101 0 000000001010 = 0xa00a */
	cr_assert_eq(buf[12], 0x81);
	cr_assert_eq(buf[13], 0x00);
	cr_assert_eq(buf[14], 0xa0);
	cr_assert_eq(buf[15], 0x0a);
	cr_assert_arr_eq(buf + 16, plain + 12, (size_t)n - 12, "then the untagged frame from its ethertype on");
}

Test(wire_vlan, decode_reads_every_field)
{
	uint8_t f[64] = { 0 };
	struct wire_vlan v;

	f[12] = 0x81, f[13] = 0x00, f[14] = 0xf0 | 0x0f, f[15] = 0xfe, f[16] = 0x08, f[17] = 0x06;
	cr_assert_eq(wire_vlan_decode(f, sizeof(f), &v), WIRE_R_OK);
	cr_assert_eq(v.pcp, 7);
	cr_assert_eq(v.dei, 1);
	cr_assert_eq(v.vid, 0xffe);
	cr_assert_eq(v.ethertype, WIRE_ETHERTYPE_ARP);
	for (uint8_t pcp = 0; pcp < 8; pcp++) {
		uint8_t b[WIRE_VLAN_LEN + 60] = { 0 };
		b[WIRE_VLAN_LEN + 12] = 0x08;
		cr_assert_eq(wire_vlan_push(b, 60, 4094, pcp), 64);
		cr_assert_eq(wire_vlan_decode(b, 64, &v), WIRE_R_OK);
		cr_assert_eq(v.pcp, pcp);
		cr_assert_eq(v.dei, 0);
		cr_assert_eq(v.vid, 4094);
		cr_assert_eq(v.ethertype, WIRE_ETHERTYPE_IPV4);
	}
}

Test(wire_vlan, tagged_uet_frame_decodes_once_stripped)
{
	uint8_t buf[WIRE_VLAN_LEN + 2048], out[2048];
	struct wire_pkt p = mk_data(), q;
	int n = wire_encode(&p, buf + WIRE_VLAN_LEN, sizeof(buf) - WIRE_VLAN_LEN);
	size_t t = wire_vlan_push(buf, (size_t)n, 100, 3);

	cr_assert_eq(wire_decode(buf, t, WIRE_UDP_PORT_UET, &q), WIRE_R_NOT_IPV4, "tagged, the UET decoder refuses it");
	int u = wire_vlan_strip(buf, t, out, sizeof(out));
	uint8_t plain[2048];
	cr_assert_eq(u, n);
	cr_assert_eq(wire_encode(&p, plain, sizeof(plain)), n);
	cr_assert_arr_eq(out, plain, (size_t)n, "stripped: the untagged encoding, byte for byte");
	cr_assert_eq(wire_decode(out, (size_t)u, WIRE_UDP_PORT_UET, &q), WIRE_R_OK);
	cr_assert_eq(q.kind, WIRE_KIND_DATA);
	cr_assert_eq(q.payload_len, 1024);
	cr_assert_eq(q.sport, 0xc001);
	cr_assert_eq(wire_vlan_strip(buf, t, out, (size_t)n - 1), -ENOSPC);
}

Test(wire_vlan, every_reason)
{
	uint8_t f[64] = { 0 };
	struct wire_vlan v;

	cr_assert_eq(wire_vlan_decode(f, 13, &v), WIRE_R_SHORT_ETH);
	f[12] = 0x08;
	cr_assert_eq(wire_vlan_decode(f, 60, &v), WIRE_R_NOT_VLAN);
	f[12] = 0x88, f[13] = 0xa8; /* an 802.1ad S-tag is not a C-tag */
	cr_assert_eq(wire_vlan_decode(f, 60, &v), WIRE_R_NOT_VLAN);
	f[12] = 0x81, f[13] = 0x00;
	cr_assert_eq(wire_vlan_decode(f, 17, &v), WIRE_R_SHORT_VLAN);
	cr_assert_eq(wire_vlan_decode(f, 18, &v), WIRE_R_OK);
	cr_assert_eq(wire_vlan_strip(f, 17, f + 32, 32), -EINVAL);
	cr_assert_str_eq(wire_reason_key(WIRE_R_SHORT_VLAN), "short_vlan");
	cr_assert_str_eq(wire_reason_key(WIRE_R_NOT_VLAN), "not_vlan");
}

Test(wire_vlan, truncate_every_byte)
{
	uint8_t buf[WIRE_VLAN_LEN + 2048], out[2048];
	struct wire_pkt p = mk_data(), q;
	int n = wire_encode(&p, buf + WIRE_VLAN_LEN, sizeof(buf) - WIRE_VLAN_LEN);
	size_t t = wire_vlan_push(buf, (size_t)n, 7, 1);
	struct wire_vlan v;

	for (size_t cut = 0; cut < t; cut++) {
		int rc = wire_vlan_decode(buf, cut, &v);
		cr_assert_eq(rc, cut < WIRE_ETH_LEN ? WIRE_R_SHORT_ETH : cut < WIRE_VLAN_TAGGED_MIN ? WIRE_R_SHORT_VLAN
											       : WIRE_R_OK, "cut %zu", cut);
		if (rc != WIRE_R_OK)
			continue;
		int u = wire_vlan_strip(buf, cut, out, sizeof(out));
		cr_assert_eq(u, (int)cut - 4);
		cr_assert_neq(wire_decode(out, (size_t)u, WIRE_UDP_PORT_UET, &q), WIRE_R_OK, "cut %zu: a cut frame is refused", cut);
	}
}
