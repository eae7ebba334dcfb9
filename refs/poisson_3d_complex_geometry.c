/*
 * pf-ref-poisson_3d_complex_geometry — the reference of
 * poisson_3d_complex_geometry (`make refs`): P3 finite elements by FreeFEM
 * (refs/poisson_3d_complex_geometry.edp) on a tetrahedral mesh of the unit
 * cube minus its four balls, with the plane z = 0.5, where kappa jumps, as
 * an interface of the mesh, at two resolutions (the fine one halves the
 * mesh size).
 *
 *   pf-ref-poisson_3d_complex_geometry --out F.dat --manifest F.json [--n N]
 *
 * n sets the mesh: the cube's edges in n segments (h = 1/n), the spheres'
 * triangles of edge about h/2, tetrahedra of at most a regular one's volume
 * of edge h (the script's header says how the mesh is built).
 * FreeFem++ (Debian freefem++) must be on PATH and its plugins msh3,
 * tetgen and Element_P3 (Debian libfreefem++) loadable; without either the
 * program says so and exits 2.
 *
 * Layout: the lost COMSOL file had 65,202 nodes, which docs/pdes.md does not
 * list, so the grid rule of docs/pdes.md 0.3 (n = 20000 for three inputs) on the
 * bounding box, 28 x 28 x 28 points k/29, without the 1844 inside a ball:
 * 20108 rows (x, y, z, u). The solution there is the P3 field evaluated at
 * the points.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/file.h"
#include "geom/geometry.h"
#include "geom/sample.h"
#include "io/msgpack_json.h"
#include "refs/freefem.h"
#include "refs/refs_out.h"
#include "registry.h"

#define PDE "poisson_3d_complex_geometry"
#define EVAL_N 20000 /* the grid rule's requested points (three inputs) */
#define ORDER "3"    /* Lagrange degree (the script takes 2 or 3) */
#define SPHERES "2"  /* the spheres' triangles this much smaller than h */
/* Debian's libfreefem++ puts the plugins here, while its
 * /etc/freefem++.pref names /usr/lib/ff++/<version>/lib, which no package
 * fills (Debian 12, freefem++ 4.11) */
#define DEBIAN_PLUGINS "/usr/lib/freefem++"

/* The evaluation points: xyz[point][3]. */
typedef struct layout {
    int n;
    double *xyz;
} layout;

static pf_status layout_build(const pf_pde *p, layout *L)
{
    memset(L, 0, sizeof *L);
    pf_geom *box = NULL, *g = NULL;
    pf_point_set ps = {0};
    pf_status st = pf_pdes_box_geometry(p, &box);
    if (st == PF_OK) st = p->geometry(p, &g);
    if (st == PF_OK) st = pf_sample_grid_pinnacle(box, EVAL_N, &ps);
    if (st == PF_OK) L->xyz = malloc(sizeof(double) * 3 * (size_t)ps.n);
    if (st == PF_OK && !L->xyz) st = pf_fail(PF_ERR_NOMEM, "out of memory for the layout");
    for (int q = 0; st == PF_OK && q < ps.n; q++) {
        double x[3] = {ps.x[3 * q], ps.x[3 * q + 1], ps.x[3 * q + 2]};
        if (pf_geom_sdf(g, x) < 0) memcpy(L->xyz + 3 * L->n++, x, sizeof x);
    }
    pf_point_set_release(&ps);
    pf_geom_free(box), pf_geom_free(g);
    return st;
}

typedef struct run {
    long n;
    double wall;
    long vertices, tets, dofs;
    double *u; /* [point] */
} run;

/* The script's summary line "mesh <vertices> <tetrahedra> <dofs>". */
static void read_summary(const char *log, run *r)
{
    FILE *f;
    if (pf_file_fopen(log, PF_FILE_LOG, &f) != PF_OK) f = NULL;
    char line[256];
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "mesh %ld %ld %ld", &r->vertices, &r->tets, &r->dofs) == 3) break;
    if (f) fclose(f);
}

/* FreeFEM's plugins: FF_LOADPATH as set, else Debian's folder when it has
 * them (see DEBIAN_PLUGINS), else FreeFEM's own search path. */
static void plugin_path(void)
{
    const char *e = getenv("FF_LOADPATH");
    struct stat sb;
    if ((!e || !*e) && stat(DEBIAN_PLUGINS "/tetgen.so", &sb) == 0) setenv("FF_LOADPATH", DEBIAN_PLUGINS, 1);
}

/* Set when FreeFEM's plugins did not load: exit 2, as for FreeFem++ missing. */
static bool no_plugins;

/* A failed run whose log says a plugin did not load: PF_ERR_EXTERNAL
 * saying what to install, in place of FreeFEM's words. */
static pf_status plugins_missing(const char *log, pf_status st)
{
    char *text = NULL;
    size_t len = 0;
    if (st == PF_OK || pf_file_read_as(log, PF_FILE_LOG, &text, &len) != PF_OK) return st;
    bool missing = strstr(text, "Load error") != NULL;
    free(text);
    if (!missing) return st;
    no_plugins = true;
    return pf_fail(PF_ERR_EXTERNAL,
                   "FreeFem++ cannot load its plugins msh3, tetgen and Element_P3 (log %s); install the Debian "
                   "package libfreefem++ (scripts/install-deps.sh installs it: sudo apt-get install libfreefem++), "
                   "or set FF_LOADPATH to the folder that has msh3.so",
                   log);
}

static pf_status solve(const char *edp, const char *dir, const char *pts, const layout *L, run *r)
{
    char n[32], out[PF_FF_PATH_MAX], log[PF_FF_PATH_MAX];
    snprintf(n, sizeof n, "%ld", r->n);
    snprintf(out, sizeof out, "%s/u_%ld.txt", dir, r->n), snprintf(log, sizeof log, "%s/log_%ld.txt", dir, r->n);
    const char *args[] = {"-n", n, "-order", ORDER, "-spheres", SPHERES, "-pts", pts, "-out", out, NULL};
    double t0 = pf_refs_now();
    pf_status st = plugins_missing(log, pf_ff_run(edp, args, log));
    r->wall = pf_refs_now() - t0;
    pf_ff_table t = {0};
    if (st == PF_OK) st = pf_ff_table_read(out, &t);
    if (st == PF_OK && (t.rows != (size_t)L->n || t.cols != 1))
        st = pf_fail(PF_ERR_INVALID, "%s: %zu x %d values, expected %d points x 1", out, t.rows, t.cols, L->n);
    if (st == PF_OK) r->u = t.v, t.v = NULL;
    if (st == PF_OK) read_summary(log, r);
    pf_ff_table_free(&t);
    if (st == PF_OK) unlink(out), unlink(log); /* kept for a look on failure */
    return st;
}

static pf_status write_reference(const pf_pde *p, const layout *L, const pf_refs_args *a, const run *coarse,
                                 const run *fine)
{
    double *rows = malloc(sizeof(double) * 4 * (size_t)L->n);
    if (!rows) return pf_fail(PF_ERR_NOMEM, "out of memory for %d rows", L->n);
    for (int q = 0; q < L->n; q++) {
        memcpy(rows + 4 * q, L->xyz + 3 * q, sizeof(double) * 3);
        rows[4 * q + 3] = fine->u[q];
    }
    pf_refs_text text;
    pf_status st = pf_refs_rows_text("x y z u", (size_t)L->n, 4, rows, &text);
    free(rows);
    PF_TRY(st);
    double conv = pf_refs_rel_l2(coarse->u, fine->u, (size_t)L->n);
    char lay[300], mesh[300];
    snprintf(lay, sizeof lay,
             "steady x y z u: the grid rule of docs/pdes.md 0.3 with n = 20000 on the bounding box (28 x 28 x 28 "
             "points k/29) less the points in balls: %d (the COMSOL file's 65,202 nodes are unknown)",
             L->n);
    snprintf(mesh, sizeof mesh,
             "coarse: %ld vertices, %ld tetrahedra, %ld P" ORDER
             " dofs; fine: %ld vertices, %ld tetrahedra, %ld P" ORDER
             " dofs (cube edges 1/n, sphere triangles 1/(" SPHERES "n), z = 0.5 an interface)",
             coarse->vertices, coarse->tets, coarse->dofs, fine->vertices, fine->tets, fine->dofs);
    json_t *m = json_pack(
        "{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s}", "pde", p->name, "solver",
        "FreeFEM (refs/" PDE ".edp): P" ORDER " Lagrange on a tetgen mesh of the cube minus the 4 balls, the halves "
        "z < 0.5 and z > 0.5 meshed apart with the same triangles on z = 0.5 (kappa exact on every element), "
        "each sphere a polyhedron with the ball's volume (vertices on a sphere slightly larger), conjugate "
        "gradients (diagonal preconditioner) to a relative residual of 1e-10; the field evaluated at the points",
        "equation", "-Lap u + kappa u = f, kappa = 64 (z < 0.5), 100 (z >= 0.5), f of docs/pdes.md 17", "boundary_condition",
        "du/dn = 0 on the cube's faces and the spheres (natural: nothing imposed)", "mesh", mesh, "layout", lay,
        "freefem",
        "FreeFem++ -nw -ne with the plugins msh3, tetgen, Element_P3, from scripts/install-deps.sh's freefem++ and "
        "libfreefem++",
        "agreement",
        "against 579 nodes of PINNacle's COMSOL file (data/checks/" PDE ".comsol-sample.tsv; docs/pdes.md 17): "
        "3.9% relative L2 (P3, n 14, at the nodes), 0.2% at the 228 nodes 0.15 or more from every sphere, 7.9% "
        "within 0.1 of the small ball (0.6, 0.2, 0.3), ours lower there by 0.038 on average. The same solver with "
        "the two small balls left out of the domain (the .edp's -small 0) agrees to 4.5e-4: COMSOL's model had "
        "only the two large balls as holes, where PINNacle's code, and this reference, has all four. Not "
        "under-resolution: P1 on 63,879 vertices (COMSOL's 65,202 nodes) leaves the same 3.9%, P2 at n 16 too. "
        "Interpolated linearly from the grid of this file, add about 2% (tests/t1125-refs-agreement.sh)");
    pf_refs_run rc = {coarse->n, 0, 0, coarse->wall}, rf = {fine->n, 0, 0, fine->wall};
    st = pf_refs_finish(p->name, a, m, &text, &rc, &rf, conv);
    json_decref(m);
    return st;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: pf-ref-" PDE " --out F.dat --manifest F.json [--n N]\n"
               "  P" ORDER " finite elements by FreeFem++ (refs/" PDE ".edp) at mesh size 1/N (N even,\n"
               "  default 14), then at 1/(2N); writes the finer solution at the 20108 grid\n"
               "  points outside the balls and a manifest with the two runs' difference.\n"
               "  Needs FreeFem++ on PATH (Debian package freefem++) or in $PF_FREEFEM, and its\n"
               "  plugins (Debian package libfreefem++; FF_LOADPATH overrides where they are).\n");
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        }
    pf_refs_args a = {.n = 14, .substeps = 1};
    char edp[PF_FF_PATH_MAX];
    pf_status st = pf_refs_parse_args(argc, argv, &a);
    if (st == PF_OK && a.substeps != 1) st = pf_fail(PF_ERR_USAGE, "the problem is steady: --substeps does not apply");
    if (st == PF_OK && (a.n < 4 || a.n % 2 || a.n > 64))
        st = pf_fail(PF_ERR_USAGE, "--n %ld: even (z = 0.5 a grid line of the cube's faces), 4 to 64", a.n);
    if (st == PF_OK) st = pf_ff_prepare(PDE ".edp", edp, sizeof edp);
    if (st != PF_OK) {
        fprintf(stderr, "pf-ref-" PDE ": %s\n", pf_errmsg());
        if (st == PF_ERR_USAGE) usage(stderr);
        return 2;
    }
    plugin_path();
    const pf_pde *p;
    layout L = {0};
    run coarse = {.n = a.n}, fine = {.n = 2 * a.n};
    pf_ff_work w = {0};
    st = pf_pdes_lookup(PDE, &p);
    if (st == PF_OK) st = layout_build(p, &L);
    if (st == PF_OK) st = pf_ff_work_open(&w, "poisson3d", (size_t)L.n, 3, L.xyz);
    if (st == PF_OK) st = solve(edp, w.dir, w.pts, &L, &coarse);
    if (st == PF_OK) st = solve(edp, w.dir, w.pts, &L, &fine);
    if (st == PF_OK) st = write_reference(p, &L, &a, &coarse, &fine);
    pf_ff_work_close(&w);
    free(coarse.u), free(fine.u), free(L.xyz);
    if (st != PF_OK) fprintf(stderr, "pf-ref-" PDE ": %s\n", pf_errmsg());
    return st == PF_OK ? 0 : no_plugins ? 2 : 1;
}
