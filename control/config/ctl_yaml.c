/* The config file as a small YAML tree whose nodes keep their file:line:col, and the --set overrides applied to it. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "ctl_yaml_pvt.h"

static struct ctl_ynode *y_new(uint8_t type, uint32_t line, uint32_t col, int set)
{
	struct ctl_ynode *n = calloc(1, sizeof(*n));

	if (n != NULL) {
		n->type = type;
		n->line = line;
		n->col = col;
		n->set = set;
	}
	return n;
}

static struct ctl_ynode *y_new_scalar(const char *text, size_t len, uint32_t line, uint32_t col, int set)
{
	struct ctl_ynode *n = y_new(CTL_Y_SCALAR, line, col, set);

	if (n == NULL)
		return NULL;
	n->text = malloc(len + 1);
	if (n->text == NULL) {
		free(n);
		return NULL;
	}
	memcpy(n->text, text, len);
	n->text[len] = '\0';
	n->plain = true;
	return n;
}

void ctl_y_free(struct ctl_ynode *n)
{
	if (n == NULL)
		return;
	for (uint32_t i = 0; i < n->n; i++) {
		if (n->key != NULL)
			ctl_y_free(n->key[i]);
		ctl_y_free(n->val[i]);
	}
	free(n->key);
	free(n->val);
	free(n->index);
	free(n->text);
	free(n);
}

/* FNV-1a over the key text. */
static uint32_t y_hash(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s != '\0'; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	return h;
}

/* Put entry @p i of map @p n into its key index (which has room). */
static void y_index_put(struct ctl_ynode *n, uint32_t i)
{
	uint32_t mask = n->index_cap - 1, at = y_hash(n->key[i]->text) & mask;

	while (n->index[at] != 0)
		at = (at + 1) & mask;
	n->index[at] = i + 1;
}

/* Make room in map @p n's key index for one more key: grown to 4 x n, keys put again. 0 or -ENOMEM. */
static int y_index_grow(struct ctl_ynode *n)
{
	if (2 * (n->n + 1) <= n->index_cap)
		return 0;
	uint32_t cap = n->index_cap ? n->index_cap * 2 : 16;

	while (cap < 4 * (n->n + 1))
		cap *= 2;
	uint32_t *index = calloc(cap, sizeof(*index));

	if (index == NULL)
		return -ENOMEM;
	free(n->index);
	n->index = index;
	n->index_cap = cap;
	for (uint32_t i = 0; i < n->n; i++)
		y_index_put(n, i);
	return 0;
}

/* Append @p v (and key @p k for a map) to @p n. On failure the caller still owns @p k and @p v. */
static int y_append(struct ctl_ynode *n, struct ctl_ynode *k, struct ctl_ynode *v)
{
	if (n->n == n->cap) {
		uint32_t cap = n->cap ? n->cap * 2 : 4;
		struct ctl_ynode **val = realloc(n->val, cap * sizeof(*val));

		if (val == NULL)
			return -ENOMEM;
		n->val = val;
		if (n->type == CTL_Y_MAP) {
			struct ctl_ynode **key = realloc(n->key, cap * sizeof(*key));

			if (key == NULL)
				return -ENOMEM;
			n->key = key;
		}
		n->cap = cap;
	}
	if (n->type == CTL_Y_MAP) {
		if (y_index_grow(n) != 0)
			return -ENOMEM;
		n->key[n->n] = k;
		y_index_put(n, n->n);
	}
	n->val[n->n++] = v;
	return 0;
}

static int y_find(const struct ctl_ynode *map, const char *key)
{
	if (map == NULL || map->type != CTL_Y_MAP || map->index_cap == 0)
		return -1;
	uint32_t mask = map->index_cap - 1;

	for (uint32_t at = y_hash(key) & mask; map->index[at] != 0; at = (at + 1) & mask) {
		uint32_t i = map->index[at] - 1;

		if (strcmp(map->key[i]->text, key) == 0)
			return (int)i;
	}
	return -1;
}

const struct ctl_ynode *ctl_y_get(const struct ctl_ynode *map, const char *key)
{
	int i = y_find(map, key);

	return i < 0 ? NULL : map->val[i];
}

bool ctl_y_is_null(const struct ctl_ynode *n)
{
	return n->type == CTL_Y_SCALAR && n->plain &&
	       (n->text[0] == '\0' || strcmp(n->text, "~") == 0 || strcmp(n->text, "null") == 0 ||
		strcmp(n->text, "Null") == 0 || strcmp(n->text, "NULL") == 0);
}

size_t ctl_push(struct ctl_ctx *c, const char *key)
{
	size_t old = c->plen;
	int n = snprintf(c->path + old, sizeof(c->path) - old, "%s%s", old ? "." : "", key);

	c->plen = n < 0 ? old : old + (size_t)n >= sizeof(c->path) ? sizeof(c->path) - 1 : old + (size_t)n;
	return old;
}

size_t ctl_push_idx(struct ctl_ctx *c, uint32_t idx)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "%u", idx);
	return ctl_push(c, buf);
}

void ctl_pop(struct ctl_ctx *c, size_t len)
{
	c->plen = len;
	c->path[len] = '\0';
}

int ctl_err(struct ctl_ctx *c, const struct ctl_ynode *at, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (c->err == NULL || c->errlen == 0 || c->n_errs >= CTL_ERRS_MAX)
		return -EINVAL;
	/* Each error on its own line after the ones before it; one that does not fit whole is left out. */
	size_t used = c->n_errs == 0 ? 0 : strlen(c->err);
	char *out = c->err + used;
	size_t room = c->errlen - used;
	int n;

	if (used > 0) {
		if (room < 2)
			return -EINVAL;
		*out++ = '\n';
		room--;
	}
	if (at != NULL && at->set >= 0) {
		const char *s = c->sets[at->set];
		size_t plen = strcspn(s, "=");
		bool same = c->plen == 0 || (c->plen == plen && strncmp(c->path, s, plen) == 0);

		if (same)
			n = snprintf(out, room, "--set %s: %s", s, msg);
		else
			n = snprintf(out, room, "--set %s: %s: %s", s, c->path, msg);
	} else {
		uint32_t line = at != NULL ? at->line : 1, col = at != NULL ? at->col : 1;

		if (c->plen > 0)
			n = snprintf(out, room, "%s:%u:%u: %s: %s", c->file, line, col, c->path, msg);
		else
			n = snprintf(out, room, "%s:%u:%u: %s", c->file, line, col, msg);
	}
	if (used > 0 && (n < 0 || (size_t)n >= room))
		c->err[used] = '\0';
	else
		c->n_errs++;
	return -EINVAL;
}

/* ---- Building the tree from libyaml events ---- */

struct y_build {
	yaml_parser_t parser;
	struct ctl_ctx *c;
};

static int y_syntax(struct y_build *b)
{
	yaml_parser_t *p = &b->parser;
	struct ctl_ctx *c = b->c;

	if (p->error == YAML_MEMORY_ERROR)
		return -ENOMEM;
	if (p->error == YAML_READER_ERROR) {
		snprintf(c->err, c->errlen, "%s: %s at byte %zu; a config is UTF-8 text", c->file,
			 p->problem ? p->problem : "unreadable input", p->problem_offset);
		return -EINVAL;
	}
	if (p->context != NULL)
		snprintf(c->err, c->errlen, "%s:%zu:%zu: %s (%s at line %zu); check the YAML syntax", c->file,
			 p->problem_mark.line + 1, p->problem_mark.column + 1, p->problem ? p->problem : "syntax error",
			 p->context, p->context_mark.line + 1);
	else
		snprintf(c->err, c->errlen, "%s:%zu:%zu: %s; check the YAML syntax", c->file,
			 p->problem_mark.line + 1, p->problem_mark.column + 1,
			 p->problem ? p->problem : "syntax error");
	return -EINVAL;
}

static int y_next(struct y_build *b, yaml_event_t *ev)
{
	return yaml_parser_parse(&b->parser, ev) ? 0 : y_syntax(b);
}

static uint32_t y_line(const yaml_event_t *ev)
{
	return (uint32_t)ev->start_mark.line + 1;
}

static uint32_t y_col(const yaml_event_t *ev)
{
	return (uint32_t)ev->start_mark.column + 1;
}

static int y_scalar(struct y_build *b, const yaml_event_t *ev, struct ctl_ynode **out)
{
	const char *text = (const char *)ev->data.scalar.value;
	size_t len = ev->data.scalar.length;
	struct ctl_ynode *n;

	if (memchr(text, '\0', len) != NULL) {
		struct ctl_ynode at = { .line = y_line(ev), .col = y_col(ev), .set = -1 };

		return ctl_err(b->c, &at, "value contains a NUL character; remove it");
	}
	n = y_new_scalar(text, len, y_line(ev), y_col(ev), -1);
	if (n == NULL)
		return -ENOMEM;
	n->plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
	*out = n;
	return 0;
}

static int y_build(struct y_build *b, const yaml_event_t *ev, int depth, struct ctl_ynode **out);

/* Read one key and its value into map @p n; *done when the map ends. */
static int y_map_entry(struct y_build *b, struct ctl_ynode *n, int depth, bool *done)
{
	struct ctl_ynode *k = NULL, *v = NULL;
	yaml_event_t ev;
	int rc = y_next(b, &ev);

	if (rc != 0)
		return rc;
	*done = ev.type == YAML_MAPPING_END_EVENT;
	if (!*done && ev.type != YAML_SCALAR_EVENT) {
		struct ctl_ynode at = { .line = y_line(&ev), .col = y_col(&ev), .set = -1 };

		rc = ctl_err(b->c, &at, "a key must be a name, not a %s; write name: value",
			     ev.type == YAML_MAPPING_START_EVENT ? "map" : "list or alias");
	} else if (!*done) {
		rc = y_scalar(b, &ev, &k);
	}
	yaml_event_delete(&ev);
	if (rc != 0 || *done)
		return rc;
	int first = y_find(n, k->text);
	size_t old = ctl_push(b->c, k->text);

	if (first >= 0)
		rc = ctl_err(b->c, k, "duplicate key; keep one, the first is at %u:%u", n->key[first]->line,
				     n->key[first]->col);
	if (rc == 0 && (rc = y_next(b, &ev)) == 0) {
		rc = y_build(b, &ev, depth + 1, &v);
		yaml_event_delete(&ev);
	}
	ctl_pop(b->c, old);
	if (rc == 0 && (rc = y_append(n, k, v)) == 0)
		return 0;
	ctl_y_free(k);
	ctl_y_free(v);
	return rc;
}

static int y_seq_item(struct y_build *b, struct ctl_ynode *n, int depth, bool *done)
{
	struct ctl_ynode *v = NULL;
	yaml_event_t ev;
	int rc = y_next(b, &ev);

	if (rc != 0)
		return rc;
	*done = ev.type == YAML_SEQUENCE_END_EVENT;
	if (!*done) {
		size_t old = ctl_push_idx(b->c, n->n);

		rc = y_build(b, &ev, depth + 1, &v);
		ctl_pop(b->c, old);
	}
	yaml_event_delete(&ev);
	if (rc == 0 && !*done && (rc = y_append(n, NULL, v)) != 0)
		ctl_y_free(v);
	return rc;
}

static int y_build(struct y_build *b, const yaml_event_t *ev, int depth, struct ctl_ynode **out)
{
	struct ctl_ynode at = { .line = y_line(ev), .col = y_col(ev), .set = -1 };
	bool map = ev->type == YAML_MAPPING_START_EVENT, done = false;
	struct ctl_ynode *n;
	int rc = 0;

	if (ev->type == YAML_SCALAR_EVENT)
		return y_scalar(b, ev, out);
	if (ev->type == YAML_ALIAS_EVENT)
		return ctl_err(b->c, &at, "aliases are not supported; write the value out");
	if (depth >= CTL_DEPTH_MAX)
		return ctl_err(b->c, &at, "nested more than %d levels deep; a config is shallower", CTL_DEPTH_MAX);
	n = y_new(map ? CTL_Y_MAP : CTL_Y_SEQ, at.line, at.col, -1);
	if (n == NULL)
		return -ENOMEM;
	while (rc == 0 && !done)
		rc = map ? y_map_entry(b, n, depth, &done) : y_seq_item(b, n, depth, &done);
	if (rc != 0) {
		ctl_y_free(n);
		return rc;
	}
	*out = n;
	return 0;
}

/* Expect an event of @p type next (the stream's framing); anything else is reported. */
static int y_expect(struct y_build *b, yaml_event_type_t type, yaml_event_t *ev)
{
	int rc = y_next(b, ev);

	if (rc == 0 && ev->type != type) {
		struct ctl_ynode at = { .line = y_line(ev), .col = y_col(ev), .set = -1 };

		yaml_event_delete(ev);
		return ctl_err(b->c, &at, "a second YAML document; a config is one document");
	}
	return rc;
}

static int y_stream(struct y_build *b, struct ctl_ynode **root)
{
	yaml_event_t ev;
	int rc;

	if ((rc = y_expect(b, YAML_STREAM_START_EVENT, &ev)) != 0)
		return rc;
	yaml_event_delete(&ev);
	if ((rc = y_next(b, &ev)) != 0)
		return rc;
	if (ev.type == YAML_STREAM_END_EVENT) { /* an empty file: an empty map */
		yaml_event_delete(&ev);
		*root = y_new(CTL_Y_MAP, 1, 1, -1);
		return *root != NULL ? 0 : -ENOMEM;
	}
	yaml_event_delete(&ev); /* DOCUMENT_START */
	if ((rc = y_next(b, &ev)) != 0)
		return rc;
	rc = y_build(b, &ev, 0, root);
	yaml_event_delete(&ev);
	if (rc == 0 && (rc = y_expect(b, YAML_DOCUMENT_END_EVENT, &ev)) == 0) {
		yaml_event_delete(&ev);
		if ((rc = y_expect(b, YAML_STREAM_END_EVENT, &ev)) == 0)
			yaml_event_delete(&ev);
	}
	if (rc != 0) {
		ctl_y_free(*root);
		*root = NULL;
	}
	return rc;
}

int ctl_y_load(struct ctl_ctx *c, struct ctl_ynode **root)
{
	struct y_build b = { .c = c };
	FILE *f = fopen(c->file, "rb");
	int rc;

	*root = NULL;
	if (f == NULL) {
		rc = -errno;
		snprintf(c->err, c->errlen, "%s: %s", c->file, strerror(-rc));
		return rc;
	}
	if (!yaml_parser_initialize(&b.parser)) {
		fclose(f);
		return -ENOMEM;
	}
	yaml_parser_set_input_file(&b.parser, f);
	rc = y_stream(&b, root);
	yaml_parser_delete(&b.parser);
	fclose(f);
	if (rc == 0 && ctl_y_is_null(*root)) { /* a file holding only "~": no sections, as an empty file */
		struct ctl_ynode *m = y_new(CTL_Y_MAP, (*root)->line, (*root)->col, -1);

		ctl_y_free(*root);
		*root = m;
		rc = m != NULL ? 0 : -ENOMEM;
	}
	return rc;
}

/* ---- --set overrides ---- */

__attribute__((format(printf, 3, 4))) static int set_fail(struct ctl_ctx *c, int idx, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(c->err, c->errlen, "--set %s: %s", c->sets[idx], msg);
	return -EINVAL;
}

static bool all_digits(const char *s)
{
	if (*s == '\0')
		return false;
	for (; *s != '\0'; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* One --set being applied: its path split into components, and where each ends in the path text. */
struct y_setp {
	int idx;
	const char *path;           /* the path text, before '=' */
	char buf[CTL_PATH_MAX];
	char *comp[CTL_DEPTH_MAX];
	size_t end[CTL_DEPTH_MAX];  /* path[0, end[i]) is the path up to component i */
	int n;
};

static int set_split(struct ctl_ctx *c, struct y_setp *sp)
{
	const char *s = c->sets[sp->idx];
	size_t plen = strcspn(s, "=");
	char *p = sp->buf;

	if (s[plen] != '=')
		return set_fail(c, sp->idx, "missing '='; write --set path=value, e.g. --set simulation.RandomSeed=7");
	if (plen >= sizeof(sp->buf))
		return set_fail(c, sp->idx, "path too long; a path has at most %zu characters", sizeof(sp->buf) - 1);
	memcpy(sp->buf, s, plen);
	sp->buf[plen] = '\0';
	sp->path = s;
	for (sp->n = 0;; sp->n++) {
		char *dot = strchr(p, '.');

		if (sp->n == CTL_DEPTH_MAX)
			return set_fail(c, sp->idx, "path too deep; a path has at most %d keys", CTL_DEPTH_MAX);
		if (dot != NULL)
			*dot = '\0';
		if (*p == '\0')
			return set_fail(c, sp->idx, "empty key in the path; separate keys with one dot, e.g. "
				       "nic.EnableEventLogging=true");
		sp->comp[sp->n] = p;
		sp->end[sp->n] = (size_t)(p - sp->buf) + strlen(p);
		if (dot == NULL)
			break;
		p = dot + 1;
	}
	sp->n++;
	return 0;
}

/* Slot of component *i in sequence @p n. */
static int set_seq_slot(struct ctl_ctx *c, struct y_setp *sp, struct ctl_ynode *n, int i, struct ctl_ynode ***slot)
{
	const char *comp = sp->comp[i];
	int at = i == 0 ? 0 : (int)sp->end[i - 1];
	unsigned long k;

	if (!all_digits(comp))
		return set_fail(c, sp->idx, "%.*s is a list; index it with a number, e.g. %.*s.0", at, sp->path, at,
				sp->path);
	k = strtoul(comp, NULL, 10);
	if (strlen(comp) > 9 || k >= n->n)
		return set_fail(c, sp->idx, "index %s out of range; %.*s has %u entr%s", comp, at, sp->path, n->n,
				n->n == 1 ? "y" : "ies");
	*slot = &n->val[k];
	return 0;
}

/*
 * Slot of component *i in map @p n, creating the key if missing. A key missing from the file followed by a number
 * is a version-like key when it ends in a digit ("PCIeGen3" "0" is the key PCIeGen3.0), else an index into a list
 * the file does not have, which --set cannot make.
 */
static int set_map_slot(struct ctl_ctx *c, struct y_setp *sp, struct ctl_ynode *n, int *i, struct ctl_ynode ***slot)
{
	const char *comp = sp->comp[*i];
	size_t len = strlen(comp);
	char joined[CTL_PATH_MAX];
	int j = y_find(n, comp);

	if (j < 0 && *i + 1 < sp->n && all_digits(sp->comp[*i + 1])) {
		if (comp[len - 1] < '0' || comp[len - 1] > '9')
			return set_fail(c, sp->idx, "no list at %.*s; --set can index only lists the file has",
					(int)sp->end[*i], sp->path);
		snprintf(joined, sizeof(joined), "%s.%s", comp, sp->comp[*i + 1]);
		comp = joined;
		(*i)++;
		j = y_find(n, comp);
	}
	if (j < 0) {
		struct ctl_ynode *k = y_new_scalar(comp, strlen(comp), 0, 0, sp->idx);
		struct ctl_ynode *v = y_new(CTL_Y_MAP, 0, 0, sp->idx);

		if (k == NULL || v == NULL || y_append(n, k, v) != 0) {
			ctl_y_free(k);
			ctl_y_free(v);
			return -ENOMEM;
		}
		j = (int)n->n - 1;
	}
	*slot = &n->val[j];
	return 0;
}

/* Put the --set value in *slot, which held a value or an empty map made on the way. */
static int set_value(struct ctl_ctx *c, struct y_setp *sp, int i, struct ctl_ynode **slot)
{
	const char *value = sp->path + strcspn(sp->path, "=") + 1;
	struct ctl_ynode *old = *slot;
	int at = (int)sp->end[i];

	if (old->type == CTL_Y_MAP && (old->set != sp->idx || old->n != 0))
		return set_fail(c, sp->idx, "%.*s is a map; set one of its keys, e.g. %.*s.<key>=value", at, sp->path,
				at, sp->path);
	*slot = y_new_scalar(value, strlen(value), 0, 0, sp->idx);
	if (*slot == NULL) {
		*slot = old;
		return -ENOMEM;
	}
	ctl_y_free(old);
	return 0;
}

int ctl_y_apply_set(struct ctl_ctx *c, struct ctl_ynode *root, int idx)
{
	struct y_setp sp = { .idx = idx };
	struct ctl_ynode *n = root, **slot = NULL;
	int rc = set_split(c, &sp);

	for (int i = 0; rc == 0 && i < sp.n; i++) {
		if (n->type == CTL_Y_SEQ)
			rc = set_seq_slot(c, &sp, n, i, &slot);
		else if (n->type == CTL_Y_MAP)
			rc = set_map_slot(c, &sp, n, &i, &slot);
		else
			rc = set_fail(c, idx, "%.*s is a value, not a map; set %.*s=<value>", (int)sp.end[i - 1], sp.path,
				      (int)sp.end[i - 1], sp.path);
		if (rc != 0)
			break;
		if (i == sp.n - 1)
			return set_value(c, &sp, i, slot);
		if (ctl_y_is_null(*slot)) { /* "nic:" with nothing under it: make it a map to set into */
			struct ctl_ynode *m = y_new(CTL_Y_MAP, (*slot)->line, (*slot)->col, (*slot)->set);

			if (m == NULL)
				return -ENOMEM;
			ctl_y_free(*slot);
			*slot = m;
		}
		n = *slot;
	}
	return rc;
}
