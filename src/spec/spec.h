/*
 * spec.h — the AlgorithmSpec: one complete PINN configuration as JSON.
 *
 * A proposer (an LLM or the offline operators) writes a spec; this module
 * turns it into a pf_model_config and a pf_train_config, or says, one
 * sentence per problem, why it cannot (paper, appendix A.5):
 *
 *     parse -> normalize -> validate -> hash -> instantiate
 *
 *     json_t *raw, *norm;
 *     pf_spec_report rep;
 *     if (pf_spec_parse(text, &raw) != PF_OK) ...;             // pf_errmsg()
 *     if (pf_spec_check(raw, pde, PF_FIDELITY_LOW, &norm, &rep) != PF_OK)
 *         for (int i = 0; i < rep.n; i++) puts(rep.reason[i]); // fed back
 *     char hex[PF_SPEC_HASH_HEX];
 *     pf_spec_hash(norm, hex);
 *     pf_model_config mc; pf_train_config tc;
 *     pf_spec_instantiate(norm, pde, &mc, &tc);
 *
 * ----------------------------------------------------------------- shape
 *
 * Seven sections, each an object, all required (an empty object takes every
 * default); within a section a key may be omitted to take its default. The
 * canonical (normalized) form of `pf-spec example --pde burgers_1d` is
 *
 *   {"representation": {"normalize": false,
 *                       "fourier": {"features": 0, "sigma": 1.0, "trainable": false,
 *                                   "scales": 1, "ratio": 10.0},
 *                       "periodic": {"inputs": [], "harmonics": 1}},
 *    "architecture": {"type": "mlp", "depth": 5, "width": 100, "activation": "tanh",
 *                     "init": "glorot_normal", "adaptive": "none", "adapt_factor": 10.0,
 *                     "rwf": false, "rwf_mean": 1.0, "rwf_sigma": 0.10000000000000001},
 *    "sampling": {"interior": 8192, "boundary": 2048, "initial": 2048, "method": "uniform",
 *                 "resample_every": 0, "adaptive": {"method": "none"}},
 *    "constraints": {"mode": "soft"},
 *    "loss": {"weighting": {"method": "fixed"}, "weights": {"pde": 1.0, "ic": 1.0, "bc": 1.0},
 *             "causal": {"enabled": false}, "residual_normalization": "none"},
 *    "optimization": {"stages": [{"optimizer": "adam", "steps": 1000, "lr": 0.001,
 *                                 "schedule": {"kind": "constant"},
 *                                 "betas": [0.90000000000000002, 0.999], "eps": 1e-8,
 *                                 "weight_decay": 0.0, "grad_clip": 0.0}]},
 *    "training": {"log_every": 100, "eval_every": 100}}
 *
 * Some objects are *variants*: their first key selects which other keys
 * exist (sampling.adaptive by "method": rad adds k, c, every; rar_d also add,
 * cap; constraints by "mode": hard adds transform; loss.weighting by
 * "method": lr_annealing adds alpha, every, self_adaptive adds lr;
 * loss.causal by "enabled": true adds epsilon, chunks; a stage by
 * "optimizer": adam/adamw have lr, schedule, betas, eps, weight_decay,
 * grad_clip, sgd has lr, schedule, grad_clip, multiadam has lr, schedule,
 * betas (default [0.99, 0.99]), eps, lbfgs has lr, history, line_search; a
 * schedule by "kind";
 * training.region_optimization by "enabled": true adds r0, history,
 * max_radius — RoPINN's region optimization, train/config.h).
 * A key that the selected variant does not have is rejected rather than
 * ignored. A variant may be written as its selector alone: "schedule":
 * "cosine" is {"kind": "cosine"} (and "adaptive": "rad", "weighting":
 * "lr_annealing", "causal": true, ...).
 *
 * Every key, type, range, allowed name and default lives in one table in
 * spec.c; pf_spec_describe() prints that table as prompt text,
 * pf_spec_instantiate() reads every value through it, and
 * pf_spec_default_num/name() give its defaults to code that edits specs
 * (the offline proposer), so the prompt, the validator, the configs and the
 * proposer cannot drift apart.
 *
 * ------------------------------------------------------------- normalize
 *
 * Defaults expanded (some depend on the PDE: sampling.initial is 2048 for
 * a time-dependent PDE and 0 for a steady one, loss.weights lists the
 * PDE's terms — "pde" then its constraints — and constraints.transform
 * defaults to the PDE's first transform), keys in the order of the table
 * (the order above), integers as JSON integers (an integral real such as
 * 1000.0 is accepted for an integer field), reals as JSON reals (printed
 * with "%.17g", which round-trips). Two specs that differ only in key order
 * or in spelled-out defaults normalize to the same bytes, hence one hash.
 * One exception to "defaults expanded": training.region_optimization is
 * LEFT OUT when off (false, {"enabled": false} or absent), so the canonical
 * form and hash of every spec that does not use it are what they were
 * before the option existed (the example above has no such key).
 *
 * ------------------------------------------------------------- validate
 *
 * All reasons are collected (up to PF_SPEC_MAX_REASONS), each one sentence
 * that names the field path ("optimization.stages[1].steps") and the
 * allowed values or the limit:
 *   completeness   the seven sections are present; stages has 1..8 entries,
 *                  each with optimizer and steps;
 *   allowed space  types, ranges and names from the table; unknown keys;
 *   compatibility  a hard transform the PDE provides; periodic embedding only
 *                  on inputs with pde->period[i] > 0; causal weighting only on
 *                  time-dependent PDEs; sampling.initial 0 on steady PDEs;
 *                  loss.weights keys are the PDE's terms; rad with
 *                  resample_every 0; rar_d cap >= interior; rwf with
 *                  glorot_normal; modified_mlp depth >= 2; adapt slopes ...
 *                  (whatever pf_model_config_check() refuses);
 *   limits         <= PF_SPEC_MAX_PARAMS trainable parameters
 *                  (pf_model_config_nparams), <= PF_SPEC_MAX_POINTS
 *                  training points (pf_train_config_points), stage steps
 *                  summing to exactly the fidelity budget.
 * A limit or compatibility rule is checked only when the sections it reads
 * normalized cleanly, so a type error does not also produce a misleading
 * limit message. Limits are the paper's (appendix A.1 and table B.1): 2M parameters,
 * 65,536 training points, 1K steps at low and 10K at high fidelity.
 */
#ifndef PF_SPEC_SPEC_H
#define PF_SPEC_SPEC_H

#include <jansson.h>
#include <stddef.h>

#include "core/status.h"
#include "geom/pde.h"
#include "nn/model.h"
#include "train/config.h"

#define PF_SPEC_MAX_PARAMS 2000000L     /* trainable parameters (paper A.1) */
#define PF_SPEC_MAX_POINTS 65536L       /* training points (paper A.1, B.1) */
#define PF_SPEC_BUDGET_LOW 1000L        /* optimizer steps, low fidelity    */
#define PF_SPEC_BUDGET_HIGH 10000L      /* optimizer steps, high fidelity   */
#define PF_SPEC_BUDGET_BASELINE 20000L  /* optimizer steps, a baseline's candidate (B.8) */
#define PF_SPEC_MAX_REASONS 64
#define PF_SPEC_REASON_LEN 384
#define PF_SPEC_HASH_HEX 65             /* 64 hex digits + NUL */

/* How long a candidate trains. "baseline" is one of a baseline method's
 * five independently initialized candidates (paper 4.3 and B.8: 5 x 20,000
 * steps; search/baseline.h), which the search never trains. */
typedef enum pf_fidelity {
    PF_FIDELITY_LOW = 0, /* "low"      */
    PF_FIDELITY_HIGH,    /* "high"     */
    PF_FIDELITY_BASELINE,/* "baseline" */
    PF_FIDELITY_COUNT
} pf_fidelity;

const char *pf_fidelity_name(pf_fidelity f);
pf_status pf_fidelity_from_name(const char *name, pf_fidelity *out);
/* A budget (the pipeline's PROFILE): the step budget of each fidelity and
 * the limits a spec must keep. A budget changes numbers only, never code
 * paths.
 *   paper  1,000 / 10,000 steps, 20,000 per baseline candidate, 2,000,000
 *          parameters, 65,536 points (appendix A.1, B.1, B.8)
 *   quick  PF_SPEC_QUICK_* below: small enough for a CPU demo and CI
 *   smoke  quick's limits with a tenth of its steps: a pipeline that runs
 *          end to end in seconds (tests, a trial of a study or a cluster) */
typedef struct pf_budget {
    const char *name;
    long steps[PF_FIDELITY_COUNT];
    long max_params;
    long max_points;
} pf_budget;

#define PF_SPEC_QUICK_STEPS_LOW 200L
#define PF_SPEC_QUICK_STEPS_HIGH 1000L
#define PF_SPEC_QUICK_STEPS_BASELINE 1000L
#define PF_SPEC_QUICK_MAX_PARAMS 5000L
#define PF_SPEC_QUICK_MAX_POINTS 2048L
#define PF_SPEC_SMOKE_STEPS_DIVISOR 10L

const pf_budget *pf_budget_paper(void);
/* "paper", "quick" or "smoke"; PF_ERR_INVALID naming them otherwise. */
pf_status pf_budget_lookup(const char *name, const pf_budget **out);

/* Why a spec was rejected: n sentences (n <= PF_SPEC_MAX_REASONS; when more
 * problems exist the last one says so). Plain storage, no freeing. */
typedef struct pf_spec_report {
    int n;
    char reason[PF_SPEC_MAX_REASONS][PF_SPEC_REASON_LEN];
} pf_spec_report;

/* Parse JSON text; PF_ERR_INVALID with "spec: line L column C: ..." on a
 * syntax error. The caller owns *out (json_decref). */
pf_status pf_spec_parse(const char *text, json_t **out);

/* Normalize and validate `spec` for PDE p at fidelity f. On PF_OK *norm is
 * the canonical spec (new reference, caller decrefs) and rep->n == 0. On
 * PF_ERR_INVALID rep holds every reason, *norm is NULL and pf_errmsg() holds
 * the first reason. `rep` may not be NULL. */
pf_status pf_spec_check(const json_t *spec, const pf_pde *p, pf_fidelity f, json_t **norm,
                        pf_spec_report *rep);
/* The same against budget b's limits and step budget (NULL: paper). */
pf_status pf_spec_check_budget(const json_t *spec, const pf_pde *p, const pf_budget *b, pf_fidelity f,
                               json_t **norm, pf_spec_report *rep);

/* Normalization alone (no budget, limit or compatibility checks, but a
 * type or name error still fails, with reasons in rep). */
pf_status pf_spec_normalize(const json_t *spec, const pf_pde *p, json_t **norm,
                            pf_spec_report *rep);

/* The seven top-level sections, in table order: representation,
 * architecture, sampling, constraints, loss, optimization, training. NULL
 * past the end. */
#define PF_SPEC_SECTIONS 7
const char *pf_spec_section_name(int i);

/* How many of the first n sections (table order; n = PF_SPEC_SECTIONS for
 * all seven, PF_SPEC_SECTIONS - 1 to leave training out) differ between
 * two canonical specs. */
int pf_spec_sections_differing(const json_t *a, const json_t *b, int n);

/* Compact canonical text (what the hash covers); caller frees. */
char *pf_spec_canonical(const json_t *norm);

/* SHA-256 of pf_spec_canonical(norm), as 64 lower-case hex digits. */
pf_status pf_spec_hash(const json_t *norm, char hex[PF_SPEC_HASH_HEX]);

/* Fill the model and training configurations from a spec that
 * pf_spec_check() accepted. The spec is normalized again here (so a raw
 * spec works too), but the limits and compatibility rules are not
 * re-checked: call pf_spec_check() first. PF_ERR_INVALID with the first
 * reason if normalization fails. The model gets p's
 * input/output sizes, its bounding box for normalization and its periods.
 * Every config member is read through the table, so a key the spec leaves
 * out has the table's default; what the spec cannot say (the keys of the
 * variants it did not choose, L-BFGS tolerances) keeps the value of
 * pf_model_config_default(), pf_train_config_default() or
 * pf_stage_default(). */
pf_status pf_spec_instantiate(const json_t *norm, const pf_pde *p, pf_model_config *mc,
                              pf_train_config *tc);

/* A spec made ready to train at fidelity f within budget b (pf-train):
 * checked (pf_spec_check_budget) at f or, when its steps fit another
 * fidelity, at that one, then its steps scaled to b's f (*scaled true);
 * *norm the canonical spec (new reference), hash its SHA-256, mc and tc
 * instantiated. PF_ERR_INVALID with every reason in *rep (the check at f)
 * when it fits no fidelity; an instantiation or scaling failure otherwise
 * (rep->n 0). */
pf_status pf_spec_load(const json_t *raw, const pf_pde *p, const pf_budget *b, pf_fidelity f, json_t **norm,
                       char hash[PF_SPEC_HASH_HEX], pf_model_config *mc, pf_train_config *tc, bool *scaled,
                       pf_spec_report *rep);

/* The table's defaults, for code that edits specs and must read a key a
 * spec leaves out the way normalization would fill it in. A field is named
 * by its path: the keys that lead to it joined by ".", going through the
 * variant's name inside a variant; a variant's selector key names the
 * variant chosen by default:
 *
 *     pf_spec_default_num("architecture.width")                       100
 *     pf_spec_default_name("architecture.activation")                 "tanh"
 *     pf_spec_default_name("sampling.adaptive.method")                "none"
 *     pf_spec_default_num("sampling.adaptive.rar_d.cap")              16384
 *     pf_spec_default_num("loss.causal.enabled")                      0
 *     pf_spec_default_num("optimization.stages.adam.lr")              0.001
 *     pf_spec_default_name("optimization.stages.adam.schedule.kind")  "constant"
 *     pf_spec_default_num("optimization.stages.adam.schedule.cosine.lr_min")  0
 *
 * "loss.weights" is the weight of a term the spec does not list (1), and
 * "sampling.initial" the default of a time-dependent PDE (a steady PDE's
 * is 0). A path the table lacks, a field of the other kind, and a field
 * with no default (a stage's optimizer and steps, the stages themselves,
 * periodic inputs, a hard transform, betas) are contract violations
 * (PF_ASSERT), so a misspelled path fails at its first use. */
double pf_spec_default_num(const char *path);      /* a boolean is 0 or 1 */
const char *pf_spec_default_name(const char *path); /* static storage */

/* Every path of the table, depth first in the table's order: a section,
 * an object, a field, a variant's selector, the fields of each variant
 * (tests/test_spec_keys.c holds spec/spec_keys.def to it). */
#define PF_SPEC_PATH_MAX 80 /* the longest path, its NUL included */
void pf_spec_walk_paths(void (*visit)(const char *path, void *arg), void *arg);

/* ------------------------------------------------------------ field names
 *
 * Every path of the table by name (spec/spec_keys.def, one row per path):
 * PF_SK_PATH(ARCH_TYPE) is "architecture.type" and PF_SK(ARCH_TYPE) its
 * key "type" (the path's tail), so code that reads or edits a spec names
 * its fields by identifier and a misspelled one does not build:
 *
 *     pf_spec_default_num(PF_SK_PATH(ARCH_WIDTH))                     100
 *     json_object_get(json_object_get(spec, PF_SK(ARCH)), PF_SK(ARCH_RWF))
 */
typedef enum pf_spec_key {
#define PF_SPEC_KEY(ID, parent, key) PF_SK_##ID,
#include "spec/spec_keys.def"
#undef PF_SPEC_KEY
    PF_SK_COUNT
} pf_spec_key;

extern const char pf_spec_paths[PF_SK_COUNT][PF_SPEC_PATH_MAX];
/* The key of path k (its last member), in pf_spec_paths' storage. */
const char *pf_spec_key_name(pf_spec_key k);
#define PF_SK_PATH(ID) (pf_spec_paths[PF_SK_##ID])
#define PF_SK(ID) pf_spec_key_name(PF_SK_##ID)

/* The allowed space for PDE p as prompt text (malloc'ed, caller frees),
 * generated from the validator's table, with the PDE's terms, transforms,
 * periodic inputs and the limits and budgets. */
char *pf_spec_describe(const pf_pde *p);
/* The same with budget b's limits (NULL: paper). */
char *pf_spec_describe_budget(const pf_pde *p, const pf_budget *b);

/* PINNacle's default PINN as a canonical spec: a 5 x 100 tanh MLP, 8,192
 * interior, 2,048 boundary and (time-dependent PDEs only) 2,048 initial
 * points, Adam at lr 1e-3 for the whole budget of f, unit loss weights. New
 * reference; never NULL. */
json_t *pf_spec_example(const pf_pde *p, pf_fidelity f);
/* PINNacle's default shrunk to fit budget b (NULL: paper, the same as
 * pf_spec_example): the point counts scaled down together to the point
 * limit and the width reduced until the parameters fit; the steps are b's. */
json_t *pf_spec_example_budget(const pf_pde *p, const pf_budget *b, pf_fidelity f);

/* Shrink a canonical spec in place to budget b's limits (NULL: paper), the
 * way pf_spec_example_budget does: the interior, boundary and initial
 * counts scaled by one factor (each at least 1 when it was) until they sum
 * to at most b->max_points, then the width cut by 10% at a time until the
 * parameters fit (or it is 1); a pinnsformer's width, d_ff and d_hidden
 * together by one factor 0.95^j (the width a multiple of the heads). A spec
 * within the limits is left as it is.
 * Steps and everything else are untouched. */
void pf_spec_fit_budget(json_t *norm, const pf_pde *p, const pf_budget *b);

#endif
