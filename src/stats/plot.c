/* plot.c — the gnuplot driver and the helpers the figures share. */
#define _GNU_SOURCE /* posix_spawn_file_actions_addchdir_np (glibc >= 2.29) */
#include "stats/plot.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "io/msgpack_json.h"
#include "stats/plot_internal.h"

extern char **environ;

#define PATH_CAP 4096

pf_plot_opts pf_plot_opts_default(const char *out_dir)
{
    return (pf_plot_opts){.out_dir = out_dir,
                          .width = PF_PLOT_WIDTH,
                          .height = PF_PLOT_HEIGHT,
                          .fields_width = PF_PLOT_FIELDS_WIDTH,
                          .fields_height = PF_PLOT_FIELDS_HEIGHT};
}

void pf_plot_report_init(pf_plot_report *rep) { memset(rep, 0, sizeof *rep); }

void pf_plot_add(pf_plot_report *rep, const char *name, int written, const char *fmt, ...)
{
    PF_ASSERT_MSG(rep->n < PF_PLOT_MAX_ITEMS, "plot report full (%d items)", rep->n);
    pf_plot_item *it = &rep->item[rep->n++];
    snprintf(it->name, sizeof it->name, "%s", name);
    it->written = written;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(it->note, sizeof it->note, fmt, ap);
    va_end(ap);
}

pf_status pf_plot_text_open(pf_plot_text *t)
{
    memset(t, 0, sizeof *t);
    if (!(t->f = open_memstream(&t->buf, &t->len)))
        return pf_fail(PF_ERR_NOMEM, "out of memory for a plot's text");
    return PF_OK;
}

pf_status pf_plot_text_close(pf_plot_text *t)
{
    int bad = ferror(t->f);
    if (fclose(t->f) != 0) bad = 1;
    t->f = NULL;
    if (bad || !t->buf) return pf_fail(PF_ERR_NOMEM, "out of memory for a plot's text");
    return PF_OK;
}

void pf_plot_text_free(pf_plot_text *t)
{
    if (t->f) fclose(t->f);
    free(t->buf);
    memset(t, 0, sizeof *t);
}

void pf_plot_num(FILE *f, double v, int log_axis)
{
    if (!isfinite(v) || (log_axis && v <= 0)) fputs(" NaN", f);
    else fprintf(f, " %.10g", v);
}

void pf_plot_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') fputc('\\', f);
        fputc(*s == '\n' ? ' ' : *s, f);
    }
    fputc('"', f);
}

/* NaN stays gnuplot's "undefined" (not `set datafile missing`): a line
 * breaks at it, so a gap shows as a gap. */
void pf_plot_style(FILE *f)
{
    fputs("set grid lc rgb \"#c0c0c0\" dt 3\n"
          "set key box opaque samplen 2 Left reverse width 1\n"
          "set border lw 1.2\n"
          "set style line 1 lc rgb \"#1f77b4\" lw 2 pt 7 ps 1.0\n"
          "set style line 2 lc rgb \"#d62728\" lw 2 pt 5 ps 1.0\n"
          "set style line 3 lc rgb \"#2ca02c\" lw 2 pt 9 ps 1.1\n"
          "set style line 4 lc rgb \"#ff7f0e\" lw 2 pt 11 ps 1.1\n"
          "set style line 5 lc rgb \"#9467bd\" lw 2 pt 13 ps 1.1\n"
          "set style line 6 lc rgb \"#8c564b\" lw 2 pt 4 ps 1.0\n"
          "set style line 7 lc rgb \"#e377c2\" lw 2 pt 6 ps 1.0\n"
          "set style line 8 lc rgb \"#17becf\" lw 2 pt 8 ps 1.0\n"
          "set style line 9 lc rgb \"#7f7f7f\" lw 2 pt 10 ps 1.0\n",
          f);
}

/* ------------------------------------------------------------ gnuplot */

/* The first executable `name` on PATH into buf; 0 if none. */
static int on_path(const char *name, char *buf, size_t cap)
{
    const char *path = getenv("PATH");
    if (!path || !*path) return 0;
    for (const char *s = path;;) {
        const char *e = strchr(s, ':');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        int w = snprintf(buf, cap, "%.*s%s%s", (int)n, s, n ? "/" : "", name);
        if (w > 0 && (size_t)w < cap && access(buf, X_OK) == 0) return 1;
        if (!e) return 0;
        s = e + 1;
    }
}

/* gnuplot's path on PATH into buf, or PF_ERR_EXTERNAL saying how to install it. */
static pf_status find_gnuplot(char *buf, size_t cap)
{
    if (on_path("gnuplot", buf, cap)) return PF_OK;
    return pf_fail(PF_ERR_EXTERNAL,
                   "'gnuplot' was not found on PATH; install gnuplot-nox (scripts/install-deps.sh "
                   "installs it: sudo apt-get install gnuplot-nox)");
}

pf_status pf_plot_gnuplot_check(void)
{
    char buf[PATH_CAP];
    return find_gnuplot(buf, sizeof buf);
}

static int stem_ok(const char *s)
{
    if (!*s || strlen(s) > 64) return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '_' || *s == '.' || *s == '-'))
            return 0;
    return 1;
}

/* The last non-empty line of gnuplot's stderr (its error), for messages. */
static void last_line(const char *path, char *buf, size_t cap)
{
    char *text = NULL;
    size_t len = 0;
    buf[0] = 0;
    if (pf_file_read_as(path, PF_FILE_LOG, &text, &len) != PF_OK) return;
    while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == ' ' || text[len - 1] == '\r'))
        text[--len] = 0;
    char *nl = strrchr(text, '\n');
    snprintf(buf, cap, "%s", nl ? nl + 1 : text);
    free(text);
}

/* Run `gnuplot -e "outfile='png_tmp'" gp` in dir, stderr to the open file
 * log_fd, stdin /dev/null; *how describes a failure ("" when it exited 0). */
static pf_status spawn_gnuplot(const char *dir, const char *gp, const char *png_tmp, int log_fd,
                               char *how, size_t cap)
{
    char exe[PATH_CAP], expr[256];
    how[0] = 0;
    PF_TRY(find_gnuplot(exe, sizeof exe));
    snprintf(expr, sizeof expr, "outfile='%s'", png_tmp); /* names are [A-Za-z0-9_.-] */
    char *argv[] = {"gnuplot", "-e", expr, (char *)gp, NULL};
    posix_spawn_file_actions_t fa;
    if (posix_spawn_file_actions_init(&fa) != 0)
        return pf_fail(PF_ERR_NOMEM, "out of memory starting gnuplot");
    int err = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    if (!err) err = posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    if (!err) err = posix_spawn_file_actions_adddup2(&fa, log_fd, 2);
    if (!err) err = posix_spawn_file_actions_addchdir_np(&fa, dir);
    pid_t pid = 0;
    if (!err) err = posix_spawn(&pid, exe, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (err) return pf_fail(PF_ERR_EXTERNAL, "cannot run '%s' for '%s/%s': %s", exe, dir, gp, strerror(err));
    int ws;
    while (waitpid(pid, &ws, 0) < 0)
        if (errno != EINTR) return pf_fail(PF_ERR_IO, "waiting for gnuplot on '%s/%s': %s", dir, gp, strerror(errno));
    if (WIFEXITED(ws) && WEXITSTATUS(ws) == 0) return PF_OK;
    if (WIFEXITED(ws)) snprintf(how, cap, "exit %d", WEXITSTATUS(ws));
    else if (WIFSIGNALED(ws)) snprintf(how, cap, "killed by signal %d", WTERMSIG(ws));
    else snprintf(how, cap, "wait status %d", ws);
    return PF_OK;
}

pf_status pf_plot_render(const char *out_dir, const char *stem, const char *data, size_t data_len,
                         const char *script, int width, int height)
{
    PF_ASSERT_MSG(stem_ok(stem), "bad plot stem '%s'", stem);
    PF_ASSERT(width > 0 && height > 0);
    char dat[PATH_CAP], gp[PATH_CAP], png[PATH_CAP], logbase[PATH_CAP];
    char gp_name[96];
    snprintf(gp_name, sizeof gp_name, "%s.gp", stem);
    if (snprintf(dat, sizeof dat, "%s/%s.dat", out_dir, stem) >= (int)sizeof dat ||
        snprintf(gp, sizeof gp, "%s/%s", out_dir, gp_name) >= (int)sizeof gp ||
        snprintf(png, sizeof png, "%s/%s.png", out_dir, stem) >= (int)sizeof png ||
        snprintf(logbase, sizeof logbase, "%s/%s.gp.stderr", out_dir, stem) >= (int)sizeof logbase)
        return pf_fail(PF_ERR_IO, "output folder name '%s' is too long", out_dir);

    pf_plot_text t;
    PF_TRY(pf_plot_text_open(&t));
    fprintf(t.f,
            "# %s.gp: written by pf-plot (src/stats/plot.h); the data is in %s.dat.\n"
            "# Rerun in this folder: gnuplot %s.gp   (or: gnuplot -e \"outfile='x.png'\" %s.gp)\n"
            "if (!exists(\"outfile\")) outfile = \"%s.png\"\n"
            "set terminal pngcairo size %d,%d enhanced font \"Sans,11\" linewidth 1\n"
            "set output outfile\n",
            stem, stem, stem, stem, stem, width, height);
    fputs(script, t.f);
    fputs("unset output\n", t.f);
    pf_status st = pf_plot_text_close(&t);
    if (st == PF_OK) st = pf_file_write_atomic(dat, data, data_len);
    if (st == PF_OK) st = pf_file_write_atomic(gp, t.buf, t.len);
    pf_plot_text_free(&t);
    if (st != PF_OK) return st;

    /* gnuplot writes the PNG into a temp file we create first (O_EXCL |
     * O_NOFOLLOW: nothing planted under its name is followed), its stderr
     * into another; both are removed whatever happens */
    char *tmp = NULL, *log = NULL;
    int fd = -1, log_fd = -1;
    pf_tmp_sweep(png, NULL);
    pf_tmp_sweep(logbase, NULL);
    st = pf_tmp_create(png, &tmp, &fd);
    if (st == PF_OK) close(fd);
    if (st == PF_OK) st = pf_tmp_create(logbase, &log, &log_fd);
    char how[64] = "";
    if (st == PF_OK) st = spawn_gnuplot(out_dir, gp_name, strrchr(tmp, '/') + 1, log_fd, how, sizeof how);
    if (log_fd >= 0) close(log_fd);
    if (st == PF_OK && how[0]) {
        char msg[512];
        last_line(log, msg, sizeof msg);
        st = pf_fail(PF_ERR_IO, "gnuplot failed on '%s' (%s): %s", gp, how, msg[0] ? msg : "no message");
    }
    struct stat sb;
    if (st == PF_OK && (stat(tmp, &sb) != 0 || sb.st_size == 0))
        st = pf_fail(PF_ERR_IO, "gnuplot wrote no PNG for '%s' (expected '%s')", gp, tmp);
    if (st == PF_OK && rename(tmp, png) != 0)
        st = pf_fail(PF_ERR_IO, "cannot rename '%s' to '%s': %s", tmp, png, strerror(errno));
    if (log) unlink(log);
    if (st != PF_OK && tmp) unlink(tmp);
    free(tmp);
    free(log);
    return st;
}
