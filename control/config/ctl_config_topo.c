/* The explicit topology: hosts (name, ip, mac) and point-to-point links between their NICs. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl_yaml_pvt.h"
#include "emu_units.h"

/* A default MAC holds the host's index + 1 in 16 bits. */
#define CTL_HOSTS_MAX 65535u

#define HOST_EXAMPLE "a host needs name and ip, e.g. {name: host0, ip: 10.0.0.1}"
#define LINK_EXAMPLE "a link needs name, a and b, e.g. {name: l0, a: host0, b: host1}"

struct host_obj {
	struct ctl_config *cfg;
	uint32_t idx;
	bool has_mac;
};

int ctl_val_host(struct ctl_ctx *c, const struct ctl_ynode *v, const struct ctl_config *cfg, uint32_t *idx)
{
	char names[512];
	size_t used = 0;
	const char *s;
	int rc = ctl_scalar(c, v, "host0", &s), i;

	if (rc != 0)
		return rc;
	if ((i = ctl_config_host(cfg, s)) >= 0) {
		*idx = (uint32_t)i;
		return 0;
	}
	names[0] = '\0';
	for (uint32_t h = 0; h < cfg->n_hosts && used < sizeof(names); h++) {
		int w = snprintf(names + used, sizeof(names) - used, "%s%s", h ? ", " : "", cfg->hosts[h].name);

		used += w > 0 ? (size_t)w : 0;
	}
	return ctl_err(c, v, "unknown host '%s'; hosts are %s", s, names);
}

static int host_name(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	struct host_obj *o = obj;
	struct ctl_host *h = &o->cfg->hosts[o->idx];
	int rc = ctl_val_name(c, v, h->name, sizeof(h->name));

	for (uint32_t i = 0; rc == 0 && i < o->idx; i++)
		if (strcmp(o->cfg->hosts[i].name, h->name) == 0)
			rc = ctl_err(c, v, "duplicate host name '%s'; the first is topology.hosts.%u", h->name, i);
	return rc;
}

/* "a.b.c.d" or "a.b.c.d/len": the address, and the prefix length when there is one. */
static int parse_cidr(struct ctl_ctx *c, const struct ctl_ynode *v, const char *s, struct ctl_host *h)
{
	char addr[16], msg[256];
	const char *slash = strchr(s, '/');
	size_t n = slash != NULL ? (size_t)(slash - s) : strlen(s);

	if (n >= sizeof(addr))
		n = sizeof(addr) - 1; /* too long for an address: the parser below says so */
	memcpy(addr, s, n);
	addr[n] = '\0';
	if (emu_parse_ipv4(addr, &h->ip, msg, sizeof(msg)) != 0)
		return ctl_err(c, v, "%s", msg);
	if (slash == NULL)
		return 0;
	char *end;
	unsigned long len = strtoul(slash + 1, &end, 10);

	if (slash[1] < '0' || slash[1] > '9' || *end != '\0' || len > 32)
		return ctl_err(c, v, "bad prefix length in '%s'; write ip/len with len 0 to 32, e.g. 10.1.0.1/24", s);
	h->has_prefix = true;
	h->prefix_len = (uint8_t)len;
	return 0;
}

static int host_ip(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	struct host_obj *o = obj;
	struct ctl_host *h = &o->cfg->hosts[o->idx];
	const char *s;
	int rc = ctl_scalar(c, v, "10.0.0.1", &s);

	if (rc == 0)
		rc = parse_cidr(c, v, s, h);
	for (uint32_t i = 0; rc == 0 && i < o->idx; i++)
		if (o->cfg->hosts[i].ip == h->ip)
			rc = ctl_err(c, v, "duplicate ip '%s'; the first is topology.hosts.%u", s, i);
	return rc;
}

static int host_mac(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	struct host_obj *o = obj;
	struct ctl_host *h = &o->cfg->hosts[o->idx];
	char msg[256];
	const char *s;
	int rc = ctl_scalar(c, v, "02:00:00:00:00:01", &s);

	if (rc == 0 && emu_parse_mac(s, h->mac, msg, sizeof(msg)) != 0)
		return ctl_err(c, v, "%s", msg);
	for (uint32_t i = 0; rc == 0 && i < o->idx; i++)
		if (memcmp(o->cfg->hosts[i].mac, h->mac, 6) == 0)
			rc = ctl_err(c, v, "duplicate mac '%s'; the first is topology.hosts.%u", s, i);
	o->has_mac = true;
	h->mac_static = true;
	return rc;
}

int ctl_val_gateway(struct ctl_ctx *c, const struct ctl_ynode *v, uint32_t *ip)
{
	char msg[256];
	const char *s;
	int rc = ctl_scalar(c, v, "10.0.0.1", &s);

	if (rc == 0 && emu_parse_ipv4(s, ip, msg, sizeof(msg)) != 0)
		return ctl_err(c, v, "%s", msg);
	if (rc == 0 && *ip == 0)
		return ctl_err(c, v, "0.0.0.0 is no gateway; give the router's address, e.g. 10.1.0.254");
	return rc;
}

static int host_gateway(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	struct host_obj *o = obj;
	struct ctl_host *h = &o->cfg->hosts[o->idx];

	return ctl_val_gateway(c, v, &h->gateway);
}

/* profile: a peer profile's name (nic.PeerProfile's values), for this host's NIC only. */
static int host_profile(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	struct host_obj *o = obj;
	struct ctl_host *h = &o->cfg->hosts[o->idx];
	const char *s;
	int rc = ctl_scalar(c, v, "uec-ref-prov", &s);

	if (rc != 0)
		return rc;
	if (strcmp(s, "none") == 0)
		h->profile = NIC_PROFILE_NONE;
	else if (strcmp(s, "uec-ref-prov") == 0)
		h->profile = NIC_PROFILE_REFPROV;
	else
		return ctl_err(c, v, "unknown peer profile '%s'; profile takes none or uec-ref-prov (the UEC reference "
			       "provider's defaults)", s);
	h->has_profile = true;
	return 0;
}

static int host_item(struct ctl_ctx *c, const struct ctl_ynode *item, uint32_t idx, void *obj)
{
	static const struct ctl_key keys[] = {
		{ "name", true, host_name }, { "ip", true, host_ip }, { "mac", false, host_mac },
		{ "gateway", false, host_gateway }, { "profile", false, host_profile },
	};
	struct host_obj o = { .cfg = obj, .idx = idx };
	struct ctl_host *h = &o.cfg->hosts[idx];
	int rc = ctl_walk_map(c, item, keys, sizeof(keys) / sizeof(keys[0]), &o, HOST_EXAMPLE);

	if (rc == 0 && h->gateway != 0 && h->gateway == h->ip) {
		size_t old = ctl_push(c, "gateway");
		rc = ctl_err(c, ctl_y_get(item, "gateway"), "the gateway is the host's own address; give the "
			     "router's, e.g. 10.1.0.254");
		ctl_pop(c, old);
	}
	if (rc != 0 || o.has_mac)
		return rc;
	h->mac[0] = 0x02;
	h->mac[4] = (uint8_t)((idx + 1) >> 8);
	h->mac[5] = (uint8_t)(idx + 1);
	for (uint32_t i = 0; i < idx; i++)
		if (memcmp(o.cfg->hosts[i].mac, h->mac, 6) == 0)
			return ctl_err(c, item, "default mac 02:00:00:00:%02x:%02x is topology.hosts.%u's; give this "
				       "host a mac", h->mac[4], h->mac[5], i);
	return 0;
}

static int host_item_counted(struct ctl_ctx *c, const struct ctl_ynode *item, uint32_t idx, void *obj)
{
	struct ctl_config *cfg = obj;
	int rc = host_item(c, item, idx, obj);

	if (rc == 0)
		cfg->n_hosts = idx + 1;
	return rc;
}

static int topo_hosts(struct ctl_ctx *c, const struct ctl_ynode *v, struct ctl_config *cfg)
{
	uint32_t n = ctl_seq_len(v);

	if (v->type == CTL_Y_SEQ && n == 0)
		return ctl_err(c, v, "empty list; a config needs at least one host, e.g. [{name: host0, ip: 10.0.0.1}]");
	if (n > CTL_HOSTS_MAX)
		return ctl_err(c, v, "%u hosts; at most %u", n, CTL_HOSTS_MAX);
	if (n > 0 && (cfg->hosts = calloc(n, sizeof(*cfg->hosts))) == NULL)
		return -ENOMEM;
	int rc = ctl_walk_seq(c, v, host_item_counted, cfg, "e.g. hosts: [{name: host0, ip: 10.0.0.1}]");

	if (rc == 0 && n == 0) /* null */
		rc = ctl_err(c, v, "no hosts; a config needs at least one host, e.g. [{name: host0, ip: 10.0.0.1}]");
	return rc;
}


static int link_name(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	struct ctl_link_obj *o = obj;
	int rc = ctl_val_name(c, v, o->l->name, sizeof(o->l->name));

	for (struct ctl_link *p = o->cfg->links; rc == 0 && p < o->l; p++)
		if (strcmp(p->name, o->l->name) == 0)
			rc = ctl_err(c, v, "duplicate link name '%s'; the first is topology.links.%u", p->name,
				     (uint32_t)(p - o->cfg->links));
	return rc;
}

static int link_a(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	struct ctl_link_obj *o = obj;

	return ctl_val_host(c, v, o->cfg, &o->l->a);
}

static int link_b(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	struct ctl_link_obj *o = obj;

	return ctl_val_host(c, v, o->cfg, &o->l->b);
}

static int link_rate(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	return ctl_val_u64(c, v, emu_parse_datarate, "400Gbps", &((struct ctl_link_obj *)obj)->l->data_rate_bps);
}

static int link_delay(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	return ctl_val_u64(c, v, emu_parse_timeval, "100ns", &((struct ctl_link_obj *)obj)->l->delay_ps);
}

/* A NIC has one port: a host is on at most one link, and a link joins two different hosts. */
static int link_ends(struct ctl_ctx *c, const struct ctl_ynode *item, struct ctl_link_obj *o)
{
	const struct ctl_ynode *bv = ctl_y_get(item, "b");
	size_t old;
	int rc = 0;

	if (o->l->a == o->l->b) {
		old = ctl_push(c, "b");
		rc = ctl_err(c, bv, "link joins %s to itself; a and b are two different hosts",
			     o->cfg->hosts[o->l->a].name);
		ctl_pop(c, old);
		return rc;
	}
	for (struct ctl_link *p = o->cfg->links; p < o->l; p++) {
		for (int end = 0; end < 2; end++) {
			uint32_t h = end ? o->l->b : o->l->a;

			if (p->a != h && p->b != h)
				continue;
			old = ctl_push(c, end ? "b" : "a");
			rc = ctl_err(c, ctl_y_get(item, end ? "b" : "a"),
				     "host '%s' is already on link '%s'; a host's NIC has one port",
				     o->cfg->hosts[h].name, p->name);
			ctl_pop(c, old);
			return rc;
		}
	}
	return 0;
}

static int link_item(struct ctl_ctx *c, const struct ctl_ynode *item, uint32_t idx, void *obj)
{
	static const struct ctl_key keys[] = {
		{ "name", true, link_name }, { "a", true, link_a }, { "b", true, link_b },
		{ "DataRate", false, link_rate }, { "Delay", false, link_delay }, { "impair", false, ctl_link_impair },
	};
	struct ctl_link_obj o = { .cfg = obj, .l = &((struct ctl_config *)obj)->links[idx] };
	int rc;

	o.l->delay_ps = EMU_PS_NEVER;
	rc = ctl_walk_map(c, item, keys, sizeof(keys) / sizeof(keys[0]), &o, LINK_EXAMPLE);
	if (rc == 0)
		rc = link_ends(c, item, &o);
	return rc != 0 ? rc : ctl_link_impair_check(c, item, &o);
}

static int topo_links(struct ctl_ctx *c, const struct ctl_ynode *v, struct ctl_config *cfg)
{
	uint32_t n = ctl_seq_len(v);

	if (n > 0 && (cfg->links = calloc(n, sizeof(*cfg->links))) == NULL)
		return -ENOMEM;
	cfg->n_links = n;
	return ctl_walk_seq(c, v, link_item, cfg, "e.g. links: [{name: l0, a: host0, b: host1}]");
}

int ctl_topo_explicit(struct ctl_ctx *c, const struct ctl_ynode *v, struct ctl_config *cfg)
{
	const struct ctl_ynode *hosts = ctl_y_get(v, "hosts"), *links;
	size_t old = ctl_push(c, "hosts");
	int rc;

	if (hosts == NULL) {
		rc = ctl_err(c, v, "missing required key; e.g. hosts: [{name: host0, ip: 10.0.0.1}]");
		ctl_pop(c, old);
		return rc;
	}
	rc = topo_hosts(c, hosts, cfg);
	ctl_pop(c, old);
	links = ctl_y_get(v, "links");
	if (rc == 0 && links != NULL) {
		old = ctl_push(c, "links");
		rc = topo_links(c, links, cfg);
		ctl_pop(c, old);
	}
	return rc;
}
