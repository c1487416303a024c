/* The Scala Switch device: creation, ports, tags, and the stats getters (routes and sets: sw_route.c). */
#include "sw_pvt.h"
#include "emu_counter.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

EMU_COUNTER_NAMES(sw_counter, SW_COUNTERS, SW_C_COUNT)


/* The tag pool size: see struct sw_tag in sw_pvt.h. */
#define SW_TAGS_MAX (1u << 17)
#define SW_TAGS_MIN 64u /* tags at creation; the array doubles as packets queue up */

static uint32_t tag_count(const struct sw *sw)
{
	uint64_t lossless_pools = 0, bytes, want, have = emu_pool_size(sw->env.np->pkts);
	uint32_t n = 16;

	for (int i = 0; i < SW_POOL_COUNT; i++)
		lossless_pools += sw->b.pool_pg[i] != 0;
	bytes = sw->p->total_buffer + sw->b.headroom_per_port * sw->n_ports * lossless_pools;
	want = bytes / SW_MIN_CHARGE + sw->n_ports;
	if (want > have)
		want = have;
	/*
	 * Every switch of a fabric sizes its own tags, so cap them: 2^17 tags hold 131,072 queued packets, the whole
	 * default 256 MB buffer in full 4 KB packets (~62,000). A switch that still runs out counts DROP_NO_TAG.
	 */
	if (want > SW_TAGS_MAX)
		want = SW_TAGS_MAX;
	while (n < want) /* want <= SW_TAGS_MAX */
		n <<= 1;
	return n;
}

/* Chain tags [@p from, @p to) into the free list, lowest first. */
static void tags_free_range(struct sw *sw, uint32_t from, uint32_t to)
{
	for (uint32_t i = from; i < to; i++)
		sw->tags[i] = (struct sw_tag){ .next = i + 1 < to ? i + 1 : sw->tag_free };
	sw->tag_free = from;
}

/* The tag array starts small and doubles as packets queue up, to at most n_tags. */
static int tags_init(struct sw *sw)
{
	sw->n_tags = tag_count(sw);
	sw->n_tags_alloc = sw->n_tags < SW_TAGS_MIN ? sw->n_tags : SW_TAGS_MIN;
	sw->tags = malloc(sw->n_tags_alloc * sizeof(*sw->tags));
	if (sw->tags == NULL)
		return -ENOMEM;
	sw->tag_free = SW_NIL;
	tags_free_range(sw, 0, sw->n_tags_alloc);
	return 0;
}

/*
 * Double the tag array (up to n_tags) when every tag is taken: as many times as log2 of the most packets the
 * switch ever holds, so off the common path. Tags are indexes, so moving the array moves nothing else.
 * Returns false at n_tags or without memory (the caller counts DROP_NO_TAG).
 */
static bool tags_grow(struct sw *sw)
{
	uint32_t n = sw->n_tags_alloc * 2 < sw->n_tags ? sw->n_tags_alloc * 2 : sw->n_tags;
	struct sw_tag *t;

	if (n <= sw->n_tags_alloc || (t = realloc(sw->tags, n * sizeof(*t))) == NULL)
		return false;
	sw->tags = t;
	tags_free_range(sw, sw->n_tags_alloc, n);
	sw->n_tags_alloc = n;
	return true;
}

uint32_t sw_tag_get_slow(struct sw *sw)
{
	if (!tags_grow(sw))
		return SW_NIL;
	return sw_tag_get(sw);
}

/* The ports, 64-byte aligned (a port's lines are laid out by use, sw_pvt.h), empty and idle. 0 or -ENOMEM. */
static int ports_init(struct sw *sw)
{
	sw->ports = aligned_alloc(_Alignof(struct sw_port), sw->n_ports * sizeof(*sw->ports));
	if (sw->ports == NULL)
		return -ENOMEM;
	memset(sw->ports, 0, sw->n_ports * sizeof(*sw->ports));
	for (uint32_t i = 0; i < sw->n_ports; i++) {
		struct sw_port *e = &sw->ports[i];

		e->sw = sw;
		e->idx = i;
		e->sending = SW_NIL;
		/* Until sw_port_mac(): a locally administered MAC naming the switch and the port. */
		e->mac[0] = 0x02;
		e->mac[1] = 0x53;
		e->mac[2] = (uint8_t)(sw->env.node_id >> 8);
		e->mac[3] = (uint8_t)sw->env.node_id;
		e->mac[4] = (uint8_t)(i >> 8);
		e->mac[5] = (uint8_t)i;
		for (int tc = 0; tc < SW_TC_COUNT; tc++)
			e->q[tc].head = e->q[tc].tail = SW_NIL;
		e->arb.head = e->arb.tail = SW_NIL;
	}
	return 0;
}

struct sw *sw_create(const struct sw_env *env)
{
	struct sw *sw;

	if (env->n_ports == 0 || env->n_ports > UINT16_MAX) {
		errno = EINVAL;
		return NULL;
	}
	sw = calloc(1, sizeof(*sw));
	if (sw == NULL)
		goto nomem;
	sw->env = *env;
	sw->p = env->params;
	sw->n_ports = env->n_ports;
	if (env->dscp != NULL)
		sw->dscp = *env->dscp;
	else
		wire_dscp_defaults(&sw->dscp);
	for (int d = 0; d < 64; d++)
		sw->role_of[d] = (int8_t)wire_dscp_role(&sw->dscp, (uint8_t)d);
	if (sw_buffer_setup(sw->p, sw->n_ports, &sw->b, NULL, 0) != 0) {
		free(sw);
		errno = EINVAL;
		return NULL;
	}
	emu_rng_init(&sw->rng, env->seed, env->node_id);
	emu_rng_init(&sw->fl_rng, env->seed, sw_flowlet_stream(env->run, env->node_id));
	sw->salt = sw_ecmp_salt(env->node_id);
	sw_flow_crc_consts(sw->salt, sw->crc_z);
	sw_ecmp_perm(sw->salt, sw->ecmp_perm);
	if (env->shell) { /* another rank runs it: only what the summary reads (sw_env.shell) */
		sw->shell_st = calloc(sw->n_ports, sizeof(*sw->shell_st));
		if (sw->shell_st == NULL)
			goto fail;
		return sw;
	}
	sw->arb_ports = calloc(sw->n_ports, sizeof(*sw->arb_ports));
	sw->arb_end = (struct emu_sched_end){ .fn = sw_arb_run, .a = sw };
	if (ports_init(sw) != 0 || sw->arb_ports == NULL || tags_init(sw) != 0)
		goto fail;
	if (sw->p->lb_method == SW_LB_FLOWLET && !env->shell) {
		sw->flow_mem = calloc((size_t)SW_FLOW_SETS * SW_FLOW_SLOTS, sizeof(*sw->flow_mem));
		if (sw->flow_mem == NULL)
			goto fail;
	}
	return sw;
fail:
	sw_destroy(sw);
nomem:
	errno = ENOMEM;
	return NULL;
}

void sw_destroy(struct sw *sw)
{
	if (sw == NULL)
		return;
	for (uint32_t i = 0; sw->ports != NULL && i < sw->n_ports; i++) {
		struct sw_port *e = &sw->ports[i];

		for (uint32_t k = e->pfcq_head; k != e->pfcq_tail; k++)
			net_pkt_free(sw->env.np, e->pfcq[k % SW_PFCQ]);
	}
	for (uint32_t t = 0; sw->tags != NULL && t < sw->n_tags_alloc; t++)
		if (sw->tags[t].pkt != NULL)
			net_pkt_free(sw->env.np, sw->tags[t].pkt);
	sw_routes_free(sw);
	free(sw->flow_mem);
	free(sw->tags);
	free(sw->arb_ports);
	free(sw->ports);
	free(sw->shell_st);
	free(sw);
}

void sw_attach(struct sw *sw, uint32_t port, struct net_dir *out, bool faces_nic)
{
	assert(port < sw->n_ports);
	if (sw->ports == NULL) /* a shell sends nothing */
		return;
	struct sw_port *e = &sw->ports[port];

	e->out = out;
	e->bps = out->link->bps;
	e->delay = out->link->delay;
	e->faces_nic = faces_nic;
}

void sw_port_mac(struct sw *sw, uint32_t port, const uint8_t mac[6], const uint8_t peer_mac[6])
{
	assert(port < sw->n_ports);
	if (sw->ports == NULL)
		return;
	struct sw_port *e = &sw->ports[port];

	memcpy(e->mac, mac, sizeof(e->mac));
	memcpy(e->peer_mac, peer_mac, sizeof(e->peer_mac));
}

const uint64_t *sw_counters(const struct sw *sw)
{
	return sw->c;
}

const struct sw_buffer *sw_buffer(const struct sw *sw)
{
	return &sw->b;
}

uint32_t sw_node_id(const struct sw *sw)
{
	return sw->env.node_id;
}

const char *sw_name(const struct sw *sw)
{
	return sw->env.name;
}

uint32_t sw_n_ports(const struct sw *sw)
{
	return sw->n_ports;
}

bool sw_oversubscribed(const struct sw *sw, uint64_t *sum_bps)
{
	uint64_t sum = 0;

	for (uint32_t i = 0; sw->ports != NULL && i < sw->n_ports; i++)
		sum += sw->ports[i].out != NULL ? sw->ports[i].bps : 0;
	if (sum_bps != NULL)
		*sum_bps = sum;
	return sum > sw->p->switching_capacity_bps;
}

void sw_port_stats(const struct sw *sw, uint32_t port, struct sw_port_stats *out, emu_ps_t now)
{
	memset(out, 0, sizeof(*out));
	if (port >= sw->n_ports)
		return;
	if (sw->ports == NULL) { /* a shell never paused: its figures are the loaded ones */
		*out = sw->shell_st[port];
		return;
	}
	const struct sw_port *e = &sw->ports[port];

	*out = e->st;
	for (int tc = 0; tc < SW_TC_COUNT; tc++) {
		if (e->paused_until[tc] == 0)
			continue;
		if (now > e->paused_since[tc])
			out->paused_ps[tc] += now - e->paused_since[tc];
		if (sw_pause_in_ivl(e, (uint32_t)tc, now) > out->ivl_max_pause_ps[tc])
			out->ivl_max_pause_ps[tc] = sw_pause_in_ivl(e, (uint32_t)tc, now);
	}
}

void sw_stats_load(struct sw *sw, const uint64_t *c, const struct sw_port_stats *ports)
{
	memcpy(sw->c, c, sizeof(sw->c));
	if (sw->ports == NULL) {
		memcpy(sw->shell_st, ports, sw->n_ports * sizeof(*ports));
		return;
	}
	for (uint32_t p = 0; p < sw->n_ports; p++) {
		sw->ports[p].st = ports[p];
		for (int tc = 0; tc < SW_TC_COUNT; tc++)
			sw->ports[p].paused_until[tc] = 0;
	}
}

void sw_port_pfc_interval_reset(struct sw *sw, uint32_t port, emu_ps_t now)
{
	if (port >= sw->n_ports)
		return;
	if (sw->ports == NULL) {
		for (int tc = 0; tc < SW_TC_COUNT; tc++)
			sw->shell_st[port].ivl_max_pause_ps[tc] = 0;
		return;
	}
	struct sw_port *e = &sw->ports[port];

	e->pfc_ivl_start = now;
	for (int tc = 0; tc < SW_TC_COUNT; tc++)
		e->st.ivl_max_pause_ps[tc] = 0;
}

void sw_link_stats(const struct sw *sw, struct sw_port_stats *sum, emu_ps_t now)
{
	struct sw_port_stats s;

	memset(sum, 0, sizeof(*sum));
	for (uint32_t i = 0; i < sw->n_ports; i++) {
		sw_port_stats(sw, i, &s, now);
		sum->rx_frames += s.rx_frames;
		sum->rx_bytes += s.rx_bytes;
		sum->rx_frame_bytes += s.rx_frame_bytes;
		sum->tx_frames += s.tx_frames;
		sum->tx_bytes += s.tx_bytes;
		sum->tx_frame_bytes += s.tx_frame_bytes;
		sum->rx_drops += s.rx_drops;
		sum->tx_drops += s.tx_drops;
		sum->trims += s.trims;
		sum->trimmed_bytes += s.trimmed_bytes;
		sum->trimmed_tx_drops += s.trimmed_tx_drops;
		sum->trimmed_rx_drops += s.trimmed_rx_drops;
		for (int tc = 0; tc < SW_TC_COUNT; tc++) {
			sum->ecn_marked[tc] += s.ecn_marked[tc];
			sum->xoff_tx[tc] += s.xoff_tx[tc];
			sum->xon_tx[tc] += s.xon_tx[tc];
			sum->xoff_rx[tc] += s.xoff_rx[tc];
			sum->xon_rx[tc] += s.xon_rx[tc];
			sum->paused_ps[tc] += s.paused_ps[tc];
		}
	}
}

void sw_port_occ(const struct sw *sw, uint32_t port, struct sw_port_occ *out)
{
	memset(out, 0, sizeof(*out));
	if (port >= sw->n_ports || sw->ports == NULL) /* a shell holds nothing */
		return;
	const struct sw_port *e = &sw->ports[port];

	for (int i = 0; i < SW_POOL_COUNT; i++) {
		out->ingress[i] = e->pl[i].in_occ;
		out->headroom[i] = e->pl[i].hr_occ;
		out->egress[i] = e->pl[i].eg_occ;
		out->pausing[i] = e->pl[i].pausing;
		out->ecn_avg[i] = e->pl[i].ecn_avg >> SW_EWMA_SHIFT;
		out->ingress_total[i] = e->pl[i].in_total;
		out->egress_total[i] = e->pl[i].eg_total_b;
	}
}

void sw_pool_group_occ(const struct sw *sw, uint32_t pool, const uint8_t *group, uint64_t in[2], uint64_t eg[2],
		       uint64_t *shared)
{
	in[0] = in[1] = eg[0] = eg[1] = *shared = 0;
	if (pool >= SW_POOL_COUNT)
		return;
	for (uint32_t p = 0; sw->ports != NULL && p < sw->n_ports; p++) {
		in[group[p] & 1] += sw->ports[p].pl[pool].in_occ;
		eg[group[p] & 1] += sw->ports[p].pl[pool].eg_occ;
	}
	*shared = sw->in_occ[pool];
}

void sw_pool_occ(const struct sw *sw, uint32_t pool, struct sw_pool_occ *out)
{
	memset(out, 0, sizeof(*out));
	if (pool >= SW_POOL_COUNT)
		return;
	out->size = sw->b.pool_size[pool];
	out->ingress = sw->in_occ[pool];
	out->headroom = sw->hr_occ[pool];
	out->egress = sw->eg_occ[pool];
}

uint32_t sw_ecmp_set_count(const struct sw *sw)
{
	return sw->n_sets;
}

int sw_ecmp_set_info(const struct sw *sw, uint32_t set, struct sw_ecmp_set_info *out)
{
	if (set >= sw->n_sets)
		return -ENOENT;
	const struct sw_set *s = &sw->sets[set];

	out->n = s->n;
	out->ports = s->ports;
	out->flow_table_slots = s->slots != NULL ? SW_FLOW_SLOTS : 0;
	out->seen = s->seen;
	out->formed = s->formed;
	return 0;
}

int sw_ecmp_member_stats(const struct sw *sw, uint32_t set, uint32_t m, struct sw_ecmp_member_stats *out)
{
	if (set >= sw->n_sets || m >= sw->sets[set].n)
		return -ENOENT;
	*out = sw->sets[set].st[m];
	return 0;
}
