#include "geom/pde.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "geom/geometry.h"
#include "geom/sample.h"
#include "io/data_dir.h"

static const char *const tag_names[PF_TAG_COUNT] = {
    "time_dependent", "periodic", "multiscale", "complex_geometry", "steep",
    "high_dim", "inverse", "nonlinear", "coupled", "long_time", "high_order",
    "chaotic", "variable_coefficient",
};

const char *pf_pde_tag_name(int b) { return b >= 0 && b < PF_TAG_COUNT ? tag_names[b] : "?"; }

static const char *const con_names[PF_CON_COUNT] = {
    "initial", "dirichlet", "neumann", "robin", "periodic", "points", "inequality",
};

const char *pf_constraint_kind_name(pf_constraint_kind k)
{
    return (unsigned)k < PF_CON_COUNT ? con_names[k] : "?";
}

/* Channel k of a value-only n x d_out field. */
static pf_node *channel(pf_pde_ctx *c, pf_node *v, int k)
{
    return pf_node_c(v) == 1 ? v : pf_slice(c->g, v, k, 1);
}

pf_node *pf_pde_d(pf_pde_ctx *c, int k, int i, int m)
{
    PF_ASSERT(k >= 0 && k < c->pde->d_out && i >= 0 && i < c->pde->d_in);
    PF_ASSERT(m >= 0 && m <= PF_JET_MAX_ORDER);
    PF_ASSERT_MSG(c->u != NULL, "%s: this context has no fields", c->pde->name);
    if (m == 0) i = 0; /* the value does not depend on the direction */
    if (c->memo_d[k][i][m]) return c->memo_d[k][i][m];
    int d = c->dir[i];
    PF_ASSERT_MSG(m == 0 || (d >= 0 && pf_node_layout(c->u)->order[d] >= m),
                  "%s: d^%d %s/d%s^%d is not carried by the points' jet layout", c->pde->name, m,
                  c->pde->outputs[k], c->pde->inputs[i], m);
    pf_node *v = pf_deriv(c->g, c->u, m ? d : 0, m);
    return c->memo_d[k][i][m] = channel(c, v, k);
}

pf_node *pf_pde_lap(pf_pde_ctx *c, int k, const double *w)
{
    if (!w && c->lap >= 0) return channel(c, pf_deriv_collapsed(c->g, c->u, c->lap), k);
    pf_node *s = NULL;
    for (int i = 0; i < c->pde->d_in; i++) {
        double wi = w ? w[i] : (i == c->pde->time_input ? 0 : 1);
        if (wi == 0) continue;
        pf_node *t = pf_pde_d(c, k, i, 2);
        if (wi != 1) t = pf_scale(c->g, t, (pf_real)wi);
        s = s ? pf_add(c->g, s, t) : t;
    }
    PF_ASSERT_MSG(s != NULL, "%s: a Laplacian over no input", c->pde->name);
    return s;
}

/* A context without points is what a lift's data callback gets (lift.h):
 * it may read only the face coordinates it is handed. */
static void need_points(const pf_pde_ctx *c)
{
    PF_ASSERT_MSG(c->x != NULL, "%s: this context has no points (lift data may use only the projected "
                  "coordinates they are given)", c->pde->name);
}

pf_node *pf_pde_x(pf_pde_ctx *c, int i)
{
    PF_ASSERT(i >= 0 && i < c->pde->d_in);
    need_points(c);
    if (!c->memo_x[i]) c->memo_x[i] = channel(c, pf_deriv(c->g, c->x, 0, 0), i);
    return c->memo_x[i];
}

pf_node *pf_pde_xj(pf_pde_ctx *c, int i)
{
    PF_ASSERT(i >= 0 && i < c->pde->d_in);
    need_points(c);
    return pf_node_c(c->x) == 1 ? c->x : pf_slice(c->g, c->x, i, 1);
}

pf_node *pf_pde_dn(pf_pde_ctx *c, int k)
{
    PF_ASSERT_MSG(c->normal != NULL, "%s: a normal derivative needs boundary normals", c->pde->name);
    pf_node *s = NULL;
    for (int i = 0; i < c->pde->d_in; i++) {
        if (i == c->pde->time_input) continue;
        pf_node *ni = pf_node_c(c->normal) == 1 ? c->normal : pf_slice(c->g, c->normal, i, 1);
        pf_node *t = pf_mul(c->g, ni, pf_pde_d(c, k, i, 1));
        s = s ? pf_add(c->g, s, t) : t;
    }
    return s;
}

pf_node *pf_pde_bubble(pf_pde_ctx *c)
{
    pf_node *b = NULL;
    for (int i = 0; i < c->pde->d_in; i++) {
        if (i == c->pde->time_input) continue;
        pf_node *x = pf_pde_xj(c, i);
        pf_node *lo = pf_add_const(c->g, x, (pf_real)-c->pde->lo[i]);
        pf_node *hi = pf_add_const(c->g, pf_scale(c->g, x, -1), (pf_real)c->pde->hi[i]);
        pf_node *t = pf_mul(c->g, lo, hi);
        b = b ? pf_mul(c->g, b, t) : t;
    }
    PF_ASSERT_MSG(b != NULL, "%s: a bubble needs a spatial input", c->pde->name);
    return b;
}

pf_node *pf_pde_step(pf_pde_ctx *c, pf_node *z)
{
    pf_node *a = pf_add_const(c->g, pf_scale(c->g, z, (pf_real)PF_PDE_SWITCH_GAIN), 40);
    return pf_unary(c->g, PF_UNARY_SIGMOID, a, 0);
}

pf_node *pf_pde_relu(pf_pde_ctx *c, pf_node *z)
{
    return pf_mul(c->g, z, pf_unary(c->g, PF_UNARY_SIGMOID, pf_scale(c->g, z, (pf_real)PF_PDE_SWITCH_GAIN), 0));
}

pf_node *pf_pde_aux(pf_pde_ctx *c, int k)
{
    PF_ASSERT_MSG(k >= 0 && k < c->pde->naux && c->aux[k],
                  "%s: auxiliary field %d is not in the context (pf_pde_ctx_add_aux)", c->pde->name, k);
    return c->aux[k];
}

pf_node *pf_pde_target(pf_pde_ctx *c)
{
    PF_ASSERT_MSG(c->target != NULL, "%s: a data constraint needs target values", c->pde->name);
    return c->target;
}

pf_node *pf_pde_pair(pf_pde_ctx *c, int k)
{
    PF_ASSERT_MSG(c->u_pair != NULL, "%s: a periodic constraint needs the image points' fields",
                  c->pde->name);
    return channel(c, pf_deriv(c->g, c->u_pair, 0, 0), k);
}

void pf_pde_ctx_init(pf_pde_ctx *c, const pf_pde *p, pf_graph *g, const int *orders,
                     bool collapse_lap, int n)
{
    static const int none[PF_PDE_MAX_IN];
    memset(c, 0, sizeof *c);
    c->pde = p;
    c->g = g;
    pf_jet_layout L;
    pf_real dirs[PF_JET_MAX_DIRS * PF_PDE_MAX_IN] = {0};
    pf_pde_layout(p, orders ? orders : none, collapse_lap, &L, dirs, c);
    c->x = pf_input(g, "x", n, p->d_in, &L, dirs);
}

void pf_pde_ctx_add_aux(pf_pde_ctx *c, int n)
{
    for (int k = 0; k < c->pde->naux; k++) c->aux[k] = pf_input(c->g, c->pde->aux_names[k], n, 1, NULL, NULL);
}

pf_status pf_pde_ctx_set_aux(pf_pde_ctx *c, const pf_real *x, int n, pf_real *work)
{
    for (int k = 0; k < c->pde->naux; k++) {
        PF_TRY(c->pde->aux(c->pde, k, x, n, work));
        pf_graph_set_input(c->g, c->aux[k], work);
    }
    return PF_OK;
}

void pf_pde_layout(const pf_pde *p, const int *orders, bool collapse_lap, pf_jet_layout *L,
                   pf_real *dirs, pf_pde_ctx *c)
{
    *L = pf_jet_layout_none();
    bool coll[PF_PDE_MAX_IN] = {false}, any = false;
    c->lap = -1;
    for (int i = 0; i < p->d_in; i++) {
        c->dir[i] = -1;
        if (orders[i] <= 0) continue;
        coll[i] = collapse_lap && p->laplacian_only && i != p->time_input && orders[i] == 2;
        any |= coll[i];
        c->dir[i] = pf_jet_add_dir(L, coll[i] ? 1 : orders[i]);
        for (int j = 0; j < p->d_in; j++) dirs[c->dir[i] * p->d_in + j] = j == i;
    }
    if (any) {
        pf_real w[PF_JET_MAX_DIRS] = {0};
        for (int i = 0; i < p->d_in; i++)
            if (coll[i]) w[c->dir[i]] = 1;
        c->lap = pf_jet_add_collapsed(L, w);
    }
}

void pf_reference_release(pf_reference *r)
{
    free(r->x);
    free(r->u);
    memset(r, 0, sizeof *r);
}

typedef struct split_key {
    uint64_t cell, key;
    int i;
} split_key;

static int by_cell_then_key(const void *a, const void *b)
{
    const split_key *x = a, *y = b;
    if (x->cell != y->cell) return x->cell < y->cell ? -1 : 1;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return x->i - y->i;
}

static uint64_t mix64(uint64_t z) /* splitmix64's finaliser */
{
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

pf_status pf_reference_split(const pf_pde *p, const pf_reference *r, unsigned char *report)
{
    int d = r->d_in, b = (int)floor(pow(64.0, 1.0 / d) + 1e-9);
    if (b < 2) b = 2;
    split_key *k = malloc(sizeof *k * (size_t)(r->n > 0 ? r->n : 1));
    if (!k) return pf_fail(PF_ERR_NOMEM, "out of memory splitting %d evaluation points", r->n);
    for (int i = 0; i < r->n; i++) {
        uint64_t cell = 0;
        for (int j = 0; j < d; j++) {
            double lo = p->lo[j], hi = p->hi[j], v = (double)r->x[(size_t)i * (size_t)d + (size_t)j];
            int c = hi > lo ? (int)floor((v - lo) / (hi - lo) * b) : 0;
            c = c < 0 ? 0 : c >= b ? b - 1 : c;
            cell = cell * (uint64_t)b + (uint64_t)c;
        }
        k[i] = (split_key){cell, mix64(PF_REFERENCE_SPLIT_SEED ^ mix64((uint64_t)i)), i};
    }
    qsort(k, (size_t)r->n, sizeof *k, by_cell_then_key);
    for (int i = 0; i < r->n; i++) report[k[i].i] = (unsigned char)(i % 2);
    free(k);
    return PF_OK;
}

static pf_status reference_alloc(pf_reference *r, int n, int d_in, int d_out)
{
    r->n = n;
    r->d_in = d_in;
    r->d_out = d_out;
    r->x = malloc(sizeof(pf_real) * ((size_t)n * d_in + 1));
    r->u = malloc(sizeof(pf_real) * ((size_t)n * d_out + 1));
    return r->x && r->u ? PF_OK : pf_fail(PF_ERR_NOMEM, "out of memory for %d reference points", n);
}

static pf_status analytic_reference(const pf_pde *p, pf_reference *out)
{
    pf_geom *g;
    PF_TRY(p->geometry(p, &g));
    pf_point_set ps;
    pf_point_set_init(&ps);
    pf_status st = p->eval_points ? p->eval_points(p, g, &ps)
                                  : pf_sample_grid_pinnacle(g, p->d_in == 2 ? 2500 : 20000, &ps);
    pf_geom_free(g);
    if (st == PF_OK) st = reference_alloc(out, ps.n, p->d_in, p->d_out);
    for (int i = 0; st == PF_OK && i < ps.n; i++) {
        double x[PF_PDE_MAX_IN], u[PF_PDE_MAX_OUT];
        for (int j = 0; j < p->d_in; j++) x[j] = out->x[i * p->d_in + j] = ps.x[i * p->d_in + j];
        p->exact(p, x, u);
        for (int k = 0; k < p->d_out; k++) out->u[i * p->d_out + k] = (pf_real)u[k];
    }
    pf_point_set_release(&ps);
    return st;
}

static pf_status data_reference(const pf_pde *p, pf_reference *out)
{
    pf_dat *d;
    PF_TRY(pf_dat_load(p->ref_file, p->d_in, p->d_out, p->ref_layout, &d));
    pf_status st = reference_alloc(out, (int)d->n, p->d_in, p->d_out);
    if (st == PF_OK) {
        memcpy(out->x, d->inputs, sizeof(pf_real) * d->n * (size_t)p->d_in);
        memcpy(out->u, d->outputs, sizeof(pf_real) * d->n * (size_t)p->d_out);
    }
    pf_dat_free(d);
    return st;
}

static pf_status table_reference(const pf_pde *p, pf_reference *out)
{
    PF_TRY(reference_alloc(out, p->ref_rows, p->d_in, p->d_out));
    for (size_t i = 0; i < (size_t)p->ref_rows * (size_t)p->d_in; i++) out->x[i] = (pf_real)p->ref_x[i];
    for (size_t i = 0; i < (size_t)p->ref_rows * (size_t)p->d_out; i++) out->u[i] = (pf_real)p->ref_u[i];
    return PF_OK;
}

/* A file of `make refs`: read as PINNacle's once built; until then the PDE
 * has no reference (trainable, no MSE), as before the solvers existed. */
static pf_status generated_reference(const pf_pde *p, pf_reference *out)
{
    char path[PF_DATA_PATH_MAX];
    if (pf_data_path(p->ref_file, path, sizeof path) != PF_OK)
        return pf_fail(PF_ERR_UNSUPPORTED, "%s: its reference %s is not built yet (run make refs PDE=%s)",
                       p->name, path, p->name);
    return data_reference(p, out);
}

pf_status pf_pde_reference(const pf_pde *p, pf_reference *out)
{
    memset(out, 0, sizeof *out);
    switch (p->ref) {
    case PF_REF_ANALYTIC: return analytic_reference(p, out);
    case PF_REF_DATA: return data_reference(p, out);
    case PF_REF_GENERATED: return generated_reference(p, out);
    case PF_REF_TABLE: return table_reference(p, out);
    case PF_REF_MISSING: break;
    }
    return pf_fail(PF_ERR_UNSUPPORTED, "%s has no reference solution (its file is not available); "
                   "it can be trained, but has no MSE", p->name);
}

pf_status pf_pde_data_check(const pf_pde *p)
{
    for (const char *f = p->data_files; f && *f;) {
        const char *e = strchr(f, ',');
        size_t len = e ? (size_t)(e - f) : strlen(f);
        char name[256], path[PF_DATA_PATH_MAX];
        PF_ASSERT(len < sizeof name);
        memcpy(name, f, len);
        name[len] = 0;
        PF_TRY(pf_data_path(name, path, sizeof path));
        PF_TRY(pf_data_verify(name, path, NULL));
        f = e ? e + 1 : f + len;
    }
    return PF_OK;
}

pf_status pf_pde_inputs_check(const pf_pde *p, int *neval)
{
    *neval = -1;
    PF_TRY(pf_pde_data_check(p));
    pf_reference r;
    pf_status st = pf_pde_reference(p, &r);
    if (st == PF_OK) *neval = r.n;
    pf_reference_release(&r);
    return st == PF_ERR_UNSUPPORTED ? PF_OK : st;
}

bool pf_hard_satisfies(const pf_hard_transform *h, const char *name)
{
    size_t n = strlen(name);
    for (const char *q = h->satisfies; q && *q;) {
        const char *e = strchr(q, ',');
        size_t len = e ? (size_t)(e - q) : strlen(q);
        if (len == n && !strncmp(q, name, n)) return true;
        q = e ? e + 1 : NULL;
    }
    return false;
}

bool pf_constraint_on_initial(const pf_constraint *c)
{
    return c->kind == PF_CON_INITIAL || (c->parts && !strcmp(c->parts, "initial"));
}

bool pf_constraint_in_interior(const pf_constraint *c)
{
    return c->kind == PF_CON_INEQUALITY && !c->parts;
}

#define WHERE_BATCHES 1000 /* a condition that holds at under 1 in WHERE_BATCHES points is refused */

/* Row i of boundary set b appended to ps as its point `kept`. */
static void where_keep(const pf_point_set *b, int i, pf_point_set *ps, int kept)
{
    size_t d = (size_t)b->dim;
    memcpy(ps->x + (size_t)kept * d, b->x + (size_t)i * d, sizeof(pf_real) * d);
    memcpy(ps->normal + (size_t)kept * d, b->normal + (size_t)i * d, sizeof(pf_real) * d);
    ps->part[kept] = b->part[i];
}

static bool where_holds(const pf_pde *p, const pf_geom *g, const pf_constraint *c, const pf_point_set *b, int i)
{
    return c->where(p, c, pf_geom_part_name(g, b->part[i]), b->x + (size_t)i * b->dim);
}

/* Hammersley: the smallest N-point boundary set (N grown from n) where the
 * condition holds at m >= n points, thinned evenly by index to n of them
 * (ranks floor(j m / n)), as the samplers thin a clipped shape. */
static pf_status where_hammersley(const pf_pde *p, const pf_geom *g, const pf_constraint *c, int n, pf_point_set *b,
                                  pf_point_set *ps, int *kept)
{
    long N = n, m = 0;
    for (;;) {
        PF_TRY(pf_sample_boundary(g, PF_SAMPLE_HAMMERSLEY, c->parts, (int)N, 0, PF_SAMPLE_NORMALS, b));
        m = 0;
        for (int i = 0; i < b->n; i++) m += where_holds(p, g, c, b, i);
        if (m >= n) break;
        long next = m ? (long)ceil(1.02 * (double)N * n / (double)m) + 16 : 4 * N;
        if (next > (long)n * WHERE_BATCHES || next > PF_SAMPLE_MAX_POINTS) return PF_OK;
        N = next;
    }
    long rank = 0;
    for (int i = 0; i < b->n && *kept < n; i++)
        if (where_holds(p, g, c, b, i) && rank++ == (long)*kept * m / n) where_keep(b, i, ps, (*kept)++);
    return PF_OK;
}

/* n points of c->parts where c->where holds. Hammersley: where_hammersley.
 * Any other method: batches of n uniform boundary points (seeds derived
 * from `seed`), the points kept in order, until there are n. */
static pf_status sample_where(const pf_pde *p, const pf_geom *g, const pf_constraint *c, int method, int n,
                              uint64_t seed, pf_point_set *ps)
{
    int d = p->d_in, kept = 0;
    pf_point_set b;
    pf_point_set_init(&b);
    pf_point_set_release(ps);
    ps->dim = d;
    ps->x = malloc(sizeof(pf_real) * (size_t)n * (size_t)d);
    ps->normal = malloc(sizeof(pf_real) * (size_t)n * (size_t)d);
    ps->part = malloc(sizeof(int) * (size_t)n);
    if (!ps->x || !ps->normal || !ps->part) return pf_fail(PF_ERR_NOMEM, "out of memory for %d points", n);
    pf_status st = PF_OK;
    if (method == PF_SAMPLE_HAMMERSLEY) st = where_hammersley(p, g, c, n, &b, ps, &kept);
    for (int batch = 0; method != PF_SAMPLE_HAMMERSLEY && st == PF_OK && kept < n && batch < WHERE_BATCHES;
         batch++) {
        char tag[32];
        snprintf(tag, sizeof tag, "where.%d", batch);
        st = pf_sample_boundary(g, PF_SAMPLE_UNIFORM, c->parts, n, pf_rng_derive(seed, tag), PF_SAMPLE_NORMALS, &b);
        for (int i = 0; st == PF_OK && i < b.n && kept < n; i++)
            if (where_holds(p, g, c, &b, i)) where_keep(&b, i, ps, kept++);
    }
    pf_point_set_release(&b);
    ps->n = kept;
    if (st == PF_OK && kept < n)
        st = pf_fail(PF_ERR_INVALID, "%s: constraint %s's condition holds at %d of %d points of %s (under 1 in %d)",
                     p->name, c->name, kept, n * WHERE_BATCHES, c->parts, WHERE_BATCHES);
    return st;
}

pf_status pf_pde_constraint_points(const pf_pde *p, const pf_geom *g, const pf_constraint *c,
                                   int method, int n, uint64_t seed, pf_point_set *ps, pf_real **v)
{
    *v = NULL;
    if (c->kind == PF_CON_POINTS && c->observe) {
        pf_point_set_release(ps);
        ps->dim = p->d_in;
        return c->observe(p, seed, &ps->n, &ps->x, v);
    }
    if (c->kind == PF_CON_POINTS) {
        pf_point_set_release(ps);
        ps->n = c->npoints;
        ps->dim = p->d_in;
        if (!c->npoints) return PF_OK;
        ps->x = malloc(sizeof(pf_real) * (size_t)c->npoints * (size_t)p->d_in);
        if (!ps->x) return pf_fail(PF_ERR_NOMEM, "out of memory for %d points", c->npoints);
        for (int i = 0; i < c->npoints * p->d_in; i++) ps->x[i] = (pf_real)c->points[i];
        return PF_OK;
    }
    if (pf_constraint_on_initial(c))
        return pf_sample_initial(g, (pf_sample_method)method, n, seed, PF_SAMPLE_NORMALS, ps);
    if (pf_constraint_in_interior(c))
        return pf_sample_interior(g, (pf_sample_method)method, n, seed, ps);
    if (c->where && n > 0) return sample_where(p, g, c, method, n, seed, ps);
    return pf_sample_boundary(g, (pf_sample_method)method, c->parts, n, seed, PF_SAMPLE_NORMALS, ps);
}

pf_real *pf_pde_periodic_images(const pf_pde *p, const pf_constraint *c, int n, const pf_real *x)
{
    size_t len = (size_t)n * (size_t)p->d_in;
    pf_real *xi = malloc(sizeof(pf_real) * (len + 1));
    if (!xi) {
        pf_fail(PF_ERR_NOMEM, "out of memory for %d image points", n);
        return NULL;
    }
    memcpy(xi, x, sizeof(pf_real) * len);
    for (int i = 0; i < n; i++) xi[(size_t)i * p->d_in + c->periodic_input] = (pf_real)p->hi[c->periodic_input];
    return xi;
}

char *pf_pde_describe(const pf_pde *p)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) return NULL;
    fprintf(f, "%s — %s\n\n%s\n\nLaTeX: %s\n\n", p->name, p->title, p->statement, p->latex);
    fputs("inputs   ", f);
    for (int i = 0; i < p->d_in; i++) fprintf(f, "%s%s", i ? ", " : "", p->inputs[i]);
    fputs("\noutputs  ", f);
    for (int i = 0; i < p->d_out; i++) fprintf(f, "%s%s", i ? ", " : "", p->outputs[i]);
    fputs("\ndomain  ", f);
    for (int i = 0; i < p->d_in; i++) fprintf(f, "%s %s in [%g, %g]", i ? "," : "", p->inputs[i], p->lo[i], p->hi[i]);
    fputs("\ntags     ", f);
    int nt = 0;
    for (int b = 0; b < PF_TAG_COUNT; b++)
        if (p->tags & (1u << b)) fprintf(f, "%s%s", nt++ ? ", " : "", pf_pde_tag_name(b));
    fprintf(f, "%s\nresidual equations: %d\nconstraints:\n", nt ? "" : "none", p->neq);
    for (int k = 0; k < p->ncon; k++) {
        const pf_constraint *q = &p->con[k];
        fprintf(f, "  %-10s %-10s ", q->name, pf_constraint_kind_name(q->kind));
        if (q->kind == PF_CON_POINTS && q->observe) fputs("at observation points\n", f);
        else if (q->kind == PF_CON_POINTS) fprintf(f, "at %d fixed point%s\n", q->npoints, q->npoints == 1 ? "" : "s");
        else if (q->parts) fprintf(f, "on %s\n", q->parts);
        else fputs(q->kind == PF_CON_INEQUALITY ? "at interior points\n" : "on the whole boundary\n", f);
    }
    fprintf(f, "hard-constraint transforms:%s\n", p->nhard ? "" : " none");
    for (int k = 0; k < p->nhard; k++)
        fprintf(f, "  %-18s %s (satisfies %s)\n", p->hard[k].name, p->hard[k].what, p->hard[k].satisfies);
    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    return text;
}
