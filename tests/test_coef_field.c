/*
 * test_coef_field.c — PINNacle's generated coefficient fields (io/coef_field).
 *
 * Expected values come from outside the library: the reference MT19937
 * (seed 5489), well-known NumPy/Python outputs (RandomState(0), random.seed(0)),
 * NumPy 1.24.2 and SciPy 1.10.1 run on an AVX-512 machine (hex literals below),
 * docs/pdes.md §R.1-§R.2 (check values, Burgers coefficients), and the
 * regenerated .dat files, which the GRF must reproduce character for character.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/real.h"
#include "core/status.h"
#include "io/coef_field.h"
#include "data_fixture.h"

#define assert_close(actual, expected, tol, ...)                                    \
    do {                                                                           \
        double a_ = (double)(actual), e_ = (double)(expected);                    \
        cr_assert(fabs(a_ - e_) <= (tol), __VA_ARGS__);                           \
    } while (0)

static int same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

/* ------------------------------------------------------------ MT19937 --- */

Test(coef_field, mt19937_reference_outputs)
{
    pf_mt19937 st;
    pf_mt19937_seed(&st, 5489u);
    cr_assert_eq(pf_mt19937_next32(&st), 3499211612u, "first output for seed 5489");
    for (int k = 2; k < 10000; k++) pf_mt19937_next32(&st);
    /* the C++ standard's check: the 10000th output of default-seeded mt19937 */
    cr_assert_eq(pf_mt19937_next32(&st), 4123659995u, "10000th output for seed 5489");
}

/* An integer seed goes through init_genrand, not init_by_array: the two give
 * NumPy's RandomState(0) and Python's random.seed(0) first doubles. */
Test(coef_field, numpy_int_seed_is_init_genrand)
{
    pf_mt19937 st;
    pf_mt19937_seed(&st, 0);
    cr_assert(same_bits(pf_mt19937_random_sample(&st), 0.5488135039273248),
              "RandomState(0).random_sample()");
    uint32_t key = 0;
    pf_mt19937_seed_array(&st, &key, 1);
    cr_assert(same_bits(pf_mt19937_random_sample(&st), 0.8444218515250481),
              "init_by_array([0]) = RandomState([0]) = random.seed(0)");
}

/* np.random.seed(0); np.random.randn(3): the second value is the cached f*x1 */
Test(coef_field, legacy_gauss_and_its_cache)
{
    static const double want[3] = {1.764052345967664, 0.4001572083672233, 0.9787379841057392};
    pf_mt19937 st;
    pf_mt19937_seed(&st, 0);
    for (int k = 0; k < 3; k++)
        cr_assert(same_bits(pf_mt19937_gauss(&st), want[k]), "randn #%d", k);
    /* reseeding clears the cache */
    pf_mt19937_seed(&st, 0);
    cr_assert(same_bits(pf_mt19937_gauss(&st), want[0]), "reseeded");
}

/* ------------------------------------------------ NumPy float64 kernels --- */

/* Inputs where NumPy's SVML kernels differ from the correctly rounded value
 * (so libm or 1/x would fail), plus ordinary ones. */
Test(coef_field, np_power_and_exp_match_numpy_avx512)
{
    static const double pw[][3] = {
        {0x1.600000000dbe7p+3, -1.0, 0x1.745d1745c2ea7p-4}, /* 11 + 1e-10; 1/x ends ...ea6 */
        {0x1.6000000006df3p+4, -1.0, 0x1.745d1745ca2f7p-5},
        {0x1.7000000006df3p+4, -1.0, 0x1.642c8590ab6f9p-5},
        {3.7, 2.5, 0x1.a554f448da1d1p+4},
        {0.01, -0.75, 0x1.f9f6e4990f227p+4},
        /* 1/mantissa near a multiple of 1/64, where vrcp14pd and the exact
         * reciprocal round to different table entries */
        {0x1.c0e00000000dcp+6, -1.0, 0x1.2400490012371p-7},
        {0x1.f8200000000dcp+2, 0x1.7ae147ae147aep-2, 0x1.12b3d37dad670p+1},
        {0x1.181000000006ep+2, -0x1.7333333333333p+1, 0x1.c53e92b42841dp-7},
    };
    for (size_t k = 0; k < sizeof pw / sizeof pw[0]; k++)
        cr_assert(same_bits(pf_np_power(pw[k][0], pw[k][1]), pw[k][2]), "np.power(%a, %a)",
                  pw[k][0], pw[k][1]);
    static const double ex[][2] = {
        {0x1.1133e583129d6p+0, 0x1.741fdd31b9d90p+1}, /* glibc: ...d8f */
        {0x1.10fd37b09afbfp+0, 0x1.73d06a49fd97cp+1},
        {0x1.0e1d7e4fd724cp+0, 0x1.6fa9d36c565f7p+1},
        {-3.25, 0x1.3da368521902dp-5},
        {10.0, 0x1.5829dcf950560p+14},
        {0.0, 1.0},
    };
    for (size_t k = 0; k < sizeof ex / sizeof ex[0]; k++)
        cr_assert(same_bits(pf_np_exp(ex[k][0]), ex[k][1]), "np.exp(%a)", ex[k][0]);
}

/* NumPy 1.24.2: np.sum(1.0 / np.arange(1, 20001)) = 0x1.4f62202468759p+3;
 * neither a left-to-right sum nor one pairwise sum over all 20000 gives it. */
Test(coef_field, np_sum_is_buffered_pairwise)
{
    enum { N = 20000 };
    double *a = malloc(N * sizeof *a);
    cr_assert_not_null(a);
    double seq = 0.0;
    for (int k = 0; k < N; k++) {
        a[k] = 1.0 / (k + 1);
        seq += a[k];
    }
    double s = pf_np_sum(a, N);
    cr_assert(same_bits(s, 0x1.4f62202468759p+3), "got %a", s);
    cr_assert(!same_bits(seq, s), "the order matters for this sum");
    free(a);
}

/* ---------------------------------------------- regenerated .dat files --- */

/* Read a whole file; NULL when absent. */
static char *slurp(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) return NULL;
    fseek(fp, 0, SEEK_END);
    long sz = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    char *buf = malloc((size_t)sz + 1);
    cr_assert_not_null(buf);
    cr_assert_eq(fread(buf, 1, (size_t)sz, fp), (size_t)sz);
    buf[sz] = '\0';
    fclose(fp);
    *len = (size_t)sz;
    return buf;
}

/* $PF_DATA_DIR/regenerated/<name>, or skip the test (data_fixture.h) */
static char *regenerated(const char *name, size_t *len)
{
    require_regenerated(name);
    char rel[256], path[PF_DATA_PATH_MAX];
    snprintf(rel, sizeof rel, "regenerated/%s", name);
    cr_assert_eq(pf_data_path(rel, path, sizeof path), PF_OK, "%s", pf_errmsg());
    char *buf = slurp(path, len);
    cr_assert_not_null(buf, "cannot read '%s'", path);
    return buf;
}

/* Every line of the file equals NumPy savetxt's "%.18e %.18e %.18e" of the
 * generated node (x[j], x[i], v[i*n + j]); the values also parse back. */
static void check_dat(const pf_coef_field *f, const char *text, size_t len)
{
    const int n = f->n;
    const char *p = text;
    char line[256];
    for (int r = 0; r < n * n; r++) {
        int i = r / n, j = r % n;
        int w = snprintf(line, sizeof line, "%.18e %.18e %.18e\n", f->x[j], f->x[i], f->v[r]);
        cr_assert((size_t)(p - text) + (size_t)w <= len, "file ends before row %d", r);
        if (memcmp(p, line, (size_t)w) != 0) {
            const char *e = memchr(p, '\n', len - (size_t)(p - text));
            int flen = e ? (int)(e - p) : 0;
            cr_assert_fail("row %d differs:\n  file: %.*s\n  ours: %s", r, flen, p, line);
        }
        char *end;
        double x = strtod(p, &end), y = strtod(end, &end), v = strtod(end, &end);
        cr_assert(same_bits(x, f->x[j]) && same_bits(y, f->x[i]) && same_bits(v, f->v[r]),
                  "row %d does not parse back to the node", r);
        p += w;
    }
    cr_assert_eq((size_t)(p - text), len, "trailing data after %d rows", n * n);
}

Test(coef_field, heat_file_reproduced_exactly, .timeout = 60)
{
    size_t len;
    char *text = regenerated("heat_2d_coef_256.dat", &len);
    pf_coef_field *f;
    cr_assert_eq(pf_coef_field_alloc(PF_COEF_HEAT, &f), PF_OK);
    check_dat(f, text, len);
    free(text);
    pf_coef_field_free(f);
}

Test(coef_field, darcy_file_reproduced_exactly, .timeout = 60)
{
    size_t len;
    char *text = regenerated("darcy_2d_coef_256.dat", &len);
    pf_coef_field *f;
    cr_assert_eq(pf_coef_field_alloc(PF_COEF_DARCY, &f), PF_OK);
    check_dat(f, text, len);
    free(text);
    pf_coef_field_free(f);
}

/* docs/pdes.md §R.1's check values, which hold without the files */
Test(coef_field, grf_check_values)
{
    pf_coef_field *heat, *darcy;
    cr_assert_eq(pf_coef_field_alloc(PF_COEF_HEAT, &heat), PF_OK);
    cr_assert_eq(pf_coef_field_alloc(PF_COEF_DARCY, &darcy), PF_OK);
    cr_assert_eq(heat->n, 256);
    cr_assert(same_bits(heat->x[1], 1.0 / 255) && heat->x[255] == 1.0, "np.linspace(0, 1, 256)");
    int twelve = 0, one = 0;
    double lo = INFINITY, hi = -INFINITY;
    for (int k = 0; k < 256 * 256; k++) {
        twelve += darcy->v[k] == 12.0;
        one += darcy->v[k] == 1.0;
        lo = fmin(lo, heat->v[k]);
        hi = fmax(hi, heat->v[k]);
        /* the same GRF, drawn from the same seed, under both maps */
        cr_assert_eq(darcy->v[k] == 12.0, heat->v[k] > 1.0, "node %d: sign of the GRF", k);
    }
    cr_assert_eq(twelve, 34075);
    cr_assert_eq(one, 31461);
    cr_assert_eq(darcy->v[0], 12.0);
    cr_assert(same_bits(lo, 0.060428131473654632), "min %.17g", lo);
    cr_assert(same_bits(hi, 14.23825016495155), "max %.17g", hi);
    cr_assert(same_bits(heat->v[0], 2.644895188888257), "first %.17g", heat->v[0]);
    double mean = pf_np_sum(heat->v, 256 * 256) / 65536.0;
    assert_close(mean, 1.6301550250701276, 1e-15, "mean %.17g", mean);
    pf_coef_field_free(heat);
    pf_coef_field_free(darcy);
}

Test(coef_field, grf_is_normalised)
{
    enum { N = 64 };
    double *g = malloc(N * N * sizeof *g);
    cr_assert_not_null(g);
    cr_assert_eq(pf_coef_grf(7u, 3.0, N, g), PF_OK);
    double s = 0.0, s2 = 0.0;
    for (int k = 0; k < N * N; k++) {
        s += g[k];
        s2 += g[k] * g[k];
    }
    assert_close(s / (N * N), 0.0, 1e-12, "mean");
    assert_close(s2 / (N * N), 1.0, 1e-12, "variance");
    free(g);
}

/* ------------------------------------------------------ the evaluators --- */

/* SciPy 1.10.1: griddata(heat file[:, :2], heat file[:, 2], pts, 'nearest') */
Test(coef_field, heat_kappa_matches_scipy_nearest)
{
    static const double pts[][3] = {
        {0.36953631060220671, 0.0037342420520759534, 3.6813216639425637},
        {0.83004772980174557, 0.15446108106143985, 1.984129156492306},
        {0.26759930456378545, 0.88033215398082865, 12.085924211635881},
        {0.50979080986842318, 0.84715024636586933, 1.1777630671213761},
        {0.63971716694252623, 0.74177094736185711, 0.42010554203520373},
        {0.09149560506304566, 0.54114382137648875, 0.49147518952482827},
        {0.50777223630034996, 0.87133937669288064, 1.3423394903143309},
        {0.36126405901415759, 0.59818406720721307, 1.1716721644575832},
        {0, 0, 2.644895188888257},
        {1, 1, 2.5999648627717478},
        {0.5, 0.5, 0.81499509345741494},
    };
    pf_coef_field *f;
    cr_assert_eq(pf_coef_field_alloc(PF_COEF_HEAT, &f), PF_OK);
    for (size_t k = 0; k < sizeof pts / sizeof pts[0]; k++)
        cr_assert(same_bits(pf_heat2d_kappa(f, pts[k][0], pts[k][1]), pts[k][2]), "point %zu", k);
    /* outside the square: the nearest boundary node */
    cr_assert_eq(pf_heat2d_kappa(f, -0.5, 2.0), f->v[255 * 256]);
    /* batch form on (x, y, t) rows */
    pf_real rows[2][3] = {{(pf_real)0.25, (pf_real)0.75, 3}, {1, 0, 5}};
    pf_real out[2];
    pf_heat2d_kappa_batch(f, 2, &rows[0][0], 3, out);
    for (int k = 0; k < 2; k++)
        cr_assert_eq(out[k], (pf_real)pf_heat2d_kappa(f, (double)rows[k][0], (double)rows[k][1]));
    pf_coef_field_free(f);
}

/* SciPy 1.10.1: griddata(darcy file[:, :2], darcy file[:, 2], (X, Y)) (linear).
 * The first twelve points lie in cells whose two diagonals give different
 * values, so they check the stored triangulation. */
static const double darcy_pts[][3] = {
    {0.12295263432389206, 0.24889037562168465, 6.8624963811745801},
    {0.4255008978642148, 0.34718469965193993, 11.616898967185907},
    {0.83449921635317892, 0.85362979275109119, 11.999999999999998},
    {0.51597375504966547, 0.92467990622983975, 3.4207540603886386},
    {0.20913405968212298, 0.72272991066790082, 4.2573994234618429},
    {0.51595107357868164, 0.89892692237167382, 9.5099827474550089},
    {0.93420160065593782, 0.78238797369475621, 6.5982662137911836},
    {0.51168519064782425, 0.66568745358398318, 9.4697329297799477},
    {0.45324523824586116, 0.31179792387435179, 12},
    {0.49999264337739646, 0.61313140765967211, 4.8335984853801559},
    {0.74591010358951182, 0.9541782011231027, 4.4698541503032345},
    {0.44162831087266313, 0.33458966287996939, 8.4759956216858594},
    {0.29999999999999999, 0.69999999999999996, 1},
    {0.123456, 0.65432100000000004, 1},
    {1, 1, 12},
    {0, 0.5, 1},
};

Test(coef_field, darcy_linear_matches_scipy_delaunay)
{
    pf_coef_field *f;
    cr_assert_eq(pf_coef_field_alloc(PF_COEF_DARCY, &f), PF_OK);
    for (size_t k = 0; k < sizeof darcy_pts / sizeof darcy_pts[0]; k++) {
        const double *p = darcy_pts[k];
        assert_close(pf_coef_field_linear(f, p[0], p[1], NULL, NULL), p[2], 1e-12, "point %zu", k);
        /* wave_2d_heterogeneous evaluates at ((x+1)/2, (y+1)/2) */
        assert_close(pf_wave2d_c(f, 2 * p[0] - 1, 2 * p[1] - 1, NULL, NULL), p[2], 1e-9,
                     "wave point %zu", k);
    }
    /* nodes return their values; outside is NaN like SciPy's fill value */
    cr_assert_eq(pf_coef_field_linear(f, f->x[17], f->x[200], NULL, NULL), f->v[200 * 256 + 17]);
    cr_assert(isnan(pf_coef_field_linear(f, 1.0000001, 0.5, NULL, NULL)));
    cr_assert(isnan(pf_wave2d_c(f, 0.0, -1.01, NULL, NULL)));
    pf_real rows[1][3] = {{(pf_real)-0.5, (pf_real)0.25, 1}};
    pf_real out[1];
    pf_wave2d_c_batch(f, 1, &rows[0][0], 3, out);
    cr_assert_eq(out[0], (pf_real)pf_wave2d_c(f, (double)rows[0][0], (double)rows[0][1], NULL, NULL));
    pf_coef_field_free(f);
}

/* The gradient is the slope of the interpolant inside each triangle. */
Test(coef_field, linear_gradient_matches_differences)
{
    pf_coef_field *f;
    cr_assert_eq(pf_coef_field_alloc(PF_COEF_DARCY, &f), PF_OK);
    const double h = 1e-7;
    for (size_t k = 0; k < 12; k++) {
        double x = 2 * darcy_pts[k][0] - 1, y = 2 * darcy_pts[k][1] - 1, cx, cy;
        pf_wave2d_c(f, x, y, &cx, &cy);
        double fx = (pf_wave2d_c(f, x + h, y, NULL, NULL) - pf_wave2d_c(f, x - h, y, NULL, NULL)) / (2 * h);
        double fy = (pf_wave2d_c(f, x, y + h, NULL, NULL) - pf_wave2d_c(f, x, y - h, NULL, NULL)) / (2 * h);
        assert_close(cx, fx, 1e-5 * fmax(1.0, fabs(fx)), "c_x at point %zu", k);
        assert_close(cy, fy, 1e-5 * fmax(1.0, fabs(fy)), "c_y at point %zu", k);
    }
    pf_coef_field_free(f);
}

/* ---------------------------------------------------- Burgers-2D (§R.2) --- */

/* docs/pdes.md §R.2's table, except two entries that docs/pdes.md prints one digit
 * short of NumPy's repr, which name different doubles: A_u[3][1]
 * (-0.00572499491770993) and B_u[2][1] (0.00821437099036224). */

static const double burgers_a[2][4][4] = {
    {{0.334388846115497, 0.34652405528776, -0.4094101531026632, -0.9090384993258345},
     {-0.6912196143353215, -1.7980230914333803, -0.5207208957694316, 0.22128904512463018},
     {-0.47888249852579906, -1.4137026956000105, -2.130710660995937, 0.9527376443485737},
     {-1.8411753226069967, -0.0057249949177099295, 0.5233856230141435, 0.3436196139735352}},
    {{0.620267637636024, 0.096896337939043, 0.3657667170635515, 1.6389316095213073},
     {-0.5786103958843521, 0.3625343270936677, 0.6442699340325998, 0.578267995906849},
     {-0.1160403591766653, 0.5687408541975952, -0.7151141345844126, -0.9097057226674482},
     {-0.03653751624989751, 0.4925352565339704, 0.03551218114912034, -0.4268710551537709}},
};
static const double burgers_b[2][4][4] = {
    {{-1.9962111238120372, 0.0654555406713729, -0.13834947727301677, 1.5462205162628342},
     {0.40767439071894357, -0.16912328172710947, 0.20611548336758795, -0.6156592460074787},
     {0.14682918357253302, 0.008214370990362239, 1.3461487856886523, 0.21207158246359795},
     {-0.2902145407216377, -0.5639292003636266, 0.6430902297089893, -0.9987094644769943}},
    {{1.5118342359670847, 1.0770860243252083, 0.36732000521730374, -0.5057455316639976},
     {-0.30631081732292953, 0.04799628080353156, 0.7029960102487661, -0.40966803690217213},
     {-0.570883098435212, -0.7620293696779817, 1.0642042104115248, 0.32956479041216913},
     {-0.5115364756461513, -0.19279844434001003, 1.0285419660377868, 0.8181385537370592}},
};

Test(coef_field, burgers_coefficients_and_scale, .timeout = 60)
{
    pf_burgers2d_ic ic;
    pf_burgers2d_ic_init(&ic);
    for (int c = 0; c < 2; c++)
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++) {
                cr_assert(same_bits(ic.a[c][i][j], burgers_a[c][i][j]), "A[%d][%d][%d]", c, i, j);
                cr_assert(same_bits(ic.b[c][i][j], burgers_b[c][i][j]), "B[%d][%d][%d]", c, i, j);
            }
    cr_assert(same_bits(ic.c[0], 0.6560540496331863) && same_bits(ic.c[1], 0.4893835592991457));
    cr_assert(same_bits(ic.m, 8.151189461937037), "M = %.17g", ic.m);
    double val[2];
    pf_burgers2d_ic_eval(&ic, 0.0, 0.0, val, NULL, NULL);
    assert_close(val[0], 0.6093427685800314, 4e-16, "u0(0,0) closed form");
    assert_close(val[1], 1.3944564496783616, 4e-16, "v0(0,0) closed form");
}

Test(coef_field, burgers_grid_fields, .timeout = 60)
{
    pf_coef_field *u, *v;
    cr_assert_eq(pf_coef_field_alloc(PF_COEF_BURGERS_U0, &u), PF_OK);
    cr_assert_eq(pf_coef_field_alloc(PF_COEF_BURGERS_V0, &v), PF_OK);
    cr_assert_eq(u->n, 512);
    cr_assert(u->x[511] == 4.0 && same_bits(u->x[1], 4.0 / 511), "np.linspace(0, 4, 512)");
    /* docs/pdes.md's check values: exact, since sin(0) and cos(0) are */
    cr_assert(same_bits(u->v[0], 0.6093427685800314), "u0(0,0) = %.17g", u->v[0]);
    cr_assert(same_bits(v->v[0], 1.3944564496783616), "v0(0,0) = %.17g", v->v[0]);
    double ulo = INFINITY, uhi = -INFINITY, vlo = INFINITY, vhi = -INFINITY;
    for (int k = 0; k < 512 * 512; k++) {
        ulo = fmin(ulo, u->v[k]);
        uhi = fmax(uhi, u->v[k]);
        vlo = fmin(vlo, v->v[k]);
        vhi = fmax(vhi, v->v[k]);
    }
    /* NumPy 1.24.2: -2.2624033348433445, 2.380183525081784, -0.9042782280650158,
     * 2.489383559299146 (its SVML sin/cos differ from libm by a few ulps) */
    assert_close(ulo, -2.2624033348433445, 1e-14, "min u0");
    assert_close(uhi, 2.380183525081784, 1e-14, "max u0");
    assert_close(vlo, -0.9042782280650158, 1e-14, "min v0");
    assert_close(vhi, 2.489383559299146, 1e-14, "max v0");
    /* the max raw field is attained by v: v0 max = 2 + c1 */
    cr_assert(same_bits(vhi, 2.0 + 0.4893835592991457), "v0 max = 2 + c1");
    /* NumPy spot values at two nodes */
    assert_close(u->v[3 * 512 + 7], -0.5082848344084324, 1e-14, "u0 node (3, 7)");
    assert_close(v->v[100 * 512 + 200], 1.325377585980144, 1e-14, "v0 node (100, 200)");
    /* the closed form agrees with the nodes, and its derivatives with differences */
    pf_burgers2d_ic ic;
    pf_burgers2d_ic_init(&ic);
    for (int k = 0; k < 512 * 512; k += 4099) {
        int i = k / 512, j = k % 512;
        double val[2], dx[2], dy[2], vp[2], vm[2];
        pf_burgers2d_ic_eval(&ic, u->x[j], u->x[i], val, dx, dy);
        assert_close(val[0], u->v[k], 1e-13, "u0 node %d", k);
        assert_close(val[1], v->v[k], 1e-13, "v0 node %d", k);
        const double h = 1e-6;
        pf_burgers2d_ic_eval(&ic, u->x[j] + h, u->x[i], vp, NULL, NULL);
        pf_burgers2d_ic_eval(&ic, u->x[j] - h, u->x[i], vm, NULL, NULL);
        for (int c = 0; c < 2; c++)
            assert_close(dx[c], (vp[c] - vm[c]) / (2 * h), 1e-6 * fmax(1.0, fabs(dx[c])), "d/dx %d", c);
        pf_burgers2d_ic_eval(&ic, u->x[j], u->x[i] + h, vp, NULL, NULL);
        pf_burgers2d_ic_eval(&ic, u->x[j], u->x[i] - h, vm, NULL, NULL);
        for (int c = 0; c < 2; c++)
            assert_close(dy[c], (vp[c] - vm[c]) / (2 * h), 1e-6 * fmax(1.0, fabs(dy[c])), "d/dy %d", c);
    }
    /* periodic with period 1 (so on the faces of [0,4]^2) */
    double a[2], b[2];
    pf_burgers2d_ic_eval(&ic, 0.3, 0.7, a, NULL, NULL);
    pf_burgers2d_ic_eval(&ic, 4.3, 3.7, b, NULL, NULL);
    assert_close(a[0], b[0], 1e-12, "u0 periodic");
    assert_close(a[1], b[1], 1e-12, "v0 periodic");
    /* the grid interpolant stays within the interpolation error of the closed form */
    double li = pf_coef_field_linear(u, 1.2345, 2.3456, NULL, NULL);
    pf_burgers2d_ic_eval(&ic, 1.2345, 2.3456, a, NULL, NULL);
    assert_close(li, a[0], 0.01, "linear vs closed form");
    pf_coef_field_free(u);
    pf_coef_field_free(v);
}
