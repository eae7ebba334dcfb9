/*
 * region.h — RoPINN's region optimization (train/config.h,
 * pf_region_config): the per-step perturbation of the interior points and
 * the gradient-noise level that sets its radius.
 *
 * The trainer owns one pf_region per run and, on every gradient step (adam,
 * adamw, sgd, multiadam):
 *
 *     pf_region *rg = pf_region_alloc_on(be, nmodel, &tc->region, seed);
 *     ...
 *     const pf_real *y;                                   // the step's points
 *     pf_region_draw(rg, geom, base_x, n, d, &y);          // host; radius from the last sigma
 *     pf_train_graph_upload_interior(t, y);               // one upload
 *     ... pass ...                                        // gradients in the graph
 *     pf_region_push(rg, grads);                          // queued on the backend
 *     ... clip, update ...
 *     double sigma = pf_region_read(rg);                  // waits; the next step's radius
 *     ...
 *     pf_train_graph_upload_interior(t, base_x);          // the stage is over
 *     pf_region_free(rg);
 *
 * pf_region_push only queues backend work (grad_noise), so it may sit in a
 * recorded step; the ring of T0 gradients, the push count and sigma live in
 * backend memory, and nothing on the host changes between replays except
 * the points, which are uploaded before each one.
 *
 * Randomness: one MT19937 stream from pf_rng_derive(seed, "train.region"),
 * d draws per interior point per step whether or not the point moves, so a
 * run stays a pure function of its seed.
 *
 * No allocation per step: the host buffer of the step's points is sized at
 * the first draw and grows only when the interior set does (RAR-D, which
 * rebuilds the graph anyway).
 */
#ifndef PF_TRAIN_REGION_H
#define PF_TRAIN_REGION_H

#include <stddef.h>
#include <stdint.h>

#include "core/real.h"
#include "core/rng.h"
#include "core/status.h"
#include "geom/geometry.h"
#include "tensor/backend.h"
#include "train/config.h"

/* Salt of the perturbation's random stream (pf_rng_derive). */
#define PF_REGION_RNG_TAG "train.region"

/* The region radius for noise level sigma: clip(r0 / sigma, 0, max_radius);
 * 0 when r0 / sigma is NaN. */
double pf_region_radius(const pf_region_config *c, double sigma);

/* Move n points x (n x d, row-major) into out: out = x + r u, u ~ U[0, 1)^d
 * from rng (d draws per point, in order), each coordinate clamped to the
 * bounding box of g; a point whose moved position is outside g (non-box
 * shapes; the test is on the double value, sdf <= 0) keeps x. Returns how
 * many points kept x. x and out may not overlap. */
int pf_region_perturb(const pf_geom *g, double r, pf_rng *rng, const pf_real *x, int n, int d, pf_real *out);

typedef struct pf_region pf_region;

/* The state of one run on backend `be` for n > 0 network scalars: the
 * ring of c->history gradients and the two doubles of grad_noise (zeroed),
 * the random stream of `seed`. NULL with the reason in pf_errmsg() on a bad
 * configuration (history < 1, r0 or max_radius not > 0) or out of memory. */
pf_region *pf_region_alloc_on(const pf_backend *be, size_t n, const pf_region_config *c, uint64_t seed);
void pf_region_free(pf_region *rg);

/* This step's points from the n base points x (n x d) of domain g, with the
 * radius of the last sigma read (1 before any): *out points into the
 * region's host buffer, valid until the next draw. PF_ERR_NOMEM when the
 * buffer cannot grow. */
pf_status pf_region_draw(pf_region *rg, const pf_geom *g, const pf_real *x, int n, int d, const pf_real **out);

/* Queue: push the gradient g (n scalars, backend memory) into the ring and
 * recompute sigma there. */
void pf_region_push(pf_region *rg, const pf_real *g);

/* Read sigma back from the backend (waits) and keep it for the next draw. */
double pf_region_read(pf_region *rg);

/* The last sigma read (1 before any) and the radius of the last draw (NaN
 * before any). */
double pf_region_sigma(const pf_region *rg);
double pf_region_last_radius(const pf_region *rg);

#endif
