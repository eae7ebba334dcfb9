/* eval.c — a checked expression's value at one point. */
#include "pdefile/eval.h"

#include <math.h>

static pf_status need(const double *v, const pf_pdefile_expr *e, const char *what)
{
    if (v) return PF_OK;
    return pf_fail(PF_ERR_INVALID, "%d:%d: '%s' needs %s, which this evaluation does not have", e->pos.line, e->pos.col,
                   e->name ? e->name : "?", what);
}

static double sigmoid(double a)
{
    return 1 / (1 + exp(-a));
}

static pf_status eval(const pf_pdefile *f, const pf_pdefile_expr *e, const double *x, const double *u, double *out)
{
    if (e->konst) {
        *out = e->value;
        return PF_OK;
    }
    double a = 0, b = 0, c = 0;
    switch (e->op) {
    case PF_PDEFILE_NUM: *out = e->value; return PF_OK;
    case PF_PDEFILE_INPUT:
        PF_TRY(need(x, e, "the inputs"));
        *out = x[e->index];
        return PF_OK;
    case PF_PDEFILE_NET:
    case PF_PDEFILE_FIELD:
        if (e->op == PF_PDEFILE_FIELD && e->order > 0) break;
        PF_TRY(need(u, e, "the outputs"));
        *out = u[e->index];
        return PF_OK;
    case PF_PDEFILE_BUBBLE:
        PF_TRY(need(x, e, "the inputs"));
        *out = 1;
        for (int i = 0; i < f->inputs.n; i++)
            if (i != f->time_input) *out *= (x[i] - f->lo[i]) * (f->hi[i] - x[i]);
        return PF_OK;
    case PF_PDEFILE_IF: PF_TRY(eval(f, e->args[0], x, u, &c)); return eval(f, e->args[c != 0 ? 1 : 2], x, u, out);
    default: break;
    }
    if (e->op == PF_PDEFILE_LAP || e->op == PF_PDEFILE_DN || e->op == PF_PDEFILE_FIELD)
        return pf_fail(PF_ERR_UNSUPPORTED, "%d:%d: '%s' is a derivative: no value at a point", e->pos.line, e->pos.col,
                       e->name ? e->name : "?");
    if (e->nargs < 1 || e->op == PF_PDEFILE_NAME || e->op == PF_PDEFILE_CALL)
        return pf_fail(PF_ERR_INVALID, "%d:%d: '%s' is not checked", e->pos.line, e->pos.col, e->name ? e->name : "?");
    PF_TRY(eval(f, e->args[0], x, u, &a));
    if (e->nargs > 1) PF_TRY(eval(f, e->args[1], x, u, &b));
    switch (e->op) {
    case PF_PDEFILE_NEG: *out = -a; break;
    case PF_PDEFILE_ADD: *out = a + b; break;
    case PF_PDEFILE_SUB: *out = a - b; break;
    case PF_PDEFILE_MUL: *out = a * b; break;
    case PF_PDEFILE_DIV: *out = a / b; break;
    case PF_PDEFILE_POW: *out = pow(a, b); break;
    case PF_PDEFILE_LT: *out = a < b; break;
    case PF_PDEFILE_LE: *out = a <= b; break;
    case PF_PDEFILE_GT: *out = a > b; break;
    case PF_PDEFILE_GE: *out = a >= b; break;
    case PF_PDEFILE_AND: *out = a != 0 && b != 0; break;
    case PF_PDEFILE_OR: *out = a != 0 || b != 0; break;
    case PF_PDEFILE_STEP: *out = a >= 0; break;
    case PF_PDEFILE_UNARY:
        switch ((pf_unary_op)e->unary) {
        case PF_UNARY_SIN: *out = sin(a); break;
        case PF_UNARY_COS: *out = cos(a); break;
        case PF_UNARY_TANH: *out = tanh(a); break;
        case PF_UNARY_EXP: *out = exp(a); break;
        case PF_UNARY_LOG: *out = log(a); break;
        case PF_UNARY_SQRT: *out = sqrt(a); break;
        case PF_UNARY_SIGMOID: *out = sigmoid(a); break;
        case PF_UNARY_SOFTPLUS: *out = a > 30 ? a : log1p(exp(a)); break;
        default: PF_ABORT("unary op %d has no evaluator", e->unary);
        }
        break;
    default: PF_ABORT("expression op %d has no evaluator", (int)e->op);
    }
    return PF_OK;
}

pf_status pf_pdefile_eval(const pf_pdefile *f, const pf_pdefile_expr *e, const double *x, const double *u, double *out)
{
    return eval(f, e, x, u, out);
}
