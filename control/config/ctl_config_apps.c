/* The applications and ports sections: what hosts send, which NICs meet DPDK ports. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl_yaml_pvt.h"
#include "app_place.h"
#include "app_timeline.h"
#include "app_wqe.h"
#include "emu_units.h"
#include "net_topo.h"
#include "nic.h"

#define MSG_EXAMPLE "a message needs src, dst and bytes, e.g. {src: host0, dst: host1, bytes: 1MiB}"
#define PORT_EXAMPLE "a port needs attach and dev, e.g. {attach: host0, dev: \"net_tap0,iface=uet0\"} or " \
	"{attach: [host0, host1], dev: \"net_af_packet0,iface=veth0\", gateway: 10.1.0.254}"

struct app_obj {
	struct ctl_config *cfg;
	struct ctl_app *app;
};

struct msg_obj {
	struct ctl_config *cfg;
	struct ctl_message *m;
};

static int msg_src(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	struct msg_obj *o = obj;

	return ctl_val_host(c, v, o->cfg, &o->m->src);
}

static int msg_dst(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	struct msg_obj *o = obj;

	return ctl_val_host(c, v, o->cfg, &o->m->dst);
}

static int msg_bytes(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	struct msg_obj *o = obj;
	uint32_t mss = o->cfg->nic.rdma_data_mss;
	int rc = ctl_val_u64(c, v, emu_parse_size, "1MiB", &o->m->bytes);

	if (rc == 0 && o->m->bytes > nic_msg_bytes_max(mss))
		rc = ctl_err(c, v, "%llu B is more than a message can carry: at most 2^31 packets of RdmaDataMSS %u B, "
			     "%llu B; split it into several messages", (unsigned long long)o->m->bytes, mss,
			     (unsigned long long)nic_msg_bytes_max(mss));
	return rc;
}

static int msg_start(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	return ctl_val_u64(c, v, emu_parse_timeval, "10us", &((struct msg_obj *)obj)->m->start);
}

static int msg_item(struct ctl_ctx *c, const struct ctl_ynode *item, uint32_t idx, void *obj)
{
	static const struct ctl_key keys[] = {
		{ "src", true, msg_src }, { "dst", true, msg_dst }, { "bytes", true, msg_bytes },
		{ "start", false, msg_start },
	};
	struct app_obj *a = obj;
	struct msg_obj o = { .cfg = a->cfg, .m = &a->app->list[idx] };
	int rc = ctl_walk_map(c, item, keys, sizeof(keys) / sizeof(keys[0]), &o, MSG_EXAMPLE);

	if (rc == 0 && o.m->src == o.m->dst) {
		size_t old = ctl_push(c, "dst");

		rc = ctl_err(c, ctl_y_get(item, "dst"), "src and dst are both '%s'; a message goes between two "
			     "different hosts", a->cfg->hosts[o.m->src].name);
		ctl_pop(c, old);
	}
	return rc;
}

/*
 * A ScalaRdma application: one per config (placement places one application), and its ratios placed on the
 * topology's hosts as the run will (spec seeds/003, Host counts): each above 0, adding up to 1, enough hosts.
 */
static int app_rdma_check(struct ctl_ctx *c, const struct ctl_ynode *item, struct ctl_config *cfg, uint32_t idx)
{
	static const char *const names[] = { "prScalaRdmaInitiator", "prScalaRdmaResponder" };
	const struct ctl_app *app = &cfg->apps[idx];
	uint32_t ratio[2] = { app->pr_initiator, app->pr_responder }, count[2];
	char why[200];

	if (cfg->rdma_app >= 0)
		return ctl_err(c, item, "a second ScalaRdma application; the first is applications.%d, and a config "
			       "has at most one", cfg->rdma_app);
	if (app_host_counts(cfg->n_hosts, ratio, names, 2, count, why, sizeof(why)) < 0)
		return ctl_err(c, item, "%s; e.g. prScalaRdmaInitiator: 0.5, prScalaRdmaResponder: 0.5 on 2 or more "
			       "hosts", why);
	cfg->rdma_app = (int32_t)idx;
	return 0;
}

static int app_type(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	struct app_obj *a = obj;
	const char *s;
	int rc = ctl_scalar(c, v, "messages", &s);

	if (rc != 0)
		return rc;
	if (strcmp(s, "messages") == 0)
		a->app->type = CTL_APP_MESSAGES;
	else if (strcmp(s, "ScalaRdma") == 0)
		a->app->type = CTL_APP_SCALA_RDMA;
	else
		rc = ctl_err(c, v, "unknown application type '%s'; use messages, ScalaRdma, Chakra, pingpong or responder", s);
	return rc;
}

static int app_list(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	struct app_obj *a = obj;
	uint32_t n = ctl_seq_len(v);

	if (n > 0 && (a->app->list = calloc(n, sizeof(*a->app->list))) == NULL)
		return -ENOMEM;
	a->app->n_list = n;
	return ctl_walk_seq(c, v, msg_item, a, "e.g. list: [{src: host0, dst: host1, bytes: 1MiB}]");
}

/* A distribution ratio (spec seeds/003, Host counts): a number above 0 and at most 1, kept in parts per billion. */
static int app_ratio(struct ctl_ctx *c, const struct ctl_ynode *v, uint32_t *out)
{
	const char *s;
	char why[1];
	double d;
	int rc = ctl_scalar(c, v, "0.5", &s);

	if (rc != 0)
		return rc;
	/* a decimal number only, as every double attribute (emu_parse_double(): strtod alone takes hex, inf, nan) */
	if (emu_parse_double(s, &d, why, sizeof(why)) != 0 || !(d > 0.0 && d <= 1.0))
		return ctl_err(c, v, "bad ratio '%s'; a distribution ratio is above 0 and at most 1, e.g. 0.5", s);
	*out = app_ratio_ppb(d);
	if (*out == 0)
		return ctl_err(c, v, "ratio '%s' rounds to 0 parts per billion; use at least 0.000000001", s);
	return 0;
}

static int app_pr_init(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	return app_ratio(c, v, &((struct app_obj *)obj)->app->pr_initiator);
}

static int app_pr_resp(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	return app_ratio(c, v, &((struct app_obj *)obj)->app->pr_responder);
}

static int app_num_conn(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	uint64_t n;
	int rc = ctl_val_uint(c, v, 1, APP_NUM_CONNECTIONS_MAX, &n);

	((struct app_obj *)obj)->app->num_connections = (uint32_t)n;
	return rc;
}

static int app_max_pending(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	uint64_t n;
	int rc = ctl_val_uint(c, v, 0, UINT32_MAX, &n);

	((struct app_obj *)obj)->app->max_pending = (uint32_t)n;
	return rc;
}

static int app_tc(struct ctl_ctx *c, const struct ctl_ynode *v, uint8_t *out)
{
	uint64_t n;
	int rc = ctl_val_uint(c, v, 0, 7, &n);

	if (rc == 0)
		*out = (uint8_t)n;
	return rc;
}

static int app_data_tc(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	return app_tc(c, v, &((struct app_obj *)obj)->app->data_tc);
}

static int app_control_tc(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	return app_tc(c, v, &((struct app_obj *)obj)->app->control_tc);
}

/* DoorbellPayloadSize (seed 003, WQEs): bytes, with or without a unit. */
static int app_doorbell(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	uint64_t n;
	int rc = ctl_val_u64(c, v, emu_parse_size, "64B", &n);

	if (rc == 0 && n > UINT32_MAX)
		rc = ctl_err(c, v, "DoorbellPayloadSize %llu B is above 4,294,967,295 B; e.g. 64B",
			     (unsigned long long)n);
	if (rc == 0)
		((struct app_obj *)obj)->app->doorbell_payload = (uint32_t)n;
	return rc;
}

/* An attribute with one allowed value (spec seeds/003: every WQE is an RDMA WRITE). */
static int app_only(struct ctl_ctx *c, const struct ctl_ynode *v, const char *name, const char *allowed)
{
	const char *s;
	int rc = ctl_scalar(c, v, allowed, &s);

	if (rc == 0 && strcmp(s, allowed) != 0)
		rc = ctl_err(c, v, "%s '%s' is not supported; its one allowed value is %s (every WQE is an RDMA "
			     "WRITE)", name, s, allowed);
	return rc;
}

static int app_opcode(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	(void)obj;
	return app_only(c, v, "OpCode", "RDMA_OPCODE_WRITE_FIRST");
}

static int app_verb(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	(void)obj;
	return app_only(c, v, "RdmaVerb", "RDMA_VERB_POST_WRITE");
}

static int app_start_type(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	const char *s;
	char why[160];
	enum app_start t;
	int rc = ctl_scalar(c, v, "simultaneous", &s);

	if (rc == 0 && app_start_parse(s, &t, why, sizeof(why)) < 0)
		rc = ctl_err(c, v, "%s", why);
	if (rc == 0)
		((struct app_obj *)obj)->app->start_type = (uint8_t)t;
	return rc;
}

/* The keys of the other type are refused by name, so a ScalaRdma entry cannot carry a silent list. */
static int app_check_keys(struct ctl_ctx *c, const struct ctl_ynode *item, const struct ctl_app *app)
{
	static const char *const rdma_keys[] = { "prScalaRdmaInitiator", "prScalaRdmaResponder", "NumConnections",
						  "MaxPendingWQEs", "StartType", "OpCode", "RdmaVerb",
						  "RdmaDataPacketTC", "RdmaControlPacketTC", "DoorbellPayloadSize" };

	if (app->type == CTL_APP_SCALA_RDMA && ctl_y_get(item, "list") != NULL) {
		size_t old = ctl_push(c, "list");
		int rc = ctl_err(c, ctl_y_get(item, "list"), "list does not apply to a ScalaRdma application; it "
				 "takes prScalaRdmaInitiator, prScalaRdmaResponder, NumConnections, MaxPendingWQEs, "
				 "StartType, OpCode, RdmaVerb, RdmaDataPacketTC, RdmaControlPacketTC, "
				 "DoorbellPayloadSize");
		ctl_pop(c, old);
		return rc;
	}
	for (size_t i = 0; app->type == CTL_APP_MESSAGES && i < sizeof(rdma_keys) / sizeof(rdma_keys[0]); i++)
		if (ctl_y_get(item, rdma_keys[i]) != NULL) {
			size_t old = ctl_push(c, rdma_keys[i]);
			int rc = ctl_err(c, ctl_y_get(item, rdma_keys[i]), "%s applies to a ScalaRdma application; "
					 "add type: ScalaRdma", rdma_keys[i]);
			ctl_pop(c, old);
			return rc;
		}
	return 0;
}

static int app_item(struct ctl_ctx *c, const struct ctl_ynode *item, uint32_t idx, void *obj)
{
	static const struct ctl_key keys[] = {
		{ "type", false, app_type }, { "list", false, app_list },
		{ "prScalaRdmaInitiator", false, app_pr_init }, { "prScalaRdmaResponder", false, app_pr_resp },
		{ "NumConnections", false, app_num_conn }, { "MaxPendingWQEs", false, app_max_pending },
		{ "StartType", false, app_start_type }, { "OpCode", false, app_opcode },
		{ "RdmaVerb", false, app_verb }, { "RdmaDataPacketTC", false, app_data_tc },
		{ "RdmaControlPacketTC", false, app_control_tc }, { "DoorbellPayloadSize", false, app_doorbell },
	};
	struct ctl_config *cfg = obj;
	struct app_obj a = { .cfg = cfg, .app = &cfg->apps[idx] };
	const struct ctl_ynode *t = ctl_y_get(item, "type");

	if (t != NULL && t->type == CTL_Y_SCALAR && strcmp(t->text, "Chakra") == 0)
		return ctl_app_chakra(c, item, cfg, idx);
	if (t != NULL && t->type == CTL_Y_SCALAR && (strcmp(t->text, "pingpong") == 0 ||
						     strcmp(t->text, "responder") == 0))
		return ctl_app_pingpong(c, item, cfg, idx);
	if (t != NULL && t->type == CTL_Y_SCALAR && (strcmp(t->text, "flows") == 0 || strcmp(t->text, "stream") == 0))
		return ctl_app_flows(c, item, cfg, idx);

	/* Defaults (spec seeds/003): alone, the application gets 0.5 and 0.5 of the ratio budget. */
	a.app->pr_initiator = APP_RATIO_ALONE;
	a.app->pr_responder = APP_RATIO_ALONE;
	a.app->num_connections = APP_NUM_CONNECTIONS_DEFAULT;
	a.app->max_pending = APP_MAX_PENDING_WQES_DEFAULT;
	a.app->start_type = APP_START_SIMULTANEOUS;
	a.app->data_tc = 0;
	a.app->control_tc = 1;
	a.app->doorbell_payload = APP_DOORBELL_PAYLOAD_DEFAULT;
	int rc = ctl_walk_map(c, item, keys, sizeof(keys) / sizeof(keys[0]), &a,
			      "an application is {type: messages, list: [{src: host0, dst: host1, bytes: 1MiB}]} or "
			      "{type: ScalaRdma}");
	if (rc == 0)
		rc = app_check_keys(c, item, a.app);
	if (rc == 0 && a.app->type == CTL_APP_SCALA_RDMA)
		rc = app_rdma_check(c, item, cfg, idx);
	return rc;
}

int ctl_sec_applications(struct ctl_ctx *c, const struct ctl_ynode *v, struct ctl_config *cfg)
{
	uint32_t n = ctl_seq_len(v);

	if (n > 0 && (cfg->apps = calloc(n, sizeof(*cfg->apps))) == NULL)
		return -ENOMEM;
	cfg->n_apps = n;
	return ctl_walk_seq(c, v, app_item, cfg, "e.g. applications: [{type: messages, list: [...]}]");
}

struct port_obj {
	struct ctl_config *cfg;
	struct ctl_port *p;
};

/* One host of a port's attach: known, and on no port yet (a host's NIC has one port). */
static int port_attach_one(struct ctl_ctx *c, const struct ctl_ynode *v, struct port_obj *o)
{
	uint32_t h;
	int rc = ctl_val_host(c, v, o->cfg, &h);

	if (rc == 0 && o->cfg->hosts[h].external)
		rc = ctl_err(c, v, "host '%s' is external: no emulated NIC; bind the switch port it faces instead, e.g. "
			     "attach: \"tor0:3\"", o->cfg->hosts[h].name);
	for (struct ctl_port *q = o->cfg->ports; rc == 0 && q <= o->p; q++)
		for (uint32_t i = 0; rc == 0 && i < q->n_hosts; i++)
			if (q->hosts[i] == h)
				rc = ctl_err(c, v, "host '%s' is already attached by ports.%u; a host's NIC has one port",
					     o->cfg->hosts[h].name, (uint32_t)(q - o->cfg->ports));
	if (rc == 0 && o->p->n_hosts >= CTL_PORT_HOSTS_MAX)
		rc = ctl_err(c, v, "more than %u hosts on one port", CTL_PORT_HOSTS_MAX);
	if (rc == 0)
		o->p->hosts[o->p->n_hosts++] = h;
	return rc;
}

static int port_attach_item(struct ctl_ctx *c, const struct ctl_ynode *item, uint32_t idx, void *obj)
{
	(void)idx;
	return port_attach_one(c, item, obj);
}

/* Resolve "DEVICE:PORT" in @p t into port @p p: a switch port whose link goes to a host marked external, or to a
 * switch of another partition. */
static int port_switch_in(struct ctl_ctx *c, const struct ctl_ynode *v, const struct net_topo *t,
			  struct port_obj *o, const char *s)
{
	char name[NET_TOPO_DEV_NAME_MAX], *end;
	const char *colon = strchr(s, ':');
	size_t n = (size_t)(colon - s);

	if (n == 0 || n >= sizeof(name))
		return ctl_err(c, v, "bad switch port '%s'; e.g. \"tor0:3\" (device:port)", s);
	memcpy(name, s, n);
	name[n] = '\0';
	int dev = net_topo_dev_find(t, name);
	unsigned long port = strtoul(colon + 1, &end, 10);

	if (dev < 0 || t->devs[dev].kind != NET_TOPO_SWITCH)
		return ctl_err(c, v, "no switch '%s' in this fabric; a switch port is named like \"tor0:3\"", name);
	if (colon[1] == '\0' || *end != '\0' || port >= t->devs[dev].n_ports)
		return ctl_err(c, v, "bad port in '%s'; %s has ports 0 to %u", s, name, t->devs[dev].n_ports - 1);
	struct net_topo_end peer = net_topo_peer(t, (uint32_t)dev, (uint32_t)port);

	bool sw_peer = t->devs[peer.dev].kind == NET_TOPO_SWITCH;
	/* a link between two partitions: each process binds its end (docs/realtime.md, one fabric, two processes) */
	bool cross = sw_peer && o->cfg->parts_given && o->cfg->dev_part[peer.dev] != o->cfg->dev_part[dev];

	if (sw_peer && !cross)
		return ctl_err(c, v, "%s faces %s, a switch of the same partition; a switch port bound to a DPDK port "
			       "faces a host marked external, or a switch of another partition (partitions)", s,
			       t->devs[peer.dev].name);
	if (!sw_peer && !o->cfg->hosts[peer.dev].external)
		return ctl_err(c, v, "%s faces %s, an emulated device; a switch port bound to a DPDK port faces a host "
			       "marked external (topology.hosts: [{name: %s, external: true}])", s,
			       t->devs[peer.dev].name, t->devs[peer.dev].name);
	for (struct ctl_port *q = o->cfg->ports; q < o->p; q++)
		if (q->sw && q->sw_dev == (uint32_t)dev && q->sw_port == port)
			return ctl_err(c, v, "%s is already bound by ports.%u", s, (uint32_t)(q - o->cfg->ports));
	o->p->sw = true;
	o->p->sw_dev = (uint32_t)dev;
	o->p->sw_port = (uint32_t)port;
	o->p->sw_host = sw_peer ? UINT32_MAX : peer.dev;
	o->p->sw_peer = peer.dev;
	o->p->sw_link = t->ports[t->devs[dev].port0 + port].link;
	return 0;
}

/* attach: "DEVICE:PORT", a switch port of the generated fabric facing an external host. */
static int port_attach_switch(struct ctl_ctx *c, const struct ctl_ynode *v, struct port_obj *o, const char *s)
{
	struct net_topo *t = NULL;
	char msg[256];

	if (o->cfg->topo_type != CTL_TOPO_GENERATED)
		return ctl_err(c, v, "'%s' names a switch port, but the topology is explicit: it has no switch", s);
	if (ctl_config_topo_build(o->cfg, &t, msg, sizeof(msg)) != 0)
		return ctl_err(c, v, "%s", msg);
	int rc = port_switch_in(c, v, t, o, s);

	net_topo_destroy(t);
	return rc;
}

/* attach: a host name, a list of the hosts sharing the port, or "DEVICE:PORT", a switch port. */
static int port_attach(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	struct port_obj *o = obj;

	if (v->type == CTL_Y_SCALAR && strchr(v->text, ':') != NULL)
		return port_attach_switch(c, v, o, v->text);
	if (v->type != CTL_Y_SEQ)
		return port_attach_one(c, v, o);
	if (ctl_seq_len(v) == 0)
		return ctl_err(c, v, "empty list; attach names one host or a list of them, e.g. [host0, host1]");
	return ctl_walk_seq(c, v, port_attach_item, o, "e.g. attach: [host0, host1]");
}

static int port_gateway(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	return ctl_val_gateway(c, v, &((struct port_obj *)obj)->p->gateway);
}

static int port_dev(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	struct port_obj *o = obj;
	const char *s;
	int rc = ctl_scalar(c, v, "\"net_tap0,iface=uet0\"", &s);

	if (rc != 0)
		return rc;
	if (s[0] == '\0' || strlen(s) >= sizeof(o->p->dev))
		return ctl_err(c, v, "bad dev '%s'; dev is DPDK devargs of 1 to %zu characters, e.g. "
			       "\"net_tap0,iface=uet0\"", s, sizeof(o->p->dev) - 1);
	for (struct ctl_port *q = o->cfg->ports; q < o->p; q++)
		if (strcmp(q->dev, s) == 0)
			return ctl_err(c, v, "duplicate dev '%s'; the first is ports.%u", s,
				       (uint32_t)(q - o->cfg->ports));
	memcpy(o->p->dev, s, strlen(s) + 1);
	return 0;
}

static int port_tx(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	struct port_obj *o = obj;
	const char *s;
	int rc = ctl_scalar(c, v, "zerocopy", &s);

	if (rc != 0)
		return rc;
	if (strcmp(s, "zerocopy") != 0 && strcmp(s, "copy") != 0)
		return ctl_err(c, v, "unknown tx '%s'; use zerocopy (the default) or copy", s);
	o->p->tx_copy = strcmp(s, "copy") == 0;
	return 0;
}

static int port_xdp_steering(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	struct port_obj *o = obj;
	bool on;
	int rc = ctl_val_bool(c, v, &on);

	if (rc == 0)
		o->p->xdp_steering = on;
	return rc;
}

/* vlan: the 802.1Q VLAN id of the port's frames (docs/realtime.md, VLANs). */
static int port_vlan(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	uint64_t vid;
	int rc = ctl_val_uint(c, v, 1, 4094, &vid);

	if (rc == 0)
		((struct port_obj *)obj)->p->vlan = (uint16_t)vid;
	return rc;
}

/* rx_csum: how the port takes UDP checksums (docs/realtime.md, Checksums and MTU). */
static int port_rx_csum(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	static const char *const names[] = { [WIRE_CSUM_VERIFY] = "verify", [WIRE_CSUM_OFFLOAD] = "offload",
					     [WIRE_CSUM_IGNORE] = "ignore" };
	const char *s;
	int rc = ctl_scalar(c, v, "offload", &s);

	if (rc != 0)
		return rc;
	for (uint8_t m = 0; m < sizeof(names) / sizeof(names[0]); m++)
		if (strcmp(s, names[m]) == 0) {
			((struct port_obj *)obj)->p->rx_csum = m;
			return 0;
		}
	return ctl_err(c, v, "unknown rx_csum '%s'; use offload (the default: a partial checksum of a Linux "
		       "sender's TX offload is taken), verify (every non-zero checksum complete and right) or ignore",
		       s);
}

/* mtu: the IP MTU of the port's link, for the frame-size rule of real time (docs/realtime.md). */
static int port_mtu(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	uint64_t mtu;
	int rc = ctl_val_uint(c, v, CTL_PORT_MTU_MIN, CTL_PORT_MTU_MAX, &mtu);

	if (rc == 0)
		((struct port_obj *)obj)->p->mtu = (uint32_t)mtu;
	return rc;
}

/* neighbours: arp (the default: learnt by ARP) or static (from the config only; docs/realtime.md). */
static int port_neighbours(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	const char *s;
	int rc = ctl_scalar(c, v, "static", &s);

	if (rc != 0)
		return rc;
	if (strcmp(s, "arp") != 0 && strcmp(s, "static") != 0)
		return ctl_err(c, v, "unknown neighbours '%s'; use arp (the default: next hops resolved by ARP) or "
			       "static (only the config's MACs: the hosts' mac: and neighbour_macs; ARP never moves "
			       "one)", s);
	((struct port_obj *)obj)->p->neigh_static = strcmp(s, "static") == 0;
	return 0;
}

/* One neighbour_macs entry, {ip: 10.1.0.254, mac: "aa:bb:cc:dd:ee:ff"}: its keys. */
struct neigh_obj {
	struct ctl_port *p;
	struct ctl_port_neigh *e;
};

static int neigh_ip(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	struct neigh_obj *o = obj;
	char msg[256];
	const char *s;

	if (ctl_scalar(c, v, "10.1.0.254", &s) != 0)
		return -EINVAL;
	if (emu_parse_ipv4(s, &o->e->ip, msg, sizeof(msg)) != 0)
		return ctl_err(c, v, "%s", msg);
	if (o->e->ip == 0)
		return ctl_err(c, v, "0.0.0.0 is no neighbour; give its address, e.g. 10.1.0.254");
	for (const struct ctl_port_neigh *q = o->p->neigh_macs; q < o->e; q++)
		if (q->ip == o->e->ip)
			return ctl_err(c, v, "%s is in neighbour_macs.%u already; a neighbour has one MAC", v->text,
				       (uint32_t)(q - o->p->neigh_macs));
	return 0;
}

static int neigh_mac(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	struct neigh_obj *o = obj;
	char msg[256];
	const char *s;
	int rc = ctl_scalar(c, v, "\"02:42:0a:01:00:fe\"", &s);

	if (rc == 0 && emu_parse_mac(s, o->e->mac, msg, sizeof(msg)) != 0)
		rc = ctl_err(c, v, "%s", msg);
	if (rc == 0 && (o->e->mac[0] & 1))
		rc = ctl_err(c, v, "%s is a multicast or broadcast MAC; a neighbour has a unicast one", s);
	return rc;
}

static int port_neigh_item(struct ctl_ctx *c, const struct ctl_ynode *item, uint32_t idx, void *obj)
{
	static const struct ctl_key keys[] = { { "ip", true, neigh_ip }, { "mac", true, neigh_mac } };
	struct port_obj *po = obj;
	struct neigh_obj o = { .p = po->p, .e = &po->p->neigh_macs[idx] };

	return ctl_walk_map(c, item, keys, sizeof(keys) / sizeof(keys[0]), &o,
			    "e.g. {ip: 10.1.0.254, mac: \"02:42:0a:01:00:fe\"}");
}

/* neighbour_macs: [{ip, mac}]: the MAC of each neighbour named, used as is (never ARPed, never moved by ARP). */
static int port_neighbour_macs(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	struct port_obj *o = obj;
	uint32_t n = v->type == CTL_Y_SEQ ? ctl_seq_len(v) : 0;

	if (n > CTL_PORT_NEIGH_MACS_MAX)
		return ctl_err(c, v, "%u neighbour_macs; a port takes at most %u", n, CTL_PORT_NEIGH_MACS_MAX);
	o->p->n_neigh_macs = n;
	return ctl_walk_seq(c, v, port_neigh_item, o,
			    "e.g. neighbour_macs: [{ip: 10.1.0.254, mac: \"02:42:0a:01:00:fe\"}]");
}

/* peer_timeout: how long a port facing another process's switch waits for that process (docs/realtime.md). */
static int port_peer_timeout(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	struct port_obj *o = obj;

	o->p->peer_timeout_given = true;
	return ctl_val_u64(c, v, emu_parse_timeval, "5s", &o->p->peer_timeout);
}

/* What the keys of one port entry say together. */
static int port_check(struct ctl_ctx *c, const struct ctl_ynode *item, const struct ctl_port *p)
{
	bool af_xdp = strncmp(p->dev, "net_af_xdp", 10) == 0;

	if (p->xdp_steering == 1 && !af_xdp)
		return ctl_err(c, item, "xdp_steering: true is for net_af_xdp devs only, not '%s'", p->dev);
	if (p->vlan != 0 && p->sw)
		return ctl_err(c, item, "vlan: is for ports of emulated hosts; a switch port (attach: \"DEV:PORT\") "
			       "sends and takes untagged frames");
	if (p->peer_timeout_given && !(p->sw && p->sw_host == UINT32_MAX))
		return ctl_err(c, item, "peer_timeout: is for a port on a link to another process's switch (attach: "
			       "\"DEV:PORT\" facing a switch of another partition)");
	if (p->xdp_steering == 1 && p->sw && p->sw_host == UINT32_MAX)
		return ctl_err(c, item, "xdp_steering: true on a link to another process's switch: that link carries "
			       "every kind of frame (real devices' and the processes' hellos), which steering would hand "
			       "to the kernel");
	if ((p->neigh_static || p->n_neigh_macs > 0) && p->sw)
		return ctl_err(c, item, "neighbours: and neighbour_macs: are for ports of emulated hosts; a switch port "
			       "(attach: \"DEV:PORT\") resolves no next hop");
	if (p->vlan != 0 && af_xdp && p->xdp_steering != 0)
		return ctl_err(c, item, "vlan: on '%s' needs xdp_steering: false (the steering program does not look "
			       "inside 802.1Q tags: it would hand every tagged frame to the kernel)", p->dev);
	return 0;
}

static int port_item(struct ctl_ctx *c, const struct ctl_ynode *item, uint32_t idx, void *obj)
{
	static const struct ctl_key keys[] = { { "attach", true, port_attach }, { "dev", true, port_dev },
					       { "gateway", false, port_gateway },
					       { "mtu", false, port_mtu },
					       { "neighbour_macs", false, port_neighbour_macs },
					       { "neighbours", false, port_neighbours },
					       { "peer_timeout", false, port_peer_timeout },
					       { "rx_csum", false, port_rx_csum },
					       { "tx", false, port_tx },
					       { "vlan", false, port_vlan },
					       { "xdp_steering", false, port_xdp_steering } };
	struct port_obj o = { .cfg = obj, .p = &((struct ctl_config *)obj)->ports[idx] };

	o.p->xdp_steering = -1;
	o.p->rx_csum = WIRE_CSUM_OFFLOAD;
	o.p->peer_timeout = CTL_PORT_PEER_TIMEOUT_PS;
	int rc = ctl_walk_map(c, item, keys, sizeof(keys) / sizeof(keys[0]), &o, PORT_EXAMPLE);
	return rc == 0 ? port_check(c, item, o.p) : rc;
}

int ctl_sec_ports(struct ctl_ctx *c, const struct ctl_ynode *v, struct ctl_config *cfg)
{
	uint32_t n = ctl_seq_len(v);

	if (n > 0 && (cfg->ports = calloc(n, sizeof(*cfg->ports))) == NULL)
		return -ENOMEM;
	cfg->n_ports = n;
	return ctl_walk_seq(c, v, port_item, cfg, "e.g. ports: [{attach: host0, dev: \"net_tap0,iface=uet0\"}]");
}
