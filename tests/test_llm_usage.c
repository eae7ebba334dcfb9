/* The LLM calls of a run per backbone and their cost (llm/usage.h), and
 * the run's LLM budget in pf_llm_call (llm/provider.h): transcripts
 * written by hand with known token counts, a backbones file with prices,
 * and the replay provider, which makes no call but shows where one would
 * have been made (a miss). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/file.h"
#include "llm/provider.h"
#include "llm/usage.h"

static const pf_llm_message MSG[2] = {{"system", "You design PINNs."}, {"user", "Refine the best parent."}};
static char dir[64], llms[96];

static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/pf-usage-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    snprintf(llms, sizeof llms, "%s/llms.json", dir);
    const char *text = "[{\"name\": \"b1\", \"url\": \"http://127.0.0.1:9/v1\", \"model\": \"m\", \"price_in\": 2,"
                       " \"price_out\": 10}]";
    cr_assert_eq(pf_file_write_atomic(llms, text, strlen(text)), PF_OK, "%s", pf_errmsg());
    setenv("LLMS_FILE", llms, 1);
}

static void teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
    unsetenv("LLMS_FILE");
}

TestSuite(llm_usage, .init = setup, .fini = teardown, .timeout = 30);

static pf_llm_request request(const char *slot)
{
    return (pf_llm_request){.model = "m", .nmsg = 2, .msg = MSG, .temperature = 0.5, .max_tokens = 100, .slot = slot};
}

/* A stored call of slot with these tokens, answered by backbone bb ("" none) through provider prov. */
static void stored(const char *slot, const char *prov, const char *bb, long pt, long ct)
{
    pf_llm_request q = request(slot);
    char text[] = "answer";
    pf_llm_response r = {.text = text, .prompt_tokens = pt, .completion_tokens = ct, .latency_s = 0.25};
    snprintf(r.provider, sizeof r.provider, "%s", prov);
    snprintf(r.backbone, sizeof r.backbone, "%s", bb);
    cr_assert_eq(pf_transcript_write(dir, &q, &r), PF_OK, "%s", pf_errmsg());
}

Test(llm_usage, per_backbone_and_priced_by_the_file)
{
    stored("gen00/a", "http", "b1", 1000, 200);
    stored("gen00/b", "http", "b1", 3000, 50);
    stored("gen00/c", "offline", "offline", 700, 70);
    stored("gen00/d", "http", "", 10, 1); /* PF_LLM_URL: no price */
    pf_llm_usage u = {0};
    cr_assert_eq(pf_llm_usage_of_transcripts(dir, -1, &u), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(u.n, 3);
    pf_llm_backbones *t;
    cr_assert_eq(pf_llm_prices(&t), PF_OK, "%s", pf_errmsg());
    cr_assert_not_null(t);
    pf_llm_usage_price(&u, t);
    pf_llm_backbones_free(t);
    for (int i = 0; i < u.n; i++) {
        const pf_llm_backbone_usage *b = &u.b[i];
        if (!strcmp(b->name, "b1")) {
            cr_assert_eq(b->calls, 2);
            cr_assert_eq(b->prompt_tokens, 4000);
            cr_assert_eq(b->completion_tokens, 250);
            cr_assert_float_eq(b->llm_s, 0.5, 1e-12);
            cr_assert_float_eq(b->cost, (2.0 * 4000 + 10.0 * 250) / 1e6, 1e-15, "%.17g", b->cost);
            cr_assert(b->priced);
        } else if (!strcmp(b->name, "offline")) {
            cr_assert_eq(b->calls, 1);
            cr_assert(b->priced && b->cost == 0, "the offline proposer is free");
        } else {
            cr_assert_str_eq(b->name, "http", "a server named by PF_LLM_URL");
            cr_assert(!b->priced && b->cost == 0);
        }
    }
    cr_assert_eq(pf_llm_usage_calls(&u), 4);
    cr_assert_eq(pf_llm_usage_tokens(&u), 4000 + 250 + 770 + 11);
    cr_assert_float_eq(pf_llm_usage_cost(&u), 0.0105, 1e-15);
    cr_assert(!pf_llm_usage_priced(&u), "one backbone has no price");
}

/* The replay provider over dir, with a budget. */
static pf_llm_provider *replay(long max_tokens, double max_cost)
{
    pf_llm_options o;
    pf_llm_options_default(&o);
    o.kind = PF_LLM_REPLAY;
    o.model = "m";
    o.transcripts = dir;
    o.backbone = "b1"; /* the run's: its transcripts are b1's */
    pf_llm_provider *p;
    cr_assert_eq(pf_llm_provider_alloc(&o, &p), PF_OK, "%s", pf_errmsg());
    pf_llm_provider_set_budget(p, max_tokens, max_cost);
    return p;
}

Test(llm_usage, a_spent_token_budget_makes_no_call)
{
    stored("gen00/a", "http", "b1", 900, 100);
    pf_llm_provider *p = replay(1000, 0);
    pf_llm_request q = request("gen01/b");
    pf_llm_response r;
    cr_assert_eq(pf_llm_call(p, &q, &r), PF_OK, "%s", pf_errmsg());
    cr_assert_not_null(r.stopped, "1000 tokens used of 1000");
    cr_assert(strstr(r.stopped, "1000 tokens of LLM_MAX_TOKENS=1000"), "%s", r.stopped);
    cr_assert_str_eq(r.text, "");
    cr_assert(!pf_transcript_exists(dir, &q), "nothing stored");
    pf_llm_response_release(&r);
    pf_llm_request a = request("gen00/a");
    cr_assert_eq(pf_llm_call(p, &a, &r), PF_OK, "%s", pf_errmsg());
    cr_assert_null(r.stopped, "a stored call costs nothing new");
    cr_assert_str_eq(r.text, "answer");
    cr_assert_str_eq(r.backbone, "b1", "as recorded");
    pf_llm_response_release(&r);
    pf_llm_provider_free(p);
    p = replay(1001, 0);
    cr_assert_eq(pf_llm_call(p, &q, &r), PF_ERR_IO, "under the cap the call is made (replay: a miss)");
    pf_llm_provider_free(p);
}

Test(llm_usage, the_cap_counts_the_generations_before_the_calls)
{
    stored("gen00/a", "http", "b1", 400, 100);  /* generation 0: 500 tokens */
    stored("gen01/a", "http", "b1", 5000, 0);   /* a call of generation 1 that ran first (-j) */
    stored("gen02/posterior", "http", "b1", 9000, 0);
    pf_llm_provider *p = replay(1000, 0);
    pf_llm_request q = request("gen01/b"), l = request("gen02/a");
    pf_llm_response r;
    cr_assert_eq(pf_llm_call(p, &q, &r), PF_ERR_IO, "500 of 1000 tokens before generation 1: a call (a replay miss)");
    cr_assert_eq(pf_llm_call(p, &l, &r), PF_OK, "%s", pf_errmsg());
    cr_assert(r.stopped && strstr(r.stopped, "its 2 calls stored before generation 2 used 5500 tokens"), "%s",
              r.stopped ? r.stopped : "");
    pf_llm_response_release(&r);
    pf_llm_provider_free(p);
    cr_assert_eq(pf_llm_slot_generation("gen03/refine"), 3);
    cr_assert_eq(pf_llm_slot_generation("gen3/refine"), -1);
    cr_assert_eq(pf_llm_slot_generation("hifi/x"), -1);
    cr_assert_eq(pf_llm_slot_generation(NULL), -1);
    pf_llm_usage u = {0};
    cr_assert_eq(pf_llm_usage_of_transcripts(dir, 1, &u), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(pf_llm_usage_calls(&u), 1);
    cr_assert_eq(pf_llm_usage_tokens(&u), 500);
}

Test(llm_usage, a_cost_budget_at_the_files_prices)
{
    stored("gen00/a", "http", "b1", 1000, 200); /* 0.002 + 0.002 = 0.004 */
    pf_llm_request q = request("gen01/b");
    pf_llm_response r;
    pf_llm_provider *p = replay(0, 0.004);
    cr_assert_eq(pf_llm_call(p, &q, &r), PF_OK, "%s", pf_errmsg());
    cr_assert(r.stopped && strstr(r.stopped, "cost 0.004 of LLM_MAX_COST=0.004"), "%s", r.stopped ? r.stopped : "");
    pf_llm_response_release(&r);
    pf_llm_provider_free(p);
    p = replay(0, 0.0041);
    cr_assert_eq(pf_llm_call(p, &q, &r), PF_ERR_IO, "under the cap: a call (a replay miss)");
    stored("gen00/c", "http", "", 1, 1);
    cr_assert_eq(pf_llm_call(p, &q, &r), PF_ERR_INVALID, "an unpriced call under a cost cap");
    cr_assert(strstr(pf_errmsg(), "calls to 'http' have no price"), "%s", pf_errmsg());
    pf_llm_provider_free(p);
}
