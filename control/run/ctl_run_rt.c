/*
 * Real time: the same models paced by the TSC, with hosts bound to DPDK ports exchanging real frames. The engine
 * runs the lcores' poll loops (runtime/run_poll.c); this file opens the ports, gives the loop each port's receive
 * and flush, and the run's own work of a pass (the session log, periodic records, replays, the end).
 */
#include "ctl_run_pvt.h"
#include "ctl_run_cap_pvt.h"
#include "ctl_run_ctl_pvt.h"
#include "ctl_run_ext_pvt.h"
#include "ctl_run_mon_pvt.h"
#include "ctl_run_rec_pvt.h"
#include "ctl_run_replay_pvt.h"
#include "ctl_run_rt_pvt.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dp.h"
#include "emu_hist.h"
#include "rec.h"

/*
 * Port @p arg's turn at the top of its lcore's pass, before the pass reads the clock (ctl_run_ext_poll(): its
 * binding drained, up to NET_BIND_DRAIN_BURSTS bursts, so a pass that comes after the loop lost the CPU for a while
 * takes everything that arrived meanwhile, stamped with the last pass's time, before this pass's timers run; its
 * frames handed on; its ARP timers).
 */
static void port_rx(void *arg)
{
	ctl_run_ext_poll(arg);
}

/* Send what the port has staged this pass (its binding's flush). */
static void port_flush(void *arg)
{
	ctl_run_ext_flush(arg);
}

/*
 * Add one port. A net_af_xdp dev gets uetemu's XDP steering (docs/lab.md) unless xdp_steering: false: the UET
 * ports and the attached host's address go into the program's maps. Left unset, steering is skipped with a
 * warning when this build has no steering object (no clang) or no libbpf; asked for, that is an error.
 */
static int port_add_dev(struct ctl_run_state *r, const struct ctl_port *cp, char *err, size_t errlen)
{
	uint32_t ips[CTL_PORT_HOSTS_MAX], n = cp->sw ? cp->sw_host != UINT32_MAX : cp->n_hosts;

	/* the hosts behind the port: its emulated hosts, or the external host a switch port faces (none when it
	 * faces a switch of another process) */
	for (uint32_t k = 0; k < n; k++)
		ips[k] = r->cfg->hosts[cp->sw ? cp->sw_host : cp->hosts[k]].ip;
	const uint32_t ip = n > 0 ? ips[0] : 0;
	/* a link to another process's switch carries any frame, hellos too: no steering unless asked for */
	const bool to_process = cp->sw && cp->sw_host == UINT32_MAX;
	struct dp_port_opts o = { .flags = cp->tx_copy ? DP_PORT_TX_COPY : 0,
				  .xdp_steer = cp->xdp_steering == 1 ||
					       (cp->xdp_steering < 0 && !to_process && dp_is_af_xdp(cp->dev)),
				  .uet_udp_port = r->cfg->nic.udp_port, .cm_udp_port = WIRE_UDP_PORT_CM,
				  .ip = ips, .n_ip = n, .mtu = cp->mtu };
	int port = dp_port_add_opts(r->rt->dp, cp->dev, &o, err, errlen);

	if (port < 0 && o.xdp_steer && cp->xdp_steering < 0 && (port == -ENOENT || port == -ENOTSUP) &&
	    strstr(err, "XDP steering") != NULL) {
		fprintf(stderr, "[uetemu] warning: %s; the port takes every frame of its interface\n", err);
		o.xdp_steer = false;
		port = dp_port_add_opts(r->rt->dp, cp->dev, &o, err, errlen);
	}
	if (port < 0) /* DPDK's probe or start error, said plainly when the preflight check knows why */
		ctl_run_preflight_explain(r->cfg, (int)(cp - r->cfg->ports), 0, NULL, err, errlen);
	if (port >= 0 && o.xdp_steer)
		fprintf(stderr, "[uetemu] port %s: XDP steering: UDP %u and %u, IP protocol 253, PFC, ARP and ICMP "
			"for %u.%u.%u.%u to uetemu; everything else to the kernel\n", cp->dev, o.uet_udp_port,
			o.cm_udp_port, ip >> 24, (ip >> 16) & 255, (ip >> 8) & 255, ip & 255);
	return port;
}

/* Add port @p i's device and bind it to its struct ctl_ext; says which TX mode it got. */
static int port_add(struct ctl_run_state *r, uint32_t i, char *err, size_t errlen)
{
	const struct ctl_port *cp = &r->cfg->ports[i];
	struct ctl_ext *x = &r->exts[i];
	int port = port_add_dev(r, cp, err, errlen);
	const char *why;

	if (port < 0)
		return port;
	x->run = r;
	x->dp_port = port;
	dp_port_bind(r->rt->dp, port, &x->bind); /* the model side's frames cross it in bursts (ctl_run_ext.c) */
	x->zerocopy = dp_port_tx_mode(r->rt->dp, port, &why) == DP_TXM_ZEROCOPY;
	fprintf(stderr, "[uetemu] port %s: %s TX: %s\n", cp->dev, x->zerocopy ? "zero-copy" : "copy", why);
	ctl_run_mtu_warn(r, i, dp_port_tx_mtu(r->rt->dp, port));
	return 0;
}

/*
 * Port @p i bound to a switch port (attach "tor0:3"): the fabric link between the switch and the external host
 * gets the DPDK port as its host end. What the switch sends on it goes out of the port; what comes in from the
 * port enters the switch on it, as if the host had sent it.
 */
static int open_switch_port(struct ctl_run_state *r, uint32_t i, char *err, size_t errlen)
{
	int rc = port_add(r, i, err, errlen);

	if (rc < 0)
		return rc;
	ctl_run_ext_bind_switch(r, i);
	return 0;
}

/*
 * Give the dataplane the payload pattern (wire_payload_fill(): what wire_encode() writes after a data frame's
 * headers), so data frames can point into one shared copy of it instead of copying it. Before any port is added.
 */
static int set_pattern(struct ctl_run_state *r, char *err, size_t errlen)
{
	uint8_t *pat = malloc(WIRE_MAX_FRAME);
	int rc;

	if (pat == NULL)
		return -ENOMEM;
	wire_payload_fill(pat, WIRE_MAX_FRAME);
	rc = dp_tx_pattern_set(r->rt->dp, pat, WIRE_MAX_FRAME, err, errlen);
	free(pat);
	return rc;
}

/* Port @p i: the DPDK port, a link for each host's NIC whose far end it is, and the port's IPv4 side. */
static int open_port(struct ctl_run_state *r, uint32_t i, char *err, size_t errlen)
{
	int rc = port_add(r, i, err, errlen);

	return rc < 0 ? rc : ctl_run_ext_bind(r, i, err, errlen);
}

static int open_ports(struct ctl_run_state *r, char *err, size_t errlen)
{
	const struct ctl_config *cfg = r->cfg;

	int rc;

	r->exts = calloc(cfg->n_ports ? cfg->n_ports : 1, sizeof(*r->exts));
	if (r->exts == NULL)
		return -ENOMEM;
	if (cfg->n_ports > 0 && (rc = set_pattern(r, err, errlen)) < 0)
		return rc;
	for (uint32_t i = 0; i < cfg->n_ports; i++) {
		struct ctl_ext *x = &r->exts[i];
		uint32_t dev = ctl_run_port_dev(&cfg->ports[i]);

		x->run = r;
		x->lc = ctl_run_dev_rl(r, dev);
		x->off = r->dev_lc[dev] == CTL_LC_REMOTE; /* --partition: the other process binds it */
		if (!x->off && cfg->ports[i].sw && cfg->ports[i].sw_host == UINT32_MAX &&
		    r->dev_lc[cfg->ports[i].sw_peer] != CTL_LC_REMOTE) {
			snprintf(err, errlen, "ports.%u binds %s:%u, whose link goes to %s, which this process runs "
				 "too: a link between partitions is bound on both sides by two processes, each run "
				 "with --partition NAME", i, r->topo->devs[dev].name, cfg->ports[i].sw_port,
				 r->topo->devs[cfg->ports[i].sw_peer].name);
			return -EINVAL;
		}
		rc = x->off ? 0 : cfg->ports[i].sw ? open_switch_port(r, i, err, errlen) : open_port(r, i, err, errlen);
		if (rc < 0)
			return rc;
		/* its lcore's loop receives on it and flushes it every pass */
		if (!x->off && run_port_add(r->eng, &(struct run_port){ .lc = x->lc->idx, .rx = port_rx,
									 .flush = port_flush, .arg = x }) < 0)
			return -ENOMEM;
		r->n_exts++;
	}
	return 0;
}

/* @p x per second, counted over @p dt TSC ticks at @p hz. */
static uint64_t per_s(uint64_t x, uint64_t dt, uint64_t hz)
{
	return dt ? (uint64_t)((unsigned __int128)x * hz / dt) : 0;
}

/* The progress line: time, events, messages, and each port's rates over the last second. */
static void progress(const struct ctl_run_state *r, uint64_t tsc)
{
	uint64_t events = 0;

	for (uint32_t i = 0; i < r->n_lcs; i++) /* another lcore's: a count a few events old */
		events += emu_sched_events_run(ctl_run_lc(r, i)->np->sched);
	fprintf(stderr, "[uetemu] real time %.1f s, %llu events, messages %u/%u done",
		(double)(tsc - r->rt->t0) / (double)r->rt->hz, (unsigned long long)events, r->n_completed, r->n_msgs);
	for (uint32_t i = 0; i < r->n_exts; i++) {
		const struct ctl_ext *x = &r->exts[i];

		if (x->off)
			continue;
		fprintf(stderr, "; port %u rx %.1f Mb/s %llu frames/s tx %.1f Mb/s %llu frames/s", i,
			(double)x->rx_bps / 1e6, (unsigned long long)x->rx_fps, (double)x->tx_bps / 1e6,
			(unsigned long long)x->tx_fps);
	}
	fputc('\n', stderr);
}

/*
 * Once a second, on the poll thread: each port's rates over the second just ended (read by telemetry; the engine
 * keeps that second's worst lateness), and the progress line.
 */
static void tick(void *ctx, uint64_t tsc, uint64_t dt)
{
	struct ctl_run_state *r = ctx;

	for (uint32_t i = 0; i < r->n_exts; i++) {
		struct ctl_ext *x = &r->exts[i];
		struct dp_port_stats st;

		if (x->off)
			continue;
		dp_port_stats(r->rt->dp, x->dp_port, &st);
		x->rx_bps = per_s((st.rx_bytes - x->last.rx_bytes) * 8, dt, r->rt->hz);
		x->rx_fps = per_s(st.rx_frames - x->last.rx_frames, dt, r->rt->hz);
		x->tx_bps = per_s((st.tx_bytes - x->last.tx_bytes) * 8, dt, r->rt->hz);
		x->tx_fps = per_s(st.tx_frames - x->last.tx_frames, dt, r->rt->hz);
		x->last = st;
	}
	if (r->opts->progress)
		progress(r, tsc);
	ctl_run_stats_flush(r); /* --stats-interval: the intervals of the last second, off the passes' events */
}

/* The engine's hooks of a pass (run_hooks), on the main lcore. */
static emu_ps_t rt_stop(void *ctx)
{
	const struct ctl_run_state *r = ctx;

	return r->has_stop ? r->stop : EMU_PS_NEVER;
}

/* --record (one lcore): the pass, if it touches a port or a record (ctl_run_record.c) */
static void rt_pass(void *ctx, emu_ps_t now)
{
	ctl_run_rec_pass(ctx, now);
}

static emu_ps_t rt_due(void *ctx)
{
	return ctl_records_due(((struct ctl_run_state *)ctx)->records);
}

/* The periodic records due by @p now, sampled while every other lcore waits at the top of its pass. */
static void rt_sample(void *ctx, emu_ps_t now)
{
	ctl_records_advance(((struct ctl_run_state *)ctx)->records, now);
}

/* The same with the stats stream (--stats-interval): its intervals' ends are sampled there too. */
static emu_ps_t rt_due_stats(void *ctx)
{
	emu_ps_t a = rt_due(ctx), b = ctl_run_stats_due(ctx);

	return a < b ? a : b;
}

static void rt_sample_stats(void *ctx, emu_ps_t now)
{
	struct ctl_run_state *r = ctx;

	if (ctl_records_due(r->records) <= now)
		rt_sample(ctx, now);
	ctl_run_stats_sample(r, now);
}

/* Replays to DPDK ports (ctl_run_replay.c; a run with replays has one lcore); the control commands queued
 * (ctl_run_ctl.c), applied at the pass's time. */
static void rt_after_rx(void *ctx)
{
	ctl_run_replays_rt_poll(ctx);
	ctl_run_ctl_poll(ctx);
}

/* Another lcore: the control commands the main lcore forwarded for its hosts (ctl_run_ctl.c). */
static void rt_lc_after_rx(void *ctx, uint32_t lc)
{
	ctl_run_ctl_poll_lc(ctx, lc);
}

/* Every Chakra rank has ended: the run stops there. Without a stop time: every message done and every replay
 * played out. */
static bool rt_pass_end(void *ctx, emu_ps_t now)
{
	struct ctl_run_state *r = ctx;
	emu_ps_t ck_end;

	uint32_t lost = __atomic_load_n(&r->peer_lost, __ATOMIC_ACQUIRE);

	if (lost != 0 && (!r->has_stop || r->stop > now)) { /* another process stopped answering: the run stops now */
		ctl_run_ext_peer_lost_say(r, lost - 1);
		r->has_stop = true;
		r->stop = now;
	}
	if (ctl_chakra_ended(r->chakra, &ck_end) && ck_end < r->stop)
		r->stop = ck_end;
	return !r->has_stop && ctl_run_replays_work_done(r);
}

static void rt_sum(void *ctx)
{
	ctl_run_lcore_sum(ctx);
}

static int rt_launch(void *ctx, unsigned lcore_id, int (*fn)(void *), void *arg)
{
	return dp_launch(ctx, lcore_id, fn, arg);
}

static void rt_join(void *ctx, unsigned lcore_id)
{
	dp_wait(ctx, lcore_id);
}

/* --pass-profile: each lcore's busy passes, part by part, on stderr (docs/realtime.md, Lateness). */
static void prof_say(const struct ctl_run_state *r)
{
	for (uint32_t i = 0; i < r->n_lcs; i++) {
		const struct run_lcore *lc = ctl_run_lc(r, i);
		const struct run_prof *p = lc->prof;

		if (p == NULL)
			continue;
		fprintf(stderr, "[uetemu] pass profile, lcore %u: %llu busy passes of %llu (an event due, or 1 us or "
				"more); us p50/p99/max (passes over 10 us):", lc->lcore_id, (unsigned long long)p->busy,
			(unsigned long long)lc->rt.polls);
		for (int k = 0; k < RUN_PROF_N; k++)
			fprintf(stderr, "%s %s %.3f/%.3f/%.3f (%llu)", k ? "," : "", run_prof_name(k),
				(double)emu_hist_pct(&p->ns[k], 50) / 1e3, (double)emu_hist_pct(&p->ns[k], 99) / 1e3,
				(double)p->ns[k].max / 1e3, (unsigned long long)p->over10[k]);
		uint64_t late = 0;

		for (int k = 0; k < RUN_PROF_PARTS; k++)
			late += p->late_after[k];
		fprintf(stderr, "; %llu passes late > 10 us, the longest part before them:", (unsigned long long)late);
		for (int k = 0; k < RUN_PROF_PARTS; k++)
			fprintf(stderr, "%s %s %llu", k ? "," : "", run_prof_name(k),
				(unsigned long long)p->late_after[k]);
		fputc('\n', stderr);
	}
}

/* The records' writer thread's ring: a second of the lab's periodic records (750 KB/s) and then some. */
#define RT_WRITER_RING (4u << 20)

/*
 * Real time: a thread of its own makes the records' write(2) calls (rec_writer_start), on the CPUs no lcore runs
 * on (every CPU when the lcores take them all), so no write lands in a pass. 0, or -errno (then the loop writes
 * them itself, as before).
 */
/* The online CPUs no lcore runs on (an lcore's id is its CPU's with -l) into @p cpus; how many. */
static int free_cpus(const struct ctl_run_state *r, cpu_set_t *cpus)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	CPU_ZERO(cpus);
	for (size_t c = 0; (long)c < n && c < CPU_SETSIZE; c++)
		CPU_SET(c, cpus);
	for (uint32_t i = 0; i < r->n_lcs; i++)
		if (ctl_run_lc(r, i)->lcore_id < CPU_SETSIZE)
			CPU_CLR((size_t)ctl_run_lc(r, i)->lcore_id, cpus);
	return CPU_COUNT(cpus);
}

static int writer_start(struct ctl_run_state *r, struct rec_writer **w)
{
	struct rec_budget *b = r->cfg->sim.budget;
	cpu_set_t cpus;

	*w = NULL;
	if (b == NULL)
		return 0;
	int rc = rec_writer_start(w, RT_WRITER_RING, free_cpus(r, &cpus) > 0 ? &cpus : NULL);

	if (rc == 0)
		b->writer = *w;
	else
		fprintf(stderr, "[uetemu] no writer thread for the records (%s): the poll loop writes them\n",
			strerror(-rc));
	return rc;
}

/* Everything handed to the writer thread written; the streams write for themselves from now on. */
static void writer_stop(struct ctl_run_state *r, struct rec_writer *w)
{
	struct rec_writer_stats st;

	if (w == NULL)
		return;
	rec_writer_stop(w, &st);
	r->cfg->sim.budget->writer = NULL;
	if (r->opts->pass_profile)
		fprintf(stderr, "[uetemu] records' writer thread: %llu flushes, %llu bytes written off the poll loop, "
				"%llu waited for room\n", (unsigned long long)st.chunks, (unsigned long long)st.bytes,
			(unsigned long long)st.waits);
}

/* Whether port devargs @p dev's PMD sends with a system call (net_af_packet's sendto kick, net_tap's writev). */
static bool sends_by_syscall(const char *dev)
{
	return strncmp(dev, "net_af_packet", 13) == 0 || strncmp(dev, "net_tap", 7) == 0;
}

/*
 * --tx-thread: the sends of the ports whose PMD makes a system call to send go to a thread of their own, on the
 * CPUs no lcore runs on (dp_tx_thread_start). None free (the lcores take every CPU): said, and the loop sends.
 */
static void tx_thread_start(struct ctl_run_state *r)
{
	bool ports[DP_MAX_PORTS] = { false };
	cpu_set_t cpus;
	char err[256];
	int n = 0;

	if (!r->opts->tx_thread)
		return;
	for (uint32_t i = 0; i < r->n_exts; i++)
		if (!r->exts[i].off && r->exts[i].dp_port >= 0 && r->exts[i].dp_port < DP_MAX_PORTS &&
		    sends_by_syscall(r->cfg->ports[i].dev))
			ports[r->exts[i].dp_port] = true, n++;
	if (n == 0) {
		fprintf(stderr, "[uetemu] --tx-thread: no net_af_packet or net_tap port: every port sends from its lcore\n");
		return;
	}
	if (free_cpus(r, &cpus) == 0) {
		fprintf(stderr, "[uetemu] --tx-thread: every CPU runs an lcore: the ports send from their lcores\n");
		return;
	}
	n = dp_tx_thread_start(r->rt->dp, ports, &cpus, err, sizeof(err));
	if (n < 0)
		fprintf(stderr, "[uetemu] --tx-thread: %s: the ports send from their lcores\n", err);
	else if (r->opts->progress)
		fprintf(stderr, "[uetemu] --tx-thread: %d port%s send from a thread of their own, on CPU%s", n,
			n == 1 ? "" : "s", CPU_COUNT(&cpus) == 1 ? "" : "s");
	for (int c = 0, k = 0; n > 0 && r->opts->progress && c < CPU_SETSIZE; c++)
		if (CPU_ISSET((size_t)c, &cpus))
			fprintf(stderr, "%s%d", k++ ? "," : " ", c);
	if (n > 0 && r->opts->progress)
		fputc('\n', stderr);
}

/*
 * The machine's steal time so far, in ns (the 8th value of /proc/stat's "cpu" line: time a hypervisor ran something
 * else on this virtual machine's CPUs), or -1 when it cannot be read. Read at the loop's start and end, never in it.
 */
static int64_t steal_now(void)
{
	FILE *f = fopen("/proc/stat", "re");
	unsigned long long v[8];
	long hz = sysconf(_SC_CLK_TCK);
	int n;

	if (f == NULL)
		return -1;
	n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6],
		   &v[7]);
	fclose(f);
	if (n != 8 || hz <= 0 || v[7] > (unsigned long long)INT64_MAX / 1000000000ull)
		return -1;
	return (int64_t)(v[7] * 1000000000ull / (unsigned long long)hz);
}

/*
 * Stalls (docs/realtime.md, Stalls): the threshold (--stall-threshold, wall time; default a quarter of the smallest
 * RTO, in wall time at TimeScale, 1 ms with none), held back or not (off), and the budget (--stall-budget); said
 * once on stderr with the progress line.
 */
static void stall_hooks(struct ctl_run_state *r, struct run_hooks *h)
{
	const struct ctl_run_opts *o = r->opts;
	const char *key;
	emu_ps_t rto = ctl_run_rto_min(r, &key);
	uint64_t scale = r->cfg->sim.time_scale ? r->cfg->sim.time_scale : 1;
	/* rto x scale / 4 in 128 bits: a TimeScale of 10^6 and a 1 s RTO do not wrap */
	unsigned __int128 dflt = rto != 0 ? (unsigned __int128)rto * scale / 4 : (unsigned __int128)EMU_PS_PER_MS;
	uint64_t ps = o->stall_threshold != 0 ? o->stall_threshold : dflt > UINT64_MAX ? UINT64_MAX : (uint64_t)dflt;

	h->stall_ns = ps / EMU_PS_PER_NS ? ps / EMU_PS_PER_NS : 1;
	h->stall_hold = !o->stall_off;
	h->stall_budget_pct = o->stall_budget_set ? o->stall_budget_pct : CTL_STALL_BUDGET_PCT;
	h->stall_rto = rto;
	r->rt->stall_ns = h->stall_ns;
	r->rt->stall_hold = h->stall_hold;
	r->rt->stall_budget_pct = h->stall_budget_pct;
	if (o->progress)
		fprintf(stderr, "[uetemu] stalls: a gap of %.3f us between passes is one (%s); %s\n",
			(double)h->stall_ns / 1e3, o->stall_threshold != 0 ? "--stall-threshold" :
			rto != 0 ? "a quarter of the smallest RTO" : "no RTO in the config: 1 ms",
			h->stall_hold ? "held back while within the --stall-budget" : "--stall-threshold off: charged");
}

/*
 * Every lcore's loop: the workers launched, the main lcore's run here, then the workers waited for. The end of
 * the run is the latest time any lcore reached; the lateness figures are all lcores' merged.
 */
static void run_lcores(struct ctl_run_state *r)
{
	const struct emu_sim_params *sim = &r->cfg->sim;
	struct run_hooks h = { .ctx = r, .t0 = r->rt->t0, .hz = r->rt->hz, .scale = sim->time_scale,
			       .lag_limit = sim->lag_limit, .lag_policy = sim->lag_policy, .launch = rt_launch,
			       .join = rt_join, .launch_ctx = r->rt->dp, .stop = rt_stop, .pass = rt_pass, .due = rt_due,
			       .sample = rt_sample, .after_rx = rt_after_rx, .lc_after_rx = rt_lc_after_rx,
			       .pass_end = rt_pass_end, .tick = tick, .sum = rt_sum, .profile = r->opts->pass_profile };
	enum run_end why;

	stall_hooks(r, &h);
	ctl_run_ctl_lcores(r); /* the other lcores' mailboxes: without them, their hosts are refused */

	if (r->stats != NULL) {
		h.due = rt_due_stats;
		h.sample = rt_sample_stats;
	}
	struct rec_writer *w;

	writer_start(r, &w);
	tx_thread_start(r);
	int64_t steal0 = steal_now();
	run_go(r->eng, &h, &why, &r->end); /* real time starts no thread of its own: it cannot fail */
	int64_t steal1 = steal_now();
	r->rt->steal_ns = steal0 >= 0 && steal1 >= steal0 ? steal1 - steal0 : -1;
	dp_tx_thread_stop(r->rt->dp); /* what the loop's last flush staged is sent */
	writer_stop(r, w);
	r->rt->lagged = why == RUN_END_LAG;
	run_rt_merge(r->eng, &r->rt->stats);
	prof_say(r);
	r->wall_s = (double)(dp_tsc() - r->rt->t0) / (double)r->rt->hz;
}

/* Say which lcore runs which partitions, once at the start of a run over several. */
static void describe_lcores(const struct ctl_run_state *r)
{
	for (uint32_t i = 0; i < r->n_lcs; i++) {
		fprintf(stderr, "[uetemu] lcore %u%s: partitions", ctl_run_lc(r, i)->lcore_id, i == 0 ? " (main)" : "");
		for (uint32_t p = 0; p < r->cfg->n_parts; p++)
			if (r->part_lc[p] == i)
				fprintf(stderr, " %s", r->cfg->parts[p].name);
		fputc('\n', stderr);
	}
}

/* Say once, on stderr, why LagPolicy abort stopped the run. */
static void report_lag(const struct ctl_run_state *r)
{
	fprintf(stderr, "[uetemu] LagPolicy abort: the event due at %.6f ms ran %.3f us late, past LagLimit %.3f us "
			"(TimeScale %llu); the run stops at %.6f ms\n",
		(double)r->rt->stats.lag_at / 1e9, (double)r->rt->stats.lag_late / 1e6, (double)r->cfg->sim.lag_limit / 1e6,
		(unsigned long long)r->cfg->sim.time_scale, (double)r->end / 1e9);
}

/* Where telemetry answers, once the ports are up (a failure to register is reported, and the run goes on). */
static void telemetry_start(struct ctl_run_state *r)
{
	const struct dp_eal_args *eal = dp_eal(r->rt->dp);
	char err[256];

	if (ctl_run_tel_register(r, err, sizeof(err)) < 0) {
		fprintf(stderr, "[uetemu] %s\n", err);
		return;
	}
	if (r->opts->progress && eal->telemetry)
		fprintf(stderr, "[uetemu] real time: EAL file prefix %s; telemetry: dpdk-telemetry.py -f %s, then "
				"/uetemu/summary, /uetemu/hosts, /uetemu/ports, /uetemu/links, /uetemu/lateness\n",
			eal->file_prefix, eal->file_prefix);
}

/*
 * Zero-copy forwarding (net_pkt_raw_keep()): the ports' mbufs the frames still in the fabric hold go back to their
 * pool while it is there, and a line says where every kept one went; "0 outstanding" is what lab-fabric checks.
 */
static void refs_release(struct ctl_run_state *r)
{
	uint64_t kept = 0, sent = 0, freed = 0, released = 0, out = 0, port_kept = 0;

	for (uint32_t i = 0; i < r->n_lcs; i++) {
		struct net_part *np = ctl_run_lc(r, i)->np;

		if (np->refs == NULL)
			continue;
		net_part_refs_release(np);
		kept += np->refs->kept;
		sent += np->refs->sent;
		freed += np->refs->freed;
		released += np->refs->released;
		out += net_part_refs_out(np);
	}
	for (uint32_t i = 0; i < r->n_exts; i++) { /* what the ports counted as kept: the other side of the books */
		struct dp_port_stats st;

		if (r->exts[i].off)
			continue;
		dp_port_stats(r->rt->dp, r->exts[i].dp_port, &st);
		port_kept += st.rx_kept;
	}
	if (kept > 0 || port_kept > 0)
		fprintf(stderr, "[uetemu] zero-copy forwarding: %llu frames in their received mbufs: %llu sent on, %llu "
			"freed with their drops, %llu freed at the end; %llu outstanding\n", (unsigned long long)kept,
			(unsigned long long)sent, (unsigned long long)freed, (unsigned long long)released,
			(unsigned long long)(port_kept + out - sent - freed - released));
}

/* Read port @p x's counters before it closes, and say in a line what crossed it. */
static void port_close(struct ctl_ext *x)
{
	struct dp_xdp_stats xs;

	if (dp_port_xdp_stats(x->run->rt->dp, x->dp_port, &xs) == 0)
		fprintf(stderr, "[uetemu] port %s: XDP steering: to uetemu uet %llu, cm %llu, proto253 %llu, arp %llu, "
			"icmp %llu, pfc %llu; to the kernel %llu (%llu matched with no socket)\n",
			x->run->cfg->ports[x - x->run->exts].dev, (unsigned long long)xs.uet, (unsigned long long)xs.cm,
			(unsigned long long)xs.proto253, (unsigned long long)xs.arp, (unsigned long long)xs.icmp,
			(unsigned long long)xs.pfc, (unsigned long long)xs.pass, (unsigned long long)xs.nosock);
	if (x->stack == NULL) {
		uint64_t refused = 0;

		dp_port_stats(x->run->rt->dp, x->dp_port, &x->stats);
		for (int k = 1; k < WIRE_R_COUNT; k++)
			refused += x->sw_rx_refused[k];
		fprintf(stderr, "[uetemu] port %s: rx %llu frames (%llu refused), tx %llu frames (switch port %s)\n",
			x->run->cfg->ports[x - x->run->exts].dev, (unsigned long long)x->stats.rx_frames,
			(unsigned long long)refused, (unsigned long long)x->stats.tx_frames,
			x->run->topo->devs[x->run->cfg->ports[x - x->run->exts].sw_dev].name);
		return;
	}
	const struct dp_port_stats *st = &x->stats;
	const uint64_t *c = net_port_counters(x->stack), *drop = net_port_rx_drops(x->stack);
	const uint64_t *bad = net_port_rx_refused(x->stack);
	uint64_t not_taken = 0;

	dp_port_stats(x->run->rt->dp, x->dp_port, &x->stats);
	for (int k = 1; k < NET_PORT_RX_COUNT; k++)
		not_taken += drop[k];
	for (int k = 1; k < WIRE_R_COUNT; k++)
		not_taken += bad[k];
	fprintf(stderr, "[uetemu] port %s: rx %llu frames (%llu to hosts, %llu ARP and ICMP answered, %llu ARP learnt, "
		"%llu not taken), tx %llu frames, tx drops %llu\n", x->run->cfg->ports[x - x->run->exts].dev,
		(unsigned long long)st->rx_frames, (unsigned long long)c[NET_PORT_C_RX_TO_HOST],
		(unsigned long long)(c[NET_PORT_C_ARP_REQUESTS_ANSWERED] + c[NET_PORT_C_ICMP_ECHO_ANSWERED]),
		(unsigned long long)(c[NET_PORT_C_ARP_REPLIES_LEARNT] + c[NET_PORT_C_ARP_ANNOUNCEMENTS_LEARNT]),
		(unsigned long long)not_taken, (unsigned long long)st->tx_frames,
		(unsigned long long)(st->tx_drop_full + st->tx_drop_nombuf + st->tx_drop_toobig + st->tx_drop_mtu));
}

int ctl_run_rt_open(struct ctl_run_state *r, char *err, size_t errlen)
{
	if ((r->rt = calloc(1, sizeof(*r->rt))) != NULL)
		r->rt->steal_ns = -1;
	if (r->rt == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; i < r->cfg->n_ports; i++) /* a mistyped devarg the PMD would ignore or refuse */
		ctl_run_preflight_warn(r->cfg, i, "[uetemu] ");
	if ((r->rt->dp = dp_create(r->opts->eal_argc, r->opts->eal_argv, err, errlen)) == NULL) {
		/* a busy --file-prefix, said plainly instead of the EAL's hint */
		ctl_run_preflight_explain(r->cfg, -1, r->opts->eal_argc, r->opts->eal_argv, err, errlen);
		return -EIO;
	}
	return 0;
}

uint32_t ctl_run_rt_lcores(const struct ctl_run_state *r, unsigned *ids, uint32_t max)
{
	return r->rt != NULL && r->rt->dp != NULL ? dp_lcores(r->rt->dp, ids, max) : 1;
}

struct dp_ctx *ctl_run_rt_dp(const struct ctl_run_state *r)
{
	return r->rt != NULL ? r->rt->dp : NULL;
}

void ctl_run_rt_stop(struct ctl_run_state *r)
{
	if (r->rt == NULL)
		return;
	dp_destroy(r->rt->dp);
	r->rt->dp = NULL;
}

void ctl_run_rt_free(struct ctl_run_state *r)
{
	ctl_run_rt_stop(r);
	free(r->rt);
	r->rt = NULL;
}

int ctl_run_realtime(struct ctl_run_state *r, char *err, size_t errlen)
{
	int rc;

	r->rt->hz = dp_tsc_hz();
	r->rt->t0 = dp_tsc();
	rc = open_ports(r, err, errlen);
	if (rc == 0)
		rc = ctl_run_metrics_start(r, err, errlen); /* --metrics: once the ports are up */
	if (rc == 0) {
		telemetry_start(r);
		r->rt->t0 = dp_tsc(); /* the run's time 0: the ports are up */
		ctl_run_caps_rt_start(r); /* captures' wall-clock epoch, rte_pdump (ctl_run_cap.c) */
		ctl_run_replays_rt_start(r); /* replays to DPDK ports take their port and clock */
		ctl_run_rec_start(r); /* --record: the session log starts (ctl_run_record.c) */
		/* the ports' taps, then every host announces itself, and starts resolving its gateway, before the
		 * first pass (and after the captures have their clock, so these frames are stamped like the rest) */
		ctl_run_ext_start(r);
		if (r->opts->progress && r->n_lcs > 1)
			describe_lcores(r);
		run_lcores(r);
		ctl_run_ext_bye(r); /* the other processes of a fabric split across them know this one ended */
		ctl_run_metrics_stop(r);
		ctl_run_caps_rt_stop(r);
	}
	ctl_run_metrics_stop(r); /* a start that failed after the ports opened */
	if (r->rt->lagged)
		report_lag(r);
	refs_release(r);
	for (uint32_t i = 0; i < r->n_exts; i++)
		if (!r->exts[i].off)
			port_close(&r->exts[i]);
	ctl_run_rt_stop(r); /* telemetry stops answering first, then the ports stop and close */
	return rc;
}
