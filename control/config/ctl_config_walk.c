/* Schema helpers of the config loader: walking maps and lists against key tables, typed scalars, suggestions. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ctl_yaml_pvt.h"
#include "emu_units.h"

#define CTL_NAME_CMP_MAX 64

static const char *kind_of(const struct ctl_ynode *n)
{
	return n->type == CTL_Y_MAP ? "a map" : n->type == CTL_Y_SEQ ? "a list" : "a value";
}

/* Edit distance (optimal string alignment: a swap of two neighbours counts 1), ignoring case. */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strnlen(a, CTL_NAME_CMP_MAX), lb = strnlen(b, CTL_NAME_CMP_MAX);
	size_t d[CTL_NAME_CMP_MAX + 1][CTL_NAME_CMP_MAX + 1];

	for (size_t i = 0; i <= la; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= la; i++) {
		for (size_t j = 1; j <= lb; j++) {
			size_t cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
			size_t v = d[i - 1][j - 1] + cost;

			if (d[i - 1][j] + 1 < v)
				v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	}
	return d[la][lb];
}

/* "a, b, c" of @p n names into @p buf. */
static void join_names(char *buf, size_t len, const char *const *names, size_t n)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && used < len; i++) {
		int w = snprintf(buf + used, len - used, "%s%s", i ? ", " : "", names[i]);

		used += w > 0 ? (size_t)w : 0;
	}
}

int ctl_err_unknown(struct ctl_ctx *c, const struct ctl_ynode *key, const char *const *names, size_t n)
{
	char list[768];
	size_t best = 0, best_d = SIZE_MAX;

	for (size_t i = 0; i < n; i++) {
		size_t d = edit_distance(key->text, names[i]);

		if (d < best_d) {
			best_d = d;
			best = i;
		}
	}
	if (n > 0) {
		size_t len = strlen(names[best]);
		size_t close = len <= 4 ? 1 : len <= 8 ? 2 : 3;

		if (best_d <= close)
			return ctl_err(c, key, "unknown key; did you mean '%s'?", names[best]);
	}
	join_names(list, sizeof(list), names, n);
	return ctl_err(c, key, "unknown key; valid keys are %s", list);
}

/* The name of the section being walked: the last component of the path. */
static const char *path_last(const struct ctl_ctx *c)
{
	const char *dot = strrchr(c->path, '.');

	return c->plen == 0 ? "a config" : dot != NULL ? dot + 1 : c->path;
}

static int walk_required(struct ctl_ctx *c, const struct ctl_ynode *map, const struct ctl_key *keys, size_t n,
			 const char *example)
{
	for (size_t j = 0; j < n; j++) {
		if (keys[j].required && ctl_y_get(map, keys[j].name) == NULL) {
			size_t old = ctl_push(c, keys[j].name);
			int rc = ctl_err(c, map, "missing required key; %s", example);

			ctl_pop(c, old);
			return rc;
		}
	}
	return 0;
}

int ctl_walk_map(struct ctl_ctx *c, const struct ctl_ynode *map, const struct ctl_key *keys, size_t n, void *obj,
		 const char *example)
{
	const char *names[32];
	char list[512];
	size_t nn = n < 32 ? n : 32;

	for (size_t j = 0; j < nn; j++)
		names[j] = keys[j].name;
	if (map->type != CTL_Y_MAP && !ctl_y_is_null(map)) {
		const char *last = path_last(c);

		/* A list entry has no name to say "<name> holds": show what an entry looks like instead. */
		if (last[0] >= '0' && last[0] <= '9' && example[0] != '\0')
			return ctl_err(c, map, "expected a map, not %s; %s", kind_of(map), example);
		join_names(list, sizeof(list), names, nn);
		return ctl_err(c, map, "expected a map, not %s; %s holds %s", kind_of(map), last, list);
	}
	/* A bad key is reported and the walk goes on to its siblings, so one pass finds every error (up to
	 * CTL_ERRS_MAX); only running out of memory stops it at once. */
	int failed = 0;

	for (uint32_t i = 0; map->type == CTL_Y_MAP && i < map->n; i++) {
		const struct ctl_ynode *k = map->key[i];
		size_t old = ctl_push(c, k->text), j;
		int rc = 0;

		for (j = 0; j < n && strcmp(keys[j].name, k->text) != 0; j++)
			;
		if (j == n)
			rc = ctl_err_unknown(c, k, names, nn);
		else if (keys[j].fn != NULL)
			rc = keys[j].fn(c, map->val[i], obj);
		ctl_pop(c, old);
		if (ctl_child_done(c, rc, &failed))
			return failed;
	}
	int rc = walk_required(c, map, keys, n, example);
	return failed != 0 ? failed : rc;
}

bool ctl_child_done(struct ctl_ctx *c, int rc, int *failed)
{
	if (rc != 0 && (*failed == 0 || rc == -ENOMEM))
		*failed = rc;
	return rc == -ENOMEM || c->n_errs >= CTL_ERRS_MAX;
}

uint32_t ctl_seq_len(const struct ctl_ynode *seq)
{
	return seq != NULL && seq->type == CTL_Y_SEQ ? seq->n : 0;
}

int ctl_walk_seq(struct ctl_ctx *c, const struct ctl_ynode *seq, ctl_item_fn fn, void *obj, const char *example)
{
	if (ctl_y_is_null(seq))
		return 0;
	if (seq->type != CTL_Y_SEQ)
		return ctl_err(c, seq, "expected a list, not %s; %s", kind_of(seq), example);
	int failed = 0;

	for (uint32_t i = 0; i < seq->n; i++) {
		size_t old = ctl_push_idx(c, i);
		int rc = fn(c, seq->val[i], i, obj);

		ctl_pop(c, old);
		if (ctl_child_done(c, rc, &failed))
			break;
	}
	return failed;
}

int ctl_scalar(struct ctl_ctx *c, const struct ctl_ynode *v, const char *example, const char **text)
{
	if (v->type != CTL_Y_SCALAR)
		return ctl_err(c, v, "expected a value, not %s; e.g. %s", kind_of(v), example);
	*text = v->text;
	return 0;
}

int ctl_val_u64(struct ctl_ctx *c, const struct ctl_ynode *v, int (*parse)(const char *, uint64_t *, char *, size_t),
		const char *example, uint64_t *out)
{
	char msg[512];
	const char *s;
	int rc = ctl_scalar(c, v, example, &s);

	if (rc == 0 && parse(s, out, msg, sizeof(msg)) != 0)
		rc = ctl_err(c, v, "%s", msg);
	return rc;
}

int ctl_val_uint(struct ctl_ctx *c, const struct ctl_ynode *v, uint64_t min, uint64_t max, uint64_t *out)
{
	char example[24];
	int rc;

	snprintf(example, sizeof(example), "%llu", (unsigned long long)min);
	rc = ctl_val_u64(c, v, emu_parse_uint, example, out);
	if (rc == 0 && (*out < min || *out > max))
		rc = ctl_err(c, v, "value %llu out of range %llu to %llu", (unsigned long long)*out,
			     (unsigned long long)min, (unsigned long long)max);
	return rc;
}

int ctl_val_bool(struct ctl_ctx *c, const struct ctl_ynode *v, bool *out)
{
	char msg[256];
	const char *s;
	int rc = ctl_scalar(c, v, "true", &s);

	if (rc == 0 && emu_parse_bool(s, out, msg, sizeof(msg)) != 0)
		rc = ctl_err(c, v, "%s", msg);
	return rc;
}

int ctl_val_name(struct ctl_ctx *c, const struct ctl_ynode *v, char *out, size_t size)
{
	const char *s;
	int rc = ctl_scalar(c, v, "host0", &s);
	size_t len;

	if (rc != 0)
		return rc;
	len = strlen(s);
	bool ok = len > 0 && len < size && s[0] != '.';

	for (size_t i = 0; ok && i < len; i++)
		ok = isalnum((unsigned char)s[i]) || s[i] == '_' || s[i] == '-' || s[i] == '.';
	if (!ok)
		return ctl_err(c, v, "bad name '%s'; a name is 1 to %zu letters, digits, '_', '-' or '.', e.g. host0", s,
			       size - 1);
	memcpy(out, s, len + 1);
	return 0;
}
