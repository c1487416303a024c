/* The end-of-run report: DIR/summary.json (a stable interface for scripts, docs/summary.md) and the summary
 * table on stdout. The run hands the report a read-only view of what it ran; the report keeps nothing. */
#ifndef CTL_REPORT_H
#define CTL_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ctl_config.h"
#include "ctl_rdma.h"
#include "dp.h"
#include "net.h"
#include "net_port.h"
#include "net_topo.h"
#include "nic.h"
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
};

/* Why a run stopped (summary.json "stop"). */
enum ctl_stop {
	CTL_STOP_COMPLETED = 0,  /* nothing left to do: every message done, or the ScalaRdma stop time reached */
	CTL_STOP_DURATION,       /* simulation.SimulationDuration reached */
	CTL_STOP_SIGNAL,         /* SIGINT or SIGTERM */
	CTL_STOP_STALLED,        /* no event left while messages were still open (no duration configured) */
};

/** The name summary.json gives @p s: "completed", "duration", "signal", "stalled". */
const char *ctl_stop_name(enum ctl_stop s);

/* Everything the report reads; every pointer must stay valid for the call. */
struct ctl_report_in {
	const struct ctl_config *cfg;
	const char *out_dir;
	bool realtime;
	enum ctl_stop stop;
	struct nic *const *nics;             /* cfg->n_hosts, index = FEP id */
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
	const char *const *captures;         /* the capture files written (paths), for the console line */
	uint32_t n_captures;
	emu_ps_t end;                        /* emulated time the run ended at */
	double wall_s;
	uint64_t polls;                      /* real time: poll passes */
	emu_ps_t late_max;                   /* real time: the most an event ran past its timestamp */
	uint64_t late_events;                /* real time: passes whose earliest event was more than 1 us late */
	emu_ps_t wall_end;                   /* real time: wall-clock time the run ended at (neighbour states) */
};

/**
 * Write DIR/summary.json (through a temporary file renamed into place, so a reader never sees half of it) and
 * print the summary table on stdout.
 * Returns 0, -ENOMEM, or -errno of the file with a message naming it in @p err (size @p errlen).
 */
int ctl_report(const struct ctl_report_in *in, char *err, size_t errlen);

#endif /* CTL_REPORT_H */
