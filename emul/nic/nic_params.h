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
	uint64_t rate_limit_bps;      /* uetemu's own EgressShaper.RateLimit: the host's send rate limit, 0 none */
	uint64_t rate_limit_burst;    /* EgressShaper.BurstSize: the shaper's bucket, bytes */
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
	 * The UET 1.0 forms this NIC answers in, set by a peer profile (UETEncapsulation.AckForm, SesJobId, SesPidOnFep,
	 * SesResourceIndex; every field's 0 is the Scala pages' form, byte for byte; docs/wire.md, Peer profiles).
	 */
	uint8_t ack_form;                   /* enum nic_ack_form: the PDS type of the data ACKs it sends */
	bool ack_ses_response;              /* data ACKs carry a 12 B SES response (next_hdr RESPONSE, RC_OK), as the
					       UEC reference provider's do on every data ACK */
	uint32_t ses_job_id;                /* job_id (24 bits) of the SES requests it sends (the reference provider: 1) */
	uint16_t ses_pid_on_fep;            /* pid_on_fep (12 bits) of them (the reference provider: 0) */
	uint16_t ses_resource_index;        /* resource_index (12 bits) of them (the reference provider: 15) */

	/* uetemu extension, a peer profile (docs/wire.md, Peer profiles): UETEncapsulation's keys below, and
	 * PeerProfile, which sets them all at once for a named implementation (nic_params_profile()). */
	uint8_t peer_profile;               /* PeerProfile: enum nic_profile */
	uint8_t req_form;                   /* RequestForm: enum nic_req_form */
	uint8_t ack_ses_mode;               /* AckSesResponse: enum nic_ses_rsp */
	uint32_t ses_initiator;             /* SesInitiator: the SES initiator field; 0 = the host's FEP id */
	uint8_t crc_coverage;               /* CrcCoverage: enum nic_crc_cov */
	uint8_t ttl;                        /* Ttl, 1..255 */
	uint8_t ecn;                        /* Ecn: enum nic_ecn */
	uint8_t start_psn;                  /* StartPsn: enum nic_start_psn */

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

/* PeerProfile: none (the keys as written), or the UEC reference provider's defaults over them. */
enum nic_profile { NIC_PROFILE_NONE = 0, NIC_PROFILE_REFPROV };
/* RequestForm: the PDS type of the data requests sent. */
enum nic_req_form { NIC_REQ_RUD_CC = 0, NIC_REQ_RUD, NIC_REQ_ROD };
/* AckSesResponse: when a data ACK carries a 12 B SES response. WhenAsked: to a request of a form without CC state
 * (RUD_REQ, ROD_REQ: the reference provider's), a plain ACK with a response, whatever AckForm says. */
enum nic_ses_rsp { NIC_SES_RSP_NEVER = 0, NIC_SES_RSP_WHEN_ASKED, NIC_SES_RSP_ALWAYS };
/* CrcCoverage: the trailer over the UET bytes (PDS .. payload), or from the IPv4 source address (refprov). */
enum nic_crc_cov { NIC_CRC_COV_UETEMU = 0, NIC_CRC_COV_REFPROV };
/* Ecn: the ECN field of every frame sent. */
enum nic_ecn { NIC_ECN_ECT1 = 0, NIC_ECN_ECT0, NIC_ECN_NOT_ECT };
/* StartPsn: each sending PDC's Start_PSN, drawn from the NIC's random stream: any 32-bit value, or in
 * [2^16, 2^31) as the reference provider draws it. */
enum nic_start_psn { NIC_START_PSN_RANDOM = 0, NIC_START_PSN_REFPROV };

/** The IPv4 ECN bits (WIRE_ECN_*) of @p p's Ecn. */
static inline uint8_t nic_params_ecn(const struct nic_params *p)
{
	return p->ecn == NIC_ECN_NOT_ECT ? WIRE_ECN_NOT_ECT : p->ecn == NIC_ECN_ECT0 ? WIRE_ECN_ECT0 : WIRE_ECN_ECT1;
}

/**
 * Apply peer profile @p profile (enum nic_profile) to @p p: NONE leaves it; REFPROV sets what the UEC reference
 * provider sends and expects (native IPv4, the refprov CRC trailer, RUD_REQ, plain ACKs with SES responses, SES job 1,
 * pid_on_fep 0, resource index 15, initiator 16, TTL 64, DSCP 0 on data and 46 on control, ECN not-ECT, Start_PSN in
 * [2^16, 2^31), RdmaDataMSS 1024). Returns 0, or -EINVAL for an unknown profile.
 */
int nic_params_profile(struct nic_params *p, unsigned profile);

/* The PDS type of the data ACKs a NIC sends: ACK_CC with NSCC state (the Scala pages'), or the plain 12 B ACK. */
enum nic_ack_form { NIC_ACK_FORM_CC = 0, NIC_ACK_FORM_PLAIN };

/** The wire.h encapsulation flags (WIRE_ENCAP_*) of the UET frames a NIC with @p p sends and expects. */
static inline uint8_t nic_params_encap(const struct nic_params *p)
{
	return (uint8_t)((p->encapsulation == NIC_ENCAP_NATIVE_IPV4 ? WIRE_ENCAP_NATIVE : 0) |
			 (p->crc_trailer ? WIRE_ENCAP_CRC : 0) |
			 (p->crc_trailer && p->crc_coverage == NIC_CRC_COV_REFPROV ? WIRE_ENCAP_CRC_IP : 0) |
			 (p->req_form != NIC_REQ_RUD_CC ? WIRE_ENCAP_PLAIN_REQ : 0));
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
