#include "core/arena.h"

#include <stdlib.h>
#include <string.h>

#include "core/real.h"

static size_t round_up(size_t n) { return (n + PF_ALIGN - 1) / PF_ALIGN * PF_ALIGN; }

void pf_arena_init(pf_arena *a)
{
    a->size = 0;
    a->base = NULL;
}

size_t pf_arena_reserve(pf_arena *a, size_t bytes)
{
    PF_ASSERT(a->base == NULL);
    size_t off = a->size;
    a->size += round_up(bytes ? bytes : 1);
    return off;
}

void *pf_aligned_alloc(size_t bytes) { return aligned_alloc(PF_ALIGN, round_up(bytes ? bytes : 1)); }

pf_status pf_arena_commit(pf_arena *a)
{
    PF_ASSERT(a->base == NULL);
    a->base = pf_aligned_alloc(a->size);
    if (!a->base)
        return pf_fail(PF_ERR_NOMEM, "cannot allocate %zu MiB", a->size >> 20);
    memset(a->base, 0, a->size);
    return PF_OK;
}

void *pf_arena_at(const pf_arena *a, size_t offset)
{
    PF_ASSERT(a->base != NULL && offset < a->size);
    return (char *)a->base + offset;
}

void pf_arena_release(pf_arena *a)
{
    free(a->base);
    pf_arena_init(a);
}
