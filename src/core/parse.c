/* parse.c — numbers from text with range checks (parse.h). */
#include "core/parse.h"

#include <limits.h>
#include <stdbool.h>
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
