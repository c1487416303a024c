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
#include "net_topo.h"
#include "nic.h"
#include "rec.h"

struct dp_ctx;

/* A host bound to a DPDK port in real time. */
struct ctl_ext {
	struct ctl_run_state *run;
	int dp_port;
	uint32_t host;
	struct net_link link;  /* dir[0]: NIC -> port, dir[1]: port -> NIC */
	uint64_t rx_bad[WIRE_R_COUNT];
	struct dp_port_stats stats;  /* read when the run ends, before the port closes */
	uint8_t frame[WIRE_MAX_FRAME];  /* prefilled with the payload pattern (wire_prefill_payload()) */
	uint8_t whole[WIRE_MAX_FRAME];  /* frames the prefilled buffer cannot take (wire_prefilled_fits()) */
};

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
	struct cap_pcap **caps;
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
	int64_t epoch_s;
	double wall_s;
	emu_ps_t end;
	uint64_t post_fail;
	emu_ps_t rt_now;        /* real time: the emulated time of the current poll pass */
	emu_ps_t late_max;      /* real time: the most an event ran past its timestamp */
	uint64_t late_events;   /* real time: poll passes whose earliest event was more than 1 us late */
	uint64_t polls;         /* real time: poll passes */
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

/* ctl_run_rt.c */
int ctl_run_realtime(struct ctl_run_state *r, char *err, size_t errlen);


#endif /* CTL_RUN_PVT_H */
