/* Collective expansion: the execution page's algorithm table, one collective into its point-to-point transfers
 * between group positions. N is the group size, S the collective's comm_size, C = S / N rounded up. */
#include <errno.h>
#include <stdlib.h>

#include "app_chakra.h"
#include "app_chakra_pvt.h"

static int add(struct app_ck_xfs *o, uint32_t src, uint32_t dst, uint32_t step, uint32_t lane, uint64_t bytes)
{
	if (o->n == o->cap) {
		uint32_t cap = o->cap ? o->cap * 2 : 64;
		struct app_ck_xf *p = realloc(o->v, (size_t)cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		o->v = p;
		o->cap = cap;
	}
	o->v[o->n] = (struct app_ck_xf){.src = src, .dst = dst, .step = step, .lane = lane, .bytes = bytes, .s_idx = o->n};
	o->n++;
	return 0;
}

static int is_pow2(uint32_t n)
{
	return n && !(n & (n - 1));
}

static uint32_t log2u(uint32_t n)
{
	uint32_t l = 0;

	while ((1u << l) < n)
		l++;
	return l;
}

/* Every position sends to the next one in the ring, @p steps times, starting at step @p first. */
static int ring(struct app_ck_xfs *o, uint32_t n, uint32_t steps, uint32_t first, uint64_t b)
{
	for (uint32_t s = 0; s < steps; s++)
		for (uint32_t p = 0; p < n; p++)
			if (add(o, p, (p + 1) % n, first + s, 0, b))
				return -ENOMEM;
	return 0;
}

/* Tree over the group listed as ord[0..n-1]: ord[0] is the root, ord[1] its one child and the root of a balanced
 * binary tree (heap order) of ord[1..n-1]. Depth of ord[i]: 0 for i = 0, else floor(log2(i)) + 1. */
static uint32_t tree_depth(uint32_t i)
{
	uint32_t f = 0;

	while (i >> (f + 1))
		f++;
	return i == 0 ? 0 : f + 1;
}

static uint32_t tree_parent(uint32_t i)
{
	return i == 1 ? 0 : (i - 2) / 2 + 1;
}

/* up: each child sends to its parent, deepest first; down: each parent sends to its children, root first. */
static int tree(struct app_ck_xfs *o, const uint32_t *ord, uint32_t n, uint32_t lane, uint64_t b, int up, int down)
{
	uint32_t dmax = n > 1 ? tree_depth(n - 1) : 0;

	for (uint32_t i = 1; up && i < n; i++)
		if (add(o, ord[i], ord[tree_parent(i)], dmax - tree_depth(i), lane, b))
			return -ENOMEM;
	for (uint32_t i = 1; down && i < n; i++)
		if (add(o, ord[tree_parent(i)], ord[i], dmax + tree_depth(i), lane, b))
			return -ENOMEM;
	return 0;
}

static int tree_from(struct app_ck_xfs *o, uint32_t n, uint32_t root, int reverse, uint32_t lane, uint64_t b, int up,
		     int down)
{
	uint32_t *ord = malloc((size_t)n * sizeof(*ord));
	int rc;

	if (!ord)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++)
		ord[i] = reverse ? (root + n - i) % n : (root + i) % n;
	rc = tree(o, ord, n, lane, b, up, down);
	free(ord);
	return rc;
}

/* Recursive halving (reduce-scatter) from C x N/2, then, with @p doubling, recursive doubling back up. */
static int halving(struct app_ck_xfs *o, uint32_t n, uint64_t c, int doubling)
{
	uint32_t l = log2u(n), step = 0;

	for (uint32_t i = 0; i < l; i++, step++)
		for (uint32_t p = 0; p < n; p++)
			if (add(o, p, p ^ (n >> (i + 1)), step, 0, c * (n >> (i + 1))))
				return -ENOMEM;
	for (uint32_t i = 0; doubling && i < l; i++, step++)
		for (uint32_t p = 0; p < n; p++)
			if (add(o, p, p ^ (1u << i), step, 0, c << i))
				return -ENOMEM;
	return 0;
}

/* Root to every other position, or (@p to_root) every other position to the root, in group order after the root. */
static int star(struct app_ck_xfs *o, uint32_t n, uint32_t root, uint64_t b, int to_root)
{
	for (uint32_t i = 1; i < n; i++) {
		uint32_t p = (root + i) % n;

		if (add(o, to_root ? p : root, to_root ? root : p, 0, 0, b))
			return -ENOMEM;
	}
	return 0;
}

/* Reduce ring: the data passes from the position after the root, around the ring, to the root. */
static int reduce_ring(struct app_ck_xfs *o, uint32_t n, uint32_t root, uint64_t b)
{
	for (uint32_t i = 0; i + 1 < n; i++)
		if (add(o, (root + 1 + i) % n, (root + 2 + i) % n, i, 0, b))
			return -ENOMEM;
	return 0;
}

static int alltoall(struct app_ck_xfs *o, uint32_t n, uint64_t c)
{
	for (uint32_t s = 1; s < n; s++)
		for (uint32_t p = 0; p < n; p++)
			if (add(o, p, (p + s) % n, s - 1, 0, c))
				return -ENOMEM;
	return 0;
}

static int allreduce(struct app_ck_xfs *o, unsigned algo, uint64_t s, uint64_t c, uint32_t n)
{
	switch (algo) {
	case APP_CK_ALGO_RING:
		return ring(o, n, n > 1 ? 2 * (n - 1) : 0, 0, c);
	case APP_CK_ALGO_TREE:
		return tree_from(o, n, 0, 0, 0, s, 1, 1);
	case APP_CK_ALGO_DOUBLE_TREE:
		return tree_from(o, n, 0, 0, 0, (s + 1) / 2, 1, 1) ?:
		       tree_from(o, n, n - 1, 1, 1, (s + 1) / 2, 1, 1);
	case APP_CK_ALGO_HALVING_DOUBLING:
		return is_pow2(n) ? halving(o, n, c, 1) : -EINVAL;
	default:
		return -EINVAL;
	}
}

static int by_step(const void *a, const void *b)
{
	const struct app_ck_xf *x = a, *y = b;

	if (x->step != y->step)
		return x->step < y->step ? -1 : 1;
	return x->s_idx < y->s_idx ? -1 : x->s_idx > y->s_idx; /* generation order (s_idx holds it until placed) */
}

static int dispatch(struct app_ck_xfs *o, unsigned type, unsigned algo, uint64_t s, uint32_t n, uint32_t root)
{
	uint64_t c = (s + n - 1) / n;

	o->order = APP_CK_ORDER_STEPS;
	switch (type) {
	case APP_CK_ALL_REDUCE:
		return allreduce(o, algo, s, c, n);
	case APP_CK_BARRIER:
		return allreduce(o, algo, 0, 0, n);
	case APP_CK_REDUCE:
		if (algo == APP_CK_ALGO_RING)
			return reduce_ring(o, n, root, s);
		return algo == APP_CK_ALGO_TREE ? tree_from(o, n, root, 0, 0, s, 1, 0) : -EINVAL;
	case APP_CK_ALL_GATHER:
		return ring(o, n, n > 1 ? n - 1 : 0, 0, s);
	case APP_CK_REDUCE_SCATTER:
	case APP_CK_REDUCE_SCATTER_BLOCK:
		if (algo == APP_CK_ALGO_HALVING)
			return is_pow2(n) ? halving(o, n, c, 0) : -EINVAL;
		return ring(o, n, n > 1 ? n - 1 : 0, 0, c);
	default:
		break;
	}
	o->order = algo == APP_CK_ALGO_SEQUENTIAL ? APP_CK_ORDER_CHAIN : 0;
	switch (type) {
	case APP_CK_BROADCAST:
		return star(o, n, root, s, 0);
	case APP_CK_GATHER:
		return star(o, n, root, s, 1);
	case APP_CK_SCATTER:
		return star(o, n, root, c, 0);
	case APP_CK_ALL_TO_ALL:
		return alltoall(o, n, c);
	default:
		return -EINVAL;
	}
}

int app_ck_expand(struct app_ck_xfs *out, unsigned type, unsigned algo, uint64_t bytes, uint32_t n, uint32_t root)
{
	uint32_t first = out->n;
	int rc;

	if (n == 0 || root >= n || !app_ck_algo_allowed(type, algo))
		return -EINVAL;
	rc = dispatch(out, type, algo, bytes, n, root);
	if (rc)
		return rc;
	if (out->n > first)
		qsort(out->v + first, out->n - first, sizeof(*out->v), by_step);
	return 0;
}
