/* The captures section and capture_defaults: capture points, formats, BPF filters, limits, rotation, epochs. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl_yaml_pvt.h"
#include "cap.h"
#include "emu_units.h"

#define CAPTURE_EXAMPLE "a capture needs a name and one of link, port or dev, e.g. {name: pair, link: l0}"
#define EPOCH_EXAMPLE "e.g. \"2026-01-01T00:00:00Z\", \"2026-01-01T00:00:00.5Z\" or 0 (1970)"
/* pcap keeps 32-bit seconds: an epoch from 2100 on could overflow them within a run. */
#define EPOCH_MAX_S 4102444800LL /* 2100-01-01T00:00:00Z */

struct cap_obj {
	struct ctl_config *cfg;
	struct ctl_capture *cap;
	int points;              /* link, port and dev keys given */
};

/* Days from 1970-01-01 to @p y-@p m-@p d in the proleptic Gregorian calendar (Howard Hinnant's days_from_civil). */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	unsigned yoe = (unsigned)(y - era * 400);
	unsigned mp = m > 2 ? m - 3 : m + 9; /* months from March */
	unsigned doy = (153 * mp + 2) / 5 + d - 1;
	unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;

	return era * 146097 + (int64_t)doe - 719468;
}

static bool leap(unsigned y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

/* "YYYY-MM-DDTHH:MM:SS[.fffffffff]Z" (UTC) into ns since 1970. 0, or -1 when it is not one. */
static int parse_rfc3339(const char *s, int64_t *ns)
{
	static const unsigned mdays[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	unsigned y, mo, d, h, mi, sec;
	int n = 0;

	for (int i = 0; i < 19; i++) /* digits where the layout has digits, so sscanf takes no sign or space */
		if ((i == 4 || i == 7 || i == 10 || i == 13 || i == 16) ? s[i] == '\0' : !isdigit((unsigned char)s[i]))
			return -1;
	if (sscanf(s, "%4u-%2u-%2uT%2u:%2u:%2u%n", &y, &mo, &d, &h, &mi, &sec, &n) != 6 || n != 19)
		return -1;
	if (y < 1970 || mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] + (mo == 2 && leap(y)) || h > 23 || mi > 59 ||
	    sec > 59)
		return -1;
	int64_t frac = 0, scale = 100000000;
	const char *p = s + n;

	if (*p == '.') {
		if (!isdigit((unsigned char)*++p))
			return -1;
		for (; isdigit((unsigned char)*p); p++, scale /= 10)
			if (scale == 0)
				return -1; /* more than 9 decimals */
			else
				frac += (*p - '0') * scale;
	}
	if (strcmp(p, "Z") != 0 && strcmp(p, "+00:00") != 0)
		return -1;
	*ns = ((days_from_civil(y, mo, d) * 86400) + h * 3600 + mi * 60 + sec) * 1000000000LL + frac;
	return 0;
}

/* An epoch: RFC 3339 UTC, or whole seconds since 1970; before 2100. */
static int val_epoch(struct ctl_ctx *c, const struct ctl_ynode *v, int64_t *out)
{
	const char *s;
	uint64_t secs;
	char why[8];
	int rc = ctl_scalar(c, v, "\"2026-01-01T00:00:00Z\"", &s);

	if (rc != 0)
		return rc;
	if (parse_rfc3339(s, out) == 0 && *out < EPOCH_MAX_S * 1000000000LL)
		return 0;
	if (emu_parse_uint(s, &secs, why, sizeof(why)) == 0 && secs < (uint64_t)EPOCH_MAX_S) {
		*out = (int64_t)secs * 1000000000LL;
		return 0;
	}
	return ctl_err(c, v, "bad epoch '%s'; an epoch is a UTC time from 1970 to 2099, written "
		       "YYYY-MM-DDTHH:MM:SS[.fraction]Z, or whole seconds since 1970, %s", s, EPOCH_EXAMPLE);
}

static int val_format(struct ctl_ctx *c, const struct ctl_ynode *v, uint8_t *out)
{
	const char *s;
	int rc = ctl_scalar(c, v, "pcapng", &s);

	if (rc != 0)
		return rc;
	if (strcmp(s, "pcap") == 0)
		*out = CAP_FORMAT_PCAP;
	else if (strcmp(s, "pcapng") == 0)
		*out = CAP_FORMAT_PCAPNG;
	else
		rc = ctl_err(c, v, "unknown format '%s'; use pcap or pcapng", s);
	return rc;
}

static int val_snaplen(struct ctl_ctx *c, const struct ctl_ynode *v, uint32_t *out)
{
	uint64_t n;
	int rc = ctl_val_uint(c, v, 1, CAP_SNAPLEN_MAX, &n);

	if (rc == 0)
		*out = (uint32_t)n;
	return rc;
}

static int def_format(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	return val_format(c, v, &((struct ctl_capture_defaults *)obj)->format);
}

static int def_snaplen(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	return val_snaplen(c, v, &((struct ctl_capture_defaults *)obj)->snaplen);
}

static int def_epoch(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	struct ctl_capture_defaults *d = obj;

	d->has_epoch = true;
	return val_epoch(c, v, &d->epoch_ns);
}

int ctl_sec_capture_defaults(struct ctl_ctx *c, const struct ctl_ynode *v, struct ctl_config *cfg)
{
	static const struct ctl_key keys[] = {
		{ "format", false, def_format }, { "snaplen", false, def_snaplen }, { "epoch", false, def_epoch },
	};

	return ctl_walk_map(c, v, keys, sizeof(keys) / sizeof(keys[0]), &cfg->capture_defaults,
			    "e.g. capture_defaults: {format: pcapng, epoch: \"2026-01-01T00:00:00Z\"}");
}

static int cap_name(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	struct cap_obj *o = obj;
	int rc = ctl_val_name(c, v, o->cap->name, sizeof(o->cap->name));

	for (struct ctl_capture *q = o->cfg->captures; rc == 0 && q < o->cap; q++)
		if (strcmp(q->name, o->cap->name) == 0)
			rc = ctl_err(c, v, "duplicate capture name '%s'; the first is captures.%u", q->name,
				     (uint32_t)(q - o->cfg->captures));
	return rc;
}

static int cap_link(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	struct cap_obj *o = obj;

	o->points++;
	o->cap->point = CTL_CAP_LINK;
	return ctl_val_link(c, v, o->cfg, &o->cap->link);
}

static int cap_port(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	struct cap_obj *o = obj;
	int rc;

	o->points++;
	o->cap->point = CTL_CAP_PORT;
	rc = ctl_val_dev_port(c, v, o->cfg, &o->cap->link, &o->cap->end);
	if (rc == 0)
		snprintf(o->cap->port, sizeof(o->cap->port), "%s", v->text);
	return rc;
}

/* dev: a port of the ports section, by its devargs or their name (before the first comma). */
static int cap_dev(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	struct cap_obj *o = obj;
	const char *s;
	int rc = ctl_scalar(c, v, "net_tap0", &s);

	o->points++;
	o->cap->point = CTL_CAP_DEV;
	if (rc != 0)
		return rc;
	for (uint32_t i = 0; i < o->cfg->n_ports; i++) {
		const char *d = o->cfg->ports[i].dev;
		size_t name = strcspn(d, ",");

		if (strcmp(d, s) == 0 || (strlen(s) == name && strncmp(d, s, name) == 0)) {
			o->cap->dev = i;
			return 0;
		}
	}
	if (o->cfg->n_ports == 0)
		return ctl_err(c, v, "unknown dev '%s'; the config has no ports section (dev captures a DPDK port "
			       "of it in real time)", s);
	return ctl_err(c, v, "unknown dev '%s'; the ports section's devs are named %.*s%s", s,
		       (int)strcspn(o->cfg->ports[0].dev, ","), o->cfg->ports[0].dev,
		       o->cfg->n_ports > 1 ? " ..." : "");
}

static int cap_format(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	return val_format(c, v, &((struct cap_obj *)obj)->cap->format);
}

/* filter: compiled here with libpcap, so a bad one is a config error with libpcap's words. */
static int cap_filter(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	struct ctl_capture *cap = ((struct cap_obj *)obj)->cap;
	struct cap_bpf *f;
	char why[256];
	const char *s;
	int rc = ctl_scalar(c, v, "\"udp dst port 4793\"", &s);

	if (rc != 0)
		return rc;
	if (strlen(s) >= sizeof(cap->filter))
		return ctl_err(c, v, "filter of %zu characters; at most %zu", strlen(s), sizeof(cap->filter) - 1);
	rc = cap_bpf_compile(s, &f, why, sizeof(why));
	if (rc == -ENOMEM)
		return rc;
	if (rc < 0)
		return ctl_err(c, v, "bad filter '%s': libpcap: %s; a filter is a BPF expression as tcpdump takes it, "
			       "e.g. \"udp dst port 4793 and ip[1] & 3 == 3\"", s, why);
	cap_bpf_free(f);
	memcpy(cap->filter, s, strlen(s) + 1);
	return 0;
}

static int cap_snaplen(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	return val_snaplen(c, v, &((struct cap_obj *)obj)->cap->snaplen);
}

static int cap_max_frames(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	return ctl_val_uint(c, v, 1, UINT64_MAX, &((struct cap_obj *)obj)->cap->max_frames);
}

static int cap_max_bytes(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	uint64_t *out = &((struct cap_obj *)obj)->cap->max_bytes;
	int rc = ctl_val_u64(c, v, emu_parse_size, "100MiB", out);

	if (rc == 0 && *out == 0)
		rc = ctl_err(c, v, "max_bytes 0; leave it out for no limit, or give a size, e.g. 100MiB");
	return rc;
}

static int cap_rotate(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	uint64_t n;
	int rc = ctl_val_uint(c, v, 1, CAP_ROTATE_MAX, &n);

	((struct cap_obj *)obj)->cap->rotate = (uint32_t)n;
	return rc;
}

static int cap_epoch(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	struct ctl_capture *cap = ((struct cap_obj *)obj)->cap;

	cap->has_epoch = true;
	return val_epoch(c, v, &cap->epoch_ns);
}

/* After the keys: one capture point, and rotation only with a limit. */
static int cap_check(struct ctl_ctx *c, const struct ctl_ynode *item, const struct cap_obj *o)
{
	const struct ctl_capture *cap = o->cap;

	if (o->points != 1)
		return ctl_err(c, item, "%s; a capture names one capture point: link (a link), port (a device port, "
			       "DEVICE:INDEX) or dev (a DPDK port, real time)", o->points ? "more than one of link, "
			       "port and dev" : "no link, port or dev");
	if (cap->rotate > 1 && cap->max_frames == 0 && cap->max_bytes == 0) {
		size_t old = ctl_push(c, "rotate");
		int rc = ctl_err(c, ctl_y_get(item, "rotate"), "rotate %u without a limit; add max_frames or "
				 "max_bytes, after which the next file of the ring is started", cap->rotate);

		ctl_pop(c, old);
		return rc;
	}
	return 0;
}

static int cap_item(struct ctl_ctx *c, const struct ctl_ynode *item, uint32_t idx, void *obj)
{
	static const struct ctl_key keys[] = {
		{ "name", true, cap_name }, { "link", false, cap_link }, { "port", false, cap_port },
		{ "dev", false, cap_dev }, { "format", false, cap_format }, { "filter", false, cap_filter },
		{ "snaplen", false, cap_snaplen }, { "max_frames", false, cap_max_frames },
		{ "max_bytes", false, cap_max_bytes }, { "rotate", false, cap_rotate }, { "epoch", false, cap_epoch },
	};
	struct ctl_config *cfg = obj;
	const struct ctl_capture_defaults *d = &cfg->capture_defaults;
	struct cap_obj o = { .cfg = cfg, .cap = &cfg->captures[idx] };

	*o.cap = (struct ctl_capture){ .format = d->format, .snaplen = d->snaplen, .has_epoch = d->has_epoch,
				       .epoch_ns = d->epoch_ns };
	int rc = ctl_walk_map(c, item, keys, sizeof(keys) / sizeof(keys[0]), &o, CAPTURE_EXAMPLE);

	return rc != 0 ? rc : cap_check(c, item, &o);
}

int ctl_sec_captures(struct ctl_ctx *c, const struct ctl_ynode *v, struct ctl_config *cfg)
{
	uint32_t n = ctl_seq_len(v);

	if (n > 0 && (cfg->captures = calloc(n, sizeof(*cfg->captures))) == NULL)
		return -ENOMEM;
	cfg->n_captures = n;
	return ctl_walk_seq(c, v, cap_item, cfg, "e.g. captures: [{name: pair, link: l0}]");
}
