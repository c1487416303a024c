/* The Chakra mapping file (docs/chakra.md, Placement and Scale-up groups): rank lines "rank,host" or
 * "rank,host,group,subgroup" place a rank on a host and, with the two more fields, in a scale-up group and one of
 * its subgroups; group lines "group,ID,bandwidth=RATE,switch_latency=TIME,cable_latency=TIME" give a group's
 * bandwidth, per-hop switch latency and NPU cable latency. '#' starts a comment; a header line starting
 * "ChakraId," is skipped. Every bad line is an error naming the file and the line. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ctl_chakra_pvt.h"
#include "emu_units.h"

#define MAP_FIELDS 8
#define MAP_ID_MAX 2147483647ul
#define MAP_GROUP_HELP "a group line is group,ID,bandwidth=RATE,switch_latency=TIME,cable_latency=TIME, " \
	"e.g. group,0,bandwidth=800Gbps,switch_latency=100ns,cable_latency=20ns"

/* What the reader keeps while it reads: where each rank and each host was placed, which lines declared groups. */
struct map_rd {
	struct ctl_chakra_run *k;
	const char *file;
	uint32_t ln;
	uint32_t *rank_line, *host_line; /* line that placed it, 0 none */
	int64_t *rank_gid;               /* the group id a rank line names, -1 none */
	uint32_t *group_line;            /* per declared group: its line */
	char *err;
	size_t errlen;
};

/* The error @p fmt on the current line, as "file:line: message". Returns -EINVAL. */
__attribute__((format(printf, 2, 3))) static int bad(struct map_rd *m, const char *fmt, ...)
{
	char what[320];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(m->err, m->errlen, "%s:%u: %s", m->file, m->ln, what);
	return -EINVAL;
}

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && strchr(" \t\r\n", e[-1]))
		*--e = 0;
	return s;
}

/* Split @p line at commas into at most MAP_FIELDS trimmed fields: their count, or MAP_FIELDS + 1 for more. */
static int split(char *line, char **f)
{
	int n = 0;

	for (char *p = line;; n++) {
		char *c = strchr(p, ',');

		if (n == MAP_FIELDS)
			return MAP_FIELDS + 1;
		if (c)
			*c = 0;
		f[n] = trim(p);
		if (!c)
			return n + 1;
		p = c + 1;
	}
}

/* A whole number 0..max written in decimal digits only. */
static int id_parse(const char *s, unsigned long max, unsigned long *out)
{
	char *end;

	if (!*s || strspn(s, "0123456789") != strlen(s) || strlen(s) > 10)
		return -1;
	*out = strtoul(s, &end, 10);
	return *out <= max ? 0 : -1;
}

static long group_find(const struct ctl_chakra_run *k, unsigned long id)
{
	for (uint32_t g = 0; g < k->n_su_groups; g++)
		if (k->su_group_ids[g] == (int64_t)id)
			return g;
	return -1;
}

static int group_value(struct map_rd *m, const char *gid, char *kv, struct app_ck_su_group *g, int *seen)
{
	static const char *const keys[] = {"bandwidth", "switch_latency", "cable_latency"};
	char *eq = strchr(kv, '=');
	char why[160];
	int i, rc;

	for (i = 0; i < 3; i++)
		if (eq && (size_t)(eq - kv) == strlen(keys[i]) && strncmp(kv, keys[i], strlen(keys[i])) == 0)
			break;
	if (i == 3)
		return bad(m, "group %s: '%s' is not bandwidth=, switch_latency= or cable_latency=; " MAP_GROUP_HELP,
			   gid, kv);
	if (*seen & (1 << i))
		return bad(m, "group %s: %s is given twice", gid, keys[i]);
	*seen |= 1 << i;
	rc = i == 0 ? emu_parse_datarate(trim(eq + 1), &g->bps, why, sizeof(why))
		    : emu_parse_timeval(trim(eq + 1), i == 1 ? &g->switch_lat : &g->cable_lat, why,
					sizeof(why));
	return rc ? bad(m, "group %s: %s: %s", gid, keys[i], why) : 0;
}

static int group_line(struct map_rd *m, char **f, int n)
{
	struct ctl_chakra_run *k = m->k;
	struct app_ck_su_group g = {0};
	unsigned long id;
	int seen = 0;

	if (n != 5)
		return bad(m, "a group line has 5 fields, this one has %s%d; %s", n > MAP_FIELDS ? "more than " : "",
			   n > MAP_FIELDS ? MAP_FIELDS : n, MAP_GROUP_HELP);
	if (id_parse(f[1], MAP_ID_MAX, &id))
		return bad(m, "scale-up group id '%s' is not a whole number 0 to 2147483647", f[1]);
	if (group_find(k, id) >= 0)
		return bad(m, "scale-up group %s is declared twice (first on line %u)", f[1],
			   m->group_line[group_find(k, id)]);
	for (int i = 2; i < 5; i++)
		if (group_value(m, f[1], f[i], &g, &seen))
			return -EINVAL;
	if (k->n_su_groups == k->set.n_ranks + 1)
		return bad(m, "more scale-up groups than ranks (%s); declare only the groups ranks use", f[1]);
	m->group_line[k->n_su_groups] = m->ln;
	k->su_group_ids[k->n_su_groups] = (int64_t)id;
	k->su_groups[k->n_su_groups++] = g;
	return 0;
}

static int rank_line(struct map_rd *m, char **f, int n)
{
	struct ctl_chakra_run *k = m->k;
	unsigned long rank, gid = 0, sub = 0;
	int h;

	if (n != 2 && n != 4)
		return bad(m, "a rank line is rank,host or rank,host,group,subgroup (e.g. 0,host0 or 0,host0,0,1); "
			   "this one has %s%d fields", n > MAP_FIELDS ? "more than " : "",
			   n > MAP_FIELDS ? MAP_FIELDS : n);
	if (id_parse(f[0], MAP_ID_MAX, &rank) || rank >= k->set.n_ranks)
		return bad(m, "rank '%s' is not a rank of the traceset (0 to %u)", f[0], k->set.n_ranks - 1);
	if (m->rank_line[rank])
		return bad(m, "rank %s is placed twice (first on line %u)", f[0], m->rank_line[rank]);
	if ((h = ctl_config_host(k->cfg, f[1])) < 0)
		return bad(m, "host '%s' is not a host of the topology", f[1]);
	if (k->cfg->hosts[h].external)
		return bad(m, "host %s is an external host; ranks run on emulated hosts", f[1]);
	if (m->host_line[h])
		return bad(m, "host %s already has a rank (line %u)", f[1], m->host_line[h]);
	if (n == 4 && id_parse(f[2], MAP_ID_MAX, &gid))
		return bad(m, "scale-up group '%s' is not a whole number 0 to 2147483647", f[2]);
	if (n == 4 && id_parse(f[3], MAP_ID_MAX, &sub))
		return bad(m, "scale-up subgroup '%s' is not a whole number 0 to 2147483647", f[3]);
	k->rank_host[rank] = (uint32_t)h;
	k->host_rank[h] = (int32_t)rank;
	m->rank_line[rank] = m->host_line[h] = m->ln;
	m->rank_gid[rank] = n == 4 ? (int64_t)gid : -1;
	k->rank_sub[rank] = (uint32_t)sub;
	return 0;
}

static int map_line(struct map_rd *m, char *line)
{
	char *hash = strchr(line, '#'), *f[MAP_FIELDS];
	int n;

	if (hash)
		*hash = 0;
	line = trim(line);
	if (!*line || strncmp(line, "ChakraId,", 9) == 0)
		return 0;
	n = split(line, f);
	if (strcmp(f[0], "group") == 0)
		return group_line(m, f, n);
	return rank_line(m, f, n);
}

/* After the last line: every rank placed, every group a rank names declared. */
static int map_check(struct map_rd *m)
{
	struct ctl_chakra_run *k = m->k;
	uint32_t placed = 0;

	for (uint32_t r = 0; r < k->set.n_ranks; r++) {
		placed += m->rank_line[r] != 0;
		k->rank_group[r] = APP_CK_NONE;
		if (m->rank_gid[r] < 0)
			continue;
		long g = group_find(k, (unsigned long)m->rank_gid[r]);

		if (g < 0) {
			m->ln = m->rank_line[r];
			return bad(m, "scale-up group %lld has no group line; %s", (long long)m->rank_gid[r],
				   MAP_GROUP_HELP);
		}
		k->rank_group[r] = (int32_t)g;
		k->su_members++;
	}
	if (placed != k->set.n_ranks) {
		snprintf(m->err, m->errlen, "%s: places %u of the %u ranks; name every rank once", m->file, placed,
			 k->set.n_ranks);
		return -EINVAL;
	}
	return 0;
}

static int map_read(struct map_rd *m, FILE *f)
{
	char line[1024];

	while (fgets(line, sizeof(line), f)) {
		m->ln++;
		if (!strchr(line, '\n') && !feof(f))
			return bad(m, "line longer than 1022 characters");
		if (map_line(m, line))
			return -EINVAL;
	}
	if (ferror(f)) {
		snprintf(m->err, m->errlen, "%s: read error after line %u", m->file, m->ln);
		return -EIO;
	}
	return map_check(m);
}

int ctl_chakra_map_read(struct ctl_chakra_run *k, char *err, size_t errlen)
{
	uint32_t n = k->set.n_ranks;
	struct map_rd m = {.k = k, .file = k->ck->mapping, .err = err, .errlen = errlen};
	FILE *f;
	int rc;

	m.rank_line = calloc(n + 1, sizeof(*m.rank_line));
	m.host_line = calloc(k->cfg->n_hosts + 1, sizeof(*m.host_line));
	m.rank_gid = calloc(n + 1, sizeof(*m.rank_gid));
	m.group_line = calloc(n + 2, sizeof(*m.group_line));
	k->rank_group = calloc(n + 1, sizeof(*k->rank_group));
	k->rank_sub = calloc(n + 1, sizeof(*k->rank_sub));
	k->su_groups = calloc(n + 2, sizeof(*k->su_groups));
	k->su_group_ids = calloc(n + 2, sizeof(*k->su_group_ids));
	rc = !m.rank_line || !m.host_line || !m.rank_gid || !m.group_line || !k->rank_group || !k->rank_sub ||
	     !k->su_groups || !k->su_group_ids ? -ENOMEM : 0;
	if (!rc && !(f = fopen(m.file, "r"))) {
		snprintf(err, errlen, "%s: cannot open the mapping file: %s", m.file, strerror(errno));
		rc = -EINVAL;
	} else if (!rc) {
		rc = map_read(&m, f);
		fclose(f);
	}
	free(m.rank_line), free(m.host_line), free(m.rank_gid), free(m.group_line);
	return rc == -EIO ? -EINVAL : rc;
}
