/* The replays of a run (ctl_run_replay.c): captures played into the models or out of DPDK ports. */
#ifndef CTL_RUN_REPLAY_PVT_H
#define CTL_RUN_REPLAY_PVT_H

#include "ctl_run_pvt.h"

/* ctl_run_replay.c */
/** Load every replay's capture; port and host replays schedule their first frame. 0 or -errno with @p err. */
int ctl_run_replays_open(struct ctl_run_state *r, char *err, size_t errlen);
/** Real time, once the ports are up and rt_t0 is set: the DPDK-port replays take their port and clock. */
void ctl_run_replays_rt_start(struct ctl_run_state *r);
/** Real time, every pass: each DPDK-port replay sends the frames whose TSC deadline has passed. */
void ctl_run_replays_rt_poll(struct ctl_run_state *r);
/** Whether every replay has played its last frame (DPDK-port replays of a re-run do not count). */
bool ctl_run_replays_done(const struct ctl_run_state *r);
/** Real time without a stop time: whether the run is done: its messages, its replays, and after a replay into
 *  the models, every event those frames caused. False for a run with neither messages nor replays. */
bool ctl_run_replays_work_done(const struct ctl_run_state *r);
/** Frames the replays have played so far (the watchdog's progress). */
uint64_t ctl_run_replays_sent(const struct ctl_run_state *r);
/** summary.json's "replays" (nothing without replays), and the table's replay lines. */
void ctl_run_replays_json(FILE *f, const struct ctl_run_state *r);
void ctl_run_replays_print(const struct ctl_run_state *r);
void ctl_run_replays_free(struct ctl_run_state *r);

#endif /* CTL_RUN_REPLAY_PVT_H */
