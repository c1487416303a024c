/* Real time (ctl_run_rt.c, ctl_run_tel.c): the EAL, the clock and its lateness, the ports' polling, telemetry. */
#ifndef CTL_RUN_RT_PVT_H
#define CTL_RUN_RT_PVT_H

#include "ctl_run_pvt.h"
#include "dp.h"

/*
 * What only real time has: the EAL and its ports (dataplane/), the TSC at the run's time 0 and its rate, the
 * captures' wall-clock epoch, the lcores' lateness merged at the end. Read by the captures, the replays, telemetry,
 * the session log and the report.
 */
struct ctl_run_rt {
	struct dp_ctx *dp;
	uint64_t t0, hz;         /* TSC at the start of the poll loop, and its rate */
	int64_t epoch_ns;        /* the wall clock at the run's time 0 (the captures' epoch) */
	struct run_rt_stats stats; /* pacing, lateness, what the LagPolicy did (every lcore's, merged) */
	bool lagged;             /* LagPolicy abort stopped the run */
	int64_t steal_ns;        /* CPU time the hypervisor took from this machine's CPUs during the loop; -1 unknown */
	uint64_t stall_ns;       /* the stall threshold, wall ns (docs/realtime.md, Stalls) */
	bool stall_hold;         /* stalls held back (not --stall-threshold off) */
	uint32_t stall_budget_pct; /* ... within this % of the wall time run so far */
};

/** Real time: the EAL (its lcores tell the build where partitions run). 0, or -errno with @p err. */
int ctl_run_rt_open(struct ctl_run_state *r, char *err, size_t errlen);
/** The EAL lcores the run may use, main first, into @p ids (at most @p max): 1 and no ids outside real time. */
uint32_t ctl_run_rt_lcores(const struct ctl_run_state *r, unsigned *ids, uint32_t max);
/** The DPDK context (NULL outside real time, or once closed). */
struct dp_ctx *ctl_run_rt_dp(const struct ctl_run_state *r);
/** Stop the EAL, its ports and telemetry (once the run is over, or a build failed after it came up). */
void ctl_run_rt_stop(struct ctl_run_state *r);
/** ctl_run_rt_stop(), and free the real-time state (at teardown). */
void ctl_run_rt_free(struct ctl_run_state *r);

/* ctl_run_rt.c */
/** Run @p r in real time: the EAL, the ports, the poll loop until the stop time, the work done or a signal. */
int ctl_run_realtime(struct ctl_run_state *r, char *err, size_t errlen);

/* ctl_run_tel.c */
/**
 * Answer the /uetemu/summary, /hosts, /ports, /links and /lateness telemetry commands from @p r (its dp open, its
 * ports added) until dp_destroy(). Handlers run on DPDK's telemetry thread and only read @p r, without a lock.
 * 0 or -errno with a message in @p err.
 */
int ctl_run_tel_register(struct ctl_run_state *r, char *err, size_t errlen);
/** The report's view of the live run: what ctl_report_counters() and ctl_report_link() read (the metrics too). */
struct ctl_report_in ctl_run_tel_view(const struct ctl_run_state *r);
/** The fabric's counters as summary.json's "counters", read live (every lcore's partition counters summed). */
void ctl_run_tel_fabric(const struct ctl_run_state *r, struct ctl_report_counters *c);
/** The lcores' polls, worst lateness and late passes, summed (the figures /uetemu/summary and /lateness give). */
void ctl_run_tel_rt_sum(const struct ctl_run_state *r, struct run_rt_stats *out);

#endif /* CTL_RUN_RT_PVT_H */
