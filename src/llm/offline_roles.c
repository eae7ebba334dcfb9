/*
 * offline_roles.c — the eight generation-0 roles (paper, appendix A.4).
 *
 * Each role starts from PINNacle's default spec for the PDE and applies
 *   1. its "core" operators, each when the PDE makes it relevant (a role
 *      entry names the PDE tags that switch it on; 0 = always), and
 *   2. a few operators drawn from its own pool, weighted by PDE tags,
 *      retrieved knowledge and the memory (pf_off_op_weight()),
 * so the eight roles emphasize different sections and two seeds differ in
 * the drawn operators and their parameters:
 *
 *   robust_reference        normalize, a modest schedule; maybe an L-BFGS tail
 *   constraint_causality    hard transform, causal weighting, constraint weights
 *   localized_sampling      RAD (RAR-D when steep), Sobol/LHS, denser points
 *   representation          periodic embedding, (multiscale) Fourier, sin
 *   residual_loss           lr_annealing / self-adaptive weights, residual
 *                           normalization, term and observation weights,
 *                           MultiAdam
 *   optimization            AdamW, schedules, clipping, Adam -> L-BFGS split,
 *                           region optimization, MultiAdam
 *   capacity_topology       modified_mlp / resnet, width, depth, rwf, adaptive
 *                           act (layer-wise or global), ReLU family + He init
 *   cross_component_novelty three or four less common operators from
 *                           different sections
 */
#include <stdio.h>
#include <string.h>

#include "llm/offline.h"
#include "llm/offline_impl.h"

#define NUM(a) ((int)(sizeof(a) / sizeof((a)[0])))
#define MAX_CORE 4
#define MAX_POOL 12

typedef struct core_op {
    pf_off_op_id op;
    unsigned tags;    /* any of these PDE tags switches it on; 0 = always */
    double p;         /* probability when switched on */
} core_op;

typedef struct role_def {
    const char *name;
    const char *intent;
    core_op core[MAX_CORE];
    int ncore;
    pf_off_op_id pool[MAX_POOL];
    int npool;
    int draws_lo, draws_hi; /* operators drawn from the pool */
} role_def;

#define T(x) PF_TAG_##x
static const role_def roles[PF_OFFLINE_ROLES] = {
    {"robust_reference", "a conservative reference: the default tanh MLP, stable Adam, little else",
     {{OP_NORMALIZE, 0, 0.6}, {OP_SCHEDULE, 0, 1.0}},
     2,
     {OP_LBFGS_TAIL, OP_CLIP, OP_MORE_INTERIOR},
     3,
     0, 1},
    {"constraint_causality", "enforcing the physical constraints and, where time runs, causality",
     {{OP_HARD, 0, 0.85}, {OP_CAUSAL, T(TIME_DEPENDENT), 0.9}, {OP_RAISE_CONSTRAINTS, 0, 0.7}},
     3,
     {OP_LR_ANNEALING, OP_MORE_BOUNDARY, OP_MORE_INITIAL, OP_PERIODIC},
     4,
     0, 1},
    {"localized_sampling", "placing collocation points where the solution is hard",
     {{OP_RAR_D, T(STEEP), 0.6}, {OP_RAD, 0, 1.0}, {OP_MORE_BOUNDARY, T(COMPLEX_GEOMETRY), 0.8}},
     3,
     {OP_SOBOL, OP_LHS, OP_MORE_INTERIOR, OP_MORE_INITIAL},
     4,
     1, 2},
    {"representation", "the input representation and how it feeds the network",
     {{OP_PERIODIC, T(PERIODIC), 1.0}, {OP_MULTISCALE, T(MULTISCALE), 0.6}, {OP_FOURIER, 0, 0.7}},
     3,
     {OP_NORMALIZE, OP_ACT_SIN, OP_RWF},
     3,
     1, 2},
    {"residual_loss", "how the residual and the constraint terms are weighed in the loss",
     {{OP_OBS_WEIGHT, T(INVERSE), 1.0}},
     1,
     {OP_LR_ANNEALING, OP_SELF_ADAPTIVE, OP_RESNORM, OP_RAISE_CONSTRAINTS, OP_CAUSAL, OP_MULTIADAM},
     6,
     2, 3},
    {"optimization", "the optimizer, its schedule and numerical stability",
     {{OP_LBFGS_TAIL, T(HIGH_DIM) | T(VARIABLE_COEFFICIENT), 0.6}},
     1,
     {OP_ADAMW, OP_SCHEDULE, OP_CLIP, OP_LBFGS_TAIL, OP_ONE_CYCLE, OP_LOWER_LR, OP_REGION, OP_MULTIADAM},
     8,
     2, 3},
    {"capacity_topology", "model capacity and topology",
     {{OP_WIDER, T(HIGH_DIM), 1.0}},
     1,
     {OP_MODIFIED_MLP, OP_RESNET, OP_WIDER, OP_DEEPER, OP_RWF, OP_ADAPTIVE_ACT, OP_RELU_HE, OP_GLOBAL_ADAPTIVE},
     8,
     2, 3},
    {"cross_component_novelty", "an unusual combination across several components",
     {{OP_PERIODIC, T(PERIODIC), 0.5}},
     1,
     {OP_ACT_SMOOTH, OP_RESNET, OP_RWF, OP_ADAPTIVE_ACT, OP_MULTISCALE, OP_RAR_D, OP_LHS, OP_SELF_ADAPTIVE, OP_RESNORM,
      OP_ONE_CYCLE, OP_ADAMW, OP_CAUSAL},
     12,
     3, 4},
};
#undef T

const char *pf_offline_role_name(int i)
{
    return i >= 0 && i < PF_OFFLINE_ROLES ? roles[i].name : NULL;
}

int pf_offline_role_index(const char *name)
{
    for (int i = 0; name && i < PF_OFFLINE_ROLES; i++)
        if (!strcmp(name, roles[i].name)) return i;
    return -1;
}

/* Cross-component novelty draws at most one operator per section. */
static int novelty_draws(pf_off *o, json_t *spec, const role_def *r, int k)
{
    int used[PF_SPEC_SECTIONS] = {0}, done = 0;
    for (int tries = 0; tries < 24 && done < k; tries++) {
        pf_off_op_id id = r->pool[pf_off_pick(o, r->npool)];
        const pf_off_op *op = pf_off_op_get(id);
        if (used[op->section]) continue;
        if (pf_off_apply_some(o, spec, &id, 1, 1, o->failed)) {
            used[op->section] = 1;
            done++;
        }
    }
    return done;
}

json_t *pf_off_role(pf_off *o, int role)
{
    const role_def *r = &roles[role];
    json_t *spec = pf_spec_example_budget(o->pde, o->budget, o->fid);
    char tags[256] = "";
    for (int b = 0; b < PF_TAG_COUNT; b++)
        if (o->pde->tags & (1u << b))
            snprintf(tags + strlen(tags), sizeof tags - strlen(tags), "%s%s", *tags ? ", " : "", pf_pde_tag_name(b));
    pf_off_note(o, "Role %s on %s (%s): %s.", r->name, o->pde->name, *tags ? tags : "no special tags", r->intent);
    int changed = 0;
    for (int i = 0; i < r->ncore; i++) {
        const core_op *c = &r->core[i];
        if (c->tags && !(o->pde->tags & c->tags)) continue;
        if (pf_off_json_has_string(o->failed, pf_off_op_get(c->op)->mech)) continue;
        if (pf_off_chance(o, c->p)) changed += pf_off_apply(o, c->op, spec);
    }
    int k = r->draws_lo + pf_off_pick(o, r->draws_hi - r->draws_lo + 1);
    if (role == PF_OFFLINE_ROLES - 1)
        changed += novelty_draws(o, spec, r, k);
    else
        changed += pf_off_apply_some(o, spec, r->pool, r->npool, k, o->failed);
    if (!changed) changed += pf_off_apply_some(o, spec, r->pool, r->npool, 1, o->failed);
    if (!changed) pf_off_note(o, "Kept PINNacle's default otherwise: it is the reference the other roles are measured against.");
    return spec;
}
