/* Virtual time (ctl_run_vt.c): what the run gives the engine's windows, and MPI's merges. */
#ifndef CTL_RUN_VT_PVT_H
#define CTL_RUN_VT_PVT_H

#include "ctl_run_pvt.h"

/* ctl_run_vt.c */
/**
 * Virtual time, once the links are split over the lcores (here threads: --threads): the windows' lookahead and its
 * errors (a zero-delay link between partitions), the schedulers' entities (device d is d + 1), the threads' boxes
 * and logs. Nothing in real time or a re-run. 0, or -errno with @p err.
 */
int ctl_run_vt_plan(struct ctl_run_state *r, char *err, size_t errlen);
void ctl_run_vt_fini(struct ctl_run_state *r);
/** --threads auto: the threads that pay for @p r's fabric on this machine now (docs/parallel.md), at least 1; why
 *  in r->threads_auto. */
uint32_t ctl_run_vt_auto(struct ctl_run_state *r);
/** Whether the run is in virtual time with its threads' logs (ctl_run_vt_plan() made them). */
bool ctl_run_vt_on(const struct ctl_run_state *r);
/** How long after its sender's completion a message's receive side closes (virtual time; 0 otherwise). */
emu_ps_t ctl_run_vt_close_delay(const struct ctl_run_state *r);
/** Run @p r in virtual time (built, ctl_run_vt_plan() done): r->end, r->wall_s, r->stalled. 0, or -errno with
 *  @p err (its threads could not start). */
int ctl_run_virtual(struct ctl_run_state *r, char *err, size_t errlen);
/** summary.json "parallel", and the table's lines with more than one thread. */
void ctl_run_vt_json(FILE *f, const struct ctl_run_state *r);
void ctl_run_vt_print(const struct ctl_run_state *r);
/** MPI, every rank, once the captures are closed: their figures summed over the ranks (files: one each). */
void ctl_run_vt_merge_caps(struct ctl_run_state *r);

#endif /* CTL_RUN_VT_PVT_H */
