/* The flow generators (docs/config.md, flows and stream): open-loop Poisson flows with sizes from a CDF and
 * destinations by pattern, and constant-rate streams between two hosts. Both run once, before the simulation
 * starts, and turn their parameters into a list of messages (source, destination, bytes, start time) that the
 * messages workload then posts.
 *
 * Everything is integer arithmetic: probabilities in parts per billion, times in picoseconds, the exponential's
 * logarithm in 32-bit fixed point (app_flows_neglog_q32()), so a (seed, config) gives the same flows on every
 * machine. All randomness comes from struct emu_rng streams seeded from the seed the caller gives.
 */
#ifndef APP_FLOWS_H
#define APP_FLOWS_H

#include <stddef.h>
#include <stdint.h>

#include "emu_rng.h"
#include "emu_time.h"

/** A probability of 1, in parts per billion. */
#define APP_PPB_ONE 1000000000u

/** Points of a CDF at most. */
#define APP_CDF_MAX 256

/** The largest size a CDF point may have: 2^40 B. */
#define APP_CDF_SIZE_MAX (1ULL << 40)

/** Flows of one flows or stream application at most (each is a message of the run). */
#define APP_FLOWS_MAX 4000000u

/** Stream id base of the flows' random streams: host h draws from APP_RNG_STREAM_FLOWS + h (+ 2^32 x app). */
#define APP_RNG_STREAM_FLOWS 0x464c4f5700000000ULL

/**
 * A flow-size distribution: n points (size[i] bytes, cum[i] the probability that a flow is at most that size,
 * parts per billion), sizes and probabilities non-decreasing, the last probability 1. Between two points sizes are
 * uniform (linear interpolation of the CDF); below the first point's probability a flow has the first size.
 */
struct app_cdf {
	uint32_t n;
	uint64_t size[APP_CDF_MAX];
	uint32_t cum[APP_CDF_MAX];
};

/**
 * Parse CDF text @p text: one point a line, "SIZE PROB" (bytes, a whole number; a probability 0 to 1 with at most
 * 9 decimals), blank lines and '#' comments ignored. Returns 0, or -EINVAL with "line N: what" in @p err (size
 * @p errlen): a bad number, sizes or probabilities going down, the last probability not 1, fewer than 1 or more than
 * APP_CDF_MAX points, a largest size of 0, a size above APP_CDF_SIZE_MAX.
 */
int app_cdf_parse(const char *text, struct app_cdf *out, char *err, size_t errlen);

/** The size of quantile @p u (parts per billion, below APP_PPB_ONE) of @p c: at least 1 byte. */
uint64_t app_cdf_size(const struct app_cdf *c, uint32_t u);

/** Twice the mean of @p c in bytes x 10^9 (exact: the mean is this / 2e9). */
unsigned __int128 app_cdf_mean2e9(const struct app_cdf *c);

/** -ln(1 - @p u / 10^9) in 32-bit fixed point (2^32 is 1.0), from integers only; @p u below APP_PPB_ONE. */
uint64_t app_flows_neglog_q32(uint32_t u);

/** How a flow's destination is chosen. */
enum app_flows_pattern {
	APP_FLOWS_UNIFORM = 0,  /* any other host, at random (or, with rack_local, a share in the sender's rack) */
	APP_FLOWS_PERMUTATION,  /* each host one fixed other host: a random cyclic permutation of the hosts */
	APP_FLOWS_INCAST,       /* senders hosts, drawn at random, all to one receiver */
	APP_FLOWS_ALL_TO_ALL,   /* each host every other host in turn: src + 1, src + 2, ... (mod hosts) */
	APP_FLOWS_PATTERN_COUNT
};

/** Pattern value @p s (uniform, permutation, incast, all-to-all) into @p out; -EINVAL when unknown. */
int app_flows_pattern_parse(const char *s, enum app_flows_pattern *out);

/** The pattern's name, or "unknown". */
const char *app_flows_pattern_name(int p);

/** A generated flow: a message of the run. */
struct app_flow {
	uint32_t src, dst;
	uint64_t bytes;
	emu_ps_t start;
};

/** The parameters of one flows application. */
struct app_flows_in {
	uint32_t n_hosts;            /* hosts 0..n_hosts-1, at least 2 */
	const uint32_t *rack;        /* [n_hosts] each host's rack (the switch it hangs off), or NULL: no racks */
	uint64_t bps;                /* every host's link rate, bit/s */
	uint32_t load_ppm;           /* offered load per sending host, a share of its link, 1..1,000,000 */
	const struct app_cdf *cdf;
	uint8_t pattern;             /* enum app_flows_pattern */
	uint32_t receiver;           /* incast: the receiver */
	uint32_t senders;            /* incast: how many senders (1 .. n_hosts - 1) */
	uint32_t rack_local_ppm;     /* uniform: share of flows to a host of the sender's rack (0: plain uniform) */
	uint32_t strata;             /* 0..APP_FLOWS_STRATA_MAX: see app_flows_gen() */
	uint64_t seed;
	uint64_t stream;             /* added to every stream id (the application's index << 32) */
	emu_ps_t start;              /* first possible arrival */
	emu_ps_t stop;               /* arrivals before it only; 0: no time stop */
	uint64_t count;              /* flows per sending host at most; 0: no count stop (a stop is needed) */
};

#define APP_FLOWS_STRATA_MAX 4096u

/** What was generated: the offered load is bytes x 8 / (bps x window_ps) (one host's link over the sum of the
 *  senders' windows). */
struct app_flows_out {
	struct app_flow *flows;      /* malloc'd, by start time (then source host); the caller frees it */
	uint64_t n;
	uint64_t bytes;              /* the flows' bytes */
	uint32_t senders;            /* hosts that send */
	emu_ps_t window_ps;          /* sum over the senders of their generation window (ps) */
	uint32_t offered_ppm;        /* bytes x 8 / (bps x window) in parts per million, rounded */
};

/**
 * Generate the flows of @p in. Each sending host draws its arrivals as a Poisson process: gaps exponential with
 * mean E[size] x 8 / (load x bps) from the first at start, until stop (or count flows). Sizes come from the CDF,
 * destinations from the pattern. The draws are stratified (Latin hypercube sampling): with @p in->strata S above 1,
 * each run of S consecutive flows of a host takes its S gaps and its S sizes one from each of S equal-probability
 * slices of their distributions, in random order. With S 0 (the default) and a time stop, a host's flows are the
 * Poisson process given its count: the count is its mean, window / mean gap (rounded up with the probability of its
 * fraction), the arrivals uniform in the window, and its sizes one from each of as many slices as it has flows;
 * with S 0 and a count stop first, the gaps are one run of count slices.
 * Each gap is still exponential and each size still follows the CDF, but the offered load strays far less from the
 * configured one than with independent draws (S 1: a plain Poisson process with independent sizes), whose load
 * over N flows of a heavy-tailed CDF strays by several percent even for N in the thousands.
 * A sender's window is [start, stop), or when its count stops it first, [start, its last flow's arrival].
 * Returns 0; -EINVAL with a message (a bad parameter; more than APP_FLOWS_MAX flows), or -ENOMEM.
 */
int app_flows_gen(const struct app_flows_in *in, struct app_flows_out *out, char *err, size_t errlen);

/** The parameters of one constant-rate stream. */
struct app_stream_in {
	uint32_t src, dst;
	uint64_t size;               /* bytes per message, at least 1 */
	uint64_t bps;                /* message bits per second; 0: pps gives the rate */
	uint64_t pps;                /* messages per second, when bps is 0 */
	emu_ps_t start, stop;        /* messages at start, start + interval, ... before stop */
	emu_ps_t on, off;            /* on/off periods from start (both 0: always on) */
};

/**
 * Generate the messages of stream @p in: message k of an on period beginning at t0 starts at
 * t0 + floor(k x size x 8 x 10^12 / bps) ps (or k x 10^12 / pps), exact, without drift, while inside the on
 * period and before stop. Returns 0; -EINVAL with a message (no rate, more than APP_FLOWS_MAX messages), -ENOMEM.
 */
int app_stream_gen(const struct app_stream_in *in, struct app_flows_out *out, char *err, size_t errlen);

#endif /* APP_FLOWS_H */
