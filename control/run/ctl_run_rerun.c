/*
 * The re-run of a recorded real-time session (uetemu rerun DIR, docs/replay.md): the same models in virtual time,
 * its DPDK ports replaced by the session log. The engine's loop (runtime/run_loop.c) runs with the recorded clock:
 * each logged pass of the real-time poll loop is a step, played again as that loop ran it: the events up to its
 * emulated time, the periodic rows, then each port's arrivals in order and its ARP timers at the pass's wall-clock
 * time. The re-run writes its own log with the recorder's code; equal logs
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

/* An arrival of the pass under way: its port, its bytes at off in the pass's buffer. */
struct rr_arrival {
	uint32_t port, len;
	size_t off;
};

struct ctl_rerun {
	struct cap_session_r *rd;
	struct cap_session_hdr hdr;
	char log[PATH_MAX];          /* the recorded DIR/session.bin */
	struct cap_session_rec next; /* the record read ahead: the next pass or the end (has_next) */
	bool has_next;
	struct rr_arrival *arr;      /* the arrivals of the pass under way, in port order */
	size_t n_arr, cap_arr, cur;  /* ... and the next to play */
	uint8_t *buf;                /* their bytes */
	size_t used, size;
	int rc;                      /* a corrupt log or a read error stopped the re-run (its message in err) */
	char err[PATH_MAX + 128];
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

/* Room for @p need elements of @p elem bytes in *@p p (holding *@p cap), doubled as needed. */
static bool grow(void *p, size_t *cap, size_t need, size_t elem)
{
	size_t n = *cap ? *cap : 64;
	void *q;

	if (need <= *cap)
		return true;
	while (n < need)
		n *= 2;
	if ((q = realloc(*(void **)p, n * elem)) == NULL)
		return false;
	*(void **)p = q;
	*cap = n;
	return true;
}

/* An arrival out of place (before any pass, or after a later port's): a corrupt log. False. */
static bool corrupt(struct ctl_rerun *rr, const struct cap_session_rec *rec)
{
	snprintf(rr->err, sizeof(rr->err), "%s: arrival %llu on port %u out of place (a corrupt log)", rr->log,
		 (unsigned long long)rec->x, rec->port);
	rr->rc = -EINVAL;
	return false;
}

/* The next record of the log that is a pass or the end, into rr->next; the frames sent before it counted. False
 * at the log's end, or on an error (rr->rc). */
static bool read_step(struct ctl_run_state *r)
{
	struct ctl_rerun *rr = r->rr;
	int rc;

	while ((rc = cap_session_next(rr->rd, &rr->next, rr->err, sizeof(rr->err))) == 1) {
		rr->records++;
		rr->last_t = rr->next.t > rr->last_t ? rr->next.t : rr->last_t;
		if (rr->next.type == CAP_SES_TX) {
			rr->tx++; /* the re-run makes its own, compared at the end */
			continue;
		}
		if (rr->next.type == CAP_SES_RX) {
			return corrupt(rr, &rr->next);
		}
		return true;
	}
	rr->rc = rc < 0 ? rc : 0;
	return false;
}

/* The arrivals that follow the pass in the log, up to the next pass or the end (read ahead into rr->next). */
static bool read_arrivals(struct ctl_run_state *r)
{
	struct ctl_rerun *rr = r->rr;
	int rc;

	rr->n_arr = rr->cur = rr->used = 0;
	rr->has_next = false;
	while ((rc = cap_session_next(rr->rd, &rr->next, rr->err, sizeof(rr->err))) == 1) {
		const struct cap_session_rec *rec = &rr->next;

		rr->records++;
		rr->last_t = rec->t > rr->last_t ? rec->t : rr->last_t;
		if (rec->type == CAP_SES_TX) {
			rr->tx++;
			continue;
		}
		if (rec->type != CAP_SES_RX) {
			rr->has_next = true;
			return true;
		}
		if (rec->port >= r->n_exts || (rr->n_arr > 0 && rec->port < rr->arr[rr->n_arr - 1].port)) {
			return corrupt(rr, rec);
		}
		if (!grow(&rr->arr, &rr->cap_arr, rr->n_arr + 1, sizeof(*rr->arr)) ||
		    !grow(&rr->buf, &rr->size, rr->used + rec->len, 1)) {
			snprintf(rr->err, sizeof(rr->err), "out of memory for a pass's arrivals");
			rr->rc = -ENOMEM;
			return false;
		}
		rr->arr[rr->n_arr++] = (struct rr_arrival){ .port = rec->port, .len = rec->len, .off = rr->used };
		memcpy(rr->buf + rr->used, rec->data, rec->len);
		rr->used += rec->len;
	}
	rr->rc = rc < 0 ? rc : 0;
	return rc == 0; /* the log ends after this pass (a killed run): played, the next step ends */
}

/*
 * The engine's recorded clock: the next step of the log. A pass (its arrivals read ahead for the ports' step), or
 * the end record (the last step: the events up to it, the periodic rows), or nothing left.
 */
static enum run_step recorded(void *ctx, emu_ps_t *t, emu_ps_t *wall)
{
	struct ctl_run_state *r = ctx;
	struct ctl_rerun *rr = r->rr;

	if (rr->ended || rr->rc < 0 || (!rr->has_next && !read_step(r)))
		return RUN_STEP_END;
	rr->has_next = false;
	*t = rr->next.t;
	*wall = rr->next.x;
	if (rr->next.type == CAP_SES_END) { /* the events up to the end, as the loop's last passes ran them */
		rr->ended = true;
		rr->stop = rr->next.port;
		r->end = rr->next.t;
		return RUN_STEP_LAST;
	}
	rr->passes++;
	if (!read_arrivals(r) && rr->rc < 0)
		return RUN_STEP_END;
	return RUN_STEP_RUN;
}

/* The pass under way on port @p arg: its arrivals in order, then its ARP timers, as the real-time loop ran them. */
static void rerun_port_rx(void *arg)
{
	struct ctl_ext *x = arg;
	struct ctl_run_state *r = x->run;
	struct ctl_rerun *rr = r->rr;
	uint32_t port = (uint32_t)(x - r->exts);

	for (; rr->cur < rr->n_arr && rr->arr[rr->cur].port == port; rr->cur++) {
		const struct rr_arrival *a = &rr->arr[rr->cur];

		rr->rx++;
		if (x->stack != NULL)
			ctl_run_ext_rx(x, rr->buf + a->off, a->len);
		else
			ctl_run_ext_sw_rx(x, rr->buf + a->off, a->len);
	}
	if (x->stack != NULL)
		ctl_run_ext_tick(x);
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
	ctl_run_caps_epoch(r, rr->hdr.epoch_ns);
	for (uint32_t i = 0; i < r->n_exts; i++) /* as ctl_run_realtime() starts them, before the first pass */
		if (r->exts[i].stack != NULL)
			net_port_start(r->exts[i].stack, 0);
	for (uint32_t i = 0; i < r->n_exts; i++) /* the loop plays each pass's arrivals on its port */
		if (run_port_add(r->eng, &(struct run_port){ .lc = 0, .rx = rerun_port_rx, .arg = &r->exts[i] }) < 0)
			return -ENOMEM;
	struct run_hooks h = { .ctx = r, .recorded = recorded, .pass = rr_pass, .due = rr_due, .sample = rr_sample };
	enum run_end why;
	emu_ps_t end;

	if ((rc = run_go(r->eng, &h, &why, &end)) < 0)
		return rc;
	if (rr->rc < 0) {
		snprintf(err, errlen, "%s", rr->err);
		return rr->rc;
	}
	if (!rr->ended) { /* the events up to the last frame the log saw sent, so the re-run sends it too */
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
	free(r->rr->arr);
	free(r->rr->buf);
	free(r->rr);
	r->rr = NULL;
}
