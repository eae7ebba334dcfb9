#include "core/status.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static _Thread_local char errbuf[1024];

pf_status pf_fail(pf_status st, const char *fmt, ...)
{
    char msg[sizeof errbuf]; /* the arguments may include pf_errmsg() itself */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    memcpy(errbuf, msg, sizeof errbuf);
    return st;
}

const char *pf_errmsg(void) { return errbuf; }

const char *pf_status_name(pf_status st)
{
    switch (st) {
    case PF_OK: return "ok";
    case PF_ERR_USAGE: return "usage error";
    case PF_ERR_INVALID: return "invalid input";
    case PF_ERR_IO: return "i/o error";
    case PF_ERR_NOMEM: return "out of memory";
    case PF_ERR_NUMERIC: return "numerical failure";
    case PF_ERR_UNSUPPORTED: return "unsupported";
    case PF_ERR_EXTERNAL: return "external failure";
    }
    return "unknown status";
}

int pf_status_exit_code(pf_status st)
{
    return st == PF_OK ? 0 : st == PF_ERR_USAGE ? 2 : 1;
}

void pf_abort_at(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s:%d: ", file, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    abort();
}
