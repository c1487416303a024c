/* uetemu's main(): install the signal handlers and hand the command line to control/cli. */
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "ctl_cli.h"

/* The one piece of process-wide state: the quit flag a signal handler can set (as in DPDK's l2fwd). */
static volatile sig_atomic_t quit_flag;

/*
 * The first SIGINT or SIGTERM asks the run to stop (exit 3, every output closed whole, summary.json written); a
 * second one ends the process at once with exit 130, what reached the files so far kept (docs/uetemu.1, EXIT
 * STATUS): a way out whatever the run is doing. 2 is the run's own stop (an output could not be written).
 */
static void on_signal(int sig)
{
	(void)sig;
	if (quit_flag == 1)
		_exit(130);
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
