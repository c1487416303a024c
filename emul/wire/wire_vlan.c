/* 802.1Q VLAN tags on the frames of a real port: pushed in front of the ethertype on the way out, read and taken
 * off on the way in, so the rest of the codec only ever sees untagged Ethernet II. */
#include "wire.h"

#include <errno.h>
#include <string.h>

size_t wire_vlan_push(uint8_t *buf, size_t len, uint16_t vid, uint8_t pcp)
{
	uint16_t tci = (uint16_t)(((unsigned)(pcp & 7) << 13) | (vid & 0xfffu));

	memmove(buf, buf + WIRE_VLAN_LEN, 12); /* the destination and source MACs */
	buf[12] = WIRE_ETHERTYPE_VLAN >> 8;
	buf[13] = WIRE_ETHERTYPE_VLAN & 0xff;
	buf[14] = (uint8_t)(tci >> 8);
	buf[15] = (uint8_t)(tci & 0xff);
	return len + WIRE_VLAN_LEN;
}

int wire_vlan_decode(const uint8_t *buf, size_t len, struct wire_vlan *out)
{
	if (len < WIRE_ETH_LEN)
		return WIRE_R_SHORT_ETH;
	if (((unsigned)buf[12] << 8 | buf[13]) != WIRE_ETHERTYPE_VLAN)
		return WIRE_R_NOT_VLAN;
	if (len < WIRE_VLAN_TAGGED_MIN)
		return WIRE_R_SHORT_VLAN;
	uint16_t tci = (uint16_t)((unsigned)buf[14] << 8 | buf[15]);

	out->pcp = (uint8_t)(tci >> 13);
	out->dei = (uint8_t)((tci >> 12) & 1);
	out->vid = tci & 0xfff;
	out->ethertype = (uint16_t)((unsigned)buf[16] << 8 | buf[17]);
	return WIRE_R_OK;
}

int wire_vlan_strip(const uint8_t *buf, size_t len, uint8_t *out, size_t cap)
{
	if (len < WIRE_VLAN_TAGGED_MIN)
		return -EINVAL;
	if (len - WIRE_VLAN_LEN > cap)
		return -ENOSPC;
	memcpy(out, buf, 12);
	memcpy(out + 12, buf + 12 + WIRE_VLAN_LEN, len - 12 - WIRE_VLAN_LEN);
	return (int)(len - WIRE_VLAN_LEN);
}
