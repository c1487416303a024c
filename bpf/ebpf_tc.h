/* ebpf_tc: what the tc (clsact egress) loaders uetemu-ecn and uetemu-trim share: finding their attached program
 * through its tc filter, loading and attaching the object, re-configuring it in place, detaching it, reading its
 * two maps. Host C only, linked with libbpf. Each loader describes itself in one struct ebpf_tc_tool and keeps
 * its own options, its configuration's printing and its counters.
 */
#ifndef EBPF_TC_H
#define EBPF_TC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** A loader: its name (the prefix of its messages), its program, maps and tc filter, its cfg layout. */
struct ebpf_tc_tool {
	const char *name;        /* "uetemu-ecn" */
	const char *what;        /* "CE marker": in "no CE marker attached" */
	const char *obj;         /* the object's file name, found by ebpf_obj_find() unless --obj names one */
	const char *prog;        /* the program's name */
	const char *cfg_map;     /* fds[0] */
	const char *state_map;   /* fds[1] */
	uint32_t handle, prio;   /* of the tc filter on clsact egress */
	size_t cfg_size;         /* sizeof the cfg map's value */
	size_t generation_off;   /* offsetof its __u32 generation */
	size_t flags_off;        /* offsetof its __u32 flags (EBPF_ECN_F_CLSACT_OURS) */
};

/** Install the libbpf message filter (warnings and errors only). Call once before the others. */
void ebpf_tc_init(void);

/**
 * The attached program's id and its two maps (fds[0] cfg, fds[1] state) on interface @p ifindex (named @p iface in
 * messages). 0, -ENOENT when not attached, or -errno (named on stderr).
 */
int ebpf_tc_find(const struct ebpf_tc_tool *t, int ifindex, const char *iface, uint32_t *prog_id, int fds[2]);

/**
 * Attach the program, or re-configure the attached one in place (a new generation restarts the virtual queue,
 * the counters go on), with @p cfg (its generation and flags are set here). @p obj: the object's path, or NULL to
 * find t->obj. On success *prog_id is the program's id and *reconfigured says which it was; returns 0, or 1 after
 * naming the error on stderr.
 */
int ebpf_tc_attach(const struct ebpf_tc_tool *t, int ifindex, const char *iface, const char *obj, void *cfg,
		   uint32_t *prog_id, bool *reconfigured);

/** Detach the program (and the clsact qdisc if attach created it), saying so on stdout. 0, or 1 (on stderr). */
int ebpf_tc_detach(const struct ebpf_tc_tool *t, int ifindex, const char *iface);

/**
 * Find the attached program and read one consistent copy of its cfg (t->cfg_size bytes) and state
 * (under its lock). On 0 the caller closes fds[0] and fds[1]; 1: the error is on stderr.
 */
int ebpf_tc_read(const struct ebpf_tc_tool *t, int ifindex, const char *iface, void *cfg, void *state,
		 uint32_t *prog_id, int fds[2]);

/** CLOCK_MONOTONIC in ns: the clock bpf_ktime_get_ns() reads. */
uint64_t ebpf_tc_now_ns(void);

#endif
