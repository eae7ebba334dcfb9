/*
 * observe.h — the points of an `observe NAME: u from "F.csv"` constraint.
 *
 * F is a CSV file: a header naming the columns, then one observation a row,
 * numbers separated by commas. The header must name every input and the
 * observed output; other columns are left alone, blank lines and lines
 * starting with # are skipped. A relative F is taken from the .pde file's
 * folder.
 *
 *     x, t, u
 *     0.25, 0.5, 0.3679
 *     ...
 */
#ifndef PF_PDEFILE_OBSERVE_H
#define PF_PDEFILE_OBSERVE_H

#include "core/status.h"
#include "pdefile/ast.h"

/* Read constraint c's file (c->kind OBSERVE, f checked) into c->obs_x and
 * c->obs_v in f's arena. PF_ERR_IO when the file cannot be read,
 * PF_ERR_INVALID naming the file and line of what is wrong (a missing
 * column, a field that is not a number, a short row, no rows). */
pf_status pf_pdefile_read_observations(pf_pdefile *f, pf_pdefile_constraint *c);

#endif
