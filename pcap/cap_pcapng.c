/*
 * pcapng blocks as the writer emits them (draft-ietf-opsawg-pcapng, little-endian): a Section Header Block, one
 * Interface Description Block per capture point, an Enhanced Packet Block per frame, and an Interface Statistics
 * Block when a file is closed. Each is built into a caller's buffer; nothing here does I/O.
 */
#include "cap_pvt.h"

#include <string.h>

#ifndef UETEMU_VERSION
#define UETEMU_VERSION "unknown"
#endif

static size_t pad4(size_t n)
{
	return (n + 3u) & ~(size_t)3u;
}

/* Append @p n bytes of @p v (zeros when @p v is NULL) to @p o, or mark it over. */
static void put(struct cap_buf *o, const void *v, size_t n)
{
	if (o->over || n > o->cap - o->len) {
		o->over = 1;
		return;
	}
	if (v != NULL)
		memcpy(o->b + o->len, v, n);
	else
		memset(o->b + o->len, 0, n);
	o->len += n;
}

static void put_u16(struct cap_buf *o, uint16_t v)
{
	uint8_t b[2];

	cap_put16(b, v);
	put(o, b, 2);
}

static void put_u32(struct cap_buf *o, uint32_t v)
{
	uint8_t b[4];

	cap_put32(b, v);
	put(o, b, 4);
}

/* A timestamp in ns as pcapng writes it with if_tsresol 9: the high 32 bits, then the low 32 bits. */
static void put_ts(struct cap_buf *o, uint64_t ns)
{
	put_u32(o, (uint32_t)(ns >> 32));
	put_u32(o, (uint32_t)ns);
}

void cap_opt(struct cap_buf *o, uint16_t code, const void *val, uint16_t len)
{
	put_u16(o, code);
	put_u16(o, len);
	put(o, val, len);
	put(o, NULL, pad4(len) - len);
}

void cap_opt_u64(struct cap_buf *o, uint16_t code, uint64_t v)
{
	uint8_t b[8];

	cap_put64(b, v);
	cap_opt(o, code, b, 8);
}

/* A string option, cut to 1,024 bytes so that an IDB always fits the writer's 4 KiB block buffer. */
static void opt_str(struct cap_buf *o, uint16_t code, const char *s)
{
	size_t n = s != NULL ? strlen(s) : 0;

	if (n > 0)
		cap_opt(o, code, s, (uint16_t)(n > 1024u ? 1024u : n));
}

/* Start a block of @p type in @p o (its length patched by finish()). */
static void start(struct cap_buf *o, uint32_t type)
{
	o->len = 0;
	o->over = 0;
	put_u32(o, type);
	put_u32(o, 0);
}

/* End the options, append the trailing length and patch the leading one. Returns the length, 0 if over. */
static size_t finish(struct cap_buf *o, bool opts)
{
	if (opts)
		put_u32(o, 0); /* opt_endofopt */
	put_u32(o, (uint32_t)(o->len + 4));
	if (o->over)
		return 0;
	cap_put32(o->b + 4, (uint32_t)o->len);
	return o->len;
}

size_t cap_ng_shb(struct cap_buf *o)
{
	start(o, CAP_NG_SHB);
	put_u32(o, CAP_NG_BOM);
	put_u16(o, 1); /* version 1.0 */
	put_u16(o, 0);
	put_u32(o, 0xffffffffu); /* section length: not given */
	put_u32(o, 0xffffffffu);
	opt_str(o, CAP_OPT_SHB_USERAPPL, "uetemu " UETEMU_VERSION);
	return finish(o, true);
}

size_t cap_ng_idb(struct cap_buf *o, const struct cap_cfg *cfg, uint32_t snaplen)
{
	uint8_t tsresol = 9; /* nanoseconds */

	start(o, CAP_NG_IDB);
	put_u16(o, CAP_LINKTYPE_ETHERNET);
	put_u16(o, 0);
	put_u32(o, snaplen);
	opt_str(o, CAP_OPT_IF_NAME, cfg->if_name);
	opt_str(o, CAP_OPT_IF_DESC, cfg->if_desc);
	if (cfg->if_speed != 0)
		cap_opt_u64(o, CAP_OPT_IF_SPEED, cfg->if_speed);
	cap_opt(o, CAP_OPT_IF_TSRESOL, &tsresol, 1);
	if (cfg->filter != NULL && cfg->filter[0] != '\0') {
		/* if_filter: a byte saying which kind (0: a libpcap filter string), then the expression */
		uint8_t f[256];
		size_t n = strlen(cfg->filter);

		n = n > sizeof(f) - 1 ? sizeof(f) - 1 : n;
		f[0] = 0;
		memcpy(f + 1, cfg->filter, n);
		cap_opt(o, CAP_OPT_IF_FILTER, f, (uint16_t)(n + 1));
	}
	return finish(o, true);
}

size_t cap_ng_isb(struct cap_buf *o, uint64_t ts_ns, uint64_t start_ns, uint64_t end_ns, const struct cap_stats *st)
{
	uint8_t t[8];

	start(o, CAP_NG_ISB);
	put_u32(o, 0); /* interface 0: a file has one */
	put_ts(o, ts_ns);
	/* isb_starttime / isb_endtime are timestamps: high word first, as in the block */
	cap_put32(t, (uint32_t)(start_ns >> 32));
	cap_put32(t + 4, (uint32_t)start_ns);
	cap_opt(o, CAP_OPT_ISB_START, t, 8);
	cap_put32(t, (uint32_t)(end_ns >> 32));
	cap_put32(t + 4, (uint32_t)end_ns);
	cap_opt(o, CAP_OPT_ISB_END, t, 8);
	cap_opt_u64(o, CAP_OPT_ISB_IFRECV, st->seen);
	cap_opt_u64(o, CAP_OPT_ISB_IFDROP, st->cut);
	cap_opt_u64(o, CAP_OPT_ISB_FILTERACCEPT, st->seen - st->filtered_out);
	cap_opt_u64(o, CAP_OPT_ISB_USRDELIV, st->written);
	return finish(o, true);
}

size_t cap_ng_epb(struct cap_buf *head, struct cap_buf *tail, uint64_t ts_ns, uint32_t caplen, uint32_t len,
		  enum cap_dir dir, const char *comment)
{
	tail->len = 0;
	tail->over = 0;
	put(tail, NULL, pad4(caplen) - caplen);
	if (dir != CAP_DIR_NONE) {
		uint8_t f[4];

		cap_put32(f, (uint32_t)dir); /* epb_flags bits 0-1: 01 inbound, 10 outbound */
		cap_opt(tail, CAP_OPT_EPB_FLAGS, f, 4);
	}
	opt_str(tail, CAP_OPT_COMMENT, comment);
	if (tail->len > pad4(caplen) - caplen)
		put_u32(tail, 0); /* opt_endofopt, after options only */
	size_t total = CAP_NG_EPB_MIN - 4 + caplen + tail->len + 4;

	put_u32(tail, (uint32_t)total);
	start(head, CAP_NG_EPB);
	put_u32(head, 0);
	put_ts(head, ts_ns);
	put_u32(head, caplen);
	put_u32(head, len);
	if (head->over || tail->over)
		return 0;
	cap_put32(head->b + 4, (uint32_t)total);
	return total;
}
