/*
 * method.h — the search methods of the paper's ablations (appendix A.6),
 * and what each lets the proposer see:
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
 */
#ifndef PF_LLM_METHOD_H
#define PF_LLM_METHOD_H

#include <stdbool.h>

#include "core/status.h"

typedef enum pf_method {
    PF_METHOD_PINNFORGE = 0, /* "pinnforge"    */
    PF_METHOD_NO_KNOWLEDGE,  /* "no_knowledge" */
    PF_METHOD_NO_FEEDBACK,   /* "no_feedback"  */
    PF_METHOD_NO_EVOLUTION,  /* "no_evolution" */
    PF_METHOD_COUNT
} pf_method;

const char *pf_method_name(pf_method m);
/* PF_ERR_INVALID naming the allowed methods for anything else. */
pf_status pf_method_from_name(const char *name, pf_method *out);
/* Whether the method sees K_P, builds M_g, sees y/evidence, sees parents. */
bool pf_method_has_knowledge(pf_method m);
bool pf_method_has_memory(pf_method m);
bool pf_method_has_feedback(pf_method m);
bool pf_method_has_parents(pf_method m);

#endif
