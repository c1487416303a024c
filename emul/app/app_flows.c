/* The flow generators: Poisson flows from a size CDF, and constant-rate streams (app_flows.h). */
#include "app_flows.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned __int128 u128;

/* A probability "0.15", "1", "1.0", "0.000000001" into parts per billion; false when it is not one. */
static bool parse_prob(const char *s, const char **end, uint32_t *out)
{
	uint64_t whole = 0, frac = 0;
	int nd = 0, nf = 0;

	for (; *s >= '0' && *s <= '9'; s++, nd++)
		if ((whole = whole * 10 + (uint64_t)(*s - '0')) > 1)
			return false;
	if (*s == '.')
		for (s++; *s >= '0' && *s <= '9'; s++, nf++) {
			if (nf == 9) {
				if (*s != '0')
					return false; /* more precision than a part per billion */
				continue;
			}
			frac = frac * 10 + (uint64_t)(*s - '0');
		}
	if (nd + nf == 0)
		return false;
	for (int i = nf < 9 ? nf : 9; i < 9; i++)
		frac *= 10;
	if (whole * APP_PPB_ONE + frac > APP_PPB_ONE)
		return false;
	*out = (uint32_t)(whole * APP_PPB_ONE + frac);
	*end = s;
	return true;
}

int app_cdf_parse(const char *text, struct app_cdf *out, char *err, size_t errlen)
{
	unsigned line = 0;

	memset(out, 0, sizeof(*out));
	for (const char *p = text; *p != '\0';) {
		const char *eol = strchr(p, '\n');
		const char *next = eol != NULL ? eol + 1 : p + strlen(p);

		line++;
		while (*p == ' ' || *p == '\t' || *p == '\r')
			p++;
		if (p >= next || *p == '\n' || *p == '#' || *p == '\0') {
			p = next;
			continue;
		}
		char *e;
		errno = 0;
		if (*p < '0' || *p > '9') {
			snprintf(err, errlen, "line %u: expected \"SIZE PROB\" (bytes, then a probability 0 to 1)", line);
			return -EINVAL;
		}
		unsigned long long size = strtoull(p, &e, 10);
		const char *q = e;
		uint32_t cum;

		if (errno != 0 || (*q != ' ' && *q != '\t')) {
			snprintf(err, errlen, "line %u: bad size; a size is a whole number of bytes, then a probability",
				 line);
			return -EINVAL;
		}
		while (*q == ' ' || *q == '\t')
			q++;
		if (!parse_prob(q, &q, &cum)) {
			snprintf(err, errlen, "line %u: bad probability; one from 0 to 1 with at most 9 decimals, e.g. "
				 "0.15", line);
			return -EINVAL;
		}
		while (*q == ' ' || *q == '\t' || *q == '\r')
			q++;
		if (*q != '\n' && *q != '\0' && *q != '#') {
			snprintf(err, errlen, "line %u: more than two values; a line is \"SIZE PROB\"", line);
			return -EINVAL;
		}
		if (out->n == APP_CDF_MAX) {
			snprintf(err, errlen, "line %u: more than %u points", line, APP_CDF_MAX);
			return -EINVAL;
		}
		if (size > APP_CDF_SIZE_MAX) {
			snprintf(err, errlen, "line %u: size %llu B is above 2^40 B", line, size);
			return -EINVAL;
		}
		if (out->n > 0 && (size < out->size[out->n - 1] || cum < out->cum[out->n - 1])) {
			snprintf(err, errlen, "line %u: %s goes down; sizes and probabilities only grow", line,
				 size < out->size[out->n - 1] ? "the size" : "the probability");
			return -EINVAL;
		}
		out->size[out->n] = size;
		out->cum[out->n++] = cum;
		p = next;
	}
	if (out->n == 0) {
		snprintf(err, errlen, "no point; a CDF is lines of \"SIZE PROB\", the last with probability 1");
		return -EINVAL;
	}
	if (out->cum[out->n - 1] != APP_PPB_ONE || out->size[out->n - 1] == 0) {
		snprintf(err, errlen, "the last point %s; it is the largest size, with probability 1",
			 out->size[out->n - 1] == 0 ? "has size 0" : "has a probability below 1");
		return -EINVAL;
	}
	return 0;
}

uint64_t app_cdf_size(const struct app_cdf *c, uint32_t u)
{
	uint32_t i = 0;
	uint64_t s;

	while (i < c->n && c->cum[i] <= u)
		i++;
	if (i == 0)
		s = c->size[0];
	else if (i == c->n)
		s = c->size[c->n - 1];
	else {
		uint64_t dp = c->cum[i] - c->cum[i - 1];
		/* the quantile between the two points, rounded to the nearest byte */
		s = c->size[i - 1] + (uint64_t)(((u128)(c->size[i] - c->size[i - 1]) * (u - c->cum[i - 1]) * 2 + dp) /
						(2 * (u128)dp));
	}
	return s ? s : 1;
}

unsigned __int128 app_cdf_mean2e9(const struct app_cdf *c)
{
	u128 m = (u128)2 * (c->size[0] ? c->size[0] : 1) * c->cum[0];

	for (uint32_t i = 1; i < c->n; i++)
		m += (u128)(c->size[i - 1] + c->size[i]) * (c->cum[i] - c->cum[i - 1]);
	return m;
}

/* log2(@p v) in Q32, @p v 1 .. 2^31: the integer part from the top bit, the fraction bit by bit by squaring. */
static uint64_t log2_q32(uint64_t v)
{
	int k = 63 - __builtin_clzll(v);
	uint64_t m = v << (32 - k), frac = 0; /* m in [2^32, 2^33): v / 2^k in Q32 */

	for (int i = 1; i <= 32; i++) {
		m = (uint64_t)(((u128)m * m) >> 32);
		if (m >= (1ULL << 33)) {
			m >>= 1;
			frac |= 1ULL << (32 - i);
		}
	}
	return ((uint64_t)k << 32) | frac;
}

#define LN2_Q32 2977044472ULL /* ln 2 x 2^32, rounded */

uint64_t app_flows_neglog_q32(uint32_t u)
{
	uint64_t d = log2_q32(APP_PPB_ONE) - log2_q32(APP_PPB_ONE - (uint64_t)u);

	return (uint64_t)(((u128)d * LN2_Q32 + (1ULL << 31)) >> 32);
}

static const char *const pattern_names[APP_FLOWS_PATTERN_COUNT] = {
	[APP_FLOWS_UNIFORM] = "uniform", [APP_FLOWS_PERMUTATION] = "permutation",
	[APP_FLOWS_INCAST] = "incast", [APP_FLOWS_ALL_TO_ALL] = "all-to-all",
};

int app_flows_pattern_parse(const char *s, enum app_flows_pattern *out)
{
	for (int i = 0; i < APP_FLOWS_PATTERN_COUNT; i++)
		if (strcmp(s, pattern_names[i]) == 0) {
			*out = (enum app_flows_pattern)i;
			return 0;
		}
	return -EINVAL;
}

const char *app_flows_pattern_name(int p)
{
	return p >= 0 && p < APP_FLOWS_PATTERN_COUNT ? pattern_names[p] : "unknown";
}

/* The quantiles of one run of S draws: slot j of the run takes slice perm[j] of S. */
struct strata {
	uint32_t s, left;
	uint32_t *perm;
};

static uint32_t strata_draw(struct strata *st, struct emu_rng *rng)
{
	if (st->s == 1)
		return (uint32_t)emu_rng_below(rng, APP_PPB_ONE);
	if (st->left == 0) { /* a new run: the slices in a random order (Fisher-Yates) */
		for (uint32_t i = 0; i < st->s; i++)
			st->perm[i] = i;
		for (uint32_t i = st->s - 1; i > 0; i--) {
			uint32_t j = (uint32_t)emu_rng_below(rng, i + 1), t = st->perm[i];

			st->perm[i] = st->perm[j];
			st->perm[j] = t;
		}
		st->left = st->s;
	}
	uint32_t slice = st->perm[--st->left];

	return (uint32_t)(((uint64_t)slice * APP_PPB_ONE + emu_rng_below(rng, APP_PPB_ONE)) / st->s);
}

/* Append @p f to @p o (grown by doubling). 0, -EINVAL past APP_FLOWS_MAX, -ENOMEM. */
static int push(struct app_flows_out *o, uint64_t *cap, const struct app_flow *f, char *err, size_t errlen)
{
	if (o->n == APP_FLOWS_MAX) {
		snprintf(err, errlen, "more than %u flows; shorten the stop, lower the count or the load", APP_FLOWS_MAX);
		return -EINVAL;
	}
	if (o->n == *cap) {
		uint64_t nc = *cap ? 2 * *cap : 1024;
		struct app_flow *nf = realloc(o->flows, nc * sizeof(*nf));

		if (nf == NULL)
			return -ENOMEM;
		o->flows = nf;
		*cap = nc;
	}
	o->flows[o->n++] = *f;
	return 0;
}

static int by_start(const void *a, const void *b)
{
	const struct app_flow *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	if (x->dst != y->dst) /* a gap of 0 ps: two flows of one host at once */
		return x->dst < y->dst ? -1 : 1;
	return x->bytes < y->bytes ? -1 : x->bytes > y->bytes; /* equal: the same flow twice, either order */
}

static int by_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* A destination for @p src among the hosts other than it: in its rack (share rack_local) or not, at random. */
static uint32_t uniform_dst(const struct app_flows_in *in, uint32_t src, struct emu_rng *rng, uint32_t n_local)
{
	uint32_t n = in->n_hosts;

	if (in->rack == NULL || in->rack_local_ppm == 0) {
		uint32_t d = (uint32_t)emu_rng_below(rng, n - 1);
		return d >= src ? d + 1 : d;
	}
	bool local = emu_rng_below(rng, 1000000) < in->rack_local_ppm;
	uint32_t n_remote = n - 1 - n_local;

	if (n_local == 0)
		local = false;
	if (n_remote == 0)
		local = true;
	uint32_t k = (uint32_t)emu_rng_below(rng, local ? n_local : n_remote);

	for (uint32_t h = 0; h < n; h++) {
		if (h == src || (in->rack[h] == in->rack[src]) != local)
			continue;
		if (k-- == 0)
			return h;
	}
	return src == 0 ? 1 : 0; /* not reached */
}

/* One generation: its parameters, output and scratch. */
struct gen {
	const struct app_flows_in *in;
	struct app_flows_out *out;
	uint64_t cap;                /* flows out has room for */
	u128 gap_num, gap_den;       /* a gap is gap_num x -ln(1 - u) / gap_den, Q32 ps */
	u128 mean_gap;               /* ps */
	uint64_t s_max;              /* slices of a run of gap draws */
	uint32_t *dst_of;            /* permutation: each host's destination */
	uint8_t *sends;              /* each host sends */
	uint32_t *perm_g, *perm_s;   /* the gaps' and sizes' slice orders */
	uint64_t perm_s_cap;
	char *err;
	size_t errlen;
};

static bool params_ok(const struct app_flows_in *in)
{
	uint32_t n = in->n_hosts;

	return n >= 2 && in->bps != 0 && in->load_ppm != 0 && in->load_ppm <= 1000000 && in->cdf != NULL &&
	       in->strata <= APP_FLOWS_STRATA_MAX && (in->stop != 0 || in->count != 0) &&
	       (in->stop == 0 || in->stop > in->start) && in->pattern < APP_FLOWS_PATTERN_COUNT &&
	       (in->pattern != APP_FLOWS_INCAST || (in->receiver < n && in->senders != 0 && in->senders <= n - 1));
}

/* Who sends, and a permutation's destinations, from the pattern's own stream. */
static void pattern_setup(struct gen *g)
{
	const struct app_flows_in *in = g->in;
	uint32_t n = in->n_hosts;
	struct emu_rng rng;

	emu_rng_init(&rng, in->seed, APP_RNG_STREAM_FLOWS + in->stream + 0xffffffffULL);
	for (uint32_t h = 0; h < n; h++)
		g->sends[h] = in->pattern != APP_FLOWS_INCAST;
	if (in->pattern == APP_FLOWS_PERMUTATION) { /* Sattolo: one cycle through every host, so none sends to itself */
		for (uint32_t h = 0; h < n; h++)
			g->dst_of[h] = h;
		for (uint32_t i = n - 1; i > 0; i--) {
			uint32_t j = (uint32_t)emu_rng_below(&rng, i), t = g->dst_of[i];

			g->dst_of[i] = g->dst_of[j];
			g->dst_of[j] = t;
		}
	} else if (in->pattern == APP_FLOWS_INCAST) { /* senders of the other hosts, drawn at random */
		for (uint32_t k = 0; k < in->senders; k++) {
			uint32_t pick = (uint32_t)emu_rng_below(&rng, n - 1 - k);

			for (uint32_t h = 0; h < n; h++)
				if (h != in->receiver && !g->sends[h] && pick-- == 0) {
					g->sends[h] = 1;
					break;
				}
		}
	}
}

/*
 * strata 0 with a time stop: the Poisson process given its count, the count its mean (rounded up with the
 * fraction's probability), the arrivals uniform in the window, into *@p at (sorted, *@p n of them). *@p at stays
 * NULL, and *@p given false, when the arrivals come by their gaps instead (another strata, or the count stops
 * first). 0, -EINVAL, -ENOMEM.
 */
static int arrivals_given_count(struct gen *g, struct emu_rng *rng, emu_ps_t **at, uint64_t *n, bool *given)
{
	const struct app_flows_in *in = g->in;
	u128 w = in->stop - in->start;

	*at = NULL;
	*n = 0;
	*given = false;
	if (in->strata != 0 || in->stop == 0 || g->mean_gap == 0)
		return 0;
	uint64_t c = (uint64_t)(w / g->mean_gap) +
		     (emu_rng_below(rng, UINT64_MAX) < (uint64_t)((w % g->mean_gap) * UINT64_MAX / g->mean_gap));

	if (in->count != 0 && c > in->count)
		return 0; /* the count stops it first: arrivals by their gaps */
	if (c > APP_FLOWS_MAX) {
		snprintf(g->err, g->errlen, "more than %u flows; shorten the stop or lower the load", APP_FLOWS_MAX);
		return -EINVAL;
	}
	*n = c;
	*given = true;
	if (c == 0)
		return 0;
	if ((*at = malloc(c * sizeof(**at))) == NULL)
		return -ENOMEM;
	for (uint64_t i = 0; i < c; i++)
		(*at)[i] = in->start + emu_rng_below(rng, in->stop - in->start);
	qsort(*at, c, sizeof(**at), by_u64);
	return 0;
}

/* The destination of host @p h's flow number @p k. */
static uint32_t next_dst(const struct gen *g, uint32_t h, uint64_t k, struct emu_rng *rng, uint32_t n_local)
{
	const struct app_flows_in *in = g->in;

	if (in->pattern == APP_FLOWS_UNIFORM)
		return uniform_dst(in, h, rng, n_local);
	if (in->pattern == APP_FLOWS_PERMUTATION)
		return g->dst_of[h];
	if (in->pattern == APP_FLOWS_INCAST)
		return in->receiver;
	return (uint32_t)((h + 1 + k % (in->n_hosts - 1)) % in->n_hosts);
}

/* The sizes of out->flows[first ..], host @p h's @p k flows: strata 0 takes one slice of the CDF per flow. */
static int host_sizes(struct gen *g, uint32_t h, uint64_t first, uint64_t k)
{
	struct strata ss = { .s = (uint32_t)g->s_max, .perm = g->perm_s };
	struct emu_rng rng;

	if (g->in->strata == 0 && k > g->perm_s_cap) {
		uint32_t *np = realloc(g->perm_s, k * sizeof(*np));

		if (np == NULL)
			return -ENOMEM;
		g->perm_s = ss.perm = np;
		g->perm_s_cap = k;
	}
	if (g->in->strata == 0)
		ss.s = k ? (uint32_t)k : 1;
	emu_rng_init(&rng, g->in->seed, APP_RNG_STREAM_FLOWS + g->in->stream + h + 0x80000000ULL);
	for (uint64_t i = first; i < g->out->n; i++) {
		g->out->flows[i].bytes = app_cdf_size(g->in->cdf, strata_draw(&ss, &rng));
		g->out->bytes += g->out->flows[i].bytes;
	}
	return 0;
}

/* Host @p h's flows and its window. */
static int host_flows(struct gen *g, uint32_t h)
{
	const struct app_flows_in *in = g->in;
	struct strata sg = { .s = (uint32_t)g->s_max, .perm = g->perm_g };
	uint64_t first = g->out->n, k = 0, n_cond;
	uint32_t n_local = 0;
	emu_ps_t t = in->start, *at;
	struct emu_rng rng;
	int rc;

	for (uint32_t x = 0; in->rack != NULL && x < in->n_hosts; x++)
		n_local += x != h && in->rack[x] == in->rack[h];
	emu_rng_init(&rng, in->seed, APP_RNG_STREAM_FLOWS + in->stream + h);
	g->out->senders++;
	bool given;

	if ((rc = arrivals_given_count(g, &rng, &at, &n_cond, &given)) < 0)
		return rc;

	for (;;) {
		emu_ps_t next;

		if (given) {
			next = k < n_cond ? at[k] : in->stop;
		} else { /* the gap to this arrival (the first too: the process runs from start) */
			u128 gp = g->gap_num * app_flows_neglog_q32(strata_draw(&sg, &rng)) / g->gap_den;
			next = (gp >> 32) >= (u128)(EMU_PS_MAX - t) ? EMU_PS_MAX : t + (emu_ps_t)(gp >> 32);
		}
		if ((in->stop != 0 && next >= in->stop) || (in->count != 0 && k == in->count)) {
			/* a count stop ends the window at the last flow's arrival */
			g->out->window_ps += (in->stop != 0 && next >= in->stop ? in->stop : t) - in->start;
			break;
		}
		t = next;
		struct app_flow f = { .src = h, .start = t, .dst = next_dst(g, h, k, &rng, n_local) };

		if ((rc = push(g->out, &g->cap, &f, g->err, g->errlen)) < 0)
			break;
		k++;
	}
	free(at);
	return rc < 0 ? rc : host_sizes(g, h, first, k);
}

int app_flows_gen(const struct app_flows_in *in, struct app_flows_out *out, char *err, size_t errlen)
{
	struct gen g = { .in = in, .out = out, .err = err, .errlen = errlen };
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if (!params_ok(in)) {
		snprintf(err, errlen, "bad flows parameters: 2 or more hosts, a link rate, a load above 0 and at most 1, "
			 "a stop after the start or a count, strata 0 to %u, an incast's receiver and 1 to hosts - 1 "
			 "senders", APP_FLOWS_STRATA_MAX);
		return -EINVAL;
	}
	/* mean gap, ps: E[size] x 8 / (load x bps) = (mean2e9 / 2e9) x 8e12 x 1e6 / (bps x load_ppm) */
	g.gap_num = app_cdf_mean2e9(in->cdf) * 4000000000ULL;
	g.gap_den = (u128)in->bps * in->load_ppm;
	g.mean_gap = g.gap_num / g.gap_den;
	/* strata 0: the gaps (with a count stop first) are one run of as many slices as the flows expected */
	uint64_t expect = in->count;

	if (in->stop != 0 && g.mean_gap > 0 &&
	    (u128)(in->stop - in->start) / g.mean_gap < (u128)(expect ? expect : UINT64_MAX))
		expect = (uint64_t)(((u128)(in->stop - in->start) + g.mean_gap - 1) / g.mean_gap);
	if (in->stop != 0 && g.mean_gap == 0)
		expect = APP_FLOWS_MAX;
	uint32_t n_send = in->pattern == APP_FLOWS_INCAST ? in->senders : in->n_hosts;

	if ((u128)expect * n_send > APP_FLOWS_MAX + (u128)APP_FLOWS_MAX / 8) { /* far more than the cap: say so now */
		snprintf(err, errlen, "about %llu flows expected, more than %u; shorten the stop, lower the count or the "
			 "load", (unsigned long long)((u128)expect * n_send > UINT64_MAX ? UINT64_MAX : expect * n_send),
			 APP_FLOWS_MAX);
		return -EINVAL;
	}
	g.s_max = in->strata ? in->strata : expect < APP_FLOWS_MAX ? (expect ? expect : 1) : APP_FLOWS_MAX;
	g.perm_s_cap = g.s_max;
	g.dst_of = calloc(in->n_hosts, sizeof(*g.dst_of));
	g.sends = calloc(in->n_hosts, 1);
	g.perm_g = calloc(g.s_max, sizeof(uint32_t));
	g.perm_s = calloc(g.s_max, sizeof(uint32_t));
	if (g.dst_of == NULL || g.sends == NULL || g.perm_g == NULL || g.perm_s == NULL)
		rc = -ENOMEM;
	if (rc == 0)
		pattern_setup(&g);
	for (uint32_t h = 0; rc == 0 && h < in->n_hosts; h++)
		if (g.sends[h])
			rc = host_flows(&g, h);
	if (rc == 0 && out->n > 1)
		qsort(out->flows, out->n, sizeof(*out->flows), by_start);
	if (rc == 0 && out->window_ps > 0)
		out->offered_ppm = (uint32_t)(((u128)out->bytes * 8 * EMU_PS_PER_S * 1000000 +
					       (u128)in->bps * out->window_ps / 2) / ((u128)in->bps * out->window_ps));
	free(g.dst_of);
	free(g.sends);
	free(g.perm_g);
	free(g.perm_s);
	if (rc < 0) {
		free(out->flows);
		memset(out, 0, sizeof(*out));
		if (rc == -ENOMEM)
			snprintf(err, errlen, "out of memory for the flows");
	}
	return rc;
}

int app_stream_gen(const struct app_stream_in *in, struct app_flows_out *out, char *err, size_t errlen)
{
	uint64_t cap = 0;
	int rc = 0;
	/* interval x 10^... : message k of a period starts num x k / den ps after the period's start */
	u128 num = in->bps ? (u128)in->size * 8 * EMU_PS_PER_S : EMU_PS_PER_S, den = in->bps ? in->bps : in->pps;
	emu_ps_t period = in->on + in->off;

	memset(out, 0, sizeof(*out));
	if (den == 0 || in->size == 0 || in->stop <= in->start || in->src == in->dst || (in->on == 0) != (in->off == 0)) {
		snprintf(err, errlen, "bad stream parameters: a rate (bit/s) or pps, a size of 1 B or more, a stop after "
			 "the start, two different hosts, on and off both or neither");
		return -EINVAL;
	}
	out->senders = 1;
	out->window_ps = in->stop - in->start;
	for (emu_ps_t t0 = in->start; rc == 0 && t0 < in->stop; t0 = period ? t0 + period : in->stop) {
		emu_ps_t end = period && t0 + in->on < in->stop ? t0 + in->on : in->stop;

		for (uint64_t k = 0;; k++) {
			u128 dt = num * k / den;

			if (dt >= end - t0)
				break;
			struct app_flow f = { .src = in->src, .dst = in->dst, .bytes = in->size,
					      .start = t0 + (emu_ps_t)dt };
			if ((rc = push(out, &cap, &f, err, errlen)) < 0)
				break;
			out->bytes += f.bytes;
		}
	}
	if (rc < 0) {
		free(out->flows);
		memset(out, 0, sizeof(*out));
		if (rc == -ENOMEM)
			snprintf(err, errlen, "out of memory for the stream");
	}
	return rc;
}
