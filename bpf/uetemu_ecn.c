/* uetemu-ecn: attach the CE marker (ebpf_ecn.bpf.o) to an interface's egress, re-configure it, read its counters,
 * detach it. Every invocation finds the attached program through its tc filter (clsact egress, handle and priority
 * EBPF_ECN_TC_HANDLE / EBPF_ECN_TC_PRIO) and its maps through the program's id, so nothing is pinned in bpffs.
 *
 *   uetemu-ecn attach IFACE --rate RATE --min SIZE --max SIZE [--pmax P] [--limit SIZE] [--obj PATH]
 *   uetemu-ecn detach IFACE
 *   uetemu-ecn stats IFACE [--json] [--reset]
 *
 * Exit status: 0 done, 1 an error (named on stderr), 2 a usage error.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "ebpf.h"
#include "ebpf_tc.h"
#include "emu_units.h"

#define USAGE                                                                                                       \
	"usage: uetemu-ecn attach IFACE --rate RATE --min SIZE --max SIZE [--pmax P] [--limit SIZE] [--obj PATH]\n" \
	"       uetemu-ecn detach IFACE\n"                                                                          \
	"       uetemu-ecn stats IFACE [--json] [--reset]\n"                                                        \
	"RATE: 1Gbit, 100mbit, 64kbit or 1Gbps (bit/s); SIZE: 20KB, 200KB, 1MiB or bytes; P: 0 to 1 (default 1);\n" \
	"--limit: the virtual queue's size (default 4 x --max)\n"

enum { EX_USAGE = EBPF_TC_EX_USAGE };

struct args {
	struct ebpf_tc_args c;   /* the command, the interface and the shared options */
	struct ebpf_ecn_cfg cfg;
	bool have_max;
};

static const struct ebpf_tc_tool tool;

/* --max and --pmax. */
static int own_opt(void *ctx, int c, const char *arg, char *err, size_t errlen)
{
	struct args *a = ctx;
	uint64_t v = 0;
	int rc;

	switch (c) {
	case 'M':
		rc = emu_parse_size(arg, &v, err, errlen);
		a->cfg.max_bytes = v;
		a->have_max = true;
		return rc;
	case 'p':
		return emu_parse_ppm(arg, &a->cfg.pmax_ppm, err, errlen);
	default:
		return -EINVAL;
	}
}

static int parse_args(int argc, char **argv, struct args *a)
{
	static const struct option lo[] = {
		{ "max", required_argument, NULL, 'M' }, { "pmax", required_argument, NULL, 'p' }, { NULL, 0, NULL, 0 },
	};
	const struct ebpf_tc_own own = { lo, own_opt, a };
	char err[256];
	int rc;

	memset(a, 0, sizeof(*a));
	a->cfg.pmax_ppm = EBPF_PPM;
	if ((rc = ebpf_tc_parse(&tool, argc, argv, &own, &a->c)) != 0)
		return rc;
	a->cfg.rate_bps = a->c.rate_bps;
	a->cfg.min_bytes = a->c.min_bytes;
	a->cfg.limit_bytes = a->c.limit_bytes;
	bool attach = strcmp(a->c.cmd, "attach") == 0;
	if (attach && !(a->c.have_rate && a->c.have_min && a->have_max))
		return ebpf_tc_die(&tool, EX_USAGE, "attach needs --rate, --min and --max");
	if (!attach && (a->c.have_rate || a->c.have_min || a->have_max || a->c.have_limit || a->c.obj))
		return ebpf_tc_die(&tool, EX_USAGE, "%s takes no --rate, --min, --max, --limit or --obj", a->c.cmd);
	if ((rc = ebpf_tc_args_check(&tool, &a->c)) != 0)
		return rc;
	if (attach && !a->c.have_limit) {
		a->cfg.limit_bytes = a->cfg.max_bytes <= EBPF_ECN_LIMIT_MAX / 4 ? 4 * a->cfg.max_bytes : a->cfg.max_bytes;
	}
	if (attach && ebpf_ecn_cfg_check(&a->cfg, err, sizeof(err)) != 0)
		return ebpf_tc_die(&tool, EX_USAGE, "%s", err);
	return ebpf_tc_ifindex(&tool, a->c.iface, &a->c.ifindex);
}

static void print_cfg(const char *what, const char *iface, uint32_t prog_id, const void *cfg)
{
	const struct ebpf_ecn_cfg *c = cfg;

	printf("uetemu-ecn: %s %s egress (program id %u): rate %llu bit/s, min %llu B, max %llu B, pmax %.6f, "
	       "limit %llu B\n", what, iface, prog_id, (unsigned long long)c->rate_bps,
	       (unsigned long long)c->min_bytes, (unsigned long long)c->max_bytes, c->pmax_ppm / 1e6,
	       (unsigned long long)c->limit_bytes);
}

static void print_stats(const char *iface, uint32_t prog_id, const void *cfgv, const void *state, uint64_t now_ns,
			bool json, void *zero)
{
	const struct ebpf_ecn_cfg *cfg = cfgv;
	const struct ebpf_ecn_state *st = state;
	/* The queue now: what is left of the backlog at this instant (vq_bytes is as of the last packet). */
	uint64_t vq_now = ebpf_tc_vq_now(st->generation, cfg->generation, st->empty_at_ns, cfg->rate_bps, now_ns);
	const struct ebpf_tc_counter c[] = {
		{ "packets", st->packets }, { "bytes", st->bytes }, { "ipv4", st->ipv4 }, { "ect", st->ect },
		{ "not_ect", st->not_ect }, { "marked", st->marked }, { "ce_in", st->ce_in },
		{ "would_drop", st->would_drop }, { "overflow", st->overflow }, { "vq_bytes", st->vq_bytes },
		{ "vq_now", vq_now }, { "vq_peak", st->vq_peak },
	};
	struct ebpf_ecn_state *z = zero;

	if (json)
		printf("{\"iface\": \"%s\", \"prog_id\": %u, \"config\": {\"rate_bps\": %llu, \"min_bytes\": %llu, "
		       "\"max_bytes\": %llu, \"pmax\": %.6f, \"limit_bytes\": %llu, \"generation\": %u}, \"counters\": {",
		       iface, prog_id, (unsigned long long)cfg->rate_bps, (unsigned long long)cfg->min_bytes,
		       (unsigned long long)cfg->max_bytes, cfg->pmax_ppm / 1e6, (unsigned long long)cfg->limit_bytes,
		       cfg->generation);
	else
		print_cfg("CE marker on", iface, prog_id, cfg);
	ebpf_tc_counters_print(c, sizeof(c) / sizeof(c[0]), json, 11);
	z->packets = z->bytes = z->ipv4 = z->ect = z->not_ect = z->marked = z->ce_in = z->would_drop = z->overflow = 0;
	z->vq_peak = 0;
}

static const struct ebpf_tc_tool tool = {
	.name = "uetemu-ecn", .usage = USAGE, .what = "CE marker", .obj = EBPF_ECN_OBJ, .prog = EBPF_ECN_PROG,
	.cfg_map = EBPF_ECN_CFG_MAP, .state_map = EBPF_ECN_STATE_MAP,
	.handle = EBPF_ECN_TC_HANDLE, .prio = EBPF_ECN_TC_PRIO,
	.cfg_size = sizeof(struct ebpf_ecn_cfg), .generation_off = offsetof(struct ebpf_ecn_cfg, generation),
	.flags_off = offsetof(struct ebpf_ecn_cfg, flags), .state_size = sizeof(struct ebpf_ecn_state),
	.print_cfg = print_cfg, .print_stats = print_stats,
};

int main(int argc, char **argv)
{
	struct args a;
	int rc = parse_args(argc, argv, &a);

	return ebpf_tc_main(&tool, rc, &a.c, &a.cfg);
}
