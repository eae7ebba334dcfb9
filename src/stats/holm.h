/*
 * holm.h — Holm's step-down correction for m p-values (Holm 1979).
 *
 * Sort p ascending; the i-th smallest (i = 1..m) is multiplied by
 * m - i + 1, capped at 1, and each adjusted value is raised to the largest
 * one before it so the order is kept. adj[j] belongs to p[j]; NaN p-values
 * (comparisons that could not be made) stay NaN and do not count in m.
 */
#ifndef PF_STATS_HOLM_H
#define PF_STATS_HOLM_H

#include "core/status.h"

pf_status pf_holm(const double *p, int m, double *adj);

#endif
