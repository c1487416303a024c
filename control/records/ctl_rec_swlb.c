/* scala-switch-load-balancing-stats: what each member of each equal-cost set of each switch was assigned. */
#include <errno.h>
#include <stdlib.h>

#include "ctl_rec_pvt.h"

/* The 28 columns of switch-packet-handling.md, What is recorded, in its order. */
#define LB_HEADER \
	"time_utc,sim_time_sec,component_name,component_type,node_id,tier,subtier,ifid,ecmp_group_id," \
	"ecmp_group_ifids,group_size,group_formed_ns,flow_table_slots,bytes,ivl_bytes,packets,ivl_packets," \
	"assignments,ivl_assignments,movements_in,ivl_movements_in,movements_out,ivl_movements_out,ivl_share," \
	"paused_skips,ivl_paused_skips,paused_selections,ivl_paused_selections"

struct ctl_swlb {
	const struct ctl_swrec *sr;
	struct rec_csv *csv;
	uint32_t *set0;                       /* per switch: its first set's entry in base */
	uint32_t *base;                       /* per set of every switch: its first member's entry in prev */
	struct sw_ecmp_member_stats *prev;    /* per member: its stats at the previous rows */
};

/* Size the per-member memory: the switches' sets are all added at build time (sw_route_add()). */
static int lb_alloc(struct ctl_swlb *l)
{
	const struct ctl_swrec *sr = l->sr;
	uint32_t n_sets = 0, n_members = 0;

	for (uint32_t s = 0; s < sr->n_sws; s++)
		n_sets += sw_ecmp_set_count(sr->sws[s]);
	l->set0 = calloc(sr->n_sws, sizeof(*l->set0));
	l->base = calloc(n_sets ? n_sets : 1, sizeof(*l->base));
	if (l->set0 == NULL || l->base == NULL)
		return -ENOMEM;
	n_sets = 0;
	for (uint32_t s = 0; s < sr->n_sws; s++) {
		l->set0[s] = n_sets;
		for (uint32_t k = 0; k < sw_ecmp_set_count(sr->sws[s]); k++, n_sets++) {
			struct sw_ecmp_set_info si = { 0 };
			(void)sw_ecmp_set_info(sr->sws[s], k, &si);
			l->base[n_sets] = n_members;
			n_members += si.n;
		}
	}
	l->prev = calloc(n_members ? n_members : 1, sizeof(*l->prev));
	return l->prev == NULL ? -ENOMEM : 0;
}

struct ctl_swlb *ctl_swlb_open(const struct ctl_config *cfg, const struct ctl_swrec *sr, const char *dir,
			       int64_t epoch_s, char *err, size_t errlen)
{
	struct ctl_swlb *l = calloc(1, sizeof(*l));

	if (l != NULL)
		l->sr = sr;
	if (l == NULL || lb_alloc(l) < 0) {
		ctl_swlb_close(l, err, errlen);
		snprintf(err, errlen, "out of memory opening the records");
		errno = ENOMEM;
		return NULL;
	}
	l->csv = ctl_rec_csv_open(cfg, dir, "scala-switch-load-balancing-stats", LB_HEADER, epoch_s, err, errlen);
	if (l->csv == NULL) {
		int e = errno;
		ctl_swlb_close(l, err, errlen);
		errno = e;
		return NULL;
	}
	return l;
}

/* Member @p m of set @p k (described by @p si) of switch @p s: its stats @p ms, and @p p at the previous rows. */
static void lb_row(struct ctl_swlb *l, uint32_t s, uint32_t k, const struct sw_ecmp_set_info *si, uint32_t m,
		   const struct sw_ecmp_member_stats *ms, const struct sw_ecmp_member_stats *p, uint64_t set_ivl_bytes,
		   emu_ps_t now)
{
	const struct sw *sw = l->sr->sws[s];
	FILE *f = rec_csv_file(l->csv);

	ctl_rec_row_head(l->csv, now);
	rec_put_ch(f, ',');
	rec_put_str(f, sw_name(sw));
	rec_put_str(f, "," CTL_REC_SW_COMPONENT_TYPE);
	rec_put_cu64(f, sw_node_id(sw));
	rec_put_cu64(f, l->sr->ports[l->sr->port0[s]].tier);
	rec_put_cu64(f, CTL_REC_SUBTIER_NONE);
	rec_put_cu64(f, si->ports[m]);
	rec_put_cu64(f, k);
	rec_put_str(f, ",[");
	/* the members' ports, as uet-monitor writes a list: [4:5:6:7] */
	for (uint32_t j = 0; j < si->n; j++) {
		if (j)
			rec_put_ch(f, ':');
		rec_put_u64(f, si->ports[j]);
	}
	rec_put_str(f, "]");
	rec_put_cu64(f, si->n);
	rec_put_ch(f, ',');
	rec_fmt_ns(f, si->formed);
	rec_put_cu64(f, si->flow_table_slots);
	rec_put_cu64(f, ms->bytes);
	rec_put_cu64(f, ms->bytes - p->bytes);
	rec_put_cu64(f, ms->packets);
	rec_put_cu64(f, ms->packets - p->packets);
	rec_put_cu64(f, ms->assignments);
	rec_put_cu64(f, ms->assignments - p->assignments);
	rec_put_cu64(f, ms->movements_in);
	rec_put_cu64(f, ms->movements_in - p->movements_in);
	rec_put_cu64(f, ms->movements_out);
	rec_put_cu64(f, ms->movements_out - p->movements_out);
	rec_put_ch(f, ',');
	ctl_rec_put_quot(f, ms->bytes - p->bytes, 1, set_ivl_bytes, 6);
	rec_put_cu64(f, ms->paused_skips);
	rec_put_cu64(f, ms->paused_skips - p->paused_skips);
	rec_put_cu64(f, ms->paused_selections);
	rec_put_cu64(f, ms->paused_selections - p->paused_selections);
	rec_put_ch(f, '\n');
}

/* The rows of set @p k of switch @p s, members in order; then the set's interval restarts. */
static void lb_set_rows(struct ctl_swlb *l, uint32_t s, uint32_t k, emu_ps_t now)
{
	const struct sw *sw = l->sr->sws[s];
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
	for (uint32_t s = 0; s < l->sr->n_sws; s++)
		for (uint32_t k = 0; ctl_swrec_here(l->sr, s) && k < sw_ecmp_set_count(l->sr->sws[s]); k++)
			lb_set_rows(l, s, k, now);
}

int ctl_swlb_close(struct ctl_swlb *l, char *err, size_t errlen)
{
	if (l == NULL)
		return 0;
	int rc = rec_csv_close(l->csv, err, errlen);

	free(l->set0);
	free(l->base);
	free(l->prev);
	free(l);
	return rc;
}

struct rec_csv *ctl_swlb_csv(const struct ctl_swlb *l)
{
	return l != NULL ? l->csv : NULL;
}
