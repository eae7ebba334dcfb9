/*
 * test_pinnsagent.c — PINNsAgent's space and planner (spec/pinnsagent_space.h,
 * pinnsagent/plan.h, llm/offline_pinnsagent.c): reading a
 * configuration snaps numbers and names, a configuration's spec, the
 * offline planner's choices, and the re-ask loop against a scripted server
 * (a duplicate and an answer without JSON asked again, then accepted).
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llm_fixture_server.h"
#include "pinnsagent/plan.h"
#include "registry.h"
#include "search/prompt.h"
#include "spec/pinnsagent_space.h"

static const pf_pde *pde(const char *name)
{
    const pf_pde *p;
    cr_assert_eq(pf_pdes_lookup(name, &p), PF_OK, "%s", name);
    return p;
}

static json_t *cfg(const char *act, const char *net, const char *opt, double lr, int width, int depth, int dom,
                   int bnd, int ini, const char *init)
{
    return json_pack("{s:s, s:s, s:s, s:f, s:i, s:i, s:i, s:i, s:i, s:s}", "activation", act, "net", net, "optimizer",
                     opt, "lr", lr, "width", width, "depth", depth, "num_domain_points", dom, "num_boundary_points", bnd,
                     "num_initial_points", ini, "initializer", init);
}

static const char *str(const json_t *o, const char *k) { return json_string_value(json_object_get(o, k)); }
static double num(const json_t *o, const char *k) { return json_number_value(json_object_get(o, k)); }

Test(pinnsagent, reading_snaps_numbers_and_names)
{
    json_t *o = cfg("Swish", "LAAF", "adam", 3e-4, 101, 12, 8192, 2048, 2024, "mish_init");
    pf_pa_config c;
    char note[PF_PA_NOTE];
    cr_assert_eq(pf_pa_config_read(o, &c, note, sizeof note), PF_OK, "%s", pf_errmsg());
    json_t *back = pf_pa_config_json(&c);
    cr_assert_str_eq(str(back, "activation"), "swish");
    cr_assert_str_eq(str(back, "net"), "laaf");
    cr_assert_eq(num(back, "lr"), 1e-4);            /* log10(3e-4) = -3.52 -> -4 */
    cr_assert_eq(num(back, "width"), 100);          /* 8 + 4k */
    cr_assert_eq(num(back, "depth"), 10);           /* clamped to 3..10 */
    cr_assert_eq(num(back, "num_domain_points"), 8100); /* 100 + 500k */
    cr_assert_eq(num(back, "num_boundary_points"), 2100);
    cr_assert_eq(num(back, "num_initial_points"), 2100);
    cr_assert_str_eq(str(back, "initializer"), "Glorot normal"); /* unknown: the first allowed */
    cr_assert(strstr(note, "initializer: 'mish_init' is not allowed, taken as 'Glorot normal'"), "%s", note);
    cr_assert(strstr(note, "width: 101 snapped to 100"), "%s", note);
    /* a configuration on the grid reads back unchanged, with no note */
    pf_pa_config d;
    cr_assert_eq(pf_pa_config_read(back, &d, note, sizeof note), PF_OK);
    cr_assert_str_eq(note, "");
    cr_assert(pf_pa_config_equal(&c, &d));
    json_object_del(o, "depth");
    cr_assert_eq(pf_pa_config_read(o, &d, NULL, 0), PF_ERR_INVALID);
    cr_assert(strstr(pf_errmsg(), "no \"depth\""), "%s", pf_errmsg());
    json_object_set_new(o, "depth", json_string("five"));
    cr_assert_eq(pf_pa_config_read(o, &d, NULL, 0), PF_ERR_INVALID);
    cr_assert_eq(pf_pa_param_levels(4), 63); /* width 8..256 */
    json_decref(o);
    json_decref(back);
}

/* PINNacle's default as a configuration: the vanilla network and points at
 * 20,000 Adam steps; lbfgs: Adam for a quarter, then L-BFGS; quick: fitted. */
Test(pinnsagent, a_configuration_becomes_its_spec)
{
    const pf_pde *p = pde("burgers_1d");
    json_t *o = cfg("tanh", "fnn", "adam", 1e-3, 100, 5, 8100, 2100, 2100, "Glorot normal"), *s;
    pf_pa_config c;
    cr_assert_eq(pf_pa_config_read(o, &c, NULL, 0), PF_OK);
    cr_assert_eq(pf_pa_config_spec(&c, p, NULL, &s), PF_OK, "%s", pf_errmsg());
    pf_model_config mc;
    pf_train_config tc;
    cr_assert_eq(pf_spec_instantiate(s, p, &mc, &tc), PF_OK);
    cr_assert_eq(mc.depth, 5);
    cr_assert_eq(mc.width, 100);
    cr_assert_eq(mc.activation, PF_UNARY_TANH);
    cr_assert_eq(tc.sampling.interior, 8100);
    cr_assert_eq(tc.sampling.boundary, 2100);
    cr_assert_eq(tc.sampling.initial, 2100);
    cr_assert_eq(tc.sampling.method, PF_SAMPLE_HAMMERSLEY);
    cr_assert_eq(tc.nstages, 1);
    cr_assert_eq(tc.stages[0].steps, 20000);
    cr_assert_eq(tc.stages[0].schedule.lr, 1e-3);
    json_decref(s);
    json_object_set_new(o, "optimizer", json_string("lbfgs"));
    cr_assert_eq(pf_pa_config_read(o, &c, NULL, 0), PF_OK);
    cr_assert_eq(pf_pa_config_spec(&c, p, NULL, &s), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(pf_spec_instantiate(s, p, &mc, &tc), PF_OK);
    cr_assert_eq(tc.nstages, 2);
    cr_assert_eq(tc.stages[0].optimizer, PF_OPT_ADAM);
    cr_assert_eq(tc.stages[0].steps, 5000);
    cr_assert_eq(tc.stages[1].optimizer, PF_OPT_LBFGS);
    cr_assert_eq(tc.stages[1].steps, 15000);
    /* PINNacle's torch.optim.LBFGS(lr=1, max_iter=20): torch's max_eval
     * (25 = 20 * 5 / 4), history 100, no line search, tolerances 1e-7, 1e-9 */
    const pf_lbfgs_config *lb = &tc.stages[1].lbfgs;
    cr_assert_eq(lb->max_iter, 20);
    cr_assert_eq(lb->max_eval, 0);
    cr_assert_eq(lb->history, 100);
    cr_assert(!lb->line_search);
    cr_assert_eq(tc.stages[1].schedule.lr, 1.0);
    cr_assert_eq(lb->tolerance_grad, 1e-7);
    cr_assert_eq(lb->tolerance_change, 1e-9);
    json_decref(s);
    /* quick: within its limits, 1,000 steps (250 + 750) */
    const pf_budget *q;
    cr_assert_eq(pf_budget_lookup("quick", &q), PF_OK);
    cr_assert_eq(pf_pa_config_spec(&c, p, q, &s), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(pf_spec_instantiate(s, p, &mc, &tc), PF_OK);
    cr_assert_leq(pf_train_config_points(&tc), q->max_points);
    cr_assert_leq((long)pf_model_config_nparams(&mc), q->max_params);
    cr_assert_eq(tc.stages[0].steps + tc.stages[1].steps, 1000);
    cr_assert_eq(tc.stages[0].steps, 250);
    json_decref(s);
    /* a steady PDE: no initial points whatever the configuration says */
    cr_assert_eq(pf_pa_config_spec(&c, pde("poisson_2d_classic"), NULL, &s), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(s, "sampling"), "initial")), 0);
    json_decref(s);
    json_decref(o);
}

/* ------------------------------------------------------------ planner */

static json_t *scores(void)
{
    /* lr first, then width, then the rest */
    json_t *a = json_array();
    for (int i = 0; i < PF_PA_PARAM_COUNT; i++) {
        const char *n = pf_pa_param_name(i);
        double s = !strcmp(n, "lr") ? 0.9 : !strcmp(n, "width") ? 0.7 : 0.1 * (i % 3);
        json_array_append_new(a, json_pack("{s:s, s:f, s:i}", "param", n, "score", s, "visits", 0));
    }
    return a;
}

static json_t *replay(void)
{
    return json_pack("[{s:s, s:f, s:f, s:o}, {s:s, s:f, s:f, s:o}]", "pde", "wave_1d", "similarity", 0.9, "mse", 3e-3,
                     "config", cfg("sin", "fnn", "adam", 1e-3, 64, 4, 5100, 1100, 1100, "Glorot uniform"), "pde",
                     "heat_2d_multiscale", "similarity", 0.8, "mse", 1e-4, "config",
                     cfg("tanh", "laaf", "adam", 1e-4, 128, 6, 6100, 2100, 2100, "Glorot normal"));
}

static void offline(pf_llm_provider **llm, char *dir, char *prompts, int seed)
{
    strcpy(dir, "/tmp/pf_pa_XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    cr_assert_eq(pf_prompt_dir(prompts, 4096), PF_OK);
    pf_llm_options o;
    pf_llm_options_default(&o);
    o.kind = PF_LLM_OFFLINE;
    o.transcripts = dir;
    o.seed = (uint64_t)seed;
    cr_assert_eq(pf_llm_provider_alloc(&o, llm), PF_OK, "%s", pf_errmsg());
}

/* The planner's context starts with the keys of every context in its own
 * order (budget before fidelity) and the iteration: its transcripts hold
 * these bytes. */
Test(pinnsagent, context_keys_keep_their_order)
{
    json_t *sc = scores(), *ctx;
    pf_pa_plan_in in = {.pde = pde("burgers_1d"), .iteration = 1, .scores = sc, .history = json_array()};
    cr_assert_eq(pf_pa_context(&in, &ctx), PF_OK, "%s", pf_errmsg());
    char *s = json_dumps(ctx, JSON_COMPACT | JSON_PRESERVE_ORDER);
    const char *head = "{\"format\":\"pinnforge.context\",\"version\":1,\"task\":\"pinnsagent\",\"method\":"
                       "\"pinnsagent\",\"pde\":\"burgers_1d\",\"budget\":\"paper\",\"fidelity\":\"baseline\","
                       "\"generation\":1,\"iteration\":1,\"scores\":";
    cr_assert(!strncmp(s, head, strlen(head)), "%s", s);
    free(s);
    json_decref(ctx);
    json_decref((json_t *)in.history);
    json_decref(sc);
}

/* Iteration 1 takes the replayed configuration with the lowest MSE. */
Test(pinnsagent, offline_iteration_1_replays_the_best_known_configuration)
{
    char dir[64], prompts[4096];
    pf_llm_provider *llm;
    offline(&llm, dir, prompts, 1);
    json_t *sc = scores(), *rp = replay(), *ctx, *config;
    pf_pa_plan_in in = {.pde = pde("burgers_1d"), .iteration = 0, .scores = sc, .replay = rp};
    cr_assert_eq(pf_pa_context(&in, &ctx), PF_OK, "%s", pf_errmsg());
    cr_assert_str_eq(str(json_array_get(json_object_get(ctx, "scores"), 0), "param"), "lr"); /* sorted */
    pf_proposal pr;
    cr_assert_eq(pf_pa_plan(llm, "m", prompts, ctx, "gen00/plan", &pr, &config), PF_OK, "%s", pf_errmsg());
    cr_assert(pr.valid, "%s", pr.reasons ? pr.reasons : "");
    cr_assert_eq(pr.attempts, 1);
    cr_assert_str_eq(str(config, "activation"), "tanh");
    cr_assert_eq(num(config, "width"), 128);
    cr_assert_eq(llm_test_count_files(dir), 1);
    pf_proposal_release(&pr);
    json_decref(config);
    json_decref(ctx);
    json_decref(sc);
    json_decref(rp);
    pf_llm_provider_free(llm);
    llm_test_remove_dir(dir);
}

/* Later iterations change the top-ranked parameter (lr) of the best
 * configuration so far, never repeat one, and are a function of the seed. */
Test(pinnsagent, offline_later_iterations_change_the_most_important_parameter)
{
    char dir[64], prompts[4096];
    pf_llm_provider *llm;
    offline(&llm, dir, prompts, 7);
    json_t *sc = scores(), *ctx, *config, *again;
    json_t *history = json_pack("[{s:o, s:f, s:s}, {s:o, s:s}]", "config",
                                cfg("tanh", "laaf", "adam", 1e-4, 128, 6, 6100, 2100, 2100, "Glorot normal"), "mse",
                                2e-3, "status", "ok", "config",
                                cfg("relu", "fnn", "sgd", 1e-1, 8, 3, 100, 100, 100, "zeros"), "status", "nan");
    pf_pa_plan_in in = {.pde = pde("burgers_1d"), .iteration = 2, .scores = sc, .history = history};
    cr_assert_eq(pf_pa_context(&in, &ctx), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(num(json_object_get(ctx, "best"), "mse"), 2e-3);
    pf_proposal pr, pr2;
    cr_assert_eq(pf_pa_plan(llm, "m", prompts, ctx, "gen02/plan", &pr, &config), PF_OK, "%s", pf_errmsg());
    cr_assert(pr.valid, "%s", pr.reasons ? pr.reasons : "");
    cr_assert_neq(num(config, "lr"), 1e-4, "lr is the top-ranked parameter");
    double r = num(config, "lr") / 1e-4;
    cr_assert(fabs(r - 10) < 1e-9 || fabs(r - 0.1) < 1e-9, "lr moves one decade: %g", num(config, "lr"));
    cr_assert_str_eq(str(config, "activation"), "tanh");
    cr_assert_eq(num(config, "depth"), 6);
    cr_assert(strstr(pr.rationale, "lr"), "%s", pr.rationale);
    cr_assert_eq(pf_pa_plan(llm, "m", prompts, ctx, "gen02/plan", &pr2, &again), PF_OK);
    cr_assert(json_equal(config, again), "deterministic");
    pf_proposal_release(&pr);
    pf_proposal_release(&pr2);
    json_decref(config);
    json_decref(again);
    json_decref(ctx);
    json_decref(history);
    json_decref(sc);
    pf_llm_provider_free(llm);
    llm_test_remove_dir(dir);
}

/* ---- re-asks against a scripted OpenAI-compatible server ---- */

static char *body(const char *answer)
{
    json_t *b = json_pack("{s:[{s:i, s:{s:s, s:s}, s:s}], s:{s:i, s:i}}", "choices", "index", 0, "message", "role",
                          "assistant", "content", answer, "finish_reason", "stop", "usage", "prompt_tokens", 50,
                          "completion_tokens", 5);
    char *s = json_dumps(b, JSON_COMPACT);
    json_decref(b);
    return s;
}

/* An answer without JSON and a repeat of the history are asked again, with
 * the reason in the prompt's note; the third answer is accepted. */
Test(pinnsagent, a_duplicate_or_an_answer_without_json_is_asked_again)
{
    json_t *old = cfg("tanh", "fnn", "adam", 1e-3, 100, 5, 8100, 2100, 2100, "Glorot normal");
    char *dup_js = json_dumps(old, JSON_COMPACT), *dup, *fresh;
    cr_assert(asprintf(&dup, "Keep it.\n```json\n%s\n```", dup_js) > 0);
    cr_assert(asprintf(&fresh, "Lower the rate.\n```json\n%s\n```",
                       "{\"activation\": \"tanh\", \"net\": \"fnn\", \"optimizer\": \"adam\", \"lr\": 0.0001, "
                       "\"width\": 100, \"depth\": 5, \"num_domain_points\": 8100, \"num_boundary_points\": 2100, "
                       "\"num_initial_points\": 2100, \"initializer\": \"Glorot normal\"}") > 0);
    char *b1 = body("I would use a small network."), *b2 = body(dup), *b3 = body(fresh);
    llm_fixture_reply script[] = {{200, NULL, b1, 0}, {200, NULL, b2, 0}, {200, NULL, b3, 0}};
    llm_fixture *srv = llm_fixture_start(script, 3);
    cr_assert_not_null(srv);
    char dir[64] = "/tmp/pf_pa_http_XXXXXX", prompts[4096];
    cr_assert_not_null(mkdtemp(dir));
    cr_assert_eq(pf_prompt_dir(prompts, sizeof prompts), PF_OK);
    unsetenv("PF_LLM_API_KEY");
    pf_llm_options o;
    pf_llm_options_default(&o);
    o.kind = PF_LLM_HTTP;
    o.url = llm_fixture_url(srv);
    o.model = "m-test";
    o.max_attempts = 1;
    o.transcripts = dir;
    pf_llm_provider *llm;
    cr_assert_eq(pf_llm_provider_alloc(&o, &llm), PF_OK, "%s", pf_errmsg());
    json_t *sc = scores(), *history = json_pack("[{s:O, s:f, s:s}]", "config", old, "mse", 1e-3, "status", "ok");
    pf_pa_plan_in in = {.pde = pde("burgers_1d"), .iteration = 1, .scores = sc, .history = history};
    json_t *ctx, *config;
    cr_assert_eq(pf_pa_context(&in, &ctx), PF_OK);
    pf_proposal pr;
    cr_assert_eq(pf_pa_plan(llm, "m-test", prompts, ctx, "gen01/plan", &pr, &config), PF_OK, "%s", pf_errmsg());
    cr_assert(pr.valid, "%s", pr.reasons ? pr.reasons : "");
    cr_assert_eq(pr.attempts, 3);
    cr_assert_eq(num(config, "lr"), 1e-4);
    cr_assert_eq(pr.prompt_tokens, 150);
    cr_assert_eq(llm_fixture_count(srv), 3);
    const llm_fixture_request *q2 = llm_fixture_request_at(srv, 1), *q3 = llm_fixture_request_at(srv, 2);
    cr_assert(strstr(q2->body, "holds no JSON object"), "the note of attempt 2");
    cr_assert(strstr(q3->body, "repeats experiment 1 of the history"), "the note of attempt 3");
    cr_assert(strstr(q2->body, "Experiments so far") && strstr(q2->body, "Hyperparameter importance"));
    cr_assert_eq(llm_test_count_files(dir), 3);
    pf_proposal_release(&pr);
    json_decref(config);
    json_decref(ctx);
    json_decref(history);
    json_decref(sc);
    pf_llm_provider_free(llm);
    llm_fixture_stop(srv);
    llm_test_remove_dir(dir);
    json_decref(old);
    free(dup_js), free(dup), free(fresh), free(b1), free(b2), free(b3);
}
