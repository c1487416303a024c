/* The warnings of a loaded config: settings the Scala pages accept, which the run takes, but which leave part of the
 * model idle or work against another part (uet-nic-configuration.md, Configuration rules that stop a simulation:
 * "The validation also warns, without making the configuration invalid, ..."). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ctl_yaml_pvt.h"
#include "nic_params.h"
#include "sw_params.h"

__attribute__((format(printf, 2, 3))) static void warn(struct ctl_config *cfg, const char *fmt, ...)
{
	va_list ap;

	if (cfg->n_warnings >= CTL_WARN_MAX)
		return;
	va_start(ap, fmt);
	vsnprintf(cfg->warnings[cfg->n_warnings++], CTL_WARN_LEN, fmt, ap);
	va_end(ap);
}

/* "nic.A.B.C", the key path of NIC attribute @p d. */
static void nic_key(const struct port_param_def *d, char *out, size_t len)
{
	size_t n = (size_t)snprintf(out, len, "nic");

	for (int k = 0; k < PORT_PARAM_DEPTH && d->path[k] != NULL && n < len; k++)
		n += (size_t)snprintf(out + n, len - n, ".%s", d->path[k]);
}

/* On Scala RoCE NICs: the classes the queue pairs send on need a pool in each buffer they pass through (seed 003,
 * Traffic class on the Scala RoCE NIC; roce buffers page, Egress buffer): without one the NIC never sends them,
 * or the receiver drops them. */
void ctl_warn_roce(struct ctl_config *cfg)
{
	const struct ctl_app *app = cfg->rdma_app >= 0 ? &cfg->apps[cfg->rdma_app] : NULL;
	const struct roce_params *p = &cfg->roce;
	uint32_t tcs[2] = { app != NULL ? app->data_tc : 0, app != NULL ? app->control_tc : 1 };
	static const char *const role[2] = { "data (RdmaDataPacketTC)", "ACKs and NAKs (RdmaControlPacketTC)" };

	for (int k = 0; k < 2; k++) {
		if (roce_pool_bytes(&p->egress, tcs[k]) == 0)
			warn(cfg, "%s: roce_nic.NetworkInterface.EgressBufferManager.PoolAllocationVector: class %u of the %s "
			     "has no transmit pool; the NICs never send it", cfg->path, tcs[k], role[k]);
		if (roce_pool_bytes(&p->ingress, tcs[k]) == 0)
			warn(cfg, "%s: roce_nic.NetworkInterface.IngressBufferManager.PoolAllocationVector: class %u of the "
			     "%s has no receive pool; the NICs drop every one they receive", cfg->path, tcs[k], role[k]);
	}
	uint64_t pool = roce_pool_bytes(&p->egress, tcs[0]);

	if (pool > 0 && pool < (uint64_t)p->mss + ROCE_DATA_OVERHEAD)
		warn(cfg, "%s: roce_nic.NetworkInterface.EgressBufferManager.TotalBufferSize: the transmit pool of class "
		     "%u holds %llu B, less than one data packet (MSS + 58 = %u B); the NICs stop sending data", cfg->path,
		     tcs[0], (unsigned long long)pool, p->mss + ROCE_DATA_OVERHEAD);
}

/* The Chakra workload's configuration page: "Keep UseMaxAsCommCollectiveStartTime at true" (a rule the run honours
 * either way: it changes only the collective records' start times). */
static void chakra_warnings(struct ctl_config *cfg)
{
	if (cfg->chakra_app >= 0 && !cfg->apps[cfg->chakra_app].chakra->use_max_start)
		warn(cfg, "%s: applications.%d.ChakraConfiguration.UseMaxAsCommCollectiveStartTime: false; the collective "
		     "records report each collective's earliest participant start, not the latest (the pages say to keep "
		     "it true)", cfg->path, cfg->chakra_app);
}

void ctl_config_warnings(struct ctl_config *cfg)
{
	chakra_warnings(cfg);
	ctl_config_nic_model(cfg)->warnings(cfg);
}

void ctl_warn_uet(struct ctl_config *cfg)
{
	struct nic_warning w[CTL_WARN_MAX];
	int n = nic_params_warnings(&cfg->nic, w, CTL_WARN_MAX);
	char key[CTL_PATH_MAX];

	for (int i = 0; i < n; i++) {
		nic_key(w[i].why, key, sizeof(key));
		warn(cfg, "%s: %s: %s", cfg->path, key, w[i].text);
	}
	/* Only a generated topology has switches. */
	if (cfg->topo_type == CTL_TOPO_GENERATED && cfg->nic.spraying == NIC_SPRAY_REPS &&
	    cfg->sw.lb_method == SW_LB_FLOWLET)
		warn(cfg, "%s: nic.TransportProcessingLayers.ScalaUETPdsManager.PacketSprayingType: Recycled Entropy "
		     "Packet Spraying with switch.LoadBalancingMethod flowlet; the switches also move flows between "
		     "members at gaps, under the NICs' entropy choices", cfg->path);
}
