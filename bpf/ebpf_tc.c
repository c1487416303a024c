/* ebpf_tc: the tc (clsact egress) attach, re-configure, detach and read shared by uetemu-ecn and uetemu-trim. */
#include "ebpf_tc.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "ebpf.h"

enum { EX_ERR = 1 };

static int die(const struct ebpf_tc_tool *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int die(const struct ebpf_tc_tool *t, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", t->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
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
