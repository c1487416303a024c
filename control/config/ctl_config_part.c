/*
 * partitions: which devices (hosts and switches) run together, on one lcore in real time, or in one process
 * (uetemu run --partition NAME). Given as a list of named device lists, each device in exactly one; by default a
 * generated fabric with several racks is split by rack (a rack's hosts and its tor or leaf; the switches above
 * spread over the racks' partitions in turn), anything else is one partition, "all".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl_yaml_pvt.h"
#include "net_topo.h"

struct part_obj {
	struct ctl_config *cfg;
	const struct net_topo *topo; /* generated fabric, or NULL */
	uint32_t idx;                /* the partition being read */
};

/* Device @p name: a host of the config, or a switch of the generated fabric. -1 if none. */
static int dev_find(const struct part_obj *o, const char *name)
{
	int h = ctl_config_host(o->cfg, name);

	if (h >= 0 || o->topo == NULL)
		return h;
	return net_topo_dev_find(o->topo, name);
}

static int part_dev(struct ctl_ctx *c, const struct ctl_ynode *item, uint32_t idx, void *obj)
{
	struct part_obj *o = obj;
	const char *s;
	int rc = ctl_scalar(c, item, "host0", &s), d;

	(void)idx;
	if (rc != 0)
		return rc;
	if ((d = dev_find(o, s)) < 0)
		return ctl_err(c, item, "no device '%s'; a partition lists hosts and switches of the topology, e.g. "
			       "[host0, host1, leaf0]", s);
	if (o->cfg->dev_part[d] != CTL_PART_NONE)
		return ctl_err(c, item, "device '%s' is in partitions.%u already; a device runs in one partition", s,
			       o->cfg->dev_part[d]);
	o->cfg->dev_part[d] = o->idx;
	return 0;
}

static int part_devices(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	if (v->type != CTL_Y_SEQ || ctl_seq_len(v) == 0)
		return ctl_err(c, v, "expected a list of devices, e.g. devices: [host0, host1, leaf0]");
	return ctl_walk_seq(c, v, part_dev, obj, "e.g. devices: [host0, host1, leaf0]");
}

static int part_name(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	struct part_obj *o = obj;
	char *name = o->cfg->parts[o->idx].name;
	int rc = ctl_val_name(c, v, name, CTL_NAME_MAX);

	for (uint32_t k = 0; rc == 0 && k < o->idx; k++)
		if (strcmp(o->cfg->parts[k].name, name) == 0)
			rc = ctl_err(c, v, "duplicate partition name '%s'; the first is partitions.%u", name, k);
	return rc;
}

static int part_item(struct ctl_ctx *c, const struct ctl_ynode *item, uint32_t idx, void *obj)
{
	static const struct ctl_key keys[] = { { "name", true, part_name }, { "devices", true, part_devices } };
	struct part_obj *o = obj;

	o->idx = idx;
	return ctl_walk_map(c, item, keys, sizeof(keys) / sizeof(keys[0]), o,
			    "a partition is {name: left, devices: [host0, host1, leaf0]}");
}

/* Name of device @p d: a host's, or the fabric's switch. */
static const char *dev_name(const struct ctl_config *cfg, const struct net_topo *t, uint32_t d)
{
	return d < cfg->n_hosts ? cfg->hosts[d].name : t->devs[d].name;
}

/* Room for the partitions and the device map, every device in none yet. 0 or -ENOMEM. */
static int parts_alloc(struct ctl_config *cfg, uint32_t n_parts, uint32_t n_devs)
{
	cfg->parts = calloc(n_parts ? n_parts : 1, sizeof(*cfg->parts));
	cfg->dev_part = malloc(sizeof(*cfg->dev_part) * (n_devs ? n_devs : 1));
	if (cfg->parts == NULL || cfg->dev_part == NULL)
		return -ENOMEM;
	cfg->n_parts = n_parts;
	cfg->n_devs = n_devs;
	for (uint32_t d = 0; d < n_devs; d++)
		cfg->dev_part[d] = CTL_PART_NONE;
	return 0;
}

int ctl_sec_partitions(struct ctl_ctx *c, const struct ctl_ynode *v, struct ctl_config *cfg)
{
	struct net_topo *t = NULL;
	char msg[256];
	uint32_t n = ctl_seq_len(v);
	int rc;

	if (n == 0 || n > CTL_PARTS_MAX)
		return ctl_err(c, v, "expected 1 to %u partitions, e.g. partitions: [{name: left, devices: [host0, "
			       "leaf0]}, {name: right, devices: [host1, leaf1]}]", CTL_PARTS_MAX);
	if (cfg->topo_type == CTL_TOPO_GENERATED && ctl_config_topo_build(cfg, &t, msg, sizeof(msg)) != 0)
		return ctl_err(c, v, "%s", msg);
	if ((rc = parts_alloc(cfg, n, t != NULL ? t->size.devices : cfg->n_hosts)) < 0) {
		net_topo_destroy(t);
		return rc;
	}
	cfg->parts_given = true;
	struct part_obj o = { .cfg = cfg, .topo = t };

	rc = ctl_walk_seq(c, v, part_item, &o, "e.g. partitions: [{name: left, devices: [host0, leaf0]}]");
	for (uint32_t d = 0; rc != -ENOMEM && d < cfg->n_devs; d++) /* each one missing is reported */
		if (cfg->dev_part[d] == CTL_PART_NONE)
			rc = ctl_err(c, v, "device '%s' is in no partition; every host and switch is in one",
				     dev_name(cfg, t, d));
	net_topo_destroy(t);
	return rc;
}

int ctl_config_parts_default(struct ctl_config *cfg)
{
	struct net_topo *t = NULL;
	char msg[256];
	uint32_t racks = 1;

	if (cfg->topo_type == CTL_TOPO_GENERATED && ctl_config_topo_build(cfg, &t, msg, sizeof(msg)) != 0)
		return -EINVAL;
	if (t != NULL && t->size.n_tiers >= 3)
		racks = t->size.devs[1];
	int rc = parts_alloc(cfg, racks, t != NULL ? t->size.devices : cfg->n_hosts);

	for (uint32_t p = 0; rc == 0 && p < racks; p++)
		snprintf(cfg->parts[p].name, CTL_NAME_MAX, racks > 1 ? "rack%u" : "all", p);
	for (uint32_t d = 0; rc == 0 && d < cfg->n_devs; d++) {
		if (racks == 1)
			cfg->dev_part[d] = 0;
		else if (t->devs[d].tier == 0)
			cfg->dev_part[d] = d / t->size.below[1];
		else
			cfg->dev_part[d] = t->devs[d].node % racks; /* a rack's own switch, or the upper ones in turn */
	}
	net_topo_destroy(t);
	return rc;
}

int ctl_config_part_find(const struct ctl_config *cfg, const char *name)
{
	for (uint32_t p = 0; p < cfg->n_parts; p++)
		if (strcmp(cfg->parts[p].name, name) == 0)
			return (int)p;
	return -1;
}
