/*
 * offline_strategies.c — the five evolution strategies (g >= 1) and the
 * escape post-check (paper, appendices A.4 and B.5).
 *
 *   refine              the best parent; its single most salient problem
 *                       (failure, a constraint term far above the residual,
 *                       concentrated hotspots, a long plateau) gets one or two
 *                       targeted changes; without evidence, one small step;
 *   physics_guided      sampling, constraints, loss: a constraint term whose
 *                       final loss is far above the pde term's (x10 and
 *                       > 1e-3, or x100) is made exact by a transform that
 *                       satisfies it, or weighted x3..x10, or balanced by
 *                       lr_annealing; concentrated residuals (top hotspots
 *                       holding much of |r|, or p95/max far above the mean)
 *                       switch on RAD / RAR-D or more interior points; a
 *                       residual that dominates uniformly gets more or
 *                       redrawn points or causal weighting. Constraint weights
 *                       are never raised when the constraints are already met;
 *   architecture_guided representation, architecture, optimizer: nan /
 *                       diverged -> lower lr, clipping, maybe AdamW; timeout ->
 *                       a smaller network; low loss reduction -> capacity
 *                       (modified_mlp, wider, deeper, Fourier); a long plateau
 *                       -> a schedule or an L-BFGS tail; gradient imbalance ->
 *                       modified_mlp or lr_annealing; a failing L-BFGS stage ->
 *                       more history or none;
 *   synthesis           each section from one of two (escape: all) parents,
 *                       by rule (physics sections from the parent with the
 *                       smallest constraint errors, the others from the
 *                       parent with the best loss reduction) or by draw;
 *   novelty             operators whose mechanism no parent (escape: and no
 *                       history entry) uses, from distinct sections.
 * Without feedback (method no_feedback, or no evidence) the operators read
 * only structure and PDE tags. Without parents (no_evolution) the base is the
 * PDE default plus the memory's good mechanisms.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "llm/offline.h"
#include "llm/offline_impl.h"

#define NUM(a) ((int)(sizeof(a) / sizeof((a)[0])))

static const char *const strategy_names[PF_OFFLINE_STRATEGIES] = {"refine", "physics_guided", "architecture_guided",
                                                                 "synthesis", "novelty"};

const char *pf_offline_strategy_name(int i)
{
    return i >= 0 && i < PF_OFFLINE_STRATEGIES ? strategy_names[i] : NULL;
}

int pf_offline_strategy_index(const char *name)
{
    for (int i = 0; name && i < PF_OFFLINE_STRATEGIES; i++)
        if (!strcmp(name, strategy_names[i])) return i;
    return -1;
}

static const pf_off_op_id physics_pool[] = {OP_HARD,         OP_CAUSAL,       OP_RAD,  OP_RAR_D,  OP_MORE_BOUNDARY,
                                            OP_RAISE_CONSTRAINTS, OP_LR_ANNEALING, OP_SOBOL, OP_MORE_INTERIOR,
                                            OP_OBS_WEIGHT,   OP_RESNORM};
static const pf_off_op_id arch_pool[] = {OP_NORMALIZE, OP_FOURIER, OP_MULTISCALE, OP_PERIODIC, OP_ACT_SIN,   OP_MODIFIED_MLP,
                                         OP_RESNET,    OP_WIDER,   OP_DEEPER,     OP_RWF,      OP_ADAPTIVE_ACT, OP_ADAMW,
                                         OP_SCHEDULE,  OP_CLIP,    OP_LBFGS_TAIL};
static const pf_off_op_id small_pool[] = {OP_SCHEDULE, OP_MORE_INTERIOR, OP_WIDER, OP_CLIP, OP_NORMALIZE, OP_LOWER_LR};

/* ------------------------------------------------------ evidence */

/* A soft constraint term whose final loss stands out from the pde term's. */
typedef struct term_issue {
    const char *name;
    double loss, pde;
} term_issue;

static int worst_constraint(const pf_off *o, const json_t *ev, term_issue *out)
{
    const json_t *terms = json_object_get(ev, "terms");
    double pde = NAN, worst = -1;
    size_t i;
    json_t *t;
    json_array_foreach(terms, i, t) if (!strcmp(pf_off_str(t, "name", ""), "pde")) pde =
        pf_off_num(t, "loss_final", NAN);
    out->name = NULL;
    json_array_foreach(terms, i, t) {
        const char *n = pf_off_str(t, "name", "pde");
        double l = pf_off_num(t, "loss_final", NAN);
        if (!strcmp(n, "pde") || !strcmp(pf_off_str(t, "mode", "soft"), "hard") || !isfinite(l)) continue;
        int high = (l > 1e-3 && (!isfinite(pde) || l > 10 * pde)) || (isfinite(pde) && pde > 0 && l > 100 * pde);
        if (high && l > worst) worst = l, out->name = n, out->loss = l, out->pde = pde;
    }
    (void)o;
    return out->name != NULL;
}

/* Residuals concentrated in a few boxes, or heavy-tailed. */
static int concentrated(const json_t *ev, double *share)
{
    double s = 0;
    size_t i;
    json_t *h;
    json_array_foreach(json_object_get(ev, "hotspots"), i, h) if (i < 3) s +=
        pf_off_num(h, "share", NAN) > 0 ? pf_off_num(h, "share", NAN) : 0;
    *share = s;
    const json_t *r = json_object_get(ev, "residual");
    double mean = pf_off_num(r, "mean", NAN), p95 = pf_off_num(r, "p95", NAN), max = pf_off_num(r, "max", NAN);
    return s >= 0.25 || (mean > 0 && (p95 > 4 * mean || max > 50 * mean));
}

static int failed_status(const pf_off_parent *p)
{
    return p->status && (!strcmp(p->status, "nan") || !strcmp(p->status, "diverged"));
}

/* ------------------------------------------------------ targeted edits */

static void fix_constraint(pf_off *o, json_t *spec, const term_issue *t)
{
    json_t *loss = pf_off_sec(spec, PF_SK(LOSS));
    int h = pf_off_best_transform(o->pde, t->name);
    const char *wm = pf_off_field_str(json_object_get(loss, PF_SK(LOSS_WEIGHTING)), PF_SK_LOSS_WEIGHTING_METHOD);
    double u = pf_rng_uniform(o->rng);
    if (h >= 0 && u < 0.5 && !pf_off_json_has_string(o->failed, "hard")) {
        json_object_set_new(
            spec, PF_SK(CONS),
            json_pack("{s:s,s:s}", PF_SK(CONS_MODE), "hard", PF_SK(CONS_HARD_TRANSFORM), o->pde->hard[h].name));
        pf_off_fit_weights(spec, o->pde);
        pf_off_note(o, "The %s term ends at %.3g against %.3g for the residual: the '%s' transform makes it exact.", t->name, t->loss,
                    t->pde, o->pde->hard[h].name);
        return;
    }
    if (!strcmp(wm, "fixed") && u > 0.8 && !pf_off_json_has_string(o->failed, "weight:lr_annealing")) {
        json_object_set_new(loss, PF_SK(LOSS_WEIGHTING),
                            json_pack("{s:s,s:f,s:i}", PF_SK(LOSS_WEIGHTING_METHOD), "lr_annealing",
                                      PF_SK(LOSS_WEIGHTING_LR_ANNEALING_ALPHA), 0.9,
                                      PF_SK(LOSS_WEIGHTING_LR_ANNEALING_EVERY), 10));
        pf_off_note(o, "The %s term ends at %.3g against %.3g for the residual: lr_annealing rebalances the terms' gradients.", t->name,
                    t->loss, t->pde);
        return;
    }
    static const double f[] = {3.0, 5.0, 10.0};
    double k = f[pf_off_pick(o, 3)];
    json_t *w = pf_off_obj(loss, PF_SK(LOSS_WEIGHTS));
    double old = pf_off_num(w, t->name, pf_spec_default_num(PF_SK_PATH(LOSS_WEIGHTS))), nw = fmin(1e6, old * k);
    json_object_set_new(w, t->name, json_real(nw));
    pf_off_note(o, "The %s term ends at %.3g against %.3g for the residual: its weight goes %g -> %g.", t->name, t->loss, t->pde, old,
                nw);
}

static void fix_residual(pf_off *o, json_t *spec, double share)
{
    const char *ad = pf_off_field_str(json_object_get(pf_off_sec(spec, PF_SK(SAMP)), PF_SK(SAMP_ADAPTIVE)),
                                      PF_SK_SAMP_ADAPTIVE_METHOD);
    pf_off_note(o, "Residual hotspots hold %.0f%% of |r| in the top boxes: sampling follows the residual.", 100 * share);
    if (!strcmp(ad, "none")) {
        pf_off_op_id ids[] = {OP_RAD, OP_RAR_D};
        if (!pf_off_apply_some(o, spec, ids, 2, 1, o->failed)) pf_off_apply(o, OP_MORE_INTERIOR, spec);
    } else {
        json_t *a = json_object_get(pf_off_sec(spec, PF_SK(SAMP)), PF_SK(SAMP_ADAPTIVE));
        double k = pf_off_field_num(a, PF_SK_SAMP_ADAPTIVE_RAD_K);
        long every = (long)pf_off_field_num(a, PF_SK_SAMP_ADAPTIVE_RAD_EVERY);
        json_object_set_new(a, PF_SK(SAMP_ADAPTIVE_RAD_K), json_real(fmin(10.0, k + 1)));
        json_object_set_new(a, PF_SK(SAMP_ADAPTIVE_RAD_EVERY), json_integer(every > 20 ? every / 2 : every));
        pf_off_note(o, "The existing %s sharpened: density exponent k %g -> %g, redraws twice as often.", ad, k, fmin(10.0, k + 1));
        pf_off_apply(o, OP_MORE_INTERIOR, spec);
    }
}

static void stabilize(pf_off *o, json_t *spec, const char *status)
{
    pf_off_note(o, "The parent ended with status %s: the optimizer is made more conservative.", status);
    pf_off_apply(o, OP_LOWER_LR, spec);
    pf_off_apply(o, OP_CLIP, spec);
    if (pf_off_chance(o, 0.4)) pf_off_apply(o, OP_ADAMW, spec);
}

/* ------------------------------------------------------ refine */

static void small_step(pf_off *o, json_t *spec)
{
    int n = 1 + pf_off_pick(o, 2);
    if (!pf_off_apply_some(o, spec, small_pool, NUM(small_pool), n, o->failed))
        pf_off_perturb_section(o, spec, 5);
}

static json_t *refine(pf_off *o)
{
    const pf_off_parent *p = &o->par[0];
    json_t *spec = json_deep_copy(p->spec);
    pf_off_note(o, "Refine: keep the best parent%s and adjust only its main shortcoming.", isfinite(p->y) ? "" : " (structure only)");
    const json_t *ev = o->feedback ? p->evidence : NULL;
    term_issue t;
    double share;
    if (o->feedback && failed_status(p))
        stabilize(o, spec, p->status);
    else if (ev && worst_constraint(o, ev, &t))
        fix_constraint(o, spec, &t);
    else if (ev && concentrated(ev, &share))
        fix_residual(o, spec, share);
    else if (ev && pf_off_num(ev, "stagnation_steps", NAN) > 0.3 * (double)pf_off_steps(p->spec)) {
        pf_off_note(o, "The loss stagnated for the last %.0f steps: the schedule changes.", pf_off_num(ev, "stagnation_steps", NAN));
        if (!pf_off_apply(o, OP_SCHEDULE, spec)) pf_off_apply(o, OP_LBFGS_TAIL, spec);
    } else
        small_step(o, spec);
    return spec;
}

/* ------------------------------------------------------ physics-guided */

static json_t *physics_guided(pf_off *o)
{
    const pf_off_parent *p = &o->par[0];
    json_t *spec = json_deep_copy(p->spec);
    const json_t *ev = o->feedback ? p->evidence : NULL;
    term_issue t;
    double share = 0;
    if (!ev) {
        pf_off_note(o, "Physics-guided on structure only (no execution evidence shown): sampling, constraints and loss follow the PDE's properties.");
        if (!pf_off_apply_some(o, spec, physics_pool, NUM(physics_pool), 2, o->failed)) pf_off_perturb_section(o, spec, 2);
        return spec;
    }
    pf_off_note(o, "Physics-guided: the best parent's residual and constraint errors decide the sampling, constraint and loss changes.");
    int acted = 0;
    if (worst_constraint(o, ev, &t)) fix_constraint(o, spec, &t), acted = 1;
    if (concentrated(ev, &share)) fix_residual(o, spec, share), acted = 1;
    if (!acted) {
        pf_off_note(o, "Constraints are met (no term far above the residual) and the residual is spread out: the interior is sampled better.");
        pf_off_op_id ids[] = {OP_MORE_INTERIOR, OP_RESAMPLE, OP_SOBOL, OP_CAUSAL, OP_RAD};
        if (!pf_off_apply_some(o, spec, ids, NUM(ids), 1 + pf_off_pick(o, 2), o->failed)) pf_off_perturb_section(o, spec, 2);
    }
    return spec;
}

/* ------------------------------------------------------ architecture-guided */

static const char *stage_trouble(const json_t *ev)
{
    size_t i;
    json_t *s;
    json_array_foreach(json_object_get(ev, "stages"), i, s) {
        const char *oc = pf_off_str(s, "outcome", "completed");
        if (!strcmp(pf_off_str(s, "optimizer", ""), "lbfgs") && (strstr(oc, "fail") || strstr(oc, "stall"))) return oc;
    }
    return NULL;
}

static void lbfgs_trouble(pf_off *o, json_t *spec, const char *oc)
{
    size_t i;
    json_t *st;
    if (pf_off_chance(o, 0.5)) {
        json_array_foreach(json_object_get(pf_off_sec(spec, PF_SK(OPT)), PF_SK(OPT_STAGES)), i,
                           st) if (!strcmp(pf_off_str(st, PF_SK(STAGE_OPTIMIZER), ""), "lbfgs"))
            json_object_set_new(st, PF_SK(STAGE_LBFGS_HISTORY), json_integer(100));
        pf_off_note(o, "The L-BFGS stage ended '%s': more curvature history (100 pairs).", oc);
    } else {
        pf_off_remove_mechanism(o, spec, "lbfgs");
        pf_off_note(o, "The L-BFGS stage ended '%s': its steps go back to Adam.", oc);
    }
}

static json_t *architecture_guided(pf_off *o)
{
    const pf_off_parent *p = &o->par[0];
    json_t *spec = json_deep_copy(p->spec);
    const json_t *ev = o->feedback ? p->evidence : NULL;
    if (o->feedback && failed_status(p)) {
        stabilize(o, spec, p->status);
        return spec;
    }
    if (!ev) {
        pf_off_note(o, "Architecture-guided on structure only (no execution evidence shown): representation, network and optimizer follow the PDE's properties.");
        if (!pf_off_apply_some(o, spec, arch_pool, NUM(arch_pool), 2, o->failed)) pf_off_perturb_section(o, spec, 1);
        return spec;
    }
    pf_off_note(o, "Architecture-guided: capacity, loss reduction and optimizer behaviour of the best parent decide the changes.");
    double red = pf_off_num(ev, "loss_reduction", NAN), stag = pf_off_num(ev, "stagnation_steps", NAN),
           imb = pf_off_num(ev, "grad_imbalance", NAN);
    double params = pf_off_num(ev, "parameters", NAN);
    const char *oc = stage_trouble(ev);
    int acted = 0;
    /* a parent that ran out of time, or that a run's time budget stopped
     * before its steps were done (TIME_BUDGET: search/time_budget.h), was
     * too large for the time: a narrower network */
    bool limited = json_is_true(json_object_get(ev, "time_limited"));
    if ((p->status && !strcmp(p->status, "timeout")) || limited) {
        json_t *a = pf_off_sec(spec, PF_SK(ARCH));
        long w = (long)pf_off_field_num(a, PF_SK_ARCH_WIDTH);
        json_object_set_new(a, PF_SK(ARCH_WIDTH), json_integer(w > 32 ? w * 2 / 3 : w));
        if (limited)
            pf_off_note(o, "The parent was stopped by the time budget at step %.0f of %.0f: width %ld -> %ld.",
                        pf_off_num(ev, "stopped_at_step", NAN), pf_off_num(ev, "budget", NAN), w, w > 32 ? w * 2 / 3 : w);
        else pf_off_note(o, "The parent timed out: width %ld -> %ld.", w, w > 32 ? w * 2 / 3 : w);
        acted = 1;
    }
    if (oc) lbfgs_trouble(o, spec, oc), acted = 1;
    if (isfinite(imb) && imb > 100) {
        pf_off_note(o, "Gradient norms of the terms differ by a factor %.3g.", imb);
        if (!pf_off_apply(o, OP_MODIFIED_MLP, spec)) pf_off_apply(o, OP_LR_ANNEALING, spec);
        acted = 1;
    }
    if (isfinite(red) && red < 100) {
        pf_off_note(o, "The loss fell only by a factor %.3g with %.0f parameters: more representational capacity.", red, params);
        pf_off_op_id ids[] = {OP_MODIFIED_MLP, OP_WIDER, OP_DEEPER, OP_FOURIER, OP_RWF};
        pf_off_apply_some(o, spec, ids, NUM(ids), 1, o->failed);
        acted = 1;
    }
    if (isfinite(stag) && stag > 0.2 * (double)pf_off_steps(p->spec)) {
        pf_off_note(o, "No 1%% improvement over the last %.0f steps: the optimizer schedule changes.", stag);
        pf_off_op_id ids[] = {OP_SCHEDULE, OP_LBFGS_TAIL, OP_ONE_CYCLE};
        pf_off_apply_some(o, spec, ids, NUM(ids), 1, o->failed);
        acted = 1;
    }
    if (!acted || json_equal(spec, p->spec))
        if (!pf_off_apply_some(o, spec, arch_pool, NUM(arch_pool), 1, o->failed)) pf_off_perturb_section(o, spec, 1);
    return spec;
}

/* ------------------------------------------------------ synthesis */

static double max_constraint_error(const json_t *ev)
{
    double m = 0;
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)json_object_get(ev, "constraint_errors"), k, v) if (json_is_number(v)) m =
        fmax(m, json_number_value(v));
    return json_object_get(ev, "constraint_errors") ? m : NAN;
}

static json_t *synthesis(pf_off *o)
{
    int np = o->escape || o->npar < 3 ? o->npar : 2 + pf_off_pick(o, 2);
    json_t *spec = json_deep_copy(o->par[0].spec);
    pf_off_note(o, "Synthesis: sections recombined from %d parents.", np);
    if (np < 2) {
        pf_off_apply_some(o, spec, arch_pool, NUM(arch_pool), 1, o->failed);
        pf_off_apply_some(o, spec, physics_pool, NUM(physics_pool), 1, o->failed);
        return spec;
    }
    /* rule donors, when evidence is visible */
    int phys = -1, arch = -1;
    if (o->feedback) {
        double bc = INFINITY, br = -1;
        for (int i = 0; i < np; i++) {
            const json_t *ev = o->par[i].evidence;
            double ce = max_constraint_error(ev), red = pf_off_num(ev, "loss_reduction", NAN);
            if (isfinite(ce) && ce < bc) bc = ce, phys = i;
            if (isfinite(red) && red > br) br = red, arch = i;
        }
    }
    /* physics sections (sampling, constraints, loss) from one parent, the
     * others from another one: by rule when evidence is visible, else drawn */
    int ruled = phys >= 0;
    if (phys < 0) phys = pf_off_pick(o, np);
    if (arch < 0 || arch == phys) arch = (phys + 1 + pf_off_pick(o, np - 1)) % np;
    int from[PF_SPEC_SECTIONS] = {0};
    for (int s = 0; s < PF_SPEC_SECTIONS - 1; s++) {
        from[s] = (s == 2 || s == 3 || s == 4) ? phys : arch;
        if (s != 4 && pf_off_chance(o, 0.2)) from[s] = pf_off_pick(o, np); /* an occasional swap */
    }
    from[4] = from[3]; /* loss weights follow the constraint handling */
    char line[PF_OFF_NOTE_LEN] = "";
    for (int s = 0; s < PF_SPEC_SECTIONS - 1; s++) {
        const char *nm = pf_spec_section_name(s);
        json_object_set_new(spec, nm, json_deep_copy(json_object_get(o->par[from[s]].spec, nm)));
        snprintf(line + strlen(line), sizeof line - strlen(line), "%s%s from parent %d", s ? ", " : "", nm, from[s] + 1);
    }
    if (ruled)
        pf_off_note(o, "%s (sampling, constraints and loss from parent %d, whose constraint errors are smallest).", line, phys + 1);
    else
        pf_off_note(o, "%s.", line);
    return spec;
}

/* ------------------------------------------------------ novelty */

static json_t *novelty(pf_off *o, json_t *spec, const char *what)
{
    json_t *used = json_array();
    for (int i = 0; i < o->npar; i++) {
        json_t *m = pf_offline_mechanisms(o->par[i].spec);
        json_array_extend(used, m);
        json_decref(m);
    }
    if (o->escape || !o->npar) json_array_extend(used, o->tried);
    pf_off_op_id pool[OP_COUNT];
    int n = 0;
    for (int id = 0; id < OP_COUNT; id++) {
        const pf_off_op *op = pf_off_op_get((pf_off_op_id)id);
        if (op->mech && !pf_off_json_has_string(used, op->mech) && !pf_off_json_has_string(o->failed, op->mech) &&
            op->applicable(o, spec))
            pool[n++] = (pf_off_op_id)id;
    }
    json_decref(used);
    int want = o->escape ? 3 + pf_off_pick(o, 2) : 2 + pf_off_pick(o, 2), done = 0, secs[PF_SPEC_SECTIONS] = {0};
    pf_off_note(o, "Novelty: %d mechanisms that %s do not use yet.", want, what);
    for (int tries = 0; tries < 3 * OP_COUNT && done < want && n; tries++) {
        int i = pf_off_pick(o, n);
        const pf_off_op *op = pf_off_op_get(pool[i]);
        if (!secs[op->section] && pf_off_apply_some(o, spec, &pool[i], 1, 1, o->failed)) secs[op->section] = 1, done++;
        pool[i] = pool[--n];
    }
    if (!done) pf_off_perturb_section(o, spec, pf_off_pick(o, 6));
    return spec;
}

/* ------------------------------------------------------ no parents */

static json_t *from_memory(pf_off *o, int strategy)
{
    json_t *spec = pf_spec_example_budget(o->pde, o->budget, o->fid);
    pf_off_note(o, "%s without parents (independent generation): PINNacle's default for %s plus the memory's best mechanisms.",
                strategy_names[strategy], o->pde->name);
    int n = 0;
    for (int id = 0; id < OP_COUNT && n < (strategy == 3 ? 4 : 2); id++) {
        const pf_off_op *op = pf_off_op_get((pf_off_op_id)id);
        if (op->mech && pf_off_json_has_string(o->good, op->mech)) n += pf_off_apply(o, (pf_off_op_id)id, spec);
    }
    switch (strategy) {
    case 1: pf_off_apply_some(o, spec, physics_pool, NUM(physics_pool), 2, o->failed); break;
    case 2: pf_off_apply_some(o, spec, arch_pool, NUM(arch_pool), 2, o->failed); break;
    case 4: return novelty(o, spec, "earlier candidates");
    default: small_step(o, spec); break;
    }
    return spec;
}

json_t *pf_off_strategy(pf_off *o, int strategy)
{
    if (!o->npar) return from_memory(o, strategy);
    switch (strategy) {
    case 0: return refine(o);
    case 1: return physics_guided(o);
    case 2: return architecture_guided(o);
    case 3: return synthesis(o);
    default: return novelty(o, json_deep_copy(o->par[0].spec), "the parents");
    }
}

/* ------------------------------------------------------ escape */

/* The first mechanism of norm that the memory lists as failed, into buf. */
static int has_failed_mechanism(const pf_off *o, const json_t *norm, char *buf, size_t cap)
{
    json_t *m = pf_offline_mechanisms(norm);
    size_t i;
    json_t *v;
    int bad = 0;
    json_array_foreach(m, i, v) if (!bad && pf_off_json_has_string(o->failed, json_string_value(v))) {
        snprintf(buf, cap, "%s", json_string_value(v));
        bad = 1;
    }
    json_decref(m);
    return bad;
}

json_t *pf_off_enforce_escape(pf_off *o, json_t *norm)
{
    for (int round = 0; round < 24; round++) {
        char fm[64];
        int worst = -1, wd = 99;
        for (int i = 0; i < o->npar; i++) {
            int d = pf_spec_sections_differing(norm, o->par[i].spec, PF_SPEC_SECTIONS - 1);
            if (d < wd) wd = d, worst = i;
        }
        int bad = has_failed_mechanism(o, norm, fm, sizeof fm);
        if (wd >= 2 && !bad) return norm;
        json_t *cand = json_deep_copy(norm);
        if (bad) {
            pf_off_remove_mechanism(o, cand, fm);
            pf_off_note(o, "Escape: %s is dropped because the memory lists it among the failures.", fm);
        } else {
            /* a section still equal to the closest parent's, at random */
            int same[PF_SPEC_SECTIONS], ns = 0;
            for (int s = 0; s < PF_SPEC_SECTIONS - 1; s++)
                if (json_equal(json_object_get(norm, pf_spec_section_name(s)),
                               json_object_get(o->par[worst].spec, pf_spec_section_name(s))))
                    same[ns++] = s;
            if (!ns) break;
            int s = same[pf_off_pick(o, ns)];
            if (o->nnotes < PF_OFF_MAX_NOTES - 1)
                pf_off_note(o, "Escape: %s also changes, so the design leaves parent %d's neighbourhood.", pf_spec_section_name(s),
                            worst + 1);
            pf_off_perturb_section(o, cand, s);
        }
        int fb;
        json_t *next = pf_off_validate(o, cand, norm, &fb);
        json_decref(norm);
        norm = next;
    }
    return norm;
}
