/* The offline rule-based proposer (no LLM): every answer holds a valid spec,
 * answers are deterministic, roles differ, strategies react to evidence,
 * escape proposals leave their parents, the posterior memory lists
 * failures, and bad contexts fail with a clear message. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "llm/offline.h"
#include "llm/provider.h"
#include "registry.h"
#include "spec/spec.h"

/* ------------------------------------------------------------ helpers */

/* The ```json block of an answer, parsed (NULL when there is none). */
static json_t *fenced(const char *text)
{
    const char *a = strstr(text, "```json\n");
    if (!a) return NULL;
    a += 8;
    const char *b = strstr(a, "```");
    if (!b) return NULL;
    return json_loadb(a, (size_t)(b - a), 0, NULL);
}

static const pf_pde *pde(const char *name)
{
    const pf_pde *p;
    cr_assert_eq(pf_pdes_lookup(name, &p), PF_OK, "%s", pf_errmsg());
    return p;
}

static json_t *context(const char *pde_name, const char *fid)
{
    return json_pack("{s:s,s:i,s:s,s:s,s:s}", "format", "pinnforge.context", "version", 1, "task", "propose", "pde",
                     pde_name, "fidelity", fid);
}

/* Answer, check the block with pf_spec_check, return the normalized spec
 * (NULL and a message in why when anything fails). */
static json_t *answer_spec(const json_t *cx, uint64_t seed, const char *hash, char **text_out, char *why, size_t cap)
{
    char *text = NULL;
    json_t *norm = NULL;
    if (pf_offline_answer(cx, seed, hash, &text) != PF_OK) {
        snprintf(why, cap, "answer failed: %s", pf_errmsg());
        return NULL;
    }
    json_t *raw = fenced(text);
    const pf_pde *p;
    pf_fidelity f;
    pf_spec_report rep;
    pf_pdes_lookup(json_string_value(json_object_get(cx, "pde")), &p);
    pf_fidelity_from_name(json_string_value(json_object_get(cx, "fidelity")), &f);
    if (!raw)
        snprintf(why, cap, "no parsable ```json block in:\n%s", text);
    else if (pf_spec_check(raw, p, f, &norm, &rep) != PF_OK)
        snprintf(why, cap, "invalid spec: %s\n%s", rep.reason[0], text);
    json_decref(raw);
    if (text_out)
        *text_out = text;
    else
        free(text);
    return norm;
}

static void spec_hash(const json_t *norm, char hex[PF_SPEC_HASH_HEX])
{
    cr_assert_eq(pf_spec_hash(norm, hex), PF_OK);
}

/* Deterministic pseudo-random numbers for synthetic evidence. */
static double lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*s >> 11) / 9007199254740992.0;
}

static const char *const STATUS[] = {"ok", "ok", "ok", "ok", "ok", "nan", "diverged", "timeout"};

/* Synthetic evidence for a normalized spec: terms from its loss weights. */
static json_t *evidence(const json_t *norm, uint64_t *s, const char *status)
{
    json_t *terms = json_array(), *cons = json_object();
    const char *k;
    json_t *v;
    double pde_loss = pow(10, -2 - 4 * lcg(s));
    json_object_foreach(json_object_get(json_object_get(norm, "loss"), "weights"), k, v) {
        double l = !strcmp(k, "pde") ? pde_loss : pow(10, -6 + 5 * lcg(s));
        json_array_append_new(terms, json_pack("{s:s,s:s,s:f,s:f,s:f}", "name", k, "mode", "soft", "weight",
                                               json_number_value(v), "loss_initial", 1.0, "loss_final", l));
        if (strcmp(k, "pde")) json_object_set_new(cons, k, json_real(l));
    }
    double share = 0.5 * lcg(s), mean = 1e-2;
    json_t *hot = json_pack("[{s:f},{s:f},{s:f}]", "share", share, "share", share / 2, "share", share / 4);
    return json_pack("{s:s,s:f,s:I,s:o,s:f,s:{s:f,s:f,s:f},s:o,s:o,s:[{s:s,s:i,s:i,s:s}],s:I}", "status", status,
                     "loss_reduction", pow(10, 4 * lcg(s)), "stagnation_steps", (json_int_t)(1000 * lcg(s)), "terms", terms,
                     "grad_imbalance", pow(10, 3 * lcg(s)), "residual", "mean", mean, "p95", mean * (1 + 6 * lcg(s)), "max",
                     mean * 100 * lcg(s), "hotspots", hot, "constraint_errors", cons, "stages", "optimizer", "adam",
                     "planned", 1000, "done", 1000, "outcome", "completed", "parameters", (json_int_t)40000);
}

/* A parent entry from a normalized spec, with feedback. */
static json_t *parent(const json_t *norm, double y, const char *status, json_t *ev)
{
    char hex[PF_SPEC_HASH_HEX];
    spec_hash(norm, hex);
    json_t *p = json_pack("{s:O,s:s,s:s}", "spec", norm, "spec_hash", hex, "status", status);
    if (isfinite(y)) json_object_set_new(p, "y", json_real(y));
    if (ev) json_object_set_new(p, "evidence", ev);
    return p;
}

static int has_mech(const json_t *norm, const char *m)
{
    json_t *a = pf_offline_mechanisms(norm);
    size_t i;
    json_t *v;
    int found = 0;
    json_array_foreach(a, i, v) found |= !strcmp(json_string_value(v), m);
    json_decref(a);
    return found;
}

/* A history entry for the posterior. */
static json_t *hist(int g, int slot, const json_t *norm, double y, const char *status)
{
    char hex[PF_SPEC_HASH_HEX];
    spec_hash(norm, hex);
    json_t *h = json_pack("{s:i,s:i,s:s,s:O,s:s}", "generation", g, "slot", slot, "spec_hash", hex, "spec", norm, "status",
                          status);
    if (isfinite(y)) json_object_set_new(h, "y", json_real(y));
    return h;
}

/* ------------------------------------------------------------ 1. always valid */

#define POOL 3

Test(offline, thousand_proposals_all_valid, .timeout = 120)
{
    static char why[16384];
    int n = pf_pdes_count(), count = 0, failures = 0, repaired = 0, escapes = 0, highs = 0, no_parent = 0;
    cr_assert_eq(n, 25);
    json_t *pool[25][POOL] = {{0}};
    double ys[25][POOL];
    json_t *history[25];
    for (int i = 0; i < n; i++) history[i] = json_array();
    uint64_t s = 12345;
    clock_t t0 = clock();
    for (int i = 0; i < 1000; i++) {
        int pi = i % n, round = i / n;
        const pf_pde *p = pf_pdes_at(pi);
        int high = (i % 50 == 7);
        json_t *cx = context(p->name, high ? "high" : "low");
        const char *method = i % 7 == 3 ? "no_feedback" : i % 11 == 5 ? "no_knowledge" : i % 17 == 9 ? "no_evolution" : "pinnforge";
        json_object_set_new(cx, "method", json_string(method));
        int is_role = round < 8 || (i % 9 == 0);
        if (is_role) {
            json_object_set_new(cx, "role", json_string(pf_offline_role_name((round + i) % 8)));
            json_object_set_new(cx, "generation", json_integer(0));
        } else {
            json_object_set_new(cx, "strategy", json_string(pf_offline_strategy_name((round + i / 3) % 5)));
            json_object_set_new(cx, "generation", json_integer(1 + round / 4));
            int esc = (i % 3 == 0);
            json_object_set_new(cx, "escape", json_boolean(esc));
            escapes += esc;
            if (strcmp(method, "no_evolution")) {
                json_t *ps = json_array();
                for (int k = 0; k < POOL; k++)
                    if (pool[pi][k]) {
                        int fb = strcmp(method, "no_feedback");
                        const char *st = STATUS[(i + k) % 8];
                        json_array_append_new(ps, fb ? parent(pool[pi][k], ys[pi][k], st, evidence(pool[pi][k], &s, st))
                                                     : json_pack("{s:O}", "spec", pool[pi][k]));
                    }
                json_object_set_new(cx, "parents", ps);
            } else {
                no_parent++;
            }
            if (strcmp(method, "no_feedback") && json_array_size(history[pi]) > 2) {
                json_t *pc = json_pack("{s:s,s:s,s:s,s:O}", "task", "posterior", "pde", p->name, "fidelity", "low", "history",
                                       history[pi]);
                char *mem = NULL;
                cr_assert_eq(pf_offline_answer(pc, 7, NULL, &mem), PF_OK, "%s", pf_errmsg());
                json_object_set_new(cx, "memory", json_string(mem));
                free(mem);
                json_decref(pc);
            }
        }
        if (strcmp(method, "no_knowledge"))
            json_object_set_new(cx, "knowledge",
                                json_pack("[{s:s,s:s,s:[s,s]},{s:s,s:s,s:[s]}]", "id", "k1", "title",
                                          "Fourier features against spectral bias", "tags", "representation", "fourier", "id",
                                          "k2", "title", "Residual-based adaptive sampling", "tags", "sampling"));
        char hash[32];
        snprintf(hash, sizeof hash, "req%04d", i);
        char *text = NULL;
        json_t *norm = answer_spec(cx, (uint64_t)(i % 5), hash, &text, why, sizeof why);
        count++;
        repaired += text && strstr(text, "did not fit the allowed space") != NULL;
        free(text);
        highs += high;
        if (!norm) {
            failures++;
            cr_log_error("proposal %d (%s): %s", i, p->name, why);
        } else if (!high) {
            /* becomes a parent and a history entry */
            int slot = i % POOL;
            json_decref(pool[pi][slot]);
            pool[pi][slot] = json_incref(norm);
            const char *st = STATUS[i % 8];
            ys[pi][slot] = !strcmp(st, "ok") ? pow(10, -5 + 4 * lcg(&s)) : NAN;
            json_array_append_new(history[pi], hist(round, slot, norm, ys[pi][slot], st));
        }
        json_decref(norm);
        json_decref(cx);
    }
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < POOL; k++) json_decref(pool[i][k]);
        json_decref(history[i]);
    }
    cr_log_info("offline: %d proposals (%d escape, %d high fidelity, %d without parents) in %.2f s CPU, %d invalid, %d partly "
                "rolled back by the repair",
                count, escapes, highs, no_parent, (double)(clock() - t0) / CLOCKS_PER_SEC, failures, repaired);
    cr_assert_eq(count, 1000);
    cr_assert_eq(failures, 0);
    cr_assert_lt(repaired, 50, "the operators should rarely need the section fallback");
    cr_assert_gt(escapes, 50);
    cr_assert_gt(highs, 10);
}

/* ------------------------------------------------------------ 2. determinism, diversity */

Test(offline, deterministic_and_diverse)
{
    char why[8192];
    json_t *cx = context("burgers_1d", "low");
    json_object_set_new(cx, "role", json_string("representation"));
    char *a, *b, *c;
    cr_assert_eq(pf_offline_answer(cx, 42, "h1", &a), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(pf_offline_answer(cx, 42, "h1", &b), PF_OK);
    cr_assert_str_eq(a, b, "same seed and request, same bytes");
    cr_assert_eq(pf_offline_answer(cx, 42, NULL, &c), PF_OK);
    char *d;
    cr_assert_eq(pf_offline_answer(cx, 42, NULL, &d), PF_OK);
    cr_assert_str_eq(c, d, "without a request hash the context decides");
    cr_assert(strstr(a, "```json"));
    free(a), free(b), free(c), free(d);

    /* different seeds: some differ across a batch of PDEs and roles */
    int differ = 0;
    for (int i = 0; i < 16; i++) {
        json_t *x = context(pf_pdes_at(i)->name, "low");
        json_object_set_new(x, "role", json_string(pf_offline_role_name(i % 8)));
        cr_assert_eq(pf_offline_answer(x, 1, "same", &a), PF_OK);
        cr_assert_eq(pf_offline_answer(x, 2, "same", &b), PF_OK);
        differ += strcmp(a, b) != 0;
        free(a), free(b);
        json_decref(x);
    }
    cr_log_info("offline: %d of 16 answers differ between seeds 1 and 2", differ);
    cr_assert_geq(differ, 8);

    /* eight roles on one PDE: at least 6 distinct specs (over several PDEs and seeds) */
    static const char *const P[] = {"burgers_1d", "poisson_5d", "navier_stokes_2d_classic", "heat_2d_multiscale"};
    for (int pi = 0; pi < 4; pi++)
        for (uint64_t seed = 0; seed < 3; seed++) {
            char hex[8][PF_SPEC_HASH_HEX];
            int distinct = 0;
            for (int r = 0; r < 8; r++) {
                json_t *x = context(P[pi], "low");
                json_object_set_new(x, "role", json_string(pf_offline_role_name(r)));
                char slot[32];
                snprintf(slot, sizeof slot, "gen00/role%d", r);
                json_t *n = answer_spec(x, seed, slot, NULL, why, sizeof why);
                cr_assert_not_null(n, "%s", why);
                spec_hash(n, hex[r]);
                int dup = 0;
                for (int q = 0; q < r; q++) dup |= !strcmp(hex[q], hex[r]);
                distinct += !dup;
                json_decref(n);
                json_decref(x);
            }
            cr_assert_geq(distinct, 6, "%s seed %d: %d distinct of 8", P[pi], (int)seed, distinct);
        }
    json_decref(cx);
}

static int count(const char *s, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(s, needle); p; p = strstr(p + 1, needle)) n++;
    return n;
}

Test(offline, rationale_and_self_name)
{
    json_t *cx = context("kuramoto_sivashinsky_1d", "low");
    json_object_set_new(cx, "role", json_string("representation"));
    char *t;
    cr_assert_eq(pf_offline_answer(cx, 3, "x", &t), PF_OK);
    const char *fence = strstr(t, "```json");
    cr_assert_not_null(fence);
    int lines = 0;
    for (const char *c = t; c < fence; c++) lines += *c == '\n';
    cr_assert(lines >= 2 && lines <= 8, "rationale of %d lines:\n%s", lines, t);
    cr_assert_null(strstr(fence + 7, "```json"), "exactly one json block");
    cr_assert(strstr(t, "eriodic"), "a periodic PDE's representation role says so:\n%s", t);
    cr_assert_eq(count(t, "LLM"), count(t, "(no LLM)"), "never calls itself an LLM:\n%s", t);
    free(t);
    /* posterior names itself as what it is */
    json_t *pc = json_pack("{s:s,s:s,s:s,s:[]}", "task", "posterior", "pde", "poisson_5d", "fidelity", "low", "history");
    cr_assert_eq(pf_offline_answer(pc, 0, NULL, &t), PF_OK);
    cr_assert(strstr(t, "offline rule-based proposer (no LLM)"), "%s", t);
    free(t);
    json_decref(pc);
    json_decref(cx);
}

/* Retrieved knowledge steers the roles: an L-BFGS entry makes the
 * optimization role choose an L-BFGS tail more often, and says so. */
Test(offline, knowledge_steers_roles)
{
    char why[8192];
    int with = 0, without = 0, cited = 0;
    for (uint64_t seed = 0; seed < 40; seed++)
        for (int k = 0; k < 2; k++) {
            json_t *cx = context("poisson_2d_classic", "low");
            json_object_set_new(cx, "role", json_string("optimization"));
            if (k)
                json_object_set_new(cx, "knowledge", json_pack("[{s:s,s:s,s:[s]}]", "id", "k7", "title",
                                                               "L-BFGS after Adam sharpens PINN minima", "tags", "quasi-newton"));
            char *text;
            json_t *n = answer_spec(cx, seed, "gen00/role5", &text, why, sizeof why);
            cr_assert_not_null(n, "%s", why);
            int lb = has_mech(n, "lbfgs");
            if (k) with += lb, cited += strstr(text, "retrieved knowledge") != NULL;
            else without += lb;
            free(text);
            json_decref(n);
            json_decref(cx);
        }
    cr_log_info("offline: L-BFGS tail in %d of 40 optimization roles with the knowledge entry, %d without", with, without);
    cr_assert_gt(with, without);
    cr_assert_eq(cited, with, "every knowledge-driven L-BFGS tail cites the entry");
}

/* ------------------------------------------------------------ 3. physics-guided reacts */

/* A parent (PINNacle's default) with evidence: the pde term at 1e-4, the
 * term `hot` at `level`, every other constraint at 1e-6, residual spread. */
static json_t *physics_context(const pf_pde *p, const char *hot, double level)
{
    json_t *ex = pf_spec_example(p, PF_FIDELITY_LOW);
    json_t *terms = json_array(), *cons = json_object();
    json_array_append_new(terms, json_pack("{s:s,s:s,s:f}", "name", "pde", "mode", "soft", "loss_final", 1e-4));
    for (int i = 0; i < p->ncon; i++) {
        double l = !strcmp(p->con[i].name, hot) ? level : 1e-6;
        json_array_append_new(terms, json_pack("{s:s,s:s,s:f}", "name", p->con[i].name, "mode", "soft", "loss_final", l));
        json_object_set_new(cons, p->con[i].name, json_real(l));
    }
    json_t *ev = json_pack("{s:s,s:o,s:o,s:{s:f,s:f,s:f},s:[{s:f}],s:f,s:I}", "status", "ok", "terms", terms,
                           "constraint_errors", cons, "residual", "mean", 1e-2, "p95", 2e-2, "max", 5e-2, "hotspots",
                           "share", 0.02, "loss_reduction", 1e3, "stagnation_steps", (json_int_t)0);
    json_t *cx = context(p->name, "low");
    json_object_set_new(cx, "strategy", json_string("physics_guided"));
    json_object_set_new(cx, "generation", json_integer(2));
    json_object_set_new(cx, "parents", json_pack("[o]", parent(ex, 1e-3, "ok", ev)));
    json_decref(ex);
    return cx;
}

static int handles_term(const pf_pde *p, const json_t *norm, const char *term, double old_weight)
{
    const json_t *c = json_object_get(norm, "constraints");
    if (!strcmp(json_string_value(json_object_get(c, "mode")), "hard")) {
        const char *t = json_string_value(json_object_get(c, "transform"));
        for (int h = 0; h < p->nhard; h++)
            if (!strcmp(t, p->hard[h].name) && pf_hard_satisfies(&p->hard[h], term)) return 1;
    }
    const json_t *l = json_object_get(norm, "loss");
    if (strcmp(json_string_value(json_object_get(json_object_get(l, "weighting"), "method")), "fixed")) return 1;
    const json_t *w = json_object_get(json_object_get(l, "weights"), term);
    return w && json_number_value(w) > old_weight;
}

Test(offline, physics_guided_reacts_to_constraint_errors)
{
    char why[8192];
    static const struct {
        const char *pde, *term;
    } cases[] = {{"poisson_5d", "bc"},        {"burgers_1d", "ic"},   {"heat_2d_complex_geometry", "robin_r1"},
                 {"wave_1d", "ic_rate"},      {"navier_stokes_2d_classic", "lid_u"}, {"kovasznay_flow_2d", NULL}};
    int hard = 0, weight = 0, total = 0;
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        const pf_pde *p = pde(cases[c].pde);
        const char *term = cases[c].term ? cases[c].term : p->con[0].name;
        for (uint64_t seed = 0; seed < 8; seed++) {
            json_t *hi = physics_context(p, term, 1e-1), *lo = physics_context(p, term, 1e-6);
            json_t *nh = answer_spec(hi, seed, "slot", NULL, why, sizeof why);
            cr_assert_not_null(nh, "%s", why);
            json_t *nl = answer_spec(lo, seed, "slot", NULL, why, sizeof why);
            cr_assert_not_null(nl, "%s", why);
            cr_assert(handles_term(p, nh, term, 1.0), "%s seed %d: a %s loss of 1e-1 vs pde 1e-4 was not addressed",
                      p->name, (int)seed, term);
            const json_t *wl = json_object_get(json_object_get(json_object_get(nl, "loss"), "weights"), term);
            cr_assert(!wl || json_number_value(wl) <= 1.0, "%s seed %d: %s weight raised although its error is 1e-6",
                      p->name, (int)seed, term);
            cr_assert_str_eq(json_string_value(json_object_get(json_object_get(json_object_get(nl, "loss"), "weighting"), "method")),
                             "fixed");
            hard += !strcmp(json_string_value(json_object_get(json_object_get(nh, "constraints"), "mode")), "hard");
            const json_t *wh = json_object_get(json_object_get(json_object_get(nh, "loss"), "weights"), term);
            weight += wh && json_number_value(wh) > 1.0;
            total++;
            json_decref(nh), json_decref(nl), json_decref(hi), json_decref(lo);
        }
    }
    cr_log_info("offline: physics-guided on high constraint error: %d hard, %d weight raised, of %d", hard, weight, total);
    cr_assert_gt(hard, 0);
    cr_assert_gt(weight, 0);
}

/* Concentrated hotspots switch on residual-driven sampling. */
Test(offline, physics_guided_reacts_to_hotspots)
{
    char why[8192];
    const pf_pde *p = pde("allen_cahn_1d");
    for (uint64_t seed = 0; seed < 6; seed++) {
        json_t *cx = physics_context(p, "ic", 1e-6);
        json_t *ev = json_object_get(json_array_get(json_object_get(cx, "parents"), 0), "evidence");
        json_object_set_new(ev, "hotspots", json_pack("[{s:f},{s:f}]", "share", 0.4, "share", 0.1));
        json_t *n = answer_spec(cx, seed, "s", NULL, why, sizeof why);
        cr_assert_not_null(n, "%s", why);
        const json_t *s = json_object_get(n, "sampling");
        const char *m = json_string_value(json_object_get(json_object_get(s, "adaptive"), "method"));
        cr_assert(strcmp(m, "none") || json_integer_value(json_object_get(s, "interior")) > 8192, "seed %d: %s", (int)seed,
                  json_dumps(s, 0));
        json_decref(n);
        json_decref(cx);
    }
}

/* ------------------------------------------------------------ 4. escape */

Test(offline, escape_leaves_every_parent, .timeout = 60)
{
    char why[8192];
    static const char *const P[] = {"poisson_5d", "burgers_1d", "darcy_flow_2d", "heat_5d", "kuramoto_sivashinsky_1d",
                                    "navier_stokes_2d_long_time"};
    int checked = 0;
    for (int pi = 0; pi < 6; pi++) {
        const pf_pde *p = pde(P[pi]);
        /* parents: three role proposals; history: one of them nan with lbfgs */
        json_t *par[3], *history = json_array();
        for (int r = 0; r < 3; r++) {
            json_t *x = context(p->name, "low");
            json_object_set_new(x, "role", json_string(pf_offline_role_name(r)));
            par[r] = answer_spec(x, 5, "p", NULL, why, sizeof why);
            cr_assert_not_null(par[r], "%s", why);
            json_array_append_new(history, hist(0, r, par[r], 1e-3 * (r + 1), "ok"));
            json_decref(x);
        }
        /* a failed L-BFGS candidate in the history */
        json_t *lb = pf_spec_example(p, PF_FIDELITY_LOW);
        json_object_set_new(json_object_get(lb, "optimization"), "stages",
                            json_pack("[{s:s,s:i},{s:s,s:i}]", "optimizer", "adam", "steps", 800, "optimizer", "lbfgs", "steps",
                                      200));
        json_array_append_new(history, hist(0, 3, lb, NAN, "nan"));
        json_t *pc = json_pack("{s:s,s:s,s:s,s:O}", "task", "posterior", "pde", p->name, "fidelity", "low", "history", history);
        char *mem;
        cr_assert_eq(pf_offline_answer(pc, 0, NULL, &mem), PF_OK);
        for (int st = 0; st < 5; st++)
            for (uint64_t seed = 0; seed < 4; seed++) {
                json_t *x = context(p->name, "low");
                json_object_set_new(x, "strategy", json_string(pf_offline_strategy_name(st)));
                json_object_set_new(x, "escape", json_true());
                json_object_set_new(x, "memory", json_string(mem));
                json_object_set_new(x, "parents", json_pack("[o,o,o]", parent(par[0], 1e-3, "ok", NULL),
                                                            parent(par[1], 2e-3, "ok", NULL), parent(par[2], 3e-3, "ok", NULL)));
                json_t *n = answer_spec(x, seed, "esc", NULL, why, sizeof why);
                cr_assert_not_null(n, "%s", why);
                for (int r = 0; r < 3; r++) {
                    int d = pf_spec_sections_differing(n, par[r], PF_SPEC_SECTIONS);
                    cr_assert_geq(d, 2, "%s %s seed %d: differs from parent %d in %d sections", p->name,
                                  pf_offline_strategy_name(st), (int)seed, r + 1, d);
                }
                cr_assert(!has_mech(n, "lbfgs"), "%s %s: an escape proposal repeats the failed lbfgs", p->name,
                          pf_offline_strategy_name(st));
                checked++;
                json_decref(n);
                json_decref(x);
            }
        free(mem);
        json_decref(pc);
        json_decref(lb);
        json_decref(history);
        for (int r = 0; r < 3; r++) json_decref(par[r]);
    }
    cr_assert_eq(checked, 120);
}

/* ------------------------------------------------------------ 5. posterior */

Test(offline, posterior_lists_failures)
{
    const pf_pde *p = pde("poisson_5d");
    json_t *a = pf_spec_example(p, PF_FIDELITY_LOW), *b = json_deep_copy(a), *c = json_deep_copy(a);
    json_object_set_new(json_object_get(b, "optimization"), "stages",
                        json_pack("[{s:s,s:i},{s:s,s:i}]", "optimizer", "adam", "steps", 700, "optimizer", "lbfgs", "steps", 300));
    json_object_set_new(json_object_get(c, "sampling"), "adaptive", json_pack("{s:s}", "method", "rad"));
    json_t *pc = json_pack("{s:s,s:s,s:s,s:[o,o,o]}", "task", "posterior", "pde", p->name, "fidelity", "low", "history",
                           hist(0, 0, a, 2e-3, "ok"), hist(0, 1, b, NAN, "nan"), hist(0, 2, c, 5e-4, "ok"));
    char *t1, *t2;
    cr_assert_eq(pf_offline_answer(pc, 1, NULL, &t1), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(pf_offline_answer(pc, 2, "other", &t2), PF_OK);
    cr_assert_str_eq(t1, t2, "the posterior is deterministic");
    json_t *m = fenced(t1);
    cr_assert_not_null(m, "%s", t1);
    cr_assert_float_eq(json_number_value(json_object_get(m, "best_y")), 5e-4, 1e-12);
    cr_assert_eq(json_integer_value(json_object_get(m, "candidates")), 3);
    const json_t *f = json_object_get(m, "failures");
    cr_assert_eq(json_array_size(f), 1, "%s", t1);
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(f, 0), "status")), "nan");
    cr_assert(has_mech(b, "lbfgs"));
    const json_t *fm = json_object_get(json_array_get(f, 0), "mechanisms");
    cr_assert_str_eq(json_string_value(json_array_get(fm, 0)), "lbfgs");
    const json_t *lb = json_object_get(json_object_get(m, "mechanisms"), "lbfgs");
    cr_assert_eq(json_integer_value(json_object_get(lb, "tried")), 1);
    cr_assert_eq(json_integer_value(json_object_get(lb, "ok")), 0);
    const json_t *rad = json_object_get(json_object_get(m, "mechanisms"), "rad");
    cr_assert_float_eq(json_number_value(json_object_get(rad, "best_y")), 5e-4, 1e-12);
    cr_assert_float_eq(json_number_value(json_object_get(rad, "median_y")), 5e-4, 1e-12);
    cr_assert(strstr(t1, "lbfgs"), "the prose names the failed mechanism:\n%s", t1);
    json_decref(m);
    free(t1), free(t2);
    json_decref(pc);
    json_decref(a), json_decref(b), json_decref(c);
}

Test(offline, mechanisms_of_specs)
{
    const pf_pde *p = pde("burgers_2d");
    json_t *ex = pf_spec_example(p, PF_FIDELITY_LOW);
    json_t *m = pf_offline_mechanisms(ex);
    cr_assert_eq(json_array_size(m), 0, "the default uses no mechanism");
    json_decref(m);
    json_object_set_new(json_object_get(ex, "architecture"), "type", json_string("modified_mlp"));
    json_object_set_new(json_object_get(ex, "architecture"), "activation", json_string("sin"));
    json_object_set_new(json_object_get(json_object_get(ex, "representation"), "periodic"), "inputs", json_pack("[s]", "x"));
    json_object_set_new(json_object_get(ex, "loss"), "causal", json_true());
    json_t *norm;
    pf_spec_report rep;
    cr_assert_eq(pf_spec_check(ex, p, PF_FIDELITY_LOW, &norm, &rep), PF_OK, "%s", rep.reason[0]);
    json_decref(ex);
    ex = norm;
    cr_assert(has_mech(ex, "arch:modified_mlp") && has_mech(ex, "act:sin") && has_mech(ex, "periodic") &&
              has_mech(ex, "causal"));
    cr_assert(!has_mech(ex, "fourier") && !has_mech(ex, "lbfgs"));
    json_decref(ex);
    /* PINNsAgent's options: global adaptation is its own mechanism, the
     * new init and activation are named, sgd and multiadam stages too */
    ex = pf_spec_example(p, PF_FIDELITY_LOW);
    json_t *a = json_object_get(ex, "architecture");
    json_object_set_new(a, "adaptive", json_string("global"));
    json_object_set_new(a, "init", json_string("he_normal"));
    json_object_set_new(a, "activation", json_string("selu"));
    json_object_set_new(json_object_get(ex, "optimization"), "stages",
                        json_pack("[{s:s,s:i},{s:s,s:i}]", "optimizer", "sgd", "steps", 300, "optimizer", "multiadam", "steps", 700));
    cr_assert_eq(pf_spec_check(ex, p, PF_FIDELITY_LOW, &norm, &rep), PF_OK, "%s", rep.reason[0]);
    json_decref(ex);
    cr_assert(has_mech(norm, "adaptive_act:global") && !has_mech(norm, "adaptive_act"));
    cr_assert(has_mech(norm, "init:he_normal") && has_mech(norm, "act:selu"));
    cr_assert(has_mech(norm, "sgd") && has_mech(norm, "multiadam") && !has_mech(norm, "adamw"));
    json_decref(norm);
}

/* The capacity role proposes the ReLU family with He initialization and
 * the global adaptive slope on some PDEs and seeds; every answer is valid
 * and says so; relu itself only where the residual is first order (its
 * second derivative vanishes), never with rwf (it needs glorot_normal). */
Test(offline, capacity_role_proposes_he_init_and_global_adaptation)
{
    char why[8192];
    int n = pf_pdes_count(), he = 0, global = 0;
    for (int pi = 0; pi < n; pi++)
        for (uint64_t seed = 0; seed < 4; seed++) {
            const pf_pde *p = pf_pdes_at(pi);
            json_t *cx = context(p->name, "low");
            json_object_set_new(cx, "role", json_string("capacity_topology"));
            char *text = NULL;
            json_t *norm = answer_spec(cx, seed, "he", &text, why, sizeof why);
            cr_assert_not_null(norm, "%s seed %d: %s", p->name, (int)seed, why);
            const json_t *a = json_object_get(norm, "architecture");
            if (has_mech(norm, "init:he_normal")) {
                he++;
                cr_assert_not_null(strstr(text, "He (Kaiming)"), "%s", text);
                cr_assert(!json_is_true(json_object_get(a, "rwf")));
                int order = 0;
                for (int i = 0; i < p->d_in; i++) order = p->orders[i] > order ? p->orders[i] : order;
                if (order > 1) cr_assert(!has_mech(norm, "act:relu"), "%s: relu for a residual of order %d", p->name, order);
            }
            if (has_mech(norm, "adaptive_act:global")) {
                global++;
                cr_assert_not_null(strstr(text, "global adaptive"), "%s", text);
            }
            free(text);
            json_decref(norm);
            json_decref(cx);
        }
    cr_log_info("capacity role: he init in %d, global adaptation in %d of %d proposals", he, global, 4 * n);
    cr_assert_gt(he, 0, "the capacity role never proposed He initialization");
    cr_assert_gt(global, 0, "the capacity role never proposed global adaptation");
}

/* MultiAdam comes from the optimization and residual-loss roles, only where
 * a soft constraint term is left (else there is one group), and the stage
 * it writes has MultiAdam's keys only. */
Test(offline, roles_propose_multiadam_on_multi_term_problems)
{
    char why[8192];
    int n = pf_pdes_count(), with = 0;
    const char *roles[] = {"optimization", "residual_loss"};
    for (int pi = 0; pi < n; pi++)
        for (int r = 0; r < 2; r++)
            for (uint64_t seed = 0; seed < 3; seed++) {
                const pf_pde *p = pf_pdes_at(pi);
                json_t *cx = context(p->name, "low");
                json_object_set_new(cx, "role", json_string(roles[r]));
                char *text = NULL;
                json_t *norm = answer_spec(cx, seed, "ma", &text, why, sizeof why);
                cr_assert_not_null(norm, "%s seed %d: %s", p->name, (int)seed, why);
                if (has_mech(norm, "multiadam")) {
                    with++;
                    cr_assert_not_null(strstr(text, "MultiAdam"), "%s", text);
                    cr_assert_gt(json_object_size(json_object_get(json_object_get(norm, "loss"), "weights")), 1,
                                 "%s: multiadam with one loss term", p->name);
                    size_t i;
                    json_t *st;
                    json_array_foreach(json_object_get(json_object_get(norm, "optimization"), "stages"), i, st)
                        if (!strcmp(json_string_value(json_object_get(st, "optimizer")), "multiadam"))
                            cr_assert(!json_object_get(st, "weight_decay") && !json_object_get(st, "grad_clip"));
                }
                free(text);
                json_decref(norm);
                json_decref(cx);
            }
    cr_log_info("multiadam in %d of %d optimization and residual-loss proposals", with, 6 * n);
    cr_assert_gt(with, 0, "no role proposed multiadam");
}

/* An escape removes failed mechanisms, the new ones included: a parent with
 * global adaptation, he init, selu and a multiadam stage that went nan. */
Test(offline, escape_removes_failed_new_mechanisms)
{
    char why[8192];
    const pf_pde *p = pde("burgers_1d");
    json_t *par = pf_spec_example(p, PF_FIDELITY_LOW), *norm;
    pf_spec_report rep;
    json_t *a = json_object_get(par, "architecture");
    json_object_set_new(a, "adaptive", json_string("global"));
    json_object_set_new(a, "init", json_string("he_normal"));
    json_object_set_new(a, "activation", json_string("selu"));
    json_object_set_new(json_object_get(par, "optimization"), "stages",
                        json_pack("[{s:s,s:i}]", "optimizer", "multiadam", "steps", 1000));
    cr_assert_eq(pf_spec_check(par, p, PF_FIDELITY_LOW, &norm, &rep), PF_OK, "%s", rep.reason[0]);
    json_decref(par);
    json_t *pc = json_pack("{s:s,s:s,s:s,s:[o]}", "task", "posterior", "pde", p->name, "fidelity", "low", "history",
                           hist(0, 0, norm, NAN, "nan"));
    char *mem;
    cr_assert_eq(pf_offline_answer(pc, 0, NULL, &mem), PF_OK);
    const char *failed[] = {"adaptive_act:global", "init:he_normal", "act:selu", "multiadam"};
    for (int st = 0; st < 5; st++)
        for (uint64_t seed = 0; seed < 3; seed++) {
            json_t *x = context(p->name, "low");
            json_object_set_new(x, "strategy", json_string(pf_offline_strategy_name(st)));
            json_object_set_new(x, "escape", json_true());
            json_object_set_new(x, "memory", json_string(mem));
            json_object_set_new(x, "parents", json_pack("[o]", parent(norm, NAN, "nan", NULL)));
            json_t *n = answer_spec(x, seed, "esc", NULL, why, sizeof why);
            cr_assert_not_null(n, "%s", why);
            for (int k = 0; k < 4; k++)
                cr_assert(!has_mech(n, failed[k]), "%s seed %d: the escape kept the failed %s",
                          pf_offline_strategy_name(st), (int)seed, failed[k]);
            json_decref(n);
            json_decref(x);
        }
    free(mem);
    json_decref(pc);
    json_decref(norm);
}

/* The region-optimization operator: the optimization role proposes it on
 * some PDEs and seeds, every such answer is valid, says so in its
 * rationale, and the mechanism is recognised (and removable). */
Test(offline, optimization_role_proposes_region_optimization)
{
    char why[8192];
    int n = pf_pdes_count(), with = 0;
    for (int pi = 0; pi < n; pi++)
        for (uint64_t seed = 0; seed < 4; seed++) {
            const pf_pde *p = pf_pdes_at(pi);
            json_t *cx = context(p->name, "low");
            json_object_set_new(cx, "role", json_string("optimization"));
            json_object_set_new(cx, "generation", json_integer(0));
            char *text = NULL;
            json_t *norm = answer_spec(cx, seed, "ro", &text, why, sizeof why);
            cr_assert_not_null(norm, "%s seed %d: %s", p->name, (int)seed, why);
            if (has_mech(norm, "region_optimization")) {
                with++;
                cr_assert_not_null(strstr(text, "region optimization"), "%s", text);
            }
            free(text);
            json_decref(norm);
            json_decref(cx);
        }
    cr_log_info("region optimization in %d of %d optimization-role proposals", with, 4 * n);
    cr_assert_gt(with, 0, "the optimization role never turned region optimization on");
}

/* ------------------------------------------------------------ 6. architecture-guided */

Test(offline, architecture_guided_stabilizes_divergence)
{
    char why[8192];
    static const char *const P[] = {"poisson_5d", "burgers_1d", "gray_scott_2d"};
    for (int pi = 0; pi < 3; pi++)
        for (uint64_t seed = 0; seed < 5; seed++) {
            const pf_pde *p = pde(P[pi]);
            json_t *ex = pf_spec_example(p, PF_FIDELITY_LOW);
            json_t *ev = json_pack("{s:s,s:f}", "status", "diverged", "loss_reduction", 0.01);
            json_t *cx = context(p->name, "low");
            json_object_set_new(cx, "strategy", json_string("architecture_guided"));
            json_object_set_new(cx, "parents", json_pack("[o]", parent(ex, NAN, "diverged", ev)));
            json_t *n = answer_spec(cx, seed, "ag", NULL, why, sizeof why);
            cr_assert_not_null(n, "%s", why);
            const json_t *st = json_array_get(json_object_get(json_object_get(n, "optimization"), "stages"), 0);
            double lr = json_number_value(json_object_get(st, "lr")), clip = json_number_value(json_object_get(st, "grad_clip"));
            cr_assert(lr < 1e-3 || clip > 0, "%s seed %d: lr %g, clip %g after divergence", p->name, (int)seed, lr, clip);
            json_decref(n);
            json_decref(cx);
            json_decref(ex);
        }
}

/* A parent stopped by a run's time budget (evidence time_limited) was too
 * large for the time: architecture-guided narrows it, and says so. */
Test(offline, architecture_guided_narrows_a_time_limited_parent)
{
    char why[8192];
    const pf_pde *p = pde("burgers_1d");
    json_t *ex = pf_spec_example(p, PF_FIDELITY_LOW);
    json_t *arch = json_object_get(ex, "architecture");
    json_object_set_new(arch, "width", json_integer(96));
    json_t *ev = json_pack("{s:s,s:b,s:i,s:i,s:f}", "status", "ok", "time_limited", 1, "stopped_at_step", 37, "budget",
                           1000, "loss_reduction", 1e6);
    json_t *cx = context(p->name, "low");
    json_object_set_new(cx, "strategy", json_string("architecture_guided"));
    json_object_set_new(cx, "parents", json_pack("[o]", parent(ex, 1e-3, "ok", ev)));
    char *text = NULL;
    json_t *n = answer_spec(cx, 0, "tl", &text, why, sizeof why);
    cr_assert_not_null(n, "%s", why);
    long w = (long)json_integer_value(json_object_get(json_object_get(n, "architecture"), "width"));
    cr_assert_leq(w, 64, "width %ld after a time-limited parent of width 96", w);
    cr_assert_not_null(strstr(text, "stopped by the time budget at step 37 of 1000"), "%s", text);
    free(text);
    json_decref(n);
    json_decref(cx);
    json_decref(ex);
}

/* Without feedback the operators do not read evidence: a context whose
 * parents carry evidence answers the same as one whose parents do not. */
Test(offline, no_feedback_ignores_evidence)
{
    const pf_pde *p = pde("burgers_1d");
    for (int st = 0; st < 5; st++) {
        json_t *a = physics_context(p, "ic", 1e-1), *b = physics_context(p, "ic", 1e-1);
        json_object_set_new(a, "strategy", json_string(pf_offline_strategy_name(st)));
        json_object_set_new(b, "strategy", json_string(pf_offline_strategy_name(st)));
        json_object_set_new(a, "method", json_string("no_feedback"));
        json_object_set_new(b, "method", json_string("no_feedback"));
        json_t *pb = json_array_get(json_object_get(b, "parents"), 0);
        json_object_del(pb, "evidence");
        json_object_del(pb, "y");
        json_object_del(pb, "status");
        char *ta, *tb;
        cr_assert_eq(pf_offline_answer(a, 9, "same", &ta), PF_OK);
        cr_assert_eq(pf_offline_answer(b, 9, "same", &tb), PF_OK);
        cr_assert_str_eq(ta, tb, "%s read hidden evidence", pf_offline_strategy_name(st));
        free(ta), free(tb);
        json_decref(a), json_decref(b);
    }
}

/* Parents beyond the limits (too many parameters and points, steps of
 * another fidelity) still give valid proposals: the repair fixes them. */
Test(offline, repairs_parents_beyond_the_limits)
{
    char why[8192];
    const pf_pde *p = pde("heat_2d_multiscale");
    json_t *ex = pf_spec_example(p, PF_FIDELITY_LOW);
    json_object_set_new(json_object_get(ex, "architecture"), "width", json_integer(1500));
    json_object_set_new(json_object_get(ex, "architecture"), "depth", json_integer(8));
    json_object_set_new(json_object_get(ex, "sampling"), "interior", json_integer(65000));
    json_object_set_new(json_object_get(json_object_get(ex, "representation"), "fourier"), "features", json_integer(4096));
    for (int st = 0; st < 5; st++)
        for (int f = 0; f < 2; f++) {
            json_t *cx = context(p->name, f ? "high" : "low");
            json_object_set_new(cx, "strategy", json_string(pf_offline_strategy_name(st)));
            json_object_set_new(cx, "parents", json_pack("[o]", parent(ex, 1e-2, "ok", NULL)));
            json_t *n = answer_spec(cx, (uint64_t)st, "r", NULL, why, sizeof why);
            cr_assert_not_null(n, "%s", why);
            json_decref(n);
            json_decref(cx);
        }
    json_decref(ex);
}

/* ------------------------------------------------------------ 7. errors, provider */

static void expect_invalid(json_t *cx, const char *needle)
{
    char *t = (char *)"untouched";
    cr_assert_eq(pf_offline_answer(cx, 0, NULL, &t), PF_ERR_INVALID, "expected an error mentioning '%s'", needle);
    cr_assert_null(t);
    cr_assert(strstr(pf_errmsg(), needle), "message '%s' lacks '%s'", pf_errmsg(), needle);
    json_decref(cx);
}

Test(offline, bad_contexts)
{
    char *t;
    cr_assert_eq(pf_offline_answer(NULL, 0, NULL, &t), PF_ERR_INVALID);
    cr_assert(strstr(pf_errmsg(), "context"), "%s", pf_errmsg());
    json_t *cx = context("burgers_1d", "low");
    json_object_set_new(cx, "role", json_string("wizard"));
    expect_invalid(cx, "unknown role");
    cx = context("burgers_1d", "low");
    json_object_set_new(cx, "strategy", json_string("mutate"));
    expect_invalid(cx, "unknown strategy");
    expect_invalid(context("burgers_1d", "low"), "role");
    cx = context("no_such_pde", "low");
    json_object_set_new(cx, "role", json_string("representation"));
    expect_invalid(cx, "no_such_pde");
    expect_invalid(json_pack("{s:s,s:s}", "task", "propose", "fidelity", "low"), "pde");
    expect_invalid(json_pack("{s:s,s:s,s:s}", "task", "dance", "pde", "burgers_1d", "fidelity", "low"), "unknown task");
    cx = context("burgers_1d", "medium");
    json_object_set_new(cx, "role", json_string("representation"));
    expect_invalid(cx, "fidelity");
    cr_assert_eq(pf_offline_role_index("optimization"), 5);
    cr_assert_eq(pf_offline_strategy_index("novelty"), 4);
    cr_assert_eq(pf_offline_role_index("nope"), -1);
    cr_assert_null(pf_offline_role_name(8));
    cr_assert_null(pf_offline_strategy_name(5));
}

Test(offline, provider_complete)
{
    pf_llm_options o;
    pf_llm_options_default(&o);
    o.seed = 11;
    const pf_llm_vtable *vt;
    void *self;
    cr_assert_eq(pf_llm_offline_alloc(&o, &vt, &self), PF_OK, "%s", pf_errmsg());
    json_t *cx = context("poisson_5d", "low");
    json_object_set_new(cx, "role", json_string("capacity_topology"));
    pf_llm_message msg[2] = {{"system", "You design PINNs."}, {"user", "Propose one spec for poisson_5d."}};
    pf_llm_request q = {.model = "offline-rules", .nmsg = 2, .msg = msg, .temperature = 0.47, .max_tokens = 4096,
                        .slot = "gen00/role6", .context = cx};
    pf_llm_response r;
    cr_assert_eq(vt->complete(self, &q, &r), PF_OK, "%s", pf_errmsg());
    cr_assert_str_eq(r.provider, "offline");
    cr_assert_eq(r.prompt_tokens, 8);
    cr_assert_gt(r.completion_tokens, 20);
    char hash[PF_SHA256_HEX], *direct;
    cr_assert_eq(pf_llm_request_hash(&q, hash), PF_OK);
    cr_assert_eq(pf_offline_answer(cx, 11, hash, &direct), PF_OK);
    cr_assert_str_eq(r.text, direct, "the provider answers as pf_offline_answer with the request hash");
    free(direct);
    pf_llm_response_release(&r);
    q.context = NULL;
    cr_assert_eq(vt->complete(self, &q, &r), PF_ERR_INVALID);
    cr_assert(strstr(pf_errmsg(), "context"), "%s", pf_errmsg());
    vt->free(self);
    json_decref(cx);
}
