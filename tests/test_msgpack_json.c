/*
 * test_msgpack_json.c — JSON <-> msgpack and atomic msgpack files
 * (src/io/msgpack_json.h).
 *
 * The round trip is checked on the bytes of json_dumps(JSON_PRESERVE_ORDER |
 * JSON_COMPACT), the encoding on hand-written msgpack bytes (from the msgpack
 * spec), and the file functions in a fresh mkdtemp() folder whose listing
 * shows that no temp file is ever left behind.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/status.h"
#include "io/msgpack_json.h"

/* ---------------------------------------------------------------- helpers --- */

static char dir[64];

static void rm_tree(const char *p)
{
    DIR *d = opendir(p);
    if (!d) {
        unlink(p);
        return;
    }
    struct dirent *e;
    char sub[512];
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(sub, sizeof sub, "%s/%s", p, e->d_name);
            rm_tree(sub);
        }
    closedir(d);
    rmdir(p);
}

static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/pf_test_mpj_XXXXXX");
    cr_assert_not_null(mkdtemp(dir), "mkdtemp failed");
}

static void teardown(void) { rm_tree(dir); }

TestSuite(msgpack_json, .init = setup, .fini = teardown);

/* Names in the test folder, sorted, comma-separated. */
static void list_dir(char *buf, size_t cap)
{
    struct dirent **names;
    int n = scandir(dir, &names, NULL, alphasort);
    cr_assert_geq(n, 0, "cannot list %s", dir);
    buf[0] = 0;
    for (int i = 0; i < n; i++) {
        const char *s = names[i]->d_name;
        if (strcmp(s, ".") && strcmp(s, "..")) {
            if (buf[0]) strncat(buf, ",", cap - strlen(buf) - 1);
            strncat(buf, s, cap - strlen(buf) - 1);
        }
        free(names[i]);
    }
    free(names);
}

static char *dumps(const json_t *v)
{
    char *s = json_dumps(v, JSON_PRESERVE_ORDER | JSON_COMPACT | JSON_ENCODE_ANY);
    cr_assert_not_null(s);
    return s;
}

/* A nested value with every JSON type, keys deliberately not sorted. */
static json_t *every_type(void)
{
    json_error_t err;
    json_t *v = json_loads(
        "{\"z\": 1, \"a\": -1, \"big\": 9223372036854775807, \"small\": -9223372036854775808,"
        " \"m\": 300, \"real\": 0.10000000000000001, \"one\": 1.0, \"negzero\": -0.0,"
        " \"huge\": 1e300, \"tiny\": 5e-324, \"s\": \"h\\u00e9llo \\u2713\", \"empty\": \"\","
        " \"t\": true, \"f\": false, \"n\": null,"
        " \"arr\": [1, 2.5, \"x\", [], {}, [null, [true, {\"k\": [0]}]]],"
        " \"obj\": {\"y\": {\"b\": 2, \"a\": 1}, \"x\": []}}",
        0, &err);
    cr_assert_not_null(v, "test JSON: %s", err.text);
    /* a string with an embedded NUL (json_loads would refuse it) */
    cr_assert_eq(json_object_set_new(v, "nul", json_stringn("a\0b", 3)), 0);
    return v;
}

/* -------------------------------------------------------------- encoding --- */

Test(msgpack_json, round_trip_every_type_is_byte_identical)
{
    json_t *v = every_type();
    char *buf;
    size_t len;
    cr_assert_eq(pf_json_to_msgpack(v, &buf, &len), PF_OK, "%s", pf_errmsg());
    json_t *back;
    cr_assert_eq(pf_json_from_msgpack(buf, len, &back), PF_OK, "%s", pf_errmsg());
    char *a = dumps(v), *b = dumps(back);
    cr_assert_str_eq(b, a);
    /* and the types survive: 1.0 stays a real, 300 an integer */
    cr_assert(json_is_real(json_object_get(back, "one")));
    cr_assert(json_is_integer(json_object_get(back, "m")));
    cr_assert_eq(json_string_length(json_object_get(back, "nul")), 3);
    /* re-encoding gives the same msgpack bytes */
    char *buf2;
    size_t len2;
    cr_assert_eq(pf_json_to_msgpack(back, &buf2, &len2), PF_OK);
    cr_assert_eq(len2, len);
    cr_assert_eq(memcmp(buf2, buf, len), 0);
    free(a);
    free(b);
    free(buf);
    free(buf2);
    json_decref(v);
    json_decref(back);
}

/* {"b": 1, "a": 1.0, "c": [null, true, -1, 300]} by the msgpack spec:
 * fixmap 2+1, fixstr keys in insertion order, positive fixint, float64,
 * fixarray, nil, true, negative fixint, uint16. */
Test(msgpack_json, encoding_is_the_expected_bytes)
{
    json_t *v = json_object();
    json_object_set_new(v, "b", json_integer(1));
    json_object_set_new(v, "a", json_real(1.0));
    json_object_set_new(v, "c", json_pack("[n, b, i, i]", 1, -1, 300));
    static const unsigned char want[] = {
        0x83, 0xa1, 'b', 0x01, 0xa1, 'a', 0xcb, 0x3f, 0xf0, 0, 0, 0, 0, 0, 0,
        0xa1, 'c', 0x94, 0xc0, 0xc3, 0xff, 0xcd, 0x01, 0x2c};
    char *buf;
    size_t len;
    cr_assert_eq(pf_json_to_msgpack(v, &buf, &len), PF_OK);
    cr_assert_eq(len, sizeof want);
    cr_assert_eq(memcmp(buf, want, len), 0);
    free(buf);
    json_decref(v);
}

Test(msgpack_json, scalar_top_level)
{
    json_t *v = json_null();
    char *buf;
    size_t len;
    cr_assert_eq(pf_json_to_msgpack(v, &buf, &len), PF_OK);
    cr_assert_eq(len, 1);
    cr_assert_eq((unsigned char)buf[0], 0xc0);
    json_t *back;
    cr_assert_eq(pf_json_from_msgpack(buf, len, &back), PF_OK);
    cr_assert(json_is_null(back));
    free(buf);
    json_decref(back);
}

/* ------------------------------------------------------------- rejection --- */

Test(msgpack_json, truncated_buffer_is_rejected)
{
    json_t *v = every_type();
    char *buf;
    size_t len;
    cr_assert_eq(pf_json_to_msgpack(v, &buf, &len), PF_OK);
    for (size_t cut = 0; cut < len; cut++) {
        json_t *out = (json_t *)1;
        cr_assert_eq(pf_json_from_msgpack(buf, cut, &out), PF_ERR_IO, "prefix of %zu bytes", cut);
        cr_assert_null(out);
    }
    free(buf);
    json_decref(v);
}

Test(msgpack_json, trailing_garbage_is_rejected)
{
    json_t *v = every_type();
    char *buf;
    size_t len;
    cr_assert_eq(pf_json_to_msgpack(v, &buf, &len), PF_OK);
    char *more = malloc(2 * len);
    memcpy(more, buf, len);
    more[len] = (char)0xc1; /* never used in msgpack */
    json_t *out;
    cr_assert_eq(pf_json_from_msgpack(more, len + 1, &out), PF_ERR_IO);
    cr_assert(strstr(pf_errmsg(), "not exactly one"), "%s", pf_errmsg());
    /* two well-formed values are not one */
    memcpy(more + len, buf, len);
    cr_assert_eq(pf_json_from_msgpack(more, 2 * len, &out), PF_ERR_IO);
    cr_assert_null(out);
    free(more);
    free(buf);
    json_decref(v);
}

Test(msgpack_json, values_without_json_form_are_rejected)
{
    static const struct {
        const char *what;
        const char *bytes;
        size_t len;
    } bad[] = {
        {"bin", "\xc4\x01x", 3},
        {"ext", "\xd4\x01\x00", 3},
        {"integer key", "\x81\x07\xa1x", 4},
        {"a key twice (a spec's \"width\" given twice: which holds?)", "\x82\xa1w\x01\xa1w\x02", 7},
        {"a key twice, deeper", "\x81\xa1s\x82\xa1" "a\xc0\xa1" "a\xc2", 10},
        {"NaN", "\xcb\x7f\xf8\x00\x00\x00\x00\x00\x00", 9},
        {"+Inf", "\xcb\x7f\xf0\x00\x00\x00\x00\x00\x00", 9},
        {"uint64 above INT64_MAX", "\xcf\x80\x00\x00\x00\x00\x00\x00\x00", 9},
        {"invalid UTF-8", "\xa2\xff\xfe", 3},
        {"invalid byte", "\xc1", 1},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        json_t *out = (json_t *)1;
        cr_assert_eq(pf_json_from_msgpack(bad[i].bytes, bad[i].len, &out), PF_ERR_IO, "%s",
                     bad[i].what);
        cr_assert_null(out, "%s", bad[i].what);
    }
}

/* 32 nested arrays pass, 33 do not, in both directions (msgpack-c cannot
 * parse 33, so they must not be written either). */
Test(msgpack_json, nesting_limit)
{
    for (int levels = PF_MSGPACK_JSON_MAX_NESTING; levels <= PF_MSGPACK_JSON_MAX_NESTING + 1;
         levels++) {
        json_t *v = json_array();
        for (int i = 1; i < levels; i++) {
            json_t *outer = json_array();
            json_array_append_new(outer, v);
            v = outer;
        }
        char *buf;
        size_t len;
        pf_status want = levels <= PF_MSGPACK_JSON_MAX_NESTING ? PF_OK : PF_ERR_IO;
        cr_assert_eq(pf_json_to_msgpack(v, &buf, &len), want, "%d levels", levels);
        if (want == PF_OK) free(buf);
        json_decref(v);

        char raw[80];
        memset(raw, 0x91, (size_t)levels - 1); /* fixarray of 1 */
        raw[levels - 1] = (char)0x90;          /* empty fixarray */
        json_t *out;
        cr_assert_eq(pf_json_from_msgpack(raw, (size_t)levels, &out), want, "%d levels", levels);
        json_decref(out);
    }
}

/* ----------------------------------------------------------------- files --- */

Test(msgpack_json, atomic_write_then_read_back)
{
    char path[128], names[512];
    snprintf(path, sizeof path, "%s/ev.msgpack", dir);
    json_t *v = every_type();
    cr_assert_eq(pf_msgpack_write_file(path, v), PF_OK, "%s", pf_errmsg());
    list_dir(names, sizeof names);
    cr_assert_str_eq(names, "ev.msgpack");
    json_t *back;
    cr_assert_eq(pf_msgpack_read_file(path, &back), PF_OK, "%s", pf_errmsg());
    char *a = dumps(v), *b = dumps(back);
    cr_assert_str_eq(b, a);
    free(a);
    free(b);
    json_decref(back);

    /* replacing the file: the new content, still no temp file */
    json_t *w = json_pack("{s:i}", "v", 2);
    cr_assert_eq(pf_msgpack_write_file(path, w), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(pf_msgpack_read_file(path, &back), PF_OK);
    cr_assert(json_equal(back, w));
    list_dir(names, sizeof names);
    cr_assert_str_eq(names, "ev.msgpack");
    json_decref(back);
    json_decref(w);
    json_decref(v);
}

Test(msgpack_json, raw_atomic_write)
{
    char path[128];
    snprintf(path, sizeof path, "%s/raw.bin", dir);
    cr_assert_eq(pf_file_write_atomic(path, "abc", 3), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(pf_file_write_atomic(path, "", 0), PF_OK, "%s", pf_errmsg());
    struct stat sb;
    cr_assert_eq(stat(path, &sb), 0);
    cr_assert_eq(sb.st_size, 0);
}

Test(msgpack_json, write_into_missing_directory_fails)
{
    char path[128], names[512];
    snprintf(path, sizeof path, "%s/missing/ev.msgpack", dir);
    json_t *v = json_pack("{s:i}", "a", 1);
    cr_assert_eq(pf_msgpack_write_file(path, v), PF_ERR_IO);
    cr_assert(strstr(pf_errmsg(), path), "message names the path: %s", pf_errmsg());
    cr_assert(strstr(pf_errmsg(), strerror(ENOENT)), "message has strerror: %s", pf_errmsg());
    list_dir(names, sizeof names);
    cr_assert_str_eq(names, "", "left behind: %s", names);
    json_decref(v);
}

/* The temp file is created but the rename fails (the target is a
 * directory): the temp file is removed, the directory untouched. */
Test(msgpack_json, failed_rename_removes_the_temp_file)
{
    char path[128], names[512];
    snprintf(path, sizeof path, "%s/target", dir);
    cr_assert_eq(mkdir(path, 0755), 0);
    json_t *v = json_pack("{s:i}", "a", 1);
    cr_assert_eq(pf_msgpack_write_file(path, v), PF_ERR_IO);
    cr_assert(strstr(pf_errmsg(), path), "%s", pf_errmsg());
    list_dir(names, sizeof names);
    cr_assert_str_eq(names, "target", "left behind: %s", names);
    json_decref(v);
}

Test(msgpack_json, read_failures_name_the_path)
{
    char path[128];
    snprintf(path, sizeof path, "%s/none.msgpack", dir);
    json_t *out = (json_t *)1;
    cr_assert_eq(pf_msgpack_read_file(path, &out), PF_ERR_IO);
    cr_assert_null(out);
    cr_assert(strstr(pf_errmsg(), path), "%s", pf_errmsg());

    snprintf(path, sizeof path, "%s/bad.msgpack", dir);
    cr_assert_eq(pf_file_write_atomic(path, "\x82\xa1" "a", 3), PF_OK);
    cr_assert_eq(pf_msgpack_read_file(path, &out), PF_ERR_IO);
    cr_assert_null(out);
    cr_assert(strstr(pf_errmsg(), path), "%s", pf_errmsg());
    cr_assert(strstr(pf_errmsg(), "corrupt msgpack: the map at offset 0 claims 2 entries"), "%s", pf_errmsg());
}

Test(msgpack_json, file_read_whole_file_and_empty_folder_name)
{
    char path[128];
    snprintf(path, sizeof path, "%s/text", dir);
    cr_assert_eq(pf_file_write_atomic(path, "abcdef", 6), PF_OK, "%s", pf_errmsg());
    char *text;
    size_t len;
    cr_assert_eq(pf_file_read(path, &text, &len), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(len, 6);
    cr_assert_str_eq(text, "abcdef");
    free(text);

    cr_assert_eq(pf_mkdirs(""), PF_ERR_IO);
    cr_assert(strstr(pf_errmsg(), "empty name"), "%s", pf_errmsg());
}

/* ------------------------------------------------- issue 24: every type --- */

/* One value per msgpack encoding that has a JSON form: the encoder picks
 * the expected format byte, and the decoder gives the value back. */
static json_t *str_of(size_t n)
{
    char *s = malloc(n + 1);
    memset(s, 'q', n);
    json_t *j = json_stringn(s, n);
    free(s);
    return j;
}

static json_t *array_of(size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++) json_array_append_new(a, json_integer((json_int_t)(i % 100)));
    return a;
}

static json_t *map_of(size_t n)
{
    json_t *m = json_object();
    char k[32];
    for (size_t i = 0; i < n; i++) {
        snprintf(k, sizeof k, "k%zu", i);
        json_object_set_new(m, k, json_null());
    }
    return m;
}

Test(msgpack_json, every_msgpack_type_round_trips)
{
    const struct {
        const char *what;
        json_t *v;
        unsigned char first;
    } cases[] = {
        {"nil", json_null(), 0xc0},
        {"false", json_false(), 0xc2},
        {"true", json_true(), 0xc3},
        {"positive fixint", json_integer(127), 0x7f},
        {"uint8", json_integer(255), 0xcc},
        {"uint16", json_integer(65535), 0xcd},
        {"uint32", json_integer(4294967295LL), 0xce},
        {"uint64", json_integer(INT64_MAX), 0xcf},
        {"negative fixint", json_integer(-32), 0xe0},
        {"int8", json_integer(-128), 0xd0},
        {"int16", json_integer(-32768), 0xd1},
        {"int32", json_integer(-2147483648LL), 0xd2},
        {"int64", json_integer(INT64_MIN), 0xd3},
        {"float64", json_real(-2.5), 0xcb},
        {"fixstr \"\"", json_string(""), 0xa0},
        {"fixstr 31", str_of(31), 0xbf},
        {"str8", str_of(32), 0xd9},
        {"str16", str_of(256), 0xda},
        {"str32", str_of(65536), 0xdb},
        {"fixarray []", json_array(), 0x90},
        {"fixarray [\"\"]", json_pack("[s]", ""), 0x91},
        {"fixarray 15", array_of(15), 0x9f},
        {"array16", array_of(16), 0xdc},
        {"array32", array_of(65536), 0xdd},
        {"fixmap {}", json_object(), 0x80},
        {"fixmap {\"\": \"\"}", json_pack("{s:s}", "", ""), 0x81},
        {"fixmap 15", map_of(15), 0x8f},
        {"map16", map_of(16), 0xde},
        {"map32", map_of(65536), 0xdf},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        cr_assert_not_null(cases[i].v, "%s", cases[i].what);
        char *buf;
        size_t len;
        cr_assert_eq(pf_json_to_msgpack(cases[i].v, &buf, &len), PF_OK, "%s", cases[i].what);
        cr_assert_eq((unsigned char)buf[0], cases[i].first, "%s: format byte 0x%02x", cases[i].what,
                     (unsigned char)buf[0]);
        json_t *back = NULL;
        cr_assert_eq(pf_json_from_msgpack(buf, len, &back), PF_OK, "%s: %s", cases[i].what, pf_errmsg());
        char *a = dumps(cases[i].v), *b = dumps(back);
        cr_assert_str_eq(b, a, "%s", cases[i].what);
        free(a);
        free(b);
        free(buf);
        json_decref(back);
        json_decref(cases[i].v);
    }
    /* float32 (which we never write) comes back as a real */
    json_t *f = NULL;
    cr_assert_eq(pf_json_from_msgpack("\xca\x3f\xc0\x00\x00", 5, &f), PF_OK);
    cr_assert(json_is_real(f) && json_real_value(f) == 1.5);
    json_decref(f);
}

/* msgpack-c leaves a zero-length str's pointer NULL when nothing before it
 * in the buffer moved its cursor: these are the shapes where "" used to be
 * lost ("a value has no JSON form") or strndup(NULL) was called. */
Test(msgpack_json, empty_strings_and_keys_decode_wherever_they_stand)
{
    static const struct {
        const char *bytes;
        size_t len;
        const char *json;
    } cases[] = {
        {"\xa0", 1, "\"\""},
        {"\x91\xa0", 2, "[\"\"]"},
        {"\x92\xa0\xa1x", 4, "[\"\",\"x\"]"},
        {"\x91\x91\xa0", 3, "[[\"\"]]"},
        {"\x81\xa0\x01", 3, "{\"\":1}"},
        {"\x81\xa0\xa0", 3, "{\"\":\"\"}"},
        {"\x82\xa0\x90\xa1k\x80", 6, "{\"\":[],\"k\":{}}"},
        {"\x91\xc4\x00", 3, NULL}, /* bin of 0 bytes: still no JSON form */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        json_t *v = NULL;
        pf_status st = pf_json_from_msgpack(cases[i].bytes, cases[i].len, &v);
        if (!cases[i].json) {
            cr_assert_eq(st, PF_ERR_IO, "case %zu", i);
            continue;
        }
        cr_assert_eq(st, PF_OK, "%s: %s", cases[i].json, pf_errmsg());
        char *s = dumps(v);
        cr_assert_str_eq(s, cases[i].json);
        free(s);
        json_decref(v);
    }
}

/* Keys by their length: an empty key, and a key holding a NUL byte. */
Test(msgpack_json, empty_and_nul_keys_round_trip)
{
    json_t *v = json_object();
    cr_assert_eq(json_object_set_new(v, "", json_string("")), 0);
    cr_assert_eq(json_object_setn_new(v, "a\0b", 3, json_integer(1)), 0);
    cr_assert_eq(json_object_set_new(v, "a", json_integer(2)), 0);
    char *buf;
    size_t len;
    cr_assert_eq(pf_json_to_msgpack(v, &buf, &len), PF_OK);
    static const unsigned char want[] = {0x83, 0xa0, 0xa0, 0xa3, 'a', 0, 'b', 0x01, 0xa1, 'a', 0x02};
    cr_assert_eq(len, sizeof want);
    cr_assert_eq(memcmp(buf, want, len), 0);
    json_t *back;
    cr_assert_eq(pf_json_from_msgpack(buf, len, &back), PF_OK, "%s", pf_errmsg());
    /* (json_equal looks keys up by strlen, so it cannot compare "a\0b") */
    char *again;
    size_t len2;
    cr_assert_eq(pf_json_to_msgpack(back, &again, &len2), PF_OK);
    cr_assert_eq(len2, len);
    cr_assert_eq(memcmp(again, buf, len), 0);
    free(again);
    cr_assert_eq(json_object_size(back), 3);
    cr_assert_str_eq(json_string_value(json_object_get(back, "")), "");
    cr_assert_eq(json_integer_value(json_object_getn(back, "a\0b", 3)), 1);
    cr_assert_eq(json_integer_value(json_object_get(back, "a")), 2);
    free(buf);
    json_decref(back);
    json_decref(v);
}

/* ----------------------------------------------- issue 24: corrupt sizes --- */

/* A size field that claims more than the bytes present is corrupt, said
 * before msgpack-c would allocate room for it (4 billion elements used to
 * read as "out of memory"). */
Test(msgpack_json, claimed_sizes_beyond_the_bytes_are_corrupt)
{
    static const struct {
        const char *bytes;
        size_t len;
        const char *msg;
    } cases[] = {
        {"\xdd\xff\xff\xff\xff", 5, "corrupt msgpack: the array at offset 0 claims 4294967295 elements, but only 0 bytes follow"},
        {"\xdf\xff\xff\xff\xff\x01\x02", 7, "corrupt msgpack: the map at offset 0 claims 4294967295 entries, but only 2 bytes follow"},
        {"\xdb\xff\xff\xff\xff" "abc", 8, "corrupt msgpack: the string at offset 0 claims 4294967295 bytes, but only 3 follow"},
        {"\xc6\x7f\xff\xff\xff", 5, "corrupt msgpack: the bin at offset 0 claims 2147483647 bytes, but only 0 follow"},
        {"\xc9\xff\xff\xff\xff\x01", 6, "corrupt msgpack: the ext at offset 0 claims 4294967296 bytes, but only 1 follow"},
        {"\x81\xa1k\xdc\xff\xff", 6, "corrupt msgpack: the array at offset 3 claims 65535 elements, but only 0 bytes follow"},
        {"\x92\x01", 2, "corrupt msgpack: the array at offset 0 claims 2 elements, but only 1 bytes follow"},
        {"\x91\xc1", 2, "corrupt msgpack: byte 0xc1 at offset 1 starts no value"},
        {"\xdc\x00", 2, "truncated msgpack: the array at offset 0 lacks its size"},
        {"", 0, "truncated msgpack: 0 bytes end inside a value"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        json_t *out = (json_t *)1;
        cr_assert_eq(pf_json_from_msgpack(cases[i].bytes, cases[i].len, &out), PF_ERR_IO, "case %zu", i);
        cr_assert_null(out);
        cr_assert_str_eq(pf_errmsg(), cases[i].msg, "case %zu", i);
        size_t used = 99;
        cr_assert_eq(pf_msgpack_check(cases[i].bytes, cases[i].len, &used), PF_ERR_IO);
        cr_assert_eq(used, 0);
    }
    /* the check passes every well-formed value, and says where it ends */
    size_t used;
    cr_assert_eq(pf_msgpack_check("\x92\xc4\x01x\xd4\x01\x00" "extra", 12, &used), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(used, 7);
}

Test(msgpack_json, corrupt_file_is_named)
{
    char path[128];
    snprintf(path, sizeof path, "%s/huge.msgpack", dir);
    cr_assert_eq(pf_file_write_atomic(path, "\x81\xa1" "a\xdd\xff\xff\xff\xff", 8), PF_OK);
    json_t *out = (json_t *)1;
    cr_assert_eq(pf_msgpack_read_file(path, &out), PF_ERR_IO);
    cr_assert_null(out);
    char want[256];
    snprintf(want, sizeof want, "'%s': corrupt msgpack: the array at offset 3 claims 4294967295 elements, "
                                "but only 0 bytes follow", path);
    cr_assert_str_eq(pf_errmsg(), want);
}

/* ------------------------------------------------ issue 24: JSON integers --- */

Test(msgpack_json, json_int_checks_type_and_range)
{
    long v = 7;
    json_t *big = json_integer(4294967303LL), *neg = json_integer(-1), *r = json_real(3.0), *s = json_string("3");
    cr_assert(!pf_json_int(big, 0, INT32_MAX, &v), "4294967303 is not an int (it used to become 7)");
    cr_assert(!pf_json_int(neg, 0, 10, &v));
    cr_assert(!pf_json_int(r, 0, 10, &v), "a real is not an integer");
    cr_assert(!pf_json_int(s, 0, 10, &v));
    cr_assert(!pf_json_int(NULL, 0, 10, &v));
    cr_assert_eq(v, 7, "*out changed on failure");
    cr_assert(pf_json_int(big, 0, INT64_MAX, &v));
    cr_assert_eq(v, 4294967303L);
    cr_assert(pf_json_int(neg, -1, 10, &v));
    cr_assert_eq(v, -1);
    json_decref(big);
    json_decref(neg);
    json_decref(r);
    json_decref(s);
}
