/* The Scala RoCE NIC's attributes (its configuration page), parsed once into this immutable struct.
 *
 * The table rows are the UET NIC's row type (struct port_param_def) and are parsed by the same setters
 * (port_param_set()), so both NIC models read a value the same way. Rates are bit/s, times picoseconds, sizes bytes,
 * pool fractions parts per million.
 */
#ifndef ROCE_PARAMS_H
#define ROCE_PARAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "emu_time.h"
#include "port_params.h"

/* Bytes on the wire around a data payload: BTH 12 + UDP 8 + IPv4 20 + Ethernet 14 + FCS 4 (transport page,
 * Packets on the wire). */
#define ROCE_DATA_OVERHEAD 58
/* The default global Mtu of the platform (GenericNetDevice.Mtu). */
#define ROCE_MTU_DEFAULT 4184
/* The largest MSS the page allows. */
#define ROCE_MSS_MAX 9216

struct roce_params {
	/* NIC top level */
	bool enable_buffer_stats;            /* EnableBufferStats */

	/* NetworkInterface */
	uint64_t data_rate_bps;              /* UplinkNetworkInterface.DataRate */
	emu_ps_t delay_ps;                   /* TransmissionMedium.Delay */
	uint64_t rate_limit_bps;             /* uetemu's own EgressShaper.RateLimit: the host's send rate limit, 0 none */
	uint64_t rate_limit_burst;           /* EgressShaper.BurstSize: the shaper's bucket, bytes */
	struct port_buf_params ingress;       /* IngressBufferManager */
	struct port_buf_params egress;        /* EgressBufferManager (the PFC lists unused) */

	/* HostInterface */
	struct port_pcie_params pcie_nic;     /* NICSide: NIC-to-host direction */
	struct port_pcie_params pcie_host;    /* HostSide: host-to-NIC direction */
	uint64_t read_request_size;          /* NICSide.NICPCIeHandler.ReadRequestSize */

	/* TransportProcessingLayers.RoceTransportLayer */
	emu_ps_t retransmit_timeout;         /* RetransmitTimeout */
	bool ack_coalescing;                 /* AckCoalescingEnabled */
	emu_ps_t ack_delay;                  /* AckDelay */
	uint32_t ack_threshold;              /* AckThreshold */

	/* ScalaRoceQpManager */
	uint32_t mss;                        /* MSS, 1..9216 B */

	/* ECNHandler */
	bool enable_ecn;                     /* EnableECN */
	double min_rate_frac;                /* MinimumRatePercentage, 0..1 */
	uint32_t fast_recovery_attempt;      /* FastRecoveryAttempt */
	double initial_target_rate_frac;     /* InitialTargetRatePercentage, 0..1 */
	uint32_t active_increase_steps;      /* NumberActiveIncreaseSteps, 1.. (a divisor) */
	uint32_t control_interval_ns;        /* ControlIntervalDurationNs, 2.. (the loop runs every half) */
	double cong_prob_weight;             /* CongestionProbabilityWeight, 0..1 */
	uint32_t loops_per_increase;         /* NumOfControlLoopsPerIncrease */

	/* uetemu extension, section RoCEEncapsulation: what real RoCE devices need that the pages leave out. */
	bool icrc;                           /* ICRC: append the invariant CRC (4 B) to every RoCE frame */
	bool reth;                           /* RETH: carry the 16 B RDMA extended header on WRITE FIRST / ONLY */
};

/** Fill @p p with every documented default (and the RoCEEncapsulation defaults, both off). */
void roce_params_defaults(struct roce_params *p);

/** The table, in the order of the configuration page; roce_param_count rows. */
extern const struct port_param_def roce_param_table[];
extern const unsigned roce_param_count;

/**
 * The rules of the configuration page that need more than one attribute: a PoolAllocationVector with no non-zero
 * entry; MSS + 58 B not smaller than the global @p mtu. Returns 0, or -EINVAL with "<what>; <suggestion>" in
 * @p err and the row to blame in @p why[0] (PORT_CHECK_WHY_MAX rows, NULL after the last).
 */
int roce_params_check(const struct roce_params *p, uint64_t mtu, const struct port_param_def *why[PORT_CHECK_WHY_MAX],
		      char *err, size_t errlen);

/** Bytes of class @p tc's pool in buffer @p b: its fraction of TotalBufferSize, rounded down. */
uint64_t roce_pool_bytes(const struct port_buf_params *b, uint32_t tc);

#endif /* ROCE_PARAMS_H */
