/*
 * uetemu pcap-info FILE [--json]: what a capture holds, without Wireshark. pcap/ reads and counts (cap_info_read());
 * this file prints the counts as a table or as JSON (docs/capture.md, pcap-info).
 */
#include "ctl_cli_pvt.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cap.h"

/* "2026-01-01T00:00:00.000000085Z" for @p ns since 1970. */
static void fmt_time(char *buf, size_t len, int64_t ns)
{
	time_t s = (time_t)(ns / 1000000000);
	long frac = (long)(ns % 1000000000);
	struct tm tm;

	if (frac < 0) {
		frac += 1000000000;
		s--;
	}
	if (gmtime_r(&s, &tm) == NULL) {
		snprintf(buf, len, "%" PRId64 " ns", ns);
		return;
	}
	size_t n = strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);

	snprintf(buf + n, len - n, ".%09ldZ", frac);
}

/* Text from the file, printable: anything else shows as '?'. */
static void put_text(FILE *f, const char *s)
{
	for (; *s != '\0'; s++)
		fputc(*s >= 0x20 && *s < 0x7f ? *s : '?', f);
}

/* A JSON string of bytes from the file: escaped, and anything outside printable ASCII as \u00XX. */
static void put_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s != '\0'; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20 || ch >= 0x7f)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

static void fmt_ip(char *buf, size_t len, uint32_t ip)
{
	snprintf(buf, len, "%u.%u.%u.%u", ip >> 24, (ip >> 16) & 0xff, (ip >> 8) & 0xff, ip & 0xff);
}

static const char *nack_name(unsigned code)
{
	return code == WIRE_NACK_TRIMMED ? "UET_TRIMMED" : code == WIRE_NACK_TRIMMED_LASTHOP ? "UET_TRIMMED_LASTHOP" : "";
}

static uint64_t sum(const uint64_t *v, int from, int to)
{
	uint64_t n = 0;

	for (int i = from; i < to; i++)
		n += v[i];
	return n;
}

static void text_file(FILE *f, const char *path, const struct cap_info *ci)
{
	const struct cap_read_info *fi = &ci->file;
	char a[48], b[48];

	fprintf(f, "file            %s: %s, %s-endian", path, fi->format == CAP_FORMAT_PCAPNG ? "pcapng" : "pcap",
		fi->big_endian ? "big" : "little");
	if (fi->format == CAP_FORMAT_PCAPNG)
		fprintf(f, ", %u section%s, %llu blocks", fi->sections, fi->sections == 1 ? "" : "s",
			(unsigned long long)fi->blocks);
	else
		fprintf(f, ", %s timestamps", fi->nanosecond ? "nanosecond" : "microsecond");
	fputc('\n', f);
	for (uint32_t i = 0; i < fi->n_ifaces; i++) {
		const struct cap_iface *in = &fi->ifaces[i];

		fprintf(f, "interface %-5u ", i);
		put_text(f, in->name[0] ? in->name : "(no name)");
		fprintf(f, ": link type %u%s, snaplen %u", in->linktype, in->linktype == 1 ? " (Ethernet)" : "",
			in->snaplen);
		if (in->speed_bps)
			fprintf(f, ", %.3f Gb/s", (double)in->speed_bps / 1e9);
		fprintf(f, ", %llu frames\n", (unsigned long long)in->frames);
	}
	fprintf(f, "frames          %llu (%llu bytes captured of %llu); %llu cut by the snap length and decoded from "
		   "their headers, %llu cut inside their headers\n", (unsigned long long)ci->frames,
		(unsigned long long)ci->bytes, (unsigned long long)ci->orig_bytes, (unsigned long long)ci->cut,
		(unsigned long long)ci->cut_in_headers);
	fmt_time(a, sizeof(a), ci->first_ns);
	fmt_time(b, sizeof(b), ci->last_ns);
	if (ci->frames > 0)
		fprintf(f, "time            %s to %s: %.9f s\n", a, b, (double)(ci->last_ns - ci->first_ns) / 1e9);
}

static void text_kinds(FILE *f, const struct cap_info *ci)
{
	fprintf(f, "UET             data %llu (retransmissions %llu), trimmed %llu, ACK %llu, NACK %llu",
		(unsigned long long)ci->data, (unsigned long long)ci->retx, (unsigned long long)ci->trimmed,
		(unsigned long long)ci->acks, (unsigned long long)ci->nacks);
	for (unsigned c = 0; c < 256; c++)
		if (ci->nack_codes[c])
			fprintf(f, " [code %u%s%s: %llu]", c, *nack_name(c) ? " " : "", nack_name(c),
				(unsigned long long)ci->nack_codes[c]);
	fprintf(f, ", probes %llu, probe ACKs %llu, other control %llu\n", (unsigned long long)ci->probes,
		(unsigned long long)ci->probe_acks, (unsigned long long)ci->cp_other);
	fprintf(f, "PFC             %llu frames (%llu pauses, %llu resumes)\n", (unsigned long long)ci->pfc,
		(unsigned long long)ci->pfc_pauses, (unsigned long long)ci->pfc_resumes);
	fprintf(f, "setup           %llu ConnectRequest, %llu ConnectReply, %llu ReadyToUse\n",
		(unsigned long long)ci->cm[WIRE_CM_REQ], (unsigned long long)ci->cm[WIRE_CM_REP],
		(unsigned long long)ci->cm[WIRE_CM_RTU]);
	fprintf(f, "ECN             not-ECT %llu, ECT(1) %llu, ECT(0) %llu, CE %llu\n", (unsigned long long)ci->ecn[0],
		(unsigned long long)ci->ecn[1], (unsigned long long)ci->ecn[2], (unsigned long long)ci->ecn[3]);
	fprintf(f, "decode errors   %llu", (unsigned long long)sum(ci->decode_errors, 1, WIRE_R_COUNT));
	for (int k = 1; k < WIRE_R_COUNT; k++)
		if (ci->decode_errors[k])
			fprintf(f, " [%s: %llu]", wire_reason_key(k), (unsigned long long)ci->decode_errors[k]);
	fprintf(f, "\nskipped         %llu", (unsigned long long)sum(ci->file.skips, 1, CAP_SKIP_COUNT));
	for (int k = 1; k < CAP_SKIP_COUNT; k++)
		if (ci->file.skips[k])
			fprintf(f, " [%s: %llu]", cap_skip_name(k), (unsigned long long)ci->file.skips[k]);
	fputc('\n', f);
}

static void text_pdcs(FILE *f, const struct cap_info *ci)
{
	fprintf(f, "PDCs            %u%s\n", ci->n_pdcs, ci->pdcs_untracked ? " (more untracked)" : "");
	if (ci->n_pdcs == 0)
		return;
	fprintf(f, "  %-15s %-15s %5s %8s %8s %8s %9s %21s  %s\n", "src", "dst", "pdc", "data", "retx", "messages",
		"completed", "size min..max (B)", "completion min / p50 / p99 / max (us)");
	for (uint32_t i = 0; i < ci->n_pdcs; i++) {
		const struct cap_info_pdc *p = &ci->pdcs[i];
		char s[16], d[16], sz[48];

		fmt_ip(s, sizeof(s), p->src);
		fmt_ip(d, sizeof(d), p->dst);
		snprintf(sz, sizeof(sz), "%llu..%llu", (unsigned long long)p->size_min, (unsigned long long)p->size_max);
		fprintf(f, "  %-15s %-15s %5u %8llu %8llu %8llu %9llu %21s  %.3f / %.3f / %.3f / %.3f\n", s, d, p->pdc,
			(unsigned long long)p->data, (unsigned long long)p->retx, (unsigned long long)p->messages,
			(unsigned long long)p->completed, sz,
			(double)cap_info_pct(p->fct_ns, (uint32_t)p->completed, 0) / 1e3,
			(double)cap_info_pct(p->fct_ns, (uint32_t)p->completed, 50) / 1e3,
			(double)cap_info_pct(p->fct_ns, (uint32_t)p->completed, 99) / 1e3,
			(double)cap_info_pct(p->fct_ns, (uint32_t)p->completed, 100) / 1e3);
	}
}

static void json_head(FILE *f, const char *path, const struct cap_info *ci)
{
	const struct cap_read_info *fi = &ci->file;
	char a[48], b[48];

	fputs("{\n  \"file\": ", f);
	put_json_str(f, path);
	fprintf(f, ",\n  \"format\": \"%s\",\n  \"byte_order\": \"%s\",\n  \"sections\": %u,\n  \"interfaces\": [",
		fi->format == CAP_FORMAT_PCAPNG ? "pcapng" : "pcap", fi->big_endian ? "big" : "little",
		fi->format == CAP_FORMAT_PCAPNG ? fi->sections : 1);
	for (uint32_t i = 0; i < fi->n_ifaces; i++) {
		const struct cap_iface *in = &fi->ifaces[i];

		fprintf(f, "%s\n    {\"name\": ", i ? "," : "");
		put_json_str(f, in->name);
		fprintf(f, ", \"linktype\": %u, \"snaplen\": %u, \"speed_bps\": %llu, \"frames\": %llu}", in->linktype,
			in->snaplen, (unsigned long long)in->speed_bps, (unsigned long long)in->frames);
	}
	fmt_time(a, sizeof(a), ci->first_ns);
	fmt_time(b, sizeof(b), ci->last_ns);
	fprintf(f, "%s],\n  \"frames\": %llu,\n  \"captured_bytes\": %llu,\n  \"original_bytes\": %llu,\n",
		fi->n_ifaces ? "\n  " : "", (unsigned long long)ci->frames, (unsigned long long)ci->bytes,
		(unsigned long long)ci->orig_bytes);
	if (ci->frames > 0)
		fprintf(f, "  \"first\": \"%s\",\n  \"last\": \"%s\",\n", a, b);
	else
		fprintf(f, "  \"first\": null,\n  \"last\": null,\n");
	fprintf(f, "  \"duration_ns\": %lld,\n  \"cut\": %llu,\n  \"cut_in_headers\": %llu,\n",
		(long long)(ci->last_ns - ci->first_ns), (unsigned long long)ci->cut,
		(unsigned long long)ci->cut_in_headers);
}

static void json_kinds(FILE *f, const struct cap_info *ci)
{
	fprintf(f, "  \"uet\": {\"data\": %llu, \"retransmissions\": %llu, \"trimmed\": %llu, \"acks\": %llu, "
		   "\"probes\": %llu, \"probe_acks\": %llu, \"control_other\": %llu, \"nacks\": %llu, \"nack_codes\": {",
		(unsigned long long)ci->data, (unsigned long long)ci->retx, (unsigned long long)ci->trimmed,
		(unsigned long long)ci->acks, (unsigned long long)ci->probes, (unsigned long long)ci->probe_acks,
		(unsigned long long)ci->cp_other, (unsigned long long)ci->nacks);
	for (unsigned c = 0, first = 1; c < 256; c++)
		if (ci->nack_codes[c]) {
			fprintf(f, "%s\"%u\": %llu", first ? "" : ", ", c, (unsigned long long)ci->nack_codes[c]);
			first = 0;
		}
	fprintf(f, "}},\n  \"pfc\": {\"frames\": %llu, \"pauses\": %llu, \"resumes\": %llu},\n",
		(unsigned long long)ci->pfc, (unsigned long long)ci->pfc_pauses, (unsigned long long)ci->pfc_resumes);
	fprintf(f, "  \"connection_setup\": {\"request\": %llu, \"reply\": %llu, \"ready\": %llu},\n",
		(unsigned long long)ci->cm[WIRE_CM_REQ], (unsigned long long)ci->cm[WIRE_CM_REP],
		(unsigned long long)ci->cm[WIRE_CM_RTU]);
	fprintf(f, "  \"ecn\": {\"not_ect\": %llu, \"ect1\": %llu, \"ect0\": %llu, \"ce\": %llu},\n",
		(unsigned long long)ci->ecn[0], (unsigned long long)ci->ecn[1], (unsigned long long)ci->ecn[2],
		(unsigned long long)ci->ecn[3]);
	fprintf(f, "  \"decode_errors\": {\"total\": %llu", (unsigned long long)sum(ci->decode_errors, 1, WIRE_R_COUNT));
	for (int k = 1; k < WIRE_R_COUNT; k++)
		if (ci->decode_errors[k])
			fprintf(f, ", \"%s\": %llu", wire_reason_key(k), (unsigned long long)ci->decode_errors[k]);
	fprintf(f, "},\n  \"skipped\": {\"total\": %llu", (unsigned long long)sum(ci->file.skips, 1, CAP_SKIP_COUNT));
	for (int k = 1; k < CAP_SKIP_COUNT; k++)
		fprintf(f, ", \"%s\": %llu", cap_skip_name(k), (unsigned long long)ci->file.skips[k]);
	fprintf(f, "},\n");
}

static void json_pdcs(FILE *f, const struct cap_info *ci)
{
	fprintf(f, "  \"pdcs_untracked\": %llu,\n  \"pdcs\": [", (unsigned long long)ci->pdcs_untracked);
	for (uint32_t i = 0; i < ci->n_pdcs; i++) {
		const struct cap_info_pdc *p = &ci->pdcs[i];
		uint32_t n = (uint32_t)p->completed;
		char s[16], d[16];

		fmt_ip(s, sizeof(s), p->src);
		fmt_ip(d, sizeof(d), p->dst);
		fprintf(f, "%s\n    {\"src\": \"%s\", \"dst\": \"%s\", \"pdc\": %u, \"data\": %llu, \"retransmissions\": %llu, "
			   "\"trimmed\": %llu, \"acks\": %llu, \"nacks\": %llu, \"messages\": %llu, \"completed\": %llu, "
			   "\"untracked\": %llu, \"bytes\": %llu, \"size_min\": %llu, \"size_max\": %llu, \"completion_ns\": "
			   "{\"min\": %lld, \"p50\": %lld, \"p99\": %lld, \"max\": %lld}}", i ? "," : "", s, d, p->pdc,
			(unsigned long long)p->data, (unsigned long long)p->retx, (unsigned long long)p->trimmed,
			(unsigned long long)p->acks, (unsigned long long)p->nacks, (unsigned long long)p->messages,
			(unsigned long long)p->completed, (unsigned long long)p->untracked, (unsigned long long)p->bytes,
			(unsigned long long)p->size_min, (unsigned long long)p->size_max,
			(long long)cap_info_pct(p->fct_ns, n, 0), (long long)cap_info_pct(p->fct_ns, n, 50),
			(long long)cap_info_pct(p->fct_ns, n, 99), (long long)cap_info_pct(p->fct_ns, n, 100));
	}
	fprintf(f, "%s]\n}\n", ci->n_pdcs ? "\n  " : "");
}

int ctl_cli_pcap_info(const char *path, bool json, uint16_t udp_port)
{
	struct cap_info ci;
	char err[512];
	int rc = cap_info_read(path, udp_port, &ci, err, sizeof(err));

	if (rc < 0) {
		if (ci.frames > 0)
			fprintf(stderr, "uetemu: pcap-info: %s: %s (after %llu frames)\n", path, err,
				(unsigned long long)ci.frames);
		else
			fprintf(stderr, "uetemu: pcap-info: %s: %s\n", path, err);
		cap_info_free(&ci);
		return CTL_EXIT_ERROR;
	}
	if (json) {
		json_head(stdout, path, &ci);
		json_kinds(stdout, &ci);
		json_pdcs(stdout, &ci);
	} else {
		text_file(stdout, path, &ci);
		text_kinds(stdout, &ci);
		text_pdcs(stdout, &ci);
	}
	if (ci.file.skips[CAP_SKIP_TRUNCATED])
		fprintf(stderr, "uetemu: pcap-info: %s: truncated: the file ends inside a record or block; the frames "
			"before it are counted\n", path);
	cap_info_free(&ci);
	return CTL_EXIT_OK;
}
