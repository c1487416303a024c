/* applications[i] of type Chakra (docs/chakra.md): Traceset, MappingFile, LogicalGroupId and the
 * ChakraConfiguration object, every attribute under its Scala name with its documented default. */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl_yaml_pvt.h"
#include "emu_units.h"

#define CK_EXAMPLE "a Chakra application is {type: Chakra, Traceset: traces/dp8, ChakraConfiguration: " \
	"{NumOfChakraFiles: 8}}"
#define CK_64MIB (64ull << 20)

struct ck_obj {
	struct ctl_config *cfg;
	struct ctl_chakra *ck;
};

static struct ctl_chakra *ck(void *obj)
{
	return ((struct ck_obj *)obj)->ck;
}

/* A path relative to the config file's directory (absolute paths as given). */
static int ck_path(struct ctl_ctx *c, const struct ctl_ynode *v, char *out, size_t size)
{
	const char *s;
	char dir[512];
	int rc = ctl_scalar(c, v, "traces/dp8", &s);

	if (rc)
		return rc;
	snprintf(dir, sizeof(dir), "%s", c->file);
	if (s[0] == '\0' || (size_t)snprintf(out, size, "%s/%s", s[0] == '/' ? "" : dirname(dir), s) >= size)
		return ctl_err(c, v, "bad path '%s': empty or longer than %zu characters", s, size - 100);
	if (s[0] == '/')
		snprintf(out, size, "%s", s);
	return 0;
}

static int k_type(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	(void)c, (void)v, (void)obj;
	return 0; /* the caller saw "Chakra" */
}

static int k_traceset(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	return ck_path(c, v, ck(obj)->traceset, sizeof(ck(obj)->traceset));
}

static int k_mapping(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	return ck_path(c, v, ck(obj)->mapping, sizeof(ck(obj)->mapping));
}

static int k_group(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	uint64_t n;
	int rc = ctl_val_uint(c, v, 0, UINT32_MAX, &n);

	(void)obj;
	if (rc == 0 && n != 0)
		rc = ctl_err(c, v, "LogicalGroupId %llu: the servers are in logical group 0; keep it 0",
			     (unsigned long long)n);
	return rc;
}

static int k_num_files(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	uint64_t n;
	int rc = ctl_val_uint(c, v, 1, 4096, &n);

	ck(obj)->num_files = (uint32_t)n;
	ck(obj)->num_files_given = true;
	return rc;
}

#define CK_BOOL(fn, field)                                                                                   \
	static int fn(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)                                \
	{                                                                                                      \
		bool b;                                                                                        \
		int rc = ctl_val_bool(c, v, &b);                                                               \
		if (rc == 0)                                                                                   \
			ck(obj)->field = b;                                                                    \
		return rc;                                                                                     \
	}
CK_BOOL(k_use_mapping, use_mapping)
CK_BOOL(k_pg_ser, prep.pg_serialization)
CK_BOOL(k_sync, prep.coll_sync)
CK_BOOL(k_abort, prep.abort_on_warning)
CK_BOOL(k_scaling, prep.scaling)
CK_BOOL(k_strict_deps, prep.strict_deps)
CK_BOOL(k_compress, in_mem_compression)
CK_BOOL(k_profiling, profiling)
CK_BOOL(k_su_stats, su_stats)
CK_BOOL(k_use_max, use_max_start)

static int k_max_lines(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	uint64_t n;
	int rc = ctl_val_uint(c, v, 0, 40000, &n);

	ck(obj)->prep.max_log_lines = (uint32_t)n;
	return rc;
}

static int k_family(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	static const char *const names[] = {"synthesized", "compiled", "collected"};
	const char *s;
	int rc = ctl_scalar(c, v, "synthesized", &s);

	for (unsigned i = 0; rc == 0 && i < 3; i++)
		if (strcmp(s, names[i]) == 0) {
			ck(obj)->trace_family = (uint8_t)i;
			return 0;
		}
	return rc ? rc : ctl_err(c, v, "unknown TraceFamily '%s'; use synthesized, compiled or collected", s);
}

static int k_factor(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	const char *s;
	char why[1];
	double d;
	int rc = ctl_scalar(c, v, "0.5", &s);

	if (rc == 0 && (emu_parse_double(s, &d, why, sizeof(why)) != 0 || !(d >= 0.0 && d <= 1.0)))
		rc = ctl_err(c, v, "bad ScalingFactor '%s'; a number from 0.0 to 1.0, e.g. 0.5", s);
	if (rc == 0)
		ck(obj)->prep.scaling_factor = d;
	return rc;
}

static int k_prof_interval(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	int rc = ctl_val_u64(c, v, emu_parse_seconds, "0.001", &ck(obj)->profiling_interval);

	if (rc == 0 && ck(obj)->profiling_interval == 0)
		rc = ctl_err(c, v, "ProfilingInterval must be greater than 0, e.g. 0.0001 (100 us)");
	return rc;
}

static int k_su_size(struct ctl_ctx *c, const struct ctl_ynode *v, uint64_t *out, uint64_t min, const char *name)
{
	int rc = ctl_val_u64(c, v, emu_parse_size, "4096B", out);

	if (rc == 0 && (*out < min || *out > CK_64MIB))
		rc = ctl_err(c, v, "%s %llu B: from %llu B to 64 MiB (67,108,864 B)", name, (unsigned long long)*out,
			     (unsigned long long)min);
	return rc;
}

static int k_su_header(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	return k_su_size(c, v, &ck(obj)->su_header, 0, "ScaleUpHeaderSize");
}

static int k_su_payload(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	return k_su_size(c, v, &ck(obj)->su_max_payload, 1, "ScaleUpMaxPayloadSize");
}

/* <Type>Algorithm: one of the values the configuration page allows for that collective type. */
static int k_algo(struct ctl_ctx *c, const struct ctl_ynode *v, struct ctl_chakra *k, unsigned type)
{
	const char *s;
	int rc = ctl_scalar(c, v, app_ck_algo_name(k->prep.algo[type]), &s), a;

	if (rc)
		return rc;
	a = app_ck_algo_parse(s);
	if (a == APP_CK_NONE || !app_ck_algo_allowed(type, (unsigned)a)) {
		char allowed[160] = "";

		for (unsigned i = 0; i < APP_CK_ALGO_COUNT; i++)
			if (app_ck_algo_allowed(type, i))
				snprintf(allowed + strlen(allowed), sizeof(allowed) - strlen(allowed), "%s%s",
					 allowed[0] ? ", " : "", app_ck_algo_name(i));
		return ctl_err(c, v, "%s '%s' is not allowed; use %s", app_ck_coll_attr(type), s, allowed);
	}
	k->prep.algo[type] = (uint8_t)a;
	return 0;
}

#define CK_ALGO_FN(id, name, attr)                                                                           \
	static int k_algo_##id(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)                        \
	{                                                                                                      \
		return k_algo(c, v, ck(obj), APP_CK_##id);                                                     \
	}
APP_CK_COLLS(CK_ALGO_FN)
#undef CK_ALGO_FN

static int k_conf(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	static const struct ctl_key keys[] = {
		{"NumOfChakraFiles", false, k_num_files}, {"UseMapping", false, k_use_mapping},
#define CK_ALGO_KEY(id, name, attr) {attr, false, k_algo_##id},
		APP_CK_COLLS(CK_ALGO_KEY)
#undef CK_ALGO_KEY
		{"ProcessGroupSerialization", false, k_pg_ser}, {"CommCollectiveSynchronization", false, k_sync},
		{"UseMaxAsCommCollectiveStartTime", false, k_use_max}, {"AbortOnChakraWarning", false, k_abort},
		{"MaxCountWarningsLoggedPerInstance", false, k_max_lines}, {"TraceFamily", false, k_family},
		{"Scaling", false, k_scaling}, {"ScalingFactor", false, k_factor},
		{"StrictDependencies", false, k_strict_deps},
		{"InMemoryTraceCompression", false, k_compress}, {"ProfilingEnabled", false, k_profiling},
		{"ProfilingInterval", false, k_prof_interval}, {"ScaleUpHeaderSize", false, k_su_header},
		{"ScaleUpMaxPayloadSize", false, k_su_payload}, {"ScaleUpStatsEnabled", false, k_su_stats},
	};

	return ctl_walk_map(c, v, keys, sizeof(keys) / sizeof(keys[0]), obj, "e.g. ChakraConfiguration: "
			    "{NumOfChakraFiles: 8, AllReduceAlgorithm: ring}");
}

static void ck_defaults(struct ctl_chakra *k)
{
	memset(k, 0, sizeof(*k));
	k->num_files = 256;
	k->use_mapping = true;
	k->use_max_start = true;
	app_ck_prep_defaults(&k->prep);
	k->trace_family = CTL_CHAKRA_SYNTHESIZED;
	k->in_mem_compression = true;
	k->profiling_interval = EMU_PS_PER_MS;
	k->su_header = 24;
	k->su_max_payload = 4096;
}

/* The configuration rules of the page that the config alone decides. */
static int ck_check(struct ctl_ctx *c, const struct ctl_ynode *item, struct ctl_config *cfg, uint32_t idx)
{
	uint32_t servers = 0;

	for (uint32_t h = 0; h < cfg->n_hosts; h++)
		servers += !cfg->hosts[h].external;
	if (cfg->chakra_app >= 0)
		return ctl_err(c, item, "a second Chakra application; the first is applications.%d", cfg->chakra_app);
	if (cfg->n_apps != 1)
		return ctl_err(c, item, "the Chakra workload is the only application of its simulation; this config "
			       "has %u", cfg->n_apps);
	/* not given: the page's 256 until the run reads the traceset, whose rank count it becomes (what attaching
	 * the traceset sets), which must then be the number of servers (ctl_chakra.c) */
	if (cfg->apps[idx].chakra->num_files_given && cfg->apps[idx].chakra->num_files != servers)
		return ctl_err(c, item, "ChakraConfiguration.NumOfChakraFiles is %u but the topology has %u servers; "
			       "give it exactly as many servers as the traceset has ranks",
			       cfg->apps[idx].chakra->num_files, servers);
	cfg->chakra_app = (int32_t)idx;
	return 0;
}

int ctl_app_chakra(struct ctl_ctx *c, const struct ctl_ynode *item, struct ctl_config *cfg, uint32_t idx)
{
	static const struct ctl_key keys[] = {
		{"type", true, k_type}, {"Traceset", true, k_traceset}, {"MappingFile", false, k_mapping},
		{"LogicalGroupId", false, k_group}, {"ChakraConfiguration", false, k_conf},
	};
	struct ck_obj o = {.cfg = cfg};
	int rc;

	cfg->apps[idx].type = CTL_APP_CHAKRA;
	cfg->apps[idx].chakra = o.ck = malloc(sizeof(*o.ck));
	if (!o.ck)
		return -ENOMEM;
	ck_defaults(o.ck);
	rc = ctl_walk_map(c, item, keys, sizeof(keys) / sizeof(keys[0]), &o, CK_EXAMPLE);
	return rc ? rc : ck_check(c, item, cfg, idx);
}
