/* LLM transcripts: canonical requests, content addresses, atomic store and
 * byte-identical replay. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/msgpack_json.h"
#include "llm/transcript.h"

static const pf_llm_message MSG[2] = {{"system", "You design PINNs."},
                                      {"user", "Propose a spec for poisson_5d.\n\"quoted\" \xc3\xa9"}};

static pf_llm_request request(void)
{
    return (pf_llm_request){.model = "m1", .nmsg = 2, .msg = MSG, .temperature = 0.7, .max_tokens = 512,
                            .slot = "gen00/role1"};
}

static char *tmpdir(void)
{
    static char d[64];
    snprintf(d, sizeof d, "/tmp/pf_transcript_XXXXXX");
    cr_assert_not_null(mkdtemp(d));
    return d;
}

Test(transcript, canonical_request_and_hash)
{
    pf_llm_request q = request();
    char *s = pf_llm_request_canonical(&q);
    cr_assert_str_eq(s, "{\"model\":\"m1\",\"messages\":[{\"role\":\"system\",\"content\":\"You design PINNs.\"},"
                        "{\"role\":\"user\",\"content\":\"Propose a spec for poisson_5d.\\n\\\"quoted\\\" \xc3\xa9\"}],"
                        "\"temperature\":0.69999999999999996,\"slot\":\"gen00/role1\"}");
    char a[PF_SHA256_HEX], b[PF_SHA256_HEX], c[PF_SHA256_HEX];
    cr_assert_eq(pf_sha256_hex(s, strlen(s), a), PF_OK);
    free(s);
    cr_assert_eq(pf_llm_request_hash(&q, b), PF_OK);
    cr_assert_str_eq(a, b);
    /* max_tokens is not part of the address; temperature, slot and content are */
    q.max_tokens = 9;
    cr_assert_eq(pf_llm_request_hash(&q, c), PF_OK);
    cr_assert_str_eq(b, c);
    q.temperature = 0.2;
    cr_assert_eq(pf_llm_request_hash(&q, c), PF_OK);
    cr_assert_str_neq(b, c);
    q = request();
    q.slot = "gen00/role2";
    cr_assert_eq(pf_llm_request_hash(&q, c), PF_OK);
    cr_assert_str_neq(b, c);
    /* SHA-256 of "abc" (FIPS 180-2) */
    cr_assert_eq(pf_sha256_hex("abc", 3, a), PF_OK);
    cr_assert_str_eq(a, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

Test(transcript, write_then_replay_is_byte_identical)
{
    char *dir = tmpdir();
    pf_llm_request q = request();
    pf_llm_response a = {.text = strdup("```json\n{\"architecture\": {}}\n```\nbecause \xe2\x80\x94 reasons"),
                         .prompt_tokens = 1234, .completion_tokens = 56, .latency_s = 1.5};
    snprintf(a.provider, sizeof a.provider, "offline");
    cr_assert_eq(pf_transcript_write(dir, &q, &a), PF_OK, "%s", pf_errmsg());
    pf_llm_response b;
    cr_assert_eq(pf_transcript_read(dir, &q, &b), PF_OK, "%s", pf_errmsg());
    cr_assert_str_eq(b.text, a.text);
    cr_assert_eq(b.prompt_tokens, 1234);
    cr_assert_eq(b.completion_tokens, 56);
    cr_assert_float_eq(b.latency_s, 1.5, 0);
    cr_assert_str_eq(b.provider, "offline");
    cr_assert_str_eq(b.backbone, "", "none recorded");
    pf_llm_response_release(&b);
    snprintf(a.backbone, sizeof a.backbone, "offline"); /* the same address: stored again, with its backbone */
    cr_assert_eq(pf_transcript_write(dir, &q, &a), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(pf_transcript_read(dir, &q, &b), PF_OK, "%s", pf_errmsg());
    cr_assert_str_eq(b.backbone, "offline");
    /* the file: its name is the hash, its content the documented fields */
    char hex[PF_SHA256_HEX], path[256];
    pf_llm_request_hash(&q, hex);
    snprintf(path, sizeof path, "%s/%s.msgpack", dir, hex);
    json_t *t;
    cr_assert_eq(pf_msgpack_read_file(path, &t), PF_OK);
    cr_assert_str_eq(json_string_value(json_object_get(t, "hash")), hex);
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(t, "request"), "max_tokens")), 512);
    cr_assert_str_eq(json_string_value(json_object_get(t, "backbone")), "offline");
    json_decref(t);
    pf_llm_response_release(&a);
    pf_llm_response_release(&b);
    unlink(path);
    rmdir(dir);
}

Test(transcript, a_miss_names_the_hash_and_the_folder)
{
    char *dir = tmpdir();
    pf_llm_request q = request();
    pf_llm_response r;
    cr_assert_eq(pf_transcript_read(dir, &q, &r), PF_ERR_IO);
    char hex[PF_SHA256_HEX];
    pf_llm_request_hash(&q, hex);
    cr_assert(strstr(pf_errmsg(), hex) && strstr(pf_errmsg(), dir), "%s", pf_errmsg());
    cr_assert_null(r.text);
    rmdir(dir);
}

Test(transcript, a_file_under_the_wrong_address_is_refused)
{
    char *dir = tmpdir();
    pf_llm_request q = request(), other = request();
    other.slot = "gen01/refine";
    pf_llm_response a = {.text = "x"};
    snprintf(a.provider, sizeof a.provider, "http");
    cr_assert_eq(pf_transcript_write(dir, &other, &a), PF_OK);
    char h1[PF_SHA256_HEX], h2[PF_SHA256_HEX], p1[256], p2[256];
    pf_llm_request_hash(&q, h1);
    pf_llm_request_hash(&other, h2);
    snprintf(p1, sizeof p1, "%s/%s.msgpack", dir, h1);
    snprintf(p2, sizeof p2, "%s/%s.msgpack", dir, h2);
    cr_assert_eq(rename(p2, p1), 0);
    pf_llm_response r;
    cr_assert_eq(pf_transcript_read(dir, &q, &r), PF_ERR_INVALID);
    cr_assert(strstr(pf_errmsg(), "another request"), "%s", pf_errmsg());
    unlink(p1);
    rmdir(dir);
}
