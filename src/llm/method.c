/* method.c — the ablation methods and what each may see (method.h). */
#include "llm/method.h"

#include <string.h>

static const char *const METHOD[PF_METHOD_COUNT] = {"pinnforge", "no_knowledge", "no_feedback", "no_evolution"};

const char *pf_method_name(pf_method m)
{
    return m >= 0 && m < PF_METHOD_COUNT ? METHOD[m] : "?";
}

pf_status pf_method_from_name(const char *name, pf_method *out)
{
    for (int i = 0; i < PF_METHOD_COUNT; i++)
        if (name && !strcmp(name, METHOD[i])) {
            *out = (pf_method)i;
            return PF_OK;
        }
    return pf_fail(PF_ERR_INVALID, "unknown method '%s' (pinnforge, no_knowledge, no_feedback or no_evolution)",
                   name ? name : "");
}

bool pf_method_has_knowledge(pf_method m) { return m != PF_METHOD_NO_KNOWLEDGE; }
bool pf_method_has_memory(pf_method m) { return m == PF_METHOD_PINNFORGE || m == PF_METHOD_NO_EVOLUTION; }
bool pf_method_has_feedback(pf_method m) { return m != PF_METHOD_NO_FEEDBACK; }
bool pf_method_has_parents(pf_method m) { return m != PF_METHOD_NO_EVOLUTION; }
