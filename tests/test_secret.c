/* Scrubbing a secret out of outside text (llm/secret.h): the whole key,
 * its pieces of 8 or more characters wherever they stand, JSON escapes to
 * any depth, and JSON that stays JSON. The http provider's use of it is
 * tested against a server in test_llm_http.c and test_propose.c. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "llm/secret.h"

#define KEY "sk-SECRET/0123456789/abcdefghij"

/* pf_secret_scrub(key, text) must be want. */
static void scrubs(const char *key, const char *text, const char *want)
{
    size_t n;
    char *got = pf_secret_scrub(key, key ? strlen(key) : 0, text, strlen(text), &n);
    cr_assert_not_null(got);
    cr_assert_str_eq(got, want, "scrubbing '%s'", text);
    cr_assert_eq(n, strlen(want));
    free(got);
}

Test(secret, the_key_and_its_pieces_become_the_marker)
{
    scrubs(KEY, "key " KEY " end", "key [REDACTED] end");
    scrubs(KEY, KEY KEY, "[REDACTED][REDACTED]");
    /* cut off at the end, at the start, or in the middle by a fence */
    scrubs(KEY, "Incorrect API key provided: sk-SECRET/01", "Incorrect API key provided: [REDACTED]");
    scrubs(KEY, "56789/abcdefghij was refused", "[REDACTED] was refused");
    scrubs(KEY, "sk-SECRET/012```json\n3456789/abcdefghij", "[REDACTED]```json\n[REDACTED]");
    /* exactly 8 characters is a piece, 7 is not */
    scrubs(KEY, "(0123456)", "(0123456)");
    scrubs(KEY, "(01234567)", "([REDACTED])");
    /* nothing to scrub */
    scrubs(KEY, "", "");
    scrubs(KEY, "sk-other-0123", "sk-other-0123");
    scrubs(NULL, KEY, KEY);
    scrubs("", KEY, KEY);
}

Test(secret, a_key_of_eight_is_replaced_and_a_shorter_placeholder_is_not)
{
    scrubs("abc12345", "abc12345 and abc1234 and xabc12345y", "[REDACTED] and abc1234 and x[REDACTED]y");
    /* local servers take "x" or "-" as a key: scrubbing it would break every answer */
    scrubs("-", "lr 1e-3, tanh-like", "lr 1e-3, tanh-like");
    scrubs("x", "max(x, 0)", "max(x, 0)");
}

Test(secret, json_escapes_are_seen_through)
{
    /* '/' written as "\/" (once, and as a JSON snippet inside a JSON string) */
    scrubs(KEY, "\"sk-SECRET\\/0123456789\\/abcdefghij\"", "\"[REDACTED]\"");
    scrubs(KEY, "\"{\\\"k\\\": \\\"sk-SECRET\\\\\\/0123456789\\\\\\/abcdefghij\\\"}\"", "\"{\\\"k\\\": \\\"[REDACTED]\\\"}\"");
    /* \u escapes, hex in either case, of any character */
    scrubs(KEY, "\"\\u0073k-SECRET\\u002f0123456789\\u002Fabcdefghij\"", "\"[REDACTED]\"");
    /* a letter after a backslash is an escape (\n, \t), not the letter:
     * the backslash-n is no 'n', and "sk-", "nSEC-01" are too short to be pieces */
    scrubs("sk-nSEC-01", "\"sk-\\nSEC-01\"", "\"sk-\\nSEC-01\"");
    scrubs("sk-nSEC-01", "\"sk-nSEC-01\"", "\"[REDACTED]\"");
}

Test(secret, scrubbed_json_stays_json)
{
    /* a piece that starts on an escaped character takes its backslash along,
     * an escaped backslash before a piece stays */
    static const char *const bodies[] = {
        "{\"m\": \"\\test-SECRET-123456\"}",
        "{\"m\": \"x\\\\sk-test-SECRET\"}",
        "{\"m\": \"\\/SECRET-123456 and \\\\\\/SECRET-123456\"}",
        "{\"m\": \"cut sk-test-SECRE\", \"n\": -1}",
    };
    for (size_t i = 0; i < sizeof bodies / sizeof *bodies; i++) {
        char *s = pf_secret_scrub("sk-test-SECRET-123456", 21, bodies[i], strlen(bodies[i]), NULL);
        json_error_t err;
        json_t *j = json_loads(s, 0, &err);
        cr_assert_not_null(j, "'%s' -> '%s': %s", bodies[i], s, err.text);
        cr_assert_not_null(strstr(s, PF_SECRET_MARKER), "%s", s);
        cr_assert_null(strstr(s, "SECRET"), "%s", s);
        json_decref(j);
        free(s);
    }
}

Test(secret, bytes_past_a_nul_and_utf8_characters)
{
    static const char text[] = "a\0" KEY "\0b";
    size_t n;
    char *s = pf_secret_scrub(KEY, strlen(KEY), text, sizeof text - 1, &n);
    cr_assert_eq(n, 2 + strlen(PF_SECRET_MARKER) + 2);
    cr_assert_eq(memcmp(s, "a\0[REDACTED]\0b", n), 0);
    free(s);
    /* a key with a character outside ASCII: the marker covers all its bytes */
    scrubs("cl\xc3\xa9-0123456789", "[cl\xc3\xa9-0123456789]", "[[REDACTED]]");
    scrubs("cl\xc3\xa9-0123456789", "[\xc3\xa9-0123456]", "[[REDACTED]]");
}

Test(secret, a_buffer_is_scrubbed_then_cut)
{
    char buf[32] = "error: sk-SECRET/012345";
    pf_secret_scrub_buf(KEY, strlen(KEY), buf, sizeof buf);
    cr_assert_str_eq(buf, "error: [REDACTED]");
    char small[9] = "01234567"; /* the marker is longer: it is cut, not the piece */
    pf_secret_scrub_buf(KEY, strlen(KEY), small, sizeof small);
    cr_assert_str_eq(small, "[REDACTE");
    char none[8] = "abc";
    pf_secret_scrub_buf(NULL, 0, none, sizeof none);
    cr_assert_str_eq(none, "abc");
}
