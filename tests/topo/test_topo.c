/* Tests of the topology builder: counts and names per type, up-down routes hop by hop, ECMP groups, link rates and
 * delays by the Scala tier rules, addresses, lookups and the errors of a bad description. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net_topo.h"

#define GBPS 1000000000ULL
#define NS 1000ULL

static char err[512];

static struct net_topo *build(const struct net_topo_spec *spec)
{
	struct net_topo *t = NULL;
	int rc = net_topo_create(spec, &t, err, sizeof(err));

	cr_assert_eq(rc, 0, "create: %d %s", rc, err);
	cr_assert_not_null(t);
	return t;
}

static struct net_topo *fat_tree(uint32_t k)
{
	struct net_topo_spec s;

	net_topo_spec_defaults(&s, NET_TOPO_FAT_TREE);
	s.k = k;
	return build(&s);
}

static struct net_topo *leaf_spine(uint32_t hpr, uint32_t racks, uint32_t spines, uint32_t over)
{
	struct net_topo_spec s;

	net_topo_spec_defaults(&s, NET_TOPO_LEAF_SPINE);
	s.hosts_per_rack = hpr;
	s.racks = racks;
	s.spines = spines;
	s.oversubscription = over;
	return build(&s);
}

static struct net_topo *rack(uint32_t hosts)
{
	struct net_topo_spec s;

	net_topo_spec_defaults(&s, NET_TOPO_RACK);
	s.hosts_per_rack = hosts;
	return build(&s);
}

static struct net_topo *pair(void)
{
	struct net_topo_spec s;

	net_topo_spec_defaults(&s, NET_TOPO_PAIR);
	return build(&s);
}

static const char *dev_name(const struct net_topo *t, uint32_t dev)
{
	return t->devs[dev].name;
}

static const char *link_name(const struct net_topo *t, uint32_t l)
{
	return t->links[l].name;
}

/* ---- Counts and names ---- */

Test(net_topo, fat_tree_k8_counts_by_formula)
{
	struct net_topo *t = fat_tree(8);

	/* k = 8: k^3/4 = 128 hosts, k^2/2 = 32 tors, 32 aggs, k^2/4 = 16 cores, 3 k^3/4 = 384 links. */
	cr_expect_eq(t->size.hosts, 128);
	cr_expect_eq(t->size.devs[1], 32);
	cr_expect_eq(t->size.devs[2], 32);
	cr_expect_eq(t->size.devs[3], 16);
	cr_expect_eq(t->size.switches, 80);
	cr_expect_eq(t->size.devices, 208);
	cr_expect_eq(t->size.links, 384);
	cr_expect_eq(t->size.ports, 128 + 80 * 8);
	for (uint32_t d = 128; d < 208; d++)
		cr_expect_eq(t->devs[d].n_ports, 8, "%s has %u ports, not k", dev_name(t, d), t->devs[d].n_ports);
	net_topo_destroy(t);
}

Test(net_topo, fat_tree_k8_names)
{
	struct net_topo *t = fat_tree(8);

	cr_expect_str_eq(dev_name(t, 0), "host0");
	cr_expect_str_eq(dev_name(t, 127), "host127");
	cr_expect_str_eq(dev_name(t, 128), "tor0");
	cr_expect_str_eq(dev_name(t, 159), "tor31");
	cr_expect_str_eq(dev_name(t, 160), "agg0");
	cr_expect_str_eq(dev_name(t, 192), "core0");
	cr_expect_str_eq(dev_name(t, 207), "core15");
	cr_expect_eq(t->devs[160].tier, 2);
	cr_expect_eq(t->devs[207].tier, 3);
	cr_expect_eq(t->devs[207].node, 15);
	/* Host links first (host h on link h), then tor uplinks, then agg uplinks; lower tier first in the name. */
	cr_expect_str_eq(link_name(t, 0), "host0-tor0");
	cr_expect_str_eq(link_name(t, 5), "host5-tor1");
	cr_expect_str_eq(link_name(t, 127), "host127-tor31");
	cr_expect_str_eq(link_name(t, 128), "tor0-agg0");
	cr_expect_str_eq(link_name(t, 131), "tor0-agg3");
	cr_expect_str_eq(link_name(t, 132), "tor1-agg0");
	cr_expect_str_eq(link_name(t, 136), "tor2-agg0");
	cr_expect_str_eq(link_name(t, 144), "tor4-agg4"); /* pod 1 */
	cr_expect_str_eq(link_name(t, 256), "agg0-core0");
	cr_expect_str_eq(link_name(t, 260), "agg1-core4");
	cr_expect_str_eq(link_name(t, 383), "agg31-core15");
	net_topo_destroy(t);
}

Test(net_topo, fat_tree_counts_for_every_k)
{
	for (uint32_t k = 2; k <= 62; k += 2) {
		struct net_topo_size s;

		cr_assert_eq(net_topo_check(&(struct net_topo_spec){ .type = NET_TOPO_FAT_TREE, .k = k,
								     .bps = { 1, 1, 1, 1 } },
					    &s, NULL, err, sizeof(err)), 0, "k %u: %s", k, err);
		cr_expect_eq(s.hosts, k * k * k / 4, "k %u", k);
		cr_expect_eq(s.devs[1], k * k / 2, "k %u", k);
		cr_expect_eq(s.devs[2], k * k / 2, "k %u", k);
		cr_expect_eq(s.devs[3], k * k / 4, "k %u", k);
		cr_expect_eq(s.links, 3 * k * k * k / 4, "k %u", k);
		cr_expect_eq(s.ports, k * k * k / 4 + (5 * k * k / 4) * k, "k %u", k);
	}
}

Test(net_topo, leaf_spine_16_hosts_4_racks_4_spines)
{
	struct net_topo *t = leaf_spine(4, 4, 4, 0);

	cr_expect_eq(t->size.hosts, 16);
	cr_expect_eq(t->size.devs[1], 4);
	cr_expect_eq(t->size.devs[2], 4);
	cr_expect_eq(t->size.links, 16 + 16);
	cr_expect_str_eq(dev_name(t, 16), "leaf0");
	cr_expect_str_eq(dev_name(t, 23), "spine3");
	cr_expect_str_eq(link_name(t, 3), "host3-leaf0");
	cr_expect_str_eq(link_name(t, 4), "host4-leaf1");
	cr_expect_str_eq(link_name(t, 16), "leaf0-spine0");
	cr_expect_str_eq(link_name(t, 17), "leaf0-spine1");
	cr_expect_str_eq(link_name(t, 31), "leaf3-spine3");
	cr_expect_eq(t->devs[16].n_down, 4);
	cr_expect_eq(t->devs[16].n_up, 4);
	cr_expect_eq(t->devs[23].n_down, 4);
	cr_expect_eq(t->devs[23].n_up, 0);
	net_topo_destroy(t);
}

Test(net_topo, leaf_spine_spines_from_oversubscription)
{
	struct net_topo *t = leaf_spine(16, 2, 0, 4);

	/* 16 downlink ports : 4 uplink ports = 4:1. */
	cr_expect_eq(t->size.devs[2], 4);
	cr_expect_eq(t->spec.spines, 4);
	cr_expect_eq(t->devs[t->tier_first[1]].n_up, 4);
	net_topo_destroy(t);
	t = leaf_spine(16, 2, 4, 4); /* both given and agreeing */
	cr_expect_eq(t->size.devs[2], 4);
	net_topo_destroy(t);
	t = leaf_spine(8, 2, 0, 0); /* neither: non-blocking, one spine per host port */
	cr_expect_eq(t->size.devs[2], 8);
	net_topo_destroy(t);
}

Test(net_topo, rack_of_8)
{
	struct net_topo *t = rack(8);

	cr_expect_eq(t->size.devices, 9);
	cr_expect_eq(t->size.links, 8);
	cr_expect_str_eq(dev_name(t, 8), "tor0");
	for (uint32_t h = 0; h < 8; h++) {
		char want[32];

		snprintf(want, sizeof(want), "host%u-tor0", h);
		cr_expect_str_eq(link_name(t, h), want);
		cr_expect_eq(t->links[h].b.port, h);
	}
	net_topo_destroy(t);
}

Test(net_topo, pair_back_to_back)
{
	struct net_topo *t = pair();

	cr_expect_eq(t->size.devices, 2);
	cr_expect_eq(t->size.switches, 0);
	cr_assert_eq(t->size.links, 1);
	cr_expect_str_eq(link_name(t, 0), "host0-host1");
	cr_expect_eq(t->links[0].a.dev, 0);
	cr_expect_eq(t->links[0].b.dev, 1);
	cr_expect_eq(t->devs[0].n_ports, 1);
	cr_expect_eq(t->devs[1].n_ports, 1);
	net_topo_destroy(t);
}

/* Every port is on exactly one link end, and each link's ends point back at it. */
static void check_wiring(const struct net_topo *t)
{
	uint32_t *seen = calloc(t->size.links, sizeof(*seen));

	cr_assert_not_null(seen);
	for (uint32_t d = 0; d < t->size.devices; d++)
		for (uint32_t p = 0; p < t->devs[d].n_ports; p++) {
			const struct net_topo_port *port = &t->ports[t->devs[d].port0 + p];
			const struct net_topo_link *l = &t->links[port->link];
			const struct net_topo_end *me = port->end == 0 ? &l->a : &l->b;
			struct net_topo_end peer = net_topo_peer(t, d, p);
			const struct net_topo_end *other = port->end == 0 ? &l->b : &l->a;

			cr_expect(me->dev == d && me->port == p, "%s port %u", dev_name(t, d), p);
			cr_expect(peer.dev == other->dev && peer.port == other->port);
			seen[port->link]++;
		}
	for (uint32_t l = 0; l < t->size.links; l++) {
		cr_expect_eq(seen[l], 2, "link %s has %u ends", link_name(t, l), seen[l]);
		uint32_t ta = t->devs[t->links[l].a.dev].tier, tb = t->devs[t->links[l].b.dev].tier;

		cr_expect_eq(tb, t->size.n_tiers == 1 ? ta : ta + 1, "link %s: a is not the lower tier", link_name(t, l));
	}
	free(seen);
}

Test(net_topo, every_port_on_one_link)
{
	struct net_topo *ts[] = { pair(), rack(8), leaf_spine(4, 4, 4, 0), leaf_spine(3, 5, 2, 0), fat_tree(2),
				  fat_tree(4), fat_tree(8) };

	for (size_t i = 0; i < sizeof(ts) / sizeof(ts[0]); i++) {
		check_wiring(ts[i]);
		net_topo_destroy(ts[i]);
	}
}

/* ---- Routes ---- */

/* Follow every member of every ECMP group from @p dev to @p dst; each path must end at @p dst after @p want links. */
static uint64_t walk(const struct net_topo *t, uint32_t dev, uint32_t dst, uint32_t hops, uint32_t want)
{
	struct net_topo_group g;
	uint64_t paths = 0;

	if (dev == dst) {
		cr_expect_eq(hops, want, "reached %s in %u hops, want %u", dev_name(t, dst), hops, want);
		return 1;
	}
	cr_assert(hops < want, "at %s after %u hops toward %s: a loop or a detour", dev_name(t, dev), hops,
		  dev_name(t, dst));
	cr_assert_eq(t->devs[dev].kind == NET_TOPO_HOST && hops > 0, 0, "delivered to the wrong host %s",
		     dev_name(t, dev));
	cr_assert_eq(net_topo_route(t, dev, dst, &g), 0);
	cr_assert(g.n > 0 && g.port + g.n <= t->devs[dev].n_ports);
	for (uint32_t i = 0; i < g.n; i++)
		paths += walk(t, net_topo_peer(t, dev, g.port + i).dev, dst, hops + 1, want);
	return paths;
}

/* Path length between two hosts by where they sit: same tor/leaf 2, same pod 4, else through the top tier. */
static uint32_t want_hops(const struct net_topo *t, uint32_t a, uint32_t b)
{
	const struct net_topo_size *s = &t->size;

	if (s->n_tiers == 1)
		return 1;
	for (uint32_t tier = 1; tier < s->n_tiers; tier++)
		if (a / s->below[tier] == b / s->below[tier])
			return 2 * tier;
	cr_assert_fail("hosts %u and %u share no switch", a, b);
	return 0;
}

static void check_all_pairs(const struct net_topo *t, uint64_t *max_paths)
{
	*max_paths = 0;
	for (uint32_t a = 0; a < t->size.hosts; a++)
		for (uint32_t b = 0; b < t->size.hosts; b++) {
			if (a == b)
				continue;
			uint64_t n = walk(t, a, b, 0, want_hops(t, a, b));

			*max_paths = n > *max_paths ? n : *max_paths;
		}
}

Test(net_topo, routes_reach_every_host_pair)
{
	uint64_t paths;
	struct net_topo *t = pair();

	check_all_pairs(t, &paths);
	cr_expect_eq(paths, 1);
	net_topo_destroy(t);
	t = rack(8);
	check_all_pairs(t, &paths);
	cr_expect_eq(paths, 1);
	net_topo_destroy(t);
	t = leaf_spine(4, 4, 4, 0);
	check_all_pairs(t, &paths);
	cr_expect_eq(paths, 4); /* one path per spine */
	net_topo_destroy(t);
	t = leaf_spine(2, 3, 5, 0);
	check_all_pairs(t, &paths);
	cr_expect_eq(paths, 5);
	net_topo_destroy(t);
	t = leaf_spine(3, 1, 2, 0); /* one rack: the spines are never used */
	check_all_pairs(t, &paths);
	cr_expect_eq(paths, 1);
	net_topo_destroy(t);
	t = fat_tree(8);
	check_all_pairs(t, &paths);
	cr_expect_eq(paths, 16); /* (k/2)^2 between pods */
	net_topo_destroy(t);
	t = fat_tree(2); /* one host per tor, one tor per pod, one core */
	check_all_pairs(t, &paths);
	cr_expect_eq(paths, 1);
	net_topo_destroy(t);
	t = fat_tree(6);
	check_all_pairs(t, &paths);
	cr_expect_eq(paths, 9);
	net_topo_destroy(t);
}

Test(net_topo, route_lengths_in_a_fat_tree)
{
	struct net_topo *t = fat_tree(4);

	/* k = 4: 2 hosts per tor, 4 per pod. */
	cr_expect_eq(walk(t, 0, 1, 0, 2), 1);   /* same tor */
	cr_expect_eq(walk(t, 0, 2, 0, 4), 2);   /* same pod: through either agg */
	cr_expect_eq(walk(t, 0, 15, 0, 6), 4);  /* other pod: (k/2)^2 paths */
	net_topo_destroy(t);
}

static struct net_topo_group route(const struct net_topo *t, const char *dev, uint32_t host)
{
	struct net_topo_group g = { 0, 0 };
	int d = net_topo_dev_find(t, dev);

	cr_assert_geq(d, 0, "no device %s", dev);
	cr_assert_eq(net_topo_route(t, (uint32_t)d, host, &g), 0);
	return g;
}

Test(net_topo, ecmp_group_sizes)
{
	struct net_topo *t = leaf_spine(4, 4, 4, 0);
	struct net_topo_group g;

	g = route(t, "leaf0", 5);  /* remote: every spine */
	cr_expect(g.port == 4 && g.n == 4);
	g = route(t, "leaf0", 3);  /* local: the host's port */
	cr_expect(g.port == 3 && g.n == 1);
	g = route(t, "spine2", 9); /* down to leaf 2 */
	cr_expect(g.port == 2 && g.n == 1);
	g = route(t, "host3", 9);
	cr_expect(g.port == 0 && g.n == 1);
	net_topo_destroy(t);

	t = fat_tree(8); /* 4 hosts per tor, 16 per pod */
	g = route(t, "tor0", 100);  /* other pod: k/2 aggs */
	cr_expect(g.port == 4 && g.n == 4);
	g = route(t, "tor0", 5);    /* same pod, other tor: up too */
	cr_expect(g.port == 4 && g.n == 4);
	g = route(t, "tor0", 2);
	cr_expect(g.port == 2 && g.n == 1);
	g = route(t, "agg0", 100);  /* other pod: k/2 cores */
	cr_expect(g.port == 4 && g.n == 4);
	g = route(t, "agg1", 9);    /* same pod: down to tor 2 of the pod */
	cr_expect(g.port == 2 && g.n == 1);
	g = route(t, "agg5", 17);   /* pod 1, host 17 is on tor 4, the pod's tor 0 */
	cr_expect(g.port == 0 && g.n == 1);
	g = route(t, "core7", 100); /* down to pod 6 */
	cr_expect(g.port == 6 && g.n == 1);
	net_topo_destroy(t);

	t = rack(8);
	g = route(t, "tor0", 7);
	cr_expect(g.port == 7 && g.n == 1);
	net_topo_destroy(t);
}

Test(net_topo, route_errors)
{
	struct net_topo *t = rack(4);
	struct net_topo_group g;

	cr_expect_eq(net_topo_route(t, 2, 2, &g), -ENOENT);
	cr_expect_eq(net_topo_route(t, 5, 0, &g), -EINVAL);
	cr_expect_eq(net_topo_route(t, 0, 4, &g), -EINVAL); /* device 4 is tor0, not a host */
	net_topo_destroy(t);
}

/* ---- Rates, delays, addresses ---- */

Test(net_topo, link_rate_is_the_lower_end_delay_the_lower_tier)
{
	struct net_topo_spec s;
	struct net_topo *t;

	net_topo_spec_defaults(&s, NET_TOPO_FAT_TREE);
	s.k = 4;
	s.bps[0] = 100 * GBPS;
	s.bps[1] = 400 * GBPS;
	s.bps[2] = 200 * GBPS;
	s.bps[3] = 800 * GBPS;
	s.delay[0] = 100 * NS;
	s.delay[1] = 500 * NS;
	s.delay[2] = 700 * NS;
	s.delay[3] = 900 * NS;
	t = build(&s);
	for (uint32_t l = 0; l < t->size.links; l++) {
		uint32_t tier = t->devs[t->links[l].a.dev].tier;
		const uint64_t want_bps[] = { 100 * GBPS, 200 * GBPS, 200 * GBPS };
		const emu_ps_t want_delay[] = { 100 * NS, 500 * NS, 700 * NS };

		cr_expect_eq(t->links[l].bps, want_bps[tier], "%s", link_name(t, l));
		cr_expect_eq(t->links[l].delay, want_delay[tier], "%s", link_name(t, l));
	}
	net_topo_destroy(t);

	net_topo_spec_defaults(&s, NET_TOPO_LEAF_SPINE);
	s.hosts_per_rack = 2;
	s.racks = 2;
	s.spines = 1;
	s.bps[0] = 400 * GBPS;
	s.bps[1] = 100 * GBPS;
	s.delay[1] = 250 * NS;
	t = build(&s);
	cr_expect_eq(t->links[0].bps, 100 * GBPS);  /* the NIC link at the leaf's downlink rate */
	cr_expect_eq(t->links[0].delay, 100 * NS);  /* the NIC's Delay */
	cr_expect_eq(t->links[4].bps, 100 * GBPS);
	cr_expect_eq(t->links[4].delay, 250 * NS);  /* the leaf's Delay, not the spine's 500 ns */
	net_topo_destroy(t);

	net_topo_spec_defaults(&s, NET_TOPO_PAIR);
	s.bps[0] = 25 * GBPS;
	s.delay[0] = 3 * NS;
	t = build(&s);
	cr_expect_eq(t->links[0].bps, 25 * GBPS);
	cr_expect_eq(t->links[0].delay, 3 * NS);
	net_topo_destroy(t);
}

static int cmp_mac(const void *a, const void *b)
{
	return memcmp(a, b, 6);
}

Test(net_topo, unique_ips_and_macs)
{
	struct net_topo *t = fat_tree(8);
	uint8_t(*macs)[6] = calloc(t->size.ports, 6);
	const uint8_t host0[6] = { 2, 0, 0, 0, 0, 1 }, host127[6] = { 2, 0, 0, 0, 0, 0x80 };
	const uint8_t tor1_p5[6] = { 2, 1, 0, 1, 0, 5 }, core15_p7[6] = { 2, 3, 0, 15, 0, 7 };

	cr_assert_not_null(macs);
	for (uint32_t p = 0; p < t->size.ports; p++)
		memcpy(macs[p], t->ports[p].mac, 6);
	qsort(macs, t->size.ports, 6, cmp_mac);
	for (uint32_t p = 1; p < t->size.ports; p++)
		cr_expect_neq(memcmp(macs[p - 1], macs[p], 6), 0, "duplicate MAC at %u", p);
	for (uint32_t p = 0; p < t->size.ports; p++)
		cr_expect_eq(t->ports[p].mac[0], 0x02, "locally administered unicast");
	free(macs);
	for (uint32_t h = 0; h < t->size.hosts; h++)
		cr_expect_eq(t->devs[h].ip, 0x0a000001u + h); /* 10.0.0.1 + h: distinct */
	cr_expect_eq(t->devs[128].ip, 0);
	cr_expect_arr_eq(t->ports[0].mac, host0, 6);
	cr_expect_arr_eq(t->ports[t->devs[127].port0].mac, host127, 6);
	cr_expect_arr_eq(t->ports[t->devs[net_topo_dev_find(t, "tor1")].port0 + 5].mac, tor1_p5, 6);
	cr_expect_arr_eq(t->ports[t->devs[net_topo_dev_find(t, "core15")].port0 + 7].mac, core15_p7, 6);
	net_topo_destroy(t);
}

/* k = 64: 65,536 hosts, the last one's MAC past 16 bits of index (02:00:00:01:00:00), every MAC still distinct */
Test(net_topo, k64_host_macs)
{
	struct net_topo *t = fat_tree(64);
	const uint8_t last[6] = { 2, 0, 0, 1, 0, 0 }, before[6] = { 2, 0, 0, 0, 0xff, 0xff };
	uint8_t(*macs)[6];

	cr_assert_not_null(t);
	cr_expect_eq(t->size.hosts, 65536u);
	cr_expect_arr_eq(t->ports[t->devs[65535].port0].mac, last, 6);
	cr_expect_arr_eq(t->ports[t->devs[65534].port0].mac, before, 6);
	macs = calloc(t->size.ports, 6);
	cr_assert_not_null(macs);
	for (uint32_t p = 0; p < t->size.ports; p++)
		memcpy(macs[p], t->ports[p].mac, 6);
	qsort(macs, t->size.ports, 6, cmp_mac);
	for (uint32_t p = 1; p < t->size.ports; p++)
		cr_expect_neq(memcmp(macs[p - 1], macs[p], 6), 0, "duplicate MAC at %u", p);
	free(macs);
	net_topo_destroy(t);
}

Test(net_topo, ip_base)
{
	struct net_topo_spec s;
	struct net_topo *t;

	net_topo_spec_defaults(&s, NET_TOPO_RACK);
	s.hosts_per_rack = 3;
	s.ip_base = 0xc0a80100u; /* 192.168.1.0 */
	t = build(&s);
	cr_expect_eq(t->devs[0].ip, 0xc0a80101u);
	cr_expect_eq(t->devs[2].ip, 0xc0a80103u);
	net_topo_destroy(t);
	s.ip_base = 0xfffffffcu; /* room for 3 hosts: .253, .254, .255 */
	t = build(&s);
	cr_expect_eq(t->devs[2].ip, 0xffffffffu);
	net_topo_destroy(t);
}

/* ---- Lookups ---- */

Test(net_topo, find_devices_and_links_by_name)
{
	struct net_topo *t = leaf_spine(4, 4, 4, 0);

	cr_expect_eq(net_topo_dev_find(t, "host0"), 0);
	cr_expect_eq(net_topo_dev_find(t, "host15"), 15);
	cr_expect_eq(net_topo_dev_find(t, "leaf3"), 19);
	cr_expect_eq(net_topo_dev_find(t, "spine0"), 20);
	cr_expect_eq(net_topo_dev_find(t, "leaf4"), -1);
	cr_expect_eq(net_topo_dev_find(t, "leaf03"), -1);
	cr_expect_eq(net_topo_dev_find(t, "tor0"), -1);
	cr_expect_eq(net_topo_dev_find(t, "leaf"), -1);
	cr_expect_eq(net_topo_dev_find(t, "0"), -1);
	cr_expect_eq(net_topo_dev_find(t, ""), -1);
	cr_expect_eq(net_topo_dev_find(t, "host99999999999"), -1);
	cr_expect_eq(net_topo_link_find(t, "host0-leaf0"), 0);
	cr_expect_eq(net_topo_link_find(t, "host13-leaf3"), 13);
	cr_expect_eq(net_topo_link_find(t, "leaf0-spine1"), 17);
	cr_expect_eq(net_topo_link_find(t, "leaf0-host0"), -1);  /* lower tier first */
	cr_expect_eq(net_topo_link_find(t, "host0-leaf1"), -1);  /* not linked */
	cr_expect_eq(net_topo_link_find(t, "leaf0-leaf1"), -1);
	cr_expect_eq(net_topo_link_find(t, "host0"), -1);
	cr_expect_eq(net_topo_link_find(t, "host0-leaf0-x"), -1);
	for (uint32_t l = 0; l < t->size.links; l++)
		cr_expect_eq(net_topo_link_find(t, link_name(t, l)), (int)l);
	net_topo_destroy(t);
	t = pair();
	cr_expect_eq(net_topo_link_find(t, "host0-host1"), 0);
	cr_expect_eq(net_topo_link_find(t, "host1-host0"), -1);
	net_topo_destroy(t);
}

Test(net_topo, names_of_types_and_tiers)
{
	cr_expect_str_eq(net_topo_type_name(NET_TOPO_LEAF_SPINE), "leaf-spine");
	cr_expect_str_eq(net_topo_type_name(NET_TOPO_FAT_TREE), "fat-tree");
	cr_expect_null(net_topo_type_name(NET_TOPO_TYPE_COUNT));
	cr_expect_str_eq(net_topo_tier_name(NET_TOPO_RACK, 1), "tor");
	cr_expect_str_eq(net_topo_tier_name(NET_TOPO_LEAF_SPINE, 2), "spine");
	cr_expect_str_eq(net_topo_tier_name(NET_TOPO_FAT_TREE, 2), "agg");
	cr_expect_str_eq(net_topo_tier_name(NET_TOPO_FAT_TREE, 3), "core");
	cr_expect_null(net_topo_tier_name(NET_TOPO_LEAF_SPINE, 3));
	cr_expect_null(net_topo_tier_name(NET_TOPO_PAIR, 1));
}

/* ---- Errors ---- */

static void check_fails(const struct net_topo_spec *s, uint8_t want_param, const char *want)
{
	static struct net_topo sentinel;
	struct net_topo *t = &sentinel;
	uint8_t param = 0xff;

	err[0] = '\0';
	cr_expect_eq(net_topo_check(s, NULL, &param, err, sizeof(err)), -EINVAL);
	cr_expect_eq(param, want_param, "param %u, want %u (%s)", param, want_param, err);
	cr_expect_str_eq(err, want);
	cr_expect_eq(net_topo_create(s, &t, err, sizeof(err)), -EINVAL);
	cr_expect_null(t);
	cr_expect_str_eq(err, want);
}

Test(net_topo, bad_descriptions)
{
	struct net_topo_spec s;

	net_topo_spec_defaults(&s, NET_TOPO_FAT_TREE);
	s.k = 0;
	check_fails(&s, NET_TOPO_P_K, "k 0 is not an even number of 2 or more; a fat tree's k is its switches' port "
		    "count, e.g. 8");
	s.k = 7;
	check_fails(&s, NET_TOPO_P_K, "k 7 is not an even number of 2 or more; a fat tree's k is its switches' port "
		    "count, e.g. 8");
	s.k = 66;
	check_fails(&s, NET_TOPO_P_K, "k 66 gives more than 65536 hosts (k^3 / 4); k is at most 64");
	s.k = 8;
	s.bps[3] = 0;
	check_fails(&s, NET_TOPO_P_DATARATE, "DataRate of the core tier is 0; a DataRate is above 0, e.g. 400Gbps");

	net_topo_spec_defaults(&s, NET_TOPO_RACK);
	check_fails(&s, NET_TOPO_P_HOSTS_PER_RACK, "hosts_per_rack is 0; a rack has at least 1 host, e.g. 8");
	s.hosts_per_rack = 65536;
	check_fails(&s, NET_TOPO_P_HOSTS_PER_RACK, "65536 hosts; at most 65535");
	s.hosts_per_rack = 8;
	s.ip_base = 0xfffffff8u;
	check_fails(&s, NET_TOPO_P_IP_BASE, "ip_base 255.255.255.248 leaves room for 7 hosts, not 8; lower ip_base, "
		    "e.g. 10.0.0.0");

	net_topo_spec_defaults(&s, NET_TOPO_LEAF_SPINE);
	s.racks = 4;
	check_fails(&s, NET_TOPO_P_HOSTS_PER_RACK, "hosts_per_rack is 0; a leaf has at least 1 host, e.g. 4");
	s.hosts_per_rack = 4;
	s.racks = 0;
	check_fails(&s, NET_TOPO_P_RACKS, "racks is 0; a leaf-spine has at least 1 rack, e.g. 4");
	s.racks = 5000;
	s.hosts_per_rack = 16;
	check_fails(&s, NET_TOPO_P_RACKS, "5000 racks of 16 hosts are 80000 hosts; at most 65535");
	s.racks = 4;
	s.hosts_per_rack = 6;
	s.oversubscription = 4;
	check_fails(&s, NET_TOPO_P_OVERSUBSCRIPTION, "hosts_per_rack 6 is not a multiple of oversubscription 4; a "
		    "leaf has hosts_per_rack / oversubscription uplinks, one to each spine: give spines instead");
	s.hosts_per_rack = 16;
	s.spines = 2;
	check_fails(&s, NET_TOPO_P_OVERSUBSCRIPTION, "spines 2 and oversubscription 4 disagree: hosts_per_rack / "
		    "oversubscription = 4 spines; give one of them");
	s.oversubscription = 0;
	s.spines = 65530;
	check_fails(&s, NET_TOPO_P_SPINES, "a leaf with 16 hosts and 65530 spines has 65546 ports; a switch has at "
		    "most 65535");

	s.type = 9;
	check_fails(&s, NET_TOPO_P_TYPE, "unknown topology type 9; use pair, rack, leaf-spine or fat-tree");
}

Test(net_topo, null_error_buffer_and_destroy_null)
{
	struct net_topo_spec s;
	struct net_topo *t;

	net_topo_spec_defaults(&s, NET_TOPO_FAT_TREE);
	cr_expect_eq(net_topo_create(&s, &t, NULL, 0), -EINVAL);
	cr_expect_eq(net_topo_check(&s, NULL, NULL, NULL, 0), -EINVAL);
	net_topo_destroy(NULL);
}

Test(net_topo, largest_fat_tree_builds)
{
	struct net_topo *t = fat_tree(62);
	uint64_t paths;

	cr_expect_eq(t->size.hosts, 59582);
	cr_expect_eq(t->size.links, 178746);
	cr_expect_str_eq(dev_name(t, t->size.devices - 1), "core960");
	cr_expect_str_eq(link_name(t, t->size.links - 1), "agg1921-core960");
	paths = walk(t, 0, t->size.hosts - 1, 0, 6);
	cr_expect_eq(paths, 31 * 31);
	net_topo_destroy(t);
}
