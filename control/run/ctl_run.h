/* Running a loaded config: build the devices and links, run them in virtual or real time, report. */
#ifndef CTL_RUN_H
#define CTL_RUN_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "ctl_config.h"
#include "ctl_report.h"

enum ctl_mode { CTL_MODE_VIRTUAL = 0, CTL_MODE_REALTIME };

/* --threads auto (struct ctl_run_opts threads) */
#define CTL_THREADS_AUTO UINT32_MAX

/** How to run. */
struct ctl_run_opts {
	enum ctl_mode mode;
	const char *out_dir;            /* created if missing */
	int eal_argc;                   /* EAL args after "--" (real time only) */
	char **eal_argv;
	volatile sig_atomic_t *quit;    /* set by the signal handler; polled by the run loops */
	int progress;                   /* print a progress line to stderr about once a second */
	const char *partition;          /* --partition NAME: run only that partition (real time), or NULL */
	const char *record_dir;         /* real time: record the session into this directory (--record), or NULL */
	const char *const *sets;        /* the --set overrides the config was loaded with (saved by --record) */
	int n_sets;
	const char *rerun_dir;          /* re-run the session recorded in this directory (uetemu rerun), or NULL */
	int *rerun_same;                /* a re-run sets it: 1 identical to the session, 0 not (may be NULL) */
	struct ctl_verdict *verdict;    /* filled with the run's verdict when it reports (may be NULL) */
	uint32_t threads;               /* virtual time: threads running the partitions (--threads); 0 or 1: one;
	                                   CTL_THREADS_AUTO: as many as pay (ctl_run_vt.c, docs/parallel.md) */
	uint32_t rank, ranks;           /* virtual time under mpirun: this process's MPI rank, and their number
	                                   (run_mpi_init(); 0 or 1: no MPI) */
	const char *metrics_addr;       /* --metrics ADDR:PORT: the live metrics endpoint (docs/metrics.md), or NULL */
	uint64_t stats_interval;        /* --stats-interval, ps: the per-interval stats stream; 0 off */
	const char *stats_out;          /* --stats-out FILE, "-" stdout (default DIR/stats.jsonl) */
	bool pass_profile;              /* real time, --pass-profile: time the parts of the loop's passes */
	bool tx_thread;                 /* real time, --tx-thread: syscall-sending ports send from a thread */
	uint64_t stall_threshold;       /* real time, --stall-threshold, wall ps: a longer gap between two passes of
	                                   an lcore is a stall; 0: a quarter of the smallest RTO (docs/realtime.md) */
	bool stall_off;                 /* --stall-threshold off: stalls counted, never held back (all charged) */
	bool stall_budget_set;          /* --stall-budget given: */
	uint32_t stall_budget_pct;      /* ... stalls held back while the held time is within this % of the wall
	                                   time run so far (default CTL_STALL_BUDGET_PCT) */
};

/* --stall-budget's default, % of the wall time run so far */
#define CTL_STALL_BUDGET_PCT 50u

/**
 * Whether @p addr ("ADDR:PORT", an IPv4 address or a name of one) can be served by --metrics: 0; -EINVAL (bad
 * address, message in @p err); -ENOTSUP (this build has no libmicrohttpd, message in @p err).
 */
int ctl_run_metrics_check(const char *addr, char *err, size_t errlen);

/**
 * Apply every check ctl_run() applies to @p cfg in @p mode before it starts, by building the run's models (NICs,
 * links, switches, the application) without writing anything, then freeing them: what `uetemu validate` runs.
 * Returns 0, or -EINVAL (or -ENOMEM) with the errors, one per line, in @p err (size @p errlen).
 */
int ctl_run_check(const struct ctl_config *cfg, enum ctl_mode mode, char *err, size_t errlen);

/**
 * Real time: check what the run would trip on before it starts (docs/realtime.md, Preflight checks), each with
 * its own message, one per line in @p err: ctl_run_preflight_prefix() for the EAL args @p eal_argv (@p eal_argc
 * of them, what follows "--"), ctl_run_preflight_port() for every port; and print, each on a line of stderr that
 * starts with @p prefix, the warnings of ctl_run_preflight_warn(). Reads the system (interfaces, capabilities,
 * the EAL's lock, the PMD directory); starts nothing. Returns 0, or the first check's -errno.
 */
int ctl_run_preflight(const struct ctl_config *cfg, int eal_argc, char **eal_argv, const char *prefix, char *err,
		      size_t errlen);

/**
 * Port @p i of @p cfg: its PMD exists in this DPDK build (a PCI address: the device exists), the interface it
 * attaches to exists (net_af_packet, net_af_xdp, net_pcap; net_tap's iface= is a valid name, free or a tap), and
 * the process is root or holds the capabilities the PMD needs. Returns 0, or -ENODEV (no such driver, interface
 * or PCI device), -EINVAL (a name Linux refuses, a required devarg missing), -EEXIST (net_tap's name taken by an
 * interface that is not a tap), -ENOENT (net_pcap's rx_pcap= unreadable), -EPERM (privileges), with one line
 * appended to @p err.
 */
int ctl_run_preflight_port(const struct ctl_config *cfg, uint32_t i, char *err, size_t errlen);

/** Warn on stderr, each line starting with @p prefix, about every devarg of port @p i that its PMD (one of the
 * common ones: net_tap, net_af_packet, net_af_xdp, net_pcap, net_memif, net_null, net_ring) does not take. */
/**
 * ctl_run_preflight_port()'s checks for one DPDK device string @p dev (a port's `dev`, `uetemu conform --dev`),
 * its messages starting with @p where. 0, or -errno with the reason in @p err.
 */
int ctl_run_preflight_dev(const char *where, const char *dev, char *err, size_t errlen);

void ctl_run_preflight_warn(const struct ctl_config *cfg, uint32_t i, const char *prefix);

/**
 * The --file-prefix of the EAL args @p eal_argv is free: no process holds the lock of its runtime directory's
 * config file (/var/run/dpdk/PREFIX/config for root), as rte_eal_init() would take it. No --file-prefix (the
 * default uetemu-<pid>), --in-memory or --no-shconf: free. Returns 0, or -EBUSY with one line appended to @p err.
 */
int ctl_run_preflight_prefix(int eal_argc, char **eal_argv, char *err, size_t errlen);

/**
 * At run time, after the EAL (@p port -1) or port @p port of @p cfg would not start: when the preflight check
 * finds why, its message replaces the one in @p err and its -errno is returned; else 0 and @p err is left.
 */
int ctl_run_preflight_explain(const struct ctl_config *cfg, int port, int eal_argc, char **eal_argv, char *err,
			      size_t errlen);

/**
 * Run @p cfg: write captures, records, DIR/summary.json, and the summary table on stdout. Captures and records
 * written so far are flushed and closed on every return path. *@p stop says why the run ended (also on error).
 * Returns 0, or -errno with a message in @p err (bad topology for the mode, cannot create outputs, EAL/port
 * failure).
 */
int ctl_run(const struct ctl_config *cfg, const struct ctl_run_opts *opts, enum ctl_stop *stop, char *err,
	    size_t errlen);

#endif /* CTL_RUN_H */
