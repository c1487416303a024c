/* Counters and reasons named once: each module lists them in an X-macro, X(ENUM, "key", "description"), whose
 * key is a snake_case identifier (summary.json) and whose description says what is counted (docs/summary.md).
 * EMU_COUNTER_NAMES() turns such a list into the module's two lookups, checked against the enum's length. */
#ifndef EMU_COUNTER_H
#define EMU_COUNTER_H

/* One entry of a list: key and description. */
struct emu_counter_def {
	const char *key;
	const char *desc;
};

#define EMU_COUNTER_DEF(n, k, s) { k, s },

/**
 * Define `const char *PREFIX_name(int c)` (the key) and `const char *PREFIX_desc(int c)` (the description) over
 * the X-macro LIST of COUNT entries; both give "unknown" outside [0, COUNT).
 */
#define EMU_COUNTER_NAMES(PREFIX, LIST, COUNT)                                                                     \
	static const struct emu_counter_def PREFIX##_defs[] = { LIST(EMU_COUNTER_DEF) };                           \
	_Static_assert(sizeof(PREFIX##_defs) / sizeof(PREFIX##_defs[0]) == (COUNT), #PREFIX " names");             \
	const char *PREFIX##_name(int c) { return c >= 0 && c < (COUNT) ? PREFIX##_defs[c].key : "unknown"; }      \
	const char *PREFIX##_desc(int c) { return c >= 0 && c < (COUNT) ? PREFIX##_defs[c].desc : "unknown"; }

#endif /* EMU_COUNTER_H */
