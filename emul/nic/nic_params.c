/* The Scala UET NIC attribute table (spec/scala/uet-nic-configuration.md), its defaults, parsing and static rules. */
#include "nic_params.h"

#include <assert.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "emu_param.h"
#include "emu_units.h"

#define NP_T struct nic_params
#define NP_ROW(...) PORT_PARAM_ROW(NP_T, __VA_ARGS__)
#define NP_UINT(...) PORT_PARAM_RANGE(NP_T, PORT_PT_UINT, __VA_ARGS__)
#define NP_DBL(...) PORT_PARAM_DBL(NP_T, __VA_ARGS__)
#define NP_ENUM(...) PORT_PARAM_ENUM(NP_T, __VA_ARGS__)
#define NP_LIST(...) PORT_PARAM_LIST(NP_T, __VA_ARGS__)

#define NI PORT_PARAM_NI
#define IBM PORT_PARAM_IBM
#define EBM PORT_PARAM_EBM
#define TPL "TransportProcessingLayers"
#define PDS TPL, "ScalaUETPdsManager"
#define DPS TPL, "PacketSpraying", "DefaultPacketSpraying"
#define REPS TPL, "PacketSpraying", "RecycledEntropyPacketSpraying"
#define CC TPL, "ScalaUETCongestionControl"
#define MON TPL, "ScalaUETMonitor"
#define ENC "UETEncapsulation"

/* The largest RdmaDataMSS whose data frame still fits WIRE_MAX_FRAME (a uetemu limit; the page gives no range). */
#define NP_MSS_MAX (WIRE_MAX_FRAME - (WIRE_DATA_OVERHEAD - WIRE_FCS_LEN))
/* Smallest PrefetchBufferSize the page accepts when written: one data packet at the default RdmaDataMSS. */
#define NP_PREFETCH_MIN 4202

static const char *const qsched_names[] = { "StrictPriority", "RoundRobin", "WeightedRoundRobin", NULL };
static const char *const spray_names[] = { "None", "Default Packet Spraying", "Recycled Entropy Packet Spraying",
					   NULL };
static const char *const delivery_names[] = { "Reliable Unordered Delivery (RUD)", NULL };
static const char *const encap_names[] = { "UDP", "NativeIPv4", NULL };
static const char *const profile_names[] = { "none", "uec-ref-prov", NULL };
static const char *const req_form_names[] = { "RUD_CC_REQ", "RUD_REQ", "ROD_REQ", NULL };
static const char *const ack_form_names[] = { "ACK_CC", "ACK", NULL };
static const char *const ses_rsp_names[] = { "Never", "WhenAsked", "Always", NULL };
static const char *const crc_cov_names[] = { "uetemu", "refprov", NULL };
static const char *const ecn_names[] = { "ECT1", "ECT0", "NotECT", NULL };
static const char *const start_psn_names[] = { "Random", "RefProv", NULL };

const struct port_param_def nic_param_table[] = {
	{ .path = { "NumDownLinks" }, .type = PORT_PT_UINT, .readonly = true, .def = "1", .min = 1, .max = 1 },
	NP_ROW(PORT_PT_BOOL, "false", enable_buffer_stats, "EnableBufferStats"),
	NP_ROW(PORT_PT_BOOL, "true", enable_transport_stats, "EnableTransportStats"),
	NP_ROW(PORT_PT_BOOL, "false", enable_event_logging, "EnableEventLogging"),

	NP_ROW(PORT_PT_DATARATE, "400Gbps", data_rate_bps, NI, "UplinkNetworkInterface", "DataRate"),
	NP_ROW(PORT_PT_TIMEVAL, "100ns", delay_ps, NI, "TransmissionMedium", "Delay"),
	NP_ROW(PORT_PT_RATE_LIMIT, "0", rate_limit_bps, "EgressShaper", "RateLimit"),
	NP_ROW(PORT_PT_BYTES, "0B", rate_limit_burst, "EgressShaper", "BurstSize"),
	NP_ROW(PORT_PT_BYTES, "4MB", ingress.total_buffer_size, IBM, "TotalBufferSize"),
	NP_ENUM("StrictPriority", qsched_names, "ProbabilisticWeightedRoundRobin", ingress.queue_scheduling, IBM,
		"QueueSchedulingType"),
	NP_LIST(PORT_PT_LIST_FRAC, "[0.9, 0.1, 0, 0, 0, 0, 0, 0]", 0, ingress.pool_alloc_ppm, IBM,
		"PoolAllocationVector"),
	NP_LIST(PORT_PT_LIST_FLAG, "[0, 0, 0, 0, 0, 0, 0, 0]", 0, ingress.pfc_enable, IBM, "PFCEnableVector"),
	NP_LIST(PORT_PT_LIST_UINT, "[1, 3, 0, 0, 0, 0, 0, 0]", UINT32_MAX, ingress.wrr_weights, IBM, "WRRQueueWeights"),
	PORT_PARAM_PFC_ROWS(NP_T),
	NP_ROW(PORT_PT_BYTES, "256KB", egress.total_buffer_size, EBM, "TotalBufferSize"),
	NP_ENUM("StrictPriority", qsched_names, "ProbabilisticWeightedRoundRobin", egress.queue_scheduling, EBM,
		"QueueSchedulingType"),
	NP_LIST(PORT_PT_LIST_FRAC, "[0.9, 0.1, 0.0, 0, 0, 0, 0, 0]", 0, egress.pool_alloc_ppm, EBM,
		"PoolAllocationVector"),
	NP_LIST(PORT_PT_LIST_UINT, "[1, 5, 0, 0, 0, 0, 0, 0]", UINT32_MAX, egress.wrr_weights, EBM, "WRRQueueWeights"),

	NP_ROW(PORT_PT_BOOL, "false", trimming_enabled, PDS, "TrimmingEnabled"),
	NP_ROW(PORT_PT_BOOL, "true", use_distinct_dscp_rtx, PDS, "UseDistinctDSCPForRetransmits"),
	NP_ROW(PORT_PT_BOOL, "true", pdc_groups_enabled, PDS, "PDCGroupsEnabled"),
	NP_ROW(PORT_PT_BOOL, "false", prefetch_enable, PDS, "PrefetchBufferEnable"),
	NP_UINT("262144", NP_PREFETCH_MIN, UINT32_MAX, prefetch_size, PDS, "PrefetchBufferSize"),
	{ .path = { PDS, "DefaultDeliveryMethod" }, .type = PORT_PT_ENUM, .def = "Reliable Unordered Delivery (RUD)",
	  .enums = delivery_names },
	NP_ENUM("Default Packet Spraying", spray_names, NULL, spraying, PDS, "PacketSprayingType"),
	NP_UINT("3", 0, UINT32_MAX, failure_detection_rtt_mult, PDS, "FailureDetectionRTTMultiplier"),
	NP_ROW(PORT_PT_TIMEVAL, "150us", initial_rto, PDS, "InitialRetransmitTimeout"),
	NP_UINT("5", 0, 15, max_rto_backoff, PDS, "MaxExponentialRTOBackoffCount"),
	NP_ROW(PORT_PT_BOOL, "false", fixed_rexmit_enable, PDS, "FixedRexmitTimeEnable"),
	NP_ROW(PORT_PT_TIMEVAL, "150us", fixed_rexmit_timeout, PDS, "FixedRexmitTimeout"),
	NP_ROW(PORT_PT_BOOL, "true", ack_req_first, PDS, "AckRequestFirstPacket"),
	NP_ROW(PORT_PT_BOOL, "true", ack_req_last, PDS, "AckRequestLastPacket"),
	NP_UINT("1", 1, 1024, ack_req_every_nth, PDS, "AckRequestEveryNthPacket"),

	NP_UINT("7", 0, 8, entropy_mask_bits, DPS, "EntropyMaskBits"),
	NP_UINT("256", 0, 65535, starting_port_offset, DPS, "StartingPortOffset"),
	NP_UINT("3", 0, 16, reps_buffer_mask_bits, REPS, "REPSBufferSizeMaskBits"),
	NP_UINT("65536", 1, 65536, entropy_value_set_size, REPS, "EntropyValueSetSize"),
	NP_ROW(PORT_PT_TIMEVAL, "100us", freezing_timeout, REPS, "FreezingTimeout"),

	NP_ROW(PORT_PT_BOOL, "false", cc_pass_through, CC, "PassThrough"),
	NP_ROW(PORT_PT_BOOL, "true", nscc_enable, CC, "NSCCEnable"),
	NP_ROW(PORT_PT_TIMEVAL, "6us", initial_base_rtt, CC, "InitialBaseRTT"),
	NP_ROW(PORT_PT_TIMEVAL, "6us", reference_network_rtt, CC, "ReferenceNetworkRTT"),
	NP_ROW(PORT_PT_DATARATE, "400Gbps", reference_link_bps, CC, "ReferenceNetworkLinkSpeed"),
	NP_ROW(PORT_PT_BOOL, "false", override_target_qdelay, CC, "OverrideSpecTargetQueueDelay"),
	NP_ROW(PORT_PT_TIMEVAL, "4500ns", target_qdelay, CC, "TargetQueueDelay"),
	NP_ROW(PORT_PT_TIMEVAL, "1us", target_qdelay_margin, CC, "TargetQueueDelayMargin"),
	NP_ROW(PORT_PT_BOOL, "false", disable_quick_adapt, CC, "DisableQuickAdapt"),
	NP_UINT("3", 0, 31, quick_adapt_gate, CC, "QuickAdaptGate"),
	NP_ROW(PORT_PT_TIMEVAL, "24us", quick_adapt_threshold, CC, "QuickAdaptThreshold"),
	NP_ROW(PORT_PT_BOOL, "false", override_max_cwnd, CC, "OverrideUetSpecMaxCWind"),
	NP_UINT("107", 1, 4096, max_cwnd_pkts, CC, "MaxCongestionWindow"),
	NP_DBL("25.0", 0.0, 100.0, recv_cong_low_pct, CC, "ReceiverCongestionLowThreshold"),
	NP_DBL("75.0", 0.0, 100.0, recv_cong_high_pct, CC, "ReceiverCongestionHighThreshold"),
	NP_ROW(PORT_PT_BOOL, "false", restore_cwnd_enable, CC, "RestoreCWindEnable"),
	NP_DBL("0.5", 0.001, 1.0, max_md_jump, CC, "MaxMultiplicativeDecreaseJump"),
	NP_DBL("4.0", 1.0, 100.0, alpha_mult, CC, "AlphaMultiplier"),
	NP_DBL("5.0", 1.0, 100.0, fair_increase_mult, CC, "FairIncreaseMultiplier"),
	NP_DBL("1.0", 0.01, 100.0, fast_increase_mult, CC, "FastIncreaseMultiplier"),
	NP_DBL("0.15", 0.0, 1.0, eta_mult, CC, "EtaMultiplier"),
	NP_DBL("0.8", 0.001, 1.0, gamma, CC, "Gamma"),
	NP_DBL("0.25", 0.0, 1.0, delay_alpha, CC, "DelayAlpha"),

	NP_UINT("4096", 1, NP_MSS_MAX, rdma_data_mss, TPL, "SemanticLayer", "RdmaDataMSS"),

	NP_ROW(PORT_PT_BOOL, "false", monitor_enable, MON, "EnableUETMonitor"),
	NP_ROW(PORT_PT_FILTER_FEP, "All", filter_fep_id, MON, "FilterOnFepId"),
	NP_ROW(PORT_PT_FILTER_IP, "All", filter_local_ip, MON, "FilterOnLocalIp"),
	NP_ROW(PORT_PT_FILTER_IP, "All", filter_remote_ip, MON, "FilterOnRemoteIp"),
	NP_ROW(PORT_PT_FILTER_PDC, "All", filter_pdc, MON, "FilterOnPdc"),
	NP_ROW(PORT_PT_BOOL, "false", trigger_rtt_enable, MON, "TriggerLoggingOnRttEnable"),
	NP_ROW(PORT_PT_TIMEVAL, "100us", trigger_rtt_threshold, MON, "TriggerLoggingOnRttThreshold"),
	NP_ROW(PORT_PT_BOOL, "false", trigger_cwnd_pen, MON, "TriggerLoggingOnCWindPen"),
	NP_UINT("127", 0, 127, trigger_cwnd_pen_threshold, MON, "TriggerLoggingOnCWindPenThreshold"),
	NP_UINT("1", 0, 100, triggered_pdc_limit, MON, "TriggeredLoggingPDCLimit"),

	PORT_PARAM_PCIE_ROWS(NP_T, pcie_nic, PORT_PARAM_NIC_PCIE),
	PORT_PARAM_PCIE_ROWS(NP_T, pcie_host, PORT_PARAM_HOST_PCIE),

	/* uetemu extension: the real-wire encapsulation (spec 1.1, 1.5). */
	NP_UINT("4793", 1, 65535, udp_port, ENC, "UdpDestinationPort"),
	NP_UINT("0", 0, 63, dscp.dscp[WIRE_ROLE_NO_TRIM], ENC, "DscpNoTrim"),
	NP_UINT("8", 0, 63, dscp.dscp[WIRE_ROLE_TRIMMABLE], ENC, "DscpTrimmable"),
	NP_UINT("10", 0, 63, dscp.dscp[WIRE_ROLE_TRIMMABLE_RTX], ENC, "DscpTrimmableRtx"),
	NP_UINT("16", 0, 63, dscp.dscp[WIRE_ROLE_TRIMMED], ENC, "DscpTrimmed"),
	NP_UINT("18", 0, 63, dscp.dscp[WIRE_ROLE_TRIMMED_LASTHOP], ENC, "DscpTrimmedLastHop"),
	NP_UINT("46", 0, 63, dscp.dscp[WIRE_ROLE_CONTROL], ENC, "DscpControl"),
	NP_ENUM("UDP", encap_names, NULL, encapsulation, ENC, "Encapsulation"),
	NP_ROW(PORT_PT_BOOL, "false", crc_trailer, ENC, "CrcTrailer"),
	/* uetemu extension: a peer profile (docs/wire.md, Peer profiles) */
	NP_ENUM("uetemu", crc_cov_names, NULL, crc_coverage, ENC, "CrcCoverage"),
	NP_ENUM("RUD_CC_REQ", req_form_names, NULL, req_form, ENC, "RequestForm"),
	NP_ENUM("ACK_CC", ack_form_names, NULL, ack_form, ENC, "AckForm"),
	NP_ENUM("Never", ses_rsp_names, NULL, ack_ses_mode, ENC, "AckSesResponse"),
	NP_UINT("0", 0, 0xffffff, ses_job_id, ENC, "SesJobId"),
	NP_UINT("0", 0, 0xfff, ses_pid_on_fep, ENC, "SesPidOnFep"),
	NP_UINT("0", 0, 0xfff, ses_resource_index, ENC, "SesResourceIndex"),
	NP_UINT("0", 0, UINT32_MAX, ses_initiator, ENC, "SesInitiator"),
	NP_UINT("255", 1, 255, ttl, ENC, "Ttl"),
	NP_ENUM("ECT1", ecn_names, NULL, ecn, ENC, "Ecn"),
	NP_ENUM("Random", start_psn_names, NULL, start_psn, ENC, "StartPsn"),
	NP_ENUM("none", profile_names, NULL, peer_profile, "PeerProfile"),

	/* uetemu-only: deliberate faults, for testing conformance tools only (docs/conform.md). */
	NP_ROW(PORT_PT_BOOL, "false", fault_no_sack, "TestFaults", "NoSack"),
	NP_ROW(PORT_PT_BOOL, "false", fault_wrong_nack_code, "TestFaults", "WrongNackCode"),
	NP_ROW(PORT_PT_BOOL, "false", fault_no_ses_response, "TestFaults", "NoSesResponse"),
	NP_ROW(PORT_PT_BOOL, "false", fault_no_ecn_echo, "TestFaults", "NoEcnEcho"),
};

const unsigned nic_param_count = sizeof(nic_param_table) / sizeof(nic_param_table[0]);



void nic_params_defaults(struct nic_params *p)
{
	port_param_table_defaults(p, sizeof(*p), nic_param_table, nic_param_count);
}

int nic_params_profile(struct nic_params *p, unsigned profile)
{
	switch (profile) {
	case NIC_PROFILE_NONE:
		return 0;
	case NIC_PROFILE_REFPROV: /* ultraethernet/uet-ref-prov's defaults, field by field (docs/wire.md) */
		p->encapsulation = NIC_ENCAP_NATIVE_IPV4;
		p->crc_trailer = true;
		p->crc_coverage = NIC_CRC_COV_REFPROV;
		p->req_form = NIC_REQ_RUD;
		p->ack_form = NIC_ACK_FORM_PLAIN;
		p->ack_ses_mode = NIC_SES_RSP_ALWAYS;
		p->ses_job_id = 1;
		p->ses_pid_on_fep = 0;
		p->ses_resource_index = 15;
		p->ses_initiator = 16;
		p->ttl = 64;
		p->ecn = NIC_ECN_NOT_ECT;
		p->dscp.dscp[WIRE_ROLE_NO_TRIM] = 0;
		p->dscp.dscp[WIRE_ROLE_TRIMMABLE] = 0;
		p->dscp.dscp[WIRE_ROLE_TRIMMABLE_RTX] = 0;
		p->dscp.dscp[WIRE_ROLE_CONTROL] = 46;
		p->start_psn = NIC_START_PSN_REFPROV;
		p->rdma_data_mss = 1024;
		p->ack_req_first = false; /* AR on EOM (and on every 1,024th packet, the most the attribute allows) */
		p->ack_req_last = true;
		p->ack_req_every_nth = 1024;
		p->peer_profile = NIC_PROFILE_REFPROV;
		return 0;
	default:
		return -EINVAL;
	}
}

/* The row of the field at offset @p off. */
static const struct port_param_def *np_row(size_t off)
{
	return port_param_row(nic_param_table, nic_param_count, off);
}

#define NP_ROW_OF(f) np_row(offsetof(struct nic_params, f))

/* Buffer pools: at least two non-zero entries, the only pool rule that stops a run (uet-nic-configuration.md,
 * Configuration rules that stop a simulation); the shape and the sizes only warn (nic_params_warnings()). */
static int np_check_pool(const struct port_buf_params *b, char *err, size_t errlen)
{
	int nz = 0;

	for (int i = 0; i < PORT_TC_COUNT; i++)
		nz += b->pool_alloc_ppm[i] != 0;
	if (nz < 2)
		return emu_param_fail(err, errlen, -EINVAL,
			       "%d non-zero entr%s; classes 0 and 1 each need a pool, e.g. [0.9, 0.1, 0, 0, 0, 0, 0, 0]",
			       nz, nz == 1 ? "y" : "ies");
	return 0;
}

/* Bytes of class @p tc's pool: its fraction of TotalBufferSize, rounded down. */
static uint64_t np_pool_bytes(const struct port_buf_params *b, int tc)
{
	return (uint64_t)((unsigned __int128)b->total_buffer_size * b->pool_alloc_ppm[tc] / 1000000u);
}

/* One warning: @p why's row and the formatted text, into the next of @p out unless @p max are taken. */
__attribute__((format(printf, 5, 6))) static void np_warn(struct nic_warning *out, int max, int *n,
							  const struct port_param_def *why, const char *fmt, ...)
{
	va_list ap;

	if (*n >= max)
		return;
	out[*n].why = why;
	va_start(ap, fmt);
	vsnprintf(out[*n].text, sizeof(out[*n].text), fmt, ap);
	va_end(ap);
	(*n)++;
}

/* Classes 0 (data) and 1 (control) of buffer @p b without a pool, the shape's gap named when there is one. */
static void np_warn_pool(const struct port_buf_params *b, bool tx, const struct port_param_def *why,
			 struct nic_warning *out, int max, int *n)
{
	static const char *const lost[2][2] = {
		{ "every data packet received is dropped", "every ACK, NACK and probe received is dropped" },
		{ "the NIC sends no data", "the NIC sends no ACK, NACK or probe" },
	};
	char gap[64] = "";

	for (int i = 0; i + 1 < PORT_TC_COUNT && gap[0] == '\0'; i++)
		if (b->pool_alloc_ppm[i] == 0 && b->pool_alloc_ppm[i + 1] != 0)
			snprintf(gap, sizeof(gap), "entry %d is 0 but entry %d is not; ", i, i + 1);
	for (int c = 0; c < 2; c++)
		if (b->pool_alloc_ppm[c] == 0)
			np_warn(out, max, n, why, "%sclass %d (%s) has no %s pool: %s", gap, c, c ? "control" : "data",
				tx ? "transmit" : "receive", lost[tx][c]);
}

/* The first buffer of a PCIe direction, transmit end @p tx to receive end @p rx, that cannot hold one transfer of
 * @p first payload bytes or its 16 B header; NULL when they all can. */
static const struct port_param_def *np_pcie_short(const struct port_pcie_params *tx, const struct port_pcie_params *rx,
						 size_t tx_off, size_t rx_off, uint64_t first)
{
	if (tx->tx_header_buffer < 16)
		return np_row(tx_off + offsetof(struct port_pcie_params, tx_header_buffer));
	if (tx->tx_data_buffer < first)
		return np_row(tx_off + offsetof(struct port_pcie_params, tx_data_buffer));
	if (rx->rx_header_buffer < 16)
		return np_row(rx_off + offsetof(struct port_pcie_params, rx_header_buffer));
	if (rx->rx_data_buffer < first)
		return np_row(rx_off + offsetof(struct port_pcie_params, rx_data_buffer));
	return NULL;
}

/* PCIe buffers that stop a direction at run time (uet-nic-buffers-and-pfc.md, PCIe host interface: a transfer is sent
 * only when the receiving end has buffer space for it). */
static void np_warn_pcie(const struct nic_params *p, struct nic_warning *out, int max, int *n)
{
	size_t nic = offsetof(struct nic_params, pcie_nic), host = offsetof(struct nic_params, pcie_host);
	uint64_t first = p->rdma_data_mss < 512 ? p->rdma_data_mss : 512;
	const struct port_param_def *w;

	if ((w = np_pcie_short(&p->pcie_nic, &p->pcie_host, nic, host, first)) != NULL)
		np_warn(out, max, n, w, "cannot hold one NIC-to-host transfer (%llu B and a 16 B header); received "
			"data never reaches the host, and read requests need the headers", (unsigned long long)first);
	if ((w = np_pcie_short(&p->pcie_host, &p->pcie_nic, host, nic, first)) != NULL)
		np_warn(out, max, n, w, "cannot hold one host-to-NIC transfer (%llu B and a 16 B header); no payload "
			"reaches the NIC, so it sends no data", (unsigned long long)first);
	else if (p->pcie_nic.rx_data_buffer < p->rdma_data_mss)
		np_warn(out, max, n, np_row(nic + offsetof(struct port_pcie_params, rx_data_buffer)), "%llu B is less "
			"than one segment's completion (RdmaDataMSS %u B); the NIC never fetches a full segment",
			(unsigned long long)p->pcie_nic.rx_data_buffer, p->rdma_data_mss);
}

int nic_params_warnings(const struct nic_params *p, struct nic_warning *out, int max)
{
	uint32_t ovh = wire_data_overhead(nic_params_encap(p)), ack = wire_ack_wire_len(nic_params_encap(p));
	uint64_t pkt = (uint64_t)p->rdma_data_mss + ovh;
	uint64_t data = np_pool_bytes(&p->egress, 0), ctl = np_pool_bytes(&p->egress, 1);
	int n = 0;

	np_warn_pool(&p->ingress, false, NP_ROW_OF(ingress.pool_alloc_ppm), out, max, &n);
	np_warn_pool(&p->egress, true, NP_ROW_OF(egress.pool_alloc_ppm), out, max, &n);
	/* uet-nic-buffers-and-pfc.md, Egress buffer: "If it cannot, the NIC stops sending data": a run-time stall */
	if (data > 0 && data < pkt)
		np_warn(out, max, &n, NP_ROW_OF(egress.total_buffer_size), "egress data pool (class 0) holds %llu "
			"bytes, less than one data packet, RdmaDataMSS + %u = %llu bytes; the NIC sends no data "
			"packet larger than the pool (a full one never)", (unsigned long long)data, ovh,
			(unsigned long long)pkt);
	if (ctl > 0 && ctl < ack)
		np_warn(out, max, &n, NP_ROW_OF(egress.total_buffer_size), "egress control pool (class 1) holds %llu "
			"bytes, less than one %u-byte ACK; the NIC sends no ACK", (unsigned long long)ctl, ack);
	np_warn_pcie(p, out, max, &n);
	return n;
}

int nic_params_check(const struct nic_params *p, const struct port_param_def *why[PORT_CHECK_WHY_MAX], char *err,
		     size_t errlen)
{
	uint32_t ovh = wire_data_overhead(nic_params_encap(p));
	uint64_t pkt = (uint64_t)p->rdma_data_mss + ovh;
	int rc;

	for (int i = 0; i < PORT_CHECK_WHY_MAX; i++)
		why[i] = NULL;
	why[0] = NP_ROW_OF(ingress.pool_alloc_ppm);
	if ((rc = np_check_pool(&p->ingress, err, errlen)) != 0)
		return rc;
	why[0] = NP_ROW_OF(egress.pool_alloc_ppm);
	if ((rc = np_check_pool(&p->egress, err, errlen)) != 0)
		return rc;
	why[0] = NULL;
	if (p->prefetch_enable && p->prefetch_size < pkt) {
		why[0] = NP_ROW_OF(prefetch_size);
		why[1] = NP_ROW_OF(rdma_data_mss);
		why[2] = NP_ROW_OF(prefetch_enable);
		return emu_param_fail(err, errlen, -EINVAL,
			       "PrefetchBufferSize %u is less than one data packet, RdmaDataMSS + %u = %llu bytes, "
			       "with PrefetchBufferEnable true; raise PrefetchBufferSize or turn the prefetch buffer off",
			       p->prefetch_size, ovh, (unsigned long long)pkt);
	}
	if (pkt - WIRE_FCS_LEN > WIRE_MAX_FRAME) {
		why[0] = NP_ROW_OF(rdma_data_mss);
		why[1] = NP_ROW_OF(crc_trailer);
		return emu_param_fail(err, errlen, -EINVAL,
			       "a data frame of RdmaDataMSS %u + %u bytes of headers and trailer (FCS included) exceeds the "
			       "largest frame, %d bytes + FCS; lower RdmaDataMSS or turn CrcTrailer off",
			       p->rdma_data_mss, ovh, WIRE_MAX_FRAME);
	}
	return 0;
}
