/*
 * fuzz_h5.c — HDF5 artifacts (io/h5.h) as a disk hands them back: the
 * bytes go to a file in the harness's temporary folder, then
 * pf_h5_verify_bytes and pf_h5_verify (which must agree), and for a file
 * they let through what pf-plot, pf-stats and pf-inspect read: the root's
 * "format" and "version" attributes, result.h5's metadata
 * (pf_result_read_meta), the members of the root and of its groups, and
 * every dataset as doubles. A file of ours reaches HDF5 only when its
 * checksum matches. A file without our header (HDF5's signature at byte 0)
 * passes pf_h5_verify unchecked and would reach HDF5's own parser, which
 * hangs or crashes on damaged metadata (the first minute of fuzzing found
 * a damaged global heap that loops forever in H5HG_read; README
 * "Fuzzing"): a defect of the library, not of ours, so by default the
 * harness stops such a file after the verification. PF_FUZZ_H5_FOREIGN=1
 * reads them too, to hunt HDF5's own defects.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input.h"
#include "io/h5.h"
#include "search/artifact.h"

/* Read what `group` holds, `depth` levels down. */
static void walk(const char *path, const char *group, int depth)
{
    char **names;
    size_t n;
    if (pf_h5_list(path, group, &names, &n) != PF_OK) return;
    for (size_t i = 0; i < n; i++) {
        char obj[1024];
        snprintf(obj, sizeof obj, "%s/%s", group[1] ? group : "", names[i]);
        int exists;
        if (pf_h5_exists(path, obj, &exists) != PF_OK) continue;
        double *v;
        size_t rows, cols;
        if (pf_h5_read_f64(path, obj, &v, &rows, &cols) == PF_OK)
            free(v);
        else if (depth > 0)
            walk(path, obj, depth - 1);
        char *s;
        if (pf_h5_read_attr_str(path, obj, "columns", &s) == PF_OK) free(s);
    }
    pf_h5_names_free(names, n);
}

static bool foreign_files(void)
{
    static int on = -1;
    if (on < 0) {
        const char *v = getenv("PF_FUZZ_H5_FOREIGN");
        on = v && !strcmp(v, "1");
    }
    return on;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = pf_fuzz_file("artifact.h5", data, size);
    bool in_memory = pf_h5_verify_bytes(path, data, size) == PF_OK;
    if (in_memory != (pf_h5_verify(path) == PF_OK)) abort();
    if (!in_memory) return 0;
    bool ours = size >= strlen(PF_H5_MAGIC) && !memcmp(data, PF_H5_MAGIC, strlen(PF_H5_MAGIC));
    if (!ours && !foreign_files()) return 0;
    char *format;
    if (pf_h5_read_attr_str(path, "/", "format", &format) == PF_OK) free(format);
    int64_t version;
    pf_h5_read_attr_i64(path, "/", "version", &version);
    pf_result_meta m;
    if (pf_result_read_meta(path, &m) == PF_OK) pf_result_meta_release(&m);
    walk(path, "/", 1);
    return 0;
}
