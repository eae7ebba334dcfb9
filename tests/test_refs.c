/*
 * test_refs.c — the reference solvers' library (src/refs/): ETDRK4 and the
 * Fourier pseudo-spectral solvers checked against exact solutions at coarse
 * resolution, ETDRK4's order in time, and a generated file read back by
 * the PDE library (pf_pde_reference) like a PINNacle file, and the FreeFEM
 * scripts' output tables read whole or refused.
 *
 * Exact solutions: with alpha = 1, beta = -nu, gamma = 0 the KS solver
 * solves the viscous Burgers equation, whose Cole-Hopf solutions u = -2 nu
 * phi_x / phi, phi_t = nu phi_xx, are known in closed form; in 2D the same
 * holds for (u, v) = -2 nu grad(phi) / phi with phi_t = nu Lap phi. With
 * alpha = 0 each Fourier mode of KS decays (or grows) by its own exponent.
 * The classic steep Burgers problem has a published maximum slope.
 * Gray-Scott: with v = 0 each cosine mode of u - 1 decays by its own
 * exponent; spatially uniform fields follow the reaction ODEs, integrated
 * here by classical RK4 with a tiny step.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/sha256.h"
#include "geom/pde.h"
#include "io/coef_field.h"
#include "io/msgpack_json.h"
#include "io/pinnacle_dat.h"
#include "kuramoto_sivashinsky_1d.h"
#include "refs/cosine.h"
#include "refs/freefem.h"
#include "refs/fv_poisson.h"
#include "refs/leapfrog.h"
#include "refs/refs_out.h"
#include "refs/spectral.h"
#include "registry.h"
#include "data_fixture.h"

#define PI 3.14159265358979323846

/* phi = a + e^{-nu t} cos x: u = 2 nu e^{-nu t} sin x / phi (period 2 pi). */
static double cole_hopf_1d(double x, double t, double nu, double a)
{
    double e = exp(-nu * t);
    return 2 * nu * e * sin(x) / (a + e * cos(x));
}

/* Relative L2 error of the KS solver on Burgers (nu 0.1, phi's a) at t = 1
 * with n points and step h. */
static double burgers_1d_error(int n, double h, double a)
{
    double nu = 0.1, *u0 = malloc(sizeof(double) * n), *out = malloc(sizeof(double) * 2 * n);
    for (int j = 0; j < n; j++) u0[j] = cole_hopf_1d(2 * PI * j / n, 0, nu, a);
    pf_ks_params p = {.alpha = 1, .beta = -nu, .gamma = 0, .period = 2 * PI};
    cr_assert_eq(pf_ks_solve(&p, n, u0, h, (int)lround(1 / h), 2, out), PF_OK, "%s", pf_errmsg());
    double *ex = malloc(sizeof(double) * n);
    for (int j = 0; j < n; j++) ex[j] = cole_hopf_1d(2 * PI * j / n, 1, nu, a);
    double e = pf_refs_rel_l2(out + n, ex, (size_t)n);
    free(u0), free(out), free(ex);
    return e;
}

Test(refs, ks_solver_matches_cole_hopf_burgers)
{
    double e = burgers_1d_error(64, 0.05, 1.2);
    cr_log_info("Cole-Hopf, n 64, h 0.05: relative L2 error %.2e", e);
    cr_expect_lt(e, 1e-6, "relative L2 error %.3e against the exact solution", e);
}

Test(refs, ks_solver_reproduces_basdevant_burgers_max_slope)
{
    /* burgers_1d's problem (u0 = -sin(pi x), nu = 0.01 / pi, u = 0 at x = +-1)
     * is the period-2 problem with odd data, so u(+-1) = 0 by symmetry.
     * Basdevant et al. (1986): |u_x(0, t)| peaks at 152.00516 at t =
     * 1.6037 / pi. Fourth-order differences at n 4096 give 152.0026 */
    int n = 4096;
    double nu = 0.01 / PI, t = 1.6037 / PI, *u0 = malloc(sizeof(double) * n), *out = malloc(sizeof(double) * 2 * n);
    for (int j = 0; j < n; j++) u0[j] = -sin(PI * (-1 + 2.0 * j / n));
    pf_ks_params p = {.alpha = 1, .beta = -nu, .gamma = 0, .period = 2};
    cr_assert_eq(pf_ks_solve(&p, n, u0, t / 2000, 2000, 2, out), PF_OK, "%s", pf_errmsg());
    const double *u = out + n;
    int c = n / 2; /* x = 0 */
    double dx = 2.0 / n, slope = (-u[c + 2] + 8 * u[c + 1] - 8 * u[c - 1] + u[c - 2]) / (12 * dx);
    cr_log_info("max slope %.6f (Basdevant et al.: 152.00516)", -slope);
    cr_expect(fabs(-slope - 152.00516) < 0.01, "u_x(0, 1.6037/pi) = %.6f, want -152.00516", slope);
    free(u0), free(out);
}

Test(refs, etdrk4_is_fourth_order_in_time)
{
    /* a steep front (a close to 1): the time error dominates at n = 128 */
    double e1 = burgers_1d_error(128, 0.1, 1.02), e2 = burgers_1d_error(128, 0.05, 1.02);
    double order = log2(e1 / e2);
    cr_log_info("errors %.3e (h 0.1), %.3e (h 0.05): order %.2f", e1, e2, order);
    cr_expect(order > 3.5 && order < 4.5, "observed order %.2f (errors %.3e, %.3e), want about 4", order, e1, e2);
}

Test(refs, ks_linear_modes_grow_and_decay_exactly)
{
    /* alpha = 0: mode k evolves as e^{(beta k^2 - gamma k^4) t}. Up to t =
     * 0.2 only: the unstable modes (k < 16) amplify the rounding of the
     * initial transform by up to e^{25 t} */
    int n = 64;
    double u0[64], out[2 * 64];
    for (int j = 0; j < n; j++) u0[j] = cos(2 * PI * j / n) + 0.5 * sin(3 * 2 * PI * j / n);
    pf_ks_params p = {.alpha = 0, .beta = KS_BETA, .gamma = KS_GAMMA, .period = 2 * PI};
    cr_assert_eq(pf_ks_solve(&p, n, u0, 0.01, 20, 2, out), PF_OK, "%s", pf_errmsg());
    double g1 = exp(0.2 * (KS_BETA - KS_GAMMA)), g3 = exp(0.2 * (9 * KS_BETA - 81 * KS_GAMMA)), ex[64];
    for (int j = 0; j < n; j++) ex[j] = g1 * cos(2 * PI * j / n) + 0.5 * g3 * sin(3 * 2 * PI * j / n);
    double e = pf_refs_rel_l2(out + n, ex, (size_t)n);
    cr_expect_lt(e, 1e-12, "relative L2 error %.3e", e);
}

Test(refs, a_solution_that_blows_up_is_an_error)
{
    /* beta = 1, gamma = 0: backward diffusion, mode k grows as e^{k^2 t} */
    int n = 64;
    double u0[64], out[2 * 64];
    for (int j = 0; j < n; j++) u0[j] = cos(2 * PI * j / n);
    pf_ks_params p = {.alpha = 0, .beta = 1, .gamma = 0, .period = 2 * PI};
    cr_expect_eq(pf_ks_solve(&p, n, u0, 0.1, 100, 2, out), PF_ERR_INVALID);
    cr_expect(strstr(pf_errmsg(), "not finite"), "%s", pf_errmsg());
}

/* phi = a + e^{-nu t} (cos x + cos y): (u, v) = 2 nu e^{-nu t} (sin x, sin y) / phi. */
static void cole_hopf_2d(double x, double y, double t, double nu, double a, double uv[2])
{
    double e = exp(-nu * t), phi = a + e * (cos(x) + cos(y));
    uv[0] = 2 * nu * e * sin(x) / phi, uv[1] = 2 * nu * e * sin(y) / phi;
}

typedef struct b2_check {
    int n;
    double nu, a, t_end, err;
} b2_check;

/* At the last sample, the spectra summed at off-grid points against the
 * exact solution (max error over both components). */
static pf_status b2_sample(void *user, int k, const double complex *u, const double complex *v)
{
    b2_check *c = user;
    if (k != 1) return PF_OK;
    double xs[5] = {0.1, 1.3, 2.9, 4.4, 6.0}, ys[3] = {0.7, 3.3, 5.5}, f[15];
    for (int comp = 0; comp < 2; comp++) {
        cr_assert_eq(pf_spec2_eval(comp ? v : u, c->n, 2 * PI, xs, 5, ys, 3, f), PF_OK);
        for (int b = 0; b < 3; b++)
            for (int i = 0; i < 5; i++) {
                double uv[2];
                cole_hopf_2d(xs[i], ys[b], c->t_end, c->nu, c->a, uv);
                c->err = fmax(c->err, fabs(f[b * 5 + i] - uv[comp]));
            }
    }
    return PF_OK;
}

Test(refs, burgers_2d_solver_matches_cole_hopf)
{
    b2_check c = {.n = 48, .nu = 0.05, .a = 2.5, .t_end = 1};
    size_t nn = (size_t)c.n * c.n;
    double *u0 = malloc(sizeof(double) * nn), *v0 = malloc(sizeof(double) * nn);
    for (int i = 0; i < c.n; i++)
        for (int j = 0; j < c.n; j++) {
            double uv[2];
            cole_hopf_2d(2 * PI * j / c.n, 2 * PI * i / c.n, 0, c.nu, c.a, uv);
            u0[i * c.n + j] = uv[0], v0[i * c.n + j] = uv[1];
        }
    pf_burgers2_params p = {.nu = c.nu, .period = 2 * PI};
    cr_assert_eq(pf_burgers2_solve(&p, c.n, u0, v0, 0.05, 20, 2, b2_sample, &c), PF_OK, "%s", pf_errmsg());
    cr_log_info("2D Cole-Hopf, n 48, h 0.05: max error %.2e (fields ~ %.2f)", c.err, 2 * c.nu / (c.a - 2));
    cr_expect_lt(c.err, 1e-6, "max error %.3e against the exact solution", c.err);
    free(u0), free(v0);
}

/* Removes what fresh_data_dir made and the files named (NULL-terminated). */
static void remove_data_dir(const char *dir, const char *const *files)
{
    for (; *files; files++) cr_expect_eq(unlink(*files), 0, "%s", *files);
    char gen[96];
    snprintf(gen, sizeof gen, "%s/generated", dir);
    cr_expect_eq(rmdir(gen), 0, "%s", gen);
    cr_expect_eq(rmdir(dir), 0, "%s", dir);
}

/* A fresh folder with a generated/ folder in it, which becomes
 * PF_REFS_DIR; the folder's path into dir. */
static void fresh_data_dir(char dir[64])
{
    snprintf(dir, 64, "/tmp/pf-refs-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    char gen[96];
    snprintf(gen, sizeof gen, "%s/generated", dir);
    cr_assert_eq(pf_mkdirs(gen), PF_OK, "%s", pf_errmsg());
    setenv("PF_REFS_DIR", gen, 1);
}

Test(refs, generated_ks_file_reads_back_as_the_pdes_reference)
{
    const pf_pde *p;
    cr_assert_eq(pf_pdes_lookup("kuramoto_sivashinsky_1d", &p), PF_OK);
    cr_assert_eq(p->ref, PF_REF_GENERATED);
    char dir[64], path[160], mpath[160];
    fresh_data_dir(dir);
    pf_reference r;
    cr_expect_eq(pf_pde_reference(p, &r), PF_ERR_UNSUPPORTED, "not built yet: no reference");
    cr_expect(strstr(pf_errmsg(), "make refs"), "the message says what to run: %s", pf_errmsg());
    pf_reference_release(&r);

    /* a coarse solve: 16 nodes by 5 times, rows (x, t, u) x-major */
    enum { N = 16, K = 5 };
    double u0[N], out[K * N], rows[N * K * 3];
    for (int j = 0; j < N; j++) u0[j] = ks_initial(2 * PI * j / N);
    pf_ks_params kp = {.alpha = KS_ALPHA, .beta = KS_BETA, .gamma = KS_GAMMA, .period = p->period[0]};
    cr_assert_eq(pf_ks_solve(&kp, N, u0, 1e-3, 10, K, out), PF_OK, "%s", pf_errmsg());
    for (int j = 0; j < N; j++)
        for (int k = 0; k < K; k++) {
            double *row = rows + 3 * (j * K + k);
            row[0] = 2 * PI * j / N, row[1] = 0.01 * k, row[2] = out[k * N + j];
        }
    snprintf(path, sizeof path, "%s/%s", dir, p->ref_file);
    snprintf(mpath, sizeof mpath, "%s/generated/kuramoto_sivashinsky_1d.manifest.json", dir);
    pf_refs_text text;
    cr_assert_eq(pf_refs_rows_text("x t u", N * K, 3, rows, &text), PF_OK, "%s", pf_errmsg());
    json_t *m = json_pack("{s:s}", "pde", p->name);
    cr_assert_eq(pf_refs_write(path, mpath, &text, m), PF_OK, "%s", pf_errmsg());
    json_decref(m);

    cr_assert_eq(pf_pde_reference(p, &r), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(r.n, N * K);
    for (int i = 0; i < N * K; i++) {
        cr_expect_eq(r.x[2 * i], (pf_real)(float)rows[3 * i], "row %d x", i);
        cr_expect_eq(r.x[2 * i + 1], (pf_real)(float)rows[3 * i + 1], "row %d t", i);
        cr_expect_eq(r.u[i], (pf_real)(float)rows[3 * i + 2], "row %d u", i);
    }
    cr_expect_eq(r.u[0], (pf_real)(float)1.0, "u(0, 0) = cos 0 (1 + sin 0)");
    pf_reference_release(&r);

    /* the manifest's SHA-256 is the file's */
    char *data, *mtext, hex[PF_SHA256_HEX];
    size_t len, mlen;
    cr_assert_eq(pf_file_read(path, &data, &len), PF_OK);
    cr_assert_eq(pf_sha256_hex(data, len, hex), PF_OK);
    cr_assert_eq(pf_file_read(mpath, &mtext, &mlen), PF_OK);
    json_t *back = json_loads(mtext, 0, NULL);
    cr_assert_not_null(back);
    cr_expect_str_eq(json_string_value(json_object_get(back, "sha256")), hex);
    cr_expect_str_eq(json_string_value(json_object_get(back, "file")), "kuramoto_sivashinsky_1d.dat");
    json_decref(back);
    free(data), free(mtext);
    remove_data_dir(dir, (const char *const[]){path, mpath, NULL});
}

Test(refs, a_generated_file_that_does_not_match_its_manifest_is_refused)
{
    const pf_pde *p;
    cr_assert_eq(pf_pdes_lookup("kuramoto_sivashinsky_1d", &p), PF_OK);
    char dir[64], path[160], mpath[160];
    fresh_data_dir(dir);
    snprintf(path, sizeof path, "%s/%s", dir, p->ref_file);
    snprintf(mpath, sizeof mpath, "%s/generated/kuramoto_sivashinsky_1d.manifest.json", dir);
    double rows[6] = {0, 0, 1, 0, 0.5, 0.75};
    pf_refs_text text;
    cr_assert_eq(pf_refs_rows_text("x t u", 2, 3, rows, &text), PF_OK);
    json_t *m = json_object();
    cr_assert_eq(pf_refs_write(path, mpath, &text, m), PF_OK, "%s", pf_errmsg());
    json_decref(m);
    /* an edited value: still a valid table, but not the file the manifest names */
    cr_assert_eq(pf_refs_rows_text("x t u", 2, 3, (double[6]){0, 0, 1, 0, 0.5, 0.5}, &text), PF_OK);
    cr_assert_eq(pf_file_write_atomic(path, text.buf, text.len), PF_OK);
    free(text.buf);
    pf_reference r;
    cr_expect_eq(pf_pde_reference(p, &r), PF_ERR_IO);
    cr_expect(strstr(pf_errmsg(), "does not match its SHA-256") && strstr(pf_errmsg(), "make refs"), "%s",
              pf_errmsg());
    pf_reference_release(&r);
    /* without its manifest */
    cr_assert_eq(unlink(mpath), 0);
    cr_expect_eq(pf_pde_reference(p, &r), PF_ERR_IO);
    cr_expect(strstr(pf_errmsg(), "no readable manifest"), "%s", pf_errmsg());
    pf_reference_release(&r);
    remove_data_dir(dir, (const char *const[]){path, NULL});
}

Test(refs, generated_snapshot_file_reads_back_as_the_pdes_reference)
{
    const pf_pde *p;
    cr_assert_eq(pf_pdes_lookup("burgers_2d", &p), PF_OK);
    cr_assert_eq(p->ref, PF_REF_GENERATED);
    cr_assert_eq(p->ref_layout, PF_DAT_LAYOUT_SNAPSHOTS);
    char dir[64], path[160], mpath[160];
    fresh_data_dir(dir);
    /* 3 nodes by 2 times, u and v interleaved per snapshot */
    double xy[6] = {0.5, 1.5, 2.0, 0.25, 3.5, 3.75}, times[2] = {0.5, 1.0};
    double uv[3 * 2 * 2] = {1, -1, 2, -2, 3, -3, 4, -4, 5, -5, 6.125, -6.125};
    static const char *const space[2] = {"x", "y"}, *const names[2] = {"u", "v"};
    snprintf(path, sizeof path, "%s/%s", dir, p->ref_file);
    snprintf(mpath, sizeof mpath, "%s/generated/burgers_2d.manifest.json", dir);
    pf_refs_text text;
    cr_assert_eq(pf_refs_snapshots_text(3, 2, space, xy, 2, times, 2, names, uv, &text), PF_OK, "%s",
                 pf_errmsg());
    json_t *m = json_object();
    cr_assert_eq(pf_refs_write(path, mpath, &text, m), PF_OK, "%s", pf_errmsg());
    json_decref(m);
    pf_reference r;
    cr_assert_eq(pf_pde_reference(p, &r), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(r.n, 6);
    for (int q = 0; q < 3; q++)
        for (int k = 0; k < 2; k++) {
            int row = q * 2 + k; /* node-major, time-minor */
            cr_expect_eq(r.x[3 * row], (pf_real)xy[2 * q]);
            cr_expect_eq(r.x[3 * row + 1], (pf_real)xy[2 * q + 1]);
            cr_expect_eq(r.x[3 * row + 2], (pf_real)times[k]);
            cr_expect_eq(r.u[2 * row], (pf_real)uv[row * 2]);
            cr_expect_eq(r.u[2 * row + 1], (pf_real)uv[row * 2 + 1]);
        }
    pf_reference_release(&r);
    remove_data_dir(dir, (const char *const[]){path, mpath, NULL});
}

typedef struct gs_check {
    int n;
    double lo, hi, u[4], v[4]; /* the fields at (x, y) = (-0.9, 0.1), (0.3, -0.7), (1, 1), (-1, 0.5) */
} gs_check;

static const double gs_px[4] = {-0.9, 0.3, 1, -1}, gs_py[4] = {0.1, -0.7, 1, 0.5};

static pf_status gs_sample(void *user, int k, const double *u, const double *v)
{
    gs_check *c = user;
    if (k != 1) return PF_OK;
    for (int q = 0; q < 4; q++) {
        cr_assert_eq(pf_cos2_eval(u, c->n, c->lo, c->hi, gs_px + q, 1, gs_py + q, 1, &c->u[q]), PF_OK);
        cr_assert_eq(pf_cos2_eval(v, c->n, c->lo, c->hi, gs_px + q, 1, gs_py + q, 1, &c->v[q]), PF_OK);
    }
    return PF_OK;
}

/* Solves to t = 10 from u0(x, y), v0(x, y) on the cell-centred n x n grid. */
static void gs_run(const pf_gs_params *p, int n, double h, double (*u0)(double, double),
                   double (*v0)(double, double), gs_check *c)
{
    size_t nn = (size_t)n * n;
    double *gu = malloc(sizeof(double) * nn), *gv = malloc(sizeof(double) * nn), dx = (p->hi - p->lo) / n;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double x = p->lo + (j + 0.5) * dx, y = p->lo + (i + 0.5) * dx;
            gu[i * n + j] = u0(x, y), gv[i * n + j] = v0(x, y);
        }
    c->n = n, c->lo = p->lo, c->hi = p->hi;
    cr_assert_eq(pf_gs_solve(p, n, gu, gv, h, (int)lround(10 / h), 2, gs_sample, c), PF_OK, "%s", pf_errmsg());
    free(gu), free(gv);
}

/* 1 + 0.3 cos(3 pi (x + 1) / 2) cos(2 pi (y + 1) / 2): one cosine mode on [-1, 1]^2 */
static double gs_mode(double x, double y) { return 1 + 0.3 * cos(1.5 * PI * (x + 1)) * cos(PI * (y + 1)); }
static double gs_zero(double x, double y) { return 0 * x * y; }

Test(refs, gray_scott_cosine_modes_decay_exactly_with_zero_flux)
{
    /* v = 0 stays 0; u - 1 decays as e^{-(eps1 (pi/2)^2 (3^2 + 2^2) + b) t} */
    pf_gs_params p = {.b = 0.04, .d = 0.1, .eps1 = 0.01, .eps2 = 0.005, .lo = -1, .hi = 1};
    gs_check c;
    gs_run(&p, 16, 0.5, gs_mode, gs_zero, &c);
    double g = exp(-10 * (p.eps1 * PI * PI / 4 * 13 + p.b)), err = 0;
    for (int q = 0; q < 4; q++) {
        err = fmax(err, fabs(c.u[q] - (1 + (gs_mode(gs_px[q], gs_py[q]) - 1) * g)));
        err = fmax(err, fabs(c.v[q]));
    }
    cr_expect_lt(err, 1e-12, "max error %.3e against the decaying mode (walls included)", err);
}

/* The finite-volume Poisson solver against a manufactured solution with
 * the reference's ingredients: a coefficient jump (a = 1 for x < 1/2, 4
 * beyond) on a cell face and Robin sides du/dn = g - u on [0,1]^2.
 * u = phi(x) psi(y), psi = 2 + cos(pi y), phi = e^x on the left and
 * e^{1/2} (1 + sin(x - 1/2) / 4) on the right: u and the flux a u_x are
 * continuous at x = 1/2 (a u_x = e^{1/2} psi from both sides), u_x is not. */
static double fvp_a(double x) { return x < 0.5 ? 1 : 4; }
static double fvp_phi(double x, int d) /* phi's d-th derivative, d <= 2 */
{
    if (x < 0.5) return exp(x);
    double s = sin(x - 0.5), c = cos(x - 0.5), e = exp(0.5);
    return d == 0 ? e * (1 + s / 4) : d == 1 ? e * c / 4 : -e * s / 4;
}
static double fvp_psi(double y, int d)
{
    return d == 0 ? 2 + cos(PI * y) : d == 1 ? -PI * sin(PI * y) : -PI * PI * cos(PI * y);
}

/* Relative L2 error of the n x n solve at the cell centres. */
static double fvp_error(int n)
{
    pf_fvp_grid gr = {n, 0, 1};
    double h = 1.0 / n, *a = malloc(sizeof(double) * n * n), *f = malloc(sizeof(double) * n * n),
           *u = malloc(sizeof(double) * n * n), *g = malloc(sizeof(double) * 4 * n);
    cr_assert(a && f && u && g);
    for (int iy = 0; iy < n; iy++)
        for (int ix = 0; ix < n; ix++) {
            double x = (ix + 0.5) * h, y = (iy + 0.5) * h;
            a[iy * n + ix] = fvp_a(x);
            f[iy * n + ix] = -fvp_a(x) * (fvp_phi(x, 2) * fvp_psi(y, 0) + fvp_phi(x, 0) * fvp_psi(y, 2));
        }
    /* g = du/dn + u at the face centres: n = -x, +x, -y, +y */
    for (int j = 0; j < n; j++) {
        double c = (j + 0.5) * h;
        g[j] = (fvp_phi(0, 0) - fvp_phi(0, 1)) * fvp_psi(c, 0);
        g[n + j] = (fvp_phi(1, 0) + fvp_phi(1, 1)) * fvp_psi(c, 0);
        g[2 * n + j] = fvp_phi(c, 0) * (fvp_psi(0, 0) - fvp_psi(0, 1));
        g[3 * n + j] = fvp_phi(c, 0) * (fvp_psi(1, 0) + fvp_psi(1, 1));
    }
    cr_assert_eq(pf_fvp_solve(&gr, a, f, g, u), PF_OK, "%s", pf_errmsg());
    double e2 = 0, u2 = 0;
    for (int iy = 0; iy < n; iy++)
        for (int ix = 0; ix < n; ix++) {
            double ex = fvp_phi((ix + 0.5) * h, 0) * fvp_psi((iy + 0.5) * h, 0), d = u[iy * n + ix] - ex;
            e2 += d * d, u2 += ex * ex;
        }
    /* the interpolant reproduces the cell values at the centres */
    cr_expect_eq(pf_fvp_interp(&gr, u, 1.5 * h, 2.5 * h), u[2 * n + 1]);
    free(a), free(f), free(u), free(g);
    return sqrt(e2 / u2);
}

Test(refs, finite_volume_poisson_is_second_order_across_a_coefficient_jump)
{
    double e16 = fvp_error(16), e32 = fvp_error(32), order = log2(e16 / e32);
    cr_log_info("finite-volume Poisson, jump 1 | 4, Robin: rel L2 %.3e (n 16), %.3e (n 32), order %.2f", e16, e32,
                order);
    cr_expect_lt(e32, 1e-3, "rel L2 error %.3e at n = 32", e32);
    cr_expect(order > 1.9 && order < 2.2, "order %.2f between n = 16 and 32, not 2", order);
}

/* Leapfrog against a standing wave with zero-flux walls: on [0,1]^2 with
 * c = 2, u = cos(pi x) cos(2 pi y) cos(w t), w = pi sqrt(5 c). The error
 * at t = 1 (last sample) falls 4x when h and dt halve. */
typedef struct lf_check {
    const pf_wave_grid *gr;
    double t, err, norm;
} lf_check;

static pf_status lf_sample(void *user, int k, const double *u)
{
    lf_check *c = user;
    if (k == 0) return PF_OK;
    double w = PI * sqrt(10), h = c->gr->side / (c->gr->n - 1);
    c->err = c->norm = 0;
    for (int iy = 0; iy < c->gr->n; iy++)
        for (int ix = 0; ix < c->gr->n; ix++) {
            double ex = cos(PI * ix * h) * cos(2 * PI * iy * h) * cos(w * c->t);
            double d = u[iy * c->gr->n + ix] - ex;
            c->err += d * d, c->norm += ex * ex;
        }
    return PF_OK;
}

static double lf_error(int n, int steps)
{
    pf_wave_grid gr = {n, 0, 1};
    double *c = malloc(sizeof(double) * n * n), *u0 = malloc(sizeof(double) * n * n), h = 1.0 / (n - 1);
    cr_assert(c && u0);
    for (int iy = 0; iy < n; iy++)
        for (int ix = 0; ix < n; ix++) c[iy * n + ix] = 2, u0[iy * n + ix] = cos(PI * ix * h) * cos(2 * PI * iy * h);
    lf_check chk = {&gr, 1, 0, 0};
    cr_assert_eq(pf_wave_solve(&gr, c, u0, 1.0 / steps, steps, 2, lf_sample, &chk), PF_OK, "%s", pf_errmsg());
    /* the sampled node values reproduce themselves under interpolation */
    cr_expect_eq(pf_wave_interp(&gr, u0, 2 * h, 3 * h), u0[3 * n + 2]);
    free(c), free(u0);
    return sqrt(chk.err / chk.norm);
}

Test(refs, leapfrog_is_second_order_with_zero_flux_walls)
{
    double e1 = lf_error(33, 200), e2 = lf_error(65, 400), order = log2(e1 / e2);
    cr_log_info("leapfrog, standing wave, Neumann: rel L2 %.3e (n 33), %.3e (n 65) at t = 1, order %.2f", e1, e2,
                order);
    cr_expect_lt(e2, 1e-2, "rel L2 error %.3e at n = 65", e2);
    cr_expect(order > 1.9 && order < 2.2, "order %.2f between n = 33 and 65, not 2", order);
    /* over the CFL limit h / sqrt(2 c) = 1/32 / 2: refused, not blown up */
    pf_wave_grid gr = {33, 0, 1};
    double c[33 * 33], u0[33 * 33] = {0};
    for (int p = 0; p < 33 * 33; p++) c[p] = 2;
    cr_expect_eq(pf_wave_solve(&gr, c, u0, 0.02, 1, 2, lf_sample, NULL), PF_ERR_INVALID);
}

static double gs_half(double x, double y) { return 0.5 + 0 * x * y; }
static double gs_quarter(double x, double y) { return 0.25 + 0 * x * y; }

Test(refs, gray_scott_uniform_fields_follow_the_reaction_odes)
{
    pf_gs_params p = {.b = 0.04, .d = 0.1, .eps1 = 1e-5, .eps2 = 5e-6, .lo = -1, .hi = 1};
    gs_check c;
    gs_run(&p, 8, 0.5, gs_half, gs_quarter, &c);
    /* u' = b (1 - u) - u v^2, v' = -d v + u v^2 by RK4, 10^5 steps */
    double y[2] = {0.5, 0.25}, dt = 1e-4;
    for (int s = 0; s < 100000; s++) {
        double k[4][2], z[2];
        for (int st = 0; st < 4; st++) {
            double w = st == 0 ? 0 : st == 3 ? 1 : 0.5;
            for (int i = 0; i < 2; i++) z[i] = y[i] + (st ? w * dt * k[st - 1][i] : 0);
            k[st][0] = p.b * (1 - z[0]) - z[0] * z[1] * z[1];
            k[st][1] = -p.d * z[1] + z[0] * z[1] * z[1];
        }
        for (int i = 0; i < 2; i++) y[i] += dt / 6 * (k[0][i] + 2 * k[1][i] + 2 * k[2][i] + k[3][i]);
    }
    double err = 0;
    for (int q = 0; q < 4; q++) err = fmax(err, fmax(fabs(c.u[q] - y[0]), fabs(c.v[q] - y[1])));
    cr_log_info("uniform Gray-Scott, h 0.5: max error %.2e (u %.6f, v %.6f at t = 10)", err, y[0], y[1]);
    cr_expect_lt(err, 1e-6, "max error %.3e against the ODE solution", err);
}

/* The FreeFEM scripts' tables (refs/freefem.h): "rows cols", the rows, "end";
 * a cut or malformed file is refused naming it. */
Test(refs, freefem_tables_are_read_whole_or_refused)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/pf_test_fftable_%ld.txt", (long)getpid());
    static const struct {
        const char *text;
        pf_status want;
    } cases[] = {
        {"2 3\n1 2 3\n4 5 6.5e-1\nend\n", PF_OK},
        {"2 3\n1 2 3\n4 5\n", PF_ERR_INVALID},         /* cut inside a row */
        {"2 3\n1 2 3\n4 5 6\n", PF_ERR_INVALID},       /* no end line */
        {"2 3\n1 2 3\n4 5 6\n7\nend\n", PF_ERR_INVALID}, /* more than announced */
        {"x 3\n1 2 3\nend\n", PF_ERR_INVALID},         /* no header */
        {"1 2\n1 nan\nend\n", PF_ERR_NUMERIC},          /* not finite */
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        FILE *f = fopen(path, "w");
        cr_assert_not_null(f);
        fputs(cases[c].text, f);
        fclose(f);
        pf_ff_table t;
        pf_status st = pf_ff_table_read(path, &t);
        cr_expect_eq(st, cases[c].want, "case %zu: %s", c, pf_errmsg());
        if (st == PF_OK) {
            cr_expect_eq(t.rows, 2u);
            cr_expect_eq(t.cols, 3);
            cr_expect_eq(t.v[5], 0.65);
        } else {
            cr_expect(strstr(pf_errmsg(), path), "the message names the file: %s", pf_errmsg());
            cr_expect_null(t.v);
        }
        pf_ff_table_free(&t);
    }
    unlink(path);
    pf_ff_table t;
    cr_expect_eq(pf_ff_table_read(path, &t), PF_ERR_IO, "an absent file");
}

/* The scripts are found from the checkout (tests run in it) or in
 * $PF_REFS_EDP_DIR, which replaces refs/ and must hold the script. */
Test(refs, freefem_scripts_are_found_in_refs_or_the_variables_folder)
{
    char path[PF_FF_PATH_MAX];
    unsetenv("PF_REFS_EDP_DIR");
    cr_assert_eq(pf_ff_script("poisson_2d_classic.edp", path, sizeof path), PF_OK, "%s", pf_errmsg());
    cr_expect(strstr(path, "refs/poisson_2d_classic.edp") && access(path, R_OK) == 0, "%s", path);
    cr_expect_eq(pf_ff_script("no_such.edp", path, sizeof path), PF_ERR_IO);
    cr_expect(strstr(pf_errmsg(), "refs/no_such.edp") && strstr(pf_errmsg(), "PF_REFS_EDP_DIR"), "%s", pf_errmsg());
    setenv("PF_REFS_EDP_DIR", "/nonexistent", 1);
    cr_expect_eq(pf_ff_script("poisson_2d_classic.edp", path, sizeof path), PF_ERR_IO);
    cr_expect(strstr(pf_errmsg(), "/nonexistent/poisson_2d_classic.edp"), "%s", pf_errmsg());
    setenv("PF_REFS_EDP_DIR", "refs", 1);
    cr_expect_eq(pf_ff_script("poisson_2d_classic.edp", path, sizeof path), PF_OK, "%s", pf_errmsg());
    cr_expect_str_eq(path, "refs/poisson_2d_classic.edp");
    unsetenv("PF_REFS_EDP_DIR");
}

/* A cross-check's set-up: the PDE's PINNacle reference into r and the
 * script's path into edp (PF_FF_PATH_MAX); skips the test, saying why,
 * without FreeFem++ or the file. */
static void ff_cross_check(const char *pde, const char *script, pf_reference *r, char *edp)
{
    char exe[PF_FF_PATH_MAX];
    if (pf_ff_find(exe, sizeof exe) != PF_OK) cr_skip_test("%s", pf_errmsg());
    const pf_pde *p;
    cr_assert_eq(pf_pdes_lookup(pde, &p), PF_OK);
    require_pde_data(p);
    cr_assert_eq(pf_pde_reference(p, r), PF_OK, "%s: %s", pde, pf_errmsg());
    cr_assert_eq(pf_ff_script(script, edp, PF_FF_PATH_MAX), PF_OK, "%s", pf_errmsg());
}

/* poisson_2d_classic's rel L2 difference to PINNacle's COMSOL file at its
 * points, by the FreeFEM machinery of the finite-element references
 * (refs/poisson_2d_classic.edp through pf_ff_run, points and values files
 * as pf-ref-heat_2d_complex_geometry writes and reads them) at n, circles
 * 4x finer. */
static double freefem_poisson_classic(const pf_reference *r, const char *dir, const char *edp, int n)
{
    char pts[128], out[128], log[128], ns[16];
    snprintf(pts, sizeof pts, "%s/points.txt", dir), snprintf(out, sizeof out, "%s/u.txt", dir);
    snprintf(log, sizeof log, "%s/log.txt", dir), snprintf(ns, sizeof ns, "%d", n);
    FILE *f = fopen(pts, "w");
    cr_assert_not_null(f);
    fprintf(f, "%d\n", r->n);
    for (int i = 0; i < r->n; i++) fprintf(f, "%.9g %.9g\n", (double)r->x[2 * i], (double)r->x[2 * i + 1]);
    fclose(f);
    const char *args[] = {"-n", ns, "-holes", "4", "-pts", pts, "-out", out, NULL};
    cr_assert_eq(pf_ff_run(edp, args, log), PF_OK, "%s", pf_errmsg());
    pf_ff_table t;
    cr_assert_eq(pf_ff_table_read(out, &t), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(t.rows, (size_t)r->n);
    cr_assert_eq(t.cols, 1);
    double *ref = malloc(sizeof(double) * r->n);
    for (int i = 0; i < r->n; i++) ref[i] = r->u[i];
    double e = pf_refs_rel_l2(t.v, ref, (size_t)r->n);
    free(ref);
    pf_ff_table_free(&t);
    unlink(pts), unlink(out), unlink(log);
    return e;
}

/* Cross-check of the finite-element path against a PINNacle file: P2 on
 * the square minus 4 disks, Dirichlet, at n 16 and 32 (measured 2.1e-3 and
 * 5.1e-4; 1.4e-4 at n 64, 4.6e-5 at 128: second order towards the file,
 * the polygonal circles' error). Skipped without FreeFem++ or the file. */
Test(refs, freefem_poisson_2d_classic_matches_pinnacles_comsol_file)
{
    char edp[PF_FF_PATH_MAX];
    pf_reference r;
    ff_cross_check("poisson_2d_classic", "poisson_2d_classic.edp", &r, edp);
    cr_assert_eq(r.n, 1246);
    char dir[] = "/tmp/pf_test_ffpc_XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    double e16 = freefem_poisson_classic(&r, dir, edp, 16), e32 = freefem_poisson_classic(&r, dir, edp, 32);
    cr_log_info("poisson_2d_classic, FreeFEM P2 against poisson1_cg_data.dat: rel L2 %.3g (n 16), %.3g (n 32)", e16, e32);
    cr_expect_lt(e32, 1e-3, "n 32: rel L2 %g against the COMSOL file", e32);
    cr_expect_gt(e16 / e32, 3.0, "closer to the file as the mesh is refined: %g then %g", e16, e32);
    rmdir(dir);
    pf_reference_release(&r);
}

/* navier_stokes_2d_classic's rel L2 differences to PINNacle's COMSOL file
 * at its nodes, by refs/navier_stokes_2d_classic.edp (the Navier-Stokes
 * machinery of the navier_stokes_2d_long_time reference: Taylor-Hood P2/P1
 * on the same graded squares) through pf_ff_run at n x n: e[0] on (u, v),
 * e[1] on p, e[2] on p farther than 0.1 from the lid's corners. */
static void freefem_cavity(const pf_reference *r, const char *dir, const char *edp, int n, double e[3])
{
    char pts[128], out[128], log[128], ns[16];
    snprintf(pts, sizeof pts, "%s/points.txt", dir), snprintf(out, sizeof out, "%s/uvp.txt", dir);
    snprintf(log, sizeof log, "%s/log.txt", dir), snprintf(ns, sizeof ns, "%d", n);
    FILE *f = fopen(pts, "w");
    cr_assert_not_null(f);
    fprintf(f, "%d\n", r->n);
    for (int i = 0; i < r->n; i++) fprintf(f, "%.9g %.9g\n", (double)r->x[2 * i], (double)r->x[2 * i + 1]);
    fclose(f);
    const char *args[] = {"-n", ns, "-pts", pts, "-out", out, NULL};
    cr_assert_eq(pf_ff_run(edp, args, log), PF_OK, "%s", pf_errmsg());
    pf_ff_table t;
    cr_assert_eq(pf_ff_table_read(out, &t), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(t.rows, (size_t)r->n);
    cr_assert_eq(t.cols, 3);
    double num[3] = {0}, den[3] = {0};
    for (int i = 0; i < r->n; i++) {
        double x = r->x[2 * i], y = r->x[2 * i + 1];
        int far = hypot(x, y - 1) > 0.1 && hypot(x - 1, y - 1) > 0.1;
        for (int c = 0; c < 3; c++) {
            double d = t.v[3 * i + c] - r->u[3 * i + c], ref = r->u[3 * i + c];
            int k = c < 2 ? 0 : 1;
            num[k] += d * d, den[k] += ref * ref;
            if (c == 2 && far) num[2] += d * d, den[2] += ref * ref;
        }
    }
    for (int k = 0; k < 3; k++) e[k] = sqrt(num[k] / den[k]);
    pf_ff_table_free(&t);
    unlink(pts), unlink(out), unlink(log);
}

/* Cross-check of the Navier-Stokes path against a PINNacle file: the
 * lid-driven cavity, Newton's method, at n 24 and 48 (measured on (u, v)
 * 1.6e-3 and 3.7e-4; 3.0e-4 at n 64, 2.0e-4 at n 128, where our own n 64
 * and n 128 differ by 2.5e-4). The pressure is singular at the lid's
 * corners, where the file has nodes: there no two meshes agree (ours at
 * n 64 and 128 differ by 2.4e-2 on p), so p is checked farther than 0.1
 * from them (measured 5.1e-3 at n 24, 1.5e-3 at n 48, 1.0e-3 at n 128) and
 * only logged over all nodes (4.6e-2, 3.4e-2). Skipped without FreeFem++
 * or the file. */
Test(refs, freefem_navier_stokes_cavity_matches_pinnacles_comsol_file, .timeout = 120)
{
    char edp[PF_FF_PATH_MAX];
    if (sizeof(pf_real) != 4) cr_skip_test("the float build runs it (FreeFEM's solution is the same in both)");
    pf_reference r;
    ff_cross_check("navier_stokes_2d_classic", "navier_stokes_2d_classic.edp", &r, edp);
    cr_assert_eq(r.n, 10201);
    cr_assert_eq(r.d_out, 3);
    setenv("OMP_NUM_THREADS", "1", 0), setenv("OPENBLAS_NUM_THREADS", "1", 0); /* as pf-ref-* do */
    char dir[] = "/tmp/pf_test_ffns_XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    double e24[3], e48[3];
    freefem_cavity(&r, dir, edp, 24, e24), freefem_cavity(&r, dir, edp, 48, e48);
    cr_log_info("navier_stokes_2d_classic, FreeFEM P2/P1 against lid_driven_a4.dat: rel L2 (u, v) %.3g (n 24), "
                "%.3g (n 48); p %.3g, %.3g; p beyond 0.1 of the lid's corners %.3g, %.3g",
                e24[0], e48[0], e24[1], e48[1], e24[2], e48[2]);
    cr_expect_lt(e48[0], 1e-3, "n 48: rel L2 on (u, v) %g against the COMSOL file", e48[0]);
    cr_expect_gt(e24[0] / e48[0], 3.0, "closer to the file as the mesh is refined: %g then %g", e24[0], e48[0]);
    cr_expect_lt(e48[2], 3e-3, "n 48: rel L2 on p away from the lid's corners %g", e48[2]);
    cr_expect_gt(e24[2] / e48[2], 2.0, "p closer to the file as the mesh is refined: %g then %g", e24[2], e48[2]);
    rmdir(dir);
    pf_reference_release(&r);
}

/* A snapshot reference (rows node * K + k, pinnacle_dat.h): its snapshot
 * count K, the rows that share the first row's (x, y). */
static int snapshot_count(const pf_reference *r)
{
    int k = 1;
    while (k < r->n && r->x[3 * k] == r->x[0] && r->x[3 * k + 1] == r->x[1]) k++;
    return k;
}

/* Runs a heat script on the nodes of snapshot reference r (K snapshots)
 * with args (NULL-terminated; "-pts" and "-out" are added here) and
 * returns its rel L2 difference to r over the script's columns, r's first
 * snapshots. */
static double freefem_snapshots(const pf_reference *r, const char *dir, const char *edp, const char *const *args)
{
    char pts[128], out[128], log[128];
    snprintf(pts, sizeof pts, "%s/points.txt", dir), snprintf(out, sizeof out, "%s/u.txt", dir);
    snprintf(log, sizeof log, "%s/log.txt", dir);
    int K = snapshot_count(r), nodes = r->n / K;
    cr_assert_eq(nodes * K, r->n, "%d rows are not nodes x %d snapshots", r->n, K);
    FILE *f = fopen(pts, "w");
    cr_assert_not_null(f);
    fprintf(f, "%d\n", nodes);
    for (int i = 0; i < nodes; i++) fprintf(f, "%.9g %.9g\n", (double)r->x[3 * i * K], (double)r->x[3 * i * K + 1]);
    fclose(f);
    const char *argv[24];
    int a = 0;
    for (; args[a]; a++) argv[a] = args[a];
    cr_assert_leq(a, 19);
    argv[a++] = "-pts", argv[a++] = pts, argv[a++] = "-out", argv[a++] = out, argv[a] = NULL;
    cr_assert_eq(pf_ff_run(edp, argv, log), PF_OK, "%s", pf_errmsg());
    pf_ff_table t;
    cr_assert_eq(pf_ff_table_read(out, &t), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(t.rows, (size_t)nodes);
    cr_assert_leq(t.cols, K);
    size_t m = (size_t)nodes * t.cols;
    double *ref = malloc(sizeof(double) * m);
    cr_assert_not_null(ref);
    for (int i = 0; i < nodes; i++)
        for (int k = 0; k < t.cols; k++) ref[(size_t)i * t.cols + k] = r->u[(size_t)i * K + k];
    double e = pf_refs_rel_l2(t.v, ref, m);
    free(ref);
    pf_ff_table_free(&t);
    unlink(pts), unlink(out), unlink(log);
    return e;
}

/* heat_2d_long_time's FreeFEM solution (refs/heat_2d_long_time.edp: P2,
 * BDF2 with the source extrapolated, dt 0.0125) against PINNacle's COMSOL
 * file over t <= 5 (26 of its 501 snapshots, the whole run being about a
 * minute at n 32): measured 6.7e-2 at n 16, 2.2e-2 at n 32 (8.5e-3 at n
 * 64; over t <= 100 3.8e-2 at n 32, 3.5e-2 at n 64). The 1e-3 is
 * out of reach: the file itself is not converged (the script's header and
 * docs/references.md say why), so this checks that we solve the file's problem and
 * approach it as the mesh is refined. */
Test(refs, freefem_heat_2d_long_time_approaches_pinnacles_comsol_file)
{
    char edp[PF_FF_PATH_MAX];
    pf_reference r;
    ff_cross_check("heat_2d_long_time", "heat_2d_long_time.edp", &r, edp);
    cr_assert_eq(r.n, 192 * 501);
    char dir[] = "/tmp/pf_test_fflt_XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    const char *a16[] = {"-n", "16", "-substeps", "16", "-T", "5", "-K", "25", NULL};
    const char *a32[] = {"-n", "32", "-substeps", "16", "-T", "5", "-K", "25", NULL};
    double e16 = freefem_snapshots(&r, dir, edp, a16), e32 = freefem_snapshots(&r, dir, edp, a32);
    cr_log_info("heat_2d_long_time, FreeFEM P2 against heat_longtime.dat, t <= 5: rel L2 %.3g (n 16), %.3g (n 32)", e16,
                e32);
    cr_expect_lt(e32, 3e-2, "n 32: rel L2 %g against the COMSOL file", e32);
    cr_expect_gt(e16 / e32, 2.0, "closer to the file as the mesh is refined: %g then %g", e16, e32);
    rmdir(dir);
    pf_reference_release(&r);
}

/* heat_2d_varying_coefficient's FreeFEM solution against PINNacle's COMSOL
 * file (refs/heat_2d_varying_coefficient.edp, all 51 snapshots, 2 steps
 * per 0.1). The file does not solve the PDE as stated (kappa Lap u, kappa
 * = exp(GRF)): that model differs from it by 4.7. It matches div(c grad
 * u) with c = 2 where the GRF > 0, else 1 (the script's header says how we
 * found it): measured 1.6e-2 at n 16, 6.4e-3 at n 32, 7.1e-3 at n 64; the
 * rest is read as the file's own error at the jumps of c. */
Test(refs, freefem_heat_2d_varying_coefficient_matches_pinnacles_comsol_file_with_a_two_valued_c)
{
    char edp[PF_FF_PATH_MAX];
    pf_reference r;
    ff_cross_check("heat_2d_varying_coefficient", "heat_2d_varying_coefficient.edp", &r, edp);
    cr_assert_eq(r.n, 983 * 51);
    char dir[] = "/tmp/pf_test_ffvc_XXXXXX", coef[64];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(coef, sizeof coef, "%s/kappa.txt", dir);
    pf_coef_field *heat; /* the PDE's kappa, laid out as heat_2d_coef_256.dat */
    cr_assert_eq(pf_coef_field_alloc(PF_COEF_HEAT, &heat), PF_OK);
    FILE *f = fopen(coef, "w");
    cr_assert_not_null(f);
    for (int i = 0; i < heat->n; i++)
        for (int j = 0; j < heat->n; j++)
            fprintf(f, "%.17g %.17g %.17g\n", heat->x[j], heat->x[i], heat->v[i * heat->n + j]);
    fclose(f);
    pf_coef_field_free(heat);
    const char *a16[] = {"-n", "16", "-substeps", "2", "-coef", coef, NULL};
    const char *a32[] = {"-n", "32", "-substeps", "2", "-coef", coef, NULL};
    const char *apde[] = {"-n", "16", "-substeps", "2", "-coef", coef, "-model", "pde", NULL};
    double e16 = freefem_snapshots(&r, dir, edp, a16), e32 = freefem_snapshots(&r, dir, edp, a32);
    double epde = freefem_snapshots(&r, dir, edp, apde);
    cr_log_info("heat_2d_varying_coefficient, FreeFEM P2 against heat_darcy.dat: rel L2 %.3g (n 16), %.3g (n 32); "
                "the stated PDE %.3g (n 16)",
                e16, e32, epde);
    cr_expect_lt(e32, 1e-2, "n 32: rel L2 %g against the COMSOL file", e32);
    cr_expect_gt(e16 / e32, 2.0, "closer to the file as the mesh is refined: %g then %g", e16, e32);
    cr_expect_gt(epde, 1.0, "the PDE as stated is far from the file: %g", epde);
    unlink(coef);
    rmdir(dir);
    pf_reference_release(&r);
}
