/* The Chakra traceset reader: files <prefix>.<rank>.et in one directory; each a varint length and a GlobalMetadata,
 * then a varint length and a Node, to the end of the file (Chakra's protolib encodeMessage/decodeMessage). The
 * bytes are untrusted: every length is checked against what remains before protobuf-c sees it. */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "chakra_et.pb-c.h"
#include "ctl_chakra_trace.h"

#define CTL_CK_VARINT_MAX 10            /* bytes of a 64-bit varint */
#define CTL_CK_MSG_MAX (256u << 20)     /* one message: far above any node, guards the allocation */
#define CTL_CK_FILE_MAX (4096ull << 20) /* one trace file */
/* Read (and inflate) in chunks of this much, the stop flag looked at between them: a 4 GiB file stops within a
 * chunk's time. */
#define CTL_CK_READ_CHUNK (16u << 20)
/* Nodes decoded between two looks at the stop flag. */
#define CTL_CK_HALT_NODES 4096u

static bool halted(const volatile sig_atomic_t *halt)
{
	return halt != NULL && *halt != 0;
}
#define CTL_CK_PG_ATTR "pg:"            /* GlobalMetadata attribute declaring a process group: pg:<name> = its ranks */

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* A varint at @p buf[*off]; returns 0 or -1 (runs past the end or longer than 10 bytes). */
static int varint(const uint8_t *buf, size_t len, size_t *off, uint64_t *v)
{
	*v = 0;
	for (unsigned i = 0; i < CTL_CK_VARINT_MAX; i++) {
		if (*off >= len)
			return -1;
		uint8_t b = buf[(*off)++];

		*v |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80))
			return 0;
	}
	return -1;
}

/* The next message's bytes: *msg, *mlen. Returns 0, 1 at a clean end of file, or -EINVAL (message in err). */
static int next_msg(const uint8_t *buf, size_t len, size_t *off, const uint8_t **msg, size_t *mlen,
		    const char *name, const char *what, char *err, size_t errlen)
{
	size_t at = *off;
	uint64_t l;

	if (*off == len)
		return 1;
	if (varint(buf, len, off, &l))
		return fail(err, errlen, "%s: truncated: the length of %s at byte %zu runs past the end of the file",
			    name, what, at);
	if (l > CTL_CK_MSG_MAX || l > len - *off)
		return fail(err, errlen, "%s: truncated: %s at byte %zu declares %llu bytes, %zu remain", name, what,
			    at, (unsigned long long)l, len - *off);
	*msg = buf + *off, *mlen = (size_t)l;
	*off += (size_t)l;
	return 0;
}

/* An integer-valued attribute, whatever integer type the writer chose. Returns 0 or -1 (not an integer). */
static int attr_int(const Uetchakra__AttributeProto *a, int64_t *v)
{
	switch ((int)a->value_case) { /* (int): -Wswitch-enum would want every case of the generated enum */
	case UETCHAKRA__ATTRIBUTE_PROTO__VALUE_INT32_VAL: *v = a->int32_val; return 0;
	case UETCHAKRA__ATTRIBUTE_PROTO__VALUE_INT64_VAL: *v = a->int64_val; return 0;
	case UETCHAKRA__ATTRIBUTE_PROTO__VALUE_UINT32_VAL: *v = a->uint32_val; return 0;
	case UETCHAKRA__ATTRIBUTE_PROTO__VALUE_UINT64_VAL: *v = (int64_t)a->uint64_val; return a->uint64_val >> 63 ? -1 : 0;
	case UETCHAKRA__ATTRIBUTE_PROTO__VALUE_SINT32_VAL: *v = a->sint32_val; return 0;
	case UETCHAKRA__ATTRIBUTE_PROTO__VALUE_SINT64_VAL: *v = a->sint64_val; return 0;
	case UETCHAKRA__ATTRIBUTE_PROTO__VALUE_FIXED32_VAL: *v = a->fixed32_val; return 0;
	case UETCHAKRA__ATTRIBUTE_PROTO__VALUE_FIXED64_VAL: *v = (int64_t)a->fixed64_val; return a->fixed64_val >> 63 ? -1 : 0;
	case UETCHAKRA__ATTRIBUTE_PROTO__VALUE_SFIXED32_VAL: *v = a->sfixed32_val; return 0;
	case UETCHAKRA__ATTRIBUTE_PROTO__VALUE_SFIXED64_VAL: *v = a->sfixed64_val; return 0;
	case UETCHAKRA__ATTRIBUTE_PROTO__VALUE_BOOL_VAL: *v = a->bool_val; return 0;
	default: return -1;
	}
}

/* The ranks of an integer-list attribute into a malloc'd array. Returns the count, -1 (not a list), -ENOMEM. */
static long attr_ranks(const Uetchakra__AttributeProto *a, uint32_t **out)
{
	size_t n;
	const int64_t *i64 = NULL;
	const int32_t *i32 = NULL;
	const uint32_t *u32 = NULL;
	const uint64_t *u64 = NULL;

	switch ((int)a->value_case) {
	case UETCHAKRA__ATTRIBUTE_PROTO__VALUE_INT64_LIST: n = a->int64_list->n_values, i64 = a->int64_list->values; break;
	case UETCHAKRA__ATTRIBUTE_PROTO__VALUE_INT32_LIST: n = a->int32_list->n_values, i32 = a->int32_list->values; break;
	case UETCHAKRA__ATTRIBUTE_PROTO__VALUE_UINT32_LIST: n = a->uint32_list->n_values, u32 = a->uint32_list->values; break;
	case UETCHAKRA__ATTRIBUTE_PROTO__VALUE_UINT64_LIST: n = a->uint64_list->n_values, u64 = a->uint64_list->values; break;
	default: return -1;
	}
	*out = malloc((n ? n : 1) * sizeof(**out));
	if (!*out)
		return -ENOMEM;
	for (size_t k = 0; k < n; k++) {
		int64_t v = i64 ? i64[k] : i32 ? i32[k] : u32 ? (int64_t)u32[k] : (int64_t)u64[k];

		if (v < 0 || v > UINT32_MAX) {
			free(*out);
			return -1;
		}
		(*out)[k] = (uint32_t)v;
	}
	return (long)n;
}

/* Check @p n ranks (taken over: freed on error) of process group @p pg: in range, none twice. */
static int check_ranks(const struct app_ck_set *set, const char *name, const char *pg, uint32_t *ranks, long n,
		       char *err, size_t errlen)
{
	for (long k = 0; k < n; k++) {
		uint32_t bad = ranks[k];
		int dup = 0;

		for (long j = 0; j < k; j++)
			dup |= ranks[j] == bad;
		if (bad >= set->n_ranks || dup) {
			free(ranks);
			return fail(err, errlen, "%s: process group %s: rank %u is %s", name, pg, bad,
				    dup ? "listed twice" : "not a rank of the traceset");
		}
	}
	return 0;
}

/* Process group @p pg has the @p n ranks @p ranks (taken over), from @p src (enum app_ck_pg_src): a new group, a
 * stronger source than the one it had (a communicator record over a collective's involved_ranks over a bare
 * pg_name), or the same ranks as the same kind of source gave before. */
static int set_pg(struct app_ck_set *set, const char *name, const char *pg, uint32_t *ranks, long n, uint8_t src,
		  char *err, size_t errlen)
{
	int ix, rc = check_ranks(set, name, pg, ranks, n, err, errlen);

	if (rc)
		return rc;
	ix = app_ck_set_find_pg(set, pg);
	if (ix == APP_CK_NONE) {
		ix = app_ck_set_add_pg(set, pg, ranks, (uint32_t)n);
		if (ix < 0)
			free(ranks);
		else
			set->pgs[ix].src = src;
		return ix < 0 ? ix : 0;
	}
	struct app_ck_pg *g = &set->pgs[ix];

	if (g->src > src) { /* enum app_ck_pg_src: the lower, the stronger */
		free(g->ranks);
		g->ranks = ranks, g->n = (uint32_t)n, g->src = src;
		return 0;
	}
	int same = g->src < src || (g->n == (uint32_t)n && memcmp(g->ranks, ranks, (size_t)n * sizeof(*ranks)) == 0);

	free(ranks);
	if (same)
		return 0;
	return fail(err, errlen, src == APP_CK_PG_DECLARED ? "%s: process group %s: its ranks differ from another "
							     "file's declaration"
							   : "%s: process group %s: its involved_ranks differ from "
							     "another collective's", name, pg);
}

/* One pg:<name> declaration: new, or the same ranks as another file declared. */
static int declare_pg(struct app_ck_set *set, const char *name, const Uetchakra__AttributeProto *a, char *err,
		      size_t errlen)
{
	const char *pg = a->name + strlen(CTL_CK_PG_ATTR);
	uint32_t *ranks;
	long n = attr_ranks(a, &ranks);

	if (n == -ENOMEM)
		return -ENOMEM;
	if (n >= 0 && (n == 0 || strlen(pg) == 0 || strlen(pg) >= sizeof(set->pgs[0].name)))
		free(ranks);
	if (n <= 0 || strlen(pg) == 0 || strlen(pg) >= sizeof(set->pgs[0].name))
		return fail(err, errlen, "%s: GlobalMetadata attribute %s: a process group needs a name (under 64 "
					 "characters) and a non-empty list of ranks", name, a->name);
	return set_pg(set, name, pg, ranks, n, APP_CK_PG_DECLARED, err, errlen);
}

/* The major number of a version string ("1.0.2" -> 1); -1 when it does not start with digits and a dot or its
 * end. */
static long version_major(const char *v)
{
	long m = 0;
	size_t i;

	for (i = 0; v[i] >= '0' && v[i] <= '9' && i < 6; i++)
		m = m * 10 + (v[i] - '0');
	return i == 0 || (v[i] && v[i] != '.' && v[i] != '-') ? -1 : m;
}

/* The ET schema version: GlobalMetadata.version (Chakra's generator writes "1.0.0", older ones "0.0.4"), else the
 * chakra part of the attribute schema Chakra's PyTorch converter writes ("1.0.2-chakra.0.0.4": PyTorch's host
 * trace schema, then Chakra's), else that attribute as it is (the older converter's "1.0.1", PyTorch's). uetemu
 * reads Chakra 0.x and 1.x (one wire format, et_def.proto) and PyTorch host schemas 1.x. */
static int check_version(struct app_ck_set *set, const char *name, const char *version, const char *schema,
			 char *err, size_t errlen)
{
	const char *ck = schema ? strstr(schema, "-chakra.") : NULL;
	const char *v = version && version[0] ? version : ck ? ck + strlen("-chakra.") : schema;
	const char *what = version && version[0] ? "Chakra ET schema version %s (GlobalMetadata version)"
			   : ck ? "Chakra ET schema version %s (the chakra part of GlobalMetadata attribute schema)"
				: "PyTorch execution-trace schema %s (GlobalMetadata attribute schema)";
	char say[200];

	if (!v || !v[0])
		return 0;
	if (version_major(v) >= 0 && version_major(v) <= 1) {
		if (!set->version[0]) {
			snprintf(set->version, sizeof(set->version), "%s", version && version[0] ? version : schema);
			for (char *c = set->version; *c; c++) /* the trace's bytes: printable in the summary */
				if (*c < 0x20 || *c > 0x7e)
					*c = '?';
		}
		return 0;
	}
	snprintf(say, sizeof(say), what, v);
	return fail(err, errlen, "%s: %s: uetemu reads Chakra ET schema versions 0.x and 1.x (et_def.proto) and the "
				 "PyTorch host schemas 1.x Chakra's converter reads", name, say);
}

static int read_meta(struct app_ck_set *set, const char *name, const uint8_t *m, size_t ml, char *err, size_t errlen)
{
	Uetchakra__GlobalMetadata *g = uetchakra__global_metadata__unpack(NULL, ml, m);
	const char *schema = NULL;
	int rc = 0;

	if (!g)
		return fail(err, errlen, "%s: not a Chakra trace: the first message is not a GlobalMetadata", name);
	for (size_t i = 0; i < g->n_attr && !rc; i++) {
		const Uetchakra__AttributeProto *a = g->attr[i];
		char ign[64];

		if (strncmp(a->name, CTL_CK_PG_ATTR, strlen(CTL_CK_PG_ATTR)) == 0) {
			rc = declare_pg(set, name, a, err, errlen);
		} else if (strcmp(a->name, "schema") == 0) {
			if (a->value_case != UETCHAKRA__ATTRIBUTE_PROTO__VALUE_STRING_VAL)
				rc = fail(err, errlen, "%s: GlobalMetadata attribute schema must be a string", name);
			else
				schema = a->string_val;
		} else {
			snprintf(ign, sizeof(ign), "GlobalMetadata.%s", a->name);
			app_ck_set_ignore(set, ign);
		}
	}
	if (!rc)
		rc = check_version(set, name, g->version, schema, err, errlen);
	uetchakra__global_metadata__free_unpacked(g, NULL);
	return rc;
}

/* A bounded scan of one communicator record's text: the integer after "key": at or after @p p, before @p end. */
static const char *rec_key(const char *p, const char *end, const char *key)
{
	size_t kl = strlen(key);

	for (; p + kl + 2 <= end; p++)
		if (p[0] == '"' && memcmp(p + 1, key, kl) == 0 && p[kl + 1] == '"') {
			p += kl + 2;
			while (p < end && (*p == ' ' || *p == ':'))
				p++;
			return p;
		}
	return NULL;
}

/* The communicator records of Chakra's PyTorch converter: the METADATA node "## process_group:init ##" it
 * converts from PyTorch's execution trace holds, in inputs.values, PyTorch's process-group list as JSON inside a
 * Python list's text: [{"pg_name": "0", "pg_desc": "default_pg", "backend_config": "cuda:nccl", "pg_size": 8,
 * "ranks": []}, ...] ("ranks" empty: every rank). Each record declares its group. */
static int read_records(struct app_ck_set *set, const char *name, const char *text, char *err, size_t errlen)
{
	const char *p = text, *end = text + strlen(text);
	int rc = 0;

	while (!rc && (p = rec_key(p, end, "pg_name"))) {
		const char *ob = p, *oe = p, *v;
		char pg[64];
		size_t k = 0;
		long n = 0, size = -1;
		uint32_t *ranks;

		while (ob > text && *ob != '{')
			ob--;
		while (oe < end && *oe != '}')
			oe++;
		if (p < oe && *p == '"')
			for (p++; p < oe && *p != '"' && k + 1 < sizeof(pg); p++)
				pg[k++] = *p;
		pg[k] = 0;
		if (!k || p >= oe || *p != '"')
			return fail(err, errlen, "%s: a communicator record (## process_group:init ##) has a pg_name that "
						 "is no string of 1 to 63 characters", name);
		v = rec_key(ob, oe, "pg_size");
		if (v && *v >= '0' && *v <= '9')
			size = strtol(v, NULL, 10);
		ranks = malloc((set->n_ranks + 1) * sizeof(*ranks));
		if (!ranks)
			return -ENOMEM;
		v = rec_key(ob, oe, "ranks");
		if (v && v < oe && *v == '[') {
			for (v++; v < oe && *v != ']';) {
				char *e;
				long r = strtol(v, &e, 10);

				if (e == v || r < 0 || r >= (long)set->n_ranks || n >= (long)set->n_ranks) {
					free(ranks);
					return fail(err, errlen, "%s: communicator record of process group %s: its ranks "
								 "are no list of ranks of the %u-rank traceset", name, pg,
						    set->n_ranks);
				}
				ranks[n++] = (uint32_t)r;
				for (v = e; v < oe && (*v == ',' || *v == ' '); v++)
					;
			}
		}
		if (n == 0) { /* every rank */
			if (size >= 0 && size != (long)set->n_ranks) {
				free(ranks);
				return fail(err, errlen, "%s: communicator record of process group %s: pg_size %ld and "
							 "no ranks (every rank), but the traceset has %u ranks", name, pg,
					    size, set->n_ranks);
			}
			for (uint32_t r = 0; r < set->n_ranks; r++)
				ranks[n++] = r;
		}
		rc = set_pg(set, name, pg, ranks, n, APP_CK_PG_DECLARED, err, errlen);
		p = oe;
	}
	return rc;
}

/* The communication attributes of one node; @p inv receives its involved_ranks (malloc'd), *@p n_inv their count. */
static int node_attr(struct app_ck_set *set, struct app_ck_node *n, const Uetchakra__AttributeProto *a,
		     const char *name, uint32_t **inv, long *n_inv, char *err, size_t errlen)
{
	static const char *const ints[] = {"comm_type", "comm_size", "comm_src", "comm_dst", "comm_tag",
					   "is_cpu_op", "root_rank", "seq_id"};
	int64_t v = 0;
	int k;

	if (strcmp(a->name, "pg_name") == 0) {
		if (a->value_case != UETCHAKRA__ATTRIBUTE_PROTO__VALUE_STRING_VAL)
			return fail(err, errlen, "%s: node %llu: attribute pg_name must be a string", name,
				    (unsigned long long)n->id);
		if (strlen(a->string_val) == 0 || strlen(a->string_val) >= sizeof(set->pgs[0].name))
			return fail(err, errlen, "%s: node %llu: pg_name '%.80s' is not a name of 1 to 63 characters",
				    name, (unsigned long long)n->id, a->string_val);
		n->pg = app_ck_set_find_pg(set, a->string_val);
		if (n->pg == APP_CK_NONE) { /* named, members not known yet: a record, involved_ranks or the world */
			n->pg = app_ck_set_add_pg(set, a->string_val, NULL, 0);
			if (n->pg >= 0)
				set->pgs[n->pg].src = APP_CK_PG_NAMED;
		}
		return n->pg < 0 ? n->pg : 0;
	}
	if (strcmp(a->name, "involved_ranks") == 0 && !*inv) {
		*n_inv = attr_ranks(a, inv);
		if (*n_inv == -ENOMEM)
			return -ENOMEM;
		if (*n_inv <= 0) {
			if (*n_inv == 0)
				free(*inv);
			*inv = NULL;
			return fail(err, errlen, "%s: node %llu: attribute involved_ranks must be a non-empty list of "
						 "ranks", name, (unsigned long long)n->id);
		}
		return 0;
	}
	for (k = 0; k < (int)(sizeof(ints) / sizeof(ints[0])) && strcmp(a->name, ints[k]); k++)
		;
	if (k == (int)(sizeof(ints) / sizeof(ints[0]))) {
		app_ck_set_ignore(set, a->name); /* an attribute the replay does not use */
		return 0;
	}
	if (attr_int(a, &v))
		return fail(err, errlen, "%s: node %llu: attribute %s must be an integer", name,
			    (unsigned long long)n->id, a->name);
	switch (k) {
	case 0:
		if (v < 0 || v >= APP_CK_COLL_COUNT)
			return fail(err, errlen, "%s: node %llu: comm_type %lld is not a collective type", name,
				    (unsigned long long)n->id, (long long)v);
		n->coll = (uint8_t)v, n->has_coll = 1;
		return 0;
	case 1:
		if (v < 0)
			return fail(err, errlen, "%s: node %llu: comm_size %lld is negative", name,
				    (unsigned long long)n->id, (long long)v);
		n->bytes = (uint64_t)v, n->has_size = 1;
		return 0;
	case 2: case 3: case 6:
		if (v < 0 || v >= (int64_t)set->n_ranks)
			return fail(err, errlen, "%s: node %llu: %s %lld is not a rank of the %u-rank traceset", name,
				    (unsigned long long)n->id, a->name, (long long)v, set->n_ranks);
		if (k == 6)
			n->root = (int32_t)v;
		else if ((k == 2) == (n->kind == APP_CK_RECV))
			n->peer = (int32_t)v;
		return 0;
	case 4: n->tag = v; return 0;
	case 5: n->is_cpu = v != 0; return 0;
	default: n->seq = v; return 0;
	}
}

/* What a node carries that the replay does not use, counted; and the communicator records it may hold. */
static int node_extra(struct app_ck_set *set, const Uetchakra__Node *pn, const char *name, char *err, size_t errlen)
{
	static const char *const types[] = {"STORAGE_NODE", "BATCH_NODE", "CHECKPOINT_NODE"};
	int rec = pn->type == UETCHAKRA__NODE_TYPE__METADATA_NODE && pn->name &&
		  strstr(pn->name, "process_group:init") && pn->inputs && pn->inputs->values;

	if ((int)pn->type > APP_CK_COLL && (int)pn->type <= APP_CK_KIND_MAX)
		app_ck_set_ignore(set, types[(int)pn->type - APP_CK_COLL - 1]);
	if (pn->start_time_micros)
		app_ck_set_ignore(set, "Node.start_time_micros");
	if (pn->inputs && !rec)
		app_ck_set_ignore(set, "Node.inputs");
	if (pn->outputs)
		app_ck_set_ignore(set, "Node.outputs");
	return rec ? read_records(set, name, pn->inputs->values, err, errlen) : 0;
}

static int read_node(struct app_ck_set *set, struct app_ck_trace *t, const uint8_t *m, size_t ml, uint32_t k,
		     char *err, size_t errlen)
{
	Uetchakra__Node *pn = uetchakra__node__unpack(NULL, ml, m);
	struct app_ck_node n = {.peer = APP_CK_NONE, .root = APP_CK_NONE, .pg = APP_CK_NONE, .seq = APP_CK_NONE,
				.coll_id = APP_CK_NONE};
	uint32_t *inv = NULL;
	long n_inv = 0;
	int rc = 0;

	if (!pn)
		return fail(err, errlen, "%s: node message %u (after %u good nodes): not a valid Node", t->file, k + 1,
			    k);
	n.id = pn->id;
	n.dur_us = pn->duration_micros;
	if ((int)pn->type <= 0 || (int)pn->type > APP_CK_KIND_MAX)
		rc = fail(err, errlen, "%s: node %llu: node type %d is not one Chakra defines", t->file,
			  (unsigned long long)n.id, (int)pn->type);
	n.kind = (uint8_t)pn->type;
	for (size_t i = 0; i < pn->n_attr && !rc; i++)
		rc = node_attr(set, &n, pn->attr[i], t->file, &inv, &n_inv, err, errlen);
	if (!rc && inv && n.pg != APP_CK_NONE && n.kind == APP_CK_COLL)
		rc = set_pg(set, t->file, set->pgs[n.pg].name, inv, n_inv, APP_CK_PG_INVOLVED, err, errlen);
	else if (inv) {
		free(inv);
		app_ck_set_ignore(set, "involved_ranks");
	}
	if (!rc)
		rc = node_extra(set, pn, t->file, err, errlen);
	if (!rc && (pn->n_ctrl_deps > UINT32_MAX / 2 || pn->n_data_deps > UINT32_MAX / 2))
		rc = fail(err, errlen, "%s: node %llu: too many dependencies", t->file, (unsigned long long)n.id);
	n.n_deps = (uint32_t)(pn->n_ctrl_deps + pn->n_data_deps);
	n.n_ctrl = (uint32_t)pn->n_ctrl_deps;
	if (!rc && n.n_deps) {
		n.deps = malloc(n.n_deps * sizeof(*n.deps));
		rc = n.deps ? 0 : -ENOMEM;
	}
	if (!rc && pn->n_ctrl_deps)
		memcpy(n.deps, pn->ctrl_deps, pn->n_ctrl_deps * sizeof(*n.deps));
	if (!rc && pn->n_data_deps)
		memcpy(n.deps + pn->n_ctrl_deps, pn->data_deps, pn->n_data_deps * sizeof(*n.deps));
	if (!rc && (n.kind == APP_CK_SEND || n.kind == APP_CK_RECV) && n.peer == APP_CK_NONE)
		rc = fail(err, errlen, "%s: node %llu: a %s needs its partner rank (%s)", t->file,
			  (unsigned long long)n.id, n.kind == APP_CK_SEND ? "send" : "receive",
			  n.kind == APP_CK_SEND ? "comm_dst" : "comm_src");
	if (!rc)
		rc = app_ck_trace_add(t, &n);
	else
		free(n.deps);
	uetchakra__node__free_unpacked(pn, NULL);
	return rc;
}

static int decode(struct app_ck_set *set, uint32_t rank, const char *name, const uint8_t *buf, size_t len,
		  const volatile sig_atomic_t *halt, char *err, size_t errlen)
{
	struct app_ck_trace *t = &set->ranks[rank];
	const uint8_t *m;
	size_t ml, off = 0;
	int rc;

	snprintf(t->file, sizeof(t->file), "%s", name);
	rc = next_msg(buf, len, &off, &m, &ml, name, "the GlobalMetadata", err, errlen);
	if (rc == 1)
		return fail(err, errlen, "%s: not a Chakra trace: the file is empty", name);
	if (rc)
		return fail(err, errlen, "%s: not a Chakra trace: its first bytes are no length-delimited GlobalMetadata "
					 "(%zu bytes in the file)", name, len);
	if (!rc)
		rc = read_meta(set, name, m, ml, err, errlen);
	for (uint32_t k = 0; !rc; k++) {
		char what[48];

		if (k % CTL_CK_HALT_NODES == CTL_CK_HALT_NODES - 1 && halted(halt))
			return -EINTR;
		snprintf(what, sizeof(what), "node message %u", k + 1);
		rc = next_msg(buf, len, &off, &m, &ml, name, what, err, errlen);
		if (rc == 1)
			return 0;
		if (!rc)
			rc = read_node(set, t, m, ml, k, err, errlen);
	}
	return rc;
}

int ctl_chakra_decode(struct app_ck_set *set, uint32_t rank, const char *name, const uint8_t *buf, size_t len,
		      char *err, size_t errlen)
{
	return decode(set, rank, name, buf, len, NULL, err, errlen);
}

/* "<prefix>.<rank>.et": the rank, or -1 when the name is not a trace file's. @p plen receives the prefix length. */
static long file_rank(const char *f, size_t *plen)
{
	size_t n = strlen(f), d;
	long r = 0;

	if (n < 4 || strcmp(f + n - 3, ".et") != 0)
		return -1;
	for (d = n - 3; d > 0 && f[d - 1] >= '0' && f[d - 1] <= '9'; d--)
		;
	if (d == n - 3 || d < 2 || f[d - 1] != '.' || n - 3 - d > 6)
		return -1;
	for (size_t i = d; i < n - 3; i++)
		r = r * 10 + (f[i] - '0');
	*plen = d - 1;
	return r;
}

/* A gzip-compressed file (its first bytes 1f 8b, as Chakra's reader tells): *buf and *len replaced by what it
 * inflates to, at most CTL_CK_FILE_MAX bytes; members one after another are read as one file. */
static int gunzip(const char *path, uint8_t **buf, size_t *len, const volatile sig_atomic_t *halt, char *err,
		  size_t errlen)
{
	z_stream z;
	size_t cap = *len * 4 + 4096, out = 0;
	uint8_t *o = malloc(cap);
	int zr = Z_OK;

	memset(&z, 0, sizeof(z));
	if (!o || inflateInit2(&z, 15 + 32) != Z_OK) {
		free(o);
		return -ENOMEM;
	}
	z.next_in = *buf, z.avail_in = 0;
	size_t in_left = *len;

	for (;;) {
		if (z.avail_in == 0 && in_left) {
			z.avail_in = in_left > (1u << 30) ? 1u << 30 : (uInt)in_left;
			in_left -= z.avail_in;
		}
		if (out == cap) {
			size_t nc = cap * 2 > CTL_CK_FILE_MAX ? (size_t)CTL_CK_FILE_MAX : cap * 2;
			uint8_t *v = nc > cap ? realloc(o, nc) : NULL;

			if (!v) {
				inflateEnd(&z);
				free(o);
				return nc > cap ? -ENOMEM
						: fail(err, errlen, "%s: inflates past %llu bytes, more than a trace file "
								    "may hold", path, (unsigned long long)CTL_CK_FILE_MAX);
			}
			o = v, cap = nc;
		}
		if (halted(halt)) {
			inflateEnd(&z);
			free(o);
			return -EINTR;
		}
		z.next_out = o + out;
		z.avail_out = cap - out > CTL_CK_READ_CHUNK ? CTL_CK_READ_CHUNK : (uInt)(cap - out);
		size_t before = z.avail_out;

		zr = inflate(&z, Z_NO_FLUSH);
		out += before - z.avail_out;
		if (zr == Z_STREAM_END) {
			if (z.avail_in == 0 && in_left == 0)
				break;
			zr = inflateReset(&z); /* the next member */
			if (zr != Z_OK)
				break;
			continue;
		}
		if (zr != Z_OK && !(zr == Z_BUF_ERROR && z.avail_out == 0))
			break;
		if (zr == Z_OK && z.avail_in == 0 && in_left == 0 && z.avail_out != 0) {
			zr = Z_DATA_ERROR; /* input ended inside the stream */
			break;
		}
	}
	inflateEnd(&z);
	if (zr != Z_STREAM_END) {
		free(o);
		return fail(err, errlen, "%s: a gzip file that does not inflate: %s", path,
			    zr == Z_DATA_ERROR || zr == Z_BUF_ERROR ? "corrupt or truncated" : "zlib error");
	}
	free(*buf);
	*buf = o, *len = out;
	return 0;
}

static int read_file(const char *path, uint8_t **buf, size_t *len, int *gz, const volatile sig_atomic_t *halt,
		     char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	struct stat st;

	*buf = NULL;
	*gz = 0;
	if (!f || fstat(fileno(f), &st) || !S_ISREG(st.st_mode) || (unsigned long long)st.st_size > CTL_CK_FILE_MAX) {
		int e = f ? EFBIG : errno;

		if (f)
			fclose(f);
		return fail(err, errlen, "%s: cannot read: %s", path, strerror(e));
	}
	*len = (size_t)st.st_size;
	*buf = malloc(*len ? *len : 1);
	size_t got = 0;

	while (*buf && got < *len && !halted(halt)) {
		size_t n = *len - got < CTL_CK_READ_CHUNK ? *len - got : CTL_CK_READ_CHUNK;

		if (fread(*buf + got, 1, n, f) != n)
			break;
		got += n;
	}
	fclose(f);
	if (*buf && got < *len && halted(halt)) {
		free(*buf);
		*buf = NULL;
		return -EINTR;
	}
	if (!*buf || got != *len) {
		free(*buf);
		*buf = NULL;
		return fail(err, errlen, "%s: cannot read the whole file", path);
	}
	if (*len >= 2 && (*buf)[0] == 0x1f && (*buf)[1] == 0x8b) {
		int rc = gunzip(path, buf, len, halt, err, errlen);

		if (rc) {
			free(*buf);
			*buf = NULL;
			return rc;
		}
		*gz = 1;
	}
	return 0;
}

/* List the directory: every rank's file name into names[rank] (malloc'd), the count into *n. */
static int scan(const char *dir, char ***names, uint32_t *n, char *prefix, size_t plen_max, char *err, size_t errlen)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	uint32_t cap = 0;
	long maxr = -1;
	int rc = 0;

	*names = NULL, *n = 0;
	if (!d)
		return fail(err, errlen, "traceset %s: cannot open the directory: %s", dir, strerror(errno));
	while (!rc && (e = readdir(d))) {
		size_t plen;
		long r = file_rank(e->d_name, &plen);

		if (r < 0)
			continue;
		if (*n == 0) {
			if (plen >= plen_max)
				plen = plen_max - 1;
			memcpy(prefix, e->d_name, plen), prefix[plen] = 0;
		} else if (strncmp(prefix, e->d_name, plen) || prefix[plen]) {
			rc = fail(err, errlen, "traceset %s: %s and %s.*.et: every rank's file must share one prefix",
				  dir, e->d_name, prefix);
			break;
		}
		if ((uint32_t)r >= cap) {
			uint32_t nc = (uint32_t)r + 16;
			char **v = realloc(*names, nc * sizeof(*v));

			if (!v) {
				rc = -ENOMEM;
				break;
			}
			memset(v + cap, 0, (nc - cap) * sizeof(*v));
			*names = v, cap = nc;
		}
		if ((*names)[r])
			rc = fail(err, errlen, "traceset %s: two files for rank %ld", dir, r);
		else if (!((*names)[r] = strdup(e->d_name)))
			rc = -ENOMEM;
		(*n)++;
		maxr = r > maxr ? r : maxr;
	}
	closedir(d);
	if (!rc && *n == 0)
		rc = fail(err, errlen, "traceset %s: no trace files (<prefix>.<rank>.et) in the directory", dir);
	for (long r = 0; !rc && r <= maxr; r++)
		if (!(*names)[r])
			rc = fail(err, errlen, "traceset %s: rank %ld's file %s.%ld.et is missing (ranks run 0 to %ld)",
				  dir, r, prefix, r, maxr);
	return rc;
}

int ctl_chakra_resolve_pgs(struct app_ck_set *set)
{
	for (uint32_t g = 0; g < set->n_pgs; g++) {
		struct app_ck_pg *p = &set->pgs[g];

		if (p->src != APP_CK_PG_NAMED || p->n)
			continue;
		p->ranks = malloc((set->n_ranks ? set->n_ranks : 1) * sizeof(*p->ranks));
		if (!p->ranks)
			return -ENOMEM;
		for (uint32_t r = 0; r < set->n_ranks; r++)
			p->ranks[r] = r;
		p->n = set->n_ranks;
		set->pg_world++;
	}
	return 0;
}

int ctl_chakra_load(const char *dir, uint32_t want_ranks, struct app_ck_set *set, const volatile sig_atomic_t *halt,
		    char *err, size_t errlen)
{
	char **names = NULL, prefix[128] = "", path[4096];
	uint32_t n = 0;
	int rc = scan(dir, &names, &n, prefix, sizeof(prefix), err, errlen);

	memset(set, 0, sizeof(*set));
	if (!rc && want_ranks && n != want_ranks)
		rc = fail(err, errlen, "traceset %s has %u ranks; NumOfChakraFiles and the topology's servers are %u",
			  dir, n, want_ranks);
	if (!rc)
		rc = app_ck_set_init(set, n);
	if (!rc)
		snprintf(set->prefix, sizeof(set->prefix), "%s", prefix);
	for (uint32_t r = 0; !rc && r < n; r++) {
		uint8_t *buf = NULL;
		size_t len = 0;

		int gz = 0;

		snprintf(path, sizeof(path), "%s/%s", dir, names[r]);
		rc = halted(halt) ? -EINTR : read_file(path, &buf, &len, &gz, halt, err, errlen);
		if (!rc)
			rc = decode(set, r, path, buf, len, halt, err, errlen);
		set->gz_files += (uint32_t)gz;
		free(buf);
	}
	if (!rc)
		rc = ctl_chakra_resolve_pgs(set);
	if (rc == -ENOMEM)
		snprintf(err, errlen, "traceset %s: out of memory", dir);
	for (uint32_t r = 0; names && r < n; r++)
		free(names[r]);
	free(names);
	return rc;
}
