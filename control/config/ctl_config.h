/* A scenario config: YAML loaded, validated against the Scala names, overridden by --set, into immutable structs. */
#ifndef CTL_CONFIG_H
#define CTL_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "app_chakra.h"
#include "app_timeline.h"
#include "emu_sim.h"
#include "emu_time.h"
#include "net_topo.h"
#include "nic_params.h"
#include "roce_params.h"
#include "sw_params.h"

#define CTL_NAME_MAX 32
#define CTL_DEV_MAX 256
#define CTL_FAULTS_MAX 64 /* topology.faults: kept in struct ctl_config, so ctl_config_free() has nothing to free */
#define CTL_WARN_MAX 8
#define CTL_WARN_LEN 512

/** topology.hosts[i]: an emulated host with its Scala UET NIC. */
struct ctl_host {
	char name[CTL_NAME_MAX];   /* name, unique */
	uint32_t ip;               /* ip, dotted IPv4, host byte order; unique */
	uint8_t mac[6];            /* mac, "02:00:00:00:00:01"; default 02:00:00:00:<index+1 as 16 bits> */
	bool mac_static;           /* mac was given: a host on a real port sends to it without ARP */
	bool has_prefix;           /* ip was written with a prefix length, "10.1.0.1/24" */
	uint8_t prefix_len;        /* that length, 0..32 (real time: the on-link subnet of a host on a port) */
	uint32_t gateway;          /* gateway, IPv4, host byte order; 0 = none (real time: next hop off the subnet) */
	/* Generated fabric with a switch at the other end of the host's link: that switch port's MAC, the gateway the
	 * NIC addresses its frames to. has_gw is false for a pair and for an explicit topology (peer's MAC). */
	bool has_gw;
	uint8_t gw_mac[6];
	/* Generated fabric only, topology.hosts[].external: no emulated NIC behind this host's switch port, which a
	 * real device faces through a DPDK port (ports[].attach "tor0:3"); the switches route to it as to any host,
	 * addressing it at mac (the device's). */
	bool external;
	/* profile: a peer profile for this host's NIC (enum nic_profile), over nic.PeerProfile; has_profile false:
	 * nic.PeerProfile's (docs/wire.md, Peer profiles) */
	bool has_profile;
	uint8_t profile;
};

/** topology.links[i].impair[j]: a test fixture acting on one data frame of one direction. */
struct ctl_impair {
	uint32_t from;             /* from: the sending host (a or b of the link), resolved */
	uint64_t data_frame;       /* data_frame: the nth data frame it sends on the link, from 1, retransmissions included */
	uint8_t action;            /* action: trim | trim_last_hop | drop | delay (enum net_impair_action order) */
	emu_ps_t delay;            /* delay: extra latency for action delay */
};

/** topology.links[i]: a point-to-point link between two host NICs (switch ports come with the switch issue). */
struct ctl_link {
	char name[CTL_NAME_MAX];   /* name, unique */
	uint32_t a, b;             /* a, b: host names, resolved to indexes into hosts[]; a != b */
	uint64_t data_rate_bps;    /* DataRate, optional; 0 = the lower of the two NICs' DataRate */
	emu_ps_t delay_ps;         /* Delay, optional; EMU_PS_NEVER = the NIC's Delay */
	struct ctl_impair *impair; /* impair: owned */
	uint32_t n_impair;
};

/** topology.type: the explicit hosts and links, or a fabric the builder generates (topo_spec). */
enum ctl_topo_type { CTL_TOPO_EXPLICIT = 0, CTL_TOPO_GENERATED };

enum ctl_fault_kind { CTL_FAULT_DOWN = 0, CTL_FAULT_LOSS };

/** topology.faults[i]: a link taken down (and up again) at given times, or losing frames at random. */
struct ctl_fault {
	uint32_t link;             /* link: name resolved to an index into links[] (explicit) or the links of the
				    * generated topology (ctl_config_topo_build()) */
	uint8_t kind;              /* CTL_FAULT_DOWN (down, up) or CTL_FAULT_LOSS (loss) */
	emu_ps_t down;             /* down: time the link goes down, both directions */
	emu_ps_t up;               /* up: time it comes back; EMU_PS_NEVER = it stays down */
	uint32_t loss_ppm;         /* loss: probability that a frame entering the link is lost, 1 to 1,000,000 ppm */
};

/** One message of a `messages` application. */
struct ctl_message {
	uint32_t src, dst;         /* src, dst: host names resolved to indexes; src != dst */
	uint64_t bytes;            /* bytes: size, a number or a size with unit (1MiB); 0 allowed */
	emu_ps_t start;            /* start: time the host rings the doorbell (timeval, default 0) */
};

enum ctl_app_type { CTL_APP_MESSAGES = 0, CTL_APP_SCALA_RDMA, CTL_APP_CHAKRA, CTL_APP_PINGPONG, CTL_APP_FLOWS,
		    CTL_APP_STREAM };

/** applications[i] of type flows or stream (docs/config.md, ctl_config_flows.c): the generator's keys, and what it
 *  generated into the application's list (its messages). */
struct ctl_flows {
	char cdf[512];             /* flows: cdf, the size distribution's file (relative: to the config) */
	uint32_t load_ppm;         /* flows: load, share of each sender's link, parts per million */
	uint8_t pattern;           /* flows: pattern, enum app_flows_pattern */
	uint32_t receiver;         /* flows, incast: receiver (host) */
	uint32_t senders;          /* flows, incast: senders, default every other host */
	uint32_t rack_local_ppm;   /* flows, uniform: rack_local, share of flows inside the sender's rack */
	uint32_t strata;           /* flows: strata, default 0 (a host's whole run) */
	uint64_t seed;             /* seed, default simulation.RandomSeed */
	bool seed_given, senders_given, rack_local_given, stop_given;
	emu_ps_t start, stop;      /* start (default 0), stop (flows: optional with count; stream: required) */
	uint64_t count;            /* flows: count, flows per sender (0: none) */
	uint32_t src, dst;         /* stream: src, dst */
	uint64_t size;             /* stream: size, bytes per message */
	uint64_t bps, pps;         /* stream: rate (bit/s) or pps */
	emu_ps_t on, off;          /* stream: on/off periods (0 0: always on) */
	/* generated */
	uint64_t host_bps;         /* the senders' link rate the load is a share of */
	uint64_t bytes;            /* bytes of the generated messages */
	uint32_t n_senders;        /* hosts that send */
	emu_ps_t window_ps;        /* sum of the senders' generation windows */
	uint32_t offered_ppm;      /* bytes x 8 / (host_bps x window_ps), parts per million */
};

#define CTL_PP_MAX 16 /* applications of type pingpong and responder */

/** applications[i] of type pingpong or responder (docs/pingpong.md). */
struct ctl_pingpong {
	bool responder;        /* type responder: server only, answering any sender */
	uint32_t client;       /* client: a host (pingpong) */
	uint32_t server;       /* server: a host */
	uint64_t size;         /* size: the request's bytes, default 4096 (pingpong) */
	uint64_t reply;        /* reply: the reply's bytes, default size (responder: 4096) */
	uint64_t iterations;   /* iterations: round trips, default 100 (pingpong) */
	emu_ps_t start;        /* start: the first request's post, default 0 */
};

/** A Chakra application (docs/chakra.md): its traceset and the ChakraConfiguration attributes. */
struct ctl_chakra {
	char traceset[512];            /* Traceset: the directory of <prefix>.<rank>.et files (relative: to the config) */
	char mapping[512];             /* MappingFile: rank placement CSV (relative: to the config); "" for none */
	uint32_t logical_group;        /* LogicalGroupId, must be 0 */
	uint32_t num_files;            /* NumOfChakraFiles 1..4096: must equal the servers and the traceset's ranks;
	                                * not given: 256 (the page's default) until the traceset is read, whose
	                                * rank count it then becomes (as attaching a traceset sets it) */
	bool num_files_given;
	bool use_mapping;              /* UseMapping, default true (without a mapping file ranks go in order) */
	bool use_max_start;            /* UseMaxAsCommCollectiveStartTime, default true: a collective's start is its
	                                * latest participant's first transfer; false: its earliest's (a warning) */
	struct app_ck_prep_cfg prep;   /* the algorithms, ordering, AbortOnChakraWarning, Max...Warnings, Scaling */
	uint8_t trace_family;          /* TraceFamily: enum ctl_chakra_family, default synthesized */
	bool in_mem_compression;       /* InMemoryTraceCompression, default true (accepted; traces are held whole) */
	bool profiling;                /* ProfilingEnabled, default false */
	emu_ps_t profiling_interval;   /* ProfilingInterval, default 0.001 s, above 0 */
	uint64_t su_header;            /* ScaleUpHeaderSize, default 24 B, at most 64 MiB */
	uint64_t su_max_payload;       /* ScaleUpMaxPayloadSize, default 4096 B, 1 B to 64 MiB */
	bool su_stats;                 /* ScaleUpStatsEnabled, default false */
};

enum ctl_chakra_family { CTL_CHAKRA_SYNTHESIZED = 0, CTL_CHAKRA_COMPILED, CTL_CHAKRA_COLLECTED };

/** applications[i]. */
struct ctl_app {
	uint8_t type;                  /* type: "messages" or "ScalaRdma" */
	struct ctl_message *list;      /* messages: list, owned */
	uint32_t n_list;
	/* ScalaRdma (spec seeds/003): the Initiator's and the Responder's attributes. */
	uint32_t pr_initiator;         /* prScalaRdmaInitiator, parts per billion; default 0.5 (alone) */
	uint32_t pr_responder;         /* prScalaRdmaResponder, parts per billion; default 0.5 (alone) */
	uint32_t num_connections;      /* NumConnections, 1..1024, default 1: connections per pair */
	uint32_t max_pending;          /* MaxPendingWQEs, default 10: WQEs outstanding per connection */
	uint8_t start_type;            /* StartType: enum app_start, default simultaneous */
	uint8_t data_tc;               /* RdmaDataPacketTC 0..7, default 0 (validated; see docs/rdma-app.md) */
	uint8_t control_tc;            /* RdmaControlPacketTC 0..7, default 1 (validated; see docs/rdma-app.md) */
	uint32_t doorbell_payload;     /* DoorbellPayloadSize, bytes, default 64: each WQE's doorbell over PCIe */
	struct ctl_chakra *chakra;     /* type Chakra: its attributes, owned */
	struct ctl_flows *flows;       /* type flows or stream: its keys and figures, owned; list holds its messages */
};

#define CTL_PORT_HOSTS_MAX 64 /* hosts sharing one port (ports[i].attach as a list) */
#define CTL_PORT_NEIGH_MACS_MAX 64 /* ports[i].neighbour_macs entries at most */

/** ports[i].neighbour_macs[k]: a neighbour's MAC address, given for its IPv4 address. */
struct ctl_port_neigh {
	uint32_t ip;
	uint8_t mac[6];
};

/** ports[i]: bind hosts' NIC links to a DPDK port in real time. */
struct ctl_port {
	uint32_t hosts[CTL_PORT_HOSTS_MAX]; /* attach: a host name or a list of them, resolved; each host once */
	uint32_t n_hosts;
	char dev[CTL_DEV_MAX];     /* dev: DPDK devargs, e.g. "net_tap0,iface=uet0" */
	uint32_t gateway;          /* gateway, IPv4; 0 = none: the next hop of its hosts that have no gateway */
	bool tx_copy;              /* tx: "copy" copies every frame; "zerocopy" (default) attaches payloads where the
	                            * port's PMD allows it (docs/realtime.md, Zero-copy TX) */
	/* attach: "DEVICE:PORT", a switch port of a generated fabric (n_hosts 0): the port's link goes to the DPDK
	 * port, and to the external host it faces behind it. */
	bool sw;
	uint32_t sw_dev, sw_port;  /* the switch's device index in the topology, and its port */
	uint32_t sw_host;          /* the external host the switch port faces, or UINT32_MAX when it faces a switch
	                            * of another partition (a fabric split across processes) */
	uint32_t sw_peer;          /* the device the switch port faces: sw_host, or that switch */
	uint32_t sw_link;          /* that link's index in the topology */
	int8_t xdp_steering;       /* xdp_steering: 1 true, 0 false, -1 not given (then on for a net_af_xdp dev
	                            * when the steering object is found) */
	uint16_t vlan;             /* vlan: 802.1Q VLAN id 1..4094 of the port's frames, PCP = traffic class; 0 none */
	uint8_t rx_csum;           /* rx_csum: enum wire_csum_mode of the UDP checksums it takes; default offload
	                            * (partial checksums of a Linux sender's TX offload taken and counted) */
	uint32_t mtu;              /* mtu: the IP MTU of the port's link, 68..9202 B; 0 not given (then the kernel
	                            * interface's, for a dev with iface=) */
	/* neighbours: static: the port's neighbours (next hops) come from the config only, never from ARP: the
	 * hosts' mac: of the other ports and neighbour_macs (docs/realtime.md, Static neighbours). */
	bool neigh_static;
	struct ctl_port_neigh neigh_macs[CTL_PORT_NEIGH_MACS_MAX]; /* neighbour_macs: [{ip, mac}], each ip once */
	uint32_t n_neigh_macs;
	/* peer_timeout: a port facing a switch of another process (--partition): that process is taken for gone
	 * when nothing has come from it for this long past its next hello (wall clock; docs/realtime.md, When a
	 * peer fails); CTL_PORT_PEER_TIMEOUT_PS when not given, 0 never */
	emu_ps_t peer_timeout;
	bool peer_timeout_given;
};

/** The default peer_timeout: 5 s of wall clock. */
#define CTL_PORT_PEER_TIMEOUT_PS (5 * EMU_PS_PER_S)

/** Bounds of a port's mtu: (IPv4's minimum, and the 9,216 B frame cap less the Ethernet header). */
#define CTL_PORT_MTU_MIN 68
#define CTL_PORT_MTU_MAX 9202

#define CTL_PARTS_MAX 64           /* partitions: entries at most */
#define CTL_PART_NONE UINT32_MAX   /* a device in no partition (while reading the section) */

/** partitions[i]: devices that run together (docs/config.md, partitions). */
struct ctl_part {
	char name[CTL_NAME_MAX];
};

/** Which key of a capture names its capture point. */
enum ctl_cap_point { CTL_CAP_LINK = 0, CTL_CAP_PORT, CTL_CAP_DEV };

#define CTL_FILTER_MAX 1024

/** captures[i] (docs/capture.md). */
struct ctl_capture {
	char name[CTL_NAME_MAX];   /* name: output files DIR/<name>.pcap (or .pcapng), DIR/<name>-1.pcap...; unique */
	uint8_t point;             /* enum ctl_cap_point: link, port or dev, exactly one */
	uint32_t link;             /* link: link name resolved; port: the link on that device port */
	uint8_t end;               /* port: which end of its link the device port is (0: a, 1: b) */
	char port[CTL_NAME_MAX];   /* port: "DEVICE:INDEX" of a generated topology, e.g. "leaf0:5" */
	uint32_t dev;              /* dev: index into ports[] (real time) */
	uint8_t format;            /* format: enum cap_format (pcap, pcapng); default capture_defaults.format */
	char filter[CTL_FILTER_MAX]; /* filter: a BPF expression (compiled by libpcap at load), "" for none */
	uint32_t snaplen;          /* snaplen: 1..65535 bytes kept of each frame; default capture_defaults.snaplen */
	uint64_t max_frames;       /* max_frames: frames per file, 0 = no limit */
	uint64_t max_bytes;        /* max_bytes: bytes per file (a size), 0 = no limit */
	uint32_t rotate;           /* rotate: files in the ring (2..1000); 0 = one file, cut at the limit */
	bool has_epoch;            /* epoch given here or in capture_defaults */
	int64_t epoch_ns;          /* epoch: ns since 1970; default the records' epoch (virtual), the wall clock (real) */
};

/** capture_defaults: what every capture takes unless it says otherwise. */
struct ctl_capture_defaults {
	uint8_t format;            /* format: pcap (the default) or pcapng */
	uint32_t snaplen;          /* snaplen: default 65535 */
	bool has_epoch;
	int64_t epoch_ns;          /* epoch */
};

/** Where a replay's frames go. */
enum ctl_replay_point { CTL_REPLAY_PORT = 0, CTL_REPLAY_HOST, CTL_REPLAY_DEV };

/** How a replay spaces its frames. */
enum ctl_replay_pace { CTL_REPLAY_TIMING = 0, CTL_REPLAY_FPS, CTL_REPLAY_BPS };

#define CTL_REPLAY_MAP_MAX 16 /* rewrite.mac and rewrite.ip entries at most */
#define CTL_PATH_LEN 512

/** replay[i] (docs/replay.md): a capture's frames injected into a device port, a host or a DPDK port. */
struct ctl_replay {
	char name[CTL_NAME_MAX];   /* name: in summary.json; default "replay<i>" */
	char file[CTL_PATH_LEN];   /* file: a pcap or pcapng capture (read with uetemu's reader) */
	uint16_t file_dir;         /* leading bytes of file that are the config file's folder (a relative file: written
	                            * in the config is taken from there), 0 when none was prepended */
	uint8_t point;             /* enum ctl_replay_point: port, host or dev, exactly one */
	uint32_t link;             /* port, host: the link whose direction into the device carries the frames */
	uint8_t end;               /* ... and which end of it the device is (0: a, 1: b) */
	char to[CTL_DEV_MAX];      /* what port, host or dev said, for messages */
	uint32_t dev;              /* dev: index into ports[] (real time) */
	uint8_t pace;              /* enum ctl_replay_pace: the capture's timing (speed), or rate */
	uint64_t speed_ppm;        /* speed x 10^6: 1,000,000 = the capture's own timing; 2,000,000 twice as fast */
	uint64_t rate;             /* rate: frames per second (FPS) or bit/s (BPS, frames back to back at that rate) */
	uint64_t loop;             /* loop: times the capture is played, default 1 */
	emu_ps_t start;            /* start: emulated time of the first frame, default 0 */
	char filter[CTL_FILTER_MAX]; /* filter: BPF expression selecting the frames played, "" for all */
	uint8_t mac_from[CTL_REPLAY_MAP_MAX][6], mac_to[CTL_REPLAY_MAP_MAX][6]; /* rewrite.mac */
	uint32_t n_mac;
	uint32_t ip_from[CTL_REPLAY_MAP_MAX], ip_to[CTL_REPLAY_MAP_MAX];         /* rewrite.ip, host byte order */
	uint32_t n_ip;
};

/** The whole config. Everything is owned by it; free with ctl_config_free(). */
/* The NIC model a config places on its hosts (server.nic, the platform's modelId). */
enum ctl_nic_model { CTL_NIC_UET = 0, CTL_NIC_ROCE, CTL_NIC_MODEL_COUNT };

struct ctl_config {
	char path[256];
	struct emu_sim_params sim;     /* simulation */
	struct app_timeline_params timeline; /* simulation: StartTime, ClientStartOffset, ClientStartInterval, WarmUp,
					      * RunTime, CoolDown (the ScalaRdma run timeline) */
	emu_ps_t record_start;         /* simulation.RecordStartTime (uetemu): where the NICs' periodic records
					* start (ctl_config_record_start()); meaningful when record_start_set */
	bool record_start_set;         /* RecordStartTime given */
	int32_t rdma_app;              /* index of the ScalaRdma application in apps[], or -1 */
	int32_t chakra_app;            /* index of the Chakra application in apps[], or -1 */
	struct ctl_host *hosts;        /* topology.hosts; generated: host0.. with the builder's IPs and MACs */
	uint32_t n_hosts;
	struct ctl_link *links;        /* topology.links (explicit only; a generated topology has none here) */
	uint32_t n_links;
	uint8_t topo_type;             /* topology.type: CTL_TOPO_EXPLICIT or CTL_TOPO_GENERATED */
	struct net_topo_spec topo_spec; /* generated: the builder's input; bps[0] and delay[0] are 0 here, the host
					 * tier being the NIC's DataRate and Delay: build with ctl_config_topo_build() */
	struct ctl_fault faults[CTL_FAULTS_MAX]; /* topology.faults */
	uint32_t n_faults;
	uint8_t nic_model;             /* server.nic: enum ctl_nic_model, the NIC model of every host */
	uint64_t mtu;                  /* simulation.Mtu: the global link MTU the RoCE NIC's MSS is checked against */
	bool enable_roce_transport_stats; /* simulation.EnableRoceTransportStats: roce-transport-stats, default true */
	struct nic_params nic;         /* nic: the Scala UET NIC's attributes, for every host's NIC */
	struct roce_params roce;       /* roce_nic: the Scala RoCE NIC's attributes, for every host's NIC */
	bool roce_reth_given;          /* roce_nic.RoCEEncapsulation.RETH was given (file or --set) */
	bool roce_icrc_given;          /* roce_nic.RoCEEncapsulation.ICRC was given */
	struct sw_params sw;           /* switch: applies to every switch (Scala Switch typedParameters) */
	struct ctl_app *apps;          /* applications */
	uint32_t n_apps;
	struct ctl_pingpong pps[CTL_PP_MAX]; /* the pingpong and responder applications, in config order */
	uint32_t n_pps;
	struct ctl_port *ports;        /* ports */
	uint32_t n_ports;
	struct ctl_part *parts;        /* partitions, given or by default (by rack, else one "all") */
	uint32_t n_parts;
	uint32_t *dev_part;            /* the partition of each device: hosts, then a generated fabric's switches */
	uint32_t n_devs;
	bool parts_given;              /* the config has a partitions section */
	struct ctl_capture_defaults capture_defaults; /* capture_defaults */
	struct ctl_capture *captures;  /* captures */
	uint32_t n_captures;
	struct ctl_replay *replays;    /* replay */
	uint32_t n_replays;
	/* Settings the pages accept, so the run takes them, but which leave part of the model idle (a pool too small
	 * for one packet, class 0 or 1 without a pool) or work against another (REPS under flowlet switches):
	 * "file: key.path: what; what follows", for the command line to print. */
	char warnings[CTL_WARN_MAX][CTL_WARN_LEN];
	uint32_t n_warnings;
};

/**
 * Load @p path, apply the @p n_sets overrides "a.b.0.c=value" in @p sets (in order, after the file), validate,
 * and fill @p cfg (zeroed first). Every key not given takes its documented default.
 * Returns 0, or -errno with a one-line message in @p err (size @p errlen) naming "file:line:col: key.path: what;
 * suggestion" for a bad key or value, "--set a.b=c: ..." for a bad override, or "file: No such file or directory".
 * On error @p cfg holds nothing to free.
 */
int ctl_config_load(struct ctl_config *cfg, const char *path, const char *const *sets, int n_sets, char *err,
		    size_t errlen);

struct port_nic_ops;

/*
 * What the rest of the run takes from the NIC model a config places on its hosts (server.nic), one entry per model
 * (ctl_config_roce.c): where the model is parsed and its hosts built, the model is named; every other place asks
 * this table.
 */
struct ctl_nic_model_info {
	const char *name;                    /* server.nic: "ScalaUetNic", "ScalaRoceNic" */
	const struct port_nic_ops *ops;      /* its hosts' NIC ops (port_nic.h): label, single_lcore */
	bool rocev2;                         /* it sends RoCEv2 frames, and its receiver names a message by queue
					      * pair and message number (not by the sender's message id) */
	/** The hosts' NIC DataRate (bit/s) and Delay (ps), from the model's section (nic or roce_nic). */
	uint64_t (*host_bps)(const struct ctl_config *cfg);
	emu_ps_t (*host_delay)(const struct ctl_config *cfg);
	/** The IP datagram of the largest data frame the model sends (no FCS, no VLAN tag), with the key that sets
	 *  its payload and that payload's size in *@p key, *@p mss. */
	uint32_t (*max_datagram)(const struct ctl_config *cfg, const char **key, uint32_t *mss);
	/** Add the model's warnings to cfg->warnings (ctl_config_warnings()). */
	void (*warnings)(struct ctl_config *cfg);
};

/** The entry of the model @p cfg places (cfg->nic_model). */
const struct ctl_nic_model_info *ctl_config_nic_model(const struct ctl_config *cfg);

/** The hosts' NIC DataRate and Delay, of the model the config places (nic or roce_nic). */
uint64_t ctl_config_host_bps(const struct ctl_config *cfg);
emu_ps_t ctl_config_host_delay(const struct ctl_config *cfg);

/** Index of partition @p name in @p cfg, or -1. */
int ctl_config_part_find(const struct ctl_config *cfg, const char *name);

/** Free what ctl_config_load() allocated. Accepts NULL and a zeroed config. */
void ctl_config_free(struct ctl_config *cfg);

/**
 * Build the generated topology of @p cfg (topo_type CTL_TOPO_GENERATED): topo_spec with the host tier's DataRate
 * and Delay taken from the NIC (nic.NetworkInterface.UplinkNetworkInterface.DataRate, .TransmissionMedium.Delay).
 * Its hosts are cfg->hosts in order, its link indexes those of faults[].link. The caller owns *@p out.
 * Returns 0, -EINVAL for an explicit topology (message in @p err, size @p errlen), or -ENOMEM.
 */
int ctl_config_topo_build(const struct ctl_config *cfg, struct net_topo **out, char *err, size_t errlen);

/** Index of the host named @p name, or -1. */
int ctl_config_host(const struct ctl_config *cfg, const char *name);

#endif /* CTL_CONFIG_H */
