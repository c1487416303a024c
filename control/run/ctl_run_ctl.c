/*
 * Control of a running real-time session (docs/realtime.md, Control): the /uetemu/ctl/... telemetry commands post
 * a message, pause and resume a host's sending or one message's, set a host's rate limit, stop the run. A handler runs on one of DPDK's telemetry threads
 * (one per client connection), so it never touches the models: it checks the command against the config (which
 * does not change while the run goes on), answers an error at once for a bad one (counted by reason), and queues a
 * good one in the engine's mailbox (runtime/run_mbox.h: a bounded ring whose producers take turns). The main
 * lcore drains it once a pass, after the pass's events up to its emulated time `now` (ctl_run_ctl_poll(), the
 * engine's after_rx hook), before the ports' next turn takes what arrived meanwhile, and applies each command at
 * `now`. Each applied command goes in the session log (CAP_SES_CTL, after the pass record, ahead of those
 * arrivals), where a re-run finds it at the same point of the same pass and applies it the same way
 * (ctl_run_rerun.c: at the first port's turn). What a command does to a host of another lcore (real time over
 * several) is done by that lcore: the main lcore applies the command (logs it, counts it, adds a posted message
 * to the run's) and forwards the host's part to that lcore's mailbox, which it drains at the same point of its
 * own pass (ctl_run_ctl_poll_lc()); the models of a host are only ever touched by their own lcore.
 */
#include "ctl_run_ctl_pvt.h"
#include "ctl_run_rec_pvt.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nic.h"
#include "emu_units.h"
#include "run_mbox.h"

#define CTL_RING_BYTES (64u * 1024u) /* about 1,600 commands queued between two passes */
#define CTL_LOG_MAX 256u /* commands applied that summary.json lists */

/* Why a command was refused, counted; the names are those /uetemu/ctl/status gives. */
#define CTL_REFUSED(X) \
	X(BAD_PARAMS, "bad_params") \
	X(UNKNOWN_HOST, "unknown_host") \
	X(HOST_CANNOT, "host_not_controllable") \
	X(BAD_SIZE, "bad_size") \
	X(TOO_MANY_MESSAGES, "too_many_messages") \
	X(RING_FULL, "ring_full") \
	X(STOPPING, "stopping") \
	X(BAD_RATE, "bad_rate") \
	X(UNKNOWN_MESSAGE, "unknown_message") \
	X(NOT_SENDING, "message_not_sending")
#define X(e, n) CTL_REF_##e,
enum { CTL_REFUSED(X) CTL_REF_COUNT };
#undef X
#define X(e, n) n,
static const char *const refused_names[] = { CTL_REFUSED(X) };
#undef X

struct ctl_run_ctl {
	struct run_mbox *box;        /* the commands queued; the producers (telemetry threads) take turns */
	struct run_mbox **lbox;      /* each lcore's (0: unused): the host parts the main lcore forwards */
	uint32_t n_lbox;             /* lbox's entries, 0 until made (published with a release store) */
	/* the producers' (their turn held) */
	uint64_t accepted;           /* commands queued, the next one's number */
	uint32_t posts_queued;       /* posts queued: at most CTL_RUN_CTL_MSGS */
	bool stop_queued;
	uint64_t refused[CTL_REF_COUNT];
	/* the main lcore's (read by telemetry with relaxed loads) */
	uint64_t applied, posted, paused, resumed, rated;
	uint64_t lost;               /* host parts a full lcore mailbox refused (never in practice: it drains each pass) */
	uint32_t n_msgs;             /* messages posted: msgs[0 .. n_msgs - 1] */
	struct ctl_message msgs[CTL_RUN_CTL_MSGS];
	struct ctl_run_ctl_cmd done[CTL_LOG_MAX]; /* the first commands applied, for summary.json */
	emu_ps_t done_at[CTL_LOG_MAX];
};

int ctl_run_ctl_create(struct ctl_run_state *r)
{
	struct ctl_run_ctl *c = calloc(1, sizeof(*c));

	if (c == NULL || (c->box = run_mbox_create(sizeof(struct ctl_run_ctl_cmd), CTL_RING_BYTES)) == NULL) {
		free(c);
		return -ENOMEM;
	}
	r->ctl = c;
	return 0;
}

void ctl_run_ctl_lcores(struct ctl_run_state *r)
{
	struct ctl_run_ctl *s = r->ctl;

	if (s == NULL || r->n_lcs < 2 || (s->lbox = calloc(r->n_lcs, sizeof(*s->lbox))) == NULL)
		return;
	for (uint32_t i = 1; i < r->n_lcs; i++)
		if ((s->lbox[i] = run_mbox_create(sizeof(struct ctl_run_ctl_cmd), CTL_RING_BYTES)) == NULL) {
			for (uint32_t k = 1; k < i; k++)
				run_mbox_destroy(s->lbox[k]);
			free(s->lbox);
			s->lbox = NULL;
			return;
		}
	__atomic_store_n(&s->n_lbox, r->n_lcs, __ATOMIC_RELEASE);
}

void ctl_run_ctl_free(struct ctl_run_state *r)
{
	if (r->ctl == NULL)
		return;
	for (uint32_t i = 1; i < r->ctl->n_lbox; i++)
		run_mbox_destroy(r->ctl->lbox[i]);
	free(r->ctl->lbox);
	run_mbox_destroy(r->ctl->box);
	free(r->ctl);
	r->ctl = NULL;
}

uint32_t ctl_run_ctl_msgs(const struct ctl_run_state *r)
{
	return r->ctl != NULL ? r->ctl->n_msgs : 0;
}

/* ---- applying (the main lcore) ---- */

static const char *kind_name(uint8_t k)
{
	static const char *const n[] = { "?", "post", "pause", "resume", "stop", "rate", "pause", "resume" };

	return k <= CTL_RUN_CTL_FRESUME ? n[k] : n[0];
}

/* The command's bytes in the log: version 1, kind, 2 reserved, host a, host b (or a message's number), 4 reserved,
 * bytes (a size, a rate; little-endian). */
static void encode(const struct ctl_run_ctl_cmd *c, uint8_t p[CTL_RUN_CTL_REC_LEN])
{
	memset(p, 0, CTL_RUN_CTL_REC_LEN);
	p[0] = CTL_RUN_CTL_REC_VERSION;
	p[1] = c->kind;
	cap_put_le(p + 4, c->a, 4);
	cap_put_le(p + 8, c->b, 4);
	cap_put_le(p + 16, c->bytes, 8);
}

int ctl_run_ctl_decode(const struct ctl_run_state *r, const uint8_t *p, uint32_t len, uint64_t seq,
		       struct ctl_run_ctl_cmd *c, char *err, size_t errlen)
{
	const uint32_t n = r->cfg->n_hosts;

	if (len < 2 || p[0] != CTL_RUN_CTL_REC_VERSION) {
		snprintf(err, errlen, "control command #%llu is of encoding version %u; this uetemu reads version %u: "
			 "re-run the session with the uetemu that recorded it", (unsigned long long)seq,
			 len ? p[0] : 0, CTL_RUN_CTL_REC_VERSION);
		return -EINVAL;
	}
	*c = (struct ctl_run_ctl_cmd){ .kind = p[1], .seq = seq };
	if (len != CTL_RUN_CTL_REC_LEN || c->kind < CTL_RUN_CTL_POST || c->kind > CTL_RUN_CTL_FRESUME) {
		snprintf(err, errlen, "control command #%llu: kind %u in %u bytes is not one this uetemu knows (a "
			 "corrupt log, or a newer uetemu's)", (unsigned long long)seq, c->kind, len);
		return -EINVAL;
	}
	c->a = (uint32_t)cap_get_le(p + 4, 4);
	c->b = (uint32_t)cap_get_le(p + 8, 4);
	c->bytes = cap_get_le(p + 16, 8);
	/* what the telemetry handlers checked before queueing it, checked again: a log is input too */
	bool ok = c->kind == CTL_RUN_CTL_STOP || (c->a < n && ctl_run_host_sends(r, c->a));

	if (ok && c->kind == CTL_RUN_CTL_POST)
		ok = c->b < n && c->b != c->a && c->bytes <= nic_msg_bytes_max(r->cfg->nic.rdma_data_mss);
	if (ok && (c->kind == CTL_RUN_CTL_FPAUSE || c->kind == CTL_RUN_CTL_FRESUME)) /* the config's, control's */
		ok = c->b < r->n_msgs - ctl_run_ctl_msgs(r) + CTL_RUN_CTL_MSGS;
	if (!ok) {
		snprintf(err, errlen, "control command #%llu (kind %u, hosts %u and %u of %u, %llu bytes) is not one "
			 "this session's config can apply (a corrupt log)", (unsigned long long)seq, c->kind, c->a, c->b,
			 n, (unsigned long long)c->bytes);
		return -EINVAL;
	}
	return 0;
}

/*
 * What command @p c does to its host, on the host's own lcore at @p now: post message c->msg (added to the run's
 * by the main lcore), hold or release the host's port or one of its messages, set its shaper.
 */
static void act(struct ctl_run_state *r, const struct ctl_run_ctl_cmd *c, emu_ps_t now)
{
	const struct port_nic *h = &r->hosts[c->a];

	switch (c->kind) {
	case CTL_RUN_CTL_POST:
		if (ctl_run_msg_sched(r, c->msg, now) < 0) {
			struct ctl_lcore *lc = ctl_run_dev_lc(r, c->a);

			__atomic_store_n(&lc->post_fail, lc->post_fail + 1, __ATOMIC_RELAXED);
		}
		break;
	case CTL_RUN_CTL_PAUSE:
	case CTL_RUN_CTL_RESUME:
		port_nic_hold(h, c->kind == CTL_RUN_CTL_PAUSE, now);
		break;
	case CTL_RUN_CTL_RATE:
		h->ops->rate_limit(h->dev, c->bytes, now);
		break;
	case CTL_RUN_CTL_FPAUSE:
	case CTL_RUN_CTL_FRESUME: {
		const struct ctl_msg *m = &r->msgs[c->b];

		/* the message's connection while it sends (a connection of its own: its id may be another's later) */
		if (m->posted && m->done == 0)
			h->ops->conn_hold(h->dev, m->pdc, c->kind == CTL_RUN_CTL_FPAUSE, now);
		break;
	}
	default:
		break;
	}
}

/* Lcore @p lc's part of @p c: done here on the main lcore's hosts, else forwarded to the host's lcore. */
static void act_on(struct ctl_run_state *r, const struct ctl_run_ctl_cmd *c, emu_ps_t now)
{
	struct ctl_run_ctl *s = r->ctl;
	uint32_t lc = r->dev_lc[c->a];

	if (lc == 0) {
		act(r, c, now);
		return;
	}
	run_mbox_lock(s->lbox[lc]);
	int rc = run_mbox_post(s->lbox[lc], c);

	run_mbox_unlock(s->lbox[lc]);
	if (rc < 0)
		__atomic_store_n(&s->lost, s->lost + 1, __ATOMIC_RELAXED);
}

void ctl_run_ctl_apply(struct ctl_run_state *r, const struct ctl_run_ctl_cmd *c, emu_ps_t now)
{
	struct ctl_run_ctl *s = r->ctl;
	uint8_t rec[CTL_RUN_CTL_REC_LEN];
	struct ctl_run_ctl_cmd f = *c;
	bool flow = c->kind == CTL_RUN_CTL_FPAUSE || c->kind == CTL_RUN_CTL_FRESUME;

	encode(c, rec);
	ctl_run_rec_ctl(r, rec, sizeof(rec), now, c->seq);
	switch (c->kind) {
	case CTL_RUN_CTL_POST:
		if (s->n_msgs < CTL_RUN_CTL_MSGS) {
			struct ctl_message *m = &s->msgs[s->n_msgs];

			*m = (struct ctl_message){ .src = c->a, .dst = c->b, .bytes = c->bytes, .start = now };
			if (r->dev_lc[c->a] == 0) {
				if (ctl_run_msg_post(r, m, now) < 0)
					break;
			} else {
				f.msg = ctl_run_msg_add(r, m);
				act_on(r, &f, now);
			}
			s->n_msgs++;
			__atomic_store_n(&s->posted, s->posted + 1, __ATOMIC_RELAXED);
		}
		break;
	case CTL_RUN_CTL_FPAUSE:
	case CTL_RUN_CTL_FRESUME:
		if (c->b >= r->n_msgs || r->msgs[c->b].m->src != c->a)
			break; /* a message that is not (yet) the host's: nothing held */
		/* fall through */
	case CTL_RUN_CTL_PAUSE:
	case CTL_RUN_CTL_RESUME:
		act_on(r, c, now);
		if (c->kind == CTL_RUN_CTL_PAUSE || c->kind == CTL_RUN_CTL_FPAUSE)
			__atomic_store_n(&s->paused, s->paused + 1, __ATOMIC_RELAXED);
		else
			__atomic_store_n(&s->resumed, s->resumed + 1, __ATOMIC_RELAXED);
		break;
	case CTL_RUN_CTL_RATE:
		act_on(r, c, now);
		__atomic_store_n(&s->rated, s->rated + 1, __ATOMIC_RELAXED);
		break;
	case CTL_RUN_CTL_STOP:
		if (!r->rerun) /* a re-run ends where the session did, at the log's end record */
			*r->opts->quit = CTL_RUN_HALT_CTL;
		break;
	}
	if (s->applied < CTL_LOG_MAX)
		s->done[s->applied] = *c, s->done_at[s->applied] = now;
	if (r->opts->progress) {
		char what[160] = "";
		const char *hn = c->kind != CTL_RUN_CTL_STOP ? r->cfg->hosts[c->a].name : "";

		if (c->kind == CTL_RUN_CTL_POST)
			snprintf(what, sizeof(what), " %s -> %s", hn, r->cfg->hosts[c->b].name);
		else if (flow)
			snprintf(what, sizeof(what), " %s message %u", hn, c->b);
		else if (c->kind == CTL_RUN_CTL_RATE && c->bytes == 0)
			snprintf(what, sizeof(what), " %s off", hn);
		else if (c->kind == CTL_RUN_CTL_RATE)
			snprintf(what, sizeof(what), " %s %llu bit/s", hn, (unsigned long long)c->bytes);
		else if (c->kind != CTL_RUN_CTL_STOP)
			snprintf(what, sizeof(what), " %s", hn);
		fprintf(stderr, "[uetemu] control: #%llu %s%s at %.6f ms\n", (unsigned long long)c->seq,
			kind_name(c->kind), what, (double)now / 1e9);
	}
	__atomic_store_n(&s->applied, s->applied + 1, __ATOMIC_RELAXED);
}

void ctl_run_ctl_json(FILE *f, const struct ctl_run_state *r)
{
	const struct ctl_run_ctl *s = r->ctl;
	uint64_t refused = 0;

	if (s == NULL)
		return;
	for (int i = 0; i < CTL_REF_COUNT; i++)
		refused += s->refused[i];
	if (s->applied == 0 && refused == 0)
		return;
	fprintf(f, "  \"control\": {\"applied\": %llu, \"posted\": %llu, \"paused\": %llu, \"resumed\": %llu, "
		   "\"rated\": %llu, \"refused\": %llu, \"refused_by_reason\": {", (unsigned long long)s->applied,
		(unsigned long long)s->posted, (unsigned long long)s->paused, (unsigned long long)s->resumed,
		(unsigned long long)s->rated, (unsigned long long)refused);
	for (int i = 0; i < CTL_REF_COUNT; i++)
		fprintf(f, "%s\"%s\": %llu", i ? ", " : "", refused_names[i], (unsigned long long)s->refused[i]);
	fputs("}, \"commands\": [", f);
	for (uint64_t i = 0; i < s->applied && i < CTL_LOG_MAX; i++) {
		const struct ctl_run_ctl_cmd *c = &s->done[i];

		fprintf(f, "%s\n    {\"command\": %llu, \"kind\": \"%s\", \"at_us\": %.6f", i ? "," : "",
			(unsigned long long)c->seq, kind_name(c->kind), (double)s->done_at[i] / 1e6);
		if (c->kind != CTL_RUN_CTL_STOP)
			fprintf(f, ", \"host\": \"%s\"", r->cfg->hosts[c->a].name);
		if (c->kind == CTL_RUN_CTL_POST)
			fprintf(f, ", \"dst\": \"%s\", \"bytes\": %llu", r->cfg->hosts[c->b].name,
				(unsigned long long)c->bytes);
		if (c->kind == CTL_RUN_CTL_FPAUSE || c->kind == CTL_RUN_CTL_FRESUME)
			fprintf(f, ", \"message\": %u", c->b);
		if (c->kind == CTL_RUN_CTL_RATE)
			fprintf(f, ", \"rate_bps\": %llu", (unsigned long long)c->bytes);
		fputc('}', f);
	}
	fprintf(f, "%s]},\n", s->applied > CTL_LOG_MAX ? ",\n    {\"more\": true}" : "");
}

void ctl_run_ctl_poll(struct ctl_run_state *r)
{
	struct ctl_run_ctl *s = r->ctl;
	struct ctl_run_ctl_cmd c;

	if (s == NULL)
		return;
	while (run_mbox_take(s->box, &c))
		ctl_run_ctl_apply(r, &c, ctl_run_lc(r, 0)->rt_now);
}

void ctl_run_ctl_poll_lc(struct ctl_run_state *r, uint32_t lc)
{
	struct ctl_run_ctl *s = r->ctl;
	struct ctl_run_ctl_cmd c;

	if (s == NULL || lc >= __atomic_load_n(&s->n_lbox, __ATOMIC_ACQUIRE))
		return;
	while (run_mbox_take(s->lbox[lc], &c))
		act(r, &c, ctl_run_lc(r, lc)->rt_now);
}

/* ---- the telemetry commands (DPDK's telemetry threads) ---- */

/* Refuse: the answer's "error" and "reason", the reason counted. */
static int refuse(struct ctl_run_ctl *s, int why, struct dp_tel *o, const char *fmt, const char *arg)
{
	char msg[256];

	run_mbox_lock(s->box);
	s->refused[why]++;
	run_mbox_unlock(s->box);
	snprintf(msg, sizeof(msg), fmt, arg);
	dp_tel_str(o, "error", msg);
	dp_tel_str(o, "reason", refused_names[why]);
	return 0;
}

/* Host @p name's index, or -1. */
static long host_of(const struct ctl_run_state *r, const char *name)
{
	for (uint32_t h = 0; h < r->cfg->n_hosts; h++)
		if (strcmp(r->cfg->hosts[h].name, name) == 0)
			return h;
	return -1;
}

/*
 * Host @p name for a command: known, run by this process, on an lcore that takes commands (the main one, or one
 * with a mailbox) when @p here, and able to send when @p sends. Its index, or -1 with the refusal answered.
 */
static long host_arg(struct ctl_run_state *r, const char *name, bool here, bool sends, struct dp_tel *o)
{
	long h = host_of(r, name);

	if (h < 0)
		return refuse(r->ctl, CTL_REF_UNKNOWN_HOST, o, "no host '%s' in the config (/uetemu/hosts lists them)",
			      name), -1;
	if (r->dev_lc[h] == CTL_LC_REMOTE)
		return refuse(r->ctl, CTL_REF_HOST_CANNOT, o, "host '%s' runs in another process (--partition): "
			      "control it there", name), -1;
	if (here && r->dev_lc[h] != 0 && r->dev_lc[h] >= __atomic_load_n(&r->ctl->n_lbox, __ATOMIC_ACQUIRE))
		return refuse(r->ctl, CTL_REF_HOST_CANNOT, o, "host '%s' runs on an lcore whose control mailbox "
			      "could not be made (out of memory)", name), -1;
	if (sends && !ctl_run_host_sends(r, (uint32_t)h))
		return refuse(r->ctl, CTL_REF_HOST_CANNOT, o, "host '%s' cannot send in this run (external, or "
			      "without a link or a port)", name), -1;
	return h;
}

/* Queue @p c (its number set), answering its number; a full ring or a stop queued already refuse it. */
static int queue(struct ctl_run_state *r, struct ctl_run_ctl_cmd *c, const char *what, struct dp_tel *o)
{
	struct ctl_run_ctl *s = r->ctl;
	int why = -1;

	run_mbox_lock(s->box);
	c->seq = s->accepted;
	if (s->stop_queued)
		why = CTL_REF_STOPPING;
	else if (c->kind == CTL_RUN_CTL_POST && s->posts_queued >= CTL_RUN_CTL_MSGS)
		why = CTL_REF_TOO_MANY_MESSAGES;
	else if (run_mbox_post(s->box, c) < 0)
		why = CTL_REF_RING_FULL;
	if (why < 0) {
		s->accepted++;
		s->posts_queued += c->kind == CTL_RUN_CTL_POST;
		s->stop_queued = c->kind == CTL_RUN_CTL_STOP;
	}
	run_mbox_unlock(s->box);
	if (why == CTL_REF_STOPPING)
		return refuse(s, why, o, "%s: the run is stopping", what);
	if (why == CTL_REF_TOO_MANY_MESSAGES)
		return refuse(s, why, o, "%s: control has posted as many messages as a run keeps room for (1024)", what);
	if (why == CTL_REF_RING_FULL)
		return refuse(s, why, o, "%s: the command queue is full (the run is not draining it?): try again", what);
	dp_tel_str(o, "queued", what);
	dp_tel_u64(o, "command", c->seq);
	return 0;
}

/* Split @p params at commas into at most @p max fields of @p buf; the count. */
static int fields(const char *params, char *buf, size_t len, char **f, int max)
{
	int n = 0;

	snprintf(buf, len, "%s", params);
	if (buf[0] == '\0')
		return 0;
	for (char *p = buf; n < max + 1 && p != NULL; n++) {
		char *comma = strchr(p, ',');

		if (n < max)
			f[n] = p;
		if (comma != NULL)
			*comma++ = '\0';
		p = comma;
	}
	return n;
}

static int tel_post(void *arg, const char *params, struct dp_tel *o)
{
	struct ctl_run_state *r = arg;
	char buf[512], *f[3], err[128];
	uint64_t bytes;
	long a, b;

	if (fields(params, buf, sizeof(buf), f, 3) != 3)
		return refuse(r->ctl, CTL_REF_BAD_PARAMS, o, "post takes SRC,DST,SIZE (host names and bytes: "
			      "/uetemu/ctl/post,host0,host1,64KiB), not '%s'", params);
	if ((a = host_arg(r, f[0], true, true, o)) < 0 || (b = host_arg(r, f[1], false, false, o)) < 0)
		return 0;
	if (a == b)
		return refuse(r->ctl, CTL_REF_BAD_PARAMS, o, "post: '%s' is both the sender and the receiver", f[0]);
	if (!ctl_run_host_sends(r, (uint32_t)b) && !ctl_run_host_on_port(r, (uint32_t)a))
		return refuse(r->ctl, CTL_REF_HOST_CANNOT, o, "post: host '%s' cannot be reached in this run", f[1]);
	if (emu_parse_size(f[2], &bytes, err, sizeof(err)) < 0)
		return refuse(r->ctl, CTL_REF_BAD_SIZE, o, "post: size '%s' is not a size (4096, 64KiB, 1MiB)", f[2]);
	if (bytes > nic_msg_bytes_max(r->cfg->nic.rdma_data_mss))
		return refuse(r->ctl, CTL_REF_BAD_SIZE, o, "post: %s is more than a message can carry (2^31 packets "
			      "of RdmaDataMSS)", f[2]);
	struct ctl_run_ctl_cmd c = { .kind = CTL_RUN_CTL_POST, .a = (uint32_t)a, .b = (uint32_t)b, .bytes = bytes };

	return queue(r, &c, "post", o);
}

/* Message @p arg of host @p h (its number as /uetemu/ctl/messages and summary.json's list give it), sending now:
 * its number, or -1 with the refusal answered. */
static long msg_arg(struct ctl_run_state *r, long h, const char *arg, struct dp_tel *o)
{
	uint32_t n = __atomic_load_n(&r->n_msgs, __ATOMIC_ACQUIRE);
	char *end;
	unsigned long long i = strtoull(arg, &end, 10);

	if (arg[0] < '0' || arg[0] > '9' || *end != '\0' || i >= n || r->msgs[i].m->src != (uint32_t)h)
		return refuse(r->ctl, CTL_REF_UNKNOWN_MESSAGE, o, "no message '%s' of this host (/uetemu/ctl/messages "
			      "lists them by number)", arg), -1;
	if (!DP_LOAD(r->msgs[i].posted) || DP_LOAD(r->msgs[i].done) != 0)
		return refuse(r->ctl, CTL_REF_NOT_SENDING, o, "message %s is not sending (not posted yet, or done)",
			      arg), -1;
	return (long)i;
}

static int tel_hold(struct ctl_run_state *r, const char *params, struct dp_tel *o, bool pause)
{
	char buf[512], *f[2];
	int nf = fields(params, buf, sizeof(buf), f, 2);
	long h, m = -1;

	if (nf != 1 && nf != 2)
		return refuse(r->ctl, CTL_REF_BAD_PARAMS, o, "pause and resume take a HOST and optionally one of its "
			      "messages (/uetemu/ctl/pause,host0 or /uetemu/ctl/pause,host0,3), not '%s'", params);
	if ((h = host_arg(r, f[0], true, true, o)) < 0 || (nf == 2 && (m = msg_arg(r, h, f[1], o)) < 0))
		return 0;
	struct ctl_run_ctl_cmd c = { .kind = pause ? CTL_RUN_CTL_PAUSE : CTL_RUN_CTL_RESUME, .a = (uint32_t)h };

	if (m >= 0) {
		c.kind = pause ? CTL_RUN_CTL_FPAUSE : CTL_RUN_CTL_FRESUME;
		c.b = (uint32_t)m;
	}
	return queue(r, &c, pause ? "pause" : "resume", o);
}

static int tel_rate(void *arg, const char *params, struct dp_tel *o)
{
	struct ctl_run_state *r = arg;
	char buf[512], *f[2], err[160];
	uint64_t bps;
	long h;

	if (fields(params, buf, sizeof(buf), f, 2) != 2)
		return refuse(r->ctl, CTL_REF_BAD_PARAMS, o, "rate takes HOST,RATE (/uetemu/ctl/rate,host0,10Gbps; "
			      "0 or off: no limit), not '%s'", params);
	if ((h = host_arg(r, f[0], true, true, o)) < 0)
		return 0;
	if (emu_parse_rate_limit(f[1], &bps, err, sizeof(err)) < 0)
		return refuse(r->ctl, CTL_REF_BAD_RATE, o, "rate: '%s' is not a rate (10Gbps, 400Mbps; 0 or off: no "
			      "limit)", f[1]);
	struct ctl_run_ctl_cmd c = { .kind = CTL_RUN_CTL_RATE, .a = (uint32_t)h, .bytes = bps };

	return queue(r, &c, "rate", o);
}

/* The run's messages (of HOST, when given) by number, as pause and resume name them: 40 at most, from FROM. */
static int tel_messages(void *arg, const char *params, struct dp_tel *o)
{
	struct ctl_run_state *r = arg;
	uint32_t n = __atomic_load_n(&r->n_msgs, __ATOMIC_ACQUIRE), shown = 0, from = 0;
	char buf[512], *f[2], key[16];
	int nf = fields(params, buf, sizeof(buf), f, 2);
	long h = -1;

	if (nf > 0 && strcmp(f[0], "all") != 0 && (h = host_of(r, f[0])) < 0)
		return refuse(r->ctl, CTL_REF_UNKNOWN_HOST, o, "no host '%s' in the config (/uetemu/hosts lists them)",
			      f[0]);
	if (nf == 2)
		from = (uint32_t)strtoul(f[1], NULL, 10);
	dp_tel_u64(o, "messages", n);
	for (uint32_t i = from; i < n && shown < 40; i++) {
		const struct ctl_msg *m = &r->msgs[i];
		struct dp_tel *e;

		if (h >= 0 && m->m->src != (uint32_t)h)
			continue;
		snprintf(key, sizeof(key), "%u", i);
		if ((e = dp_tel_obj(o, key)) == NULL)
			break;
		shown++;
		dp_tel_str(e, "src", r->cfg->hosts[m->m->src].name);
		dp_tel_str(e, "dst", r->cfg->hosts[m->m->dst].name);
		dp_tel_u64(e, "bytes", m->m->bytes);
		dp_tel_str(e, "state", DP_LOAD(m->done) != 0 ? "done" : DP_LOAD(m->posted) ? "sending" : "waiting");
		if (DP_LOAD(m->posted))
			dp_tel_u64(e, "conn", DP_LOAD(m->pdc));
	}
	return 0;
}

static int tel_pause(void *arg, const char *params, struct dp_tel *o)
{
	return tel_hold(arg, params, o, true);
}

static int tel_resume(void *arg, const char *params, struct dp_tel *o)
{
	return tel_hold(arg, params, o, false);
}

static int tel_stop(void *arg, const char *params, struct dp_tel *o)
{
	struct ctl_run_state *r = arg;
	struct ctl_run_ctl_cmd c = { .kind = CTL_RUN_CTL_STOP };

	if (params[0] != '\0')
		return refuse(r->ctl, CTL_REF_BAD_PARAMS, o, "stop takes no parameters, not '%s'", params);
	return queue(r, &c, "stop", o);
}

static int tel_status(void *arg, const char *params, struct dp_tel *o)
{
	struct ctl_run_state *r = arg;
	struct ctl_run_ctl *s = r->ctl;
	uint64_t refused[CTL_REF_COUNT], accepted, total = 0;
	struct dp_tel *k;

	(void)params;
	run_mbox_lock(s->box);
	memcpy(refused, s->refused, sizeof(refused));
	accepted = s->accepted;
	run_mbox_unlock(s->box);
	dp_tel_u64(o, "sim_time_ps", DP_LOAD(ctl_run_lc(r, 0)->rt_now));
	dp_tel_u64(o, "accepted", accepted);
	dp_tel_u64(o, "applied", DP_LOAD(s->applied));
	dp_tel_u64(o, "posted", DP_LOAD(s->posted));
	dp_tel_u64(o, "paused", DP_LOAD(s->paused));
	dp_tel_u64(o, "resumed", DP_LOAD(s->resumed));
	dp_tel_u64(o, "rated", DP_LOAD(s->rated));
	dp_tel_u64(o, "lost", DP_LOAD(s->lost));
	for (int i = 0; i < CTL_REF_COUNT; i++)
		total += refused[i];
	dp_tel_u64(o, "refused", total);
	if ((k = dp_tel_obj(o, "refused_by_reason")) != NULL)
		for (int i = 0; i < CTL_REF_COUNT; i++)
			dp_tel_u64(k, refused_names[i], refused[i]);
	return 0;
}

const struct dp_tel_cmd ctl_run_ctl_tel[] = {
	{ "/uetemu/ctl/post", "Post a message at the next pass. Params: SRC,DST,SIZE (host0,host1,64KiB)", tel_post },
	{ "/uetemu/ctl/pause", "Hold a host's sending, or one message's, from the next pass on. Params: HOST[,MSG]",
	  tel_pause },
	{ "/uetemu/ctl/resume", "Release a held host's sending, or one message's. Params: HOST[,MSG]", tel_resume },
	{ "/uetemu/ctl/rate", "Set a host's send rate limit (0 or off: none). Params: HOST,RATE (host0,10Gbps)",
	  tel_rate },
	{ "/uetemu/ctl/messages", "The run's messages by number (pause and resume's MSG). Params: [HOST|all[,FROM]]",
	  tel_messages },
	{ "/uetemu/ctl/stop", "Stop the run (outputs written, \"stop\": \"ctl\", the verdict's exit). No parameters",
	  tel_stop },
	{ "/uetemu/ctl/status", "Control commands accepted, applied, refused by reason. No parameters", tel_status },
};
const unsigned ctl_run_ctl_n_tel = sizeof(ctl_run_ctl_tel) / sizeof(ctl_run_ctl_tel[0]);
