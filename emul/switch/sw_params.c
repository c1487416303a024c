/* The Scala Switch attribute table (spec/scala/switch-configuration.md), its defaults, parsing and static rules. */
#include "sw_params.h"

#include <assert.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "emu_param.h"
#include "emu_units.h"

#define SP_FIELD(f) .off = offsetof(struct sw_params, f), .size = sizeof(((struct sw_params *)0)->f)
#define SP_ROW(t, a, d, lo, hi, f, ...) { .path = { __VA_ARGS__ }, .type = (t), .api = (a), .def = (d), \
					  .min = (lo), .max = (hi), SP_FIELD(f) }
#define SP_BOOL(d, f, ...) SP_ROW(SW_PT_BOOL, "bool", d, 0, 1, f, __VA_ARGS__)
#define SP_UINT(d, lo, hi, f, ...) SP_ROW(SW_PT_UINT, "uint", d, lo, hi, f, __VA_ARGS__)
#define SP_FRAC(d, f, ...) SP_ROW(SW_PT_FRAC, "double", d, 0, SW_PPM, f, __VA_ARGS__)
#define SP_BYTES(d, f, ...) SP_ROW(SW_PT_BYTES, "bytes", d, 0, SP_BYTES_MAX, f, __VA_ARGS__)
#define SP_TIME(d, lo, hi, f, ...) SP_ROW(SW_PT_TIMEVAL, "timeval", d, lo, hi, f, __VA_ARGS__)
#define SP_RATE(d, f, ...) SP_ROW(SW_PT_DATARATE, "datarate", d, 1, UINT64_MAX, f, __VA_ARGS__)
#define SP_LIST(t, d, f, ...) SP_ROW(t, "string", d, 0, 0, f, __VA_ARGS__)
#define SP_ENUM(d, e, f, ...) { .path = { __VA_ARGS__ }, .type = SW_PT_ENUM, .api = "string", .def = (d), \
				.enums = (e), SP_FIELD(f) }

/* "A bytes value can be at most 4,294,967,295 bytes." */
#define SP_BYTES_MAX 4294967295ULL
/* LossyAlpha: the page gives no upper bound; 1,000,000 keeps alpha x pool bytes far inside 128-bit arithmetic. */
#define SP_ALPHA_MAX (1000000ULL * SW_PPM)

#define NI "NetworkInterface"
#define SBM "SharedBufferManager"
#define ECN "EcnHandler"

static const char *const hash_names[] = { "dpr", "hash", "hashWithSalt", "crc32", "crc32WithSalt",
					   "dprWithFallback", NULL };
static const char *const lb_names[] = { "none", "flowlet", NULL };

const struct sw_param_def sw_param_table[] = {
	SP_UINT("64", 0, UINT32_MAX, num_uplinks, "NumUpLinks"),
	SP_UINT("64", 0, UINT32_MAX, num_downlinks, "NumDownLinks"),
	SP_UINT("8", 0, UINT32_MAX, num_uplinks_per_switch, "NumUpLinksPerSwitch"),
	SP_RATE("51200Gbps", switching_capacity_bps, "SwitchingCapacity"),
	SP_ENUM("crc32WithSalt", hash_names, ecmp_hash, "EcmpHashMethod"),
	SP_ENUM("none", lb_names, lb_method, "LoadBalancingMethod"),
	SP_BOOL("true", lb_stats_enabled, "EnableLoadBalancingStats"),
	SP_TIME("1ms", 10 * EMU_PS_PER_US, UINT64_MAX, lb_stats_interval, "LoadBalancingStatsReportInterval"),
	/* Named only by Simulation Output Files (Per-Port Switch Buffer Statistics), "the switch's attribute", with no
	 * component: at the top level of the switch's typedParameters (docs/records.md). */
	SP_BOOL("false", per_port_buffer_stats, "ReportPerPortBufferStats"),

	SP_RATE("400Gbps", uplink_bps, NI, "UplinkNetworkInterface", "DataRate"),
	SP_RATE("400Gbps", downlink_bps, NI, "DownlinkNetworkInterface", "DataRate"),
	SP_TIME("500ns", 0, UINT64_MAX, delay_ps, NI, "TransmissionMedium", "Delay"),

	SP_BOOL("false", trimming_enabled, "PacketTrimmer", "TrimmingEnabled"),
	SP_BOOL("false", trimming_stats_enabled, "PacketTrimmer", "TrimmingStatsEnabled"),

	SP_TIME("100us", 0, 2 * EMU_PS_PER_S, flowlet_gap, "LoadBalancingFlowlet", "Gap"),
	SP_BOOL("true", flowlet_pfc_aware, "LoadBalancingFlowlet", "PFCAware"),

	SP_BYTES("256MB", total_buffer, SBM, "TotalSharedBufferSize"),
	SP_BOOL("false", uet_policy, SBM, "UETPolicyEnabled"),
	SP_LIST(SW_PT_LIST_FRAC, "[0.9, 0.1, 0, 0, 0, 0, 0, 0]", pool_alloc_ppm, SBM, "PoolAllocationMap"),
	SP_LIST(SW_PT_LIST_POOL, "[0, 1, 0, 0, 0, 0, 0, 0]", tc_pool, SBM, "TrafficClassPoolMapping"),
	SP_LIST(SW_PT_LIST_FLAG, "[1, 1, 0, 0, 0, 0, 0, 0]", pfc_enable, SBM, "EnablePFC"),
	SP_BYTES("256KB", headroom_per_port, SBM, "HeadRoomPerPortLimit"),
	SP_BYTES("700KB", xoff, SBM, "StaticPoolXoffThreshold"),
	SP_BYTES("300KB", xon, SBM, "StaticPoolXonThreshold"),
	SP_ROW(SW_PT_ALPHA, "double", "1.0", 0, SP_ALPHA_MAX, lossy_alpha_ppm, SBM, "LossyAlpha"),
	SP_BOOL("false", qdt_enable, SBM, "QueueDropThresholdEnable"),
	SP_UINT("5", 0, UINT32_MAX, qdt, SBM, "QueueDropThreshold"),
	SP_BYTES("300KB", plane_bdp, SBM, "PlaneBDP"),
	SP_TIME("1ms", 0, UINT64_MAX, buffer_stats_interval, SBM, "BufferStatsReportInterval"),

	SP_BOOL("true", ecn_enabled, ECN, "EnableEcn"),
	SP_FRAC("0.10", ewma_weight_ppm, ECN, "EwmaWeight"),
	SP_FRAC("0.2", ecn_min_ppm, ECN, "MinThreshold"),
	SP_FRAC("0.8", ecn_max_ppm, ECN, "MaxThreshold"),
	SP_FRAC("1.0", ecn_max_prob_ppm, ECN, "MaxMarkProbability"),
};

const unsigned sw_param_count = sizeof(sw_param_table) / sizeof(sw_param_table[0]);


static const char *sp_name(const struct sw_param_def *d)
{
	int i = 0;

	while (i + 1 < SW_PARAM_DEPTH && d->path[i + 1] != NULL)
		i++;
	return d->path[i];
}

static void *sp_field(struct sw_params *p, const struct sw_param_def *d)
{
	return (unsigned char *)p + d->off;
}


bool sw_param_is_list(const struct sw_param_def *d)
{
	return d->type == SW_PT_LIST_FRAC || d->type == SW_PT_LIST_POOL || d->type == SW_PT_LIST_FLAG;
}

static int sp_range(const struct sw_param_def *d, uint64_t v, char *err, size_t errlen)
{
	if (v < d->min || v > d->max)
		return emu_param_fail(err, errlen, -ERANGE, "value %llu out of range %llu to %llu", (unsigned long long)v,
			       (unsigned long long)d->min, (unsigned long long)d->max);
	return 0;
}

/* LossyAlpha: a decimal of at most 6 places, 0 or more, kept in ppm (parsed once, at load; never per packet). */
static int sp_parse_alpha(const struct sw_param_def *d, const char *text, uint64_t *ppm, char *err, size_t errlen)
{
	double v, scaled;
	int rc = emu_parse_double(text, &v, err, errlen);

	if (rc != 0)
		return rc;
	scaled = v * SW_PPM;
	if (!(v >= 0.0) || scaled > (double)d->max)
		return emu_param_fail(err, errlen, -ERANGE, "LossyAlpha '%s' out of range 0 to %llu; e.g. 1.0", text,
			       (unsigned long long)(d->max / SW_PPM));
	uint64_t r = (uint64_t)(scaled + 0.5); /* nearest; emul links no libm */
	double diff = scaled - (double)r;

	if (diff > 1e-3 || diff < -1e-3)
		return emu_param_fail(err, errlen, -EINVAL, "LossyAlpha '%s' is finer than 1e-6; give at most 6 decimal places",
			       text);
	*ppm = r;
	return 0;
}

/* The integer types: parse with the type's unit parser, check the row's range, store. */
static int sp_set_int(struct sw_params *p, const struct sw_param_def *d, const char *text, char *err, size_t errlen)
{
	uint64_t v = 0;
	uint32_t f = 0;
	int rc;

	switch (d->type) {
	case SW_PT_UINT: rc = emu_parse_uint(text, &v, err, errlen); break;
	case SW_PT_DATARATE: rc = emu_parse_datarate(text, &v, err, errlen); break;
	case SW_PT_TIMEVAL: rc = emu_parse_timeval(text, &v, err, errlen); break;
	case SW_PT_BYTES: rc = emu_parse_size(text, &v, err, errlen); break;
	case SW_PT_ALPHA: rc = sp_parse_alpha(d, text, &v, err, errlen); break;
	default: /* SW_PT_FRAC */
		rc = emu_parse_ppm(text, &f, err, errlen);
		v = f;
		break;
	}
	if (rc == 0)
		rc = sp_range(d, v, err, errlen);
	if (rc == 0)
		emu_param_store_uint(sp_field(p, d), d->size, v);
	return rc;
}


static int sp_set_enum(struct sw_params *p, const struct sw_param_def *d, const char *text, char *err,
		       size_t errlen)
{
	char names[160];

	for (int i = 0; d->enums[i] != NULL; i++) {
		if (strcmp(d->enums[i], text) == 0) {
			emu_param_store_uint(sp_field(p, d), d->size, (uint64_t)i);
			return 0;
		}
	}
	emu_param_join(names, sizeof(names), d->enums);
	return emu_param_fail(err, errlen, -EINVAL, "unknown value '%s'; %s takes %s", text, sp_name(d), names);
}

static int sp_set_list_str(struct sw_params *p, const struct sw_param_def *d, const char *text, char *err,
			   size_t errlen)
{
	char items[SW_TC_COUNT][EMU_LIST_ITEM_MAX];
	const char *ptr[SW_TC_COUNT];
	char inner[200];
	int bad;
	int rc = emu_parse_list(text, items, SW_TC_COUNT, d->def, err, errlen);

	if (rc != 0)
		return rc;
	for (int i = 0; i < SW_TC_COUNT; i++)
		ptr[i] = items[i];
	rc = sw_param_set_list(p, d, ptr, SW_TC_COUNT, &bad, inner, sizeof(inner));
	if (rc != 0)
		emu_param_fail(err, errlen, rc, "entry %d: %s", bad, inner);
	return rc;
}

int sw_param_set(struct sw_params *p, const struct sw_param_def *d, const char *text, char *err, size_t errlen)
{
	bool b;
	int rc;

	switch (d->type) {
	case SW_PT_BOOL:
		rc = emu_parse_bool(text, &b, err, errlen);
		if (rc == 0)
			*(bool *)sp_field(p, d) = b;
		return rc;
	case SW_PT_ENUM: return sp_set_enum(p, d, text, err, errlen);
	case SW_PT_LIST_FRAC:
	case SW_PT_LIST_POOL:
	case SW_PT_LIST_FLAG: return sp_set_list_str(p, d, text, err, errlen);
	default: return sp_set_int(p, d, text, err, errlen);
	}
}

/* One list entry: a fraction in ppm, a pool number 0..7, or a flag (a whole number; 1 means on). */
static int sp_list_entry(const struct sw_param_def *d, const char *s, uint32_t *out, char *err, size_t errlen)
{
	uint64_t v = 0;
	int rc;

	if (d->type == SW_PT_LIST_FRAC)
		return emu_parse_ppm(s, out, err, errlen);
	/* EnablePFC and TrafficClassPoolMapping: an entry that is not a whole number stops the run. */
	rc = emu_parse_uint(s, &v, err, errlen);
	if (rc != 0)
		return rc;
	if (d->type == SW_PT_LIST_POOL && v >= SW_POOL_COUNT)
		return emu_param_fail(err, errlen, -ERANGE, "pool %llu out of range 0 to 7; a pool number is 0 to 7",
			       (unsigned long long)v);
	*out = d->type == SW_PT_LIST_FLAG ? v == 1 : (uint32_t)v;
	return 0;
}

int sw_param_set_list(struct sw_params *p, const struct sw_param_def *d, const char *const *items, int n, int *bad,
		      char *err, size_t errlen)
{
	uint32_t v[SW_TC_COUNT];
	void *f = sp_field(p, d);

	*bad = -1;
	if (n != SW_TC_COUNT)
		return emu_param_fail(err, errlen, -EINVAL, "%d entries; a list holds %d, e.g. \"%s\"", n, SW_TC_COUNT,
			       d->def);
	for (int i = 0; i < SW_TC_COUNT; i++) {
		int rc = sp_list_entry(d, items[i], &v[i], err, errlen);

		if (rc != 0) {
			*bad = i;
			return rc;
		}
	}
	for (int i = 0; i < SW_TC_COUNT; i++)
		emu_param_store_uint((unsigned char *)f + (size_t)i * (d->size / SW_TC_COUNT), d->size / SW_TC_COUNT, v[i]);
	return 0;
}

const struct sw_param_def *sw_param_find(const char *parent, const char *name)
{
	for (unsigned r = 0; r < sw_param_count; r++) {
		const struct sw_param_def *d = &sw_param_table[r];
		int n = 0;

		while (n < SW_PARAM_DEPTH && d->path[n] != NULL)
			n++;
		const char *par = n >= 2 ? d->path[n - 2] : NULL; /* the component that holds the attribute */

		if (strcmp(d->path[n - 1], name) != 0)
			continue;
		if ((parent == NULL && par == NULL) || (parent != NULL && par != NULL && strcmp(parent, par) == 0))
			return d;
	}
	return NULL;
}

void sw_params_defaults(struct sw_params *p)
{
	memset(p, 0, sizeof(*p));
	for (unsigned i = 0; i < sw_param_count; i++) {
		int rc = sw_param_set(p, &sw_param_table[i], sw_param_table[i].def, NULL, 0);

		assert(rc == 0); /* a default text that does not parse is a bug in the table */
		(void)rc;
	}
}

/* The row of the field at offset @p off. */
static const struct sw_param_def *sp_row(size_t off)
{
	for (unsigned i = 0; i < sw_param_count; i++)
		if (sw_param_table[i].off == off)
			return &sw_param_table[i];
	assert(0 && "no row for this field");
	return NULL;
}

#define SP_ROW_OF(f) sp_row(offsetof(struct sw_params, f))

/* PoolAllocationMap: some non-zero entry, and a sum above 1 by no more than the last non-zero entry. The page lists
 * both rules without a condition, so they apply under the UET policy too, which sizes its pools without the map. */
static int sp_check_pools(const struct sw_params *p, char *err, size_t errlen)
{
	uint64_t sum = 0;
	int last = -1;

	for (int i = 0; i < SW_POOL_COUNT; i++) {
		sum += p->pool_alloc_ppm[i];
		if (p->pool_alloc_ppm[i] != 0)
			last = i;
	}
	if (last < 0)
		return emu_param_fail(err, errlen, -EINVAL,
			       "PoolAllocationMap has no non-zero entry; give at least one pool a share, e.g. "
			       "[0.9, 0.1, 0, 0, 0, 0, 0, 0]");
	if (sum > SW_PPM && sum - SW_PPM > p->pool_alloc_ppm[last])
		return emu_param_fail(err, errlen, -EINVAL,
			       "PoolAllocationMap sums to %llu.%06llu, more than 1 by more than its last non-zero entry "
			       "(pool %d); make the entries sum to 1", (unsigned long long)(sum / SW_PPM),
			       (unsigned long long)(sum % SW_PPM), last);
	return 0;
}

int sw_params_check(const struct sw_params *p, const struct sw_param_def *why[SW_CHECK_WHY_MAX], char *err,
		    size_t errlen)
{
	int rc;

	for (int i = 0; i < SW_CHECK_WHY_MAX; i++)
		why[i] = NULL;
	why[0] = SP_ROW_OF(pool_alloc_ppm);
	if ((rc = sp_check_pools(p, err, errlen)) != 0)
		return rc;
	why[0] = NULL;
	if (p->lb_method == SW_LB_FLOWLET && (p->ecmp_hash == SW_HASH_DPR || p->ecmp_hash == SW_HASH_DPR_FALLBACK)) {
		why[0] = SP_ROW_OF(lb_method);
		why[1] = SP_ROW_OF(ecmp_hash);
		return emu_param_fail(err, errlen, -EINVAL,
			       "LoadBalancingMethod flowlet cannot be combined with EcmpHashMethod %s; use crc32WithSalt, "
			       "or LoadBalancingMethod none", hash_names[p->ecmp_hash]);
	}
	if (p->trimming_enabled && !p->uet_policy) {
		why[0] = SP_ROW_OF(trimming_enabled);
		why[1] = SP_ROW_OF(uet_policy);
		return emu_param_fail(err, errlen, -EINVAL,
			       "TrimmingEnabled needs UETPolicyEnabled true; set UETPolicyEnabled, or turn trimming off");
	}
	for (int tc = 0; p->trimming_enabled && tc < SW_TC_COUNT; tc++) {
		if (p->pfc_enable[tc]) {
			why[0] = SP_ROW_OF(trimming_enabled);
			why[1] = SP_ROW_OF(pfc_enable);
			return emu_param_fail(err, errlen, -EINVAL,
				       "TrimmingEnabled cannot be combined with PFC, and EnablePFC enables TC%d; set "
				       "EnablePFC to [0, 0, 0, 0, 0, 0, 0, 0]", tc);
		}
	}
	return 0;
}
