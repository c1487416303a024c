/* Building a run from its config: partition, NICs, links, capture points, records, message doorbells. */
#include "ctl_run_pvt.h"
#include "ctl_run_ctl_pvt.h"
#include "ctl_run_cap_pvt.h"
#include "ctl_run_rec_pvt.h"
#include "ctl_run_replay_pvt.h"
#include "ctl_run_rt_pvt.h"
#include "ctl_run_vt_pvt.h"

#include "app_pingpong.h"

#include <errno.h>
#include <unistd.h>
#include <sys/file.h>
#include <fcntl.h>
#include <stdarg.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The NICs' hooks run on the lcore of their NIC (@p arg): rows go to the writer through its ring. */
static void hook_event(void *arg, const struct nic_event *ev)
{
	ctl_run_lcore_event(arg, ev);
}

static void hook_trace(void *arg, const struct nic_trace *tr)
{
	ctl_run_lcore_trace(arg, tr);
}

static void hook_cm(void *arg, uint32_t fep_id, uint32_t src_ip, const struct wire_cm *cm, emu_ps_t now)
{
	struct ctl_lcore *lc = arg;

	ctl_rdma_cm(lc->run->rdma, fep_id, src_ip, cm, now);
}

/*
 * Message counts: each lcore counts its own hosts'; with one lcore the run's totals move with them, with several
 * the main lcore adds them up (ctl_run_lcore_sum).
 */
static void hook_msg_done(void *arg, uint64_t cookie, emu_ps_t now)
{
	struct ctl_lcore *lc = arg;
	struct ctl_run_state *r = lc->run;

	if (cookie & CTL_RDMA_COOKIE) {
		ctl_rdma_done(r->rdma, cookie, now);
		return;
	}
	if (cookie & CTL_CHAKRA_COOKIE) {
		ctl_chakra_done(r->chakra, cookie, now);
		return;
	}
	if (cookie & APP_PP_COOKIE) /* a ping-pong's message: its round trip ends at the reply's receipt */
		return;
	struct ctl_msg *m = &r->msgs[cookie];
	const struct port_nic *snd = &r->hosts[m->m->src];
	struct port_nic_flow fl;

	if (snd->ops->flow != NULL && snd->ops->flow(snd->dev, m->pdc, cookie, &fl) == 0) { /* its flow-fct row's */
		m->rtx = (uint32_t)(fl.retransmits < UINT32_MAX ? fl.retransmits : UINT32_MAX);
		m->has_rtx = true;
	}
	m->done = now;
	m->completed = true;
	__atomic_store_n(&lc->completed, lc->completed + 1, __ATOMIC_RELAXED);
	if (r->n_lcs == 1)
		r->n_completed++;
	/* The workload closes both ends of the message's PDC when the message completes (seed 000, Completion); in
	 * virtual time the receiver's end a close delay later (docs/parallel.md), so a run cut over threads is the
	 * same as one that is not */
	if (r->hosts[m->m->dst].ops->close_rcv != NULL)
		ctl_run_lcore_close_rcv(lc, m, now);
}

/* A Chakra transfer's last byte left its NIC (either model): the send node finishes. */
static void hook_msg_sent(void *arg, uint64_t cookie, emu_ps_t now)
{
	struct ctl_lcore *lc = arg;

	if (cookie & CTL_CHAKRA_COOKIE)
		ctl_chakra_sent(lc->run->chakra, cookie, now);
}

static void hook_msg_recv(void *arg, uint32_t fep_id, uint32_t src_ip, uint64_t wqe_id, uint64_t bytes,
			  emu_ps_t now)
{
	struct ctl_lcore *lc = arg; /* the NIC hooks' arg is the host's lcore (ctl_run_dev_lc), as hook_msg_done's */

	if (lc->run->n_pps > 0 && ctl_run_pp_recv(lc->run, fep_id, src_ip, bytes, now))
		return;
	if (lc->run->chakra != NULL)
		ctl_chakra_recv(lc->run->chakra, fep_id, src_ip, wqe_id, bytes, now);
}

static void ev_post(void *a, void *b, emu_ps_t now)
{
	struct ctl_lcore *lc = a;
	struct ctl_run_state *r = lc->run;
	struct ctl_msg *m = b;
	const struct ctl_config *cfg = r->cfg;
	const struct port_nic *h = &r->hosts[m->m->src];
	uint64_t cookie = (uint64_t)(m - r->msgs);
	uint32_t conn;

	emu_sched_set_ent(lc->rl->np->sched, m->m->src + 1); /* the post runs as its sender */

	/* a message is a connection of its own: a PDC on a UET NIC, a queue pair on a RoCE NIC */
	if (h->ops->post_msg(h->dev, cfg->hosts[m->m->dst].ip, m->m->bytes, cookie, now, &conn) < 0) {
		__atomic_store_n(&lc->post_fail, lc->post_fail + 1, __ATOMIC_RELAXED);
		if (r->n_lcs == 1)
			r->post_fail++;
		return;
	}
	m->pdc = (uint16_t)conn; /* what the receiver's close names (close_rcv: the UET NIC's PDC ids are 16-bit) */
	m->posted = true;
	__atomic_store_n(&lc->posted, lc->posted + 1, __ATOMIC_RELAXED);
	if (r->n_lcs == 1)
		r->n_posted++;
}

static bool host_has_port(const struct ctl_run_state *r, uint32_t host);

static void hook_roce_recv(void *arg, uint32_t fep_id, uint32_t src_ip, uint32_t qpn, uint32_t msn, uint64_t bytes,
			   emu_ps_t now)
{
	struct ctl_lcore *lc = arg;

	ctl_chakra_roce_recv(lc->run->chakra, fep_id, src_ip, qpn, msn, bytes, now);
}

static void hook_roce_rate(void *arg, uint32_t fep_id, uint32_t qpn, uint64_t bps, emu_ps_t now)
{
	struct ctl_lcore *lc = arg;

	ctl_records_roce_rate(lc->run->records, fep_id, qpn, bps, now);
}

/* The hosts' Scala RoCE NICs (server.nic ScalaRoceNic). */
static int make_roces(struct ctl_run_state *r, char *err, size_t errlen)
{
	const struct ctl_config *cfg = r->cfg;
	const struct ctl_app *app = cfg->rdma_app >= 0 ? &cfg->apps[cfg->rdma_app] : NULL;
	uint64_t n_msgs = 0;

	for (uint32_t a = 0; a < cfg->n_apps; a++)
		n_msgs += cfg->apps[a].n_list;
	for (uint32_t i = 0; i < cfg->n_hosts; i++) {
		uint64_t qps, wqes;

		ctl_rdma_host_budget(r->rdma, i, &qps, &wqes);
		qps += n_msgs; /* a queue pair per message of the messages workload */
		qps += ctl_chakra_host_pdcs(r->chakra, i); /* at most a queue pair per Chakra send and receive */
		struct roce_env env = {
			.np = ctl_run_dev_np(r, i), .params = &cfg->roce, .fep_id = i, .name = cfg->hosts[i].name,
			.ip = cfg->hosts[i].ip, .neigh = r->neigh, .n_neigh = cfg->n_hosts,
			/* the far ends of the connections that reach it come on top of its own */
			.max_qps = (uint32_t)(4096 + (qps < (1u << 20) ? 2 * qps : 1u << 21)),
			.max_wqes = (uint32_t)(wqes < UINT32_MAX ? wqes : UINT32_MAX),
			/* seed 003, Traffic class on the Scala RoCE NIC */
			.data_tc = app != NULL ? app->data_tc : 0, .ctrl_tc = app != NULL ? app->control_tc : 1,
			.doorbell_bytes = ctl_rdma_doorbell_bytes(r->rdma),
			.hooks = { .arg = ctl_run_dev_lc(r, i), .msg_done = hook_msg_done, .msg_recv = hook_roce_recv,
				   .rate = hook_roce_rate },
		};
		memcpy(env.mac, cfg->hosts[i].mac, 6);
		if (r->rdma != NULL)
			env.hooks.cm_recv = hook_cm;
		if (r->chakra != NULL) /* a Chakra send finishes at its last byte sent */
			env.hooks.msg_sent = hook_msg_sent;
		env.has_gw = cfg->hosts[i].has_gw && !host_has_port(r, i);
		memcpy(env.gw_mac, cfg->hosts[i].gw_mac, 6);
		struct roce *rn = roce_create(&env);

		if (rn == NULL)
			goto nomem;
		r->hosts[i] = (struct port_nic){ .dev = rn, .ops = &roce_port_ops };
		r->n_full++; /* the RoCE NIC runs in one process only (single_lcore): never a shell */
	}
	return 0;
nomem:
	snprintf(err, errlen, "out of memory creating %u RoCE NICs", cfg->n_hosts);
	return -ENOMEM;
}

/* Peer profiles (nic.PeerProfile, topology.hosts[].profile): each host's attributes when any host has one. */
static int host_profiles(struct ctl_run_state *r)
{
	const struct ctl_config *cfg = r->cfg;
	bool any = cfg->nic.peer_profile != NIC_PROFILE_NONE;

	for (uint32_t i = 0; i < cfg->n_hosts; i++)
		any = any || cfg->hosts[i].has_profile;
	if (!any)
		return 0;
	r->host_nic = calloc(cfg->n_hosts, sizeof(*r->host_nic));
	if (r->host_nic == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; i < cfg->n_hosts; i++) {
		r->host_nic[i] = cfg->nic;
		if (nic_params_profile(&r->host_nic[i], cfg->hosts[i].has_profile ? cfg->hosts[i].profile
										    : cfg->nic.peer_profile) < 0)
			return -EINVAL;
	}
	return 0;
}

static int make_nics(struct ctl_run_state *r, char *err, size_t errlen)
{
	const struct ctl_config *cfg = r->cfg;

	r->neigh = calloc(cfg->n_hosts, sizeof(*r->neigh));
	if (r->neigh == NULL)
		goto nomem;
	for (uint32_t i = 0; i < cfg->n_hosts; i++) {
		r->neigh[i].ip = cfg->hosts[i].ip;
		memcpy(r->neigh[i].mac, cfg->hosts[i].mac, 6);
	}
	r->hosts = calloc(cfg->n_hosts, sizeof(*r->hosts));
	if (r->hosts == NULL)
		goto nomem;
	if (cfg->nic_model == CTL_NIC_ROCE) /* where the model is chosen */
		return make_roces(r, err, errlen);
	if (host_profiles(r) < 0)
		goto nomem;
	for (uint32_t i = 0; i < cfg->n_hosts; i++) {
		uint64_t pdcs, wqes;

		/* the application's connections and WQEs come on top of the messages' PDCs: no pool of the NIC caps
		 * what the application keeps outstanding (seed 003, Closed-loop generation) */
		ctl_rdma_host_budget(r->rdma, i, &pdcs, &wqes);
		pdcs += ctl_chakra_host_pdcs(r->chakra, i);
		struct nic_env env = {
			.np = ctl_run_dev_np(r, i),
			.params = ctl_run_host_nic(r, i),
			.fep_id = i,
			.name = cfg->hosts[i].name,
			.ip = cfg->hosts[i].ip,
			.seed = cfg->sim.random_seed,
			.neigh = r->neigh,
			.n_neigh = cfg->n_hosts,
			.max_pdcs = (uint32_t)(8192 + (pdcs < UINT32_MAX - 8192 ? pdcs : UINT32_MAX - 8192)),
			/* a quarter of the 8,192 any one source may hold, plus what the application opens */
			.rcv_per_peer_max = (uint32_t)(2048 + (pdcs < UINT32_MAX - 2048 ? pdcs : UINT32_MAX - 2048)),
			.max_wqes = (uint32_t)(wqes < UINT32_MAX ? wqes : UINT32_MAX),
			.doorbell_bytes = ctl_rdma_doorbell_bytes(r->rdma),
			.trace = ctl_records_want_trace(cfg),
			.shell = ctl_run_dev_shell(r, i),
			.hooks = { .arg = ctl_run_dev_lc(r, i), .event = hook_event, .msg_done = hook_msg_done, .trace = hook_trace },
		};
		memcpy(env.mac, cfg->hosts[i].mac, 6);
		if (r->rdma != NULL) /* without the application a setup message is a frame the NIC does not take */
			env.hooks.cm_recv = hook_cm;
		if (r->chakra != NULL) { /* Chakra: receives complete on the whole message, sends at the last byte sent */
			env.hooks.msg_recv = hook_msg_recv;
			env.hooks.msg_sent = hook_msg_sent;
		}
		if (cfg->n_pps > 0) /* a ping-pong answers a whole message received */
			env.hooks.msg_recv = hook_msg_recv;
		/* On a switch the NIC addresses its gateway; a host on a real port keeps addressing its peers. */
		env.has_gw = cfg->hosts[i].has_gw && !host_has_port(r, i);
		memcpy(env.gw_mac, cfg->hosts[i].gw_mac, 6);
		struct nic *n = nic_create(&env);

		if (n == NULL)
			goto nomem;
		r->hosts[i] = (struct port_nic){ .dev = n, .ops = &nic_port_ops };
		r->n_full += !env.shell;
	}
	return 0;
nomem:
	snprintf(err, errlen, "out of memory creating %u NICs", cfg->n_hosts);
	return -ENOMEM;
}

struct net_endpoint ctl_run_host_ep(struct ctl_run_state *r, uint32_t host)
{
	const struct port_nic *h = &r->hosts[host];

	return (struct net_endpoint){ .dev = h->dev, .ops = h->ops->dev_ops, .port = 0, .ent = host + 1 };
}

void ctl_run_host_attach(struct ctl_run_state *r, uint32_t h, struct net_dir *d)
{
	r->hosts[h].ops->attach(r->hosts[h].dev, d);
}

uint64_t ctl_run_host_rx_payload(const struct ctl_run_state *r, uint32_t h)
{
	return r->hosts[h].ops->rx_payload(r->hosts[h].dev);
}

/* A host bound to a DPDK port takes the port instead of its emulated link (real time only). */
static bool host_has_port(const struct ctl_run_state *r, uint32_t host)
{
	if (!ctl_run_has_ports(r))
		return false;
	for (uint32_t i = 0; i < r->cfg->n_ports; i++)
		for (uint32_t k = 0; k < r->cfg->ports[i].n_hosts; k++)
			if (r->cfg->ports[i].hosts[k] == host)
				return true;
	return false;
}

/* Hand each direction of @p l the fixture entries of its sender (impair[].from). */
static int set_impairs(struct ctl_run_state *r, struct net_link *l, const struct ctl_link *cl)
{
	struct net_impair *imp = calloc(cl->n_impair, sizeof(*imp));
	const struct wire_dscp_map *dscp = &r->cfg->nic.dscp;
	uint32_t n = 0;

	if (imp == NULL)
		return -ENOMEM;
	for (int dir = 0; dir < 2; dir++) {
		uint32_t from = dir == 0 ? cl->a : cl->b, first = n;
		for (uint32_t i = 0; i < cl->n_impair; i++)
			if (cl->impair[i].from == from)
				imp[n++] = (struct net_impair){ .nth = cl->impair[i].data_frame,
								.action = cl->impair[i].action,
								.delay = cl->impair[i].delay };
		net_dir_set_impair(&l->dir[dir], imp + first, n - first, dscp->dscp[WIRE_ROLE_TRIMMED],
				   dscp->dscp[WIRE_ROLE_TRIMMED_LASTHOP]);
	}
	r->impairs_owned[r->n_impairs_owned++] = imp;
	return 0;
}

static int make_links(struct ctl_run_state *r, char *err, size_t errlen)
{
	const struct ctl_config *cfg = r->cfg;

	if (cfg->topo_type == CTL_TOPO_GENERATED)
		return ctl_run_fabric(r, err, errlen);
	r->n_links = cfg->n_links;
	r->links = calloc(cfg->n_links ? cfg->n_links : 1, sizeof(*r->links));
	r->impairs_owned = calloc(cfg->n_links ? cfg->n_links : 1, sizeof(*r->impairs_owned));
	if (r->links == NULL || r->impairs_owned == NULL) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < cfg->n_links; i++) {
		const struct ctl_link *cl = &cfg->links[i];
		uint64_t bps = cl->data_rate_bps ? cl->data_rate_bps : ctl_config_host_bps(cfg);
		emu_ps_t delay = cl->delay_ps != EMU_PS_NEVER ? cl->delay_ps : ctl_config_host_delay(cfg);
		struct net_link *l = &r->links[i];

		net_link_init(l, ctl_run_dev_np(r, cl->a), bps, delay, ctl_run_host_ep(r, cl->a), ctl_run_host_ep(r, cl->b));
		net_link_parts(l, ctl_run_dev_np(r, cl->a), ctl_run_dev_np(r, cl->b));
		if (cl->n_impair > 0 && set_impairs(r, l, cl) < 0) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		if (!host_has_port(r, cl->a))
			ctl_run_host_attach(r, cl->a, &l->dir[0]);
		if (!host_has_port(r, cl->b))
			ctl_run_host_attach(r, cl->b, &l->dir[1]);
	}
	return 0;
}

/* mkdir -p: create @p dir and any missing parents. Returns 0 or -errno. */
static int mkdir_p(const char *dir)
{
	char path[PATH_MAX];
	size_t n = strlen(dir);

	if (n == 0 || n >= sizeof(path))
		return -ENAMETOOLONG;
	memcpy(path, dir, n + 1);
	for (char *p = path + 1; *p != '\0'; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(path, 0755) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

/*
 * Take DIR/.uetemu.lock for the run (flock, released when the process ends, however it ends), so that two runs
 * never write into one directory: their rows would interleave and their captures corrupt each other. The file
 * holds the pid of the run that has it. Returns 0, or -EBUSY with the other run's pid in @p err.
 */
static int lock_outputs(struct ctl_run_state *r, char *err, size_t errlen)
{
	char path[PATH_MAX], pid[32] = "";
	int fd;

	if (r->opts->rank > 0) /* MPI: the run's rank 0 holds it for every rank */
		return 0;
	snprintf(path, sizeof(path), "%s/.uetemu.lock", r->opts->out_dir);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -errno;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		ssize_t n = pread(fd, pid, sizeof(pid) - 1, 0);

		pid[n > 0 ? n : 0] = '\0';
		pid[strcspn(pid, "\n")] = '\0';
		snprintf(err, errlen, "%s: another uetemu run is writing its outputs here (pid %s); give this one "
			 "another --out", r->opts->out_dir, pid[0] ? pid : "unknown");
		close(fd);
		return -EBUSY;
	}
	int n = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());

	if (ftruncate(fd, 0) != 0 || pwrite(fd, pid, (size_t)n, 0) != n) {
		/* the lock holds without the pid: only the message of a second run loses it */
	}
	r->lock_fd = fd;
	return 0;
}

static int make_outputs(struct ctl_run_state *r, char *err, size_t errlen)
{
	const struct ctl_config *cfg = r->cfg;
	const char *dir = r->opts->out_dir;
	int rc = mkdir_p(dir);
	struct stat st;

	if (rc < 0) {
		snprintf(err, errlen, "%s: cannot create output directory: %s", dir, strerror(-rc));
		return rc;
	}
	if (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode)) { /* mkdir_p() took EEXIST for a directory */
		snprintf(err, errlen, "--out must be a directory: %s is a file", dir);
		return -ENOTDIR;
	}
	if ((rc = lock_outputs(r, err, errlen)) < 0)
		return rc;
	if ((rc = ctl_run_caps_open(r, err, errlen)) < 0)
		return rc;
	/* uet-events: the UET NIC's record (its hosts' typed view, port_nic_uet()) */
	if (cfg->nic.enable_event_logging && cfg->n_hosts > 0 && port_nic_uet(&r->hosts[0]) != NULL) {
		r->events = ctl_records_events_open(cfg, dir, r->epoch_s, err, errlen);
		if (r->events == NULL)
			return -errno;
	}
	r->records = ctl_records_open(cfg, r->hosts, r->sws, r->n_sws, r->topo, dir, r->epoch_s, err, errlen);
	if (r->records == NULL)
		return -errno;
	return 0;
}

/* Append the line @p fmt to @p err (after a newline when it holds errors already), while it fits. -EINVAL. */
__attribute__((format(printf, 3, 4))) static int add_err(char *err, size_t errlen, const char *fmt, ...)
{
	size_t used = strnlen(err, errlen);
	va_list ap;

	if (used + 2 >= errlen)
		return -EINVAL;
	if (used > 0)
		err[used++] = '\n';
	va_start(ap, fmt);
	int n = vsnprintf(err + used, errlen - used, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= errlen - used)
		err[used > 0 ? used - 1 : 0] = '\0'; /* a line that does not fit whole is left out */
	return -EINVAL;
}

/* Whether host @p h of an explicit topology has a link in this mode: an emulated one, or a DPDK port. */
static bool host_linked(const struct ctl_run_state *r, uint32_t h)
{
	bool linked = host_has_port(r, h);

	for (uint32_t l = 0; l < r->cfg->n_links && !linked; l++)
		linked = r->cfg->links[l].a == h || r->cfg->links[l].b == h;
	return linked;
}

/* The switch port facing external host @p h is bound to a DPDK port (real time only). */
static bool external_bound(const struct ctl_run_state *r, uint32_t h)
{
	for (uint32_t i = 0; ctl_run_has_ports(r) && i < r->cfg->n_ports; i++)
		if (r->cfg->ports[i].sw && r->cfg->ports[i].sw_host == h)
			return true;
	return false;
}

/*
 * A generated fabric's external hosts: no emulated NIC posts for one, and messages reach one only through the
 * DPDK port bound to the switch port it faces (real time). Every such error is reported.
 */
static int check_external(struct ctl_run_state *r, char *err, size_t errlen)
{
	const struct ctl_config *cfg = r->cfg;
	int rc = 0;

	for (uint32_t a = 0; a < cfg->n_apps; a++)
		for (uint32_t i = 0; i < cfg->apps[a].n_list; i++) {
			const struct ctl_message *m = &cfg->apps[a].list[i];
			if (cfg->hosts[m->src].external)
				rc = add_err(err, errlen, "%s: applications.%u.list.%u: host '%s' is external: the device "
					     "behind its switch port sends, not uetemu", cfg->path, a, i,
					     cfg->hosts[m->src].name);
			else if (cfg->hosts[m->dst].external && !external_bound(r, m->dst))
				rc = add_err(err, errlen, "%s: applications.%u.list.%u: host '%s' is external, reached "
					     "only through a switch port bound to a DPDK port, in %s mode%s", cfg->path, a, i,
					     cfg->hosts[m->dst].name,
					     ctl_run_has_ports(r) ? "real-time" : "virtual",
					     ctl_run_has_ports(r) ? "; bind it in ports" : "; use --mode realtime");
		}
	if (cfg->rdma_app >= 0)
		for (uint32_t h = 0; h < cfg->n_hosts; h++)
			if (cfg->hosts[h].external)
				rc = add_err(err, errlen, "%s: host '%s' is external: the ScalaRdma application runs on "
					     "every host, so it needs emulated hosts only", cfg->path, cfg->hosts[h].name);
	return rc;
}

/* Every message's sender must have somewhere to send in this mode. Every such sender is reported. */
static int check_reachable(struct ctl_run_state *r, char *err, size_t errlen)
{
	const struct ctl_config *cfg = r->cfg;
	int rc = 0;

	if (cfg->topo_type == CTL_TOPO_GENERATED)
		return check_external(r, err, errlen); /* every other host of a generated fabric is on it */
	for (uint32_t a = 0; a < cfg->n_apps; a++)
		for (uint32_t i = 0; i < cfg->apps[a].n_list; i++) {
			const struct ctl_message *m = &cfg->apps[a].list[i];
			/* the sender must send somewhere, and the receiver be reachable: else the run never ends */
			for (int end = 0; end < 2; end++) {
				uint32_t h = end == 0 ? m->src : m->dst;
				/* a receiver off this process (a host of the config reached through a sender's DPDK port,
				 * listed for its address and MAC) is the real network's to reach */
				if (host_linked(r, h) || (end == 1 && host_has_port(r, m->src)))
					continue;
				rc = add_err(err, errlen,
					     "%s: applications.%u.list.%u: host '%s' %s but has no link in %s mode%s",
					     cfg->path, a, i, cfg->hosts[h].name, end == 0 ? "sends" : "receives",
					     ctl_run_has_ports(r) ? "real-time" : "virtual",
					     cfg->n_ports ? " (ports are used only with --mode realtime)" : "");
			}
		}
	return rc;
}

static int schedule_messages(struct ctl_run_state *r, char *err, size_t errlen)
{
	const struct ctl_config *cfg = r->cfg;
	uint32_t n = 0;

	for (uint32_t a = 0; a < cfg->n_apps; a++)
		n += cfg->apps[a].n_list;
	/* real time and its re-run keep room for the messages control posts (ctl_run_ctl.c) */
	r->msgs = calloc(n + (ctl_run_has_ports(r) ? CTL_RUN_CTL_MSGS : 0) + 1, sizeof(*r->msgs));
	if (r->msgs == NULL || (ctl_run_has_ports(r) && ctl_run_ctl_create(r) < 0))
		return -ENOMEM;
	for (uint32_t a = 0; a < cfg->n_apps; a++)
		for (uint32_t i = 0; i < cfg->apps[a].n_list; i++) {
			const struct ctl_message *cm = &cfg->apps[a].list[i];
			/* --partition: another process sends the messages of its own hosts */
			if (r->dev_lc[cm->src] == CTL_LC_REMOTE)
				continue;
			struct ctl_msg *m = &r->msgs[r->n_msgs++];
			struct net_part *np = ctl_run_dev_np(r, cm->src);
			int rc;

			m->m = cm;
			emu_sched_set_ent(np->sched, cm->src + 1); /* its sender's: an order however the fabric is cut */
			rc = net_sched(np, m->m->start, ev_post, ctl_run_dev_lc(r, cm->src), m, NULL);
			emu_sched_set_ent(np->sched, 0);
			if (rc < 0) {
				snprintf(err, errlen, "too many messages for the event scheduler");
				return -ENOSPC;
			}
		}
	return 0;
}

int ctl_run_msg_sched(struct ctl_run_state *r, uint32_t i, emu_ps_t now)
{
	struct ctl_msg *m = &r->msgs[i];
	struct net_part *np = ctl_run_dev_np(r, m->m->src);
	int rc;

	emu_sched_set_ent(np->sched, m->m->src + 1); /* as schedule_messages() does */
	rc = net_sched(np, now, ev_post, ctl_run_dev_lc(r, m->m->src), m, NULL);
	emu_sched_set_ent(np->sched, 0);
	return rc < 0 ? -ENOSPC : 0;
}

uint32_t ctl_run_msg_add(struct ctl_run_state *r, const struct ctl_message *cm)
{
	uint32_t i = r->n_msgs;

	r->msgs[i] = (struct ctl_msg){ .m = cm };
	__atomic_store_n(&r->n_msgs, i + 1, __ATOMIC_RELEASE); /* telemetry reads the count */
	return i;
}

int ctl_run_msg_post(struct ctl_run_state *r, const struct ctl_message *cm, emu_ps_t now)
{
	uint32_t i = r->n_msgs;

	r->msgs[i] = (struct ctl_msg){ .m = cm };
	if (ctl_run_msg_sched(r, i, now) < 0)
		return -ENOSPC;
	__atomic_store_n(&r->n_msgs, i + 1, __ATOMIC_RELEASE); /* telemetry reads the count */
	return 0;
}

bool ctl_run_host_sends(const struct ctl_run_state *r, uint32_t h)
{
	if (r->cfg->hosts[h].external)
		return false;
	return r->cfg->topo_type == CTL_TOPO_GENERATED || host_linked(r, h);
}

bool ctl_run_host_on_port(const struct ctl_run_state *r, uint32_t h)
{
	return host_has_port(r, h);
}

/* The congestion-control stop rules need each NIC's link rate, known once links are made. */
static int check_cc(struct ctl_run_state *r, char *err, size_t errlen)
{
	char why[256];

	int rc = 0;

	for (uint32_t i = 0; i < r->cfg->n_hosts; i++) {
		if (port_nic_uet(&r->hosts[i]) == NULL) /* the UET NIC's attributes: another model has none */
			continue;
		uint64_t bps = r->hosts[i].ops->link_bps(r->hosts[i].dev);
		if (nic_params_check_link(ctl_run_host_nic(r, i), bps, why, sizeof(why)) < 0)
			rc = add_err(err, errlen, "%s: nic (host %s): %s", r->cfg->path, r->cfg->hosts[i].name, why);
	}
	return rc;
}

/* What in the run needs a single lcore (ctl_run_lcore.c refuses it on more), or NULL. */
static const char *one_lcore_only(const struct ctl_run_state *r, char *buf, size_t n)
{
	const struct port_nic_ops *nic = ctl_config_nic_model(r->cfg)->ops;

	if (r->rdma != NULL)
		return "the ScalaRdma application";
	if (r->chakra != NULL)
		return "the Chakra workload";
	if (nic->single_lcore) {
		snprintf(buf, n, "the %s", nic->label);
		return buf;
	}
	if (r->cfg->n_replays > 0)
		return "a replay";
	if (r->cfg->n_pps > 0)
		return "a pingpong or responder application";
	if (r->opts->record_dir != NULL)
		return "a recorded session";
	return NULL;
}

/* The first capture that rotates its files, or -1. */
static int rotating_capture(const struct ctl_config *cfg)
{
	for (uint32_t i = 0; i < cfg->n_captures; i++)
		if (cfg->captures[i].rotate >= 2)
			return (int)i;
	return -1;
}

/* What a run over MPI ranks cannot do; @p one: what runs on one thread only, or NULL. 0 or -EINVAL. */
static int mpi_checks(const struct ctl_run_state *r, const char *one, char *err, size_t errlen)
{
	const struct ctl_config *cfg = r->cfg;

	if (r->opts->mode != CTL_MODE_VIRTUAL || r->rerun)
		snprintf(err, errlen, "MPI ranks run virtual time only: run without mpirun");
	else if (r->opts->threads > 1 && r->opts->threads != CTL_THREADS_AUTO) /* auto: one per rank */
		snprintf(err, errlen, "--threads with MPI ranks: each rank runs one thread; give mpirun -np instead");
	else if (one != NULL)
		snprintf(err, errlen, "%s runs in one process: run without mpirun (or --threads 1)", one);
	else if (rotating_capture(cfg) >= 0)
		snprintf(err, errlen, "%s: captures.%d rotates its files: each MPI rank writes a file of its own; run "
			 "with --threads instead of mpirun, or without rotate", cfg->path, rotating_capture(cfg));
	else if (cfg->n_parts < r->opts->ranks)
		snprintf(err, errlen, "%s: %u MPI ranks for %u partitions: give at most %u ranks (mpirun -np)",
			 cfg->path, r->opts->ranks, cfg->n_parts, cfg->n_parts);
	else
		return 0;
	return -EINVAL;
}

int ctl_run_build_models(struct ctl_run_state *r, char *err, size_t errlen)
{
	const struct ctl_config *cfg = r->cfg;
	uint32_t n_msgs = 0;
	int rc;

	if (errlen > 0)
		err[0] = '\0';
	for (uint32_t a = 0; a < cfg->n_apps; a++)
		n_msgs += cfg->apps[a].n_list;
	if ((rc = ctl_rdma_create(r->cfg, &r->rdma, err, errlen)) < 0 ||
	    (rc = ctl_chakra_create(r->cfg, &r->chakra, err, errlen)) < 0)
		return rc;
	r->stop = cfg->sim.duration;
	r->has_stop = cfg->sim.duration != 0 || ctl_rdma_stop(r->rdma, &r->stop) || ctl_chakra_stop(r->chakra, &r->stop);
	/* Per NIC: up to ~54 fetches + their frames, held ACKs, frames in flight on its link: 8192 covers it with
	 * room; plus one doorbell event per message, and the ScalaRdma connections' start events. Caps, not
	 * allocations: the scheduler and the pool take memory as they fill. */
	uint64_t want_events = 8192 * (uint64_t)(cfg->n_hosts + 1) + n_msgs + ctl_rdma_events(r->rdma) +
			       ctl_chakra_events(r->chakra);
	uint32_t max_events = want_events > UINT32_MAX ? UINT32_MAX : (uint32_t)want_events;
	uint32_t max_pkts = 8192 * (cfg->n_hosts + 1);

	if (net_part_init(&r->np, max_events, max_pkts) < 0) {
		snprintf(err, errlen, "out of memory for the event scheduler and packet pool");
		return -ENOMEM;
	}
	unsigned ids[CTL_PARTS_MAX];
	uint32_t n_lcores = ctl_run_rt_lcores(r, ids, CTL_PARTS_MAX);
	char one_buf[64];
	const char *one = one_lcore_only(r, one_buf, sizeof(one_buf));
	const char *which = "";

	if (n_lcores > 1 && one != NULL && ctl_run_eal_lcores(r->opts, &which) == 0) {
		/* the EAL's default (every core) was not asked for: run on the main lcore rather than refuse */
		fprintf(stderr, "[uetemu] one lcore: %s runs on one lcore (give -l to choose the lcores)\n", one);
		n_lcores = 1;
	}
	uint32_t threads = r->opts->threads;

	if (r->opts->mode == CTL_MODE_VIRTUAL && threads == 0) /* -- -l 0-1: the lcores' count, as in real time */
		threads = ctl_run_eal_lcores(r->opts, &which);
	if (threads == CTL_THREADS_AUTO) /* one where something runs on one thread only, or over MPI ranks */
		threads = one != NULL || r->opts->ranks > 1 || r->opts->mode != CTL_MODE_VIRTUAL || r->rerun
				  ? 1 : ctl_run_vt_auto(r);
	if (r->opts->mode == CTL_MODE_VIRTUAL && !r->rerun && threads > 1) {
		n_lcores = threads;
		if (one != NULL) {
			fprintf(stderr, "[uetemu] one thread: %s runs on one thread\n", one);
			n_lcores = 1;
		}
	}
	if (r->opts->ranks > 1 && (rc = mpi_checks(r, one, err, errlen)) < 0)
		return rc;
	if (r->opts->ranks > 1)
		n_lcores = r->opts->ranks;

	n_lcores = n_lcores < CTL_PARTS_MAX ? n_lcores : CTL_PARTS_MAX;
	if ((rc = ctl_run_lcore_plan(r, ctl_run_rt_dp(r) != NULL ? ids : NULL, n_lcores,
				     max_events, max_pkts, err, errlen)) < 0)
		return rc;
	/* The reachability errors and the link-rate rules are both reported before giving up. */
	int unreachable = check_reachable(r, err, errlen);

	if ((rc = make_nics(r, err, errlen)) < 0 || (rc = make_links(r, err, errlen)) < 0)
		return rc;
	int split = ctl_run_lcore_links(r, err, errlen);

	if (split == 0)
		split = ctl_run_vt_plan(r, err, errlen);
	if (split == 0 && r->topo != NULL && ctl_run_fabric_faults(r) < 0) {
		snprintf(err, errlen, "too many faults for the event scheduler");
		split = -ENOSPC;
	}

	rc = check_cc(r, err, errlen);
	if (r->opts->mode == CTL_MODE_REALTIME) {
		int mtu = ctl_run_mtu_check(r, err, errlen);
		rc = rc < 0 ? rc : mtu;
	}
	rc = rc < 0 ? rc : split;
	int caps = ctl_run_caps_check(r, err, errlen);

	if (unreachable == 0 && rc == 0 && caps == 0)
		caps = ctl_run_replays_open(r, err, errlen); /* the captures to replay are read here (validate too) */
	return unreachable < 0 ? unreachable : rc < 0 ? rc : caps;
}

int ctl_run_build(struct ctl_run_state *r, char *err, size_t errlen)
{
	int rc;

	if ((rc = ctl_run_build_models(r, err, errlen)) < 0)
		return rc;
	if (r->opts->mode == CTL_MODE_REALTIME && ctl_run_lcore_rings(r) < 0) {
		snprintf(err, errlen, "out of memory for the rings between lcores");
		return -ENOMEM;
	}
	if ((rc = make_outputs(r, err, errlen)) < 0 ||
	    (rc = schedule_messages(r, err, errlen)) < 0 || (rc = ctl_run_pp_start(r, err, errlen)) < 0 ||
	    (rc = ctl_rdma_start(r->rdma, r->hosts, &r->np, r->opts->out_dir, r->epoch_s, err, errlen)) < 0 ||
	    (rc = ctl_chakra_start(r->chakra, r->hosts, &r->np, r->opts->out_dir, r->epoch_s, err, errlen)) < 0)
		return rc;
	if (ctl_chakra_su_stats(r->chakra)) /* the scale-up devices' rows in nd-stats */
		ctl_records_nd_extra(r->records, ctl_chakra_nd_rows, r->chakra);
	/* the expected end, for the records' size projection: the stop time, else the last message's start */
	emu_ps_t end = r->has_stop ? r->stop : 0;

	for (uint32_t i = 0; !r->has_stop && i < r->n_msgs; i++)
		end = r->msgs[i].m->start > end ? r->msgs[i].m->start : end;
	ctl_records_expect(r->records, end);
	return 0;
}

void ctl_run_teardown(struct ctl_run_state *r)
{
	const struct ctl_config *cfg = r->cfg;

	ctl_run_caps_free(r);
	ctl_run_replays_free(r);
	ctl_run_rec_free(r);
	ctl_run_rerun_free(r);
	rec_csv_close(r->events, NULL, 0);
	r->events = NULL;
	ctl_records_close(r->records, r->end, NULL, 0);
	r->records = NULL;
	ctl_rdma_destroy(r->rdma);
	r->rdma = NULL;
	ctl_chakra_destroy(r->chakra);
	r->chakra = NULL;
	ctl_run_pp_free(r);
	ctl_run_fabric_fini(r);
	for (uint32_t i = 0; r->hosts != NULL && i < cfg->n_hosts; i++)
		if (r->hosts[i].ops != NULL)
			r->hosts[i].ops->destroy(r->hosts[i].dev);
	free(r->hosts);
	free(r->host_nic);
	free(r->neigh);
	free(r->links);
	for (uint32_t i = 0; i < r->n_impairs_owned; i++)
		free(r->impairs_owned[i]);
	free(r->impairs_owned);
	free(r->msgs);
	ctl_run_ctl_free(r);
	ctl_run_ext_free(r);
	ctl_run_vt_fini(r);
	ctl_run_lcore_fini(r);
	ctl_run_rt_free(r);
	net_part_fini(&r->np);
	if (r->lock_fd > 0)
		close(r->lock_fd);
	memset(r, 0, sizeof(*r));
}
