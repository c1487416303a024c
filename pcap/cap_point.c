/*
 * Capture points: what a link tap or a real port offers is filtered (BPF), cut to the snap length and written to
 * a buffered pcap or pcapng file, which is rotated at its frame or size limit. One encode buffer per capture holds
 * the data payload pattern from the start (wire_prefill_payload()), so a frame costs only its headers; the file
 * goes through a 1 MiB stdio buffer, so a frame costs no system call.
 */
#include "cap_pvt.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "net.h"

#define CAP_IOBUF (1u << 20)
#define CAP_NOTE_MAX 192u

struct cap {
	struct cap_cfg cfg;        /* its strings point at the copies below */
	char *base, *filter, *if_name, *if_desc;
	struct cap_bpf *bpf;
	FILE *f;
	char *iobuf;
	int err;                   /* errno of the first write that failed */
	char err_path[PATH_MAX];   /* ... and its file */
	uint32_t idx;              /* the file being written: cap_file_path() index */
	uint64_t file_frames, file_bytes;
	bool stopped;              /* a limit reached with no rotation: nothing more is written */
	bool any;                  /* a frame has been seen: first_ns and last_ns hold */
	uint64_t first_ns, last_ns;
	struct cap_stats st;
	uint8_t head[CAP_NG_EPB_ROOM], tail[CAP_NG_EPB_ROOM]; /* a frame's EPB around it */
	uint8_t meta[4096]; /* a file's SHB, IDB, ISB (apart from head: a rotation comes between) */
	uint8_t frame[WIRE_MAX_FRAME];  /* prefilled with the payload pattern: only headers are written per frame */
	uint8_t whole[WIRE_MAX_FRAME];  /* frames laid out otherwise (native, CRC trailer), encoded whole */
};

int cap_file_path(const char *base, uint8_t format, uint32_t idx, char *buf, size_t len)
{
	const char *ext = format == CAP_FORMAT_PCAPNG ? "pcapng" : "pcap";

	if (idx == 0)
		return snprintf(buf, len, "%s.%s", base, ext);
	return snprintf(buf, len, "%s-%u.%s", base, idx, ext);
}

/* Note the first failure: its errno and its file. */
static void fail(struct cap *c, int e)
{
	if (c->err != 0)
		return;
	c->err = e != 0 ? e : EIO;
	cap_file_path(c->cfg.base, c->cfg.format, c->idx, c->err_path, sizeof(c->err_path));
	rec_budget_fail(c->cfg.budget, c->err, c->err_path);
}

/* Whether the run's output budget takes a record of @p n bytes; past it the capture stops (a whole record cut). */
static bool budget_ok(struct cap *c, size_t n, emu_ps_t at)
{
	struct rec_budget *b = c->cfg.budget;
	char path[PATH_MAX];

	if (b == NULL)
		return true;
	if (!b->cut && (b->limit == 0 || (n <= b->limit && b->used <= b->limit - n))) {
		b->used += n;
		return true;
	}
	cap_file_path(c->cfg.base, c->cfg.format, c->idx, path, sizeof(path));
	rec_budget_take(b, n, path, at);
	c->stopped = true;
	return false;
}

static void out(struct cap *c, const void *b, size_t n)
{
	if (c->err != 0) /* after a failed write nothing more: the file is cut to whole records at its close */
		return;
	if (n > 0 && fwrite(b, n, 1, c->f) != 1)
		fail(c, errno);
	c->file_bytes += n;
	c->st.bytes += n;
}

/* The file's headers: pcap's 24 bytes, or pcapng's SHB and the IDB of the capture point. */
static void write_headers(struct cap *c)
{
	struct cap_buf o = { .b = c->meta, .cap = sizeof(c->meta) };
	uint32_t snap = c->cfg.snaplen;

	if (c->cfg.format == CAP_FORMAT_PCAP) {
		uint8_t h[CAP_PCAP_HDR_LEN] = { 0 };

		cap_put32(h, CAP_PCAP_MAGIC_NS);
		h[4] = 2; /* version 2.4 */
		h[6] = 4;
		cap_put32(h + 16, snap);
		cap_put32(h + 20, CAP_LINKTYPE_ETHERNET);
		rec_budget_count(c->cfg.budget, sizeof(h));
		out(c, h, sizeof(h));
		return;
	}
	size_t n = cap_ng_shb(&o);

	rec_budget_count(c->cfg.budget, n);
	out(c, c->meta, n);
	n = cap_ng_idb(&o, &c->cfg, snap); /* its strings are bounded (cap_ng_idb()): it fits */
	if (n == 0)
		fail(c, EOVERFLOW);
	rec_budget_count(c->cfg.budget, n);
	out(c, c->meta, n);
}

/* Start file c->idx. Returns 0 or -errno (noted). */
static int file_open(struct cap *c)
{
	char path[PATH_MAX];

	cap_file_path(c->cfg.base, c->cfg.format, c->idx, path, sizeof(path));
	uint32_t ring = c->cfg.rotate >= 2 ? c->cfg.rotate : 1;
	struct stat old;

	/* a rotation over a file of the ring gives its bytes back to the output budget: it counts the disk */
	if (c->cfg.budget != NULL && c->st.files_opened >= ring && stat(path, &old) == 0)
		c->cfg.budget->used -= (uint64_t)old.st_size < c->cfg.budget->used ? (uint64_t)old.st_size
										   : c->cfg.budget->used;
	c->f = fopen(path, "wb");
	if (c->f == NULL) {
		int e = errno;

		fail(c, e);
		return -e;
	}
	if (c->iobuf != NULL)
		setvbuf(c->f, c->iobuf, _IOFBF, CAP_IOBUF);
	c->file_frames = 0;
	c->file_bytes = 0;
	c->st.files_opened++;
	write_headers(c);
	return 0;
}

static uint64_t stamp(const struct cap *c, emu_ps_t at)
{
	if (c->cfg.scale <= 1) /* virtual time: a 64-bit division by a constant, per frame */
		return (uint64_t)c->cfg.epoch_ns + at / EMU_PS_PER_NS;
	return (uint64_t)c->cfg.epoch_ns + (uint64_t)((unsigned __int128)at * c->cfg.scale / EMU_PS_PER_NS);
}

static uint32_t rd32(const uint8_t *b)
{
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

/*
 * Cut the file @p fd after its last whole record (pcap) or block (pcapng), so a write that failed half-way leaves
 * a readable file; a file without its whole headers is emptied.
 */
static void cut_whole(int fd, uint8_t format)
{
	off_t end = lseek(fd, 0, SEEK_END), at = format == CAP_FORMAT_PCAP ? CAP_PCAP_HDR_LEN : 0, next;
	uint8_t h[CAP_PCAP_REC_LEN];

	while (at + (off_t)sizeof(h) <= end && pread(fd, h, sizeof(h), at) == (ssize_t)sizeof(h)) {
		if (format == CAP_FORMAT_PCAP)
			next = at + CAP_PCAP_REC_LEN + (off_t)rd32(h + 8);
		else
			next = rd32(h + 4) >= CAP_NG_BLOCK_MIN ? at + (off_t)rd32(h + 4) : end + 1;
		if (next > end)
			break;
		at = next;
	}
	if (at > end || (format == CAP_FORMAT_PCAPNG && at == 0))
		at = 0;
	if (ftruncate(fd, at) != 0)
		return; /* the file stays as it is: the close reports the first error anyway */
}

/* End the current file: pcapng's statistics block, flush, and on a failure cut it to whole records. */
static void file_close(struct cap *c)
{
	if (c->f == NULL)
		return;
	/* pcapng's closing statistics block, unless the output budget was reached (the block is optional) */
	if (c->cfg.format == CAP_FORMAT_PCAPNG && (c->cfg.budget == NULL || !c->cfg.budget->cut)) {
		struct cap_buf o = { .b = c->meta, .cap = sizeof(c->meta) };
		uint64_t first = c->any ? c->first_ns : stamp(c, 0), last = c->any ? c->last_ns : first;
		size_t n = cap_ng_isb(&o, last, first, last, &c->st);

		rec_budget_count(c->cfg.budget, n);
		out(c, c->meta, n);
	}
	if (fflush(c->f) != 0 || ferror(c->f))
		fail(c, errno);
	if (c->err != 0) { /* what stdio still holds is dropped, or the close would write it after the cut */
		__fpurge(c->f);
		cut_whole(fileno(c->f), c->cfg.format);
	}
	if (fclose(c->f) != 0)
		fail(c, errno);
	c->f = NULL;
}

static char *dup_or_null(const char *s, bool *bad)
{
	char *d = s != NULL ? strdup(s) : NULL;

	if (s != NULL && d == NULL)
		*bad = true;
	return d;
}

static void cap_free(struct cap *c)
{
	cap_bpf_free(c->bpf);
	free(c->base);
	free(c->filter);
	free(c->if_name);
	free(c->if_desc);
	free(c->iobuf);
	free(c);
}

/* Copy @p cfg into @p c with its own strings and its defaults. Returns 0 or -ENOMEM. */
static int take_cfg(struct cap *c, const struct cap_cfg *cfg)
{
	bool bad = false;

	c->cfg = *cfg;
	c->base = dup_or_null(cfg->base, &bad);
	c->filter = cfg->filter != NULL && cfg->filter[0] != '\0' ? dup_or_null(cfg->filter, &bad) : NULL;
	c->if_name = dup_or_null(cfg->if_name, &bad);
	c->if_desc = dup_or_null(cfg->if_desc, &bad);
	c->cfg.base = c->base;
	c->cfg.filter = c->filter;
	c->cfg.if_name = c->if_name;
	c->cfg.if_desc = c->if_desc;
	if (c->cfg.snaplen == 0 || c->cfg.snaplen > CAP_SNAPLEN_MAX)
		c->cfg.snaplen = CAP_SNAPLEN_MAX;
	if (c->cfg.rotate > CAP_ROTATE_MAX)
		c->cfg.rotate = CAP_ROTATE_MAX;
	return bad || c->base == NULL ? -ENOMEM : 0;
}

struct cap *cap_open(const struct cap_cfg *cfg, char *err, size_t errlen)
{
	struct cap *c = calloc(1, sizeof(*c));
	int rc = c == NULL ? -ENOMEM : take_cfg(c, cfg);

	if (rc == 0 && c->filter != NULL)
		rc = cap_bpf_compile(c->filter, &c->bpf, err, errlen);
	if (rc == 0) {
		c->iobuf = malloc(CAP_IOBUF);
		wire_prefill_payload(c->frame, sizeof(c->frame));
		if ((rc = file_open(c)) < 0)
			snprintf(err, errlen, "%s: %s", c->err_path, strerror(-rc));
	} else if (rc == -ENOMEM) {
		snprintf(err, errlen, "out of memory opening a capture");
	}
	if (rc < 0) {
		if (c != NULL)
			cap_free(c);
		errno = -rc;
		return NULL;
	}
	return c;
}

void cap_set_epoch(struct cap *c, int64_t epoch_ns)
{
	c->cfg.epoch_ns = epoch_ns;
}

bool cap_notes(const struct cap *c)
{
	return c != NULL && c->cfg.format == CAP_FORMAT_PCAPNG;
}

int cap_close(struct cap *c, struct cap_stats *st, char *err, size_t errlen)
{
	if (c == NULL)
		return 0;
	file_close(c);
	uint32_t ring = c->cfg.rotate >= 2 ? c->cfg.rotate : 1;

	c->st.n_files = c->st.files_opened < ring ? c->st.files_opened : ring;
	c->st.oldest = c->st.files_opened <= ring ? 0 : (c->idx + 1) % ring;
	if (st != NULL)
		*st = c->st;
	int e = c->err;

	if (e != 0 && err != NULL && errlen > 0)
		snprintf(err, errlen, "%s: %s", c->err_path, strerror(e));
	cap_free(c);
	return -e;
}

/* Whether a record of @p rec bytes fits the current file's limits (a file always takes its first frame). */
static bool fits(const struct cap *c, size_t rec)
{
	if (c->cfg.max_frames != 0 && c->file_frames >= c->cfg.max_frames)
		return false;
	return c->cfg.max_bytes == 0 || c->file_frames == 0 || c->file_bytes + rec <= c->cfg.max_bytes;
}

/* Make room for a record of @p rec bytes: the current file, or the next of the ring. false: not written. */
static bool room(struct cap *c, size_t rec)
{
	if (c->stopped || c->f == NULL)
		return false;
	if (fits(c, rec))
		return true;
	if (c->cfg.rotate < 2) {
		c->stopped = true;
		return false;
	}
	file_close(c);
	c->idx = (c->idx + 1) % c->cfg.rotate;
	return file_open(c) == 0;
}

/* The comment of a pcapng frame: @p note, and its emulated time when the capture asks for it. */
static const char *comment(const struct cap *c, const char *note, emu_ps_t emu, char *buf, size_t len)
{
	if (!c->cfg.note_emu)
		return note;
	snprintf(buf, len, "%s%semulated time %llu.%012llu s", note != NULL ? note : "", note != NULL ? "; " : "",
		 (unsigned long long)(emu / EMU_PS_PER_S), (unsigned long long)(emu % EMU_PS_PER_S));
	return buf;
}

static bool write_pcap(struct cap *c, uint64_t ns, const uint8_t *frame, uint32_t caplen, uint32_t len, emu_ps_t emu)
{
	uint8_t h[CAP_PCAP_REC_LEN];

	if (!room(c, CAP_PCAP_REC_LEN + caplen) || !budget_ok(c, CAP_PCAP_REC_LEN + caplen, emu))
		return false;
	cap_put32(h, (uint32_t)(ns / 1000000000u));
	cap_put32(h + 4, (uint32_t)(ns % 1000000000u));
	cap_put32(h + 8, caplen);
	cap_put32(h + 12, len);
	out(c, h, sizeof(h));
	out(c, frame, caplen);
	return true;
}

static bool write_pcapng(struct cap *c, uint64_t ns, const uint8_t *frame, uint32_t caplen, uint32_t len,
			 enum cap_dir dir, const char *note, emu_ps_t emu)
{
	struct cap_buf h = { .b = c->head, .cap = sizeof(c->head) }, t = { .b = c->tail, .cap = sizeof(c->tail) };
	size_t total = cap_ng_epb(&h, &t, ns, caplen, len, dir, note);

	if (total == 0 || !room(c, total) || !budget_ok(c, total, emu))
		return false;
	out(c, h.b, h.len);
	out(c, frame, caplen);
	out(c, t.b, t.len);
	return true;
}

/* cap_frame(), saying whether the frame was written. */
static bool offer(struct cap *c, const uint8_t *frame, size_t len, emu_ps_t at, emu_ps_t emu, enum cap_dir dir,
		  const char *note)
{
	uint64_t ns = stamp(c, at);
	uint32_t caplen = len > c->cfg.snaplen ? c->cfg.snaplen : (uint32_t)len;
	char buf[CAP_NOTE_MAX];

	bool ok;

	c->st.seen++;
	if (c->bpf != NULL && !cap_bpf_match(c->bpf, frame, (uint32_t)len, (uint32_t)len)) {
		c->st.filtered_out++;
		return false;
	}
	if (!c->any)
		c->first_ns = ns;
	c->any = true;
	c->last_ns = ns;
	if (c->cfg.format == CAP_FORMAT_PCAP)
		ok = write_pcap(c, ns, frame, caplen, (uint32_t)len, emu);
	else
		ok = write_pcapng(c, ns, frame, caplen, (uint32_t)len, dir, comment(c, note, emu, buf, sizeof(buf)), emu);
	if (!ok) {
		c->st.cut++;
		return false;
	}
	c->file_frames++;
	c->st.written++;
	c->st.snapped += caplen < len;
	return true;
}

void cap_frame(struct cap *c, const uint8_t *frame, size_t len, emu_ps_t at, emu_ps_t emu, enum cap_dir dir,
	       const char *note)
{
	offer(c, frame, len, at, emu, dir, note);
}

/* What the model has to say about a frame it sends: trimmed, ECN CE. NULL when nothing. */
static const char *pkt_note(const struct wire_pkt *pkt, char *buf, size_t len)
{
	bool trimmed = pkt->kind == WIRE_KIND_TRIMMED;
	bool ce = pkt->kind != WIRE_KIND_PFC && pkt->ecn == WIRE_ECN_CE;

	if (!trimmed && !ce)
		return NULL;
	snprintf(buf, len, "%s%s%s", trimmed ? "trimmed to its PDS header" : "", trimmed && ce ? "; " : "",
		 ce ? "ECN CE (congestion experienced)" : "");
	return buf;
}

/* Encode @p pkt for capture: headers only into the prefilled buffer when its layout allows, else whole (a native
 * data frame, a CRC trailer). Returns the frame's length (the bytes in *@p out) or a negative value. */
static int cap_encode(struct cap *c, const struct wire_pkt *pkt, const uint8_t **out)
{
	if (wire_prefilled_fits(pkt)) {
		*out = c->frame;
		return wire_encode_prefilled(pkt, c->frame, sizeof(c->frame));
	}
	*out = c->whole;
	return wire_encode(pkt, c->whole, sizeof(c->whole));
}

static enum cap_dir tap_dir(const struct cap *c, uint32_t dir)
{
	if (c->cfg.out_dir < 0)
		return CAP_DIR_NONE;
	return dir == (uint32_t)c->cfg.out_dir ? CAP_DIR_OUT : CAP_DIR_IN;
}

void cap_tap(void *arg, uint32_t dir, const struct wire_pkt *pkt, emu_ps_t now)
{
	struct cap *c = arg;
	const uint8_t *f;
	int n = cap_encode(c, pkt, &f);
	char buf[96];

	if (n <= 0)
		return;
	const char *note = c->cfg.format == CAP_FORMAT_PCAPNG ? pkt_note(pkt, buf, sizeof(buf)) : NULL;

	cap_frame(c, f, (size_t)n, now, now, tap_dir(c, dir), note);
}

void cap_drop_tap(void *arg, uint32_t dir, const struct wire_pkt *pkt, emu_ps_t now, int reason)
{
	struct cap *c = arg;
	char buf[160], more[96];

	if (c->cfg.format != CAP_FORMAT_PCAPNG)
		return;
	const uint8_t *f;
	int n = cap_encode(c, pkt, &f);

	if (n <= 0)
		return;
	const char *also = pkt_note(pkt, more, sizeof(more));

	snprintf(buf, sizeof(buf), "dropped here (%s)%s%s", net_counter_name(reason), also != NULL ? "; " : "",
		 also != NULL ? also : "");
	if (offer(c, f, (size_t)n, now, now, tap_dir(c, dir), buf))
		c->st.lost_noted++;
}
