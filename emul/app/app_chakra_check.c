/* The checks of trace preparation that look at a whole rank or the whole traceset: every trace send paired with
 * its receive, and no dependency cycle in a rank's graph (Kahn's algorithm). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_chakra.h"
#include "app_chakra_pvt.h"

/* One trace send or receive, keyed by (sender, receiver, tag) and trace order. */
struct p2p {
	uint32_t src, dst;
	int64_t tag;
	uint32_t ix;
};

static int by_key(const void *a, const void *b)
{
	const struct p2p *x = a, *y = b;

	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	if (x->dst != y->dst)
		return x->dst < y->dst ? -1 : 1;
	if (x->tag != y->tag)
		return x->tag < y->tag ? -1 : 1;
	return x->ix < y->ix ? -1 : x->ix > y->ix;
}

static int collect_p2p(struct app_ck_set *set, int kind, struct p2p **out, size_t *n)
{
	size_t cap = 0;

	*out = NULL, *n = 0;
	for (uint32_t r = 0; r < set->n_ranks; r++)
		for (uint32_t i = 0; i < set->ranks[r].n; i++) {
			struct app_ck_node *nd = &set->ranks[r].nodes[i];

			if (nd->kind != kind)
				continue;
			nd->coll_id = APP_CK_NONE;
			if (*n == cap) {
				struct p2p *v = realloc(*out, (cap = cap ? cap * 2 : 64) * sizeof(*v));

				if (!v)
					return -ENOMEM;
				*out = v;
			}
			(*out)[(*n)++] = (struct p2p){kind == APP_CK_SEND ? r : (uint32_t)nd->peer,
						      kind == APP_CK_SEND ? (uint32_t)nd->peer : r, nd->tag, i};
		}
	if (*n)
		qsort(*out, *n, sizeof(**out), by_key);
	return 0;
}

static int unmatched(const struct app_ck_set *set, const struct p2p *x, int send, char *err, size_t errlen)
{
	const struct app_ck_trace *t = &set->ranks[send ? x->src : x->dst];

	snprintf(err, errlen, "%s: node %llu: %s %s rank %u with tag %lld has no matching %s in %s", t->file,
		    (unsigned long long)t->nodes[x->ix].id, send ? "send" : "receive", send ? "to" : "from",
		    send ? x->dst : x->src, (long long)x->tag, send ? "receive" : "send",
		 set->ranks[send ? x->dst : x->src].file);
	return -EINVAL;
}

/* Pair the traces' own sends and receives: same sender, receiver and comm_tag, in trace order. */
int app_ck_match_p2p(struct app_ck_set *set, char *err, size_t errlen)
{
	struct p2p *s = NULL, *r = NULL;
	size_t ns, nr, i = 0, j = 0;
	int rc = collect_p2p(set, APP_CK_SEND, &s, &ns);

	if (!rc)
		rc = collect_p2p(set, APP_CK_RECV, &r, &nr);
	while (!rc && (i < ns || j < nr)) {
		int c = i == ns ? 1 : j == nr ? -1 : by_key(&s[i], &(struct p2p){r[j].src, r[j].dst, r[j].tag, s[i].ix});

		if (c == 0)
			set->ranks[s[i].src].nodes[s[i].ix].match = r[j].ix, i++, j++;
		else
			rc = c < 0 ? unmatched(set, &s[i], 1, err, errlen) : unmatched(set, &r[j], 0, err, errlen);
	}
	free(s);
	free(r);
	return rc;
}

/* Kahn's algorithm on rank @p r: every node must become ready once its dependencies have finished. */
int app_ck_check_cycle(const struct app_ck_set *set, uint32_t r, char *err, size_t errlen)
{
	const struct app_ck_trace *t = &set->ranks[r];
	uint32_t *indeg = calloc(t->n + 1, sizeof(*indeg)), *start = calloc(t->n + 2, sizeof(*start));
	uint32_t *adj = NULL, *queue = malloc((t->n + 1) * sizeof(*queue)), head = 0, tail = 0, total = 0;
	int rc = -ENOMEM;

	if (!indeg || !start || !queue)
		goto out;
	for (uint32_t i = 0; i < t->n; i++) {
		indeg[i] = t->nodes[i].n_deps;
		total += t->nodes[i].n_deps;
		for (uint32_t d = 0; d < t->nodes[i].n_deps; d++)
			start[t->nodes[i].deps[d] + 1]++;
	}
	adj = malloc((total + 1) * sizeof(*adj));
	if (!adj)
		goto out;
	for (uint32_t i = 0; i < t->n; i++)
		start[i + 1] += start[i];
	for (uint32_t i = 0; i < t->n; i++)
		for (uint32_t d = 0; d < t->nodes[i].n_deps; d++)
			adj[start[t->nodes[i].deps[d]]++] = i;
	for (uint32_t i = t->n; i > 0; i--) /* start[] moved one slot on: shift it back */
		start[i] = start[i - 1];
	start[0] = 0;
	for (uint32_t i = 0; i < t->n; i++)
		if (!indeg[i])
			queue[tail++] = i;
	while (head < tail)
		for (uint32_t v = queue[head++], e = start[v]; e < start[v + 1]; e++)
			if (--indeg[adj[e]] == 0)
				queue[tail++] = adj[e];
	rc = 0;
	for (uint32_t i = 0; i < t->n && tail < t->n; i++)
		if (indeg[i]) {
			snprintf(err, errlen, "%s: node %llu is on a dependency cycle (%u of %u nodes can never start)",
				 t->file, (unsigned long long)t->nodes[i].id, t->n - tail, t->n);
			rc = -EINVAL;
			break;
		}
out:
	free(indeg), free(start), free(adj), free(queue);
	return rc;
}

