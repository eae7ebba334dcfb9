/*
 * observe.h — the points of an `observe NAME: u from "F"` constraint.
 *
 * F is a table file (table.h): a .csv whose header names the inputs and
 * the observed output, an .h5 with one dataset per name, or a .dat whose
 * columns are the inputs, then the output, in that order. A relative F is
 * taken from the .pde file's folder.
 *
 *     x, t, u
 *     0.25, 0.5, 0.3679
 *     ...
 */
#ifndef PF_PDEFILE_OBSERVE_H
#define PF_PDEFILE_OBSERVE_H

#include "core/status.h"
#include "pdefile/ast.h"

struct pf_geom;

/* Read constraint c's file (c->kind OBSERVE, f checked) into c->obs_x and
 * c->obs_v in f's arena. PF_ERR_IO when the file cannot be read,
 * PF_ERR_INVALID naming the file (and line) of what is wrong (a missing
 * or repeated column, a field that is not a number or not finite, a short
 * row, no rows), and, with the domain `domain` (the space x time geometry
 * of f; NULL: not checked), naming the row of a point outside it (by more
 * than pf_pdefile_domain_tol) or of a point observed twice with
 * different values (table.h). */
pf_status pf_pdefile_read_observations(pf_pdefile *f, pf_pdefile_constraint *c, const struct pf_geom *domain);

#endif
