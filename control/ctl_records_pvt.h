/* Internals shared by the record files: the writers ctl_records.c owns and the number formats they share. */
#ifndef CTL_RECORDS_PVT_H
#define CTL_RECORDS_PVT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ctl_config.h"
#include "nic.h"
#include "rec.h"

/* Columns the NIC's port rows share (nd-stats, ecn-pfc-stats: simulation-output-files.md). */
#define CTL_REC_COMPONENT_TYPE "ScalaUETNic"
#define CTL_REC_TIER_NIC 3
#define CTL_REC_SUBTIER_NONE 4294967295u

/**
 * Create DIR/<SimulationName>-<record>-0.csv with its @p header line. Returns the record, or NULL with errno set
 * and "DIR: cannot create the <record> record: <why>" in @p err (size @p errlen).
 */
struct rec_csv *ctl_rec_csv_open(const struct ctl_config *cfg, const char *dir, const char *record,
				 const char *header, int64_t epoch_s, char *err, size_t errlen);

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

struct ctl_monitor;

/**
 * Open DIR/<SimulationName>-uet-monitor-0.csv with the filters, triggers and budget of cfg->nic's ScalaUETMonitor
 * section. Returns NULL with errno set (ENOMEM, a file error, EINVAL for a filter that does not parse) and a
 * message in @p err.
 */
struct ctl_monitor *ctl_monitor_open(const struct ctl_config *cfg, const char *dir, char *err, size_t errlen);

/** Write @p tr as a row if the filters or triggers select its connection (uet-nic-records.md, uet-monitor). */
void ctl_monitor_trace(struct ctl_monitor *m, const struct nic_trace *tr);

/** Flush, close and free. Accepts NULL. Returns 0 or -EIO. */
int ctl_monitor_close(struct ctl_monitor *m);

/*
 * The three periodic records below (docs/records.md). Each open takes @p nics (cfg->n_hosts of them, index = FEP
 * id), which must outlive it, and returns the record or NULL with errno set (ENOMEM or a file error) and a message
 * in @p err. Each rows call writes the rows of time @p now, NICs in FEP id order; @p last is the time of the
 * record's previous rows (0 before the first), so an interval value covers (last, now]. Each close flushes,
 * closes and frees, accepts NULL, and returns 0 or -EIO.
 */
struct ctl_pfcstats;

/** ecn-pfc-stats, every NDStatsReportInterval (ctl_pfcstats.c). */
struct ctl_pfcstats *ctl_pfcstats_open(const struct ctl_config *cfg, struct nic *const *nics, const char *dir,
				       int64_t epoch_s, char *err, size_t errlen);
void ctl_pfcstats_rows(struct ctl_pfcstats *p, emu_ps_t now, emu_ps_t last);
int ctl_pfcstats_close(struct ctl_pfcstats *p);

struct ctl_pcie;

/** pcie-stats, every NDStatsReportInterval (ctl_pcie.c). */
struct ctl_pcie *ctl_pcie_open(const struct ctl_config *cfg, struct nic *const *nics, const char *dir,
			       int64_t epoch_s, char *err, size_t errlen);
void ctl_pcie_rows(struct ctl_pcie *p, emu_ps_t now, emu_ps_t last);
int ctl_pcie_close(struct ctl_pcie *p);

struct ctl_netbuff;

/** net-buff-stats, every NetworkBufferStatsReportingInterval (ctl_netbuff.c); rows restart the pool intervals. */
struct ctl_netbuff *ctl_netbuff_open(const struct ctl_config *cfg, struct nic *const *nics, const char *dir,
				     int64_t epoch_s, char *err, size_t errlen);
void ctl_netbuff_rows(struct ctl_netbuff *b, emu_ps_t now, emu_ps_t last);
int ctl_netbuff_close(struct ctl_netbuff *b);

#endif /* CTL_RECORDS_PVT_H */
