/* Placement and pairing of the Scala RDMA application: host counts, host choice, the three pairing rules. */
#include "app_place.h"

#include <errno.h>
#include <stdbool.h>

#include "emu_param.h"

uint32_t app_ratio_ppb(double r)
{
	if (!(r > 0.0)) /* also NaN */
		return 0;
	if (r >= 1.0)
		return APP_RATIO_ONE;
	return (uint32_t)(r * APP_RATIO_ONE + 0.5);
}

static const char *comp_name(const char *const *names, unsigned i, char *buf, size_t len)
{
	if (names != NULL && names[i] != NULL)
		return names[i];
	emu_param_fail(buf, len, 0, "component %u", i);
	return buf;
}

/* Check the ratios: none 0, sum 1 within n ppb. Returns the sum, or 0 after writing the message. */
static uint64_t ratio_sum(const uint32_t *ratio, const char *const *names, unsigned n, char *err, size_t errlen)
{
	char nb[24];
	uint64_t sum = 0;

	for (unsigned i = 0; i < n; i++) {
		if (ratio[i] == 0 || ratio[i] > APP_RATIO_ONE) {
			emu_param_fail(err, errlen, 0, "%s: distribution ratio %.9f is invalid (above 0, at most 1)",
				       comp_name(names, i, nb, sizeof(nb)), (double)ratio[i] / APP_RATIO_ONE);
			return 0;
		}
		sum += ratio[i];
	}
	if (sum + n < APP_RATIO_ONE || sum > (uint64_t)APP_RATIO_ONE + n) {
		emu_param_fail(err, errlen, 0, "distribution ratios add up to %.9f, not 1 (%s and the %u others)",
			       (double)sum / APP_RATIO_ONE, comp_name(names, 0, nb, sizeof(nb)), n - 1);
		return 0;
	}
	return sum;
}

int app_host_counts(uint32_t n_hosts, const uint32_t *ratio, const char *const *names, unsigned n, uint32_t *count,
		    char *err, size_t errlen)
{
	uint64_t sum, total = 0;

	if (n == 0)
		return emu_param_fail(err, errlen, -EINVAL, "no application components to place");
	sum = ratio_sum(ratio, names, n, err, errlen);
	if (sum == 0)
		return -EINVAL;
	for (unsigned i = 0; i < n; i++) {
		/* floor(ratio x hosts), with the ratio normalised by the sum (exactly the ratio when the sum is 1) */
		uint64_t c = (uint64_t)ratio[i] * n_hosts / sum;

		count[i] = (uint32_t)(c > 0 ? c : 1);
		total += count[i];
	}
	if (total > n_hosts)
		return emu_param_fail(err, errlen, -EINVAL, "%u hosts are too few: the %u components need %llu",
				      n_hosts, n, (unsigned long long)total);
	/* Top-up. Some share is below its normalised ratio while total < hosts (the shares add to under 1, the
	 * normalised ratios to exactly 1), so every round places at least one host and the loop ends. */
	while (total < n_hosts) {
		for (unsigned i = 0; i < n && total < n_hosts; i++) {
			if ((uint64_t)count[i] * sum < (uint64_t)ratio[i] * n_hosts) {
				count[i]++;
				total++;
			}
		}
	}
	return 0;
}

/* Give the Initiator role to a uniformly random set of n_init hosts (selection sampling, Knuth's algorithm S:
 * host h becomes an Initiator with probability still-needed / hosts-left), the Responder role to the others. */
static void assign_roles(uint8_t *role, uint32_t n_hosts, uint32_t n_init, struct emu_rng *rng)
{
	uint32_t need = n_init;

	for (uint32_t h = 0; h < n_hosts; h++) {
		bool ini = emu_rng_below(rng, n_hosts - h) < need;

		role[h] = ini ? APP_ROLE_INITIATOR : APP_ROLE_RESPONDER;
		need -= ini ? 1 : 0;
	}
}

/* The pairing rules. pairs[] doubles as the scratch: first it lists the Responders, then a partial Fisher-Yates
 * shuffle hands distinct ones to the first min(I, R) Initiators; those leave pairs[0..ni-1].initiator listing the
 * Initiators and pairs[ni..nr-1].responder listing the Responders nobody took. */
static void pair_up(const uint8_t *role, uint32_t n_hosts, struct app_place_out *out, struct emu_rng *rng)
{
	struct app_pair *p = out->pairs;
	uint32_t ni = out->n_initiators, nr = out->n_responders, k = 0, r = 0;

	for (uint32_t h = 0; h < n_hosts; h++)
		if (role[h] == APP_ROLE_RESPONDER)
			p[r++].responder = h;
	for (uint32_t h = 0; h < n_hosts; h++) {
		if (role[h] != APP_ROLE_INITIATOR)
			continue;
		if (k < nr) { /* rule 1: a Responder nobody has, at random */
			uint32_t j = k + (uint32_t)emu_rng_below(rng, nr - k), t = p[j].responder;

			p[j].responder = p[k].responder;
			p[k].responder = t;
		} else { /* rule 2: any Responder at random; p[0..nr-1] still lists them all */
			p[k].responder = p[emu_rng_below(rng, nr)].responder;
		}
		p[k++].initiator = h;
	}
	for (; k < nr; k++) /* rule 3: a leftover Responder gets any Initiator at random */
		p[k].initiator = p[emu_rng_below(rng, ni)].initiator;
	out->n_pairs = k;
}

int app_place(const struct app_place_in *in, struct app_place_out *out, struct emu_rng *rng, char *err,
	      size_t errlen)
{
	static const char *const names[] = {"prScalaRdmaInitiator", "prScalaRdmaResponder"};
	uint32_t ratio[2] = {in->pr_initiator, in->pr_responder}, count[2];
	int rc;

	out->n_initiators = out->n_responders = out->n_pairs = 0;
	if (in->n_hosts < 2)
		return emu_param_fail(err, errlen, -EINVAL,
				      "%u host%s: the Scala RDMA application needs at least 2 (an Initiator and a "
				      "Responder on another host)", in->n_hosts, in->n_hosts == 1 ? "" : "s");
	rc = app_host_counts(in->n_hosts, ratio, names, 2, count, err, errlen);
	if (rc < 0)
		return rc;
	assign_roles(out->role, in->n_hosts, count[0], rng);
	out->n_initiators = count[0];
	out->n_responders = count[1];
	pair_up(out->role, in->n_hosts, out, rng);
	return 0;
}
