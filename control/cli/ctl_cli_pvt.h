/* Internals of the command line room: the subcommands that live in their own files. */
#ifndef CTL_CLI_PVT_H
#define CTL_CLI_PVT_H

#include <stdbool.h>
#include <stdint.h>

#include "ctl_cli.h"

/**
 * uetemu pcap-info: read the capture @p path (pcap or pcapng), decoding UDP port @p udp_port as UET, and print
 * what it holds on stdout, as a table or as JSON (@p json). Returns CTL_EXIT_OK, or CTL_EXIT_ERROR with the error
 * on stderr (a file that cannot be opened, is no capture, or cannot be read on).
 */
int ctl_cli_pcap_info(const char *path, bool json, uint16_t udp_port);

struct ctl_run_opts;

/**
 * uetemu rerun: load the config and overrides a real-time run saved in @p dir (run --record), re-run the session
 * in virtual time into @p out (NULL: DIR/rerun) with the options of @p base (quit flag, progress), and compare its
 * session log with the recorded one. Returns CTL_EXIT_OK (identical), CTL_EXIT_DIVERGED, or CTL_EXIT_ERROR.
 */
int ctl_cli_rerun(const char *dir, const char *out, const struct ctl_run_opts *base);

/**
 * uetemu ctl: send COMMAND (@p argv[1], with ARGS after it) to the telemetry socket of the run with --file-prefix
 * @p argv[0] and print the answer; @p help on -h. Returns CTL_EXIT_OK, CTL_EXIT_ERROR (the error said), or
 * CTL_EXIT_USAGE.
 */
int ctl_cli_ctl(int argc, char **argv, const char *help);

/*
 * uetemu merge: join the record shards of an MPI run in @p dir (<SimulationName>-<record>-<rank>.csv) into the
 * files one process writes, @p out/<SimulationName>-<record>-0.csv (rows by time, then device), and copy
 * summary.json. Returns CTL_EXIT_OK, or CTL_EXIT_ERROR with the error on stderr.
 */
int ctl_cli_merge(const char *dir, const char *out);

#endif /* CTL_CLI_PVT_H */
