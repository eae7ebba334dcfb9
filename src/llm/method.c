/* method.c — the methods and what each may see (method.h, methods.def). */
#include "llm/method.h"

#include <stdio.h>
#include <string.h>

#include "core/names.h"

#define PF_INIT_SLOTS ((const char *const[]){"init0", "init1", "init2", "init3", "init4"})
#define PF_PLAN_SLOT ((const char *const[]){"plan"})

static const char *const NAMES[PF_METHOD_COUNT] = {
#define PF_METHOD(ID, nm, ...) [PF_METHOD_##ID] = #nm,
#include "llm/methods.def"
#undef PF_METHOD
};

static const pf_method_def DEFS[PF_METHOD_COUNT] = {
#define PF_METHOD(ID, nm, lbl, ord, fl, gens, nslots, names, nt, propose, spec)                                                      \
    [PF_METHOD_##ID] = {.id = PF_METHOD_##ID, .name = #nm, .label = lbl, .order = ord, .flags = (fl),                \
                        .generations = gens, .slots = nslots, .slot_names = names, .note = nt},
#include "llm/methods.def"
#undef PF_METHOD
};

/* a baseline's slots are named, a search's are not; every flag set is one of a kind */
#define PF_METHOD(ID, nm, lbl, ord, fl, gens, nslots, names, nt, propose, spec)                                                      \
    _Static_assert(!((fl) & PF_MF_BASELINE) == !(gens) && !(gens) == !(nslots),                                    \
                   #nm ": a baseline has candidates, a search has none");                                            \
    _Static_assert(!(((fl) & PF_MF_BASELINE) && ((fl) & (PF_MF_ABLATION | PF_MF_KNOWLEDGE | PF_MF_MEMORY))),         \
                   #nm ": a baseline sees none of the search");
#include "llm/methods.def"
#undef PF_METHOD

const pf_method_def *pf_method_def_of(pf_method m)
{
    return (int)m >= 0 && m < PF_METHOD_COUNT ? &DEFS[m] : NULL;
}

const pf_method_def *pf_method_def_named(const char *name)
{
    for (int i = 0; name && i < PF_METHOD_COUNT; i++)
        if (!strcmp(DEFS[i].name, name)) return &DEFS[i];
    return NULL;
}

const char *pf_method_names(unsigned with, unsigned without, const char *sep, const char *last, char *buf,
                            size_t cap)
{
    int match[PF_METHOD_COUNT], n = 0;
    for (int i = 0; i < PF_METHOD_COUNT; i++)
        if ((DEFS[i].flags & with) == with && !(DEFS[i].flags & without)) match[n++] = i;
    size_t len = 0;
    if (cap) buf[0] = '\0';
    for (int k = 0; k < n && len < cap; k++) {
        int w = snprintf(buf + len, cap - len, "%s%s", k == 0 ? "" : k == n - 1 ? last : sep, DEFS[match[k]].name);
        if (w < 0) break;
        len += (size_t)w;
    }
    return buf;
}

const char *pf_method_name(pf_method m)
{
    const pf_method_def *d = pf_method_def_of(m);
    return d ? d->name : "?";
}

pf_status pf_method_from_name(const char *name, pf_method *out)
{
    int i;
    PF_TRY(pf_name_lookup("method", name, NAMES, PF_METHOD_COUNT, &i));
    *out = (pf_method)i;
    return PF_OK;
}

static bool flag(pf_method m, unsigned f)
{
    const pf_method_def *d = pf_method_def_of(m);
    return d && (d->flags & f);
}

bool pf_method_is_baseline(pf_method m) { return flag(m, PF_MF_BASELINE); }
bool pf_method_is_ablation(pf_method m) { return flag(m, PF_MF_ABLATION); }
bool pf_method_has_knowledge(pf_method m) { return flag(m, PF_MF_KNOWLEDGE); }
bool pf_method_has_memory(pf_method m) { return flag(m, PF_MF_MEMORY); }
bool pf_method_has_feedback(pf_method m) { return flag(m, PF_MF_FEEDBACK); }
bool pf_method_has_parents(pf_method m) { return flag(m, PF_MF_PARENTS); }

void pf_method_print_table(FILE *out)
{
    fprintf(out, "%-13s %-9s %-5s %-29s %-8s %-5s %s\n", "method", "kind", "sees", "candidates", "proposer", "order",
            "label");
    for (int i = 0; i < PF_METHOD_COUNT; i++) {
        const pf_method_def *d = &DEFS[i];
        char sees[8] = "", cand[40];
        const char *kind = d->flags & PF_MF_BASELINE ? "baseline" : d->flags & PF_MF_ABLATION ? "ablation" : "search";
        static const struct {
            unsigned f;
            char c;
        } seen[] = {{PF_MF_KNOWLEDGE, 'K'}, {PF_MF_MEMORY, 'M'}, {PF_MF_FEEDBACK, 'F'}, {PF_MF_PARENTS, 'P'}};
        for (size_t j = 0, n = 0; j < sizeof seen / sizeof *seen; j++)
            if (d->flags & seen[j].f) sees[n++] = seen[j].c, sees[n] = 0;
        if (d->flags & PF_MF_BASELINE)
            snprintf(cand, sizeof cand, d->generations == 1 ? "%d in generation 0" : "%d in each of generations 0-%d",
                     d->slots, d->generations - 1);
        else
            snprintf(cand, sizeof cand, "roles, then strategies");
        fprintf(out, "%-13s %-9s %-5s %-29s %-8s %-5d %s\n", d->name, kind, *sees ? sees : "-", cand,
                d->flags & PF_MF_LLM ? "yes" : "no", d->order, d->label);
    }
    fprintf(out, "sees: K knowledge, M posterior memory, F execution feedback, P parents (the Top-3)\n");
    for (int i = 0; i < PF_METHOD_COUNT; i++)
        if (DEFS[i].note) fprintf(out, "%s: %s\n", DEFS[i].name, DEFS[i].note);
}
