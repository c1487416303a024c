/* applications[i] of type pingpong or responder (docs/pingpong.md): a ping-pong between two hosts, or a responder
 * answering every message a host receives (a device under test's peer). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ctl_yaml_pvt.h"
#include "emu_units.h"

#define PP_EXAMPLE "a ping-pong is {type: pingpong, client: host0, server: host1, size: 4096, iterations: 100}, " \
	"a responder {type: responder, server: host1, reply: 4096}"
#define PP_SIZE_DEFAULT 4096
#define PP_ITER_DEFAULT 100
#define PP_ITER_MAX 10000000u /* the round trips kept, 8 B each */
#define PP_BYTES_MAX (1ull << 30)

struct pp_obj {
	struct ctl_config *cfg;
	struct ctl_pingpong *pp;
	bool has_reply;
};

static int pp_client(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	struct pp_obj *o = obj;

	if (o->pp->responder)
		return ctl_err(c, v, "a responder has no client; it answers every host that sends to its server");
	return ctl_val_host(c, v, o->cfg, &o->pp->client);
}

static int pp_server(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	struct pp_obj *o = obj;

	return ctl_val_host(c, v, o->cfg, &o->pp->server);
}

static int pp_bytes(struct ctl_ctx *c, const struct ctl_ynode *v, uint64_t *out)
{
	int rc = ctl_val_u64(c, v, emu_parse_size, "4096", out);

	if (rc == 0 && (*out == 0 || *out > PP_BYTES_MAX))
		rc = ctl_err(c, v, "%llu B; a message here is 1 B to 1 GiB", (unsigned long long)*out);
	return rc;
}

static int pp_size(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	struct pp_obj *o = obj;

	if (o->pp->responder)
		return ctl_err(c, v, "a responder sends no requests; its replies' size is reply");
	return pp_bytes(c, v, &o->pp->size);
}

static int pp_reply(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	struct pp_obj *o = obj;

	o->has_reply = true;
	return pp_bytes(c, v, &o->pp->reply);
}

static int pp_iterations(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	struct pp_obj *o = obj;

	if (o->pp->responder)
		return ctl_err(c, v, "a responder has no iterations; it answers until the run ends");
	return ctl_val_uint(c, v, 1, PP_ITER_MAX, &o->pp->iterations);
}

static int pp_start(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	struct pp_obj *o = obj;

	if (o->pp->responder)
		return ctl_err(c, v, "a responder has no start; it answers from the run's start");
	return ctl_val_u64(c, v, emu_parse_timeval, "0us", &o->pp->start);
}

int ctl_app_pingpong(struct ctl_ctx *c, const struct ctl_ynode *item, struct ctl_config *cfg, uint32_t idx)
{
	static const struct ctl_key keys[] = {
		{ "type", true, NULL }, { "client", false, pp_client }, { "server", true, pp_server },
		{ "size", false, pp_size }, { "reply", false, pp_reply }, { "iterations", false, pp_iterations },
		{ "start", false, pp_start },
	};
	const struct ctl_ynode *t = ctl_y_get(item, "type");

	cfg->apps[idx].type = CTL_APP_PINGPONG;
	if (cfg->n_pps == CTL_PP_MAX)
		return ctl_err(c, item, "more than %d pingpong and responder applications", CTL_PP_MAX);
	struct ctl_pingpong *pp = &cfg->pps[cfg->n_pps];
	struct pp_obj o = { .cfg = cfg, .pp = pp };

	memset(pp, 0, sizeof(*pp));
	pp->responder = strcmp(t->text, "responder") == 0;
	pp->size = PP_SIZE_DEFAULT;
	pp->iterations = pp->responder ? 0 : PP_ITER_DEFAULT;
	int rc = ctl_walk_map(c, item, keys, sizeof(keys) / sizeof(keys[0]), &o, PP_EXAMPLE);

	if (rc != 0)
		return rc;
	if (!pp->responder && ctl_y_get(item, "client") == NULL)
		return ctl_err(c, item, "a ping-pong needs client, the host that sends and measures; %s", PP_EXAMPLE);
	if (!pp->responder && pp->client == pp->server) {
		size_t old = ctl_push(c, "server");

		rc = ctl_err(c, ctl_y_get(item, "server"), "client and server are both '%s'; a ping-pong goes between "
			     "two different hosts", cfg->hosts[pp->server].name);
		ctl_pop(c, old);
		return rc;
	}
	for (uint32_t i = 0; i < cfg->n_pps; i++)
		if (cfg->pps[i].server == pp->server && (cfg->pps[i].responder || pp->responder))
			return ctl_err(c, item, "host '%s' is already the server of a responder (applications); a "
				       "responder answers every message its host receives", cfg->hosts[pp->server].name);
	if (!o.has_reply)
		pp->reply = pp->responder ? PP_SIZE_DEFAULT : pp->size;
	cfg->n_pps++;
	return 0;
}
