/*
 * offline_impl.h — private to the offline rule-based proposer (no LLM).
 *
 * The proposer is split by concern:
 *   offline.c            the public entry points (names, pf_offline_answer,
 *                        the provider vtable), reading the context into a
 *                        pf_off, writing the answer text;
 *   offline_edit.c       the rationale notes, small edits of a working spec
 *                        (one JSON object in canonical shape) and the repair
 *                        loop that turns any candidate into one
 *                        pf_spec_check() accepts;
 *   offline_ops.c        the operator table: each operator changes one
 *                        mechanism (Fourier features, RAD, a hard transform,
 *                        an L-BFGS tail, ...) and writes one rationale note;
 *   offline_roles.c      generation-0 roles: which operators each applies;
 *   offline_strategies.c the five strategies and the escape post-check;
 *   offline_posterior.c  mechanisms of a spec, the posterior M_g, and reading
 *                        M_g back.
 *
 * Calls run one way, top to bottom (no part calls a part above it):
 *   offline.c -> offline_roles.c, offline_strategies.c -> offline_ops.c
 *     -> offline_posterior.c -> offline_edit.c
 * (a part may also call any part further down directly). The small helpers
 * every part needs (pf_off_chance, pf_off_pick, pf_off_has_tag) are static
 * inline below; pf_off_note lives in offline_edit.c, the bottom.
 *
 * Everything random draws from o->rng, seeded from the run seed and the
 * request hash, so one request always gets the same bytes.
 */
#ifndef PF_LLM_OFFLINE_IMPL_H
#define PF_LLM_OFFLINE_IMPL_H

#include <jansson.h>
#include <stdbool.h>

#include "core/rng.h"
#include "core/status.h"
#include "geom/pde.h"
#include "llm/method.h"
#include "spec/spec.h"

#define PF_OFF_MAX_PARENTS 3
#define PF_OFF_MAX_NOTES 6
#define PF_OFF_NOTE_LEN 320


/* One parent of a strategy call: its spec normalized for this PDE (steps as
 * the parent had them), and what execution feedback is visible. */
typedef struct pf_off_parent {
    json_t *spec;            /* owned */
    const json_t *evidence;  /* borrowed from the context; NULL when hidden */
    double y;                /* NAN when hidden or missing */
    const char *status;      /* NULL when hidden */
} pf_off_parent;

typedef struct pf_off {
    const pf_pde *pde;
    pf_fidelity fid;
    const pf_budget *budget; /* the context's "budget" (paper when absent) */
    pf_rng *rng;
    pf_method method;
    bool escape;
    bool feedback;           /* execution feedback may be read */
    int role, strategy;      /* -1 when not that kind of call */
    int npar;
    pf_off_parent par[PF_OFF_MAX_PARENTS];
    const json_t *knowledge; /* borrowed; NULL when absent */
    json_t *failed;          /* mechanism names M_g lists as failing (array, owned) */
    json_t *good;            /* mechanism names of M_g's best candidates (array, owned) */
    json_t *tried;           /* mechanism names M_g has seen at all (array, owned) */
    unsigned groups;         /* operator groups already used in this answer */
    int nnotes;
    char notes[PF_OFF_MAX_NOTES][PF_OFF_NOTE_LEN];
} pf_off;

/* ---- helpers for every part ---- */
/* True with probability p (one draw from o->rng). */
static inline bool pf_off_chance(pf_off *o, double p) { return pf_rng_uniform(o->rng) < p; }
/* A uniform index in [0, n) (one draw from o->rng); 0 when n <= 0, without a draw. */
static inline int pf_off_pick(pf_off *o, int n) { return n > 0 ? (int)pf_rng_int(o->rng, (uint64_t)n) : 0; }
/* Whether the PDE carries tag (a PF_TAG_* bit). */
static inline bool pf_off_has_tag(const pf_off *o, unsigned tag) { return (o->pde->tags & tag) != 0; }

/* ---- offline_edit.c ---- */
/* Append one rationale line (dropped once PF_OFF_MAX_NOTES are written). */
void pf_off_note(pf_off *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
json_t *pf_off_sec(json_t *spec, const char *name);      /* the section, created if absent */
json_t *pf_off_obj(json_t *parent, const char *key);     /* a sub-object, created if absent */
double pf_off_num(const json_t *obj, const char *key, double dflt);
const char *pf_off_str(const json_t *obj, const char *key, const char *dflt);
/* The spec field k (spec.h: PF_SK_ARCH_WIDTH) from `obj`, the object
 * holding it (its key), or the table's default (pf_spec_default_num/name). */
double pf_off_field_num(const json_t *obj, pf_spec_key k);
const char *pf_off_field_str(const json_t *obj, pf_spec_key k);
/* Total steps of a spec's stages; the learning rate of its first stage. */
long pf_off_steps(const json_t *spec);
double pf_off_first_lr(const json_t *spec);
/* Rescale the stages' steps to sum exactly to the fidelity budget. */
void pf_off_fit_budget(json_t *spec, long budget);
/* Drop loss weights that are not active terms (a hard transform took them). */
void pf_off_fit_weights(json_t *spec, const pf_pde *p);
/* The active loss terms of a spec: "pde" then the soft constraints. */
int pf_off_active_terms(const json_t *spec, const pf_pde *p, const char **names, int cap);
/* Index of the transform a hard spec uses, -1 when soft. */
int pf_off_hard_index(const json_t *spec, const pf_pde *p);
/* Make `cand` valid: targeted fixes, then sections from `base`, then `base`
 * itself, then PINNacle's default. Returns the normalized spec (new ref,
 * never NULL); cand is consumed. *fallbacks: 0 when the targeted fixes
 * sufficed, 1 when sections (or all) came from base, 2 when the default. */
json_t *pf_off_validate(pf_off *o, json_t *cand, const json_t *base, int *fallbacks);
/* ---- offline_ops.c ---- */
typedef int (*pf_off_op_fn)(pf_off *o, json_t *spec);

typedef enum pf_off_op_id {
    OP_NORMALIZE, OP_FOURIER, OP_MULTISCALE, OP_PERIODIC,
    OP_ACT_SIN, OP_ACT_SMOOTH, OP_MODIFIED_MLP, OP_RESNET, OP_WIDER, OP_DEEPER, OP_RWF, OP_ADAPTIVE_ACT,
    OP_RAD, OP_RAR_D, OP_SOBOL, OP_LHS, OP_RESAMPLE, OP_MORE_INTERIOR, OP_MORE_BOUNDARY, OP_MORE_INITIAL,
    OP_HARD,
    OP_CAUSAL, OP_RAISE_CONSTRAINTS, OP_OBS_WEIGHT, OP_LR_ANNEALING, OP_SELF_ADAPTIVE, OP_RESNORM,
    OP_ADAMW, OP_SCHEDULE, OP_CLIP, OP_LBFGS_TAIL, OP_LOWER_LR, OP_ONE_CYCLE,
    OP_REGION, OP_HAMMERSLEY,
    OP_RELU_HE, OP_GLOBAL_ADAPTIVE, OP_MULTIADAM,
    OP_COUNT
} pf_off_op_id;

typedef struct pf_off_op {
    pf_off_op_id id;
    const char *name;
    int section;             /* index of a section (pf_spec_section_name) */
    const char *mech;        /* the mechanism it introduces (pf_offline_mechanisms), NULL if none */
    unsigned tags;           /* PDE tags that make it more relevant */
    const char *keywords;    /* comma-separated words that knowledge entries may carry */
    pf_off_op_fn apply;      /* 1 changed, 0 not applicable/already there */
    int (*applicable)(const pf_off *o, const json_t *spec);
    int group;               /* operators of one group (> 0) exclude each other within one answer */
} pf_off_op;

const pf_off_op *pf_off_op_get(pf_off_op_id id);
/* Apply one operator; returns 1 when the spec changed. */
int pf_off_apply(pf_off *o, pf_off_op_id id, json_t *spec);
/* A weight for drawing operator id: PDE tags, knowledge, memory. */
double pf_off_op_weight(const pf_off *o, pf_off_op_id id);
/* Draw up to k distinct operators from `pool` (n ids) by weight and apply
 * the applicable ones; returns how many changed the spec. `avoid` (a JSON
 * array of mechanism names or NULL) excludes operators adding one of them. */
int pf_off_apply_some(pf_off *o, json_t *spec, const pf_off_op_id *pool, int n, int k, const json_t *avoid);
/* The transform satisfying the most constraints (first on ties) among those
 * that make `term` exact (all when term is NULL); -1 when there is none. */
int pf_off_best_transform(const pf_pde *p, const char *term);
/* Remove a mechanism from a spec (the escape's failed-mechanism rule);
 * 1 when something changed. */
int pf_off_remove_mechanism(pf_off *o, json_t *spec, const char *mech);
/* Change section `s` of spec for sure (escape), returns 1 when changed. */
int pf_off_perturb_section(pf_off *o, json_t *spec, int s);

/* ---- offline_roles.c / offline_strategies.c ---- */
json_t *pf_off_role(pf_off *o, int role);
json_t *pf_off_strategy(pf_off *o, int strategy);
/* The escape post-check: mutate `norm` until it differs from every parent
 * in at least two substantive sections and carries no failed mechanism.
 * Consumes norm, returns the final normalized spec. */
json_t *pf_off_enforce_escape(pf_off *o, json_t *norm);

/* ---- offline_posterior.c ---- */
pf_status pf_off_posterior(const json_t *context, char **text);
/* Read M_g's ```json block (when there is one) into o->failed / good / tried. */
void pf_off_read_memory(pf_off *o, const char *memory);
bool pf_off_json_has_string(const json_t *arr, const char *s);
/* The first ```json fenced block of text, parsed; NULL when none parses. */
json_t *pf_off_fenced_json(const char *text);

/* ---- offline_pinnsagent.c ---- */
/* The answer to a "pinnsagent" planner context (offline.h). */
pf_status pf_off_pinnsagent(const json_t *cx, uint64_t seed, char **text);

#endif
