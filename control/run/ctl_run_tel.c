/*
 * Telemetry of a real-time run: what the /uetemu/... commands answer on DPDK's telemetry socket while the poll
 * loop runs. The dataplane registers the commands and calls these handlers on DPDK's telemetry thread; they only
 * read the run, each counter with one aligned 64-bit load (DP_LOAD) and no lock, so an answer's numbers are each
 * exact but may be a few increments apart from one another.
 */
#include "ctl_run_pvt.h"
#include "ctl_run_ext_pvt.h"
#include "ctl_run_rt_pvt.h"
#include "ctl_run_ctl_pvt.h"
#include "emu_hist.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CTL_TEL_PAGE 40 /* hosts or links in one answer: DPDK cuts an answer at 16 KB */

struct ctl_report_in ctl_run_tel_view(const struct ctl_run_state *r)
{
	return (struct ctl_report_in){ .cfg = r->cfg, .hosts = r->hosts, .part_counters = r->np.counters,
				       .links = r->links, .n_links = r->n_links, .topo = r->topo, .sws = r->sws,
				       .n_sws = r->n_sws };
}

/* Wall time since the poll loop started, in ms. */
static uint64_t wall_ms(const struct ctl_run_state *r)
{
	return (uint64_t)((unsigned __int128)(dp_tsc() - r->rt->t0) * 1000 / r->rt->hz);
}

void ctl_run_tel_fabric(const struct ctl_run_state *r, struct ctl_report_counters *c)
{
	struct ctl_report_in in = ctl_run_tel_view(r);
	uint64_t pc[NET_C_COUNT] = { 0 };

	for (uint32_t i = 0; i < r->n_lcs; i++) /* every lcore's partition counters */
		for (int k = 0; k < NET_C_COUNT; k++)
			pc[k] += DP_LOAD(ctl_run_lc(r, i)->np->counters[k]);
	in.part_counters = pc;
	ctl_report_counters(&in, c);
}

/* The fabric's counters, as summary.json's "counters" (NICs, switches and the partition summed). */
static void tel_counters(const struct ctl_run_state *r, struct dp_tel *o)
{
	struct ctl_report_counters c;

	ctl_run_tel_fabric(r, &c);
	const uint64_t v[] = { c.drops, c.trims, c.nacks, c.retransmits, c.timeouts, c.ecn_marks, c.pfc_pauses };
	static const char *const n[] = { "drops", "trims", "nacks", "retransmits", "timeouts", "ecn_marks",
					 "pfc_pauses" };
	for (size_t i = 0; o != NULL && i < sizeof(v) / sizeof(v[0]); i++)
		dp_tel_u64(o, n[i], v[i]);
}

/* The DPDK ports' counters and last-second rates, summed. */
static void tel_port_totals(const struct ctl_run_state *r, struct dp_tel *o)
{
	static const char *const n[] = { "rx_frames", "rx_bytes", "tx_frames", "tx_bytes", "rx_bps", "tx_bps" };
	uint64_t v[6] = { 0 };

	for (uint32_t i = 0; i < r->n_exts; i++) {
		struct dp_port_stats st;
		if (r->exts[i].off)
			continue;
		dp_port_stats(r->rt->dp, r->exts[i].dp_port, &st);
		v[0] += st.rx_frames, v[1] += st.rx_bytes, v[2] += st.tx_frames, v[3] += st.tx_bytes;
		v[4] += DP_LOAD(r->exts[i].rx_bps), v[5] += DP_LOAD(r->exts[i].tx_bps);
	}
	for (int i = 0; o != NULL && i < 6; i++)
		dp_tel_u64(o, n[i], v[i]);
}

void ctl_run_tel_rt_sum(const struct ctl_run_state *r, struct run_rt_stats *out)
{
	memset(out, 0, sizeof(*out));
	for (uint32_t i = 0; i < r->n_lcs; i++) {
		const struct run_rt_stats *s = &ctl_run_lc(r, i)->rt;
		emu_ps_t m = DP_LOAD(s->late_max);

		out->polls += DP_LOAD(s->polls);
		out->late_max = m > out->late_max ? m : out->late_max;
		for (int k = 0; k < 3; k++)
			out->late_over[k] += DP_LOAD(s->late_over[k]);
		out->timers += DP_LOAD(s->timers);
		out->timers_late += DP_LOAD(s->timers_late);
	}
}

static int tel_summary(void *arg, const char *params, struct dp_tel *o)
{
	const struct ctl_run_state *r = arg;
	struct dp_tel *m;

	(void)params;
	dp_tel_str(o, "simulation", r->cfg->sim.simulation_name);
	struct run_rt_stats rt;
	uint64_t events = 0;

	ctl_run_tel_rt_sum(r, &rt);
	for (uint32_t i = 0; i < r->n_lcs; i++)
		events += emu_sched_events_run(ctl_run_lc(r, i)->np->sched);
	dp_tel_u64(o, "sim_time_ps", DP_LOAD(ctl_run_lc(r, 0)->rt_now));
	dp_tel_u64(o, "wall_ms", wall_ms(r));
	dp_tel_u64(o, "events", events);
	dp_tel_u64(o, "polls", rt.polls);
	dp_tel_u64(o, "max_lateness_ns", rt.late_max / 1000);
	dp_tel_u64(o, "hosts", r->cfg->n_hosts);
	dp_tel_u64(o, "links", r->n_links);
	m = dp_tel_obj(o, "messages");
	if (m != NULL) {
		dp_tel_u64(m, "total", r->n_msgs);
		dp_tel_u64(m, "posted", DP_LOAD(r->n_posted));
		dp_tel_u64(m, "completed", DP_LOAD(r->n_completed));
	}
	if (r->rdma != NULL)
		dp_tel_u64(o, "wqes_done", ctl_rdma_wqes_done(r->rdma));
	tel_counters(r, dp_tel_obj(o, "counters"));
	tel_port_totals(r, dp_tel_obj(o, "ports"));
	return 0;
}

/* One host: name, address and bytes; with @p all, every NIC counter by its summary.json name. */
static void tel_host(const struct ctl_run_state *r, uint32_t h, struct dp_tel *o, bool all)
{
	uint32_t a = r->cfg->hosts[h].ip;
	char ip[16];

	snprintf(ip, sizeof(ip), "%u.%u.%u.%u", a >> 24, (a >> 16) & 0xff, (a >> 8) & 0xff, a & 0xff);
	dp_tel_str(o, "name", r->cfg->hosts[h].name);
	dp_tel_str(o, "ip", ip);
	const struct port_nic *n = &r->hosts[h];
	const uint64_t *c = n->ops->counters(n->dev);
	struct port_nic_stats st;

	n->ops->stats(n->dev, &st, 0);
	dp_tel_u64(o, "tx_bytes", st.tx_bytes);
	dp_tel_u64(o, "rx_bytes", st.rx_bytes);
	dp_tel_u64(o, "rx_payload_bytes", st.rx_payload_bytes);
	if (!all) {
		dp_tel_u64(o, "retransmits", st.retransmits);
		return;
	}
	struct dp_tel *k = dp_tel_obj(o, "counters");
	for (uint32_t i = 1; k != NULL && i < n->ops->n_counters; i++)
		dp_tel_u64(k, n->ops->counter_name((int)i), DP_LOAD(c[i]));
}

/*
 * What a list command's @p params select among @p n items named by @p name: one item by its name (returned,
 * with *@p first = n), or a page of CTL_TEL_PAGE items from index *@p first ("" = 0, or a number): returns -1.
 * -2 when @p params is neither.
 */
static long tel_select(const char *params, uint32_t n, const char *(*name)(const void *, uint32_t), const void *ctx,
		       uint32_t *first)
{
	char *end;

	*first = 0;
	for (uint32_t i = 0; params[0] != '\0' && i < n; i++)
		if (strcmp(name(ctx, i), params) == 0)
			return i;
	if (params[0] == '\0')
		return -1;
	unsigned long v = strtoul(params, &end, 10);
	if (*end != '\0' || params[0] < '0' || params[0] > '9')
		return -2;
	*first = v < n ? (uint32_t)v : n;
	return -1;
}

static const char *host_name(const void *ctx, uint32_t i)
{
	return ((const struct ctl_run_state *)ctx)->cfg->hosts[i].name;
}

static int tel_hosts(void *arg, const char *params, struct dp_tel *o)
{
	const struct ctl_run_state *r = arg;
	uint32_t first, n = r->cfg->n_hosts;
	long one = tel_select(params, n, host_name, r, &first);

	if (one >= 0) {
		tel_host(r, (uint32_t)one, o, true);
		return 0;
	}
	if (one == -2)
		return dp_tel_str(o, "error", "no such host; give a host name or the index of the first to list");
	for (uint32_t h = first; h < n && h < first + CTL_TEL_PAGE; h++) {
		struct dp_tel *e = dp_tel_obj(o, r->cfg->hosts[h].name);
		if (e != NULL)
			tel_host(r, h, e, false);
	}
	return 0;
}

static int tel_ports(void *arg, const char *params, struct dp_tel *o)
{
	const struct ctl_run_state *r = arg;

	(void)params;
	for (uint32_t i = 0; i < r->n_exts; i++) {
		const struct ctl_ext *x = &r->exts[i];
		struct dp_port_stats st;
		uint64_t refused = 0, not_taken = 0;
		static const uint64_t none[NET_PORT_RX_COUNT];
		const uint64_t *bad = x->stack != NULL ? net_port_rx_refused(x->stack) : x->sw_rx_refused;
		const uint64_t *drop = x->stack != NULL ? net_port_rx_drops(x->stack) : none;
		char key[16];

		if (x->off) /* --partition: the other process's */
			continue;
		snprintf(key, sizeof(key), "%u", i);
		struct dp_tel *e = dp_tel_obj(o, key);
		if (e == NULL)
			continue;
		dp_port_stats(r->rt->dp, x->dp_port, &st);
		for (int k = 0; k < WIRE_R_COUNT; k++)
			refused += DP_LOAD(bad[k]);
		for (int k = 1; k < NET_PORT_RX_COUNT; k++)
			not_taken += DP_LOAD(drop[k]);
		const uint64_t v[] = { st.rx_frames, st.rx_bytes, st.tx_frames, st.tx_bytes, st.tx_drop_full,
				       st.tx_drop_nombuf, st.tx_drop_toobig, st.rx_drop_toobig, st.tx_drop_mtu, refused,
				       not_taken, DP_LOAD(x->rx_bps), DP_LOAD(x->rx_fps), DP_LOAD(x->tx_bps), DP_LOAD(x->tx_fps) };
		static const char *const n[] = { "rx_frames", "rx_bytes", "tx_frames", "tx_bytes", "tx_drop_full",
						 "tx_drop_nombuf", "tx_drop_toobig", "rx_drop_toobig", "tx_drop_mtu",
						 "rx_refused", "rx_not_taken",
						 "rx_bps", "rx_fps", "tx_bps", "tx_fps" };
		dp_tel_str(e, "dev", r->cfg->ports[i].dev);
		/* the first of the hosts sharing the port names it; /uetemu/hosts lists them all */
		dp_tel_str(e, "host", x->n_hosts ? r->cfg->hosts[x->hosts[0].host].name : "");
		dp_tel_u64(e, "hosts", x->n_hosts);
		for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++)
			dp_tel_u64(e, n[k], v[k]);
		/* a link to another process's switch: its hellos as summary.json's ports[].peer (a count or two old) */
		for (int k = 1; x->peer && k < CTL_PEER_C_COUNT; k++) {
			char pk[40];

			snprintf(pk, sizeof(pk), "peer_%s", ctl_peer_counter_name(k));
			dp_tel_u64(e, pk, DP_LOAD(x->peer_st.c[k]));
		}
	}
	return 0;
}

/* One link: its name, ends, and both directions as summary.json's "links" give them, by the current pass. */
static void tel_link(const struct ctl_run_state *r, const struct ctl_report_in *in, uint32_t i, struct dp_tel *o)
{
	struct ctl_report_dir dir[2];
	const char *a, *b, *name = ctl_report_link(in, i, DP_LOAD(ctl_run_lc(r, 0)->rt_now), &a, &b, dir);
	static const char *const n[] = { "bytes", "frames", "drops", "trims", "ecn_marks", "pauses", "trimmed_drops" };

	dp_tel_str(o, "name", name);
	dp_tel_str(o, "a", a);
	dp_tel_str(o, "b", b);
	for (int e = 0; e < 2; e++) {
		struct dp_tel *d = dp_tel_obj(o, e == 0 ? "ab" : "ba");
		const uint64_t v[] = { dir[e].bytes, dir[e].frames, dir[e].drops, dir[e].trims, dir[e].ecn_marks,
				       dir[e].pauses, dir[e].trimmed_drops };
		for (size_t k = 0; d != NULL && k < sizeof(v) / sizeof(v[0]); k++)
			dp_tel_u64(d, n[k], v[k]);
	}
}

static const char *link_name(const void *ctx, uint32_t i)
{
	const struct ctl_run_state *r = ctx;

	return r->topo != NULL ? r->topo->links[i].name : r->cfg->links[i].name;
}

static int tel_links(void *arg, const char *params, struct dp_tel *o)
{
	const struct ctl_run_state *r = arg;
	struct ctl_report_in in = ctl_run_tel_view(r);
	uint32_t first, n = r->n_links;
	long one = tel_select(params, n, link_name, r, &first);

	if (one >= 0) {
		tel_link(r, &in, (uint32_t)one, o);
		return 0;
	}
	if (one == -2)
		return dp_tel_str(o, "error", "no such link; give a link name or the index of the first to list");
	for (uint32_t i = first; i < n && i < first + CTL_TEL_PAGE; i++) {
		struct dp_tel *e = dp_tel_obj(o, link_name(r, i));
		if (e != NULL)
			tel_link(r, &in, i, e);
	}
	return 0;
}

/* One lcore's lateness: its histogram's percentiles (read as the lcore writes it: a few passes apart). */
static void tel_lcore(const struct ctl_run_state *r, uint32_t i, struct dp_tel *o)
{
	const struct run_lcore *lc = ctl_run_lc(r, i);
	const struct run_rt_stats *s = &lc->rt;

	dp_tel_u64(o, "lcore", lc->lcore_id);
	dp_tel_u64(o, "sim_time_ps", DP_LOAD(lc->rt_now));
	dp_tel_u64(o, "polls", DP_LOAD(s->polls));
	dp_tel_u64(o, "passes_due", DP_LOAD(s->late_ns.count));
	dp_tel_u64(o, "p50_ns", emu_hist_pct(&s->late_ns, 50));
	dp_tel_u64(o, "p99_ns", emu_hist_pct(&s->late_ns, 99));
	dp_tel_u64(o, "max_ns", DP_LOAD(s->late_max) / 1000);
	dp_tel_u64(o, "last_second_max_ns", DP_LOAD(lc->late_last_s) / 1000);
	dp_tel_u64(o, "passes_late_over_1us", DP_LOAD(s->late_over[0]));
	dp_tel_u64(o, "passes_late_over_10us", DP_LOAD(s->late_over[1]));
	dp_tel_u64(o, "passes_late_over_100us", DP_LOAD(s->late_over[2]));
	dp_tel_u64(o, "cross_received", DP_LOAD(lc->x_recv));
	dp_tel_u64(o, "cross_late", DP_LOAD(lc->x_late));
}

static int tel_lateness(void *arg, const char *params, struct dp_tel *o)
{
	const struct ctl_run_state *r = arg;
	struct run_rt_stats rt;
	emu_ps_t last = 0;
	struct dp_tel *l;

	(void)params;
	ctl_run_tel_rt_sum(r, &rt);
	for (uint32_t i = 0; i < r->n_lcs; i++)
		last = DP_LOAD(ctl_run_lc(r, i)->late_last_s) > last ? DP_LOAD(ctl_run_lc(r, i)->late_last_s) : last;
	dp_tel_u64(o, "sim_time_ps", DP_LOAD(ctl_run_lc(r, 0)->rt_now));
	dp_tel_u64(o, "wall_ms", wall_ms(r));
	dp_tel_u64(o, "polls", rt.polls);
	dp_tel_u64(o, "max_ps", rt.late_max);
	dp_tel_u64(o, "max_ns", rt.late_max / 1000);
	dp_tel_u64(o, "last_second_max_ns", last / 1000);
	dp_tel_u64(o, "passes_late_over_1us", rt.late_over[0]);
	dp_tel_u64(o, "passes_late_over_10us", rt.late_over[1]);
	dp_tel_u64(o, "passes_late_over_100us", rt.late_over[2]);
	dp_tel_u64(o, "timers_fired", rt.timers);
	dp_tel_u64(o, "timers_fired_late", rt.timers_late);
	run_stalls(r->eng, &rt); /* the run's stalls so far (docs/realtime.md, Stalls) */
	dp_tel_u64(o, "stalls", rt.stalls);
	dp_tel_u64(o, "stalls_charged", rt.stalls_charged);
	dp_tel_u64(o, "stalls_idle", rt.stalls_idle);
	dp_tel_u64(o, "stall_held_ns", rt.stall_held_ns);
	/* each lcore's own figures, keyed by its index ("0" the main lcore) */
	if ((l = dp_tel_obj(o, "lcores")) == NULL)
		return 0;
	for (uint32_t i = 0; i < r->n_lcs; i++) {
		char key[16];
		struct dp_tel *e;

		snprintf(key, sizeof(key), "%u", i);
		if ((e = dp_tel_obj(l, key)) != NULL)
			tel_lcore(r, i, e);
	}
	return 0;
}

static const struct dp_tel_cmd ctl_tel_cmds[] = {
	{ "/uetemu/summary", "Run so far: time, events, messages, fabric counters, port totals. No parameters",
	  tel_summary },
	{ "/uetemu/hosts", "Hosts, 40 from index N (default 0), or one host with all its counters. Params: N or name",
	  tel_hosts },
	{ "/uetemu/ports", "DPDK ports: counters, drops by reason, rates over the last second. No parameters",
	  tel_ports },
	{ "/uetemu/links", "Links, 40 from index N (default 0), or one link by name. Params: N or name", tel_links },
	{ "/uetemu/lateness", "How far past their time events ran: max, last second, late passes, and each lcore's "
	  "p50, p99, max. No parameters",
	  tel_lateness },
};

int ctl_run_tel_register(struct ctl_run_state *r, char *err, size_t errlen)
{
	const unsigned n = sizeof(ctl_tel_cmds) / sizeof(ctl_tel_cmds[0]);
	struct dp_tel_cmd all[DP_TEL_CMDS_MAX];

	/* the read commands, then control's (ctl_run_ctl.c) */
	memcpy(all, ctl_tel_cmds, sizeof(ctl_tel_cmds));
	for (unsigned i = 0; r->ctl != NULL && i < ctl_run_ctl_n_tel && n + i < DP_TEL_CMDS_MAX; i++)
		all[n + i] = ctl_run_ctl_tel[i];
	return dp_tel_register(r->rt->dp, all, n + (r->ctl != NULL ? ctl_run_ctl_n_tel : 0), r, err, errlen);
}
