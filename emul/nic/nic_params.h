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
#include "wire.h"

#define NIC_TC_COUNT 8

enum nic_qsched { NIC_QSCHED_STRICT = 0, NIC_QSCHED_RR, NIC_QSCHED_WRR };
enum nic_spray { NIC_SPRAY_NONE = 0, NIC_SPRAY_DEFAULT, NIC_SPRAY_REPS };
enum nic_encap { NIC_ENCAP_UDP = 0, NIC_ENCAP_NATIVE_IPV4 };

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

#define NIC_PARAM_DEPTH 8 /* path components, NULL-terminated: the deepest (PCIe) paths have 7 */

enum nic_ptype {
	NIC_PT_BOOL = 0,
	NIC_PT_UINT,
	NIC_PT_DOUBLE,
	NIC_PT_DATARATE,
	NIC_PT_TIMEVAL,
	NIC_PT_BYTES,      /* bytes and queuesize */
	NIC_PT_ENUM,       /* string with a fixed set of values; the index is stored as uint8_t */
	NIC_PT_FILTER_FEP, /* string: "All" or a FEP id */
	NIC_PT_FILTER_IP,  /* string: "All" or a dotted IPv4 address */
	NIC_PT_FILTER_PDC, /* string: "All" or "<IPv4>:<PDC id>" */
	NIC_PT_LIST_FRAC,  /* list string of 8 fractions 0..1, stored as uint32_t ppm */
	NIC_PT_LIST_UINT,  /* list string of 8 uints in [min, max], stored as uint32_t */
	NIC_PT_LIST_FLAG,  /* list string of 8 entries, stored as uint8_t: 1 for an entry equal to 1, else 0 */
	NIC_PT_LIST_NUMFLAG, /* as LIST_FLAG, but every entry must be a number (the RoCE NIC's PFCEnableVector) */
};

/** One attribute. */
struct nic_param_def {
	const char *path[NIC_PARAM_DEPTH]; /* Scala path under the NIC's typedParameters, attribute last */
	uint8_t type;                      /* enum nic_ptype */
	bool readonly;                     /* NumDownLinks: setting it is an error */
	const char *def;                   /* Default, written as the page writes it */
	uint64_t min, max;                 /* range of a uint (of each entry for NIC_PT_LIST_UINT), sizes, rates, times */
	double dmin, dmax;                 /* range of a double */
	const char *const *enums;          /* NIC_PT_ENUM: the accepted values, NULL-terminated */
	const char *refused;               /* NIC_PT_ENUM: a value the page names that stops the run, or NULL */
	size_t off, size;                  /* field in struct nic_params; size 0 = accepted but not stored */
};

/** The table, in the order of the configuration page; nic_param_count rows. */
extern const struct nic_param_def nic_param_table[];
extern const unsigned nic_param_count;

/** True for the list types, which also accept their 8 entries one by one (nic_param_set_list()). */
bool nic_param_is_list(const struct nic_param_def *d);

/**
 * Parse @p text as the attribute @p d and store it in @p p, the struct the row's offset points into (struct
 * nic_params for nic_param_table, struct roce_params for roce_param_table: the two NIC models share the parsers).
 * A list attribute takes its Scala list string
 * "[a, b, c, d, e, f, g, h]".
 * Returns 0; -EPERM for a read-only attribute; -EINVAL or -ERANGE for a bad or out-of-range value. The message,
 * "<what>; <suggestion>" without the attribute's path, is written into @p err (size @p errlen).
 */
int nic_param_set(void *p, const struct nic_param_def *d, const char *text, char *err, size_t errlen);

/** Every writable field of @p p (a struct of @p size bytes, zeroed first) set to its default text from table @p t
 *  of @p n rows, by nic_param_set(): a NIC model's parameters at their defaults. */
void nic_param_table_defaults(void *p, size_t size, const struct nic_param_def *t, unsigned n);

/** The row of table @p t (@p n rows) for the field at offset @p off; a missing row is a bug (asserted). */
const struct nic_param_def *nic_param_row(const struct nic_param_def *t, unsigned n, size_t off);

/**
 * Store the @p n entries @p items of the list attribute @p d (n must be NIC_TC_COUNT). On error, @p bad receives
 * the index of the bad entry (or -1 for a wrong count). Returns 0, -EINVAL or -ERANGE, message as nic_param_set().
 */
int nic_param_set_list(void *p, const struct nic_param_def *d, const char *const *items, int n,
		       int *bad, char *err, size_t errlen);

#define NIC_CHECK_WHY_MAX 3

/**
 * Check the rules of the configuration page that stop a run and need more than one attribute or a list's shape:
 * a PoolAllocationVector with fewer than two non-zero entries, PrefetchBufferSize against RdmaDataMSS.
 * Returns 0, or -EINVAL with "<what>; <suggestion>" in @p err and, in @p why, up to NIC_CHECK_WHY_MAX rows of the
 * attributes involved, the one to blame first (NULL after the last).
 */
int nic_params_check(const struct nic_params *p, const struct nic_param_def *why[NIC_CHECK_WHY_MAX], char *err,
		     size_t errlen);

#define NIC_WARN_LEN 240

/** A setting the pages accept that leaves part of the NIC idle at run time, and the attribute to look at. */
struct nic_warning {
	const struct nic_param_def *why;
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
