#include "core/log.h"

#include <stdarg.h>
#include <stdio.h>

static void default_sink(pf_log_level level, const char *msg, void *user)
{
    (void)user;
    static const char *tag[] = {"debug: ", "", "warning: ", "error: "};
    fprintf(stderr, "pinnforge: %s%s\n", tag[level], msg);
}

static pf_log_fn sink = default_sink;
static void *sink_user;
static pf_log_level min_level = PF_LOG_INFO;

void pf_log_set(pf_log_fn fn, void *user)
{
    sink = fn ? fn : default_sink;
    sink_user = user;
}

void pf_log_set_level(pf_log_level level) { min_level = level; }

void pf_log(pf_log_level level, const char *fmt, ...)
{
    if (level < min_level) return;
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    sink(level, buf, sink_user);
}
