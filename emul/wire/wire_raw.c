/* A real device's frames across the fabric (docs/realtime.md, "Real devices across the fabric"): the frames the
 * models do not know, described well enough for the switches to route, queue and mark them (WIRE_KIND_RAW), and
 * re-emitted from their own bytes with only what a switch changes rewritten. */
#include "wire_pvt.h"

#include <errno.h>
#include <string.h>

#define WIRE_FC_KEY(n, k, s) k,
static const char *const fc_keys[] = { WIRE_FABRIC_CLASSES(WIRE_FC_KEY) };
#undef WIRE_FC_KEY

const char *wire_fabric_class_key(int c)
{
	return c >= 0 && c < WIRE_FC_COUNT ? fc_keys[c] : "unknown";
}

/* The class of an IPv4 datagram of protocol @p proto whose transport header (@p l4, @p l4_len bytes) follows. */
static int ipv4_class(uint8_t proto, const uint8_t *l4, size_t l4_len, uint16_t uet_port)
{
	switch (proto) {
	case WIRE_IPPROTO_ICMP:
		return WIRE_FC_ICMP;
	case 6: /* TCP */
		return WIRE_FC_TCP;
	case WIRE_IPPROTO_UET:
		return WIRE_FC_UET;
	case WIRE_IPPROTO_UDP:
		if (l4_len < WIRE_UDP_LEN)
			return WIRE_FC_UDP;
		if (get_be16(l4 + 2) == WIRE_UDP_PORT_ROCE)
			return WIRE_FC_ROCE;
		return get_be16(l4 + 2) == uet_port ? WIRE_FC_UET : WIRE_FC_UDP;
	default:
		return WIRE_FC_OTHER_IPV4;
	}
}

int wire_fabric_class(const struct wire_pkt *p)
{
	switch (p->kind) {
	case WIRE_KIND_NONE:
		return -1;
	case WIRE_KIND_RAW:
		return p->raw.cls;
	case WIRE_KIND_PFC:
		return WIRE_FC_NON_IPV4;
	case WIRE_KIND_CM:
		return WIRE_FC_UDP;
	case WIRE_KIND_ROCE:
		return WIRE_FC_ROCE;
	default:
		return WIRE_FC_UET;
	}
}

int wire_fabric_class_bytes(const uint8_t *buf, size_t len, uint16_t uet_port)
{
	struct wire_ipv4 ip;

	if (len >= WIRE_ETH_LEN && get_be16(buf + ETH_TYPE) == WIRE_ETHERTYPE_ARP)
		return WIRE_FC_ARP;
	if (wire_ipv4_decode(buf, len, &ip) != WIRE_R_OK)
		return len >= WIRE_ETH_LEN && get_be16(buf + ETH_TYPE) == WIRE_ETHERTYPE_IPV4 ? WIRE_FC_OTHER_IPV4 :
											      WIRE_FC_NON_IPV4;
	return ipv4_class(ip.proto, buf + ip.l4_off, ip.l4_len, uet_port);
}

int wire_raw_take(const uint8_t *buf, size_t len, uint16_t uet_port, struct wire_pkt *out)
{
	struct wire_ipv4 ip;
	struct wire_arp a;
	int rc;

	if (len > WIRE_MAX_FRAME)
		return WIRE_R_BAD_IP_LEN;
	out->kind = WIRE_KIND_RAW;
	out->payload_len = (uint32_t)len;
	if (len >= WIRE_ETH_LEN && get_be16(buf + ETH_TYPE) == WIRE_ETHERTYPE_ARP) {
		if ((rc = wire_arp_decode(buf, len, &a)) != WIRE_R_OK)
			return rc;
		memcpy(out->dst_mac, a.eth_dst, 6);
		memcpy(out->src_mac, a.eth_src, 6);
		out->src_ip = a.spa;
		out->dst_ip = a.tpa;
		out->ttl = WIRE_TTL;
		out->raw.cls = WIRE_FC_ARP;
		return WIRE_R_OK;
	}
	if ((rc = wire_ipv4_decode(buf, len, &ip)) != WIRE_R_OK)
		return rc;
	memcpy(out->dst_mac, ip.dst_mac, 6);
	memcpy(out->src_mac, ip.src_mac, 6);
	out->src_ip = ip.src_ip;
	out->dst_ip = ip.dst_ip;
	out->dscp = ip.dscp;
	out->ecn = ip.ecn;
	out->ttl = ip.ttl;
	out->ip_id = ip.ip_id;
	out->raw.cls = (uint8_t)ipv4_class(ip.proto, buf + ip.l4_off, ip.l4_len, uet_port);
	if ((ip.proto == 6 || ip.proto == WIRE_IPPROTO_UDP) && ip.l4_len >= 4) {
		out->sport = get_be16(buf + ip.l4_off);
		out->dport = get_be16(buf + ip.l4_off + 2);
	}
	if (out->raw.cls == WIRE_FC_UET) {
		bool udp = ip.proto == WIRE_IPPROTO_UDP;

		if (ip.l4_len > (udp ? WIRE_UDP_LEN : WIRE_ENTROPY_LEN) + (size_t)WIRE_MIN_TRIM_LEN)
			out->raw.uet = udp ? WIRE_RAW_UET_UDP : WIRE_RAW_UET_NATIVE;
	}
	return WIRE_R_OK;
}

void wire_csum_patch(uint8_t *ip, unsigned word, unsigned at, uint8_t v)
{
	uint16_t m = get_be16(ip + word);
	uint32_t sum;

	ip[at] = v;
	/* HC' = ~(~HC + ~m + m'), one's complement sums with the carries folded back in */
	sum = (uint32_t)(uint16_t)~get_be16(ip + IP_CSUM) + (uint16_t)~m + get_be16(ip + word);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	put_be16(ip + IP_CSUM, (uint16_t)~sum);
}

int wire_raw_trim(struct wire_pkt *p)
{
	size_t l4, keep;
	uint8_t *ip;

	if (p->kind != WIRE_KIND_RAW || p->raw.buf == NULL || p->raw.trimmed || p->raw.uet == WIRE_RAW_UET_NO)
		return -EINVAL;
	l4 = (p->raw.uet == WIRE_RAW_UET_UDP ? WIRE_UDP_LEN : WIRE_ENTROPY_LEN) + WIRE_MIN_TRIM_LEN;
	keep = WIRE_ETH_LEN + WIRE_IPV4_LEN + l4;
	if (p->payload_len <= keep)
		return -EINVAL;
	ip = p->raw.buf + WIRE_ETH_LEN;
	put_be16(ip + IP_TOT_LEN, (uint16_t)(WIRE_IPV4_LEN + l4));
	put_be16(ip + IP_CSUM, 0);
	put_be16(ip + IP_CSUM, wire_csum(ip, WIRE_IPV4_LEN));
	if (p->raw.uet == WIRE_RAW_UET_UDP) {
		put_be16(ip + WIRE_IPV4_LEN + UDP_LEN, (uint16_t)l4);
		put_be16(ip + WIRE_IPV4_LEN + UDP_CSUM, 0);
	}
	int cut = (int)(p->payload_len - keep);

	p->payload_len = (uint32_t)keep;
	p->raw.trimmed = 1;
	return cut;
}

int wire_raw_encode(const struct wire_pkt *p, uint8_t *buf, size_t cap)
{
	size_t len = p->payload_len;

	if (p->kind != WIRE_KIND_RAW || p->raw.buf == NULL || len < WIRE_ETH_LEN || len > WIRE_MAX_FRAME)
		return -EINVAL;
	if (cap < len)
		return -ENOSPC;
	if (buf != p->raw.buf)
		memmove(buf, p->raw.buf, len);
	memcpy(buf + ETH_DST, p->dst_mac, 6);
	memcpy(buf + ETH_SRC, p->src_mac, 6);
	if (p->raw.cls != WIRE_FC_ARP && len >= WIRE_ETH_LEN + WIRE_IPV4_LEN) { /* taken: an IPv4 header is there */
		uint8_t *ip = buf + WIRE_ETH_LEN;
		uint8_t tos = (uint8_t)((p->dscp & 0x3f) << 2 | (p->ecn & 3));

		/* the checksum patched for the two words that change (RFC 1624, eqn. 3), not summed again: the frame
		 * may sit in a port's receive buffer, whose header lines need not be read twice */
		if (ip[IP_TOS] != tos)
			wire_csum_patch(ip, IP_TOS & ~1u, IP_TOS, tos);
		if (ip[IP_TTL] != p->ttl)
			wire_csum_patch(ip, IP_TTL & ~1u, IP_TTL, p->ttl);
	}
	return (int)len;
}
