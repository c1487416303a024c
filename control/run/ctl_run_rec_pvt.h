/* The session log of a recorded real-time run and its re-run in virtual time (ctl_run_record.c, ctl_run_rerun.c). */
#ifndef CTL_RUN_REC_PVT_H
#define CTL_RUN_REC_PVT_H

#include "ctl_run_pvt.h"

/* The run's stop flag (opts->quit: 1 a signal, REC_HALT_WRITE a failed write) set by a re-run whose models sent
 * more frames than its session log holds: it differs already, and nothing bounds what it would go on to do. */
#define CTL_RUN_HALT_AHEAD 3
/* The stop flag set by a control stop (uetemu ctl PREFIX stop): summary.json "stop": "ctl", the verdict's exit. */
#define CTL_RUN_HALT_CTL 4

/* ctl_run_record.c: the session log (--record, and the re-run's own) */
/** --record: refuse what a re-run could not reproduce (virtual time, several lcores), save the config and the
 *  overrides in the record's directory. 0 or -errno with @p err. */
int ctl_run_rec_prepare(struct ctl_run_state *r, char *err, size_t errlen);
/** Create DIR/session.bin with header @p h (@p rerun: a re-run's log). 0 or -errno with @p err. */
int ctl_run_rec_create(struct ctl_run_state *r, const char *dir, const struct cap_session_hdr *h, bool rerun,
		       char *err, size_t errlen);
/** Real time, at the run's time 0: start the log of a prepared record (a failure is said, the run goes on). */
void ctl_run_rec_start(struct ctl_run_state *r);
/** A poll pass at emulated time @p now, wall clock lcore 0's wall_now (a recorded run has one lcore): logged at
 *  once when periodic rows fall due or a port's ARP timers fire, else when a frame arrives or a host calls into
 *  its port (ctl_run_rec_touch). */
void ctl_run_rec_pass(struct ctl_run_state *r, emu_ps_t now);
/** The pass under way touches a port's state: it goes in the log. */
void ctl_run_rec_touch(struct ctl_run_state *r);
/** A control command applied at emulated time @p t (@p len bytes of its encoding, its number @p seq): the pass
 *  goes in the log, then the command. */
void ctl_run_rec_ctl(struct ctl_run_state *r, const uint8_t *cmd, uint32_t len, emu_ps_t t, uint64_t seq);
/** Whether the session log is being written (the ports' taps flag, ctl_run_ext_start()). */
bool ctl_run_rec_on(const struct ctl_run_state *r);
/** A frame that arrived (@p rx) or was sent on port @p port at emulated time @p t. */
void ctl_run_rec_frame(struct ctl_run_state *r, uint32_t port, const uint8_t *frame, size_t len, bool rx,
		       emu_ps_t t);
/** The END record (r->end, @p stop: enum ctl_stop) and close the log. 0 or -errno with @p err. */
int ctl_run_rec_finish(struct ctl_run_state *r, uint8_t stop, char *err, size_t errlen);
/** summary.json "record" (a recorded run only). */
void ctl_run_rec_json(FILE *f, const struct ctl_run_state *r);
/** Records written so far, by type. */
void ctl_run_rec_counts(const struct ctl_run_state *r, uint64_t *passes, uint64_t *rx, uint64_t *tx);
/** FNV-1a 64 of a file's bytes (0 when unreadable). */
uint64_t ctl_run_rec_config_hash(const char *path);
void ctl_run_rec_free(struct ctl_run_state *r);
/** Whether simulation.OutputSizeLimit cut the log (after ctl_run_rec_finish()). */
bool ctl_run_rec_cut(const struct ctl_run_state *r);
/** A re-run: stop it (CTL_RUN_HALT_AHEAD) once its models have sent more than @p tx frames, its session's. */
void ctl_run_rec_tx_limit(struct ctl_run_state *r, uint64_t tx);

/* ctl_run_rerun.c */
/** Open the recorded session of opts->rerun_dir, check it against the config, take its epochs. 0 or -errno. */
int ctl_run_rerun_open(struct ctl_run_state *r, char *err, size_t errlen);
/** Bind the ports without DPDK, then play the log: every pass, arrival and the end, in virtual time. 0 or -errno. */
int ctl_run_rerun(struct ctl_run_state *r, char *err, size_t errlen);
/** Compare the re-run's log with the recorded one, say the verdict on stderr. 0 identical, 1 different, -errno. */
int ctl_run_rerun_compare(struct ctl_run_state *r, char *err, size_t errlen);
/** summary.json "rerun" (a re-run only), the table's line. */
void ctl_run_rerun_json(FILE *f, const struct ctl_run_state *r);
void ctl_run_rerun_print(const struct ctl_run_state *r);
/** How the recorded run stopped (enum ctl_stop), which the re-run reports as its own. */
uint8_t ctl_run_rerun_stop(const struct ctl_run_state *r);
void ctl_run_rerun_free(struct ctl_run_state *r);

#endif /* CTL_RUN_REC_PVT_H */
