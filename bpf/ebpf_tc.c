/* ebpf_tc: the tc (clsact egress) attach, re-configure, detach and read shared by uetemu-ecn and uetemu-trim. */
#include "ebpf_tc.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "ebpf.h"
#include "emu_units.h"

enum { EX_ERR = EBPF_TC_EX_ERR };

static int vdie(const struct ebpf_tc_tool *t, int code, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", t->name);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	if (code == EBPF_TC_EX_USAGE && t->usage != NULL)
		fputs(t->usage, stderr);
	return code;
}

int ebpf_tc_die(const struct ebpf_tc_tool *t, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdie(t, code, fmt, ap);
	va_end(ap);
	return code;
}

static int die(const struct ebpf_tc_tool *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int die(const struct ebpf_tc_tool *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdie(t, EX_ERR, fmt, ap);
	va_end(ap);
	return EX_ERR;
}

/* Set while asking tc whether the program is attached: "no clsact qdisc" is an answer then, not an error. */
static bool libbpf_quiet;

/* libbpf's own messages: warnings and errors only (its debug output is the verifier log, on failure). */
static int libbpf_out(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return level <= LIBBPF_WARN && !libbpf_quiet ? vfprintf(stderr, fmt, ap) : 0;
}

void ebpf_tc_init(void)
{
	libbpf_set_print(libbpf_out);
}

static uint32_t cfg_get(const void *cfg, size_t off)
{
	uint32_t v;

	memcpy(&v, (const char *)cfg + off, sizeof(v));
	return v;
}

static void cfg_set(void *cfg, size_t off, uint32_t v)
{
	memcpy((char *)cfg + off, &v, sizeof(v));
}

static struct bpf_tc_hook egress_hook(int ifindex)
{
	struct bpf_tc_hook h;

	memset(&h, 0, sizeof(h));
	h.sz = sizeof(h);
	h.ifindex = ifindex;
	h.attach_point = BPF_TC_EGRESS;
	return h;
}

static struct bpf_tc_opts our_filter(const struct ebpf_tc_tool *t, int prog_fd)
{
	struct bpf_tc_opts o;

	memset(&o, 0, sizeof(o));
	o.sz = sizeof(o);
	o.handle = t->handle;
	o.priority = t->prio;
	o.prog_fd = prog_fd;
	return o;
}

int ebpf_tc_find(const struct ebpf_tc_tool *t, int ifindex, const char *iface, uint32_t *prog_id, int fds[2])
{
	const char *const names[2] = { t->cfg_map, t->state_map };
	struct bpf_tc_hook h = egress_hook(ifindex);
	struct bpf_tc_opts o = our_filter(t, 0);
	char err[256];
	int rc;

	libbpf_quiet = true;
	rc = bpf_tc_query(&h, &o);
	libbpf_quiet = false;
	if (rc != 0)
		return rc == -EINVAL ? -ENOENT : rc; /* -EINVAL: no clsact qdisc at all */
	*prog_id = o.prog_id;
	rc = ebpf_prog_maps(o.prog_id, t->prog, names, fds, 2, err, sizeof(err));
	if (rc != 0)
		fprintf(stderr, "%s: %s: the filter at handle %#x priority %#x: %s\n", t->name, iface, t->handle,
			t->prio, err);
	return rc;
}

int ebpf_tc_attach(const struct ebpf_tc_tool *t, int ifindex, const char *iface, const char *objpath, void *cfg,
		   uint32_t *prog_id, bool *reconfigured)
{
	struct bpf_tc_hook h = egress_hook(ifindex);
	struct bpf_object *obj;
	struct bpf_tc_opts o;
	char path[PATH_MAX + 256];
	char old[256];
	uint32_t key = 0;
	int fds[2], rc, cfg_fd, prog_fd;

	*reconfigured = false;
	if (t->cfg_size > sizeof(old))
		return die(t, "%s: configuration too large", iface);
	rc = ebpf_tc_find(t, ifindex, iface, prog_id, fds);
	if (rc == 0) { /* re-configure in place: a new generation restarts the virtual queue, counters go on */
		rc = bpf_map_lookup_elem(fds[0], &key, old);
		cfg_set(cfg, t->flags_off, rc == 0 ? cfg_get(old, t->flags_off) : 0);
		cfg_set(cfg, t->generation_off, rc == 0 ? cfg_get(old, t->generation_off) + 1 : 1);
		rc = bpf_map_update_elem(fds[0], &key, cfg, BPF_ANY);
		close(fds[0]);
		close(fds[1]);
		if (rc != 0)
			return die(t, "%s: writing the configuration: %s", iface, strerror(errno));
		*reconfigured = true;
		return 0;
	}
	if (rc != -ENOENT)
		return die(t, "%s: %s", iface, strerror(-rc));
	if (objpath != NULL)
		snprintf(path, sizeof(path), "%s", objpath);
	else if (ebpf_obj_find(t->obj, path, sizeof(path)) != 0)
		return die(t, "%s", path);
	obj = bpf_object__open_file(path, NULL);
	if (obj == NULL)
		return die(t, "%s: %s", path, strerror(errno));
	if (bpf_object__load(obj) != 0) {
		rc = errno;
		bpf_object__close(obj);
		return die(t, "loading %s: %s (root or CAP_BPF + CAP_NET_ADMIN needed)", path, strerror(rc));
	}
	struct bpf_program *prog = bpf_object__find_program_by_name(obj, t->prog);
	cfg_fd = bpf_object__find_map_fd_by_name(obj, t->cfg_map);
	if (prog == NULL || cfg_fd < 0) {
		bpf_object__close(obj);
		return die(t, "%s: no program '%s' or map '%s'", path, t->prog, t->cfg_map);
	}
	prog_fd = bpf_program__fd(prog);
	rc = bpf_tc_hook_create(&h);
	if (rc == 0)
		cfg_set(cfg, t->flags_off, cfg_get(cfg, t->flags_off) | EBPF_ECN_F_CLSACT_OURS);
	else if (rc != -EEXIST) {
		bpf_object__close(obj);
		return die(t, "%s: creating the clsact qdisc: %s", iface, strerror(-rc));
	}
	cfg_set(cfg, t->generation_off, 1);
	if (bpf_map_update_elem(cfg_fd, &key, cfg, BPF_ANY) != 0) {
		rc = -errno;
		goto fail;
	}
	o = our_filter(t, prog_fd);
	rc = bpf_tc_attach(&h, &o);
	if (rc != 0)
		goto fail;
	*prog_id = o.prog_id;
	bpf_object__close(obj); /* the tc filter holds the program, the program its maps */
	return 0;
fail:
	if (cfg_get(cfg, t->flags_off) & EBPF_ECN_F_CLSACT_OURS) {
		h.attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS;
		bpf_tc_hook_destroy(&h);
	}
	bpf_object__close(obj);
	return die(t, "%s: attaching to egress: %s", iface, strerror(-rc));
}

int ebpf_tc_detach(const struct ebpf_tc_tool *t, int ifindex, const char *iface)
{
	struct bpf_tc_hook h = egress_hook(ifindex);
	struct bpf_tc_opts o = our_filter(t, 0);
	char cfg[256] = { 0 };
	uint32_t key = 0, prog_id, flags;
	int fds[2], rc;

	if (t->cfg_size > sizeof(cfg))
		return die(t, "%s: configuration too large", iface);
	rc = ebpf_tc_find(t, ifindex, iface, &prog_id, fds);
	if (rc == -ENOENT)
		return die(t, "%s: no %s attached", iface, t->what);
	if (rc != 0)
		return die(t, "%s: %s", iface, strerror(-rc));
	(void)bpf_map_lookup_elem(fds[0], &key, cfg);
	close(fds[0]);
	close(fds[1]);
	flags = cfg_get(cfg, t->flags_off);
	rc = bpf_tc_detach(&h, &o);
	if (rc != 0)
		return die(t, "%s: detaching: %s", iface, strerror(-rc));
	if (flags & EBPF_ECN_F_CLSACT_OURS) { /* attach created clsact: remove it again (ingress filters too) */
		h.attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS;
		rc = bpf_tc_hook_destroy(&h);
		if (rc != 0 && rc != -ENOENT)
			fprintf(stderr, "%s: %s: removing the clsact qdisc: %s\n", t->name, iface, strerror(-rc));
	}
	printf("%s: detached from %s egress (program id %u)%s\n", t->name, iface, prog_id,
	       (flags & EBPF_ECN_F_CLSACT_OURS) ? ", clsact qdisc removed" : "");
	return 0;
}

int ebpf_tc_read(const struct ebpf_tc_tool *t, int ifindex, const char *iface, void *cfg, void *state,
		 uint32_t *prog_id, int fds[2])
{
	uint32_t key = 0;
	int rc;

	rc = ebpf_tc_find(t, ifindex, iface, prog_id, fds);
	if (rc == -ENOENT)
		return die(t, "%s: no %s attached", iface, t->what);
	if (rc != 0)
		return die(t, "%s: %s", iface, strerror(-rc));
	rc = bpf_map_lookup_elem(fds[0], &key, cfg);
	if (rc == 0)
		rc = bpf_map_lookup_elem_flags(fds[1], &key, state, BPF_F_LOCK); /* one consistent copy */
	if (rc != 0) {
		rc = errno;
		close(fds[0]);
		close(fds[1]);
		return die(t, "%s: reading the maps: %s", iface, strerror(rc));
	}
	return 0;
}

uint64_t ebpf_tc_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts); /* the clock bpf_ktime_get_ns() reads */
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int ebpf_tc_command(const struct ebpf_tc_tool *t, int argc, char **argv, const char **cmd)
{
	if (argc < 2)
		return ebpf_tc_die(t, EBPF_TC_EX_USAGE, "no command");
	*cmd = argv[1];
	if (strcmp(*cmd, "help") == 0 || strcmp(*cmd, "--help") == 0 || strcmp(*cmd, "-h") == 0) {
		fputs(t->usage, stdout);
		return -1;
	}
	if (strcmp(*cmd, "attach") != 0 && strcmp(*cmd, "detach") != 0 && strcmp(*cmd, "stats") != 0)
		return ebpf_tc_die(t, EBPF_TC_EX_USAGE, "unknown command '%s'", *cmd);
	return 0;
}

int ebpf_tc_ifindex(const struct ebpf_tc_tool *t, const char *iface, int *ifindex)
{
	*ifindex = (int)if_nametoindex(iface);
	if (*ifindex == 0)
		return ebpf_tc_die(t, EX_ERR, "interface '%s': %s", iface, strerror(errno));
	return 0;
}

uint64_t ebpf_tc_vq_now(uint32_t st_gen, uint32_t cfg_gen, uint64_t empty_at_ns, uint64_t rate_bps, uint64_t now_ns)
{
	return st_gen == cfg_gen && empty_at_ns > now_ns && rate_bps > 0 ?
		(empty_at_ns - now_ns) * rate_bps / 8000000000ull : 0;
}

void ebpf_tc_counters_print(const struct ebpf_tc_counter *c, size_t n, bool json, int width)
{
	for (size_t i = 0; i < n; i++) {
		if (json)
			printf("%s\"%s\": %llu", i ? ", " : "", c[i].k, (unsigned long long)c[i].v);
		else
			printf("  %-*s %llu\n", width, c[i].k, (unsigned long long)c[i].v);
	}
	if (json)
		printf("}}\n");
}

/* The stats command: one consistent read, printed; with @p reset its counters and peak back to zero (the virtual
 * queue itself goes on). */
static int run_stats(const struct ebpf_tc_tool *t, int ifindex, const char *iface, bool json, bool reset)
{
	uint64_t cfg[32], st[32], zero[32]; /* room for either loader's values (checked below) */
	uint32_t key = 0, prog_id;
	int fds[2];

	if (t->cfg_size > sizeof(cfg) || t->state_size > sizeof(st))
		return die(t, "internal: map values larger than %zu bytes", sizeof(cfg));
	if (ebpf_tc_read(t, ifindex, iface, cfg, st, &prog_id, fds) != 0)
		return EX_ERR;
	memcpy(zero, st, t->state_size);
	t->print_stats(iface, prog_id, cfg, st, ebpf_tc_now_ns(), json, zero);
	if (reset && bpf_map_update_elem(fds[1], &key, zero, BPF_F_LOCK) != 0)
		fprintf(stderr, "%s: %s: resetting the counters: %s\n", t->name, iface, strerror(errno));
	close(fds[0]);
	close(fds[1]);
	return EBPF_TC_EX_OK;
}

int ebpf_tc_run(const struct ebpf_tc_tool *t, const char *cmd, int ifindex, const char *iface, const char *obj,
		void *cfg, bool json, bool reset)
{
	ebpf_tc_init();
	if (strcmp(cmd, "attach") == 0) {
		uint32_t prog_id;
		bool reconfigured;

		if (ebpf_tc_attach(t, ifindex, iface, obj, cfg, &prog_id, &reconfigured) != 0)
			return EX_ERR;
		t->print_cfg(reconfigured ? "re-configured" : "attached to", iface, prog_id, cfg);
		return EBPF_TC_EX_OK;
	}
	if (strcmp(cmd, "detach") == 0)
		return ebpf_tc_detach(t, ifindex, iface) != 0 ? EX_ERR : EBPF_TC_EX_OK;
	return run_stats(t, ifindex, iface, json, reset);
}

/* The options every loader takes; a loader's own come after them. */
static const struct option common_opts[] = {
	{ "rate", required_argument, NULL, 'r' },  { "min", required_argument, NULL, 'm' },
	{ "limit", required_argument, NULL, 'l' }, { "obj", required_argument, NULL, 'o' },
	{ "json", no_argument, NULL, 'j' },        { "reset", no_argument, NULL, 'R' },
	{ "help", no_argument, NULL, 'h' },
};
#define N_COMMON (sizeof(common_opts) / sizeof(common_opts[0]))
#define OPTS_MAX 16

/* Option @p c of the shared ones into @p a; 0, -errno with the reason in @p err, or 1: not one of them. */
static int common_opt(struct ebpf_tc_args *a, int c, const char *arg, char *err, size_t errlen)
{
	switch (c) {
	case 'r': a->have_rate = true; return ebpf_parse_rate(arg, &a->rate_bps, err, errlen);
	case 'm': a->have_min = true; return emu_parse_size(arg, &a->min_bytes, err, errlen);
	case 'l': a->have_limit = true; return emu_parse_size(arg, &a->limit_bytes, err, errlen);
	case 'o': a->obj = arg; return 0;
	case 'j': a->json = true; return 0;
	case 'R': a->reset = true; return 0;
	default: return 1;
	}
}

int ebpf_tc_parse(const struct ebpf_tc_tool *t, int argc, char **argv, const struct ebpf_tc_own *own,
		  struct ebpf_tc_args *a)
{
	struct option lo[OPTS_MAX];
	size_t n = 0;
	char err[256];
	int c, rc;

	memset(a, 0, sizeof(*a));
	if ((rc = ebpf_tc_command(t, argc, argv, &a->cmd)) != 0)
		return rc;
	memcpy(lo, common_opts, sizeof(common_opts));
	for (n = N_COMMON; own->opts[n - N_COMMON].name != NULL && n + 1 < OPTS_MAX; n++)
		lo[n] = own->opts[n - N_COMMON];
	lo[n] = (struct option){ NULL, 0, NULL, 0 };
	optind = 2;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		err[0] = '\0';
		if (c == 'h') {
			fputs(t->usage, stdout);
			return -1;
		}
		if (c == '?' || c == ':')
			return ebpf_tc_die(t, EBPF_TC_EX_USAGE, "bad option");
		rc = common_opt(a, c, optarg, err, sizeof(err));
		if (rc == 1)
			rc = own->set(own->ctx, c, optarg, err, sizeof(err));
		if (rc != 0)
			return ebpf_tc_die(t, EBPF_TC_EX_USAGE, "%s: %s", argv[optind - 1], err);
	}
	if (optind != argc - 1)
		return ebpf_tc_die(t, EBPF_TC_EX_USAGE, "%s takes one interface name", a->cmd);
	a->iface = argv[optind];
	return 0;
}

int ebpf_tc_args_check(const struct ebpf_tc_tool *t, const struct ebpf_tc_args *a)
{
	if (strcmp(a->cmd, "stats") != 0 && (a->json || a->reset))
		return ebpf_tc_die(t, EBPF_TC_EX_USAGE, "--json and --reset go with stats");
	return 0;
}

int ebpf_tc_main(const struct ebpf_tc_tool *t, int parsed, const struct ebpf_tc_args *a, void *cfg)
{
	if (parsed < 0)
		return EBPF_TC_EX_OK; /* help */
	if (parsed != EBPF_TC_EX_OK)
		return parsed;
	return ebpf_tc_run(t, a->cmd, a->ifindex, a->iface, a->obj, cfg, a->json, a->reset);
}
