/* train_graph.c — training points, the loss graph and the probes
 * (train_graph.h). */
#include "train/train_graph.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/mem.h"
#include "core/rng.h"

/* ------------------------------------------------------------- point sets */

/* Draw set s again with the next seed of its stream (n points). */
static pf_status draw(pf_train_graph *t, int s, int n)
{
    pf_train_set *S = &t->set[s];
    const pf_pde *p = t->pde;
    char tag[160];
    snprintf(tag, sizeof tag, "train.points.%s.%d", S->name, S->draws++);
    uint64_t seed = pf_rng_derive(t->seed, tag);
    pf_sample_method m = t->tc.sampling.method;
    free(S->target);
    free(S->image);
    S->target = S->image = NULL;
    pf_status st;
    if (s == 0)
        st = pf_sample_interior(t->geom, m, n, seed, &S->ps);
    else if (!strcmp(S->name, "initial"))
        st = pf_sample_initial(t->geom, m, n, seed, PF_SAMPLE_NORMALS, &S->ps);
    else
        st = pf_pde_constraint_points(p, t->geom, &p->con[S->con[0]], m, n, seed, &S->ps, &S->target);
    if (st != PF_OK) {
        char msg[512];
        snprintf(msg, sizeof msg, "%s", pf_errmsg());
        return pf_fail(st, "%s: sampling the %s points: %s", p->name, S->name, msg);
    }
    if (S->ps.n != n && S->sampled && m != PF_SAMPLE_GRID)
        return pf_fail(PF_ERR_INVALID, "%s: the %s sampler gave %d points, not %d", p->name, S->name,
                       S->ps.n, n);
    const pf_constraint *c = s > 0 && S->ncon == 1 ? &p->con[S->con[0]] : NULL;
    if (c && c->kind == PF_CON_PERIODIC && S->ps.n) {
        S->image = pf_pde_periodic_images(p, c, S->ps.n, S->ps.x);
        if (!S->image) return PF_ERR_NOMEM;
    }
    return PF_OK;
}

/* Group the constraints into sets and draw them. */
static pf_status make_sets(pf_train_graph *t)
{
    const pf_pde *p = t->pde;
    const pf_sampling_config *sc = &t->tc.sampling;
    pf_train_set *in = &t->set[0];
    in->name = "interior";
    in->sampled = true;
    t->nsets = 1;
    int ninit = -1, nbound = 0;
    for (int j = 0; j < p->ncon; j++) {
        const pf_constraint *c = &p->con[j];
        if (pf_constraint_in_interior(c)) {
            in->con[in->ncon++] = j;
            t->term_set[1 + j] = 0;
        } else if (pf_constraint_on_initial(c)) {
            if (ninit < 0) {
                ninit = t->nsets++;
                t->set[ninit].name = "initial";
                t->set[ninit].sampled = true;
            }
            pf_train_set *S = &t->set[ninit];
            S->con[S->ncon++] = j;
            if (c->order > S->order) S->order = c->order;
            t->term_set[1 + j] = ninit;
        } else {
            pf_train_set *S = &t->set[t->nsets];
            S->name = c->name;
            S->con[S->ncon++] = j;
            S->order = c->order;
            S->sampled = c->kind != PF_CON_POINTS;
            nbound += S->sampled;
            t->term_set[1 + j] = t->nsets++;
        }
    }
    PF_TRY(draw(t, 0, sc->interior));
    int k = 0;
    for (int s = 1; s < t->nsets; s++) {
        pf_train_set *S = &t->set[s];
        int n = 0;
        if (s == ninit)
            n = sc->initial;
        else if (S->sampled)
            n = sc->boundary / nbound + (k++ < sc->boundary % nbound);
        if (S->sampled && n == 0) {
            S->ps.n = 0;
            S->ps.dim = p->d_in;
            continue;
        }
        PF_TRY(draw(t, s, n));
    }
    return PF_OK;
}

/* ------------------------------------------------------------------ graph */

/* The fields on context c: token 0 at the points, or with `seq` every
 * token (c->x holds the tokens then). */
static pf_node *fields(pf_train_graph *t, pf_model *net, pf_pde_ctx *c, bool seq)
{
    pf_node *u = seq ? pf_model_apply_seq(net, c->g, c->x) : pf_model_apply(net, c->g, c->x);
    return t->hard >= 0 ? t->pde->hard[t->hard].apply(c, u) : u;
}

static pf_node *tok0(pf_graph *g, pf_node *x, int k) { return x ? pf_tokens(g, x, k, 0) : NULL; }

/* The tokens of the points of context in (before any field is built): the
 * coordinates shifted per token. A constraint's data (a Dirichlet value, a
 * Neumann flux) are graph expressions of the context's coordinates, so on
 * the tokens they are evaluated at each token's own shifted point, as the
 * released code evaluates them on its shifted sequences. What is only known
 * at the point is repeated: the normal (the shift moves the point along the
 * boundary's time or last axis) and host-evaluated auxiliary fields
 * (coefficient maps, read at the point). Observed targets are data at their
 * points: their sets are point constraints, fitted on token 0, never
 * tokenized (all_tokens). */
static void tokenize(const pf_train_graph *t, const pf_pde_ctx *in, pf_pde_ctx *out)
{
    int k = t->mc.seq_len;
    pf_graph *g = in->g;
    PF_ASSERT_MSG(in->target == NULL, "%s: observed targets on a tokenized set", t->pde->name);
    *out = *in;
    out->x = pf_tokens(g, in->x, k, (pf_real)t->mc.seq_dt);
    for (int j = 0; j < PF_PDE_MAX_AUX; j++) out->aux[j] = tok0(g, in->aux[j], k);
    out->normal = tok0(g, in->normal, k);
}

/* Sets whose losses average over every token of a sequence model: the
 * interior and the sampled boundary sets (not the initial slice, not point
 * constraints). */
static bool all_tokens(const pf_train_graph *t, int s)
{
    return pf_model_tokens(&t->mc) > 1 && (s == 0 || (t->set[s].sampled && strcmp(t->set[s].name, "initial")));
}

int pf_train_graph_set_tokens(const pf_train_graph *t, int s)
{
    return all_tokens(t, s) ? pf_model_tokens(&t->mc) : 1;
}

/* The per-point weight node of term `term` on set s (self-adaptive), or NULL. */
static pf_node *sa_field(pf_train_graph *t, int term)
{
    return t->sa_param[term] >= 0 ? pf_param_field(t->g, t->sa_param[term]) : NULL;
}

static void add_loss(pf_train_graph *t, const char *name, pf_node *ms, int term, int chunk)
{
    PF_ASSERT(t->nloss < PF_TRAIN_MAX_LOSSES);
    pf_loss(t->g, name, ms);
    t->loss_term[t->nloss] = term;
    t->loss_chunk[t->nloss] = chunk;
    t->nloss++;
}

static pf_status build(pf_train_graph *t)
{
    const pf_pde *p = t->pde;
    pf_graph *g = pf_graph_alloc(t->be);
    if (!g) return pf_fail(PF_ERR_NOMEM, "out of memory for the training graph");
    t->g = g;
    t->builds++;
    pf_model *net = pf_model_alloc(g, &t->mc);
    if (!net) return PF_ERR_INVALID;
    t->nmodel_ids = pf_graph_param_count(g);
    /* self-adaptive weights: one field per soft term with points */
    for (int k = 0; k < t->nterms; k++) {
        t->sa_param[k] = -1;
        int s = t->term_set[k];
        if (t->tc.loss.weighting != PF_WEIGHTING_SELF_ADAPTIVE || t->term_hard[k] || s < 0 ||
            t->set[s].ps.n == 0)
            continue;
        char name[96];
        snprintf(name, sizeof name, "sa.%s", t->term_name[k]);
        t->sa_param[k] = pf_param(g, name, t->set[s].ps.n, 1, PF_PARAM_TRAINABLE, pf_init_const(1));
    }
    t->nloss = 0;
    int ntok = pf_model_tokens(&t->mc);
    for (int s = 0; s < t->nsets; s++) {
        pf_train_set *S = &t->set[s];
        int n = S->ps.n;
        if (n == 0) continue;
        int orders[PF_PDE_MAX_IN];
        for (int i = 0; i < p->d_in; i++) orders[i] = s == 0 ? p->orders[i] : S->order;
        bool seq = all_tokens(t, s);
        int kk = seq ? ntok : 1; /* token rows per point of this set's losses */
        pf_pde_ctx *c = &S->ctx;
        pf_pde_ctx_init(c, p, g, orders, s == 0 && ntok == 1, n);
        pf_pde_ctx_add_aux(c, n);
        S->normal = S->ps.normal ? pf_input(g, "normal", n, p->d_in, NULL, NULL) : NULL;
        c->normal = S->normal;
        if (S->target) c->target = pf_input(g, "target", n, 1, NULL, NULL);
        if (S->image) {
            pf_pde_ctx_init(&S->ctx_image, p, g, orders, false, n);
            S->ctx_image.normal = S->normal;
        }
        if (seq) { /* the residuals see the tokens */
            tokenize(t, c, &S->tok);
            if (S->image) tokenize(t, &S->ctx_image, &S->tok_image);
            c = &S->tok;
        }
        if (S->image) c->u_pair = fields(t, net, seq ? &S->tok_image : &S->ctx_image, seq);
        c->u = fields(t, net, c, seq);
        if (s == 0) {
            pf_node *lam = sa_field(t, 0);
            if (lam && kk > 1) lam = tok0(g, lam, kk);
            for (int ch = 0; ch < t->nchunks && t->tc.loss.causal; ch++)
                t->mask[ch] = pf_input(g, "causal_mask", n, 1, NULL, NULL);
            for (int e = 0; e < p->neq; e++) {
                pf_node *r = p->residual(c, e);
                if (!t->tc.loss.causal) {
                    add_loss(t, "pde", pf_mean_square(g, r, lam), 0, -1);
                    continue;
                }
                for (int ch = 0; ch < t->nchunks; ch++) {
                    pf_node *m = kk > 1 ? tok0(g, t->mask[ch], kk) : t->mask[ch];
                    pf_node *w = lam ? pf_mul(g, lam, m) : m;
                    add_loss(t, "pde", pf_mean_square(g, r, w), 0, ch);
                }
            }
        }
        for (int k = 0; k < S->ncon; k++) {
            int j = S->con[k];
            pf_node *lam = sa_field(t, 1 + j);
            if (lam && kk > 1) lam = tok0(g, lam, kk);
            add_loss(t, p->con[j].name, pf_mean_square(g, p->con[j].residual(c), lam), 1 + j, -1);
        }
    }
    pf_model_free(net);
    PF_TRY(pf_graph_compile(g, pf_rng_derive(t->seed, "train.params")));
    size_t nm = 0;
    for (int id = 0; id < t->nmodel_ids; id++) {
        int r, cc;
        pf_graph_param_shape(g, id, &r, &cc);
        if (pf_graph_param_grad(g, id)) nm += (size_t)r * (size_t)cc;
    }
    t->nmodel = nm;
    return PF_OK;
}

/* Host room for one upload: `work` holds a set's auxiliary fields or one
 * causal mask, `chunk_of` the chunk of each interior point. Sized to the
 * largest set of the graph (made again when RAR-D grows it), so uploads
 * allocate nothing. */
static pf_status alloc_work(pf_train_graph *t)
{
    int most = 1;
    for (int s = 0; s < t->nsets; s++) most = t->set[s].ps.n > most ? t->set[s].ps.n : most;
    if (most <= t->work_n) return PF_OK;
    pf_real *w = pf_aligned_alloc(sizeof(pf_real) * (size_t)most);
    int *c = malloc(sizeof(int) * (size_t)most);
    if (!w || !c) {
        free(w);
        free(c);
        return pf_fail(PF_ERR_NOMEM, "out of memory for %d points", most);
    }
    free(t->work);
    free(t->chunk_of);
    t->work = w;
    t->chunk_of = c;
    t->work_n = most;
    return PF_OK;
}

/* The causal masks of interior points x (n of them): mask_i = n / n_i on the
 * points of chunk i (time in [t0 + i dt, t0 + (i + 1) dt)), 0 elsewhere. */
static void upload_masks(pf_train_graph *t, const pf_real *x, int n)
{
    const pf_pde *p = t->pde;
    int M = t->nchunks, ti = p->time_input;
    int *chunk = t->chunk_of;
    pf_real *m = t->work;
    int cnt[PF_TRAIN_MAX_CHUNKS] = {0};
    PF_ASSERT(n <= t->work_n);
    double t0 = p->lo[ti], dt = (p->hi[ti] - p->lo[ti]) / M;
    for (int i = 0; i < n; i++) {
        int c = (int)floor(((double)x[(size_t)i * p->d_in + ti] - t0) / dt);
        chunk[i] = c < 0 ? 0 : c >= M ? M - 1 : c;
        cnt[chunk[i]]++;
    }
    for (int c = 0; c < M; c++) {
        for (int i = 0; i < n; i++) m[i] = chunk[i] == c ? (pf_real)((double)n / cnt[c]) : 0;
        pf_graph_set_input(t->g, t->mask[c], m);
    }
}

/* Set s's coordinates x (its own points, or the interior's perturbed ones)
 * and what depends on them: auxiliary fields, causal masks. */
static pf_status upload_x(pf_train_graph *t, int s, const pf_real *x)
{
    pf_train_set *S = &t->set[s];
    int n = S->ps.n;
    pf_graph_set_input(t->g, S->ctx.x, x);
    if (t->pde->naux) {
        PF_ASSERT(n <= t->work_n);
        PF_TRY(pf_pde_ctx_set_aux(&S->ctx, x, n, t->work));
    }
    if (s == 0 && t->tc.loss.causal) upload_masks(t, x, n);
    return PF_OK;
}

static pf_status upload_set(pf_train_graph *t, int s)
{
    pf_train_set *S = &t->set[s];
    int n = S->ps.n;
    if (n == 0) return PF_OK;
    if (S->normal) pf_graph_set_input(t->g, S->normal, S->ps.normal);
    if (S->target) pf_graph_set_input(t->g, S->ctx.target, S->target);
    if (S->image) pf_graph_set_input(t->g, S->ctx_image.x, S->image);
    return upload_x(t, s, S->ps.x);
}

static void reset_sa(pf_train_graph *t, int s)
{
    for (int k = 0; k < t->nterms; k++) {
        if (t->sa_param[k] < 0 || t->term_set[k] != s) continue;
        int r, c;
        pf_graph_param_shape(t->g, t->sa_param[k], &r, &c);
        pf_real *one = malloc(sizeof(pf_real) * (size_t)r * (size_t)c);
        PF_ASSERT_MSG(one != NULL, "out of memory resetting %d self-adaptive weights", r * c);
        for (int i = 0; i < r * c; i++) one[i] = 1;
        t->be->upload(pf_graph_param_data(t->g, t->sa_param[k]), one, sizeof(pf_real) * (size_t)r * (size_t)c);
        free(one);
    }
}

/* ----------------------------------------------------------------- probes */

static pf_status build_probes(pf_train_graph *t)
{
    const pf_pde *p = t->pde;
    int B = PF_TRAIN_PROBE_BATCH;
    t->probe_r = pf_graph_alloc(t->be);
    t->probe_u = pf_graph_alloc(t->be);
    t->scratch = pf_aligned_alloc(sizeof(pf_real) * (size_t)B * (size_t)(p->d_in + 1 + p->d_out));
    if (!t->probe_r || !t->probe_u || !t->scratch) return pf_fail(PF_ERR_NOMEM, "out of memory for the probes");
    pf_model *a = pf_model_alloc(t->probe_r, &t->mc);
    if (!a) return PF_ERR_INVALID;
    int k = pf_model_tokens(&t->mc);
    pf_pde_ctx_init(&t->pctx_r, p, t->probe_r, p->orders, k == 1, B);
    pf_pde_ctx_add_aux(&t->pctx_r, B);
    if (k == 1) {
        t->pctx_r.u = fields(t, a, &t->pctx_r, false);
        for (int e = 0; e < p->neq; e++) t->probe_res[e] = p->residual(&t->pctx_r, e);
    } else { /* token 0's residual, from the tokens as in training */
        pf_pde_ctx tc;
        tokenize(t, &t->pctx_r, &tc);
        tc.u = fields(t, a, &tc, true);
        for (int e = 0; e < p->neq; e++)
            t->probe_res[e] = pf_token_select(t->probe_r, p->residual(&tc, e), k, 0);
    }
    pf_model_free(a);
    pf_model *b = pf_model_alloc(t->probe_u, &t->mc);
    if (!b) return PF_ERR_INVALID;
    pf_pde_ctx_init(&t->pctx_u, p, t->probe_u, NULL, false, B);
    pf_pde_ctx_add_aux(&t->pctx_u, B);
    t->probe_out = pf_deriv(t->probe_u, fields(t, b, &t->pctx_u, false), 0, 0);
    pf_model_free(b);
    PF_TRY(pf_graph_compile(t->probe_r, 0));
    return pf_graph_compile(t->probe_u, 0);
}

/* Parameters 0..nids-1 from one graph to another on the same backend. */
static void copy_params(pf_graph *to, const pf_graph *from, int nids)
{
    for (int id = 0; id < nids; id++) {
        int r, c;
        pf_graph_param_shape(from, id, &r, &c);
        pf_graph_backend(to)->copy(pf_graph_param_data(to, id), pf_graph_param_read(from, id),
                                   (size_t)r * (size_t)c);
    }
}

void pf_train_graph_sync_probes(pf_train_graph *t)
{
    copy_params(t->probe_r, t->g, t->nmodel_ids);
    copy_params(t->probe_u, t->g, t->nmodel_ids);
}

/* Push n points through probe graph g in batches: load(batch) then forward
 * then take(batch). */
static pf_status probe_batches(pf_train_graph *t, pf_graph *g, pf_pde_ctx *c, const pf_real *x, int n,
                               void (*take)(pf_train_graph *, int off, int m, void *), void *arg)
{
    int B = PF_TRAIN_PROBE_BATCH, d = t->pde->d_in;
    pf_real *xb = t->scratch, *work = t->scratch + (size_t)B * d;
    for (int off = 0; off < n; off += B) {
        int m = n - off < B ? n - off : B;
        memcpy(xb, x + (size_t)off * d, sizeof(pf_real) * (size_t)m * d);
        for (int i = m; i < B; i++) memcpy(xb + (size_t)i * d, xb, sizeof(pf_real) * (size_t)d);
        pf_graph_set_input(g, c->x, xb);
        PF_TRY(pf_pde_ctx_set_aux(c, xb, B, work));
        pf_graph_forward(g);
        take(t, off, m, arg);
    }
    return PF_OK;
}

static void take_residual(pf_train_graph *t, int off, int m, void *arg)
{
    double *r = (double *)arg + off;
    pf_real *v = t->scratch + (size_t)PF_TRAIN_PROBE_BATCH * t->pde->d_in;
    for (int i = 0; i < m; i++) r[i] = 0;
    for (int e = 0; e < t->pde->neq; e++) {
        pf_graph_read(t->probe_r, t->probe_res[e], v);
        for (int i = 0; i < m; i++) r[i] += (double)v[i] * v[i];
    }
    for (int i = 0; i < m; i++) r[i] = sqrt(r[i]);
}

pf_status pf_train_graph_residual(pf_train_graph *t, const pf_real *x, int n, double *r)
{
    return probe_batches(t, t->probe_r, &t->pctx_r, x, n, take_residual, r);
}

static void take_values(pf_train_graph *t, int off, int m, void *arg)
{
    int B = PF_TRAIN_PROBE_BATCH, d = t->pde->d_out;
    pf_real *u = (pf_real *)arg + (size_t)off * d;
    pf_real *v = t->scratch + (size_t)B * t->pde->d_in + B;
    pf_graph_read(t->probe_u, t->probe_out, v);
    memcpy(u, v, sizeof(pf_real) * (size_t)m * d);
}

pf_status pf_train_graph_values(pf_train_graph *t, const pf_real *x, int n, pf_real *u)
{
    return probe_batches(t, t->probe_u, &t->pctx_u, x, n, take_values, u);
}

/* --------------------------------------------------------------- lifecycle */

pf_status pf_train_graph_alloc_on(const pf_backend *be, const pf_pde *p, const pf_model_config *mc,
                                  const pf_train_config *tc, uint64_t seed, pf_train_graph **out)
{
    *out = NULL;
    pf_train_graph *t = calloc(1, sizeof *t);
    if (!t) return pf_fail(PF_ERR_NOMEM, "out of memory");
    t->be = be;
    t->pde = p;
    t->mc = *mc;
    t->tc = *tc;
    t->seed = seed;
    t->nterms = 1 + p->ncon;
    t->term_name[0] = "pde";
    t->term_set[0] = 0;
    t->hard = tc->constraints.mode == PF_CONSTRAINT_HARD ? tc->constraints.transform : -1;
    for (int j = 0; j < p->ncon; j++) {
        t->term_name[1 + j] = p->con[j].name;
        t->term_set[1 + j] = -1;
        t->term_hard[1 + j] = t->hard >= 0 && pf_hard_satisfies(&p->hard[t->hard], p->con[j].name);
    }
    t->nchunks = tc->loss.causal ? tc->loss.causal_chunks : 1;
    pf_status st = PF_OK;
    if (t->nchunks > PF_TRAIN_MAX_CHUNKS)
        st = pf_fail(PF_ERR_INVALID, "loss.causal.chunks: at most %d", PF_TRAIN_MAX_CHUNKS);
    if (st == PF_OK && tc->loss.causal && p->time_input < 0)
        st = pf_fail(PF_ERR_INVALID, "%s: causal weighting needs a time-dependent PDE", p->name);
    if (st == PF_OK) st = pf_pde_data_check(p);
    if (st == PF_OK) st = p->geometry(p, &t->geom);
    if (st == PF_OK) st = make_sets(t);
    if (st == PF_OK) st = build(t);
    if (st == PF_OK) st = alloc_work(t);
    for (int s = 0; st == PF_OK && s < t->nsets; s++) st = upload_set(t, s);
    if (st == PF_OK) st = build_probes(t);
    if (st != PF_OK) {
        pf_train_graph_free(t);
        return st;
    }
    *out = t;
    return PF_OK;
}

void pf_train_graph_free(pf_train_graph *t)
{
    if (!t) return;
    for (int s = 0; s < t->nsets; s++) {
        pf_point_set_release(&t->set[s].ps);
        free(t->set[s].target);
        free(t->set[s].image);
    }
    pf_graph_free(t->g);
    pf_graph_free(t->probe_r);
    pf_graph_free(t->probe_u);
    free(t->scratch);
    free(t->work);
    free(t->chunk_of);
    pf_geom_free(t->geom);
    free(t);
}

pf_status pf_train_graph_resample(pf_train_graph *t)
{
    for (int s = 0; s < t->nsets; s++) {
        pf_train_set *S = &t->set[s];
        if (!S->sampled || S->ps.n == 0) continue;
        int n = S->ps.n;
        PF_TRY(draw(t, s, n));
        if (S->ps.n != n)
            return pf_fail(PF_ERR_INVALID, "%s: redrawing the %s points gave %d, not %d", t->pde->name,
                           S->name, S->ps.n, n);
        PF_TRY(upload_set(t, s));
        reset_sa(t, s);
    }
    return PF_OK;
}

pf_status pf_train_graph_set_interior(pf_train_graph *t, const pf_real *x)
{
    pf_point_set *ps = &t->set[0].ps;
    memcpy(ps->x, x, sizeof(pf_real) * (size_t)ps->n * (size_t)t->pde->d_in);
    PF_TRY(upload_set(t, 0));
    reset_sa(t, 0);
    return PF_OK;
}

pf_status pf_train_graph_upload_interior(pf_train_graph *t, const pf_real *x)
{
    if (t->set[0].ps.n == 0) return PF_OK;
    return upload_x(t, 0, x);
}

pf_status pf_train_graph_add_interior(pf_train_graph *t, const pf_real *x, int n)
{
    pf_point_set *ps = &t->set[0].ps;
    int d = t->pde->d_in, old = ps->n;
    pf_real *nx = pf_aligned_alloc(sizeof(pf_real) * (size_t)(old + n) * (size_t)d);
    if (!nx) return pf_fail(PF_ERR_NOMEM, "out of memory for %d interior points", old + n);
    memcpy(nx, ps->x, sizeof(pf_real) * (size_t)old * d);
    memcpy(nx + (size_t)old * d, x, sizeof(pf_real) * (size_t)n * d);
    free(ps->x);
    ps->x = nx;
    ps->n = old + n;
    /* rebuild, carrying the parameters over */
    pf_graph *prev = t->g;
    int prev_sa[PF_TRAIN_MAX_TERMS];
    memcpy(prev_sa, t->sa_param, sizeof prev_sa);
    t->g = NULL;
    pf_status st = build(t);
    if (st == PF_OK) st = alloc_work(t);
    for (int s = 0; st == PF_OK && s < t->nsets; s++) st = upload_set(t, s);
    if (st != PF_OK) {
        pf_graph_free(t->g);
        t->g = prev;
        return st;
    }
    copy_params(t->g, prev, t->nmodel_ids);
    for (int k = 0; k < t->nterms; k++) {
        if (prev_sa[k] < 0 || t->sa_param[k] < 0) continue;
        int r0, c0, r1, c1;
        pf_graph_param_shape(prev, prev_sa[k], &r0, &c0);
        pf_graph_param_shape(t->g, t->sa_param[k], &r1, &c1);
        t->be->copy(pf_graph_param_data(t->g, t->sa_param[k]), pf_graph_param_read(prev, prev_sa[k]),
                    (size_t)(r0 * c0 < r1 * c1 ? r0 * c0 : r1 * c1));
    }
    pf_graph_free(prev);
    return PF_OK;
}
