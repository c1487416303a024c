/* The end-of-run report: DIR/summary.json (a stable interface for scripts, docs/summary.md) and the summary
 * table on stdout. The run hands the report a read-only view of what it ran; the report keeps nothing. */
#ifndef CTL_REPORT_H
#define CTL_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cap.h"
#include "ctl_config.h"
#include "ctl_chakra.h"
#include "ctl_rdma.h"
#include "emu_hist.h"
#include "dp.h"
#include "net.h"
#include "net_port.h"
#include "net_topo.h"
#include "nic.h"
#include "port_nic.h"
#include "run_clock.h"
#include "sw.h"
#include "wire.h"

/* One message of a messages application, as the run tracks it and the report reads it. */
struct ctl_msg {
	const struct ctl_message *m;
	emu_ps_t done;      /* sender's completion (last ACK), 0 while open */
	uint16_t pdc;       /* the sending PDC's id */
	bool posted;
	bool completed;
	bool has_rtx;       /* rtx is known: the NIC model told it at completion */
	uint32_t rtx;       /* packets retransmitted for it (its PDC's, UET) */
};

/* A port on a link to another process's switch (--partition): that process's hellos (docs/realtime.md, When a
 * peer fails). Written by the port's lcore, read when the run has ended. */
#define CTL_PEER_COUNTERS(X) \
	X(NONE, "none", "none") \
	X(HELLOS_SENT, "hellos_sent", "our hellos, one a second, and a bye at the end") \
	X(HELLOS_RECEIVED, "hellos_received", "the other process's hellos, byes included") \
	X(BYES_RECEIVED, "byes_received", "hellos saying the other process's run has ended") \
	X(BAD_HELLOS, "bad_hellos", "frames of the hello ethertype that are no hello (too short, another magic, " \
	  "version or kind, an interval out of range): counted, ignored")

#define CTL_PEER_C_ENUM(n, k, s) CTL_PEER_C_##n,
enum ctl_peer_counter { CTL_PEER_COUNTERS(CTL_PEER_C_ENUM) CTL_PEER_C_COUNT };
#undef CTL_PEER_C_ENUM

/** Key of peer counter @p c ("unknown" outside the enum). */
const char *ctl_peer_counter_name(int c);

struct ctl_peer_stats {
	uint64_t c[CTL_PEER_C_COUNT];
	emu_ps_t last_rx;          /* wall clock (since the start) of the last hello received; 0 none */
	bool lost;                 /* nothing came for peer_timeout past the next hello's due time: the run stopped */
};

/* A DPDK port of a real-time run: the hosts bound to it and what crossed it. */
struct ctl_report_port {
	const char *dev;                     /* its ports[].dev */
	const struct ctl_port *cp;           /* its ports[] entry (with --partition, the report skips the other
	                                      * process's ports: the entry is not the one of the same index) */
	const uint32_t *hosts;               /* the hosts bound to it, indexes into cfg->hosts */
	uint32_t n_hosts;
	const struct net_port *stack;        /* its IPv4 side: counters, frames not taken by reason, neighbours */
	const struct dp_port_stats *stats;   /* read when the run ended, before the port closed */
	const char *tx_mode;                 /* "zerocopy" or "copy" (docs/realtime.md, Zero-copy TX) */
	const char *switch_port;             /* "tor0:3" for a port bound to a switch port (stack NULL), else NULL */
	const char *faces;                   /* a switch port: the device its link goes to (host3, spine1) */
	const uint64_t *rx_refused;          /* [WIRE_R_COUNT]: a switch port's frames the decoder refused */
	const uint64_t *rx_csum;             /* [2]: a switch port's frames taken with a partial, an unchecked UDP
	                                      * checksum (rx_csum_partial, rx_csum_unverified) */
	const uint64_t *rx_class, *tx_class; /* [WIRE_FC_COUNT]: a switch port's frames in and out by fabric class */
	const struct ctl_peer_stats *peer;   /* a switch port facing another process's switch, else NULL */
};

/* Why a run stopped (summary.json "stop"). */
enum ctl_stop {
	CTL_STOP_COMPLETED = 0,  /* nothing left to do: every message done, or the ScalaRdma stop time reached */
	CTL_STOP_DURATION,       /* simulation.SimulationDuration reached */
	CTL_STOP_SIGNAL,         /* SIGINT or SIGTERM */
	CTL_STOP_STALLED,        /* no event left while messages were still open (no duration configured) */
	CTL_STOP_LAG,            /* real time, LagPolicy abort: the loop fell more than LagLimit behind */
	CTL_STOP_INCOMPLETE,     /* the workload's work did not all end: a Chakra rank still running at the end */
	CTL_STOP_OUTPUT,         /* an output could not be written (a full disk, an I/O error): the run stopped */
	CTL_STOP_PEER_LOST,      /* real time, --partition: another process of the fabric stopped answering */
	CTL_STOP_CTL,            /* real time: a control stop (uetemu ctl PREFIX stop, /uetemu/ctl/stop) */
};

/** The name summary.json gives @p s: "completed", "duration", "signal", "stalled", "lag", "incomplete",
 *  "output_error", "peer_lost", "ctl". */
const char *ctl_stop_name(enum ctl_stop s);

#define CTL_REPORT_MSG_LIST 1024 /* summary.json lists each message (and its FCT) of a run with at most this many */

/* One lcore of a real-time run over several (summary.json realtime.lcores). */
struct ctl_report_lcore {
	unsigned lcore;                      /* the EAL lcore */
	const char *partitions;              /* the partitions it ran, comma-separated */
	const struct run_rt_stats *rt;       /* its passes' lateness */
	uint64_t events;                     /* events its scheduler ran */
	uint64_t x_sent, x_recv, x_late;     /* frames to and from other lcores; taken after their arrival time */
	emu_ps_t x_late_max;                 /* the latest of those */
	uint64_t x_full;                     /* frames lost to a full ring to another lcore */
	uint64_t wr_full;                    /* capture frames and record rows lost to a full ring to the writer */
};

/*
 * The run's verdict (summary.json "verdict", docs/summary.md#verdict): whether the work the config gave was done by
 * the stop time, which ports never received a frame while their hosts had work, and, in real time, whether the
 * loop kept time well enough for the models' timers and serialization to be trusted.
 */
enum ctl_timing {
	CTL_TIMING_NA = 0,   /* virtual time (or a re-run): the clock is the schedulers' own */
	CTL_TIMING_TRUSTED,  /* lateness p99 within a quarter of the smallest timer and one MTU's serialization */
	CTL_TIMING_DEGRADED, /* past one of those, or the worst pass later than the smallest timer */
	CTL_TIMING_INVALID,  /* lateness p99 past the smallest timer itself */
};

/** The name summary.json gives @p t: "n/a", "trusted", "degraded", "invalid". */
const char *ctl_timing_name(enum ctl_timing t);

/* The kinds of work a verdict counts, in summary.json's order. */
enum ctl_work_kind {
	CTL_WORK_MESSAGES = 0, /* messages applications' messages not completed */
	CTL_WORK_CHAKRA_RANKS, /* Chakra ranks not ended */
	CTL_WORK_RDMA_PAIRS,   /* ScalaRdma pairs with a connection never set up or no WQE completed */
	CTL_WORK_PINGPONGS,    /* ping-pongs short of their iterations */
	CTL_WORK_SILENT_PORTS, /* real-time ports that received no frame for their hosts while the hosts had work */
	CTL_WORK_COUNT
};

#define CTL_VERDICT_FIRST 5 /* the first few open items of a kind are named, the rest only counted */
#define CTL_VERDICT_NAME 192

/* One kind of work: how many items are still open (of how many), and the first few by name. */
struct ctl_work_part {
	uint32_t open, total;
	char first[CTL_VERDICT_FIRST][CTL_VERDICT_NAME];
};

/* What the timing verdict was made from (real time): the thresholds and the figures held against them. */
struct ctl_timing_in {
	emu_ps_t timer;             /* the smallest retransmission timer a host's NIC arms (0: none) */
	const char *timer_key;      /* the key that sets it */
	emu_ps_t ser;               /* one largest data frame's serialization on the fastest link (0: unknown) */
	uint64_t ser_bps;           /* that link's rate */
	uint32_t ser_frame;         /* that frame's wire bytes */
};

struct ctl_verdict {
	bool incomplete;                 /* some work open at the stop time (any part's open > 0) */
	struct ctl_work_part part[CTL_WORK_COUNT];
	enum ctl_timing timing;
	char timing_why[512];            /* which figure passed which threshold ("" when trusted or n/a) */
	uint64_t timeouts, timeouts_while_late; /* real time: every timer expiry, and those the loop's lateness
	                                         * explains (UINT64_MAX: not measured by this build's loop) */
};

/* Everything the report reads; every pointer must stay valid for the call. */
struct ctl_report_in {
	const struct ctl_config *cfg;
	const char *out_dir;
	bool realtime;
	enum ctl_stop stop;
	const struct port_nic *hosts;        /* the hosts' NICs, cfg->n_hosts, index = FEP id */
	const uint64_t *part_counters;       /* the partition's counters (net_part.counters) */
	uint64_t events;                     /* events the scheduler ran */
	const struct ctl_msg *msgs;
	uint32_t n_msgs, n_posted, n_completed;
	uint64_t post_fail;
	const struct net_link *links;        /* explicit links, or the generated topology's */
	uint32_t n_links;
	const struct net_topo *topo;         /* generated topology, or NULL */
	struct sw *const *sws;               /* its switches, index = device index - hosts */
	uint32_t n_sws;
	const struct ctl_report_port *ports; /* real time only */
	uint32_t n_ports;
	struct ctl_rdma *rdma;               /* the ScalaRdma application, or NULL */
	const struct ctl_chakra_run *chakra; /* the Chakra workload, or NULL */
	const struct cap_stats *cap_stats;   /* per cfg->captures entry: what it saw and wrote (its files) */
	uint32_t cap_shards;                 /* MPI: ranks, each writing its shard of the records and NAME-<rank> of
	                                        every capture (no rotation: file k is rank k's); 0 or 1: one process */
	emu_ps_t end;                        /* emulated time the run ended at */
	double wall_s;
	emu_ps_t records_cut_at;             /* periodic rows stopped at RecordSizeLimit here; EMU_PS_NEVER if not */
	emu_ps_t wall_end;                   /* real time: wall-clock time the run ended at (neighbour states) */
	const struct run_rt_stats *rt;       /* real time only: pacing and lateness (every lcore's, merged) */
	int64_t cpu_steal_ns;                /* real time: CPU time a hypervisor took from the machine during the loop
						(/proc/stat steal, every CPU's), -1 unknown */
	uint64_t stall_threshold_ns;         /* real time: a gap between passes over this is a stall (wall ns) */
	bool stall_hold;                     /* ... held back (false: --stall-threshold off) */
	uint32_t stall_budget_pct;           /* ... within this % of the wall time */
	const struct ctl_report_lcore *lcores; /* real time over several lcores or with --partition, else NULL */
	uint32_t n_lcores;
	const char *partition;               /* --partition: the one this process ran, else NULL */
	struct ctl_timing_in timing;         /* real time: what the timing verdict holds the lateness against */
	const struct ctl_work_part *pingpongs; /* the ping-pongs the run tracks (ctl_run_pp.c), or NULL */
	const bool *host_remote;             /* --partition: per host, whether another process runs it (its work is
	                                      * that process's verdict); NULL: every host is this process's */
	uint64_t timeouts_while_late;        /* real time: timer expiries the loop ran late (UINT64_MAX: not measured) */
	struct ctl_verdict *verdict;         /* filled with the verdict (may be NULL) */
	/* Sections the run adds (replays, the session record): @p extra_json writes summary.json keys, each line
	 * "  \"key\": value,\n", after "captures"; @p extra_print lines after the table. Either may be NULL. */
	void (*extra_json)(FILE *f, const void *arg);
	void (*extra_print)(const void *arg);
	const void *extra_arg;
};

/* The fabric's counters, as summary.json's "counters" and "drop_reasons" give them. */
struct ctl_report_counters {
	uint64_t drops, trims, nacks, retransmits, timeouts, ecn_marks, pfc_pauses;
	uint64_t nic_drops[PORT_NIC_C_MAX]; /* drops by reason (the hosts' NIC model's counters), summed over the NICs */
	uint64_t sw_drops[SW_C_COUNT];   /* drops by reason, summed over the switches */
};

/**
 * Sum the counters of @p in's NICs, switches and partition (only cfg, hosts, sws, n_sws and part_counters are
 * read). Also called while a real-time run goes on, from a telemetry handler on another thread: every counter is
 * read with one aligned 64-bit load (DP_LOAD), no lock, so the sums are of counters a few increments apart.
 */
void ctl_report_counters(const struct ctl_report_in *in, struct ctl_report_counters *out);

/* One direction of a link, as summary.json's "links" give it (bytes on the wire, FCS included). */
struct ctl_report_dir {
	uint64_t bytes, frames, drops, trims, ecn_marks, pauses, trimmed_drops;
};

/**
 * Link @p i of @p in (explicit, or the generated topology's): returns its name, sets its ends' names and what
 * crossed each direction by @p now (@p dir[0] from a to b). Reads links, topo, sws and cfg; safe from a telemetry
 * handler as ctl_report_counters() is (a switch port's counters are copied with aligned 64-bit loads).
 */
const char *ctl_report_link(const struct ctl_report_in *in, uint32_t i, emu_ps_t now, const char **a, const char **b,
			    struct ctl_report_dir dir[2]);

/**
 * Write DIR/summary.json (through a temporary file renamed into place, so a reader never sees half of it) and
 * print the summary table on stdout.
 * Returns 0, -ENOMEM, or -errno of the file with a message naming it in @p err (size @p errlen).
 */
int ctl_report(const struct ctl_report_in *in, char *err, size_t errlen);

/**
 * A run that a signal stopped before it started (while a capture to replay or a Chakra traceset was read): write
 * the short DIR/summary.json of docs/summary.md (schema, stop, "started": false, simulation, sim_time_ps 0 and
 * @p why), creating DIR if it is missing, as ctl_report() writes its own. 0 or -errno.
 */
int ctl_report_unstarted(const struct ctl_config *cfg, const char *out_dir, enum ctl_stop stop, const char *why);

#endif /* CTL_REPORT_H */
