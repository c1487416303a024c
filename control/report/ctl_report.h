/* The end-of-run report: DIR/summary.json (a stable interface for scripts, docs/summary.md) and the summary
 * table on stdout. The run hands the report a read-only view of what it ran; the report keeps nothing. */
#ifndef CTL_REPORT_H
#define CTL_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ctl_config.h"
#include "ctl_rdma.h"
#include "emu_hist.h"
#include "dp.h"
#include "net.h"
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

/* A DPDK port of a real-time run: the host bound to it and what crossed it. */
struct ctl_report_port {
	const char *dev;                     /* its ports[].dev */
	uint32_t host;                       /* the host bound to it */
	const uint64_t *rx_refused;          /* [WIRE_R_COUNT]: frames the decoder refused, by reason */
	const struct dp_port_stats *stats;   /* read when the run ended, before the port closed */
	const char *tx_mode;                 /* "zerocopy" or "copy" (docs/realtime.md, Zero-copy TX) */
};

/* Why a run stopped (summary.json "stop"). */
enum ctl_stop {
	CTL_STOP_COMPLETED = 0,  /* nothing left to do: every message done, or the ScalaRdma stop time reached */
	CTL_STOP_DURATION,       /* simulation.SimulationDuration reached */
	CTL_STOP_SIGNAL,         /* SIGINT or SIGTERM */
	CTL_STOP_STALLED,        /* no event left while messages were still open (no duration configured) */
	CTL_STOP_LAG,            /* real time, LagPolicy abort: the loop fell more than LagLimit behind */
};

/** The name summary.json gives @p s: "completed", "duration", "signal", "stalled", "lag". */
const char *ctl_stop_name(enum ctl_stop s);

/* How a real-time run kept up with the clock (docs/realtime.md, Lateness). A pass's lateness is how far past its
 * timestamp the earliest due event ran; passes with no event due are not counted in it. */
struct ctl_rt_stats {
	uint64_t polls;          /* poll passes */
	struct emu_hist late_ns; /* lateness of the passes that had an event due, in whole nanoseconds */
	emu_ps_t late_max;       /* the largest lateness, exact */
	uint64_t late_over[3];   /* passes more than 1 us, 10 us, 100 us late */
	emu_ps_t held;           /* LagPolicy elastic: emulated time held back in all */
	uint64_t holds;          /* LagPolicy elastic: passes that held it back */
	emu_ps_t lag_late;       /* LagPolicy abort: the lateness that stopped the run (0 if none did) */
	emu_ps_t lag_at;         /* LagPolicy abort: the timestamp of the event that was that late */
};

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
	const struct ctl_rt_stats *rt;       /* real time only: pacing and lateness */
};

/**
 * Write DIR/summary.json (through a temporary file renamed into place, so a reader never sees half of it) and
 * print the summary table on stdout.
 * Returns 0, -ENOMEM, or -errno of the file with a message naming it in @p err (size @p errlen).
 */
int ctl_report(const struct ctl_report_in *in, char *err, size_t errlen);

#endif /* CTL_REPORT_H */
