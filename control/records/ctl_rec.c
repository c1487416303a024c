/* The records' shared helpers: open under the Scala file name, the schemas' header and rows, exact number
 * formats. */
#include "ctl_rec.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct rec_csv *ctl_rec_csv_open(const struct ctl_config *cfg, const char *dir, const char *record,
				 const char *header, int64_t epoch_s, char *err, size_t errlen)
{
	struct rec_csv *r = rec_csv_open_shard(dir, cfg->sim.simulation_name, record, cfg->sim.shard, header, epoch_s);

	if (r == NULL) {
		int e = errno;
		snprintf(err, errlen, "%s: cannot create the %s record: %s", dir, record, strerror(e));
		errno = e;
	}
	rec_csv_budget(r, cfg->sim.budget);
	return r;
}

void *ctl_rec_nics_new(size_t size, size_t prev_size, const struct ctl_config *cfg, const struct port_nic *hosts,
		       const char *dir, const struct ctl_rec_schema *s, int64_t epoch_s, char *err, size_t errlen)
{
	struct ctl_rec_nics *w = calloc(1, size);

	if (w == NULL || (w->prev = calloc(cfg->n_hosts ? cfg->n_hosts : 1, prev_size)) == NULL) {
		free(w);
		snprintf(err, errlen, "out of memory opening the %s record", s->record);
		errno = ENOMEM;
		return NULL;
	}
	w->hosts = hosts;
	w->n_hosts = cfg->n_hosts;
	w->csv = ctl_rec_schema_open(cfg, dir, s, epoch_s, err, errlen);
	if (w->csv == NULL) {
		int e = errno;
		ctl_rec_nics_free(w, err, errlen);
		errno = e;
		return NULL;
	}
	return w;
}

struct rec_csv *ctl_rec_nics_csv(const void *writer)
{
	return writer != NULL ? ((const struct ctl_rec_nics *)writer)->csv : NULL;
}

int ctl_rec_nics_free(void *writer, char *err, size_t errlen)
{
	struct ctl_rec_nics *w = writer;

	if (w == NULL)
		return 0;
	int rc = rec_csv_close(w->csv, err, errlen);

	free(w->prev);
	free(w);
	return rc;
}

FILE *ctl_rec_row_head(struct rec_csv *csv, emu_ps_t now)
{
	FILE *f = rec_csv_file(csv);

	rec_csv_time_utc(csv, now);
	rec_put_ch(f, ',');
	ctl_rec_put_sec(f, now);
	return f;
}

static const uint64_t pow10_tab[13] = {
	1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull, 100000000ull, 1000000000ull,
	10000000000ull, 100000000000ull, 1000000000000ull,
};

/* Seconds with 12 decimals: exact, also for the last rows, which fall at the run's end. */
void ctl_rec_put_sec(FILE *f, emu_ps_t ps)
{
	ctl_rec_put_fixed(f, ps, 12);
}

void ctl_rec_put_fixed(FILE *f, uint64_t v, int digits)
{
	assert(digits >= 0 && digits <= 12);
	rec_put_fixed(f, v, digits);
}

void ctl_rec_put_quot(FILE *f, uint64_t a, uint64_t mul, uint64_t den, int digits)
{
	ctl_rec_put_quot128(f, (unsigned __int128)a * mul, den, digits);
}

/* ctl_rec_put_quot128() into @p p (room for 53 bytes: 39 digits, the point, 12 decimals); returns the end. */
static char *str_quot128(char *p, unsigned __int128 num, unsigned __int128 den, int digits)
{
	assert(digits >= 0 && digits <= 12);
	uint64_t div = pow10_tab[digits];
	/* num x 10^digits must fit 128 bits: a x 8000 (or x 100) always does; bytes x 800 x 10^12 with 6 digits up to
	 * 4 x 10^17 bytes in one interval */
	unsigned __int128 q = den ? (num * div + den / 2) / den : 0;
	unsigned __int128 whole = q / div;
	char buf[48];
	size_t n = sizeof(buf);

	do {
		buf[--n] = (char)('0' + (int)(whole % 10));
		whole /= 10;
	} while (whole != 0);
	memcpy(p, buf + n, sizeof(buf) - n);
	p += sizeof(buf) - n;
	if (digits > 0) {
		uint64_t frac = (uint64_t)(q % div);

		*p++ = '.';
		for (int i = digits - 1; i >= 0; i--, frac /= 10)
			p[i] = (char)('0' + frac % 10);
		p += digits;
	}
	return p;
}

void ctl_rec_put_quot128(FILE *f, unsigned __int128 num, unsigned __int128 den, int digits)
{
	char buf[64], *end = str_quot128(buf, num, den, digits);

	fwrite_unlocked(buf, 1, (size_t)(end - buf), f);
}

void ctl_rec_get_u64(const void *row, uint32_t arg, struct ctl_rec_val *v)
{
	memcpy(&v->u, (const char *)row + arg, sizeof(v->u));
}

void ctl_rec_get_i64(const void *row, uint32_t arg, struct ctl_rec_val *v)
{
	memcpy(&v->i, (const char *)row + arg, sizeof(v->i));
}

void ctl_rec_get_str(const void *row, uint32_t arg, struct ctl_rec_val *v)
{
	memcpy(&v->s, (const char *)row + arg, sizeof(v->s));
}

void ctl_rec_get_cur(const void *row, uint32_t arg, struct ctl_rec_val *v)
{
	const struct ctl_rec_cur *c = row;

	memcpy(&v->u, (const char *)c->cur + arg, sizeof(v->u));
}

void ctl_rec_get_ivl(const void *row, uint32_t arg, struct ctl_rec_val *v)
{
	const struct ctl_rec_cur *c = row;
	uint64_t now, prev;

	memcpy(&now, (const char *)c->cur + arg, sizeof(now));
	memcpy(&prev, (const char *)c->prev + arg, sizeof(prev));
	v->u = now - prev;
}

size_t ctl_rec_header(const struct ctl_rec_schema *s, char *buf, size_t len)
{
	size_t n = 0;

	for (uint32_t i = 0; i < s->n_cols; i++) {
		const char *name = s->cols[i].name;
		size_t k = strlen(name) + (i > 0);

		if (n + k < len) {
			if (i > 0)
				buf[n] = ',';
			memcpy(buf + n + (i > 0), name, k - (i > 0));
		}
		n += k;
	}
	if (len > 0)
		buf[n < len ? n : 0] = '\0';
	return n;
}

struct rec_csv *ctl_rec_schema_open(const struct ctl_config *cfg, const char *dir, const struct ctl_rec_schema *s,
				    int64_t epoch_s, char *err, size_t errlen)
{
	size_t n = ctl_rec_header(s, NULL, 0);
	char *header = malloc(n + 1);
	struct rec_csv *r;

	if (header == NULL) {
		snprintf(err, errlen, "out of memory opening the %s record", s->record);
		errno = ENOMEM;
		return NULL;
	}
	ctl_rec_header(s, header, n + 1);
	r = ctl_rec_csv_open(cfg, dir, s->record, header, epoch_s, err, errlen);
	free(header);
	return r;
}

/*
 * A row is formatted into a buffer and written with one fwrite (uet-monitor writes a row per packet): before each
 * cell the buffer is written out unless it has room for the cell. CTL_REC_CELL_MAX bounds every number cell (a
 * quotient's 39 digits, its point and 12 decimals; time_utc; ip:id); a string or a double that does not fit goes
 * to the stream directly.
 */
#define CTL_REC_ROW_BUF 2048
#define CTL_REC_CELL_MAX 64

struct row_buf {
	FILE *f;
	char *p;
	char b[CTL_REC_ROW_BUF];
};

static void rb_flush(struct row_buf *r)
{
	fwrite_unlocked(r->b, 1, (size_t)(r->p - r->b), r->f);
	r->p = r->b;
}

/* Room for @p n more bytes (at most CTL_REC_ROW_BUF). */
static void rb_room(struct row_buf *r, size_t n)
{
	if ((size_t)(r->b + sizeof(r->b) - r->p) < n)
		rb_flush(r);
}

static void rb_str(struct row_buf *r, const char *s)
{
	size_t n = strlen(s);

	if (n > sizeof(r->b) / 2) {
		rb_flush(r);
		fwrite_unlocked(s, 1, n, r->f);
		return;
	}
	rb_room(r, n);
	memcpy(r->p, s, n);
	r->p += n;
}

static void rb_dbl(struct row_buf *r, double d, int digits)
{
	size_t room = (size_t)(r->b + sizeof(r->b) - r->p);
	int n = snprintf(r->p, room, "%.*f", digits, d);

	if (n >= 0 && (size_t)n < room) {
		r->p += n;
	} else { /* a huge value: straight to the stream */
		rb_flush(r);
		fprintf(r->f, "%.*f", digits, d);
	}
}

/* "[a:b:c]": the @p n numbers @p list, or (@p list NULL) the bits set in @p bits, bit N as @p base + N. */
static void rb_list(struct row_buf *r, const uint32_t *list, uint32_t n, uint64_t bits, uint64_t base)
{
	rb_room(r, 1);
	*r->p++ = '[';
	for (uint32_t j = 0; list != NULL ? j < n : bits != 0; j++) {
		rb_room(r, 12);
		if (j)
			*r->p++ = ':';
		if (list != NULL) {
			r->p = rec_str_u64(r->p, list[j]);
		} else {
			r->p = rec_str_u64(r->p, (uint32_t)(base + (uint32_t)__builtin_ctzll(bits)));
			bits &= bits - 1;
		}
	}
	rb_room(r, 1);
	*r->p++ = ']';
}

/* Write @p v; the buffer has room for CTL_REC_CELL_MAX bytes. */
static void put_val(struct rec_csv *csv, struct row_buf *r, const struct ctl_rec_val *v)
{
	switch (v->fmt) {
	case CTL_REC_F_STR:
		rb_str(r, v->s);
		return;
	case CTL_REC_F_DBL:
		rb_dbl(r, v->d, v->digits);
		return;
	case CTL_REC_F_LIST:
		rb_list(r, v->list, v->n, 0, 0);
		return;
	case CTL_REC_F_BITS:
		rb_list(r, NULL, 0, v->u, v->id);
		return;
	case CTL_REC_F_EMPTY:
		break;
	case CTL_REC_F_U64:
		r->p = rec_str_u64(r->p, v->u);
		break;
	case CTL_REC_F_I64:
		if (v->i < 0)
			*r->p++ = '-';
		r->p = rec_str_u64(r->p, v->i < 0 ? 0 - (uint64_t)v->i : (uint64_t)v->i);
		break;
	case CTL_REC_F_FIXED:
		assert(v->digits <= 12);
		r->p = rec_str_fixed(r->p, v->u, v->digits);
		break;
	case CTL_REC_F_QUOT:
		r->p = str_quot128(r->p, v->num, v->den, v->digits);
		break;
	case CTL_REC_F_UTC: {
		const char *utc = rec_csv_utc(csv, v->u);
		size_t n = strlen(utc);

		memcpy(r->p, utc, n);
		r->p += n;
		break;
	}
	case CTL_REC_F_PDC:
		r->p = rec_str_ip(r->p, (uint32_t)v->u);
		*r->p++ = ':';
		r->p = rec_str_u64(r->p, v->id);
		break;
	case CTL_REC_F_IP:
		r->p = rec_str_ip(r->p, (uint32_t)v->u);
		break;
	default:
		assert(!"a column format");
	}
}

void ctl_rec_row(struct rec_csv *csv, const struct ctl_rec_schema *s, const void *row, emu_ps_t now)
{
	struct row_buf r; /* not zeroed: written front to back */

	r.f = rec_csv_file(csv);
	r.p = r.b;
	for (uint32_t i = 0; i < s->n_cols; i++) {
		const struct ctl_rec_col *c = &s->cols[i];
		struct ctl_rec_val v; /* not zeroed either: a getter sets the fields of its value's format */

		v.fmt = c->fmt;
		v.digits = c->digits;
		rb_room(&r, CTL_REC_CELL_MAX + 1);
		if (i > 0)
			*r.p++ = ',';
		if (c->get != NULL)
			c->get(row, c->arg, &v);
		else if (c->fmt == CTL_REC_F_STR)
			v.s = c->text;
		else
			v.u = now;
		put_val(csv, &r, &v);
	}
	rb_room(&r, 1);
	*r.p++ = '\n';
	rb_flush(&r);
}
