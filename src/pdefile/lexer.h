/*
 * lexer.h — the tokens of a .pde file.
 *
 * Tokens: names ([A-Za-z_][A-Za-z0-9_]*, at most PF_PDEFILE_MAX_NAME bytes;
 * keywords are names the parser recognises where a statement starts),
 * numbers (12, 0.5, .5, 1e-3), strings ("one line" with \" \\ \n escapes,
 * or """several lines"""), the punctuation ( ) [ ] , : = + - * / ^ < <= >
 * >=, and the end of a line. A '#' starts a comment to the end of the line.
 * A line end is not a token inside ( ) and [ ], nor when the next line is
 * indented (and holds more than a comment): such a line continues the
 * statement. The parser also lets a line end after a binary operator, a
 * comma, '=' or ':'.
 *
 * Bytes outside strings and comments must be printable ASCII, blanks or
 * line ends; a NUL byte anywhere is refused as "not a text file". Errors
 * come back as a PF_TOK_ERROR token whose text is the message.
 *
 *     pf_lexer lx;
 *     pf_lexer_init(&lx, text, len);
 *     pf_token t;
 *     do t = pf_lexer_next(&lx); while (t.kind != PF_TOK_EOF && t.kind != PF_TOK_ERROR);
 */
#ifndef PF_PDEFILE_LEXER_H
#define PF_PDEFILE_LEXER_H

#include <stddef.h>

#include "pdefile/ast.h"

typedef enum pf_token_kind {
    PF_TOK_EOF,
    PF_TOK_ERROR, /* text: the message */
    PF_TOK_NEWLINE,
    PF_TOK_NAME,
    PF_TOK_NUMBER, /* num */
    PF_TOK_STRING, /* text, len: the raw span between the quotes (pf_lexer_string decodes it) */
    PF_TOK_LPAREN,
    PF_TOK_RPAREN,
    PF_TOK_LBRACKET,
    PF_TOK_RBRACKET,
    PF_TOK_COMMA,
    PF_TOK_COLON,
    PF_TOK_ASSIGN, /* = */
    PF_TOK_PLUS,
    PF_TOK_MINUS,
    PF_TOK_STAR,
    PF_TOK_SLASH,
    PF_TOK_CARET,
    PF_TOK_LT,
    PF_TOK_LE,
    PF_TOK_GT,
    PF_TOK_GE,
} pf_token_kind;

typedef struct pf_token {
    pf_token_kind kind;
    pf_pdefile_pos pos;
    const char *text; /* into the source (an error's message: into the lexer) */
    size_t len;
    double num;
    int triple; /* PF_TOK_STRING: written as """...""" */
} pf_token;

/* "a name", "a number", "')'", "the end of the line", ... for messages. */
const char *pf_token_kind_name(pf_token_kind k);

typedef struct pf_lexer {
    const char *src;
    size_t len, at;
    int line, col;
    int depth;     /* open ( and [: line ends inside are blanks */
    char msg[160]; /* the last error's message */
} pf_lexer;

void pf_lexer_init(pf_lexer *lx, const char *src, size_t len);

/* The next token. After PF_TOK_EOF or PF_TOK_ERROR it keeps returning the
 * same kind. */
pf_token pf_lexer_next(pf_lexer *lx);

/* A string token's text decoded into out[0..cap): escapes resolved; a
 * triple-quoted string becomes one paragraph (every run of blanks that
 * holds a line end is one space, the ends trimmed). Returns the length, or
 * -1 when it does not fit. */
long pf_lexer_string(const pf_token *t, char *out, size_t cap);

#endif
