/*
 * sample.h — collocation points: interior, boundary parts, initial slice,
 * and regular grids, on any pf_geom (geom/geometry.h).
 *
 * Every sampler is a pure function of its arguments: the same geometry,
 * method, count and seed give bit-identical points (on any thread count),
 * and a different seed gives different points (grids take no seed). Points
 * come back in a pf_point_set that the sampler allocates and the caller
 * releases:
 *
 *     pf_point_set in = {0}, bc = {0}, ic = {0};   // or pf_point_set_init()
 *     if (pf_sample_interior(g, PF_SAMPLE_SOBOL, 8192, seed, &in) != PF_OK ||
 *         pf_sample_boundary(g, PF_SAMPLE_SOBOL, "hole_r1,hole_r04", 2048, seed + 1,
 *                            PF_SAMPLE_NORMALS, &bc) != PF_OK ||
 *         pf_sample_initial(g, PF_SAMPLE_UNIFORM, 2048, seed + 2, 0, &ic) != PF_OK)
 *         return ...;                          // pf_errmsg() says why
 *     // in.x:  in.n x in.dim, row-major (time last for space x time)
 *     // bc.normal[i * bc.dim + k]: outward unit normal; bc.part[i]: its part,
 *     //        pf_geom_part_name(g, bc.part[i])
 *     ...
 *     pf_point_set_release(&in);   // and bc, ic
 *
 * A sampler OVERWRITES its output set: whatever it held is released first,
 * so one set can be refilled in a resampling loop; a set must therefore start
 * zeroed. On failure the set is left empty (n = 0, NULL arrays). Arrays are
 * PF_ALIGN-aligned.
 *
 * ------------------------------------------------------------ interior
 *
 *   uniform  independent uniform points (MT19937, core/rng.h). Boxes and
 *            balls (and their space x time) are sampled directly; other
 *            shapes by rejection from the bounding box.
 *   sobol    GSL's Sobol sequence (at most 40 coordinates) preceded by its
 *            zero point — so the first 2^m points form a (t, m, s)-net —
 *            randomised by a DIGITAL SHIFT: coordinate k of every point,
 *            as a b-bit binary fraction, is XORed with a b-bit mask drawn
 *            from the seed (pf_rng_derive(seed, "geom.sobol")), then moved to
 *            the centre of its 2^-b cell; b = 23 in the float build (so the
 *            value is exact in a float) and 30 in the double build. Every
 *            seed, 0 included, gets a shift; a digital shift keeps the net
 *            property (each axis of the first 2^m points, m <= b, has one
 *            point in each of 2^m equal strata), so every seed is as evenly
 *            spread as the raw sequence. Non-box shapes keep drawing the
 *            sequence and reject the points outside; one call draws at most
 *            2^b - 1 candidates.
 *   lhs      Latin hypercube: each axis of the bounding box is cut into n
 *            equal strata and every stratum holds exactly one point (a random
 *            permutation per axis, a uniform offset inside the stratum). On a
 *            non-box shape, LHS batches over the bounding box are drawn and
 *            their inside points kept, so the stratification holds for the
 *            box, not for the shape.
 *   grid     a regular grid of about n points (PF_GRID_INTERIOR spacing,
 *            the per-axis counts of DeepXDE's uniform_points for the bounding
 *            box, inflated by 1 / fill fraction), keeping the inside points;
 *            out->n is the number kept, which is rarely exactly n.
 *   hammersley the Hammersley set of n points, DeepXDE's default sampler
 *            (so PINNacle's), with DeepXDE's conventions (its
 *            sampler.quasirandom over skopt's Hammersly): point i = 0..n-1
 *            of the unit cube is, with j = i + 1 (DeepXDE draws n + 1 points
 *            and drops the first, the origin), u_k = phi_{p_k}(j) for
 *            k = 0..d-2 and u_{d-1} = j / (n + 1), where phi_p is the
 *            radical inverse in base p and p_k the k-th prime (2, 3, 5, ...);
 *            in 1-D u_0 = phi_2(j). Scaled to the bounding box,
 *            lo + u (hi - lo). So the grid coordinate is the LAST one (time
 *            for space x time, as DeepXDE's GeometryXTime gives a box x time
 *            to its hypercube), and every one of its n strata
 *            [k/n, (k+1)/n) holds exactly one point. It takes no seed: a
 *            redraw gives the same set, as with grid. A non-box shape takes
 *            the smallest N-point set over the bounding box (N grown from
 *            n / fill) that has m >= n points inside, and keeps the inside
 *            points of rank floor(j m / n), j = 0..n-1 (an even thinning by
 *            index, so the last coordinate stays evenly spread). DeepXDE
 *            differs there: it maps the set onto disks and spheres by polar
 *            coordinates, and for CSG shapes it repeats the same draw in its
 *            rejection loop.
 *
 * Interior points are in the CLOSED domain (a rejection test keeps
 * sdf <= 0), up to the rounding to pf_real.
 *
 * ------------------------------------------------------------ boundary
 *
 * pf_sample_boundary() takes a part selection (pf_geom_parts_select: NULL =
 * every part but the time faces, "*" = all, or "inlet,wall"), shares the n
 * points between the selected pieces in proportion to their measures —
 * deterministically, by largest remainder, so a 2 x 1 rectangle's long sides
 * get exactly n/3 each when n is a multiple of 6 — and samples each piece
 * (rejecting what CSG clipped off). Points come grouped by part, in
 * part-index order. The part index of each point is always returned; the
 * outward unit normals when flags has PF_SAMPLE_NORMALS. On spatial parts of
 * a space x time geometry the normal's time component is 0.
 *
 *   hammersley  (DeepXDE's random_boundary_points(n, "Hammersley")) each
 *            piece maps the Hammersley set of its count onto its carrier,
 *            with the interior's conventions (index j = i + 1, the last
 *            coordinate j / (N + 1)): a box face its free axes scaled to the
 *            face; a circle the angle 2 pi u (DeepXDE's Disk); an n-sphere,
 *            n >= 3, the normalised inverse-normal images of n coordinates
 *            (DeepXDE's Hypersphere); a 1-D ball's two ends u < 1/2 and
 *            u >= 1/2; a polygon edge its arc parameter; a time face
 *            (initial, final) the spatial domain as the interior sampler
 *            does; on a timed piece t is one more coordinate, the LAST, so t
 *            is evenly stratified (where t is the only one, an interval's
 *            end x time, t = phi_2(j), the 1-D set). A clipped piece (CSG) takes the smallest
 *            N-point set with at least its count kept and thins it evenly by
 *            index, as the interior does. It takes no seed. The departures
 *            from DeepXDE (docs/baselines.md): the pieces' shares are exact
 *            (DeepXDE maps one sequence along a rectangle's whole perimeter,
 *            picks a box face at random in 3-D and an interval's end at
 *            random), and t is paired with x in one set rather than a
 *            random permutation of a separate one.
 *   any other method: uniform draws on each piece (MT19937 from the seed);
 *            on spatial parts of a space x time geometry, t uniform in
 *            [t0, t1].
 *
 * pf_sample_initial() is the t = t0 slice of a space x time geometry with
 * any interior method: spatial points as pf_sample_interior would give on the
 * spatial geometry with the same seed, and t = t0; normals (0, ..., 0, -1)
 * on request; part = the "initial" part.
 */
#ifndef PF_GEOM_SAMPLE_H
#define PF_GEOM_SAMPLE_H

#include <stdint.h>

#include "core/real.h"
#include "core/status.h"
#include "geom/geometry.h"

/* Most points one call may return (2^27). */
#define PF_SAMPLE_MAX_POINTS (1 << 27)

typedef struct pf_point_set {
    int n;           /* points */
    int dim;         /* coordinates per point */
    pf_real *x;      /* n x dim, row-major */
    pf_real *normal; /* n x dim outward unit normals, or NULL */
    int *part;       /* n part indices of the geometry, or NULL (interior, grid) */
} pf_point_set;

/* Zero a set (same as = {0}). */
void pf_point_set_init(pf_point_set *ps);

/* Free the arrays and zero the set; a zeroed set is a no-op. */
void pf_point_set_release(pf_point_set *ps);

typedef enum pf_sample_method {
    PF_SAMPLE_UNIFORM = 0,
    PF_SAMPLE_SOBOL,
    PF_SAMPLE_LHS,
    PF_SAMPLE_GRID,
    PF_SAMPLE_HAMMERSLEY,
    PF_SAMPLE_METHOD_COUNT
} pf_sample_method;

/* "uniform", "sobol", "lhs", "grid", "hammersley"; "?" out of range. */
const char *pf_sample_method_name(pf_sample_method m);
/* The method called `name`; PF_ERR_INVALID ("sampler 'x' is unknown;
 * allowed: ...") and *out untouched otherwise. */
pf_status pf_sample_method_from_name(const char *name, pf_sample_method *out);

/* Where the m points of a grid axis [lo, hi] go:
 *   PF_GRID_INTERIOR  lo + k (hi - lo) / (m + 1), k = 1..m  (DeepXDE's
 *                     uniform_points(boundary=False), PINNacle's evaluation grids)
 *   PF_GRID_CLOSED    lo + k (hi - lo) / (m - 1), k = 0..m-1, hi exact (numpy
 *                     linspace; m >= 2)
 *   PF_GRID_CELL      lo + (k + 1/2) (hi - lo) / m, k = 0..m-1 (cell centres) */
typedef enum pf_grid_kind {
    PF_GRID_INTERIOR = 0,
    PF_GRID_CLOSED,
    PF_GRID_CELL,
    PF_GRID_KIND_COUNT
} pf_grid_kind;

/* "interior", "closed", "cell"; "?" out of range. */
const char *pf_grid_kind_name(pf_grid_kind k);
pf_status pf_grid_kind_from_name(const char *name, pf_grid_kind *out);

enum pf_sample_flags {
    PF_SAMPLE_NORMALS = 1 << 0, /* fill out->normal */
};

/* n points (n >= 0) in the domain by `method` (see above); out->part NULL. */
pf_status pf_sample_interior(const pf_geom *g, pf_sample_method method, int n, uint64_t seed,
                             pf_point_set *out);

/* The grid with counts[k] points on axis k of the bounding box (dim entries,
 * each >= 1, >= 2 for PF_GRID_CLOSED), in C order (axis 0 slowest, as
 * itertools.product), keeping the points in the closed domain. For space x
 * time the time axis is the last one like any other. */
pf_status pf_sample_grid(const pf_geom *g, const int *counts, pf_grid_kind kind,
                         pf_point_set *out);

/* PINNacle's evaluation set for `n` requested points (docs/pdes.md 0.3), for a box
 * or a box x time:
 *   box:         dx = (volume / n)^(1/dim), m_k = ceil(side_k / dx) interior
 *                grid points per axis, C order;
 *   box x time:  nx = ceil(sqrt(n * spatial volume / (t1 - t0))), the box set
 *                for nx points, then nt = ceil(n / nx) time levels
 *                t1 - j (t1 - t0) / nt, j = 0..nt-1 (t0 excluded, t1
 *                included), time-major (all spatial points at t1 first).
 * Computed in double, so the points equal PINNacle's up to the last float
 * bit. Other geometries: PF_ERR_UNSUPPORTED (PINNacle draws random points
 * there; use pf_sample_interior with a fixed seed). */
pf_status pf_sample_grid_pinnacle(const pf_geom *g, int n, pf_point_set *out);

/* n points (n >= 0) on the selected parts (see above) by `method`: Hammersley
 * for PF_SAMPLE_HAMMERSLEY (no seed), uniform draws for every other method;
 * out->part filled, out->normal with PF_SAMPLE_NORMALS. An unknown part name
 * or a selection of zero measure fails with PF_ERR_INVALID. */
pf_status pf_sample_boundary(const pf_geom *g, pf_sample_method method, const char *parts, int n,
                             uint64_t seed, unsigned flags, pf_point_set *out);

/* n points on the initial slice t = t0 of a space x time geometry (see
 * above); PF_ERR_INVALID for any other geometry. */
pf_status pf_sample_initial(const pf_geom *g, pf_sample_method method, int n, uint64_t seed,
                            unsigned flags, pf_point_set *out);

#endif
