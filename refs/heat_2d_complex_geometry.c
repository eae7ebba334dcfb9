/*
 * pf-ref-heat_2d_complex_geometry — the reference of heat_2d_complex_geometry
 * (`make refs`): P2 finite elements by FreeFEM (refs/heat_2d_complex_geometry.edp)
 * on the rectangle minus its 17 holes, the PDE's three Robin conditions,
 * BDF2 in time, at two resolutions (the fine one halves the mesh size and
 * the time steps).
 *
 *   pf-ref-heat_2d_complex_geometry --out F.dat --manifest F.json [--n N] [--substeps S]
 *
 * n sets the mesh: boundary segments of length h = 16/n on the rectangle
 * and h/4 on the circles (FreeFEM's mesher grades the triangles between),
 * each circle a regular polygon of the circle's perimeter (the script says why);
 * S is the time steps per 0.1 (the snapshot interval), with 8 times finer
 * steps ramping up over the first interval, where the Robin data meet
 * u = 0 (the script's header says how). FreeFem++ (Debian freefem++) must
 * be on PATH; without it the program says so and exits 2.
 *
 * Layout: docs/pdes.md gives the lost COMSOL file's times, 31 snapshots
 * t = 0, 0.1, ..., 3, but not its 13,312 nodes. So those times, and as
 * nodes the spatial points of the grid rule of docs/pdes.md 0.3 (n = 20000 for
 * three inputs) on the bounding box, 33 x 49, without the 169 inside a hole:
 * 1448 nodes. At t = 0 the file has the initial condition, 0. The solution
 * there is the P2 field evaluated at the points.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/file.h"
#include "geom/geometry.h"
#include "geom/sample.h"
#include "refs/freefem.h"
#include "refs/refs_out.h"
#include "registry.h"

#define PDE "heat_2d_complex_geometry"
#define EVAL_N 20000 /* the grid rule's requested points (three inputs) */
#define K 30         /* snapshot intervals: times 0, 0.1, ..., 3 */
#define FIRST 8      /* the first interval's steps are this much finer */
#define HOLES "4"    /* the circles' segments this much shorter than h */

/* The evaluation layout: nodes xy[node][2], times[K + 1] (0 first). */
typedef struct layout {
    int nodes;
    double *xy, times[K + 1];
} layout;

static pf_status layout_build(const pf_pde *p, layout *L)
{
    memset(L, 0, sizeof *L);
    pf_geom *box = NULL, *g = NULL;
    pf_point_set ps = {0};
    pf_status st = pf_pdes_box_geometry(p, &box);
    if (st == PF_OK) st = p->geometry(p, &g);
    if (st == PF_OK) st = pf_sample_grid_pinnacle(box, EVAL_N, &ps);
    int level = 0; /* the spatial points: the first time level */
    while (st == PF_OK && level < ps.n && ps.x[3 * level + 2] == ps.x[2]) level++;
    if (st == PF_OK) L->xy = malloc(sizeof(double) * 2 * level);
    if (st == PF_OK && !L->xy) st = pf_fail(PF_ERR_NOMEM, "out of memory for the layout");
    const pf_geom *space = st == PF_OK && pf_geom_space(g) ? pf_geom_space(g) : g;
    for (int q = 0; st == PF_OK && q < level; q++) {
        double x[2] = {ps.x[3 * q], ps.x[3 * q + 1]};
        if (pf_geom_sdf(space, x) < 0) L->xy[2 * L->nodes] = x[0], L->xy[2 * L->nodes + 1] = x[1], L->nodes++;
    }
    for (int k = 0; k <= K; k++) L->times[k] = p->lo[2] + k * (p->hi[2] - p->lo[2]) / K;
    pf_point_set_release(&ps);
    pf_geom_free(box), pf_geom_free(g);
    return st;
}

typedef struct run {
    long n, substeps;
    double dt, wall;
    long steps, vertices, dofs;
    double *u; /* [node][K + 1] */
} run;

/* The script's summary line "mesh <vertices> <triangles> <dofs> <steps> <factorisations>". */
static void read_summary(const char *log, run *r)
{
    FILE *f;
    if (pf_file_fopen(log, PF_FILE_LOG, &f) != PF_OK) f = NULL;
    char line[256];
    long tri, fac;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "mesh %ld %ld %ld %ld %ld", &r->vertices, &tri, &r->dofs, &r->steps, &fac) == 5) break;
    if (f) fclose(f);
}

static pf_status solve(const char *edp, const char *dir, const char *pts, const layout *L, run *r)
{
    char n[32], s[32], first[32], kk[32], out[PF_FF_PATH_MAX], log[PF_FF_PATH_MAX];
    snprintf(n, sizeof n, "%ld", r->n), snprintf(s, sizeof s, "%ld", r->substeps);
    snprintf(first, sizeof first, "%d", FIRST), snprintf(kk, sizeof kk, "%d", K);
    snprintf(out, sizeof out, "%s/u_%ld.txt", dir, r->n), snprintf(log, sizeof log, "%s/log_%ld.txt", dir, r->n);
    const char *args[] = {"-n", n, "-substeps", s, "-first", first, "-holes", HOLES, "-K", kk,
                          "-T", "3", "-pts", pts, "-out", out, NULL};
    r->dt = (L->times[K] - L->times[0]) / K / r->substeps;
    double t0 = pf_refs_now();
    pf_status st = pf_ff_run(edp, args, log);
    r->wall = pf_refs_now() - t0;
    pf_ff_table t = {0};
    if (st == PF_OK) st = pf_ff_table_read(out, &t);
    if (st == PF_OK && (t.rows != (size_t)L->nodes || t.cols != K))
        st = pf_fail(PF_ERR_INVALID, "%s: %zu x %d values, expected %d nodes x %d times", out, t.rows, t.cols,
                     L->nodes, K);
    if (st == PF_OK) r->u = malloc(sizeof(double) * L->nodes * (K + 1));
    if (st == PF_OK && !r->u) st = pf_fail(PF_ERR_NOMEM, "out of memory for %d nodes", L->nodes);
    for (int q = 0; st == PF_OK && q < L->nodes; q++) {
        r->u[(size_t)q * (K + 1)] = 0; /* the initial condition */
        for (int k = 0; k < K; k++) r->u[(size_t)q * (K + 1) + k + 1] = t.v[(size_t)q * K + k];
    }
    if (st == PF_OK) read_summary(log, r);
    pf_ff_table_free(&t);
    if (st == PF_OK) unlink(out), unlink(log); /* kept for a look on failure */
    return st;
}

static pf_status write_reference(const pf_pde *p, const layout *L, const pf_refs_args *a, const run *coarse,
                                 const run *fine)
{
    static const char *const space[2] = {"x", "y"}, *const names[1] = {"u"};
    pf_refs_text text;
    PF_TRY(pf_refs_snapshots_text((size_t)L->nodes, 2, space, L->xy, K + 1, L->times, 1, names, fine->u, &text));
    double conv = pf_refs_rel_l2(coarse->u, fine->u, (size_t)L->nodes * (K + 1));
    char lay[300], mesh[200];
    snprintf(lay, sizeof lay,
             "time snapshots (x, y, u@t, ...): PINNacle's 31 times t = 0, 0.1, .., 3 (docs/pdes.md 4); as nodes the "
             "grid rule of docs/pdes.md 0.3 with n = 20000 on the bounding box (33 x 49) less the points in holes: %d",
             L->nodes);
    snprintf(mesh, sizeof mesh,
             "coarse: %ld vertices, %ld P2 dofs; fine: %ld vertices, %ld P2 dofs (boundary segments 16/n on the "
             "rectangle, 4/n on the circles)",
             coarse->vertices, coarse->dofs, fine->vertices, fine->dofs);
    json_t *m = json_pack(
        "{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s}", "pde", p->name, "solver",
        "FreeFEM (refs/heat_2d_complex_geometry.edp): P2 Lagrange on a Delaunay mesh of the rectangle minus the "
        "17 disks (each circle a regular polygon with the circle's perimeter), BDF2 (variable steps: 8 times finer over the first 0.1, ratio <= 2, "
        "backward Euler first), UMFPACK; the P2 field evaluated at the points",
        "equation", "u_t = u_xx + u_yy, weakly with the Robin terms", "initial_condition", "u = 0",
        "boundary_condition",
        "du/dn = 5 - u on the radius-1 circles, 1 - u on the radius-0.4 ones, 0.1 - u on the rectangle "
        "(n out of the domain, into the holes)",
        "mesh", mesh, "layout", lay, "freefem", "FreeFem++ -nw -ne, from scripts/install-deps.sh's freefem++",
        "agreement",
        "against 37 nodes of PINNacle's COMSOL file at t = 0.5, 1, 2, 3 (data/checks/heat_2d_complex_geometry"
        ".comsol-sample.tsv; docs/pdes.md 4), interpolated from this file's grid: 1.5% relative L2 at n 32 / 64 "
        "(8% at t = 0.5, 0.8% at t = 3), 1.4% at n 8 / 16: the same problem, the rest the grid's interpolation "
        "(tests/t1125-refs-agreement.sh)");
    pf_refs_run rc = {coarse->n, coarse->dt, coarse->steps, coarse->wall};
    pf_refs_run rf = {fine->n, fine->dt, fine->steps, fine->wall};
    pf_status st = pf_refs_finish(p->name, a, m, &text, &rc, &rf, conv);
    json_decref(m);
    return st;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: pf-ref-" PDE " --out F.dat --manifest F.json [--n N] [--substeps S]\n"
               "  P2 finite elements by FreeFem++ (refs/" PDE ".edp) at mesh size 16/N (default N 32)\n"
               "  and S BDF2 steps per 0.1 (default 4), then at 16/(2N) and 2S; writes the finer\n"
               "  solution at 1448 nodes x 31 times and a manifest with the two runs' difference.\n"
               "  Needs FreeFem++ on PATH (Debian package freefem++) or in $PF_FREEFEM.\n");
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        }
    pf_refs_args a = {.n = 32, .substeps = 4};
    char edp[PF_FF_PATH_MAX];
    pf_status st = pf_refs_parse_args(argc, argv, &a);
    if (st == PF_OK && a.n > 512) st = pf_fail(PF_ERR_USAGE, "--n %ld: at most 512", a.n);
    if (st == PF_OK) st = pf_ff_prepare(PDE ".edp", edp, sizeof edp);
    if (st != PF_OK) {
        fprintf(stderr, "pf-ref-" PDE ": %s\n", pf_errmsg());
        if (st == PF_ERR_USAGE) usage(stderr);
        return 2;
    }
    const pf_pde *p;
    layout L = {0};
    run coarse = {.n = a.n, .substeps = a.substeps}, fine = {.n = 2 * a.n, .substeps = 2 * a.substeps};
    pf_ff_work w = {0};
    st = pf_pdes_lookup(PDE, &p);
    if (st == PF_OK) st = layout_build(p, &L);
    if (st == PF_OK) st = pf_ff_work_open(&w, "heat", (size_t)L.nodes, 2, L.xy);
    if (st == PF_OK) st = solve(edp, w.dir, w.pts, &L, &coarse);
    if (st == PF_OK) st = solve(edp, w.dir, w.pts, &L, &fine);
    if (st == PF_OK) st = write_reference(p, &L, &a, &coarse, &fine);
    pf_ff_work_close(&w);
    free(coarse.u), free(fine.u), free(L.xy);
    if (st != PF_OK) fprintf(stderr, "pf-ref-" PDE ": %s\n", pf_errmsg());
    return st == PF_OK ? 0 : 1;
}
