/* observe.c — an observation constraint's data file (observe.h). */
#include "pdefile/observe.h"

#include <stdlib.h>
#include <string.h>

#include "pdefile/table.h"

pf_status pf_pdefile_read_observations(pf_pdefile *f, pf_pdefile_constraint *c, const struct pf_geom *domain)
{
    char path[2048];
    PF_TRY(pf_pdefile_data_path(f, c->file, path, sizeof path));
    int d = f->inputs.n;
    const char *want[PF_PDE_MAX_IN + 1];
    for (int j = 0; j < d; j++) want[j] = f->inputs.v[j];
    want[d] = f->outputs.v[c->output];
    pf_pdefile_table t;
    pf_status st = pf_pdefile_table_read(path, want, d + 1, want, d + 1, &t);
    if (st == PF_ERR_IO)
        return pf_fail(PF_ERR_IO, "%s:%d:%d: cannot read the observations: %s", f->path, c->file_pos.line,
                       c->file_pos.col, pf_errmsg());
    PF_TRY(st);
    st = pf_pdefile_table_check_points(path, &t, d, want, domain, pf_pdefile_domain_tol(f));
    int rows = t.n;
    if (st == PF_OK) {
        c->obs_x = pf_pdefile_arena(f, (size_t)rows * (size_t)d * sizeof *c->obs_x);
        c->obs_v = pf_pdefile_arena(f, (size_t)rows * sizeof *c->obs_v);
        if (!c->obs_x || !c->obs_v) st = pf_fail(PF_ERR_NOMEM, "%s: out of memory for %d observations", path, rows);
    }
    for (int i = 0; st == PF_OK && i < rows; i++) {
        memcpy(c->obs_x + (size_t)i * d, t.v + (size_t)i * (d + 1), (size_t)d * sizeof *c->obs_x);
        c->obs_v[i] = t.v[(size_t)i * (d + 1) + d];
    }
    if (st == PF_OK) c->nobs = rows;
    pf_pdefile_table_free(&t);
    return st;
}
