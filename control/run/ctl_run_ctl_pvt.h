/*
 * Control of a running real-time session (ctl_run_ctl.c, docs/realtime.md "Control"): the /uetemu/ctl/...
 * telemetry commands queue what they ask for in a mailbox the main lcore drains once a pass, after the pass's
 * events, at the pass's emulated time; each command applied goes in the session log, so a re-run applies it at
 * the same point. A command for a host of another lcore is forwarded to that lcore's mailbox, which it drains at
 * the same point of its own pass.
 */
#ifndef CTL_RUN_CTL_PVT_H
#define CTL_RUN_CTL_PVT_H

#include "ctl_run_pvt.h"

#define CTL_RUN_CTL_MSGS 1024u   /* messages control may post in one run (room kept in r->msgs) */
#define CTL_RUN_CTL_REC_LEN 24u  /* bytes of a command in the session log */
#define CTL_RUN_CTL_REC_VERSION 1u /* the first byte of that encoding */

/** What a command does. */
enum ctl_run_ctl_kind {
	CTL_RUN_CTL_POST = 1, /* a message from host a to host b of @c bytes, posted at the pass's time */
	CTL_RUN_CTL_PAUSE,    /* host a's sending held */
	CTL_RUN_CTL_RESUME,   /* and released */
	CTL_RUN_CTL_STOP,     /* the run stops: "stop": "ctl" (a re-run ends at the log's end record instead) */
	CTL_RUN_CTL_RATE,     /* host a's egress shaper set to @c bytes bit/s (0: none) */
	CTL_RUN_CTL_FPAUSE,   /* the sending of host a's message b (its number in cfg's then control's) held */
	CTL_RUN_CTL_FRESUME,  /* and released */
};

/** One command, as queued and as logged. */
struct ctl_run_ctl_cmd {
	uint8_t kind;   /* enum ctl_run_ctl_kind */
	uint32_t a, b;  /* hosts (indexes into cfg->hosts); a message's number (FPAUSE, FRESUME) */
	uint64_t bytes; /* a post's size; a rate, bit/s */
	uint64_t seq;   /* its number among the commands accepted, from 0 */
	uint32_t msg;   /* forwarded to another lcore: a post's message (r->msgs index); not logged */
};

/** Real time and a re-run: the control state and the room for messages it posts. 0 or -ENOMEM. */
int ctl_run_ctl_create(struct ctl_run_state *r);
void ctl_run_ctl_free(struct ctl_run_state *r);
/** Messages posted by control so far (they follow the config's in r->msgs). */
uint32_t ctl_run_ctl_msgs(const struct ctl_run_state *r);
/** Real time, the main lcore, once a pass after its events: apply the queued commands at the pass's time. */
void ctl_run_ctl_poll(struct ctl_run_state *r);
/** Real time, before the loop: a mailbox for each other lcore (none made: their hosts' commands are refused). */
void ctl_run_ctl_lcores(struct ctl_run_state *r);
/** Real time, lcore @p lc (not the main one), once a pass at the same point: do what the main lcore forwarded. */
void ctl_run_ctl_poll_lc(struct ctl_run_state *r, uint32_t lc);
/** Apply @p c at @p now: logged in the session log (if any), then done. */
void ctl_run_ctl_apply(struct ctl_run_state *r, const struct ctl_run_ctl_cmd *c, emu_ps_t now);
/** Decode a logged command (@p p, @p len bytes, number @p seq) for the run @p r; 0, or -EINVAL with @p err (a
 *  version or kind it does not know, hosts or a size the config cannot take). */
int ctl_run_ctl_decode(const struct ctl_run_state *r, const uint8_t *p, uint32_t len, uint64_t seq,
		       struct ctl_run_ctl_cmd *c, char *err, size_t errlen);
/** summary.json's "control" (a run that applied or refused a command): the counts and the commands applied. */
void ctl_run_ctl_json(FILE *f, const struct ctl_run_state *r);
/** The telemetry commands of control (ctl_run_tel.c registers them with the others). */
extern const struct dp_tel_cmd ctl_run_ctl_tel[];
extern const unsigned ctl_run_ctl_n_tel;

/* ctl_run_build.c */
/** Post message @p cm (kept by the caller for the run) at @p now, as the config's messages are. 0, -ENOSPC. */
int ctl_run_msg_post(struct ctl_run_state *r, const struct ctl_message *cm, emu_ps_t now);
/** The same in two steps: add @p cm to r->msgs (its index), then, on its sender's lcore, post message @p i at
 *  @p now (0, -ENOSPC). */
uint32_t ctl_run_msg_add(struct ctl_run_state *r, const struct ctl_message *cm);
int ctl_run_msg_sched(struct ctl_run_state *r, uint32_t i, emu_ps_t now);
/** Whether host @p h can send in this mode (a link, a port, a generated fabric's host). */
bool ctl_run_host_sends(const struct ctl_run_state *r, uint32_t h);
/** Whether host @p h is bound to a DPDK port (real time, a re-run). */
bool ctl_run_host_on_port(const struct ctl_run_state *r, uint32_t h);

#endif /* CTL_RUN_CTL_PVT_H */
