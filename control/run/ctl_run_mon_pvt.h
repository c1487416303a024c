/*
 * Watching a run from outside while it goes on (docs/metrics.md): the live metrics endpoint (--metrics,
 * ctl_run_metrics.c) and the per-interval stats stream (--stats-interval, ctl_run_stats.c). Both are off, and cost
 * the loops nothing, unless their option is given.
 */
#ifndef CTL_RUN_MON_PVT_H
#define CTL_RUN_MON_PVT_H

#include <stdio.h>

#include "ctl_run_pvt.h"

/* ctl_run_metrics.c */
/** --metrics: start serving GET /metrics on its own thread (once the models and ports are up). 0 or -errno with
 *  @p err. Nothing without the option. */
int ctl_run_metrics_start(struct ctl_run_state *r, char *err, size_t errlen);
/** Stop serving (before the models go), waiting for an answer under way. Accepts a run without it. */
void ctl_run_metrics_stop(struct ctl_run_state *r);

/* ctl_run_stats.c */
/** --stats-interval: open the stream (its file, or stdout). 0 or -errno with @p err. Nothing without the option. */
int ctl_run_stats_open(struct ctl_run_state *r, char *err, size_t errlen);
/** The emulated time the next interval ends at; EMU_PS_NEVER without the stream (or once it is cut). */
emu_ps_t ctl_run_stats_due(const struct ctl_run_state *r);
/** Every interval ending by @p t: its objects into the stream's buffer (every event before @p t run). */
void ctl_run_stats_sample(struct ctl_run_state *r, emu_ps_t t);
/** Write what the buffer holds (outside the loop's timed work: a real-time tick, the end). */
void ctl_run_stats_flush(struct ctl_run_state *r);
/** The last, partial interval up to @p end, flushed and closed. 0, or -EIO with the file named in @p err. */
int ctl_run_stats_close(struct ctl_run_state *r, emu_ps_t end, char *err, size_t errlen);
/** summary.json "stats_stream" (nothing without the stream). */
void ctl_run_stats_json(FILE *f, const struct ctl_run_state *r);
/** The summary table's line of the stream (nothing without it). */
void ctl_run_stats_print(const struct ctl_run_state *r);
void ctl_run_stats_free(struct ctl_run_state *r);

#endif /* CTL_RUN_MON_PVT_H */
