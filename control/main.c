/* uetemu's main(): install the signal handlers and hand the command line to control/cli. */
#include <signal.h>
#include <string.h>

#include "ctl_cli.h"

/* The one piece of process-wide state: the quit flag a signal handler can set (as in DPDK's l2fwd). */
static volatile sig_atomic_t quit_flag;

static void on_signal(int sig)
{
	(void)sig;
	quit_flag = 1;
}

int main(int argc, char **argv)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	return ctl_cli_main(argc, argv, &quit_flag);
}
