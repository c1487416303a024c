/* Tests of the config loader: every NIC attribute at its Scala path, defaults, broken configs, --set overrides. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ctl_config.h"
#include "nic_params.h"
#include "wire.h"

#define DIR "tests/control/"
#define BAD "tests/control/bad/"

static char err[1024];

static void load_ok(struct ctl_config *cfg, const char *path, const char *const *sets, int n)
{
	int rc = ctl_config_load(cfg, path, sets, n, err, sizeof(err));

	cr_assert_eq(rc, 0, "load %s: %d %s", path, rc, err);
}

/* Load @p path with @p n overrides, expect failure @p want_rc with exactly @p want as the message. */
static void load_fails(const char *path, const char *const *sets, int n, int want_rc, const char *want)
{
	struct ctl_config cfg;

	memset(&cfg, 0xa5, sizeof(cfg));
	err[0] = '\0';
	int rc = ctl_config_load(&cfg, path, sets, n, err, sizeof(err));

	cr_expect_eq(rc, want_rc, "load %s: rc %d, want %d (%s)", path, rc, want_rc, err);
	cr_expect_str_eq(err, want);
	/* On error nothing is left to free. */
	cr_expect_null(cfg.hosts);
	cr_expect_null(cfg.apps);
	cr_expect_eq(cfg.n_hosts, 0);
}

static void set_fails(const char *set, const char *want)
{
	const char *sets[] = { set };

	load_fails(DIR "good-min.yaml", sets, 1, -EINVAL, want);
}

/* ---- The attribute table ---- */

Test(ctl_config, table_rows_are_sane)
{
	struct nic_params p;

	nic_params_defaults(&p);
	for (unsigned i = 0; i < nic_param_count; i++) {
		const struct nic_param_def *d = &nic_param_table[i];
		int depth = 0;

		while (depth < NIC_PARAM_DEPTH && d->path[depth] != NULL)
			depth++;
		cr_expect(depth >= 1 && depth < NIC_PARAM_DEPTH, "row %u depth %d", i, depth);
		cr_expect_not_null(d->def, "row %u", i);
		cr_expect_eq(d->readonly, strcmp(d->path[0], "NumDownLinks") == 0, "row %u", i);
		/* A uint's range must fit its field. */
		if (d->type == NIC_PT_UINT && d->size != 0 && d->size < 8)
			cr_expect(d->max < (1ULL << (8 * d->size)), "row %u (%s) max %llu", i, d->path[depth - 1],
				  (unsigned long long)d->max);
		for (unsigned j = 0; j < i; j++) {
			const struct nic_param_def *e = &nic_param_table[j];
			bool same = true;

			for (int k = 0; k < NIC_PARAM_DEPTH; k++)
				same = same && ((d->path[k] == NULL && e->path[k] == NULL) ||
						(d->path[k] != NULL && e->path[k] != NULL && !strcmp(d->path[k], e->path[k])));
			cr_expect(!same, "rows %u and %u have one path", j, i);
			cr_expect(d->size == 0 || e->size == 0 || d->off != e->off, "rows %u and %u share a field", j, i);
		}
	}
}

Test(ctl_config, defaults_are_the_documented_ones)
{
	struct nic_params p;
	struct wire_dscp_map dscp;

	nic_params_defaults(&p);
	wire_dscp_defaults(&dscp);
	/* Values from spec/scala/uet-nic-configuration.md. */
	cr_expect_eq(p.enable_transport_stats, true);
	cr_expect_eq(p.data_rate_bps, 400000000000ULL);
	cr_expect_eq(p.delay_ps, 100000);
	cr_expect_eq(p.ingress.total_buffer_size, 4000000);
	cr_expect_eq(p.ingress.pool_alloc_ppm[0], 900000);
	cr_expect_eq(p.ingress.pool_alloc_ppm[1], 100000);
	cr_expect_eq(p.ingress.pool_alloc_ppm[2], 0);
	cr_expect_eq(p.ingress.pfc_xoff_ppm[0], 800000);
	cr_expect_eq(p.ingress.pfc_xon_ppm[1], 400000);
	cr_expect_eq(p.ingress.quanta[0], 65535);
	cr_expect_eq(p.ingress.wrr_weights[1], 3);
	cr_expect_eq(p.egress.total_buffer_size, 256000);
	cr_expect_eq(p.egress.wrr_weights[1], 5);
	cr_expect_eq(p.egress.queue_scheduling, NIC_QSCHED_STRICT);
	cr_expect_eq(p.use_distinct_dscp_rtx, true);
	cr_expect_eq(p.pdc_groups_enabled, true);
	cr_expect_eq(p.prefetch_size, 262144);
	cr_expect_eq(p.spraying, NIC_SPRAY_DEFAULT);
	cr_expect_eq(p.initial_rto, 150000000);
	cr_expect_eq(p.max_rto_backoff, 5);
	cr_expect_eq(p.ack_req_every_nth, 1);
	cr_expect_eq(p.entropy_mask_bits, 7);
	cr_expect_eq(p.starting_port_offset, 256);
	cr_expect_eq(p.entropy_value_set_size, 65536);
	cr_expect_eq(p.freezing_timeout, 100000000);
	cr_expect_eq(p.initial_base_rtt, 6000000);
	cr_expect_eq(p.target_qdelay, 4500000);
	cr_expect_eq(p.quick_adapt_threshold, 24000000);
	cr_expect_eq(p.max_cwnd_pkts, 107);
	cr_expect_eq(p.recv_cong_high_pct, 75.0);
	cr_expect_eq(p.eta_mult, 0.15);
	cr_expect_eq(p.rdma_data_mss, 4096);
	cr_expect_str_eq(p.filter_pdc, "All");
	cr_expect_eq(p.trigger_cwnd_pen_threshold, 127);
	cr_expect_eq(p.pcie_nic.lane_bps, 31520000000ULL);
	cr_expect_eq(p.pcie_nic.lane_count, 16);
	cr_expect_eq(p.pcie_host.rx_data_buffer, 256000);
	cr_expect_eq(p.pcie_host.tx_header_buffer, 16000);
	cr_expect_eq(p.udp_port, 4793);
	cr_expect_arr_eq(p.dscp.dscp, dscp.dscp, sizeof(dscp.dscp));
}

Test(ctl_config, sim_defaults)
{
	struct emu_sim_params s;

	emu_sim_defaults(&s);
	cr_expect_str_eq(s.simulation_name, "uetemu");
	cr_expect_eq(s.random_seed, 18760);
	cr_expect_eq(s.duration, 0);
	cr_expect_eq(s.nd_stats_interval, 1000000000ULL);
	cr_expect_eq(s.enable_net_device_stat_logging, true);
	cr_expect_eq(s.time_scale, 1);
}

Test(ctl_config, empty_nic_section_gives_defaults)
{
	struct ctl_config cfg;
	struct nic_params d;
	struct emu_sim_params s;

	nic_params_defaults(&d);
	emu_sim_defaults(&s);
	load_ok(&cfg, DIR "good-min.yaml", NULL, 0);
	cr_expect_eq(memcmp(&cfg.nic, &d, sizeof(d)), 0);
	cr_expect_eq(memcmp(&cfg.sim, &s, sizeof(s)), 0);
	ctl_config_free(&cfg);
}

/* Every field of struct nic_params, written out by hand so that a field the table forgets fails here. */
#define CHANGED(f) cr_expect_neq(memcmp(&cfg.nic.f, &d.f, sizeof(d.f)), 0, "nic." #f " kept its default")

Test(ctl_config, good_full_changes_every_field)
{
	struct ctl_config cfg;
	struct nic_params d;

	nic_params_defaults(&d);
	load_ok(&cfg, DIR "good-full.yaml", NULL, 0);
	CHANGED(enable_buffer_stats); CHANGED(enable_transport_stats); CHANGED(enable_event_logging);
	CHANGED(data_rate_bps); CHANGED(delay_ps);
	CHANGED(ingress.total_buffer_size); CHANGED(ingress.queue_scheduling); CHANGED(ingress.pool_alloc_ppm);
	CHANGED(ingress.wrr_weights); CHANGED(ingress.pfc_enable); CHANGED(ingress.pfc_xoff_ppm);
	CHANGED(ingress.pfc_xon_ppm); CHANGED(ingress.quanta);
	/* The egress manager has no PFC attributes: its pfc_* and quanta fields are unused. */
	CHANGED(egress.total_buffer_size); CHANGED(egress.queue_scheduling); CHANGED(egress.pool_alloc_ppm);
	CHANGED(egress.wrr_weights);
	CHANGED(trimming_enabled); CHANGED(use_distinct_dscp_rtx); CHANGED(pdc_groups_enabled);
	CHANGED(prefetch_enable); CHANGED(prefetch_size); CHANGED(spraying); CHANGED(failure_detection_rtt_mult);
	CHANGED(initial_rto); CHANGED(max_rto_backoff); CHANGED(fixed_rexmit_enable); CHANGED(fixed_rexmit_timeout);
	CHANGED(ack_req_first); CHANGED(ack_req_last); CHANGED(ack_req_every_nth);
	CHANGED(entropy_mask_bits); CHANGED(starting_port_offset); CHANGED(reps_buffer_mask_bits);
	CHANGED(entropy_value_set_size); CHANGED(freezing_timeout);
	CHANGED(cc_pass_through); CHANGED(nscc_enable); CHANGED(initial_base_rtt); CHANGED(reference_network_rtt);
	CHANGED(reference_link_bps); CHANGED(override_target_qdelay); CHANGED(target_qdelay);
	CHANGED(target_qdelay_margin); CHANGED(disable_quick_adapt); CHANGED(quick_adapt_gate);
	CHANGED(quick_adapt_threshold); CHANGED(override_max_cwnd); CHANGED(max_cwnd_pkts);
	CHANGED(recv_cong_low_pct); CHANGED(recv_cong_high_pct); CHANGED(restore_cwnd_enable); CHANGED(max_md_jump);
	CHANGED(alpha_mult); CHANGED(fair_increase_mult); CHANGED(fast_increase_mult); CHANGED(eta_mult);
	CHANGED(gamma); CHANGED(delay_alpha);
	CHANGED(rdma_data_mss);
	CHANGED(monitor_enable); CHANGED(filter_fep_id); CHANGED(filter_local_ip); CHANGED(filter_remote_ip);
	CHANGED(filter_pdc); CHANGED(trigger_rtt_enable); CHANGED(trigger_rtt_threshold); CHANGED(trigger_cwnd_pen);
	CHANGED(trigger_cwnd_pen_threshold); CHANGED(triggered_pdc_limit);
	CHANGED(pcie_nic.rx_header_buffer); CHANGED(pcie_nic.tx_header_buffer); CHANGED(pcie_nic.rx_data_buffer);
	CHANGED(pcie_nic.tx_data_buffer); CHANGED(pcie_nic.lane_bps); CHANGED(pcie_nic.lane_count);
	CHANGED(pcie_host.rx_header_buffer); CHANGED(pcie_host.tx_header_buffer); CHANGED(pcie_host.rx_data_buffer);
	CHANGED(pcie_host.tx_data_buffer); CHANGED(pcie_host.lane_bps); CHANGED(pcie_host.lane_count);
	CHANGED(udp_port);
	for (int r = 0; r < WIRE_ROLE_COUNT; r++)
		cr_expect_neq(cfg.nic.dscp.dscp[r], d.dscp.dscp[r], "dscp role %d kept its default", r);
	ctl_config_free(&cfg);
}

Test(ctl_config, good_full_changes_every_table_row)
{
	struct ctl_config cfg;
	struct nic_params d;

	nic_params_defaults(&d);
	load_ok(&cfg, DIR "good-full.yaml", NULL, 0);
	for (unsigned i = 0; i < nic_param_count; i++) {
		const struct nic_param_def *r = &nic_param_table[i];

		if (r->size != 0)
			cr_expect_neq(memcmp((char *)&cfg.nic + r->off, (char *)&d + r->off, r->size), 0,
				      "row %u kept its default", i);
	}
	ctl_config_free(&cfg);
}

Test(ctl_config, good_full_values_exact)
{
	struct ctl_config cfg;
	const uint32_t xoff[8] = { 700000, 750000, 500000, 0, 0, 0, 0, 0 };
	const uint8_t pfc[8] = { 1, 1, 0, 0, 0, 0, 0, 0 };
	const uint32_t quanta[8] = { 1000, 2000, 3000, 0, 0, 0, 0, 0 };

	load_ok(&cfg, DIR "good-full.yaml", NULL, 0);
	cr_expect_eq(cfg.nic.delay_ps, 1550);
	cr_expect_eq(cfg.nic.ingress.total_buffer_size, 8u << 20);
	cr_expect_eq(cfg.nic.ingress.queue_scheduling, NIC_QSCHED_WRR);
	cr_expect_eq(cfg.nic.egress.queue_scheduling, NIC_QSCHED_RR);
	cr_expect_eq(cfg.nic.ingress.pool_alloc_ppm[2], 100000);
	cr_expect_arr_eq(cfg.nic.ingress.pfc_xoff_ppm, xoff, sizeof(xoff));
	cr_expect_arr_eq(cfg.nic.ingress.pfc_enable, pfc, sizeof(pfc));
	cr_expect_arr_eq(cfg.nic.ingress.quanta, quanta, sizeof(quanta));
	cr_expect_eq(cfg.nic.egress.total_buffer_size, 512u << 10);
	cr_expect_eq(cfg.nic.spraying, NIC_SPRAY_REPS);
	cr_expect_eq(cfg.nic.delay_alpha, 0.125);
	cr_expect_str_eq(cfg.nic.filter_pdc, "10.0.0.1:4500");
	cr_expect_str_eq(cfg.nic.filter_fep_id, "3");
	cr_expect_eq(cfg.nic.pcie_nic.tx_header_buffer, 32768);
	cr_expect_eq(cfg.nic.pcie_host.lane_bps, 8000000000ULL);
	cr_expect_eq(cfg.nic.pcie_host.lane_count, 4);
	cr_expect_eq(cfg.nic.dscp.dscp[WIRE_ROLE_CONTROL], 48);
	ctl_config_free(&cfg);
}

Test(ctl_config, good_full_sections)
{
	struct ctl_config cfg;
	const uint8_t mac0[6] = { 2, 0, 0, 0, 0, 1 }, mac1[6] = { 2, 0, 0, 0, 0, 0xaa }, mac2[6] = { 2, 0, 0, 0, 0, 3 };

	load_ok(&cfg, DIR "good-full.yaml", NULL, 0);
	cr_expect_str_eq(cfg.path, DIR "good-full.yaml");
	cr_expect_str_eq(cfg.sim.simulation_name, "full");
	cr_expect_eq(cfg.sim.random_seed, 7);
	cr_expect_eq(cfg.sim.duration, 10000000000ULL);
	cr_expect_eq(cfg.sim.nd_stats_interval, 500000000ULL); /* 0.0005 s */
	cr_expect_eq(cfg.sim.enable_net_device_stat_logging, false);
	cr_expect_eq(cfg.sim.time_scale, 10);
	cr_assert_eq(cfg.n_hosts, 4);
	cr_expect_eq(cfg.hosts[1].ip, 0x0a000002u);
	cr_expect_arr_eq(cfg.hosts[0].mac, mac0, 6);
	cr_expect_arr_eq(cfg.hosts[1].mac, mac1, 6);
	cr_expect_arr_eq(cfg.hosts[2].mac, mac2, 6);
	cr_assert_eq(cfg.n_links, 2);
	cr_expect_eq(cfg.links[0].a, 0);
	cr_expect_eq(cfg.links[0].b, 1);
	cr_expect_eq(cfg.links[0].data_rate_bps, 0);
	cr_expect_eq(cfg.links[0].delay_ps, EMU_PS_NEVER);
	cr_expect_eq(cfg.links[1].data_rate_bps, 100000000000ULL);
	cr_expect_eq(cfg.links[1].delay_ps, 1000000);
	cr_assert_eq(cfg.n_apps, 2);
	cr_assert_eq(cfg.apps[0].n_list, 2);
	cr_expect_eq(cfg.apps[0].list[0].bytes, 1u << 20);
	cr_expect_eq(cfg.apps[0].list[1].src, 1);
	cr_expect_eq(cfg.apps[0].list[1].start, 1500000);
	cr_expect_eq(cfg.apps[1].type, CTL_APP_MESSAGES);
	cr_expect_eq(cfg.apps[1].list[0].bytes, 0);
	cr_assert_eq(cfg.n_ports, 1);
	cr_expect_eq(cfg.ports[0].host, 2);
	cr_expect_str_eq(cfg.ports[0].dev, "net_tap0,iface=uet0");
	cr_assert_eq(cfg.n_captures, 2);
	cr_expect_eq(cfg.captures[1].link, 1);
	cr_expect_eq(ctl_config_host(&cfg, "host3"), 3);
	cr_expect_eq(ctl_config_host(&cfg, "nope"), -1);
	ctl_config_free(&cfg);
	ctl_config_free(&cfg); /* a freed config is zeroed: freeing it again is harmless */
	ctl_config_free(NULL);
}

Test(ctl_config, shipped_configs_load)
{
	const char *files[] = { "configs/pair.yaml", "configs/default.yaml", "configs/lab-bridge.yaml" };

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		struct ctl_config cfg;
		FILE *f = fopen(files[i], "r");

		if (f == NULL)
			continue; /* not every checkout ships every config */
		fclose(f);
		load_ok(&cfg, files[i], NULL, 0);
		ctl_config_free(&cfg);
	}
}

/* ---- Broken configs: one exact message each ---- */

Test(ctl_config, bad_typo_suggests_nearest_key)
{
	load_fails(BAD "typo.yaml", NULL, 0, -EINVAL,
		   BAD "typo.yaml:7:7: nic.TransportProcessingLayers.ScalaUETPdsManager.TrimingEnabled: unknown key; "
		   "did you mean 'TrimmingEnabled'?");
}

Test(ctl_config, bad_unit)
{
	load_fails(BAD "bad-unit.yaml", NULL, 0, -EINVAL,
		   BAD "bad-unit.yaml:5:40: nic.NetworkInterface.UplinkNetworkInterface.DataRate: bad unit 'Gbit'; a "
		   "datarate takes bps, Kbps, Mbps, Gbps or Tbps, e.g. 400Gbps");
}

Test(ctl_config, bad_negative_size)
{
	load_fails(BAD "negative-size.yaml", NULL, 0, -EINVAL,
		   BAD "negative-size.yaml:12:16: applications.0.list.0.bytes: negative size '-5'; a size is a whole "
		   "number of bytes, e.g. 4096 or 1MiB");
}

Test(ctl_config, bad_out_of_range)
{
	load_fails(BAD "out-of-range.yaml", NULL, 0, -EINVAL,
		   BAD "out-of-range.yaml:6:38: nic.TransportProcessingLayers.ScalaUETPdsManager."
		   "MaxExponentialRTOBackoffCount: value 17 out of range 0 to 15");
}

Test(ctl_config, bad_unknown_host)
{
	load_fails(BAD "unknown-host.yaml", NULL, 0, -EINVAL,
		   BAD "unknown-host.yaml:6:31: topology.links.0.b: unknown host 'host9'; hosts are host0, host1");
}

Test(ctl_config, bad_duplicate_key)
{
	load_fails(BAD "duplicate-key.yaml", NULL, 0, -EINVAL,
		   BAD "duplicate-key.yaml:3:3: simulation.RandomSeed: duplicate key; keep one, the first is at 2:3");
}

Test(ctl_config, bad_map_where_value_expected)
{
	load_fails(BAD "wrong-type.yaml", NULL, 0, -EINVAL,
		   BAD "wrong-type.yaml:7:9: nic.TransportProcessingLayers.SemanticLayer.RdmaDataMSS: expected a value, "
		   "not a map; e.g. 4096");
}

Test(ctl_config, bad_list_string)
{
	load_fails(BAD "bad-list.yaml", NULL, 0, -EINVAL,
		   BAD "bad-list.yaml:6:29: nic.NetworkInterface.IngressBufferManager.PoolAllocationVector: list "
		   "'[0.9, 0.1, 0, 0]' has 4 entries; a list holds 8, e.g. \"[0.9, 0.1, 0, 0, 0, 0, 0, 0]\"");
}

Test(ctl_config, bad_yaml_syntax)
{
	load_fails(BAD "syntax.yaml", NULL, 0, -EINVAL,
		   BAD "syntax.yaml:3:1: did not find expected ',' or ']' (while parsing a flow sequence at line 2); "
		   "check the YAML syntax");
}

Test(ctl_config, bad_pool_vector_gap)
{
	load_fails(BAD "pool-gap.yaml", NULL, 0, -EINVAL,
		   BAD "pool-gap.yaml:6:29: nic.NetworkInterface.EgressBufferManager.PoolAllocationVector: entry 1 is 0 "
		   "but entry 2 is not; the non-zero entries come first, from class 0, with no 0 between them");
}

Test(ctl_config, bad_prefetch_smaller_than_a_packet)
{
	load_fails(BAD "prefetch.yaml", NULL, 0, -EINVAL,
		   BAD "prefetch.yaml:5:74: nic.TransportProcessingLayers.ScalaUETPdsManager.PrefetchBufferSize: "
		   "PrefetchBufferSize 5000 is less than one data packet, RdmaDataMSS + 106 = 8106 bytes, with "
		   "PrefetchBufferEnable true; raise PrefetchBufferSize or turn the prefetch buffer off");
}

Test(ctl_config, bad_src_equals_dst)
{
	load_fails(BAD "src-dst.yaml", NULL, 0, -EINVAL,
		   BAD "src-dst.yaml:5:27: applications.0.list.0.dst: src and dst are both 'host1'; a message goes "
		   "between two different hosts");
}

Test(ctl_config, bad_missing_required_key)
{
	load_fails(BAD "missing-key.yaml", NULL, 0, -EINVAL,
		   BAD "missing-key.yaml:4:7: topology.hosts.1.ip: missing required key; a host needs name and ip, e.g. "
		   "{name: host0, ip: 10.0.0.1}");
}

Test(ctl_config, bad_switch_key)
{
	load_fails(BAD "switch-key.yaml", NULL, 0, -EINVAL,
		   BAD "switch-key.yaml:4:3: switch.UETPolicyEnabled: unknown key; the switch model is not implemented "
		   "yet, leave switch empty");
}

Test(ctl_config, bad_host_on_two_links)
{
	load_fails(BAD "two-links.yaml", NULL, 0, -EINVAL,
		   BAD "two-links.yaml:8:31: topology.links.1.b: host 'host0' is already on link 'l0'; a host's NIC has "
		   "one port");
}

Test(ctl_config, bad_list_entry_not_a_map)
{
	load_fails(BAD "host-not-map.yaml", NULL, 0, -EINVAL,
		   BAD "host-not-map.yaml:3:7: topology.hosts.0: expected a map, not a value; a host needs name and ip, "
		   "e.g. {name: host0, ip: 10.0.0.1}");
}

Test(ctl_config, missing_file)
{
	load_fails(BAD "no-such-file.yaml", NULL, 0, -ENOENT, BAD "no-such-file.yaml: No such file or directory");
}

Test(ctl_config, null_error_buffer)
{
	struct ctl_config cfg;

	cr_expect_eq(ctl_config_load(&cfg, BAD "typo.yaml", NULL, 0, NULL, 0), -EINVAL);
}

/* ---- --set overrides ---- */

Test(ctl_config, set_nested_keys_and_indexes)
{
	const char *sets[] = {
		"nic.TransportProcessingLayers.ScalaUETPdsManager.TrimmingEnabled=true",
		"simulation.RandomSeed=7",
		"applications.0.list.0.bytes=4096",
		"topology.links.0.Delay=1us",
		"nic.NetworkInterface.IngressBufferManager.PoolAllocationVector=[0.5, 0.5, 0, 0, 0, 0, 0, 0]",
	};
	struct ctl_config cfg;

	load_ok(&cfg, DIR "good-min.yaml", sets, 5);
	cr_expect_eq(cfg.nic.trimming_enabled, true);
	cr_expect_eq(cfg.sim.random_seed, 7); /* the file has no simulation section: --set made it */
	cr_expect_eq(cfg.apps[0].list[0].bytes, 4096);
	cr_expect_eq(cfg.links[0].delay_ps, 1000000);
	cr_expect_eq(cfg.nic.ingress.pool_alloc_ppm[1], 500000);
	ctl_config_free(&cfg);
}

Test(ctl_config, set_pcie_paths_with_a_dot_in_a_key)
{
	const char *sets[] = {
		"nic.HostInterface.HostSide.PCIeGen3.0.ScalaHostPCIeDeviceLayer.HostPCIeInterface.PhysicalLayer.LaneCount=2",
		"nic.HostInterface.NICSide.PCIeGen3.0.NicDeviceLayer.NicPCIeInterface.PhysicalLayer.LaneCount=3",
		"nic.NetworkInterface.EgressBufferManager.PoolAllocationVector=[0.7, 0.3, 0, 0, 0, 0, 0, 0]",
	};
	struct ctl_config cfg;

	load_ok(&cfg, DIR "good-min.yaml", sets, 2);
	cr_expect_eq(cfg.nic.pcie_host.lane_count, 2);
	cr_expect_eq(cfg.nic.pcie_nic.lane_count, 3);
	ctl_config_free(&cfg);
	/* Into keys the file has, and a list string over a YAML sequence. */
	load_ok(&cfg, DIR "good-full.yaml", sets, 3);
	cr_expect_eq(cfg.nic.pcie_host.lane_count, 2);
	cr_expect_eq(cfg.nic.pcie_nic.lane_count, 3);
	cr_expect_eq(cfg.nic.pcie_nic.lane_bps, 16000000000ULL);
	cr_expect_eq(cfg.nic.egress.pool_alloc_ppm[1], 300000);
	ctl_config_free(&cfg);
}

/* The global switches and interval of the optional records (uet-nic-records.md, Records a simulation writes). */
Test(ctl_config, sim_record_switches_default)
{
	struct emu_sim_params s;
	struct ctl_config cfg;

	emu_sim_defaults(&s);
	cr_expect_eq(s.enable_pfc_ecn_stats_logging, true);
	cr_expect_eq(s.enable_net_buff_stats, false);
	cr_expect_eq(s.net_buff_stats_interval, 1000000000ULL); /* 0.001 s */
	cr_expect_eq(s.enable_pcie_stats_logging, false);
	load_ok(&cfg, DIR "good-min.yaml", NULL, 0);
	cr_expect_eq(cfg.sim.enable_pfc_ecn_stats_logging, true);
	cr_expect_eq(cfg.sim.enable_net_buff_stats, false);
	cr_expect_eq(cfg.sim.net_buff_stats_interval, 1000000000ULL);
	cr_expect_eq(cfg.sim.enable_pcie_stats_logging, false);
	ctl_config_free(&cfg);
}

Test(ctl_config, set_pfc_ecn_stats_logging)
{
	const char *sets[] = { "simulation.EnablePFCECNStatsLogging=false" };
	struct ctl_config cfg;

	load_ok(&cfg, DIR "good-min.yaml", sets, 1);
	cr_expect_eq(cfg.sim.enable_pfc_ecn_stats_logging, false);
	cr_expect_eq(cfg.sim.enable_net_device_stat_logging, true); /* its neighbour untouched */
	ctl_config_free(&cfg);
}

Test(ctl_config, set_network_buffer_stats_reporting)
{
	const char *sets[] = { "simulation.EnableNetworkBufferStatsReporting=true" };
	struct ctl_config cfg;

	load_ok(&cfg, DIR "good-min.yaml", sets, 1);
	cr_expect_eq(cfg.sim.enable_net_buff_stats, true);
	cr_expect_eq(cfg.nic.enable_buffer_stats, false); /* the NIC's own switch is separate */
	ctl_config_free(&cfg);
}

Test(ctl_config, set_network_buffer_stats_interval)
{
	const char *bare[] = { "simulation.NetworkBufferStatsReportingInterval=0.0025" };
	const char *unit[] = { "simulation.NetworkBufferStatsReportingInterval=10us" };
	struct ctl_config cfg;

	load_ok(&cfg, DIR "good-min.yaml", bare, 1);
	cr_expect_eq(cfg.sim.net_buff_stats_interval, 2500000000ULL); /* a bare number is seconds */
	cr_expect_eq(cfg.sim.nd_stats_interval, 1000000000ULL);       /* the other interval untouched */
	ctl_config_free(&cfg);
	load_ok(&cfg, DIR "good-min.yaml", unit, 1);
	cr_expect_eq(cfg.sim.net_buff_stats_interval, 10000000ULL);
	ctl_config_free(&cfg);
	set_fails("simulation.NetworkBufferStatsReportingInterval=0",
		  "--set simulation.NetworkBufferStatsReportingInterval=0: zero interval; a report interval is above 0, "
		  "e.g. 0.001 or 1ms");
	set_fails("simulation.NetworkBufferStatsReportingInterval=1.5ps",
		  "--set simulation.NetworkBufferStatsReportingInterval=1.5ps: '1.5ps' is not a whole number of "
		  "picoseconds; a time is a number of seconds or takes ps, ns, us, ms or s, e.g. 0.001 or 1ms");
}

Test(ctl_config, set_pcie_stats_logging)
{
	const char *sets[] = { "simulation.EnablePCIeStatsLogging=true" };
	struct ctl_config cfg;

	load_ok(&cfg, DIR "good-min.yaml", sets, 1);
	cr_expect_eq(cfg.sim.enable_pcie_stats_logging, true);
	ctl_config_free(&cfg);
	set_fails("simulation.EnablePCIeStatsLogging=yes",
		  "--set simulation.EnablePCIeStatsLogging=yes: bad bool 'yes'; a bool is true or false");
}

Test(ctl_config, set_applied_in_order)
{
	const char *sets[] = { "simulation.RandomSeed=1", "simulation.RandomSeed=2" };
	struct ctl_config cfg;

	load_ok(&cfg, DIR "good-full.yaml", sets, 2);
	cr_expect_eq(cfg.sim.random_seed, 2);
	ctl_config_free(&cfg);
}

Test(ctl_config, set_bad_values)
{
	set_fails("nic.TransportProcessingLayers.ScalaUETPdsManager.TrimingEnabled=true",
		  "--set nic.TransportProcessingLayers.ScalaUETPdsManager.TrimingEnabled=true: unknown key; did you mean "
		  "'TrimmingEnabled'?");
	set_fails("applications.0.list.0.bytes=-5",
		  "--set applications.0.list.0.bytes=-5: negative size '-5'; a size is a whole number of bytes, e.g. "
		  "4096 or 1MiB");
	set_fails("nic.HostInterface.NICSide.PCIeGen3.0.NicDeviceLayer.NicPCIeInterface.PhysicalLayer.LaneCount=17",
		  "--set nic.HostInterface.NICSide.PCIeGen3.0.NicDeviceLayer.NicPCIeInterface.PhysicalLayer.LaneCount=17: "
		  "value 17 out of range 1 to 16");
	set_fails("nic.NumDownLinks=1", "--set nic.NumDownLinks=1: read-only attribute; NumDownLinks is always 1, "
		  "remove it");
	set_fails("nic.NetworkInterface.IngressBufferManager.QueueSchedulingType=ProbabilisticWeightedRoundRobin",
		  "--set nic.NetworkInterface.IngressBufferManager.QueueSchedulingType=ProbabilisticWeightedRoundRobin: "
		  "'ProbabilisticWeightedRoundRobin' stops the Scala UET NIC before the run starts; use StrictPriority, "
		  "RoundRobin or WeightedRoundRobin");
	set_fails("nic.TransportProcessingLayers.ScalaUETPdsManager.PacketSprayingType=REPS",
		  "--set nic.TransportProcessingLayers.ScalaUETPdsManager.PacketSprayingType=REPS: unknown value 'REPS'; "
		  "PacketSprayingType takes None, Default Packet Spraying or Recycled Entropy Packet Spraying");
	set_fails("nic.TransportProcessingLayers.ScalaUETPdsManager.PrefetchBufferSize=4201",
		  "--set nic.TransportProcessingLayers.ScalaUETPdsManager.PrefetchBufferSize=4201: value 4201 out of "
		  "range 4202 to 4294967295");
	set_fails("nic.TransportProcessingLayers.ScalaUETCongestionControl.Gamma=0",
		  "--set nic.TransportProcessingLayers.ScalaUETCongestionControl.Gamma=0: value 0 out of range 0.001 to 1");
	set_fails("nic.TransportProcessingLayers.ScalaUETPdsManager.MaxExponentialRTOBackoffCount=1.5",
		  "--set nic.TransportProcessingLayers.ScalaUETPdsManager.MaxExponentialRTOBackoffCount=1.5: '1.5' is "
		  "not a whole number; a uint is a whole number of 0 or more, e.g. 42");
	set_fails("nic.NetworkInterface.IngressBufferManager.PoolAllocationVector=[0.9, 0.1, x, 0, 0, 0, 0, 0]",
		  "--set nic.NetworkInterface.IngressBufferManager.PoolAllocationVector=[0.9, 0.1, x, 0, 0, 0, 0, 0]: "
		  "entry 2: bad fraction 'x'; a fraction is 0.0 to 1.0, e.g. 0.9");
	set_fails("nic.NetworkInterface.IngressBufferManager.PoolAllocationVector=[0.9, 0, 0, 0, 0, 0, 0, 0]",
		  "--set nic.NetworkInterface.IngressBufferManager.PoolAllocationVector=[0.9, 0, 0, 0, 0, 0, 0, 0]: "
		  "1 non-zero entry; classes 0 and 1 each need a pool, e.g. [0.9, 0.1, 0, 0, 0, 0, 0, 0]");
	set_fails("nic.NetworkInterface.EgressBufferManager.TotalBufferSize=4KB",
		  "--set nic.NetworkInterface.EgressBufferManager.TotalBufferSize=4KB: egress data pool (class 0) holds "
		  "3600 bytes, less than one data packet, RdmaDataMSS + 106 = 4202 bytes; raise TotalBufferSize or "
		  "PoolAllocationVector entry 0");
	set_fails("nic.TransportProcessingLayers.ScalaUETMonitor.FilterOnLocalIp=10.0.0",
		  "--set nic.TransportProcessingLayers.ScalaUETMonitor.FilterOnLocalIp=10.0.0: bad filter '10.0.0'; "
		  "FilterOnLocalIp is All or an IPv4 address, e.g. 32.0.0.2");
	set_fails("simulation.NDStatsReportInterval=1.5ps",
		  "--set simulation.NDStatsReportInterval=1.5ps: '1.5ps' is not a whole number of picoseconds; a time is "
		  "a number of seconds or takes ps, ns, us, ms or s, e.g. 0.001 or 1ms");
	set_fails("simulation.TimeScale=0", "--set simulation.TimeScale=0: value 0 out of range 1 to 1000000");
	set_fails("topology.hosts.1.name=host0",
		  "--set topology.hosts.1.name=host0: duplicate host name 'host0'; the first is topology.hosts.0");
	set_fails("topology.hosts.1.ip=10.0.0.1",
		  "--set topology.hosts.1.ip=10.0.0.1: duplicate ip '10.0.0.1'; the first is topology.hosts.0");
	set_fails("topology.hosts.1.mac=02:00:00:00:00:01",
		  "--set topology.hosts.1.mac=02:00:00:00:00:01: duplicate mac '02:00:00:00:00:01'; the first is "
		  "topology.hosts.0");
	set_fails("topology.links.0.b=host0",
		  "--set topology.links.0.b=host0: link joins host0 to itself; a and b are two different hosts");
	set_fails("topology.links.0.DataRate=0Gbps",
		  "--set topology.links.0.DataRate=0Gbps: zero datarate '0Gbps'; it must be above 0, e.g. 400Gbps");
	set_fails("applications.0.type=rdma",
		  "--set applications.0.type=rdma: unknown application type 'rdma'; the only type is messages");
	set_fails("topology.hosts.1=host1",
		  "--set topology.hosts.1=host1: topology.hosts.1 is a map; set one of its keys, e.g. "
		  "topology.hosts.1.<key>=value");
	set_fails("nic.NetworkInterface.UplinkNetworkInterface=x",
		  "--set nic.NetworkInterface.UplinkNetworkInterface=x: expected a map, not a value; "
		  "UplinkNetworkInterface holds DataRate");
	set_fails("captures.0.link=l0",
		  "--set captures.0.link=l0: no list at captures; --set can index only lists the file has");
}

Test(ctl_config, set_bad_paths)
{
	set_fails("simulation.RandomSeed", "--set simulation.RandomSeed: missing '='; write --set path=value, e.g. "
		  "--set simulation.RandomSeed=7");
	set_fails("a..b=1", "--set a..b=1: empty key in the path; separate keys with one dot, e.g. "
		  "nic.EnableEventLogging=true");
	set_fails("applications.1.list.0.bytes=1",
		  "--set applications.1.list.0.bytes=1: index 1 out of range; applications has 1 entry");
	set_fails("applications.x=1",
		  "--set applications.x=1: applications is a list; index it with a number, e.g. applications.0");
	set_fails("topology.hosts.0.name.first=a",
		  "--set topology.hosts.0.name.first=a: topology.hosts.0.name is a value, not a map; set "
		  "topology.hosts.0.name=<value>");
	set_fails("nic=1", "--set nic=1: nic is a map; set one of its keys, e.g. nic.<key>=value");
	set_fails("nic.Foo.Bar=1",
		  "--set nic.Foo.Bar=1: nic.Foo: unknown key; valid keys are NumDownLinks, EnableBufferStats, "
		  "EnableTransportStats, EnableEventLogging, NetworkInterface, TransportProcessingLayers, HostInterface, "
		  "UETEncapsulation");
	set_fails("simulaton.RandomSeed=1",
		  "--set simulaton.RandomSeed=1: simulaton: unknown key; did you mean 'simulation'?");
	set_fails("switch.Foo=1",
		  "--set switch.Foo=1: unknown key; the switch model is not implemented yet, leave switch empty");
}
