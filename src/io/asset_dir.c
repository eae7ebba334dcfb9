/* asset_dir.c — the project's data folders (asset_dir.h). */
#include "io/asset_dir.h"

#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static pf_status put(char *buf, size_t cap, const char *path)
{
    if (strlen(path) >= cap) return pf_fail(PF_ERR_INVALID, "path '%s' is too long", path);
    strcpy(buf, path);
    return PF_OK;
}

pf_status pf_asset_dir(const char *sub, const char *env, char *buf, size_t cap)
{
    const char *e = env ? getenv(env) : NULL;
    if (e && *e) {
        if (!is_dir(e)) return pf_fail(PF_ERR_IO, "%s='%s' is not a folder", env, e);
        return put(buf, cap, e);
    }
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "data/%s", sub);
    if (is_dir(path)) return put(buf, cap, path);

    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *dir = dirname(exe); /* the executable's folder */
        for (int up = 0; up < 4; up++) {
            char *slash = strrchr(dir, '/');
            if (!slash || slash == dir) break;
            *slash = '\0';
            snprintf(path, sizeof path, "%s/data/%s", dir, sub);
            if (is_dir(path)) return put(buf, cap, path);
        }
    }
    return pf_fail(PF_ERR_IO,
                   "cannot find the folder data/%s: not under the working directory, nor up to four "
                   "folders above the executable; set %s to it",
                   sub, env ? env : "the working directory to the checkout");
}
