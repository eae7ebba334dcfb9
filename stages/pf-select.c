/*
 * pf-select — complete one generation of the search: the global distinct
 * Top-3, b_g, B_g, m_g, A_g, the stagnation tests and the next decision of
 * appendix B.5 (src/search/select.h has the rules).
 *
 *   pf-select --run RUN --generation G [--max-generations N] [--quiet]
 *
 * reads RUN/genGG/candK.proposal.msgpack (K = 0, 1, ... up to the first
 * missing one), RUN/genGG/candK/evidence.msgpack for each, and
 * RUN/gen(G-1)/select.msgpack when G > 0; writes RUN/genGG/select.msgpack
 * atomically. Exit 0 ok, 1 a missing / unreadable / inconsistent input or a
 * write failure, 2 usage.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/status.h"
#include "io/msgpack_json.h"
#include "search/run.h"
#include "search/select.h"

#define MAX_GENERATION 99
#define PATH_CAP 4096
#define RUN_MAX 2048 /* longest --run: every path in it then fits in PATH_CAP */

/* A file of the run (search/run.h's layout); it fits, --run being short. */
#define RUN_PATH(run, what, g, k, buf) ((void)pf_run_path((run), (what), (g), (k), (buf), sizeof(buf)))

typedef struct opts {
    const char *run;
    int generation, max_generations, quiet;
} opts;

static void usage(FILE *to)
{
    fprintf(to,
            "usage: pf-select --run RUN --generation G [--max-generations N] [--quiet]\n"
            "Completes generation G of a search run (appendix B.5): reads every\n"
            "RUN/genGG/candK.proposal.msgpack (K = 0, 1, ... up to the first missing one) with\n"
            "its RUN/genGG/candK/evidence.msgpack, and RUN/gen(G-1)/select.msgpack when G > 0;\n"
            "computes the history, the global distinct Top-3, b, B, m, A, the stagnation tests\n"
            "and the next decision (normal, escape or stop), and writes RUN/genGG/select.msgpack\n"
            "atomically. A candidate is ranked when its proposal validated, its training status\n"
            "is ok and it has a finite y; an invalid proposal needs no evidence file.\n"
            "  --run RUN            the run folder (runs/<pde>/<method>/run<R>)\n"
            "  --generation G       0..%d, written as genGG\n"
            "  --max-generations N  the generation limit (default: the previous selection's,\n"
            "                       else %d); generation N-1 always stops\n"
            "  --quiet              no progress lines on stderr\n"
            "A generation after a stop decision is a no-op: its select.msgpack repeats the\n"
            "last one with \"skipped\": true (and \"skipped_generation\": G).\n"
            "Exit codes: 0 ok, 1 missing, unreadable or inconsistent input or write\n"
            "failure, 2 usage error.\n",
            MAX_GENERATION, PF_SELECT_DEFAULT_MAX_GENERATIONS);
}

static int parse_int(const char *opt, const char *arg, int lo, int hi, int *v)
{
    char *end;
    errno = 0;
    long x = strtol(arg, &end, 10);
    if (errno || end == arg || *end || x < lo || x > hi) {
        fprintf(stderr, "pf-select: %s must be an integer in %d..%d, not '%s'\n", opt, lo, hi, arg);
        return 2;
    }
    *v = (int)x;
    return 0;
}

/* 0 ok, -1 --help, 2 usage */
static int parse(int argc, char **argv, opts *o)
{
    *o = (opts){.generation = -1, .max_generations = 0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return -1;
        } else if (!strcmp(a, "--run") && i + 1 < argc)
            o->run = argv[++i];
        else if (!strcmp(a, "--generation") && i + 1 < argc) {
            if (parse_int(a, argv[++i], 0, MAX_GENERATION, &o->generation)) return 2;
        } else if (!strcmp(a, "--max-generations") && i + 1 < argc) {
            if (parse_int(a, argv[++i], 1, MAX_GENERATION + 1, &o->max_generations)) return 2;
        } else if (!strcmp(a, "--quiet") || !strcmp(a, "-q"))
            o->quiet = 1;
        else if (a[0] != '-') {
            fprintf(stderr, "pf-select: unexpected argument '%s'\n", a);
            return 2;
        } else {
            fprintf(stderr, "pf-select: unknown option '%s' (or it lacks its value); see --help\n", a);
            return 2;
        }
    }
    if (!o->run || !*o->run) {
        fprintf(stderr, "pf-select: --run RUN is required; see --help\n");
        return 2;
    }
    if (strlen(o->run) >= RUN_MAX) {
        fprintf(stderr, "pf-select: --run is longer than %d characters\n", RUN_MAX - 1);
        return 2;
    }
    if (o->generation < 0) {
        fprintf(stderr, "pf-select: --generation G is required; see --help\n");
        return 2;
    }
    if (o->max_generations && o->generation >= o->max_generations) {
        fprintf(stderr, "pf-select: generation %d is past the last generation %d of --max-generations %d\n",
                o->generation, o->max_generations - 1, o->max_generations);
        return 2;
    }
    return 0;
}

/* ------------------------------------------------------------ inputs */

static const char *obj_str(const json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

/* The run's pde and method as the inputs name them (first seen wins;
 * a disagreement is an error). */
typedef struct names {
    const char *pde;
    char pde_file[PATH_CAP];
    const char *method;
} names;

static int note_pde(names *nm, const char *pde, const char *path)
{
    if (!pde) return 0;
    if (nm->pde && strcmp(nm->pde, pde)) {
        fprintf(stderr, "pf-select: %s is for PDE '%s', but %s is for '%s'\n", path, pde, nm->pde_file, nm->pde);
        return 1;
    }
    if (!nm->pde) {
        nm->pde = pde;
        snprintf(nm->pde_file, sizeof nm->pde_file, "%s", path);
    }
    return 0;
}

/* Read candidate K of generation G into *c; docs[] keeps the JSON alive. */
static int read_candidate(const opts *o, int k, const char *prop_path, pf_select_cand *c, json_t **prop_doc,
                          json_t **ev_doc, names *nm)
{
    int g = o->generation;
    *prop_doc = *ev_doc = NULL;
    memset(c, 0, sizeof *c);
    c->generation = g;
    c->index = k;
    json_t *p;
    if (pf_run_read(prop_path, "pinnforge.proposal", &p) != PF_OK) {
        fprintf(stderr, "pf-select: %s\n", pf_errmsg());
        return 1;
    }
    *prop_doc = p;
    const json_t *jg = json_object_get(p, "generation"), *ji = json_object_get(p, "index");
    if ((jg && (!json_is_integer(jg) || json_integer_value(jg) != g)) ||
        (ji && (!json_is_integer(ji) || json_integer_value(ji) != k))) {
        fprintf(stderr, "pf-select: %s: its generation %lld and index %lld differ from the file name's %d and %d\n",
                prop_path, json_is_integer(jg) ? (long long)json_integer_value(jg) : -1LL,
                json_is_integer(ji) ? (long long)json_integer_value(ji) : -1LL, g, k);
        return 1;
    }
    const json_t *jv = json_object_get(p, "valid");
    if (!json_is_boolean(jv)) {
        fprintf(stderr, "pf-select: %s: 'valid' must be true or false\n", prop_path);
        return 1;
    }
    c->valid = json_is_true(jv);
    const json_t *slot = json_object_get(p, "slot");
    if (json_is_string(slot)) snprintf(c->slot, sizeof c->slot, "%s", json_string_value(slot));
    else if (json_is_integer(slot)) snprintf(c->slot, sizeof c->slot, "%lld", (long long)json_integer_value(slot));
    if (c->valid) {
        const char *h = obj_str(p, "spec_hash");
        if (!h || strlen(h) != PF_SPEC_HASH_HEX - 1 || strspn(h, "0123456789abcdef") != PF_SPEC_HASH_HEX - 1) {
            fprintf(stderr, "pf-select: %s: a valid proposal needs a spec_hash of 64 hex digits\n", prop_path);
            return 1;
        }
        snprintf(c->spec_hash, sizeof c->spec_hash, "%s", h);
        c->spec = json_object_get(p, "spec");
        if (!json_is_object(c->spec)) {
            fprintf(stderr, "pf-select: %s: a valid proposal needs its spec (an object)\n", prop_path);
            return 1;
        }
    }
    if (json_is_string(json_object_get(p, "method")) && !nm->method) nm->method = obj_str(p, "method");
    if (note_pde(nm, obj_str(p, "pde"), prop_path)) return 1;

    char ev_path[PATH_CAP];
    RUN_PATH(o->run, "evidence", g, k, ev_path);
    if (access(ev_path, F_OK) != 0) {
        if (c->valid) {
            fprintf(stderr, "pf-select: candidate %d of generation %d has not been trained: %s missing\n", k, g,
                    ev_path);
            return 1;
        }
        c->status = PF_SELECT_INVALID;
        return 0;
    }
    json_t *e;
    if (pf_run_read(ev_path, "pinnforge.evidence", &e) != PF_OK) {
        fprintf(stderr, "pf-select: %s\n", pf_errmsg());
        return 1;
    }
    *ev_doc = e;
    if (!c->valid) {
        c->status = PF_SELECT_INVALID;
        return 0;
    }
    const char *status = obj_str(e, "status");
    int s = pf_select_status_lookup(status);
    if (s < 0 || s == PF_SELECT_INVALID) {
        fprintf(stderr, "pf-select: %s: status '%s' is not ok, nan, diverged or timeout\n", ev_path,
                status ? status : "(none)");
        return 1;
    }
    c->status = (pf_select_status)s;
    const char *eh = obj_str(e, "spec_hash");
    if (!eh || strcmp(eh, c->spec_hash)) {
        fprintf(stderr, "pf-select: %s: spec_hash %s differs from the proposal's %s (%s)\n", ev_path,
                eh ? eh : "(none)", c->spec_hash, prop_path);
        return 1;
    }
    const json_t *y = json_object_get(e, "y");
    if (y && !json_is_number(y) && !json_is_null(y)) {
        fprintf(stderr, "pf-select: %s: y must be a number\n", ev_path);
        return 1;
    }
    c->has_y = json_is_number(y);
    c->y = c->has_y ? json_number_value(y) : NAN;
    const json_t *ev = json_object_get(e, "evidence");
    c->evidence = json_is_object(ev) ? (json_t *)ev : NULL;
    if (note_pde(nm, obj_str(e, "pde"), ev_path)) return 1;
    return 0;
}

/* ------------------------------------------------------------ output */

static void fmt_y(char *buf, size_t cap, double v)
{
    if (isfinite(v)) snprintf(buf, cap, "%.2e", v);
    else snprintf(buf, cap, "none");
}

static void summary(const pf_select *s)
{
    int g = s->generation;
    char b[32], B[32], top[128] = "";
    fmt_y(b, sizeof b, s->b[g]);
    fmt_y(B, sizeof B, s->B[g]);
    size_t len = 0;
    for (int k = 0; k < s->ntop3; k++)
        len += (size_t)snprintf(top + len, sizeof top - len, " %.2e", s->cand[s->top3[k]].y);
    fprintf(stderr, "pf-select: gen%02d: best %s (all-time %s), top-3%s, next %s (%s)\n", g, b, B,
            s->ntop3 ? top : " empty", pf_select_next_name(s->next), s->cause);
}

static void release(pf_select_cand *c, json_t **pd, json_t **ed, int n)
{
    for (int i = 0; i < n; i++) json_decref(pd[i]), json_decref(ed[i]);
    free(c), free(pd), free(ed);
}

/* When the previous selection doc decided to stop, generation g is a no-op:
 * write its select.msgpack as a copy of doc marked skipped (so the
 * pipeline's fixed ten generations stay a static DAG) and return true with
 * *rc set. doc stays the caller's. */
static bool follows_stop(json_t *doc, int g, const opts *o, int *rc)
{
    const char *next = json_string_value(json_object_get(doc, "next"));
    if (!next || strcmp(next, "stop")) return false;
    char out[PATH_CAP];
    RUN_PATH(o->run, "select", g, 0, out);
    json_object_set_new(doc, "skipped", json_true());
    json_object_set_new(doc, "skipped_generation", json_integer(g));
    *rc = 0;
    if (pf_msgpack_write_file(out, doc) != PF_OK) {
        fprintf(stderr, "pf-select: %s\n", pf_errmsg());
        *rc = 1;
    } else if (!o->quiet) {
        fprintf(stderr, "pf-select: gen%02d: skipped (the search stopped: %s)\n", g,
                json_string_value(json_object_get(doc, "reason")));
    }
    return true;
}

int main(int argc, char **argv)
{
    opts o;
    int rc = parse(argc, argv, &o);
    if (rc) return rc < 0 ? 0 : rc;
    int g = o.generation;
    char path[PATH_CAP];

    pf_select *prev = NULL;
    if (g > 0) {
        RUN_PATH(o.run, "select", g - 1, 0, path);
        if (access(path, F_OK) != 0) {
            fprintf(stderr, "pf-select: generation %d needs the selection of generation %d: %s missing\n", g, g - 1,
                    path);
            return 1;
        }
        json_t *doc;
        if (pf_msgpack_read_file(path, &doc) != PF_OK) {
            fprintf(stderr, "pf-select: %s\n", pf_errmsg());
            return 1;
        }
        if (follows_stop(doc, g, &o, &rc)) {
            json_decref(doc);
            return rc;
        }
        pf_status st = pf_select_from_json(doc, &prev);
        json_decref(doc);
        if (st != PF_OK) { /* as pf_select_read() words it */
            fprintf(stderr, "pf-select: %s: %s\n", path, pf_errmsg());
            return 1;
        }
        if (prev->generation != g - 1) {
            fprintf(stderr, "pf-select: %s is the selection of generation %d, not %d\n", path, prev->generation,
                    g - 1);
            pf_select_free(prev);
            return 1;
        }
    }
    int maxg = o.max_generations ? o.max_generations : prev ? prev->max_generations : PF_SELECT_DEFAULT_MAX_GENERATIONS;
    if (g >= maxg) {
        fprintf(stderr, "pf-select: generation %d is past the last generation %d of %d\n", g, maxg - 1, maxg);
        pf_select_free(prev);
        return 1;
    }

    int n = 0;
    for (;; n++) {
        RUN_PATH(o.run, "proposal", g, n, path);
        if (access(path, F_OK) != 0) break;
    }
    if (n == 0) {
        RUN_PATH(o.run, "proposal", g, 0, path);
        fprintf(stderr, "pf-select: generation %d has no candidates: %s missing\n", g, path);
        pf_select_free(prev);
        return 1;
    }
    if (!o.quiet)
        fprintf(stderr, "pf-select: gen%02d: %d candidate%s in %s/gen%02d%s\n", g, n, n == 1 ? "" : "s", o.run, g,
                prev ? ", after the selection of the previous generation" : "");
    pf_select_cand *c = calloc((size_t)n, sizeof *c);
    json_t **pd = calloc((size_t)n, sizeof *pd), **ed = calloc((size_t)n, sizeof *ed);
    if (!c || !pd || !ed) {
        fprintf(stderr, "pf-select: out of memory\n");
        release(c, pd, ed, 0);
        pf_select_free(prev);
        return 1;
    }
    names nm = {0};
    if (prev && prev->pde) {
        nm.pde = prev->pde;
        snprintf(nm.pde_file, sizeof nm.pde_file, "the selection of generation %d", g - 1);
    }
    if (prev && prev->method) nm.method = prev->method;
    for (int k = 0; k < n; k++) {
        RUN_PATH(o.run, "proposal", g, k, path);
        if (read_candidate(&o, k, path, &c[k], &pd[k], &ed[k], &nm)) {
            release(c, pd, ed, k + 1);
            pf_select_free(prev);
            return 1;
        }
    }
    pf_select *s;
    pf_status st = pf_select_step(prev, c, n, g, maxg, nm.pde, nm.method, &s);
    release(c, pd, ed, n);
    pf_select_free(prev);
    if (st != PF_OK) {
        fprintf(stderr, "pf-select: %s\n", pf_errmsg());
        return 1;
    }
    RUN_PATH(o.run, "select", g, 0, path);
    st = pf_select_write(path, s);
    if (st != PF_OK) {
        fprintf(stderr, "pf-select: %s\n", pf_errmsg());
        pf_select_free(s);
        return 1;
    }
    if (!o.quiet) summary(s);
    pf_select_free(s);
    return 0;
}
