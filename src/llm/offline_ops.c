/*
 * offline_ops.c — the operator table of the offline rule-based proposer.
 *
 * An operator introduces one mechanism into a working spec (Fourier
 * features, a periodic embedding, RAD, a hard transform, causal weighting,
 * an Adam -> L-BFGS split, ...), draws its free parameters from o->rng
 * among a few values the literature uses, and writes one rationale note
 * saying why (PDE tags, knowledge, evidence are mentioned by the caller's
 * note; the operator names what it did). Roles and strategies are lists of
 * operator ids over this table; pf_off_op_weight() ranks them by PDE tags,
 * retrieved knowledge and the memory's good and failed mechanisms.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llm/offline.h"
#include "llm/offline_impl.h"
#include "nn/model.h"

#define NUM(a) ((int)(sizeof(a) / sizeof((a)[0])))

static void set_int(json_t *o, const char *k, long v) { json_object_set_new(o, k, json_integer(v)); }
static void set_real(json_t *o, const char *k, double v) { json_object_set_new(o, k, json_real(v)); }
static void set_str(json_t *o, const char *k, const char *v) { json_object_set_new(o, k, json_string(v)); }
static void set_bool(json_t *o, const char *k, int v) { json_object_set_new(o, k, json_boolean(v)); }

static double pickd(pf_off *o, const double *v, int n) { return v[pf_off_pick(o, n)]; }
static long pickl(pf_off *o, const long *v, int n) { return v[pf_off_pick(o, n)]; }
#define PICKD(o, ...) pickd((o), (const double[]){__VA_ARGS__}, NUM(((const double[]){__VA_ARGS__})))
#define PICKL(o, ...) pickl((o), (const long[]){__VA_ARGS__}, NUM(((const long[]){__VA_ARGS__})))

static json_t *REPR(json_t *s) { return pf_off_sec(s, PF_SK(REPR)); }
static json_t *ARCH(json_t *s) { return pf_off_sec(s, PF_SK(ARCH)); }
static json_t *SAMP(json_t *s) { return pf_off_sec(s, PF_SK(SAMP)); }
static json_t *LOSS(json_t *s) { return pf_off_sec(s, PF_SK(LOSS)); }
static json_t *STAGES(json_t *s)
{
    json_t *o = pf_off_sec(s, PF_SK(OPT)), *a = json_object_get(o, PF_SK(OPT_STAGES));
    if (!json_is_array(a)) {
        a = json_array();
        json_object_set_new(o, PF_SK(OPT_STAGES), a);
    }
    return a;
}

static long budget(const pf_off *o) { return o->budget->steps[o->fid]; }

static int is_adam(const json_t *st)
{
    const char *k = pf_off_str(st, PF_SK(STAGE_OPTIMIZER), "adam");
    return !strcmp(k, "adam") || !strcmp(k, "adamw");
}

/* A stage of gradient steps with a schedule: every optimizer but lbfgs
 * (adam, adamw, sgd, multiadam). */
static int is_gradient(const json_t *st)
{
    return strcmp(pf_off_str(st, PF_SK(STAGE_OPTIMIZER), "adam"), "lbfgs") != 0;
}

/* A stage with a grad_clip key: adam, adamw, sgd (not multiadam, not lbfgs). */
static int has_clip(const json_t *st)
{
    return is_adam(st) || !strcmp(pf_off_str(st, PF_SK(STAGE_OPTIMIZER), ""), "sgd");
}

/* Points other than the interior, for the point limit. */
static long other_points(json_t *spec)
{
    json_t *s = SAMP(spec);
    return (long)pf_off_num(s, PF_SK(SAMP_BOUNDARY), 0) + (long)pf_off_num(s, PF_SK(SAMP_INITIAL), 0);
}

/* ------------------------------------------------------ applicability */

static int always(const pf_off *o, const json_t *s) { (void)o, (void)s; return 1; }
static int time_dep(const pf_off *o, const json_t *s) { (void)s; return o->pde->time_input >= 0; }
static int has_period(const pf_off *o, const json_t *s)
{
    (void)s;
    for (int i = 0; i < o->pde->d_in; i++)
        if (o->pde->period[i] > 0) return 1;
    return 0;
}
static int has_hard(const pf_off *o, const json_t *s) { return o->pde->nhard > 0 && pf_off_hard_index(s, o->pde) < 0; }
static int has_boundary(const pf_off *o, const json_t *s)
{
    (void)s;
    for (int i = 0; i < o->pde->ncon; i++)
        if (!pf_constraint_on_initial(&o->pde->con[i]) && o->pde->con[i].kind != PF_CON_POINTS &&
            !pf_constraint_in_interior(&o->pde->con[i]))
            return 1;
    return 0;
}
static int has_obs(const pf_off *o, const json_t *s)
{
    (void)s;
    for (int i = 0; i < o->pde->ncon; i++)
        if (o->pde->con[i].kind == PF_CON_POINTS && o->pde->con[i].observe) return 1;
    return 0;
}
static int has_soft_constraint(const pf_off *o, const json_t *s)
{
    const char *n[PF_PDE_MAX_CONSTRAINTS + 1];
    return pf_off_active_terms(s, o->pde, n, PF_PDE_MAX_CONSTRAINTS + 1) > 1;
}

/* ------------------------------------------------------ representation */

static int op_normalize(pf_off *o, json_t *spec)
{
    if (json_is_true(json_object_get(REPR(spec), PF_SK(REPR_NORMALIZE)))) return 0;
    set_bool(REPR(spec), PF_SK(REPR_NORMALIZE), 1);
    pf_off_note(o, "Inputs normalized to [-1, 1] so that every coordinate of the %s domain enters the first layer at a comparable scale.",
                o->pde->name);
    return 1;
}

static int op_fourier(pf_off *o, json_t *spec)
{
    json_t *f = pf_off_obj(REPR(spec), PF_SK(REPR_FOURIER));
    if (pf_off_field_num(f, PF_SK_REPR_FOURIER_FEATURES) > 0) return 0;
    long m = PICKL(o, 32, 64, 128);
    double sigma = pf_off_has_tag(o, PF_TAG_MULTISCALE) ? PICKD(o, 2.0, 5.0, 10.0) : PICKD(o, 1.0, 2.0, 3.0);
    set_int(f, PF_SK(REPR_FOURIER_FEATURES), m);
    set_real(f, PF_SK(REPR_FOURIER_SIGMA), sigma);
    set_int(f, PF_SK(REPR_FOURIER_SCALES), 1);
    int tr = pf_off_chance(o, 0.25);
    set_bool(f, PF_SK(REPR_FOURIER_TRAINABLE), tr);
    pf_off_note(o, "Random Fourier features (m = %ld, sigma = %g%s) to counter the spectral bias of a plain MLP.", m, sigma,
                tr ? ", trainable" : "");
    return 1;
}

static int op_multiscale(pf_off *o, json_t *spec)
{
    json_t *f = pf_off_obj(REPR(spec), PF_SK(REPR_FOURIER));
    if (pf_off_field_num(f, PF_SK_REPR_FOURIER_SCALES) > 1) return 0;
    long m = PICKL(o, 64, 128), sc = PICKL(o, 2, 3);
    double ratio = PICKD(o, 5.0, 10.0);
    set_int(f, PF_SK(REPR_FOURIER_FEATURES), m);
    set_real(f, PF_SK(REPR_FOURIER_SIGMA), 1.0);
    set_int(f, PF_SK(REPR_FOURIER_SCALES), sc);
    set_real(f, PF_SK(REPR_FOURIER_RATIO), ratio);
    pf_off_note(o, "Multiscale Fourier features (%ld features in %ld scales, ratio %g) so that both the coarse and the fine scales are representable.",
                m, sc, ratio);
    return 1;
}

static int op_periodic(pf_off *o, json_t *spec)
{
    json_t *p = pf_off_obj(REPR(spec), PF_SK(REPR_PERIODIC));
    if (json_array_size(json_object_get(p, PF_SK(REPR_PERIODIC_INPUTS))) > 0) return 0;
    json_t *in = json_array();
    char list[128] = "";
    for (int i = 0; i < o->pde->d_in; i++)
        if (o->pde->period[i] > 0) {
            json_array_append_new(in, json_string(o->pde->inputs[i]));
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", *list ? ", " : "", o->pde->inputs[i]);
        }
    long h = PICKL(o, 1, 2, 3, 4);
    json_object_set_new(p, PF_SK(REPR_PERIODIC_INPUTS), in);
    set_int(p, PF_SK(REPR_PERIODIC_HARMONICS), h);
    pf_off_note(o, "Exact periodic embedding on %s (%ld harmonics): periodicity holds by construction instead of as a penalty.", list, h);
    return 1;
}

/* ------------------------------------------------------ architecture */

static int op_act_sin(pf_off *o, json_t *spec)
{
    if (!strcmp(pf_off_field_str(ARCH(spec), PF_SK_ARCH_ACTIVATION), "sin")) return 0;
    set_str(ARCH(spec), PF_SK(ARCH_ACTIVATION), "sin");
    pf_off_note(o, "sin activations, which suit oscillatory solutions and pair well with Fourier-type inputs.");
    return 1;
}

static int op_act_smooth(pf_off *o, json_t *spec)
{
    static const char *const acts[] = {"silu", "gelu", "softplus"};
    char cur[32];
    snprintf(cur, sizeof cur, "%s", pf_off_field_str(ARCH(spec), PF_SK_ARCH_ACTIVATION));
    int k = pf_off_pick(o, 3);
    if (!strcmp(cur, acts[k])) k = (k + 1 + pf_off_pick(o, 2)) % 3;
    const char *a = acts[k];
    set_str(ARCH(spec), PF_SK(ARCH_ACTIVATION), a);
    pf_off_note(o, "%s activations instead of %s: smooth, non-saturating, a less common choice worth testing.", a, cur);
    return 1;
}

/* The architecture section's type (nn/archs.def); NULL when it names none. */
static const pf_arch_def *arch_of(const json_t *a) { return pf_arch_named(pf_off_field_str(a, PF_SK_ARCH_TYPE)); }

/* Switch the network to `arch`, depth one of `depths` (three) and width 64,
 * 100 or 128; 0 when it is that architecture already. */
static int set_arch(pf_off *o, json_t *a, pf_arch arch, const long *depths, long *d, long *w)
{
    const pf_arch_def *def = pf_arch_def_of(arch);
    if (arch_of(a) == def) return 0;
    *d = pickl(o, depths, 3);
    *w = PICKL(o, 64, 100, 128);
    set_str(a, PF_SK(ARCH_TYPE), def->name);
    set_int(a, PF_SK(ARCH_DEPTH), *d);
    set_int(a, PF_SK(ARCH_WIDTH), *w);
    return 1;
}

static int op_modified_mlp(pf_off *o, json_t *spec)
{
    long d, w;
    if (!set_arch(o, ARCH(spec), PF_ARCH_MODIFIED_MLP, (const long[]){4, 5, 6}, &d, &w)) return 0;
    pf_off_note(o, "modified_mlp (%ld x %ld): its gating encoders improve gradient flow across the loss terms.", d, w);
    return 1;
}

static int op_resnet(pf_off *o, json_t *spec)
{
    long d, w;
    if (!set_arch(o, ARCH(spec), PF_ARCH_RESNET, (const long[]){2, 3, 4}, &d, &w)) return 0;
    pf_off_note(o, "resnet with %ld residual blocks of width %ld: deeper effective networks that still train stably.", d, w);
    return 1;
}

static int op_wider(pf_off *o, json_t *spec)
{
    json_t *a = ARCH(spec);
    long w = (long)pf_off_field_num(a, PF_SK_ARCH_WIDTH), nw = (long)(w * PICKD(o, 1.5, 2.0));
    if (nw > 512) nw = 512;
    if (nw <= w) return 0;
    set_int(a, PF_SK(ARCH_WIDTH), nw);
    pf_off_note(o, "Width %ld -> %ld for more capacity (well inside the 2M-parameter limit).", w, nw);
    return 1;
}

static int op_deeper(pf_off *o, json_t *spec)
{
    json_t *a = ARCH(spec);
    const pf_arch_def *def = arch_of(a);
    if (!def) return 0;
    long cap = def->deeper_cap;
    long d = (long)pf_off_field_num(a, PF_SK_ARCH_DEPTH), nd = d + PICKL(o, 1, 2);
    if (nd > cap) nd = cap;
    if (nd <= d) return 0;
    set_int(a, PF_SK(ARCH_DEPTH), nd);
    pf_off_note(o, "Depth %ld -> %ld for a richer composition of features.", d, nd);
    return 1;
}

static int op_rwf(pf_off *o, json_t *spec)
{
    json_t *a = ARCH(spec);
    if (json_is_true(json_object_get(a, PF_SK(ARCH_RWF)))) return 0;
    set_bool(a, PF_SK(ARCH_RWF), 1);
    set_str(a, PF_SK(ARCH_INIT), "glorot_normal");
    set_real(a, PF_SK(ARCH_RWF_MEAN), PICKD(o, 0.5, 1.0));
    set_real(a, PF_SK(ARCH_RWF_SIGMA), 0.1);
    pf_off_note(o, "Random weight factorization, which speeds up the fitting of high-frequency components.");
    return 1;
}

/* An adaptive activation of `kind` (layerwise: LAAF, global: GAAF) with
 * scale n = 5 or 10, when the spec has none. */
static int set_adaptive(pf_off *o, json_t *spec, const char *kind)
{
    json_t *a = ARCH(spec);
    if (strcmp(pf_off_field_str(a, PF_SK_ARCH_ADAPTIVE), "none")) return 0;
    double n = PICKD(o, 5.0, 10.0);
    set_str(a, PF_SK(ARCH_ADAPTIVE), kind);
    set_real(a, PF_SK(ARCH_ADAPT_FACTOR), n);
    if (!strcmp(kind, "global"))
        pf_off_note(o, "A global adaptive activation slope (n = %g): one trainable parameter that rescales every hidden "
                    "layer's pre-activations, a cheap way to speed up early convergence.", n);
    else
        pf_off_note(o, "Layer-wise adaptive activation slopes (n = %g) to accelerate early convergence.", n);
    return 1;
}

static int op_adaptive_act(pf_off *o, json_t *spec) { return set_adaptive(o, spec, "layerwise"); }

/* The highest derivative order the PDE's residuals need along any input. */
static int max_order(const pf_pde *p)
{
    int m = 0;
    for (int i = 0; i < p->d_in; i++) m = p->orders[i] > m ? p->orders[i] : m;
    return m;
}

/* A ReLU-family activation with Kaiming (He) normal initialisation, the
 * pairing that keeps the variance of such layers' outputs (PINNsAgent's
 * search space has both). relu only where the residual is first order:
 * its second derivative vanishes, so a relu network has no u_xx to fit;
 * elu and selu keep every derivative on their exponential branch. Not with
 * random weight factorization, which needs glorot_normal. */
static int op_relu_he(pf_off *o, json_t *spec)
{
    json_t *a = ARCH(spec);
    if (json_is_true(json_object_get(a, PF_SK(ARCH_RWF)))) return 0;
    static const char *const acts[] = {"elu", "selu", "relu"};
    int n = max_order(o->pde) <= 1 ? 3 : 2;
    const char *act = acts[pf_off_pick(o, n)];
    if (!strcmp(pf_off_field_str(a, PF_SK_ARCH_ACTIVATION), act) &&
        !strcmp(pf_off_field_str(a, PF_SK_ARCH_INIT), "he_normal"))
        return 0;
    set_str(a, PF_SK(ARCH_ACTIVATION), act);
    set_str(a, PF_SK(ARCH_INIT), "he_normal");
    pf_off_note(o, "%s activations with He (Kaiming) normal initialization N(0, 2/fan_in): non-saturating units whose "
                "signal keeps its scale through the layers%s.",
                act, n == 3 ? "" : " (not relu: its second derivative vanishes, and this PDE needs one)");
    return 1;
}

/* Global adaptive activation (GAAF): one trainable slope for every hidden
 * layer instead of one per layer. */
static int op_global_adaptive(pf_off *o, json_t *spec) { return set_adaptive(o, spec, "global"); }

/* ------------------------------------------------------ sampling */

static long every_steps(const pf_off *o, long low)
{
    long e = low * budget(o) / PF_SPEC_BUDGET_LOW; /* periods scale with the step budget */
    return e < 10 ? 10 : e;
}

static int op_rad(pf_off *o, json_t *spec)
{
    json_t *s = SAMP(spec);
    if (!strcmp(pf_off_field_str(json_object_get(s, PF_SK(SAMP_ADAPTIVE)), PF_SK_SAMP_ADAPTIVE_METHOD), "rad"))
        return 0;
    double k = PICKD(o, 1.0, 2.0), c = PICKD(o, 0.5, 1.0);
    long every = every_steps(o, PICKL(o, 50, 100, 200));
    json_object_set_new(s, PF_SK(SAMP_ADAPTIVE),
                        json_pack("{s:s,s:f,s:f,s:I}", PF_SK(SAMP_ADAPTIVE_METHOD), "rad", PF_SK(SAMP_ADAPTIVE_RAD_K),
                                  k, PF_SK(SAMP_ADAPTIVE_RAD_C), c, PF_SK(SAMP_ADAPTIVE_RAD_EVERY), (json_int_t)every));
    set_int(s, PF_SK(SAMP_RESAMPLE_EVERY), 0);
    pf_off_note(o, "RAD adaptive sampling (k = %g, c = %g, every %ld steps) to put collocation points where the residual is large.", k,
                c, every);
    return 1;
}

static int op_rar_d(pf_off *o, json_t *spec)
{
    json_t *s = SAMP(spec);
    if (!strcmp(pf_off_field_str(json_object_get(s, PF_SK(SAMP_ADAPTIVE)), PF_SK_SAMP_ADAPTIVE_METHOD), "rar_d"))
        return 0;
    long in = (long)pf_off_field_num(s, PF_SK_SAMP_INTERIOR), add = PICKL(o, 100, 200, 500);
    long every = every_steps(o, PICKL(o, 100, 200));
    long cap = in + add * (budget(o) / every);
    long room = o->budget->max_points - other_points(spec);
    if (cap > room) cap = room;
    if (cap < in) cap = in;
    json_object_set_new(s, PF_SK(SAMP_ADAPTIVE),
                        json_pack("{s:s,s:f,s:f,s:I,s:I,s:I}", PF_SK(SAMP_ADAPTIVE_METHOD), "rar_d",
                                  PF_SK(SAMP_ADAPTIVE_RAR_D_K), 2.0, PF_SK(SAMP_ADAPTIVE_RAR_D_C), 0.0,
                                  PF_SK(SAMP_ADAPTIVE_RAR_D_EVERY), (json_int_t)every, PF_SK(SAMP_ADAPTIVE_RAR_D_ADD),
                                  (json_int_t)add, PF_SK(SAMP_ADAPTIVE_RAR_D_CAP), (json_int_t)cap));
    pf_off_note(o, "RAR-D refinement (add %ld points every %ld steps, up to %ld) to resolve steep, localized features.", add, every,
                cap);
    return 1;
}

static int set_method(pf_off *o, json_t *spec, const char *m)
{
    json_t *s = SAMP(spec);
    if (!strcmp(pf_off_field_str(s, PF_SK_SAMP_METHOD), m)) return 0;
    set_str(s, PF_SK(SAMP_METHOD), m);
    pf_off_note(o, "%s collocation points: lower-discrepancy coverage than uniform random draws.", m);
    return 1;
}
static int op_sobol(pf_off *o, json_t *spec) { return set_method(o, spec, "sobol"); }
static int op_lhs(pf_off *o, json_t *spec) { return set_method(o, spec, "lhs"); }
static int op_hammersley(pf_off *o, json_t *spec) { return set_method(o, spec, "hammersley"); }

static int op_resample(pf_off *o, json_t *spec)
{
    json_t *s = SAMP(spec);
    if (pf_off_field_num(s, PF_SK_SAMP_RESAMPLE_EVERY) > 0 ||
        !strcmp(pf_off_field_str(json_object_get(s, PF_SK(SAMP_ADAPTIVE)), PF_SK_SAMP_ADAPTIVE_METHOD), "rad"))
        return 0;
    long e = every_steps(o, PICKL(o, 100, 250));
    set_int(s, PF_SK(SAMP_RESAMPLE_EVERY), e);
    pf_off_note(o, "Points redrawn every %ld steps, so the residual is controlled everywhere rather than on one fixed set.", e);
    return 1;
}

static int grow(pf_off *o, json_t *spec, pf_spec_key k, long max, const char *why)
{
    json_t *s = SAMP(spec);
    const char *key = pf_spec_key_name(k);
    long v = (long)pf_off_num(s, key, 0), nv = (long)(v * PICKD(o, 1.5, 2.0));
    long in = (long)pf_off_num(s, PF_SK(SAMP_INTERIOR), 0);
    long total = in + (long)pf_off_num(s, PF_SK(SAMP_BOUNDARY), 0) + (long)pf_off_num(s, PF_SK(SAMP_INITIAL), 0);
    if (!strcmp(pf_off_field_str(json_object_get(s, PF_SK(SAMP_ADAPTIVE)), PF_SK_SAMP_ADAPTIVE_METHOD), "rar_d"))
        total += (long)pf_off_num(json_object_get(s, PF_SK(SAMP_ADAPTIVE)), PF_SK(SAMP_ADAPTIVE_RAR_D_CAP), in) - in;
    if (nv > max) nv = max;
    if (nv > v + (o->budget->max_points - total)) nv = v + (o->budget->max_points - total);
    if (v <= 0 || nv <= v) return 0;
    set_int(s, key, nv);
    json_t *a = json_object_get(s, PF_SK(SAMP_ADAPTIVE));
    if (k == PF_SK_SAMP_INTERIOR && !strcmp(pf_off_field_str(a, PF_SK_SAMP_ADAPTIVE_METHOD), "rar_d")) {
        /* keep RAR-D's headroom: the cap moves with the interior set */
        long cap = (long)pf_off_num(a, PF_SK(SAMP_ADAPTIVE_RAR_D_CAP), nv) + (nv - v);
        set_int(a, PF_SK(SAMP_ADAPTIVE_RAR_D_CAP), cap);
        pf_off_note(o, "%s points %ld -> %ld %s (RAR-D cap moved to %ld).", key, v, nv, why, cap);
        return 1;
    }
    pf_off_note(o, "%s points %ld -> %ld %s.", key, v, nv, why);
    return 1;
}
static int op_more_interior(pf_off *o, json_t *spec)
{
    return grow(o, spec, PF_SK_SAMP_INTERIOR, 32768, "for a denser residual sampling");
}
static int op_more_boundary(pf_off *o, json_t *spec)
{
    return grow(o, spec, PF_SK_SAMP_BOUNDARY, 8192, "so that the boundary conditions are enforced on a finer sample");
}
static int op_more_initial(pf_off *o, json_t *spec)
{
    return grow(o, spec, PF_SK_SAMP_INITIAL, 8192, "to pin the initial condition down");
}

/* ------------------------------------------------------ constraints */

int pf_off_best_transform(const pf_pde *p, const char *term)
{
    int best = -1, bn = -1;
    for (int h = 0; h < p->nhard; h++) {
        if (term && !pf_hard_satisfies(&p->hard[h], term)) continue;
        int n = 0;
        for (int i = 0; i < p->ncon; i++) n += pf_hard_satisfies(&p->hard[h], p->con[i].name);
        if (n > bn) best = h, bn = n;
    }
    return best;
}

static int op_hard(pf_off *o, json_t *spec)
{
    if (!has_hard(o, spec)) return 0;
    int h = pf_off_best_transform(o->pde, NULL); /* has_hard: nhard > 0, so h >= 0 */
    json_object_set_new(
        spec, PF_SK(CONS),
        json_pack("{s:s,s:s}", PF_SK(CONS_MODE), "hard", PF_SK(CONS_HARD_TRANSFORM), o->pde->hard[h].name));
    pf_off_fit_weights(spec, o->pde);
    pf_off_note(o, "Hard constraints with the '%s' transform, which satisfies %s exactly and removes those terms from the loss.",
                o->pde->hard[h].name, o->pde->hard[h].satisfies);
    return 1;
}

/* ------------------------------------------------------ loss */

static int op_causal(pf_off *o, json_t *spec)
{
    json_t *l = LOSS(spec);
    if (json_is_true(json_object_get(json_object_get(l, PF_SK(LOSS_CAUSAL)), PF_SK(LOSS_CAUSAL_ENABLED)))) return 0;
    double eps = PICKD(o, 0.5, 1.0, 5.0);
    long ch = PICKL(o, 16, 32);
    json_object_set_new(l, PF_SK(LOSS_CAUSAL),
                        json_pack("{s:b,s:f,s:I}", PF_SK(LOSS_CAUSAL_ENABLED), 1, PF_SK(LOSS_CAUSAL_EPSILON), eps,
                                  PF_SK(LOSS_CAUSAL_CHUNKS), (json_int_t)ch));
    pf_off_note(o, "Causal weighting (epsilon = %g, %ld time chunks) so that later times are trained only once earlier ones are resolved.",
                eps, ch);
    return 1;
}

static int op_raise_constraints(pf_off *o, json_t *spec)
{
    const char *n[PF_PDE_MAX_CONSTRAINTS + 1];
    int k = pf_off_active_terms(spec, o->pde, n, PF_PDE_MAX_CONSTRAINTS + 1);
    if (k < 2) return 0;
    json_t *w = pf_off_obj(LOSS(spec), PF_SK(LOSS_WEIGHTS));
    double f = PICKD(o, 5.0, 10.0);
    for (int i = 1; i < k; i++)
        set_real(w, n[i], fmin(1e6, pf_off_num(w, n[i], pf_spec_default_num(PF_SK_PATH(LOSS_WEIGHTS))) * f));
    pf_off_note(o, "Constraint weights x%g relative to the residual: initial and boundary data anchor the solution.", f);
    return 1;
}

static int op_obs_weight(pf_off *o, json_t *spec)
{
    json_t *w = pf_off_obj(LOSS(spec), PF_SK(LOSS_WEIGHTS));
    double f = PICKD(o, 10.0, 100.0);
    int any = 0;
    for (int i = 0; i < o->pde->ncon; i++)
        if (o->pde->con[i].kind == PF_CON_POINTS && o->pde->con[i].observe && json_object_get(w, o->pde->con[i].name)) {
            set_real(w, o->pde->con[i].name,
                     fmin(1e6, pf_off_num(w, o->pde->con[i].name, pf_spec_default_num(PF_SK_PATH(LOSS_WEIGHTS))) * f));
            any = 1;
        }
    if (any) pf_off_note(o, "Observation terms weighted x%g: in this inverse problem the data identify the unknown field.", f);
    return any;
}

static int set_weighting(pf_off *o, json_t *spec, json_t *w, const char *why)
{
    json_t *l = LOSS(spec);
    const char *m = json_string_value(json_object_get(w, PF_SK(LOSS_WEIGHTING_METHOD)));
    if (!strcmp(pf_off_field_str(json_object_get(l, PF_SK(LOSS_WEIGHTING)), PF_SK_LOSS_WEIGHTING_METHOD), m)) {
        json_decref(w);
        return 0;
    }
    json_object_set_new(l, PF_SK(LOSS_WEIGHTING), w);
    pf_off_note(o, "%s loss weighting %s.", m, why);
    return 1;
}
static int op_lr_annealing(pf_off *o, json_t *spec)
{
    return set_weighting(o, spec,
                         json_pack("{s:s,s:f,s:I}", PF_SK(LOSS_WEIGHTING_METHOD), "lr_annealing",
                                   PF_SK(LOSS_WEIGHTING_LR_ANNEALING_ALPHA), 0.9,
                                   PF_SK(LOSS_WEIGHTING_LR_ANNEALING_EVERY), (json_int_t)PICKL(o, 10, 50)),
                         "to balance the gradients of the residual and the constraint terms");
}
static int op_self_adaptive(pf_off *o, json_t *spec)
{
    return set_weighting(o, spec,
                         json_pack("{s:s,s:f}", PF_SK(LOSS_WEIGHTING_METHOD), "self_adaptive",
                                   PF_SK(LOSS_WEIGHTING_SELF_ADAPTIVE_LR), PICKD(o, 0.001, 0.005, 0.01)),
                         "so that hard-to-fit points receive more weight during training");
}

static int op_resnorm(pf_off *o, json_t *spec)
{
    json_t *l = LOSS(spec);
    if (!strcmp(pf_off_field_str(l, PF_SK_LOSS_RESIDUAL_NORMALIZATION), "initial")) return 0;
    set_str(l, PF_SK(LOSS_RESIDUAL_NORMALIZATION), "initial");
    pf_off_note(o, "Every loss term divided by its initial value, so that terms of very different magnitudes start on equal footing.");
    return 1;
}

/* ------------------------------------------------------ optimization */

static int op_adamw(pf_off *o, json_t *spec)
{
    size_t i;
    json_t *st;
    int any = 0;
    double wd = PICKD(o, 1e-5, 1e-4, 1e-3);
    json_array_foreach(STAGES(spec), i, st) if (!strcmp(pf_off_str(st, PF_SK(STAGE_OPTIMIZER), ""), "adam")) {
        set_str(st, PF_SK(STAGE_OPTIMIZER), "adamw");
        set_real(st, PF_SK(STAGE_ADAM_WEIGHT_DECAY), wd);
        any = 1;
    }
    if (any) pf_off_note(o, "AdamW (decoupled weight decay %g) for better-conditioned late training.", wd);
    return any;
}

static json_t *first_adam(json_t *spec)
{
    size_t i;
    json_t *st;
    json_array_foreach(STAGES(spec), i, st) if (is_gradient(st)) return st;
    return NULL;
}

/* MultiAdam in place of Adam: separate moments for the residual and for
 * the other terms, so neither group's gradient scale dominates the step.
 * Only with a soft constraint term left (else there is one group). The
 * keys MultiAdam lacks go (weight_decay, grad_clip), betas take its default
 * (0.99, 0.99). */
static int op_multiadam(pf_off *o, json_t *spec)
{
    size_t i;
    json_t *st;
    int any = 0;
    json_array_foreach(STAGES(spec), i, st) if (!strcmp(pf_off_str(st, PF_SK(STAGE_OPTIMIZER), ""), "adam")) {
        set_str(st, PF_SK(STAGE_OPTIMIZER), "multiadam");
        json_object_del(st, PF_SK(STAGE_ADAM_WEIGHT_DECAY));
        json_object_del(st, PF_SK(STAGE_ADAM_GRAD_CLIP));
        json_object_del(st, PF_SK(STAGE_ADAM_BETAS));
        any = 1;
    }
    if (any)
        pf_off_note(o, "MultiAdam (betas 0.99, 0.99) in place of Adam: separate moment estimates for the residual and for "
                    "the constraint terms, so each group's step is scale-invariant and neither dominates the update.");
    return any;
}

static int op_schedule(pf_off *o, json_t *spec)
{
    json_t *st = first_adam(spec);
    if (!st) return 0;
    char cur[32];
    snprintf(cur, sizeof cur, "%s",
             pf_off_field_str(json_object_get(st, PF_SK(STAGE_ADAM_SCHED)), PF_SK_STAGE_ADAM_SCHED_KIND));
    long steps = (long)pf_off_num(st, PF_SK(STAGE_ADAM_STEPS), 1000);
    double lr = pf_off_field_num(st, PF_SK_STAGE_ADAM_LR);
    static const char *const kinds[] = {"cosine", "exponential", "step"};
    int k = pf_off_pick(o, 3);
    if (!strcmp(kinds[k], cur)) k = (k + 1) % 3;
    json_t *s;
    if (k == 0)
        s = json_pack("{s:s,s:f,s:I}", PF_SK(STAGE_ADAM_SCHED_KIND), "cosine", PF_SK(STAGE_ADAM_SCHED_COSINE_LR_MIN),
                      lr / 100, PF_SK(STAGE_ADAM_SCHED_COSINE_WARMUP_STEPS),
                      (json_int_t)(pf_off_chance(o, 0.5) ? steps / 20 : 0));
    else if (k == 1)
        s = json_pack("{s:s,s:f,s:I}", PF_SK(STAGE_ADAM_SCHED_KIND), "exponential",
                      PF_SK(STAGE_ADAM_SCHED_EXPONENTIAL_GAMMA), PICKD(o, 0.1, 0.3),
                      PF_SK(STAGE_ADAM_SCHED_EXPONENTIAL_DECAY_STEPS), (json_int_t)(steps > 0 ? steps : 1));
    else
        s = json_pack("{s:s,s:f,s:I}", PF_SK(STAGE_ADAM_SCHED_KIND), "step", PF_SK(STAGE_ADAM_SCHED_STEP_GAMMA), 0.5,
                      PF_SK(STAGE_ADAM_SCHED_STEP_STEP_SIZE), (json_int_t)(steps / 4 > 0 ? steps / 4 : 1));
    json_object_set_new(st, PF_SK(STAGE_ADAM_SCHED), s);
    pf_off_note(o, "Learning-rate schedule %s (was %s) so that the late steps refine instead of oscillating.", kinds[k], cur);
    return 1;
}

static int op_one_cycle(pf_off *o, json_t *spec)
{
    json_t *st = first_adam(spec);
    if (!st || !strcmp(pf_off_field_str(json_object_get(st, PF_SK(STAGE_ADAM_SCHED)), PF_SK_STAGE_ADAM_SCHED_KIND),
                       "one_cycle"))
        return 0;
    double peak = PICKD(o, 2e-3, 5e-3);
    set_real(st, PF_SK(STAGE_ADAM_LR), peak);
    json_object_set_new(st, PF_SK(STAGE_ADAM_SCHED),
                        json_pack("{s:s,s:f,s:f,s:f}", PF_SK(STAGE_ADAM_SCHED_KIND), "one_cycle",
                                  PF_SK(STAGE_ADAM_SCHED_ONE_CYCLE_PCT_START), 0.3,
                                  PF_SK(STAGE_ADAM_SCHED_ONE_CYCLE_DIV_FACTOR), 25.0,
                                  PF_SK(STAGE_ADAM_SCHED_ONE_CYCLE_FINAL_DIV_FACTOR), 1e4));
    pf_off_note(o, "One-cycle schedule peaking at lr %g: a fast warm-up, then annealing to a small rate.", peak);
    return 1;
}

static int op_clip(pf_off *o, json_t *spec)
{
    size_t i;
    json_t *st;
    int any = 0;
    double c = PICKD(o, 1.0, 10.0);
    json_array_foreach(STAGES(spec), i, st) if (has_clip(st) && pf_off_field_num(st, PF_SK_STAGE_ADAM_GRAD_CLIP) == 0) {
        set_real(st, PF_SK(STAGE_ADAM_GRAD_CLIP), c);
        any = 1;
    }
    if (any) pf_off_note(o, "Gradient clipping at global norm %g against loss spikes.", c);
    return any;
}

static int op_lower_lr(pf_off *o, json_t *spec)
{
    size_t i;
    json_t *st;
    int any = 0;
    double f = PICKD(o, 0.3, 0.5), lr0 = pf_off_first_lr(spec);
    json_array_foreach(STAGES(spec), i, st) if (is_gradient(st)) {
        double lr = pf_off_field_num(st, PF_SK_STAGE_ADAM_LR) * f;
        if (lr < 1e-6) continue;
        set_real(st, PF_SK(STAGE_ADAM_LR), lr);
        json_t *sc = json_object_get(st, PF_SK(STAGE_ADAM_SCHED));
        if (pf_off_field_num(sc, PF_SK_STAGE_ADAM_SCHED_COSINE_LR_MIN) > lr)
            set_real(sc, PF_SK(STAGE_ADAM_SCHED_COSINE_LR_MIN), lr / 100);
        any = 1;
    }
    if (any) pf_off_note(o, "Learning rate x%g (first stage %g -> %g) for a more stable descent.", f, lr0, lr0 * f);
    return any;
}

static int op_lbfgs_tail(pf_off *o, json_t *spec)
{
    size_t i;
    json_t *st;
    json_array_foreach(STAGES(spec), i, st) if (!is_gradient(st)) return 0;
    double frac = PICKD(o, 0.1, 0.2, 0.3);
    long tail = (long)llround(frac * (double)budget(o));
    pf_off_fit_budget(spec, budget(o) - tail);
    long hist = PICKL(o, 20, 50);
    json_array_append_new(STAGES(spec),
                          json_pack("{s:s,s:I,s:f,s:I,s:b}", PF_SK(STAGE_OPTIMIZER), "lbfgs", PF_SK(STAGE_LBFGS_STEPS),
                                    (json_int_t)tail, PF_SK(STAGE_LBFGS_LR), 1.0, PF_SK(STAGE_LBFGS_HISTORY),
                                    (json_int_t)hist, PF_SK(STAGE_LBFGS_LINE_SEARCH), 1));
    pf_off_note(o, "Adam first, then an L-BFGS tail of %ld steps (history %ld, line search) to polish the minimum.", tail, hist);
    return 1;
}

/* ------------------------------------------------------ training */

static json_t *TRAIN(json_t *s) { return pf_off_sec(s, PF_SK(TRAIN)); }

static int has_adam(const pf_off *o, const json_t *s)
{
    (void)o;
    size_t i;
    json_t *st;
    json_array_foreach(json_object_get(json_object_get(s, PF_SK(OPT)), PF_SK(OPT_STAGES)), i,
                       st) if (is_gradient(st)) return 1;
    return 0;
}

static int has_adam_and_terms(const pf_off *o, const json_t *s)
{
    size_t i;
    json_t *st;
    int adam = 0;
    json_array_foreach(json_object_get(json_object_get(s, PF_SK(OPT)), PF_SK(OPT_STAGES)), i, st)
        adam |= !strcmp(pf_off_str(st, PF_SK(STAGE_OPTIMIZER), "adam"), "adam");
    return adam && has_soft_constraint(o, s);
}

static int op_region(pf_off *o, json_t *spec)
{
    json_t *t = TRAIN(spec);
    if (json_is_true(json_object_get(json_object_get(t, PF_SK(TRAIN_REGION)), PF_SK(TRAIN_REGION_ENABLED)))) return 0;
    long hist = PICKL(o, 5, 10, 15);
    double r0 = pf_spec_default_num(PF_SK_PATH(TRAIN_REGION_R0));
    double cap = pf_spec_default_num(PF_SK_PATH(TRAIN_REGION_MAX_RADIUS));
    json_object_set_new(t, PF_SK(TRAIN_REGION),
                        json_pack("{s:b,s:f,s:I,s:f}", PF_SK(TRAIN_REGION_ENABLED), 1, PF_SK(TRAIN_REGION_R0), r0,
                                  PF_SK(TRAIN_REGION_HISTORY), (json_int_t)hist, PF_SK(TRAIN_REGION_MAX_RADIUS), cap));
    pf_off_note(o, "RoPINN region optimization (r0 = %g, gradient-noise history %ld, radius at most %g): each Adam step trains on interior points moved within a small region, for a residual that holds between the collocation points.",
                r0, hist, cap);
    return 1;
}

/* ------------------------------------------------------ the table */

#define T(x) PF_TAG_##x
static const pf_off_op ops[OP_COUNT] = {
    {OP_NORMALIZE, "normalize", 0, "normalize", T(HIGH_DIM) | T(COMPLEX_GEOMETRY), "normaliz,input scaling", op_normalize, always, 0},
    {OP_FOURIER, "fourier", 0, "fourier", T(MULTISCALE) | T(PERIODIC), "fourier,spectral,frequency,multiscale", op_fourier, always, 1},
    {OP_MULTISCALE, "multiscale", 0, "fourier:multiscale", T(MULTISCALE), "multiscale,multi-scale,fourier", op_multiscale, always, 1},
    {OP_PERIODIC, "periodic", 0, "periodic", T(PERIODIC), "periodic,embedding,symmetry", op_periodic, has_period, 0},
    {OP_ACT_SIN, "sin", 1, "act:sin", T(MULTISCALE) | T(PERIODIC), "siren,sine activation,sin activation,oscillat", op_act_sin, always, 2},
    {OP_ACT_SMOOTH, "smooth_act", 1, NULL, 0, "gelu,silu,softplus,smooth activation", op_act_smooth, always, 2},
    {OP_MODIFIED_MLP, "modified_mlp", 1, "arch:modified_mlp", T(NONLINEAR) | T(COUPLED) | T(STEEP), "modified,gated,architecture",
     op_modified_mlp, always, 3},
    {OP_RESNET, "resnet", 1, "arch:resnet", T(HIGH_DIM) | T(LONG_TIME), "resnet,residual connection,skip", op_resnet, always, 3},
    {OP_WIDER, "wider", 1, NULL, T(HIGH_DIM) | T(COUPLED) | T(CHAOTIC), "capacity,width,wide", op_wider, always, 0},
    {OP_DEEPER, "deeper", 1, NULL, T(NONLINEAR) | T(HIGH_ORDER), "capacity,depth,deep", op_deeper, always, 0},
    {OP_RWF, "rwf", 1, "rwf", T(MULTISCALE) | T(STEEP), "factoriz,rwf", op_rwf, always, 0},
    {OP_ADAPTIVE_ACT, "adaptive_act", 1, "adaptive_act", T(STEEP) | T(NONLINEAR), "adaptive activation,slope", op_adaptive_act, always, 0},
    {OP_RAD, "rad", 2, "rad", T(STEEP) | T(CHAOTIC) | T(MULTISCALE), "adaptive sampling,residual-based,resampling,collocation", op_rad,
     always, 4},
    {OP_RAR_D, "rar_d", 2, "rar_d", T(STEEP) | T(COMPLEX_GEOMETRY), "refinement,adaptive sampling,rar-d,rar_d", op_rar_d, always, 4},
    {OP_SOBOL, "sobol", 2, "sampling:sobol", T(HIGH_DIM), "sobol,quasi-random,low-discrepancy,sampling", op_sobol, always, 5},
    {OP_LHS, "lhs", 2, "sampling:lhs", T(HIGH_DIM), "latin,lhs,sampling", op_lhs, always, 5},
    {OP_RESAMPLE, "resample", 2, "resample", T(HIGH_DIM) | T(CHAOTIC), "resampling,stochastic", op_resample, always, 0},
    {OP_MORE_INTERIOR, "more_interior", 2, NULL, T(HIGH_DIM) | T(STEEP) | T(MULTISCALE), "collocation,points,density",
     op_more_interior, always, 0},
    {OP_MORE_BOUNDARY, "more_boundary", 2, NULL, T(COMPLEX_GEOMETRY), "boundary,geometry", op_more_boundary, has_boundary, 0},
    {OP_MORE_INITIAL, "more_initial", 2, NULL, T(TIME_DEPENDENT) | T(LONG_TIME), "initial condition", op_more_initial, time_dep, 0},
    {OP_HARD, "hard", 3, "hard", T(COMPLEX_GEOMETRY) | T(TIME_DEPENDENT), "hard,exact,constraint,distance function", op_hard,
     has_hard, 0},
    {OP_CAUSAL, "causal", 4, "causal", T(TIME_DEPENDENT) | T(LONG_TIME) | T(CHAOTIC), "causal,temporal",
     op_causal, time_dep, 0},
    {OP_RAISE_CONSTRAINTS, "raise_constraints", 4, "weights", T(COMPLEX_GEOMETRY) | T(TIME_DEPENDENT), "loss weight,penalty,boundary condition",
     op_raise_constraints, has_soft_constraint, 0},
    {OP_OBS_WEIGHT, "obs_weight", 4, "weights", T(INVERSE), "inverse,observation", op_obs_weight, has_obs, 0},
    {OP_LR_ANNEALING, "lr_annealing", 4, "weight:lr_annealing", T(COUPLED) | T(MULTISCALE) | T(INVERSE),
     "annealing,balanc,gradient patholog", op_lr_annealing, has_soft_constraint, 6},
    {OP_SELF_ADAPTIVE, "self_adaptive", 4, "weight:self_adaptive", T(STEEP) | T(NONLINEAR), "self-adaptive,self_adaptive,attention",
     op_self_adaptive, always, 6},
    {OP_RESNORM, "resnorm", 4, "residual_normalization", T(COUPLED) | T(VARIABLE_COEFFICIENT), "residual normaliz,loss scal,magnitude",
     op_resnorm, always, 0},
    {OP_ADAMW, "adamw", 5, "adamw", 0, "adamw,weight decay,regulari", op_adamw, always, 0},
    {OP_SCHEDULE, "schedule", 5, NULL, T(LONG_TIME) | T(CHAOTIC), "schedule,decay,learning rate,cosine", op_schedule, always, 7},
    {OP_CLIP, "clip", 5, "grad_clip", T(CHAOTIC) | T(STEEP), "clip,stabil", op_clip, always, 0},
    {OP_LBFGS_TAIL, "lbfgs_tail", 5, "lbfgs", T(HIGH_DIM) | T(VARIABLE_COEFFICIENT), "l-bfgs,lbfgs,quasi-newton,second-order",
     op_lbfgs_tail, always, 0},
    {OP_LOWER_LR, "lower_lr", 5, NULL, T(CHAOTIC) | T(STEEP), "learning rate,stabil", op_lower_lr, always, 0},
    {OP_ONE_CYCLE, "one_cycle", 5, "schedule:one_cycle", 0, "one-cycle,one_cycle,warmup", op_one_cycle, always, 7},
    {OP_REGION, "region_optimization", 6, "region_optimization", T(HIGH_ORDER) | T(STEEP),
     "region optimization,ropinn,trust region,generaliz", op_region, has_adam, 0},
    {OP_HAMMERSLEY, "hammersley", 2, "sampling:hammersley", T(HIGH_DIM), "hammersley,deepxde,radical inverse", op_hammersley,
     always, 5},
    {OP_RELU_HE, "relu_he", 1, "init:he_normal", T(STEEP), "relu,elu,selu,kaiming,he init,he normal", op_relu_he, always, 2},
    {OP_GLOBAL_ADAPTIVE, "global_adaptive", 1, "adaptive_act:global", T(STEEP) | T(NONLINEAR),
     "global adaptive,gaaf,adaptive activation,slope", op_global_adaptive, always, 0},
    {OP_MULTIADAM, "multiadam", 5, "multiadam", T(COUPLED) | T(MULTISCALE) | T(INVERSE),
     "multiadam,multi-adam,scale-invariant,loss balanc,imbalance", op_multiadam, has_adam_and_terms, 0},
};
#undef T

const pf_off_op *pf_off_op_get(pf_off_op_id id)
{
    PF_ASSERT((int)id >= 0 && id < OP_COUNT && ops[id].id == id);
    return &ops[id];
}

/* Whether knowledge entry k's title or tags mention one of the operator's
 * keywords (case-insensitive substrings). */
static int entry_matches(const json_t *k, const pf_off_op *op)
{
    char hay[1024];
    size_t n = (size_t)snprintf(hay, sizeof hay, "%s", pf_off_str(k, "title", ""));
    size_t j;
    json_t *t;
    json_array_foreach(json_object_get(k, "tags"), j, t) if (json_is_string(t) && n < sizeof hay - 2)
        n += (size_t)snprintf(hay + n, sizeof hay - n, " %s", json_string_value(t));
    for (char *c = hay; *c; c++) *c = (char)(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c);
    char words[256];
    snprintf(words, sizeof words, "%s", op->keywords);
    for (char *save = NULL, *w = strtok_r(words, ",", &save); w; w = strtok_r(NULL, ",", &save))
        if (strstr(hay, w)) return 1;
    return 0;
}

/* The title (else id) of the first knowledge entry that matches, NULL when none. */
static const char *knowledge_match(const pf_off *o, const pf_off_op *op)
{
    size_t i;
    json_t *k;
    json_array_foreach(o->knowledge, i, k) if (entry_matches(k, op))
        return pf_off_str(k, "title", pf_off_str(k, "id", "?"));
    return NULL;
}

static void append_note(pf_off *o, const char *fmt, const char *arg)
{
    if (!o->nnotes) return;
    char *n = o->notes[o->nnotes - 1];
    size_t len = strlen(n);
    if (len && n[len - 1] == '.') n[--len] = 0;
    snprintf(n + len, PF_OFF_NOTE_LEN - len, fmt, arg);
}

int pf_off_apply(pf_off *o, pf_off_op_id id, json_t *spec)
{
    const pf_off_op *op = pf_off_op_get(id);
    if (op->group && (o->groups & (1u << op->group))) return 0;
    if (!op->applicable(o, spec)) return 0;
    int notes = o->nnotes;
    if (!op->apply(o, spec)) return 0;
    if (op->group) o->groups |= 1u << op->group;
    if (o->nnotes > notes) {
        const char *k = knowledge_match(o, op);
        if (k)
            append_note(o, " (retrieved knowledge: \"%s\").", k);
        else if (op->mech && pf_off_json_has_string(o->good, op->mech))
            append_note(o, " (%s is among the mechanisms of the best candidates so far).", op->mech);
    }
    return 1;
}

static int popcount(unsigned v)
{
    int n = 0;
    for (; v; v &= v - 1) n++;
    return n;
}

/* Knowledge entries that match the operator, at most 3. */
static int knowledge_hits(const pf_off *o, const pf_off_op *op)
{
    int hits = 0;
    size_t i;
    json_t *k;
    json_array_foreach(o->knowledge, i, k) hits += entry_matches(k, op);
    return hits > 3 ? 3 : hits;
}

double pf_off_op_weight(const pf_off *o, pf_off_op_id id)
{
    const pf_off_op *op = pf_off_op_get(id);
    double w = 1.0 + 1.5 * popcount(op->tags & o->pde->tags);
    w *= 1.0 + 0.75 * knowledge_hits(o, op);
    if (op->mech && pf_off_json_has_string(o->good, op->mech)) w *= 2.0;
    if (op->mech && pf_off_json_has_string(o->failed, op->mech)) w *= o->escape ? 0.0 : 0.2;
    return w;
}

/* Mechanisms in `after` that are not in `before` and are in `avoid`. */
static int adds_avoided(const json_t *before, json_t *after, const json_t *avoid)
{
    if (!json_is_array(avoid) || !json_array_size(avoid)) return 0;
    json_t *mb = pf_offline_mechanisms(before), *ma = pf_offline_mechanisms(after);
    int bad = 0;
    size_t i;
    json_t *m;
    json_array_foreach(ma, i, m) if (!pf_off_json_has_string(mb, json_string_value(m)) &&
                                     pf_off_json_has_string(avoid, json_string_value(m))) bad = 1;
    json_decref(mb);
    json_decref(ma);
    return bad;
}

int pf_off_apply_some(pf_off *o, json_t *spec, const pf_off_op_id *pool, int n, int k, const json_t *avoid)
{
    double w[OP_COUNT];
    int done = 0;
    PF_ASSERT(n <= OP_COUNT);
    for (int i = 0; i < n; i++) w[i] = pf_off_op_weight(o, pool[i]);
    while (done < k) {
        double tot = 0;
        for (int i = 0; i < n; i++) tot += w[i];
        if (tot <= 0) break;
        double u = pf_rng_uniform(o->rng) * tot;
        int i = 0;
        for (; i < n - 1 && u >= w[i]; i++) u -= w[i];
        w[i] = 0;
        if (!pf_off_op_get(pool[i])->applicable(o, spec)) continue;
        /* a copy to undo with, only when something is to be avoided (adds_avoided is 0 otherwise) */
        json_t *before = json_array_size(avoid) > 0 ? json_deep_copy(spec) : NULL;
        int saved = o->nnotes;
        int ch = pf_off_apply(o, pool[i], spec);
        if (ch && before && adds_avoided(before, spec, avoid)) {
            /* undo: restore every section */
            json_object_update(spec, before);
            o->nnotes = saved;
            ch = 0;
        }
        json_decref(before);
        done += ch;
    }
    return done;
}

/* ------------------------------------------------------ removing, perturbing */

static int starts(const char *s, const char *p) { return !strncmp(s, p, strlen(p)); }

/* Set field k (spec.h) of o, the object holding it, back to the table's default. */
static void reset_int(json_t *o, pf_spec_key k)
{
    set_int(o, pf_spec_key_name(k), (long)pf_spec_default_num(pf_spec_paths[k]));
}
static void reset_real(json_t *o, pf_spec_key k)
{
    set_real(o, pf_spec_key_name(k), pf_spec_default_num(pf_spec_paths[k]));
}
static void reset_bool(json_t *o, pf_spec_key k)
{
    set_bool(o, pf_spec_key_name(k), pf_spec_default_num(pf_spec_paths[k]) != 0);
}
static void reset_str(json_t *o, pf_spec_key k)
{
    set_str(o, pf_spec_key_name(k), pf_spec_default_name(pf_spec_paths[k]));
}

int pf_off_remove_mechanism(pf_off *o, json_t *spec, const char *m)
{
    json_t *r = REPR(spec), *a = ARCH(spec), *s = SAMP(spec), *l = LOSS(spec);
    if (!strcmp(m, "normalize")) reset_bool(r, PF_SK_REPR_NORMALIZE);
    else if (starts(m, "fourier")) {
        json_t *f = pf_off_obj(r, PF_SK(REPR_FOURIER));
        reset_int(f, PF_SK_REPR_FOURIER_FEATURES), reset_int(f, PF_SK_REPR_FOURIER_SCALES),
            reset_bool(f, PF_SK_REPR_FOURIER_TRAINABLE);
    } else if (!strcmp(m, "periodic"))
        json_object_set_new(pf_off_obj(r, PF_SK(REPR_PERIODIC)), PF_SK(REPR_PERIODIC_INPUTS), json_array());
    else if (starts(m, "act:")) reset_str(a, PF_SK_ARCH_ACTIVATION);
    else if (starts(m, "arch:")) reset_str(a, PF_SK_ARCH_TYPE);
    else if (starts(m, "init:")) reset_str(a, PF_SK_ARCH_INIT);
    else if (!strcmp(m, "rwf")) reset_bool(a, PF_SK_ARCH_RWF);
    else if (starts(m, "adaptive_act")) reset_str(a, PF_SK_ARCH_ADAPTIVE);
    else if (!strcmp(m, "rad") || !strcmp(m, "rar_d"))
        json_object_set_new(
            s, PF_SK(SAMP_ADAPTIVE),
            json_pack("{s:s}", PF_SK(SAMP_ADAPTIVE_METHOD), pf_spec_default_name(PF_SK_PATH(SAMP_ADAPTIVE_METHOD))));
    else if (starts(m, "sampling:")) reset_str(s, PF_SK_SAMP_METHOD);
    else if (!strcmp(m, "resample")) reset_int(s, PF_SK_SAMP_RESAMPLE_EVERY);
    else if (!strcmp(m, "hard"))
        json_object_set_new(spec, PF_SK(CONS),
                            json_pack("{s:s}", PF_SK(CONS_MODE), pf_spec_default_name(PF_SK_PATH(CONS_MODE))));
    else if (!strcmp(m, "causal"))
        json_object_set_new(
            l, PF_SK(LOSS_CAUSAL),
            json_pack("{s:b}", PF_SK(LOSS_CAUSAL_ENABLED), pf_spec_default_num(PF_SK_PATH(LOSS_CAUSAL_ENABLED)) != 0));
    else if (starts(m, "weight:"))
        json_object_set_new(
            l, PF_SK(LOSS_WEIGHTING),
            json_pack("{s:s}", PF_SK(LOSS_WEIGHTING_METHOD), pf_spec_default_name(PF_SK_PATH(LOSS_WEIGHTING_METHOD))));
    else if (!strcmp(m, "weights")) json_object_set_new(l, PF_SK(LOSS_WEIGHTS), json_object());
    else if (!strcmp(m, "residual_normalization")) reset_str(l, PF_SK_LOSS_RESIDUAL_NORMALIZATION);
    else if (!strcmp(m, "region_optimization"))
        json_object_set_new(TRAIN(spec), PF_SK(TRAIN_REGION),
                            json_pack("{s:b}", PF_SK(TRAIN_REGION_ENABLED),
                                      pf_spec_default_num(PF_SK_PATH(TRAIN_REGION_ENABLED)) != 0));
    else {
        size_t i;
        json_t *st;
        int any = 0;
        json_array_foreach(STAGES(spec), i, st) {
            if (!strcmp(m, "adamw") && !strcmp(pf_off_str(st, PF_SK(STAGE_OPTIMIZER), ""), "adamw")) {
                set_str(st, PF_SK(STAGE_OPTIMIZER), "adam"), reset_real(st, PF_SK_STAGE_ADAM_WEIGHT_DECAY), any = 1;
            } else if ((!strcmp(m, "multiadam") && !strcmp(pf_off_str(st, PF_SK(STAGE_OPTIMIZER), ""), "multiadam")) ||
                       (!strcmp(m, "sgd") && !strcmp(pf_off_str(st, PF_SK(STAGE_OPTIMIZER), ""), "sgd"))) {
                set_str(st, PF_SK(STAGE_OPTIMIZER), "adam"), json_object_del(st, PF_SK(STAGE_ADAM_BETAS)),
                    any = 1; /* Adam's own betas */
            } else if (starts(m, "schedule:") && is_gradient(st)) {
                json_object_set_new(st, PF_SK(STAGE_ADAM_SCHED),
                                    json_pack("{s:s}", PF_SK(STAGE_ADAM_SCHED_KIND),
                                              pf_spec_default_name(PF_SK_PATH(STAGE_ADAM_SCHED_KIND)))),
                    any = 1;
            } else if (!strcmp(m, "grad_clip") && has_clip(st)) {
                reset_real(st, PF_SK_STAGE_ADAM_GRAD_CLIP), any = 1;
            }
        }
        if (!strcmp(m, "lbfgs")) {
            json_t *keep = json_array();
            json_array_foreach(STAGES(spec), i, st) if (is_gradient(st)) json_array_append(keep, st);
            if (!json_array_size(keep))
                json_array_append_new(keep, json_pack("{s:s,s:I}", PF_SK(STAGE_OPTIMIZER), "adam",
                                                      PF_SK(STAGE_ADAM_STEPS), (json_int_t)budget(o)));
            json_object_set_new(pf_off_sec(spec, PF_SK(OPT)), PF_SK(OPT_STAGES), keep);
            pf_off_fit_budget(spec, budget(o));
            any = 1;
        }
        if (!any) return 0;
    }
    pf_off_fit_weights(spec, o->pde);
    return 1;
}

/* Section ids, for the pools below. */
static const pf_off_op_id repr_pool[] = {OP_NORMALIZE, OP_FOURIER, OP_MULTISCALE, OP_PERIODIC};
static const pf_off_op_id arch_pool[] = {OP_ACT_SIN, OP_ACT_SMOOTH, OP_MODIFIED_MLP, OP_RESNET, OP_WIDER, OP_DEEPER, OP_RWF,
                                         OP_ADAPTIVE_ACT, OP_RELU_HE, OP_GLOBAL_ADAPTIVE};
static const pf_off_op_id samp_pool[] = {OP_RAD, OP_RAR_D, OP_SOBOL, OP_LHS, OP_RESAMPLE, OP_MORE_INTERIOR, OP_MORE_BOUNDARY,
                                         OP_MORE_INITIAL, OP_HAMMERSLEY};
static const pf_off_op_id loss_pool[] = {OP_CAUSAL, OP_RAISE_CONSTRAINTS, OP_OBS_WEIGHT, OP_LR_ANNEALING, OP_SELF_ADAPTIVE,
                                         OP_RESNORM};
static const pf_off_op_id opt_pool[] = {OP_ADAMW, OP_SCHEDULE, OP_CLIP, OP_LBFGS_TAIL, OP_LOWER_LR, OP_ONE_CYCLE,
                                        OP_MULTIADAM};

/* A change that is certain to alter section s (when the PDE allows one):
 * an operator of that section that still applies, else removing one of the
 * section's mechanisms, else a numeric step. */
int pf_off_perturb_section(pf_off *o, json_t *spec, int s)
{
    const char *name = pf_spec_section_name(s);
    json_t *before = json_deep_copy(json_object_get(spec, name));
    static const struct {
        const pf_off_op_id *ids;
        int n;
    } pools[] = {{repr_pool, NUM(repr_pool)}, {arch_pool, NUM(arch_pool)}, {samp_pool, NUM(samp_pool)},
                 {NULL, 0},                   {loss_pool, NUM(loss_pool)}, {opt_pool, NUM(opt_pool)}};
    int changed = 0;
    if (s == 3) {
        if (pf_off_hard_index(spec, o->pde) >= 0) {
            pf_off_remove_mechanism(o, spec, "hard");
            pf_off_note(o, "Constraints back to soft penalties, so that the network is not tied to the transform's ansatz.");
        } else {
            pf_off_apply(o, OP_HARD, spec);
        }
    } else if (s < 6 && pools[s].n) {
        pf_off_apply_some(o, spec, pools[s].ids, pools[s].n, 1, o->failed);
    }
    changed = !json_equal(before, json_object_get(spec, name));
    if (!changed && s < 6 && s != 3) {
        /* every operator of the section is already in: drop one of its mechanisms */
        json_t *mech = pf_offline_mechanisms(spec);
        size_t i;
        json_t *m;
        json_array_foreach(mech, i, m) {
            json_t *trial = json_deep_copy(spec);
            pf_off_remove_mechanism(o, trial, json_string_value(m));
            if (!json_equal(before, json_object_get(trial, name))) {
                json_object_set(spec, name, json_object_get(trial, name));
                json_object_set(spec, PF_SK(LOSS), json_object_get(trial, PF_SK(LOSS)));
                pf_off_note(o, "Dropped %s to explore a different %s design.", json_string_value(m), name);
                json_decref(trial);
                break;
            }
            json_decref(trial);
        }
        json_decref(mech);
        changed = !json_equal(before, json_object_get(spec, name));
    }
    if (!changed && s == 1) {
        json_t *a = ARCH(spec);
        long w = (long)pf_off_field_num(a, PF_SK_ARCH_WIDTH);
        set_int(a, PF_SK(ARCH_WIDTH), w > 64 ? w * 3 / 4 : w + 32);
        changed = 1;
    }
    json_decref(before);
    return changed;
}
