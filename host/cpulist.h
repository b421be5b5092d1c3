/* SPDX-License-Identifier: MIT */
/*
 * CPU sets as the kernel writes them: lists ("0-3,8,10-11", the format of
 * isolcpus=, /sys/devices/system/cpu/isolated, smp_affinity_list) and hex
 * masks ("00000000,00000003", rps_cpus).  Up to HC_MAX_CPUS CPUs; a CPU
 * beyond that is refused rather than dropped silently.
 */
#ifndef HOST_CPULIST_H
#define HOST_CPULIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HC_MAX_CPUS 1024

struct hc_cpus {
	uint64_t bits[HC_MAX_CPUS / 64];
};

/*
 * A list; "" and "(null)" (older kernels' empty nohz_full) are empty, "all"
 * is every CPU.  0 or -EINVAL.
 */
int hc_cpus_parse_list(const char *s, struct hc_cpus *set);
/* A hex mask, 32-bit groups separated by commas, most significant first. */
int hc_cpus_parse_mask(const char *s, struct hc_cpus *set);

bool hc_cpus_has(const struct hc_cpus *set, int cpu);
void hc_cpus_set(struct hc_cpus *set, int cpu);
void hc_cpus_clear(struct hc_cpus *set, int cpu);
unsigned int hc_cpus_count(const struct hc_cpus *set);
/* Back to a list ("0-3,8"); "none" when empty. */
void hc_cpus_format(const struct hc_cpus *set, char *buf, size_t n);

#endif /* HOST_CPULIST_H */
