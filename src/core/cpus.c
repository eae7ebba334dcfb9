/*
 * The CPUs a process may use: affinity mask, capped by the cgroup quota.
 */
#define _GNU_SOURCE
#include "core/cpus.h"

#include <limits.h>
#include <stdbool.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/file.h"

int pf_cpus_affinity(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        int n = CPU_COUNT(&set);
        if (n > 0) return n;
    }
    return 1; /* cannot happen for the calling process: it runs somewhere */
}

int pf_cpus_from_cfs(long long quota_us, long long period_us)
{
    if (period_us <= 0) return -1;
    if (quota_us < 0) return 0;
    long long n = (quota_us + period_us - 1) / period_us;
    return n < 1 ? 1 : n > INT_MAX ? INT_MAX : (int)n;
}

int pf_cpus_parse_cpu_max(const char *text)
{
    char q[32];
    long long period;
    char tail;
    if (sscanf(text, "%31s %lld %c", q, &period, &tail) != 2) return -1;
    if (!strcmp(q, "max")) return period > 0 ? 0 : -1;
    char *end;
    long long quota = strtoll(q, &end, 10);
    if (*end || quota <= 0) return -1;
    return pf_cpus_from_cfs(quota, period);
}

/* The first number(s) of a small cgroup file; false when it is missing or not numbers. */
static bool read_text(const char *path, char *buf, size_t cap)
{
    char *text;
    size_t len;
    if (pf_file_read_as(path, PF_FILE_STATE, &text, &len) != PF_OK) return false;
    snprintf(buf, cap, "%s", text);
    free(text);
    return true;
}

static bool read_ll(const char *path, long long *v)
{
    char buf[64], tail;
    return read_text(path, buf, sizeof buf) && sscanf(buf, "%lld %c", v, &tail) == 1;
}

/* The quota in the cgroup folder dir (0: none or unreadable). */
static int quota_in(const char *dir, bool v2)
{
    char path[PATH_MAX + 32], buf[96];
    if (v2) {
        snprintf(path, sizeof path, "%s/cpu.max", dir);
        int n = read_text(path, buf, sizeof buf) ? pf_cpus_parse_cpu_max(buf) : 0;
        return n > 0 ? n : 0;
    }
    long long quota, period;
    snprintf(path, sizeof path, "%s/cpu.cfs_quota_us", dir);
    if (!read_ll(path, &quota)) return 0;
    snprintf(path, sizeof path, "%s/cpu.cfs_period_us", dir);
    if (!read_ll(path, &period)) return 0;
    int n = pf_cpus_from_cfs(quota, period);
    return n > 0 ? n : 0;
}

/* The smallest quota from mount/cg up to mount (each level limits its children). */
static int quota_up(const char *mount, const char *cg, bool v2)
{
    char dir[PATH_MAX];
    if (snprintf(dir, sizeof dir, "%s%s", mount, strcmp(cg, "/") ? cg : "") >= (int)sizeof dir) return 0;
    size_t root = strlen(mount);
    int best = 0;
    for (;;) {
        int n = quota_in(dir, v2);
        if (n > 0 && (best == 0 || n < best)) best = n;
        char *slash = strrchr(dir, '/');
        if (strlen(dir) <= root || !slash || (size_t)(slash - dir) < root) break;
        *slash = 0;
    }
    return best;
}

int pf_cpus_quota(void)
{
    char *text;
    size_t len;
    int best = 0;
    if (pf_file_read_as("/proc/self/cgroup", PF_FILE_STATE, &text, &len) == PF_OK) {
        char *save = NULL;
        for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
            char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
            if (!c2) continue;
            *c2 = 0;
            const char *ctl = c1 + 1, *cg = c2 + 1;
            int n = 0;
            if (!*ctl) { /* cgroup v2: "0::/path" */
                n = quota_up("/sys/fs/cgroup", cg, true);
            } else { /* v1: a hierarchy with the cpu controller ("cpu", "cpu,cpuacct") */
                char list[256];
                snprintf(list, sizeof list, ",%s,", ctl);
                if (!strstr(list, ",cpu,")) continue;
                char mount[300];
                snprintf(mount, sizeof mount, "/sys/fs/cgroup/%s", ctl);
                n = quota_up(mount, cg, false);
                if (!n) n = quota_up("/sys/fs/cgroup/cpu", cg, false);
            }
            if (n > 0 && (best == 0 || n < best)) best = n;
        }
        free(text);
    }
    return best;
}

int pf_cpus_available(void)
{
    int n = pf_cpus_affinity(), q = pf_cpus_quota();
    return q > 0 && q < n ? q : n;
}
