/* The global SimulationParameters of a run (Scala names), shared read-only by every device. */
#ifndef EMU_SIM_H
#define EMU_SIM_H

#include <stdbool.h>
#include <stdint.h>

#include "emu_time.h"

struct rec_budget;

/* What a real-time run does when its loop falls more than LagLimit behind (uetemu; ignored in virtual time). */
enum emu_lag_policy {
	EMU_LAG_BESTEFFORT = 0, /* run late events as soon as it can, and measure it */
	EMU_LAG_ABORT,          /* stop the run ("stop": "lag") */
	EMU_LAG_ELASTIC,        /* hold emulated time back, so the models' timing stays consistent */
};

struct emu_sim_params {
	char simulation_name[64];            /* SimulationName: prefix of every record file */
	uint64_t random_seed;                /* RandomSeed, default 18760 */
	uint64_t run_number;                 /* RunNumber (uetemu's name), default 1: seeds flowlet tie-breaks */
	emu_ps_t duration;                   /* SimulationDuration: stop time; 0 = until every message completes */
	emu_ps_t nd_stats_interval;          /* NDStatsReportInterval, default 1 ms */
	bool enable_net_device_stat_logging; /* EnableNetDeviceStatLogging, default true */
	bool enable_pfc_ecn_stats_logging;   /* EnablePFCECNStatsLogging, default true: ecn-pfc-stats */
	bool enable_net_buff_stats;          /* EnableNetworkBufferStatsReporting, default false: net-buff-stats,
	                                        with the NIC's EnableBufferStats */
	emu_ps_t net_buff_stats_interval;    /* NetworkBufferStatsReportingInterval, default 1 ms */
	emu_ps_t beacon_interval;            /* BeaconReportInterval, default 1 ms: the beacon record */
	bool enable_pcie_stats_logging;      /* EnablePCIeStatsLogging, default false: pcie-stats */
	uint64_t time_scale;                 /* TimeScale (uetemu): real time runs this many times slower, default 1 */
	uint64_t record_size_limit;          /* RecordSizeLimit (uetemu): bytes the periodic records may take before
	                                        their rows stop, default 1 GiB; 0 = no limit */
	uint64_t chakra_memory_limit;        /* ChakraMemoryLimit (uetemu): bytes a Chakra traceset may take once
	                                        prepared (expanded), checked before it is, default 2 GiB; 0 = none */
	uint8_t lag_policy;                  /* LagPolicy (uetemu): enum emu_lag_policy, default besteffort */
	emu_ps_t lag_limit;                  /* LagLimit (uetemu): how late the loop may run, default 1 ms */
	uint64_t output_size_limit;          /* OutputSizeLimit (uetemu): bytes every output file of the run may take
	                                        together, default 4 GiB; 0 = no limit */
	uint32_t shard;                      /* the records' shard: the MPI rank writing them (not a config key) */
	struct rec_budget *budget;           /* the run's output budget every writer shares (set by the run, not a
	                                        config key), or NULL */
};

/**
 * Fill @p p with the defaults: name "uetemu", seed 18760, run number 1, duration 0, the three report intervals
 * 1 ms, nd-stats and ecn-pfc-stats on, net-buff-stats and pcie-stats off, time scale 1, record size limit 1 GiB,
 * output size limit 4 GiB, Chakra memory limit 2 GiB, lag policy besteffort with a 1 ms limit.
 */
void emu_sim_defaults(struct emu_sim_params *p);

#endif /* EMU_SIM_H */
