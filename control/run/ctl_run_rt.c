/* Real time: the same models paced by the TSC, with hosts bound to DPDK ports exchanging real frames. */
#include "ctl_run_pvt.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dp.h"

/*
 * A frame the model sends off a port: encode it and stage it on the DPDK port (sent at the end of the pass). The
 * port's frame buffer holds the payload pattern from open_ports(), so only the headers are written here; a data
 * frame laid out otherwise (native encapsulation, CRC trailer) is written whole into a second buffer.
 */
static void ext_tx(void *arg, const struct wire_pkt *pkt, emu_ps_t now)
{
	struct ctl_ext *x = arg;
	bool pre = wire_prefilled_fits(pkt);
	uint8_t *buf = pre ? x->frame : x->whole;
	int n = pre ? wire_encode_prefilled(pkt, buf, sizeof(x->frame)) : wire_encode(pkt, buf, sizeof(x->whole));

	(void)now;
	if (n > 0)
		dp_tx(x->run->dp, x->dp_port, buf, (size_t)n);
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
	const struct wire_rx_cfg rx = { .uet_port = r->cfg->nic.udp_port, .crc = r->cfg->nic.crc_trailer };
	int rc = wire_decode_cfg(frame, len, &rx, pkt);
	if (rc != WIRE_R_OK) {
		x->rx_bad[rc < WIRE_R_COUNT ? rc : 0]++;
		r->np.counters[NET_C_EXT_RX_BAD_FRAME]++;
		net_pkt_free(&r->np, pkt);
		return;
	}
	net_dir_inject(&x->link.dir[1], pkt, r->rt_now);
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
		int port = dp_port_add(r->dp, cfg->ports[i].dev, err, errlen);
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

/*
 * The poll loop (l2fwd shape): read the TSC, run every event whose time has passed, poll each port, flush TX.
 * The models see each event's own timestamp as "now"; only frames from outside carry the wall clock.
 */
static void poll_loop(struct ctl_run_state *r)
{
	const struct emu_sim_params *sim = &r->cfg->sim;
	uint64_t hz = dp_tsc_hz(), t0 = dp_tsc();
	uint64_t scale = sim->time_scale ? sim->time_scale : 1;
	uint64_t last_progress = t0;

	while (!*r->opts->quit) {
		uint64_t tsc = dp_tsc();
		emu_ps_t now = tsc_to_ps(tsc - t0, hz, scale);
		emu_ps_t next = emu_sched_next(r->np.sched);
		/* Lateness: how far past its timestamp the earliest due event runs (measured, not hidden). */
		if (next <= now) {
			if (now - next > r->late_max)
				r->late_max = now - next;
			r->late_events += now - next > EMU_PS_PER_US; /* passes, not events */
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
		if (r->opts->progress && tsc - last_progress > hz) {
			last_progress = tsc;
			fprintf(stderr, "[uetemu] real time %.1f s, %llu events, messages %u/%u done\n",
				(double)(tsc - t0) / (double)hz, (unsigned long long)emu_sched_events_run(r->np.sched),
				r->n_completed, r->n_msgs);
		}
	}
	r->end = r->rt_now;
	r->wall_s = (double)(dp_tsc() - t0) / (double)hz;
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
