/*
 * artifact.h — the files of a run, each with ONE owner: a typed struct per
 * artifact, a write/read pair, and the format name and version checked on
 * every read. Stages and the statistics read and write run files only
 * through this header; run.h says where each file lives.
 *
 *   artifact                       struct             format                 writer       readers
 *   context.json                   pf_run_context     (JSON, run.h)          pf-context   every stage, statistics
 *   genGG/candK.proposal.msgpack   pf_proposal_file   pinnforge.proposal     pf-propose   pf-train, pf-select, pf-final
 *   hifi/topK.proposal.msgpack     pf_proposal_file   pinnforge.proposal     pf-final     pf-train
 *   .../candK/evidence.msgpack     pf_evidence_file   pinnforge.evidence     pf-train     pf-select, pf-posterior, pf-final, plots
 *   .../candK/result.h5            (layout below)     pinnforge.result       pf-train     plots
 *   genGG/select.msgpack           pf_select          pinnforge.select       pf-select    pf-propose, pf-select, pf-posterior, pf-final
 *   genGG/memory.msgpack           pf_memory_file     pinnforge.memory       pf-posterior pf-propose, pf-final
 *   knowledge.msgpack              (json, knowledge.h) pinnforge.knowledge   pf-knowledge pf-propose
 *   final.msgpack                  pf_final_file      pinnforge.final        pf-final     statistics, plots
 *
 * Every write is atomic (a temp file renamed over the target: io/msgpack_json.h,
 * io/h5.h), so a reader or Make never sees half a file. Every read refuses,
 * with PF_ERR_IO naming the file, what does not exist or does not decode,
 * and with PF_ERR_INVALID naming the file, a wrong "format" or "version" or
 * a field of the wrong type. The writers put keys in one fixed order, so the
 * same content gives the same bytes.
 *
 *     pf_evidence_file ev;
 *     PF_TRY(pf_evidence_file_read("run/gen02/cand1/evidence.msgpack", &ev));
 *     if (ev.has_y) printf("%s %g\n", ev.status, ev.y);
 *     pf_evidence_file_release(&ev);
 *
 * Strings that a server or a file can make long are heap-allocated (NULL
 * when absent); names are fixed buffers, and a longer one is refused.
 */
#ifndef PF_SEARCH_ARTIFACT_H
#define PF_SEARCH_ARTIFACT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/status.h"
#include "geom/pde.h"
#include "llm/usage.h"
#include "search/candidate.h"
#include "search/propose.h"
#include "search/run.h"
#include "search/select.h"
#include "spec/spec.h"
#include "train/trainer.h"

#define PF_ARTIFACT_VERSION 1 /* the version every artifact below is written with */
#define PF_ARTIFACT_NAME 64   /* a PDE, method, slot or role name, with its NUL */

/* ------------------------------------------------------------ context
 *
 * context.json, the run's settings (run.h; one line of JSON, keys in the
 * order pde, method, run, budget, llm, eval, time_budget_s?, llm_max_tokens?,
 * llm_max_cost?, pde_sha256?, data_sha256?; time_budget_s only for a run
 * with TIME_BUDGET, the llm_max_* only for a run with that cap).
 */

/* The settings of run `run` of `method` on `pde` (a built-in's name or a
 * .pde file's path, whose SHA-256 and data files' digest are taken:
 * pdefile/fingerprint.h), checked: PF_ERR_INVALID naming an unknown PDE,
 * method, budget, proposer (offline, http, replay, auto) or evaluation
 * (paper, heldout); PF_ERR_IO for a .pde file that cannot be read. */
pf_status pf_run_context_init(pf_run_context *c, const char *pde, const char *method, int run, const char *budget,
                              const char *llm, const char *eval);

/* The file's text: one line of JSON and a newline (malloc'ed; NULL when
 * out of memory). */
char *pf_run_context_text(const pf_run_context *c);

/* Write dir/context.json (dir made first) unless it holds these settings
 * already, byte for byte: then the file and its time stay, so Make redoes
 * nothing. When it held others, *was gets them (malloc'ed, one line;
 * the caller frees and says so), else NULL; but when only the LLM budget
 * changed, the file is rewritten with its old time (*was NULL,
 * *budget_changed true), so that Make redoes nothing through it: the caller
 * removes the proposals the budget stopped (pf_run_forget_stopped). */
pf_status pf_run_context_write(const char *dir, const pf_run_context *c, char **was, bool *budget_changed);

/* Read dir/context.json; PF_ERR_IO / PF_ERR_INVALID naming the file and
 * key. A folder laid out as pipeline.mk lays runs out, <pde>/<method>/run<R>,
 * must hold that run's settings (pf_run_context_check_folder). */
pf_status pf_run_context_read(const char *dir, pf_run_context *out);

/* PF_ERR_INVALID when dir is laid out as <pde>/<method>[@<backbone>]/run<R>
 * (method one of ours) and its "run", "method", "backbone" ("" none) or
 * (pde_name non-NULL: a built-in's name or the name a .pde file declares)
 * "pde" differ from the folder's. */
pf_status pf_run_context_check_folder(const char *dir, const char *pde_name, const char *method, const char *backbone,
                                      int run);

/* The run's backbone (make's BACKBONE; run.h): NULL, "" and "offline" name
 * none (the offline proposer is the run without one); another name must be
 * a backbone's name (llm/backbones.h; whether the file has it is the
 * caller's to check), of a method that asks an LLM, with llm http or
 * replay: else PF_ERR_INVALID saying which. */
pf_status pf_run_context_set_backbone(pf_run_context *c, const char *backbone);

/* Whether runs a and b were made with settings that change their results:
 * the profile (budget), the evaluation, the proposer (llm), the backbone, the time and
 * LLM budgets, a .pde file's SHA-256 or its data files' digest. The PDE's spelling (a path given two
 * ways), the method and the run number are not compared. With what
 * non-NULL, what differs, a's value first: "profile quick vs paper, eval
 * heldout vs paper" ("" when nothing does). */
bool pf_run_context_settings_differ(const pf_run_context *a, const pf_run_context *b, char *what, size_t cap);

/* ------------------------------------------------------------ proposal
 *
 * A search proposal (pf-propose), keys in this order:
 *   {format, version, pde, method, generation, index, slot, role | strategy,
 *    escape, valid, skipped, stopped?,
 *    skipped:  reasons                                   (and nothing else, but when stopped)
 *    valid:    spec, spec_hash, rationale, plan? (pinnsagent's configuration)
 *    invalid:  reasons
 *    then      attempts, requests [transcript hashes], usage {prompt_tokens,
 *              completion_tokens}, latency_s, provider, backbone?}
 * "backbone": the backbone that answered (its name in the backbones file,
 * "offline" for the offline proposer; absent when none was named, with
 * PF_LLM_URL, and for a fixed-spec baseline, which asks no one).
 * "role" at generation 0, "strategy" later. "stopped": "llm budget" marks a
 * proposal the run's LLM budget stopped (search/propose.h): skipped, with
 * its reasons and the calls made before it.
 *
 * A high-fidelity proposal (pf-final; generation PF_RUN_HIFI) is shorter:
 *   {format, version, pde, index, slot: "hifi", valid, skipped,
 *    valid: spec, spec_hash, low_fidelity_y | skipped: reasons}
 */
#define PF_PROPOSAL_STOPPED_LLM "llm budget" /* a proposal's and final.msgpack's "stopped" */

typedef struct pf_proposal_file {
    char pde[PF_ARTIFACT_NAME];
    char method[PF_ARTIFACT_NAME];   /* "" in a high-fidelity proposal             */
    int generation;                  /* PF_RUN_HIFI for hifi/topK                  */
    int index;
    char slot[PF_ARTIFACT_NAME];     /* "gen03/refine", "hifi"                     */
    char role[PF_ARTIFACT_NAME];     /* the role (generation 0) or strategy        */
    bool escape;                     /* an escape generation (appendix B.5)        */
    bool skipped;                    /* written after a stop, or no design to train */
    pf_proposal call;                /* valid, spec, spec_hash, rationale, reasons,
                                      * and the calls: attempts .. provider         */
    double low_fidelity_y;           /* high fidelity: the design's LF MSE         */
    json_t *plan;                    /* pinnsagent: the planned configuration of
                                      * its ten hyperparameters (NULL otherwise)   */
    json_t *mix;                     /* under BACKBONE=mix:...: the draw and its
                                      * reason (search/backbone_mix.h), else NULL   */
} pf_proposal_file;

/* The proposal written by pf-propose for slot k of generation g of run r:
 * call is the settled slot (moved in: the file takes its references and
 * strings, *call is zeroed), or NULL for a proposal skipped after a stop. */
void pf_proposal_file_init(pf_proposal_file *f, const pf_run *r, int g, int k, bool escape, pf_proposal *call);

/* A high-fidelity proposal for design k of a selection's Top-3: the
 * design when it exists, else skipped ("the Global Top-3 holds fewer
 * designs"). The spec is a new reference. */
void pf_proposal_file_init_hifi(pf_proposal_file *f, const pf_run *r, const pf_select *sel, int k);

pf_status pf_proposal_file_write(const char *path, const pf_proposal_file *f);

/* Reads either form. A valid proposal must hold its spec (an object) and a
 * spec_hash of 64 hex digits. */
pf_status pf_proposal_file_read(const char *path, pf_proposal_file *f);
void pf_proposal_file_release(pf_proposal_file *f);

/* ------------------------------------------------------------ evidence
 *
 * evidence.msgpack (pf-train), keys in this order:
 *   {format, version, y | y_missing, y_report?, status, pde, spec_hash,
 *    fidelity, budget, seed, evidence}
 * y_report only under EVAL=heldout: y is then the MSE on the selection half
 * of the evaluation set, y_report on the report half (geom/pde.h
 * pf_reference_split). With --physics-check the evidence holds
 * "physics_check": {points, residual_rms, residual_max, constraint_mse:
 * {term: MSE}} on fresh points (train/trainer.h).
 * status is a training status (train/trainer.h: ok, nan, diverged,
 * timeout) or, for a proposal that was not trained, "invalid" / "skipped";
 * then spec_hash and evidence are absent and y_missing says why. y is
 * absent also when the MSE is not finite. "evidence" is the diagnostics
 * object of pf_evidence_json() below.
 */
typedef struct pf_evidence_file {
    bool has_y;
    double y;                        /* the MSE on the evaluation points           */
    char *y_missing;                 /* why there is no y (NULL when has_y)        */
    bool has_y_report;
    double y_report;                 /* heldout: the MSE on the report half        */
    char status[16];
    char pde[PF_ARTIFACT_NAME];
    char spec_hash[PF_SPEC_HASH_HEX];/* "" when not trained                        */
    char fidelity[16];               /* "low", "high", "baseline"                  */
    char budget[32];                 /* "paper", "quick"                           */
    uint64_t seed;
    json_t *evidence;                /* diagnostics; NULL when not trained         */
    /* read from evidence for the budget (0 when not trained): */
    long steps;
    double wall_s;
} pf_evidence_file;

/* The diagnostics object of a training: status, detail, steps, budget,
 * losses and their reduction, stagnation, per-term losses and gradient
 * norms, gradient imbalance, residual statistics and hotspots (named by
 * p's inputs), constraint errors, stages, speed, time split, parameters,
 * point counts and the device. The free texts (detail, device name) go in
 * through pf_text_sanitize() (core/parse.h). New reference (NULL: out of
 * memory, or a value jansson refused). */
json_t *pf_evidence_json(const pf_pde *p, const pf_train_result *r);

/* Fill f from a finished training (f->evidence a new reference). Messages
 * (y_missing here and in _init_untrained) are stored sanitised: valid
 * UTF-8, no control characters, at most PF_TEXT_LINE_MAX bytes (a
 * proposal's reasons, untrained: PF_TEXT_BLOCK_MAX), so a message that
 * quotes a broken input file still reaches the artifact. */
pf_status pf_evidence_file_init(pf_evidence_file *f, const pf_pde *p, const pf_train_result *r,
                                const char *spec_hash, const char *fidelity, const char *budget, uint64_t seed);

/* Fill f for a proposal that was not trained: status "invalid" or
 * "skipped", why in y_missing. */
pf_status pf_evidence_file_init_untrained(pf_evidence_file *f, const char *pde, const char *status, const char *why,
                                          const char *fidelity, const char *budget, uint64_t seed);

pf_status pf_evidence_file_write(const char *path, const pf_evidence_file *f);
pf_status pf_evidence_file_read(const char *path, pf_evidence_file *f);
void pf_evidence_file_release(pf_evidence_file *f);

/* ------------------------------------------------------------ result.h5
 *
 * result.h5 (pf-train), HDF5:
 *   /  attributes: format "pinnforge.result", version 1, status, and when
 *      trained: pde, spec (canonical JSON), spec_hash, fidelity, seed,
 *      detail, steps, precision; when not trained: reason
 *   /loss/step, /loss/total                       [records]
 *   /loss/terms/<term>, /loss/weights/<term>      [records] unweighted loss, weight
 *   /loss/n_interior                              [records] interior points
 *   /eval/step, /eval/mse                         [evaluations]
 *   /predictions/x, u, u_ref                      [n_eval x d_in | d_out] (with a reference)
 *   /points/interior                              [n_interior x d_in]
 *   /params/NN.<name>                             every parameter, attribute kind
 * Each numeric dataset has a "meaning" attribute where it needs one.
 */
#define PF_RESULT_PREDICTIONS_X "/predictions/x"
#define PF_RESULT_PREDICTIONS_U "/predictions/u"
#define PF_RESULT_PREDICTIONS_REF "/predictions/u_ref"
#define PF_RESULT_LOSS_STEP "/loss/step"
#define PF_RESULT_LOSS_TOTAL "/loss/total"
#define PF_RESULT_LOSS_TERMS "/loss/terms"
#define PF_RESULT_EVAL_STEP "/eval/step"
#define PF_RESULT_EVAL_MSE "/eval/mse"

/* What result.h5's root says about the training. */
typedef struct pf_result_meta {
    char pde[PF_ARTIFACT_NAME];
    char *spec;                      /* canonical JSON ("" when not trained)        */
    char spec_hash[PF_SPEC_HASH_HEX];
    char fidelity[16];
    uint64_t seed;
    char status[16];
} pf_result_meta;

/* Write a finished training's result.h5 (spec_text: the canonical spec). */
pf_status pf_result_write(const char *path, const pf_pde *p, const pf_train_result *r, const char *spec_text,
                          const char *spec_hash, const char *fidelity, uint64_t seed);

/* The root attributes only, for a proposal that was not trained. */
pf_status pf_result_write_untrained(const char *path, const char *status, const char *why);

/* The root attributes, format and version checked. On failure *m holds
 * nothing (spec NULL): there is nothing to release. */
pf_status pf_result_read_meta(const char *path, pf_result_meta *m);
void pf_result_meta_release(pf_result_meta *m);

/* The training curves: /loss/step and /loss/total [n], each term of
 * /loss/terms [n] (names in the file's order), /eval/step and /eval/mse
 * [neval]; every curve of a family as long as its steps (else PF_ERR_IO
 * naming the dataset). n 0: nothing recorded. Release even on failure. */
typedef struct pf_result_curves {
    double *step, *total, **term, *eval_step, *eval_mse;
    char **names;
    size_t n, nterm, neval;
} pf_result_curves;
pf_status pf_result_read_curves(const char *path, pf_result_curves *c);
void pf_result_curves_release(pf_result_curves *c);

/* The predictions at the evaluation points: x [n x d_in], u and u_ref
 * [n x d_out] of p's shape (else PF_ERR_IO naming the dataset). *has false
 * (and nothing read) when the file has none: no reference. */
typedef struct pf_result_predictions {
    double *x, *u, *ref;
    size_t n;
} pf_result_predictions;
pf_status pf_result_read_predictions(const char *path, const pf_pde *p, pf_result_predictions *r, bool *has);
void pf_result_predictions_release(pf_result_predictions *r);

/* What pf-train trains, from `path`: a spec as JSON, which needs `pde`,
 * or the spec of a proposal (*.msgpack), which names its PDE (pde, when
 * given, a built-in's name, a .pde file's path or the name it declares,
 * must agree: PF_ERR_INVALID otherwise). in->pde is the PDE to look up:
 * pde when given, else the proposal's. A proposal without a valid spec is
 * not trained: in->spec NULL, in->untrained "skipped" or "invalid", in->why
 * the reason. Release with pf_training_input_release. */
typedef struct pf_training_input {
    json_t *spec;
    char pde[4096];
    const char *untrained;
    char *why;
} pf_training_input;
pf_status pf_training_input_read(const char *path, const char *pde, pf_training_input *in);
void pf_training_input_release(pf_training_input *in);

/* A training's two outputs in the folder dir (made first), each written
 * atomically: result.h5 (the spec, a normalised spec, as canonical JSON)
 * and evidence.msgpack. pf-train's last step. */
pf_status pf_training_write(const char *dir, const pf_pde *p, const pf_train_result *r, const json_t *spec,
                            const char *spec_hash, const char *fidelity, const char *budget, uint64_t seed);

/* The same for a proposal that was not trained (status "invalid" or
 * "skipped", why it was not): result.h5 with the root attributes only. */
pf_status pf_training_write_untrained(const char *dir, const char *pde, const char *status, const char *why,
                                      const char *fidelity, const char *budget, uint64_t seed);

/* ------------------------------------------------------------ select
 *
 * genGG/select.msgpack (pf-select; artifact_select.c) holds the controller
 * after generation g (search/select.h), its object's keys in this order:
 *   {"format": "pinnforge.select", "version": 1, "pde", "method",
 *    "generation": g, "max_generations",
 *    "history": [{generation, index, slot, spec_hash (null if invalid),
 *                 valid, status, y (null if none), ranked}],
 *    "top3": [{spec_hash, y, generation, index, slot, spec, evidence}],
 *    "b", "B", "m", "A": [one per generation 0..g; null when +inf / NaN],
 *    "new_elite": [bool per generation],
 *    "state": {window_start, escape_generation, stall_generation,
 *              B_stall, A_stall (null when undefined)},
 *    "stagnation": {global_best, elite_archive, population},
 *    "escape_result": null | {new_best, new_elite, archive_improved, success},
 *    "next": "normal" | "escape" | "stop", "reason": "...", "cause": "...",
 *    and only in a skipped copy: "skipped": true, "skipped_generation": G}
 * spec / evidence of a Top-3 entry are null when the candidate lacks them. */
pf_status pf_select_to_json(const pf_select *s, json_t **out);

/* Parse select.msgpack's object back. The history, state and decision are
 * read; b, B, m, A, new_elite and the Top-3 are recomputed from the
 * history and must agree with the stored ones (PF_ERR_INVALID naming the
 * first disagreement otherwise); Top-3 spec / evidence are attached to
 * their history entries. */
pf_status pf_select_from_json(const json_t *doc, pf_select **out);

/* pf_select_to_json() + pf_msgpack_write_file(), and the reverse. */
pf_status pf_select_write(const char *path, const pf_select *s);
pf_status pf_select_read(const char *path, pf_select **out);

/* ------------------------------------------------------------ memory
 *
 * memory.msgpack (pf-posterior), keys in this order:
 *   {format, version, generation, text (string | null), reason?,
 *    provider?, usage? {prompt_tokens, completion_tokens}, latency_s?, candidates?,
 *    backbone?}
 * reason: why there is no new summary (a method without memory, or the
 * search stopped: the text is carried over). The call's fields are present
 * exactly when a summary call was made.
 */
typedef struct pf_memory_file {
    int generation;
    char *text;                      /* M_g; NULL: none                            */
    char *reason;                    /* NULL: absent                               */
    bool has_call;
    char provider[32];
    char backbone[PF_LLM_NAME_MAX];  /* who answered ("" when not recorded)         */
    long prompt_tokens, completion_tokens;
    double latency_s;
    int candidates;                  /* history entries summarised                 */
} pf_memory_file;

/* Copies text and reason. */
pf_status pf_memory_file_init(pf_memory_file *f, int generation, const char *text, const char *reason);
pf_status pf_memory_file_write(const char *path, const pf_memory_file *f);
pf_status pf_memory_file_read(const char *path, pf_memory_file *f);
void pf_memory_file_release(pf_memory_file *f);

/* ------------------------------------------------------------ knowledge
 *
 * knowledge.msgpack: {format, version, pde, tags, entries}, the retrieved
 * entries best first (search/knowledge.h, pf_kb_knowledge, gives tags and
 * entries). Write it (takes neither reference); read it back: *entries, a
 * new reference to its "entries" array. */
pf_status pf_knowledge_file_write(const char *path, const char *pde, json_t *tags, json_t *entries);
pf_status pf_knowledge_file_read(const char *path, json_t **entries);

/* ------------------------------------------------------------ final
 *
 * final.msgpack (pf-final), keys in this order:
 *   {format, version, pde, method, run, profile, spec, spec_hash, hf_mse,
 *    lf_mse (null: none), found_in, result, top3: [{spec_hash, y_low, y_high (null:
 *    none), status, seed}], candidates?: [{spec_hash, y (null: none),
 *    status, seed}], generations, stop_reason, stopped,
 *    budget: {optimizer_steps: {low_fidelity, high_fidelity, baseline, training},
 *             wall_s: {low_fidelity, high_fidelity, baseline, llm, training},
 *             llm: {calls, prompt_tokens, completion_tokens, cost, priced},
 *             llm_backbones: [{name, calls, prompt_tokens, completion_tokens,
 *                              cost, priced, wall_s}],
 *             candidates, invalid},
 *    eval, report_mse, physics_check?}
 * stopped says what ended a search early: "llm budget" (LLM_MAX_TOKENS or
 * LLM_MAX_COST reached), "time budget" (TIME_BUDGET), null otherwise.
 * budget.*.training are the sums over the run's trainings (their evidence);
 * llm counts every call of the proposals and memories, and llm_backbones
 * the same per backbone (llm/usage.h: "offline", a backbone's name, or
 * "http" for PF_LLM_URL), its cost at the backbones file's prices when
 * pf-final ran; priced false: some calls had no price (counted as 0).
 * result is the selected design's result.h5, relative to the run folder
 * ("hifi/top1/result.h5"). A search fills top3 (its final Top-3); a
 * baseline (search/baseline.h) leaves top3 empty, writes its five
 * candidates, lf_mse NaN, generations 0, and counts its trainings under
 * budget "baseline" (so `hf_mse` is the selected candidate's MSE after the
 * baseline's own steps).
 * eval is the run's EVAL ("paper" or "heldout"); hf_mse is the MSE the
 * decisions used (every evaluation point, or the selection half), and
 * report_mse the one to report (the same number under "paper", the report
 * half under "heldout"); physics_check is the selected design's checks on
 * fresh points (see the evidence). Runs imported from other tools need only format, version and hf_mse (the
 * run's context.json names the PDE and method); what else they lack reads
 * as 0, NaN or "".
 */
typedef struct pf_run_budget {
    long steps_low, steps_high, steps_baseline; /* optimizer steps per fidelity     */
    double wall_low, wall_high, wall_baseline;  /* training wall time, s            */
    double llm_s;                    /* time in LLM calls, s                        */
    long calls, prompt_tokens, completion_tokens;
    double cost;                     /* at the backbones file's prices (NaN: not recorded) */
    bool priced;                     /* every call had a price                      */
    pf_llm_usage llm_by;             /* the calls per backbone                      */
    long candidates, invalid;        /* proposals asked for, and the invalid ones   */
} pf_run_budget;

typedef struct pf_final_top {
    char spec_hash[PF_SPEC_HASH_HEX];
    double y_low;                    /* its low-fidelity MSE                        */
    bool has_y_high;
    double y_high;                   /* its high-fidelity MSE                       */
    char status[16];                 /* the high-fidelity training's status         */
    uint64_t seed;
} pf_final_top;

/* One of a baseline's candidates. */
typedef struct pf_final_cand {
    char spec_hash[PF_SPEC_HASH_HEX];
    bool has_y;
    double y;                        /* its MSE (the steering split under heldout)  */
    char status[16];                 /* its training's status                       */
    uint64_t seed;
} pf_final_cand;

typedef struct pf_final_file {
    char pde[PF_ARTIFACT_NAME], method[PF_ARTIFACT_NAME], profile[32];
    int run;
    json_t *spec;                    /* the selected design                         */
    char spec_hash[PF_SPEC_HASH_HEX];
    double hf_mse, lf_mse;
    char found_in[PF_ARTIFACT_NAME]; /* its slot, "gen03/refine", "gen00/init2"     */
    char result[PF_ARTIFACT_NAME];   /* its result.h5 in the run ("" in old files)  */
    int ntop;
    pf_final_top top[PF_RUN_TOP];
    int ncand;                       /* a baseline's candidates (0 for a search)    */
    pf_final_cand cand[PF_RUN_BASELINE_CANDIDATES];
    int generations;                 /* generations that ran                        */
    char *stop_reason;
    char stopped[32];                /* "llm budget", "time budget", "" (null)      */
    pf_run_budget budget;
    json_t *time_budget;             /* a TIME_BUDGET run's (time_budget_file.h pf_time_budget_summary); NULL none */
    char eval[16];                   /* "paper", "heldout" ("" when not recorded)   */
    bool has_report;
    double report_mse;
    json_t *physics_check;           /* NULL when absent                            */
} pf_final_file;

pf_status pf_final_file_write(const char *path, const pf_final_file *f);
pf_status pf_final_file_read(const char *path, pf_final_file *f);
void pf_final_file_release(pf_final_file *f);

/* ------------------------------------------------------------ candidates
 *
 * Candidate k of generation g (or of PF_RUN_HIFI) of the run in `dir`, read
 * from its proposal and, when it exists, its evidence, with the rules the
 * controller relies on:
 *   - the proposal's generation and index are those of its file name;
 *   - a valid proposal has been trained: its evidence exists, its status
 *     is a training status and its spec_hash is the proposal's;
 *   - the two files name the same PDE;
 *   - an invalid (or skipped) proposal is status INVALID, trained or not.
 * PF_ERR_IO / PF_ERR_INVALID naming the file that breaks one.
 */
typedef struct pf_run_candidate {
    pf_proposal_file proposal;
    bool trained;                    /* evidence.msgpack exists                     */
    pf_evidence_file evidence;       /* when trained                                */
    pf_candidate cand;               /* the controller's view (its own references)  */
} pf_run_candidate;

pf_status pf_run_candidate_read(const char *dir, int g, int k, pf_run_candidate *c);
void pf_run_candidate_release(pf_run_candidate *c);

/* Every candidate of generation g: K = 0, 1, ... up to the first missing
 * proposal; at least one (PF_ERR_IO naming the first missing proposal
 * otherwise), all naming one PDE. *out is an array of *n. */
pf_status pf_run_generation_read(const char *dir, int g, pf_run_candidate **out, int *n);
void pf_run_generation_free(pf_run_candidate *c, int n);

/* The last completed selection: genGG/select.msgpack for G = 0, 1, ... up
 * to the first missing one or the first skipped copy. *out NULL and *g -1
 * before generation 0 ends. PF_ERR_IO naming a selection that cannot be
 * read or is not one. */
pf_status pf_run_last_select(const char *dir, pf_select **out, int *g);

/* Remove every proposal of the run in dir that its LLM budget stopped
 * ("stopped": "llm budget"), so that make asks them again (a changed
 * LLM_MAX_TOKENS / LLM_MAX_COST: pf-context); *n says how many. A proposal
 * that does not read is an error naming it. */
pf_status pf_run_forget_stopped(const char *dir, int *n);

/* What a run spent in generations 0..last (proposals, trainings, summary
 * calls) into b, and how many generations ran (a generation whose
 * proposals were all skipped did not). Each training counts under its
 * evidence's fidelity (a search's generations: low; a baseline's
 * candidates: baseline). A missing file is not counted; a file that exists
 * and cannot be read is an error. */
pf_status pf_run_budget_count(const char *dir, int last, pf_run_budget *b, int *generations);

#endif
