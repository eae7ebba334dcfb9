/* artifact_training.c — the files of one training: evidence.msgpack and
 * result.h5 (artifact.h). */
#include "search/artifact.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/file.h"
#include "core/parse.h"
#include "io/h5.h"
#include "registry.h"
#include "search/artifact_internal.h"

/* ------------------------------------------------------------ result.h5 */

static pf_status write_f64(pf_h5 *f, const char *path, const double *v, int n, const char *meaning)
{
    PF_TRY(pf_h5_write_f64(f, path, v, (size_t)n));
    return pf_h5_attr_str(f, path, "meaning", meaning);
}

static pf_status write_steps(pf_h5 *f, const char *path, const long *s, int n)
{
    double *v = malloc(sizeof(double) * (size_t)n + 1);
    if (!v) return pf_fail(PF_ERR_NOMEM, "out of memory");
    for (int i = 0; i < n; i++) v[i] = (double)s[i];
    pf_status st = write_f64(f, path, v, n, "optimizer step of each record");
    free(v);
    return st;
}

pf_status pf_result_write(const char *path, const pf_pde *p, const pf_train_result *r, const char *spec_text,
                          const char *hash, const char *fidelity, uint64_t seed)
{
    pf_h5 *f;
    PF_TRY(pf_h5_create(path, &f));
    pf_status st = PF_OK;
#define T(x) if (st == PF_OK) st = (x)
    T(pf_h5_attr_str(f, "/", "format", "pinnforge.result"));
    T(pf_h5_attr_i64(f, "/", "version", PF_ARTIFACT_VERSION));
    T(pf_h5_attr_str(f, "/", "pde", p->name));
    T(pf_h5_attr_str(f, "/", "spec", spec_text));
    T(pf_h5_attr_str(f, "/", "spec_hash", hash));
    T(pf_h5_attr_str(f, "/", "fidelity", fidelity));
    T(pf_h5_attr_u64(f, "/", "seed", seed));
    T(pf_h5_attr_str(f, "/", "status", pf_train_status_name(r->status)));
    char detail[PF_TEXT_LINE_MAX + 1];
    T(pf_h5_attr_str(f, "/", "detail", pf_text_sanitize(r->detail, detail, sizeof detail)));
    T(pf_h5_attr_i64(f, "/", "steps", r->steps));
    T(pf_h5_attr_str(f, "/", "precision", PF_REAL_NAME));
    int n = r->nlog, T = r->nterms;
    double *col = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    if (!col) st = pf_fail(PF_ERR_NOMEM, "out of memory");
    T(pf_h5_group(f, "/loss"));
    T(write_steps(f, "/loss/step", r->log_step, n));
    T(write_f64(f, "/loss/total", r->log_total, n, "weighted total loss"));
    T(pf_h5_group(f, "/loss/terms"));
    T(pf_h5_group(f, "/loss/weights"));
    for (int k = 0; st == PF_OK && k < T; k++) {
        char p1[128];
        for (int i = 0; i < n; i++) col[i] = r->log_term[i * T + k];
        snprintf(p1, sizeof p1, "/loss/terms/%s", r->term[k].name);
        T(write_f64(f, p1, col, n, "unweighted loss term"));
        for (int i = 0; i < n; i++) col[i] = r->log_weight[i * T + k];
        snprintf(p1, sizeof p1, "/loss/weights/%s", r->term[k].name);
        T(write_f64(f, p1, col, n, "the term's weight"));
    }
    T(pf_h5_write_int(f, "/loss/n_interior", r->log_interior, (size_t)n));
    T(pf_h5_group(f, "/eval"));
    T(write_steps(f, "/eval/step", r->eval_step, r->neval));
    T(write_f64(f, "/eval/mse", r->eval_mse, r->neval, "MSE on the evaluation points"));
    T(pf_h5_group(f, "/predictions"));
    if (r->n_eval) {
        T(pf_h5_write_real(f, "/predictions/x", r->x_eval, (size_t)r->n_eval, (size_t)r->d_in));
        T(pf_h5_write_real(f, "/predictions/u", r->u_eval, (size_t)r->n_eval, (size_t)r->d_out));
        T(pf_h5_write_real(f, "/predictions/u_ref", r->u_ref, (size_t)r->n_eval, (size_t)r->d_out));
    }
    T(pf_h5_group(f, "/points"));
    T(pf_h5_write_real(f, "/points/interior", r->x_interior, (size_t)r->n_interior, (size_t)r->d_in));
    T(pf_h5_group(f, "/params"));
    for (int i = 0; st == PF_OK && i < r->nparam; i++) {
        char p1[128];
        snprintf(p1, sizeof p1, "/params/%02d.%s", i, r->param[i].name);
        T(pf_h5_write_real(f, p1, r->param[i].data, (size_t)r->param[i].rows, (size_t)r->param[i].cols));
        T(pf_h5_attr_str(f, p1, "kind", r->param[i].trainable ? "trainable" : "frozen"));
    }
#undef T
    free(col);
    if (st != PF_OK) {
        pf_h5_discard(f);
        return st;
    }
    return pf_h5_close(f);
}

/* ------------------------------------------------------ evidence.msgpack */

static json_t *num(double v) { return isfinite(v) ? json_real(v) : json_null(); }

json_t *pf_evidence_json(const pf_pde *p, const pf_train_result *r)
{
    char text[PF_TEXT_LINE_MAX + 1];
    json_t *e = json_object();
    json_object_set_new(e, "status", json_string(pf_train_status_name(r->status)));
    json_object_set_new(e, "detail", json_string(pf_text_sanitize(r->detail, text, sizeof text)));
    json_object_set_new(e, "steps", json_integer(r->steps));
    json_object_set_new(e, "budget", json_integer(r->budget));
    if (r->time_limited) { /* the search's time budget stopped it (search/time_budget.h) */
        json_object_set_new(e, "time_limited", json_true());
        json_object_set_new(e, "stopped_at_step", json_integer(r->steps));
    }
    json_object_set_new(e, "loss_initial", num(r->loss_first));
    json_object_set_new(e, "loss_final", num(r->loss_last));
    json_object_set_new(e, "loss_reduction", num(r->loss_last > 0 ? r->loss_first / r->loss_last : NAN));
    json_object_set_new(e, "stagnation_steps", json_integer(r->stagnation));
    if (!isnan(r->causal_min)) json_object_set_new(e, "causal_min_weight", num(r->causal_min));
    json_t *terms = json_array();
    double gmin = INFINITY, gmax = 0;
    for (int k = 0; k < r->nterms; k++) {
        const pf_train_term *t = &r->term[k];
        json_t *o = json_object();
        json_object_set_new(o, "name", json_string(t->name));
        json_object_set_new(o, "mode", json_string(t->hard ? "hard" : "soft"));
        json_object_set_new(o, "weight", num(t->weight));
        json_object_set_new(o, "loss_initial", num(t->loss_first));
        json_object_set_new(o, "loss_final", num(t->loss_last));
        json_object_set_new(o, "reduction", num(t->loss_last > 0 ? t->loss_first / t->loss_last : NAN));
        json_object_set_new(o, "grad_norm_initial", num(t->grad_first));
        json_object_set_new(o, "grad_norm_final", num(t->grad_last));
        json_array_append_new(terms, o);
        if (!t->hard && t->grad_last > 0) {
            gmin = fmin(gmin, t->grad_last);
            gmax = fmax(gmax, t->grad_last);
        }
    }
    json_object_set_new(e, "terms", terms);
    json_object_set_new(e, "grad_imbalance", num(gmax > 0 ? gmax / gmin : NAN));
    json_t *res = json_object();
    json_object_set_new(res, "mean", num(r->residual.mean));
    json_object_set_new(res, "p95", num(r->residual.p95));
    json_object_set_new(res, "max", num(r->residual.max));
    json_object_set_new(res, "points", json_integer(PF_TRAIN_EVIDENCE_POINTS));
    json_object_set_new(e, "residual", res);
    json_t *hot = json_array();
    for (int i = 0; i < r->nhot; i++) {
        json_t *h = json_object(), *lo = json_object(), *hi = json_object();
        for (int d = 0; d < p->d_in; d++) {
            json_object_set_new(lo, p->inputs[d], json_real(r->hot[i].lo[d]));
            json_object_set_new(hi, p->inputs[d], json_real(r->hot[i].hi[d]));
        }
        json_object_set_new(h, "lo", lo);
        json_object_set_new(h, "hi", hi);
        json_object_set_new(h, "mean_abs_residual", num(r->hot[i].mean_abs));
        json_object_set_new(h, "share", num(r->hot[i].share));
        json_object_set_new(h, "points", json_integer(r->hot[i].npoints));
        json_array_append_new(hot, h);
    }
    json_object_set_new(e, "hotspots", hot);
    json_t *con = json_object();
    for (int k = 1; k < r->nterms; k++) json_object_set_new(con, r->term[k].name, num(r->term[k].loss_last));
    json_object_set_new(e, "constraint_errors", con);
    json_t *stages = json_array();
    for (int i = 0; i < r->nstages; i++) {
        json_t *s = json_object();
        json_object_set_new(s, "optimizer", json_string(pf_optimizer_kind_name(r->stage[i].optimizer)));
        json_object_set_new(s, "planned", json_integer(r->stage[i].planned));
        json_object_set_new(s, "done", json_integer(r->stage[i].done));
        json_object_set_new(s, "outcome", json_string(r->stage[i].outcome));
        if (r->stage[i].optimizer == PF_OPT_LBFGS) {
            json_object_set_new(s, "iterations", json_integer(r->stage[i].iterations));
            json_object_set_new(s, "evaluations", json_integer(r->stage[i].evaluations));
        }
        json_array_append_new(stages, s);
    }
    json_object_set_new(e, "stages", stages);
    json_object_set_new(e, "steps_per_second", num(r->step_s > 0 ? r->steps / r->step_s : NAN));
    json_t *time = json_object();
    json_object_set_new(time, "wall_s", num(r->wall_s));
    json_object_set_new(time, "steps_s", num(r->step_s));
    json_object_set_new(time, "other_s", num(r->other_s));
    if (r->time_limit_s > 0) json_object_set_new(time, "limit_s", num(r->time_limit_s));
    const pf_train_prediction *pr = &r->predicted;
    if (pr->total_s > 0) { /* the cost model's (search/train_order.h) */
        json_t *m = json_object();
        json_object_set_new(time, "predicted_s", num(pr->total_s));
        json_object_set_new(time, "predicted_step_s", num(pr->step_s));
        json_object_set_new(time, "work", num(pr->work));
        json_object_set_new(m, "c", num(pr->c));
        json_object_set_new(m, "overhead_s", num(pr->overhead_s));
        json_object_set_new(m, "trainings", json_integer(pr->trainings));
        json_object_set_new(time, "cost_model", m);
    }
    json_object_set_new(time, "cpu_s", num(r->cpu_s));
    json_object_set_new(time, "started_unix", num(r->started_unix));
    json_object_set_new(e, "time", time);
    json_object_set_new(e, "parameters", json_integer((json_int_t)r->nparams));
    json_t *pts = json_object();
    json_object_set_new(pts, "interior", json_integer(r->n_interior));
    json_object_set_new(pts, "initial", json_integer(r->n_initial));
    json_object_set_new(pts, "boundary", json_integer(r->n_boundary));
    json_object_set_new(pts, "observed", json_integer(r->n_observed));
    json_object_set_new(e, "points", pts);
    json_t *dev = json_object();
    json_object_set_new(dev, "backend", json_string(r->backend));
    json_object_set_new(dev, "name", json_string(pf_text_sanitize(r->device.name, text, sizeof text)));
    json_object_set_new(dev, "memory_gib", num(r->device.memory_gib));
    json_object_set_new(dev, "steps_per_second", num(r->step_s > 0 ? r->steps / r->step_s : NAN));
    json_object_set_new(dev, "threads", json_integer(r->threads));
    json_object_set_new(dev, "threads_max", json_integer(r->threads_max));
    json_object_set_new(dev, "threads_mean", num(r->threads_mean));
    json_object_set_new(dev, "precision", json_string(PF_REAL_NAME));
    json_object_set_new(e, "device", dev);
    if (r->has_check) {
        json_t *chk = json_object(), *cmse = json_object();
        json_object_set_new(chk, "points", json_integer(r->check_points));
        json_object_set_new(chk, "residual_rms", num(r->check_rms));
        json_object_set_new(chk, "residual_max", num(r->check_max));
        for (int k = 1; k < r->nterms; k++) json_object_set_new(cmse, r->term[k].name, num(r->check_term[k]));
        json_object_set_new(chk, "constraint_mse", cmse);
        json_object_set_new(e, "physics_check", chk);
    }
    /* every key above is set unconditionally but causal_min_weight and
     * physics_check: one missing is a value jansson refused, and the
     * evidence is refused too */
    if (json_object_size(e) != (size_t)(19 + !isnan(r->causal_min) + r->has_check + 2 * r->time_limited)) {
        json_decref(e);
        return NULL;
    }
    return e;
}

pf_status pf_result_write_untrained(const char *path, const char *status, const char *why)
{
    pf_h5 *f;
    PF_TRY(pf_h5_create(path, &f));
    pf_status st = pf_h5_attr_str(f, "/", "format", "pinnforge.result");
    if (st == PF_OK) st = pf_h5_attr_i64(f, "/", "version", PF_ARTIFACT_VERSION);
    if (st == PF_OK) st = pf_h5_attr_str(f, "/", "status", status);
    char *reason = pf_text_sanitize_dup(why, PF_TEXT_BLOCK_MAX);
    if (st == PF_OK) st = reason ? pf_h5_attr_str(f, "/", "reason", reason) : pf_fail(PF_ERR_NOMEM, "out of memory");
    free(reason);
    pf_status cs = pf_h5_close(f);
    return st == PF_OK ? cs : st;
}

/* an optional string attribute: "" when absent */
static pf_status meta_str(const char *path, const char *key, char *buf, size_t cap)
{
    buf[0] = 0;
    char *s = NULL;
    if (pf_h5_read_attr_str(path, "/", key, &s) != PF_OK) return PF_OK; /* absent: untrained files lack most */
    pf_status st = PF_OK;
    if (strlen(s) >= cap) st = pf_fail(PF_ERR_INVALID, "'%s': attribute %s is longer than %zu bytes", path, key, cap - 1);
    else memcpy(buf, s, strlen(s) + 1);
    free(s);
    return st;
}

pf_status pf_result_read_meta(const char *path, pf_result_meta *m)
{
    memset(m, 0, sizeof *m);
    char *format = NULL;
    int64_t version = 0;
    PF_TRY(pf_h5_read_attr_str(path, "/", "format", &format));
    bool ok = !strcmp(format, "pinnforge.result");
    free(format);
    if (!ok) return pf_fail(PF_ERR_INVALID, "'%s' is not a pinnforge.result file", path);
    PF_TRY(pf_h5_read_attr_i64(path, "/", "version", &version));
    if (version != PF_ARTIFACT_VERSION)
        return pf_fail(PF_ERR_INVALID, "'%s' is pinnforge.result version %lld, and this build reads version %d", path,
                       (long long)version, PF_ARTIFACT_VERSION);
    PF_TRY(pf_h5_read_attr_str(path, "/", "status", &format));
    snprintf(m->status, sizeof m->status, "%s", format);
    free(format);
    PF_TRY(meta_str(path, "pde", m->pde, sizeof m->pde));
    PF_TRY(meta_str(path, "spec_hash", m->spec_hash, sizeof m->spec_hash));
    PF_TRY(meta_str(path, "fidelity", m->fidelity, sizeof m->fidelity));
    if (pf_h5_read_attr_str(path, "/", "spec", &m->spec) != PF_OK) m->spec = strdup("");
    if (!m->spec) return pf_fail(PF_ERR_NOMEM, "out of memory");
    int64_t seed = 0;
    pf_status st = m->spec[0] ? pf_h5_read_attr_i64(path, "/", "seed", &seed) : PF_OK;
    if (st != PF_OK) {
        pf_result_meta_release(m); /* *m holds nothing on failure */
        return st;
    }
    m->seed = (uint64_t)seed;
    return PF_OK;
}

void pf_result_meta_release(pf_result_meta *m)
{
    free(m->spec);
    m->spec = NULL;
}

/* ------------------------------------------------------ evidence.msgpack */

static pf_status evidence_names(pf_evidence_file *f, const char *pde, const char *status, const char *fidelity,
                                const char *budget, uint64_t seed)
{
    if (strlen(pde) >= sizeof f->pde || strlen(status) >= sizeof f->status || strlen(fidelity) >= sizeof f->fidelity ||
        strlen(budget) >= sizeof f->budget)
        return pf_fail(PF_ERR_INVALID, "evidence: a PDE, status, fidelity or budget name is too long");
    strcpy(f->pde, pde);
    strcpy(f->status, status);
    strcpy(f->fidelity, fidelity);
    strcpy(f->budget, budget);
    f->seed = seed;
    return PF_OK;
}

pf_status pf_evidence_file_init(pf_evidence_file *f, const pf_pde *p, const pf_train_result *r,
                                const char *spec_hash, const char *fidelity, const char *budget, uint64_t seed)
{
    memset(f, 0, sizeof *f);
    PF_TRY(evidence_names(f, p->name, pf_train_status_name(r->status), fidelity, budget, seed));
    snprintf(f->spec_hash, sizeof f->spec_hash, "%s", spec_hash);
    f->has_y = r->has_y;
    f->y = r->y;
    f->has_y_report = r->has_y_report;
    f->y_report = r->y_report;
    if (!r->has_y && !(f->y_missing = pf_text_sanitize_dup(r->y_missing, PF_TEXT_LINE_MAX)))
        return pf_fail(PF_ERR_NOMEM, "out of memory");
    if (!(f->evidence = pf_evidence_json(p, r))) {
        pf_evidence_file_release(f);
        return pf_fail(PF_ERR_NOMEM, "out of memory");
    }
    f->steps = r->steps;
    f->wall_s = r->wall_s;
    return PF_OK;
}

pf_status pf_evidence_file_init_untrained(pf_evidence_file *f, const char *pde, const char *status, const char *why,
                                          const char *fidelity, const char *budget, uint64_t seed)
{
    memset(f, 0, sizeof *f);
    PF_TRY(evidence_names(f, pde, status, fidelity, budget, seed));
    if (!(f->y_missing = pf_text_sanitize_dup(why, PF_TEXT_BLOCK_MAX))) return pf_fail(PF_ERR_NOMEM, "out of memory");
    return PF_OK;
}

pf_status pf_evidence_file_write(const char *path, const pf_evidence_file *f)
{
    json_t *o = pf_artifact_begin("pinnforge.evidence");
    if (!o) return pf_fail(PF_ERR_NOMEM, "out of memory building '%s'", path);
    size_t keys = 8;
    if (!f->has_y) json_object_set_new(o, "y_missing", json_string(f->y_missing ? f->y_missing : ""));
    else if (isfinite(f->y)) json_object_set_new(o, "y", json_real(f->y));
    else keys--; /* a non-finite MSE: no y */
    if (f->has_y_report) json_object_set_new(o, "y_report", json_real(f->y_report)), keys++;
    json_object_set_new(o, "status", json_string(f->status));
    json_object_set_new(o, "pde", json_string(f->pde));
    if (f->spec_hash[0]) json_object_set_new(o, "spec_hash", json_string(f->spec_hash)), keys++;
    json_object_set_new(o, "fidelity", json_string(f->fidelity));
    json_object_set_new(o, "budget", json_string(f->budget));
    json_object_set_new(o, "seed", json_integer((json_int_t)f->seed));
    if (f->evidence) json_object_set_new(o, "evidence", json_incref(f->evidence)), keys++;
    return pf_artifact_finish(path, o, keys);
}

static pf_status evidence_parse(const char *path, const json_t *o, void *out)
{
    pf_evidence_file *f = out;
    PF_TRY(pf_artifact_num(path, o, "y", &f->y, &f->has_y));
    PF_TRY(pf_artifact_num(path, o, "y_report", &f->y_report, &f->has_y_report));
    PF_TRY(pf_artifact_text(path, o, "y_missing", &f->y_missing));
    PF_TRY(pf_artifact_str(path, o, "status", true, f->status, sizeof f->status));
    PF_TRY(pf_artifact_str(path, o, "pde", true, f->pde, sizeof f->pde));
    PF_TRY(pf_artifact_str(path, o, "spec_hash", false, f->spec_hash, sizeof f->spec_hash));
    if (f->spec_hash[0] && !pf_artifact_is_hash(f->spec_hash))
        return pf_fail(PF_ERR_INVALID, "'%s': spec_hash is not 64 hex digits", path);
    PF_TRY(pf_artifact_str(path, o, "fidelity", false, f->fidelity, sizeof f->fidelity));
    PF_TRY(pf_artifact_str(path, o, "budget", false, f->budget, sizeof f->budget));
    long seed = 0;
    PF_TRY(pf_artifact_int(path, o, "seed", false, 0, LONG_MAX, &seed));
    f->seed = (uint64_t)seed;
    json_t *e = json_object_get(o, "evidence");
    if (e && !json_is_object(e)) return pf_fail(PF_ERR_INVALID, "'%s': \"evidence\" needs a map", path);
    if (!e) return PF_OK;
    f->evidence = json_incref(e);
    long steps = 0;
    PF_TRY(pf_artifact_int(path, e, "steps", false, 0, LONG_MAX, &steps));
    f->steps = steps;
    const json_t *t = json_object_get(e, "time");
    if (t) PF_TRY(pf_artifact_num(path, t, "wall_s", &f->wall_s, NULL));
    return PF_OK;
}

pf_status pf_evidence_file_read(const char *path, pf_evidence_file *f)
{
    memset(f, 0, sizeof *f);
    pf_status st = pf_artifact_load(path, "pinnforge.evidence", evidence_parse, f);
    if (st != PF_OK) pf_evidence_file_release(f);
    return st;
}

void pf_evidence_file_release(pf_evidence_file *f)
{
    free(f->y_missing);
    json_decref(f->evidence);
    f->y_missing = NULL;
    f->evidence = NULL;
}

/* ------------------------------------------------------------ result.h5's series */

/* A 1-D dataset (or one column) of *n values, as many as the dataset
 * `like` has; like NULL: any length, set in *n. The plots index every
 * curve by the steps' index, so a shorter one would be read past its end. */
static pf_status read_vec(const char *path, const char *name, const char *like, double **v, size_t *n)
{
    size_t rows, cols;
    PF_TRY(pf_h5_read_f64(path, name, v, &rows, &cols));
    if (cols != 1 || (like && rows != *n)) {
        free(*v);
        *v = NULL;
        if (!like)
            return pf_fail(PF_ERR_IO, "dataset '%s' in '%s' has shape %zu x %zu; a vector expected", name, path,
                           rows, cols);
        return pf_fail(PF_ERR_IO, "dataset '%s' in '%s' has shape %zu x %zu; %zu values expected, as in '%s'", name,
                       path, rows, cols, *n, like);
    }
    *n = rows;
    return PF_OK;
}

pf_status pf_result_read_curves(const char *path, pf_result_curves *c)
{
    memset(c, 0, sizeof *c);
    PF_TRY(read_vec(path, PF_RESULT_LOSS_STEP, NULL, &c->step, &c->n));
    if (c->n == 0) return PF_OK;
    PF_TRY(read_vec(path, PF_RESULT_LOSS_TOTAL, PF_RESULT_LOSS_STEP, &c->total, &c->n));
    PF_TRY(pf_h5_list(path, PF_RESULT_LOSS_TERMS, &c->names, &c->nterm));
    if (!(c->term = calloc(c->nterm ? c->nterm : 1, sizeof *c->term)))
        return pf_fail(PF_ERR_NOMEM, "out of memory reading '%s'", path);
    for (size_t k = 0; k < c->nterm; k++) {
        char name[512];
        snprintf(name, sizeof name, "%s/%s", PF_RESULT_LOSS_TERMS, c->names[k]);
        PF_TRY(read_vec(path, name, PF_RESULT_LOSS_STEP, &c->term[k], &c->n));
    }
    PF_TRY(read_vec(path, PF_RESULT_EVAL_STEP, NULL, &c->eval_step, &c->neval));
    if (c->neval) PF_TRY(read_vec(path, PF_RESULT_EVAL_MSE, PF_RESULT_EVAL_STEP, &c->eval_mse, &c->neval));
    return PF_OK;
}

void pf_result_curves_release(pf_result_curves *c)
{
    free(c->step), free(c->total), free(c->eval_step), free(c->eval_mse);
    for (size_t k = 0; c->term && k < c->nterm; k++) free(c->term[k]);
    free(c->term);
    pf_h5_names_free(c->names, c->nterm);
    memset(c, 0, sizeof *c);
}

/* A rows x d_out dataset: one row per point of /predictions/x, one column
 * per output of p. */
static pf_status read_mat(const char *path, const char *name, size_t rows, const pf_pde *p, double **v)
{
    size_t r, c, cols = (size_t)p->d_out;
    PF_TRY(pf_h5_read_f64(path, name, v, &r, &c));
    if (r != rows || c != cols) {
        free(*v);
        *v = NULL;
        return pf_fail(PF_ERR_IO,
                       "dataset '%s' in '%s' has shape %zu x %zu; %zu x %zu expected (a row per point of "
                       "'%s', a column per output of %s)",
                       name, path, r, c, rows, cols, PF_RESULT_PREDICTIONS_X, p->name);
    }
    return PF_OK;
}

pf_status pf_result_read_predictions(const char *path, const pf_pde *p, pf_result_predictions *r, bool *has)
{
    memset(r, 0, sizeof *r);
    *has = false;
    int there;
    PF_TRY(pf_h5_exists(path, PF_RESULT_PREDICTIONS_REF, &there));
    if (!there) return PF_OK;
    *has = true;
    size_t rows, cols;
    PF_TRY(pf_h5_read_f64(path, PF_RESULT_PREDICTIONS_X, &r->x, &rows, &cols));
    r->n = rows;
    if (cols != (size_t)p->d_in)
        return pf_fail(PF_ERR_IO, "dataset '%s' in '%s' has %zu columns; %s has %d inputs", PF_RESULT_PREDICTIONS_X,
                       path, cols, p->name, p->d_in);
    PF_TRY(read_mat(path, PF_RESULT_PREDICTIONS_U, r->n, p, &r->u));
    return read_mat(path, PF_RESULT_PREDICTIONS_REF, r->n, p, &r->ref);
}

void pf_result_predictions_release(pf_result_predictions *r)
{
    free(r->x), free(r->u), free(r->ref);
    memset(r, 0, sizeof *r);
}

/* dir/name into buf. */
static pf_status training_path(const char *dir, const char *name, char *buf, size_t cap)
{
    int n = snprintf(buf, cap, "%s/%s", dir, name);
    return n >= 0 && (size_t)n < cap ? PF_OK : pf_fail(PF_ERR_INVALID, "folder name '%s' is too long", dir);
}

pf_status pf_training_write(const char *dir, const pf_pde *p, const pf_train_result *r, const json_t *spec,
                            const char *spec_hash, const char *fidelity, const char *budget, uint64_t seed)
{
    char h5[4200], mp[4200];
    PF_TRY(pf_mkdirs(dir));
    PF_TRY(training_path(dir, "result.h5", h5, sizeof h5));
    PF_TRY(training_path(dir, "evidence.msgpack", mp, sizeof mp));
    char *spec_text = pf_spec_canonical(spec);
    if (!spec_text) return pf_fail(PF_ERR_NOMEM, "out of memory");
    pf_status st = pf_result_write(h5, p, r, spec_text, spec_hash, fidelity, seed);
    free(spec_text);
    pf_evidence_file ev;
    if (st == PF_OK && (st = pf_evidence_file_init(&ev, p, r, spec_hash, fidelity, budget, seed)) == PF_OK) {
        st = pf_evidence_file_write(mp, &ev);
        pf_evidence_file_release(&ev);
    }
    return st;
}

pf_status pf_training_write_untrained(const char *dir, const char *pde, const char *status, const char *why,
                                      const char *fidelity, const char *budget, uint64_t seed)
{
    char h5[4200], mp[4200];
    PF_TRY(pf_mkdirs(dir));
    PF_TRY(training_path(dir, "result.h5", h5, sizeof h5));
    PF_TRY(training_path(dir, "evidence.msgpack", mp, sizeof mp));
    /* result.h5 too, so both outputs exist whatever the proposal held */
    PF_TRY(pf_result_write_untrained(h5, status, why));
    pf_evidence_file ev;
    PF_TRY(pf_evidence_file_init_untrained(&ev, pde, status, why, fidelity, budget, seed));
    pf_status st = pf_evidence_file_write(mp, &ev);
    pf_evidence_file_release(&ev);
    return st;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcmp(s + n - m, suffix);
}

pf_status pf_training_input_read(const char *path, const char *pde, pf_training_input *in)
{
    memset(in, 0, sizeof *in);
    if (!ends_with(path, ".msgpack")) {
        if (!pde) return pf_fail(PF_ERR_INVALID, "--pde is required (a proposal names its PDE; a JSON spec does not)");
        if (snprintf(in->pde, sizeof in->pde, "%s", pde) >= (int)sizeof in->pde)
            return pf_fail(PF_ERR_INVALID, "PDE '%.40s...' is too long", pde);
        char *text;
        size_t len;
        PF_TRY(pf_file_read_as(path, PF_FILE_SPEC, &text, &len));
        pf_status st = pf_spec_parse(text, &in->spec);
        free(text);
        return st;
    }
    pf_proposal_file prop;
    PF_TRY(pf_proposal_file_read(path, &prop));
    /* pde may be a .pde file's path; a proposal records the name it declares */
    const pf_pde *p;
    const char *named = pde && pf_pdes_lookup(pde, &p) == PF_OK ? p->name : pde;
    pf_status st = PF_OK;
    if (named && strcmp(named, prop.pde))
        st = pf_fail(PF_ERR_INVALID, "%s is a proposal for PDE '%s', not '%s' (--pde)", path, prop.pde, pde);
    if (st == PF_OK && snprintf(in->pde, sizeof in->pde, "%s", pde ? pde : prop.pde) >= (int)sizeof in->pde)
        st = pf_fail(PF_ERR_INVALID, "PDE '%.40s...' is too long", pde);
    if (st == PF_OK && prop.call.valid) {
        in->spec = json_incref(prop.call.spec);
    } else if (st == PF_OK) {
        in->untrained = prop.skipped ? "skipped" : "invalid";
        in->why = strdup(prop.call.reasons ? prop.call.reasons : "the proposal holds no valid spec");
        if (!in->why) st = pf_fail(PF_ERR_NOMEM, "out of memory");
    }
    pf_proposal_file_release(&prop);
    return st;
}

void pf_training_input_release(pf_training_input *in)
{
    json_decref(in->spec);
    free(in->why);
    memset(in, 0, sizeof *in);
}
