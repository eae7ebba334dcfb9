/*
 * status.h — the two tiers of failure.
 *
 * Environmental failures (I/O, HDF5, msgpack, curl, a bad configuration)
 * return a pf_status up to the stage's main(), which prints pf_errmsg() on one
 * stderr line and maps the status to an exit code with pf_status_exit_code().
 * The message is thread-local and describes the last failure:
 *
 *     if (pf_something(...) != PF_OK) {
 *         fprintf(stderr, "pf-train: %s\n", pf_errmsg());
 *         return pf_status_exit_code(st);
 *     }
 *
 * Contract violations (a shape mismatch, an impossible state) are programming
 * errors: PF_ASSERT prints file:line and the failed condition, then aborts.
 * The library never calls exit().
 */
#ifndef PF_CORE_STATUS_H
#define PF_CORE_STATUS_H

typedef enum pf_status {
    PF_OK = 0,
    PF_ERR_USAGE,    /* bad arguments from a user (exit code 2) */
    PF_ERR_INVALID,  /* invalid input data or configuration */
    PF_ERR_IO,       /* file system, HDF5, msgpack */
    PF_ERR_NOMEM,    /* allocation failed */
    PF_ERR_NUMERIC,  /* NaN / divergence */
    PF_ERR_UNSUPPORTED, /* an operation the chosen backend or build lacks */
    PF_ERR_EXTERNAL, /* a foreign library or service failed */
} pf_status;

/* Record a printf-style message for the current thread and return `st`, so
 * that `return pf_fail(PF_ERR_IO, "cannot open '%s'", path);` reads well.
 * The arguments may include pf_errmsg() (to prefix a lower layer's message). */
pf_status pf_fail(pf_status st, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The last message recorded by pf_fail() on this thread ("" if none). */
const char *pf_errmsg(void);

/* A short name for a status ("io error", ...). */
const char *pf_status_name(pf_status st);

/* Exit code for a stage: 0 ok, 2 usage error, 1 anything else. */
int pf_status_exit_code(pf_status st);

/* Print "file:line: assertion failed: expr" (plus an optional message) and abort. */
void pf_abort_at(const char *file, int line, const char *fmt, ...)
    __attribute__((noreturn, format(printf, 3, 4)));

#define PF_ASSERT(cond)                                                        \
    do {                                                                       \
        if (!(cond)) pf_abort_at(__FILE__, __LINE__, "assertion failed: %s", #cond); \
    } while (0)
#define PF_ASSERT_MSG(cond, ...)                                               \
    do {                                                                       \
        if (!(cond)) pf_abort_at(__FILE__, __LINE__, __VA_ARGS__);             \
    } while (0)
#define PF_ABORT(...) pf_abort_at(__FILE__, __LINE__, __VA_ARGS__)

/* Propagate a failure: evaluate `expr` (a pf_status) and return it if not OK. */
#define PF_TRY(expr)                                                           \
    do {                                                                       \
        pf_status pf_try_st_ = (expr);                                         \
        if (pf_try_st_ != PF_OK) return pf_try_st_;                            \
    } while (0)

#endif
