/* Walking a component's typedParameters (the nic and switch sections) against its attribute table. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ctl_yaml_pvt.h"

#define LEVEL_NAMES_MAX 48
#define PATH_DEPTH_MAX 16
#define LIST_LEN 8

static const char *comp(const struct ctl_ptable *t, unsigned row, int depth)
{
	return depth < t->depth ? t->path(row)[depth] : NULL;
}

/* True if row @p r lies under the @p depth components of @p prefix, with a component at @p depth. */
static bool row_under(const struct ctl_ptable *t, unsigned r, const char *const *prefix, int depth)
{
	for (int i = 0; i < depth; i++)
		if (comp(t, r, i) == NULL || strcmp(comp(t, r, i), prefix[i]) != 0)
			return false;
	return comp(t, r, depth) != NULL;
}

/* The distinct names at @p depth under @p prefix, in table order: the valid keys of that map. */
static size_t level_names(const struct ctl_ptable *t, const char *const *prefix, int depth, const char **names)
{
	size_t n = 0;

	for (unsigned r = 0; r < t->count; r++) {
		size_t k;

		if (!row_under(t, r, prefix, depth))
			continue;
		for (k = 0; k < n && strcmp(names[k], comp(t, r, depth)) != 0; k++)
			;
		if (k == n && n < LEVEL_NAMES_MAX)
			names[n++] = comp(t, r, depth);
	}
	return n;
}

static int row_find(const struct ctl_ptable *t, const char *const *prefix, int depth, const char *key)
{
	for (unsigned r = 0; r < t->count; r++)
		if (row_under(t, r, prefix, depth) && strcmp(comp(t, r, depth), key) == 0)
			return (int)r;
	return -1;
}

/* A list attribute given as a YAML sequence of 8 values. */
static int leaf_seq(struct ctl_ctx *c, const struct ctl_ynode *v, const struct ctl_ptable *t, unsigned row,
		    void *params)
{
	const char *items[LIST_LEN];
	char msg[512];
	int bad, rc;

	if (v->n != LIST_LEN)
		return ctl_err(c, v, "%u entries; a list holds %d, one per traffic class, e.g. \"%s\"", v->n, LIST_LEN,
			       t->def(row));
	for (uint32_t i = 0; i < LIST_LEN; i++) {
		size_t old = ctl_push_idx(c, i);

		rc = ctl_scalar(c, v->val[i], "0.9", &items[i]);
		ctl_pop(c, old);
		if (rc != 0)
			return rc;
	}
	rc = t->set_list(params, row, items, LIST_LEN, &bad, msg, sizeof(msg));
	if (rc != 0) {
		size_t old = ctl_push_idx(c, (uint32_t)(bad < 0 ? 0 : bad));

		rc = ctl_err(c, bad < 0 ? v : v->val[bad], "%s", msg);
		ctl_pop(c, old);
	}
	return rc;
}

/* The typed form the configuration pages show in their PATCH bodies, {value: 16, unit: ms, type: timeval}: the
 * value and its unit (none for a uint, double, bool or string) as one text ("16ms") into @p buf; type, when given,
 * must be one of the pages' types (the attribute's own parser then checks the value). */
static int typed(struct ctl_ctx *c, const struct ctl_ynode *v, const char *example, char *buf, size_t len)
{
	static const char *const types[] = {"bool", "uint", "double", "datarate", "timeval", "bytes", "queuesize",
					    "string"};
	const struct ctl_ynode *val = ctl_y_get(v, "value"), *unit = ctl_y_get(v, "unit"), *type = ctl_y_get(v, "type");
	size_t k;

	for (uint32_t i = 0; i < v->n; i++)
		if (strcmp(v->key[i]->text, "value") && strcmp(v->key[i]->text, "unit") && strcmp(v->key[i]->text, "type"))
			return ctl_err(c, v->key[i], "unknown key in a typed value; it holds value, unit and type, e.g. "
						     "{value: 16, unit: ms, type: timeval}");
	if (!val || val->type != CTL_Y_SCALAR || (unit && unit->type != CTL_Y_SCALAR) ||
	    (type && type->type != CTL_Y_SCALAR))
		return ctl_err(c, v, "a typed value needs value (and unit, type as values), e.g. {value: 16, unit: ms, "
				     "type: timeval}; or write it as %s", example);
	for (k = 0; type && k < sizeof(types) / sizeof(types[0]) && strcmp(type->text, types[k]); k++)
		;
	if (type && k == sizeof(types) / sizeof(types[0]))
		return ctl_err(c, type, "type '%s' is none of bool, uint, double, datarate, timeval, bytes, queuesize, "
					"string", type->text);
	if ((size_t)snprintf(buf, len, "%s%s", val->text, unit ? unit->text : "") >= len)
		return ctl_err(c, v, "the typed value is too long");
	return 0;
}

static int leaf(struct ctl_ctx *c, const struct ctl_ynode *k, const struct ctl_ynode *v, const struct ctl_ptable *t,
		unsigned row, void *params)
{
	char tbuf[256];
	char msg[512];
	const char *s;
	int rc;

	if (t->readonly != NULL && t->readonly(row)) {
		t->set(params, row, "", msg, sizeof(msg));
		return ctl_err(c, k, "%s", msg);
	}
	if (v->type == CTL_Y_SEQ && t->is_list(row))
		return leaf_seq(c, v, t, row, params);
	if (v->type == CTL_Y_MAP) {
		rc = typed(c, v, t->def(row), tbuf, sizeof(tbuf));
		s = tbuf;
	} else {
		rc = ctl_scalar(c, v, t->def(row), &s);
	}
	if (rc == 0 && t->set(params, row, s, msg, sizeof(msg)) != 0)
		rc = ctl_err(c, v, "%s", msg);
	return rc;
}

static int not_a_map(struct ctl_ctx *c, const struct ctl_ynode *map, const char *section, const char **names,
		     size_t n)
{
	char list[768];
	size_t used = 0;

	list[0] = '\0';
	for (size_t i = 0; i < n && used < sizeof(list); i++) {
		int w = snprintf(list + used, sizeof(list) - used, "%s%s", i ? ", " : "", names[i]);

		used += w > 0 ? (size_t)w : 0;
	}
	return ctl_err(c, map, "expected a map, not a %s; %s holds %s", map->type == CTL_Y_SEQ ? "list" : "value",
		       section, list);
}

/* An unknown key: if an attribute of that name sits deeper under this map, say where; else the nearest key. */
static int unknown(struct ctl_ctx *c, const struct ctl_ynode *k, const struct ctl_ptable *t, const char *const *prefix,
		   int depth, const char **names, size_t n)
{
	for (unsigned r = 0; r < t->count; r++) {
		int len = 0;

		while (comp(t, r, len) != NULL)
			len++;
		if (len <= depth + 1 || strcmp(comp(t, r, len - 1), k->text) != 0 || !row_under(t, r, prefix, depth))
			continue;
		char where[256];
		size_t used = 0;

		for (int i = depth; i < len && used < sizeof(where); i++) {
			int w = snprintf(where + used, sizeof(where) - used, "%s%s", i > depth ? "." : "", comp(t, r, i));
			used += w > 0 ? (size_t)w : 0;
		}
		return ctl_err(c, k, "unknown key here; %s sits at %s under this section", k->text, where);
	}
	return ctl_err_unknown(c, k, names, n);
}

/* Walk the map @p map found at the @p depth components of @p prefix. */
static int walk(struct ctl_ctx *c, const struct ctl_ynode *map, const char **prefix, int depth,
		const struct ctl_ptable *t, void *params)
{
	const char *names[LEVEL_NAMES_MAX];
	size_t n = level_names(t, prefix, depth, names);

	if (ctl_y_is_null(map))
		return 0;
	if (map->type != CTL_Y_MAP)
		return not_a_map(c, map, depth ? prefix[depth - 1] : t->root, names, n);
	int failed = 0;

	/* Report each bad attribute and go on to the next, as ctl_walk_map() does. */
	for (uint32_t i = 0; i < map->n; i++) {
		const struct ctl_ynode *k = map->key[i];
		int row = row_find(t, prefix, depth, k->text);
		size_t old = ctl_push(c, k->text);
		int rc;

		if (row < 0) {
			rc = unknown(c, k, t, prefix, depth, names, n);
		} else if (comp(t, (unsigned)row, depth + 1) == NULL) {
			rc = leaf(c, k, map->val[i], t, (unsigned)row, params);
		} else {
			prefix[depth] = comp(t, (unsigned)row, depth);
			rc = walk(c, map->val[i], prefix, depth + 1, t, params);
		}
		ctl_pop(c, old);
		if (ctl_child_done(c, rc, &failed))
			break;
	}
	return failed;
}

/*
 * Follow the path of @p row from the section's map; returns the components found. *at is where to report: the
 * value of the attribute when it was given (so a --set value is named as such), else the key of the deepest
 * section given.
 */
static int row_given(const struct ctl_ptable *t, const struct ctl_ynode *map, unsigned row, const struct ctl_ynode **at)
{
	int i;

	for (i = 0; comp(t, row, i) != NULL && map != NULL && map->type == CTL_Y_MAP; i++) {
		uint32_t j;

		for (j = 0; j < map->n && strcmp(map->key[j]->text, comp(t, row, i)) != 0; j++)
			;
		if (j == map->n)
			break;
		*at = comp(t, row, i + 1) == NULL ? map->val[j] : map->key[j];
		map = map->val[j];
	}
	return i;
}

static int path_len(const struct ctl_ptable *t, unsigned row)
{
	int depth = 0;

	while (comp(t, row, depth) != NULL)
		depth++;
	return depth;
}

/* Report a broken rule at the first attribute of @p why that was given, else at the nearest section given. */
static int rule_error(struct ctl_ctx *c, const struct ctl_ynode *v, const struct ctl_ptable *t, const int *why,
		      const char *msg)
{
	const struct ctl_ynode *at = v, *key = NULL;
	int row = why[0];

	for (int i = 0; i < CTL_PTABLE_WHY_MAX && why[i] >= 0; i++)
		if (row_given(t, v, (unsigned)why[i], &key) == path_len(t, (unsigned)why[i])) {
			row = why[i];
			break;
		}
	int found = row >= 0 ? row_given(t, v, (unsigned)row, &key) : 0;
	size_t old = c->plen;

	if (found > 0)
		at = key;
	for (int i = 0; i < found; i++)
		ctl_push(c, comp(t, (unsigned)row, i));
	int rc = ctl_err(c, at, "%s", msg);

	ctl_pop(c, old);
	return rc;
}

int ctl_walk_params(struct ctl_ctx *c, const struct ctl_ynode *v, const struct ctl_ptable *t, void *params)
{
	const char *prefix[PATH_DEPTH_MAX];
	int why[CTL_PTABLE_WHY_MAX];
	char msg[512];
	int rc = walk(c, v, prefix, 0, t, params);

	for (int i = 0; i < CTL_PTABLE_WHY_MAX; i++)
		why[i] = -1;
	if (rc == 0 && t->check != NULL && t->check(params, why, msg, sizeof(msg)) != 0)
		rc = rule_error(c, v, t, why, msg);
	return rc;
}
