/* Records: CSV files named as the Scala output files are, {simulation}-{record}-{shard}.csv. */
#ifndef REC_H
#define REC_H

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "emu_time.h"

struct rec_csv;

/* ---- The output budget (simulation.OutputSizeLimit) ---- */

/** The run's stop flag (main's signal flag, volatile sig_atomic_t): 1 a signal, REC_HALT_WRITE a failed write. */
#define REC_HALT_WRITE 2

/*
 * The bytes every file of a run takes together (records, captures, session logs, Chakra outputs), against
 * simulation.OutputSizeLimit: each writer asks before a whole row, record or block, and once one does not fit,
 * nothing more is written anywhere (the cut). The first write that fails (a full disk) sets the run's stop flag.
 * The run embeds it (one per process) and hands every writer a pointer; all writes happen on the run's main
 * thread, so it takes no lock.
 */
struct rec_budget {
	uint64_t limit;                  /* bytes; 0: no limit */
	uint64_t used;                   /* bytes the outputs took so far */
	bool cut, warned;                /* the limit was reached; the projection warned */
	emu_ps_t cut_at;                 /* emulated time of the cut (EMU_PS_NEVER: none) */
	uint64_t cut_bytes;              /* bytes taken at the cut */
	char cut_what[512];              /* the file whose write reached the limit */
	int err;                         /* errno of the first failed write, 0 none */
	char err_what[512];              /* ... its file */
	volatile sig_atomic_t *halt;     /* the run's stop flag, set to REC_HALT_WRITE on a failed write; or NULL */
	emu_ps_t (*now)(void *ctx);      /* the run's emulated time (for cut_at), or NULL */
	void *now_ctx;
	struct rec_writer *writer;       /* real time: the thread that makes the records' writes, or NULL */
};

/** Start @p b with @p limit bytes (0 none) and the run's stop flag @p halt (may be NULL). */
void rec_budget_init(struct rec_budget *b, uint64_t limit, volatile sig_atomic_t *halt);

/** Whether @p n more bytes of the output @p what, of emulated time @p at (EMU_PS_NEVER: the run's time now), may be
 *  written: true (counted), or false at and after the cut (the first refusal is the cut, said once on stderr).
 *  NULL @p b: always true. */
bool rec_budget_take(struct rec_budget *b, uint64_t n, const char *what, emu_ps_t at);

/** Count @p n bytes that are written whatever the budget (a file's headers). Accepts NULL. */
void rec_budget_count(struct rec_budget *b, uint64_t n);

/** A write of @p what failed with @p e: noted once (stderr), and the run's stop flag set. Accepts NULL. */
void rec_budget_fail(struct rec_budget *b, int e, const char *what);

/** Warn once when @p bytes_so_far at emulated time @p now, projected to @p end, would pass the limit. */
void rec_budget_expect(struct rec_budget *b, uint64_t bytes_so_far, emu_ps_t now, emu_ps_t end);

/** Whether the run is asked to stop (its stop flag: a signal, or a failed write). NULL: false. */
static inline bool rec_budget_halted(const struct rec_budget *b)
{
	return b != NULL && b->halt != NULL && *b->halt != 0;
}

/* ---- The writer thread (real time: no write(2) in the poll loop) ---- */

struct rec_writer;

/* What the writer thread was given. */
struct rec_writer_stats {
	uint64_t chunks, bytes; /* the streams' flushes handed to it, and their bytes */
	uint64_t waits;         /* flushes that waited for room in its ring (it was behind) */
};

/**
 * Start a writer thread with a ring of @p bytes (rounded up to a power of two), on the CPUs @p cpus (NULL or
 * empty: the caller's). Set it as a budget's writer, and the streams of every record and file opened with that
 * budget (rec_csv_budget(), rec_file_open()) hand it their flushes instead of writing: their write(2) calls move
 * to the thread, their failures are noted at their next flush or close. 0, or -errno.
 */
int rec_writer_start(struct rec_writer **w, uint64_t bytes, const cpu_set_t *cpus);

/** Wait until everything handed to @p w is written. Accepts NULL. */
void rec_writer_sync(struct rec_writer *w);

/** Write what is left (the thread then on any CPU), end the thread, free @p w, and say in @p st (may be NULL)
 *  what it was given; then unset it as the budget's writer (nothing may write meanwhile). Accepts NULL. */
void rec_writer_stop(struct rec_writer *w, struct rec_writer_stats *st);

/** Attach the budget @p b (or NULL) to the record @p r: its rows are cut at the last whole one that fits. */
void rec_csv_budget(struct rec_csv *r, struct rec_budget *b);

/**
 * Open @p path for writing (@p append: at its end) through the budget @p b: a stream whose writes stop at the last
 * @p sep (a whole line) that fits, and whose first failed write is noted in @p b and stops every later one. NULL
 * with errno set.
 */
FILE *rec_file_open(const char *path, bool append, struct rec_budget *b, char sep);

/**
 * Create DIR/<sim>-<record>-0.csv and write its header line @p header (comma-separated column names).
 * @p epoch_s is the UTC time, in seconds since 1970, that simulated time 0 maps to in the time_utc column.
 * Returns NULL with errno set.
 */
struct rec_csv *rec_csv_open(const char *dir, const char *sim, const char *record, const char *header,
			     int64_t epoch_s);

/** rec_csv_open() of shard @p shard: DIR/<sim>-<record>-<shard>.csv (an MPI rank's part of a record). */
struct rec_csv *rec_csv_open_shard(const char *dir, const char *sim, const char *record, uint32_t shard,
				   const char *header, int64_t epoch_s);

/** The stream to write one row to (fields comma-separated, ending in '\n'). */
FILE *rec_csv_file(struct rec_csv *r);

/** Bytes written to @p r so far, header included (its stream position); 0 for NULL. */
uint64_t rec_csv_bytes(struct rec_csv *r);

/** Write the time_utc value for simulated time @p now, ISO 8601 in whole seconds ("2026-01-01T00:00:03Z"). */
void rec_csv_time_utc(struct rec_csv *r, emu_ps_t now);

/*
 * Row writers without printf: a row is written field by field into the record's stream (written unlocked: one
 * thread owns it), numbers formatted here. printf is left to the few columns that are doubles. The stream keeps
 * stdio's own buffer: rec_csv_bytes() counts what reached the file, and the size budget reads it.
 */
/** Write the character @p c. */
static inline void rec_put_ch(FILE *f, char c)
{
	putc_unlocked(c, f);
}

/** Write the string @p s (a character at a time: glibc's putc_unlocked is a store into the buffer). */
static inline void rec_put_str(FILE *f, const char *s)
{
	while (*s != '\0')
		putc_unlocked(*s++, f);
}

/*
 * The same number formats into a caller's buffer, for a row built whole and written at once: each writes at @p p
 * and returns the end of what it wrote (no NUL). The caller leaves room: 20 bytes for a number, 40 for a fixed-point
 * value, 15 for an address.
 */
char *rec_str_u64(char *p, uint64_t v);
char *rec_str_fixed(char *p, uint64_t v, int digits);
char *rec_str_ip(char *p, uint32_t ip);

/** The time_utc value of simulated time @p now (rec_csv_time_utc()), valid until the next call on @p r. */
const char *rec_csv_utc(struct rec_csv *r, emu_ps_t now);

/** Write @p v in decimal, as "%llu" does. */
void rec_put_u64(FILE *f, uint64_t v);

/** Write @p v in decimal, as "%lld" does. */
void rec_put_i64(FILE *f, int64_t v);

/** Write @p v / 10^@p digits with exactly @p digits (0 to 19) decimals, as "%llu.%0*llu" does (no point at 0). */
void rec_put_fixed(FILE *f, uint64_t v, int digits);

/** Write a comma, then @p v in decimal. */
static inline void rec_put_cu64(FILE *f, uint64_t v)
{
	putc_unlocked(',', f);
	rec_put_u64(f, v);
}

/** Write @p ps as nanoseconds with three decimals (exact: 85845 ps -> "85.845"). */
void rec_fmt_ns(FILE *f, emu_ps_t ps);

/** Write an IPv4 address (host order) in dotted form. */
void rec_fmt_ip(FILE *f, uint32_t ip);

/**
 * Flush and close @p r (NULL accepted). When a write failed, the file is cut after its last whole row and
 * "PATH: <strerror>" goes into @p err (size @p errlen; may be NULL) unless it already holds an error.
 * Returns 0 or -errno of the failure (-ENOSPC on a full disk).
 */
int rec_csv_close(struct rec_csv *r, char *err, size_t errlen);

/** Write the message @p fmt into @p err (size @p errlen) unless @p err is NULL or holds one already. */
__attribute__((format(printf, 3, 4))) void rec_note_err(char *err, size_t errlen, const char *fmt, ...);

/** Cut the file @p fd after its last byte @p c (to nothing if none): 0 or -errno. */
int rec_truncate_after(int fd, char c);

/** Sort @p v (@p n values) ascending, for the summary's percentiles. NULL or @p n < 2 is a no-op. */
void rec_sort_u64(uint64_t *v, uint64_t n);

/** Nearest-rank percentile @p p (0 to 100) of the sorted @p v of @p n values; 0 when @p n is 0. */
uint64_t rec_pct(const uint64_t *v, uint64_t n, uint32_t p);

#endif /* REC_H */
