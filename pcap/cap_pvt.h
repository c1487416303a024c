/* Internals of pcap/: byte order helpers, the pcap and pcapng layouts, the block builders the writer uses. */
#ifndef CAP_PVT_H
#define CAP_PVT_H

#include <stddef.h>
#include <stdint.h>

#include "cap.h"

/* pcap (libpcap's file format): a 24-byte file header, then a 16-byte header before each record. */
#define CAP_PCAP_MAGIC_US 0xa1b2c3d4u
#define CAP_PCAP_MAGIC_NS 0xa1b23c4du
#define CAP_PCAP_HDR_LEN 24u
#define CAP_PCAP_REC_LEN 16u
#define CAP_LINKTYPE_ETHERNET 1u

/* pcapng (draft-ietf-opsawg-pcapng): blocks of type, total length, body, total length again, 4-byte aligned. */
#define CAP_NG_SHB 0x0a0d0d0au
#define CAP_NG_IDB 0x00000001u
#define CAP_NG_OPB 0x00000002u  /* obsolete Packet Block: read only */
#define CAP_NG_SPB 0x00000003u
#define CAP_NG_ISB 0x00000005u
#define CAP_NG_EPB 0x00000006u
#define CAP_NG_BOM 0x1a2b3c4du
#define CAP_NG_BLOCK_MIN 12u    /* type + length + trailing length */
#define CAP_NG_SHB_MIN 28u      /* + byte-order magic 4, version 4, section length 8 */
#define CAP_NG_IDB_MIN 20u      /* + link type 2, reserved 2, snaplen 4 */
#define CAP_NG_EPB_MIN 32u      /* + interface 4, timestamp 8, caplen 4, original length 4 */
#define CAP_NG_OPB_MIN 32u      /* + interface 2, drops 2, timestamp 8, caplen 4, length 4 */
#define CAP_NG_SPB_MIN 16u      /* + original length 4 */
#define CAP_NG_ISB_MIN 24u      /* + interface 4, timestamp 8 */
#define CAP_NG_OPT_HDR 4u       /* option code 2, length 2 */

/* Option codes. */
#define CAP_OPT_END 0
#define CAP_OPT_COMMENT 1
#define CAP_OPT_SHB_USERAPPL 4
#define CAP_OPT_IF_NAME 2
#define CAP_OPT_IF_DESC 3
#define CAP_OPT_IF_SPEED 8
#define CAP_OPT_IF_TSRESOL 9
#define CAP_OPT_IF_FILTER 11
#define CAP_OPT_EPB_FLAGS 2
#define CAP_OPT_ISB_START 2
#define CAP_OPT_ISB_END 3
#define CAP_OPT_ISB_IFRECV 4
#define CAP_OPT_ISB_IFDROP 5
#define CAP_OPT_ISB_FILTERACCEPT 6
#define CAP_OPT_ISB_USRDELIV 8

/* Room for the headers and options of one EPB around its frame. */
#define CAP_NG_EPB_ROOM 512u

static inline void cap_put16(uint8_t *b, uint16_t v)
{
	b[0] = (uint8_t)v;
	b[1] = (uint8_t)(v >> 8);
}

/* Files are written little-endian (pcap and pcapng readers take either order). */
static inline void cap_put32(uint8_t *b, uint32_t v)
{
	b[0] = (uint8_t)v;
	b[1] = (uint8_t)(v >> 8);
	b[2] = (uint8_t)(v >> 16);
	b[3] = (uint8_t)(v >> 24);
}

static inline void cap_put64(uint8_t *b, uint64_t v)
{
	cap_put32(b, (uint32_t)v);
	cap_put32(b + 4, (uint32_t)(v >> 32));
}

/* A block under construction: bytes appended at @c len, never past @c cap (then @c over is set). */
struct cap_buf {
	uint8_t *b;
	size_t len, cap;
	int over;
};

/** Append an option (code, length, value padded to 4). */
void cap_opt(struct cap_buf *o, uint16_t code, const void *val, uint16_t len);
void cap_opt_u64(struct cap_buf *o, uint16_t code, uint64_t v);

/** The blocks the writer emits, built into @p o (cleared first); each returns the block length, 0 if too long. */
size_t cap_ng_shb(struct cap_buf *o);
size_t cap_ng_idb(struct cap_buf *o, const struct cap_cfg *cfg, uint32_t snaplen);
size_t cap_ng_isb(struct cap_buf *o, uint64_t ts_ns, uint64_t start_ns, uint64_t end_ns,
		  const struct cap_stats *st);
/**
 * An EPB for a frame of @p caplen bytes (out of @p len): its head (up to the frame) into @p head, and its tail
 * (padding, options, trailing length) into @p tail; the frame goes between them. Returns the block length, 0 if
 * the options do not fit.
 */
size_t cap_ng_epb(struct cap_buf *head, struct cap_buf *tail, uint64_t ts_ns, uint32_t caplen, uint32_t len,
		  enum cap_dir dir, const char *comment);

#endif /* CAP_PVT_H */
