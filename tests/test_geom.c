/*
 * test_geom.c — geometry and samplers (src/geom/geometry.h, sample.h).
 *
 * The shapes are the benchmark domains of docs/pdes.md: an interval x time, boxes
 * in 2, 3 and 5 dimensions, the unit 5-ball (heat_5d), squares and a
 * rectangle with disk holes (poisson_2d_classic, poisson_boltzmann_2d,
 * heat_2d_complex_geometry), a cube with ball holes (poisson_3d), the
 * backward-facing step as a polygon and as a box minus a box, and a union.
 * Expected measures, volumes and distances are closed forms computed here.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/real.h"
#include "core/status.h"
#include "geom/geometry.h"
#include "geom/pde.h"
#include "geom/sample.h"
#include "geom/samples_file.h"
#include "registry.h"

static const double PI = 3.14159265358979323846;

/* ---------------------------------------------------------------- shapes */

/* st and *g are read after the constructor ran (argument order is unspecified) */
static pf_geom *must(pf_status st, pf_geom **g)
{
    cr_assert_eq(st, PF_OK, "building a shape failed: %s", pf_errmsg());
    cr_assert_not_null(*g);
    return *g;
}

static pf_geom *box_nd(int d, double lo, double hi)
{
    double l[PF_GEOM_MAX_DIM], h[PF_GEOM_MAX_DIM];
    for (int k = 0; k < d; k++) l[k] = lo, h[k] = hi;
    pf_geom *g = NULL;
    return must(pf_geom_box_alloc(d, l, h, NULL, &g), &g);
}

static pf_geom *rect_2x1(void)
{
    pf_geom *g = NULL;
    return must(pf_geom_box_alloc(2, (double[]){0, 0}, (double[]){2, 1}, NULL, &g), &g);
}

static pf_geom *box5(void) { return box_nd(5, 0, 1); }
static pf_geom *cube3(void) { return box_nd(3, -1, 2); }

static pf_geom *ball5(void)
{
    pf_geom *g = NULL;
    return must(pf_geom_ball_alloc(5, (double[]){0, 0, 0, 0, 0}, 1.0, NULL, &g), &g);
}

static pf_geom *disk(void)
{
    pf_geom *g = NULL;
    return must(pf_geom_disk_alloc(0.5, -1, 2.0, NULL, &g), &g);
}

/* heat_2d_complex_geometry: [-8,8] x [-12,12] minus 11 disks of radius 1
 * ("hole_r1") and 6 of radius 0.4 ("hole_r04"). */
static const double big_holes[11][2] = {{-4, -3}, {4, -3}, {-4, 3}, {4, 3}, {-4, -9}, {4, -9},
                                        {-4, 9},  {4, 9},  {0, 0},  {0, 6}, {0, -6}};
static const double small_holes[6][2] = {{-3.2, -6}, {-3.2, 6}, {3.2, -6},
                                         {3.2, 6},   {-3.2, 0}, {3.2, 0}};

static pf_geom *heat_complex(void)
{
    pf_geom *g = NULL, *h = NULL;
    pf_geom_box_alloc(2, (double[]){-8, -12}, (double[]){8, 12}, NULL, &g);
    for (int i = 0; i < 11; i++) {
        pf_geom_disk_alloc(big_holes[i][0], big_holes[i][1], 1.0, "hole_r1", &h);
        pf_geom_difference_alloc(g, h, &g);
    }
    for (int i = 0; i < 6; i++) {
        pf_geom_disk_alloc(small_holes[i][0], small_holes[i][1], 0.4, "hole_r04", &h);
        pf_geom_difference_alloc(g, h, &g);
    }
    return must(g ? PF_OK : PF_ERR_INVALID, &g);
}

/* poisson_2d_classic: [-0.5,0.5]^2 minus 4 disks r 0.1 at (+-0.3, +-0.3). */
static const double classic_holes[4][2] = {{0.3, 0.3}, {-0.3, 0.3}, {0.3, -0.3}, {-0.3, -0.3}};

static pf_geom *poisson_classic(void)
{
    pf_geom *g = NULL, *h = NULL;
    pf_geom_box_alloc(2, (double[]){-0.5, -0.5}, (double[]){0.5, 0.5}, NULL, &g);
    for (int i = 0; i < 4; i++) {
        pf_geom_disk_alloc(classic_holes[i][0], classic_holes[i][1], 0.1, "hole", &h);
        pf_geom_difference_alloc(g, h, &g);
    }
    return must(g ? PF_OK : PF_ERR_INVALID, &g);
}

/* poisson_3d_complex_geometry: [0,1]^3 minus 4 balls. */
static pf_geom *poisson_3d(void)
{
    static const double b[4][4] = {{0.4, 0.3, 0.6, 0.2},
                                   {0.6, 0.7, 0.6, 0.2},
                                   {0.2, 0.8, 0.7, 0.1},
                                   {0.6, 0.2, 0.3, 0.1}};
    pf_geom *g = box_nd(3, 0, 1), *h = NULL;
    for (int i = 0; i < 4; i++) {
        pf_geom_ball_alloc(3, b[i], b[i][3], "ball", &h);
        pf_geom_difference_alloc(g, h, &g);
    }
    return must(g ? PF_OK : PF_ERR_INVALID, &g);
}

/* navier_stokes_2d_backstep as a polygon with labelled edges. */
static const double step_xy[12] = {0, 0, 4, 0, 4, 2, 2, 2, 2, 1, 0, 1};
static const char *const step_labels[6] = {"wall", "outlet", "wall", "wall", "wall", "inlet"};

static pf_geom *backstep(void)
{
    pf_geom *g = NULL;
    return must(pf_geom_polygon_alloc(6, step_xy, step_labels, &g), &g);
}

/* the same step as [0,4] x [0,2] minus [0,2] x [1,2]; the cut-out box's left
 * and top faces lie on the outer boundary and must vanish */
static pf_geom *backstep_csg(void)
{
    static const char *const cut[4] = {"seam_l", "step_face", "step_top", "seam_t"};
    pf_geom *a = NULL, *b = NULL, *g = NULL;
    pf_geom_box_alloc(2, (double[]){0, 0}, (double[]){4, 2}, NULL, &a);
    pf_geom_box_alloc(2, (double[]){0, 1}, (double[]){2, 2}, cut, &b);
    return must(pf_geom_difference_alloc(a, b, &g), &g);
}

/* [0,2]^2 u [1,3]^2: perimeter 12, area 7 */
static pf_geom *two_squares(void)
{
    pf_geom *a = NULL, *b = NULL, *g = NULL;
    static const char *const na[4] = {"a_left", "a_right", "a_bottom", "a_top"};
    static const char *const nb[4] = {"b_left", "b_right", "b_bottom", "b_top"};
    pf_geom_box_alloc(2, (double[]){0, 0}, (double[]){2, 2}, na, &a);
    pf_geom_box_alloc(2, (double[]){1, 1}, (double[]){3, 3}, nb, &b);
    return must(pf_geom_union_alloc(a, b, &g), &g);
}

static pf_geom *heat5d(void)
{
    pf_geom *g = NULL;
    return must(pf_geom_space_time_alloc(ball5(), 0, 1, &g), &g);
}

static pf_geom *burgers(void)
{
    pf_geom *s = NULL, *g = NULL;
    pf_geom_interval_alloc(-1, 1, &s);
    return must(pf_geom_space_time_alloc(s, 0, 1, &g), &g);
}

static pf_geom *complex_time(void)
{
    pf_geom *g = NULL;
    return must(pf_geom_space_time_alloc(heat_complex(), 0, 3, &g), &g);
}

typedef struct shape {
    const char *name;
    pf_geom *(*build)(void);
} shape;

static const shape shapes[] = {
    {"rect_2x1", rect_2x1},
    {"box5", box5},
    {"cube3", cube3},
    {"ball5", ball5},
    {"disk", disk},
    {"heat_complex", heat_complex},
    {"poisson_classic", poisson_classic},
    {"poisson_3d", poisson_3d},
    {"backstep", backstep},
    {"backstep_csg", backstep_csg},
    {"two_squares", two_squares},
    {"heat5d", heat5d},
    {"burgers", burgers},
    {"complex_time", complex_time},
};
#define NSHAPES (int)(sizeof shapes / sizeof shapes[0])

/* ---------------------------------------------------------------- helpers */

static void point(const pf_point_set *ps, int i, double *x)
{
    for (int k = 0; k < ps->dim; k++) x[k] = ps->x[(size_t)i * ps->dim + k];
}

static double diag(const pf_geom *g)
{
    double lo[PF_GEOM_MAX_DIM], hi[PF_GEOM_MAX_DIM], s = 0;
    pf_geom_bbox(g, lo, hi);
    for (int k = 0; k < pf_geom_dim(g); k++) s += (hi[k] - lo[k]) * (hi[k] - lo[k]);
    return sqrt(s);
}

/* Rounding to float moves a point by ~1e-7 x its magnitude. */
static double tol_for(const pf_geom *g) { return 1e-5 * fmax(1, diag(g) / 10); }

static bool same_set(const pf_point_set *a, const pf_point_set *b)
{
    return a->n == b->n && a->dim == b->dim &&
           memcmp(a->x, b->x, (size_t)a->n * a->dim * sizeof *a->x) == 0;
}

/* ---------------------------------------------------------------- interior */

Test(geom, interior_points_lie_inside_every_shape)
{
    for (int s = 0; s < NSHAPES; s++) {
        pf_geom *g = shapes[s].build();
        for (int m = 0; m < PF_SAMPLE_METHOD_COUNT; m++) {
            pf_point_set ps = {0};
            cr_assert_eq(pf_sample_interior(g, m, 3000, 7, &ps), PF_OK, "%s %s: %s",
                         shapes[s].name, pf_sample_method_name(m), pf_errmsg());
            cr_assert(ps.n >= (m == PF_SAMPLE_GRID ? 1500 : 3000) && ps.dim == pf_geom_dim(g));
            int outside = 0;
            double worst = -INFINITY;
            for (int i = 0; i < ps.n; i++) {
                double x[PF_GEOM_MAX_DIM];
                point(&ps, i, x);
                double sd = pf_geom_sdf(g, x);
                worst = fmax(worst, sd);
                outside += !pf_geom_inside(g, x, tol_for(g));
            }
            cr_assert_eq(outside, 0, "%s %s: %d of %d points outside (max sdf %g)",
                         shapes[s].name, pf_sample_method_name(m), outside, ps.n, worst);
            pf_point_set_release(&ps);
        }
        pf_geom_free(g);
    }
}

/* Uniform in the 5-ball: E|x|^2 = d / (d + 2) = 5/7; sd of |x|^2 is about
 * 0.17, so with 40000 points the mean is within 0.003 (3.5 sigma). */
Test(geom, uniform_ball5_has_the_right_radial_moment)
{
    pf_geom *g = ball5();
    for (int m = 0; m < PF_SAMPLE_GRID; m++) {
        pf_point_set ps = {0};
        cr_assert_eq(pf_sample_interior(g, m, 40000, 3, &ps), PF_OK, "%s", pf_errmsg());
        double s = 0;
        for (int i = 0; i < ps.n; i++)
            for (int k = 0; k < 5; k++) s += (double)ps.x[i * 5 + k] * ps.x[i * 5 + k];
        cr_assert(fabs(s / ps.n - 5.0 / 7.0) < 0.003, "%s: E|x|^2 = %.5f, expected %.5f",
                  pf_sample_method_name(m), s / ps.n, 5.0 / 7.0);
        pf_point_set_release(&ps);
    }
    pf_geom_free(g);
}

/* ---------------------------------------------------------------- boundary */

Test(geom, boundary_points_lie_on_their_part_with_outward_unit_normals)
{
    for (int t = 0; t < 2 * NSHAPES; t++) {
        int s = t % NSHAPES;
        pf_sample_method m = t < NSHAPES ? PF_SAMPLE_UNIFORM : PF_SAMPLE_HAMMERSLEY;
        pf_geom *g = shapes[s].build();
        int d = pf_geom_dim(g);
        double tol = tol_for(g), eps = 1e-5 * diag(g);
        pf_point_set ps = {0};
        cr_assert_eq(pf_sample_boundary(g, m, "*", 4000, 11, PF_SAMPLE_NORMALS, &ps), PF_OK, "%s, %s: %s",
                     shapes[s].name, pf_sample_method_name(m), pf_errmsg());
        cr_assert(ps.n == 4000 && ps.dim == d && ps.normal && ps.part);
        int off_part = 0, off_boundary = 0, not_unit = 0, not_outward = 0, unplaced = 0;
        for (int i = 0; i < ps.n; i++) {
            double x[PF_GEOM_MAX_DIM], xp[PF_GEOM_MAX_DIM], xm[PF_GEOM_MAX_DIM], nn = 0;
            point(&ps, i, x);
            off_part += !(pf_geom_part_distance(g, ps.part[i], x) < tol);
            off_boundary += !pf_geom_on_boundary(g, x, tol);
            for (int k = 0; k < d; k++) {
                double n = ps.normal[i * d + k];
                nn += n * n;
                xp[k] = x[k] + eps * n;
                xm[k] = x[k] - eps * n;
            }
            not_unit += !(fabs(sqrt(nn) - 1) < 1e-5);
            not_outward += !(pf_geom_sdf(g, xp) > 0 && pf_geom_sdf(g, xm) < 0);
            unplaced += pf_geom_part_at(g, x, tol) < 0;
        }
        cr_assert_eq(off_part, 0, "%s: %d points farther than %g from their part",
                     shapes[s].name, off_part, tol);
        cr_assert_eq(off_boundary, 0, "%s: %d points off the boundary", shapes[s].name,
                     off_boundary);
        cr_assert_eq(not_unit, 0, "%s: %d normals not of unit length", shapes[s].name, not_unit);
        cr_assert_eq(not_outward, 0, "%s: %d normals not outward (eps %g)", shapes[s].name,
                     not_outward, eps);
        cr_assert_eq(unplaced, 0, "%s: pf_geom_part_at finds no part for %d points",
                     shapes[s].name, unplaced);
        pf_point_set_release(&ps);
        pf_geom_free(g);
    }
}

Test(geom, hole_normals_point_into_the_hole)
{
    pf_geom *g = poisson_classic();
    pf_point_set ps = {0};
    cr_assert_eq(pf_sample_boundary(g, PF_SAMPLE_UNIFORM, "hole", 2000, 5, PF_SAMPLE_NORMALS, &ps), PF_OK, "%s",
                 pf_errmsg());
    double worst = 1;
    for (int i = 0; i < ps.n; i++) {
        double x = ps.x[2 * i], y = ps.x[2 * i + 1];
        int h = (x < 0) + 2 * (y < 0); /* hole index from the quadrant: (+,+) (-,+) (+,-) (-,-) */
        double cx = classic_holes[h][0] - x, cy = classic_holes[h][1] - y, r = hypot(cx, cy);
        cr_assert(fabs(r - 0.1) < 1e-5, "point %d is %g from its hole centre", i, r);
        worst = fmin(worst, (ps.normal[2 * i] * cx + ps.normal[2 * i + 1] * cy) / r);
    }
    cr_assert(worst > 1 - 1e-5, "min cos(normal, direction to the hole centre) = %.8f", worst);
    pf_point_set_release(&ps);
    pf_geom_free(g);
}

Test(geom, ball5_sphere_points_are_uniform_with_normal_x)
{
    pf_geom *g = ball5();
    pf_point_set ps = {0};
    cr_assert_eq(pf_sample_boundary(g, PF_SAMPLE_UNIFORM, NULL, 20000, 9, PF_SAMPLE_NORMALS, &ps), PF_OK);
    double m2[5] = {0}, dn = 0;
    for (int i = 0; i < ps.n; i++)
        for (int k = 0; k < 5; k++) {
            m2[k] += (double)ps.x[i * 5 + k] * ps.x[i * 5 + k];
            dn = fmax(dn, fabs(ps.normal[i * 5 + k] - ps.x[i * 5 + k]));
        }
    cr_assert(dn < 1e-6, "normal differs from x by %g on the unit sphere", dn);
    /* E x_k^2 = 1/5; sd of x_k^2 ~ 0.24, so 20000 points: within 0.006 */
    for (int k = 0; k < 5; k++)
        cr_assert(fabs(m2[k] / ps.n - 0.2) < 0.006, "E x_%d^2 = %.4f, expected 0.2", k,
                  m2[k] / ps.n);
    pf_point_set_release(&ps);
    pf_geom_free(g);
}

/* ---------------------------------------------------------------- measures */

Test(geom, boundary_shares_follow_part_measures)
{
    pf_geom *g = rect_2x1();
    pf_point_set ps = {0};
    cr_assert_eq(pf_sample_boundary(g, PF_SAMPLE_UNIFORM, NULL, 6000, 1, 0, &ps), PF_OK);
    int cnt[4] = {0};
    for (int i = 0; i < ps.n; i++) cnt[ps.part[i]]++;
    /* left, right: 1/6 each; bottom, top: 2/6 each (largest remainder: exact) */
    cr_assert(cnt[0] == 1000 && cnt[1] == 1000 && cnt[2] == 2000 && cnt[3] == 2000,
              "counts left %d right %d bottom %d top %d", cnt[0], cnt[1], cnt[2], cnt[3]);
    cr_assert(ps.normal == NULL, "normals were not asked for");
    pf_point_set_release(&ps);

    /* a subset: left + top share 1 : 2 */
    cr_assert_eq(pf_sample_boundary(g, PF_SAMPLE_UNIFORM, "top, x0_lo", 999, 1, 0, &ps), PF_OK, "%s", pf_errmsg());
    int left = 0;
    for (int i = 0; i < ps.n; i++) left += ps.part[i] == 0;
    cr_assert_eq(left, 333, "left got %d of 999", left);
    pf_point_set_release(&ps);
    pf_geom_free(g);
}

Test(geom, measures_and_volumes_match_closed_forms)
{
    pf_geom *g = heat_complex();
    int i1, i04, il;
    cr_assert_eq(pf_geom_part_find(g, "hole_r1", &i1), PF_OK);
    cr_assert_eq(pf_geom_part_find(g, "hole_r04", &i04), PF_OK);
    cr_assert_eq(pf_geom_part_find(g, "left", &il), PF_OK);
    cr_assert_eq(pf_geom_part_count(g), 6, "parts: 4 faces + 2 hole groups");
    cr_assert(fabs(pf_geom_part_measure(g, i1) - 22 * PI) < 1e-9, "r1 holes %g",
              pf_geom_part_measure(g, i1));
    cr_assert(fabs(pf_geom_part_measure(g, i04) - 4.8 * PI) < 1e-9);
    cr_assert(fabs(pf_geom_part_measure(g, il) - 24) < 1e-12);
    double area = 16 * 24 - 11 * PI - 6 * PI * 0.16;
    cr_assert(fabs(pf_geom_volume(g) - area) < 1e-9, "area %g, expected %g", pf_geom_volume(g),
              area);
    pf_geom_free(g);

    /* 5-ball: volume 8 pi^2 / 15, sphere 8 pi^2 / 3; times [0, 1] */
    g = heat5d();
    cr_assert(fabs(pf_geom_volume(g) - 8 * PI * PI / 15) < 1e-12);
    cr_assert(fabs(pf_geom_part_measure(g, 0) - 8 * PI * PI / 3) < 1e-12);
    cr_assert(!strcmp(pf_geom_part_name(g, 0), "sphere") &&
              !strcmp(pf_geom_part_name(g, 1), "initial") &&
              !strcmp(pf_geom_part_name(g, 2), "final") && pf_geom_part_is_time_face(g, 1));
    cr_assert(fabs(pf_geom_part_measure(g, 1) - 8 * PI * PI / 15) < 1e-12);
    pf_geom_free(g);

    /* backstep polygon: walls 4 + 2 + 1 + 2, outlet 2, inlet 1; area 6 */
    g = backstep();
    cr_assert_eq(pf_geom_part_count(g), 3);
    cr_assert(!strcmp(pf_geom_part_name(g, 0), "wall") && pf_geom_part_measure(g, 0) == 9 &&
              pf_geom_part_measure(g, 1) == 2 && pf_geom_part_measure(g, 2) == 1);
    cr_assert(fabs(pf_geom_volume(g) - 6) < 1e-12);
    pf_geom_free(g);
}

Test(geom, clipped_csg_parts_are_measured_and_seams_dropped)
{
    pf_geom *g = backstep_csg();
    int i;
    /* the cut box's left and top faces lie on the outer boundary: gone */
    cr_assert_eq(pf_geom_part_find(g, "seam_l", &i), PF_ERR_INVALID);
    cr_assert_eq(pf_geom_part_find(g, "seam_t", &i), PF_ERR_INVALID);
    static const struct { const char *name; double m; } want[] = {
        {"left", 1}, {"right", 2}, {"bottom", 4}, {"top", 2}, {"step_face", 1}, {"step_top", 2}};
    for (int k = 0; k < 6; k++) {
        cr_assert_eq(pf_geom_part_find(g, want[k].name, &i), PF_OK, "%s", pf_errmsg());
        cr_assert(fabs(pf_geom_part_measure(g, i) - want[k].m) < 0.03 * want[k].m,
                  "%s measures %g, expected %g", want[k].name, pf_geom_part_measure(g, i),
                  want[k].m);
    }
    cr_assert(fabs(pf_geom_volume(g) - 6) < 0.01, "area %g, expected 6", pf_geom_volume(g));
    pf_geom_free(g);

    g = two_squares();
    double total = 0;
    for (int p = 0; p < pf_geom_part_count(g); p++) total += pf_geom_part_measure(g, p);
    cr_assert(fabs(total - 12) < 0.12, "union perimeter %g, expected 12", total);
    cr_assert(fabs(pf_geom_volume(g) - 7) < 0.01, "union area %g, expected 7", pf_geom_volume(g));
    pf_geom_free(g);
}

/* ---------------------------------------------------------------- determinism */

Test(geom, samplers_are_deterministic_per_seed)
{
    pf_geom *gs[2] = {box5(), heat_complex()};
    for (int s = 0; s < 2; s++)
        for (int m = 0; m < PF_SAMPLE_GRID; m++) {
            pf_point_set a = {0}, b = {0}, c = {0};
            cr_assert_eq(pf_sample_interior(gs[s], m, 1000, 42, &a), PF_OK);
            cr_assert_eq(pf_sample_interior(gs[s], m, 1000, 42, &b), PF_OK);
            cr_assert_eq(pf_sample_interior(gs[s], m, 1000, 43, &c), PF_OK);
            cr_assert(same_set(&a, &b), "%s: same seed, different points",
                      pf_sample_method_name(m));
            cr_assert(!same_set(&a, &c), "%s: different seeds, same points",
                      pf_sample_method_name(m));
            pf_point_set_release(&a);
            pf_point_set_release(&b);
            pf_point_set_release(&c);
        }
    pf_point_set a = {0}, b = {0}, c = {0};
    cr_assert_eq(pf_sample_boundary(gs[1], PF_SAMPLE_UNIFORM, NULL, 1000, 42, PF_SAMPLE_NORMALS, &a), PF_OK);
    cr_assert_eq(pf_sample_boundary(gs[1], PF_SAMPLE_UNIFORM, NULL, 1000, 42, PF_SAMPLE_NORMALS, &b), PF_OK);
    cr_assert_eq(pf_sample_boundary(gs[1], PF_SAMPLE_UNIFORM, NULL, 1000, 43, PF_SAMPLE_NORMALS, &c), PF_OK);
    cr_assert(same_set(&a, &b) && !memcmp(a.normal, b.normal, sizeof(pf_real) * 2000) &&
              !same_set(&a, &c), "boundary sampling is not a function of the seed");
    cr_assert_eq(pf_sample_interior(gs[0], PF_SAMPLE_GRID, 1000, 1, &a), PF_OK);
    cr_assert_eq(pf_sample_interior(gs[0], PF_SAMPLE_GRID, 1000, 2, &b), PF_OK);
    cr_assert(same_set(&a, &b), "a grid does not depend on the seed");
    pf_point_set_release(&a);
    pf_point_set_release(&b);
    pf_point_set_release(&c);
    pf_geom_free(gs[0]);
    pf_geom_free(gs[1]);
}

Test(geom, lhs_has_one_point_per_stratum_per_axis)
{
    pf_geom *g = NULL;
    double lo[3] = {-1, 0, 2.5}, hi[3] = {2, 0.1, 7};
    cr_assert_eq(pf_geom_box_alloc(3, lo, hi, NULL, &g), PF_OK);
    int n = 997;
    pf_point_set ps = {0};
    cr_assert_eq(pf_sample_interior(g, PF_SAMPLE_LHS, n, 5, &ps), PF_OK);
    int *hit = calloc((size_t)n, sizeof *hit);
    for (int k = 0; k < 3; k++) {
        memset(hit, 0, (size_t)n * sizeof *hit);
        int bad = 0;
        for (int i = 0; i < n; i++) {
            int s = (int)floor(((double)ps.x[i * 3 + k] - lo[k]) / (hi[k] - lo[k]) * n);
            if (s < 0 || s >= n || hit[s]++) bad++;
        }
        cr_assert_eq(bad, 0, "axis %d: %d points share a stratum or leave the box", k, bad);
    }
    free(hit);
    pf_point_set_release(&ps);
    pf_geom_free(g);
}

/* The 1-D projections of the first 2^m Sobol points are (0, m, 1)-nets, and a
 * digital shift keeps that: each of 1024 strata per axis holds one point. */
Test(geom, sobol_first_power_of_two_points_stratify_every_axis)
{
    pf_geom *g = box_nd(4, 0, 1);
    for (uint64_t seed = 0; seed < 3; seed++) {
        pf_point_set ps = {0};
        cr_assert_eq(pf_sample_interior(g, PF_SAMPLE_SOBOL, 1024, seed, &ps), PF_OK);
        for (int k = 0; k < 4; k++) {
            int hit[1024] = {0}, bad = 0;
            for (int i = 0; i < 1024; i++) bad += hit[(int)floor(ps.x[i * 4 + k] * 1024.0)]++ > 0;
            cr_assert_eq(bad, 0, "seed %d axis %d: %d strata hit twice", (int)seed, k, bad);
        }
        pf_point_set_release(&ps);
    }
    pf_geom_free(g);
}

/* The radical inverse of i in base b, the slow way: digit by digit. */
static double phi(unsigned long i, unsigned b)
{
    double r = 0, f = 1.0 / b;
    for (; i; i /= b, f /= b) r += (double)(i % b) * f;
    return r;
}

/* Hammersley (DeepXDE's convention): point i of n is, with j = i + 1,
 * (phi_2(j), ..., phi_{p_{d-2}}(j), j / (n + 1)); in 1-D phi_2(j). First
 * points by hand, then the closed form for all, in 1, 2 and 3 dimensions
 * and on a box that is not the unit cube. */
Test(geom, hammersley_points_are_the_radical_inverse_closed_form)
{
    pf_geom *g2 = box_nd(2, 0, 1), *g3 = box_nd(3, 0, 1), *g1 = box_nd(1, 0, 1);
    pf_point_set ps = {0};
    cr_assert_eq(pf_sample_interior(g2, PF_SAMPLE_HAMMERSLEY, 8, 0, &ps), PF_OK, "%s", pf_errmsg());
    const double want2[5][2] = {{0.5, 1 / 9.0}, {0.25, 2 / 9.0}, {0.75, 3 / 9.0}, {0.125, 4 / 9.0}, {0.625, 5 / 9.0}};
    for (int i = 0; i < 5; i++)
        for (int k = 0; k < 2; k++)
            cr_assert_float_eq(ps.x[2 * i + k], want2[i][k], 1e-7, "2-D point %d axis %d: %.9g", i, k, ps.x[2 * i + k]);
    cr_assert_eq(pf_sample_interior(g3, PF_SAMPLE_HAMMERSLEY, 10, 0, &ps), PF_OK, "%s", pf_errmsg());
    const double want3[5][3] = {{0.5, 1 / 3.0, 1 / 11.0}, {0.25, 2 / 3.0, 2 / 11.0}, {0.75, 1 / 9.0, 3 / 11.0},
                                {0.125, 4 / 9.0, 4 / 11.0}, {0.625, 7 / 9.0, 5 / 11.0}};
    for (int i = 0; i < 5; i++)
        for (int k = 0; k < 3; k++)
            cr_assert_float_eq(ps.x[3 * i + k], want3[i][k], 1e-7, "3-D point %d axis %d: %.9g", i, k, ps.x[3 * i + k]);
    /* every point of larger sets, and a box [-1, 2] x [0, 0.1] x [2.5, 7] */
    double lo[3] = {-1, 0, 2.5}, hi[3] = {2, 0.1, 7};
    pf_geom *gb = NULL;
    cr_assert_eq(pf_geom_box_alloc(3, lo, hi, NULL, &gb), PF_OK);
    const pf_geom *gs[4] = {g1, g2, g3, gb};
    for (int c = 0; c < 4; c++) {
        int d = pf_geom_dim(gs[c]), n = 777;
        cr_assert_eq(pf_sample_interior(gs[c], PF_SAMPLE_HAMMERSLEY, n, 0, &ps), PF_OK, "%s", pf_errmsg());
        cr_assert_eq(ps.n, n);
        double l[3], h[3];
        pf_geom_bbox(gs[c], l, h);
        int bad = 0;
        for (int i = 0; i < n; i++)
            for (int k = 0; k < d; k++) {
                unsigned pr[2] = {2, 3};
                double u = d == 1 ? phi((unsigned long)i + 1, 2)
                           : k < d - 1 ? phi((unsigned long)i + 1, pr[k])
                                       : (double)(i + 1) / (n + 1);
                bad += fabs(ps.x[i * d + k] - (l[k] + u * (h[k] - l[k]))) > 1e-6 * fmax(1, fabs(h[k]));
            }
        cr_assert_eq(bad, 0, "case %d (%d-D): %d coordinates differ from the closed form", c, d, bad);
    }
    /* no seed: a grid-like, seed-independent set */
    pf_point_set a = {0};
    cr_assert_eq(pf_sample_interior(g3, PF_SAMPLE_HAMMERSLEY, 100, 1, &a), PF_OK);
    cr_assert_eq(pf_sample_interior(g3, PF_SAMPLE_HAMMERSLEY, 100, 2, &ps), PF_OK);
    cr_assert(same_set(&a, &ps), "hammersley depends on the seed");
    pf_point_set_release(&a);
    pf_point_set_release(&ps);
    pf_geom_free(g1);
    pf_geom_free(g2);
    pf_geom_free(g3);
    pf_geom_free(gb);
}

/* The last axis: each of the n strata holds exactly one point. A base-p
 * axis: any p^m consecutive indices hit each of the p^m strata once, so
 * with n >= p^m every stratum is hit: 2^9 on axis 0, 3^6 on axis 1 of 1000
 * points. The initial slice of a box x time is the Hammersley set of its
 * space (1-D: the base-2 van der Corput points, every one of 2^9 strata). */
Test(geom, hammersley_hits_every_stratum)
{
    pf_geom *g = box_nd(3, 0, 1);
    int n = 1000;
    pf_point_set ps = {0};
    cr_assert_eq(pf_sample_interior(g, PF_SAMPLE_HAMMERSLEY, n, 0, &ps), PF_OK);
    int strata[3] = {512, 729, 1000};
    int *hit = calloc((size_t)n, sizeof *hit);
    for (int k = 0; k < 3; k++) {
        memset(hit, 0, (size_t)n * sizeof *hit);
        for (int i = 0; i < n; i++) {
            /* a base-3 point k/729 may round just below its stratum's edge in float */
            int s = (int)floor(ps.x[i * 3 + k] * strata[k] + (k < 2 ? 1e-3 : 0));
            cr_assert(s >= 0 && s < strata[k], "axis %d: point %d outside [0, 1)", k, i);
            hit[s]++;
        }
        int empty = 0, twice = 0;
        for (int s = 0; s < strata[k]; s++) empty += hit[s] == 0, twice += hit[s] > 1;
        cr_assert_eq(empty, 0, "axis %d: %d of %d strata empty", k, empty, strata[k]);
        if (k == 2) cr_assert_eq(twice, 0, "last axis: %d strata hit twice", twice);
    }
    pf_point_set_release(&ps);
    pf_geom_free(g);
    pf_geom *st = NULL;
    cr_assert_eq(pf_geom_space_time_alloc(box_nd(1, -1, 1), 0, 1, &st), PF_OK);
    cr_assert_eq(pf_sample_initial(st, PF_SAMPLE_HAMMERSLEY, 600, 0, 0, &ps), PF_OK);
    memset(hit, 0, (size_t)n * sizeof *hit);
    for (int i = 0; i < ps.n; i++) hit[(int)floor((ps.x[2 * i] + 1) / 2 * 512)]++;
    int empty = 0;
    for (int s = 0; s < 512; s++) empty += hit[s] == 0;
    cr_assert_eq(empty, 0, "initial slice: %d of 512 strata empty", empty);
    cr_assert_float_eq(ps.x[0], 0.0, 1e-7, "phi_2(1) = 1/2 maps to x = 0");
    free(hit);
    pf_point_set_release(&ps);
    pf_geom_free(st);
}

/* The largest gap between consecutive values of v[0..n-1] (sorted here) on
 * a circle of length L. */
static int dcmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double max_circular_gap(double *v, int n, double L)
{
    qsort(v, (size_t)n, sizeof *v, dcmp);
    double gap = v[0] + L - v[n - 1];
    for (int i = 1; i < n; i++) gap = fmax(gap, v[i] - v[i - 1]);
    return gap;
}

/* The perimeter parameter of a point of [0,1]^2's boundary: bottom 0..1,
 * right 1..2, top 2..3, left 3..4 (counter-clockwise). */
static double perimeter_s(double x, double y)
{
    if (y == 0) return x;
    if (x == 1) return 1 + y;
    if (y == 1) return 3 - x;
    return 4 - y;
}

/* Hammersley boundary points are low-discrepancy along the boundary: on a
 * square's perimeter and a circle the largest gap is under 4 L / n, far
 * below the ~L ln(n) / n of uniform draws, and each side gets its exact
 * share, every 1/128 stratum of it hit. */
Test(geom, hammersley_boundary_points_are_evenly_spread)
{
    enum { N = 1000 };
    double *s = malloc(N * sizeof *s);
    pf_geom *sq = box_nd(2, 0, 1);
    double gap[2];
    for (int m = 0; m < 2; m++) {
        pf_point_set ps = {0};
        pf_sample_method meth = m ? PF_SAMPLE_HAMMERSLEY : PF_SAMPLE_UNIFORM;
        cr_assert_eq(pf_sample_boundary(sq, meth, NULL, N, 3, 0, &ps), PF_OK, "%s", pf_errmsg());
        int per_side[4] = {0}, hit[4][128] = {{0}};
        for (int i = 0; i < N; i++) {
            double x = ps.x[2 * i], y = ps.x[2 * i + 1];
            cr_assert(x == 0 || x == 1 || y == 0 || y == 1, "point %d (%g, %g) is off the perimeter", i, x, y);
            s[i] = perimeter_s(x, y);
            int side = (int)fmin(3, floor(s[i]));
            per_side[side]++;
            hit[side][(int)fmin(127, floor((side % 2 ? y : x) * 128))]++; /* the face's own axis */
        }
        for (int k = 0; k < 4; k++) cr_assert_eq(per_side[k], N / 4, "side %d has %d points", k, per_side[k]);
        int empty = 0;
        for (int k = 0; m && k < 4; k++)
            for (int j = 0; j < 128; j++) empty += !hit[k][j];
        cr_assert_eq(empty, 0, "hammersley: %d of 512 strata of the perimeter are empty", empty);
        gap[m] = max_circular_gap(s, N, 4);
        pf_point_set_release(&ps);
    }
    cr_assert(gap[1] < 4 * 4.0 / N, "hammersley's largest perimeter gap %g is not below 4 L / n", gap[1]);
    cr_assert(gap[1] < 0.5 * gap[0], "hammersley's largest gap %g is not well below uniform's %g", gap[1],
              gap[0]);
    pf_geom_free(sq);

    /* a circle: the angles of DeepXDE's Disk, 2 pi phi_2(j) */
    pf_geom *dk = disk();
    pf_point_set ps = {0};
    cr_assert_eq(pf_sample_boundary(dk, PF_SAMPLE_HAMMERSLEY, NULL, N, 3, PF_SAMPLE_NORMALS, &ps), PF_OK);
    for (int i = 0; i < N; i++) {
        s[i] = atan2(ps.normal[2 * i + 1], ps.normal[2 * i]);
        if (s[i] < 0) s[i] += 2 * PI;
    }
    cr_assert_float_eq(ps.x[0], 0.5 - 2.0, 1e-6, "phi_2(1) = 1/2: the angle pi, x = cx - r");
    double g = max_circular_gap(s, N, 2 * PI);
    cr_assert(g < 4 * 2 * PI / N, "circle: largest angular gap %g", g);
    pf_point_set_release(&ps);
    pf_geom_free(dk);
    free(s);
}

/* On space x time the time of a spatial part is the set's last coordinate:
 * on a square x time face, one point in each of the count strata of [0, 1];
 * on an end of burgers' interval, where t is the only coordinate, t =
 * phi_2(j) as DeepXDE's 1-D set (every 1/128 stratum hit by 200); the initial part drawn by pf_sample_boundary is
 * pf_sample_initial's Hammersley slice; and a Hammersley boundary takes no
 * seed, while the uniform draws still move with it. */
Test(geom, hammersley_boundary_times_stratify_and_ignore_the_seed)
{
    pf_geom *g = burgers();
    pf_point_set ps = {0}, ic = {0}, other = {0};
    cr_assert_eq(pf_sample_boundary(g, PF_SAMPLE_HAMMERSLEY, NULL, 400, 1, 0, &ps), PF_OK, "%s", pf_errmsg());
    int hit[2][128] = {{0}};
    for (int i = 0; i < ps.n; i++) {
        double x = ps.x[2 * i], t = ps.x[2 * i + 1];
        cr_assert(x == -1 || x == 1, "point %d: x = %g", i, x);
        hit[x > 0][(int)floor(t * 128)]++;
    }
    for (int e = 0; e < 2; e++)
        for (int k = 0; k < 128; k++) cr_assert(hit[e][k] >= 1, "end %d: time stratum %d is empty", e, k);
    pf_geom *sqt = NULL;
    cr_assert_eq(pf_geom_space_time_alloc(box_nd(2, 0, 1), 0, 1, &sqt), PF_OK);
    cr_assert_eq(pf_sample_boundary(sqt, PF_SAMPLE_HAMMERSLEY, "x0_lo", 300, 1, 0, &other), PF_OK, "%s",
                 pf_errmsg());
    int th[300] = {0};
    for (int i = 0; i < other.n; i++) th[(int)floor(other.x[3 * i + 2] * 300)]++;
    for (int k = 0; k < 300; k++) cr_assert_eq(th[k], 1, "square x time: time stratum %d holds %d", k, th[k]);
    pf_geom_free(sqt);
    cr_assert_eq(pf_sample_boundary(g, PF_SAMPLE_HAMMERSLEY, NULL, 400, 99, 0, &other), PF_OK);
    cr_assert(same_set(&ps, &other), "a Hammersley boundary depends on the seed");
    cr_assert_eq(pf_sample_boundary(g, PF_SAMPLE_HAMMERSLEY, "initial", 300, 1, 0, &ps), PF_OK);
    cr_assert_eq(pf_sample_initial(g, PF_SAMPLE_HAMMERSLEY, 300, 7, 0, &ic), PF_OK);
    cr_assert(same_set(&ps, &ic), "the initial part and the initial slice differ");
    cr_assert_eq(pf_sample_boundary(g, PF_SAMPLE_UNIFORM, NULL, 400, 1, 0, &ps), PF_OK);
    cr_assert_eq(pf_sample_boundary(g, PF_SAMPLE_UNIFORM, NULL, 400, 2, 0, &other), PF_OK);
    cr_assert(!same_set(&ps, &other), "uniform boundary draws ignore the seed");
    pf_point_set_release(&ps);
    pf_point_set_release(&ic);
    pf_point_set_release(&other);
    pf_geom_free(g);
}

/* A clipped piece (the step face of the backstep as a box minus a box, and
 * holes clipped by nothing) keeps its exact share under Hammersley, as with
 * uniform draws: the counts per part agree between the two methods. */
Test(geom, hammersley_boundary_keeps_the_shares_of_clipped_pieces)
{
    pf_geom *gs[3] = {backstep_csg(), two_squares(), poisson_3d()};
    for (int s = 0; s < 3; s++) {
        pf_point_set a = {0}, b = {0};
        cr_assert_eq(pf_sample_boundary(gs[s], PF_SAMPLE_UNIFORM, NULL, 999, 1, 0, &a), PF_OK);
        cr_assert_eq(pf_sample_boundary(gs[s], PF_SAMPLE_HAMMERSLEY, NULL, 999, 1, 0, &b), PF_OK, "%s",
                     pf_errmsg());
        cr_assert_eq(a.n, b.n);
        for (int i = 0; i < a.n; i++) cr_assert_eq(a.part[i], b.part[i], "shape %d: point %d's part", s, i);
        pf_point_set_release(&a);
        pf_point_set_release(&b);
        pf_geom_free(gs[s]);
    }
}

/* ---------------------------------------------------------------- grids */

Test(geom, grid_has_the_requested_counts_and_coordinates)
{
    pf_geom *g = rect_2x1();
    pf_point_set ps = {0};
    cr_assert_eq(pf_sample_grid(g, (int[]){5, 3}, PF_GRID_INTERIOR, &ps), PF_OK);
    cr_assert_eq(ps.n, 15);
    /* C order: point (i, j) at row 3 i + j: x = 2 (i+1)/6, y = (j+1)/4 */
    cr_assert(fabs(ps.x[2 * 7] - 2.0 * 3 / 6) < 1e-6 && fabs(ps.x[2 * 7 + 1] - 2.0 / 4) < 1e-6);
    cr_assert_eq(pf_sample_grid(g, (int[]){5, 3}, PF_GRID_CLOSED, &ps), PF_OK);
    cr_assert(ps.n == 15 && ps.x[0] == 0 && ps.x[1] == 0 && ps.x[28] == 2 && ps.x[29] == 1);
    cr_assert_eq(pf_sample_grid(g, (int[]){4, 2}, PF_GRID_CELL, &ps), PF_OK);
    cr_assert(ps.n == 8 && fabs(ps.x[0] - 0.25) < 1e-7 && fabs(ps.x[1] - 0.25) < 1e-7);
    cr_assert_eq(pf_sample_grid(g, (int[]){5, 1}, PF_GRID_CLOSED, &ps), PF_ERR_INVALID);
    pf_geom_free(g);

    /* a grid on a disk keeps exactly the grid points inside: the 4 corners of
     * its bbox go, the 4 edge midpoints lie on the circle and stay */
    g = disk();
    cr_assert_eq(pf_sample_grid(g, (int[]){3, 3}, PF_GRID_CLOSED, &ps), PF_OK);
    cr_assert_eq(ps.n, 5, "a closed 3x3 grid on a disk's bbox has 5 points in it, got %d", ps.n);
    pf_point_set_release(&ps);
    pf_geom_free(g);
}

/* The evaluation sets docs/pdes.md 0.3 lists for PINNacle's analytic problems. */
Test(geom, pinnacle_grids_reproduce_the_documented_sets)
{
    pf_point_set ps = {0};
    pf_geom *g = box5(); /* poisson_5d: 8^5, x_i in {k/9} */
    cr_assert_eq(pf_sample_grid_pinnacle(g, 20000, &ps), PF_OK);
    cr_assert_eq(ps.n, 32768);
    cr_assert(fabs(ps.x[0] - 1.0 / 9) < 1e-7 && fabs(ps.x[5 * 32767 + 4] - 8.0 / 9) < 1e-7);
    pf_geom_free(g);

    g = NULL; /* wave_1d as a plain (x, t) box: 50 x 50 at k/51 */
    cr_assert_eq(pf_geom_box_alloc(2, (double[]){0, 0}, (double[]){1, 1}, NULL, &g), PF_OK);
    cr_assert_eq(pf_sample_grid_pinnacle(g, 2500, &ps), PF_OK);
    cr_assert(ps.n == 2500 && fabs(ps.x[2] - 1.0 / 51) < 1e-7 && fabs(ps.x[3] - 2.0 / 51) < 1e-7);
    pf_geom_free(g);

    /* the PDE itself evaluates on that box grid, as PINNacle does, not on the
     * space-time branch its (x, t) geometry would take (t = 1, .., 0.02) */
    const pf_pde *wave;
    pf_reference r;
    cr_assert_eq(pf_pdes_lookup("wave_1d", &wave), PF_OK);
    cr_assert_eq(pf_pde_reference(wave, &r), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(r.n, 2500);
    for (int i = 0; i < r.n; i++)
        for (int j = 0; j < 2; j++) {
            double want = (j == 0 ? i / 50 + 1 : i % 50 + 1) / 51.0; /* x-major, k/51 on both axes */
            cr_assert(fabs(r.x[2 * i + j] - want) < 1e-6, "point %d input %d: %g, want %g", i, j, r.x[2 * i + j], want);
        }
    pf_reference_release(&r);

    /* heat_2d_multiscale: 8 x 8 interior grid x 313 levels t = 5 (1 - m/313) */
    pf_geom *s = NULL;
    pf_geom_box_alloc(2, (double[]){0, 0}, (double[]){1, 1}, NULL, &s);
    cr_assert_eq(pf_geom_space_time_alloc(s, 0, 5, &g), PF_OK);
    cr_assert_eq(pf_sample_grid_pinnacle(g, 20000, &ps), PF_OK);
    cr_assert_eq(ps.n, 20032);
    cr_assert(ps.x[2] == 5 && fabs(ps.x[3 * 64 + 2] - 5 * (1 - 1.0 / 313)) < 1e-6 &&
              fabs(ps.x[3 * 20031 + 2] - 5.0 / 313) < 1e-6);
    pf_geom_free(g);

    /* heat_inverse_2d: 17 x 17 at -1 + k/9 x 71 levels */
    pf_geom_box_alloc(2, (double[]){-1, -1}, (double[]){1, 1}, NULL, &s);
    cr_assert_eq(pf_geom_space_time_alloc(s, 0, 1, &g), PF_OK);
    cr_assert_eq(pf_sample_grid_pinnacle(g, 20000, &ps), PF_OK);
    cr_assert_eq(ps.n, 20519);
    cr_assert(fabs(ps.x[0] - (-1 + 1.0 / 9)) < 1e-7);
    pf_geom_free(g);

    g = ball5();
    cr_assert_eq(pf_sample_grid_pinnacle(g, 100, &ps), PF_ERR_UNSUPPORTED);
    pf_geom_free(g);
    pf_point_set_release(&ps);
}

/* ---------------------------------------------------------------- space x time */

Test(geom, space_time_interior_and_boundary_times_are_in_range)
{
    pf_geom *g = complex_time();
    pf_point_set ps = {0};
    for (int m = 0; m < PF_SAMPLE_METHOD_COUNT; m++) {
        cr_assert_eq(pf_sample_interior(g, m, 2000, 1, &ps), PF_OK, "%s", pf_errmsg());
        int bad = 0;
        for (int i = 0; i < ps.n; i++) bad += !(ps.x[3 * i + 2] >= 0 && ps.x[3 * i + 2] <= 3);
        cr_assert_eq(bad, 0, "%s: %d times outside [0, 3]", pf_sample_method_name(m), bad);
    }
    cr_assert_eq(pf_sample_boundary(g, PF_SAMPLE_UNIFORM, NULL, 3000, 1, PF_SAMPLE_NORMALS, &ps), PF_OK);
    int bad_t = 0, bad_n = 0, time_face = 0;
    for (int i = 0; i < ps.n; i++) {
        bad_t += !(ps.x[3 * i + 2] >= 0 && ps.x[3 * i + 2] <= 3);
        bad_n += ps.normal[3 * i + 2] != 0;
        time_face += pf_geom_part_is_time_face(g, ps.part[i]);
    }
    cr_assert_eq(bad_t, 0, "%d spatial boundary times outside [0, 3]", bad_t);
    cr_assert_eq(bad_n, 0, "%d spatial normals with a time component", bad_n);
    cr_assert_eq(time_face, 0, "the default selection took %d time-face points", time_face);
    pf_point_set_release(&ps);
    pf_geom_free(g);
}

Test(geom, initial_points_sit_at_t0_with_normal_minus_t)
{
    pf_geom *g = heat5d();
    pf_point_set ps = {0};
    for (int m = 0; m < PF_SAMPLE_METHOD_COUNT; m++) {
        cr_assert_eq(pf_sample_initial(g, m, 1000, 2, PF_SAMPLE_NORMALS, &ps), PF_OK, "%s",
                     pf_errmsg());
        int bad = 0;
        for (int i = 0; i < ps.n; i++) {
            double r2 = 0;
            for (int k = 0; k < 5; k++) r2 += (double)ps.x[6 * i + k] * ps.x[6 * i + k];
            bad += ps.x[6 * i + 5] != 0 || r2 > 1 + 1e-6 || ps.normal[6 * i + 5] != -1 ||
                   ps.normal[6 * i] != 0 || strcmp(pf_geom_part_name(g, ps.part[i]), "initial");
        }
        cr_assert(ps.n > 0 && bad == 0, "%s: %d bad initial points of %d",
                  pf_sample_method_name(m), bad, ps.n);
    }
    /* the same slice from pf_sample_boundary, and "final" at t1 */
    cr_assert_eq(pf_sample_boundary(g, PF_SAMPLE_UNIFORM, "initial,final", 1000, 2, PF_SAMPLE_NORMALS, &ps), PF_OK);
    int bad = 0;
    for (int i = 0; i < ps.n; i++) {
        bool fin = !strcmp(pf_geom_part_name(g, ps.part[i]), "final");
        bad += ps.x[6 * i + 5] != (fin ? 1 : 0) || ps.normal[6 * i + 5] != (fin ? 1 : -1);
    }
    cr_assert(ps.n == 1000 && bad == 0, "%d bad time-face points", bad);
    pf_point_set_release(&ps);

    pf_geom *box = box_nd(2, 0, 1);
    cr_assert_eq(pf_sample_initial(box, PF_SAMPLE_UNIFORM, 10, 1, 0, &ps), PF_ERR_INVALID);
    pf_geom_free(box);
    pf_geom_free(g);
}

/* ---------------------------------------------------------------- queries */

Test(geom, signed_distances_are_exact_on_primitives)
{
    pf_geom *g = rect_2x1();
    cr_assert(fabs(pf_geom_sdf(g, (double[]){0.5, 0.5}) + 0.5) < 1e-15);
    cr_assert(fabs(pf_geom_sdf(g, (double[]){3, 2}) - sqrt(2)) < 1e-15);
    pf_geom_free(g);
    g = backstep();
    cr_assert(fabs(pf_geom_sdf(g, (double[]){1, 0.5}) + 0.5) < 1e-15); /* below the step */
    cr_assert(fabs(pf_geom_sdf(g, (double[]){1, 1.5}) - 0.5) < 1e-15); /* in the cut-out */
    cr_assert(fabs(pf_geom_sdf(g, (double[]){1.5, 1.5}) - 0.5) < 1e-15);
    pf_geom_free(g);
    g = heat5d();
    cr_assert(fabs(pf_geom_sdf(g, (double[]){0.2, 0, 0, 0, 0, 0.5}) + 0.5) < 1e-15);
    cr_assert(fabs(pf_geom_sdf(g, (double[]){2, 0, 0, 0, 0, 2}) - sqrt(2)) < 1e-15);
    pf_geom_free(g);
}

/* ---------------------------------------------------------------- errors */

static void expect_invalid(pf_status st, const char *needle)
{
    cr_assert_eq(st, PF_ERR_INVALID, "expected PF_ERR_INVALID for '%s'", needle);
    cr_assert(strstr(pf_errmsg(), needle), "message '%s' does not name '%s'", pf_errmsg(),
              needle);
}

Test(geom, bad_arguments_fail_with_a_message_naming_them)
{
    pf_geom *g = (pf_geom *)1;
    expect_invalid(pf_geom_ball_alloc(2, (double[]){0, 0}, -1, NULL, &g), "radius -1");
    cr_assert_null(g);
    expect_invalid(pf_geom_box_alloc(2, (double[]){0, 1}, (double[]){1, 1}, NULL, &g), "axis 1");
    expect_invalid(pf_geom_polygon_alloc(2, (double[]){0, 0, 1, 1}, NULL, &g), "2 vertices");
    expect_invalid(pf_geom_polygon_alloc(4, (double[]){0, 0, 1, 1, 1, 0, 0, 1}, NULL, &g),
                   "not simple");
    expect_invalid(pf_geom_interval_alloc(1, 1, &g), "lo 1");
    expect_invalid(pf_geom_disk_alloc(0, 0, 1, "a,b", &g), "'a,b'");
    expect_invalid(pf_geom_ball_alloc(0, NULL, 1, NULL, &g), "dimension 0");

    pf_geom *r = rect_2x1();
    int i;
    expect_invalid(pf_geom_part_find(r, "inlet", &i), "'inlet'");
    cr_assert(strstr(pf_errmsg(), "left, right, bottom, top"), "%s", pf_errmsg());
    pf_point_set ps = {0};
    expect_invalid(pf_sample_boundary(r, PF_SAMPLE_UNIFORM, "left,outlet", 10, 1, 0, &ps), "'outlet'");
    cr_assert(ps.n == 0 && ps.x == NULL, "a failed sampler leaves the set empty");
    expect_invalid(pf_sample_interior(r, PF_SAMPLE_UNIFORM, -5, 1, &ps), "-5");
    pf_sample_method m;
    expect_invalid(pf_sample_method_from_name("halton", &m), "'halton'");

    /* a failed constructor inside a chain: its message survives every link */
    pf_geom *h = NULL;
    pf_geom_disk_alloc(0, 0, -2, "hole", &h);
    cr_assert_eq(pf_geom_difference_alloc(r, h, &r), PF_ERR_INVALID);
    cr_assert_null(r);
    pf_geom_disk_alloc(0, 0, 0.1, "hole", &h);
    cr_assert_eq(pf_geom_difference_alloc(r, h, &r), PF_ERR_INVALID);
    cr_assert(strstr(pf_errmsg(), "operand is NULL (last error: ball radius -2"), "message: %s",
              pf_errmsg());

    /* dimensions must agree; "initial" is reserved under space x time */
    pf_geom *a = box_nd(2, 0, 1), *b = box_nd(3, 0, 1);
    expect_invalid(pf_geom_union_alloc(a, b, &g), "dimension");
    pf_geom *c = box_nd(2, 0, 1);
    expect_invalid(pf_geom_union_alloc(c, c, &g), "itself");
    pf_geom *s = NULL;
    static const char *const faces[2] = {"initial", NULL};
    cr_assert_eq(pf_geom_box_alloc(1, (double[]){0}, (double[]){1}, faces, &s), PF_OK);
    expect_invalid(pf_geom_space_time_alloc(s, 0, 1, &g), "'initial'");
    expect_invalid(pf_geom_space_time_alloc(box_nd(1, 0, 1), 1, 0, &g), "[1, 0]");
}

Test(geom, sampler_and_grid_names_round_trip)
{
    for (int m = 0; m < PF_SAMPLE_METHOD_COUNT; m++) {
        pf_sample_method back = PF_SAMPLE_METHOD_COUNT;
        cr_assert_eq(pf_sample_method_from_name(pf_sample_method_name(m), &back), PF_OK);
        cr_assert_eq((int)back, m, "sampler '%s'", pf_sample_method_name(m));
    }
    for (int k = 0; k < PF_GRID_KIND_COUNT; k++) {
        pf_grid_kind back = PF_GRID_KIND_COUNT;
        cr_assert_eq(pf_grid_kind_from_name(pf_grid_kind_name(k), &back), PF_OK);
        cr_assert_eq((int)back, k, "grid '%s'", pf_grid_kind_name(k));
    }
    cr_assert_str_eq(pf_sample_method_name(PF_SAMPLE_METHOD_COUNT), "?");
}

/* `pf-pde sample`'s words: options in any order, "--opt VALUE" or
 * "--opt=VALUE", each value checked; --help ends the reading. */
static pf_status sample_args(pf_samples_args *a, int n, ...)
{
    char *words[8];
    va_list ap;
    va_start(ap, n);
    for (int i = 0; i < n; i++) words[i] = va_arg(ap, char *);
    va_end(ap);
    return pf_samples_parse_args(n, words, a);
}

static void expect_usage(pf_status st, const char *msg)
{
    cr_expect_eq(st, PF_ERR_USAGE);
    cr_expect_str_eq(pf_errmsg(), msg);
}

Test(geom, sample_arguments_fill_the_options_or_say_what_is_wrong)
{
    pf_samples_args a;
    cr_assert_eq(sample_args(&a, 6, "--out=p.h5", "burgers_1d", "--n", "12", "--method=sobol", "--seed=7"), PF_OK,
                 "%s", pf_errmsg());
    cr_expect_str_eq(a.name, "burgers_1d");
    cr_expect_str_eq(a.out, "p.h5");
    cr_expect_eq(a.opts.n, 12);
    cr_expect_eq(a.opts.seed, 7);
    cr_expect_eq(a.opts.method, PF_SAMPLE_SOBOL);
    cr_expect_eq(a.help, false);
    cr_assert_eq(sample_args(&a, 5, "w", "--n=3", "--out", "o.h5", "--seed"), PF_ERR_USAGE);
    cr_expect_str_eq(pf_errmsg(), "option '--seed' needs a value");
    cr_assert_eq(sample_args(&a, 4, "w", "--n=3", "--out=o.h5", "--help"), PF_OK);
    cr_expect(a.help);
    cr_assert_eq(sample_args(&a, 3, "--n=0", "--help", "--x"), PF_ERR_USAGE, "a fault before --help counts");
    cr_assert_eq(sample_args(&a, 4, "w", "--n", "3", "--out=o.h5"), PF_OK);
    cr_expect_eq(a.opts.seed, 0);
    cr_expect_eq(a.opts.method, PF_SAMPLE_UNIFORM);

    expect_usage(sample_args(&a, 2, "a", "b"), "sample takes one PDE name, got 'a' and 'b'");
    expect_usage(sample_args(&a, 2, "a", "--nn=1"), "unknown option '--nn=1' for sample");
    expect_usage(sample_args(&a, 2, "a", "--n=x"), "--n must be an integer from 1 to 134217728, not 'x'");
    expect_usage(sample_args(&a, 2, "a", "--out="), "--out needs a file name");
    expect_usage(sample_args(&a, 2, "a", "--seed=-1"), "--seed must be an integer from 0 to 2^64-1, not '-1'");
    cr_expect_eq(sample_args(&a, 2, "a", "--method=x"), PF_ERR_USAGE);
    cr_expect(!strncmp(pf_errmsg(), "--method: ", 10), "%s", pf_errmsg());
    expect_usage(sample_args(&a, 1, "--n=3"), "sample needs a PDE name; pf-pde list shows them");
    expect_usage(sample_args(&a, 1, "a"), "sample needs --n N");
    expect_usage(sample_args(&a, 2, "a", "--n=3"), "sample needs --out F.h5");
}
