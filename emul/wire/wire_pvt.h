/* Internals of the wire room shared by wire.c (UET frames) and wire_arp.c (ARP, ICMP echo): field offsets of the
 * Ethernet and IPv4 headers, big-endian helpers, the IPv4 header check. Not a public API. */
#ifndef WIRE_PVT_H
#define WIRE_PVT_H

#include <stddef.h>
#include <stdint.h>

#include "wire.h"

/* Ethernet II. */
#define ETH_DST 0
#define ETH_SRC 6
#define ETH_TYPE 12

/* IPv4 (RFC 791). */
#define IP_VER_IHL 0
#define IP_TOS 1
#define IP_TOT_LEN 2
#define IP_ID 4
#define IP_FRAG 6
#define IP_TTL 8
#define IP_PROTO 9
#define IP_CSUM 10
#define IP_SRC 12
#define IP_DST 16
#define IP_VER_IHL_V4_5 0x45 /* version 4, IHL 5 words */
#define IP_F_DF 0x4000
#define IP_F_MF 0x2000
#define IP_FRAG_OFF_MASK 0x1fff

/* Big-endian helpers. */

static inline void put_be16(uint8_t *b, uint16_t v)
{
	b[0] = (uint8_t)(v >> 8);
	b[1] = (uint8_t)v;
}

static inline void put_be24(uint8_t *b, uint32_t v)
{
	b[0] = (uint8_t)(v >> 16);
	b[1] = (uint8_t)(v >> 8);
	b[2] = (uint8_t)v;
}

static inline void put_be32(uint8_t *b, uint32_t v)
{
	put_be16(b, (uint16_t)(v >> 16));
	put_be16(b + 2, (uint16_t)v);
}

static inline void put_be64(uint8_t *b, uint64_t v)
{
	put_be32(b, (uint32_t)(v >> 32));
	put_be32(b + 4, (uint32_t)v);
}

static inline uint16_t get_be16(const uint8_t *b)
{
	return (uint16_t)((unsigned)b[0] << 8 | b[1]);
}

static inline uint32_t get_be24(const uint8_t *b)
{
	return (uint32_t)b[0] << 16 | (uint32_t)b[1] << 8 | b[2];
}

static inline uint32_t get_be32(const uint8_t *b)
{
	return (uint32_t)get_be16(b) << 16 | get_be16(b + 2);
}

static inline uint64_t get_be64(const uint8_t *b)
{
	return (uint64_t)get_be32(b) << 32 | get_be32(b + 4);
}

/* Two's complement s16 from its wire bits, without implementation-defined conversion. */
static inline int16_t get_s16(const uint8_t *b)
{
	uint16_t v = get_be16(b);

	return v >= 0x8000u ? (int16_t)((int32_t)v - 0x10000) : (int16_t)v;
}

/**
 * Check the IPv4 header at @p b (@p n bytes to the end of the frame) and fill @p out from it; the protocol is not
 * checked. *@p dgram gets the total length (bytes past it are Ethernet padding). Returns the header length
 * (WIRE_IPV4_LEN) or a negative enum wire_reason.
 */
int wire_dec_ipv4_hdr(const uint8_t *b, size_t n, struct wire_ipv4 *out, size_t *dgram);

#endif /* WIRE_PVT_H */
