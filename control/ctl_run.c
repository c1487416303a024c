/* ctl_run(): build, run in virtual time (or hand off to real time), report, tear down. */
#include "ctl_run_pvt.h"

#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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

/*
 * The progress bar on stderr: with a stop time a bar and the share of it simulated, then simulated time, wall time
 * and events per second. On a terminal (@p tty, tested once per run) it redraws in place every 0.1 s; otherwise a
 * line a second. @p final draws the last state whatever the time, so a run shorter than the period shows one.
 */
static void progress(struct ctl_run_state *r, double t0, double *last, bool tty, bool final)
{
	double w = wall_now();

	if (!r->opts->progress || (!final && w - *last < (tty ? 0.1 : 1.0)))
		return;
	*last = w;
	emu_ps_t now = final ? r->end : emu_sched_now(r->np.sched);
	uint64_t ev = emu_sched_events_run(r->np.sched);
	double el = w - t0 > 1e-9 ? w - t0 : 1e-9;
	static const char full[] = "####################", empty[] = "....................";

	if (r->has_stop && r->stop > 0) {
		double share = now >= r->stop ? 1.0 : (double)now / (double)r->stop;
		int fill = (int)(share * 20.0);

		fprintf(stderr, "%s[uetemu] [%.*s%.*s] %3.0f%% ", tty ? "\r" : "", fill, full, 20 - fill, empty,
			100.0 * share);
	} else {
		fprintf(stderr, "%s[uetemu] ", tty ? "\r" : "");
	}
	fprintf(stderr, "sim %.6f s, %.1f s wall, %.2f M events/s", (double)now / 1e12, el, (double)ev / el / 1e6);
	if (r->n_msgs > 0)
		fprintf(stderr, ", messages %u/%u done", r->n_completed, r->n_msgs);
	if (r->rdma != NULL)
		fprintf(stderr, ", WQEs %llu done", (unsigned long long)ctl_rdma_wqes_done(r->rdma));
	fputs(tty && !final ? "  " : "\n", stderr);
}

/* Run events in (time, seq) order until none is left, SimulationDuration is reached, or a signal. */
static void run_virtual(struct ctl_run_state *r)
{
	emu_ps_t limit = r->has_stop ? r->stop : EMU_PS_NEVER - 1;
	double t0 = wall_now(), last = t0;
	bool tty = r->opts->progress && isatty(fileno(stderr));

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
		progress(r, t0, &last, tty, false);
	}
	r->end = emu_sched_now(r->np.sched);
	if (r->has_stop && !*r->opts->quit) {
		r->end = r->stop;
		/* the run lasts to its stop time: the periodic rows due after the last event, up to it, are written */
		ctl_records_advance(r->records, r->end);
	}
	r->wall_s = wall_now() - t0;
	progress(r, t0, &last, tty, true);
}

/*
 * Flush and close what the run wrote: the periodic records, rdma-perf, the captures and the uet-events record.
 * Each is closed whatever the others gave; the first that cannot be written is named in @p err. 0 or -EIO.
 */
static int close_outputs(struct ctl_run_state *r, char *err, size_t errlen)
{
	const struct ctl_config *cfg = r->cfg;
	const char *dir = r->opts->out_dir;
	int rc = ctl_records_close(r->records, r->end), e;

	r->records = NULL;
	e = ctl_rdma_close(r->rdma);
	rc = rc < 0 ? rc : e;
	if (rc < 0)
		snprintf(err, errlen, "%s: cannot write the records: %s", dir, strerror(-rc));
	for (uint32_t i = 0; i < cfg->n_captures; i++) {
		e = cap_pcap_close(r->caps[i]);
		r->caps[i] = NULL;
		if (e < 0 && rc == 0) {
			snprintf(err, errlen, "%s/%s.pcap: cannot write the capture: %s", dir, cfg->captures[i].name,
				 strerror(-e));
			rc = e;
		}
	}
	e = rec_csv_close(r->events);
	r->events = NULL;
	if (e < 0 && rc == 0) {
		snprintf(err, errlen, "%s/%s-uet-events-0.csv: cannot write the uet-events record: %s", dir,
			 cfg->sim.simulation_name, strerror(-e));
		rc = e;
	}
	return rc;
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
	if (rc == 0)
		rc = close_outputs(&r, err, errlen);
	if (rc == 0)
		rc = ctl_report(&r, err, errlen);
	ctl_run_teardown(&r);
	return rc;
}
