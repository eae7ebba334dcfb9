/*
 * usage.h — what a run's LLM calls spent, per backbone: calls, prompt and
 * completion tokens, time in the calls, and cost at the backbones file's
 * prices (llm/backbones.h: price_in, price_out per million tokens).
 *
 *     pf_llm_usage u = {0};
 *     PF_TRY(pf_llm_usage_of_transcripts("runs/p/pinnforge/run0/llm", &u));
 *     pf_llm_backbones *t;
 *     PF_TRY(pf_llm_prices(&t));              // NULL when there is no backbones file
 *     pf_llm_usage_price(&u, t);
 *     printf("%ld tokens, cost %g\n", pf_llm_usage_tokens(&u), pf_llm_usage_cost(&u));
 *     pf_llm_backbones_free(t);
 *
 * A call counts under the backbone that answered it (transcript.h's
 * "backbone"): a backbone of the file by its name, "offline" for the
 * offline proposer (free, so priced at 0), and "http" for a server named by
 * PF_LLM_URL alone (or a transcript older than the field), whose price is
 * not known: its cost is 0 and `priced` false, so a table can say so.
 */
#ifndef PF_LLM_USAGE_H
#define PF_LLM_USAGE_H

#include <stdbool.h>

#include "core/status.h"
#include "llm/backbones.h"
#include "llm/transcript.h"

#define PF_LLM_USAGE_MAX 16 /* backbones one run may use */

typedef struct pf_llm_backbone_usage {
    char name[PF_LLM_NAME_MAX];
    long calls, prompt_tokens, completion_tokens;
    double llm_s;  /* time in its calls, s */
    double cost;   /* its tokens at its prices (pf_llm_usage_price; 0 when unpriced) */
    bool priced;   /* its prices are known: "offline", or a backbone of the file */
} pf_llm_backbone_usage;

typedef struct pf_llm_usage {
    int n;
    pf_llm_backbone_usage b[PF_LLM_USAGE_MAX]; /* in the order first seen */
} pf_llm_usage;

/* The name a call counts under: backbone when set, else "offline" for the
 * offline provider, else "http". */
const char *pf_llm_usage_name(const char *backbone, const char *provider);

/* Add calls to the backbone `name` (a new entry when unseen; PF_ERR_INVALID
 * past PF_LLM_USAGE_MAX backbones). */
pf_status pf_llm_usage_add(pf_llm_usage *u, const char *name, long calls, long prompt_tokens,
                           long completion_tokens, double llm_s);

/* The generation a request's slot names ("gen03/refine": 3), -1 when it
 * names none. */
int pf_llm_slot_generation(const char *slot);

/* Every transcript in dir (*.msgpack) added to u: the calls stored there,
 * whoever made them (every process of the run); with before >= 0 only
 * those whose request's slot is of a generation before it (a slot that
 * names no generation always counts). A folder that does not exist holds
 * none; a transcript that does not read is PF_ERR_IO / PF_ERR_INVALID
 * naming it. */
pf_status pf_llm_usage_of_transcripts(const char *dir, int before, pf_llm_usage *u);

/* The backbones file for its prices (backbones.h: $LLMS_FILE, else
 * data/llms.json): *t NULL when LLMS_FILE is unset and no data/llms.json
 * exists; a file that is named or found but does not read is an error. */
pf_status pf_llm_prices(pf_llm_backbones **t);

/* Each backbone's cost and priced flag from t (NULL: no file: only
 * "offline" is priced). */
void pf_llm_usage_price(pf_llm_usage *u, const pf_llm_backbones *t);

/* Sums over the backbones: calls, prompt + completion tokens, cost; and
 * whether every backbone with calls is priced. */
long pf_llm_usage_calls(const pf_llm_usage *u);
long pf_llm_usage_tokens(const pf_llm_usage *u);
double pf_llm_usage_cost(const pf_llm_usage *u);
bool pf_llm_usage_priced(const pf_llm_usage *u);

#endif
