/*
 * pf-ref-navier_stokes_2d_long_time — the reference of
 * navier_stokes_2d_long_time (`make refs`): Taylor-Hood P2/P1 finite
 * elements by FreeFEM (refs/navier_stokes_2d_long_time.edp) on [0,2] x [0,1],
 * the pulsating inlet, no-slip walls and a do-nothing outlet, BDF4 in
 * time with the convection linearised about the extrapolated velocity,
 * at two resolutions (the fine one halves the mesh size and the time
 * steps).
 *
 *   pf-ref-navier_stokes_2d_long_time --out F.dat --manifest F.json [--n N] [--substeps S]
 *
 * n sets the mesh: 2n x n squares, each cut into two triangles, the rows
 * graded towards the walls; S is the time steps per 0.1 (the snapshot
 * interval); the first three steps are made of 8 times finer ones (the
 * script's header says why). FreeFem++ (Debian freefem++) must be on
 * PATH; without it the program says so and exits 2.
 *
 * Layout: docs/pdes.md gives the lost COMSOL file's times, 51 snapshots
 * t = 0, 0.1, ..., 5, but not its 5,157 nodes. So those times, and as
 * nodes the spatial points of the grid rule of docs/pdes.md 0.3 (n = 20000 for
 * three inputs) on the domain, 14 x 7 = 98 nodes, each with u, v, p. At
 * t = 0 the file has the initial condition, 0. The solution there is the
 * finite-element field evaluated at the points.
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

#define PDE "navier_stokes_2d_long_time"
#define EVAL_N 20000    /* the grid rule's requested points (three inputs) */
#define K 50            /* snapshot intervals: times 0, 0.1, ..., 5 */
#define F 3             /* fields: u, v, p */
#define FIRST "8"       /* the first steps are this much finer */
#define ORDER "4"       /* BDF order */
#define REFREEZE "0.07" /* time between the matrix's refactorisations */
#define GRADE "0.5"     /* the grading towards the walls, the inlet and the outlet */

/* The evaluation layout: nodes xy[node][2], times[K + 1] (0 first). */
typedef struct layout {
    int nodes;
    double *xy, times[K + 1];
} layout;

static pf_status layout_build(const pf_pde *p, layout *L)
{
    memset(L, 0, sizeof *L);
    pf_geom *box = NULL;
    pf_point_set ps = {0};
    pf_status st = pf_pdes_box_geometry(p, &box);
    if (st == PF_OK) st = pf_sample_grid_pinnacle(box, EVAL_N, &ps);
    int level = 0; /* the spatial points: the first time level */
    while (st == PF_OK && level < ps.n && ps.x[3 * level + 2] == ps.x[2]) level++;
    if (st == PF_OK) L->xy = malloc(sizeof(double) * 2 * level);
    if (st == PF_OK && !L->xy) st = pf_fail(PF_ERR_NOMEM, "out of memory for the layout");
    for (int q = 0; st == PF_OK && q < level; q++) L->xy[2 * q] = ps.x[3 * q], L->xy[2 * q + 1] = ps.x[3 * q + 1];
    if (st == PF_OK) L->nodes = level;
    for (int k = 0; k <= K; k++) L->times[k] = p->lo[2] + k * (p->hi[2] - p->lo[2]) / K;
    pf_point_set_release(&ps);
    pf_geom_free(box);
    return st;
}

typedef struct run {
    long n, substeps;
    double dt, wall, outlet;
    long steps, vertices, dofs, factorisations;
    double *u; /* [node][K + 1][F] */
} run;

/* The script's lines "mesh <vertices> <triangles> <dofs> <steps>
 * <factorisations>" and "outlet <max |p| on x = 2>". */
static void read_summary(const char *log, run *r)
{
    FILE *f;
    if (pf_file_fopen(log, PF_FILE_LOG, &f) != PF_OK) f = NULL;
    char line[256];
    long tri;
    while (f && fgets(line, sizeof line, f)) {
        sscanf(line, "mesh %ld %ld %ld %ld %ld", &r->vertices, &tri, &r->dofs, &r->steps, &r->factorisations);
        sscanf(line, "outlet %lf", &r->outlet);
    }
    if (f) fclose(f);
}

static pf_status solve(const char *edp, const char *dir, const char *pts, const layout *L, run *r)
{
    char n[32], s[32], kk[32], out[PF_FF_PATH_MAX], log[PF_FF_PATH_MAX];
    snprintf(n, sizeof n, "%ld", r->n), snprintf(s, sizeof s, "%ld", r->substeps), snprintf(kk, sizeof kk, "%d", K);
    snprintf(out, sizeof out, "%s/u_%ld.txt", dir, r->n), snprintf(log, sizeof log, "%s/log_%ld.txt", dir, r->n);
    const char *args[] = {"-n",        n,        "-substeps", s,     "-first",  FIRST, "-order", ORDER,
                          "-refreeze", REFREEZE, "-grade",    GRADE, "-gradex", GRADE, "-K",     kk,
                          "-T",        "5",      "-pts",      pts,   "-out",    out,   NULL};
    r->dt = (L->times[K] - L->times[0]) / K / r->substeps;
    double t0 = pf_refs_now();
    pf_status st = pf_ff_run(edp, args, log);
    r->wall = pf_refs_now() - t0;
    pf_ff_table t = {0};
    if (st == PF_OK) st = pf_ff_table_read(out, &t);
    if (st == PF_OK && (t.rows != (size_t)L->nodes || t.cols != F * K))
        st = pf_fail(PF_ERR_INVALID, "%s: %zu x %d values, expected %d nodes x %d", out, t.rows, t.cols, L->nodes,
                     F * K);
    size_t row = (size_t)(K + 1) * F;
    if (st == PF_OK) r->u = malloc(sizeof(double) * L->nodes * row);
    if (st == PF_OK && !r->u) st = pf_fail(PF_ERR_NOMEM, "out of memory for %d nodes", L->nodes);
    for (int q = 0; st == PF_OK && q < L->nodes; q++) {
        double *dst = r->u + q * row;
        for (int f = 0; f < F; f++) dst[f] = 0; /* the initial condition */
        memcpy(dst + F, t.v + (size_t)q * F * K, sizeof(double) * F * K);
    }
    if (st == PF_OK) read_summary(log, r);
    pf_ff_table_free(&t);
    if (st == PF_OK) unlink(out), unlink(log); /* kept for a look on failure */
    return st;
}

/* The rel L2 difference of field f (or all fields, f < 0) of two runs. */
static double field_rel_l2(const layout *L, const run *a, const run *b, int f)
{
    double num = 0, den = 0;
    for (size_t i = 0; i < (size_t)L->nodes * (K + 1) * F; i++)
        if (f < 0 || (int)(i % F) == f) num += (a->u[i] - b->u[i]) * (a->u[i] - b->u[i]), den += b->u[i] * b->u[i];
    return den > 0 ? sqrt(num / den) : 0;
}

static pf_status write_reference(const pf_pde *p, const layout *L, const pf_refs_args *a, const run *coarse,
                                 const run *fine)
{
    static const char *const space[2] = {"x", "y"}, *const names[F] = {"u", "v", "p"};
    pf_refs_text text;
    PF_TRY(pf_refs_snapshots_text((size_t)L->nodes, 2, space, L->xy, K + 1, L->times, F, names, fine->u, &text));
    double conv = field_rel_l2(L, coarse, fine, -1);
    char lay[300], mesh[300];
    snprintf(lay, sizeof lay,
             "time snapshots (x, y, u@t, v@t, p@t, ...): PINNacle's 51 times t = 0, 0.1, .., 5 (docs/pdes.md 13); "
             "as nodes the grid rule of docs/pdes.md 0.3 with n = 20000 on the domain: %d",
             L->nodes);
    snprintf(mesh, sizeof mesh,
             "coarse: %ld vertices, %ld unknowns (%ld factorisations); fine: %ld vertices, %ld unknowns (%ld); "
             "2n x n squares cut in two, graded by s - " GRADE " sin(2 pi s) / (2 pi) across and along the channel",
             coarse->vertices, coarse->dofs, coarse->factorisations, fine->vertices, fine->dofs, fine->factorisations);
    json_t *m = json_pack(
        "{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:{s:f, s:f, s:f}, s:f}", "pde", p->name, "solver",
        "FreeFEM (refs/navier_stokes_2d_long_time.edp): Taylor-Hood P2/P1, BDF" ORDER " (the first three steps "
        "in " FIRST " times finer steps of rising order), the convection linearised about the extrapolated "
        "velocity (the matrix's velocity refrozen every " REFREEZE " in time, the rest explicit), UMFPACK; the fields "
        "evaluated at the points",
        "equation", "u_t + (u.grad) u + grad p - 0.01 Lap u = (0, -sin(pi x) sin(pi y) sin(pi t)), div u = 0",
        "initial_condition", "u = v = 0 (p = 0 written at t = 0)", "boundary_condition",
        "u = sin(pi y)(sin(pi t) + sin(3 pi t) + sin(5 pi t)), v = 0 at x = 0; u = v = 0 at y = 0, 1; "
        "do-nothing at x = 2 (-p n + 0.01 du/dn = 0, our reading of p = 0: there p = 0.01 du/dx, zero in "
        "the mean over the outlet)",
        "mesh", mesh, "layout", lay, "freefem", "FreeFem++ -nw -ne, from scripts/install-deps.sh's freefem++",
        "agreement",
        "u, v against 5 interior nodes of PINNacle's COMSOL file at t = 0.5, 1, 1.5, 2.5, 3.5, 5 (data/checks/"
        "navier_stokes_2d_long_time.comsol-sample.tsv; docs/pdes.md 13), interpolated from this file's 14 x 7 "
        "grid: 6.1% relative L2 at n 8 / 16 (0.5% at t = 0.5, 5-9% once the inflow has reversed, where the "
        "outlet conditions differ); p not compared (tests/t1125-refs-agreement.sh)",
        "self_convergence_rel_l2_by_field", "u", field_rel_l2(L, coarse, fine, 0), "v",
        field_rel_l2(L, coarse, fine, 1), "p", field_rel_l2(L, coarse, fine, 2), "outlet_max_abs_p", fine->outlet);
    pf_refs_run rc = {coarse->n, coarse->dt, coarse->steps, coarse->wall};
    pf_refs_run rf = {fine->n, fine->dt, fine->steps, fine->wall};
    pf_status st = pf_refs_finish(p->name, a, m, &text, &rc, &rf, conv);
    json_decref(m);
    return st;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: pf-ref-" PDE " --out F.dat --manifest F.json [--n N] [--substeps S]\n"
               "  Taylor-Hood P2/P1 finite elements by FreeFem++ (refs/" PDE ".edp) on 2N x N\n"
               "  squares (default N 16) with S BDF4 steps per 0.1 (default 10), then on 4N x 2N\n"
               "  and 2S; writes the finer solution (u, v, p) at 98 nodes x 51 times and a\n"
               "  manifest with the two runs' difference.\n"
               "  Needs FreeFem++ on PATH (Debian package freefem++) or in $PF_FREEFEM.\n");
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        }
    pf_refs_args a = {.n = 24, .substeps = 12};
    char edp[PF_FF_PATH_MAX];
    pf_status st = pf_refs_parse_args(argc, argv, &a);
    if (st == PF_OK && a.n > 256) st = pf_fail(PF_ERR_USAGE, "--n %ld: at most 256", a.n);
    if (st == PF_OK && a.substeps < 2) st = pf_fail(PF_ERR_USAGE, "--substeps %ld: at least 2", a.substeps);
    if (st == PF_OK) st = pf_ff_prepare(PDE ".edp", edp, sizeof edp);
    if (st != PF_OK) {
        fprintf(stderr, "pf-ref-" PDE ": %s\n", pf_errmsg());
        if (st == PF_ERR_USAGE) usage(stderr);
        return 2;
    }
    /* UMFPACK's BLAS threads only slow a factorisation this small on
     * shared cores; the caller's setting wins. */
    setenv("OMP_NUM_THREADS", "1", 0), setenv("OPENBLAS_NUM_THREADS", "1", 0);
    const pf_pde *p;
    layout L = {0};
    run coarse = {.n = a.n, .substeps = a.substeps}, fine = {.n = 2 * a.n, .substeps = 2 * a.substeps};
    pf_ff_work w = {0};
    st = pf_pdes_lookup(PDE, &p);
    if (st == PF_OK) st = layout_build(p, &L);
    if (st == PF_OK) st = pf_ff_work_open(&w, "ns", (size_t)L.nodes, 2, L.xy);
    if (st == PF_OK) st = solve(edp, w.dir, w.pts, &L, &coarse);
    if (st == PF_OK) st = solve(edp, w.dir, w.pts, &L, &fine);
    if (st == PF_OK) st = write_reference(p, &L, &a, &coarse, &fine);
    pf_ff_work_close(&w);
    free(coarse.u), free(fine.u), free(L.xy);
    if (st != PF_OK) fprintf(stderr, "pf-ref-" PDE ": %s\n", pf_errmsg());
    return st == PF_OK ? 0 : 1;
}
