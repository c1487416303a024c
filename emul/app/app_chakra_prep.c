/* Trace preparation (the execution page's "Traces and trace preparation" and "Ordering options"): scaling,
 * dependency resolution, process-group checks, collective matching across ranks, expansion with the selected
 * algorithm, process group serialization, collective synchronization barriers, send/receive matching and the
 * cycle check. Everything here runs before the simulation; errors name the rank's file and the node. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_chakra.h"
#include "app_chakra_pvt.h"

/* Tags of expanded transfers: bit 62 set, then the collective hash and the transfer's index in it. */
#define CK_TAG_COLL (1LL << 62)

/* One preparation: its inputs, log and error sinks. */
struct prep {
	struct app_ck_set *set;
	const struct app_ck_prep_cfg *cfg;
	struct app_ck_prep_out *out;
	app_ck_log_fn log;
	void *log_ctx;
	char *err;
	size_t errlen;
	uint64_t *next_id; /* per rank: the next id for an added node */
};

static int fail(struct prep *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->err, p->errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static void warn(struct prep *p, const char *fmt, ...)
{
	char line[320];
	va_list ap;

	if (p->out->lines >= p->cfg->max_log_lines) {
		p->out->dropped++; /* held back: not counted as a warning (AbortOnChakraWarning) */
		return;
	}
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	p->out->lines++;
	p->out->warnings++;
	if (p->log)
		p->log(p->log_ctx, line);
}

static int deps_push(struct app_ck_node *n, uint64_t d)
{
	uint64_t *v = realloc(n->deps, (n->n_deps + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	v[n->n_deps++] = d;
	n->deps = v;
	return 0;
}

/* Append a node to rank @p r with a fresh id; returns its index or a negative errno. */
static long add_node(struct prep *p, uint32_t r, struct app_ck_node *n)
{
	struct app_ck_trace *t = &p->set->ranks[r];

	n->id = p->next_id[r]++;
	if (app_ck_trace_add(t, n)) {
		free(n->deps);
		return -ENOMEM;
	}
	return (long)t->n - 1;
}

static void scale(struct app_ck_set *set, double f)
{
	for (uint32_t r = 0; r < set->n_ranks; r++)
		for (uint32_t i = 0; i < set->ranks[r].n; i++) {
			struct app_ck_node *n = &set->ranks[r].nodes[i];

			n->bytes = (uint64_t)((double)n->bytes * f);
			n->dur_us = (uint64_t)((double)n->dur_us * f);
		}
}

struct id_ix {
	uint64_t id;
	uint32_t ix;
};

static int by_id(const void *a, const void *b)
{
	const struct id_ix *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* What a rank's ctrl_deps lost (not strict_deps): counts, and the first of each kind (node, the id it named). */
struct dropped {
	uint64_t n[3];
	uint64_t node[3], dep[3];
};

enum { DROP_ABSENT, DROP_SELF, DROP_CYCLE };

#define DEP_DROPPED UINT64_MAX

static void drop(struct dropped *d, int kind, uint64_t node, uint64_t dep)
{
	if (!d->n[kind]++)
		d->node[kind] = node, d->dep[kind] = dep;
}

/* Replace node ids by node indices in every dependency list of rank @p r. With strict_deps every dependency must
 * name another node of the file; else a ctrl_dep naming an absent node or its own is marked dropped. */
static int resolve_rank(struct prep *p, uint32_t r, struct dropped *dr)
{
	struct app_ck_trace *t = &p->set->ranks[r];
	struct id_ix *m = malloc((t->n ? t->n : 1) * sizeof(*m));
	int rc = 0;

	if (!m)
		return -ENOMEM;
	for (uint32_t i = 0; i < t->n; i++)
		m[i] = (struct id_ix){t->nodes[i].id, i};
	qsort(m, t->n, sizeof(*m), by_id);
	for (uint32_t i = 1; i < t->n && !rc; i++)
		if (m[i].id == m[i - 1].id)
			rc = fail(p, "%s: node %llu appears twice", t->file, (unsigned long long)m[i].id);
	p->next_id[r] = t->n ? m[t->n - 1].id + 1 : 0;
	for (uint32_t i = 0; i < t->n && !rc; i++) {
		struct app_ck_node *n = &t->nodes[i];

		for (uint32_t d = 0; d < n->n_deps && !rc; d++) {
			struct id_ix key = {n->deps[d], 0}, *hit = bsearch(&key, m, t->n, sizeof(*m), by_id);
			int ctrl = d < n->n_ctrl && !p->cfg->strict_deps;

			if (ctrl && (!hit || hit->ix == i)) {
				drop(dr, hit ? DROP_SELF : DROP_ABSENT, n->id, n->deps[d]);
				n->deps[d] = DEP_DROPPED;
			} else if (!hit) {
				rc = fail(p, "%s: node %llu depends on node %llu, which the trace does not have", t->file,
					  (unsigned long long)n->id, (unsigned long long)n->deps[d]);
			} else if (hit->ix == i && p->cfg->strict_deps) {
				rc = fail(p, "%s: node %llu depends on itself (%s)", t->file, (unsigned long long)n->id,
					  d < n->n_ctrl ? "ctrl_deps" : "data_deps");
			} else {
				n->deps[d] = hit->ix;
			}
		}
	}
	free(m);
	return rc;
}

/* The graph of one rank while ctrl_deps are added one by one (the dynamic topological order of Pearce and Kelly):
 * ord[] is a topological order of the edges so far; an edge that agrees with it is added as it is, one that does
 * not either closes a cycle (a path already leads back) and is dropped, or reorders the nodes between. */
struct dyn {
	uint32_t n;
	uint32_t *ord, *mark, epoch;
	uint32_t *fo, *fv;          /* data edges forward (to dependents), CSR */
	uint32_t *hf, *hb, *nf, *nb, *ef, *eb, ne; /* the added ctrl edges, forward and backward lists */
	uint32_t *stack, *rf, *rb, nrf, nrb;
	uint32_t *pos;              /* scratch for the reorder */
};

static int dyn_visit(struct dyn *g, uint32_t w, uint32_t *stack, uint32_t *sp)
{
	if (g->mark[w] == g->epoch)
		return 0;
	g->mark[w] = g->epoch;
	stack[(*sp)++] = w;
	return 1;
}

/* Forward from @p y over nodes ordered at most @p ub: 1 when it reaches @p x (a cycle); the nodes into rf. */
static int dyn_fwd(struct dyn *g, const struct app_ck_trace *t, uint32_t y, uint32_t x, uint32_t ub)
{
	uint32_t sp = 0;

	(void)t;
	g->nrf = 0;
	dyn_visit(g, y, g->stack, &sp);
	while (sp) {
		uint32_t w = g->stack[--sp];

		g->rf[g->nrf++] = w;
		for (uint32_t k = g->fo[w]; k < g->fo[w + 1]; k++) {
			uint32_t v = g->fv[k];

			if (v == x)
				return 1;
			if (g->ord[v] < ub)
				dyn_visit(g, v, g->stack, &sp);
		}
		for (uint32_t e = g->hf[w]; e != UINT32_MAX; e = g->nf[e]) {
			uint32_t v = g->ef[e];

			if (v == x)
				return 1;
			if (g->ord[v] < ub)
				dyn_visit(g, v, g->stack, &sp);
		}
	}
	return 0;
}

/* Backward from @p x over nodes ordered above @p lb; the nodes into rb. */
static void dyn_back(struct dyn *g, const struct app_ck_trace *t, uint32_t x, uint32_t lb)
{
	uint32_t sp = 0;

	g->nrb = 0;
	dyn_visit(g, x, g->stack, &sp);
	while (sp) {
		uint32_t w = g->stack[--sp];
		const struct app_ck_node *n = &t->nodes[w];

		g->rb[g->nrb++] = w;
		for (uint32_t d = n->n_ctrl; d < n->n_deps; d++)
			if (g->ord[n->deps[d]] > lb)
				dyn_visit(g, (uint32_t)n->deps[d], g->stack, &sp);
		for (uint32_t e = g->hb[w]; e != UINT32_MAX; e = g->nb[e])
			if (g->ord[g->eb[e]] > lb)
				dyn_visit(g, g->eb[e], g->stack, &sp);
	}
}

static int by_ord(const void *a, const void *b, void *ord)
{
	const uint32_t *o = ord;
	uint32_t x = o[*(const uint32_t *)a], y = o[*(const uint32_t *)b];

	return x < y ? -1 : x > y;
}

static int by_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Add ctrl edge @p u -> @p v (v depends on u): 0 added, 1 it closes a cycle. */
static int dyn_add(struct dyn *g, const struct app_ck_trace *t, uint32_t u, uint32_t v)
{
	if (g->ord[u] > g->ord[v]) {
		uint32_t lb = g->ord[v], ub = g->ord[u], k = 0;

		g->epoch++;
		if (dyn_fwd(g, t, v, u, ub))
			return 1;
		dyn_back(g, t, u, lb);
		/* the backward set, then the forward set, each in its old order, take their ord slots in turn */
		qsort_r(g->rb, g->nrb, sizeof(*g->rb), by_ord, g->ord);
		qsort_r(g->rf, g->nrf, sizeof(*g->rf), by_ord, g->ord);
		for (uint32_t i = 0; i < g->nrb; i++)
			g->pos[k++] = g->ord[g->rb[i]];
		for (uint32_t i = 0; i < g->nrf; i++)
			g->pos[k++] = g->ord[g->rf[i]];
		qsort(g->pos, k, sizeof(*g->pos), by_u32);
		k = 0;
		for (uint32_t i = 0; i < g->nrb; i++)
			g->ord[g->rb[i]] = g->pos[k++];
		for (uint32_t i = 0; i < g->nrf; i++)
			g->ord[g->rf[i]] = g->pos[k++];
	}
	g->ef[g->ne] = v, g->nf[g->ne] = g->hf[u], g->hf[u] = g->ne;
	g->eb[g->ne] = u, g->nb[g->ne] = g->hb[v], g->hb[v] = g->ne;
	g->ne++;
	return 0;
}

/* The ctrl_deps of rank @p r (indices, or DEP_DROPPED) that would close a cycle with the data_deps and the
 * ctrl_deps before them (in trace order) are dropped; then every node's list is compacted. Data_deps that are
 * cyclic themselves are left to the cycle check. */
static int drop_cycles(struct prep *p, uint32_t r, struct dropped *dr)
{
	struct app_ck_trace *t = &p->set->ranks[r];
	uint32_t n = t->n, nctrl = 0, ndata = 0, head = 0, tail = 0;
	struct dyn g = {.n = n};
	uint32_t *indeg = NULL;
	int rc = 0;

	for (uint32_t i = 0; i < n; i++)
		for (uint32_t d = 0; d < t->nodes[i].n_deps; d++)
			*(d < t->nodes[i].n_ctrl ? &nctrl : &ndata) += t->nodes[i].deps[d] != DEP_DROPPED;
	if (p->cfg->strict_deps) /* both lists alike: a cycle is the cycle check's error */
		nctrl = 0;
	if (nctrl) {
		size_t w = n + 1;

		g.ord = calloc(w, 4), g.mark = calloc(w, 4), g.fo = calloc(w + 1, 4), g.fv = calloc(ndata + 1, 4);
		g.hf = malloc(w * 4), g.hb = malloc(w * 4), g.nf = malloc((nctrl + 1) * 4);
		g.nb = malloc((nctrl + 1) * 4), g.ef = malloc((nctrl + 1) * 4), g.eb = malloc((nctrl + 1) * 4);
		g.stack = malloc(w * 4), g.rf = malloc(w * 4), g.rb = malloc(w * 4), g.pos = malloc(2 * w * 4);
		indeg = calloc(w, 4);
		if (!g.ord || !g.mark || !g.fo || !g.fv || !g.hf || !g.hb || !g.nf || !g.nb || !g.ef || !g.eb ||
		    !g.stack || !g.rf || !g.rb || !g.pos || !indeg)
			rc = -ENOMEM;
	}
	if (nctrl && !rc) {
		memset(g.hf, 0xff, (n + 1) * 4), memset(g.hb, 0xff, (n + 1) * 4);
		for (uint32_t i = 0; i < n; i++) /* data edges dep -> i, counted per dep, then placed */
			for (uint32_t d = t->nodes[i].n_ctrl; d < t->nodes[i].n_deps; d++)
				g.fo[t->nodes[i].deps[d] + 1]++, indeg[i]++;
		for (uint32_t i = 0; i < n; i++)
			g.fo[i + 1] += g.fo[i];
		memcpy(g.pos, g.fo, n * 4);
		for (uint32_t i = 0; i < n; i++)
			for (uint32_t d = t->nodes[i].n_ctrl; d < t->nodes[i].n_deps; d++)
				g.fv[g.pos[t->nodes[i].deps[d]]++] = i;
		for (uint32_t i = 0; i < n; i++) /* Kahn's order of the data edges, ties in trace order */
			if (!indeg[i])
				g.stack[tail++] = i;
		while (head < tail) {
			uint32_t w = g.stack[head];

			g.ord[w] = head++;
			for (uint32_t k = g.fo[w]; k < g.fo[w + 1]; k++)
				if (!--indeg[g.fv[k]])
					g.stack[tail++] = g.fv[k];
		}
		if (tail == n) /* else the data_deps hold a cycle: the cycle check names it */
			for (uint32_t i = 0; i < n; i++) {
				struct app_ck_node *v = &t->nodes[i];

				for (uint32_t d = 0; d < v->n_ctrl; d++)
					if (v->deps[d] != DEP_DROPPED && dyn_add(&g, t, (uint32_t)v->deps[d], i)) {
						drop(dr, DROP_CYCLE, v->id, t->nodes[v->deps[d]].id);
						v->deps[d] = DEP_DROPPED;
					}
			}
	}
	free(g.ord), free(g.mark), free(g.fo), free(g.fv), free(g.hf), free(g.hb), free(g.nf), free(g.nb);
	free(g.ef), free(g.eb), free(g.stack), free(g.rf), free(g.rb), free(g.pos), free(indeg);
	for (uint32_t i = 0; i < n; i++) {
		struct app_ck_node *v = &t->nodes[i];
		uint32_t k = 0;

		for (uint32_t d = 0; d < v->n_deps; d++)
			if (v->deps[d] != DEP_DROPPED)
				v->deps[k++] = v->deps[d];
		v->n_deps = k, v->n_ctrl = 0;
	}
	return rc;
}

/* Resolve every rank's dependencies; the ctrl_deps dropped are one counted warning per kind and rank. */
static int resolve(struct prep *p)
{
	static const char *const what[] = {"name nodes the trace does not have", "name their own node",
					   "close a dependency cycle"};
	int rc = 0;

	for (uint32_t r = 0; r < p->set->n_ranks && !rc; r++) {
		struct dropped dr;

		memset(&dr, 0, sizeof(dr));

		rc = resolve_rank(p, r, &dr) ?: drop_cycles(p, r, &dr);
		for (int k = 0; k < 3 && !rc; k++) {
			if (!dr.n[k])
				continue;
			if (k == DROP_SELF)
				warn(p, "warning: %s: %llu ctrl_deps %s, dropped (the first: node %llu)",
				     p->set->ranks[r].file, (unsigned long long)dr.n[k], what[k],
				     (unsigned long long)dr.node[k]);
			else
				warn(p, "warning: %s: %llu ctrl_deps %s, dropped (the first: node %llu on node %llu)",
				     p->set->ranks[r].file, (unsigned long long)dr.n[k], what[k],
				     (unsigned long long)dr.node[k], (unsigned long long)dr.dep[k]);
		}
		p->out->ctrl_absent += dr.n[DROP_ABSENT];
		p->out->ctrl_self += dr.n[DROP_SELF];
		p->out->ctrl_cycle += dr.n[DROP_CYCLE];
	}
	return rc;
}

/* The implicit group of a collective that names none: every rank, in rank order. */
static int world_pg(struct prep *p)
{
	int ix = app_ck_set_find_pg(p->set, "world");
	uint32_t *v;

	if (ix != APP_CK_NONE)
		return ix;
	v = malloc(p->set->n_ranks * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (uint32_t r = 0; r < p->set->n_ranks; r++)
		v[r] = r;
	ix = app_ck_set_add_pg(p->set, "world", v, p->set->n_ranks);
	if (ix < 0)
		free(v);
	return ix;
}

/* Per-node checks: peers in range, collectives complete and inside their group (else a warning and the node
 * becomes a metadata node). */
static int check_nodes(struct prep *p)
{
	for (uint32_t r = 0; r < p->set->n_ranks; r++) {
		struct app_ck_trace *t = &p->set->ranks[r];

		for (uint32_t i = 0; i < t->n; i++) {
			struct app_ck_node *n = &t->nodes[i];

			if (n->kind == APP_CK_SEND || n->kind == APP_CK_RECV) {
				if (n->peer < 0 || (uint32_t)n->peer >= p->set->n_ranks || (uint32_t)n->peer == r)
					return fail(p, "%s: node %llu: %s partner rank %d is not another rank of the "
						       "%u-rank traceset", t->file, (unsigned long long)n->id,
						    n->kind == APP_CK_SEND ? "send" : "receive", n->peer, p->set->n_ranks);
				continue;
			}
			if (n->kind != APP_CK_COLL)
				continue;
			if (n->pg == APP_CK_NONE) {
				int w = world_pg(p);

				if (w < 0)
					return w;
				n->pg = w;
			}
			if (!n->has_coll || !n->has_size || n->coll >= APP_CK_COLL_COUNT) {
				warn(p, "warning: %s: node %llu: collective without a type or a size, not expanded",
				     t->file, (unsigned long long)n->id);
				n->trace_kind = APP_CK_COLL;
				n->kind = APP_CK_METADATA;
			} else if (app_ck_pg_pos(&p->set->pgs[n->pg], r) == APP_CK_NONE) {
				warn(p, "warning: %s: node %llu: collective of process group %s, which rank %u is not in, "
					"not expanded", t->file, (unsigned long long)n->id, p->set->pgs[n->pg].name, r);
				n->trace_kind = APP_CK_COLL;
				n->kind = APP_CK_METADATA;
			}
		}
	}
	return 0;
}

/* One item of a rank's issue order in a group. */
struct item {
	int64_t seq;
	uint32_t ix;
};

/* A rank's items of one group: its collectives, and (with @p sends) its sends that carry the group and an issue
 * order. */
struct items {
	struct item *v;
	uint32_t n;
	int ordered; /* every collective has an issue order: sorted by it; else trace order */
};

static int by_seq(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return x->ix < y->ix ? -1 : x->ix > y->ix;
}

static int items_of(const struct app_ck_trace *t, int g, int sends, struct items *it)
{
	memset(it, 0, sizeof(*it));
	it->v = malloc((t->n ? t->n : 1) * sizeof(*it->v));
	if (!it->v)
		return -ENOMEM;
	it->ordered = 1;
	for (uint32_t i = 0; i < t->n; i++) {
		const struct app_ck_node *n = &t->nodes[i];

		if (n->pg != g)
			continue;
		if (n->kind == APP_CK_COLL) {
			it->ordered &= n->seq != APP_CK_NONE;
			it->v[it->n++] = (struct item){n->seq, i};
		} else if (sends && n->kind == APP_CK_SEND && n->seq != APP_CK_NONE) {
			it->v[it->n++] = (struct item){n->seq, i};
		}
	}
	if (it->ordered)
		qsort(it->v, it->n, sizeof(*it->v), by_seq);
	return 0;
}

/* Process group serialization: each item of a group on a rank depends on the one issued before it. */
static int serialize(struct prep *p)
{
	for (uint32_t g = 0; g < p->set->n_pgs; g++)
		for (uint32_t r = 0; r < p->set->n_ranks; r++) {
			struct app_ck_trace *t = &p->set->ranks[r];
			struct items it;
			int rc = items_of(t, (int)g, 1, &it);

			for (uint32_t k = 1; !rc && it.ordered && k < it.n; k++)
				rc = deps_push(&t->nodes[it.v[k].ix], it.v[k - 1].ix);
			free(it.v);
			if (rc)
				return rc;
		}
	return 0;
}

/* A rank's receives of one lane by step, for the "after its previous step's receive" rule. */
struct lane {
	uint32_t last_step, prev_step;
	uint64_t *last, *prev;
	uint32_t n_last, n_prev, cap_last, cap_prev;
	long last_send;
};

static int lane_recv(struct lane *l, uint32_t step, uint64_t ix)
{
	if (l->n_last && step != l->last_step) {
		uint64_t *t = l->prev;
		uint32_t c = l->cap_prev;

		l->prev = l->last, l->n_prev = l->n_last, l->cap_prev = l->cap_last, l->prev_step = l->last_step;
		l->last = t, l->n_last = 0, l->cap_last = c;
	}
	if (l->n_last == l->cap_last) {
		uint32_t cap = l->cap_last ? l->cap_last * 2 : 8;
		uint64_t *v = realloc(l->last, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		l->last = v, l->cap_last = cap;
	}
	l->last[l->n_last++] = ix;
	l->last_step = step;
	return 0;
}

/* What one placement of a collective's transfers on one rank shares. */
struct place {
	uint32_t r, q;              /* rank and its position */
	const struct app_ck_pg *g;
	const uint64_t *entry;      /* the dependencies every transfer starts from */
	uint32_t n_entry;
	struct app_ck_node proto;   /* kind, coll, sync, coll_id set; the rest per transfer */
	uint32_t join_r, join_ix;   /* the node every placed transfer becomes a dependency of */
};

static long place_one(struct prep *p, struct place *pl, struct app_ck_xf *x, uint32_t k, struct lane *l,
		      unsigned order)
{
	struct app_ck_node n = pl->proto;
	int send = x->src == pl->q;
	long ix;

	n.kind = send ? APP_CK_SEND : APP_CK_RECV;
	n.peer = (int32_t)pl->g->ranks[send ? x->dst : x->src];
	n.bytes = x->bytes;
	n.tag = CK_TAG_COLL | (pl->proto.coll_id << 32) | k;
	n.deps = NULL, n.n_deps = 0;
	for (uint32_t i = 0; i < pl->n_entry; i++)
		if (deps_push(&n, pl->entry[i]))
			goto nomem;
	if (send && (order & APP_CK_ORDER_STEPS)) {
		const uint64_t *v = l->last_step < x->step ? l->last : l->prev;
		uint32_t nv = l->last_step < x->step ? l->n_last : l->n_prev;

		for (uint32_t i = 0; i < nv; i++)
			if (deps_push(&n, v[i]))
				goto nomem;
	}
	if (send && (order & APP_CK_ORDER_CHAIN) && l->last_send >= 0 && deps_push(&n, (uint64_t)l->last_send))
		goto nomem;
	ix = add_node(p, pl->r, &n);
	if (ix < 0)
		return ix;
	if (send)
		x->s_idx = (uint32_t)ix, l->last_send = ix;
	else
		x->r_idx = (uint32_t)ix;
	if (!send && lane_recv(l, x->step, (uint64_t)ix))
		return -ENOMEM;
	return deps_push(&p->set->ranks[pl->join_r].nodes[pl->join_ix], (uint64_t)ix) ? -ENOMEM : ix;
nomem:
	free(n.deps);
	return -ENOMEM;
}

/* Place rank pl->q's part of @p xs in its trace; every placed node becomes a dependency of the join node. */
static int place(struct prep *p, struct place *pl, struct app_ck_xfs *xs)
{
	struct lane lanes[2];
	int rc = 0;

	memset(lanes, 0, sizeof(lanes));
	lanes[0].last_send = lanes[1].last_send = -1;
	for (uint32_t k = 0; k < xs->n && !rc; k++) {
		struct app_ck_xf *x = &xs->v[k];

		if (x->src != pl->q && x->dst != pl->q)
			continue;
		long ix = place_one(p, pl, x, k, &lanes[x->lane & 1], xs->order);

		rc = ix < 0 ? (int)ix : 0;
	}
	for (int i = 0; i < 2; i++)
		free(lanes[i].last), free(lanes[i].prev);
	return rc;
}

/* Link every expanded send to its receive. */
static void link_xfs(struct prep *p, const struct app_ck_pg *g, const struct app_ck_xfs *xs)
{
	for (uint32_t k = 0; k < xs->n; k++)
		p->set->ranks[g->ranks[xs->v[k].src]].nodes[xs->v[k].s_idx].match = xs->v[k].r_idx;
}

static int add_coll(struct prep *p, const struct app_ck_node *c, unsigned algo, const struct app_ck_xfs *xs)
{
	struct app_ck_coll_info *v = p->out->colls;

	if (p->out->n_colls == p->out->colls_cap) { /* doubling: one realloc per collective copied them all */
		uint32_t cap = p->out->colls_cap ? 2 * p->out->colls_cap : 64;

		if (!(v = realloc(v, cap * sizeof(*v))))
			return -ENOMEM;
		p->out->colls = v;
		p->out->colls_cap = cap;
	}
	v[p->out->n_colls] = (struct app_ck_coll_info){.type = c->coll, .algo = (uint8_t)algo, .pg = c->pg,
						       .bytes = c->bytes, .n_transfers = xs->n};
	for (uint32_t k = 0; k < xs->n; k++)
		v[p->out->n_colls].transfer_bytes += xs->v[k].bytes;
	return (int)p->out->n_colls++;
}

/* Check that every member's k-th collective of group @p g agrees with the first member's. */
static int check_match(struct prep *p, const struct app_ck_pg *g, struct items *it, uint32_t k)
{
	const struct app_ck_node *a = &p->set->ranks[g->ranks[0]].nodes[it[0].v[k].ix];

	for (uint32_t q = 1; q < g->n; q++) {
		const struct app_ck_trace *t = &p->set->ranks[g->ranks[q]];
		const struct app_ck_node *b = &t->nodes[it[q].v[k].ix];

		if (a->coll != b->coll || a->bytes != b->bytes || a->root != b->root)
			return fail(p, "%s: node %llu: collective %u of process group %s is a %s of %llu B (root %d) "
				       "here but a %s of %llu B (root %d) in %s", t->file, (unsigned long long)b->id,
				    k, g->name, app_ck_coll_name(b->coll), (unsigned long long)b->bytes, b->root,
				    app_ck_coll_name(a->coll), (unsigned long long)a->bytes, a->root,
				    p->set->ranks[g->ranks[0]].file);
	}
	return 0;
}

/* Place member @p q's part: the synchronization barrier (if any), then the collective, joined on the coll node. */
static int place_member(struct prep *p, const struct app_ck_pg *g, uint32_t q, uint32_t cix, int64_t hash,
			struct app_ck_xfs *bar, struct app_ck_xfs *xs)
{
	uint32_t r = g->ranks[q];
	struct app_ck_node *c = &p->set->ranks[r].nodes[cix];
	struct place pl = {.r = r, .q = q, .g = g, .join_r = r, .join_ix = cix};
	uint64_t *entry = NULL, jix;
	int rc = 0;

	pl.n_entry = c->n_deps;
	entry = malloc((c->n_deps + 1) * sizeof(*entry));
	if (!entry)
		return -ENOMEM;
	if (c->n_deps)
		memcpy(entry, c->deps, c->n_deps * sizeof(*entry));
	pl.entry = entry;
	pl.proto = (struct app_ck_node){.coll = c->coll, .coll_id = hash, .pg = c->pg, .root = APP_CK_NONE,
					.seq = APP_CK_NONE, .has_coll = 1, .has_size = 1};
	if (bar->n) {
		struct app_ck_node j = {.kind = APP_CK_METADATA, .coll_id = hash, .pg = c->pg, .peer = APP_CK_NONE,
					.root = APP_CK_NONE, .seq = APP_CK_NONE};
		long ix = add_node(p, r, &j);

		if (ix < 0) {
			free(entry);
			return (int)ix;
		}
		jix = (uint64_t)ix;
		pl.join_ix = (uint32_t)jix;
		pl.proto.sync = 1;
		rc = place(p, &pl, bar);
		for (uint32_t i = 0; i < pl.n_entry && !rc; i++)
			rc = deps_push(&p->set->ranks[r].nodes[jix], entry[i]);
		entry[0] = jix, pl.n_entry = 1;
		pl.proto.sync = 0;
		pl.join_ix = cix;
	}
	if (!rc)
		rc = place(p, &pl, xs);
	free(entry);
	c = &p->set->ranks[r].nodes[cix];
	c->trace_kind = APP_CK_COLL; /* the annotated trace keeps the trace's type */
	c->kind = APP_CK_METADATA; /* the collective node now joins its transfers */
	c->coll_id = hash;
	return rc;
}

static int expand_one(struct prep *p, const struct app_ck_pg *g, struct items *it, uint32_t k)
{
	const struct app_ck_trace *t0 = &p->set->ranks[g->ranks[0]];
	const struct app_ck_node *c = &t0->nodes[it[0].v[k].ix];
	unsigned algo = p->cfg->algo[c->coll];
	int root = c->root == APP_CK_NONE ? 0 : app_ck_pg_pos(g, (uint32_t)c->root);
	struct app_ck_xfs xs = {0}, bar = {0};
	int rc, hash;

	if (root == APP_CK_NONE)
		return fail(p, "%s: node %llu: root rank %d is not in process group %s", t0->file,
			    (unsigned long long)c->id, c->root, g->name);
	rc = app_ck_expand(&xs, c->coll, algo, c->bytes, g->n, (uint32_t)root);
	if (rc == -EINVAL)
		rc = fail(p, "%s: node %llu: %s %s over process group %s of %u ranks: the algorithm needs a "
			     "power-of-two group", t0->file, (unsigned long long)c->id, app_ck_coll_name(c->coll),
			  app_ck_algo_name(algo), g->name, g->n);
	if (!rc && p->cfg->coll_sync && g->n > 1)
		rc = app_ck_expand(&bar, APP_CK_BARRIER, APP_CK_ALGO_TREE, 0, g->n, 0);
	hash = rc ? rc : add_coll(p, c, algo, &xs);
	rc = hash < 0 ? hash : 0;
	for (uint32_t q = 0; q < g->n && !rc; q++)
		rc = place_member(p, g, q, it[q].v[k].ix, hash, &bar, &xs);
	if (!rc) {
		link_xfs(p, g, &xs);
		link_xfs(p, g, &bar);
		p->out->n_transfers += xs.n + bar.n;
		p->out->n_sync_transfers += bar.n;
	}
	free(xs.v);
	free(bar.v);
	return rc;
}

/* Match group @p gi's collectives across its members, in issue order, and expand them. */
static int expand_pg(struct prep *p, uint32_t gi)
{
	const struct app_ck_pg *g = &p->set->pgs[gi];
	struct items *it = calloc(g->n ? g->n : 1, sizeof(*it));
	int rc = 0;

	if (!it)
		return -ENOMEM;
	for (uint32_t q = 0; q < g->n && !rc; q++) {
		rc = items_of(&p->set->ranks[g->ranks[q]], (int)gi, 0, &it[q]);
		if (!rc && it[q].n != it[0].n)
			rc = fail(p, "%s: process group %s: %u collectives here, %u in %s (rank %u)",
				  p->set->ranks[g->ranks[q]].file, g->name, it[q].n, it[0].n,
				  p->set->ranks[g->ranks[0]].file, g->ranks[0]);
	}
	for (uint32_t k = 0; !rc && g->n && k < it[0].n; k++)
		rc = check_match(p, g, it, k) ?: expand_one(p, g, it, k);
	for (uint32_t q = 0; q < g->n; q++)
		free(it[q].v);
	free(it);
	return rc;
}

/* Transfers an expansion of @p type with @p algo over @p n positions makes, remembered by (type, algo, n) in a
 * small table so that a traceset of 10^5 alike collectives expands one of them. -1 for an expansion refused. */
struct est_slot {
	uint32_t n;
	uint8_t type, algo, used;
	int64_t xfers;
};

static int64_t est_xfers(struct est_slot *tab, unsigned type, unsigned algo, uint32_t n)
{
	struct est_slot *e = &tab[(type * 31u + algo * 7u + n * 2654435761u) % 64u];
	struct app_ck_xfs xs = {0};

	if (e->used && e->type == type && e->algo == algo && e->n == n)
		return e->xfers;
	int rc = app_ck_expand(&xs, type, algo, 1, n, 0);

	*e = (struct est_slot){n, (uint8_t)type, (uint8_t)algo, 1, rc ? -1 : (int64_t)xs.n};
	free(xs.v);
	return e->xfers;
}

int app_ck_prep_estimate(const struct app_ck_set *set, const struct app_ck_prep_cfg *cfg, uint64_t *nodes)
{
	struct est_slot *tab = calloc(64, sizeof(*tab));
	uint64_t total = 0;

	if (!tab)
		return -ENOMEM;
	for (uint32_t r = 0; r < set->n_ranks; r++) {
		const struct app_ck_trace *t = &set->ranks[r];

		total += t->n;
		for (uint32_t i = 0; i < t->n; i++) {
			const struct app_ck_node *c = &t->nodes[i];
			uint32_t n = c->pg >= 0 && (uint32_t)c->pg < set->n_pgs ? set->pgs[c->pg].n : set->n_ranks;

			if (c->kind != APP_CK_COLL || !c->has_coll || !c->has_size || c->coll >= APP_CK_COLL_COUNT || !n)
				continue;
			int64_t x = est_xfers(tab, c->coll, cfg->algo[c->coll], n), b = 0;

			if (x > 0 && cfg->coll_sync && n > 1)
				b = est_xfers(tab, APP_CK_BARRIER, APP_CK_ALGO_TREE, n);
			/* every transfer is a send on one member and a receive on another: this rank's share */
			total += x > 0 ? (uint64_t)(2 * (x + (b > 0 ? b : 0)) + n - 1) / n : 0;
		}
	}
	free(tab);
	*nodes = total;
	return 0;
}

int app_ck_prepare(struct app_ck_set *set, const struct app_ck_prep_cfg *cfg, struct app_ck_prep_out *out,
		   app_ck_log_fn log, void *log_ctx, char *err, size_t errlen)
{
	struct prep p = {.set = set, .cfg = cfg, .out = out, .log = log, .log_ctx = log_ctx, .err = err,
			 .errlen = errlen};
	int rc = 0;

	memset(out, 0, sizeof(*out));
	p.next_id = calloc(set->n_ranks + 1, sizeof(*p.next_id));
	if (!p.next_id)
		return -ENOMEM;
	if (cfg->scaling)
		scale(set, cfg->scaling_factor);
	rc = resolve(&p);
	for (uint32_t g = 0; g < set->n_pgs && !rc; g++)
		if (set->pgs[g].src == APP_CK_PG_NAMED && set->pgs[g].n)
			warn(&p, "warning: process group %s: named by pg_name, with no communicator record, pg:%s "
				 "declaration or involved_ranks: taken as every rank (%u)", set->pgs[g].name,
			     set->pgs[g].name, set->pgs[g].n);
	rc = rc ?: check_nodes(&p);
	rc = rc ?: app_ck_match_p2p(set, err, errlen);
	if (!rc && cfg->pg_serialization)
		rc = serialize(&p);
	for (uint32_t g = 0; g < set->n_pgs && !rc; g++)
		rc = expand_pg(&p, g);
	for (uint32_t r = 0; r < set->n_ranks && !rc; r++)
		rc = app_ck_check_cycle(set, r, err, errlen);
	if (!rc && cfg->abort_on_warning && out->warnings)
		rc = fail(&p, "AbortOnChakraWarning: trace preparation logged %u warning%s", out->warnings,
			  out->warnings == 1 ? "" : "s");
	if (rc == -ENOMEM)
		snprintf(err, errlen, "trace preparation: out of memory");
	free(p.next_id);
	return rc;
}
