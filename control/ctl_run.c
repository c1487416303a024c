/* ctl_run(): build, run in virtual time (or hand off to real time), report, tear down. */
#include "ctl_run_pvt.h"

#include <errno.h>
#include <string.h>
#include <time.h>

/* Virtual-time records map simulated time 0 to 2026-01-01 00:00:00 UTC, so records are byte-identical. */
#define CTL_VIRTUAL_EPOCH_S 1767225600LL
/* Between progress checks, run this much simulated time. */
#define CTL_SLICE_PS (10 * EMU_PS_PER_US)

static double wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void progress(struct ctl_run_state *r, double t0, double *last)
{
	double w = wall_now();

	if (!r->opts->progress || w - *last < 1.0)
		return;
	*last = w;
	emu_ps_t now = emu_sched_now(r->np.sched);
	fprintf(stderr, "[uetemu] %.1fs wall, sim %llu.%06llu us, %llu events, messages %u/%u done\n", w - t0,
		(unsigned long long)(now / EMU_PS_PER_US), (unsigned long long)(now % EMU_PS_PER_US),
		(unsigned long long)emu_sched_events_run(r->np.sched), r->n_completed, r->n_msgs);
}

/* Run events in (time, seq) order until none is left, SimulationDuration is reached, or a signal. */
static void run_virtual(struct ctl_run_state *r)
{
	emu_ps_t limit = r->has_stop ? r->stop : EMU_PS_NEVER - 1;
	double t0 = wall_now(), last = t0;

	while (!*r->opts->quit) {
		emu_ps_t next = emu_sched_next(r->np.sched);
		if (next == EMU_PS_NEVER || next > limit)
			break;
		emu_ps_t due = ctl_records_due(r->records);
		if (due < next) { /* periodic rows fall due between events: the run goes on past them */
			ctl_records_advance(r->records, due);
			continue;
		}
		emu_ps_t slice = next + CTL_SLICE_PS;
		slice = slice < limit && slice > next ? slice : limit;
		emu_sched_run_until(r->np.sched, slice < due ? slice : due);
		progress(r, t0, &last);
	}
	r->end = emu_sched_now(r->np.sched);
	if (r->has_stop && !*r->opts->quit)
		r->end = r->stop;
	r->wall_s = wall_now() - t0;
}

int ctl_run(const struct ctl_config *cfg, const struct ctl_run_opts *opts, char *err, size_t errlen)
{
	struct ctl_run_state r = { .cfg = cfg, .opts = opts };
	int rc;

	r.epoch_s = opts->mode == CTL_MODE_VIRTUAL ? CTL_VIRTUAL_EPOCH_S : (int64_t)time(NULL);
	rc = ctl_run_build(&r, err, errlen);
	if (rc == 0) {
		if (opts->mode == CTL_MODE_REALTIME)
			rc = ctl_run_realtime(&r, err, errlen);
		else
			run_virtual(&r);
	}
	if (rc == 0) {
		rc = ctl_records_close(r.records, r.end);
		r.records = NULL;
		int rc2 = ctl_rdma_close(r.rdma);
		rc = rc < 0 ? rc : rc2;
		if (rc < 0)
			snprintf(err, errlen, "%s: cannot write the records: %s", opts->out_dir, strerror(-rc));
	}
	if (rc == 0)
		rc = ctl_report(&r, err, errlen);
	ctl_run_teardown(&r);
	return rc;
}
