/* Building a generated fabric (pair, rack, leaf-spine, fat-tree) into a run: switches, links, routes, faults. */
#include "ctl_run_pvt.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sw.h"

static struct net_endpoint dev_ep(struct ctl_run_state *r, uint32_t dev, uint32_t port)
{
	const struct net_topo_dev *d = &r->topo->devs[dev];

	if (d->kind == NET_TOPO_HOST)
		return ctl_run_host_ep(r, dev);
	return (struct net_endpoint){ .dev = r->sws[dev - r->topo->size.hosts], .ops = &sw_dev_ops, .port = port,
				      .ent = dev + 1 };
}

static int make_switches(struct ctl_run_state *r, char *err, size_t errlen)
{
	const struct net_topo *t = r->topo;

	r->n_sws = t->size.switches;
	r->sws = calloc(r->n_sws ? r->n_sws : 1, sizeof(*r->sws));
	if (r->sws == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; i < r->n_sws; i++) {
		const struct net_topo_dev *d = &t->devs[t->size.hosts + i];
		struct sw_env env = { .np = ctl_run_dev_np(r, t->size.hosts + i), .params = &r->cfg->sw, .node_id = t->size.hosts + i,
				      .name = d->name, .n_ports = d->n_ports, .seed = r->cfg->sim.random_seed,
				      .run = r->cfg->sim.run_number, .dscp = &r->cfg->nic.dscp,
				      .shell = ctl_run_dev_shell(r, t->size.hosts + i) };
		r->sws[i] = sw_create(&env);
		r->n_full += !env.shell;
		if (r->sws[i] == NULL) {
			struct sw_buffer b;
			char why[256] = "out of memory";
			if (errno == EINVAL && sw_buffer_setup(&r->cfg->sw, d->n_ports, &b, why, sizeof(why)) == 0)
				snprintf(why, sizeof(why), "the switch refused its attributes");
			snprintf(err, errlen, "%s: switch %s (%u ports): %s", r->cfg->path, d->name, d->n_ports, why);
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * Every link of the topology, each end attached to its device; a switch port facing a host faces a NIC. A switch
 * port also gets its MAC and its peer's, which frames it forwards carry as source and destination.
 */
static int make_fabric_links(struct ctl_run_state *r)
{
	const struct net_topo *t = r->topo;

	r->n_links = t->size.links;
	r->links = calloc(r->n_links, sizeof(*r->links));
	if (r->links == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; i < r->n_links; i++) {
		const struct net_topo_link *tl = &t->links[i];
		struct net_link *l = &r->links[i];
		const struct net_topo_end *end[2] = { &tl->a, &tl->b };

		net_link_init(l, ctl_run_dev_np(r, tl->a.dev), tl->bps, tl->delay, dev_ep(r, tl->a.dev, tl->a.port),
			      dev_ep(r, tl->b.dev, tl->b.port));
		net_link_parts(l, ctl_run_dev_np(r, tl->a.dev), ctl_run_dev_np(r, tl->b.dev));
		for (int e = 0; e < 2; e++) {
			const struct net_topo_dev *d = &t->devs[end[e]->dev], *pd = &t->devs[end[1 - e]->dev];
			if (d->kind == NET_TOPO_HOST) {
				/* an external host has no emulated NIC here: a DPDK port takes its end (real time) */
				if (!r->cfg->hosts[end[e]->dev].external)
					ctl_run_host_attach(r, end[e]->dev, &l->dir[e]);
				continue;
			}
			struct sw *sw = r->sws[end[e]->dev - t->size.hosts];
			/* the peer's MAC: a host's from the config (an external device's own, when given) */
			const uint8_t *peer_mac = pd->kind == NET_TOPO_HOST ? r->cfg->hosts[end[1 - e]->dev].mac :
						  t->ports[pd->port0 + end[1 - e]->port].mac;
			sw_attach(sw, end[e]->port, &l->dir[e], pd->kind == NET_TOPO_HOST);
			sw_port_mac(sw, end[e]->port, t->ports[d->port0 + end[e]->port].mac, peer_mac);
		}
	}
	return 0;
}

/* Each switch's route to each host: its up-down ECMP group (a run of ports). */
static int make_routes(struct ctl_run_state *r)
{
	const struct net_topo *t = r->topo;
	uint32_t *ports = malloc(sizeof(*ports) * NET_TOPO_PORTS_MAX);

	if (ports == NULL)
		return -ENOMEM;
	for (uint32_t s = 0; s < r->n_sws; s++)
		for (uint32_t h = 0; h < t->size.hosts && !ctl_run_dev_shell(r, t->size.hosts + s); h++) {
			struct net_topo_group g;
			if (net_topo_route(t, t->size.hosts + s, h, &g) != 0)
				continue;
			for (uint32_t k = 0; k < g.n; k++)
				ports[k] = g.port + k;
			if (sw_route_add(r->sws[s], t->devs[h].ip, ports, g.n) < 0) {
				free(ports);
				return -ENOMEM;
			}
		}
	free(ports);
	return 0;
}

int ctl_run_fabric_faults(struct ctl_run_state *r)
{
	const struct ctl_config *cfg = r->cfg;

	for (uint32_t i = 0; i < cfg->n_faults; i++) {
		const struct ctl_fault *f = &cfg->faults[i];
		struct net_link *l = &r->links[f->link];
		if (f->kind == CTL_FAULT_LOSS)
			net_link_fault_loss(l, f->loss_ppm, cfg->sim.random_seed, 0x100000000ULL + f->link);
		else if (net_link_fault_down(l, f->down, f->up) < 0)
			return -ENOSPC;
	}
	return 0;
}

int ctl_run_fabric(struct ctl_run_state *r, char *err, size_t errlen)
{
	int rc = ctl_config_topo_build(r->cfg, &r->topo, err, errlen);

	if (rc < 0)
		return rc;
	if ((rc = make_switches(r, err, errlen)) < 0)
		return rc;
	if ((rc = make_fabric_links(r)) < 0 || (rc = make_routes(r)) < 0) {
		snprintf(err, errlen, "out of memory building the fabric");
		return rc;
	}
	return 0;
}

void ctl_run_fabric_fini(struct ctl_run_state *r)
{
	for (uint32_t i = 0; r->sws != NULL && i < r->n_sws; i++)
		sw_destroy(r->sws[i]);
	free(r->sws);
	r->sws = NULL;
	net_topo_destroy(r->topo);
	r->topo = NULL;
}

