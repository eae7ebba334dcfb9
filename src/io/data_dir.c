#include "io/data_dir.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const char *pf_data_dir(void)
{
    const char *d = getenv(PF_DATA_DIR_ENV);
    return d && *d ? d : PF_DATA_DIR_DEFAULT;
}

pf_status pf_data_path(const char *name, char *buf, size_t cap)
{
    if (!name || !*name) return pf_fail(PF_ERR_INVALID, "reference file name is empty");
    const char *dir = pf_data_dir();
    size_t dl = strlen(dir);
    /* "dir/" + name, without doubling a trailing slash */
    const char *sep = dl && dir[dl - 1] == '/' ? "" : "/";
    int w = snprintf(buf, cap, "%s%s%s", dir, sep, name);
    if (w < 0 || (size_t)w >= cap)
        return pf_fail(PF_ERR_INVALID, "path of reference file '%s' in '%s' is too long", name,
                       dir);

    const char *origin = getenv(PF_DATA_DIR_ENV) && *getenv(PF_DATA_DIR_ENV)
                             ? "PF_DATA_DIR"
                             : "the default folder; PF_DATA_DIR is not set";
    struct stat st;
    if (stat(buf, &st) != 0) {
        int e = errno;
        if (e == ENOENT || e == ENOTDIR)
            return pf_fail(PF_ERR_IO,
                           "reference file '%s' not found in '%s' (%s; looked for '%s'); "
                           "run `make data`, or set PF_DATA_DIR to the folder with the "
                           "PINNacle files",
                           name, dir, origin, buf);
        return pf_fail(PF_ERR_IO, "cannot examine reference file '%s' in '%s' (%s): %s", name,
                       dir, origin, strerror(e));
    }
    if (!S_ISREG(st.st_mode))
        return pf_fail(PF_ERR_IO, "reference file '%s' in '%s' (%s) is not a regular file",
                       name, dir, origin);
    return PF_OK;
}
