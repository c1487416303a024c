/* Real time: the same models paced by the TSC, with hosts bound to DPDK ports exchanging real frames. */
#include "ctl_run_pvt.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "dp.h"
#include "emu_hist.h"

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
	struct dp_port_opts o = { .flags = cp->tx_copy ? DP_PORT_TX_COPY : 0,
				  .xdp_steer = cp->xdp_steering == 1 || (cp->xdp_steering < 0 && dp_is_af_xdp(cp->dev)),
				  .uet_udp_port = r->cfg->nic.udp_port, .cm_udp_port = WIRE_UDP_PORT_CM,
				  .ip = ips, .n_ip = n, .mtu = cp->mtu };
	int port = dp_port_add_opts(r->dp, cp->dev, &o, err, errlen);

	if (port < 0 && o.xdp_steer && cp->xdp_steering < 0 && (port == -ENOENT || port == -ENOTSUP) &&
	    strstr(err, "XDP steering") != NULL) {
		fprintf(stderr, "[uetemu] warning: %s; the port takes every frame of its interface\n", err);
		o.xdp_steer = false;
		port = dp_port_add_opts(r->dp, cp->dev, &o, err, errlen);
	}
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
	dp_port_bind(r->dp, port, &x->bind); /* the model side's frames cross it in bursts (ctl_run_ext.c) */
	x->zerocopy = dp_port_tx_mode(r->dp, port, &why) == DP_TXM_ZEROCOPY;
	fprintf(stderr, "[uetemu] port %s: %s TX: %s\n", cp->dev, x->zerocopy ? "zero-copy" : "copy", why);
	ctl_run_mtu_warn(r, i, dp_port_tx_mtu(r->dp, port));
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
	rc = dp_tx_pattern_set(r->dp, pat, WIRE_MAX_FRAME, err, errlen);
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
		x->lc = ctl_run_dev_lc(r, dev);
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
		r->n_exts++;
	}
	return 0;
}

/* The clock of a real-time run: TSC origin and rate, time scale, LagPolicy, and the emulated time held back. */
struct rt_clock {
	uint64_t t0, hz, scale;
	uint64_t mul;    /* TSC ticks to emulated ps: ps = ticks x mul >> shift (rt_clock_rate) */
	unsigned shift;
	emu_ps_t limit;  /* LagLimit */
	emu_ps_t held;   /* elastic: emulated time = TSC time / scale - held */
	uint8_t policy;  /* enum emu_lag_policy */
};

/*
 * ps = ticks x 10^12 / (hz x scale) with a multiply and a shift instead of a 128-bit division each pass: mul is
 * 10^12 x 2^shift / (hz x scale) for the largest shift (at most 64) that keeps it under 2^63. Its truncation then
 * costs under ticks / 2^shift ps: with the shift above 50 for any TSC rate and TimeScale, under 1 ps in 2^50
 * ticks (4 days at 3 GHz).
 */
static void rt_clock_rate(struct rt_clock *c)
{
	unsigned __int128 den = (unsigned __int128)c->hz * c->scale;

	c->shift = 0;
	while (c->shift < 64 && ((unsigned __int128)EMU_PS_PER_S << (c->shift + 1)) / den < ((unsigned __int128)1 << 63))
		c->shift++;
	c->mul = (uint64_t)(((unsigned __int128)EMU_PS_PER_S << c->shift) / den);
}

static emu_ps_t tsc_to_ps(const struct rt_clock *c, uint64_t dt)
{
	return (emu_ps_t)(((unsigned __int128)dt * c->mul) >> c->shift);
}

/* Count a pass whose earliest due event ran @p late past its timestamp. Integers only. */
static void rt_late(struct ctl_rt_stats *rt, emu_ps_t late)
{
	emu_hist_add(&rt->late_ns, late / EMU_PS_PER_NS);
	if (late > rt->late_max)
		rt->late_max = late;
	rt->late_over[0] += late > EMU_PS_PER_US;
	rt->late_over[1] += late > 10 * EMU_PS_PER_US;
	rt->late_over[2] += late > 100 * EMU_PS_PER_US;
}

/*
 * The emulated time of the pass that starts at @p tsc, into *@p out. The earliest due event's lateness is measured;
 * past LagLimit, abort returns false (the run stops, lc->rt says when and by how much) and elastic holds the clock
 * back to that event's time + LagLimit. The time never passes the run's stop time, so a run with one ends there
 * exactly, as in virtual time.
 */
static bool rt_clock_now(struct ctl_lcore *lc, struct rt_clock *c, uint64_t tsc, emu_ps_t *out)
{
	const struct ctl_run_state *r = lc->run;
	emu_ps_t now = tsc_to_ps(c, tsc - c->t0) - c->held;
	emu_ps_t next = emu_sched_next(lc->np->sched);

	if (next <= now) {
		emu_ps_t late = now - next;
		if (late > c->limit && c->policy == EMU_LAG_ABORT) {
			rt_late(&lc->rt, late);
			lc->rt.lag_late = late;
			lc->rt.lag_at = next;
			return false;
		}
		if (late > c->limit && c->policy == EMU_LAG_ELASTIC) {
			c->held += late - c->limit;
			lc->rt.held += late - c->limit;
			lc->rt.holds++;
			now = next + c->limit;
			late = c->limit;
		}
		rt_late(&lc->rt, late);
		/* this second's worst, for telemetry (the main lcore takes it once a second) */
		if (late > __atomic_load_n(&lc->late_win, __ATOMIC_RELAXED))
			__atomic_store_n(&lc->late_win, late, __ATOMIC_RELAXED);
	}
	*out = r->has_stop && now > r->stop ? r->stop : now;
	return true;
}

/* Each port of the lcore's: its turn in the pass (ctl_run_ext_poll(): drained, its frames handed on, its ARP
 * timers), stamped with this pass's time. */
static void rt_rx(struct ctl_lcore *lc)
{
	struct ctl_run_state *r = lc->run;

	for (uint32_t i = 0; i < r->n_exts; i++)
		if (r->exts[i].lc == lc && !r->exts[i].off)
			ctl_run_ext_poll(&r->exts[i]);
}

/* Send what the lcore's ports have staged this pass. */
static void rt_flush(struct ctl_lcore *lc)
{
	struct ctl_run_state *r = lc->run;

	for (uint32_t i = 0; i < r->n_exts; i++)
		if (r->exts[i].lc == lc && !r->exts[i].off)
			ctl_run_ext_flush(&r->exts[i]);
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

	for (uint32_t i = 0; i < r->n_lcs; i++)
		events += emu_sched_events_run(r->lcs[i].np->sched); /* another lcore's: a count a few events old */
	fprintf(stderr, "[uetemu] real time %.1f s, %llu events, messages %u/%u done",
		(double)(tsc - r->rt_t0) / (double)r->rt_hz, (unsigned long long)events, r->n_completed, r->n_msgs);
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
 * Once a second, on the poll thread: each port's rates over the second just ended, that second's worst lateness
 * (both read by telemetry), and the progress line.
 */
static void tick(struct ctl_run_state *r, uint64_t tsc, uint64_t dt)
{
	for (uint32_t i = 0; i < r->n_exts; i++) {
		struct ctl_ext *x = &r->exts[i];
		struct dp_port_stats st;

		if (x->off)
			continue;
		dp_port_stats(r->dp, x->dp_port, &st);
		x->rx_bps = per_s((st.rx_bytes - x->last.rx_bytes) * 8, dt, r->rt_hz);
		x->rx_fps = per_s(st.rx_frames - x->last.rx_frames, dt, r->rt_hz);
		x->tx_bps = per_s((st.tx_bytes - x->last.tx_bytes) * 8, dt, r->rt_hz);
		x->tx_fps = per_s(st.tx_frames - x->last.tx_frames, dt, r->rt_hz);
		x->last = st;
	}
	for (uint32_t i = 0; i < r->n_lcs; i++) { /* each lcore's worst of the second (another's: read as it is) */
		struct ctl_lcore *lc = &r->lcs[i];

		__atomic_store_n(&lc->late_last_s, __atomic_exchange_n(&lc->late_win, 0, __ATOMIC_RELAXED),
				 __ATOMIC_RELAXED);
	}
	if (r->opts->progress)
		progress(r, tsc);
}

/* Whether the lcore's loop ends after the pass at @p now: a stop time reached, every message done and every
 * replay played out (the main lcore decides), or told to by the main lcore. */
static bool pass_last(struct ctl_lcore *lc, emu_ps_t now)
{
	const struct ctl_run_state *r = lc->run;

	if (r->has_stop)
		return now >= r->stop;
	if (lc->idx == 0)
		return ctl_run_replays_work_done(r);
	return false;
}

/*
 * The poll loop (l2fwd shape), run by every lcore on its own partitions and ports: read the TSC, take the frames
 * other lcores sent, run every event whose time has passed, drain each port, flush TX. The main lcore (index 0)
 * also samples the periodic records, writes what the rings to the writer hold and ticks once a second. The
 * models see each event's own timestamp as "now"; only frames from outside carry the wall clock.
 */
static void poll_loop(struct ctl_lcore *lc)
{
	struct ctl_run_state *r = lc->run;
	const struct emu_sim_params *sim = &r->cfg->sim;
	struct rt_clock c = { .hz = r->rt_hz, .scale = sim->time_scale ? sim->time_scale : 1,
			      .limit = sim->lag_limit, .policy = sim->lag_policy };
	struct rt_clock wall = { .hz = r->rt_hz, .scale = 1 };
	const bool main_lc = lc->idx == 0, split = r->n_lcs > 1;
	uint64_t last_tick;

	rt_clock_rate(&c);
	rt_clock_rate(&wall);
	c.t0 = wall.t0 = last_tick = r->rt_t0;
	while (!*r->opts->quit && !__atomic_load_n(&r->lc_stop, __ATOMIC_RELAXED)) {
		if (split && !main_lc)
			ctl_run_lcore_sample_wait(lc);
		uint64_t tsc = dp_tsc();
		emu_ps_t now;

		lc->wall_now = tsc_to_ps(&wall, tsc - wall.t0);
		lc->rt.polls++;
		if (!rt_clock_now(lc, &c, tsc, &now)) {
			lc->lagged = true;
			break;
		}
		if (split)
			ctl_run_lcore_take(lc, now);
		if (main_lc) /* --record (one lcore): the pass, if it touches a port or a record (ctl_run_record.c) */
			ctl_run_rec_pass(r, now);
		emu_sched_run_until(lc->np->sched, now);
		emu_sched_advance(lc->np->sched, now);
		if (main_lc)
			ctl_run_lcore_records(r, now);
		__atomic_store_n(&lc->rt_now, now, __ATOMIC_RELAXED);
		rt_rx(lc);
		if (main_lc) /* replays to DPDK ports (ctl_run_replay.c; a run with replays has one lcore) */
			ctl_run_replays_rt_poll(r);
		rt_flush(lc);
		if (main_lc) {
			ctl_run_lcore_drain_writer(r);
			if (split)
				ctl_run_lcore_sum(r);
		}
		emu_ps_t ck_end;

		if (main_lc && ctl_chakra_ended(r->chakra, &ck_end) && ck_end < r->stop) /* every Chakra rank has ended */
			r->stop = ck_end;
		if (pass_last(lc, now))
			break;
		if (main_lc && tsc - last_tick >= r->rt_hz) {
			tick(r, tsc, tsc - last_tick);
			last_tick = tsc;
		}
	}
	if (main_lc || lc->lagged)
		__atomic_store_n(&r->lc_stop, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&lc->exited, 1, __ATOMIC_RELEASE);
}

/* A worker lcore's entry (dp_launch). */
static int worker_main(void *arg)
{
	poll_loop(arg);
	return 0;
}

/*
 * Every lcore's loop: the workers launched, the main lcore's run here, then the workers waited for. The end of
 * the run is the latest time any lcore reached; the lateness figures are all lcores' merged.
 */
static void run_lcores(struct ctl_run_state *r)
{
	uint32_t launched = 1;

	for (uint32_t i = 1; i < r->n_lcs; i++, launched++)
		if (dp_launch(r->dp, r->lcs[i].lcore_id, worker_main, &r->lcs[i]) < 0) {
			fprintf(stderr, "[uetemu] lcore %u would not start; the run stops\n", r->lcs[i].lcore_id);
			__atomic_store_n(&r->lc_stop, 1, __ATOMIC_RELEASE);
			break;
		}
	poll_loop(&r->lcs[0]);
	for (uint32_t i = 1; i < launched; i++)
		dp_wait(r->dp, r->lcs[i].lcore_id);
	ctl_run_lcore_drain_writer(r);
	ctl_run_lcore_sum(r);
	r->end = 0;
	for (uint32_t i = 0; i < r->n_lcs; i++) {
		r->end = r->lcs[i].rt_now > r->end ? r->lcs[i].rt_now : r->end;
		r->lagged |= r->lcs[i].lagged;
	}
	r->rt_now = r->end;
	r->wall_now = r->lcs[0].wall_now;
	ctl_run_lcore_merge_rt(r, &r->rt);
	r->wall_s = (double)(dp_tsc() - r->rt_t0) / (double)r->rt_hz;
}

/* Say which lcore runs which partitions, once at the start of a run over several. */
static void describe_lcores(const struct ctl_run_state *r)
{
	for (uint32_t i = 0; i < r->n_lcs; i++) {
		fprintf(stderr, "[uetemu] lcore %u%s: partitions", r->lcs[i].lcore_id, i == 0 ? " (main)" : "");
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
		(double)r->rt.lag_at / 1e9, (double)r->rt.lag_late / 1e6, (double)r->cfg->sim.lag_limit / 1e6,
		(unsigned long long)r->cfg->sim.time_scale, (double)r->end / 1e9);
}

/* Where telemetry answers, once the ports are up (a failure to register is reported, and the run goes on). */
static void telemetry_start(struct ctl_run_state *r)
{
	const struct dp_eal_args *eal = dp_eal(r->dp);
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

/* Read port @p x's counters before it closes, and say in a line what crossed it. */
static void port_close(struct ctl_ext *x)
{
	struct dp_xdp_stats xs;

	if (dp_port_xdp_stats(x->run->dp, x->dp_port, &xs) == 0)
		fprintf(stderr, "[uetemu] port %s: XDP steering: to uetemu uet %llu, cm %llu, proto253 %llu, arp %llu, "
			"icmp %llu, pfc %llu; to the kernel %llu (%llu matched with no socket)\n",
			x->run->cfg->ports[x - x->run->exts].dev, (unsigned long long)xs.uet, (unsigned long long)xs.cm,
			(unsigned long long)xs.proto253, (unsigned long long)xs.arp, (unsigned long long)xs.icmp,
			(unsigned long long)xs.pfc, (unsigned long long)xs.pass, (unsigned long long)xs.nosock);
	if (x->stack == NULL) {
		uint64_t refused = 0;

		dp_port_stats(x->run->dp, x->dp_port, &x->stats);
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

	dp_port_stats(x->run->dp, x->dp_port, &x->stats);
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

int ctl_run_realtime(struct ctl_run_state *r, char *err, size_t errlen)
{
	int rc;

	r->rt_hz = dp_tsc_hz();
	r->rt_t0 = dp_tsc();
	rc = open_ports(r, err, errlen);
	if (rc == 0) {
		telemetry_start(r);
		r->rt_t0 = dp_tsc(); /* the run's time 0: the ports are up */
		ctl_run_caps_rt_start(r); /* captures' wall-clock epoch, rte_pdump (ctl_run_cap.c) */
		ctl_run_replays_rt_start(r); /* replays to DPDK ports take their port and clock */
		ctl_run_rec_start(r); /* --record: the session log starts (ctl_run_record.c) */
		/* the ports' taps, then every host announces itself, and starts resolving its gateway, before the
		 * first pass (and after the captures have their clock, so these frames are stamped like the rest) */
		ctl_run_ext_start(r);
		if (r->opts->progress && r->n_lcs > 1)
			describe_lcores(r);
		run_lcores(r);
		ctl_run_caps_rt_stop(r);
	}
	if (r->lagged)
		report_lag(r);
	for (uint32_t i = 0; i < r->n_exts; i++)
		if (!r->exts[i].off)
			port_close(&r->exts[i]);
	dp_destroy(r->dp); /* telemetry stops answering first, then the ports stop and close */
	r->dp = NULL;
	return rc;
}
