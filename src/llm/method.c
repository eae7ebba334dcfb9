/* method.c — the methods and what each may see (method.h). */
#include "llm/method.h"

#include "core/names.h"

static const char *const METHOD[PF_METHOD_COUNT] = {"pinnforge", "no_knowledge", "no_feedback", "no_evolution",
                                                    "vanilla",   "ropinn",       "pinnsagent",  "pinnsformer"};

const char *pf_method_name(pf_method m)
{
    return m >= 0 && m < PF_METHOD_COUNT ? METHOD[m] : "?";
}

pf_status pf_method_from_name(const char *name, pf_method *out)
{
    int i;
    PF_TRY(pf_name_lookup("method", name, METHOD, PF_METHOD_COUNT, &i));
    *out = (pf_method)i;
    return PF_OK;
}

bool pf_method_is_baseline(pf_method m)
{
    return m == PF_METHOD_VANILLA || m == PF_METHOD_ROPINN || m == PF_METHOD_PINNSAGENT || m == PF_METHOD_PINNSFORMER;
}
bool pf_method_is_ablation(pf_method m) { return m != PF_METHOD_PINNFORGE && !pf_method_is_baseline(m); }
bool pf_method_has_knowledge(pf_method m) { return m != PF_METHOD_NO_KNOWLEDGE && !pf_method_is_baseline(m); }
bool pf_method_has_memory(pf_method m) { return m == PF_METHOD_PINNFORGE || m == PF_METHOD_NO_EVOLUTION; }
bool pf_method_has_feedback(pf_method m) { return m != PF_METHOD_NO_FEEDBACK && !pf_method_is_baseline(m); }
bool pf_method_has_parents(pf_method m) { return m != PF_METHOD_NO_EVOLUTION && !pf_method_is_baseline(m); }
