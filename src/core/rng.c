#include "core/rng.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <stdlib.h>

struct pf_rng {
    gsl_rng *g;
};

pf_rng *pf_rng_alloc(uint64_t seed)
{
    pf_rng *r = malloc(sizeof *r);
    if (!r) return NULL;
    r->g = gsl_rng_alloc(gsl_rng_mt19937);
    if (!r->g) {
        free(r);
        return NULL;
    }
    /* MT19937 takes an unsigned long seed; fold 64 bits into it. */
    gsl_rng_set(r->g, (unsigned long)(seed ^ (seed >> 32)));
    return r;
}

void pf_rng_free(pf_rng *r)
{
    if (!r) return;
    gsl_rng_free(r->g);
    free(r);
}

double pf_rng_uniform(pf_rng *r) { return gsl_rng_uniform(r->g); }

double pf_rng_uniform_in(pf_rng *r, double lo, double hi)
{
    return lo + (hi - lo) * gsl_rng_uniform(r->g);
}

double pf_rng_normal(pf_rng *r, double sigma) { return gsl_ran_gaussian_ziggurat(r->g, sigma); }

uint64_t pf_rng_int(pf_rng *r, uint64_t n)
{
    PF_ASSERT(n > 0);
    /* gsl_rng_uniform_int is limited to the generator's range (32 bits for MT). */
    if (n <= 0xffffffffu) return gsl_rng_uniform_int(r->g, (unsigned long)n);
    return (uint64_t)(gsl_rng_uniform(r->g) * (double)n) % n;
}

static uint64_t splitmix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

uint64_t pf_rng_derive(uint64_t seed, const char *tag)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a of the tag */
    for (const unsigned char *p = (const unsigned char *)tag; *p; p++)
        h = (h ^ *p) * 1099511628211ull;
    return splitmix64(seed ^ splitmix64(h));
}
