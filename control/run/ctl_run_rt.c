/* Real time: the same models paced by the TSC, with hosts bound to DPDK ports exchanging real frames. */
#include "ctl_run_pvt.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dp.h"
#include "emu_hist.h"

/*
 * A frame the model sends off a port: its headers are encoded and staged on the DPDK port with the length of its
 * payload, which the dataplane takes from the pattern it was given in open_ports() (attached, not copied, on a
 * zero-copy port). Sent at the end of the pass, or when the port's burst is full.
 */
static void ext_tx(void *arg, const struct wire_pkt *pkt, emu_ps_t now)
{
	struct ctl_ext *x = arg;
	int h = wire_encode_hdrs(pkt, x->hdr, sizeof(x->hdr));

	(void)now;
	if (h > 0)
		dp_tx_hdr(x->run->dp, x->dp_port, x->hdr, (size_t)h, wire_frame_len(pkt) - (size_t)h);
}

/* A frame from a port: decode it (a bad one is a counted drop) and hand it to the NIC at the current time. */
static void ext_rx(void *arg, int port, const uint8_t *frame, size_t len)
{
	struct ctl_ext *x = arg;
	struct ctl_run_state *r = x->run;
	struct wire_pkt *pkt = net_pkt_alloc(&r->np);

	(void)port;
	if (pkt == NULL)
		return;
	int rc = wire_decode(frame, len, r->cfg->nic.udp_port, pkt);
	if (rc != WIRE_R_OK) {
		x->rx_bad[rc < WIRE_R_COUNT ? rc : 0]++;
		r->np.counters[NET_C_EXT_RX_BAD_FRAME]++;
		net_pkt_free(&r->np, pkt);
		return;
	}
	net_dir_inject(&x->link.dir[1], pkt, r->rt_now);
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
		uint32_t h = cfg->ports[i].host;
		int port = dp_port_add(r->dp, cfg->ports[i].dev, cfg->ports[i].tx_copy ? DP_PORT_TX_COPY : 0, err, errlen);
		if (port < 0)
			return port;
		const char *why;
		x->run = r;
		x->dp_port = port;
		x->host = h;
		x->zerocopy = dp_port_tx_mode(r->dp, port, &why) == DP_TXM_ZEROCOPY;
		fprintf(stderr, "[uetemu] port %s: %s TX: %s\n", cfg->ports[i].dev, x->zerocopy ? "zero-copy" : "copy",
			why);
		struct net_endpoint nic = { .dev = r->nics[h], .ops = &nic_dev_ops, .port = 0 };
		net_link_init(&x->link, &r->np, cfg->nic.data_rate_bps, 0, nic, (struct net_endpoint){ 0 });
		x->link.dir[0].ext = ext_tx;
		x->link.dir[0].ext_arg = x;
		nic_attach(r->nics[h], &x->link.dir[0]);
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
 * past LagLimit, abort returns false (the run stops, r->rt says when and by how much) and elastic holds the clock
 * back to that event's time + LagLimit. The time never passes the run's stop time, so a run with one ends there
 * exactly, as in virtual time.
 */
static bool rt_clock_now(struct ctl_run_state *r, struct rt_clock *c, uint64_t tsc, emu_ps_t *out)
{
	emu_ps_t now = tsc_to_ps(c, tsc - c->t0) - c->held;
	emu_ps_t next = emu_sched_next(r->np.sched);

	if (next <= now) {
		emu_ps_t late = now - next;
		if (late > c->limit && c->policy == EMU_LAG_ABORT) {
			rt_late(&r->rt, late);
			r->rt.lag_late = late;
			r->rt.lag_at = next;
			return false;
		}
		if (late > c->limit && c->policy == EMU_LAG_ELASTIC) {
			c->held += late - c->limit;
			r->rt.held += late - c->limit;
			r->rt.holds++;
			now = next + c->limit;
			late = c->limit;
		}
		rt_late(&r->rt, late);
	}
	*out = r->has_stop && now > r->stop ? r->stop : now;
	return true;
}

/*
 * Receive from every port: each drained, up to DP_RX_DRAIN_BURSTS bursts (a full RX ring), so a pass that comes
 * after the loop lost the CPU for a while takes everything that arrived meanwhile, stamped with this pass's time.
 */
static void rt_rx(struct ctl_run_state *r)
{
	for (uint32_t i = 0; i < r->n_exts; i++)
		dp_rx_drain(r->dp, r->exts[i].dp_port, ext_rx, &r->exts[i]);
}

/*
 * The poll loop (l2fwd shape): read the TSC, run every event whose time has passed, drain each port, flush TX.
 * The models see each event's own timestamp as "now"; only frames from outside carry the wall clock.
 */
static void poll_loop(struct ctl_run_state *r)
{
	const struct emu_sim_params *sim = &r->cfg->sim;
	struct rt_clock c = { .hz = dp_tsc_hz(), .scale = sim->time_scale ? sim->time_scale : 1,
			      .limit = sim->lag_limit, .policy = sim->lag_policy };
	uint64_t last_progress;

	rt_clock_rate(&c);
	c.t0 = dp_tsc();
	last_progress = c.t0;
	while (!*r->opts->quit) {
		uint64_t tsc = dp_tsc();
		emu_ps_t now;

		r->rt.polls++;
		if (!rt_clock_now(r, &c, tsc, &now)) {
			r->lagged = true;
			break;
		}
		emu_sched_run_until(r->np.sched, now);
		emu_sched_advance(r->np.sched, now);
		ctl_records_advance(r->records, now);
		r->rt_now = now;
		rt_rx(r);
		dp_flush(r->dp);
		if (r->has_stop ? now >= r->stop : (r->n_msgs > 0 && r->n_completed == r->n_msgs))
			break;
		if (r->opts->progress && tsc - last_progress > c.hz) {
			last_progress = tsc;
			fprintf(stderr, "[uetemu] real time %.1f s, %llu events, messages %u/%u done\n",
				(double)(tsc - c.t0) / (double)c.hz, (unsigned long long)emu_sched_events_run(r->np.sched),
				r->n_completed, r->n_msgs);
		}
	}
	r->end = r->rt_now;
	r->wall_s = (double)(dp_tsc() - c.t0) / (double)c.hz;
}

/* Say once, on stderr, why LagPolicy abort stopped the run. */
static void report_lag(const struct ctl_run_state *r)
{
	fprintf(stderr, "[uetemu] LagPolicy abort: the event due at %.6f ms ran %.3f us late, past LagLimit %.3f us "
			"(TimeScale %llu); the run stops at %.6f ms\n",
		(double)r->rt.lag_at / 1e9, (double)r->rt.lag_late / 1e6, (double)r->cfg->sim.lag_limit / 1e6,
		(unsigned long long)r->cfg->sim.time_scale, (double)r->end / 1e9);
}

int ctl_run_realtime(struct ctl_run_state *r, char *err, size_t errlen)
{
	int rc;

	r->dp = dp_create(r->opts->eal_argc, r->opts->eal_argv, err, errlen);
	if (r->dp == NULL)
		return -EIO;
	rc = open_ports(r, err, errlen);
	if (rc == 0)
		poll_loop(r);
	if (r->lagged)
		report_lag(r);
	for (uint32_t i = 0; i < r->n_exts; i++) {
		struct dp_port_stats st;
		dp_port_stats(r->dp, r->exts[i].dp_port, &st);
		r->exts[i].stats = st;
		fprintf(stderr, "[uetemu] port %s: rx %llu frames, tx %llu frames, tx drops %llu\n",
			r->cfg->ports[i].dev, (unsigned long long)st.rx_frames, (unsigned long long)st.tx_frames,
			(unsigned long long)(st.tx_drop_full + st.tx_drop_nombuf + st.tx_drop_toobig));
	}
	dp_destroy(r->dp);
	r->dp = NULL;
	return rc;
}
