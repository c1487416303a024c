/*
 * The run's verdict (docs/summary.md, verdict): the work left open at the stop time, by kind, the first few open
 * items named; the real-time ports that received nothing for hosts that had work; and whether the loop's lateness
 * stayed within what the models' timers and serialization need.
 */
#include "ctl_report_pvt.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

const char *ctl_timing_name(enum ctl_timing t)
{
	static const char *const names[] = { "n/a", "trusted", "degraded", "invalid" };

	return (unsigned)t < sizeof(names) / sizeof(names[0]) ? names[t] : "unknown";
}

/* summary.json's keys of the kinds of work (verdict.incomplete). */
static const char *const kind_keys[CTL_WORK_COUNT] = { "messages", "chakra_ranks", "rdma_pairs", "pingpongs",
						       "silent_ports" };

/* Count one open item of @p p, named (printf @p fmt) if it is among the first few. */
static void __attribute__((format(printf, 2, 3))) part_open(struct ctl_work_part *p, const char *fmt, ...)
{
	if (p->open < CTL_VERDICT_FIRST) {
		va_list ap;

		va_start(ap, fmt);
		vsnprintf(p->first[p->open], CTL_VERDICT_NAME, fmt, ap);
		va_end(ap);
	}
	p->open++;
}

/* Whether host @p h is another process's (--partition): its work is judged there. */
static bool remote(const struct ctl_report_in *r, uint32_t h)
{
	return r->host_remote != NULL && r->host_remote[h];
}

static void work_messages(const struct ctl_report_in *r, struct ctl_work_part *p)
{
	const struct ctl_host *h = r->cfg->hosts;

	for (uint32_t i = 0; i < r->n_msgs; i++) {
		const struct ctl_msg *m = &r->msgs[i];

		if (remote(r, m->m->src)) /* posted, and completed, by the process that runs its sender */
			continue;
		p->total++;
		if (!m->completed)
			part_open(p, "#%u %s->%s %llu B%s", i, h[m->m->src].name, h[m->m->dst].name,
				  (unsigned long long)m->m->bytes, m->posted ? "" : " (not posted)");
	}
}

static void work_chakra(const struct ctl_report_in *r, struct ctl_work_part *p)
{
	uint32_t host;

	for (uint32_t k = 0; k < ctl_chakra_ranks(r->chakra); k++) {
		bool open = ctl_chakra_rank_open(r->chakra, k, &host);

		if (host < r->cfg->n_hosts && remote(r, host))
			continue;
		p->total++;
		if (open)
			part_open(p, "rank %u (%s)", k, host < r->cfg->n_hosts ? r->cfg->hosts[host].name : "?");
	}
}

static void work_rdma(const struct ctl_report_in *r, struct ctl_work_part *p)
{
	uint32_t a, b;

	p->total = ctl_rdma_pairs(r->rdma);
	for (uint32_t k = 0; k < p->total; k++)
		if (ctl_rdma_pair_idle(r->rdma, k, &a, &b))
			part_open(p, "%s->%s", r->cfg->hosts[a].name, r->cfg->hosts[b].name);
}

/*
 * Which hosts had work with a peer on the far side of their port (so frames for them had to come in through it):
 * a message or ping-pong whose other end is not behind the same port, a Chakra rank's transfers, a ScalaRdma
 * pair's connections. @p port_of: each host's port in r->ports, UINT32_MAX for none.
 */
static void busy_hosts(const struct ctl_report_in *r, const uint32_t *port_of, bool *busy)
{
	const struct ctl_config *cfg = r->cfg;

	for (uint32_t i = 0; i < r->n_msgs; i++) {
		uint32_t s = r->msgs[i].m->src, d = r->msgs[i].m->dst;

		if (port_of[s] != port_of[d])
			busy[s] = busy[d] = true;
	}
	for (uint32_t i = 0; i < cfg->n_pps; i++) {
		const struct ctl_pingpong *pp = &cfg->pps[i];

		if (!pp->responder && port_of[pp->client] != port_of[pp->server])
			busy[pp->client] = busy[pp->server] = true;
	}
	for (uint32_t h = 0; h < cfg->n_hosts; h++) {
		uint64_t pdcs = 0, wqes = 0;

		if (remote(r, h))
			continue;
		ctl_rdma_host_budget(r->rdma, h, &pdcs, &wqes);
		if (pdcs > 0 || ctl_chakra_host_pdcs(r->chakra, h) > 0)
			busy[h] = true;
	}
}

/* What a port took for its hosts: a host port's frames handed to a host, a switch port's frames received. */
static uint64_t port_taken(const struct ctl_report_port *p)
{
	return p->stack != NULL ? net_port_counters(p->stack)[NET_PORT_C_RX_TO_HOST] : p->stats->rx_frames;
}

static void work_ports(const struct ctl_report_in *r, struct ctl_work_part *p)
{
	uint32_t n = r->cfg->n_hosts;
	uint32_t *port_of = malloc((n ? n : 1) * sizeof(*port_of));
	bool *busy = calloc(n ? n : 1, sizeof(*busy));

	if (port_of == NULL || busy == NULL)
		goto out;
	for (uint32_t h = 0; h < n; h++)
		port_of[h] = UINT32_MAX;
	for (uint32_t i = 0; i < r->n_ports; i++)
		for (uint32_t k = 0; k < r->ports[i].n_hosts; k++)
			port_of[r->ports[i].hosts[k]] = i;
	busy_hosts(r, port_of, busy);
	p->total = r->n_ports;
	for (uint32_t i = 0; i < r->n_ports; i++) {
		const struct ctl_report_port *pt = &r->ports[i];
		bool had_work = false;

		for (uint32_t k = 0; k < pt->n_hosts; k++)
			had_work |= busy[pt->hosts[k]];
		if (had_work && port_taken(pt) == 0)
			part_open(p, "%s (%s): %llu frames received, none for its hosts", pt->dev,
				  r->cfg->hosts[pt->hosts[0]].name, (unsigned long long)pt->stats->rx_frames);
	}
out:
	free(port_of);
	free(busy);
}

/* Append to @p v's reason (a "; " between two). */
static void __attribute__((format(printf, 2, 3))) why(struct ctl_verdict *v, const char *fmt, ...)
{
	size_t used = strlen(v->timing_why);
	va_list ap;

	if (used + 3 >= sizeof(v->timing_why))
		return;
	if (used > 0) {
		memcpy(v->timing_why + used, "; ", 3);
		used += 2;
	}
	va_start(ap, fmt);
	vsnprintf(v->timing_why + used, sizeof(v->timing_why) - used, fmt, ap);
	va_end(ap);
}

/*
 * Real time: invalid when the lateness p99 passes the smallest timer; degraded when it passes a quarter of that
 * timer or one largest data frame's serialization on the fastest link, or when the worst pass ran later than the
 * smallest timer; else trusted (docs/realtime.md, Timing verdict).
 */
/*
 * A virtual machine's hypervisor that ran something else on its CPUs during the run (steal time, 1 ms or more): said
 * with a degraded or invalid timing, as the likeliest cause of the lateness (nothing this process can change).
 */
static void steal(const struct ctl_report_in *r, struct ctl_verdict *v)
{
	if (v->timing != CTL_TIMING_TRUSTED && r->cpu_steal_ns >= 1000000)
		why(v, "the hypervisor took %.1f ms of CPU from this machine during the run (steal time, /proc/stat)",
		    (double)r->cpu_steal_ns / 1e6);
}

/*
 * The process lost the CPU (docs/realtime.md, Stalls): said with a degraded or invalid timing, as the likeliest
 * cause of the lateness when a stall was charged (the clock jumped over it, the timers due in it fired late).
 */
static void stalls(const struct ctl_report_in *r, struct ctl_verdict *v)
{
	const struct run_rt_stats *rt = r->rt;

	if (v->timing != CTL_TIMING_TRUSTED && rt->stalls > 0)
		why(v, "%llu stalls (the process lost the CPU over %.3f us, at most %.3f ms), %llu charged (the clock "
		    "jumped; %llu timers late after them), %llu idle (no event due in them), the others held back",
		    (unsigned long long)rt->stalls, (double)r->stall_threshold_ns / 1e3, (double)rt->stall_max_ns / 1e6,
		    (unsigned long long)rt->stalls_charged, (unsigned long long)rt->timeouts_after_stall,
		    (unsigned long long)rt->stalls_idle);
}

static void timing(const struct ctl_report_in *r, struct ctl_verdict *v)
{
	const struct ctl_timing_in *t = &r->timing;
	emu_ps_t p99, max;

	if (!r->realtime || r->rt == NULL) {
		v->timing = CTL_TIMING_NA;
		return;
	}
	p99 = (emu_ps_t)emu_hist_pct(&r->rt->late_ns, 99) * 1000;
	max = r->rt->late_max;
	v->timing = CTL_TIMING_TRUSTED;
	if (t->timer != 0 && p99 > t->timer) {
		v->timing = CTL_TIMING_INVALID;
		why(v, "lateness p99 %.3f us > %s %.3f us", (double)p99 / 1e6, t->timer_key, (double)t->timer / 1e6);
		stalls(r, v);
		steal(r, v);
		return;
	}
	if (t->timer != 0 && p99 > t->timer / 4)
		why(v, "lateness p99 %.3f us > 1/4 of %s %.3f us", (double)p99 / 1e6, t->timer_key,
		    (double)t->timer / 1e6);
	if (t->ser != 0 && p99 > t->ser)
		why(v, "lateness p99 %.3f us > one %u B frame at %.3f Gb/s, %.3f us", (double)p99 / 1e6, t->ser_frame,
		    (double)t->ser_bps / 1e9, (double)t->ser / 1e6);
	if (t->timer != 0 && max > t->timer)
		why(v, "lateness max %.3f us > %s %.3f us", (double)max / 1e6, t->timer_key, (double)t->timer / 1e6);
	/* stalls held back (docs/realtime.md, Stalls) hide their lateness from the figures above: the emulated clock
	 * paused while wall time, and the wire, went on; past 1 % of the wall time the run is not on time */
	uint64_t wall_ns = r->wall_s > 0 ? (uint64_t)(r->wall_s * 1e9) : 0;

	if (wall_ns != 0 && r->rt->stall_held_ns > wall_ns / 100)
		why(v, "lateness held back %.3f ms (%.1f %% of the wall time: the clock paused while the process had lost "
		    "the CPU)", (double)r->rt->stall_held_ns / 1e6, (double)r->rt->stall_held_ns * 100 / (double)wall_ns);
	if (v->timing_why[0] != '\0')
		v->timing = CTL_TIMING_DEGRADED;
	stalls(r, v);
	steal(r, v);
}

void ctl_report_verdict(const struct ctl_report_in *r, const struct ctl_report_counters *c, struct ctl_verdict *v)
{
	memset(v, 0, sizeof(*v));
	work_messages(r, &v->part[CTL_WORK_MESSAGES]);
	work_chakra(r, &v->part[CTL_WORK_CHAKRA_RANKS]);
	work_rdma(r, &v->part[CTL_WORK_RDMA_PAIRS]);
	if (r->pingpongs != NULL)
		v->part[CTL_WORK_PINGPONGS] = *r->pingpongs;
	if (r->realtime)
		work_ports(r, &v->part[CTL_WORK_SILENT_PORTS]);
	/* a port that took nothing for its hosts explains open work; when all of it got done (the hosts' frames came
	 * in another way, a fabric link), the port is only listed in silent_ports */
	for (int k = 0; k < CTL_WORK_COUNT; k++)
		v->incomplete |= k != CTL_WORK_SILENT_PORTS && v->part[k].open > 0;
	timing(r, v);
	v->timeouts = c->timeouts;
	v->timeouts_while_late = r->timeouts_while_late;
}

static void json_names(FILE *f, const struct ctl_work_part *p)
{
	fputs("[", f);
	for (uint32_t i = 0; i < p->open && i < CTL_VERDICT_FIRST; i++) {
		fputs(i ? ", " : "", f);
		ctl_report_json_str(f, p->first[i]);
	}
	fputs("]", f);
}

void ctl_report_verdict_json(FILE *f, const struct ctl_report_in *r, const struct ctl_verdict *v)
{
	bool first = true;

	fprintf(f, "  \"verdict\": {\"work\": \"%s\", \"incomplete\": {", v->incomplete ? "incomplete" : "complete");
	for (int k = 0; k < CTL_WORK_COUNT; k++) {
		const struct ctl_work_part *p = &v->part[k];

		if (p->open == 0 || !v->incomplete)
			continue;
		fprintf(f, "%s\"%s\": {\"open\": %u, \"of\": %u, \"first\": ", first ? "" : ", ", kind_keys[k],
			p->open, p->total);
		json_names(f, p);
		fputc('}', f);
		first = false;
	}
	fputs("}, \"silent_ports\": ", f);
	json_names(f, &v->part[CTL_WORK_SILENT_PORTS]);
	fprintf(f, ",\n    \"timing\": \"%s\"", ctl_timing_name(v->timing));
	if (v->timing != CTL_TIMING_NA) {
		const struct ctl_timing_in *t = &r->timing;

		fprintf(f, ", \"timing_why\": ");
		ctl_report_json_str(f, v->timing_why);
		fprintf(f, ", \"lateness_p99_ns\": %llu, \"lateness_max_ns\": %llu, \"timer_ns\": %.3f, \"timer_key\": ",
			(unsigned long long)emu_hist_pct(&r->rt->late_ns, 99), (unsigned long long)r->rt->late_ns.max,
			(double)t->timer / 1e3);
		ctl_report_json_str(f, t->timer_key != NULL ? t->timer_key : "");
		fprintf(f, ", \"serialization_ns\": %.3f, \"timeouts\": %llu, \"timeouts_while_late\": ",
			(double)t->ser / 1e3, (unsigned long long)v->timeouts);
		if (v->timeouts_while_late == UINT64_MAX)
			fputs("null", f);
		else
			fprintf(f, "%llu", (unsigned long long)v->timeouts_while_late);
	}
	fputs("},\n", f);
}

/* One kind's open items on the console: "3 of 10 messages not completed: #0 ..., #1 ..., and 1 more". */
static void print_part(const struct ctl_work_part *p, const char *what)
{
	printf("  %u of %u %s:", p->open, p->total, what);
	for (uint32_t i = 0; i < p->open && i < CTL_VERDICT_FIRST; i++)
		printf("%s %s", i ? ";" : "", p->first[i]);
	if (p->open > CTL_VERDICT_FIRST)
		printf("; and %u more", p->open - CTL_VERDICT_FIRST);
	putchar('\n');
}

void ctl_report_verdict_print(const struct ctl_report_in *r, const struct ctl_verdict *v)
{
	static const char *const what[CTL_WORK_COUNT] = {
		"messages not completed", "Chakra ranks not ended", "ScalaRdma pairs idle", "ping-pongs short of "
		"their iterations", "ports received no frame for their hosts, which had work",
	};

	printf("verdict: work %s", v->incomplete ? "INCOMPLETE at the stop time" : "complete");
	if (v->timing != CTL_TIMING_NA) {
		printf("; timing %s", ctl_timing_name(v->timing));
		if (v->timing_why[0] != '\0')
			printf(" (%s)", v->timing_why);
		if (v->timeouts_while_late != UINT64_MAX)
			printf("; timeouts %llu, %llu while the loop was late", (unsigned long long)v->timeouts,
			       (unsigned long long)v->timeouts_while_late);
	} else {
		printf("; timing n/a (%s)", r->realtime ? "no lateness measured" : "virtual time");
	}
	putchar('\n');
	for (int k = 0; k < CTL_WORK_COUNT; k++)
		if (v->part[k].open > 0)
			print_part(&v->part[k], what[k]);
	if (!v->incomplete && v->part[CTL_WORK_SILENT_PORTS].open > 0)
		printf("  (their hosts' work got done all the same: their frames came in another way)\n");
}
