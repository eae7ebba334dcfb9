/* secret.c — scrubbing a secret out of outside text (secret.h). Issue 24,
 * item 7: the key leaked when a server's error text was cut inside it
 * (the scrubber ran after the cut and looked for the whole key only) and
 * when the model's answer repeated it (answers were not scrubbed). */
#include "llm/secret.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

typedef struct out_buf {
    char *s;
    size_t n, cap;
    bool oom;
} out_buf;

static void put(out_buf *o, const char *s, size_t n)
{
    if (o->oom) return;
    if (o->n + n + 1 > o->cap) {
        size_t cap = o->cap ? o->cap : 256;
        while (cap < o->n + n + 1) cap *= 2;
        char *t = realloc(o->s, cap);
        if (!t) {
            o->oom = true;
            return;
        }
        o->s = t;
        o->cap = cap;
    }
    memcpy(o->s + o->n, s, n);
    o->n += n;
    o->s[o->n] = 0;
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static bool ascii_alnum(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* The number of bytes at t[0..n) that spell the secret's character c, 0
 * when they do not: c itself; a run of backslashes then c, when c is not a
 * letter or digit (after a backslash those mean \n, \t, \u...); a run of
 * backslashes then uXXXX with the code of c; a run of backslashes alone
 * when c is a backslash. A run stands for any depth of JSON escaping. */
static size_t spell(const char *t, size_t n, unsigned char c)
{
    size_t b = 0;
    while (b < n && t[b] == '\\') b++;
    if (b == 0) return n > 0 && (unsigned char)t[0] == c;
    if (c == '\\') return b;
    if (b == n) return 0;
    if (t[b] == 'u') {
        if (n - b < 5 || c >= 0x80) return 0;
        int v = 0;
        for (size_t i = 1; i <= 4; i++) {
            int d = hex_digit(t[b + i]);
            if (d < 0) return 0;
            v = 16 * v + d;
        }
        return v == c ? b + 5 : 0;
    }
    return (unsigned char)t[b] == c && !ascii_alnum(c) ? b + 1 : 0;
}

/* How many characters of secret[j..slen) t[0..n) spells from its start;
 * *used is the number of bytes they take. */
static size_t spelled(const char *t, size_t n, const char *secret, size_t slen, size_t j, size_t *used)
{
    size_t m = 0, p = 0;
    while (j + m < slen) {
        size_t k = spell(t + p, n - p, (unsigned char)secret[j + m]);
        if (!k) break;
        p += k;
        m++;
    }
    *used = p;
    return m;
}

/* The bytes of the longest piece of the secret (secret.h) that starts at
 * t[0], 0 when none does. */
static size_t piece_at(const char *t, size_t n, const char *secret, size_t slen)
{
    size_t need = slen < PF_SECRET_MIN_PIECE ? slen : PF_SECRET_MIN_PIECE, best = 0, best_used = 0;
    unsigned char c = (unsigned char)t[0];
    if (c == '\\') { /* an escape may spell any character of the secret */
        for (size_t j = 0; j + need <= slen; j++) {
            size_t used, m = spelled(t, n, secret, slen, j, &used);
            if (m >= need && m > best) best = m, best_used = used;
        }
        return best_used;
    }
    for (const char *q = memchr(secret, c, slen); q; q = memchr(q + 1, c, (size_t)(secret + slen - q - 1))) {
        size_t j = (size_t)(q - secret), used, m;
        if (j + need > slen) break;
        m = spelled(t, n, secret, slen, j, &used);
        if (m >= need && m > best) best = m, best_used = used;
    }
    return best_used;
}

char *pf_secret_scrub(const char *secret, size_t secret_len, const char *text, size_t len, size_t *out_len)
{
    out_buf o = {0};
    put(&o, "", 0);
    bool scrub = secret && secret_len >= PF_SECRET_MIN_PIECE; /* shorter: a placeholder, not a secret */
    size_t backslashes = 0; /* copied just before text[i] */
    for (size_t i = 0; i < len && !o.oom;) {
        unsigned char c = (unsigned char)text[i];
        size_t used = scrub && (c & 0xC0) != 0x80 ? piece_at(text + i, len - i, secret, secret_len) : 0;
        if (!used) {
            put(&o, text + i, 1);
            backslashes = c == '\\' ? backslashes + 1 : 0;
            i++;
            continue;
        }
        /* whole escapes and whole UTF-8 characters only: a piece that
         * starts on an escaped character takes its backslash along */
        if (backslashes % 2) o.n--;
        while (i + used < len && ((unsigned char)text[i + used] & 0xC0) == 0x80) used++;
        put(&o, PF_SECRET_MARKER, sizeof PF_SECRET_MARKER - 1);
        backslashes = 0;
        i += used;
    }
    if (o.oom) {
        free(o.s);
        return NULL;
    }
    if (out_len) *out_len = o.n;
    return o.s;
}

void pf_secret_scrub_buf(const char *secret, size_t secret_len, char *buf, size_t cap)
{
    if (!cap || !secret || !secret_len) return;
    size_t n;
    char *s = pf_secret_scrub(secret, secret_len, buf, strnlen(buf, cap), &n);
    if (!s) {
        buf[0] = 0;
        return;
    }
    if (n >= cap) n = cap - 1;
    memcpy(buf, s, n);
    buf[n] = 0;
    free(s);
}
