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
	uint64_t tsc_per_ps_num;       /* dev: TSC ticks per 10^12 ps (hz x TimeScale) */
	uint64_t sent;                 /* frames handed to the device, or staged on the DPDK port */
	uint64_t refused[WIRE_R_COUNT]; /* port, host: frames the decoder refused, by reason */
	uint64_t no_pkt;               /* port, host: frames lost to an empty descriptor pool */
	uint64_t sched_full;           /* port, host: frames not played, the scheduler being full */
	uint64_t tx_drops;             /* dev: frames the DPDK port did not take */
	struct emu_hist err_ns;        /* dev: send time minus deadline, ns */
};

struct ctl_rec_session;

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
};

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
