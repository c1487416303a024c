/*
 * uetemu merge DIR --out MERGED: an MPI run's record shards (<SimulationName>-<record>-<rank>.csv, one per rank)
 * joined into the files one process writes (<SimulationName>-<record>-0.csv), rows in the one-process writer's
 * order: by simulated time (sim_time_sec), then by device (node_id, or fep_id for uet-transport-stats), a device's
 * rows in the order its rank wrote them (every device lives on one rank). summary.json (rank 0's) is copied.
 * The event records order by sim_time_ns and FEP_ID the same way; uet-monitor rows of one picosecond on two devices
 * then come in device order, where one process writes its event order (docs/parallel.md, Merging the shards).
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
	if (ferror(f) | (fclose(f) != 0)) {
		f = NULL;
		fprintf(stderr, "uetemu: merge: %s: cannot write it\n", path);
		goto fail;
	}
	f = NULL;
	rc = 0;
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

/* Whether @p name is "<prefix>-<rank>.csv"; its prefix (into @p prefix) and rank. */
static bool shard_name(const char *name, char *prefix, unsigned *rank)
{
	size_t n = strlen(name), d;

	if (n < 7 || strcmp(name + n - 4, ".csv") != 0)
		return false;
	for (d = n - 4; d > 0 && name[d - 1] >= '0' && name[d - 1] <= '9'; d--)
		;
	if (d == n - 4 || d < 2 || name[d - 1] != '-' || n - 4 - d > 6)
		return false;
	memcpy(prefix, name, d - 1);
	prefix[d - 1] = '\0';
	*rank = (unsigned)number(name + d);
	return true;
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
		unsigned rank, i;

		if (!shard_name(e->d_name, prefix, &rank))
			continue;
		for (i = 0; i < n_recs && strcmp(recs[i].prefix, prefix) != 0; i++)
			;
		if (i == n_recs) {
			if (n_recs == MERGE_RECORDS_MAX) {
				fprintf(stderr, "uetemu: merge: %s: more than %d records\n", dir, MERGE_RECORDS_MAX);
				closedir(d);
				return CTL_EXIT_ERROR;
			}
			snprintf(recs[n_recs].prefix, sizeof(recs[n_recs].prefix), "%s", prefix);
			recs[n_recs].n = 0;
			recs[n_recs++].max_rank = 0;
		}
		recs[i].n++;
		if (rank > recs[i].max_rank)
			recs[i].max_rank = rank;
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
	int e = snprintf(path, sizeof(path), "%s/summary.json", dir) >= (int)sizeof(path) ||
			snprintf(to, sizeof(to), "%s/summary.json", out) >= (int)sizeof(to)
		? -ENAMETOOLONG : access(path, R_OK) == 0 ? copy_file(path, to) : 0;

	if (e < 0) {
		fprintf(stderr, "uetemu: merge: %s: %s\n", to, strerror(-e));
		return CTL_EXIT_ERROR;
	}
	printf("uetemu merge: %u records from %u rank%s into %s\n", n_recs, ranks, ranks == 1 ? "" : "s", out);
	return CTL_EXIT_OK;
}
