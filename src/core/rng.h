/*
 * rng.h — seeded random numbers (GSL's MT19937 underneath).
 *
 * Everything random in PINNForge (initialisation, sampling, noise) draws from
 * a pf_rng made from an explicit seed, so a run is deterministic given its
 * seeds. Sub-streams for independent consumers are derived with
 * pf_rng_derive(seed, tag) so adding a consumer never shifts another's draws.
 */
#ifndef PF_CORE_RNG_H
#define PF_CORE_RNG_H

#include <stdint.h>

#include "core/status.h"

typedef struct pf_rng pf_rng;

pf_rng *pf_rng_alloc(uint64_t seed);
void pf_rng_free(pf_rng *r);

double pf_rng_uniform(pf_rng *r);              /* [0, 1) */
double pf_rng_uniform_in(pf_rng *r, double lo, double hi);
double pf_rng_normal(pf_rng *r, double sigma); /* N(0, sigma^2) */
uint64_t pf_rng_int(pf_rng *r, uint64_t n);    /* uniform in [0, n) */

/* A seed for a named sub-stream of `seed` (SplitMix64 of seed and a string hash). */
uint64_t pf_rng_derive(uint64_t seed, const char *tag);

#endif
