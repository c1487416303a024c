/* dp_eal_args(): uetemu's EAL defaults merged with the user's EAL args, a pure function (no EAL starts here). */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "dp.h"

#define PREFIX "uetemu-4242"

static struct dp_eal_args a;

/* The merged command line as one string, arguments separated by single spaces. */
static const char *joined(void)
{
	static char s[4096];
	size_t n = 0;

	s[0] = '\0';
	for (int i = 0; i < a.argc; i++)
		n += (size_t)snprintf(s + n, sizeof(s) - n, "%s%s", i ? " " : "", a.argv[i]);
	return s;
}

/* Merge @p argv (NULL-terminated) and expect exactly the command line @p want. */
#define EXPECT_MERGE(want, ...) \
	do { \
		char *argv_[] = { __VA_ARGS__ }; \
		int argc_ = (int)(sizeof(argv_) / sizeof(argv_[0])) - 1; \
		int rc_ = dp_eal_args(&a, argc_, argv_, PREFIX); \
		cr_expect_eq(rc_, a.argc); \
		cr_expect_str_eq(joined(), (want)); \
		cr_expect_null(a.argv[a.argc]); \
	} while (0)

#define DEFAULTS "uetemu --no-huge --no-pci -m 256 --file-prefix " PREFIX " --log-level=lib.*:warning"

Test(dp_eal_args, no_args_gives_the_defaults)
{
	EXPECT_MERGE(DEFAULTS, NULL);
	cr_expect(a.own_prefix);
	cr_expect_str_eq(a.file_prefix, PREFIX);
	cr_expect_not(a.hugepages);
	cr_expect(a.telemetry);
	cr_expect_eq(dp_eal_args(&a, 0, NULL, PREFIX), 8);
}

Test(dp_eal_args, file_prefix_alone_keeps_the_other_defaults)
{
	EXPECT_MERGE("uetemu --no-huge --no-pci -m 256 --log-level=lib.*:warning --file-prefix X", "--file-prefix", "X",
		     NULL);
	cr_expect_not(a.own_prefix);
	cr_expect_str_eq(a.file_prefix, "X");
	EXPECT_MERGE("uetemu --no-huge --no-pci -m 256 --log-level=lib.*:warning --file-prefix=lab1",
		     "--file-prefix=lab1", NULL);
	cr_expect_str_eq(a.file_prefix, "lab1");
	cr_expect_not(a.own_prefix);
}

Test(dp_eal_args, the_last_file_prefix_counts)
{
	EXPECT_MERGE("uetemu --no-huge --no-pci -m 256 --log-level=lib.*:warning --file-prefix a --file-prefix=b",
		     "--file-prefix", "a", "--file-prefix=b", NULL);
	cr_expect_str_eq(a.file_prefix, "b");
}

Test(dp_eal_args, memory_replaces_the_default_in_both_spellings)
{
	EXPECT_MERGE("uetemu --no-huge --no-pci --file-prefix " PREFIX " --log-level=lib.*:warning -m 512", "-m", "512",
		     NULL);
	EXPECT_MERGE("uetemu --no-huge --no-pci --file-prefix " PREFIX " --log-level=lib.*:warning -m1024", "-m1024",
		     NULL);
	cr_expect(a.own_prefix);
	cr_expect_not(a.hugepages);
}

Test(dp_eal_args, the_same_option_is_not_given_twice)
{
	EXPECT_MERGE("uetemu -m 256 --file-prefix " PREFIX " --log-level=lib.*:warning --no-huge --no-pci", "--no-huge",
		     "--no-pci", NULL);
}

Test(dp_eal_args, log_level_replaces_the_default)
{
	EXPECT_MERGE("uetemu --no-huge --no-pci -m 256 --file-prefix " PREFIX " --log-level=pmd.net.tap:debug",
		     "--log-level=pmd.net.tap:debug", NULL);
	EXPECT_MERGE("uetemu --no-huge --no-pci -m 256 --file-prefix " PREFIX " --log-level 8", "--log-level", "8",
		     NULL);
}

Test(dp_eal_args, huge_dir_means_hugepages)
{
	EXPECT_MERGE("uetemu --no-pci --file-prefix " PREFIX " --log-level=lib.*:warning --huge-dir /dev/hugepages",
		     "--huge-dir", "/dev/hugepages", NULL);
	cr_expect(a.hugepages);
}

Test(dp_eal_args, socket_mem_means_hugepages_and_drops_m)
{
	EXPECT_MERGE("uetemu --no-pci --file-prefix " PREFIX " --log-level=lib.*:warning --socket-mem=1024",
		     "--socket-mem=1024", NULL);
	cr_expect(a.hugepages);
	EXPECT_MERGE("uetemu --no-pci --file-prefix " PREFIX " --log-level=lib.*:warning --socket-mem 512,512",
		     "--socket-mem", "512,512", NULL);
}

Test(dp_eal_args, other_hugepage_options)
{
	EXPECT_MERGE("uetemu --no-pci --file-prefix " PREFIX " --log-level=lib.*:warning --in-memory", "--in-memory",
		     NULL);
	cr_expect(a.hugepages);
	EXPECT_MERGE("uetemu --no-pci --file-prefix " PREFIX " --log-level=lib.*:warning --huge-unlink=always",
		     "--huge-unlink=always", NULL);
	EXPECT_MERGE("uetemu --no-pci --file-prefix " PREFIX " --log-level=lib.*:warning --socket-limit 2048",
		     "--socket-limit", "2048", NULL);
	/* the user's -m stays with hugepages */
	EXPECT_MERGE("uetemu --no-pci --file-prefix " PREFIX " --log-level=lib.*:warning --huge-dir /h -m 2048",
		     "--huge-dir", "/h", "-m", "2048", NULL);
}

Test(dp_eal_args, a_pci_allow_list_drops_no_pci)
{
	EXPECT_MERGE("uetemu --no-huge -m 256 --file-prefix " PREFIX " --log-level=lib.*:warning -a 0000:03:00.0",
		     "-a", "0000:03:00.0", NULL);
	EXPECT_MERGE("uetemu --no-huge -m 256 --file-prefix " PREFIX " --log-level=lib.*:warning --block=0000:04:00.0",
		     "--block=0000:04:00.0", NULL);
	EXPECT_MERGE("uetemu --no-huge -m 256 --file-prefix " PREFIX " --log-level=lib.*:warning -a0000:03:00.0",
		     "-a0000:03:00.0", NULL);
}

Test(dp_eal_args, other_options_are_added_unchanged)
{
	EXPECT_MERGE(DEFAULTS " --vdev=net_tap0,iface=uet0 -l 0 --no-shconf", "--vdev=net_tap0,iface=uet0", "-l", "0",
		     "--no-shconf", NULL);
	cr_expect(a.own_prefix);
}

Test(dp_eal_args, a_value_is_never_taken_for_an_option)
{
	/* "--vdev" takes a value; here that value looks like an option and must not replace --no-huge or -m */
	EXPECT_MERGE(DEFAULTS " --vdev --no-huge -l -m", "--vdev", "--no-huge", "-l", "-m", NULL);
	EXPECT_MERGE("uetemu --no-huge --no-pci -m 256 --log-level=lib.*:warning --file-prefix --in-memory",
		     "--file-prefix", "--in-memory", NULL);
	cr_expect_str_eq(a.file_prefix, "--in-memory");
	cr_expect_not(a.hugepages);
}

Test(dp_eal_args, prefixes_of_names_are_other_options)
{
	/* "--no-hugepages" and "--file-prefixes" are not the options they begin like; "-v" takes no value */
	EXPECT_MERGE(DEFAULTS " --no-hugepages --file-prefixes x -v", "--no-hugepages", "--file-prefixes", "x", "-v",
		     NULL);
	cr_expect(a.own_prefix);
}

Test(dp_eal_args, telemetry_switch)
{
	EXPECT_MERGE(DEFAULTS " --no-telemetry", "--no-telemetry", NULL);
	cr_expect_not(a.telemetry);
	EXPECT_MERGE(DEFAULTS " --no-telemetry --telemetry", "--no-telemetry", "--telemetry", NULL);
	cr_expect(a.telemetry);
}

Test(dp_eal_args, too_many_arguments)
{
	char *argv[DP_EAL_ARGS_MAX];

	for (int i = 0; i < DP_EAL_ARGS_MAX; i++)
		argv[i] = "--no-shconf";
	cr_expect_eq(dp_eal_args(&a, DP_EAL_ARGS_MAX - 7, argv, PREFIX), -E2BIG);
	cr_expect_eq(a.argc, 0);
	cr_expect_eq(dp_eal_args(&a, DP_EAL_ARGS_MAX - 8, argv, PREFIX), DP_EAL_ARGS_MAX);
	cr_expect_null(a.argv[DP_EAL_ARGS_MAX]);
	/* with --file-prefix and -m given, fewer defaults stay and more of the user's fit */
	argv[0] = "--file-prefix=p";
	argv[1] = "-m64";
	cr_expect_eq(dp_eal_args(&a, DP_EAL_ARGS_MAX - 4, argv, PREFIX), DP_EAL_ARGS_MAX);
}
