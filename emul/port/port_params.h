/* What both NIC models read from their attributes the same way: the traffic classes, a buffer manager's and a PCIe
 * end's attributes, the egress scheduling disciplines, and the attribute-table row type with its parsers (each NIC
 * model keeps its own table: nic_params.h, roce_params.h). */
#ifndef PORT_PARAMS_H
#define PORT_PARAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PORT_TC_COUNT 8

enum port_qsched { PORT_QSCHED_STRICT = 0, PORT_QSCHED_RR, PORT_QSCHED_WRR };

/** One buffer manager (IngressBufferManager or EgressBufferManager). */
struct port_buf_params {
	uint64_t total_buffer_size;              /* TotalBufferSize */
	uint8_t queue_scheduling;                /* QueueSchedulingType, enum port_qsched */
	uint32_t pool_alloc_ppm[PORT_TC_COUNT];   /* PoolAllocationVector, fraction x 1e6 */
	uint32_t wrr_weights[PORT_TC_COUNT];      /* WRRQueueWeights */
	/* Ingress only: */
	uint8_t pfc_enable[PORT_TC_COUNT];        /* PFCEnableVector */
	uint32_t pfc_xoff_ppm[PORT_TC_COUNT];     /* PfcStaticXoffThreshold */
	uint32_t pfc_xon_ppm[PORT_TC_COUNT];      /* PfcXonResumeThreshold */
	uint32_t quanta[PORT_TC_COUNT];           /* QuantaValue */
};

/** One end of the PCIe link (HostInterface.NICSide or HostInterface.HostSide . PCIeGen3.0 ...). */
struct port_pcie_params {
	uint64_t rx_header_buffer;  /* ...TransactionLayer.RXHeaderBufferSize */
	uint64_t tx_header_buffer;  /* ...TransactionLayer.TXHeaderBufferSize */
	uint64_t rx_data_buffer;    /* ...TransactionLayer.RXDataBufferSize */
	uint64_t tx_data_buffer;    /* ...TransactionLayer.TXDataBufferSize */
	uint64_t lane_bps;          /* ...PhysicalLayer.LaneBps */
	uint32_t lane_count;        /* ...PhysicalLayer.LaneCount, 1..16 */
};

#define PORT_PARAM_DEPTH 8 /* path components, NULL-terminated: the deepest (PCIe) paths have 7 */

enum port_ptype {
	PORT_PT_BOOL = 0,
	PORT_PT_UINT,
	PORT_PT_DOUBLE,
	PORT_PT_DATARATE,
	PORT_PT_TIMEVAL,
	PORT_PT_BYTES,      /* bytes and queuesize */
	PORT_PT_ENUM,       /* string with a fixed set of values; the index is stored as uint8_t */
	PORT_PT_FILTER_FEP, /* string: "All" or a FEP id */
	PORT_PT_FILTER_IP,  /* string: "All" or a dotted IPv4 address */
	PORT_PT_FILTER_PDC, /* string: "All" or "<IPv4>:<PDC id>" */
	PORT_PT_LIST_FRAC,  /* list string of 8 fractions 0..1, stored as uint32_t ppm */
	PORT_PT_LIST_UINT,  /* list string of 8 uints in [min, max], stored as uint32_t */
	PORT_PT_LIST_FLAG,  /* list string of 8 entries, stored as uint8_t: 1 for an entry equal to 1, else 0 */
	PORT_PT_LIST_NUMFLAG, /* as LIST_FLAG, but every entry must be a number (the RoCE NIC's PFCEnableVector) */
	PORT_PT_RATE_LIMIT, /* a datarate, or 0 / "off" for none (emu_parse_rate_limit()), stored as uint64_t bit/s */
};

/** One attribute. */
struct port_param_def {
	const char *path[PORT_PARAM_DEPTH]; /* Scala path under the NIC's typedParameters, attribute last */
	uint8_t type;                      /* enum port_ptype */
	bool readonly;                     /* NumDownLinks: setting it is an error */
	const char *def;                   /* Default, written as the page writes it */
	uint64_t min, max;                 /* range of a uint (of each entry for PORT_PT_LIST_UINT), sizes, rates, times */
	double dmin, dmax;                 /* range of a double */
	const char *const *enums;          /* PORT_PT_ENUM: the accepted values, NULL-terminated */
	const char *refused;               /* PORT_PT_ENUM: a value the page names that stops the run, or NULL */
	size_t off, size;                  /* field in struct nic_params; size 0 = accepted but not stored */
};

/** True for the list types, which also accept their 8 entries one by one (port_param_set_list()). */
bool port_param_is_list(const struct port_param_def *d);

/**
 * Parse @p text as the attribute @p d and store it in @p p, the struct the row's offset points into (struct
 * nic_params for nic_param_table, struct roce_params for roce_param_table: the two NIC models share the parsers).
 * A list attribute takes its Scala list string
 * "[a, b, c, d, e, f, g, h]".
 * Returns 0; -EPERM for a read-only attribute; -EINVAL or -ERANGE for a bad or out-of-range value. The message,
 * "<what>; <suggestion>" without the attribute's path, is written into @p err (size @p errlen).
 */
int port_param_set(void *p, const struct port_param_def *d, const char *text, char *err, size_t errlen);

/** Every writable field of @p p (a struct of @p size bytes, zeroed first) set to its default text from table @p t
 *  of @p n rows, by port_param_set(): a NIC model's parameters at their defaults. */
void port_param_table_defaults(void *p, size_t size, const struct port_param_def *t, unsigned n);

/** The row of table @p t (@p n rows) for the field at offset @p off; a missing row is a bug (asserted). */
const struct port_param_def *port_param_row(const struct port_param_def *t, unsigned n, size_t off);

/**
 * Store the @p n entries @p items of the list attribute @p d (n must be PORT_TC_COUNT). On error, @p bad receives
 * the index of the bad entry (or -1 for a wrong count). Returns 0, -EINVAL or -ERANGE, message as port_param_set().
 */
int port_param_set_list(void *p, const struct port_param_def *d, const char *const *items, int n,
		       int *bad, char *err, size_t errlen);

#define PORT_CHECK_WHY_MAX 3

/*
 * Building a NIC model's attribute table: rows of the params struct @p T (each model's own short macros pass it),
 * the paths both NIC pages give, and the rows both pages have alike.
 */
#define PORT_PARAM_FIELD(T, f) .off = offsetof(T, f), .size = sizeof(((T *)0)->f)
#define PORT_PARAM_ROW(T, t, d, f, ...) \
	{ .path = { __VA_ARGS__ }, .type = (t), .def = (d), .max = UINT64_MAX, PORT_PARAM_FIELD(T, f) }
#define PORT_PARAM_RANGE(T, t, d, lo, hi, f, ...) \
	{ .path = { __VA_ARGS__ }, .type = (t), .def = (d), .min = (lo), .max = (hi), PORT_PARAM_FIELD(T, f) }
#define PORT_PARAM_DBL(T, d, lo, hi, f, ...) \
	{ .path = { __VA_ARGS__ }, .type = PORT_PT_DOUBLE, .def = (d), .dmin = (lo), .dmax = (hi), PORT_PARAM_FIELD(T, f) }
#define PORT_PARAM_ENUM(T, d, e, r, f, ...) \
	{ .path = { __VA_ARGS__ }, .type = PORT_PT_ENUM, .def = (d), .enums = (e), .refused = (r), PORT_PARAM_FIELD(T, f) }
#define PORT_PARAM_LIST(T, t, d, hi, f, ...) \
	{ .path = { __VA_ARGS__ }, .type = (t), .def = (d), .max = (hi), PORT_PARAM_FIELD(T, f) }

#define PORT_PARAM_NI "NetworkInterface"
#define PORT_PARAM_IBM PORT_PARAM_NI, "IngressBufferManager"
#define PORT_PARAM_EBM PORT_PARAM_NI, "EgressBufferManager"
#define PORT_PARAM_NIC_PCIE "HostInterface", "NICSide", "PCIeGen3.0", "NicDeviceLayer", "NicPCIeInterface"
#define PORT_PARAM_HOST_PCIE "HostInterface", "HostSide", "PCIeGen3.0", "ScalaHostPCIeDeviceLayer", "HostPCIeInterface"

/* The PFC thresholds and pause quanta of @p T's ingress buffer (a struct port_buf_params @c ingress). A pause
 * frame carries 16-bit quanta. */
#define PORT_PARAM_PFC_ROWS(T) \
	PORT_PARAM_LIST(T, PORT_PT_LIST_FRAC, "[0.8, 0.8, 0, 0, 0, 0, 0, 0]", 0, ingress.pfc_xoff_ppm, PORT_PARAM_IBM, \
			"PfcStaticXoffThreshold"), \
	PORT_PARAM_LIST(T, PORT_PT_LIST_FRAC, "[0.4, 0.4, 0, 0, 0, 0, 0, 0]", 0, ingress.pfc_xon_ppm, PORT_PARAM_IBM, \
			"PfcXonResumeThreshold"), \
	PORT_PARAM_LIST(T, PORT_PT_LIST_UINT, "[65535, 65535, 0, 0, 0, 0, 0, 0]", 65535, ingress.quanta, \
			PORT_PARAM_IBM, "QuantaValue")

/* One end of @p T's PCIe link (@p side: pcie_nic or pcie_host, a struct port_pcie_params; @p at its path,
 * PORT_PARAM_NIC_PCIE or PORT_PARAM_HOST_PCIE): its four buffers, its lanes' rate and count. */
#define PORT_PARAM_PCIE_ROWS(T, side, at) \
	PORT_PARAM_ROW(T, PORT_PT_BYTES, "16KB", side.rx_header_buffer, at, "TransactionLayer", "RXHeaderBufferSize"), \
	PORT_PARAM_ROW(T, PORT_PT_BYTES, "16KB", side.tx_header_buffer, at, "TransactionLayer", "TXHeaderBufferSize"), \
	PORT_PARAM_ROW(T, PORT_PT_BYTES, "256KB", side.rx_data_buffer, at, "TransactionLayer", "RXDataBufferSize"), \
	PORT_PARAM_ROW(T, PORT_PT_BYTES, "256KB", side.tx_data_buffer, at, "TransactionLayer", "TXDataBufferSize"), \
	PORT_PARAM_ROW(T, PORT_PT_DATARATE, "31.52Gbps", side.lane_bps, at, "PhysicalLayer", "LaneBps"), \
	PORT_PARAM_RANGE(T, PORT_PT_UINT, "16", 1, 16, side.lane_count, at, "PhysicalLayer", "LaneCount")

#endif /* PORT_PARAMS_H */
