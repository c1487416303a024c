/* What every record writer shares (the records' writers here, and the ScalaRdma application's rdma-perf and
 * beacon): opening a record under its Scala file name, the row head, and exact integer number formats. */
#ifndef CTL_REC_H
#define CTL_REC_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ctl_config.h"
#include "emu_time.h"
#include "nic.h"
#include "rec.h"

/**
 * Create DIR/<SimulationName>-<record>-0.csv with its @p header line; @p epoch_s is the UTC time, in seconds since
 * 1970, of sim time 0. Returns the record, or NULL with errno set and "DIR: cannot create the <record> record:
 * <why>" in @p err (size @p errlen).
 */
struct rec_csv *ctl_rec_csv_open(const struct ctl_config *cfg, const char *dir, const char *record,
				 const char *header, int64_t epoch_s, char *err, size_t errlen);

/*
 * What every per-NIC periodic record keeps: the NICs, its file and, per NIC, what its previous rows saw (of the
 * writer's own type). A writer's struct has it as its FIRST member (so it is not opaque, and a pointer to the
 * writer is a pointer to it); ctl_rec_nics_new() and ctl_rec_nics_free() make and free the whole writer.
 */
struct ctl_rec_nics {
	struct nic *const *nics;     /* cfg->n_hosts of them, index = FEP id; they outlive the record */
	uint32_t n_nics;
	struct rec_csv *csv;
	void *prev;                  /* n_nics entries of the writer's prev_size bytes, zeroed at the start */
	const uint8_t *local;        /* MPI: per host, whether this rank runs it (rows for those only); NULL: all */
};

/** Whether @p w writes host @p i's rows: every host's, or under MPI this rank's only. */
static inline bool ctl_rec_nic_here(const struct ctl_rec_nics *w, uint32_t i)
{
	return w->local == NULL || w->local[i];
}

/**
 * Allocate a zeroed writer of @p size bytes whose first member is a struct ctl_rec_nics, open its record
 * @p record (ctl_rec_csv_open()) for the NICs @p nics of @p cfg, and give it cfg->n_hosts zeroed entries of
 * @p prev_size bytes in prev. Returns the writer, or NULL with errno set and a message in @p err (nothing is left
 * open or allocated).
 */
void *ctl_rec_nics_new(size_t size, size_t prev_size, const struct ctl_config *cfg, struct nic *const *nics,
		       const char *dir, const char *record, const char *header, int64_t epoch_s, char *err,
		       size_t errlen);

/** The file of @p writer, a per-NIC writer (its first member a struct ctl_rec_nics), or NULL for NULL. */
struct rec_csv *ctl_rec_nics_csv(const void *writer);

/** Flush and close the writer @p w's file and free its prev and the writer itself. Accepts NULL. 0 or -errno,
 *  the failure named in @p err (rec_csv_close()). */
int ctl_rec_nics_free(struct ctl_rec_nics *w, char *err, size_t errlen);

/**
 * Start a row of @p csv at sim time @p now with the two columns every record opens with, time_utc and
 * sim_time_sec (no comma after them). Returns the stream to write the rest of the row to.
 */
FILE *ctl_rec_row_head(struct rec_csv *csv, emu_ps_t now);

/** Write @p ps as seconds with 12 decimals: exact. */
void ctl_rec_put_sec(FILE *f, emu_ps_t ps);

/** Write @p v / 10^@p digits exactly, with @p digits (0 to 12) decimals: ps as us is (ps, 6). */
void ctl_rec_put_fixed(FILE *f, uint64_t v, int digits);

/**
 * Write @p a x @p mul / @p den with @p digits (0 to 12) decimals, rounded half up, from integers only (no double,
 * so a row is the same on every machine). @p den 0 writes 0 with @p digits decimals. Gb/s of B bytes over dt ps
 * is (B, 8000, dt); a percentage of x in y is (x, 100, y).
 */
void ctl_rec_put_quot(FILE *f, uint64_t a, uint64_t mul, uint64_t den, int digits);

/** Write @p num / @p den with @p digits (0 to 12) decimals, rounded half up; @p den 0 writes 0. No double. */
void ctl_rec_put_quot128(FILE *f, unsigned __int128 num, unsigned __int128 den, int digits);

#endif /* CTL_REC_H */
