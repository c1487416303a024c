/* CSV records with Scala file names and column formats. */
#include "rec_pvt.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio_ext.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* A sink opened by rec_file_open(): its path kept with it. */
struct rec_file_sink {
	struct rec_sink k;
	char path[PATH_MAX];
};

struct rec_csv {
	FILE *f;
	struct rec_sink sink;
	char path[PATH_MAX];
	int64_t epoch_s;
	int64_t utc_s;   /* the second utc holds, or -1 */
	char utc[32];    /* time_utc of utc_s: formatted once per simulated second, not per row */
};

/* What of @p n bytes at @p buf the budget lets through: all, or up to the last whole row that fits (the cut). */
static size_t sink_budget(struct rec_sink *k, const char *buf, size_t n)
{
	struct rec_budget *b = k->b;

	if (b == NULL)
		return n;
	if (k->cut || b->cut) {
		k->cut = true;
		return 0;
	}
	if (b->limit == 0 || (n <= b->limit && b->used <= b->limit - n)) {
		b->used += n;
		return n;
	}
	size_t room = (size_t)(b->limit - b->used), keep = 0;

	for (size_t i = room; i > 0; i--)
		if (buf[i - 1] == k->sep) {
			keep = i;
			break;
		}
	rec_budget_count(b, keep);
	rec_budget_take(b, n - keep, k->path, EMU_PS_NEVER); /* does not fit: the cut, said once */
	k->cut = true;
	return keep;
}

/* The sink's first write past the budget: its file ends at its last whole row (stdio's earlier writes ended where
 * its buffer did), and the bytes cut go back to the budget. */
static void sink_cut_whole(struct rec_sink *k)
{
	off_t end = lseek(k->fd, 0, SEEK_END);

	if (end < 0 || rec_truncate_after(k->fd, k->sep) < 0)
		return;
	off_t now = lseek(k->fd, 0, SEEK_END);

	if (now >= 0 && now <= end) {
		k->b->used -= (uint64_t)(end - now) < k->b->used ? (uint64_t)(end - now) : k->b->used;
		k->written = (uint64_t)now;
	}
}

/* A failure the writer thread saw, taken as the sink's own: noted (stderr, the run's stop flag) on this thread. */
static void sink_take_async(struct rec_sink *k)
{
	int e = __atomic_load_n(&k->async_err, __ATOMIC_ACQUIRE);

	if (e != 0 && k->err == 0) {
		k->err = e;
		rec_budget_fail(k->b, e, k->path);
	}
}

/* The sink's bytes handed to the writer thread all written, and a failure among them taken. */
static void sink_sync(struct rec_sink *k)
{
	if (k->b != NULL && k->b->writer != NULL)
		rec_writer_sync(k->b->writer);
	sink_take_async(k);
}

static ssize_t sink_write(void *cookie, const char *buf, size_t n)
{
	struct rec_sink *k = cookie;
	size_t done = 0, all = n;

	sink_take_async(k);
	if (k->err != 0) {
		errno = k->err;
		return -1;
	}
	bool was_cut = k->cut;

	n = sink_budget(k, buf, n); /* past the budget the rest is dropped, not an error */
	if (k->b != NULL && k->b->writer != NULL) { /* real time: the writer thread writes it */
		rec_writer_put(k->b->writer, k, buf, n);
		k->written += n;
		if (k->cut && !was_cut) { /* the cut reads the file back: everything handed over written first */
			sink_sync(k);
			sink_cut_whole(k);
		}
		return (ssize_t)all;
	}
	while (done < n) {
		ssize_t w = write(k->fd, buf + done, n - done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			k->err = w < 0 ? errno : EIO;
			k->written += done;
			rec_budget_fail(k->b, k->err, k->path);
			errno = k->err;
			return -1;
		}
		done += (size_t)w;
	}
	k->written += done;
	if (k->cut && !was_cut)
		sink_cut_whole(k);
	return (ssize_t)all;
}

static int sink_close(void *cookie)
{
	struct rec_sink *k = cookie;

	sink_sync(k); /* the writer thread done with it before its descriptor goes */
	return close(k->fd);
}

/* A file sink's position (ftell, fseek: a caller measuring what it wrote). */
static int sink_seek(void *cookie, off64_t *off, int whence)
{
	struct rec_sink *k = cookie;
	off64_t at = lseek64(k->fd, *off, whence);

	if (at < 0)
		return -1;
	*off = at;
	return 0;
}

static int file_sink_close(void *cookie)
{
	struct rec_file_sink *s = cookie;

	sink_sync(&s->k);
	int rc = close(s->k.fd);

	free(s);
	return rc;
}

FILE *rec_file_open(const char *path, bool append, struct rec_budget *b, char sep)
{
	static const cookie_io_functions_t io = { .write = sink_write, .seek = sink_seek, .close = file_sink_close };
	struct rec_file_sink *s = calloc(1, sizeof(*s));
	FILE *f;

	if (s == NULL)
		return NULL;
	snprintf(s->path, sizeof(s->path), "%s", path);
	s->k = (struct rec_sink){ .b = b, .sep = sep, .path = s->path };
	s->k.fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | (append ? O_APPEND : O_TRUNC), 0644);
	f = s->k.fd >= 0 ? fopencookie(s, "w", io) : NULL;
	if (f == NULL) {
		int e = errno;

		if (s->k.fd >= 0)
			close(s->k.fd);
		free(s);
		errno = e;
	}
	return f;
}

void rec_csv_budget(struct rec_csv *r, struct rec_budget *b)
{
	if (r == NULL)
		return;
	r->sink.b = b;
	rec_budget_count(b, r->sink.written); /* its header */
}

struct rec_csv *rec_csv_open(const char *dir, const char *sim, const char *record, const char *header,
			     int64_t epoch_s)
{
	return rec_csv_open_shard(dir, sim, record, 0, header, epoch_s);
}

struct rec_csv *rec_csv_open_shard(const char *dir, const char *sim, const char *record, uint32_t shard,
				   const char *header, int64_t epoch_s)
{
	static const cookie_io_functions_t io = { .write = sink_write, .close = sink_close };
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s/%s-%s-%u.csv", dir, sim, record, shard) >= (int)sizeof(path)) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	struct rec_csv *r = calloc(1, sizeof(*r));
	if (r == NULL)
		return NULL;
	memcpy(r->path, path, sizeof(r->path));
	r->sink.sep = '\n';
	r->sink.path = r->path;
	/* read and write: a cut file is read back for its last whole row (rec_truncate_after()) */
	r->sink.fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	r->f = r->sink.fd >= 0 ? fopencookie(&r->sink, "w", io) : NULL;
	if (r->f == NULL) {
		int e = errno;
		if (r->sink.fd >= 0)
			close(r->sink.fd);
		free(r);
		errno = e;
		return NULL;
	}
	r->epoch_s = epoch_s;
	r->utc_s = -1;
	rec_put_str(r->f, header);
	rec_put_ch(r->f, '\n');
	fflush(r->f); /* the header on disk from the start: a file cut by the output budget keeps it */
	return r;
}

uint64_t rec_csv_bytes(struct rec_csv *r)
{
	return r != NULL ? r->sink.written + __fpending(r->f) : 0; /* on disk, and waiting in the stream's buffer */
}

FILE *rec_csv_file(struct rec_csv *r)
{
	return r->f;
}

const char *rec_csv_utc(struct rec_csv *r, emu_ps_t now)
{
	int64_t s = r->epoch_s + (int64_t)(now / EMU_PS_PER_S);

	if (s != r->utc_s) {
		time_t t = (time_t)s;
		struct tm tm;

		gmtime_r(&t, &tm);
		strftime(r->utc, sizeof(r->utc), "%Y-%m-%dT%H:%M:%SZ", &tm); /* ISO 8601, as the Scala records */
		r->utc_s = s;
	}
	return r->utc;
}

void rec_csv_time_utc(struct rec_csv *r, emu_ps_t now)
{
	rec_put_str(r->f, rec_csv_utc(r, now));
}

/* "00" to "99": two digits per division (the records write millions of numbers). */
static const char digit_pairs[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* The decimal digits of @p v, ending at @p end (exclusive); returns where they start. */
static char *u64_digits(char *end, uint64_t v)
{
	while (v >= 100) {
		const char *d = digit_pairs + 2 * (v % 100);

		v /= 100;
		*--end = d[1];
		*--end = d[0];
	}
	if (v >= 10) {
		*--end = digit_pairs[2 * v + 1];
		*--end = digit_pairs[2 * v];
	} else {
		*--end = (char)('0' + v);
	}
	return end;
}

/* Write [@p p, @p end). */
static void put_span(FILE *f, const char *p, const char *end)
{
	while (p < end)
		putc_unlocked(*p++, f);
}

char *rec_str_u64(char *p, uint64_t v)
{
	char t[20], *d = u64_digits(t + sizeof(t), v);

	while (d < t + sizeof(t))
		*p++ = *d++;
	return p;
}

void rec_put_u64(FILE *f, uint64_t v)
{
	char buf[24], *p = u64_digits(buf + sizeof(buf), v);

	put_span(f, p, buf + sizeof(buf));
}

void rec_put_i64(FILE *f, int64_t v)
{
	if (v < 0) {
		putc_unlocked('-', f);
		rec_put_u64(f, 0 - (uint64_t)v);
		return;
	}
	rec_put_u64(f, (uint64_t)v);
}

static const uint64_t pow10_tab[20] = {
	1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull, 100000000ull,
	1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull, 10000000000000ull,
	100000000000000ull, 1000000000000000ull, 10000000000000000ull, 100000000000000000ull,
	1000000000000000000ull, 10000000000000000000ull,
};

/* rec_put_fixed()'s digits, ending at @p end (exclusive); returns where they start. */
static char *fixed_digits(char *end, uint64_t v, int digits)
{
	char *p = end;

	assert(digits >= 0 && digits < 20);
	if (digits > 0) {
		uint64_t frac = v % pow10_tab[digits];

		for (int i = 0; i < digits; i++, frac /= 10)
			*--p = (char)('0' + frac % 10);
		*--p = '.';
		v /= pow10_tab[digits];
	}
	return u64_digits(p, v);
}

void rec_put_fixed(FILE *f, uint64_t v, int digits)
{
	char buf[48], *p = fixed_digits(buf + sizeof(buf), v, digits);

	put_span(f, p, buf + sizeof(buf));
}

char *rec_str_fixed(char *p, uint64_t v, int digits)
{
	assert(digits >= 0 && digits < 20);
	char buf[48], *d = fixed_digits(buf + sizeof(buf), v, digits);

	while (d < buf + sizeof(buf))
		*p++ = *d++;
	return p;
}

void rec_fmt_ns(FILE *f, emu_ps_t ps)
{
	rec_put_fixed(f, ps, 3);
}

char *rec_str_ip(char *p, uint32_t ip)
{
	for (int i = 3; i >= 0; i--) {
		p = rec_str_u64(p, (ip >> (8 * i)) & 0xff);
		if (i > 0)
			*p++ = '.';
	}
	return p;
}

void rec_fmt_ip(FILE *f, uint32_t ip)
{
	char buf[16];

	put_span(f, buf, rec_str_ip(buf, ip));
}

void rec_note_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL || errlen == 0 || err[0] != '\0')
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

int rec_truncate_after(int fd, char c)
{
	char buf[4096];
	off_t end = lseek(fd, 0, SEEK_END);

	/* scan backwards a block at a time for the last @p c */
	while (end > 0) {
		off_t at = end > (off_t)sizeof(buf) ? end - (off_t)sizeof(buf) : 0;
		ssize_t n = pread(fd, buf, (size_t)(end - at), at);

		if (n <= 0)
			return -errno;
		for (ssize_t i = n - 1; i >= 0; i--)
			if (buf[i] == c)
				return ftruncate(fd, at + i + 1) == 0 ? 0 : -errno;
		end = at;
	}
	return ftruncate(fd, 0) == 0 ? 0 : -errno;
}

int rec_csv_close(struct rec_csv *r, char *err, size_t errlen)
{
	if (r == NULL)
		return 0;
	int e = fflush(r->f) != 0 || ferror(r->f) ? (r->sink.err ? r->sink.err : EIO) : 0;

	sink_sync(&r->sink); /* a write the writer thread made may have failed */
	if (e == 0 && r->sink.err != 0)
		e = r->sink.err;
	if (e != 0) {
		/* the file holds what was written before the failure: cut the row it ended in */
		rec_truncate_after(r->sink.fd, '\n');
		rec_note_err(err, errlen, "%s: %s", r->path, strerror(e));
	}
	if (fclose(r->f) != 0 && e == 0) {
		e = errno;
		rec_note_err(err, errlen, "%s: %s", r->path, strerror(e));
	}
	free(r);
	return -e;
}
