/* baseline.c — the baselines' specs and proposals (baseline.h). */
#include "search/baseline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A fixed-spec baseline: how its spec differs from PINNacle's default
 * trainer's (the example spec with Hammersley points), and how its rationale
 * describes the spec that will be trained (the final one, after any
 * shrinking to the budget). The `spec` column of llm/methods.def names one
 * per such method. */
typedef struct baseline_recipe {
    void (*adjust)(json_t *raw, const pf_pde *p, const pf_budget *b);
    /* the rationale of the final spec (mc, tc) into buf */
    void (*describe)(char *buf, size_t n, const pf_model_config *mc, const pf_train_config *tc, const pf_budget *b);
} baseline_recipe;

static void vanilla_adjust(json_t *raw, const pf_pde *p, const pf_budget *b)
{
}

static void ropinn_adjust(json_t *raw, const pf_pde *p, const pf_budget *b)
{
    json_object_set_new(json_object_get(raw, PF_SK(TRAIN)), PF_SK(TRAIN_REGION),
                        json_pack("{s:b, s:f, s:i, s:f}", PF_SK(TRAIN_REGION_ENABLED), 1, PF_SK(TRAIN_REGION_R0), 1e-4,
                                  PF_SK(TRAIN_REGION_HISTORY), 10, PF_SK(TRAIN_REGION_MAX_RADIUS), 0.01));
}

static void pinnsformer_adjust(json_t *raw, const pf_pde *p, const pf_budget *b)
{
    /* the released sizes, shrunk to the budget */
    json_object_set_new(raw, PF_SK(ARCH),
                        json_pack("{s:s, s:i, s:i, s:{s:i, s:f, s:i, s:i, s:i}}", PF_SK(ARCH_TYPE), "pinnsformer",
                                  PF_SK(ARCH_DEPTH), 1, PF_SK(ARCH_WIDTH), 32, PF_SK(ARCH_PINNSFORMER),
                                  PF_SK(ARCH_PINNSFORMER_TOKENS), 5, PF_SK(ARCH_PINNSFORMER_DT), 1e-4,
                                  PF_SK(ARCH_PINNSFORMER_D_FF), 256, PF_SK(ARCH_PINNSFORMER_D_HIDDEN), 512,
                                  PF_SK(ARCH_PINNSFORMER_HEADS), 2));
    pf_spec_fit_budget(raw, p, b);
}

/* "<i> interior, <b> boundary[ and <n> initial] Hammersley points, Adam at
 * <lr> with no schedule for <steps> steps, unit loss weights[, shrunk to the
 * <profile> profile's limits]" (the shrinking noted except at paper). */
static void describe_trainer(char *buf, size_t n, const pf_train_config *tc, const pf_budget *b)
{
    char init[48] = "", note[96] = "";
    if (tc->sampling.initial > 0) snprintf(init, sizeof init, " and %d initial", tc->sampling.initial);
    if (b && strcmp(b->name, pf_budget_paper()->name))
        snprintf(note, sizeof note, ", shrunk to the %s profile's limits", b->name);
    snprintf(buf, n,
             "%d interior, %d boundary%s Hammersley points, Adam at %g with no schedule for %ld steps, "
             "unit loss weights%s",
             tc->sampling.interior, tc->sampling.boundary, init, tc->stages[0].schedule.lr, pf_train_config_steps(tc),
             note);
}

/* vanilla and ropinn (the MLP with region optimization): the network and
 * trainer, "<depth> x <width> tanh MLP, Glorot-normal initialization,
 * <trainer>", within the method's text. */
static void mlp_describe(char *buf, size_t n, const pf_model_config *mc, const pf_train_config *tc, const pf_budget *b)
{
    char tr[320], net[400];
    describe_trainer(tr, sizeof tr, tc, b);
    snprintf(net, sizeof net, "%d x %d tanh MLP, Glorot-normal initialization, %s", mc->depth, mc->width, tr);
    if (!tc->region.enabled)
        snprintf(buf, n,
                 "Vanilla PINN: PINNacle's default trainer (%s), one of five independently initialized candidates; "
                 "the lowest MSE of the five is reported.",
                 net);
    else
        snprintf(buf, n,
                 "RoPINN (a reconstruction: RoPINN released no PINNacle driver): the vanilla PINN (%s), each Adam "
                 "step on interior points moved by U[0, r)^d with r = min(r0 / sigma, %g), r0 = %g, sigma the "
                 "gradient-noise level of the last %d steps; one of five independently initialized candidates.",
                 net, tc->region.max_radius, tc->region.r0, tc->region.history);
}

static void pinnsformer_describe(char *buf, size_t n, const pf_model_config *mc, const pf_train_config *tc,
                                 const pf_budget *b)
{
    char tr[320];
    describe_trainer(tr, sizeof tr, tc, b);
    snprintf(buf, n,
             "PINNsFormer (a reconstruction on PINNacle's default trainer: its released code has no PINNacle "
             "driver): the released transformer (%d tokens per point, dt %g, d_model %d, %d encoder and %d "
             "decoder layer%s, %d heads, WaveAct, d_ff %d, d_hidden %d), the residual and boundary losses over "
             "every token, the initial condition on token 0; %s; one of five independently initialized "
             "candidates.",
             mc->seq_len, mc->seq_dt, mc->width, mc->depth, mc->depth, mc->depth == 1 ? "" : "s", mc->heads, mc->d_ff,
             mc->d_hidden, tr);
}

static const baseline_recipe baseline_vanilla = {vanilla_adjust, mlp_describe};
static const baseline_recipe baseline_ropinn = {ropinn_adjust, mlp_describe};
static const baseline_recipe baseline_pinnsformer = {pinnsformer_adjust, pinnsformer_describe};

/* The recipe of each method: the last column of llm/methods.def. */
static const baseline_recipe *const RECIPES[PF_METHOD_COUNT] = {
#define PF_METHOD(ID, nm, lbl, ord, fl, gens, slots, names, note, propose, spec) [PF_METHOD_##ID] = spec,
#include "llm/methods.def"
#undef PF_METHOD
};

static const baseline_recipe *recipe_of(pf_method m)
{
    return (int)m >= 0 && m < PF_METHOD_COUNT ? RECIPES[m] : NULL;
}

pf_status pf_baseline_spec(pf_method m, const pf_pde *p, const pf_budget *b, json_t **out)
{
    *out = NULL;
    const baseline_recipe *rc = recipe_of(m);
    if (!rc)
        return pf_fail(PF_ERR_INVALID, "method '%s' has no fixed spec (llm/methods.def names those that have)",
                       pf_method_name(m));
    json_t *raw = pf_spec_example_budget(p, b, PF_FIDELITY_BASELINE);
    json_object_set_new(json_object_get(raw, PF_SK(SAMP)), PF_SK(SAMP_METHOD), json_string("hammersley"));
    rc->adjust(raw, p, b);
    pf_spec_report *rep = malloc(sizeof *rep);
    if (!rep) {
        json_decref(raw);
        return pf_fail(PF_ERR_NOMEM, "out of memory");
    }
    pf_status st = pf_spec_check_budget(raw, p, b, PF_FIDELITY_BASELINE, out, rep);
    json_decref(raw);
    free(rep);
    if (st != PF_OK) return pf_fail(st, "the %s spec for %s: %s", pf_method_name(m), p->name, pf_errmsg());
    return PF_OK;
}

pf_status pf_baseline_propose(pf_method m, const pf_pde *p, const pf_budget *b, pf_proposal *out)
{
    memset(out, 0, sizeof *out);
    PF_TRY(pf_baseline_spec(m, p, b, &out->spec));
    pf_status st = pf_spec_hash(out->spec, out->spec_hash);
    if (st == PF_OK) {
        /* the rationale describes the spec as trained: read its sizes back */
        pf_model_config mc;
        pf_train_config tc;
        st = pf_spec_instantiate(out->spec, p, &mc, &tc);
        char why[1024];
        if (st == PF_OK) recipe_of(m)->describe(why, sizeof why, &mc, &tc, b);
        if (st == PF_OK && !(out->rationale = strdup(why))) st = pf_fail(PF_ERR_NOMEM, "out of memory");
    }
    if (st != PF_OK) {
        pf_proposal_release(out);
        return st;
    }
    out->valid = true;
    snprintf(out->provider, sizeof out->provider, "baseline");
    return PF_OK;
}
