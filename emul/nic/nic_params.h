/* The Scala UET NIC's attributes (spec/scala/uet-nic-configuration.md), parsed once into this immutable struct.
 *
 * Field comments give the Scala attribute and its path under the NIC's typedParameters. Rates are bit/s, times
 * picoseconds, sizes bytes; fractions of a pool are parts per million so the models stay integer.
 */
#ifndef NIC_PARAMS_H
#define NIC_PARAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "emu_time.h"
#include "port_params.h"
#include "wire.h"

enum nic_spray { NIC_SPRAY_NONE = 0, NIC_SPRAY_DEFAULT, NIC_SPRAY_REPS };
enum nic_encap { NIC_ENCAP_UDP = 0, NIC_ENCAP_NATIVE_IPV4 };



struct nic_params {
	/* NIC top level */
	bool enable_buffer_stats;     /* EnableBufferStats */
	bool enable_transport_stats;  /* EnableTransportStats */
	bool enable_event_logging;    /* EnableEventLogging */

	/* NetworkInterface */
	uint64_t data_rate_bps;       /* UplinkNetworkInterface.DataRate */
	emu_ps_t delay_ps;            /* TransmissionMedium.Delay */
	struct port_buf_params ingress;  /* IngressBufferManager */
	struct port_buf_params egress;   /* EgressBufferManager */

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
	struct port_pcie_params pcie_nic;    /* NICSide: NIC-to-host direction */
	struct port_pcie_params pcie_host;   /* HostSide: host-to-NIC direction */

	/* uetemu extension, section UETEncapsulation: how frames look on a real wire (spec 1.1, 1.5). */
	uint16_t udp_port;                  /* UdpDestinationPort, default 4793 */
	struct wire_dscp_map dscp;          /* DscpNoTrim 0, DscpTrimmable 8, DscpTrimmableRtx 10, DscpTrimmed 16,
	                                       DscpTrimmedLastHop 18, DscpControl 46 */
	uint8_t encapsulation;              /* Encapsulation: UDP (default) or NativeIPv4, enum nic_encap */
	bool crc_trailer;                   /* CrcTrailer, default false */

	/*
	 * The UET 1.0 forms this NIC answers in, for a peer profile (not yet in the config: every field's 0 is the
	 * Scala pages' form, byte for byte; docs/wire.md, "What the NIC model does with them").
	 */
	uint8_t ack_form;                   /* enum nic_ack_form: the PDS type of the data ACKs it sends */
	bool ack_ses_response;              /* data ACKs carry a 12 B SES response (next_hdr RESPONSE, RC_OK), as the
					       UEC reference provider's do on every data ACK */
	uint32_t ses_job_id;                /* job_id (24 bits) of the SES requests it sends (the reference provider: 1) */
	uint16_t ses_pid_on_fep;            /* pid_on_fep (12 bits) of them (the reference provider: 0) */
	uint16_t ses_resource_index;        /* resource_index (12 bits) of them (the reference provider: 15) */

	/*
	 * uetemu-only section TestFaults: deliberate departures from UET 1.0 in what the NIC answers, for testing a
	 * conformance tool (uetemu conform, docs/conform.md) against a uetemu that misbehaves on purpose. Never for
	 * a scenario. All false by default: the answers are then UET 1.0's, byte for byte.
	 */
	bool fault_no_sack;                 /* NoSack: every ACK's SACK bitmap is sent empty */
	bool fault_wrong_nack_code;         /* WrongNackCode: every NACK carries NO_RESOURCE (0x0A) whatever its cause */
	bool fault_no_ses_response;         /* NoSesResponse: no SES response header on any ACK or RUDI response */
	bool fault_no_ecn_echo;             /* NoEcnEcho: the M flag (ECN-CE seen) is never set on an answer */
};

/* The PDS type of the data ACKs a NIC sends: ACK_CC with NSCC state (the Scala pages'), or the plain 12 B ACK. */
enum nic_ack_form { NIC_ACK_FORM_CC = 0, NIC_ACK_FORM_PLAIN };

/** The wire.h encapsulation flags (WIRE_ENCAP_*) of the UET frames a NIC with @p p sends and expects. */
static inline uint8_t nic_params_encap(const struct nic_params *p)
{
	return (uint8_t)((p->encapsulation == NIC_ENCAP_NATIVE_IPV4 ? WIRE_ENCAP_NATIVE : 0) |
			 (p->crc_trailer ? WIRE_ENCAP_CRC : 0));
}

/** Fill @p p with every documented Scala default (and the uetemu extension defaults). */
void nic_params_defaults(struct nic_params *p);

/*
 * The attribute table: one row per attribute of the configuration page (and of UETEncapsulation), giving its path,
 * type, default text, range and field. nic_params_defaults() parses the default texts with the same parsers as a
 * config file, so a default and a configured value cannot mean different things.
 */




/** The table, in the order of the configuration page; nic_param_count rows. */
extern const struct port_param_def nic_param_table[];
extern const unsigned nic_param_count;






/**
 * Check the rules of the configuration page that stop a run and need more than one attribute or a list's shape:
 * a PoolAllocationVector with fewer than two non-zero entries, PrefetchBufferSize against RdmaDataMSS.
 * Returns 0, or -EINVAL with "<what>; <suggestion>" in @p err and, in @p why, up to PORT_CHECK_WHY_MAX rows of the
 * attributes involved, the one to blame first (NULL after the last).
 */
int nic_params_check(const struct nic_params *p, const struct port_param_def *why[PORT_CHECK_WHY_MAX], char *err,
		     size_t errlen);

#define NIC_WARN_LEN 240

/** A setting the pages accept that leaves part of the NIC idle at run time, and the attribute to look at. */
struct nic_warning {
	const struct port_param_def *why;
	char text[NIC_WARN_LEN]; /* "<what>; <what the NIC then does>" */
};

/**
 * The settings the configuration page does not list among the rules that stop a run but that leave the NIC unable
 * to do part of its work: class 0 or 1 without a receive or transmit pool (a PoolAllocationVector whose non-zero
 * entries do not come first), an egress data pool smaller than one data packet (uet-nic-buffers-and-pfc.md, Egress
 * buffer: the NIC stops sending data), an egress control pool smaller than one ACK, PCIe transaction-layer buffers
 * that cannot hold one transfer, or a NIC-side RXDataBufferSize below one segment's completion. Up to @p max into
 * @p out; returns how many.
 */
int nic_params_warnings(const struct nic_params *p, struct nic_warning *out, int max);

#endif /* NIC_PARAMS_H */
