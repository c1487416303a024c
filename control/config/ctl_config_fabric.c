/* The topology section: its type, a generated fabric's parameters (counts, per-tier DataRate and Delay, ip_base),
 * the hosts the builder names, link faults, and link names resolved against either kind of topology. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl_yaml_pvt.h"
#include "emu_units.h"
#include "net_topo.h"

#define TOPO_EXAMPLE "{type: leaf-spine, hosts_per_rack: 4, racks: 4, spines: 4}"
#define FAULT_EXAMPLE "e.g. {link: host0-tor0, down: 10us, up: 20us} or {link: host0-tor0, loss: 0.01}"

/* topology.type values: explicit, then the builder's types in enum net_topo_type order (type t is t + 1 here). */
enum { T_EXPLICIT = 0, T_PAIR, T_RACK, T_LEAF_SPINE, T_FAT_TREE, T_COUNT };

static const char *const type_names[T_COUNT] = { "explicit", "pair", "rack", "leaf-spine", "fat-tree" };

#define M(t) (1u << (t))
#define M_SWITCHED (M(T_RACK) | M(T_LEAF_SPINE) | M(T_FAT_TREE))
#define M_GENERATED (M(T_PAIR) | M_SWITCHED)
#define M_ALL (M(T_EXPLICIT) | M_GENERATED)

/* Every key of the section and the types it applies to. */
static const struct topo_key {
	const char *name;
	unsigned types;
} topo_keys[] = {
	{ "type", M_ALL },
	{ "hosts", M_ALL },
	{ "links", M(T_EXPLICIT) },
	{ "hosts_per_rack", M(T_RACK) | M(T_LEAF_SPINE) },
	{ "racks", M(T_LEAF_SPINE) },
	{ "spines", M(T_LEAF_SPINE) },
	{ "oversubscription", M(T_LEAF_SPINE) },
	{ "k", M(T_FAT_TREE) },
	{ "ip_base", M_GENERATED },
	{ "DataRate", M_SWITCHED },
	{ "Delay", M_SWITCHED },
	{ "faults", M_ALL },
};
#define N_TOPO_KEYS (sizeof(topo_keys) / sizeof(topo_keys[0]))

/* The keys a type needs, and what a minimal one looks like. */
static const struct {
	const char *required[2];
	const char *example;
} type_needs[T_COUNT] = {
	[T_EXPLICIT] = { { NULL }, "" },
	[T_PAIR] = { { NULL }, "{type: pair}" },
	[T_RACK] = { { "hosts_per_rack" }, "{type: rack, hosts_per_rack: 8}" },
	[T_LEAF_SPINE] = { { "hosts_per_rack", "racks" }, TOPO_EXAMPLE },
	[T_FAT_TREE] = { { "k" }, "{type: fat-tree, k: 8}" },
};

/* The key each builder parameter comes from (enum net_topo_param order). */
static const char *const param_keys[] = { "type", "hosts_per_rack", "racks", "spines", "oversubscription",
					   "k", "DataRate", "Delay", "ip_base" };

/* The key node (not its value) of @p name in @p map, or NULL. */
static const struct ctl_ynode *key_node(const struct ctl_ynode *map, const char *name)
{
	for (uint32_t i = 0; map != NULL && map->type == CTL_Y_MAP && i < map->n; i++)
		if (strcmp(map->key[i]->text, name) == 0)
			return map->key[i];
	return NULL;
}

/* ctl_err() at @p at, with ".key" appended to the path for the message. */
__attribute__((format(printf, 4, 5))) static int err_at_key(struct ctl_ctx *c, const char *key,
							     const struct ctl_ynode *at, const char *fmt, ...)
{
	char msg[768];
	va_list ap;
	size_t old = ctl_push(c, key);
	int rc;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	rc = ctl_err(c, at, "%s", msg);
	ctl_pop(c, old);
	return rc;
}

static const char *article(unsigned type)
{
	return type == T_EXPLICIT ? "an" : "a";
}

static int topo_type(struct ctl_ctx *c, const struct ctl_ynode *v, unsigned *type)
{
	const struct ctl_ynode *tv = ctl_y_get(v, "type");
	const char *s;
	int rc;

	*type = T_EXPLICIT;
	if (tv == NULL)
		return 0;
	size_t old = ctl_push(c, "type");

	rc = ctl_scalar(c, tv, "fat-tree", &s);
	for (unsigned t = 0; rc == 0 && t < T_COUNT; t++)
		if (strcmp(s, type_names[t]) == 0) {
			*type = t;
			ctl_pop(c, old);
			return 0;
		}
	if (rc == 0)
		rc = ctl_err(c, tv, "unknown topology type '%s'; use explicit, pair, rack, leaf-spine, fat-tree or "
			     "htsim", s);
	ctl_pop(c, old);
	return rc;
}

/* Every key given applies to the type, and the type's required keys are there. */
static int topo_keys_fit(struct ctl_ctx *c, const struct ctl_ynode *v, unsigned type)
{
	bool typed = ctl_y_get(v, "type") != NULL;

	for (uint32_t i = 0; v->type == CTL_Y_MAP && i < v->n; i++) {
		const struct topo_key *k = topo_keys;
		char list[256];
		size_t used = 0;
		unsigned first = 0;

		while (strcmp(k->name, v->key[i]->text) != 0)
			k++;
		if (k->types & M(type))
			continue;
		while (!(k->types & M(first)))
			first++;
		if (!typed)
			return err_at_key(c, k->name, v->key[i], "%s needs a topology type; add type: %s", k->name,
					  type_names[first]);
		list[0] = '\0';
		for (size_t j = 1; j < N_TOPO_KEYS && used < sizeof(list); j++) {
			if (!(topo_keys[j].types & M(type)))
				continue;
			int w = snprintf(list + used, sizeof(list) - used, "%s%s", used ? ", " : "", topo_keys[j].name);

			used += w > 0 ? (size_t)w : 0;
		}
		return err_at_key(c, k->name, v->key[i], "%s does not apply to %s %s topology; %s %s takes %s", k->name,
				  article(type), type_names[type], article(type), type_names[type], list);
	}
	for (int j = 0; j < 2; j++) {
		const char *req = type_needs[type].required[j];

		if (req != NULL && ctl_y_get(v, req) == NULL)
			return err_at_key(c, req, v, "missing required key; %s %s needs %s%s%s, e.g. %s",
					  article(type), type_names[type], type_needs[type].required[0],
					  type_needs[type].required[1] ? " and " : "",
					  type_needs[type].required[1] ? type_needs[type].required[1] : "",
					  type_needs[type].example);
	}
	return 0;
}

/* A count: a uint that fits 32 bits (the builder refuses 0 with a message of its own). */
static int topo_count(struct ctl_ctx *c, const struct ctl_ynode *v, const char *key, uint32_t *out)
{
	const struct ctl_ynode *n = ctl_y_get(v, key);
	uint64_t u;
	int rc;

	if (n == NULL)
		return 0;
	size_t old = ctl_push(c, key);

	rc = ctl_val_uint(c, n, 0, UINT32_MAX, &u);
	ctl_pop(c, old);
	*out = (uint32_t)u;
	return rc;
}

static int topo_ip_base(struct ctl_ctx *c, const struct ctl_ynode *v, uint32_t *ip)
{
	const struct ctl_ynode *n = ctl_y_get(v, "ip_base");
	char msg[256];
	const char *s;
	int rc;

	if (n == NULL)
		return 0;
	size_t old = ctl_push(c, "ip_base");

	rc = ctl_scalar(c, n, "10.0.0.0", &s);
	if (rc == 0 && emu_parse_ipv4(s, ip, msg, sizeof(msg)) != 0)
		rc = ctl_err(c, n, "%s", msg);
	ctl_pop(c, old);
	return rc;
}

/* One tier's DataRate or Delay value into @p out. */
static int tier_value(struct ctl_ctx *c, const struct ctl_ynode *n, bool rate, uint64_t *out)
{
	return ctl_val_u64(c, n, rate ? emu_parse_datarate : emu_parse_timeval, rate ? "400Gbps" : "500ns", out);
}

/*
 * DataRate (@p rate) or Delay: a map of the type's switch tiers ({leaf: 400Gbps, spine: 800Gbps}), or one value
 * for every switch tier. The host tier is the NIC's own attribute, not a key here.
 */
static int topo_tiers(struct ctl_ctx *c, const struct ctl_ynode *v, bool rate, uint8_t ntype, uint64_t *vals)
{
	const char *key = rate ? "DataRate" : "Delay";
	const struct ctl_ynode *m = ctl_y_get(v, key), *hk;
	struct ctl_key keys[NET_TOPO_TIERS];
	size_t n = 0, old;
	int rc = 0;

	if (m == NULL)
		return 0;
	old = ctl_push(c, key);
	if (m->type == CTL_Y_SCALAR && !ctl_y_is_null(m)) {
		uint64_t all;

		rc = tier_value(c, m, rate, &all);
		for (uint32_t t = 1; rc == 0 && net_topo_tier_name(ntype, t) != NULL; t++)
			vals[t] = all;
		ctl_pop(c, old);
		return rc;
	}
	if ((hk = key_node(m, "host")) != NULL) {
		rc = err_at_key(c, "host", hk, "the hosts' %s is the NIC's; set nic.NetworkInterface.%s", key,
				rate ? "UplinkNetworkInterface.DataRate" : "TransmissionMedium.Delay");
		ctl_pop(c, old);
		return rc;
	}
	for (uint32_t t = 1; net_topo_tier_name(ntype, t) != NULL; t++)
		keys[n++] = (struct ctl_key){ net_topo_tier_name(ntype, t), false, NULL };
	rc = ctl_walk_map(c, m, keys, n, NULL, "");
	for (uint32_t t = 1; rc == 0 && t <= n; t++) {
		const struct ctl_ynode *tv = ctl_y_get(m, keys[t - 1].name);

		if (tv == NULL)
			continue;
		size_t o2 = ctl_push(c, keys[t - 1].name);

		rc = tier_value(c, tv, rate, &vals[t]);
		ctl_pop(c, o2);
	}
	ctl_pop(c, old);
	return rc;
}

/* Fill cfg->hosts from the built topology: host0.., the builder's IPs and port MACs, and as gateway the MAC of the
 * switch port at the other end of the host's link (none in a pair: the hosts face each other). */
static int hosts_from(struct ctl_config *cfg, const struct net_topo *t)
{
	cfg->hosts = calloc(t->size.hosts, sizeof(*cfg->hosts));
	if (cfg->hosts == NULL)
		return -ENOMEM;
	for (uint32_t h = 0; h < t->size.hosts; h++) {
		const struct net_topo_dev *d = &t->devs[h];

		snprintf(cfg->hosts[h].name, sizeof(cfg->hosts[h].name), "%s", d->name);
		cfg->hosts[h].ip = d->ip;
		memcpy(cfg->hosts[h].mac, t->ports[d->port0].mac, 6);
		struct net_topo_end peer = net_topo_peer(t, h, 0);
		const struct net_topo_dev *pd = &t->devs[peer.dev];

		cfg->hosts[h].has_gw = pd->kind == NET_TOPO_SWITCH;
		if (cfg->hosts[h].has_gw)
			memcpy(cfg->hosts[h].gw_mac, t->ports[pd->port0 + peer.port].mac, 6);
	}
	cfg->n_hosts = t->size.hosts;
	return 0;
}

struct ext_host_obj {
	struct ctl_config *cfg;
	int host;
};

static int ext_host_name(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	struct ext_host_obj *o = obj;
	uint32_t h;
	int rc = ctl_val_host(c, v, o->cfg, &h);

	if (rc == 0)
		o->host = (int)h;
	return rc;
}

static int ext_host_external(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	struct ext_host_obj *o = obj;
	bool ext;
	int rc = ctl_val_bool(c, v, &ext);

	if (rc == 0 && o->host >= 0)
		o->cfg->hosts[o->host].external = ext;
	return rc;
}

static int ext_host_mac(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	struct ext_host_obj *o = obj;
	char msg[256];
	const char *s;
	int rc = ctl_scalar(c, v, "\"02:00:00:00:00:04\"", &s);

	if (rc != 0 || o->host < 0)
		return rc;
	if (emu_parse_mac(s, o->cfg->hosts[o->host].mac, msg, sizeof(msg)) != 0)
		return ctl_err(c, v, "%s", msg);
	o->cfg->hosts[o->host].mac_static = true;
	return 0;
}

/*
 * topology.hosts[i] of a generated fabric: {name, external, mac} changes host `name` of the fabric: external (a
 * real device behind its switch port, real time only) and the MAC the switches address it at.
 */
static int ext_host_item(struct ctl_ctx *c, const struct ctl_ynode *item, uint32_t idx, void *obj)
{
	static const struct ctl_key keys[] = { { "name", true, ext_host_name }, { "external", false, NULL },
					       { "mac", false, NULL } };
	struct ext_host_obj o = { .cfg = obj, .host = -1 };
	int rc = ctl_walk_map(c, item, keys, sizeof(keys) / sizeof(keys[0]), &o,
			      "e.g. {name: host3, external: true, mac: \"02:00:00:00:00:04\"}");
	const struct ctl_ynode *ext = ctl_y_get(item, "external"), *mac = ctl_y_get(item, "mac");
	size_t old;

	(void)idx;
	if (rc == 0 && ext != NULL) {
		old = ctl_push(c, "external");
		rc = ext_host_external(c, ext, &o);
		ctl_pop(c, old);
	}
	if (rc == 0 && mac != NULL) {
		old = ctl_push(c, "mac");
		rc = ext_host_mac(c, mac, &o);
		ctl_pop(c, old);
	}
	return rc;
}

/* The spec the builder gets: the stored one with the host tier set from the NIC. */
static struct net_topo_spec full_spec(const struct ctl_config *cfg)
{
	struct net_topo_spec s = cfg->topo_spec;

	s.bps[0] = ctl_config_host_bps(cfg);
	s.delay[0] = ctl_config_host_delay(cfg);
	return s;
}

/* A generated topology: its parameters, checked by the builder, then built into *@p out for the hosts and faults. */
static int topo_generated(struct ctl_ctx *c, const struct ctl_ynode *v, struct ctl_config *cfg, unsigned type,
			  struct net_topo **out)
{
	struct net_topo_spec *sp = &cfg->topo_spec, full;
	uint8_t ntype = (uint8_t)(type - T_PAIR), param = NET_TOPO_P_TYPE;
	char msg[512];
	int rc;

	cfg->topo_type = CTL_TOPO_GENERATED;
	net_topo_spec_defaults(sp, ntype);
	if ((rc = topo_count(c, v, "hosts_per_rack", &sp->hosts_per_rack)) != 0 ||
	    (rc = topo_count(c, v, "racks", &sp->racks)) != 0 || (rc = topo_count(c, v, "spines", &sp->spines)) != 0 ||
	    (rc = topo_count(c, v, "oversubscription", &sp->oversubscription)) != 0 ||
	    (rc = topo_count(c, v, "k", &sp->k)) != 0 || (rc = topo_ip_base(c, v, &sp->ip_base)) != 0 ||
	    (rc = topo_tiers(c, v, true, ntype, sp->bps)) != 0 ||
	    (rc = topo_tiers(c, v, false, ntype, sp->delay)) != 0)
		return rc;
	/* The NIC section comes later: its defaults stand in for the host tier, which only sets rates. */
	sp->bps[0] = 0;
	sp->delay[0] = 0;
	full = full_spec(cfg);
	if (net_topo_check(&full, NULL, &param, msg, sizeof(msg)) != 0) {
		const char *key = param < sizeof(param_keys) / sizeof(param_keys[0]) ? param_keys[param] : "type";
		const struct ctl_ynode *at = ctl_y_get(v, key);

		return at != NULL ? err_at_key(c, key, at, "%s", msg) : ctl_err(c, v, "%s", msg);
	}
	return ctl_topo_generated_build(c, v, cfg, out);
}

int ctl_topo_generated_build(struct ctl_ctx *c, const struct ctl_ynode *v, struct ctl_config *cfg,
			     struct net_topo **out)
{
	struct net_topo_spec full = full_spec(cfg);
	char msg[512];
	int rc;

	cfg->topo_type = CTL_TOPO_GENERATED;
	if ((rc = net_topo_create(&full, out, msg, sizeof(msg))) != 0)
		return rc;
	if ((rc = hosts_from(cfg, *out)) != 0)
		return rc;
	const struct ctl_ynode *hosts = ctl_y_get(v, "hosts");

	if (hosts == NULL)
		return 0;
	size_t old = ctl_push(c, "hosts");
	rc = ctl_walk_seq(c, hosts, ext_host_item, cfg,
			  "in a generated fabric, hosts lists changes to its hosts, e.g. [{name: host3, external: true}]");
	ctl_pop(c, old);
	return rc;
}

/* ---- Link names ---- */

/* "host0..host15, leaf0..leaf3, spine0..spine3" into @p buf. */
static void dev_ranges(const struct net_topo *t, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (uint32_t tier = 0; tier < t->size.n_tiers && used < len; tier++) {
		const char *p = net_topo_tier_name(t->spec.type, tier);
		int w = t->size.devs[tier] == 1
				? snprintf(buf + used, len - used, "%s%s0", tier ? ", " : "", p)
				: snprintf(buf + used, len - used, "%s%s0..%s%u", tier ? ", " : "", p, p,
					   t->size.devs[tier] - 1);

		used += w > 0 ? (size_t)w : 0;
	}
}

/* "host0-leaf0, leaf0-spine0, ... (5 links)": the links of device @p dev. */
static void dev_links(const struct net_topo *t, uint32_t dev, char *buf, size_t len)
{
	const struct net_topo_dev *d = &t->devs[dev];
	size_t used = 0;

	buf[0] = '\0';
	for (uint32_t p = 0; p < d->n_ports && p < 4 && used < len; p++) {
		int w = snprintf(buf + used, len - used, "%s%s", p ? ", " : "",
				 t->links[t->ports[d->port0 + p].link].name);

		used += w > 0 ? (size_t)w : 0;
	}
	if (d->n_ports > 4 && used < len)
		snprintf(buf + used, len - used, ", ... (%u links)", d->n_ports);
}

/* The "unknown link" error for @p s in a generated topology, with what is wrong with the name. */
static int link_unknown(struct ctl_ctx *c, const struct ctl_ynode *v, const struct net_topo *t, const char *s)
{
	char a[NET_TOPO_LINK_NAME_MAX], list[384], rev[2 * NET_TOPO_LINK_NAME_MAX];
	const char *dash = strchr(s, '-');
	int da, db;

	if (dash == NULL || (size_t)(dash - s) >= sizeof(a))
		return ctl_err(c, v, "unknown link '%s'; a link is named after its two ends, lower tier first, e.g. %s",
			       s, t->links[0].name);
	memcpy(a, s, (size_t)(dash - s));
	a[dash - s] = '\0';
	da = net_topo_dev_find(t, a);
	db = net_topo_dev_find(t, dash + 1);
	if (da < 0 || db < 0) {
		dev_ranges(t, list, sizeof(list));
		return ctl_err(c, v, "unknown link '%s': no device '%s'; devices are %s", s, da < 0 ? a : dash + 1,
			       list);
	}
	snprintf(rev, sizeof(rev), "%s-%s", dash + 1, a);
	if (net_topo_link_find(t, rev) >= 0)
		return ctl_err(c, v, "unknown link '%s'; did you mean '%s'? a link is named lower tier first", s, rev);
	dev_links(t, (uint32_t)da, list, sizeof(list));
	return ctl_err(c, v, "unknown link '%s': %s and %s are not linked; %s's links are %s", s, a, dash + 1, a,
		       list);
}

/* The explicit topology's links, with the message the captures section gives. */
static int link_explicit(struct ctl_ctx *c, const struct ctl_ynode *v, const struct ctl_config *cfg, const char *s,
			 uint32_t *idx)
{
	char names[512];
	size_t used = 0;

	for (uint32_t i = 0; i < cfg->n_links; i++)
		if (strcmp(cfg->links[i].name, s) == 0) {
			*idx = i;
			return 0;
		}
	if (cfg->n_links == 0)
		return ctl_err(c, v, "unknown link '%s'; the topology has no links", s);
	names[0] = '\0';
	for (uint32_t i = 0; i < cfg->n_links && used < sizeof(names); i++) {
		int w = snprintf(names + used, sizeof(names) - used, "%s%s", i ? ", " : "", cfg->links[i].name);

		used += w > 0 ? (size_t)w : 0;
	}
	return ctl_err(c, v, "unknown link '%s'; links are %s", s, names);
}

/* Resolve against @p t when the topology is generated, else against cfg->links. */
static int link_resolve(struct ctl_ctx *c, const struct ctl_ynode *v, const struct ctl_config *cfg,
			const struct net_topo *t, uint32_t *idx)
{
	const char *s;
	int rc = ctl_scalar(c, v, t != NULL ? t->links[0].name : "l0", &s), i;

	if (rc != 0)
		return rc;
	if (t == NULL)
		return link_explicit(c, v, cfg, s, idx);
	if ((i = net_topo_link_find(t, s)) < 0)
		return link_unknown(c, v, t, s);
	*idx = (uint32_t)i;
	return 0;
}

int ctl_val_link(struct ctl_ctx *c, const struct ctl_ynode *v, const struct ctl_config *cfg, uint32_t *idx)
{
	struct net_topo *t = NULL;
	int rc;

	if (cfg->topo_type != CTL_TOPO_GENERATED)
		return link_resolve(c, v, cfg, NULL, idx);
	if ((rc = ctl_config_topo_build(cfg, &t, c->err, c->errlen)) != 0)
		return rc;
	rc = link_resolve(c, v, cfg, t, idx);
	net_topo_destroy(t);
	return rc;
}

/* Resolve "DEVICE:INDEX" against the built topology @p t: the link on that port and which end of it it is. */
static int dev_port_resolve(struct ctl_ctx *c, const struct ctl_ynode *v, const struct net_topo *t, const char *s,
			    uint32_t *link, uint8_t *end)
{
	char name[NET_TOPO_DEV_NAME_MAX], list[384], *stop;
	const char *colon = strrchr(s, ':');
	unsigned long port;
	int d;

	if (colon == NULL || colon == s || (size_t)(colon - s) >= sizeof(name) || colon[1] < '0' || colon[1] > '9')
		return ctl_err(c, v, "bad port '%s'; a device port is DEVICE:INDEX, e.g. leaf0:5 (docs/topology.md)", s);
	memcpy(name, s, (size_t)(colon - s));
	name[colon - s] = '\0';
	errno = 0;
	port = strtoul(colon + 1, &stop, 10);
	if ((d = net_topo_dev_find(t, name)) < 0) {
		dev_ranges(t, list, sizeof(list));
		return ctl_err(c, v, "unknown device '%s' in port '%s'; devices are %s", name, s, list);
	}
	const struct net_topo_dev *dv = &t->devs[d];

	if (*stop != '\0' || errno != 0 || port >= dv->n_ports)
		return ctl_err(c, v, "%s has no port '%s'; its ports are 0 to %u (down ports first, then up ports)",
			       name, colon + 1, dv->n_ports - 1);
	*link = t->ports[dv->port0 + port].link;
	*end = t->ports[dv->port0 + port].end;
	return 0;
}

int ctl_val_dev_port(struct ctl_ctx *c, const struct ctl_ynode *v, const struct ctl_config *cfg, uint32_t *link,
		     uint8_t *end)
{
	struct net_topo *t = NULL;
	const char *s;
	int rc = ctl_scalar(c, v, "leaf0:5", &s);

	if (rc != 0)
		return rc;
	if (cfg->topo_type != CTL_TOPO_GENERATED)
		return ctl_err(c, v, "port '%s': device ports are those of a generated topology; in an explicit one "
			       "capture a link with link: NAME", s);
	if ((rc = ctl_config_topo_build(cfg, &t, c->err, c->errlen)) != 0)
		return rc;
	rc = dev_port_resolve(c, v, t, s, link, end);
	net_topo_destroy(t);
	return rc;
}

int ctl_config_topo_build(const struct ctl_config *cfg, struct net_topo **out, char *err, size_t errlen)
{
	struct net_topo_spec s = full_spec(cfg);

	*out = NULL;
	if (cfg->topo_type != CTL_TOPO_GENERATED) {
		if (err != NULL && errlen > 0)
			snprintf(err, errlen, "%s: the topology is explicit; only a generated one is built", cfg->path);
		return -EINVAL;
	}
	return net_topo_create(&s, out, err, errlen);
}

/* ---- Faults ---- */

struct fault_obj {
	struct ctl_config *cfg;
	const struct net_topo *topo;  /* NULL: explicit */
	struct ctl_fault *f;
	bool has_down, has_up, has_loss;
};

static int fault_link(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	struct fault_obj *o = obj;

	return link_resolve(c, v, o->cfg, o->topo, &o->f->link);
}

static int fault_down(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	struct fault_obj *o = obj;

	o->has_down = true;
	return ctl_val_u64(c, v, emu_parse_timeval, "10us", &o->f->down);
}

static int fault_up(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	struct fault_obj *o = obj;

	o->has_up = true;
	return ctl_val_u64(c, v, emu_parse_timeval, "20us", &o->f->up);
}

static int fault_loss(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	struct fault_obj *o = obj;
	char msg[256];
	const char *s;
	int rc = ctl_scalar(c, v, "0.01", &s);

	o->has_loss = true;
	if (rc == 0 && emu_parse_ppm(s, &o->f->loss_ppm, msg, sizeof(msg)) != 0)
		rc = ctl_err(c, v, "%s", msg);
	if (rc == 0 && o->f->loss_ppm == 0)
		rc = ctl_err(c, v, "loss %s loses nothing; a loss rate is above 0 and at most 1, e.g. 0.01", s);
	return rc;
}

/* The kind of entry @p item is: down (and up) or loss, one of them. */
static int fault_kind(struct ctl_ctx *c, const struct ctl_ynode *item, struct fault_obj *o)
{
	struct ctl_fault *f = o->f;

	if (o->has_up && !o->has_down)
		return err_at_key(c, "up", ctl_y_get(item, "up"), "up needs down; %s", FAULT_EXAMPLE);
	if (!o->has_down && !o->has_loss)
		return ctl_err(c, item, "a fault needs down or loss; %s", FAULT_EXAMPLE);
	if (o->has_down && o->has_loss)
		return err_at_key(c, "loss", ctl_y_get(item, "loss"),
				  "a fault is down/up or loss, not both; give them as two faults");
	f->kind = o->has_loss ? CTL_FAULT_LOSS : CTL_FAULT_DOWN;
	if (!o->has_up)
		f->up = EMU_PS_NEVER;
	if (f->kind == CTL_FAULT_DOWN && o->has_up && f->up <= f->down)
		return err_at_key(c, "up", ctl_y_get(item, "up"), "up %s is not after down %s; a link comes up after it "
				  "goes down", ctl_y_get(item, "up")->text, ctl_y_get(item, "down")->text);
	return 0;
}

/* Against the entries before it: down windows of one link do not overlap, a link has at most one loss rate. */
static int fault_clash(struct ctl_ctx *c, const struct ctl_ynode *item, struct fault_obj *o)
{
	const struct ctl_fault *f = o->f;

	for (const struct ctl_fault *p = o->cfg->faults; p < f; p++) {
		uint32_t i = (uint32_t)(p - o->cfg->faults);

		if (p->link != f->link || p->kind != f->kind)
			continue;
		if (f->kind == CTL_FAULT_LOSS)
			return err_at_key(c, "loss", ctl_y_get(item, "loss"), "the link already has a loss rate, "
					  "topology.faults.%u; give one loss per link", i);
		if (f->down < p->up && p->down < f->up)
			return err_at_key(c, "down", ctl_y_get(item, "down"), "the link is already down then, "
					  "topology.faults.%u; a link's down windows do not overlap", i);
	}
	return 0;
}

static int fault_item(struct ctl_ctx *c, const struct ctl_ynode *item, uint32_t idx, void *obj)
{
	static const struct ctl_key keys[] = {
		{ "link", true, fault_link }, { "down", false, fault_down }, { "up", false, fault_up },
		{ "loss", false, fault_loss },
	};
	struct fault_obj *o = obj;
	int rc;

	o->f = &o->cfg->faults[idx];
	o->has_down = o->has_up = o->has_loss = false;
	rc = ctl_walk_map(c, item, keys, sizeof(keys) / sizeof(keys[0]), o, "a fault needs link and down or loss, "
			  FAULT_EXAMPLE);
	if (rc == 0 && (rc = fault_kind(c, item, o)) == 0)
		rc = fault_clash(c, item, o);
	if (rc == 0)
		o->cfg->n_faults = idx + 1;
	return rc;
}

static int topo_faults(struct ctl_ctx *c, const struct ctl_ynode *v, struct ctl_config *cfg,
		       const struct net_topo *t)
{
	const struct ctl_ynode *fv = ctl_y_get(v, "faults");
	struct fault_obj o = { .cfg = cfg, .topo = t };
	uint32_t n = ctl_seq_len(fv);
	int rc;

	if (fv == NULL)
		return 0;
	size_t old = ctl_push(c, "faults");

	if (n > CTL_FAULTS_MAX)
		rc = ctl_err(c, fv, "%u faults; at most %u", n, CTL_FAULTS_MAX);
	else if (t == NULL && cfg->n_links == 0 && n > 0)
		rc = ctl_err(c, fv, "the topology has no links to fault");
	else
		rc = ctl_walk_seq(c, fv, fault_item, &o, "e.g. faults: [{link: host0-tor0, down: 10us, up: 20us}]");
	ctl_pop(c, old);
	return rc;
}

int ctl_sec_topology(struct ctl_ctx *c, const struct ctl_ynode *v, struct ctl_config *cfg)
{
	struct ctl_key keys[N_TOPO_KEYS];
	struct net_topo *t = NULL;
	unsigned type;
	int rc;

	const struct ctl_ynode *tv = ctl_y_get(v, "type");

	if (tv != NULL && tv->type == CTL_Y_SCALAR && strcmp(tv->text, "htsim") == 0) {
		rc = ctl_topo_htsim(c, v, cfg, &t);
		if (rc == 0)
			rc = topo_faults(c, v, cfg, t);
		net_topo_destroy(t);
		return rc;
	}
	for (size_t i = 0; i < N_TOPO_KEYS; i++)
		keys[i] = (struct ctl_key){ topo_keys[i].name, false, NULL };
	rc = ctl_walk_map(c, v, keys, N_TOPO_KEYS, NULL, "e.g. " TOPO_EXAMPLE);
	if (rc == 0)
		rc = topo_type(c, v, &type);
	if (rc == 0)
		rc = topo_keys_fit(c, v, type);
	if (rc == 0)
		rc = type == T_EXPLICIT ? ctl_topo_explicit(c, v, cfg) : topo_generated(c, v, cfg, type, &t);
	if (rc == 0)
		rc = topo_faults(c, v, cfg, t);
	net_topo_destroy(t);
	return rc;
}
