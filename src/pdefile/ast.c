/* ast.c — the .pde file's arena, nodes, diagnostics and expression printer. */
#include "pdefile/ast.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK_BYTES 65536

struct pf_pdefile_chunk {
    pf_pdefile_chunk *next;
    size_t used, cap;
    _Alignas(16) unsigned char data[];
};

static const char *const con_kind_names[PF_PDEFILE_CON_COUNT] = {
    "initial", "initial_rate", "dirichlet", "neumann", "robin", "periodic", "observe",
};

const char *pf_pdefile_con_kind_name(pf_pdefile_con_kind k)
{
    return (unsigned)k < PF_PDEFILE_CON_COUNT ? con_kind_names[k] : "?";
}

pf_pdefile *pf_pdefile_alloc(const char *path)
{
    pf_pdefile *f = calloc(1, sizeof *f);
    if (!f) return NULL;
    snprintf(f->path, sizeof f->path, "%s", path ? path : "<input>");
    f->time_input = -1;
    return f;
}

void pf_pdefile_free(pf_pdefile *f)
{
    if (!f) return;
    for (pf_pdefile_chunk *c = f->arena, *next; c; c = next) {
        next = c->next;
        free(c);
    }
    free(f->errors);
    free(f);
}

void *pf_pdefile_arena(pf_pdefile *f, size_t bytes)
{
    bytes = (bytes + 15) & ~(size_t)15;
    pf_pdefile_chunk *c = f->arena;
    if (!c || c->cap - c->used < bytes) {
        size_t cap = bytes > CHUNK_BYTES ? bytes : CHUNK_BYTES;
        c = malloc(sizeof *c + cap);
        if (!c) return NULL;
        c->used = 0, c->cap = cap;
        /* a big block goes behind the current chunk, which keeps filling */
        if (f->arena && bytes > CHUNK_BYTES) {
            c->next = f->arena->next;
            f->arena->next = c;
        } else {
            c->next = f->arena;
            f->arena = c;
        }
    }
    void *p = c->data + c->used;
    c->used += bytes;
    memset(p, 0, bytes);
    return p;
}

char *pf_pdefile_strndup(pf_pdefile *f, const char *s, size_t n)
{
    char *p = pf_pdefile_arena(f, n + 1);
    if (p) memcpy(p, s, n), p[n] = 0;
    return p;
}

pf_pdefile_expr *pf_pdefile_expr_new(pf_pdefile *f, pf_pdefile_op op, pf_pdefile_pos pos, int nargs)
{
    pf_pdefile_expr *e = pf_pdefile_arena(f, sizeof *e);
    if (!e) return NULL;
    e->op = op, e->pos = pos, e->nargs = nargs;
    if (nargs > 0 && !(e->args = pf_pdefile_arena(f, (size_t)nargs * sizeof *e->args))) return NULL;
    return e;
}

void pf_pdefile_error(pf_pdefile *f, pf_pdefile_pos pos, const char *fmt, ...)
{
    f->nerrors++;
    if (f->nerrors > PF_PDEFILE_MAX_ERRORS) return;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    char line[2200];
    int n = snprintf(line, sizeof line, "%s:%d:%d: %s\n", f->path, pos.line, pos.col, msg);
    if (n < 0) return;
    size_t len = (size_t)n < sizeof line ? (size_t)n : sizeof line - 1;
    if (f->errors_len + len + 1 > f->errors_cap) {
        size_t cap = f->errors_cap ? 2 * f->errors_cap : 4096;
        while (cap < f->errors_len + len + 1) cap *= 2;
        char *p = realloc(f->errors, cap);
        if (!p) return; /* the count still says it failed */
        f->errors = p, f->errors_cap = cap;
    }
    memcpy(f->errors + f->errors_len, line, len + 1);
    f->errors_len += len;
}

typedef struct sbuf {
    char *p;
    size_t len, cap;
} sbuf;

static void put(sbuf *b, const char *s)
{
    for (; *s && b->len + 1 < b->cap; s++) b->p[b->len++] = *s;
    b->p[b->len] = 0;
}

static const char *op_text(pf_pdefile_op op)
{
    switch (op) {
    case PF_PDEFILE_ADD: return " + ";
    case PF_PDEFILE_SUB: return " - ";
    case PF_PDEFILE_MUL: return " * ";
    case PF_PDEFILE_DIV: return " / ";
    case PF_PDEFILE_POW: return " ^ ";
    case PF_PDEFILE_LT: return " < ";
    case PF_PDEFILE_LE: return " <= ";
    case PF_PDEFILE_GT: return " > ";
    case PF_PDEFILE_GE: return " >= ";
    case PF_PDEFILE_AND: return " and ";
    case PF_PDEFILE_OR: return " or ";
    default: return NULL;
    }
}

static void expr_str(sbuf *b, const pf_pdefile_expr *e)
{
    char num[40];
    const char *bin = op_text(e->op);
    if (e->op == PF_PDEFILE_NUM) {
        snprintf(num, sizeof num, "%.17g", e->value);
        put(b, num);
    } else if (e->op == PF_PDEFILE_NEG) {
        put(b, "(-");
        expr_str(b, e->args[0]);
        put(b, ")");
    } else if (bin) {
        put(b, "(");
        expr_str(b, e->args[0]);
        put(b, bin);
        expr_str(b, e->args[1]);
        put(b, ")");
    } else if (e->op == PF_PDEFILE_CALL || (e->name && e->nargs > 0) || e->op == PF_PDEFILE_BUBBLE) {
        put(b, e->name ? e->name : "?");
        put(b, "(");
        for (int i = 0; i < e->nargs; i++) {
            if (i) put(b, ", ");
            expr_str(b, e->args[i]);
        }
        put(b, ")");
    } else {
        put(b, e->name ? e->name : "?");
    }
}

char *pf_pdefile_expr_str(const pf_pdefile_expr *e, char *out, size_t cap)
{
    sbuf b = {out, 0, cap};
    if (cap) out[0] = 0;
    if (e && cap) expr_str(&b, e);
    return out;
}
