/* The Scala RoCE NIC attribute table (its configuration page), its defaults and its cross-attribute rules. */
#include "roce_params.h"

#include <assert.h>
#include <errno.h>
#include <string.h>

#include "emu_param.h"

#define RP_T struct roce_params
#define RP_ROW(...) PORT_PARAM_ROW(RP_T, __VA_ARGS__)
#define RP_RANGE(...) PORT_PARAM_RANGE(RP_T, __VA_ARGS__)
#define RP_DBL(...) PORT_PARAM_DBL(RP_T, __VA_ARGS__)
#define RP_ENUM(d, e, ...) PORT_PARAM_ENUM(RP_T, d, e, NULL, __VA_ARGS__)
#define RP_LIST(...) PORT_PARAM_LIST(RP_T, __VA_ARGS__)

#define NI PORT_PARAM_NI
#define IBM PORT_PARAM_IBM
#define EBM PORT_PARAM_EBM
#define RTL "TransportProcessingLayers", "RoceTransportLayer"
#define ECN "ECNHandler"
#define ENC "RoCEEncapsulation"

static const char *const qsched_names[] = { "StrictPriority", "RoundRobin", "WeightedRoundRobin", NULL };

const struct port_param_def roce_param_table[] = {
	{ .path = { "NumDownLinks" }, .type = PORT_PT_UINT, .readonly = true, .def = "1", .min = 1, .max = 1 },
	RP_ROW(PORT_PT_BOOL, "false", enable_buffer_stats, "EnableBufferStats"),

	RP_ROW(PORT_PT_DATARATE, "400Gbps", data_rate_bps, NI, "UplinkNetworkInterface", "DataRate"),
	RP_ROW(PORT_PT_TIMEVAL, "100ns", delay_ps, NI, "TransmissionMedium", "Delay"),
	RP_ROW(PORT_PT_RATE_LIMIT, "0", rate_limit_bps, "EgressShaper", "RateLimit"),
	RP_ROW(PORT_PT_BYTES, "0B", rate_limit_burst, "EgressShaper", "BurstSize"),
	RP_ROW(PORT_PT_BYTES, "4MB", ingress.total_buffer_size, IBM, "TotalBufferSize"),
	RP_ENUM("StrictPriority", qsched_names, ingress.queue_scheduling, IBM, "QueueSchedulingType"),
	RP_LIST(PORT_PT_LIST_FRAC, "[0.9, 0.1, 0, 0, 0, 0, 0, 0]", 0, ingress.pool_alloc_ppm, IBM,
		"PoolAllocationVector"),
	RP_LIST(PORT_PT_LIST_NUMFLAG, "[1, 1, 0, 0, 0, 0, 0, 0]", 0, ingress.pfc_enable, IBM, "PFCEnableVector"),
	RP_LIST(PORT_PT_LIST_UINT, "[1, 3, 0, 0, 0, 0, 0, 0]", UINT32_MAX, ingress.wrr_weights, IBM, "WRRQueueWeights"),
	PORT_PARAM_PFC_ROWS(RP_T),
	RP_ROW(PORT_PT_BYTES, "256KB", egress.total_buffer_size, EBM, "TotalBufferSize"),
	RP_ENUM("StrictPriority", qsched_names, egress.queue_scheduling, EBM, "QueueSchedulingType"),
	RP_LIST(PORT_PT_LIST_FRAC, "[0.9, 0.1, 0, 0, 0, 0, 0, 0]", 0, egress.pool_alloc_ppm, EBM,
		"PoolAllocationVector"),
	RP_LIST(PORT_PT_LIST_UINT, "[1, 3, 0, 0, 0, 0, 0, 0]", UINT32_MAX, egress.wrr_weights, EBM, "WRRQueueWeights"),

	PORT_PARAM_PCIE_ROWS(RP_T, pcie_nic, PORT_PARAM_NIC_PCIE),
	RP_ROW(PORT_PT_BYTES, "64B", read_request_size, "HostInterface", "NICSide", "NICPCIeHandler",
	       "ReadRequestSize"),
	PORT_PARAM_PCIE_ROWS(RP_T, pcie_host, PORT_PARAM_HOST_PCIE),

	/* "any time value is accepted": from 1 ps (a timer of 0 would expire in the instant it starts, forever) */
	RP_RANGE(PORT_PT_TIMEVAL, "64ms", 1, UINT64_MAX, retransmit_timeout, RTL, "RetransmitTimeout"),
	RP_ROW(PORT_PT_BOOL, "true", ack_coalescing, RTL, "AckCoalescingEnabled"),
	RP_RANGE(PORT_PT_TIMEVAL, "1ms", 1, UINT64_MAX, ack_delay, RTL, "AckDelay"),
	RP_RANGE(PORT_PT_UINT, "16", 0, UINT32_MAX, ack_threshold, RTL, "AckThreshold"),

	RP_RANGE(PORT_PT_BYTES, "4096B", 1, ROCE_MSS_MAX, mss, "ScalaRoceQpManager", "MSS"),

	RP_ROW(PORT_PT_BOOL, "true", enable_ecn, ECN, "EnableECN"),
	RP_DBL("0.10", 0.0, 1.0, min_rate_frac, ECN, "MinimumRatePercentage"),
	RP_RANGE(PORT_PT_UINT, "3", 0, UINT32_MAX, fast_recovery_attempt, ECN, "FastRecoveryAttempt"),
	RP_DBL("0.90", 0.0, 1.0, initial_target_rate_frac, ECN, "InitialTargetRatePercentage"),
	RP_RANGE(PORT_PT_UINT, "10", 1, UINT32_MAX, active_increase_steps, ECN, "NumberActiveIncreaseSteps"),
	RP_RANGE(PORT_PT_UINT, "45000", 2, UINT32_MAX, control_interval_ns, ECN, "ControlIntervalDurationNs"),
	RP_DBL("0.5", 0.0, 1.0, cong_prob_weight, ECN, "CongestionProbabilityWeight"),
	RP_RANGE(PORT_PT_UINT, "5", 0, UINT32_MAX, loops_per_increase, ECN, "NumOfControlLoopsPerIncrease"),

	RP_ROW(PORT_PT_BOOL, "false", icrc, ENC, "ICRC"),
	RP_ROW(PORT_PT_BOOL, "false", reth, ENC, "RETH"),
};

const unsigned roce_param_count = sizeof(roce_param_table) / sizeof(roce_param_table[0]);

void roce_params_defaults(struct roce_params *p)
{
	port_param_table_defaults(p, sizeof(*p), roce_param_table, roce_param_count);
}

static const struct port_param_def *rp_row(size_t off)
{
	return port_param_row(roce_param_table, roce_param_count, off);
}

#define RP_ROW_OF(f) rp_row(offsetof(struct roce_params, f))

uint64_t roce_pool_bytes(const struct port_buf_params *b, uint32_t tc)
{
	if (tc >= PORT_TC_COUNT)
		return 0;
	return (uint64_t)((unsigned __int128)b->total_buffer_size * b->pool_alloc_ppm[tc] / 1000000u);
}

static bool rp_no_pool(const struct port_buf_params *b)
{
	for (int i = 0; i < PORT_TC_COUNT; i++)
		if (b->pool_alloc_ppm[i] != 0)
			return false;
	return true;
}

int roce_params_check(const struct roce_params *p, uint64_t mtu, const struct port_param_def *why[PORT_CHECK_WHY_MAX],
		      char *err, size_t errlen)
{
	for (int i = 0; i < PORT_CHECK_WHY_MAX; i++)
		why[i] = NULL;
	if (rp_no_pool(&p->ingress) || rp_no_pool(&p->egress)) {
		why[0] = rp_no_pool(&p->ingress) ? RP_ROW_OF(ingress.pool_alloc_ppm) : RP_ROW_OF(egress.pool_alloc_ppm);
		return emu_param_fail(err, errlen, -EINVAL, "no non-zero entry; give classes a pool from class 0 up, "
				      "e.g. [0.9, 0.1, 0, 0, 0, 0, 0, 0]");
	}
	if ((uint64_t)p->mss + ROCE_DATA_OVERHEAD >= mtu) {
		why[0] = RP_ROW_OF(mss);
		return emu_param_fail(err, errlen, -EINVAL, "MSS %u + 58 B = %llu B is not smaller than the global Mtu "
				      "%llu B; lower MSS to %llu or less, or raise simulation.Mtu", p->mss,
				      (unsigned long long)p->mss + ROCE_DATA_OVERHEAD, (unsigned long long)mtu,
				      (unsigned long long)(mtu > ROCE_DATA_OVERHEAD ? mtu - ROCE_DATA_OVERHEAD - 1 : 0));
	}
	return 0;
}
