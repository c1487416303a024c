/* The frames a host on a real network answers besides UET: ARP (RFC 826) and ICMP echo (RFC 792). */
#include "wire.h"
#include "wire_pvt.h"

#include <errno.h>
#include <string.h>

/* ARP message offsets, from the end of the Ethernet header. */
#define ARP_HTYPE 0
#define ARP_PTYPE 2
#define ARP_HLEN 4
#define ARP_PLEN 5
#define ARP_OP 6
#define ARP_SHA 8
#define ARP_SPA 14
#define ARP_THA 18
#define ARP_TPA 24
#define ARP_HTYPE_ETHERNET 1
#define ARP_HLEN_ETHERNET 6
#define ARP_PLEN_IPV4 4

/* ICMP header offsets. */
#define ICMP_TYPE 0
#define ICMP_CODE 1
#define ICMP_CSUM 2
#define ICMP_ID 4
#define ICMP_SEQ 6

/* Everything before the ICMP header. */
#define ICMP_OFF (WIRE_ETH_LEN + WIRE_IPV4_LEN)

int wire_arp_decode(const uint8_t *buf, size_t len, struct wire_arp *out)
{
	memset(out, 0, sizeof(*out));
	if (len < WIRE_ETH_LEN)
		return WIRE_R_SHORT_ETH;
	if (get_be16(buf + ETH_TYPE) != WIRE_ETHERTYPE_ARP)
		return WIRE_R_NOT_ARP;

	const uint8_t *a = buf + WIRE_ETH_LEN;
	size_t n = len - WIRE_ETH_LEN;

	if (n < WIRE_ARP_LEN)
		return WIRE_R_SHORT_ARP;
	if (get_be16(a + ARP_HTYPE) != ARP_HTYPE_ETHERNET || get_be16(a + ARP_PTYPE) != WIRE_ETHERTYPE_IPV4 ||
	    a[ARP_HLEN] != ARP_HLEN_ETHERNET || a[ARP_PLEN] != ARP_PLEN_IPV4)
		return WIRE_R_BAD_ARP;
	out->op = get_be16(a + ARP_OP);
	if (out->op != WIRE_ARP_REQUEST && out->op != WIRE_ARP_REPLY)
		return WIRE_R_BAD_ARP;
	memcpy(out->eth_dst, buf + ETH_DST, 6);
	memcpy(out->eth_src, buf + ETH_SRC, 6);
	memcpy(out->sha, a + ARP_SHA, 6);
	out->spa = get_be32(a + ARP_SPA);
	memcpy(out->tha, a + ARP_THA, 6);
	out->tpa = get_be32(a + ARP_TPA);
	return WIRE_R_OK;
}

int wire_arp_encode(const struct wire_arp *m, uint8_t *buf, size_t cap)
{
	if (cap < WIRE_ETH_MIN_FRAME)
		return -ENOSPC;
	memset(buf, 0, WIRE_ETH_MIN_FRAME);
	memcpy(buf + ETH_DST, m->eth_dst, 6);
	memcpy(buf + ETH_SRC, m->eth_src, 6);
	put_be16(buf + ETH_TYPE, WIRE_ETHERTYPE_ARP);

	uint8_t *a = buf + WIRE_ETH_LEN;

	put_be16(a + ARP_HTYPE, ARP_HTYPE_ETHERNET);
	put_be16(a + ARP_PTYPE, WIRE_ETHERTYPE_IPV4);
	a[ARP_HLEN] = ARP_HLEN_ETHERNET;
	a[ARP_PLEN] = ARP_PLEN_IPV4;
	put_be16(a + ARP_OP, m->op);
	memcpy(a + ARP_SHA, m->sha, 6);
	put_be32(a + ARP_SPA, m->spa);
	memcpy(a + ARP_THA, m->tha, 6);
	put_be32(a + ARP_TPA, m->tpa);
	return WIRE_ETH_MIN_FRAME;
}

int wire_icmp_decode(const uint8_t *buf, size_t len, struct wire_icmp *out)
{
	struct wire_ipv4 ip;
	int rc = wire_ipv4_decode(buf, len, &ip);

	if (rc != WIRE_R_OK) {
		memset(out, 0, sizeof(*out));
		return rc;
	}
	return wire_icmp_decode_ipv4(buf, len, &ip, out);
}

int wire_icmp_decode_ipv4(const uint8_t *buf, size_t len, const struct wire_ipv4 *ip, struct wire_icmp *out)
{
	memset(out, 0, sizeof(*out));
	if (ip->l4_off > len || ip->l4_len > len - ip->l4_off) /* not this frame's decode: a caller's mistake */
		return WIRE_R_BAD_IP_LEN;
	if (ip->proto != WIRE_IPPROTO_ICMP)
		return WIRE_R_NOT_ICMP;

	/* wire_ipv4_decode() checked that the datagram lies inside the frame: l4_off + l4_len <= len. */
	const uint8_t *m = buf + ip->l4_off;
	size_t n = ip->l4_len;

	if (n < WIRE_ICMP_HDR_LEN)
		return WIRE_R_SHORT_ICMP;
	if (wire_csum(m, n) != 0)
		return WIRE_R_BAD_ICMP_CSUM;
	memcpy(out->dst_mac, ip->dst_mac, 6);
	memcpy(out->src_mac, ip->src_mac, 6);
	out->src_ip = ip->src_ip;
	out->dst_ip = ip->dst_ip;
	out->ttl = ip->ttl;
	out->type = m[ICMP_TYPE];
	out->code = m[ICMP_CODE];
	out->id = get_be16(m + ICMP_ID);
	out->seq = get_be16(m + ICMP_SEQ);
	out->data = m + WIRE_ICMP_HDR_LEN;
	out->data_len = n - WIRE_ICMP_HDR_LEN;
	return WIRE_R_OK;
}

/* The 20-byte IPv4 header of an ICMP datagram of @p dgram bytes. */
static void enc_icmp_ip(const struct wire_icmp *m, uint8_t *ip, size_t dgram)
{
	ip[IP_VER_IHL] = IP_VER_IHL_V4_5;
	ip[IP_TOS] = 0;
	put_be16(ip + IP_TOT_LEN, (uint16_t)dgram);
	put_be16(ip + IP_ID, 0);
	put_be16(ip + IP_FRAG, IP_F_DF);
	ip[IP_TTL] = m->ttl;
	ip[IP_PROTO] = WIRE_IPPROTO_ICMP;
	put_be16(ip + IP_CSUM, 0);
	put_be32(ip + IP_SRC, m->src_ip);
	put_be32(ip + IP_DST, m->dst_ip);
	put_be16(ip + IP_CSUM, wire_csum(ip, WIRE_IPV4_LEN));
}

int wire_icmp_encode(const struct wire_icmp *m, uint8_t *buf, size_t cap)
{
	if (m->data_len > WIRE_MAX_FRAME - ICMP_OFF - WIRE_ICMP_HDR_LEN)
		return -EINVAL;

	size_t frame = ICMP_OFF + WIRE_ICMP_HDR_LEN + m->data_len;
	size_t out = frame < WIRE_ETH_MIN_FRAME ? WIRE_ETH_MIN_FRAME : frame;

	if (cap < out)
		return -ENOSPC;
	/* the data first: it may lie inside buf (a reply built over its request) */
	if (m->data_len > 0)
		memmove(buf + ICMP_OFF + WIRE_ICMP_HDR_LEN, m->data, m->data_len);
	memset(buf + frame, 0, out - frame);
	memcpy(buf + ETH_DST, m->dst_mac, 6);
	memcpy(buf + ETH_SRC, m->src_mac, 6);
	put_be16(buf + ETH_TYPE, WIRE_ETHERTYPE_IPV4);
	enc_icmp_ip(m, buf + WIRE_ETH_LEN, frame - WIRE_ETH_LEN);

	uint8_t *c = buf + ICMP_OFF;

	c[ICMP_TYPE] = m->type;
	c[ICMP_CODE] = m->code;
	put_be16(c + ICMP_CSUM, 0);
	put_be16(c + ICMP_ID, m->id);
	put_be16(c + ICMP_SEQ, m->seq);
	put_be16(c + ICMP_CSUM, wire_csum(c, WIRE_ICMP_HDR_LEN + m->data_len));
	return (int)out;
}
