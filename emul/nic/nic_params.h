/* The Scala UET NIC's attributes (spec/scala/uet-nic-configuration.md), parsed once into this immutable struct.
 *
 * Field comments give the Scala attribute and its path under the NIC's typedParameters. Rates are bit/s, times
 * picoseconds, sizes bytes; fractions of a pool are parts per million so the models stay integer.
 */
#ifndef NIC_PARAMS_H
#define NIC_PARAMS_H

#include <stdbool.h>
#include <stdint.h>

#include "emu_time.h"
#include "wire.h"

#define NIC_TC_COUNT 8

enum nic_qsched { NIC_QSCHED_STRICT = 0, NIC_QSCHED_RR, NIC_QSCHED_WRR };
enum nic_spray { NIC_SPRAY_NONE = 0, NIC_SPRAY_DEFAULT, NIC_SPRAY_REPS };

/** One buffer manager (IngressBufferManager or EgressBufferManager). */
struct nic_buf_params {
	uint64_t total_buffer_size;              /* TotalBufferSize */
	uint8_t queue_scheduling;                /* QueueSchedulingType, enum nic_qsched */
	uint32_t pool_alloc_ppm[NIC_TC_COUNT];   /* PoolAllocationVector, fraction x 1e6 */
	uint32_t wrr_weights[NIC_TC_COUNT];      /* WRRQueueWeights */
	/* Ingress only: */
	uint8_t pfc_enable[NIC_TC_COUNT];        /* PFCEnableVector */
	uint32_t pfc_xoff_ppm[NIC_TC_COUNT];     /* PfcStaticXoffThreshold */
	uint32_t pfc_xon_ppm[NIC_TC_COUNT];      /* PfcXonResumeThreshold */
	uint32_t quanta[NIC_TC_COUNT];           /* QuantaValue */
};

/** One end of the PCIe link (HostInterface.NICSide or HostInterface.HostSide . PCIeGen3.0 ...). */
struct nic_pcie_params {
	uint64_t rx_header_buffer;  /* ...TransactionLayer.RXHeaderBufferSize */
	uint64_t tx_header_buffer;  /* ...TransactionLayer.TXHeaderBufferSize */
	uint64_t rx_data_buffer;    /* ...TransactionLayer.RXDataBufferSize */
	uint64_t tx_data_buffer;    /* ...TransactionLayer.TXDataBufferSize */
	uint64_t lane_bps;          /* ...PhysicalLayer.LaneBps */
	uint32_t lane_count;        /* ...PhysicalLayer.LaneCount, 1..16 */
};

struct nic_params {
	/* NIC top level */
	bool enable_buffer_stats;     /* EnableBufferStats */
	bool enable_transport_stats;  /* EnableTransportStats */
	bool enable_event_logging;    /* EnableEventLogging */

	/* NetworkInterface */
	uint64_t data_rate_bps;       /* UplinkNetworkInterface.DataRate */
	emu_ps_t delay_ps;            /* TransmissionMedium.Delay */
	struct nic_buf_params ingress;  /* IngressBufferManager */
	struct nic_buf_params egress;   /* EgressBufferManager */

	/* TransportProcessingLayers.ScalaUETPdsManager */
	bool trimming_enabled;              /* TrimmingEnabled */
	bool use_distinct_dscp_rtx;         /* UseDistinctDSCPForRetransmits */
	bool pdc_groups_enabled;            /* PDCGroupsEnabled */
	bool prefetch_enable;               /* PrefetchBufferEnable */
	uint32_t prefetch_size;             /* PrefetchBufferSize */
	uint8_t spraying;                   /* PacketSprayingType, enum nic_spray */
	uint32_t failure_detection_rtt_mult;/* FailureDetectionRTTMultiplier */
	emu_ps_t initial_rto;               /* InitialRetransmitTimeout */
	uint32_t max_rto_backoff;           /* MaxExponentialRTOBackoffCount, 0..15 */
	bool fixed_rexmit_enable;           /* FixedRexmitTimeEnable */
	emu_ps_t fixed_rexmit_timeout;      /* FixedRexmitTimeout */
	bool ack_req_first;                 /* AckRequestFirstPacket */
	bool ack_req_last;                  /* AckRequestLastPacket */
	uint32_t ack_req_every_nth;         /* AckRequestEveryNthPacket, 1..1024 */

	/* TransportProcessingLayers.PacketSpraying.DefaultPacketSpraying */
	uint32_t entropy_mask_bits;         /* EntropyMaskBits, 0..8 */
	uint32_t starting_port_offset;      /* StartingPortOffset, 0..65535 */
	/* TransportProcessingLayers.PacketSpraying.RecycledEntropyPacketSpraying */
	uint32_t reps_buffer_mask_bits;     /* REPSBufferSizeMaskBits, 0..16 */
	uint32_t entropy_value_set_size;    /* EntropyValueSetSize, 1..65536 */
	emu_ps_t freezing_timeout;          /* FreezingTimeout */

	/* TransportProcessingLayers.ScalaUETCongestionControl */
	bool cc_pass_through;               /* PassThrough */
	bool nscc_enable;                   /* NSCCEnable */
	emu_ps_t initial_base_rtt;          /* InitialBaseRTT */
	emu_ps_t reference_network_rtt;     /* ReferenceNetworkRTT */
	uint64_t reference_link_bps;        /* ReferenceNetworkLinkSpeed */
	bool override_target_qdelay;        /* OverrideSpecTargetQueueDelay */
	emu_ps_t target_qdelay;             /* TargetQueueDelay */
	emu_ps_t target_qdelay_margin;      /* TargetQueueDelayMargin */
	bool disable_quick_adapt;           /* DisableQuickAdapt */
	uint32_t quick_adapt_gate;          /* QuickAdaptGate, 0..31 */
	emu_ps_t quick_adapt_threshold;     /* QuickAdaptThreshold */
	bool override_max_cwnd;             /* OverrideUetSpecMaxCWind */
	uint32_t max_cwnd_pkts;             /* MaxCongestionWindow, 1..4096 */
	double recv_cong_low_pct;           /* ReceiverCongestionLowThreshold */
	double recv_cong_high_pct;          /* ReceiverCongestionHighThreshold */
	bool restore_cwnd_enable;           /* RestoreCWindEnable */
	double max_md_jump;                 /* MaxMultiplicativeDecreaseJump */
	double alpha_mult;                  /* AlphaMultiplier */
	double fair_increase_mult;          /* FairIncreaseMultiplier */
	double fast_increase_mult;          /* FastIncreaseMultiplier */
	double eta_mult;                    /* EtaMultiplier */
	double gamma;                       /* Gamma */
	double delay_alpha;                 /* DelayAlpha */

	/* TransportProcessingLayers.SemanticLayer */
	uint32_t rdma_data_mss;             /* RdmaDataMSS */

	/* TransportProcessingLayers.ScalaUETMonitor */
	bool monitor_enable;                /* EnableUETMonitor */
	char filter_fep_id[32];             /* FilterOnFepId, "All" or a number */
	char filter_local_ip[32];           /* FilterOnLocalIp */
	char filter_remote_ip[32];          /* FilterOnRemoteIp */
	char filter_pdc[48];                /* FilterOnPdc */
	bool trigger_rtt_enable;            /* TriggerLoggingOnRttEnable */
	emu_ps_t trigger_rtt_threshold;     /* TriggerLoggingOnRttThreshold */
	bool trigger_cwnd_pen;              /* TriggerLoggingOnCWindPen */
	uint32_t trigger_cwnd_pen_threshold;/* TriggerLoggingOnCWindPenThreshold, 0..127 */
	uint32_t triggered_pdc_limit;       /* TriggeredLoggingPDCLimit, 0..100 */

	/* HostInterface */
	struct nic_pcie_params pcie_nic;    /* NICSide: NIC-to-host direction */
	struct nic_pcie_params pcie_host;   /* HostSide: host-to-NIC direction */

	/* uetemu extension, section UETEncapsulation: how frames look on a real wire (spec 1.1, 1.5). */
	uint16_t udp_port;                  /* UdpDestinationPort, default 4793 */
	struct wire_dscp_map dscp;          /* DscpNoTrim 0, DscpTrimmable 8, DscpTrimmableRtx 10, DscpTrimmed 16,
	                                       DscpTrimmedLastHop 18, DscpControl 46 */
};

/** Fill @p p with every documented Scala default (and the uetemu extension defaults). */
void nic_params_defaults(struct nic_params *p);

#endif /* NIC_PARAMS_H */
