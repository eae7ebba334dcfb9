/*
 * pinnsagent_space.h — PINNsAgent's search space (Wuwu et al., ICML 2025; its
 * configs/default_config.yaml): ten hyperparameters, and the AlgorithmSpec
 * each configuration means here.
 *
 *   key                  allowed values
 *   activation           elu selu sigmoid silu relu tanh swish sin gaussian
 *   net                  fnn laaf gaaf
 *   optimizer            sgd adam multiadam lbfgs
 *   lr                   1e-6 1e-5 1e-4 1e-3 1e-2 1e-1
 *   width                8, 12, ..., 256
 *   depth                3, 4, ..., 10
 *   num_domain_points    100, 600, ..., 9600
 *   num_boundary_points  100, 600, ..., 9600
 *   num_initial_points   100, 600, ..., 9600
 *   initializer          "Glorot normal" "Glorot uniform" "He normal"
 *                        "He uniform" "zeros"
 *
 * A configuration as JSON is an object with exactly these keys (the
 * planner's answer and the run database's rows). Reading one, as
 * PINNsAgent's planner does: a number is snapped to the nearest allowed
 * value (lr in log10), a categorical is matched without regard to case and
 * an unknown one becomes the first allowed value; each such change is
 * noted. A missing key or a value of the wrong type is refused (the planner
 * is asked again).
 *
 * The spec (pf_pa_config_spec): the network, the points and the optimizer
 * of the configuration on PINNacle's default trainer otherwise (unit loss
 * weights, fixed Hammersley points, no schedule), for the budget's
 * "baseline" steps:
 *   activation   swish is silu (the same function); gaussian is
 *                exp(-x^2 / (2 * 0.1^2))
 *   net          fnn: no adaptive activation; laaf: "layerwise"; gaaf:
 *                "global"; slope scale n = 10
 *   optimizer    sgd, adam, multiadam (betas 0.99, 0.99) at lr for every
 *                step; lbfgs: Adam at lr for the first quarter of the steps,
 *                then L-BFGS (PINNacle's Adam_LBFGS, 5,000 of 20,000)
 *   initializer  glorot_normal, glorot_uniform, he_normal, he_uniform, zeros
 *   points       interior, boundary, initial (0 on a steady PDE)
 * then shrunk to the budget's limits (pf_spec_fit_budget: at quick, the
 * points together to 2,048 and the width until 5,000 parameters).
 */
#ifndef PF_SPEC_PINNSAGENT_SPACE_H
#define PF_SPEC_PINNSAGENT_SPACE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/status.h"
#include "geom/pde.h"
#include "spec/spec.h"

#define PF_PA_NOTE 512

/* The ten hyperparameters, in the order above (that of PINNsAgent's
 * retriever, agents/retriever.py). */
typedef enum pf_pa_param {
    PF_PA_ACTIVATION,
    PF_PA_NET,
    PF_PA_OPTIMIZER,
    PF_PA_LR,
    PF_PA_WIDTH,
    PF_PA_DEPTH,
    PF_PA_DOMAIN_POINTS,
    PF_PA_BOUNDARY_POINTS,
    PF_PA_INITIAL_POINTS,
    PF_PA_INITIALIZER,
    PF_PA_PARAM_COUNT
} pf_pa_param;

/* The key of p ("num_domain_points", ...), and the parameter of a key (-1
 * when none). */
const char *pf_pa_param_name(pf_pa_param p);
int pf_pa_param_find(const char *name);
/* activation, net, optimizer and initializer are categorical; the others
 * numeric. */
bool pf_pa_param_categorical(pf_pa_param p);
/* A categorical parameter's values: the count, and value i's name as
 * PINNsAgent spells it (NULL out of range or for a numeric parameter). */
int pf_pa_value_count(pf_pa_param p);
const char *pf_pa_value_name(pf_pa_param p, int i);

/* A configuration: for each parameter (in the order above) the index of
 * its value among the allowed ones (the names, or the numeric grid). */
typedef struct pf_pa_config {
    int level[PF_PA_PARAM_COUNT];
} pf_pa_config;

/* Read a configuration (see above). note (cap bytes, may be NULL) gets the
 * changes made, "" when none. PF_ERR_INVALID naming the key otherwise. */
pf_status pf_pa_config_read(const json_t *o, pf_pa_config *c, char *note, size_t cap);

/* The configuration as JSON (new reference; keys in the order above, the
 * names as PINNsAgent spells them). */
json_t *pf_pa_config_json(const pf_pa_config *c);

bool pf_pa_config_equal(const pf_pa_config *a, const pf_pa_config *b);

/* Parameter p as text ("tanh", "0.001", "100"), into buf. */
const char *pf_pa_config_value(const pf_pa_config *c, pf_pa_param p, char *buf, size_t cap);

/* How many values parameter p allows (a numeric one: its grid's). */
int pf_pa_param_levels(pf_pa_param p);
/* The numeric value of parameter p (a numeric one: lr, width, ...). */
double pf_pa_config_num(const pf_pa_config *c, pf_pa_param p);

/* The canonical spec of c for PDE p within budget b (NULL: paper), steps
 * b's "baseline" fidelity (see above). PF_ERR_INVALID with the reasons
 * joined when it does not validate. */
pf_status pf_pa_config_spec(const pf_pa_config *c, const pf_pde *p, const pf_budget *b, json_t **out);

/* The space as prompt text (malloc'ed): one line per key with its values. */
char *pf_pa_space_describe(void);

#endif
