/* Contexts and prompts: the temperatures of appendix B.2, the context of
 * appendix A.2 in every message, and the information isolation of appendix
 * A.6 for the four methods. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "llm/offline.h"
#include "registry.h"
#include "search/context.h"
#include "search/prompt.h"

static char dir[4096];

static void setup(void)
{
    cr_assert_eq(pf_prompt_dir(dir, sizeof dir), PF_OK, "%s", pf_errmsg());
}

TestSuite(prompt, .init = setup);

Test(prompt, temperatures_follow_appendix_b2)
{
    const double role[8] = {0.20, 0.35, 0.40, 0.45, 0.45, 0.40, 0.50, 0.60};
    const double normal[5] = {0.20, 0.36, 0.42, 0.47, 0.58}, escape[5] = {0.35, 0.51, 0.57, 0.62, 0.73};
    for (int i = 0; i < 8; i++) cr_assert_float_eq(pf_temperature_role(i), role[i], 1e-12);
    for (int i = 0; i < 5; i++) {
        cr_assert_float_eq(pf_temperature_strategy(i, false), normal[i], 1e-12);
        cr_assert_float_eq(pf_temperature_strategy(i, true), escape[i], 1e-12);
    }
    cr_assert(isnan(pf_temperature_role(8)) && isnan(pf_temperature_strategy(5, false)));
    cr_assert_float_eq(PF_TEMPERATURE_POSTERIOR, 0.1, 1e-12);
}

/* ---- a synthetic run state: K_P, three parents with evidence, M_g ---- */

static json_t *knowledge(void)
{
    return json_pack("[{s:s, s:s, s:[s,s], s:s, s:s}]", "id", "kb-shock-sampling", "title", "KBTITLE steep fronts",
                     "tags", "steep", "sampling", "rationale", "KBWHY", "text", "KBTEXT");
}

typedef struct state {
    json_t *kb, *spec[3], *ev[3];
    char hash[3][PF_SPEC_HASH_HEX];
    pf_candidate par[3];
} state;

static void make_state(state *s, const pf_pde *p)
{
    s->kb = knowledge();
    const char *hashes[3] = {"cccc", "aaaa", "bbbb"}; /* ranked c, a, b */
    for (int i = 0; i < 3; i++) {
        s->spec[i] = pf_spec_example(p, PF_FIDELITY_LOW);
        json_object_set_new(json_object_get(s->spec[i], "architecture"), "width", json_integer(20 + 10 * i));
        s->ev[i] = json_pack("{s:f, s:{s:f}}", "loss_final", 0.5, "constraint_errors", "bc", 1e-3 * (i + 1));
        snprintf(s->hash[i], sizeof s->hash[i], "%s%060d", hashes[i], 0);
        s->par[i] = (pf_candidate){.generation = 0, .slot = "gen00/x", .valid = true, .spec = s->spec[i],
                                   .has_y = true, .y = 1e-3 * (i + 1), .status = PF_CANDIDATE_OK,
                                   .evidence = s->ev[i]};
        memcpy(s->par[i].spec_hash, s->hash[i], sizeof s->hash[i]);
    }
}

static void free_state(state *s)
{
    json_decref(s->kb);
    for (int i = 0; i < 3; i++) json_decref(s->spec[i]), json_decref(s->ev[i]);
}

static pf_prompt render_for(pf_method m, int gen, bool esc, state *s, json_t **ctx_out)
{
    const pf_pde *p;
    cr_assert_eq(pf_pdes_lookup("burgers_1d", &p), PF_OK);
    pf_context_in in = {.pde = p, .fidelity = PF_FIDELITY_LOW, .method = m, .generation = gen,
                        .role = gen ? NULL : "localized_sampling", .strategy = gen ? "physics_guided" : NULL,
                        .escape = esc, .knowledge = s->kb, .nparents = 3, .parents = s->par,
                        .memory = "MEMORYTEXT mechanisms that worked"};
    json_t *ctx;
    cr_assert_eq(pf_context_propose(&in, &ctx), PF_OK, "%s", pf_errmsg());
    pf_prompt pr;
    cr_assert_eq(pf_prompt_render(dir, ctx, &pr), PF_OK, "%s", pf_errmsg());
    if (ctx_out) *ctx_out = ctx;
    else json_decref(ctx);
    return pr;
}

static bool has(const char *s, const char *what) { return strstr(s, what) != NULL; }

Test(prompt, generation0_has_the_a2_context_and_no_history)
{
    const pf_pde *p;
    pf_pdes_lookup("burgers_1d", &p);
    state s;
    make_state(&s, p);
    pf_prompt pr = render_for(PF_METHOD_PINNFORGE, 0, false, &s, NULL);
    cr_assert_float_eq(pr.temperature, 0.40, 1e-12);
    cr_assert(has(pr.system, "```json"));
    const char *u = pr.user;
    cr_assert(has(u, "u_t + u u_x = (0.01/pi) u_xx"), "PDE statement");
    cr_assert(has(u, "KBTITLE") && has(u, "KBWHY") && has(u, "KBTEXT"), "K_P");
    cr_assert(has(u, "sampling.adaptive"), "allowed space");
    cr_assert(has(u, "exactly 1,000") && has(u, "2,000,000") && has(u, "65,536"), "budget");
    cr_assert(has(u, "Localized sampling."), "role");
    cr_assert(!has(u, "Global Top-3") && !has(u, "MEMORYTEXT") && !has(u, "Execution evidence"));
    cr_assert(!has(u, "{{") && !has(u, "\n\n\n"), "no template residue or blank runs:\n%s", u);
    pf_prompt_release(&pr);
    free_state(&s);
}

/* A proposal's context starts with the keys of every context in this
 * order: its transcripts hold these bytes. */
Test(prompt, context_keys_keep_their_order)
{
    const pf_pde *p;
    pf_pdes_lookup("burgers_1d", &p);
    state s;
    make_state(&s, p);
    json_t *ctx;
    pf_prompt pr = render_for(PF_METHOD_PINNFORGE, 2, true, &s, &ctx);
    char *d = json_dumps(ctx, JSON_COMPACT | JSON_PRESERVE_ORDER);
    const char *head = "{\"format\":\"pinnforge.context\",\"version\":1,\"task\":\"propose\",\"method\":"
                       "\"pinnforge\",\"pde\":\"burgers_1d\",\"fidelity\":\"low\",\"budget\":\"paper\","
                       "\"generation\":2,\"strategy\":\"physics_guided\",\"escape\":true,\"knowledge\":";
    cr_assert(!strncmp(d, head, strlen(head)), "%s", d);
    free(d);
    json_decref(ctx);
    pf_prompt_release(&pr);
    free_state(&s);
}

/* Appendix A.6, table A.1: what each method's prompt contains. */
Test(prompt, methods_isolate_information_as_appendix_a6)
{
    const pf_pde *p;
    pf_pdes_lookup("burgers_1d", &p);
    state s;
    make_state(&s, p);
    struct {
        pf_method m;
        bool knowledge, memory, feedback, parents;
    } want[4] = {{PF_METHOD_PINNFORGE, true, true, true, true},
                 {PF_METHOD_NO_KNOWLEDGE, false, false, true, true},
                 {PF_METHOD_NO_FEEDBACK, true, false, false, true},
                 {PF_METHOD_NO_EVOLUTION, true, true, true, false}};
    for (int i = 0; i < 4; i++) {
        json_t *ctx;
        pf_prompt pr = render_for(want[i].m, 2, false, &s, &ctx);
        const char *u = pr.user, *name = pf_method_name(want[i].m);
        cr_assert_eq(has(u, "KBTEXT"), want[i].knowledge, "%s: knowledge", name);
        cr_assert_eq(has(u, "MEMORYTEXT"), want[i].memory, "%s: memory", name);
        cr_assert_eq(has(u, "Global Top-3"), want[i].parents, "%s: parents", name);
        cr_assert_eq(has(u, "\"width\": 30"), want[i].parents, "%s: parent specs", name);
        /* feedback: y, status, evidence and the ranking */
        bool fb = want[i].feedback && want[i].parents;
        cr_assert_eq(has(u, "MSE 0.001"), fb, "%s: y", name);
        cr_assert_eq(has(u, "Execution evidence"), fb, "%s: evidence", name);
        cr_assert_eq(has(u, "constraint_errors"), fb, "%s: evidence body", name);
        cr_assert_eq(has(u, "best first"), fb, "%s: ranking", name);
        cr_assert_eq(json_object_get(ctx, "knowledge") != NULL, want[i].knowledge, "%s", name);
        cr_assert_eq(json_object_get(ctx, "memory") != NULL, want[i].memory, "%s", name);
        json_t *par = json_object_get(ctx, "parents");
        cr_assert_eq(par != NULL, want[i].parents, "%s", name);
        if (par) {
            cr_assert_eq(json_object_get(json_array_get(par, 0), "y") != NULL, want[i].feedback);
            cr_assert_eq(json_object_get(json_array_get(par, 0), "evidence") != NULL, want[i].feedback);
            /* without feedback the order is by hash (a, b, c), not by rank (c, a, b) */
            const char *first = json_string_value(json_object_get(json_array_get(par, 0), "spec_hash"));
            cr_assert_eq(first[0], want[i].feedback ? 'c' : 'a', "%s: parent order", name);
        }
        cr_assert_eq(pf_method_has_memory(want[i].m), want[i].memory);
        pf_prompt_release(&pr);
        json_decref(ctx);
    }
    free_state(&s);
}

Test(prompt, escape_generation_adds_rules_and_heat)
{
    const pf_pde *p;
    pf_pdes_lookup("burgers_1d", &p);
    state s;
    make_state(&s, p);
    pf_prompt pr = render_for(PF_METHOD_PINNFORGE, 5, false, &s, NULL), esc = render_for(PF_METHOD_PINNFORGE, 5, true, &s, NULL);
    cr_assert_float_eq(pr.temperature, 0.36, 1e-12);
    cr_assert_float_eq(esc.temperature, 0.51, 1e-12);
    cr_assert(!has(pr.user, "at least two of the seven sections"));
    cr_assert(has(esc.user, "at least two of the seven sections"));
    cr_assert(has(esc.user, "Physics-Guided.") && has(esc.user, "generation 5"));
    pf_prompt_release(&pr);
    pf_prompt_release(&esc);
    free_state(&s);
}

Test(prompt, posterior_lists_the_history)
{
    const pf_pde *p;
    pf_pdes_lookup("burgers_1d", &p);
    state s;
    make_state(&s, p);
    s.par[2].status = PF_CANDIDATE_DIVERGED;
    s.par[2].has_y = false;
    pf_context_in in = {.pde = p, .fidelity = PF_FIDELITY_LOW, .method = PF_METHOD_PINNFORGE, .generation = 0,
                        .nhistory = 3, .history = s.par};
    json_t *ctx;
    cr_assert_eq(pf_context_posterior(&in, &ctx), PF_OK, "%s", pf_errmsg());
    pf_prompt pr;
    cr_assert_eq(pf_prompt_render(dir, ctx, &pr), PF_OK, "%s", pf_errmsg());
    cr_assert_float_eq(pr.temperature, 0.1, 1e-12);
    cr_assert(has(pr.user, "- gen00/x  cccc00000000  MSE 0.001  ok"), "%s", pr.user);
    cr_assert(has(pr.user, "MSE -  diverged"), "%s", pr.user);
    cr_assert(has(pr.user, "bc 0.003"));
    cr_assert(has(pr.system, "never propose"));
    pf_prompt_release(&pr);
    json_decref(ctx);
    in.method = PF_METHOD_NO_FEEDBACK;
    cr_assert_eq(pf_context_posterior(&in, &ctx), PF_ERR_INVALID);
    free_state(&s);
}

Test(prompt, bad_contexts_and_missing_templates)
{
    const pf_pde *p;
    pf_pdes_lookup("poisson_5d", &p);
    json_t *ctx;
    pf_context_in in = {.pde = p, .generation = 0, .strategy = "refine"};
    cr_assert_eq(pf_context_propose(&in, &ctx), PF_ERR_INVALID);
    in = (pf_context_in){.pde = p, .generation = 0, .role = "wizard"};
    cr_assert_eq(pf_context_propose(&in, &ctx), PF_ERR_INVALID);
    cr_assert(has(pf_errmsg(), "wizard"));
    in = (pf_context_in){.pde = p, .generation = 1, .strategy = "refine"};
    cr_assert_eq(pf_context_propose(&in, &ctx), PF_OK);
    pf_prompt pr;
    cr_assert_eq(pf_prompt_render("/nonexistent", ctx, &pr), PF_ERR_IO);
    cr_assert(has(pf_errmsg(), "system.md") || has(pf_errmsg(), "strategy_refine.md"), "%s", pf_errmsg());
    json_decref(ctx);
    char *text;
    cr_assert_eq(pf_prompt_reask(dir, "- r1\n- r2", 2, 4, &text), PF_OK);
    cr_assert(has(text, "- r1\n- r2") && has(text, "attempt 2 of 4"));
    free(text);
}
