/* The switch's routes: destination IP -> equal-cost set.
 *
 * Built fabrics number their hosts from one base address, so a switch's routes cover a dense range of IPs: they
 * are kept as a direct table of 16-bit set indexes over [lo, lo + span), 2 B per destination (1,024 hosts: 2 KiB
 * per switch, where an open-addressing table at half load took 16 KiB), found with one subtraction. A route far
 * outside the range (more than 4 x the routes + 256 wide) or a 65,535th set turns the switch to an open-addressing
 * hash table for good (explicit topologies with scattered addresses).
 */
#include "sw_pvt.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define SW_HASH_MIN 64 /* buckets of the hash table when a switch turns to it; doubled at half full */

static uint32_t route_bucket(uint32_t ip, uint32_t mask)
{
	return sw_mix32(ip) & mask;
}

static struct sw_route *route_slot(struct sw_route *tab, uint32_t mask, uint32_t ip)
{
	uint32_t i = route_bucket(ip, mask);

	while (tab[i].set != SW_NIL && tab[i].ip != ip)
		i = (i + 1) & mask;
	return &tab[i];
}

uint32_t sw_route_set_hash(const struct sw *sw, uint32_t ip)
{
	return route_slot(sw->routes, sw->route_mask, ip)->set;
}

static int hash_alloc(struct sw *sw, uint32_t buckets)
{
	struct sw_route *t = malloc(buckets * sizeof(*t));

	if (t == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; i < buckets; i++)
		t[i].set = SW_NIL;
	sw->routes = t;
	sw->route_mask = buckets - 1;
	return 0;
}

static int hash_grow(struct sw *sw)
{
	struct sw_route *old = sw->routes;
	uint32_t old_n = sw->route_mask + 1;

	if (hash_alloc(sw, old_n * 2) != 0) {
		sw->routes = old;
		sw->route_mask = old_n - 1;
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < old_n; i++)
		if (old[i].set != SW_NIL)
			*route_slot(sw->routes, sw->route_mask, old[i].ip) = old[i];
	free(old);
	return 0;
}

/* Re-lay the direct table over [@p lo, @p lo + @p width), which covers every route. 1 or -ENOMEM. */
static int dense_move(struct sw *sw, uint32_t lo, uint32_t width)
{
	uint16_t *d = malloc(width * sizeof(*d));

	if (d == NULL)
		return -ENOMEM;
	memset(d, 0xff, width * sizeof(*d)); /* SW_NIL16 */
	for (uint32_t i = 0; i < sw->route_span; i++)
		if (sw->dense[i] != SW_NIL16)
			d[sw->route_lo + i - lo] = sw->dense[i];
	free(sw->dense);
	sw->dense = d;
	sw->route_lo = lo;
	sw->route_span = width;
	return 1;
}

/* Move the direct table's routes to a hash table, for good. */
static int to_hash(struct sw *sw)
{
	uint32_t n = SW_HASH_MIN;

	while (n < 2 * (sw->n_routes + 1))
		n <<= 1;
	if (hash_alloc(sw, n) != 0)
		return -ENOMEM;
	for (uint32_t i = 0; i < sw->route_span; i++)
		if (sw->dense[i] != SW_NIL16)
			*route_slot(sw->routes, sw->route_mask, sw->route_lo + i) =
				(struct sw_route){ .ip = sw->route_lo + i, .set = sw->dense[i] };
	free(sw->dense);
	sw->dense = NULL;
	sw->route_span = 0;
	return 0;
}

/*
 * Widen the direct table to hold @p ip if the routes stay dense: 1 when it does, 0 when they would not, -ENOMEM.
 * The table at least doubles each time it widens (build time: adding routes one by one stays linear).
 */
static int dense_cover(struct sw *sw, uint32_t ip)
{
	uint64_t lo = sw->route_lo, hi = (uint64_t)lo + sw->route_span, width;

	if (sw->route_span != 0 && ip >= lo && ip < hi)
		return 1;
	for (uint32_t i = 0; i < sw->route_span; i++) /* the routes' own range, headroom left out */
		if (sw->dense[i] != SW_NIL16) {
			lo = sw->route_lo + i;
			break;
		}
	for (uint32_t i = sw->route_span; i-- > 0;)
		if (sw->dense[i] != SW_NIL16) {
			hi = sw->route_lo + i + 1ull;
			break;
		}
	if (sw->n_routes == 0 || ip < lo)
		lo = ip;
	if (sw->n_routes == 0 || ip >= hi)
		hi = ip + 1ull;
	if (hi - lo > 4ull * (sw->n_routes + 1) + 256)
		return 0;
	width = hi - lo > 2ull * sw->route_span ? hi - lo : 2ull * sw->route_span;
	if (width < 64)
		width = 64;
	if (ip < sw->route_lo && sw->route_span != 0) /* growing down: the headroom goes below */
		lo = hi > width ? hi - width : 0;
	if (lo + width > (1ull << 32))
		lo = (1ull << 32) - width;
	return dense_move(sw, (uint32_t)lo, (uint32_t)width);
}

static bool set_is(const struct sw_set *set, const uint32_t *ports, uint32_t n)
{
	return set->n == n && memcmp(set->ports, ports, n * sizeof(*ports)) == 0;
}

/*
 * The set with exactly these ports, in this order, created if new. Returns its index, or SW_NIL (no memory). The
 * last set found is tried first: routes come in host order, and hosts in a run share their set (a fat tree's core
 * routes a pod's hosts down one port), so a switch routing 65,536 hosts over 65 sets seldom looks further.
 */
static uint32_t set_find_or_add(struct sw *sw, const uint32_t *ports, uint32_t n)
{
	if (sw->set_last < sw->n_sets && set_is(&sw->sets[sw->set_last], ports, n))
		return sw->set_last;
	for (uint32_t s = 0; s < sw->n_sets; s++)
		if (set_is(&sw->sets[s], ports, n))
			return sw->set_last = s;
	if (sw->n_sets == sw->cap_sets) {
		uint32_t cap = sw->cap_sets ? sw->cap_sets * 2 : 16;
		struct sw_set *ns = realloc(sw->sets, cap * sizeof(*ns));

		if (ns == NULL)
			return SW_NIL;
		sw->sets = ns;
		sw->cap_sets = cap;
	}
	struct sw_set *set = &sw->sets[sw->n_sets];

	memset(set, 0, sizeof(*set));
	set->ports = malloc(n * sizeof(*ports));
	set->st = calloc(n, sizeof(*set->st));
	if (set->ports == NULL || set->st == NULL) {
		free(set->ports);
		free(set->st);
		return SW_NIL;
	}
	memcpy(set->ports, ports, n * sizeof(*ports));
	set->n = n;
	set->mod_m = UINT64_MAX / n + 1;
	set->first = ports[0];
	for (uint32_t i = 1; i < n && set->first != SW_NIL; i++)
		if (ports[i] != ports[0] + i)
			set->first = SW_NIL;
	sw->set_last = sw->n_sets;
	return sw->n_sets++;
}

/* Make room for a route to @p ip in whichever table the switch keeps. 0 or -ENOMEM. */
static int route_room(struct sw *sw, uint32_t ip)
{
	if (sw->routes == NULL) {
		int rc = sw->n_sets < SW_NIL16 ? dense_cover(sw, ip) : 0;

		if (rc != 0)
			return rc < 0 ? rc : 0;
		if (to_hash(sw) != 0)
			return -ENOMEM;
	}
	if ((sw->n_routes + 1) * 2 > sw->route_mask + 1)
		return hash_grow(sw);
	return 0;
}

int sw_route_add(struct sw *sw, uint32_t dst_ip, const uint32_t *ports, uint32_t n)
{
	if (n == 0 || n > UINT16_MAX)
		return -EINVAL;
	for (uint32_t i = 0; i < n; i++)
		if (ports[i] >= sw->n_ports)
			return -EINVAL;
	if (sw_route_set(sw, dst_ip) != SW_NIL)
		return -EEXIST;
	if (route_room(sw, dst_ip) != 0)
		return -ENOMEM;
	uint32_t s = set_find_or_add(sw, ports, n);

	if (s == SW_NIL)
		return -ENOMEM;
	if (sw->routes == NULL) {
		sw->dense[dst_ip - sw->route_lo] = (uint16_t)s;
	} else {
		struct sw_route *r = route_slot(sw->routes, sw->route_mask, dst_ip);

		r->ip = dst_ip;
		r->set = s;
	}
	sw->n_routes++;
	return 0;
}

void sw_routes_free(struct sw *sw)
{
	for (uint32_t s = 0; s < sw->n_sets; s++) {
		free(sw->sets[s].ports);
		free(sw->sets[s].st);
	}
	free(sw->sets);
	free(sw->routes);
	free(sw->dense);
}
