/* Chakra replay (the execution page's Dependencies, Compute, Communication and How a run ends): one dependency
 * graph per rank; a node starts when its last dependency finishes; NPU compute shares the rank's NPU (processor
 * sharing) unless the trace family is collected; sends go to the transport as one WRITE each. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "app_chakra.h"

enum { ST_IDLE, ST_RUNNING, ST_DONE };

/* One NPU compute node in progress: it finishes when the NPU's progress clock reaches vend. The jobs of a rank
 * are a binary min-heap on (vend, seq), seq the order they started in: the earliest is found in O(1) and each
 * start or finish costs O(log n), however many compute nodes share the NPU. */
struct npu_job {
	uint32_t ix;
	uint64_t seq;
	emu_ps_t vend;
};

struct ck_rank {
	const struct app_ck_trace *t;
	uint32_t *indeg, *dstart, *dadj; /* remaining dependencies; dependents in CSR form */
	uint8_t *state, *arrived; /* arrived: a receive's transfer came; a send's was acknowledged */
	emu_ps_t *ts, *te;
	uint64_t unacked;     /* sends posted, not yet acknowledged */
	uint64_t peer_unacked; /* transfers received whose sender has not yet had the acknowledgment */
	/* The NPU: progress clock v advances at 1/n ps per ps with n jobs running; vrem carries the remainder. */
	struct npu_job *jobs; /* the heap */
	uint32_t n_jobs;
	uint64_t job_seq;
	emu_ps_t v, vrem, vlast;
	emu_timer_t npu_timer;
	struct app_ck_rank_stats st;
};

struct app_ck_run {
	const struct app_ck_set *set;
	struct emu_sched *s;
	int collected;
	struct app_ck_xport xp;
	struct app_ck_run_cb cb;
	struct ck_rank *ranks;
	uint64_t *stack; /* ready nodes (rank << 32 | index) to start */
	size_t n_stack, cap_stack;
	uint32_t ended;
	uint64_t post_errors;
};

#define KEY(r, i) ((uint64_t)(r) << 32 | (uint32_t)(i))

static int rank_init(struct ck_rank *k, const struct app_ck_trace *t)
{
	uint32_t n = t->n, total = 0;

	k->t = t;
	for (uint32_t i = 0; i < n; i++)
		total += t->nodes[i].n_deps;
	k->indeg = calloc(n + 1, sizeof(*k->indeg));
	k->dstart = calloc(n + 2, sizeof(*k->dstart));
	k->dadj = malloc((total + 1) * sizeof(*k->dadj));
	k->state = calloc(n + 1, 1);
	k->arrived = calloc(n + 1, 1);
	k->ts = calloc(n + 1, sizeof(*k->ts));
	k->te = calloc(n + 1, sizeof(*k->te));
	k->jobs = malloc((n + 1) * sizeof(*k->jobs));
	if (!k->indeg || !k->dstart || !k->dadj || !k->state || !k->arrived || !k->ts || !k->te || !k->jobs)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		k->indeg[i] = t->nodes[i].n_deps;
		for (uint32_t d = 0; d < t->nodes[i].n_deps; d++)
			k->dstart[t->nodes[i].deps[d] + 1]++;
	}
	for (uint32_t i = 0; i < n; i++)
		k->dstart[i + 1] += k->dstart[i];
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t d = 0; d < t->nodes[i].n_deps; d++)
			k->dadj[k->dstart[t->nodes[i].deps[d]]++] = i;
	for (uint32_t i = n; i > 0; i--)
		k->dstart[i] = k->dstart[i - 1];
	k->dstart[0] = 0;
	k->st.nodes_total = n;
	return 0;
}

static void rank_fini(struct ck_rank *k)
{
	free(k->indeg), free(k->dstart), free(k->dadj), free(k->state), free(k->arrived);
	free(k->ts), free(k->te), free(k->jobs);
}

struct app_ck_run *app_ck_run_create(const struct app_ck_set *set, struct emu_sched *s, int collected,
				     const struct app_ck_xport *xp, const struct app_ck_run_cb *cb)
{
	struct app_ck_run *r = calloc(1, sizeof(*r));

	if (!r)
		goto nomem;
	r->set = set, r->s = s, r->collected = collected;
	if (xp)
		r->xp = *xp;
	if (cb)
		r->cb = *cb;
	r->ranks = calloc(set->n_ranks + 1, sizeof(*r->ranks));
	if (!r->ranks)
		goto nomem;
	for (uint32_t i = 0; i < set->n_ranks; i++)
		if (rank_init(&r->ranks[i], &set->ranks[i]))
			goto nomem;
	return r;
nomem:
	app_ck_run_destroy(r);
	errno = ENOMEM;
	return NULL;
}

void app_ck_run_destroy(struct app_ck_run *r)
{
	if (!r)
		return;
	for (uint32_t i = 0; r->ranks && i < r->set->n_ranks; i++)
		rank_fini(&r->ranks[i]);
	free(r->ranks);
	free(r->stack);
	free(r);
}

static void push_ready(struct app_ck_run *r, uint32_t rank, uint32_t ix)
{
	if (r->n_stack == r->cap_stack) {
		size_t cap = r->cap_stack ? r->cap_stack * 2 : 256;
		uint64_t *v = realloc(r->stack, cap * sizeof(*v));

		if (!v) { /* cannot happen in practice; the node would never start: count it as a post error */
			r->post_errors++;
			return;
		}
		r->stack = v, r->cap_stack = cap;
	}
	r->stack[r->n_stack++] = KEY(rank, ix);
}

static void check_end(struct app_ck_run *r, uint32_t rank, emu_ps_t now)
{
	struct ck_rank *k = &r->ranks[rank];

	if (k->st.ended || k->st.nodes_done < k->st.nodes_total || k->unacked || k->peer_unacked)
		return;
	k->st.ended = 1;
	k->st.end = now;
	r->ended++;
	if (r->cb.rank_ended)
		r->cb.rank_ended(r->cb.ctx, rank, &k->st);
}

/* Node @p ix of @p rank has finished: count it and release its dependents. */
static void finish(struct app_ck_run *r, uint32_t rank, uint32_t ix, emu_ps_t now)
{
	struct ck_rank *k = &r->ranks[rank];
	const struct app_ck_node *n = &k->t->nodes[ix];

	k->state[ix] = ST_DONE;
	if (n->kind != APP_CK_SEND)
		k->te[ix] = now; /* a send's e is its acknowledgment */
	k->st.nodes_done++;
	if (n->kind == APP_CK_COMP) {
		k->st.comps_completed++;
		k->st.comp_time_us += n->dur_us;
	} else if (n->kind == APP_CK_SEND && !n->sync) {
		k->st.sends_completed++;
		k->st.bytes_sent += n->bytes;
	} else if (n->kind == APP_CK_RECV && !n->sync) {
		k->st.receives_completed++;
		k->st.bytes_received += n->bytes;
	}
	for (uint32_t e = k->dstart[ix]; e < k->dstart[ix + 1]; e++)
		if (--k->indeg[k->dadj[e]] == 0)
			push_ready(r, rank, k->dadj[e]);
	check_end(r, rank, now);
}

static void npu_update(struct ck_rank *k, emu_ps_t now)
{
	if (k->n_jobs) {
		emu_ps_t el = now - k->vlast + k->vrem;

		k->v += el / k->n_jobs;
		k->vrem = el % k->n_jobs;
	} else {
		k->vrem = 0;
	}
	k->vlast = now;
}

static int job_before(const struct npu_job *a, const struct npu_job *b)
{
	return a->vend != b->vend ? a->vend < b->vend : a->seq < b->seq;
}

static void heap_push(struct ck_rank *k, uint32_t ix, emu_ps_t vend)
{
	uint32_t i = k->n_jobs++;
	struct npu_job j = {ix, k->job_seq++, vend};

	while (i > 0 && job_before(&j, &k->jobs[(i - 1) / 2])) {
		k->jobs[i] = k->jobs[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	k->jobs[i] = j;
}

static void heap_pop(struct ck_rank *k)
{
	struct npu_job last = k->jobs[--k->n_jobs];
	uint32_t i = 0, n = k->n_jobs;

	for (;;) {
		uint32_t c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && job_before(&k->jobs[c + 1], &k->jobs[c]))
			c++;
		if (!job_before(&k->jobs[c], &last))
			break;
		k->jobs[i] = k->jobs[c];
		i = c;
	}
	if (n)
		k->jobs[i] = last;
}

static void npu_fire(void *a, void *b, emu_ps_t now);

static void npu_arm(struct app_ck_run *r, uint32_t rank, emu_ps_t now)
{
	struct ck_rank *k = &r->ranks[rank];
	emu_ps_t vmin = UINT64_MAX;

	if (k->npu_timer)
		emu_sched_cancel(r->s, k->npu_timer);
	k->npu_timer = 0;
	if (!k->n_jobs)
		return;
	vmin = k->jobs[0].vend;
	emu_ps_t wait = vmin > k->v ? (vmin - k->v) * k->n_jobs - k->vrem : 0;

	emu_sched_at(r->s, now + wait, npu_fire, r, (void *)(uintptr_t)rank, &k->npu_timer);
}

static void drain(struct app_ck_run *r, emu_ps_t now);

/* The NPU's earliest job(s) reached their work: finish them, re-arm for the rest. */
static void npu_fire(void *a, void *b, emu_ps_t now)
{
	struct app_ck_run *r = a;
	uint32_t rank = (uint32_t)(uintptr_t)b;
	struct ck_rank *k = &r->ranks[rank];

	k->npu_timer = 0;
	npu_update(k, now);
	while (k->n_jobs && k->jobs[0].vend <= k->v) {
		uint32_t ix = k->jobs[0].ix;

		heap_pop(k);
		finish(r, rank, ix, now);
	}
	npu_arm(r, rank, now);
	drain(r, now);
}

static void timed_fire(void *a, void *b, emu_ps_t now)
{
	uint64_t key = (uint64_t)(uintptr_t)b;

	finish(a, (uint32_t)(key >> 32), (uint32_t)key, now);
	drain(a, now);
}

static void start_comm(struct app_ck_run *r, uint32_t rank, uint32_t ix, emu_ps_t now)
{
	struct ck_rank *k = &r->ranks[rank];
	const struct app_ck_node *n = &k->t->nodes[ix];

	if (n->kind == APP_CK_RECV) {
		if (k->arrived[ix])
			finish(r, rank, ix, now);
		return;
	}
	k->unacked++;
	if (!r->xp.post || r->xp.post(r->xp.ctx, rank, (uint32_t)n->peer, n->bytes, KEY(rank, ix), now))
		r->post_errors++;
}

static void start(struct app_ck_run *r, uint32_t rank, uint32_t ix, emu_ps_t now)
{
	struct ck_rank *k = &r->ranks[rank];
	const struct app_ck_node *n = &k->t->nodes[ix];
	emu_ps_t dur = n->dur_us * EMU_PS_PER_US;

	k->state[ix] = ST_RUNNING;
	k->ts[ix] = now;
	switch (n->kind) {
	case APP_CK_SEND:
	case APP_CK_RECV:
		start_comm(r, rank, ix, now);
		return;
	case APP_CK_COMP:
		if (!r->collected && !n->is_cpu && dur) {
			npu_update(k, now);
			heap_push(k, ix, k->v + dur);
			npu_arm(r, rank, now);
			return;
		}
		/* CPU compute and collected traces run for their recorded duration */
		__attribute__((fallthrough));
	case APP_CK_MEM_LOAD:
	case APP_CK_MEM_STORE:
		if (dur) {
			emu_sched_at(r->s, now + dur, timed_fire, r, (void *)(uintptr_t)KEY(rank, ix), NULL);
			return;
		}
		break;
	default:
		break;
	}
	finish(r, rank, ix, now); /* metadata and the other kinds take no time */
}

static void drain(struct app_ck_run *r, emu_ps_t now)
{
	while (r->n_stack) {
		uint64_t key = r->stack[--r->n_stack];

		start(r, (uint32_t)(key >> 32), (uint32_t)key, now);
	}
}

void app_ck_run_start(struct app_ck_run *r, emu_ps_t t0)
{
	for (uint32_t rank = 0; rank < r->set->n_ranks; rank++) {
		struct ck_rank *k = &r->ranks[rank];
		int any = 0;

		k->vlast = t0;
		for (uint32_t i = 0; i < k->t->n; i++)
			if (!k->indeg[i])
				push_ready(r, rank, i), any = 1;
		if (!any) { /* nothing ready at the start: the rank ends at once */
			k->st.ended = 1, k->st.end = t0, r->ended++;
			if (r->cb.rank_ended)
				r->cb.rank_ended(r->cb.ctx, rank, &k->st);
		}
	}
	drain(r, t0);
}

static int xfer_ok(const struct app_ck_run *r, uint64_t xfer)
{
	uint32_t rank = (uint32_t)(xfer >> 32), ix = (uint32_t)xfer;

	return rank < r->set->n_ranks && ix < r->set->ranks[rank].n &&
	       r->set->ranks[rank].nodes[ix].kind == APP_CK_SEND;
}

void app_ck_sent(struct app_ck_run *r, uint64_t xfer, emu_ps_t now)
{
	uint32_t rank = (uint32_t)(xfer >> 32), ix = (uint32_t)xfer;

	if (!xfer_ok(r, xfer) || r->ranks[rank].state[ix] != ST_RUNNING)
		return;
	finish(r, rank, ix, now);
	drain(r, now);
}

/* arrived[] of a receive: 1 when its rank waits for the sender's acknowledgment, 2 when it does not */
static void deliver(struct app_ck_run *r, uint64_t xfer, emu_ps_t now, int wait_ack)
{
	if (!xfer_ok(r, xfer))
		return;
	const struct app_ck_node *s = &r->set->ranks[xfer >> 32].nodes[(uint32_t)xfer];
	uint32_t dst = (uint32_t)s->peer, ix = s->match;
	struct ck_rank *k = &r->ranks[dst];

	if (k->arrived[ix])
		return;
	k->arrived[ix] = wait_ack ? 1 : 2;
	if (wait_ack && !r->ranks[xfer >> 32].arrived[(uint32_t)xfer])
		k->peer_unacked++; /* wait for the sender's acknowledgment too */
	if (k->state[ix] == ST_RUNNING) {
		finish(r, dst, ix, now);
		drain(r, now);
	}
}

void app_ck_delivered(struct app_ck_run *r, uint64_t xfer, emu_ps_t now)
{
	deliver(r, xfer, now, 1);
}

void app_ck_delivered_noack(struct app_ck_run *r, uint64_t xfer, emu_ps_t now)
{
	deliver(r, xfer, now, 0);
}

void app_ck_acked(struct app_ck_run *r, uint64_t xfer, emu_ps_t now)
{
	uint32_t rank = (uint32_t)(xfer >> 32), ix = (uint32_t)xfer;

	if (!xfer_ok(r, xfer) || r->ranks[rank].arrived[ix])
		return;
	struct ck_rank *k = &r->ranks[rank];
	const struct app_ck_node *n = &k->t->nodes[ix];
	struct app_ck_xfer_done d = {.src = rank, .dst = (uint32_t)n->peer, .bytes = n->bytes, .tag = n->tag,
				     .coll_id = n->coll_id, .sync = n->sync, .start = k->ts[ix], .acked = now};

	k->te[ix] = now;
	k->arrived[ix] = 1;
	k->unacked--;
	if (!n->sync)
		k->st.sends_acked++;
	if (r->ranks[d.dst].arrived[n->match] == 1 && r->ranks[d.dst].peer_unacked)
		r->ranks[d.dst].peer_unacked--;
	if (r->cb.xfer_acked)
		r->cb.xfer_acked(r->cb.ctx, &d);
	check_end(r, rank, now);
	check_end(r, d.dst, now);
}

uint32_t app_ck_run_ended(const struct app_ck_run *r)
{
	return r->ended;
}

const struct app_ck_rank_stats *app_ck_run_rank(const struct app_ck_run *r, uint32_t rank)
{
	return rank < r->set->n_ranks ? &r->ranks[rank].st : NULL;
}

void app_ck_run_node_times(const struct app_ck_run *r, uint32_t rank, uint32_t idx, emu_ps_t *s, emu_ps_t *e)
{
	const struct ck_rank *k = &r->ranks[rank];

	*s = k->state[idx] != ST_IDLE ? k->ts[idx] : 0;
	*e = k->te[idx];
}

int app_ck_run_node_running(const struct app_ck_run *r, uint32_t rank, uint32_t idx)
{
	const struct ck_rank *k = &r->ranks[rank];

	if (k->t->nodes[idx].kind == APP_CK_SEND)
		return k->state[idx] != ST_IDLE && !k->arrived[idx];
	return k->state[idx] == ST_RUNNING;
}

uint64_t app_ck_run_post_errors(const struct app_ck_run *r)
{
	return r->post_errors;
}
