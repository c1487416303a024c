/* The parsing of NIC attributes that both NIC models share (port_params.h): one row type, one set of parsers. */
#include "port_params.h"

#include <assert.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "emu_param.h"
#include "emu_units.h"

static const char *np_name(const struct port_param_def *d)
{
	int i = 0;

	while (i + 1 < PORT_PARAM_DEPTH && d->path[i + 1] != NULL)
		i++;
	return d->path[i];
}

static void *np_field(void *p, const struct port_param_def *d)
{
	return (unsigned char *)p + d->off;
}


bool port_param_is_list(const struct port_param_def *d)
{
	return d->type == PORT_PT_LIST_FRAC || d->type == PORT_PT_LIST_UINT || d->type == PORT_PT_LIST_FLAG ||
	       d->type == PORT_PT_LIST_NUMFLAG;
}

static int np_range(const struct port_param_def *d, uint64_t v, char *err, size_t errlen)
{
	if (v < d->min || v > d->max)
		return emu_param_fail(err, errlen, -ERANGE, "value %llu out of range %llu to %llu", (unsigned long long)v,
			       (unsigned long long)d->min, (unsigned long long)d->max);
	return 0;
}

/* The integer types: parse with the type's unit parser, check the row's range, store. */
static int np_set_int(void *p, const struct port_param_def *d, const char *text, char *err,
		      size_t errlen)
{
	uint64_t v = 0;
	int rc;

	switch (d->type) {
	case PORT_PT_UINT: rc = emu_parse_uint(text, &v, err, errlen); break;
	case PORT_PT_DATARATE: rc = emu_parse_datarate(text, &v, err, errlen); break;
	case PORT_PT_RATE_LIMIT: rc = emu_parse_rate_limit(text, &v, err, errlen); break;
	case PORT_PT_TIMEVAL: rc = emu_parse_timeval(text, &v, err, errlen); break;
	default: rc = emu_parse_size(text, &v, err, errlen); break;
	}
	if (rc == 0)
		rc = np_range(d, v, err, errlen);
	if (rc == 0)
		emu_param_store_uint(np_field(p, d), d->size, v);
	return rc;
}

static int np_set_double(void *p, const struct port_param_def *d, const char *text, char *err,
			 size_t errlen)
{
	double v;
	int rc = emu_parse_double(text, &v, err, errlen);

	if (rc != 0)
		return rc;
	if (v < d->dmin || v > d->dmax)
		return emu_param_fail(err, errlen, -ERANGE, "value %g out of range %g to %g", v, d->dmin, d->dmax);
	*(double *)np_field(p, d) = v;
	return 0;
}


static int np_set_enum(void *p, const struct port_param_def *d, const char *text, char *err,
		       size_t errlen)
{
	char names[160];

	for (int i = 0; d->enums[i] != NULL; i++) {
		if (strcmp(d->enums[i], text) == 0) {
			emu_param_store_uint(np_field(p, d), d->size, (uint64_t)i);
			return 0;
		}
	}
	emu_param_join(names, sizeof(names), d->enums);
	if (d->refused != NULL && strcmp(d->refused, text) == 0)
		return emu_param_fail(err, errlen, -EINVAL, "'%s' stops the Scala UET NIC before the run starts; use %s", text,
			       names);
	return emu_param_fail(err, errlen, -EINVAL, "unknown value '%s'; %s takes %s", text, np_name(d), names);
}

/* The monitor filters: "All", or the one form the row names. */
static int np_set_filter(void *p, const struct port_param_def *d, const char *text, char *err,
			 size_t errlen)
{
	static const char *const forms[] = { "a FEP id, e.g. 3", "an IPv4 address, e.g. 32.0.0.2",
					     "<IPv4>:<PDC id>, e.g. 32.0.0.2:4500" };
	const char *form = forms[d->type - PORT_PT_FILTER_FEP];
	const char *colon = strchr(text, ':');
	char ip[16];
	uint64_t v = 0;
	uint32_t a;
	int rc = 0;

	if (strcmp(text, "All") == 0)
		rc = 0;
	else if (d->type == PORT_PT_FILTER_FEP)
		rc = emu_parse_uint(text, &v, NULL, 0) != 0 || v > UINT32_MAX ? -EINVAL : 0;
	else if (d->type == PORT_PT_FILTER_IP)
		rc = emu_parse_ipv4(text, &a, NULL, 0);
	else if (colon == NULL || colon - text >= (ptrdiff_t)sizeof(ip))
		rc = -EINVAL;
	else {
		snprintf(ip, sizeof(ip), "%.*s", (int)(colon - text), text);
		rc = emu_parse_ipv4(ip, &a, NULL, 0) != 0 || emu_parse_uint(colon + 1, &v, NULL, 0) != 0 ||
		     v > UINT16_MAX ? -EINVAL : 0;
	}
	if (rc != 0 || strlen(text) >= d->size)
		return emu_param_fail(err, errlen, -EINVAL, "bad filter '%s'; %s is All or %s", text, np_name(d), form);
	memcpy(np_field(p, d), text, strlen(text) + 1);
	return 0;
}

static int np_set_list_str(void *p, const struct port_param_def *d, const char *text, char *err,
			   size_t errlen)
{
	char items[PORT_TC_COUNT][EMU_LIST_ITEM_MAX];
	const char *ptr[PORT_TC_COUNT];
	char inner[200];
	int bad;
	int rc = emu_parse_list(text, items, PORT_TC_COUNT, d->def, err, errlen);

	if (rc != 0)
		return rc;
	for (int i = 0; i < PORT_TC_COUNT; i++)
		ptr[i] = items[i];
	rc = port_param_set_list(p, d, ptr, PORT_TC_COUNT, &bad, inner, sizeof(inner));
	if (rc != 0)
		emu_param_fail(err, errlen, rc, "entry %d: %s", bad, inner);
	return rc;
}

int port_param_set(void *p, const struct port_param_def *d, const char *text, char *err, size_t errlen)
{
	bool b;
	int rc;

	if (d->readonly)
		return emu_param_fail(err, errlen, -EPERM, "read-only attribute; %s is always %s, remove it", np_name(d),
			       d->def);
	switch (d->type) {
	case PORT_PT_BOOL:
		rc = emu_parse_bool(text, &b, err, errlen);
		if (rc == 0)
			*(bool *)np_field(p, d) = b;
		return rc;
	case PORT_PT_DOUBLE: return np_set_double(p, d, text, err, errlen);
	case PORT_PT_ENUM: return np_set_enum(p, d, text, err, errlen);
	case PORT_PT_FILTER_FEP:
	case PORT_PT_FILTER_IP:
	case PORT_PT_FILTER_PDC: return np_set_filter(p, d, text, err, errlen);
	case PORT_PT_LIST_FRAC:
	case PORT_PT_LIST_UINT:
	case PORT_PT_LIST_FLAG:
	case PORT_PT_LIST_NUMFLAG: return np_set_list_str(p, d, text, err, errlen);
	default: return np_set_int(p, d, text, err, errlen);
	}
}

/* One list entry as a uint32 (fraction in ppm, or a uint in the row's range) or a flag. */
static int np_list_entry(const struct port_param_def *d, const char *s, uint32_t *out, char *err, size_t errlen)
{
	uint64_t v = 0;
	int rc;

	if (d->type == PORT_PT_LIST_FRAC)
		return emu_parse_ppm(s, out, err, errlen);
	if (d->type == PORT_PT_LIST_FLAG) {
		/* The page: 1 enables PFC for the class, and any other value leaves it disabled. */
		*out = emu_parse_uint(s, &v, NULL, 0) == 0 && v == 1;
		return 0;
	}
	if (d->type == PORT_PT_LIST_NUMFLAG) { /* roce-nic-configuration.md: an entry that is not a number stops */
		double x;

		rc = emu_parse_double(s, &x, err, errlen);
		*out = rc == 0 && x == 1.0;
		return rc;
	}
	rc = emu_parse_uint(s, &v, err, errlen);
	if (rc == 0)
		rc = np_range(d, v, err, errlen);
	*out = (uint32_t)v;
	return rc;
}

int port_param_set_list(void *p, const struct port_param_def *d, const char *const *items, int n,
		       int *bad, char *err, size_t errlen)
{
	uint32_t v[PORT_TC_COUNT];
	void *f = np_field(p, d);

	*bad = -1;
	if (n != PORT_TC_COUNT)
		return emu_param_fail(err, errlen, -EINVAL, "%d entries; a list holds %d, one per traffic class, e.g. \"%s\"", n,
			       PORT_TC_COUNT, d->def);
	for (int i = 0; i < PORT_TC_COUNT; i++) {
		int rc = np_list_entry(d, items[i], &v[i], err, errlen);

		if (rc != 0) {
			*bad = i;
			return rc;
		}
	}
	for (int i = 0; i < PORT_TC_COUNT; i++)
		emu_param_store_uint((unsigned char *)f + (size_t)i * (d->size / PORT_TC_COUNT), d->size / PORT_TC_COUNT, v[i]);
	return 0;
}

void port_param_table_defaults(void *p, size_t size, const struct port_param_def *t, unsigned n)
{
	memset(p, 0, size);
	for (unsigned i = 0; i < n; i++) {
		if (t[i].readonly)
			continue;
		int rc = port_param_set(p, &t[i], t[i].def, NULL, 0);

		assert(rc == 0); /* a default text that does not parse is a bug in the table */
		(void)rc;
	}
}

const struct port_param_def *port_param_row(const struct port_param_def *t, unsigned n, size_t off)
{
	for (unsigned i = 0; i < n; i++)
		if (t[i].size != 0 && t[i].off == off)
			return &t[i];
	assert(0 && "no row for this field");
	return NULL;
}
