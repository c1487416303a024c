/* The topology builder: a fabric description (pair, rack, leaf-spine, fat-tree) to a flat graph of devices,
 * ports, links and up-down routes, with names and addresses. Pure: no I/O, no YAML, no clock.
 *
 * Tiers: 0 hosts, 1 rack switches (tor, leaf), 2 spine or aggregation switches (spine, agg), 3 core switches.
 * Per-tier DataRate and Delay follow the Scala pages: a link runs at the lower of its two ends' DataRate
 * (spec/scala/switch-configuration.md, "Network interfaces"; spec/scala/uet-nic-configuration.md, DataRate) and
 * takes the Delay of its lower-tier end ("a link takes its delay from the device at its lower end"; the NIC's
 * link takes the NIC's Delay). docs/topology.md describes the shapes, names, addresses and routes.
 */
#ifndef NET_TOPO_H
#define NET_TOPO_H

#include <stddef.h>
#include <stdint.h>

#include "emu_time.h"

enum net_topo_type {
	NET_TOPO_PAIR = 0,    /* two hosts back to back */
	NET_TOPO_RACK,        /* hosts_per_rack hosts on one tor */
	NET_TOPO_LEAF_SPINE,  /* racks leaves of hosts_per_rack hosts, every leaf linked to every spine */
	NET_TOPO_FAT_TREE,    /* k-ary three-tier fat tree (k pods of k/2 tors and k/2 aggs, (k/2)^2 cores) */
	NET_TOPO_TYPE_COUNT
};

enum net_topo_kind { NET_TOPO_HOST = 0, NET_TOPO_SWITCH };

#define NET_TOPO_TIERS 4
#define NET_TOPO_HOSTS_MAX 65535u      /* a host's MAC holds its index + 1 in 16 bits (as the explicit default) */
#define NET_TOPO_PORTS_MAX 65535u      /* a switch port's MAC holds the port number in 16 bits */
#define NET_TOPO_DEV_NAME_MAX 16       /* "spine65534" */
#define NET_TOPO_LINK_NAME_MAX 32      /* "<a>-<b>" */

/** What a parameter error is about, so a caller can point at the config key (net_topo_check()). */
enum net_topo_param {
	NET_TOPO_P_TYPE = 0,
	NET_TOPO_P_HOSTS_PER_RACK,
	NET_TOPO_P_RACKS,
	NET_TOPO_P_SPINES,
	NET_TOPO_P_OVERSUBSCRIPTION,
	NET_TOPO_P_K,
	NET_TOPO_P_DATARATE,
	/* never returned today, but control/ctl_config_fabric.c's param_keys table follows this order */
	NET_TOPO_P_DELAY,
	NET_TOPO_P_IP_BASE,
};

/** The description. Fields a type does not use are ignored. net_topo_spec_defaults() gives the Scala defaults. */
struct net_topo_spec {
	uint8_t type;                  /* enum net_topo_type */
	uint32_t hosts_per_rack;       /* rack, leaf-spine: hosts on each tor or leaf, >= 1 */
	uint32_t racks;                /* leaf-spine: leaves, >= 1 */
	/*
	 * leaf-spine: spines, or 0 to derive them from oversubscription. oversubscription is the ratio of a leaf's
	 * downlink ports to its uplink ports (one uplink to each spine): spines = hosts_per_rack / oversubscription,
	 * which must divide exactly. 0 = not given; with spines also 0 it means 1 (non-blocking). Given both, they
	 * must agree. With the same DataRate on both sides this is the bandwidth ratio too.
	 */
	uint32_t spines;
	uint32_t oversubscription;
	uint32_t k;                    /* fat-tree: even, >= 2 */
	/*
	 * DataRate (bit/s, > 0) and Delay (ps) per tier: [0] the hosts' NIC (UplinkNetworkInterface.DataRate,
	 * TransmissionMedium.Delay), [1] tor/leaf, [2] spine/agg, [3] core, each switch tier's value being both its
	 * UplinkNetworkInterface and DownlinkNetworkInterface DataRate and its TransmissionMedium Delay. A link between
	 * tiers t and t + 1 runs at min(bps[t], bps[t + 1]) with delay[t]; a pair's link at bps[0] with delay[0].
	 * The top tier's delay is unused: it has no uplinks.
	 */
	uint64_t bps[NET_TOPO_TIERS];
	emu_ps_t delay[NET_TOPO_TIERS];
	uint32_t ip_base;              /* host h gets IPv4 ip_base + h + 1 (host byte order) */
};

/** Counts of a description, by formula (net_topo_check()); docs/topology.md writes them out per type. */
struct net_topo_size {
	uint32_t n_tiers;                  /* tiers used: 1 pair, 2 rack, 3 leaf-spine, 4 fat-tree */
	uint32_t devs[NET_TOPO_TIERS];     /* devices of each tier: [0] hosts */
	uint32_t down[NET_TOPO_TIERS];     /* downlink ports of each device of the tier */
	uint32_t up[NET_TOPO_TIERS];       /* uplink ports of each device of the tier (a host's one port is its uplink) */
	uint32_t below[NET_TOPO_TIERS];    /* hosts below each device of the tier ([0]: 1, the host itself) */
	uint32_t hosts, switches, devices, ports, links;
};

/** One device: a host (its NIC) or a switch. Ports 0 .. n_down - 1 face down, n_down .. n_ports - 1 face up. */
struct net_topo_dev {
	char name[NET_TOPO_DEV_NAME_MAX]; /* "host3", "tor0", "leaf2", "spine1", "agg5", "core15" */
	uint8_t kind;                  /* enum net_topo_kind */
	uint8_t tier;                  /* 0 host, 1 tor/leaf, 2 spine/agg, 3 core */
	uint32_t node;                 /* index within its tier: the number in its name */
	uint32_t ip;                   /* hosts: IPv4, host byte order; switches: 0 */
	uint32_t n_ports, n_down, n_up;
	uint32_t port0;                /* its ports are ports[port0 .. port0 + n_ports - 1] of the topology */
	uint32_t host_lo, n_below;     /* the hosts below it: host_lo .. host_lo + n_below - 1, consecutive */
	uint32_t below_per_down;       /* hosts below each downlink port (down port of host h: (h - host_lo) / this) */
};

/** One port of a device: its link, which end of it, its MAC. */
struct net_topo_port {
	uint32_t link;                 /* index into links */
	uint8_t end;                   /* 0: the link's a end, 1: its b end */
	uint8_t mac[6];
};

/** One end of a link. */
struct net_topo_end {
	uint32_t dev, port;
};

/** A full-duplex link; a is the lower-tier end (for a pair, host0). */
struct net_topo_link {
	char name[NET_TOPO_LINK_NAME_MAX]; /* "<a>-<b>": "host3-leaf0", "leaf0-spine1", "host0-host1" */
	struct net_topo_end a, b;
	uint64_t bps;                  /* min(bps[tier of a], bps[tier of b]) */
	emu_ps_t delay;                /* delay[tier of a] */
};

/** An ECMP group: egress ports port .. port + n - 1 of a device (every group is a run of ports). */
struct net_topo_group {
	uint32_t port, n;
};

/**
 * A built topology. Read-only once built; public so the run builder can walk its arrays. Devices are ordered by
 * tier, then node: host h is device h. Links are ordered by their a end's tier, then device, then port: host h's
 * link is link h (a pair has one link). Owned by the caller of net_topo_create(); free with net_topo_destroy().
 */
struct net_topo {
	struct net_topo_spec spec;     /* as given, spines derived for leaf-spine */
	struct net_topo_size size;
	uint32_t tier_first[NET_TOPO_TIERS]; /* device index of each tier's node 0 */
	struct net_topo_dev *devs;     /* size.devices */
	struct net_topo_port *ports;   /* size.ports */
	struct net_topo_link *links;   /* size.links */
};

/** Fill @p spec with type @p type, no counts, the Scala defaults: 400 Gb/s everywhere, NIC Delay 100 ns, switch
 *  Delay 500 ns, ip_base 10.0.0.0. */
void net_topo_spec_defaults(struct net_topo_spec *spec, uint8_t type);

/** Name of a type ("pair", "rack", "leaf-spine", "fat-tree"), or NULL for an unknown one. */
const char *net_topo_type_name(uint8_t type);

/** Name prefix of the devices of @p tier in a @p type topology ("host", "tor", "leaf", "spine", "agg", "core"),
 *  or NULL if the type has no such tier. */
const char *net_topo_tier_name(uint8_t type, uint32_t tier);

/**
 * Check @p spec and compute its counts into @p size (may be NULL), without building anything.
 * Returns 0, or -EINVAL with one line "<what>; <suggestion>" in @p err (size @p errlen; may be NULL) and, if
 * @p param is not NULL, the parameter at fault there (enum net_topo_param): an unknown type, a zero count, an odd
 * or small k, spines and oversubscription that disagree or do not divide, more than NET_TOPO_HOSTS_MAX hosts,
 * a switch with more than NET_TOPO_PORTS_MAX ports, host addresses past 255.255.255.255, a zero DataRate.
 */
int net_topo_check(const struct net_topo_spec *spec, struct net_topo_size *size, uint8_t *param, char *err,
		   size_t errlen);

/**
 * Build the topology of @p spec into a new object at @p out (NULL on error).
 * Returns 0, -EINVAL as net_topo_check() (message in @p err, size @p errlen), or -ENOMEM.
 */
int net_topo_create(const struct net_topo_spec *spec, struct net_topo **out, char *err, size_t errlen);

/** Free @p t. Accepts NULL. */
void net_topo_destroy(struct net_topo *t);

/**
 * The ECMP group of device @p dev toward host @p host (up-down routing): a host sends on its one port; a switch
 * with @p host below it sends down its one port toward it, any other switch on all its uplinks.
 * Returns 0 with the group in @p g, -EINVAL for an index out of range, -ENOENT when @p dev is @p host.
 */
int net_topo_route(const struct net_topo *t, uint32_t dev, uint32_t host, struct net_topo_group *g);

/** The other end of the link on port @p port of device @p dev (both in range; asserted). */
struct net_topo_end net_topo_peer(const struct net_topo *t, uint32_t dev, uint32_t port);

/** Index of the device named @p name ("leaf3"), or -1. */
int net_topo_dev_find(const struct net_topo *t, const char *name);

/** Index of the link named @p name ("host3-leaf0"), or -1. */
int net_topo_link_find(const struct net_topo *t, const char *name);

#endif /* NET_TOPO_H */
