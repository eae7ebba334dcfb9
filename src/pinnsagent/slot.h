/*
 * slot.h — PINNsAgent's hook for llm/methods.def (the signature of
 * search/slot.h's pf_slot_fn): iteration g of a pinnsagent run is its
 * planner once (pinnsagent/plan.h), asked from its run database
 * (pinnsagent/memory.h) and the configurations and MSEs of iterations
 * 0..g-1, read back from the run's proposals and evidence.
 *
 *     char done[512];
 *     PF_TRY(pf_slot_plan(&run, 2, 0, "gen02/plan", "RUN/gen02/cand0.proposal.msgpack", done, sizeof done));
 *     // done: "valid after 1 call (offline, 2048+310 tokens, 0.01 s)"
 *
 * Writes the proposal, with the configuration as its "plan", atomically to
 * `out` (search/artifact.h) and every call under RUN/llm/.
 */
#ifndef PF_PINNSAGENT_SLOT_H
#define PF_PINNSAGENT_SLOT_H

#include <stddef.h>

#include "core/status.h"
#include "search/run.h"

pf_status pf_slot_plan(const pf_run *r, int g, int k, const char *slot, const char *out, char *done, size_t cap);

#endif
