/*
 * The state of one run every file of the run room shares: the config, the models, the workload, where each
 * partition runs (the engine, runtime/run.h), and what the report is made from. What only some files use is in
 * their own structs, behind a pointer: the ports (ctl_run_ext_pvt.h), real time (ctl_run_rt_pvt.h), the captures
 * (ctl_run_cap.c), the replays (ctl_run_replay.c), the session log and the re-run (ctl_run_record.c,
 * ctl_run_rerun.c), virtual time (ctl_run_vt.c); each file includes the private headers of what it uses.
 */
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
#include "net_bind.h"
#include "net_port.h"
#include "net_topo.h"
#include "nic.h"
#include "port_nic.h"
#include "emu_hist.h"
#include "roce.h"
#include "rec.h"
#include "run.h"

struct ctl_captap;
struct ctl_ext;
struct ctl_run_caps;
struct ctl_run_replays;
struct ctl_run_rt;

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

struct ctl_metrics;
struct ctl_stats;
struct ctl_rec_session;
struct ctl_rerun;
struct ctl_vt;
struct ctl_run_ctl;

struct ctl_run_state {
	const struct ctl_config *cfg;
	const struct ctl_run_opts *opts;
	struct net_part np;
	struct port_nic *hosts;      /* the hosts' NICs, cfg->n_hosts, index = FEP id, all of the model cfg->nic_model
				      * names (made in ctl_run_build.c): the run reaches them through their ops only */
	/* Each host's UET NIC attributes when a peer profile applies to some (nic.PeerProfile, topology.hosts[].profile:
	 * cfg->nic with the profile over it), else NULL and every host takes cfg->nic (ctl_run_host_nic()). */
	struct nic_params *host_nic;
	/* The pingpong and responder applications this process runs (ctl_run_pp.c), and each one's cfg->pps index. */
	struct app_pp **pps;
	uint32_t pp_idx[CTL_PP_MAX];
	uint32_t n_pps;
	struct port_neigh *neigh;
	struct net_link *links;
	uint32_t n_links;            /* explicit links, or the generated topology's */
	struct net_topo *topo;       /* generated topology, or NULL */
	struct sw **sws;             /* its switches, index = device index - hosts */
	uint32_t n_sws;
	struct net_impair **impairs_owned; /* one array per impaired link, freed at teardown */
	uint32_t n_impairs_owned;
	struct ctl_run_caps *caps;   /* the captures (ctl_run_cap.c) */
	struct cap_stats *cap_stats; /* what each capture saw and wrote, filled when it closes */
	struct ctl_ext *exts;        /* the ports (real time, a re-run): ctl_run_ext_pvt.h */
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
	bool stalled;             /* the no-progress watchdog stopped the run */
	emu_ps_t records_cut_at;  /* periodic rows stopped at RecordSizeLimit here, or EMU_PS_NEVER */
	int lock_fd;             /* DIR/.uetemu.lock, held for the run (0: not taken) */
	int64_t epoch_s;
	double wall_s;
	emu_ps_t end;
	uint64_t post_fail;
	struct ctl_run_rt *rt;  /* real time: the EAL, the clock, the lateness (ctl_run_rt_pvt.h), else NULL */
	struct run_engine *eng; /* the engine: the lcores (threads, ranks), their partitions, the loops */
	struct ctl_lcore *lcs;  /* the run's figures of each lcore of the engine */
	uint32_t n_lcs;
	uint32_t *part_lc;      /* the lcore of each partition of cfg, or CTL_LC_REMOTE (another process) */
	uint32_t *dev_lc;       /* the lcore of each device (hosts, then switches), or CTL_LC_REMOTE */
	int part;               /* --partition: the one partition this process runs, or -1 for all */
	struct ctl_captap *cap_taps; /* the link captures' taps through the engine (ctl_run_lcore.c) */
	struct ctl_run_replays *replays; /* the replays (ctl_run_replay.c) */
	bool rerun;             /* a re-run of a recorded session: virtual time with the session's ports */
	struct ctl_rec_session *rec; /* real time with --record, or a re-run: the session log (ctl_run_record.c) */
	struct ctl_rerun *rr;   /* a re-run: the recorded log and the verdict (ctl_run_rerun.c) */
	struct ctl_vt *vt;      /* virtual time (not a re-run): the close delay, MPI's merges (ctl_run_vt.c) */
	char threads_auto[128]; /* --threads auto: what chose the threads (summary.json parallel), else "" */
	struct ctl_run_ctl *ctl; /* real time, a re-run: the control commands (ctl_run_ctl.c), else NULL */
	int xev_close;          /* the cross-partition event that closes a message's receive side */
	uint64_t events_other;  /* MPI: the events the other ranks ran (rank 0 reports them all) */
	uint32_t n_full;        /* the devices this process built in full, not as shells (ctl_run_dev_shell) */
	/* --partition: 1 + the port whose peer process stopped answering (the first), 0 none. Set by that port's
	 * lcore, read by the main lcore's end of pass, which stops the run (atomics). */
	uint32_t peer_lost;
	struct ctl_metrics *metrics; /* --metrics: the HTTP endpoint (ctl_run_metrics.c), or NULL */
	struct ctl_stats *stats;     /* --stats-interval: the stream (ctl_run_stats.c), or NULL */
};

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
/** The smallest retransmit timeout any host's NIC arms (ps; 0: none), its config key into *@p key (NULL: none). */
emu_ps_t ctl_run_rto_min(const struct ctl_run_state *r, const char **key);

unsigned ctl_run_eal_lcores(const struct ctl_run_opts *o, const char **which);
/** The partition state of device @p dev's lcore (lcore 0 for a device another process runs). */
struct net_part *ctl_run_dev_np(const struct ctl_run_state *r, uint32_t dev);
/** The run's lcore of device @p dev (lcore 0 for a device another process runs). */
struct ctl_lcore *ctl_run_dev_lc(const struct ctl_run_state *r, uint32_t dev);
/**
 * Whether this process builds device @p dev (hosts, then switches) as a shell: under MPI, a device another rank
 * runs. A shell holds what the ranks' figures are loaded into for the summary (counters, ports' stats) and what
 * the links need to address it, and no pools, tables or queues (nic_env.shell, sw_env.shell).
 */
bool ctl_run_dev_shell(const struct ctl_run_state *r, uint32_t dev);
/** The engine's lcore of device @p dev. */
struct run_lcore *ctl_run_dev_rl(const struct ctl_run_state *r, uint32_t dev);
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

/* ctl_run_ext.c */
/** Free the ports' state (their IPv4 sides, their hosts' links). */
void ctl_run_ext_free(struct ctl_run_state *r);

/* ctl_run_mtu.c */
/**
 * Real time: every port whose MTU is known (its mtu:, else a net_af_packet interface's MTU from sysfs) must carry
 * the run's largest data frame. Appends one error line per port that cannot to @p err. 0 or -EINVAL.
 */
int ctl_run_mtu_check(const struct ctl_run_state *r, char *err, size_t errlen);
/** Port @p i has started with IP MTU @p mtu (0: none known): a warning on stderr if data frames do not fit it. */
void ctl_run_mtu_warn(const struct ctl_run_state *r, uint32_t i, uint32_t mtu);

/** The wire bytes of the largest data frame the run's NICs send (FCS included, no VLAN tag). */
uint32_t ctl_run_mtu_frame(const struct ctl_config *cfg);

/* ctl_run_fabric.c */
int ctl_run_fabric(struct ctl_run_state *r, char *err, size_t errlen);
/** The config's faults on the links, once they are split over lcores or threads. 0 or -ENOSPC. */
int ctl_run_fabric_faults(struct ctl_run_state *r);
void ctl_run_fabric_fini(struct ctl_run_state *r);


/* ctl_run_pp.c: the pingpong and responder applications (docs/pingpong.md) */
struct app_pp;
/** Make them and schedule each ping-pong's start. 0, -ENOMEM or -ENOSPC with @p err. */
int ctl_run_pp_start(struct ctl_run_state *r, char *err, size_t errlen);
/** msg_recv of host @p fep_id: a whole message of @p bytes from @p src_ip; true when one of them took it. */
bool ctl_run_pp_recv(struct ctl_run_state *r, uint32_t fep_id, uint32_t src_ip, uint64_t bytes, emu_ps_t now);
void ctl_run_pp_free(struct ctl_run_state *r);
/** summary.json "pingpong" (nothing without any), and the table's lines. */
void ctl_run_pp_json(FILE *f, const struct ctl_run_state *r);
void ctl_run_pp_print(const struct ctl_run_state *r);
/** The run's verdict on them: the ping-pongs short of their iterations (docs/summary.md, verdict). */
void ctl_run_pp_work(const struct ctl_run_state *r, struct ctl_work_part *p);

/** The UET NIC attributes of host @p h: its peer profile over cfg->nic, or cfg->nic itself. */
static inline const struct nic_params *ctl_run_host_nic(const struct ctl_run_state *r, uint32_t h)
{
	return r->host_nic != NULL ? &r->host_nic[h] : &r->cfg->nic;
}

#endif /* CTL_RUN_PVT_H */
