/* The flows and stream applications' figures in the report: each flow's ideal FCT and slowdown, summary.json's
 * "flows" member, the table's lines and the flow-fct record (ctl_report_flows.c). */
#ifndef CTL_REPORT_FLOWS_H
#define CTL_REPORT_FLOWS_H

#include <stdint.h>
#include <stdio.h>

#include "ctl_report.h"

struct ctl_report_flows;

/** The figures of @p r's flows and streams into *@p out (NULL when the config has none). 0 or -ENOMEM. @p r must
 *  outlive them. */
int ctl_report_flows_new(const struct ctl_report_in *r, struct ctl_report_flows **out);
void ctl_report_flows_free(struct ctl_report_flows *fl);

/** Message @p i's ideal FCT, ps (0: not known, or not a flow). */
emu_ps_t ctl_report_flows_ideal(const struct ctl_report_flows *fl, uint32_t i);

/** summary.json's "flows" member, with its trailing comma and newline (nothing for NULL). */
void ctl_report_flows_json(FILE *f, const struct ctl_report_flows *fl);
/** The table's line per flows or stream application. */
void ctl_report_flows_print(const struct ctl_report_flows *fl);
/** Write DIR/<SimulationName>-flow-fct-0.csv: 0, or -errno with the file named in @p err. */
int ctl_report_flows_csv(const struct ctl_report_flows *fl, char *err, size_t errlen);

#endif /* CTL_REPORT_FLOWS_H */
