/*
 * select.c — appendix B.5's search controller (see select.h for the rules);
 * its file, select.msgpack, is artifact_select.c's.
 */
#include "search/select.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/names.h"

static const char *const next_names[] = {"normal", "escape", "stop"};

const char *pf_select_next_name(pf_select_next n)
{
    return (unsigned)n < 3 ? next_names[n] : "?";
}

int pf_select_next_lookup(const char *name)
{
    for (int i = 0; name && i < 3; i++)
        if (!strcmp(name, next_names[i])) return i;
    return -1;
}

double pf_select_improvement(double x, double y)
{
    if (x == 0 || !isfinite(x) || !isfinite(y)) return 0;
    double r = (x - y) / fabs(x);
    return r > 0 ? r : 0;
}

static void sort3(double *v, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && v[j] < v[j - 1]; j--) {
            double t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
}

double pf_select_median_top3(const double *v, int n)
{
    if (n < 3) return NAN;
    double best[3] = {INFINITY, INFINITY, INFINITY};
    for (int i = 0; i < n; i++)
        if (v[i] < best[2]) {
            best[2] = v[i];
            sort3(best, 3);
        }
    return best[1];
}

/* a ranks before b: smaller y, then earlier (generation, index). */
static bool before(const pf_candidate *a, const pf_candidate *b)
{
    if (a->y != b->y) return a->y < b->y;
    if (a->generation != b->generation) return a->generation < b->generation;
    return a->index < b->index;
}

void pf_select_top3(const pf_candidate *c, int n, int upto, int top[3], int *ntop)
{
    *ntop = 0;
    for (int i = 0; i < n; i++) {
        if (c[i].generation > upto || !pf_candidate_ranked(&c[i])) continue;
        /* is i the representative of its hash? */
        bool rep = true;
        for (int j = 0; j < n && rep; j++)
            if (j != i && c[j].generation <= upto && pf_candidate_ranked(&c[j]) &&
                !strcmp(c[j].spec_hash, c[i].spec_hash) && before(&c[j], &c[i]))
                rep = false;
        if (!rep) continue;
        int pos = *ntop;
        while (pos > 0 && before(&c[i], &c[top[pos - 1]])) pos--;
        if (pos >= 3) continue;
        for (int k = (*ntop < 3 ? *ntop : 2); k > pos; k--) top[k] = top[k - 1];
        top[pos] = i;
        if (*ntop < 3) (*ntop)++;
    }
}

/* ------------------------------------------------------------ statistics */

static int first_generation(const pf_select *s, const char *hash)
{
    int g = -1;
    for (int i = 0; i < s->ncand; i++)
        if (s->cand[i].valid && !strcmp(s->cand[i].spec_hash, hash) && (g < 0 || s->cand[i].generation < g))
            g = s->cand[i].generation;
    return g;
}

pf_status pf_select_recompute(pf_select *s)
{
    int G = s->generation + 1;
    free(s->b), free(s->B), free(s->m), free(s->A), free(s->new_elite);
    s->b = malloc(sizeof(double) * (size_t)G);
    s->B = malloc(sizeof(double) * (size_t)G);
    s->m = malloc(sizeof(double) * (size_t)G);
    s->A = malloc(sizeof(double) * (size_t)G);
    s->new_elite = malloc(sizeof(bool) * (size_t)G);
    double *ys = malloc(sizeof(double) * (size_t)(s->ncand + 1));
    if (!s->b || !s->B || !s->m || !s->A || !s->new_elite || !ys) {
        free(ys);
        return pf_fail(PF_ERR_NOMEM, "out of memory");
    }
    int prev_top[3], nprev = 0;
    for (int g = 0; g < G; g++) {
        int ny = 0;
        double b = INFINITY;
        for (int i = 0; i < s->ncand; i++)
            if (s->cand[i].generation == g && pf_candidate_ranked(&s->cand[i])) {
                ys[ny++] = s->cand[i].y;
                if (s->cand[i].y < b) b = s->cand[i].y;
            }
        s->b[g] = b;
        s->B[g] = g == 0 ? b : fmin(s->B[g - 1], b);
        s->m[g] = pf_select_median_top3(ys, ny);
        int top[3], nt;
        pf_select_top3(s->cand, s->ncand, g, top, &nt);
        s->A[g] = nt == 3 ? s->cand[top[1]].y : NAN;
        bool fresh = false;
        for (int k = 0; k < nt && !fresh; k++) {
            const char *h = s->cand[top[k]].spec_hash;
            bool was = false;
            for (int j = 0; j < nprev; j++)
                if (!strcmp(s->cand[prev_top[j]].spec_hash, h)) was = true;
            if (!was && first_generation(s, h) == g) fresh = true;
        }
        s->new_elite[g] = fresh;
        memcpy(prev_top, top, sizeof top);
        nprev = nt;
        if (g == G - 1) {
            memcpy(s->top3, top, sizeof top);
            s->ntop3 = nt;
        }
    }
    free(ys);
    return PF_OK;
}

/* ------------------------------------------------------------ decision */

static void join_causes(char *buf, size_t cap, const pf_select_tests *t)
{
    const char *names[3];
    int n = 0;
    if (t->global_best) names[n++] = "global-best";
    if (t->elite_archive) names[n++] = "elite-archive";
    if (t->population) names[n++] = "population";
    size_t len = 0;
    buf[0] = 0;
    for (int i = 0; i < n; i++)
        len += (size_t)snprintf(buf + len, cap - len, "%s%s", i == 0 ? "" : i == n - 1 ? " and " : ", ", names[i]);
    snprintf(buf + len, cap - len, " stagnation");
}

static void decide(pf_select *s, bool is_escape)
{
    int g = s->generation, last = s->max_generations - 1;
    pf_select_state *st = &s->state;
    s->tests = (pf_select_tests){0};
    s->has_escape = is_escape;
    s->escape = (pf_select_escape){0};
    if (is_escape) {
        pf_select_escape *e = &s->escape;
        e->new_best = pf_select_improvement(st->B_stall, s->b[g]) >= PF_SELECT_ESCAPE_GAIN;
        e->new_elite = s->new_elite[g];
        e->archive_improved = pf_select_improvement(st->A_stall, s->A[g]) >= PF_SELECT_ESCAPE_GAIN;
        e->success = e->new_best || e->new_elite || e->archive_improved;
        if (e->success) {
            st->window_start = g;
            const char *names[3];
            int n = 0;
            if (e->new_best) names[n++] = "new best";
            if (e->new_elite) names[n++] = "new elite";
            if (e->archive_improved) names[n++] = "archive improved";
            char why[96];
            pf_name_join(why, sizeof why, names, n);
            if (g >= last) {
                s->next = PF_SELECT_STOP;
                snprintf(s->cause, sizeof s->cause, "generation %d is the last", g);
                snprintf(s->reason, sizeof s->reason,
                         "escape generation %d succeeded (%s) but generation %d is the last: stop", g, why, g);
            } else {
                s->next = PF_SELECT_NORMAL;
                snprintf(s->cause, sizeof s->cause, "escape succeeded: %s", why);
                snprintf(s->reason, sizeof s->reason,
                         "escape generation %d succeeded (%s): stagnation history cleared, normal evolution resumes",
                         g, why);
            }
        } else {
            s->next = PF_SELECT_STOP;
            snprintf(s->cause, sizeof s->cause, "escape generation %d failed", g);
            snprintf(s->reason, sizeof s->reason, "escape generation %d failed: stop", g);
        }
        return;
    }
    if (g >= PF_SELECT_FIRST_TEST_GENERATION) {
        pf_select_tests *t = &s->tests;
        const double *B = s->B, *m = s->m;
        if (g - 3 >= st->window_start) {
            double tol = PF_SELECT_STEP_TOL;
            t->global_best = pf_select_improvement(B[g - 3], B[g - 2]) < tol &&
                             pf_select_improvement(B[g - 2], B[g - 1]) < tol &&
                             pf_select_improvement(B[g - 1], B[g]) < tol &&
                             pf_select_improvement(B[g - 3], B[g]) < PF_SELECT_WINDOW_TOL;
        }
        if (g - 2 >= st->window_start) {
            t->elite_archive = !(s->new_elite[g - 2] || s->new_elite[g - 1] || s->new_elite[g]);
            if (!isnan(m[g - 2]) && !isnan(m[g - 1]) && !isnan(m[g]))
                t->population = pf_select_improvement(m[g - 2], m[g - 1]) < PF_SELECT_MEDIAN_TOL &&
                                pf_select_improvement(m[g - 1], m[g]) < PF_SELECT_MEDIAN_TOL;
        }
        if (t->global_best || t->elite_archive || t->population) {
            char causes[96];
            join_causes(causes, sizeof causes, t);
            if (g >= last) {
                s->next = PF_SELECT_STOP;
                snprintf(s->cause, sizeof s->cause, "%s at the last generation", causes);
                snprintf(s->reason, sizeof s->reason,
                         "%s after generation %d, the last of %d: stop", causes, g, s->max_generations);
            } else {
                s->next = PF_SELECT_ESCAPE;
                st->stall_generation = g;
                st->escape_generation = g + 1;
                st->B_stall = s->B[g];
                st->A_stall = s->A[g];
                snprintf(s->cause, sizeof s->cause, "%s", causes);
                snprintf(s->reason, sizeof s->reason, "%s after generation %d: escape generation %d scheduled",
                         causes, g, g + 1);
            }
            return;
        }
    }
    if (g >= last) {
        s->next = PF_SELECT_STOP;
        snprintf(s->cause, sizeof s->cause, "generation %d is the last", g);
        snprintf(s->reason, sizeof s->reason, "generation %d completed, the last of %d: stop", g, s->max_generations);
    } else {
        s->next = PF_SELECT_NORMAL;
        snprintf(s->cause, sizeof s->cause, "%s",
                 g < PF_SELECT_FIRST_TEST_GENERATION ? "stagnation tests begin after generation 3" : "no stagnation");
        snprintf(s->reason, sizeof s->reason, "%s after generation %d: generation %d is a normal generation",
                 g < PF_SELECT_FIRST_TEST_GENERATION ? "no stagnation test yet" : "no stagnation", g, g + 1);
    }
}

/* ------------------------------------------------------------ lifetime */

static void cand_release(pf_candidate *c)
{
    json_decref(c->spec);
    json_decref(c->evidence);
    c->spec = c->evidence = NULL;
}

void pf_select_free(pf_select *s)
{
    if (!s) return;
    for (int i = 0; i < s->ncand; i++) cand_release(&s->cand[i]);
    free(s->cand);
    free(s->pde), free(s->method);
    free(s->b), free(s->B), free(s->m), free(s->A), free(s->new_elite);
    free(s);
}

static char *dup_or_null(const char *x)
{
    if (!x) return NULL;
    size_t n = strlen(x) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, x, n);
    return d;
}

static bool is_hash(const char *h)
{
    if (strlen(h) != PF_SPEC_HASH_HEX - 1) return false;
    for (const char *p = h; *p; p++)
        if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f'))) return false;
    return true;
}

pf_status pf_select_check_candidate(const pf_candidate *c, int generation, const char *where)
{
    if (c->generation != generation)
        return pf_fail(PF_ERR_INVALID, "%s: candidate %d belongs to generation %d, not %d", where, c->index,
                       c->generation, generation);
    if (c->index < 0) return pf_fail(PF_ERR_INVALID, "%s: candidate index %d is negative", where, c->index);
    if ((unsigned)c->status > PF_CANDIDATE_INVALID)
        return pf_fail(PF_ERR_INVALID, "%s: candidate %d has an unknown status", where, c->index);
    if (c->valid && !is_hash(c->spec_hash))
        return pf_fail(PF_ERR_INVALID, "%s: candidate %d of generation %d: spec_hash '%s' is not 64 hex digits",
                       where, c->index, c->generation, c->spec_hash);
    if (c->valid && c->status == PF_CANDIDATE_INVALID)
        return pf_fail(PF_ERR_INVALID, "%s: candidate %d of generation %d validated but has status invalid", where,
                       c->index, c->generation);
    if (!memchr(c->slot, 0, sizeof c->slot) || !memchr(c->spec_hash, 0, sizeof c->spec_hash))
        return pf_fail(PF_ERR_INVALID, "%s: candidate %d: unterminated string", where, c->index);
    return PF_OK;
}

void pf_select_append(pf_select *s, const pf_candidate *c)
{
    pf_candidate *d = &s->cand[s->ncand++];
    *d = *c;
    if (!d->valid) d->spec_hash[0] = 0, d->status = PF_CANDIDATE_INVALID;
    if (!d->has_y) d->y = NAN;
    d->spec = c->spec ? json_incref(c->spec) : NULL;
    d->evidence = c->evidence ? json_incref(c->evidence) : NULL;
}

pf_status pf_select_step(const pf_select *prev, const pf_candidate *gen, int n, int generation,
                         int max_generations, const char *pde, const char *method, pf_select **out)
{
    *out = NULL;
    if (max_generations < 1) return pf_fail(PF_ERR_INVALID, "max_generations must be >= 1, not %d", max_generations);
    if (generation < 0 || generation >= max_generations)
        return pf_fail(PF_ERR_INVALID, "generation %d is outside 0..%d (max_generations %d)", generation,
                       max_generations - 1, max_generations);
    if (n < 1) return pf_fail(PF_ERR_INVALID, "generation %d has no candidates", generation);
    if (generation == 0 && prev) return pf_fail(PF_ERR_INVALID, "generation 0 has no previous selection");
    if (generation > 0 && !prev)
        return pf_fail(PF_ERR_INVALID, "generation %d needs the selection of generation %d", generation,
                       generation - 1);
    if (prev) {
        if (prev->generation != generation - 1)
            return pf_fail(PF_ERR_INVALID, "the previous selection is of generation %d, not %d", prev->generation,
                           generation - 1);
        if (prev->next == PF_SELECT_STOP)
            return pf_fail(PF_ERR_INVALID, "generation %d follows a stop decision", generation);
    }
    for (int i = 0; i < n; i++) {
        PF_TRY(pf_select_check_candidate(&gen[i], generation, "pf_select_step"));
        for (int j = 0; j < i; j++)
            if (gen[j].index == gen[i].index)
                return pf_fail(PF_ERR_INVALID, "generation %d has two candidates with index %d", generation,
                               gen[i].index);
    }
    pf_select *s = calloc(1, sizeof *s);
    int total = (prev ? prev->ncand : 0) + n;
    if (!s || !(s->cand = calloc((size_t)total, sizeof *s->cand))) {
        free(s);
        return pf_fail(PF_ERR_NOMEM, "out of memory");
    }
    s->generation = generation;
    s->max_generations = max_generations;
    s->pde = dup_or_null(pde ? pde : prev ? prev->pde : NULL);
    s->method = dup_or_null(method ? method : prev ? prev->method : NULL);
    for (int i = 0; prev && i < prev->ncand; i++) pf_select_append(s, &prev->cand[i]);
    /* the new generation in index order */
    for (int done = 0; done < n; done++) {
        int pick = -1;
        for (int i = 0; i < n; i++) {
            bool taken = false;
            for (int j = s->ncand - done; j < s->ncand; j++)
                if (s->cand[j].index == gen[i].index) taken = true;
            if (!taken && (pick < 0 || gen[i].index < gen[pick].index)) pick = i;
        }
        pf_select_append(s, &gen[pick]);
    }
    s->state = prev ? prev->state
                    : (pf_select_state){.window_start = 0, .escape_generation = -1, .stall_generation = -1,
                                        .B_stall = NAN, .A_stall = NAN};
    pf_status st = pf_select_recompute(s);
    if (st != PF_OK) {
        pf_select_free(s);
        return st;
    }
    decide(s, prev && prev->next == PF_SELECT_ESCAPE);
    *out = s;
    return PF_OK;
}

