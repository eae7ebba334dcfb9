/*
 * fuzz_table.c — the data files beside a .pde file (pdefile/table.h):
 * pf_pdefile_table_read over .csv and .dat text, and
 * pf_pdefile_table_read_snapshots over COMSOL snapshot .dat text, written
 * to the harness's temporary folder, and over .h5 files the harness writes
 * from the input's bytes (datasets of chosen names and lengths holding the
 * input's raw doubles: NaN, infinities, subnormals, ragged columns), then
 * pf_pdefile_table_check_points against the unit square (x, t) as space x
 * time. The input's first byte picks the format: 'c' .csv, 'd' .dat, 's'
 * snapshots, 'h' .h5 (any other byte: itself modulo 3, a text format:
 * writing an .h5 file, synced, costs a hundred times more); the rest is
 * the file (or, for .h5, its recipe). What the reader promises is checked: a
 * table has rows, three columns, every value finite as a float32, and the
 * lines of text rows in order; a refusal leaves nothing and names the file;
 * points the check accepts lie in the square (within its tolerance) and
 * none has two values.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "geom/geometry.h"
#include "input.h"
#include "io/h5.h"
#include "pdefile/table.h"

static const char *const names[] = {"x", "t", "u"};
#define TOL 1e-5

/* The .h5 recipe: a byte with the number of datasets (1 + b % 4), then per
 * dataset a byte naming it (x, t, u or other: b % 4) and one with its
 * length (b % 9), then that many doubles' raw bytes (zeros past the end of
 * the input). NULL when the file cannot be written (no finding). */
static const char *write_h5(const uint8_t *data, size_t size)
{
    static const char *const ds[] = {"/x", "/t", "/u", "/other"};
    size_t at = 0;
    int nds = size ? 1 + data[at++] % 4 : 1;
    static char path[4200];
    snprintf(path, sizeof path, "%s", pf_fuzz_file("fuzz.h5", NULL, 0)); /* removed at exit with the folder */
    remove(path);
    pf_h5 *h;
    if (pf_h5_create(path, &h) != PF_OK) return NULL;
    bool ok = true, made[4] = {false};
    for (int k = 0; k < nds && ok; k++) {
        int which = at < size ? data[at++] % 4 : k % 4;
        size_t n = at < size ? data[at++] % 9 : 1;
        double v[8] = {0};
        for (size_t i = 0; i < n; i++)
            for (size_t b = 0; b < sizeof(double); b++)
                if (at < size) ((uint8_t *)&v[i])[b] = data[at++];
        if (made[which]) continue; /* a name once */
        made[which] = true;
        ok = pf_h5_write_f64(h, ds[which], v, n) == PF_OK;
    }
    return pf_h5_close(h) == PF_OK && ok ? path : NULL;
}

static const struct pf_geom *square(void)
{
    static pf_geom *g;
    if (g) return g;
    pf_geom *x;
    if (pf_geom_box_alloc(1, (double[]){0}, (double[]){1}, NULL, &x) != PF_OK ||
        pf_geom_space_time_alloc(x, 0, 1, &g) != PF_OK) {
        fprintf(stderr, "fuzz_table: %s\n", pf_errmsg());
        abort();
    }
    return g;
}

/* A table's rows, their values and (text) their lines, positive and in order. */
static void check_table(const pf_pdefile_table *t, bool text)
{
    if (t->n < 1 || t->ncol != 3 || !t->v || (!text && t->line)) abort();
    for (int i = 0; i < t->n; i++) {
        for (int j = 0; j < t->ncol; j++) {
            double v = t->v[(size_t)i * 3 + (size_t)j];
            if (!isfinite(v) || !isfinite((float)v)) abort();
        }
        if (t->line && (t->line[i] < 1 || (i && t->line[i] < t->line[i - 1]))) abort();
    }
}

/* What pf_pdefile_table_check_points accepted: points in the square, one
 * value each (the pairs compared directly on small tables). */
static void check_points(const pf_pdefile_table *t)
{
    for (int i = 0; i < t->n; i++)
        if (pf_geom_sdf(square(), t->v + (size_t)i * 3) > TOL) abort();
    if (t->n > 200) return;
    for (int i = 0; i < t->n; i++)
        for (int k = 0; k < i; k++) {
            const double *a = t->v + (size_t)i * 3, *b = t->v + (size_t)k * 3;
            if (a[0] == b[0] && a[1] == b[1] && a[2] != b[2]) abort();
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!size) return 0;
    int kind = data[0] == 'c' ? 0 : data[0] == 'd' ? 1 : data[0] == 's' ? 2 : data[0] == 'h' ? 3 : data[0] % 3;
    const char *path = NULL, *file = NULL;
    switch (kind) {
    case 0: path = pf_fuzz_file(file = "fuzz.csv", data + 1, size - 1); break;
    case 1:
    case 2: path = pf_fuzz_file(file = "fuzz.dat", data + 1, size - 1); break;
    default:
        file = "fuzz.h5";
        if (!(path = write_h5(data + 1, size - 1))) return 0;
    }
    pf_pdefile_table t;
    pf_status st = kind == 2 ? pf_pdefile_table_read_snapshots(path, 2, 1, names, &t)
                             : pf_pdefile_table_read(path, names, 3, names, 3, &t);
    if (st != PF_OK) {
        if (t.n || t.v || t.line) abort();       /* a refusal leaves nothing */
        if (!strstr(pf_errmsg(), file)) abort(); /* and names the file */
        return 0;
    }
    check_table(&t, kind != 3);
    if (pf_pdefile_table_check_points(path, &t, 2, names, square(), TOL) == PF_OK)
        check_points(&t);
    else if (!strstr(pf_errmsg(), file))
        abort();
    pf_pdefile_table_free(&t);
    return 0;
}
