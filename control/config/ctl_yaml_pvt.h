/* Internals of the config loader: the YAML tree with positions, --set overrides, errors and the key walkers. */
#ifndef CTL_YAML_PVT_H
#define CTL_YAML_PVT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ctl_config.h"

#define CTL_PATH_MAX 512
#define CTL_ERRS_MAX 20 /* errors reported in one pass at most */
#define CTL_DEPTH_MAX 64 /* deepest YAML nesting accepted; the NIC's deepest attribute is 8 levels down */

enum ctl_ytype { CTL_Y_SCALAR = 0, CTL_Y_MAP, CTL_Y_SEQ };

/** One YAML node. Scalars keep their text; maps hold key scalars and values; sequences hold values. */
struct ctl_ynode {
	uint8_t type;             /* enum ctl_ytype */
	bool plain;               /* scalar written without quotes: "", "~" and "null" then mean null */
	uint32_t line, col;       /* 1-based start in the file (0 for a node a --set made) */
	int set;                  /* index of the --set that made the node, or -1 if it comes from the file */
	char *text;               /* scalar text, NUL-terminated */
	struct ctl_ynode **key;   /* map: key[i] is a scalar, val[i] its value */
	struct ctl_ynode **val;   /* map values, sequence items */
	uint32_t n, cap;
	uint32_t *index;          /* map: open-addressing hash of the keys (entry + 1, 0 = empty), so looking a key
	                           * up, and refusing a duplicate, costs O(1) however many keys the map has */
	uint32_t index_cap;       /* a power of two, at least twice n; 0 before the first key */
};

/** The loader's context: where errors go and the key path of the node being checked. */
struct ctl_ctx {
	const char *file;
	const char *const *sets;
	int n_sets;
	char *err;               /* the errors, one per line, the newest last */
	size_t errlen;
	unsigned n_errs;         /* errors written so far; the walk stops at CTL_ERRS_MAX */
	char path[CTL_PATH_MAX]; /* "nic.NetworkInterface.UplinkNetworkInterface", list indexes as ".0" */
	size_t plen;
};

/* ctl_yaml.c: the tree. */

/**
 * Parse the file c->file into a tree at @p root (an empty map for an empty file), refusing duplicate keys and
 * aliases. Returns 0; -errno with "file: <strerror>" if it cannot be read; -EINVAL with "file:line:col: ..." for a
 * syntax error or a duplicate key; -ENOMEM.
 */
int ctl_y_load(struct ctl_ctx *c, struct ctl_ynode **root);

/** Free a tree. Accepts NULL. */
void ctl_y_free(struct ctl_ynode *n);

/**
 * Apply c->sets[@p idx], "a.b.0.c=value": replace the scalar at that path, creating missing map keys (a numeric
 * component after a missing key is part of that key, as in PCIeGen3.0). Returns 0, -EINVAL with "--set ..." in the
 * error buffer, or -ENOMEM.
 */
int ctl_y_apply_set(struct ctl_ctx *c, struct ctl_ynode *root, int idx);

/** Value of @p key in @p map, or NULL (also when @p map is not a map). */
const struct ctl_ynode *ctl_y_get(const struct ctl_ynode *map, const char *key);

/** True for a plain scalar that YAML reads as null: empty, "~", "null". */
bool ctl_y_is_null(const struct ctl_ynode *n);

/** Add the line "file:line:col: path: <fmt>" (or "--set p=v: ...") to c->err (up to CTL_ERRS_MAX lines, and
 * while it fits); returns -EINVAL. */
__attribute__((format(printf, 3, 4))) int ctl_err(struct ctl_ctx *c, const struct ctl_ynode *at, const char *fmt,
						   ...);

/** Append ".key" to the path; returns the old length for ctl_pop(). */
size_t ctl_push(struct ctl_ctx *c, const char *key);
/** Append ".idx" to the path; returns the old length. */
size_t ctl_push_idx(struct ctl_ctx *c, uint32_t idx);
/** Restore the path to @p len. */
void ctl_pop(struct ctl_ctx *c, size_t len);

/**
 * A walk's bookkeeping after one child: keep the first error in *@p failed and go on to the next sibling, so one
 * pass reports every error. Returns true when the walk must stop now (out of memory, or CTL_ERRS_MAX errors).
 */
bool ctl_child_done(struct ctl_ctx *c, int rc, int *failed);

/* ctl_config_walk.c: schema helpers. */

/** Handler of one key: @p v is its value, @p obj what the walk fills. Returns 0 or -errno (message written). */
typedef int (*ctl_key_fn)(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj);

/** One accepted key of a map. fn NULL: accepted, the caller reads it afterwards with ctl_y_get(). */
struct ctl_key {
	const char *name;
	bool required;
	ctl_key_fn fn;
};

/**
 * Check that @p map is a map (null counts as empty) with only the @p n keys of @p keys, call each key's handler in
 * file order, then check the required keys. @p example ends the message of a missing key.
 * Returns 0 or -EINVAL (message written).
 */
int ctl_walk_map(struct ctl_ctx *c, const struct ctl_ynode *map, const struct ctl_key *keys, size_t n, void *obj,
		 const char *example);

/** Item handler of ctl_walk_seq(). */
typedef int (*ctl_item_fn)(struct ctl_ctx *c, const struct ctl_ynode *item, uint32_t idx, void *obj);

/** Check that @p seq is a list (null counts as empty) and call @p fn on each item. Returns 0 or -EINVAL. */
int ctl_walk_seq(struct ctl_ctx *c, const struct ctl_ynode *seq, ctl_item_fn fn, void *obj, const char *example);

/** Number of items of a list, 0 for null. */
uint32_t ctl_seq_len(const struct ctl_ynode *seq);

/**
 * The "unknown key" error for @p key (a key node) among @p n valid names @p names: the nearest name by edit
 * distance if one is close, else the list of valid keys. Returns -EINVAL.
 */
/** applications[@p idx] of type Chakra (ctl_config_chakra.c): its keys, defaults and rules. Returns 0 or -errno. */
int ctl_app_chakra(struct ctl_ctx *c, const struct ctl_ynode *item, struct ctl_config *cfg, uint32_t idx);
/** applications[idx] of type pingpong or responder (ctl_config_pingpong.c). */
int ctl_app_pingpong(struct ctl_ctx *c, const struct ctl_ynode *item, struct ctl_config *cfg, uint32_t idx);

/** applications[idx] of type flows or stream (ctl_config_flows.c): its keys; the messages come later. */
int ctl_app_flows(struct ctl_ctx *c, const struct ctl_ynode *item, struct ctl_config *cfg, uint32_t idx);
/** Generate the messages of every flows and stream application of @p cfg (@p apps: the applications section) into
 *  its list, once every section is read. Returns 0 or -errno (message written). */
int ctl_flows_generate(struct ctl_ctx *c, const struct ctl_ynode *apps, struct ctl_config *cfg);

/** The link being read, for the topology walkers. */
struct ctl_link_obj {
	struct ctl_config *cfg;
	struct ctl_link *l;
};

/** Check that every impair entry's `from` is an end of the link (after the whole link is read). */
int ctl_link_impair_check(struct ctl_ctx *c, const struct ctl_ynode *item, struct ctl_link_obj *o);

/** topology.links[i].impair: the list of fixture actions (ctl_config_impair.c); @p obj is the link_obj. */
int ctl_link_impair(struct ctl_ctx *c, const struct ctl_ynode *v, void *obj);

int ctl_err_unknown(struct ctl_ctx *c, const struct ctl_ynode *key, const char *const *names, size_t n);

/** The scalar text of @p v, or an "expected a value" error naming @p example. */
int ctl_scalar(struct ctl_ctx *c, const struct ctl_ynode *v, const char *example, const char **text);

/** Parse @p v with an emu_units parser (emu_parse_uint, _size, _timeval, _seconds, _datarate) into @p out. */
int ctl_val_u64(struct ctl_ctx *c, const struct ctl_ynode *v, int (*parse)(const char *, uint64_t *, char *, size_t),
		const char *example, uint64_t *out);

/** A uint in [min, max]. */
int ctl_val_uint(struct ctl_ctx *c, const struct ctl_ynode *v, uint64_t min, uint64_t max, uint64_t *out);

/** A dotted IPv4 address other than 0.0.0.0 (a gateway), into @p ip in host byte order. */
int ctl_val_gateway(struct ctl_ctx *c, const struct ctl_ynode *v, uint32_t *ip);

/** A bool. */
int ctl_val_bool(struct ctl_ctx *c, const struct ctl_ynode *v, bool *out);

/** A name: 1 to @p size - 1 letters, digits, '_', '-', '.', not starting with '.'; copied into @p out. */
int ctl_val_name(struct ctl_ctx *c, const struct ctl_ynode *v, char *out, size_t size);

/* The sections (ctl_config_*.c). Each fills its part of @p cfg; the caller frees @p cfg on error. */
int ctl_sec_simulation(struct ctl_ctx *c, const struct ctl_ynode *v, struct ctl_config *cfg);
int ctl_sec_topology(struct ctl_ctx *c, const struct ctl_ynode *v, struct ctl_config *cfg);
int ctl_sec_nic(struct ctl_ctx *c, const struct ctl_ynode *v, struct ctl_config *cfg);
int ctl_sec_switch(struct ctl_ctx *c, const struct ctl_ynode *v, struct ctl_config *cfg);
int ctl_sec_roce_nic(struct ctl_ctx *c, const struct ctl_ynode *v, struct ctl_config *cfg);
int ctl_sec_server(struct ctl_ctx *c, const struct ctl_ynode *v, struct ctl_config *cfg);
/** The stop rules between the NIC model and the other sections (ctl_config_roce.c): @p server is the server
 *  section's node (NULL when the file has none), where a broken rule is reported. */
int ctl_nic_model_check(struct ctl_ctx *c, const struct ctl_ynode *server, struct ctl_config *cfg);

/** Each NIC model's warnings of a loaded config (the model table's warnings, ctl_config_warnings()). */
void ctl_warn_uet(struct ctl_config *cfg);
void ctl_warn_roce(struct ctl_config *cfg);

#define CTL_PTABLE_WHY_MAX 3

/**
 * A component's attribute table (the NIC's, the switch's), seen through rows: each row an attribute with its
 * Scala path (NULL-terminated, at most @p depth components), default text and setters into the params struct.
 */
struct ctl_ptable {
	const char *root;    /* the section's name in messages: "nic", "switch" */
	unsigned count;
	int depth;
	const char *const *(*path)(unsigned row);
	const char *(*def)(unsigned row);
	bool (*readonly)(unsigned row); /* may be NULL */
	bool (*is_list)(unsigned row);
	int (*set)(void *params, unsigned row, const char *text, char *err, size_t errlen);
	int (*set_list)(void *params, unsigned row, const char *const *items, int n, int *bad, char *err, size_t errlen);
	/** The stop rules: 0, or -EINVAL with the message and up to 3 rows to blame (others -1). May be NULL. */
	int (*check)(const void *params, int *why, char *err, size_t errlen);
};

/** Walk the section @p v against @p t into @p params, then check its stop rules; errors as ctl_err(). */
int ctl_walk_params(struct ctl_ctx *c, const struct ctl_ynode *v, const struct ctl_ptable *t, void *params);
int ctl_sec_applications(struct ctl_ctx *c, const struct ctl_ynode *v, struct ctl_config *cfg);
int ctl_sec_ports(struct ctl_ctx *c, const struct ctl_ynode *v, struct ctl_config *cfg);
/** partitions (ctl_config_part.c): named lists of devices, each device in one. */
int ctl_sec_partitions(struct ctl_ctx *c, const struct ctl_ynode *v, struct ctl_config *cfg);
/** The partitions of a config without the section: by rack for a fabric of several, else one. 0 or -errno. */
int ctl_config_parts_default(struct ctl_config *cfg);
int ctl_sec_captures(struct ctl_ctx *c, const struct ctl_ynode *v, struct ctl_config *cfg);
/** replay (ctl_config_replay.c): captures injected into the run. */
int ctl_sec_replay(struct ctl_ctx *c, const struct ctl_ynode *v, struct ctl_config *cfg);

/** Fill cfg->warnings from the loaded @p cfg (ctl_config_warn.c). */
void ctl_config_warnings(struct ctl_config *cfg);

/** topology of type explicit: its hosts and links (ctl_config_topo.c; the keys are checked by the caller). */
int ctl_topo_explicit(struct ctl_ctx *c, const struct ctl_ynode *v, struct ctl_config *cfg);

/**
 * The index of the link @p v names (ctl_config_fabric.c): into cfg->links for an explicit topology, into the
 * generated topology's links otherwise (as ctl_fault.link), or an "unknown link" error with a suggestion.
 */
int ctl_val_link(struct ctl_ctx *c, const struct ctl_ynode *v, const struct ctl_config *cfg, uint32_t *idx);

/**
 * The device port @p v names as "DEVICE:INDEX" in a generated topology (ctl_config_fabric.c): the index of its link
 * (as ctl_val_link()) and which end of the link it is (0: a, 1: b), or an error naming what is wrong.
 */
int ctl_val_dev_port(struct ctl_ctx *c, const struct ctl_ynode *v, const struct ctl_config *cfg, uint32_t *link,
		     uint8_t *end);

/** captures' defaults (ctl_config_capture.c): a top-level section read before captures. */
int ctl_sec_capture_defaults(struct ctl_ctx *c, const struct ctl_ynode *v, struct ctl_config *cfg);

/** The "unknown host 'x'; hosts are a, b" error, or the index of host @p v names in @p cfg. */
int ctl_val_host(struct ctl_ctx *c, const struct ctl_ynode *v, const struct ctl_config *cfg, uint32_t *idx);

#endif /* CTL_YAML_PVT_H */
