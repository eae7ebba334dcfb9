/*
 * candidate.h — one candidate a_{g,k} of a search, as every part of the
 * search sees it: the controller (select.h) ranks it, the context builder
 * (context.h) shows it to a proposer, the run files (artifact.h) fill it
 * from a proposal and its evidence.
 *
 *     pf_candidate c = {.generation = 3, .index = 1, .slot = "gen03/physics_guided",
 *                       .valid = true, .status = PF_CANDIDATE_OK, .has_y = true, .y = 2.5e-4};
 *     snprintf(c.spec_hash, sizeof c.spec_hash, "%s", hash);
 *     c.spec = json_incref(spec);               // the holder's own references
 *     ...
 *     pf_candidate_release(&c);                 // drops spec and evidence
 *
 * spec and evidence are jansson references held by whoever filled the
 * struct; a function that takes candidates as input reads them and takes
 * its own references where it keeps them (pf_select_step does).
 */
#ifndef PF_SEARCH_CANDIDATE_H
#define PF_SEARCH_CANDIDATE_H

#include <jansson.h>
#include <stdbool.h>

#include "spec/spec.h"

#define PF_CANDIDATE_SLOT_MAX 64

/* The training outcome as the controller counts it. A proposal that did
 * not validate (or was skipped after a stop) is INVALID whatever its
 * evidence says. */
typedef enum pf_candidate_status {
    PF_CANDIDATE_OK = 0,
    PF_CANDIDATE_NAN,
    PF_CANDIDATE_DIVERGED,
    PF_CANDIDATE_TIMEOUT,
    PF_CANDIDATE_INVALID,
} pf_candidate_status;

typedef struct pf_candidate {
    int generation, index;
    char slot[PF_CANDIDATE_SLOT_MAX];  /* "gen03/refine"; "" when the proposal named none */
    char spec_hash[PF_SPEC_HASH_HEX];  /* "" for an invalid proposal                      */
    bool valid;                        /* the proposal validated                          */
    pf_candidate_status status;
    bool has_y;
    double y;                          /* the low-fidelity evaluation MSE                 */
    json_t *spec;                      /* canonical spec object, or NULL                  */
    json_t *evidence;                  /* evidence.msgpack's "evidence" object, or NULL   */
} pf_candidate;

/* "ok", "nan", "diverged", "timeout", "invalid"; and back (-1 if unknown). */
const char *pf_candidate_status_name(pf_candidate_status s);
int pf_candidate_status_lookup(const char *name);

/* A RANKED candidate may enter the Top-3 (select.h): valid && status ok
 * && has_y && isfinite(y). */
bool pf_candidate_ranked(const pf_candidate *c);

/* Drop spec and evidence (set to NULL); the rest stays. */
void pf_candidate_release(pf_candidate *c);

#endif
