#include "stats/collect.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "llm/method.h"
#include "pdefile/pdefile.h"
#include "registry.h"
#include "search/artifact.h"
#include "stats/bootstrap.h"
#include "stats/describe.h"

/* buf = a "/" b; PF_ERR_INVALID when it does not fit. */
static pf_status join(char *buf, size_t cap, const char *a, const char *b)
{
    int n = snprintf(buf, cap, "%s/%s", a, b);
    if (n < 0 || (size_t)n >= cap) return pf_fail(PF_ERR_INVALID, "path too long: '%s/%s'", a, b);
    return PF_OK;
}

static bool is_dir(const char *path)
{
    struct stat s;
    return stat(path, &s) == 0 && S_ISDIR(s.st_mode);
}

static bool exists(const char *path)
{
    struct stat s;
    return stat(path, &s) == 0;
}

/* Sorted names of the sub-folders of dir. */
static pf_status list_dirs(const char *dir, char ***out, int *n)
{
    *out = NULL;
    *n = 0;
    DIR *d = opendir(dir);
    if (!d) return pf_fail(PF_ERR_IO, "cannot read the folder '%s': %s", dir, strerror(errno));
    struct dirent *e;
    int cap = 0;
    pf_status st = PF_OK;
    while ((e = readdir(d))) {
        char path[4096];
        if (e->d_name[0] == '.' || join(path, sizeof path, dir, e->d_name) != PF_OK || !is_dir(path)) continue;
        if (*n == cap) {
            cap = cap ? 2 * cap : 16;
            char **v = realloc(*out, (size_t)cap * sizeof *v);
            if (!v) {
                st = pf_fail(PF_ERR_NOMEM, "out of memory");
                break;
            }
            *out = v;
        }
        if (!((*out)[*n] = strdup(e->d_name))) {
            st = pf_fail(PF_ERR_NOMEM, "out of memory");
            break;
        }
        (*n)++;
    }
    closedir(d);
    for (int i = 1; i < *n; i++) /* insertion sort by name */
        for (int j = i; j > 0 && strcmp((*out)[j - 1], (*out)[j]) > 0; j--) {
            char *t = (*out)[j];
            (*out)[j] = (*out)[j - 1];
            (*out)[j - 1] = t;
        }
    return st;
}

static void free_names(char **v, int n)
{
    for (int i = 0; i < n; i++) free(v[i]);
    free(v);
}

/* The trajectory from the last completed selection. */
static pf_status trajectory(pf_run_summary *s)
{
    pf_select *last;
    int g_last;
    PF_TRY(pf_run_last_select(s->dir, &last, &g_last));
    s->generations = g_last + 1;
    for (int i = 0; last && i < last->ncand; i++) {
        const pf_candidate *h = &last->cand[i];
        if (h->status != PF_CANDIDATE_OK || !h->has_y || !isfinite(h->y)) continue;
        if (h->generation == 0 && !(h->y >= s->g0_best)) s->g0_best = h->y;
        if (!(h->y >= s->best_lf)) {
            s->best_lf = h->y;
            s->best_lf_generation = h->generation;
        }
    }
    pf_select_free(last);
    return PF_OK;
}

/* A file PDE's runs are filed under the name the file declares
 * (pipeline.mk: <root>/<name>/<method>/run<R>) while context.json holds the
 * file's path: the name is the run folder's grandparent. */
static pf_status filed_name(const char *dir, const char *path, char *out, size_t cap)
{
    size_t end = strlen(dir), start = end;
    for (int up = 0; up < 3; up++) {
        while (end > 0 && dir[end - 1] == '/') end--;
        start = end;
        while (start > 0 && dir[start - 1] != '/') start--;
        if (start == end) break;
        if (up < 2) end = start;
    }
    size_t len = end - start;
    if (!len || len >= cap || (dir[start] == '.' && (len == 1 || (len == 2 && dir[start + 1] == '.'))))
        return pf_fail(PF_ERR_INVALID, "run folder '%s' of the PDE file '%s' is not <pde>/<method>/run<R>", dir, path);
    memcpy(out, dir + start, len);
    out[len] = '\0';
    return PF_OK;
}

/* The name of the folder that holds the run folder dir (its method folder),
 * "" when dir has no parent in its path. */
static void method_folder(const char *dir, char *out, size_t cap)
{
    size_t end = strlen(dir);
    while (end > 0 && dir[end - 1] == '/') end--;
    while (end > 0 && dir[end - 1] != '/') end--; /* run<R> */
    while (end > 0 && dir[end - 1] == '/') end--;
    size_t start = end;
    while (start > 0 && dir[start - 1] != '/') start--;
    snprintf(out, cap, "%.*s", (int)(end - start), dir + start);
}

/* The run's backbone (collect.h): none for a method that asks no LLM; else
 * context.json's "backbone", the method folder's "@b", which must agree,
 * or, in a plain folder, the proposer kind ("offline"). */
static pf_status run_backbone(const char *dir, const pf_run_context *ctx, char *out, size_t cap)
{
    const pf_method_def *d = pf_method_def_named(ctx->method);
    out[0] = 0;
    if (!d || !(d->flags & PF_MF_LLM)) return PF_OK;
    char folder[PF_RUN_BACKBONE_CAP + 64], said[PF_RUN_BACKBONE_CAP];
    pf_llm_mix_spell(ctx->backbone, true, said, sizeof said); /* pf_run_context_read checked it against the folder */
    method_folder(dir, folder, sizeof folder);
    const char *at = strchr(folder, '@');
    if (at && ((size_t)(at - folder) != strlen(ctx->method) || strncmp(folder, ctx->method, (size_t)(at - folder))))
        return pf_fail(PF_ERR_INVALID, "%s: the folder '%s' is not of the method '%s' its context.json names", dir,
                       folder, ctx->method);
    if (*said && at && strcmp(said, at + 1))
        return pf_fail(PF_ERR_INVALID, "%s: context.json's backbone '%s' is not its folder's '%s'", dir, said, at + 1);
    const char *name = *said ? said : at ? at + 1 : ctx->llm;
    if (!*name || snprintf(out, cap, "%s", name) >= (int)cap)
        return pf_fail(PF_ERR_INVALID, "%s: the backbone '%s' is empty or longer than %zu characters", dir, name, cap - 1);
    return PF_OK;
}

pf_status pf_run_summarize(const char *dir, pf_run_summary *s)
{
    memset(s, 0, sizeof *s);
    if (strlen(dir) >= sizeof s->dir) return pf_fail(PF_ERR_INVALID, "path too long: '%s'", dir);
    memcpy(s->dir, dir, strlen(dir) + 1);
    s->hf_mse = s->report_mse = s->g0_best = s->best_lf = NAN;
    s->best_lf_generation = -1;
    s->wall_lf_s = s->wall_hf_s = s->llm_s = NAN;
    pf_run_context ctx; /* plain strings: any method name, baselines from other tools included */
    PF_TRY(pf_run_context_read(dir, &ctx));
    if (pf_pdefile_is_path(ctx.pde))
        PF_TRY(filed_name(dir, ctx.pde, s->pde, sizeof s->pde));
    else if (snprintf(s->pde, sizeof s->pde, "%s", ctx.pde) >= (int)sizeof s->pde)
        return pf_fail(PF_ERR_INVALID, "%s/context.json: \"pde\" '%s' is too long for a PDE name", dir, ctx.pde);
    memcpy(s->method, ctx.method, sizeof s->method);
    char word[PF_RUN_BACKBONE_CAP]; /* a mixture's folder spelling */
    pf_llm_mix_spell(ctx.backbone, true, word, sizeof word);
    snprintf(s->cell, sizeof s->cell, "%s%s%s", ctx.method, ctx.backbone[0] ? "@" : "", word);
    snprintf(s->profile, sizeof s->profile, "%s", ctx.budget);
    snprintf(s->llm, sizeof s->llm, "%s", ctx.llm);
    snprintf(s->eval, sizeof s->eval, "%s", ctx.eval);
    s->run = ctx.run;
    s->context = ctx;
    PF_TRY(run_backbone(dir, &ctx, s->backbone, sizeof s->backbone));
    PF_TRY(trajectory(s));
    char path[4200];
    PF_TRY(pf_run_path(dir, PF_RUN_FINAL, 0, 0, path, sizeof path));
    if (!exists(path)) return PF_OK;
    pf_final_file f;
    PF_TRY(pf_final_file_read(path, &f));
    s->final = true;
    s->hf_mse = f.hf_mse;
    s->report_mse = f.has_report ? f.report_mse : f.hf_mse;
    if (f.eval[0]) snprintf(s->eval, sizeof s->eval, "%s", f.eval); /* else context.json's, "paper" in old files */
    const pf_run_budget *b = &f.budget;
    s->steps_lf = b->steps_low;
    s->steps_hf = b->steps_high;
    s->wall_lf_s = b->wall_low;
    s->wall_hf_s = b->wall_high;
    s->steps_base = b->steps_baseline;
    s->wall_base_s = isfinite(b->wall_baseline) ? b->wall_baseline : 0; /* files older than baselines */
    s->llm_s = b->llm_s;
    s->llm_calls = b->calls;
    s->prompt_tokens = b->prompt_tokens;
    s->completion_tokens = b->completion_tokens;
    s->candidates = b->candidates;
    s->invalid = b->invalid;
    s->cost = b->cost;
    s->priced = b->priced;
    snprintf(s->stopped, sizeof s->stopped, "%s", f.stopped);
    pf_final_file_release(&f);
    return PF_OK;
}

static int pde_index(const char *name)
{
    for (int i = 0; i < pf_pdes_count(); i++)
        if (!strcmp(pf_pdes_at(i)->name, name)) return i;
    return pf_pdes_count();
}

static int cmp_summary(const void *a, const void *b)
{
    const pf_run_summary *x = a, *y = b;
    int c = pde_index(x->pde) - pde_index(y->pde);
    if (!c) c = strcmp(x->pde, y->pde);
    if (!c) c = strcmp(x->method, y->method);
    if (!c) c = strcmp(x->backbone, y->backbone);
    if (!c) c = x->run - y->run;
    return c;
}

static pf_status add_run(pf_collection *c, int *cap, const char *dir)
{
    char ctx[4096];
    PF_TRY(join(ctx, sizeof ctx, dir, "context.json"));
    if (!exists(ctx)) return PF_OK;
    if (c->n == *cap) {
        *cap = *cap ? 2 * *cap : 16;
        pf_run_summary *v = realloc(c->run, (size_t)*cap * sizeof *v);
        if (!v) return pf_fail(PF_ERR_NOMEM, "out of memory");
        c->run = v;
    }
    PF_TRY(pf_run_summarize(dir, &c->run[c->n]));
    c->n++;
    return PF_OK;
}

pf_status pf_collect(const char *root, const char *pde, pf_collection *out)
{
    memset(out, 0, sizeof *out);
    if (!is_dir(root)) return pf_fail(PF_ERR_IO, "no runs folder '%s'", root);
    char **pdes = NULL;
    int npde = 0, cap = 0;
    pf_status st = PF_OK;
    if (pde) {
        char path[4096];
        PF_TRY(join(path, sizeof path, root, pde));
        if (!is_dir(path)) return pf_fail(PF_ERR_IO, "no runs of %s: '%s' is not a folder", pde, path);
        pdes = malloc(sizeof *pdes);
        if (!pdes || !(pdes[0] = strdup(pde))) {
            free(pdes);
            return pf_fail(PF_ERR_NOMEM, "out of memory");
        }
        npde = 1;
    } else {
        PF_TRY(list_dirs(root, &pdes, &npde));
    }
    for (int i = 0; st == PF_OK && i < npde; i++) {
        char pdir[4096];
        char **methods;
        int nm;
        if ((st = join(pdir, sizeof pdir, root, pdes[i])) != PF_OK || (st = list_dirs(pdir, &methods, &nm)) != PF_OK)
            break;
        for (int j = 0; st == PF_OK && j < nm; j++) {
            char mdir[4096];
            char **runs;
            int nr;
            if ((st = join(mdir, sizeof mdir, pdir, methods[j])) != PF_OK || (st = list_dirs(mdir, &runs, &nr)) != PF_OK)
                break;
            for (int k = 0; st == PF_OK && k < nr; k++) {
                if (strncmp(runs[k], "run", 3)) continue;
                char rdir[4096];
                if ((st = join(rdir, sizeof rdir, mdir, runs[k])) == PF_OK) st = add_run(out, &cap, rdir);
            }
            free_names(runs, nr);
        }
        free_names(methods, nm);
    }
    free_names(pdes, npde);
    if (st != PF_OK) {
        pf_collection_release(out);
        return st;
    }
    if (out->n > 1) qsort(out->run, (size_t)out->n, sizeof *out->run, cmp_summary); /* no runs: run is NULL */
    return PF_OK;
}

void pf_collection_release(pf_collection *c)
{
    free(c->run);
    memset(c, 0, sizeof *c);
}

double pf_collection_mse(const pf_collection *c, const pf_run_summary *s)
{
    if (!s->final) return NAN;
    return c->metric == PF_METRIC_REPORT ? s->report_mse : s->hf_mse;
}

pf_status pf_collection_optimism_gap(const pf_collection *c, pf_optimism_gap *g)
{
    g->n = 0;
    g->median = g->lo = g->hi = NAN;
    double *v = malloc(((size_t)c->n + 1) * sizeof *v);
    if (!v) return pf_fail(PF_ERR_NOMEM, "out of memory");
    for (int i = 0; i < c->n; i++) {
        const pf_run_summary *s = &c->run[i];
        if (s->final && pf_collection_takes(c, s) && !strcmp(s->eval, "heldout") && s->hf_mse > 0 &&
            isfinite(s->report_mse))
            v[g->n++] = s->report_mse / s->hf_mse;
    }
    pf_status st = PF_OK;
    if (g->n) g->median = pf_stats_median(v, (size_t)g->n);
    if (g->n >= PF_OPTIMISM_GAP_MIN_RUNS)
        st = pf_stats_bootstrap_median(v, (size_t)g->n, PF_BOOTSTRAP_RESAMPLES, 0.95, PF_BOOTSTRAP_SEED, &g->lo, &g->hi);
    free(v);
    return st;
}

static bool same_cell(const pf_run_summary *a, const pf_run_summary *b)
{
    return !strcmp(a->pde, b->pde) && !strcmp(a->method, b->method) && !strcmp(a->backbone, b->backbone);
}

int pf_collection_backbones(const pf_collection *c, const char **names, int cap)
{
    int n = 0;
    for (int i = 0; i < c->n; i++) {
        const char *b = c->run[i].backbone;
        if (!c->run[i].final || !*b) continue;
        int j = 0;
        while (j < n && strcmp(names[j], b) < 0) j++;
        if ((j < n && !strcmp(names[j], b)) || n == cap) continue;
        memmove(names + j + 1, names + j, (size_t)(n - j) * sizeof *names);
        names[j] = b;
        n++;
    }
    return n;
}

bool pf_collection_takes(const pf_collection *c, const pf_run_summary *s)
{
    return !c->backbone || !*s->backbone || !strcmp(s->backbone, c->backbone);
}

pf_status pf_collection_check_cells(const pf_collection *c)
{
    for (int i = 0, j; i < c->n; i = j) { /* runs are sorted: one group per (pde, cell) */
        const pf_run_summary *first = NULL;
        for (j = i; j < c->n && same_cell(&c->run[i], &c->run[j]); j++) {
            const pf_run_summary *r = &c->run[j];
            char what[512];
            if (!r->final) continue;
            if (!first) first = r;
            else if (pf_run_context_settings_differ(&first->context, &r->context, what, sizeof what))
                return pf_fail(PF_ERR_INVALID,
                               "%s and %s were made with other settings (%s), so their MSEs do not average: a "
                               "cell of the tables holds runs of one profile, eval, llm and PDE file; table them "
                               "apart (move one into another folder, pf-stats --runs) or redo one with the "
                               "other's settings",
                               first->dir, r->dir, what);
        }
    }
    return PF_OK;
}

pf_status pf_collection_means(const pf_collection *c, bool (*keep)(const char *method, const void *ctx),
                              const void *ctx, pf_means *out)
{
    memset(out, 0, sizeof *out);
    PF_TRY(pf_collection_check_cells(c));
    double *v = malloc(((size_t)c->n + 1) * sizeof *v);
    if (!v) return pf_fail(PF_ERR_NOMEM, "out of memory");
    pf_status st = PF_OK;
    for (int i = 0, j; st == PF_OK && i < c->n; i = j) { /* runs are sorted: one group per (pde, cell) */
        int n = 0;
        for (j = i; j < c->n && same_cell(&c->run[i], &c->run[j]); j++)
            if (c->run[j].final) v[n++] = pf_collection_mse(c, &c->run[j]);
        if (n == 0 || !pf_collection_takes(c, &c->run[i]) || (keep && !keep(c->run[i].method, ctx))) continue;
        int p = pf_means_pde(out, c->run[i].pde), m = pf_means_method(out, c->run[i].method);
        if (p >= 0 && m >= 0 && !isnan(pf_means_mean(out, p, m)))
            st = pf_fail(PF_ERR_INVALID, "%s / %s has finished runs of several backbones (%s among them): a cell "
                         "holds one backbone's runs (pf-stats --backbone)", c->run[i].pde, c->run[i].method,
                         c->run[i].backbone);
        else
            st = pf_means_set(out, c->run[i].pde, c->run[i].method, pf_stats_mean(v, (size_t)n),
                              n > 1 ? pf_stats_std(v, (size_t)n) : NAN, n);
    }
    free(v);
    if (st != PF_OK) pf_means_release(out);
    return st;
}
