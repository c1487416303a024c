/* The Scala UET NIC attribute table (spec/scala/uet-nic-configuration.md), its defaults, parsing and static rules. */
#include "nic_params.h"

#include <assert.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "emu_param.h"
#include "emu_units.h"

#define NP_FIELD(f) .off = offsetof(struct nic_params, f), .size = sizeof(((struct nic_params *)0)->f)
#define NP_ROW(t, d, f, ...) { .path = { __VA_ARGS__ }, .type = (t), .def = (d), .max = UINT64_MAX, NP_FIELD(f) }
#define NP_UINT(d, lo, hi, f, ...) { .path = { __VA_ARGS__ }, .type = NIC_PT_UINT, .def = (d), .min = (lo), \
				     .max = (hi), NP_FIELD(f) }
#define NP_DBL(d, lo, hi, f, ...) { .path = { __VA_ARGS__ }, .type = NIC_PT_DOUBLE, .def = (d), .dmin = (lo), \
				    .dmax = (hi), NP_FIELD(f) }
#define NP_ENUM(d, e, r, f, ...) { .path = { __VA_ARGS__ }, .type = NIC_PT_ENUM, .def = (d), .enums = (e), \
				   .refused = (r), NP_FIELD(f) }
#define NP_LIST(t, d, hi, f, ...) { .path = { __VA_ARGS__ }, .type = (t), .def = (d), .max = (hi), NP_FIELD(f) }

#define NI "NetworkInterface"
#define IBM NI, "IngressBufferManager"
#define EBM NI, "EgressBufferManager"
#define TPL "TransportProcessingLayers"
#define PDS TPL, "ScalaUETPdsManager"
#define DPS TPL, "PacketSpraying", "DefaultPacketSpraying"
#define REPS TPL, "PacketSpraying", "RecycledEntropyPacketSpraying"
#define CC TPL, "ScalaUETCongestionControl"
#define MON TPL, "ScalaUETMonitor"
#define NIC_TL "HostInterface", "NICSide", "PCIeGen3.0", "NicDeviceLayer", "NicPCIeInterface", "TransactionLayer"
#define NIC_PL "HostInterface", "NICSide", "PCIeGen3.0", "NicDeviceLayer", "NicPCIeInterface", "PhysicalLayer"
#define HOST_TL "HostInterface", "HostSide", "PCIeGen3.0", "ScalaHostPCIeDeviceLayer", "HostPCIeInterface", \
	"TransactionLayer"
#define HOST_PL "HostInterface", "HostSide", "PCIeGen3.0", "ScalaHostPCIeDeviceLayer", "HostPCIeInterface", \
	"PhysicalLayer"
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

const struct nic_param_def nic_param_table[] = {
	{ .path = { "NumDownLinks" }, .type = NIC_PT_UINT, .readonly = true, .def = "1", .min = 1, .max = 1 },
	NP_ROW(NIC_PT_BOOL, "false", enable_buffer_stats, "EnableBufferStats"),
	NP_ROW(NIC_PT_BOOL, "true", enable_transport_stats, "EnableTransportStats"),
	NP_ROW(NIC_PT_BOOL, "false", enable_event_logging, "EnableEventLogging"),

	NP_ROW(NIC_PT_DATARATE, "400Gbps", data_rate_bps, NI, "UplinkNetworkInterface", "DataRate"),
	NP_ROW(NIC_PT_TIMEVAL, "100ns", delay_ps, NI, "TransmissionMedium", "Delay"),
	NP_ROW(NIC_PT_BYTES, "4MB", ingress.total_buffer_size, IBM, "TotalBufferSize"),
	NP_ENUM("StrictPriority", qsched_names, "ProbabilisticWeightedRoundRobin", ingress.queue_scheduling, IBM,
		"QueueSchedulingType"),
	NP_LIST(NIC_PT_LIST_FRAC, "[0.9, 0.1, 0, 0, 0, 0, 0, 0]", 0, ingress.pool_alloc_ppm, IBM,
		"PoolAllocationVector"),
	NP_LIST(NIC_PT_LIST_FLAG, "[0, 0, 0, 0, 0, 0, 0, 0]", 0, ingress.pfc_enable, IBM, "PFCEnableVector"),
	NP_LIST(NIC_PT_LIST_UINT, "[1, 3, 0, 0, 0, 0, 0, 0]", UINT32_MAX, ingress.wrr_weights, IBM, "WRRQueueWeights"),
	NP_LIST(NIC_PT_LIST_FRAC, "[0.8, 0.8, 0, 0, 0, 0, 0, 0]", 0, ingress.pfc_xoff_ppm, IBM,
		"PfcStaticXoffThreshold"),
	NP_LIST(NIC_PT_LIST_FRAC, "[0.4, 0.4, 0, 0, 0, 0, 0, 0]", 0, ingress.pfc_xon_ppm, IBM, "PfcXonResumeThreshold"),
	/* A pause frame carries 16-bit quanta. */
	NP_LIST(NIC_PT_LIST_UINT, "[65535, 65535, 0, 0, 0, 0, 0, 0]", 65535, ingress.quanta, IBM, "QuantaValue"),
	NP_ROW(NIC_PT_BYTES, "256KB", egress.total_buffer_size, EBM, "TotalBufferSize"),
	NP_ENUM("StrictPriority", qsched_names, "ProbabilisticWeightedRoundRobin", egress.queue_scheduling, EBM,
		"QueueSchedulingType"),
	NP_LIST(NIC_PT_LIST_FRAC, "[0.9, 0.1, 0.0, 0, 0, 0, 0, 0]", 0, egress.pool_alloc_ppm, EBM,
		"PoolAllocationVector"),
	NP_LIST(NIC_PT_LIST_UINT, "[1, 5, 0, 0, 0, 0, 0, 0]", UINT32_MAX, egress.wrr_weights, EBM, "WRRQueueWeights"),

	NP_ROW(NIC_PT_BOOL, "false", trimming_enabled, PDS, "TrimmingEnabled"),
	NP_ROW(NIC_PT_BOOL, "true", use_distinct_dscp_rtx, PDS, "UseDistinctDSCPForRetransmits"),
	NP_ROW(NIC_PT_BOOL, "true", pdc_groups_enabled, PDS, "PDCGroupsEnabled"),
	NP_ROW(NIC_PT_BOOL, "false", prefetch_enable, PDS, "PrefetchBufferEnable"),
	NP_UINT("262144", NP_PREFETCH_MIN, UINT32_MAX, prefetch_size, PDS, "PrefetchBufferSize"),
	{ .path = { PDS, "DefaultDeliveryMethod" }, .type = NIC_PT_ENUM, .def = "Reliable Unordered Delivery (RUD)",
	  .enums = delivery_names },
	NP_ENUM("Default Packet Spraying", spray_names, NULL, spraying, PDS, "PacketSprayingType"),
	NP_UINT("3", 0, UINT32_MAX, failure_detection_rtt_mult, PDS, "FailureDetectionRTTMultiplier"),
	NP_ROW(NIC_PT_TIMEVAL, "150us", initial_rto, PDS, "InitialRetransmitTimeout"),
	NP_UINT("5", 0, 15, max_rto_backoff, PDS, "MaxExponentialRTOBackoffCount"),
	NP_ROW(NIC_PT_BOOL, "false", fixed_rexmit_enable, PDS, "FixedRexmitTimeEnable"),
	NP_ROW(NIC_PT_TIMEVAL, "150us", fixed_rexmit_timeout, PDS, "FixedRexmitTimeout"),
	NP_ROW(NIC_PT_BOOL, "true", ack_req_first, PDS, "AckRequestFirstPacket"),
	NP_ROW(NIC_PT_BOOL, "true", ack_req_last, PDS, "AckRequestLastPacket"),
	NP_UINT("1", 1, 1024, ack_req_every_nth, PDS, "AckRequestEveryNthPacket"),

	NP_UINT("7", 0, 8, entropy_mask_bits, DPS, "EntropyMaskBits"),
	NP_UINT("256", 0, 65535, starting_port_offset, DPS, "StartingPortOffset"),
	NP_UINT("3", 0, 16, reps_buffer_mask_bits, REPS, "REPSBufferSizeMaskBits"),
	NP_UINT("65536", 1, 65536, entropy_value_set_size, REPS, "EntropyValueSetSize"),
	NP_ROW(NIC_PT_TIMEVAL, "100us", freezing_timeout, REPS, "FreezingTimeout"),

	NP_ROW(NIC_PT_BOOL, "false", cc_pass_through, CC, "PassThrough"),
	NP_ROW(NIC_PT_BOOL, "true", nscc_enable, CC, "NSCCEnable"),
	NP_ROW(NIC_PT_TIMEVAL, "6us", initial_base_rtt, CC, "InitialBaseRTT"),
	NP_ROW(NIC_PT_TIMEVAL, "6us", reference_network_rtt, CC, "ReferenceNetworkRTT"),
	NP_ROW(NIC_PT_DATARATE, "400Gbps", reference_link_bps, CC, "ReferenceNetworkLinkSpeed"),
	NP_ROW(NIC_PT_BOOL, "false", override_target_qdelay, CC, "OverrideSpecTargetQueueDelay"),
	NP_ROW(NIC_PT_TIMEVAL, "4500ns", target_qdelay, CC, "TargetQueueDelay"),
	NP_ROW(NIC_PT_TIMEVAL, "1us", target_qdelay_margin, CC, "TargetQueueDelayMargin"),
	NP_ROW(NIC_PT_BOOL, "false", disable_quick_adapt, CC, "DisableQuickAdapt"),
	NP_UINT("3", 0, 31, quick_adapt_gate, CC, "QuickAdaptGate"),
	NP_ROW(NIC_PT_TIMEVAL, "24us", quick_adapt_threshold, CC, "QuickAdaptThreshold"),
	NP_ROW(NIC_PT_BOOL, "false", override_max_cwnd, CC, "OverrideUetSpecMaxCWind"),
	NP_UINT("107", 1, 4096, max_cwnd_pkts, CC, "MaxCongestionWindow"),
	NP_DBL("25.0", 0.0, 100.0, recv_cong_low_pct, CC, "ReceiverCongestionLowThreshold"),
	NP_DBL("75.0", 0.0, 100.0, recv_cong_high_pct, CC, "ReceiverCongestionHighThreshold"),
	NP_ROW(NIC_PT_BOOL, "false", restore_cwnd_enable, CC, "RestoreCWindEnable"),
	NP_DBL("0.5", 0.001, 1.0, max_md_jump, CC, "MaxMultiplicativeDecreaseJump"),
	NP_DBL("4.0", 1.0, 100.0, alpha_mult, CC, "AlphaMultiplier"),
	NP_DBL("5.0", 1.0, 100.0, fair_increase_mult, CC, "FairIncreaseMultiplier"),
	NP_DBL("1.0", 0.01, 100.0, fast_increase_mult, CC, "FastIncreaseMultiplier"),
	NP_DBL("0.15", 0.0, 1.0, eta_mult, CC, "EtaMultiplier"),
	NP_DBL("0.8", 0.001, 1.0, gamma, CC, "Gamma"),
	NP_DBL("0.25", 0.0, 1.0, delay_alpha, CC, "DelayAlpha"),

	NP_UINT("4096", 1, NP_MSS_MAX, rdma_data_mss, TPL, "SemanticLayer", "RdmaDataMSS"),

	NP_ROW(NIC_PT_BOOL, "false", monitor_enable, MON, "EnableUETMonitor"),
	NP_ROW(NIC_PT_FILTER_FEP, "All", filter_fep_id, MON, "FilterOnFepId"),
	NP_ROW(NIC_PT_FILTER_IP, "All", filter_local_ip, MON, "FilterOnLocalIp"),
	NP_ROW(NIC_PT_FILTER_IP, "All", filter_remote_ip, MON, "FilterOnRemoteIp"),
	NP_ROW(NIC_PT_FILTER_PDC, "All", filter_pdc, MON, "FilterOnPdc"),
	NP_ROW(NIC_PT_BOOL, "false", trigger_rtt_enable, MON, "TriggerLoggingOnRttEnable"),
	NP_ROW(NIC_PT_TIMEVAL, "100us", trigger_rtt_threshold, MON, "TriggerLoggingOnRttThreshold"),
	NP_ROW(NIC_PT_BOOL, "false", trigger_cwnd_pen, MON, "TriggerLoggingOnCWindPen"),
	NP_UINT("127", 0, 127, trigger_cwnd_pen_threshold, MON, "TriggerLoggingOnCWindPenThreshold"),
	NP_UINT("1", 0, 100, triggered_pdc_limit, MON, "TriggeredLoggingPDCLimit"),

	NP_ROW(NIC_PT_BYTES, "16KB", pcie_nic.rx_header_buffer, NIC_TL, "RXHeaderBufferSize"),
	NP_ROW(NIC_PT_BYTES, "16KB", pcie_nic.tx_header_buffer, NIC_TL, "TXHeaderBufferSize"),
	NP_ROW(NIC_PT_BYTES, "256KB", pcie_nic.rx_data_buffer, NIC_TL, "RXDataBufferSize"),
	NP_ROW(NIC_PT_BYTES, "256KB", pcie_nic.tx_data_buffer, NIC_TL, "TXDataBufferSize"),
	NP_ROW(NIC_PT_DATARATE, "31.52Gbps", pcie_nic.lane_bps, NIC_PL, "LaneBps"),
	NP_UINT("16", 1, 16, pcie_nic.lane_count, NIC_PL, "LaneCount"),
	NP_ROW(NIC_PT_BYTES, "16KB", pcie_host.rx_header_buffer, HOST_TL, "RXHeaderBufferSize"),
	NP_ROW(NIC_PT_BYTES, "16KB", pcie_host.tx_header_buffer, HOST_TL, "TXHeaderBufferSize"),
	NP_ROW(NIC_PT_BYTES, "256KB", pcie_host.rx_data_buffer, HOST_TL, "RXDataBufferSize"),
	NP_ROW(NIC_PT_BYTES, "256KB", pcie_host.tx_data_buffer, HOST_TL, "TXDataBufferSize"),
	NP_ROW(NIC_PT_DATARATE, "31.52Gbps", pcie_host.lane_bps, HOST_PL, "LaneBps"),
	NP_UINT("16", 1, 16, pcie_host.lane_count, HOST_PL, "LaneCount"),

	/* uetemu extension: the real-wire encapsulation (spec 1.1, 1.5). */
	NP_UINT("4793", 1, 65535, udp_port, ENC, "UdpDestinationPort"),
	NP_UINT("0", 0, 63, dscp.dscp[WIRE_ROLE_NO_TRIM], ENC, "DscpNoTrim"),
	NP_UINT("8", 0, 63, dscp.dscp[WIRE_ROLE_TRIMMABLE], ENC, "DscpTrimmable"),
	NP_UINT("10", 0, 63, dscp.dscp[WIRE_ROLE_TRIMMABLE_RTX], ENC, "DscpTrimmableRtx"),
	NP_UINT("16", 0, 63, dscp.dscp[WIRE_ROLE_TRIMMED], ENC, "DscpTrimmed"),
	NP_UINT("18", 0, 63, dscp.dscp[WIRE_ROLE_TRIMMED_LASTHOP], ENC, "DscpTrimmedLastHop"),
	NP_UINT("46", 0, 63, dscp.dscp[WIRE_ROLE_CONTROL], ENC, "DscpControl"),
	NP_ENUM("UDP", encap_names, NULL, encapsulation, ENC, "Encapsulation"),
	NP_ROW(NIC_PT_BOOL, "false", crc_trailer, ENC, "CrcTrailer"),
};

const unsigned nic_param_count = sizeof(nic_param_table) / sizeof(nic_param_table[0]);


static const char *np_name(const struct nic_param_def *d)
{
	int i = 0;

	while (i + 1 < NIC_PARAM_DEPTH && d->path[i + 1] != NULL)
		i++;
	return d->path[i];
}

static void *np_field(void *p, const struct nic_param_def *d)
{
	return (unsigned char *)p + d->off;
}


bool nic_param_is_list(const struct nic_param_def *d)
{
	return d->type == NIC_PT_LIST_FRAC || d->type == NIC_PT_LIST_UINT || d->type == NIC_PT_LIST_FLAG ||
	       d->type == NIC_PT_LIST_NUMFLAG;
}

static int np_range(const struct nic_param_def *d, uint64_t v, char *err, size_t errlen)
{
	if (v < d->min || v > d->max)
		return emu_param_fail(err, errlen, -ERANGE, "value %llu out of range %llu to %llu", (unsigned long long)v,
			       (unsigned long long)d->min, (unsigned long long)d->max);
	return 0;
}

/* The integer types: parse with the type's unit parser, check the row's range, store. */
static int np_set_int(void *p, const struct nic_param_def *d, const char *text, char *err,
		      size_t errlen)
{
	uint64_t v = 0;
	int rc;

	switch (d->type) {
	case NIC_PT_UINT: rc = emu_parse_uint(text, &v, err, errlen); break;
	case NIC_PT_DATARATE: rc = emu_parse_datarate(text, &v, err, errlen); break;
	case NIC_PT_TIMEVAL: rc = emu_parse_timeval(text, &v, err, errlen); break;
	default: rc = emu_parse_size(text, &v, err, errlen); break;
	}
	if (rc == 0)
		rc = np_range(d, v, err, errlen);
	if (rc == 0)
		emu_param_store_uint(np_field(p, d), d->size, v);
	return rc;
}

static int np_set_double(void *p, const struct nic_param_def *d, const char *text, char *err,
			 size_t errlen)
{
	double v;
	int rc = emu_parse_double(text, &v, err, errlen);

	if (rc != 0)
		return rc;
	if (v < d->dmin || v > d->dmax)
		return emu_param_fail(err, errlen, -ERANGE, "value %g out of range %g to %g", v, d->dmin, d->dmax);
	*(double *)np_field(p, d) = v;
	return 0;
}


static int np_set_enum(void *p, const struct nic_param_def *d, const char *text, char *err,
		       size_t errlen)
{
	char names[160];

	for (int i = 0; d->enums[i] != NULL; i++) {
		if (strcmp(d->enums[i], text) == 0) {
			emu_param_store_uint(np_field(p, d), d->size, (uint64_t)i);
			return 0;
		}
	}
	emu_param_join(names, sizeof(names), d->enums);
	if (d->refused != NULL && strcmp(d->refused, text) == 0)
		return emu_param_fail(err, errlen, -EINVAL, "'%s' stops the Scala UET NIC before the run starts; use %s", text,
			       names);
	return emu_param_fail(err, errlen, -EINVAL, "unknown value '%s'; %s takes %s", text, np_name(d), names);
}

/* The monitor filters: "All", or the one form the row names. */
static int np_set_filter(void *p, const struct nic_param_def *d, const char *text, char *err,
			 size_t errlen)
{
	static const char *const forms[] = { "a FEP id, e.g. 3", "an IPv4 address, e.g. 32.0.0.2",
					     "<IPv4>:<PDC id>, e.g. 32.0.0.2:4500" };
	const char *form = forms[d->type - NIC_PT_FILTER_FEP];
	const char *colon = strchr(text, ':');
	char ip[16];
	uint64_t v = 0;
	uint32_t a;
	int rc = 0;

	if (strcmp(text, "All") == 0)
		rc = 0;
	else if (d->type == NIC_PT_FILTER_FEP)
		rc = emu_parse_uint(text, &v, NULL, 0) != 0 || v > UINT32_MAX ? -EINVAL : 0;
	else if (d->type == NIC_PT_FILTER_IP)
		rc = emu_parse_ipv4(text, &a, NULL, 0);
	else if (colon == NULL || colon - text >= (ptrdiff_t)sizeof(ip))
		rc = -EINVAL;
	else {
		snprintf(ip, sizeof(ip), "%.*s", (int)(colon - text), text);
		rc = emu_parse_ipv4(ip, &a, NULL, 0) != 0 || emu_parse_uint(colon + 1, &v, NULL, 0) != 0 ||
		     v > UINT16_MAX ? -EINVAL : 0;
	}
	if (rc != 0 || strlen(text) >= d->size)
		return emu_param_fail(err, errlen, -EINVAL, "bad filter '%s'; %s is All or %s", text, np_name(d), form);
	memcpy(np_field(p, d), text, strlen(text) + 1);
	return 0;
}

static int np_set_list_str(void *p, const struct nic_param_def *d, const char *text, char *err,
			   size_t errlen)
{
	char items[NIC_TC_COUNT][EMU_LIST_ITEM_MAX];
	const char *ptr[NIC_TC_COUNT];
	char inner[200];
	int bad;
	int rc = emu_parse_list(text, items, NIC_TC_COUNT, d->def, err, errlen);

	if (rc != 0)
		return rc;
	for (int i = 0; i < NIC_TC_COUNT; i++)
		ptr[i] = items[i];
	rc = nic_param_set_list(p, d, ptr, NIC_TC_COUNT, &bad, inner, sizeof(inner));
	if (rc != 0)
		emu_param_fail(err, errlen, rc, "entry %d: %s", bad, inner);
	return rc;
}

int nic_param_set(void *p, const struct nic_param_def *d, const char *text, char *err, size_t errlen)
{
	bool b;
	int rc;

	if (d->readonly)
		return emu_param_fail(err, errlen, -EPERM, "read-only attribute; %s is always %s, remove it", np_name(d),
			       d->def);
	switch (d->type) {
	case NIC_PT_BOOL:
		rc = emu_parse_bool(text, &b, err, errlen);
		if (rc == 0)
			*(bool *)np_field(p, d) = b;
		return rc;
	case NIC_PT_DOUBLE: return np_set_double(p, d, text, err, errlen);
	case NIC_PT_ENUM: return np_set_enum(p, d, text, err, errlen);
	case NIC_PT_FILTER_FEP:
	case NIC_PT_FILTER_IP:
	case NIC_PT_FILTER_PDC: return np_set_filter(p, d, text, err, errlen);
	case NIC_PT_LIST_FRAC:
	case NIC_PT_LIST_UINT:
	case NIC_PT_LIST_FLAG:
	case NIC_PT_LIST_NUMFLAG: return np_set_list_str(p, d, text, err, errlen);
	default: return np_set_int(p, d, text, err, errlen);
	}
}

/* One list entry as a uint32 (fraction in ppm, or a uint in the row's range) or a flag. */
static int np_list_entry(const struct nic_param_def *d, const char *s, uint32_t *out, char *err, size_t errlen)
{
	uint64_t v = 0;
	int rc;

	if (d->type == NIC_PT_LIST_FRAC)
		return emu_parse_ppm(s, out, err, errlen);
	if (d->type == NIC_PT_LIST_FLAG) {
		/* The page: 1 enables PFC for the class, and any other value leaves it disabled. */
		*out = emu_parse_uint(s, &v, NULL, 0) == 0 && v == 1;
		return 0;
	}
	if (d->type == NIC_PT_LIST_NUMFLAG) { /* roce-nic-configuration.md: an entry that is not a number stops */
		double x;

		rc = emu_parse_double(s, &x, err, errlen);
		*out = rc == 0 && x == 1.0;
		return rc;
	}
	rc = emu_parse_uint(s, &v, err, errlen);
	if (rc == 0)
		rc = np_range(d, v, err, errlen);
	*out = (uint32_t)v;
	return rc;
}

int nic_param_set_list(void *p, const struct nic_param_def *d, const char *const *items, int n,
		       int *bad, char *err, size_t errlen)
{
	uint32_t v[NIC_TC_COUNT];
	void *f = np_field(p, d);

	*bad = -1;
	if (n != NIC_TC_COUNT)
		return emu_param_fail(err, errlen, -EINVAL, "%d entries; a list holds %d, one per traffic class, e.g. \"%s\"", n,
			       NIC_TC_COUNT, d->def);
	for (int i = 0; i < NIC_TC_COUNT; i++) {
		int rc = np_list_entry(d, items[i], &v[i], err, errlen);

		if (rc != 0) {
			*bad = i;
			return rc;
		}
	}
	for (int i = 0; i < NIC_TC_COUNT; i++)
		emu_param_store_uint((unsigned char *)f + (size_t)i * (d->size / NIC_TC_COUNT), d->size / NIC_TC_COUNT, v[i]);
	return 0;
}

void nic_param_table_defaults(void *p, size_t size, const struct nic_param_def *t, unsigned n)
{
	memset(p, 0, size);
	for (unsigned i = 0; i < n; i++) {
		if (t[i].readonly)
			continue;
		int rc = nic_param_set(p, &t[i], t[i].def, NULL, 0);

		assert(rc == 0); /* a default text that does not parse is a bug in the table */
		(void)rc;
	}
}

const struct nic_param_def *nic_param_row(const struct nic_param_def *t, unsigned n, size_t off)
{
	for (unsigned i = 0; i < n; i++)
		if (t[i].size != 0 && t[i].off == off)
			return &t[i];
	assert(0 && "no row for this field");
	return NULL;
}

void nic_params_defaults(struct nic_params *p)
{
	nic_param_table_defaults(p, sizeof(*p), nic_param_table, nic_param_count);
}

/* The row of the field at offset @p off. */
static const struct nic_param_def *np_row(size_t off)
{
	return nic_param_row(nic_param_table, nic_param_count, off);
}

#define NP_ROW_OF(f) np_row(offsetof(struct nic_params, f))

/* Buffer pools: at least two non-zero entries, the only pool rule that stops a run (uet-nic-configuration.md,
 * Configuration rules that stop a simulation); the shape and the sizes only warn (nic_params_warnings()). */
static int np_check_pool(const struct nic_buf_params *b, char *err, size_t errlen)
{
	int nz = 0;

	for (int i = 0; i < NIC_TC_COUNT; i++)
		nz += b->pool_alloc_ppm[i] != 0;
	if (nz < 2)
		return emu_param_fail(err, errlen, -EINVAL,
			       "%d non-zero entr%s; classes 0 and 1 each need a pool, e.g. [0.9, 0.1, 0, 0, 0, 0, 0, 0]",
			       nz, nz == 1 ? "y" : "ies");
	return 0;
}

/* Bytes of class @p tc's pool: its fraction of TotalBufferSize, rounded down. */
static uint64_t np_pool_bytes(const struct nic_buf_params *b, int tc)
{
	return (uint64_t)((unsigned __int128)b->total_buffer_size * b->pool_alloc_ppm[tc] / 1000000u);
}

/* One warning: @p why's row and the formatted text, into the next of @p out unless @p max are taken. */
__attribute__((format(printf, 5, 6))) static void np_warn(struct nic_warning *out, int max, int *n,
							  const struct nic_param_def *why, const char *fmt, ...)
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
static void np_warn_pool(const struct nic_buf_params *b, bool tx, const struct nic_param_def *why,
			 struct nic_warning *out, int max, int *n)
{
	static const char *const lost[2][2] = {
		{ "every data packet received is dropped", "every ACK, NACK and probe received is dropped" },
		{ "the NIC sends no data", "the NIC sends no ACK, NACK or probe" },
	};
	char gap[64] = "";

	for (int i = 0; i + 1 < NIC_TC_COUNT && gap[0] == '\0'; i++)
		if (b->pool_alloc_ppm[i] == 0 && b->pool_alloc_ppm[i + 1] != 0)
			snprintf(gap, sizeof(gap), "entry %d is 0 but entry %d is not; ", i, i + 1);
	for (int c = 0; c < 2; c++)
		if (b->pool_alloc_ppm[c] == 0)
			np_warn(out, max, n, why, "%sclass %d (%s) has no %s pool: %s", gap, c, c ? "control" : "data",
				tx ? "transmit" : "receive", lost[tx][c]);
}

/* The first buffer of a PCIe direction, transmit end @p tx to receive end @p rx, that cannot hold one transfer of
 * @p first payload bytes or its 16 B header; NULL when they all can. */
static const struct nic_param_def *np_pcie_short(const struct nic_pcie_params *tx, const struct nic_pcie_params *rx,
						 size_t tx_off, size_t rx_off, uint64_t first)
{
	if (tx->tx_header_buffer < 16)
		return np_row(tx_off + offsetof(struct nic_pcie_params, tx_header_buffer));
	if (tx->tx_data_buffer < first)
		return np_row(tx_off + offsetof(struct nic_pcie_params, tx_data_buffer));
	if (rx->rx_header_buffer < 16)
		return np_row(rx_off + offsetof(struct nic_pcie_params, rx_header_buffer));
	if (rx->rx_data_buffer < first)
		return np_row(rx_off + offsetof(struct nic_pcie_params, rx_data_buffer));
	return NULL;
}

/* PCIe buffers that stop a direction at run time (uet-nic-buffers-and-pfc.md, PCIe host interface: a transfer is sent
 * only when the receiving end has buffer space for it). */
static void np_warn_pcie(const struct nic_params *p, struct nic_warning *out, int max, int *n)
{
	size_t nic = offsetof(struct nic_params, pcie_nic), host = offsetof(struct nic_params, pcie_host);
	uint64_t first = p->rdma_data_mss < 512 ? p->rdma_data_mss : 512;
	const struct nic_param_def *w;

	if ((w = np_pcie_short(&p->pcie_nic, &p->pcie_host, nic, host, first)) != NULL)
		np_warn(out, max, n, w, "cannot hold one NIC-to-host transfer (%llu B and a 16 B header); received "
			"data never reaches the host, and read requests need the headers", (unsigned long long)first);
	if ((w = np_pcie_short(&p->pcie_host, &p->pcie_nic, host, nic, first)) != NULL)
		np_warn(out, max, n, w, "cannot hold one host-to-NIC transfer (%llu B and a 16 B header); no payload "
			"reaches the NIC, so it sends no data", (unsigned long long)first);
	else if (p->pcie_nic.rx_data_buffer < p->rdma_data_mss)
		np_warn(out, max, n, np_row(nic + offsetof(struct nic_pcie_params, rx_data_buffer)), "%llu B is less "
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

int nic_params_check(const struct nic_params *p, const struct nic_param_def *why[NIC_CHECK_WHY_MAX], char *err,
		     size_t errlen)
{
	uint32_t ovh = wire_data_overhead(nic_params_encap(p));
	uint64_t pkt = (uint64_t)p->rdma_data_mss + ovh;
	int rc;

	for (int i = 0; i < NIC_CHECK_WHY_MAX; i++)
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
