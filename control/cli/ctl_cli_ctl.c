/*
 * uetemu ctl PREFIX COMMAND [ARGS]: one command to the real-time run whose EAL has --file-prefix PREFIX, through
 * DPDK's telemetry socket (docs/realtime.md, Control). The socket is DPDK's runtime directory's dpdk_telemetry.v2
 * (/var/run/dpdk/PREFIX as root; else $XDG_RUNTIME_DIR/dpdk/PREFIX, or /tmp/dpdk/PREFIX), a SOCK_SEQPACKET Unix
 * socket: on connecting the client reads one JSON object about the process (max_output_len among it), then each
 * command it sends ("/uetemu/ctl/post,host0,host1,64KiB") gets one JSON answer, printed here as it came.
 */
#include "ctl_cli_pvt.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define CTL_ANSWER_MAX (64 * 1024) /* DPDK cuts an answer at 16 KB (max_output_len) */
#define CTL_CMD_MAX 1024

/* What a COMMAND sends: its telemetry command, and how many ARGS it takes (min, max). */
static const struct ctl_verb {
	const char *verb, *cmd;
	int min, max;
} verbs[] = {
	{ "post", "/uetemu/ctl/post", 3, 3 },   { "pause", "/uetemu/ctl/pause", 1, 2 },
	{ "resume", "/uetemu/ctl/resume", 1, 2 }, { "rate", "/uetemu/ctl/rate", 2, 2 },
	{ "messages", "/uetemu/ctl/messages", 0, 2 }, { "stop", "/uetemu/ctl/stop", 0, 0 },
	{ "status", "/uetemu/ctl/status", 0, 0 }, { "stats", "/uetemu/summary", 0, 0 },
	{ "summary", "/uetemu/summary", 0, 0 },   { "hosts", "/uetemu/hosts", 0, 1 },
	{ "ports", "/uetemu/ports", 0, 0 },       { "links", "/uetemu/links", 0, 1 },
	{ "lateness", "/uetemu/lateness", 0, 0 }, { "list", "/", 0, 0 },
};

static int usage(const char *help, const char *fmt, const char *arg)
{
	fputs("uetemu: ctl: ", stderr);
	fprintf(stderr, fmt, arg);
	fputs("\n", stderr);
	fwrite(help, 1, strcspn(help, "\n") + 1, stderr); /* the usage line; --help gives the rest */
	fputs("see 'uetemu ctl --help'\n", stderr);
	return CTL_EXIT_USAGE;
}

/* DPDK's runtime directory of @p prefix, as the EAL makes it (eal_create_runtime_dir()). */
static void socket_path(const char *prefix, char *out, size_t len)
{
	const char *base = "/var/run", *xdg = getenv("XDG_RUNTIME_DIR");

	if (getuid() != 0)
		base = xdg != NULL && xdg[0] != '\0' ? xdg : "/tmp";
	snprintf(out, len, "%s/dpdk/%s/dpdk_telemetry.v2", base, prefix);
}

/* Send @p cmd on the telemetry socket of @p prefix and read its answer into @p ans. 0 or -1 (said on stderr). */
static int ask(const char *prefix, const char *cmd, char *ans, size_t len)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	char path[PATH_MAX];
	ssize_t n;
	int fd;

	socket_path(prefix, path, sizeof(path));
	if (strlen(path) >= sizeof(sun.sun_path)) {
		fprintf(stderr, "uetemu: ctl: %s: a path too long for a Unix socket\n", path);
		return -1;
	}
	memcpy(sun.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
		int e = errno;

		fprintf(stderr, "uetemu: ctl: %s: %s: no real-time run answers with --file-prefix %s (is it running, "
			"with telemetry, and are you its user?)\n", path, strerror(e), prefix);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	/* the greeting: {"version": ..., "pid": ..., "max_output_len": ...} */
	if ((n = recv(fd, ans, len - 1, 0)) <= 0 || send(fd, cmd, strlen(cmd), 0) < 0 ||
	    (n = recv(fd, ans, len - 1, 0)) <= 0) {
		int e = n == 0 ? ECONNRESET : errno;

		fprintf(stderr, "uetemu: ctl: %s: %s (the run stopped?)\n", path, strerror(e));
		close(fd);
		return -1;
	}
	ans[n] = '\0';
	close(fd);
	return 0;
}

/* The "error" of an answer into @p out, or false when it has none. DPDK writes "key":"value" pairs. */
static bool answer_error(const char *ans, char *out, size_t len)
{
	const char *p = strstr(ans, "\"error\"");
	size_t k = 0;

	if (p == NULL)
		return false;
	p += strlen("\"error\"");
	while (*p == ' ' || *p == ':')
		p++;
	if (*p++ != '"')
		return false;
	for (; *p != '\0' && *p != '"' && k + 1 < len; p++) {
		if (*p == '\\' && p[1] != '\0')
			p++;
		out[k++] = *p;
	}
	out[k] = '\0';
	return true;
}

int ctl_cli_ctl(int argc, char **argv, const char *help)
{
	static char ans[CTL_ANSWER_MAX];
	char cmd[CTL_CMD_MAX], why[512];
	const struct ctl_verb *v = NULL;
	size_t used;

	for (int i = 0; i < argc; i++)
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			fputs(help, stdout);
			return CTL_EXIT_OK;
		}
	if (argc < 2)
		return usage(help, "give PREFIX (the run's --file-prefix) and COMMAND%s", "");
	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]) && v == NULL; i++)
		if (strcmp(verbs[i].verb, argv[1]) == 0)
			v = &verbs[i];
	if (v == NULL && argv[1][0] != '/')
		return usage(help, "unknown command '%s'", argv[1]);
	if (v != NULL && (argc - 2 < v->min || argc - 2 > v->max))
		return usage(help, "wrong number of arguments for '%s'", argv[1]);
	if (v == NULL && argc > 3)
		return usage(help, "a telemetry command takes one PARAMS argument: '%s ...'", argv[1]);
	used = (size_t)snprintf(cmd, sizeof(cmd), "%s", v != NULL ? v->cmd : argv[1]);
	for (int i = 2; i < argc; i++) {
		if (v != NULL && (strchr(argv[i], ',') != NULL || argv[i][0] == '\0'))
			return usage(help, "argument '%s': empty or with a comma (which separates the parameters)",
				     argv[i]);
		used += (size_t)snprintf(cmd + used, used < sizeof(cmd) ? sizeof(cmd) - used : 0, ",%s", argv[i]);
	}
	if (used >= sizeof(cmd))
		return usage(help, "the command is longer than %s bytes", "1023");
	if (ask(argv[0], cmd, ans, sizeof(ans)) < 0)
		return CTL_EXIT_ERROR;
	printf("%s\n", ans);
	if (answer_error(ans, why, sizeof(why))) {
		fprintf(stderr, "uetemu: ctl: %s\n", why);
		return CTL_EXIT_ERROR;
	}
	if (strstr(ans, "\":null}") != NULL || strcmp(ans, "null") == 0) {
		fprintf(stderr, "uetemu: ctl: %s: no answer: the run does not know '%s', or has stopped answering\n",
			argv[1], cmd);
		return CTL_EXIT_ERROR;
	}
	return CTL_EXIT_OK;
}
