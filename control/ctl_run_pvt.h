/* State of one run, shared by the run files (build, loops, report). */
#ifndef CTL_RUN_PVT_H
#define CTL_RUN_PVT_H

#include <stdbool.h>
#include <stdio.h>

#include "cap.h"
#include "dp.h"
#include "ctl_records.h"
#include "ctl_run.h"
#include "net.h"
#include "net_topo.h"
#include "nic.h"
#include "rec.h"

struct dp_ctx;
struct ctl_rdma;

/* msg_done cookies with this bit set belong to the ScalaRdma application (connection index below it); the others
 * index the messages. */
#define CTL_RDMA_COOKIE (1ULL << 63)

/* One message of a messages application, as the run tracks it. */
struct ctl_msg {
	const struct ctl_message *m;
	emu_ps_t done;      /* sender's completion (last ACK), 0 while open */
	uint16_t pdc;       /* the sending PDC's id */
	bool posted;
	bool completed;
};

/* A host bound to a DPDK port in real time. */
struct ctl_ext {
	struct ctl_run_state *run;
	int dp_port;
	uint32_t host;
	struct net_link link;  /* dir[0]: NIC -> port, dir[1]: port -> NIC */
	uint64_t rx_bad[WIRE_R_COUNT];
	struct dp_port_stats stats;  /* read when the run ends, before the port closes */
	uint8_t frame[WIRE_MAX_FRAME];
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
int ctl_run_build(struct ctl_run_state *r, char *err, size_t errlen);
void ctl_run_teardown(struct ctl_run_state *r);

/* ctl_run_fabric.c */
int ctl_run_fabric(struct ctl_run_state *r, char *err, size_t errlen);
void ctl_run_fabric_fini(struct ctl_run_state *r);
/** Name of link @p i of the run, and the names of its a and b ends. */
const char *ctl_run_link_name(const struct ctl_run_state *r, uint32_t i, const char **a, const char **b);

/* ctl_run_rt.c */
int ctl_run_realtime(struct ctl_run_state *r, char *err, size_t errlen);

/* ctl_rdma.c: the ScalaRdma application (docs/rdma-app.md). */
/** Place and pair the hosts and compute the timeline into r->rdma (NULL without a ScalaRdma application).
 * Returns 0, -EINVAL (message in @p err), -ENOMEM. */
int ctl_rdma_create(struct ctl_run_state *r, char *err, size_t errlen);
/** Scheduler events the application holds at once at most (connection starts and first posts). */
uint64_t ctl_rdma_events(const struct ctl_rdma *rd);
/** Whether there is an application; its stop time in @p stop. */
bool ctl_rdma_stop(const struct ctl_rdma *rd, emu_ps_t *stop);
/** Open the rdma-perf record in @p dir and schedule every connection's start (NICs made). 0 or -errno. */
int ctl_rdma_start(struct ctl_rdma *rd, const char *dir, int64_t epoch_s, char *err, size_t errlen);
/** msg_done of a WQE (@p cookie has CTL_RDMA_COOKIE): its rdma-perf row, then the next WQE. */
void ctl_rdma_done(struct ctl_rdma *rd, uint64_t cookie, emu_ps_t now);
/** A connection-management message from @p src_ip reached host @p host (the NIC's cm_recv hook). */
void ctl_rdma_cm(struct ctl_rdma *rd, uint32_t host, uint32_t src_ip, const struct wire_cm *cm, emu_ps_t now);
/** Close the rdma-perf record: 0 or -EIO. Accepts NULL. */
int ctl_rdma_close(struct ctl_rdma *rd);
/** Sort @p v ascending (summary figures). */
void ctl_sort_u64(uint64_t *v, uint64_t n);
/** Nearest-rank percentile @p p of the sorted @p v (0 when empty). */
uint64_t ctl_pct(const uint64_t *v, uint64_t n, uint32_t p);

/** WQEs completed so far (the beacon's rx_client), for the progress bar. */
uint64_t ctl_rdma_wqes_done(const struct ctl_rdma *rd);
/** The summary.json "rdma" member (with its trailing comma), nothing for NULL. */
void ctl_rdma_json(struct ctl_rdma *rd, FILE *f);
/** The RDMA application's part of the summary table: per pair goodput, WQE latency percentiles. */
void ctl_rdma_print(struct ctl_rdma *rd, FILE *f);
/** Goodput host @p host received as a Responder: its pairs' goodput_gbps summed (0 for NULL or no pair). */
double ctl_rdma_host_gbps(const struct ctl_rdma *rd, uint32_t host);
/** Free; accepts NULL. */
void ctl_rdma_destroy(struct ctl_rdma *rd);

/* ctl_report.c */
int ctl_report(struct ctl_run_state *r, char *err, size_t errlen);

#endif /* CTL_RUN_PVT_H */
