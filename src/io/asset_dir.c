/* asset_dir.c — the project's own files and folders (asset_dir.h). */
#include "io/asset_dir.h"

#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A folder when want_dir, else a regular file. */
static bool exists(const char *p, bool want_dir)
{
    struct stat st;
    return stat(p, &st) == 0 && (want_dir ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode));
}

/* buf = "<dir>/<top>[/<name>]" (dir NULL: relative); true when it exists. */
static bool try_at(char *buf, size_t cap, const char *dir, const char *top, const char *name)
{
    int n = snprintf(buf, cap, "%s%s%s%s%s", dir ? dir : "", dir ? "/" : "", top, name ? "/" : "", name ? name : "");
    return n > 0 && (size_t)n < cap && exists(buf, !name);
}

bool pf_asset_find(const char *top, const char *name, char *buf, size_t cap)
{
    if (try_at(buf, cap, NULL, top, name)) return true;
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *dir = dirname(exe); /* the executable's folder */
        for (int up = 0; up < 4; up++) {
            char *slash = strrchr(dir, '/');
            if (!slash || slash == dir) break;
            *slash = '\0';
            if (try_at(buf, cap, dir, top, name)) return true;
        }
    }
    return false;
}

pf_status pf_asset_path(const char *top, const char *name, const char *env, char *buf, size_t cap)
{
    const char *e = env ? getenv(env) : NULL;
    const char *what = name ? "file" : "folder";
    if (e && *e) {
        if (try_at(buf, cap, NULL, e, name)) return PF_OK;
        return pf_fail(PF_ERR_IO, "%s='%s': no %s '%s%s%s'", env, e, what, e, name ? "/" : "", name ? name : "");
    }
    if (pf_asset_find(top, name, buf, cap)) return PF_OK;
    const char *hint = !env ? "" : name ? "to the folder that has it" : "to it";
    return pf_fail(PF_ERR_IO,
                   "cannot find the %s %s%s%s: not under the working directory, nor up to four folders above the "
                   "executable; set %s %s",
                   what, top, name ? "/" : "", name ? name : "", env ? env : "the working directory to the checkout",
                   hint);
}

pf_status pf_asset_dir(const char *sub, const char *env, char *buf, size_t cap)
{
    char top[PATH_MAX];
    if (snprintf(top, sizeof top, "data/%s", sub) >= (int)sizeof top)
        return pf_fail(PF_ERR_INVALID, "path 'data/%s' is too long", sub);
    return pf_asset_path(top, NULL, env, buf, cap);
}
