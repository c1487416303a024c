/* The Scala RDMA application in a run (docs/rdma-app.md): emul/app's app_rdma (placement, pairing, connection setup,
 * the closed loop of WQEs, the beacon's timing) made from the config, and its rdma-perf and beacon records. The run
 * creates it from the config, starts it once the NICs exist, and hands it the NICs' completions and
 * connection-management messages; the report reads its figures. */
#ifndef CTL_RDMA_H
#define CTL_RDMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "app_rdma.h"
#include "ctl_config.h"
#include "net.h"
#include "port_nic.h"
#include "wire.h"

struct ctl_rdma;

/* msg_done cookies with this bit set belong to the ScalaRdma application (connection index below it); the others
 * are the run's own messages. */
#define CTL_RDMA_COOKIE APP_RDMA_COOKIE

/**
 * Place and pair the hosts of @p cfg's ScalaRdma application and compute its timeline. @p cfg must outlive the
 * application. *@p out is NULL when the config has no ScalaRdma application.
 * Returns 0, -EINVAL (placement or timeline impossible: message in @p err, size @p errlen) or -ENOMEM.
 */
int ctl_rdma_create(const struct ctl_config *cfg, struct ctl_rdma **out, char *err, size_t errlen);

/** Scheduler events the application holds at once at most (connection starts and first posts); 0 for NULL. */
uint64_t ctl_rdma_events(const struct ctl_rdma *rd);

/**
 * What host @p host's NIC holds for the application at most: @p pdcs, the PDCs of its connections (a sending PDC
 * for each it initiates, a receiving one for each it answers), and @p wqes, the WQEs of the connections it initiates
 * (NumConnections x MaxPendingWQEs each pair). Both 0 for NULL or a host in no pair.
 */
void ctl_rdma_host_budget(const struct ctl_rdma *rd, uint32_t host, uint64_t *pdcs, uint64_t *wqes);

/** The bytes of the application's doorbell on PCIe, DoorbellPayloadSize + 28 (seed 003, WQEs); 0 for NULL. */
uint64_t ctl_rdma_doorbell_bytes(const struct ctl_rdma *rd);

/** Whether there is an application; its stop time in @p stop. */
bool ctl_rdma_stop(const struct ctl_rdma *rd, emu_ps_t *stop);

/**
 * Bind the application to the hosts' NICs @p hosts (cfg->n_hosts of them, index = FEP id, either model) and to
 * @p np, whose scheduler runs it (both must outlive it), open the rdma-perf and beacon records in @p dir, and
 * schedule every connection's start. Accepts NULL (no application). Returns 0, -ENOSPC (scheduler full) or -errno
 * of a record file, with a message.
 */
int ctl_rdma_start(struct ctl_rdma *rd, const struct port_nic *hosts, struct net_part *np, const char *dir,
		   int64_t epoch_s, char *err, size_t errlen);

/** msg_done of a WQE (@p cookie has CTL_RDMA_COOKIE): its rdma-perf row, then the next WQE. */
void ctl_rdma_done(struct ctl_rdma *rd, uint64_t cookie, emu_ps_t now);

/** A connection-management message from @p src_ip reached host @p host (the NIC's cm_recv hook). Frames that do
 *  not match an outstanding exchange are counted and ignored. */
void ctl_rdma_cm(struct ctl_rdma *rd, uint32_t host, uint32_t src_ip, const struct wire_cm *cm, emu_ps_t now);

/** Close the rdma-perf and beacon records: 0 or -errno, the failure named in @p err. Accepts NULL. */
int ctl_rdma_close(struct ctl_rdma *rd, char *err, size_t errlen);

/** The application's connections (0 for NULL), and connection @p c (false out of range): the stats stream. */
uint32_t ctl_rdma_conns(const struct ctl_rdma *rd);
bool ctl_rdma_conn(const struct ctl_rdma *rd, uint32_t c, struct app_rdma_conn_view *out);
/** WQEs completed so far (the beacon's rx_client), for the progress line; 0 for NULL. */
uint64_t ctl_rdma_wqes_done(const struct ctl_rdma *rd);

/** The summary.json "rdma" member (with its trailing comma); nothing for NULL. */
void ctl_rdma_json(struct ctl_rdma *rd, FILE *f);

/** The application's part of the summary table: per pair goodput, WQE latency percentiles. Nothing for NULL. */
void ctl_rdma_print(struct ctl_rdma *rd, FILE *f);

/** Goodput host @p host received as a Responder: its pairs' goodput_gbps summed (0 for NULL or no pair). */
double ctl_rdma_host_gbps(const struct ctl_rdma *rd, uint32_t host);

/** The application's pairs (initiator, responder); 0 for NULL. */
uint32_t ctl_rdma_pairs(const struct ctl_rdma *rd);

/** Whether pair @p i completed no WQE by the stop (the run's verdict), its hosts in *@p initiator, *@p responder. */
bool ctl_rdma_pair_idle(const struct ctl_rdma *rd, uint32_t i, uint32_t *initiator, uint32_t *responder);

/** Free; accepts NULL. */
void ctl_rdma_destroy(struct ctl_rdma *rd);

#endif /* CTL_RDMA_H */
