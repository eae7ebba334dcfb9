/*
 * slot.h — one proposal slot of a run, settled the way the run's method
 * says: the last column of llm/methods.def names the hook, and
 * stages/pf-propose.c calls it. The hooks of this layer:
 *
 *   pf_slot_search  a search method: the proposer asked for role k
 *                   (generation 0) or strategy k (later) with the run's
 *                   knowledge, the previous Top-3 and memory as the method
 *                   may see them (search/context.h), up to three re-asks;
 *                   after a stop decision the proposal is written skipped
 *   pf_slot_fixed   a baseline with a fixed spec (search/baseline.h): its
 *                   spec, no call
 *
 * and PINNsAgent's, a layer above: pf_slot_plan (pinnsagent/slot.h).
 *
 *     char done[512];
 *     PF_TRY(pf_slot_search(&run, 3, 1, "gen03/physics_guided", "RUN/gen03/cand1.proposal.msgpack", done,
 *                           sizeof done));
 *     // done: "valid after 1 call (offline, 2048+310 tokens, 0.01 s)"
 *
 * Each writes the proposal atomically to `out` (search/artifact.h) and
 * every LLM call under RUN/llm/; it fails with what it read, asked or
 * wrote.
 */
#ifndef PF_SEARCH_SLOT_H
#define PF_SEARCH_SLOT_H

#include <stddef.h>

#include "core/status.h"
#include "search/run.h"

/* A hook: settle slot k of generation g ("genGG/<slot name>") into out;
 * a line for the user into done[cap] (may be NULL). */
typedef pf_status (*pf_slot_fn)(const pf_run *r, int g, int k, const char *slot, const char *out, char *done,
                                size_t cap);

pf_status pf_slot_search(const pf_run *r, int g, int k, const char *slot, const char *out, char *done, size_t cap);
pf_status pf_slot_fixed(const pf_run *r, int g, int k, const char *slot, const char *out, char *done, size_t cap);

#endif
