/*
 * test_baseline.c — the baseline methods (search/baseline.h): vanilla is
 * PINNacle's default trainer with Hammersley points, ropinn adds RoPINN's
 * region optimization and nothing else, both fit every PDE and budget, a
 * baseline run has five slots, and pf_final_build_baseline selects the
 * lowest ok MSE of the five and lists them all.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "geom/pde.h"
#include "io/msgpack_json.h"
#include "registry.h"
#include "search/artifact.h"
#include "search/baseline.h"
#include "search/final.h"

static const pf_pde *pde(const char *name)
{
    const pf_pde *p;
    cr_assert_eq(pf_pdes_lookup(name, &p), PF_OK, "%s", name);
    return p;
}

static const pf_budget *quick(void)
{
    const pf_budget *b;
    cr_assert_eq(pf_budget_lookup("quick", &b), PF_OK);
    return b;
}

static void configs(pf_method m, const pf_pde *p, const pf_budget *b, json_t **spec, pf_model_config *mc,
                    pf_train_config *tc)
{
    cr_assert_eq(pf_baseline_spec(m, p, b, spec), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(pf_spec_instantiate(*spec, p, mc, tc), PF_OK, "%s", pf_errmsg());
}

/* The paper profile: PINNacle's default trainer, 20,000 steps (B.8). */
Test(baseline, vanilla_is_pinnacles_default_trainer_with_hammersley_points)
{
    const char *names[] = {"burgers_1d", "poisson_2d_classic"}; /* time-dependent, steady */
    for (int i = 0; i < 2; i++) {
        const pf_pde *p = pde(names[i]);
        json_t *s;
        pf_model_config mc;
        pf_train_config tc;
        configs(PF_METHOD_VANILLA, p, NULL, &s, &mc, &tc);
        cr_assert_eq(mc.depth, 5);
        cr_assert_eq(mc.width, 100);
        cr_assert_eq(mc.activation, PF_UNARY_TANH);
        cr_assert_eq(mc.init, PF_WEIGHT_INIT_GLOROT_NORMAL);
        cr_assert_eq(tc.sampling.interior, 8192);
        cr_assert_eq(tc.sampling.boundary, 2048);
        cr_assert_eq(tc.sampling.initial, p->time_input >= 0 ? 2048 : 0, "%s", p->name);
        cr_assert_eq(tc.sampling.method, PF_SAMPLE_HAMMERSLEY);
        cr_assert_eq(tc.sampling.resample_every, 0);
        cr_assert_eq(tc.sampling.adaptive.method, PF_ADAPTIVE_NONE);
        cr_assert_eq(tc.nstages, 1);
        cr_assert_eq(tc.stages[0].optimizer, PF_OPT_ADAM);
        cr_assert_eq(tc.stages[0].steps, 20000);
        cr_assert_eq(tc.stages[0].schedule.kind, PF_SCHEDULE_CONSTANT);
        cr_assert_eq(tc.stages[0].schedule.lr, 1e-3);
        cr_assert_eq(tc.loss.nterms, 1 + p->ncon);
        for (int t = 0; t < tc.loss.nterms; t++) cr_assert_eq(tc.loss.weights[t], 1.0);
        cr_assert_not(tc.region.enabled);
        cr_assert_null(json_object_get(json_object_get(s, "training"), "region_optimization"));
        json_decref(s);
    }
}

/* ropinn = vanilla + training.region_optimization {1e-4, 10, 0.01}. */
Test(baseline, ropinn_is_vanilla_plus_region_optimization)
{
    const pf_budget *budgets[] = {NULL, quick()};
    for (int i = 0; i < 2; i++) {
        const pf_pde *p = pde("burgers_1d");
        json_t *v, *r;
        pf_model_config mc;
        pf_train_config tc;
        cr_assert_eq(pf_baseline_spec(PF_METHOD_VANILLA, p, budgets[i], &v), PF_OK);
        configs(PF_METHOD_ROPINN, p, budgets[i], &r, &mc, &tc);
        cr_assert(tc.region.enabled);
        cr_assert_eq(tc.region.r0, 1e-4);
        cr_assert_eq(tc.region.history, 10);
        cr_assert_eq(tc.region.max_radius, 0.01);
        json_object_del(json_object_get(r, "training"), "region_optimization");
        char *a = pf_spec_canonical(v), *b = pf_spec_canonical(r);
        cr_assert_str_eq(a, b, "ropinn differs from vanilla elsewhere than region_optimization");
        free(a), free(b);
        json_decref(v), json_decref(r);
    }
}

/* PINNsFormer: vanilla's trainer with the released transformer (453,561
 * parameters on 2 inputs), its three widths shrunk by one factor to fit the
 * quick budget. */
Test(baseline, pinnsformer_is_vanilla_with_the_released_transformer)
{
    const pf_budget *budgets[] = {NULL, quick()};
    for (int i = 0; i < 2; i++) {
        const pf_pde *p = pde("burgers_1d");
        json_t *v, *s;
        pf_model_config mc;
        pf_train_config tc;
        cr_assert_eq(pf_baseline_spec(PF_METHOD_VANILLA, p, budgets[i], &v), PF_OK);
        configs(PF_METHOD_PINNSFORMER, p, budgets[i], &s, &mc, &tc);
        cr_assert_eq(mc.arch, PF_ARCH_PINNSFORMER);
        cr_assert_eq(mc.depth, 1);
        cr_assert_eq(mc.seq_len, 5);
        cr_assert_eq(mc.seq_dt, 1e-4);
        cr_assert_eq(mc.heads, 2);
        if (i == 0) {
            cr_assert_eq(mc.width, 32);
            cr_assert_eq(mc.d_ff, 256);
            cr_assert_eq(mc.d_hidden, 512);
            cr_assert_eq(pf_model_config_nparams(&mc), 453561);
        } else {
            size_t np = pf_model_config_nparams(&mc);
            cr_assert(np <= 5000 && np > 4000, "quick: %zu parameters", np);
            double r = mc.d_hidden / 512.0;
            cr_assert(fabs(mc.d_ff / 256.0 - r) < 0.01, "one factor: d_ff %d, d_hidden %d", mc.d_ff, mc.d_hidden);
            cr_assert(mc.width % 2 == 0 && fabs(mc.width - 32 * r) <= 1, "width %d, factor %g", mc.width, r);
        }
        json_object_del(v, "architecture");
        json_object_del(s, "architecture");
        char *a = pf_spec_canonical(v), *b = pf_spec_canonical(s);
        cr_assert_str_eq(a, b, "pinnsformer differs from vanilla elsewhere than its architecture");
        free(a), free(b);
        json_decref(v), json_decref(s);
    }
}

/* Every PDE, both methods, both budgets: valid, the baseline steps, the
 * quick limits kept, the same spec twice (one hash). */
Test(baseline, every_pde_and_budget_has_a_valid_spec)
{
    const pf_budget *budgets[] = {pf_budget_paper(), quick()};
    for (int i = 0; i < pf_pdes_count(); i++)
        for (int b = 0; b < 2; b++)
            for (pf_method m = PF_METHOD_VANILLA; m <= PF_METHOD_PINNSFORMER; m++) {
                if (m == PF_METHOD_PINNSAGENT) continue; /* it plans its specs */
                const pf_pde *p = pf_pdes_at(i);
                json_t *s, *n;
                pf_model_config mc;
                pf_train_config tc;
                configs(m, p, budgets[b], &s, &mc, &tc);
                pf_spec_report rep;
                cr_assert_eq(pf_spec_check_budget(s, p, budgets[b], PF_FIDELITY_BASELINE, &n, &rep), PF_OK,
                             "%s %s: %s", p->name, budgets[b]->name, pf_errmsg());
                cr_assert_eq(pf_train_config_steps(&tc), budgets[b]->steps[PF_FIDELITY_BASELINE]);
                cr_assert_leq((long)pf_model_config_nparams(&mc), budgets[b]->max_params);
                cr_assert_leq(pf_train_config_points(&tc), budgets[b]->max_points);
                pf_proposal a, c;
                cr_assert_eq(pf_baseline_propose(m, p, budgets[b], &a), PF_OK);
                cr_assert_eq(pf_baseline_propose(m, p, budgets[b], &c), PF_OK);
                cr_assert(a.valid);
                cr_assert_eq(a.attempts, 0);
                cr_assert_str_eq(a.provider, "baseline");
                cr_assert_str_eq(a.spec_hash, c.spec_hash);
                char h[PF_SPEC_HASH_HEX];
                cr_assert_eq(pf_spec_hash(n, h), PF_OK);
                cr_assert_str_eq(a.spec_hash, h);
                pf_proposal_release(&a), pf_proposal_release(&c);
                json_decref(s), json_decref(n);
            }
    cr_assert_eq(pf_budget_paper()->steps[PF_FIDELITY_BASELINE], 20000);
    cr_assert_eq(quick()->steps[PF_FIDELITY_BASELINE], 1000);
}

/* The proposal's rationale describes the spec that is trained: its depth
 * and width (d_model, d_ff and d_hidden for pinnsformer), its point counts
 * and its steps, at the paper profile and shrunk at quick (issue 35). */
static void assert_names(const char *text, const char *fmt, long v)
{
    char want[64];
    snprintf(want, sizeof want, fmt, v);
    cr_assert(strstr(text, want), "'%s' not in: %s", want, text);
}

Test(baseline, the_rationale_names_the_trained_sizes)
{
    const pf_budget *budgets[] = {pf_budget_paper(), quick()};
    const char *names[] = {"burgers_1d", "poisson_2d_classic"};
    for (int b = 0; b < 2; b++)
        for (int i = 0; i < 2; i++)
            for (pf_method m = PF_METHOD_VANILLA; m <= PF_METHOD_PINNSFORMER; m++) {
                if (m == PF_METHOD_PINNSAGENT) continue;
                const pf_pde *p = pde(names[i]);
                json_t *s;
                pf_model_config mc;
                pf_train_config tc;
                configs(m, p, budgets[b], &s, &mc, &tc);
                pf_proposal a;
                cr_assert_eq(pf_baseline_propose(m, p, budgets[b], &a), PF_OK);
                const char *r = a.rationale;
                if (mc.arch == PF_ARCH_PINNSFORMER) {
                    assert_names(r, "%ld tokens per point", mc.seq_len);
                    assert_names(r, "d_model %ld,", mc.width);
                    assert_names(r, "%ld encoder", mc.depth);
                    assert_names(r, "d_ff %ld,", mc.d_ff);
                    assert_names(r, "d_hidden %ld", mc.d_hidden);
                } else {
                    char dw[32];
                    snprintf(dw, sizeof dw, "%d x %d tanh MLP", mc.depth, mc.width);
                    cr_assert(strstr(r, dw), "'%s' not in: %s", dw, r);
                }
                assert_names(r, "%ld interior", tc.sampling.interior);
                assert_names(r, " %ld boundary", tc.sampling.boundary);
                if (tc.sampling.initial > 0)
                    assert_names(r, " %ld initial", tc.sampling.initial);
                else
                    cr_assert_null(strstr(r, "initial Hammersley"), "%s", r);
                assert_names(r, "for %ld steps", pf_train_config_steps(&tc));
                if (b == 1) {
                    cr_assert(strstr(r, "shrunk to the quick profile"), "%s", r);
                    cr_assert_null(strstr(r, "5 x 100"), "%s", r);
                    cr_assert_null(strstr(r, "8192"), "%s", r);
                } else {
                    cr_assert_null(strstr(r, "shrunk"), "%s", r);
                    if (m != PF_METHOD_PINNSFORMER) cr_assert(strstr(r, "5 x 100 tanh MLP"), "%s", r);
                    cr_assert(strstr(r, "8192 interior") && strstr(r, "for 20000 steps"), "%s", r);
                }
                pf_proposal_release(&a);
                json_decref(s);
            }
}

Test(baseline, a_search_method_has_no_baseline_spec)
{
    json_t *s;
    for (pf_method m = PF_METHOD_PINNFORGE; m <= PF_METHOD_NO_EVOLUTION; m++) {
        cr_assert_eq(pf_baseline_spec(m, pde("burgers_1d"), NULL, &s), PF_ERR_INVALID);
        cr_assert_null(s);
        cr_assert_not(pf_method_is_baseline(m));
    }
    cr_assert(strstr(pf_errmsg(), "has no fixed spec"), "%s", pf_errmsg());
    cr_assert_eq(pf_baseline_spec(PF_METHOD_PINNSAGENT, pde("burgers_1d"), NULL, &s), PF_ERR_INVALID);
    cr_assert(pf_method_is_baseline(PF_METHOD_VANILLA) && pf_method_is_baseline(PF_METHOD_ROPINN) &&
              pf_method_is_baseline(PF_METHOD_PINNSAGENT) && pf_method_is_baseline(PF_METHOD_PINNSFORMER));
    cr_assert_not(pf_method_is_ablation(PF_METHOD_ROPINN) || pf_method_is_ablation(PF_METHOD_PINNFORGE));
    cr_assert(pf_method_is_ablation(PF_METHOD_NO_FEEDBACK));
}

Test(baseline, a_baseline_run_has_five_slots_in_generation_0)
{
    cr_assert_eq(pf_run_slots(PF_METHOD_VANILLA, 0), 5);
    cr_assert_eq(pf_run_slots(PF_METHOD_ROPINN, 1), 0);
    cr_assert_eq(pf_run_slots(PF_METHOD_PINNFORGE, 0), 8);
    cr_assert_eq(pf_run_slots(PF_METHOD_PINNFORGE, 3), 5);
    cr_assert_str_eq(pf_run_slot_name(PF_METHOD_VANILLA, 0, 0), "init0");
    cr_assert_str_eq(pf_run_slot_name(PF_METHOD_ROPINN, 0, 4), "init4");
    cr_assert_null(pf_run_slot_name(PF_METHOD_VANILLA, 0, 5));
    cr_assert_null(pf_run_slot_name(PF_METHOD_VANILLA, 1, 0));
    cr_assert_str_eq(pf_run_slot_name(PF_METHOD_PINNFORGE, 0, 0), "robust_reference");
    for (int g = 0; g < 5; g++) {
        cr_assert_eq(pf_run_slots(PF_METHOD_PINNSAGENT, g), 1);
        cr_assert_str_eq(pf_run_slot_name(PF_METHOD_PINNSAGENT, g, 0), "plan");
    }
    cr_assert_eq(pf_run_slots(PF_METHOD_PINNSAGENT, 5), 0);
}

/* ------------------------------------------------------------ final */

static char dir[64];

static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/pf-baseline-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
}

static void teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

static void context(const char *method, const char *eval)
{
    char path[256];
    snprintf(path, sizeof path, "%s/context.json", dir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fprintf(f, "{\"pde\": \"burgers_1d\", \"method\": \"%s\", \"run\": 2, \"budget\": \"quick\", \"llm\": \"offline\", "
               "\"eval\": \"%s\"}\n", method, eval);
    fclose(f);
}

/* Candidate k: its proposal, and (train) evidence with status st, MSE y
 * (NaN: none), y_report y / 2 under heldout, 1000 steps, k + 1 seconds. */
static void candidate(const pf_run *r, int k, pf_train_status st, double y, bool train)
{
    char path[4200];
    cr_assert_eq(pf_run_path(r->dir, PF_RUN_CANDIDATE, 0, k, path, sizeof path), PF_OK);
    cr_assert_eq(pf_mkdirs(path), PF_OK);
    pf_proposal pr;
    cr_assert_eq(pf_baseline_propose(r->method, r->pde, r->budget, &pr), PF_OK);
    char hash[PF_SPEC_HASH_HEX];
    memcpy(hash, pr.spec_hash, sizeof hash);
    pf_proposal_file pf;
    pf_proposal_file_init(&pf, r, 0, k, false, &pr);
    cr_assert_eq(pf_run_path(r->dir, PF_RUN_PROPOSAL, 0, k, path, sizeof path), PF_OK);
    cr_assert_eq(pf_proposal_file_write(path, &pf), PF_OK, "%s", pf_errmsg());
    pf_proposal_file_release(&pf);
    if (!train) return;
    static pf_train_result res; /* large; zeroed */
    memset(&res, 0, sizeof res);
    res.status = st;
    res.has_y = isfinite(y);
    res.y = y;
    res.has_y_report = r->eval == PF_EVAL_HELDOUT && isfinite(y);
    res.y_report = y / 2;
    if (!res.has_y) snprintf(res.y_missing, sizeof res.y_missing, "the predictions are not finite");
    res.causal_min = res.region_sigma = res.region_radius = NAN;
    res.steps = 1000;
    res.wall_s = k + 1;
    pf_evidence_file e;
    cr_assert_eq(pf_evidence_file_init(&e, r->pde, &res, hash, "baseline", "quick", 200000 + k), PF_OK, "%s",
                 pf_errmsg());
    cr_assert_eq(pf_run_path(r->dir, PF_RUN_EVIDENCE, 0, k, path, sizeof path), PF_OK);
    cr_assert_eq(pf_evidence_file_write(path, &e), PF_OK, "%s", pf_errmsg());
    pf_evidence_file_release(&e);
}

/* ok 3e-2, nan, ok 2e-2, ok 5e-3, diverged with a smaller MSE (not ranked). */
static void five(pf_run *r, const char *method, const char *eval, int untrained)
{
    context(method, eval);
    cr_assert_eq(pf_run_open(dir, r), PF_OK, "%s", pf_errmsg());
    const pf_train_status st[5] = {PF_TRAIN_OK, PF_TRAIN_NAN, PF_TRAIN_OK, PF_TRAIN_OK, PF_TRAIN_DIVERGED};
    const double y[5] = {3e-2, NAN, 2e-2, 5e-3, 1e-3};
    for (int k = 0; k < 5; k++) candidate(r, k, st[k], y[k], k != untrained);
}

Test(baseline, final_selects_the_lowest_ok_mse_and_lists_all_five, .init = setup, .fini = teardown)
{
    pf_run r;
    five(&r, "ropinn", "paper", -1);
    pf_final_file f, back;
    cr_assert_eq(pf_final_build_baseline(&r, &f), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(f.hf_mse, 5e-3);
    cr_assert_eq(f.report_mse, 5e-3);
    cr_assert(isnan(f.lf_mse));
    cr_assert_str_eq(f.found_in, "gen00/init3");
    cr_assert_str_eq(f.result, "gen00/cand3/result.h5");
    cr_assert_str_eq(f.method, "ropinn");
    cr_assert_eq(f.ntop, 0);
    cr_assert_eq(f.generations, 0);
    cr_assert_eq(f.ncand, 5);
    cr_assert_eq(f.cand[0].y, 3e-2);
    cr_assert_not(f.cand[1].has_y);
    cr_assert_str_eq(f.cand[1].status, "nan");
    cr_assert_str_eq(f.cand[4].status, "diverged");
    cr_assert_eq(f.cand[4].seed, 200004);
    cr_assert_eq(f.budget.steps_baseline, 5000);
    cr_assert_eq(f.budget.steps_low + f.budget.steps_high, 0);
    cr_assert_eq(f.budget.wall_baseline, 1 + 2 + 3 + 4 + 5);
    cr_assert_eq(f.budget.candidates, 5);
    cr_assert_eq(f.budget.calls, 0);
    cr_assert_not_null(json_object_get(json_object_get(f.spec, "training"), "region_optimization"));

    char path[256];
    snprintf(path, sizeof path, "%s/final.msgpack", dir);
    cr_assert_eq(pf_final_file_write(path, &f), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(pf_final_file_read(path, &back), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(back.hf_mse, f.hf_mse);
    cr_assert(isnan(back.lf_mse));
    cr_assert_str_eq(back.result, f.result);
    cr_assert_eq(back.ncand, 5);
    for (int k = 0; k < 5; k++) {
        cr_assert_eq(back.cand[k].has_y, f.cand[k].has_y);
        cr_assert(back.cand[k].y == f.cand[k].y || !f.cand[k].has_y);
        cr_assert_str_eq(back.cand[k].status, f.cand[k].status);
        cr_assert_eq(back.cand[k].seed, f.cand[k].seed);
    }
    cr_assert_eq(back.budget.steps_baseline, 5000);
    cr_assert_eq(back.budget.wall_baseline, 15);
    pf_final_file_release(&f);
    pf_final_file_release(&back);
}

Test(baseline, heldout_reports_the_selected_candidates_other_half, .init = setup, .fini = teardown)
{
    pf_run r;
    five(&r, "vanilla", "heldout", -1);
    pf_final_file f;
    cr_assert_eq(pf_final_build_baseline(&r, &f), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(f.hf_mse, 5e-3);
    cr_assert_eq(f.report_mse, 2.5e-3);
    cr_assert_str_eq(f.eval, "heldout");
    pf_final_file_release(&f);
}

Test(baseline, an_untrained_candidate_or_a_search_run_is_refused, .init = setup, .fini = teardown)
{
    pf_run r;
    five(&r, "vanilla", "paper", 2);
    pf_final_file f;
    cr_assert_neq(pf_final_build_baseline(&r, &f), PF_OK);
    cr_log_info("%s", pf_errmsg());
    cr_assert(strstr(pf_errmsg(), "gen00/cand2/evidence.msgpack"), "%s", pf_errmsg());
    r.method = PF_METHOD_PINNFORGE;
    cr_assert_eq(pf_final_build_baseline(&r, &f), PF_ERR_INVALID);
    cr_assert(strstr(pf_errmsg(), "is not a baseline"), "%s", pf_errmsg());

}
