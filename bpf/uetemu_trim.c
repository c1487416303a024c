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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "ebpf.h"
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

enum { EX_OK = 0, EX_ERR = 1, EX_USAGE = 2 };

struct args {
	const char *cmd, *iface, *obj;
	struct ebpf_trim_cfg cfg;
	bool have_rate, have_min, have_limit, have_dscp, json, reset;
	int ifindex;
};

static int die(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int die(int code, const char *fmt, ...)
{
	va_list ap;

	fputs("uetemu-trim: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (code == EX_USAGE)
		fputs(USAGE, stderr);
	return code;
}

/* Set while asking tc whether the marker is attached: "no clsact qdisc" is an answer then, not an error. */
static bool libbpf_quiet;

/* libbpf's own messages: warnings and errors only (its debug output is the verifier log, on failure). */
static int libbpf_out(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return level <= LIBBPF_WARN && !libbpf_quiet ? vfprintf(stderr, fmt, ap) : 0;
}

/* A decimal number 0..@p max. */
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

static int parse_args(int argc, char **argv, struct args *a)
{
	static const struct option lo[] = {
		{ "rate", required_argument, NULL, 'r' }, { "min", required_argument, NULL, 'm' },
		{ "dscp", required_argument, NULL, 'd' },  { "trimmable", required_argument, NULL, 't' },
		{ "port", required_argument, NULL, 'P' },  { "limit", required_argument, NULL, 'l' },
		{ "obj", required_argument, NULL, 'o' },
		{ "json", no_argument, NULL, 'j' },       { "reset", no_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },       { NULL, 0, NULL, 0 },
	};
	char err[256];
	int c, rc;

	memset(a, 0, sizeof(*a));
	a->cfg.dscp_trimmable = EBPF_DSCP_TRIMMABLE_DEFAULT;
	a->cfg.dscp_trimmed = EBPF_DSCP_TRIMMED_DEFAULT;
	a->cfg.uet_port = EBPF_UET_PORT_DEFAULT;
	if (argc < 2)
		return die(EX_USAGE, "no command");
	a->cmd = argv[1];
	if (strcmp(a->cmd, "help") == 0 || strcmp(a->cmd, "--help") == 0 || strcmp(a->cmd, "-h") == 0) {
		fputs(USAGE, stdout);
		return -1;
	}
	if (strcmp(a->cmd, "attach") != 0 && strcmp(a->cmd, "detach") != 0 && strcmp(a->cmd, "stats") != 0)
		return die(EX_USAGE, "unknown command '%s'", a->cmd);
	optind = 2;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		rc = 0;
		err[0] = '\0';
		uint64_t v = 0;
		switch (c) {
		case 'r':
			rc = ebpf_parse_rate(optarg, &v, err, sizeof(err));
			a->cfg.rate_bps = v;
			a->have_rate = true;
			break;
		case 'm':
			rc = emu_parse_size(optarg, &v, err, sizeof(err));
			a->cfg.min_bytes = v;
			a->have_min = true;
			break;
		case 'd':
		case 't':
		case 'P':
			rc = parse_uint(optarg, c == 'P' ? 65535 : 63, &v, err, sizeof(err));
			if (c == 'd')
				a->cfg.dscp_trimmed = (__u8)v;
			else if (c == 't')
				a->cfg.dscp_trimmable = (__u8)v;
			else
				a->cfg.uet_port = (__u16)v;
			a->have_dscp = true;
			break;
		case 'l':
			rc = emu_parse_size(optarg, &v, err, sizeof(err));
			a->cfg.limit_bytes = v;
			a->have_limit = true;
			break;
		case 'o': a->obj = optarg; break;
		case 'j': a->json = true; break;
		case 'R': a->reset = true; break;
		case 'h': fputs(USAGE, stdout); return -1;
		default: return die(EX_USAGE, "bad option");
		}
		if (rc != 0)
			return die(EX_USAGE, "%s: %s", argv[optind - 1], err);
	}
	if (optind != argc - 1)
		return die(EX_USAGE, "%s takes one interface name", a->cmd);
	a->iface = argv[optind];
	bool attach = strcmp(a->cmd, "attach") == 0;
	if (attach && !(a->have_rate && a->have_min))
		return die(EX_USAGE, "attach needs --rate and --min");
	if (!attach && (a->have_rate || a->have_min || a->have_limit || a->have_dscp || a->obj))
		return die(EX_USAGE, "%s takes no --rate, --min, --limit, --dscp, --trimmable, --port or --obj", a->cmd);
	if (strcmp(a->cmd, "stats") != 0 && (a->json || a->reset))
		return die(EX_USAGE, "--json and --reset go with stats");
	if (attach && !a->have_limit)
		a->cfg.limit_bytes = a->cfg.min_bytes <= EBPF_ECN_LIMIT_MAX / 4 ? 4 * a->cfg.min_bytes : a->cfg.min_bytes;
	if (attach && ebpf_trim_cfg_check(&a->cfg, err, sizeof(err)) != 0)
		return die(EX_USAGE, "%s", err);
	a->ifindex = (int)if_nametoindex(a->iface);
	if (a->ifindex == 0)
		return die(EX_ERR, "interface '%s': %s", a->iface, strerror(errno));
	return EX_OK;
}

static struct bpf_tc_hook egress_hook(const struct args *a)
{
	struct bpf_tc_hook h;

	memset(&h, 0, sizeof(h));
	h.sz = sizeof(h);
	h.ifindex = a->ifindex;
	h.attach_point = BPF_TC_EGRESS;
	return h;
}

static struct bpf_tc_opts our_filter(int prog_fd)
{
	struct bpf_tc_opts o;

	memset(&o, 0, sizeof(o));
	o.sz = sizeof(o);
	o.handle = EBPF_TRIM_TC_HANDLE;
	o.priority = EBPF_TRIM_TC_PRIO;
	o.prog_fd = prog_fd;
	return o;
}

/* The attached trimmer's program id and its two maps (fds[0] cfg, fds[1] state). -ENOENT: not attached. */
static int find_attached(const struct args *a, uint32_t *prog_id, int fds[2])
{
	static const char *const names[2] = { EBPF_TRIM_CFG_MAP, EBPF_TRIM_STATE_MAP };
	struct bpf_tc_hook h = egress_hook(a);
	struct bpf_tc_opts o = our_filter(0);
	char err[256];
	int rc;

	libbpf_quiet = true;
	rc = bpf_tc_query(&h, &o);
	libbpf_quiet = false;
	if (rc != 0)
		return rc == -EINVAL ? -ENOENT : rc; /* -EINVAL: no clsact qdisc at all */
	*prog_id = o.prog_id;
	rc = ebpf_prog_maps(o.prog_id, EBPF_TRIM_PROG, names, fds, 2, err, sizeof(err));
	if (rc != 0)
		fprintf(stderr, "uetemu-trim: %s: the filter at handle %#x priority %#x: %s\n", a->iface,
			EBPF_TRIM_TC_HANDLE, EBPF_TRIM_TC_PRIO, err);
	return rc;
}

static void print_cfg(const char *what, const struct args *a, uint32_t prog_id, const struct ebpf_trim_cfg *c)
{
	printf("uetemu-trim: %s %s egress (program id %u): rate %llu bit/s, min %llu B, limit %llu B, UDP port %u "
	       "and IP protocol 253, DSCP %u trimmed to DSCP %u\n", what, a->iface, prog_id,
	       (unsigned long long)c->rate_bps, (unsigned long long)c->min_bytes, (unsigned long long)c->limit_bytes,
	       c->uet_port, c->dscp_trimmable, c->dscp_trimmed);
}

static int cmd_attach(struct args *a)
{
	struct bpf_tc_hook h = egress_hook(a);
	struct bpf_object *obj;
	struct bpf_tc_opts o;
	char path[PATH_MAX + 256];
	uint32_t key = 0, prog_id;
	int fds[2], rc, cfg_fd, prog_fd;

	rc = find_attached(a, &prog_id, fds);
	if (rc == 0) { /* re-configure in place: a new generation restarts the virtual queue, counters go on */
		struct ebpf_trim_cfg old;
		rc = bpf_map_lookup_elem(fds[0], &key, &old);
		a->cfg.flags = rc == 0 ? old.flags : 0;
		a->cfg.generation = rc == 0 ? old.generation + 1 : 1;
		rc = bpf_map_update_elem(fds[0], &key, &a->cfg, BPF_ANY);
		close(fds[0]);
		close(fds[1]);
		if (rc != 0)
			return die(EX_ERR, "%s: writing the configuration: %s", a->iface, strerror(errno));
		print_cfg("re-configured", a, prog_id, &a->cfg);
		return EX_OK;
	}
	if (rc != -ENOENT)
		return die(EX_ERR, "%s: %s", a->iface, strerror(-rc));
	if (a->obj != NULL)
		snprintf(path, sizeof(path), "%s", a->obj);
	else if (ebpf_obj_find(EBPF_TRIM_OBJ, path, sizeof(path)) != 0)
		return die(EX_ERR, "%s", path);
	obj = bpf_object__open_file(path, NULL);
	if (obj == NULL)
		return die(EX_ERR, "%s: %s", path, strerror(errno));
	if (bpf_object__load(obj) != 0) {
		rc = errno;
		bpf_object__close(obj);
		return die(EX_ERR, "loading %s: %s (root or CAP_BPF + CAP_NET_ADMIN needed)", path, strerror(rc));
	}
	struct bpf_program *prog = bpf_object__find_program_by_name(obj, EBPF_TRIM_PROG);
	cfg_fd = bpf_object__find_map_fd_by_name(obj, EBPF_TRIM_CFG_MAP);
	if (prog == NULL || cfg_fd < 0) {
		bpf_object__close(obj);
		return die(EX_ERR, "%s: no program '%s' or map '%s'", path, EBPF_TRIM_PROG, EBPF_TRIM_CFG_MAP);
	}
	prog_fd = bpf_program__fd(prog);
	rc = bpf_tc_hook_create(&h);
	if (rc == 0)
		a->cfg.flags |= EBPF_ECN_F_CLSACT_OURS;
	else if (rc != -EEXIST) {
		bpf_object__close(obj);
		return die(EX_ERR, "%s: creating the clsact qdisc: %s", a->iface, strerror(-rc));
	}
	a->cfg.generation = 1;
	if (bpf_map_update_elem(cfg_fd, &key, &a->cfg, BPF_ANY) != 0) {
		rc = -errno;
		goto fail;
	}
	o = our_filter(prog_fd);
	rc = bpf_tc_attach(&h, &o);
	if (rc != 0)
		goto fail;
	print_cfg("attached to", a, o.prog_id, &a->cfg);
	bpf_object__close(obj); /* the tc filter holds the program, the program its maps */
	return EX_OK;
fail:
	if (a->cfg.flags & EBPF_ECN_F_CLSACT_OURS) {
		h.attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS;
		bpf_tc_hook_destroy(&h);
	}
	bpf_object__close(obj);
	return die(EX_ERR, "%s: attaching to egress: %s", a->iface, strerror(-rc));
}

static int cmd_detach(struct args *a)
{
	struct bpf_tc_hook h = egress_hook(a);
	struct bpf_tc_opts o = our_filter(0);
	struct ebpf_trim_cfg cfg = { 0 };
	uint32_t key = 0, prog_id;
	int fds[2], rc;

	rc = find_attached(a, &prog_id, fds);
	if (rc == -ENOENT)
		return die(EX_ERR, "%s: no trimmer attached", a->iface);
	if (rc != 0)
		return die(EX_ERR, "%s: %s", a->iface, strerror(-rc));
	(void)bpf_map_lookup_elem(fds[0], &key, &cfg);
	close(fds[0]);
	close(fds[1]);
	rc = bpf_tc_detach(&h, &o);
	if (rc != 0)
		return die(EX_ERR, "%s: detaching: %s", a->iface, strerror(-rc));
	if (cfg.flags & EBPF_ECN_F_CLSACT_OURS) { /* attach created clsact: remove it again (ingress filters too) */
		h.attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS;
		rc = bpf_tc_hook_destroy(&h);
		if (rc != 0 && rc != -ENOENT)
			fprintf(stderr, "uetemu-trim: %s: removing the clsact qdisc: %s\n", a->iface, strerror(-rc));
	}
	printf("uetemu-trim: detached from %s egress (program id %u)%s\n", a->iface, prog_id,
	       (cfg.flags & EBPF_ECN_F_CLSACT_OURS) ? ", clsact qdisc removed" : "");
	return EX_OK;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts); /* the clock bpf_ktime_get_ns() reads */
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmd_stats(struct args *a)
{
	struct ebpf_trim_state st;
	struct ebpf_trim_cfg cfg;
	uint32_t key = 0, prog_id;
	int fds[2], rc;

	rc = find_attached(a, &prog_id, fds);
	if (rc == -ENOENT)
		return die(EX_ERR, "%s: no trimmer attached", a->iface);
	if (rc != 0)
		return die(EX_ERR, "%s: %s", a->iface, strerror(-rc));
	rc = bpf_map_lookup_elem(fds[0], &key, &cfg);
	if (rc == 0)
		rc = bpf_map_lookup_elem_flags(fds[1], &key, &st, BPF_F_LOCK); /* one consistent copy */
	if (rc != 0) {
		rc = errno;
		close(fds[0]);
		close(fds[1]);
		return die(EX_ERR, "%s: reading the maps: %s", a->iface, strerror(rc));
	}
	uint64_t t = now_ns();
	/* The queue now: what is left of the backlog at this instant (vq_bytes is as of the last packet). */
	uint64_t vq_now = st.generation == cfg.generation && st.empty_at_ns > t && cfg.rate_bps > 0 ?
		(st.empty_at_ns - t) * cfg.rate_bps / 8000000000ull : 0;
	const struct { const char *k; uint64_t v; } c[] = {
		{ "packets", st.packets }, { "bytes", st.bytes }, { "uet", st.uet }, { "trimmable", st.trimmable },
		{ "trimmed", st.trimmed }, { "trimmed_bytes", st.trimmed_bytes }, { "trim_failed", st.trim_failed },
		{ "overflow", st.overflow }, { "vq_bytes", st.vq_bytes }, { "vq_now", vq_now },
		{ "vq_peak", st.vq_peak },
	};
	const size_t nc = sizeof(c) / sizeof(c[0]);
	if (a->json) {
		printf("{\"iface\": \"%s\", \"prog_id\": %u, \"config\": {\"rate_bps\": %llu, \"min_bytes\": %llu, "
		       "\"limit_bytes\": %llu, \"uet_port\": %u, \"dscp_trimmable\": %u, \"dscp_trimmed\": %u, "
		       "\"generation\": %u}, \"counters\": {", a->iface, prog_id, (unsigned long long)cfg.rate_bps,
		       (unsigned long long)cfg.min_bytes, (unsigned long long)cfg.limit_bytes, cfg.uet_port,
		       cfg.dscp_trimmable, cfg.dscp_trimmed, cfg.generation);
		for (size_t i = 0; i < nc; i++)
			printf("%s\"%s\": %llu", i ? ", " : "", c[i].k, (unsigned long long)c[i].v);
		printf("}}\n");
	} else {
		print_cfg("trimmer on", a, prog_id, &cfg);
		for (size_t i = 0; i < nc; i++)
			printf("  %-13s %llu\n", c[i].k, (unsigned long long)c[i].v);
	}
	if (a->reset) { /* counters and peak to zero; the virtual queue itself goes on */
		struct ebpf_trim_state z = st;
		z.packets = z.bytes = z.uet = z.trimmable = z.trimmed = z.trimmed_bytes = z.trim_failed = z.overflow = 0;
		z.vq_peak = 0;
		if (bpf_map_update_elem(fds[1], &key, &z, BPF_F_LOCK) != 0)
			fprintf(stderr, "uetemu-trim: %s: resetting the counters: %s\n", a->iface, strerror(errno));
	}
	close(fds[0]);
	close(fds[1]);
	return EX_OK;
}

int main(int argc, char **argv)
{
	struct args a;
	int rc = parse_args(argc, argv, &a);

	if (rc < 0)
		return EX_OK; /* help */
	if (rc != EX_OK)
		return rc;
	libbpf_set_print(libbpf_out);
	if (strcmp(a.cmd, "attach") == 0)
		return cmd_attach(&a);
	if (strcmp(a.cmd, "detach") == 0)
		return cmd_detach(&a);
	return cmd_stats(&a);
}
