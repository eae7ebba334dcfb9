/*
 * mem.h — aligned heap memory.
 *
 * Every long-lived numeric buffer (graph arenas, optimizer moments, point
 * sets) is PF_ALIGN-aligned, one cache line / AVX-512 register, so vector
 * loops never straddle lines at their start:
 *
 *     pf_real *v = pf_aligned_alloc(n * sizeof *v);
 *     if (!v) return pf_fail(PF_ERR_NOMEM, "...");
 *     ...
 *     free(v);
 */
#ifndef PF_CORE_MEM_H
#define PF_CORE_MEM_H

#include <stddef.h>

/* `bytes` rounded up to a multiple of PF_ALIGN (at least one), aligned to
 * PF_ALIGN; NULL when out of memory. Not zeroed; free with free(). */
void *pf_aligned_alloc(size_t bytes);

#endif
