/* CSV records with Scala file names and column formats. */
#define _POSIX_C_SOURCE 200809L
#include "rec.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <time.h>

struct rec_csv {
	FILE *f;
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
		strftime(r->utc, sizeof(r->utc), "%Y-%m-%dT%H:%M:%SZ", &tm); /* ISO 8601, as the Scala records */
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

int rec_csv_close(struct rec_csv *r)
{
	if (r == NULL)
		return 0;
	int rc = ferror(r->f) ? -EIO : 0;

	if (fclose(r->f) != 0)
		rc = -EIO;
	free(r);
	return rc;
}
