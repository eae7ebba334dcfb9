#include "refs/refs_out.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/parse.h"
#include "core/sha256.h"
#include "io/msgpack_json.h"

/* The text built in memory (open_memstream: buf and len are set only by
 * the fclose). */
static pf_status finish_text(FILE *f, char **buf, size_t *len, pf_refs_text *out)
{
    if (fclose(f)) {
        free(*buf);
        return pf_fail(PF_ERR_NOMEM, "out of memory building a reference file's text");
    }
    out->buf = *buf, out->len = *len;
    return PF_OK;
}

pf_status pf_refs_rows_text(const char *header, size_t n, int cols, const double *rows, pf_refs_text *out)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return pf_fail(PF_ERR_NOMEM, "out of memory building a reference file's text");
    fprintf(f, "%% %s\n", header);
    for (size_t r = 0; r < n; r++)
        for (int c = 0; c < cols; c++) fprintf(f, "%.17g%c", rows[r * cols + c], c + 1 < cols ? ' ' : '\n');
    return finish_text(f, &buf, &len, out);
}

pf_status pf_refs_snapshots_text(size_t nodes, int d_space, const char *const *space_names, const double *coords,
                                 int K, const double *times, int d_out, const char *const *names,
                                 const double *values, pf_refs_text *out)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return pf_fail(PF_ERR_NOMEM, "out of memory building a reference file's text");
    fputc('%', f);
    for (int d = 0; d < d_space; d++) fprintf(f, " %s", space_names[d]);
    for (int k = 0; k < K; k++)
        for (int c = 0; c < d_out; c++) fprintf(f, " %s @ t=%.17g", names[c], times[k]);
    fputc('\n', f);
    for (size_t q = 0; q < nodes; q++) {
        for (int d = 0; d < d_space; d++) fprintf(f, "%.17g ", coords[q * d_space + d]);
        const double *v = values + q * (size_t)K * d_out;
        for (int j = 0; j < K * d_out; j++) fprintf(f, "%.17g%c", v[j], j + 1 < K * d_out ? ' ' : '\n');
    }
    return finish_text(f, &buf, &len, out);
}

/* m as indented JSON with a final newline into path. */
static pf_status write_json(const char *path, const json_t *m)
{
    char *text = json_dumps(m, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    if (!text) return pf_fail(PF_ERR_NOMEM, "%s: out of memory for the manifest", path);
    size_t tl = strlen(text);
    char *withnl = realloc(text, tl + 2);
    if (!withnl) {
        free(text);
        return pf_fail(PF_ERR_NOMEM, "%s: out of memory for the manifest", path);
    }
    withnl[tl] = '\n', withnl[tl + 1] = 0;
    pf_status st = pf_file_write_atomic(path, withnl, tl + 1);
    free(withnl);
    return st;
}

pf_status pf_refs_write(const char *dat_path, const char *manifest_path, pf_refs_text *text, json_t *m)
{
    char hex[PF_SHA256_HEX];
    pf_status st = pf_sha256_hex(text->buf, text->len, hex);
    if (st == PF_OK) {
        const char *base = strrchr(dat_path, '/');
        json_object_set_new(m, "file", json_string(base ? base + 1 : dat_path));
        json_object_set_new(m, "sha256", json_string(hex));
        st = write_json(manifest_path, m);
    }
    if (st == PF_OK) st = pf_file_write_atomic(dat_path, text->buf, text->len);
    free(text->buf);
    text->buf = NULL, text->len = 0;
    return st;
}

double pf_refs_rel_l2(const double *a, const double *b, size_t n)
{
    double num = 0, den = 0;
    for (size_t i = 0; i < n; i++) num += (a[i] - b[i]) * (a[i] - b[i]), den += b[i] * b[i];
    return sqrt(num / den);
}

double pf_refs_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* An integer option's value, the option named on failure. */
static pf_status option_long(const char *k, const char *v, long lo, long hi, long *out)
{
    if (pf_parse_long(v, lo, hi, out) != PF_OK) return pf_fail(PF_ERR_USAGE, "%s: %s", k, pf_errmsg());
    return PF_OK;
}

pf_status pf_refs_parse_args(int argc, char **argv, pf_refs_args *a)
{
    for (int i = 1; i < argc; i += 2) {
        const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) return pf_fail(PF_ERR_USAGE, "%s needs a value", k);
        if (!strcmp(k, "--out")) a->out = v;
        else if (!strcmp(k, "--manifest")) a->manifest = v;
        else if (!strcmp(k, "--n")) PF_TRY(option_long(k, v, 8, 1 << 14, &a->n));
        else if (!strcmp(k, "--substeps")) PF_TRY(option_long(k, v, 1, 1 << 20, &a->substeps));
        else return pf_fail(PF_ERR_USAGE, "unknown option '%s' (--out, --manifest, --n, --substeps)", k);
    }
    if (!a->out || !a->manifest)
        return pf_fail(PF_ERR_USAGE, "--out FILE.dat and --manifest FILE.json are required");
    return PF_OK;
}

pf_status pf_refs_finish(const char *pde, const pf_refs_args *a, json_t *m, pf_refs_text *text,
                         const pf_refs_run *coarse, const pf_refs_run *fine, double conv)
{
    json_t *res = json_array();
    for (int i = 0; i < 2; i++) {
        const pf_refs_run *r = i ? fine : coarse;
        json_array_append_new(res, json_pack("{s:I, s:f, s:I, s:f}", "n", (json_int_t)r->n, "time_step", r->h,
                                             "steps", (json_int_t)r->steps, "wall_s", r->wall));
    }
    json_object_set_new(m, "resolutions", res);
    json_object_set_new(m, "written", json_string("the finer resolution"));
    json_object_set_new(m, "self_convergence_rel_l2", json_real(conv));
    json_object_set_new(m, "wall_s", json_real(coarse->wall + fine->wall));
    PF_TRY(pf_refs_write(a->out, a->manifest, text, m));
    printf("%s: wrote %s (n %ld, h %.3g; %.1f s), self-convergence %.2e against n %ld, h %.3g\n", pde, a->out,
           fine->n, fine->h, coarse->wall + fine->wall, conv, coarse->n, coarse->h);
    return PF_OK;
}
