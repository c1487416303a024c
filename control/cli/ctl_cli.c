/* The command line: getopt_long per subcommand, help texts that describe every option, and exit statuses. */
#include "ctl_cli_pvt.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl_config.h"
#include "ctl_conform.h"
#include "ctl_records.h"
#include "ctl_run.h"
#include "emu_units.h"
#include "nic_params.h"
#include "rec.h"
#include "run_mpi.h"
#include "sw_params.h"

#ifndef UETEMU_VERSION
#define UETEMU_VERSION "unknown"
#endif

#define CLI_MAX_SETS 256
/* long options without a short letter (run only): values past every char */
enum { CLI_OPT_METRICS = 256, CLI_OPT_STATS_INTERVAL, CLI_OPT_STATS_OUT, CLI_OPT_PASS_PROFILE, CLI_OPT_TX_THREAD,
       CLI_OPT_STALL_THRESHOLD, CLI_OPT_STALL_BUDGET };

/* What one command line asks for. */
struct cli {
	const char *cmd;
	const char *config;
	const char *sets[CLI_MAX_SETS];
	int n_sets;
	struct ctl_run_opts run;
	bool json;            /* pcap-info --json */
	uint16_t udp_port;    /* pcap-info --udp-port */
	bool out_given;       /* --out was given (rerun's default is DIR/rerun) */
	bool allow_incomplete; /* run --allow-incomplete: work left open at the stop time exits 0 */
	bool strict;          /* run --strict: a real-time run whose timing verdict is invalid exits 11 */
	bool no_preflight;    /* validate --no-preflight: the config's rules only, not this machine's */
	struct ctl_conform_opts conform; /* conform's options */
};

static const char usage_text[] =
	"usage: uetemu COMMAND [OPTIONS]\n"
	"\n"
	"commands:\n"
	"  run CONFIG        run a scenario in virtual time (default) or real time\n"
	"  validate CONFIG   check a config with every rule 'run' applies, report all errors\n"
	"  keys              list every nic, roce_nic and switch key with its type and Scala default\n"
	"  columns [RECORD]  print a record's columns (its header line), or every record's\n"
	"  pcap-info FILE    what a pcap or pcapng capture holds: frames, UET packets by type, PDCs\n"
	"  rerun DIR         re-run a session recorded by 'run --record DIR' in virtual time, and compare\n"
	"  ctl PREFIX CMD    control a running real-time session: post, pause, resume, rate, stop, stats, list\n"
	"  merge DIR         join an MPI run's record shards into the files one process writes\n"
	"  conform           drive a UET endpoint on a DPDK port through UET 1.0 conformance cases\n"
	"  version           print the version (also: uetemu --version)\n"
	"  help [COMMAND]    this text, or a command's options (also: uetemu COMMAND --help)\n"
	"\n"
	"exit status: 0 done as configured, 1 error, 2 usage error, 3 stopped by a signal,\n"
	"             4 a message never completed (a run with no SimulationDuration),\n"
	"             5 a real-time run fell more than simulation.LagLimit behind (LagPolicy abort),\n"
	"             6 a re-run did not reproduce its recorded session,\n"
	"             10 work not done by the stop time (run --allow-incomplete: 0),\n"
	"             11 real-time timing invalid (run --strict only)\n"
	"See 'man uetemu' or docs/uetemu.1.\n";

static const char run_help[] =
	"usage: uetemu run CONFIG [OPTIONS] [-- EAL-ARGS...]\n"
	"\n"
	"Run the scenario CONFIG (YAML). Writes DIR/summary.json, the records DIR/<SimulationName>-<record>-0.csv\n"
	"and the captures DIR/<name>.pcap; prints the summary table on stdout and a progress line on stderr.\n"
	"\n"
	"options:\n"
	"  -m, --mode MODE        virtual (default: deterministic, as fast as the CPU allows) or realtime\n"
	"                         (paced by the TSC, hosts bound to DPDK ports from the config's ports section)\n"
	"  -o, --out DIR          output directory, created with its parents if missing (default: out)\n"
	"  -s, --set PATH=VALUE   override one config key, lists indexed by number, e.g.\n"
	"                         -s applications.0.list.0.bytes=4096; may be given up to 256 times\n"
	"  -q, --quiet            no progress line\n"
	"  -t, --threads N|auto   virtual time: run the config's partitions on N threads (default 1), windows of\n"
	"                         the smallest delay of a link between two of them; every output is the same\n"
	"                         whatever N; auto: as many as the partitions, the free CPUs and the fabric's\n"
	"                         size make worth it (docs/parallel.md)\n"
	"  -P, --partition NAME   real time: run only the devices of partition NAME (the config's partitions);\n"
	"                         the links to the others go through ports bound on both sides (one fabric\n"
	"                         across processes, docs/realtime.md)\n"
	"  -r, --record DIR       real time: record the session into DIR (its config, overrides, seed, and a log of\n"
	"                         every frame that came in or went out with its emulated time and place in the\n"
	"                         loop's order), for 'uetemu rerun DIR'; refused with more than one EAL lcore\n"
	"      --metrics ADDR:PORT\n"
	"                         serve live metrics over HTTP while the run goes on: GET /metrics, the\n"
	"                         Prometheus text format (OpenMetrics when asked); e.g. 127.0.0.1:9464, port 0\n"
	"                         any free one (docs/metrics.md; needs a build with libmicrohttpd)\n"
	"      --stats-interval T a JSON-lines stream, one object per interval T (e.g. 100us) per message or\n"
	"                         ScalaRdma connection and one of the totals: emulated time in virtual time,\n"
	"                         wall time in real time\n"
	"      --stats-out FILE   where the stream goes: FILE, or - for stdout (default DIR/stats.jsonl); cut at\n"
	"                         simulation.RecordSizeLimit bytes (docs/metrics.md)\n"
	"      --pass-profile     real time: time each part of the loop's busy passes (the ports' receive, the\n"
	"                         events, the periodic records, the ports' flush, the writer) and say on stderr\n"
	"                         at the end which part came before each pass late by more than 10 us\n"
	"                         (docs/realtime.md, Lateness)\n"
	"      --tx-thread        real time: the net_af_packet and net_tap ports send from a thread of their own\n"
	"                         on a CPU no lcore runs on (it polls, busy), so the poll loop makes no system\n"
	"                         call to send; scripts/lab gives it (docs/realtime.md, Lateness)\n"
	"      --stall-threshold DUR|off\n"
	"                         real time: a gap between two passes of an lcore's loop longer than DUR (wall\n"
	"                         time) is a stall (the OS took the CPU): the emulated clock is held back by it,\n"
	"                         so the timers due in it do not all fire at once (default: a quarter of the\n"
	"                         smallest retransmit timeout of the config's NICs, times TimeScale); off: stalls\n"
	"                         are counted, the clock jumps over them; one in which no event fell due is\n"
	"                         jumped over either way (docs/realtime.md, Stalls)\n"
	"      --stall-budget P%  real time: hold stalls back while the time held in all stays within P% of the\n"
	"                         wall time run so far (default 50%); past it a stall is charged: the clock jumps\n"
	"  -I, --allow-incomplete exit 0 when work is left open at the stop time (messages not completed, Chakra\n"
	"                         ranks not ended, ScalaRdma pairs or ping-pongs not done, a port that received no\n"
	"                         frame for hosts with work): summary.json \"verdict\" still says so\n"
	"  -S, --strict           real time: exit 11 when the timing verdict is invalid (the loop's lateness p99\n"
	"                         past the smallest retransmission timer; docs/realtime.md, Timing verdict)\n"
	"  -h, --help             this text\n"
	"  -- EAL-ARGS            real time only: DPDK EAL arguments, added to uetemu's defaults\n"
	"                         --no-huge --no-pci -m 256 --file-prefix uetemu-<pid> --log-level=lib.*:warning;\n"
	"                         an option given replaces its default (e.g. -- --file-prefix lab), and\n"
	"                         --huge-dir or --socket-mem drop --no-huge and -m (docs/realtime.md)\n"
	"\n"
	"exit status: 0 the run ended as configured, its work done (or --allow-incomplete); 1 config or run error;\n"
	"2 usage error; 3 stopped by SIGINT or "
	"SIGTERM (summary.json \"stop\": \"signal\"); 4 no SimulationDuration and a message never completed\n"
	"(\"stop\": \"stalled\"), or a Chakra rank never ended (\"stop\": \"incomplete\"); 5 real time with\n"
	"simulation.LagPolicy abort fell more than simulation.LagLimit behind (\"stop\": \"lag\"); 1 also when an\n"
	"output could not be written: the run stops there (\"stop\": \"output_error\"); a second SIGINT or SIGTERM\n"
	"ends it at once with 130; 10 the work was not all done by the stop time (summary.json \"verdict\":\n"
	"{\"work\": \"incomplete\"}; stderr names what is open), unless --allow-incomplete; 11 --strict and the\n"
	"real-time timing verdict is invalid (\"verdict\": {\"timing\": \"invalid\"}). Every file the run writes\n"
	"counts in simulation.OutputSizeLimit (default 4 GiB): past it every output stops at a whole row or record\n"
	"(summary.json \"output_cut\").\n";

static const char validate_help[] =
	"usage: uetemu validate CONFIG [OPTIONS] [-- EAL-ARGS...]\n"
	"\n"
	"Check CONFIG with every rule 'uetemu run' applies in the given mode, without running or writing anything.\n"
	"Reports every error it finds in one pass (up to 20), each as FILE:LINE:COL: KEY.PATH: what is wrong.\n"
	"With --mode realtime it also checks this machine, as the run would meet it (docs/realtime.md, Preflight\n"
	"checks): each port's PMD driver exists in this DPDK build; the interface it attaches to exists (net_af_packet,\n"
	"net_af_xdp, net_pcap iface=; net_tap's iface= is a valid name, free or a tap); uetemu is root or holds the\n"
	"capabilities the PMD needs (CAP_NET_RAW for net_af_packet, CAP_NET_ADMIN for net_tap); the EAL-ARGS'\n"
	"--file-prefix is not held by another process; every data frame fits its port's MTU. A devarg the PMD does\n"
	"not take (a typo like ifcae=) is warned about. 'uetemu run' says the same when a port fails to start.\n"
	"\n"
	"options:\n"
	"  -m, --mode MODE        the mode whose rules apply: virtual (default) or realtime\n"
	"  -s, --set PATH=VALUE   override one config key, as for run\n"
	"  -N, --no-preflight     realtime: check the config only, not this machine (for a config meant for a lab\n"
	"                         elsewhere: its drivers, interfaces, privileges and EAL prefix are not looked at;\n"
	"                         a devarg typo is still warned about)\n"
	"  -h, --help             this text\n"
	"  -- EAL-ARGS            realtime: the EAL arguments the run will get (their --file-prefix is checked)\n"
	"\n"
	"exit status: 0 valid, 1 invalid, 2 usage error.\n";

static const char keys_help[] =
	"usage: uetemu keys\n"
	"\n"
	"Print every nic, roce_nic and switch key, its type and its Scala default, as a Markdown table.\n"
	"\n"
	"options:\n"
	"  -h, --help             this text\n";

static const char columns_help[] =
	"usage: uetemu columns [RECORD]\n"
	"\n"
	"Print the header line of the record RECORD (its Scala name, e.g. nd-stats), its columns in file order; without\n"
	"RECORD, every record uetemu writes from its column table, one a line: its name, a space, its header line.\n"
	"\n"
	"options:\n"
	"  -h, --help             this text\n"
	"\n"
	"exit status: 0 printed; 1 RECORD is not a record uetemu writes; 2 usage error.\n";

static const char pcap_info_help[] =
	"usage: uetemu pcap-info FILE [OPTIONS]\n"
	"\n"
	"Read the capture FILE (pcap, either magic and byte order, or pcapng) and print what it holds: frames,\n"
	"duration, UET packets by type (data, retransmissions, trimmed, ACK, NACK by code, probes, PFC, connection\n"
	"setup), ECN codepoints, frames that do not decode (by reason), parts of the file skipped (by reason), and\n"
	"per PDC its messages, their sizes and completion times (first data frame to the ACK covering the last).\n"
	"\n"
	"options:\n"
	"  -j, --json             print JSON instead of the table (docs/capture.md describes its keys)\n"
	"  -p, --udp-port PORT    the UDP destination port decoded as UET (default 4793)\n"
	"  -h, --help             this text\n"
	"\n"
	"exit status: 0 read (a truncated tail is counted and said on stderr); 1 not a capture, or a file that\n"
	"cannot be read on (the error names the offset); 2 usage error.\n";

static const char rerun_help[] =
	"usage: uetemu rerun DIR [OPTIONS]\n"
	"\n"
	"Re-run the real-time session recorded in DIR ('uetemu run CONFIG --mode realtime --record DIR') in virtual\n"
	"time: the same config, overrides and seed, the frames that arrived from outside delivered where they\n"
	"happened in the loop's order, the port's ARP timers at their recorded wall-clock times. Writes the records,\n"
	"captures (dev captures too) and summary.json into OUT, and its own session log, which it compares with the\n"
	"recorded one: every frame sent, its bytes and its emulated time (docs/replay.md).\n"
	"\n"
	"options:\n"
	"  -o, --out OUT          output directory (default: DIR/rerun)\n"
	"  -q, --quiet            no progress line\n"
	"  -h, --help             this text\n"
	"\n"
	"Every record of the log is checked before the models see it: a time going backwards, past the session's\n"
	"stop time or ahead of its wall clock, a port or a length it cannot have make it \"corrupt\". The re-run\n"
	"stops once its models sent more frames than the log holds. Its outputs count in simulation.OutputSizeLimit.\n"
	"\n"
	"exit status: 0 identical to the session; 6 it differs (the first difference is said, and in summary.json\n"
	"\"rerun\"); 1 DIR is not a session, its log is corrupt, its config no longer loads, or an output could not\n"
	"be written; 12 the log holds nothing to re-run (no pass, or cut before its first frame); 3 stopped by\n"
	"SIGINT or SIGTERM (a second one: 130 at once); 2 usage error.\n";

static const char ctl_help[] =
	"usage: uetemu ctl PREFIX COMMAND [ARGS]\n"
	"\n"
	"Send COMMAND to the real-time run whose EAL runs with --file-prefix PREFIX, through DPDK's telemetry\n"
	"socket (/var/run/dpdk/PREFIX/dpdk_telemetry.v2), and print its JSON answer. Control commands are applied\n"
	"by the poll loop at its next pass and written to the session log (--record), so 'uetemu rerun' applies\n"
	"them at the same point (docs/realtime.md, Control).\n"
	"\n"
	"commands:\n"
	"  post SRC DST SIZE      post a message from host SRC to host DST of SIZE bytes (4096, 64KiB)\n"
	"  pause HOST [MSG]       hold HOST's sending (every traffic class of its NIC's port), or only its\n"
	"                         message MSG's (its number, as 'messages' lists it) while its others go on\n"
	"  resume HOST [MSG]      release it\n"
	"  rate HOST RATE         limit HOST's sending to RATE (10Gbps; 0 or off: no limit): its egress shaper\n"
	"  messages [HOST [FROM]] the run's messages by number (40 from FROM), their state and connection\n"
	"  stop                   stop the run: outputs written, summary.json \"stop\": \"ctl\", the run exits as\n"
	"                         its verdict says (0 when its work was done)\n"
	"  status                 control commands accepted, applied, refused by reason\n"
	"  stats                  the run so far (/uetemu/summary)\n"
	"  hosts [N|NAME], ports, links [N|NAME], lateness   the other read commands\n"
	"  list                   every command the socket answers\n"
	"  /COMMAND [PARAMS]      any telemetry command, as is\n"
	"\n"
	"options:\n"
	"  -h, --help             this text\n"
	"\n"
	"exit status: 0 answered; 1 an error (named: no run with that prefix, an unknown host, a bad size or rate, the\n"
	"command queue full, no answer); 2 usage error.\n";
static const char merge_help[] =
	"usage: uetemu merge DIR --out MERGED\n"
	"\n"
	"Join the record shards an MPI run wrote into DIR ('mpirun -np N uetemu run CONFIG --out DIR': each rank\n"
	"writes <SimulationName>-<record>-<rank>.csv) into the files one process writes, MERGED/<SimulationName>-\n"
	"<record>-0.csv, byte for byte: rows by simulated time, then by device (node_id, or fep_id), each device's rows\n"
	"in its rank's order (uet-monitor rows of one picosecond on two devices: in device order, where one process\n"
	"writes its event order). summary.json (rank 0's: the whole run's) is copied. Captures <name>-<rank>.pcap\n"
	"(.pcapng) are joined into <name>.pcap: frames by timestamp, one timestamp's in rank order, pcapng's\n"
	"statistics summed (docs/parallel.md).\n"
	"\n"
	"options:\n"
	"  -o, --out MERGED       output directory, created if missing; not DIR itself (required)\n"
	"  -h, --help             this text\n"
	"\n"
	"exit status: 0 merged; 1 DIR holds no shards, a shard is missing or is not a record, or a file cannot be\n"
	"written; 2 usage error.\n";

static const char conform_help[] =
	"usage: uetemu conform --dev DEVARGS --dut-ip A.B.C.D --ip A.B.C.D [OPTIONS] [-- EAL-ARGS...]\n"
	"\n"
	"Drive the UET endpoint at --dut-ip (the device under test), reached on the DPDK device DEVARGS, through a\n"
	"table of cases derived from UET 1.0, as a peer initiator would: each case sends its frames, collects the\n"
	"DUT's answers and checks them. Prints pass or FAIL per case with its reason; writes DIR/<case>.pcapng (every\n"
	"frame sent and received during the case) and DIR/conform.json (docs/conform.md).\n"
	"\n"
	"options:\n"
	"  -d, --dev DEVARGS      the DPDK device, e.g. net_af_packet0,iface=eth1 or a PCI address\n"
	"  -D, --dut-ip ADDR      the DUT's IPv4 address\n"
	"  -M, --dut-mac MAC      the DUT's MAC address (default: resolved by ARP)\n"
	"  -i, --ip ADDR          the suite's own IPv4 address (it answers ARP for it)\n"
	"  -a, --mac MAC          the suite's own MAC address (default: the port's)\n"
	"  -o, --out DIR          output directory, created if missing (default: out)\n"
	"  -c, --cases LIST       run only these cases, comma-separated (default: all)\n"
	"  -e, --encap ENCAP      udp (UDP port 4793, default) or native (IPv4 protocol 253)\n"
	"  -w, --wait MS          how long each step waits for the DUT's answers (default 200)\n"
	"  -h, --help             this text, then the cases\n"
	"  -- EAL-ARGS            DPDK EAL arguments, as for 'run'\n"
	"\n"
	"exit status: 0 every case passed; 1 a case failed, or the suite could not run; 2 usage error.\n"
	"\n"
	"cases:\n";

static const char version_help[] =
	"usage: uetemu version   (or uetemu --version, uetemu -V)\n"
	"\n"
	"Print 'uetemu X.Y.Z'.\n";

static const char help_help[] =
	"usage: uetemu help [COMMAND]\n"
	"\n"
	"Print the list of commands, or COMMAND's options.\n";

/* A subcommand: its name, help text, getopt short options and which long options it takes. */
struct cli_cmd {
	const char *name;
	const char *help;
	const char *shortopts;
	int (*fn)(struct cli *c);
};

static int cmd_run(struct cli *c);
/* A config that gives the hosts nothing to do runs idle: accepted, but said (run and validate). */
static void no_app_warning(const struct cli *c, const struct ctl_config *cfg)
{
	if (cfg->n_apps == 0 && cfg->n_replays == 0)
		fprintf(stderr, "uetemu: warning: %s has no applications and no replays: the hosts send nothing%s\n",
			c->config, c->run.mode == CTL_MODE_REALTIME ? " (only frames from the ports cross the fabric)" :
			"; the fabric runs idle to the stop time");
}

static int cmd_validate(struct cli *c);
static int cmd_keys(struct cli *c);
static int cmd_columns(struct cli *c);
static int cmd_pcap_info(struct cli *c);
static int cmd_rerun(struct cli *c);
static int cmd_merge(struct cli *c);
static int cmd_version(struct cli *c);
static int cmd_conform(struct cli *c);
static int cmd_help(struct cli *c);

static const struct cli_cmd cmds[] = {
	{ "run", run_help, ":m:o:s:qr:hP:t:IS", cmd_run },
	{ "validate", validate_help, ":m:s:hN", cmd_validate },
	{ "keys", keys_help, ":h", cmd_keys },
	{ "columns", columns_help, ":h", cmd_columns },
	{ "pcap-info", pcap_info_help, ":jp:h", cmd_pcap_info },
	{ "rerun", rerun_help, ":o:qh", cmd_rerun },
	{ "ctl", ctl_help, ":h", NULL }, /* its own arguments (ctl_cli_ctl.c) */
	{ "merge", merge_help, ":o:h", cmd_merge },
	{ "conform", conform_help, ":d:D:M:i:a:o:c:e:w:h", cmd_conform },
	{ "version", version_help, ":h", cmd_version },
	{ "help", help_help, ":h", cmd_help },
};

static const struct option long_opts[] = {
	{ "mode", required_argument, NULL, 'm' }, { "out", required_argument, NULL, 'o' },
	{ "set", required_argument, NULL, 's' },  { "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },       { "json", no_argument, NULL, 'j' },
	{ "udp-port", required_argument, NULL, 'p' }, { "partition", required_argument, NULL, 'P' },
	{ "record", required_argument, NULL, 'r' }, { "threads", required_argument, NULL, 't' },
	{ "dev", required_argument, NULL, 'd' }, { "dut-ip", required_argument, NULL, 'D' },
	{ "dut-mac", required_argument, NULL, 'M' }, { "ip", required_argument, NULL, 'i' },
	{ "mac", required_argument, NULL, 'a' }, { "cases", required_argument, NULL, 'c' },
	{ "encap", required_argument, NULL, 'e' }, { "wait", required_argument, NULL, 'w' },
	{ "allow-incomplete", no_argument, NULL, 'I' }, { "strict", no_argument, NULL, 'S' },
	{ "no-preflight", no_argument, NULL, 'N' },
	/* long only, run's alone */
	{ "metrics", required_argument, NULL, CLI_OPT_METRICS },
	{ "stats-interval", required_argument, NULL, CLI_OPT_STATS_INTERVAL },
	{ "stats-out", required_argument, NULL, CLI_OPT_STATS_OUT },
	{ "pass-profile", no_argument, NULL, CLI_OPT_PASS_PROFILE },
	{ "tx-thread", no_argument, NULL, CLI_OPT_TX_THREAD },
	{ "stall-threshold", required_argument, NULL, CLI_OPT_STALL_THRESHOLD },
	{ "stall-budget", required_argument, NULL, CLI_OPT_STALL_BUDGET },
	{ NULL, 0, NULL, 0 },
};

static const struct cli_cmd *find_cmd(const char *name)
{
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (strcmp(cmds[i].name, name) == 0)
			return &cmds[i];
	return NULL;
}

static int usage_error(const struct cli_cmd *cmd, const char *fmt, const char *arg)
{
	fputs("uetemu: ", stderr);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry 'uetemu %s%s--help'.\n", cmd != NULL ? cmd->name : "", cmd != NULL ? " " : "");
	return CTL_EXIT_USAGE;
}

/* A UDP port, 1 to 65535, in decimal. 0 or -1. */
static int parse_port(const char *s, uint16_t *out)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (*s < '0' || *s > '9' || *end != '\0' || v < 1 || v > 65535)
		return -1;
	*out = (uint16_t)v;
	return 0;
}

/*
 * Parse the options of @p cmd from @p argc / @p argv (argv[0] the subcommand). Everything after the first "--" is
 * handed to the EAL untouched. Options may come before or after CONFIG. Returns -1 to go on, else an exit
 * status.
 */
static int parse(const struct cli_cmd *cmd, int argc, char **argv, struct cli *c)
{
	int n = 1;

	while (n < argc && strcmp(argv[n], "--") != 0)
		n++;
	if (n < argc) {
		c->run.eal_argc = argc - n - 1;
		c->run.eal_argv = argv + n + 1;
	}
	opterr = 0;
	optind = 1;
	for (;;) {
		/* GNU getopt_long permutes: options may stand before or after CONFIG; operands end up last */
		int o = getopt_long(n, argv, cmd->shortopts, long_opts, NULL);

		if (o == -1)
			break;
		/* long options are shared by every command: one a command does not take is unknown to it */
		if (o != '?' && o != ':' &&
		    (o >= CLI_OPT_METRICS ? cmd->fn != cmd_run : strchr(cmd->shortopts + 1, o) == NULL))
			return usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
		switch (o) {
		case 'h':
			fputs(cmd->help, stdout);
			if (cmd->fn == cmd_conform)
				ctl_conform_list(stdout);
			return CTL_EXIT_OK;
		case 'd':
			c->conform.dev = optarg;
			break;
		case 'D':
			c->conform.dut_ip = optarg;
			break;
		case 'M':
			c->conform.dut_mac = optarg;
			break;
		case 'i':
			c->conform.ip = optarg;
			break;
		case 'a':
			c->conform.mac = optarg;
			break;
		case 'c':
			c->conform.cases = optarg;
			break;
		case 'e':
			c->conform.encap = optarg;
			break;
		case 'w':
			c->conform.wait_ms = optarg;
			break;
		case 'm':
			if (strcmp(optarg, "virtual") == 0)
				c->run.mode = CTL_MODE_VIRTUAL;
			else if (strcmp(optarg, "realtime") == 0)
				c->run.mode = CTL_MODE_REALTIME;
			else
				return usage_error(cmd, "--mode '%s': expected virtual or realtime", optarg);
			break;
		case 'o':
			c->run.out_dir = optarg;
			c->out_given = true;
			break;
		case 'r':
			c->run.record_dir = optarg;
			break;
		case 's':
			if (c->n_sets == CLI_MAX_SETS || strchr(optarg, '=') == NULL)
				return usage_error(cmd, "--set '%s': expected PATH=VALUE", optarg);
			c->sets[c->n_sets++] = optarg;
			break;
		case 'q':
			c->run.progress = 0;
			break;
		case 'I':
			c->allow_incomplete = true;
			break;
		case 'S':
			c->strict = true;
			break;
		case 'N':
			c->no_preflight = true;
			break;
		case 'P':
			c->run.partition = optarg;
			break;
		case 't': {
			char *end;
			unsigned long v = strtoul(optarg, &end, 10);

			if (strcmp(optarg, "auto") == 0) {
				c->run.threads = CTL_THREADS_AUTO;
				break;
			}
			if (*optarg < '0' || *optarg > '9' || *end != '\0' || v < 1 || v > 64)
				return usage_error(cmd, "--threads '%s': expected a number of threads, 1 to 64, or auto",
						   optarg);
			c->run.threads = (uint32_t)v;
			break;
		}
		case 'j':
			c->json = true;
			break;
		case CLI_OPT_METRICS: {
			char e[256];
			int rc = ctl_run_metrics_check(optarg, e, sizeof(e));

			if (rc == -ENOTSUP) {
				fprintf(stderr, "uetemu: %s\n", e);
				return CTL_EXIT_ERROR;
			}
			if (rc < 0)
				return usage_error(cmd, "%s", e);
			c->run.metrics_addr = optarg;
			break;
		}
		case CLI_OPT_STATS_INTERVAL: {
			char e[256];
			emu_ps_t t;

			if (emu_parse_timeval(optarg, &t, e, sizeof(e)) < 0 || t == 0)
				return usage_error(cmd, "--stats-interval '%s': expected a time above 0, e.g. 100us or 1ms",
						   optarg);
			c->run.stats_interval = t;
			break;
		}
		case CLI_OPT_STATS_OUT:
			c->run.stats_out = optarg;
			break;
		case CLI_OPT_PASS_PROFILE:
			c->run.pass_profile = true;
			break;
		case CLI_OPT_TX_THREAD:
			c->run.tx_thread = true;
			break;
		case CLI_OPT_STALL_THRESHOLD: {
			char e[256];
			emu_ps_t t;

			if (strcmp(optarg, "off") == 0) {
				c->run.stall_off = true;
				break;
			}
			if (emu_parse_timeval(optarg, &t, e, sizeof(e)) < 0 || t < EMU_PS_PER_NS)
				return usage_error(cmd, "--stall-threshold '%s': expected a time of 1 ns or more (e.g. 250us) "
						   "or off", optarg);
			c->run.stall_threshold = t;
			c->run.stall_off = false;
			break;
		}
		case CLI_OPT_STALL_BUDGET: {
			char *end;
			unsigned long v = strtoul(optarg, &end, 10);

			if (*optarg < '0' || *optarg > '9' || (*end != '\0' && strcmp(end, "%") != 0) || v > 100)
				return usage_error(cmd, "--stall-budget '%s': expected a share of the wall time, 0%% to "
						   "100%%, e.g. 50%%", optarg);
			c->run.stall_budget_pct = (uint32_t)v;
			c->run.stall_budget_set = true;
			break;
		}
		case 'p':
			if (parse_port(optarg, &c->udp_port) < 0)
				return usage_error(cmd, "--udp-port '%s': expected a port number, 1 to 65535", optarg);
			break;
		case ':':
			return usage_error(cmd, "option '%s' needs a value", argv[optind - 1]);
		default:
			return usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < n)
		c->config = argv[optind++];
	if (optind < n)
		return usage_error(cmd, "unexpected argument '%s'", argv[optind]);
	if (c->run.stats_out != NULL && c->run.stats_interval == 0)
		return usage_error(cmd, "--stats-out needs --stats-interval T%s", "");
	if (c->run.eal_argc > 0 && strcmp(cmd->name, "run") != 0 && strcmp(cmd->name, "conform") != 0 &&
	    strcmp(cmd->name, "validate") != 0)
		return usage_error(cmd, "'--' (EAL arguments) is for 'run', 'validate' and 'conform' only%s", "");
	return -1;
}

/* Print @p err, which may hold several errors, one per line, each as "uetemu: <error>". */
static void print_errors(const char *err)
{
	while (*err != '\0') {
		size_t n = strcspn(err, "\n");

		fprintf(stderr, "uetemu: %.*s\n", (int)n, err);
		err += n + (err[n] == '\n');
	}
}

/*
 * Real RoCEv2 where frames leave on a DPDK port: in real time with ports, the RoCE NIC's RETH and ICRC default to
 * on (a real RDMA device needs both; Wireshark reads a WRITE without its RETH wrongly), unless the config or a --set
 * gives them. They are added as --set overrides, so the session log's sets carry them to a rerun. Returns whether
 * any was added.
 */
static bool realtime_roce(struct cli *c, const struct ctl_config *cfg)
{
	bool added = false;

	if (c->run.mode != CTL_MODE_REALTIME || cfg->nic_model != CTL_NIC_ROCE || cfg->n_ports == 0)
		return false;
	if (!cfg->roce_reth_given && c->n_sets < CLI_MAX_SETS) {
		c->sets[c->n_sets++] = "roce_nic.RoCEEncapsulation.RETH=true";
		added = true;
	}
	if (!cfg->roce_icrc_given && c->n_sets < CLI_MAX_SETS) {
		c->sets[c->n_sets++] = "roce_nic.RoCEEncapsulation.ICRC=true";
		added = true;
	}
	return added;
}

/* Load CONFIG with the --set overrides into @p cfg. Returns -1 when loaded, else the exit status (errors printed). */
static int load(struct cli *c, struct ctl_config *cfg)
{
	char err[8192];

	if (c->config == NULL)
		return usage_error(find_cmd(c->cmd), "missing CONFIG%s", "");
	if (ctl_config_load(cfg, c->config, c->sets, c->n_sets, err, sizeof(err)) < 0) {
		print_errors(err);
		return CTL_EXIT_ERROR;
	}
	if (realtime_roce(c, cfg)) { /* load again with them, so the session's sets (and a rerun) hold them too */
		ctl_config_free(cfg);
		if (ctl_config_load(cfg, c->config, c->sets, c->n_sets, err, sizeof(err)) < 0) {
			print_errors(err);
			return CTL_EXIT_ERROR;
		}
	}
	for (uint32_t i = 0; i < cfg->n_warnings; i++) /* accepted, as on the platform, but said */
		fprintf(stderr, "uetemu: warning: %s\n", cfg->warnings[i]);
	return -1;
}

static int cmd_validate(struct cli *c)
{
	struct ctl_config cfg;
	char err[8192];
	int rc = load(c, &cfg);

	if (rc >= 0)
		return rc;
	no_app_warning(c, &cfg);
	rc = ctl_run_check(&cfg, c->run.mode, err, sizeof(err));
	if (rc < 0)
		print_errors(err);
	/* real time: what the machine would refuse (drivers, interfaces, privileges, the EAL prefix) */
	err[0] = '\0';
	for (uint32_t i = 0; c->run.mode == CTL_MODE_REALTIME && c->no_preflight && i < cfg.n_ports; i++)
		ctl_run_preflight_warn(&cfg, i, "uetemu: "); /* the config's devargs: warned all the same */
	if (c->run.mode == CTL_MODE_REALTIME && !c->no_preflight &&
	    ctl_run_preflight(&cfg, c->run.eal_argc, c->run.eal_argv, "uetemu: ", err, sizeof(err)) < 0) {
		print_errors(err);
		rc = -EINVAL;
	}
	if (rc < 0) {
		ctl_config_free(&cfg);
		return CTL_EXIT_ERROR;
	}
	uint32_t links = cfg.n_links;
	struct net_topo *topo = NULL;

	/* a generated fabric's links are the builder's (cfg.links holds explicit ones only) */
	if (cfg.topo_type == CTL_TOPO_GENERATED && ctl_config_topo_build(&cfg, &topo, err, sizeof(err)) == 0)
		links = topo->size.links;
	net_topo_destroy(topo);
	printf("%s: valid for %s mode (%u hosts, %u links, %u applications, %u ports, %u captures, %u replays)\n",
	       c->config, c->run.mode == CTL_MODE_REALTIME ? "realtime" : "virtual", cfg.n_hosts, links,
	       cfg.n_apps, cfg.n_ports, cfg.n_captures, cfg.n_replays);
	ctl_config_free(&cfg);
	return CTL_EXIT_OK;
}

/* The work verdict's exit (docs/summary.md, verdict): what is open said on stderr, 10 unless --allow-incomplete;
 * then --strict's timing. */
static int verdict_exit(const struct cli *c, const struct ctl_verdict *v)
{
	static const char *const what[CTL_WORK_COUNT] = { "messages not completed", "Chakra ranks not ended",
							  "ScalaRdma pairs with no WQE completed",
							  "ping-pongs short of their iterations",
							  "ports that received no frame for their hosts" };

	if (v->incomplete) {
		fprintf(stderr, "uetemu: %s: the work was not all done by the stop time (summary.json \"verdict\")\n",
			c->allow_incomplete ? "note" : "error");
		for (int k = 0; k < CTL_WORK_COUNT; k++) {
			const struct ctl_work_part *p = &v->part[k];

			if (p->open == 0)
				continue;
			fprintf(stderr, "uetemu:   %u of %u %s:", p->open, p->total, what[k]);
			for (uint32_t i = 0; i < p->open && i < CTL_VERDICT_FIRST; i++)
				fprintf(stderr, "%s %s", i ? ";" : "", p->first[i]);
			if (p->open > CTL_VERDICT_FIRST)
				fprintf(stderr, "; and %u more", p->open - CTL_VERDICT_FIRST);
			fputc('\n', stderr);
		}
		if (!c->allow_incomplete) {
			fprintf(stderr, "uetemu: exit %d; --allow-incomplete accepts a run that stops with work open\n",
				CTL_EXIT_INCOMPLETE);
			return CTL_EXIT_INCOMPLETE;
		}
	}
	if (v->timing == CTL_TIMING_INVALID) {
		fprintf(stderr, "uetemu: %s: real-time timing invalid: %s (summary.json \"verdict\")\n",
			c->strict ? "error" : "warning", v->timing_why);
		if (c->strict)
			return CTL_EXIT_TIMING;
	}
	return CTL_EXIT_OK;
}

static int cmd_run(struct cli *c)
{
	struct ctl_config cfg;
	enum ctl_stop stop = CTL_STOP_COMPLETED;
	struct ctl_verdict v = { 0 };
	char err[8192];
	int rc = load(c, &cfg);

	if (rc >= 0)
		return rc;
	no_app_warning(c, &cfg);
	c->run.verdict = &v;
	c->run.sets = c->sets;
	c->run.n_sets = c->n_sets;
	/* under mpirun each rank runs its share of the partitions and writes its shard of the records */
	if ((rc = run_mpi_init(NULL, NULL, &c->run.rank, &c->run.ranks, err, sizeof(err))) < 0) {
		print_errors(err);
		ctl_config_free(&cfg);
		return CTL_EXIT_ERROR;
	}
	cfg.sim.shard = c->run.rank;
	struct rec_budget budget; /* every output of this process against simulation.OutputSizeLimit */

	rec_budget_init(&budget, cfg.sim.output_size_limit, c->run.quit);
	cfg.sim.budget = &budget;
	if (c->run.rank != 0) /* rank 0 draws the progress line and writes the summary */
		c->run.progress = 0;
	rc = ctl_run(&cfg, &c->run, &stop, err, sizeof(err));
	run_mpi_fini();
	ctl_config_free(&cfg);
	if (rc < 0) {
		print_errors(err);
		return stop == CTL_STOP_SIGNAL ? CTL_EXIT_SIGNAL : CTL_EXIT_ERROR;
	}
	if (stop == CTL_STOP_OUTPUT)
		return CTL_EXIT_ERROR;
	if (stop == CTL_STOP_SIGNAL) {
		fprintf(stderr, "uetemu: stopped by a signal; outputs written so far are complete\n");
		return CTL_EXIT_SIGNAL;
	}
	if (stop == CTL_STOP_CTL)
		fprintf(stderr, "uetemu: stopped by uetemu ctl (stop: ctl); outputs written so far are complete\n");
	if (stop == CTL_STOP_STALLED) {
		fprintf(stderr, "uetemu: the run ended with messages not completed: never posted, or no progress "
				"possible (summary.json messages, stop \"stalled\")\n");
		return CTL_EXIT_STALLED;
	}
	if (stop == CTL_STOP_INCOMPLETE) {
		fprintf(stderr, "uetemu: the run ended with Chakra ranks that did not end: a transfer the NIC refused or "
				"never completed, or the stop time came first (summary.json chakra, stop \"incomplete\")\n");
		return CTL_EXIT_STALLED;
	}
	if (stop == CTL_STOP_PEER_LOST) {
		fprintf(stderr, "uetemu: stopped: another process of this fabric stopped answering on a link between "
				"partitions (the port named above; summary.json ports[].peer, stop \"peer_lost\"); outputs "
				"written so far are complete\n");
		return CTL_EXIT_ERROR;
	}
	if (stop == CTL_STOP_LAG) {
		fprintf(stderr, "uetemu: stopped: the real-time loop fell more than simulation.LagLimit behind "
				"(LagPolicy abort); outputs written so far are complete (summary.json \"realtime\")\n");
		return CTL_EXIT_LAG;
	}
	return verdict_exit(c, &v);
}

/* Print every nic key, its type and its Scala default, as a Markdown table (docs/config.md includes it). */
static int cmd_columns(struct cli *c)
{
	if (ctl_records_columns(stdout, c->config) == 0)
		return CTL_EXIT_OK;
	fprintf(stderr, "uetemu: '%s' is not a record uetemu writes; 'uetemu columns' lists them\n", c->config);
	return CTL_EXIT_ERROR;
}

/* The type of a NIC attribute as the NIC configuration pages name it: their lists are strings ("Attributes of type
 * string that hold a list, such as PoolAllocationVector, hold eight comma-separated entries"), the PCIe transaction
 * layer's buffer sizes are queuesize, the other sizes bytes. */
static const char *keys_type(const struct port_param_def *d)
{
	static const char *const types[] = { "bool", "uint", "double", "datarate", "timeval", "bytes", "string",
					     "string", "string", "string", "string", "string", "string", "string",
					     "datarate (0: off)" };
	static const char *const queuesize[] = { "RXHeaderBufferSize", "TXHeaderBufferSize", "RXDataBufferSize",
						 "TXDataBufferSize" };
	const char *attr = d->path[0];

	for (int k = 1; k < PORT_PARAM_DEPTH && d->path[k] != NULL; k++)
		attr = d->path[k];
	if (d->type >= sizeof(types) / sizeof(types[0]))
		return "?";
	for (size_t i = 0; d->type == PORT_PT_BYTES && i < sizeof(queuesize) / sizeof(queuesize[0]); i++)
		if (strcmp(attr, queuesize[i]) == 0)
			return "queuesize";
	return types[d->type];
}

static int cmd_keys(struct cli *c)
{
	const struct { const char *root; const struct port_param_def *t; unsigned n; } tabs[] = {
		{ "nic", nic_param_table, nic_param_count }, { "roce_nic", roce_param_table, roce_param_count },
	};

	if (c->config != NULL)
		return usage_error(find_cmd("keys"), "unexpected argument '%s'", c->config);
	printf("| key | type | default |\n| --- | --- | --- |\n");
	for (unsigned t = 0; t < 2; t++)
		for (unsigned i = 0; i < tabs[t].n; i++) {
			const struct port_param_def *d = &tabs[t].t[i];
			printf("| `%s", tabs[t].root);
			for (int k = 0; k < PORT_PARAM_DEPTH && d->path[k] != NULL; k++)
				printf(".%s", d->path[k]);
			printf("` | %s%s | `%s` |\n", keys_type(d), d->readonly ? " (read-only)" : "", d->def);
		}
	for (unsigned i = 0; i < sw_param_count; i++) {
		const struct sw_param_def *d = &sw_param_table[i];
		printf("| `switch");
		for (int k = 0; k < SW_PARAM_DEPTH && d->path[k] != NULL; k++)
			printf(".%s", d->path[k]);
		printf("` | %s | `%s` |\n", d->api, d->def);
	}
	return CTL_EXIT_OK;
}

static int cmd_pcap_info(struct cli *c)
{
	if (c->config == NULL)
		return usage_error(find_cmd("pcap-info"), "missing FILE%s", "");
	return ctl_cli_pcap_info(c->config, c->json, c->udp_port ? c->udp_port : WIRE_UDP_PORT_UET);
}

static int cmd_rerun(struct cli *c)
{
	if (c->config == NULL)
		return usage_error(find_cmd("rerun"), "missing DIR%s", "");
	return ctl_cli_rerun(c->config, c->out_given ? c->run.out_dir : NULL, &c->run);
}

static int cmd_merge(struct cli *c)
{
	if (c->config == NULL)
		return usage_error(find_cmd("merge"), "missing DIR%s", "");
	if (!c->out_given)
		return usage_error(find_cmd("merge"), "missing --out MERGED%s", "");
	return ctl_cli_merge(c->config, c->run.out_dir);
}

static int cmd_conform(struct cli *c)
{
	if (c->config != NULL)
		return usage_error(find_cmd("conform"), "unexpected argument '%s'", c->config);
	c->conform.out_dir = c->run.out_dir;
	c->conform.eal_argc = c->run.eal_argc;
	c->conform.eal_argv = c->run.eal_argv;
	c->conform.quit = c->run.quit;
	return ctl_conform(&c->conform);
}

static int cmd_version(struct cli *c)
{
	if (c->config != NULL)
		return usage_error(find_cmd("version"), "unexpected argument '%s'", c->config);
	printf("uetemu %s\n", UETEMU_VERSION);
	return CTL_EXIT_OK;
}

static int cmd_help(struct cli *c)
{
	if (c->config == NULL) {
		fputs(usage_text, stdout);
		return CTL_EXIT_OK;
	}
	const struct cli_cmd *cmd = find_cmd(c->config);

	if (cmd == NULL)
		return usage_error(NULL, "unknown command '%s'", c->config);
	fputs(cmd->help, stdout);
	if (cmd->fn == cmd_conform)
		ctl_conform_list(stdout);
	return CTL_EXIT_OK;
}

int ctl_cli_main(int argc, char **argv, volatile sig_atomic_t *quit)
{
	struct cli c = { .run = { .mode = CTL_MODE_VIRTUAL, .out_dir = "out", .quit = quit, .progress = 1 } };

	if (argc < 2) {
		fputs(usage_text, stderr);
		return CTL_EXIT_USAGE;
	}
	const char *name = argv[1];

	if (strcmp(name, "--version") == 0 || strcmp(name, "-V") == 0)
		name = "version";
	else if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0)
		name = "help";
	const struct cli_cmd *cmd = find_cmd(name);

	if (cmd == NULL) {
		fprintf(stderr, "uetemu: unknown command '%s'\n", argv[1]);
		fputs(usage_text, stderr);
		return CTL_EXIT_USAGE;
	}
	c.cmd = cmd->name;
	if (cmd->fn == NULL)
		return ctl_cli_ctl(argc - 2, argv + 2, cmd->help);
	int rc = parse(cmd, argc - 1, argv + 1, &c);

	return rc >= 0 ? rc : cmd->fn(&c);
}
