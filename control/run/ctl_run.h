/* Running a loaded config: build the devices and links, run them in virtual or real time, report. */
#ifndef CTL_RUN_H
#define CTL_RUN_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "ctl_config.h"
#include "ctl_report.h"

enum ctl_mode { CTL_MODE_VIRTUAL = 0, CTL_MODE_REALTIME };

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
	uint32_t threads;               /* virtual time: threads running the partitions (--threads); 0 or 1: one */
	uint32_t rank, ranks;           /* virtual time under mpirun: this process's MPI rank, and their number
	                                   (run_mpi_init(); 0 or 1: no MPI) */
};

/**
 * Apply every check ctl_run() applies to @p cfg in @p mode before it starts, by building the run's models (NICs,
 * links, switches, the application) without writing anything, then freeing them: what `uetemu validate` runs.
 * Returns 0, or -EINVAL (or -ENOMEM) with the errors, one per line, in @p err (size @p errlen).
 */
int ctl_run_check(const struct ctl_config *cfg, enum ctl_mode mode, char *err, size_t errlen);

/**
 * Run @p cfg: write captures, records, DIR/summary.json, and the summary table on stdout. Captures and records
 * written so far are flushed and closed on every return path. *@p stop says why the run ended (also on error).
 * Returns 0, or -errno with a message in @p err (bad topology for the mode, cannot create outputs, EAL/port
 * failure).
 */
int ctl_run(const struct ctl_config *cfg, const struct ctl_run_opts *opts, enum ctl_stop *stop, char *err,
	    size_t errlen);

#endif /* CTL_RUN_H */
