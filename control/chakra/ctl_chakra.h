/* The Chakra workload in a run (docs/chakra.md): the traceset read and prepared before the simulation, ranks placed
 * on servers, each rank replayed by emul/app's app_ck_run, its transfers carried by emul/app's transports over the
 * hosts' NICs (app_chakra_net.h: UET, a PDC per transfer; RoCE, a queue pair reused between two hosts), its records
 * and summary. The run creates it from the config, starts it once the NICs exist and hands it the NICs' reports. */
#ifndef CTL_CHAKRA_H
#define CTL_CHAKRA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "app_chakra_net.h"
#include "ctl_config.h"
#include "net.h"
#include "port_nic.h"
#include "rec.h"

struct ctl_chakra_run;

/* msg_done cookies with this bit set belong to the Chakra workload. */
#define CTL_CHAKRA_COOKIE APP_CK_COOKIE

/**
 * Read, check and prepare the traceset of @p cfg's Chakra application and place its ranks; everything that can be
 * wrong with the traceset or the mapping file is reported here, before the simulation. *@p out is NULL when the
 * config has no Chakra application. Returns 0, -EINVAL (message in @p err naming the file and node) or -ENOMEM.
 */
int ctl_chakra_create(const struct ctl_config *cfg, struct ctl_chakra_run **out, char *err, size_t errlen);

/** Events the workload may hold at once at most (its compute timers); 0 for NULL. */
uint64_t ctl_chakra_events(const struct ctl_chakra_run *ck);

/** Messages host @p host's NIC may have open at once for the workload (its sends to and from it): PDCs of a UET
 *  NIC, queue pairs of a RoCE NIC; 0 for NULL. */
uint64_t ctl_chakra_host_pdcs(const struct ctl_chakra_run *ck, uint32_t host);

/** Whether there is a workload; its stop time (StartTime + WarmUp + RunTime + CoolDown) in @p stop. */
bool ctl_chakra_stop(const struct ctl_chakra_run *ck, emu_ps_t *stop);

/** Once every rank has ended: true, with the run's end (the last rank's end + BeaconReportInterval) in @p end. */
bool ctl_chakra_ended(const struct ctl_chakra_run *ck, emu_ps_t *end);

/**
 * Bind to the hosts' NICs @p hosts (index = host, the model of cfg->nic_model) and @p np; open the Chakra records
 * in @p dir, write the placement records and schedule every rank's start at StartTime. Accepts NULL. Returns 0 or
 * -errno with a message.
 */
int ctl_chakra_start(struct ctl_chakra_run *ck, const struct port_nic *hosts, struct net_part *np, const char *dir,
		     int64_t epoch_s, char *err, size_t errlen);

/** msg_done of a transfer (@p cookie has CTL_CHAKRA_COOKIE), from either NIC: acknowledged at the sender. */
void ctl_chakra_done(struct ctl_chakra_run *ck, uint64_t cookie, emu_ps_t now);

/** msg_sent of a transfer (@p cookie has CTL_CHAKRA_COOKIE), from either NIC: its last byte left the NIC; the
 *  send node finishes. Accepts NULL. */
void ctl_chakra_sent(struct ctl_chakra_run *ck, uint64_t cookie, emu_ps_t now);

/** The RoCE NIC's msg_recv at host @p host: message @p msn of queue pair @p qpn from @p src_ip arrived whole. A
 *  message that names no transfer of the workload exactly (host, queue pair, message number) is counted
 *  (recv_unmatched), never trusted. Accepts NULL (no workload: nothing to do). */
void ctl_chakra_roce_recv(struct ctl_chakra_run *ck, uint32_t host, uint32_t src_ip, uint32_t qpn, uint32_t msn,
			  uint64_t bytes, emu_ps_t now);

/** msg_recv at host @p host: all @p bytes of message @p msg_id from @p src_ip arrived. Unknown ones are counted. */
void ctl_chakra_recv(struct ctl_chakra_run *ck, uint32_t host, uint32_t src_ip, uint64_t msg_id, uint64_t bytes,
		     emu_ps_t now);

/** Write the end-of-run records (ranks still running at @p end, collectives, percentiles, annotated traces) and
 *  close every record: 0 or -errno named in @p err. Accepts NULL. */
int ctl_chakra_close(struct ctl_chakra_run *ck, emu_ps_t end, char *err, size_t errlen);

/** Ranks ended so far (progress line); 0 for NULL. */
uint32_t ctl_chakra_ranks_ended(const struct ctl_chakra_run *ck);

/** The traceset's ranks; 0 for NULL. */
uint32_t ctl_chakra_ranks(const struct ctl_chakra_run *ck);

/** Whether rank @p rank has not ended (the run's verdict), its host in *@p host. false for NULL. */
bool ctl_chakra_rank_open(const struct ctl_chakra_run *ck, uint32_t rank, uint32_t *host);

/** The summary.json "chakra" member (with its trailing comma); nothing for NULL. */
void ctl_chakra_json(const struct ctl_chakra_run *ck, FILE *f);

/** The summary table's Chakra part: per-rank completion times and counts, collectives. Nothing for NULL. */
void ctl_chakra_print(const struct ctl_chakra_run *ck, FILE *f);

/** Whether the run has scale-up groups and ScaleUpStatsEnabled: its ranks in groups have nd-stats rows. */
bool ctl_chakra_su_stats(const struct ctl_chakra_run *ck);

/** The scale-up devices' nd-stats rows of time @p now over (@p last, now] (@p ctx a ctl_chakra_run), in host order,
 *  into @p csv (ctl_records_nd_extra()'s callback). Nothing without groups or ScaleUpStatsEnabled. */
void ctl_chakra_nd_rows(void *ctx, struct rec_csv *csv, emu_ps_t now, emu_ps_t last);

/** Free; accepts NULL. */
void ctl_chakra_destroy(struct ctl_chakra_run *ck);

#endif /* CTL_CHAKRA_H */
