#include "stats/means.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/msgpack_json.h"
#include "llm/method.h"
#include "registry.h"

int pf_means_pde(const pf_means *m, const char *pde)
{
    for (int i = 0; i < m->npde; i++)
        if (!strcmp(m->pde[i], pde)) return i;
    return -1;
}

int pf_means_method(const pf_means *m, const char *method)
{
    for (int j = 0; j < m->nmethod; j++)
        if (!strcmp(m->method[j], method)) return j;
    return -1;
}

double pf_means_mean(const pf_means *m, int i, int j) { return m->mean[(size_t)i * m->nmethod + j]; }
double pf_means_std(const pf_means *m, int i, int j) { return m->std[(size_t)i * m->nmethod + j]; }

/* Re-lay the cells for new dimensions (old cells keep their place). */
static pf_status relayout(pf_means *m, int npde, int nmethod)
{
    size_t cells = (size_t)npde * nmethod;
    double *mean = malloc((cells ? cells : 1) * sizeof *mean), *sd = malloc((cells ? cells : 1) * sizeof *sd);
    int *runs = calloc(cells ? cells : 1, sizeof *runs);
    if (!mean || !sd || !runs) {
        free(mean), free(sd), free(runs);
        return pf_fail(PF_ERR_NOMEM, "means: out of memory");
    }
    for (size_t c = 0; c < cells; c++) mean[c] = sd[c] = NAN;
    for (int i = 0; i < m->npde; i++)
        for (int j = 0; j < m->nmethod; j++) {
            size_t from = (size_t)i * m->nmethod + j, to = (size_t)i * nmethod + j;
            mean[to] = m->mean[from];
            sd[to] = m->std[from];
            runs[to] = m->runs[from];
        }
    free(m->mean), free(m->std), free(m->runs);
    m->mean = mean;
    m->std = sd;
    m->runs = runs;
    return PF_OK;
}

/* names[n] = a copy of name (the caller then counts it). */
static pf_status add_name(char ***names, int n, int *cap, const char *name)
{
    if (n == *cap) {
        int c = *cap ? 2 * *cap : 8;
        char **v = realloc(*names, (size_t)c * sizeof *v);
        if (!v) return pf_fail(PF_ERR_NOMEM, "means: out of memory");
        *names = v;
        *cap = c;
    }
    if (!((*names)[n] = strdup(name))) return pf_fail(PF_ERR_NOMEM, "means: out of memory");
    return PF_OK;
}

pf_status pf_means_set(pf_means *m, const char *pde, const char *method, double mean, double std, int runs)
{
    int i = pf_means_pde(m, pde), j = pf_means_method(m, method);
    if (i < 0 || j < 0) {
        int np = m->npde + (i < 0), nm = m->nmethod + (j < 0);
        PF_TRY(relayout(m, np, nm));
        if (i < 0) PF_TRY(add_name(&m->pde, m->npde, &m->cap_pde, pde));
        if (j < 0) PF_TRY(add_name(&m->method, m->nmethod, &m->cap_method, method));
        m->npde = np;
        m->nmethod = nm;
        i = pf_means_pde(m, pde);
        j = pf_means_method(m, method);
    }
    size_t c = (size_t)i * m->nmethod + j;
    if (!isnan(m->mean[c])) return pf_fail(PF_ERR_INVALID, "means: %s / %s is given twice", pde, method);
    m->mean[c] = mean;
    m->std[c] = std;
    m->runs[c] = runs;
    return PF_OK;
}

/* ------------------------------------------------------------ order */


static int pde_key(const char *name)
{
    for (int i = 0; i < pf_pdes_count(); i++)
        if (!strcmp(pf_pdes_at(i)->name, name)) return i;
    return 1000;
}

static int method_key(const char *name, const char *reference)
{
    if (reference && !strcmp(name, reference)) return 2000;
    const pf_method_def *d = pf_method_def_named(name); /* llm/methods.def */
    return d ? d->order : 1000;
}

/* Stable selection of an order: perm[new] = old. */
static void order(char **names, int n, int (*key)(const char *, const char *), const char *ref, int *perm)
{
    for (int i = 0; i < n; i++) perm[i] = i;
    for (int i = 1; i < n; i++) /* insertion sort: n is small */
        for (int j = i; j > 0; j--) {
            int a = perm[j - 1], b = perm[j];
            int ka = key(names[a], ref), kb = key(names[b], ref);
            if (ka < kb || (ka == kb && strcmp(names[a], names[b]) <= 0)) break;
            perm[j - 1] = b;
            perm[j] = a;
        }
}

static int pde_key2(const char *name, const char *unused) { return pde_key(name); }

void pf_means_sort(pf_means *m, const char *reference)
{
    if (m->npde == 0 || m->nmethod == 0) return;
    int *pp = malloc((size_t)m->npde * sizeof *pp), *pm = malloc((size_t)m->nmethod * sizeof *pm);
    size_t cells = (size_t)m->npde * m->nmethod;
    double *mean = malloc(cells * sizeof *mean), *sd = malloc(cells * sizeof *sd);
    int *runs = malloc(cells * sizeof *runs);
    char **pn = malloc((size_t)m->npde * sizeof *pn), **mn = malloc((size_t)m->nmethod * sizeof *mn);
    if (pp && pm && mean && sd && runs && pn && mn) {
        order(m->pde, m->npde, pde_key2, NULL, pp);
        order(m->method, m->nmethod, method_key, reference, pm);
        for (int i = 0; i < m->npde; i++) {
            pn[i] = m->pde[pp[i]];
            for (int j = 0; j < m->nmethod; j++) {
                size_t to = (size_t)i * m->nmethod + j, from = (size_t)pp[i] * m->nmethod + pm[j];
                mean[to] = m->mean[from];
                sd[to] = m->std[from];
                runs[to] = m->runs[from];
            }
        }
        for (int j = 0; j < m->nmethod; j++) mn[j] = m->method[pm[j]];
        memcpy(m->pde, pn, (size_t)m->npde * sizeof *pn);
        memcpy(m->method, mn, (size_t)m->nmethod * sizeof *mn);
        memcpy(m->mean, mean, cells * sizeof *mean);
        memcpy(m->std, sd, cells * sizeof *sd);
        memcpy(m->runs, runs, cells * sizeof *runs);
    } /* out of memory: the order stays as it was */
    free(pp), free(pm), free(mean), free(sd), free(runs), free(pn), free(mn);
}

void pf_means_drop_sparse(pf_means *m, int min)
{
    int kept = 0;
    for (int i = 0; i < m->npde; i++) {
        int set = 0;
        for (int j = 0; j < m->nmethod; j++) set += !isnan(pf_means_mean(m, i, j));
        if (set < min) {
            free(m->pde[i]);
            continue;
        }
        size_t to = (size_t)kept * m->nmethod, from = (size_t)i * m->nmethod;
        memmove(m->mean + to, m->mean + from, (size_t)m->nmethod * sizeof *m->mean);
        memmove(m->std + to, m->std + from, (size_t)m->nmethod * sizeof *m->std);
        memmove(m->runs + to, m->runs + from, (size_t)m->nmethod * sizeof *m->runs);
        m->pde[kept++] = m->pde[i];
    }
    m->npde = kept;
}

/* ------------------------------------------------------------ CSV */

enum { COL_PDE, COL_METHOD, COL_MEAN, COL_STD, COL_RUNS, NCOL };
static const char *const col_names[NCOL] = {"pde", "method", "mean", "std", "runs"};

/* Split a line at commas in place (no quoting: names and numbers only),
 * trimming spaces; returns the field count. */
static int split(char *line, char **f, int cap)
{
    int n = 0;
    for (char *s = line;;) {
        while (*s == ' ' || *s == '\t') s++;
        char *e = strchr(s, ',');
        if (e) *e = 0;
        char *t = s + strlen(s);
        while (t > s && isspace((unsigned char)t[-1])) *--t = 0;
        if (n < cap) f[n] = s;
        n++;
        if (!e) return n;
        s = e + 1;
    }
}

static bool valid_name(const char *s)
{
    if (!*s) return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && !strchr("_.-", *s)) return false;
    return true;
}

static pf_status number(const char *path, int line, const char *col, const char *s, double *out)
{
    char *end;
    errno = 0;
    *out = strtod(s, &end);
    if (!*s || *end || errno == ERANGE)
        return pf_fail(PF_ERR_INVALID, "%s:%d: column %s: '%s' is not a number", path, line, col, s);
    return PF_OK;
}

static pf_status parse(const char *path, char *text, pf_means *out)
{
    int col[NCOL] = {-1, -1, -1, -1, -1}, lineno = 0, width = 0;
    bool header = false;
    for (char *line = text, *next; line; line = next) {
        next = strchr(line, '\n');
        if (next) *next++ = 0;
        lineno++;
        size_t len = strlen(line);
        if (len && line[len - 1] == '\r') line[len - 1] = 0;
        const char *p = line;
        while (*p == ' ' || *p == '\t') p++;
        if (!*p || *p == '#') continue;
        char *f[64];
        int n = split(line, f, 64);
        if (n > 64) return pf_fail(PF_ERR_INVALID, "%s:%d: more than 64 columns", path, lineno);
        if (!header) {
            for (int i = 0; i < n; i++)
                for (int c = 0; c < NCOL; c++)
                    if (!strcmp(f[i], col_names[c])) col[c] = i;
            for (int c = 0; c <= COL_MEAN; c++)
                if (col[c] < 0)
                    return pf_fail(PF_ERR_INVALID, "%s:%d: the header has no column '%s' (wanted pde, method, mean[, std, runs])",
                                   path, lineno, col_names[c]);
            header = true;
            width = n;
            continue;
        }
        if (n != width) return pf_fail(PF_ERR_INVALID, "%s:%d: %d fields, the header has %d", path, lineno, n, width);
        for (int c = 0; c < COL_MEAN; c++)
            if (!valid_name(f[col[c]]))
                return pf_fail(PF_ERR_INVALID, "%s:%d: %s '%s' is not a name ([A-Za-z0-9_.-]+)", path, lineno, col_names[c], f[col[c]]);
        double mean, sd = NAN, runs = 0;
        PF_TRY(number(path, lineno, "mean", f[col[COL_MEAN]], &mean));
        if (col[COL_STD] >= 0 && *f[col[COL_STD]]) PF_TRY(number(path, lineno, "std", f[col[COL_STD]], &sd));
        if (col[COL_RUNS] >= 0 && *f[col[COL_RUNS]]) PF_TRY(number(path, lineno, "runs", f[col[COL_RUNS]], &runs));
        if (!isfinite(mean)) return pf_fail(PF_ERR_INVALID, "%s:%d: mean '%s' is not finite", path, lineno, f[col[COL_MEAN]]);
        /* a standard deviation is a finite number >= 0 (empty: none given) */
        if (col[COL_STD] >= 0 && *f[col[COL_STD]] && !(isfinite(sd) && sd >= 0))
            return pf_fail(PF_ERR_INVALID, "%s:%d: std '%s' is not a standard deviation (a finite number >= 0)", path,
                           lineno, f[col[COL_STD]]);
        if (col[COL_RUNS] >= 0 && *f[col[COL_RUNS]] && !(runs >= 0 && runs <= INT_MAX && runs == floor(runs)))
            return pf_fail(PF_ERR_INVALID, "%s:%d: runs '%s' is not a count of runs (an integer in 0..%d)", path,
                           lineno, f[col[COL_RUNS]], INT_MAX);
        pf_status st = pf_means_set(out, f[col[COL_PDE]], f[col[COL_METHOD]], mean, sd, (int)runs);
        if (st != PF_OK) return pf_fail(st, "%s:%d: %s", path, lineno, pf_errmsg());
    }
    if (!header) return pf_fail(PF_ERR_INVALID, "%s: no header line (pde,method,mean,std)", path);
    if (out->npde == 0) return pf_fail(PF_ERR_INVALID, "%s: no rows after the header", path);
    return PF_OK;
}

pf_status pf_means_read_csv(const char *path, pf_means *out)
{
    memset(out, 0, sizeof *out);
    char *text;
    size_t len;
    PF_TRY(pf_file_read_as(path, PF_FILE_TABLE, &text, &len));
    pf_status st = parse(path, text, out);
    free(text);
    if (st != PF_OK) pf_means_release(out);
    return st;
}

char *pf_means_csv(const pf_means *m)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return NULL;
    fprintf(f, "pde,method,runs,mean,std\n");
    for (int i = 0; i < m->npde; i++)
        for (int j = 0; j < m->nmethod; j++) {
            double mu = pf_means_mean(m, i, j), sd = pf_means_std(m, i, j);
            if (isnan(mu)) continue;
            fprintf(f, "%s,%s,%d,%.9e,", m->pde[i], m->method[j], m->runs[(size_t)i * m->nmethod + j], mu);
            if (!isnan(sd)) fprintf(f, "%.9e", sd);
            fputc('\n', f);
        }
    return fclose(f) == 0 ? buf : (free(buf), NULL);
}

void pf_means_release(pf_means *m)
{
    for (int i = 0; i < m->npde; i++) free(m->pde[i]);
    for (int j = 0; j < m->nmethod; j++) free(m->method[j]);
    free(m->pde), free(m->method), free(m->mean), free(m->std), free(m->runs);
    memset(m, 0, sizeof *m);
}
