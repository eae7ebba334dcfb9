/*
 * jet.h — the layout of a jet: which derivative streams a field carries.
 *
 * A jet holds a field over N points with C channels together with its pure
 * directional derivatives along directions v_1..v_D, direction d up to order
 * K_d <= 4, plus optional *collapsed* second-order streams: a weighted sum of
 * pure second derivatives, sum_d w_d d^2u/dv_d^2 (a Laplacian when all
 * w_d = 1), carried as ONE stream (Dangel et al. 2024, "collapsed Taylor
 * mode"). A collapsed stream needs first-order streams (K_d >= 1) for every
 * direction it weights.
 *
 * Storage is [S][N][C], row-major, with S = 1 + sum_d K_d + n_collapsed:
 *
 *     stream 0                       the value u
 *     stream pf_jet_stream(L, d, k)  d^k u / dv_d^k, k = 1..K_d
 *     stream pf_jet_collapsed(L, c)  sum_d w_cd d^2u/dv_d^2
 *
 * Streams hold derivatives, not Taylor coefficients (no 1/k! factors).
 * Example: Burgers (x, t) needs u, u_x, u_xx, u_t:
 *
 *     pf_jet_layout L = pf_jet_layout_none();
 *     int x = pf_jet_add_dir(&L, 2), t = pf_jet_add_dir(&L, 1);   // S = 4
 *
 * and Poisson in 5-D needs u, the gradient and the Laplacian:
 *
 *     for (int i = 0; i < 5; i++) pf_jet_add_dir(&L, 1);
 *     pf_real ones[5] = {1, 1, 1, 1, 1};
 *     int lap = pf_jet_add_collapsed(&L, ones);                    // S = 7
 *
 * A mixed derivative d^2u/dx dy is not carried; it follows from pure ones by
 * polarization: u_xy = (D^2_{x+y} u - u_xx - u_yy) / 2 along v = e_x + e_y.
 */
#ifndef PF_TENSOR_JET_H
#define PF_TENSOR_JET_H

#include <stdbool.h>

#include "core/real.h"

#define PF_JET_MAX_DIRS 8
#define PF_JET_MAX_ORDER 4
#define PF_JET_MAX_COLL 2
#define PF_JET_MAX_STREAMS (1 + PF_JET_MAX_DIRS * PF_JET_MAX_ORDER + PF_JET_MAX_COLL)

typedef struct pf_jet_layout {
    int ndir;                                       /* D */
    int order[PF_JET_MAX_DIRS];                     /* K_d, 1..4 */
    int ncoll;                                      /* collapsed streams */
    pf_real coll_w[PF_JET_MAX_COLL][PF_JET_MAX_DIRS]; /* their weights w_cd */
} pf_jet_layout;

/* A value-only layout (S = 1). */
pf_jet_layout pf_jet_layout_none(void);

/* Add a direction carried up to `order` (1..4); returns its index. */
int pf_jet_add_dir(pf_jet_layout *L, int order);

/* Add a collapsed stream with weights w[0..ndir-1]; returns its index. */
int pf_jet_add_collapsed(pf_jet_layout *L, const pf_real *w);

/* Number of streams S. */
int pf_jet_nstreams(const pf_jet_layout *L);

/* Stream index of d^k/dv_d^k (k = 0 gives the value stream 0). */
int pf_jet_stream(const pf_jet_layout *L, int dir, int k);

/* Stream index of collapsed stream c. */
int pf_jet_collapsed(const pf_jet_layout *L, int c);

/* Highest order over all streams (2 for a collapsed stream). */
int pf_jet_max_order(const pf_jet_layout *L);

bool pf_jet_layout_equal(const pf_jet_layout *a, const pf_jet_layout *b);

/* False (with the reason in pf_errmsg()) if orders are out of range or a
 * collapsed stream weights a direction that has no first-order stream. */
bool pf_jet_layout_valid(const pf_jet_layout *L);

#endif
