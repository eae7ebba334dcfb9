/*
 * pde.h — the PDE contract that every file in pdes/ fills.
 *
 * A PDE is a const pf_pde descriptor, defined and exported by its own file
 * (pdes/poisson_5d.c defines `const pf_pde pf_pde_poisson_5d`); pdes/registry.h
 * declares every one and the `all[]` array of pdes/registry.c lists them for
 * pf_pdes_at() and pf_pdes_lookup(). A descriptor says what the problem is
 * (names, statement, tags), where it lives (a geometry builder with named
 * boundary parts), what must vanish (residual builders and constraints
 * written with the jet ops of tensor/graph.h), how constraints can be met
 * exactly (hard transforms) and what the answer is (the reference).
 * Descriptors hold no state. A PDE written as a text file is compiled into
 * a descriptor of the same kind at run time (pdefile/compile.h), whose
 * hooks find the file through `user`.
 *
 * Residuals never touch jet layouts. They receive a pf_pde_ctx that holds the
 * network's outputs on some points and hands out value-only fields. The
 * residual of pdes/poisson_5d.c, -Lap u = (pi^2/4) sum_i sin(pi x_i / 2) on
 * [0,1]^5, with the graph calls written out (the pdes/ files use the
 * shorthands of pdes/pde_ops.h, ADD, K, SIN, ..., and its PF_PI):
 *
 *     static pf_node *residual(pf_pde_ctx *c, int eq)
 *     {
 *         (void)eq;  // one equation: Lap u + (pi^2/4) sum_i sin(pi x_i / 2)
 *         pf_node *s = NULL;
 *         for (int i = 0; i < 5; i++) {
 *             pf_node *xi = pf_scale(c->g, pf_pde_x(c, i), PF_PI / 2);
 *             pf_node *si = pf_unary(c->g, PF_UNARY_SIN, xi, 0);
 *             s = s ? pf_add(c->g, s, si) : si;
 *         }
 *         return pf_add(c->g, pf_pde_lap(c, 0, NULL), pf_scale(c->g, s, PF_PI * PF_PI / 4));
 *     }
 *
 * and its descriptor (the strings shortened; bc, hard_box, exact_fields and
 * exact are builders of the same kind; hard_box lifts the Dirichlet data
 * from the faces with pf_pde_lift, geom/lift.h):
 *
 *     const pf_pde pf_pde_poisson_5d = {
 *         .name = "poisson_5d", .title = "...", .statement = "...", .latex = "...",
 *         .tags = PF_TAG_HIGH_DIM, .d_in = 5, .d_out = 1,
 *         .inputs = {"x1", "x2", "x3", "x4", "x5"}, .outputs = {"u"}, .time_input = -1,
 *         .lo = {0, 0, 0, 0, 0}, .hi = {1, 1, 1, 1, 1},
 *         .orders = {2, 2, 2, 2, 2}, .laplacian_only = true,
 *         .geometry = pf_pdes_box_geometry,
 *         .neq = 1, .residual = residual,
 *         .ncon = 1, .con = {{.name = "bc", .kind = PF_CON_DIRICHLET, .residual = bc}},
 *         .nhard = 1, .hard = {{.name = "box_bubble", .what = "...", .satisfies = "bc",
 *                               .apply = hard_box, .lift_exact = 1, .lift_exact_why = "..."}},
 *         .ref = PF_REF_ANALYTIC, .exact_fields = exact_fields, .exact = exact,
 *     };
 *
 * pf_pde_d(c, k, i, m) is d^m u_k / dx_i^m; pf_pde_lap(c, k, w) is
 * sum_i w_i d^2 u_k / dx_i^2 (w NULL: the spatial Laplacian). Which streams
 * carry them — one direction per input, or first-order directions plus one
 * collapsed stream for a Laplacian — is decided by whoever builds the
 * context (pf_pde_ctx_init, through pf_pde_layout), and the same residual
 * code works with either. Coordinates come as fields too (pf_pde_x value-only,
 * pf_pde_xj as a jet), so source terms are jet ops on the points. What no
 * formula gives enters as value-only inputs: auxiliary fields such as
 * coefficient maps, which the aux hook evaluates on the host (pf_pde_aux),
 * the targets of a data constraint (observe, pf_pde_target) and the fields
 * at a periodic constraint's image points (pf_pde_pair).
 *
 * Exact solutions are written with the same ops (exact_fields; exact gives
 * u* at one point in double), so a test can put u* in place of the network
 * and check that every residual and constraint vanishes.
 */
#ifndef PF_GEOM_PDE_H
#define PF_GEOM_PDE_H

#include <stdbool.h>

#include "core/status.h"
#include "io/pinnacle_dat.h"
#include "tensor/graph.h"

#define PF_PDE_MAX_IN 8
#define PF_PDE_MAX_OUT 4
#define PF_PDE_MAX_EQ 4
#define PF_PDE_MAX_CONSTRAINTS 12
#define PF_PDE_MAX_HARD 2
#define PF_PDE_MAX_AUX 4

struct pf_geom;
struct pf_point_set;

/* Property tags, for knowledge retrieval and prompts. */
enum pf_pde_tag {
    PF_TAG_TIME_DEPENDENT = 1 << 0,
    PF_TAG_PERIODIC = 1 << 1,
    PF_TAG_MULTISCALE = 1 << 2,
    PF_TAG_COMPLEX_GEOMETRY = 1 << 3,
    PF_TAG_STEEP = 1 << 4,
    PF_TAG_HIGH_DIM = 1 << 5,
    PF_TAG_INVERSE = 1 << 6,
    PF_TAG_NONLINEAR = 1 << 7,
    PF_TAG_COUPLED = 1 << 8,
    PF_TAG_LONG_TIME = 1 << 9,
    PF_TAG_HIGH_ORDER = 1 << 10,
    PF_TAG_CHAOTIC = 1 << 11,
    PF_TAG_VARIABLE_COEFFICIENT = 1 << 12,
};
#define PF_TAG_COUNT 13

/* "time_dependent", "periodic", ... for bit `b` (0-based); "?" past the end. */
const char *pf_pde_tag_name(int b);

typedef struct pf_pde pf_pde;

/* What a residual or constraint builder sees. The caller fills g, x, u and
 * (on boundary points) normal; the helpers below read them. */
typedef struct pf_pde_ctx {
    const pf_pde *pde;
    pf_graph *g;
    pf_node *x;        /* points: n x d_in, a jet (or value-only where no derivative is needed) */
    pf_node *u;        /* fields: n x d_out with x's layout (network output or exact solution) */
    pf_node *normal;   /* value-only n x d_in outward unit normals, or NULL */
    int dir[PF_PDE_MAX_IN]; /* jet direction carrying input i, -1 if none */
    int lap;           /* collapsed stream holding the spatial Laplacian, -1 if none */
    /* Auxiliary fields (pde->aux, e.g. a coefficient map) at the points:
     * value-only n x 1 inputs, made by pf_pde_ctx_add_aux, filled after
     * compile by pf_pde_ctx_set_aux. */
    pf_node *aux[PF_PDE_MAX_AUX];
    /* Data constraints (a constraint's observe): the n x 1 target values. */
    pf_node *target;
    /* Periodic constraints: the fields at the image points (same layout as
     * u), so the residual can compare u(x) with u(x'). */
    pf_node *u_pair;
    /* memo of the fields handed out, so asking twice builds no new nodes
     * (zero-initialise the context) */
    pf_node *memo_d[PF_PDE_MAX_OUT][PF_PDE_MAX_IN][PF_JET_MAX_ORDER + 1];
    pf_node *memo_x[PF_PDE_MAX_IN];
} pf_pde_ctx;

/* Value-only n x 1 field d^m u_k / dx_i^m (m = 0: u_k itself). */
pf_node *pf_pde_d(pf_pde_ctx *c, int k, int i, int m);

/* sum_i w[i] d^2 u_k / dx_i^2 over the inputs (w NULL: 1 on the spatial
 * inputs, 0 on time): the collapsed stream when the layout has one and w is
 * NULL, else the sum of pure second derivatives. */
pf_node *pf_pde_lap(pf_pde_ctx *c, int k, const double *w);

/* Value-only n x 1 coordinate x_i (for source terms and data: no
 * derivative streams). */
pf_node *pf_pde_x(pf_pde_ctx *c, int i);

/* Coordinate x_i as a jet with x's layout (for exact solutions and hard
 * constraints, whose derivatives matter). */
pf_node *pf_pde_xj(pf_pde_ctx *c, int i);

/* d u_k / dn = sum over spatial inputs of n_i du_k/dx_i (needs c->normal). */
pf_node *pf_pde_dn(pf_pde_ctx *c, int k);

/* The box bubble prod_i (x_i - lo_i)(hi_i - x_i) over the spatial inputs, a
 * jet with x's layout: zero on every face of the spatial bounding box,
 * positive inside. Hard transforms multiply the network by it. */
pf_node *pf_pde_bubble(pf_pde_ctx *c);

/* Switches on value-only fields (coefficients, bounds, a .pde file's step()
 * and if()), without an op of their own. The engine's sigmoid is
 * 1 / (1 + exp(-a)): exactly 1 in float and double once a > 37, exactly 0
 * once exp(-a) overflows, and 0 or 1 again (never NaN) when a is +-inf, with
 * derivative s (1 - s) = 0 there. With the gain G = 1e20 the switches below
 * are exact except for |z| < ~1e-17 (never hit by coordinates such as
 * z - 0.5: their nearest non-zero value is ~6e-17 in double, ~3e-8 in
 * float). Value-only fields only: on a jet the huge gain would reach the
 * derivative streams. */
#define PF_PDE_SWITCH_GAIN 1e20

/* 1 where z >= 0, 0 where z < 0 (z = 0 gives sigmoid(40) = 1 exactly). */
pf_node *pf_pde_step(pf_pde_ctx *c, pf_node *z);

/* max(0, z) as z sigmoid(G z): exactly z or 0 outside |z| < ~1e-18, where it
 * differs from max(0, z) by less than |z|; its gradient is the step (0 or 1)
 * outside that band and finite inside it (no NaN at z = 0, unlike
 * (z + sqrt(z^2)) / 2). */
pf_node *pf_pde_relu(pf_pde_ctx *c, pf_node *z);

/* Auxiliary field k (value-only n x 1); asserts the context has it. */
pf_node *pf_pde_aux(pf_pde_ctx *c, int k);

/* The target values of a data constraint (value-only n x 1). */
pf_node *pf_pde_target(pf_pde_ctx *c);

/* u_k at the image points of a periodic constraint (value-only n x 1). */
pf_node *pf_pde_pair(pf_pde_ctx *c, int k);

/* Start a context for n points in graph g: zeroes c, builds the jet layout
 * for `orders` (per input, as pf_pde_layout; NULL = values only) and makes
 * c->x, the n x d_in input of the points. The caller adds u, normals, aux. */
void pf_pde_ctx_init(pf_pde_ctx *c, const pf_pde *p, pf_graph *g, const int *orders,
                     bool collapse_lap, int n);

/* Before compile: one value-only input per auxiliary field of c->pde, for
 * the n points of c->x. */
void pf_pde_ctx_add_aux(pf_pde_ctx *c, int n);

/* After compile: evaluate the auxiliary fields at the points x (n x d_in)
 * with c->pde->aux and set the inputs; `work` holds n reals. */
pf_status pf_pde_ctx_set_aux(pf_pde_ctx *c, const pf_real *x, int n, pf_real *work);

/* The jet layout that carries every derivative `orders` asks for: orders[i]
 * is the highest derivative along input i (0: none). With collapse_lap, the
 * spatial inputs whose highest order is 2 get order 1 plus one collapsed
 * Laplacian stream (for residuals that only need the Laplacian). Fills the
 * layout, the per-direction vectors (e_i, dirs[d * d_in + i]) and the
 * context's dir[] and lap. */
void pf_pde_layout(const pf_pde *p, const int *orders, bool collapse_lap, pf_jet_layout *L,
                   pf_real *dirs, pf_pde_ctx *c);

typedef enum pf_constraint_kind {
    PF_CON_INITIAL,    /* u_k(x, t0) - g(x) on the initial slice */
    PF_CON_DIRICHLET,  /* u_k - g on boundary parts */
    PF_CON_NEUMANN,    /* du_k/dn - g on boundary parts */
    PF_CON_ROBIN,      /* du_k/dn - g(x, u) on boundary parts */
    PF_CON_PERIODIC,   /* u(x) - u(x') between opposite faces */
    PF_CON_POINTS,     /* u_k(x_i) - v_i at given points (data, observations, gauge) */
    PF_CON_INEQUALITY, /* max(0, lower - u_k): positivity-type bounds */
    PF_CON_COUNT
} pf_constraint_kind;

const char *pf_constraint_kind_name(pf_constraint_kind k);

typedef struct pf_constraint {
    const char *name;         /* "ic", "bc_walls", "obs", ... (the loss term's name) */
    pf_constraint_kind kind;
    const char *parts;        /* comma-separated boundary part names; NULL = all spatial
                                 parts, except: PF_CON_INEQUALITY with NULL holds at interior
                                 points, PF_CON_POINTS at its own points */
    int order;                /* highest derivative the residual needs (0 or 1) */
    /* The residual on the sampled points, n x 1 value-only. */
    pf_node *(*residual)(pf_pde_ctx *c);
    /* Boundary constraints: whether the point x (d_in coordinates) on the
     * part called `part` (one of c->parts) belongs to the constraint;
     * NULL: every point does. */
    bool (*where)(const pf_pde *p, const struct pf_constraint *c, const char *part, const pf_real *x);
    /* PF_CON_POINTS at fixed points (a gauge): npoints x d_in coordinates. */
    int npoints;
    const double *points;
    /* PF_CON_POINTS from data (observations): allocates *x (n x d_in) and
     * *v (n target values; noise, if any, drawn from `seed`), caller frees
     * both. The residual compares the fields with pf_pde_target(). */
    pf_status (*observe)(const pf_pde *p, uint64_t seed, int *n, pf_real **x, pf_real **v);
    /* PF_CON_PERIODIC: the input along which the solution repeats; points are
     * sampled on the <input>_lo face, their images are the same points on
     * <input>_hi, and the residual compares c->u with c->u_pair. */
    int periodic_input;
} pf_constraint;

/* A named exact hard-constraint transform u = T(x, N(x)): builds u (n x
 * d_out, x's layout) from the network output, usually as a lift L plus a
 * factor that vanishes where the constraints hold times N.
 *
 * The lift (what T gives for N = 0) may use Dirichlet and initial data only
 * where they are given — on the boundary faces and the initial slice —
 * never g's closed form, an exact solution or reference data at interior
 * points: geom/lift.h builds it from the faces' traces (pf_pde_lift). Some
 * PDEs' solutions are nevertheless determined by those traces through the
 * lift (poisson_5d's u* is a sum of one-variable terms, which transfinite
 * interpolation reproduces); lift_exact records which outputs, and
 * lift_exact_why says why — a property of the PDE, not of the code.
 * tests/test_pdes.c checks both ways: a listed output's lift equals u*, any
 * other differs from u* somewhere inside. */
typedef struct pf_hard_transform {
    const char *name;
    const char *what;         /* one line for people and prompts */
    const char *satisfies;    /* comma-separated names of the constraints it makes exact */
    pf_node *(*apply)(pf_pde_ctx *c, pf_node *net);
    unsigned lift_exact;      /* bit k: output k's lift (N = 0) is the exact solution */
    const char *lift_exact_why; /* the PDE's reason, when lift_exact != 0 */
} pf_hard_transform;

typedef enum pf_ref_kind {
    PF_REF_ANALYTIC,  /* exact solution in code */
    PF_REF_DATA,      /* a PINNacle file in PF_DATA_DIR */
    PF_REF_GENERATED, /* our solver's file in PF_REFS_DIR (`make refs`,
                         refs/), read like PF_REF_DATA; until it is built the
                         PDE behaves as PF_REF_MISSING */
    PF_REF_TABLE,     /* the descriptor's own evaluation set in memory
                         (a .pde file's reference file, read when the file
                         is compiled): ref_rows, ref_x, ref_u */
    PF_REF_MISSING,   /* no reference: trainable, no MSE */
} pf_ref_kind;

struct pf_pde {
    const char *name;         /* registry key, e.g. "poisson_5d" */
    const char *title;        /* one line */
    const char *statement;    /* plain text for prompts */
    const char *latex;
    unsigned tags;            /* enum pf_pde_tag bits */
    int d_in, d_out;
    const char *inputs[PF_PDE_MAX_IN];    /* "x", "y", "t", ... */
    const char *outputs[PF_PDE_MAX_OUT];  /* "u", "v", "p", ... */
    int time_input;           /* index of t among the inputs, -1 if steady */
    double lo[PF_PDE_MAX_IN], hi[PF_PDE_MAX_IN]; /* bounding box of the inputs */
    double period[PF_PDE_MAX_IN];  /* > 0 where the solution is periodic in that input */
    int orders[PF_PDE_MAX_IN];     /* highest derivative the residuals need per input */
    bool laplacian_only;      /* second derivatives enter only as a Laplacian */

    /* The domain (caller frees with pf_geom_free). Box problems use
     * pf_pdes_box_geometry, which builds [lo, hi] (times [t0, t1] when
     * time-dependent) from the fields above. */
    pf_status (*geometry)(const pf_pde *p, struct pf_geom **out);

    int neq;                  /* residual equations */
    pf_node *(*residual)(pf_pde_ctx *c, int eq);

    int ncon;
    pf_constraint con[PF_PDE_MAX_CONSTRAINTS];

    int nhard;
    pf_hard_transform hard[PF_PDE_MAX_HARD];

    pf_ref_kind ref;
    const char *ref_file;     /* PF_REF_DATA, _GENERATED: file name in PF_DATA_DIR */
    pf_dat_layout ref_layout; /* PF_REF_DATA, _GENERATED: steady rows or COMSOL time snapshots */
    int ref_rows;             /* PF_REF_TABLE: evaluation points, */
    const double *ref_x;      /* ref_rows x d_in, */
    const double *ref_u;      /* and the reference there, ref_rows x d_out */
    /* Files from PF_DATA_DIR that the aux and observe hooks read
     * (comma-separated; NULL = none). pf_pde_data_check says if one is missing. */
    const char *data_files;
    /* Auxiliary fields: coefficients given as data rather than formulas
     * (coefficient maps, piecewise constants), evaluated on the host at the
     * points: out[i] = aux_k(x_i) for the n points x (n x d_in). */
    int naux;
    const char *aux_names[PF_PDE_MAX_AUX];
    pf_status (*aux)(const pf_pde *p, int k, const pf_real *x, int n, pf_real *out);
    /* PF_REF_ANALYTIC, optional: the evaluation points, where PINNacle's grid
     * rule (docs/pdes.md 0.3, pf_sample_grid_pinnacle with n = 2500 for two
     * inputs, else 20000) does not apply to the geometry. */
    pf_status (*eval_points)(const pf_pde *p, const struct pf_geom *g, struct pf_point_set *out);
    /* PF_REF_ANALYTIC: u* on the context's points, n x d_out with x's layout. */
    pf_node *(*exact_fields)(pf_pde_ctx *c);
    /* PF_REF_ANALYTIC: u* at one point, in double (evaluation, plots). */
    void (*exact)(const pf_pde *p, const double *x, double *u);
    /* What a descriptor built at run time reads its formulas from (a
     * compiled .pde file, pdefile/compile.h; its hooks reach it through
     * c->pde->user or p->user). NULL for the built-in PDEs. */
    const void *user;
};

/* Whether transform h makes the constraint called `name` exact (its name is
 * in h->satisfies). */
bool pf_hard_satisfies(const pf_hard_transform *h, const char *name);

/* The problem as text, for people and prompts (malloc'ed; NULL only when
 * out of memory): name and title, the statement, LaTeX, inputs, outputs,
 * domain, property tags, the number of residual equations, the constraints
 * (name, kind, where) and the hard-constraint transforms. `pf-pde show`
 * prints it before the reference status. */
char *pf_pde_describe(const pf_pde *p);

/* Where a constraint's points lie: on the initial slice (an initial
 * condition, or any constraint on exactly the "initial" part), in the
 * interior (an inequality without parts), else on its own points or
 * boundary parts. The samplers below and the trainer's point sets use this. */
bool pf_constraint_on_initial(const pf_constraint *c);
bool pf_constraint_in_interior(const pf_constraint *c);

/* The points where constraint c holds, into ps (zeroed or reusable; the
 * caller releases it):
 *   - PF_CON_POINTS with observe: the observation points, their noisy
 *     target values into *v (noise drawn from `seed`; caller frees);
 *   - PF_CON_POINTS with fixed points: those points (n and method unused);
 *   - an initial condition, or any constraint on exactly the "initial"
 *     part: n points on the initial slice by `method`;
 *   - an inequality without parts: n interior points by `method`;
 *   - otherwise n boundary points on c->parts (shared by measure;
 *     Hammersley for PF_SAMPLE_HAMMERSLEY, else uniform), with normals (a
 *     periodic constraint's parts are its <input>_lo face); with c->where,
 *     n of those where it holds (uniform: drawn in batches; Hammersley: the
 *     smallest set with enough, thinned evenly by index; PF_ERR_INVALID
 *     when it holds at too few: under 1 in 1,000).
 * *v is NULL unless the constraint observes. */
pf_status pf_pde_constraint_points(const pf_pde *p, const struct pf_geom *g, const pf_constraint *c,
                                   int method, int n, uint64_t seed, struct pf_point_set *ps,
                                   pf_real **v);

/* A periodic constraint's image points: x (n x d_in) with the periodic
 * input moved from its lo face to its hi face (malloc'ed; NULL when out of
 * memory, with pf_errmsg set). */
pf_real *pf_pde_periodic_images(const pf_pde *p, const pf_constraint *c, int n, const pf_real *x);

/* PF_OK when every file in p->data_files is in PF_DATA_DIR and matches its
 * SHA-256 in the data manifest (io/data_dir.h), else PF_ERR_IO naming the
 * first missing or damaged one (training and tests need them; the
 * reference file is checked separately, by pf_pde_reference). */
pf_status pf_pde_data_check(const pf_pde *p);

/* The fixed evaluation set: points (n x d_in) and reference values
 * (n x d_out). */
typedef struct pf_reference {
    int n, d_in, d_out;
    pf_real *x, *u;
} pf_reference;

/* Build a PDE's evaluation set: for an analytic reference, the points of
 * docs/pdes.md 0.3 (or eval_points) with u* there; for data, the PINNacle file
 * from PF_DATA_DIR (PF_ERR_IO naming file and folder when absent); for a
 * generated reference, its file read the same way; for a table, its rows
 * (rounded to pf_real). A PDE without a
 * reference, or whose generated file is not built yet, fails with
 * PF_ERR_UNSUPPORTED (the latter's message says to run `make refs`). Release with
 * pf_reference_release (also after a failure). */
pf_status pf_pde_reference(const pf_pde *p, pf_reference *out);
void pf_reference_release(pf_reference *r);

/* The held-out split of an evaluation set (EVAL=heldout): report[i] = 1
 * puts point i in the REPORT set, never seen by a decision; 0 in the
 * SELECTION set, whose MSE steers the search, the Top-3 and the final
 * choice. Fixed for a PDE (seed PF_REFERENCE_SPLIT_SEED, no run input), and
 * stratified: the bounding box of p's inputs (time included) is cut into
 * b^d cells, b = max(2, floor(64^(1/d))); the points of each cell, in a
 * seeded random order, alternate between the sets with one counter over
 * all cells, so every cell and the whole set split half and half (to one
 * point). Out of memory is PF_ERR_NOMEM. */
#define PF_REFERENCE_SPLIT_SEED 20260415u
pf_status pf_reference_split(const pf_pde *p, const pf_reference *r, unsigned char *report);

/* Everything a run of p reads from the data folder, checked before it
 * starts: the data files (pf_pde_data_check) and the reference, built once
 * (*neval its evaluation points; -1 for a PDE without a reference, which
 * is PF_OK: it trains without an MSE). A missing or damaged file is
 * PF_ERR_IO naming it and the folder. */
pf_status pf_pde_inputs_check(const pf_pde *p, int *neval);

#endif
