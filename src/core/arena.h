/*
 * arena.h — one aligned block, handed out in pieces.
 *
 * Size every buffer first (pf_arena_reserve), then allocate one block
 * (pf_arena_commit) and take aligned views by offset (pf_arena_at): hot code
 * then never allocates, and freeing is one call. Offsets returned by reserve
 * stay valid after commit:
 *
 *     pf_arena a; pf_arena_init(&a);
 *     size_t off = pf_arena_reserve(&a, n * sizeof(pf_real));
 *     if (pf_arena_commit(&a) != PF_OK) ...;
 *     pf_real *p = pf_arena_at(&a, off);
 *     ...
 *     pf_arena_release(&a);
 */
#ifndef PF_CORE_ARENA_H
#define PF_CORE_ARENA_H

#include <stddef.h>

#include "core/status.h"

typedef struct pf_arena {
    size_t size;   /* bytes reserved so far (each piece rounded to PF_ALIGN) */
    void *base;    /* NULL until committed */
} pf_arena;

void pf_arena_init(pf_arena *a);

/* Reserve `bytes` (rounded up to the alignment); returns the piece's offset. */
size_t pf_arena_reserve(pf_arena *a, size_t bytes);

/* Allocate the block and zero it. Fails with PF_ERR_NOMEM. */
pf_status pf_arena_commit(pf_arena *a);

/* Pointer to a reserved piece; only after commit. */
void *pf_arena_at(const pf_arena *a, size_t offset);

void pf_arena_release(pf_arena *a);

/* PF_ALIGN-aligned heap memory for long-lived buffers (free with free());
 * NULL when out of memory. Not zeroed. */
void *pf_aligned_alloc(size_t bytes);

#endif
