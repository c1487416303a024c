/* Loading a scenario config: file -> YAML tree -> --set overrides -> validated sections -> struct ctl_config. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl_yaml_pvt.h"
#include "emu_units.h"

/* Real time runs at most this many times slower than the wall clock: past it, a second shows under a microsecond. */
#define CTL_TIME_SCALE_MAX 1000000u
/* The longest LagLimit: past it, the limit would never be reached by a run of any sensible length. */
#define CTL_LAG_LIMIT_MAX (1000 * EMU_PS_PER_S)

static int sim_name(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	struct emu_sim_params *s = obj;

	return ctl_val_name(c, v, s->simulation_name, sizeof(s->simulation_name));
}

static int sim_seed(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	return ctl_val_uint(c, v, 0, UINT64_MAX, &((struct emu_sim_params *)obj)->random_seed);
}

/* RunNumber (uetemu's name: the pages name the run number but no attribute), 0..65535 (sw_flowlet_stream()). */
static int sim_run(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	return ctl_val_uint(c, v, 0, 65535, &((struct emu_sim_params *)obj)->run_number);
}

static int sim_duration(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	emu_ps_t *d = &((struct emu_sim_params *)obj)->duration;
	int rc = ctl_val_u64(c, v, emu_parse_timeval, "10ms", d);

	if (rc == 0 && *d >= EMU_PS_MAX)
		return ctl_err(c, v, "SimulationDuration %llu ps is past the emulated time range (2^63 ps, 106 days); "
			       "e.g. 10ms", (unsigned long long)*d);
	return rc;
}

/* The shortest report interval: rows every picosecond would write gigabytes in microseconds of simulated time. */
#define CTL_REPORT_INTERVAL_MIN EMU_PS_PER_US

/* A report interval: a timeval or a bare number of seconds (the Scala double), at least 1 us. */
static int report_interval(struct ctl_ctx *c, const struct ctl_ynode *v, emu_ps_t *out)
{
	int rc = ctl_val_u64(c, v, emu_parse_seconds, "0.001", out);

	if (rc == 0 && *out < CTL_REPORT_INTERVAL_MIN)
		rc = ctl_err(c, v, "interval below 1us; a report interval is at least 1us (rows for every host and port "
			     "each interval), e.g. 0.001 or 1ms");
	return rc;
}

static int sim_record_limit(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	return ctl_val_u64(c, v, emu_parse_size, "1GiB", &((struct emu_sim_params *)obj)->record_size_limit);
}

static int sim_output_limit(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	return ctl_val_u64(c, v, emu_parse_size, "4GiB", &((struct emu_sim_params *)obj)->output_size_limit);
}

static int sim_chakra_mem(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	return ctl_val_u64(c, v, emu_parse_size, "2GiB", &((struct emu_sim_params *)obj)->chakra_memory_limit);
}

static int sim_interval(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	return report_interval(c, v, &((struct emu_sim_params *)obj)->nd_stats_interval);
}

static int sim_statlog(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	return ctl_val_bool(c, v, &((struct emu_sim_params *)obj)->enable_net_device_stat_logging);
}

static int sim_pfcstats(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	return ctl_val_bool(c, v, &((struct emu_sim_params *)obj)->enable_pfc_ecn_stats_logging);
}

static int sim_netbuff(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	return ctl_val_bool(c, v, &((struct emu_sim_params *)obj)->enable_net_buff_stats);
}

static int sim_netbuff_interval(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	return report_interval(c, v, &((struct emu_sim_params *)obj)->net_buff_stats_interval);
}

static int sim_beacon_interval(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	return report_interval(c, v, &((struct emu_sim_params *)obj)->beacon_interval);
}

static int sim_pcie(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	return ctl_val_bool(c, v, &((struct emu_sim_params *)obj)->enable_pcie_stats_logging);
}

static int sim_timescale(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	return ctl_val_uint(c, v, 1, CTL_TIME_SCALE_MAX, &((struct emu_sim_params *)obj)->time_scale);
}

/* LagPolicy: what the real-time loop does past LagLimit. */
static int sim_lag_policy(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	static const char *const names[] = { [EMU_LAG_BESTEFFORT] = "besteffort", [EMU_LAG_ABORT] = "abort",
					     [EMU_LAG_ELASTIC] = "elastic" };
	const char *s;
	int rc = ctl_scalar(c, v, "besteffort", &s);

	if (rc != 0)
		return rc;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (strcmp(s, names[i]) == 0) {
			((struct emu_sim_params *)obj)->lag_policy = (uint8_t)i;
			return 0;
		}
	}
	return ctl_err(c, v, "unknown LagPolicy '%s'; use besteffort (the default), abort or elastic", s);
}

/* LagLimit: a timeval above 0, at most CTL_LAG_LIMIT_MAX. */
static int sim_lag_limit(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	emu_ps_t *out = &((struct emu_sim_params *)obj)->lag_limit;
	int rc = ctl_val_u64(c, v, emu_parse_timeval, "1ms", out);

	if (rc == 0 && (*out == 0 || *out > CTL_LAG_LIMIT_MAX))
		rc = ctl_err(c, v, "LagLimit out of range; give 1ps to 1000s, e.g. 1ms");
	return rc;
}

/* The six timeline parameters of the ScalaRdma application (spec seeds/003, Run timeline) sit beside the
 * emu_sim_params the walk fills; reach the config that holds both. */
static struct app_timeline_params *timeline_of(void *obj)
{
	return &((struct ctl_config *)((char *)obj - offsetof(struct ctl_config, sim)))->timeline;
}

/* A timeline parameter: a timeval or a bare number of seconds (the Scala double); 0 allowed. */
static int timeline_val(struct ctl_ctx *c, const struct ctl_ynode *v, emu_ps_t *out)
{
	return ctl_val_u64(c, v, emu_parse_seconds, "0.001", out);
}

static int sim_start_time(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	return timeline_val(c, v, &timeline_of(obj)->start_time);
}

static int sim_client_offset(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	return timeline_val(c, v, &timeline_of(obj)->client_start_offset);
}

static int sim_client_interval(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	return timeline_val(c, v, &timeline_of(obj)->client_start_interval);
}

static int sim_warm_up(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	return timeline_val(c, v, &timeline_of(obj)->warm_up);
}

static int sim_run_time(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	return timeline_val(c, v, &timeline_of(obj)->run_time);
}

/* RecordStartTime (uetemu): a timeval or a bare number of seconds, 0 allowed; giving it sets it. */
static int sim_record_start(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	struct ctl_config *cfg = (struct ctl_config *)((char *)obj - offsetof(struct ctl_config, sim));
	int rc = timeline_val(c, v, &cfg->record_start);

	if (rc == 0 && cfg->record_start > EMU_PS_NEVER / 2)
		rc = ctl_err(c, v, "RecordStartTime passes 2^63 ps (106 days); give a time within the run, e.g. 0");
	if (rc == 0)
		cfg->record_start_set = true;
	return rc;
}

static int sim_mtu(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	uint64_t *mtu = &((struct ctl_config *)((char *)obj - offsetof(struct ctl_config, sim)))->mtu;
	int rc = ctl_val_u64(c, v, emu_parse_size, "4184", mtu);

	/* the largest frame a port encodes or accepts bounds it (a uetemu limit) */
	if (rc == 0 && (*mtu < ROCE_DATA_OVERHEAD + 1 || *mtu > WIRE_MAX_FRAME + WIRE_FCS_LEN))
		rc = ctl_err(c, v, "Mtu %llu B out of range %d to %d; the platform's is 4184", (unsigned long long)*mtu,
			     ROCE_DATA_OVERHEAD + 1, WIRE_MAX_FRAME + WIRE_FCS_LEN);
	return rc;
}

static int sim_roce_stats(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	return ctl_val_bool(c, v, &((struct ctl_config *)((char *)obj - offsetof(struct ctl_config, sim)))
					   ->enable_roce_transport_stats);
}

static int sim_cool_down(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	return timeline_val(c, v, &timeline_of(obj)->cool_down);
}

int ctl_sec_simulation(struct ctl_ctx *c, const struct ctl_ynode *v, struct ctl_config *cfg)
{
	static const struct ctl_key keys[] = {
		{ "SimulationName", false, sim_name },
		{ "RandomSeed", false, sim_seed },
		{ "RunNumber", false, sim_run },
		{ "SimulationDuration", false, sim_duration },
		{ "NDStatsReportInterval", false, sim_interval },
		{ "EnableNetDeviceStatLogging", false, sim_statlog },
		{ "EnablePFCECNStatsLogging", false, sim_pfcstats },
		{ "EnableNetworkBufferStatsReporting", false, sim_netbuff },
		{ "NetworkBufferStatsReportingInterval", false, sim_netbuff_interval },
		{ "BeaconReportInterval", false, sim_beacon_interval },
		{ "EnablePCIeStatsLogging", false, sim_pcie },
		{ "TimeScale", false, sim_timescale },
		{ "RecordSizeLimit", false, sim_record_limit },
		{ "OutputSizeLimit", false, sim_output_limit },
		{ "ChakraMemoryLimit", false, sim_chakra_mem },
		{ "LagPolicy", false, sim_lag_policy },
		{ "LagLimit", false, sim_lag_limit },
		{ "StartTime", false, sim_start_time },
		{ "ClientStartOffset", false, sim_client_offset },
		{ "ClientStartInterval", false, sim_client_interval },
		{ "WarmUp", false, sim_warm_up },
		{ "RunTime", false, sim_run_time },
		{ "CoolDown", false, sim_cool_down },
		{ "Mtu", false, sim_mtu },
		{ "RecordStartTime", false, sim_record_start },
		{ "EnableRoceTransportStats", false, sim_roce_stats },
	};
	struct app_timeline t;
	char why[160];
	int rc = ctl_walk_map(c, v, keys, sizeof(keys) / sizeof(keys[0]), &cfg->sim, "");

	if (rc == 0 && app_timeline_compute(&cfg->timeline, &t, why, sizeof(why)) < 0)
		rc = ctl_err(c, v, "%s; shorten StartTime, ClientStartOffset, ClientStartInterval, WarmUp, RunTime or "
			     "CoolDown", why);
	return rc;
}

/* The Scala Switch comes with its own issue; until then its section must stay empty. */
typedef int (*ctl_sec_fn)(struct ctl_ctx *c, const struct ctl_ynode *v, struct ctl_config *cfg);

static int validate(struct ctl_ctx *c, const struct ctl_ynode *root, struct ctl_config *cfg)
{
	static const struct ctl_key top[] = {
		{ "simulation", false, NULL }, { "topology", true, NULL }, { "nic", false, NULL },
		{ "switch", false, NULL }, { "applications", false, NULL }, { "partitions", false, NULL },
		{ "ports", false, NULL }, { "capture_defaults", false, NULL }, { "captures", false, NULL },
		{ "replay", false, NULL }, { "roce_nic", false, NULL }, { "server", false, NULL },
	};
	/* Dependency order: links, messages, ports and captures name hosts and links; captures take their defaults. */
	static const ctl_sec_fn fn[] = { ctl_sec_simulation, ctl_sec_topology, ctl_sec_nic, ctl_sec_switch,
					 ctl_sec_applications, ctl_sec_partitions, ctl_sec_ports, ctl_sec_capture_defaults,
					 ctl_sec_captures, ctl_sec_replay, ctl_sec_roce_nic, ctl_sec_server };
	int rc = ctl_walk_map(c, root, top, sizeof(top) / sizeof(top[0]), NULL,
			      "a config needs at least one host, e.g. topology: {hosts: [{name: host0, ip: 10.0.0.1}]}");
	bool topo_ok = true;

	if (root->type != CTL_Y_MAP)
		return rc;
	/* Every section is checked, so one pass reports all their errors; the sections that name hosts and links
	 * are skipped when the topology is bad, as their errors would only repeat its. */
	for (size_t i = 0; rc != -ENOMEM && i < sizeof(fn) / sizeof(fn[0]); i++) {
		const struct ctl_ynode *v = ctl_y_get(root, top[i].name);

		if (v == NULL || (!topo_ok && fn[i] != ctl_sec_nic && fn[i] != ctl_sec_switch &&
				  fn[i] != ctl_sec_capture_defaults && fn[i] != ctl_sec_roce_nic &&
				  fn[i] != ctl_sec_server))
			continue;
		size_t old = ctl_push(c, top[i].name);
		int e = fn[i](c, v, cfg);

		ctl_pop(c, old);
		if (e != 0 && fn[i] == ctl_sec_topology)
			topo_ok = false;
		if (e != 0 && (rc == 0 || e == -ENOMEM))
			rc = e;
	}
	if (rc == 0 && topo_ok)
		rc = ctl_nic_model_check(c, ctl_y_get(root, "server"), cfg);
	if (rc == 0 && topo_ok) /* the flows and streams, once the hosts' NIC (its link rate) is known */
		rc = ctl_flows_generate(c, ctl_y_get(root, "applications"), cfg);
	return rc;
}

int ctl_config_load(struct ctl_config *cfg, const char *path, const char *const *sets, int n_sets, char *err,
		    size_t errlen)
{
	char local[8];
	struct ctl_ctx c = { .file = path, .sets = sets, .n_sets = n_sets, .err = err, .errlen = errlen };
	struct ctl_ynode *root = NULL;
	int rc;

	if (err == NULL || errlen == 0) {
		c.err = local;
		c.errlen = sizeof(local);
	}
	c.err[0] = '\0';
	memset(cfg, 0, sizeof(*cfg));
	snprintf(cfg->path, sizeof(cfg->path), "%s", path);
	emu_sim_defaults(&cfg->sim);
	app_timeline_defaults(&cfg->timeline);
	cfg->rdma_app = -1;
	cfg->chakra_app = -1;
	nic_params_defaults(&cfg->nic);
	roce_params_defaults(&cfg->roce);
	cfg->mtu = ROCE_MTU_DEFAULT;
	cfg->enable_roce_transport_stats = true;
	sw_params_defaults(&cfg->sw);
	cfg->capture_defaults.snaplen = 65535;
	rc = ctl_y_load(&c, &root);
	/* Overrides go into a map; a root that is not one is reported by validate(). */
	for (int i = 0; rc == 0 && root->type == CTL_Y_MAP && i < n_sets; i++)
		rc = ctl_y_apply_set(&c, root, i);
	if (rc == 0)
		rc = validate(&c, root, cfg);
	if (rc == 0 && !cfg->parts_given && (rc = ctl_config_parts_default(cfg)) < 0)
		snprintf(c.err, c.errlen, "%s: cannot build the default partitions", path);
	if (rc == 0)
		ctl_config_warnings(cfg);
	ctl_y_free(root);
	if (rc == -ENOMEM && c.err[0] == '\0')
		snprintf(c.err, c.errlen, "%s: out of memory", path);
	if (rc != 0)
		ctl_config_free(cfg);
	return rc;
}

void ctl_config_free(struct ctl_config *cfg)
{
	if (cfg == NULL)
		return;
	for (uint32_t i = 0; cfg->apps != NULL && i < cfg->n_apps; i++)
		free(cfg->apps[i].list), free(cfg->apps[i].chakra), free(cfg->apps[i].flows);
	free(cfg->apps);
	free(cfg->hosts);
	for (uint32_t i = 0; cfg->links != NULL && i < cfg->n_links; i++)
		free(cfg->links[i].impair);
	free(cfg->links);
	free(cfg->ports);
	free(cfg->captures);
	free(cfg->parts);
	free(cfg->dev_part);
	free(cfg->replays);
	memset(cfg, 0, sizeof(*cfg));
}

/* The index @p name's digits give (host<i>, as a generated fabric names its hosts), or UINT32_MAX. */
static uint32_t host_index_guess(const char *name)
{
	size_t n = strlen(name), d = n;
	uint64_t v = 0;

	while (d > 0 && name[d - 1] >= '0' && name[d - 1] <= '9')
		d--;
	if (d == n || n - d > 9 || (name[d] == '0' && n - d > 1))
		return UINT32_MAX;
	for (size_t i = d; i < n; i++)
		v = v * 10 + (uint64_t)(name[i] - '0');
	return (uint32_t)v;
}

int ctl_config_host(const struct ctl_config *cfg, const char *name)
{
	uint32_t g = host_index_guess(name);

	/* host names are unique (ctl_config_topo.c), so the one the digits point at is the one: O(1) where a fabric
	 * of 65,536 hosts names each message's ends; any other name is looked for in turn */
	if (g < cfg->n_hosts && strcmp(cfg->hosts[g].name, name) == 0)
		return (int)g;
	for (uint32_t i = 0; i < cfg->n_hosts; i++)
		if (strcmp(cfg->hosts[i].name, name) == 0)
			return (int)i;
	return -1;
}
