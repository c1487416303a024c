/*
 * htsim's input files, so an htsim user reruns the same work (docs/topology.md, Coming from htsim):
 *   applications: [{type: connection_matrix, file: X.cm}]  a connection matrix as a messages application
 *   topology: {type: htsim, file: X.topo}                 a fat-tree .topo as a generated fabric
 * htsim's host N is uetemu's hostN. Each file is read whole, then decoded line by line with a cursor and a length;
 * every line that is wrong, or asks for something uetemu cannot do, is an error naming FILE:LINE.
 */
#include <errno.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl_yaml_pvt.h"
#include "emu_units.h"
#include "net_topo.h"
#include "nic.h"

#define HS_FILE_MAX (256u << 20) /* bytes of a .cm or .topo read at most */
#define HS_TOKS_MAX 32           /* tokens on one line at most */

/* A piece of the file: a line or a token, never NUL-terminated. */
struct hs_span {
	const char *p;
	size_t n;
};

/* The file being decoded: its text, the cursor, the line number of the last line taken. */
struct hs_file {
	const char *name;        /* as the config gave it, for messages */
	char *text;
	size_t len, pos;
	uint32_t line;
	struct ctl_ctx *c;
	const struct ctl_ynode *at; /* the config's file: node, where errors are reported */
};

/* An error at the current line: "FILE:LINE: message". */
__attribute__((format(printf, 2, 3))) static int hs_err(struct hs_file *f, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return ctl_err(f->c, f->at, "%s:%u: %s", f->name, f->line, msg);
}

/* The file's path: relative to the config file's directory, absolute as given. */
static int hs_path(struct ctl_ctx *c, const struct ctl_ynode *v, const char *example, char *out, size_t size,
		   const char **given)
{
	char dir[512];
	int rc = ctl_scalar(c, v, example, given);

	if (rc != 0)
		return rc;
	snprintf(dir, sizeof(dir), "%s", c->file);
	if ((*given)[0] == '\0' || strlen(*given) + strlen(dir) + 2 > size)
		return ctl_err(c, v, "bad path '%s': empty or longer than %zu characters", *given, size - 100);
	if ((*given)[0] == '/')
		snprintf(out, size, "%s", *given);
	else
		snprintf(out, size, "%s/%s", dirname(dir), *given);
	return 0;
}

/* Read the file f->at names (@p example: how one is written) into f->text. */
static int hs_load(struct hs_file *f, const char *example)
{
	char path[1024];
	FILE *fp;
	long n;
	int rc = hs_path(f->c, f->at, example, path, sizeof(path), &f->name);

	if (rc != 0)
		return rc;
	fp = fopen(path, "rb");
	if (fp == NULL)
		return ctl_err(f->c, f->at, "%s: %s", f->name, strerror(errno));
	if (fseek(fp, 0, SEEK_END) != 0 || (n = ftell(fp)) < 0 || fseek(fp, 0, SEEK_SET) != 0) {
		fclose(fp);
		return ctl_err(f->c, f->at, "%s: cannot be read (not a regular file?)", f->name);
	}
	if ((unsigned long)n > HS_FILE_MAX) {
		fclose(fp);
		return ctl_err(f->c, f->at, "%s: %ld B, more than the %u MiB an htsim file may have here", f->name, n,
			       HS_FILE_MAX >> 20);
	}
	f->text = malloc((size_t)n + 1);
	if (f->text == NULL) {
		fclose(fp);
		return -ENOMEM;
	}
	f->len = fread(f->text, 1, (size_t)n, fp);
	fclose(fp);
	if (f->len != (size_t)n)
		return ctl_err(f->c, f->at, "%s: short read", f->name);
	for (size_t i = 0; i < f->len; i++)
		if (f->text[i] == '\0')
			return ctl_err(f->c, f->at, "%s: a NUL byte at offset %zu; an htsim file is text", f->name, i);
	return 0;
}

/*
 * The next line that holds something (blank lines and '#' comments skipped) split into tokens at spaces, tabs
 * and a trailing '\r'. Returns the token count, 0 at the end of the file, -EINVAL for a line of too many tokens.
 */
static int hs_next(struct hs_file *f, struct hs_span *tok)
{
	while (f->pos < f->len) {
		const char *p = f->text + f->pos, *nl = memchr(p, '\n', f->len - f->pos);
		size_t n = nl != NULL ? (size_t)(nl - p) : f->len - f->pos;
		int k = 0;

		f->pos += n + (nl != NULL);
		f->line++;
		for (size_t i = 0; i < n;) {
			while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r'))
				i++;
			if (i == n)
				break;
			size_t s = i;

			while (i < n && p[i] != ' ' && p[i] != '\t' && p[i] != '\r')
				i++;
			if (k == 0 && p[s] == '#')
				break;
			if (k == HS_TOKS_MAX)
				return hs_err(f, "more than %d words on a line", HS_TOKS_MAX);
			tok[k++] = (struct hs_span){ p + s, i - s };
		}
		if (k > 0)
			return k;
	}
	return 0;
}

static bool hs_is(struct hs_span t, const char *word)
{
	return t.n == strlen(word) && memcmp(t.p, word, t.n) == 0;
}

/* As hs_is(), ignoring case (htsim lowercases a .topo's attribute names). */
static bool hs_is_ci(struct hs_span t, const char *word)
{
	if (t.n != strlen(word))
		return false;
	for (size_t i = 0; i < t.n; i++) {
		char a = t.p[i], b = word[i];

		if ((a >= 'A' && a <= 'Z' ? a + 32 : a) != (b >= 'A' && b <= 'Z' ? b + 32 : b))
			return false;
	}
	return true;
}

/* A decimal unsigned integer of at most @p max, the whole token. */
static bool hs_uint(struct hs_span t, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (t.n == 0)
		return false;
	for (size_t i = 0; i < t.n; i++) {
		if (t.p[i] < '0' || t.p[i] > '9' || v > (max - (uint64_t)(t.p[i] - '0')) / 10)
			return false;
		v = v * 10 + (uint64_t)(t.p[i] - '0');
	}
	*out = v;
	return true;
}

/* "%.*s" arguments of a token, shortened for messages. */
#define HS_TOK(t) (int)((t).n > 40 ? 40 : (t).n), (t).p

/* The value after a keyword at tok[*i]: a uint of at most @p max, or an error naming the keyword. */
static int hs_val(struct hs_file *f, const struct hs_span *tok, int ntok, int *i, uint64_t max, uint64_t *out)
{
	struct hs_span key = tok[*i];

	if (*i + 1 >= ntok)
		return hs_err(f, "%.*s needs a value, e.g. %.*s 1", HS_TOK(key), HS_TOK(key));
	(*i)++;
	if (!hs_uint(tok[*i], max, out))
		return hs_err(f, "%.*s '%.*s': expected a whole number from 0 to %llu", HS_TOK(key), HS_TOK(tok[*i]),
			      (unsigned long long)max);
	return 0;
}

/* ---- Connection matrix ---- */

/*
 * A start time in microseconds, as htsim reads it (connection_matrix.cpp, then timeFromUs((uint32_t)start)):
 * digits with an optional fraction, the fraction dropped (htsim starts a flow at a whole microsecond).
 */
static bool hs_start_us(struct hs_span t, uint64_t *us)
{
	size_t dot = 0;

	while (dot < t.n && t.p[dot] != '.')
		dot++;
	for (size_t i = dot + 1; i < t.n; i++)
		if (t.p[i] < '0' || t.p[i] > '9')
			return false;
	if (dot == 0 && t.n > 1) {
		*us = 0; /* ".5" */
		return true;
	}
	return hs_uint((struct hs_span){ t.p, dot }, UINT32_MAX, us);
}

/* The header's counts, as given (0: not given). */
struct cm_head {
	uint64_t nodes, conns;
	uint32_t nodes_line, conns_line;
};

/* One connection line, "S->D id N start T size B [prio P]", into @p m. */
static int cm_conn(struct hs_file *f, const struct hs_span *tok, int ntok, const struct cm_head *h,
		   const struct ctl_config *cfg, struct ctl_message *m, uint64_t *id)
{
	const char *arrow = NULL;
	uint64_t src, dst, us = 0, v;
	bool has_start = false, has_size = false;

	for (size_t i = 0; i + 1 < tok[0].n; i++)
		if (tok[0].p[i] == '-' && tok[0].p[i + 1] == '>')
			arrow = tok[0].p + i;
	if (arrow == NULL || !hs_uint((struct hs_span){ tok[0].p, (size_t)(arrow - tok[0].p) }, UINT32_MAX, &src) ||
	    !hs_uint((struct hs_span){ arrow + 2, tok[0].n - (size_t)(arrow + 2 - tok[0].p) }, UINT32_MAX, &dst))
		return hs_err(f, "'%.*s': a connection starts SRC->DST, e.g. 3->7 id 1 start 0 size 2000000",
			      HS_TOK(tok[0]));
	if (src >= h->nodes || dst >= h->nodes)
		return hs_err(f, "host %llu: the matrix has Nodes %llu (hosts 0 to %llu)",
			      (unsigned long long)(src >= h->nodes ? src : dst), (unsigned long long)h->nodes,
			      (unsigned long long)h->nodes - 1);
	if (src == dst)
		return hs_err(f, "%llu->%llu: a message goes between two different hosts", (unsigned long long)src,
			      (unsigned long long)dst);
	*id = 0;
	for (int i = 1; i < ntok; i++) {
		int rc = 0;

		if (hs_is(tok[i], "start")) {
			if (i + 1 >= ntok || !hs_start_us(tok[i + 1], &us))
				return hs_err(f, "start needs a time in microseconds, e.g. start 0 or start 12");
			i++;
			has_start = true;
		} else if (hs_is(tok[i], "size")) {
			if ((rc = hs_val(f, tok, ntok, &i, UINT64_MAX / 2, &m->bytes)) != 0)
				return rc;
			has_size = true;
		} else if (hs_is(tok[i], "id")) {
			if ((rc = hs_val(f, tok, ntok, &i, UINT32_MAX, id)) != 0)
				return rc;
			if (*id == 0)
				return hs_err(f, "id 0: flow ids start at 1 (htsim refuses 0 too)");
		} else if (hs_is(tok[i], "prio")) {
			/* htsim_uec reads it and sets it nowhere (main_uec.cpp); uetemu's messages have no priority. */
			if ((rc = hs_val(f, tok, ntok, &i, UINT32_MAX, &v)) != 0)
				return rc;
		} else if (hs_is(tok[i], "trigger") || hs_is(tok[i], "send_done_trigger") ||
			   hs_is(tok[i], "recv_done_trigger")) {
			return hs_err(f, "%.*s: a connection started by another's end cannot be expressed: uetemu's "
				      "messages start at a time; give every connection a start (htsim's triggers are "
				      "not supported)", HS_TOK(tok[i]));
		} else if (hs_is(tok[i], "msg")) {
			return hs_err(f, "msg: messages reusing one connection (htsim's -conn_reuse) are not "
				      "supported: every uetemu message has its own PDC; drop msg to send them as "
				      "separate messages");
		} else {
			return hs_err(f, "unknown word '%.*s'; a connection takes id, start, size and prio", HS_TOK(tok[i]));
		}
	}
	if (!has_start)
		return hs_err(f, "no start; e.g. %.*s start 0 size 2000000", HS_TOK(tok[0]));
	if (!has_size || m->bytes == 0)
		return hs_err(f, "%s: htsim runs a connection without a size as a flow that never ends; a uetemu "
			      "message has a size, e.g. size 2000000", has_size ? "size 0" : "no size");
	if (m->bytes > nic_msg_bytes_max(cfg->nic.rdma_data_mss))
		return hs_err(f, "size %llu: more than a message can carry (%llu B at RdmaDataMSS %u)",
			      (unsigned long long)m->bytes,
			      (unsigned long long)nic_msg_bytes_max(cfg->nic.rdma_data_mss), cfg->nic.rdma_data_mss);
	m->src = (uint32_t)src;
	m->dst = (uint32_t)dst;
	m->start = (emu_ps_t)us * 1000000u;
	return 0;
}

/* The header: Nodes, Connections (Triggers 0 and Failures 0 allowed), up to the first connection line. */
static int cm_header_line(struct hs_file *f, const struct hs_span *tok, int ntok, struct cm_head *h)
{
	uint64_t v;
	int i = 0, rc;

	if (ntok != 2)
		return hs_err(f, "'%.*s' takes one number, e.g. %.*s 16", HS_TOK(tok[0]), HS_TOK(tok[0]));
	if ((rc = hs_val(f, tok, ntok, &i, UINT32_MAX, &v)) != 0)
		return rc;
	if (hs_is(tok[0], "Nodes")) {
		h->nodes = v;
		h->nodes_line = f->line;
	} else if (hs_is(tok[0], "Connections")) {
		h->conns = v;
		h->conns_line = f->line;
	} else if (v != 0) {
		return hs_err(f, "%.*s %llu: htsim's %s are not supported: uetemu's messages start at a time",
			      HS_TOK(tok[0]), (unsigned long long)v, hs_is(tok[0], "Triggers") ? "triggers" :
			      "link failures (give topology.faults instead)");
	}
	return 0;
}

/* Flow ids given more than once (htsim asserts they are unique): sort a copy, compare neighbours. */
static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static int cm_read(struct hs_file *f, const struct ctl_config *cfg, struct ctl_app *app)
{
	struct hs_span tok[HS_TOKS_MAX];
	struct cm_head h = { 0 };
	uint64_t *ids = NULL;
	uint32_t cap = 0, n = 0, n_ids = 0;
	int ntok, rc = 0;

	while ((ntok = hs_next(f, tok)) > 0) {
		bool conn = memchr(tok[0].p, '>', tok[0].n) != NULL;

		if (!conn && (hs_is(tok[0], "Nodes") || hs_is(tok[0], "Connections") || hs_is(tok[0], "Triggers") ||
			      hs_is(tok[0], "Failures"))) {
			if (n > 0)
				rc = hs_err(f, "%.*s after the first connection; the header comes first", HS_TOK(tok[0]));
			else
				rc = cm_header_line(f, tok, ntok, &h);
		} else if (hs_is(tok[0], "trigger") || hs_is(tok[0], "failure")) {
			rc = hs_err(f, "%.*s: htsim's %s are not supported: uetemu's messages start at a time",
				    HS_TOK(tok[0]), hs_is(tok[0], "trigger") ? "triggers" : "link failures (give "
				    "topology.faults instead)");
		} else if (!conn) {
			rc = hs_err(f, "unknown line '%.*s'; a connection matrix has Nodes, Connections, then lines "
				    "like 3->7 id 1 start 0 size 2000000", HS_TOK(tok[0]));
		} else if (h.nodes == 0) {
			rc = hs_err(f, "a connection before Nodes; the file starts Nodes N, Connections M");
		} else if (h.nodes > cfg->n_hosts) {
			f->line = h.nodes_line;
			rc = hs_err(f, "Nodes %llu, but the topology has %u hosts (htsim's host N is uetemu's hostN)",
				    (unsigned long long)h.nodes, cfg->n_hosts);
		} else {
			uint64_t id;

			if (n == cap) {
				uint32_t nc = cap ? cap * 2 : 64;
				void *p = realloc(app->list, nc * sizeof(*app->list)), *q;

				if (p == NULL)
					return free(ids), -ENOMEM;
				app->list = p;
				if ((q = realloc(ids, nc * sizeof(*ids))) == NULL)
					return free(ids), -ENOMEM;
				ids = q;
				cap = nc;
			}
			memset(&app->list[n], 0, sizeof(app->list[n]));
			rc = cm_conn(f, tok, ntok, &h, cfg, &app->list[n], &id);
			if (rc == 0 && id != 0)
				ids[n_ids++] = id;
			n++;
			app->n_list = n;
		}
		if (rc != 0)
			break;
	}
	if (rc == 0 && ntok < 0)
		rc = ntok;
	if (rc == 0 && h.nodes == 0)
		rc = hs_err(f, "no Nodes line; a connection matrix starts Nodes N, Connections M");
	if (rc == 0 && n_ids > 1) {
		qsort(ids, n_ids, sizeof(*ids), cmp_u64);
		for (uint32_t i = 1; rc == 0 && i < n_ids; i++)
			if (ids[i] == ids[i - 1])
				rc = ctl_err(f->c, f->at, "%s: id %llu is given to two connections; flow ids are unique",
					     f->name, (unsigned long long)ids[i]);
	}
	if (rc == 0 && h.conns_line != 0 && h.conns != n) {
		f->line = h.conns_line;
		rc = hs_err(f, "Connections %llu, but the file has %u", (unsigned long long)h.conns, n);
	}
	free(ids);
	return rc;
}

int ctl_app_cm(struct ctl_ctx *c, const struct ctl_ynode *item, struct ctl_config *cfg, uint32_t idx)
{
	static const struct ctl_key keys[] = { { "type", true, NULL }, { "file", true, NULL } };
	struct ctl_app *app = &cfg->apps[idx];
	struct hs_file f = { .c = c };
	int rc = ctl_walk_map(c, item, keys, sizeof(keys) / sizeof(keys[0]), NULL,
			      "e.g. {type: connection_matrix, file: perm.cm}");

	app->type = CTL_APP_MESSAGES;
	if (rc != 0)
		return rc;
	size_t old = ctl_push(c, "file");

	f.at = ctl_y_get(item, "file");
	rc = hs_load(&f, "perm.cm");
	if (rc == 0)
		rc = cm_read(&f, cfg, app);
	free(f.text);
	ctl_pop(c, old);
	return rc;
}

/* ---- Fat-tree topology ---- */

/* One tier of a .topo, as given (0: not given; oversubscribed and bundle default to 1). */
struct topo_tier {
	bool seen;
	uint64_t gbps, radix_up, radix_down, queue_up, queue_down, oversub, bundle, switch_ns, link_ns;
	uint32_t line[9];             /* where each was given, same order */
};

struct topo_file {
	uint64_t nodes, tiers, podsize;
	struct topo_tier t[3];
};

static const char *const tier_attrs[] = { "Downlink_speed_Gbps", "Radix_Up", "Radix_Down", "Queue_Up", "Queue_Down",
					  "Oversubscribed", "Bundle", "Switch_Latency_ns", "Downlink_Latency_ns" };

static uint64_t *tier_field(struct topo_tier *t, unsigned a)
{
	uint64_t *f[] = { &t->gbps, &t->radix_up, &t->radix_down, &t->queue_up, &t->queue_down, &t->oversub,
			  &t->bundle, &t->switch_ns, &t->link_ns };

	return f[a];
}

static int topo_read(struct hs_file *f, struct topo_file *tf)
{
	struct hs_span tok[HS_TOKS_MAX];
	int ntok, cur = -1, rc = 0, i;
	uint64_t v;

	while (rc == 0 && (ntok = hs_next(f, tok)) > 0) {
		unsigned a = 0;

		i = 0;
		if (ntok != 2)
			return hs_err(f, "'%.*s' takes one number, e.g. %.*s 4", HS_TOK(tok[0]), HS_TOK(tok[0]));
		if ((rc = hs_val(f, tok, ntok, &i, UINT32_MAX, &v)) != 0)
			return rc;
		if (hs_is_ci(tok[0], "Nodes") || hs_is_ci(tok[0], "Tiers") || hs_is_ci(tok[0], "Podsize")) {
			if (cur >= 0)
				return hs_err(f, "%.*s inside Tier %d; the header (Nodes, Tiers, Podsize) comes first",
					      HS_TOK(tok[0]), cur);
			*(hs_is_ci(tok[0], "Nodes") ? &tf->nodes : hs_is_ci(tok[0], "Tiers") ? &tf->tiers
											 : &tf->podsize) = v;
			continue;
		}
		if (hs_is_ci(tok[0], "Tier")) {
			if (v > 2)
				return hs_err(f, "Tier %llu: tiers are 0 (tors), 1 (aggs) and 2 (cores)",
					      (unsigned long long)v);
			cur = (int)v;
			if (tf->t[cur].seen)
				return hs_err(f, "Tier %d a second time", cur);
			tf->t[cur].seen = true;
			continue;
		}
		while (a < sizeof(tier_attrs) / sizeof(tier_attrs[0]) && !hs_is_ci(tok[0], tier_attrs[a]))
			a++;
		if (a == sizeof(tier_attrs) / sizeof(tier_attrs[0]))
			return hs_err(f, "unknown attribute '%.*s'; a tier takes Downlink_speed_Gbps, Radix_Up, "
				      "Radix_Down, Queue_Up, Queue_Down, Oversubscribed, Bundle, Switch_Latency_ns and "
				      "Downlink_Latency_ns", HS_TOK(tok[0]));
		if (cur < 0)
			return hs_err(f, "%s before any Tier line", tier_attrs[a]);
		if (tf->t[cur].line[a] != 0)
			return hs_err(f, "%s a second time in Tier %d (first at line %u)", tier_attrs[a], cur,
				      tf->t[cur].line[a]);
		*tier_field(&tf->t[cur], a) = v;
		tf->t[cur].line[a] = f->line;
	}
	return rc != 0 ? rc : ntok;
}

/* A tier attribute that must be @p want (or not given when @p want is its default): else an error at its line. */
static int topo_want(struct hs_file *f, struct topo_file *tf, int tier, unsigned a, uint64_t want, const char *why)
{
	uint64_t *v = tier_field(&tf->t[tier], a);

	if (tf->t[tier].line[a] == 0 && (a == 5 || a == 6 || a == 7) && want == (a == 7 ? 0 : 1))
		return 0; /* not given: Oversubscribed and Bundle are 1, Switch_Latency_ns 0 (htsim's defaults) */
	if (tf->t[tier].line[a] != 0 && *v == want)
		return 0;
	f->line = tf->t[tier].line[a];
	if (f->line == 0)
		return ctl_err(f->c, f->at, "%s: Tier %d has no %s; %s", f->name, tier, tier_attrs[a], why);
	return hs_err(f, "%s %llu in Tier %d: %s", tier_attrs[a], (unsigned long long)*v, tier, why);
}

/*
 * The switch tiers' DataRate so that each layer of links runs at its .topo speed, as uetemu sets a link's rate
 * (the lower of its two ends; the host's end is the NIC at s[0]): min(s0, b1) = s0, min(b1, b2) = s1 and, with
 * three tiers, min(b2, b3) = s2. Every solution uses the given speeds only; the first found is taken.
 */
static bool topo_rates(const uint64_t *s, uint32_t tiers, uint64_t *b)
{
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++)
			for (int k = 0; k < (tiers == 3 ? 3 : 1); k++) {
				uint64_t b1 = s[i], b2 = s[j], b3 = s[k];

				if ((b1 < s[0]) || (b1 < b2 ? b1 : b2) != s[1] ||
				    (tiers == 3 && (b2 < b3 ? b2 : b3) != s[2]))
					continue;
				b[1] = b1, b[2] = b2, b[3] = tiers == 3 ? b3 : 0;
				return true;
			}
	return false;
}

static int topo_map(struct hs_file *f, struct topo_file *tf, struct ctl_config *cfg, const uint32_t *ip_base)
{
	struct net_topo_spec *sp = &cfg->topo_spec;
	uint32_t nt = (uint32_t)tf->tiers;
	uint64_t s[3] = { 0 }, b[4] = { 0 };
	char why[200];
	int rc;

	f->line = 0;
	if (tf->nodes == 0 || tf->tiers == 0 || tf->podsize == 0)
		return ctl_err(f->c, f->at, "%s: the header needs Nodes, Tiers and Podsize (e.g. Nodes 128, Tiers 3, "
			       "Podsize 16)", f->name);
	if (nt != 2 && nt != 3)
		return ctl_err(f->c, f->at, "%s: Tiers %u; an htsim fat tree has 2 or 3", f->name, nt);
	for (uint32_t t = 0; t < nt; t++) {
		struct topo_tier *tt = &tf->t[t];

		if (!tt->seen)
			return ctl_err(f->c, f->at, "%s: no Tier %u section (Tiers %u)", f->name, t, nt);
		for (unsigned a = 0; a < 9; a++) {
			bool need = a == 0 || a == 2 || a == 8 || (a == 1 && t + 1 < nt);

			if (need && tt->line[a] == 0)
				return ctl_err(f->c, f->at, "%s: Tier %u has no %s", f->name, t, tier_attrs[a]);
		}
		if (tt->line[1] != 0 && t + 1 == nt) {
			f->line = tt->line[1];
			return hs_err(f, "Radix_Up in the top tier, which has no uplinks");
		}
		for (unsigned a = 3; a <= 4; a++)
			if (tt->line[a] != 0) {
				f->line = tt->line[a];
				return hs_err(f, "%s: per-port queue sizes are not imported: uetemu's switch has one "
					      "shared buffer (switch.SharedBufferManager.TotalSharedBufferSize and its "
					      "per-port limits); remove the line and size the buffer in the switch section",
					      tier_attrs[a]);
			}
		if ((rc = topo_want(f, tf, (int)t, 6, 1, "uetemu's fabrics have one link between two switches")) != 0 ||
		    (rc = topo_want(f, tf, (int)t, 7, 0, "uetemu's switch forwards with no fixed latency; set it to 0 "
				    "(or fold it into Downlink_Latency_ns)")) != 0)
			return rc;
		if (tt->gbps == 0 || tt->link_ns == 0) {
			f->line = tt->line[tt->gbps == 0 ? 0 : 8];
			return hs_err(f, "%s 0: a link has a speed and a latency", tier_attrs[tt->gbps == 0 ? 0 : 8]);
		}
		s[t] = tt->gbps * 1000000000ull;
	}
	uint64_t h = tf->t[0].radix_down;

	if (nt == 3) {
		uint64_t k = 2 * h;

		if ((rc = topo_want(f, tf, 0, 1, h, "a k-ary fat tree's tor has k/2 uplinks, as many as its hosts "
				    "(Radix_Down)")) != 0 ||
		    (rc = topo_want(f, tf, 1, 2, h, "an agg has k/2 tors below it (k/2 = Tier 0's Radix_Down)")) != 0 ||
		    (rc = topo_want(f, tf, 1, 1, h, "an agg has k/2 uplinks (k/2 = Tier 0's Radix_Down)")) != 0 ||
		    (rc = topo_want(f, tf, 2, 2, k, "a core has one link to each of the k pods")) != 0)
			return rc;
		for (int t = 0; t < 3; t++)
			if ((rc = topo_want(f, tf, t, 5, 1, "uetemu's fat tree is not oversubscribed")) != 0)
				return rc;
		if (tf->nodes != k * k * k / 4 || tf->podsize != k * k / 4)
			return ctl_err(f->c, f->at, "%s: Nodes %llu, Podsize %llu; the k = %llu fat tree its radixes give "
				       "has %llu hosts, %llu a pod", f->name, (unsigned long long)tf->nodes,
				       (unsigned long long)tf->podsize, (unsigned long long)k,
				       (unsigned long long)(k * k * k / 4), (unsigned long long)(k * k / 4));
		net_topo_spec_defaults(sp, NET_TOPO_FAT_TREE);
		sp->k = (uint32_t)k;
	} else {
		uint64_t up = tf->t[0].radix_up, racks = h ? tf->nodes / h : 0;

		if (h == 0 || tf->nodes % h != 0)
			return ctl_err(f->c, f->at, "%s: Nodes %llu is not a whole number of tors of Radix_Down %llu",
				       f->name, (unsigned long long)tf->nodes, (unsigned long long)h);
		if ((rc = topo_want(f, tf, 1, 2, racks, "a spine has one link to each tor (Nodes / Tier 0's "
				    "Radix_Down)")) != 0 ||
		    (rc = topo_want(f, tf, 0, 5, up && h % up == 0 ? h / up : 0, "Oversubscribed is a tor's "
				    "Radix_Down / Radix_Up")) != 0 ||
		    (rc = topo_want(f, tf, 1, 5, 1, "a spine is not oversubscribed")) != 0)
			return rc;
		net_topo_spec_defaults(sp, NET_TOPO_LEAF_SPINE);
		sp->hosts_per_rack = (uint32_t)h;
		sp->racks = (uint32_t)racks;
		sp->spines = (uint32_t)up;
	}
	if (!topo_rates(s, nt, b))
		return ctl_err(f->c, f->at, "%s: link speeds %llu, %llu%s%llu Gb/s (Tier 0 up): uetemu runs a link at "
			       "the lower of its two ends' DataRate, and no DataRate per tier gives these", f->name,
			       (unsigned long long)(s[0] / 1000000000), (unsigned long long)(s[1] / 1000000000),
			       nt == 3 ? ", " : "", nt == 3 ? (unsigned long long)(s[2] / 1000000000) : 0);
	/* The host tier is the NIC's: its DataRate, Delay and NSCC's reference rate; the nic section may still
	 * change them. The top tier's Delay is unused (no uplinks). */
	cfg->nic.data_rate_bps = cfg->roce.data_rate_bps = s[0];
	cfg->nic.delay_ps = cfg->roce.delay_ps = tf->t[0].link_ns * 1000;
	cfg->nic.reference_link_bps = s[0];
	for (uint32_t t = 1; t <= nt; t++) {
		sp->bps[t] = b[t];
		sp->delay[t] = t < nt ? tf->t[t].link_ns * 1000 : sp->delay[t];
	}
	sp->bps[0] = sp->delay[0] = 0;
	if (ip_base != NULL)
		sp->ip_base = *ip_base;
	struct net_topo_spec full = *sp;

	full.bps[0] = s[0];
	full.delay[0] = tf->t[0].link_ns * 1000;
	if (net_topo_check(&full, NULL, NULL, why, sizeof(why)) != 0)
		return ctl_err(f->c, f->at, "%s: %s", f->name, why);
	return 0;
}

static int htsim_ip_base(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj)
{
	char msg[256];
	const char *s;
	int rc = ctl_scalar(c, v, "10.0.0.0", &s);

	if (rc == 0 && emu_parse_ipv4(s, obj, msg, sizeof(msg)) != 0)
		rc = ctl_err(c, v, "%s", msg);
	return rc;
}

int ctl_topo_htsim(struct ctl_ctx *c, const struct ctl_ynode *v, struct ctl_config *cfg, struct net_topo **out)
{
	static const struct ctl_key keys[] = { { "type", true, NULL }, { "file", true, NULL },
					       { "ip_base", false, NULL }, { "hosts", false, NULL },
					       { "faults", false, NULL } };
	struct topo_file tf = { 0 };
	struct hs_file f = { .c = c };
	uint32_t ip_base = 0;
	int rc = ctl_walk_map(c, v, keys, sizeof(keys) / sizeof(keys[0]), NULL,
			      "e.g. {type: htsim, file: fat_tree_128.topo}");

	*out = NULL;
	if (rc == 0 && ctl_y_get(v, "ip_base") != NULL) {
		size_t o = ctl_push(c, "ip_base");

		rc = htsim_ip_base(c, ctl_y_get(v, "ip_base"), &ip_base);
		ctl_pop(c, o);
	}
	if (rc != 0)
		return rc;
	size_t old = ctl_push(c, "file");

	f.at = ctl_y_get(v, "file");
	rc = hs_load(&f, "fat_tree_128.topo");
	if (rc == 0)
		rc = topo_read(&f, &tf);
	if (rc == 0)
		rc = topo_map(&f, &tf, cfg, ctl_y_get(v, "ip_base") != NULL ? &ip_base : NULL);
	free(f.text);
	ctl_pop(c, old);
	if (rc != 0)
		return rc;
	return ctl_topo_generated_build(c, v, cfg, out);
}
