/* template.c — {{var}}, {{#var}}...{{/var}}, {{^var}}...{{/var}} (template.h). */
#include "search/template.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

typedef struct buf {
    char *s;
    size_t n, cap;
} buf;

static bool put(buf *b, const char *s, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 1024;
        while (b->n + n + 1 > cap) cap *= 2;
        char *t = realloc(b->s, cap);
        if (!t) return false;
        b->s = t;
        b->cap = cap;
    }
    memcpy(b->s + b->n, s, n);
    b->n += n;
    b->s[b->n] = '\0';
    return true;
}

typedef struct tag {
    char kind;         /* '=' variable, '#' if set, '^' if unset, '/' close */
    char name[64];
    const char *begin; /* the first '{' */
    const char *end;   /* after the last '}' (and its line break when alone on the line) */
} tag;

static int line_of(const char *src, const char *p)
{
    int l = 1;
    for (const char *q = src; q < p; q++) l += *q == '\n';
    return l;
}

/* The next tag at or after p; false when there is none (t->begin NULL) or on
 * error (pf_fail called). */
static pf_status next_tag(const char *src, const char *name, const char *p, tag *t)
{
    t->begin = strstr(p, "{{");
    if (!t->begin) return PF_OK;
    const char *q = t->begin + 2, *close = strstr(q, "}}");
    if (!close) return pf_fail(PF_ERR_INVALID, "%s:%d: '{{' is never closed", name, line_of(src, t->begin));
    t->kind = strchr("#^/", *q) && *q ? *q++ : '=';
    size_t n = (size_t)(close - q);
    if (n == 0 || n >= sizeof t->name)
        return pf_fail(PF_ERR_INVALID, "%s:%d: empty or over-long tag name", name, line_of(src, t->begin));
    for (size_t i = 0; i < n; i++)
        if (!(isalnum((unsigned char)q[i]) || q[i] == '_'))
            return pf_fail(PF_ERR_INVALID, "%s:%d: tag name '%.*s' has characters other than letters, digits, '_'",
                           name, line_of(src, t->begin), (int)n, q);
    memcpy(t->name, q, n);
    t->name[n] = '\0';
    t->end = close + 2;
    /* a block tag alone on its line swallows that line */
    if (t->kind != '=') {
        bool line_start = t->begin == src || t->begin[-1] == '\n';
        if (line_start && *t->end == '\n') t->end++;
    }
    return PF_OK;
}

static const char *value(const json_t *vars, const char *key)
{
    return json_string_value(json_object_get(vars, key));
}

static bool is_set(const json_t *vars, const char *key)
{
    const char *v = value(vars, key);
    return v && *v;
}

/* Render from p until the close tag of `block` (NULL: the end). Returns the
 * position after that close tag in *after. emit false: skip (still parse). */
static pf_status render(const char *src, const char *name, const json_t *vars, const char *p,
                        const char *block, bool emit, buf *out, const char **after)
{
    for (;;) {
        tag t;
        PF_TRY(next_tag(src, name, p, &t));
        if (!t.begin) {
            if (block) return pf_fail(PF_ERR_INVALID, "%s: block '%s' is never closed", name, block);
            if (emit && !put(out, p, strlen(p))) return pf_fail(PF_ERR_NOMEM, "out of memory");
            *after = p + strlen(p);
            return PF_OK;
        }
        if (emit && !put(out, p, (size_t)(t.begin - p))) return pf_fail(PF_ERR_NOMEM, "out of memory");
        p = t.end;
        switch (t.kind) {
        case '=': {
            const char *v = value(vars, t.name);
            if (!v && emit)
                return pf_fail(PF_ERR_INVALID, "%s:%d: variable '%s' is not provided", name,
                               line_of(src, t.begin), t.name);
            if (emit && !put(out, v, strlen(v))) return pf_fail(PF_ERR_NOMEM, "out of memory");
            break;
        }
        case '#':
        case '^': {
            bool on = (t.kind == '#') == is_set(vars, t.name);
            PF_TRY(render(src, name, vars, p, t.name, emit && on, out, &p));
            break;
        }
        case '/':
            if (!block || strcmp(block, t.name) != 0)
                return pf_fail(PF_ERR_INVALID, "%s:%d: '{{/%s}}' does not close the open block ('%s')", name,
                               line_of(src, t.begin), t.name, block ? block : "none");
            *after = p;
            return PF_OK;
        }
    }
}

pf_status pf_template_render(const char *src, const char *name, const json_t *vars, char **out)
{
    buf b = {0};
    const char *end;
    *out = NULL;
    if (!put(&b, "", 0)) return pf_fail(PF_ERR_NOMEM, "out of memory");
    pf_status st = render(src, name, vars, src, NULL, true, &b, &end);
    if (st != PF_OK) {
        free(b.s);
        return st;
    }
    *out = b.s;
    return PF_OK;
}
