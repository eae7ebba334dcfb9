/* One proposal slot: JSON extraction from answers (the outermost object
 * only, syntax errors with line and column, linear time, a size limit),
 * section differences, validation, re-asks with the validator's reasons,
 * transcripts per attempt, escape rules, a server that never answers
 * usably ending the slot as invalid (here and in PINNsAgent's planner), and
 * an answer that repeats the API key leaving no piece of it in the
 * rationale, the reasons, a re-ask, a transcript, a proposal or a memory.
 * The proposer is the offline one, or a scripted OpenAI-compatible server
 * on 127.0.0.1 (tests/llm_fixture_server.h; a test skips when it cannot
 * start). */
#define _GNU_SOURCE /* asprintf */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "llm_fixture_server.h"
#include "pinnsagent/plan.h"
#include "registry.h"
#include "search/artifact.h"
#include "search/context.h"
#include "search/prompt.h"
#include "search/propose.h"

static void extract_ok(const char *text, const char *want_json, const char *want_before)
{
    char *js, *before;
    cr_assert_eq(pf_extract_json(text, &js, &before), PF_OK, "%s", pf_errmsg());
    cr_assert_str_eq(js, want_json);
    cr_assert_str_eq(before, want_before);
    free(js);
    free(before);
}

Test(propose, extracts_json_from_fences_and_prose)
{
    extract_ok("Because X.\n```json\n{\"a\": 1}\n```\n", "{\"a\": 1}", "Because X.");
    extract_ok("Plain fence:\n```\n{\"a\": [1, {\"b\": 2}]}\n```", "{\"a\": [1, {\"b\": 2}]}", "Plain fence:");
    /* a fence that is not JSON is skipped for the next one */
    extract_ok("```python\nprint(1)\n```\nthen\n```json\n{\"x\": true}\n```", "{\"x\": true}",
               "```python\nprint(1)\n```\nthen");
    /* prose with braces inside strings and a non-JSON brace first */
    extract_ok("Use {width} wisely: {\"s\": \"a } b\", \"n\": {\"m\": 1}} done", "{\"s\": \"a } b\", \"n\": {\"m\": 1}}",
               "Use {width} wisely:");
    char *js;
    cr_assert_eq(pf_extract_json("no json here {oops", &js, NULL), PF_ERR_INVALID);
    cr_assert(strstr(pf_errmsg(), "no JSON object"));
    cr_assert_eq(pf_extract_json("```json\n[1, 2]\n```", &js, NULL), PF_ERR_INVALID);
}

/* The reason pf_extract_json gives for text (which must fail), checked to
 * hold want and not `never` (NULL: no such check). */
static void extract_fails(const char *text, const char *want, const char *never)
{
    char *js = (char *)"untouched", *before = (char *)"untouched";
    cr_assert_eq(pf_extract_json(text, &js, &before), PF_ERR_INVALID, "accepted: %s", js);
    cr_assert_null(js);
    cr_assert_null(before);
    cr_assert_not_null(strstr(pf_errmsg(), want), "want '%s' in: %s", want, pf_errmsg());
    if (never) cr_assert_null(strstr(pf_errmsg(), never), "'%s' in: %s", never, pf_errmsg());
}

/* A spec with a trailing comma, or cut short, is a syntax error at a line
 * and column: never an inner object such as {"normalize": true} taken for
 * the whole (which the validator would then find without its sections). */
Test(propose, a_syntax_error_is_the_reason_with_its_line_and_column)
{
    extract_fails("I keep the default.\n```json\n{\n  \"representation\": {\"normalize\": true},\n  "
                  "\"architecture\": {\"width\": 64},\n}\n```\n",
                  "JSON syntax error at line 4, column 1 of the JSON object: string or '}' expected near '}'",
                  "normalize");
    /* cut short (max_tokens): no closing brace, no closing fence */
    extract_fails("I keep the default.\n```json\n{\n  \"representation\": {\"normalize\": true},\n  "
                  "\"architecture\": {\"width\": 64, \"depth\"",
                  "JSON syntax error at line 3, column ", "normalize");
    cr_assert_not_null(strstr(pf_errmsg(), "end of file"), "%s", pf_errmsg());
    /* the same without a fence, in prose */
    extract_fails("Here: {\"representation\": {\"normalize\": true}, \"architecture\": {\"width\": 64},} ok",
                  "JSON syntax error at line 1, column ", "normalize");
    /* an object inside another is never taken alone */
    extract_fails("Use this: {\"a\": {\"b\": 1}, oops}", "JSON syntax error at line 1", NULL);
    /* a longer broken spec is the reason, not a short example before it */
    extract_fails("For instance {\"x\": 1,} and then\n```json\n{\n  \"a\": [1, 2\n}\n```",
                  "JSON syntax error at line 3, column 1", NULL);
    /* braces of prose are no JSON: no syntax error for them */
    extract_fails("I chose {width} and {depth} with care.", "holds no JSON object", "syntax");
}

/* n copies of s, then tail, malloc'ed. */
static char *repeated(const char *s, size_t n, const char *tail)
{
    size_t k = strlen(s), t = strlen(tail);
    char *out = malloc(n * k + t + 1);
    cr_assert_not_null(out);
    for (size_t i = 0; i < n; i++) memcpy(out + i * k, s, k);
    memcpy(out + n * k, tail, t + 1);
    return out;
}

/* Answers that took the old extractor quadratic time (minutes) or deep
 * recursion: each completes with its reason. No timing is asserted: a
 * quadratic extractor does not finish within the test's time limit. */
Test(propose, deep_and_long_answers_complete_with_a_reason, .timeout = 120)
{
    enum { DEEP = 100000 };
    char *open = repeated("{\"a\":", DEEP, "1"), *close = repeated("}", DEEP, ""), *deep;
    cr_assert_gt(asprintf(&deep, "%s%s", open, close), 0);
    extract_fails(deep, "maximum parsing depth", NULL); /* jansson stops at 2,048 levels, never recursing deeper */
    extract_fails(open, "maximum parsing depth", NULL); /* the same, never closed */
    char *arrays = repeated("[", DEEP, ""), *in_object;
    cr_assert_gt(asprintf(&in_object, "```json\n{\"a\": %s\n```", arrays), 0);
    extract_fails(in_object, "maximum parsing depth", NULL);
    char *braces = repeated("{", 8 * DEEP, " {\"a\": 1}");
    extract_fails(braces, "holds no JSON object", NULL); /* the object is inside the first brace: never taken alone */
    free(open), free(close), free(deep), free(arrays), free(in_object), free(braces);

    /* the size limit: PF_PROPOSE_MAX_ANSWER bytes are read, one more is not */
    static const char tail[] = "\n```json\n{\"a\": 1}\n```\n";
    size_t fill = PF_PROPOSE_MAX_ANSWER - (sizeof tail - 1);
    char *big = malloc(PF_PROPOSE_MAX_ANSWER + 2);
    cr_assert_not_null(big);
    memset(big, 'x', fill);
    memcpy(big + fill, tail, sizeof tail);
    cr_assert_eq(strlen(big), PF_PROPOSE_MAX_ANSWER);
    char *js, *before;
    cr_assert_eq(pf_extract_json(big, &js, &before), PF_OK, "%s", pf_errmsg());
    cr_assert_str_eq(js, "{\"a\": 1}");
    cr_assert_eq(strlen(before), fill);
    free(js), free(before);
    memmove(big + 1, big, PF_PROPOSE_MAX_ANSWER + 1);
    extract_fails(big, "longer than 1048576 bytes (1 MiB, PF_PROPOSE_MAX_ANSWER)", NULL);
    free(big);
    /* 5 MB of open braces: refused before it is read */
    char *huge = repeated("{\"a\":", 1000000, "");
    extract_fails(huge, "PF_PROPOSE_MAX_ANSWER", NULL);
    free(huge);
}

Test(propose, counts_differing_sections)
{
    const pf_pde *p;
    pf_pdes_lookup("poisson_5d", &p);
    json_t *a = pf_spec_example(p, PF_FIDELITY_LOW), *b = json_deep_copy(a);
    cr_assert_eq(pf_spec_sections_differing(a, b, PF_SPEC_SECTIONS), 0);
    json_object_set_new(json_object_get(b, "architecture"), "width", json_integer(64));
    cr_assert_eq(pf_spec_sections_differing(a, b, PF_SPEC_SECTIONS), 1);
    json_object_set_new(json_object_get(b, "sampling"), "method", json_string("sobol"));
    json_object_set_new(json_object_get(b, "training"), "log_every", json_integer(10));
    cr_assert_eq(pf_spec_sections_differing(a, b, PF_SPEC_SECTIONS), 3);
    json_decref(a);
    json_decref(b);
}

Test(propose, offline_slot_is_valid_and_stored)
{
    char tmpl[] = "/tmp/pf_propose_XXXXXX", prompts[4096];
    cr_assert_not_null(mkdtemp(tmpl));
    cr_assert_eq(pf_prompt_dir(prompts, sizeof prompts), PF_OK);
    const pf_pde *p;
    pf_pdes_lookup("burgers_1d", &p);
    pf_llm_options o;
    pf_llm_options_default(&o);
    o.kind = PF_LLM_OFFLINE;
    o.transcripts = tmpl;
    o.seed = 3;
    pf_llm_provider *llm;
    cr_assert_eq(pf_llm_provider_alloc(&o, &llm), PF_OK, "%s", pf_errmsg());
    pf_context_in in = {.pde = p, .fidelity = PF_FIDELITY_LOW, .generation = 0, .role = "robust_reference"};
    json_t *ctx;
    cr_assert_eq(pf_context_propose(&in, &ctx), PF_OK);
    pf_proposal pr;
    cr_assert_eq(pf_propose(llm, o.model, prompts, ctx, "gen00/robust_reference", &pr), PF_OK, "%s", pf_errmsg());
    cr_assert(pr.valid, "%s", pr.reasons ? pr.reasons : "");
    cr_assert_eq(pr.attempts, 1);
    cr_assert_str_eq(pr.provider, "offline");
    cr_assert_eq(strlen(pr.spec_hash), 64);
    cr_assert(pr.rationale && strlen(pr.rationale) > 20);
    cr_assert_eq(llm_test_count_files(tmpl), 1);
    char path[4200];
    snprintf(path, sizeof path, "%s/%s.msgpack", tmpl, pr.request[0]);
    cr_assert_eq(access(path, R_OK), 0, "transcript %s", path);
    /* the same slot again: the same spec (deterministic), the same transcript */
    pf_proposal again;
    cr_assert_eq(pf_propose(llm, o.model, prompts, ctx, "gen00/robust_reference", &again), PF_OK);
    cr_assert_str_eq(again.spec_hash, pr.spec_hash);
    cr_assert_eq(llm_test_count_files(tmpl), 1);
    pf_proposal_release(&pr);
    pf_proposal_release(&again);
    json_decref(ctx);
    pf_llm_provider_free(llm);
    llm_test_remove_dir(tmpl);
}

/* ---- re-asks, against a scripted OpenAI-compatible server ---- */

/* A chat-completions body whose answer is prose plus `spec` in a fence. */
static char *body_with(const json_t *spec)
{
    char *js = json_dumps(spec, JSON_INDENT(2) | JSON_PRESERVE_ORDER), *answer;
    cr_assert_eq(asprintf(&answer, "I keep the default and fix the budget.\n```json\n%s\n```\n", js) > 0, 1);
    json_t *b = json_pack("{s:[{s:i, s:{s:s, s:s}, s:s}], s:{s:i, s:i}}", "choices", "index", 0, "message", "role",
                          "assistant", "content", answer, "finish_reason", "stop", "usage", "prompt_tokens", 100,
                          "completion_tokens", 10);
    char *s = json_dumps(b, JSON_COMPACT);
    json_decref(b);
    free(js);
    free(answer);
    return s;
}

typedef struct http_case {
    char dir[64], prompts[4096];
    llm_fixture *server;
    pf_llm_provider *llm;
    json_t *ctx;
} http_case;

/* A provider on a server running script, storing transcripts in c->dir;
 * key: PF_LLM_API_KEY (NULL: unset); attempts per call (short backoff). */
static void http_start_n(http_case *c, const llm_fixture_reply *script, int n, const json_t *ctx, const char *key,
                         int attempts)
{
    if (key)
        setenv("PF_LLM_API_KEY", key, 1);
    else
        unsetenv("PF_LLM_API_KEY");
    snprintf(c->dir, sizeof c->dir, "/tmp/pf_reask_XXXXXX");
    cr_assert_not_null(mkdtemp(c->dir));
    cr_assert_eq(pf_prompt_dir(c->prompts, sizeof c->prompts), PF_OK);
    c->server = llm_fixture_start_or_skip(script, n);
    pf_llm_options o;
    pf_llm_options_default(&o);
    o.kind = PF_LLM_HTTP;
    o.url = llm_fixture_url(c->server);
    o.model = "m-test";
    o.max_attempts = attempts;
    o.backoff_s = 0.01;
    o.backoff_max_s = 0.02;
    o.transcripts = c->dir;
    cr_assert_eq(pf_llm_provider_alloc(&o, &c->llm), PF_OK, "%s", pf_errmsg());
    c->ctx = json_deep_copy(ctx);
}

static void http_start_key(http_case *c, const llm_fixture_reply *script, int n, const json_t *ctx, const char *key)
{
    http_start_n(c, script, n, ctx, key, 1);
}

static void http_start(http_case *c, const llm_fixture_reply *script, int n, const json_t *ctx)
{
    http_start_key(c, script, n, ctx, NULL);
}

static void http_stop(http_case *c)
{
    llm_fixture_stop(c->server);
    pf_llm_provider_free(c->llm);
    json_decref(c->ctx);
    llm_test_remove_dir(c->dir);
}

static json_t *gen0_ctx(const pf_pde *p)
{
    pf_context_in in = {.pde = p, .fidelity = PF_FIDELITY_LOW, .generation = 0, .role = "optimization"};
    json_t *ctx;
    cr_assert_eq(pf_context_propose(&in, &ctx), PF_OK);
    return ctx;
}

Test(propose, rejected_answer_is_asked_again_with_the_reasons, .timeout = 30)
{
    const pf_pde *p;
    pf_pdes_lookup("burgers_1d", &p);
    json_t *good = pf_spec_example(p, PF_FIDELITY_LOW), *bad = json_deep_copy(good);
    json_object_set_new(json_array_get(json_object_get(json_object_get(bad, "optimization"), "stages"), 0), "steps",
                        json_integer(999));
    char *b1 = body_with(bad), *b2 = body_with(good);
    llm_fixture_reply script[] = {{200, NULL, b1, 0}, {200, NULL, b2, 0}};
    json_t *ctx = gen0_ctx(p);
    http_case c;
    http_start(&c, script, 2, ctx);
    pf_proposal pr;
    cr_assert_eq(pf_propose(c.llm, "m-test", c.prompts, c.ctx, "gen00/optimization", &pr), PF_OK, "%s", pf_errmsg());
    cr_assert(pr.valid);
    cr_assert_eq(pr.attempts, 2);
    cr_assert_eq(pr.prompt_tokens, 200);
    cr_assert_str_eq(pr.rationale, "I keep the default and fix the budget.");
    /* the second request carries the first answer and the validator's reason */
    cr_assert_eq(llm_fixture_count(c.server), 2);
    json_t *rq = json_loads(llm_fixture_request_at(c.server, 1)->body, 0, NULL);
    json_t *msgs = json_object_get(rq, "messages");
    cr_assert_eq(json_array_size(msgs), 4);
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(msgs, 2), "role")), "assistant");
    const char *again = json_string_value(json_object_get(json_array_get(msgs, 3), "content"));
    cr_assert(strstr(again, "999") && strstr(again, "1,000") && strstr(again, "attempt 2 of 4"), "%s", again);
    json_decref(rq);
    /* one transcript per attempt */
    cr_assert_eq(llm_test_count_files(c.dir), 2);
    cr_assert_str_neq(pr.request[0], pr.request[1]);
    pf_proposal_release(&pr);
    http_stop(&c);
    json_decref(good), json_decref(bad), json_decref(ctx);
    free(b1), free(b2);
}

Test(propose, a_slot_that_never_validates_is_invalid_after_three_reasks, .timeout = 30)
{
    const pf_pde *p;
    pf_pdes_lookup("poisson_5d", &p);
    char *prose = strdup("{\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":"
                         "\"I would use a wide network.\"}}]}");
    llm_fixture_reply script[] = {{200, NULL, prose, 0}, {200, NULL, prose, 0}, {200, NULL, prose, 0},
                                  {200, NULL, prose, 0}};
    json_t *ctx = gen0_ctx(p);
    http_case c;
    http_start(&c, script, 4, ctx);
    pf_proposal pr;
    cr_assert_eq(pf_propose(c.llm, "m-test", c.prompts, c.ctx, "gen00/optimization", &pr), PF_OK, "%s", pf_errmsg());
    cr_assert(!pr.valid);
    cr_assert_null(pr.spec);
    cr_assert_eq(pr.attempts, 4);
    cr_assert(strstr(pr.reasons, "no JSON object"), "%s", pr.reasons);
    cr_assert_eq(llm_fixture_count(c.server), 4);
    cr_assert_eq(llm_test_count_files(c.dir), 4);
    pf_proposal_release(&pr);
    http_stop(&c);
    json_decref(ctx);
    free(prose);
}

Test(propose, escape_rejects_a_copy_of_a_parent, .timeout = 30)
{
    const pf_pde *p;
    pf_pdes_lookup("burgers_1d", &p);
    json_t *parent = pf_spec_example(p, PF_FIDELITY_LOW), *two = json_deep_copy(parent);
    json_object_set_new(json_object_get(two, "architecture"), "width", json_integer(64));
    json_object_set_new(json_object_get(two, "sampling"), "method", json_string("sobol"));
    char hash[PF_SPEC_HASH_HEX];
    pf_spec_hash(parent, hash);
    pf_candidate par = {.generation = 3, .slot = "gen03/refine", .valid = true, .spec = parent, .has_y = true,
                        .y = 1e-3, .status = PF_CANDIDATE_OK};
    memcpy(par.spec_hash, hash, sizeof hash);
    pf_context_in in = {.pde = p, .fidelity = PF_FIDELITY_LOW, .generation = 4, .strategy = "novelty",
                        .escape = true, .nparents = 1, .parents = &par};
    json_t *ctx;
    cr_assert_eq(pf_context_propose(&in, &ctx), PF_OK);
    char *b1 = body_with(parent), *b2 = body_with(two);
    llm_fixture_reply script[] = {{200, NULL, b1, 0}, {200, NULL, b2, 0}};
    http_case c;
    http_start(&c, script, 2, ctx);
    pf_proposal pr;
    cr_assert_eq(pf_propose(c.llm, "m-test", c.prompts, c.ctx, "gen04/novelty", &pr), PF_OK, "%s", pf_errmsg());
    cr_assert(pr.valid);
    cr_assert_eq(pr.attempts, 2);
    json_t *rq = json_loads(llm_fixture_request_at(c.server, 1)->body, 0, NULL);
    const char *again = json_string_value(json_object_get(json_array_get(json_object_get(rq, "messages"), 3), "content"));
    cr_assert(strstr(again, "copy of Top-3 parent"), "%s", again);
    cr_assert_float_eq(json_number_value(json_object_get(rq, "temperature")), 0.73, 1e-12);
    json_decref(rq);
    pf_proposal_release(&pr);
    http_stop(&c);
    json_decref(parent), json_decref(two), json_decref(ctx);
    free(b1), free(b2);
}

/* ... and the re-ask carries that message to the model. */
Test(propose, the_reask_carries_the_syntax_error, .timeout = 30)
{
    const pf_pde *p;
    pf_pdes_lookup("burgers_1d", &p);
    json_t *good = pf_spec_example(p, PF_FIDELITY_LOW);
    char *js = json_dumps(good, JSON_INDENT(2) | JSON_PRESERVE_ORDER), *answer;
    size_t n = strlen(js);
    cr_assert_eq(js[n - 1], '}');
    js[n - 1] = 0; /* the closing brace goes, to come back after a comma: a trailing comma */
    cr_assert_gt(asprintf(&answer, "I keep the default.\n```json\n%s,\n}\n```\n", js), 0);
    json_t *b = json_pack("{s:[{s:{s:s, s:s}}]}", "choices", "message", "role", "assistant", "content", answer);
    char *b1 = json_dumps(b, JSON_COMPACT), *b2 = body_with(good);
    llm_fixture_reply script[] = {{200, NULL, b1, 0}, {200, NULL, b2, 0}};
    json_t *ctx = gen0_ctx(p);
    http_case c;
    http_start(&c, script, 2, ctx);
    pf_proposal pr;
    cr_assert_eq(pf_propose(c.llm, "m-test", c.prompts, c.ctx, "gen00/optimization", &pr), PF_OK, "%s", pf_errmsg());
    cr_assert(pr.valid, "%s", pr.reasons ? pr.reasons : "");
    cr_assert_eq(pr.attempts, 2);
    json_t *rq = json_loads(llm_fixture_request_at(c.server, 1)->body, 0, NULL);
    const char *again = json_string_value(json_object_get(json_array_get(json_object_get(rq, "messages"), 3), "content"));
    cr_assert_not_null(strstr(again, "JSON syntax error at line "), "%s", again);
    cr_assert_not_null(strstr(again, "string or '}' expected"), "%s", again);
    cr_assert_null(strstr(again, "not a section"), "%s", again);
    cr_assert_null(strstr(again, "is missing"), "%s", again);
    json_decref(rq);
    pf_proposal_release(&pr);
    http_stop(&c);
    json_decref(b), json_decref(good), json_decref(ctx);
    free(js), free(answer), free(b1), free(b2);
}

/* ---- a server that never answers usably ---- */

/* The proposal file pf-propose writes for slot (generation 0, role). */
static void write_proposal(const char *path, const pf_pde *p, const char *role, pf_proposal *pr)
{
    pf_run r = {.pde = p, .method = PF_METHOD_PINNFORGE};
    int k = 0;
    while (k < pf_run_slots(PF_METHOD_PINNFORGE, 0) && strcmp(pf_run_slot_name(PF_METHOD_PINNFORGE, 0, k), role)) k++;
    cr_assert_lt(k, pf_run_slots(PF_METHOD_PINNFORGE, 0));
    pf_proposal_file f;
    pf_proposal_file_init(&f, &r, 0, k, false, pr);
    cr_assert_eq(pf_proposal_file_write(path, &f), PF_OK, "%s", pf_errmsg());
    pf_proposal_file_release(&f);
}


#define HTML_HEADERS "Content-Type: text/html\r\n"
#define HTML_PAGE "<html><body>502 Bad Gateway</body></html>"
#define NULL_CONTENT                                                                                               \
    "{\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":null},\"finish_reason\":"   \
    "\"length\"}]}"

/* A 200 that is not JSON (a proxy's page) or has a null content, every
 * retry spent, ends the slot as an invalid answer does: pf_propose settles
 * it (PF_OK, valid false, the reason in reasons, no re-ask), its proposal
 * file is an invalid design's, the next slot goes on, and a replay settles
 * it the same way without the server. */
Test(propose, a_server_that_never_answers_usably_ends_the_slot_as_invalid, .timeout = 30)
{
    const pf_pde *p;
    pf_pdes_lookup("burgers_1d", &p);
    json_t *good = pf_spec_example(p, PF_FIDELITY_LOW);
    char *ok = body_with(good);
    llm_fixture_reply script[] = {{200, HTML_HEADERS, HTML_PAGE, 0}, {200, NULL, NULL_CONTENT, 0},
                                  {200, HTML_HEADERS, HTML_PAGE, 0}, {200, HTML_HEADERS, HTML_PAGE, 0},
                                  {200, NULL, ok, 0}};
    json_t *ctx = gen0_ctx(p);
    http_case c;
    http_start_n(&c, script, 5, ctx, NULL, 2);
    pf_proposal pr;
    /* slot 1: a page, then a null content: 2 attempts spent in one call */
    cr_assert_eq(pf_propose(c.llm, "m-test", c.prompts, c.ctx, "gen00/optimization", &pr), PF_OK, "%s", pf_errmsg());
    cr_assert(!pr.valid);
    cr_assert_null(pr.spec);
    cr_assert_null(pr.rationale);
    cr_assert_eq(pr.attempts, 1, "a settled call is not asked again");
    cr_assert_str_eq(pr.provider, "http");
    cr_assert_not_null(strstr(pr.reasons, "- no usable answer from the LLM server in 2 attempts"), "%s", pr.reasons);
    cr_assert_not_null(strstr(pr.reasons, "choices[0].message.content null (finish_reason \"length\""), "%s",
                       pr.reasons);
    cr_assert_eq(llm_fixture_count(c.server), 2);
    cr_assert_eq(llm_test_count_files(c.dir), 1, "the settled call is stored");
    /* its file is an invalid design's: valid false, the reasons, the call */
    char path[4200];
    snprintf(path, sizeof path, "%s/unusable.proposal.msgpack", c.dir);
    char *reasons = strdup(pr.reasons), request[PF_SHA256_HEX];
    memcpy(request, pr.request[0], sizeof request);
    write_proposal(path, p, "optimization", &pr);
    pf_proposal_release(&pr);
    pf_proposal_file f;
    cr_assert_eq(pf_proposal_file_read(path, &f), PF_OK, "%s", pf_errmsg());
    cr_assert(!f.call.valid && !f.skipped);
    cr_assert_str_eq(f.call.reasons, reasons);
    cr_assert_eq(f.call.attempts, 1);
    cr_assert_str_eq(f.call.request[0], request);
    pf_proposal_file_release(&f);
    cr_assert_eq(unlink(path), 0);

    /* slot 2: two pages; slot 3 goes on and is valid */
    cr_assert_eq(pf_propose(c.llm, "m-test", c.prompts, c.ctx, "gen00/optimization-2", &pr), PF_OK, "%s", pf_errmsg());
    cr_assert(!pr.valid);
    cr_assert_not_null(strstr(pr.reasons, "not JSON (Content-Type text/html, 41 bytes): '" HTML_PAGE "'"), "%s",
                       pr.reasons);
    pf_proposal_release(&pr);
    cr_assert_eq(pf_propose(c.llm, "m-test", c.prompts, c.ctx, "gen00/optimization-3", &pr), PF_OK, "%s", pf_errmsg());
    cr_assert(pr.valid, "%s", pr.reasons ? pr.reasons : "");
    pf_proposal_release(&pr);
    cr_assert_eq(llm_fixture_count(c.server), 5);

    /* a replay of slot 1 settles it the same way, from the transcript */
    pf_llm_options o;
    pf_llm_options_default(&o);
    o.kind = PF_LLM_REPLAY;
    o.model = "m-test";
    o.transcripts = c.dir;
    pf_llm_provider *replay;
    cr_assert_eq(pf_llm_provider_alloc(&o, &replay), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(pf_propose(replay, "m-test", c.prompts, c.ctx, "gen00/optimization", &pr), PF_OK, "%s", pf_errmsg());
    cr_assert(!pr.valid);
    cr_assert_str_eq(pr.reasons, reasons);
    pf_proposal_release(&pr);
    pf_llm_provider_free(replay);
    cr_assert_eq(llm_fixture_count(c.server), 5);
    http_stop(&c);
    json_decref(good), json_decref(ctx);
    free(ok), free(reasons);
}

/* PINNsAgent's planner ends its iteration the same way (no re-ask, no
 * configuration), instead of failing pf-propose. */
Test(propose, pinnsagent_ends_an_iteration_without_a_usable_answer_as_invalid, .timeout = 30)
{
    const pf_pde *p;
    pf_pdes_lookup("burgers_1d", &p);
    const pf_budget *b;
    cr_assert_eq(pf_budget_lookup("quick", &b), PF_OK);
    json_t *scores = json_pack("[{s:s, s:f, s:i}]", "param", "lr", "score", 1.0, "visits", 0), *ctx, *config;
    pf_pa_plan_in in = {.pde = p, .budget = b, .iteration = 0, .scores = scores};
    cr_assert_eq(pf_pa_context(&in, &ctx), PF_OK, "%s", pf_errmsg());
    llm_fixture_reply script[] = {{200, NULL, NULL_CONTENT, 0}, {200, HTML_HEADERS, HTML_PAGE, 0}};
    http_case c;
    http_start_n(&c, script, 2, ctx, NULL, 2);
    pf_proposal pr;
    cr_assert_eq(pf_pa_plan(c.llm, "m-test", c.prompts, c.ctx, "gen00/plan", &pr, &config), PF_OK, "%s",
                 pf_errmsg());
    cr_assert(!pr.valid);
    cr_assert_null(config);
    cr_assert_eq(pr.attempts, 1);
    cr_assert_not_null(strstr(pr.reasons, "no usable answer from the LLM server in 2 attempts"), "%s", pr.reasons);
    cr_assert_not_null(strstr(pr.reasons, "not JSON (Content-Type text/html"), "%s", pr.reasons);
    cr_assert_eq(llm_fixture_count(c.server), 2);
    cr_assert_eq(llm_test_count_files(c.dir), 1);
    pf_proposal_release(&pr);
    http_stop(&c);
    json_decref(ctx), json_decref(scores);
}

/* ---- the API key, repeated by the model, reaches no file and no prompt ---- */

#define KEY "sk-SECRET-0123456789abcdefghijklmnopq"

/* A chat-completions body: the answer is `prose`, then `spec` in a fence
 * (none when NULL); the key is echoed (llm_fixture_server.h) in the fields
 * around the answer too. */
static char *body_echoing(const char *prose, const json_t *spec)
{
    char *js = spec ? json_dumps(spec, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL, *answer;
    cr_assert_gt(asprintf(&answer, "%s%s%s%s", prose, js ? "\n```json\n" : "", js ? js : "", js ? "\n```\n" : ""), 0);
    json_t *b = json_pack("{s:s, s:[{s:i, s:{s:s, s:s, s:s}, s:s}], s:{s:i, s:i, s:s}}", "system_fingerprint",
                          "{{key}}", "choices", "index", 0, "message", "role", "assistant", "content", answer,
                          "reasoning_content", "the user's key is {{key}}", "finish_reason", "stop", "usage",
                          "prompt_tokens", 100, "completion_tokens", 10, "note", "{{key}}");
    char *s = json_dumps(b, JSON_COMPACT);
    json_decref(b);
    free(js);
    free(answer);
    return s;
}

Test(propose, an_answer_that_repeats_the_key_leaves_no_piece_of_it, .timeout = 30)
{
    const pf_pde *p;
    pf_pdes_lookup("burgers_1d", &p);
    json_t *good = pf_spec_example(p, PF_FIDELITY_LOW), *bad = json_deep_copy(good);
    /* no free-text field in a spec: the key as a value the validator quotes */
    json_object_set_new(json_object_get(bad, "architecture"), "activation", json_string("{{key}}"));
    /* 1: the key in the prose and the spec (rejected: its reason quotes the
     * value, and goes back in the re-ask); 2: the key in the rationale,
     * and a prefix of it cut by the fence */
    char *b1 = body_echoing("My key is {{key}}; I keep the default.", bad),
         *b2 = body_echoing("Rationale: the key {{key}} is fine. Cut: sk-SECRET-0123", good);
    /* a slot that never validates keeps the reasons (the key as a value) */
    char *b3 = body_echoing("Again {{key}}.", bad);
    /* the posterior summary repeats it too */
    char *b4 = body_echoing("M: tanh worked for {{key}}; sk-SECRET-01234567", NULL);
    llm_fixture_reply script[] = {{200, NULL, b1, 0}, {200, NULL, b2, 0}, {200, NULL, b3, 0}, {200, NULL, b3, 0},
                                  {200, NULL, b3, 0}, {200, NULL, b3, 0}, {200, NULL, b4, 0}};
    json_t *ctx = gen0_ctx(p);
    http_case c;
    http_start_key(&c, script, 7, ctx, KEY);
    char path[4200];

    pf_proposal pr;
    cr_assert_eq(pf_propose(c.llm, "m-test", c.prompts, c.ctx, "gen00/optimization", &pr), PF_OK, "%s", pf_errmsg());
    cr_assert(pr.valid, "%s", pr.reasons ? pr.reasons : "");
    cr_assert_eq(pr.attempts, 2);
    llm_test_assert_no_key("the rationale", pr.rationale, strlen(pr.rationale), KEY);
    cr_assert_str_eq(pr.rationale, "Rationale: the key [REDACTED] is fine. Cut: [REDACTED]");
    /* the re-ask prompt carries the first answer and its reasons: no key */
    const llm_fixture_request *rq = llm_fixture_request_at(c.server, 1);
    llm_test_assert_no_key("the re-ask request", rq->body, rq->body_len, KEY);
    cr_assert_not_null(strstr(rq->body, "[REDACTED]"), "%s", rq->body);
    snprintf(path, sizeof path, "%s/valid.proposal.msgpack", c.dir);
    write_proposal(path, p, "optimization", &pr);
    pf_proposal_release(&pr);

    cr_assert_eq(pf_propose(c.llm, "m-test", c.prompts, c.ctx, "gen00/optimization-2", &pr), PF_OK, "%s",
                 pf_errmsg());
    cr_assert(!pr.valid);
    cr_assert_not_null(strstr(pr.reasons, "activation"), "%s", pr.reasons);
    llm_test_assert_no_key("the reasons", pr.reasons, strlen(pr.reasons), KEY);
    snprintf(path, sizeof path, "%s/invalid.proposal.msgpack", c.dir);
    write_proposal(path, p, "optimization", &pr);
    pf_proposal_release(&pr);

    pf_context_in in = {.pde = p, .fidelity = PF_FIDELITY_LOW, .method = PF_METHOD_PINNFORGE, .generation = 0};
    json_t *post;
    cr_assert_eq(pf_context_posterior(&in, &post), PF_OK, "%s", pf_errmsg());
    char *memory;
    pf_llm_response r;
    cr_assert_eq(pf_summarize(c.llm, "m-test", c.prompts, post, "gen00/posterior", &memory, &r), PF_OK, "%s",
                 pf_errmsg());
    cr_assert_str_eq(memory, "M: tanh worked for [REDACTED]; [REDACTED]");
    pf_memory_file m;
    cr_assert_eq(pf_memory_file_init(&m, 0, memory, NULL), PF_OK);
    snprintf(path, sizeof path, "%s/memory.msgpack", c.dir);
    cr_assert_eq(pf_memory_file_write(path, &m), PF_OK, "%s", pf_errmsg());
    pf_memory_file_release(&m);
    free(memory);
    json_decref(post);

    /* every transcript (6 calls + 1), both proposals and the memory */
    cr_assert_eq(llm_fixture_count(c.server), 7);
    cr_assert_eq(llm_test_count_files(c.dir), 7 + 3);
    llm_test_assert_dir_no_key(c.dir, KEY);
    http_stop(&c);
    json_decref(good), json_decref(bad), json_decref(ctx);
    free(b1), free(b2), free(b3), free(b4);
}
