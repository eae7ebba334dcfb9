/*
 * step0.h — step 0 of a training written out whole, so that another
 * implementation can recompute it from the same numbers: the initial
 * parameters, the points every loss sees, each loss's value and weight, the
 * total and its gradient. pf-train --step0 writes it (pf_train_step0,
 * train/trainer.h); tests/torch_parity.py rebuilds the network in PyTorch
 * from it and compares (docs/baselines.md, "Parity with PyTorch at step 0").
 *
 * The file (HDF5, root attribute format = "pinnforge.step0"):
 *
 *   /                 attributes: format, pde, seed (int64), precision
 *                     ("float" or "double": pf_real), backend, spec (the
 *                     canonical spec JSON, when given), loss_total (the
 *                     weighted total of the pass), nparams (trainable
 *                     network scalars), tokens (pf_model_tokens), seq_dt
 *   /params/NAME      every registered parameter, rows x cols as registered
 *                     (a linear layer's W is out x in, as torch's weight;
 *                     its b is 1 x out), attribute trainable (0/1)
 *   /grad/NAME        d loss_total / d NAME, same shape (trainable only)
 *   /sets/SET/x       the set's points (n x d_in); also normal (n x d_in),
 *                     target (n x 1: observations) and image (n x d_in:
 *                     periodic images) where the set has them; attribute
 *                     tokens: the token rows per point its losses average
 *                     over (pf_train_graph_set_tokens: k for a sequence
 *                     model's interior and boundary sets, else 1)
 *   /losses/NN        one group per loss of the graph (NN = 00, 01, ...:
 *                     the graph's order), attributes name, term (index into
 *                     the spec's terms: 0 the residual, 1 + j constraint
 *                     j), term_name, equation (the residual's equation, -1
 *                     for a constraint), chunk (causal chunk, -1 without),
 *                     set (the set it is evaluated on), value (the loss,
 *                     unweighted) and weight (its weight in loss_total)
 *
 * So loss_total = sum over NN of weight * value. Host-evaluated auxiliary
 * fields (coefficient maps), causal masks and self-adaptive weights are
 * not written: a reader recomputes the first from the points, and the
 * parity test runs no spec with the others (at step 0 every causal weight
 * is 1 and every self-adaptive weight 1; the latter are parameters and are
 * written under /params as sa.TERM).
 */
#ifndef PF_TRAIN_STEP0_H
#define PF_TRAIN_STEP0_H

#include <stdint.h>

#include "core/status.h"
#include "train/train_graph.h"

/* What the trainer knows of the pass beside the graph. */
typedef struct pf_step0_info {
    uint64_t seed;
    const char *spec;      /* canonical spec JSON, or NULL */
    double loss_total;     /* sum_l t->w[l] * value_l */
} pf_step0_info;

/* Write `path` (atomically, io/h5.h) from t after a forward-backward pass
 * with weights t->w: the values, parameters and gradients are read from
 * the graph. PF_ERR_IO / PF_ERR_NOMEM naming the file. */
pf_status pf_step0_write(const char *path, const pf_train_graph *t, const pf_step0_info *info);

#endif
