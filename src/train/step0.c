/* step0.c — step 0 of a training as an HDF5 file (step0.h). */
#include "train/step0.h"

#include <stdio.h>
#include <stdlib.h>

#include "io/h5.h"
#include "nn/model.h"

/* Parameter id's values (grad: its gradient) from the backend as a
 * dataset under `group`. */
static pf_status write_param(pf_h5 *f, const pf_train_graph *t, int id, bool grad)
{
    int rows, cols;
    pf_graph_param_shape(t->g, id, &rows, &cols);
    const pf_real *src = grad ? pf_graph_param_grad(t->g, id) : pf_graph_param_read(t->g, id);
    size_t m = (size_t)rows * (size_t)cols;
    pf_real *host = malloc(sizeof *host * m + 1);
    if (!host) return pf_fail(PF_ERR_NOMEM, "out of memory writing %s", pf_h5_path(f));
    t->be->download(host, src, sizeof *host * m);
    char name[128];
    snprintf(name, sizeof name, "/%s/%s", grad ? "grad" : "params", pf_graph_param_name(t->g, id));
    pf_status st = pf_h5_write_real(f, name, host, (size_t)rows, (size_t)cols);
    free(host);
    if (st == PF_OK && !grad) st = pf_h5_attr_i64(f, name, "trainable", pf_graph_param_grad(t->g, id) != NULL);
    return st;
}

static pf_status write_set(pf_h5 *f, const pf_train_graph *t, int s)
{
    const pf_train_set *S = &t->set[s];
    int n = S->ps.n, d = t->pde->d_in;
    char name[160];
    snprintf(name, sizeof name, "/sets/%s", S->name);
    PF_TRY(pf_h5_group(f, name));
    PF_TRY(pf_h5_attr_i64(f, name, "tokens", pf_train_graph_set_tokens(t, s)));
    snprintf(name, sizeof name, "/sets/%s/x", S->name);
    PF_TRY(pf_h5_write_real(f, name, S->ps.x, (size_t)n, (size_t)d));
    if (S->ps.normal) {
        snprintf(name, sizeof name, "/sets/%s/normal", S->name);
        PF_TRY(pf_h5_write_real(f, name, S->ps.normal, (size_t)n, (size_t)d));
    }
    if (S->target) {
        snprintf(name, sizeof name, "/sets/%s/target", S->name);
        PF_TRY(pf_h5_write_real(f, name, S->target, (size_t)n, 1));
    }
    if (S->image) {
        snprintf(name, sizeof name, "/sets/%s/image", S->name);
        PF_TRY(pf_h5_write_real(f, name, S->image, (size_t)n, (size_t)d));
    }
    return PF_OK;
}

static pf_status write_losses(pf_h5 *f, const pf_train_graph *t)
{
    int nres = 0; /* residual losses so far: equation e's come after e's predecessors' chunks */
    for (int l = 0; l < t->nloss; l++) {
        int k = t->loss_term[l], s = t->term_set[k];
        char g[32];
        snprintf(g, sizeof g, "/losses/%02d", l);
        PF_TRY(pf_h5_group(f, g));
        PF_TRY(pf_h5_attr_str(f, g, "name", pf_graph_loss_name(t->g, l)));
        PF_TRY(pf_h5_attr_i64(f, g, "term", k));
        PF_TRY(pf_h5_attr_str(f, g, "term_name", t->term_name[k]));
        PF_TRY(pf_h5_attr_i64(f, g, "equation", k == 0 ? nres++ / t->nchunks : -1));
        PF_TRY(pf_h5_attr_i64(f, g, "chunk", t->loss_chunk[l]));
        PF_TRY(pf_h5_attr_str(f, g, "set", s >= 0 ? t->set[s].name : ""));
        PF_TRY(pf_h5_attr_f64(f, g, "value", pf_graph_loss_value(t->g, l)));
        PF_TRY(pf_h5_attr_f64(f, g, "weight", (double)t->w[l]));
    }
    return PF_OK;
}

static pf_status write_all(pf_h5 *f, const pf_train_graph *t, const pf_step0_info *info)
{
    PF_TRY(pf_h5_attr_str(f, "/", "format", "pinnforge.step0"));
    PF_TRY(pf_h5_attr_str(f, "/", "pde", t->pde->name));
    PF_TRY(pf_h5_attr_i64(f, "/", "seed", (int64_t)info->seed));
    PF_TRY(pf_h5_attr_str(f, "/", "precision", sizeof(pf_real) == sizeof(double) ? "double" : "float"));
    PF_TRY(pf_h5_attr_str(f, "/", "backend", t->be->name));
    if (info->spec) PF_TRY(pf_h5_attr_str(f, "/", "spec", info->spec));
    PF_TRY(pf_h5_attr_f64(f, "/", "loss_total", info->loss_total));
    PF_TRY(pf_h5_attr_i64(f, "/", "nparams", (int64_t)t->nmodel));
    PF_TRY(pf_h5_attr_i64(f, "/", "tokens", pf_model_tokens(&t->mc)));
    PF_TRY(pf_h5_attr_f64(f, "/", "seq_dt", t->mc.seq_dt));
    PF_TRY(pf_h5_group(f, "/params"));
    PF_TRY(pf_h5_group(f, "/grad"));
    for (int id = 0; id < pf_graph_param_count(t->g); id++) {
        PF_TRY(write_param(f, t, id, false));
        if (pf_graph_param_grad(t->g, id)) PF_TRY(write_param(f, t, id, true));
    }
    for (int s = 0; s < t->nsets; s++)
        if (t->set[s].ps.n) PF_TRY(write_set(f, t, s));
    return write_losses(f, t);
}

pf_status pf_step0_write(const char *path, const pf_train_graph *t, const pf_step0_info *info)
{
    pf_h5 *f;
    PF_TRY(pf_h5_create(path, &f));
    pf_status st = write_all(f, t, info);
    if (st != PF_OK) {
        pf_h5_discard(f);
        return st;
    }
    return pf_h5_close(f);
}
