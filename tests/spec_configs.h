/*
 * spec_configs.h — a spec's text to the trainer's configs, for the tests
 * (header only: tests/gpu is a separate binary):
 *
 *     pf_model_config mc;
 *     pf_train_config tc;
 *     spec_configs(text, p, 150, &mc, &tc);   // parse, check, instantiate, scale
 *
 * Every step is asserted (criterion), with pf_errmsg() as the message.
 */
#ifndef PF_TESTS_SPEC_CONFIGS_H
#define PF_TESTS_SPEC_CONFIGS_H

#include <criterion/criterion.h>
#include <jansson.h>

#include "geom/pde.h"
#include "spec/spec.h"
#include "train/config.h"

/* Instantiate `text` for p at low fidelity, then scale to `steps`
 * (PF_SPEC_BUDGET_LOW: kept as the spec says). */
static inline void spec_configs(const char *text, const pf_pde *p, long steps, pf_model_config *mc,
                                pf_train_config *tc)
{
    json_t *raw, *norm;
    static pf_spec_report rep;
    cr_assert_eq(pf_spec_parse(text, &raw), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(pf_spec_check(raw, p, PF_FIDELITY_LOW, &norm, &rep), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(pf_spec_instantiate(norm, p, mc, tc), PF_OK, "%s", pf_errmsg());
    if (steps != PF_SPEC_BUDGET_LOW) cr_assert_eq(pf_train_config_scale_steps(tc, steps), PF_OK);
    json_decref(raw);
    json_decref(norm);
}

#endif
