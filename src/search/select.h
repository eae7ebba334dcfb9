/*
 * select.h — the search controller of appendix B.5: global distinct Top-3,
 * the per-generation statistics b_g, B_g, m_g, A_g, the three stagnation
 * tests, escape scheduling, escape success and termination. The pf-select
 * stage's artifact, genGG/select.msgpack, holds a pf_select: its codec is
 * search/artifact.h's (pf_select_read, pf_select_write).
 *
 *     pf_select *prev = NULL, *s;                 // generation 0: no previous
 *     PF_TRY(pf_select_read("run/gen02/select.msgpack", &prev));
 *     PF_TRY(pf_select_step(prev, cands, n, 3, PF_SELECT_DEFAULT_MAX_GENERATIONS, &s));
 *     if (s->next == PF_SELECT_ESCAPE) ...        // generation 4 is an escape generation
 *     PF_TRY(pf_select_write("run/gen03/select.msgpack", s));
 *     pf_select_free(prev); pf_select_free(s);
 *
 * The previous generation's pf_select is the only state carried forward:
 * its history (every candidate so far) and its controller state; b, B, m,
 * A, new_elite and the Top-3 are recomputed from the history each time.
 *
 * ------------------------------------------------------------ candidates
 *
 * A candidate a_{g,k} (generation g, index k) is RANKED — a "valid
 * candidate" of B.5, one that may enter the Top-3 — iff its proposal
 * validated, its training status is "ok", and it has a finite y (the
 * low-fidelity evaluation MSE). Invalid proposals, nan / diverged / timeout
 * runs and runs without y stay in the history and count for nothing else
 * (except that a valid proposal's spec_hash counts as "seen", below).
 *
 * ------------------------------------------------------------ statistics
 *
 *   I(x, y) = max(0, (x - y) / |x|)   when x != 0 and x, y are both finite,
 *           = 0                        otherwise (x = 0, either +-inf or NaN).
 *
 *   b_g = min_k y_{g,k} over the ranked candidates of generation g
 *         (+inf when there is none; written as null)
 *   B_g = min_{0 <= t <= g} b_t                       (+inf likewise)
 *   m_g = median of the three smallest y_{g,k} of the ranked candidates of
 *         generation g — candidates, not distinct specs: a spec proposed
 *         twice in a generation counts twice — defined only when generation
 *         g has >= 3 ranked candidates (NaN / null otherwise)
 *   A_g = median of the y of GlobalDistinctTop3(H_g), defined only when the
 *         archive holds 3 distinct specs (NaN / null otherwise)
 *
 * GlobalDistinctTop3(H_g): over the ranked candidates of generations 0..g,
 * one representative per spec_hash — its smallest y, ties to the earliest
 * (generation, index) — then the representatives sorted by y ascending,
 * ties to the earliest (generation, index), and the first three kept. (The
 * archive after g is always a subset of the archive after g-1 plus
 * generation g's candidates, which is why select.msgpack need carry the
 * spec and evidence of the Top-3 only.)
 *
 * "A previously unseen normalized AlgorithmSpec enters the archive at
 * generation g" (new_elite[g]): some hash h is in Top3(H_g), is not in
 * Top3(H_{g-1}) (empty for g = 0), and the first generation in which h
 * appears in the history at all — any VALID proposal with that hash,
 * whatever its training status — is g. Decision: a re-proposed old spec
 * (the same normalized spec trained again, say with another outcome) is
 * not "previously unseen", even if its new y lifts it into the archive or
 * it failed (nan) the first time; it can still make an escape succeed by
 * the new-best or archive-median conditions. A duplicate inside one
 * generation is one spec: it can enter the archive once.
 *
 * ------------------------------------------------------------ controller
 *
 * State carried between generations (pf_select_state): window_start (the
 * first generation of the stagnation history; 0, then g_esc after a
 * successful escape), escape_generation g_esc (-1 before any), the stall
 * generation g_stall (-1), B_stall = B_{g_stall} and A_stall = A_{g_stall}
 * (NaN when undefined). G = max_generations (default 10), last = G - 1.
 *
 * After generation g completes, next in {normal, escape, stop}:
 *
 *  (E) g is an escape generation (the previous decision was "escape"; then
 *      g = g_esc = g_stall + 1). Success iff any of
 *        new_best:         I(B_stall, b_g) >= 0.02
 *        new_elite:        new_elite[g]
 *        archive_improved: I(A_stall, A_g) >= 0.02 (0 when either undefined)
 *      Success: window_start = g (the stagnation history before g_esc is
 *      cleared; g_esc itself starts the new one), next = normal. Failure:
 *      next = stop. No stagnation test is evaluated at an escape
 *      generation (none could be: each needs a generation before g_esc).
 *
 *  (S) otherwise, when g >= 3, the three tests; each is evaluated only when
 *      its whole window lies at or after window_start, and is false
 *      otherwise:
 *        global_best   (g-3 >= window_start):
 *            I(B_{g-3},B_{g-2}) < 0.01 and I(B_{g-2},B_{g-1}) < 0.01 and
 *            I(B_{g-1},B_g) < 0.01 and I(B_{g-3},B_g) < 0.02
 *        elite_archive (g-2 >= window_start):
 *            not (new_elite[g-2] or new_elite[g-1] or new_elite[g])
 *        population    (g-2 >= window_start, and generations g-2, g-1, g
 *                       each have >= 3 ranked candidates):
 *            I(m_{g-2},m_{g-1}) < 0.02 and I(m_{g-1},m_g) < 0.02
 *      Any true: stagnation after g_stall = g. If g < last: next = escape,
 *      escape_generation = g + 1, stall_generation = g, B_stall = B_g,
 *      A_stall = A_g. At g = last: stop.
 *      So the earliest escape generation is 4; after a successful escape at
 *      g_esc, elite_archive can fire again at g_esc + 2, population at
 *      g_esc + 2, global_best at g_esc + 3 (never at g_esc + 1).
 *
 *  (T) g = last stops whatever (E) or (S) found (both are still evaluated
 *      and reported). Otherwise next = normal.
 *
 * Literal consequences of I = 0 for non-finite arguments: while no
 * generation has a ranked candidate, B stays +inf and every I(B.,B.) is 0,
 * so global_best fires (no improvement at all); the first finite B after
 * +inf also counts as no improvement. An escape generation with no ranked
 * candidate has b = +inf: new_best is false.
 */
#ifndef PF_SEARCH_SELECT_H
#define PF_SEARCH_SELECT_H

#include <jansson.h>
#include <stdbool.h>

#include "core/status.h"
#include "search/candidate.h"
#include "spec/spec.h"

#define PF_SELECT_DEFAULT_MAX_GENERATIONS 10
#define PF_SELECT_FIRST_TEST_GENERATION 3
#define PF_SELECT_STEP_TOL 0.01      /* global-best: each step below 1%        */
#define PF_SELECT_WINDOW_TOL 0.02    /* global-best: over the window below 2%  */
#define PF_SELECT_MEDIAN_TOL 0.02    /* population: each transition below 2%   */
#define PF_SELECT_ESCAPE_GAIN 0.02   /* escape success: new best / archive >= 2% */
/* The causes of the stops the stages add to the controller's (pf-select):
 * TIME_BUDGET's (search/time_budget.h) and the LLM budget's (a proposal of
 * the generation was stopped by LLM_MAX_TOKENS or LLM_MAX_COST). */
#define PF_SELECT_CAUSE_TIME "the time budget is spent"
#define PF_SELECT_CAUSE_LLM "the LLM budget is spent"

typedef enum pf_select_next {
    PF_SELECT_NORMAL = 0,
    PF_SELECT_ESCAPE,
    PF_SELECT_STOP,
} pf_select_next;

typedef struct pf_select_state {
    int window_start;        /* stagnation history starts here                */
    int escape_generation;   /* the latest scheduled escape generation, -1    */
    int stall_generation;    /* the generation whose stagnation scheduled it  */
    double B_stall, A_stall; /* B and A at stall_generation (NaN: undefined)  */
} pf_select_state;

typedef struct pf_select_tests {
    bool global_best, elite_archive, population;
} pf_select_tests;

typedef struct pf_select_escape {
    bool new_best, new_elite, archive_improved, success;
} pf_select_escape;

/* The controller after one generation. Read it; build it only through
 * pf_select_step() or pf_select_from_json(). */
typedef struct pf_select {
    char *pde, *method;      /* NULL when unknown (written as null)           */
    int generation;          /* g, the generation just completed              */
    int max_generations;
    int ncand;
    pf_candidate *cand;    /* the history H_g, in (generation, index) order */
    double *b, *B, *m, *A;   /* [generation + 1]; +inf / NaN as above         */
    bool *new_elite;         /* [generation + 1]                              */
    int ntop3;               /* 0..3                                          */
    int top3[3];             /* indices into cand, best first                 */
    pf_select_state state;   /* after this generation's decision              */
    pf_select_tests tests;   /* evaluated at this generation (false if not)   */
    bool has_escape;         /* this generation was an escape generation      */
    pf_select_escape escape; /* its outcome (when has_escape)                 */
    pf_select_next next;
    char reason[256];        /* one sentence                                  */
    char cause[128];         /* the short cause, "population stagnation"      */
    bool skipped;            /* a copy written for a generation after a stop  */
    int skipped_generation;  /* that generation (when skipped)                */
} pf_select;

/* "normal", "escape", "stop". */
const char *pf_select_next_name(pf_select_next n);

/* I(x, y) as above. */
double pf_select_improvement(double x, double y);

/* Median of the three smallest of v[0..n) (NaN when n < 3). */
double pf_select_median_top3(const double *v, int n);

/* GlobalDistinctTop3 over the candidates c[0..n) whose generation is
 * <= upto: indices into c, best first, *ntop in 0..3. */
void pf_select_top3(const pf_candidate *c, int n, int upto, int top[3], int *ntop);

/* Complete generation `generation` with its candidates gen[0..n) (each
 * with .generation == generation; spec / evidence references are taken as
 * new references, the caller keeps its own) after `prev` (NULL exactly
 * when generation == 0; else prev->generation == generation - 1 and
 * prev->next != stop). pde / method may be NULL (then prev's are kept).
 * max_generations >= 1 and generation < max_generations.
 * PF_ERR_INVALID with a sentence for any violation; *out NULL then. */
pf_status pf_select_step(const pf_select *prev, const pf_candidate *gen, int n, int generation,
                         int max_generations, const char *pde, const char *method, pf_select **out);

void pf_select_free(pf_select *s);

/* ------------------------------------------------------------ rebuilding
 *
 * What the codec of select.msgpack (search/artifact.h, artifact_select.c)
 * needs to rebuild a stored selection with the controller's own rules. */

/* "normal", "escape", "stop" back (-1 when unknown). */
int pf_select_next_lookup(const char *name);

/* Whether c may be a candidate of generation `generation`: its index,
 * status, a valid one's spec_hash, terminated strings. PF_ERR_INVALID
 * "WHERE: ..." otherwise. */
pf_status pf_select_check_candidate(const pf_candidate *c, int generation, const char *where);

/* Append c to s's history (s->cand has room for it): an invalid one loses
 * its spec_hash and gets status invalid, one without y gets NaN; spec and
 * evidence as new references. */
void pf_select_append(pf_select *s, const pf_candidate *c);

/* b, B, m, A, new_elite and the Top-3 recomputed from s's history for
 * generations 0..s->generation. */
pf_status pf_select_recompute(pf_select *s);

#endif
