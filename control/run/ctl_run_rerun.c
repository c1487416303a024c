/*
 * The re-run of a recorded real-time session (uetemu rerun DIR, docs/replay.md): the same models in virtual time,
 * its DPDK ports replaced by ports bound to the session log (the same burst-level binding, net_bind.h, so the model
 * side is real time's, ctl_run_ext.c). The engine's loop (runtime/run_loop.c) runs with the recorded clock: each
 * logged pass of the real-time poll loop is a step, played again as that loop ran it: the events up to its emulated
 * time, the periodic rows, then each port's turn: its arrivals in order, from the log through its rx_burst, and
 * its ARP timers at the pass's wall-clock time. The re-run writes its own log with the recorder's code; equal logs
 * mean the same frames sent, byte for byte, at the same emulated times.
 */
#include "ctl_run_pvt.h"
#include "ctl_run_cap_pvt.h"
#include "ctl_run_ctl_pvt.h"
#include "ctl_run_ext_pvt.h"
#include "ctl_run_rec_pvt.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

struct ctl_rerun {
	struct cap_session_r *rd;
	struct cap_session_hdr hdr;
	char log[PATH_MAX];          /* the recorded DIR/session.bin */
	struct cap_session_rec next; /* the record read ahead and not played yet (have_next) */
	bool have_next, at_end;      /* at_end: the log has no record left */
	int rc;                      /* a read error (-errno), met by a port's rx_burst or the loop; message in err */
	char err[PATH_MAX + 256];
	uint8_t *flat;               /* a port's burst of arrivals, copied out of the reader: NET_BIND_BURST frames */
	uint64_t records, passes, rx, tx, ctl; /* of the recorded log, as played */
	bool ended;                  /* the recorded log has its END */
	emu_ps_t last_t;             /* the latest time of a record played */
	uint8_t stop;                /* the recorded run's enum ctl_stop */
	int same;                    /* 1 the logs are equal, 0 not, -1 not compared */
	uint64_t compared;           /* records compared */
	char diff[512];              /* the first difference */
	bool scan_ended;             /* the log's check met its end record */
	uint64_t scan_tx;            /* ... and this many frames sent */
	const volatile sig_atomic_t *quit; /* the run's stop flag */
	emu_ps_t scan_end;           /* ... at this emulated time */
};

/* The latest emulated time the session can hold: its stop time, if it has one, and below the range (EMU_PS_MAX). */
static emu_ps_t t_max(const struct ctl_config *cfg)
{
	return cfg->sim.duration != 0 && cfg->sim.duration < EMU_PS_MAX ? cfg->sim.duration : EMU_PS_MAX - 1;
}

/* Frames a re-run of a log without its end record may send past the log's count before it is stopped. */
#define RERUN_CUT_TX_SLACK 4096u

/* Records read between two looks at the stop flag while the log is checked. */
#define RERUN_SCAN_QUIT_EVERY 65536u

/*
 * Read the whole log once, every record checked (cap_session_check()), before the models see any of it: a corrupt
 * record is -EINVAL ("corrupt session log"), a log with nothing to re-run -ENODATA (no pass; or cut, no end record,
 * before its first port frame), a signal meanwhile -EINTR. Notes whether it ends and when.
 */
static int scan(struct ctl_run_state *r, struct ctl_rerun *rr, char *err, size_t errlen)
{
	struct cap_session_r *rd;
	struct cap_session_hdr h;
	struct cap_session_rec rec;
	uint64_t passes = 0, frames = 0, n = 0;
	char why[PATH_MAX + 256];
	int rc = cap_session_open(rr->log, &rd, &h, err, errlen);

	if (rc < 0)
		return rc;
	cap_session_check(rd, h.n_ports, h.time_scale, t_max(r->cfg));
	while ((rc = cap_session_next(rd, &rec, why, sizeof(why))) == 1) {
		passes += rec.type == CAP_SES_PASS;
		frames += rec.type == CAP_SES_RX || rec.type == CAP_SES_TX;
		rr->scan_tx += rec.type == CAP_SES_TX;
		if (rec.type == CAP_SES_CTL) { /* a command the re-run could not apply is refused before it starts */
			struct ctl_run_ctl_cmd c;
			char msg[256];

			if (ctl_run_ctl_decode(r, rec.data, rec.len, rec.x, &c, msg, sizeof(msg)) < 0) {
				snprintf(why, sizeof(why), "%s: %.200s", rr->log, msg);
				rc = -EINVAL;
				break;
			}
		}
		if (rec.type == CAP_SES_END) {
			rr->scan_ended = true;
			rr->scan_end = rec.t;
			if (rec.port > CTL_STOP_CTL) {
				snprintf(why, sizeof(why), "%s: the end record names stop %u, not one uetemu writes",
					 rr->log, rec.port);
				rc = -EINVAL;
				break;
			}
		}
		if (++n % RERUN_SCAN_QUIT_EVERY == 0 && *r->opts->quit) {
			rc = -EINTR;
			snprintf(why, sizeof(why), "%s: stopped by a signal while the log was checked", rr->log);
			break;
		}
	}
	bool cut = cap_session_cut(rd) != UINT64_MAX;

	cap_session_close_r(rd);
	if (rc < 0) {
		snprintf(err, errlen, "%s%s", rc == -EINVAL ? "corrupt session log: " : "", why);
		return rc;
	}
	if (passes == 0 || (!rr->scan_ended && frames == 0)) {
		snprintf(err, errlen, "%s: nothing to re-run: the session log %s (%llu records%s)", rr->log,
			 passes == 0 ? "holds no pass of the real-time loop" : "ends before its first port frame, with "
			 "no end record (cut)", (unsigned long long)n, cut ? ", the last one cut" : "");
		return -ENODATA;
	}
	return 0;
}

int ctl_run_rerun_open(struct ctl_run_state *r, char *err, size_t errlen)
{
	const struct ctl_config *cfg = r->cfg;
	struct ctl_rerun *rr = calloc(1, sizeof(*rr));
	uint64_t hash;
	int rc;

	if (rr == NULL)
		return -ENOMEM;
	r->rr = rr;
	rr->same = -1;
	rr->quit = r->opts->quit;
	snprintf(rr->log, sizeof(rr->log), "%s/session.bin", r->opts->rerun_dir);
	if ((rc = cap_session_open(rr->log, &rr->rd, &rr->hdr, err, errlen)) < 0)
		return rc;
	hash = ctl_run_rec_config_hash(cfg->path);
	if (rr->hdr.n_ports != cfg->n_ports || rr->hdr.seed != cfg->sim.random_seed ||
	    rr->hdr.time_scale != cfg->sim.time_scale || rr->hdr.config_hash != hash) {
		snprintf(err, errlen, "%s: the session was recorded with %u ports, seed %llu, TimeScale %llu, config "
			 "%016llx; %s gives %u, %llu, %llu, %016llx: not the session's config", rr->log,
			 rr->hdr.n_ports, (unsigned long long)rr->hdr.seed, (unsigned long long)rr->hdr.time_scale,
			 (unsigned long long)rr->hdr.config_hash, cfg->path, cfg->n_ports,
			 (unsigned long long)cfg->sim.random_seed, (unsigned long long)cfg->sim.time_scale,
			 (unsigned long long)hash);
		return -EINVAL;
	}
	r->epoch_s = rr->hdr.records_epoch_s; /* the records' time_utc as the session wrote them */
	if ((rc = scan(r, rr, err, errlen)) < 0)
		return rc;
	/* the play checks every record again (the file is read twice), now up to the end record's time */
	cap_session_check(rr->rd, rr->hdr.n_ports, rr->hdr.time_scale, rr->scan_ended ? rr->scan_end : t_max(cfg));
	return 0;
}

/*
 * The next record of the log that is not a frame sent, read ahead into rr->next; false at the log's end or on a
 * read error (rr->rc). Frames sent are counted and passed over: the re-run makes its own, compared at the end.
 */
static bool peek(struct ctl_rerun *rr)
{
	while (!rr->have_next && !rr->at_end && rr->rc == 0) {
		int rc = cap_session_next(rr->rd, &rr->next, rr->err, sizeof(rr->err));

		if (rc < 0)
			rr->rc = rc;
		rr->at_end = rc == 0;
		if (rc != 1)
			break;
		if (rr->next.t >= EMU_PS_MAX) { /* a time no run reaches: the engine's sums of it would wrap */
			snprintf(rr->err, sizeof(rr->err), "%s: record %llu at %llu ps, past the emulated time range "
				 "(2^63 ps; a corrupt log)", rr->log, (unsigned long long)rr->records + 1,
				 (unsigned long long)rr->next.t);
			rr->rc = -EINVAL;
			break;
		}
		rr->records++;
		rr->last_t = rr->next.t > rr->last_t ? rr->next.t : rr->last_t;
		if (rr->next.type == CAP_SES_TX)
			rr->tx++;
		else
			rr->have_next = true;
	}
	return rr->have_next;
}

/*
 * The recorded port's rx_burst (net_bind.h): the arrivals the log holds for this port in the pass under way, the
 * records that follow in a row, up to @p n, with the emulated times they were recorded at (the pass's). Copied
 * out of the reader, which reuses its buffer, into rr->flat.
 */
static unsigned log_rx(void *port, struct net_rx_frame *f, unsigned n, emu_ps_t now)
{
	struct ctl_ext *x = port;
	struct ctl_rerun *rr = x->run->rr;
	const uint32_t i = (uint32_t)(x - x->run->exts);
	unsigned k = 0;

	(void)now;
	while (k < n && peek(rr) && rr->next.type == CAP_SES_RX && rr->next.port == i) {
		uint8_t *buf = rr->flat + (size_t)k * CAP_READ_CAPLEN_MAX;

		memcpy(buf, rr->next.data, rr->next.len);
		f[k++] = (struct net_rx_frame){ .data = buf, .len = rr->next.len, .t = rr->next.t };
		rr->have_next = false;
		rr->rx++;
	}
	return k;
}

/* What the recorded port sends: nothing leaves it. The taps have logged it, and the re-run's log is compared with
 * the recorded one at the end. */
static unsigned log_tx(void *port, const struct net_tx_frame *f, unsigned n)
{
	(void)port;
	(void)f;
	return n;
}

static void log_flush(void *port)
{
	(void)port;
}

static const struct net_bind_ops log_ops = { .rx_burst = log_rx, .tx_burst = log_tx, .flush = log_flush };

/* The ports of the session, bound to its log instead of DPDK: hosts' links and IPv4 sides, switch ports' links. */
static int bind_ports(struct ctl_run_state *r, char *err, size_t errlen)
{
	const struct ctl_config *cfg = r->cfg;

	r->exts = calloc(cfg->n_ports ? cfg->n_ports : 1, sizeof(*r->exts));
	r->rr->flat = malloc((size_t)NET_BIND_BURST * CAP_READ_CAPLEN_MAX); /* pages touched as frames need them */
	if (r->exts == NULL || r->rr->flat == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; i < cfg->n_ports; i++) {
		struct ctl_ext *x = &r->exts[i];
		int rc = 0;

		x->run = r;
		x->lc = ctl_run_lc(r, 0); /* one lcore */
		x->dp_port = -1;
		x->bind = (struct net_bind){ .ops = &log_ops, .port = x };
		if (cfg->ports[i].sw)
			ctl_run_ext_bind_switch(r, i);
		else
			rc = ctl_run_ext_bind(r, i, err, errlen);
		if (rc < 0)
			return rc;
		r->n_exts++;
	}
	return 0;
}

/*
 * The engine's recorded clock: the next step of the log. A pass (its arrivals follow it in the log, taken by its
 * ports' rx_burst in the pass), or the end record (the last step: the events up to it, the periodic rows), or
 * nothing left. An arrival here was not taken by its port's turn in the pass before: a corrupt log.
 */
static enum run_step recorded(void *ctx, emu_ps_t *t, emu_ps_t *wall)
{
	struct ctl_run_state *r = ctx;
	struct ctl_rerun *rr = r->rr;

	if (rr->ended || rr->rc < 0 || !peek(rr))
		return RUN_STEP_END;
	rr->have_next = false;
	if (rr->next.type == CAP_SES_RX || rr->next.type == CAP_SES_CTL) {
		snprintf(rr->err, sizeof(rr->err), "%s: %s %llu%s out of place (a corrupt log)", rr->log,
			 rr->next.type == CAP_SES_RX ? "arrival" : "control command", (unsigned long long)rr->next.x,
			 rr->next.type == CAP_SES_RX ? " on a port" : "");
		rr->rc = -EINVAL;
		return RUN_STEP_END;
	}
	*t = rr->next.t;
	*wall = rr->next.x;
	if (rr->next.type == CAP_SES_END) { /* the events up to the end, as the loop's last passes ran them */
		rr->ended = true;
		rr->stop = rr->next.port;
		r->end = rr->next.t;
		return RUN_STEP_LAST;
	}
	rr->passes++;
	return RUN_STEP_RUN;
}

static void rr_ctl(struct ctl_run_state *r);

/* Port @p arg's turn in the pass under way: its arrivals from the log (log_rx), in order, then its ARP timers, as
 * the real-time loop ran them (ctl_run_ext_poll()). */
static void rerun_port_rx(void *arg)
{
	rr_ctl(((struct ctl_ext *)arg)->run); /* the first port's turn: the pass's control commands come first */
	ctl_run_ext_poll(arg);
}

/* The end of the port's turn: its binding's flush (nothing leaves a port bound to the log). */
static void rerun_port_flush(void *arg)
{
	ctl_run_ext_flush(arg);
}

/*
 * The control commands the session applied in the pass under way (they follow its pass record in the log, ahead
 * of its arrivals), applied at the pass's time as the real-time loop applied them (ctl_run_ctl_poll(): after the
 * pass's events, before the ports' next turn takes what arrived).
 */
static void rr_ctl(struct ctl_run_state *r)
{
	struct ctl_rerun *rr = r->rr;

	while (rr->rc == 0 && peek(rr) && rr->next.type == CAP_SES_CTL) {
		struct ctl_run_ctl_cmd c;
		char msg[256];
		int rc = ctl_run_ctl_decode(r, rr->next.data, rr->next.len, rr->next.x, &c, msg, sizeof(msg));

		rr->have_next = false;
		if (rc < 0) {
			snprintf(rr->err, sizeof(rr->err), "%s: %.200s", rr->log, msg);
			rr->rc = rc;
			return;
		}
		rr->ctl++;
		ctl_run_ctl_apply(r, &c, ctl_run_lc(r, 0)->rt_now);
	}
}

/* After the ports' turns: what is left of the pass's commands (a session without ports has no turn before). */
static void rr_after_rx(void *ctx)
{
	rr_ctl(ctx);
}

/* The engine's hooks of a step: the session log's pass, the periodic rows. */
static void rr_pass(void *ctx, emu_ps_t now)
{
	ctl_run_rec_pass(ctx, now);
}

static emu_ps_t rr_due(void *ctx)
{
	return ctl_records_due(((struct ctl_run_state *)ctx)->records);
}

static void rr_sample(void *ctx, emu_ps_t now)
{
	ctl_records_advance(((struct ctl_run_state *)ctx)->records, now);
}

int ctl_run_rerun(struct ctl_run_state *r, char *err, size_t errlen)
{
	struct ctl_rerun *rr = r->rr;
	int rc;

	if ((rc = bind_ports(r, err, errlen)) < 0 ||
	    (rc = ctl_run_rec_create(r, r->opts->out_dir, &rr->hdr, true, err, errlen)) < 0)
		return rc;
	/* a frame more than the session sent: it differs, and stops; a log cut by a killed run may lack a few of its
	 * last frames, which the re-run sends as it plays the log's end */
	ctl_run_rec_tx_limit(r, rr->scan_tx + (rr->scan_ended ? 0 : RERUN_CUT_TX_SLACK));
	ctl_run_caps_epoch(r, rr->hdr.epoch_ns);
	ctl_run_ext_start(r); /* as ctl_run_realtime() starts the ports, before the first pass */
	for (uint32_t i = 0; i < r->n_exts; i++) /* the loop gives each port its turn in every pass */
		if (run_port_add(r->eng, &(struct run_port){ .lc = 0, .rx = rerun_port_rx, .flush = rerun_port_flush,
							     .arg = &r->exts[i] }) < 0)
			return -ENOMEM;
	struct run_hooks h = { .ctx = r, .recorded = recorded, .pass = rr_pass, .due = rr_due, .sample = rr_sample,
			       .after_rx = rr_after_rx };
	enum run_end why;
	emu_ps_t end;

	if ((rc = run_go(r->eng, &h, &why, &end)) < 0)
		return rc;
	if (rr->rc < 0) {
		snprintf(err, errlen, "%s", rr->err);
		return rr->rc;
	}
	if (*r->opts->quit == CTL_RUN_HALT_AHEAD)
		fprintf(stderr, "[uetemu] rerun: the models sent more frames than the session log holds (%llu): the "
				"re-run stops there\n", (unsigned long long)rr->scan_tx);
	else if (!rr->ended) { /* the events up to the last frame the log saw sent, so the re-run sends it too */
		struct run_lcore *lc = ctl_run_lc(r, 0);

		run_rerun_until(r->eng, rr->last_t);
		r->end = emu_sched_now(r->np.sched);
		lc->rt_now = r->end;
		fprintf(stderr, "[uetemu] rerun: %s has no end record%s (the recorded run was killed?): played up to its "
				"last record, %.6f s; compared as far as it goes\n", rr->log,
			cap_session_cut(rr->rd) != UINT64_MAX ? " and ends inside a record" : "", (double)r->end / 1e12);
	}
	return 0;
}

/* Compare the next records of the two logs; false with rr->diff set at the first difference. */
static bool same_rec(struct ctl_rerun *rr, const struct cap_session_rec *a, const struct cap_session_rec *b,
		     const uint8_t *bdata)
{
	static const char *const names[] = { "?", "pass", "arrival", "frame sent", "end", "control command" };

	if (a->type == b->type && a->port == b->port && a->len == b->len && a->t == b->t && a->x == b->x &&
	    (a->len == 0 || memcmp(a->data, bdata, a->len) == 0))
		return true;
	snprintf(rr->diff, sizeof(rr->diff), "record %llu: recorded %s (port %u, %u bytes, t %llu ps, #%llu), "
		 "re-run %s (port %u, %u bytes, t %llu ps, #%llu)", (unsigned long long)rr->compared,
		 names[a->type <= CAP_SES_CTL ? a->type : 0], a->port, a->len, (unsigned long long)a->t,
		 (unsigned long long)a->x, names[b->type <= CAP_SES_CTL ? b->type : 0], b->port, b->len,
		 (unsigned long long)b->t, (unsigned long long)b->x);
	return false;
}

/* Walk both logs from the start: 1 equal, 0 not (rr->diff), -errno. @p mine_cut: the re-run's log was cut by the
 * output budget, and is compared as far as it goes. */
static int compare_logs(struct ctl_rerun *rr, const char *mine, bool mine_cut, char *err, size_t errlen)
{
	struct cap_session_r *a = NULL, *b = NULL;
	struct cap_session_hdr ha, hb;
	struct cap_session_rec ra, rb;
	uint8_t *keep = malloc(CAP_READ_CAPLEN_MAX);
	int rc = keep == NULL ? -ENOMEM : cap_session_open(rr->log, &a, &ha, err, errlen);

	if (rc == 0)
		rc = cap_session_open(mine, &b, &hb, err, errlen);
	for (int na = 1, nb = 1; rc == 0;) {
		na = cap_session_next(a, &ra, err, errlen);
		if (na == 1)
			memcpy(keep, ra.data, ra.len), ra.data = keep;
		nb = na < 0 ? 0 : cap_session_next(b, &rb, err, errlen);
		if (na < 0 || nb < 0) {
			rc = -EINVAL;
			break;
		}
		if (na == 0 || nb == 0) {
			/* a recorded log without its end (a killed run) is compared as far as it goes */
			bool prefix = (na == 0 && !rr->ended) || (nb == 0 && mine_cut);
			if (na != nb && !prefix)
				snprintf(rr->diff, sizeof(rr->diff), "record %llu: the %s log ends first",
					 (unsigned long long)rr->compared, na == 0 ? "recorded" : "re-run's");
			rc = na == nb || prefix ? 1 : 0;
			break;
		}
		if (!same_rec(rr, &ra, &rb, rb.data)) {
			/* a killed run's log may end with a pass whose first frame was cut off: the re-run, which never
			 * saw that frame, did not log the pass */
			rc = !rr->ended && ra.type == CAP_SES_PASS && rb.type == CAP_SES_END &&
			     cap_session_next(a, &ra, err, errlen) == 0;
			break;
		}
		if (++rr->compared % RERUN_SCAN_QUIT_EVERY == 0 && rr->quit != NULL && *rr->quit == 1) {
			rc = -EINTR; /* a signal while two long logs are compared: not compared */
			break;
		}
	}
	cap_session_close_r(a);
	cap_session_close_r(b);
	free(keep);
	return rc;
}

int ctl_run_rerun_compare(struct ctl_run_state *r, char *err, size_t errlen)
{
	struct ctl_rerun *rr = r->rr;
	char mine[PATH_MAX + 16];
	int rc;

	snprintf(mine, sizeof(mine), "%s/session.bin", r->opts->out_dir);
	if (*r->opts->quit == 1 || *r->opts->quit == REC_HALT_WRITE) { /* stopped part way: nothing to compare */
		fprintf(stderr, "[uetemu] rerun: stopped by a signal before the end of the log: not compared\n");
		return 0;
	}
	rc = compare_logs(rr, mine, ctl_run_rec_cut(r), err, errlen);
	if (rc == -EINTR) {
		fprintf(stderr, "[uetemu] rerun: stopped by a signal while the logs were compared: not compared\n");
		return 0;
	}
	if (rc < 0)
		return rc;
	rr->same = rc;
	if (rc != 1) {
		fprintf(stderr, "[uetemu] rerun: DIFFERS from the recorded session at %s\n", rr->diff);
		return 1;
	}
	fprintf(stderr, "[uetemu] rerun: identical to the recorded session: %llu records (%llu passes, %llu arrivals, "
			"%llu frames sent), bytes and emulated times\n", (unsigned long long)rr->compared,
		(unsigned long long)rr->passes, (unsigned long long)rr->rx, (unsigned long long)rr->tx);
	if (rr->ctl > 0)
		fprintf(stderr, "[uetemu] rerun: %llu control commands applied where the session applied them\n",
			(unsigned long long)rr->ctl);
	if (ctl_run_rec_cut(r))
		fprintf(stderr, "[uetemu] rerun: compared as far as the re-run's own log goes: simulation.OutputSizeLimit "
				"cut it (summary.json output_cut)\n");
	return 0;
}

void ctl_run_rerun_json(FILE *f, const struct ctl_run_state *r)
{
	const struct ctl_rerun *rr = r->rr;

	if (rr == NULL)
		return;
	fprintf(f, "  \"rerun\": {\"session\": \"%s\", \"identical\": %s, \"records\": %llu, \"passes\": %llu, "
		   "\"arrivals\": %llu, \"frames_sent\": %llu, \"compared\": %llu, \"ended\": %s, \"session_stop\": \"%s\", "
		   "\"first_difference\": ",
		rr->log, rr->same == 1 ? "true" : rr->same == 0 ? "false" : "null", (unsigned long long)rr->records,
		(unsigned long long)rr->passes, (unsigned long long)rr->rx, (unsigned long long)rr->tx,
		(unsigned long long)rr->compared, rr->ended ? "true" : "false", ctl_stop_name(rr->stop));
	if (rr->same == 0)
		fprintf(f, "\"%s\"},\n", rr->diff);
	else
		fprintf(f, "null},\n");
}

void ctl_run_rerun_print(const struct ctl_run_state *r)
{
	const struct ctl_rerun *rr = r->rr;

	if (rr == NULL)
		return;
	printf("rerun of %s: %llu passes, %llu arrivals played; %s\n", rr->log, (unsigned long long)rr->passes,
	       (unsigned long long)rr->rx, rr->same == 1 ? "identical to the session (every frame sent, its bytes and "
	       "emulated time)" : rr->same == 0 ? "DIFFERS from the session" : "not compared");
}

uint8_t ctl_run_rerun_stop(const struct ctl_run_state *r)
{
	return r->rr != NULL ? r->rr->stop : 0;
}

void ctl_run_rerun_free(struct ctl_run_state *r)
{
	if (r->rr == NULL)
		return;
	cap_session_close_r(r->rr->rd);
	free(r->rr->flat);
	free(r->rr);
	r->rr = NULL;
}
