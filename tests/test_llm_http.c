/* The LLM provider layer and the http provider, against the scripted
 * loopback server of llm_fixture_server.c: request bodies and headers,
 * answers and token usage, retries with backoff on 429/5xx, timeouts,
 * actionable errors, and the API key never leaving the request header:
 * a server's error text or the model's answer that echoes it (whole, cut
 * off, JSON-escaped) reaches no error message, log line, stderr or
 * transcript. */
#define _GNU_SOURCE /* memmem, asprintf */
#include <criterion/criterion.h>
#include <jansson.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/log.h"
#include "io/msgpack_json.h"
#include "llm/provider.h"
#include "llm_fixture_server.h"

#define KEY "sk-test-SECRET-123"
#define ANSWER "Rationale: smoother activations.\n```json\n{\"architecture\": {\"depth\": 4}}\n```"
#define OK_BODY                                                                                                    \
    "{\"id\":\"c1\",\"object\":\"chat.completion\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\","  \
    "\"content\":\"Rationale: smoother activations.\\n```json\\n{\\\"architecture\\\": {\\\"depth\\\": 4}}\\n```\"},"  \
    "\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":42,\"completion_tokens\":7,\"total_tokens\":49}}"

static const pf_llm_message MSG[2] = {{"system", "You design PINNs."}, {"user", "Propose a spec for burgers_1d."}};

/* every log line of the library, so tests can look for retries and the key */
static char logs[16384];
static void capture(pf_log_level level, const char *msg, void *user)
{
    (void)level;
    (void)user;
    size_t n = strlen(logs);
    snprintf(logs + n, sizeof logs - n, "%s\n", msg);
}

static void setup(void)
{
    logs[0] = 0;
    pf_log_set(capture, NULL);
    static const char *const vars[] = {"PF_LLM_URL", "PF_LLM_MODEL", "PF_LLM_PROVIDER", "PF_LLM_TIMEOUT",
                                       "PF_LLM_RETRIES", "PF_LLM_API_KEY", "http_proxy", "HTTP_PROXY",
                                       "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) unsetenv(vars[i]);
}

static void teardown(void) { pf_log_set(NULL, NULL); }

TestSuite(llm_http, .init = setup, .fini = teardown, .timeout = 30);

static pf_llm_request request(void)
{
    return (pf_llm_request){.model = "m-test", .nmsg = 2, .msg = MSG, .temperature = 0.7, .max_tokens = 512,
                            .slot = "gen01/refine"};
}

static pf_llm_options http_opts(const char *url)
{
    pf_llm_options o;
    pf_llm_options_default(&o);
    o.kind = PF_LLM_HTTP;
    o.url = url;
    o.model = "m-test";
    o.connect_timeout_s = 2;
    o.timeout_s = 5;
    o.backoff_s = 0.01;
    o.backoff_max_s = 0.05;
    return o;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* One call through a fresh http provider on the fixture; returns its status. */
static pf_status ask(llm_fixture *f, pf_llm_options *o, pf_llm_response *r)
{
    if (!o->url) o->url = llm_fixture_url(f);
    pf_llm_provider *p;
    cr_assert_eq(pf_llm_provider_alloc(o, &p), PF_OK, "%s", pf_errmsg());
    pf_llm_request q = request();
    pf_status st = pf_llm_complete(p, &q, r);
    pf_llm_provider_free(p);
    return st;
}

static void assert_zeroed(const pf_llm_response *r)
{
    cr_assert_null(r->text);
    cr_assert_eq(r->prompt_tokens, 0);
    cr_assert_eq(r->completion_tokens, 0);
    cr_assert_eq(r->provider[0], 0);
}

Test(llm_http, success_sends_the_openai_request_and_reads_the_answer)
{
    setenv("PF_LLM_API_KEY", KEY, 1);
    llm_fixture_reply script[] = {{200, NULL, OK_BODY, 0}};
    llm_fixture *f = llm_fixture_start(script, 1);
    cr_assert_not_null(f);
    char url[96];
    snprintf(url, sizeof url, "%s/", llm_fixture_url(f)); /* a trailing slash is dropped */
    pf_llm_options o = http_opts(url);
    pf_llm_response r;
    cr_assert_eq(ask(f, &o, &r), PF_OK, "%s", pf_errmsg());
    cr_assert_str_eq(r.text, ANSWER);
    cr_assert_eq(r.prompt_tokens, 42);
    cr_assert_eq(r.completion_tokens, 7);
    cr_assert_str_eq(r.provider, "http");
    cr_assert_gt(r.latency_s, 0);
    cr_assert_lt(r.latency_s, 5);
    pf_llm_response_release(&r);

    cr_assert_eq(llm_fixture_count(f), 1);
    const llm_fixture_request *rq = llm_fixture_request_at(f, 0);
    cr_assert_str_eq(rq->method, "POST");
    cr_assert_str_eq(rq->path, "/v1/chat/completions");
    cr_assert_str_eq(llm_fixture_header(rq, "authorization"), "Bearer " KEY);
    cr_assert_str_eq(llm_fixture_header(rq, "content-type"), "application/json");
    json_error_t err;
    json_t *b = json_loads(rq->body, 0, &err);
    cr_assert_not_null(b, "request body is not JSON: %s", err.text);
    cr_assert_str_eq(json_string_value(json_object_get(b, "model")), "m-test");
    json_t *m = json_object_get(b, "messages");
    cr_assert_eq(json_array_size(m), 2);
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(m, 0), "role")), "system");
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(m, 0), "content")), "You design PINNs.");
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(m, 1), "role")), "user");
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(m, 1), "content")),
                     "Propose a spec for burgers_1d.");
    cr_assert(json_is_real(json_object_get(b, "temperature")));
    cr_assert_float_eq(json_real_value(json_object_get(b, "temperature")), 0.7, 1e-15);
    cr_assert_eq(json_integer_value(json_object_get(b, "max_tokens")), 512);
    cr_assert(json_is_false(json_object_get(b, "stream")));
    /* nothing else, and no key in the body */
    cr_assert_eq(json_object_size(b), 5);
    cr_assert_null(memmem(rq->body, rq->body_len, KEY, strlen(KEY)));
    json_decref(b);
    llm_fixture_stop(f);
}

Test(llm_http, no_authorization_header_without_a_key)
{
    llm_fixture_reply script[] = {{200, NULL, OK_BODY, 0}, {200, NULL, OK_BODY, 0}};
    llm_fixture *f = llm_fixture_start(script, 2);
    pf_llm_options o = http_opts(NULL);
    pf_llm_response r;
    cr_assert_eq(ask(f, &o, &r), PF_OK, "%s", pf_errmsg());
    pf_llm_response_release(&r);
    setenv("PF_LLM_API_KEY", "", 1); /* empty is unset */
    cr_assert_eq(ask(f, &o, &r), PF_OK, "%s", pf_errmsg());
    pf_llm_response_release(&r);
    cr_assert_eq(llm_fixture_count(f), 2);
    cr_assert_null(llm_fixture_header(llm_fixture_request_at(f, 0), "authorization"));
    cr_assert_null(llm_fixture_header(llm_fixture_request_at(f, 1), "authorization"));
    llm_fixture_stop(f);
}

Test(llm_http, rate_limit_is_retried)
{
    setenv("PF_LLM_API_KEY", KEY, 1);
    llm_fixture_reply script[] = {
        {429, NULL, "{\"error\":{\"message\":\"Rate limit reached\"}}", 0},
        {200, NULL, "{\"choices\":[{\"message\":{\"role\":\"assistant\",\"content\":\"second answer\"}}]}", 0},
    };
    llm_fixture *f = llm_fixture_start(script, 2);
    pf_llm_options o = http_opts(NULL);
    pf_llm_response r;
    cr_assert_eq(ask(f, &o, &r), PF_OK, "%s", pf_errmsg());
    cr_assert_str_eq(r.text, "second answer");
    cr_assert_eq(r.prompt_tokens, 0); /* no usage in the body */
    cr_assert_eq(r.completion_tokens, 0);
    pf_llm_response_release(&r);
    cr_assert_eq(llm_fixture_count(f), 2);
    /* both attempts carried the same request */
    cr_assert_str_eq(llm_fixture_request_at(f, 0)->body, llm_fixture_request_at(f, 1)->body);
    /* one retry line, naming the status, without the key */
    cr_assert_not_null(strstr(logs, "attempt 1 of 5"), "logs: %s", logs);
    cr_assert_not_null(strstr(logs, "429"), "logs: %s", logs);
    cr_assert_not_null(strstr(logs, "retrying"), "logs: %s", logs);
    cr_assert_null(strstr(logs, "attempt 2"), "logs: %s", logs);
    cr_assert_null(strstr(logs, KEY));
    llm_fixture_stop(f);
}

Test(llm_http, retry_after_is_honoured_and_capped)
{
    llm_fixture_reply script[] = {
        {503, "Retry-After: 1\r\n", "{\"error\":\"loading model\"}", 0},
        {200, NULL, OK_BODY, 0},
    };
    llm_fixture *f = llm_fixture_start(script, 2);
    pf_llm_options o = http_opts(NULL);
    o.backoff_s = 0.01;
    o.backoff_max_s = 0.25; /* Retry-After 1 s, capped to 0.25 s */
    pf_llm_response r;
    double t0 = now_s();
    cr_assert_eq(ask(f, &o, &r), PF_OK, "%s", pf_errmsg());
    double dt = now_s() - t0;
    pf_llm_response_release(&r);
    cr_assert_geq(dt, 0.24, "Retry-After ignored: %g s", dt);
    cr_assert_lt(dt, 0.9, "Retry-After not capped: %g s", dt);
    cr_assert_not_null(strstr(logs, "loading model"), "logs: %s", logs);
    cr_assert_eq(llm_fixture_count(f), 2);
    llm_fixture_stop(f);
}

Test(llm_http, server_errors_exhaust_the_attempts)
{
    llm_fixture_reply script[] = {{500, NULL, "{\"error\":{\"message\":\"CUDA out of memory\"}}", 0},
                                  {500, NULL, "{\"error\":{\"message\":\"CUDA out of memory\"}}", 0},
                                  {500, NULL, "{\"error\":{\"message\":\"CUDA out of memory\"}}", 0},
                                  {200, NULL, OK_BODY, 0}};
    llm_fixture *f = llm_fixture_start(script, 4);
    pf_llm_options o = http_opts(NULL);
    o.max_attempts = 3;
    pf_llm_response r;
    cr_assert_eq(ask(f, &o, &r), PF_ERR_IO);
    const char *e = pf_errmsg();
    cr_assert_not_null(strstr(e, "3 attempts"), "%s", e);
    cr_assert_not_null(strstr(e, "500"), "%s", e);
    cr_assert_not_null(strstr(e, "CUDA out of memory"), "%s", e);
    assert_zeroed(&r);
    cr_assert_eq(llm_fixture_count(f), 3);
    llm_fixture_stop(f);
}

/* JSON of another API (no choices[0].message at all) says to check the
 * URL, and is not retried: the next attempt would get the same. */
Test(llm_http, a_body_of_another_api_is_an_error_quoting_it)
{
    llm_fixture_reply script[] = {{200, NULL, "{\"object\":\"list\",\"data\":[]}", 0}};
    llm_fixture *f = llm_fixture_start_or_skip(script, 1);
    pf_llm_options o = http_opts(NULL);
    pf_llm_response r;
    cr_assert_eq(ask(f, &o, &r), PF_ERR_IO);
    cr_assert_not_null(strstr(pf_errmsg(), "malformed"), "%s", pf_errmsg());
    cr_assert_not_null(strstr(pf_errmsg(), "choices[0].message"), "%s", pf_errmsg());
    cr_assert_not_null(strstr(pf_errmsg(), "PF_LLM_URL"), "%s", pf_errmsg());
    cr_assert_not_null(strstr(pf_errmsg(), "\"object\":\"list\""), "%s", pf_errmsg());
    assert_zeroed(&r);
    cr_assert_eq(llm_fixture_count(f), 1); /* not retried */
    llm_fixture_stop(f);
}

/* ---- a 200 without a usable answer: retried, then settled as unusable ---- */

#define HTML_PAGE "<html><body><h1>502 Bad Gateway</h1>nginx</body></html>"
#define HTML_HEADERS "Content-Type: text/html; charset=utf-8\r\n"
/* a model stopped before it wrote: content null, finish_reason FR */
#define NULL_BODY(FR)                                                                                              \
    "{\"id\":\"c2\",\"object\":\"chat.completion\",\"choices\":[{\"index\":0,\"message\":{\"role\":"       \
    "\"assistant\",\"content\":null,\"reasoning_content\":\"Let me think...\"},\"finish_reason\":\"" FR "\"}]," \
    "\"usage\":{\"prompt_tokens\":42,\"completion_tokens\":512}}"

/* A proxy's error page sent with status 200 is no answer, but the next
 * attempt may get one, as after a 5xx. */
Test(llm_http, a_body_that_is_not_json_is_retried)
{
    llm_fixture_reply script[] = {{200, HTML_HEADERS, HTML_PAGE, 0}, {200, NULL, OK_BODY, 0}};
    llm_fixture *f = llm_fixture_start_or_skip(script, 2);
    pf_llm_options o = http_opts(NULL);
    pf_llm_response r;
    cr_assert_eq(ask(f, &o, &r), PF_OK, "%s", pf_errmsg());
    cr_assert_str_eq(r.text, ANSWER);
    cr_assert_null(r.unusable);
    pf_llm_response_release(&r);
    cr_assert_eq(llm_fixture_count(f), 2);
    cr_assert_not_null(strstr(logs, "attempt 1 of 5 failed"), "logs: %s", logs);
    cr_assert_not_null(strstr(logs, "not JSON (Content-Type text/html; charset=utf-8"), "logs: %s", logs);
    cr_assert_not_null(strstr(logs, "502 Bad Gateway"), "logs: %s", logs);
    llm_fixture_stop(f);
}

Test(llm_http, a_null_content_is_retried)
{
    llm_fixture_reply script[] = {{200, NULL, NULL_BODY("length"), 0}, {200, NULL, OK_BODY, 0}};
    llm_fixture *f = llm_fixture_start_or_skip(script, 2);
    pf_llm_options o = http_opts(NULL);
    pf_llm_response r;
    cr_assert_eq(ask(f, &o, &r), PF_OK, "%s", pf_errmsg());
    cr_assert_str_eq(r.text, ANSWER);
    cr_assert_eq(r.prompt_tokens, 42); /* the answer's usage, not the empty one's */
    pf_llm_response_release(&r);
    cr_assert_eq(llm_fixture_count(f), 2);
    cr_assert_not_null(strstr(logs, "choices[0].message.content null (finish_reason \"length\": the model spent its "
                                    "512 tokens before it wrote an answer)"),
                       "logs: %s", logs);
    llm_fixture_stop(f);
}

/* Every attempt spent on such answers: not an error that stops the search,
 * a call settled as unusable that says what came back (status, content
 * type, first bytes, finish_reason), blames neither the URL nor anything
 * else the user set, names no endpoint and holds no key. */
Test(llm_http, answers_never_usable_settle_the_call_as_unusable)
{
    setenv("PF_LLM_API_KEY", KEY, 1);
    llm_fixture_reply script[] = {{200, HTML_HEADERS, "<html>proxy for {{key}}: " HTML_PAGE, 0},
                                  {200, HTML_HEADERS, "<html>proxy for {{key}}: " HTML_PAGE, 0},
                                  {200, HTML_HEADERS, "<html>proxy for {{key}}: " HTML_PAGE, 0},
                                  {200, NULL, NULL_BODY("content_filter"), 0},
                                  {200, NULL, NULL_BODY("content_filter"), 0},
                                  {200, "Content-Type: text/plain\r\n", "", 0}};
    llm_fixture *f = llm_fixture_start_or_skip(script, 6);
    pf_llm_options o = http_opts(NULL);
    o.max_attempts = 3;
    pf_llm_response r;
    cr_assert_eq(ask(f, &o, &r), PF_OK, "%s", pf_errmsg());
    cr_assert_str_eq(r.text, "");
    cr_assert_not_null(r.unusable);
    const char *u = r.unusable;
    cr_assert_not_null(strstr(u, "no usable answer from the LLM server in 3 attempts"), "%s", u);
    cr_assert_not_null(strstr(u, "answered 200 with a body that is not JSON (Content-Type text/html; charset=utf-8, "),
                       "%s", u);
    cr_assert_not_null(strstr(u, "'<html>proxy for [REDACTED]: <html><body><h1>502 Bad Gateway"), "%s", u);
    llm_test_assert_no_key("the reason", u, strlen(u), KEY);
    cr_assert_null(strstr(u, "PF_LLM_URL"), "%s", u);
    cr_assert_null(strstr(u, "127.0.0.1"), "the endpoint is no reason to store: %s", u);
    cr_assert_eq(r.prompt_tokens, 0);
    pf_llm_response_release(&r);

    o.max_attempts = 2;
    cr_assert_eq(ask(f, &o, &r), PF_OK, "%s", pf_errmsg());
    u = r.unusable;
    cr_assert_not_null(u);
    cr_assert_not_null(strstr(u, "in 2 attempts"), "%s", u);
    cr_assert_not_null(strstr(u, "the server answered 200 with choices[0].message.content null (finish_reason "
                                 "\"content_filter\")"), "%s", u);
    cr_assert_null(strstr(u, "PF_LLM_URL"), "the URL is fine: %s", u);
    cr_assert_null(strstr(u, "OpenAI-compatible"), "the URL is fine: %s", u);
    pf_llm_response_release(&r);

    o.max_attempts = 1;
    cr_assert_eq(ask(f, &o, &r), PF_OK, "%s", pf_errmsg());
    cr_assert_not_null(strstr(r.unusable, "in 1 attempt (PF_LLM_RETRIES)"), "%s", r.unusable);
    cr_assert_not_null(strstr(r.unusable, "answered 200 with an empty body (Content-Type text/plain)"), "%s",
                       r.unusable);
    pf_llm_response_release(&r);
    cr_assert_eq(llm_fixture_count(f), 6);
    llm_test_assert_no_key("the logs", logs, strlen(logs), KEY);
    llm_fixture_stop(f);
}

Test(llm_http, a_long_body_is_quoted_only_in_part)
{
    static char body[4096];
    memset(body, 'x', sizeof body - 1);
    llm_fixture_reply script[] = {{200, NULL, body, 0}};
    llm_fixture *f = llm_fixture_start_or_skip(script, 1);
    pf_llm_options o = http_opts(NULL);
    o.max_attempts = 1;
    pf_llm_response r;
    cr_assert_eq(ask(f, &o, &r), PF_OK, "%s", pf_errmsg());
    cr_assert_not_null(r.unusable);
    cr_assert_lt(strlen(r.unusable), 600, "%s", r.unusable);
    cr_assert_not_null(strstr(r.unusable, "4095 bytes): 'xxxxxxxxxx"), "%s", r.unusable);
    cr_assert_not_null(strstr(r.unusable, "xxxxxxxxxx...'"), "%s", r.unusable);
    pf_llm_response_release(&r);
    llm_fixture_stop(f);
}

/* An unusable call is settled, so it is stored like an answer: a rerun
 * (the stored call) and a replay settle it the same way, and the server
 * is not asked again. */
Test(llm_http, an_unusable_call_is_stored_and_replayed)
{
    llm_fixture_reply script[] = {{200, NULL, NULL_BODY("length"), 0}};
    llm_fixture *f = llm_fixture_start_or_skip(script, 1);
    char dir[] = "/tmp/pf_llm_unusable_XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    pf_llm_options o = http_opts(llm_fixture_url(f));
    o.max_attempts = 1;
    o.transcripts = dir;
    pf_llm_request q = request();
    pf_llm_response r[3];
    for (int i = 0; i < 3; i++) {
        o.kind = i < 2 ? PF_LLM_HTTP : PF_LLM_REPLAY;
        pf_llm_provider *p;
        cr_assert_eq(pf_llm_provider_alloc(&o, &p), PF_OK, "%s", pf_errmsg());
        cr_assert_eq(pf_llm_call(p, &q, &r[i]), PF_OK, "call %d: %s", i, pf_errmsg());
        pf_llm_provider_free(p);
        cr_assert_str_eq(r[i].text, "");
        cr_assert_not_null(r[i].unusable, "call %d", i);
        cr_assert_not_null(strstr(r[i].unusable, "content null (finish_reason \"length\""), "%s", r[i].unusable);
        if (i) cr_assert_str_eq(r[i].unusable, r[0].unusable);
    }
    cr_assert_eq(llm_fixture_count(f), 1);
    cr_assert_eq(llm_test_count_files(dir), 1);
    char hex[PF_SHA256_HEX], path[256];
    cr_assert_eq(pf_llm_request_hash(&q, hex), PF_OK);
    snprintf(path, sizeof path, "%s/%s.msgpack", dir, hex);
    json_t *t;
    cr_assert_eq(pf_msgpack_read_file(path, &t), PF_OK, "%s", pf_errmsg());
    cr_assert_str_eq(json_string_value(json_object_get(t, "response")), "");
    cr_assert_str_eq(json_string_value(json_object_get(t, "unusable")), r[0].unusable);
    json_decref(t);
    for (int i = 0; i < 3; i++) pf_llm_response_release(&r[i]);
    llm_fixture_stop(f);
    llm_test_remove_dir(dir);
}

Test(llm_http, slow_server_times_out)
{
    llm_fixture_reply script[] = {{200, NULL, OK_BODY, 2.0}};
    llm_fixture *f = llm_fixture_start(script, 1);
    pf_llm_options o = http_opts(NULL);
    o.timeout_s = 0.3;
    o.max_attempts = 1;
    pf_llm_response r;
    double t0 = now_s();
    cr_assert_eq(ask(f, &o, &r), PF_ERR_IO);
    double dt = now_s() - t0;
    cr_assert_lt(dt, 1.5, "took %g s", dt);
    cr_assert_geq(dt, 0.25, "took %g s", dt);
    cr_assert_not_null(strstr(pf_errmsg(), "timed out"), "%s", pf_errmsg());
    cr_assert_not_null(strstr(pf_errmsg(), "1 attempt;"), "%s", pf_errmsg());
    cr_assert_not_null(strstr(pf_errmsg(), "PF_LLM_TIMEOUT"), "%s", pf_errmsg());
    assert_zeroed(&r);
    llm_fixture_stop(f);
}

Test(llm_http, refused_key_names_the_variable_not_the_key)
{
    setenv("PF_LLM_API_KEY", KEY, 1);
    /* OpenAI echoes (part of) the key it refused: that text must not reach us */
    llm_fixture_reply script[] = {
        {401, NULL, "{\"error\":{\"message\":\"Incorrect API key provided: " KEY "\"}}", 0},
        {403, NULL, "{\"error\":{\"message\":\"Forbidden for " KEY "\"}}", 0},
    };
    llm_fixture *f = llm_fixture_start(script, 2);
    pf_llm_options o = http_opts(NULL);
    pf_llm_response r;
    for (int i = 0; i < 2; i++) {
        cr_assert_eq(ask(f, &o, &r), PF_ERR_INVALID);
        const char *e = pf_errmsg();
        cr_assert_not_null(strstr(e, "PF_LLM_API_KEY"), "%s", e);
        cr_assert_not_null(strstr(e, i == 0 ? "401" : "403"), "%s", e);
        cr_assert_null(strstr(e, KEY), "%s", e);
        cr_assert_null(strstr(e, "SECRET"), "%s", e);
        assert_zeroed(&r);
    }
    cr_assert_eq(llm_fixture_count(f), 2); /* not retried */
    cr_assert_null(strstr(logs, KEY));
    llm_fixture_stop(f);
}

Test(llm_http, not_found_names_url_and_model)
{
    llm_fixture_reply script[] = {{404, NULL, "{\"detail\":\"Not Found\"}", 0}};
    llm_fixture *f = llm_fixture_start(script, 1);
    pf_llm_options o = http_opts(NULL);
    pf_llm_response r;
    cr_assert_eq(ask(f, &o, &r), PF_ERR_INVALID);
    const char *e = pf_errmsg();
    cr_assert_not_null(strstr(e, "PF_LLM_URL"), "%s", e);
    cr_assert_not_null(strstr(e, "/v1"), "%s", e);
    cr_assert_not_null(strstr(e, "PF_LLM_MODEL"), "%s", e);
    cr_assert_not_null(strstr(e, "m-test"), "%s", e);
    cr_assert_eq(llm_fixture_count(f), 1);
    llm_fixture_stop(f);
}

Test(llm_http, other_client_errors_quote_the_server_message_scrubbed)
{
    setenv("PF_LLM_API_KEY", KEY, 1);
    llm_fixture_reply script[] = {
        {400, NULL,
         "{\"error\":{\"message\":\"This model's maximum context length is 4096 tokens (key " KEY ")\"}}", 0}};
    llm_fixture *f = llm_fixture_start(script, 1);
    pf_llm_options o = http_opts(NULL);
    pf_llm_response r;
    cr_assert_eq(ask(f, &o, &r), PF_ERR_INVALID);
    const char *e = pf_errmsg();
    cr_assert_not_null(strstr(e, "HTTP 400"), "%s", e);
    cr_assert_not_null(strstr(e, "maximum context length is 4096 tokens"), "%s", e);
    cr_assert_null(strstr(e, KEY), "%s", e);
    cr_assert_eq(llm_fixture_count(f), 1);
    llm_fixture_stop(f);
}

Test(llm_http, refused_connection_is_retried_then_fails)
{
    /* a port nobody listens on: bind one, note it, close it */
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = 0};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t alen = sizeof a;
    cr_assert_eq(bind(s, (struct sockaddr *)&a, sizeof a), 0);
    cr_assert_eq(getsockname(s, (struct sockaddr *)&a, &alen), 0);
    close(s);
    char url[64];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/v1", ntohs(a.sin_port));
    pf_llm_options o = http_opts(url);
    o.max_attempts = 2;
    pf_llm_provider *p;
    cr_assert_eq(pf_llm_provider_alloc(&o, &p), PF_OK, "%s", pf_errmsg());
    pf_llm_request q = request();
    pf_llm_response r;
    cr_assert_eq(pf_llm_complete(p, &q, &r), PF_ERR_IO);
    cr_assert_not_null(strstr(pf_errmsg(), "2 attempts"), "%s", pf_errmsg());
    cr_assert_not_null(strstr(pf_errmsg(), "could not connect"), "%s", pf_errmsg());
    cr_assert_not_null(strstr(logs, "attempt 1 of 2"), "logs: %s", logs);
    pf_llm_provider_free(p);
}

Test(llm_http, call_stores_a_transcript_without_the_key)
{
    setenv("PF_LLM_API_KEY", KEY, 1);
    llm_fixture_reply script[] = {{429, NULL, "{}", 0}, {200, NULL, OK_BODY, 0}};
    llm_fixture *f = llm_fixture_start(script, 2);
    char dir[] = "/tmp/pf_llm_http_XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    pf_llm_options o = http_opts(llm_fixture_url(f));
    o.transcripts = dir;
    pf_llm_provider *p;
    cr_assert_eq(pf_llm_provider_alloc(&o, &p), PF_OK, "%s", pf_errmsg());
    cr_assert_null(strstr(pf_llm_provider_describe(p), KEY));
    pf_llm_request q = request();
    pf_llm_response r;
    cr_assert_eq(pf_llm_call(p, &q, &r), PF_OK, "%s", pf_errmsg());
    cr_assert_str_eq(r.text, ANSWER);
    cr_assert_eq(llm_test_count_files(dir), 1);
    char hex[PF_SHA256_HEX], path[256];
    cr_assert_eq(pf_llm_request_hash(&q, hex), PF_OK);
    snprintf(path, sizeof path, "%s/%s.msgpack", dir, hex);
    char *bytes;
    size_t len;
    cr_assert_eq(pf_file_read(path, &bytes, &len), PF_OK, "%s", pf_errmsg());
    cr_assert_not_null(memmem(bytes, len, "smoother activations", 20)); /* the answer is there */
    cr_assert_null(memmem(bytes, len, KEY, strlen(KEY)));
    cr_assert_null(memmem(bytes, len, "SECRET", 6));
    cr_assert_null(memmem(bytes, len, "Bearer", 6));
    free(bytes);
    json_t *t;
    cr_assert_eq(pf_msgpack_read_file(path, &t), PF_OK);
    cr_assert_str_eq(json_string_value(json_object_get(t, "provider")), "http");
    cr_assert_str_eq(json_string_value(json_object_get(t, "response")), ANSWER);
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(t, "usage"), "prompt_tokens")), 42);
    cr_assert_gt(json_real_value(json_object_get(t, "latency_s")), 0);
    json_decref(t);
    cr_assert_not_null(strstr(logs, "429"), "logs: %s", logs);
    cr_assert_null(strstr(logs, KEY));
    pf_llm_response_release(&r);
    /* a failed call stores nothing */
    pf_llm_request q2 = request();
    q2.slot = "gen01/novelty";
    cr_assert_neq(pf_llm_call(p, &q2, &r), PF_OK); /* the script is spent: unscripted 500s */
    cr_assert_eq(llm_test_count_files(dir), 1);
    pf_llm_provider_free(p);
    llm_fixture_stop(f);
    snprintf(path, sizeof path, "rm -rf '%s'", dir);
    cr_assert_eq(system(path), 0);
}

Test(llm_http, describe_names_url_and_model)
{
    setenv("PF_LLM_API_KEY", KEY, 1);
    pf_llm_options o = http_opts("http://127.0.0.1:9/v1");
    pf_llm_provider *p;
    cr_assert_eq(pf_llm_provider_alloc(&o, &p), PF_OK, "%s", pf_errmsg());
    cr_assert_str_eq(pf_llm_provider_describe(p), "http http://127.0.0.1:9/v1 model m-test");
    cr_assert_eq(pf_llm_provider_kind(p), PF_LLM_HTTP);
    pf_llm_provider_free(p);
}

Test(llm_http, kind_names_round_trip)
{
    for (int k = 0; k < PF_LLM_KIND_COUNT; k++) {
        pf_llm_kind back;
        cr_assert_eq(pf_llm_kind_from_name(pf_llm_kind_name((pf_llm_kind)k), &back), PF_OK);
        cr_assert_eq(back, (pf_llm_kind)k);
    }
    cr_assert_str_eq(pf_llm_kind_name(PF_LLM_OFFLINE), "offline");
    cr_assert_str_eq(pf_llm_kind_name(PF_LLM_HTTP), "http");
    cr_assert_str_eq(pf_llm_kind_name(PF_LLM_REPLAY), "replay");
    pf_llm_kind k;
    cr_assert_eq(pf_llm_kind_from_name("auto", &k), PF_OK);
    cr_assert_eq(k, PF_LLM_AUTO);
    cr_assert_eq(pf_llm_kind_from_name("openai", &k), PF_ERR_INVALID);
    cr_assert_not_null(strstr(pf_errmsg(), "openai"));
}

Test(llm_http, options_defaults_and_environment)
{
    pf_llm_options o;
    cr_assert_eq(pf_llm_options_from_env(&o), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(o.kind, PF_LLM_AUTO);
    cr_assert_null(o.url);
    cr_assert_str_eq(o.model, "offline-rules");
    cr_assert_float_eq(o.connect_timeout_s, 10, 0);
    cr_assert_float_eq(o.timeout_s, 300, 0);
    cr_assert_eq(o.max_attempts, 5);
    cr_assert_float_eq(o.backoff_s, 1, 0);
    cr_assert_float_eq(o.backoff_max_s, 30, 0);
    cr_assert_null(o.transcripts);

    setenv("PF_LLM_URL", "http://gpu7:8000/v1", 1);
    setenv("PF_LLM_MODEL", "Qwen/Qwen2.5-72B-Instruct", 1);
    setenv("PF_LLM_PROVIDER", "replay", 1);
    setenv("PF_LLM_TIMEOUT", "12.5", 1);
    setenv("PF_LLM_RETRIES", "2", 1);
    setenv("PF_LLM_API_KEY", KEY, 1);
    cr_assert_eq(pf_llm_options_from_env(&o), PF_OK, "%s", pf_errmsg());
    cr_assert_str_eq(o.url, "http://gpu7:8000/v1");
    cr_assert_str_eq(o.model, "Qwen/Qwen2.5-72B-Instruct");
    cr_assert_eq(o.kind, PF_LLM_REPLAY);
    cr_assert_float_eq(o.timeout_s, 12.5, 0);
    cr_assert_eq(o.max_attempts, 3); /* 2 retries after the first attempt */
    setenv("PF_LLM_RETRIES", "0", 1);
    cr_assert_eq(pf_llm_options_from_env(&o), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(o.max_attempts, 1);
    /* empty means unset */
    setenv("PF_LLM_URL", "", 1);
    setenv("PF_LLM_PROVIDER", "", 1);
    cr_assert_eq(pf_llm_options_from_env(&o), PF_OK, "%s", pf_errmsg());
    cr_assert_null(o.url);
    cr_assert_eq(o.kind, PF_LLM_AUTO);
}

Test(llm_http, options_reject_unparsable_values)
{
    static const struct {
        const char *var, *value;
    } bad[] = {{"PF_LLM_TIMEOUT", "abc"}, {"PF_LLM_TIMEOUT", "-3"},  {"PF_LLM_TIMEOUT", "0"},
               {"PF_LLM_TIMEOUT", "5s"},  {"PF_LLM_TIMEOUT", "nan"}, {"PF_LLM_RETRIES", "x"},
               {"PF_LLM_RETRIES", "-1"},  {"PF_LLM_RETRIES", "2.5"}, {"PF_LLM_RETRIES", "1000"},
               {"PF_LLM_PROVIDER", "gpt4"}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        setup();
        setenv(bad[i].var, bad[i].value, 1);
        pf_llm_options o;
        cr_assert_eq(pf_llm_options_from_env(&o), PF_ERR_INVALID, "%s=%s accepted", bad[i].var, bad[i].value);
        cr_assert_not_null(strstr(pf_errmsg(), bad[i].var), "%s", pf_errmsg());
        cr_assert_not_null(strstr(pf_errmsg(), bad[i].value), "%s", pf_errmsg());
    }
}

Test(llm_http, auto_kind_and_required_options)
{
    pf_llm_options o;
    pf_llm_options_default(&o);
    pf_llm_provider *p;
    /* AUTO with a URL: http */
    o.url = "http://127.0.0.1:9/v1";
    cr_assert_eq(pf_llm_provider_alloc(&o, &p), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(pf_llm_provider_kind(p), PF_LLM_HTTP);
    pf_llm_provider_free(p);
    /* AUTO without one: the offline proposer, labelled as no LLM */
    o.url = NULL;
    cr_assert_eq(pf_llm_provider_alloc(&o, &p), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(pf_llm_provider_kind(p), PF_LLM_OFFLINE);
    cr_assert_str_eq(pf_llm_provider_describe(p), "offline rule-based proposer (no LLM)");
    pf_llm_provider_free(p);
    o.url = ""; /* empty is no URL */
    cr_assert_eq(pf_llm_provider_alloc(&o, &p), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(pf_llm_provider_kind(p), PF_LLM_OFFLINE);
    pf_llm_provider_free(p);
    /* http needs a URL, replay a folder */
    o.kind = PF_LLM_HTTP;
    o.url = NULL;
    cr_assert_eq(pf_llm_provider_alloc(&o, &p), PF_ERR_INVALID);
    cr_assert_null(p);
    cr_assert_not_null(strstr(pf_errmsg(), "PF_LLM_URL"), "%s", pf_errmsg());
    o.kind = PF_LLM_REPLAY;
    cr_assert_eq(pf_llm_provider_alloc(&o, &p), PF_ERR_INVALID);
    cr_assert_not_null(strstr(pf_errmsg(), "transcripts"), "%s", pf_errmsg());
    /* a key with a line break would forge headers */
    setenv("PF_LLM_API_KEY", KEY "\r\nX-Evil: 1", 1);
    o.kind = PF_LLM_HTTP;
    o.url = "http://127.0.0.1:9/v1";
    cr_assert_eq(pf_llm_provider_alloc(&o, &p), PF_ERR_INVALID);
    cr_assert_not_null(strstr(pf_errmsg(), "PF_LLM_API_KEY"), "%s", pf_errmsg());
    cr_assert_null(strstr(pf_errmsg(), KEY), "%s", pf_errmsg());
}

Test(llm_http, a_message_that_is_not_utf8_is_refused_before_sending)
{
    llm_fixture_reply script[] = {{200, NULL, OK_BODY, 0}};
    llm_fixture *f = llm_fixture_start(script, 1);
    pf_llm_options o = http_opts(llm_fixture_url(f));
    pf_llm_provider *p;
    cr_assert_eq(pf_llm_provider_alloc(&o, &p), PF_OK, "%s", pf_errmsg());
    pf_llm_message bad[2] = {{"system", "You design PINNs."}, {"user", "latin-1 \xe9t\xe9"}};
    pf_llm_request q = request();
    q.msg = bad;
    pf_llm_response r;
    cr_assert_eq(pf_llm_complete(p, &q, &r), PF_ERR_INVALID);
    cr_assert_not_null(strstr(pf_errmsg(), "UTF-8"), "%s", pf_errmsg());
    cr_assert_not_null(strstr(pf_errmsg(), "gen01/refine"), "%s", pf_errmsg());
    assert_zeroed(&r);
    cr_assert_eq(llm_fixture_count(f), 0);
    pf_llm_provider_free(p);
    llm_fixture_stop(f);
}

/* ---- the key echoed back: by a server's error text, by the model ---- */

/* Long enough that a quote of a server text (200 bytes) can end inside it. */
#define LONG_KEY "sk-SECRET-0123456789abcdefghijklmnopq"
/* With '/', which servers may write as "\/" in JSON strings. */
#define SLASH_KEY "sk-SECRET/0123456789/abcdefghij/klmnopq"

/* n bytes of filler prose ending in a space, then tail: a server text whose
 * first 200 bytes end inside the key when n is 190. */
static char *padded(const char *head, size_t n, const char *tail)
{
    static const char words[] = "the upstream model is overloaded, try again later; ";
    size_t h = strlen(head), t = strlen(tail);
    char *s = malloc(n + t + 1);
    cr_assert_not_null(s);
    memcpy(s, head, h);
    for (size_t i = h; i < n; i++) s[i] = words[(i - h) % (sizeof words - 1)];
    s[n - 1] = ' ';
    memcpy(s + n, tail, t + 1);
    return s;
}

/* Everything written to stderr (fd 2) between the two calls, as a stage
 * would print it: the library's default log sink and "stage: pf_errmsg()". */
typedef struct stderr_capture {
    FILE *file;
    int saved;
} stderr_capture;

static void stderr_begin(stderr_capture *c)
{
    fflush(stderr);
    c->file = tmpfile();
    cr_assert_not_null(c->file);
    c->saved = dup(2);
    cr_assert_eq(dup2(fileno(c->file), 2), 2);
    pf_log_set(NULL, NULL); /* the default sink: stderr */
}

static char *stderr_end(stderr_capture *c, size_t *len)
{
    fflush(stderr);
    dup2(c->saved, 2);
    close(c->saved);
    pf_log_set(capture, NULL);
    long n = ftell(c->file);
    cr_assert_geq(n, 0);
    char *s = calloc((size_t)n + 1, 1);
    rewind(c->file);
    cr_assert_eq(fread(s, 1, (size_t)n, c->file), (size_t)n);
    fclose(c->file);
    *len = (size_t)n;
    return s;
}

/* What a stage prints when a call fails. */
static void stage_reports(void) { fprintf(stderr, "pf-propose: %s\n", pf_errmsg()); }

Test(llm_http, a_server_text_cut_inside_the_key_leaves_no_piece_of_it)
{
    setenv("PF_LLM_API_KEY", LONG_KEY, 1);
    /* each server text puts the key at byte 190: a 200-byte quote ends in it */
    char *msg = padded("", 190, "{{key}} was refused"), *html = padded("<html>", 190, "{{key}}</html>");
    char *e500, *e400;
    cr_assert_gt(asprintf(&e500, "{\"error\":{\"message\":\"%s\"}}", msg), 0);
    cr_assert_gt(asprintf(&e400, "{\"error\":\"%s\"}", msg), 0);
    /* no choices: the raw body is quoted */
    char *odd = padded("{\"object\":\"x\",\"detail\":\"", 190, "{{key}}\"}");
    llm_fixture_reply script[] = {{500, NULL, e500, 0}, {500, NULL, e500, 0}, {400, NULL, e400, 0},
                                  {200, NULL, html, 0}, {200, NULL, html, 0}, {200, NULL, odd, 0}};
    llm_fixture *f = llm_fixture_start_or_skip(script, 6);
    pf_llm_options o = http_opts(NULL);
    o.max_attempts = 2;
    static const char *const says[] = {"failed after 2 attempts", "HTTP 400", "not JSON", "choices[0]"};
    stderr_capture cap;
    stderr_begin(&cap);
    char errs[4][1100];
    for (int i = 0; i < 4; i++) {
        pf_llm_response r;
        pf_status st = ask(f, &o, &r);
        if (i == 2) { /* the page, twice: a call settled as unusable, its reason what a proposal stores */
            cr_assert_eq(st, PF_OK, "%s", pf_errmsg());
            cr_assert_not_null(r.unusable);
            snprintf(errs[i], sizeof errs[i], "%s", r.unusable);
            fprintf(stderr, "pf-propose: done gen00/x: INVALID: %s\n", r.unusable);
            pf_llm_response_release(&r);
            continue;
        }
        snprintf(errs[i], sizeof errs[i], "%s", pf_errmsg());
        stage_reports();
        cr_assert_neq(st, PF_OK);
        assert_zeroed(&r);
    }
    size_t len;
    char *err = stderr_end(&cap, &len);
    for (int i = 0; i < 4; i++) {
        llm_test_assert_no_key("pf_errmsg()", errs[i], strlen(errs[i]), LONG_KEY);
        cr_assert_not_null(strstr(errs[i], says[i]), "%s", errs[i]);
        cr_assert_not_null(strstr(errs[i], "[REDACTED]"), "the key is not marked: %s", errs[i]);
    }
    llm_test_assert_no_key("stderr", err, len, LONG_KEY);
    cr_assert_not_null(strstr(err, "attempt 1 of 2"), "the retry line did not reach stderr: %s", err);
    cr_assert_eq(llm_fixture_count(f), 6);
    free(err);
    llm_fixture_stop(f);
    free(msg), free(html), free(e500), free(e400), free(odd);
}

/* A chat-completions body whose answer is `content` (placeholders kept),
 * with the key echoed in every other field a server may fill. */
static char *answer_body(const char *content)
{
    json_t *b = json_pack("{s:s, s:s, s:[{s:i, s:{s:s, s:s, s:s}, s:s}], s:{s:i, s:i, s:s}}", "id", "{{key}}",
                          "system_fingerprint", "{{key}}", "choices", "index", 0, "message", "role", "assistant",
                          "content", content, "reasoning_content", "I must not repeat {{key}}", "finish_reason",
                          "stop", "usage", "prompt_tokens", 11, "completion_tokens", 5, "note", "billed to {{key}}");
    cr_assert_not_null(b);
    char *s = json_dumps(b, JSON_COMPACT);
    json_decref(b);
    return s;
}

/* One pf_llm_call through a provider that stores transcripts in dir. */
static pf_status call_into(llm_fixture *f, const char *dir, pf_llm_response *r)
{
    pf_llm_options o = http_opts(llm_fixture_url(f));
    o.transcripts = dir;
    pf_llm_provider *p;
    cr_assert_eq(pf_llm_provider_alloc(&o, &p), PF_OK, "%s", pf_errmsg());
    pf_llm_request q = request();
    pf_status st = pf_llm_call(p, &q, r);
    pf_llm_provider_free(p);
    return st;
}

/* A stage killed after a stored call, then rerun, asks it again: the stored
 * answer is returned and the server sees no second request. */
Test(llm_http, a_stored_call_is_not_sent_again)
{
    setenv("PF_LLM_API_KEY", KEY, 1);
    llm_fixture_reply script[] = {{200, NULL, OK_BODY, 0}, {500, NULL, "{}", 0}};
    llm_fixture *f = llm_fixture_start(script, 2);
    char dir[] = "/tmp/pf_llm_again_XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    pf_llm_response r, again;
    cr_assert_eq(call_into(f, dir, &r), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(call_into(f, dir, &again), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(llm_fixture_count(f), 1);
    cr_assert_str_eq(again.text, r.text);
    cr_assert_eq(again.prompt_tokens, r.prompt_tokens);
    cr_assert_eq(llm_test_count_files(dir), 1);
    pf_llm_response_release(&r);
    pf_llm_response_release(&again);
    llm_fixture_stop(f);
    llm_test_remove_dir(dir);
}

Test(llm_http, an_answer_that_repeats_the_key_is_stored_without_it)
{
    setenv("PF_LLM_API_KEY", LONG_KEY, 1);
    /* the key in the prose, in a JSON string, and cut off at the end (a
     * prefix of 15 characters, as a model stopped by max_tokens writes it) */
    char *body = answer_body("Use the key {{key}} to call me.\n```json\n{\"architecture\": {\"activation\": "
                             "\"{{key}}\"}}\n```\nAgain: sk-SECRET-01234");
    llm_fixture_reply script[] = {{200, NULL, body, 0}};
    llm_fixture *f = llm_fixture_start(script, 1);
    char dir[] = "/tmp/pf_llm_key_XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    pf_llm_response r;
    cr_assert_eq(call_into(f, dir, &r), PF_OK, "%s", pf_errmsg());
    llm_test_assert_no_key("the answer", r.text, strlen(r.text), LONG_KEY);
    cr_assert_not_null(strstr(r.text, "Use the key [REDACTED] to call me."), "%s", r.text);
    cr_assert_eq(r.prompt_tokens, 11);
    cr_assert_eq(llm_test_count_files(dir), 1);
    llm_test_assert_dir_no_key(dir, LONG_KEY);
    llm_test_assert_no_key("the logs", logs, strlen(logs), LONG_KEY);
    pf_llm_response_release(&r);
    llm_fixture_stop(f);
    llm_test_remove_dir(dir);
    free(body);
}

Test(llm_http, a_json_escaped_key_is_caught_too)
{
    setenv("PF_LLM_API_KEY", SLASH_KEY, 1);
    /* the server writes '/' as "\/"; the model quotes the key in a JSON
     * snippet (escaped once in its answer, twice in the body); a key spelled
     * with \u escapes; and a raw body quoted in an error */
    char *ok = answer_body("Key {{key_json}} and as JSON: {\"api_key\": \"{{key_json2}}\"} done");
    const char *uesc = "{\"choices\":[{\"message\":{\"content\":\"spelled sk-SECRET\\u002f0123456789\\u002Fabcdefghij"
                       "\\/klmnopq here\"}}]}";
    char *odd = padded("{\"object\":\"x\",\"detail\":\"", 190, "{{key_json}}\"}");
    char *e500 = padded("{\"error\":{\"message\":\"", 60, "{{key_json}}\"}}");
    llm_fixture_reply script[] = {{200, NULL, ok, 0}, {200, NULL, uesc, 0}, {200, NULL, odd, 0}, {500, NULL, e500, 0}};
    llm_fixture *f = llm_fixture_start(script, 4);
    char dir[] = "/tmp/pf_llm_key_XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    pf_llm_response r;
    /* the same request each time: a fresh folder, or the stored call answers it */
    for (int i = 0; i < 2; i++) {
        cr_assert_eq(call_into(f, dir, &r), PF_OK, "%s", pf_errmsg());
        llm_test_assert_no_key("the answer", r.text, strlen(r.text), SLASH_KEY);
        cr_assert_not_null(strstr(r.text, "[REDACTED]"), "%s", r.text);
        llm_test_assert_dir_no_key(dir, SLASH_KEY);
        pf_llm_response_release(&r);
        llm_test_remove_dir(dir);
        cr_assert_eq(mkdir(dir, 0700), 0);
    }
    cr_assert_neq(call_into(f, dir, &r), PF_OK);
    llm_test_assert_no_key("pf_errmsg()", pf_errmsg(), strlen(pf_errmsg()), SLASH_KEY);
    cr_assert_not_null(strstr(pf_errmsg(), "[REDACTED]"), "%s", pf_errmsg());
    pf_llm_options o = http_opts(NULL);
    o.max_attempts = 1;
    cr_assert_eq(ask(f, &o, &r), PF_ERR_IO);
    llm_test_assert_no_key("pf_errmsg()", pf_errmsg(), strlen(pf_errmsg()), SLASH_KEY);
    cr_assert_not_null(strstr(pf_errmsg(), "[REDACTED]"), "%s", pf_errmsg());
    llm_test_assert_no_key("the logs", logs, strlen(logs), SLASH_KEY);
    cr_assert_eq(llm_fixture_count(f), 4);
    llm_fixture_stop(f);
    llm_test_remove_dir(dir);
    free(ok), free(odd), free(e500);
}
