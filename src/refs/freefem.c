/* freefem.c — running FreeFEM scripts and reading their tables (freefem.h). */
#include "refs/freefem.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "io/asset_dir.h"
#include "io/msgpack_json.h"

extern char **environ;

static int is_file(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static pf_status put(char *buf, size_t cap, const char *path)
{
    if (strlen(path) >= cap) return pf_fail(PF_ERR_INVALID, "path '%s' is too long", path);
    strcpy(buf, path);
    return PF_OK;
}

pf_status pf_ff_find(char *buf, size_t cap)
{
    const char *e = getenv(PF_FF_ENV);
    if (e && *e) {
        if (access(e, X_OK) != 0)
            return pf_fail(PF_ERR_EXTERNAL, "%s='%s' is not an executable FreeFem++", PF_FF_ENV, e);
        return put(buf, cap, e);
    }
    const char *path = getenv("PATH");
    for (const char *s = path && *path ? path : NULL; s;) {
        const char *end = strchr(s, ':');
        size_t n = end ? (size_t)(end - s) : strlen(s);
        char cand[PF_FF_PATH_MAX];
        int w = snprintf(cand, sizeof cand, "%.*s%sFreeFem++", (int)n, s, n ? "/" : "");
        if (w > 0 && (size_t)w < sizeof cand && access(cand, X_OK) == 0 && is_file(cand)) return put(buf, cap, cand);
        s = end ? end + 1 : NULL;
    }
    return pf_fail(PF_ERR_EXTERNAL,
                   "FreeFem++ was not found on PATH (nor set in %s); install the Debian package freefem++ "
                   "(scripts/install-deps.sh installs it: sudo apt-get install freefem++)",
                   PF_FF_ENV);
}

pf_status pf_ff_script(const char *name, char *buf, size_t cap)
{
    return pf_asset_path("refs", name, "PF_REFS_EDP_DIR", buf, cap);
}

pf_status pf_ff_prepare(const char *name, char *buf, size_t cap)
{
    char exe[PF_FF_PATH_MAX];
    PF_TRY(pf_ff_find(exe, sizeof exe));
    return pf_ff_script(name, buf, cap);
}

pf_status pf_ff_work_open(pf_ff_work *w, const char *tag, size_t n, int d, const double *x)
{
    memset(w, 0, sizeof *w);
    const char *tmp = getenv("TMPDIR");
    snprintf(w->dir, sizeof w->dir, "%s/pf-ref-%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", tag);
    if (!mkdtemp(w->dir)) return pf_fail(PF_ERR_IO, "cannot make a temporary folder %s: %s", w->dir, strerror(errno));
    w->open = 1;
    snprintf(w->pts, sizeof w->pts, "%s/points.txt", w->dir);
    FILE *f = fopen(w->pts, "w");
    if (!f) return pf_fail(PF_ERR_IO, "cannot write '%s'", w->pts);
    fprintf(f, "%zu\n", n);
    for (size_t q = 0; q < n; q++)
        for (int i = 0; i < d; i++) fprintf(f, "%.17g%c", x[q * d + i], i + 1 < d ? ' ' : '\n');
    return fclose(f) == 0 ? PF_OK : pf_fail(PF_ERR_IO, "cannot write '%s'", w->pts);
}

void pf_ff_work_close(pf_ff_work *w)
{
    if (!w->open) return;
    unlink(w->pts);
    rmdir(w->dir);
    w->open = 0;
}

/* The last lines of the log (at most cap - 1 bytes), for messages. */
static void log_tail(const char *path, char *buf, size_t cap)
{
    char *text = NULL;
    size_t len = 0;
    buf[0] = 0;
    if (pf_file_read_as(path, PF_FILE_LOG, &text, &len) != PF_OK) return;
    while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == ' ' || text[len - 1] == '\r')) text[--len] = 0;
    size_t from = len > cap - 1 ? len - (cap - 1) : 0;
    snprintf(buf, cap, "%s", text + from);
    for (char *c = buf; *c; c++)
        if (*c == '\n') *c = '|';
    free(text);
}

pf_status pf_ff_run(const char *script, const char *const *args, const char *log)
{
    char exe[PF_FF_PATH_MAX];
    PF_TRY(pf_ff_find(exe, sizeof exe));
    int na = 0;
    while (args && args[na]) na++;
    char **argv = calloc((size_t)na + 5, sizeof *argv);
    if (!argv) return pf_fail(PF_ERR_NOMEM, "out of memory starting FreeFem++");
    argv[0] = "FreeFem++", argv[1] = "-nw", argv[2] = "-ne", argv[3] = (char *)script;
    for (int i = 0; i < na; i++) argv[4 + i] = (char *)args[i];
    posix_spawn_file_actions_t fa;
    if (posix_spawn_file_actions_init(&fa) != 0) {
        free(argv);
        return pf_fail(PF_ERR_NOMEM, "out of memory starting FreeFem++");
    }
    int err = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    if (!err) err = posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0644);
    if (!err) err = posix_spawn_file_actions_adddup2(&fa, 1, 2);
    pid_t pid = 0;
    if (!err) err = posix_spawn(&pid, exe, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    free(argv);
    if (err) return pf_fail(PF_ERR_EXTERNAL, "cannot run '%s' on '%s': %s", exe, script, strerror(err));
    int ws;
    while (waitpid(pid, &ws, 0) < 0)
        if (errno != EINTR) return pf_fail(PF_ERR_EXTERNAL, "waiting for FreeFem++ on '%s': %s", script, strerror(errno));
    if (WIFEXITED(ws) && WEXITSTATUS(ws) == 0) return PF_OK;
    char how[64], tail[400];
    if (WIFEXITED(ws)) snprintf(how, sizeof how, "exit %d", WEXITSTATUS(ws));
    else if (WIFSIGNALED(ws)) snprintf(how, sizeof how, "killed by signal %d", WTERMSIG(ws));
    else snprintf(how, sizeof how, "wait status %d", ws);
    log_tail(log, tail, sizeof tail);
    return pf_fail(PF_ERR_EXTERNAL, "FreeFem++ failed on '%s' (%s); its log %s ends: %s", script, how, log,
                   tail[0] ? tail : "(empty)");
}

void pf_ff_table_free(pf_ff_table *t)
{
    free(t->v);
    t->v = NULL, t->rows = 0, t->cols = 0;
}

pf_status pf_ff_table_read(const char *path, pf_ff_table *t)
{
    memset(t, 0, sizeof *t);
    char *text = NULL;
    size_t len = 0;
    PF_TRY(pf_file_read_as(path, PF_FILE_TABLE, &text, &len));
    char *s = text, *end;
    long line = 1;
    unsigned long rows = strtoul(s, &end, 10);
    long cols = end != s ? strtol(end, &s, 10) : 0;
    pf_status st = PF_OK;
    if (end == text || s == end || rows == 0 || cols < 1 || cols > 100000 || rows > 100000000UL)
        st = pf_fail(PF_ERR_INVALID, "%s: line 1 is not 'rows cols'", path);
    if (st == PF_OK) {
        t->rows = rows, t->cols = (int)cols;
        t->v = malloc(sizeof(double) * rows * (size_t)cols);
        if (!t->v) st = pf_fail(PF_ERR_NOMEM, "%s: out of memory for %lu x %ld values", path, rows, cols);
    }
    for (size_t i = 0; st == PF_OK && i < rows * (size_t)cols; i++) {
        if (i % (size_t)cols == 0) line++;
        double v = strtod(s, &end);
        if (end == s) st = pf_fail(PF_ERR_INVALID, "%s: line %ld: expected %ld numbers (the file is cut?)", path, line, cols);
        else if (!isfinite(v)) st = pf_fail(PF_ERR_NUMERIC, "%s: line %ld: a value that is not finite", path, line);
        else t->v[i] = v, s = end;
    }
    if (st == PF_OK) {
        while (*s == ' ' || *s == '\n' || *s == '\r' || *s == '\t') s++;
        if (strncmp(s, "end", 3) != 0)
            st = pf_fail(PF_ERR_INVALID, "%s: no 'end' line after %lu rows (cut, or more rows than announced)", path, rows);
    }
    free(text);
    if (st != PF_OK) pf_ff_table_free(t);
    return st;
}
