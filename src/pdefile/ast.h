/*
 * ast.h — the parsed form of a .pde file (pdefile.h describes the format).
 *
 * The parser (parser.h) fills a pf_pdefile with what the file says, names
 * as written; the checker (check.h) then resolves every name and fills the
 * fields marked "after check". A checked file is what the PDE contract
 * (geom/pde.h) needs, one field per descriptor field:
 *
 *   inputs, outputs, time_input     .inputs, .outputs, .time_input
 *   lo, hi (domain box x time)       .lo, .hi
 *   orders, laplacian_only           .orders, .laplacian_only
 *   domain (a CSG tree of numbers)   .geometry (geom/geometry.h's constructors)
 *   eq[]                             .neq, .residual
 *   con[]                            .ncon, .con (kind, parts, order, residual)
 *   hard[]                           .nhard, .hard
 *   ref                              .ref, .exact_fields / .exact, .ref_file
 *   tag_bits, statement, ...         .tags, .statement, .title, .latex
 *
 * Expressions after check map one node to one jet op of tensor/graph.h
 * through geom/pde.h's context: PF_PDEFILE_FIELD is pf_pde_d(c, k, i, m),
 * LAP pf_pde_lap(c, k, NULL), DN pf_pde_dn(c, k), INPUT pf_pde_x(c, i) (or
 * pf_pde_xj in hard transforms and exact solutions), UNARY pf_unary(g, op,
 * a, 0), and POW with a constant exponent PF_UNARY_POW. Every constant
 * subtree (numbers, pi, parameters) is folded by the checker into `konst`
 * and `value`, so no constant node is needed: c * a is pf_scale, a + c
 * pf_add_const, c / a pf_scale of PF_UNARY_RECIP.
 *
 * Everything lives in the file's arena and goes with pf_pdefile_free.
 */
#ifndef PF_PDEFILE_AST_H
#define PF_PDEFILE_AST_H

#include <stdbool.h>
#include <stddef.h>

#include "geom/pde.h"

#define PF_PDEFILE_MAX_BYTES (1 << 20) /* a .pde file is text for people: 1 MiB is plenty */
#define PF_PDEFILE_MAX_DEPTH 64        /* the parser's nesting of parentheses, calls and unary operators */
#define PF_PDEFILE_MAX_EXPR_DEPTH 256  /* operations on one path of an expression's tree: a chain
                                          x + x + ... of 256 terms, or nested operations */
#define PF_PDEFILE_MAX_SHAPES 64       /* shapes combined into one domain by + and - */
#define PF_PDEFILE_MAX_NAME 47         /* identifiers (the geometry's limit for part names) */
#define PF_PDEFILE_MAX_TEXT 16384      /* a string (the statement) */
#define PF_PDEFILE_MAX_PARAMS 32
#define PF_PDEFILE_MAX_PARTS 16     /* `part` definitions */
#define PF_PDEFILE_MAX_LIST 16      /* names in one list (parts, tags, columns, ...) */
#define PF_PDEFILE_MAX_ARGS 512     /* numbers in one shape (a polygon's coordinates) */
#define PF_PDEFILE_MAX_ERRORS 20    /* the checker stops reporting after these */
#define PF_PDEFILE_MAX_ALL_PARTS 64 /* boundary parts of a domain, defined parts included */

typedef struct pf_pdefile_pos {
    int line, col; /* 1-based; col counts bytes */
} pf_pdefile_pos;

typedef enum pf_pdefile_op {
    /* what the parser makes */
    PF_PDEFILE_NUM,  /* value */
    PF_PDEFILE_NAME, /* name (an input, output, parameter, pi or a derivative like u_xx) */
    PF_PDEFILE_NEG,  /* -a[0] */
    PF_PDEFILE_ADD,  /* a[0] + a[1], and so on */
    PF_PDEFILE_SUB,
    PF_PDEFILE_MUL,
    PF_PDEFILE_DIV,
    PF_PDEFILE_POW,  /* a[0] ^ a[1], right-associative */
    PF_PDEFILE_CALL, /* name(a[0], ...) */
    PF_PDEFILE_LT,   /* comparisons and their combinations: conditions only */
    PF_PDEFILE_LE,
    PF_PDEFILE_GT,
    PF_PDEFILE_GE,
    PF_PDEFILE_AND,
    PF_PDEFILE_OR,
    /* what the checker turns NAME and CALL into */
    PF_PDEFILE_PARAM,  /* parameter `index` (konst, value set) */
    PF_PDEFILE_INPUT,  /* coordinate `index` */
    PF_PDEFILE_FIELD,  /* d^order u_index / d x_input^order (order 0: u_index) */
    PF_PDEFILE_LAP,    /* lap(u_index): the spatial Laplacian */
    PF_PDEFILE_DN,     /* dn(u_index): the outward normal derivative */
    PF_PDEFILE_NET,    /* net(u_index): the network's output (hard transforms) */
    PF_PDEFILE_BUBBLE, /* bubble(): zero on the spatial box's faces (pf_pde_bubble) */
    PF_PDEFILE_UNARY,  /* pf_unary op `unary` of a[0] */
    PF_PDEFILE_STEP,   /* step(a[0]): 1 where a[0] >= 0, else 0 */
    PF_PDEFILE_IF,     /* if(a[0], a[1], a[2]): a[1] where the condition holds, else a[2] */
} pf_pdefile_op;

typedef struct pf_pdefile_expr pf_pdefile_expr;
struct pf_pdefile_expr {
    pf_pdefile_op op;
    pf_pdefile_pos pos;
    const char *name; /* NAME, CALL: as written */
    int nargs;
    pf_pdefile_expr **args; /* operands or call arguments */
    double value;           /* NUM; after check, the value of every konst node */
    bool konst;             /* after check: made of numbers, pi and parameters only */
    int index;              /* after check: PARAM, INPUT; output k of FIELD, LAP, DN, NET */
    int input, order;       /* after check: FIELD */
    int unary;              /* after check: UNARY's pf_unary_op */
    int depth;              /* the operations on the longest path down from here, this one
                               included (a number or a name: 1); at most
                               PF_PDEFILE_MAX_EXPR_DEPTH, which bounds every recursive pass */
};

/* A list of names, each with where it was written. */
typedef struct pf_pdefile_names {
    int n;
    const char *v[PF_PDEFILE_MAX_LIST];
    pf_pdefile_pos pos[PF_PDEFILE_MAX_LIST];
} pf_pdefile_names;

typedef enum pf_pdefile_geom_kind {
    PF_PDEFILE_INTERVAL,   /* interval(lo, hi): args lo, hi */
    PF_PDEFILE_BOX,        /* box([lo0, hi0], [lo1, hi1], ...): args lo0, hi0, lo1, ... */
    PF_PDEFILE_DISK,       /* disk(cx, cy, r) */
    PF_PDEFILE_BALL,       /* ball([c0, c1, ...], r): args c0, c1, ..., r */
    PF_PDEFILE_POLYGON,    /* polygon((x0, y0), (x1, y1), ...): args x0, y0, x1, ... */
    PF_PDEFILE_DIFFERENCE, /* a - b */
    PF_PDEFILE_UNION,      /* a + b */
} pf_pdefile_geom_kind;

typedef struct pf_pdefile_geom pf_pdefile_geom;
struct pf_pdefile_geom {
    pf_pdefile_geom_kind kind;
    pf_pdefile_pos pos;
    int nargs;
    pf_pdefile_expr **args; /* constant expressions */
    double *v;              /* after check: the args' values */
    const char *name;       /* disk, ball: `as NAME`, the sphere's part (NULL: "circle"/"sphere") */
    pf_pdefile_names edges; /* polygon: `edges a, b, ...`, one per edge (n 0: edge0, edge1, ...) */
    pf_pdefile_geom *a, *b; /* DIFFERENCE, UNION */
    int dim;                /* after check */
};

/* `part NAME = A, B [where CONDITION]`: the union of parts A, B, ..., or
 * the points of that union where the condition (over the inputs and
 * parameters) holds. */
typedef struct pf_pdefile_part {
    const char *name;
    pf_pdefile_pos pos;
    pf_pdefile_names of;
    pf_pdefile_expr *where; /* NULL: all of them */
} pf_pdefile_part;

typedef struct pf_pdefile_equation {
    const char *name; /* NULL when not named */
    pf_pdefile_pos pos;
    pf_pdefile_expr *e;        /* the residual: lhs - rhs */
    int orders[PF_PDE_MAX_IN]; /* after check: highest derivative along each input */
    bool uses_lap;             /* after check */
} pf_pdefile_equation;

typedef enum pf_pdefile_con_kind {
    PF_PDEFILE_CON_INITIAL,      /* initial NAME: u = g               (PF_CON_INITIAL on "initial") */
    PF_PDEFILE_CON_INITIAL_RATE, /* initial_rate NAME: u_t = g        (PF_CON_NEUMANN on "initial", order 1) */
    PF_PDEFILE_CON_DIRICHLET,    /* dirichlet NAME on P: u = g        (PF_CON_DIRICHLET) */
    PF_PDEFILE_CON_NEUMANN,      /* neumann NAME on P: dn(u) = g      (PF_CON_NEUMANN) */
    PF_PDEFILE_CON_ROBIN,        /* robin NAME on P: dn(u) = g(x, u)  (PF_CON_ROBIN) */
    PF_PDEFILE_CON_PERIODIC,     /* periodic NAME along x: u          (PF_CON_PERIODIC on x_lo) */
    PF_PDEFILE_CON_OBSERVE,      /* observe NAME: u from "F"          (PF_CON_POINTS with observe) */
    PF_PDEFILE_CON_COUNT
} pf_pdefile_con_kind;

/* "initial", "initial_rate", ... (the file's keywords). */
const char *pf_pdefile_con_kind_name(pf_pdefile_con_kind k);

typedef struct pf_pdefile_constraint {
    pf_pdefile_con_kind kind;
    const char *name;
    pf_pdefile_pos pos;
    pf_pdefile_names on; /* the parts (DIRICHLET, NEUMANN, ROBIN) */
    pf_pdefile_expr *e;  /* the residual lhs - rhs; PERIODIC, OBSERVE: the output's name */
    const char *along;   /* PERIODIC: the input */
    pf_pdefile_pos along_pos;
    const char *file; /* OBSERVE: the data file, as written */
    pf_pdefile_pos file_pos;
    int order;          /* after check: highest derivative the residual needs */
    int output;         /* after check: PERIODIC, OBSERVE: the output compared */
    int periodic_input; /* after check: PERIODIC */
    int nobs;           /* after compile: OBSERVE, the rows of the file (observe.h) */
    double *obs_x;      /* nobs x inputs, in the arena */
    double *obs_v;      /* nobs observed values of the output, in the arena */
    /* after compile: DIRICHLET, NEUMANN, ROBIN with a `where` part, its
     * domain parts each with the condition its points meet there (NULL:
     * every point); a part listed twice takes either */
    int nwhere;
    const char *where_part[PF_PDEFILE_MAX_ALL_PARTS];
    const pf_pdefile_expr *where_cond[PF_PDEFILE_MAX_ALL_PARTS];
} pf_pdefile_constraint;

/* `out = EXPR` in a hard transform or an exact solution. */
typedef struct pf_pdefile_assign {
    const char *name;
    pf_pdefile_pos pos;
    pf_pdefile_expr *e;
    int output; /* after check */
} pf_pdefile_assign;

/* `hard NAME satisfies C1, C2: u = EXPR, v = EXPR` */
typedef struct pf_pdefile_hard {
    const char *name;
    pf_pdefile_pos pos;
    pf_pdefile_names satisfies;
    int n;
    pf_pdefile_assign set[PF_PDE_MAX_OUT];
} pf_pdefile_hard;

typedef enum pf_pdefile_ref_kind {
    PF_PDEFILE_REF_NONE,  /* no reference: trainable, no MSE */
    PF_PDEFILE_REF_EXACT, /* `exact u = EXPR` lines */
    PF_PDEFILE_REF_DATA,  /* `reference "F" snapshots` or `reference "F" columns a, b, u` */
} pf_pdefile_ref_kind;

typedef struct pf_pdefile_ref {
    pf_pdefile_ref_kind kind;
    int nexact;
    pf_pdefile_assign exact[PF_PDE_MAX_OUT];
    const char *file; /* DATA: as written (relative to the .pde file's folder,
                         or a PINNacle file name in PF_DATA_DIR) */
    pf_pdefile_pos pos;
    bool snapshots;           /* DATA: PINNacle's COMSOL time snapshots layout */
    pf_pdefile_names columns; /* DATA: the named columns (CSV header, HDF5 datasets) */
    int grid;                 /* `evaluate grid N` (0: PINNacle's rule, docs/pdes.md 0.3) */
    bool box;                 /* `evaluate box grid`: the rule on the box of all inputs, time
                                 one more axis (PINNacle's coding of wave_1d), not space x time */
    bool rows;                /* `evaluate rows`: the data file's rows (DATA's default) */
} pf_pdefile_ref;

/* The arena that holds a file's nodes and strings. */
typedef struct pf_pdefile_chunk pf_pdefile_chunk;

typedef struct pf_pdefile {
    char path[1024];
    pf_pdefile_chunk *arena;

    const char *name, *title, *statement, *latex;
    pf_pdefile_pos name_pos, statement_pos;
    pf_pdefile_names inputs, outputs;
    const char *time; /* the time input's name (NULL: steady) */
    pf_pdefile_pos time_pos;
    pf_pdefile_expr *t0, *t1; /* its interval */

    int nparams;
    const char *param_name[PF_PDEFILE_MAX_PARAMS];
    pf_pdefile_pos param_pos[PF_PDEFILE_MAX_PARAMS];
    pf_pdefile_expr *param[PF_PDEFILE_MAX_PARAMS];

    pf_pdefile_geom *domain;
    pf_pdefile_pos domain_pos;
    int nparts;
    pf_pdefile_part parts[PF_PDEFILE_MAX_PARTS];

    int neq;
    pf_pdefile_equation eq[PF_PDE_MAX_EQ];
    int ncon;
    pf_pdefile_constraint con[PF_PDE_MAX_CONSTRAINTS];
    int nhard;
    pf_pdefile_hard hard[PF_PDE_MAX_HARD];
    pf_pdefile_ref ref;
    pf_pdefile_names tags;
    pf_pdefile_pos end; /* where the file ends (for "missing" messages) */

    /* after check */
    int time_input;                              /* -1: steady */
    double lo[PF_PDE_MAX_IN], hi[PF_PDE_MAX_IN]; /* bounding box of the domain (x time) */
    int orders[PF_PDE_MAX_IN];                   /* over all equations */
    bool laplacian_only;                         /* second spatial derivatives only through lap() */
    unsigned tag_bits;                           /* enum pf_pde_tag */
    int nall_parts;                              /* every boundary part: the domain's, time's, defined */
    const char *all_parts[PF_PDEFILE_MAX_ALL_PARTS];

    /* diagnostics: "PATH:LINE:COL: message\n" lines */
    int nerrors;
    char *errors;
    size_t errors_len, errors_cap;
} pf_pdefile;

/* A zeroed file named `path` (for messages), or NULL when out of memory. */
pf_pdefile *pf_pdefile_alloc(const char *path);
void pf_pdefile_free(pf_pdefile *f);

/* `bytes` zeroed bytes from f's arena (NULL when out of memory). */
void *pf_pdefile_arena(pf_pdefile *f, size_t bytes);

/* A copy of s[0..n) in the arena, NUL-terminated. */
char *pf_pdefile_strndup(pf_pdefile *f, const char *s, size_t n);

/* A new node with nargs operands (zeroed) in the arena. */
pf_pdefile_expr *pf_pdefile_expr_new(pf_pdefile *f, pf_pdefile_op op, pf_pdefile_pos pos, int nargs);

/* Record "PATH:LINE:COL: message" (printf-style). */
void pf_pdefile_error(pf_pdefile *f, pf_pdefile_pos pos, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* e written back fully parenthesised, "((u_t + (u * u_x)) - (nu * u_xx))",
 * into out[0..cap) (cut at cap; always NUL-terminated). Returns out. */
char *pf_pdefile_expr_str(const pf_pdefile_expr *e, char *out, size_t cap);

#endif
