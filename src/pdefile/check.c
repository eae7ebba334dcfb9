/* check.c — names resolved, constants folded, the file validated (check.h). */
#include "pdefile/check.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pdefile/eval.h"

#define PF_PI 3.14159265358979323846

typedef struct checker {
    pf_pdefile *f;
    pf_pdefile_context ctx;
    int visible_params;        /* IN_CONST: parameters declared before this point */
    int orders[PF_PDE_MAX_IN]; /* highest derivative along each input, this expression */
    bool lap, dn, any_output, any_field_deriv;
    bool net[PF_PDE_MAX_OUT];
    bool spatial_second; /* a FIELD of order >= 2 along a spatial input */
} checker;

static void reset(checker *ck, pf_pdefile_context ctx)
{
    pf_pdefile *f = ck->f;
    memset(ck, 0, sizeof *ck);
    ck->f = f, ck->ctx = ctx, ck->visible_params = f->nparams;
}

static int find(const pf_pdefile_names *l, const char *s)
{
    for (int i = 0; i < l->n; i++)
        if (!strcmp(l->v[i], s)) return i;
    return -1;
}

static int find_param(const pf_pdefile *f, const char *s)
{
    for (int i = 0; i < f->nparams; i++)
        if (f->param_name[i] && !strcmp(f->param_name[i], s)) return i;
    return -1;
}

static int find_part(const pf_pdefile *f, const char *s)
{
    for (int i = 0; i < f->nall_parts; i++)
        if (!strcmp(f->all_parts[i], s)) return i;
    return -1;
}

static void list(const pf_pdefile_names *l, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = 0;
    for (int i = 0; i < l->n && n < cap; i++) n += (size_t)snprintf(buf + n, cap - n, "%s%s", i ? ", " : "", l->v[i]);
}

static void parts_list(const pf_pdefile *f, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = 0;
    for (int i = 0; i < f->nall_parts && n < cap; i++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%s", i ? ", " : "", f->all_parts[i]);
}

static const char *context_rule(pf_pdefile_context ctx)
{
    switch (ctx) {
    case PF_PDEFILE_IN_CONST: return "a constant may use numbers, pi and parameters declared before it";
    case PF_PDEFILE_IN_HARD: return "a hard transform is a formula in net(output), the inputs and constants";
    case PF_PDEFILE_IN_EXACT: return "an exact solution is a formula in the inputs and constants";
    case PF_PDEFILE_IN_WHERE: return "a part's condition may use the inputs and constants";
    default: return "";
    }
}

static bool fields_allowed(pf_pdefile_context ctx)
{
    return ctx == PF_PDEFILE_IN_EQUATION || ctx == PF_PDEFILE_IN_BOUNDARY || ctx == PF_PDEFILE_IN_INITIAL;
}

/* A derivative spelling OUT_SUFFIX, SUFFIX one input's name repeated:
 * u_xx, u_tt, T_x1x1. Fills the input sequence in seq (at most 8) and
 * returns its length, or 0 when SUFFIX is not a sequence of input names. */
static int split(const pf_pdefile *f, const char *s, int *seq, int n)
{
    if (!*s) return n;
    if (n == 8) return 0;
    for (int i = 0; i < f->inputs.n; i++) {
        size_t len = strlen(f->inputs.v[i]);
        if (!strncmp(s, f->inputs.v[i], len)) {
            seq[n] = i;
            int r = split(f, s + len, seq, n + 1);
            if (r) return r;
        }
    }
    return 0;
}

static void note_field(checker *ck, pf_pdefile_expr *e, int k, int input, int order)
{
    pf_pdefile *f = ck->f;
    e->op = PF_PDEFILE_FIELD, e->index = k, e->input = input, e->order = order;
    ck->any_output = true;
    if (order > 0) {
        ck->any_field_deriv = true;
        if (order > ck->orders[input]) ck->orders[input] = order;
        if (order >= 2 && input != f->time_input) ck->spatial_second = true;
    }
}

static bool field_here(checker *ck, pf_pdefile_expr *e, int order)
{
    pf_pdefile *f = ck->f;
    if (!fields_allowed(ck->ctx)) {
        pf_pdefile_error(f, e->pos, "'%s' is not allowed here: %s", e->name, context_rule(ck->ctx));
        return false;
    }
    if (order > PF_JET_MAX_ORDER) {
        pf_pdefile_error(f, e->pos, "%s%s is a derivative of order %d: the engine's highest is %d", e->name,
                         e->op == PF_PDEFILE_CALL ? "()" : "", order, PF_JET_MAX_ORDER);
        return false;
    }
    return true;
}

static bool name_(checker *ck, pf_pdefile_expr *e)
{
    pf_pdefile *f = ck->f;
    int i;
    if (!strcmp(e->name, "pi")) {
        e->konst = true, e->value = PF_PI;
        return true;
    }
    if ((i = find_param(f, e->name)) >= 0) {
        if (ck->ctx == PF_PDEFILE_IN_CONST && i >= ck->visible_params) {
            pf_pdefile_error(f, e->pos, "parameter '%s' is used before its declaration at %d:%d", e->name,
                             f->param_pos[i].line, f->param_pos[i].col);
            return false;
        }
        e->op = PF_PDEFILE_PARAM, e->index = i;
        e->konst = true, e->value = f->param[i] ? f->param[i]->value : NAN;
        return true;
    }
    if ((i = find(&f->inputs, e->name)) >= 0) {
        if (ck->ctx == PF_PDEFILE_IN_CONST) {
            pf_pdefile_error(f, e->pos, "input '%s' is not allowed here: %s", e->name, context_rule(ck->ctx));
            return false;
        }
        e->op = PF_PDEFILE_INPUT, e->index = i;
        return true;
    }
    if ((i = find(&f->outputs, e->name)) >= 0) {
        if (!field_here(ck, e, 0)) return false;
        note_field(ck, e, i, 0, 0);
        return true;
    }
    for (int k = 0; k < f->outputs.n; k++) {
        size_t len = strlen(f->outputs.v[k]);
        if (strncmp(e->name, f->outputs.v[k], len) || e->name[len] != '_' || !e->name[len + 1]) continue;
        const char *suffix = e->name + len + 1;
        int seq[8], m = split(f, suffix, seq, 0);
        if (!m) {
            if (f->time_input < 0 && strspn(suffix, "t") == strlen(suffix) && find(&f->inputs, "t") < 0) {
                pf_pdefile_error(f, e->pos,
                                 "'%s' is a time derivative, but no input is time (add t to the inputs and "
                                 "`time t in [t0, t1]`)",
                                 e->name);
                return false;
            }
            continue;
        }
        for (int j = 1; j < m; j++)
            if (seq[j] != seq[0]) {
                pf_pdefile_error(f, e->pos,
                                 "'%s' is a mixed derivative: the engine has pure derivatives only "
                                 "(d(u, x, m), lap(u))",
                                 e->name);
                return false;
            }
        if (!field_here(ck, e, m)) return false;
        note_field(ck, e, k, seq[0], m);
        return true;
    }
    char in[256], out[128];
    list(&f->inputs, in, sizeof in);
    list(&f->outputs, out, sizeof out);
    pf_pdefile_error(f, e->pos,
                     "unknown name '%s' (not an input [%s], an output [%s], a parameter, pi or a derivative "
                     "like u_x)",
                     e->name, in, out);
    return false;
}

static const struct {
    const char *name;
    pf_unary_op op;
} unaries[] = {
    {"sin", PF_UNARY_SIN}, {"cos", PF_UNARY_COS},   {"tanh", PF_UNARY_TANH},       {"exp", PF_UNARY_EXP},
    {"log", PF_UNARY_LOG}, {"sqrt", PF_UNARY_SQRT}, {"sigmoid", PF_UNARY_SIGMOID}, {"softplus", PF_UNARY_SOFTPLUS},
};
#define FUNCTIONS "sin, cos, tanh, exp, log, sqrt, sigmoid, softplus, step, if, d, lap, dn, net, bubble"

static bool resolve(checker *ck, pf_pdefile_expr *e);

/* args[j] must name an output: its index, or -1 after an error */
static int output_arg(checker *ck, pf_pdefile_expr *e, int j)
{
    pf_pdefile_expr *a = e->args[j];
    int k = a->op == PF_PDEFILE_NAME ? find(&ck->f->outputs, a->name) : -1;
    if (k < 0) pf_pdefile_error(ck->f, a->pos, "%s()'s argument %d must be an output's name", e->name, j + 1);
    return k;
}

static bool arity(checker *ck, pf_pdefile_expr *e, int lo, int hi)
{
    if (e->nargs >= lo && e->nargs <= hi) return true;
    if (lo == hi)
        pf_pdefile_error(ck->f, e->pos, "%s() takes %d argument%s, not %d", e->name, lo, lo == 1 ? "" : "s", e->nargs);
    else
        pf_pdefile_error(ck->f, e->pos, "%s() takes %d to %d arguments, not %d", e->name, lo, hi, e->nargs);
    return false;
}

static bool only_in(checker *ck, pf_pdefile_expr *e, bool allowed, const char *where)
{
    if (!allowed) pf_pdefile_error(ck->f, e->pos, "%s() is only allowed %s", e->name, where);
    return allowed;
}

static bool call(checker *ck, pf_pdefile_expr *e)
{
    pf_pdefile *f = ck->f;
    pf_pdefile_context ctx = ck->ctx;
    for (size_t u = 0; u < sizeof unaries / sizeof *unaries; u++)
        if (!strcmp(e->name, unaries[u].name)) {
            if (!arity(ck, e, 1, 1) || !resolve(ck, e->args[0])) return false;
            e->op = PF_PDEFILE_UNARY, e->unary = unaries[u].op;
            return true;
        }
    bool values = ctx != PF_PDEFILE_IN_HARD && ctx != PF_PDEFILE_IN_EXACT;
    if (!strcmp(e->name, "step") || !strcmp(e->name, "if")) {
        bool is_if = e->name[0] == 'i';
        if (!arity(ck, e, is_if ? 3 : 1, is_if ? 3 : 1) ||
            !only_in(ck, e, values,
                     "where values are built (equations, constraints, constants): hard "
                     "transforms and exact solutions need smooth formulas"))
            return false;
        if (is_if && (e->args[0]->op < PF_PDEFILE_LT || e->args[0]->op > PF_PDEFILE_OR)) {
            pf_pdefile_error(f, e->args[0]->pos, "if()'s first argument must be a condition like x < 0.5");
            return false;
        }
        bool ok = true;
        for (int j = 0; j < e->nargs; j++) ok = resolve(ck, e->args[j]) && ok;
        e->op = is_if ? PF_PDEFILE_IF : PF_PDEFILE_STEP;
        return ok;
    }
    if (!strcmp(e->name, "d")) {
        if (!arity(ck, e, 2, 3)) return false;
        int k = output_arg(ck, e, 0);
        pf_pdefile_expr *x = e->args[1];
        int i = x->op == PF_PDEFILE_NAME ? find(&f->inputs, x->name) : -1;
        if (i < 0) {
            char in[256];
            list(&f->inputs, in, sizeof in);
            pf_pdefile_error(f, x->pos, "d()'s argument 2 must be an input (%s)", in);
        }
        int m = 1;
        if (e->nargs == 3) {
            pf_pdefile_expr *o = e->args[2];
            if (o->op != PF_PDEFILE_NUM || o->value != floor(o->value) || o->value < 1) {
                pf_pdefile_error(f, o->pos, "d()'s order must be a whole number from 1 to %d", PF_JET_MAX_ORDER);
                return false;
            }
            m = o->value > 99 ? 99 : (int)o->value;
        }
        if (k < 0 || i < 0 || !field_here(ck, e, m)) return false;
        note_field(ck, e, k, i, m);
        return true;
    }
    if (!strcmp(e->name, "lap") || !strcmp(e->name, "dn") || !strcmp(e->name, "net")) {
        bool lap = e->name[0] == 'l', dn = e->name[0] == 'd';
        if (!arity(ck, e, 1, 1)) return false;
        if (lap && !only_in(ck, e, fields_allowed(ctx), "in equations and constraints")) return false;
        if (dn && !only_in(ck, e, ctx == PF_PDEFILE_IN_BOUNDARY, "in constraints on boundary parts")) return false;
        if (!lap && !dn && !only_in(ck, e, ctx == PF_PDEFILE_IN_HARD, "in hard transforms")) return false;
        int k = output_arg(ck, e, 0);
        if (k < 0) return false;
        e->index = k;
        if (lap) {
            int spatial = 0;
            for (int i = 0; i < f->inputs.n; i++)
                if (i != f->time_input) spatial++, ck->orders[i] = ck->orders[i] > 2 ? ck->orders[i] : 2;
            if (!spatial) {
                pf_pdefile_error(f, e->pos, "lap() needs a spatial input");
                return false;
            }
            e->op = PF_PDEFILE_LAP, ck->lap = true, ck->any_output = true;
        } else if (dn) {
            for (int i = 0; i < f->inputs.n; i++)
                if (i != f->time_input && ck->orders[i] < 1) ck->orders[i] = 1;
            e->op = PF_PDEFILE_DN, ck->dn = true, ck->any_output = true;
        } else {
            e->op = PF_PDEFILE_NET, ck->net[k] = true;
        }
        return true;
    }
    if (!strcmp(e->name, "bubble")) {
        if (!arity(ck, e, 0, 0) || !only_in(ck, e, ctx == PF_PDEFILE_IN_HARD, "in hard transforms")) return false;
        e->op = PF_PDEFILE_BUBBLE;
        return true;
    }
    pf_pdefile_error(f, e->pos, "unknown function '%s' (the functions are " FUNCTIONS ")", e->name);
    return false;
}

static bool resolve(checker *ck, pf_pdefile_expr *e)
{
    pf_pdefile *f = ck->f;
    bool ok = true;
    switch (e->op) {
    case PF_PDEFILE_NUM: e->konst = true; return true;
    case PF_PDEFILE_NAME: return name_(ck, e);
    case PF_PDEFILE_CALL: ok = call(ck, e); break;
    default:
        for (int j = 0; j < e->nargs; j++) ok = resolve(ck, e->args[j]) && ok;
        if (ok && e->op == PF_PDEFILE_POW && !e->args[1]->konst) {
            pf_pdefile_error(f, e->pos,
                             "the exponent of ^ must be a constant (numbers and parameters); "
                             "write exp(b*log(a)) for a^b");
            return false;
        }
        break;
    }
    if (!ok) return false;
    /* fold a node whose operands are all constant */
    bool konst = e->nargs > 0 && e->op != PF_PDEFILE_FIELD && e->op != PF_PDEFILE_LAP && e->op != PF_PDEFILE_DN &&
                 e->op != PF_PDEFILE_NET;
    for (int j = 0; j < e->nargs && konst; j++) konst = e->args[j]->konst;
    if (konst) {
        if (pf_pdefile_eval(f, e, NULL, NULL, &e->value) != PF_OK || !isfinite(e->value)) {
            pf_pdefile_error(f, e->pos,
                             "this constant is not a finite number (a division by zero, the log or "
                             "square root of a negative number, an overflow)");
            return false;
        }
        e->konst = true;
    }
    return true;
}

pf_status pf_pdefile_check_expr(pf_pdefile *f, pf_pdefile_expr *e, pf_pdefile_context ctx)
{
    checker ck = {.f = f};
    reset(&ck, ctx);
    int before = f->nerrors;
    return resolve(&ck, e) && f->nerrors == before ? PF_OK : PF_ERR_INVALID;
}

/* Where e's text starts (a binary node stands at its operator). */
static pf_pdefile_pos start(const pf_pdefile_expr *e)
{
    while (e->op >= PF_PDEFILE_ADD && e->op <= PF_PDEFILE_POW) e = e->args[0];
    return e->op >= PF_PDEFILE_LT && e->op <= PF_PDEFILE_OR ? start(e->args[0]) : e->pos;
}

/* ---------------------------------------------------------------- domain */

static void add_part(pf_pdefile *f, const char *name, pf_pdefile_pos pos)
{
    if (find_part(f, name) >= 0) return; /* a repeated name groups pieces into one part */
    if (f->nall_parts == PF_PDEFILE_MAX_ALL_PARTS) {
        pf_pdefile_error(f, pos, "more than %d boundary parts", PF_PDEFILE_MAX_ALL_PARTS);
        return;
    }
    f->all_parts[f->nall_parts++] = name;
}

/* The name of face `side` (0 lo, 1 hi) of axis `axis`: <input>_lo/_hi over
 * the spatial inputs, as pdes/registry.h's box problems name them. */
static const char *face_name(pf_pdefile *f, int axis, int side)
{
    const char *in = NULL;
    for (int i = 0, a = 0; i < f->inputs.n; i++)
        if (i != f->time_input && a++ == axis) in = f->inputs.v[i];
    char buf[PF_PDEFILE_MAX_NAME + 8];
    if (in)
        snprintf(buf, sizeof buf, "%s_%s", in, side ? "hi" : "lo");
    else
        snprintf(buf, sizeof buf, "x%d_%s", axis, side ? "hi" : "lo");
    return pf_pdefile_strndup(f, buf, strlen(buf));
}

/* Check shape g: its numbers, dimension, parts (in geometry.h's order) and
 * bounding box. false after an error. */
static bool shape(checker *ck, pf_pdefile_geom *g, double *lo, double *hi)
{
    pf_pdefile *f = ck->f;
    if (g->kind == PF_PDEFILE_DIFFERENCE || g->kind == PF_PDEFILE_UNION) {
        double blo[PF_PDE_MAX_IN], bhi[PF_PDE_MAX_IN];
        if (!shape(ck, g->a, lo, hi) || !shape(ck, g->b, blo, bhi)) return false;
        if (g->a->dim != g->b->dim) {
            pf_pdefile_error(f, g->pos, "%s of a %d-D and a %d-D shape",
                             g->kind == PF_PDEFILE_UNION ? "union" : "difference", g->a->dim, g->b->dim);
            return false;
        }
        g->dim = g->a->dim;
        if (g->kind == PF_PDEFILE_UNION)
            for (int i = 0; i < g->dim; i++) lo[i] = fmin(lo[i], blo[i]), hi[i] = fmax(hi[i], bhi[i]);
        return true;
    }
    if (!(g->v = pf_pdefile_arena(f, (size_t)g->nargs * sizeof *g->v))) {
        pf_pdefile_error(f, g->pos, "out of memory");
        return false;
    }
    bool ok = true;
    for (int j = 0; j < g->nargs; j++) {
        reset(ck, PF_PDEFILE_IN_CONST);
        if (resolve(ck, g->args[j]))
            g->v[j] = g->args[j]->value;
        else
            ok = false;
    }
    if (!ok) return false;
    const double *v = g->v;
    switch (g->kind) {
    case PF_PDEFILE_INTERVAL:
    case PF_PDEFILE_BOX:
        g->dim = g->nargs / 2;
        if (g->dim > PF_PDE_MAX_IN) {
            pf_pdefile_error(f, g->pos, "a box of %d dimensions (at most %d)", g->dim, PF_PDE_MAX_IN);
            return false;
        }
        for (int i = 0; i < g->dim; i++) {
            if (!(v[2 * i] < v[2 * i + 1])) {
                pf_pdefile_error(f, g->args[2 * i]->pos, "range %d is [%g, %g]: lo must be below hi", i + 1, v[2 * i],
                                 v[2 * i + 1]);
                return false;
            }
            lo[i] = v[2 * i], hi[i] = v[2 * i + 1];
            add_part(f, face_name(f, i, 0), g->pos);
            add_part(f, face_name(f, i, 1), g->pos);
        }
        return true;
    case PF_PDEFILE_DISK:
    case PF_PDEFILE_BALL:
        g->dim = g->kind == PF_PDEFILE_DISK ? 2 : g->nargs - 1;
        if (g->dim > PF_PDE_MAX_IN) {
            pf_pdefile_error(f, g->pos, "a ball of %d dimensions (at most %d)", g->dim, PF_PDE_MAX_IN);
            return false;
        }
        if (!(v[g->dim] > 0)) {
            pf_pdefile_error(f, g->args[g->dim]->pos, "the radius must be positive, not %g", v[g->dim]);
            return false;
        }
        for (int i = 0; i < g->dim; i++) lo[i] = v[i] - v[g->dim], hi[i] = v[i] + v[g->dim];
        add_part(f, g->name ? g->name : g->dim == 2 ? "circle" : "sphere", g->pos);
        return true;
    case PF_PDEFILE_POLYGON: {
        int nv = g->nargs / 2;
        g->dim = 2;
        if (g->edges.n && g->edges.n != nv) {
            pf_pdefile_error(f, g->edges.pos[0], "%d edge names for a polygon of %d edges", g->edges.n, nv);
            return false;
        }
        lo[0] = hi[0] = v[0], lo[1] = hi[1] = v[1];
        for (int j = 0; j < nv; j++) {
            lo[0] = fmin(lo[0], v[2 * j]), hi[0] = fmax(hi[0], v[2 * j]);
            lo[1] = fmin(lo[1], v[2 * j + 1]), hi[1] = fmax(hi[1], v[2 * j + 1]);
            char buf[24];
            snprintf(buf, sizeof buf, "edge%d", j);
            add_part(f, g->edges.n ? g->edges.v[j] : pf_pdefile_strndup(f, buf, strlen(buf)), g->pos);
        }
        return true;
    }
    default: PF_ABORT("shape kind %d", (int)g->kind);
    }
}

/* ------------------------------------------------------------ statements */

static void declarations(checker *ck)
{
    pf_pdefile *f = ck->f;
    pf_pdefile_names *lists[2] = {&f->inputs, &f->outputs};
    const char *what[2] = {"input", "output"};
    int max[2] = {PF_PDE_MAX_IN, PF_PDE_MAX_OUT};
    for (int l = 0; l < 2; l++) {
        if (lists[l]->n > max[l])
            pf_pdefile_error(f, lists[l]->pos[max[l]], "more than %d %ss (the engine's limit)", max[l], what[l]);
        for (int i = 0; i < lists[l]->n; i++) {
            const char *s = lists[l]->v[i];
            if (!strcmp(s, "pi")) pf_pdefile_error(f, lists[l]->pos[i], "'pi' is the constant, not a name to declare");
            for (int j = 0; j < i; j++)
                if (!strcmp(s, lists[l]->v[j]))
                    pf_pdefile_error(f, lists[l]->pos[i], "%s '%s' declared twice", what[l], s);
            if (l == 1 && find(&f->inputs, s) >= 0)
                pf_pdefile_error(f, lists[l]->pos[i], "'%s' is both an input and an output", s);
        }
    }
    if (f->time) {
        f->time_input = find(&f->inputs, f->time);
        if (f->time_input < 0) pf_pdefile_error(f, f->time_pos, "time '%s' is not one of the inputs", f->time);
        /* time goes last, as in every PDE of the contract (the network's
         * input order; data and formulas refer to inputs by name) */
        for (int i = f->time_input; i >= 0 && i + 1 < f->inputs.n && i + 1 < PF_PDE_MAX_IN; i++) {
            const char *v = f->inputs.v[i];
            pf_pdefile_pos pos = f->inputs.pos[i];
            f->inputs.v[i] = f->inputs.v[i + 1], f->inputs.pos[i] = f->inputs.pos[i + 1];
            f->inputs.v[i + 1] = v, f->inputs.pos[i + 1] = pos;
            f->time_input = i + 1;
        }
    }
    for (int i = 0; i < f->nparams; i++) {
        const char *s = f->param_name[i];
        if (!strcmp(s, "pi") || find(&f->inputs, s) >= 0 || find(&f->outputs, s) >= 0 || find_param(f, s) < i)
            pf_pdefile_error(f, f->param_pos[i],
                             "parameter '%s' is already a name (pi, an input, an output or a "
                             "parameter)",
                             s);
        reset(ck, PF_PDEFILE_IN_CONST);
        ck->visible_params = i;
        if (!resolve(ck, f->param[i])) f->param[i]->value = NAN;
    }
}

static void domain(checker *ck)
{
    pf_pdefile *f = ck->f;
    if (!f->domain) return;
    int spatial = f->inputs.n - (f->time_input >= 0);
    double lo[PF_PDE_MAX_IN], hi[PF_PDE_MAX_IN];
    if (!shape(ck, f->domain, lo, hi)) return;
    if (f->domain->dim != spatial) {
        pf_pdefile_error(f, f->domain->pos, "the domain is %d-D but there %s %d spatial input%s", f->domain->dim,
                         spatial == 1 ? "is" : "are", spatial, spatial == 1 ? "" : "s");
        return;
    }
    for (int i = 0, a = 0; i < f->inputs.n && i < PF_PDE_MAX_IN; i++)
        if (i != f->time_input) f->lo[i] = lo[a], f->hi[i] = hi[a], a++;
    if (f->time_input >= 0) {
        reset(ck, PF_PDEFILE_IN_CONST);
        bool ok = resolve(ck, f->t0);
        if (ok && resolve(ck, f->t1)) {
            f->lo[f->time_input] = f->t0->value, f->hi[f->time_input] = f->t1->value;
            if (!(f->t0->value < f->t1->value))
                pf_pdefile_error(f, f->t0->pos, "the time interval [%g, %g] is empty", f->t0->value, f->t1->value);
        }
        add_part(f, "initial", f->time_pos);
        add_part(f, "final", f->time_pos);
    }
    for (int p = 0; p < f->nparts; p++) {
        pf_pdefile_part *pt = &f->parts[p];
        if (find_part(f, pt->name) >= 0) {
            pf_pdefile_error(f, pt->pos, "part '%s' already exists", pt->name);
            continue;
        }
        for (int j = 0; j < pt->of.n; j++)
            if (find_part(f, pt->of.v[j]) < 0) {
                char all[1024];
                parts_list(f, all, sizeof all);
                pf_pdefile_error(f, pt->of.pos[j], "unknown boundary part '%s' (the parts are %s)", pt->of.v[j], all);
            }
        if (pt->where) {
            reset(ck, PF_PDEFILE_IN_WHERE);
            resolve(ck, pt->where);
        }
        add_part(f, pt->name, pt->pos);
    }
}

static void equations(checker *ck)
{
    pf_pdefile *f = ck->f;
    bool second_outside_lap = false, lap = false;
    for (int q = 0; q < f->neq; q++) {
        pf_pdefile_equation *eq = &f->eq[q];
        reset(ck, PF_PDEFILE_IN_EQUATION);
        if (!resolve(ck, eq->e)) continue;
        if (!ck->any_output) pf_pdefile_error(f, start(eq->e), "this equation does not involve the outputs");
        memcpy(eq->orders, ck->orders, sizeof eq->orders);
        eq->uses_lap = ck->lap;
        for (int i = 0; i < PF_PDE_MAX_IN; i++)
            f->orders[i] = f->orders[i] > ck->orders[i] ? f->orders[i] : ck->orders[i];
        lap |= ck->lap, second_outside_lap |= ck->spatial_second;
    }
    f->laplacian_only = lap && !second_outside_lap;
}

static void constraints(checker *ck)
{
    pf_pdefile *f = ck->f;
    char all[1024];
    for (int n = 0; n < f->ncon; n++) {
        pf_pdefile_constraint *c = &f->con[n];
        for (int j = 0; j < n; j++)
            if (!strcmp(f->con[j].name, c->name))
                pf_pdefile_error(f, c->pos, "constraint '%s' declared twice", c->name);
        bool initial = c->kind == PF_PDEFILE_CON_INITIAL || c->kind == PF_PDEFILE_CON_INITIAL_RATE;
        if (initial && f->time_input < 0) {
            pf_pdefile_error(f, c->pos, "%s constraint '%s' but no input is time (declare `time t in [t0, t1]`)",
                             pf_pdefile_con_kind_name(c->kind), c->name);
            continue;
        }
        for (int j = 0; j < c->on.n; j++)
            if (find_part(f, c->on.v[j]) < 0) {
                parts_list(f, all, sizeof all);
                pf_pdefile_error(f, c->on.pos[j], "unknown boundary part '%s' (the parts are %s)", c->on.v[j], all);
            }
        if (c->kind == PF_PDEFILE_CON_PERIODIC || c->kind == PF_PDEFILE_CON_OBSERVE) {
            c->output = c->e->op == PF_PDEFILE_NAME ? find(&f->outputs, c->e->name) : -1;
            if (c->output < 0) {
                pf_pdefile_error(f, c->e->pos, "a %s constraint names one output (u, not an expression)",
                                 pf_pdefile_con_kind_name(c->kind));
                continue;
            }
            reset(ck, PF_PDEFILE_IN_BOUNDARY);
            resolve(ck, c->e);
        }
        if (c->kind == PF_PDEFILE_CON_PERIODIC) {
            c->periodic_input = find(&f->inputs, c->along);
            if (c->periodic_input < 0 || c->periodic_input == f->time_input) {
                pf_pdefile_error(f, c->along_pos, "periodic along '%s': not a spatial input", c->along);
                continue;
            }
            char lo[PF_PDEFILE_MAX_NAME + 4], hi[PF_PDEFILE_MAX_NAME + 4];
            snprintf(lo, sizeof lo, "%s_lo", c->along);
            snprintf(hi, sizeof hi, "%s_hi", c->along);
            if (find_part(f, lo) < 0 || find_part(f, hi) < 0)
                pf_pdefile_error(f, c->along_pos, "periodic along '%s' needs the faces %s and %s (a box domain)",
                                 c->along, lo, hi);
            continue;
        }
        if (c->kind == PF_PDEFILE_CON_OBSERVE) {
            const char *dot = strrchr(c->file, '.');
            if (!dot || (strcmp(dot, ".csv") && strcmp(dot, ".dat") && strcmp(dot, ".h5") && strcmp(dot, ".hdf5")))
                pf_pdefile_error(f, c->file_pos, "observations come from a .csv, .dat or .h5 file, not '%s'", c->file);
            continue;
        }
        reset(ck, initial ? PF_PDEFILE_IN_INITIAL : PF_PDEFILE_IN_BOUNDARY);
        if (!resolve(ck, c->e)) continue;
        int order = ck->dn ? 1 : 0;
        for (int i = 0; i < f->inputs.n; i++) order = ck->orders[i] > order ? ck->orders[i] : order;
        c->order = order;
        const char *kind = pf_pdefile_con_kind_name(c->kind);
        if (!ck->any_output)
            pf_pdefile_error(f, start(c->e), "constraint '%s' does not involve the outputs", c->name);
        else if (order > 1)
            pf_pdefile_error(f, start(c->e),
                             "constraint '%s' needs derivatives of order %d: constraints use values "
                             "and first derivatives",
                             c->name, order);
        else if ((c->kind == PF_PDEFILE_CON_DIRICHLET || c->kind == PF_PDEFILE_CON_INITIAL) && order > 0)
            pf_pdefile_error(f, start(c->e), "%s %s constraint sets values: use %s for derivatives",
                             c->kind == PF_PDEFILE_CON_INITIAL ? "an" : "a", kind,
                             c->kind == PF_PDEFILE_CON_INITIAL ? "initial_rate" : "neumann or robin");
        else if (c->kind == PF_PDEFILE_CON_INITIAL_RATE && ck->orders[f->time_input] < 1)
            pf_pdefile_error(f, start(c->e), "initial_rate constraint '%s' has no time derivative (u_%s)", c->name,
                             f->time);
        else if ((c->kind == PF_PDEFILE_CON_NEUMANN || c->kind == PF_PDEFILE_CON_ROBIN) && order < 1)
            pf_pdefile_error(f, start(c->e),
                             "a %s constraint involves a derivative (dn(u), u_x); use dirichlet "
                             "for values",
                             kind);
    }
}

static void hard(checker *ck)
{
    pf_pdefile *f = ck->f;
    for (int h = 0; h < f->nhard; h++) {
        pf_pdefile_hard *t = &f->hard[h];
        for (int j = 0; j < t->satisfies.n; j++) {
            bool found = false;
            for (int n = 0; n < f->ncon; n++) found |= !strcmp(f->con[n].name, t->satisfies.v[j]);
            if (!found) pf_pdefile_error(f, t->satisfies.pos[j], "unknown constraint '%s'", t->satisfies.v[j]);
        }
        for (int a = 0; a < t->n; a++) {
            pf_pdefile_assign *s = &t->set[a];
            s->output = find(&f->outputs, s->name);
            if (s->output < 0) {
                pf_pdefile_error(f, s->pos, "'%s' is not an output", s->name);
                continue;
            }
            for (int b = 0; b < a; b++)
                if (t->set[b].output == s->output) pf_pdefile_error(f, s->pos, "'%s' set twice", s->name);
            reset(ck, PF_PDEFILE_IN_HARD);
            if (resolve(ck, s->e) && !ck->net[s->output])
                pf_pdefile_error(f, start(s->e), "%s = ... does not use net(%s): the network would not enter", s->name,
                                 s->name);
        }
    }
}

static void reference(checker *ck)
{
    pf_pdefile *f = ck->f;
    pf_pdefile_ref *r = &f->ref;
    if (r->nexact && r->file) {
        pf_pdefile_error(f, r->pos, "both an exact solution and a reference file: keep one");
        return;
    }
    if (r->nexact) {
        r->kind = PF_PDEFILE_REF_EXACT;
        for (int a = 0; a < r->nexact; a++) {
            pf_pdefile_assign *s = &r->exact[a];
            s->output = find(&f->outputs, s->name);
            if (s->output < 0) {
                pf_pdefile_error(f, s->pos, "'%s' is not an output", s->name);
                continue;
            }
            for (int b = 0; b < a; b++)
                if (r->exact[b].output == s->output) pf_pdefile_error(f, s->pos, "exact '%s' given twice", s->name);
            reset(ck, PF_PDEFILE_IN_EXACT);
            resolve(ck, s->e);
        }
        for (int k = 0; k < f->outputs.n; k++) {
            bool found = false;
            for (int a = 0; a < r->nexact; a++) found |= r->exact[a].output == k;
            if (!found) pf_pdefile_error(f, r->exact[0].pos, "no exact solution for output '%s'", f->outputs.v[k]);
        }
        if (r->rows) pf_pdefile_error(f, r->exact[0].pos, "`evaluate rows` needs a reference file");
        if (r->box && f->domain && f->domain->kind != PF_PDEFILE_INTERVAL && f->domain->kind != PF_PDEFILE_BOX)
            pf_pdefile_error(f, r->exact[0].pos, "`evaluate box grid` needs an interval or box domain");
    } else if (r->file) {
        r->kind = PF_PDEFILE_REF_DATA;
        const char *dot = strrchr(r->file, '.');
        if (!dot || (strcmp(dot, ".csv") && strcmp(dot, ".dat") && strcmp(dot, ".h5") && strcmp(dot, ".hdf5")))
            pf_pdefile_error(f, r->pos, "a reference file is .dat, .csv or .h5, not '%s'", r->file);
        for (int j = 0; j < r->columns.n; j++)
            for (int k = 0; k < j; k++)
                if (!strcmp(r->columns.v[j], r->columns.v[k]))
                    pf_pdefile_error(f, r->columns.pos[j], "column '%s' named twice", r->columns.v[j]);
        for (int l = 0; l < 2 && r->columns.n; l++) {
            const pf_pdefile_names *names = l ? &f->outputs : &f->inputs;
            for (int i = 0; i < names->n; i++)
                if (find(&r->columns, names->v[i]) < 0)
                    pf_pdefile_error(f, r->pos, "the columns do not name %s '%s'", l ? "output" : "input", names->v[i]);
        }
        if (r->grid || r->box) pf_pdefile_error(f, r->pos, "a reference file is evaluated at its rows, not a grid");
        r->rows = true;
    } else if (r->rows || r->grid) {
        pf_pdefile_error(f, f->end, "`evaluate` without an exact solution or a reference file");
    }
}

static void tags(pf_pdefile *f)
{
    for (int j = 0; j < f->tags.n; j++) {
        int b = 0;
        while (b < PF_TAG_COUNT && strcmp(pf_pde_tag_name(b), f->tags.v[j])) b++;
        if (b < PF_TAG_COUNT) {
            f->tag_bits |= 1u << b;
            continue;
        }
        char known[512];
        size_t n = 0;
        for (int k = 0; k < PF_TAG_COUNT; k++)
            n += (size_t)snprintf(known + n, sizeof known - n, "%s%s", k ? ", " : "", pf_pde_tag_name(k));
        pf_pdefile_error(f, f->tags.pos[j], "unknown tag '%s' (the tags are %s)", f->tags.v[j], known);
    }
    if (f->time_input >= 0) f->tag_bits |= PF_TAG_TIME_DEPENDENT;
    for (int n = 0; n < f->ncon; n++)
        if (f->con[n].kind == PF_PDEFILE_CON_PERIODIC) f->tag_bits |= PF_TAG_PERIODIC;
}

pf_status pf_pdefile_check(pf_pdefile *f)
{
    static const char *const needed[] = {"pde NAME",       "statement \"...\"", "inputs x, ...",
                                         "outputs u, ...", "domain SHAPE",      "equation EXPR"};
    const void *have[] = {f->name,   f->statement,     f->inputs.n ? f : NULL, f->outputs.n ? f : NULL,
                          f->domain, f->neq ? f : NULL};
    for (int i = 0; i < 6; i++)
        if (!have[i]) pf_pdefile_error(f, f->end, "missing `%s` (required)", needed[i]);
    if (f->nerrors) return PF_ERR_INVALID;
    checker ck = {.f = f};
    declarations(&ck);
    if (f->nerrors) return PF_ERR_INVALID; /* what follows resolves against these names */
    domain(&ck);
    equations(&ck);
    constraints(&ck);
    hard(&ck);
    reference(&ck);
    tags(f);
    return f->nerrors ? PF_ERR_INVALID : PF_OK;
}
