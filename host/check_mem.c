// SPDX-License-Identifier: MIT
/* Memory: transparent huge pages, and the hugepages the UMEM and the books can have. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "host/checks.h"

#define THP "/sys/kernel/mm/transparent_hugepage"

void hc_check_thp(const struct hc_ctx *c, struct hc_finding *f)
{
	char buf[256], enabled[32], defrag[32];
	int ret;

	ret = hc_read(c->root, buf, sizeof(buf), THP "/enabled");
	if (ret >= 0)
		ret = hc_bracketed(buf, enabled, sizeof(enabled));
	if (ret < 0) {
		hc_unknown(f, THP "/enabled", ret);
		return;
	}
	ret = hc_read(c->root, buf, sizeof(buf), THP "/defrag");
	if (ret >= 0)
		ret = hc_bracketed(buf, defrag, sizeof(defrag));
	if (ret < 0)
		snprintf(defrag, sizeof(defrag), "unknown");
	hc_found(f, HC_OK, "transparent huge pages: enabled %s, defrag %s", enabled, defrag);
	if (!strcmp(enabled, "never")) {
		hc_cat(f->found, sizeof(f->found), " (--book-pages thp gets 4 KB pages)");
		return;
	}
	if (!strcmp(enabled, "always")) {
		f->level = HC_WARN;
		hc_fix(f, "echo madvise > " THP "/enabled: with always, khugepaged collapses every "
		       "process's memory and compaction runs for it, with TLB-flush IPIs to the "
		       "CPUs that map it; madvise gives huge pages to what asks (--book-pages thp)");
	}
	if (!strcmp(defrag, "always")) {
		f->level = HC_WARN;
		hc_cat(f->fix, sizeof(f->fix), "%secho madvise > " THP "/defrag: with always a page "
		       "fault waits for direct compaction", f->fix[0] ? "; " : "");
	}
}

/* The hugepages of one size: sysfs, else /proc/meminfo's default size. */
static int huge_count(const struct hc_ctx *c, long kb, long *total, long *free_)
{
	char buf[4096], *p;

	if (!hc_read_long(c->root, total, "/sys/kernel/mm/hugepages/hugepages-%ldkB/nr_hugepages",
			  kb) &&
	    !hc_read_long(c->root, free_, "/sys/kernel/mm/hugepages/hugepages-%ldkB/free_hugepages",
			  kb))
		return 0;
	if (hc_read(c->root, buf, sizeof(buf), "/proc/meminfo") < 0)
		return -ENOENT;
	p = strstr(buf, "HugePages_Total:");
	if (!p || sscanf(p, "HugePages_Total: %ld", total) != 1)
		return -ENOENT;
	p = strstr(buf, "HugePages_Free:");
	if (!p || sscanf(p, "HugePages_Free: %ld", free_) != 1)
		return -ENOENT;
	return 0;
}

void hc_check_hugepages(const struct hc_ctx *c, struct hc_finding *f)
{
	long kb = 2048, total, free_;
	char buf[4096], *p;
	int ret;

	/* MAP_HUGETLB without a size takes the default one. */
	if (hc_read(c->root, buf, sizeof(buf), "/proc/meminfo") >= 0 &&
	    (p = strstr(buf, "Hugepagesize:")))
		sscanf(p, "Hugepagesize: %ld", &kb);
	ret = huge_count(c, kb, &total, &free_);
	if (ret) {
		hc_unknown(f, "/sys/kernel/mm/hugepages and /proc/meminfo", ret);
		return;
	}
	if (total > 0 && free_ > 0) {
		hc_found(f, HC_OK, "%ld hugepages of %ld kB reserved, %ld free", total, kb, free_);
		return;
	}
	if (total > 0)
		hc_found(f, HC_WARN, "%ld hugepages of %ld kB reserved, all in use", total, kb);
	else
		hc_found(f, HC_WARN, "no hugepages of %ld kB reserved", kb);
	hc_fix(f, "echo N > /proc/sys/vm/nr_hugepages, N = the MB of UMEM and books on the "
	       "start-up's memory line / %ld: else they are on 4 KB pages, and the hot path's "
	       "TLB misses show in its times", kb >= 1024 ? kb / 1024 : 1);
}
