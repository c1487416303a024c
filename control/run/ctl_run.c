/* ctl_run(): build, run in virtual time (or hand off to real time), report, tear down. */
#include "ctl_run_pvt.h"
#include "ctl_run_ctl_pvt.h"
#include "ctl_run_cap_pvt.h"
#include "ctl_run_ext_pvt.h"
#include "ctl_run_mon_pvt.h"
#include "ctl_run_rec_pvt.h"
#include "ctl_run_replay_pvt.h"
#include "ctl_run_rt_pvt.h"
#include "ctl_run_vt_pvt.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Virtual-time records map simulated time 0 to 2026-01-01 00:00:00 UTC, so records are byte-identical. */
#define CTL_VIRTUAL_EPOCH_S 1767225600LL

/*
 * Flush and close what the run wrote: the periodic records, rdma-perf, the captures and the uet-events record.
 * Each is closed whatever the others gave; the first that cannot be written is named in @p err. 0 or -EIO.
 */
static int close_outputs(struct ctl_run_state *r, char *err, size_t errlen)
{
	int rc, e;

	if (errlen > 0)
		err[0] = '\0';
	/* each output is closed whatever the others gave; the first failure is named ("PATH: <strerror>") */
	r->records_cut_at = ctl_records_cut_at(r->records);
	rc = ctl_records_close(r->records, r->end, err, errlen);
	r->records = NULL;
	e = ctl_rdma_close(r->rdma, err, errlen);
	rc = rc < 0 ? rc : e;
	e = ctl_chakra_close(r->chakra, r->end, err, errlen);
	rc = rc < 0 ? rc : e;
	e = ctl_run_caps_close(r, err, errlen);
	rc = rc < 0 ? rc : e;
	e = rec_csv_close(r->events, err, errlen);
	r->events = NULL;
	rc = rc < 0 ? rc : e;
	e = ctl_run_stats_close(r, r->end, err, errlen);
	rc = rc < 0 ? rc : e;
	return rc;
}

/* Why the run ended: a signal, its configured duration, or its work done (or no event left with work open). */
static enum ctl_stop stop_reason(const struct ctl_run_state *r)
{
	if (*r->opts->quit == REC_HALT_WRITE)
		return CTL_STOP_OUTPUT;
	if (*r->opts->quit == 1)
		return CTL_STOP_SIGNAL;
	if (*r->opts->quit == CTL_RUN_HALT_CTL)
		return CTL_STOP_CTL;
	if (r->rt != NULL && r->rt->lagged)
		return CTL_STOP_LAG;
	if (__atomic_load_n(&r->peer_lost, __ATOMIC_ACQUIRE) != 0)
		return CTL_STOP_PEER_LOST;
	if (r->cfg->sim.duration != 0 && r->has_stop && r->end >= r->stop)
		return CTL_STOP_DURATION;
	emu_ps_t ck_end;
	if (r->chakra != NULL && !ctl_chakra_ended(r->chakra, &ck_end))
		return CTL_STOP_INCOMPLETE; /* a rank did not end: never "completed" */
	if (r->stalled || (!r->has_stop && r->n_completed < r->n_msgs))
		return CTL_STOP_STALLED;
	return CTL_STOP_COMPLETED;
}

/* The report's view of each lcore of a real-time run over several: its partitions and loop figures. */
static struct ctl_report_lcore *report_lcores(const struct ctl_run_state *r, char *names, size_t names_len)
{
	struct ctl_report_lcore *out = calloc(r->n_lcs, sizeof(*out));
	size_t used = 0;

	for (uint32_t i = 0; out != NULL && i < r->n_lcs; i++) {
		const struct run_lcore *lc = ctl_run_lc(r, i);

		out[i] = (struct ctl_report_lcore){ .lcore = lc->lcore_id, .partitions = names + used, .rt = &lc->rt,
						    .x_sent = lc->x_sent, .x_recv = lc->x_recv, .x_late = lc->x_late,
						    .x_late_max = lc->x_late_max, .x_full = lc->x_full,
						    .wr_full = lc->wr_full,
						    .events = emu_sched_events_run(lc->np->sched) };
		names[used] = '\0';
		for (uint32_t p = 0; p < r->cfg->n_parts && used + 1 < names_len; p++) {
			if (r->part_lc[p] != i)
				continue;
			int n = snprintf(names + used, names_len - used, "%s%s", names[used] ? "," : "",
					 r->cfg->parts[p].name);
			(void)n;
			used += strlen(names + used);
		}
		used++;
	}
	return out;
}

/* The report's sections of the run's own: replays, the session record. */
static void extra_json(FILE *f, const void *arg)
{
	ctl_run_replays_json(f, arg);
	ctl_run_rec_json(f, arg);
	ctl_run_rerun_json(f, arg);
	ctl_run_ctl_json(f, arg);
	ctl_run_vt_json(f, arg);
	ctl_run_pp_json(f, arg);
	ctl_run_stats_json(f, arg);
}

static void extra_print(const void *arg)
{
	ctl_run_replays_print(arg);
	ctl_run_rerun_print(arg);
	ctl_run_vt_print(arg);
	ctl_run_pp_print(arg);
	ctl_run_stats_print(arg);
}

emu_ps_t ctl_run_rto_min(const struct ctl_run_state *r, const char **key)
{
	emu_ps_t min = 0;

	*key = NULL;
	for (uint32_t h = 0; r->hosts != NULL && h < r->cfg->n_hosts; h++) { /* peer profiles may differ by host */
		const char *k;
		emu_ps_t v = r->hosts[h].ops->rto_min(r->hosts[h].dev, &k);

		if (min == 0 || v < min) {
			min = v;
			*key = k;
		}
	}
	return min;
}

/*
 * What the timing verdict holds the loop's lateness against (docs/realtime.md, Timing verdict): the smallest
 * retransmission timer any host's NIC arms, and the serialization of the largest data frame on the fastest link.
 */
static struct ctl_timing_in timing_in(const struct ctl_run_state *r)
{
	const struct ctl_config *cfg = r->cfg;
	struct ctl_timing_in t = { .ser_bps = ctl_config_host_bps(cfg), .ser_frame = ctl_run_mtu_frame(cfg) };

	t.timer = ctl_run_rto_min(r, &t.timer_key);
	for (uint32_t i = 0; i < r->n_links; i++)
		if (r->links[i].bps > t.ser_bps)
			t.ser_bps = r->links[i].bps;
	t.ser = t.ser_bps ? emu_ser_ps(t.ser_frame, t.ser_bps) : 0;
	return t;
}

/* Hand the report a view of the finished run: what it ran, what crossed it, and why it stopped. */
static int report(struct ctl_run_state *r, enum ctl_stop stop, char *err, size_t errlen)
{
	const struct ctl_config *cfg = r->cfg;
	struct ctl_report_port *ports = calloc(r->n_exts ? r->n_exts : 1, sizeof(*ports));
	uint32_t n_ports = 0;

	if (ports == NULL) {
		snprintf(err, errlen, "out of memory writing the summary");
		return -ENOMEM;
	}
	char *sw_names = calloc(r->n_exts ? r->n_exts : 1, 32);

	for (uint32_t i = 0; sw_names != NULL && i < r->n_exts; i++) {
		const struct ctl_port *cp = &cfg->ports[i];

		if (r->exts[i].off) /* --partition: bound by the other process */
			continue;
		ports[n_ports] = (struct ctl_report_port){ .dev = cp->dev, .cp = cp, .hosts = cp->sw ? &cp->sw_host : cp->hosts,
							   .n_hosts = cp->sw ? cp->sw_host != UINT32_MAX : cp->n_hosts,
							   .stack = r->exts[i].stack, .stats = &r->exts[i].stats,
							   .rx_refused = r->exts[i].sw_rx_refused,
							   .rx_csum = r->exts[i].sw_rx_csum,
							   .rx_class = r->exts[i].sw_rx_class,
							   .tx_class = r->exts[i].sw_tx_class,
							   .peer = r->exts[i].peer ? &r->exts[i].peer_st : NULL,
							   .tx_mode = r->exts[i].zerocopy ? "zerocopy" : "copy" };
		if (cp->sw) {
			snprintf(sw_names + 32 * i, 32, "%s:%u", r->topo->devs[cp->sw_dev].name, cp->sw_port);
			ports[n_ports].switch_port = sw_names + 32 * i;
			ports[n_ports].faces = r->topo->devs[cp->sw_peer].name;
		}
		n_ports++;
	}
	uint64_t counters[NET_C_COUNT] = { 0 }, events = 0;

	for (uint32_t i = 0; i < r->n_lcs; i++) {
		for (int k = 0; k < NET_C_COUNT; k++)
			counters[k] += ctl_run_lc(r, i)->np->counters[k];
		events += emu_sched_events_run(ctl_run_lc(r, i)->np->sched);
	}
	events += r->events_other;
	char names[CTL_PARTS_MAX * (CTL_NAME_MAX + 1) + 64];
	bool rt = r->opts->mode == CTL_MODE_REALTIME;
	struct ctl_report_lcore *lcores = rt && (r->n_lcs > 1 || r->part >= 0) ? report_lcores(r, names, sizeof(names))
									     : NULL;
	struct ctl_work_part pps = { 0 };
	bool *remote = r->part >= 0 ? calloc(cfg->n_hosts ? cfg->n_hosts : 1, sizeof(*remote)) : NULL;

	for (uint32_t h = 0; remote != NULL && h < cfg->n_hosts; h++)
		remote[h] = r->dev_lc[h] == CTL_LC_REMOTE;
	ctl_run_pp_work(r, &pps);
	struct ctl_report_in in = {
		.cfg = cfg, .out_dir = r->opts->out_dir, .realtime = r->opts->mode == CTL_MODE_REALTIME, .stop = stop,
		.hosts = r->hosts, .part_counters = counters, .events = events,
		.msgs = r->msgs, .n_msgs = r->n_msgs, .n_posted = r->n_posted, .n_completed = r->n_completed,
		.post_fail = r->post_fail, .links = r->links, .n_links = r->n_links, .topo = r->topo, .sws = r->sws,
		.n_sws = r->n_sws, .ports = ports, .n_ports = n_ports, .rdma = r->rdma, .chakra = r->chakra,
		.cap_stats = r->cap_stats,
		.end = r->end, .wall_s = r->wall_s, .rt = r->rt != NULL ? &r->rt->stats : NULL,
		.cpu_steal_ns = r->rt != NULL ? r->rt->steal_ns : -1,
		.stall_threshold_ns = r->rt != NULL ? r->rt->stall_ns : 0, .stall_hold = r->rt != NULL && r->rt->stall_hold,
		.stall_budget_pct = r->rt != NULL ? r->rt->stall_budget_pct : 0, .records_cut_at = r->records_cut_at,
		.wall_end = r->eng != NULL ? ctl_run_lc(r, 0)->wall_now : 0, .lcores = lcores,
		.n_lcores = lcores != NULL ? r->n_lcs : 0,
		.partition = r->part >= 0 ? cfg->parts[r->part].name : NULL, .extra_json = extra_json,
		.extra_print = extra_print, .extra_arg = r, .cap_shards = r->opts->ranks,
		.timing = rt ? timing_in(r) : (struct ctl_timing_in){ 0 }, .pingpongs = &pps,
		.timeouts_while_late = rt && r->rt != NULL ? r->rt->stats.timers_late : UINT64_MAX, .verdict = r->opts->verdict, .host_remote = remote,
	};
	int rc = sw_names != NULL ? ctl_report(&in, err, errlen) : -ENOMEM;

	free(remote);
	free(lcores);
	free(sw_names);
	free(ports);
	return rc;
}

int ctl_run_check(const struct ctl_config *cfg, enum ctl_mode mode, char *err, size_t errlen)
{
	static volatile sig_atomic_t never;
	struct ctl_run_opts o = { .mode = mode, .out_dir = "", .quit = &never };
	struct ctl_run_state r = { .cfg = cfg, .opts = &o };
	int rc = ctl_run_build_models(&r, err, errlen);

	if (cfg->sim.budget != NULL)
		cfg->sim.budget->now = NULL;
	ctl_run_teardown(&r);
	return rc;
}

/* The emulated time the run has reached (the main partition's), for the output budget. */
static emu_ps_t run_now(void *arg)
{
	const struct ctl_run_state *r = arg;

	return r->np.sched != NULL ? emu_sched_now(r->np.sched) : 0;
}

int ctl_run(const struct ctl_config *cfg, const struct ctl_run_opts *opts, enum ctl_stop *stop, char *err,
	    size_t errlen)
{
	struct ctl_run_state r = { .cfg = cfg, .opts = opts };
	int rc = 0;

	if (cfg->sim.budget != NULL) { /* the output budget's cut is stamped with the run's emulated time */
		cfg->sim.budget->now = run_now;
		cfg->sim.budget->now_ctx = &r;
	}
	r.epoch_s = opts->mode == CTL_MODE_VIRTUAL ? CTL_VIRTUAL_EPOCH_S : (int64_t)time(NULL);
	r.rerun = opts->rerun_dir != NULL;
	rc = r.rerun ? ctl_run_rerun_open(&r, err, errlen) : /* the session's epochs, checked against cfg */
	     opts->record_dir != NULL ? ctl_run_rec_prepare(&r, err, errlen) : 0;
	/* real time: the EAL first, so the run is built knowing its lcores (ctl_run_lcore_plan) */
	if (rc == 0 && opts->mode == CTL_MODE_REALTIME)
		rc = ctl_run_rt_open(&r, err, errlen);
	if (rc == 0)
		rc = ctl_run_build(&r, err, errlen);
	if (rc == 0) /* --stats-interval */
		rc = ctl_run_stats_open(&r, err, errlen);
	if (opts->ranks > 1) { /* MPI: every rank runs, or none (a rank alone would wait for the others for ever) */
		uint64_t failed = rc < 0;

		run_mpi_max(&failed, 1, NULL);
		if (failed && rc == 0) {
			snprintf(err, errlen, "another MPI rank could not start the run (its error is above)");
			rc = -ECANCELED;
		}
	}
	if (rc == 0) {
		if (r.rerun)
			rc = ctl_run_rerun(&r, err, errlen);
		else if (opts->mode == CTL_MODE_REALTIME)
			rc = ctl_run_realtime(&r, err, errlen);
		else
			rc = ctl_run_virtual(&r, err, errlen);
	}
	ctl_run_rt_stop(&r); /* a build that failed after the EAL came up */
	bool ran = rc == 0;

	/* a re-run stops as its session did (the session log ends with how, ctl_run_record.c), unless a signal or a
	 * failed write stopped it */
	*stop = r.rerun && (!*opts->quit || *opts->quit == CTL_RUN_HALT_AHEAD) ? (enum ctl_stop)ctl_run_rerun_stop(&r)
									       : stop_reason(&r);
	if (ran && r.rec != NULL)
		rc = ctl_run_rec_finish(&r, (uint8_t)*stop, err, errlen);
	/* a signal while a capture or a traceset was read: the run never started, its summary says so */
	if (rc == -EINTR && *stop == CTL_STOP_SIGNAL && opts->rank == 0 && opts->out_dir != NULL && opts->out_dir[0])
		(void)ctl_report_unstarted(cfg, opts->out_dir, *stop, err);
	if (rc == 0 && ran && r.rerun) {
		int same = ctl_run_rerun_compare(&r, err, errlen);

		rc = same < 0 ? same : 0;
		if (same >= 0 && opts->rerun_same != NULL)
			*opts->rerun_same = same == 0;
	}

	if (r.hosts != NULL) { /* the hosts' NICs were built (or begun): their outputs too */
		int e = close_outputs(&r, ran ? err : NULL, ran ? errlen : 0);

		rc = rc < 0 ? rc : e;
	}
	if (ran && opts->ranks > 1) /* every rank's captures, for rank 0's summary */
		ctl_run_vt_merge_caps(&r);
	if (ran && opts->rank == 0) { /* MPI: rank 0 reports every rank's run */
		/* the summary is written and printed even when an output could not be: it says how far the run got;
		 * the first error is the one returned */
		char err2[512];
		int e = report(&r, *stop, rc == 0 ? err : err2, rc == 0 ? errlen : sizeof(err2));

		rc = rc < 0 ? rc : e;
	}
	ctl_run_metrics_stop(&r); /* stopped with its loop already; here too on every other path */
	ctl_run_stats_free(&r);   /* before the teardown clears the state */
	if (cfg->sim.budget != NULL)
		cfg->sim.budget->now = NULL;
	ctl_run_teardown(&r);
	return rc;
}
