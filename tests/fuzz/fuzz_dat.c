/*
 * fuzz_dat.c — PINNacle reference files (io/pinnacle_dat.h) through
 * pf_dat_parse, the reader's in-memory entry point (pf_dat_read maps the
 * file and calls it). Each input is parsed under the layouts and column
 * counts the registry uses: steady as a plain matrix, 2 inputs with the
 * rest, one or no outputs, and COMSOL snapshots over 1 or 2 space
 * dimensions with 1 or 3 fields. A parsed table is checked against the
 * reader's promises: at least one row read, no NaN kept, the snapshot
 * times present.
 */
#include <math.h>
#include <stdlib.h>

#include "input.h"
#include "io/pinnacle_dat.h"

static const struct {
    pf_dat_layout layout;
    int d_in, d_out;
} shapes[] = {
    {PF_DAT_LAYOUT_STEADY, 0, PF_DAT_REST}, {PF_DAT_LAYOUT_STEADY, 2, PF_DAT_REST}, {PF_DAT_LAYOUT_STEADY, 2, 1},
    {PF_DAT_LAYOUT_STEADY, 2, 0},           {PF_DAT_LAYOUT_SNAPSHOTS, 2, 1},        {PF_DAT_LAYOUT_SNAPSHOTS, 3, 1},
    {PF_DAT_LAYOUT_SNAPSHOTS, 3, 3},
};

static void check(const pf_dat *d, int d_in, pf_dat_layout layout)
{
    if (d->n == 0 && d->n_dropped == 0) abort(); /* "no data line" is an error, not an empty table */
    if (d->d_in < d_in || d->d_out < 0) abort();
    if (layout == PF_DAT_LAYOUT_SNAPSHOTS && (d->n_times < 1 || !d->times)) abort();
    for (size_t i = 0; i < d->n * (size_t)d->d_in; i++)
        if (isnan(d->inputs[i])) abort();
    for (size_t i = 0; i < d->n * (size_t)d->d_out; i++)
        if (isnan(d->outputs[i])) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        pf_dat *d = NULL;
        if (pf_dat_parse((const char *)data, size, "fuzz.dat", shapes[i].d_in, shapes[i].d_out, shapes[i].layout, &d) ==
            PF_OK)
            check(d, shapes[i].d_in, shapes[i].layout);
        else if (d)
            abort(); /* *out is set only on success */
        pf_dat_free(d);
    }
    return 0;
}
