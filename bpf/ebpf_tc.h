/* ebpf_tc: what the tc (clsact egress) loaders uetemu-ecn and uetemu-trim share: their command line and messages,
 * finding their attached program through its tc filter, loading and attaching the object, re-configuring it in
 * place, detaching it, reading its two maps, printing and resetting its counters. Host C only, linked with libbpf.
 * Each loader describes itself in one struct ebpf_tc_tool and keeps its own options, its configuration's printing
 * and its counters.
 */
#ifndef EBPF_TC_H
#define EBPF_TC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct option;

/** A loader: its name (the prefix of its messages), its program, maps and tc filter, its cfg layout. */
struct ebpf_tc_tool {
	const char *name;        /* "uetemu-ecn" */
	const char *usage;       /* its usage text, after a usage error */
	const char *what;        /* "CE marker": in "no CE marker attached" */
	const char *obj;         /* the object's file name, found by ebpf_obj_find() unless --obj names one */
	const char *prog;        /* the program's name */
	const char *cfg_map;     /* fds[0] */
	const char *state_map;   /* fds[1] */
	uint32_t handle, prio;   /* of the tc filter on clsact egress */
	size_t cfg_size;         /* sizeof the cfg map's value */
	size_t generation_off;   /* offsetof its __u32 generation */
	size_t flags_off;        /* offsetof its __u32 flags (EBPF_ECN_F_CLSACT_OURS) */
	size_t state_size;       /* sizeof the state map's value */
	/** Say @p what ("attached to", "re-configured", "CE marker on") of @p iface, program @p prog_id, @p cfg. */
	void (*print_cfg)(const char *what, const char *iface, uint32_t prog_id, const void *cfg);
	/** Write the stats of @p cfg and @p state (read at @p now_ns) as JSON (@p json) or text; with @p reset,
	 *  set @p zero (a copy of state) to what the reset writes back: counters and peak to zero. */
	void (*print_stats)(const char *iface, uint32_t prog_id, const void *cfg, const void *state, uint64_t now_ns,
			    bool json, void *zero);
};

/** The loaders' exit status: done, an error (named on stderr), a usage error. */
enum { EBPF_TC_EX_OK = 0, EBPF_TC_EX_ERR = 1, EBPF_TC_EX_USAGE = 2 };

/** Write "NAME: <fmt...>" on stderr, then t->usage after a usage error (@p code EBPF_TC_EX_USAGE). Returns
 *  @p code. */
int ebpf_tc_die(const struct ebpf_tc_tool *t, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/**
 * The command word argv[1]: "attach", "detach" or "stats" in *@p cmd and 0; -1 after writing the usage on stdout
 * (help, --help, -h); or EBPF_TC_EX_USAGE (said on stderr).
 */
int ebpf_tc_command(const struct ebpf_tc_tool *t, int argc, char **argv, const char **cmd);

/** The command line every loader takes: its command, interface and the options they share. */
struct ebpf_tc_args {
	const char *cmd, *iface, *obj;       /* obj: --obj, or NULL */
	uint64_t rate_bps, min_bytes, limit_bytes; /* --rate, --min, --limit */
	bool have_rate, have_min, have_limit, json, reset;
	int ifindex;
};

/** A loader's own options: getopt_long() rows (@p opts, NULL-terminated) and their handler, which stores option
 *  @p c's argument @p arg in @p ctx and returns 0 or -errno with the reason in @p err. */
struct ebpf_tc_own {
	const struct option *opts;
	int (*set)(void *ctx, int c, const char *arg, char *err, size_t errlen);
	void *ctx;
};

/**
 * Parse argv into @p a: the command (ebpf_tc_command()), --rate, --min, --limit, --obj, --json, --reset, --help
 * and @p own's options, then the one interface name. Returns 0, -1 after the usage on stdout (help), or
 * EBPF_TC_EX_USAGE (said on stderr). The loader then checks what its command needs, then ebpf_tc_args_check().
 */
int ebpf_tc_parse(const struct ebpf_tc_tool *t, int argc, char **argv, const struct ebpf_tc_own *own,
		  struct ebpf_tc_args *a);

/** --json and --reset go with stats only: 0, or EBPF_TC_EX_USAGE (said on stderr). */
int ebpf_tc_args_check(const struct ebpf_tc_tool *t, const struct ebpf_tc_args *a);

/** The index of interface @p iface in *@p ifindex: 0, or EBPF_TC_EX_ERR (said on stderr). */
int ebpf_tc_ifindex(const struct ebpf_tc_tool *t, const char *iface, int *ifindex);

/** The virtual queue now, bytes: what is left at @p now_ns of a backlog that drains at @p rate_bps by
 *  @p empty_at_ns, when the state's generation @p st_gen is the cfg's @p cfg_gen (else 0: it restarts). */
uint64_t ebpf_tc_vq_now(uint32_t st_gen, uint32_t cfg_gen, uint64_t empty_at_ns, uint64_t rate_bps, uint64_t now_ns);

/** One counter of the stats command. */
struct ebpf_tc_counter {
	const char *k;
	uint64_t v;
};

/** Write @p n counters @p c: as the rest of a JSON object, closing it and its parent ("k": v, ...}}), or as text
 *  lines with the keys in a column @p width wide. */
void ebpf_tc_counters_print(const struct ebpf_tc_counter *c, size_t n, bool json, int width);

/**
 * Run @p cmd ("attach", "detach", "stats"; ebpf_tc_command()) on @p iface (index @p ifindex): attach with
 * @p cfg (object @p obj, or NULL to find t->obj), then t->print_cfg; detach; stats: read, t->print_stats, and
 * with @p reset write its zeroed counters back. Calls ebpf_tc_init(). Returns the exit status.
 */
int ebpf_tc_run(const struct ebpf_tc_tool *t, const char *cmd, int ifindex, const char *iface, const char *obj,
		void *cfg, bool json, bool reset);

/** A loader's main after parsing: @p parsed the parse's result (0, -1 help, or an exit status); on 0 run @p a's
 *  command with @p cfg (ebpf_tc_run()). Returns the exit status. */
int ebpf_tc_main(const struct ebpf_tc_tool *t, int parsed, const struct ebpf_tc_args *a, void *cfg);

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
