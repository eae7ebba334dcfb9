/* The replay LLM provider: a call answered over http (the loopback
 * fixture) and stored, then answered again from the transcript alone,
 * byte for byte; a miss names the request and the folder; replay writes
 * nothing. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "llm/provider.h"
#include "llm_fixture_server.h"

/* the answer has bytes a careless copy would change: UTF-8, quotes, a NUL-free tab */
#define ANSWER_JSON "Use sin activations \\u2014 \\\"periodic\\\".\\n\\t```json\\n{}\\n```"
#define ANSWER "Use sin activations \xe2\x80\x94 \"periodic\".\n\t```json\n{}\n```"

static const pf_llm_message MSG[2] = {{"system", "You design PINNs."}, {"user", "Refine the best parent."}};

static void quiet(pf_log_level level, const char *msg, void *user)
{
    (void)level;
    (void)msg;
    (void)user;
}

static void setup(void)
{
    pf_log_set(quiet, NULL);
    static const char *const vars[] = {"PF_LLM_API_KEY", "http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) unsetenv(vars[i]);
}

static void teardown(void) { pf_log_set(NULL, NULL); }

TestSuite(llm_replay, .init = setup, .fini = teardown, .timeout = 30);

static pf_llm_request request(const char *slot)
{
    return (pf_llm_request){.model = "m-test", .nmsg = 2, .msg = MSG, .temperature = 0.55, .max_tokens = 2048,
                            .slot = slot};
}

/* Answer q over http from the fixture and store it under dir, as the
 * backbone `backbone` (NULL: none named). */
static void record_as(const char *dir, const char *backbone, const pf_llm_request *q, pf_llm_response *r)
{
    llm_fixture_reply script[] = {
        {200, NULL,
         "{\"choices\":[{\"message\":{\"role\":\"assistant\",\"content\":\"" ANSWER_JSON "\"}}],"
         "\"usage\":{\"prompt_tokens\":321,\"completion_tokens\":54}}",
         0}};
    llm_fixture *f = llm_fixture_start(script, 1);
    cr_assert_not_null(f);
    pf_llm_options o;
    pf_llm_options_default(&o);
    o.kind = PF_LLM_HTTP;
    o.url = llm_fixture_url(f);
    o.model = "m-test";
    o.transcripts = dir;
    o.backbone = backbone;
    pf_llm_provider *p;
    cr_assert_eq(pf_llm_provider_alloc(&o, &p), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(pf_llm_call(p, q, r), PF_OK, "%s", pf_errmsg());
    pf_llm_provider_free(p);
    cr_assert_eq(llm_fixture_count(f), 1);
    llm_fixture_stop(f);
}

static void record(const char *dir, const pf_llm_request *q, pf_llm_response *r) { record_as(dir, NULL, q, r); }

static pf_llm_provider *replay_as(const char *dir, const char *backbone)
{
    pf_llm_options o;
    pf_llm_options_default(&o);
    o.kind = PF_LLM_REPLAY;
    o.model = "m-test";
    o.transcripts = dir;
    o.backbone = backbone;
    pf_llm_provider *p;
    cr_assert_eq(pf_llm_provider_alloc(&o, &p), PF_OK, "%s", pf_errmsg());
    return p;
}

static pf_llm_provider *replay_over(const char *dir) { return replay_as(dir, NULL); }

/* A backbone's answer records its name; replay gives it back, and refuses
 * it to a run of another backbone (a transcript copied across folders). */
Test(llm_replay, a_transcript_names_its_backbone_and_replays_only_for_it)
{
    char dir[] = "/tmp/pf_llm_replay_XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    pf_llm_request q = request("gen01/explore");
    pf_llm_response a, b;
    record_as(dir, "good-1", &q, &a);
    cr_assert_str_eq(a.backbone, "good-1");
    pf_llm_provider *p = replay_as(dir, "good-1");
    cr_assert_eq(pf_llm_call(p, &q, &b), PF_OK, "%s", pf_errmsg());
    cr_assert_str_eq(b.backbone, "good-1");
    cr_assert_str_eq(b.text, a.text);
    pf_llm_response_release(&b);
    pf_llm_provider_free(p);
    p = replay_as(dir, "poor");
    cr_assert_eq(pf_llm_call(p, &q, &b), PF_ERR_INVALID);
    cr_assert(strstr(pf_errmsg(), "answered by the backbone 'good-1', but this run's backbone is 'poor'"), "%s",
              pf_errmsg());
    cr_assert_null(b.text);
    pf_llm_provider_free(p);
    p = replay_over(dir);
    cr_assert_eq(pf_llm_call(p, &q, &b), PF_ERR_INVALID, "a run without a backbone");
    cr_assert(strstr(pf_errmsg(), "this run's backbone is none"), "%s", pf_errmsg());
    pf_llm_provider_free(p);
    pf_llm_response_release(&a);
    llm_test_remove_dir(dir);
}

Test(llm_replay, answers_byte_identically_from_the_transcript)
{
    char dir[] = "/tmp/pf_llm_replay_XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    pf_llm_request q = request("gen02/refine");
    pf_llm_response a;
    record(dir, &q, &a);
    cr_assert_str_eq(a.text, ANSWER);
    cr_assert_eq(llm_test_count_files(dir), 1);

    pf_llm_provider *p = replay_over(dir);
    cr_assert_eq(pf_llm_provider_kind(p), PF_LLM_REPLAY);
    char want[128];
    snprintf(want, sizeof want, "replay %s", dir);
    cr_assert_str_eq(pf_llm_provider_describe(p), want);
    pf_llm_response b;
    cr_assert_eq(pf_llm_call(p, &q, &b), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(strlen(b.text), strlen(a.text));
    cr_assert_eq(memcmp(b.text, a.text, strlen(a.text)), 0);
    cr_assert_eq(b.prompt_tokens, 321);
    cr_assert_eq(b.completion_tokens, 54);
    cr_assert_str_eq(b.provider, "http"); /* the provider that answered, as recorded */
    cr_assert_float_eq(b.latency_s, a.latency_s, 0);
    /* max_tokens is not part of the address: the same question is the same transcript */
    pf_llm_request q2 = q;
    q2.max_tokens = 100;
    pf_llm_response c;
    cr_assert_eq(pf_llm_complete(p, &q2, &c), PF_OK, "%s", pf_errmsg());
    cr_assert_str_eq(c.text, ANSWER);
    pf_llm_response_release(&c);
    cr_assert_eq(llm_test_count_files(dir), 1);
    pf_llm_response_release(&a);
    pf_llm_response_release(&b);
    pf_llm_provider_free(p);
    llm_test_remove_dir(dir);
}

Test(llm_replay, a_miss_names_the_hash_slot_and_folder_and_writes_nothing)
{
    char dir[] = "/tmp/pf_llm_replay_XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    pf_llm_request q = request("gen02/refine");
    pf_llm_response a;
    record(dir, &q, &a);
    pf_llm_response_release(&a);
    int before = llm_test_count_files(dir);

    pf_llm_provider *p = replay_over(dir);
    pf_llm_request miss = request("gen02/novelty"); /* another slot: another address */
    char hex[PF_SHA256_HEX];
    cr_assert_eq(pf_llm_request_hash(&miss, hex), PF_OK);
    pf_llm_response r;
    cr_assert_eq(pf_llm_call(p, &miss, &r), PF_ERR_IO);
    const char *e = pf_errmsg();
    cr_assert_not_null(strstr(e, "replay"), "%s", e);
    cr_assert_not_null(strstr(e, hex), "%s", e);
    cr_assert_not_null(strstr(e, "gen02/novelty"), "%s", e);
    cr_assert_not_null(strstr(e, dir), "%s", e);
    cr_assert_not_null(strstr(e, "original provider"), "%s", e);
    cr_assert_null(r.text);
    cr_assert_eq(r.provider[0], 0);
    /* a changed temperature is a miss too */
    pf_llm_request warm = request("gen02/refine");
    warm.temperature = 0.7;
    cr_assert_eq(pf_llm_complete(p, &warm, &r), PF_ERR_IO);
    /* hits and misses alike leave the folder as it was */
    cr_assert_eq(pf_llm_call(p, &q, &r), PF_OK, "%s", pf_errmsg());
    pf_llm_response_release(&r);
    cr_assert_eq(llm_test_count_files(dir), before);
    pf_llm_provider_free(p);
    llm_test_remove_dir(dir);
}

Test(llm_replay, needs_an_existing_folder)
{
    pf_llm_options o;
    pf_llm_options_default(&o);
    o.kind = PF_LLM_REPLAY;
    pf_llm_provider *p;
    cr_assert_eq(pf_llm_provider_alloc(&o, &p), PF_ERR_INVALID);
    o.transcripts = "/nonexistent/pf_llm_replay/llm";
    cr_assert_eq(pf_llm_provider_alloc(&o, &p), PF_ERR_IO);
    cr_assert_not_null(strstr(pf_errmsg(), "/nonexistent/pf_llm_replay/llm"), "%s", pf_errmsg());
    cr_assert_null(p);
}
