/* Placement and pairing of the Scala RDMA application (spec seeds/003, Placement and pairing): how many hosts run
 * the Initiator and the Responder, which hosts, and the (Initiator, Responder) pairs.
 *
 * Runs once, before the simulation starts. Hosts are indexes 0..n_hosts-1 (the topology's server nodes in the
 * order the caller lists them). Ratios are integers in parts per billion (APP_RATIO_ONE is 1.0) so that
 * floor(ratio x hosts) is exact: floor(0.29 x 100) is 29 here, 28 in binary floating point. All randomness comes
 * from the struct emu_rng the caller passes in, seeded from RandomSeed, so a run repeats exactly. Nothing here
 * allocates: the caller owns every array.
 */
#ifndef APP_PLACE_H
#define APP_PLACE_H

#include <stddef.h>
#include <stdint.h>

#include "emu_rng.h"

/** A distribution ratio of 1.0, in parts per billion. */
#define APP_RATIO_ONE 1000000000u

/** The ratio each of the Initiator and the Responder gets when the application is alone in a configuration. */
#define APP_RATIO_ALONE (APP_RATIO_ONE / 2u)

/** Stream id for emu_rng_init(rng, RandomSeed, APP_RNG_STREAM_PLACE): far above any device id, so the placement
 * stream never coincides with a NIC's or a switch's. */
#define APP_RNG_STREAM_PLACE 0x4150500000000001ULL

/** Role of a host. */
enum app_role {
	APP_ROLE_NONE = 0,  /* runs no component of this application */
	APP_ROLE_INITIATOR, /* the client: sends connection requests, posts the WQEs */
	APP_ROLE_RESPONDER, /* the server: listens from StartTime, receives the RDMA WRITEs */
};

/** One pair; each pair has NumConnections connections. */
struct app_pair {
	uint32_t initiator; /* host index */
	uint32_t responder; /* host index, never the initiator's */
};

/** What placement needs: the host count and the two ratios (prScalaRdmaInitiator, prScalaRdmaResponder). */
struct app_place_in {
	uint32_t n_hosts;
	uint32_t pr_initiator; /* parts per billion; APP_RATIO_ALONE when the application is alone */
	uint32_t pr_responder; /* parts per billion */
};

/**
 * Result of placement. The caller points @c role and @c pairs at its own arrays of n_hosts entries each (at most
 * n_hosts - 1 pairs are made); app_place() fills them and the counts.
 */
struct app_place_out {
	uint8_t *role;          /* [n_hosts] enum app_role of each host */
	struct app_pair *pairs; /* [n_hosts] the pairs, Initiator-first order (see app_place()) */
	uint32_t n_initiators;
	uint32_t n_responders;
	uint32_t n_pairs; /* max(n_initiators, n_responders) */
};

/**
 * Ratio @p r (1.0 is the whole budget) in parts per billion, rounded to the nearest; for the config loader.
 * Values outside [0, 1] (and NaN) give 0 for a negative or NaN @p r and APP_RATIO_ONE above 1.
 */
uint32_t app_ratio_ppb(double r);

/**
 * Host count of each of @p n components sharing one budget of ratios (all the client and server entries of all
 * the applications of a configuration, in configuration order):
 *   count = floor(ratio x hosts), at least 1;
 *   then, while the counts add up to fewer than @p n_hosts, each component whose share count / hosts is still
 *   below its ratio gets one more host, in turn, starting with the first.
 * The ratios must add up to 1 within @p n parts per billion (each may have been rounded to the nearest part); the
 * shares are compared with the ratios divided by their sum, so the top-up always ends.
 *
 * @param n_hosts  hosts in the topology
 * @param ratio    [n] ratios in parts per billion
 * @param names    [n] the attribute names for messages (prScalaRdmaInitiator, ...), or NULL
 * @param n        components, at least 1
 * @param count    [n] out: hosts of each component
 * @param err      message on failure, naming the attribute (may be NULL); @p errlen its size
 * @return 0; -EINVAL with a message when a ratio is 0, the ratios do not add up to 1, or there are fewer hosts than
 *         the counts need (each component needs at least one).
 */
int app_host_counts(uint32_t n_hosts, const uint32_t *ratio, const char *const *names, unsigned n, uint32_t *count,
		    char *err, size_t errlen);

/**
 * Place the Scala RDMA application alone on @p in->n_hosts hosts and pair its components.
 *
 * Counts: app_host_counts() over (prScalaRdmaInitiator, prScalaRdmaResponder), Initiator first, so the top-up
 * favours the Initiator. Hosts: the Initiators go to a uniformly random set of hosts drawn from @p rng, the
 * Responders to the rest (the page does not say which hosts; a fixed rule would put every Initiator on the first
 * leaves). Pairing, the page's three rules, Initiators taken in host order:
 *   1. each Initiator in turn takes, at random, a Responder no Initiator has yet;
 *   2. once every Responder has one, each further Initiator takes any Responder at random;
 *   3. each Responder still without an Initiator gets one picked at random.
 * So out->pairs holds first min(I, R) pairs with distinct Responders and distinct Initiators, then the rule 2 or
 * rule 3 pairs; n_pairs = max(I, R).
 *
 * @param in     hosts and ratios
 * @param out    caller's arrays (role, pairs) of in->n_hosts entries, filled with the counts
 * @param rng    the placement stream (APP_RNG_STREAM_PLACE of RandomSeed); advanced
 * @param err    message on failure (may be NULL); @p errlen its size
 * @return 0; -EINVAL with a message when there are fewer than 2 hosts or a ratio is invalid (app_host_counts()).
 *         On failure @p out is left with zero counts.
 */
int app_place(const struct app_place_in *in, struct app_place_out *out, struct emu_rng *rng, char *err,
	      size_t errlen);

#endif /* APP_PLACE_H */
