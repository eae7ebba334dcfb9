/*
 * coef_field.c — PINNacle's coefficient fields (see coef_field.h).
 *
 * Bit-exactness with NumPy comes from doing each step in NumPy's order:
 *   - numpy/random/src/mt19937 (legacy seeding) and legacy-distributions.c
 *     (legacy_gauss);
 *   - numpy/fft/_pocketfft.c, complex backward plan, radix 4 only (the
 *     lengths used here are powers of 4), twiddles from sincos_2pibyn;
 *   - NumPy 1.24's AVX-512 SKX dispatch: np.power and np.exp go to SVML's
 *     __svml_pow8 / __svml_exp8 (numpy/SVML, BSD-3-Clause), ported here
 *     instruction by instruction from the linked kernels; their tables are
 *     the kernels' constants;
 *   - np.sum: pairwise_sum (loops_utils.h.src) over 8192-element buffers, in
 *     memory order (ifft2's result is Fortran-ordered).
 * Floating-point contraction must stay off: GCC's ISO C modes default to
 * -ffp-contract=off; clang gets the pragma.
 */
#ifdef __clang__
#pragma STDC FP_CONTRACT OFF
#endif
#if defined(__GNUC__) && !defined(__clang__)
/* GCC 12's SLP vectorizer turns pocketfft's complex products into fused
 * vfmaddsub even under -ffp-contract=off, which moves the last bits (NumPy's
 * pocketfft is built without FMA). Nothing here is hot enough to need it. */
#pragma GCC optimize("no-tree-vectorize")
#endif

#include "io/coef_field.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static uint64_t bits_of(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static double of_bits(uint64_t u)
{
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* ------------------------------------------------------------ MT19937 --- */

#define MT_N 624
#define MT_M 397
#define MT_MATRIX_A 0x9908b0dfu
#define MT_UPPER 0x80000000u
#define MT_LOWER 0x7fffffffu

void pf_mt19937_seed(pf_mt19937 *st, uint32_t seed)
{
    for (int i = 0; i < MT_N; i++) {
        st->key[i] = seed;
        seed = 1812433253u * (seed ^ (seed >> 30)) + (uint32_t)(i + 1);
    }
    st->pos = MT_N;
    st->has_gauss = 0;
    st->gauss = 0.0;
}

void pf_mt19937_seed_array(pf_mt19937 *st, const uint32_t *key, size_t n)
{
    PF_ASSERT(n > 0);
    pf_mt19937_seed(st, 19650218u);
    uint32_t *mt = st->key;
    size_t i = 1, j = 0;
    for (size_t k = n > MT_N ? n : MT_N; k; k--) {
        mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1664525u)) + key[j] + (uint32_t)j;
        i++;
        j++;
        if (i >= MT_N) {
            mt[0] = mt[MT_N - 1];
            i = 1;
        }
        if (j >= n) j = 0;
    }
    for (size_t k = MT_N - 1; k; k--) {
        mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1566083941u)) - (uint32_t)i;
        i++;
        if (i >= MT_N) {
            mt[0] = mt[MT_N - 1];
            i = 1;
        }
    }
    mt[0] = 0x80000000u;
    st->pos = MT_N;
    st->has_gauss = 0;
    st->gauss = 0.0;
}

static void mt_refill(pf_mt19937 *st)
{
    uint32_t *k = st->key, y;
    int i;
    for (i = 0; i < MT_N - MT_M; i++) {
        y = (k[i] & MT_UPPER) | (k[i + 1] & MT_LOWER);
        k[i] = k[i + MT_M] ^ (y >> 1) ^ ((0u - (y & 1u)) & MT_MATRIX_A);
    }
    for (; i < MT_N - 1; i++) {
        y = (k[i] & MT_UPPER) | (k[i + 1] & MT_LOWER);
        k[i] = k[i + (MT_M - MT_N)] ^ (y >> 1) ^ ((0u - (y & 1u)) & MT_MATRIX_A);
    }
    y = (k[MT_N - 1] & MT_UPPER) | (k[0] & MT_LOWER);
    k[MT_N - 1] = k[MT_M - 1] ^ (y >> 1) ^ ((0u - (y & 1u)) & MT_MATRIX_A);
    st->pos = 0;
}

uint32_t pf_mt19937_next32(pf_mt19937 *st)
{
    if (st->pos >= MT_N) mt_refill(st);
    uint32_t y = st->key[st->pos++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= y >> 18;
    return y;
}

double pf_mt19937_random_sample(pf_mt19937 *st)
{
    int32_t a = (int32_t)(pf_mt19937_next32(st) >> 5), b = (int32_t)(pf_mt19937_next32(st) >> 6);
    return (a * 67108864.0 + b) / 9007199254740992.0;
}

double pf_mt19937_gauss(pf_mt19937 *st)
{
    if (st->has_gauss) {
        double g = st->gauss;
        st->has_gauss = 0;
        st->gauss = 0.0;
        return g;
    }
    double x1, x2, r2;
    do {
        x1 = 2.0 * pf_mt19937_random_sample(st) - 1.0;
        x2 = 2.0 * pf_mt19937_random_sample(st) - 1.0;
        r2 = x1 * x1 + x2 * x2;
    } while (r2 >= 1.0 || r2 == 0.0);
    double f = sqrt(-2.0 * log(r2) / r2);
    st->gauss = f * x1;
    st->has_gauss = 1;
    return f * x2;
}

/* ---------------------------------------- directed rounding, emulated --- */
/* SVML uses embedded rounding ({rz-sae}, {rd-sae}) on a few operations; these
 * give the same results in round-to-nearest code from exact error terms. */

/* a*b rounded toward zero */
static double mul_rz(double a, double b)
{
    double p = a * b, e = fma(a, b, -p);
    if (e != 0.0 && ((e < 0.0) != (p < 0.0))) p = nextafter(p, 0.0);
    return p;
}

/* a+b rounded toward -infinity (TwoSum error) */
static double add_rd(double a, double b)
{
    double s = a + b, bb = s - a;
    double err = (a - (s - bb)) + (b - bb);
    if (err < 0.0) s = nextafter(s, -INFINITY);
    return s;
}

/* a*x + y rounded toward zero: the sign of the error of the nearest fma
 * comes from Boldo and Muller's ErrFma (exact error r2 + r3). */
static double fma_rz(double a, double x, double y)
{
    double r1 = fma(a, x, y);
    double u1 = a * x, u2 = fma(a, x, -u1);
    double al1 = y + u2, t = al1 - y, z = (y - (al1 - t)) + (u2 - t);
    double be1 = u1 + al1;
    t = be1 - u1;
    double be2 = (u1 - (be1 - t)) + (al1 - t);
    double g = (be1 - r1) + be2;
    double r2 = g + z, r3 = z - (r2 - g);
    double err = r2 != 0.0 ? r2 : r3;
    if (err != 0.0 && ((err < 0.0) != (r1 < 0.0))) r1 = nextafter(r1, 0.0);
    return r1;
}

/* ------------------------------------------------------ SVML exp and pow --- */

/* 2^(j/16), j = 0..15 (both kernels) */
static const uint64_t svml_exp2_16[16] = {
    0x3ff0000000000000u, 0x3ff0b5586cf9890fu, 0x3ff172b83c7d517bu, 0x3ff2387a6e756238u,
    0x3ff306fe0a31b715u, 0x3ff3dea64c123422u, 0x3ff4bfdad5362a27u, 0x3ff5ab07dd485429u,
    0x3ff6a09e667f3bcdu, 0x3ff7a11473eb0187u, 0x3ff8ace5422aa0dbu, 0x3ff9c49182a3f090u,
    0x3ffae89f995ad3adu, 0x3ffc199bdd85529cu, 0x3ffd5818dcfba487u, 0x3ffea4afa2a490dau,
};

/* The shifter 1.5 * 2^48 + 1023 * 16 ulps: adding it leaves 16 x in the low
 * mantissa bits with the exponent bias already in place. */
#define SVML_SHIFTER 0x1.8000000003ff0p+48

double pf_np_exp(double x)
{
    if (!(fabs(x) < 0x1.61da04cbafe44p+9)) return exp(x);
    double sh = fma_rz(x, 0x1.71547652b82fep+0, SVML_SHIFTER);
    double n = sh - SVML_SHIFTER; /* floor(16 x log2 e) / 16 */
    double te = of_bits(svml_exp2_16[bits_of(sh) & 15]);
    double r = fma(-n, 0x1.62e42fefa39efp-1, x);
    r = fma(-0x1.abc9e3b39803fp-56, n, r);
    r = of_bits(bits_of(r) & 0xbfffffffffffffffu);
    double r2 = r * r;
    double p = fma(0x1.72eb5ef0d213dp-10, r, 0x1.1106603d97c00p-7);
    double q = fma(0x1.555564bb4f5f0p-5, r, 0x1.5555554b508a2p-3);
    double r3 = r2 * r;
    double s = fma(r2, 0x1.0000000002622p-1, r);
    p = fma(r2, p, q);
    p = fma(r3, p, s);
    p = fma(te, p, te);
    return ldexp(p, (int)floor(n));
}

/* -log2(rcp) (+1 from index 16 on) and its low part, for rcp = 1 + i/32 */
static const uint64_t svml_log2_hi[32] = {
    0x0000000000000000u, 0xbfa6bad3758e0000u, 0xbfb663f6fac90000u, 0xbfc08c588cda8000u,
    0xbfc5c01a39fc0000u, 0xbfcacf5e2db50000u, 0xbfcfbc16b9028000u, 0xbfd24407ab0e0000u,
    0xbfd49a784bcd0000u, 0xbfd6e221cd9d0000u, 0xbfd91bba891f0000u, 0xbfdb47ebf7388000u,
    0xbfdd6753e0330000u, 0xbfdf7a8568cb0000u, 0xbfe0c10500d64000u, 0xbfe1bf311e95e000u,
    0x3fda8ff971810000u, 0x3fd8a8980abfc000u, 0x3fd6cb0f6865c000u, 0x3fd4f6fbb2cec000u,
    0x3fd32bfee3710000u, 0x3fd169c053640000u, 0x3fcf5fd8a9060000u, 0x3fcbfc67a8000000u,
    0x3fc8a8980abf8000u, 0x3fc563dc29ff8000u, 0x3fc22dadc2ab0000u, 0x3fbe0b1ae8f30000u,
    0x3fb7d60496d00000u, 0x3fb1bb32a6000000u, 0x3fa77394c9da0000u, 0x3f9743ee86200000u,
};
static const uint64_t svml_log2_lo[32] = {
    0x0000000000000000u, 0xbd5fb0e626c0de13u, 0xbd33167ccc538261u, 0x3d2871a7610e40bdu,
    0x3d54bc302ffa76fbu, 0x3d436c101ee13440u, 0x3d47f5dc57266758u, 0xbd3ce60916e52e91u,
    0xbd5b8afe492bf6ffu, 0xbd49bcaf1aa4168au, 0xbd5708b4b2b5056cu, 0xbd250520a377c7ecu,
    0x3d55f101c141e670u, 0xbd3b3b3864c60011u, 0x3d45669df6a2b592u, 0x3d5fe43895d8ac46u,
    0x3d44bc302ffa76fbu, 0xbd266cccab240e90u, 0x3d41d406db502403u, 0x3d3661e393a16b95u,
    0xbd51979a5db68722u, 0xbd4d4f1b95e0ff45u, 0x3d5f1a4847f7b278u, 0xbd3667f21fa8423fu,
    0x3d5e9933354dbf17u, 0x3d56590643906f2au, 0x3d5a4b69691d7994u, 0xbd054cda62d3926eu,
    0xbd512ce6312ebb82u, 0x3d552743318a8a57u, 0xbd54e55443478fe0u, 0xbd495539356f93dcu,
};

/* vrcp14pd for m in [1/2, 1), bit-exact: Intel's reference algorithm for
 * RCP14 (BSD-3-Clause, "Reference implementations for IA approximation
 * instructions", 2015): on 2m in (1, 2), a[i] - b[i] (t - y[i]) with
 * i = floor(64 (2m - 1)), y[i] = 1 + 1/128 + i/64, t = 2m cut to 16 fraction
 * bits, the result cut to 16 fraction bits. rcp14_ab[2i] = b[i], [2i+1] = a[i]. */
static const uint32_t rcp14_ab[128] = {
    1009, 260119, 977, 256148, 949, 252296, 921, 248558, 893, 244929, 869, 241405,
    843,  237981, 821, 234652, 797, 231416, 777, 228266, 755, 225202, 735, 222220,
    717,  219314, 699, 216485, 681, 213727, 663, 211038, 647, 208417, 631, 205859,
    617,  203364, 601, 200929, 587, 198551, 573, 196229, 561, 193960, 547, 191743,
    535,  189576, 523, 187458, 513, 185387, 501, 183360, 491, 181377, 479, 179439,
    469,  177540, 459, 175681, 451, 173860, 441, 172077, 433, 170330, 423, 168618,
    415,  166940, 407, 165295, 399, 163682, 391, 162101, 385, 160550, 377, 159027,
    369,  157535, 363, 156069, 357, 154631, 349, 153219, 343, 151832, 337, 150470,
    331,  149133, 325, 147819, 319, 146528, 315, 145260, 309, 144012, 303, 142787,
    299,  141582, 293, 140397, 289, 139232, 285, 138085, 279, 136959, 275, 135853,
    271,  134763, 267, 133689, 263, 132631, 259, 131589,
};

static double rcp14(double m)
{
    uint64_t u = bits_of(m);
    if ((u & 0x000fffffffffffffu) == 0) return 1.0 / m; /* a power of 2: exact */
    double x = of_bits((u & 0x000fffffffffffffu) | 0x3ff0000000000000u);
    int i = (int)((x - 1.0) * 64.0);
    double y = 1.0 + 1.0 / 128 + i / 64.0;
    double t = of_bits(bits_of(x) & 0xfffffff000000000u);
    double r = (double)rcp14_ab[2 * i + 1] - 256.0 * (double)rcp14_ab[2 * i] * (t - y);
    r = of_bits((bits_of(r) & 0xfffffff000000000u) - 0x0120000000000000u); /* / 2^18 */
    return 2.0 * r;
}

#define L2E 0x1.71547652b82fep+0   /* log2 e */
#define L2E_H (-0x1.71547652b82fep-1) /* -log2(e)/2 */

double pf_np_power(double x, double y)
{
    if (!(x > 0.0) || isinf(x) || !isfinite(y)) return pow(x, y);
    /* log2 x = e + log2 m, m in [1/2, 1); rcp ~ 1/m rounded to 1/32
     * (vrcp14pd, then vrndscalepd to nearest-even). The correctly rounded
     * 1/m would pick the other neighbour near the midpoints. */
    int e;
    double m = frexp(x, &e);
    double ex = (double)(e - 1);
    double rcp = rint(rcp14(m) * 32.0) / 32.0;
    unsigned idx = (unsigned)((bits_of(rcp) >> 47) & 31);
    double r = fma(rcp, m, -1.0);
    if (rcp < 1.5) ex += 1.0;
    double ta = of_bits(svml_log2_hi[idx]), tb = of_bits(svml_log2_lo[idx]);
    /* log2(1 + r) in double-double */
    double r2 = r * r;
    double p = fma(0x1.48799f5374b96p-3, r, -0x1.717e59a559f5dp-3);
    double p1 = fma(0x1.a6175fca19d03p-3, r, -0x1.ec709bc8fb8dfp-3);
    double hi = ta + ex;
    p = fma(r2, p, p1);
    double p2 = fma(0x1.2776c50f03272p-2, r, -0x1.71547652bc9eap-2);
    p = fma(r2, p, p2);
    double r2e = fma(r, r, -r2);
    double lo = fma(L2E_H, r2e, tb);
    double p3 = fma(0x1.ec709dc3a03fcp-2, r, 0x1.36b5ddffe5b67p-57);
    double h1 = fma(L2E, r, hi);
    p = fma(r2, p, p3);
    double d1 = h1 - hi;
    lo = fma(p, r2, lo);
    d1 = fma(r, L2E, -d1);
    double h2 = fma(L2E_H, r2, h1);
    double e1 = fma(0x1.777f3ee5e912fp-56, r, d1);
    double l = h2 + lo;
    double d2 = h2 - h1;
    /* y log2 x = yh + ylo */
    double yh = mul_rz(l, y);
    double e2 = fma(L2E_H, r2, -d2);
    double d3 = l - h2;
    double yres = fma(y, l, -yh); /* exact, so its {rz} rounding is moot */
    double l2 = lo - d3;
    e1 = e1 + e2;
    double llo = l2 + e1;
    double sh = add_rd(yh, SVML_SHIFTER);
    double fr = yh - floor(yh * 16.0) / 16.0; /* vreducepd, round down, 4 bits */
    double ylo = fma_rz(y, llo, yres);
    double t = fr + ylo;
    if (!(fabs(yh) <= 1021.5)) return pow(x, y);
    /* 2^(y log2 x) = 2^k 2^(j/16) 2^t */
    t = of_bits(bits_of(t) & 0xbfffffffffffffffu);
    double te = of_bits(svml_exp2_16[bits_of(sh) & 15]);
    double t2 = t * t;
    double tte = t * te;
    double q1 = fma(0x1.4a1d7f58c2d59p-13, t, 0x1.5d7472783d279p-10);
    double q2 = fma(0x1.3b2ad1b14ebaap-7, t, 0x1.c6b08d4ad8eb9p-5);
    double q3 = fma(0x1.ebfbdff84554dp-3, t, 0x1.62e42fefa398bp-1);
    double scale = of_bits((bits_of(sh) << 48) & 0x7ff0000000000000u);
    q1 = fma(t2, q1, q2);
    q1 = fma(t2, q1, q3);
    q1 = fma(tte, q1, te);
    return q1 * scale;
}

/* ------------------------------------------------------------- np.sum --- */

static double pairwise_sum(const double *a, size_t n)
{
    if (n < 8) {
        double res = -0.0;
        for (size_t i = 0; i < n; i++) res += a[i];
        return res;
    }
    if (n <= 128) {
        double r[8];
        size_t i;
        for (int k = 0; k < 8; k++) r[k] = a[k];
        for (i = 8; i < n - (n % 8); i += 8)
            for (int k = 0; k < 8; k++) r[k] += a[i + k];
        double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for (; i < n; i++) res += a[i];
        return res;
    }
    size_t n2 = n / 2;
    n2 -= n2 % 8;
    return pairwise_sum(a, n2) + pairwise_sum(a + n2, n - n2);
}

double pf_np_sum(const double *a, size_t n)
{
    enum { BUFSIZE = 8192 };
    double acc = 0.0;
    for (size_t s = 0; s < n; s += BUFSIZE) acc += pairwise_sum(a + s, n - s < BUFSIZE ? n - s : BUFSIZE);
    return acc;
}

/* --------------------------------------------- pocketfft, radix 4 only --- */

typedef struct cmplx {
    double r, i;
} cmplx;

/* cos(pi a) - 1 and sin(pi a) for |a| <= 1/4 */
static void sincosm1pi(double a, double *res)
{
    double s = a * a;
    double r = -1.0369917389758117e-4;
    r = fma(r, s, 1.9294935641298806e-3);
    r = fma(r, s, -2.5806887942825395e-2);
    r = fma(r, s, 2.3533063028328211e-1);
    r = fma(r, s, -1.3352627688538006e+0);
    r = fma(r, s, 4.0587121264167623e+0);
    r = fma(r, s, -4.9348022005446790e+0);
    double c = r * s;
    r = 4.6151442520157035e-4;
    r = fma(r, s, -7.3700183130883555e-3);
    r = fma(r, s, 8.2145868949323936e-2);
    r = fma(r, s, -5.9926452893214921e-1);
    r = fma(r, s, 2.5501640398732688e+0);
    r = fma(r, s, -5.1677127800499516e+0);
    s = s * a;
    r = r * s;
    s = fma(a, 3.1415926535897931e+0, r);
    res[0] = c;
    res[1] = s;
}

static void calc_first_octant(size_t den, double *res)
{
    size_t n = (den + 4) >> 3;
    if (n == 0) return;
    res[0] = 1.;
    res[1] = 0.;
    if (n == 1) return;
    size_t l1 = (size_t)sqrt((double)n);
    for (size_t i = 1; i < l1; ++i) sincosm1pi((2. * (double)i) / (double)den, &res[2 * i]);
    size_t start = l1;
    while (start < n) {
        double cs[2];
        sincosm1pi((2. * (double)start) / (double)den, cs);
        res[2 * start] = cs[0] + 1.;
        res[2 * start + 1] = cs[1];
        size_t end = l1;
        if (start + end > n) end = n - start;
        for (size_t i = 1; i < end; ++i) {
            double csx[2] = {res[2 * i], res[2 * i + 1]};
            res[2 * (start + i)] = ((cs[0] * csx[0] - cs[1] * csx[1] + cs[0]) + csx[0]) + 1.;
            res[2 * (start + i) + 1] = (cs[0] * csx[1] + cs[1] * csx[0]) + cs[1] + csx[1];
        }
        start += l1;
    }
    for (size_t i = 1; i < l1; ++i) res[2 * i] += 1.;
}

/* cos and sin of 2 pi k / n, k = 0..n-1, for n % 4 == 0 */
static void sincos_2pibyn(size_t n, double *res)
{
    calc_first_octant(n, res);
    /* fill_first_quadrant */
    const double hsqt2 = 0.707106781186547524400844362104849;
    size_t quart = n >> 2;
    if ((n & 7) == 0) res[quart] = res[quart + 1] = hsqt2;
    for (size_t i = 2, j = 2 * quart - 2; i < quart; i += 2, j -= 2) {
        res[j] = res[i + 1];
        res[j + 1] = res[i];
    }
    /* fill_first_half */
    size_t half = n >> 1;
    for (size_t i = 0; i < half; i += 2) {
        res[i + half] = -res[i + 1];
        res[i + half + 1] = res[i];
    }
    /* fill_second_half */
    for (size_t i = 0; i < n; ++i) res[i + n] = -res[i];
}

typedef struct fft4_plan {
    size_t len, nfct;
    const cmplx *tw[16]; /* per pass: 3 (ido-1) twiddles */
    cmplx *mem;
} fft4_plan;

#define PMC(a, b, c, d)                                                                           \
    {                                                                                             \
        a.r = c.r + d.r;                                                                          \
        a.i = c.i + d.i;                                                                          \
        b.r = c.r - d.r;                                                                          \
        b.i = c.i - d.i;                                                                          \
    }
#define ROT90(a)                                                                                  \
    {                                                                                             \
        double tmp_ = a.r;                                                                        \
        a.r = -a.i;                                                                               \
        a.i = tmp_;                                                                               \
    }
#define A_EQ_B_MUL_C(a, b, c)                                                                     \
    {                                                                                             \
        a.r = b.r * c.r - b.i * c.i;                                                              \
        a.i = b.r * c.i + b.i * c.r;                                                              \
    }
#define CH(a, b, c) ch[(a) + ido * ((b) + l1 * (c))]
#define CC(a, b, c) cc[(a) + ido * ((b) + 4 * (c))]
#define WA(x, i) wa[(i)-1 + (x) * (ido - 1)]

static void pass4b(size_t ido, size_t l1, const cmplx *restrict cc, cmplx *restrict ch,
                   const cmplx *restrict wa)
{
    for (size_t k = 0; k < l1; ++k) {
        {
            cmplx t1, t2, t3, t4;
            PMC(t2, t1, CC(0, 0, k), CC(0, 2, k))
            PMC(t3, t4, CC(0, 1, k), CC(0, 3, k))
            ROT90(t4)
            PMC(CH(0, k, 0), CH(0, k, 2), t2, t3)
            PMC(CH(0, k, 1), CH(0, k, 3), t1, t4)
        }
        for (size_t i = 1; i < ido; ++i) {
            cmplx c2, c3, c4, t1, t2, t3, t4;
            cmplx cc0 = CC(i, 0, k), cc1 = CC(i, 1, k), cc2 = CC(i, 2, k), cc3 = CC(i, 3, k);
            PMC(t2, t1, cc0, cc2)
            PMC(t3, t4, cc1, cc3)
            ROT90(t4)
            cmplx wa0 = WA(0, i), wa1 = WA(1, i), wa2 = WA(2, i);
            PMC(CH(i, k, 0), c3, t2, t3)
            PMC(c2, c4, t1, t4)
            A_EQ_B_MUL_C(CH(i, k, 1), wa0, c2)
            A_EQ_B_MUL_C(CH(i, k, 2), wa1, c3)
            A_EQ_B_MUL_C(CH(i, k, 3), wa2, c4)
        }
    }
}

#undef PMC
#undef ROT90
#undef A_EQ_B_MUL_C
#undef CH
#undef CC
#undef WA

static int is_pow4(int n)
{
    if (n < 4) return 0;
    while (n % 4 == 0) n /= 4;
    return n == 1;
}

/* cfftp plan for len = 4^k: factors all 4, twiddles as cfftp_comp_twiddle */
static pf_status fft4_plan_init(fft4_plan *p, size_t len)
{
    p->len = len;
    p->nfct = 0;
    for (size_t l = len; l > 1; l /= 4) p->nfct++;
    PF_ASSERT(p->nfct <= 16);
    size_t twsize = 0, l1 = 1;
    for (size_t k = 0; k < p->nfct; k++) {
        size_t ido = len / (l1 * 4);
        twsize += 3 * (ido - 1);
        l1 *= 4;
    }
    double *twid = malloc(2 * len * sizeof *twid);
    p->mem = malloc((twsize ? twsize : 1) * sizeof *p->mem);
    if (!twid || !p->mem) {
        free(twid);
        free(p->mem);
        p->mem = NULL;
        return pf_fail(PF_ERR_NOMEM, "coef_field: out of memory for an FFT plan of length %zu", len);
    }
    sincos_2pibyn(len, twid);
    size_t memofs = 0;
    l1 = 1;
    for (size_t k = 0; k < p->nfct; k++) {
        size_t ido = len / (l1 * 4);
        cmplx *tw = p->mem + memofs;
        p->tw[k] = tw;
        memofs += 3 * (ido - 1);
        for (size_t j = 1; j < 4; j++)
            for (size_t i = 1; i < ido; i++) {
                tw[(j - 1) * (ido - 1) + i - 1].r = twid[2 * j * l1 * i];
                tw[(j - 1) * (ido - 1) + i - 1].i = twid[2 * j * l1 * i + 1];
            }
        l1 *= 4;
    }
    free(twid);
    return PF_OK;
}

/* pass_all(plan, c, fct, +1): unnormalised backward transform times fct;
 * ch is scratch of len */
static void fft4_backward(const fft4_plan *p, cmplx *c, cmplx *ch, double fct)
{
    size_t len = p->len, l1 = 1;
    cmplx *p1 = c, *p2 = ch;
    for (size_t k = 0; k < p->nfct; k++) {
        size_t l2 = 4 * l1, ido = len / l2;
        pass4b(ido, l1, p1, p2, p->tw[k]);
        cmplx *tmp = p1;
        p1 = p2;
        p2 = tmp;
        l1 = l2;
    }
    if (p1 != c) {
        if (fct != 1.)
            for (size_t i = 0; i < len; ++i) {
                c[i].r = ch[i].r * fct;
                c[i].i = ch[i].i * fct;
            }
        else
            memcpy(c, p1, len * sizeof *c);
    } else if (fct != 1.)
        for (size_t i = 0; i < len; ++i) {
            c[i].r *= fct;
            c[i].i *= fct;
        }
}

/* ---------------------------------------------------------------- GRF --- */

pf_status pf_coef_grf(uint32_t seed, double alpha, int n, double *out)
{
    PF_ASSERT_MSG(is_pow4(n), "coef_field: GRF size %d is not a power of 4", n);
    size_t nn = (size_t)n * (size_t)n;
    fft4_plan plan;
    PF_TRY(fft4_plan_init(&plan, (size_t)n));
    cmplx *a = malloc(nn * sizeof *a), *col = malloc(2 * (size_t)n * sizeof *col);
    double *g = malloc(nn * sizeof *g);
    if (!a || !col || !g) {
        free(a);
        free(col);
        free(g);
        free(plan.mem);
        return pf_fail(PF_ERR_NOMEM, "coef_field: out of memory for a %dx%d random field", n, n);
    }

    /* noise * amplitude: normal(size=(n,n)) fills the real parts row-major,
     * the next n^2 normals the imaginary parts; amplitude[0,0] = 0. The
     * complex product with (amp + 0j) is exactly (re amp, im amp). */
    pf_mt19937 st;
    pf_mt19937_seed(&st, seed);
    for (size_t k = 0; k < nn; k++) a[k].r = pf_mt19937_gauss(&st);
    for (size_t k = 0; k < nn; k++) a[k].i = pf_mt19937_gauss(&st);
    double expo = -alpha / 4.0;
    for (int i = 0; i < n; i++) {
        int64_t ki = i < n / 2 ? i : i - n;
        for (int j = 0; j < n; j++) {
            int64_t kj = j < n / 2 ? j : j - n;
            double amp = (i == 0 && j == 0) ? 0.0
                                            : pf_np_power((double)(ki * ki + kj * kj) + 1e-10, expo);
            a[(size_t)i * n + j].r *= amp;
            a[(size_t)i * n + j].i *= amp;
        }
    }

    /* np.fft.ifft2: rows (last axis) first, then columns, each scaled by 1/n */
    double fct = 1.0 / n;
    for (int i = 0; i < n; i++) fft4_backward(&plan, a + (size_t)i * n, col, fct);
    cmplx *colv = col + n;
    for (int j = 0; j < n; j++) {
        for (int i = 0; i < n; i++) colv[i] = a[(size_t)i * n + j];
        fft4_backward(&plan, colv, col, fct);
        for (int i = 0; i < n; i++) a[(size_t)i * n + j] = colv[i];
    }

    /* The real part, in the memory order of ifft2's (Fortran-ordered)
     * result: g[j*n + i] is field(i, j). The mean and std sums run in that
     * order; the elementwise steps do not care. */
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) g[(size_t)j * n + i] = a[(size_t)i * n + j].r;
    double mean = pf_np_sum(g, nn) / (double)nn;
    for (size_t k = 0; k < nn; k++) g[k] -= mean;
    /* np.std: mean again, squared deviations, their mean, sqrt */
    double mean2 = pf_np_sum(g, nn) / (double)nn;
    double *d = (double *)a; /* the spectrum is no longer needed: 2 nn doubles */
    for (size_t k = 0; k < nn; k++) {
        double x = g[k] - mean2;
        d[k] = x * x;
    }
    double sd = sqrt(pf_np_sum(d, nn) / (double)nn);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) out[(size_t)i * n + j] = g[(size_t)j * n + i] / sd;
    free(g);
    free(a);
    free(col);
    free(plan.mem);
    return PF_OK;
}

/* -------------------------------------------------------------- fields --- */

/* SciPy 1.10.1's Delaunay triangulation (qhull "Qbb Qc Qz Q12 Qt") of the
 * 256x256 coefficient grid: bit c = i*255 + j (word c/64, bit c%64) is set
 * when cell (i, j) is split along (i, j)-(i+1, j+1). Extracted from
 * Delaunay(points).simplices; qhull's choice on this degenerate input has no
 * pattern. */
static const uint64_t darcy_diag[1017] = {
    0xa659ae98aecb6caau, 0xab8a6e24e2a599b2u, 0x5abd51354d52ead5u, 0xd554555674cb5395u,
    0x84d5abb26baa49aau, 0x6dcd47e5b5aa9351u, 0xb161c96329368aadu, 0x95323f54c596d632u,
    0x1ca8aaa6d266c96au, 0xdb6934676b06b6d1u, 0xacd759126ca2baaau, 0xb56da9d3ad2ccb6au,
    0x1598a064d59b5b5au, 0x4e5664dc44952db7u, 0xaaadd5735a9e9da9u, 0x515b38b55a46925au,
    0x9d308f549d324e4eu, 0x4b7444acd9b4a28cu, 0x6ac5353252b592ebu, 0x552df495365496d5u,
    0xf6a9aac094a7594au, 0xca5a5c89b366a3b9u, 0x1aacd56b1892f289u, 0xc9ab2cb55cceb535u,
    0x0cab28aefca4ae5au, 0x35327478a73522abu, 0xd2aab5668cd989dbu, 0xa32ea5a5569aad61u,
    0x70d65868875c5853u, 0xe525dac7ac959711u, 0x1966a50d89b29372u, 0x69298de114f66cabu,
    0xd79573db9d5655ceu, 0xb1a762ca6a9374b6u, 0xb54966ea5b22b2c2u, 0x4b61cb6965b1a9aau,
    0x9374ce96495a4ccbu, 0xa2e39bbadb4dd965u, 0x1d4d4c889aa686a6u, 0x0a8f1cd15ce6ec94u,
    0xb69dadacdb14bb69u, 0x65ae71a6a0ab334cu, 0x705b77488925452du, 0xb93976d2b4bd8a75u,
    0xad5328eb96934a4au, 0x456ac33493a9eb5au, 0x41d4c589996f5d61u, 0xe56924aa948daa31u,
    0xabcee99cd3ae5b59u, 0x2d46b2c916793a4eu, 0x2f45a529334aee9bu, 0x8b2b2daa558aae23u,
    0xdaba6949b2592154u, 0xaaccea95d3431628u, 0x585565471e1a99b3u, 0x9a6aaaba487676e6u,
    0xb3a2c95b6e336932u, 0x19ab6a551255345eu, 0xd3c4455453363526u, 0x91372996d9c45c93u,
    0xa6962327b9265b2au, 0xb6b5ca32d2a51b51u, 0x229cdb5569c8e16cu, 0xb5646335a36f713au,
    0x2c74a9ac63175586u, 0xe2a567266a655653u, 0x558ab69d4b2bb14au, 0xcd33ce9d26b85b76u,
    0x79ca68eac394555bu, 0x96a6d4a9ab4ab88bu, 0x15594c773e92ec9au, 0x052208a8eda5d4a4u,
    0x4f4ac9b68695d24au, 0xb59c6b6b62daa9ceu, 0xd524b6d56996b1aeu, 0x2caaeb9bbae4adaau,
    0x48d2c94db592cadau, 0x6435ca1a4e2d3adbu, 0x912a9cb63952ace9u, 0x4499b986ea94a96au,
    0x5996b3695551a38au, 0x2dad385d78696596u, 0xb16eb26d27159bb9u, 0xcdb4e35d6a94ab46u,
    0xa554e2db8f572e6eu, 0xe96556b0cb48f275u, 0x6b59a65925acb6a4u, 0x433badd74946662cu,
    0x2dc495b599c909d6u, 0xb53450ab9e4696c3u, 0xcad55cb326e99fb0u, 0xc6e2696c495cd4e6u,
    0xea44b31d1969cb34u, 0x84ab5baa930f932eu, 0x89b4d1aca59b5123u, 0xae54ce4659139b5du,
    0x14dca6314f597b18u, 0x578a463aacd80cebu, 0x652da355ab528b3au, 0x8a55849c56d612d3u,
    0x939234ad696b56b2u, 0x6c9b4b26a88879b5u, 0xcd29aa4b29b16a4au, 0x5acca436f3b3b372u,
    0x9692a5a71b5a2da6u, 0xdaaec66b9b893b4cu, 0x6ae56636aaed53dbu, 0x5566ad74ae1e024eu,
    0xf7b6646cb532abacu, 0x2caa94f6525925dau, 0x5ead546c2eb736cdu, 0x531a9ba5aad26393u,
    0x249944ca9123adaau, 0x29aad4a54a319d6du, 0x51aaf6d13765694au, 0x52b6966b26922a16u,
    0x6eb334f995a5fb36u, 0x694935a35a6332b9u, 0x48ea94a9242ccd4au, 0xe66b144e95561b55u,
    0xc4a9ae8b53552aacu, 0xcad92536b942ce9eu, 0xc99ad566aeaba9cau, 0xbd4275da3475d6b4u,
    0x9d57298aad551194u, 0x9b8acceca972a870u, 0x692aae45a9096a8au, 0xa6d65052e5cb54e2u,
    0xd34d6646695cd354u, 0x8a5a9b9a99332a26u, 0xc52939552aeb26aau, 0x8d5dd55315224a36u,
    0xb6d95374d1c53135u, 0x9b5dacf36d6e6aa4u, 0xb5d52b34a9b96499u, 0x55495c558b265aa5u,
    0xa5a24d24ab0d635du, 0x1651e64d5b49a5a5u, 0x2b35a669a9655596u, 0x4c9956d5366bd4a5u,
    0xa542c7248bab4953u, 0xd5570cd731795ce2u, 0xd2c5244299ad3476u, 0x59b5a5ac255670adu,
    0xae6aacd38aaa1ad6u, 0x315466dc4f46969eu, 0x32e525c2b7296124u, 0xcea533696c6d5395u,
    0x287b6896398a92b2u, 0x635bdd96cb2d9175u, 0x228e64c2e595ef65u, 0x648326394bcf355du,
    0x6a46cbb43548aee2u, 0x545655769ae35b4du, 0x64cd5c8a4f6d28aau, 0x5d5edddca2ca3976u,
    0x96cd3867e4d9a852u, 0xb5cd1d542bab0db9u, 0xd49ab6925abaa9aau, 0xcc549135ae9a631du,
    0x35ab52d445b56995u, 0xa49975b5eaa27925u, 0x1792ab33ae2a9b21u, 0x6b9ccce463eeb235u,
    0x52d27695452d2915u, 0xb2b5552497a1d163u, 0x89705ace2a22dae8u, 0x2a5b9b9ccd094ae5u,
    0xd692c9b11daaeb33u, 0x9235535595530b76u, 0xbb55d39bb9e2f6a9u, 0x99524cb6cb2bab54u,
    0xadd2318b5328a696u, 0xf47d261555328941u, 0xa2d52ace533badaau, 0x92cabaac8969eab7u,
    0xcb716a6a9265a594u, 0x9b30d6562d6188d4u, 0x4a946996d6eaae89u, 0x71aaadeab75d1a64u,
    0x99d35ac99ddd650au, 0xb6a2e454a4a559b3u, 0x5a22dacca9b9a899u, 0xc55cb54b6de5a9cau,
    0x9a923acb55304b89u, 0x2dae84569bad32cdu, 0x8ab5b695914d4b9bu, 0x6d15269a54b36979u,
    0x55aa5aa64469ca69u, 0xe6aa2bcc3648e19bu, 0xbb9914dd513a7a52u, 0xdb3575ac9265894cu,
    0x576ab2ad4cbb264bu, 0x94b3261a2d7b9f26u, 0xaa32bd7372ea565au, 0xb4ac662c96dd0959u,
    0x4dc52b3bbea62cceu, 0x8ced95ccf3cb28aau, 0x19daa357969a2576u, 0x64b34c9a94d33957u,
    0xc70d29226976a988u, 0xd2eb34da9a522aa6u, 0xd3329a746cda6c6cu, 0x25ad4db2908a64d2u,
    0xc4eaa564db4aa733u, 0xe68a948eb28aa2aau, 0x72a3aacd3a7267b8u, 0x6329452a5b932cdcu,
    0x8cb9add78d6aaca6u, 0xbe0ff188e959a662u, 0x4d49686baadd54a6u, 0x3e532466d416ae95u,
    0x2b235b3436caba95u, 0x22da059999530d6fu, 0x4bab5acccab34c64u, 0xe6d1a26cf5d55355u,
    0xaa6ad5617ca7aaccu, 0xadb62d357146c9c1u, 0x5949369a9aee38d4u, 0x5679e6ca5505d645u,
    0x2926b5d750e4e5a8u, 0xeb65a9a1595d38e7u, 0x951964d6b298ebb4u, 0xd4d714bad55d153du,
    0x2ae38b6cb26cb56au, 0x98cd1b674b1d6595u, 0xb554d6b926528696u, 0xb5938b45ac5692e5u,
    0x688a1adbabcba4cau, 0x4c9a932cbab52794u, 0x4b6bb3a532c69475u, 0xa9da2a6d6bd4b2b5u,
    0xc95b6da98a591cb5u, 0x5b888d6aa96ce536u, 0xda5a6eeb2a9d74ddu, 0x9353ed4a96c39e64u,
    0xb952db29ba592da5u, 0xd52a7b6a70da9d18u, 0x4af228861a525374u, 0x729176c552ae73adu,
    0xadeab3676a29db57u, 0x8329c4d5b596aed4u, 0x4aaaeaad1a9912cdu, 0x1a7345b5335a59aau,
    0x995a26cc96aa92ccu, 0x8a2b4cb2a529e99au, 0x6aa6b9933289125au, 0x525642a42a52755au,
    0x9312eca8cda79a39u, 0x4aaadaa6ab192772u, 0x48936155aab73ad0u, 0xd2d3dab46934cdd3u,
    0x3474528968a4d4e6u, 0x34a3d1649af5625au, 0xca92d324aa3b1db2u, 0x8aa60e5258e2a564u,
    0xad2555b6499d96b1u, 0xe49a0895b25db6b2u, 0x9696b6e9ab62536eu, 0x2a64ebd6538aa53cu,
    0xa85be7643d1d54adu, 0xacb4b99cd5d77595u, 0x8d956ca74658db59u, 0xe94c85325ad9ad65u,
    0x695166d4e671d2d9u, 0x66ada77695364b35u, 0x6af25acd8d4ba651u, 0x18d964ee727722c4u,
    0x1b4d4c9a345317b7u, 0xcc4b354ab312396bu, 0x4a824eaab926a464u, 0x88b55495dccb8eb5u,
    0x759ad6a66716356cu, 0x9adc952aa3d26d4du, 0x5acada69ad6c9c5du, 0x9a62725552ba62adu,
    0x59364dadccac954eu, 0xaab5956d2a095952u, 0x4696363f3b359255u, 0xd0c25e52d2adb993u,
    0x556a48a92aaa951au, 0x2a45790aab09534eu, 0xd4749d919ee2d535u, 0xd886474aa2a52775u,
    0x514857ad2dad54eau, 0xaedcd756a23d0a5eu, 0x15c4f33571b67569u, 0x457785cda6ada575u,
    0x554955a929295499u, 0x4374b45389d2cb44u, 0xcddb86b535254a0fu, 0x4b446579754b6ccbu,
    0x5d1b4aa43b112d97u, 0x9e444f466b728a4du, 0x7b76659424a34a34u, 0xce6ac4c45b6f996au,
    0x5372aaad4a752cdcu, 0xb3254a5cc55f4aa9u, 0x5c8cd71125e66e6cu, 0xaa8abc873758b2c9u,
    0x3633a8a8d9c5298du, 0xad233e4995534a6bu, 0x355599547d4ddb5bu, 0x689a27bc2d45918bu,
    0x6462acaa932cad79u, 0xa96a62bb5d5529dau, 0xee55073254c8b652u, 0xcdae24d524ccd119u,
    0x54d1bb89baa4bacau, 0xab0e4eb9b7351d34u, 0xf1d73c62d399672au, 0xb558e69525a6933cu,
    0x159730a929acaba3u, 0xa244392b636f34d5u, 0x9734b9c29a571ca8u, 0x15526d71aca5af43u,
    0x0d4b638d39b35a2du, 0xa65c9c3ab6592db1u, 0xb2529b12115090a9u, 0x3555ce47688f264du,
    0x3b564a2e6f665759u, 0x4556b2e22dcf68dbu, 0x22559696d118979bu, 0xcd754b4cc6ab94a3u,
    0xa5cccaa8d9cd4dd2u, 0x56dc8c8a690b9baau, 0xa65b74ca9315ac75u, 0xbb5446999555d4a6u,
    0xa489872daf2acb62u, 0x45b6b8ca54d6b369u, 0xa9f0d639732d3d0fu, 0x6e6accb3352d0c93u,
    0x1abb1d33a6aeae42u, 0x55eca3a8ac9f065au, 0x8d7dbd6d56696357u, 0x595a8a6e22ab3a36u,
    0x56abb16b64aa5666u, 0x245db16ca68a5d16u, 0x9960236abb4b6954u, 0x5754b9c12d6adf25u,
    0x13a673555666b52cu, 0xedd55744d5ba2e93u, 0x35cda698ae26cd4cu, 0xd445a557275992ecu,
    0x510c7a353553a56bu, 0xde6131354f652a36u, 0x5d2964b4968cab6au, 0x354d1b5595337499u,
    0xb31b45a5374e54d6u, 0xac6d2a654bdd24e1u, 0x76ac6aacb46e94c6u, 0xecdb156976624ab5u,
    0x626ee91565852dadu, 0x5a49bb545a962693u, 0x4ba1bb2ba5ca559cu, 0x87915b49465622a5u,
    0x56c8998ac57ce52bu, 0x36c96653aab5a471u, 0xa269625aa9499d32u, 0xa46b4d39ad6d61acu,
    0x55999f7a8cd22c82u, 0x29153cd66ca71447u, 0xae0510d697d9719au, 0x9b5a592b696b34eau,
    0xc97555d57b72eb89u, 0xe50d2a5d49aab44cu, 0x4b6db19b54d75b56u, 0x6e5355a2d9aaa386u,
    0xb356cab4c955b67bu, 0x5538bab26ad9aadau, 0x4acb656a99b464cdu, 0x4a6ed522911a365du,
    0x6235caa560d51482u, 0x57a5a4aa2a96c9ceu, 0x4966b94ef165529au, 0xce57b52ab5331953u,
    0x4e294aaac596d376u, 0x334da4b26ab5bb5bu, 0xdb4ca73a896b5695u, 0xb8cc651a553aab55u,
    0x68abcaa2b5749adau, 0x2a472c6649ab4b12u, 0x4a5aa4ae4d197495u, 0x3e37c351352a982bu,
    0xc864b826a53194b2u, 0x98dca9c4cb4a76d1u, 0xdaccac9a59b2dc35u, 0xa1ed363aea88d5eau,
    0x66cd97e5752765c9u, 0xd2b323239b2a4c93u, 0x839662b6496285e4u, 0x634b0a239ed8b928u,
    0x5d2629c9d7a5c45bu, 0xb2a66f1eb5a8bb2au, 0x86b44aa9d6cdcd15u, 0xcd5ada23b3b5a329u,
    0x326c6b1b54cb2cd6u, 0x65ec2590a528e6e9u, 0x7da356bb343b3ab4u, 0xb34db2a20a69166bu,
    0x63d9a69b4aba7664u, 0x666a64f4d59974adu, 0xcb6ab2ad6464aaabu, 0xe29ba6665a55374au,
    0x9e712dae26a1a4c4u, 0x4ddad48c94b554a6u, 0xa9ce26b9554ceaabu, 0xaeb6d4ddd643224au,
    0xb72da368acb76d8cu, 0xdb56522b95a95654u, 0xab25e56b5559aa98u, 0xbaadb5964cb52628u,
    0x6ce5654eeaa49b6bu, 0x969dd2d555b98d54u, 0xaa944d5a53b56bd6u, 0xaca3ab10c9e5352au,
    0xd8acd7537a9da6c8u, 0xb5935574d0c71944u, 0x84b3d975120b4ad5u, 0x92b62a77ad4b6da7u,
    0xad28a4d24db2651au, 0x5b0ad32c938a9934u, 0xa45615c5b67aa967u, 0x72a35292d2ca58d6u,
    0xab6aecaa5a99449eu, 0x56fa942aa28ab363u, 0xacd2b3156dcd6544u, 0x4a56d69299853761u,
    0xaaaab64cd4d33453u, 0x35aeb5eaae59a6a6u, 0x69ceaa355ad955d6u, 0x48d5aa9353456c47u,
    0x2a8b6dd5bd9deed6u, 0xe269cb2286a52ba3u, 0x2b0166a9d691346au, 0x6bb32992d2cd156du,
    0xaa9ac75564f533bcu, 0xae255aa69aa2a652u, 0x2b8f4cad1dcd2332u, 0xc4aa1b6b8aecb54du,
    0xa8a6b43d5d952e2au, 0x6b2ccbad5692a4adu, 0x68536aab32595662u, 0x95bb324b63a9aa4bu,
    0x6ab56ced749dab22u, 0x59aa95bb25b65465u, 0xca5edaaa9132b2d2u, 0x546a4dc0e26b1acau,
    0xd2a5373b2d7324eeu, 0x69666d226da5c154u, 0x9830969ab365aea8u, 0xd41ad969a236d25au,
    0xae972dea5ace2d52u, 0xcb1c4632aed31cd6u, 0x256594b19a55589bu, 0xaad69d736a6db655u,
    0xef37597655678ad6u, 0xd9ae5ce61b9633acu, 0x24b63259725cab94u, 0xe2adb6a1a9c86a1eu,
    0x48accb573544e284u, 0xb6aa909352846e68u, 0xacac6d5255575915u, 0x8e9364af291932f1u,
    0xdca269942caa8e9cu, 0x64ea99927273b942u, 0x26a776cd73353332u, 0xda2e46a2ab752bb3u,
    0x36a2457369aa3496u, 0xcc81acde74ce2d66u, 0x94a4448b466a6f6eu, 0xb5e93492a64d4666u,
    0x64a5d5d54d6ae48bu, 0xa68d38a535aa775bu, 0x9c6c658acd38da5bu, 0x63592332a4498cc2u,
    0x55473555495a9bbau, 0x95a7649d63289c52u, 0xb24914d989dc96a1u, 0x554b36618cc95a96u,
    0x6d4caed368d3c666u, 0x4e2cd8b3562ddb69u, 0x9adb4b511313b42bu, 0x535b9d112ab75292u,
    0x5b6aa65a49b2e744u, 0x3a66f26a58a9179du, 0x72b25a4371964b4au, 0x4e8a51a91a9ba5b1u,
    0x62dba4d04936247cu, 0x66cc91ced2ad5350u, 0xc6a54ccb436d5adau, 0x343ad324ce313d64u,
    0x4aae2da35b2324d2u, 0x463592db6b5b6252u, 0x8c5d4daa26a3329du, 0x6564562da9672159u,
    0x5da99516e2516596u, 0x4565529e66764752u, 0x5ad62b67a6eed591u, 0xd554d529493dd4d5u,
    0x756735a46e97756au, 0x14d99275c5c55546u, 0x12a5eead94b49557u, 0x8ca7b12b5d65158du,
    0x4d2ce16ccaad4cceu, 0x569952ad24d52c54u, 0x096d11a736ef9b56u, 0xd9a92d2ab3519135u,
    0x6b6a554c9b58ca9bu, 0xd54c52b5b6656a65u, 0x1b515524f299262au, 0x692f68dae2937325u,
    0x4eadd2b6b2d48676u, 0x1157d6a5154e4944u, 0xb1714d8baa4b75aau, 0x3d69cb729236a5aau,
    0x99a8f2a4aaadbcddu, 0x575d2d733348d766u, 0xed49193a2ac92362u, 0x25591a49560d230au,
    0x7519828da9aa6ba7u, 0xd153696a669abcd4u, 0x8956d56569356a2au, 0x24d335db0c7a6a36u,
    0x4cd09bb8aaceca65u, 0x7d5c554b451cea14u, 0xcb548d6569635a26u, 0x67b66d5179b89a65u,
    0xcb8bb66baa85b35eu, 0xcb2ec9494a319956u, 0x0e69b59b4f321595u, 0xbd6d595b5564b5adu,
    0x7ec5313ac9cd6632u, 0x76e68b795ee99d55u, 0x79b7655253aa5515u, 0x6728577254d4ab54u,
    0x2aad18e6293d5526u, 0x548cba5d30b66f39u, 0x5d254e56565a55d3u, 0xc769bad2b4b36a52u,
    0x6aea326569a31925u, 0x5586aab564ad488fu, 0xcac747545312dcb6u, 0x25d362b26662c2d2u,
    0xc5a9a6c542a2b4a3u, 0x551cdead43962d39u, 0x5a9d4c52d9998ba2u, 0x2736cae6343a0e92u,
    0x4d2912655a95ada6u, 0x555b94a6aea3692bu, 0x522d7a528f29fa6bu, 0x5c64d91d56ed19d6u,
    0xd8a5523d52555b74u, 0xd556b49ce5ae3b66u, 0x376adad3b99b18d6u, 0x76d5933736995745u,
    0x59ad5e62a954caddu, 0x955ba5b4bb1966edu, 0x6ccbb276ad2ac595u, 0x25a5ab6526b555cdu,
    0x550551b6a91298b3u, 0x5552156dae32e5a9u, 0xbaaa27c31699ad45u, 0xe46d2b556d2d9955u,
    0x4d1d5d25a32ad9a6u, 0xd55674d56b2abcedu, 0x6ae8a46a5552a35du, 0xa5d926a5776b5355u,
    0x0b74b351654aab2du, 0x45542bbd5a6aae97u, 0x5ae1961654deaa55u, 0x4d49adad4c0d56c9u,
    0x93dda8d71531e9abu, 0xdd55e8a0d0a6a852u, 0x329d3372d5715accu, 0xcad8e3667b59556bu,
    0xae31287555a31926u, 0xb35513a396ed2946u, 0x9a896e4a1e44764bu, 0x956c96521cddb54eu,
    0x2b58a3cb51669315u, 0x22557695d594db4du, 0x967af09a4ed4a752u, 0x755954caf791655au,
    0x1a57a6caa2d930f3u, 0x63554a93354b95d9u, 0x94dab5b13897a70eu, 0x4cb451ba8d5735ceu,
    0x56acb4a59792a596u, 0x92d558f6ecd5a533u, 0x5388ad2893cbb448u, 0xeae5d0e576532494u,
    0x34a934ad745194ddu, 0x52955395aabd5026u, 0xca49676bb62a6f4cu, 0x0bb452ad5c52a2bdu,
    0x2db16da8dad754b7u, 0xd55555d569aed7edu, 0x6bdac44a5916c99bu, 0x99ddda8a945d6e8bu,
    0x62c6c5593296d2adu, 0xe3555529d0ca955eu, 0x4a52959acb55ba72u, 0xa350d6aad55557dau,
    0x42ad84d3668b3188u, 0xd65555e90b989531u, 0xcad69d125add4432u, 0xa6cb5dc5b4451572u,
    0x596cdd85d2ae2368u, 0x9225551d79b1b36bu, 0xca86b5525a5554e2u, 0xa4ad367424ac5f4au,
    0x5348b655612862a8u, 0xb66d5572c8c92e6au, 0xb93c65524bdd34aau, 0xa7a569d3eaa8717au,
    0x5949a5cc376ed69au, 0xa5d535468998db44u, 0x8f211a5e2670a4cbu, 0x8d245b32e2965346u,
    0xdf5b674aa5399acau, 0x2b554b5ca5b5b654u, 0xb9a7732d5c46a4bau, 0x3a6ac5ae899452dcu,
    0xb0c8dc8aa552b278u, 0x6a954a976d552996u, 0x592d72e934c5956au, 0x326a9d654913c1b0u,
    0xe894b658b352a6d5u, 0xd6cd59b7335319d1u, 0x5329ca9963b76c5bu, 0x66a1b0d55956a325u,
    0x99658cdaa6daac34u, 0xe9b96b64aa34b304u, 0xd2a3329541ada932u, 0x4bacba9a9439b264u,
    0x92c537556db269acu, 0xb9a1562d2952a2ddu, 0xd2a2524c9527234bu, 0x692ba691d4ed2a44u,
    0x788ca4555f634b36u, 0x6332d4d96bb2ca4cu, 0x8d9a51ba972c929au, 0xcf29aad135515aceu,
    0xc7a6a33dd1c5d2a4u, 0xca43ae944aaeba36u, 0x89265762b46e9794u, 0x65a97b936f574595u,
    0xd56e46e775672aebu, 0xee5258ac249a6d64u, 0xa91345c6b24995b4u, 0x5c6ad196cb1d8d14u,
    0x871944ad55acda49u, 0xa94e8da8ecb6c355u, 0xa976e3a72a4d4568u, 0x495ab54ef6136c12u,
    0x74759567756cb144u, 0x95487896829a9645u, 0x9149a6e4fadadcb2u, 0x2b136b58a592d972u,
    0x46dd354d430962c5u, 0xb449cd9496b25341u, 0xb7312585918aa556u, 0x69b2da54ed54aaa6u,
    0x357693364aadc695u, 0x61395aced2aa12cdu, 0xac252343670b9552u, 0x492c96b0a8d36a9bu,
    0xa135125c492b1c6eu, 0xc5652e9bbaaaf289u, 0x68e52e9d15561531u, 0x6129b5aca99654b6u,
    0x6b1d5353592e8d5cu, 0x1524db766d2a8aa7u, 0xcd8525d3513472e9u, 0xd5bb6907a954d5a4u,
    0xc6315631513d58c3u, 0x292d94c6c962aaabu, 0xa8b5ecd1d36b4aaau, 0x152a59fca9b0b4acu,
    0x356a5c6f596d76a6u, 0x29da54a64942a9a6u, 0x9aa3139d253ac75eu, 0x75ae531e68b4b5a9u,
    0xa416d2c4b73815a3u, 0xa556cd64555e2a95u, 0x1e9266a762ad5cd6u, 0x34a74a8dc9aee675u,
    0x6ef536acada81549u, 0x25d5694d44b12a54u, 0x7132d2ad76aaaa3du, 0x6cbc2679673399cdu,
    0xda8d24eb8b1b111bu, 0x675556aa14aea4d2u, 0xcd23b69b55aaa9a6u, 0xcb906456d42225ceu,
    0xb6a7645adab77574u, 0xe415649a7298a596u, 0xa73a6596b5265a25u, 0x9a533dc584e6956au,
    0x8dad06d1778adadbu, 0x1c7552ad2a89b511u, 0x6c69d513635cd299u, 0x7345eecf1db4b5c3u,
    0x2955369b5dea95aau, 0x94c332a96b75aa6du, 0xc92b5596dad26135u, 0x48b3599b2f3d9562u,
    0xad4d6596f335b36au, 0xb59eee35cac52a5au, 0x2aead512b73bcb33u, 0x49ae575629aa955fu,
    0xa579570a89e36646u, 0x6f7399ed68b2a8d6u, 0xab3aaa96a6ae55c9u, 0x471b2c9dab5ab532u,
    0x4d5d35aaad3644d5u, 0x2aca550949caba68u, 0x4e67273d15caccc9u, 0xbd5669a6aad62f17u,
    0xc929acea4864cc9au, 0x269a3488ab2ae9d9u, 0x2a6432eb3719a699u, 0x6162d524ab9518b5u,
    0x692b2b9d4bddae11u, 0xa39e25996ab9a90bu, 0x6a2a2a9760752cb6u, 0x530a8d2c46533299u,
    0xd5a45e5ca1354ab1u, 0xea705cd557236b1au, 0x5864b295dacd299cu, 0x765638e5d4526755u,
    0x6cad72ce9d4ad623u, 0x8e9d528f555796b3u, 0x54dc999143995b71u, 0xa5cd6894d4decd55u,
    0x49a74b3b331a94e3u, 0x58b1caa9d553b42au, 0x6db0f1335671d2cbu, 0x66e734919d932555u,
    0x55a256e92291918eu, 0xd298aeaf4d56564au, 0x47149d17ab5d15aau, 0x49845c9375552d53u,
    0x953accab2eac952au, 0x92b0ab5a4ed55458u, 0x3b7391f52aa19595u, 0xcb2453765d94d942u,
    0x94e259696aa9ad2cu, 0xda9d5256d895455fu, 0x6e451b0d18937535u, 0xa6a6d14d653554d6u,
    0x83b2335952e3c765u, 0x327555d8938f934au, 0x590d363a7796c96du, 0x6d55955955655cf4u,
    0xb2ea215322dae4b5u, 0xa678d376aa5a96d6u, 0xd4a6cde0d4d3714au, 0xc94d7355554acda9u,
    0xad56232d12ab9d9du, 0xd551b2d5aa732cd4u, 0x5d6c8b7ab6f62d28u, 0x1b4a9a36b5b999e5u,
    0xe2d5622b71aa9677u, 0x95376af51cccab8cu, 0x354ba6566d65eb13u, 0xd619923d2ba9752du,
    0xae8b46565938dcc4u, 0x4f61da3b72a9a49au, 0x2359ecab46c516b2u, 0x7514b5e555baa529u,
    0xa5da8a55d72d8cc5u, 0x08d1176e9a712db4u, 0x3a491aaa549d65abu, 0xa573ab153360a58bu,
    0x8d129acc54394994u, 0xc5b5525911473a62u, 0xdac934e6b63343b2u, 0xad59ce3362daaecau,
    0xb8b291aac54ccd59u, 0x8d255271b54de44eu, 0x91486dad98955ed9u, 0x25731a6246529a9au,
    0x4d8e536a54b8a957u, 0xea6557c29b1a9459u, 0xb54b59af71971792u, 0xa594f6cda5d71692u,
    0xa498da369c9da973u, 0xaa4d5557a9558ec9u, 0x9d48e52e530cd456u, 0x1956a61aec15b3b2u,
    0x157357142b516a66u, 0x556b35552b4d596bu, 0x512a4d84165a54d3u, 0x9332ac36576ca55au,
    0xb55935521acd4a4cu, 0x55515b5326a89544u, 0xd2ead8ed744ac5c2u, 0xb6aaadaccc488f51u,
    0xac572156b6b7544au, 0xb44b56b5aab39524u, 0x4aa6dc72e5c6a726u, 0x8c99c74ca8db55abu,
    0xaa49a2b26d2cf4d9u, 0x55ca0bad2aae236cu, 0xbb6cf1ce9b6dad54u, 0x68d3244997b2551au,
    0x564b36a6532b3193u, 0x536a699ae9aa96ebu, 0xa2acbd58aad94b56u, 0xc49aa56b6ca988b4u,
    0x4c59a24476276f22u, 0x5e535953a36a74a6u, 0xd2aee3b2a9b358b5u, 0x6597b55c492c99adu,
    0x473326ccdbad48aau, 0x514ab57269d62b9du, 0x661328e56f1b8dabu, 0x648ea1515b68b23au,
    0x4d2ead94b65b29a2u, 0x49ca98ce4b746ab1u, 0xacb66d9d58b1c969u, 0x2469956d2ad25e2eu,
    0x5a68aab4c556db53u, 0x5b1a76a255c471a7u, 0xa99b2770cea519abu, 0xa3c9134aeee1d269u,
    0xd0d3aa8c2a553256u, 0x3c95c88ed7294915u, 0x7352a4d198955d62u, 0x2e99b2c9a9b2754du,
    0x4d962aa9d695a4c7u, 0xa7b5196b34a93b37u, 0x9ad3a9b753ad7251u, 0x54b14999486954b2u,
    0xab57698ab4b56c9du, 0x6d54b2526d8b2a65u, 0x71b6e5599368c663u, 0x55ab6b351517535au,
    0x0ad3d32af6922a96u, 0x9955bacb49291a55u, 0xd9252d15193abc4eu, 0xce4ad6a5545542adu,
    0x9ab61aad8d59ea92u, 0x1f31aaaa29ab7515u, 0xeb2566754eed20cbu, 0x88cdb3ad51576ba2u,
    0xb5cd926f3754b2d2u, 0xb1649a9a6956db35u, 0x9edca24b5a9a5595u, 0xcb9969555144b6aeu,
    0x636b56c524ddaa56u, 0x1755b293574ac6edu, 0xf2b76ec55692b555u, 0x8da55b4d7355ac26u,
    0xd6d6d4b563b492d5u, 0x55965609b4266496u, 0xaea4d66d0dd8a4d5u, 0xba2d36b91a5509b4u,
    0x852da6adb66baa8eu, 0xf13496b9359bdb55u, 0xcade854b5910598au, 0x6d28e564b6b6bb6cu,
    0x2568e42b16b8ab3au, 0x9c6a4d8a2932d6cdu, 0x4ab4a526d496d56au, 0xc564ab34ab2c8dd9u,
    0x2699966ad4aa6aceu, 0x6eca59092b27949bu, 0x19adacecb2d4955au, 0xb4249e2d5aa98c93u,
    0x6caed2c4b494cab5u, 0x3b59357ae2fcaca9u, 0xb326ad96a4b596d2u, 0x60eab2e2d569a8b2u,
    0x52a9b6b46d56a5c5u, 0x2a35a5519196a9abu, 0xaa8cab74a56b51bbu, 0x6d96a695ab5b1b73u,
    0xd2ea63a5c9511b6du, 0x62aa66554b155b2cu, 0xd296ae1aa53ad367u, 0xda4c9732975651ceu,
    0x320a925b391972aau, 0x1e32cbab694f1beau, 0x8cab8d34ec6969c5u, 0xb65a34e7726ccf38u,
    0x969a1b54ad3137a6u, 0x29e5b2aa5b58d24au, 0x95c67b2483d31b5du, 0x4bc7248c4244bb6bu,
    0xb2b69225aae564e5u, 0x28cd63b5522cb16au, 0x355cd475d22ed251u, 0xa21d72a9cb5ca259u,
    0x668c6c9d1a8b4aaau, 0x69eb4eed2c9a2556u, 0x2d563466157a94f5u, 0xae926ab68a529ea9u,
    0xc4ba5ab5764a8ba6u, 0x550d619ab6b6ed35u, 0x652aa2ccaf4ec594u, 0x6b37bb65a91ea959u,
    0x65a24197acdba647u, 0xd52d597285d29ab7u, 0x146a9935a8a26d55u, 0x42ad66a549331953u,
    0xc526a37329d69d5du, 0x6b4774caad3696a1u, 0x34ce736faa6a4b73u, 0x6e296c9c653b735au,
    0x136ca94e5b555557u, 0x45e4cc8ea55d45afu, 0x6a6cd64b52d616b2u, 0x52e34ab442664a53u,
    0x167990d696d4a955u, 0x2d5e35c93330cc69u, 0xdb4b84d656ad1722u, 0x725a696ad6559d58u,
    0x9641b1b554d42a95u, 0x2a576d5666a8aed6u, 0xb57aab8d44892cafu, 0x5dd74b4aa5cd7334u,
    0x744b12acd54bab8du, 0xe934b934b529a98du, 0xa349660943aa2599u, 0xe76adadb96a5d2b4u,
    0x26592eab954aa25au, 0xb72ca76d956b235bu, 0x922b5ae92e39ed75u, 0x924a1695b4ad156cu,
    0x6457175a3576e3d1u, 0x2d66a458f4d52e6eu, 0x96a936696aa72219u, 0x566b1494ea58b4dbu,
    0xf44b3449a54c6609u, 0xdb5b9510bca5ebd9u, 0x93aa6cdec9646a57u, 0x5e3ad29186d49d5au,
    0xd5da6e4b225b4d6du, 0xd2326238a9a4cab0u, 0xb265aa89a9544695u, 0x776d0fb6bc859042u,
    0x94b13ada9256e658u, 0x5628d62a990d9d72u, 0x8e5d6db95b2cd2b4u, 0x5cdab94da4ac9d1eu,
    0xb4aa24acb6c5bae1u, 0xc6dca99a4f99533au, 0x38b58f195268b69cu, 0xd6b491496ce476f5u,
    0x9d89e3a9b58c6e54u, 0x0c916315c8cd52a2u, 0x6d955a94b37994b5u, 0x85a5b7785a8dcc9du,
    0xb2c9752367392ad2u, 0xa897463099993596u, 0x4b7556906e41337au, 0x95a26993c5c949b1u,
    0xad889126d4d56a92u, 0xa975e452b56d6e75u, 0xab255535d91326ceu, 0x0d76cb52d3695966u,
    0x6b67b4ee54b57496u, 0x9971685686d9dacau, 0xbced4b292532a339u, 0x9adb76d2aed4e96du,
    0xd95c55ac4a654571u, 0x492b3b6cc49726aau, 0xa498d65b24ea8e15u, 0x32b24db5498bb14au,
    0xb6323369c6555c4du, 0x296662daa5d4a52cu, 0x5c74b454a48294b3u, 0x6e62d9a54ecae759u,
    0x9463aad924455335u, 0x6364ca956152b528u, 0x33cdc5d9a65eddb2u, 0x5251b714388a9d5bu,
    0xb4aeb2936b5d54e5u, 0xd2ce52d89b32a56bu, 0xea595c93d5529621u, 0x5ad56454e48ad356u,
    0x4ca616b3565154a5u, 0x629a92b38d60ec8du, 0x9b55449154c89497u, 0x53938cd1679992acu,
    0x693256a95455559du, 0x5db6aaead9b379bbu, 0xaacaddb34b9a92f5u, 0x5652c69343cb17e8u,
    0x4936d41526555535u, 0x752cda8d5316c4d6u, 0x8aaa952e4ad5558du, 0x55361c92561a354au,
    0xa8aab9b52d95556du, 0xcd98956932f22d95u, 0x39aacc9a4392ade8u, 0x549db2b2caf12b59u,
    0x688a652d89355549u, 0x8d37955b6a92aa75u, 0x6d45ba9636365eabu, 0xd6916a8a9a352ad3u,
    0x5998c568596d5558u, 0x3aa492b4ca96aac4u, 0x8b1d2c8b14aac4a9u, 0x7577691a32e56eb2u,
    0x4d6db459d3a55553u, 0x2ead9aad9ab5aa94u, 0xb937aa99f5ba94a9u, 0xcd4d474d62ad59a3u,
    0xd7494472a2e55556u, 0x2aaaaaab52a4ea23u, 0x6765a695296a56abu, 0xaaab4cd93b69b676u,
    0x0000000000000000u,
};

static void linspace(double lo, double hi, int n, double *x)
{
    double step = (hi - lo) / (n - 1);
    for (int j = 0; j < n; j++) x[j] = j * step + lo;
    x[n - 1] = hi;
}

void pf_burgers2d_ic_init(pf_burgers2d_ic *ic)
{
    pf_mt19937 st;
    pf_mt19937_seed(&st, PF_COEF_SEED);
    for (int comp = 0; comp < 2; comp++) {
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++) ic->a[comp][i][j] = pf_mt19937_gauss(&st);
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++) ic->b[comp][i][j] = pf_mt19937_gauss(&st);
    }
    ic->c[0] = pf_mt19937_gauss(&st);
    ic->c[1] = pf_mt19937_gauss(&st);
    ic->m = 1.0;
    double x[512];
    linspace(0.0, 4.0, 512, x);
    double m = -INFINITY;
    for (int comp = 0; comp < 2; comp++)
        for (int i = 0; i < 512; i++)
            for (int j = 0; j < 512; j++) {
                double u = 0.0;
                for (int p = 0; p < 4; p++)
                    for (int q = 0; q < 4; q++) {
                        double arg = 6.283185307179586 * ((double)p * x[j] + (double)q * x[i]);
                        u = u + (ic->a[comp][p][q] * sin(arg) + ic->b[comp][p][q] * cos(arg));
                    }
                if (u > m) m = u;
            }
    ic->m = m;
}

void pf_burgers2d_ic_grid(const pf_burgers2d_ic *ic, int comp, double *out)
{
    PF_ASSERT(comp == 0 || comp == 1);
    double x[512];
    linspace(0.0, 4.0, 512, x);
    for (int i = 0; i < 512; i++)
        for (int j = 0; j < 512; j++) {
            double u = 0.0;
            for (int p = 0; p < 4; p++)
                for (int q = 0; q < 4; q++) {
                    double arg = 6.283185307179586 * ((double)p * x[j] + (double)q * x[i]);
                    u = u + (ic->a[comp][p][q] * sin(arg) + ic->b[comp][p][q] * cos(arg));
                }
            out[i * 512 + j] = 2.0 * u / ic->m + ic->c[comp];
        }
}

void pf_burgers2d_ic_eval(const pf_burgers2d_ic *ic, double x, double y, double val[2],
                          double dx[2], double dy[2])
{
    const double two_pi = 6.283185307179586;
    for (int comp = 0; comp < 2; comp++) {
        double u = 0.0, ux = 0.0, uy = 0.0;
        for (int p = 0; p < 4; p++)
            for (int q = 0; q < 4; q++) {
                double arg = two_pi * ((double)p * x + (double)q * y);
                double s = sin(arg), c = cos(arg);
                double a = ic->a[comp][p][q], b = ic->b[comp][p][q];
                u += a * s + b * c;
                double d = two_pi * (a * c - b * s); /* d/d(arg) times 2 pi */
                ux += p * d;
                uy += q * d;
            }
        double k = 2.0 / ic->m;
        val[comp] = k * u + ic->c[comp];
        if (dx) dx[comp] = k * ux;
        if (dy) dy[comp] = k * uy;
    }
}

pf_status pf_coef_field_alloc(pf_coef_kind kind, pf_coef_field **out)
{
    int n = (kind == PF_COEF_HEAT || kind == PF_COEF_DARCY) ? 256 : 512;
    PF_ASSERT(kind == PF_COEF_HEAT || kind == PF_COEF_DARCY || kind == PF_COEF_BURGERS_U0 ||
              kind == PF_COEF_BURGERS_V0);
    pf_coef_field *f = calloc(1, sizeof *f);
    if (f) {
        f->x = malloc((size_t)n * sizeof *f->x);
        f->v = malloc((size_t)n * n * sizeof *f->v);
    }
    if (!f || !f->x || !f->v) {
        pf_coef_field_free(f);
        return pf_fail(PF_ERR_NOMEM, "coef_field: out of memory for a %dx%d field", n, n);
    }
    f->kind = kind;
    f->n = n;
    if (n == 256) {
        pf_status st = pf_coef_grf(PF_COEF_SEED, 4.0, n, f->v);
        if (st != PF_OK) {
            pf_coef_field_free(f);
            return st;
        }
        for (size_t k = 0; k < (size_t)n * n; k++)
            f->v[k] = kind == PF_COEF_HEAT ? pf_np_exp(f->v[k]) : (f->v[k] > 0.0 ? 12.0 : 1.0);
        linspace(0.0, 1.0, n, f->x);
        f->diag = darcy_diag; /* the triangulation depends on the points only */
    } else {
        pf_burgers2d_ic ic;
        pf_burgers2d_ic_init(&ic);
        pf_burgers2d_ic_grid(&ic, kind == PF_COEF_BURGERS_U0 ? 0 : 1, f->v);
        linspace(0.0, 4.0, n, f->x);
        f->diag = NULL;
    }
    *out = f;
    return PF_OK;
}

void pf_coef_field_free(pf_coef_field *f)
{
    if (!f) return;
    free(f->x);
    free(f->v);
    free(f);
}

/* index of the node nearest to t along an axis; ties go to the lower index */
static int nearest_node(const double *x, int n, double t)
{
    if (!(t > x[0])) return 0;
    if (!(t < x[n - 1])) return n - 1;
    int j = (int)(t / x[1]);
    if (j > n - 2) j = n - 2;
    while (j > 0 && t < x[j]) j--;
    while (j < n - 2 && t >= x[j + 1]) j++;
    double d0 = t - x[j], d1 = x[j + 1] - t;
    return d1 * d1 < d0 * d0 ? j + 1 : j;
}

double pf_coef_field_nearest(const pf_coef_field *f, double x, double y)
{
    int j = nearest_node(f->x, f->n, x), i = nearest_node(f->x, f->n, y);
    return f->v[(size_t)i * f->n + j];
}

/* cell index j with x[j] <= t <= x[j+1] (t inside the grid) */
static int cell_of(const double *x, int n, double t)
{
    int j = (int)(t / x[1]);
    if (j > n - 2) j = n - 2;
    if (j < 0) j = 0;
    while (j > 0 && t < x[j]) j--;
    while (j < n - 2 && t > x[j + 1]) j++;
    return j;
}

double pf_coef_field_linear(const pf_coef_field *f, double x, double y, double *dx, double *dy)
{
    const int n = f->n;
    const double *g = f->x;
    if (!(x >= g[0] && x <= g[n - 1] && y >= g[0] && y <= g[n - 1])) {
        if (dx) *dx = NAN;
        if (dy) *dy = NAN;
        return NAN;
    }
    int j = cell_of(g, n, x), i = cell_of(g, n, y);
    double hx = g[j + 1] - g[j], hy = g[i + 1] - g[i];
    double fx = (x - g[j]) / hx, fy = (y - g[i]) / hy;
    const double *v = f->v + (size_t)i * n + j;
    double v00 = v[0], v01 = v[1], v10 = v[n], v11 = v[n + 1];
    size_t c = (size_t)i * (n - 1) + j;
    int main_diag = f->diag ? (int)((f->diag[c >> 6] >> (c & 63)) & 1) : 1;
    double val, gx, gy; /* gradient in cell units */
    if (main_diag) {
        if (fx >= fy) { /* (i,j), (i,j+1), (i+1,j+1) */
            gx = v01 - v00;
            gy = v11 - v01;
        } else { /* (i,j), (i+1,j), (i+1,j+1) */
            gx = v11 - v10;
            gy = v10 - v00;
        }
        val = v00 + fx * gx + fy * gy;
    } else if (fx + fy <= 1.0) { /* (i,j), (i,j+1), (i+1,j) */
        gx = v01 - v00;
        gy = v10 - v00;
        val = v00 + fx * gx + fy * gy;
    } else { /* (i,j+1), (i+1,j), (i+1,j+1) */
        gx = v11 - v10;
        gy = v11 - v01;
        val = v11 - (1.0 - fx) * gx - (1.0 - fy) * gy;
    }
    if (dx) *dx = gx / hx;
    if (dy) *dy = gy / hy;
    return val;
}

/* ------------------------------------------------- per-PDE evaluators --- */

double pf_heat2d_kappa(const pf_coef_field *heat, double x, double y)
{
    PF_ASSERT(heat->kind == PF_COEF_HEAT);
    return pf_coef_field_nearest(heat, x, y);
}

double pf_wave2d_c(const pf_coef_field *darcy, double x, double y, double *cx, double *cy)
{
    PF_ASSERT(darcy->kind == PF_COEF_DARCY);
    double c = pf_coef_field_linear(darcy, (x + 1.0) / 2.0, (y + 1.0) / 2.0, cx, cy);
    if (cx) *cx *= 0.5;
    if (cy) *cy *= 0.5;
    return c;
}

void pf_heat2d_kappa_batch(const pf_coef_field *heat, size_t npts, const pf_real *pts,
                           size_t ld, pf_real *out)
{
    for (size_t k = 0; k < npts; k++)
        out[k] = (pf_real)pf_heat2d_kappa(heat, (double)pts[k * ld], (double)pts[k * ld + 1]);
}

void pf_wave2d_c_batch(const pf_coef_field *darcy, size_t npts, const pf_real *pts, size_t ld,
                       pf_real *out)
{
    for (size_t k = 0; k < npts; k++)
        out[k] = (pf_real)pf_wave2d_c(darcy, (double)pts[k * ld], (double)pts[k * ld + 1], NULL,
                                      NULL);
}
