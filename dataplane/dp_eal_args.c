/* The EAL command line: uetemu's defaults, less what the user's EAL args replace, then the user's args. No rte_*
 * here: the merge is a pure function, unit-tested without an EAL. */
#include <errno.h>
#include <string.h>

#include "dp.h"

/* What an EAL option means to the merge. */
enum dp_eal_opt {
	DP_OPT_OTHER = 0, /* not one uetemu has a default for */
	DP_OPT_NO_HUGE,   /* --no-huge */
	DP_OPT_NO_PCI,    /* --no-pci */
	DP_OPT_MEM,       /* -m */
	DP_OPT_PREFIX,    /* --file-prefix */
	DP_OPT_LOG,       /* --log-level */
	DP_OPT_HUGE,      /* an option that only makes sense with hugepages */
	DP_OPT_BUS_DEV,   /* names a device on a scanned bus (-a, -b) */
	DP_OPT_TEL_ON,    /* --telemetry */
	DP_OPT_TEL_OFF,   /* --no-telemetry */
	DP_OPT_COUNT
};

struct dp_eal_opt_def {
	const char *name;
	enum dp_eal_opt kind;
	bool value; /* takes a value: the next argument, unless attached ("--x=v", "-lv") */
};

/*
 * The EAL options of DPDK 22.11 that matter here: those with a default, those that replace one, and every other
 * one that takes a value (so that value, e.g. "--vdev -x", is skipped). --huge-unlink, --syslog and
 * --huge-worker-stack take an optional value, only ever attached with '='.
 */
static const struct dp_eal_opt_def dp_eal_opts[] = {
	{ "--no-huge", DP_OPT_NO_HUGE, false },
	{ "--no-pci", DP_OPT_NO_PCI, false },
	{ "-m", DP_OPT_MEM, true },
	{ "--file-prefix", DP_OPT_PREFIX, true },
	{ "--log-level", DP_OPT_LOG, true },
	{ "--huge-dir", DP_OPT_HUGE, true },
	{ "--socket-mem", DP_OPT_HUGE, true },
	{ "--socket-limit", DP_OPT_HUGE, true },
	{ "--huge-unlink", DP_OPT_HUGE, false },
	{ "--in-memory", DP_OPT_HUGE, false },
	{ "-a", DP_OPT_BUS_DEV, true },
	{ "--allow", DP_OPT_BUS_DEV, true },
	{ "-b", DP_OPT_BUS_DEV, true },
	{ "--block", DP_OPT_BUS_DEV, true },
	{ "--telemetry", DP_OPT_TEL_ON, false },
	{ "--no-telemetry", DP_OPT_TEL_OFF, false },
	{ "-c", DP_OPT_OTHER, true },
	{ "-l", DP_OPT_OTHER, true },
	{ "-s", DP_OPT_OTHER, true },
	{ "-S", DP_OPT_OTHER, true },
	{ "-n", DP_OPT_OTHER, true },
	{ "-r", DP_OPT_OTHER, true },
	{ "-d", DP_OPT_OTHER, true },
	{ "--lcores", DP_OPT_OTHER, true },
	{ "--main-lcore", DP_OPT_OTHER, true },
	{ "--mbuf-pool-ops-name", DP_OPT_OTHER, true },
	{ "--vdev", DP_OPT_OTHER, true },
	{ "--iova-mode", DP_OPT_OTHER, true },
	{ "--proc-type", DP_OPT_OTHER, true },
	{ "--trace", DP_OPT_OTHER, true },
	{ "--trace-dir", DP_OPT_OTHER, true },
	{ "--trace-bufsz", DP_OPT_OTHER, true },
	{ "--trace-mode", DP_OPT_OTHER, true },
	{ "--base-virtaddr", DP_OPT_OTHER, true },
	{ "--force-max-simd-bitwidth", DP_OPT_OTHER, true },
	{ "--vfio-intr", DP_OPT_OTHER, true },
	{ "--vfio-vf-token", DP_OPT_OTHER, true },
};

/*
 * Which option @p arg is, and where its value is: *@p value points into @p arg when attached, is NULL when the
 * value is the next argument (or the option takes none). Short options take an attached value with no '='.
 */
static const struct dp_eal_opt_def *dp_eal_opt_find(const char *arg, const char **value)
{
	size_t n = strcspn(arg, "=");

	*value = NULL;
	for (size_t i = 0; i < sizeof(dp_eal_opts) / sizeof(dp_eal_opts[0]); i++) {
		const struct dp_eal_opt_def *d = &dp_eal_opts[i];
		size_t len = strlen(d->name);

		if (d->name[1] != '-') { /* short: "-m", "-m256" */
			if (strncmp(arg, d->name, 2) != 0 || arg[1] == '-')
				continue;
			if (arg[2] != '\0' && !d->value)
				continue;
			*value = arg[2] != '\0' ? arg + 2 : NULL;
			return d;
		}
		if (n == len && strncmp(arg, d->name, len) == 0) { /* long: "--x", "--x=v" */
			*value = arg[n] == '=' ? arg + n + 1 : NULL;
			return d;
		}
	}
	return NULL;
}

/* Note which kinds of option the user gave, the last --file-prefix, and whether telemetry stays on. */
static void dp_eal_scan(struct dp_eal_args *out, int argc, char **argv, bool seen[DP_OPT_COUNT])
{
	for (int i = 0; i < argc; i++) {
		const char *value;
		const struct dp_eal_opt_def *d = dp_eal_opt_find(argv[i], &value);

		if (d == NULL)
			continue;
		if (d->value && value == NULL && i + 1 < argc)
			value = argv[++i]; /* the value is the next argument, never an option */
		seen[d->kind] = true;
		if (d->kind == DP_OPT_PREFIX && value != NULL)
			out->file_prefix = value;
		else if (d->kind == DP_OPT_TEL_ON || d->kind == DP_OPT_TEL_OFF)
			out->telemetry = d->kind == DP_OPT_TEL_ON;
	}
}

int dp_eal_args(struct dp_eal_args *out, int argc, char **argv, char *prefix)
{
	bool seen[DP_OPT_COUNT] = { false };
	int n = 0;

	memset(out, 0, sizeof(*out));
	out->file_prefix = prefix;
	out->telemetry = true;
	if (argc < 0)
		argc = 0;
	dp_eal_scan(out, argc, argv, seen);
	out->hugepages = seen[DP_OPT_HUGE];
	out->own_prefix = !seen[DP_OPT_PREFIX];
	out->argv[n++] = (char *)"uetemu";
	if (!seen[DP_OPT_NO_HUGE] && !seen[DP_OPT_HUGE])
		out->argv[n++] = (char *)"--no-huge";
	if (!seen[DP_OPT_NO_PCI] && !seen[DP_OPT_BUS_DEV])
		out->argv[n++] = (char *)"--no-pci";
	if (!seen[DP_OPT_MEM] && !seen[DP_OPT_HUGE]) {
		out->argv[n++] = (char *)"-m";
		out->argv[n++] = (char *)"256";
	}
	if (out->own_prefix) {
		out->argv[n++] = (char *)"--file-prefix";
		out->argv[n++] = prefix;
	}
	if (!seen[DP_OPT_LOG])
		out->argv[n++] = (char *)"--log-level=lib.*:warning";
	if (n + argc > DP_EAL_ARGS_MAX) {
		memset(out->argv, 0, sizeof(out->argv));
		out->argc = 0;
		return -E2BIG;
	}
	for (int i = 0; i < argc; i++)
		out->argv[n++] = argv[i];
	out->argv[n] = NULL;
	out->argc = n;
	return n;
}
