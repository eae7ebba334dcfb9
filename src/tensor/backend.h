/*
 * backend.h — where a graph's buffers live and its ops run.
 *
 * A backend is a small vtable. The graph plans buffers and the order of ops;
 * the backend owns the memory and executes one node at a time. The CPU
 * backend (OpenBLAS GEMMs, OpenMP elementwise loops) is the reference every
 * other backend is checked against; the CUDA backend (kernels/) plugs in the
 * same way. PDE and model code never see a backend: only the graph does.
 *
 * Pointers handed to forward/backward (node buffers, parameters) are in the
 * backend's memory. Host code reaches them only through upload/download.
 */
#ifndef PF_TENSOR_BACKEND_H
#define PF_TENSOR_BACKEND_H

#include <stdbool.h>
#include <stddef.h>

#include "core/status.h"

struct pf_node;

typedef struct pf_backend {
    const char *name;
    /* True when the backend buffers are ordinary host memory. */
    bool host_memory;
    /* Whether the backend implements this node's op (optional: NULL = all). */
    bool (*supports_op)(const struct pf_node *x);
    /* Allocate `bytes` of zeroed, PF_ALIGN-aligned memory. */
    pf_status (*alloc)(size_t bytes, void **out);
    void (*free)(void *p);
    /* Host -> backend and backend -> host copies. */
    void (*upload)(void *dst, const void *src, size_t bytes);
    void (*download)(void *dst, const void *src, size_t bytes);
    /* Workspace bytes this backend's ops need for node x, planned into the
     * graph's one allocation (x->scratch) (optional: NULL = none). */
    size_t (*scratch_bytes)(const struct pf_node *x);
    /* Set `bytes` of backend memory to zero. */
    void (*zero)(void *p, size_t bytes);
    /* Compute x->val from its inputs. */
    void (*forward)(struct pf_node *x);
    /* Given x->grad, write or accumulate its inputs' gradients (per edge, see
     * node.h) and accumulate parameter gradients. */
    void (*backward)(struct pf_node *x);
} pf_backend;

/* The CPU reference backend. */
const pf_backend *pf_backend_cpu(void);

#endif
