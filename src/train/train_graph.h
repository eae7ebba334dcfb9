/*
 * train_graph.h — a PDE problem as training points and a compiled loss
 * graph, plus the probe graphs that read the network between steps.
 *
 * The trainer (train/trainer.h) owns one pf_train_graph per candidate:
 *
 *     pf_train_graph *t;
 *     pf_train_graph_alloc_on(be, pde, &mc, &tc, seed, &t);  // samples points, builds, compiles
 *     pf_graph_forward_backward(t->g, t->w);                  // a step: w = per-loss weights
 *     ...
 *     pf_train_graph_free(t);
 *
 * ------------------------------------------------------------ point sets
 *
 * The points live on the host in sets, each with the constraints that are
 * evaluated on it:
 *   set 0      interior: the PDE residual (every equation) and the
 *              inequality constraints that hold in the interior (they reuse
 *              these points: `sampling.interior` of them, drawn by
 *              `sampling.method`);
 *   initial    one set of `sampling.initial` points on the t = t0 slice that
 *              every initial constraint shares (time-dependent PDEs);
 *   boundary   one set per boundary constraint (Dirichlet, Neumann, Robin,
 *              periodic on its lo face): `sampling.boundary` split evenly
 *              among them, the remainder to the earlier ones;
 *   points     one set per point constraint: its fixed points (a gauge) or
 *              its observations, whose count the PDE fixes (not part of the
 *              point budget).
 * Every draw takes its seed from pf_rng_derive(seed, "train.points.<set>.<k>")
 * where k counts redraws, so a run is a pure function of its seed.
 *
 * ------------------------------------------------------------------ graph
 *
 * The network (pf_model_alloc, registered FIRST, so its parameters are the
 * prefix [0, nmodel) of the flat buffer) is applied to every set; with hard
 * constraints the PDE's transform wraps it everywhere. Loss terms are the
 * spec's terms — term 0 "pde", term 1 + j constraint j — but the graph may
 * hold several losses per term: one per residual equation, and with causal
 * weighting one per equation and time chunk (chunk i's loss is the mean
 * square over its own points, through a mask input). loss_term[l] and
 * loss_chunk[l] say where graph loss l belongs; the trainer writes the
 * per-loss weights into w[] before each pass:
 *
 *     L = sum_t W_t * (1 / M) sum_{e, i} c_i L_{e,i}    (M chunks, c_i causal)
 *
 * Constraints that the hard transform satisfies keep their losses (with
 * weight 0) so their error is still measured.
 *
 * A sequence model (pf_model_tokens() = k > 1, PINNsFormer) is trained as
 * released: on the interior and on every boundary set (Dirichlet, Neumann,
 * Robin, periodic) the residuals see the k tokens of each point, whose
 * coordinates are pf_tokens of the points (the last input shifted by i
 * seq_dt), and the loss is the mean over all n k tokens; on the initial set
 * and on point constraints (observations, gauges) the network's token 0 is
 * compared with the values at the points. The derivatives are those of each
 * token's output as a function of its point (the engine's jets through
 * pf_tokens); the released code's autograd of the summed outputs gives,
 * for token i, the sum over tokens j of d u_j / d x_i instead. A boundary
 * condition's data (its Dirichlet value, Neumann flux, ...) are built from
 * the tokens' coordinates, so token i's target is the boundary function at
 * its own shifted point (t + i seq_dt), as released. Host-evaluated
 * auxiliary fields (coefficient maps), normals, self-adaptive weights and
 * causal masks are repeated over a
 * point's tokens (pf_tokens with dt = 0: read at the point, not at the
 * shifted token); observed targets stay on token 0's sets. Attention
 * takes no collapsed streams, so the interior jet carries pure second
 * derivatives. The residual probe reads token 0's residual.
 *
 * Self-adaptive weighting adds one trainable parameter field per soft term
 * (n x 1, initialised to 1) AFTER the network; it multiplies that term's
 * per-point squared residuals. Their flat offset is sa_offset (nmodel).
 *
 * RAR-D grows the interior set: pf_train_graph_add_interior() rebuilds the
 * graph with the new size and carries the parameters (and the existing
 * points' self-adaptive weights; the new points start at 1) over.
 *
 * ----------------------------------------------------------------- probes
 *
 * Two small graphs share the network's configuration and get a copy of its
 * parameters before use (pf_train_graph_sync_probes): the residual probe
 * (PF_TRAIN_PROBE_BATCH points with the derivative streams the residual
 * needs) and the value probe (value-only). pf_train_graph_residual() and
 * pf_train_graph_values() push any number of points through them in
 * batches; they serve RAD/RAR-D pools, the evidence and the evaluation MSE.
 */
#ifndef PF_TRAIN_TRAIN_GRAPH_H
#define PF_TRAIN_TRAIN_GRAPH_H

#include <stdint.h>

#include "geom/geometry.h"
#include "geom/pde.h"
#include "geom/sample.h"
#include "nn/model.h"
#include "tensor/graph.h"
#include "train/config.h"

#define PF_TRAIN_MAX_SETS (2 + PF_PDE_MAX_CONSTRAINTS)
#define PF_TRAIN_MAX_LOSSES (PF_PDE_MAX_EQ * PF_TRAIN_MAX_CHUNKS + PF_PDE_MAX_CONSTRAINTS)
#define PF_TRAIN_PROBE_BATCH 2048

typedef struct pf_train_set {
    const char *name;          /* "interior", "initial", or the constraint's name */
    pf_point_set ps;           /* host points (normals where the sampler gives them) */
    pf_real *target;           /* observations: n target values, else NULL */
    pf_real *image;            /* periodic: n image points, else NULL */
    int ncon, con[PF_PDE_MAX_CONSTRAINTS]; /* constraints evaluated here */
    int order;                 /* highest derivative its constraints need */
    int draws;                 /* redraws so far (seed stream) */
    bool sampled;              /* drawn from the geometry (resampling redraws it) */
    /* graph side */
    pf_pde_ctx ctx, ctx_image;  /* the uploaded points (and periodic images) */
    pf_pde_ctx tok, tok_image;  /* sequence models: their tokens (build time) */
    pf_node *normal;
} pf_train_set;

typedef struct pf_train_graph {
    const pf_backend *be;                  /* where the graphs live (all on one) */
    const pf_pde *pde;
    pf_model_config mc;
    pf_train_config tc;
    uint64_t seed;
    pf_geom *geom;
    int hard;                              /* transform index, -1 when soft */
    int nterms;                            /* 1 + pde->ncon */
    const char *term_name[PF_TRAIN_MAX_TERMS];
    bool term_hard[PF_TRAIN_MAX_TERMS];    /* satisfied exactly by the transform */
    int term_set[PF_TRAIN_MAX_TERMS];      /* the set the term's points are in, -1 if none */

    int nsets;
    pf_train_set set[PF_TRAIN_MAX_SETS];

    /* causal weighting: chunk of each interior point; masks per chunk */
    int nchunks;                           /* 1 without causal weighting */
    pf_node *mask[PF_TRAIN_MAX_CHUNKS];

    pf_graph *g;
    int builds;                            /* graphs built so far (RAR-D rebuilds) */
    size_t nmodel;                         /* flat scalars of the network */
    int nmodel_ids;                        /* registered network parameters */
    int sa_param[PF_TRAIN_MAX_TERMS];      /* self-adaptive weight parameter, -1 */
    int nloss;
    int loss_term[PF_TRAIN_MAX_LOSSES];
    int loss_chunk[PF_TRAIN_MAX_LOSSES];   /* -1 without causal weighting */
    pf_real w[PF_TRAIN_MAX_LOSSES];        /* per-loss weights for the next pass */

    pf_graph *probe_r, *probe_u;
    pf_pde_ctx pctx_r, pctx_u;
    pf_node *probe_res[PF_PDE_MAX_EQ], *probe_out;
    pf_real *scratch;                      /* PF_TRAIN_PROBE_BATCH * (d_in + 1 + d_out) */
    pf_real *work;                         /* work_n: a set's aux fields or one causal mask */
    int *chunk_of;                         /* work_n: causal chunk of each interior point */
    int work_n;                            /* the largest set's points */
} pf_train_graph;

/* Sample every set, build and compile the training graph (network
 * parameters from pf_rng_derive(seed, "train.params")) and the probes, on
 * backend `be` (on a backend without host memory the graphs run unchunked).
 * PF_ERR_INVALID / PF_ERR_IO / PF_ERR_NOMEM with the reason. */
pf_status pf_train_graph_alloc_on(const pf_backend *be, const pf_pde *p, const pf_model_config *mc,
                                  const pf_train_config *tc, uint64_t seed, pf_train_graph **out);
void pf_train_graph_free(pf_train_graph *t);

/* Redraw every sampled set (same sizes; the next seed of each stream) and
 * upload; self-adaptive weights of the redrawn sets restart at 1. */
pf_status pf_train_graph_resample(pf_train_graph *t);

/* Replace the interior points by x (same count) and upload. */
pf_status pf_train_graph_set_interior(pf_train_graph *t, const pf_real *x);

/* Upload x (the interior set's count of points, n x d_in) as the interior
 * points the next passes see, with their auxiliary fields and causal masks,
 * WITHOUT changing the set itself (t->set[0].ps) or its self-adaptive
 * weights: region optimization's perturbed points, and the set's own points
 * again to undo them. Allocates nothing (uploads use preallocated host
 * room). */
pf_status pf_train_graph_upload_interior(pf_train_graph *t, const pf_real *x);

/* Append n points x to the interior set and rebuild (RAR-D). */
pf_status pf_train_graph_add_interior(pf_train_graph *t, const pf_real *x, int n);

/* Copy the network's parameters into the probes. */
void pf_train_graph_sync_probes(pf_train_graph *t);

/* |r| at n points x (n x d_in): the root of the sum over equations of the
 * squared residuals, into r (n doubles). Probes must be synced. */
pf_status pf_train_graph_residual(pf_train_graph *t, const pf_real *x, int n, double *r);

/* The fields at n points x into u (n x d_out, row-major). Probes synced. */
pf_status pf_train_graph_values(pf_train_graph *t, const pf_real *x, int n, pf_real *u);

/* Token rows per point that set s's losses average over: pf_model_tokens()
 * on a sequence model's interior and sampled boundary sets, else 1 (token 0
 * only: the initial slice, point constraints, every set of a plain model). */
int pf_train_graph_set_tokens(const pf_train_graph *t, int s);

/* Points of the interior set (counts). */
static inline int pf_train_graph_interior(const pf_train_graph *t) { return t->set[0].ps.n; }

#endif
