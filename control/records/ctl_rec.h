/* What every record writer shares (the records' writers here, and the ScalaRdma application's rdma-perf and
 * beacon): opening a record under its Scala file name, the column tables (record schemas) that write a record's
 * header and rows, the per-NIC and row-head helpers, and exact integer number formats. */
#ifndef CTL_REC_H
#define CTL_REC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ctl_config.h"
#include "emu_time.h"
#include "nic.h"
#include "rec.h"

struct port_nic;

/**
 * Create DIR/<SimulationName>-<record>-0.csv with its @p header line; @p epoch_s is the UTC time, in seconds since
 * 1970, of sim time 0. Returns the record, or NULL with errno set and "DIR: cannot create the <record> record:
 * <why>" in @p err (size @p errlen).
 */
struct rec_csv *ctl_rec_csv_open(const struct ctl_config *cfg, const char *dir, const char *record,
				 const char *header, int64_t epoch_s, char *err, size_t errlen);

/*
 * What every per-NIC periodic record keeps: the hosts' NICs, its file and, per NIC, what its previous rows saw (of
 * the writer's own type). A writer's struct has it as its FIRST member (so it is not opaque, and a pointer to the
 * writer is a pointer to it); ctl_rec_nics_new() and ctl_rec_nics_free() make and free the whole writer. A record
 * of one model's own (uet-transport-stats, pcie-stats) reaches a host's NIC through its typed view
 * (port_nic_uet()) and skips the hosts of another model.
 */
struct ctl_rec_nics {
	const struct port_nic *hosts; /* every host's NIC, through its model's ops (port_nic.h); they outlive it */
	uint32_t n_hosts;            /* cfg->n_hosts, index = FEP id */
	struct rec_csv *csv;
	void *prev;                  /* cfg->n_hosts entries of the writer's prev_size bytes, zeroed at the start */
	const uint8_t *local;        /* MPI: per host, whether this rank runs it (rows for those only); NULL: all */
};

/** Whether @p w writes host @p i's rows: every host's, or under MPI this rank's only. */
static inline bool ctl_rec_nic_here(const struct ctl_rec_nics *w, uint32_t i)
{
	return w->local == NULL || w->local[i];
}

struct ctl_rec_schema;

/**
 * Allocate a zeroed writer of @p size bytes whose first member is a struct ctl_rec_nics, open its record
 * of schema @p s (ctl_rec_schema_open()) for the hosts' NICs @p hosts (cfg->n_hosts, either model) of @p cfg, and
 * give it cfg->n_hosts zeroed entries of @p prev_size bytes in prev. Returns the writer, or NULL with errno set
 * and a message in @p err (nothing is left open or allocated).
 */
void *ctl_rec_nics_new(size_t size, size_t prev_size, const struct ctl_config *cfg, const struct port_nic *hosts,
		       const char *dir, const struct ctl_rec_schema *s, int64_t epoch_s, char *err, size_t errlen);

/** The file of @p writer, a per-NIC writer (its first member a struct ctl_rec_nics), or NULL for NULL. */
struct rec_csv *ctl_rec_nics_csv(const void *writer);

/** Flush and close the file of @p writer (a per-NIC writer) and free its prev and the writer itself.
 *  Accepts NULL. 0 or -errno, the failure named in @p err (rec_csv_close()). */
int ctl_rec_nics_free(void *writer, char *err, size_t errlen);

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

/*
 * Record schemas: a record declares its columns once, as a table of {name, format, getter}, and one routine
 * writes both its header line and each of its rows from it (docs/records.md, Declaring a record). A row is a
 * writer's own struct (the "row" a getter reads); a getter turns it into the column's value, and the column's
 * format (or the one the getter gives for this row) writes the value.
 */

/* How a value is written. */
enum ctl_rec_fmt {
	CTL_REC_F_EMPTY = 0, /* nothing: a column this row does not fill */
	CTL_REC_F_U64,       /* v.u in decimal */
	CTL_REC_F_I64,       /* v.i in decimal */
	CTL_REC_F_STR,       /* the string v.s */
	CTL_REC_F_FIXED,     /* v.u / 10^digits with digits (0 to 12) decimals, exact: ps as us is 6, as s 12 */
	CTL_REC_F_QUOT,      /* v.num / v.den with digits decimals, rounded half up, no double; den 0 writes 0 */
	CTL_REC_F_DBL,       /* v.d as printf's "%.*f" with digits decimals */
	CTL_REC_F_UTC,       /* the time v.u (ps) as time_utc, ISO 8601 in whole seconds */
	CTL_REC_F_PDC,       /* v.u an IPv4 address (host order), v.id a PDC id: "10.0.0.1:5" */
	CTL_REC_F_LIST,      /* v.list[0 .. v.n - 1] as "[4:5:6:7]" */
	CTL_REC_F_BITS,      /* each bit N set in v.u as the number v.id + N, in "[...]" as LIST */
	CTL_REC_F_IP,        /* v.u an IPv4 address (host order): "10.0.0.1" */
};

/* One value, as a getter gives it: fmt and digits start as the column's, the rest unset (a row per packet): a
 * getter sets the fields of the format it leaves. */
struct ctl_rec_val {
	uint8_t fmt;                  /* enum ctl_rec_fmt */
	uint8_t digits;
	union {
		uint64_t u;
		int64_t i;
		const char *s;
		double d;
		const uint32_t *list;
	};
	uint64_t id;                  /* PDC: the PDC id; BITS: the number of bit 0 */
	uint32_t n;                   /* LIST: the entries */
	unsigned __int128 num, den;   /* QUOT */
};

/* One column: its Scala name, the format of its value and where the value comes from. */
struct ctl_rec_col {
	const char *name;
	uint8_t fmt;                  /* enum ctl_rec_fmt */
	uint8_t digits;
	uint32_t arg;                 /* handed to get: which counter, which field (an offset), which statistic */
	/** The value of this column in @p row (the writer's row struct); NULL: the row's time (UTC, FIXED) or the
	 *  constant text (STR). */
	void (*get)(const void *row, uint32_t arg, struct ctl_rec_val *v);
	const char *text;             /* get NULL, fmt STR: the value every row has */
};

/* A record's columns. */
struct ctl_rec_schema {
	const char *record;           /* the record's Scala name: the file <SimulationName>-<record>-0.csv */
	const struct ctl_rec_col *cols;
	uint32_t n_cols;
};

#define CTL_REC_SCHEMA(record, cols) { (record), (cols), (uint32_t)(sizeof(cols) / sizeof((cols)[0])) }

/* Columns of the row's own time (the time handed to ctl_rec_row()). */
#define CTL_REC_COL_TIME_UTC { "time_utc", CTL_REC_F_UTC, 0, 0, NULL, NULL }
#define CTL_REC_COL_SIM_SEC { "sim_time_sec", CTL_REC_F_FIXED, 12, 0, NULL, NULL }
#define CTL_REC_COL_SIM_NS { "sim_time_ns", CTL_REC_F_FIXED, 3, 0, NULL, NULL }
/* A column every row gives the same text. */
#define CTL_REC_COL_CONST(name, text) { (name), CTL_REC_F_STR, 0, 0, NULL, (text) }
/* A column of @p fmt whose value @p get gives (@p arg handed to it). */
#define CTL_REC_COL(name, fmt, digits, get, arg) { (name), CTL_REC_F_##fmt, (digits), (arg), (get), NULL }

/* The offset of the uint64_t @p field of @p type: it does not compile for a field of another type. */
#define CTL_REC_OFF_U64(type, field) \
	((uint32_t)offsetof(type, field) + 0 * (uint32_t)sizeof(char[_Generic(((type *)0)->field, uint64_t: 1)]))
#define CTL_REC_OFF_I64(type, field) \
	((uint32_t)offsetof(type, field) + 0 * (uint32_t)sizeof(char[_Generic(((type *)0)->field, int64_t: 1)]))
#define CTL_REC_OFF_STR(type, field) \
	((uint32_t)offsetof(type, field) + 0 * (uint32_t)sizeof(char[_Generic(((type *)0)->field, const char *: 1)]))

/* A uint64_t field of the row struct, in decimal (U64) or exact with @p digits decimals (FIXED). */
#define CTL_REC_COL_U64(name, type, field) CTL_REC_COL(name, U64, 0, ctl_rec_get_u64, CTL_REC_OFF_U64(type, field))
#define CTL_REC_COL_FIXED(name, digits, type, field) \
	CTL_REC_COL(name, FIXED, digits, ctl_rec_get_u64, CTL_REC_OFF_U64(type, field))
/* An int64_t field of the row struct, in decimal. */
#define CTL_REC_COL_I64(name, type, field) CTL_REC_COL(name, I64, 0, ctl_rec_get_i64, CTL_REC_OFF_I64(type, field))
/* A string field (const char *) of the row struct. */
#define CTL_REC_COL_STR(name, type, field) CTL_REC_COL(name, STR, 0, ctl_rec_get_str, CTL_REC_OFF_STR(type, field))

/* The columns most records open with: time_utc, sim_time_sec, and component_name from the row struct @p type's
 * name field; @p more (CTL_REC_NODE_ID() ...) follow them. */
#define CTL_REC_COLS_OPEN(type) \
	CTL_REC_COL_TIME_UTC, CTL_REC_COL_SIM_SEC, CTL_REC_COL_STR("component_name", type, name)
/* node_id from the row struct @p type's node_id field. */
#define CTL_REC_COL_NODE_ID(type) CTL_REC_COL_U64("node_id", type, node_id)

/*
 * Cumulative and interval columns of a stats struct @p type: the row struct starts with a struct ctl_rec_cur, the
 * stats now (cur) and at the previous rows (prev). CUR writes cur's @p field, IVL cur's less prev's, PAIR both as
 * the columns NAME and ivl_NAME.
 */
struct ctl_rec_cur {
	const void *cur, *prev;
};
#define CTL_REC_COL_CUR(name, type, field) CTL_REC_COL(name, U64, 0, ctl_rec_get_cur, CTL_REC_OFF_U64(type, field))
#define CTL_REC_COL_IVL(name, type, field) CTL_REC_COL(name, U64, 0, ctl_rec_get_ivl, CTL_REC_OFF_U64(type, field))
#define CTL_REC_COL_PAIR(name, type, field) \
	CTL_REC_COL_CUR(#name, type, field), CTL_REC_COL_IVL("ivl_" #name, type, field)

/* The same of a counter array (cur and prev point to uint64_t arrays): counter @p k as NAME and ivl_NAME. */
#define CTL_REC_COL_CTR_PAIR(name, k) \
	CTL_REC_COL(#name, U64, 0, ctl_rec_get_cur, (uint32_t)((k) * sizeof(uint64_t))), \
	CTL_REC_COL("ivl_" #name, U64, 0, ctl_rec_get_ivl, (uint32_t)((k) * sizeof(uint64_t)))
/* A pair the model keeps at 0. */
#define CTL_REC_COL_ZERO_PAIR(name) CTL_REC_COL_CONST(#name, "0"), CTL_REC_COL_CONST("ivl_" #name, "0")

/** Getters of the macros above: @p arg is the field's offset in the row struct (u64, str) or in the stats
 *  (cur, ivl). */
void ctl_rec_get_u64(const void *row, uint32_t arg, struct ctl_rec_val *v);
void ctl_rec_get_i64(const void *row, uint32_t arg, struct ctl_rec_val *v);
void ctl_rec_get_str(const void *row, uint32_t arg, struct ctl_rec_val *v);
void ctl_rec_get_cur(const void *row, uint32_t arg, struct ctl_rec_val *v);
void ctl_rec_get_ivl(const void *row, uint32_t arg, struct ctl_rec_val *v);

/** Write the header of @p s (its column names, comma-separated) into @p buf of @p len bytes. Returns the length
 *  it needs (without the NUL), as snprintf does: the header is whole when that is below @p len. */
size_t ctl_rec_header(const struct ctl_rec_schema *s, char *buf, size_t len);

/** ctl_rec_csv_open() of @p s's record with its header. */
struct rec_csv *ctl_rec_schema_open(const struct ctl_config *cfg, const char *dir, const struct ctl_rec_schema *s,
				    int64_t epoch_s, char *err, size_t errlen);

/** Write one row of @p s to @p csv: each column's value in @p row (the writer's row struct), @p now the row's
 *  time (its time columns). */
void ctl_rec_row(struct rec_csv *csv, const struct ctl_rec_schema *s, const void *row, emu_ps_t now);

/*
 * nd-stats (ctl_rec_nd.c): one row per port, the NICs', the switches' and the Chakra scale-up devices'. A writer
 * fills a struct ctl_rec_nd_row and hands it to ctl_rec_row() with ctl_rec_nd_schema.
 */
struct ctl_rec_nd_row {
	const char *name, *nd_name, *type, *uldl;   /* component_name, nd_name, component_type, uldl */
	uint64_t ifid, node_id, tier, subtier;
	uint64_t tx_frames, rx_frames, tx_bytes, rx_bytes; /* since the start */
	uint64_t dtx, drx;                          /* bytes in the interval */
	uint64_t tx_drops, rx_drops;
	uint64_t dt;                                /* the interval, ps */
	uint64_t bps;                               /* the link's rate */
	bool exact;                                 /* rates and utilization exact (integers), else doubles */
};
extern const struct ctl_rec_schema ctl_rec_nd_schema;

/* The records other rooms write, each from its column table beside its writer (uetemu columns lists them): the
 * ScalaRdma application's (control/app/ctl_rdma.c) and the Chakra workload's (control/chakra/ctl_chakra_rec.c;
 * chakra-mapping without its two ScaleUp columns when no scale-up group is given). */
extern const struct ctl_rec_schema ctl_rec_rdma_perf_schema, ctl_rec_beacon_schema;
extern const struct ctl_rec_schema ctl_rec_ck_hosts_schema, ctl_rec_ck_map_schema, ctl_rec_ck_apps_schema;
extern const struct ctl_rec_schema ctl_rec_ck_perf_schema, ctl_rec_ck_completion_schema, ctl_rec_ck_cdf_schema;
/* The flows and stream applications' flow-fct (control/report/ctl_report_flows.c). */
extern const struct ctl_rec_schema ctl_rec_flow_fct_schema;

#endif /* CTL_REC_H */
