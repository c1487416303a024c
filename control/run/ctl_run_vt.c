/*
 * Virtual time (docs/parallel.md): the run's events in the schedulers' order until the work is done or the stop
 * time, on one thread or over the config's partitions on several, threads or MPI ranks. The engine runs the
 * windows (runtime/run_win.c); this file gives it the run's side: the lookahead's bounds and errors from the
 * config, the message close's delay, the run's own work at times that do not depend on the windows (periodic
 * records, the no-progress watchdog, the end), the progress line, and with MPI what rank 0 reports from.
 */
#include "ctl_run_pvt.h"
#include "ctl_run_mon_pvt.h"
#include "ctl_run_replay_pvt.h"
#include "ctl_run_vt_pvt.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

/* The no-progress watchdog looks every simulated millisecond, at whole milliseconds. */
#define VT_CHECK_PS EMU_PS_PER_MS
/* The shortest no-progress window before a run without a stop time is stopped as stalled. */
#define VT_STALL_MIN_PS (100 * EMU_PS_PER_MS)

struct ctl_vt {
	uint32_t n;                  /* threads (or MPI ranks) */
	bool mpi;                    /* the threads are MPI ranks: this process runs lcs[me] only */
	uint32_t me;
	uint64_t *rank_stat;         /* MPI, at the end: per rank events, wait_ns, frames out, in, late, lost */
	uint64_t *dev_created;       /* MPI, at the end: events each device created, on its rank */
	uint8_t *local;              /* MPI: per device, whether this rank runs it (its records' rows) */
	emu_ps_t close_delay;        /* a message's receive side closes this long after the sender's completion */
	double t0, last;             /* the wall clock at the start, and at the last progress line */
	bool tty;                    /* the progress line redraws in place */
	uint64_t mark;               /* the watchdog: the progress mark last seen, and since when */
	emu_ps_t since;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static double wall_now(void)
{
	return (double)mono_ns() / 1e9;
}

bool ctl_run_vt_on(const struct ctl_run_state *r)
{
	return r->vt != NULL;
}

/* ---- the plan ---- */

/* Lookahead and the close delay; the errors of a cut a window cannot cross. */
static int plan_windows(struct ctl_run_state *r, struct ctl_vt *vt, char *err, size_t errlen)
{
	const struct ctl_config *cfg = r->cfg;
	emu_ps_t sw_min = EMU_PS_NEVER, any_min = EMU_PS_NEVER;
	int rc = 0;
	size_t used = 0;
	struct run_vt_info in;

	/* the links split between two threads bound it already (ctl_run_lcore_links) */
	for (uint32_t i = 0; i < r->n_links; i++) {
		uint32_t a, b;
		emu_ps_t d = r->links[i].delay;

		ctl_run_link_ends(r, i, &a, &b);
		any_min = d < any_min ? d : any_min;
		if (a >= cfg->n_hosts && b >= cfg->n_hosts)
			sw_min = d < sw_min ? d : sw_min;
		if (vt->n > 1 && d == 0 && cfg->dev_part[a] != cfg->dev_part[b]) {
			used += (size_t)snprintf(err + used, used < errlen ? errlen - used : 0,
						 "%s%s: link %s-%s joins partitions %s and %s with a delay of 0: a "
						 "window between threads needs a link delay above 0 (lookahead); give it a "
						 "delay, put both ends in one partition, or run one thread",
						 used ? "\n" : "", cfg->path, ctl_run_dev_name(r, a), ctl_run_dev_name(r, b),
						 cfg->parts[cfg->dev_part[a]].name, cfg->parts[cfg->dev_part[b]].name);
			rc = -EINVAL;
		}
	}
	/* the workload closes a message's receive side after its sender's completion: one switch-to-switch delay
	 * later (the fabric's smallest; without switches, its smallest link's), the same however it is cut */
	vt->close_delay = sw_min != EMU_PS_NEVER ? sw_min : any_min != EMU_PS_NEVER ? any_min : 0;
	for (uint32_t a = 0; vt->n > 1 && a < cfg->n_apps; a++)
		for (uint32_t i = 0; i < cfg->apps[a].n_list; i++) {
			const struct ctl_message *m = &cfg->apps[a].list[i];
			char what[96];

			run_vt_info(r->eng, &in);
			if (r->dev_lc[m->src] == r->dev_lc[m->dst] || vt->close_delay >= in.lookahead)
				continue;
			snprintf(what, sizeof(what), "message close (%s to %s)", cfg->hosts[m->src].name,
				 cfg->hosts[m->dst].name);
			run_lookahead_bound(r->eng, vt->close_delay, what);
			if (vt->close_delay == 0 && rc == 0) {
				snprintf(err, errlen, "%s: applications.%u.list.%u from %s to %s crosses threads, and the "
					 "fabric has a link delay of 0: its receive side's close needs a delay above 0 to "
					 "cross; run one thread", cfg->path, a, i, cfg->hosts[m->src].name,
					 cfg->hosts[m->dst].name);
				rc = -EINVAL;
			}
		}
	return rc;
}

int ctl_run_vt_plan(struct ctl_run_state *r, char *err, size_t errlen)
{
	struct ctl_vt *vt;

	if (r->opts->mode != CTL_MODE_VIRTUAL || r->rerun)
		return 0;
	if ((vt = calloc(1, sizeof(*vt))) == NULL)
		return -ENOMEM;
	r->vt = vt;
	vt->n = r->n_lcs;
	vt->mpi = r->opts->ranks > 1;
	vt->me = vt->mpi ? r->opts->rank : 0;
	int rc = plan_windows(r, vt, err, errlen);

	if (rc < 0)
		return rc;
	if (vt->mpi) {
		if ((vt->local = calloc(r->cfg->n_devs ? r->cfg->n_devs : 1, 1)) == NULL)
			return -ENOMEM;
		for (uint32_t d = 0; d < r->cfg->n_devs; d++)
			vt->local[d] = r->dev_lc[d] == vt->me;
	}
	if (run_entities(r->eng, r->cfg->n_devs + 1) < 0) {
		snprintf(err, errlen, "out of memory for the threads' state");
		return -ENOMEM;
	}
	return 0;
}

void ctl_run_vt_fini(struct ctl_run_state *r)
{
	if (r->vt != NULL) {
		free(r->vt->rank_stat);
		free(r->vt->dev_created);
		free(r->vt->local);
	}
	free(r->vt);
	r->vt = NULL;
}

emu_ps_t ctl_run_vt_close_delay(const struct ctl_run_state *r)
{
	return r->vt != NULL ? r->vt->close_delay : 0;
}

/* ---- the loop ---- */

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
	uint64_t ev;
	emu_ps_t now = run_last_event(r->eng, &ev);
	double el = w - t0 > 1e-9 ? w - t0 : 1e-9;
	static const char full[] = "####################", empty[] = "....................";

	now = final ? r->end : now;
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
	if (r->chakra != NULL)
		fprintf(stderr, ", Chakra ranks %u ended", ctl_chakra_ranks_ended(r->chakra));
	fputs(tty && !final ? "  " : "\n", stderr);
}

/* What a run's progress is measured by: new payload delivered, messages and WQEs completed. */
static uint64_t progress_mark(const struct ctl_run_state *r)
{
	uint64_t n = r->n_completed + ctl_rdma_wqes_done(r->rdma) + ctl_chakra_ranks_ended(r->chakra) +
		     ctl_run_replays_sent(r);

	for (uint32_t i = 0; i < r->cfg->n_hosts; i++)
		n += ctl_run_host_rx_payload(r, i);
	return n;
}

/*
 * The no-progress watchdog of a run without a stop time, which ends only when its work is done: one whose work can
 * no longer progress (a receiver whose buffers take nothing, a link that never comes back) would retransmit for
 * ever. Looked at every simulated millisecond @p t, once every event up to it has run; true (said on stderr) when
 * nothing progressed for the window: the longest retransmission timeout times four, and at least 100 ms.
 */
static bool no_progress(struct ctl_run_state *r, emu_ps_t t, uint64_t *mark, emu_ps_t *since)
{
	emu_ps_t rto = r->cfg->n_hosts > 0 ? r->hosts[0].ops->rto_max(r->hosts[0].dev) : 0;
	emu_ps_t win = 4 * rto > VT_STALL_MIN_PS ? 4 * rto : VT_STALL_MIN_PS;

	if (r->n_lcs > 1)
		ctl_run_lcore_sum(r);
	uint64_t m = progress_mark(r);

	if (r->vt->mpi) /* each rank's hosts: the run's progress is their sum */
		run_mpi_sum(&m, 1);

	if (m != *mark) {
		*mark = m;
		*since = t;
		return false;
	}
	if (t - *since < win)
		return false;
	uint64_t done = r->n_completed;

	if (r->vt->mpi) /* every rank gets here alike: the messages done are every rank's */
		run_mpi_sum(&done, 1);
	if (r->opts->rank == 0) /* MPI: said once */
		fprintf(stderr, "uetemu: no progress for %.3f s of simulated time (no payload delivered, nothing completed) "
			"with %llu of %u messages open: stopped at %.6f s\n", (double)(t - *since) / 1e12,
			(unsigned long long)(r->n_msgs - done), r->n_msgs, (double)t / 1e12);
	return true;
}

/* The engine's hooks (run_hooks). */
static emu_ps_t vt_limit(void *ctx)
{
	struct ctl_run_state *r = ctx;
	emu_ps_t limit = r->has_stop ? r->stop : EMU_PS_NEVER - 1, ck_end;

	if (ctl_chakra_ended(r->chakra, &ck_end) && ck_end < limit) /* every rank has ended */
		limit = r->stop = ck_end;
	return limit;
}

static emu_ps_t vt_due(void *ctx)
{
	return ctl_records_due(((struct ctl_run_state *)ctx)->records);
}

static void vt_work(void *ctx, emu_ps_t t)
{
	ctl_records_advance(((struct ctl_run_state *)ctx)->records, t);
}

/* The same with the stats stream (--stats-interval): its intervals' ends are periodic work too. */
static emu_ps_t vt_due_stats(void *ctx)
{
	emu_ps_t a = vt_due(ctx), b = ctl_run_stats_due(ctx);

	return a < b ? a : b;
}

static void vt_work_stats(void *ctx, emu_ps_t t)
{
	struct ctl_run_state *r = ctx;

	if (ctl_records_due(r->records) <= t)
		vt_work(ctx, t);
	ctl_run_stats_sample(r, t);
}

static bool vt_stalled(void *ctx, emu_ps_t t)
{
	struct ctl_run_state *r = ctx;

	return no_progress(r, t, &r->vt->mark, &r->vt->since);
}

/* After each window: the progress line (the run ends when no event is left, not here). */
static bool vt_window_done(void *ctx, emu_ps_t t)
{
	struct ctl_run_state *r = ctx;

	(void)t;
	progress(r, r->vt->t0, &r->vt->last, r->vt->tty, false);
	return false;
}

/* ---- MPI: what rank 0 reports ---- */

#define VT_RSTATS 10 /* events, barrier wait, frames out and in, late, lost, wall, helped, full devices, max RSS */

/* Sum @p n values each rank gives for what it ran (zeros for the rest) into every rank's @p v. */
static void sum_local(uint64_t *v, size_t n)
{
	run_mpi_sum(v, n);
}

static bool dev_here(const struct ctl_run_state *r, uint32_t dev)
{
	return r->dev_lc[dev] == r->vt->me;
}

/* Values a device gives the merge: its NIC's saved counters, or a switch's counters and ports' stats. */
static size_t dev_values(const struct ctl_run_state *r, uint32_t d, size_t per_nic)
{
	if (d < r->cfg->n_hosts)
		return per_nic;
	return SW_C_COUNT + (size_t)sw_n_ports(r->sws[d - r->cfg->n_hosts]) * (sizeof(struct sw_port_stats) / 8);
}

/* Device @p d's values into @p p when this rank ran it (zeros stay for the others' devices). */
static void dev_save(const struct ctl_run_state *r, uint32_t d, const struct port_nic_ops *ops, uint64_t *p)
{
	if (!dev_here(r, d))
		return;
	if (d < r->cfg->n_hosts) {
		if (ops->n_saved > 0)
			ops->save(r->hosts[d].dev, p);
		return;
	}
	const struct sw *sw = r->sws[d - r->cfg->n_hosts];
	size_t per_port = sizeof(struct sw_port_stats) / 8;

	memcpy(p, sw_counters(sw), SW_C_COUNT * 8);
	for (uint32_t k = 0; k < sw_n_ports(sw); k++)
		sw_port_stats(sw, k, (struct sw_port_stats *)(p + SW_C_COUNT + k * per_port), r->end);
}

static void dev_load(struct ctl_run_state *r, uint32_t d, const struct port_nic_ops *ops, const uint64_t *p)
{
	if (d < r->cfg->n_hosts) {
		if (ops->n_saved > 0)
			ops->load(r->hosts[d].dev, p);
	} else
		sw_stats_load(r->sws[d - r->cfg->n_hosts], p, (const struct sw_port_stats *)(p + SW_C_COUNT));
}

/* Values summed at once: a bound on the merge's buffers (this one and MPI's), which for the whole of a k = 64 fat
 * tree would be hundreds of MB on every rank (a device's values always fit: a switch of 64 ports has 4,400). */
#define VT_MERGE_CHUNK (1u << 16)

/*
 * The hosts' NIC counters and the switches' counters and ports, from the ranks that ran them: every rank walks the
 * devices in the same order, in runs of whole devices of at most VT_MERGE_CHUNK values (each rank computes the
 * same runs), and sums each run.
 */
static int merge_devices(struct ctl_run_state *r)
{
	const struct ctl_config *cfg = r->cfg;
	const struct port_nic_ops *ops = cfg->n_hosts > 0 ? r->hosts[0].ops : NULL;
	size_t per_nic = ops != NULL ? ops->n_saved : 0; /* every host has the same model */
	uint32_t n_devs = cfg->n_hosts + r->n_sws;
	size_t cap = VT_MERGE_CHUNK;

	for (uint32_t d = 0; d < n_devs; d++)
		cap = dev_values(r, d, per_nic) > cap ? dev_values(r, d, per_nic) : cap;
	uint64_t *v = malloc(cap * sizeof(*v));

	if (v == NULL)
		return -ENOMEM;
	for (uint32_t first = 0, end; first < n_devs; first = end) {
		size_t n = 0;

		for (end = first; end < n_devs && n + dev_values(r, end, per_nic) <= cap; end++)
			n += dev_values(r, end, per_nic);
		memset(v, 0, n * sizeof(*v));
		for (uint32_t d = first, off = 0; d < end; off += (uint32_t)dev_values(r, d, per_nic), d++)
			dev_save(r, d, ops, v + off);
		sum_local(v, n);
		for (uint32_t d = first, off = 0; d < end; off += (uint32_t)dev_values(r, d, per_nic), d++)
			dev_load(r, d, ops, v + off);
	}
	free(v);
	return 0;
}

/* The links' directions (from their senders' ranks), the messages (from theirs), the run's counts. */
static int merge_run(struct ctl_run_state *r)
{
	struct ctl_vt *vt = r->vt;
	size_t n = (size_t)r->n_links * 2 * 5 + (size_t)r->n_msgs * 6 + 3 + NET_C_COUNT + 1 + r->cfg->n_devs;
	uint64_t *v = calloc(n, sizeof(*v)), *p = v;

	if (v == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; i < r->n_links; i++)
		for (uint32_t e = 0; e < 2; e++, p += 5) {
			const struct net_dir *d = &r->links[i].dir[e];

			if (d->from.ent == 0 || !dev_here(r, d->from.ent - 1))
				continue;
			p[0] = d->frames, p[1] = d->bytes, p[2] = d->drops, p[3] = d->trims, p[4] = d->pauses;
		}
	for (uint32_t i = 0; i < r->n_msgs; i++, p += 6)
		if (dev_here(r, r->msgs[i].m->src)) {
			const struct ctl_msg *m = &r->msgs[i];

			p[0] = m->done, p[1] = m->completed, p[2] = m->posted, p[3] = m->pdc;
			p[4] = m->rtx, p[5] = m->has_rtx; /* flow-fct's retransmissions */
		}
	p[0] = r->n_completed, p[1] = r->n_posted, p[2] = r->post_fail;
	p += 3;
	memcpy(p, ctl_run_lc(r, vt->me)->np->counters, NET_C_COUNT * 8);
	p += NET_C_COUNT;
	*p++ = emu_sched_events_run(ctl_run_lc(r, vt->me)->np->sched);
	for (uint32_t d = 0; d < r->cfg->n_devs; d++)
		if (dev_here(r, d))
			p[d] = emu_sched_created(ctl_run_lc(r, vt->me)->np->sched, d + 1);
	sum_local(v, n);
	p = v;
	for (uint32_t i = 0; i < r->n_links; i++)
		for (uint32_t e = 0; e < 2; e++, p += 5) {
			struct net_dir *d = &r->links[i].dir[e];

			d->frames = p[0], d->bytes = p[1], d->drops = p[2], d->trims = p[3], d->pauses = p[4];
		}
	for (uint32_t i = 0; i < r->n_msgs; i++, p += 6) {
		struct ctl_msg *m = &r->msgs[i];

		m->done = p[0], m->completed = p[1] != 0, m->posted = p[2] != 0, m->pdc = (uint16_t)p[3];
		m->rtx = (uint32_t)p[4], m->has_rtx = p[5] != 0;
	}
	r->n_completed = (uint32_t)p[0], r->n_posted = (uint32_t)p[1], r->post_fail = p[2];
	p += 3;
	for (uint32_t i = 0; i < r->n_lcs; i++)
		memset(ctl_run_lc(r, i)->np->counters, 0, sizeof(ctl_run_lc(r, i)->np->counters));
	memcpy(ctl_run_lc(r, 0)->np->counters, p, NET_C_COUNT * 8);
	p += NET_C_COUNT;
	r->events_other = *p++ - emu_sched_events_run(ctl_run_lc(r, vt->me)->np->sched);
	if ((vt->dev_created = malloc(sizeof(*vt->dev_created) * (r->cfg->n_devs ? r->cfg->n_devs : 1))) != NULL)
		memcpy(vt->dev_created, p, sizeof(*vt->dev_created) * r->cfg->n_devs);
	free(v);
	return 0;
}

/* Every rank's figures for summary.json's parallel member. */
static int merge_ranks(struct ctl_run_state *r)
{
	struct ctl_vt *vt = r->vt;
	const struct run_lcore *lc = ctl_run_lc(r, vt->me);
	uint64_t mine[VT_RSTATS] = { emu_sched_events_run(lc->np->sched), lc->wait_ns, lc->x_sent, lc->x_recv,
				     lc->x_late, run_lcore_lost(lc), (uint64_t)(r->wall_s * 1e9), lc->helped, r->n_full };

	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) == 0) /* the rank's peak so far: the run's, less the summary's writing */
		mine[9] = (uint64_t)ru.ru_maxrss; /* KiB on Linux */
	if ((vt->rank_stat = calloc((size_t)vt->n * VT_RSTATS, sizeof(*vt->rank_stat))) == NULL)
		return -ENOMEM;
	run_mpi_allgather(mine, sizeof(mine), vt->rank_stat);
	return 0;
}

/* MPI, every rank at the run's end: gather what rank 0 writes the summary from. 0 or -ENOMEM. */
static int merge(struct ctl_run_state *r)
{
	int rc = merge_devices(r);

	rc = rc < 0 ? rc : merge_run(r);
	return rc < 0 ? rc : merge_ranks(r);
}

int ctl_run_virtual(struct ctl_run_state *r, char *err, size_t errlen)
{
	struct ctl_vt *vt = r->vt;
	struct run_hooks h = { .ctx = r, .limit = vt_limit, .due = vt_due, .sample = vt_work,
			       .check_period = r->has_stop ? 0 : VT_CHECK_PS, .stalled = vt_stalled,
			       .pass_end = vt_window_done };
	enum run_end why;
	emu_ps_t end;
	int rc;

	vt->t0 = wall_now();
	vt->last = vt->t0;
	vt->tty = r->opts->progress && isatty(fileno(stderr));
	if (r->stats != NULL) {
		h.due = vt_due_stats;
		h.sample = vt_work_stats;
	}
	if ((rc = ctl_run_metrics_start(r, err, errlen)) < 0)
		return rc;
	if (vt->mpi) /* each rank writes the rows of its own devices: its shard */
		ctl_records_local(r->records, vt->local);
	rc = run_go(r->eng, &h, &why, &end);
	ctl_run_metrics_stop(r); /* it reads the run: before MPI's merges change it */
	if (rc < 0) {
		snprintf(err, errlen, "could not start %u threads: %s", vt->n, strerror(-rc));
		return rc;
	}
	r->stalled = why == RUN_END_STALLED;
	r->end = run_last_event_all(r->eng);
	if (r->n_lcs > 1)
		ctl_run_lcore_sum(r);
	run_out_drain(r->eng);
	if (r->has_stop && !*r->opts->quit) {
		r->end = r->stop;
		/* the run lasts to its stop time: the periodic rows due after the last event, up to it, are written */
		ctl_records_advance(r->records, r->end);
	}
	r->wall_s = wall_now() - vt->t0;
	if (vt->mpi && (rc = merge(r)) < 0) {
		snprintf(err, errlen, "out of memory gathering the ranks' counters");
		return rc;
	}
	progress(r, vt->t0, &vt->last, r->opts->progress && isatty(fileno(stderr)), true);
	return 0;
}

/* ---- the summary ---- */



/* Events the devices of partition @p p created. */
static uint64_t part_events(const struct ctl_run_state *r, uint32_t p)
{
	uint64_t n = 0;

	for (uint32_t d = 0; d < r->cfg->n_devs; d++)
		if (r->cfg->dev_part[d] == p)
			n += r->vt->dev_created != NULL ? r->vt->dev_created[d]
						       : emu_sched_created(ctl_run_dev_np(r, d)->sched,
									   d + 1);
	return n;
}

/*
 * --threads auto: a thread pays for itself with at least this many hosts of its own. A window is the lookahead
 * (0.5 us on the generated fabrics) of every host's traffic; below about this many hosts a thread's share of it
 * (a few hundred events) costs less than the window's two meetings, the threads' start and the copies of the
 * frames between them (docs/parallel.md gives the figures).
 */
#define VT_AUTO_HOSTS 32u

uint32_t ctl_run_vt_auto(struct ctl_run_state *r)
{
	uint32_t cpus, free = run_cpus_free(&cpus), parts = r->cfg->n_parts;
	uint32_t by_size = r->cfg->n_hosts / VT_AUTO_HOSTS, n = parts < free ? parts : free;

	n = n < by_size ? n : by_size;
	n = n < CTL_PARTS_MAX ? n : CTL_PARTS_MAX;
	n = n > 0 ? n : 1;
	snprintf(r->threads_auto, sizeof(r->threads_auto), "auto: %u partitions, %u of %u CPUs free, %u hosts (%u a "
		 "thread at least)", parts, free, cpus, r->cfg->n_hosts, VT_AUTO_HOSTS);
	return n;
}

/* Thread (or rank) @p i's events, wait_ns, frames out, in, late, lost, its run's wall time in ns, and its phases
 * another thread ran. */
static void thread_stats(const struct ctl_run_state *r, uint32_t i, uint64_t st[VT_RSTATS])
{
	const struct run_lcore *lc = ctl_run_lc(r, i);

	if (r->vt->rank_stat != NULL) {
		memcpy(st, r->vt->rank_stat + (size_t)i * VT_RSTATS, sizeof(*st) * VT_RSTATS);
		return;
	}
	st[0] = emu_sched_events_run(lc->np->sched), st[1] = lc->wait_ns, st[2] = lc->x_sent, st[3] = lc->x_recv;
	st[4] = lc->x_late, st[5] = run_lcore_lost(lc);
	st[6] = (uint64_t)(r->wall_s * 1e9), st[7] = lc->helped, st[8] = r->n_full, st[9] = 0;
}

void ctl_run_vt_json(FILE *f, const struct ctl_run_state *r)
{
	const struct ctl_vt *vt = r->vt;
	struct run_vt_info in;

	if (vt == NULL)
		return;
	run_vt_info(r->eng, &in);
	fprintf(f, "  \"parallel\": {\"mpi_ranks\": %u, \"threads\": %u, \"lookahead_ps\": %llu, \"lookahead_from\": \"%s\", "
		"\"threads_auto\": \"%s\", \"windows\": %llu, \"windows_alone\": %llu, \"close_delay_ps\": %llu, "
		"\"threads_detail\": [",
		vt->mpi ? vt->n : 0, vt->n,
		(unsigned long long)(vt->n > 1 ? in.lookahead : 0), vt->n > 1 ? in.la_what : "", r->threads_auto,
		(unsigned long long)in.windows, (unsigned long long)in.windows_alone, (unsigned long long)vt->close_delay);
	for (uint32_t i = 0; i < r->n_lcs; i++) {
		uint64_t st[VT_RSTATS];

		thread_stats(r, i, st);
		/* busy: the rest of its run (events, taking, the writer's work), the thread's or rank's own wall time */
		uint64_t busy = st[6] > st[1] ? st[6] - st[1] : 0;

		fprintf(f, "%s{\"thread\": %u, \"events\": %llu, \"barrier_wait_s\": %.6f, ", i ? ", " : "", i,
			(unsigned long long)st[0], (double)st[1] / 1e9);
		if (vt->n > 1) /* wall times: one thread's would make every run's summary differ (docs/summary.md) */
			fprintf(f, "\"busy_s\": %.6f, \"wait_s\": %.6f, ", (double)busy / 1e9, (double)st[1] / 1e9);
		fprintf(f, "\"frames_out\": %llu, \"frames_in\": %llu, \"late\": %llu, \"lost\": %llu, "
			"\"phases_run_by_others\": %llu, ",
			(unsigned long long)st[2], (unsigned long long)st[3], (unsigned long long)st[4],
			(unsigned long long)st[5], (unsigned long long)st[7]);
		if (vt->mpi) /* the devices the rank built in full; the others are shells (docs/parallel.md) */
			fprintf(f, "\"full_devices\": %llu, \"max_rss_kib\": %llu, ", (unsigned long long)st[8],
				(unsigned long long)st[9]);
		fputs("\"partitions\": [", f);
		for (uint32_t p = 0, k = 0; p < r->cfg->n_parts; p++)
			if (r->part_lc[p] == i)
				fprintf(f, "%s{\"name\": \"%s\", \"events\": %llu}", k++ ? ", " : "",
					r->cfg->parts[p].name, (unsigned long long)part_events(r, p));
		fputs("]}", f);
	}
	fputs("]},\n", f);
}

void ctl_run_vt_print(const struct ctl_run_state *r)
{
	const struct ctl_vt *vt = r->vt;
	struct run_vt_info in;

	if (vt == NULL || vt->n < 2)
		return;
	run_vt_info(r->eng, &in);
	printf("parallel: %u %s, lookahead %.3f us (%s), %llu windows", vt->n, vt->mpi ? "MPI ranks" : "threads",
	       (double)in.lookahead / 1e6, in.la_what, (unsigned long long)in.windows);
	if (!vt->mpi)
		printf(" (%llu on the main thread alone: too few events for more)", (unsigned long long)in.windows_alone);
	putchar('\n');
	for (uint32_t i = 0; i < r->n_lcs; i++) {
		uint64_t st[VT_RSTATS];

		thread_stats(r, i, st);
		double w = st[6] > 0 ? 100.0 * (double)st[1] / (double)st[6] : 0; /* of its own run: ranks start apart */

		printf("  %s %u: %llu events, %llu frames out, %llu in, barrier wait %.3f s (%.1f%% of the run)",
		       vt->mpi ? "rank" : "thread", i, (unsigned long long)st[0], (unsigned long long)st[2],
		       (unsigned long long)st[3], (double)st[1] / 1e9, w);
		if (!vt->mpi) /* a window is two phases (run, take): those another thread did while this one had no CPU */
			printf(", %llu of %llu phases run by another thread", (unsigned long long)st[7],
			       2 * (unsigned long long)in.windows);
		putchar('\n');
	}
}


void ctl_run_vt_merge_caps(struct ctl_run_state *r)
{
	uint32_t n = r->cfg->n_captures;
	uint64_t *v = calloc((size_t)n * 9 + 1, sizeof(*v));

	if (v == NULL || r->cap_stats == NULL) {
		free(v);
		return;
	}
	for (uint32_t i = 0; i < n; i++) {
		const struct cap_stats *st = &r->cap_stats[i];
		uint64_t *p = v + (size_t)i * 9;

		p[0] = st->seen, p[1] = st->filtered_out, p[2] = st->written, p[3] = st->cut, p[4] = st->snapped;
		p[5] = st->lost_noted, p[6] = st->bytes, p[7] = st->files_opened, p[8] = st->n_files;
	}
	run_mpi_sum(v, (size_t)n * 9);
	for (uint32_t i = 0; i < n; i++) {
		struct cap_stats *st = &r->cap_stats[i];
		const uint64_t *p = v + (size_t)i * 9;

		*st = (struct cap_stats){ .seen = p[0], .filtered_out = p[1], .written = p[2], .cut = p[3],
					  .snapped = p[4], .lost_noted = p[5], .bytes = p[6],
					  .files_opened = (uint32_t)p[7], .n_files = (uint32_t)p[8] };
	}
	free(v);
}
