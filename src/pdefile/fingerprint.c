/* fingerprint.c — a .pde file's and its data files' SHA-256 (fingerprint.h). */
#include "pdefile/fingerprint.h"

#include <stdlib.h>
#include <string.h>

#include "core/file.h"
#include "pdefile/ast.h"
#include "pdefile/pdefile.h"
#include "pdefile/table.h"

typedef struct named {
    const char *file;
    pf_pdefile_pos pos;
} named;

static int by_pos(const void *a, const void *b)
{
    const pf_pdefile_pos *x = &((const named *)a)->pos, *y = &((const named *)b)->pos;
    return x->line != y->line ? (x->line > y->line) - (x->line < y->line) : (x->col > y->col) - (x->col < y->col);
}

/* One line pair "F\n<hex or missing>\n" of the digest. */
static pf_status add_file(pf_sha256 *h, const pf_pdefile *f, const char *file)
{
    char path[4096], hex[PF_SHA256_HEX];
    PF_TRY(pf_pdefile_data_path(f, file, path, sizeof path));
    pf_status st = pf_file_sha256(path, PF_FILE_TABLE, hex);
    if (st == PF_ERR_EXTERNAL) return st; /* libcrypto failed: no digest to trust */
    if (st != PF_OK) memcpy(hex, "missing", sizeof "missing");
    PF_TRY(pf_sha256_update(h, file, strlen(file)));
    PF_TRY(pf_sha256_update(h, "\n", 1));
    PF_TRY(pf_sha256_update(h, hex, strlen(hex)));
    return pf_sha256_update(h, "\n", 1);
}

static pf_status data_digest(const pf_pdefile *f, pf_pdefile_fingerprint *out)
{
    named list[PF_PDE_MAX_CONSTRAINTS + 1];
    int n = 0;
    for (int i = 0; i < f->ncon; i++)
        if (f->con[i].kind == PF_PDEFILE_CON_OBSERVE && f->con[i].file)
            list[n++] = (named){f->con[i].file, f->con[i].file_pos};
    if (f->ref.kind == PF_PDEFILE_REF_DATA && f->ref.file) list[n++] = (named){f->ref.file, f->ref.pos};
    if (!n) return PF_OK;
    qsort(list, (size_t)n, sizeof *list, by_pos);
    pf_sha256 *h = pf_sha256_alloc();
    if (!h) return pf_fail(PF_ERR_NOMEM, "out of memory");
    pf_status st = PF_OK;
    for (int i = 0; i < n && st == PF_OK; i++) st = add_file(h, f, list[i].file);
    if (st == PF_OK) st = pf_sha256_final(h, out->data_sha256);
    pf_sha256_free(h);
    out->has_data = st == PF_OK;
    return st;
}

pf_status pf_pdefile_fingerprint_of(const char *path, pf_pdefile_fingerprint *out)
{
    memset(out, 0, sizeof *out);
    char *text;
    size_t len;
    PF_TRY(pf_file_read_as(path, PF_FILE_PDE, &text, &len));
    pf_status st = pf_sha256_hex(text, len, out->pde_sha256);
    pf_pdefile *f = NULL;
    /* the data files of a file that checks (its data are read later, by the compiler) */
    if (st == PF_OK) {
        pf_status lt = pf_pdefile_load_text(path, text, len, &f);
        if (lt == PF_ERR_NOMEM) st = lt;
        else if (lt == PF_OK) st = data_digest(f, out);
    }
    pf_pdefile_free(f);
    free(text);
    return st;
}
