/* The replay section: captures played into a device port, a host or a DPDK port, paced, looped and rewritten. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl_yaml_pvt.h"
#include "cap.h"
#include "emu_units.h"

#define REPLAY_EXAMPLE "a replay needs a file and one of port, host or dev, e.g. {file: pair.pcap, host: host1}"
#define SPEED_MAX 1000000.0 /* a million times faster at most: below that, the deadlines keep whole picoseconds */
#define SPEED_MIN 0.000001

struct replay_obj {
	struct ctl_config *cfg;
	struct ctl_replay *rp;
	int points;              /* port, host and dev keys given */
	int paces;               /* speed and rate keys given */
};

static int rp_name(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	struct replay_obj *o = obj;
	int rc = ctl_val_name(c, v, o->rp->name, sizeof(o->rp->name));

	for (struct ctl_replay *q = o->cfg->replays; rc == 0 && q < o->rp; q++)
		if (strcmp(q->name, o->rp->name) == 0)
			rc = ctl_err(c, v, "duplicate replay name '%s'; the first is replay.%u", q->name,
				     (uint32_t)(q - o->cfg->replays));
	return rc;
}

/*
 * file: a relative path written in the config file is taken from the config file's directory (a config and its
 * capture travel together); one given by --set from the current directory, as any path on a command line. The run
 * opens it and says what is wrong with it.
 */
static int rp_file(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	struct ctl_replay *rp = ((struct replay_obj *)obj)->rp;
	const char *s, *slash = strrchr(c->file, '/');
	int rc = ctl_scalar(c, v, "out/pair/pair.pcap", &s), dir = 0, n;

	if (rc != 0)
		return rc;
	if (s[0] != '/' && v->set < 0 && slash != NULL)
		dir = (int)(slash - c->file) + 1;
	n = snprintf(rp->file, sizeof(rp->file), "%.*s%s", dir, c->file, s);
	if (s[0] == '\0' || n < 0 || (size_t)n >= sizeof(rp->file))
		return ctl_err(c, v, "file of %zu characters; a path of 1 to %zu", strlen(s) + (size_t)dir,
			       sizeof(rp->file) - 1);
	rp->file_dir = (uint16_t)dir;
	return 0;
}

static int rp_port(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	struct replay_obj *o = obj;
	int rc;

	o->points++;
	o->rp->point = CTL_REPLAY_PORT;
	rc = ctl_val_dev_port(c, v, o->cfg, &o->rp->link, &o->rp->end);
	if (rc == 0)
		snprintf(o->rp->to, sizeof(o->rp->to), "%s", v->text);
	return rc;
}

/* host: the host's NIC, through the one link it has (explicit), or its port 0 (generated: "host3:0"). */
static int rp_host(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	struct replay_obj *o = obj;
	struct ctl_config *cfg = o->cfg;
	uint32_t h;
	int rc;

	o->points++;
	o->rp->point = CTL_REPLAY_HOST;
	if ((rc = ctl_val_host(c, v, cfg, &h)) != 0)
		return rc;
	snprintf(o->rp->to, sizeof(o->rp->to), "%s", cfg->hosts[h].name);
	if (cfg->topo_type == CTL_TOPO_GENERATED) {
		struct ctl_ynode port = *v;
		char text[CTL_NAME_MAX + 8];

		snprintf(text, sizeof(text), "%s:0", cfg->hosts[h].name);
		port.text = text;
		return ctl_val_dev_port(c, &port, cfg, &o->rp->link, &o->rp->end);
	}
	for (uint32_t i = 0; i < cfg->n_links; i++)
		if (cfg->links[i].a == h || cfg->links[i].b == h) {
			o->rp->link = i;
			o->rp->end = cfg->links[i].a == h ? 0 : 1;
			return 0;
		}
	return ctl_err(c, v, "host '%s' has no link; a replay enters a host through its link", cfg->hosts[h].name);
}

/* dev: a port of the ports section, by its devargs or their name (before the first comma), as captures take it. */
static int rp_dev(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	struct replay_obj *o = obj;
	const char *s;
	int rc = ctl_scalar(c, v, "net_pcap0", &s);

	o->points++;
	o->rp->point = CTL_REPLAY_DEV;
	if (rc != 0)
		return rc;
	snprintf(o->rp->to, sizeof(o->rp->to), "%s", s);
	for (uint32_t i = 0; i < o->cfg->n_ports; i++) {
		const char *d = o->cfg->ports[i].dev;
		size_t name = strcspn(d, ",");

		if (strcmp(d, s) == 0 || (strlen(s) == name && strncmp(d, s, name) == 0)) {
			o->rp->dev = i;
			return 0;
		}
	}
	return ctl_err(c, v, "unknown dev '%s'; %s", s, o->cfg->n_ports ? "a replay's dev is a DPDK port of the ports "
		       "section, by its dev or the name before the first comma" : "the config has no ports section");
}

static int rp_speed(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	struct replay_obj *o = obj;
	const char *s;
	double x;
	char why[64];
	int rc = ctl_scalar(c, v, "2.0", &s);

	o->paces++;
	if (rc != 0)
		return rc;
	if (emu_parse_double(s, &x, why, sizeof(why)) < 0 || !(x >= SPEED_MIN && x <= SPEED_MAX))
		return ctl_err(c, v, "bad speed '%s'; a factor from %g to %g: 1 plays the capture at its own timing, "
			       "2.0 twice as fast, 0.5 half as fast", s, SPEED_MIN, SPEED_MAX);
	o->rp->pace = CTL_REPLAY_TIMING;
	o->rp->speed_ppm = (uint64_t)(x * 1e6 + 0.5);
	return 0;
}

/* rate: frames per second ("100000", "1Mpps" is not a unit: a plain number), or a data rate ("10Gbps"). */
static int rp_rate(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	struct replay_obj *o = obj;
	const char *s;
	char why[64];
	int rc = ctl_scalar(c, v, "100000", &s);

	o->paces++;
	if (rc != 0)
		return rc;
	if (emu_parse_uint(s, &o->rp->rate, why, sizeof(why)) == 0 && o->rp->rate > 0 &&
	    o->rp->rate <= EMU_PS_PER_S) {
		o->rp->pace = CTL_REPLAY_FPS;
		return 0;
	}
	if (emu_parse_datarate(s, &o->rp->rate, why, sizeof(why)) == 0 && o->rp->rate > 0) {
		o->rp->pace = CTL_REPLAY_BPS;
		return 0;
	}
	return ctl_err(c, v, "bad rate '%s'; frames per second (1 to 10^12, e.g. 100000) or a data rate (e.g. 10Gbps: "
		       "frames back to back at that rate)", s);
}

static int rp_loop(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	return ctl_val_uint(c, v, 1, UINT32_MAX, &((struct replay_obj *)obj)->rp->loop);
}

static int rp_start(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	emu_ps_t *start = &((struct replay_obj *)obj)->rp->start;
	int rc = ctl_val_u64(c, v, emu_parse_timeval, "10us", start);

	if (rc == 0 && *start >= EMU_PS_MAX)
		return ctl_err(c, v, "start %llu ps is past the emulated time range (2^63 ps, 106 days); a time from the "
			       "run's start, e.g. 10us", (unsigned long long)*start);
	return rc;
}

/* filter: compiled here with libpcap, so a bad one is a config error with libpcap's words. */
static int rp_filter(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	struct ctl_replay *rp = ((struct replay_obj *)obj)->rp;
	struct cap_bpf *f;
	char why[256];
	const char *s;
	int rc = ctl_scalar(c, v, "\"src host 10.0.0.1\"", &s);

	if (rc != 0)
		return rc;
	if (strlen(s) >= sizeof(rp->filter))
		return ctl_err(c, v, "filter of %zu characters; at most %zu", strlen(s), sizeof(rp->filter) - 1);
	rc = cap_bpf_compile(s, &f, why, sizeof(why));
	if (rc == -ENOMEM)
		return rc;
	if (rc < 0)
		return ctl_err(c, v, "bad filter '%s': libpcap: %s; a filter is a BPF expression as tcpdump takes it, "
			       "e.g. \"src host 10.0.0.1\"", s, why);
	cap_bpf_free(f);
	memcpy(rp->filter, s, strlen(s) + 1);
	return 0;
}

/* rewrite.mac: {FROM: TO, ...}; rewrite.ip the same with IPv4 addresses. Each FROM once. */
static int rewrite_map(struct ctl_ctx *c, const struct ctl_ynode *v, struct ctl_replay *rp, bool mac)
{
	char why[64];
	int failed = 0;

	if (v->type != CTL_Y_MAP && !ctl_y_is_null(v))
		return ctl_err(c, v, "not a map; e.g. %s", mac ? "{\"02:00:00:00:00:01\": \"0a:00:00:00:00:01\"}" :
			       "{10.0.0.1: 10.1.0.1}");
	for (uint32_t i = 0; v->type == CTL_Y_MAP && i < v->n; i++) {
		size_t old = ctl_push(c, v->key[i]->text);
		uint32_t *n = mac ? &rp->n_mac : &rp->n_ip;
		int rc = 0;

		if (*n == CTL_REPLAY_MAP_MAX)
			rc = ctl_err(c, v->key[i], "more than %d entries", CTL_REPLAY_MAP_MAX);
		else if (v->val[i]->type != CTL_Y_SCALAR)
			rc = ctl_err(c, v->val[i], "not an address");
		else if (mac ? emu_parse_mac(v->key[i]->text, rp->mac_from[*n], why, sizeof(why)) < 0 ||
				       emu_parse_mac(v->val[i]->text, rp->mac_to[*n], why, sizeof(why)) < 0
			     : emu_parse_ipv4(v->key[i]->text, &rp->ip_from[*n], why, sizeof(why)) < 0 ||
				       emu_parse_ipv4(v->val[i]->text, &rp->ip_to[*n], why, sizeof(why)) < 0)
			rc = ctl_err(c, v->val[i], "bad %s '%s: %s'; e.g. %s", mac ? "MAC rewrite" : "IPv4 rewrite",
				     v->key[i]->text, v->val[i]->text,
				     mac ? "\"02:00:00:00:00:01\": \"0a:00:00:00:00:01\"" : "10.0.0.1: 10.1.0.1");
		else
			(*n)++;
		ctl_pop(c, old);
		if (ctl_child_done(c, rc, &failed))
			break;
	}
	return failed;
}

static int rw_mac(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	return rewrite_map(c, v, obj, true);
}

static int rw_ip(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	return rewrite_map(c, v, obj, false);
}

static int rp_rewrite(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	static const struct ctl_key keys[] = { { "mac", false, rw_mac }, { "ip", false, rw_ip } };

	return ctl_walk_map(c, v, keys, 2, ((struct replay_obj *)obj)->rp,
			    "e.g. rewrite: {mac: {\"02:00:00:00:00:01\": \"0a:00:00:00:00:01\"}, ip: {10.0.0.1: 10.1.0.1}}");
}

static int rp_item(struct ctl_ctx *c, const struct ctl_ynode *item, uint32_t idx, void *obj)
{
	static const struct ctl_key keys[] = {
		{ "name", false, rp_name }, { "file", true, rp_file }, { "port", false, rp_port },
		{ "host", false, rp_host }, { "dev", false, rp_dev }, { "speed", false, rp_speed },
		{ "rate", false, rp_rate }, { "loop", false, rp_loop }, { "start", false, rp_start },
		{ "filter", false, rp_filter }, { "rewrite", false, rp_rewrite },
	};
	struct ctl_config *cfg = obj;
	struct replay_obj o = { .cfg = cfg, .rp = &cfg->replays[idx] };

	*o.rp = (struct ctl_replay){ .speed_ppm = 1000000, .loop = 1 };
	snprintf(o.rp->name, sizeof(o.rp->name), "replay%u", idx);
	int rc = ctl_walk_map(c, item, keys, sizeof(keys) / sizeof(keys[0]), &o, REPLAY_EXAMPLE);

	if (rc == 0 && o.points != 1)
		rc = ctl_err(c, item, "%s; a replay goes to one place: port (a device port, DEVICE:INDEX), host (a host's "
			     "NIC) or dev (a DPDK port of the ports section, real time)", o.points ?
			     "more than one of port, host and dev" : "no port, host or dev");
	if (rc == 0 && o.paces > 1)
		rc = ctl_err(c, item, "both speed and rate; speed scales the capture's own timing, rate replaces it");
	return rc;
}

int ctl_sec_replay(struct ctl_ctx *c, const struct ctl_ynode *v, struct ctl_config *cfg)
{
	uint32_t n = ctl_seq_len(v);

	if (n > 0 && (cfg->replays = calloc(n, sizeof(*cfg->replays))) == NULL)
		return -ENOMEM;
	cfg->n_replays = n;
	return ctl_walk_seq(c, v, rp_item, cfg, "e.g. replay: [{file: out/pair/pair.pcap, host: host1}]");
}
