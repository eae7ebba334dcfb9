/*
 * pdefile.h — PDEs described in a text file (.pde), without writing C.
 *
 * A .pde file says what a C file in pdes/ says — inputs, domain, equations,
 * constraints, hard transforms, reference, tags, statement — in a small
 * line-oriented language of our own (issue 21). This module reads it
 * (lexer.h), parses it into an AST (parser.h, ast.h), resolves and checks
 * it (check.h), describes what it understood (`pf-pde check FILE`) and
 * compiles it into the PDE contract (geom/pde.h; compile.h), which every
 * stage then takes by the file's path (pf_pdes_lookup); ast.h says how each
 * piece maps onto the contract.
 *
 * ------------------------------------------------------------ the format
 *
 * One statement per line; '#' starts a comment. An indented line continues
 * the one before, as does any line after a binary operator, a comma, '='
 * or ':', and anything inside ( ) or [ ]. Names are
 * [A-Za-z_][A-Za-z0-9_]*; strings are "..." or """...""" (several lines,
 * joined into one paragraph). Burgers' equation (examples/pdes/burgers_1d.pde):
 *
 *     pde burgers_1d
 *     title "Viscous Burgers equation with a shock forming at x = 0"
 *     inputs x, t
 *     outputs u
 *     time t in [0, 1]                  # t is time, on [0, 1]
 *     param nu = 0.01 / pi
 *     domain interval(-1, 1)            # its ends are the parts x_lo, x_hi
 *     equation u_t + u*u_x - nu*u_xx    # = 0; `equation lhs = rhs` also works
 *     initial ic: u = -sin(pi*x)
 *     dirichlet bc on x_lo, x_hi: u = 0
 *     hard walls satisfies ic, bc: u = -sin(pi*x) + t*(1 - x^2)*net(u)
 *     reference "burgers1d.dat" snapshots
 *     tags nonlinear, steep
 *     statement """Solve u_t + u u_x = (0.01/pi) u_xx on x in [-1,1], t in [0,1],
 *         with u(x,0) = -sin(pi x) and u(-1,t) = u(1,t) = 0."""
 *
 * The statements (required: pde, statement, inputs, outputs, domain and at
 * least one equation; the others at most once unless said):
 *
 *   pde NAME, title "..", statement "..", latex ".."   what it is called and says
 *   inputs x, y, t          up to 8; outputs u, v: up to 4
 *   time t in [t0, t1]      which input is time, and its interval (the
 *                           domain is then space x [t0, t1], with the parts
 *                           "initial" and "final"); time becomes the last
 *                           input wherever it is declared (the network's
 *                           input order; files and formulas name inputs)
 *   param NAME = EXPR       a named constant (numbers, pi, earlier params);
 *                           any number of lines
 *   domain SHAPE            the spatial domain, over the spatial inputs in
 *                           their order:
 *                             interval(lo, hi)
 *                             box([lo, hi], [lo, hi], ...)
 *                             disk(cx, cy, r) [as NAME]
 *                             ball([c0, c1, ...], r) [as NAME]
 *                             polygon((x, y), (x, y), ...) [edges NAME, ...]
 *                           combined by A - B (difference) and A + B
 *                           (union), left to right, with ( ) to group.
 *                           Parts: a box's faces are <input>_lo and
 *                           <input>_hi (x_lo, y_hi, ...); a disk's circle
 *                           is "circle" (a ball's "sphere") unless named
 *                           with `as`; polygon edges are edge0, edge1, ...
 *                           unless named; a name used twice makes one part
 *   part NAME = A, B [where COND]   a part made of others, or the points of
 *                           them where COND holds (inputs and constants;
 *                           it may stand among a constraint's other parts
 *                           or in a part, not in another `where` part nor
 *                           on the initial or final slice)
 *   equation [NAME:] EXPR [= EXPR]  a residual; up to 4
 *   initial NAME: u = EXPR            u on the initial slice
 *   initial_rate NAME: u_t = EXPR     u_t on the initial slice
 *   dirichlet NAME on P, Q: u = EXPR  values on parts
 *   neumann NAME on P: dn(u) = EXPR   outward normal derivative on parts
 *   robin NAME on P: dn(u) = EXPR     EXPR may involve u
 *   periodic NAME along x: u          u(x_lo face) = u(x_hi face)
 *   observe NAME: u from "F"          point observations of u from a file
 *                           (table.h: a .csv whose header names the inputs
 *                           and u, an .h5 with a dataset per name, or a
 *                           .dat with the inputs, then u; beside the .pde
 *                           file unless F is absolute)
 *                           (a constraint reads lhs = rhs: residual lhs - rhs;
 *                           up to 12 constraints)
 *   hard NAME satisfies C1, C2: u = EXPR [, v = EXPR]
 *                           an exact transform built from net(u), the inputs
 *                           and bubble(); outputs not set keep net(); up to 2
 *   exact u = EXPR [, v = EXPR]       the exact solution (reference)
 *   reference "F" [columns x, t, u]   a .csv/.h5/.dat file (table.h) beside
 *                           the .pde (or absolute): columns found by the
 *                           inputs' and outputs' names in a .csv header or
 *                           .h5 datasets; a .dat's named in order by
 *                           `columns` (default: the inputs, then the
 *                           outputs). Not beside it: a PINNacle .dat file
 *                           in PF_DATA_DIR (its columns in that order)
 *   reference "F" snapshots           a PINNacle .dat file of COMSOL
 *                           snapshots, beside the .pde or in PF_DATA_DIR
 *   evaluate grid [N] | evaluate box grid [N] | evaluate rows
 *                           where the reference is evaluated (default:
 *                           PINNacle's grid rule for exact solutions, the
 *                           file's rows for data); `box grid` applies the
 *                           rule to the plain box of all inputs, time one
 *                           more axis, as PINNacle does for wave_1d
 *   tags a, b               geom/pde.h's tag names (time_dependent and
 *                           periodic are added when they apply)
 *
 * Expressions: numbers, pi, parameters, inputs, outputs; derivatives as
 * subscripts (u_x, u_tt, u_xxxx: one input's name repeated, up to order 4)
 * or d(u, x, m); lap(u) (spatial Laplacian); dn(u) (boundary constraints);
 * + - * / ^ (constant exponents), unary minus; sin cos tanh exp log sqrt
 * sigmoid softplus (the engine's pf_unary ops); step(z) (1 where z >= 0)
 * and if(COND, a, b) with COND comparisons (< <= > >=) joined by and/or.
 * An expression is at most PF_PDEFILE_MAX_EXPR_DEPTH (256) operations deep
 * (a chain of 256 terms, or operations nested that deep) and parentheses,
 * calls and unary minus nest at most 64 levels, so that no pass over it
 * recurses without bound: deeper is refused at FILE:LINE:COL of the
 * operator past the limit. check.h lists what the checker refuses; the
 * data files' rules are table.h's; `pf-pde check` also checks that an
 * exact solution solves the PDE (geom/exact_check.h).
 *
 *     pf_pdefile *f = NULL;
 *     if (pf_pdefile_load("my.pde", &f) != PF_OK) {
 *         fputs(f ? f->errors : pf_errmsg(), stderr);   // FILE:LINE:COL: ... lines
 *         ...
 *     }
 *     char *text = pf_pdefile_describe(f);
 *     pf_pdefile_free(f);
 */
#ifndef PF_PDEFILE_PDEFILE_H
#define PF_PDEFILE_PDEFILE_H

#include <stddef.h>

#include "core/status.h"
#include "pdefile/ast.h"

/* Parse and check text[0..len), `path` naming it in messages. *out is the
 * file (caller frees with pf_pdefile_free), also on PF_ERR_INVALID, when
 * its errors field holds every "PATH:LINE:COL: message" line; pf_errmsg()
 * has the first. NULL only on PF_ERR_NOMEM. Text longer than
 * PF_PDEFILE_MAX_BYTES is refused (PF_ERR_INVALID, *out NULL). */
pf_status pf_pdefile_load_text(const char *path, const char *text, size_t len, pf_pdefile **out);

/* The same for the file at `path`: PF_ERR_IO (and *out NULL) when it
 * cannot be read, PF_ERR_INVALID when it is larger than
 * PF_PDEFILE_MAX_BYTES. */
pf_status pf_pdefile_load(const char *path, pf_pdefile **out);

/* True when `arg` names a .pde file rather than a built-in PDE: it ends
 * in ".pde" or is an existing file. */
bool pf_pdefile_is_path(const char *arg);

/* What a checked file says, for people (malloc'ed; NULL when out of
 * memory): name, inputs (time marked), outputs, parameters with their
 * values, domain, boundary parts, each equation with the derivative
 * orders it uses per input, constraints with kinds, parts and orders,
 * hard transforms, the reference, tags and the statement. */
char *pf_pdefile_describe(const pf_pdefile *f);

#endif
