/* What the report's files share: JSON strings, and the verdict (ctl_report_verdict.c). */
#ifndef CTL_REPORT_PVT_H
#define CTL_REPORT_PVT_H

#include <stdio.h>

#include "ctl_report.h"

/** @p s as a JSON string: quotes, backslashes and control characters escaped. */
void ctl_report_json_str(FILE *f, const char *s);

/** The verdict of the run @p r describes, its fabric's counters @p c summed already, into @p v. */
void ctl_report_verdict(const struct ctl_report_in *r, const struct ctl_report_counters *c, struct ctl_verdict *v);
/** summary.json's "verdict" member, with its trailing comma and newline. */
void ctl_report_verdict_json(FILE *f, const struct ctl_report_in *r, const struct ctl_verdict *v);
/** The table's verdict line, and a line per kind of work left open. */
void ctl_report_verdict_print(const struct ctl_report_in *r, const struct ctl_verdict *v);

#endif /* CTL_REPORT_PVT_H */
