/* Tests of the config loader: every NIC attribute at its Scala path, defaults, broken configs, --set overrides. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctl_config.h"
#include "ctl_yaml_pvt.h"
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
		const struct port_param_def *d = &nic_param_table[i];
		int depth = 0;

		while (depth < PORT_PARAM_DEPTH && d->path[depth] != NULL)
			depth++;
		cr_expect(depth >= 1 && depth < PORT_PARAM_DEPTH, "row %u depth %d", i, depth);
		cr_expect_not_null(d->def, "row %u", i);
		cr_expect_eq(d->readonly, strcmp(d->path[0], "NumDownLinks") == 0, "row %u", i);
		/* A uint's range must fit its field. */
		if (d->type == PORT_PT_UINT && d->size != 0 && d->size < 8)
			cr_expect(d->max < (1ULL << (8 * d->size)), "row %u (%s) max %llu", i, d->path[depth - 1],
				  (unsigned long long)d->max);
		for (unsigned j = 0; j < i; j++) {
			const struct port_param_def *e = &nic_param_table[j];
			bool same = true;

			for (int k = 0; k < PORT_PARAM_DEPTH; k++)
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
	cr_expect_eq(p.egress.queue_scheduling, PORT_QSCHED_STRICT);
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
	cr_expect_eq(s.run_number, 1);
	cr_expect_eq(s.duration, 0);
	cr_expect_eq(s.nd_stats_interval, 1000000000ULL);
	cr_expect_eq(s.enable_net_device_stat_logging, true);
	cr_expect_eq(s.time_scale, 1);
	cr_expect_eq(s.lag_policy, EMU_LAG_BESTEFFORT);
	cr_expect_eq(s.lag_limit, 1000000000ULL);
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

/* The peer profile keys, on top of good-full.yaml (which stays a config older binaries read too: the same-outputs
 * check runs it through the baseline). */
static const char *const profile_sets[] = {
	"nic.UETEncapsulation.CrcCoverage=refprov", "nic.UETEncapsulation.RequestForm=RUD_REQ",
	"nic.UETEncapsulation.AckForm=ACK", "nic.UETEncapsulation.AckSesResponse=WhenAsked",
	"nic.UETEncapsulation.SesJobId=1", "nic.UETEncapsulation.SesPidOnFep=2",
	"nic.UETEncapsulation.SesResourceIndex=15", "nic.UETEncapsulation.SesInitiator=16",
	"nic.UETEncapsulation.Ttl=64", "nic.UETEncapsulation.Ecn=NotECT", "nic.UETEncapsulation.StartPsn=RefProv",
	"nic.PeerProfile=uec-ref-prov",
};
#define N_PROFILE_SETS ((int)(sizeof(profile_sets) / sizeof(profile_sets[0])))

/* Every field of struct nic_params, written out by hand so that a field the table forgets fails here. */
#define CHANGED(f) cr_expect_neq(memcmp(&cfg.nic.f, &d.f, sizeof(d.f)), 0, "nic." #f " kept its default")

Test(ctl_config, good_full_changes_every_field)
{
	struct ctl_config cfg;
	struct nic_params d;

	nic_params_defaults(&d);
	load_ok(&cfg, DIR "good-full.yaml", profile_sets, N_PROFILE_SETS);
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
	CHANGED(udp_port); CHANGED(encapsulation); CHANGED(crc_trailer);
	CHANGED(crc_coverage); CHANGED(req_form); CHANGED(ack_form); CHANGED(ack_ses_mode); CHANGED(ses_job_id);
	CHANGED(ses_pid_on_fep); CHANGED(ses_resource_index); CHANGED(ses_initiator); CHANGED(ttl); CHANGED(ecn);
	CHANGED(start_psn); CHANGED(peer_profile);
	for (int r = 0; r < WIRE_ROLE_COUNT; r++)
		cr_expect_neq(cfg.nic.dscp.dscp[r], d.dscp.dscp[r], "dscp role %d kept its default", r);
	ctl_config_free(&cfg);
}

Test(ctl_config, good_full_changes_every_table_row)
{
	struct ctl_config cfg;
	struct nic_params d;

	nic_params_defaults(&d);
	load_ok(&cfg, DIR "good-full.yaml", profile_sets, N_PROFILE_SETS);
	for (unsigned i = 0; i < nic_param_count; i++) {
		const struct port_param_def *r = &nic_param_table[i];

		/* nic.TestFaults is for testing conformance tools only: a scenario config never sets it */
		if (r->size != 0 && strcmp(r->path[0], "TestFaults") != 0)
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

	load_ok(&cfg, DIR "good-full.yaml", profile_sets, N_PROFILE_SETS);
	cr_expect_eq(cfg.nic.delay_ps, 1550);
	cr_expect_eq(cfg.nic.ingress.total_buffer_size, 8u << 20);
	cr_expect_eq(cfg.nic.ingress.queue_scheduling, PORT_QSCHED_WRR);
	cr_expect_eq(cfg.nic.egress.queue_scheduling, PORT_QSCHED_RR);
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
	cr_expect_eq(cfg.nic.encapsulation, NIC_ENCAP_NATIVE_IPV4);
	cr_expect(cfg.nic.crc_trailer);
	cr_expect_eq(nic_params_encap(&cfg.nic), WIRE_ENCAP_NATIVE | WIRE_ENCAP_CRC | WIRE_ENCAP_CRC_IP | WIRE_ENCAP_PLAIN_REQ);
	cr_expect_eq(cfg.nic.ttl, 64);
	cr_expect_eq(nic_params_ecn(&cfg.nic), WIRE_ECN_NOT_ECT);
	cr_expect_eq(cfg.nic.ses_initiator, 16);
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
	cr_expect_eq(cfg.sim.run_number, 3);
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
	cr_assert_eq(cfg.ports[0].n_hosts, 1);
	cr_expect_eq(cfg.ports[0].hosts[0], 2);
	cr_expect_eq(cfg.ports[0].gateway, 0);
	cr_expect(!cfg.hosts[0].mac_static && !cfg.hosts[0].has_prefix && cfg.hosts[0].gateway == 0);
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
	const char *files[] = { "configs/pair.yaml", "configs/default.yaml", "configs/lab-bridge.yaml",
				"configs/rack.yaml", "configs/leaf-spine.yaml", "configs/fat-tree-128.yaml",
				"configs/rdma-rack.yaml" };

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

/* A map where a value is expected is the pages' typed form {value, unit, type}; another key in it is refused. */
Test(ctl_config, bad_map_where_value_expected)
{
	load_fails(BAD "wrong-type.yaml", NULL, 0, -EINVAL,
		   BAD "wrong-type.yaml:7:9: nic.TransportProcessingLayers.SemanticLayer.RdmaDataMSS: unknown key in a "
		   "typed value; it holds value, unit and type, e.g. {value: 16, unit: ms, type: timeval}");
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

/* ---- Settings the pages accept but that leave part of the model idle: warnings, not errors ---- */

/* Load @p path with @p n overrides, expecting success and exactly the @p n_want warnings @p want. */
static void load_warns(const char *path, const char *const *sets, int n, const char *const *want, uint32_t n_want)
{
	struct ctl_config cfg;

	load_ok(&cfg, path, sets, n);
	cr_expect_eq(cfg.n_warnings, n_want, "%s: %u warnings, want %u (first: %s)", path, cfg.n_warnings, n_want,
		     cfg.n_warnings ? cfg.warnings[0] : "none");
	for (uint32_t i = 0; i < n_want && i < cfg.n_warnings; i++)
		cr_expect_str_eq(cfg.warnings[i], want[i]);
	ctl_config_free(&cfg);
}

Test(ctl_config, pool_vector_with_a_gap_accepted_with_a_warning)
{
	/* The configuration page stops a run on fewer than two non-zero entries only: [0.9, 0, 0.1, ...] has two. */
	static const char *const want[] = {
		DIR "warn-pool-gap.yaml: nic.NetworkInterface.EgressBufferManager.PoolAllocationVector: entry 1 is 0 "
		"but entry 2 is not; class 1 (control) has no transmit pool: the NIC sends no ACK, NACK or probe",
	};

	load_warns(DIR "warn-pool-gap.yaml", NULL, 0, want, 1);
}

Test(ctl_config, receive_pool_vector_with_a_gap_accepted_with_a_warning)
{
	static const char *const sets[] = {
		"nic.NetworkInterface.IngressBufferManager.PoolAllocationVector=[0.5, 0, 0.5, 0, 0, 0, 0, 0]" };
	static const char *const want[] = {
		DIR "good-min.yaml: nic.NetworkInterface.IngressBufferManager.PoolAllocationVector: entry 1 is 0 but "
		"entry 2 is not; class 1 (control) has no receive pool: every ACK, NACK and probe received is dropped",
	};

	load_warns(DIR "good-min.yaml", sets, 1, want, 1);
}

Test(ctl_config, egress_data_pool_below_one_packet_accepted_with_a_warning)
{
	/* Page *Buffers and PFC*, Egress buffer: "If it cannot, the NIC stops sending data to every destination": a
	 * stall at run time, not a rule that stops the run. */
	static const char *const sets[] = { "nic.NetworkInterface.EgressBufferManager.TotalBufferSize=4KB" };
	static const char *const want[] = {
		DIR "good-min.yaml: nic.NetworkInterface.EgressBufferManager.TotalBufferSize: egress data pool "
		"(class 0) holds 3600 bytes, less than one data packet, RdmaDataMSS + 106 = 4202 bytes; the NIC sends "
		"no data packet larger than the pool (a full one never)",
	};

	load_warns(DIR "good-min.yaml", sets, 1, want, 1);
}

Test(ctl_config, reps_with_flowlet_switches_warns)
{
	/* Configuration page: "The validation also warns, without making the configuration invalid, when a NIC's
	 * PacketSprayingType is Recycled Entropy Packet Spraying and a switch's LoadBalancingMethod is flowlet." */
	static const char *const sets[] = {
		"nic.TransportProcessingLayers.ScalaUETPdsManager.PacketSprayingType=Recycled Entropy Packet Spraying",
		"switch.LoadBalancingMethod=flowlet" };
	static const char *const want[] = {
		DIR "good-fat-tree.yaml: nic.TransportProcessingLayers.ScalaUETPdsManager.PacketSprayingType: Recycled "
		"Entropy Packet Spraying with switch.LoadBalancingMethod flowlet; the switches also move flows between "
		"members at gaps, under the NICs' entropy choices",
	};

	load_warns(DIR "good-fat-tree.yaml", sets, 2, want, 1);
	load_warns(DIR "good-fat-tree.yaml", sets, 1, NULL, 0); /* REPS alone */
	load_warns(DIR "good-min.yaml", sets, 2, NULL, 0);      /* no switch in the topology */
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
		   BAD "switch-key.yaml:4:3: switch.UETPolicyEnabled: unknown key here; UETPolicyEnabled sits at "
		   "SharedBufferManager.UETPolicyEnabled under this section");
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
		  "--set simulation.NetworkBufferStatsReportingInterval=0: interval below 1us; a report interval is at "
		  "least 1us (rows for every host and port each interval), e.g. 0.001 or 1ms");
	set_fails("simulation.NetworkBufferStatsReportingInterval=999ns",
		  "--set simulation.NetworkBufferStatsReportingInterval=999ns: interval below 1us; a report interval is "
		  "at least 1us (rows for every host and port each interval), e.g. 0.001 or 1ms");
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

/* docs/config.md, simulation: LagPolicy and LagLimit (real time); ports[].tx. */
Test(ctl_config, set_lag_policy_limit_and_port_tx)
{
	const char *sets[] = { "simulation.LagPolicy=elastic", "simulation.LagLimit=250us", "ports.0.tx=copy" };
	const char *abort_set[] = { "simulation.LagPolicy=abort", "simulation.LagLimit=0.5ns" };
	struct ctl_config cfg;

	load_ok(&cfg, DIR "good-full.yaml", NULL, 0);
	cr_expect_eq(cfg.sim.lag_policy, EMU_LAG_BESTEFFORT);
	cr_expect_eq(cfg.sim.lag_limit, 1000000000ULL);
	cr_expect_eq(cfg.ports[0].tx_copy, false);
	ctl_config_free(&cfg);
	load_ok(&cfg, DIR "good-full.yaml", sets, 3);
	cr_expect_eq(cfg.sim.lag_policy, EMU_LAG_ELASTIC);
	cr_expect_eq(cfg.sim.lag_limit, 250000000ULL);
	cr_expect_eq(cfg.ports[0].tx_copy, true);
	ctl_config_free(&cfg);
	load_ok(&cfg, DIR "good-full.yaml", abort_set, 2);
	cr_expect_eq(cfg.sim.lag_policy, EMU_LAG_ABORT);
	cr_expect_eq(cfg.sim.lag_limit, 500ULL);
	ctl_config_free(&cfg);
	set_fails("simulation.LagPolicy=Abort",
		  "--set simulation.LagPolicy=Abort: unknown LagPolicy 'Abort'; use besteffort (the default), abort or "
		  "elastic");
	set_fails("simulation.LagLimit=0", "--set simulation.LagLimit=0: LagLimit out of range; give 1ps to 1000s, "
		  "e.g. 1ms");
	set_fails("simulation.LagLimit=1001s", "--set simulation.LagLimit=1001s: LagLimit out of range; give 1ps to "
		  "1000s, e.g. 1ms");
	set_fails("simulation.LagLimit=1ms5", "--set simulation.LagLimit=1ms5: bad unit 'ms5'; a time takes ps, ns, "
		  "us, ms or s, e.g. 100ns");
	const char *bad_tx[] = { "ports.0.tx=zero" };
	load_fails(DIR "good-full.yaml", bad_tx, 1, -EINVAL,
		   "--set ports.0.tx=zero: unknown tx 'zero'; use zerocopy (the default) or copy");
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
	set_fails("nic.TransportProcessingLayers.ScalaUETMonitor.FilterOnLocalIp=10.0.0",
		  "--set nic.TransportProcessingLayers.ScalaUETMonitor.FilterOnLocalIp=10.0.0: bad filter '10.0.0'; "
		  "FilterOnLocalIp is All or an IPv4 address, e.g. 32.0.0.2");
	set_fails("simulation.NDStatsReportInterval=1.5ps",
		  "--set simulation.NDStatsReportInterval=1.5ps: '1.5ps' is not a whole number of picoseconds; a time is "
		  "a number of seconds or takes ps, ns, us, ms or s, e.g. 0.001 or 1ms");
	set_fails("simulation.TimeScale=0", "--set simulation.TimeScale=0: value 0 out of range 1 to 1000000");
	set_fails("simulation.RunNumber=65536", "--set simulation.RunNumber=65536: value 65536 out of range 0 to 65535");
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
		  "--set applications.0.type=rdma: unknown application type 'rdma'; use messages, ScalaRdma, Chakra, pingpong, responder, flows, stream or connection_matrix");
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
		  "EnableTransportStats, EnableEventLogging, NetworkInterface, EgressShaper, TransportProcessingLayers, "
		  "HostInterface, UETEncapsulation, PeerProfile, TestFaults");
	set_fails("simulaton.RandomSeed=1",
		  "--set simulaton.RandomSeed=1: simulaton: unknown key; did you mean 'simulation'?");
	set_fails("switch.Foo=1",
		  "--set switch.Foo=1: unknown key; valid keys are NumUpLinks, NumDownLinks, NumUpLinksPerSwitch, "
		  "SwitchingCapacity, EcmpHashMethod, LoadBalancingMethod, EnableLoadBalancingStats, "
		  "LoadBalancingStatsReportInterval, ReportPerPortBufferStats, NetworkInterface, PacketTrimmer, "
		  "LoadBalancingFlowlet, SharedBufferManager, EcnHandler");
}

/* ---- Generated topologies (docs/topology.md) and link faults ---- */

#define GBPS 1000000000ULL

static char tmp_path[64];

/* Write @p yaml to a new file in /tmp; its name is in tmp_path. */
static const char *yaml_file(const char *yaml)
{
	int fd;

	snprintf(tmp_path, sizeof(tmp_path), "/tmp/uetemu-topo-XXXXXX");
	fd = mkstemp(tmp_path);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, yaml, strlen(yaml)), (ssize_t)strlen(yaml));
	close(fd);
	return tmp_path;
}

static void yaml_ok(struct ctl_config *cfg, const char *yaml)
{
	const char *path = yaml_file(yaml);

	load_ok(cfg, path, NULL, 0);
	unlink(path);
}

/* @p yaml fails with "<its file>:" followed by @p want. */
static void yaml_fails(const char *yaml, const char *want)
{
	char full[1024];
	const char *path = yaml_file(yaml);

	snprintf(full, sizeof(full), "%s:%s", path, want);
	load_fails(path, NULL, 0, -EINVAL, full);
	unlink(path);
}

#define LEAF_SPINE "topology:\n  type: leaf-spine\n  hosts_per_rack: 4\n  racks: 4\n  spines: 4\n"

Test(ctl_config, rack_config_fills_hosts)
{
	struct ctl_config cfg;
	const uint8_t mac7[6] = { 2, 0, 0, 0, 0, 8 };

	load_ok(&cfg, "configs/rack.yaml", NULL, 0);
	cr_expect_eq(cfg.topo_type, CTL_TOPO_GENERATED);
	cr_expect_eq(cfg.topo_spec.type, NET_TOPO_RACK);
	cr_expect_eq(cfg.topo_spec.hosts_per_rack, 8);
	cr_expect_eq(cfg.n_links, 0);
	cr_assert_eq(cfg.n_hosts, 8);
	cr_expect_str_eq(cfg.hosts[0].name, "host0");
	cr_expect_str_eq(cfg.hosts[7].name, "host7");
	cr_expect_eq(cfg.hosts[0].ip, 0x0a000001u);
	cr_expect_eq(cfg.hosts[7].ip, 0x0a000008u);
	cr_expect_arr_eq(cfg.hosts[7].mac, mac7, 6);
	cr_expect_eq(ctl_config_host(&cfg, "host5"), 5);
	ctl_config_free(&cfg);
}

Test(ctl_config, leaf_spine_config)
{
	struct ctl_config cfg;
	struct net_topo *t;

	load_ok(&cfg, "configs/leaf-spine.yaml", NULL, 0);
	cr_expect_eq(cfg.topo_spec.type, NET_TOPO_LEAF_SPINE);
	cr_expect_eq(cfg.topo_spec.racks, 4);
	cr_expect_eq(cfg.topo_spec.spines, 4);
	cr_expect_eq(cfg.topo_spec.bps[0], 0); /* the host tier is the NIC's */
	cr_expect_eq(cfg.n_hosts, 16);
	cr_assert_eq(ctl_config_topo_build(&cfg, &t, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(t->size.links, 32);
	cr_expect_str_eq(t->links[3].name, "host3-leaf0");
	cr_expect_str_eq(t->links[17].name, "leaf0-spine1");
	net_topo_destroy(t);
	ctl_config_free(&cfg);
}

Test(ctl_config, fat_tree_128_config_at_100_gbps)
{
	struct ctl_config cfg;
	struct net_topo *t;

	load_ok(&cfg, "configs/fat-tree-128.yaml", NULL, 0);
	cr_expect_eq(cfg.topo_spec.k, 8);
	cr_expect_eq(cfg.n_hosts, 128);
	cr_expect_str_eq(cfg.hosts[127].name, "host127");
	cr_expect_eq(cfg.hosts[127].ip, 0x0a000080u);
	for (int tier = 1; tier < 4; tier++)
		cr_expect_eq(cfg.topo_spec.bps[tier], 100 * GBPS, "tier %d", tier);
	cr_assert_eq(ctl_config_topo_build(&cfg, &t, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(t->size.links, 384);
	for (uint32_t l = 0; l < t->size.links; l++)
		cr_expect_eq(t->links[l].bps, 100 * GBPS, "%s", t->links[l].name);
	cr_expect_eq(t->links[0].delay, 100000);   /* the NIC's Delay */
	cr_expect_eq(t->links[200].delay, 500000); /* a tor's */
	net_topo_destroy(t);
	ctl_config_free(&cfg);
}

Test(ctl_config, host_tier_is_the_nic)
{
	const char *sets[] = { "nic.NetworkInterface.UplinkNetworkInterface.DataRate=100Gbps",
			       "nic.NetworkInterface.TransmissionMedium.Delay=50ns",
			       "topology.DataRate.spine=800Gbps", "topology.Delay.leaf=1us" };
	struct ctl_config cfg;
	struct net_topo *t;

	load_ok(&cfg, "configs/leaf-spine.yaml", sets, 4);
	cr_expect_eq(cfg.topo_spec.bps[2], 800 * GBPS);
	cr_assert_eq(ctl_config_topo_build(&cfg, &t, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(t->links[0].bps, 100 * GBPS);  /* min(NIC 100, leaf 400) */
	cr_expect_eq(t->links[0].delay, 50000);     /* the NIC's Delay */
	cr_expect_eq(t->links[16].bps, 400 * GBPS); /* min(leaf 400, spine 800) */
	cr_expect_eq(t->links[16].delay, 1000000);  /* the leaf's Delay */
	net_topo_destroy(t);
	ctl_config_free(&cfg);
}

Test(ctl_config, topology_params_and_defaults)
{
	struct ctl_config cfg;

	yaml_ok(&cfg, "topology:\n  type: leaf-spine\n  hosts_per_rack: 16\n  racks: 2\n  oversubscription: 4\n"
		      "  ip_base: 192.168.0.0\n  DataRate: 200Gbps\n  Delay: {spine: 1us}\n");
	cr_expect_eq(cfg.topo_spec.oversubscription, 4);
	cr_expect_eq(cfg.topo_spec.spines, 0); /* derived by the builder: 16 / 4 */
	cr_expect_eq(cfg.topo_spec.bps[1], 200 * GBPS);
	cr_expect_eq(cfg.topo_spec.bps[2], 200 * GBPS);
	cr_expect_eq(cfg.topo_spec.delay[1], 500000); /* the Scala switch default */
	cr_expect_eq(cfg.topo_spec.delay[2], 1000000);
	cr_expect_eq(cfg.n_hosts, 32);
	cr_expect_eq(cfg.hosts[0].ip, 0xc0a80001u);
	ctl_config_free(&cfg);
	yaml_ok(&cfg, "topology:\n  type: pair\n");
	cr_expect_eq(cfg.topo_spec.type, NET_TOPO_PAIR);
	cr_expect_eq(cfg.n_hosts, 2);
	cr_expect_str_eq(cfg.hosts[1].name, "host1");
	ctl_config_free(&cfg);
	yaml_ok(&cfg, "topology:\n  type: explicit\n  hosts: [{name: a, ip: 10.0.0.1}]\n");
	cr_expect_eq(cfg.topo_type, CTL_TOPO_EXPLICIT);
	cr_expect_str_eq(cfg.hosts[0].name, "a");
	ctl_config_free(&cfg);
}

Test(ctl_config, messages_between_generated_hosts)
{
	struct ctl_config cfg;

	yaml_ok(&cfg, "topology: {type: rack, hosts_per_rack: 4}\napplications:\n  - list:\n"
		      "      - {src: host3, dst: host0, bytes: 4096}\n");
	cr_expect_eq(cfg.apps[0].list[0].src, 3);
	cr_expect_eq(cfg.apps[0].list[0].dst, 0);
	ctl_config_free(&cfg);
}

Test(ctl_config, faults_on_generated_links)
{
	struct ctl_config cfg;

	yaml_ok(&cfg, LEAF_SPINE "  faults:\n"
			"    - {link: host3-leaf0, down: 10us, up: 20us}\n"
			"    - {link: host3-leaf0, down: 20us}\n"
			"    - {link: leaf0-spine1, loss: 0.01}\n"
			"    - {link: leaf0-spine1, down: 0}\n");
	cr_assert_eq(cfg.n_faults, 4);
	cr_expect_eq(cfg.faults[0].link, 3);
	cr_expect_eq(cfg.faults[0].kind, CTL_FAULT_DOWN);
	cr_expect_eq(cfg.faults[0].down, 10000000);
	cr_expect_eq(cfg.faults[0].up, 20000000);
	cr_expect_eq(cfg.faults[1].up, EMU_PS_NEVER); /* stays down */
	cr_expect_eq(cfg.faults[2].link, 17);
	cr_expect_eq(cfg.faults[2].kind, CTL_FAULT_LOSS);
	cr_expect_eq(cfg.faults[2].loss_ppm, 10000);
	cr_expect_eq(cfg.faults[3].down, 0);
	ctl_config_free(&cfg);
}

Test(ctl_config, faults_on_explicit_links)
{
	struct ctl_config cfg;

	yaml_ok(&cfg, "topology:\n  hosts: [{name: a, ip: 10.0.0.1}, {name: b, ip: 10.0.0.2}]\n"
		      "  links: [{name: l0, a: a, b: b}]\n  faults: [{link: l0, loss: 1}]\n");
	cr_expect_eq(cfg.n_faults, 1);
	cr_expect_eq(cfg.faults[0].link, 0);
	cr_expect_eq(cfg.faults[0].loss_ppm, 1000000);
	ctl_config_free(&cfg);
}

Test(ctl_config, bad_topology_type_and_keys)
{
	yaml_fails("topology:\n  type: fattree\n",
		   "2:9: topology.type: unknown topology type 'fattree'; use explicit, pair, rack, leaf-spine, fat-tree or htsim");
	yaml_fails("topology:\n  type: rack\n  hosts_per_rack: 8\n  racks: 2\n",
		   "4:3: topology.racks: racks does not apply to a rack topology; a rack takes hosts, hosts_per_rack, "
		   "ip_base, DataRate, Delay, faults");
	yaml_fails("topology:\n  hosts: [{name: host0, ip: 10.0.0.1}]\n  k: 8\n",
		   "3:3: topology.k: k needs a topology type; add type: fat-tree");
	/* a generated fabric's hosts only change its own hosts (external, mac): they take no ip */
	yaml_fails("topology:\n  type: fat-tree\n  k: 8\n  hosts: [{name: host0, ip: 10.0.0.1}]\n",
		   "4:25: topology.hosts.0.ip: unknown key; valid keys are name, external, mac");
	yaml_fails("topology:\n  type: fat-tree\n  k: 8\n  links: []\n",
		   "4:3: topology.links: links does not apply to a fat-tree topology; a fat-tree takes hosts, k, ip_base, "
		   "DataRate, Delay, faults");
	yaml_fails("topology:\n  type: pair\n  DataRate: 100Gbps\n",
		   "3:3: topology.DataRate: DataRate does not apply to a pair topology; a pair takes hosts, ip_base, "
		   "faults");
	yaml_fails("topology:\n  type: leaf-spine\n  hosts_per_rack: 4\n",
		   "2:3: topology.racks: missing required key; a leaf-spine needs hosts_per_rack and racks, e.g. "
		   "{type: leaf-spine, hosts_per_rack: 4, racks: 4, spines: 4}");
	yaml_fails("topology:\n  type: explicit\n",
		   "2:3: topology.hosts: missing required key; e.g. hosts: [{name: host0, ip: 10.0.0.1}]");
	yaml_fails("topology:\n  typ: rack\n", "2:3: topology.typ: unknown key; did you mean 'type'?");
}

Test(ctl_config, bad_topology_values)
{
	yaml_fails("topology:\n  type: fat-tree\n  k: 7\n",
		   "3:6: topology.k: k 7 is not an even number of 2 or more; a fat tree's k is its switches' port count, "
		   "e.g. 8");
	yaml_fails("topology:\n  type: fat-tree\n  k: 66\n",
		   "3:6: topology.k: k 66 gives more than 65536 hosts (k^3 / 4); k is at most 64");
	yaml_fails("topology:\n  type: rack\n  hosts_per_rack: 0\n",
		   "3:19: topology.hosts_per_rack: hosts_per_rack is 0; a rack has at least 1 host, e.g. 8");
	yaml_fails("topology:\n  type: rack\n  hosts_per_rack: -1\n",
		   "3:19: topology.hosts_per_rack: negative value '-1'; a uint is a whole number of 0 or more, e.g. 42");
	yaml_fails("topology:\n  type: leaf-spine\n  hosts_per_rack: 16\n  racks: 2\n  spines: 2\n"
		   "  oversubscription: 4\n",
		   "6:21: topology.oversubscription: spines 2 and oversubscription 4 disagree: hosts_per_rack / "
		   "oversubscription = 4 spines; give one of them");
	yaml_fails("topology:\n  type: leaf-spine\n  hosts_per_rack: 40000\n  racks: 1\n",
		   "2:3: topology: a leaf with 40000 hosts and 40000 spines (hosts_per_rack / oversubscription) has "
		   "80000 ports; a switch has at most 65535");
	yaml_fails("topology:\n  type: rack\n  hosts_per_rack: 8\n  ip_base: 255.255.255.250\n",
		   "4:12: topology.ip_base: ip_base 255.255.255.250 leaves room for 5 hosts, not 8; lower ip_base, e.g. "
		   "10.0.0.0");
	yaml_fails("topology:\n  type: rack\n  hosts_per_rack: 8\n  ip_base: 10.0.0\n",
		   "4:12: topology.ip_base: bad IPv4 address '10.0.0'; write four numbers 0 to 255 with dots, e.g. "
		   "10.0.0.1");
	yaml_fails(LEAF_SPINE "  DataRate: {host: 100Gbps}\n",
		   "6:14: topology.DataRate.host: the hosts' DataRate is the NIC's; set "
		   "nic.NetworkInterface.UplinkNetworkInterface.DataRate");
	yaml_fails(LEAF_SPINE "  Delay: {host: 1us}\n",
		   "6:11: topology.Delay.host: the hosts' Delay is the NIC's; set nic.NetworkInterface.TransmissionMedium."
		   "Delay");
	yaml_fails(LEAF_SPINE "  DataRate: {spin: 100Gbps}\n",
		   "6:14: topology.DataRate.spin: unknown key; did you mean 'spine'?");
	yaml_fails(LEAF_SPINE "  DataRate: {leaf: 0Gbps}\n",
		   "6:20: topology.DataRate.leaf: zero datarate '0Gbps'; it must be above 0, e.g. 400Gbps");
	yaml_fails(LEAF_SPINE "  Delay: 5\n",
		   "6:10: topology.Delay: missing unit in '5'; a time takes ps, ns, us, ms or s, e.g. 100ns");
}

Test(ctl_config, bad_fault_links)
{
	yaml_fails(LEAF_SPINE "  faults:\n    - {link: leaf0-host3, down: 1us}\n",
		   "7:14: topology.faults.0.link: unknown link 'leaf0-host3'; did you mean 'host3-leaf0'? a link is named "
		   "lower tier first");
	yaml_fails(LEAF_SPINE "  faults:\n    - {link: hots3-leaf0, down: 1us}\n",
		   "7:14: topology.faults.0.link: unknown link 'hots3-leaf0': no device 'hots3'; devices are "
		   "host0..host15, leaf0..leaf3, spine0..spine3");
	yaml_fails(LEAF_SPINE "  faults:\n    - {link: leaf0-spine4, down: 1us}\n",
		   "7:14: topology.faults.0.link: unknown link 'leaf0-spine4': no device 'spine4'; devices are "
		   "host0..host15, leaf0..leaf3, spine0..spine3");
	yaml_fails(LEAF_SPINE "  faults:\n    - {link: leaf0-leaf1, down: 1us}\n",
		   "7:14: topology.faults.0.link: unknown link 'leaf0-leaf1': leaf0 and leaf1 are not linked; leaf0's "
		   "links are host0-leaf0, host1-leaf0, host2-leaf0, host3-leaf0, ... (8 links)");
	yaml_fails(LEAF_SPINE "  faults:\n    - {link: host4-leaf0, down: 1us}\n",
		   "7:14: topology.faults.0.link: unknown link 'host4-leaf0': host4 and leaf0 are not linked; host4's "
		   "links are host4-leaf1");
	yaml_fails(LEAF_SPINE "  faults:\n    - {link: leaf0, down: 1us}\n",
		   "7:14: topology.faults.0.link: unknown link 'leaf0'; a link is named after its two ends, lower tier "
		   "first, e.g. host0-leaf0");
	yaml_fails("topology: {type: rack, hosts_per_rack: 2}\n  faults:\n",
		   "2:3: did not find expected key (while parsing a block mapping at line 1); check the YAML syntax");
	yaml_fails("topology:\n  hosts: [{name: a, ip: 10.0.0.1}, {name: b, ip: 10.0.0.2}]\n"
		   "  links: [{name: l0, a: a, b: b}]\n  faults:\n    - {link: l9, down: 1us}\n",
		   "5:14: topology.faults.0.link: unknown link 'l9'; links are l0");
	yaml_fails("topology:\n  hosts: [{name: a, ip: 10.0.0.1}]\n  faults: [{link: l0, loss: 0.5}]\n",
		   "3:11: topology.faults: the topology has no links to fault");
}

Test(ctl_config, bad_fault_entries)
{
	yaml_fails(LEAF_SPINE "  faults:\n    - {link: leaf0-spine0, down: 1us, loss: 0.1}\n",
		   "7:45: topology.faults.0.loss: a fault is down/up or loss, not both; give them as two faults");
	yaml_fails(LEAF_SPINE "  faults:\n    - {link: leaf0-spine0, up: 1us}\n",
		   "7:32: topology.faults.0.up: up needs down; e.g. {link: host0-tor0, down: 10us, up: 20us} or "
		   "{link: host0-tor0, loss: 0.01}");
	yaml_fails(LEAF_SPINE "  faults:\n    - {link: leaf0-spine0}\n",
		   "7:7: topology.faults.0: a fault needs down or loss; e.g. {link: host0-tor0, down: 10us, up: 20us} or "
		   "{link: host0-tor0, loss: 0.01}");
	yaml_fails(LEAF_SPINE "  faults:\n    - {down: 1us}\n",
		   "7:7: topology.faults.0.link: missing required key; a fault needs link and down or loss, e.g. "
		   "{link: host0-tor0, down: 10us, up: 20us} or {link: host0-tor0, loss: 0.01}");
	yaml_fails(LEAF_SPINE "  faults:\n    - {link: leaf0-spine0, down: 5us, up: 5us}\n",
		   "7:43: topology.faults.0.up: up 5us is not after down 5us; a link comes up after it goes down");
	yaml_fails(LEAF_SPINE "  faults:\n    - {link: leaf0-spine0, down: 5us, up: 10us}\n"
		   "    - {link: leaf0-spine0, down: 8us}\n",
		   "8:34: topology.faults.1.down: the link is already down then, topology.faults.0; a link's down windows "
		   "do not overlap");
	yaml_fails(LEAF_SPINE "  faults:\n    - {link: leaf0-spine0, down: 5us, up: 10us}\n"
		   "    - {link: leaf0-spine0, down: 1us, up: 6us}\n",
		   "8:34: topology.faults.1.down: the link is already down then, topology.faults.0; a link's down windows "
		   "do not overlap");
	yaml_fails(LEAF_SPINE "  faults:\n    - {link: leaf0-spine0, loss: 0.1}\n    - {link: leaf0-spine0, loss: 0.2}\n",
		   "8:34: topology.faults.1.loss: the link already has a loss rate, topology.faults.0; give one loss per "
		   "link");
	yaml_fails(LEAF_SPINE "  faults:\n    - {link: leaf0-spine0, loss: 0}\n",
		   "7:34: topology.faults.0.loss: loss 0 loses nothing; a loss rate is above 0 and at most 1, e.g. 0.01");
	yaml_fails(LEAF_SPINE "  faults:\n    - {link: leaf0-spine0, loss: 1.5}\n",
		   "7:34: topology.faults.0.loss: fraction '1.5' out of range 0 to 1; a fraction is 0.0 to 1.0, e.g. 0.9");
	yaml_fails(LEAF_SPINE "  faults:\n    - {link: leaf0-spine0, down: 1us, when: 2us}\n",
		   "7:39: topology.faults.0.when: unknown key; valid keys are link, down, up, loss");
}

Test(ctl_config, set_topology_keys)
{
	const char *sets[] = { "topology.k=4" };
	struct ctl_config cfg;

	load_ok(&cfg, DIR "good-fat-tree.yaml", sets, 1);
	cr_expect_eq(cfg.n_hosts, 16);
	ctl_config_free(&cfg);
	{
		const char *bad[] = { "topology.k=3" };

		load_fails(DIR "good-fat-tree.yaml", bad, 1, -EINVAL,
			   "--set topology.k=3: k 3 is not an even number of 2 or more; a fat tree's k is its switches' "
			   "port count, e.g. 8");
	}
	{
		const char *bad[] = { "topology.type=fat-tree" };

		load_fails(DIR "good-min.yaml", bad, 1, -EINVAL,
			   DIR "good-min.yaml:6:3: topology.links: links does not apply to a fat-tree topology; a "
			   "fat-tree takes hosts, k, ip_base, DataRate, Delay, faults");
	}
}

Test(ctl_config, topo_build_refuses_explicit)
{
	struct ctl_config cfg;
	struct net_topo *t = (struct net_topo *)&cfg;

	load_ok(&cfg, DIR "good-min.yaml", NULL, 0);
	cr_expect_eq(ctl_config_topo_build(&cfg, &t, err, sizeof(err)), -EINVAL);
	cr_expect_null(t);
	cr_expect_str_eq(err, DIR "good-min.yaml: the topology is explicit; only a generated one is built");
	ctl_config_free(&cfg);
}

/* ctl_val_link(): link names as the captures section would resolve them, for either kind of topology. */
static int val_link(const struct ctl_config *cfg, const char *name, uint32_t *idx)
{
	char text[64];
	struct ctl_ynode v = { .type = CTL_Y_SCALAR, .line = 9, .col = 11, .set = -1, .text = text };
	struct ctl_ctx c = { .file = "x.yaml", .err = err, .errlen = sizeof(err) };

	snprintf(text, sizeof(text), "%s", name);
	ctl_push(&c, "captures");
	ctl_push_idx(&c, 0);
	ctl_push(&c, "link");
	err[0] = '\0';
	return ctl_val_link(&c, &v, cfg, idx);
}

Test(ctl_config, val_link_on_both_kinds)
{
	struct ctl_config cfg;
	uint32_t idx = 99;

	load_ok(&cfg, "configs/leaf-spine.yaml", NULL, 0);
	cr_expect_eq(val_link(&cfg, "leaf0-spine1", &idx), 0);
	cr_expect_eq(idx, 17);
	cr_expect_eq(val_link(&cfg, "host15-leaf3", &idx), 0);
	cr_expect_eq(idx, 15);
	cr_expect_eq(val_link(&cfg, "spine1-leaf0", &idx), -EINVAL);
	cr_expect_str_eq(err, "x.yaml:9:11: captures.0.link: unknown link 'spine1-leaf0'; did you mean 'leaf0-spine1'? "
		"a link is named lower tier first");
	ctl_config_free(&cfg);
	load_ok(&cfg, DIR "good-full.yaml", NULL, 0);
	cr_expect_eq(val_link(&cfg, "l1", &idx), 0);
	cr_expect_eq(idx, 1);
	cr_expect_eq(val_link(&cfg, "l2", &idx), -EINVAL);
	cr_expect_str_eq(err, "x.yaml:9:11: captures.0.link: unknown link 'l2'; links are l0, l1");
	ctl_config_free(&cfg);
}

/* Bad input never crashes the loader: 400 randomly damaged copies of a full config (bytes flipped, deleted,
 * duplicated, truncated) either load or fail with a message; ASan runs this in the sanitizer build. */
Test(ctl_config, damaged_files_fail_cleanly)
{
	FILE *f = fopen(DIR "good-full.yaml", "rb");
	static char src[65536], buf[65536 + 64];
	uint64_t x = 18760;

	cr_assert_not_null(f);
	size_t n = fread(src, 1, sizeof(src) - 1, f);
	fclose(f);
	for (int round = 0; round < 400; round++) {
		size_t len = n;
		memcpy(buf, src, n);
		for (int k = 0; k < 1 + round % 8; k++) {
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			size_t at = (size_t)(x >> 33) % len;
			switch ((x >> 20) % 4) {
			case 0: buf[at] = (char)(x >> 40); break;                      /* flip */
			case 1: memmove(buf + at, buf + at + 1, len - at - 1); len--; break; /* delete */
			case 2: if (len < sizeof(buf) - 1) { memmove(buf + at + 1, buf + at, len - at); len++; } break;
			default: len = at + 1; break;                                   /* truncate */
			}
		}
		char path[64];
		snprintf(path, sizeof(path), "/tmp/uetemu-damaged-%d.yaml", (int)getpid());
		FILE *o = fopen(path, "wb");
		cr_assert_not_null(o);
		fwrite(buf, 1, len, o);
		fclose(o);
		struct ctl_config cfg;
		char why[1024] = "";
		int rc = ctl_config_load(&cfg, path, NULL, 0, why, sizeof(why));
		if (rc == 0)
			ctl_config_free(&cfg);
		else
			cr_assert(why[0] != '\0', "round %d: an error without a message", round);
		unlink(path);
	}
}

/* ---- The ScalaRdma application and the run timeline (spec seeds/003) ---- */

#define RACK4 "topology:\n  type: rack\n  hosts_per_rack: 4\n"

Test(ctl_config, rdma_timeline_defaults)
{
	struct ctl_config cfg;

	load_ok(&cfg, DIR "good-min.yaml", NULL, 0);
	/* Run timeline: 0.001, 0.001, 0.001, 0.002, 0.5, 0.001 s. */
	cr_expect_eq(cfg.timeline.start_time, 1000000000ULL);
	cr_expect_eq(cfg.timeline.client_start_offset, 1000000000ULL);
	cr_expect_eq(cfg.timeline.client_start_interval, 1000000000ULL);
	cr_expect_eq(cfg.timeline.warm_up, 2000000000ULL);
	cr_expect_eq(cfg.timeline.run_time, 500000000000ULL);
	cr_expect_eq(cfg.timeline.cool_down, 1000000000ULL);
	cr_expect_eq(cfg.rdma_app, -1);
	ctl_config_free(&cfg);
}

/* simulation.RecordStartTime: unset by default (the records then start at 0, or at StartTime + ClientStartOffset
 * with a ScalaRdma application); a value, 0 included, sets it; past 2^63 ps refused. */
Test(ctl_config, record_start_time)
{
	struct ctl_config cfg;

	yaml_ok(&cfg, RACK4);
	cr_expect(!cfg.record_start_set);
	ctl_config_free(&cfg);
	yaml_ok(&cfg, "simulation:\n  RecordStartTime: 0\n" RACK4);
	cr_expect(cfg.record_start_set && cfg.record_start == 0);
	ctl_config_free(&cfg);
	yaml_ok(&cfg, "simulation:\n  RecordStartTime: 0.002\n" RACK4);
	cr_expect(cfg.record_start_set && cfg.record_start == 2000000000ULL);
	ctl_config_free(&cfg);
	yaml_fails("simulation:\n  RecordStartTime: 10000000s\n" RACK4,
		   "2:20: simulation.RecordStartTime: RecordStartTime passes 2^63 ps (106 days); give a time within the "
		   "run, e.g. 0");
}

Test(ctl_config, rdma_timeline_values)
{
	struct ctl_config cfg;

	yaml_ok(&cfg, "simulation:\n  StartTime: 0.002\n  ClientStartOffset: 10us\n  ClientStartInterval: 0\n"
		      "  WarmUp: 1ms\n  RunTime: 200us\n  CoolDown: 0.000001\n" RACK4);
	cr_expect_eq(cfg.timeline.start_time, 2000000000ULL);
	cr_expect_eq(cfg.timeline.client_start_offset, 10000000ULL);
	cr_expect_eq(cfg.timeline.client_start_interval, 0);
	cr_expect_eq(cfg.timeline.warm_up, 1000000000ULL);
	cr_expect_eq(cfg.timeline.run_time, 200000000ULL);
	cr_expect_eq(cfg.timeline.cool_down, 1000000ULL);
	ctl_config_free(&cfg);
}

Test(ctl_config, rdma_app_defaults)
{
	struct ctl_config cfg;

	yaml_ok(&cfg, RACK4 "applications:\n  - {type: ScalaRdma}\n");
	cr_assert_eq(cfg.n_apps, 1);
	cr_expect_eq(cfg.rdma_app, 0);
	cr_expect_eq(cfg.apps[0].type, CTL_APP_SCALA_RDMA);
	cr_expect_eq(cfg.apps[0].pr_initiator, 500000000u); /* alone: 0.5 and 0.5 */
	cr_expect_eq(cfg.apps[0].pr_responder, 500000000u);
	cr_expect_eq(cfg.apps[0].num_connections, 1);
	cr_expect_eq(cfg.apps[0].max_pending, 10);
	cr_expect_eq(cfg.apps[0].start_type, APP_START_SIMULTANEOUS);
	cr_expect_eq(cfg.apps[0].n_list, 0);
	ctl_config_free(&cfg);
}

Test(ctl_config, rdma_app_values)
{
	struct ctl_config cfg;

	yaml_ok(&cfg, RACK4 "applications:\n  - {type: messages, list: [{src: host0, dst: host1, bytes: 1}]}\n"
		      "  - {type: ScalaRdma, prScalaRdmaInitiator: 0.25, prScalaRdmaResponder: 0.75, NumConnections: "
		      "1024, MaxPendingWQEs: 0, StartType: sequential}\n");
	cr_assert_eq(cfg.n_apps, 2);
	cr_expect_eq(cfg.rdma_app, 1);
	cr_expect_eq(cfg.apps[0].type, CTL_APP_MESSAGES);
	cr_expect_eq(cfg.apps[1].pr_initiator, 250000000u);
	cr_expect_eq(cfg.apps[1].pr_responder, 750000000u);
	cr_expect_eq(cfg.apps[1].num_connections, 1024);
	cr_expect_eq(cfg.apps[1].max_pending, 0);
	cr_expect_eq(cfg.apps[1].start_type, APP_START_SEQUENTIAL);
	ctl_config_free(&cfg);
	yaml_ok(&cfg, RACK4 "applications:\n  - {type: ScalaRdma, StartType: uniform}\n");
	cr_expect_eq(cfg.apps[0].start_type, APP_START_UNIFORM);
	cr_expect_eq(cfg.apps[0].data_tc, 0); /* the page's defaults */
	cr_expect_eq(cfg.apps[0].control_tc, 1);
	ctl_config_free(&cfg);
	yaml_ok(&cfg, RACK4 "applications:\n  - {type: ScalaRdma, OpCode: RDMA_OPCODE_WRITE_FIRST, RdmaVerb: "
		      "RDMA_VERB_POST_WRITE, RdmaDataPacketTC: 7, RdmaControlPacketTC: 0}\n");
	cr_expect_eq(cfg.apps[0].data_tc, 7);
	cr_expect_eq(cfg.apps[0].control_tc, 0);
	ctl_config_free(&cfg);
}

Test(ctl_config, rdma_doorbell_payload_size)
{
	/* seed 003, WQEs: the doorbell carries DoorbellPayloadSize bytes (default 64B) plus 28 B of UDP and IPv4 */
	struct ctl_config cfg;

	yaml_ok(&cfg, RACK4 "applications:\n  - {type: ScalaRdma}\n");
	cr_expect_eq(cfg.apps[0].doorbell_payload, 64);
	ctl_config_free(&cfg);
	yaml_ok(&cfg, RACK4 "applications:\n  - {type: ScalaRdma, DoorbellPayloadSize: 4KiB}\n");
	cr_expect_eq(cfg.apps[0].doorbell_payload, 4096);
	ctl_config_free(&cfg);
	yaml_fails(RACK4 "applications:\n  - {type: ScalaRdma, DoorbellPayloadSize: -1}\n",
		   "5:44: applications.0.DoorbellPayloadSize: negative size '-1'; a size is a whole number of bytes, "
		   "e.g. 4096 or 1MiB");
}

Test(ctl_config, rdma_app_errors)
{
	yaml_fails(RACK4 "applications:\n  - {type: ScalaRdma, prScalaRdmaInitiator: 0.9}\n",
		   "5:5: applications.0: distribution ratios add up to 1.400000000, not 1 (prScalaRdmaInitiator and the "
		   "1 others); e.g. prScalaRdmaInitiator: 0.5, prScalaRdmaResponder: 0.5 on 2 or more hosts");
	yaml_fails(RACK4 "applications:\n  - {type: ScalaRdma, prScalaRdmaInitiator: 0}\n",
		   "5:45: applications.0.prScalaRdmaInitiator: bad ratio '0'; a distribution ratio is above 0 and at "
		   "most 1, e.g. 0.5");
	yaml_fails(RACK4 "applications:\n  - {type: ScalaRdma, prScalaRdmaInitiator: 0x1p-1}\n",
		   "5:45: applications.0.prScalaRdmaInitiator: bad ratio '0x1p-1'; a distribution ratio is above 0 and "
		   "at most 1, e.g. 0.5");
	yaml_fails(RACK4 "applications:\n  - {type: ScalaRdma, prScalaRdmaResponder: 1.5}\n",
		   "5:45: applications.0.prScalaRdmaResponder: bad ratio '1.5'; a distribution ratio is above 0 and at "
		   "most 1, e.g. 0.5");
	yaml_fails(RACK4 "applications:\n  - {type: ScalaRdma, NumConnections: 0}\n",
		   "5:39: applications.0.NumConnections: value 0 out of range 1 to 1024");
	yaml_fails(RACK4 "applications:\n  - {type: ScalaRdma, NumConnections: 1025}\n",
		   "5:39: applications.0.NumConnections: value 1025 out of range 1 to 1024");
	yaml_fails(RACK4 "applications:\n  - {type: ScalaRdma, MaxPendingWQEs: -1}\n",
		   "5:39: applications.0.MaxPendingWQEs: negative value '-1'; a uint is a whole number of 0 or more, "
		   "e.g. 42");
	yaml_fails(RACK4 "applications:\n  - {type: ScalaRdma, StartType: random}\n",
		   "5:34: applications.0.StartType: StartType: \"random\" is not simultaneous, uniform or sequential");
	yaml_fails(RACK4 "applications:\n  - {type: ScalaRdma, list: []}\n",
		   "5:29: applications.0.list: list does not apply to a ScalaRdma application; it takes "
		   "prScalaRdmaInitiator, prScalaRdmaResponder, NumConnections, MaxPendingWQEs, StartType, OpCode, "
		   "RdmaVerb, RdmaDataPacketTC, RdmaControlPacketTC, DoorbellPayloadSize");
	yaml_fails(RACK4 "applications:\n  - {type: ScalaRdma, OpCode: RDMA_OPCODE_READ}\n",
		   "5:31: applications.0.OpCode: OpCode 'RDMA_OPCODE_READ' is not supported; its one allowed value is "
		   "RDMA_OPCODE_WRITE_FIRST (every WQE is an RDMA WRITE)");
	yaml_fails(RACK4 "applications:\n  - {type: ScalaRdma, RdmaVerb: RDMA_VERB_POST_READ}\n",
		   "5:33: applications.0.RdmaVerb: RdmaVerb 'RDMA_VERB_POST_READ' is not supported; its one allowed value "
		   "is RDMA_VERB_POST_WRITE (every WQE is an RDMA WRITE)");
	yaml_fails(RACK4 "applications:\n  - {type: ScalaRdma, RdmaDataPacketTC: 8}\n",
		   "5:41: applications.0.RdmaDataPacketTC: value 8 out of range 0 to 7");
	yaml_fails(RACK4 "applications:\n  - {type: messages, NumConnections: 2}\n",
		   "5:38: applications.0.NumConnections: NumConnections applies to a ScalaRdma application; add type: "
		   "ScalaRdma");
	yaml_fails(RACK4 "applications:\n  - {type: rdma}\n",
		   "5:12: applications.0.type: unknown application type 'rdma'; use messages, ScalaRdma, Chakra, pingpong, responder, flows, stream or connection_matrix");
	yaml_fails(RACK4 "applications:\n  - {type: ScalaRdma}\n  - {type: ScalaRdma}\n",
		   "6:5: applications.1: a second ScalaRdma application; the first is applications.0, and a config has "
		   "at most one");
	yaml_fails("topology:\n  hosts: [{name: h0, ip: 10.0.0.1}]\napplications:\n  - {type: ScalaRdma}\n",
		   "4:5: applications.0: 1 hosts are too few: the 2 components need 2; e.g. prScalaRdmaInitiator: 0.5, "
		   "prScalaRdmaResponder: 0.5 on 2 or more hosts");
}

Test(ctl_config, rdma_timeline_errors)
{
	yaml_fails("simulation:\n  RunTime: 1x\n" RACK4,
		   "2:12: simulation.RunTime: bad unit 'x'; a time is a number of seconds or takes ps, ns, us, ms or s, "
		   "e.g. 0.001 or 1ms");
	yaml_fails("simulation:\n  RunTime: 10000000\n  WarmUp: 10000000\n" RACK4,
		   "2:3: simulation: SimulationParameters: StartTime + ClientStartOffset + ClientStartInterval + WarmUp + "
		   "RunTime + CoolDown passes the emulated time range (2^63 ps, 106 days); shorten StartTime, "
		   "ClientStartOffset, ClientStartInterval, WarmUp, RunTime or CoolDown");
}

Test(ctl_config, rdma_set_overrides)
{
	struct ctl_config cfg;
	const char *sets[] = { "applications.0.MaxPendingWQEs=1", "applications.0.NumConnections=4",
			       "simulation.RunTime=0.0001" };

	load_ok(&cfg, "configs/rdma-rack.yaml", sets, 3);
	cr_expect_eq(cfg.rdma_app, 0);
	cr_expect_eq(cfg.apps[0].max_pending, 1);
	cr_expect_eq(cfg.apps[0].num_connections, 4);
	cr_expect_eq(cfg.timeline.run_time, 100000000ULL);
	ctl_config_free(&cfg);
}

/* ---- Real ports: attach lists, gateways, prefixes, static MACs (docs/realtime.md) ---- */

#define THREE_HOSTS                                                                                                \
	"topology:\n  hosts:\n    - {name: host0, ip: 10.1.0.1/24, gateway: 10.1.0.254}\n"                          \
	"    - {name: host1, ip: 10.1.0.2, mac: \"02:aa:00:00:00:02\"}\n    - {name: host2, ip: 10.2.0.1}\n"

Test(ctl_config, ports_attach_list_gateway_prefix)
{
	struct ctl_config cfg;

	yaml_ok(&cfg, THREE_HOSTS "ports:\n  - {attach: [host0, host1], dev: net_null0, gateway: 10.1.0.253}\n"
			"  - {attach: host2, dev: net_null1}\n");
	cr_assert_eq(cfg.n_ports, 2);
	cr_assert_eq(cfg.ports[0].n_hosts, 2);
	cr_expect_eq(cfg.ports[0].hosts[0], 0);
	cr_expect_eq(cfg.ports[0].hosts[1], 1);
	cr_expect_eq(cfg.ports[0].gateway, 0x0a0100fdu);
	cr_assert_eq(cfg.ports[1].n_hosts, 1);
	cr_expect_eq(cfg.ports[1].hosts[0], 2);
	cr_expect_eq(cfg.ports[1].gateway, 0);
	cr_expect_eq(cfg.hosts[0].ip, 0x0a010001u);
	cr_expect(cfg.hosts[0].has_prefix);
	cr_expect_eq(cfg.hosts[0].prefix_len, 24);
	cr_expect_eq(cfg.hosts[0].gateway, 0x0a0100feu);
	cr_expect(!cfg.hosts[0].mac_static);
	cr_expect(cfg.hosts[1].mac_static);
	cr_expect(!cfg.hosts[1].has_prefix);
	cr_expect_eq(cfg.hosts[1].gateway, 0);
	ctl_config_free(&cfg);
}

Test(ctl_config, ports_errors)
{
	yaml_fails(THREE_HOSTS "ports:\n  - {attach: [host0, host0], dev: net_null0}\n",
		   "7:22: ports.0.attach.1: host 'host0' is already attached by ports.0; a host's NIC has one port");
	yaml_fails(THREE_HOSTS "ports:\n  - {attach: [host0], dev: net_null0}\n  - {attach: [host1, host0], dev: "
			       "net_null1}\n",
		   "8:22: ports.1.attach.1: host 'host0' is already attached by ports.0; a host's NIC has one port");
	yaml_fails(THREE_HOSTS "ports:\n  - {attach: [], dev: net_null0}\n",
		   "7:14: ports.0.attach: empty list; attach names one host or a list of them, e.g. [host0, host1]");
	yaml_fails(THREE_HOSTS "ports:\n  - {attach: [host0, nope], dev: net_null0}\n",
		   "7:22: ports.0.attach.1: unknown host 'nope'; hosts are host0, host1, host2");
	yaml_fails(THREE_HOSTS "ports:\n  - {attach: host0, dev: net_null0, gateway: 10.1.0}\n",
		   "7:46: ports.0.gateway: bad IPv4 address '10.1.0'; write four numbers 0 to 255 with dots, e.g. "
		   "10.0.0.1");
	yaml_fails(THREE_HOSTS "ports:\n  - {attach: host0, dev: net_null0, gateway: 0.0.0.0}\n",
		   "7:46: ports.0.gateway: 0.0.0.0 is no gateway; give the router's address, e.g. 10.1.0.254");
	yaml_fails("topology:\n  hosts:\n    - {name: host0, ip: 10.1.0.1/33}\n",
		   "3:25: topology.hosts.0.ip: bad prefix length in '10.1.0.1/33'; write ip/len with len 0 to 32, e.g. "
		   "10.1.0.1/24");
	yaml_fails("topology:\n  hosts:\n    - {name: host0, ip: 10.1.0.1/}\n",
		   "3:25: topology.hosts.0.ip: bad prefix length in '10.1.0.1/'; write ip/len with len 0 to 32, e.g. "
		   "10.1.0.1/24");
	yaml_fails("topology:\n  hosts:\n    - {name: host0, ip: 10.1.0/24}\n",
		   "3:25: topology.hosts.0.ip: bad IPv4 address '10.1.0'; write four numbers 0 to 255 with dots, e.g. "
		   "10.0.0.1");
	yaml_fails("topology:\n  hosts:\n    - {name: host0, ip: 10.1.0.1, gateway: 10.1.0.1}\n",
		   "3:44: topology.hosts.0.gateway: the gateway is the host's own address; give the router's, e.g. "
		   "10.1.0.254");
}

/* The CRC trailer adds 4 bytes to a data frame: RdmaDataMSS 9,114 then no longer fits 9,216 B; native IPv4 takes
 * 4 bytes off again. */
Test(ctl_config, crc_trailer_and_native_frame_size_rule)
{
	const char *crc[] = { "nic.TransportProcessingLayers.SemanticLayer.RdmaDataMSS=9114",
			      "nic.UETEncapsulation.CrcTrailer=true" };
	const char *both[] = { "nic.TransportProcessingLayers.SemanticLayer.RdmaDataMSS=9114",
			       "nic.UETEncapsulation.CrcTrailer=true", "nic.UETEncapsulation.Encapsulation=NativeIPv4" };
	struct ctl_config cfg;

	load_fails(DIR "good-min.yaml", crc, 2, -EINVAL,
		   "--set nic.TransportProcessingLayers.SemanticLayer.RdmaDataMSS=9114: a data frame of RdmaDataMSS 9114 "
		   "+ 110 bytes of headers and trailer (FCS included) exceeds the largest frame, 9216 bytes + FCS; lower "
		   "RdmaDataMSS or turn CrcTrailer off");
	load_ok(&cfg, DIR "good-min.yaml", both, 3);
	cr_expect_eq(nic_params_encap(&cfg.nic), WIRE_ENCAP_NATIVE | WIRE_ENCAP_CRC);
	ctl_config_free(&cfg);
	set_fails("nic.UETEncapsulation.Encapsulation=IPv6",
		  "--set nic.UETEncapsulation.Encapsulation=IPv6: unknown value 'IPv6'; Encapsulation takes UDP or "
		  "NativeIPv4");
}

#define XDP_HOSTS "topology:\n  hosts:\n    - {name: h0, ip: 10.0.0.1}\n    - {name: h1, ip: 10.0.0.2}\n"

Test(ctl_config, ports_xdp_steering)
{
	struct ctl_config cfg;

	yaml_ok(&cfg, XDP_HOSTS "ports:\n  - {attach: h0, dev: \"net_af_xdp0,iface=x0\"}\n"
			"  - {attach: h1, dev: \"net_af_xdp1,iface=x1\", xdp_steering: false}\n");
	cr_expect_eq(cfg.ports[0].xdp_steering, -1, "unset: decided at run time (on for net_af_xdp)");
	cr_expect_eq(cfg.ports[1].xdp_steering, 0);
	ctl_config_free(&cfg);
	yaml_ok(&cfg, XDP_HOSTS "ports:\n  - {attach: h0, dev: \"net_af_xdp0,iface=x0\", xdp_steering: true}\n"
			"  - {attach: h1, dev: \"net_tap0,iface=t0\", xdp_steering: false}\n");
	cr_expect_eq(cfg.ports[0].xdp_steering, 1);
	cr_expect_eq(cfg.ports[1].xdp_steering, 0);
	ctl_config_free(&cfg);
	yaml_fails(XDP_HOSTS "ports:\n  - {attach: h0, dev: \"net_tap0,iface=t0\", xdp_steering: true}\n",
		   "6:5: ports.0: xdp_steering: true is for net_af_xdp devs only, not 'net_tap0,iface=t0'");
}

Test(ctl_config, ports_rx_csum_and_mtu)
{
	struct ctl_config cfg;

	yaml_ok(&cfg, XDP_HOSTS "ports:\n  - {attach: h0, dev: \"net_af_packet0,iface=v0\"}\n"
			"  - {attach: h1, dev: \"net_af_packet1,iface=v1\", rx_csum: verify, mtu: 1500}\n");
	cr_expect_eq(cfg.ports[0].rx_csum, WIRE_CSUM_OFFLOAD, "the default takes partial checksums");
	cr_expect_eq(cfg.ports[0].mtu, 0);
	cr_expect_eq(cfg.ports[1].rx_csum, WIRE_CSUM_VERIFY);
	cr_expect_eq(cfg.ports[1].mtu, 1500);
	ctl_config_free(&cfg);
	yaml_ok(&cfg, XDP_HOSTS "ports:\n  - {attach: h0, dev: \"net_af_packet0,iface=v0\", rx_csum: ignore}\n");
	cr_expect_eq(cfg.ports[0].rx_csum, WIRE_CSUM_IGNORE);
	ctl_config_free(&cfg);
	yaml_fails(XDP_HOSTS "ports:\n  - {attach: h0, dev: \"net_af_packet0,iface=v0\", rx_csum: partial}\n",
		   "6:59: ports.0.rx_csum: unknown rx_csum 'partial'; use offload (the default: a partial checksum of a "
		   "Linux sender's TX offload is taken), verify (every non-zero checksum complete and right) or ignore");
	yaml_fails(XDP_HOSTS "ports:\n  - {attach: h0, dev: \"net_af_packet0,iface=v0\", mtu: 67}\n",
		   "6:55: ports.0.mtu: value 67 out of range 68 to 9202");
}

Test(ctl_config, ports_vlan)
{
	struct ctl_config cfg;

	yaml_ok(&cfg, XDP_HOSTS "ports:\n  - {attach: h0, dev: \"net_af_packet0,iface=v0\", vlan: 10}\n"
			"  - {attach: h1, dev: \"net_af_xdp1,iface=x1\", vlan: 4094, xdp_steering: false}\n");
	cr_expect_eq(cfg.ports[0].vlan, 10);
	cr_expect_eq(cfg.ports[1].vlan, 4094);
	ctl_config_free(&cfg);
	yaml_ok(&cfg, XDP_HOSTS "ports:\n  - {attach: h0, dev: \"net_tap0,iface=t0\"}\n");
	cr_expect_eq(cfg.ports[0].vlan, 0, "no vlan: untagged");
	ctl_config_free(&cfg);
	yaml_fails(XDP_HOSTS "ports:\n  - {attach: h0, dev: \"net_tap0,iface=t0\", vlan: 0}\n",
		   "6:50: ports.0.vlan: value 0 out of range 1 to 4094");
	yaml_fails(XDP_HOSTS "ports:\n  - {attach: h0, dev: \"net_tap0,iface=t0\", vlan: 4095}\n",
		   "6:50: ports.0.vlan: value 4095 out of range 1 to 4094");
	yaml_fails(XDP_HOSTS "ports:\n  - {attach: h0, dev: \"net_af_xdp0,iface=x0\", vlan: 7}\n",
		   "6:5: ports.0: vlan: on 'net_af_xdp0,iface=x0' needs xdp_steering: false (the steering program does "
		   "not look inside 802.1Q tags: it would hand every tagged frame to the kernel)");
	yaml_fails("topology: {type: rack, hosts_per_rack: 4, hosts: [{name: host3, external: true}]}\n"
		   "ports:\n  - {attach: \"tor0:3\", dev: \"net_tap0,iface=t0\", vlan: 7}\n",
		   "3:5: ports.0: vlan: is for ports of emulated hosts; a switch port (attach: \"DEV:PORT\") sends and "
		   "takes untagged frames");
}

/* @p yaml fails to load with an error that holds @p want. */
static void yaml_fails_with(const char *yaml, const char *want)
{
	struct ctl_config cfg;
	const char *path = yaml_file(yaml);

	err[0] = '\0';
	cr_expect_neq(ctl_config_load(&cfg, path, NULL, 0, err, sizeof(err)), 0);
	cr_expect(strstr(err, want) != NULL, "want '%s' in: %s", want, err);
	unlink(path);
}

/* neighbours: static and neighbour_macs (docs/realtime.md, Static neighbours). */
Test(ctl_config, ports_neighbours)
{
	struct ctl_config cfg;

	yaml_ok(&cfg, XDP_HOSTS "ports:\n  - {attach: h0, dev: \"net_tap0,iface=t0\", neighbours: static, neighbour_macs: "
			"[{ip: 10.0.0.254, mac: \"02:42:0a:00:00:fe\"}, {ip: 10.0.0.2, mac: \"02:00:00:00:00:02\"}]}\n"
			"  - {attach: h1, dev: \"net_tap1,iface=t1\"}\n");
	cr_expect(cfg.ports[0].neigh_static);
	cr_assert_eq(cfg.ports[0].n_neigh_macs, 2);
	cr_expect_eq(cfg.ports[0].neigh_macs[0].ip, 0x0a0000feu);
	cr_expect_eq(cfg.ports[0].neigh_macs[0].mac[5], 0xfe);
	cr_expect_eq(cfg.ports[0].neigh_macs[1].ip, 0x0a000002u);
	cr_expect(!cfg.ports[1].neigh_static, "the default: arp");
	cr_expect_eq(cfg.ports[1].n_neigh_macs, 0);
	ctl_config_free(&cfg);
	yaml_fails_with(XDP_HOSTS "ports:\n  - {attach: h0, dev: \"net_tap0,iface=t0\", neighbours: pinned}\n",
		   "ports.0.neighbours: unknown neighbours 'pinned'; use arp (the default");
	yaml_fails_with(XDP_HOSTS "ports:\n  - {attach: h0, dev: \"net_tap0,iface=t0\", neighbour_macs: "
			     "[{ip: 10.0.0.9, mac: \"02:00:00:00:00:09\"}, {ip: 10.0.0.9, mac: \"02:00:00:00:00:08\"}]}\n",
		   "ports.0.neighbour_macs.1.ip: 10.0.0.9 is in neighbour_macs.0 already");
	yaml_fails_with(XDP_HOSTS "ports:\n  - {attach: h0, dev: \"net_tap0,iface=t0\", neighbour_macs: "
			     "[{ip: 10.0.0.9, mac: \"ff:ff:ff:ff:ff:ff\"}]}\n",
		   "is a multicast or broadcast MAC; a neighbour has a unicast one");
	yaml_fails_with(XDP_HOSTS "ports:\n  - {attach: h0, dev: \"net_tap0,iface=t0\", neighbour_macs: [{ip: 10.0.0.9}]}\n",
		   "ports.0.neighbour_macs.0");
	yaml_fails_with("topology: {type: rack, hosts_per_rack: 4, hosts: [{name: host3, external: true}]}\n"
		   "ports:\n  - {attach: \"tor0:3\", dev: \"net_tap0,iface=t0\", neighbours: static}\n",
		   "ports.0: neighbours: and neighbour_macs: are for ports of emulated hosts");
}

/* ---- partitions ---- */

/* No section: a fabric of several racks is split by rack (hosts and their leaf), the spines spread in turn. */
Test(ctl_config, partitions_default_by_rack)
{
	struct ctl_config cfg;

	load_ok(&cfg, "configs/leaf-spine.yaml", NULL, 0);
	cr_assert_eq(cfg.n_parts, 4);
	cr_expect_str_eq(cfg.parts[0].name, "rack0");
	cr_expect_str_eq(cfg.parts[3].name, "rack3");
	cr_assert_eq(cfg.n_devs, 16 + 4 + 4);
	for (uint32_t h = 0; h < 16; h++)
		cr_expect_eq(cfg.dev_part[h], h / 4, "host%u", h);
	for (uint32_t s = 0; s < 8; s++) /* leaf0..3, then spine0..3 */
		cr_expect_eq(cfg.dev_part[16 + s], s % 4, "switch %u", s);
	cr_expect(!cfg.parts_given);
	ctl_config_free(&cfg);
	load_ok(&cfg, DIR "good-min.yaml", NULL, 0);
	cr_assert_eq(cfg.n_parts, 1);
	cr_expect_str_eq(cfg.parts[0].name, "all");
	for (uint32_t d = 0; d < cfg.n_devs; d++)
		cr_expect_eq(cfg.dev_part[d], 0);
	ctl_config_free(&cfg);
}

Test(ctl_config, partitions_given_by_name)
{
	struct ctl_config cfg;

	load_ok(&cfg, "tests/lab/lcores.yaml", NULL, 0);
	cr_assert(cfg.parts_given);
	cr_assert_eq(cfg.n_parts, 2);
	cr_expect_str_eq(cfg.parts[0].name, "left");
	cr_expect_str_eq(cfg.parts[1].name, "right");
	cr_expect_eq(ctl_config_part_find(&cfg, "right"), 1);
	cr_expect_eq(ctl_config_part_find(&cfg, "middle"), -1);
	/* host0..3, leaf0, leaf1, spine0, spine1 */
	static const uint32_t want[] = { 0, 0, 1, 1, 0, 1, 0, 1 };
	cr_assert_eq(cfg.n_devs, 8);
	for (uint32_t d = 0; d < 8; d++)
		cr_expect_eq(cfg.dev_part[d], want[d], "device %u", d);
	ctl_config_free(&cfg);
}

/* A switch port may face a switch of another partition (a fabric split across processes), not of its own. */
Test(ctl_config, partitions_switch_port_faces_another_partition)
{
	struct ctl_config cfg;

	load_ok(&cfg, "tests/lab/split.yaml", NULL, 0);
	cr_assert_eq(cfg.n_ports, 4);
	cr_expect(cfg.ports[0].sw);
	cr_expect_eq(cfg.ports[0].sw_host, UINT32_MAX, "faces a switch, no host");
	cr_expect_eq(cfg.ports[0].sw_peer, 4 + 2 + 1, "leaf0:3 faces spine1 (hosts 0-3, leaf0, leaf1, spine0, spine1)");
	ctl_config_free(&cfg);
	const char *sets[] = { "partitions.1.devices.3=spine0", "partitions.0.devices.3=spine1" };

	err[0] = '\0';
	cr_expect_neq(ctl_config_load(&cfg, "tests/lab/split.yaml", sets, 2, err, sizeof(err)), 0);
	cr_expect(strstr(err, "ports.1.attach: spine0:1 faces leaf1, a switch of the same partition") != NULL, "%s", err);
}

/* peer_timeout: on a link to another process's switch only; default 5 s, 0 never. */
Test(ctl_config, partitions_peer_timeout)
{
	struct ctl_config cfg;
	const char *sets[] = { "ports.0.peer_timeout=2s", "ports.1.peer_timeout=0" };

	load_ok(&cfg, "tests/lab/split.yaml", sets, 2);
	cr_expect_eq(cfg.ports[0].peer_timeout, 2 * EMU_PS_PER_S);
	cr_expect_eq(cfg.ports[1].peer_timeout, 0);
	cr_expect_eq(cfg.ports[2].peer_timeout, CTL_PORT_PEER_TIMEOUT_PS);
	ctl_config_free(&cfg);
	yaml_fails_with(XDP_HOSTS "ports:\n  - {attach: h0, dev: \"net_tap0,iface=t0\", peer_timeout: 5s}\n",
		   "ports.0: peer_timeout: is for a port on a link to another process's switch");
	const char *xdp[] = { "ports.0.xdp_steering=true", "ports.0.dev=net_af_xdp0,iface=x0" };

	err[0] = '\0';
	cr_expect_neq(ctl_config_load(&cfg, "tests/lab/split.yaml", xdp, 2, err, sizeof(err)), 0);
	cr_expect(strstr(err, "xdp_steering: true on a link to another process's switch") != NULL, "%s", err);
}

Test(ctl_config, partitions_errors_each_reported)
{
	struct ctl_config cfg;

	err[0] = '\0';
	cr_assert_eq(ctl_config_load(&cfg, BAD "partitions.yaml", NULL, 0, err, sizeof(err)), -EINVAL);
	cr_expect(strstr(err, "partitions.0.devices.4: no device 'host9'") != NULL, "%s", err);
	cr_expect(strstr(err, "partitions.1.name: duplicate partition name 'left'") != NULL, "%s", err);
	cr_expect(strstr(err, "partitions.1.devices.2: device 'host0' is in partitions.0 already") != NULL, "%s", err);
	cr_expect(strstr(err, "device 'host3' is in no partition") != NULL, "%s", err);
	cr_expect(strstr(err, "device 'spine1' is in no partition") != NULL, "%s", err);
}

/* Peer profiles (docs/wire.md, Peer profiles): every new key refused by name with its values, a host's profile. */
Test(ctl_config, peer_profile_errors)
{
	set_fails("nic.UETEncapsulation.RequestForm=RUDI_REQ",
		  "--set nic.UETEncapsulation.RequestForm=RUDI_REQ: unknown value 'RUDI_REQ'; "
		  "RequestForm takes RUD_CC_REQ, RUD_REQ or ROD_REQ");
	set_fails("nic.UETEncapsulation.CrcCoverage=ip",
		  "--set nic.UETEncapsulation.CrcCoverage=ip: unknown value 'ip'; CrcCoverage takes "
		  "uetemu or refprov");
	set_fails("nic.UETEncapsulation.Ttl=0",
		  "--set nic.UETEncapsulation.Ttl=0: value 0 out of range 1 to 255");
	set_fails("nic.UETEncapsulation.SesPidOnFep=4096",
		  "--set nic.UETEncapsulation.SesPidOnFep=4096: value 4096 out of range 0 to 4095");
	set_fails("nic.PeerProfile=libfabric",
		  "--set nic.PeerProfile=libfabric: unknown value 'libfabric'; PeerProfile takes none or uec-ref-prov");
}

Test(ctl_config, host_profile)
{
	struct ctl_config cfg;

	yaml_ok(&cfg, "topology:\n  hosts:\n    - {name: a, ip: 10.0.0.1, profile: uec-ref-prov}\n"
		"    - {name: b, ip: 10.0.0.2}\n  links: [{name: l0, a: a, b: b}]\n");
	cr_expect(cfg.hosts[0].has_profile && cfg.hosts[0].profile == NIC_PROFILE_REFPROV);
	cr_expect(!cfg.hosts[1].has_profile);
	ctl_config_free(&cfg);
	struct nic_params p;

	nic_params_defaults(&p);
	cr_expect_eq(nic_params_profile(&p, NIC_PROFILE_REFPROV), 0);
	cr_expect_eq(nic_params_encap(&p), WIRE_ENCAP_NATIVE | WIRE_ENCAP_CRC | WIRE_ENCAP_CRC_IP | WIRE_ENCAP_PLAIN_REQ);
	cr_expect(p.ttl == 64 && p.ses_job_id == 1 && p.ses_resource_index == 15 && p.ses_initiator == 16 &&
		  p.rdma_data_mss == 1024 && p.ack_form == NIC_ACK_FORM_PLAIN && p.ack_ses_mode == NIC_SES_RSP_ALWAYS);
	cr_expect_eq(nic_params_profile(&p, 7), -EINVAL);
	const char *path = yaml_file("topology:\n  hosts:\n    - {name: a, ip: 10.0.0.1, profile: libfabric}\n");
	char e[512];

	cr_expect_neq(ctl_config_load(&cfg, path, NULL, 0, e, sizeof(e)), 0);
	cr_expect(strstr(e, "unknown peer profile 'libfabric'; profile takes none or uec-ref-prov") != NULL, "%s", e);
	unlink(path);
}
