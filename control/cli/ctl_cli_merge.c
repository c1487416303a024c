/*
 * uetemu merge DIR --out MERGED: an MPI run's record shards (<SimulationName>-<record>-<rank>.csv, one per rank)
 * joined into the files one process writes (<SimulationName>-<record>-0.csv), rows in the one-process writer's
 * order: by simulated time (sim_time_sec), then by device (node_id, or fep_id for uet-transport-stats), a device's
 * rows in the order its rank wrote them (every device lives on one rank). summary.json (rank 0's) is copied.
 * The event records order by sim_time_ns and FEP_ID the same way; uet-monitor rows of one picosecond on two devices
 * then come in device order, where one process writes its event order (docs/parallel.md, Merging the shards).
 * Captures (<name>-<rank>.pcap, .pcapng) are joined into <name>.pcap: frames by timestamp, pcapng's statistics
 * block summed.
 */
#include "ctl_cli_pvt.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MERGE_SHARDS_MAX 4096 /* ranks of one record */
#define MERGE_RECORDS_MAX 256 /* records of one run */

/* One shard in memory: its text, its rows as line starts, and where each row's key columns are. */
struct shard {
	char *text;
	size_t len;
	char **rows;   /* row starts (after the header), each ending at its '\n' */
	size_t n_rows;
	size_t next;   /* the next row to merge */
};

/* The key of a row: simulated time in ps and the device's id (UINT64_MAX when the record has none). */
struct key {
	uint64_t t;
	uint64_t dev;
};

/* A record's prefix (the file name less "-<rank>.csv") and how many shards it has. */
struct record {
	char prefix[NAME_MAX + 1];
	unsigned n;
	unsigned max_rank;
};

static int read_file(const char *path, char **text, size_t *len)
{
	FILE *f = fopen(path, "rb");
	long n;

	if (f == NULL)
		return -errno;
	if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
		fclose(f);
		return -EIO;
	}
	*text = malloc((size_t)n + 1);
	if (*text == NULL) {
		fclose(f);
		return -ENOMEM;
	}
	if (fread(*text, 1, (size_t)n, f) != (size_t)n) {
		free(*text);
		fclose(f);
		return -EIO;
	}
	(*text)[n] = '\0';
	*len = (size_t)n;
	fclose(f);
	return 0;
}

/* Index of column @p name in the header line @p hdr (up to its '\n'), or -1. */
static int column_of(const char *hdr, const char *name)
{
	size_t nl = strlen(name);
	int i = 0;

	for (const char *p = hdr;; i++) {
		size_t w = strcspn(p, ",\n");

		if (w == nl && strncmp(p, name, nl) == 0)
			return i;
		if (p[w] != ',')
			return -1;
		p += w + 1;
	}
}

/* The start of field @p col of the row at @p row, or NULL past the row's end. */
static const char *field(const char *row, int col)
{
	for (int i = 0; i < col; i++) {
		row += strcspn(row, ",\n");
		if (*row != ',')
			return NULL;
		row++;
	}
	return row;
}

/* "S.FFFFFFFFFFFF" seconds (the records' 12 decimals) as ps; a shorter fraction is read as its digits allow. */
static uint64_t seconds_ps(const char *s)
{
	uint64_t sec = 0, frac = 0, scale = 1000000000000ULL;

	for (; *s >= '0' && *s <= '9'; s++)
		sec = sec * 10 + (uint64_t)(*s - '0');
	if (*s == '.')
		for (s++; *s >= '0' && *s <= '9' && scale > 1; s++) {
			scale /= 10;
			frac += (uint64_t)(*s - '0') * scale;
		}
	return sec * 1000000000000ULL + frac;
}

static uint64_t number(const char *s)
{
	uint64_t v = 0;

	for (; *s >= '0' && *s <= '9'; s++)
		v = v * 10 + (uint64_t)(*s - '0');
	return v;
}

/* A row's key: its time column @p tcol in seconds (or in ns when @p ns), its device column @p dcol. */
static struct key key_of(const char *row, int tcol, bool ns, int dcol)
{
	const char *t = tcol >= 0 ? field(row, tcol) : NULL, *d = dcol >= 0 ? field(row, dcol) : NULL;
	uint64_t ps = t == NULL ? 0 : ns ? seconds_ps(t) / 1000 : seconds_ps(t);

	return (struct key){ .t = ps, .dev = d != NULL ? number(d) : UINT64_MAX };
}

static bool key_less(struct key a, struct key b)
{
	return a.t < b.t || (a.t == b.t && a.dev < b.dev);
}

/* Split @p s's text into its header and rows; 0, or -EINVAL when a line does not end with '\n'. */
static int index_rows(struct shard *s)
{
	size_t n = 0;

	for (size_t i = 0; i < s->len; i++)
		n += s->text[i] == '\n';
	if (s->len == 0 || s->text[s->len - 1] != '\n')
		return -EINVAL;
	s->rows = malloc(n * sizeof(*s->rows));
	if (s->rows == NULL)
		return -ENOMEM;
	char *p = strchr(s->text, '\n') + 1;

	for (s->n_rows = 0; p < s->text + s->len; p = strchr(p, '\n') + 1)
		s->rows[s->n_rows++] = p;
	return 0;
}

/* Close the merged file @p f at @p path: 0, or -1 (said on stderr) when a write or the close failed. */
static int close_out(FILE *f, const char *path)
{
	if (ferror(f) | (fclose(f) != 0)) {
		fprintf(stderr, "uetemu: merge: %s: cannot write it\n", path);
		return -1;
	}
	return 0;
}

/* Join the @p n shards of @p rec in @p dir into @p out/<prefix>-0.csv. 0 or -1 (said on stderr). */
static int merge_record(const char *dir, const char *out, const struct record *rec)
{
	struct shard *sh = calloc(rec->n, sizeof(*sh));
	char path[PATH_MAX];
	int rc = -1;
	FILE *f = NULL;

	if (sh == NULL)
		goto fail;
	for (unsigned r = 0; r < rec->n; r++) {
		int e = snprintf(path, sizeof(path), "%s/%s-%u.csv", dir, rec->prefix, r) >= (int)sizeof(path)
				? -ENAMETOOLONG : read_file(path, &sh[r].text, &sh[r].len);

		if (e == 0)
			e = index_rows(&sh[r]);
		if (e < 0) {
			fprintf(stderr, "uetemu: merge: %s: %s\n", path,
				e == -EINVAL ? "not a record (no header, or a last line without its newline)" : strerror(-e));
			goto fail;
		}
		size_t hl = strcspn(sh[r].text, "\n");

		if (r > 0 && (hl != strcspn(sh[0].text, "\n") || memcmp(sh[r].text, sh[0].text, hl) != 0)) {
			fprintf(stderr, "uetemu: merge: %s: its header is not %s-0.csv's: shards of different runs?\n",
				path, rec->prefix);
			goto fail;
		}
	}
	/* the periodic records' time is sim_time_sec, the event records' sim_time_ns (3 decimals: ps) */
	int tcol = column_of(sh[0].text, "sim_time_sec"), dcol = column_of(sh[0].text, "node_id");

	bool ns = tcol < 0;

	if (ns)
		tcol = column_of(sh[0].text, "sim_time_ns");
	if (dcol < 0)
		dcol = column_of(sh[0].text, "fep_id");
	if (dcol < 0)
		dcol = column_of(sh[0].text, "FEP_ID");
	if (snprintf(path, sizeof(path), "%s/%s-0.csv", out, rec->prefix) >= (int)sizeof(path))
		errno = ENAMETOOLONG;
	else
		f = fopen(path, "wb");
	if (f == NULL) {
		fprintf(stderr, "uetemu: merge: %s: %s\n", path, strerror(errno));
		goto fail;
	}
	fwrite(sh[0].text, 1, strcspn(sh[0].text, "\n") + 1, f);
	for (;;) {
		/* the shard whose next row comes first; a tie (one device's rows) keeps the lower rank first */
		int best = -1;
		struct key bk = { 0, 0 };

		for (unsigned r = 0; r < rec->n; r++) {
			if (sh[r].next == sh[r].n_rows)
				continue;
			struct key k = key_of(sh[r].rows[sh[r].next], tcol, ns, dcol);

			if (best < 0 || key_less(k, bk)) {
				best = (int)r;
				bk = k;
			}
		}
		if (best < 0)
			break;
		const char *row = sh[best].rows[sh[best].next++];

		fwrite(row, 1, strcspn(row, "\n") + 1, f);
	}
	rc = close_out(f, path);
	f = NULL;
fail:
	if (f != NULL)
		fclose(f);
	for (unsigned r = 0; sh != NULL && r < rec->n; r++) {
		free(sh[r].text);
		free(sh[r].rows);
	}
	free(sh);
	return rc;
}

/* Whether @p name is "<prefix>-<rank><ext>"; its prefix (into @p prefix) and rank. */
static bool shard_name_ext(const char *name, const char *ext, char *prefix, unsigned *rank)
{
	size_t n = strlen(name), x = strlen(ext), d;

	if (n < x + 3 || strcmp(name + n - x, ext) != 0)
		return false;
	for (d = n - x; d > 0 && name[d - 1] >= '0' && name[d - 1] <= '9'; d--)
		;
	if (d == n - x || d < 2 || name[d - 1] != '-' || n - x - d > 6)
		return false;
	memcpy(prefix, name, d - 1);
	prefix[d - 1] = '\0';
	*rank = (unsigned)number(name + d);
	return true;
}

static bool shard_name(const char *name, char *prefix, unsigned *rank)
{
	return shard_name_ext(name, ".csv", prefix, rank);
}

static int copy_file(const char *from, const char *to)
{
	char *text;
	size_t len;
	int e = read_file(from, &text, &len);

	if (e < 0)
		return e;
	FILE *f = fopen(to, "wb");

	if (f == NULL) {
		e = -errno;
		free(text);
		return e;
	}
	e = fwrite(text, 1, len, f) == len ? 0 : -EIO;
	if (fclose(f) != 0 && e == 0)
		e = -EIO;
	free(text);
	return e;
}

/* ---- captures: <name>-<rank>.pcap and .pcapng, each rank's the frames its devices sent ---- */

#define NG_SHB 0x0a0d0d0au /* pcapng block types and the statistics block's options (draft-ietf-opsawg-pcapng) */
#define NG_EPB 0x00000006u
#define NG_ISB 0x00000005u
#define NG_OPT_ISB_START 2
#define NG_OPT_ISB_END 3
#define NG_OPT_ISB_FIRST_COUNT 4 /* isb_ifrecv .. isb_usrdeliv: counts, summed over the shards */
#define NG_OPT_ISB_LAST_COUNT 8

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const uint8_t *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

static void put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* A pcapng timestamp (high word, then low word) at @p p. */
static uint64_t ng_ts(const uint8_t *p)
{
	return (uint64_t)le32(p) << 32 | le32(p + 4);
}

static void put_ng_ts(uint8_t *p, uint64_t v)
{
	put_le32(p, (uint32_t)(v >> 32));
	put_le32(p + 4, (uint32_t)v);
}

/* One capture shard in memory: its head (pcap's file header; pcapng's blocks before the first packet), its frames
 * as offsets, and pcapng's closing statistics block. */
struct cap_shard {
	char *d;
	size_t len;
	size_t head;        /* bytes of the head */
	size_t *frames;     /* each frame's (record's, block's) offset */
	uint64_t *ts;       /* its timestamp: pcap's seconds << 32 | fraction; pcapng's in its resolution */
	size_t n, next;
	size_t isb, isb_len; /* pcapng: the statistics block, 0 none */
};

/* Index shard @p c (@p ng: pcapng). 0, or a reason it is not a capture uetemu writes. */
static const char *cap_index(struct cap_shard *c, bool ng)
{
	const uint8_t *u = (const uint8_t *)c->d;
	size_t off, cap = c->len / 16 + 1;

	c->frames = malloc(cap * sizeof(*c->frames));
	c->ts = malloc(cap * sizeof(*c->ts));
	if (c->frames == NULL || c->ts == NULL)
		return "out of memory";
	if (!ng) {
		uint32_t m = c->len >= 24 ? le32(u) : 0;

		if (m != 0xa1b2c3d4u && m != 0xa1b23c4du)
			return "not a little-endian pcap file";
		for (off = c->head = 24; off + 16 <= c->len; off += 16 + le32(u + off + 8)) {
			c->frames[c->n] = off;
			c->ts[c->n++] = (uint64_t)le32(u + off) << 32 | le32(u + off + 4);
		}
		return off == c->len ? NULL : "a record cut short";
	}
	if (c->len < 12 || le32(u) != NG_SHB || le32(u + 8) != 0x1a2b3c4du)
		return "not a little-endian pcapng file";
	for (off = 0; off + 12 <= c->len;) {
		uint32_t type = le32(u + off), bl = le32(u + off + 4);

		if (bl < 12 || bl % 4 != 0 || bl > c->len - off || le32(u + off + bl - 4) != bl)
			return "a block of a bad length";
		if (type == NG_SHB && off != 0)
			return "more than one section";
		if (type == NG_EPB) {
			if (bl < 32 || c->isb != 0)
				return "a packet block where none can be";
			if (c->n == 0)
				c->head = off;
			c->frames[c->n] = off;
			c->ts[c->n++] = ng_ts(u + off + 12);
		} else if (type == NG_ISB) {
			if (bl < 24 || c->isb != 0)
				return "more than one statistics block";
			c->isb = off;
			c->isb_len = bl;
		} else if (c->n > 0 || c->isb != 0) {
			return "a block other than packets after the first packet";
		}
		off += bl;
	}
	if (c->n == 0)
		c->head = c->isb != 0 ? c->isb : off;
	return off == c->len ? NULL : "a block cut short";
}

/* Bytes of frame @p i of @p c: a pcap record's header and data, a pcapng block. */
static size_t cap_frame_len(const struct cap_shard *c, size_t i, bool ng)
{
	const uint8_t *u = (const uint8_t *)c->d + c->frames[i];

	return ng ? le32(u + 4) : 16 + le32(u + 8);
}

/*
 * The statistics block of the merged file: rank 0's, its timestamp and isb_endtime the latest of the shards that
 * wrote a frame, isb_starttime the earliest, and the counts (isb_ifrecv .. isb_usrdeliv) summed, as one process
 * counts the frames of every device. Written in place into rank 0's copy. false when a shard's block differs in
 * its layout (another writer's).
 */
static bool ng_merge_isb(struct cap_shard *sh, unsigned n)
{
	uint8_t *b = (uint8_t *)sh[0].d + sh[0].isb;
	uint64_t first = UINT64_MAX, last = 0, sum[NG_OPT_ISB_LAST_COUNT + 1] = { 0 };
	bool any = false;

	for (unsigned r = 0; r < n; r++) {
		const uint8_t *u = (const uint8_t *)sh[r].d + sh[r].isb;

		if (sh[r].isb_len != sh[0].isb_len)
			return false;
		for (size_t o = 20; o + 4 <= sh[r].isb_len - 4;) {
			uint16_t code = (uint16_t)(u[o] | u[o + 1] << 8), ol = (uint16_t)(u[o + 2] | u[o + 3] << 8);

			if (code == 0 || o + 4 + ol > sh[r].isb_len - 4)
				break;
			if (ol == 8 && code >= NG_OPT_ISB_FIRST_COUNT && code <= NG_OPT_ISB_LAST_COUNT)
				sum[code] += le64(u + o + 4);
			if (ol == 8 && sh[r].n > 0 && code == NG_OPT_ISB_START && ng_ts(u + o + 4) < first)
				first = ng_ts(u + o + 4);
			if (ol == 8 && sh[r].n > 0 && code == NG_OPT_ISB_END && ng_ts(u + o + 4) > last)
				last = ng_ts(u + o + 4);
			o += 4 + ((ol + 3u) & ~3u);
		}
		any |= sh[r].n > 0;
	}
	for (size_t o = 20; o + 4 <= sh[0].isb_len - 4;) {
		uint16_t code = (uint16_t)(b[o] | b[o + 1] << 8), ol = (uint16_t)(b[o + 2] | b[o + 3] << 8);

		if (code == 0 || o + 4 + ol > sh[0].isb_len - 4)
			break;
		if (ol == 8 && code >= NG_OPT_ISB_FIRST_COUNT && code <= NG_OPT_ISB_LAST_COUNT)
			for (unsigned i = 0; i < 8; i++)
				b[o + 4 + i] = (uint8_t)(sum[code] >> (8 * i));
		if (ol == 8 && any && code == NG_OPT_ISB_START)
			put_ng_ts(b + o + 4, first);
		if (ol == 8 && any && code == NG_OPT_ISB_END)
			put_ng_ts(b + o + 4, last);
		o += 4 + ((ol + 3u) & ~3u);
	}
	if (any)
		put_ng_ts(b + 12, last);
	return true;
}

/*
 * Join the @p n shards of capture @p name (@p ext ".pcap" or ".pcapng") in @p dir into @p out/<name><ext>: the
 * head (the same in every shard), the frames by timestamp, frames of one timestamp in rank order (one process
 * writes them in its event order: the same when they are of one rank, the shards' order else), pcapng's
 * statistics block summed. 0 or -1 (said on stderr).
 */
static int merge_capture(const char *dir, const char *out, const struct record *rec, const char *ext)
{
	struct cap_shard *sh = calloc(rec->n, sizeof(*sh));
	bool ng = strcmp(ext, ".pcapng") == 0, isb = true;
	char path[PATH_MAX];
	FILE *f = NULL;
	int rc = -1;

	if (sh == NULL)
		goto fail;
	for (unsigned r = 0; r < rec->n; r++) {
		const char *why = NULL;
		int e = snprintf(path, sizeof(path), "%s/%s-%u%s", dir, rec->prefix, r, ext) >= (int)sizeof(path)
				? -ENAMETOOLONG : read_file(path, &sh[r].d, &sh[r].len);

		if (e == 0)
			why = cap_index(&sh[r], ng);
		if (e < 0 || why != NULL) {
			fprintf(stderr, "uetemu: merge: %s: %s\n", path, e < 0 ? strerror(-e) : why);
			goto fail;
		}
		if (sh[r].head != sh[0].head || memcmp(sh[r].d, sh[0].d, sh[0].head) != 0) {
			fprintf(stderr, "uetemu: merge: %s: its header is not %s-0%s's: shards of different runs?\n", path,
				rec->prefix, ext);
			goto fail;
		}
		isb &= sh[r].isb != 0;
	}
	if (ng && isb && !ng_merge_isb(sh, rec->n)) {
		fprintf(stderr, "uetemu: merge: %s/%s-*%s: statistics blocks of different layouts\n", dir, rec->prefix,
			ext);
		goto fail;
	}
	if (snprintf(path, sizeof(path), "%s/%s%s", out, rec->prefix, ext) >= (int)sizeof(path))
		errno = ENAMETOOLONG;
	else
		f = fopen(path, "wb");
	if (f == NULL) {
		fprintf(stderr, "uetemu: merge: %s: %s\n", path, strerror(errno));
		goto fail;
	}
	fwrite(sh[0].d, 1, sh[0].head, f);
	for (;;) {
		int best = -1;

		for (unsigned r = 0; r < rec->n; r++)
			if (sh[r].next < sh[r].n && (best < 0 || sh[r].ts[sh[r].next] < sh[best].ts[sh[best].next]))
				best = (int)r;
		if (best < 0)
			break;
		struct cap_shard *c = &sh[best];

		fwrite(c->d + c->frames[c->next], 1, cap_frame_len(c, c->next, ng), f);
		c->next++;
	}
	if (ng && isb)
		fwrite(sh[0].d + sh[0].isb, 1, sh[0].isb_len, f);
	rc = close_out(f, path);
	f = NULL;
fail:
	if (f != NULL)
		fclose(f);
	for (unsigned r = 0; sh != NULL && r < rec->n; r++) {
		free(sh[r].d);
		free(sh[r].frames);
		free(sh[r].ts);
	}
	free(sh);
	return rc;
}

/* Count a shard of rank @p rank of @p prefix into @p t (@p *n of at most @p max, a new entry for a new prefix); -1
 * when it would be one more than @p max. */
static int tally(struct record *t, unsigned *n, unsigned max, const char *prefix, unsigned rank)
{
	unsigned i;

	for (i = 0; i < *n && strcmp(t[i].prefix, prefix) != 0; i++)
		;
	if (i == *n) {
		if (*n == max)
			return -1;
		snprintf(t[i].prefix, sizeof(t[i].prefix), "%s", prefix);
		t[i].n = 0;
		t[i].max_rank = 0;
		(*n)++;
	}
	t[i].n++;
	if (rank > t[i].max_rank)
		t[i].max_rank = rank;
	return 0;
}

/* The captures' shards in @p dir (names ending @p ext) into @p caps (at most @p max), their count; -1 (said) when
 * there are more. */
static int find_captures(const char *dir, const char *ext, struct record *caps, unsigned max)
{
	char prefix[NAME_MAX + 1];
	unsigned n = 0;
	DIR *d = opendir(dir);

	if (d == NULL)
		return 0;
	for (struct dirent *e; (e = readdir(d)) != NULL;) {
		unsigned rank;

		if (!shard_name_ext(e->d_name, ext, prefix, &rank))
			continue;
		if (tally(caps, &n, max, prefix, rank) < 0) {
			fprintf(stderr, "uetemu: merge: %s: more than %u captures\n", dir, max);
			closedir(d);
			return -1;
		}
	}
	closedir(d);
	return (int)n;
}

int ctl_cli_merge(const char *dir, const char *out)
{
	static struct record recs[MERGE_RECORDS_MAX];
	unsigned n_recs = 0;
	char prefix[NAME_MAX + 1], path[PATH_MAX], to[PATH_MAX];
	struct stat st;
	DIR *d = opendir(dir);

	if (d == NULL) {
		fprintf(stderr, "uetemu: merge: %s: %s\n", dir, strerror(errno));
		return CTL_EXIT_ERROR;
	}
	for (struct dirent *e; (e = readdir(d)) != NULL;) {
		unsigned rank;

		if (!shard_name(e->d_name, prefix, &rank))
			continue;
		if (tally(recs, &n_recs, MERGE_RECORDS_MAX, prefix, rank) < 0) {
			fprintf(stderr, "uetemu: merge: %s: more than %d records\n", dir, MERGE_RECORDS_MAX);
			closedir(d);
			return CTL_EXIT_ERROR;
		}
	}
	closedir(d);
	if (n_recs == 0) {
		fprintf(stderr, "uetemu: merge: %s: no record shards (<SimulationName>-<record>-<rank>.csv)\n", dir);
		return CTL_EXIT_ERROR;
	}
	if (realpath(dir, path) != NULL && realpath(out, to) != NULL && strcmp(path, to) == 0) {
		fprintf(stderr, "uetemu: merge: --out %s is DIR itself: the merged -0.csv would overwrite rank 0's "
			"shard; give another folder\n", out);
		return CTL_EXIT_ERROR;
	}
	if (mkdir(out, 0755) != 0 && errno != EEXIST) {
		fprintf(stderr, "uetemu: merge: %s: %s\n", out, strerror(errno));
		return CTL_EXIT_ERROR;
	}
	if (stat(out, &st) != 0 || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "uetemu: merge: --out %s is not a folder\n", out);
		return CTL_EXIT_ERROR;
	}
	unsigned ranks = 0;

	for (unsigned i = 0; i < n_recs; i++) {
		if (recs[i].n != recs[i].max_rank + 1 || recs[i].n > MERGE_SHARDS_MAX) {
			fprintf(stderr, "uetemu: merge: %s/%s-*.csv: %u shards, ranks up to %u: a shard is missing\n",
				dir, recs[i].prefix, recs[i].n, recs[i].max_rank);
			return CTL_EXIT_ERROR;
		}
		if (merge_record(dir, out, &recs[i]) < 0)
			return CTL_EXIT_ERROR;
		ranks = recs[i].n > ranks ? recs[i].n : ranks;
	}
	static struct record caps[MERGE_RECORDS_MAX];
	unsigned n_caps = 0;

	for (int x = 0; x < 2; x++) {
		const char *ext = x == 0 ? ".pcap" : ".pcapng";
		int n = find_captures(dir, ext, caps, MERGE_RECORDS_MAX);

		if (n < 0)
			return CTL_EXIT_ERROR;
		for (int i = 0; i < n; i++) {
			if (caps[i].n != caps[i].max_rank + 1 || caps[i].n > MERGE_SHARDS_MAX) {
				fprintf(stderr, "uetemu: merge: %s/%s-*%s: %u shards, ranks up to %u: a shard is missing\n",
					dir, caps[i].prefix, ext, caps[i].n, caps[i].max_rank);
				return CTL_EXIT_ERROR;
			}
			if (merge_capture(dir, out, &caps[i], ext) < 0)
				return CTL_EXIT_ERROR;
		}
		n_caps += (unsigned)n;
	}
	int e = snprintf(path, sizeof(path), "%s/summary.json", dir) >= (int)sizeof(path) ||
			snprintf(to, sizeof(to), "%s/summary.json", out) >= (int)sizeof(to)
		? -ENAMETOOLONG : access(path, R_OK) == 0 ? copy_file(path, to) : 0;

	if (e < 0) {
		fprintf(stderr, "uetemu: merge: %s: %s\n", to, strerror(-e));
		return CTL_EXIT_ERROR;
	}
	printf("uetemu merge: %u records", n_recs);
	if (n_caps > 0)
		printf(" and %u capture%s", n_caps, n_caps == 1 ? "" : "s");
	printf(" from %u rank%s into %s\n", ranks, ranks == 1 ? "" : "s", out);
	return CTL_EXIT_OK;
}
