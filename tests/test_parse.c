/*
 * test_parse.c — integers from text with range checks, and text made safe
 * for artifacts (src/core/parse.h).
 *
 * The integer cases are the ones strtol()+cast got wrong (issue 24: a
 * generation of 4294967297 ran generation 1) and the spellings strtol
 * accepts that an option should not (blanks, '+', hex). The sanitiser is
 * checked byte for byte: U+FFFD for every byte that starts no valid UTF-8
 * sequence, '?' for control characters, "..." when cut, never a cut inside
 * a character.
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/parse.h"

#define FFFD "\xef\xbf\xbd"

/* ------------------------------------------------------------ integers */

static long ok_long(const char *s, long lo, long hi)
{
    long v = 12345;
    cr_assert_eq(pf_parse_long(s, lo, hi, &v), PF_OK, "'%s' in %ld..%ld: %s", s, lo, hi, pf_errmsg());
    return v;
}

static void bad_long(const char *s, long lo, long hi, const char *msg)
{
    long v = 12345;
    cr_assert_eq(pf_parse_long(s, lo, hi, &v), PF_ERR_INVALID, "'%s' was accepted", s ? s : "(null)");
    cr_assert_eq(v, 12345, "*v changed on failure");
    cr_assert_str_eq(pf_errmsg(), msg);
}

Test(parse, long_accepts_decimal_integers_in_range)
{
    cr_assert_eq(ok_long("0", 0, 99), 0);
    cr_assert_eq(ok_long("99", 0, 99), 99);
    cr_assert_eq(ok_long("007", 0, 99), 7);
    cr_assert_eq(ok_long("-1", -1, 1), -1);
    cr_assert_eq(ok_long("9223372036854775807", LONG_MIN, LONG_MAX), LONG_MAX);
    cr_assert_eq(ok_long("-9223372036854775808", LONG_MIN, LONG_MAX), LONG_MIN);
}

Test(parse, long_refuses_values_that_a_cast_would_wrap)
{
    bad_long("4294967297", 0, 99, "'4294967297' is outside 0..99"); /* (int) of it is 1 */
    bad_long("4294967303", 0, INT_MAX, "'4294967303' is outside 0..2147483647");
    bad_long("9223372036854775808", LONG_MIN, LONG_MAX, "'9223372036854775808' is outside "
                                                        "-9223372036854775808..9223372036854775807");
    bad_long("-9223372036854775809", LONG_MIN, LONG_MAX, "'-9223372036854775809' is outside "
                                                         "-9223372036854775808..9223372036854775807");
    bad_long("123456789012345678901234567890", 0, 10, "'123456789012345678901234567890' is outside 0..10");
    bad_long("100", 0, 99, "'100' is outside 0..99");
    bad_long("-1", 0, 99, "'-1' is outside 0..99");
}

Test(parse, long_refuses_what_is_not_a_plain_integer)
{
    const char *bad[] = {"", "-", " 5", "5 ", "+5", "0x10", "1e3", "5a", "--5", "1.0", "\t7"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char want[64];
        snprintf(want, sizeof want, "'%s' is not an integer", bad[i]);
        bad_long(bad[i], LONG_MIN, LONG_MAX, want);
    }
    bad_long(NULL, 0, 1, "'' is not an integer");
}

Test(parse, u64_takes_the_whole_unsigned_range)
{
    uint64_t v = 0;
    cr_assert_eq(pf_parse_u64("18446744073709551615", UINT64_MAX, &v), PF_OK);
    cr_assert_eq(v, UINT64_MAX);
    cr_assert_eq(pf_parse_u64("18446744073709551616", UINT64_MAX, &v), PF_ERR_INVALID);
    cr_assert_str_eq(pf_errmsg(), "'18446744073709551616' is outside 0..18446744073709551615");
    cr_assert_eq(pf_parse_u64("9223372036854775808", INT64_MAX, &v), PF_ERR_INVALID);
    cr_assert_eq(pf_parse_u64("-1", UINT64_MAX, &v), PF_ERR_INVALID, "strtoull takes -1 as 2^64-1");
    cr_assert_str_eq(pf_errmsg(), "'-1' is not an integer");
    cr_assert_eq(pf_parse_u64("+1", UINT64_MAX, &v), PF_ERR_INVALID);
    cr_assert_eq(v, UINT64_MAX, "*v changed on failure");
}

/* ------------------------------------------------------------ text */

static void sanitized(const char *in, size_t cap, const char *want)
{
    char out[256];
    memset(out, 'Z', sizeof out);
    cr_assert_leq(cap, sizeof out);
    cr_assert_eq(pf_text_sanitize(in, out, cap), out);
    cr_assert_str_eq(out, want, "sanitize(cap %zu)", cap);
    cr_assert_leq(strlen(out), cap - 1);
}

Test(parse, sanitize_keeps_valid_utf8_newlines_and_tabs)
{
    sanitized("plain ascii", 64, "plain ascii");
    sanitized("line one\n\tline two", 64, "line one\n\tline two");
    sanitized("因变量 u, ±1e-3, 𝜕u/𝜕t", 64, "因变量 u, ±1e-3, 𝜕u/𝜕t");
    sanitized("", 8, "");
    sanitized(NULL, 8, "");
}

Test(parse, sanitize_replaces_invalid_bytes_and_control_characters)
{
    sanitized("a\xff\xfe" "b", 64, "a" FFFD FFFD "b");            /* the bytes */
    sanitized("\xc0\xaf", 64, FFFD FFFD);                          /* overlong '/' */
    sanitized("\xed\xa0\x80", 64, FFFD FFFD FFFD);                 /* a surrogate */
    sanitized("\xf4\x90\x80\x80", 64, FFFD FFFD FFFD FFFD);        /* above U+10FFFF */
    sanitized("\xe4\xb8", 64, FFFD FFFD);                          /* truncated at the end */
    sanitized("\xe4\xb8x", 64, FFFD FFFD "x");
    sanitized("bell\a esc\x1b[0m del\x7f cr\r", 64, "bell? esc?[0m del? cr?");
}

Test(parse, sanitize_bounds_the_length_at_a_character_boundary)
{
    sanitized("0123456789", 11, "0123456789");  /* fits exactly: not cut */
    sanitized("0123456789", 10, "012345...");
    sanitized("0123456789", 8, "0123...");
    /* a 3-byte character never cut in half */
    sanitized("ab因变量", 10, "ab因...");
    sanitized("ab因变量", 9, "ab因...");
    sanitized("ab因变量", 8, "ab...");
    /* a replacement that no longer fits is cut too */
    sanitized("abcd\xff\xff\xff", 10, "abcd...");
    char *d = pf_text_sanitize_dup("x\xffy", 1024);
    cr_assert_str_eq(d, "x" FFFD "y");
    free(d);
    char big[5000];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = 0;
    d = pf_text_sanitize_dup(big, 1024);
    cr_assert_eq(strlen(d), 1024);
    cr_assert_str_eq(d + 1021, "...");
    free(d);
}
