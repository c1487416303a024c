/*
 * The re-run of a recorded real-time session (uetemu rerun DIR, docs/replay.md): the same models in virtual time,
 * its DPDK ports replaced by the session log. Each logged pass of the real-time poll loop is played again as that
 * loop ran it: the events up to its emulated time, the periodic rows, then each port's arrivals in order and its
 * ARP timers at the pass's wall-clock time. The re-run writes its own log with the recorder's code; equal logs
 * mean the same frames sent, byte for byte, at the same emulated times.
 */
#include "ctl_run_pvt.h"
#include "ctl_run_cap_pvt.h"
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
	uint32_t ticked;             /* ports whose timers ran in the pass under way */
	bool in_pass;
	uint64_t records, passes, rx, tx;  /* of the recorded log, as played */
	bool ended;                  /* the recorded log has its END */
	emu_ps_t last_t;             /* the latest time of a record played */
	uint8_t stop;                /* the recorded run's enum ctl_stop */
	int same;                    /* 1 the logs are equal, 0 not, -1 not compared */
	uint64_t compared;           /* records compared */
	char diff[512];              /* the first difference */
};

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
	return 0;
}

/* What the port's IPv4 side sends: to the dev capture and the re-run's log, stamped as real time stamps it. */
static void rerun_emit(void *arg, const uint8_t *hdr, size_t len, size_t payload)
{
	struct ctl_ext *x = arg;

	ctl_run_ext_cap_tx(x, hdr, len, payload, x->emit_now);
}

/* What a switch sends to the external device behind its port, encoded and captured as in real time. */
static void rerun_sw_tx(void *arg, const struct wire_pkt *pkt, emu_ps_t now)
{
	size_t len, payload;

	ctl_run_ext_sw_encode(arg, pkt, &len, &payload, now);
}

/* The ports of the session, without DPDK: hosts' links and IPv4 sides, switch ports' links. */
static int bind_ports(struct ctl_run_state *r, char *err, size_t errlen)
{
	const struct ctl_config *cfg = r->cfg;

	r->exts = calloc(cfg->n_ports ? cfg->n_ports : 1, sizeof(*r->exts));
	if (r->exts == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; i < cfg->n_ports; i++) {
		int rc = 0;

		r->exts[i].run = r;
		r->exts[i].lc = ctl_run_lc(r, 0); /* one lcore */
		r->exts[i].dp_port = -1;
		if (cfg->ports[i].sw)
			ctl_run_ext_bind_switch(r, i, rerun_sw_tx);
		else
			rc = ctl_run_ext_bind(r, i, rerun_emit, err, errlen);
		if (rc < 0)
			return rc;
		r->n_exts++;
	}
	return 0;
}

/* The ARP timers of ports [ticked, @p upto) in the pass under way, as the real-time loop ran them after each
 * port's arrivals. */
static void ticks_upto(struct ctl_run_state *r, uint32_t upto)
{
	struct ctl_rerun *rr = r->rr;

	for (; rr->in_pass && rr->ticked < upto; rr->ticked++)
		if (r->exts[rr->ticked].stack != NULL)
			ctl_run_ext_tick(&r->exts[rr->ticked]);
}

/* The loop's clocks at emulated time @p now, wall clock @p wall: its one lcore's, which the ports' code reads
 * (ctl_run_ext.c). */
static void set_clock(struct ctl_run_state *r, emu_ps_t now, emu_ps_t wall)
{
	run_rerun_clock(r->eng, now, wall);
}

/* The emulated time of the pass under way, and its wall clock. */
static emu_ps_t clock_now(const struct ctl_run_state *r)
{
	return ctl_run_lc(r, 0)->rt_now;
}

static emu_ps_t clock_wall(const struct ctl_run_state *r)
{
	return ctl_run_lc(r, 0)->wall_now;
}

/* A pass of the poll loop at emulated time @p now, wall clock @p wall, up to its arrivals. */
static void pass(struct ctl_run_state *r, emu_ps_t now, emu_ps_t wall)
{
	ticks_upto(r, r->n_exts); /* the pass before ends */
	set_clock(r, clock_now(r), wall);
	ctl_run_rec_pass(r, now);
	run_rerun_until(r->eng, now);
	ctl_records_advance(r->records, now);
	set_clock(r, now, wall);
	r->rr->in_pass = true;
	r->rr->ticked = 0;
	r->rr->passes++;
}

/* One record of the recorded log. 0, or -EINVAL for one out of place (its offset in @p err). */
static int play(struct ctl_run_state *r, const struct cap_session_rec *rec, char *err, size_t errlen)
{
	struct ctl_rerun *rr = r->rr;

	switch (rec->type) {
	case CAP_SES_PASS:
		pass(r, rec->t, rec->x);
		return 0;
	case CAP_SES_RX:
		if (!rr->in_pass || rec->port >= r->n_exts || rec->port < rr->ticked) {
			snprintf(err, errlen, "%s: arrival %llu on port %u out of place (a corrupt log)", rr->log,
				 (unsigned long long)rec->x, rec->port);
			return -EINVAL;
		}
		ticks_upto(r, rec->port);
		rr->rx++;
		if (r->exts[rec->port].stack != NULL)
			ctl_run_ext_rx(&r->exts[rec->port], rec->data, rec->len);
		else
			ctl_run_ext_sw_rx(&r->exts[rec->port], rec->data, rec->len);
		return 0;
	case CAP_SES_TX:
		rr->tx++; /* the re-run makes its own, compared at the end */
		return 0;
	default: /* CAP_SES_END: the events up to the end, as the loop's last passes ran them */
		ticks_upto(r, r->n_exts);
		rr->in_pass = false;
		set_clock(r, clock_now(r), rec->x);
		run_rerun_until(r->eng, rec->t);
		ctl_records_advance(r->records, rec->t);
		set_clock(r, rec->t, rec->x);
		rr->ended = true;
		rr->stop = rec->port;
		r->end = rec->t;
		return 0;
	}
}

int ctl_run_rerun(struct ctl_run_state *r, char *err, size_t errlen)
{
	struct ctl_rerun *rr = r->rr;
	struct cap_session_rec rec;
	int rc;

	if ((rc = bind_ports(r, err, errlen)) < 0 ||
	    (rc = ctl_run_rec_create(r, r->opts->out_dir, &rr->hdr, true, err, errlen)) < 0)
		return rc;
	ctl_run_caps_epoch(r, rr->hdr.epoch_ns);
	for (uint32_t i = 0; i < r->n_exts; i++) /* as ctl_run_realtime() starts them, before the first pass */
		if (r->exts[i].stack != NULL)
			net_port_start(r->exts[i].stack, 0);
	while (!rr->ended && !*r->opts->quit && (rc = cap_session_next(rr->rd, &rec, err, errlen)) == 1) {
		rr->records++;
		rr->last_t = rec.t > rr->last_t ? rec.t : rr->last_t;
		if ((rc = play(r, &rec, err, errlen)) < 0)
			return rc;
	}
	if (rc < 0)
		return rc;
	if (!rr->ended) { /* the events up to the last frame the log saw sent, so the re-run sends it too */
		ticks_upto(r, r->n_exts);
		run_rerun_until(r->eng, rr->last_t);
		r->end = emu_sched_now(r->np.sched);
		set_clock(r, r->end, clock_wall(r));
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
	static const char *const names[] = { "?", "pass", "arrival", "frame sent", "end" };

	if (a->type == b->type && a->port == b->port && a->len == b->len && a->t == b->t && a->x == b->x &&
	    (a->len == 0 || memcmp(a->data, bdata, a->len) == 0))
		return true;
	snprintf(rr->diff, sizeof(rr->diff), "record %llu: recorded %s (port %u, %u bytes, t %llu ps, #%llu), "
		 "re-run %s (port %u, %u bytes, t %llu ps, #%llu)", (unsigned long long)rr->compared,
		 names[a->type <= CAP_SES_END ? a->type : 0], a->port, a->len, (unsigned long long)a->t,
		 (unsigned long long)a->x, names[b->type <= CAP_SES_END ? b->type : 0], b->port, b->len,
		 (unsigned long long)b->t, (unsigned long long)b->x);
	return false;
}

/* Walk both logs from the start: 1 equal, 0 not (rr->diff), -errno. */
static int compare_logs(struct ctl_rerun *rr, const char *mine, char *err, size_t errlen)
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
			bool prefix = na == 0 && !rr->ended;
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
		rr->compared++;
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
	rc = compare_logs(rr, mine, err, errlen);
	if (rc < 0)
		return rc;
	rr->same = rc;
	if (rc == 1)
		fprintf(stderr, "[uetemu] rerun: identical to the recorded session: %llu records (%llu passes, %llu "
				"arrivals, %llu frames sent), bytes and emulated times\n", (unsigned long long)rr->compared,
			(unsigned long long)rr->passes, (unsigned long long)rr->rx, (unsigned long long)rr->tx);
	else
		fprintf(stderr, "[uetemu] rerun: DIFFERS from the recorded session at %s\n", rr->diff);
	return rc == 1 ? 0 : 1;
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
	free(r->rr);
	r->rr = NULL;
}
