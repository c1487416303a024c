/* The NIC model of the hosts (server.nic, the platform's modelId) and what each model gives the run (the model
 * table), the Scala RoCE NIC's typedParameters (roce_nic, walked against roce_param_table) and the rules that stop
 * a run with RoCE NICs. */
#include <stdio.h>
#include <string.h>

#include "ctl_yaml_pvt.h"
#include "nic.h"
#include "roce.h"
#include "roce_params.h"
#include "wire.h"

static uint64_t uet_bps(const struct ctl_config *cfg)
{
	return cfg->nic.data_rate_bps;
}

static emu_ps_t uet_delay(const struct ctl_config *cfg)
{
	return cfg->nic.delay_ps;
}

static uint32_t uet_max_datagram(const struct ctl_config *cfg, const char **key, uint32_t *mss)
{
	*key = "nic.TransportProcessingLayers.SemanticLayer.RdmaDataMSS";
	*mss = cfg->nic.rdma_data_mss;
	return *mss + wire_data_overhead(nic_params_encap(&cfg->nic)) - WIRE_FCS_LEN - WIRE_ETH_LEN;
}

static uint64_t roce_bps(const struct ctl_config *cfg)
{
	return cfg->roce.data_rate_bps;
}

static emu_ps_t roce_delay(const struct ctl_config *cfg)
{
	return cfg->roce.delay_ps;
}

static uint32_t roce_max_datagram(const struct ctl_config *cfg, const char **key, uint32_t *mss)
{
	uint8_t e = (uint8_t)((cfg->roce.icrc ? WIRE_ENCAP_ICRC : 0) | (cfg->roce.reth ? WIRE_ENCAP_RETH : 0));

	*key = "roce_nic.ScalaRoceQpManager.MSS";
	*mss = cfg->roce.mss;
	return *mss + wire_roce_data_overhead(e) + (cfg->roce.reth ? WIRE_RETH_LEN : 0) - WIRE_FCS_LEN - WIRE_ETH_LEN;
}

/* By enum ctl_nic_model, in its order. */
static const struct ctl_nic_model_info models[] = {
	{ .name = "ScalaUetNic", .ops = &nic_port_ops, .rocev2 = false, .host_bps = uet_bps, .host_delay = uet_delay,
	  .max_datagram = uet_max_datagram, .warnings = ctl_warn_uet },
	{ .name = "ScalaRoceNic", .ops = &roce_port_ops, .rocev2 = true, .host_bps = roce_bps,
	  .host_delay = roce_delay, .max_datagram = roce_max_datagram, .warnings = ctl_warn_roce },
};
_Static_assert(sizeof(models) / sizeof(models[0]) == CTL_NIC_MODEL_COUNT, "one entry per NIC model");

const struct ctl_nic_model_info *ctl_config_nic_model(const struct ctl_config *cfg)
{
	return &models[cfg->nic_model < CTL_NIC_MODEL_COUNT ? cfg->nic_model : 0];
}

uint64_t ctl_config_host_bps(const struct ctl_config *cfg)
{
	return ctl_config_nic_model(cfg)->host_bps(cfg);
}

emu_ps_t ctl_config_host_delay(const struct ctl_config *cfg)
{
	return ctl_config_nic_model(cfg)->host_delay(cfg);
}

static const char *const *roce_path(unsigned r)
{
	return roce_param_table[r].path;
}

static const char *roce_def(unsigned r)
{
	return roce_param_table[r].def;
}

static bool roce_ro(unsigned r)
{
	return roce_param_table[r].readonly;
}

static bool roce_list(unsigned r)
{
	return port_param_is_list(&roce_param_table[r]);
}

static int roce_set(void *p, unsigned r, const char *text, char *err, size_t len)
{
	return port_param_set(p, &roce_param_table[r], text, err, len);
}

static int roce_set_list(void *p, unsigned r, const char *const *items, int n, int *bad, char *err, size_t len)
{
	return port_param_set_list(p, &roce_param_table[r], items, n, bad, err, len);
}

/* Whether the map @p v holds @p sec, a map holding @p key. */
static bool given(const struct ctl_ynode *v, const char *sec, const char *key)
{
	const char *path[2] = { sec, key };

	for (int d = 0; d < 2; d++) {
		uint32_t j = 0;

		if (v == NULL || v->type != CTL_Y_MAP)
			return false;
		while (j < v->n && strcmp(v->key[j]->text, path[d]) != 0)
			j++;
		if (j == v->n)
			return false;
		v = v->val[j];
	}
	return true;
}

int ctl_sec_roce_nic(struct ctl_ctx *c, const struct ctl_ynode *v, struct ctl_config *cfg)
{
	static const struct ctl_ptable t = {
		.root = "roce_nic", .depth = PORT_PARAM_DEPTH, .path = roce_path, .def = roce_def, .readonly = roce_ro,
		.is_list = roce_list, .set = roce_set, .set_list = roce_set_list, .check = NULL,
	};
	struct ctl_ptable tt = t;

	tt.count = roce_param_count;
	cfg->roce_reth_given = given(v, "RoCEEncapsulation", "RETH");
	cfg->roce_icrc_given = given(v, "RoCEEncapsulation", "ICRC");
	return ctl_walk_params(c, v, &tt, &cfg->roce);
}

static int server_nic(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	const char *text;
	int rc = ctl_scalar(c, v, "ScalaRoceNic", &text);

	if (rc != 0)
		return rc;
	for (unsigned i = 0; i < CTL_NIC_MODEL_COUNT; i++) {
		if (strcmp(text, models[i].name) == 0) {
			((struct ctl_config *)obj)->nic_model = (uint8_t)i;
			return 0;
		}
	}
	return ctl_err(c, v, "unknown NIC model '%s'; server.nic is ScalaUetNic (the default) or ScalaRoceNic", text);
}

int ctl_sec_server(struct ctl_ctx *c, const struct ctl_ynode *v, struct ctl_config *cfg)
{
	static const struct ctl_key keys[] = { { "nic", false, server_nic } };

	return ctl_walk_map(c, v, keys, 1, cfg, "");
}

/* The row's dotted path under roce_nic, for a message. */
static void row_path(const struct port_param_def *d, char *out, size_t len)
{
	size_t n = (size_t)snprintf(out, len, "roce_nic");

	for (int i = 0; i < PORT_PARAM_DEPTH && d->path[i] != NULL && n < len; i++)
		n += (size_t)snprintf(out + n, len - n, ".%s", d->path[i]);
}

int ctl_nic_model_check(struct ctl_ctx *c, const struct ctl_ynode *server, struct ctl_config *cfg)
{
	const struct port_param_def *why[PORT_CHECK_WHY_MAX];
	const struct ctl_ynode *at = server != NULL && ctl_y_get(server, "nic") != NULL ? ctl_y_get(server, "nic")
											  : server;
	char msg[256], path[256];
	size_t old;
	int rc = 0;

	if (cfg->nic_model != CTL_NIC_ROCE)
		return 0;
	old = ctl_push(c, "server");
	ctl_push(c, "nic");
	if (roce_params_check(&cfg->roce, cfg->mtu, why, msg, sizeof(msg)) != 0) {
		row_path(why[0], path, sizeof(path));
		rc = ctl_err(c, at, "%s: %s", path, msg);
	}
	if (cfg->sw.uet_policy)
		rc = ctl_err(c, at, "a switch has switch.SharedBufferManager.UETPolicyEnabled true, whose classes come "
			     "from codepoints the Scala RoCE NIC does not send; set it false, or use ScalaUetNic");
	bool profile = cfg->nic.peer_profile != NIC_PROFILE_NONE;

	for (uint32_t i = 0; i < cfg->n_hosts; i++)
		profile = profile || cfg->hosts[i].has_profile;
	if (profile) /* a peer profile is the UET NIC's frames (docs/wire.md, Peer profiles) */
		rc = ctl_err(c, at, "a peer profile (nic.PeerProfile, topology.hosts[].profile) shapes the Scala UET "
			     "NIC's frames; remove it, or use ScalaUetNic");
	if (cfg->n_pps > 0) /* the ping-pong's receive hook is the UET NIC's (docs/pingpong.md) */
		rc = ctl_err(c, at, "the pingpong and responder applications run on the Scala UET NIC only; use "
			     "ScalaUetNic");
	ctl_pop(c, old);
	return rc;
}
