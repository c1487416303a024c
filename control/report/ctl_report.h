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
};

/* A DPDK port of a real-time run: the hosts bound to it and what crossed it. */
struct ctl_report_port {
	const char *dev;                     /* its ports[].dev */
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
};

/** The name summary.json gives @p s: "completed", "duration", "signal", "stalled", "lag", "incomplete". */
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
	const struct ctl_report_lcore *lcores; /* real time over several lcores or with --partition, else NULL */
	uint32_t n_lcores;
	const char *partition;               /* --partition: the one this process ran, else NULL */
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

#endif /* CTL_REPORT_H */
