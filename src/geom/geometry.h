/*
 * geometry.h — the domains PDEs live on: primitives, CSG, space x time, and
 * their named boundary parts.
 *
 * A pf_geom is an immutable tree built bottom-up: primitives (interval,
 * n-box, n-ball, disk, polygon), combined by CSG difference and union, and
 * optionally extruded in time (space x [t0, t1], time as the LAST
 * coordinate). Sampling lives in geom/sample.h; this header builds domains
 * and answers questions about them.
 *
 *     // heat_2d_complex_geometry, shortened: a rectangle minus two holes,
 *     // times [0, 3].
 *     pf_geom *g = NULL, *box, *h1, *h2;
 *     pf_geom_box_alloc(2, (double[]){-8, -12}, (double[]){8, 12}, NULL, &box);
 *     pf_geom_disk_alloc(-4, -3, 1.0, "hole_r1", &h1);
 *     pf_geom_disk_alloc(-3.2, 0, 0.4, "hole_r04", &h2);
 *     pf_geom_difference_alloc(box, h1, &box);   // consumes box and h1
 *     pf_geom_difference_alloc(box, h2, &box);
 *     if (pf_geom_space_time_alloc(box, 0, 3, &g) != PF_OK)  // consumes box
 *         return ...;                       // pf_errmsg() names the first bad argument
 *     // g: dim 3; parts left, right, bottom, top, hole_r1, hole_r04,
 *     // initial, final (in that order).
 *     pf_geom_free(g);                      // frees the whole tree
 *
 * Every constructor returns a pf_status and stores the new geometry in *out
 * (NULL on failure, with a message naming the bad argument in pf_errmsg()).
 *
 * ------------------------------------------------------------- ownership
 *
 * pf_geom_difference_alloc, pf_geom_union_alloc and pf_geom_space_time_alloc
 * TAKE OWNERSHIP of their operands, whether they succeed or fail: the new node
 * frees them with itself, and on failure they are freed at once. `out` may
 * alias an operand variable (pf_geom_difference_alloc(g, hole, &g)). An
 * operand may be NULL — the result of a constructor that failed — and then
 * the call fails with PF_ERR_INVALID and the message "<op> operand is NULL
 * (last error: <the message that failure left>)", passed on unchanged by
 * later links, so a chain of constructors can be checked once, at its end. An
 * operand must not be used (or freed) by the caller afterwards, nor appear
 * twice in one tree.
 *
 * A geometry is never modified after construction, so any number of threads
 * may query and sample the same one concurrently.
 *
 * ------------------------------------------------------------ parts
 *
 * The boundary is split into NAMED parts. A part is a set of pieces (faces,
 * spheres, polygon edges) that share a name, so grouping is by naming: give
 * two holes the same name and they form one part. Parts are indexed
 * 0..pf_geom_part_count()-1 in order of first appearance (left operand
 * first). Names are 1..47 printable characters without spaces or commas.
 *
 *   box           face_names[2k], face_names[2k+1] name the faces x_k = lo_k
 *                 and x_k = hi_k. Defaults (face_names NULL, or a NULL
 *                 entry): "left"/"right" for axis 0, "bottom"/"top" for
 *                 axis 1, "x<k>_lo"/"x<k>_hi" for axis k >= 2. Lookups also
 *                 accept "x0_lo", "x0_hi", "x1_lo", "x1_hi" as aliases of
 *                 left, right, bottom, top (only where those names exist).
 *                 An interval is a 1-D box: "left" and "right".
 *   ball          one part, the sphere |x - c| = r, named by the constructor
 *                 (default "circle" in 2-D, "sphere" otherwise).
 *   polygon       edge i runs from vertex i to vertex i+1 (mod n) and is
 *                 named edge_labels[i] (default "edge<i>"); repeat a label to
 *                 group edges: the backward-facing step is
 *                   (0,0) (4,0) (4,2) (2,2) (2,1) (0,1) with labels
 *                   wall outlet wall wall wall inlet.
 *   A \ B         A's parts, minus what lies in B; then B's parts, minus what
 *                 lies outside A's interior (hole boundaries keep the hole's
 *                 own names, e.g. "hole_r1"). A piece of B's boundary that
 *                 lies on A's boundary belongs to neither (the step cut out of
 *                 a box by a box leaves no seam).
 *   A u B         A's parts outside B, then B's parts outside A.
 *   space x time  the spatial parts (extruded over [t0, t1]) keep their
 *                 names; then "initial" (t = t0) and "final" (t = t1). The
 *                 spatial geometry may not have parts with those two names.
 *
 * Normals are OUTWARD unit normals of the domain. On a hole's boundary they
 * point into the hole (docs/pdes.md 0.1); on spatial parts of a space x time
 * geometry their time component is 0; "initial" has (0, ..., 0, -1) and
 * "final" (0, ..., 0, 1).
 *
 * Each part has a measure (a length in 2-D, an area in 3-D, ...; a count of
 * points for the ends of an interval), which boundary sampling uses to share
 * points between parts. Primitive pieces are measured exactly. A piece that a
 * CSG operation clips partly (a hole cutting the outer boundary, two
 * overlapping boxes) is measured by sampling 16384 points of its whole
 * carrier with a fixed seed, so to about 1 %; a piece the other operand's
 * bounding box does not touch is not clipped at all, and a piece clipped
 * away entirely is dropped (a part left with no piece disappears).
 *
 * The same holds for volumes: exact for primitives, and for differences and
 * unions whose operands' boundaries do not meet (holes strictly inside, as in
 * every benchmark); otherwise a quasi-Monte Carlo estimate over the bounding
 * box (65536 Sobol points).
 *
 * ------------------------------------------------------------ queries
 *
 * Queries take points in double (geometry is configuration, not a tensor):
 * pf_geom_sdf() is a signed distance, negative inside; it is exact for boxes,
 * balls and polygons (and their space x time), and for CSG it is the usual
 * min/max combination, whose sign and zero set are exact but whose magnitude
 * may differ from the true distance away from the boundary. pf_geom_inside() and
 * pf_geom_on_boundary() are tests on it with a tolerance.
 */
#ifndef PF_GEOM_GEOMETRY_H
#define PF_GEOM_GEOMETRY_H

#include <stdbool.h>

#include "core/status.h"

/* Most coordinates a geometry may have, time included (matches
 * PF_MODEL_MAX_IN). */
#define PF_GEOM_MAX_DIM 16
/* Longest part name, terminating NUL included. */
#define PF_GEOM_NAME_MAX 48

typedef struct pf_geom pf_geom;

/* ------------------------------------------------------------ primitives */

/* [lo, hi], lo < hi; parts "left" (x = lo) and "right" (x = hi). */
pf_status pf_geom_interval_alloc(double lo, double hi, pf_geom **out);

/* The box prod_k [lo[k], hi[k]], 1 <= dim <= PF_GEOM_MAX_DIM, lo[k] < hi[k]
 * on every axis. face_names: NULL for the defaults, or 2 * dim entries
 * (x0_lo, x0_hi, x1_lo, ...), where a NULL entry takes its default. */
pf_status pf_geom_box_alloc(int dim, const double *lo, const double *hi,
                            const char *const *face_names, pf_geom **out);

/* The closed ball |x - center| <= radius in `dim` dimensions, radius > 0.
 * Its one part is named `name` (NULL: "circle" in 2-D, "sphere" otherwise;
 * in 1-D the "sphere" is the two end points, measure 2). */
pf_status pf_geom_ball_alloc(int dim, const double *center, double radius, const char *name,
                             pf_geom **out);

/* The 2-D ball with centre (cx, cy); name NULL: "circle". */
pf_status pf_geom_disk_alloc(double cx, double cy, double radius, const char *name,
                             pf_geom **out);

/* The closed simple polygon with vertices xy[2i], xy[2i+1], i = 0..nv-1, in
 * either orientation (nv >= 3, no repeated vertices, no two edges crossing or
 * touching except neighbours at their shared vertex, non-zero area).
 * edge_labels: NULL for "edge0", "edge1", ..., or nv entries (a NULL entry
 * takes its default); edge i joins vertex i to vertex (i + 1) % nv. */
pf_status pf_geom_polygon_alloc(int nv, const double *xy, const char *const *edge_labels,
                                pf_geom **out);

/* ------------------------------------------------------------ combinations
 * Operands: spatial geometries (not space x time) of the same dimension;
 * both are consumed (see "ownership" above). */

/* A minus B (the closed set A without B's interior). */
pf_status pf_geom_difference_alloc(pf_geom *a, pf_geom *b, pf_geom **out);

/* A union B. */
pf_status pf_geom_union_alloc(pf_geom *a, pf_geom *b, pf_geom **out);

/* space x [t0, t1], t0 < t1: dimension dim(space) + 1, time last. Consumes
 * `space`. */
pf_status pf_geom_space_time_alloc(pf_geom *space, double t0, double t1, pf_geom **out);

/* Free a geometry and everything it owns; NULL is a no-op. */
void pf_geom_free(pf_geom *g);

/* ------------------------------------------------------------ queries */

/* Number of coordinates (time included). */
int pf_geom_dim(const pf_geom *g);

/* Bounding box: lo[k] <= x_k <= hi[k] for every point of the domain (dim
 * entries each; tight for primitives, the operands' hull for CSG). */
void pf_geom_bbox(const pf_geom *g, double *lo, double *hi);

/* Volume (area in 2-D, length in 1-D) of the domain; for space x time,
 * the spatial volume times (t1 - t0). Exact or estimated as described above. */
double pf_geom_volume(const pf_geom *g);

/* Signed distance to the boundary, < 0 inside (see the overview). */
double pf_geom_sdf(const pf_geom *g, const double *x);

/* sdf(x) <= tol: the closed domain, grown by tol. */
bool pf_geom_inside(const pf_geom *g, const double *x, double tol);

/* |sdf(x)| <= tol. */
bool pf_geom_on_boundary(const pf_geom *g, const double *x, double tol);

/* The spatial geometry of a space x time geometry (owned by it), else NULL. */
const pf_geom *pf_geom_space(const pf_geom *g);

/* True for space x time, with its interval in *t0, *t1 (either may be NULL). */
bool pf_geom_time_range(const pf_geom *g, double *t0, double *t1);

/* ------------------------------------------------------------ parts */

int pf_geom_part_count(const pf_geom *g);

/* The name of part i (0 <= i < count); owned by g. */
const char *pf_geom_part_name(const pf_geom *g, int i);

/* Measure of part i (see the overview). */
double pf_geom_part_measure(const pf_geom *g, int i);

/* True for the "initial" and "final" faces of a space x time geometry. */
bool pf_geom_part_is_time_face(const pf_geom *g, int i);

/* Index of the part called `name` (aliases above included) into *index.
 * Unknown: PF_ERR_INVALID, "part 'x' is unknown; allowed: left, right, ...",
 * *index untouched. */
pf_status pf_geom_part_find(const pf_geom *g, const char *name, int *index);

/* Parse a part selection into selected[0..count) (true = chosen):
 *   NULL or ""     every part except the time faces ("the boundary" in the
 *                  PDE sense: for space x time the spatial parts);
 *   "*"            every part, time faces included;
 *   "a,b,..."      the named parts (spaces around names are ignored; "*"
 *                  may appear as one of the items).
 * An unknown name fails as pf_geom_part_find() does. */
pf_status pf_geom_parts_select(const pf_geom *g, const char *parts, bool *selected);

/* Distance from x to part i: the smallest distance to the full carrier of any
 * of its pieces (face, sphere, edge, each extruded in time where that applies),
 * ignoring what CSG clipped off — exact for points on the part, a lower bound
 * elsewhere. For checking that sampled points lie on their part. */
double pf_geom_part_distance(const pf_geom *g, int i, const double *x);

/* The part that x lies on: the first part with a piece within tol of x
 * that CSG kept there, or -1. */
int pf_geom_part_at(const pf_geom *g, const double *x, double tol);

#endif
