/* The records of a run: uet-transport-stats, nd-stats, ecn-pfc-stats and pcie-stats every NDStatsReportInterval,
 * net-buff-stats every NetworkBufferStatsReportingInterval, uet-monitor per packet; for the switches, their ports'
 * nd-stats and ecn-pfc-stats rows, trimming-stats, scala-switch-agg-buff-stats, scala-switch-buff-stats and
 * scala-switch-load-balancing-stats (docs/records.md). */
#ifndef CTL_RECORDS_H
#define CTL_RECORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ctl_config.h"
#include "net.h"
#include "nic.h"
#include "rec.h"
#include "roce.h"

struct ctl_records;
struct net_topo;
struct port_nic;
struct sw;

/**
 * Open every record @p cfg turns on, in @p dir (which must exist), named DIR/<SimulationName>-<record>-0.csv:
 * uet-transport-stats (nic.EnableTransportStats, default on), nd-stats (simulation.EnableNetDeviceStatLogging,
 * default on), ecn-pfc-stats (simulation.EnablePFCECNStatsLogging, default on), pcie-stats
 * (simulation.EnablePCIeStatsLogging), net-buff-stats (nic.EnableBufferStats and
 * simulation.EnableNetworkBufferStatsReporting, both needed) and uet-monitor (EnableUETMonitor,
 * TriggerLoggingOnRttEnable or TriggerLoggingOnCWindPen).
 * With switches: their ports' rows in nd-stats and ecn-pfc-stats (after the NICs' rows of each time),
 * trimming-stats (switch.PacketTrimmer.TrimmingStatsEnabled with TrimmingEnabled), scala-switch-agg-buff-stats
 * (every switch.SharedBufferManager.BufferStatsReportInterval), scala-switch-buff-stats (the same schedule, with
 * switch.ReportPerPortBufferStats) and scala-switch-load-balancing-stats (switch.EnableLoadBalancingStats,
 * default on).
 * @p hosts are every host's NIC through its model's ops (port_nic.h), cfg->n_hosts of them, index = FEP id: the
 * NICs' rows of nd-stats, ecn-pfc-stats and net-buff-stats; a model's own records (uet-transport-stats,
 * pcie-stats and uet-monitor of UET NICs, roce-transport-stats and roce-rate-events of Scala RoCE NICs) open when
 * a host's NIC is of that model (its typed view, port_nic_uet(), port_nic_roce()). They must be attached to
 * their links (the link rate is read per row) and outlive the records. @p sws are the @p n_sws switches of the generated topology @p topo, switch i
 * being device topo->size.hosts + i, with their ports attached and their routes added; both must outlive the
 * records. @p n_sws 0 or @p topo NULL (an explicit topology): no switch records. @p epoch_s is the UTC time, in
 * seconds since 1970, of sim time 0.
 * Returns the records (possibly with no file open), or NULL with errno set and a message in @p err (size
 * @p errlen): ENOMEM, or the errno of a file that could not be created.
 */
struct ctl_records *ctl_records_open(const struct ctl_config *cfg, const struct port_nic *hosts,
				     struct sw *const *sws, uint32_t n_sws, const struct net_topo *topo,
				     const char *dir, int64_t epoch_s, char *err, size_t errlen);

/** roce_hooks.rate: a row of roce-rate-events (when roce-transport-stats is on). Accepts NULL. */
void ctl_records_roce_rate(struct ctl_records *rc, uint32_t fep_id, uint32_t qpn, uint64_t bps, emu_ps_t now);

/** Rows another module adds to nd-stats (@p ctx its state), written after the NICs' and the switches' rows of
 *  each NDStatsReportInterval, over (@p last, @p now]. */
typedef void (*ctl_records_nd_fn)(void *ctx, struct rec_csv *csv, emu_ps_t now, emu_ps_t last);

/** Add @p fn to nd-stats' rows (one at most; a second replaces it). Nothing when nd-stats is off. NULL accepted. */
void ctl_records_nd_extra(struct ctl_records *rc, ctl_records_nd_fn fn, void *ctx);

/**
 * Time of the next periodic rows, or EMU_PS_NEVER when no periodic record is open: the earliest of
 * k x sim.nd_stats_interval (k = 1, 2, ...) for the NDStatsReportInterval records, j x
 * sim.net_buff_stats_interval for net-buff-stats, the switches' BufferStatsReportInterval (and its samples, every
 * thousandth of it) and LoadBalancingStatsReportInterval, each schedule counting on its own. The run loop, not the
 * scheduler, writes them, so rows never keep a finished run going and the run's end stays the time of the
 * model's last event.
 */
emu_ps_t ctl_records_due(const struct ctl_records *rc);

/**
 * Write the periodic rows of every row time at or before @p t, in time order; at a time both schedules share,
 * each writes its own records. Accepts NULL.
 */
void ctl_records_advance(struct ctl_records *rc, emu_ps_t t);

/**
 * Tell the records when the run is expected to end (its stop time, or the last message's start when it has none),
 * so that the first rows can warn when the records would pass simulation.RecordSizeLimit by then. Accepts NULL.
 */
void ctl_records_expect(struct ctl_records *rc, emu_ps_t end);

/** When the periodic rows stopped at simulation.RecordSizeLimit, or EMU_PS_NEVER (also for NULL). */
emu_ps_t ctl_records_cut_at(const struct ctl_records *rc);

/**
 * nic_hooks.trace for uet-monitor: @p arg is the struct ctl_records (NULL is accepted and ignored). Applies the
 * monitor's filters, triggers and budget, and writes the selected rows. No allocation per row.
 */
void ctl_records_trace(void *arg, const struct nic_trace *tr);

/** Whether nic_env.trace must be set: EnableUETMonitor or one of the two triggers is on. */
bool ctl_records_want_trace(const struct ctl_config *cfg);

/**
 * MPI: write rows only of the devices @p dev_local marks (one byte per device, hosts then switches: those this
 * rank runs; it must outlive the records). NULL: every device.
 */
void ctl_records_local(struct ctl_records *rc, const uint8_t *dev_local);

/**
 * Write each schedule's periodic rows at @p end if @p end is past the last rows it wrote, flush and close every
 * record, and free @p rc. Call before the NICs and the partition are destroyed. Accepts NULL.
 * Returns 0, or -errno of the first record that could not be written completely, named in @p err ("PATH:
 * <strerror>"; @p err may be NULL); such a file is cut after its last whole row.
 */
int ctl_records_close(struct ctl_records *rc, emu_ps_t end, char *err, size_t errlen);

/**
 * Create DIR/<SimulationName>-uet-events-0.csv, the UET NIC's event record (nic.EnableEventLogging), with its
 * header; @p epoch_s as ctl_records_open()'s. Returns it, or NULL with errno set and "DIR: cannot create the
 * uet-events record: <why>" in @p err. Closed with rec_csv_close().
 */
struct rec_csv *ctl_records_events_open(const struct ctl_config *cfg, const char *dir, int64_t epoch_s, char *err,
					size_t errlen);

/** Write the uet-events row of @p ev (a NIC of @p cfg) to @p csv. NULL @p csv: nothing. */
void ctl_records_event(struct rec_csv *csv, const struct ctl_config *cfg, const struct nic_event *ev);

/**
 * Print the columns of record @p record (its Scala name, e.g. "nd-stats") on @p out: its header line, as the
 * record's file has it. NULL @p record: every record, one a line, its name, a space and its header line.
 * Returns 0, or -ENOENT for a record uetemu does not write (nothing printed).
 */
int ctl_records_columns(FILE *out, const char *record);

#endif /* CTL_RECORDS_H */
