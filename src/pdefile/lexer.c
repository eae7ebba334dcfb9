/* lexer.c — .pde tokens, one at a time, with line:column positions. */
#include "pdefile/lexer.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_names[] = {
    [PF_TOK_EOF] = "the end of the file",
    [PF_TOK_ERROR] = "an error",
    [PF_TOK_NEWLINE] = "the end of the line",
    [PF_TOK_NAME] = "a name",
    [PF_TOK_NUMBER] = "a number",
    [PF_TOK_STRING] = "a string",
    [PF_TOK_LPAREN] = "'('",
    [PF_TOK_RPAREN] = "')'",
    [PF_TOK_LBRACKET] = "'['",
    [PF_TOK_RBRACKET] = "']'",
    [PF_TOK_COMMA] = "','",
    [PF_TOK_COLON] = "':'",
    [PF_TOK_ASSIGN] = "'='",
    [PF_TOK_PLUS] = "'+'",
    [PF_TOK_MINUS] = "'-'",
    [PF_TOK_STAR] = "'*'",
    [PF_TOK_SLASH] = "'/'",
    [PF_TOK_CARET] = "'^'",
    [PF_TOK_LT] = "'<'",
    [PF_TOK_LE] = "'<='",
    [PF_TOK_GT] = "'>'",
    [PF_TOK_GE] = "'>='",
};

const char *pf_token_kind_name(pf_token_kind k)
{
    return (unsigned)k < sizeof kind_names / sizeof *kind_names ? kind_names[k] : "?";
}

void pf_lexer_init(pf_lexer *lx, const char *src, size_t len)
{
    memset(lx, 0, sizeof *lx);
    lx->src = src, lx->len = len, lx->line = 1, lx->col = 1;
}

static int peek(const pf_lexer *lx, size_t k)
{
    return lx->at + k < lx->len ? (unsigned char)lx->src[lx->at + k] : -1;
}

/* At a line end: the next line is indented and holds more than a comment,
 * so it continues this one. */
static bool continued(const pf_lexer *lx)
{
    size_t j = lx->at + 1;
    if (j >= lx->len || (lx->src[j] != ' ' && lx->src[j] != '\t')) return false;
    while (j < lx->len && (lx->src[j] == ' ' || lx->src[j] == '\t')) j++;
    return j < lx->len && lx->src[j] != '\n' && lx->src[j] != '\r' && lx->src[j] != '#';
}

static void advance(pf_lexer *lx)
{
    if (lx->src[lx->at] == '\n')
        lx->line++, lx->col = 1;
    else
        lx->col++;
    lx->at++;
}

static pf_token error_at(pf_lexer *lx, pf_pdefile_pos pos, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static pf_token error_at(pf_lexer *lx, pf_pdefile_pos pos, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(lx->msg, sizeof lx->msg, fmt, ap);
    va_end(ap);
    lx->at = lx->len; /* stay at the end: later calls return EOF, never a stale token */
    return (pf_token){.kind = PF_TOK_ERROR, .pos = pos, .text = lx->msg, .len = strlen(lx->msg)};
}

static pf_token bad_byte(pf_lexer *lx, pf_pdefile_pos pos, int c)
{
    if (c == 0) return error_at(lx, pos, "NUL byte: this is not a text file");
    if (c >= 0x80) return error_at(lx, pos, "byte 0x%02x: only ASCII outside strings and comments", c);
    if (c < 0x20 || c == 0x7f) return error_at(lx, pos, "control character 0x%02x", c);
    return error_at(lx, pos, "unexpected character '%c'", c);
}

/* A number: digits [. digits] [e [+-] digits], or . digits ... */
static pf_token number(pf_lexer *lx, pf_pdefile_pos pos)
{
    size_t start = lx->at;
    int digits = 0;
    while (isdigit(peek(lx, 0))) advance(lx), digits++;
    if (peek(lx, 0) == '.') {
        advance(lx);
        while (isdigit(peek(lx, 0))) advance(lx), digits++;
    }
    if (!digits) return error_at(lx, pos, "malformed number");
    if (peek(lx, 0) == 'e' || peek(lx, 0) == 'E') {
        advance(lx);
        if (peek(lx, 0) == '+' || peek(lx, 0) == '-') advance(lx);
        if (!isdigit(peek(lx, 0))) return error_at(lx, pos, "malformed number: exponent without digits");
        while (isdigit(peek(lx, 0))) advance(lx);
    }
    if (isalnum(peek(lx, 0)) || peek(lx, 0) == '_' || peek(lx, 0) == '.')
        return error_at(lx, pos, "malformed number (write 2*x for a product)");
    char buf[64];
    size_t n = lx->at - start;
    if (n >= sizeof buf) return error_at(lx, pos, "number longer than %zu characters", sizeof buf - 1);
    memcpy(buf, lx->src + start, n);
    buf[n] = 0;
    double v = strtod(buf, NULL);
    if (!(v <= 1e300 && v >= -1e300)) return error_at(lx, pos, "number '%s' out of range", buf);
    return (pf_token){.kind = PF_TOK_NUMBER, .pos = pos, .text = lx->src + start, .len = n, .num = v};
}

static pf_token string(pf_lexer *lx, pf_pdefile_pos pos)
{
    int triple = peek(lx, 1) == '"' && peek(lx, 2) == '"';
    for (int i = 0; i < (triple ? 3 : 1); i++) advance(lx);
    size_t start = lx->at;
    for (;;) {
        int c = peek(lx, 0);
        if (c < 0) return error_at(lx, pos, "string not closed (a '%s' is missing)", triple ? "\"\"\"" : "\"");
        if (c == 0) return bad_byte(lx, (pf_pdefile_pos){lx->line, lx->col}, c);
        if (triple && c == '"' && peek(lx, 1) == '"' && peek(lx, 2) == '"') break;
        if (!triple && c == '"') break;
        if (!triple && c == '\n')
            return error_at(lx, pos, "string not closed on its line (use \"\"\" for several lines)");
        if (!triple && c == '\\') {
            int e = peek(lx, 1);
            if (e != '"' && e != '\\' && e != 'n')
                return error_at(lx, (pf_pdefile_pos){lx->line, lx->col}, "unknown escape (\\\", \\\\ and \\n exist)");
            advance(lx);
        }
        if (c != '\n' && c != '\t' && c != '\r' && (c < 0x20 || c == 0x7f))
            return bad_byte(lx, (pf_pdefile_pos){lx->line, lx->col}, c);
        advance(lx);
    }
    size_t n = lx->at - start;
    if (n > PF_PDEFILE_MAX_TEXT) return error_at(lx, pos, "string longer than %d bytes", PF_PDEFILE_MAX_TEXT);
    for (int i = 0; i < (triple ? 3 : 1); i++) advance(lx);
    return (pf_token){.kind = PF_TOK_STRING, .pos = pos, .text = lx->src + start, .len = n, .triple = triple};
}

pf_token pf_lexer_next(pf_lexer *lx)
{
    for (;;) {
        int c = peek(lx, 0);
        if (c == '#') {
            while (peek(lx, 0) >= 0 && peek(lx, 0) != '\n') {
                if (peek(lx, 0) == 0) return bad_byte(lx, (pf_pdefile_pos){lx->line, lx->col}, 0);
                advance(lx);
            }
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\r' || (c == '\n' && (lx->depth > 0 || continued(lx)))) {
            advance(lx);
            continue;
        }
        break;
    }
    pf_pdefile_pos pos = {lx->line, lx->col};
    int c = peek(lx, 0);
    if (c < 0) return (pf_token){.kind = PF_TOK_EOF, .pos = pos};
    if (c == '\n') {
        advance(lx);
        return (pf_token){.kind = PF_TOK_NEWLINE, .pos = pos};
    }
    if (isalpha(c) || c == '_') {
        size_t start = lx->at;
        while (isalnum(peek(lx, 0)) || peek(lx, 0) == '_') advance(lx);
        size_t n = lx->at - start;
        if (n > PF_PDEFILE_MAX_NAME) return error_at(lx, pos, "name longer than %d characters", PF_PDEFILE_MAX_NAME);
        return (pf_token){.kind = PF_TOK_NAME, .pos = pos, .text = lx->src + start, .len = n};
    }
    if (isdigit(c) || (c == '.' && isdigit(peek(lx, 1)))) return number(lx, pos);
    if (c == '"') return string(lx, pos);
    pf_token_kind k;
    int two = 0;
    switch (c) {
    case '(': k = PF_TOK_LPAREN, lx->depth++; break;
    case '[': k = PF_TOK_LBRACKET, lx->depth++; break;
    case ')': k = PF_TOK_RPAREN, lx->depth -= lx->depth > 0; break;
    case ']': k = PF_TOK_RBRACKET, lx->depth -= lx->depth > 0; break;
    case ',': k = PF_TOK_COMMA; break;
    case ':': k = PF_TOK_COLON; break;
    case '=': k = PF_TOK_ASSIGN; break;
    case '+': k = PF_TOK_PLUS; break;
    case '-': k = PF_TOK_MINUS; break;
    case '*': k = PF_TOK_STAR; break;
    case '/': k = PF_TOK_SLASH; break;
    case '^': k = PF_TOK_CARET; break;
    case '<': two = peek(lx, 1) == '=', k = two ? PF_TOK_LE : PF_TOK_LT; break;
    case '>': two = peek(lx, 1) == '=', k = two ? PF_TOK_GE : PF_TOK_GT; break;
    default: return bad_byte(lx, pos, c);
    }
    const char *text = lx->src + lx->at;
    advance(lx);
    if (two) advance(lx);
    return (pf_token){.kind = k, .pos = pos, .text = text, .len = (size_t)(1 + two)};
}

long pf_lexer_string(const pf_token *t, char *out, size_t cap)
{
    size_t n = 0;
    const char *s = t->text, *end = t->text + t->len;
    if (t->triple) {
        /* one paragraph: blank runs holding a line end become one space */
        while (s < end && isspace((unsigned char)*s)) s++;
        while (end > s && isspace((unsigned char)end[-1])) end--;
        while (s < end) {
            if (isspace((unsigned char)*s)) {
                const char *r = s;
                int nl = 0;
                while (r < end && isspace((unsigned char)*r)) nl |= *r == '\n', r++;
                if (nl) {
                    if (n + 1 >= cap) return -1;
                    out[n++] = ' ';
                    s = r;
                    continue;
                }
            }
            if (n + 1 >= cap) return -1;
            out[n++] = *s++;
        }
    } else {
        while (s < end) {
            char c = *s++;
            if (c == '\\' && s < end) c = *s == 'n' ? '\n' : *s, s++;
            if (n + 1 >= cap) return -1;
            out[n++] = c;
        }
    }
    if (!cap) return -1;
    out[n] = 0;
    return (long)n;
}
