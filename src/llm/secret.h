/*
 * secret.h — scrubbing a secret (the LLM API key) out of text that came
 * from outside the process.
 *
 *     size_t n;
 *     char *clean = pf_secret_scrub(key, keylen, body, len, &n);
 *     if (!clean) return pf_fail(PF_ERR_NOMEM, "out of memory");
 *     ... only `clean` is shown, parsed, stored or logged ...
 *     free(clean);
 *
 * The http provider (http.c) applies it to everything a server sends back,
 * right after it is received and before anything else reads it: the raw
 * response body (hence the answer, the usage, any extra field and the
 * server's error text, which are all parsed from it) and curl's error
 * text. Its own error messages and log lines pass through it once more.
 * Nothing after the provider needs to know the key: transcripts,
 * proposals, memories, prompts and stage messages are built from text
 * that no longer holds it.
 *
 * What is replaced, each by PF_SECRET_MARKER (for a secret of at least
 * PF_SECRET_MIN_PIECE characters; a shorter one, such as the "x" or "-"
 * that local servers take as a key, is a placeholder, not a secret's worth
 * of characters, and scrubbing it would turn every "x" or "-" of an answer
 * into the marker, "1e-3" included):
 *   - the whole secret;
 *   - any piece of it (a run of consecutive characters) at least
 *     PF_SECRET_MIN_PIECE long, wherever it stands: a key cut off by a
 *     server's or a model's truncation, split by a fence or a line
 *     break, or quoted in part;
 *   - either of them JSON-escaped, to any depth: a character of the secret
 *     may be written as itself, as "\/" (a run of backslashes before a
 *     character that is not a letter or digit: '/', '"', '-', ...), or as
 *     "\u002f" (hex in either case, backslashes before it too). So a
 *     server that writes '/' as "\/", and a model that quotes the key in
 *     a JSON snippet inside a JSON body, are both caught in the raw body.
 * The replaced span always covers whole escape sequences and whole UTF-8
 * characters, and a match never starts on a character that a backslash
 * escapes, so scrubbing a valid JSON text leaves valid JSON (the marker
 * holds no quote or backslash).
 *
 * Ordering rule for callers: scrub BEFORE any truncation or quoting. A
 * piece shorter than PF_SECRET_MIN_PIECE that a cut leaves is not a
 * secret's worth of characters, and is left as it is.
 *
 * The function never writes the secret anywhere; it reads it and text only.
 */
#ifndef PF_LLM_SECRET_H
#define PF_LLM_SECRET_H

#include <stddef.h>

#define PF_SECRET_MARKER "[REDACTED]" /* what a secret or a piece of it becomes */
#define PF_SECRET_MIN_PIECE 8         /* the shortest piece of a secret replaced */

/* A copy of text[0..len) (which may hold NUL bytes) with the secret and
 * its pieces replaced (see above): malloc'ed and NUL-terminated; *out_len
 * (when out_len is not NULL) is its length. A NULL or empty secret gives a
 * plain copy. NULL only when memory runs out. */
char *pf_secret_scrub(const char *secret, size_t secret_len, const char *text, size_t len, size_t *out_len);

/* The same, in place, for the NUL-terminated string in buf (cap bytes):
 * scrubbed first, then cut to cap - 1 bytes. When memory runs out the
 * text cannot be checked and buf is emptied instead. */
void pf_secret_scrub_buf(const char *secret, size_t secret_len, char *buf, size_t cap);

#endif
