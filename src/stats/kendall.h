/*
 * kendall.h — Kendall's coefficient of concordance W (Kendall & Babington
 * Smith 1939), with the correction for ties.
 *
 * x holds m raters (rows) by n objects (columns), row-major; each rater's
 * values are ranked (the smallest gets rank 1, ties share their average
 * rank, describe.h). With R_j the rank sum of object j, S the sum of the
 * squared deviations of the R_j from their mean m (n + 1) / 2, and T the
 * sum over all raters' tie groups of t^3 - t,
 *
 *     W = 12 S / (m^2 (n^3 - n) - m T),
 *
 * 1 when the raters agree exactly, 0 when the rank sums are all equal. Its
 * test: chi2 = m (n - 1) W with n - 1 degrees of freedom, p its upper tail
 * (GSL). This chi2 is the tie-corrected Friedman statistic of the same
 * table with the raters as blocks (friedman.h), which is how it is
 * computed here: W rescales it to [0, 1].
 */
#ifndef PF_STATS_KENDALL_H
#define PF_STATS_KENDALL_H

#include "core/status.h"

typedef struct pf_kendall {
    int m, n;   /* raters, objects */
    double w, chi2, p;
    int df;     /* n - 1 */
    double ties; /* T above; 0 without ties */
} pf_kendall;

/* PF_ERR_INVALID when m < 2, n < 2, a value is not finite or every rater
 * ties every object (W is 0 / 0). */
pf_status pf_kendall_w(const double *x, int m, int n, pf_kendall *out);

#endif
