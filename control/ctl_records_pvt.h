/* Internals shared by the record files: the uet-monitor writer that ctl_records.c owns. */
#ifndef CTL_RECORDS_PVT_H
#define CTL_RECORDS_PVT_H

#include <stddef.h>
#include <stdint.h>

#include "ctl_config.h"
#include "nic.h"

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

#endif /* CTL_RECORDS_PVT_H */
