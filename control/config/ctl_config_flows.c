/* applications[i] of type flows (Poisson flows from a size CDF, destinations by pattern) and stream (a constant-rate
 * stream between two hosts): their keys, then, once the whole config is read, their messages (app_flows.c) into the
 * application's list, which the messages workload posts (docs/config.md, flows and stream). */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ctl_yaml_pvt.h"
#include "app_flows.h"
#include "emu_units.h"
#include "net_topo.h"
#include "nic.h"

#define FLOWS_EXAMPLE "a flows application is {type: flows, cdf: cdf/websearch.txt, load: 0.5, stop: 1ms}"
#define STREAM_EXAMPLE "a stream is {type: stream, src: host0, dst: host1, rate: 10Gbps, size: 4KiB, stop: 1ms}"
#define FLOWS_STRATA_DEFAULT 0 /* one run of strata per host's whole run (app_flows_gen()) */
#define FLOWS_CDF_FILE_MAX (1u << 20)

struct fl_obj {
	struct ctl_config *cfg;
	struct ctl_flows *f;
	bool stream;
};

static struct ctl_flows *fl(void *obj)
{
	return ((struct fl_obj *)obj)->f;
}

/* A key of the other type is refused by name. */
static int only(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj, bool stream, const char *key)
{
	if (((struct fl_obj *)obj)->stream == stream)
		return 0;
	return ctl_err(c, v, "%s applies to a %s application, not a %s one", key, stream ? "stream" : "flows",
		       stream ? "flows" : "stream");
}

static int k_cdf(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	char dir[512];
	const char *s;
	int rc = only(c, v, obj, false, "cdf");

	if (rc == 0)
		rc = ctl_scalar(c, v, "cdf/websearch.txt", &s);
	if (rc != 0)
		return rc;
	snprintf(dir, sizeof(dir), "%s", c->file);
	if (s[0] == '\0' || (size_t)snprintf(fl(obj)->cdf, sizeof(fl(obj)->cdf), "%s/%s", dirname(dir), s) >=
	    sizeof(fl(obj)->cdf))
		return ctl_err(c, v, "bad path '%s': empty or too long", s);
	if (s[0] == '/')
		snprintf(fl(obj)->cdf, sizeof(fl(obj)->cdf), "%s", s);
	return 0;
}

static int k_load(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	char why[128];
	const char *s;
	int rc = only(c, v, obj, false, "load");

	if (rc == 0)
		rc = ctl_scalar(c, v, "0.5", &s);
	if (rc == 0 && (emu_parse_ppm(s, &fl(obj)->load_ppm, why, sizeof(why)) != 0 || fl(obj)->load_ppm == 0))
		rc = ctl_err(c, v, "bad load '%s'; a share of each sender's link above 0 and at most 1, e.g. 0.5", s);
	return rc;
}

static int k_pattern(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	enum app_flows_pattern p;
	const char *s;
	int rc = only(c, v, obj, false, "pattern");

	if (rc == 0)
		rc = ctl_scalar(c, v, "uniform", &s);
	if (rc == 0 && app_flows_pattern_parse(s, &p) < 0)
		rc = ctl_err(c, v, "unknown pattern '%s'; use uniform, permutation, incast or all-to-all", s);
	if (rc == 0)
		fl(obj)->pattern = (uint8_t)p;
	return rc;
}

static int k_receiver(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	int rc = only(c, v, obj, false, "receiver");

	return rc ? rc : ctl_val_host(c, v, ((struct fl_obj *)obj)->cfg, &fl(obj)->receiver);
}

static int k_senders(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	struct fl_obj *o = obj;
	uint64_t n;
	int rc = only(c, v, obj, false, "senders");

	if (rc == 0 && o->cfg->n_hosts < 2)
		rc = ctl_err(c, v, "an incast needs 2 or more hosts");
	if (rc == 0)
		rc = ctl_val_uint(c, v, 1, o->cfg->n_hosts - 1, &n);
	if (rc == 0) {
		o->f->senders = (uint32_t)n;
		o->f->senders_given = true;
	}
	return rc;
}

static int k_rack_local(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	char why[128];
	const char *s;
	int rc = only(c, v, obj, false, "rack_local");

	if (rc == 0)
		rc = ctl_scalar(c, v, "0.3", &s);
	if (rc == 0 && emu_parse_ppm(s, &fl(obj)->rack_local_ppm, why, sizeof(why)) != 0)
		rc = ctl_err(c, v, "bad rack_local '%s'; the share of flows inside the sender's rack, 0 to 1", s);
	fl(obj)->rack_local_given = rc == 0;
	return rc;
}

static int k_strata(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	uint64_t n;
	int rc = only(c, v, obj, false, "strata");

	if (rc == 0)
		rc = ctl_val_uint(c, v, 0, APP_FLOWS_STRATA_MAX, &n);
	if (rc == 0)
		fl(obj)->strata = (uint32_t)n;
	return rc;
}

static int k_count(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	int rc = only(c, v, obj, false, "count");

	return rc ? rc : ctl_val_uint(c, v, 1, APP_FLOWS_MAX, &fl(obj)->count);
}

static int k_seed(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	fl(obj)->seed_given = true;
	return ctl_val_uint(c, v, 0, UINT64_MAX, &fl(obj)->seed);
}

static int k_start(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	return ctl_val_u64(c, v, emu_parse_timeval, "0us", &fl(obj)->start);
}

static int k_stop(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	int rc = ctl_val_u64(c, v, emu_parse_timeval, "1ms", &fl(obj)->stop);

	if (rc == 0 && fl(obj)->stop == 0)
		rc = ctl_err(c, v, "a stop of 0; give the time the generator stops, e.g. 1ms");
	fl(obj)->stop_given = rc == 0;
	return rc;
}

static int k_src(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	int rc = only(c, v, obj, true, "src");

	return rc ? rc : ctl_val_host(c, v, ((struct fl_obj *)obj)->cfg, &fl(obj)->src);
}

static int k_dst(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	int rc = only(c, v, obj, true, "dst");

	return rc ? rc : ctl_val_host(c, v, ((struct fl_obj *)obj)->cfg, &fl(obj)->dst);
}

static int k_size(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	struct fl_obj *o = obj;
	uint32_t mss = o->cfg->nic.rdma_data_mss;
	int rc = only(c, v, obj, true, "size");

	if (rc == 0)
		rc = ctl_val_u64(c, v, emu_parse_size, "4KiB", &o->f->size);
	if (rc == 0 && (o->f->size == 0 || o->f->size > nic_msg_bytes_max(mss)))
		rc = ctl_err(c, v, "%llu B; a stream's message is 1 B to %llu B", (unsigned long long)o->f->size,
			     (unsigned long long)nic_msg_bytes_max(mss));
	return rc;
}

static int k_rate(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	int rc = only(c, v, obj, true, "rate");

	if (rc == 0)
		rc = ctl_val_u64(c, v, emu_parse_datarate, "10Gbps", &fl(obj)->bps);
	if (rc == 0 && fl(obj)->bps == 0)
		rc = ctl_err(c, v, "a rate of 0; e.g. rate: 10Gbps");
	return rc;
}

static int k_pps(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	int rc = only(c, v, obj, true, "pps");

	return rc ? rc : ctl_val_uint(c, v, 1, 1000000000000ULL, &fl(obj)->pps);
}

static int k_on(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	int rc = only(c, v, obj, true, "on");

	return rc ? rc : ctl_val_u64(c, v, emu_parse_timeval, "100us", &fl(obj)->on);
}

static int k_off(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	int rc = only(c, v, obj, true, "off");

	return rc ? rc : ctl_val_u64(c, v, emu_parse_timeval, "100us", &fl(obj)->off);
}

/* What the keys of one entry say together. */
static int fl_check(struct ctl_ctx *c, const struct ctl_ynode *item, const struct fl_obj *o)
{
	const struct ctl_flows *f = o->f;

	if (o->stream) {
		if ((f->bps != 0) == (f->pps != 0))
			return ctl_err(c, item, "a stream takes its rate as rate (bit/s, e.g. 10Gbps) or pps (messages a "
				       "second), one of the two");
		if (f->src == f->dst)
			return ctl_err(c, item, "src and dst are both '%s'; a stream goes between two different hosts",
				       o->cfg->hosts[f->src].name);
		if (!f->stop_given)
			return ctl_err(c, item, "a stream needs a stop, e.g. stop: 1ms");
		if ((f->on == 0) != (f->off == 0))
			return ctl_err(c, item, "on and off go together (periods above 0), e.g. on: 100us, off: 100us");
	} else {
		if (f->load_ppm == 0)
			return ctl_err(c, item, "a flows application needs load (a share of each sender's link), e.g. "
				       "load: 0.5");
		if (f->cdf[0] == '\0')
			return ctl_err(c, item, "a flows application needs cdf (a size distribution's file), e.g. cdf: "
				       "cdf/websearch.txt");
		if (!f->stop_given && f->count == 0)
			return ctl_err(c, item, "a flows application needs a stop (a time) or a count (flows per "
				       "sender), e.g. stop: 1ms");
		if (f->pattern != APP_FLOWS_INCAST && (f->senders_given || ctl_y_get(item, "receiver") != NULL))
			return ctl_err(c, item, "receiver and senders apply to pattern: incast");
		if (f->pattern == APP_FLOWS_INCAST && ctl_y_get(item, "receiver") == NULL)
			return ctl_err(c, item, "an incast needs its receiver, e.g. receiver: host0");
		if (f->rack_local_given && f->pattern != APP_FLOWS_UNIFORM)
			return ctl_err(c, item, "rack_local applies to pattern: uniform");
		if (f->rack_local_given && o->cfg->topo_type != CTL_TOPO_GENERATED)
			return ctl_err(c, item, "rack_local needs a generated fabric (its racks); this topology is "
				       "explicit");
	}
	if (f->stop_given && f->stop <= f->start)
		return ctl_err(c, item, "stop is not after start");
	return 0;
}

int ctl_app_flows(struct ctl_ctx *c, const struct ctl_ynode *item, struct ctl_config *cfg, uint32_t idx)
{
	static const struct ctl_key keys[] = {
		{ "type", true, NULL }, { "cdf", false, k_cdf }, { "load", false, k_load },
		{ "pattern", false, k_pattern }, { "receiver", false, k_receiver }, { "senders", false, k_senders },
		{ "rack_local", false, k_rack_local }, { "strata", false, k_strata }, { "count", false, k_count },
		{ "seed", false, k_seed }, { "start", false, k_start }, { "stop", false, k_stop },
		{ "src", false, k_src }, { "dst", false, k_dst }, { "size", false, k_size }, { "rate", false, k_rate },
		{ "pps", false, k_pps }, { "on", false, k_on }, { "off", false, k_off },
	};
	struct ctl_app *app = &cfg->apps[idx];
	bool stream = strcmp(ctl_y_get(item, "type")->text, "stream") == 0;

	app->type = stream ? CTL_APP_STREAM : CTL_APP_FLOWS;
	if ((app->flows = calloc(1, sizeof(*app->flows))) == NULL)
		return -ENOMEM;
	struct fl_obj o = { .cfg = cfg, .f = app->flows, .stream = stream };

	o.f->strata = FLOWS_STRATA_DEFAULT;
	o.f->size = 4096;
	int rc = ctl_walk_map(c, item, keys, sizeof(keys) / sizeof(keys[0]), &o, stream ? STREAM_EXAMPLE : FLOWS_EXAMPLE);

	if (rc == 0)
		rc = fl_check(c, item, &o);
	return rc;
}

/* The CDF file of @p f into @p cdf; an error at @p item. */
static int load_cdf(struct ctl_ctx *c, const struct ctl_ynode *item, const struct ctl_flows *f, struct app_cdf *cdf)
{
	int fd = open(f->cdf, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	char why[160];
	char *text;
	size_t n;

	if (fd < 0)
		return ctl_err(c, ctl_y_get(item, "cdf"), "%s: %s", f->cdf, strerror(errno));
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) { /* a FIFO or a device would never end */
		close(fd);
		return ctl_err(c, ctl_y_get(item, "cdf"), "%s: not a regular file", f->cdf);
	}
	FILE *fp = fdopen(fd, "r");

	if (fp == NULL) {
		close(fd);
		return -ENOMEM;
	}
	if ((text = malloc(FLOWS_CDF_FILE_MAX + 1)) == NULL) {
		fclose(fp);
		return -ENOMEM;
	}
	n = fread(text, 1, FLOWS_CDF_FILE_MAX + 1, fp);
	int e = ferror(fp) ? errno : 0;

	fclose(fp);
	if (e != 0) {
		free(text);
		return ctl_err(c, ctl_y_get(item, "cdf"), "%s: %s", f->cdf, strerror(e));
	}
	text[n <= FLOWS_CDF_FILE_MAX ? n : FLOWS_CDF_FILE_MAX] = '\0';
	bool binary = n <= FLOWS_CDF_FILE_MAX && memchr(text, '\0', n) != NULL;
	int rc = n > FLOWS_CDF_FILE_MAX ? -EFBIG : binary ? -EINVAL : app_cdf_parse(text, cdf, why, sizeof(why));

	free(text);
	if (rc == -EFBIG)
		return ctl_err(c, ctl_y_get(item, "cdf"), "%s: larger than 1 MiB; a CDF is at most %u lines", f->cdf,
			       APP_CDF_MAX);
	if (rc < 0 && rc != -EINVAL)
		return rc;
	if (rc == -EINVAL)
		return ctl_err(c, ctl_y_get(item, "cdf"), "%s: %s", f->cdf, binary ? "not a text file" : why);
	return 0;
}

/* Each host's rack (the switch its link goes to) of a generated fabric into @p rack (n_hosts entries). */
static int host_racks(const struct ctl_config *cfg, uint32_t *rack, char *err, size_t errlen)
{
	struct net_topo *t = NULL;
	int rc = ctl_config_topo_build(cfg, &t, err, errlen);

	for (uint32_t h = 0; rc == 0 && h < cfg->n_hosts; h++)
		rack[h] = net_topo_peer(t, h, 0).dev;
	net_topo_destroy(t);
	return rc;
}

/*
 * The flows of application @p idx (@p item its entry) into @p out: its CDF read and checked against the largest
 * message, its racks when rack_local is given. 0; -EINVAL with the error written (*@p written) or in @p why; -ENOMEM.
 */
static int gen_flows(struct ctl_ctx *c, const struct ctl_ynode *item, const struct ctl_config *cfg, uint32_t idx,
		     struct app_flows_out *out, char *why, size_t whylen, bool *written)
{
	const struct ctl_flows *f = cfg->apps[idx].flows;
	uint64_t max = nic_msg_bytes_max(cfg->nic.rdma_data_mss);
	struct app_cdf *cdf = malloc(sizeof(*cdf));
	uint32_t *rack = NULL;
	int rc = cdf == NULL ? -ENOMEM : load_cdf(c, item, f, cdf);

	*written = rc == -EINVAL;
	if (rc == 0 && cdf->size[cdf->n - 1] > max) {
		rc = ctl_err(c, ctl_y_get(item, "cdf"), "%s: its largest flow, %llu B, is more than a message can carry "
			     "(%llu B)", f->cdf, (unsigned long long)cdf->size[cdf->n - 1], (unsigned long long)max);
		*written = true;
	}
	if (rc == 0 && f->rack_local_given && (rack = calloc(cfg->n_hosts, sizeof(*rack))) == NULL)
		rc = -ENOMEM;
	if (rc == 0 && rack != NULL)
		rc = host_racks(cfg, rack, why, whylen);
	if (rc == 0 && cfg->n_hosts < 2) {
		snprintf(why, whylen, "flows need 2 or more hosts");
		rc = -EINVAL;
	}
	if (rc == 0) {
		struct app_flows_in in = {
			.n_hosts = cfg->n_hosts, .rack = rack, .bps = f->host_bps, .load_ppm = f->load_ppm, .cdf = cdf,
			.pattern = f->pattern, .receiver = f->receiver,
			.senders = f->senders_given ? f->senders : cfg->n_hosts - 1,
			.rack_local_ppm = f->rack_local_ppm, .strata = f->strata,
			.seed = f->seed_given ? f->seed : cfg->sim.random_seed, .stream = (uint64_t)idx << 32,
			.start = f->start, .stop = f->stop_given ? f->stop : 0, .count = f->count,
		};
		rc = app_flows_gen(&in, out, why, whylen);
	}
	free(rack);
	free(cdf);
	return rc;
}

/* The generator of application @p idx (@p item its entry) into its list. */
static int generate_one(struct ctl_ctx *c, const struct ctl_ynode *item, struct ctl_config *cfg, uint32_t idx)
{
	struct ctl_app *app = &cfg->apps[idx];
	struct ctl_flows *f = app->flows;
	struct app_flows_out out;
	bool written = false;
	char why[256];
	int rc;

	f->host_bps = ctl_config_host_bps(cfg);
	if (app->type == CTL_APP_STREAM) {
		struct app_stream_in in = { .src = f->src, .dst = f->dst, .size = f->size, .bps = f->bps, .pps = f->pps,
					    .start = f->start, .stop = f->stop, .on = f->on, .off = f->off };
		rc = app_stream_gen(&in, &out, why, sizeof(why));
	} else {
		rc = gen_flows(c, item, cfg, idx, &out, why, sizeof(why), &written);
	}
	if (rc == -ENOMEM || (rc < 0 && written))
		return rc;
	if (rc < 0)
		return ctl_err(c, item, "%s", why);
	if (out.n > 0 && (app->list = calloc(out.n, sizeof(*app->list))) == NULL) {
		free(out.flows);
		return -ENOMEM;
	}
	for (uint64_t i = 0; i < out.n; i++)
		app->list[i] = (struct ctl_message){ .src = out.flows[i].src, .dst = out.flows[i].dst,
						     .bytes = out.flows[i].bytes, .start = out.flows[i].start };
	app->n_list = (uint32_t)out.n;
	free(out.flows);
	f->bytes = out.bytes;
	f->n_senders = out.senders;
	f->window_ps = out.window_ps;
	f->offered_ppm = out.offered_ppm;
	uint32_t off = f->offered_ppm > f->load_ppm ? f->offered_ppm - f->load_ppm : f->load_ppm - f->offered_ppm;

	/* a heavy tail needs many flows: say when these few offer another load than the one asked for */
	if (app->type == CTL_APP_FLOWS && (uint64_t)off * 20 > f->load_ppm && cfg->n_warnings < CTL_WARN_MAX) {
		char w[CTL_WARN_LEN];

		snprintf(w, sizeof(w), "%s: applications.%u: the %u flows generated offer %.3f %% of the links, not the "
			 "%.3f %% of load (more than 5 %% off): too few flows for the size distribution; lengthen stop or "
			 "raise count", cfg->path, idx, app->n_list, (double)f->offered_ppm / 1e4,
			 (double)f->load_ppm / 1e4);
		memcpy(cfg->warnings[cfg->n_warnings++], w, sizeof(w));
	}
	return 0;
}

int ctl_flows_generate(struct ctl_ctx *c, const struct ctl_ynode *apps, struct ctl_config *cfg)
{
	int failed = 0;

	for (uint32_t i = 0; i < cfg->n_apps; i++) {
		if (cfg->apps[i].type != CTL_APP_FLOWS && cfg->apps[i].type != CTL_APP_STREAM)
			continue;
		size_t old = ctl_push(c, "applications"), old2 = ctl_push_idx(c, i);
		int rc = generate_one(c, apps->val[i], cfg, i);

		ctl_pop(c, old2);
		ctl_pop(c, old);
		if (ctl_child_done(c, rc, &failed))
			break;
	}
	return failed;
}
