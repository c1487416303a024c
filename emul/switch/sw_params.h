/* The Scala Switch's attributes (spec/scala/switch-configuration.md), parsed once into this immutable struct.
 *
 * Field comments give the Scala attribute and its path under the switch's typedParameters. Rates are bit/s,
 * times picoseconds, sizes bytes; fractions (and LossyAlpha) are parts per million so the models stay integer;
 * per-class and per-pool lists are 8-entry arrays indexed by traffic class or pool number.
 */
#ifndef SW_PARAMS_H
#define SW_PARAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "emu_time.h"

#define SW_TC_COUNT 8   /* traffic classes TC0..TC7 */
#define SW_POOL_COUNT 8 /* buffer pools 0..7 */
#define SW_PPM 1000000u /* one, in parts per million */

/* EcmpHashMethod, in the order the page lists them (the index is what is stored). */
enum sw_hash_method {
	SW_HASH_DPR = 0,
	SW_HASH_HASH,
	SW_HASH_HASH_SALT,
	SW_HASH_CRC32,
	SW_HASH_CRC32_SALT,
	SW_HASH_DPR_FALLBACK,
	SW_HASH_COUNT
};

/* LoadBalancingMethod. */
enum sw_lb_method { SW_LB_NONE = 0, SW_LB_FLOWLET };

struct sw_params {
	/* Switch (top level) */
	uint32_t num_uplinks;               /* NumUpLinks, advisory */
	uint32_t num_downlinks;             /* NumDownLinks, advisory */
	uint32_t num_uplinks_per_switch;    /* NumUpLinksPerSwitch */
	uint64_t switching_capacity_bps;    /* SwitchingCapacity: compared with the port speeds, never a limit */
	uint8_t ecmp_hash;                  /* EcmpHashMethod, enum sw_hash_method */
	uint8_t lb_method;                  /* LoadBalancingMethod, enum sw_lb_method */
	bool lb_stats_enabled;              /* EnableLoadBalancingStats */
	emu_ps_t lb_stats_interval;         /* LoadBalancingStatsReportInterval, at least 10 us */
	bool per_port_buffer_stats;         /* ReportPerPortBufferStats: the scala-switch-buff-stats record */

	/* NetworkInterface */
	uint64_t uplink_bps;                /* UplinkNetworkInterface.DataRate */
	uint64_t downlink_bps;              /* DownlinkNetworkInterface.DataRate */
	emu_ps_t delay_ps;                  /* TransmissionMedium.Delay */

	/* PacketTrimmer */
	bool trimming_enabled;              /* TrimmingEnabled */
	bool trimming_stats_enabled;        /* TrimmingStatsEnabled */

	/* LoadBalancingFlowlet */
	emu_ps_t flowlet_gap;               /* Gap, 0 s to 2 s */
	bool flowlet_pfc_aware;             /* PFCAware */

	/* SharedBufferManager */
	uint64_t total_buffer;              /* TotalSharedBufferSize */
	bool uet_policy;                    /* UETPolicyEnabled */
	uint32_t pool_alloc_ppm[SW_POOL_COUNT]; /* PoolAllocationMap, fraction x 1e6, index = pool */
	uint8_t tc_pool[SW_TC_COUNT];       /* TrafficClassPoolMapping, index = class, value = pool 0..7 */
	uint8_t pfc_enable[SW_TC_COUNT];    /* EnablePFC: 1 = lossless */
	uint64_t headroom_per_port;         /* HeadRoomPerPortLimit */
	uint64_t xoff;                      /* StaticPoolXoffThreshold */
	uint64_t xon;                       /* StaticPoolXonThreshold */
	uint64_t lossy_alpha_ppm;           /* LossyAlpha x 1e6; 0 selects a fixed egress limit */
	bool qdt_enable;                    /* QueueDropThresholdEnable */
	uint32_t qdt;                       /* QueueDropThreshold, a multiple of PlaneBDP */
	uint64_t plane_bdp;                 /* PlaneBDP */
	emu_ps_t buffer_stats_interval;     /* BufferStatsReportInterval */

	/* EcnHandler */
	bool ecn_enabled;                   /* EnableEcn */
	uint32_t ewma_weight_ppm;           /* EwmaWeight */
	uint32_t ecn_min_ppm;               /* MinThreshold, fraction of the static egress limit */
	uint32_t ecn_max_ppm;               /* MaxThreshold */
	uint32_t ecn_max_prob_ppm;          /* MaxMarkProbability */
};

/** Fill @p p with every documented Scala default. */
void sw_params_defaults(struct sw_params *p);

/*
 * The attribute table: one row per attribute of the configuration page, giving its path, API type, default text,
 * range and field. sw_params_defaults() parses the default texts with the same parsers (emu_units.h) as a config
 * file, so a default and a configured value cannot mean different things.
 */

#define SW_PARAM_DEPTH 4 /* path components, NULL-terminated: the deepest (NetworkInterface.X.DataRate) have 3 */

enum sw_ptype {
	SW_PT_BOOL = 0,
	SW_PT_UINT,       /* whole number in [min, max], stored in an unsigned field of its size */
	SW_PT_FRAC,       /* double 0.0..1.0, stored as uint32_t ppm */
	SW_PT_ALPHA,      /* double >= 0 (LossyAlpha), stored as uint64_t ppm; max is in ppm */
	SW_PT_DATARATE,
	SW_PT_TIMEVAL,
	SW_PT_BYTES,
	SW_PT_ENUM,       /* string with a fixed set of values; the index is stored as uint8_t */
	SW_PT_LIST_FRAC,  /* list string of 8 fractions 0..1, stored as uint32_t ppm (PoolAllocationMap) */
	SW_PT_LIST_POOL,  /* list string of 8 whole numbers 0..7, stored as uint8_t (TrafficClassPoolMapping) */
	SW_PT_LIST_FLAG,  /* list string of 8 whole numbers, stored as uint8_t: 1 for an entry equal to 1, else 0 */
};

/** One attribute. */
struct sw_param_def {
	const char *path[SW_PARAM_DEPTH]; /* Scala path under the switch's typedParameters, attribute last */
	uint8_t type;                     /* enum sw_ptype */
	const char *api;                  /* the attribute's "type" in the Scala API: uint, bool, datarate, ... */
	const char *def;                  /* Default, written as the page writes it */
	uint64_t min, max;                /* range of a uint, size, rate, time, or ALPHA (ppm) */
	const char *const *enums;         /* SW_PT_ENUM: the accepted values, NULL-terminated */
	size_t off, size;                 /* field in struct sw_params */
};

/** The table, in the order of the configuration page; sw_param_count rows. */
extern const struct sw_param_def sw_param_table[];
extern const unsigned sw_param_count;

/** True for the list types, which also accept their 8 entries one by one (sw_param_set_list()). */
bool sw_param_is_list(const struct sw_param_def *d);

/**
 * Parse @p text as the attribute @p d and store it in @p p. A list attribute takes its Scala list string
 * "[a, b, c, d, e, f, g, h]".
 * Returns 0, or -EINVAL / -ERANGE for a bad or out-of-range value, with "<what>; <suggestion>" (without the
 * attribute's path) written into @p err (size @p errlen).
 */
int sw_param_set(struct sw_params *p, const struct sw_param_def *d, const char *text, char *err, size_t errlen);

/**
 * Store the @p n entries @p items of the list attribute @p d (n must be 8). On error, @p bad receives the index
 * of the bad entry (or -1 for a wrong count). Returns 0, -EINVAL or -ERANGE, message as sw_param_set().
 */
int sw_param_set_list(struct sw_params *p, const struct sw_param_def *d, const char *const *items, int n, int *bad,
		      char *err, size_t errlen);

/** The row of attribute @p name under @p parent (NULL for the top level), or NULL. Linear; for tools and tests. */
const struct sw_param_def *sw_param_find(const char *parent, const char *name);

#define SW_CHECK_WHY_MAX 3

/**
 * Check the "Configuration rules that stop a simulation" that need only the switch's own attributes:
 * PoolAllocationMap with no non-zero entry or summing to more than 1 by more than its last non-zero entry;
 * flowlet with dpr or dprWithFallback; TrimmingEnabled without UETPolicyEnabled; TrimmingEnabled with any EnablePFC
 * entry 1. (List shapes, Gap's range and the 10 us report interval are enforced by sw_param_set(); the headroom
 * rule needs the connected ports and is sw_buffer_setup()'s; the NIC-type rule needs the topology.)
 * Returns 0, or -EINVAL with "<what>; <suggestion>" in @p err and, in @p why, up to SW_CHECK_WHY_MAX rows of the
 * attributes involved, the one to blame first (NULL after the last).
 */
int sw_params_check(const struct sw_params *p, const struct sw_param_def *why[SW_CHECK_WHY_MAX], char *err,
		    size_t errlen);

#endif /* SW_PARAMS_H */
