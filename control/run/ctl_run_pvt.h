/* State of one run, shared by the run room's files (build, fabric, the virtual-time and real-time loops). */
#ifndef CTL_RUN_PVT_H
#define CTL_RUN_PVT_H

#include <stdbool.h>
#include <stdio.h>

#include "cap.h"
#include "dp.h"
#include "ctl_rdma.h"
#include "ctl_records.h"
#include "ctl_report.h"
#include "ctl_run.h"
#include "net.h"
#include "net_port.h"
#include "net_topo.h"
#include "nic.h"
#include "emu_hist.h"
#include "rec.h"

struct dp_ctx;

/* A host bound to a DPDK port in real time: its NIC's link, whose far end is the port. */
struct ctl_ext_host {
	struct ctl_ext *port;
	uint32_t slot;         /* its index among the port's hosts (net_port) */
	uint32_t host;         /* its index in cfg->hosts */
	struct net_link link;  /* dir[0]: NIC -> port, dir[1]: port -> NIC */
};

/* A DPDK port of a real-time run and the hosts sharing it. */
struct ctl_ext {
	struct ctl_run_state *run;
	int dp_port;
	struct net_port *stack;      /* ARP, ICMP echo, next hops, frames by MAC and IPv4 address to the hosts */
	struct ctl_ext_host *hosts;  /* cfg->ports[i].n_hosts */
	uint32_t n_hosts;
	struct dp_port_stats stats;  /* read when the run ends, before the port closes */
	struct dp_port_stats last;   /* read at the last once-a-second tick of the poll loop */
	uint64_t rx_bps, rx_fps;     /* rates over the last second (frame bytes without FCS, as the port counts) */
	uint64_t tx_bps, tx_fps;
	bool zerocopy;               /* the port sends zero-copy (dp_port_tx_mode()) */
	/* A switch port bound to the DPDK port (ports[].attach "tor0:3"): the fabric link to the external host it
	 * faces, and which end of it is the switch's. No IPv4 side (stack NULL): frames are decoded and switched. */
	struct net_link *sw_link;
	int sw_end;
	uint64_t sw_rx_refused[WIRE_R_COUNT]; /* frames from the port the decoder refused, by reason */
	uint8_t hdr[WIRE_HDRS_MAX];  /* a frame's headers, encoded here for dp_tx_hdr() */
	uint8_t whole[WIRE_MAX_FRAME]; /* frames with a CRC trailer, encoded whole */
};

/* A replay of the run (replay[i]): its frames, where they go, what became of them. */
struct ctl_replay_src {
	struct ctl_run_state *run;
	const struct ctl_replay *cfg;
	struct cap_replay *rp;
	const struct cap_replay_info *info;
	uint64_t next;                 /* the next frame to play, 0 .. info->total */
	struct net_dir *dir;           /* port, host: the link direction into the device */
	emu_timer_t timer;             /* port, host: the pending event of the next frame */
	int dp_port;                   /* dev, real time: the DPDK port, once open; else -1 */
	bool timed;                    /* real time: each frame's timing error is measured */
	uint64_t tsc_per_ps_num;       /* real time: TSC ticks per 10^12 ps (hz x TimeScale) */
	uint64_t sent;                 /* frames handed to the device, or staged on the DPDK port */
	uint64_t refused[WIRE_R_COUNT]; /* port, host: frames the decoder refused, by reason */
	uint64_t no_pkt;               /* port, host: frames lost to an empty descriptor pool */
	uint64_t sched_full;           /* port, host: frames not played, the scheduler being full */
	uint64_t tx_drops;             /* dev: frames the DPDK port did not take */
	struct emu_hist err_ns;        /* real time: send (dev) or injection time minus deadline, TSC in ns */
};

struct ctl_rec_session;
struct ctl_rerun;

struct ctl_run_state {
	const struct ctl_config *cfg;
	const struct ctl_run_opts *opts;
	struct net_part np;
	struct nic **nics;
	struct nic_neigh *neigh;
	struct net_link *links;
	uint32_t n_links;            /* explicit links, or the generated topology's */
	struct net_topo *topo;       /* generated topology, or NULL */
	struct sw **sws;             /* its switches, index = device index - hosts */
	uint32_t n_sws;
	struct net_impair **impairs_owned; /* one array per impaired link, freed at teardown */
	uint32_t n_impairs_owned;
	struct cap **caps;           /* one per captures[] entry (NULL once closed) */
	struct cap_stats *cap_stats; /* what each capture saw and wrote, filled when it closes */
	struct cap **port_caps;      /* real time: the capture of each ports[] entry, or NULL */
	bool pdump;                  /* real time: the rte_pdump server runs (hugepages) */
	struct ctl_ext *exts;
	uint32_t n_exts;
	struct rec_csv *events;
	struct ctl_records *records;
	struct ctl_msg *msgs;
	uint32_t n_msgs;
	uint32_t n_posted, n_completed;
	struct ctl_rdma *rdma;  /* the ScalaRdma application, or NULL */
	bool has_stop;          /* the run ends at @c stop: SimulationDuration, else the ScalaRdma stop time */
	emu_ps_t stop;
	struct dp_ctx *dp;
	bool stalled;             /* the no-progress watchdog stopped the run */
	emu_ps_t records_cut_at;  /* periodic rows stopped at RecordSizeLimit here, or EMU_PS_NEVER */
	int lock_fd;             /* DIR/.uetemu.lock, held for the run (0: not taken) */
	int64_t epoch_s;
	double wall_s;
	emu_ps_t end;
	uint64_t post_fail;
	emu_ps_t rt_now;        /* real time: the emulated time of the current poll pass */
	emu_ps_t emit_now;      /* real time: the emulated time of the model's call into a port under way, which
	                         * stamps the frames it sends (ctl_run_ext.c) */
	int64_t rt_epoch_ns;    /* real time: the wall clock at the run's time 0 (the captures' epoch) */
	emu_ps_t wall_now;      /* real time: the wall-clock time of the current poll pass (ARP timers) */
	emu_ps_t late_win;      /* real time: the most an event ran late in the current second */
	emu_ps_t late_last_s;   /* real time: ... and in the last whole second */
	uint64_t rt_t0, rt_hz;  /* real time: TSC at the start of the poll loop, and its rate */
	struct ctl_rt_stats rt; /* real time: pacing, lateness, what the LagPolicy did */
	bool lagged;            /* real time: LagPolicy abort stopped the run */
	struct ctl_replay_src *replays; /* one per replay[] entry */
	uint32_t n_replays;
	bool rerun;             /* a re-run of a recorded session: virtual time with the session's ports */
	struct ctl_rec_session *rec; /* real time with --record, or a re-run: the session log (ctl_run_record.c) */
	struct ctl_rerun *rr;   /* a re-run: the recorded log and the verdict (ctl_run_rerun.c) */
};

/** Whether the run's hosts use the ports section: real time, and the re-run of a recorded real-time session. */
static inline bool ctl_run_has_ports(const struct ctl_run_state *r)
{
	return r->opts->mode == CTL_MODE_REALTIME || r->rerun;
}

/* ctl_run_build.c */
/** The models of a run and the checks on them, without outputs (what ctl_run_check() builds). Errors are lines
 *  of @p err. 0 or -errno. */
int ctl_run_build_models(struct ctl_run_state *r, char *err, size_t errlen);
/** ctl_run_build_models(), then the outputs, the messages' posts and the application's start. 0 or -errno. */
int ctl_run_build(struct ctl_run_state *r, char *err, size_t errlen);
void ctl_run_teardown(struct ctl_run_state *r);

/* ctl_run_fabric.c */
int ctl_run_fabric(struct ctl_run_state *r, char *err, size_t errlen);
void ctl_run_fabric_fini(struct ctl_run_state *r);

/* ctl_run_cap.c */
/** The captures' rules that need the mode and the links (a dev capture in real time only, at most 8 per link),
 *  each broken one a line of @p err. 0 or -EINVAL. */
int ctl_run_caps_check(const struct ctl_run_state *r, char *err, size_t errlen);
/** Open every capture of the config and attach it to its link or DPDK port. 0 or -errno with @p err. */
int ctl_run_caps_open(struct ctl_run_state *r, char *err, size_t errlen);
/** The wall-clock time, ns since 1970, that stamps emulated time 0 in the captures without an epoch of their own. */
void ctl_run_caps_epoch(struct ctl_run_state *r, int64_t epoch_ns);
/** Real time, once the ports are up: the wall-clock epoch of the captures, and the rte_pdump server. */
void ctl_run_caps_rt_start(struct ctl_run_state *r);
/** Real time, before the EAL goes: stop the rte_pdump server. */
void ctl_run_caps_rt_stop(struct ctl_run_state *r);
/** A frame crossing the DPDK port of @p x (@p rx: received), to the port's capture if it has one. */
void ctl_run_cap_port(struct ctl_ext *x, const uint8_t *frame, size_t len, bool rx, emu_ps_t emu);
/** Close every capture, keeping its statistics; the first failure named in @p err. 0 or -errno. */
int ctl_run_caps_close(struct ctl_run_state *r, char *err, size_t errlen);
/** Close whatever capture is still open (no statistics) and free the capture state. */
void ctl_run_caps_free(struct ctl_run_state *r);

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

/* ctl_run_ext.c: the model side of the DPDK ports, shared by real time and the re-run */
/** Port @p i's hosts: a link for each host's NIC whose far end is the port, and the port's IPv4 side, which sends
 *  its frames through @p emit. 0 or -ENOMEM with @p err. */
int ctl_run_ext_bind(struct ctl_run_state *r, uint32_t i, net_port_emit_fn emit, char *err, size_t errlen);
/** Port @p i bound to a switch port: the link's end there sends through @p tx. */
void ctl_run_ext_bind_switch(struct ctl_run_state *r, uint32_t i, net_ext_fn tx);
/** A frame port @p x sends at emulated time @p now (its @p len header bytes, then @p payload pattern bytes): to
 *  the port's dev capture and the session log, made whole in x->whole when one of them takes it. */
void ctl_run_ext_cap_tx(struct ctl_ext *x, const uint8_t *hdr, size_t len, size_t payload, emu_ps_t now);
/** A frame from port @p x (hosts): captured, logged, then answered or handed to its host at r->rt_now. */
void ctl_run_ext_rx(struct ctl_ext *x, const uint8_t *frame, size_t len);
/** A frame from port @p x (a switch port): captured, logged, decoded (refusals counted) and switched. */
void ctl_run_ext_sw_rx(struct ctl_ext *x, const uint8_t *frame, size_t len);
/** Port @p x's ARP timers at r->wall_now. */
void ctl_run_ext_tick(struct ctl_ext *x);

/* ctl_run_record.c: the session log (--record, and the re-run's own) */
/** --record: refuse what a re-run could not reproduce (virtual time, several lcores), save the config and the
 *  overrides in the record's directory. 0 or -errno with @p err. */
int ctl_run_rec_prepare(struct ctl_run_state *r, char *err, size_t errlen);
/** Create DIR/session.bin with header @p h (@p rerun: a re-run's log). 0 or -errno with @p err. */
int ctl_run_rec_create(struct ctl_run_state *r, const char *dir, const struct cap_session_hdr *h, bool rerun,
		       char *err, size_t errlen);
/** Real time, at the run's time 0: start the log of a prepared record (a failure is said, the run goes on). */
void ctl_run_rec_start(struct ctl_run_state *r);
/** A poll pass at emulated time @p now, wall clock r->wall_now: logged at once when periodic rows fall due or a
 *  port's ARP timers fire, else when a frame arrives or a host calls into its port (ctl_run_rec_touch). */
void ctl_run_rec_pass(struct ctl_run_state *r, emu_ps_t now);
/** The pass under way touches a port's state: it goes in the log. */
void ctl_run_rec_touch(struct ctl_run_state *r);
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


#endif /* CTL_RUN_PVT_H */
