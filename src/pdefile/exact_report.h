/*
 * exact_report.h — a .pde file's exact solution checked against its
 * equations and constraints (geom/exact_check.h, with the terms' scale of
 * compile.h), and the outcome as `pf-pde check FILE` prints it: one line
 * saying it passes, or a FILE:LINE:COL message pointing at the equation,
 * the constraint or the `exact` formula at fault.
 *
 *     char msg[PF_EXACT_REPORT_MAX];
 *     pf_status st = pf_pdefile_exact_report(p, msg, sizeof msg);
 *     fprintf(st == PF_OK ? stdout : stderr, "%s\n", msg);
 *     // my.pde:7:1: bcw: the exact solution does not satisfy constraint bc: ...
 *     // my.pde:8:7: exact u = sqrt(((-1) - x)) is not finite (NaN) at x = 0.07, a point of the domain
 */
#ifndef PF_PDEFILE_EXACT_REPORT_H
#define PF_PDEFILE_EXACT_REPORT_H

#include <stddef.h>

#include "core/status.h"
#include "geom/pde.h"

/* Room for any report: a path, a formula and a point. */
#define PF_EXACT_REPORT_MAX 8192

/* Check the exact solution of p, compiled from a .pde file
 * (pf_pdefile_compile, p->ref == PF_REF_ANALYTIC), and put the report in
 * msg[cap], without a newline: on PF_OK the line that says so (the largest
 * residual against the tolerance); else the status of pf_pde_exact_check
 * and "FILE:LINE:COL: " before its message, at the equation or constraint
 * that fails, or at the `exact` line of an output that is not finite
 * somewhere in the domain (with the formula, its value and the point); at
 * the first `exact` line (else the end of the file) for other errors. */
pf_status pf_pdefile_exact_report(const pf_pde *p, char *msg, size_t cap);

#endif
