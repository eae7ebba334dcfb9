#include "core/mem.h"

#include <stdlib.h>

#include "core/real.h"

void *pf_aligned_alloc(size_t bytes)
{
    size_t n = bytes ? (bytes + PF_ALIGN - 1) / PF_ALIGN * PF_ALIGN : PF_ALIGN;
    return aligned_alloc(PF_ALIGN, n);
}
