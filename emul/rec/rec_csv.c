/* CSV records with Scala file names and column formats. */
#define _POSIX_C_SOURCE 200809L
#include "rec.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct rec_csv {
	FILE *f;
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
	r->epoch_s = epoch_s;
	r->utc_s = -1;
	fprintf(r->f, "%s\n", header);
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
	fputs(r->utc, r->f);
}

void rec_fmt_ns(FILE *f, emu_ps_t ps)
{
	fprintf(f, "%llu.%03llu", (unsigned long long)(ps / 1000), (unsigned long long)(ps % 1000));
}

void rec_fmt_ip(FILE *f, uint32_t ip)
{
	fprintf(f, "%u.%u.%u.%u", ip >> 24, (ip >> 16) & 0xff, (ip >> 8) & 0xff, ip & 0xff);
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
	free(r);
	return -e;
}
