/* parser.c — recursive descent over the tokens of lexer.h into ast.h. */
#include "pdefile/parser.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "pdefile/lexer.h"

typedef struct parser {
    pf_pdefile *f;
    pf_lexer lx;
    pf_token tok; /* the current token */
    int depth;    /* recursion: parentheses, calls, unary operators */
    int shapes;   /* shapes of the domain being read */
    bool failed, nomem;
} parser;

static void next(parser *p)
{
    p->tok = pf_lexer_next(&p->lx);
}

/* The token after the current one, without consuming anything. */
static pf_token peek2(const parser *p)
{
    pf_lexer copy = p->lx;
    return pf_lexer_next(&copy);
}

static bool is(const parser *p, pf_token_kind k)
{
    return p->tok.kind == k;
}

static bool is_word(const parser *p, const char *w)
{
    return p->tok.kind == PF_TOK_NAME && p->tok.len == strlen(w) && !memcmp(p->tok.text, w, p->tok.len);
}

/* "'foo'", "a number", "the end of the line" for what was found. */
static const char *found(const parser *p, char *buf, size_t cap)
{
    if (p->tok.kind == PF_TOK_NAME || p->tok.kind == PF_TOK_NUMBER)
        snprintf(buf, cap, "'%.*s'", (int)p->tok.len, p->tok.text);
    else
        snprintf(buf, cap, "%s", pf_token_kind_name(p->tok.kind));
    return buf;
}

static void fail_at(parser *p, pf_pdefile_pos pos, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void fail_at(parser *p, pf_pdefile_pos pos, const char *fmt, ...)
{
    if (p->failed) return;
    p->failed = true;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    pf_pdefile_error(p->f, pos, "%s", msg);
}

/* "expected WHAT, found X" at the current token (a lexer error is reported
 * as itself). */
static void expected(parser *p, const char *what)
{
    char buf[80];
    if (p->tok.kind == PF_TOK_ERROR)
        fail_at(p, p->tok.pos, "%.*s", (int)p->tok.len, p->tok.text);
    else
        fail_at(p, p->tok.pos, "expected %s, found %s", what, found(p, buf, sizeof buf));
}

static bool expect(parser *p, pf_token_kind k, const char *what)
{
    if (p->failed) return false;
    if (!is(p, k)) {
        expected(p, what ? what : pf_token_kind_name(k));
        return false;
    }
    next(p);
    return true;
}

static void *nomem(parser *p)
{
    if (!p->failed) pf_pdefile_error(p->f, p->tok.pos, "out of memory");
    p->failed = p->nomem = true;
    return NULL;
}

static void skip_newlines(parser *p)
{
    while (is(p, PF_TOK_NEWLINE)) next(p);
}

static const char *name(parser *p, const char *what, pf_pdefile_pos *pos)
{
    if (p->failed) return NULL;
    if (!is(p, PF_TOK_NAME)) {
        expected(p, what);
        return NULL;
    }
    if (pos) *pos = p->tok.pos;
    const char *s = pf_pdefile_strndup(p->f, p->tok.text, p->tok.len);
    if (!s) return nomem(p);
    next(p);
    return s;
}

/* NAME {',' NAME} */
static void names(parser *p, pf_pdefile_names *out, const char *what)
{
    out->n = 0;
    do {
        if (out->n == PF_PDEFILE_MAX_LIST) {
            fail_at(p, p->tok.pos, "more than %d names in one list", PF_PDEFILE_MAX_LIST);
            return;
        }
        const char *s = name(p, what, &out->pos[out->n]);
        if (!s) return;
        out->v[out->n++] = s;
    } while (is(p, PF_TOK_COMMA) && (next(p), skip_newlines(p), true));
}

static const char *string(parser *p, const char *what, pf_pdefile_pos *pos)
{
    if (p->failed) return NULL;
    if (!is(p, PF_TOK_STRING)) {
        expected(p, what);
        return NULL;
    }
    if (pos) *pos = p->tok.pos;
    char *s = pf_pdefile_arena(p->f, p->tok.len + 1);
    if (!s) return nomem(p);
    pf_lexer_string(&p->tok, s, p->tok.len + 1); /* decoding never lengthens */
    next(p);
    return s;
}

/* ------------------------------------------------------------ expressions */

static pf_pdefile_expr *expr(parser *p);
static pf_pdefile_expr *condition(parser *p);

static bool enter(parser *p)
{
    if (++p->depth > PF_PDEFILE_MAX_DEPTH) {
        fail_at(p, p->tok.pos, "nested more than %d levels deep", PF_PDEFILE_MAX_DEPTH);
        return false;
    }
    return true;
}

/* The depth of a node over operands a[0..n) (1 + the deepest), or 0 after
 * the error that it is too deep (at pos, the node's operator). Every pass
 * over an expression (checker, folder, evaluator, compiler, printer)
 * recurses along the tree, so the tree's depth, not only the parser's
 * nesting, is bounded: x + x + ... builds a left chain in a loop. */
static int depth_of(parser *p, pf_pdefile_pos pos, pf_pdefile_expr *const *a, int n)
{
    int d = 0;
    for (int j = 0; j < n; j++)
        if (a[j] && a[j]->depth > d) d = a[j]->depth;
    if (d + 1 > PF_PDEFILE_MAX_EXPR_DEPTH) {
        fail_at(p, pos,
                "expression more than %d operations deep (a chain of more than %d terms or factors, or "
                "operations nested that deep): write it with fewer terms",
                PF_PDEFILE_MAX_EXPR_DEPTH, PF_PDEFILE_MAX_EXPR_DEPTH);
        return 0;
    }
    return d + 1;
}

static pf_pdefile_expr *node(parser *p, pf_pdefile_op op, pf_pdefile_pos pos, pf_pdefile_expr *a, pf_pdefile_expr *b)
{
    if (p->failed || !a) return NULL;
    pf_pdefile_expr *ab[2] = {a, b};
    int depth = depth_of(p, pos, ab, b ? 2 : 1);
    if (!depth) return NULL;
    pf_pdefile_expr *e = pf_pdefile_expr_new(p->f, op, pos, b ? 2 : 1);
    if (!e) return nomem(p);
    e->depth = depth;
    e->args[0] = a;
    if (b) e->args[1] = b;
    return e;
}

/* name '(' [arg {',' arg}] ')', the current token being the '(' */
static pf_pdefile_expr *call(parser *p, const char *fname, pf_pdefile_pos pos)
{
    pf_pdefile_pos open = p->tok.pos;
    next(p);
    pf_pdefile_expr *args[8];
    int n = 0;
    if (!is(p, PF_TOK_RPAREN)) {
        do {
            if (n == 8) {
                fail_at(p, p->tok.pos, "more than 8 arguments to %s()", fname);
                return NULL;
            }
            /* if(condition, a, b) */
            args[n] = n == 0 && !strcmp(fname, "if") ? condition(p) : expr(p);
            if (!args[n++]) return NULL;
        } while (is(p, PF_TOK_COMMA) && (next(p), true));
    }
    if (!is(p, PF_TOK_RPAREN)) {
        char what[64];
        snprintf(what, sizeof what, "',' or ')' to close the '(' at %d:%d", open.line, open.col);
        expected(p, what);
        return NULL;
    }
    next(p);
    int depth = depth_of(p, pos, args, n);
    if (!depth) return NULL;
    pf_pdefile_expr *e = pf_pdefile_expr_new(p->f, PF_PDEFILE_CALL, pos, n);
    if (!e) return nomem(p);
    e->depth = depth;
    e->name = fname;
    if (n) memcpy(e->args, args, (size_t)n * sizeof *args);
    return e;
}

static pf_pdefile_expr *atom(parser *p)
{
    if (p->failed) return NULL;
    pf_pdefile_pos pos = p->tok.pos;
    if (is(p, PF_TOK_NUMBER)) {
        pf_pdefile_expr *e = pf_pdefile_expr_new(p->f, PF_PDEFILE_NUM, pos, 0);
        if (!e) return nomem(p);
        e->depth = 1;
        e->value = p->tok.num;
        next(p);
        return e;
    }
    if (is(p, PF_TOK_NAME)) {
        const char *s = name(p, "a name", NULL);
        if (!s) return NULL;
        if (is(p, PF_TOK_LPAREN)) return call(p, s, pos);
        pf_pdefile_expr *e = pf_pdefile_expr_new(p->f, PF_PDEFILE_NAME, pos, 0);
        if (!e) return nomem(p);
        e->depth = 1;
        e->name = s;
        return e;
    }
    if (is(p, PF_TOK_LPAREN)) {
        next(p);
        pf_pdefile_expr *e = expr(p);
        if (!e) return NULL;
        if (!is(p, PF_TOK_RPAREN)) {
            char what[64];
            snprintf(what, sizeof what, "')' to close the '(' at %d:%d", pos.line, pos.col);
            expected(p, what);
            return NULL;
        }
        next(p);
        return e;
    }
    expected(p, "a number, a name or '('");
    return NULL;
}

static pf_pdefile_expr *unary(parser *p);

/* atom ['^' unary]: right-associative, tighter than unary minus */
static pf_pdefile_expr *power(parser *p)
{
    pf_pdefile_expr *a = atom(p);
    if (!a || !is(p, PF_TOK_CARET)) return a;
    pf_pdefile_pos pos = p->tok.pos;
    next(p);
    skip_newlines(p);
    return node(p, PF_PDEFILE_POW, pos, a, unary(p));
}

static pf_pdefile_expr *unary(parser *p)
{
    if (!enter(p)) return NULL;
    pf_pdefile_expr *e;
    if (is(p, PF_TOK_MINUS)) {
        pf_pdefile_pos pos = p->tok.pos;
        next(p);
        e = node(p, PF_PDEFILE_NEG, pos, unary(p), NULL);
    } else if (is(p, PF_TOK_PLUS)) {
        next(p);
        e = unary(p);
    } else {
        e = power(p);
    }
    p->depth--;
    return p->failed ? NULL : e;
}

static pf_pdefile_expr *term(parser *p)
{
    pf_pdefile_expr *a = unary(p);
    while (a && (is(p, PF_TOK_STAR) || is(p, PF_TOK_SLASH))) {
        pf_pdefile_op op = is(p, PF_TOK_STAR) ? PF_PDEFILE_MUL : PF_PDEFILE_DIV;
        pf_pdefile_pos pos = p->tok.pos;
        next(p);
        skip_newlines(p);
        a = node(p, op, pos, a, unary(p));
    }
    return a;
}

static pf_pdefile_expr *expr(parser *p)
{
    if (!enter(p)) return NULL;
    pf_pdefile_expr *a = term(p);
    while (a && (is(p, PF_TOK_PLUS) || is(p, PF_TOK_MINUS))) {
        pf_pdefile_op op = is(p, PF_TOK_PLUS) ? PF_PDEFILE_ADD : PF_PDEFILE_SUB;
        pf_pdefile_pos pos = p->tok.pos;
        next(p);
        skip_newlines(p);
        a = node(p, op, pos, a, term(p));
    }
    p->depth--;
    return p->failed ? NULL : a;
}

/* expr relop expr */
static pf_pdefile_expr *comparison(parser *p)
{
    pf_pdefile_expr *a = expr(p);
    if (!a) return NULL;
    pf_pdefile_op op;
    switch (p->tok.kind) {
    case PF_TOK_LT: op = PF_PDEFILE_LT; break;
    case PF_TOK_LE: op = PF_PDEFILE_LE; break;
    case PF_TOK_GT: op = PF_PDEFILE_GT; break;
    case PF_TOK_GE: op = PF_PDEFILE_GE; break;
    default: expected(p, "a comparison (<, <=, >, >=)"); return NULL;
    }
    pf_pdefile_pos pos = p->tok.pos;
    next(p);
    return node(p, op, pos, a, expr(p));
}

static pf_pdefile_expr *conjunction(parser *p)
{
    pf_pdefile_expr *a = comparison(p);
    while (a && is_word(p, "and")) {
        pf_pdefile_pos pos = p->tok.pos;
        next(p);
        a = node(p, PF_PDEFILE_AND, pos, a, comparison(p));
    }
    return a;
}

static pf_pdefile_expr *condition(parser *p)
{
    pf_pdefile_expr *a = conjunction(p);
    while (a && is_word(p, "or")) {
        pf_pdefile_pos pos = p->tok.pos;
        next(p);
        a = node(p, PF_PDEFILE_OR, pos, a, conjunction(p));
    }
    return a;
}

/* lhs = rhs as the residual lhs - rhs (lhs alone when rhs is omitted and
 * `optional`) */
static pf_pdefile_expr *residual(parser *p, bool optional)
{
    pf_pdefile_expr *lhs = expr(p);
    if (!lhs) return NULL;
    if (!is(p, PF_TOK_ASSIGN)) {
        if (optional) return lhs;
        expected(p, "'=' (a constraint reads lhs = rhs)");
        return NULL;
    }
    pf_pdefile_pos pos = p->tok.pos;
    next(p);
    skip_newlines(p);
    pf_pdefile_expr *rhs = expr(p);
    if (rhs && rhs->op == PF_PDEFILE_NUM && rhs->value == 0) return lhs; /* lhs = 0 */
    return node(p, PF_PDEFILE_SUB, pos, lhs, rhs);
}

/* -------------------------------------------------------------- geometry */

/* Numbers of a shape: expressions into a growing list. */
typedef struct numlist {
    int n;
    pf_pdefile_expr *v[PF_PDEFILE_MAX_ARGS];
} numlist;

static bool num(parser *p, numlist *l)
{
    if (l->n == PF_PDEFILE_MAX_ARGS) {
        fail_at(p, p->tok.pos, "more than %d numbers in one shape", PF_PDEFILE_MAX_ARGS);
        return false;
    }
    return (l->v[l->n++] = expr(p)) != NULL;
}

/* open NUM {',' NUM} close, with at least `min` numbers */
static int numbers(parser *p, numlist *l, pf_token_kind open, pf_token_kind close, const char *what)
{
    if (!expect(p, open, what)) return -1;
    int n = 0;
    do {
        if (!num(p, l)) return -1;
        n++;
    } while (is(p, PF_TOK_COMMA) && (next(p), true));
    return expect(p, close, close == PF_TOK_RBRACKET ? "',' or ']'" : "',' or ')'") ? n : -1;
}

static pf_pdefile_geom *geom(parser *p);

static pf_pdefile_geom *shape(parser *p)
{
    if (p->failed || !enter(p)) return NULL;
    pf_pdefile_pos pos = p->tok.pos;
    pf_pdefile_geom *g = NULL;
    if (is(p, PF_TOK_LPAREN)) {
        next(p);
        g = geom(p);
        if (!expect(p, PF_TOK_RPAREN, "')' closing the shape")) return NULL;
        p->depth--;
        return g;
    }
    static const char *const kinds[] = {"interval", "box", "disk", "ball", "polygon"};
    int kind = -1;
    for (int k = 0; k < 5; k++)
        if (is_word(p, kinds[k])) kind = k;
    if (kind < 0) {
        expected(p, "a shape (interval, box, disk, ball, polygon) or '('");
        return NULL;
    }
    /* the checker, the compiler and the geometry recurse over the shapes'
     * tree, and each + or - is a CSG operation with its own volume */
    if (++p->shapes > PF_PDEFILE_MAX_SHAPES) {
        fail_at(p, pos, "a domain of more than %d shapes", PF_PDEFILE_MAX_SHAPES);
        return NULL;
    }
    next(p);
    numlist *l = pf_pdefile_arena(p->f, sizeof *l);
    if (!l) return nomem(p);
    pf_pdefile_pos open = p->tok.pos;
    if (!expect(p, PF_TOK_LPAREN, "'('")) return NULL;
    switch (kind) {
    case PF_PDEFILE_INTERVAL:
    case PF_PDEFILE_DISK:
        do {
            if (!num(p, l)) return NULL;
        } while (is(p, PF_TOK_COMMA) && (next(p), true));
        if (l->n != (kind == PF_PDEFILE_INTERVAL ? 2 : 3)) {
            fail_at(p, open, "%s takes %s", kinds[kind], kind == PF_PDEFILE_INTERVAL ? "(lo, hi)" : "(cx, cy, r)");
            return NULL;
        }
        break;
    case PF_PDEFILE_BOX:
        do {
            int n = numbers(p, l, PF_TOK_LBRACKET, PF_TOK_RBRACKET, "'[' starting a range [lo, hi]");
            if (n < 0) return NULL;
            if (n != 2) {
                fail_at(p, l->v[l->n - n]->pos, "a box's range is [lo, hi], not %d numbers", n);
                return NULL;
            }
        } while (is(p, PF_TOK_COMMA) && (next(p), true));
        break;
    case PF_PDEFILE_BALL:
        if (numbers(p, l, PF_TOK_LBRACKET, PF_TOK_RBRACKET, "'[' starting the centre [c0, c1, ...]") < 0 ||
            !expect(p, PF_TOK_COMMA, "',' and the radius") || !num(p, l))
            return NULL;
        break;
    case PF_PDEFILE_POLYGON:
        do {
            int n = numbers(p, l, PF_TOK_LPAREN, PF_TOK_RPAREN, "'(' starting a vertex (x, y)");
            if (n < 0) return NULL;
            if (n != 2) {
                fail_at(p, l->v[l->n - n]->pos, "a vertex is (x, y), not %d numbers", n);
                return NULL;
            }
        } while (is(p, PF_TOK_COMMA) && (next(p), true));
        if (l->n < 6) {
            fail_at(p, open, "a polygon needs at least 3 vertices");
            return NULL;
        }
        break;
    }
    if (!expect(p, PF_TOK_RPAREN, "')'")) return NULL;
    g = pf_pdefile_arena(p->f, sizeof *g);
    if (!g || !(g->args = pf_pdefile_arena(p->f, (size_t)l->n * sizeof *g->args))) return nomem(p);
    g->kind = (pf_pdefile_geom_kind)kind, g->pos = pos, g->nargs = l->n;
    memcpy(g->args, l->v, (size_t)l->n * sizeof *l->v);
    if ((kind == PF_PDEFILE_DISK || kind == PF_PDEFILE_BALL) && is_word(p, "as")) {
        next(p);
        g->name = name(p, "the name of the circle's boundary part", NULL);
    }
    if (kind == PF_PDEFILE_POLYGON && is_word(p, "edges")) {
        next(p);
        names(p, &g->edges, "an edge's part name");
    }
    p->depth--;
    return p->failed ? NULL : g;
}

/* shape {('-' | '+') shape}: difference and union, left to right */
static pf_pdefile_geom *geom(parser *p)
{
    pf_pdefile_geom *a = shape(p);
    while (a && (is(p, PF_TOK_MINUS) || is(p, PF_TOK_PLUS))) {
        pf_pdefile_geom *g = pf_pdefile_arena(p->f, sizeof *g);
        if (!g) return nomem(p);
        g->kind = is(p, PF_TOK_MINUS) ? PF_PDEFILE_DIFFERENCE : PF_PDEFILE_UNION;
        g->pos = p->tok.pos;
        next(p);
        skip_newlines(p);
        g->a = a;
        if (!(g->b = shape(p))) return NULL;
        a = g;
    }
    return a;
}

/* ------------------------------------------------------------ statements */

static bool once(parser *p, const void *field, pf_pdefile_pos pos, const char *kw)
{
    if (field) fail_at(p, pos, "'%s' given twice", kw);
    return !field;
}

static void constraint(parser *p, pf_pdefile_con_kind kind, pf_pdefile_pos pos, const char *kw)
{
    pf_pdefile *f = p->f;
    if (f->ncon == PF_PDE_MAX_CONSTRAINTS) {
        fail_at(p, pos, "more than %d constraints (the engine's limit)", PF_PDE_MAX_CONSTRAINTS);
        return;
    }
    pf_pdefile_constraint *c = &f->con[f->ncon++];
    c->kind = kind, c->pos = pos;
    char what[PF_PDEFILE_MAX_NAME + 32];
    snprintf(what, sizeof what, "the %s constraint's name", kw);
    c->name = name(p, what, NULL);
    switch (kind) {
    case PF_PDEFILE_CON_DIRICHLET:
    case PF_PDEFILE_CON_NEUMANN:
    case PF_PDEFILE_CON_ROBIN:
        if (!is_word(p, "on")) {
            expected(p, "'on' and the boundary parts");
            return;
        }
        next(p);
        names(p, &c->on, "a boundary part's name");
        break;
    case PF_PDEFILE_CON_PERIODIC:
        if (!is_word(p, "along")) {
            expected(p, "'along' and an input");
            return;
        }
        next(p);
        c->along = name(p, "the input along which the solution repeats", &c->along_pos);
        break;
    default: break;
    }
    if (!expect(p, PF_TOK_COLON, "':'")) return;
    skip_newlines(p);
    if (kind == PF_PDEFILE_CON_PERIODIC) {
        c->e = expr(p);
    } else if (kind == PF_PDEFILE_CON_OBSERVE) {
        c->e = expr(p);
        if (!is_word(p, "from")) {
            expected(p, "'from' and the data file");
            return;
        }
        next(p);
        c->file = string(p, "the data file's name in quotes", &c->file_pos);
    } else {
        c->e = residual(p, false);
    }
}

static void assignments(parser *p, pf_pdefile_assign *set, int *n, const char *what)
{
    do {
        if (*n == PF_PDE_MAX_OUT) {
            fail_at(p, p->tok.pos, "more than %d outputs", PF_PDE_MAX_OUT);
            return;
        }
        pf_pdefile_assign *a = &set[(*n)++];
        a->name = name(p, what, &a->pos);
        if (!expect(p, PF_TOK_ASSIGN, "'='")) return;
        skip_newlines(p);
        a->e = expr(p);
    } while (!p->failed && is(p, PF_TOK_COMMA) && (next(p), skip_newlines(p), true));
}

static void statement(parser *p)
{
    pf_pdefile *f = p->f;
    pf_pdefile_pos pos = p->tok.pos;
    if (!is(p, PF_TOK_NAME)) {
        expected(p, "a statement (pde, inputs, outputs, domain, equation, ...)");
        return;
    }
    char kw[PF_PDEFILE_MAX_NAME + 1];
    snprintf(kw, sizeof kw, "%.*s", (int)p->tok.len, p->tok.text);
    next(p);
    static const char *const con_kw[PF_PDEFILE_CON_COUNT] = {
        "initial", "initial_rate", "dirichlet", "neumann", "robin", "periodic", "observe",
    };
    for (int k = 0; k < PF_PDEFILE_CON_COUNT; k++)
        if (!strcmp(kw, con_kw[k])) {
            constraint(p, (pf_pdefile_con_kind)k, pos, kw);
            return;
        }
    if (!strcmp(kw, "pde")) {
        if (once(p, f->name, pos, kw)) f->name = name(p, "the PDE's name", &f->name_pos);
    } else if (!strcmp(kw, "title")) {
        if (once(p, f->title, pos, kw)) f->title = string(p, "the title in quotes", NULL);
    } else if (!strcmp(kw, "statement")) {
        if (once(p, f->statement, pos, kw)) f->statement = string(p, "the statement in quotes", &f->statement_pos);
    } else if (!strcmp(kw, "latex")) {
        if (once(p, f->latex, pos, kw)) f->latex = string(p, "the LaTeX formula in quotes", NULL);
    } else if (!strcmp(kw, "inputs")) {
        if (once(p, f->inputs.n ? f : NULL, pos, kw)) names(p, &f->inputs, "an input's name");
    } else if (!strcmp(kw, "outputs")) {
        if (once(p, f->outputs.n ? f : NULL, pos, kw)) names(p, &f->outputs, "an output's name");
    } else if (!strcmp(kw, "tags")) {
        if (once(p, f->tags.n ? f : NULL, pos, kw)) names(p, &f->tags, "a tag");
    } else if (!strcmp(kw, "time")) {
        if (!once(p, f->time, pos, kw)) return;
        f->time = name(p, "the time input's name", &f->time_pos);
        if (!is_word(p, "in")) {
            expected(p, "'in' and the time interval [t0, t1]");
            return;
        }
        next(p);
        if (!expect(p, PF_TOK_LBRACKET, "'['") || !(f->t0 = expr(p)) || !expect(p, PF_TOK_COMMA, "','") ||
            !(f->t1 = expr(p)) || !expect(p, PF_TOK_RBRACKET, "']'"))
            return;
    } else if (!strcmp(kw, "param")) {
        if (f->nparams == PF_PDEFILE_MAX_PARAMS) {
            fail_at(p, pos, "more than %d parameters", PF_PDEFILE_MAX_PARAMS);
            return;
        }
        int i = f->nparams++;
        f->param_name[i] = name(p, "the parameter's name", &f->param_pos[i]);
        if (!expect(p, PF_TOK_ASSIGN, "'='")) return;
        skip_newlines(p);
        f->param[i] = expr(p);
    } else if (!strcmp(kw, "domain")) {
        if (!once(p, f->domain, pos, kw)) return;
        f->domain_pos = pos;
        p->shapes = 0;
        f->domain = geom(p);
    } else if (!strcmp(kw, "part")) {
        if (f->nparts == PF_PDEFILE_MAX_PARTS) {
            fail_at(p, pos, "more than %d parts", PF_PDEFILE_MAX_PARTS);
            return;
        }
        pf_pdefile_part *pt = &f->parts[f->nparts++];
        pt->name = name(p, "the part's name", &pt->pos);
        if (!expect(p, PF_TOK_ASSIGN, "'='")) return;
        names(p, &pt->of, "a boundary part's name");
        if (is_word(p, "where")) {
            next(p);
            pt->where = condition(p);
        }
    } else if (!strcmp(kw, "equation")) {
        if (f->neq == PF_PDE_MAX_EQ) {
            fail_at(p, pos, "more than %d equations (the engine's limit)", PF_PDE_MAX_EQ);
            return;
        }
        pf_pdefile_equation *q = &f->eq[f->neq++];
        q->pos = pos;
        if (is(p, PF_TOK_NAME) && peek2(p).kind == PF_TOK_COLON) {
            q->name = name(p, "the equation's name", NULL);
            next(p);
        }
        q->e = residual(p, true);
    } else if (!strcmp(kw, "hard")) {
        if (f->nhard == PF_PDE_MAX_HARD) {
            fail_at(p, pos, "more than %d hard transforms", PF_PDE_MAX_HARD);
            return;
        }
        pf_pdefile_hard *h = &f->hard[f->nhard++];
        h->pos = pos;
        h->name = name(p, "the transform's name", NULL);
        if (!is_word(p, "satisfies")) {
            expected(p, "'satisfies' and the constraints it makes exact");
            return;
        }
        next(p);
        names(p, &h->satisfies, "a constraint's name");
        if (!expect(p, PF_TOK_COLON, "':'")) return;
        skip_newlines(p);
        assignments(p, h->set, &h->n, "an output's name");
    } else if (!strcmp(kw, "exact")) {
        assignments(p, f->ref.exact, &f->ref.nexact, "an output's name");
    } else if (!strcmp(kw, "reference")) {
        if (!once(p, f->ref.file, pos, kw)) return;
        f->ref.file = string(p, "the reference data file's name in quotes", &f->ref.pos);
        if (is_word(p, "snapshots")) {
            f->ref.snapshots = true;
            next(p);
        } else if (is_word(p, "columns")) {
            next(p);
            names(p, &f->ref.columns, "a column's name");
        } else if (!is(p, PF_TOK_NEWLINE) && !is(p, PF_TOK_EOF)) {
            expected(p, "'snapshots' (PINNacle's layout), 'columns' and their names, or the end of the line");
        }
    } else if (!strcmp(kw, "evaluate")) {
        if (is_word(p, "rows")) {
            f->ref.rows = true;
            next(p);
            return;
        }
        if (is_word(p, "box")) {
            f->ref.box = true;
            next(p);
        }
        if (!is_word(p, "grid")) {
            expected(p, f->ref.box ? "'grid' ('evaluate box grid [N]')" : "'grid [N]', 'box grid [N]' or 'rows'");
            return;
        }
        next(p);
        if (is(p, PF_TOK_NEWLINE) || is(p, PF_TOK_EOF)) return; /* the rule's own size */
        if (!is(p, PF_TOK_NUMBER) || p->tok.num < 1 || p->tok.num > 1e7 || p->tok.num != (int)p->tok.num) {
            expected(p, "the number of grid points (an integer, 1..10000000) or the end of the line");
            return;
        }
        f->ref.grid = (int)p->tok.num;
        next(p);
    } else {
        fail_at(p, pos,
                "unknown statement '%s' (pde, title, statement, latex, inputs, outputs, time, param, "
                "domain, part, equation, initial, initial_rate, dirichlet, neumann, robin, periodic, "
                "observe, hard, exact, reference, evaluate, tags)",
                kw);
    }
}

static void init(parser *p, pf_pdefile *f, const char *src, size_t len)
{
    memset(p, 0, sizeof *p);
    p->f = f;
    pf_lexer_init(&p->lx, src, len);
    next(p);
}

static pf_status result(parser *p)
{
    return p->nomem ? PF_ERR_NOMEM : p->failed ? PF_ERR_INVALID : PF_OK;
}

pf_status pf_pdefile_parse(pf_pdefile *f, const char *src, size_t len)
{
    PF_ASSERT(len <= PF_PDEFILE_MAX_BYTES);
    parser p;
    init(&p, f, src, len);
    for (;;) {
        skip_newlines(&p);
        if (is(&p, PF_TOK_EOF) || p.failed) break;
        statement(&p);
        if (!p.failed && !is(&p, PF_TOK_NEWLINE) && !is(&p, PF_TOK_EOF)) expected(&p, "the end of the line");
    }
    f->end = p.tok.pos;
    return result(&p);
}

pf_status pf_pdefile_parse_expr(pf_pdefile *f, const char *src, size_t len, pf_pdefile_expr **out)
{
    parser p;
    init(&p, f, src, len);
    *out = expr(&p);
    if (!p.failed && !is(&p, PF_TOK_EOF)) expected(&p, "an operator or the end of the expression");
    return result(&p);
}
