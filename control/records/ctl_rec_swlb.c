/* scala-switch-load-balancing-stats: what each member of each equal-cost set of each switch was assigned. */

#include "ctl_rec_pvt.h"

/* One row: a member of an equal-cost set, its stats now and at the previous rows. */
struct lb_row {
	struct ctl_rec_cur c;         /* struct sw_ecmp_member_stats */
	const struct sw_ecmp_set_info *si;
	const char *name;
	uint64_t node_id, tier, ifid, set, n, slots, formed;
	uint64_t set_ivl_bytes;       /* the set's bytes in the interval */
};

/* ecmp_group_ifids: the members' ports, as uet-monitor writes a list: [4:5:6:7]. */
static void lb_ifids(const void *row, uint32_t arg, struct ctl_rec_val *v)
{
	const struct lb_row *r = row;

	(void)arg;
	v->list = r->si->ports;
	v->n = r->si->n;
}

/* ivl_share: the member's part of the set's bytes in the interval. */
static void lb_share(const void *row, uint32_t arg, struct ctl_rec_val *v)
{
	const struct lb_row *r = row;
	const struct sw_ecmp_member_stats *s = r->c.cur, *p = r->c.prev;

	(void)arg;
	v->num = s->bytes - p->bytes;
	v->den = r->set_ivl_bytes;
}

/* The 28 columns of switch-packet-handling.md, What is recorded, in its order. */
static const struct ctl_rec_col lb_cols[] = {
	CTL_REC_COLS_SW_PORT(struct lb_row),
	CTL_REC_COL_U64("ecmp_group_id", struct lb_row, set),
	CTL_REC_COL("ecmp_group_ifids", LIST, 0, lb_ifids, 0),
	CTL_REC_COL_U64("group_size", struct lb_row, n),
	CTL_REC_COL_FIXED("group_formed_ns", 3, struct lb_row, formed),
	CTL_REC_COL_U64("flow_table_slots", struct lb_row, slots),
	CTL_REC_COL_PAIR(bytes, struct sw_ecmp_member_stats, bytes),
	CTL_REC_COL_PAIR(packets, struct sw_ecmp_member_stats, packets),
	CTL_REC_COL_PAIR(assignments, struct sw_ecmp_member_stats, assignments),
	CTL_REC_COL_PAIR(movements_in, struct sw_ecmp_member_stats, movements_in),
	CTL_REC_COL_PAIR(movements_out, struct sw_ecmp_member_stats, movements_out),
	CTL_REC_COL("ivl_share", QUOT, 6, lb_share, 0),
	CTL_REC_COL_PAIR(paused_skips, struct sw_ecmp_member_stats, paused_skips),
	CTL_REC_COL_PAIR(paused_selections, struct sw_ecmp_member_stats, paused_selections),
};
const struct ctl_rec_schema ctl_rec_lb_schema = CTL_REC_SCHEMA("scala-switch-load-balancing-stats", lb_cols);

struct ctl_swlb {
	struct ctl_rec_sws w;                 /* first: the switches, the file, the arrays below */
	uint32_t *set0;                       /* per switch: its first set's entry in base */
	uint32_t *base;                       /* per set of every switch: its first member's entry in prev */
	struct sw_ecmp_member_stats *prev;    /* per member: its stats at the previous rows */
};

/* Number the sets of switch @p s after *@p n_sets sets holding *@p n_members members, both counted on; with
 * @p base, write each set's first member's entry. The switches' sets are all added at build time (sw_route_add()). */
static void lb_number(const struct ctl_swrec *sr, uint32_t s, uint32_t *n_sets, uint32_t *n_members, uint32_t *base)
{
	for (uint32_t k = 0; k < sw_ecmp_set_count(sr->sws[s]); k++, (*n_sets)++) {
		struct sw_ecmp_set_info si = { 0 };

		(void)sw_ecmp_set_info(sr->sws[s], k, &si);
		if (base != NULL)
			base[*n_sets] = *n_members;
		*n_members += si.n;
	}
}

struct ctl_swlb *ctl_swlb_open(const struct ctl_config *cfg, const struct ctl_swrec *sr, const char *dir,
			       int64_t epoch_s, char *err, size_t errlen)
{
	uint32_t n_sets = 0, n_members = 0;

	for (uint32_t s = 0; s < sr->n_sws; s++)
		lb_number(sr, s, &n_sets, &n_members, NULL);
	const size_t mem[CTL_REC_SWS_MEM] = { sr->n_sws * sizeof(uint32_t), (n_sets ? n_sets : 1) * sizeof(uint32_t),
					      (n_members ? n_members : 1) * sizeof(struct sw_ecmp_member_stats) };
	struct ctl_swlb *l = ctl_rec_sws_new(sizeof(*l), mem, cfg, sr, dir, &ctl_rec_lb_schema, epoch_s, err, errlen);

	if (l == NULL)
		return NULL;
	l->set0 = l->w.mem[0];
	l->base = l->w.mem[1];
	l->prev = l->w.mem[2];
	n_sets = n_members = 0;
	for (uint32_t s = 0; s < sr->n_sws; s++) {
		l->set0[s] = n_sets;
		lb_number(sr, s, &n_sets, &n_members, l->base);
	}
	return l;
}

/* Member @p m of set @p k (described by @p si) of switch @p s: its stats @p ms, and @p p at the previous rows. */
static void lb_row(struct ctl_swlb *l, uint32_t s, uint32_t k, const struct sw_ecmp_set_info *si, uint32_t m,
		   const struct sw_ecmp_member_stats *ms, const struct sw_ecmp_member_stats *p, uint64_t set_ivl_bytes,
		   emu_ps_t now)
{
	const struct sw *sw = l->w.sr->sws[s];
	struct lb_row r = {
		.c = { ms, p }, .si = si, .name = sw_name(sw), .node_id = sw_node_id(sw),
		.tier = l->w.sr->ports[l->w.sr->port0[s]].tier, .ifid = si->ports[m], .set = k, .n = si->n,
		.slots = si->flow_table_slots, .formed = si->formed, .set_ivl_bytes = set_ivl_bytes,
	};

	ctl_rec_row(l->w.csv, &ctl_rec_lb_schema, &r, now);
}

/* The rows of set @p k of switch @p s, members in order; then the set's interval restarts. */
static void lb_set_rows(struct ctl_swlb *l, uint32_t s, uint32_t k, emu_ps_t now)
{
	const struct sw *sw = l->w.sr->sws[s];
	struct sw_ecmp_member_stats *prev = &l->prev[l->base[l->set0[s] + k]];
	struct sw_ecmp_set_info si;
	uint64_t set_ivl = 0;

	/* an equal-cost set has two members or more, and exists for the switch once a packet has used it */
	if (sw_ecmp_set_info(sw, k, &si) < 0 || si.n < 2 || !si.seen)
		return;
	for (uint32_t m = 0; m < si.n; m++) {
		struct sw_ecmp_member_stats ms;
		if (sw_ecmp_member_stats(sw, k, m, &ms) == 0)
			set_ivl += ms.bytes - prev[m].bytes;
	}
	for (uint32_t m = 0; m < si.n; m++) {
		struct sw_ecmp_member_stats ms;
		if (sw_ecmp_member_stats(sw, k, m, &ms) < 0)
			continue;
		lb_row(l, s, k, &si, m, &ms, &prev[m], set_ivl, now);
		prev[m] = ms;
	}
}

void ctl_swlb_rows(struct ctl_swlb *l, emu_ps_t now)
{
	if (l == NULL)
		return;
	for (uint32_t s = 0; s < l->w.sr->n_sws; s++)
		for (uint32_t k = 0; ctl_swrec_here(l->w.sr, s) && k < sw_ecmp_set_count(l->w.sr->sws[s]); k++)
			lb_set_rows(l, s, k, now);
}

