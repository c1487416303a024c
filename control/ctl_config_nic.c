/* The nic section: the Scala UET NIC typedParameters, walked against the attribute table of nic_params.c. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ctl_yaml_pvt.h"
#include "nic_params.h"

#define NIC_LEVEL_NAMES_MAX 48

/* True if row @p d lies under the @p depth components of @p prefix, with a component at @p depth. */
static bool row_under(const struct nic_param_def *d, const char *const *prefix, int depth)
{
	for (int i = 0; i < depth; i++)
		if (d->path[i] == NULL || strcmp(d->path[i], prefix[i]) != 0)
			return false;
	return depth < NIC_PARAM_DEPTH && d->path[depth] != NULL;
}

/* The distinct names at @p depth under @p prefix, in table order: the valid keys of that map. */
static size_t level_names(const char *const *prefix, int depth, const char **names)
{
	size_t n = 0;

	for (unsigned r = 0; r < nic_param_count; r++) {
		const struct nic_param_def *d = &nic_param_table[r];
		size_t k;

		if (!row_under(d, prefix, depth))
			continue;
		for (k = 0; k < n && strcmp(names[k], d->path[depth]) != 0; k++)
			;
		if (k == n && n < NIC_LEVEL_NAMES_MAX)
			names[n++] = d->path[depth];
	}
	return n;
}

static const struct nic_param_def *row_find(const char *const *prefix, int depth, const char *key)
{
	for (unsigned r = 0; r < nic_param_count; r++)
		if (row_under(&nic_param_table[r], prefix, depth) && strcmp(nic_param_table[r].path[depth], key) == 0)
			return &nic_param_table[r];
	return NULL;
}

/* A list attribute given as a YAML sequence of 8 values. */
static int nic_leaf_seq(struct ctl_ctx *c, const struct ctl_ynode *v, const struct nic_param_def *d,
			struct nic_params *p)
{
	const char *items[NIC_TC_COUNT];
	char msg[512];
	int bad, rc;

	if (v->n != NIC_TC_COUNT)
		return ctl_err(c, v, "%u entries; a list holds %d, one per traffic class, e.g. \"%s\"", v->n,
			       NIC_TC_COUNT, d->def);
	for (uint32_t i = 0; i < NIC_TC_COUNT; i++) {
		size_t old = ctl_push_idx(c, i);

		rc = ctl_scalar(c, v->val[i], "0.9", &items[i]);
		ctl_pop(c, old);
		if (rc != 0)
			return rc;
	}
	rc = nic_param_set_list(p, d, items, NIC_TC_COUNT, &bad, msg, sizeof(msg));
	if (rc != 0) {
		size_t old = ctl_push_idx(c, (uint32_t)bad);

		rc = ctl_err(c, v->val[bad], "%s", msg);
		ctl_pop(c, old);
	}
	return rc;
}

static int nic_leaf(struct ctl_ctx *c, const struct ctl_ynode *k, const struct ctl_ynode *v,
		    const struct nic_param_def *d, struct nic_params *p)
{
	char msg[512];
	const char *s;
	int rc;

	if (d->readonly) {
		nic_param_set(p, d, "", msg, sizeof(msg));
		return ctl_err(c, k, "%s", msg);
	}
	if (v->type == CTL_Y_SEQ && nic_param_is_list(d))
		return nic_leaf_seq(c, v, d, p);
	rc = ctl_scalar(c, v, d->def, &s);
	if (rc == 0 && nic_param_set(p, d, s, msg, sizeof(msg)) != 0)
		rc = ctl_err(c, v, "%s", msg);
	return rc;
}

/* Walk the map @p map found at the @p depth components of @p prefix. */
static int nic_walk(struct ctl_ctx *c, const struct ctl_ynode *map, const char **prefix, int depth,
		    struct nic_params *p)
{
	const char *names[NIC_LEVEL_NAMES_MAX];
	char list[768];
	size_t n = level_names(prefix, depth, names), used = 0;

	if (ctl_y_is_null(map))
		return 0;
	if (map->type != CTL_Y_MAP) {
		list[0] = '\0';
		for (size_t i = 0; i < n && used < sizeof(list); i++) {
			int w = snprintf(list + used, sizeof(list) - used, "%s%s", i ? ", " : "", names[i]);

			used += w > 0 ? (size_t)w : 0;
		}
		return ctl_err(c, map, "expected a map, not a %s; %s holds %s", map->type == CTL_Y_SEQ ? "list" : "value",
			       depth ? prefix[depth - 1] : "nic", list);
	}
	for (uint32_t i = 0; i < map->n; i++) {
		const struct ctl_ynode *k = map->key[i];
		const struct nic_param_def *d = row_find(prefix, depth, k->text);
		size_t old = ctl_push(c, k->text);
		int rc;

		if (d == NULL) {
			rc = ctl_err_unknown(c, k, names, n);
		} else if (depth + 1 == NIC_PARAM_DEPTH || d->path[depth + 1] == NULL) {
			rc = nic_leaf(c, k, map->val[i], d, p);
		} else {
			prefix[depth] = d->path[depth];
			rc = nic_walk(c, map->val[i], prefix, depth + 1, p);
		}
		ctl_pop(c, old);
		if (rc != 0)
			return rc;
	}
	return 0;
}

/*
 * Follow the path of @p d from the nic map; returns the components found. *at is where to report: the value of
 * the attribute when it was given (so a --set value is named as such), else the key of the deepest section given.
 */
static int row_given(const struct ctl_ynode *map, const struct nic_param_def *d, const struct ctl_ynode **at)
{
	int i;

	for (i = 0; i < NIC_PARAM_DEPTH && d->path[i] != NULL && map != NULL && map->type == CTL_Y_MAP; i++) {
		uint32_t j;

		for (j = 0; j < map->n && strcmp(map->key[j]->text, d->path[i]) != 0; j++)
			;
		if (j == map->n)
			break;
		*at = i + 1 < NIC_PARAM_DEPTH && d->path[i + 1] == NULL ? map->val[j] : map->key[j];
		map = map->val[j];
	}
	return i;
}

/* Report a broken rule at the first attribute of @p why that was given, else at the nearest section given. */
static int nic_rule_error(struct ctl_ctx *c, const struct ctl_ynode *v, const struct nic_param_def *const *why,
			  const char *msg)
{
	const struct ctl_ynode *at = v, *key = NULL;
	const struct nic_param_def *d = why[0];
	int found = 0;

	for (int i = 0; i < NIC_CHECK_WHY_MAX && why[i] != NULL; i++) {
		int depth = 0;

		while (depth < NIC_PARAM_DEPTH && why[i]->path[depth] != NULL)
			depth++;
		if (row_given(v, why[i], &key) == depth) {
			d = why[i];
			break;
		}
	}
	found = d != NULL ? row_given(v, d, &key) : 0;
	if (found > 0)
		at = key;
	size_t old = c->plen;

	for (int i = 0; i < found; i++)
		ctl_push(c, d->path[i]);
	int rc = ctl_err(c, at, "%s", msg);

	ctl_pop(c, old);
	return rc;
}

int ctl_sec_nic(struct ctl_ctx *c, const struct ctl_ynode *v, struct ctl_config *cfg)
{
	const struct nic_param_def *why[NIC_CHECK_WHY_MAX];
	const char *prefix[NIC_PARAM_DEPTH];
	char msg[512];
	int rc = nic_walk(c, v, prefix, 0, &cfg->nic);

	if (rc == 0 && nic_params_check(&cfg->nic, why, msg, sizeof(msg)) != 0)
		rc = nic_rule_error(c, v, why, msg);
	return rc;
}
