/* Records: CSV files named as the Scala output files are, {simulation}-{record}-{shard}.csv. */
#ifndef REC_H
#define REC_H

#include <stdint.h>
#include <stdio.h>

#include "emu_time.h"

struct rec_csv;

/**
 * Create DIR/<sim>-<record>-0.csv and write its header line @p header (comma-separated column names).
 * @p epoch_s is the UTC time, in seconds since 1970, that simulated time 0 maps to in the time_utc column.
 * Returns NULL with errno set.
 */
struct rec_csv *rec_csv_open(const char *dir, const char *sim, const char *record, const char *header,
			     int64_t epoch_s);

/** The stream to write one row to (fields comma-separated, ending in '\n'). */
FILE *rec_csv_file(struct rec_csv *r);

/** Write the time_utc value for simulated time @p now, ISO 8601 in whole seconds ("2026-01-01T00:00:03Z"). */
void rec_csv_time_utc(struct rec_csv *r, emu_ps_t now);

/** Write @p ps as nanoseconds with three decimals (exact: 85845 ps -> "85.845"). */
void rec_fmt_ns(FILE *f, emu_ps_t ps);

/** Write an IPv4 address (host order) in dotted form. */
void rec_fmt_ip(FILE *f, uint32_t ip);

/** Flush and close; returns 0 or -EIO. Accepts NULL. */
int rec_csv_close(struct rec_csv *r);

/** Sort @p v (@p n values) ascending, for the summary's percentiles. NULL or @p n < 2 is a no-op. */
void rec_sort_u64(uint64_t *v, uint64_t n);

/** Nearest-rank percentile @p p (0 to 100) of the sorted @p v of @p n values; 0 when @p n is 0. */
uint64_t rec_pct(const uint64_t *v, uint64_t n, uint32_t p);

#endif /* REC_H */
