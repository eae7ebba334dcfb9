/*
 * parser.h — a .pde file's text into its AST (ast.h), by recursive descent.
 *
 * The parser checks the grammar only (pdefile.h lists the statements);
 * names are resolved by the checker (check.h). It stops at the first
 * syntax error, recorded in f->errors as "PATH:LINE:COL: message" naming
 * what was expected and what was found:
 *
 *     examples/pdes/bad.pde:4:17: expected ')' to close the '(' at 4:9, found the end of the line
 *
 * Expressions: + - (left-associative), * / (left), unary minus, then ^
 * (right-associative and binding tighter than unary minus: -x^2 is
 * -(x^2), 2^-1 is 2^(-1)); atoms are numbers, names, calls name(args) and
 * parenthesised expressions. Conditions (the first argument of if(), a
 * part's `where`) compare two expressions with < <= > >= and combine
 * comparisons with `and` (tighter) and `or`. Nesting is limited to
 * PF_PDEFILE_MAX_DEPTH levels.
 */
#ifndef PF_PDEFILE_PARSER_H
#define PF_PDEFILE_PARSER_H

#include <stddef.h>

#include "core/status.h"
#include "pdefile/ast.h"

/* Parse src[0..len) into f (from pf_pdefile_alloc). PF_OK, or
 * PF_ERR_INVALID with the first syntax error in f->errors (PF_ERR_NOMEM
 * when the arena runs out). len must be at most PF_PDEFILE_MAX_BYTES. */
pf_status pf_pdefile_parse(pf_pdefile *f, const char *src, size_t len);

/* One expression (a whole input, for tests and tools): PF_OK with *out,
 * or PF_ERR_INVALID with the message in f->errors. */
pf_status pf_pdefile_parse_expr(pf_pdefile *f, const char *src, size_t len, pf_pdefile_expr **out);

#endif
