/* A Chakra traceset in memory: traces, process groups, names of collectives and algorithms, the defaults of the
 * configuration page. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_chakra.h"

static const char *const coll_names[] = {
#define X(id, name, attr) name,
	APP_CK_COLLS(X)
#undef X
};
static const char *const coll_attrs[] = {
#define X(id, name, attr) attr,
	APP_CK_COLLS(X)
#undef X
};
static const char *const algo_names[] = {
#define X(id, name) name,
	APP_CK_ALGOS(X)
#undef X
};
_Static_assert(sizeof(coll_names) / sizeof(coll_names[0]) == APP_CK_COLL_COUNT, "collective names");
_Static_assert(sizeof(algo_names) / sizeof(algo_names[0]) == APP_CK_ALGO_COUNT, "algorithm names");

#define A(x) (1u << APP_CK_ALGO_##x)
/* The configuration page's allowed values per collective type, in enum app_ck_coll order. */
static const uint32_t allowed[APP_CK_COLL_COUNT] = {
	A(RING) | A(TREE) | A(DOUBLE_TREE) | A(HALVING_DOUBLING), /* AllReduce */
	A(RING) | A(TREE),                                       /* Reduce */
	A(RING),                                                 /* AllGather */
	A(DIRECT),                                               /* Gather */
	A(DIRECT),                                               /* Scatter */
	A(SEQUENTIAL) | A(INTERLEAVED),                          /* Broadcast */
	A(SEQUENTIAL) | A(INTERLEAVED),                          /* AllToAll */
	A(RING) | A(HALVING),                                    /* ReduceScatter */
	A(RING),                                                 /* ReduceScatterBlock */
	A(RING) | A(TREE) | A(DOUBLE_TREE) | A(HALVING_DOUBLING), /* Barrier */
};
/* The configuration page's defaults, same order. */
static const uint8_t defaults[APP_CK_COLL_COUNT] = {
	APP_CK_ALGO_RING, APP_CK_ALGO_RING,   APP_CK_ALGO_RING,        APP_CK_ALGO_DIRECT, APP_CK_ALGO_DIRECT,
	APP_CK_ALGO_INTERLEAVED, APP_CK_ALGO_INTERLEAVED, APP_CK_ALGO_RING, APP_CK_ALGO_RING, APP_CK_ALGO_RING,
};
#undef A

const char *app_ck_coll_name(unsigned type)
{
	return type < APP_CK_COLL_COUNT ? coll_names[type] : "Unknown";
}

const char *app_ck_coll_attr(unsigned type)
{
	return type < APP_CK_COLL_COUNT ? coll_attrs[type] : "";
}

const char *app_ck_algo_name(unsigned algo)
{
	return algo < APP_CK_ALGO_COUNT ? algo_names[algo] : "unknown";
}

int app_ck_algo_parse(const char *name)
{
	for (unsigned i = 0; i < APP_CK_ALGO_COUNT; i++)
		if (strcmp(name, algo_names[i]) == 0)
			return (int)i;
	return APP_CK_NONE;
}

int app_ck_algo_allowed(unsigned type, unsigned algo)
{
	return type < APP_CK_COLL_COUNT && algo < APP_CK_ALGO_COUNT && (allowed[type] >> algo & 1u);
}

void app_ck_prep_defaults(struct app_ck_prep_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	memcpy(cfg->algo, defaults, sizeof(defaults));
	cfg->pg_serialization = 1;
	cfg->coll_sync = 1;
	cfg->max_log_lines = 30000;
	cfg->scaling_factor = 1.0;
}

int app_ck_trace_add(struct app_ck_trace *t, const struct app_ck_node *n)
{
	if (t->n == t->cap) {
		uint32_t cap = t->cap ? t->cap * 2 : 64;
		struct app_ck_node *p = realloc(t->nodes, (size_t)cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		t->nodes = p;
		t->cap = cap;
	}
	t->nodes[t->n++] = *n;
	return 0;
}

int app_ck_pg_pos(const struct app_ck_pg *g, uint32_t r)
{
	for (uint32_t i = 0; i < g->n; i++)
		if (g->ranks[i] == r)
			return (int)i;
	return APP_CK_NONE;
}

void app_ck_set_ignore(struct app_ck_set *set, const char *name)
{
	char v[sizeof(set->ign[0].name)];
	uint32_t i;

	if (strlen(name) >= sizeof(v)) {
		set->ign_other++;
		return;
	}
	snprintf(v, sizeof(v), "%s", name);
	for (char *c = v; *c; c++) /* the trace's bytes: printable in the summary */
		if (*c < 0x20 || *c > 0x7e)
			*c = '?';
	for (i = 0; i < set->n_ign && strcmp(set->ign[i].name, v); i++)
		;
	if (i == set->n_ign) {
		if (i == APP_CK_IGN_MAX) {
			set->ign_other++;
			return;
		}
		memcpy(set->ign[i].name, v, sizeof(v));
		set->n_ign++;
	}
	set->ign[i].n++;
}

int app_ck_set_find_pg(const struct app_ck_set *set, const char *name)
{
	for (uint32_t i = 0; i < set->n_pgs; i++)
		if (strcmp(set->pgs[i].name, name) == 0)
			return (int)i;
	return APP_CK_NONE;
}

int app_ck_set_add_pg(struct app_ck_set *set, const char *name, uint32_t *ranks, uint32_t n)
{
	struct app_ck_pg *p;

	if (app_ck_set_find_pg(set, name) != APP_CK_NONE)
		return -EEXIST;
	p = realloc(set->pgs, (set->n_pgs + 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	set->pgs = p;
	p = &set->pgs[set->n_pgs];
	memset(p, 0, sizeof(*p));
	strncpy(p->name, name, sizeof(p->name) - 1);
	p->ranks = ranks;
	p->n = n;
	return (int)set->n_pgs++;
}

int app_ck_set_init(struct app_ck_set *set, uint32_t n_ranks)
{
	memset(set, 0, sizeof(*set));
	set->ranks = calloc(n_ranks ? n_ranks : 1, sizeof(*set->ranks));
	if (!set->ranks)
		return -ENOMEM;
	set->n_ranks = n_ranks;
	return 0;
}

void app_ck_set_fini(struct app_ck_set *set)
{
	for (uint32_t r = 0; set->ranks && r < set->n_ranks; r++) {
		for (uint32_t i = 0; i < set->ranks[r].n; i++)
			free(set->ranks[r].nodes[i].deps);
		free(set->ranks[r].nodes);
	}
	for (uint32_t i = 0; i < set->n_pgs; i++)
		free(set->pgs[i].ranks);
	free(set->ranks);
	free(set->pgs);
	memset(set, 0, sizeof(*set));
}

void app_ck_prep_fini(struct app_ck_prep_out *out)
{
	free(out->colls);
	memset(out, 0, sizeof(*out));
}
