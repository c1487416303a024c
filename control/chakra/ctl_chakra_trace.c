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

#include "chakra_et.pb-c.h"
#include "ctl_chakra_trace.h"

#define CTL_CK_VARINT_MAX 10            /* bytes of a 64-bit varint */
#define CTL_CK_MSG_MAX (256u << 20)     /* one message: far above any node, guards the allocation */
#define CTL_CK_FILE_MAX (4096ull << 20) /* one trace file */
/* Read in chunks of this much, the stop flag looked at between them: a 4 GiB file stops within a chunk's time. */
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

/* One pg:<name> declaration: new, or the same ranks as another file declared. */
static int declare_pg(struct app_ck_set *set, const char *name, const Uetchakra__AttributeProto *a, char *err,
		      size_t errlen)
{
	const char *pg = a->name + strlen(CTL_CK_PG_ATTR);
	uint32_t *ranks;
	long n = attr_ranks(a, &ranks);
	int ix;

	if (n == -ENOMEM)
		return -ENOMEM;
	if (n >= 0 && (n == 0 || strlen(pg) == 0 || strlen(pg) >= sizeof(set->pgs[0].name)))
		free(ranks);
	if (n <= 0 || strlen(pg) == 0 || strlen(pg) >= sizeof(set->pgs[0].name))
		return fail(err, errlen, "%s: GlobalMetadata attribute %s: a process group needs a name (under 64 "
					 "characters) and a non-empty list of ranks", name, a->name);
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
	ix = app_ck_set_find_pg(set, pg);
	if (ix != APP_CK_NONE) {
		const struct app_ck_pg *g = &set->pgs[ix];
		int same = g->n == (uint32_t)n && memcmp(g->ranks, ranks, (size_t)n * sizeof(*ranks)) == 0;

		free(ranks);
		return same ? 0 : fail(err, errlen, "%s: process group %s: its ranks differ from another file's "
						     "declaration", name, pg);
	}
	ix = app_ck_set_add_pg(set, pg, ranks, (uint32_t)n);
	if (ix < 0)
		free(ranks);
	return ix < 0 ? ix : 0;
}

static int read_meta(struct app_ck_set *set, const char *name, const uint8_t *m, size_t ml, char *err, size_t errlen)
{
	Uetchakra__GlobalMetadata *g = uetchakra__global_metadata__unpack(NULL, ml, m);
	int rc = 0;

	if (!g)
		return fail(err, errlen, "%s: not a Chakra trace: the first message is not a GlobalMetadata", name);
	for (size_t i = 0; i < g->n_attr && !rc; i++)
		if (strncmp(g->attr[i]->name, CTL_CK_PG_ATTR, strlen(CTL_CK_PG_ATTR)) == 0)
			rc = declare_pg(set, name, g->attr[i], err, errlen);
	uetchakra__global_metadata__free_unpacked(g, NULL);
	return rc;
}

/* The communication attributes of one node. */
static int node_attr(struct app_ck_set *set, struct app_ck_node *n, const Uetchakra__AttributeProto *a,
		     const char *name, char *err, size_t errlen)
{
	static const char *const ints[] = {"comm_type", "comm_size", "comm_src", "comm_dst", "comm_tag",
					   "is_cpu_op", "root_rank", "seq_id"};
	int64_t v = 0;
	int k;

	if (strcmp(a->name, "pg_name") == 0) {
		if (a->value_case != UETCHAKRA__ATTRIBUTE_PROTO__VALUE_STRING_VAL)
			return fail(err, errlen, "%s: node %llu: attribute pg_name must be a string", name,
				    (unsigned long long)n->id);
		n->pg = app_ck_set_find_pg(set, a->string_val);
		if (n->pg == APP_CK_NONE)
			return fail(err, errlen, "%s: node %llu: process group %s is not declared in the file's "
						 "GlobalMetadata", name, (unsigned long long)n->id, a->string_val);
		return 0;
	}
	for (k = 0; k < (int)(sizeof(ints) / sizeof(ints[0])) && strcmp(a->name, ints[k]); k++)
		;
	if (k == (int)(sizeof(ints) / sizeof(ints[0])))
		return 0; /* an attribute the replay does not use */
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

static int read_node(struct app_ck_set *set, struct app_ck_trace *t, const uint8_t *m, size_t ml, uint32_t k,
		     char *err, size_t errlen)
{
	Uetchakra__Node *pn = uetchakra__node__unpack(NULL, ml, m);
	struct app_ck_node n = {.peer = APP_CK_NONE, .root = APP_CK_NONE, .pg = APP_CK_NONE, .seq = APP_CK_NONE,
				.coll_id = APP_CK_NONE};
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
		rc = node_attr(set, &n, pn->attr[i], t->file, err, errlen);
	n.n_deps = (uint32_t)(pn->n_ctrl_deps + pn->n_data_deps);
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

static int read_file(const char *path, uint8_t **buf, size_t *len, const volatile sig_atomic_t *halt, char *err,
		     size_t errlen)
{
	FILE *f = fopen(path, "rb");
	struct stat st;

	*buf = NULL;
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

		snprintf(path, sizeof(path), "%s/%s", dir, names[r]);
		rc = halted(halt) ? -EINTR : read_file(path, &buf, &len, halt, err, errlen);
		if (!rc)
			rc = decode(set, r, path, buf, len, halt, err, errlen);
		free(buf);
	}
	if (rc == -ENOMEM)
		snprintf(err, errlen, "traceset %s: out of memory", dir);
	for (uint32_t r = 0; names && r < n; r++)
		free(names[r]);
	free(names);
	return rc;
}
