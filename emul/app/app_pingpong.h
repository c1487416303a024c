/* Applications a device under test expects: a ping-pong (an initiator that sends a message, waits for the reply of
 * its responder, and measures each round trip) and a responder that answers every message it receives with a
 * reply of a configured size (docs/pingpong.md). The UEC reference provider's test program is such a ping-pong.
 *
 * The model posts through the host-NIC interface (emul/port/port_nic.h: conn_open, conn_post), one long-lived
 * connection each way, so it runs on any NIC model that has them. It is told of a received message by the run
 * (app_pp_recv(), from the NIC's msg_recv hook) and of a completed send by its cookie (app_pp_is_cookie()).
 * Nothing here allocates after app_pp_create(); each call touches only its own host's side, so the client and the
 * server may run on different lcores.
 */
#ifndef APP_PINGPONG_H
#define APP_PINGPONG_H

#include <stdbool.h>
#include <stdint.h>

#include "emu_time.h"
#include "port_nic.h"

/* The cookies of the model's messages: this bit set (msg_done hands them back; the run ignores them). */
#define APP_PP_COOKIE (1ULL << 61)
#define APP_PP_PEERS_MAX 16 /* peers a responder answers at once (a connection each) */

/** One ping-pong or responder (applications[] entry of type pingpong or responder). */
struct app_pp_cfg {
	bool responder_only;   /* type responder: no initiator here, answer whoever sends */
	uint32_t client_ip;    /* the initiator's IPv4 (host byte order); 0 with responder_only */
	uint32_t server_ip;    /* the responder's */
	uint64_t size;         /* the request's bytes (pingpong) */
	uint64_t reply;        /* the reply's bytes */
	uint32_t iterations;   /* round trips (pingpong) */
	emu_ps_t start;        /* the first request's post time */
};

/** Round-trip figures: each from the request's post to the whole reply received, ps; nearest-rank percentiles. */
struct app_pp_result {
	uint32_t count;        /* round trips completed */
	uint32_t post_fail;    /* posts the NIC refused (each ends the ping-pong) */
	uint64_t replies;      /* replies the responder posted */
	uint64_t unknown;      /* messages received from a host this model does not answer or wait for */
	emu_ps_t first, min, p50, p90, p99, max, mean;
};

struct app_pp;

/** A ping-pong of @p c between NICs @p client (NULL with responder_only) and @p server. NULL: no memory or a bad
 *  config (iterations 0 for a ping-pong, sizes 0). */
struct app_pp *app_pp_create(const struct app_pp_cfg *c, const struct port_nic *client, const struct port_nic *server);
void app_pp_destroy(struct app_pp *pp);

/** The initiator's start, at c->start on the client's scheduler: opens its connection and posts the first request.
 *  Returns 0 or the NIC's negative errno. */
int app_pp_start(struct app_pp *pp, emu_ps_t now);

/**
 * A whole message of @p bytes from @p src_ip arrived at the host whose IPv4 is @p at_ip: the server answers it
 * (a request of size bytes from its client, or any message from anyone with responder_only), the client records
 * the round trip on a message of reply bytes from its server and posts the next request. Other messages (another
 * workload's between the same hosts) are not this model's: returns true only when it took the message.
 */
bool app_pp_recv(struct app_pp *pp, uint32_t at_ip, uint32_t src_ip, uint64_t bytes, emu_ps_t now);

/** True when the ping-pong has its iterations (a responder: never, it answers until the run ends). */
bool app_pp_finished(const struct app_pp *pp);

/** The figures so far (sorts a copy of the round trips: at the end of a run, not on a packet path). */
void app_pp_result(const struct app_pp *pp, struct app_pp_result *out);

/** The config it was made with. */
const struct app_pp_cfg *app_pp_cfg(const struct app_pp *pp);

#endif /* APP_PINGPONG_H */
