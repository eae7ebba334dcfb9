/*
 * llm_fixture_server.h — a tiny scripted HTTP/1.1 server on 127.0.0.1 for
 * the LLM provider tests (no network beyond the loopback).
 *
 *     llm_fixture_reply script[] = {
 *         {429, "Retry-After: 0\r\n", "{\"error\":{\"message\":\"slow down\"}}", 0},
 *         {200, NULL, "{\"choices\":[...]}", 0},
 *     };
 *     llm_fixture *f = llm_fixture_start(script, 2);   // binds an ephemeral port, starts a thread
 *     o.url = llm_fixture_url(f);                     // "http://127.0.0.1:PORT/v1"
 *     ...
 *     cr_assert_eq(llm_fixture_count(f), 2);
 *     const llm_fixture_request *rq = llm_fixture_request_at(f, 0);
 *     llm_fixture_header(rq, "authorization");          // case-insensitive, NULL if absent
 *     llm_fixture_stop(f);
 *
 * One scripted reply per connection, in order (Connection: close,
 * Content-Length, Content-Type: application/json unless the reply's
 * headers name another, as a proxy's HTML page does); a connection past the script gets HTTP 500
 * "fixture: unscripted request" and is recorded too. A reply's delay is
 * waited before answering (in short slices, so stopping is never slow).
 * Every request is recorded: method, path, raw header block, body.
 *
 * A reply body may echo the API key the request carried (the token of its
 * "Authorization: Bearer" header, "" without one), as servers do in error
 * texts and models do in answers:
 *   {{key}}        the key as sent;
 *   {{key_json}}   the key JSON-escaped once ('"', '\\' and '/' as "\/"),
 *                  as some servers write strings;
 *   {{key_json2}}  escaped twice: the key written JSON-escaped inside a JSON
 *                  string (an answer that quotes a JSON snippet).
 */
#ifndef PF_TESTS_LLM_FIXTURE_SERVER_H
#define PF_TESTS_LLM_FIXTURE_SERVER_H

#include <stddef.h>

typedef struct llm_fixture_reply {
    int status;
    const char *headers; /* extra header lines, each ending in "\r\n", or NULL */
    const char *body;    /* NULL: empty */
    double delay_s;      /* wait this long before answering */
} llm_fixture_reply;

typedef struct llm_fixture_request {
    char method[16];
    char path[256];
    char *headers; /* the header lines after the request line, NUL-terminated */
    char *body;    /* NUL-terminated */
    size_t body_len;
} llm_fixture_request;

typedef struct llm_fixture llm_fixture;

/* The script is copied by reference: it must outlive the server. NULL on
 * failure (socket, bind, thread), errno saying why. */
llm_fixture *llm_fixture_start(const llm_fixture_reply *script, int n);
/* The same, but a server that cannot start skips the calling test, with
 * the reason (a sandbox without a loopback interface is no failure of
 * ours); never NULL. */
llm_fixture *llm_fixture_start_or_skip(const llm_fixture_reply *script, int n);
/* A server that answers every connection on its own thread, at once,
 * with script[i % n] for the i-th (its delay holding the connection open),
 * and counts how many are in flight: accepted and not yet answered (the
 * count drops before the reply's first byte, so a client that has its
 * answer is never counted). Skips like llm_fixture_start_or_skip(). At
 * most 64 requests are recorded. */
llm_fixture *llm_fixture_start_concurrent_or_skip(const llm_fixture_reply *script, int n);
/* The most connections in flight at once so far. */
int llm_fixture_max_in_flight(llm_fixture *f);
const char *llm_fixture_url(const llm_fixture *f);
/* Requests received so far. */
int llm_fixture_count(llm_fixture *f);
/* The i-th request (valid until llm_fixture_stop). */
const llm_fixture_request *llm_fixture_request_at(llm_fixture *f, int i);
/* The value of a header (name without ':', case-insensitive), in a per-thread static
 * buffer, NULL if absent. */
const char *llm_fixture_header(const llm_fixture_request *rq, const char *name);
/* Stop the thread, close the socket, free everything. */
void llm_fixture_stop(llm_fixture *f);

/* ---- folder helpers shared by the LLM tests (they assert via Criterion) ---- */

/* Entries of folder dir other than "." and ".."; the folder must exist. */
int llm_test_count_files(const char *dir);
/* rm -rf dir; must succeed. */
void llm_test_remove_dir(const char *dir);

/* ---- the API key must not leak (they assert via Criterion) ---- */

#define LLM_TEST_KEY_PIECE 8 /* the shortest piece of the key looked for */

/* bytes[0..len) hold no piece of key LLM_TEST_KEY_PIECE characters long,
 * neither as written nor JSON-escaped once ('/' as "\/"); what names the
 * bytes in the failure message. */
void llm_test_assert_no_key(const char *what, const void *bytes, size_t len, const char *key);
/* The same for the bytes of a file, and of every file in a folder (not
 * recursive). */
void llm_test_assert_file_no_key(const char *path, const char *key);
void llm_test_assert_dir_no_key(const char *dir, const char *key);

#endif
