/* Real time: the same models paced by the TSC, with hosts bound to DPDK ports exchanging real frames. */
#include "ctl_run_pvt.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dp.h"

/*
 * A frame the model sends off a port: encode it and stage it on the DPDK port (sent at the end of the pass). The
 * port's frame buffer holds the payload pattern from open_ports(), so only the headers are written here.
 */
static void ext_tx(void *arg, const struct wire_pkt *pkt, emu_ps_t now)
{
	struct ctl_ext *x = arg;
	int n = wire_encode_prefilled(pkt, x->frame, sizeof(x->frame));

	(void)now;
	if (n > 0)
		dp_tx(x->run->dp, x->dp_port, x->frame, (size_t)n);
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
 * Add one port. A net_af_xdp dev gets uetemu's XDP steering (docs/lab.md) unless xdp_steering: false: the UET
 * ports and the attached host's address go into the program's maps. Left unset, steering is skipped with a
 * warning when this build has no steering object (no clang) or no libbpf; asked for, that is an error.
 */
static int port_add(struct ctl_run_state *r, const struct ctl_port *cp, char *err, size_t errlen)
{
	const uint32_t ip = r->cfg->hosts[cp->host].ip;
	struct dp_port_opts o = { .xdp_steer = cp->xdp_steering == 1 || (cp->xdp_steering < 0 && dp_is_af_xdp(cp->dev)),
				  .uet_udp_port = r->cfg->nic.udp_port, .cm_udp_port = WIRE_UDP_PORT_CM,
				  .ip = &ip, .n_ip = 1 };
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

static int open_ports(struct ctl_run_state *r, char *err, size_t errlen)
{
	const struct ctl_config *cfg = r->cfg;

	r->exts = calloc(cfg->n_ports ? cfg->n_ports : 1, sizeof(*r->exts));
	if (r->exts == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; i < cfg->n_ports; i++) {
		struct ctl_ext *x = &r->exts[i];
		uint32_t h = cfg->ports[i].host;
		int port = port_add(r, &cfg->ports[i], err, errlen);
		if (port < 0)
			return port;
		x->run = r;
		x->dp_port = port;
		x->host = h;
		wire_prefill_payload(x->frame, sizeof(x->frame));
		struct net_endpoint nic = { .dev = r->nics[h], .ops = &nic_dev_ops, .port = 0 };
		net_link_init(&x->link, &r->np, cfg->nic.data_rate_bps, 0, nic, (struct net_endpoint){ 0 });
		x->link.dir[0].ext = ext_tx;
		x->link.dir[0].ext_arg = x;
		nic_attach(r->nics[h], &x->link.dir[0]);
		r->n_exts++;
	}
	return 0;
}

static emu_ps_t tsc_to_ps(uint64_t dt, uint64_t hz, uint64_t scale)
{
	return (emu_ps_t)(((unsigned __int128)dt * EMU_PS_PER_S) / hz / scale);
}

/* @p x per second, counted over @p dt TSC ticks at @p hz. */
static uint64_t per_s(uint64_t x, uint64_t dt, uint64_t hz)
{
	return dt ? (uint64_t)((unsigned __int128)x * hz / dt) : 0;
}

/* The progress line: time, events, messages, and each port's rates over the last second. */
static void progress(const struct ctl_run_state *r, uint64_t tsc)
{
	fprintf(stderr, "[uetemu] real time %.1f s, %llu events, messages %u/%u done",
		(double)(tsc - r->rt_t0) / (double)r->rt_hz, (unsigned long long)emu_sched_events_run(r->np.sched),
		r->n_completed, r->n_msgs);
	for (uint32_t i = 0; i < r->n_exts; i++) {
		const struct ctl_ext *x = &r->exts[i];
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

		dp_port_stats(r->dp, x->dp_port, &st);
		x->rx_bps = per_s((st.rx_bytes - x->last.rx_bytes) * 8, dt, r->rt_hz);
		x->rx_fps = per_s(st.rx_frames - x->last.rx_frames, dt, r->rt_hz);
		x->tx_bps = per_s((st.tx_bytes - x->last.tx_bytes) * 8, dt, r->rt_hz);
		x->tx_fps = per_s(st.tx_frames - x->last.tx_frames, dt, r->rt_hz);
		x->last = st;
	}
	r->late_last_s = r->late_win;
	r->late_win = 0;
	if (r->opts->progress)
		progress(r, tsc);
}

/*
 * The poll loop (l2fwd shape): read the TSC, run every event whose time has passed, poll each port, flush TX.
 * The models see each event's own timestamp as "now"; only frames from outside carry the wall clock.
 */
static void poll_loop(struct ctl_run_state *r)
{
	const struct emu_sim_params *sim = &r->cfg->sim;
	uint64_t hz = r->rt_hz, t0 = r->rt_t0;
	uint64_t scale = sim->time_scale ? sim->time_scale : 1;
	uint64_t last_tick = t0;

	while (!*r->opts->quit) {
		uint64_t tsc = dp_tsc();
		emu_ps_t now = tsc_to_ps(tsc - t0, hz, scale);
		emu_ps_t next = emu_sched_next(r->np.sched);
		/* Lateness: how far past its timestamp the earliest due event runs (measured, not hidden). */
		if (next <= now) {
			emu_ps_t late = now - next;
			r->late_max = late > r->late_max ? late : r->late_max;
			r->late_win = late > r->late_win ? late : r->late_win;
			r->late_events += late > EMU_PS_PER_US; /* passes, not events */
		}
		r->polls++;
		emu_sched_run_until(r->np.sched, now);
		emu_sched_advance(r->np.sched, now);
		ctl_records_advance(r->records, now);
		r->rt_now = now;
		for (uint32_t i = 0; i < r->n_exts; i++)
			dp_rx(r->dp, r->exts[i].dp_port, ext_rx, &r->exts[i]);
		dp_flush(r->dp);
		if (r->has_stop ? now >= r->stop : (r->n_msgs > 0 && r->n_completed == r->n_msgs))
			break;
		if (tsc - last_tick >= hz) {
			tick(r, tsc, tsc - last_tick);
			last_tick = tsc;
		}
	}
	r->end = r->rt_now;
	r->wall_s = (double)(dp_tsc() - t0) / (double)hz;
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

int ctl_run_realtime(struct ctl_run_state *r, char *err, size_t errlen)
{
	int rc;

	r->dp = dp_create(r->opts->eal_argc, r->opts->eal_argv, err, errlen);
	if (r->dp == NULL)
		return -EIO;
	r->rt_hz = dp_tsc_hz();
	r->rt_t0 = dp_tsc();
	rc = open_ports(r, err, errlen);
	if (rc == 0) {
		telemetry_start(r);
		r->rt_t0 = dp_tsc(); /* the run's time 0: the ports are up */
		poll_loop(r);
	}
	for (uint32_t i = 0; i < r->n_exts; i++) {
		struct dp_port_stats st;
		dp_port_stats(r->dp, r->exts[i].dp_port, &st);
		r->exts[i].stats = st;
		fprintf(stderr, "[uetemu] port %s: rx %llu frames, tx %llu frames, tx drops %llu\n",
			r->cfg->ports[i].dev, (unsigned long long)st.rx_frames, (unsigned long long)st.tx_frames,
			(unsigned long long)(st.tx_drop_full + st.tx_drop_nombuf + st.tx_drop_toobig));
		struct dp_xdp_stats xs;
		if (dp_port_xdp_stats(r->dp, r->exts[i].dp_port, &xs) == 0)
			fprintf(stderr, "[uetemu] port %s: XDP steering: to uetemu uet %llu, cm %llu, proto253 %llu, arp %llu, "
				"icmp %llu, pfc %llu; to the kernel %llu (%llu matched with no socket)\n",
				r->cfg->ports[i].dev, (unsigned long long)xs.uet, (unsigned long long)xs.cm,
				(unsigned long long)xs.proto253, (unsigned long long)xs.arp, (unsigned long long)xs.icmp,
				(unsigned long long)xs.pfc, (unsigned long long)xs.pass, (unsigned long long)xs.nosock);
	}
	dp_destroy(r->dp); /* telemetry stops answering first, then the ports stop and close */
	r->dp = NULL;
	return rc;
}
