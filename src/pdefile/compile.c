/* compile.c — a checked .pde file as a pf_pde descriptor (compile.h). */
#include "pdefile/compile.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "geom/geometry.h"
#include "geom/sample.h"
#include "pdefile/eval.h"
#include "pdefile/observe.h"
#include "pdefile/pdefile.h"
#include "pdefile/table.h"

/* the seed of the interior evaluation points of a non-box domain */
#define EVAL_SEED 20260421u

static const pf_pdefile *file_of(const pf_pde *p)
{
    return p->user;
}

/* ------------------------------------------------------------ expressions */

/* A node, or the constant k when n is NULL: constants stay numbers until an
 * op needs them (pf_scale, pf_add_const) or the result is one. */
typedef struct val {
    pf_node *n;
    double k;
} val;

typedef struct builder {
    pf_pde_ctx *c;
    bool jet;     /* inputs as jets (hard transforms, exact solutions) */
    pf_node *net; /* the network's output (hard transforms) */
} builder;

static val konst(double k)
{
    return (val){NULL, k};
}
static val node(pf_node *n)
{
    return (val){n, 0};
}

/* The constant k as a field on the context's points. */
static pf_node *materialize(builder *b, val v)
{
    if (v.n) return v.n;
    pf_graph *g = b->c->g;
    pf_node *x = b->jet ? pf_pde_xj(b->c, 0) : pf_pde_x(b->c, 0);
    return pf_add_const(g, pf_scale(g, x, 0), (pf_real)v.k);
}

static val add(builder *b, val x, val y)
{
    pf_graph *g = b->c->g;
    if (!x.n && !y.n) return konst(x.k + y.k);
    if (!x.n) return node(pf_add_const(g, y.n, (pf_real)x.k));
    if (!y.n) return node(pf_add_const(g, x.n, (pf_real)y.k));
    return node(pf_add(g, x.n, y.n));
}

static val sub(builder *b, val x, val y)
{
    pf_graph *g = b->c->g;
    if (!x.n && !y.n) return konst(x.k - y.k);
    if (!x.n) return node(pf_add_const(g, pf_scale(g, y.n, -1), (pf_real)x.k));
    if (!y.n) return node(pf_add_const(g, x.n, (pf_real)-y.k));
    return node(pf_sub(g, x.n, y.n));
}

static val mul(builder *b, val x, val y)
{
    pf_graph *g = b->c->g;
    if (!x.n && !y.n) return konst(x.k * y.k);
    if (!x.n) return node(pf_scale(g, y.n, (pf_real)x.k));
    if (!y.n) return node(pf_scale(g, x.n, (pf_real)y.k));
    return node(pf_mul(g, x.n, y.n));
}

static val divide(builder *b, val x, val y)
{
    pf_graph *g = b->c->g;
    if (!x.n && !y.n) return konst(x.k / y.k);
    if (!y.n) return node(pf_scale(g, x.n, (pf_real)(1 / y.k)));
    pf_node *r = pf_unary(g, PF_UNARY_RECIP, y.n, 0);
    return x.n ? node(pf_mul(g, x.n, r)) : node(pf_scale(g, r, (pf_real)x.k));
}

/* A whole exponent up to this goes by squares and products: the engine's
 * PF_UNARY_POW forms its jet as p a^p / a, 0 * inf = NaN where a = 0 (the
 * derivatives of (x t)^3 at t = 0), whereas products are exact there. */
#define MAX_SQUARING 64

static val power(builder *b, val x, double p)
{
    pf_graph *g = b->c->g;
    if (!x.n) return konst(pow(x.k, p));
    if (p == 0) return konst(1);
    if (p == 1) return x;
    if (p == 2) return node(pf_unary(g, PF_UNARY_SQUARE, x.n, 0));
    if (p == floor(p) && fabs(p) <= MAX_SQUARING) {
        int q = (int)fabs(p);
        pf_node *r = NULL, *sq = x.n; /* x^q = prod over the bits of q of x^(2^j) */
        for (; q; q >>= 1, sq = q ? pf_unary(g, PF_UNARY_SQUARE, sq, 0) : sq)
            if (q & 1) r = r ? pf_mul(g, r, sq) : sq;
        return node(p < 0 ? pf_unary(g, PF_UNARY_RECIP, r, 0) : r);
    }
    return node(pf_unary(g, PF_UNARY_POW, x.n, (pf_real)p));
}

/* 1 where z >= 0, else 0 */
static val step(builder *b, val z)
{
    return z.n ? node(pf_pde_step(b->c, z.n)) : konst(z.k >= 0);
}

static val expr(builder *b, const pf_pdefile_expr *e);

/* A condition as a 0/1 switch. */
static val condition(builder *b, const pf_pdefile_expr *e)
{
    if (e->konst) return konst(e->value);
    val x = expr(b, e->args[0]), y = expr(b, e->args[1]);
    switch (e->op) {
    case PF_PDEFILE_LT: return sub(b, konst(1), step(b, sub(b, x, y))); /* not x >= y */
    case PF_PDEFILE_LE: return step(b, sub(b, y, x));
    case PF_PDEFILE_GT: return sub(b, konst(1), step(b, sub(b, y, x))); /* not x <= y */
    case PF_PDEFILE_GE: return step(b, sub(b, x, y));
    default: break;
    }
    x = condition(b, e->args[0]), y = condition(b, e->args[1]);
    if (e->op == PF_PDEFILE_AND) return mul(b, x, y);
    PF_ASSERT(e->op == PF_PDEFILE_OR);
    return sub(b, add(b, x, y), mul(b, x, y));
}

static val expr(builder *b, const pf_pdefile_expr *e)
{
    pf_pde_ctx *c = b->c;
    if (e->konst) return konst(e->value);
    switch (e->op) {
    case PF_PDEFILE_NEG: return mul(b, konst(-1), expr(b, e->args[0]));
    case PF_PDEFILE_ADD: return add(b, expr(b, e->args[0]), expr(b, e->args[1]));
    case PF_PDEFILE_SUB: return sub(b, expr(b, e->args[0]), expr(b, e->args[1]));
    case PF_PDEFILE_MUL: return mul(b, expr(b, e->args[0]), expr(b, e->args[1]));
    case PF_PDEFILE_DIV: return divide(b, expr(b, e->args[0]), expr(b, e->args[1]));
    case PF_PDEFILE_POW: return power(b, expr(b, e->args[0]), e->args[1]->value);
    case PF_PDEFILE_INPUT: return node(b->jet ? pf_pde_xj(c, e->index) : pf_pde_x(c, e->index));
    case PF_PDEFILE_FIELD: return node(pf_pde_d(c, e->index, e->input, e->order));
    case PF_PDEFILE_LAP: return node(pf_pde_lap(c, e->index, NULL));
    case PF_PDEFILE_DN: return node(pf_pde_dn(c, e->index));
    case PF_PDEFILE_NET:
        PF_ASSERT(b->net != NULL);
        return node(c->pde->d_out == 1 ? b->net : pf_slice(c->g, b->net, e->index, 1));
    case PF_PDEFILE_BUBBLE: return node(pf_pde_bubble(c));
    case PF_PDEFILE_UNARY: return node(pf_unary(c->g, (pf_unary_op)e->unary, materialize(b, expr(b, e->args[0])), 0));
    case PF_PDEFILE_STEP: return step(b, expr(b, e->args[0]));
    case PF_PDEFILE_IF: { /* b + s (a - b) */
        val s = condition(b, e->args[0]), x = expr(b, e->args[1]), y = expr(b, e->args[2]);
        if (!s.n) return s.k ? x : y;
        return add(b, y, mul(b, s, sub(b, x, y)));
    }
    default:
        PF_ABORT("%s:%d:%d: expression node %d was not checked", file_of(c->pde)->path, e->pos.line, e->pos.col,
                 (int)e->op);
    }
}

static pf_node *build(pf_pde_ctx *c, const pf_pdefile_expr *e, bool jet, pf_node *net)
{
    builder b = {c, jet, net};
    return materialize(&b, expr(&b, e));
}

/* |v|, as relu(v) + relu(-v) (value-only fields) */
static val magnitude(builder *b, val v)
{
    pf_graph *g = b->c->g;
    if (!v.n) return konst(fabs(v.k));
    return node(pf_add(g, pf_unary(g, PF_UNARY_RELU, v.n, 0), pf_unary(g, PF_UNARY_RELU, pf_scale(g, v.n, -1), 0)));
}

/* The magnitude of the terms e is made of (geom/exact_check.h): |a| + |b|
 * for a + b and a - b, |a| |b| for a b, |a| / |b| for a / b, the value's
 * magnitude for anything else (a power, a function, a field). */
static val terms(builder *b, const pf_pdefile_expr *e)
{
    if (e->konst) return konst(fabs(e->value));
    switch (e->op) {
    case PF_PDEFILE_NEG: return terms(b, e->args[0]);
    case PF_PDEFILE_ADD:
    case PF_PDEFILE_SUB: return add(b, terms(b, e->args[0]), terms(b, e->args[1]));
    case PF_PDEFILE_MUL: return mul(b, terms(b, e->args[0]), terms(b, e->args[1]));
    case PF_PDEFILE_DIV: return divide(b, terms(b, e->args[0]), magnitude(b, expr(b, e->args[1])));
    default: return magnitude(b, expr(b, e));
    }
}

pf_node *pf_pdefile_equation_terms(pf_pde_ctx *c, int q)
{
    builder b = {c, false, NULL};
    return materialize(&b, terms(&b, file_of(c->pde)->eq[q].e));
}

pf_node *pf_pdefile_constraint_terms(pf_pde_ctx *c, int n)
{
    const pf_pdefile_constraint *k = &file_of(c->pde)->con[n];
    builder b = {c, false, NULL};
    if (k->kind == PF_PDEFILE_CON_PERIODIC)
        return materialize(&b, add(&b, magnitude(&b, node(pf_pde_d(c, k->output, 0, 0))),
                                   magnitude(&b, node(pf_pde_pair(c, k->output)))));
    if (k->kind == PF_PDEFILE_CON_OBSERVE) return materialize(&b, magnitude(&b, node(pf_pde_d(c, k->output, 0, 0))));
    return materialize(&b, terms(&b, k->e));
}

/* ------------------------------------------------------------------ hooks */

static pf_node *residual(pf_pde_ctx *c, int q)
{
    return build(c, file_of(c->pde)->eq[q].e, false, NULL);
}

static pf_node *constraint(pf_pde_ctx *c, int n)
{
    const pf_pdefile_constraint *k = &file_of(c->pde)->con[n];
    if (k->kind == PF_PDEFILE_CON_PERIODIC)
        return pf_sub(c->g, pf_pde_d(c, k->output, 0, 0), pf_pde_pair(c, k->output));
    if (k->kind == PF_PDEFILE_CON_OBSERVE) return pf_sub(c->g, pf_pde_d(c, k->output, 0, 0), pf_pde_target(c));
    return build(c, k->e, false, NULL);
}

/* An observation constraint's points and values, as read at compile time. */
static pf_status observations(const pf_pde *p, int n, int *count, pf_real **x, pf_real **v)
{
    const pf_pdefile_constraint *k = &file_of(p)->con[n];
    size_t d = (size_t)p->d_in;
    *count = k->nobs;
    *x = malloc((size_t)k->nobs * d * sizeof **x);
    *v = malloc((size_t)k->nobs * sizeof **v);
    if (!*x || !*v) {
        free(*x), free(*v);
        *x = *v = NULL;
        return pf_fail(PF_ERR_NOMEM, "%s: out of memory for %d observations", p->name, k->nobs);
    }
    for (size_t i = 0; i < (size_t)k->nobs * d; i++) (*x)[i] = (pf_real)k->obs_x[i];
    for (int i = 0; i < k->nobs; i++) (*v)[i] = (pf_real)k->obs_v[i];
    return PF_OK;
}

/* constraint and transform hooks get no index: one fixed trampoline each */
#define CON(n)                                                                                                         \
    static pf_node *con##n(pf_pde_ctx *c)                                                                              \
    {                                                                                                                  \
        return constraint(c, n);                                                                                       \
    }
CON(0)
CON(1) CON(2) CON(3) CON(4) CON(5) CON(6) CON(7) CON(8) CON(9) CON(10) CON(11)
#undef CON
    static pf_node *(*const con_hook[])(pf_pde_ctx *) = {con0, con1, con2, con3, con4,  con5,
                                                         con6, con7, con8, con9, con10, con11};
_Static_assert(sizeof con_hook / sizeof *con_hook == PF_PDE_MAX_CONSTRAINTS, "one hook per constraint");

/* the observations carry no noise: the seed is not used */
#define OBS(n)                                                                                                         \
    static pf_status obs##n(const pf_pde *p, uint64_t seed, int *count, pf_real **x, pf_real **v)                      \
    {                                                                                                                  \
        (void)seed;                                                                                                    \
        return observations(p, n, count, x, v);                                                                        \
    }
OBS(0)
OBS(1) OBS(2) OBS(3) OBS(4) OBS(5) OBS(6) OBS(7) OBS(8) OBS(9) OBS(10) OBS(11)
#undef OBS
    static pf_status (*const obs_hook[])(const pf_pde *, uint64_t, int *, pf_real **, pf_real **) = {
        obs0, obs1, obs2, obs3, obs4, obs5, obs6, obs7, obs8, obs9, obs10, obs11};
_Static_assert(sizeof obs_hook / sizeof *obs_hook == PF_PDE_MAX_CONSTRAINTS, "one hook per constraint");

/* Whether the boundary point x on `part` belongs to constraint c: some
 * entry of the part in its where list has no condition, or one that holds
 * there (the checker let only inputs and constants in). */
static bool where(const pf_pde *p, const pf_constraint *c, const char *part, const pf_real *x)
{
    const pf_pdefile *f = file_of(p);
    const pf_pdefile_constraint *k = &f->con[c - p->con];
    double xd[PF_PDE_MAX_IN], v;
    for (int i = 0; i < p->d_in; i++) xd[i] = (double)x[i];
    for (int j = 0; j < k->nwhere; j++) {
        if (strcmp(k->where_part[j], part)) continue;
        const pf_pdefile_expr *cond = k->where_cond[j];
        if (!cond) return true;
        if (pf_pdefile_eval(f, cond, xd, NULL, &v) != PF_OK)
            PF_ABORT("%s:%d:%d: a checked condition has no value: %s", f->path, cond->pos.line, cond->pos.col,
                     pf_errmsg());
        if (v != 0) return true;
    }
    return false;
}

/* Each output from its formula, or net()'s channel when the transform does
 * not set it. */
static pf_node *outputs(pf_pde_ctx *c, const pf_pdefile_assign *set, int nset, pf_node *net)
{
    const pf_pde *p = c->pde;
    pf_node *ch[PF_PDE_MAX_OUT];
    for (int k = 0; k < p->d_out; k++) {
        ch[k] = NULL;
        for (int a = 0; a < nset; a++)
            if (set[a].output == k) ch[k] = build(c, set[a].e, true, net);
        if (!ch[k]) ch[k] = p->d_out == 1 ? net : pf_slice(c->g, net, k, 1);
    }
    return p->d_out == 1 ? ch[0] : pf_concat(c->g, p->d_out, ch);
}

static pf_node *hard(pf_pde_ctx *c, int h, pf_node *net)
{
    const pf_pdefile_hard *t = &file_of(c->pde)->hard[h];
    return outputs(c, t->set, t->n, net);
}

static pf_node *hard0(pf_pde_ctx *c, pf_node *net)
{
    return hard(c, 0, net);
}
static pf_node *hard1(pf_pde_ctx *c, pf_node *net)
{
    return hard(c, 1, net);
}
static pf_node *(*const hard_hook[])(pf_pde_ctx *, pf_node *) = {hard0, hard1};
_Static_assert(sizeof hard_hook / sizeof *hard_hook == PF_PDE_MAX_HARD, "one hook per transform");

static pf_node *exact_fields(pf_pde_ctx *c)
{
    const pf_pdefile *f = file_of(c->pde);
    return outputs(c, f->ref.exact, f->ref.nexact, NULL); /* the check gives every output a formula */
}

static void exact(const pf_pde *p, const double *x, double *u)
{
    const pf_pdefile *f = file_of(p);
    for (int a = 0; a < f->ref.nexact; a++)
        if (pf_pdefile_eval(f, f->ref.exact[a].e, x, NULL, &u[f->ref.exact[a].output]) != PF_OK)
            u[f->ref.exact[a].output] = NAN; /* not reached: exact solutions use inputs and constants */
}

static bool box_domain(const pf_pdefile *f)
{
    return f->domain->kind == PF_PDEFILE_INTERVAL || f->domain->kind == PF_PDEFILE_BOX;
}

/* PINNacle's grid rule on a box (`evaluate box grid`: on the plain box of
 * all inputs, time one more axis); seeded uniform interior points
 * elsewhere (PINNacle draws random points there). */
static pf_status eval_points(const pf_pde *p, const pf_geom *g, pf_point_set *out)
{
    const pf_pdefile *f = file_of(p);
    int n = f->ref.grid ? f->ref.grid : p->d_in == 2 ? 2500 : 20000;
    if (f->ref.box) {
        pf_geom *box = NULL;
        PF_TRY(pf_geom_box_alloc(p->d_in, p->lo, p->hi, NULL, &box));
        pf_status st = pf_sample_grid_pinnacle(box, n, out);
        pf_geom_free(box);
        return st;
    }
    if (box_domain(f)) return pf_sample_grid_pinnacle(g, n, out);
    return pf_sample_interior(g, PF_SAMPLE_UNIFORM, n, EVAL_SEED, out);
}

/* ---------------------------------------------------------------- domain */

static pf_status shape(const pf_pdefile *f, const pf_pdefile_geom *s, pf_geom **out)
{
    const double *v = s->v;
    switch (s->kind) {
    case PF_PDEFILE_INTERVAL:
    case PF_PDEFILE_BOX: {
        /* faces <input>_lo, <input>_hi over the spatial inputs, as the checker names them */
        double lo[PF_PDE_MAX_IN], hi[PF_PDE_MAX_IN];
        char names[2 * PF_PDE_MAX_IN][PF_GEOM_NAME_MAX];
        const char *faces[2 * PF_PDE_MAX_IN];
        for (int i = 0, a = 0; i < f->inputs.n; i++) {
            if (i == f->time_input) continue;
            lo[a] = v[2 * a], hi[a] = v[2 * a + 1];
            snprintf(names[2 * a], PF_GEOM_NAME_MAX, "%s_lo", f->inputs.v[i]);
            snprintf(names[2 * a + 1], PF_GEOM_NAME_MAX, "%s_hi", f->inputs.v[i]);
            faces[2 * a] = names[2 * a], faces[2 * a + 1] = names[2 * a + 1];
            a++;
        }
        return pf_geom_box_alloc(s->dim, lo, hi, faces, out);
    }
    case PF_PDEFILE_DISK: return pf_geom_disk_alloc(v[0], v[1], v[2], s->name, out);
    case PF_PDEFILE_BALL: return pf_geom_ball_alloc(s->dim, v, v[s->dim], s->name, out);
    case PF_PDEFILE_POLYGON: return pf_geom_polygon_alloc(s->nargs / 2, v, s->edges.n ? s->edges.v : NULL, out);
    case PF_PDEFILE_DIFFERENCE:
    case PF_PDEFILE_UNION: {
        /* a failure travels down the chain to the combining call (geometry.h) */
        pf_geom *a = NULL, *b = NULL;
        shape(f, s->a, &a);
        shape(f, s->b, &b);
        return s->kind == PF_PDEFILE_UNION ? pf_geom_union_alloc(a, b, out) : pf_geom_difference_alloc(a, b, out);
    }
    }
    PF_ABORT("shape kind %d", (int)s->kind);
}

static pf_status geometry(const pf_pde *p, pf_geom **out)
{
    const pf_pdefile *f = file_of(p);
    pf_geom *space = NULL;
    pf_status st = shape(f, f->domain, &space);
    if (st == PF_OK && p->time_input >= 0)
        st = pf_geom_space_time_alloc(space, p->lo[p->time_input], p->hi[p->time_input], &space);
    if (st != PF_OK)
        return pf_fail(st, "%s:%d:%d: the domain: %s", f->path, f->domain_pos.line, f->domain_pos.col, pf_errmsg());
    *out = space;
    return PF_OK;
}

/* -------------------------------------------------------------- compiling */

/* "FILE:L:C: <what> cannot be compiled yet: <instead>" */
static pf_status unsupported(const pf_pdefile *f, pf_pdefile_pos pos, const char *what, const char *instead)
{
    return pf_fail(PF_ERR_UNSUPPORTED, "%s:%d:%d: %s cannot be compiled yet: %s", f->path, pos.line, pos.col, what,
                   instead);
}

/* A growing comma-separated list in a fixed buffer. */
typedef struct list {
    char s[1024];
    size_t len;
} list;

static bool listed(const list *l, const char *name)
{
    size_t n = strlen(name);
    for (const char *q = l->s; *q;) {
        size_t len = strcspn(q, ",");
        if (len == n && !strncmp(q, name, n)) return true;
        q += len + (q[len] == ',');
    }
    return false;
}

static pf_status append(const pf_pdefile *f, list *l, const char *name)
{
    if (listed(l, name)) return PF_OK;
    int n = snprintf(l->s + l->len, sizeof l->s - l->len, "%s%s", l->len ? "," : "", name);
    if (n < 0 || (size_t)n >= sizeof l->s - l->len)
        return pf_fail(PF_ERR_UNSUPPORTED, "%s: more boundary parts in one constraint than fit in %zu bytes", f->path,
                       sizeof l->s);
    l->len += (size_t)n;
    return PF_OK;
}

/* Part `name`, a defined part written out as the domain parts it unites,
 * into l and k's where list with the condition of the `where` part wp it
 * is in (NULL outside one). */
static pf_status expand(const pf_pdefile *f, const char *name, const pf_pdefile_part *wp, list *l,
                        pf_pdefile_constraint *k)
{
    for (int p = 0; p < f->nparts; p++) {
        const pf_pdefile_part *pt = &f->parts[p];
        if (strcmp(pt->name, name)) continue;
        if (pt->where && wp)
            return unsupported(f, pt->pos, "a part with a `where` condition inside another one",
                               "join the two conditions with `and` in one part");
        for (int j = 0; j < pt->of.n; j++) PF_TRY(expand(f, pt->of.v[j], pt->where ? pt : wp, l, k));
        return PF_OK;
    }
    if (wp && (!strcmp(name, "initial") || !strcmp(name, "final")))
        return unsupported(f, wp->pos, "a `where` part of the initial or final slice",
                           "write the condition into the constraint's formula with if()");
    if (k->nwhere == PF_PDEFILE_MAX_ALL_PARTS)
        return pf_fail(PF_ERR_UNSUPPORTED, "%s: constraint %s names more than %d parts", f->path, k->name,
                       PF_PDEFILE_MAX_ALL_PARTS);
    k->where_part[k->nwhere] = name, k->where_cond[k->nwhere++] = wp ? wp->where : NULL;
    return append(f, l, name);
}

static char *arena_str(pf_pdefile *f, const char *s)
{
    return pf_pdefile_strndup(f, s, strlen(s));
}

/* The domain (space x time), built once for the points of the data files
 * (fill frees it). */
static pf_status data_domain(const pf_pde *p, pf_geom **g)
{
    return *g ? PF_OK : geometry(p, g);
}

static pf_status constraint_desc(pf_pdefile *f, const pf_pde *p, int n, pf_constraint *out, pf_geom **domain)
{
    pf_pdefile_constraint *k = &f->con[n];
    list parts = {.len = 0};
    *out = (pf_constraint){.name = k->name, .order = k->order, .residual = con_hook[n]};
    switch (k->kind) {
    case PF_PDEFILE_CON_INITIAL: out->kind = PF_CON_INITIAL, out->parts = "initial"; return PF_OK;
    case PF_PDEFILE_CON_INITIAL_RATE: out->kind = PF_CON_NEUMANN, out->parts = "initial"; return PF_OK;
    case PF_PDEFILE_CON_PERIODIC: {
        char lo[PF_PDEFILE_MAX_NAME + 4];
        snprintf(lo, sizeof lo, "%s_lo", k->along);
        out->kind = PF_CON_PERIODIC, out->periodic_input = k->periodic_input;
        PF_TRY(append(f, &parts, lo));
        break;
    }
    case PF_PDEFILE_CON_OBSERVE: {
        out->kind = PF_CON_POINTS, out->observe = obs_hook[n];
        PF_TRY(data_domain(p, domain));
        return pf_pdefile_read_observations(f, &f->con[n], *domain);
    }
    case PF_PDEFILE_CON_DIRICHLET:
    case PF_PDEFILE_CON_NEUMANN:
    case PF_PDEFILE_CON_ROBIN:
        out->kind = k->kind == PF_PDEFILE_CON_DIRICHLET ? PF_CON_DIRICHLET
                    : k->kind == PF_PDEFILE_CON_NEUMANN ? PF_CON_NEUMANN
                                                        : PF_CON_ROBIN;
        k->nwhere = 0;
        for (int j = 0; j < k->on.n; j++) PF_TRY(expand(f, k->on.v[j], NULL, &parts, k));
        for (int j = 0; j < k->nwhere; j++)
            if (k->where_cond[j]) out->where = where;
        break;
    default: PF_ABORT("constraint kind %d", (int)k->kind);
    }
    if (!(out->parts = arena_str(f, parts.s))) return pf_fail(PF_ERR_NOMEM, "out of memory compiling %s", f->path);
    return PF_OK;
}

/* "u = <formula>; v = ..." (fully parenthesised, as pf-pde check prints it). */
static char *formulas(pf_pdefile *f, const pf_pdefile_assign *set, int n)
{
    char buf[8192], e[4096];
    size_t len = 0;
    buf[0] = 0;
    for (int a = 0; a < n && len < sizeof buf; a++)
        len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s = %s", a ? "; " : "", set[a].name,
                                pf_pdefile_expr_str(set[a].e, e, sizeof e));
    return arena_str(f, buf);
}

static char *joined(pf_pdefile *f, const pf_pdefile_names *l)
{
    char buf[1024];
    size_t len = 0;
    buf[0] = 0;
    for (int i = 0; i < l->n && len < sizeof buf; i++)
        len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s", i ? "," : "", l->v[i]);
    return arena_str(f, buf);
}

/* The equations as formulas "(...) = 0; ...", for a file without `latex`. */
static char *equations(pf_pdefile *f)
{
    char buf[8192], e[4096];
    size_t len = 0;
    buf[0] = 0;
    for (int q = 0; q < f->neq && len < sizeof buf; q++)
        len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s = 0", q ? "; " : "",
                                pf_pdefile_expr_str(f->eq[q].e, e, sizeof e));
    return arena_str(f, buf);
}

/* A reference file beside the .pde (or at an absolute path), read now
 * into the arena: a PINNacle snapshot file, or a table whose columns are
 * named by `columns` (a .dat's, in order) or by the inputs and outputs;
 * its points inside the domain, each with one value (table.h). */
static pf_status reference_table(pf_pdefile *f, const char *path, pf_pde *p, pf_geom **domain)
{
    const pf_pdefile_ref *r = &f->ref;
    int d = f->inputs.n, m = f->outputs.n;
    const char *want[PF_PDE_MAX_IN + PF_PDE_MAX_OUT];
    for (int j = 0; j < d + m; j++) want[j] = j < d ? f->inputs.v[j] : f->outputs.v[j - d];
    pf_pdefile_table t;
    pf_status st;
    if (r->snapshots) {
        st = pf_pdefile_table_read_snapshots(path, d, m, want, &t);
    } else {
        bool named = r->columns.n > 0;
        st = pf_pdefile_table_read(path, want, d + m, named ? (const char *const *)r->columns.v : want,
                                   named ? r->columns.n : d + m, &t);
    }
    if (st == PF_ERR_IO)
        return pf_fail(PF_ERR_IO, "%s:%d:%d: cannot read the reference: %s", f->path, r->pos.line, r->pos.col,
                       pf_errmsg());
    PF_TRY(st);
    if ((st = data_domain(p, domain)) == PF_OK)
        st = pf_pdefile_table_check_points(path, &t, d, want, *domain, pf_pdefile_domain_tol(f));
    int rows = t.n;
    double *x = NULL, *u = NULL;
    if (st == PF_OK) {
        x = pf_pdefile_arena(f, (size_t)rows * (size_t)d * sizeof *x);
        u = pf_pdefile_arena(f, (size_t)rows * (size_t)m * sizeof *u);
        if (!x || !u) st = pf_fail(PF_ERR_NOMEM, "%s: out of memory for %d reference rows", path, rows);
    }
    for (size_t i = 0; st == PF_OK && i < (size_t)rows; i++) {
        memcpy(x + i * (size_t)d, t.v + i * (size_t)(d + m), (size_t)d * sizeof *x);
        memcpy(u + i * (size_t)m, t.v + i * (size_t)(d + m) + d, (size_t)m * sizeof *u);
    }
    pf_pdefile_table_free(&t);
    PF_TRY(st);
    p->ref = PF_REF_TABLE, p->ref_rows = rows, p->ref_x = x, p->ref_u = u;
    return PF_OK;
}

static pf_status reference(pf_pdefile *f, pf_pde *p, pf_geom **domain)
{
    const pf_pdefile_ref *r = &f->ref;
    switch (r->kind) {
    case PF_PDEFILE_REF_NONE: p->ref = PF_REF_MISSING; return PF_OK;
    case PF_PDEFILE_REF_EXACT:
        p->ref = PF_REF_ANALYTIC, p->exact_fields = exact_fields, p->exact = exact, p->eval_points = eval_points;
        return PF_OK;
    case PF_PDEFILE_REF_DATA: break;
    }
    char path[2048];
    PF_TRY(pf_pdefile_data_path(f, r->file, path, sizeof path));
    if (r->file[0] == '/' || access(path, F_OK) == 0) return reference_table(f, path, p, domain);
    /* not beside the file: a PINNacle file in PF_DATA_DIR, read when needed */
    const char *dot = strrchr(r->file, '.');
    if (!dot || strcmp(dot, ".dat"))
        return pf_fail(PF_ERR_IO,
                       "%s:%d:%d: no reference file '%s' (a relative name is looked up beside the .pde "
                       "file, then, for a .dat file, in PF_DATA_DIR)",
                       f->path, r->pos.line, r->pos.col, path);
    if (!r->snapshots)
        for (int j = 0; j < r->columns.n; j++) {
            int want = j < f->inputs.n ? j : j - f->inputs.n;
            const pf_pdefile_names *l = j < f->inputs.n ? &f->inputs : &f->outputs;
            if (want >= l->n || strcmp(r->columns.v[j], l->v[want]))
                return unsupported(f, r->columns.pos[j],
                                   "a PF_DATA_DIR reference whose columns are not the inputs, then the outputs,",
                                   "put the file beside the .pde");
        }
    p->ref = PF_REF_DATA, p->ref_file = r->file;
    p->ref_layout = r->snapshots ? PF_DAT_LAYOUT_SNAPSHOTS : PF_DAT_LAYOUT_STEADY;
    return PF_OK;
}

static pf_status fill_hooks(pf_pdefile *f, pf_pde *p, pf_geom **domain);

static pf_status fill(pf_pdefile *f, pf_pde *p)
{
    pf_geom *domain = NULL; /* built when data files bring points */
    pf_status st = fill_hooks(f, p, &domain);
    pf_geom_free(domain);
    return st;
}

static pf_status fill_hooks(pf_pdefile *f, pf_pde *p, pf_geom **domain)
{
    p->name = f->name;
    p->title = f->title ? f->title : f->name;
    p->statement = f->statement;
    p->latex = f->latex ? f->latex : equations(f);
    p->tags = f->tag_bits;
    p->d_in = f->inputs.n, p->d_out = f->outputs.n;
    for (int i = 0; i < p->d_in; i++) p->inputs[i] = f->inputs.v[i];
    for (int k = 0; k < p->d_out; k++) p->outputs[k] = f->outputs.v[k];
    p->time_input = f->time_input;
    memcpy(p->lo, f->lo, sizeof p->lo);
    memcpy(p->hi, f->hi, sizeof p->hi);
    memcpy(p->orders, f->orders, sizeof p->orders);
    p->laplacian_only = f->laplacian_only;
    p->geometry = geometry;
    p->neq = f->neq, p->residual = residual;
    p->ncon = f->ncon;
    for (int n = 0; n < f->ncon; n++) {
        PF_TRY(constraint_desc(f, p, n, &p->con[n], domain));
        if (p->con[n].kind == PF_CON_PERIODIC) {
            int i = p->con[n].periodic_input;
            p->period[i] = p->hi[i] - p->lo[i];
        }
    }
    p->nhard = f->nhard;
    for (int h = 0; h < f->nhard; h++)
        p->hard[h] = (pf_hard_transform){.name = f->hard[h].name,
                                         .what = formulas(f, f->hard[h].set, f->hard[h].n),
                                         .satisfies = joined(f, &f->hard[h].satisfies),
                                         .apply = hard_hook[h]};
    PF_TRY(reference(f, p, domain));
    p->user = f;
    bool nomem = !p->latex;
    for (int h = 0; h < p->nhard; h++) nomem |= !p->hard[h].what || !p->hard[h].satisfies;
    return nomem ? pf_fail(PF_ERR_NOMEM, "out of memory compiling %s", f->path) : PF_OK;
}

pf_status pf_pdefile_compile(pf_pdefile *f, pf_pde **out)
{
    *out = NULL;
    pf_pde *p = calloc(1, sizeof *p);
    if (!p) {
        pf_pdefile_free(f);
        return pf_fail(PF_ERR_NOMEM, "out of memory compiling %s", f->path);
    }
    p->user = f; /* owned from here on, also when filling fails */
    pf_status st = fill(f, p);
    if (st != PF_OK) {
        pf_pdefile_pde_free(p);
        return st;
    }
    *out = p;
    return PF_OK;
}

void pf_pdefile_pde_free(pf_pde *p)
{
    if (!p) return;
    pf_pdefile_free((pf_pdefile *)p->user);
    free(p);
}

const pf_pdefile *pf_pdefile_of(const pf_pde *p)
{
    return p->user;
}

/* ------------------------------------------------------------------ cache */

/* Every file opened by this process, kept until it ends (stages look a PDE
 * up once, on their main thread). */
typedef struct opened {
    struct opened *next;
    pf_pde *pde;
    char path[];
} opened;

static opened *cache;

pf_status pf_pdefile_open(const char *path, const pf_pde **out)
{
    for (opened *o = cache; o; o = o->next)
        if (!strcmp(o->path, path)) {
            *out = o->pde;
            return PF_OK;
        }
    pf_pdefile *f;
    pf_status st = pf_pdefile_load(path, &f);
    if (st != PF_OK) {
        if (f && f->nerrors > 1) {
            char first[1024];
            snprintf(first, sizeof first, "%s", pf_errmsg());
            pf_fail(st, "%s (and %d more: pf-pde check %s lists them)", first, f->nerrors - 1, path);
        }
        pf_pdefile_free(f);
        return st;
    }
    opened *o = malloc(sizeof *o + strlen(path) + 1);
    if (!o) {
        pf_pdefile_free(f);
        return pf_fail(PF_ERR_NOMEM, "out of memory opening %s", path);
    }
    if ((st = pf_pdefile_compile(f, &o->pde)) != PF_OK) {
        free(o);
        return st;
    }
    strcpy(o->path, path);
    o->next = cache;
    cache = o;
    *out = o->pde;
    return PF_OK;
}
