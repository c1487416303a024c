/* topology.links[i].impair: a lab fixture that trims, drops or delays chosen data frames of a link direction. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ctl_yaml_pvt.h"
#include "emu_units.h"
#include "net.h"

#define IMPAIR_EXAMPLE "e.g. impair: [{from: host0, data_frame: 3, action: trim}]"

static const char *const actions[] = { "trim", "trim_last_hop", "drop", "delay" };

struct imp_obj {
	struct ctl_link_obj *lo;
	struct ctl_impair *im;
};

static int imp_from(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	struct imp_obj *o = obj;

	return ctl_val_host(c, v, o->lo->cfg, &o->im->from);
}

static int imp_frame(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	return ctl_val_uint(c, v, 1, UINT32_MAX, &((struct imp_obj *)obj)->im->data_frame);
}

static int imp_action(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	struct imp_obj *o = obj;
	const char *t;
	int rc = ctl_scalar(c, v, "trim", &t);

	if (rc != 0)
		return rc;
	for (uint8_t i = 0; i < sizeof(actions) / sizeof(actions[0]); i++)
		if (strcmp(t, actions[i]) == 0) {
			o->im->action = i;
			return 0;
		}
	return ctl_err(c, v, "unknown action '%s'; use trim, trim_last_hop, drop or delay", t);
}

static int imp_delay(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	return ctl_val_u64(c, v, emu_parse_timeval, "2us", &((struct imp_obj *)obj)->im->delay);
}

static int imp_item(struct ctl_ctx *c, const struct ctl_ynode *item, uint32_t idx, void *obj)
{
	static const struct ctl_key keys[] = {
		{ "from", true, imp_from }, { "data_frame", true, imp_frame }, { "action", true, imp_action },
		{ "delay", false, imp_delay },
	};
	struct ctl_link_obj *lo = obj;
	struct imp_obj o = { .lo = lo, .im = &lo->l->impair[idx] };
	int rc = ctl_walk_map(c, item, keys, sizeof(keys) / sizeof(keys[0]), &o, IMPAIR_EXAMPLE);

	if (rc == 0 && o.im->action == NET_IMPAIR_DELAY && ctl_y_get(item, "delay") == NULL)
		rc = ctl_err(c, item, "action delay needs a delay; e.g. {from: host0, data_frame: 3, action: delay, "
				      "delay: 2us}");
	return rc;
}

int ctl_link_impair(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	struct ctl_link_obj *o = obj;
	uint32_t n = ctl_seq_len(v);

	if (n > 0 && (o->l->impair = calloc(n, sizeof(*o->l->impair))) == NULL)
		return -ENOMEM;
	o->l->n_impair = n;
	return ctl_walk_seq(c, v, imp_item, o, IMPAIR_EXAMPLE);
}

int ctl_link_impair_check(struct ctl_ctx *c, const struct ctl_ynode *item, struct ctl_link_obj *o)
{
	const struct ctl_ynode *seq = ctl_y_get(item, "impair");

	for (uint32_t i = 0; i < o->l->n_impair; i++) {
		uint32_t h = o->l->impair[i].from;
		if (h == o->l->a || h == o->l->b)
			continue;
		size_t old = ctl_push(c, "impair");
		ctl_push_idx(c, i);
		ctl_push(c, "from");
		int rc = ctl_err(c, ctl_y_get(seq->val[i], "from"), "host '%s' is not an end of link '%s'; use %s or %s",
				 o->cfg->hosts[h].name, o->l->name, o->cfg->hosts[o->l->a].name,
				 o->cfg->hosts[o->l->b].name);
		ctl_pop(c, old);
		return rc;
	}
	return 0;
}
