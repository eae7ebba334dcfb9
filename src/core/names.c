#include "core/names.h"

#include <stdio.h>
#include <string.h>

const char *pf_name_join_sep(char *buf, size_t cap, const char *const *names, int n, const char *sep)
{
    size_t len = 0;
    buf[0] = 0;
    for (int i = 0; i < n && len < cap; i++)
        len += (size_t)snprintf(buf + len, cap - len, "%s%s", i ? sep : "", names[i]);
    return buf;
}

const char *pf_name_join(char *buf, size_t cap, const char *const *names, int n)
{
    return pf_name_join_sep(buf, cap, names, n, ", ");
}

pf_status pf_name_lookup(const char *kind, const char *name, const char *const *names, int n,
                         int *out)
{
    for (int i = 0; name && i < n; i++)
        if (strcmp(name, names[i]) == 0) {
            *out = i;
            return PF_OK;
        }
    char buf[512];
    return pf_fail(PF_ERR_INVALID, "%s '%s' is unknown; allowed: %s", kind, name ? name : "",
                   pf_name_join(buf, sizeof buf, names, n));
}
