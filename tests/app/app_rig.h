/* The workload tests' rig: two hosts on one link, both with a Scala UET NIC or both with a Scala RoCE NIC (every
 * parameter at its default), whose reports go to the hooks the test gives; no config. */
#ifndef TESTS_APP_RIG_H
#define TESTS_APP_RIG_H

#include <stdbool.h>
#include <stdint.h>

#include "net.h"
#include "nic.h"
#include "nic_params.h"
#include "port_nic.h"
#include "roce.h"
#include "roce_params.h"

/* Where the NICs' reports go (all optional); host = the NIC's FEP id (0 or 1). */
struct app_rig_hooks {
	void (*done)(void *ctx, uint64_t cookie, emu_ps_t now);
	void (*sent)(void *ctx, uint64_t cookie, emu_ps_t now);
	void (*recv)(void *ctx, uint32_t host, uint32_t src_ip, uint64_t msg_id, uint64_t bytes, emu_ps_t now);
	void (*roce_recv)(void *ctx, uint32_t host, uint32_t src_ip, uint32_t qpn, uint32_t msn, uint64_t bytes,
			  emu_ps_t now);
	void (*cm)(void *ctx, uint32_t host, uint32_t src_ip, const struct wire_cm *cm, emu_ps_t now);
	void *ctx;
};

/* Host 0 (10.0.0.1) on side a of the link, host 1 (10.0.0.2) on side z. nic[] are NULL on RoCE, roce[] on UET;
 * hosts[] are the same NICs behind the host-NIC interface, whichever model. */
struct app_rig {
	struct net_part np;
	struct nic_params up;
	struct roce_params rp;
	struct port_neigh neigh[2];
	uint32_t ip[2];
	struct nic *nic[2];
	struct roce *roce[2];
	struct port_nic hosts[2];
	struct net_link link;
	struct app_rig_hooks h;
};

/** Make the rig with RoCE NICs when @p roce, else UET NICs (criterion asserts that every part was made). */
void app_rig_init(struct app_rig *g, bool roce, const struct app_rig_hooks *h);

/** Run the rig's scheduler until nothing is left or the time passes @p until. */
void app_rig_run(struct app_rig *g, emu_ps_t until);

/** Destroy the NICs and the partition. */
void app_rig_fini(struct app_rig *g);

#endif
