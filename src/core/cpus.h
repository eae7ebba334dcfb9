/*
 * cpus.h — how many CPUs this process may actually use: the CPUs of its
 * affinity mask (sched_getaffinity: taskset, cpuset cgroups, Slurm's
 * binding), capped by the cgroup's CPU bandwidth quota (a container's
 * --cpus), rounded up:
 *
 *     int n = pf_cpus_available();   // >= 1
 *
 * The quota comes from cgroup v2's cpu.max ("QUOTA PERIOD" or "max PERIOD")
 * or cgroup v1's cpu.cfs_quota_us / cpu.cfs_period_us (-1: none), of the
 * process's own cgroup (/proc/self/cgroup) and else of the root of the
 * mounted hierarchy (what a container sees). Files that are missing or
 * unreadable mean no quota. docs/building.md, "Threads".
 */
#ifndef PF_CORE_CPUS_H
#define PF_CORE_CPUS_H

/* The CPUs in this process's affinity mask (>= 1). */
int pf_cpus_affinity(void);

/* A cgroup v2 cpu.max text ("150000 100000\n"): ceil(quota / period) CPUs,
 * at least 1; 0 for no quota ("max 100000"); -1 for text that is not that. */
int pf_cpus_parse_cpu_max(const char *text);

/* cgroup v1's pair: ceil(quota / period), at least 1; 0 when quota < 0
 * (none); -1 when period <= 0. */
int pf_cpus_from_cfs(long long quota_us, long long period_us);

/* The quota of this process's cgroup in CPUs; 0 when there is none. */
int pf_cpus_quota(void);

/* pf_cpus_affinity() capped by pf_cpus_quota() (>= 1). */
int pf_cpus_available(void);

#endif
