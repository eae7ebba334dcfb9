/*
 * check.h — resolve and validate a parsed .pde file (ast.h).
 *
 * The checker turns every name into what it names (an input, an output or
 * one of its derivatives, a parameter, pi) and every call into its
 * operation, folds constant subtrees, evaluates the parameters and shapes,
 * works out the boundary parts, the derivative orders and the bounding box,
 * and reports, as "PATH:LINE:COL: message" lines in f->errors (at most
 * PF_PDEFILE_MAX_ERRORS):
 *
 *   - missing required statements: pde, statement, inputs, outputs,
 *     domain, at least one equation;
 *   - names declared twice, or unknown (not an input, output, parameter,
 *     pi or derivative spelling), functions that do not exist or take
 *     another number of arguments;
 *   - derivatives: u_xx, u_tttt or d(u, x, m) along a declared input, pure
 *     (the engine has no mixed derivatives: u_xy is refused), of order 1..4;
 *     u_t when no input is time; lap() without spatial inputs;
 *   - where each construct may appear: derivatives in equations and
 *     constraints, dn() on boundary constraints, net() and bubble() in
 *     hard transforms, step() and if() only where values (not jets) are
 *     built (equations, constraints), constants in parameters, shapes and
 *     the time interval; a ^ exponent must be constant;
 *   - the domain: shapes of the right dimension (the spatial inputs'
 *     count), lo < hi, positive radii, polygon edge labels one per edge;
 *   - constraints: a unique name, parts that exist (the domain's, time's
 *     initial/final, or defined by `part`), the order their kind allows
 *     (dirichlet and initial: values; initial_rate: a time derivative;
 *     neumann and robin: first derivatives), initial ones only with time,
 *     periodic along a spatial input of a box, periodic and observe naming
 *     one output;
 *   - hard transforms: constraints that exist, each output set at most
 *     once and through net() of itself;
 *   - the reference: one exact expression per output or a data file
 *     (.dat, .csv, .h5) whose columns name every input and output, not
 *     both; tags from geom/pde.h's list.
 */
#ifndef PF_PDEFILE_CHECK_H
#define PF_PDEFILE_CHECK_H

#include "core/status.h"
#include "pdefile/ast.h"

/* Check a parsed file: PF_OK, or PF_ERR_INVALID with the problems in
 * f->errors (f->nerrors of them; f is then only good for freeing). */
pf_status pf_pdefile_check(pf_pdefile *f);

/* Where an expression stands, which decides what it may use. */
typedef enum pf_pdefile_context {
    PF_PDEFILE_IN_CONST,    /* parameters, shapes, the time interval */
    PF_PDEFILE_IN_EQUATION, /* residual equations */
    PF_PDEFILE_IN_BOUNDARY, /* constraints on boundary parts (dn() allowed) */
    PF_PDEFILE_IN_INITIAL,  /* constraints on the initial slice */
    PF_PDEFILE_IN_HARD,     /* hard transforms: net(), bubble(); no derivatives */
    PF_PDEFILE_IN_EXACT,    /* exact solutions: inputs and constants */
    PF_PDEFILE_IN_WHERE,    /* a part's condition: inputs and constants */
} pf_pdefile_context;

/* Resolve one expression against f's declarations (inputs, outputs, time
 * and parameters, already checked) as if it stood in `ctx`: for tests and
 * tools. PF_OK, or PF_ERR_INVALID with the messages in f->errors. */
pf_status pf_pdefile_check_expr(pf_pdefile *f, pf_pdefile_expr *e, pf_pdefile_context ctx);

#endif
