/* The switch's attribute table, its stop rules, and every worked example of switch-shared-buffer.md and
 * switch-configuration.md reproduced with the page's numbers. */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "sw.h"
#include "sw_buffer.h"
#include "sw_params.h"

static struct sw_params defaults(void)
{
	struct sw_params p;

	sw_params_defaults(&p);
	return p;
}

static int set(struct sw_params *p, const char *parent, const char *name, const char *text)
{
	char err[256];
	const struct sw_param_def *d = sw_param_find(parent, name);

	cr_assert_not_null(d, "no attribute %s.%s", parent ? parent : "", name);
	return sw_param_set(p, d, text, err, sizeof(err));
}

static struct sw_buffer setup(const struct sw_params *p, uint32_t ports)
{
	struct sw_buffer b;
	char err[256];

	cr_assert_eq(sw_buffer_setup(p, ports, &b, err, sizeof(err)), 0, "%s", err);
	return b;
}

Test(sw_params, every_attribute_of_the_page_is_in_the_table)
{
	static const char *const names[][2] = {
		{ NULL, "NumUpLinks" }, { NULL, "NumDownLinks" }, { NULL, "NumUpLinksPerSwitch" },
		{ NULL, "SwitchingCapacity" }, { NULL, "EcmpHashMethod" }, { NULL, "LoadBalancingMethod" },
		{ NULL, "EnableLoadBalancingStats" }, { NULL, "LoadBalancingStatsReportInterval" },
		{ NULL, "ReportPerPortBufferStats" }, /* Simulation Output Files, Per-Port Switch Buffer Statistics */
		{ "UplinkNetworkInterface", "DataRate" }, { "DownlinkNetworkInterface", "DataRate" },
		{ "TransmissionMedium", "Delay" }, { "PacketTrimmer", "TrimmingEnabled" },
		{ "PacketTrimmer", "TrimmingStatsEnabled" }, { "LoadBalancingFlowlet", "Gap" },
		{ "LoadBalancingFlowlet", "PFCAware" }, { "SharedBufferManager", "TotalSharedBufferSize" },
		{ "SharedBufferManager", "UETPolicyEnabled" }, { "SharedBufferManager", "PoolAllocationMap" },
		{ "SharedBufferManager", "TrafficClassPoolMapping" }, { "SharedBufferManager", "EnablePFC" },
		{ "SharedBufferManager", "HeadRoomPerPortLimit" }, { "SharedBufferManager", "StaticPoolXoffThreshold" },
		{ "SharedBufferManager", "StaticPoolXonThreshold" }, { "SharedBufferManager", "LossyAlpha" },
		{ "SharedBufferManager", "QueueDropThresholdEnable" }, { "SharedBufferManager", "QueueDropThreshold" },
		{ "SharedBufferManager", "PlaneBDP" }, { "SharedBufferManager", "BufferStatsReportInterval" },
		{ "EcnHandler", "EnableEcn" }, { "EcnHandler", "EwmaWeight" }, { "EcnHandler", "MinThreshold" },
		{ "EcnHandler", "MaxThreshold" }, { "EcnHandler", "MaxMarkProbability" },
	};
	unsigned n = sizeof(names) / sizeof(names[0]);

	cr_assert_eq(sw_param_count, n, "one row per attribute of the page");
	for (unsigned i = 0; i < n; i++)
		cr_assert_not_null(sw_param_find(names[i][0], names[i][1]), "%s", names[i][1]);
	cr_assert_str_eq(sw_param_find("SharedBufferManager", "LossyAlpha")->api, "double");
	cr_assert_str_eq(sw_param_find(NULL, "SwitchingCapacity")->api, "datarate");
	cr_assert_str_eq(sw_param_find("SharedBufferManager", "EnablePFC")->api, "string");
	cr_assert_null(sw_param_find(NULL, "DataRate"), "DataRate is under a network interface");
}

Test(sw_params, defaults_are_the_documented_ones)
{
	struct sw_params p = defaults();
	static const uint32_t alloc[8] = { 900000, 100000 };
	static const uint8_t map[8] = { 0, 1 }, pfc[8] = { 1, 1 };

	cr_assert_eq(p.num_uplinks, 64);
	cr_assert_eq(p.num_downlinks, 64);
	cr_assert_eq(p.num_uplinks_per_switch, 8);
	cr_assert_eq(p.switching_capacity_bps, 51200000000000ULL);
	cr_assert_eq(p.ecmp_hash, SW_HASH_CRC32_SALT);
	cr_assert_eq(p.lb_method, SW_LB_NONE);
	cr_assert(p.lb_stats_enabled);
	cr_assert_eq(p.lb_stats_interval, EMU_PS_PER_MS);
	cr_assert(!p.per_port_buffer_stats, "scala-switch-buff-stats is off by default");
	cr_assert_eq(p.uplink_bps, 400000000000ULL);
	cr_assert_eq(p.downlink_bps, 400000000000ULL);
	cr_assert_eq(p.delay_ps, 500 * EMU_PS_PER_NS);
	cr_assert(!p.trimming_enabled);
	cr_assert(!p.trimming_stats_enabled);
	cr_assert_eq(p.flowlet_gap, 100 * EMU_PS_PER_US);
	cr_assert(p.flowlet_pfc_aware);
	cr_assert_eq(p.total_buffer, 256000000);
	cr_assert(!p.uet_policy);
	cr_assert_arr_eq(p.pool_alloc_ppm, alloc, sizeof(alloc));
	cr_assert_arr_eq(p.tc_pool, map, sizeof(map));
	cr_assert_arr_eq(p.pfc_enable, pfc, sizeof(pfc));
	cr_assert_eq(p.headroom_per_port, 256000);
	cr_assert_eq(p.xoff, 700000);
	cr_assert_eq(p.xon, 300000);
	cr_assert_eq(p.lossy_alpha_ppm, 1000000);
	cr_assert(!p.qdt_enable);
	cr_assert_eq(p.qdt, 5);
	cr_assert_eq(p.plane_bdp, 300000);
	cr_assert_eq(p.buffer_stats_interval, EMU_PS_PER_MS);
	cr_assert(p.ecn_enabled);
	cr_assert_eq(p.ewma_weight_ppm, 100000);
	cr_assert_eq(p.ecn_min_ppm, 200000);
	cr_assert_eq(p.ecn_max_ppm, 800000);
	cr_assert_eq(p.ecn_max_prob_ppm, 1000000);
	const struct sw_param_def *why[SW_CHECK_WHY_MAX];
	char err[256];

	cr_assert_eq(sw_params_check(&p, why, err, sizeof(err)), 0, "%s", err);
}

Test(sw_params, values_parse_with_units_and_ranges)
{
	struct sw_params p = defaults();

	cr_assert_eq(set(&p, "SharedBufferManager", "LossyAlpha", "0.5"), 0);
	cr_assert_eq(p.lossy_alpha_ppm, 500000);
	cr_assert_eq(set(&p, "SharedBufferManager", "LossyAlpha", "8"), 0);
	cr_assert_eq(p.lossy_alpha_ppm, 8000000);
	cr_assert_eq(set(&p, "SharedBufferManager", "LossyAlpha", "0"), 0);
	cr_assert_eq(p.lossy_alpha_ppm, 0);
	cr_assert_neq(set(&p, "SharedBufferManager", "LossyAlpha", "-1"), 0);
	cr_assert_neq(set(&p, "SharedBufferManager", "LossyAlpha", "0.0000001"), 0);
	cr_assert_eq(set(&p, "TransmissionMedium", "Delay", "750ns"), 0);
	cr_assert_eq(p.delay_ps, 750000);
	cr_assert_eq(set(&p, "UplinkNetworkInterface", "DataRate", "800Gbps"), 0);
	cr_assert_eq(p.uplink_bps, 800000000000ULL);
	/* Gap: 0 s to 2 s; the report interval at least 10 us; a bytes value at most 4,294,967,295 */
	cr_assert_eq(set(&p, "LoadBalancingFlowlet", "Gap", "0s"), 0);
	cr_assert_eq(set(&p, "LoadBalancingFlowlet", "Gap", "2s"), 0);
	cr_assert_eq(set(&p, "LoadBalancingFlowlet", "Gap", "2000001us"), -ERANGE);
	cr_assert_eq(set(&p, NULL, "LoadBalancingStatsReportInterval", "10us"), 0);
	cr_assert_eq(set(&p, NULL, "LoadBalancingStatsReportInterval", "9999ns"), -ERANGE);
	cr_assert_eq(set(&p, "SharedBufferManager", "TotalSharedBufferSize", "4294967295"), 0);
	cr_assert_eq(set(&p, "SharedBufferManager", "TotalSharedBufferSize", "4294967296"), -ERANGE);
	cr_assert_eq(set(&p, "EcnHandler", "MinThreshold", "1.5"), -EINVAL);
	cr_assert_eq(set(&p, NULL, "EcmpHashMethod", "dpr"), 0);
	cr_assert_eq(p.ecmp_hash, SW_HASH_DPR);
	cr_assert_eq(set(&p, NULL, "EcmpHashMethod", "dprWithFallback"), 0);
	cr_assert_eq(p.ecmp_hash, SW_HASH_DPR_FALLBACK);
	cr_assert_eq(set(&p, NULL, "EcmpHashMethod", "ecmp"), -EINVAL);
	cr_assert_eq(set(&p, NULL, "LoadBalancingMethod", "flowlet"), 0);
	cr_assert_eq(p.lb_method, SW_LB_FLOWLET);
}

Test(sw_params, lists_need_eight_entries_of_the_right_kind)
{
	struct sw_params p = defaults();

	/* "EnablePFC or TrafficClassPoolMapping does not have exactly eight entries, or has an entry that is not a
	 * whole number"; "PoolAllocationMap does not have exactly eight entries, or has an entry that is not a
	 * number" */
	cr_assert_neq(set(&p, "SharedBufferManager", "EnablePFC", "[1, 1, 0, 0, 0, 0, 0]"), 0);
	cr_assert_neq(set(&p, "SharedBufferManager", "EnablePFC", "[1, 0.5, 0, 0, 0, 0, 0, 0]"), 0);
	cr_assert_neq(set(&p, "SharedBufferManager", "TrafficClassPoolMapping", "[0, 1, 0, 0, 0, 0, 0, 0, 0]"), 0);
	cr_assert_neq(set(&p, "SharedBufferManager", "TrafficClassPoolMapping", "[0, 1.5, 0, 0, 0, 0, 0, 0]"), 0);
	cr_assert_neq(set(&p, "SharedBufferManager", "TrafficClassPoolMapping", "[0, 8, 0, 0, 0, 0, 0, 0]"), 0);
	cr_assert_neq(set(&p, "SharedBufferManager", "PoolAllocationMap", "[0.9, x, 0, 0, 0, 0, 0, 0]"), 0);
	cr_assert_eq(set(&p, "SharedBufferManager", "TrafficClassPoolMapping", "[0, 1, 2, 3, 4, 5, 6, 7]"), 0);
	cr_assert_eq(p.tc_pool[3], 3);
	cr_assert_eq(set(&p, "SharedBufferManager", "EnablePFC", "[0, 0, 0, 1, 0, 0, 0, 0]"), 0);
	cr_assert_eq(p.pfc_enable[3], 1);
	cr_assert_eq(p.pfc_enable[0], 0);
	const char *items[8] = { "0.5", "0.5", "0", "0", "0", "0", "0", "0" };
	int bad;
	char err[128];

	cr_assert_eq(sw_param_set_list(&p, sw_param_find("SharedBufferManager", "PoolAllocationMap"), items, 8, &bad,
				       err, sizeof(err)), 0);
	cr_assert_eq(p.pool_alloc_ppm[1], 500000);
}

static int check(const struct sw_params *p, const char **blame)
{
	const struct sw_param_def *why[SW_CHECK_WHY_MAX];
	char err[256];
	int rc = sw_params_check(p, why, err, sizeof(err));

	*blame = why[0] != NULL ? why[0]->path[why[0]->path[1] ? 1 : 0] : "";
	return rc;
}

Test(sw_params, stop_rules_on_the_switch_attributes)
{
	struct sw_params p = defaults();
	const char *blame;

	set(&p, "SharedBufferManager", "PoolAllocationMap", "[0, 0, 0, 0, 0, 0, 0, 0]");
	cr_assert_eq(check(&p, &blame), -EINVAL, "no non-zero entry");
	cr_assert_str_eq(blame, "PoolAllocationMap");
	/* sums to 1.5, more than 1 by 0.5, which is more than the last non-zero entry 0.1 */
	set(&p, "SharedBufferManager", "PoolAllocationMap", "[1, 0.4, 0.1, 0, 0, 0, 0, 0]");
	cr_assert_eq(check(&p, &blame), -EINVAL);
	/* sums to 1.5, more than 1 by exactly its last entry 0.5: accepted (the last pool ends at 0) */
	set(&p, "SharedBufferManager", "PoolAllocationMap", "[1, 0.5, 0, 0, 0, 0, 0, 0]");
	cr_assert_eq(check(&p, &blame), 0);

	p = defaults();
	set(&p, NULL, "LoadBalancingMethod", "flowlet");
	set(&p, NULL, "EcmpHashMethod", "dpr");
	cr_assert_eq(check(&p, &blame), -EINVAL);
	cr_assert_str_eq(blame, "LoadBalancingMethod");
	set(&p, NULL, "EcmpHashMethod", "dprWithFallback");
	cr_assert_eq(check(&p, &blame), -EINVAL);
	set(&p, NULL, "EcmpHashMethod", "crc32");
	cr_assert_eq(check(&p, &blame), 0);

	p = defaults();
	set(&p, "PacketTrimmer", "TrimmingEnabled", "true");
	cr_assert_eq(check(&p, &blame), -EINVAL, "trimming needs the UET policy");
	cr_assert_str_eq(blame, "TrimmingEnabled");
	set(&p, "SharedBufferManager", "UETPolicyEnabled", "true");
	cr_assert_eq(check(&p, &blame), -EINVAL, "the default EnablePFC enables TC0 and TC1");
	set(&p, "SharedBufferManager", "EnablePFC", "[0, 0, 0, 0, 0, 0, 0, 0]");
	cr_assert_eq(check(&p, &blame), 0);
}

/* Switch, Configuration rules that stop a simulation: the two PoolAllocationMap rules are listed without a
 * condition, so they stop the run under the UET policy too, although that policy sizes its pools without the map. */
Test(sw_params, pool_allocation_map_stop_rules_under_the_uet_policy)
{
	struct sw_params p = defaults();
	const char *blame;

	set(&p, "SharedBufferManager", "UETPolicyEnabled", "true");
	cr_assert_eq(check(&p, &blame), 0, "the default map [0.9, 0.1, ...] is fine");
	set(&p, "SharedBufferManager", "PoolAllocationMap", "[0, 0, 0, 0, 0, 0, 0, 0]");
	cr_assert_eq(check(&p, &blame), -EINVAL, "no non-zero entry");
	cr_assert_str_eq(blame, "PoolAllocationMap");
	/* sums to 1.5, more than 1 by 0.5, which is more than the last non-zero entry 0.1 */
	set(&p, "SharedBufferManager", "PoolAllocationMap", "[1, 0.4, 0.1, 0, 0, 0, 0, 0]");
	cr_assert_eq(check(&p, &blame), -EINVAL);
	cr_assert_str_eq(blame, "PoolAllocationMap");
	/* more than 1 by exactly its last entry: accepted, as without the policy */
	set(&p, "SharedBufferManager", "PoolAllocationMap", "[1, 0.5, 0, 0, 0, 0, 0, 0]");
	cr_assert_eq(check(&p, &blame), 0);
}

Test(sw_buffer, default_configuration_128_ports)
{
	struct sw_params p = defaults();
	struct sw_buffer b = setup(&p, 128);

	/* Stage 1: 256,000 B x 128 ports = 32,768,000 B of headroom; 223,232,000 B to size the pools with */
	cr_assert_eq(b.headroom_total, 32768000);
	cr_assert_eq(b.sizing_total, 223232000);
	cr_assert_eq(b.headroom_per_port, 256000);
	/* Stage 2 */
	cr_assert_eq(b.pool_size[0], 200908800);
	cr_assert_eq(b.pool_size[1], 22323200);
	cr_assert_eq(b.pool_size[0] + b.pool_size[1], 223232000);
	for (int i = 2; i < 8; i++)
		cr_assert(!b.pool_on[i] && b.pool_size[i] == 0);
	/* Stage 3: TC0 lossless in pool 0 with the lossy TC2..TC7; TC1 lossless with pool 1 to itself */
	cr_assert_eq(b.tc_pool[0], 0);
	cr_assert_eq(b.tc_pool[1], 1);
	for (int tc = 2; tc < 8; tc++)
		cr_assert(b.tc_pool[tc] == 0 && !b.tc_lossless[tc]);
	cr_assert(b.tc_lossless[0] && b.tc_lossless[1]);
	cr_assert_eq(b.pool_pg[0], 0x01);
	cr_assert_eq(b.pool_pg[1], 0x02);
	/* Stage 4: dynamic limits; the ECN band from the whole pool */
	cr_assert_eq(b.egress_form, SW_EG_DYNAMIC);
	cr_assert_eq(b.ecn_min[0], 40181760);
	cr_assert_eq(b.ecn_max[0], 160727040);
	cr_assert_eq(b.ecn_min[1], 4464640);
	cr_assert_eq(b.ecn_max[1], 17858560);
	/* Stage 5: pause above 700,000 B, resume at 300,000 B: a 400,000 B band */
	cr_assert_eq(b.xoff, 700000);
	cr_assert_eq(b.xon, 300000);
	cr_assert_eq(b.xoff - b.xon, 400000);
}

Test(sw_buffer, pause_points_against_the_pools)
{
	struct sw_params p = defaults();
	struct sw_buffer b = setup(&p, 128);
	uint64_t pause_point = b.xoff + 4000; /* 700,000 B plus the 4,000 B packet that triggers the pause */

	/* Pool 0: 128 x 704,000 = 90,112,000 B, about 45% of 200,908,800 B: more than half of pool 0 stays free */
	cr_assert_eq(128 * pause_point, 90112000);
	cr_assert_eq(128 * pause_point * 100 / b.pool_size[0], 44);
	cr_assert_lt(128 * pause_point, b.pool_size[0] / 2);
	/* Pool 1 holds the pause points of 31 ports */
	cr_assert_eq(b.pool_size[1] / pause_point, 31);
}

Test(sw_buffer, dynamic_limit_levels_at_half_the_pool)
{
	struct sw_params p = defaults();
	struct sw_buffer b = setup(&p, 128);
	uint64_t q = 0;

	/* One busy queue, 4,000 B packets: admitted while q + 4,000 <= 1.0 x (pool - q); levels off near half the
	 * pool, about 100 MB, with its average past MinThreshold and short of MaxThreshold */
	while (q + 4000 <= sw_buffer_egress_limit(&b, 0, q, false))
		q += 4000;
	cr_assert_leq(q, b.pool_size[0] / 2 + 4000);
	cr_assert_geq(q, b.pool_size[0] / 2 - 4000);
	cr_assert_gt(q, b.ecn_min[0]);
	cr_assert_lt(q, b.ecn_max[0]);
	/* N queues sharing the pool equally level off near alpha x pool / (1 + alpha x N): N = 4 gives pool / 5 */
	uint64_t qs = 0, total = 0;

	while (qs + 4000 <= sw_buffer_egress_limit(&b, 0, total, false)) {
		qs += 4000;
		total = 4 * qs;
	}
	cr_assert_leq(qs, b.pool_size[0] / 5 + 4000);
	cr_assert_geq(qs, b.pool_size[0] / 5 - 4000);
	/* LossyAlpha 0.5: one queue levels at 0.5 / 1.5 = a third of the pool */
	set(&p, "SharedBufferManager", "LossyAlpha", "0.5");
	b = setup(&p, 128);
	for (q = 0; q + 4000 <= sw_buffer_egress_limit(&b, 0, q, false);)
		q += 4000;
	cr_assert_leq(q, b.pool_size[0] / 3 + 4000);
	cr_assert_geq(q, b.pool_size[0] / 3 - 4000);
}

Test(sw_buffer, fixed_egress_limits_even_split_and_cap)
{
	struct sw_params p = defaults();
	struct sw_buffer b;

	/* LossyAlpha 0, QueueDropThresholdEnable false: pool / 128, whole for both pools, summing to each pool */
	set(&p, "SharedBufferManager", "LossyAlpha", "0");
	b = setup(&p, 128);
	cr_assert_eq(b.headroom_total, 32768000, "headroom, pools and PFC thresholds stay as in the default");
	cr_assert_eq(b.pool_size[0], 200908800);
	cr_assert_eq(b.egress_form, SW_EG_EVEN_SPLIT);
	cr_assert_eq(b.egress_limit[0], 1569600);
	cr_assert_eq(b.egress_limit[1], 174400);
	cr_assert_eq(128 * b.egress_limit[0], b.pool_size[0]);
	cr_assert_eq(128 * b.egress_limit[1], b.pool_size[1]);
	cr_assert_eq(sw_buffer_egress_limit(&b, 0, 123456789, false), 1569600, "fixed: pool occupancy is not read");
	cr_assert_eq(b.ecn_min[0], 313920);
	cr_assert_eq(b.ecn_max[0], 1255680);
	cr_assert_eq(b.ecn_min[1], 34880);
	cr_assert_eq(b.ecn_max[1], 139520);

	/* QueueDropThresholdEnable true: 5 x 300,000 = 1,500,000 B in every pool */
	set(&p, "SharedBufferManager", "QueueDropThresholdEnable", "true");
	b = setup(&p, 128);
	cr_assert_eq(b.egress_form, SW_EG_FIXED_CAP);
	cr_assert_eq(b.egress_limit[0], 1500000);
	cr_assert_eq(b.egress_limit[1], 1500000);
	/* summed over 128 ports: 192,000,000 B, 96% of pool 0 and 860% of pool 1; pool 1 holds 14 full caps */
	cr_assert_eq(128 * b.egress_limit[0], 192000000);
	cr_assert_eq((128 * b.egress_limit[0] * 100 + b.pool_size[0] / 2) / b.pool_size[0], 96);
	cr_assert_eq(128 * b.egress_limit[1] * 100 / b.pool_size[1], 860);
	cr_assert_eq(b.pool_size[1] / b.egress_limit[1], 14);
	cr_assert_eq(b.ecn_min[0], 300000);
	cr_assert_eq(b.ecn_max[0], 1200000);
	cr_assert_eq(b.ecn_min[1], 300000);
	cr_assert_eq(b.ecn_max[1], 1200000);
	/* PlaneBDP at 800 Gbps: 600 KB doubles the cap */
	set(&p, "SharedBufferManager", "PlaneBDP", "600KB");
	b = setup(&p, 128);
	cr_assert_eq(b.egress_limit[0], 3000000);
}

Test(sw_buffer, sizing_recipe_fixes_for_pool_1)
{
	struct sw_params p = defaults();
	struct sw_buffer b;
	const uint64_t need = 128 * (700000 + 4000); /* condition 2: 90,112,000 B */

	cr_assert_eq(need, 90112000);
	/* [0.59, 0.41, ...] meets it; 0.404 is the least share (to 3 places) that does */
	set(&p, "SharedBufferManager", "PoolAllocationMap", "[0.59, 0.41, 0, 0, 0, 0, 0, 0]");
	b = setup(&p, 128);
	cr_assert_geq(b.pool_size[1], need);
	set(&p, "SharedBufferManager", "PoolAllocationMap", "[0.596, 0.404, 0, 0, 0, 0, 0, 0]");
	b = setup(&p, 128);
	cr_assert_geq(b.pool_size[1], need);
	set(&p, "SharedBufferManager", "PoolAllocationMap", "[0.597, 0.403, 0, 0, 0, 0, 0, 0]");
	b = setup(&p, 128);
	cr_assert_lt(b.pool_size[1], need);
	/* or Xoff at most 170,400 B: 128 x (170,400 + 4,000) is exactly pool 1 */
	p = defaults();
	set(&p, "SharedBufferManager", "StaticPoolXoffThreshold", "170400");
	b = setup(&p, 128);
	cr_assert_eq(128 * (b.xoff + 4000), b.pool_size[1]);
}

Test(sw_buffer, headroom_guidance_at_the_defaults)
{
	/* 2 x link rate x one-way delay / 8 + 2 x MTU: 50,000 B + 8,000 B = 58,000 B, inside the default 256,000 B */
	struct sw_params p = defaults();
	uint64_t wire = (uint64_t)((unsigned __int128)2 * p.downlink_bps * p.delay_ps / (8 * EMU_PS_PER_S));

	cr_assert_eq(wire, 50000);
	cr_assert_eq(wire + 2 * 4000, 58000);
	cr_assert_lt(wire + 2 * 4000, p.headroom_per_port);
}

Test(sw_buffer, headroom_larger_than_the_buffer_stops)
{
	struct sw_params p = defaults();
	struct sw_buffer b;
	char err[256];

	/* 1,000 x 256,000 B is exactly 256 MB: allowed, nothing left for the pools */
	cr_assert_eq(sw_buffer_setup(&p, 1000, &b, err, sizeof(err)), 0);
	cr_assert_eq(b.sizing_total, 0);
	cr_assert_eq(sw_buffer_setup(&p, 1001, &b, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "HeadRoomPerPortLimit") != NULL, "%s", err);
	/* a partly connected switch reserves less and leaves more for the pools */
	b = setup(&p, 2);
	cr_assert_eq(b.sizing_total, 256000000 - 512000);
}

Test(sw_buffer, allocation_not_summing_to_one_goes_to_the_last_pool)
{
	struct sw_params p = defaults();
	struct sw_buffer b;

	/* short of 1: pool 1 takes the shortfall, but its ECN band still comes from its size before */
	set(&p, "SharedBufferManager", "PoolAllocationMap", "[0.5, 0.3, 0, 0, 0, 0, 0, 0]");
	b = setup(&p, 128);
	cr_assert_eq(b.pool_size[0], 111616000);
	cr_assert_eq(b.pool_nominal[1], 66969600);
	cr_assert_eq(b.pool_size[1], 111616000);
	cr_assert_eq(b.adjusted_pool, 1);
	cr_assert_eq(b.ecn_min[1], 13393920, "0.2 x the size before the adjustment");
	/* over 1 by 0.1 with the last entry 0.6: pool 1 loses the excess */
	set(&p, "SharedBufferManager", "PoolAllocationMap", "[0.5, 0.6, 0, 0, 0, 0, 0, 0]");
	b = setup(&p, 128);
	cr_assert_eq(b.pool_size[0] + b.pool_size[1], 223232000);
	cr_assert_eq(b.pool_size[1], 111616000);
	/* with the fixed even split, the limit also comes from the size before */
	set(&p, "SharedBufferManager", "LossyAlpha", "0");
	b = setup(&p, 128);
	cr_assert_eq(b.egress_limit[1], 133939200 / 128);
}

Test(sw_buffer, uet_policy_three_pools_and_fixed_limits)
{
	struct sw_params p = defaults();
	struct sw_buffer b;

	set(&p, "SharedBufferManager", "UETPolicyEnabled", "true");
	b = setup(&p, 128);
	/* 1.5 : 1 : 1 of 223,232,000 B: 1.5/3.5, 1/3.5 and the rest */
	cr_assert_eq(b.pool_size[0], 95670857);
	cr_assert_eq(b.pool_size[1], 63780571);
	cr_assert_eq(b.pool_size[2], 63780572);
	cr_assert_eq(b.pool_size[0] + b.pool_size[1] + b.pool_size[2], 223232000);
	cr_assert(!b.pool_on[3]);
	for (int tc = 0; tc < 3; tc++)
		cr_assert_eq(b.tc_pool[tc], tc, "class n uses pool n");
	/* no trimming: QueueDropThreshold x PlaneBDP = 1,500,000 B; TRIMMABLE_RTX 1.5 x = 2,250,000 B */
	cr_assert_eq(b.egress_form, SW_EG_UET);
	cr_assert_eq(b.egress_limit[0], 1500000);
	cr_assert_eq(b.egress_limit_rtx[0], 2250000);
	cr_assert_eq(sw_buffer_egress_limit(&b, 0, 0, true), 2250000);
	cr_assert_eq(b.egress_limit[2], 1500000);
	/* EnablePFC still applies: TC0 and TC1 lossless by default */
	cr_assert(b.tc_lossless[0] && b.tc_lossless[1] && !b.tc_lossless[2]);
	/* trimming: PlaneBDP = 300,000 B, 450,000 B for TRIMMABLE_RTX; ECN band 0.2..0.8 x PlaneBDP */
	set(&p, "PacketTrimmer", "TrimmingEnabled", "true");
	set(&p, "SharedBufferManager", "EnablePFC", "[0, 0, 0, 0, 0, 0, 0, 0]");
	b = setup(&p, 128);
	cr_assert_eq(b.egress_limit[0], 300000);
	cr_assert_eq(b.egress_limit_rtx[0], 450000);
	cr_assert_eq(b.egress_limit[1], 300000);
	cr_assert_eq(b.ecn_min[0], 60000);
	cr_assert_eq(b.ecn_max[0], 240000);
	cr_assert_eq(b.pool_pg[0] | b.pool_pg[1] | b.pool_pg[2], 0);
}

Test(sw_buffer, pause_time_at_the_defaults)
{
	/* 65,535 quanta x 512 bits at 400 Gb/s = 83.8848 us, plus 500 ns: about 84.4 us; refresh about every 42.2 us */
	emu_ps_t t = net_pfc_pause_time(SW_PFC_QUANTA, 400000000000ULL, 500 * EMU_PS_PER_NS);

	cr_assert_eq(t, 84384800);
	cr_assert_eq(t / 2, 42192400);
}

Test(sw_buffer, charge_is_the_packet_without_ethernet_at_least_46)
{
	cr_assert_eq(sw_charge_bytes(4000), 4000);
	cr_assert_eq(sw_charge_bytes(44), 46, "a trimmed packet's 44 B datagram is charged 46");
	cr_assert_eq(sw_charge_bytes(46), 46);
}
