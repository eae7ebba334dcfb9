/* propose.c — one slot: ask, extract, validate, re-ask (propose.h). */
#include "search/propose.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "registry.h"
#include "search/prompt.h"

void pf_proposal_release(pf_proposal *p)
{
    json_decref(p->spec);
    free(p->rationale);
    free(p->reasons);
    memset(p, 0, sizeof *p);
}

/* ------------------------------------------------------------ extraction */

static char *trimmed(const char *s, size_t n)
{
    while (n && isspace((unsigned char)*s)) s++, n--;
    while (n && isspace((unsigned char)s[n - 1])) n--;
    char *t = malloc(n + 1);
    if (t) {
        memcpy(t, s, n);
        t[n] = '\0';
    }
    return t;
}

static bool is_object(const char *s, size_t n)
{
    json_t *v = json_loadb(s, n, 0, NULL);
    bool ok = json_is_object(v);
    json_decref(v);
    return ok;
}

/* The object at[0..n), and the prose before `start`. */
static pf_status found(const char *text, const char *start, const char *at, size_t n, char **json, char **before)
{
    *json = trimmed(at, n);
    if (before) *before = trimmed(text, (size_t)(start - text));
    if (!*json || (before && !*before)) return pf_fail(PF_ERR_NOMEM, "out of memory");
    return PF_OK;
}

/* The end of the balanced object starting at s[0] == '{' (strings and
 * escapes respected), or NULL. */
static const char *object_end(const char *s)
{
    int depth = 0;
    bool str = false;
    for (const char *p = s; *p; p++) {
        if (str) {
            if (*p == '\\' && p[1]) p++;
            else if (*p == '"') str = false;
        } else if (*p == '"') {
            str = true;
        } else if (*p == '{') {
            depth++;
        } else if (*p == '}' && --depth == 0) {
            return p + 1;
        }
    }
    return NULL;
}

pf_status pf_extract_json(const char *text, char **json, char **before)
{
    *json = NULL;
    if (before) *before = NULL;
    /* fenced blocks first */
    for (const char *p = strstr(text, "```"); p; p = strstr(p, "```")) {
        const char *body = p + 3;
        while (*body && *body != '\n') body++; /* the info string: json, JSON, or nothing */
        const char *end = *body ? strstr(body + 1, "```") : NULL;
        if (!end) break;
        if (is_object(body, (size_t)(end - body))) return found(text, p, body, (size_t)(end - body), json, before);
        p = end + 3;
    }
    /* then any balanced object in the prose */
    for (const char *p = strchr(text, '{'); p; p = strchr(p + 1, '{')) {
        const char *end = object_end(p);
        if (end && is_object(p, (size_t)(end - p))) return found(text, p, p, (size_t)(end - p), json, before);
    }
    return pf_fail(PF_ERR_INVALID, "the answer contains no JSON object (expected one AlgorithmSpec in a ```json block)");
}

/* ------------------------------------------------------------ validation */

typedef struct reasons {
    char *s;
    size_t n;
    FILE *f;
} reasons;

/* Check one answer; on rejection, every reason goes to r (one per line,
 * "- ..."). Accepted: *norm is the canonical spec. */
static bool judge(const char *answer, const json_t *ctx, const pf_pde *p, const pf_budget *b, pf_fidelity fid,
                  reasons *r, json_t **norm, char **rationale)
{
    char *js, *before;
    *norm = NULL;
    if (pf_extract_json(answer, &js, &before) != PF_OK) {
        fprintf(r->f, "- %s\n", pf_errmsg());
        return false;
    }
    json_t *raw;
    bool ok = false;
    if (pf_spec_parse(js, &raw) != PF_OK) {
        fprintf(r->f, "- %s\n", pf_errmsg());
    } else {
        pf_spec_report rep;
        if (pf_spec_check_budget(raw, p, b, fid, norm, &rep) != PF_OK) {
            for (int i = 0; i < rep.n; i++) fprintf(r->f, "- %s\n", rep.reason[i]);
        } else if (json_is_true(json_object_get(ctx, "escape"))) {
            size_t i;
            json_t *par;
            ok = true;
            json_array_foreach(json_object_get(ctx, "parents"), i, par) {
                const char *h = json_string_value(json_object_get(par, "spec_hash"));
                int d = pf_spec_sections_differing(*norm, json_object_get(par, "spec"), PF_SPEC_SECTIONS);
                if (d >= 2) continue;
                ok = false;
                if (d == 0)
                    fprintf(r->f, "- escape generation: the spec is a copy of Top-3 parent %.12s\n", h ? h : "?");
                else
                    fprintf(r->f,
                            "- escape generation: the spec differs from Top-3 parent %.12s in only one of the seven "
                            "sections; it must differ from every parent in at least two\n",
                            h ? h : "?");
            }
        } else {
            ok = true;
        }
        json_decref(raw);
    }
    if (ok) {
        *rationale = before;
    } else {
        free(before);
        json_decref(*norm);
        *norm = NULL;
    }
    free(js);
    return ok;
}

/* ------------------------------------------------------------ the loop */

pf_status pf_propose(pf_llm_provider *llm, const char *model, const char *prompts_dir, const json_t *ctx,
                     const char *slot, pf_proposal *out)
{
    memset(out, 0, sizeof *out);
    const pf_pde *p;
    pf_fidelity fid;
    PF_TRY(pf_pdes_lookup(json_string_value(json_object_get(ctx, "pde")), &p));
    PF_TRY(pf_fidelity_from_name(json_string_value(json_object_get(ctx, "fidelity")), &fid));
    const pf_budget *b = pf_budget_paper();
    const char *bname = json_string_value(json_object_get(ctx, "budget"));
    if (bname) PF_TRY(pf_budget_lookup(bname, &b));
    pf_prompt pr;
    PF_TRY(pf_prompt_render(prompts_dir, ctx, &pr));

    /* the conversation: system, user, then (assistant, user) per re-ask */
    pf_llm_message msg[2 + 2 * PF_PROPOSE_MAX_REASKS];
    char *owned[2 * PF_PROPOSE_MAX_REASKS] = {0};
    int nmsg = 2, nowned = 0;
    msg[0] = (pf_llm_message){"system", pr.system};
    msg[1] = (pf_llm_message){"user", pr.user};
    pf_status st = PF_OK;
    for (int a = 0; a < PF_PROPOSE_MAX_ATTEMPTS; a++) {
        pf_llm_request q = {.model = model, .nmsg = nmsg, .msg = msg, .temperature = pr.temperature,
                            .max_tokens = PF_PROPOSE_MAX_TOKENS, .slot = slot, .context = ctx};
        pf_llm_response r;
        if ((st = pf_llm_request_hash(&q, out->request[a])) != PF_OK) break;
        if ((st = pf_llm_call(llm, &q, &r)) != PF_OK) break;
        out->attempts = a + 1;
        out->prompt_tokens += r.prompt_tokens;
        out->completion_tokens += r.completion_tokens;
        out->latency_s += r.latency_s;
        snprintf(out->provider, sizeof out->provider, "%s", r.provider);

        reasons why = {0};
        why.f = open_memstream(&why.s, &why.n);
        json_t *norm;
        bool ok = judge(r.text, ctx, p, b, fid, &why, &norm, &out->rationale);
        fclose(why.f);
        if (ok) {
            out->valid = true;
            out->spec = norm;
            st = pf_spec_hash(norm, out->spec_hash);
            free(why.s);
            pf_llm_response_release(&r);
            break;
        }
        free(out->reasons);
        out->reasons = why.s;
        if (a + 1 == PF_PROPOSE_MAX_ATTEMPTS) {
            pf_llm_response_release(&r);
            break;
        }
        char *again;
        if ((st = pf_prompt_reask(prompts_dir, out->reasons, a + 2, PF_PROPOSE_MAX_ATTEMPTS, &again)) != PF_OK) {
            pf_llm_response_release(&r);
            break;
        }
        owned[nowned++] = r.text; /* the answer stays in the conversation */
        owned[nowned++] = again;
        msg[nmsg++] = (pf_llm_message){"assistant", r.text};
        msg[nmsg++] = (pf_llm_message){"user", again};
    }
    for (int i = 0; i < nowned; i++) free(owned[i]);
    pf_prompt_release(&pr);
    if (st != PF_OK) pf_proposal_release(out); /* pf_errmsg() as the failing call left it: pf-propose names the slot */
    return st;
}

pf_status pf_summarize(pf_llm_provider *llm, const char *model, const char *prompts_dir, const json_t *ctx,
                       const char *slot, char **memory, pf_llm_response *r)
{
    *memory = NULL;
    memset(r, 0, sizeof *r);
    pf_prompt pr;
    PF_TRY(pf_prompt_render(prompts_dir, ctx, &pr));
    pf_llm_message msg[2] = {{"system", pr.system}, {"user", pr.user}};
    pf_llm_request q = {.model = model, .nmsg = 2, .msg = msg, .temperature = pr.temperature,
                        .max_tokens = PF_PROPOSE_MAX_TOKENS, .slot = slot, .context = ctx};
    pf_status st = pf_llm_call(llm, &q, r);
    pf_prompt_release(&pr);
    if (st != PF_OK) return st;
    if (!r->text || !*r->text) {
        pf_llm_response_release(r);
        return pf_fail(PF_ERR_INVALID, "slot %s: the posterior summary is empty", slot);
    }
    *memory = r->text;
    r->text = NULL;
    return PF_OK;
}
