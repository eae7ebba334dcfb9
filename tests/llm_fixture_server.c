/*
 * llm_fixture_server.c — the scripted loopback HTTP/1.1 server of the LLM
 * provider tests (llm_fixture_server.h), and their folder helpers. No
 * main(), no Test() cases: it links into pf-tests with the rest of tests/.
 */
#define _GNU_SOURCE /* memmem, strcasestr */
#include "llm_fixture_server.h"

#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "io/msgpack_json.h"

#define MAX_REQUESTS 64
#define MAX_HEAD 65536
#define MAX_BODY ((size_t)8 << 20)
#define IO_WAIT_MS 5000 /* a client that stalls this long is dropped */

struct llm_fixture {
    int fd, port;
    char url[64];
    const llm_fixture_reply *script;
    int nscript;
    pthread_t thread;
    atomic_int stop;
    pthread_mutex_t mu;
    int nreq;
    llm_fixture_request req[MAX_REQUESTS];
    int concurrent;   /* a thread per connection */
    int active;       /* connections accepted and not yet answered (under mu) */
    int max_active;   /* the most at once */
    atomic_int running; /* connection threads not yet finished */
};

/* A connection is answered: it no longer counts as in flight. Called
 * before the reply's first byte is sent, so that a client that has read
 * its answer is never still counted. */
static void leave(llm_fixture *f, int *counted)
{
    if (!*counted) return;
    pthread_mutex_lock(&f->mu);
    f->active--;
    pthread_mutex_unlock(&f->mu);
    *counted = 0;
}

static const char *reason(int status)
{
    switch (status) {
    case 200: return "OK";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 429: return "Too Many Requests";
    case 500: return "Internal Server Error";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    default: return "Status";
    }
}

/* Wait until fd is readable: 1 ready, 0 stop requested or timed out. */
static int wait_readable(llm_fixture *f, int fd, int ms)
{
    for (int waited = 0; waited < ms && !atomic_load(&f->stop); waited += 20) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int rc = poll(&p, 1, 20);
        if (rc > 0) return 1;
        if (rc < 0 && errno != EINTR) return 0;
    }
    return 0;
}

/* Read one request from c into rq; 0 on success. */
static int read_request(llm_fixture *f, int c, llm_fixture_request *rq)
{
    char *buf = malloc(MAX_HEAD + 1);
    if (!buf) return -1;
    size_t len = 0;
    char *end = NULL;
    while (!end) {
        if (len >= MAX_HEAD || !wait_readable(f, c, IO_WAIT_MS)) goto fail;
        ssize_t k = recv(c, buf + len, MAX_HEAD - len, 0);
        if (k <= 0) goto fail;
        len += (size_t)k;
        buf[len] = 0;
        end = strstr(buf, "\r\n\r\n");
    }
    size_t head = (size_t)(end - buf) + 4;
    char *eol = strstr(buf, "\r\n");
    if (sscanf(buf, "%15s %255s", rq->method, rq->path) != 2) goto fail;
    size_t hlen = (size_t)(end + 2 - (eol + 2));
    rq->headers = malloc(hlen + 1);
    if (!rq->headers) goto fail;
    memcpy(rq->headers, eol + 2, hlen);
    rq->headers[hlen] = 0;
    const char *cl = llm_fixture_header(rq, "content-length");
    size_t want = cl ? (size_t)strtoul(cl, NULL, 10) : 0;
    if (want > MAX_BODY) goto fail;
    rq->body = malloc(want + 1);
    if (!rq->body) goto fail;
    size_t have = len - head < want ? len - head : want;
    memcpy(rq->body, buf + head, have);
    while (have < want) {
        if (!wait_readable(f, c, IO_WAIT_MS)) goto fail;
        ssize_t k = recv(c, rq->body + have, want - have, 0);
        if (k <= 0) goto fail;
        have += (size_t)k;
    }
    rq->body[want] = 0;
    rq->body_len = want;
    free(buf);
    return 0;
fail:
    free(buf);
    free(rq->headers);
    free(rq->body);
    memset(rq, 0, sizeof *rq);
    return -1;
}

static void send_all(int c, const char *s, size_t n)
{
    while (n > 0) {
        ssize_t k = send(c, s, n, MSG_NOSIGNAL);
        if (k <= 0) {
            if (k < 0 && errno == EINTR) continue;
            return; /* the client went away (e.g. it timed out) */
        }
        s += k;
        n -= (size_t)k;
    }
}

/* s with one level of JSON string escaping ('"', '\\' and '/' as "\/",
 * as some servers write it), malloc'ed. */
static char *json_escaped(const char *s)
{
    char *out = malloc(2 * strlen(s) + 1), *o = out;
    if (!out) return NULL;
    for (; *s; s++) {
        if (*s == '"' || *s == '\\' || *s == '/') *o++ = '\\';
        *o++ = *s;
    }
    *o = 0;
    return out;
}

/* The reply body with the echo placeholders replaced (see the header),
 * malloc'ed. */
static char *expand(const char *body, const llm_fixture_request *rq)
{
    const char *auth = llm_fixture_header(rq, "authorization");
    char *key = strdup(auth && strncmp(auth, "Bearer ", 7) == 0 ? auth + 7 : "");
    char *once = key ? json_escaped(key) : NULL, *twice = once ? json_escaped(once) : NULL;
    static const char *const name[3] = {"{{key}}", "{{key_json}}", "{{key_json2}}"};
    const char *value[3] = {key, once, twice};
    char *out = NULL;
    size_t len = 0;
    FILE *m = twice ? open_memstream(&out, &len) : NULL;
    for (const char *p = body; m && *p;) {
        int hit = -1;
        for (int i = 0; i < 3 && hit < 0; i++)
            if (strncmp(p, name[i], strlen(name[i])) == 0) hit = i;
        if (hit < 0) {
            fputc(*p++, m);
        } else {
            fputs(value[hit], m);
            p += strlen(name[hit]);
        }
    }
    if (m) fclose(m);
    free(key);
    free(once);
    free(twice);
    return out;
}

static void serve(llm_fixture *f, int c, int idx)
{
    int counted = 1;
    llm_fixture_request rq = {0};
    if (read_request(f, c, &rq) != 0) {
        leave(f, &counted);
        return;
    }
    /* the body, echo placeholders expanded, before rq moves to f */
    llm_fixture_reply unscripted = {500, NULL, "{\"error\":{\"message\":\"fixture: unscripted request\"}}", 0};
    const llm_fixture_reply *r = f->concurrent && f->nscript > 0 ? &f->script[idx % f->nscript]
                                 : idx < f->nscript                ? &f->script[idx]
                                                                   : &unscripted;
    char *body = expand(r->body ? r->body : "", &rq);
    pthread_mutex_lock(&f->mu);
    if (f->nreq < MAX_REQUESTS) {
        f->req[f->nreq++] = rq;
        rq.headers = rq.body = NULL; /* now owned by f */
    }
    pthread_mutex_unlock(&f->mu);
    free(rq.headers);
    free(rq.body);
    for (double waited = 0; waited < r->delay_s && !atomic_load(&f->stop); waited += 0.01) {
        struct timespec t = {0, 10000000L};
        nanosleep(&t, NULL);
    }
    leave(f, &counted);
    if (!body) return;
    char head[4096];
    /* JSON unless the script names another type (a proxy's HTML page) */
    int typed = r->headers && strcasestr(r->headers, "content-type:") != NULL;
    int n = snprintf(head, sizeof head,
                     "HTTP/1.1 %d %s\r\n%sContent-Length: %zu\r\nConnection: close\r\n%s\r\n", r->status,
                     reason(r->status), typed ? "" : "Content-Type: application/json\r\n", strlen(body),
                     r->headers ? r->headers : "");
    send_all(c, head, (size_t)n < sizeof head ? (size_t)n : sizeof head - 1);
    send_all(c, body, strlen(body));
    free(body);
}

typedef struct conn {
    llm_fixture *f;
    int c, idx;
} conn;

static void *serve_thread(void *arg)
{
    conn *k = arg;
    serve(k->f, k->c, k->idx);
    shutdown(k->c, SHUT_WR);
    close(k->c);
    atomic_fetch_sub(&k->f->running, 1);
    free(k);
    return NULL;
}

static void *loop(void *arg)
{
    llm_fixture *f = arg;
    int idx = 0;
    while (!atomic_load(&f->stop)) {
        struct pollfd p = {.fd = f->fd, .events = POLLIN};
        if (poll(&p, 1, 20) <= 0) continue;
        int c = accept(f->fd, NULL, NULL);
        if (c < 0) continue;
        pthread_mutex_lock(&f->mu);
        if (++f->active > f->max_active) f->max_active = f->active;
        pthread_mutex_unlock(&f->mu);
        conn *k = f->concurrent ? malloc(sizeof *k) : NULL;
        pthread_t t;
        if (k) {
            *k = (conn){f, c, idx++};
            atomic_fetch_add(&f->running, 1);
            pthread_attr_t at;
            pthread_attr_init(&at);
            pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
            int rc = pthread_create(&t, &at, serve_thread, k);
            pthread_attr_destroy(&at);
            if (rc == 0) continue;
            atomic_fetch_sub(&f->running, 1);
            free(k);
            idx--;
        }
        serve(f, c, idx++);
        shutdown(c, SHUT_WR);
        close(c);
    }
    while (atomic_load(&f->running) > 0) { /* the connection threads finish (a stalled client: IO_WAIT_MS) */
        struct timespec t = {0, 5000000L};
        nanosleep(&t, NULL);
    }
    return NULL;
}

static llm_fixture *start(const llm_fixture_reply *script, int n, int concurrent)
{
    llm_fixture *f = calloc(1, sizeof *f);
    if (!f) return NULL;
    f->fd = -1;
    f->concurrent = concurrent;
    f->script = script;
    f->nscript = n;
    atomic_init(&f->stop, 0);
    atomic_init(&f->running, 0);
    pthread_mutex_init(&f->mu, NULL);
    f->fd = socket(AF_INET, SOCK_STREAM, 0);
    if (f->fd < 0) goto fail;
    int one = 1;
    setsockopt(f->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = 0};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t alen = sizeof a;
    if (bind(f->fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(f->fd, 64) != 0 ||
        getsockname(f->fd, (struct sockaddr *)&a, &alen) != 0)
        goto fail;
    f->port = ntohs(a.sin_port);
    snprintf(f->url, sizeof f->url, "http://127.0.0.1:%d/v1", f->port);
    int rc = pthread_create(&f->thread, NULL, loop, f);
    if (rc != 0) {
        errno = rc;
        goto fail;
    }
    return f;
fail:;
    int err = errno;
    if (f->fd >= 0) close(f->fd);
    pthread_mutex_destroy(&f->mu);
    free(f);
    errno = err;
    return NULL;
}

llm_fixture *llm_fixture_start(const llm_fixture_reply *script, int n) { return start(script, n, 0); }

llm_fixture *llm_fixture_start_concurrent_or_skip(const llm_fixture_reply *script, int n)
{
    errno = 0;
    llm_fixture *f = start(script, n, 1);
    if (!f)
        cr_skip_test("cannot start the loopback LLM server on 127.0.0.1: %s",
                     errno ? strerror(errno) : "out of memory");
    return f;
}

int llm_fixture_max_in_flight(llm_fixture *f)
{
    pthread_mutex_lock(&f->mu);
    int n = f->max_active;
    pthread_mutex_unlock(&f->mu);
    return n;
}

llm_fixture *llm_fixture_start_or_skip(const llm_fixture_reply *script, int n)
{
    errno = 0;
    llm_fixture *f = start(script, n, 0);
    if (!f)
        cr_skip_test("cannot start the loopback LLM server on 127.0.0.1: %s",
                     errno ? strerror(errno) : "out of memory");
    return f;
}

const char *llm_fixture_url(const llm_fixture *f) { return f->url; }

int llm_fixture_count(llm_fixture *f)
{
    pthread_mutex_lock(&f->mu);
    int n = f->nreq;
    pthread_mutex_unlock(&f->mu);
    return n;
}

const llm_fixture_request *llm_fixture_request_at(llm_fixture *f, int i)
{
    pthread_mutex_lock(&f->mu);
    const llm_fixture_request *r = i >= 0 && i < f->nreq ? &f->req[i] : NULL;
    pthread_mutex_unlock(&f->mu);
    return r;
}

const char *llm_fixture_header(const llm_fixture_request *rq, const char *name)
{
    static _Thread_local char value[4096]; /* per thread: the concurrent server reads headers on many */
    size_t n = strlen(name);
    for (const char *line = rq->headers; line && *line;) {
        const char *eol = strstr(line, "\r\n");
        size_t len = eol ? (size_t)(eol - line) : strlen(line);
        if (len > n && line[n] == ':' && strncasecmp(line, name, n) == 0) {
            const char *v = line + n + 1;
            while (*v == ' ' || *v == '\t') v++;
            size_t k = (size_t)(line + len - v);
            if (k >= sizeof value) k = sizeof value - 1;
            memcpy(value, v, k);
            value[k] = 0;
            return value;
        }
        line = eol ? eol + 2 : line + len;
    }
    return NULL;
}

void llm_fixture_stop(llm_fixture *f)
{
    if (!f) return;
    atomic_store(&f->stop, 1);
    pthread_join(f->thread, NULL);
    close(f->fd);
    for (int i = 0; i < f->nreq; i++) {
        free(f->req[i].headers);
        free(f->req[i].body);
    }
    pthread_mutex_destroy(&f->mu);
    free(f);
}

int llm_test_count_files(const char *dir)
{
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "cannot open '%s'", dir);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
    closedir(d);
    return n;
}

void llm_test_remove_dir(const char *dir)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

void llm_test_assert_no_key(const char *what, const void *bytes, size_t len, const char *key)
{
    size_t n = strlen(key);
    cr_assert_geq(n, LLM_TEST_KEY_PIECE, "the test key is shorter than a piece");
    for (size_t i = 0; i + LLM_TEST_KEY_PIECE <= n; i++) {
        char piece[LLM_TEST_KEY_PIECE + 1], escaped[2 * LLM_TEST_KEY_PIECE + 1], *e = escaped;
        memcpy(piece, key + i, LLM_TEST_KEY_PIECE);
        piece[LLM_TEST_KEY_PIECE] = 0;
        for (const char *p = piece; *p; p++) {
            if (*p == '/' || *p == '"' || *p == '\\') *e++ = '\\';
            *e++ = *p;
        }
        *e = 0;
        cr_assert_null(memmem(bytes, len, piece, strlen(piece)), "%s holds '%s', a piece of the key", what, piece);
        cr_assert_null(memmem(bytes, len, escaped, strlen(escaped)), "%s holds '%s', a piece of the key", what,
                       escaped);
    }
}

void llm_test_assert_file_no_key(const char *path, const char *key)
{
    char *bytes;
    size_t len;
    cr_assert_eq(pf_file_read(path, &bytes, &len), PF_OK, "%s", pf_errmsg());
    llm_test_assert_no_key(path, bytes, len, key);
    free(bytes);
}

void llm_test_assert_dir_no_key(const char *dir, const char *key)
{
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "cannot open '%s'", dir);
    for (struct dirent *e; (e = readdir(d));) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        llm_test_assert_file_no_key(path, key);
    }
    closedir(d);
}
