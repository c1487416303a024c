/* uetemu rerun DIR [--out OUT]: the session a real-time run recorded (--record DIR), re-run in virtual time. */
#include "ctl_cli_pvt.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl_config.h"
#include "ctl_run.h"
#include "rec.h"

#define RERUN_SETS_MAX 256
#define RERUN_SET_LEN 4096

/* DIR/sets: the --set overrides of the recorded run, one a line, into @p sets (@p buf holds them). Count or -1. */
static int read_sets(const char *dir, char (*buf)[RERUN_SET_LEN], const char **sets)
{
	char path[PATH_MAX];
	int n = 0;

	snprintf(path, sizeof(path), "%s/sets", dir);
	FILE *f = fopen(path, "r");

	if (f == NULL) {
		fprintf(stderr, "uetemu: rerun: %s: cannot read it: not a session recorded by uetemu run --record?\n",
			path);
		return -1;
	}
	while (n < RERUN_SETS_MAX && fgets(buf[n], RERUN_SET_LEN, f) != NULL) {
		buf[n][strcspn(buf[n], "\n")] = '\0';
		sets[n] = buf[n];
		n++;
	}
	fclose(f);
	return n;
}

int ctl_cli_rerun(const char *dir, const char *out, const struct ctl_run_opts *base)
{
	static char buf[RERUN_SETS_MAX][RERUN_SET_LEN];
	const char *sets[RERUN_SETS_MAX];
	char cfgpath[PATH_MAX], outdir[PATH_MAX], err[8192];
	struct ctl_config cfg;
	enum ctl_stop stop;
	int same = 0, n = read_sets(dir, buf, sets);

	if (n < 0)
		return CTL_EXIT_ERROR;
	snprintf(cfgpath, sizeof(cfgpath), "%s/config.yaml", dir);
	snprintf(outdir, sizeof(outdir), "%s/rerun", dir);
	char a[PATH_MAX], b[PATH_MAX];
	if (out != NULL && realpath(out, a) != NULL && realpath(dir, b) != NULL && strcmp(a, b) == 0) {
		/* the re-run's own session.bin would replace the one it plays */
		fprintf(stderr, "uetemu: rerun: --out %s is the session's own directory; give another one\n", out);
		return CTL_EXIT_USAGE;
	}
	if (ctl_config_load(&cfg, cfgpath, sets, n, err, sizeof(err)) < 0) {
		fprintf(stderr, "uetemu: rerun: %s\n", err);
		return CTL_EXIT_ERROR;
	}
	struct ctl_run_opts o = *base;

	o.mode = CTL_MODE_VIRTUAL;
	o.out_dir = out != NULL ? out : outdir;
	o.rerun_dir = dir;
	o.rerun_same = &same;
	o.eal_argc = 0;
	struct rec_budget budget; /* every output of the re-run against simulation.OutputSizeLimit */

	rec_budget_init(&budget, cfg.sim.output_size_limit, o.quit);
	cfg.sim.budget = &budget;
	int rc = ctl_run(&cfg, &o, &stop, err, sizeof(err));

	ctl_config_free(&cfg);
	if (rc < 0) {
		fprintf(stderr, "uetemu: rerun: %s\n", err);
		return *o.quit == 1 ? CTL_EXIT_SIGNAL : rc == -ENODATA ? CTL_EXIT_NO_SESSION : CTL_EXIT_ERROR;
	}
	/* stop is the recorded session's (it may have been stopped by a signal): the re-run's own is the flag */
	if (*o.quit == 1) {
		fprintf(stderr, "uetemu: rerun: stopped by a signal; outputs written so far are complete\n");
		return CTL_EXIT_SIGNAL;
	}
	if (*o.quit == REC_HALT_WRITE)
		return CTL_EXIT_ERROR;
	return same ? CTL_EXIT_OK : CTL_EXIT_DIVERGED;
}
