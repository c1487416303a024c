/* Exact parsers for config value texts: decimals as mantissa x 10^exponent, scaled by a unit in integers. */
#include "emu_units.h"
#include "emu_param.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A decimal number as read: (-1)^neg x mant x 10^exp. inexact: a non-zero digit did not fit in 64 bits. */
struct dec {
	uint64_t mant;
	int32_t exp;
	bool neg;
	bool inexact;
};

/* A family of units: the noun and whole unit used in messages, the units, and how a bare number reads. */
struct dim {
	const char *noun;      /* "size" */
	const char *whole;     /* "bytes": what the result must be a whole number of */
	const char *sugg;      /* the suggestion after "; " */
	const char *const *unit;
	const uint64_t *mult;  /* parallel to unit, NULL-terminated by unit */
	uint64_t bare;         /* multiplier of a number without a unit; 0 = a unit is required */
	bool bare_zero;        /* a bare 0 is accepted even when a unit is required */
	bool zero_bad;         /* a zero result is refused */
};

static const char *const rate_units[] = { "bps", "Kbps", "Mbps", "Gbps", "Tbps", NULL };
static const uint64_t rate_mult[] = { 1, 1000ULL, 1000000ULL, 1000000000ULL, 1000000000000ULL };
static const char *const time_units[] = { "ps", "ns", "us", "ms", "s", NULL };
static const uint64_t time_mult[] = { 1, EMU_PS_PER_NS, EMU_PS_PER_US, EMU_PS_PER_MS, EMU_PS_PER_S };
static const char *const size_units[] = { "B", "KB", "KiB", "MB", "MiB", "GB", "GiB", NULL };
static const uint64_t size_mult[] = { 1, 1000ULL, 1024ULL, 1000000ULL, 1048576ULL, 1000000000ULL, 1073741824ULL };

#define RATE_SUGG "a datarate takes bps, Kbps, Mbps, Gbps or Tbps, e.g. 400Gbps"
#define TIME_SUGG "a time takes ps, ns, us, ms or s, e.g. 100ns"
#define SECS_SUGG "a time is a number of seconds or takes ps, ns, us, ms or s, e.g. 0.001 or 1ms"
#define SIZE_SUGG "a size is a whole number of bytes, e.g. 4096 or 1MiB"
#define UINT_SUGG "a uint is a whole number of 0 or more, e.g. 42"

static const struct dim dim_rate = { "datarate", "bit/s", RATE_SUGG, rate_units, rate_mult, 0, false, true };
static const struct dim dim_time = { "time", "picoseconds", TIME_SUGG, time_units, time_mult, 0, true, false };
static const struct dim dim_secs = { "time", "picoseconds", SECS_SUGG, time_units, time_mult, EMU_PS_PER_S, true,
				     false };
static const struct dim dim_size = { "size", "bytes", SIZE_SUGG, size_units, size_mult, 1, true, false };

static const char *skip_space(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* Length of @p p without trailing blanks. */
static size_t trimmed_len(const char *p)
{
	size_t n = strlen(p);

	while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t'))
		n--;
	return n;
}

/* Add one digit to the mantissa; a digit that no longer fits is only harmless when it is 0 after the point. */
static void dec_digit(struct dec *d, unsigned digit, bool frac)
{
	if (d->mant <= (UINT64_MAX - digit) / 10) {
		d->mant = d->mant * 10 + digit;
		d->exp -= frac;
	} else if (!frac) {
		d->exp++;
		d->inexact |= digit != 0;
	} else {
		d->inexact |= digit != 0;
	}
}

static void dec_exponent(const char **sp, struct dec *d)
{
	const char *p = *sp + 1;
	bool neg = false;
	int32_t e = 0;

	if (*p == '+' || *p == '-')
		neg = *p++ == '-';
	if (!isdigit((unsigned char)*p))
		return; /* not an exponent: leave the 'e' for the unit check to refuse */
	for (; isdigit((unsigned char)*p); p++)
		if (e < 100000)
			e = e * 10 + (*p - '0');
	d->exp += neg ? -e : e;
	*sp = p;
}

/* Read [+-]digits[.digits][e[+-]digits] at *sp (after blanks) and advance. Returns 0 or -EINVAL (no digits). */
static int dec_scan(const char **sp, struct dec *d)
{
	const char *p = skip_space(*sp);
	int ndig = 0;

	memset(d, 0, sizeof(*d));
	if (*p == '+' || *p == '-')
		d->neg = *p++ == '-';
	for (; isdigit((unsigned char)*p); p++, ndig++)
		dec_digit(d, (unsigned)(*p - '0'), false);
	if (*p == '.')
		for (p++; isdigit((unsigned char)*p); p++, ndig++)
			dec_digit(d, (unsigned)(*p - '0'), true);
	if (ndig == 0)
		return -EINVAL;
	if (*p == 'e' || *p == 'E')
		dec_exponent(&p, d);
	*sp = p;
	return 0;
}

/* mant x mult x 10^exp as a whole uint64. Returns 0, -ERANGE (too large) or -EDOM (not a whole number). */
static int dec_scale(const struct dec *d, uint64_t mult, uint64_t *out)
{
	unsigned __int128 v = (unsigned __int128)d->mant * mult;
	int32_t e = d->exp;

	if (d->inexact)
		return -ERANGE;
	for (; e > 0 && v != 0; e--) {
		v *= 10;
		if (v > UINT64_MAX)
			return -ERANGE;
	}
	for (; e < 0 && v != 0; e++) {
		if (v % 10 != 0)
			return -EDOM;
		v /= 10;
	}
	if (v > UINT64_MAX)
		return -ERANGE;
	*out = (uint64_t)v;
	return 0;
}

/* Find the unit spelled by @p p (blanks trimmed) in @p k; returns its multiplier or 0. */
static uint64_t dim_unit(const struct dim *k, const char *p)
{
	size_t n = trimmed_len(p);

	for (int i = 0; k->unit[i] != NULL; i++)
		if (strlen(k->unit[i]) == n && strncmp(k->unit[i], p, n) == 0)
			return k->mult[i];
	return 0;
}

static int parse_dim(const char *s, const struct dim *k, uint64_t *out, char *err, size_t errlen)
{
	const char *p = s;
	struct dec d;
	uint64_t mult;

	if (dec_scan(&p, &d) != 0)
		return emu_param_fail(err, errlen, -EINVAL, "bad %s '%s'; %s", k->noun, s, k->sugg);
	p = skip_space(p);
	if (*p == '\0' && k->bare != 0)
		mult = k->bare;
	else if (*p == '\0' && k->bare_zero && d.mant == 0)
		mult = 1;
	else if (*p == '\0')
		return emu_param_fail(err, errlen, -EINVAL, "missing unit in '%s'; %s", s, k->sugg);
	else if ((mult = dim_unit(k, p)) == 0)
		return emu_param_fail(err, errlen, -EINVAL, "bad unit '%.*s'; %s", (int)trimmed_len(p), p, k->sugg);
	if (d.neg && (d.mant != 0 || d.inexact))
		return emu_param_fail(err, errlen, -EINVAL, "negative %s '%s'; %s", k->noun, s, k->sugg);
	int rc = dec_scale(&d, mult, out);

	if (rc == -ERANGE)
		return emu_param_fail(err, errlen, -ERANGE, "%s '%s' too large; the largest is %llu %s", k->noun, s,
				      (unsigned long long)UINT64_MAX, k->whole);
	if (rc == -EDOM)
		return emu_param_fail(err, errlen, -EINVAL, "'%s' is not a whole number of %s; %s", s, k->whole,
				      k->sugg);
	if (k->zero_bad && *out == 0)
		return emu_param_fail(err, errlen, -EINVAL, "zero %s '%s'; it must be above 0, e.g. 400Gbps", k->noun,
				      s);
	return 0;
}

int emu_parse_datarate(const char *s, uint64_t *bps, char *err, size_t errlen)
{
	return parse_dim(s, &dim_rate, bps, err, errlen);
}

int emu_parse_rate_limit(const char *s, uint64_t *bps, char *err, size_t errlen)
{
	static const char *const off[] = { "0", "off", "none", "unlimited" };

	for (size_t i = 0; i < sizeof(off) / sizeof(off[0]); i++)
		if (strcmp(s, off[i]) == 0) {
			*bps = 0;
			return 0;
		}
	return parse_dim(s, &dim_rate, bps, err, errlen);
}

int emu_parse_timeval(const char *s, emu_ps_t *ps, char *err, size_t errlen)
{
	return parse_dim(s, &dim_time, ps, err, errlen);
}

int emu_parse_seconds(const char *s, emu_ps_t *ps, char *err, size_t errlen)
{
	return parse_dim(s, &dim_secs, ps, err, errlen);
}

int emu_parse_size(const char *s, uint64_t *bytes, char *err, size_t errlen)
{
	return parse_dim(s, &dim_size, bytes, err, errlen);
}

int emu_parse_uint(const char *s, uint64_t *out, char *err, size_t errlen)
{
	const char *p = s;
	struct dec d;

	if (dec_scan(&p, &d) != 0 || *skip_space(p) != '\0')
		return emu_param_fail(err, errlen, -EINVAL, "bad uint '%s'; " UINT_SUGG, s);
	if (d.neg && (d.mant != 0 || d.inexact))
		return emu_param_fail(err, errlen, -EINVAL, "negative value '%s'; " UINT_SUGG, s);
	int rc = dec_scale(&d, 1, out);

	if (rc == -ERANGE)
		return emu_param_fail(err, errlen, -ERANGE, "value '%s' too large; the largest uint is %llu", s,
				      (unsigned long long)UINT64_MAX);
	if (rc == -EDOM)
		return emu_param_fail(err, errlen, -EINVAL, "'%s' is not a whole number; " UINT_SUGG, s);
	return 0;
}

int emu_parse_double(const char *s, double *out, char *err, size_t errlen)
{
	const char *p = s;
	struct dec d;

	/* Check the syntax ourselves (strtod also takes hex, inf and nan), then let strtod round correctly. */
	if (dec_scan(&p, &d) != 0 || *skip_space(p) != '\0')
		return emu_param_fail(err, errlen, -EINVAL, "bad number '%s'; a double is a decimal number, e.g. 0.25",
				      s);
	*out = strtod(s, NULL);
	if (isinf(*out))
		return emu_param_fail(err, errlen, -ERANGE,
				      "number '%s' too large; a double is a decimal number, e.g. 0.25", s);
	return 0;
}

int emu_parse_bool(const char *s, bool *out, char *err, size_t errlen)
{
	if (strcmp(s, "true") == 0)
		*out = true;
	else if (strcmp(s, "false") == 0)
		*out = false;
	else
		return emu_param_fail(err, errlen, -EINVAL, "bad bool '%s'; a bool is true or false", s);
	return 0;
}

int emu_parse_ppm(const char *s, uint32_t *ppm, char *err, size_t errlen)
{
	const char *p = s;
	struct dec d;
	uint64_t v = 0;

	if (dec_scan(&p, &d) != 0 || *skip_space(p) != '\0')
		return emu_param_fail(err, errlen, -EINVAL, "bad fraction '%s'; a fraction is 0.0 to 1.0, e.g. 0.9", s);
	int rc = (d.neg && (d.mant != 0 || d.inexact)) ? -ERANGE : dec_scale(&d, 1000000, &v);

	if (rc == -ERANGE || v > 1000000)
		return emu_param_fail(err, errlen, -EINVAL,
				      "fraction '%s' out of range 0 to 1; a fraction is 0.0 to 1.0, e.g. 0.9", s);
	if (rc == -EDOM)
		return emu_param_fail(err, errlen, -EINVAL,
				      "fraction '%s' is finer than 1 ppm; give at most 6 decimal places", s);
	*ppm = (uint32_t)v;
	return 0;
}

static bool list_char_ok(char ch)
{
	return isalnum((unsigned char)ch) || ch == '.' || ch == '_' || ch == '+' || ch == '-';
}

/* Copy entry @p idx, the @p len bytes at @p p with blanks trimmed, into @p item after checking its characters. */
static int list_item(const char *p, size_t len, int idx, char *item, char *err, size_t errlen)
{
	while (len > 0 && (*p == ' ' || *p == '\t'))
		p++, len--;
	while (len > 0 && (p[len - 1] == ' ' || p[len - 1] == '\t'))
		len--;
	if (len == 0)
		return emu_param_fail(err, errlen, -EINVAL,
				      "empty entry %d in the list; write a value between each comma", idx);
	if (len >= EMU_LIST_ITEM_MAX)
		return emu_param_fail(err, errlen, -EINVAL,
				      "entry %d '%.*s' is too long; an entry is a number such as 0.9", idx, (int)len,
				      p);
	for (size_t i = 0; i < len; i++)
		if (!list_char_ok(p[i]))
			return emu_param_fail(err, errlen, -EINVAL,
					      "entry %d '%.*s' has a '%c'; an entry uses letters, digits, '.', '_', "
					      "'+' or '-'", idx, (int)len, p, p[i]);
	memcpy(item, p, len);
	item[len] = '\0';
	return 0;
}

int emu_parse_list(const char *s, char items[][EMU_LIST_ITEM_MAX], int n, const char *example, char *err,
		   size_t errlen)
{
	const char *p = skip_space(s);
	size_t len = trimmed_len(p);
	int count = 0;

	if (len < 2 || p[0] != '[' || p[len - 1] != ']')
		return emu_param_fail(err, errlen, -EINVAL,
				      "bad list '%s'; a list is %d entries in brackets, e.g. \"%s\"", s, n, example);
	const char *end = p + len - 1;

	p++;
	if (skip_space(p) == end)
		return emu_param_fail(err, errlen, -EINVAL, "list '%s' has 0 entries; a list holds %d, e.g. \"%s\"", s,
				      n, example);
	for (;;) {
		const char *comma = memchr(p, ',', (size_t)(end - p));
		const char *stop = comma != NULL ? comma : end;

		if (count < n) {
			int rc = list_item(p, (size_t)(stop - p), count, items[count], err, errlen);

			if (rc != 0)
				return rc;
		}
		count++;
		if (comma == NULL)
			break;
		p = comma + 1;
	}
	if (count != n)
		return emu_param_fail(err, errlen, -EINVAL, "list '%s' has %d entries; a list holds %d, e.g. \"%s\"", s,
				      count, n, example);
	return 0;
}

int emu_parse_ipv4(const char *s, uint32_t *ip, char *err, size_t errlen)
{
	const char *p = s;
	uint32_t v = 0;

	for (int i = 0; i < 4; i++) {
		unsigned part = 0;
		int nd = 0;

		for (; isdigit((unsigned char)*p) && nd < 4; p++, nd++)
			part = part * 10 + (unsigned)(*p - '0');
		if (nd == 0 || nd > 3 || part > 255 || *p != (i < 3 ? '.' : '\0'))
			return emu_param_fail(err, errlen, -EINVAL,
					      "bad IPv4 address '%s'; write four numbers 0 to 255 with dots, e.g. "
					      "10.0.0.1", s);
		v = v << 8 | part;
		if (i < 3)
			p++;
	}
	*ip = v;
	return 0;
}

static int hexval(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

int emu_parse_mac(const char *s, uint8_t mac[6], char *err, size_t errlen)
{
	uint8_t m[6];

	if (strlen(s) != 17)
		goto bad;
	for (int i = 0; i < 6; i++) {
		int hi = hexval(s[3 * i]), lo = hexval(s[3 * i + 1]);

		if (hi < 0 || lo < 0 || (i < 5 && s[3 * i + 2] != ':'))
			goto bad;
		m[i] = (uint8_t)(hi << 4 | lo);
	}
	memcpy(mac, m, sizeof(m));
	return 0;
bad:
	return emu_param_fail(err, errlen, -EINVAL,
			      "bad MAC address '%s'; write six hex pairs with colons, e.g. 02:00:00:00:00:01", s);
}
