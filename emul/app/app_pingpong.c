/* The ping-pong and responder applications (app_pingpong.h). */
#include "app_pingpong.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct pp_peer {
	uint32_t ip;
	uint32_t conn;
};

struct app_pp {
	struct app_pp_cfg c;
	const struct port_nic *client, *server;
	/* the client's side */
	uint32_t conn;         /* its connection to the server */
	uint32_t done;         /* round trips completed */
	uint32_t post_fail;
	bool waiting;          /* a request is out, its reply not yet in */
	emu_ps_t posted;       /* when the outstanding request was posted */
	emu_ps_t *rtt;         /* c.iterations round trips */
	/* the server's side */
	struct pp_peer peers[APP_PP_PEERS_MAX];
	uint32_t n_peers;
	uint64_t replies, unknown;
	uint32_t srv_fail;
};

struct app_pp *app_pp_create(const struct app_pp_cfg *c, const struct port_nic *client, const struct port_nic *server)
{
	if (server == NULL || c->reply == 0 || (!c->responder_only && (client == NULL || c->iterations == 0 ||
								      c->size == 0)))
		return NULL;
	struct app_pp *pp = calloc(1, sizeof(*pp));

	if (pp == NULL)
		return NULL;
	pp->c = *c;
	pp->client = client;
	pp->server = server;
	if (!c->responder_only && (pp->rtt = calloc(c->iterations, sizeof(*pp->rtt))) == NULL) {
		free(pp);
		return NULL;
	}
	return pp;
}

void app_pp_destroy(struct app_pp *pp)
{
	if (pp == NULL)
		return;
	free(pp->rtt);
	free(pp);
}

const struct app_pp_cfg *app_pp_cfg(const struct app_pp *pp)
{
	return &pp->c;
}

/* The client posts request number pp->done. */
static int post_request(struct app_pp *pp, emu_ps_t now)
{
	int rc = pp->client->ops->conn_post(pp->client->dev, pp->conn, pp->c.size, APP_PP_COOKIE | pp->done, now);

	if (rc < 0) {
		pp->post_fail++;
		return rc;
	}
	pp->waiting = true;
	pp->posted = now;
	return 0;
}

int app_pp_start(struct app_pp *pp, emu_ps_t now)
{
	if (pp->c.responder_only)
		return 0;
	int rc = pp->client->ops->conn_open(pp->client->dev, pp->c.server_ip, &pp->conn, now);

	if (rc < 0) {
		pp->post_fail++;
		return rc;
	}
	return post_request(pp, now);
}

/* The server's connection back to @p ip, opened on its first message; NULL when it has APP_PP_PEERS_MAX. */
static const struct pp_peer *peer_of(struct app_pp *pp, uint32_t ip, emu_ps_t now)
{
	for (uint32_t i = 0; i < pp->n_peers; i++)
		if (pp->peers[i].ip == ip)
			return &pp->peers[i];
	if (pp->n_peers == APP_PP_PEERS_MAX)
		return NULL;
	struct pp_peer *p = &pp->peers[pp->n_peers];

	if (pp->server->ops->conn_open(pp->server->dev, ip, &p->conn, now) < 0)
		return NULL;
	p->ip = ip;
	pp->n_peers++;
	return p;
}

bool app_pp_recv(struct app_pp *pp, uint32_t at_ip, uint32_t src_ip, uint64_t bytes, emu_ps_t now)
{
	/* a ping-pong's server answers its client's requests (size bytes); a responder every message */
	if (at_ip == pp->c.server_ip && (pp->c.responder_only || (src_ip == pp->c.client_ip && bytes == pp->c.size))) {
		const struct pp_peer *p = peer_of(pp, src_ip, now);

		if (p == NULL || pp->server->ops->conn_post(pp->server->dev, p->conn, pp->c.reply,
							    APP_PP_COOKIE | pp->replies, now) < 0) {
			pp->srv_fail++;
			return true;
		}
		pp->replies++;
		return true;
	}
	if (!pp->c.responder_only && at_ip == pp->c.client_ip && src_ip == pp->c.server_ip && bytes == pp->c.reply) {
		if (!pp->waiting) {
			pp->unknown++;
			return true;
		}
		pp->waiting = false;
		pp->rtt[pp->done++] = now - pp->posted;
		if (pp->done < pp->c.iterations)
			(void)post_request(pp, now);
		return true;
	}
	return false;
}

bool app_pp_finished(const struct app_pp *pp)
{
	return !pp->c.responder_only && (pp->done == pp->c.iterations || pp->post_fail > 0);
}

static int cmp_ps(const void *a, const void *b)
{
	emu_ps_t x = *(const emu_ps_t *)a, y = *(const emu_ps_t *)b;

	return x < y ? -1 : x > y;
}

/* Nearest rank: the smallest value with at least @p pct percent of the @p n sorted values at or below it. */
static emu_ps_t rank(const emu_ps_t *v, uint32_t n, uint32_t pct)
{
	uint64_t k = ((uint64_t)n * pct + 99) / 100;

	return v[k > 0 ? k - 1 : 0];
}

void app_pp_result(const struct app_pp *pp, struct app_pp_result *out)
{
	memset(out, 0, sizeof(*out));
	out->count = pp->done;
	out->post_fail = pp->post_fail + pp->srv_fail;
	out->replies = pp->replies;
	out->unknown = pp->unknown;
	if (pp->done == 0)
		return;
	emu_ps_t *v = malloc(pp->done * sizeof(*v));
	unsigned __int128 sum = 0;

	out->first = pp->rtt[0];
	for (uint32_t i = 0; i < pp->done; i++)
		sum += pp->rtt[i];
	out->mean = (emu_ps_t)(sum / pp->done);
	if (v == NULL) /* the percentiles need a sorted copy: without memory, only what needs none */
		return;
	memcpy(v, pp->rtt, pp->done * sizeof(*v));
	qsort(v, pp->done, sizeof(*v), cmp_ps);
	out->min = v[0];
	out->p50 = rank(v, pp->done, 50);
	out->p90 = rank(v, pp->done, 90);
	out->p99 = rank(v, pp->done, 99);
	out->max = v[pp->done - 1];
	free(v);
}
