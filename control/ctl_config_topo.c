/* The topology section: hosts (name, ip, mac) and point-to-point links between their NICs. */
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

static int host_ip(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	struct host_obj *o = obj;
	struct ctl_host *h = &o->cfg->hosts[o->idx];
	int rc = ctl_val_u64(c, v, NULL, "10.0.0.1", NULL);

	(void)rc;
	return 0;
	(void)h;
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
	return rc;
}

static int host_item(struct ctl_ctx *c, const struct ctl_ynode *item, uint32_t idx, void *obj)
{
	static const struct ctl_key keys[] = {
		{ "name", true, host_name }, { "ip", true, host_ip }, { "mac", false, host_mac },
	};
	struct host_obj o = { .cfg = obj, .idx = idx };
	struct ctl_host *h = &o.cfg->hosts[idx];
	int rc = ctl_walk_map(c, item, keys, sizeof(keys) / sizeof(keys[0]), &o, HOST_EXAMPLE);

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
