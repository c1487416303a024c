/* The Scala RDMA application over the hosts' NICs (spec seeds/003, docs/rdma-app.md): placement and pairing, the
 * connection setup over real ConnectRequest / ConnectReply / ReadyToUse frames, the closed loop of WQEs, the beacon's
 * timing, and the figures its records and summary report. It knows no config: the caller fills struct
 * app_rdma_params, binds it to the NICs, hands it their completions and connection-management messages, and writes
 * the rdma-perf and beacon rows from its callbacks. */
#ifndef APP_RDMA_H
#define APP_RDMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "app_place.h"
#include "app_timeline.h"
#include "emu_time.h"
#include "net.h"
#include "port_nic.h"
#include "wire.h"

struct app_rdma;

/* msg_done cookies with this bit set belong to the application (connection index below it); the others are the
 * caller's own messages. */
#define APP_RDMA_COOKIE (1ULL << 63)

/* What the application counts, beside its connections' own state (summary.json "rdma" and its "setup"): the
 * messages of the connection setup by type, and what went wrong. 0 is no counter. */
#define APP_RDMA_COUNTERS(X)                                                                                         \
	X(NONE, "none", "no counter")                                                                                \
	X(POST_FAILED, "post_failed", "WQEs not posted: refused by the NIC, or their connection never set up")       \
	X(REQUESTS, "requests", "ConnectRequests sent, retries included")                                            \
	X(REPLIES, "replies", "ConnectReplies sent")                                                                 \
	X(READY_TO_USE, "ready_to_use", "ReadyToUse messages sent")                                                  \
	X(RETRIES, "retries", "ConnectRequests sent again: no reply within the retry timeout")                       \
	X(FAILED, "failed", "connections given up: no reply after every retry")                                      \
	X(NOT_LISTENING, "not_listening", "ConnectRequests before the Responders listen (StartTime): unanswered")   \
	X(INVALID, "invalid", "connection-management messages matching no outstanding exchange: dropped")            \
	X(SEND_FAILED, "send_failed", "setup messages the NIC refused, or retry timers the scheduler had no room for")
enum app_rdma_counter {
#define APP_RDMA_C_ENUM(id, name, text) APP_RDMA_C_##id,
	APP_RDMA_COUNTERS(APP_RDMA_C_ENUM)
#undef APP_RDMA_C_ENUM
	APP_RDMA_C_COUNT
};

/** Counter @p c's name (its summary.json key) and description (EMU_COUNTER_NAMES()), or "unknown". */
const char *app_rdma_counter_name(int c);
const char *app_rdma_counter_desc(int c);

/* What the application takes from its configuration (the ScalaRdmaInitiator / Responder attributes and the
 * simulation parameters it reads). */
struct app_rdma_params {
	uint32_t n_hosts;
	const uint32_t *host_ip;        /* [n_hosts] IPv4 address of each host, index = FEP id; outlives the app */
	uint32_t pr_initiator;          /* prScalaRdmaInitiator, parts per billion (app_place) */
	uint32_t pr_responder;          /* prScalaRdmaResponder, parts per billion */
	uint32_t num_connections;       /* NumConnections per pair, at least 1 */
	uint32_t max_pending;           /* MaxPendingWQEs per connection */
	uint8_t start_type;             /* StartType: enum app_start */
	struct app_timeline_params timeline;
	emu_ps_t beacon_interval;       /* BeaconReportInterval */
	uint64_t random_seed;           /* RandomSeed: placement and StartType uniform draw on their own streams */
};

/* One completed WQE, for its rdma-perf row. Connection c is number c % NumConnections of pair
 * c / NumConnections (pairs in app_rdma_place() order). */
struct app_rdma_wqe {
	uint32_t conn;      /* connection index */
	uint32_t initiator; /* the Initiator's host */
	uint64_t sent;      /* WQEs the connection has posted (num_wqe_sent) */
	uint64_t done;      /* WQEs it has completed, this one included (wqe_id, num_wqe_complete) */
	emu_ps_t doorbell;  /* when this WQE's doorbell rang */
};

/* The caller's records. wqe_done: a WQE completed before the stop time; beacon: a beacon row is due at @p now,
 * once everything due at that instant has run, covering (@p now - @p since, @p now], with the WQEs posted and
 * completed since the start. Both optional. */
struct app_rdma_cb {
	void (*wqe_done)(void *ctx, const struct app_rdma_wqe *w, emu_ps_t now);
	void (*beacon)(void *ctx, emu_ps_t since, uint64_t tx_client, uint64_t rx_client, emu_ps_t now);
	void *ctx;
};

/* A pair's figures for the summary. */
struct app_rdma_pair_stats {
	uint64_t completed;    /* WQEs completed before the stop (rdma-perf rows) */
	uint64_t window_bytes; /* bytes of the WQEs completed inside the recording window */
	emu_ps_t setup_first;  /* earliest setup completion of its connections (0: none set up) */
	emu_ps_t setup_last;   /* latest */
};

/**
 * Place and pair the hosts of @p p and compute the timeline (@p p is copied; its host_ip array is borrowed).
 * Returns the application, or NULL with errno EINVAL (placement or timeline impossible: message in @p err, size
 * @p errlen) or ENOMEM.
 */
struct app_rdma *app_rdma_create(const struct app_rdma_params *p, char *err, size_t errlen);

/** Free; accepts NULL. */
void app_rdma_destroy(struct app_rdma *rd);

/** The placement: roles, pairs and their counts. */
const struct app_place_out *app_rdma_place(const struct app_rdma *rd);

/** The run's instants (stop time, recording window). */
const struct app_timeline *app_rdma_timeline(const struct app_rdma *rd);

/** Connections in all (pairs x NumConnections). */
uint32_t app_rdma_conns(const struct app_rdma *rd);

/** Scheduler events the application holds at once at most (connection starts or retry timers, first posts, the
 *  beacon). */
uint64_t app_rdma_events(const struct app_rdma *rd);

/** What host @p host's NIC holds for the application at most: @p pdcs, the connections it initiates and those it
 *  answers, and @p wqes, the WQEs of those it initiates. Both 0 for a host in no pair. */
void app_rdma_host_budget(const struct app_rdma *rd, uint32_t host, uint64_t *pdcs, uint64_t *wqes);

/**
 * Bind the application to the hosts' NICs, @p hosts (n_hosts entries, index = FEP id, any model: it goes through
 * their ops, conn_open, conn_post and cm_send), and to @p np, whose scheduler runs it, and take the records'
 * callbacks @p cb (copied; NULL: none). @p hosts and @p np must outlive it. Schedules the first beacon row and every
 * connection's start. Returns 0, or -ENOSPC with a message (scheduler full).
 */
int app_rdma_start(struct app_rdma *rd, const struct port_nic *hosts, struct net_part *np,
		   const struct app_rdma_cb *cb, char *err, size_t errlen);

/** msg_done of a WQE (@p cookie has APP_RDMA_COOKIE): its record, then the next WQE. Others are ignored. */
void app_rdma_done(struct app_rdma *rd, uint64_t cookie, emu_ps_t now);

/** A connection-management message from @p src_ip reached host @p host (the NIC's cm_recv hook). Messages that do
 *  not match an outstanding exchange are counted (APP_RDMA_C_INVALID) and ignored. Accepts NULL. */
void app_rdma_cm(struct app_rdma *rd, uint32_t host, uint32_t src_ip, const struct wire_cm *cm, emu_ps_t now);

/** Counter @p c (enum app_rdma_counter); 0 out of range. */
uint64_t app_rdma_counter(const struct app_rdma *rd, unsigned c);

/** Connections set up (the Initiator has the reply) in @p up, and those whose Responder has the ReadyToUse in
 *  @p est. */
void app_rdma_setup_counts(const struct app_rdma *rd, uint32_t *up, uint32_t *est);

/** Pair @p i's figures (all zero out of range). */
void app_rdma_pair_stats(const struct app_rdma *rd, uint32_t i, struct app_rdma_pair_stats *out);

/* One connection as the run's stats stream reads it. */
struct app_rdma_conn_view {
	uint32_t initiator, responder; /* host indexes */
	uint32_t conn;                 /* the Initiator NIC's connection */
	bool open;                     /* set up: WQEs go on it */
	uint64_t done;                 /* WQEs completed */
	uint64_t wqe_bytes;            /* the bytes of each WQE */
};

/** Connection @p c (pair-major, app_rdma_conns() of them): false out of range. Its WQEs' msg_done cookie is
 *  APP_RDMA_COOKIE | c. */
bool app_rdma_conn_view(const struct app_rdma *rd, uint32_t c, struct app_rdma_conn_view *out);

/** WQEs completed so far (the beacon's rx_client). */
uint64_t app_rdma_wqes_done(const struct app_rdma *rd);

/** Sort the recording window's WQE latencies, once, at the end of the run (app_rdma_latency reads them). */
void app_rdma_finish(struct app_rdma *rd);

/** After app_rdma_finish(): percentile @p p (100: the max) of the latencies (ps) of the WQEs completed in the
 *  recording window, nearest rank; their count in *@p n when not NULL. */
uint64_t app_rdma_latency(const struct app_rdma *rd, uint32_t p, uint64_t *n);

#endif /* APP_RDMA_H */
