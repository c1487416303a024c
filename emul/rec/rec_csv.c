/* CSV records with Scala file names and column formats. */
#define _POSIX_C_SOURCE 200809L
#include "rec.h"

#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define REC_IOBUF (256u * 1024u) /* each record's stream buffer: rows go out in large writes */

struct rec_csv {
	FILE *f;
	char *iobuf;
	char path[PATH_MAX];
	int64_t epoch_s;
	int64_t utc_s;   /* the second utc holds, or -1 */
	char utc[32];    /* time_utc of utc_s: formatted once per simulated second, not per row */
};

struct rec_csv *rec_csv_open(const char *dir, const char *sim, const char *record, const char *header,
			     int64_t epoch_s)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s/%s-%s-0.csv", dir, sim, record) >= (int)sizeof(path)) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	struct rec_csv *r = calloc(1, sizeof(*r));
	if (r == NULL)
		return NULL;
	memcpy(r->path, path, sizeof(r->path));
	r->f = fopen(path, "w");
	if (r->f == NULL) {
		int e = errno;
		free(r);
		errno = e;
		return NULL;
	}
	r->iobuf = malloc(REC_IOBUF);
	if (r->iobuf != NULL)
		setvbuf(r->f, r->iobuf, _IOFBF, REC_IOBUF);
	r->epoch_s = epoch_s;
	r->utc_s = -1;
	rec_put_str(r->f, header);
	rec_put_ch(r->f, '\n');
	return r;
}

uint64_t rec_csv_bytes(struct rec_csv *r)
{
	off_t at = r != NULL ? ftello(r->f) : 0;

	return at > 0 ? (uint64_t)at : 0;
}

FILE *rec_csv_file(struct rec_csv *r)
{
	return r->f;
}

void rec_csv_time_utc(struct rec_csv *r, emu_ps_t now)
{
	int64_t s = r->epoch_s + (int64_t)(now / EMU_PS_PER_S);

	if (s != r->utc_s) {
		time_t t = (time_t)s;
		struct tm tm;

		gmtime_r(&t, &tm);
		strftime(r->utc, sizeof(r->utc), "%Y-%m-%d %H:%M:%S", &tm);
		r->utc_s = s;
	}
	rec_put_str(r->f, r->utc);
}

/* The decimal digits of @p v, ending at @p end (exclusive); returns where they start. */
static char *u64_digits(char *end, uint64_t v)
{
	do {
		*--end = (char)('0' + v % 10);
		v /= 10;
	} while (v != 0);
	return end;
}

/* Write [@p p, @p end). */
static void put_span(FILE *f, const char *p, const char *end)
{
	while (p < end)
		putc_unlocked(*p++, f);
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

void rec_put_fixed(FILE *f, uint64_t v, int digits)
{
	static const uint64_t pow10[20] = {
		1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull, 100000000ull,
		1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull, 10000000000000ull,
		100000000000000ull, 1000000000000000ull, 10000000000000000ull, 100000000000000000ull,
		1000000000000000000ull, 10000000000000000000ull,
	};
	char buf[48], *end = buf + sizeof(buf), *p = end;

	assert(digits >= 0 && digits < 20);
	if (digits > 0) {
		uint64_t frac = v % pow10[digits];

		for (int i = 0; i < digits; i++, frac /= 10)
			*--p = (char)('0' + frac % 10);
		*--p = '.';
		v /= pow10[digits];
	}
	p = u64_digits(p, v);
	put_span(f, p, end);
}

void rec_fmt_ns(FILE *f, emu_ps_t ps)
{
	rec_put_fixed(f, ps, 3);
}

void rec_fmt_ip(FILE *f, uint32_t ip)
{
	for (int i = 3; i >= 0; i--) {
		rec_put_u64(f, (ip >> (8 * i)) & 0xff);
		if (i > 0)
			putc_unlocked('.', f);
	}
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
	/* the first failed write's errno (ENOSPC on a full disk); stdio keeps only the error flag, so a failure in an
	 * earlier flush reads as EIO unless this last flush fails the same way */
	int e = fflush(r->f) != 0 ? errno : ferror(r->f) ? EIO : 0;

	if (e != 0) {
		/* a row cut by the failed write is removed, so the file ends with whole rows */
		rec_truncate_after(fileno(r->f), '\n');
		rec_note_err(err, errlen, "%s: %s", r->path, strerror(e));
	}
	if (fclose(r->f) != 0 && e == 0) {
		e = errno;
		rec_note_err(err, errlen, "%s: %s", r->path, strerror(e));
	}
	free(r->iobuf);
	free(r);
	return -e;
}
