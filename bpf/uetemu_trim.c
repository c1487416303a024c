/* uetemu-trim: attach the trimmer (ebpf_trim.bpf.o) to an interface's egress, re-configure it, read its counters,
 * detach it; uetemu-ecn's sibling, built the same way. Every invocation finds the attached program through its tc
 * filter (clsact egress, handle and priority EBPF_TRIM_TC_HANDLE / EBPF_TRIM_TC_PRIO) and its maps through the
 * program's id, so nothing is pinned in bpffs; the CE marker may sit on the same egress beside it.
 *
 *   uetemu-trim attach IFACE --rate RATE --min SIZE [--limit SIZE] [--dscp D] [--trimmable D] [--port P] [--obj PATH]
 *   uetemu-trim detach IFACE
 *   uetemu-trim stats IFACE [--json] [--reset]
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
	"usage: uetemu-trim attach IFACE --rate RATE --min SIZE [--limit SIZE] [--dscp D] [--trimmable D] [--port P]\n" \
	"                              [--obj PATH]\n"                                                              \
	"       uetemu-trim detach IFACE\n"                                                                         \
	"       uetemu-trim stats IFACE [--json] [--reset]\n"                                                       \
	"RATE: 1Gbit, 100mbit, 64kbit or 1Gbps (bit/s); SIZE: 20KB, 200KB, 1MiB or bytes. A UET data packet (UDP to\n" \
	"--port, default 4793, or IP protocol 253) with DSCP --trimmable (default 8) that would take the virtual queue\n" \
	"above --min is cut to MIN_TRIM_SIZE and re-marked DSCP --dscp (DSCP_TRIMMED, default 16);\n"             \
	"--limit: the virtual queue's size (default 4 x --min)\n"

enum { EX_USAGE = EBPF_TC_EX_USAGE };

struct args {
	struct ebpf_tc_args c;   /* the command, the interface and the shared options */
	struct ebpf_trim_cfg cfg;
	bool have_dscp;          /* --dscp, --trimmable or --port */
};

static const struct ebpf_tc_tool tool;

static int parse_uint(const char *s, unsigned long max, uint64_t *v, char *err, size_t errlen)
{
	char *end;
	unsigned long n;

	errno = 0;
	n = strtoul(s, &end, 10);
	if (s[0] < '0' || s[0] > '9' || *end != '\0' || errno != 0 || n > max) {
		snprintf(err, errlen, "'%s' is not a number from 0 to %lu", s, max);
		return -EINVAL;
	}
	*v = n;
	return 0;
}

/* --dscp, --trimmable and --port. */
static int own_opt(void *ctx, int c, const char *arg, char *err, size_t errlen)
{
	struct args *a = ctx;
	uint64_t v = 0;
	int rc;

	if (c != 'd' && c != 't' && c != 'P')
		return -EINVAL;
	rc = parse_uint(arg, c == 'P' ? 65535 : 63, &v, err, errlen);
	if (c == 'd')
		a->cfg.dscp_trimmed = (__u8)v;
	else if (c == 't')
		a->cfg.dscp_trimmable = (__u8)v;
	else
		a->cfg.uet_port = (__u16)v;
	a->have_dscp = true;
	return rc;
}

static int parse_args(int argc, char **argv, struct args *a)
{
	static const struct option lo[] = {
		{ "dscp", required_argument, NULL, 'd' }, { "trimmable", required_argument, NULL, 't' },
		{ "port", required_argument, NULL, 'P' }, { NULL, 0, NULL, 0 },
	};
	const struct ebpf_tc_own own = { lo, own_opt, a };
	char err[256];
	int rc;

	memset(a, 0, sizeof(*a));
	a->cfg.dscp_trimmable = EBPF_DSCP_TRIMMABLE_DEFAULT;
	a->cfg.dscp_trimmed = EBPF_DSCP_TRIMMED_DEFAULT;
	a->cfg.uet_port = EBPF_UET_PORT_DEFAULT;
	if ((rc = ebpf_tc_parse(&tool, argc, argv, &own, &a->c)) != 0)
		return rc;
	a->cfg.rate_bps = a->c.rate_bps;
	a->cfg.min_bytes = a->c.min_bytes;
	a->cfg.limit_bytes = a->c.limit_bytes;
	bool attach = strcmp(a->c.cmd, "attach") == 0;
	if (attach && !(a->c.have_rate && a->c.have_min))
		return ebpf_tc_die(&tool, EX_USAGE, "attach needs --rate and --min");
	if (!attach && (a->c.have_rate || a->c.have_min || a->c.have_limit || a->have_dscp || a->c.obj))
		return ebpf_tc_die(&tool, EX_USAGE, "%s takes no --rate, --min, --limit, --dscp, --trimmable, --port or --obj",
				   a->c.cmd);
	if ((rc = ebpf_tc_args_check(&tool, &a->c)) != 0)
		return rc;
	if (attach && !a->c.have_limit)
		a->cfg.limit_bytes = a->cfg.min_bytes <= EBPF_ECN_LIMIT_MAX / 4 ? 4 * a->cfg.min_bytes : a->cfg.min_bytes;
	if (attach && ebpf_trim_cfg_check(&a->cfg, err, sizeof(err)) != 0)
		return ebpf_tc_die(&tool, EX_USAGE, "%s", err);
	return ebpf_tc_ifindex(&tool, a->c.iface, &a->c.ifindex);
}

static void print_cfg(const char *what, const char *iface, uint32_t prog_id, const void *cfg)
{
	const struct ebpf_trim_cfg *c = cfg;

	printf("uetemu-trim: %s %s egress (program id %u): rate %llu bit/s, min %llu B, limit %llu B, UDP port %u "
	       "and IP protocol 253, DSCP %u trimmed to DSCP %u\n", what, iface, prog_id,
	       (unsigned long long)c->rate_bps, (unsigned long long)c->min_bytes, (unsigned long long)c->limit_bytes,
	       c->uet_port, c->dscp_trimmable, c->dscp_trimmed);
}

static void print_stats(const char *iface, uint32_t prog_id, const void *cfgv, const void *state, uint64_t now_ns,
			bool json, void *zero)
{
	const struct ebpf_trim_cfg *cfg = cfgv;
	const struct ebpf_trim_state *st = state;
	/* The queue now: what is left of the backlog at this instant (vq_bytes is as of the last packet). */
	uint64_t vq_now = ebpf_tc_vq_now(st->generation, cfg->generation, st->empty_at_ns, cfg->rate_bps, now_ns);
	const struct ebpf_tc_counter c[] = {
		{ "packets", st->packets }, { "bytes", st->bytes }, { "uet", st->uet }, { "trimmable", st->trimmable },
		{ "trimmed", st->trimmed }, { "trimmed_bytes", st->trimmed_bytes }, { "trim_failed", st->trim_failed },
		{ "overflow", st->overflow }, { "vq_bytes", st->vq_bytes }, { "vq_now", vq_now },
		{ "vq_peak", st->vq_peak },
	};
	struct ebpf_trim_state *z = zero;

	if (json)
		printf("{\"iface\": \"%s\", \"prog_id\": %u, \"config\": {\"rate_bps\": %llu, \"min_bytes\": %llu, "
		       "\"limit_bytes\": %llu, \"uet_port\": %u, \"dscp_trimmable\": %u, \"dscp_trimmed\": %u, "
		       "\"generation\": %u}, \"counters\": {", iface, prog_id, (unsigned long long)cfg->rate_bps,
		       (unsigned long long)cfg->min_bytes, (unsigned long long)cfg->limit_bytes, cfg->uet_port,
		       cfg->dscp_trimmable, cfg->dscp_trimmed, cfg->generation);
	else
		print_cfg("trimmer on", iface, prog_id, cfg);
	ebpf_tc_counters_print(c, sizeof(c) / sizeof(c[0]), json, 13);
	z->packets = z->bytes = z->uet = z->trimmable = z->trimmed = z->trimmed_bytes = z->trim_failed = z->overflow = 0;
	z->vq_peak = 0;
}

static const struct ebpf_tc_tool tool = {
	.name = "uetemu-trim", .usage = USAGE, .what = "trimmer", .obj = EBPF_TRIM_OBJ, .prog = EBPF_TRIM_PROG,
	.cfg_map = EBPF_TRIM_CFG_MAP, .state_map = EBPF_TRIM_STATE_MAP,
	.handle = EBPF_TRIM_TC_HANDLE, .prio = EBPF_TRIM_TC_PRIO,
	.cfg_size = sizeof(struct ebpf_trim_cfg), .generation_off = offsetof(struct ebpf_trim_cfg, generation),
	.flags_off = offsetof(struct ebpf_trim_cfg, flags), .state_size = sizeof(struct ebpf_trim_state),
	.print_cfg = print_cfg, .print_stats = print_stats,
};

int main(int argc, char **argv)
{
	struct args a;
	int rc = parse_args(argc, argv, &a);

	return ebpf_tc_main(&tool, rc, &a.c, &a.cfg);
}
