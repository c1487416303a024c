/*
 * A bounded reader of capture files, which are untrusted input: pcap (microsecond and nanosecond magics, either
 * byte order) and pcapng (SHB, IDB, EPB, SPB, the obsolete PB; other blocks skipped and counted; sections of
 * either byte order). Each record or block is read whole into one buffer of at most CAP_READ_BLOCK_MAX bytes and
 * walked with a cursor that checks every length against what is left before it reads. What cannot be read is a
 * counted skip (enum cap_skip) or, when the file cannot be followed any further, an error naming the offset.
 */
#include "cap_pvt.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu_counter.h"

EMU_COUNTER_NAMES(cap_skip, CAP_SKIPS, CAP_SKIP_COUNT)

/* Per interface, what only the reader needs: timestamp units and offset. */
struct rd_if {
	uint8_t tsresol;   /* if_tsresol: 10^-n, or 2^-n with bit 7 set; 6 by default */
	int64_t tsoffset;  /* if_tsoffset, seconds */
};

struct cap_reader {
	FILE *f;
	struct cap_read_info info;
	struct rd_if *rif;          /* parallel to info.ifaces */
	uint32_t if_cap;
	bool be;                    /* the current section is big-endian */
	uint32_t sec_first;         /* pcapng: index in info.ifaces of the section's interface 0 */
	uint32_t sec_n_if;          /* interfaces the section described (those past the limit included) */
	uint64_t off;               /* file offset of the next record or block */
	uint64_t records;
	uint8_t *buf;
	size_t buf_cap;
	const volatile sig_atomic_t *halt; /* the run's stop flag, or NULL (cap_read_set_halt()) */
};

static bool halted(const struct cap_reader *r)
{
	return r->halt != NULL && *r->halt != 0;
}

/* A cursor over bytes of one record or block: every read checks what is left first. */
struct cur {
	const uint8_t *p;
	size_t left;
	bool be;
};

static bool take(struct cur *c, size_t n, const uint8_t **out)
{
	if (c->left < n)
		return false;
	*out = c->p;
	c->p += n;
	c->left -= n;
	return true;
}

static uint16_t get16(const uint8_t *b, bool be)
{
	return (uint16_t)(be ? b[0] << 8 | b[1] : b[1] << 8 | b[0]);
}

static uint32_t get32(const uint8_t *b, bool be)
{
	return be ? (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3]
		  : (uint32_t)b[3] << 24 | (uint32_t)b[2] << 16 | (uint32_t)b[1] << 8 | b[0];
}

static bool cur_u16(struct cur *c, uint16_t *v)
{
	const uint8_t *b;

	if (!take(c, 2, &b))
		return false;
	*v = get16(b, c->be);
	return true;
}

static bool cur_u32(struct cur *c, uint32_t *v)
{
	const uint8_t *b;

	if (!take(c, 4, &b))
		return false;
	*v = get32(b, c->be);
	return true;
}

static uint64_t get64(const uint8_t *b, bool be)
{
	return be ? (uint64_t)get32(b, be) << 32 | get32(b + 4, be) : (uint64_t)get32(b + 4, be) << 32 | get32(b, be);
}

static size_t pad4(size_t n)
{
	return (n + 3u) & ~(size_t)3u;
}

/* Read exactly @p n bytes at the reader's offset into its buffer. Returns n, or fewer at the end of the file. */
static size_t rd(struct cap_reader *r, size_t at, size_t n)
{
	if (halted(r)) /* reads as the end: cap_read_next() then says -EINTR */
		return 0;
	size_t got = fread(r->buf + at, 1, n, r->f);

	r->off += got;
	return got;
}

/* Add an interface to the file's list (pcap: the one; pcapng: per IDB). Returns its index, or -1 past the limit. */
static int add_if(struct cap_reader *r, uint16_t linktype, uint32_t snaplen)
{
	if (r->info.n_ifaces == r->if_cap) {
		uint32_t n = r->if_cap ? r->if_cap * 2 : 8;
		struct cap_iface *a = realloc(r->info.ifaces, n * sizeof(*a));
		struct rd_if *b = a != NULL ? realloc(r->rif, n * sizeof(*b)) : NULL;

		if (a != NULL)
			r->info.ifaces = a;
		if (b == NULL)
			return -1;
		r->rif = b;
		r->if_cap = n;
	}
	uint32_t i = r->info.n_ifaces++;

	r->info.ifaces[i] = (struct cap_iface){ .linktype = linktype, .snaplen = snaplen };
	r->rif[i] = (struct rd_if){ .tsresol = 6 };
	return (int)i;
}

/* The pcap file header (24 bytes in the buffer): its magic decides the byte order and the resolution. */
static int open_pcap(struct cap_reader *r, char *err, size_t errlen)
{
	uint32_t magic = get32(r->buf, false);

	r->be = magic == 0xd4c3b2a1u || magic == 0x4d3cb2a1u;
	r->info.nanosecond = get32(r->buf, r->be) == CAP_PCAP_MAGIC_NS;
	r->info.big_endian = r->be;
	r->info.format = CAP_FORMAT_PCAP;
	if (get16(r->buf + 4, r->be) != 2) {
		snprintf(err, errlen, "pcap version %u.%u is not supported (2.4 is)", get16(r->buf + 4, r->be),
			 get16(r->buf + 6, r->be));
		return -EINVAL;
	}
	/* the link type is the low 16 bits; the upper ones carry FCS information in newer files */
	if (add_if(r, (uint16_t)get32(r->buf + 20, r->be), get32(r->buf + 16, r->be)) < 0) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	r->off = CAP_PCAP_HDR_LEN;
	return 0;
}

static int open_ng(struct cap_reader *r, char *err, size_t errlen);

/* "not a pcap or pcapng file (N bytes; first bytes ...)", showing the bytes there are (up to 4). */
static void not_capture(const uint8_t *b, size_t n, char *err, size_t errlen)
{
	int w = snprintf(err, errlen, "not a pcap or pcapng file (%zu bytes%s", n, n > 0 ? "; first bytes" : "");

	for (size_t i = 0; i < n && i < 4 && w > 0 && (size_t)w < errlen; i++)
		w += snprintf(err + w, errlen - (size_t)w, " %02x", b[i]);
	if (w > 0 && (size_t)w < errlen)
		snprintf(err + w, errlen - (size_t)w, ")");
}

static bool is_pcap_magic(uint32_t m)
{
	return m == CAP_PCAP_MAGIC_US || m == CAP_PCAP_MAGIC_NS || m == 0xd4c3b2a1u || m == 0x4d3cb2a1u;
}

int cap_read_open(const char *path, struct cap_reader **out, char *err, size_t errlen)
{
	struct cap_reader *r = calloc(1, sizeof(*r));
	int rc = 0;

	*out = NULL;
	if (r == NULL || (r->buf = malloc(CAP_READ_CAPLEN_MAX + CAP_PCAP_REC_LEN)) == NULL) {
		free(r);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	r->buf_cap = CAP_READ_CAPLEN_MAX + CAP_PCAP_REC_LEN;
	if ((r->f = fopen(path, "rb")) == NULL) {
		rc = -errno;
		snprintf(err, errlen, "%s", strerror(errno));
		cap_read_close(r);
		return rc;
	}
	size_t n = rd(r, 0, CAP_PCAP_HDR_LEN);
	uint32_t magic = n >= 4 ? get32(r->buf, false) : 0;

	if (n < CAP_PCAP_HDR_LEN && ferror(r->f)) {
		rc = -errno;
		snprintf(err, errlen, "%s", strerror(errno));
	} else if (n >= 4 && magic == CAP_NG_SHB) {
		rc = open_ng(r, err, errlen);
	} else if (n == CAP_PCAP_HDR_LEN && is_pcap_magic(magic)) {
		rc = open_pcap(r, err, errlen);
	} else if (n >= 4 && is_pcap_magic(magic)) {
		snprintf(err, errlen, "truncated: a pcap file header is %u bytes, the file has %zu", CAP_PCAP_HDR_LEN, n);
		rc = -EINVAL;
	} else {
		not_capture(r->buf, n, err, errlen);
		rc = -EINVAL;
	}
	if (rc < 0) {
		cap_read_close(r);
		return rc;
	}
	*out = r;
	return 0;
}

void cap_read_close(struct cap_reader *r)
{
	if (r == NULL)
		return;
	if (r->f != NULL)
		fclose(r->f);
	free(r->info.ifaces);
	free(r->rif);
	free(r->buf);
	free(r);
}

const struct cap_read_info *cap_read_info(const struct cap_reader *r)
{
	return &r->info;
}

/* A truncated tail: counted, and the reading ends. */
static int truncated(struct cap_reader *r)
{
	r->info.skips[CAP_SKIP_TRUNCATED]++;
	return 0;
}

/* One pcap record. 1, 0 at the end, or -errno. */
static int next_pcap(struct cap_reader *r, struct cap_rec *rec, char *err, size_t errlen)
{
	for (;;) {
		uint64_t at = r->off;
		size_t n = rd(r, 0, CAP_PCAP_REC_LEN);

		if (n == 0)
			return ferror(r->f) ? -EIO : 0;
		if (n < CAP_PCAP_REC_LEN)
			return truncated(r);
		uint32_t sec = get32(r->buf, r->be), frac = get32(r->buf + 4, r->be);
		uint32_t caplen = get32(r->buf + 8, r->be), len = get32(r->buf + 12, r->be);

		if (caplen > CAP_READ_CAPLEN_MAX) {
			snprintf(err, errlen, "record %llu at offset %llu: captured length %u is over %u: not a record (a "
				 "corrupt file)", (unsigned long long)r->records + 1, (unsigned long long)at, caplen,
				 CAP_READ_CAPLEN_MAX);
			return -EINVAL;
		}
		if (rd(r, CAP_PCAP_REC_LEN, caplen) < caplen)
			return truncated(r);
		r->records++;
		if (caplen > len) {
			r->info.skips[CAP_SKIP_BAD_CAPLEN]++;
			continue;
		}
		*rec = (struct cap_rec){ .data = r->buf + CAP_PCAP_REC_LEN, .caplen = caplen, .len = len,
					 .ts_ns = (int64_t)sec * 1000000000 + (r->info.nanosecond ? frac : frac * 1000LL) };
		r->info.ifaces[0].frames++;
		return 1;
	}
}

/* Powers of ten up to 10^19, for timestamp units. */
static const uint64_t pow10_tab[] = {
	1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL, 100000000ULL, 1000000000ULL,
	10000000000ULL, 100000000000ULL, 1000000000000ULL, 10000000000000ULL, 100000000000000ULL,
	1000000000000000ULL, 10000000000000000ULL, 100000000000000000ULL, 1000000000000000000ULL,
	10000000000000000000ULL,
};

/* A pcapng timestamp in units of @p res (10^-n s, or 2^-n with bit 7 set) to ns since 1970, saturating. */
static int64_t ts_ns(uint64_t ts, const struct rd_if *ri)
{
	unsigned __int128 v;
	uint8_t n = ri->tsresol & 0x7f;

	if (ri->tsresol & 0x80)
		v = n >= 64 ? 0 : ((unsigned __int128)ts * 1000000000u) >> n;
	else if (n <= 9)
		v = (unsigned __int128)ts * pow10_tab[9 - n];
	else
		v = n - 9 < 20 ? ts / pow10_tab[n - 9] : 0;
	v += (unsigned __int128)((__int128)ri->tsoffset * 1000000000);
	return v > INT64_MAX ? INT64_MAX : (int64_t)v;
}

/* The options of a block, in order, to @p fn; an option running past the block is counted and ends the walk. */
static void walk_opts(struct cap_reader *r, struct cur c, void (*fn)(void *, uint16_t, struct cur), void *arg)
{
	uint16_t code, len;
	const uint8_t *v;

	while (c.left >= CAP_NG_OPT_HDR) {
		cur_u16(&c, &code);
		cur_u16(&c, &len);
		if (code == CAP_OPT_END)
			return;
		if (c.left < len) {
			r->info.skips[CAP_SKIP_BAD_OPTION]++;
			return;
		}
		take(&c, len, &v);
		fn(arg, code, (struct cur){ .p = v, .left = len, .be = c.be });
		take(&c, pad4(len) - len < c.left ? pad4(len) - len : c.left, &v); /* padding, lenient at the end */
	}
}

/* Copy a string option into @p dst (size @p n), cut to fit. */
static void opt_str(char *dst, size_t n, struct cur v)
{
	size_t k = v.left < n - 1 ? v.left : n - 1;

	memcpy(dst, v.p, k);
	dst[k] = '\0';
}

struct idb_ctx {
	struct cap_iface *ci;
	struct rd_if *ri;
};

static void idb_opt(void *arg, uint16_t code, struct cur v)
{
	struct idb_ctx *x = arg;

	if (code == CAP_OPT_IF_NAME)
		opt_str(x->ci->name, sizeof(x->ci->name), v);
	else if (code == CAP_OPT_IF_SPEED && v.left == 8)
		x->ci->speed_bps = get64(v.p, v.be);
	else if (code == CAP_OPT_IF_TSRESOL && v.left >= 1)
		x->ri->tsresol = v.p[0];
	else if (code == 14 && v.left == 8) /* if_tsoffset */
		x->ri->tsoffset = (int64_t)get64(v.p, v.be);
}

/* An Interface Description Block's body at @p c. */
static int block_idb(struct cap_reader *r, struct cur c)
{
	uint16_t linktype, reserved;
	uint32_t snaplen;

	if (!cur_u16(&c, &linktype) || !cur_u16(&c, &reserved) || !cur_u32(&c, &snaplen))
		return 0; /* cannot happen: the block length was checked against CAP_NG_IDB_MIN */
	r->sec_n_if++;
	if (r->sec_n_if > CAP_READ_IF_MAX) {
		r->info.skips[CAP_SKIP_TOO_MANY_IF]++;
		return 0;
	}
	int i = add_if(r, linktype, snaplen);

	if (i < 0)
		return -ENOMEM;
	struct idb_ctx x = { &r->info.ifaces[i], &r->rif[i] };

	walk_opts(r, c, idb_opt, &x);
	return 0;
}

static void epb_opt(void *arg, uint16_t code, struct cur v)
{
	struct cap_rec *rec = arg;

	if (code == CAP_OPT_COMMENT && rec->comment[0] == '\0')
		opt_str(rec->comment, sizeof(rec->comment), v);
	else if (code == CAP_OPT_EPB_FLAGS && v.left == 4)
		rec->dir = (uint8_t)(get32(v.p, v.be) & 3);
}

/* The interface a packet block names, in the section: its index, or -1 (counted). */
static int64_t section_if(struct cap_reader *r, uint32_t id)
{
	if (id >= r->sec_n_if || r->sec_first + id >= r->info.n_ifaces) {
		r->info.skips[CAP_SKIP_NO_INTERFACE]++;
		return -1;
	}
	return (int64_t)r->sec_first + id;
}

/* The frame of a packet block, once its interface and lengths are known; 1 or 0 (skipped, counted). */
static int packet(struct cap_reader *r, struct cur *c, int64_t i, uint32_t caplen, uint32_t len, uint64_t ts,
		  struct cap_rec *rec)
{
	const uint8_t *data, *pad;

	if (i < 0)
		return 0;
	if (caplen > c->left || caplen > CAP_READ_CAPLEN_MAX || caplen > len) {
		r->info.skips[CAP_SKIP_BAD_CAPLEN]++;
		return 0;
	}
	take(c, caplen, &data);
	take(c, pad4(caplen) - caplen < c->left ? pad4(caplen) - caplen : c->left, &pad);
	rec->data = data;
	rec->caplen = caplen;
	rec->len = len;
	rec->iface = (uint32_t)i;
	rec->ts_ns = ts_ns(ts, &r->rif[i]);
	r->info.ifaces[i].frames++;
	return 1;
}

/* An Enhanced Packet Block (@p obsolete: the old Packet Block, 16-bit interface and a drop count). */
static int block_epb(struct cap_reader *r, struct cur c, bool obsolete, struct cap_rec *rec)
{
	uint32_t id = 0, hi, lo, caplen, len;
	uint16_t id16 = 0, drops;
	bool ok = obsolete ? cur_u16(&c, &id16) && cur_u16(&c, &drops) : cur_u32(&c, &id);

	if (!ok || !cur_u32(&c, &hi) || !cur_u32(&c, &lo) || !cur_u32(&c, &caplen) || !cur_u32(&c, &len))
		return 0; /* cannot happen: the block length was checked against CAP_NG_EPB_MIN */
	memset(rec, 0, sizeof(*rec));
	if (obsolete)
		id = id16;
	if (packet(r, &c, section_if(r, id), caplen, len, (uint64_t)hi << 32 | lo, rec) == 0)
		return 0;
	walk_opts(r, c, epb_opt, rec);
	return 1;
}

/* A Simple Packet Block: interface 0, no timestamp, the frame cut to the interface's snap length. */
static int block_spb(struct cap_reader *r, struct cur c, struct cap_rec *rec)
{
	uint32_t len;
	int64_t i = section_if(r, 0);

	if (!cur_u32(&c, &len) || i < 0)
		return 0;
	uint32_t caplen = len;

	if (r->info.ifaces[i].snaplen != 0 && caplen > r->info.ifaces[i].snaplen)
		caplen = r->info.ifaces[i].snaplen;
	if (caplen > c.left)
		caplen = (uint32_t)c.left;
	memset(rec, 0, sizeof(*rec));
	return packet(r, &c, i, caplen, len, 0, rec);
}

/* A Section Header Block's body: a new section, its byte order, its version. */
static int block_shb(struct cap_reader *r, struct cur c, uint64_t at, char *err, size_t errlen)
{
	uint16_t major = 0, minor = 0;
	const uint8_t *bom;

	if (!take(&c, 4, &bom) || !cur_u16(&c, &major) || !cur_u16(&c, &minor))
		return 0; /* cannot happen: the block length was checked against CAP_NG_SHB_MIN */
	if (major != 1) {
		snprintf(err, errlen, "section at offset %llu: pcapng version %u.%u is not supported (1.x is)",
			 (unsigned long long)at, major, minor);
		return -EINVAL;
	}
	if (r->info.sections++ == 0)
		r->info.big_endian = r->be;
	r->sec_first = r->info.n_ifaces;
	r->sec_n_if = 0;
	return 0;
}

/* Blocks the reader knows and has no use for: ISB, NRB, DSB, systemd journal, custom: skipped, not counted. */
static bool known_other(uint32_t type)
{
	return type == CAP_NG_ISB || type == 4 || type == 0x0a || type == 9 || type == 0x0bad || type == 0x40000bad;
}

/* The minimum length of a block of @p type, with its type, lengths and fixed fields. */
static uint32_t block_min(uint32_t type)
{
	switch (type) {
	case CAP_NG_SHB: return CAP_NG_SHB_MIN;
	case CAP_NG_IDB: return CAP_NG_IDB_MIN;
	case CAP_NG_EPB: return CAP_NG_EPB_MIN;
	case CAP_NG_OPB: return CAP_NG_OPB_MIN;
	case CAP_NG_SPB: return CAP_NG_SPB_MIN;
	default: return CAP_NG_BLOCK_MIN;
	}
}

/*
 * Read one whole block into the buffer: its type and body (a cursor after the type and length). 1, 0 at the end
 * of the file (a cut block counted), or -errno with the offset named.
 */
static int read_block(struct cap_reader *r, uint32_t *type, struct cur *body, char *err, size_t errlen)
{
	uint64_t at = r->off;
	size_t n = rd(r, 0, CAP_NG_BLOCK_MIN);

	if (n == 0)
		return ferror(r->f) ? -EIO : 0;
	if (n < CAP_NG_BLOCK_MIN)
		return truncated(r);
	*type = get32(r->buf, r->be);
	if (*type == CAP_NG_SHB) { /* the byte-order magic after the length decides the section's order */
		r->be = get32(r->buf + 8, false) != CAP_NG_BOM;
		if (get32(r->buf + 8, r->be) != CAP_NG_BOM) {
			snprintf(err, errlen, "section at offset %llu: byte-order magic %02x %02x %02x %02x is not "
				 "1a2b3c4d in either order", (unsigned long long)at, r->buf[8], r->buf[9], r->buf[10],
				 r->buf[11]);
			return -EINVAL;
		}
	}
	uint32_t len = get32(r->buf + 4, r->be);

	if (len < block_min(*type) || len % 4 != 0 || len > CAP_READ_BLOCK_MAX) {
		snprintf(err, errlen, "block at offset %llu (type 0x%08x): length %u is not a block length (%u to %u, "
			 "a multiple of 4): a corrupt file", (unsigned long long)at, *type, len, block_min(*type),
			 CAP_READ_BLOCK_MAX);
		return -EINVAL;
	}
	if (len > r->buf_cap) {
		uint8_t *b = realloc(r->buf, len);

		if (b == NULL)
			return -ENOMEM;
		r->buf = b;
		r->buf_cap = len;
	}
	if (rd(r, CAP_NG_BLOCK_MIN, len - CAP_NG_BLOCK_MIN) < len - CAP_NG_BLOCK_MIN)
		return truncated(r);
	if (get32(r->buf + len - 4, r->be) != len) {
		snprintf(err, errlen, "block at offset %llu (type 0x%08x): trailing length %u differs from its length "
			 "%u: a corrupt file", (unsigned long long)at, *type, get32(r->buf + len - 4, r->be), len);
		return -EINVAL;
	}
	*body = (struct cur){ .p = r->buf + 8, .left = len - CAP_NG_BLOCK_MIN, .be = r->be };
	r->info.blocks++;
	return 1;
}

static int no_section(uint64_t at, char *err, size_t errlen)
{
	snprintf(err, errlen, "block at offset %llu: a pcapng file starts with a section header block",
		 (unsigned long long)at);
	return -EINVAL;
}

/* The next packet block of a pcapng file. 1, 0 at the end, or -errno. */
static int next_ng(struct cap_reader *r, struct cap_rec *rec, char *err, size_t errlen)
{
	for (;;) {
		uint64_t at = r->off;
		uint32_t type;
		struct cur body;
		int rc = read_block(r, &type, &body, err, errlen);

		if (rc <= 0)
			return rc;
		rc = 0; /* a packet block makes it 1 */
		if (type == CAP_NG_SHB)
			rc = block_shb(r, body, at, err, errlen);
		else if (r->info.sections == 0)
			rc = no_section(at, err, errlen);
		else if (type == CAP_NG_IDB)
			rc = block_idb(r, body);
		else if (type == CAP_NG_EPB || type == CAP_NG_OPB)
			rc = block_epb(r, body, type == CAP_NG_OPB, rec);
		else if (type == CAP_NG_SPB)
			rc = block_spb(r, body, rec);
		else if (!known_other(type))
			r->info.skips[CAP_SKIP_UNKNOWN_BLOCK]++;
		if (rc != 0)
			return rc;
	}
}

/* A pcapng file: its first block must be a whole section header. */
static int open_ng(struct cap_reader *r, char *err, size_t errlen)
{
	uint32_t type;
	struct cur body;
	int rc;

	r->info.format = CAP_FORMAT_PCAPNG;
	r->off = 0;
	if (fseek(r->f, 0, SEEK_SET) != 0) {
		snprintf(err, errlen, "%s", strerror(errno));
		return -errno;
	}
	rc = read_block(r, &type, &body, err, errlen);
	if (rc == 0) {
		snprintf(err, errlen, "truncated: the file ends inside its first section header block");
		return -EINVAL;
	}
	return rc < 0 ? rc : block_shb(r, body, 0, err, errlen);
}

int cap_read_next(struct cap_reader *r, struct cap_rec *rec, char *err, size_t errlen)
{
	memset(rec, 0, sizeof(*rec));
	int rc = halted(r) ? 0 : r->info.format == CAP_FORMAT_PCAP ? next_pcap(r, rec, err, errlen)
								    : next_ng(r, rec, err, errlen);

	if (halted(r)) {
		snprintf(err, errlen, "stopped by a signal while it was read, at offset %llu", (unsigned long long)r->off);
		return -EINTR;
	}
	return rc;
}

void cap_read_set_halt(struct cap_reader *r, const volatile sig_atomic_t *halt)
{
	r->halt = halt;
}
