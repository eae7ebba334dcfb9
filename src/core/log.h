/*
 * log.h — the library's only voice.
 *
 * The library prints nothing itself: it reports through pf_log(), which calls
 * the sink installed with pf_log_set(). The default sink writes messages at
 * or above PF_LOG_INFO to stderr as "pinnforge: message". Stages install
 * their own sink to add prefixes, or silence the library in tests.
 */
#ifndef PF_CORE_LOG_H
#define PF_CORE_LOG_H

typedef enum pf_log_level {
    PF_LOG_DEBUG = 0,
    PF_LOG_INFO,
    PF_LOG_WARN,
    PF_LOG_ERROR,
} pf_log_level;

typedef void (*pf_log_fn)(pf_log_level level, const char *msg, void *user);

/* Install a sink (NULL restores the default) and its user pointer. */
void pf_log_set(pf_log_fn fn, void *user);

/* Messages below this level are dropped before formatting (default INFO). */
void pf_log_set_level(pf_log_level level);

void pf_log(pf_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
