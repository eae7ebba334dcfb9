/*
 * method.h — the methods a run can use: PINNForge, the search methods of
 * the paper's ablations (appendix A.6), and the baselines of Table 1.
 *
 * The search methods differ in what each lets the proposer see:
 *
 *   method         K_P   M_g   execution feedback   parents (Top-3 specs)
 *   pinnforge       yes   yes   yes                  yes
 *   no_knowledge    -     -     yes                  yes
 *   no_feedback     yes   -     -                    yes
 *   no_evolution    yes   yes   yes (through M_g)    -
 *
 * search/context.h leaves out of a context what the method may not see; the
 * offline proposer (offline.h) reads the same predicates, so neither can
 * use what the other hides.
 *
 * One table holds every method: methods.def (a row per method: name,
 * label, table order, flags, a baseline's candidates, its note), which the
 * code below expands and Make reads for its list of methods.
 *
 * A baseline (pf_method_is_baseline) runs none of the search: five
 * candidates, the lowest MSE selected (paper section 4.3 and B.8;
 * search/baseline.h). It sees nothing of the above.
 *   vanilla   PINNacle's default trainer (an extra column of Table 1)
 *   ropinn    vanilla with RoPINN's region optimization (a reconstruction:
 *             RoPINN released no PINNacle driver)
 *   pinnsagent  PINNsAgent's planner: five configurations of its ten
 *             hyperparameters, one per iteration, each planned from the
 *             ones before (pinnsagent/plan.h)
 */
#ifndef PF_LLM_METHOD_H
#define PF_LLM_METHOD_H

#include <stdbool.h>
#include <stdio.h>

#include "core/status.h"

typedef enum pf_method {
#define PF_METHOD(ID, ...) PF_METHOD_##ID,
#include "llm/methods.def"
#undef PF_METHOD
    PF_METHOD_COUNT
} pf_method;

/* A method's flags (methods.def). */
enum {
    PF_MF_KNOWLEDGE = 1 << 0, /* sees the knowledge K_P */
    PF_MF_MEMORY = 1 << 1,    /* builds and sees the posterior memory M_g */
    PF_MF_FEEDBACK = 1 << 2,  /* sees y and the evidence of trained candidates */
    PF_MF_PARENTS = 1 << 3,   /* sees the Global Top-3's specs */
    PF_MF_BASELINE = 1 << 4,  /* no search: a fixed list of candidates, the lowest MSE reported */
    PF_MF_ABLATION = 1 << 5,  /* a search method of the paper's ablations (appendix A.6) */
    PF_MF_LLM = 1 << 6,       /* asks a proposer (an LLM, or the offline one) */
};

/* One row of methods.def. */
typedef struct pf_method_def {
    pf_method id;
    const char *name, *label;
    int order; /* the tables' column order (the reference method comes last) */
    unsigned flags;
    int generations, slots;        /* a baseline's candidates: slots in each of its first generations */
    const char *const *slot_names; /* a baseline's slot names [slots] (search: NULL) */
    const char *note;              /* under the tables: what a reconstruction is (NULL: none) */
} pf_method_def;

/* Row m of the table; NULL for anything but a method. */
const pf_method_def *pf_method_def_of(pf_method m);
/* The method named name, or NULL. */
const pf_method_def *pf_method_def_named(const char *name);

/* The table, one line per method (name, kind, what it sees, its
 * candidates, whether it asks a proposer, its column order, its label),
 * then the notes: `pf-spec methods`. */
void pf_method_print_table(FILE *out);

/* The names of the methods whose flags hold every flag of `with` and none
 * of `without`, in the table's row order, joined by sep and the last two by
 * last ("vanilla, ropinn or pinnsformer"; "vanilla|ropinn"), into buf
 * (cut to cap); buf. For the --help of the stages, so no list of methods
 * is written by hand. */
const char *pf_method_names(unsigned with, unsigned without, const char *sep, const char *last, char *buf,
                            size_t cap);

const char *pf_method_name(pf_method m);
/* PF_ERR_INVALID naming the allowed methods for anything else. */
pf_status pf_method_from_name(const char *name, pf_method *out);
/* The table's flags (false for anything but a method). */
bool pf_method_is_baseline(pf_method m);
bool pf_method_is_ablation(pf_method m);
bool pf_method_has_knowledge(pf_method m);
bool pf_method_has_memory(pf_method m);
bool pf_method_has_feedback(pf_method m);
bool pf_method_has_parents(pf_method m);

#endif
