/*
 * test_parse.c — integers from text with range checks (src/core/parse.h).
 *
 * The cases are the ones strtol()+cast got wrong (issue 24: a generation
 * of 4294967297 ran generation 1) and the spellings strtol accepts that an
 * option should not (blanks, '+', hex).
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/parse.h"

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
