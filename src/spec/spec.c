/*
 * spec.c — AlgorithmSpec: the field table, normalization, validation,
 * hashing and instantiation (see spec.h; paper appendix A.5).
 *
 * One table (`sections` below) holds every key with its type, range,
 * allowed names, default and a line of documentation. Normalization walks
 * it; describe prints it; instantiation reads every value through it (a
 * key the normalized JSON lacks takes the table's default), and
 * pf_spec_default_num/name() answer from it.
 */
#include "spec/spec.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/names.h"
#include "core/sha256.h"

/* ------------------------------------------------------------ the table */

typedef enum fkind { K_INT, K_REAL, K_BOOL, K_ENUM, K_OBJ, K_VARIANT, K_CUSTOM } fkind;

/* Fields whose checks or defaults need the PDE or other fields. */
enum custom {
    C_NONE,
    C_INITIAL,         /* sampling.initial: default by time dependence      */
    C_PERIODIC_INPUTS, /* representation.periodic.inputs: names of inputs   */
    C_TRANSFORM,       /* constraints.transform: a transform of the PDE     */
    C_WEIGHTS,         /* loss.weights: one weight per active loss term     */
    C_BETAS,           /* stage betas: [beta1, beta2] in [0, 1)             */
    C_BETAS_MULTIADAM, /* the same, multiadam's default [0.99, 0.99]        */
    C_STAGES,          /* optimization.stages: array of stage variants      */
};

typedef struct field field;

typedef struct variant {
    const char *name;  /* selector value ("rad"; "true" for a bool selector) */
    const field *f;
    int n;
    const char *doc;
} variant;

struct field {
    const char *key;
    fkind k;
    double lo, hi;
    int lo_open, hi_open;
    double def;
    int required;                 /* no default: missing is an error        */
    const char *const *names;     /* K_ENUM                                 */
    int nnames;
    const field *sub;             /* K_OBJ                                  */
    int nsub;
    const variant *var;           /* K_VARIANT: variants ...               */
    int nvar;
    fkind selk;                    /* ... selected by key `sel`, K_ENUM/K_BOOL */
    const char *sel;
    int custom;
    int seq;                      /* +1: present only when the object's
                                     "type" is a sequence model (else
                                     rejected and left out); -1: absent then */
    int omit_off;                 /* left out of the normalized spec when
                                     it is off: a K_VARIANT selecting its
                                     default variant that has no keys, or a
                                     K_INT / K_REAL / K_BOOL at its default */
    const char *doc;
};

#define N(a) ((int)(sizeof(a) / sizeof *(a)))
#define INT(k_, lo_, hi_, def_, doc_) \
    {.key = k_, .k = K_INT, .lo = lo_, .hi = hi_, .def = def_, .doc = doc_}
#define INTREQ(k_, lo_, hi_, doc_) \
    {.key = k_, .k = K_INT, .lo = lo_, .hi = hi_, .required = 1, .doc = doc_}
#define REAL(k_, lo_, lo_open_, hi_, hi_open_, def_, doc_)                                     \
    {.key = k_, .k = K_REAL, .lo = lo_, .lo_open = lo_open_, .hi = hi_, .hi_open = hi_open_,  \
     .def = def_, .doc = doc_}
#define BOOL(k_, def_, doc_) {.key = k_, .k = K_BOOL, .def = def_, .doc = doc_}
/* INT / REAL left out of the normalized spec at their default (omit_off). */
#define INT_OMIT(k_, lo_, hi_, def_, doc_) \
    {.key = k_, .k = K_INT, .lo = lo_, .hi = hi_, .def = def_, .omit_off = 1, .doc = doc_}
#define REAL_OMIT(k_, lo_, hi_, def_, doc_) \
    {.key = k_, .k = K_REAL, .lo = lo_, .hi = hi_, .def = def_, .omit_off = 1, .doc = doc_}
#define ENUM(k_, names_, def_, doc_) \
    {.key = k_, .k = K_ENUM, .names = names_, .nnames = N(names_), .def = def_, .doc = doc_}
#define OBJ(k_, sub_, doc_) {.key = k_, .k = K_OBJ, .sub = sub_, .nsub = N(sub_), .doc = doc_}
#define VARIANT(k_, sel_, selk_, var_, def_, doc_)                                             \
    {.key = k_, .k = K_VARIANT, .sel = sel_, .selk = selk_, .var = var_, .nvar = N(var_),     \
     .def = def_, .doc = doc_}
#define CUSTOM(k_, id_, doc_) {.key = k_, .k = K_CUSTOM, .custom = id_, .doc = doc_}

/* Names, in the order of the enums they map to. */
static const char *const arch_names[] = {
#define PF_ARCH(ID, nm, ...) #nm,
#include "nn/archs.def"
#undef PF_ARCH
};
/* architecture.type's description: the rows' items joined by "; " */
#define PF_ARCH(ID, nm, doc, ...) "; " doc
static const char arch_docs[] = ""
#include "nn/archs.def"
    ;
#undef PF_ARCH
static const char *const act_names[] = {"tanh", "sin", "silu", "gelu", "softplus", "sigmoid",
                                        "elu", "selu", "relu", "gaussian"};
static const char *const init_names[] = {"glorot_normal", "glorot_uniform", "he_normal", "he_uniform", "zeros"};
static const char *const adapt_names[] = {"none", "layerwise", "global"};
static const char *const sample_names[] = {"uniform", "sobol", "lhs", "grid", "hammersley"};
static const char *const rnorm_names[] = {"none", "initial"};
_Static_assert(N(arch_names) == PF_ARCH_COUNT, "arch names");
_Static_assert(N(act_names) == PF_NACTIVATIONS, "activation names");
_Static_assert(N(init_names) == PF_WEIGHT_INIT_COUNT, "init names");
_Static_assert(N(adapt_names) == PF_ADAPT_COUNT, "adapt names");
_Static_assert(N(sample_names) == PF_SAMPLE_METHOD_COUNT, "sampler names");
_Static_assert(N(rnorm_names) == PF_RESIDUAL_NORM_COUNT, "residual norm names");

static const field fourier_f[] = {
    INT("features", 0, PF_MODEL_MAX_FOURIER, 0, "Fourier features m (0 = none): [cos 2piBz, sin 2piBz], B ~ N(0, sigma^2)"),
    REAL("sigma", 0, 1, 1000, 0, 1, "scale of B"),
    BOOL("trainable", 0, "train B (its entries then count as parameters)"),
    INT("scales", 1, PF_MODEL_MAX_SCALES, 1, "multiscale features (Wang, Wang & Perdikaris 2021): the m rows split into this many groups, group k drawn with sigma * ratio^k (at most features)"),
    REAL("ratio", 1, 1, 1000, 0, 10, "sigma ratio between consecutive scales"),
};
static const field periodic_f[] = {
    CUSTOM("inputs", C_PERIODIC_INPUTS, "inputs replaced by [cos(k w x), sin(k w x)], k = 1..harmonics, w = 2 pi / period; only inputs in which the PDE is periodic"),
    INT("harmonics", 1, PF_MODEL_MAX_HARMONICS, 1, "harmonics per periodic input"),
};
static const field representation_f[] = {
    BOOL("normalize", 0, "map each non-periodic input affinely to [-1, 1] from the domain's bounding box"),
    OBJ("fourier", fourier_f, "random Fourier features (Tancik et al. 2020)"),
    OBJ("periodic", periodic_f, "exact periodic embedding"),
};
static const field pinnsformer_f[] = {
    INT("tokens", 1, 16, 5, "k: each point becomes k tokens, token i with the last input (time, or the last spatial coordinate when steady) shifted by i * dt"),
    REAL("dt", 0, 0, 1, 0, 1e-4, "the shift between tokens, in the last input's units"),
    INT("d_ff", 1, 4096, 256, "feed-forward width inside each encoder and decoder layer"),
    INT("d_hidden", 1, 4096, 512, "width of the per-token output head (two layers)"),
    INT("heads", 1, 64, 2, "attention heads over a point's tokens (divide width)"),
};
#define SEQ_ONLY 1 /* fields of a sequence model (nn/archs.def's seq) */
#define NOT_SEQ (-1)
static const field architecture_f[] = {
    ENUM("type", arch_names, 0, arch_docs + 2),
    INT("depth", 1, PF_MODEL_MAX_DEPTH, 5, "hidden layers (resnet: blocks; pinnsformer: encoder = decoder layers)"),
    INT("width", 1, PF_MODEL_MAX_WIDTH, 100, "units per hidden layer (pinnsformer: d_model)"),
    {.key = "activation", .k = K_ENUM, .names = act_names, .nnames = N(act_names), .seq = NOT_SEQ,
     .doc = "hidden-layer activation (not with pinnsformer); elu (alpha 1), selu (alpha 1.6733, scale 1.0507) and relu are not smooth at 0 (derivatives there from the left), gaussian is exp(-x^2 / (2 * 0.1^2))"},
    {.key = "init", .k = K_ENUM, .names = init_names, .nnames = N(init_names), .seq = NOT_SEQ,
     .doc = "weight initialization, biases zero (not with pinnsformer): glorot N(0, 2/(fan_in+fan_out)) or U(+-sqrt(6/(fan_in+fan_out))); he N(0, 2/fan_in) or U(+-sqrt(6/fan_in)); zeros"},
    {.key = "adaptive", .k = K_ENUM, .names = adapt_names, .nnames = N(adapt_names), .seq = NOT_SEQ,
     .doc = "adaptive activation act(n a z), a trainable slope a starting at 1/n (not with pinnsformer): layerwise, one per hidden layer (LAAF, Jagtap et al. 2020); global, one shared by all hidden layers (GAAF)"},
    {.key = "adapt_factor", .k = K_REAL, .lo = 0, .lo_open = 1, .hi = 100, .def = 10, .seq = NOT_SEQ,
     .doc = "n of the adaptive activation"},
    {.key = "rwf", .k = K_BOOL, .def = 0, .seq = NOT_SEQ,
     .doc = "random weight factorization W = diag(exp(s)) V (Wang et al. 2022; needs glorot_normal; not with pinnsformer)"},
    {.key = "rwf_mean", .k = K_REAL, .lo = -10, .hi = 10, .def = 1, .seq = NOT_SEQ, .doc = "mean of s"},
    {.key = "rwf_sigma", .k = K_REAL, .lo = 0, .hi = 10, .def = 0.1, .seq = NOT_SEQ,
     .doc = "standard deviation of s"},
    {.key = "pinnsformer", .k = K_OBJ, .sub = pinnsformer_f, .nsub = N(pinnsformer_f), .seq = SEQ_ONLY,
     .doc = "the pinnsformer's sizes (only with type pinnsformer; released: tokens 5, dt 1e-4, width 32, depth 1, d_ff 256, d_hidden 512, heads 2)"},
};
static const field rad_f[] = {
    REAL("k", 0, 0, 10, 0, 1, "density exponent: p ~ |r|^k / mean|r|^k + c"),
    REAL("c", 0, 0, 10, 0, 1, "density constant"),
    INT("every", 1, 10000, 100, "steps between redraws"),
};
static const field rard_f[] = {
    REAL("k", 0, 0, 10, 0, 1, "density exponent: p ~ |r|^k / mean|r|^k + c"),
    REAL("c", 0, 0, 10, 0, 1, "density constant"),
    INT("every", 1, 10000, 100, "steps between additions"),
    INT("add", 1, PF_SPEC_MAX_POINTS, 100, "interior points added each time"),
    INT("cap", 1, PF_SPEC_MAX_POINTS, 16384, "most interior points (>= interior; counts toward the point limit)"),
};
static const variant adaptive_v[] = {
    {"none", NULL, 0, "fixed points"},
    {"rad", rad_f, N(rad_f), "residual-based adaptive distribution (Wu et al. 2023): redraw the interior points"},
    {"rar_d", rard_f, N(rard_f), "residual-based adaptive refinement with distribution (Wu et al. 2023): add interior points"},
};
static const field sampling_f[] = {
    INT("interior", 1, PF_SPEC_MAX_POINTS, 8192, "interior collocation points"),
    INT("boundary", 0, PF_SPEC_MAX_POINTS, 2048, "boundary points, all boundary constraints together"),
    {.key = "initial", .k = K_CUSTOM, .custom = C_INITIAL, .lo = 0, .hi = PF_SPEC_MAX_POINTS, .def = 2048,
     .doc = "initial-slice points (default 2048 when time-dependent; must be 0 when steady)"},
    ENUM("method", sample_names, 0, "interior and initial sampler (hammersley: DeepXDE's and PINNacle's default, no seed)"),
    INT("resample_every", 0, 10000, 0, "redraw every point set every this many steps (0 = never)"),
    VARIANT("adaptive", "method", K_ENUM, adaptive_v, 0, "adaptive sampling"),
};
static const field hard_f[] = {
    CUSTOM("transform", C_TRANSFORM, "the PDE's exact transform (default: its first)"),
};
static const variant constraints_v[] = {
    {"soft", NULL, 0, "every constraint is a penalty term"},
    {"hard", hard_f, N(hard_f), "the transform makes the constraints it satisfies exact"},
};
static const field anneal_f[] = {
    REAL("alpha", 0, 0, 1, 1, 0.9, "moving-average factor"),
    INT("every", 1, 10000, 10, "steps between weight updates"),
};
static const field sa_f[] = {
    REAL("lr", 0, 1, 1, 0, 0.005, "ascent rate of the point weights"),
};
static const field weight_field = REAL("weight", 0, 0, 1e6, 0, 1, "weight of one loss term");
static const variant weighting_v[] = {
    {"fixed", NULL, 0, "the weights below"},
    {"lr_annealing", anneal_f, N(anneal_f), "learning-rate annealing (Wang, Teng & Perdikaris 2021), starting from the weights"},
    {"self_adaptive", sa_f, N(sa_f), "self-adaptive point weights (McClenny & Braga-Neto 2023)"},
};
static const field causal_f[] = {
    REAL("epsilon", 0, 1, 1000, 0, 1, "causality parameter: chunk i weighted by exp(-epsilon sum_{j<i} L_j)"),
    INT("chunks", 2, PF_TRAIN_MAX_CHUNKS, 32, "time chunks"),
};
static const variant causal_v[] = {
    {"false", NULL, 0, "off"},
    {"true", causal_f, N(causal_f), "causal weighting (Wang, Sankaran & Perdikaris 2024); time-dependent PDEs only"},
};
static const field loss_f[] = {
    VARIANT("weighting", "method", K_ENUM, weighting_v, 0, "loss weighting"),
    CUSTOM("weights", C_WEIGHTS, "weight per loss term, in [0, 1e6] (default 1)"),
    VARIANT("causal", "enabled", K_BOOL, causal_v, 0, "causal weighting of the residual"),
    ENUM("residual_normalization", rnorm_names, 0, "initial: divide each term by its value at step 0"),
};

static const variant schedule_v[] = {
    {"constant", NULL, 0, "lr"},
    {"exponential", (const field[]){
         REAL("gamma", 0, 1, 1, 0, 0.1, "decay factor"),
         INT("decay_steps", 1, PF_SPEC_BUDGET_HIGH, 1000, "steps per factor gamma"),
     }, 2, "lr gamma^(step / decay_steps)"},
    {"step", (const field[]){
         REAL("gamma", 0, 1, 1, 0, 0.1, "decay factor"),
         INT("step_size", 1, PF_SPEC_BUDGET_HIGH, 1000, "steps between decays"),
     }, 2, "lr gamma^floor(step / step_size)"},
    {"cosine", (const field[]){
         REAL("lr_min", 0, 0, 10, 0, 0, "final rate (<= lr)"),
         INT("warmup_steps", 0, PF_SPEC_BUDGET_HIGH, 0, "linear warmup"),
     }, 2, "cosine decay from lr to lr_min"},
    {"one_cycle", (const field[]){
         REAL("pct_start", 0, 1, 1, 1, 0.3, "warmup fraction"),
         REAL("div_factor", 0, 1, 1e6, 0, 25, "lr / initial rate"),
         REAL("final_div_factor", 0, 1, 1e8, 0, 1e4, "initial / final rate"),
     }, 3, "one-cycle (Smith & Topping 2019), lr is the peak"},
};
static const double betas_default[2] = {0.9, 0.999};
static const double multiadam_betas_default[2] = {0.99, 0.99}; /* PINNacle's MultiAdam */
#define STAGE_STEPS INTREQ("steps", 1, PF_SPEC_BUDGET_BASELINE, "optimizer steps of this stage (all stages sum to the budget)")
#define ADAM_FIELDS(wd_)                                                                            \
    STAGE_STEPS, REAL("lr", 0, 1, 10, 0, 1e-3, "learning rate"),                                   \
        VARIANT("schedule", "kind", K_ENUM, schedule_v, 0, "learning-rate schedule"),              \
        CUSTOM("betas", C_BETAS, "[beta1, beta2], each in [0, 1) (default [0.9, 0.999])"),         \
        REAL("eps", 0, 1, 1e-2, 0, 1e-8, "Adam epsilon"),                                           \
        REAL("weight_decay", 0, 0, 1, 0, wd_, "weight decay"),                                      \
        REAL("grad_clip", 0, 0, 1e6, 0, 0, "clip the gradient's global norm (0 = off)")
static const field adam_f[] = {ADAM_FIELDS(0)};
static const field adamw_f[] = {ADAM_FIELDS(0.01)};
static const field sgd_f[] = {
    STAGE_STEPS, REAL("lr", 0, 1, 10, 0, 1e-3, "learning rate"),
    VARIANT("schedule", "kind", K_ENUM, schedule_v, 0, "learning-rate schedule"),
    REAL("grad_clip", 0, 0, 1e6, 0, 0, "clip the gradient's global norm (0 = off)"),
};
static const field multiadam_f[] = {
    STAGE_STEPS, REAL("lr", 0, 1, 10, 0, 1e-3, "learning rate"),
    VARIANT("schedule", "kind", K_ENUM, schedule_v, 0, "learning-rate schedule"),
    CUSTOM("betas", C_BETAS_MULTIADAM, "[beta1, beta2] of every group's moments, each in [0, 1) (default [0.99, 0.99])"),
    REAL("eps", 0, 1, 1e-2, 0, 1e-8, "epsilon added to every group's sqrt(vhat)"),
};
static const field lbfgs_f[] = {
    STAGE_STEPS,
    REAL("lr", 0, 1, 10, 0, 1, "initial step length"),
    INT("history", 1, 1000, 10, "curvature pairs kept"),
    BOOL("line_search", 1, "strong Wolfe line search (false: fixed step lr)"),
    INT_OMIT("max_iter", 1, 20, 1,
             "L-BFGS iterations per step (torch's max_iter; a step counts once in the budget however many it runs, "
             "so the cap is torch's default, 20)"),
    INT_OMIT("max_eval", 0, 100000, 0,
             "a step stops iterating once 1 + its objective evaluations reach this (torch's max_eval); 0: max_iter * 5 / 4"),
    REAL_OMIT("tolerance_grad", 0, 1, 1e-7, "converged when max |gradient| <= this"),
    REAL_OMIT("tolerance_change", 0, 1, 1e-9, "stalled when the loss or the step changes by less than this"),
};
static const variant stage_v[] = {
    {"adam", adam_f, N(adam_f), "Adam (L2 weight decay)"},
    {"adamw", adamw_f, N(adamw_f), "AdamW (decoupled weight decay)"},
    {"lbfgs", lbfgs_f, N(lbfgs_f), "L-BFGS"},
    {"sgd", sgd_f, N(sgd_f), "plain gradient descent p -= lr g (no momentum, no weight decay)"},
    {"multiadam", multiadam_f, N(multiadam_f),
     "MultiAdam (Yao et al. 2023, PINNacle's): separate Adam moments for two groups of loss terms, the PDE residual "
     "and all other terms (initial, boundary, observation); p -= lr * mean over the groups of mhat / (sqrt(vhat) + eps); "
     "a group whose terms all have weight 0 is left out"},
};
static const field stage_field =
    {.key = "stages[i]", .k = K_VARIANT, .sel = "optimizer", .selk = K_ENUM, .var = stage_v,
     .nvar = N(stage_v), .required = 1, .doc = "one optimization stage"};
static const field optimization_f[] = {
    CUSTOM("stages", C_STAGES, "1..8 stages run in order; their steps sum to exactly the fidelity budget"),
};
static const field region_f[] = {
    REAL("r0", 0, 1, 1, 0, 1e-4, "initial region radius: r = min(r0 / sigma, max_radius), in input units, the same for every input"),
    INT("history", 1, 50, 10, "T0: the last steps whose gradients give the noise level sigma (from the second step, over those that exist)"),
    REAL("max_radius", 0, 1, 1, 0, 0.01, "cap on the region radius"),
};
static const variant region_v[] = {
    {"false", NULL, 0, "off"},
    {"true", region_f, N(region_f),
     "RoPINN region optimization (Wu et al. 2024), reconstructed from its paper and its released code for other "
     "benchmarks (RoPINN released no PINNacle driver): on every gradient step (not L-BFGS) the interior points move by U[0, r) per "
     "coordinate (one-sided, clamped to the domain), redrawn each step; boundary and initial points stay; r "
     "shrinks as the gradient noise sigma (std / mean |g| over the last T0 steps, per parameter, averaged) grows; "
     "needs a gradient stage (adam, adamw, sgd or multiadam)"},
};
static const field training_f[] = {
    INT("log_every", 1, 10000, 100, "steps between loss-curve records"),
    INT("eval_every", 1, 10000, 100, "steps between evaluation MSEs"),
    {.key = "region_optimization", .k = K_VARIANT, .sel = "enabled", .selk = K_BOOL, .var = region_v,
     .nvar = N(region_v), .def = 0, .omit_off = 1,
     .doc = "region optimization of the interior points (left out of the canonical spec when off)"},
};
static const field sections[] = {
    OBJ("representation", representation_f, "input representation"),
    OBJ("architecture", architecture_f, "network"),
    OBJ("sampling", sampling_f, "collocation points"),
    {.key = "constraints", .k = K_VARIANT, .sel = "mode", .selk = K_ENUM, .var = constraints_v,
     .nvar = N(constraints_v), .def = 0, .doc = "initial/boundary condition handling"},
    OBJ("loss", loss_f, "loss construction"),
    OBJ("optimization", optimization_f, "optimizers"),
    OBJ("training", training_f, "training control"),
};
enum { S_REPR, S_ARCH, S_SAMP, S_CONS, S_LOSS, S_OPT, S_TRAIN, S_COUNT };
_Static_assert(N(sections) == S_COUNT, "seven sections");
_Static_assert(S_COUNT == PF_SPEC_SECTIONS, "spec.h counts the sections");
/* Variants, in the order of the enums they map to. */
_Static_assert(N(adaptive_v) == PF_ADAPTIVE_COUNT, "adaptive methods");
_Static_assert(N(constraints_v) == PF_CONSTRAINT_MODE_COUNT, "constraint modes");
_Static_assert(N(weighting_v) == PF_WEIGHTING_COUNT, "weightings");
_Static_assert(N(schedule_v) == PF_SCHEDULE_COUNT, "schedules");
_Static_assert(N(stage_v) == PF_OPT_COUNT, "optimizers");

/* A field's default; sampling.initial's is 0 on a steady PDE. */
static double field_default(const field *f, const pf_pde *p)
{
    return f->k == K_CUSTOM && f->custom == C_INITIAL && p->time_input < 0 ? 0 : f->def;
}

/* ------------------------------------------------------------- context */

typedef struct ctx {
    const pf_pde *p;
    const pf_budget *b;       /* limits and step budgets (validation only) */
    pf_spec_report *rep;
    int section;              /* the section being normalized */
    int sec_err[S_COUNT];     /* reasons per section */
    const json_t *root_out;   /* normalized sections so far */
} ctx;

__attribute__((format(printf, 2, 3))) static void reason(ctx *c, const char *fmt, ...)
{
    if (c->section >= 0 && c->section < S_COUNT) c->sec_err[c->section]++;
    pf_spec_report *r = c->rep;
    if (r->n >= PF_SPEC_MAX_REASONS) return;
    if (r->n == PF_SPEC_MAX_REASONS - 1) {
        snprintf(r->reason[r->n++], PF_SPEC_REASON_LEN, "There are more problems than the %d reported.",
                 PF_SPEC_MAX_REASONS - 1);
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->reason[r->n++], PF_SPEC_REASON_LEN, fmt, ap);
    va_end(ap);
}

static void show(const json_t *v, char *buf, size_t cap)
{
    char *s = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
    if (!s) {
        snprintf(buf, cap, "?");
        return;
    }
    if (strlen(s) > 60) strcpy(s + 57, "...");
    snprintf(buf, cap, "%s", s);
    free(s);
}

static void join(char *buf, size_t cap, const char *const *names, int n)
{
    pf_name_join(buf, cap, names, n);
}

/* "an integer in [1, 128]", "a number in (0, 10]", ... */
static void allowed(const field *f, char *buf, size_t cap)
{
    switch (f->k) {
    case K_INT:
        snprintf(buf, cap, "an integer in [%.0f, %.0f]", f->lo, f->hi);
        break;
    case K_REAL:
        snprintf(buf, cap, "a number in %c%g, %g%c", f->lo_open ? '(' : '[', f->lo, f->hi,
                 f->hi_open ? ')' : ']');
        break;
    case K_BOOL:
        snprintf(buf, cap, "true or false");
        break;
    case K_ENUM: {
        char list[256];
        join(list, sizeof list, f->names, f->nnames);
        snprintf(buf, cap, "one of: %s", list);
        break;
    }
    default:
        snprintf(buf, cap, "an object");
    }
}

static void fmt_count(long v, char *buf, size_t cap)
{
    char tmp[32];
    int n = snprintf(tmp, sizeof tmp, "%ld", v < 0 ? -v : v), o = 0;
    if (v < 0 && o < (int)cap - 1) buf[o++] = '-';
    for (int i = 0; i < n && o < (int)cap - 1; i++) {
        if (i > 0 && (n - i) % 3 == 0 && o < (int)cap - 1) buf[o++] = ',';
        buf[o++] = tmp[i];
    }
    buf[o] = 0;
}

/* --------------------------------------------------------- normalize */

static json_t *norm_field(ctx *c, const field *f, const json_t *v, const char *path);

static int find_field(const field *fs, int n, const char *key)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(fs[i].key, key)) return i;
    return -1;
}

static json_t *norm_scalar(ctx *c, const field *f, const json_t *v, const char *path)
{
    char got[80], ok[300];
    if (!v) {
        if (f->required) {
            allowed(f, ok, sizeof ok);
            reason(c, "%s is missing; it must be %s.", path, ok);
            return NULL;
        }
        switch (f->k) {
        case K_INT: return json_integer((json_int_t)f->def);
        case K_REAL: return json_real(f->def);
        case K_BOOL: return json_boolean(f->def != 0);
        default: return json_string(f->names[(int)f->def]);
        }
    }
    if (f->k == K_ENUM) {
        if (json_is_string(v)) {
            const char *s = json_string_value(v);
            for (int i = 0; i < f->nnames; i++)
                if (!strcmp(s, f->names[i])) return json_string(s);
            join(ok, sizeof ok, f->names, f->nnames);
            reason(c, "%s '%s' is unknown; allowed: %s.", path, s, ok);
            return NULL;
        }
    } else if (f->k == K_BOOL) {
        if (json_is_boolean(v)) return json_boolean(json_is_true(v));
    } else if (json_is_number(v)) {
        double x = json_number_value(v);
        int in = (f->lo_open ? x > f->lo : x >= f->lo) && (f->hi_open ? x < f->hi : x <= f->hi);
        if (f->k == K_INT && json_is_integer(v) && in) return json_integer(json_integer_value(v));
        if (f->k == K_INT && in && x == floor(x)) return json_integer((json_int_t)x);
        if (f->k == K_REAL && in && isfinite(x)) return json_real(x);
    }
    show(v, got, sizeof got);
    allowed(f, ok, sizeof ok);
    reason(c, "%s must be %s (got %s).", path, ok, got);
    return NULL;
}

/* A field marked omit_off whose normalized value r selects the default
 * variant, which has no keys, or is a number or boolean at its default: an
 * option that is off. Leaving it out keeps the canonical form (and the
 * hash) of every spec written before the option existed. */
static int omitted(const field *f, const json_t *r)
{
    if (!f->omit_off) return 0;
    if (f->k == K_INT || f->k == K_REAL) return json_is_number(r) && json_number_value(r) == f->def;
    if (f->k == K_BOOL) return json_is_boolean(r) && (int)json_is_true(r) == (int)f->def;
    if (f->k != K_VARIANT || f->var[(int)f->def].n) return 0;
    const json_t *s = json_object_get(r, f->sel);
    if (f->selk == K_BOOL) return json_is_boolean(s) && (int)json_is_true(s) == (int)f->def;
    return json_is_string(s) && !strcmp(json_string_value(s), f->var[(int)f->def].name);
}

/* Whether field f applies in an object whose "type" is `type` (NULL: the
 * type is missing or invalid, so the default one). */
static bool applies(const field *f, const char *type)
{
    if (!f->seq) return true;
    const pf_arch_def *d = type ? pf_arch_named(type) : NULL;
    return (d && d->seq) == (f->seq == SEQ_ONLY);
}

/* Normalize object `v` (NULL: all defaults) against fields fs[0..n), with
 * `pre` (a selector already in `out`) also allowed. */
static void norm_members(ctx *c, const field *fs, int n, const json_t *v, const char *path,
                         const char *pre, const char *pre_val, json_t *out)
{
    if (v) {
        const char *key;
        json_t *val;
        json_object_foreach((json_t *)v, key, val) {
            if (find_field(fs, n, key) >= 0 || (pre && !strcmp(key, pre))) continue;
            char list[400] = "";
            size_t o = 0;
            if (pre) o += (size_t)snprintf(list, sizeof list, "%s", pre);
            const char *type = json_string_value(json_object_get(v, PF_SK(ARCH_TYPE)));
            for (int i = 0; i < n && o < sizeof list; i++)
                if (applies(&fs[i], type))
                    o += (size_t)snprintf(list + o, sizeof list - o, "%s%s", o ? ", " : "", fs[i].key);
            if (pre)
                reason(c, "%s.%s is not allowed when %s.%s is '%s'; allowed keys: %s.", path, key,
                       path, pre, pre_val, list);
            else
                reason(c, "%s.%s is not allowed; allowed keys: %s.", path, key, list[0] ? list : "none");
        }
    }
    for (int i = 0; i < n; i++) {
        char sub[256];
        snprintf(sub, sizeof sub, "%s.%s", path, fs[i].key);
        const char *type = json_string_value(json_object_get(out, PF_SK(ARCH_TYPE)));
        if (!applies(&fs[i], type)) {
            if (v && json_object_get(v, fs[i].key))
                reason(c, "%s is not allowed when %s.type is '%s'.", sub, path, type ? type : "invalid");
            continue;
        }
        json_t *r = norm_field(c, &fs[i], v ? json_object_get(v, fs[i].key) : NULL, sub);
        if (r && omitted(&fs[i], r)) {
            json_decref(r);
            continue;
        }
        if (r) json_object_set_new(out, fs[i].key, r);
    }
}

static json_t *norm_variant(ctx *c, const field *f, const json_t *v, const char *path)
{
    const json_t *selv = NULL;
    if (v && json_is_object(v))
        selv = json_object_get(v, f->sel);
    else if (v && (f->selk == K_ENUM ? json_is_string(v) : json_is_boolean(v)))
        selv = v, v = NULL;
    else if (v) {
        char got[80];
        show(v, got, sizeof got);
        reason(c, "%s must be an object with key \"%s\" (got %s).", path, f->sel, got);
        return NULL;
    }
    int vi = (int)f->def;
    char selpath[256], list[256];
    snprintf(selpath, sizeof selpath, "%s.%s", path, f->sel);
    const char *names[8];
    for (int i = 0; i < f->nvar; i++) names[i] = f->var[i].name;
    join(list, sizeof list, names, f->nvar);
    if (selv) {
        if (f->selk == K_BOOL) {
            if (!json_is_boolean(selv)) {
                char got[80];
                show(selv, got, sizeof got);
                reason(c, "%s must be true or false (got %s).", selpath, got);
                return NULL;
            }
            vi = json_is_true(selv);
        } else {
            if (!json_is_string(selv)) {
                char got[80];
                show(selv, got, sizeof got);
                reason(c, "%s must be one of: %s (got %s).", selpath, list, got);
                return NULL;
            }
            vi = -1;
            for (int i = 0; i < f->nvar; i++)
                if (!strcmp(json_string_value(selv), f->var[i].name)) vi = i;
            if (vi < 0) {
                reason(c, "%s '%s' is unknown; allowed: %s.", selpath, json_string_value(selv), list);
                return NULL;
            }
        }
    } else if (f->required) {
        reason(c, "%s is missing; it must be one of: %s.", selpath, list);
        return NULL;
    }
    const variant *var = &f->var[vi];
    json_t *out = json_object();
    json_object_set_new(out, f->sel,
                        f->selk == K_BOOL ? json_boolean(vi) : json_string(var->name));
    norm_members(c, var->f, var->n, v, path, f->sel, var->name, out);
    return out;
}

/* -------------------------------------------------- custom fields */

/* Loss terms of the PDE: "pde" then each constraint; active unless a hard
 * transform satisfies it. */
static int loss_terms(const pf_pde *p, int transform, const char **names, int *active)
{
    int n = 0;
    names[n] = "pde";
    active[n++] = 1;
    for (int j = 0; j < p->ncon && n < PF_TRAIN_MAX_TERMS; j++) {
        names[n] = p->con[j].name;
        active[n] = !(transform >= 0 && pf_hard_satisfies(&p->hard[transform], p->con[j].name));
        n++;
    }
    return n;
}

static int hard_transform_index(const json_t *cons, const pf_pde *p)
{
    const json_t *m = json_object_get(cons, PF_SK(CONS_MODE));
    if (!m || strcmp(json_string_value(m), "hard")) return -1;
    const char *t = json_string_value(json_object_get(cons, PF_SK(CONS_HARD_TRANSFORM)));
    for (int i = 0; t && i < p->nhard; i++)
        if (!strcmp(t, p->hard[i].name)) return i;
    return -1;
}

static void hard_names(const pf_pde *p, char *buf, size_t cap)
{
    const char *names[PF_PDE_MAX_HARD];
    for (int i = 0; i < p->nhard; i++) names[i] = p->hard[i].name;
    join(buf, cap, names, p->nhard);
}

static void periodic_names(const pf_pde *p, char *buf, size_t cap)
{
    const char *names[PF_PDE_MAX_IN];
    int n = 0;
    for (int i = 0; i < p->d_in; i++)
        if (p->period[i] > 0) names[n++] = p->inputs[i];
    if (n)
        join(buf, cap, names, n);
    else
        snprintf(buf, cap, "none (%s is periodic in no input)", p->name);
}

static json_t *norm_custom(ctx *c, const field *f, const json_t *v, const char *path)
{
    const pf_pde *p = c->p;
    char got[80], list[400];
    switch (f->custom) {
    case C_INITIAL: {
        field g = *f;
        g.k = K_INT;
        g.def = field_default(f, p);
        json_t *r = norm_scalar(c, &g, v, path);
        if (r && p->time_input < 0 && json_integer_value(r) != 0) {
            reason(c, "%s must be 0 because %s is steady (it has no initial condition).", path, p->name);
            json_decref(r);
            return NULL;
        }
        return r;
    }
    case C_PERIODIC_INPUTS: {
        json_t *out = json_array();
        if (!v) return out;
        if (!json_is_array(v)) {
            show(v, got, sizeof got);
            reason(c, "%s must be an array of input names (got %s).", path, got);
            json_decref(out);
            return NULL;
        }
        periodic_names(p, list, sizeof list);
        int seen[PF_PDE_MAX_IN] = {0}, bad = 0;
        size_t i;
        json_t *e;
        json_array_foreach(v, i, e) {
            int k = -1;
            for (int j = 0; json_is_string(e) && j < p->d_in; j++)
                if (!strcmp(json_string_value(e), p->inputs[j])) k = j;
            show(e, got, sizeof got);
            if (k < 0) {
                reason(c, "%s[%zu] %s is not an input of %s; allowed: %s.", path, i, got, p->name, list);
                bad = 1;
            } else if (p->period[k] <= 0) {
                reason(c, "%s[%zu] %s is not a periodic input of %s, so it cannot have a periodic embedding; allowed: %s.",
                       path, i, got, p->name, list);
                bad = 1;
            } else
                seen[k] = 1;
        }
        /* canonical: input order, no duplicates */
        for (int j = 0; j < p->d_in; j++)
            if (seen[j]) json_array_append_new(out, json_string(p->inputs[j]));
        if (bad) {
            json_decref(out);
            return NULL;
        }
        return out;
    }
    case C_TRANSFORM: {
        hard_names(p, list, sizeof list);
        if (p->nhard == 0) {
            reason(c, "constraints.mode 'hard' needs an exact transform, and %s provides none; allowed: soft.",
                   p->name);
            return NULL;
        }
        if (!v) return json_string(p->hard[0].name);
        if (json_is_string(v))
            for (int i = 0; i < p->nhard; i++)
                if (!strcmp(json_string_value(v), p->hard[i].name)) return json_string(p->hard[i].name);
        show(v, got, sizeof got);
        reason(c, "%s %s is not a transform that %s provides; allowed: %s.", path, got, p->name, list);
        return NULL;
    }
    case C_WEIGHTS: {
        const json_t *cons = json_object_get(c->root_out, PF_SK(CONS));
        int tr = cons ? hard_transform_index(cons, p) : -1;
        const char *names[PF_TRAIN_MAX_TERMS];
        int active[PF_TRAIN_MAX_TERMS], n = loss_terms(p, tr, names, active), na = 0, bad = 0;
        const char *an[PF_TRAIN_MAX_TERMS];
        for (int i = 0; i < n; i++)
            if (active[i]) an[na++] = names[i];
        join(list, sizeof list, an, na);
        if (v && !json_is_object(v)) {
            show(v, got, sizeof got);
            reason(c, "%s must be an object mapping loss terms (%s) to weights (got %s).", path, list, got);
            return NULL;
        }
        const char *key;
        json_t *val;
        if (v) json_object_foreach((json_t *)v, key, val) {
            int k = -1;
            for (int i = 0; i < n; i++)
                if (!strcmp(key, names[i])) k = i;
            if (k >= 0 && !active[k])
                reason(c, "%s.%s is not a loss term because the hard transform '%s' satisfies %s exactly; allowed: %s.",
                       path, key, p->hard[tr].name, key, list), bad = 1;
            else if (k < 0)
                reason(c, "%s.%s is not a loss term of %s; allowed: %s.", path, key, p->name, list), bad = 1;
        }
        json_t *out = json_object();
        for (int i = 0; i < n; i++) {
            if (!active[i]) continue;
            char sub[256];
            snprintf(sub, sizeof sub, "%s.%s", path, names[i]);
            json_t *r = norm_scalar(c, &weight_field, v ? json_object_get(v, names[i]) : NULL, sub);
            if (r)
                json_object_set_new(out, names[i], r);
            else
                bad = 1;
        }
        if (bad) {
            json_decref(out);
            return NULL;
        }
        return out;
    }
    case C_BETAS:
    case C_BETAS_MULTIADAM: {
        const double *bd = f->custom == C_BETAS_MULTIADAM ? multiadam_betas_default : betas_default;
        if (!v) return json_pack("[ff]", bd[0], bd[1]);
        field b = REAL("", 0, 0, 1, 1, 0, "");
        if (json_is_array(v) && json_array_size(v) == 2) {
            json_t *out = json_array();
            for (size_t i = 0; i < 2; i++) {
                char sub[256];
                snprintf(sub, sizeof sub, "%s[%zu]", path, i);
                json_t *r = norm_scalar(c, &b, json_array_get(v, i), sub);
                if (!r) {
                    json_decref(out);
                    return NULL;
                }
                json_array_append_new(out, r);
            }
            return out;
        }
        show(v, got, sizeof got);
        reason(c, "%s must be an array of two numbers in [0, 1) (got %s).", path, got);
        return NULL;
    }
    case C_STAGES: {
        if (!v) {
            reason(c, "%s is missing; it must be an array of 1 to %d stages whose steps sum to the fidelity budget.",
                   path, PF_TRAIN_MAX_STAGES);
            return NULL;
        }
        if (!json_is_array(v) || json_array_size(v) < 1 || json_array_size(v) > PF_TRAIN_MAX_STAGES) {
            show(v, got, sizeof got);
            reason(c, "%s must be an array of 1 to %d stages (got %s).", path, PF_TRAIN_MAX_STAGES, got);
            return NULL;
        }
        json_t *out = json_array();
        size_t i;
        json_t *e;
        json_array_foreach(v, i, e) {
            char sub[256];
            snprintf(sub, sizeof sub, "%s[%zu]", path, i);
            if (!json_is_object(e)) {
                show(e, got, sizeof got);
                reason(c, "%s must be an object with key \"optimizer\" (got %s).", sub, got);
                continue;
            }
            json_t *r = norm_variant(c, &stage_field, e, sub);
            if (r) json_array_append_new(out, r);
        }
        return out;
    }
    }
    return NULL;
}

static json_t *norm_field(ctx *c, const field *f, const json_t *v, const char *path)
{
    switch (f->k) {
    case K_OBJ: {
        if (v && !json_is_object(v)) {
            char got[80];
            show(v, got, sizeof got);
            reason(c, "%s must be an object (got %s).", path, got);
            return NULL;
        }
        json_t *out = json_object();
        norm_members(c, f->sub, f->nsub, v, path, NULL, NULL, out);
        return out;
    }
    case K_VARIANT: return norm_variant(c, f, v, path);
    case K_CUSTOM: return norm_custom(c, f, v, path);
    default: return norm_scalar(c, f, v, path);
    }
}

static void sections_list(char *buf, size_t cap)
{
    const char *names[S_COUNT];
    for (int i = 0; i < S_COUNT; i++) names[i] = sections[i].key;
    join(buf, cap, names, S_COUNT);
}

/* Normalize into a new object (always returned); reasons in c->rep. */
static json_t *normalize(ctx *c, const json_t *spec)
{
    json_t *out = json_object();
    c->root_out = out;
    char list[256];
    sections_list(list, sizeof list);
    c->section = -1;
    if (!json_is_object(spec)) {
        reason(c, "the spec must be a JSON object with the seven sections %s.", list);
        return out;
    }
    const char *key;
    json_t *val;
    json_object_foreach((json_t *)spec, key, val) {
        if (find_field(sections, S_COUNT, key) < 0)
            reason(c, "%s is not a section of an AlgorithmSpec; allowed: %s.", key, list);
    }
    for (int s = 0; s < S_COUNT; s++) {
        c->section = s;
        const json_t *v = json_object_get(spec, sections[s].key);
        if (!v) {
            reason(c, "%s is missing; an AlgorithmSpec needs all seven sections: %s.", sections[s].key, list);
            continue;
        }
        json_t *r = norm_field(c, &sections[s], v, sections[s].key);
        if (r) json_object_set_new(out, sections[s].key, r);
    }
    c->section = -1;
    return out;
}

/* ---------------------------------------------------- instantiate */

/* A normalized (possibly partial) object with the table entries that
 * describe it. Instantiation reads every value through one: a missing
 * value is the table's default, and reading a key the table lacks is a
 * contract violation. */
typedef struct tview {
    const json_t *v;  /* the object; NULL when absent */
    const field *fs;  /* its fields; for a variant, the selected variant's */
    int n;
    const field *of;  /* the variant field it was selected from, else NULL */
    const pf_pde *p;  /* for the PDE's defaults */
} tview;

/* The entry for `key`. *here is 0 when the selected variant lacks the key
 * but another variant of the same field has it: the config keeps its
 * value for such a key (the defaults of train/config.h). */
static const field *tfield(tview t, const char *key, int *here)
{
    int i = find_field(t.fs, t.n, key);
    *here = i >= 0;
    if (i >= 0) return &t.fs[i];
    for (int j = 0; t.of && j < t.of->nvar; j++)
        if ((i = find_field(t.of->var[j].f, t.of->var[j].n, key)) >= 0) return &t.of->var[j].f[i];
    PF_ABORT("spec: instantiation reads '%s', a key the table does not have", key);
}

/* Which variant of f the normalized object v selects (the default when
 * v says nothing). */
static int variant_index(const field *f, const json_t *v)
{
    const json_t *s = json_object_get(v, f->sel);
    if (f->selk == K_BOOL) return json_is_boolean(s) ? json_is_true(s) : (int)f->def;
    for (int i = 0; json_is_string(s) && i < f->nvar; i++)
        if (!strcmp(json_string_value(s), f->var[i].name)) return i;
    return (int)f->def;
}

static tview tvariant(const field *f, const json_t *v, const pf_pde *p)
{
    const variant *var = &f->var[variant_index(f, v)];
    return (tview){v, var->f, var->n, f, p};
}

/* The object or variant at `key` (no fields when the selected variant
 * lacks the key). */
static tview tsub(tview t, const char *key)
{
    int here;
    const field *f = tfield(t, key, &here);
    const json_t *v = here ? json_object_get(t.v, key) : NULL;
    if (f->k == K_OBJ) return (tview){v, f->sub, f->nsub, NULL, t.p};
    PF_ASSERT(f->k == K_VARIANT);
    return here ? tvariant(f, v, t.p) : (tview){NULL, NULL, 0, f, t.p};
}

/* The JSON value at `key` (a custom field), NULL when absent. */
static const json_t *tval(tview t, const char *key)
{
    int here;
    tfield(t, key, &here);
    return here ? json_object_get(t.v, key) : NULL;
}

/* A value of a number field, or its default. */
static double num_or_default(const field *f, const json_t *v, const pf_pde *p)
{
    if (f->k == K_BOOL) return json_is_boolean(v) ? json_is_true(v) : f->def;
    PF_ASSERT(f->k == K_INT || f->k == K_REAL || (f->k == K_CUSTOM && f->custom == C_INITIAL));
    return json_is_number(v) ? json_number_value(v) : field_default(f, p);
}

/* A number, integer or boolean (0/1) at `key`; `keep` when the selected
 * variant lacks the key. */
static double tnum(tview t, const char *key, double keep)
{
    int here;
    const field *f = tfield(t, key, &here);
    return here ? num_or_default(f, json_object_get(t.v, key), t.p) : keep;
}

static bool tbool(tview t, const char *key, bool keep)
{
    return tnum(t, key, keep) != 0;
}

/* The index of the name at `key` among the field's names, or of the
 * variant it selects (false/true for a boolean selector); `keep` when the
 * selected variant lacks the key. */
static int tsel(tview t, const char *key, int keep)
{
    int here;
    const field *f = tfield(t, key, &here);
    if (!here) return keep;
    const json_t *v = json_object_get(t.v, key);
    if (f->k == K_VARIANT) return variant_index(f, v);
    PF_ASSERT(f->k == K_ENUM);
    for (int i = 0; json_is_string(v) && i < f->nnames; i++)
        if (!strcmp(json_string_value(v), f->names[i])) return i;
    return (int)f->def;
}

/* A stage's betas, or the variant's default pair; kept when the stage has
 * none. */
static void tbetas(tview g, pf_adam_config *adam)
{
    int here;
    const field *f = tfield(g, PF_SK(STAGE_ADAM_BETAS), &here);
    if (!here) return;
    const json_t *b = json_object_get(g.v, PF_SK(STAGE_ADAM_BETAS));
    int given = json_is_array(b) && json_array_size(b) == 2;
    const double *bd = f->custom == C_BETAS_MULTIADAM ? multiadam_betas_default : betas_default;
    adam->beta1 = given ? json_number_value(json_array_get(b, 0)) : bd[0];
    adam->beta2 = given ? json_number_value(json_array_get(b, 1)) : bd[1];
}

/* Fill the configs from a normalized (possibly partial) spec, each field
 * through the table; what the spec cannot say keeps the config defaults. */
static void fill(const json_t *n, const pf_pde *p, pf_model_config *mc, pf_train_config *tc)
{
    const tview root = {n, sections, S_COUNT, NULL, p};
    size_t k;
    json_t *e;

    *mc = pf_model_config_default(p->d_in, p->d_out);
    tview r = tsub(root, PF_SK(REPR)), four = tsub(r, PF_SK(REPR_FOURIER)), per = tsub(r, PF_SK(REPR_PERIODIC));
    mc->normalize = tbool(r, PF_SK(REPR_NORMALIZE), mc->normalize);
    for (int i = 0; i < p->d_in; i++) mc->lo[i] = p->lo[i], mc->hi[i] = p->hi[i];
    mc->fourier_features = (int)tnum(four, PF_SK(REPR_FOURIER_FEATURES), mc->fourier_features);
    mc->fourier_sigma = tnum(four, PF_SK(REPR_FOURIER_SIGMA), mc->fourier_sigma);
    mc->fourier_trainable = tbool(four, PF_SK(REPR_FOURIER_TRAINABLE), mc->fourier_trainable);
    mc->fourier_scales = (int)tnum(four, PF_SK(REPR_FOURIER_SCALES), mc->fourier_scales);
    mc->fourier_ratio = tnum(four, PF_SK(REPR_FOURIER_RATIO), mc->fourier_ratio);
    int h = (int)tnum(per, PF_SK(REPR_PERIODIC_HARMONICS), 1);
    json_array_foreach((json_t *)tval(per, PF_SK(REPR_PERIODIC_INPUTS)), k, e) {
        for (int i = 0; i < p->d_in; i++)
            if (json_is_string(e) && !strcmp(json_string_value(e), p->inputs[i]) && p->period[i] > 0)
                mc->periodic[i] = true, mc->period[i] = p->period[i], mc->harmonics[i] = h;
    }
    tview a = tsub(root, PF_SK(ARCH));
    mc->arch = (pf_arch)tsel(a, PF_SK(ARCH_TYPE), mc->arch);
    mc->depth = (int)tnum(a, PF_SK(ARCH_DEPTH), mc->depth);
    mc->width = (int)tnum(a, PF_SK(ARCH_WIDTH), mc->width);
    mc->activation = pf_activations[tsel(a, PF_SK(ARCH_ACTIVATION), 0)];
    mc->init = (pf_weight_init)tsel(a, PF_SK(ARCH_INIT), mc->init);
    mc->adapt = (pf_adapt)tsel(a, PF_SK(ARCH_ADAPTIVE), mc->adapt);
    mc->adapt_factor = tnum(a, PF_SK(ARCH_ADAPT_FACTOR), mc->adapt_factor);
    mc->rwf = tbool(a, PF_SK(ARCH_RWF), mc->rwf);
    mc->rwf_mean = tnum(a, PF_SK(ARCH_RWF_MEAN), mc->rwf_mean);
    mc->rwf_sigma = tnum(a, PF_SK(ARCH_RWF_SIGMA), mc->rwf_sigma);
    tview seq = tsub(a, PF_SK(ARCH_PINNSFORMER));
    mc->seq_len = (int)tnum(seq, PF_SK(ARCH_PINNSFORMER_TOKENS), mc->seq_len);
    mc->seq_dt = tnum(seq, PF_SK(ARCH_PINNSFORMER_DT), mc->seq_dt);
    mc->d_ff = (int)tnum(seq, PF_SK(ARCH_PINNSFORMER_D_FF), mc->d_ff);
    mc->d_hidden = (int)tnum(seq, PF_SK(ARCH_PINNSFORMER_D_HIDDEN), mc->d_hidden);
    mc->heads = (int)tnum(seq, PF_SK(ARCH_PINNSFORMER_HEADS), mc->heads);

    *tc = pf_train_config_default();
    tview s = tsub(root, PF_SK(SAMP)), ad = tsub(s, PF_SK(SAMP_ADAPTIVE));
    pf_sampling_config *sc = &tc->sampling;
    sc->interior = (int)tnum(s, PF_SK(SAMP_INTERIOR), sc->interior);
    sc->boundary = (int)tnum(s, PF_SK(SAMP_BOUNDARY), sc->boundary);
    sc->initial = (int)tnum(s, PF_SK(SAMP_INITIAL), sc->initial);
    sc->method = (pf_sample_method)tsel(s, PF_SK(SAMP_METHOD), sc->method);
    sc->resample_every = (int)tnum(s, PF_SK(SAMP_RESAMPLE_EVERY), sc->resample_every);
    sc->adaptive.method = (pf_adaptive_method)tsel(s, PF_SK(SAMP_ADAPTIVE), sc->adaptive.method);
    sc->adaptive.k = tnum(ad, PF_SK(SAMP_ADAPTIVE_RAD_K), sc->adaptive.k);
    sc->adaptive.c = tnum(ad, PF_SK(SAMP_ADAPTIVE_RAD_C), sc->adaptive.c);
    sc->adaptive.every = (int)tnum(ad, PF_SK(SAMP_ADAPTIVE_RAD_EVERY), sc->adaptive.every);
    sc->adaptive.add = (int)tnum(ad, PF_SK(SAMP_ADAPTIVE_RAR_D_ADD), sc->adaptive.add);
    sc->adaptive.cap = (int)tnum(ad, PF_SK(SAMP_ADAPTIVE_RAR_D_CAP), sc->adaptive.cap);

    const json_t *cons = tval(root, PF_SK(CONS));
    tc->constraints.transform = cons ? hard_transform_index(cons, p) : -1;
    tc->constraints.mode = tc->constraints.transform >= 0 ? PF_CONSTRAINT_HARD : PF_CONSTRAINT_SOFT;

    tview l = tsub(root, PF_SK(LOSS)), wt = tsub(l, PF_SK(LOSS_WEIGHTING)), ca = tsub(l, PF_SK(LOSS_CAUSAL));
    pf_loss_config *lc = &tc->loss;
    lc->weighting = (pf_weighting)tsel(l, PF_SK(LOSS_WEIGHTING), lc->weighting);
    lc->annealing_alpha = tnum(wt, PF_SK(LOSS_WEIGHTING_LR_ANNEALING_ALPHA), lc->annealing_alpha);
    lc->annealing_every = (int)tnum(wt, PF_SK(LOSS_WEIGHTING_LR_ANNEALING_EVERY), lc->annealing_every);
    lc->sa_lr = tnum(wt, PF_SK(LOSS_WEIGHTING_SELF_ADAPTIVE_LR), lc->sa_lr);
    const char *names[PF_TRAIN_MAX_TERMS];
    int active[PF_TRAIN_MAX_TERMS];
    lc->nterms = loss_terms(p, tc->constraints.transform, names, active);
    const json_t *w = tval(l, PF_SK(LOSS_WEIGHTS));
    for (int i = 0; i < lc->nterms; i++) lc->weights[i] = num_or_default(&weight_field, json_object_get(w, names[i]), p);
    lc->causal = tsel(l, PF_SK(LOSS_CAUSAL), lc->causal);
    lc->causal_epsilon = tnum(ca, PF_SK(LOSS_CAUSAL_EPSILON), lc->causal_epsilon);
    lc->causal_chunks = (int)tnum(ca, PF_SK(LOSS_CAUSAL_CHUNKS), lc->causal_chunks);
    lc->residual_norm = (pf_residual_norm)tsel(l, PF_SK(LOSS_RESIDUAL_NORMALIZATION), lc->residual_norm);

    tc->nstages = 0;
    json_array_foreach((json_t *)tval(tsub(root, PF_SK(OPT)), PF_SK(OPT_STAGES)), k, e) {
        if (tc->nstages >= PF_TRAIN_MAX_STAGES) break;
        tview g = tvariant(&stage_field, e, p);
        pf_stage_config *sg = &tc->stages[tc->nstages++];
        *sg = pf_stage_default((pf_optimizer_kind)variant_index(&stage_field, e));
        sg->steps = (long)tnum(g, PF_SK(STAGE_ADAM_STEPS), sg->steps);
        double lr = tnum(g, PF_SK(STAGE_ADAM_LR), sg->schedule.lr);
        tview sch = tsub(g, PF_SK(STAGE_ADAM_SCHED));
        pf_schedule *sd = &sg->schedule;
        *sd = pf_schedule_defaults((pf_schedule_kind)tsel(g, PF_SK(STAGE_ADAM_SCHED), sd->kind), lr);
        sd->gamma = tnum(sch, PF_SK(STAGE_ADAM_SCHED_EXPONENTIAL_GAMMA), sd->gamma);
        sd->decay_steps = (long)tnum(sch, PF_SK(STAGE_ADAM_SCHED_EXPONENTIAL_DECAY_STEPS), sd->decay_steps);
        sd->step_size = (long)tnum(sch, PF_SK(STAGE_ADAM_SCHED_STEP_STEP_SIZE), sd->step_size);
        sd->lr_min = tnum(sch, PF_SK(STAGE_ADAM_SCHED_COSINE_LR_MIN), sd->lr_min);
        sd->warmup_steps = (long)tnum(sch, PF_SK(STAGE_ADAM_SCHED_COSINE_WARMUP_STEPS), sd->warmup_steps);
        sd->pct_start = tnum(sch, PF_SK(STAGE_ADAM_SCHED_ONE_CYCLE_PCT_START), sd->pct_start);
        sd->div_factor = tnum(sch, PF_SK(STAGE_ADAM_SCHED_ONE_CYCLE_DIV_FACTOR), sd->div_factor);
        sd->final_div_factor = tnum(sch, PF_SK(STAGE_ADAM_SCHED_ONE_CYCLE_FINAL_DIV_FACTOR), sd->final_div_factor);
        tbetas(g, &sg->adam);
        sg->adam.eps = tnum(g, PF_SK(STAGE_ADAM_EPS), sg->adam.eps);
        sg->adam.weight_decay = tnum(g, PF_SK(STAGE_ADAM_WEIGHT_DECAY), sg->adam.weight_decay);
        sg->grad_clip = tnum(g, PF_SK(STAGE_ADAM_GRAD_CLIP), sg->grad_clip);
        sg->lbfgs.lr = lr;
        sg->lbfgs.history = (int)tnum(g, PF_SK(STAGE_LBFGS_HISTORY), sg->lbfgs.history);
        sg->lbfgs.line_search = tbool(g, PF_SK(STAGE_LBFGS_LINE_SEARCH), sg->lbfgs.line_search);
        sg->lbfgs.max_iter = (int)tnum(g, PF_SK(STAGE_LBFGS_MAX_ITER), sg->lbfgs.max_iter);
        sg->lbfgs.max_eval = (int)tnum(g, PF_SK(STAGE_LBFGS_MAX_EVAL), sg->lbfgs.max_eval);
        sg->lbfgs.tolerance_grad = tnum(g, PF_SK(STAGE_LBFGS_TOLERANCE_GRAD), sg->lbfgs.tolerance_grad);
        sg->lbfgs.tolerance_change = tnum(g, PF_SK(STAGE_LBFGS_TOLERANCE_CHANGE), sg->lbfgs.tolerance_change);
    }
    tview t = tsub(root, PF_SK(TRAIN)), ro = tsub(t, PF_SK(TRAIN_REGION));
    tc->log_every = (int)tnum(t, PF_SK(TRAIN_LOG_EVERY), tc->log_every);
    tc->eval_every = (int)tnum(t, PF_SK(TRAIN_EVAL_EVERY), tc->eval_every);
    tc->region.enabled = tsel(t, PF_SK(TRAIN_REGION), tc->region.enabled);
    tc->region.r0 = tnum(ro, PF_SK(TRAIN_REGION_R0), tc->region.r0);
    tc->region.history = (int)tnum(ro, PF_SK(TRAIN_REGION_HISTORY), tc->region.history);
    tc->region.max_radius = tnum(ro, PF_SK(TRAIN_REGION_MAX_RADIUS), tc->region.max_radius);
}

/* ------------------------------------------------------- validate */

static void validate(ctx *c, const json_t *n, pf_fidelity f)
{
    const pf_pde *p = c->p;
    pf_model_config mc;
    pf_train_config tc;
    fill(n, p, &mc, &tc);
    char a[32], b[32];

    /* compatibility */
    if (!c->sec_err[S_LOSS] && tc.loss.causal && p->time_input < 0) {
        c->section = S_LOSS;
        reason(c, "loss.causal.enabled must be false because %s is steady (causal weighting needs a time input).",
               p->name);
    }
    if (!c->sec_err[S_ARCH]) {
        c->section = S_ARCH;
        const pf_arch_def *d = pf_arch_def_of(mc.arch);
        if (mc.depth < d->min_depth)
            reason(c, "architecture.depth must be at least %d for %s (got %d).", d->min_depth, d->name, mc.depth);
        if (mc.depth > d->max_depth)
            reason(c, "architecture.depth must be at most %d for %s (got %d).", d->max_depth, d->name, mc.depth);
        if (d->seq && mc.width % mc.heads)
            reason(c, "architecture.pinnsformer.heads must divide architecture.width (%d heads, width %d).",
                   mc.heads, mc.width);
        if (mc.rwf && mc.init != PF_WEIGHT_INIT_GLOROT_NORMAL)
            reason(c, "architecture.init must be glorot_normal when architecture.rwf is true (got %s).",
                   init_names[mc.init]);
    }
    if (!c->sec_err[S_SAMP]) {
        c->section = S_SAMP;
        const pf_sampling_config *s = &tc.sampling;
        if (s->adaptive.method == PF_ADAPTIVE_RAD && s->resample_every != 0)
            reason(c, "sampling.resample_every must be 0 when sampling.adaptive.method is rad, which redraws the points every sampling.adaptive.every steps (got %d).",
                   s->resample_every);
        if (s->adaptive.method == PF_ADAPTIVE_RAR_D && s->adaptive.cap < s->interior)
            reason(c, "sampling.adaptive.cap must be at least sampling.interior (%d) (got %d).", s->interior,
                   s->adaptive.cap);
        if (!c->sec_err[S_CONS] && tc.constraints.mode == PF_CONSTRAINT_SOFT && p->time_input >= 0 &&
            s->initial == 0)
            for (int j = 0; j < p->ncon; j++)
                if (p->con[j].kind == PF_CON_INITIAL) {
                    reason(c, "sampling.initial must be at least 1 because %s has the initial condition '%s' and constraints.mode is soft.",
                           p->name, p->con[j].name);
                    break;
                }
        long pts = pf_train_config_points(&tc);
        if (pts > c->b->max_points) {
            fmt_count(pts, a, sizeof a);
            fmt_count(c->b->max_points, b, sizeof b);
            reason(c, "sampling uses %s training points (%s + boundary + initial); the limit is %s.", a,
                   s->adaptive.method == PF_ADAPTIVE_RAR_D ? "adaptive.cap" : "interior", b);
        }
    }
    if (!c->sec_err[S_ARCH] && !c->sec_err[S_REPR]) {
        c->section = S_ARCH;
        if (pf_model_config_check(&mc) != PF_OK) {
            reason(c, "architecture and representation do not form a valid model: %s.", pf_errmsg());
        } else {
            long np = (long)pf_model_config_nparams(&mc);
            if (np > c->b->max_params) {
                fmt_count(np, a, sizeof a);
                fmt_count(c->b->max_params, b, sizeof b);
                reason(c, "architecture has %s trainable parameters; the limit is %s (reduce architecture.width, architecture.depth or representation.fourier.features).",
                       a, b);
            }
        }
    }
    if (!c->sec_err[S_TRAIN] && !c->sec_err[S_OPT] && tc.region.enabled) {
        bool gradient = false;
        for (int i = 0; i < tc.nstages; i++) gradient |= pf_optimizer_is_gradient(tc.stages[i].optimizer);
        c->section = S_TRAIN;
        if (!gradient)
            reason(c, "training.region_optimization.enabled must be false when no stage is adam, adamw, sgd or multiadam (region optimization moves the points of gradient steps only).");
    }
    if (!c->sec_err[S_OPT]) {
        c->section = S_OPT;
        for (int i = 0; i < tc.nstages; i++)
            if (pf_optimizer_is_gradient(tc.stages[i].optimizer) && pf_schedule_check(&tc.stages[i].schedule) != PF_OK)
                reason(c, "optimization.stages[%d].schedule is invalid: %s.", i, pf_errmsg());
        long steps = pf_train_config_steps(&tc), budget = c->b->steps[f];
        if (steps != budget) {
            fmt_count(steps, a, sizeof a);
            fmt_count(budget, b, sizeof b);
            reason(c, "optimization.stages[*].steps sum to %s; the %s-fidelity budget%s%s is exactly %s optimizer steps.",
                   a, pf_fidelity_name(f), c->b == pf_budget_paper() ? "" : " of budget ",
                   c->b == pf_budget_paper() ? "" : c->b->name, b);
        }
    }
    c->section = -1;
}

/* ------------------------------------------------------- public API */

static const char *const fidelity_names[] = {"low", "high", "baseline"};

const char *pf_fidelity_name(pf_fidelity f)
{
    return ((int)f >= 0 && f < PF_FIDELITY_COUNT) ? fidelity_names[f] : "?";
}

pf_status pf_fidelity_from_name(const char *name, pf_fidelity *out)
{
    int i;
    PF_TRY(pf_name_lookup("fidelity", name, fidelity_names, PF_FIDELITY_COUNT, &i));
    *out = (pf_fidelity)i;
    return PF_OK;
}

static const pf_budget BUDGETS[] = {
    {"paper", {PF_SPEC_BUDGET_LOW, PF_SPEC_BUDGET_HIGH, PF_SPEC_BUDGET_BASELINE}, PF_SPEC_MAX_PARAMS, PF_SPEC_MAX_POINTS},
    {"quick", {PF_SPEC_QUICK_STEPS_LOW, PF_SPEC_QUICK_STEPS_HIGH, PF_SPEC_QUICK_STEPS_BASELINE}, PF_SPEC_QUICK_MAX_PARAMS,
     PF_SPEC_QUICK_MAX_POINTS},
    {"smoke",
     {PF_SPEC_QUICK_STEPS_LOW / PF_SPEC_SMOKE_STEPS_DIVISOR, PF_SPEC_QUICK_STEPS_HIGH / PF_SPEC_SMOKE_STEPS_DIVISOR,
      PF_SPEC_QUICK_STEPS_BASELINE / PF_SPEC_SMOKE_STEPS_DIVISOR},
     PF_SPEC_QUICK_MAX_PARAMS, PF_SPEC_QUICK_MAX_POINTS},
};

const pf_budget *pf_budget_paper(void)
{
    return &BUDGETS[0];
}

pf_status pf_budget_lookup(const char *name, const pf_budget **out)
{
    for (size_t i = 0; i < sizeof BUDGETS / sizeof *BUDGETS; i++)
        if (name && !strcmp(name, BUDGETS[i].name)) {
            *out = &BUDGETS[i];
            return PF_OK;
        }
    return pf_fail(PF_ERR_INVALID, "unknown budget '%s' (paper, quick or smoke)", name ? name : "");
}

pf_status pf_spec_parse(const char *text, json_t **out)
{
    json_error_t err;
    *out = json_loads(text, JSON_REJECT_DUPLICATES, &err);
    if (!*out)
        return pf_fail(PF_ERR_INVALID, "spec: line %d column %d: %s", err.line, err.column, err.text);
    return PF_OK;
}

static pf_status run(const json_t *spec, const pf_pde *p, const pf_budget *b, int validate_too, pf_fidelity f,
                     json_t **norm, pf_spec_report *rep)
{
    PF_ASSERT(p && rep && norm);
    memset(rep, 0, sizeof *rep);
    ctx c = {.p = p, .b = b ? b : pf_budget_paper(), .rep = rep, .section = -1};
    json_t *n = normalize(&c, spec);
    if (validate_too && json_is_object(spec)) validate(&c, n, f);
    if (rep->n) {
        json_decref(n);
        *norm = NULL;
        return pf_fail(PF_ERR_INVALID, "%s", rep->reason[0]);
    }
    *norm = n;
    return PF_OK;
}

pf_status pf_spec_check(const json_t *spec, const pf_pde *p, pf_fidelity f, json_t **norm,
                        pf_spec_report *rep)
{
    return run(spec, p, NULL, 1, f, norm, rep);
}

pf_status pf_spec_check_budget(const json_t *spec, const pf_pde *p, const pf_budget *b, pf_fidelity f,
                               json_t **norm, pf_spec_report *rep)
{
    return run(spec, p, b, 1, f, norm, rep);
}

pf_status pf_spec_normalize(const json_t *spec, const pf_pde *p, json_t **norm, pf_spec_report *rep)
{
    return run(spec, p, NULL, 0, PF_FIDELITY_LOW, norm, rep);
}

const char *pf_spec_section_name(int i)
{
    return i >= 0 && i < S_COUNT ? sections[i].key : NULL;
}

/* The entry at `path` (spec.h, "Field paths"); for a variant's selector
 * the variant field, with *selector set. NULL when the table has none. */
static const field *field_at(const char *path, int *selector)
{
    char buf[256];
    const field *fs = sections, *f = NULL;
    int n = S_COUNT;
    *selector = 0;
    if (snprintf(buf, sizeof buf, "%s", path ? path : "") >= (int)sizeof buf) return NULL;
    for (char *save = NULL, *t = strtok_r(buf, ".", &save); t; t = strtok_r(NULL, ".", &save)) {
        if (*selector) return NULL; /* nothing below a selector */
        if (f && f->k == K_CUSTOM && f->custom == C_STAGES) f = &stage_field;
        if (f && f->k == K_VARIANT) {
            if (!strcmp(t, f->sel)) {
                *selector = 1;
                continue;
            }
            int vi = -1;
            for (int i = 0; i < f->nvar; i++)
                if (!strcmp(t, f->var[i].name)) vi = i;
            if (vi < 0) return NULL;
            fs = f->var[vi].f, n = f->var[vi].n, f = NULL;
            continue;
        }
        if (f && f->k != K_OBJ) return NULL;
        if (f) fs = f->sub, n = f->nsub;
        int i = find_field(fs, n, t);
        if (i < 0) return NULL;
        f = &fs[i];
    }
    return f;
}

/* a "." b into out (b alone when a is ""), a path of the table (PF_SPEC_PATH_MAX holds them all) */
static void path_join(char *out, const char *a, const char *b)
{
    int k = snprintf(out, PF_SPEC_PATH_MAX, "%s%s%s", a, *a ? "." : "", b);
    PF_ASSERT(k > 0 && k < PF_SPEC_PATH_MAX);
}

/* Visit fs[0..n) under the path `prefix` ("" at the top), depth first. */
static void walk(const field *fs, int n, const char *prefix, void (*visit)(const char *path, void *arg), void *arg)
{
    for (int i = 0; i < n; i++) {
        char path[PF_SPEC_PATH_MAX], sub[PF_SPEC_PATH_MAX];
        path_join(path, prefix, fs[i].key);
        visit(path, arg);
        const field *f = fs[i].k == K_CUSTOM && fs[i].custom == C_STAGES ? &stage_field : &fs[i];
        if (f->k == K_OBJ) walk(f->sub, f->nsub, path, visit, arg);
        if (f->k != K_VARIANT) continue;
        path_join(sub, path, f->sel);
        visit(sub, arg);
        for (int v = 0; v < f->nvar; v++) {
            path_join(sub, path, f->var[v].name);
            walk(f->var[v].f, f->var[v].n, sub, visit, arg);
        }
    }
}

const char pf_spec_paths[PF_SK_COUNT][PF_SPEC_PATH_MAX] = {
#define PF_SPEC_KEY(ID, parent, key) [PF_SK_##ID] = parent key,
#include "spec/spec_keys.def"
#undef PF_SPEC_KEY
};
#define PF_SPEC_KEY(ID, parent, key) _Static_assert(sizeof(parent key) <= PF_SPEC_PATH_MAX, #ID ": a long path");
#include "spec/spec_keys.def"
#undef PF_SPEC_KEY

const char *pf_spec_key_name(pf_spec_key k)
{
    static const unsigned char at[PF_SK_COUNT] = { /* the parent's length */
#define PF_SPEC_KEY(ID, parent, key) [PF_SK_##ID] = sizeof(parent) - 1,
#include "spec/spec_keys.def"
#undef PF_SPEC_KEY
    };
    PF_ASSERT((unsigned)k < PF_SK_COUNT);
    return pf_spec_paths[k] + at[k];
}

void pf_spec_walk_paths(void (*visit)(const char *path, void *arg), void *arg)
{
    walk(sections, S_COUNT, "", visit, arg);
}

double pf_spec_default_num(const char *path)
{
    int sel;
    const field *f = field_at(path, &sel);
    PF_ASSERT_MSG(f, "spec: no field '%s' in the table", path);
    if (sel) {
        PF_ASSERT_MSG(f->selk == K_BOOL, "spec: '%s' selects by name (pf_spec_default_name)", path);
        return f->def;
    }
    if (f->k == K_CUSTOM && f->custom == C_WEIGHTS) return weight_field.def;
    PF_ASSERT_MSG(!f->required && (f->k == K_INT || f->k == K_REAL || f->k == K_BOOL ||
                                   (f->k == K_CUSTOM && f->custom == C_INITIAL)),
                  "spec: '%s' has no default number", path);
    return f->def;
}

const char *pf_spec_default_name(const char *path)
{
    int sel;
    const field *f = field_at(path, &sel);
    PF_ASSERT_MSG(f, "spec: no field '%s' in the table", path);
    if (sel) {
        PF_ASSERT_MSG(!f->required, "spec: '%s' is required and has no default", path);
        return f->var[(int)f->def].name;
    }
    PF_ASSERT_MSG(f->k == K_ENUM, "spec: '%s' has no default name", path);
    return f->names[(int)f->def];
}

int pf_spec_sections_differing(const json_t *a, const json_t *b, int n)
{
    int d = 0;
    for (int i = 0; i < n && i < S_COUNT; i++)
        d += !json_equal(json_object_get(a, sections[i].key), json_object_get(b, sections[i].key));
    return d;
}

char *pf_spec_canonical(const json_t *norm)
{
    return json_dumps(norm, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
}

pf_status pf_spec_hash(const json_t *norm, char hex[PF_SPEC_HASH_HEX])
{
    char *s = pf_spec_canonical(norm);
    if (!s) return pf_fail(PF_ERR_NOMEM, "cannot serialize the spec");
    pf_status st = pf_sha256_hex(s, strlen(s), hex);
    free(s);
    return st;
}

pf_status pf_spec_instantiate(const json_t *norm, const pf_pde *p, pf_model_config *mc,
                              pf_train_config *tc)
{
    json_t *n2;
    pf_spec_report *rep = malloc(sizeof *rep);
    if (!rep) return pf_fail(PF_ERR_NOMEM, "out of memory");
    ctx c = {.p = p, .rep = rep, .section = -1};
    memset(rep, 0, sizeof *rep);
    n2 = normalize(&c, norm);
    int bad = rep->n > 0;
    if (bad) pf_fail(PF_ERR_INVALID, "%s", rep->reason[0]);
    free(rep);
    if (!bad) fill(n2, p, mc, tc);
    json_decref(n2);
    return bad ? PF_ERR_INVALID : PF_OK;
}

json_t *pf_spec_example(const pf_pde *p, pf_fidelity f)
{
    return pf_spec_example_budget(p, NULL, f);
}

/* Scale an integer field by r (at least lo). */
static void scale_int(json_t *o, const char *key, double r, long lo)
{
    long v = (long)json_integer_value(json_object_get(o, key));
    long n = (long)((double)v * r);
    json_object_set_new(o, key, json_integer(n < lo ? lo : n));
}

json_t *pf_spec_example_budget(const pf_pde *p, const pf_budget *b, pf_fidelity f)
{
    if (!b) b = pf_budget_paper();
    json_t *raw = json_pack("{s:{}, s:{}, s:{}, s:{}, s:{}, s:{s:[{s:s, s:I, s:f}]}, s:{}}",
                            PF_SK(REPR), PF_SK(ARCH), PF_SK(SAMP), PF_SK(CONS), PF_SK(LOSS), PF_SK(OPT),
                            PF_SK(OPT_STAGES), PF_SK(STAGE_OPTIMIZER), "adam", PF_SK(STAGE_ADAM_STEPS),
                            (json_int_t)b->steps[f], PF_SK(STAGE_ADAM_LR), 1e-3, PF_SK(TRAIN));
    PF_ASSERT(raw);
    pf_spec_report *rep = malloc(sizeof *rep);
    PF_ASSERT(rep);
    memset(rep, 0, sizeof *rep);
    ctx c = {.p = p, .b = b, .rep = rep, .section = -1};
    json_t *n = normalize(&c, raw);
    json_decref(raw);
    free(rep);
    pf_spec_fit_budget(n, p, b);
    return n;
}

/* A pinnsformer's widths (d_model, d_ff, d_hidden) shrunk by one factor
 * r = 0.95^j, the smallest j that fits, so the network keeps its shape;
 * d_model stays a multiple of the heads. */
static void fit_seq(json_t *n, const pf_pde *p, const pf_budget *b, const pf_model_config *at)
{
    json_t *a = json_object_get(n, PF_SK(ARCH)), *q = json_object_get(a, PF_SK(ARCH_PINNSFORMER));
    long heads = at->heads;
    double w0 = at->width, f0 = at->d_ff, h0 = at->d_hidden;
    for (double r = 0.95;; r *= 0.95) {
        long w = lround(w0 * r / (double)heads) * heads, f = lround(f0 * r), h = lround(h0 * r);
        w = w < heads ? heads : w;
        f = f < 1 ? 1 : f;
        h = h < 1 ? 1 : h;
        json_object_set_new(a, PF_SK(ARCH_WIDTH), json_integer(w));
        json_object_set_new(q, PF_SK(ARCH_PINNSFORMER_D_FF), json_integer(f));
        json_object_set_new(q, PF_SK(ARCH_PINNSFORMER_D_HIDDEN), json_integer(h));
        pf_model_config mc;
        pf_train_config tc;
        fill(n, p, &mc, &tc);
        if ((long)pf_model_config_nparams(&mc) <= b->max_params || (w == heads && f == 1 && h == 1)) return;
    }
}

void pf_spec_fit_budget(json_t *n, const pf_pde *p, const pf_budget *b)
{
    if (!b) b = pf_budget_paper();
    /* every point set by one factor, then the width */
    json_t *s = json_object_get(n, PF_SK(SAMP)), *a = json_object_get(n, PF_SK(ARCH));
    long pts = 0;
    const char *sets[3] = {PF_SK(SAMP_INTERIOR), PF_SK(SAMP_BOUNDARY), PF_SK(SAMP_INITIAL)};
    for (int i = 0; i < 3; i++) pts += (long)json_integer_value(json_object_get(s, sets[i]));
    if (pts > b->max_points) {
        double r = (double)b->max_points / (double)pts;
        for (int i = 0; i < 3; i++)
            if (json_integer_value(json_object_get(s, sets[i])) > 0) scale_int(s, sets[i], r, 1);
    }
    for (;;) {
        pf_model_config mc;
        pf_train_config tc;
        fill(n, p, &mc, &tc);
        long w = (long)json_integer_value(json_object_get(a, PF_SK(ARCH_WIDTH)));
        if ((long)pf_model_config_nparams(&mc) <= b->max_params || w <= 1) break;
        if (pf_arch_def_of(mc.arch)->seq) {
            fit_seq(n, p, b, &mc);
            break;
        }
        json_object_set_new(a, PF_SK(ARCH_WIDTH), json_integer(w * 9 / 10));
    }
}


/* ------------------------------------------------------- describe */

typedef struct sbuf {
    char *s;
    size_t n, cap;
} sbuf;

__attribute__((format(printf, 2, 3))) static void sb_printf(sbuf *b, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int k = vsnprintf(b->s ? b->s + b->n : NULL, b->s ? b->cap - b->n : 0, fmt, ap);
        va_end(ap);
        if (k < 0) return;
        if (b->s && b->n + (size_t)k < b->cap) {
            b->n += (size_t)k;
            return;
        }
        size_t cap = (b->cap ? b->cap * 2 : 4096) + (size_t)k;
        char *s = realloc(b->s, cap);
        PF_ASSERT(s);
        b->s = s;
        b->cap = cap;
    }
}

static void describe_fields(sbuf *b, const pf_pde *p, const field *fs, int n, const char *path, int indent);

static void describe_field(sbuf *b, const pf_pde *p, const field *f, const char *path, int indent)
{
    char ok[400], list[400];
    switch (f->k) {
    case K_OBJ:
        sb_printf(b, "%*s- %s: object — %s\n", indent, "", path, f->doc);
        describe_fields(b, p, f->sub, f->nsub, path, indent + 2);
        return;
    case K_VARIANT: {
        const char *names[8];
        for (int i = 0; i < f->nvar; i++) names[i] = f->var[i].name;
        join(list, sizeof list, names, f->nvar);
        sb_printf(b, "%*s- %s: object chosen by \"%s\" (%s", indent, "", path, f->sel, list);
        if (f->required)
            sb_printf(b, "; required) — %s\n", f->doc);
        else
            sb_printf(b, "; default %s) — %s\n", f->var[(int)f->def].name, f->doc);
        for (int i = 0; i < f->nvar; i++) {
            sb_printf(b, "%*s  %s = %s: %s%s\n", indent, "", f->sel, f->var[i].name, f->var[i].doc,
                      f->var[i].n ? "; keys:" : "");
            describe_fields(b, p, f->var[i].f, f->var[i].n, path, indent + 4);
        }
        return;
    }
    case K_CUSTOM:
        switch (f->custom) {
        case C_INITIAL:
            sb_printf(b, "%*s- %s: an integer in [0, %ld] (default %d) — %s\n", indent, "", path,
                      PF_SPEC_MAX_POINTS, (int)field_default(f, p), f->doc);
            return;
        case C_PERIODIC_INPUTS:
            periodic_names(p, list, sizeof list);
            sb_printf(b, "%*s- %s: array of input names (default []) — %s; allowed: %s\n", indent, "", path,
                      f->doc, list);
            return;
        case C_TRANSFORM:
            if (p->nhard == 0) {
                sb_printf(b, "%*s- %s: %s provides no transform, so mode must be soft\n", indent, "", path,
                          p->name);
                return;
            }
            sb_printf(b, "%*s- %s: one of (default %s):\n", indent, "", path, p->hard[0].name);
            for (int i = 0; i < p->nhard; i++)
                sb_printf(b, "%*s    %s: %s (satisfies %s)\n", indent, "", p->hard[i].name, p->hard[i].what,
                          p->hard[i].satisfies);
            return;
        case C_WEIGHTS: {
            const char *names[PF_TRAIN_MAX_TERMS];
            int active[PF_TRAIN_MAX_TERMS], nt = loss_terms(p, -1, names, active);
            join(list, sizeof list, names, nt);
            sb_printf(b, "%*s- %s: object, %s; terms: %s (a term a hard transform satisfies is dropped)\n",
                      indent, "", path, f->doc, list);
            return;
        }
        default:
            sb_printf(b, "%*s- %s: %s\n", indent, "", path, f->doc);
            if (f->custom == C_STAGES) {
                char sub[256];
                snprintf(sub, sizeof sub, "%s[i]", path);
                describe_field(b, p, &stage_field, sub, indent + 2);
            }
            return;
        }
    default:
        allowed(f, ok, sizeof ok);
        sb_printf(b, "%*s- %s: %s", indent, "", path, ok);
        if (f->required)
            sb_printf(b, " (required)");
        else if (f->k == K_ENUM)
            sb_printf(b, " (default %s)", f->names[(int)f->def]);
        else if (f->k == K_BOOL)
            sb_printf(b, " (default %s)", f->def ? "true" : "false");
        else
            sb_printf(b, " (default %g)", f->def);
        sb_printf(b, " — %s\n", f->doc);
    }
}

static void describe_fields(sbuf *b, const pf_pde *p, const field *fs, int n, const char *path, int indent)
{
    for (int i = 0; i < n; i++) {
        char sub[256];
        snprintf(sub, sizeof sub, "%s%s%s", path ? path : "", path ? "." : "", fs[i].key);
        describe_field(b, p, &fs[i], sub, indent);
    }
}

char *pf_spec_describe(const pf_pde *p)
{
    return pf_spec_describe_budget(p, NULL);
}

char *pf_spec_describe_budget(const pf_pde *p, const pf_budget *bud)
{
    if (!bud) bud = pf_budget_paper();
    sbuf b = {0};
    char list[400], a[32], c2[32], d[32];
    sb_printf(&b, "AlgorithmSpec for %s (%s): inputs", p->name, p->time_input >= 0 ? "time-dependent" : "steady");
    for (int i = 0; i < p->d_in; i++) sb_printf(&b, "%s%s", i ? ", " : " ", p->inputs[i]);
    sb_printf(&b, "; outputs");
    for (int i = 0; i < p->d_out; i++) sb_printf(&b, "%s%s", i ? ", " : " ", p->outputs[i]);
    periodic_names(p, list, sizeof list);
    sb_printf(&b, "; periodic inputs: %s.\n", list);
    sections_list(list, sizeof list);
    sb_printf(&b, "A JSON object with the seven sections %s, all required (an empty object takes the defaults). "
                  "A key may be omitted to take its default; unknown keys are rejected. An object chosen by a key "
                  "may be written as that key's value alone (\"schedule\": \"cosine\").\n\n", list);
    describe_fields(&b, p, sections, S_COUNT, NULL, 0);
    fmt_count(bud->max_params, a, sizeof a);
    fmt_count(bud->max_points, c2, sizeof c2);
    fmt_count(bud->steps[PF_FIDELITY_LOW], d, sizeof d);
    sb_printf(&b, "\nLimits: at most %s trainable parameters; at most %s training points "
                  "(interior, or adaptive.cap with rar_d, + boundary + initial); the stages' steps sum to exactly "
                  "the fidelity budget: %s steps at low fidelity, ", a, c2, d);
    fmt_count(bud->steps[PF_FIDELITY_HIGH], d, sizeof d);
    sb_printf(&b, "%s at high fidelity.\n", d);
    return b.s;
}

pf_status pf_spec_load(const json_t *raw, const pf_pde *p, const pf_budget *b, pf_fidelity f, json_t **norm,
                       char hash[PF_SPEC_HASH_HEX], pf_model_config *mc, pf_train_config *tc, bool *scaled,
                       pf_spec_report *rep)
{
    *scaled = false;
    *norm = NULL;
    pf_spec_report *alt = malloc(sizeof *alt);
    if (!alt) return pf_fail(PF_ERR_NOMEM, "out of memory");
    pf_status st = pf_spec_check_budget(raw, p, b, f, norm, rep);
    for (int other = 0; st != PF_OK && other < PF_FIDELITY_COUNT; other++)
        if (other != (int)f && pf_spec_check_budget(raw, p, b, (pf_fidelity)other, norm, alt) == PF_OK)
            *scaled = true, st = PF_OK;
    free(alt);
    if (st != PF_OK) return pf_fail(PF_ERR_INVALID, "the spec is invalid for %s (%d reasons)", p->name, rep->n);
    rep->n = 0;
    pf_spec_hash(*norm, hash);
    st = pf_spec_instantiate(*norm, p, mc, tc);
    if (st == PF_OK && *scaled) st = pf_train_config_scale_steps(tc, b->steps[f]);
    if (st != PF_OK) {
        json_decref(*norm);
        *norm = NULL;
    }
    return st;
}
