/*
 * Capture points and capture files: pcap and pcapng writers fed from link taps and real ports, a BPF filter per
 * capture (compiled with libpcap), size and frame limits with rotation; and a bounded reader of pcap and pcapng
 * files with the summary `uetemu pcap-info` prints. docs/capture.md describes what is written and read.
 *
 * The one public header of pcap/ (prefix cap_: pcap_ is libpcap's). Only pcap/ includes libpcap.
 */
#ifndef CAP_H
#define CAP_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "emu_time.h"
#include "rec.h"
#include "wire.h"

/** Write the @p n low bytes of @p v at @p p, least significant first (the session log's byte order). */
static inline void cap_put_le(uint8_t *p, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/** The @p n bytes at @p p as a little-endian number (the session log's byte order). */
static inline uint64_t cap_get_le(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* ---- Capture points (writing) ---- */

enum cap_format { CAP_FORMAT_PCAP = 0, CAP_FORMAT_PCAPNG };

#define CAP_SNAPLEN_MAX 65535u   /* the snap length of a capture when none is given, and the most it may be */
#define CAP_ROTATE_MAX 1000u     /* files in a rotation ring at most */
#define CAP_EPOCH_2026_NS 1767225600000000000LL /* 2026-01-01T00:00:00Z: the records' epoch in virtual time */

/* Direction of a frame as the capture point sees it (pcapng epb_flags bits 0-1). */
enum cap_dir { CAP_DIR_NONE = 0, CAP_DIR_IN = 1, CAP_DIR_OUT = 2 };

/** How a capture point writes. Strings are copied by cap_open(). */
struct cap_cfg {
	const char *base;      /* DIR/name: the files are base.pcap (or .pcapng), base-1.pcap, ... */
	uint8_t format;        /* enum cap_format */
	uint32_t snaplen;      /* bytes kept of each frame, 1 .. CAP_SNAPLEN_MAX; 0: CAP_SNAPLEN_MAX */
	uint64_t max_frames;   /* frames per file; 0: no limit */
	uint64_t max_bytes;    /* bytes per file, headers included; 0: no limit */
	uint32_t rotate;       /* 0 or 1: one file, frames past the limit are cut; N >= 2: a ring of N files */
	int64_t epoch_ns;      /* a frame is stamped epoch_ns + its time x scale (ns since 1970-01-01T00:00:00Z) */
	uint64_t scale;        /* real time's TimeScale: wall ns per emulated ns; 0 or 1 in virtual time */
	bool note_emu;         /* pcapng: each frame's comment gives its emulated time (real time) */
	const char *filter;    /* BPF expression (libpcap syntax), or NULL / "" for none */
	const char *if_name;   /* pcapng if_name: "l0", "leaf0:5", "net_tap0" */
	const char *if_desc;   /* pcapng if_description, or NULL */
	uint64_t if_speed;     /* pcapng if_speed, bit/s; 0: unknown */
	int out_dir;           /* link taps: the link direction (0, 1) that leaves the capture point; -1: none */
	struct rec_budget *budget; /* the run's output budget (rec.h), or NULL: a frame past it is cut, not written */
};

/** What a capture point saw and wrote, kept across its files (the pcapng ISB counters). */
struct cap_stats {
	uint64_t seen;         /* frames offered to it (isb_ifrecv) */
	uint64_t filtered_out; /* refused by its filter */
	uint64_t written;      /* written to its files (isb_usrdeliv) */
	uint64_t cut;          /* accepted past the limit of a capture with no rotation, not written (isb_ifdrop) */
	uint64_t snapped;      /* written shorter than they were (snaplen) */
	uint64_t lost_noted;   /* frames a link lost, written with a "dropped here" comment (pcapng only) */
	uint64_t bytes;        /* bytes written to its files, headers included */
	uint32_t files_opened; /* files started, rotation included */
	uint32_t n_files;      /* files on disk: min(files_opened, rotate) */
	uint32_t oldest;       /* index of the oldest file on disk (cap_file_path()); the newest is the one before */
};

struct cap;

/**
 * Open a capture point: compile its filter, create its first file and write the file's headers.
 * Returns NULL with errno set and a message in @p err (size @p errlen): -EINVAL for a bad filter (libpcap's
 * message), or the error of the file ("DIR/x.pcap: No such file or directory").
 */
struct cap *cap_open(const struct cap_cfg *cfg, char *err, size_t errlen);

/**
 * Flush and close the point's file (pcapng: after an Interface Statistics Block), fill *@p st (may be NULL) and
 * free @p c. Accepts NULL. Returns 0, or -errno of the first write that failed (-ENOSPC on a full disk), its
 * path in @p err (size @p errlen; may be NULL): the file is then cut after its last whole record or block.
 */
int cap_close(struct cap *c, struct cap_stats *st, char *err, size_t errlen);

/** Change the epoch of @p c (real time: the wall clock at the run's time 0, known once the ports are up). */
void cap_set_epoch(struct cap *c, int64_t epoch_ns);

/** Whether @p c writes comments (pcapng), so a caller may skip working one out. */
bool cap_notes(const struct cap *c);

/**
 * Offer the @p len bytes at @p frame to @p c: filter, snap, limit, write. Stamped from @p at (epoch + @p at x
 * scale); @p emu is the frame's emulated time (a pcapng comment with cfg.note_emu); @p note, a comment or NULL.
 */
void cap_frame(struct cap *c, const uint8_t *frame, size_t len, emu_ps_t at, emu_ps_t emu, enum cap_dir dir,
	       const char *note);

/**
 * A net_tap_fn: encodes @p pkt (as wire_encode) and offers it to the struct cap @p arg at @p now, the time its
 * first bit enters the link. pcapng: a comment says when the frame is trimmed or carries ECN CE.
 */
void cap_tap(void *arg, uint32_t dir, const struct wire_pkt *pkt, emu_ps_t now);

/**
 * A net_drop_fn: a frame the link lost (@p reason, a net_counter) is written with a "dropped here" comment in
 * pcapng; a pcap capture ignores it (its frames are those that cross the link, as before pcapng).
 */
void cap_drop_tap(void *arg, uint32_t dir, const struct wire_pkt *pkt, emu_ps_t now, int reason);

/** Path of file @p idx of a capture: base.ext for 0, base-idx.ext after. Returns snprintf's count. */
int cap_file_path(const char *base, uint8_t format, uint32_t idx, char *buf, size_t len);

/* ---- BPF filters (libpcap) ---- */

struct cap_bpf;

/**
 * Compile @p expr for Ethernet frames with libpcap (pcap_open_dead + pcap_compile, optimised, no netmask).
 * Returns 0 with the program in *@p out, or -EINVAL with libpcap's message in @p err, or -ENOMEM.
 */
int cap_bpf_compile(const char *expr, struct cap_bpf **out, char *err, size_t errlen);

/** Whether the frame of @p caplen captured bytes out of @p len passes @p f (pcap_offline_filter). */
bool cap_bpf_match(const struct cap_bpf *f, const uint8_t *frame, uint32_t caplen, uint32_t len);

/** Free @p f. Accepts NULL. */
void cap_bpf_free(struct cap_bpf *f);

/* ---- Reading capture files ---- */

#define CAP_READ_CAPLEN_MAX 262144u  /* a record longer than this is refused as corrupt (libpcap's own limit) */
#define CAP_READ_BLOCK_MAX (16u << 20) /* a pcapng block longer than this is refused as corrupt */
#define CAP_READ_IF_MAX 256u         /* pcapng interfaces per section; more are counted and their frames skipped */
#define CAP_READ_NAME_MAX 64u        /* interface names and comments are kept up to this many bytes */

/* Why a part of a file was skipped: counted, the reading goes on (or ends, for a truncated file). */
#define CAP_SKIPS(X) \
	X(NONE, "none", "none") \
	X(TRUNCATED, "truncated", "the file ends inside a record or block (the rest is missing)") \
	X(UNKNOWN_BLOCK, "unknown_block", "pcapng block of a type the reader does not know, skipped") \
	X(BAD_OPTION, "bad_option", "pcapng option running past its block, the block's other options ignored") \
	X(NO_INTERFACE, "no_interface", "packet block naming an interface that was not described") \
	X(BAD_CAPLEN, "bad_caplen", "record whose captured length is larger than its block or original length") \
	X(TOO_MANY_IF, "too_many_interfaces", "interface past the reader's limit of 256 per section") \
	X(NOT_ETHERNET, "not_ethernet", "frame of an interface whose link type is not Ethernet")

#define CAP_SKIP_ENUM(n, k, s) CAP_SKIP_##n,
enum cap_skip { CAP_SKIPS(CAP_SKIP_ENUM) CAP_SKIP_COUNT };
#undef CAP_SKIP_ENUM

/** Key (snake_case) of skip reason @p k; "unknown" outside the enum. */
const char *cap_skip_name(int k);

/** What a skip reason means, in words; "unknown" outside the enum. */
const char *cap_skip_desc(int k);

/** An interface of a file (pcap: the one of its header). */
struct cap_iface {
	char name[CAP_READ_NAME_MAX];  /* if_name, or "" */
	uint16_t linktype;             /* 1: Ethernet */
	uint32_t snaplen;
	uint64_t speed_bps;            /* if_speed, 0 unknown */
	uint64_t frames;               /* frames read of it */
};

/** One frame read. @p data is valid until the next call. */
struct cap_rec {
	const uint8_t *data;
	uint32_t caplen, len;
	int64_t ts_ns;                 /* ns since 1970 */
	uint32_t iface;                /* index into the reader's interfaces (across sections) */
	uint8_t dir;                   /* enum cap_dir, from epb_flags */
	char comment[CAP_READ_NAME_MAX * 2]; /* the first opt_comment, cut to fit, or "" */
};

/** The file as read so far. */
struct cap_read_info {
	uint8_t format;                /* enum cap_format */
	bool big_endian;               /* the (first section's) byte order */
	bool nanosecond;               /* pcap: the nanosecond magic */
	uint32_t sections;             /* pcapng sections (SHBs) */
	struct cap_iface *ifaces;
	uint32_t n_ifaces;
	uint64_t skips[CAP_SKIP_COUNT];
	uint64_t blocks;               /* pcapng blocks read */
};

struct cap_reader;

/**
 * Open @p path and read its header (pcap: both magics, both byte orders; pcapng: its first SHB).
 * Returns 0, or -errno with a message in @p err naming the file ("not a pcap or pcapng file (first bytes
 * 00 11 22 33)", "truncated: ...").
 */
int cap_read_open(const char *path, struct cap_reader **out, char *err, size_t errlen);

/**
 * The next frame into *@p rec: 1; 0 at the end (a truncated tail counted as CAP_SKIP_TRUNCATED); -EINVAL for a
 * file that cannot be read on (a block length that is not one, a caplen over CAP_READ_CAPLEN_MAX), with a message
 * naming the offset in @p err; -EIO for a read error.
 */
int cap_read_next(struct cap_reader *r, struct cap_rec *rec, char *err, size_t errlen);

/** Make @p r look at the stop flag @p halt (NULL: none) before every read of the file: once it is set,
 *  cap_read_next() returns -EINTR (its message gives the offset reached), whatever the file holds. */
void cap_read_set_halt(struct cap_reader *r, const volatile sig_atomic_t *halt);

/** What @p r has read so far. */
const struct cap_read_info *cap_read_info(const struct cap_reader *r);

/** Close @p r. Accepts NULL. */
void cap_read_close(struct cap_reader *r);

/* ---- pcap-info: what a capture holds ---- */

#define CAP_INFO_PDC_MAX (1u << 20)   /* PDCs tracked at most; more are counted in pdcs_untracked */
#define CAP_INFO_PENDING_MAX 65536u   /* messages awaiting their ACK per PDC at most */

/** A PDC: data from src to dst on the sender's PDC @p pdc, its messages and their completion times. */
struct cap_info_pdc {
	uint32_t src, dst;             /* IPv4, host byte order */
	uint16_t pdc;                  /* the sender's PDC id (data SPDCID, ACK DPDCID) */
	uint64_t data, retx, trimmed, acks, nacks;
	uint64_t messages, completed, untracked;
	uint64_t bytes, size_min, size_max; /* request_length of the messages started */
	int64_t *fct_ns;               /* completion times of the completed messages, sorted by cap_info_read() */
	uint32_t fct_cap;
	/* tracking */
	uint32_t cack;                 /* the highest CACK_PSN seen */
	bool has_cack;
	void *pending;                 /* internal */
	uint32_t n_pending, pending_cap;
};

/** Everything pcap-info reports. */
struct cap_info {
	struct cap_read_info file;     /* a copy, its ifaces owned by the info */
	uint64_t frames, bytes, orig_bytes;
	int64_t first_ns, last_ns;
	uint64_t data, retx, trimmed, acks, probe_acks, probes, cp_other, nacks, nack_codes[256];
	uint64_t pfc, pfc_pauses, pfc_resumes, cm[4];
	uint64_t ecn[4];               /* IPv4 frames decoded, by ECN codepoint */
	uint64_t decode_errors[WIRE_R_COUNT];
	uint64_t cut, cut_in_headers;  /* snap-cut frames decoded from their headers; cut inside the headers */
	struct cap_info_pdc *pdcs;     /* in order of first appearance */
	uint32_t n_pdcs, pdcs_cap;
	uint64_t pdcs_untracked;       /* frames of PDCs past CAP_INFO_PDC_MAX */
	uint32_t *index;               /* internal: hash of pdcs */
	uint32_t index_cap;
};

/**
 * Read every frame of @p path and summarise it into @p out (zeroed first): per-type counts, ECN, decode errors,
 * per PDC message sizes and completion times (the first data frame of a message to the first ACK whose CACK_PSN
 * covers its last packet). @p uet_port is the UDP port decoded as UET. Returns 0 (also for a truncated file: its
 * tail is counted), or -errno with the message of cap_read_open() / cap_read_next(); @p out then holds what was
 * read before the error. Free with cap_info_free() in both cases.
 */
int cap_info_read(const char *path, uint16_t uet_port, struct cap_info *out, char *err, size_t errlen);

/** Free what cap_info_read() allocated. Accepts a zeroed info. */
void cap_info_free(struct cap_info *ci);

/** Nearest-rank percentile @p p (0..100) of the @p n sorted values @p v; 0 when n is 0. */
int64_t cap_info_pct(const int64_t *v, uint32_t n, unsigned p);

/* ---- Replay sources (docs/replay.md) ---- */

/** How a replay spaces its frames. */
enum cap_replay_pace {
	CAP_PACE_TIMING = 0, /* the capture's own stamps, divided by speed */
	CAP_PACE_FPS,        /* rate frames per second */
	CAP_PACE_BPS,        /* back to back at rate bit/s, each frame counting 24 B more (FCS, preamble, gap) */
};

/** What a replay plays and how. The arrays are copied (the config's are fine to point at). */
struct cap_replay_cfg {
	const char *path;              /* a pcap or pcapng file (cap_read_open()); kept as a pointer */
	const char *filter;            /* BPF expression of the frames played, or NULL / "" for all */
	uint8_t pace;                  /* enum cap_replay_pace */
	uint64_t speed_ppm;            /* TIMING: speed x 10^6 (0: 1.0) */
	uint64_t rate;                 /* FPS: frames/s; BPS: bit/s */
	uint64_t loop;                 /* times the capture is played (0: 1) */
	emu_ps_t start;                /* deadline of the first frame */
	uint32_t max_len;              /* longer frames are skipped (bad_len); 0: CAP_READ_CAPLEN_MAX */
	const uint8_t (*mac_from)[6], (*mac_to)[6]; /* rewrite.mac: n_mac pairs */
	uint32_t n_mac;
	const uint32_t *ip_from, *ip_to;            /* rewrite.ip: n_ip pairs, host byte order */
	uint32_t n_ip;
	const volatile sig_atomic_t *halt; /* the run's stop flag, or NULL: once set the load ends, -EINTR */
};

/** What loading a replay found. */
struct cap_replay_info {
	uint64_t read;                 /* frames read from the file */
	uint64_t frames;               /* frames played per loop */
	uint64_t total;                /* frames x loop */
	uint64_t filtered_out;         /* refused by the filter */
	uint64_t snap_cut;             /* cut by the capture's snap length: not played */
	uint64_t bad_len;              /* shorter than an Ethernet header or longer than max_len: not played */
	uint64_t out_of_order;         /* stamped before the frame before them: played at that frame's time */
	uint64_t rewritten;            /* frames a rewrite map changed */
	uint64_t time_range;           /* stamped so long after the first frame (or, paced, so late) that their
					* deadline would pass the emulated time range, EMU_PS_MAX: not played */
	uint64_t skips[CAP_SKIP_COUNT]; /* parts of the file the reader skipped (cap_read_info()) */
	emu_ps_t span;                 /* from the first deadline to the last */
};

struct cap_replay;

/**
 * Read @p cfg->path whole, keep the frames the filter takes, apply the rewrite maps, and compute each frame's
 * deadline: TIMING (stamp - first stamp) / speed, FPS i / rate, BPS the bits before it / rate, each from the
 * first frame (never a sum of rounded gaps). Loop n starts n x period after cfg->start, the period being the last
 * deadline plus one gap (TIMING: the mean gap, 1 us / speed for a one-frame capture; FPS: 1 / rate; BPS: the last
 * frame's time on the wire). Returns NULL with errno and a message in @p err: the reader's (not a capture, a
 * corrupt block), a bad filter (EINVAL), no frame left to play (EINVAL), ENOMEM.
 */
struct cap_replay *cap_replay_load(const struct cap_replay_cfg *cfg, char *err, size_t errlen);

/** Free @p rp. Accepts NULL. */
void cap_replay_free(struct cap_replay *rp);

/** What loading @p rp found. */
const struct cap_replay_info *cap_replay_info(const struct cap_replay *rp);

/** Deadline of frame @p k (0 .. total - 1, across the loops), in ps: never before that of frame k - 1. */
emu_ps_t cap_replay_deadline(const struct cap_replay *rp, uint64_t k);

/** Bytes of frame @p k (valid while @p rp lives), their count in *@p len. */
const uint8_t *cap_replay_frame(const struct cap_replay *rp, uint64_t k, uint32_t *len);

/* ---- Session logs (docs/replay.md, Session record) ---- */

#define CAP_SESSION_PATH_MAX 4096

/** What a session log record is. */
enum cap_session_type {
	CAP_SES_PASS = 1, /* a pass of the real-time poll loop that touched a port or a record: t its emulated time,
	                     x its wall-clock time (ps since the run's time 0) */
	CAP_SES_RX,       /* a frame that arrived on DPDK port @c port, delivered at emulated time t; x its number */
	CAP_SES_TX,       /* a frame uetemu sent on DPDK port @c port at emulated time t; x its number */
	CAP_SES_END,      /* the run ended at emulated time t, wall-clock time x */
	CAP_SES_CTL,      /* a control command (uetemu ctl) the pass applied at emulated time t; x its number; the
	                     bytes its encoding (ctl_run_ctl.c), whose first byte is that encoding's version */
};

/** The log's header: what a re-run checks it runs the same session. */
struct cap_session_hdr {
	uint32_t n_ports;       /* DPDK ports of the run */
	int64_t epoch_ns;       /* the wall clock at the run's time 0, ns since 1970 (the captures' epoch) */
	int64_t records_epoch_s; /* the records' epoch (time_utc of emulated time 0), s since 1970 */
	uint64_t seed;          /* RandomSeed */
	uint64_t time_scale;    /* TimeScale */
	uint64_t config_hash;   /* FNV-1a of the config file's bytes */
};

/** One record; @p data (len bytes) is the frame of RX and TX, the command of CTL, valid until the next read. */
struct cap_session_rec {
	uint8_t type;           /* enum cap_session_type */
	uint8_t port;
	uint32_t len;
	uint64_t t, x;
	const uint8_t *data;
};

struct cap_session_w;
struct cap_session_r;

/** Create the log @p path and write its header. NULL with errno and "PATH: <strerror>" in @p err. */
struct cap_session_w *cap_session_create(const char *path, const struct cap_session_hdr *h, char *err,
					 size_t errlen);

/** Append @p rec (buffered; a write error is kept for cap_session_close()). */
void cap_session_put(struct cap_session_w *w, const struct cap_session_rec *rec);

/** Count the log in the run's output budget @p b (rec.h; NULL none): past it, whole records are cut. */
void cap_session_budget(struct cap_session_w *w, struct rec_budget *b);

/** Whether the output budget cut the log (a record was not written). */
bool cap_session_was_cut(const struct cap_session_w *w);

/** Flush and close; 0 or -errno of the first failed write ("PATH: <strerror>" in @p err). Accepts NULL. */
int cap_session_close(struct cap_session_w *w, char *err, size_t errlen);

/** Open the log @p path and read its header into *@p h. 0, or -errno / -EINVAL (not a log) with @p err. */
int cap_session_open(const char *path, struct cap_session_r **out, struct cap_session_hdr *h, char *err,
		     size_t errlen);

/**
 * The next record: 1; 0 at the end, also when the file ends inside a record (a run killed while writing:
 * cap_session_cut() says where); -EINVAL for a corrupt record (an unknown type, a length it cannot have), its offset
 * in @p err.
 */
int cap_session_next(struct cap_session_r *r, struct cap_session_rec *rec, char *err, size_t errlen);

/**
 * Check every record read from now on against the session (cursor-and-length decoding: nothing unchecked reaches
 * a re-run's models): @p n_ports DPDK ports, TimeScale @p time_scale, no time past @p t_max. A record is corrupt
 * (cap_session_next() gives -EINVAL, "... a corrupt log") when its reserved bytes are set, its port is not one,
 * its frame is shorter than an Ethernet header, its time passes @p t_max, a pass or the end goes back in time
 * (emulated or wall clock) or runs ahead of its wall-clock time over TimeScale, an arrival's time is not its
 * pass's, a frame's number is out of sequence, a frame sent goes back in time, or anything follows the end.
 */
void cap_session_check(struct cap_session_r *r, uint32_t n_ports, uint64_t time_scale, emu_ps_t t_max);

/** Offset of the record the file ended inside, or UINT64_MAX when it ended on a record boundary (so far). */
uint64_t cap_session_cut(const struct cap_session_r *r);

/** Close a reader. Accepts NULL. */
void cap_session_close_r(struct cap_session_r *r);

#endif /* CAP_H */
