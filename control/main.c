/* uetemu's main(): parse the command line and hand off to validate or run. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl_config.h"
#include "ctl_run.h"
#include "nic_params.h"
#include "sw_params.h"

#define MAX_SETS 256

/* The one piece of process-wide state: the quit flag a signal handler can set (as in DPDK's l2fwd). */
static volatile sig_atomic_t quit_flag;

static void on_signal(int sig)
{
	(void)sig;
	quit_flag = 1;
}

static void usage(FILE *f)
{
	fprintf(f, "usage:\n"
		   "  uetemu run CONFIG [--mode virtual|realtime] [--out DIR] [--set PATH=VALUE]... [--quiet]"
		   " [-- EAL args]\n"
		   "  uetemu validate CONFIG [--set PATH=VALUE]...\n"
		   "  uetemu keys          (every nic and switch key with its type and default)\n"
		   "  uetemu version\n");
}

struct cli {
	const char *config;
	const char *sets[MAX_SETS];
	int n_sets;
	struct ctl_run_opts run;
};

/* Parse the arguments after the subcommand. Returns 0, or 2 after printing what is wrong. */
static int parse_args(int argc, char **argv, struct cli *c)
{
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(a, "--") == 0) {
			c->run.eal_argc = argc - i - 1;
			c->run.eal_argv = argv + i + 1;
			break;
		} else if (strcmp(a, "--mode") == 0 && v != NULL) {
			if (strcmp(v, "virtual") == 0)
				c->run.mode = CTL_MODE_VIRTUAL;
			else if (strcmp(v, "realtime") == 0)
				c->run.mode = CTL_MODE_REALTIME;
			else {
				fprintf(stderr, "uetemu: --mode '%s': expected virtual or realtime\n", v);
				return 2;
			}
			i++;
		} else if (strcmp(a, "--out") == 0 && v != NULL) {
			c->run.out_dir = v;
			i++;
		} else if (strcmp(a, "--set") == 0 && v != NULL) {
			if (c->n_sets == MAX_SETS || strchr(v, '=') == NULL) {
				fprintf(stderr, "uetemu: --set '%s': expected PATH=VALUE\n", v);
				return 2;
			}
			c->sets[c->n_sets++] = v;
			i++;
		} else if (strcmp(a, "--quiet") == 0) {
			c->run.progress = 0;
		} else if (a[0] == '-' || c->config != NULL) {
			fprintf(stderr, "uetemu: unexpected argument '%s'\n", a);
			usage(stderr);
			return 2;
		} else {
			c->config = a;
		}
	}
	if (c->config == NULL) {
		fprintf(stderr, "uetemu: missing CONFIG\n");
		usage(stderr);
		return 2;
	}
	return 0;
}

/* Print every nic key, its type and its Scala default, as a Markdown table (docs/config.md includes it). */
static int cmd_keys(void)
{
	static const char *const types[] = { "bool", "uint", "double", "datarate", "timeval", "bytes", "string",
					     "string", "string", "string", "list", "list", "list" };

	printf("| key | type | default |\n| --- | --- | --- |\n");
	for (unsigned i = 0; i < nic_param_count; i++) {
		const struct nic_param_def *d = &nic_param_table[i];
		printf("| `nic");
		for (int k = 0; k < NIC_PARAM_DEPTH && d->path[k] != NULL; k++)
			printf(".%s", d->path[k]);
		printf("` | %s%s | `%s` |\n", d->type < sizeof(types) / sizeof(types[0]) ? types[d->type] : "?",
		       d->readonly ? " (read-only)" : "", d->def);
	}
	for (unsigned i = 0; i < sw_param_count; i++) {
		const struct sw_param_def *d = &sw_param_table[i];
		printf("| `switch");
		for (int k = 0; k < SW_PARAM_DEPTH && d->path[k] != NULL; k++)
			printf(".%s", d->path[k]);
		printf("` | %s | `%s` |\n", d->api, d->def);
	}
	return 0;
}

static int cmd(const char *sub, struct cli *c)
{
	struct ctl_config cfg;
	char err[1024];
	int rc = ctl_config_load(&cfg, c->config, c->sets, c->n_sets, err, sizeof(err));

	if (rc < 0) {
		fprintf(stderr, "uetemu: %s\n", err);
		return 1;
	}
	if (strcmp(sub, "validate") == 0) {
		printf("%s: valid (%u hosts, %u links, %u applications, %u ports, %u captures)\n", c->config,
		       cfg.n_hosts, cfg.n_links, cfg.n_apps, cfg.n_ports, cfg.n_captures);
		ctl_config_free(&cfg);
		return 0;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	enum ctl_stop stop;
	rc = ctl_run(&cfg, &c->run, &stop, err, sizeof(err));
	ctl_config_free(&cfg);
	if (rc < 0) {
		fprintf(stderr, "uetemu: %s\n", err);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct cli c = { .run = { .mode = CTL_MODE_VIRTUAL, .out_dir = "out", .quit = &quit_flag, .progress = 1 } };

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (strcmp(argv[1], "version") == 0 || strcmp(argv[1], "--version") == 0) {
		printf("uetemu %s\n", UETEMU_VERSION);
		return 0;
	}
	if (strcmp(argv[1], "keys") == 0)
		return cmd_keys();
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "run") != 0 && strcmp(argv[1], "validate") != 0) {
		fprintf(stderr, "uetemu: unknown command '%s'\n", argv[1]);
		usage(stderr);
		return 2;
	}
	int rc = parse_args(argc - 2, argv + 2, &c);
	return rc ? rc : cmd(argv[1], &c);
}
