/*
 * test_llm_backbones.c — llm/backbones.h (the backbones file, llms.json)
 * and what a backbone does to the http provider: PF_LLM_BACKBONE picks
 * one, its key comes from the variable it names, its extra options reach
 * the request body (seen by the loopback server), and its max_in_flight
 * holds over many processes (the server counts the requests in flight).
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "llm/backbones.h"
#include "llm/provider.h"
#include "llm_fixture_server.h"

#define OK_BODY                                                                                                   \
    "{\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"fine\"},\"finish_reason\":"    \
    "\"stop\"}],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":2}}"

static const pf_llm_message MSG[1] = {{"user", "Propose a spec."}};
static char dir[64];

static void setup(void)
{
    static const char *const vars[] = {"PF_LLM_URL", "PF_LLM_MODEL", "PF_LLM_PROVIDER", "PF_LLM_TIMEOUT",
                                       "PF_LLM_RETRIES", "PF_LLM_API_KEY", "PF_LLM_BACKBONE", "LLMS_FILE",
                                       "http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy",
                                       "ALL_PROXY"};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) unsetenv(vars[i]);
    snprintf(dir, sizeof dir, "/tmp/pf_backbones_XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    char slots[128];
    snprintf(slots, sizeof slots, "%s/slots", dir);
    setenv("PF_LLM_SLOTS_DIR", slots, 1);
}

static void teardown(void) { llm_test_remove_dir(dir); }

TestSuite(llm_backbones, .init = setup, .fini = teardown, .timeout = 60);

static pf_status parse(const char *text, pf_llm_backbones **t)
{
    return pf_llm_backbones_parse(text, strlen(text), "my/llms.json", t);
}

/* text must be refused, the message holding every one of want (NULL-ended). */
static void refused(const char *text, const char *want1, const char *want2)
{
    pf_llm_backbones *t = (pf_llm_backbones *)1;
    cr_assert_eq(parse(text, &t), PF_ERR_INVALID, "accepted: %s", text);
    cr_assert_null(t);
    cr_assert(strstr(pf_errmsg(), "my/llms.json"), "no file named: %s", pf_errmsg());
    cr_assert(strstr(pf_errmsg(), want1), "'%s' not in: %s", want1, pf_errmsg());
    if (want2) cr_assert(strstr(pf_errmsg(), want2), "'%s' not in: %s", want2, pf_errmsg());
}

Test(llm_backbones, a_file_is_parsed_with_its_defaults)
{
    pf_llm_backbones *t;
    cr_assert_eq(parse("[{\"name\":\"local\",\"url\":\"http://127.0.0.1:8000/v1\",\"model\":\"qwen\"},"
                       " {\"name\":\"gpt-4o\",\"url\":\"https://api.example.com/v1\",\"model\":\"gpt-4o\","
                       "  \"key_env\":\"MY_KEY\",\"price_in\":2.5,\"price_out\":10,\"max_in_flight\":3,"
                       "  \"options\":{\"temperature\":0.3,\"reasoning_effort\":\"low\"}}]",
                       &t),
                 PF_OK, "%s", pf_errmsg());
    cr_assert_eq(t->n, 2);
    const pf_llm_backbone *a = pf_llm_backbones_find(t, "local"), *b = pf_llm_backbones_find(t, "gpt-4o");
    cr_assert_not_null(a);
    cr_assert_not_null(b);
    cr_assert_str_eq(a->url, "http://127.0.0.1:8000/v1");
    cr_assert_str_eq(a->model, "qwen");
    cr_assert_null(a->key_env);
    cr_assert_eq(a->price_in, 0.0);
    cr_assert_eq(a->price_out, 0.0);
    cr_assert_eq(a->max_in_flight, PF_LLM_BACKBONE_IN_FLIGHT);
    cr_assert_null(a->options_json);
    cr_assert_str_eq(b->key_env, "MY_KEY");
    cr_assert_eq(b->price_in, 2.5);
    cr_assert_eq(b->price_out, 10.0);
    cr_assert_eq(b->max_in_flight, 3);
    cr_assert_str_eq(b->options_json, "{\"temperature\":0.29999999999999999,\"reasoning_effort\":\"low\"}");
    cr_assert_null(pf_llm_backbones_find(t, "nope"));

    const pf_llm_backbone *g;
    cr_assert_eq(pf_llm_backbones_get(t, "nope", &g), PF_ERR_INVALID);
    cr_assert_null(g);
    cr_assert(strstr(pf_errmsg(), "no backbone 'nope' in my/llms.json (it has: local, gpt-4o;"), "%s", pf_errmsg());

    pf_llm_options o;
    pf_llm_options_default(&o);
    pf_llm_backbone_apply(b, &o);
    cr_assert_eq(o.kind, PF_LLM_HTTP);
    cr_assert_str_eq(o.backbone, "gpt-4o");
    cr_assert_str_eq(o.url, "https://api.example.com/v1");
    cr_assert_str_eq(o.model, "gpt-4o");
    cr_assert_str_eq(o.key_env, "MY_KEY");
    cr_assert_eq(o.max_in_flight, 3);
    cr_assert_eq(o.price_out, 10.0);
    cr_assert_eq(o.extra_json, b->options_json);
    pf_llm_backbone_apply(a, &o);
    cr_assert_str_eq(o.key_env, "", "no key_env: no key at all");
    cr_assert_null(o.extra_json);
    pf_llm_backbones_free(t);
}

Test(llm_backbones, bad_files_are_refused_naming_file_and_field)
{
    refused("{}", "a JSON array", NULL);
    refused("[]", "no backbones", NULL);
    refused("[{\"name\":\"a\",\"url\":\"http://h/v1\",\"model\":\"m\",\"temprature\":1}]", "unknown field 'temprature'",
            "backbone 1");
    refused("[{\"name\":\"a\",\"url\":\"http://h/v1\",\"model\":\"m\"},{\"name\":\"a\",\"url\":\"http://g/v1\","
            "\"model\":\"m\"}]",
            "backbones 1 and 2 are both named 'a'", NULL);
    refused("[{\"name\":\"offline\",\"url\":\"http://h/v1\",\"model\":\"m\"}]", "reserved for the offline proposer",
            NULL);
    refused("[{\"name\":\"a\",\"url\":\"http://h/v1\",\"model\":\"m\",\"api_key\":\"sk-x\"}]", "'api_key'",
            "key_env");
    refused("[{\"name\":\"a\",\"url\":\"http://h/v1\",\"model\":\"m\",\"key\":\"sk-x\"}]", "'key'", "key_env");
    refused("[{\"name\":\"a\",\"url\":\"http://h/v1\",\"model\":\"m\",\"options\":{\"api_key\":\"sk-x\"}}]",
            "options.api_key", "key_env");
    refused("[{\"name\":\"a\",\"url\":\"http://h/v1\",\"model\":\"m\",\"key_env\":\"sk-123 abc\"}]", "'key_env'",
            NULL);
    refused("[{\"name\":\"a b\",\"url\":\"http://h/v1\",\"model\":\"m\"}]", "'a b' is not a word", NULL);
    refused("[{\"name\":\"a\",\"url\":\"ftp://h/v1\",\"model\":\"m\"}]", "'url'", NULL);
    refused("[{\"name\":\"a\",\"url\":\"http://h/v1\"}]", "no 'model'", NULL);
    refused("[{\"name\":\"a\",\"url\":\"http://h/v1\",\"model\":\"m\",\"price_in\":-1}]", "'price_in'", ">= 0");
    refused("[{\"name\":\"a\",\"url\":\"http://h/v1\",\"model\":\"m\",\"price_out\":\"1\"}]", "'price_out'", NULL);
    refused("[{\"name\":\"a\",\"url\":\"http://h/v1\",\"model\":\"m\",\"max_in_flight\":0}]", "'max_in_flight'", NULL);
    refused("[{\"name\":\"a\",\"url\":\"http://h/v1\",\"model\":\"m\",\"max_in_flight\":2.5}]", "'max_in_flight'",
            NULL);
    refused("[{\"name\":\"a\",\"url\":\"http://h/v1\",\"model\":\"m\",\"options\":{\"model\":\"x\"}}]",
            "options.model", NULL);
    refused("[{\"name\":\"a\",\"url\":\"http://h/v1\",\"model\":\"m\",\"options\":[1]}]", "'options'", NULL);
    refused("[{\"name\":\"a\",\"name\":\"b\",\"url\":\"http://h/v1\",\"model\":\"m\"}]", "my/llms.json:1:", NULL);
}

Test(llm_backbones, the_example_file_is_valid)
{
    char path[4096];
    cr_assert_eq(pf_llm_backbones_path(path, sizeof path), PF_OK, "%s", pf_errmsg());
    cr_assert(strstr(path, "data/llms.json"), "%s", path);
    pf_llm_backbones *t;
    cr_assert_eq(pf_llm_backbones_load(NULL, &t), PF_OK, "%s", pf_errmsg());
    cr_assert_geq(t->n, 2);
    int priced_with_key = 0, free_local = 0;
    for (int i = 0; i < t->n; i++) {
        priced_with_key += t->b[i].price_in > 0 && t->b[i].key_env != NULL;
        free_local += t->b[i].price_in == 0 && t->b[i].price_out == 0 && t->b[i].key_env == NULL;
    }
    cr_assert_geq(priced_with_key, 1);
    cr_assert_geq(free_local, 1);
    pf_llm_backbones_free(t);
    setenv("LLMS_FILE", "/nonexistent/llms.json", 1);
    cr_assert_eq(pf_llm_backbones_load(NULL, &t), PF_ERR_IO);
    cr_assert(strstr(pf_errmsg(), "/nonexistent/llms.json"), "%s", pf_errmsg());
}

/* Write text to DIR/llms.json and point LLMS_FILE at it. */
static void llms_file(const char *text)
{
    char path[128];
    snprintf(path, sizeof path, "%s/llms.json", dir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
    setenv("LLMS_FILE", path, 1);
}

Test(llm_backbones, pf_llm_backbone_picks_one_from_the_file)
{
    llms_file("[{\"name\":\"local\",\"url\":\"http://127.0.0.1:9/v1\",\"model\":\"qwen\",\"max_in_flight\":2},"
              " {\"name\":\"hosted\",\"url\":\"https://api.example.com/v1\",\"model\":\"gpt\",\"key_env\":\"K\"}]");
    setenv("PF_LLM_URL", "http://elsewhere:1/v1", 1);
    setenv("PF_LLM_MODEL", "other", 1);
    setenv("PF_LLM_BACKBONE", "local", 1);
    pf_llm_options o;
    cr_assert_eq(pf_llm_options_from_env(&o), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(o.kind, PF_LLM_HTTP);
    cr_assert_str_eq(o.url, "http://127.0.0.1:9/v1");
    cr_assert_str_eq(o.model, "qwen");
    cr_assert_str_eq(o.backbone, "local");
    cr_assert_eq(o.max_in_flight, 2);
    pf_llm_provider *p;
    cr_assert_eq(pf_llm_provider_alloc(&o, &p), PF_OK, "%s", pf_errmsg());
    cr_assert_str_eq(pf_llm_provider_describe(p), "http http://127.0.0.1:9/v1 model qwen (backbone local)");
    pf_llm_provider_free(p);

    setenv("PF_LLM_BACKBONE", "nope", 1);
    cr_assert_eq(pf_llm_options_from_env(&o), PF_ERR_INVALID);
    cr_assert(strstr(pf_errmsg(), "no backbone 'nope'"), "%s", pf_errmsg());
    cr_assert(strstr(pf_errmsg(), "it has: local, hosted"), "%s", pf_errmsg());

    setenv("PF_LLM_BACKBONE", "offline", 1);
    setenv("LLMS_FILE", "/nonexistent/llms.json", 1); /* not read */
    cr_assert_eq(pf_llm_options_from_env(&o), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(o.kind, PF_LLM_OFFLINE);
    cr_assert_null(o.backbone);

    setenv("PF_LLM_BACKBONE", "local", 1);
    cr_assert_eq(pf_llm_options_from_env(&o), PF_ERR_INVALID);
    cr_assert(strstr(pf_errmsg(), "/nonexistent/llms.json"), "%s", pf_errmsg());
}

/* A loopback server answering `script` (concurrent: to many clients at
 * once), and backbone "fix" in LLMS_FILE pointing at it with the further
 * fields `fields` (JSON members after its url), picked by PF_LLM_BACKBONE. */
static llm_fixture *fix_backbone(const llm_fixture_reply *script, bool concurrent, const char *fields)
{
    llm_fixture *f = concurrent ? llm_fixture_start_concurrent_or_skip(script, 1) : llm_fixture_start_or_skip(script, 1);
    char text[512];
    snprintf(text, sizeof text, "[{\"name\":\"fix\",\"url\":\"%s\",%s}]", llm_fixture_url(f), fields);
    llms_file(text);
    setenv("PF_LLM_BACKBONE", "fix", 1);
    return f;
}

/* One request, as a proposer makes it, through the provider the
 * environment names, into *r (release it). */
static pf_status one_call(pf_llm_response *r)
{
    pf_llm_options o;
    pf_llm_provider *p;
    PF_TRY(pf_llm_options_from_env(&o));
    PF_TRY(pf_llm_provider_alloc(&o, &p));
    pf_llm_request q = {.model = NULL, .nmsg = 1, .msg = MSG, .temperature = 0.7, .max_tokens = 512,
                        .slot = "gen01/refine"};
    pf_status st = pf_llm_complete(p, &q, r);
    pf_llm_provider_free(p);
    return st;
}

Test(llm_backbones, options_and_key_variable_reach_the_server)
{
    static const llm_fixture_reply script[] = {{200, NULL, OK_BODY, 0}};
    llm_fixture *f = fix_backbone(script, false,
                                  "\"model\":\"m-fix\",\"key_env\":\"PF_TEST_BACKBONE_KEY\","
                                  "\"options\":{\"temperature\":0.3,\"reasoning_effort\":\"low\",\"max_tokens\":100}");
    setenv("PF_LLM_API_KEY", "sk-not-this-one-000", 1);
    setenv("PF_TEST_BACKBONE_KEY", "sk-backbone-key-111", 1);
    pf_llm_response r;
    cr_assert_eq(one_call(&r), PF_OK, "%s", pf_errmsg());
    cr_assert_str_eq(r.text, "fine");
    cr_assert_eq(r.prompt_tokens, 5);
    pf_llm_response_release(&r);
    cr_assert_eq(llm_fixture_count(f), 1);
    const llm_fixture_request *rq = llm_fixture_request_at(f, 0);
    cr_assert_str_eq(rq->path, "/v1/chat/completions");
    const char *auth = llm_fixture_header(rq, "authorization");
    cr_assert_not_null(auth);
    cr_assert_str_eq(auth, "Bearer sk-backbone-key-111");
    json_t *j = json_loads(rq->body, 0, NULL);
    cr_assert_not_null(j, "%s", rq->body);
    cr_assert_str_eq(json_string_value(json_object_get(j, "model")), "m-fix");
    cr_assert_eq(json_real_value(json_object_get(j, "temperature")), 0.3, "%s", rq->body);
    cr_assert_str_eq(json_string_value(json_object_get(j, "reasoning_effort")), "low", "%s", rq->body);
    cr_assert_eq(json_integer_value(json_object_get(j, "max_tokens")), 100, "%s", rq->body);
    cr_assert(json_is_false(json_object_get(j, "stream")));
    cr_assert_eq(json_array_size(json_object_get(j, "messages")), 1);
    json_decref(j);
    llm_fixture_stop(f);
}

Test(llm_backbones, a_backbone_without_key_env_sends_no_key)
{
    static const llm_fixture_reply script[] = {{200, NULL, OK_BODY, 0}};
    llm_fixture *f = fix_backbone(script, false, "\"model\":\"m\"");
    setenv("PF_LLM_API_KEY", "sk-not-this-one-000", 1);
    pf_llm_response r;
    cr_assert_eq(one_call(&r), PF_OK, "%s", pf_errmsg());
    pf_llm_response_release(&r);
    cr_assert_eq(llm_fixture_count(f), 1);
    cr_assert_null(llm_fixture_header(llm_fixture_request_at(f, 0), "authorization"));
    json_t *j = json_loads(llm_fixture_request_at(f, 0)->body, 0, NULL);
    cr_assert_eq(json_real_value(json_object_get(j, "temperature")), 0.7, "the request's own without options");
    json_decref(j);
    llm_fixture_stop(f);
}

#define PROCS 8
#define CALLS 3
#define IN_FLIGHT 2

Test(llm_backbones, max_in_flight_holds_over_many_processes)
{
    /* each answer is held 50 ms, so that the 8 processes pile up behind the 2 slots */
    static const llm_fixture_reply script[] = {{200, NULL, OK_BODY, 0.05}};
    char fields[64];
    snprintf(fields, sizeof fields, "\"model\":\"m\",\"max_in_flight\":%d", IN_FLIGHT);
    llm_fixture *f = fix_backbone(script, true, fields);
    pid_t pid[PROCS];
    for (int i = 0; i < PROCS; i++) {
        pid[i] = fork();
        cr_assert_geq(pid[i], 0, "fork: %s", strerror(errno));
        if (pid[i] == 0) {
            for (int k = 0; k < CALLS; k++) {
                pf_llm_response r;
                if (one_call(&r) != PF_OK) {
                    fprintf(stderr, "child %d: %s\n", i, pf_errmsg());
                    _exit(3);
                }
                int good = r.text && strcmp(r.text, "fine") == 0;
                pf_llm_response_release(&r);
                if (!good) _exit(4);
            }
            _exit(0);
        }
    }
    for (int i = 0; i < PROCS; i++) {
        int status;
        cr_assert_eq(waitpid(pid[i], &status, 0), pid[i]);
        cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "client %d ended with status %d", i, status);
    }
    cr_assert_eq(llm_fixture_count(f), PROCS * CALLS, "every request was answered");
    int most = llm_fixture_max_in_flight(f);
    cr_assert_leq(most, IN_FLIGHT, "the server saw %d requests at once, with max_in_flight %d", most, IN_FLIGHT);
    cr_assert_geq(most, 1);
    llm_fixture_stop(f);
}
