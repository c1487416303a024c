/* The Chakra workload's model side: a traceset in memory (what control/chakra reads from the protobuf files), its
 * preparation before a run (collectives expanded into point-to-point transfers by the selected algorithm, process
 * group serialization, collective synchronization, annotation: partners, dependents, ready nodes), and its replay
 * (per-rank dependency graphs, NPU sharing, transfers through a transport the caller supplies). */
#ifndef APP_CHAKRA_H
#define APP_CHAKRA_H

#include <stddef.h>
#include <stdint.h>

#include "emu_sched.h"
#include "emu_time.h"

/* Node kinds, numbered as the Chakra NodeType enum; the others (storage, batch, checkpoint) take no time here. */
enum app_ck_kind {
	APP_CK_INVALID = 0,
	APP_CK_METADATA = 1,
	APP_CK_MEM_LOAD = 2,
	APP_CK_MEM_STORE = 3,
	APP_CK_COMP = 4,
	APP_CK_SEND = 5,
	APP_CK_RECV = 6,
	APP_CK_COLL = 7,
	APP_CK_KIND_MAX = 10,
};

/* Collective types, numbered as Chakra's CollectiveCommType. */
#define APP_CK_COLLS(X)                                                                                               \
	X(ALL_REDUCE, "AllReduce", "AllReduceAlgorithm")                                                             \
	X(REDUCE, "Reduce", "ReduceAlgorithm")                                                                       \
	X(ALL_GATHER, "AllGather", "AllGatherAlgorithm")                                                             \
	X(GATHER, "Gather", "GatherAlgorithm")                                                                       \
	X(SCATTER, "Scatter", "ScatterAlgorithm")                                                                    \
	X(BROADCAST, "Broadcast", "BroadcastAlgorithm")                                                              \
	X(ALL_TO_ALL, "AllToAll", "AllToAllAlgorithm")                                                               \
	X(REDUCE_SCATTER, "ReduceScatter", "ReduceScatterAlgorithm")                                                 \
	X(REDUCE_SCATTER_BLOCK, "ReduceScatterBlock", "ReduceScatterBlockAlgorithm")                                 \
	X(BARRIER, "Barrier", "BarrierAlgorithm")
enum app_ck_coll {
#define APP_CK_COLL_ENUM(id, name, attr) APP_CK_##id,
	APP_CK_COLLS(APP_CK_COLL_ENUM)
#undef APP_CK_COLL_ENUM
	APP_CK_COLL_COUNT
};

/* Expansion algorithms (the execution page's table). */
#define APP_CK_ALGOS(X)                                                                                               \
	X(RING, "ring")                                                                                              \
	X(TREE, "tree")                                                                                              \
	X(DOUBLE_TREE, "double-tree")                                                                                \
	X(HALVING_DOUBLING, "halving-doubling")                                                                      \
	X(HALVING, "halving")                                                                                        \
	X(SEQUENTIAL, "sequential")                                                                                  \
	X(INTERLEAVED, "interleaved")                                                                                \
	X(DIRECT, "direct")
enum app_ck_algo {
#define APP_CK_ALGO_ENUM(id, name) APP_CK_ALGO_##id,
	APP_CK_ALGOS(APP_CK_ALGO_ENUM)
#undef APP_CK_ALGO_ENUM
	APP_CK_ALGO_COUNT
};

#define APP_CK_NONE (-1)

/* One node of a rank's trace. In a read trace deps hold trace node ids; in a prepared trace they hold indices into
 * the rank's node array. The struct is public because the reader fills arrays of it. */
struct app_ck_node {
	uint64_t id;       /* trace id; nodes the preparation adds get ids above the trace's largest */
	uint8_t kind;      /* enum app_ck_kind */
	uint8_t is_cpu;    /* is_cpu_op: runs on the host CPU, never shares the NPU */
	uint8_t coll;      /* enum app_ck_coll (COLL nodes and the transfers expanded from them) */
	uint8_t has_coll;  /* comm_type present */
	uint8_t has_size;  /* comm_size present */
	uint8_t sync;      /* a transfer of a collective synchronization barrier */
	uint8_t trace_kind; /* the kind the trace gave a node preparation turned into another (a collective: its join
			     * node, or one not expanded); 0 when unchanged */
	int32_t peer;      /* SEND: comm_dst; RECV: comm_src; APP_CK_NONE when absent */
	int32_t root;      /* COLL: root rank, APP_CK_NONE when the trace names none */
	int32_t pg;        /* index into the traceset's process groups, APP_CK_NONE when none */
	uint32_t n_ctrl;   /* read: the first n_ctrl deps are the node's ctrl_deps, the rest its data_deps */
	uint64_t bytes;    /* comm_size */
	uint64_t dur_us;   /* durationMicros */
	int64_t tag;       /* comm_tag */
	int64_t seq;       /* issue order (attribute seq_id), APP_CK_NONE when absent */
	int64_t coll_id;   /* prepared: collective hash shared by its transfers; APP_CK_NONE for a trace send */
	uint32_t match;    /* prepared SEND: index of the matching RECV in the partner's trace */
	uint32_t n_deps;
	uint64_t *deps;    /* malloc'd, owned by the node's trace */
};

/* Where a process group's members came from, strongest first: a communicator record or a pg:<name> (and any group
 * made in memory), a collective's involved_ranks, or a node's pg_name and nothing else yet (the reader makes it
 * every rank once every file is read). */
enum app_ck_pg_src {
	APP_CK_PG_DECLARED = 0,
	APP_CK_PG_INVOLVED = 1,
	APP_CK_PG_NAMED = 2,
};

/* One declared process group: its name and its ranks in the order the trace lists them. */
struct app_ck_pg {
	char name[64];
	uint32_t n;
	uint32_t *ranks; /* malloc'd, owned by the traceset */
	uint8_t src;     /* enum app_ck_pg_src */
};

/* What the reader read and the replay does not use, by name (node attributes, Node fields, GlobalMetadata
 * attributes, node types that take no time): the summary's "ignored" table. */
#define APP_CK_IGN_MAX 48
struct app_ck_ign {
	char name[48];
	uint64_t n;
};

/* One rank's trace. */
struct app_ck_trace {
	char file[256]; /* where it came from, for errors */
	uint32_t n, cap;
	struct app_ck_node *nodes;
};

/* A traceset: n_ranks traces and the process groups they declare. */
struct app_ck_set {
	uint32_t n_ranks;
	struct app_ck_trace *ranks;
	uint32_t n_pgs;
	struct app_ck_pg *pgs;
	char prefix[128]; /* the prefix the per-rank files share */
	char version[48];  /* the Chakra ET schema version the files name ("" when none) */
	uint32_t n_ign;
	uint64_t ign_other; /* ignored items past the table's APP_CK_IGN_MAX names */
	struct app_ck_ign ign[APP_CK_IGN_MAX];
	uint32_t pg_records, pg_world; /* groups from communicator records; groups taken as every rank */
	uint32_t gz_files;             /* files read through gzip */
};

/* Trace preparation options: the ChakraConfiguration attributes that act before the run. */
struct app_ck_prep_cfg {
	uint8_t algo[APP_CK_COLL_COUNT]; /* enum app_ck_algo per collective type */
	uint8_t pg_serialization;        /* ProcessGroupSerialization */
	uint8_t coll_sync;               /* CommCollectiveSynchronization */
	uint8_t abort_on_warning;        /* AbortOnChakraWarning */
	uint32_t max_log_lines;          /* MaxCountWarningsLoggedPerInstance */
	uint8_t scaling;                 /* Scaling */
	uint8_t strict_deps;             /* StrictDependencies: ctrl_deps alike data_deps, every bad one an error */
	double scaling_factor;           /* ScalingFactor, 0..1 */
};

/* One collective as prepared: what the collective records report on. */
struct app_ck_coll_info {
	uint8_t type;  /* enum app_ck_coll */
	uint8_t algo;  /* enum app_ck_algo */
	int32_t pg;    /* process group index */
	uint64_t bytes; /* comm_size in the trace */
	uint32_t n_transfers;
	uint64_t transfer_bytes;
};

/* What preparation logged and produced besides the traces. */
struct app_ck_prep_out {
	uint32_t warnings;    /* warnings counted (abort_on_warning acts on them) */
	uint32_t lines;       /* log lines written */
	uint32_t dropped;     /* log lines held back by max_log_lines */
	uint32_t n_colls, colls_cap;
	struct app_ck_coll_info *colls; /* malloc'd, indexed by coll_id */
	uint64_t n_transfers;           /* transfers of the whole run, barriers included */
	uint64_t n_sync_transfers;
	uint64_t ctrl_absent, ctrl_self, ctrl_cycle; /* ctrl_deps dropped (not strict_deps): absent node, own node,
							  closing a cycle */
};

/** Log sink for preparation's information and warning lines (@p ctx given to app_ck_prepare). */
typedef void (*app_ck_log_fn)(void *ctx, const char *line);

/** Names: collective type ("AllReduce"), its attribute ("AllReduceAlgorithm"), an algorithm ("ring"). */
const char *app_ck_coll_name(unsigned type);
const char *app_ck_coll_attr(unsigned type);
const char *app_ck_algo_name(unsigned algo);
/** Parse an algorithm name; APP_CK_NONE when unknown. */
int app_ck_algo_parse(const char *name);
/** 1 when @p algo may expand collective @p type (the configuration page's allowed values), else 0. */
int app_ck_algo_allowed(unsigned type, unsigned algo);
/** The defaults of the configuration page (ring, interleaved, direct, ...; both ordering options on). */
void app_ck_prep_defaults(struct app_ck_prep_cfg *cfg);

/** Append a node to @p t (the node's deps array is taken over). Returns 0 or -ENOMEM. */
int app_ck_trace_add(struct app_ck_trace *t, const struct app_ck_node *n);
/** Add a process group to @p set, taking over @p ranks. Returns its index, -EEXIST or -ENOMEM. */
int app_ck_set_add_pg(struct app_ck_set *set, const char *name, uint32_t *ranks, uint32_t n);
/** Count one ignored item @p name (a node attribute, "Node.inputs", ...) in @p set's table. */
void app_ck_set_ignore(struct app_ck_set *set, const char *name);
/** Index of the process group @p name, or APP_CK_NONE. */
int app_ck_set_find_pg(const struct app_ck_set *set, const char *name);
/** Position of rank @p r in process group @p g, or APP_CK_NONE. */
int app_ck_pg_pos(const struct app_ck_pg *g, uint32_t r);
/** Allocate @p n_ranks empty traces. Returns 0 or -ENOMEM. */
int app_ck_set_init(struct app_ck_set *set, uint32_t n_ranks);
/** Free everything @p set owns (not the struct). Accepts an all-zero set. */
void app_ck_set_fini(struct app_ck_set *set);
/** Free what @p out owns. */
void app_ck_prep_fini(struct app_ck_prep_out *out);

/* Bytes one prepared node costs, about: the node, its dependency list, the replay's per-node state. */
#define APP_CK_NODE_COST (sizeof(struct app_ck_node) + 64u)

/**
 * Nodes @p set will hold once prepared with @p cfg (each collective expanded by its algorithm, its barrier added),
 * into *@p nodes, before anything is expanded; the memory they take is about *@p nodes x APP_CK_NODE_COST. Process
 * groups and collectives the preparation would refuse or leave unexpanded count as they are. 0 or -ENOMEM.
 */
int app_ck_prep_estimate(const struct app_ck_set *set, const struct app_ck_prep_cfg *cfg, uint64_t *nodes);

/**
 * Prepare @p set in place for a run: apply scaling, check dependencies and process groups, expand every collective,
 * apply the ordering options, resolve dependencies to node indices, match every send to its receive and check that
 * no rank's graph has a cycle. Returns 0, or -EINVAL with a message naming the file and node in @p err (size
 * @p errlen): an undeclared process group, a rank outside the group range, an algorithm that does not fit the
 * group, ranks disagreeing on a group's collectives, an unknown dependency, a send without its receive, a cycle;
 * or, with abort_on_warning, any warning. -ENOMEM when memory runs out.
 */
int app_ck_prepare(struct app_ck_set *set, const struct app_ck_prep_cfg *cfg, struct app_ck_prep_out *out,
		   app_ck_log_fn log, void *log_ctx, char *err, size_t errlen);

/* ---- Replay ---- */

/* The transport a run posts its transfers to: the UET NIC today, the RoCE NIC or the scale-up model later. post()
 * starts one RDMA WRITE of @p bytes from rank @p src to rank @p dst; the transport later calls app_ck_sent(),
 * app_ck_delivered() and app_ck_acked() with the same @p xfer. Returns 0 or a negative errno (the run counts it and
 * the transfer never completes). */
struct app_ck_xport {
	int (*post)(void *ctx, uint32_t src, uint32_t dst, uint64_t bytes, uint64_t xfer, emu_ps_t now);
	void *ctx;
};

/* Per-rank results (chakra-completion-stats). */
struct app_ck_rank_stats {
	emu_ps_t end;          /* when the rank ended; 0 while running */
	uint8_t ended;
	uint64_t bytes_sent, bytes_received;
	uint64_t sends_completed, receives_completed, sends_acked, comps_completed;
	uint64_t comp_time_us; /* sum of the finished COMP_NODEs' durations */
	uint64_t nodes_done, nodes_total;
};

/* One acknowledged transfer (chakra-perf), handed to the run's callback. */
struct app_ck_xfer_done {
	uint32_t src, dst;
	uint64_t bytes;
	int64_t tag;
	int64_t coll_id;
	uint8_t sync;
	emu_ps_t start, acked;
};

/* Callbacks of a run, all optional. */
struct app_ck_run_cb {
	void (*xfer_acked)(void *ctx, const struct app_ck_xfer_done *x);
	void (*rank_ended)(void *ctx, uint32_t rank, const struct app_ck_rank_stats *st);
	void *ctx;
};

struct app_ck_run;

/**
 * Create a run of the prepared @p set (borrowed, must outlive the run) on scheduler @p s. @p collected: the
 * TraceFamily is collected (compute runs for its recorded duration) rather than synthesized/compiled (concurrent
 * compute shares the NPU). Returns NULL with errno ENOMEM.
 */
struct app_ck_run *app_ck_run_create(const struct app_ck_set *set, struct emu_sched *s, int collected,
				     const struct app_ck_xport *xp, const struct app_ck_run_cb *cb);
/** Free @p r. Accepts NULL. */
void app_ck_run_destroy(struct app_ck_run *r);
/** Start every rank at @p start: every node without dependencies starts. */
void app_ck_run_start(struct app_ck_run *r, emu_ps_t start);
/** The transport's callbacks: every byte of @p xfer sent; received whole at its receiver; acknowledged. */
void app_ck_sent(struct app_ck_run *r, uint64_t xfer, emu_ps_t now);
void app_ck_delivered(struct app_ck_run *r, uint64_t xfer, emu_ps_t now);
void app_ck_acked(struct app_ck_run *r, uint64_t xfer, emu_ps_t now);
/** As app_ck_delivered(), for a transport whose receivers do not wait for the sender's acknowledgment before
 *  their rank ends (the scale-up fabric: the execution page waits only for transfers received through the NIC). */
void app_ck_delivered_noack(struct app_ck_run *r, uint64_t xfer, emu_ps_t now);
/** Ranks that have ended, and a rank's statistics. */
uint32_t app_ck_run_ended(const struct app_ck_run *r);
const struct app_ck_rank_stats *app_ck_run_rank(const struct app_ck_run *r, uint32_t rank);
/** Start and end of node @p idx of @p rank (0 when not started/finished); the annotated trace's s and e. */
void app_ck_run_node_times(const struct app_ck_run *r, uint32_t rank, uint32_t idx, emu_ps_t *s, emu_ps_t *e);
/** Whether node @p idx of @p rank is running: started, and not finished (a send: not yet acknowledged). */
int app_ck_run_node_running(const struct app_ck_run *r, uint32_t rank, uint32_t idx);
/** Posts the transport refused. */
uint64_t app_ck_run_post_errors(const struct app_ck_run *r);


/* ---- The scale-up fabric (app_chakra_su.c) ---- */

/* One scale-up group: its bandwidth, per-hop switch latency and NPU cable latency. */
struct app_ck_su_group {
	uint64_t bps;
	emu_ps_t switch_lat, cable_lat;
};

/* The groups of a run: per rank its group (index into groups, APP_CK_NONE for none) and subgroup. */
struct app_ck_su_cfg {
	uint32_t n_ranks;
	const int32_t *group;
	const uint32_t *subgroup;
	uint32_t n_groups;
	const struct app_ck_su_group *groups;
	uint64_t max_payload; /* ScaleUpMaxPayloadSize, data bytes per packet (at least 1) */
	uint64_t header;      /* ScaleUpHeaderSize */
};

/* A rank's scale-up traffic (nd-stats): packets and their bytes, headers included. */
struct app_ck_su_stats {
	uint64_t pkts_tx, pkts_rx, bytes_tx, bytes_rx;
};

struct app_ck_su;

/** Create the fabric of @p cfg (copied) on @p s. NULL with errno ENOMEM, or EINVAL for a group out of range. */
struct app_ck_su *app_ck_su_create(const struct app_ck_su_cfg *cfg, struct emu_sched *s);
/** The run whose app_ck_sent/app_ck_delivered_noack/app_ck_acked the fabric calls. */
void app_ck_su_bind(struct app_ck_su *su, struct app_ck_run *run);
/** Free; accepts NULL. */
void app_ck_su_destroy(struct app_ck_su *su);
/** 1 when ranks @p a and @p b are in one scale-up group (0 for a NULL fabric). */
int app_ck_su_same(const struct app_ck_su *su, uint32_t a, uint32_t b);
/** Start a transfer of @p bytes (0 is one header-only packet) from @p src to @p dst, ranks of one group:
 *  0, -EINVAL (not one group) or -ENOMEM. */
int app_ck_su_post(struct app_ck_su *su, uint32_t src, uint32_t dst, uint64_t bytes, uint64_t xfer, emu_ps_t now);
/** A rank's counters (NULL out of range). */
const struct app_ck_su_stats *app_ck_su_stats(const struct app_ck_su *su, uint32_t rank);
/** Events the scheduler refused and packets that found no memory (each stalls its transfer). */
uint64_t app_ck_su_errors(const struct app_ck_su *su);
/** One-way latency: one switch hop and two cables within a subgroup, three hops and four cables between. */
emu_ps_t app_ck_su_latency(const struct app_ck_su_group *g, int same_subgroup);
/** Time to carry @p wire bytes at the group bandwidth shared @p share ways (rounded up to a ps). */
emu_ps_t app_ck_su_serial(const struct app_ck_su_group *g, uint64_t wire, uint32_t share);

#endif
