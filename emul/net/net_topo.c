/* The topology builder: counts by formula, devices and ports, links between tiers, names, addresses, routes. */
#include "net_topo.h"

#include <assert.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A fat tree of k = 62 has 59,582 hosts; k = 64 would have 65,536, one more than a host MAC can number. */
#define NET_TOPO_K_MAX 64u /* k^3 / 4 = 65,536 hosts: NET_TOPO_GEN_HOSTS_MAX */

static const char *const type_names[NET_TOPO_TYPE_COUNT] = { "pair", "rack", "leaf-spine", "fat-tree" };

/* The name prefix of each tier's devices, per type (the naming: host, tor/leaf, agg, spine/core). */
static const char *const tier_names[NET_TOPO_TYPE_COUNT][NET_TOPO_TIERS] = {
	[NET_TOPO_PAIR] = { "host" },
	[NET_TOPO_RACK] = { "host", "tor" },
	[NET_TOPO_LEAF_SPINE] = { "host", "leaf", "spine" },
	[NET_TOPO_FAT_TREE] = { "host", "tor", "agg", "core" },
};

void net_topo_spec_defaults(struct net_topo_spec *spec, uint8_t type)
{
	memset(spec, 0, sizeof(*spec));
	spec->type = type;
	for (int t = 0; t < NET_TOPO_TIERS; t++) {
		/* Scala defaults: NIC and switch DataRate 400Gbps; NIC Delay 100ns, switch Delay 500ns. */
		spec->bps[t] = 400000000000ULL;
		spec->delay[t] = t == 0 ? 100 * 1000ULL : 500 * 1000ULL;
	}
	spec->ip_base = 0x0a000000u; /* 10.0.0.0: host0 is 10.0.0.1 */
}

const char *net_topo_type_name(uint8_t type)
{
	return type < NET_TOPO_TYPE_COUNT ? type_names[type] : NULL;
}

const char *net_topo_tier_name(uint8_t type, uint32_t tier)
{
	return type < NET_TOPO_TYPE_COUNT && tier < NET_TOPO_TIERS ? tier_names[type][tier] : NULL;
}

/* Write the message and the parameter at fault; returns -EINVAL. */
__attribute__((format(printf, 5, 6))) static int bad(uint8_t *param, uint8_t which, char *err, size_t errlen,
						      const char *fmt, ...)
{
	va_list ap;

	if (param != NULL)
		*param = which;
	if (err != NULL && errlen > 0) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* Counts of a leaf-spine: racks leaves of hosts_per_rack hosts, each leaf with one uplink to every spine. */
static int size_leaf_spine(const struct net_topo_spec *sp, struct net_topo_size *s, uint8_t *param, char *err,
			   size_t errlen)
{
	uint32_t hpr = sp->hosts_per_rack, spines = sp->spines, over = sp->oversubscription;
	uint64_t hosts = (uint64_t)hpr * sp->racks;

	if (hpr == 0)
		return bad(param, NET_TOPO_P_HOSTS_PER_RACK, err, errlen,
			   "hosts_per_rack is 0; a leaf has at least 1 host, e.g. 4");
	if (sp->racks == 0)
		return bad(param, NET_TOPO_P_RACKS, err, errlen, "racks is 0; a leaf-spine has at least 1 rack, e.g. 4");
	if (hosts > NET_TOPO_HOSTS_MAX)
		return bad(param, NET_TOPO_P_RACKS, err, errlen, "%u racks of %u hosts are %llu hosts; at most %u",
			   sp->racks, hpr, (unsigned long long)hosts, NET_TOPO_HOSTS_MAX);
	if (over != 0 && hpr % over != 0)
		return bad(param, NET_TOPO_P_OVERSUBSCRIPTION, err, errlen,
			   "hosts_per_rack %u is not a multiple of oversubscription %u; a leaf has hosts_per_rack / "
			   "oversubscription uplinks, one to each spine: give spines instead", hpr, over);
	if (over != 0 && spines != 0 && spines != hpr / over)
		return bad(param, NET_TOPO_P_OVERSUBSCRIPTION, err, errlen,
			   "spines %u and oversubscription %u disagree: hosts_per_rack / oversubscription = %u spines; "
			   "give one of them", spines, over, hpr / over);
	if (spines == 0)
		spines = hpr / (over != 0 ? over : 1);
	if ((uint64_t)hpr + spines > NET_TOPO_PORTS_MAX)
		return bad(param, NET_TOPO_P_SPINES, err, errlen,
			   "a leaf with %u hosts and %u spines%s has %llu ports; a switch has at most %u", hpr, spines,
			   sp->spines ? "" : " (hosts_per_rack / oversubscription)", (unsigned long long)hpr + spines,
			   NET_TOPO_PORTS_MAX);
	s->n_tiers = 3;
	s->devs[0] = (uint32_t)hosts;
	s->devs[1] = sp->racks;
	s->devs[2] = spines;
	s->down[1] = hpr;
	s->up[1] = spines;
	s->down[2] = sp->racks;
	s->below[1] = hpr;
	s->below[2] = (uint32_t)hosts;
	return 0;
}

/* Counts of a k-ary fat tree: k pods of k/2 tors and k/2 aggs, (k/2)^2 cores, k/2 hosts per tor. */
static int size_fat_tree(const struct net_topo_spec *sp, struct net_topo_size *s, uint8_t *param, char *err,
			 size_t errlen)
{
	uint32_t k = sp->k, h = k / 2;

	if (k < 2 || k % 2 != 0)
		return bad(param, NET_TOPO_P_K, err, errlen,
			   "k %u is not an even number of 2 or more; a fat tree's k is its switches' port count, e.g. 8",
			   k);
	if (k > NET_TOPO_K_MAX)
		return bad(param, NET_TOPO_P_K, err, errlen, "k %u gives more than %u hosts (k^3 / 4); k is at most %u",
			   k, NET_TOPO_K_MAX * NET_TOPO_K_MAX * NET_TOPO_K_MAX / 4, NET_TOPO_K_MAX);
	s->n_tiers = 4;
	s->devs[0] = k * h * h;     /* k^3 / 4 */
	s->devs[1] = k * h;         /* k^2 / 2 tors */
	s->devs[2] = k * h;         /* k^2 / 2 aggs */
	s->devs[3] = h * h;         /* k^2 / 4 cores */
	s->down[1] = s->up[1] = h;
	s->down[2] = s->up[2] = h;
	s->down[3] = k;
	s->below[1] = h;
	s->below[2] = h * h;        /* a pod */
	s->below[3] = s->devs[0];
	return 0;
}

/* The checks every type shares: addresses and rates. */
static int check_common(const struct net_topo_spec *sp, const struct net_topo_size *s, uint8_t *param, char *err,
			size_t errlen)
{
	if ((uint64_t)sp->ip_base + s->hosts > UINT32_MAX)
		return bad(param, NET_TOPO_P_IP_BASE, err, errlen,
			   "ip_base %u.%u.%u.%u leaves room for %u hosts, not %u; lower ip_base, e.g. 10.0.0.0",
			   sp->ip_base >> 24, (sp->ip_base >> 16) & 0xff, (sp->ip_base >> 8) & 0xff, sp->ip_base & 0xff,
			   UINT32_MAX - sp->ip_base, s->hosts);
	for (uint32_t t = 0; t < s->n_tiers; t++)
		if (sp->bps[t] == 0)
			return bad(param, NET_TOPO_P_DATARATE, err, errlen,
				   "DataRate of the %s tier is 0; a DataRate is above 0, e.g. 400Gbps",
				   tier_names[sp->type][t]);
	return 0;
}

int net_topo_check(const struct net_topo_spec *spec, struct net_topo_size *size, uint8_t *param, char *err,
		   size_t errlen)
{
	struct net_topo_size s = { 0 };
	int rc = 0;

	s.below[0] = 1;
	s.up[0] = 1;
	switch (spec->type) {
	case NET_TOPO_PAIR:
		s.n_tiers = 1;
		s.devs[0] = 2;
		break;
	case NET_TOPO_RACK:
		if (spec->hosts_per_rack == 0)
			return bad(param, NET_TOPO_P_HOSTS_PER_RACK, err, errlen,
				   "hosts_per_rack is 0; a rack has at least 1 host, e.g. 8");
		if (spec->hosts_per_rack > NET_TOPO_HOSTS_MAX)
			return bad(param, NET_TOPO_P_HOSTS_PER_RACK, err, errlen, "%u hosts; at most %u",
				   spec->hosts_per_rack, NET_TOPO_HOSTS_MAX);
		s.n_tiers = 2;
		s.devs[0] = spec->hosts_per_rack;
		s.devs[1] = 1;
		s.down[1] = spec->hosts_per_rack;
		s.below[1] = spec->hosts_per_rack;
		break;
	case NET_TOPO_LEAF_SPINE:
		rc = size_leaf_spine(spec, &s, param, err, errlen);
		break;
	case NET_TOPO_FAT_TREE:
		rc = size_fat_tree(spec, &s, param, err, errlen);
		break;
	default:
		return bad(param, NET_TOPO_P_TYPE, err, errlen,
			   "unknown topology type %u; use pair, rack, leaf-spine or fat-tree", spec->type);
	}
	if (rc != 0)
		return rc;
	/* Every count is bounded above (hosts <= 65535, ports <= 65535 per switch), so the sums fit 32 bits. */
	s.hosts = s.devs[0];
	s.links = spec->type == NET_TOPO_PAIR ? 1 : 0;
	for (uint32_t t = 0; t < s.n_tiers; t++) {
		s.devices += s.devs[t];
		s.ports += s.devs[t] * (s.down[t] + s.up[t]);
		if (t + 1 < s.n_tiers)
			s.links += s.devs[t] * s.up[t];
	}
	s.switches = s.devices - s.hosts;
	if ((rc = check_common(spec, &s, param, err, errlen)) != 0)
		return rc;
	if (size != NULL)
		*size = s;
	return 0;
}

/*
 * Hosts: 02:00 + index + 1 in 32 bits, which below 65,536 is the explicit default's 02:00:00:00 + 16 bits (and the
 * 65,536th host of a k = 64 fat tree 02:00:00:01:00:00). Switches: 02, tier, node (16), port (16).
 */
static void make_mac(uint8_t mac[6], uint32_t tier, uint32_t node, uint32_t port)
{
	uint32_t hi = tier == 0 ? (node + 1) >> 16 : node, lo = tier == 0 ? (node + 1) & 0xffff : port;

	assert(hi <= 0xffff && port <= 0xffff);
	mac[0] = 0x02; /* locally administered, unicast */
	mac[1] = (uint8_t)tier;
	mac[2] = (uint8_t)(hi >> 8);
	mac[3] = (uint8_t)hi;
	mac[4] = (uint8_t)(lo >> 8);
	mac[5] = (uint8_t)lo;
}

static void make_devs(struct net_topo *t)
{
	const struct net_topo_size *s = &t->size;
	uint32_t i = 0, port = 0;

	for (uint32_t tier = 0; tier < s->n_tiers; tier++) {
		/* Subtrees of this tier: consecutive runs of below[tier] hosts, each shared by devs / subtrees devices. */
		uint32_t per_subtree = s->devs[tier] / (s->hosts / s->below[tier]);

		t->tier_first[tier] = i;
		for (uint32_t n = 0; n < s->devs[tier]; n++, i++) {
			struct net_topo_dev *d = &t->devs[i];

			snprintf(d->name, sizeof(d->name), "%s%u", tier_names[t->spec.type][tier], n);
			d->kind = tier == 0 ? NET_TOPO_HOST : NET_TOPO_SWITCH;
			d->tier = (uint8_t)tier;
			d->node = n;
			d->ip = tier == 0 ? t->spec.ip_base + n + 1 : 0;
			d->n_down = s->down[tier];
			d->n_up = s->up[tier];
			d->n_ports = d->n_down + d->n_up;
			d->port0 = port;
			d->host_lo = n / per_subtree * s->below[tier];
			d->n_below = s->below[tier];
			d->below_per_down = d->n_down ? s->below[tier] / d->n_down : 0;
			for (uint32_t p = 0; p < d->n_ports; p++)
				make_mac(t->ports[port + p].mac, tier, n, p);
			port += d->n_ports;
		}
	}
}

/* The device and port at the top of uplink @p j of node @p n of tier @p tier (tier + 1 < n_tiers). */
static struct net_topo_end up_peer(const struct net_topo *t, uint32_t tier, uint32_t n, uint32_t j)
{
	const struct net_topo_size *s = &t->size;
	uint32_t h = t->spec.k / 2, node, port;

	if (tier == 0) {            /* host n is port n % hosts_per_switch of its tor or leaf */
		node = n / s->down[1];
		port = n % s->down[1];
	} else if (t->spec.type == NET_TOPO_LEAF_SPINE) { /* leaf n, uplink j: spine j, its port n */
		node = j;
		port = n;
	} else if (tier == 1) {     /* fat-tree tor n of pod n / h, uplink j: agg j of the pod, its port n % h */
		node = n / h * h + j;
		port = n % h;
	} else {                    /* fat-tree agg n (pod n / h, j-th of it), uplink m = j: core (n % h) * h + m */
		node = n % h * h + j;
		port = n / h;
	}
	return (struct net_topo_end){ .dev = t->tier_first[tier + 1] + node, .port = port };
}

static void set_link(struct net_topo *t, uint32_t li, struct net_topo_end a, struct net_topo_end b)
{
	struct net_topo_link *l = &t->links[li];
	const struct net_topo_dev *da = &t->devs[a.dev], *db = &t->devs[b.dev];
	uint64_t ra = t->spec.bps[da->tier], rb = t->spec.bps[db->tier];

	snprintf(l->name, sizeof(l->name), "%s-%s", da->name, db->name);
	l->a = a;
	l->b = b;
	l->bps = ra < rb ? ra : rb;           /* the lower of the two ends' DataRate */
	l->delay = t->spec.delay[da->tier];   /* the lower-tier end's Delay */
	t->ports[da->port0 + a.port].link = li;
	t->ports[da->port0 + a.port].end = 0;
	t->ports[db->port0 + b.port].link = li;
	t->ports[db->port0 + b.port].end = 1;
}

static void make_links(struct net_topo *t)
{
	const struct net_topo_size *s = &t->size;
	uint32_t li = 0;

	if (t->spec.type == NET_TOPO_PAIR) {
		set_link(t, 0, (struct net_topo_end){ 0, 0 }, (struct net_topo_end){ 1, 0 });
		return;
	}
	for (uint32_t tier = 0; tier + 1 < s->n_tiers; tier++)
		for (uint32_t n = 0; n < s->devs[tier]; n++) {
			uint32_t dev = t->tier_first[tier] + n;

			for (uint32_t j = 0; j < s->up[tier]; j++, li++)
				set_link(t, li, (struct net_topo_end){ dev, s->down[tier] + j }, up_peer(t, tier, n, j));
		}
	assert(li == s->links);
}

int net_topo_create(const struct net_topo_spec *spec, struct net_topo **out, char *err, size_t errlen)
{
	struct net_topo_size s;
	struct net_topo *t;
	int rc = net_topo_check(spec, &s, NULL, err, errlen);

	*out = NULL;
	if (rc != 0)
		return rc;
	t = calloc(1, sizeof(*t));
	if (t == NULL)
		goto nomem;
	t->spec = *spec;
	t->size = s;
	if (spec->type == NET_TOPO_LEAF_SPINE)
		t->spec.spines = s.devs[2];
	t->devs = calloc(s.devices, sizeof(*t->devs));
	t->ports = calloc(s.ports, sizeof(*t->ports));
	t->links = calloc(s.links, sizeof(*t->links));
	if (t->devs == NULL || t->ports == NULL || t->links == NULL)
		goto nomem;
	make_devs(t);
	make_links(t);
	*out = t;
	return 0;
nomem:
	net_topo_destroy(t);
	if (err != NULL && errlen > 0)
		snprintf(err, errlen, "out of memory for a topology of %u devices and %u links", s.devices, s.links);
	return -ENOMEM;
}

void net_topo_destroy(struct net_topo *t)
{
	if (t == NULL)
		return;
	free(t->links);
	free(t->ports);
	free(t->devs);
	free(t);
}

int net_topo_route(const struct net_topo *t, uint32_t dev, uint32_t host, struct net_topo_group *g)
{
	const struct net_topo_dev *d;

	if (dev >= t->size.devices || host >= t->size.hosts)
		return -EINVAL;
	if (dev == host)
		return -ENOENT;
	d = &t->devs[dev];
	if (d->kind == NET_TOPO_HOST) {
		*g = (struct net_topo_group){ .port = 0, .n = 1 };
		return 0;
	}
	if (host >= d->host_lo && host - d->host_lo < d->n_below) {
		*g = (struct net_topo_group){ .port = (host - d->host_lo) / d->below_per_down, .n = 1 };
		return 0;
	}
	/* Only a top-tier switch has no uplinks, and every host is below it. */
	assert(d->n_up > 0);
	*g = (struct net_topo_group){ .port = d->n_down, .n = d->n_up };
	return 0;
}

struct net_topo_end net_topo_peer(const struct net_topo *t, uint32_t dev, uint32_t port)
{
	assert(dev < t->size.devices && port < t->devs[dev].n_ports);
	const struct net_topo_port *p = &t->ports[t->devs[dev].port0 + port];
	const struct net_topo_link *l = &t->links[p->link];

	return p->end == 0 ? l->b : l->a;
}

/* Device named by the @p len bytes at @p name: a tier prefix of this type, then a node number without leading 0s. */
static int dev_find(const struct net_topo *t, const char *name, size_t len)
{
	size_t plen = 0;
	uint64_t n = 0;

	while (plen < len && name[plen] >= 'a' && name[plen] <= 'z')
		plen++;
	if (plen == len || len - plen > 10 || (name[plen] == '0' && len - plen > 1))
		return -1;
	for (size_t i = plen; i < len; i++) {
		if (name[i] < '0' || name[i] > '9')
			return -1;
		n = n * 10 + (uint64_t)(name[i] - '0');
	}
	for (uint32_t tier = 0; tier < t->size.n_tiers; tier++) {
		const char *p = tier_names[t->spec.type][tier];

		if (strlen(p) == plen && memcmp(p, name, plen) == 0)
			return n < t->size.devs[tier] ? (int)(t->tier_first[tier] + n) : -1;
	}
	return -1;
}

int net_topo_dev_find(const struct net_topo *t, const char *name)
{
	return dev_find(t, name, strlen(name));
}

int net_topo_link_find(const struct net_topo *t, const char *name)
{
	const char *dash = strchr(name, '-');
	int a, b;

	if (dash == NULL)
		return -1;
	a = dev_find(t, name, (size_t)(dash - name));
	b = dev_find(t, dash + 1, strlen(dash + 1));
	if (a < 0 || b < 0)
		return -1;
	/* A link is named lower end first: look among a's ports for one whose link has a as its a end and b as b. */
	for (uint32_t p = 0; p < t->devs[a].n_ports; p++) {
		const struct net_topo_port *port = &t->ports[t->devs[a].port0 + p];

		if (port->end == 0 && t->links[port->link].b.dev == (uint32_t)b)
			return (int)port->link;
	}
	return -1;
}
