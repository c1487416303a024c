/* Defaults of the global SimulationParameters (Scala names). */
#include "emu_sim.h"

#include <string.h>

#include "emu_rng.h"

void emu_sim_defaults(struct emu_sim_params *p)
{
	memset(p, 0, sizeof(*p));
	strcpy(p->simulation_name, "uetemu");
	p->random_seed = EMU_RNG_DEFAULT_SEED;
	p->run_number = 1;
	p->duration = 0; /* run until every message completes */
	p->nd_stats_interval = EMU_PS_PER_MS;
	p->enable_net_device_stat_logging = true;
	p->enable_pfc_ecn_stats_logging = true;
	p->enable_net_buff_stats = false;
	p->net_buff_stats_interval = EMU_PS_PER_MS;
	p->beacon_interval = EMU_PS_PER_MS;
	p->enable_pcie_stats_logging = false;
	p->time_scale = 1;
	p->record_size_limit = 1ULL << 30;
	p->output_size_limit = 4ULL << 30;
	p->chakra_memory_limit = 2ULL << 30;
	p->lag_policy = EMU_LAG_BESTEFFORT;
	p->lag_limit = EMU_PS_PER_MS;
}
