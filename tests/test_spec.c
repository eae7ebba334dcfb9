/*
 * test_spec.c — AlgorithmSpec (src/spec/): normalization, hashing, msgpack
 * round trips, every validation rule with its message, the limits exactly
 * at their boundaries, the default example for every PDE, instantiation
 * (every field of the table, left out and given).
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "geom/sample.h"
#include "io/msgpack_json.h"
#include "registry.h"
#include "spec/spec.h"
#include "tensor/graph.h"
#include "train/config.h"
#include "train/schedule.h"

static const pf_pde *pde(const char *name)
{
    const pf_pde *p = NULL;
    cr_assert_eq(pf_pdes_lookup(name, &p), PF_OK, "%s", pf_errmsg());
    return p;
}

/* Set root.a.b.c = v (steals v), creating objects on the way. */
static void set(json_t *root, const char *path, json_t *v)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    json_t *o = root;
    char *save = NULL, *t = strtok_r(buf, ".", &save);
    for (char *next; (next = strtok_r(NULL, ".", &save)); t = next) {
        json_t *sub = json_object_get(o, t);
        if (!sub) json_object_set_new(o, t, sub = json_object());
        o = sub;
    }
    json_object_set_new(o, t, v);
}

static json_t *load(const char *text)
{
    json_t *j = NULL;
    cr_assert_eq(pf_spec_parse(text, &j), PF_OK, "%s", pf_errmsg());
    return j;
}

static pf_spec_report rep;

static int has_reason(const char *want)
{
    for (int i = 0; i < rep.n; i++)
        if (!strcmp(rep.reason[i], want)) return 1;
    return 0;
}

static void dump_reasons(void)
{
    for (int i = 0; i < rep.n; i++) cr_log_info("reason: %s", rep.reason[i]);
}

/* spec must be rejected with exactly the sentence `want` among the reasons */
static void expect_reject(json_t *spec, const pf_pde *p, pf_fidelity f, const char *want)
{
    json_t *n = NULL;
    pf_status st = pf_spec_check(spec, p, f, &n, &rep);
    if (!has_reason(want)) dump_reasons();
    cr_assert_eq(st, PF_ERR_INVALID, "spec accepted; expected: %s", want);
    cr_assert_null(n);
    cr_assert(has_reason(want), "missing reason: %s (first: %s)", want, rep.n ? rep.reason[0] : "");
    json_decref(spec);
}

static void expect_accept(json_t *spec, const pf_pde *p, pf_fidelity f)
{
    json_t *n = NULL;
    pf_status st = pf_spec_check(spec, p, f, &n, &rep);
    if (st != PF_OK) dump_reasons();
    cr_assert_eq(st, PF_OK, "rejected: %s", rep.n ? rep.reason[0] : "");
    cr_assert_eq(rep.n, 0);
    json_decref(n);
    json_decref(spec);
}

static char *canon(const json_t *j)
{
    char *s = pf_spec_canonical(j);
    cr_assert_not_null(s);
    return s;
}

/* A spec that exercises variants, custom fields and several stages. */
static const char *rich =
    "{\"training\": {\"eval_every\": 50},"
    " \"optimization\": {\"stages\": [{\"steps\": 600, \"optimizer\": \"adamw\", \"lr\": 2e-3,"
    "     \"schedule\": {\"kind\": \"cosine\", \"lr_min\": 1e-5, \"warmup_steps\": 50},"
    "     \"betas\": [0.9, 0.99], \"grad_clip\": 1}, {\"optimizer\": \"lbfgs\", \"steps\": 400.0,"
    "     \"history\": 50}]},"
    " \"loss\": {\"weights\": {\"pde\": 10}, \"weighting\": \"lr_annealing\", \"causal\": true},"
    " \"constraints\": {\"mode\": \"hard\"},"
    " \"sampling\": {\"adaptive\": {\"method\": \"rar_d\", \"cap\": 20000}, \"method\": \"sobol\"},"
    " \"architecture\": {\"width\": 64, \"type\": \"modified_mlp\", \"activation\": \"sin\"},"
    " \"representation\": {\"normalize\": true, \"fourier\": {\"features\": 32, \"sigma\": 2}}}";

Test(spec, msgpack_round_trip_is_identical)
{
    const pf_pde *p = pde("burgers_1d");
    json_t *raw = load(rich), *n = NULL, *back = NULL;
    cr_assert_eq(pf_spec_check(raw, p, PF_FIDELITY_LOW, &n, &rep), PF_OK, "%s", pf_errmsg());
    char *buf;
    size_t len;
    cr_assert_eq(pf_json_to_msgpack(n, &buf, &len), PF_OK);
    cr_assert_eq(pf_json_from_msgpack(buf, len, &back), PF_OK, "%s", pf_errmsg());
    char *a = canon(n), *b = canon(back);
    cr_assert_str_eq(a, b);
    cr_assert(json_equal(n, back));
    /* the round trip is also normalized already: normalizing again changes nothing */
    json_t *n2 = NULL;
    cr_assert_eq(pf_spec_normalize(back, p, &n2, &rep), PF_OK);
    char *c = canon(n2);
    cr_assert_str_eq(a, c);
    /* a truncated buffer is an error, not a crash */
    json_t *bad = NULL;
    cr_assert_eq(pf_json_from_msgpack(buf, len - 1, &bad), PF_ERR_IO);
    free(a), free(b), free(c), free(buf);
    json_decref(raw), json_decref(n), json_decref(n2), json_decref(back);
}

Test(spec, msgpack_round_trip_every_example)
{
    for (int i = 0; i < pf_pdes_count(); i++) {
        json_t *n = pf_spec_example(pf_pdes_at(i), PF_FIDELITY_HIGH), *back = NULL;
        char *buf;
        size_t len;
        cr_assert_eq(pf_json_to_msgpack(n, &buf, &len), PF_OK);
        cr_assert_eq(pf_json_from_msgpack(buf, len, &back), PF_OK);
        char *a = canon(n), *b = canon(back);
        cr_assert_str_eq(a, b, "%s", pf_pdes_at(i)->name);
        free(a), free(b), free(buf);
        json_decref(n), json_decref(back);
    }
}

Test(spec, hash_stable_under_reordering_and_defaults)
{
    const pf_pde *p = pde("burgers_1d");
    /* the rich spec with every object's keys in another order */
    const char *reordered =
        "{\"representation\": {\"fourier\": {\"sigma\": 2.0, \"features\": 32}, \"normalize\": true},"
        " \"architecture\": {\"activation\": \"sin\", \"type\": \"modified_mlp\", \"width\": 64},"
        " \"sampling\": {\"method\": \"sobol\", \"adaptive\": {\"cap\": 20000, \"method\": \"rar_d\"}},"
        " \"constraints\": {\"mode\": \"hard\"},"
        " \"loss\": {\"causal\": {\"enabled\": true}, \"weighting\": {\"method\": \"lr_annealing\"},"
        "     \"weights\": {\"pde\": 10.0}},"
        " \"optimization\": {\"stages\": [{\"grad_clip\": 1.0, \"betas\": [0.9, 0.99], \"lr\": 0.002,"
        "     \"optimizer\": \"adamw\", \"schedule\": {\"warmup_steps\": 50, \"lr_min\": 0.00001,"
        "     \"kind\": \"cosine\"}, \"steps\": 600}, {\"history\": 50, \"steps\": 400, \"optimizer\": \"lbfgs\"}]},"
        " \"training\": {\"eval_every\": 50}}";
    json_t *a = load(rich), *b = load(reordered), *na, *nb;
    cr_assert_eq(pf_spec_check(a, p, PF_FIDELITY_LOW, &na, &rep), PF_OK);
    cr_assert_eq(pf_spec_check(b, p, PF_FIDELITY_LOW, &nb, &rep), PF_OK);
    char ha[PF_SPEC_HASH_HEX], hb[PF_SPEC_HASH_HEX], hc[PF_SPEC_HASH_HEX], hd[PF_SPEC_HASH_HEX];
    cr_assert_eq(pf_spec_hash(na, ha), PF_OK);
    cr_assert_eq(pf_spec_hash(nb, hb), PF_OK);
    cr_assert_str_eq(ha, hb);
    cr_assert_eq(strlen(ha), 64);

    /* defaults omitted vs spelled out: the minimal example against the expanded one */
    json_t *min = load("{\"representation\": {}, \"architecture\": {}, \"sampling\": {},"
                       " \"constraints\": {}, \"loss\": {}, \"training\": {},"
                       " \"optimization\": {\"stages\": [{\"optimizer\": \"adam\", \"steps\": 1000}]}}");
    json_t *full = pf_spec_example(p, PF_FIDELITY_LOW), *nm, *nf;
    cr_assert_eq(pf_spec_check(min, p, PF_FIDELITY_LOW, &nm, &rep), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(pf_spec_check(full, p, PF_FIDELITY_LOW, &nf, &rep), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(pf_spec_hash(nm, hc), PF_OK);
    cr_assert_eq(pf_spec_hash(nf, hd), PF_OK);
    cr_assert_str_eq(hc, hd);
    cr_assert_str_neq(ha, hc);
    /* a changed value changes the hash */
    set(full, "architecture.width", json_integer(101));
    json_t *nw;
    cr_assert_eq(pf_spec_check(full, p, PF_FIDELITY_LOW, &nw, &rep), PF_OK);
    cr_assert_eq(pf_spec_hash(nw, ha), PF_OK);
    cr_assert_str_neq(ha, hd);
    json_decref(a), json_decref(b), json_decref(na), json_decref(nb), json_decref(min);
    json_decref(full), json_decref(nm), json_decref(nf), json_decref(nw);
}

Test(spec, numbers_are_canonical)
{
    const pf_pde *p = pde("poisson_5d");
    json_t *s = pf_spec_example(p, PF_FIDELITY_LOW), *n;
    set(s, "architecture.depth", json_real(4.0));   /* integral real -> integer */
    set(s, "architecture.adapt_factor", json_integer(5)); /* integer -> real */
    json_t *st = json_array_get(json_object_get(json_object_get(s, "optimization"), "stages"), 0);
    json_object_set_new(st, "lr", json_real(0.1));
    cr_assert_eq(pf_spec_check(s, p, PF_FIDELITY_LOW, &n, &rep), PF_OK);
    char *c = canon(n);
    cr_assert_not_null(strstr(c, "\"depth\":4,"), "%s", c);
    cr_assert_not_null(strstr(c, "\"adapt_factor\":5.0,"), "%s", c);
    cr_assert_not_null(strstr(c, "\"lr\":0.10000000000000001,"), "%s", c);
    free(c);
    json_decref(s), json_decref(n);
}

/* ------------------------------------------------------------ rules */

static json_t *ex(const char *name)
{
    return pf_spec_example(pde(name), PF_FIDELITY_LOW);
}

static json_t *stage(json_t *s, int i)
{
    return json_array_get(json_object_get(json_object_get(s, "optimization"), "stages"), (size_t)i);
}

Test(spec, rejects_missing_section)
{
    json_t *s = ex("poisson_5d");
    json_object_del(s, "loss");
    expect_reject(s, pde("poisson_5d"), PF_FIDELITY_LOW,
                  "loss is missing; an AlgorithmSpec needs all seven sections: representation, architecture, "
                  "sampling, constraints, loss, optimization, training.");
}

Test(spec, rejects_unknown_section_and_key)
{
    json_t *s = ex("poisson_5d");
    json_object_set_new(s, "extras", json_object());
    set(s, "architecture.dropout", json_real(0.1));
    expect_reject(s, pde("poisson_5d"), PF_FIDELITY_LOW,
                  "architecture.dropout is not allowed; allowed keys: type, depth, width, activation, init, "
                  "adaptive, adapt_factor, rwf, rwf_mean, rwf_sigma.");
    s = ex("poisson_5d");
    json_object_set_new(s, "extras", json_object());
    expect_reject(s, pde("poisson_5d"), PF_FIDELITY_LOW,
                  "extras is not a section of an AlgorithmSpec; allowed: representation, architecture, "
                  "sampling, constraints, loss, optimization, training.");
}

Test(spec, rejects_names_outside_the_space)
{
    json_t *s = ex("poisson_5d");
    set(s, "architecture.activation", json_string("leaky_relu"));
    expect_reject(s, pde("poisson_5d"), PF_FIDELITY_LOW,
                  "architecture.activation 'leaky_relu' is unknown; allowed: tanh, sin, silu, gelu, softplus, sigmoid, "
                  "elu, selu, relu, gaussian.");
    s = ex("poisson_5d");
    set(s, "sampling.adaptive", json_string("rar"));
    expect_reject(s, pde("poisson_5d"), PF_FIDELITY_LOW,
                  "sampling.adaptive.method 'rar' is unknown; allowed: none, rad, rar_d.");
    s = ex("poisson_5d");
    json_object_set_new(stage(s, 0), "optimizer", json_string("rmsprop"));
    expect_reject(s, pde("poisson_5d"), PF_FIDELITY_LOW,
                  "optimization.stages[0].optimizer 'rmsprop' is unknown; allowed: adam, adamw, lbfgs, sgd, multiadam.");
    s = ex("poisson_5d");
    json_object_set_new(stage(s, 0), "schedule", json_string("linear"));
    expect_reject(s, pde("poisson_5d"), PF_FIDELITY_LOW,
                  "optimization.stages[0].schedule.kind 'linear' is unknown; allowed: constant, exponential, "
                  "step, cosine, one_cycle.");
}

Test(spec, rejects_out_of_range_and_wrong_types)
{
    json_t *s = ex("poisson_5d");
    set(s, "architecture.depth", json_integer(0));
    expect_reject(s, pde("poisson_5d"), PF_FIDELITY_LOW,
                  "architecture.depth must be an integer in [1, 128] (got 0).");
    s = ex("poisson_5d");
    set(s, "architecture.width", json_real(64.5));
    expect_reject(s, pde("poisson_5d"), PF_FIDELITY_LOW,
                  "architecture.width must be an integer in [1, 8192] (got 64.5).");
    s = ex("poisson_5d");
    json_object_set_new(stage(s, 0), "lr", json_real(0));
    expect_reject(s, pde("poisson_5d"), PF_FIDELITY_LOW,
                  "optimization.stages[0].lr must be a number in (0, 10] (got 0.0).");
    s = ex("poisson_5d");
    json_object_set_new(stage(s, 0), "betas", json_pack("[f]", 0.9));
    expect_reject(s, pde("poisson_5d"), PF_FIDELITY_LOW,
                  "optimization.stages[0].betas must be an array of two numbers in [0, 1) (got [0.90000000000000002]).");
    s = ex("poisson_5d");
    set(s, "representation.normalize", json_string("yes"));
    expect_reject(s, pde("poisson_5d"), PF_FIDELITY_LOW,
                  "representation.normalize must be true or false (got \"yes\").");
}

Test(spec, rejects_keys_of_another_variant)
{
    json_t *s = ex("poisson_5d");
    json_array_append_new(json_object_get(json_object_get(s, "optimization"), "stages"),
                          json_pack("{s:s, s:i, s:[ff]}", "optimizer", "lbfgs", "steps", 100, "betas", 0.9, 0.99));
    json_object_set_new(stage(s, 0), "steps", json_integer(900));
    expect_reject(s, pde("poisson_5d"), PF_FIDELITY_LOW,
                  "optimization.stages[1].betas is not allowed when optimization.stages[1].optimizer is 'lbfgs'; "
                  "allowed keys: optimizer, steps, lr, history, line_search, max_iter, max_eval, tolerance_grad, "
                  "tolerance_change.");
    s = ex("poisson_5d");
    set(s, "sampling.adaptive", json_pack("{s:s, s:i}", "method", "rad", "cap", 100));
    expect_reject(s, pde("poisson_5d"), PF_FIDELITY_LOW,
                  "sampling.adaptive.cap is not allowed when sampling.adaptive.method is 'rad'; allowed keys: "
                  "method, k, c, every.");
}

Test(spec, rejects_incomplete_stages)
{
    json_t *s = ex("poisson_5d");
    json_object_del(stage(s, 0), "steps");
    expect_reject(s, pde("poisson_5d"), PF_FIDELITY_LOW,
                  "optimization.stages[0].steps is missing; it must be an integer in [1, 20000].");
    s = ex("poisson_5d");
    json_object_del(stage(s, 0), "optimizer");
    expect_reject(s, pde("poisson_5d"), PF_FIDELITY_LOW,
                  "optimization.stages[0].optimizer is missing; it must be one of: adam, adamw, lbfgs, sgd, multiadam.");
    s = ex("poisson_5d");
    set(s, "optimization.stages", json_array());
    expect_reject(s, pde("poisson_5d"), PF_FIDELITY_LOW,
                  "optimization.stages must be an array of 1 to 8 stages (got []).");
}

Test(spec, rejects_transform_the_pde_lacks)
{
    json_t *s = ex("burgers_1d");
    set(s, "constraints", json_pack("{s:s, s:s}", "mode", "hard", "transform", "box_bubble"));
    expect_reject(s, pde("burgers_1d"), PF_FIDELITY_LOW,
                  "constraints.transform \"box_bubble\" is not a transform that burgers_1d provides; allowed: "
                  "initial_and_walls.");
    for (int i = 0; i < pf_pdes_count(); i++) {
        const pf_pde *p = pf_pdes_at(i);
        if (p->nhard) continue;
        s = pf_spec_example(p, PF_FIDELITY_LOW);
        set(s, "constraints", json_string("hard"));
        char want[256];
        snprintf(want, sizeof want,
                 "constraints.mode 'hard' needs an exact transform, and %s provides none; allowed: soft.", p->name);
        expect_reject(s, p, PF_FIDELITY_LOW, want);
    }
}

Test(spec, rejects_periodic_embedding_on_non_periodic_input)
{
    const pf_pde *p = pde("poisson_5d");
    json_t *s = ex("poisson_5d");
    set(s, "representation.periodic.inputs", json_pack("[s]", p->inputs[0]));
    char want[256];
    snprintf(want, sizeof want,
             "representation.periodic.inputs[0] \"%s\" is not a periodic input of poisson_5d, so it cannot have "
             "a periodic embedding; allowed: none (poisson_5d is periodic in no input).", p->inputs[0]);
    expect_reject(s, p, PF_FIDELITY_LOW, want);
    /* and accepted where the PDE is periodic: burgers_2d in x and y */
    const pf_pde *q = pde("burgers_2d");
    s = pf_spec_example(q, PF_FIDELITY_LOW);
    set(s, "representation.periodic.inputs", json_pack("[ss]", q->inputs[1], q->inputs[0]));
    json_t *n;
    cr_assert_eq(pf_spec_check(s, q, PF_FIDELITY_LOW, &n, &rep), PF_OK, "%s", pf_errmsg());
    pf_model_config mc;
    pf_train_config tc;
    cr_assert_eq(pf_spec_instantiate(n, q, &mc, &tc), PF_OK);
    cr_assert(mc.periodic[0] && mc.periodic[1] && !mc.periodic[2]);
    cr_assert_eq(mc.period[0], q->period[0]);
    json_decref(s), json_decref(n);
}

Test(spec, rejects_causal_and_initial_on_steady_pde)
{
    json_t *s = ex("poisson_5d");
    set(s, "loss.causal", json_true());
    expect_reject(s, pde("poisson_5d"), PF_FIDELITY_LOW,
                  "loss.causal.enabled must be false because poisson_5d is steady (causal weighting needs a time "
                  "input).");
    s = ex("poisson_5d");
    set(s, "sampling.initial", json_integer(10));
    expect_reject(s, pde("poisson_5d"), PF_FIDELITY_LOW,
                  "sampling.initial must be 0 because poisson_5d is steady (it has no initial condition).");
}

Test(spec, rejects_unknown_and_dropped_loss_terms)
{
    json_t *s = ex("burgers_1d");
    set(s, "loss.weights.data", json_real(2));
    expect_reject(s, pde("burgers_1d"), PF_FIDELITY_LOW,
                  "loss.weights.data is not a loss term of burgers_1d; allowed: pde, ic, bc.");
    s = ex("burgers_1d");
    set(s, "constraints", json_string("hard"));   /* initial_and_walls satisfies ic and bc */
    expect_reject(s, pde("burgers_1d"), PF_FIDELITY_LOW,
                  "loss.weights.ic is not a loss term because the hard transform 'initial_and_walls' satisfies "
                  "ic exactly; allowed: pde.");
}

Test(spec, rejects_incompatible_sampling_and_model)
{
    json_t *s = ex("poisson_5d");
    set(s, "sampling.adaptive", json_string("rad"));
    set(s, "sampling.resample_every", json_integer(100));
    expect_reject(s, pde("poisson_5d"), PF_FIDELITY_LOW,
                  "sampling.resample_every must be 0 when sampling.adaptive.method is rad, which redraws the "
                  "points every sampling.adaptive.every steps (got 100).");
    s = ex("poisson_5d");
    set(s, "sampling.adaptive", json_pack("{s:s, s:i}", "method", "rar_d", "cap", 4096));
    expect_reject(s, pde("poisson_5d"), PF_FIDELITY_LOW,
                  "sampling.adaptive.cap must be at least sampling.interior (8192) (got 4096).");
    s = ex("poisson_5d");
    set(s, "architecture.rwf", json_true());
    set(s, "architecture.init", json_string("glorot_uniform"));
    expect_reject(s, pde("poisson_5d"), PF_FIDELITY_LOW,
                  "architecture.init must be glorot_normal when architecture.rwf is true (got glorot_uniform).");
    s = ex("poisson_5d");
    set(s, "architecture.type", json_string("modified_mlp"));
    set(s, "architecture.depth", json_integer(1));
    expect_reject(s, pde("poisson_5d"), PF_FIDELITY_LOW,
                  "architecture.depth must be at least 2 for modified_mlp (got 1).");
    s = ex("burgers_1d");
    set(s, "sampling.initial", json_integer(0));
    expect_reject(s, pde("burgers_1d"), PF_FIDELITY_LOW,
                  "sampling.initial must be at least 1 because burgers_1d has the initial condition 'ic' and "
                  "constraints.mode is soft.");
}

Test(spec, collects_every_reason)
{
    json_t *s = ex("poisson_5d"), *n;
    set(s, "architecture.depth", json_integer(0));
    set(s, "architecture.activation", json_string("leaky_relu"));
    set(s, "training.log_every", json_integer(-1));
    json_object_set_new(stage(s, 0), "steps", json_integer(999));
    cr_assert_eq(pf_spec_check(s, pde("poisson_5d"), PF_FIDELITY_LOW, &n, &rep), PF_ERR_INVALID);
    cr_assert_eq(rep.n, 4, "got %d reasons", rep.n);
    cr_assert(has_reason("training.log_every must be an integer in [1, 10000] (got -1)."));
    cr_assert(has_reason("optimization.stages[*].steps sum to 999; the low-fidelity budget is exactly 1,000 "
                         "optimizer steps."));
    json_decref(s);
}

/* ------------------------------------------------------------ limits */

Test(spec, step_sum_exactly_at_budget)
{
    const pf_pde *p = pde("poisson_5d");
    json_t *s = ex("poisson_5d");
    json_object_set_new(stage(s, 0), "steps", json_integer(800));
    json_array_append_new(json_object_get(json_object_get(s, "optimization"), "stages"),
                          json_pack("{s:s, s:i}", "optimizer", "lbfgs", "steps", 200));
    json_t *s2 = json_deep_copy(s), *s3 = json_deep_copy(s), *s4 = json_deep_copy(s);
    expect_accept(s, p, PF_FIDELITY_LOW);
    json_object_set_new(stage(s2, 1), "steps", json_integer(201));
    expect_reject(s2, p, PF_FIDELITY_LOW,
                  "optimization.stages[*].steps sum to 1,001; the low-fidelity budget is exactly 1,000 optimizer "
                  "steps.");
    json_object_set_new(stage(s3, 1), "steps", json_integer(199));
    expect_reject(s3, p, PF_FIDELITY_LOW,
                  "optimization.stages[*].steps sum to 999; the low-fidelity budget is exactly 1,000 optimizer "
                  "steps.");
    json_object_set_new(stage(s4, 0), "steps", json_integer(8000));
    json_object_set_new(stage(s4, 1), "steps", json_integer(2000));
    json_t *s5 = json_deep_copy(s4);
    expect_accept(s4, p, PF_FIDELITY_HIGH);
    json_object_set_new(stage(s5, 1), "steps", json_integer(1999));
    expect_reject(s5, p, PF_FIDELITY_HIGH,
                  "optimization.stages[*].steps sum to 9,999; the high-fidelity budget is exactly 10,000 "
                  "optimizer steps.");
}

Test(spec, smoke_is_quick_with_a_tenth_of_the_steps)
{
    const pf_budget *q, *s;
    cr_assert_eq(pf_budget_lookup("quick", &q), PF_OK);
    cr_assert_eq(pf_budget_lookup("smoke", &s), PF_OK);
    cr_expect_str_eq(s->name, "smoke");
    cr_expect_eq(s->steps[PF_FIDELITY_LOW], 20);
    cr_expect_eq(s->steps[PF_FIDELITY_HIGH], 100);
    cr_expect_eq(s->steps[PF_FIDELITY_BASELINE], 100);
    for (int f = 0; f < PF_FIDELITY_COUNT; f++) cr_expect_eq(s->steps[f] * 10, q->steps[f], "fidelity %d", f);
    cr_expect_eq(s->max_params, q->max_params);
    cr_expect_eq(s->max_points, q->max_points);
    cr_expect_eq(pf_budget_lookup("tiny", &s), PF_ERR_INVALID);
    cr_expect(strstr(pf_errmsg(), "paper, quick or smoke"), "%s", pf_errmsg());
}

Test(spec, point_limit_exactly_at_65536)
{
    const pf_pde *p = pde("burgers_1d");
    json_t *s = ex("burgers_1d");
    set(s, "sampling.interior", json_integer(65536 - 4096));
    json_t *s2 = json_deep_copy(s), *s3 = json_deep_copy(s);
    expect_accept(s, p, PF_FIDELITY_LOW);
    set(s2, "sampling.boundary", json_integer(2049));
    expect_reject(s2, p, PF_FIDELITY_LOW,
                  "sampling uses 65,537 training points (interior + boundary + initial); the limit is 65,536.");
    /* with rar_d the cap counts */
    set(s3, "sampling.interior", json_integer(8192));
    set(s3, "sampling.adaptive", json_pack("{s:s, s:i}", "method", "rar_d", "cap", 65536 - 4096 + 1));
    expect_reject(s3, p, PF_FIDELITY_LOW,
                  "sampling uses 65,537 training points (adaptive.cap + boundary + initial); the limit is 65,536.");
}

Test(spec, parameter_limit_exactly_at_2M)
{
    /* poisson_5d, 5 inputs: a depth-2, width-299 MLP on 3,167 trainable
     * Fourier features has 5*3167 + (6334*299 + 299) + (299*299 + 299) +
     * (299 + 1) = 2,000,000 parameters; a depth-1, width-1000 MLP on 999
     * frozen features has (1998*1000 + 1000) + 1001 = 2,000,001. */
    const pf_pde *p = pde("poisson_5d");
    json_t *s = ex("poisson_5d"), *n;
    set(s, "architecture.depth", json_integer(2));
    set(s, "architecture.width", json_integer(299));
    set(s, "representation.fourier", json_pack("{s:i, s:b}", "features", 3167, "trainable", 1));
    cr_assert_eq(pf_spec_check(s, p, PF_FIDELITY_LOW, &n, &rep), PF_OK, "%s", pf_errmsg());
    pf_model_config mc;
    pf_train_config tc;
    cr_assert_eq(pf_spec_instantiate(n, p, &mc, &tc), PF_OK);
    cr_assert_eq(pf_model_config_nparams(&mc), 2000000);
    json_decref(n), json_decref(s);

    s = ex("poisson_5d");
    set(s, "architecture.depth", json_integer(1));
    set(s, "architecture.width", json_integer(1000));
    set(s, "representation.fourier.features", json_integer(999));
    expect_reject(s, p, PF_FIDELITY_LOW,
                  "architecture has 2,000,001 trainable parameters; the limit is 2,000,000 (reduce "
                  "architecture.width, architecture.depth or representation.fourier.features).");
}

/* ------------------------------------------------- example, instantiate */

Test(spec, example_passes_check_for_every_pde)
{
    for (int i = 0; i < pf_pdes_count(); i++) {
        const pf_pde *p = pf_pdes_at(i);
        for (int f = 0; f < PF_FIDELITY_COUNT; f++) {
            json_t *s = pf_spec_example(p, (pf_fidelity)f), *n;
            pf_status st = pf_spec_check(s, p, (pf_fidelity)f, &n, &rep);
            if (st != PF_OK) dump_reasons();
            cr_assert_eq(st, PF_OK, "%s: %s", p->name, pf_errmsg());
            /* the example is canonical already */
            char *a = canon(s), *b = canon(n);
            cr_assert_str_eq(a, b, "%s", p->name);
            pf_model_config mc;
            pf_train_config tc;
            cr_assert_eq(pf_spec_instantiate(n, p, &mc, &tc), PF_OK);
            cr_assert_eq(mc.depth, 5);
            cr_assert_eq(mc.width, 100);
            cr_assert_eq(mc.activation, PF_UNARY_TANH);
            cr_assert_eq(tc.sampling.interior, 8192);
            cr_assert_eq(tc.sampling.boundary, 2048);
            cr_assert_eq(tc.sampling.initial, p->time_input >= 0 ? 2048 : 0);
            cr_assert_eq(tc.nstages, 1);
            cr_assert_eq(tc.stages[0].optimizer, PF_OPT_ADAM);
            cr_assert_eq(tc.stages[0].steps, pf_budget_paper()->steps[f]);
            cr_assert_eq(tc.stages[0].schedule.lr, 1e-3);
            cr_assert_eq(tc.loss.nterms, 1 + p->ncon);
            for (int t = 0; t < tc.loss.nterms; t++) cr_assert_eq(tc.loss.weights[t], 1.0);
            free(a), free(b);
            json_decref(s), json_decref(n);
        }
    }
}

Test(spec, instantiate_fills_every_section)
{
    const pf_pde *p = pde("burgers_1d");
    json_t *raw = load(rich), *n;
    cr_assert_eq(pf_spec_check(raw, p, PF_FIDELITY_LOW, &n, &rep), PF_OK);
    pf_model_config mc;
    pf_train_config tc;
    cr_assert_eq(pf_spec_instantiate(n, p, &mc, &tc), PF_OK);
    cr_assert_eq(mc.arch, PF_ARCH_MODIFIED_MLP);
    cr_assert_eq(mc.width, 64);
    cr_assert_eq(mc.activation, PF_UNARY_SIN);
    cr_assert(mc.normalize);
    cr_assert_eq(mc.lo[0], p->lo[0]);
    cr_assert_eq(mc.fourier_features, 32);
    cr_assert_eq(mc.fourier_sigma, 2.0);
    cr_assert_eq(tc.sampling.method, PF_SAMPLE_SOBOL);
    cr_assert_eq(tc.sampling.adaptive.method, PF_ADAPTIVE_RAR_D);
    cr_assert_eq(tc.sampling.adaptive.cap, 20000);
    cr_assert_eq(pf_train_config_points(&tc), 20000 + 2048 + 2048);
    cr_assert_eq(tc.constraints.mode, PF_CONSTRAINT_HARD);
    cr_assert_eq(tc.constraints.transform, 0);
    cr_assert_eq(tc.loss.weighting, PF_WEIGHTING_LR_ANNEALING);
    cr_assert_eq(tc.loss.annealing_alpha, 0.9);
    cr_assert_eq(tc.loss.weights[0], 10.0);
    cr_assert(tc.loss.causal);
    cr_assert_eq(tc.loss.causal_chunks, 32);
    cr_assert_eq(tc.nstages, 2);
    cr_assert_eq(tc.stages[0].optimizer, PF_OPT_ADAMW);
    cr_assert_eq(tc.stages[0].steps, 600);
    cr_assert_eq(tc.stages[0].schedule.kind, PF_SCHEDULE_COSINE);
    cr_assert_eq(tc.stages[0].schedule.lr, 2e-3);
    cr_assert_eq(tc.stages[0].schedule.lr_min, 1e-5);
    cr_assert_eq(tc.stages[0].schedule.warmup_steps, 50);
    cr_assert_eq(tc.stages[0].adam.beta2, 0.99);
    cr_assert(tc.stages[0].adam.decoupled);
    cr_assert_eq(tc.stages[0].adam.weight_decay, 0.01);
    cr_assert_eq(tc.stages[0].grad_clip, 1.0);
    cr_assert_eq(tc.stages[1].optimizer, PF_OPT_LBFGS);
    cr_assert_eq(tc.stages[1].steps, 400);
    cr_assert_eq(tc.stages[1].lbfgs.history, 50);
    cr_assert_eq(tc.stages[1].lbfgs.lr, 1.0);
    cr_assert_eq(tc.eval_every, 50);
    cr_assert_eq(tc.log_every, 100);

    /* high fidelity: the same stages scaled to 10,000 steps */
    cr_assert_eq(pf_train_config_scale_steps(&tc, PF_SPEC_BUDGET_HIGH), PF_OK);
    cr_assert_eq(tc.stages[0].steps, 6000);
    cr_assert_eq(tc.stages[1].steps, 4000);
    cr_assert_eq(tc.stages[0].schedule.warmup_steps, 500);
    json_decref(raw), json_decref(n);
}

Test(spec, scale_steps_keeps_the_sum_exact)
{
    pf_train_config tc = pf_train_config_default();
    tc.nstages = 3;
    for (int i = 0; i < 3; i++) tc.stages[i] = pf_stage_default(PF_OPT_ADAM);
    tc.stages[0].steps = 333, tc.stages[1].steps = 333, tc.stages[2].steps = 334;
    cr_assert_eq(pf_train_config_scale_steps(&tc, 10000), PF_OK);
    cr_assert_eq(pf_train_config_steps(&tc), 10000);
    cr_assert_eq(tc.stages[0].steps, 3330);
    cr_assert_eq(tc.stages[2].steps, 3340);
}

Test(spec, describe_comes_from_the_table)
{
    char *d = pf_spec_describe(pde("burgers_1d"));
    cr_assert_not_null(d);
    const char *want[] = {"architecture.activation: one of: tanh, sin, silu, gelu, softplus, sigmoid, elu, selu, relu, "
                          "gaussian (default tanh)",
                          "architecture.init: one of: glorot_normal, glorot_uniform, he_normal, he_uniform, zeros "
                          "(default glorot_normal)",
                          "architecture.adaptive: one of: none, layerwise, global (default none)",
                          "optimizer = multiadam: MultiAdam", "optimizer = sgd: plain gradient descent",
                          "initial_and_walls", "terms: pde, ic, bc", "65,536", "2,000,000", "1,000 steps",
                          "10,000 at high fidelity", "sampling.adaptive: object chosen by \"method\"",
                          "optimization.stages[i].history: an integer in [1, 1000] (default 10)"};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        cr_assert_not_null(strstr(d, want[i]), "describe lacks: %s", want[i]);
    free(d);
}

/* ------------------------------------------- instantiation reads the table */

/* One field of the table with a default. Left out, the config must hold
 * the table's default (pf_spec_default_*); given `other`, the config must
 * hold that value, so instantiation really reads the key. */
typedef struct field_case {
    const char *path;   /* the table's path (spec.h) */
    const char *shown;  /* the path as pf_spec_describe() prints it */
    const char *at;     /* the object holding the key; "stage" is the first stage */
    const char *select; /* JSON merged into `at` first (it chooses a variant), or NULL */
    const char *other;  /* JSON of a value other than the default */
    const char *want;   /* JSON of the config's value for `other`, when not `other` itself */
} field_case;

static const field_case field_cases[] = {
    {"representation.normalize", "representation.normalize", "representation", NULL, "true", NULL},
    {"representation.fourier.features", "representation.fourier.features", "representation.fourier", NULL, "64", NULL},
    {"representation.fourier.sigma", "representation.fourier.sigma", "representation.fourier", NULL, "2.5", NULL},
    {"representation.fourier.trainable", "representation.fourier.trainable", "representation.fourier", NULL, "true", NULL},
    {"representation.fourier.scales", "representation.fourier.scales", "representation.fourier", NULL, "2", NULL},
    {"representation.fourier.ratio", "representation.fourier.ratio", "representation.fourier", NULL, "5.0", NULL},
    {"representation.periodic.harmonics", "representation.periodic.harmonics", "representation.periodic",
     "{\"inputs\": [\"x\"]}", "3", NULL},
    {"architecture.type", "architecture.type", "architecture", NULL, "\"resnet\"", NULL},
    {"architecture.depth", "architecture.depth", "architecture", NULL, "3", NULL},
    {"architecture.width", "architecture.width", "architecture", NULL, "64", NULL},
    {"architecture.activation", "architecture.activation", "architecture", NULL, "\"sin\"", NULL},
    {"architecture.init", "architecture.init", "architecture", NULL, "\"glorot_uniform\"", NULL},
    {"architecture.adaptive", "architecture.adaptive", "architecture", NULL, "\"layerwise\"", NULL},
    {"architecture.adapt_factor", "architecture.adapt_factor", "architecture", NULL, "5.0", NULL},
    {"architecture.rwf", "architecture.rwf", "architecture", NULL, "true", NULL},
    {"architecture.rwf_mean", "architecture.rwf_mean", "architecture", NULL, "0.5", NULL},
    {"architecture.rwf_sigma", "architecture.rwf_sigma", "architecture", NULL, "0.2", NULL},
    {"architecture.pinnsformer.tokens", "architecture.pinnsformer.tokens", "architecture.pinnsformer", NULL, "3", NULL},
    {"architecture.pinnsformer.dt", "architecture.pinnsformer.dt", "architecture.pinnsformer", NULL, "0.01", NULL},
    {"architecture.pinnsformer.d_ff", "architecture.pinnsformer.d_ff", "architecture.pinnsformer", NULL, "64", NULL},
    {"architecture.pinnsformer.d_hidden", "architecture.pinnsformer.d_hidden", "architecture.pinnsformer", NULL, "128", NULL},
    {"architecture.pinnsformer.heads", "architecture.pinnsformer.heads", "architecture.pinnsformer", NULL, "4", NULL},
    {"sampling.interior", "sampling.interior", "sampling", NULL, "1000", NULL},
    {"sampling.boundary", "sampling.boundary", "sampling", NULL, "500", NULL},
    {"sampling.initial", "sampling.initial", "sampling", NULL, "300", NULL},
    {"sampling.method", "sampling.method", "sampling", NULL, "\"sobol\"", NULL},
    {"sampling.resample_every", "sampling.resample_every", "sampling", NULL, "50", NULL},
    {"sampling.adaptive.method", "sampling.adaptive", "sampling.adaptive", NULL, "\"rar_d\"", NULL},
    {"sampling.adaptive.rad.k", "sampling.adaptive.k", "sampling.adaptive", "{\"method\": \"rad\"}", "2.0", NULL},
    {"sampling.adaptive.rad.c", "sampling.adaptive.c", "sampling.adaptive", "{\"method\": \"rad\"}", "0.5", NULL},
    {"sampling.adaptive.rad.every", "sampling.adaptive.every", "sampling.adaptive", "{\"method\": \"rad\"}", "50", NULL},
    {"sampling.adaptive.rar_d.k", "sampling.adaptive.k", "sampling.adaptive", "{\"method\": \"rar_d\"}", "3.0", NULL},
    {"sampling.adaptive.rar_d.c", "sampling.adaptive.c", "sampling.adaptive", "{\"method\": \"rar_d\"}", "0.25", NULL},
    {"sampling.adaptive.rar_d.every", "sampling.adaptive.every", "sampling.adaptive", "{\"method\": \"rar_d\"}", "20", NULL},
    {"sampling.adaptive.rar_d.add", "sampling.adaptive.add", "sampling.adaptive", "{\"method\": \"rar_d\"}", "200", NULL},
    {"sampling.adaptive.rar_d.cap", "sampling.adaptive.cap", "sampling.adaptive", "{\"method\": \"rar_d\"}", "20000", NULL},
    {"constraints.mode", "constraints", "constraints", NULL, "\"hard\"", NULL},
    {"loss.weighting.method", "loss.weighting", "loss.weighting", NULL, "\"self_adaptive\"", NULL},
    {"loss.weighting.lr_annealing.alpha", "loss.weighting.alpha", "loss.weighting", "{\"method\": \"lr_annealing\"}", "0.5",
     NULL},
    {"loss.weighting.lr_annealing.every", "loss.weighting.every", "loss.weighting", "{\"method\": \"lr_annealing\"}", "20",
     NULL},
    {"loss.weighting.self_adaptive.lr", "loss.weighting.lr", "loss.weighting", "{\"method\": \"self_adaptive\"}", "0.01",
     NULL},
    {"loss.weights", "loss.weights", "loss", NULL, "{\"pde\": 3.0}", "3.0"},
    {"loss.causal.enabled", "loss.causal", "loss.causal", NULL, "true", NULL},
    {"loss.causal.true.epsilon", "loss.causal.epsilon", "loss.causal", "{\"enabled\": true}", "2.0", NULL},
    {"loss.causal.true.chunks", "loss.causal.chunks", "loss.causal", "{\"enabled\": true}", "16", NULL},
    {"loss.residual_normalization", "loss.residual_normalization", "loss", NULL, "\"initial\"", NULL},
    {"optimization.stages.adam.lr", "optimization.stages[i].lr", "stage", NULL, "0.002", NULL},
    {"optimization.stages.adam.schedule.kind", "optimization.stages[i].schedule", "stage.schedule", NULL, "\"cosine\"", NULL},
    {"optimization.stages.adam.eps", "optimization.stages[i].eps", "stage", NULL, "1e-6", NULL},
    {"optimization.stages.adam.weight_decay", "optimization.stages[i].weight_decay", "stage", NULL, "0.001", NULL},
    {"optimization.stages.adam.grad_clip", "optimization.stages[i].grad_clip", "stage", NULL, "1.0", NULL},
    {"optimization.stages.adamw.weight_decay", "optimization.stages[i].weight_decay", "stage", "{\"optimizer\": \"adamw\"}",
     "0.05", NULL},
    {"optimization.stages.sgd.lr", "optimization.stages[i].lr", "stage", "{\"optimizer\": \"sgd\"}", "0.05", NULL},
    {"optimization.stages.sgd.grad_clip", "optimization.stages[i].grad_clip", "stage", "{\"optimizer\": \"sgd\"}", "2.0",
     NULL},
    {"optimization.stages.multiadam.lr", "optimization.stages[i].lr", "stage", "{\"optimizer\": \"multiadam\"}", "0.004",
     NULL},
    {"optimization.stages.multiadam.eps", "optimization.stages[i].eps", "stage", "{\"optimizer\": \"multiadam\"}", "1e-6",
     NULL},
    {"optimization.stages.lbfgs.lr", "optimization.stages[i].lr", "stage", "{\"optimizer\": \"lbfgs\"}", "0.5", NULL},
    {"optimization.stages.lbfgs.history", "optimization.stages[i].history", "stage", "{\"optimizer\": \"lbfgs\"}", "50", NULL},
    {"optimization.stages.lbfgs.line_search", "optimization.stages[i].line_search", "stage", "{\"optimizer\": \"lbfgs\"}",
     "false", NULL},
    {"optimization.stages.lbfgs.max_iter", "optimization.stages[i].max_iter", "stage", "{\"optimizer\": \"lbfgs\"}", "20",
     NULL},
    {"optimization.stages.lbfgs.max_eval", "optimization.stages[i].max_eval", "stage", "{\"optimizer\": \"lbfgs\"}", "30",
     NULL},
    {"optimization.stages.lbfgs.tolerance_grad", "optimization.stages[i].tolerance_grad", "stage",
     "{\"optimizer\": \"lbfgs\"}", "1e-5", NULL},
    {"optimization.stages.lbfgs.tolerance_change", "optimization.stages[i].tolerance_change", "stage",
     "{\"optimizer\": \"lbfgs\"}", "1e-6", NULL},
    {"optimization.stages.adam.schedule.exponential.gamma", "optimization.stages[i].schedule.gamma", "stage.schedule",
     "{\"kind\": \"exponential\"}", "0.5", NULL},
    {"optimization.stages.adam.schedule.exponential.decay_steps", "optimization.stages[i].schedule.decay_steps",
     "stage.schedule", "{\"kind\": \"exponential\"}", "500", NULL},
    {"optimization.stages.adam.schedule.step.gamma", "optimization.stages[i].schedule.gamma", "stage.schedule",
     "{\"kind\": \"step\"}", "0.25", NULL},
    {"optimization.stages.adam.schedule.step.step_size", "optimization.stages[i].schedule.step_size", "stage.schedule",
     "{\"kind\": \"step\"}", "250", NULL},
    {"optimization.stages.adam.schedule.cosine.lr_min", "optimization.stages[i].schedule.lr_min", "stage.schedule",
     "{\"kind\": \"cosine\"}", "1e-5", NULL},
    {"optimization.stages.adam.schedule.cosine.warmup_steps", "optimization.stages[i].schedule.warmup_steps",
     "stage.schedule", "{\"kind\": \"cosine\"}", "100", NULL},
    {"optimization.stages.adam.schedule.one_cycle.pct_start", "optimization.stages[i].schedule.pct_start", "stage.schedule",
     "{\"kind\": \"one_cycle\"}", "0.2", NULL},
    {"optimization.stages.adam.schedule.one_cycle.div_factor", "optimization.stages[i].schedule.div_factor",
     "stage.schedule", "{\"kind\": \"one_cycle\"}", "10.0", NULL},
    {"optimization.stages.adam.schedule.one_cycle.final_div_factor", "optimization.stages[i].schedule.final_div_factor",
     "stage.schedule", "{\"kind\": \"one_cycle\"}", "100.0", NULL},
    {"training.log_every", "training.log_every", "training", NULL, "10", NULL},
    {"training.eval_every", "training.eval_every", "training", NULL, "20", NULL},
    {"training.region_optimization.enabled", "training.region_optimization", "training.region_optimization", NULL, "true",
     NULL},
    {"training.region_optimization.true.r0", "training.region_optimization.r0", "training.region_optimization",
     "{\"enabled\": true}", "0.001", NULL},
    {"training.region_optimization.true.history", "training.region_optimization.history", "training.region_optimization",
     "{\"enabled\": true}", "5", NULL},
    {"training.region_optimization.true.max_radius", "training.region_optimization.max_radius",
     "training.region_optimization", "{\"enabled\": true}", "0.05", NULL},
};

/* Where instantiation puts the field at `path`: a number (*name NULL) or a
 * name, spelled by the config's own name functions. 0 for an unknown path. */
static int config_value(const char *path, const pf_model_config *mc, const pf_train_config *tc, double *num,
                        const char **name)
{
    const pf_sampling_config *s = &tc->sampling;
    const pf_loss_config *l = &tc->loss;
    const pf_stage_config *g = &tc->stages[0];
    const struct {
        const char *path;
        double num;
        const char *name;
    } v[] = {
        {"representation.normalize", mc->normalize, NULL},
        {"representation.fourier.features", mc->fourier_features, NULL},
        {"representation.fourier.sigma", mc->fourier_sigma, NULL},
        {"representation.fourier.trainable", mc->fourier_trainable, NULL},
        {"representation.fourier.scales", mc->fourier_scales, NULL},
        {"representation.fourier.ratio", mc->fourier_ratio, NULL},
        {"representation.periodic.harmonics", mc->harmonics[0], NULL},
        {"architecture.type", 0, pf_arch_name(mc->arch)},
        {"architecture.depth", mc->depth, NULL},
        {"architecture.width", mc->width, NULL},
        {"architecture.activation", 0, pf_unary_name(mc->activation)},
        {"architecture.init", 0, pf_weight_init_name(mc->init)},
        {"architecture.adaptive", 0, pf_adapt_name(mc->adapt)},
        {"architecture.adapt_factor", mc->adapt_factor, NULL},
        {"architecture.rwf", mc->rwf, NULL},
        {"architecture.rwf_mean", mc->rwf_mean, NULL},
        {"architecture.rwf_sigma", mc->rwf_sigma, NULL},
        {"architecture.pinnsformer.tokens", mc->seq_len, NULL},
        {"architecture.pinnsformer.dt", mc->seq_dt, NULL},
        {"architecture.pinnsformer.d_ff", mc->d_ff, NULL},
        {"architecture.pinnsformer.d_hidden", mc->d_hidden, NULL},
        {"architecture.pinnsformer.heads", mc->heads, NULL},
        {"sampling.interior", s->interior, NULL},
        {"sampling.boundary", s->boundary, NULL},
        {"sampling.initial", s->initial, NULL},
        {"sampling.method", 0, pf_sample_method_name(s->method)},
        {"sampling.resample_every", s->resample_every, NULL},
        {"sampling.adaptive.method", 0, pf_adaptive_method_name(s->adaptive.method)},
        {"sampling.adaptive.rad.k", s->adaptive.k, NULL},
        {"sampling.adaptive.rad.c", s->adaptive.c, NULL},
        {"sampling.adaptive.rad.every", s->adaptive.every, NULL},
        {"sampling.adaptive.rar_d.k", s->adaptive.k, NULL},
        {"sampling.adaptive.rar_d.c", s->adaptive.c, NULL},
        {"sampling.adaptive.rar_d.every", s->adaptive.every, NULL},
        {"sampling.adaptive.rar_d.add", s->adaptive.add, NULL},
        {"sampling.adaptive.rar_d.cap", s->adaptive.cap, NULL},
        {"constraints.mode", 0, pf_constraint_mode_name(tc->constraints.mode)},
        {"loss.weighting.method", 0, pf_weighting_name(l->weighting)},
        {"loss.weighting.lr_annealing.alpha", l->annealing_alpha, NULL},
        {"loss.weighting.lr_annealing.every", l->annealing_every, NULL},
        {"loss.weighting.self_adaptive.lr", l->sa_lr, NULL},
        {"loss.weights", l->weights[0], NULL},
        {"loss.causal.enabled", l->causal, NULL},
        {"loss.causal.true.epsilon", l->causal_epsilon, NULL},
        {"loss.causal.true.chunks", l->causal_chunks, NULL},
        {"loss.residual_normalization", 0, pf_residual_norm_name(l->residual_norm)},
        {"optimization.stages.adam.lr", g->schedule.lr, NULL},
        {"optimization.stages.adam.schedule.kind", 0, pf_schedule_kind_name(g->schedule.kind)},
        {"optimization.stages.adam.eps", g->adam.eps, NULL},
        {"optimization.stages.adam.weight_decay", g->adam.weight_decay, NULL},
        {"optimization.stages.adam.grad_clip", g->grad_clip, NULL},
        {"optimization.stages.adamw.weight_decay", g->adam.weight_decay, NULL},
        {"optimization.stages.sgd.lr", g->schedule.lr, NULL},
        {"optimization.stages.sgd.grad_clip", g->grad_clip, NULL},
        {"optimization.stages.multiadam.lr", g->schedule.lr, NULL},
        {"optimization.stages.multiadam.eps", g->adam.eps, NULL},
        {"optimization.stages.lbfgs.lr", g->lbfgs.lr, NULL},
        {"optimization.stages.lbfgs.history", g->lbfgs.history, NULL},
        {"optimization.stages.lbfgs.line_search", g->lbfgs.line_search, NULL},
        {"optimization.stages.lbfgs.max_iter", g->lbfgs.max_iter, NULL},
        {"optimization.stages.lbfgs.max_eval", g->lbfgs.max_eval, NULL},
        {"optimization.stages.lbfgs.tolerance_grad", g->lbfgs.tolerance_grad, NULL},
        {"optimization.stages.lbfgs.tolerance_change", g->lbfgs.tolerance_change, NULL},
        {"optimization.stages.adam.schedule.exponential.gamma", g->schedule.gamma, NULL},
        {"optimization.stages.adam.schedule.exponential.decay_steps", (double)g->schedule.decay_steps, NULL},
        {"optimization.stages.adam.schedule.step.gamma", g->schedule.gamma, NULL},
        {"optimization.stages.adam.schedule.step.step_size", (double)g->schedule.step_size, NULL},
        {"optimization.stages.adam.schedule.cosine.lr_min", g->schedule.lr_min, NULL},
        {"optimization.stages.adam.schedule.cosine.warmup_steps", (double)g->schedule.warmup_steps, NULL},
        {"optimization.stages.adam.schedule.one_cycle.pct_start", g->schedule.pct_start, NULL},
        {"optimization.stages.adam.schedule.one_cycle.div_factor", g->schedule.div_factor, NULL},
        {"optimization.stages.adam.schedule.one_cycle.final_div_factor", g->schedule.final_div_factor, NULL},
        {"training.log_every", tc->log_every, NULL},
        {"training.eval_every", tc->eval_every, NULL},
        {"training.region_optimization.enabled", tc->region.enabled, NULL},
        {"training.region_optimization.true.r0", tc->region.r0, NULL},
        {"training.region_optimization.true.history", tc->region.history, NULL},
        {"training.region_optimization.true.max_radius", tc->region.max_radius, NULL},
    };
    for (size_t i = 0; i < sizeof v / sizeof *v; i++)
        if (!strcmp(v[i].path, path)) {
            *num = v[i].num;
            *name = v[i].name;
            return 1;
        }
    return 0;
}

/* A JSON value of any kind. */
static json_t *value_of(const char *text)
{
    json_t *v = json_loads(text, JSON_DECODE_ANY, NULL);
    cr_assert_not_null(v, "%s", text);
    return v;
}

/* The object at `at` in spec, created on the way ("stage": the first stage). */
static json_t *object_at(json_t *spec, const char *at)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", at);
    json_t *o = spec;
    for (char *save = NULL, *t = strtok_r(buf, ".", &save); t; t = strtok_r(NULL, ".", &save)) {
        if (!strcmp(t, "stage")) {
            o = json_array_get(json_object_get(json_object_get(spec, "optimization"), "stages"), 0);
            continue;
        }
        json_t *sub = json_object_get(o, t);
        if (!sub) json_object_set_new(o, t, sub = json_object());
        o = sub;
    }
    return o;
}

/* Instantiate the smallest spec with case c's variant chosen and its key
 * left out (value NULL) or given. */
static void instantiate_case(const field_case *c, const pf_pde *p, const char *value, pf_model_config *mc,
                             pf_train_config *tc)
{
    json_t *spec = load("{\"representation\": {}, \"architecture\": {}, \"sampling\": {}, \"constraints\": {},"
                        " \"loss\": {}, \"optimization\": {\"stages\": [{\"optimizer\": \"adam\", \"steps\": 1000}]},"
                        " \"training\": {}}");
    json_t *o = object_at(spec, c->at);
    if (!strcmp(c->at, "architecture.pinnsformer")) /* a field of that type only */
        json_object_set_new(object_at(spec, "architecture"), "type", json_string("pinnsformer"));
    if (c->select) {
        json_t *sel = load(c->select);
        json_object_update(o, sel);
        json_decref(sel);
    }
    const char *key = strrchr(c->path, '.') + 1;
    if (value) json_object_set_new(o, key, value_of(value));
    pf_status st = pf_spec_instantiate(spec, p, mc, tc);
    cr_assert_eq(st, PF_OK, "%s = %s: %s", c->path, value ? value : "(left out)", pf_errmsg());
    json_decref(spec);
}

Test(spec, instantiate_reads_every_field_through_the_table)
{
    /* time-dependent (sampling.initial, causal), periodic in x, one transform */
    const pf_pde *p = pde("kuramoto_sivashinsky_1d");
    cr_assert(p->time_input >= 0 && p->period[0] > 0 && p->nhard > 0 && !strcmp(p->inputs[0], "x"));
    for (size_t i = 0; i < sizeof field_cases / sizeof *field_cases; i++) {
        const field_case *c = &field_cases[i];
        pf_model_config mc;
        pf_train_config tc;
        double num, want_num;
        const char *name;
        /* left out: the table's default */
        instantiate_case(c, p, NULL, &mc, &tc);
        cr_assert(config_value(c->path, &mc, &tc, &num, &name), "no config member for %s", c->path);
        if (name)
            cr_assert_str_eq(name, pf_spec_default_name(c->path), "%s left out", c->path);
        else
            cr_assert_eq(num, pf_spec_default_num(c->path), "%s left out: %.17g", c->path, num);
        /* given: that value */
        json_t *w = value_of(c->want ? c->want : c->other);
        instantiate_case(c, p, c->other, &mc, &tc);
        config_value(c->path, &mc, &tc, &num, &name);
        if (name) {
            cr_assert(json_is_string(w), "%s", c->path);
            cr_assert_str_neq(json_string_value(w), pf_spec_default_name(c->path), "%s: pick a value other than the default",
                              c->path);
            cr_assert_str_eq(name, json_string_value(w), "%s = %s", c->path, c->other);
        } else {
            want_num = json_is_boolean(w) ? json_is_true(w) : json_number_value(w);
            cr_assert_neq(want_num, pf_spec_default_num(c->path), "%s: pick a value other than the default", c->path);
            cr_assert_eq(num, want_num, "%s = %s: got %.17g", c->path, c->other, num);
        }
        json_decref(w);
    }
}

/* Every field with a default that describe() shows (the table, as printed)
 * has a case above, so a new field cannot skip instantiation unnoticed. */
Test(spec, instantiate_cases_cover_the_table)
{
    char *d = pf_spec_describe(pde("kuramoto_sivashinsky_1d"));
    cr_assert_not_null(d);
    int n = 0;
    for (char *save = NULL, *line = strtok_r(d, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        while (*line == ' ') line++;
        char *colon = strstr(line, ": ");
        if (strncmp(line, "- ", 2) || !colon) continue;
        const char *rest = colon + 2;
        int scalar = (!strncmp(rest, "an integer in", 13) || !strncmp(rest, "a number in", 11) ||
                      !strncmp(rest, "true or false", 13) || !strncmp(rest, "one of:", 7)) &&
                     !strstr(rest, "(required)");
        int variant = strstr(rest, "object chosen by") && !strstr(rest, "; required)");
        if (!scalar && !variant) continue;
        *colon = 0;
        const char *shown = line + 2;
        int found = 0;
        for (size_t i = 0; i < sizeof field_cases / sizeof *field_cases; i++) found |= !strcmp(field_cases[i].shown, shown);
        cr_assert(found, "describe shows %s, which no instantiation case covers", shown);
        n++;
    }
    cr_assert_gt(n, 50);
    free(d);
}

Test(spec, default_of_a_misspelled_path_aborts, .signal = SIGABRT)
{
    pf_spec_default_num("architecture.widht");
}

Test(spec, defaults_by_path)
{
    cr_assert_eq(pf_spec_default_num("architecture.width"), 100);
    cr_assert_str_eq(pf_spec_default_name("architecture.activation"), "tanh");
    cr_assert_str_eq(pf_spec_default_name("sampling.adaptive.method"), "none");
    cr_assert_eq(pf_spec_default_num("sampling.adaptive.rar_d.cap"), 16384);
    cr_assert_eq(pf_spec_default_num("loss.causal.enabled"), 0);
    cr_assert_str_eq(pf_spec_default_name("loss.causal.enabled"), "false");
    cr_assert_eq(pf_spec_default_num("loss.weights"), 1);
    cr_assert_eq(pf_spec_default_num("optimization.stages.adam.lr"), 1e-3);
    cr_assert_eq(pf_spec_default_num("optimization.stages.lbfgs.lr"), 1);
    cr_assert_eq(pf_spec_default_num("optimization.stages.adamw.weight_decay"), 0.01);
    cr_assert_str_eq(pf_spec_default_name("optimization.stages.adam.schedule.kind"), "constant");
    cr_assert_eq(pf_spec_default_num("optimization.stages.adam.schedule.cosine.lr_min"), 0);
}

/* training.region_optimization: off (left out, false, {"enabled": false})
 * normalizes to the spec without it, byte for byte, so specs written before
 * the option existed keep their hash; on, it is expanded with its defaults;
 * it needs an Adam stage. */
Test(spec, region_optimization_off_is_left_out_of_the_canonical_form)
{
    const pf_pde *p = pde("burgers_1d");
    json_t *ex = pf_spec_example(p, PF_FIDELITY_LOW);
    char *base = pf_spec_canonical(ex);
    cr_assert_null(strstr(base, "region"), "%s", base);
    const char *offs[] = {"false", "{\"enabled\": false}", "{}"};
    for (int i = 0; i < 3; i++) {
        json_t *v = json_copy(ex), *tr = json_deep_copy(json_object_get(ex, "training"));
        json_object_set_new(tr, "region_optimization", json_loads(offs[i], JSON_DECODE_ANY, NULL));
        json_object_set_new(v, "training", tr);
        json_t *norm;
        cr_assert_eq(pf_spec_check(v, p, PF_FIDELITY_LOW, &norm, &rep), PF_OK, "%s", rep.reason[0]);
        char *c = pf_spec_canonical(norm);
        cr_assert_str_eq(c, base, "region_optimization %s changed the canonical form", offs[i]);
        free(c);
        json_decref(norm);
        json_decref(v);
    }
    json_t *on = json_deep_copy(ex);
    json_object_set_new(json_object_get(on, "training"), "region_optimization", json_true());
    json_t *norm;
    cr_assert_eq(pf_spec_check(on, p, PF_FIDELITY_LOW, &norm, &rep), PF_OK, "%s", rep.reason[0]);
    const json_t *ro = json_object_get(json_object_get(norm, "training"), "region_optimization");
    cr_assert(json_is_true(json_object_get(ro, "enabled")));
    cr_assert_eq(json_real_value(json_object_get(ro, "r0")), 1e-4);
    cr_assert_eq(json_integer_value(json_object_get(ro, "history")), 10);
    cr_assert_eq(json_real_value(json_object_get(ro, "max_radius")), 0.01);
    pf_model_config mc;
    pf_train_config tc;
    cr_assert_eq(pf_spec_instantiate(norm, p, &mc, &tc), PF_OK);
    cr_assert(tc.region.enabled && tc.region.r0 == 1e-4 && tc.region.history == 10 && tc.region.max_radius == 0.01);
    json_decref(norm);
    /* L-BFGS only: rejected, naming the field */
    json_object_set_new(json_object_get(on, "optimization"), "stages",
                        load("[{\"optimizer\": \"lbfgs\", \"steps\": 1000}]"));
    cr_assert_eq(pf_spec_check(on, p, PF_FIDELITY_LOW, &norm, &rep), PF_ERR_INVALID);
    cr_assert_not_null(strstr(rep.reason[0], "training.region_optimization.enabled"), "%s", rep.reason[0]);
    json_decref(on);
    free(base);
    json_decref(ex);
}

/* PINNsAgent's options (docs/baselines.md, "PINNsAgent: search space"): the new activations,
 * initialisations, global adaptation and the sgd and multiadam stages are
 * accepted, normalized (multiadam's betas default to [0.99, 0.99], sgd has
 * no betas) and instantiated; rwf still needs glorot_normal; region
 * optimization takes sgd and multiadam stages as gradient stages. Specs
 * that use none of them keep their canonical form: the example's hash is
 * the one it had before these options existed. */
Test(spec, pinnsagent_options_are_accepted_and_keep_old_hashes)
{
    const pf_pde *p = pde("burgers_1d");
    json_t *example = pf_spec_example(p, PF_FIDELITY_LOW);
    char hex[PF_SPEC_HASH_HEX];
    cr_assert_eq(pf_spec_hash(example, hex), PF_OK);
    cr_assert_str_eq(hex, "1458c484693f065691bb8a885b664b4dc25781c652563c5b22f106886bc05aa2",
                     "the example's hash changed: %s", hex);
    json_decref(example);
    const char *acts[] = {"elu", "selu", "relu", "gaussian"};
    const pf_unary_op ops[] = {PF_UNARY_ELU, PF_UNARY_SELU, PF_UNARY_RELU, PF_UNARY_GAUSSIAN};
    const char *inits[] = {"he_normal", "he_uniform", "zeros"};
    const pf_weight_init iv[] = {PF_WEIGHT_INIT_HE_NORMAL, PF_WEIGHT_INIT_HE_UNIFORM, PF_WEIGHT_INIT_ZEROS};
    for (int i = 0; i < 4; i++) {
        char text[1024];
        snprintf(text, sizeof text,
                 "{\"representation\": {}, \"architecture\": {\"activation\": \"%s\", \"init\": \"%s\","
                 " \"adaptive\": \"global\"}, \"sampling\": {}, \"constraints\": {}, \"loss\": {},"
                 " \"optimization\": {\"stages\": [{\"optimizer\": \"sgd\", \"steps\": 400},"
                 " {\"optimizer\": \"multiadam\", \"steps\": 600}]},"
                 " \"training\": {\"region_optimization\": true}}",
                 acts[i], inits[i % 3]);
        json_t *spec = load(text), *norm;
        cr_assert_eq(pf_spec_check(spec, p, PF_FIDELITY_LOW, &norm, &rep), PF_OK, "%s", rep.reason[0]);
        const json_t *st = json_object_get(json_object_get(norm, "optimization"), "stages");
        const json_t *s0 = json_array_get(st, 0), *s1 = json_array_get(st, 1);
        cr_assert_null(json_object_get(s0, "betas"), "sgd has no betas");
        cr_assert_null(json_object_get(s0, "eps"));
        cr_assert_eq(json_real_value(json_object_get(s0, "grad_clip")), 0);
        const json_t *b = json_object_get(s1, "betas");
        cr_assert(json_real_value(json_array_get(b, 0)) == 0.99 && json_real_value(json_array_get(b, 1)) == 0.99);
        cr_assert_eq(json_real_value(json_object_get(s1, "eps")), 1e-8);
        cr_assert_null(json_object_get(s1, "weight_decay"), "multiadam has no weight decay");
        cr_assert_null(json_object_get(s1, "grad_clip"), "multiadam has no clipping");
        pf_model_config mc;
        pf_train_config tc;
        cr_assert_eq(pf_spec_instantiate(norm, p, &mc, &tc), PF_OK, "%s", pf_errmsg());
        cr_assert_eq(mc.activation, ops[i]);
        cr_assert_eq(mc.init, iv[i % 3]);
        cr_assert_eq(mc.adapt, PF_ADAPT_GLOBAL);
        cr_assert_eq(mc.adapt_factor, 10);
        cr_assert_eq(tc.stages[0].optimizer, PF_OPT_SGD);
        cr_assert_eq(tc.stages[0].schedule.lr, 1e-3);
        cr_assert_eq(tc.stages[1].optimizer, PF_OPT_MULTIADAM);
        cr_assert(tc.stages[1].adam.beta1 == 0.99 && tc.stages[1].adam.beta2 == 0.99 && tc.stages[1].adam.eps == 1e-8 &&
                  tc.stages[1].adam.weight_decay == 0);
        cr_assert(tc.region.enabled);
        json_decref(norm);
        json_decref(spec);
    }
    /* rwf needs glorot_normal, whatever the new init */
    json_t *s = ex("burgers_1d");
    set(s, "architecture.rwf", json_true());
    set(s, "architecture.init", json_string("he_uniform"));
    expect_reject(s, p, PF_FIDELITY_LOW, "architecture.init must be glorot_normal when architecture.rwf is true (got he_uniform).");
    /* multiadam refuses the keys it does not have */
    s = ex("burgers_1d");
    json_object_set_new(stage(s, 0), "optimizer", json_string("multiadam"));
    json_object_set_new(stage(s, 0), "weight_decay", json_real(0.01));
    expect_reject(s, p, PF_FIDELITY_LOW,
                  "optimization.stages[0].weight_decay is not allowed when optimization.stages[0].optimizer is "
                  "'multiadam'; allowed keys: optimizer, steps, lr, schedule, betas, eps.");
}

/* The L-BFGS options of torch's step (max_iter, max_eval, tolerances) are
 * left out of the canonical form at their defaults, so a spec that does
 * not set them (or sets them to the defaults) keeps its form and hash; set,
 * they are kept and instantiated. */
Test(spec, lbfgs_step_options_at_their_defaults_are_left_out_of_the_canonical_form)
{
    const pf_pde *p = pde("burgers_1d");
    json_t *ex = pf_spec_example(p, PF_FIDELITY_LOW), *norm;
    json_object_set_new(json_object_get(ex, "optimization"), "stages",
                        load("[{\"optimizer\": \"adam\", \"steps\": 600}, {\"optimizer\": \"lbfgs\", \"steps\": 400}]"));
    cr_assert_eq(pf_spec_check(ex, p, PF_FIDELITY_LOW, &norm, &rep), PF_OK, "%s", rep.reason[0]);
    char *base = pf_spec_canonical(norm);
    json_decref(norm);
    cr_assert_null(strstr(base, "max_iter"), "%s", base);
    cr_assert_null(strstr(base, "tolerance"), "%s", base);
    json_object_set_new(json_object_get(ex, "optimization"), "stages",
                        load("[{\"optimizer\": \"adam\", \"steps\": 600}, {\"optimizer\": \"lbfgs\", \"steps\": 400, "
                             "\"max_iter\": 1, \"max_eval\": 0, \"tolerance_grad\": 1e-7, \"tolerance_change\": 1e-9}]"));
    cr_assert_eq(pf_spec_check(ex, p, PF_FIDELITY_LOW, &norm, &rep), PF_OK, "%s", rep.reason[0]);
    char *c = pf_spec_canonical(norm);
    cr_assert_str_eq(c, base, "the defaults written out changed the canonical form");
    free(c);
    json_decref(norm);
    json_object_set_new(json_object_get(ex, "optimization"), "stages",
                        load("[{\"optimizer\": \"adam\", \"steps\": 600}, {\"optimizer\": \"lbfgs\", \"steps\": 400, "
                             "\"max_iter\": 20, \"history\": 100, \"line_search\": false}]"));
    cr_assert_eq(pf_spec_check(ex, p, PF_FIDELITY_LOW, &norm, &rep), PF_OK, "%s", rep.reason[0]);
    c = pf_spec_canonical(norm);
    cr_assert_not_null(strstr(c, "\"max_iter\":20"), "%s", c);
    cr_assert_null(strstr(c, "max_eval"), "%s", c);
    pf_model_config mc;
    pf_train_config tc;
    cr_assert_eq(pf_spec_instantiate(norm, p, &mc, &tc), PF_OK);
    cr_assert(tc.stages[1].lbfgs.max_iter == 20 && tc.stages[1].lbfgs.history == 100 && !tc.stages[1].lbfgs.line_search &&
              tc.stages[1].lbfgs.max_eval == 0 && tc.stages[1].lbfgs.tolerance_grad == 1e-7 &&
              tc.stages[1].lbfgs.tolerance_change == 1e-9);
    free(c);
    json_decref(norm);
    free(base);
    json_decref(ex);
}
