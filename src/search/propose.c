/* propose.c — one slot: ask, extract, validate, re-ask (propose.h). */
#include "search/propose.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "registry.h"
#include "search/prompt.h"

void pf_proposal_release(pf_proposal *p)
{
    json_decref(p->spec);
    free(p->rationale);
    free(p->reasons);
    memset(p, 0, sizeof *p);
}

void pf_proposal_count_call(pf_proposal *p, int a, const pf_llm_response *r)
{
    p->attempts = a + 1;
    p->prompt_tokens += r->prompt_tokens;
    p->completion_tokens += r->completion_tokens;
    p->latency_s += r->latency_s;
    snprintf(p->provider, sizeof p->provider, "%s", r->provider);
    snprintf(p->backbone, sizeof p->backbone, "%s", r->backbone);
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

/* The object at[0..n), and the prose before `start`. */
static pf_status found(const char *text, const char *start, const char *at, size_t n, char **json, char **before)
{
    *json = trimmed(at, n);
    if (before) *before = trimmed(text, (size_t)(start - text));
    if (!*json || (before && !*before)) {
        free(*json);
        *json = NULL;
        if (before) {
            free(*before);
            *before = NULL;
        }
        return pf_fail(PF_ERR_NOMEM, "out of memory");
    }
    return PF_OK;
}

/* The search for the object: the accepted one, or the reason to give. */
typedef struct extraction {
    const char *start, *at; /* accepted: where the prose before it ends, the object */
    size_t n;
    size_t bad_len;         /* the longest JSON-looking candidate that failed (0: none) */
    json_error_t bad;       /* and jansson's message for it */
} extraction;

static const char *skip_space(const char *s, const char *end)
{
    while (s < end && isspace((unsigned char)*s)) s++;
    return s;
}

/* Whether s[0..n) reads as an attempt at a JSON object: a '{' followed by a
 * string, a '}' or nothing (cut short). Prose such as "{width}" does not,
 * so its failure is no reason to give. */
static bool looks_like_json(const char *s, size_t n)
{
    const char *end = s + n, *p = skip_space(s, end);
    if (p == end || *p != '{') return false;
    p = skip_space(p + 1, end);
    return p == end || *p == '"' || *p == '}';
}

/* Try the candidate s[0..n), whose prose ends at start: true when it
 * parses as an object (accepted into x). A failure is remembered when the
 * candidate must be JSON (reportable) and is the longest so far: a short
 * example in the prose does not hide the broken spec. Each candidate is
 * parsed once, and candidates do not overlap within one scan. */
static bool try_candidate(extraction *x, const char *start, const char *s, size_t n, bool reportable)
{
    json_error_t err;
    json_t *v = json_loadb(s, n, 0, &err);
    bool ok = json_is_object(v);
    json_decref(v);
    if (ok) {
        x->start = start;
        x->at = s;
        x->n = n;
    } else if (!v && reportable && n > x->bad_len) {
        x->bad_len = n;
        x->bad = err;
    }
    return ok;
}

/* Whether the info string info[0..n) of a fence says json. */
static bool info_is_json(const char *info, size_t n)
{
    const char *end = info + n, *p = skip_space(info, end);
    while (end > p && isspace((unsigned char)end[-1])) end--;
    return end - p == 4 && strncasecmp(p, "json", 4) == 0;
}

/* The next "```" of s[0..end), or NULL. A plain loop, not strstr: a
 * sanitizer's strstr reads the whole rest of the text on every call, which
 * made the fence scan quadratic in the number of fences under `make fuzz`. */
static const char *next_fence(const char *s, const char *end)
{
    for (; end - s >= 3; s++)
        if (s[0] == '`' && s[1] == '`' && s[2] == '`') return s;
    return NULL;
}

/* The fenced blocks in order, the first that parses as an object. A block
 * never closed runs to the end of the text (an answer cut short). */
static bool scan_fences(extraction *x, const char *text, const char *end)
{
    for (const char *p = next_fence(text, end); p;) {
        const char *info = p + 3, *body = info;
        while (body < end && *body != '\n') body++; /* the info string: json, JSON, or nothing */
        size_t ninfo = (size_t)(body - info);
        if (body < end) body++;
        const char *close = next_fence(body, end), *stop = close ? close : end;
        body = skip_space(body, stop); /* line 1 of a message is the line of the '{' */
        size_t n = (size_t)(stop - body);
        if (try_candidate(x, p, body, n, info_is_json(info, ninfo) || looks_like_json(body, n))) return true;
        if (!close) break;
        p = next_fence(close + 3, end);
    }
    return false;
}

/* The top-level {...} objects of the text, in order, in one pass: braces
 * are counted outside strings, and strings only inside an object (a quote
 * in the prose is no JSON string). An object still open at the end runs
 * to the end. An object inside another is never tried on its own. */
static bool scan_prose(extraction *x, const char *text, size_t len)
{
    size_t depth = 0, start = 0;
    bool str = false;
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        if (depth == 0) {
            if (c == '{') start = i, depth = 1, str = false;
        } else if (str) {
            if (c == '\\') i++;
            else if (c == '"') str = false;
        } else if (c == '"') {
            str = true;
        } else if (c == '{') {
            depth++;
        } else if (c == '}' && --depth == 0) {
            const char *s = text + start;
            size_t n = i + 1 - start;
            if (try_candidate(x, s, s, n, looks_like_json(s, n))) return true;
        }
    }
    if (depth == 0) return false;
    const char *s = text + start;
    return try_candidate(x, s, s, len - start, looks_like_json(s, len - start));
}

pf_status pf_extract_json(const char *text, char **json, char **before)
{
    *json = NULL;
    if (before) *before = NULL;
    size_t len = strnlen(text, PF_PROPOSE_MAX_ANSWER + 1);
    if (len > PF_PROPOSE_MAX_ANSWER)
        return pf_fail(PF_ERR_INVALID,
                       "the answer is longer than %zu bytes (1 MiB, PF_PROPOSE_MAX_ANSWER) and was not read: answer "
                       "with a short rationale and one JSON object of a few kilobytes",
                       PF_PROPOSE_MAX_ANSWER);
    extraction x = {0};
    if (scan_fences(&x, text, text + len) || scan_prose(&x, text, len))
        return found(text, x.start, x.at, x.n, json, before);
    if (x.bad_len)
        return pf_fail(PF_ERR_INVALID, "JSON syntax error at line %d, column %d of the JSON object: %s", x.bad.line,
                       x.bad.column, x.bad.text);
    return pf_fail(PF_ERR_INVALID, "the answer holds no JSON object (expected one in a ```json block)");
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

/* A reason as judge() writes one ("- ...\n"), malloc'ed. */
static pf_status reason_line(const char *why, char **out)
{
    size_t n = strlen(why) + 4;
    if (!(*out = malloc(n))) return pf_fail(PF_ERR_NOMEM, "out of memory");
    snprintf(*out, n, "- %s\n", why);
    return PF_OK;
}

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
        if (r.stopped) { /* the run's LLM budget is spent: no call was made */
            out->stopped = true;
            free(out->reasons);
            st = reason_line(r.stopped, &out->reasons);
            pf_llm_response_release(&r);
            break;
        }
        pf_proposal_count_call(out, a, &r);
        if (r.unusable) { /* the server never answered usably: the slot ends as invalid, no re-ask */
            free(out->reasons);
            st = reason_line(r.unusable, &out->reasons);
            pf_llm_response_release(&r);
            break;
        }

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
    if (r->unusable) { /* pf-posterior has no invalid memory to fall back on */
        st = pf_fail(PF_ERR_IO, "slot %s: the posterior summary: %s", slot, r->unusable);
        pf_llm_response_release(r);
        return st;
    }
    if (!r->text || !*r->text) {
        pf_llm_response_release(r);
        return pf_fail(PF_ERR_INVALID, "slot %s: the posterior summary is empty", slot);
    }
    *memory = r->text;
    r->text = NULL;
    return PF_OK;
}
