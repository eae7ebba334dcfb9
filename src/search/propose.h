/*
 * propose.h — one proposal slot: ask, extract, validate, ask again.
 *
 * Appendix A.5's pipeline for one slot of a generation:
 *
 *     render the context (prompt.h) -> call the provider (every call stored
 *     as a transcript) -> extract the JSON -> parse -> normalize/validate
 *     (spec.h) -> escape rules (escape generations) -> accepted
 *
 * A rejected answer is followed, in the same conversation, by reask.md with
 * every reason, at most PF_PROPOSE_MAX_REASKS times; each attempt is its own
 * call, hence its own transcript. A slot that never yields a valid spec
 * ends with valid == false and the last reasons: the caller records it as
 * invalid and it never enters the history. A call the server never
 * answered usably, every retry spent (pf_llm_response.unusable: a 200
 * whose body is not JSON, a null content), ends the slot the same way at
 * once, its reason in reasons: the search goes on with the other slots.
 * A provider whose run's LLM budget is spent (llm/provider.h) makes no
 * call: the slot ends with `stopped` set, valid false and the reason in
 * reasons, keeping the calls made before (the search then stops: pf-select).
 *
 * Escape generations (appendix B.5) also reject a spec that equals a parent,
 * or that differs from some parent in fewer than two of the seven sections.
 *
 *     pf_proposal pr;
 *     PF_TRY(pf_propose(llm, "qwen3", prompts, ctx, "gen04/novelty", &pr));
 *     if (pr.valid) ... pr.spec, pr.spec_hash, pr.rationale ...
 *     pf_proposal_release(&pr);
 *
 * PF_OK means the slot is settled (valid or not); an error status means the
 * provider failed (network, 5xx after every retry, replay miss...) and
 * nothing was decided.
 */
#ifndef PF_SEARCH_PROPOSE_H
#define PF_SEARCH_PROPOSE_H

#include <jansson.h>
#include <stdbool.h>

#include "core/sha256.h"
#include "core/status.h"
#include "llm/provider.h"
#include "spec/spec.h"

#define PF_PROPOSE_MAX_REASKS 3
#define PF_PROPOSE_MAX_ATTEMPTS (1 + PF_PROPOSE_MAX_REASKS)
/* The most calls one proposal may record: PINNsAgent's planner re-asks up
 * to 30 times (pinnsagent/plan.h). */
#define PF_PROPOSAL_MAX_CALLS 31
#define PF_PROPOSE_MAX_TOKENS 4096

typedef struct pf_proposal {
    bool valid;
    json_t *spec;                     /* the canonical spec (valid only)           */
    char spec_hash[PF_SPEC_HASH_HEX];
    char *rationale;                  /* the accepted answer's text before its JSON */
    char *reasons;                    /* invalid: why the last answer was rejected  */
    int attempts;                     /* calls made (0: a fixed spec, no call)      */
    char request[PF_PROPOSAL_MAX_CALLS][PF_SHA256_HEX]; /* each call's transcript  */
    long prompt_tokens, completion_tokens;
    double latency_s;
    char provider[32];
    char backbone[PF_LLM_NAME_MAX];   /* the backbone that answered the last call (pf_llm_response);
                                       * "" when none was named or no call was made */
    bool stopped;                     /* the run's LLM budget stopped it            */
} pf_proposal;

void pf_proposal_release(pf_proposal *p);

/* Count call a's answer r into p: attempts a + 1, its tokens and latency
 * added, its provider and backbone (the last call's). */
void pf_proposal_count_call(pf_proposal *p, int a, const pf_llm_response *r);

/* Settle one slot (see above). model is the request's model name. */
pf_status pf_propose(pf_llm_provider *llm, const char *model, const char *prompts_dir, const json_t *ctx,
                     const char *slot, pf_proposal *out);

/* The posterior-summary call (task "posterior" context): M_g as the
 * proposer wrote it, stored as a transcript like every call. *memory is
 * malloc'ed; r's usage, latency and provider are filled (r->text is NULL:
 * its text moved to *memory). */
pf_status pf_summarize(pf_llm_provider *llm, const char *model, const char *prompts_dir, const json_t *ctx,
                       const char *slot, char **memory, pf_llm_response *r);

/* The longest answer pf_extract_json reads, in bytes (1 MiB): an
 * AlgorithmSpec is a few kilobytes, so anything longer is a model that ran
 * away, and it is refused before any parsing, as an invalid answer. */
#define PF_PROPOSE_MAX_ANSWER ((size_t)1 << 20)

/* The JSON object in an LLM answer of at most PF_PROPOSE_MAX_ANSWER bytes:
 * the first ```json (or plain ```) fenced block that parses as an object (a
 * block still open at the end of the answer runs to its end), else the
 * first top-level balanced {...} of the text that does (one still open at
 * the end runs to the end). An object inside another is never taken on
 * its own: when the outermost one does not parse, that is the reason. *json
 * and *before (the text before it, trimmed; may be NULL) are malloc'ed.
 * PF_ERR_INVALID, *json NULL, when none parses; the message is the
 * parser's, "JSON syntax error at line L, column C of the JSON object:
 * ..." (lines counted from the one of its opening '{'), for the longest
 * candidate that looks like JSON (a ```json block, or a '{' followed by a
 * string or '}'), else "the answer holds no JSON object ...", or the size
 * refusal. One pass: time linear in the length of the text, and jansson
 * bounds the nesting it follows (2,048 levels). */
pf_status pf_extract_json(const char *text, char **json, char **before);

#endif
