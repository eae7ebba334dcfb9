/* candidate.c — status names, the ranking rule (candidate.h). */
#include "search/candidate.h"

#include <math.h>
#include <string.h>

static const char *const status_names[] = {"ok", "nan", "diverged", "timeout", "invalid"};

const char *pf_candidate_status_name(pf_candidate_status s)
{
    return (unsigned)s < 5 ? status_names[s] : "?";
}

int pf_candidate_status_lookup(const char *name)
{
    if (!name) return -1;
    for (int i = 0; i < 5; i++)
        if (!strcmp(name, status_names[i])) return i;
    return -1;
}

bool pf_candidate_ranked(const pf_candidate *c)
{
    return c->valid && c->status == PF_CANDIDATE_OK && c->has_y && isfinite(c->y);
}

void pf_candidate_release(pf_candidate *c)
{
    json_decref(c->spec);
    json_decref(c->evidence);
    c->spec = c->evidence = NULL;
}
