/*
 * test_h5.c — the HDF5 writer (src/io/h5.h).
 *
 * Files are written into a fresh mkdtemp() folder and read back with the
 * plain HDF5 C API, never with our own code, so the tests check what an
 * h5dump or h5py user sees: shapes, stored types, values and attributes.
 * Atomicity is checked by listing the folder: nothing at the final path
 * before the close or after a failure, and no temp file left behind.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <hdf5.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/real.h"
#include "core/sha256.h"
#include "core/status.h"
#include "io/h5.h"

/* ---------------------------------------------------------------- helpers --- */

static char dir[64];
static char path[128];

/* A fresh empty folder; path = <folder>/out.h5. */
static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/pf_test_h5_XXXXXX");
    cr_assert_not_null(mkdtemp(dir), "mkdtemp failed");
    snprintf(path, sizeof path, "%s/out.h5", dir);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

static void teardown(void)
{
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    char p[512];
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            unlink(p);
        }
    closedir(d);
    rmdir(dir);
}

TestSuite(h5, .init = setup, .fini = teardown);

/* Names in the test folder, sorted into one comma-separated string. */
static void list_dir(char *buf, size_t cap)
{
    struct dirent **names;
    int n = scandir(dir, &names, NULL, alphasort);
    cr_assert_geq(n, 0, "cannot list %s", dir);
    size_t len = 0;
    buf[0] = 0;
    for (int i = 0; i < n; i++) {
        if (strcmp(names[i]->d_name, ".") && strcmp(names[i]->d_name, ".."))
            len += (size_t)snprintf(buf + len, cap - len, "%s%s", len ? "," : "", names[i]->d_name);
        free(names[i]);
    }
    free(names);
}

static bool exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

static pf_h5 *must_create(void)
{
    pf_h5 *f = NULL;
    cr_assert_eq(pf_h5_create(path, &f), PF_OK, "%s", pf_errmsg());
    cr_assert_not_null(f);
    return f;
}

#define OK(call) cr_assert_eq((call), PF_OK, "%s: %s", #call, pf_errmsg())

static hid_t open_file(void)
{
    hid_t fid = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    cr_assert_geq(fid, 0, "H5Fopen('%s') failed", path);
    return fid;
}

/* Dataset `name`: its rank and dims (up to 2), stored type class and size. */
static hid_t open_dataset(hid_t fid, const char *name, int rank, const hsize_t *dims,
                          H5T_class_t cls, size_t size)
{
    hid_t d = H5Dopen2(fid, name, H5P_DEFAULT);
    cr_assert_geq(d, 0, "dataset %s is missing", name);
    hid_t s = H5Dget_space(d), t = H5Dget_type(d);
    hsize_t got[2] = {0, 0};
    cr_assert_eq(H5Sget_simple_extent_ndims(s), rank, "%s: rank", name);
    H5Sget_simple_extent_dims(s, got, NULL);
    for (int k = 0; k < rank; k++)
        cr_assert_eq(got[k], dims[k], "%s: dim %d is %llu, expected %llu", name, k,
                     (unsigned long long)got[k], (unsigned long long)dims[k]);
    cr_assert_eq(H5Tget_class(t), cls, "%s: type class", name);
    cr_assert_eq(H5Tget_size(t), size, "%s: stored as %zu bytes, expected %zu", name,
                 H5Tget_size(t), size);
    cr_assert_eq(H5Tget_order(t), H5T_ORDER_LE, "%s: little endian", name);
    H5Tclose(t);
    H5Sclose(s);
    return d;
}

/* String attribute `key` of `obj`, copied into buf: a fixed-length UTF-8
 * string of strlen + 1 bytes, NUL-terminated (never a variable-length one,
 * whose bytes would be in the global heap). */
static void read_str_attr(hid_t fid, const char *obj, const char *key, char *buf, size_t cap)
{
    hid_t a = H5Aopen_by_name(fid, obj, key, H5P_DEFAULT, H5P_DEFAULT);
    cr_assert_geq(a, 0, "attribute %s of %s is missing", key, obj);
    hid_t ft = H5Aget_type(a);
    cr_assert_eq(H5Tget_class(ft), H5T_STRING, "%s.%s is not a string", obj, key);
    cr_assert_eq(H5Tis_variable_str(ft), 0, "%s.%s: a fixed-length string", obj, key);
    cr_assert_eq(H5Tget_cset(ft), H5T_CSET_UTF8, "%s.%s: UTF-8", obj, key);
    cr_assert_eq(H5Tget_strpad(ft), H5T_STR_NULLTERM, "%s.%s: NUL-terminated", obj, key);
    size_t n = H5Tget_size(ft);
    char *s = calloc(n + 1, 1);
    cr_assert_not_null(s);
    cr_assert_geq(H5Aread(a, ft, s), 0, "reading %s.%s", obj, key);
    cr_assert_eq(n, strlen(s) + 1, "%s.%s: %zu bytes for \"%s\"", obj, key, n, s);
    snprintf(buf, cap, "%s", s);
    free(s);
    H5Tclose(ft);
    H5Aclose(a);
}

/* Numeric attribute `key` of `obj`: stored class and size, value read as mem_type. */
static void read_num_attr(hid_t fid, const char *obj, const char *key, H5T_class_t cls,
                          size_t size, hid_t mem_type, void *out)
{
    hid_t a = H5Aopen_by_name(fid, obj, key, H5P_DEFAULT, H5P_DEFAULT);
    cr_assert_geq(a, 0, "attribute %s of %s is missing", key, obj);
    hid_t ft = H5Aget_type(a), sp = H5Aget_space(a);
    cr_assert_eq(H5Tget_class(ft), cls, "%s.%s: type class", obj, key);
    cr_assert_eq(H5Tget_size(ft), size, "%s.%s: size", obj, key);
    cr_assert_eq(H5Sget_simple_extent_type(sp), H5S_SCALAR, "%s.%s: a scalar", obj, key);
    cr_assert_geq(H5Aread(a, mem_type, out), 0, "reading %s.%s", obj, key);
    H5Sclose(sp);
    H5Tclose(ft);
    H5Aclose(a);
}

/* ------------------------------------------------------------- round trip --- */

Test(h5, datasets_round_trip)
{
    /* values that are exact in float, so both builds compare with == */
    const pf_real x[3 * 2] = {1.5f, -2.25f, 0.0f, 1e-3f, 3e5f, -0.125f};
    const double v[4] = {0.1, -1e300, 3.0, 2.5e-310};
    const int ids[5] = {0, -7, 2147483647, -2147483647 - 1, 42};

    pf_h5 *f = must_create();
    OK(pf_h5_write_real(f, "/x", x, 3, 2));
    OK(pf_h5_write_f64(f, "/curves/loss", v, 4));  /* parent created on the way */
    OK(pf_h5_write_int(f, "/a/b/part", ids, 5));   /* two levels of parents */
    OK(pf_h5_write_real(f, "/empty", NULL, 0, 3)); /* zero rows keep their width */
    OK(pf_h5_write_int(f, "/none", NULL, 0));
    OK(pf_h5_close(f));

    hid_t fid = open_file();
    pf_real rx[6] = {0};
    hid_t d = open_dataset(fid, "/x", 2, (hsize_t[]){3, 2}, H5T_FLOAT, sizeof(pf_real));
    cr_assert_geq(H5Dread(d, sizeof(pf_real) == 4 ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE,
                          H5S_ALL, H5S_ALL, H5P_DEFAULT, rx), 0);
    for (int i = 0; i < 6; i++) cr_assert_eq(rx[i], x[i], "x[%d]: %g != %g", i, rx[i], x[i]);
    H5Dclose(d);

    double rv[4] = {0};
    d = open_dataset(fid, "/curves/loss", 1, (hsize_t[]){4}, H5T_FLOAT, 8);
    cr_assert_geq(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, rv), 0);
    for (int i = 0; i < 4; i++) cr_assert_eq(rv[i], v[i], "loss[%d]", i);
    H5Dclose(d);

    int ri[5] = {0};
    d = open_dataset(fid, "/a/b/part", 1, (hsize_t[]){5}, H5T_INTEGER, 4);
    cr_assert_geq(H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, ri), 0);
    for (int i = 0; i < 5; i++) cr_assert_eq(ri[i], ids[i], "part[%d]", i);
    H5Dclose(d);

    H5Dclose(open_dataset(fid, "/empty", 2, (hsize_t[]){0, 3}, H5T_FLOAT, sizeof(pf_real)));
    H5Dclose(open_dataset(fid, "/none", 1, (hsize_t[]){0}, H5T_INTEGER, 4));
    H5Fclose(fid);
}

Test(h5, attributes_round_trip)
{
    const pf_real x[2] = {1, 2};
    pf_h5 *f = must_create();
    OK(pf_h5_group(f, "/g/h"));
    OK(pf_h5_write_real(f, "/g/h/x", x, 1, 2));
    OK(pf_h5_attr_str(f, "/", "format", "pinnforge.test"));
    OK(pf_h5_attr_i64(f, "/", "version", -3));
    OK(pf_h5_attr_u64(f, "/g", "seed", UINT64_C(18446744073709551557)));
    OK(pf_h5_attr_f64(f, "/g/h", "sigma", 0.1));
    OK(pf_h5_attr_str(f, "/g/h/x", "columns", "x,y,t"));
    OK(pf_h5_attr_str(f, "/g/h/x", "note", ""));
    OK(pf_h5_attr_str(f, "/g/h/x", "unit", "métres")); /* UTF-8 bytes kept */
    OK(pf_h5_attr_str(f, "/", "format", "pinnforge.samples")); /* replaces */
    OK(pf_h5_close(f));

    hid_t fid = open_file();
    char s[64];
    read_str_attr(fid, "/", "format", s, sizeof s);
    cr_assert_str_eq(s, "pinnforge.samples");
    read_str_attr(fid, "/g/h/x", "columns", s, sizeof s);
    cr_assert_str_eq(s, "x,y,t");
    read_str_attr(fid, "/g/h/x", "note", s, sizeof s);
    cr_assert_str_eq(s, "");
    read_str_attr(fid, "/g/h/x", "unit", s, sizeof s);
    cr_assert_str_eq(s, "métres");

    int64_t i64 = 0;
    read_num_attr(fid, "/", "version", H5T_INTEGER, 8, H5T_NATIVE_INT64, &i64);
    cr_assert_eq(i64, -3);
    uint64_t u64 = 0;
    read_num_attr(fid, "/g", "seed", H5T_INTEGER, 8, H5T_NATIVE_UINT64, &u64);
    cr_assert_eq(u64, UINT64_C(18446744073709551557));
    double f64 = 0;
    read_num_attr(fid, "/g/h", "sigma", H5T_FLOAT, 8, H5T_NATIVE_DOUBLE, &f64);
    cr_assert_eq(f64, 0.1);

    /* the root holds exactly one "format" after the replacement, plus "version" */
    H5O_info_t info;
    cr_assert_geq(H5Oget_info_by_name(fid, "/", &info, H5P_DEFAULT), 0);
    cr_assert_eq(info.num_attrs, 2, "root has %llu attributes",
                 (unsigned long long)info.num_attrs);
    hid_t a = H5Aopen_by_name(fid, "/g", "seed", H5P_DEFAULT, H5P_DEFAULT);
    hid_t t = H5Aget_type(a);
    cr_assert_eq(H5Tget_sign(t), H5T_SGN_NONE, "seed is unsigned");
    H5Tclose(t);
    H5Aclose(a);
    H5Fclose(fid);
}

/* ---------------------------------------------------------------- atomicity --- */

Test(h5, nothing_at_path_until_close)
{
    const int v[3] = {1, 2, 3};
    pf_h5 *f = must_create();
    OK(pf_h5_write_int(f, "/v", v, 3));
    char tmp[160], names[512];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    cr_assert(!exists(path), "'%s' exists before the close", path);
    cr_assert(exists(tmp), "the writes go to '%s'", tmp);
    cr_assert_str_eq(pf_h5_path(f), path);
    OK(pf_h5_close(f));
    list_dir(names, sizeof names);
    cr_assert_str_eq(names, "out.h5", "folder holds '%s'", names);
}

Test(h5, failed_write_leaves_nothing)
{
    const int v[3] = {1, 2, 3};
    char names[512];
    pf_h5 *f = must_create();
    OK(pf_h5_write_int(f, "/v", v, 3));
    cr_assert_eq(pf_h5_write_int(f, "/v", v, 3), PF_ERR_IO, "a second '/v' must fail");
    char first[1024];
    snprintf(first, sizeof first, "%s", pf_errmsg());
    /* the handle is spent: later calls repeat the first failure */
    cr_assert_eq(pf_h5_write_int(f, "/w", v, 3), PF_ERR_IO);
    cr_assert_str_eq(pf_errmsg(), first);
    cr_assert_eq(pf_h5_close(f), PF_ERR_IO, "close must report the failed write");
    cr_assert_str_eq(pf_errmsg(), first, "close reports the first failure");
    list_dir(names, sizeof names);
    cr_assert_str_eq(names, "", "folder holds '%s' after a failed write", names);
}

Test(h5, failure_keeps_the_old_file)
{
    const int old[2] = {5, 6}, v[1] = {9};
    pf_h5 *f = must_create();
    OK(pf_h5_write_int(f, "/old", old, 2));
    OK(pf_h5_close(f));

    f = must_create();
    OK(pf_h5_write_int(f, "/new", v, 1));
    cr_assert_eq(pf_h5_attr_str(f, "/missing", "k", "v"), PF_ERR_IO);
    cr_assert_eq(pf_h5_close(f), PF_ERR_IO);

    char names[512];
    list_dir(names, sizeof names);
    cr_assert_str_eq(names, "out.h5", "folder holds '%s'", names);
    hid_t fid = open_file();
    cr_assert_eq(H5Lexists(fid, "/new", H5P_DEFAULT), 0, "the failed file replaced the old one");
    int r[2] = {0};
    hid_t d = open_dataset(fid, "/old", 1, (hsize_t[]){2}, H5T_INTEGER, 4);
    cr_assert_geq(H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, r), 0);
    cr_assert(r[0] == 5 && r[1] == 6);
    H5Dclose(d);
    H5Fclose(fid);
}

Test(h5, discard_leaves_nothing)
{
    const pf_real x[2] = {1, 2};
    pf_h5 *f = must_create();
    OK(pf_h5_write_real(f, "/x", x, 2, 1));
    pf_h5_discard(f);
    pf_h5_discard(NULL);
    cr_assert_eq(pf_h5_close(NULL), PF_OK);
    char names[512];
    list_dir(names, sizeof names);
    cr_assert_str_eq(names, "", "folder holds '%s' after a discard", names);
}

/* ------------------------------------------------------------------ errors --- */

Test(h5, errors_name_the_object)
{
    const pf_real x[2] = {1, 2};
    pf_h5 *f = must_create();
    OK(pf_h5_write_real(f, "/g/x", x, 1, 2));
    cr_assert_eq(pf_h5_write_real(f, "/g/x", x, 1, 2), PF_ERR_IO);
    const char *m = pf_errmsg();
    cr_assert(strstr(m, "cannot create dataset '/g/x'"), "message: %s", m);
    cr_assert(strstr(m, path), "message names the file: %s", m);
    cr_assert(strstr(m, "H5Dcreate2"), "message names the call: %s", m);
    cr_assert(strstr(m, "exists"), "message gives HDF5's reason: %s", m);
    pf_h5_discard(f);

    f = must_create();
    cr_assert_eq(pf_h5_attr_i64(f, "/nowhere", "seed", 1), PF_ERR_IO);
    m = pf_errmsg();
    cr_assert(strstr(m, "'/nowhere'") && strstr(m, "'seed'"), "message: %s", m);
    pf_h5_discard(f);

    f = must_create();
    OK(pf_h5_group(f, "/g"));
    cr_assert_eq(pf_h5_group(f, "/g"), PF_ERR_IO);
    cr_assert(strstr(pf_errmsg(), "cannot create group '/g'"), "message: %s", pf_errmsg());
    pf_h5_discard(f);
}

Test(h5, create_in_a_missing_folder)
{
    char bad[192];
    snprintf(bad, sizeof bad, "%s/no/such/folder/out.h5", dir);
    pf_h5 *f = (pf_h5 *)1;
    cr_assert_eq(pf_h5_create(bad, &f), PF_ERR_IO);
    cr_assert_null(f);
    cr_assert(strstr(pf_errmsg(), bad), "message names the path: %s", pf_errmsg());
    char names[512];
    list_dir(names, sizeof names);
    cr_assert_str_eq(names, "", "folder holds '%s'", names);
}

/* ---------------------------------------------------------- reproducibility --- */

/* Writes the same small file to `p`. */
static void write_fixed(const char *p)
{
    const pf_real x[4] = {1, 2, 3, 4};
    pf_h5 *f = NULL;
    cr_assert_eq(pf_h5_create(p, &f), PF_OK, "%s", pf_errmsg());
    OK(pf_h5_attr_u64(f, "/", "seed", 7));
    OK(pf_h5_write_real(f, "/a/b/x", x, 2, 2));
    OK(pf_h5_group(f, "/c"));
    OK(pf_h5_close(f));
}

static long file_bytes(const char *p, unsigned char *buf, size_t cap)
{
    FILE *fp = fopen(p, "rb");
    cr_assert_not_null(fp, "cannot open %s", p);
    size_t n = fread(buf, 1, cap, fp);
    cr_assert(feof(fp), "%s is larger than %zu bytes", p, cap);
    fclose(fp);
    return (long)n;
}

Test(h5, no_timestamps_same_bytes)
{
    char second[160];
    snprintf(second, sizeof second, "%s/second.h5", dir);
    write_fixed(path);
    write_fixed(second);

    /* no object records a time (they would make equal content differ) */
    hid_t fid = open_file();
    static const char *const objs[] = {"/", "/a", "/a/b", "/a/b/x", "/c"};
    for (int i = 0; i < 5; i++) {
        H5O_info_t info;
        cr_assert_geq(H5Oget_info_by_name(fid, objs[i], &info, H5P_DEFAULT), 0, "%s", objs[i]);
        cr_assert(info.ctime == 0 && info.mtime == 0 && info.btime == 0,
                  "%s carries a timestamp", objs[i]);
    }
    H5Fclose(fid);

    static unsigned char a[1 << 16], b[1 << 16];
    long na = file_bytes(path, a, sizeof a), nb = file_bytes(second, b, sizeof b);
    cr_assert_eq(na, nb, "sizes %ld and %ld", na, nb);
    cr_assert(memcmp(a, b, (size_t)na) == 0, "the same writes gave different bytes");
}

/* ================================================================ reading --- */

/* Written with the writer, read back with pf_h5_read_*: every numeric type
 * arrives as double with its shape, strings as written, members sorted. */
Test(h5, read_round_trip)
{
    pf_h5 *f = must_create();
    const pf_real x[6] = {1.5f, -2, 3.25f, 4, 5, 6.125f};
    const double v[3] = {0.1, 1e-300, -7};
    const int iv[4] = {-3, 0, 7, 2147483647};
    OK(pf_h5_write_real(f, "/g/x", x, 3, 2));
    OK(pf_h5_write_f64(f, "/g/v", v, 3));
    OK(pf_h5_write_int(f, "/g/i", iv, 4));
    OK(pf_h5_write_f64(f, "/g/empty", NULL, 0));
    OK(pf_h5_group(f, "/g/sub"));
    OK(pf_h5_attr_str(f, "/", "pde", "burgers_1d"));
    OK(pf_h5_attr_str(f, "/g/v", "meaning", "MSE ü"));
    OK(pf_h5_close(f));

    double *r;
    size_t rows, cols;
    OK(pf_h5_read_f64(path, "/g/x", &r, &rows, &cols));
    cr_assert_eq(rows, 3);
    cr_assert_eq(cols, 2);
    for (int k = 0; k < 6; k++) cr_expect_eq(r[k], (double)x[k]);
    free(r);
    OK(pf_h5_read_f64(path, "/g/v", &r, &rows, &cols));
    cr_assert(rows == 3 && cols == 1);
    for (int k = 0; k < 3; k++) cr_expect_eq(r[k], v[k]);
    free(r);
    OK(pf_h5_read_f64(path, "/g/i", &r, &rows, &cols));
    cr_assert(rows == 4 && cols == 1);
    for (int k = 0; k < 4; k++) cr_expect_eq(r[k], (double)iv[k]);
    free(r);
    OK(pf_h5_read_f64(path, "/g/empty", &r, &rows, &cols));
    cr_expect(r == NULL && rows == 0 && cols == 1);

    char *s;
    OK(pf_h5_read_attr_str(path, "/", "pde", &s));
    cr_expect_str_eq(s, "burgers_1d");
    free(s);
    OK(pf_h5_read_attr_str(path, "/g/v", "meaning", &s));
    cr_expect_str_eq(s, "MSE ü");
    free(s);

    int e;
    OK(pf_h5_exists(path, "/g/x", &e));
    cr_expect_eq(e, 1);
    OK(pf_h5_exists(path, "/g/sub", &e));
    cr_expect_eq(e, 1);
    OK(pf_h5_exists(path, "/g/nope", &e));
    cr_expect_eq(e, 0);
    OK(pf_h5_exists(path, "/missing/deeper/x", &e));
    cr_expect_eq(e, 0, "a missing parent is 'absent', not an error");

    char **names;
    size_t n;
    OK(pf_h5_list(path, "/g", &names, &n));
    cr_assert_eq(n, 5);
    const char *want[5] = {"empty", "i", "sub", "v", "x"};
    for (size_t k = 0; k < n; k++) cr_expect_str_eq(names[k], want[k]);
    pf_h5_names_free(names, n);
}

Test(h5, read_errors_name_file_and_object)
{
    pf_h5 *f = must_create();
    const double v[2] = {1, 2};
    OK(pf_h5_write_f64(f, "/v", v, 2));
    OK(pf_h5_close(f));
    double *r = (double *)1;
    size_t rows = 9, cols = 9;
    cr_assert_eq(pf_h5_read_f64(path, "/nope", &r, &rows, &cols), PF_ERR_IO);
    cr_expect(strstr(pf_errmsg(), "'/nope'") && strstr(pf_errmsg(), path), "%s", pf_errmsg());
    cr_expect(r == NULL && rows == 0 && cols == 0);
    char *s;
    cr_assert_eq(pf_h5_read_attr_str(path, "/v", "units", &s), PF_ERR_IO);
    cr_expect(strstr(pf_errmsg(), "'units'") && strstr(pf_errmsg(), "'/v'"), "%s", pf_errmsg());
    char **names;
    size_t n;
    cr_assert_eq(pf_h5_list(path, "/v/w", &names, &n), PF_ERR_IO);
    cr_expect(strstr(pf_errmsg(), "'/v/w'") != NULL, "%s", pf_errmsg());

    char missing[160];
    snprintf(missing, sizeof missing, "%s/absent.h5", dir);
    int e = 1;
    cr_assert_eq(pf_h5_exists(missing, "/v", &e), PF_ERR_IO);
    cr_expect(strstr(pf_errmsg(), "absent.h5") != NULL, "%s", pf_errmsg());
    cr_expect_eq(e, 0);
    /* a file that is not HDF5 */
    FILE *t = fopen(missing, "w");
    fputs("not hdf5\n", t);
    fclose(t);
    cr_assert_eq(pf_h5_read_f64(missing, "/v", &r, &rows, &cols), PF_ERR_IO);
    cr_expect(strstr(pf_errmsg(), "cannot open") != NULL, "%s", pf_errmsg());
    cr_log_info("%s", pf_errmsg());
}

/* A string attribute holding an array is refused, not read past its buffer. */
Test(h5, read_attr_str_refuses_an_array)
{
    hid_t fid = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    cr_assert_geq(fid, 0, "H5Fcreate('%s') failed", path);
    hsize_t two = 2;
    hid_t space = H5Screate_simple(1, &two, NULL);
    cr_assert_geq(space, 0);
    /* variable-length strings */
    hid_t vt = H5Tcopy(H5T_C_S1);
    cr_assert_geq(H5Tset_size(vt, H5T_VARIABLE), 0);
    hid_t a = H5Acreate2(fid, "vlen", vt, space, H5P_DEFAULT, H5P_DEFAULT);
    cr_assert_geq(a, 0);
    const char *vs[2] = {"first", "second"};
    cr_assert_geq(H5Awrite(a, vt, vs), 0);
    H5Aclose(a);
    H5Tclose(vt);
    /* fixed-size strings */
    hid_t ft = H5Tcopy(H5T_C_S1);
    cr_assert_geq(H5Tset_size(ft, 4), 0);
    a = H5Acreate2(fid, "fixed", ft, space, H5P_DEFAULT, H5P_DEFAULT);
    cr_assert_geq(a, 0);
    cr_assert_geq(H5Awrite(a, ft, "abcdefgh"), 0);
    H5Aclose(a);
    H5Tclose(ft);
    H5Sclose(space);
    cr_assert_geq(H5Fclose(fid), 0);

    const char *keys[2] = {"vlen", "fixed"};
    for (int k = 0; k < 2; k++) {
        char *s = (char *)1;
        cr_assert_eq(pf_h5_read_attr_str(path, "/", keys[k], &s), PF_ERR_IO, "%s: %s", keys[k],
                     pf_errmsg());
        cr_expect(strstr(pf_errmsg(), "is not a single string") && strstr(pf_errmsg(), keys[k]) &&
                      strstr(pf_errmsg(), path),
                  "%s", pf_errmsg());
        cr_expect(s == NULL);
    }
}

/* ================================================================ checksum --- */

/* The whole of file p into a malloc'ed buffer (*len bytes). */
static unsigned char *slurp(const char *p, size_t *len)
{
    FILE *fp = fopen(p, "rb");
    cr_assert_not_null(fp, "cannot open %s", p);
    cr_assert_eq(fseek(fp, 0, SEEK_END), 0);
    long n = ftell(fp);
    cr_assert_geq(n, 0);
    rewind(fp);
    unsigned char *b = malloc((size_t)n + 1);
    cr_assert_not_null(b);
    cr_assert_eq(fread(b, 1, (size_t)n, fp), (size_t)n, "short read of %s", p);
    fclose(fp);
    *len = (size_t)n;
    return b;
}

static void spill(const char *p, const unsigned char *b, size_t len)
{
    FILE *fp = fopen(p, "wb");
    cr_assert_not_null(fp, "cannot write %s", p);
    cr_assert_eq(fwrite(b, 1, len, fp), len);
    cr_assert_eq(fclose(fp), 0);
}

/* A small file of ours with one of everything a reader reads. */
static void write_small(const char *p)
{
    const pf_real x[6] = {1, 2, 3, 4, 5, 6};
    const double v[3] = {0.5, 1.5, 2.5};
    pf_h5 *f = NULL;
    cr_assert_eq(pf_h5_create(p, &f), PF_OK, "%s", pf_errmsg());
    OK(pf_h5_attr_str(f, "/", "format", "pinnforge.test"));
    OK(pf_h5_attr_i64(f, "/", "version", 1));
    OK(pf_h5_write_real(f, "/g/x", x, 3, 2));
    OK(pf_h5_write_f64(f, "/g/v", v, 3));
    OK(pf_h5_close(f));
}

/* Every reader on p: each must refuse it with PF_ERR_IO, a message naming
 * p and containing `why`, and empty outputs. */
static void all_readers_refuse(const char *p, const char *why, const char *ctx)
{
    double *r = (double *)1;
    size_t rows = 9, cols = 9;
    char *s = (char *)1;
    int64_t i = 9;
    int e = 1;
    char **names = (char **)1;
    size_t n = 9;
    cr_assert_eq(pf_h5_verify(p), PF_ERR_IO, "%s: verify", ctx);
    cr_assert(strstr(pf_errmsg(), p) && strstr(pf_errmsg(), why), "%s: %s", ctx, pf_errmsg());
    cr_assert_eq(pf_h5_read_f64(p, "/g/v", &r, &rows, &cols), PF_ERR_IO, "%s: read_f64", ctx);
    cr_assert(strstr(pf_errmsg(), p) && strstr(pf_errmsg(), why), "%s: %s", ctx, pf_errmsg());
    cr_assert(r == NULL && rows == 0 && cols == 0, "%s", ctx);
    cr_assert_eq(pf_h5_read_attr_str(p, "/", "format", &s), PF_ERR_IO, "%s: read_attr_str", ctx);
    cr_assert(strstr(pf_errmsg(), why) && s == NULL, "%s: %s", ctx, pf_errmsg());
    cr_assert_eq(pf_h5_read_attr_i64(p, "/", "version", &i), PF_ERR_IO, "%s: read_attr_i64", ctx);
    cr_assert(strstr(pf_errmsg(), why) && i == 0, "%s: %s", ctx, pf_errmsg());
    cr_assert_eq(pf_h5_exists(p, "/g/x", &e), PF_ERR_IO, "%s: exists", ctx);
    cr_assert(strstr(pf_errmsg(), why) && e == 0, "%s: %s", ctx, pf_errmsg());
    cr_assert_eq(pf_h5_list(p, "/g", &names, &n), PF_ERR_IO, "%s: list", ctx);
    cr_assert(strstr(pf_errmsg(), why) && names == NULL && n == 0, "%s: %s", ctx, pf_errmsg());
}

/* The user block holds exactly the documented header, and its digest is the
 * SHA-256 of the rest of the file (recomputed here with libcrypto's one-shot
 * call, not the reader's streaming one). HDF5 itself still opens the file. */
Test(h5, the_header_is_the_checksum_of_the_rest)
{
    write_small(path);
    size_t len;
    unsigned char *b = slurp(path, &len);
    const size_t m = strlen(PF_H5_MAGIC);
    cr_assert_gt(len, PF_H5_USERBLOCK + 8);
    cr_assert(memcmp(b, "PINNFORGE-H5 1 sha256 ", m) == 0, "the magic: %.22s", (char *)b);
    char hex[PF_SHA256_HEX];
    cr_assert_eq(pf_sha256_hex(b + PF_H5_USERBLOCK, len - PF_H5_USERBLOCK, hex), PF_OK);
    cr_assert(memcmp(b + m, hex, 64) == 0, "the digest: %.64s, expected %s", (char *)b + m, hex);
    cr_assert_eq(b[m + 64], '\n');
    for (size_t k = m + 65; k < PF_H5_USERBLOCK; k++) cr_assert_eq(b[k], 0, "byte %zu is not 0", k);
    cr_assert(memcmp(b + PF_H5_USERBLOCK, "\x89HDF\r\n\x1a\n", 8) == 0, "HDF5's signature at 512");
    free(b);

    OK(pf_h5_verify(path));
    hid_t fid = open_file(); /* plain HDF5, as h5dump and h5py */
    hid_t d = H5Dopen2(fid, "/g/v", H5P_DEFAULT);
    cr_assert_geq(d, 0, "HDF5 opens /g/v");
    double v[3];
    cr_assert_geq(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v), 0);
    cr_expect(v[0] == 0.5 && v[2] == 2.5);
    H5Dclose(d);
    H5Fclose(fid);
}

/* One byte changed anywhere, in the header or in HDF5's part, and no reader
 * reaches HDF5: every position of a small file is tried. */
Test(h5, every_changed_byte_is_refused)
{
    write_small(path);
    size_t len;
    unsigned char *b = slurp(path, &len);
    char bad[160];
    snprintf(bad, sizeof bad, "%s/bad.h5", dir);
    size_t damaged = 0, mismatched = 0;
    for (size_t k = 0; k < len; k++) {
        b[k] ^= 0xFB;
        spill(bad, b, len);
        cr_assert_eq(pf_h5_verify_bytes(bad, b, len), PF_ERR_IO, "byte %zu", k);
        char ctx[64];
        snprintf(ctx, sizeof ctx, "byte %zu of %zu", k, len);
        all_readers_refuse(bad, "is corrupt", ctx);
        if (strstr(pf_errmsg(), "header is damaged")) damaged++;
        else if (strstr(pf_errmsg(), "checksum does not match")) mismatched++;
        b[k] ^= 0xFB;
    }
    cr_log_info("%zu bytes changed one at a time: %zu damaged headers, %zu checksum mismatches", len,
                damaged, mismatched);
    /* the header line's digits may turn into other digits: a mismatch */
    cr_expect_geq(damaged, PF_H5_USERBLOCK - 64, "the user block's bytes are the header's");
    cr_expect_geq(mismatched, len - PF_H5_USERBLOCK, "HDF5's bytes are the digest's");
    cr_expect_eq(damaged + mismatched, len);
    free(b);
}

/* What the checks say about other damage: a cut file, a header cut short,
 * a file that is not HDF5 at all, an empty one. */
Test(h5, short_and_foreign_bytes_are_refused)
{
    write_small(path);
    size_t len;
    unsigned char *b = slurp(path, &len);
    char bad[160];
    snprintf(bad, sizeof bad, "%s/bad.h5", dir);
    spill(bad, b, len - 1);
    all_readers_refuse(bad, "checksum does not match", "the last byte cut");
    spill(bad, b, 100);
    all_readers_refuse(bad, "header is damaged", "cut inside the header");
    spill(bad, b, PF_H5_USERBLOCK);
    all_readers_refuse(bad, "checksum does not match", "only the header");
    spill(bad, (const unsigned char *)"not hdf5\n", 9);
    all_readers_refuse(bad, "not an HDF5 file", "text");
    spill(bad, b, 0);
    all_readers_refuse(bad, "not an HDF5 file", "empty");
    free(b);
}

/* The header is made from the bytes: equal content, equal files, header
 * included (see also no_timestamps_same_bytes). Another content, another
 * digest. */
Test(h5, the_header_is_deterministic)
{
    char second[160], third[160];
    snprintf(second, sizeof second, "%s/second.h5", dir);
    snprintf(third, sizeof third, "%s/third.h5", dir);
    write_small(path);
    write_small(second);
    size_t na, nb, nc;
    unsigned char *a = slurp(path, &na), *b = slurp(second, &nb);
    cr_assert(na == nb && memcmp(a, b, na) == 0, "the same writes gave different bytes");
    pf_h5 *f = NULL;
    cr_assert_eq(pf_h5_create(third, &f), PF_OK, "%s", pf_errmsg());
    OK(pf_h5_attr_str(f, "/", "format", "pinnforge.other"));
    OK(pf_h5_close(f));
    unsigned char *c = slurp(third, &nc);
    cr_assert(memcmp(a, c, strlen(PF_H5_MAGIC)) == 0);
    cr_assert(memcmp(a, c, strlen(PF_H5_MAGIC) + 64) != 0, "another content, the same digest");
    free(a), free(b), free(c);
}

/* A file written with the plain HDF5 API (no user block, as other tools
 * write them) is read as before; one with a user block of its own is not
 * ours and is refused, unopened. */
Test(h5, foreign_files)
{
    hid_t fid = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    cr_assert_geq(fid, 0, "H5Fcreate('%s') failed", path);
    hsize_t dims[2] = {2, 3};
    hid_t sp = H5Screate_simple(2, dims, NULL);
    hid_t d = H5Dcreate2(fid, "/m", H5T_IEEE_F64LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    cr_assert_geq(d, 0);
    const double m[6] = {1, 2, 3, 4, 5, 6};
    cr_assert_geq(H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, m), 0);
    H5Dclose(d);
    H5Sclose(sp);
    hid_t as = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(fid, "version", H5T_STD_I32LE, as, H5P_DEFAULT, H5P_DEFAULT);
    const int one = 1;
    cr_assert_geq(H5Awrite(a, H5T_NATIVE_INT, &one), 0);
    H5Aclose(a);
    H5Sclose(as);
    cr_assert_geq(H5Fclose(fid), 0);

    OK(pf_h5_verify(path));
    double *r;
    size_t rows, cols;
    OK(pf_h5_read_f64(path, "/m", &r, &rows, &cols));
    cr_assert(rows == 2 && cols == 3 && r[5] == 6);
    free(r);
    int64_t v;
    OK(pf_h5_read_attr_i64(path, "/", "version", &v));
    cr_expect_eq(v, 1);
    int e;
    OK(pf_h5_exists(path, "/m", &e));
    cr_expect_eq(e, 1);

    /* a user block that is not our header */
    char other[160];
    snprintf(other, sizeof other, "%s/other.h5", dir);
    hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
    cr_assert_geq(H5Pset_userblock(fcpl, 512), 0);
    fid = H5Fcreate(other, H5F_ACC_TRUNC, fcpl, H5P_DEFAULT);
    cr_assert_geq(fid, 0);
    H5Pclose(fcpl);
    cr_assert_geq(H5Gclose(H5Gcreate2(fid, "/g", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)), 0);
    cr_assert_geq(H5Fclose(fid), 0);
    cr_assert_eq(pf_h5_exists(other, "/g", &e), PF_ERR_IO);
    cr_expect(strstr(pf_errmsg(), "header is damaged") && strstr(pf_errmsg(), other), "%s",
              pf_errmsg());
}

/* A dataset of rank 3 is refused by name, not read into a 2-D buffer. */
Test(h5, read_f64_refuses_rank_3)
{
    hid_t fid = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    cr_assert_geq(fid, 0);
    hsize_t dims[3] = {2, 2, 2};
    hid_t sp = H5Screate_simple(3, dims, NULL);
    hid_t d = H5Dcreate2(fid, "/cube", H5T_IEEE_F64LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    cr_assert_geq(d, 0);
    H5Dclose(d);
    H5Sclose(sp);
    cr_assert_geq(H5Fclose(fid), 0);
    double *r = (double *)1;
    size_t rows = 9, cols = 9;
    cr_assert_eq(pf_h5_read_f64(path, "/cube", &r, &rows, &cols), PF_ERR_IO);
    cr_expect(strstr(pf_errmsg(), "'/cube'") && strstr(pf_errmsg(), path) && strstr(pf_errmsg(), "rank 3"),
              "%s", pf_errmsg());
    cr_expect(r == NULL && rows == 0 && cols == 0);
}

/* ========================================================== string limit --- */

/* A string longer than an attribute's header message can hold is refused by
 * name (HDF5 1.10 would fail without saying why), and spends the handle. */
Test(h5, a_string_attribute_too_long_is_refused)
{
    char *big = malloc(PF_H5_ATTR_STR_MAX + 2);
    cr_assert_not_null(big);
    memset(big, 'a', PF_H5_ATTR_STR_MAX);
    big[PF_H5_ATTR_STR_MAX] = 0;
    pf_h5 *f = must_create();
    OK(pf_h5_attr_str(f, "/", "longest", big)); /* the limit itself fits */
    big[PF_H5_ATTR_STR_MAX] = 'a';
    big[PF_H5_ATTR_STR_MAX + 1] = 0;
    cr_assert_eq(pf_h5_attr_str(f, "/", "spec", big), PF_ERR_IO);
    cr_expect(strstr(pf_errmsg(), "'spec'") && strstr(pf_errmsg(), path) && strstr(pf_errmsg(), "60001 bytes"),
              "%s", pf_errmsg());
    cr_assert_eq(pf_h5_close(f), PF_ERR_IO, "the close reports the refusal");
    char names[512];
    list_dir(names, sizeof names);
    cr_assert_str_eq(names, "", "folder holds '%s'", names);
    free(big);
}

/* ============================================================ full disk --- */

/* A file of about 60 KB, written through the handle and closed: a small
 * result.h5's kinds of objects. */
static pf_status write_60k(const char *p)
{
    static double v[1000];
    for (int i = 0; i < 1000; i++) v[i] = i * 0.5;
    pf_h5 *f = NULL;
    PF_TRY(pf_h5_create(p, &f));
    pf_h5_attr_str(f, "/", "format", "pinnforge.test");
    pf_h5_attr_i64(f, "/", "version", 1);
    for (int k = 0; k < 7; k++) {
        char name[32];
        snprintf(name, sizeof name, "/g%d/v", k % 3);
        snprintf(name + strlen(name), sizeof name - strlen(name), "%d", k);
        pf_h5_write_f64(f, name, v, 1000);
        pf_h5_attr_str(f, name, "meaning", "a curve");
    }
    return pf_h5_close(f);
}

/* A disk that fills up while a file is written: the writer reports it,
 * removes its temp file and exits normally, at every size tried. Writes past
 * RLIMIT_FSIZE fail (EFBIG) as on a full disk (ENOSPC), without root. Each
 * size runs in a child that then shuts HDF5 down (H5close, what its exit
 * handler does): HDF5 1.10 crashed there (H5F__close_cb) after a failed
 * close of a file it could not flush. t0400 does the same with pf-train on
 * a tmpfs. */
Test(h5, a_full_disk_is_an_error_not_a_crash)
{
    static const rlim_t limits[] = {0, 512, 2048, 4096, 8192, 16384, 24576, 32768, 45056, 57344};
    for (size_t k = 0; k < sizeof limits / sizeof limits[0]; k++) {
        fflush(NULL);
        pid_t pid = fork();
        cr_assert_geq(pid, 0, "fork: %s", strerror(errno));
        if (pid == 0) {
            signal(SIGXFSZ, SIG_IGN);
            struct rlimit rl = {limits[k], limits[k]};
            int code = setrlimit(RLIMIT_FSIZE, &rl) == 0 ? 0 : 10;
            pf_status st = code ? PF_OK : write_60k(path);
            if (!code && st != PF_ERR_IO) code = 11;
            if (!code && !(strstr(pf_errmsg(), path) && strstr(pf_errmsg(), strerror(EFBIG)))) code = 12;
            char tmp[192];
            snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
            if (!code && (exists(tmp) || exists(path))) code = 13;
            if (code) fprintf(stderr, "limit %lu: status %d: %s\n", (unsigned long)limits[k], (int)st, pf_errmsg());
            H5close();
            _exit(code);
        }
        int ws = 0;
        cr_assert_eq(waitpid(pid, &ws, 0), pid);
        cr_assert(!WIFSIGNALED(ws), "file size limit %lu bytes: the writer died by signal %d (%s)",
                  (unsigned long)limits[k], WTERMSIG(ws), strsignal(WTERMSIG(ws)));
        cr_assert(WIFEXITED(ws) && WEXITSTATUS(ws) == 0,
                  "file size limit %lu bytes: exit %d (10 setrlimit, 11 no I/O error, 12 the message "
                  "names no file or reason, 13 a file left)",
                  (unsigned long)limits[k], WEXITSTATUS(ws));
    }
    OK(write_60k(path)); /* no limit: written */
    struct stat sb;
    cr_assert_eq(stat(path, &sb), 0);
    cr_assert_gt(sb.st_size, 57344, "the file (%lld bytes) exceeds every limit tried", (long long)sb.st_size);
    char names[512];
    list_dir(names, sizeof names);
    cr_assert_str_eq(names, "out.h5", "folder holds '%s'", names);
}

/* ================================================ hostile and old files --- */

/* Writes our header into the user block of p: the digest of bytes 512.. */
static void seal(const char *p)
{
    size_t len;
    unsigned char *b = slurp(p, &len);
    cr_assert_gt(len, PF_H5_USERBLOCK);
    char hex[PF_SHA256_HEX];
    cr_assert_eq(pf_sha256_hex(b + PF_H5_USERBLOCK, len - PF_H5_USERBLOCK, hex), PF_OK);
    memset(b, 0, PF_H5_USERBLOCK);
    snprintf((char *)b, PF_H5_USERBLOCK, "%s%s\n", PF_H5_MAGIC, hex);
    spill(p, b, len);
    free(b);
}

/* A file as our writer made them before fixed-length strings (or as another
 * tool writes one, userblock 0): variable-length UTF-8 string attributes
 * (in the global heap) "format" on the root and "meaning" on /g/v, and the
 * dataset /g/v. */
static void write_vlen_file(const char *p, hsize_t userblock)
{
    hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
    if (userblock) cr_assert_geq(H5Pset_userblock(fcpl, userblock), 0);
    hid_t fid = H5Fcreate(p, H5F_ACC_TRUNC, fcpl, H5P_DEFAULT);
    cr_assert_geq(fid, 0, "H5Fcreate('%s') failed", p);
    H5Pclose(fcpl);
    hid_t g = H5Gcreate2(fid, "/g", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hsize_t three = 3;
    hid_t sp = H5Screate_simple(1, &three, NULL);
    hid_t d = H5Dcreate2(fid, "/g/v", H5T_IEEE_F64LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    const double v[3] = {0.5, 1.5, 2.5};
    cr_assert_geq(H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v), 0);
    hid_t vt = H5Tcopy(H5T_C_S1);
    H5Tset_size(vt, H5T_VARIABLE);
    H5Tset_cset(vt, H5T_CSET_UTF8);
    hid_t as = H5Screate(H5S_SCALAR);
    const char *format = "pinnforge.test", *meaning = "a variable-length string";
    hid_t a = H5Acreate2(fid, "format", vt, as, H5P_DEFAULT, H5P_DEFAULT);
    cr_assert_geq(H5Awrite(a, vt, &format), 0);
    H5Aclose(a);
    a = H5Acreate2(d, "meaning", vt, as, H5P_DEFAULT, H5P_DEFAULT);
    cr_assert_geq(H5Awrite(a, vt, &meaning), 0);
    H5Aclose(a);
    H5Sclose(as);
    H5Tclose(vt);
    H5Dclose(d);
    H5Sclose(sp);
    H5Gclose(g);
    cr_assert_geq(H5Fclose(fid), 0);
    if (userblock) seal(p);
}

/* The first object of p's global heap claims 2^44 bytes (a byte changed in
 * its size), the checksum recomputed when the file has our header: HDF5
 * 1.10 copies that many bytes into a string's buffer (H5HG_read). */
static void damage_heap(const char *p, bool ours)
{
    size_t len;
    unsigned char *b = slurp(p, &len);
    unsigned char *gcol = NULL;
    for (size_t k = 0; !gcol && k + 4 <= len; k++)
        if (!memcmp(b + k, "GCOL", 4)) gcol = b + k;
    cr_assert_not_null(gcol, "no global heap in %s", p);
    cr_assert_lt((size_t)(gcol - b) + 32, len);
    gcol[16 + 8 + 5] = 0x10; /* object 1: index, refs, reserved, then its size */
    spill(p, b, len);
    free(b);
    if (ours) seal(p);
}

/* Our files written before strings were fixed-length hold variable-length
 * ones: they are still read (in a child process), and the file's numbers
 * as before. */
Test(h5, variable_length_strings_of_old_files_are_read)
{
    write_vlen_file(path, PF_H5_USERBLOCK);
    OK(pf_h5_verify(path));
    char *s;
    OK(pf_h5_read_attr_str(path, "/", "format", &s));
    cr_expect_str_eq(s, "pinnforge.test");
    free(s);
    OK(pf_h5_read_attr_str(path, "/g/v", "meaning", &s));
    cr_expect_str_eq(s, "a variable-length string");
    free(s);
    double *r;
    size_t rows, cols;
    OK(pf_h5_read_f64(path, "/g/v", &r, &rows, &cols));
    cr_expect(rows == 3 && cols == 1 && r[2] == 2.5);
    free(r);
}

/* A file of ours with a byte changed and its checksum recomputed: the
 * checksum passes, and HDF5 would follow the damaged heap. The string's
 * read crashes in a child process, and is an error here naming the file
 * and the attribute; what needs no heap still reads. */
Test(h5, a_damaged_global_heap_with_its_checksum_recomputed_is_an_error)
{
    write_vlen_file(path, PF_H5_USERBLOCK);
    damage_heap(path, true);
    OK(pf_h5_verify(path));
    char *s = (char *)1;
    cr_assert_eq(pf_h5_read_attr_str(path, "/", "format", &s), PF_ERR_IO);
    cr_expect(strstr(pf_errmsg(), path) && strstr(pf_errmsg(), "is damaged") &&
                  strstr(pf_errmsg(), "attribute 'format' of '/'"),
              "%s", pf_errmsg());
    cr_expect(s == NULL);
    cr_log_info("%s", pf_errmsg());
    double *r;
    size_t rows, cols;
    OK(pf_h5_read_f64(path, "/g/v", &r, &rows, &cols));
    cr_expect(rows == 3 && r[0] == 0.5);
    free(r);
}

/* Another tool's file (no header to check) is read in a child process,
 * whole: intact it reads as before; damaged, HDF5's crash is an error
 * naming the file, for every reader. */
Test(h5, foreign_files_are_read_in_a_child)
{
    write_vlen_file(path, 0);
    char *s;
    OK(pf_h5_read_attr_str(path, "/g/v", "meaning", &s));
    cr_expect_str_eq(s, "a variable-length string");
    free(s);
    char **names;
    size_t n;
    OK(pf_h5_list(path, "/g", &names, &n));
    cr_assert(n == 1 && !strcmp(names[0], "v"));
    pf_h5_names_free(names, n);
    int e;
    OK(pf_h5_exists(path, "/g/v", &e));
    cr_expect_eq(e, 1);

    damage_heap(path, false);
    s = (char *)1;
    cr_assert_eq(pf_h5_read_attr_str(path, "/", "format", &s), PF_ERR_IO);
    cr_expect(strstr(pf_errmsg(), path) && strstr(pf_errmsg(), "crashed"), "%s", pf_errmsg());
    cr_expect(s == NULL);
    double *r = (double *)1;
    size_t rows = 9, cols = 9;
    OK(pf_h5_read_f64(path, "/g/v", &r, &rows, &cols)); /* no heap on the way */
    cr_expect(rows == 3 && cols == 1 && r[1] == 1.5);
    free(r);
}

static int crash(void *ctx)
{
    (void)ctx;
    raise(SIGSEGV);
    return 0;
}

static int answer(void *ctx) { return *(int *)ctx; }

/* pf_h5_isolate (pf-inspect's walk): the child's exit code comes back; its
 * crash is an error naming the file. */
Test(h5, isolate_turns_a_crash_into_an_error)
{
    int seven = 7, code = -1;
    OK(pf_h5_isolate(path, answer, &seven, &code));
    cr_expect_eq(code, 7);
    cr_assert_eq(pf_h5_isolate(path, crash, NULL, &code), PF_ERR_IO);
    cr_expect(strstr(pf_errmsg(), path) && strstr(pf_errmsg(), "crashed reading it") &&
                  strstr(pf_errmsg(), strsignal(SIGSEGV)),
              "%s", pf_errmsg());
}
