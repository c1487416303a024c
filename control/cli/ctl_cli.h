/* The command line: subcommands (run, validate, keys, version, help), their getopt_long options, help texts and
 * exit statuses. main() only hands over argv and the quit flag its signal handler sets. */
#ifndef CTL_CLI_H
#define CTL_CLI_H

#include <signal.h>

/* Exit statuses (docs/uetemu.1, EXIT STATUS). */
enum ctl_exit {
	CTL_EXIT_OK = 0,        /* done as configured (help and version too) */
	CTL_EXIT_ERROR = 1,     /* a config error, or the run could not start or write its outputs */
	CTL_EXIT_USAGE = 2,     /* a wrong command line */
	CTL_EXIT_SIGNAL = 3,    /* stopped by SIGINT or SIGTERM; outputs written so far are complete */
	CTL_EXIT_STALLED = 4,   /* no duration configured and a message never completed, or a Chakra rank never
				 * ended (stop "incomplete") */
	CTL_EXIT_LAG = 5,       /* real time, LagPolicy abort: the loop fell more than LagLimit behind */
	CTL_EXIT_DIVERGED = 6,  /* uetemu rerun: the re-run did not reproduce its recorded session */
	CTL_EXIT_NO_SESSION = 12, /* uetemu rerun: the session log holds nothing to re-run (no pass; or cut, with no
	                             end record, before its first port frame) */
};

/**
 * Run the command line @p argv (@p argc entries, argv[0] the program). @p quit is the flag the caller's signal
 * handler sets; the run loops poll it. Returns an enum ctl_exit value.
 */
int ctl_cli_main(int argc, char **argv, volatile sig_atomic_t *quit);

#endif /* CTL_CLI_H */
