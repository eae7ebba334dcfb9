/* parse.c — numbers from text with range checks, text made safe to store
 * (parse.h). */
#include "core/parse.h"

#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Digits only, at least one (after an optional '-' when `sign`). */
static bool is_decimal(const char *s, bool sign)
{
    if (sign && *s == '-') s++;
    if (!*s) return false;
    return strspn(s, "0123456789") == strlen(s);
}

pf_status pf_parse_long(const char *text, long lo, long hi, long *v)
{
    if (!text || !is_decimal(text, true)) return pf_fail(PF_ERR_INVALID, "'%s' is not an integer", text ? text : "");
    /* the magnitude with an overflow check: any run of digits is a number, too large or not */
    bool neg = text[0] == '-';
    unsigned long long mag = 0;
    bool big = false;
    for (const char *p = text + neg; *p; p++) {
        unsigned d = (unsigned)(*p - '0');
        if (mag > (~0ULL - d) / 10) big = true;
        else mag = mag * 10 + d;
    }
    /* LONG_MIN's magnitude is LONG_MAX + 1 */
    if (mag > (unsigned long long)LONG_MAX + neg) big = true;
    long x = big || mag == 0 ? 0 : neg ? -(long)(mag - 1) - 1 : (long)mag;
    if (big || x < lo || x > hi) return pf_fail(PF_ERR_INVALID, "'%s' is outside %ld..%ld", text, lo, hi);
    *v = x;
    return PF_OK;
}

pf_status pf_parse_u64(const char *text, uint64_t hi, uint64_t *v)
{
    if (!text || !is_decimal(text, false)) return pf_fail(PF_ERR_INVALID, "'%s' is not an integer", text ? text : "");
    uint64_t x = 0;
    bool big = false;
    for (const char *p = text; *p && !big; p++) {
        unsigned d = (unsigned)(*p - '0');
        if (x > (UINT64_MAX - d) / 10) big = true;
        else x = x * 10 + d;
    }
    if (big || x > hi) return pf_fail(PF_ERR_INVALID, "'%s' is outside 0..%llu", text, (unsigned long long)hi);
    *v = x;
    return PF_OK;
}

/* ------------------------------------------------------------ text */

/* The length of the valid UTF-8 sequence at s (RFC 3629: no overlong
 * forms, no surrogates, nothing above U+10FFFF), 0 when there is none. */
static size_t utf8_len(const unsigned char *s)
{
    unsigned char c = s[0];
    if (c < 0x80) return 1;
    unsigned char lo = 0x80, hi = 0xbf;
    size_t n;
    if (c >= 0xc2 && c <= 0xdf) n = 2;
    else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        if (c == 0xe0) lo = 0xa0;
        if (c == 0xed) hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        if (c == 0xf0) lo = 0x90;
        if (c == 0xf4) hi = 0x8f;
    } else
        return 0;
    if (s[1] < lo || s[1] > hi) return 0; /* also stops at the NUL */
    for (size_t i = 2; i < n; i++)
        if (s[i] < 0x80 || s[i] > 0xbf) return 0;
    return n;
}

char *pf_text_sanitize(const char *in, char *out, size_t cap)
{
    PF_ASSERT(out && cap >= 8);
    static const char fffd[] = "\xef\xbf\xbd";
    const unsigned char *s = (const unsigned char *)(in ? in : "");
    size_t len = 0, mark = 0; /* mark: the last character boundary with room left for "..." */
    while (*s) {
        size_t n = utf8_len(s);
        const char *piece = (const char *)s;
        size_t plen = n;
        char q = '?';
        if (n == 0) piece = fffd, plen = 3, n = 1;
        else if (n == 1 && ((*s < 0x20 && *s != '\n' && *s != '\t') || *s == 0x7f)) piece = &q, plen = 1;
        if (len + plen > cap - 1) {
            memcpy(out + mark, "...", 4);
            return out;
        }
        memcpy(out + len, piece, plen);
        len += plen;
        if (len + 3 <= cap - 1) mark = len;
        s += n;
    }
    out[len] = 0;
    return out;
}

char *pf_text_sanitize_dup(const char *in, size_t max_len)
{
    size_t cap = max_len + 1 < 8 ? 8 : max_len + 1;
    char *out = malloc(cap);
    return out ? pf_text_sanitize(in, out, cap) : NULL;
}
