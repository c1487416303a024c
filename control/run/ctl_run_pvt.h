/* State of one run, shared by the run room's files (build, fabric, the virtual-time and real-time loops). */
#ifndef CTL_RUN_PVT_H
#define CTL_RUN_PVT_H

#include <stdbool.h>
#include <stdio.h>

#include "cap.h"
#include "dp.h"
#include "ctl_chakra.h"
#include "ctl_rdma.h"
#include "ctl_records.h"
#include "ctl_report.h"
#include "ctl_run.h"
#include "net.h"
#include "net_port.h"
#include "net_topo.h"
#include "nic.h"
#include "emu_hist.h"
#include "roce.h"
#include "rec.h"
#include "run.h"

struct dp_ctx;
struct ctl_captap;

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
	struct run_lcore *lc;        /* the lcore that polls it: the one running its devices */
	bool off;                    /* its device runs in another process (--partition): not opened here */
	int dp_port;
	emu_ps_t emit_now;           /* the emulated time of the model's call into the port under way, which stamps
	                              * the frames it sends (ctl_run_ext.c); written by its lcore only */
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

#define CTL_LC_REMOTE RUN_REMOTE /* dev_lc of a device another process runs (--partition) */

/*
 * What the run counts per lcore of the engine (runtime/run.h): its hosts' messages. The NICs' hooks get it as their
 * arg. Written only by its own lcore; the main lcore sums them (ctl_run_lcore_sum) with relaxed loads.
 */
struct ctl_lcore {
	struct ctl_run_state *run;
	struct run_lcore *rl;        /* the engine's lcore */
	uint64_t completed, posted, post_fail;
} __attribute__((aligned(64)));

/* A record for the writer (real time: through an lcore's ring; virtual time: in a thread's log). */
enum ctl_wkind { CTL_W_CAP_LINK = 1, CTL_W_CAP_DROP, CTL_W_CAP_PORT, CTL_W_EVENT, CTL_W_TRACE };

struct ctl_whdr {
	uint32_t kind;          /* enum ctl_wkind */
	uint32_t idx;           /* capture index (link), port index (port) */
	uint32_t dir;           /* link direction; port: 1 received, 0 sent */
	int32_t reason;         /* CAP_DROP: the net_counter it was lost under */
	emu_ps_t now, at;       /* the emulated time; CAP_PORT: the wall clock as emulated time */
	uint32_t len;           /* bytes after the header */
	uint32_t pad;
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
	bool off;                      /* --partition: its device runs in another process, which plays it */
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
struct ctl_vt;

struct ctl_run_state {
	const struct ctl_config *cfg;
	const struct ctl_run_opts *opts;
	struct net_part np;
	struct nic **nics;           /* the hosts' Scala UET NICs, or NULL (cfg->nic_model CTL_NIC_ROCE) */
	struct roce **roces;         /* the hosts' Scala RoCE NICs, or NULL (CTL_NIC_UET) */
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
	struct ctl_chakra_run *chakra; /* the Chakra workload, or NULL */
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
	int64_t rt_epoch_ns;    /* real time: the wall clock at the run's time 0 (the captures' epoch) */
	uint64_t rt_t0, rt_hz;  /* real time: TSC at the start of the poll loop, and its rate */
	struct run_rt_stats rt; /* real time: pacing, lateness, what the LagPolicy did (every lcore's, merged) */
	bool lagged;            /* real time: LagPolicy abort stopped the run */
	struct run_engine *eng; /* the engine: the lcores (threads, ranks), their partitions, the loops */
	struct ctl_lcore *lcs;  /* the run's figures of each lcore of the engine */
	uint32_t n_lcs;
	uint32_t *part_lc;      /* the lcore of each partition of cfg, or CTL_LC_REMOTE (another process) */
	uint32_t *dev_lc;       /* the lcore of each device (hosts, then switches), or CTL_LC_REMOTE */
	int part;               /* --partition: the one partition this process runs, or -1 for all */
	struct ctl_captap *cap_taps; /* real time: the link captures' taps (ctl_run_lcore.c) */
	struct ctl_replay_src *replays; /* one per replay[] entry */
	uint32_t n_replays;
	bool rerun;             /* a re-run of a recorded session: virtual time with the session's ports */
	struct ctl_rec_session *rec; /* real time with --record, or a re-run: the session log (ctl_run_record.c) */
	struct ctl_rerun *rr;   /* a re-run: the recorded log and the verdict (ctl_run_rerun.c) */
	struct ctl_vt *vt;      /* virtual time (not a re-run): the close delay, MPI's merges (ctl_run_vt.c) */
	int xev_close;          /* the cross-partition event that closes a message's receive side */
	uint64_t events_other;  /* MPI: the events the other ranks ran (rank 0 reports them all) */
};

/** The device a ports[] entry binds: its switch (a switch port), else its first host. */
static inline uint32_t ctl_run_port_dev(const struct ctl_port *cp)
{
	return cp->sw ? cp->sw_dev : cp->hosts[0];
}

/** Lcore @p i of the engine. */
static inline struct run_lcore *ctl_run_lc(const struct ctl_run_state *r, uint32_t i)
{
	return run_lcore(r->eng, i);
}

/** Whether the run's hosts use the ports section: real time, and the re-run of a recorded real-time session. */
static inline bool ctl_run_has_ports(const struct ctl_run_state *r)
{
	return r->opts->mode == CTL_MODE_REALTIME || r->rerun;
}

/* ctl_run_lcore.c */
/**
 * Plan the lcores of @p r: the partitions it runs (all, or opts->partition), spread over at most @p n_lcores
 * lcores in turn (the EAL's, main first in @p lcore_ids, NULL in virtual time); each lcore's partition state
 * (lcore 0's is r->np, made already; the others' of @p max_events and @p max_pkts). Before the models are built.
 * 0, or -errno with @p err.
 */
int ctl_run_lcore_plan(struct ctl_run_state *r, const unsigned *lcore_ids, uint32_t n_lcores, uint32_t max_events,
		       uint32_t max_pkts, char *err, size_t errlen);
/**
 * The lcores the user's EAL args ask for (-l LIST, --lcores LIST, -c MASK: a lower bound for a list), *@p which
 * the option; 0 when they give none (the EAL then takes every core).
 */
unsigned ctl_run_eal_lcores(const struct ctl_run_opts *o, const char **which);
/** The partition state of device @p dev's lcore (lcore 0 for a device another process runs). */
struct net_part *ctl_run_dev_np(struct ctl_run_state *r, uint32_t dev);
/** The run's lcore of device @p dev (lcore 0 for a device another process runs). */
struct ctl_lcore *ctl_run_dev_lc(struct ctl_run_state *r, uint32_t dev);
/** The engine's lcore of device @p dev. */
struct run_lcore *ctl_run_dev_rl(struct ctl_run_state *r, uint32_t dev);
/**
 * Once links exist: split each link whose ends are on two lcores (its directions cross through the rings) and
 * check what a split run cannot do (faults on such a link, the ScalaRdma application, a port's hosts on two
 * lcores, a link to another process's device not bound to a port). 0, or -EINVAL with every error in @p err.
 */
int ctl_run_lcore_links(struct ctl_run_state *r, char *err, size_t errlen);
/** The rings (real time): between every two lcores, and from each to the writer. 0 or -ENOMEM. */
int ctl_run_lcore_rings(struct ctl_run_state *r);
/** Register the run's cross-partition events with the engine (the message close). */
void ctl_run_lcore_events(struct ctl_run_state *r);
/** Free the engine, its lcores, their partition state (not lcore 0's, the run's own) and rings. */
void ctl_run_lcore_fini(struct ctl_run_state *r);
/** Message @p msg's receive side is closed on its receiver, by a cross-partition event: in real time at once, or
 *  through the ring to its lcore; in virtual time one close delay later. */
void ctl_run_lcore_close_rcv(struct ctl_lcore *lc, struct ctl_msg *msg, emu_ps_t now);
/** A uet-events row or a uet-monitor candidate from a NIC of @p lc: written, or through the ring (workers). */
void ctl_run_lcore_event(struct ctl_lcore *lc, const struct nic_event *ev);
void ctl_run_lcore_trace(struct ctl_lcore *lc, const struct nic_trace *tr);
/** Real time: a frame of a port's capture (dev:), through the lcore's ring to the writer. */
void ctl_run_lcore_cap_port(struct run_lcore *lc, uint32_t port, const uint8_t *frame, size_t len, bool rx,
			    emu_ps_t emu, emu_ps_t at);
/** Real time: the link taps of the capture @p cap (index in captures) through the rings. 0 or -ENOSPC. */
int ctl_run_lcore_cap_link(struct ctl_run_state *r, uint32_t cap, struct net_link *l);
/** Write one record for the writer (the main lcore): the engine's run_write_fn. */
void ctl_run_lcore_write(void *run, const void *rec, uint32_t len);
/** The two device ends of link @p i: the generated fabric's, or an explicit link's hosts. */
void ctl_run_link_ends(const struct ctl_run_state *r, uint32_t i, uint32_t *a, uint32_t *b);
/** The name of device @p d. */
const char *ctl_run_dev_name(const struct ctl_run_state *r, uint32_t d);
/** Sum the lcores' message counts into r->n_completed, n_posted, post_fail (the main lcore). */
void ctl_run_lcore_sum(struct ctl_run_state *r);

/* ctl_run_build.c */
/** Write a uet-events row (the main lcore). */
void ctl_run_write_event(struct ctl_run_state *r, const struct nic_event *ev);
/** The models of a run and the checks on them, without outputs (what ctl_run_check() builds). Errors are lines
 *  of @p err. 0 or -errno. */
int ctl_run_build_models(struct ctl_run_state *r, char *err, size_t errlen);
/** ctl_run_build_models(), then the outputs, the messages' posts and the application's start. 0 or -errno. */
int ctl_run_build(struct ctl_run_state *r, char *err, size_t errlen);
void ctl_run_teardown(struct ctl_run_state *r);
/** Host @p h's NIC as a link endpoint (port 0), whichever model the config places. */
struct net_endpoint ctl_run_host_ep(struct ctl_run_state *r, uint32_t h);
/** Attach host @p h's NIC to the link direction it sends on. */
void ctl_run_host_attach(struct ctl_run_state *r, uint32_t h, struct net_dir *d);
/** Payload bytes host @p h's NIC has delivered to its host. */
uint64_t ctl_run_host_rx_payload(const struct ctl_run_state *r, uint32_t h);

/* ctl_run_fabric.c */
int ctl_run_fabric(struct ctl_run_state *r, char *err, size_t errlen);
/** The config's faults on the links, once they are split over lcores or threads. 0 or -ENOSPC. */
int ctl_run_fabric_faults(struct ctl_run_state *r);
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
/** A frame crossing the DPDK port of @p x (@p rx: received), to the port's capture if it has one: through the
 *  ring of the lcore polling the port to the writer. */
void ctl_run_cap_port(struct ctl_ext *x, const uint8_t *frame, size_t len, bool rx, emu_ps_t emu);
/** The writer's side: write the frame to port @p port's capture, stamped @p at (wall clock as emulated time). */
void ctl_run_cap_port_write(struct ctl_run_state *r, uint32_t port, const uint8_t *frame, size_t len, bool rx,
			    emu_ps_t emu, emu_ps_t at);
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
/*
 * A frame a switch sends to the device behind port @p x, encoded for the port: its headers in x->hdr with
 * *@p payload bytes of the pattern to follow, or (a CRC or ICRC trailer covers the payload) the whole frame in
 * x->whole with *@p payload 0; captured (dev:) at @p now. The bytes, or NULL when the encoder refused it.
 */
const uint8_t *ctl_run_ext_sw_encode(struct ctl_ext *x, const struct wire_pkt *pkt, size_t *len, size_t *payload,
				     emu_ps_t now);
/** A frame from port @p x (hosts): captured, logged, then answered or handed to its host at x->lc->rt_now. */
void ctl_run_ext_rx(struct ctl_ext *x, const uint8_t *frame, size_t len);
/** A frame from port @p x (a switch port): captured, logged, decoded (refusals counted) and switched. */
void ctl_run_ext_sw_rx(struct ctl_ext *x, const uint8_t *frame, size_t len);
/** Port @p x's ARP timers at x->lc->wall_now. */
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
/** A poll pass at emulated time @p now, wall clock lcore 0's wall_now (a recorded run has one lcore): logged at
 *  once when periodic rows fall due or a port's ARP timers fire, else when a frame arrives or a host calls into
 *  its port (ctl_run_rec_touch). */
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

/* ctl_run_vt.c */
/**
 * Virtual time, once the links are split over the lcores (here threads: --threads): the windows' lookahead and its
 * errors (a zero-delay link between partitions), the schedulers' entities (device d is d + 1), the threads' boxes
 * and logs. Nothing in real time or a re-run. 0, or -errno with @p err.
 */
int ctl_run_vt_plan(struct ctl_run_state *r, char *err, size_t errlen);
void ctl_run_vt_fini(struct ctl_run_state *r);
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
