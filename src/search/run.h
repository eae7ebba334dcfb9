/*
 * run.h — one search run's folder, as the stages see it.
 *
 *   runs/<pde>/<method>/run<R>/
 *     context.json                 the run's settings (pf-context, from Make's variables;
 *                                  rewritten only when they change, so Make rebuilds exactly then)
 *     knowledge.msgpack            K_P                                     (pf-knowledge)
 *     llm/<sha256>.msgpack         every LLM call                          (pf-propose, pf-posterior)
 *     genGG/candK.proposal.msgpack one slot's proposal                     (pf-propose)
 *     genGG/candK/result.h5, evidence.msgpack                              (pf-train)
 *     genGG/plan.json              the order its trainings start in        (pf-plan)
 *     genGG/select.msgpack         history, Global Top-3, B.5 control      (pf-select)
 *     genGG/memory.msgpack         M_g                                     (pf-posterior)
 *     hifi/topK/result.h5, evidence.msgpack                                (pf-train --fidelity high)
 *     final.msgpack                the answer and the budget               (pf-final)
 *
 * context.json: {"pde", "method", "run", "budget", "llm", "eval", for a
 * run with an LLM backbone "backbone", and for a .pde file "pde_sha256"
 * and "data_sha256" when it names data files}, e.g.
 *   {"pde": "poisson_5d", "method": "pinnforge", "run": 0, "budget": "quick", "llm": "offline",
 *    "eval": "paper"}
 * "llm_max_tokens" and "llm_max_cost" (LLM_MAX_TOKENS, LLM_MAX_COST) only
 * when set: the run's LLM budget (llm/provider.h); a change to it alone
 * redoes only the proposals it stopped (pf-context; docs/search.md, "LLM
 * budget").
 * "eval" (EVAL=paper|heldout; "paper" when absent) says which evaluation
 * points steer the run: all of them (the paper's protocol), or the
 * selection half, the report half held out (geom/pde.h pf_reference_split).
 * The run number seeds the offline proposer; every candidate's training
 * seed comes from it (pf_run_training below).
 *
 * Backbones (llm/backbones.h): a run of an LLM-driven method (PF_MF_LLM)
 * made with the backbone b lives in runs/<pde>/<method>@b/run<R>/ and its
 * context.json says "backbone": "b"; its proposer is that backbone (llm
 * http, or replay of its transcripts, which are in its own llm/). A run
 * without "backbone" (the folder <method>, no '@') names none: its proposer
 * is what "llm" says, the offline proposer by default (the backbone
 * "offline" is this case, so it has no '@' folder), or PF_LLM_URL's server.
 */
#ifndef PF_SEARCH_RUN_H
#define PF_SEARCH_RUN_H

#include <stdint.h>

#include "core/sha256.h"
#include "core/status.h"
#include "geom/pde.h"
#include "llm/backbones.h"
#include "llm/provider.h"
#include "search/context.h"
#include "spec/spec.h"

#define PF_RUN_GEN0_SLOTS 8   /* generation 0: one per role      */
#define PF_RUN_GEN_SLOTS 5    /* generation >= 1: one per strategy */
#define PF_RUN_TOP 3

/* a backbone's name (at most 64 characters) or a mixture "mix:a,b,c" (at
 * most PF_LLM_MIX_TEXT_MAX; llm/backbones.h) */
#define PF_RUN_BACKBONE_CAP (PF_LLM_MIX_TEXT_MAX + 1)

typedef enum pf_eval_mode {
    PF_EVAL_PAPER = 0,   /* one set of points for decisions and the report */
    PF_EVAL_HELDOUT,     /* decisions on the selection half, the report on the other */
} pf_eval_mode;

/* "paper", "heldout"; and back (PF_ERR_INVALID naming the allowed ones). */
const char *pf_eval_mode_name(pf_eval_mode m);
pf_status pf_eval_mode_from_name(const char *name, pf_eval_mode *out);

typedef struct pf_run {
    char dir[2048];
    const pf_pde *pde;
    pf_method method;
    int run;
    const pf_budget *budget;
    pf_llm_kind llm;          /* PF_LLM_AUTO when the context says "auto" */
    pf_eval_mode eval;
    long time_budget_s;       /* the run's wall-clock budget in seconds, 0 none */
    char backbone[PF_RUN_BACKBONE_CAP]; /* the run's backbone, "" none (above) */
    long llm_max_tokens;      /* the run's LLM budget (LLM_MAX_TOKENS), 0 none */
    double llm_max_cost;      /* LLM_MAX_COST in the backbones file's currency, 0 none */
    char llm_dir[2100];       /* dir/llm: the transcripts */
} pf_run;

/* context.json's fields as written, not yet checked against the PDE,
 * method, budget and proposer names (the statistics read runs of any
 * method, baselines from other tools included, this way). Its writer and
 * reader: search/artifact.h. */
typedef struct pf_run_context {
    char pde[4096];           /* a built-in's name or a .pde file's path (pipeline.mk's PDE) */
    char method[64], budget[32], llm[16];
    char eval[16];            /* "paper" when the file has none */
    int run;
    long time_budget_s;       /* TIME_BUDGET in seconds (search/time_budget.h); 0 none */
    char backbone[PF_RUN_BACKBONE_CAP]; /* BACKBONE: the LLM backbone, "" none (the offline proposer, PF_LLM_URL) */
    long llm_max_tokens;      /* LLM_MAX_TOKENS; 0 none */
    double llm_max_cost;      /* LLM_MAX_COST; 0 none */
    char pde_sha256[PF_SHA256_HEX];  /* a .pde file's SHA-256 ("" for a built-in PDE) */
    char data_sha256[PF_SHA256_HEX]; /* its data files' (pdefile/fingerprint.h; "" when none) */
} pf_run_context;

/* pf_run_context_read, then the names looked up; the same errors, and
 * PF_ERR_INVALID naming an unknown PDE, method, budget or proposer. */
pf_status pf_run_open(const char *dir, pf_run *r);

/* The run's proposer: options from the environment (llm/provider.h) with
 * the run's backbone (context.json's; PF_LLM_BACKBONE is not read), the
 * kind from the run's "llm" setting, transcripts in r->llm_dir, the run
 * number as the offline seed. *o is filled too (o->model names the
 * requests); both stay valid while r does. */
pf_status pf_run_provider(const pf_run *r, pf_llm_options *o, pf_llm_provider **out);

/* The options of pf_run_provider without the provider; backbone (may be
 * NULL) replaces PF_LLM_BACKBONE's choice of backbone, as
 * pf_llm_options_use_backbone (o->mix stays as the environment set it).
 * Under PF_LLM_BACKBONE=mix:a,b,c pf_run_provider takes the first backbone
 * (pf-posterior's summaries); a search's proposals draw theirs
 * (search/backbone_mix.h). */
pf_status pf_run_options(const pf_run *r, const char *backbone, pf_llm_options *o);

/* What one training of a run is (pf-train --run DIR --generation G --slot K):
 * its proposal, its folder, the fidelity (a baseline method's candidates:
 * baseline; PF_RUN_HIFI: high; else low), the seed R*100000 + G*100 + K
 * (high fidelity R*100000 + 9900 + K) and whether the evidence holds the
 * physics check (high fidelity and baselines: the candidates reported).
 * PF_ERR_INVALID when slot k is not one of generation g's. */
typedef struct pf_run_training {
    char proposal[4200], out[4200];
    pf_fidelity fidelity;
    uint64_t seed;
    bool physics_check;
} pf_run_training;
pf_status pf_run_training_of(const pf_run *r, int g, int k, pf_run_training *t);

/* Slots in generation g of a run of method m and the name of slot k (NULL
 * outside):
 *   a search     8 at generation 0 (the roles), 5 later (the strategies);
 *   pinnsagent   1 in each of generations 0..4 (its planner's iterations),
 *                named "plan";
 *   vanilla, ropinn, pinnsformer  PF_RUN_BASELINE_CANDIDATES at generation 0 (its
 *                independently initialized candidates "init0".."init4").
 * Every baseline trains PF_RUN_BASELINE_CANDIDATES candidates in all. */
#define PF_RUN_BASELINE_CANDIDATES 5
#define PF_RUN_MAX_SLOTS PF_RUN_GEN0_SLOTS /* the most slots of any generation */
int pf_run_slots(pf_method m, int g);
const char *pf_run_slot_name(pf_method m, int g, int k);

/* The files and folders of a run (the layout at the top). Candidates of
 * the high-fidelity stage use generation PF_RUN_HIFI: hifi/topK.proposal.msgpack,
 * hifi/topK/evidence.msgpack, hifi/topK/result.h5. */
typedef enum pf_run_file {
    PF_RUN_CONTEXT,     /* context.json                                      */
    PF_RUN_KNOWLEDGE,   /* knowledge.msgpack                                 */
    PF_RUN_GENERATION,  /* genGG/, or hifi/                                  */
    PF_RUN_PROPOSAL,    /* genGG/candK.proposal.msgpack, hifi/topK.proposal.msgpack */
    PF_RUN_CANDIDATE,   /* genGG/candK/, hifi/topK/                          */
    PF_RUN_EVIDENCE,    /* <candidate>/evidence.msgpack                      */
    PF_RUN_RESULT,      /* <candidate>/result.h5                             */
    PF_RUN_SELECT,      /* genGG/select.msgpack                              */
    PF_RUN_MEMORY,      /* genGG/memory.msgpack                              */
    PF_RUN_FINAL,       /* final.msgpack                                     */
    PF_RUN_PLAN,        /* genGG/plan.json, hifi/plan.json (search/train_order.h) */
} pf_run_file;

#define PF_RUN_HIFI (-1)            /* the "generation" of the final Top-3's retraining */
#define PF_RUN_MAX_GENERATION 99    /* genGG: two digits                     */

/* A stage's --generation: "0".."99", or "hifi" for PF_RUN_HIFI
 * (PF_ERR_INVALID saying what it wants otherwise). */
pf_status pf_run_generation_parse(const char *text, int *g);

/* The trainings of generation g (PF_RUN_HIFI: the Top-3) of run r. */
int pf_run_group_slots(const pf_run *r, int g);

/* The path of `what` inside the run folder `dir` (snprintf into buf;
 * PF_ERR_INVALID if too long or g / k do not fit what): g is the
 * generation (0..PF_RUN_MAX_GENERATION or PF_RUN_HIFI) and k the
 * candidate, where what needs them. Takes the folder rather than a pf_run
 * so stages that need no settings (pf-select) share the layout. */
pf_status pf_run_path(const char *dir, pf_run_file what, int g, int k, char *buf, size_t cap);

#endif
