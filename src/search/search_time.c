/* search_time.c — the trainings of a search on one time line (search_time.h). */
#include "search/search_time.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "search/artifact.h"

double pf_interval_union(double *lo, double *hi, size_t n, double from, double to)
{
    for (size_t i = 1; i < n; i++) /* insertion sort by start: a search has at most a few hundred */
        for (size_t j = i; j > 0 && lo[j - 1] > lo[j]; j--) {
            double t = lo[j];
            lo[j] = lo[j - 1], lo[j - 1] = t;
            t = hi[j];
            hi[j] = hi[j - 1], hi[j - 1] = t;
        }
    double sum = 0, end = from; /* everything before `end` is counted */
    for (size_t i = 0; i < n; i++) {
        double a = fmax(lo[i], end), b = fmin(hi[i], to);
        if (b > a) sum += b - a;
        if (b > end) end = b;
    }
    return sum;
}

typedef struct walk {
    pf_search_time *t;
    double from;
    double *lo, *hi;
    size_t n, cap;
} walk;

static pf_status time_field(const char *path, const json_t *time, const char *key, double *v)
{
    const json_t *x = time ? json_object_get(time, key) : NULL;
    if (!json_is_number(x) || !isfinite(*v = json_number_value(x)))
        return pf_fail(PF_ERR_INVALID, "'%s': no evidence.time.%s (written before trainings recorded it? train it again)",
                       path, key);
    return PF_OK;
}

static pf_status add_evidence(walk *w, const char *path)
{
    pf_evidence_file ev;
    PF_TRY(pf_evidence_file_read(path, &ev));
    pf_status st = PF_OK;
    if (ev.evidence) { /* trained */
        const json_t *time = json_object_get(ev.evidence, "time");
        double wall = 0, cpu = 0, start = 0;
        if ((st = time_field(path, time, "wall_s", &wall)) == PF_OK &&
            (st = time_field(path, time, "cpu_s", &cpu)) == PF_OK &&
            (st = time_field(path, time, "started_unix", &start)) == PF_OK) {
            if (start < w->from) {
                w->t->earlier++;
            } else if (w->n == w->cap) {
                size_t cap = w->cap ? 2 * w->cap : 64;
                double *lo = realloc(w->lo, cap * sizeof *lo);
                if (lo) w->lo = lo;
                double *hi = lo ? realloc(w->hi, cap * sizeof *hi) : NULL;
                if (hi) w->hi = hi, w->cap = cap;
                else st = pf_fail(PF_ERR_NOMEM, "out of memory");
            }
            if (st == PF_OK && start >= w->from) {
                w->lo[w->n] = start, w->hi[w->n] = start + wall, w->n++;
                w->t->trainings++;
                w->t->train_s += wall;
                w->t->cpu_s += cpu;
            }
        }
    }
    pf_evidence_file_release(&ev);
    return st;
}

static pf_status walk_dir(walk *w, const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return pf_fail(PF_ERR_IO, "cannot read the folder '%s': %s", dir, strerror(errno));
    pf_status st = PF_OK;
    struct dirent *e;
    while (st == PF_OK && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        char path[4096];
        struct stat sb;
        if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= sizeof path)
            st = pf_fail(PF_ERR_INVALID, "a path under '%s' is too long", dir);
        else if (lstat(path, &sb) != 0)
            st = pf_fail(PF_ERR_IO, "cannot stat '%s': %s", path, strerror(errno));
        else if (S_ISDIR(sb.st_mode))
            st = walk_dir(w, path);
        else if (S_ISREG(sb.st_mode) && !strcmp(e->d_name, "evidence.msgpack"))
            st = add_evidence(w, path);
    }
    closedir(d);
    return st;
}

pf_status pf_search_time_collect(const char *root, double from, double to, pf_search_time *out)
{
    memset(out, 0, sizeof *out);
    walk w = {.t = out, .from = from};
    pf_status st = walk_dir(&w, root);
    if (st == PF_OK) out->busy_s = pf_interval_union(w.lo, w.hi, w.n, from, to);
    free(w.lo);
    free(w.hi);
    return st;
}
