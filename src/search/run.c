/* run.c — the run folder's layout and settings (run.h). */
#include "search/run.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "core/file.h"
#include "core/names.h"
#include "core/parse.h"
#include "io/msgpack_json.h"
#include "llm/offline.h"
#include "pdefile/pdefile.h"
#include "registry.h"

static pf_status copy_name(const char *path, const char *key, const char *v, char *buf, size_t cap)
{
    if (strlen(v) >= cap) return pf_fail(PF_ERR_INVALID, "%s: \"%s\" is too long", path, key);
    memcpy(buf, v, strlen(v) + 1);
    return PF_OK;
}

/* The names of dir's last `n` folders, last first, into name[0..n) (each a
 * view into buf); how many there are (fewer when dir is shorter, or when a
 * name is "." or "..", which say nothing of the layout). */
static int last_names(const char *dir, char *buf, size_t cap, const char *name[], int n)
{
    if (snprintf(buf, cap, "%s", dir) >= (int)cap) return 0;
    int got = 0;
    for (size_t end = strlen(buf); got < n;) {
        while (end > 0 && buf[end - 1] == '/') buf[--end] = 0;
        if (end == 0) break;
        size_t start = end;
        while (start > 0 && buf[start - 1] != '/') start--;
        const char *s = buf + start;
        if (!strcmp(s, ".") || !strcmp(s, "..")) break;
        name[got++] = s;
        end = start;
    }
    return got;
}

/* A run folder laid out as pipeline.mk lays it out, <pde>/<method>/run<R>
 * (<method> one of ours), must hold the settings of that run: context.json's
 * "run", "method" and (pde_name non-NULL: a built-in's name, or the name a
 * .pde file declares) "pde" must be the folder's. A folder laid out
 * otherwise (a test's, a copy elsewhere) is not checked. */
static pf_status check_layout(const char *dir, const char *pde_name, const char *method, int run)
{
    char buf[4200];
    const char *name[3];
    int n = last_names(dir, buf, sizeof buf, name, 3);
    long r;
    pf_method m;
    if (n < 3 || strncmp(name[0], "run", 3) || pf_parse_long(name[0] + 3, 0, INT_MAX, &r) != PF_OK ||
        pf_method_from_name(name[1], &m) != PF_OK)
        return PF_OK;
    const char *why = NULL, *got = NULL;
    char num[32];
    if (r != run || (name[0][3] == '0' && name[0][4])) {
        snprintf(num, sizeof num, "%d", run);
        why = "run", got = num;
    } else if (strcmp(name[1], method)) {
        why = "method", got = method;
    } else if (pde_name && strcmp(name[2], pde_name)) {
        why = "pde", got = pde_name;
    }
    if (!why) return PF_OK;
    return pf_fail(PF_ERR_INVALID,
                   "'%s/context.json' is the settings of another run: its \"%s\" is %s, but the folder is %s "
                   "(<pde>/<method>/run<R>, as make lays runs out); copied from another run? remove it and "
                   "run make again",
                   dir, why, got, dir + (name[2] - buf));
}

pf_status pf_run_context_read(const char *dir, pf_run_context *out)
{
    memset(out, 0, sizeof *out);
    char path[4200];
    if (pf_run_path(dir, PF_RUN_CONTEXT, 0, 0, path, sizeof path) != PF_OK)
        return pf_fail(PF_ERR_INVALID, "run folder name '%s' is too long", dir);
    char *text;
    size_t len;
    if (pf_file_read_as(path, PF_FILE_SETTINGS, &text, &len) != PF_OK)
        return pf_fail(PF_ERR_IO, "cannot read the run's settings: %s", pf_errmsg());
    json_error_t err;
    json_t *c = json_loadb(text, len, JSON_REJECT_DUPLICATES, &err); /* a key twice: which one holds? */
    free(text);
    if (!c) return pf_fail(PF_ERR_IO, "cannot read the run's settings '%s': %s", path, err.text);
    const char *pde = json_string_value(json_object_get(c, "pde"));
    const char *method = json_string_value(json_object_get(c, "method"));
    const char *budget = json_string_value(json_object_get(c, "budget"));
    const char *llm = json_string_value(json_object_get(c, "llm"));
    long run = 0;
    pf_status st = PF_OK;
    if (!pde || !method || !budget || !llm || !pf_json_int(json_object_get(c, "run"), 0, INT_MAX, &run))
        st = pf_fail(PF_ERR_INVALID,
                     "'%s' needs \"pde\", \"method\", \"budget\", \"llm\" (strings) and \"run\" (an integer in 0..%d)",
                     path, INT_MAX);
    if (st == PF_OK) st = copy_name(path, "pde", pde, out->pde, sizeof out->pde);
    if (st == PF_OK) st = copy_name(path, "method", method, out->method, sizeof out->method);
    if (st == PF_OK) st = copy_name(path, "budget", budget, out->budget, sizeof out->budget);
    if (st == PF_OK) st = copy_name(path, "llm", llm, out->llm, sizeof out->llm);
    const json_t *ev = json_object_get(c, "eval");
    if (st == PF_OK && ev && !json_is_string(ev))
        st = pf_fail(PF_ERR_INVALID, "'%s': \"eval\" needs a string (paper or heldout)", path);
    if (st == PF_OK) st = copy_name(path, "eval", ev ? json_string_value(ev) : "paper", out->eval, sizeof out->eval);
    out->run = (int)run;
    json_decref(c);
    /* a built-in PDE is checked here; a .pde file's declared name in pf_run_open */
    if (st == PF_OK) st = check_layout(dir, pf_pdefile_is_path(out->pde) ? NULL : out->pde, out->method, out->run);
    return st;
}

static const char *const eval_names[] = {"paper", "heldout"};

const char *pf_eval_mode_name(pf_eval_mode m)
{
    return (unsigned)m < 2 ? eval_names[m] : "?";
}

pf_status pf_eval_mode_from_name(const char *name, pf_eval_mode *out)
{
    int i;
    PF_TRY(pf_name_lookup("eval", name, eval_names, 2, &i));
    *out = (pf_eval_mode)i;
    return PF_OK;
}

pf_status pf_run_open(const char *dir, pf_run *r)
{
    memset(r, 0, sizeof *r);
    if (snprintf(r->dir, sizeof r->dir, "%s", dir) >= (int)sizeof r->dir)
        return pf_fail(PF_ERR_INVALID, "run folder name '%s' is too long", dir);
    pf_run_context c;
    PF_TRY(pf_run_context_read(dir, &c));
    pf_status st = pf_pdes_lookup(c.pde, &r->pde);
    if (st == PF_OK) st = pf_method_from_name(c.method, &r->method);
    if (st == PF_OK) st = pf_budget_lookup(c.budget, &r->budget);
    if (st == PF_OK) st = pf_eval_mode_from_name(c.eval, &r->eval);
    if (st == PF_OK) {
        if (!strcmp(c.llm, "auto")) r->llm = PF_LLM_AUTO;
        else st = pf_llm_kind_from_name(c.llm, &r->llm);
    }
    r->run = c.run;
    snprintf(r->llm_dir, sizeof r->llm_dir, "%s/llm", r->dir);
    if (st != PF_OK) return pf_fail(st, "%s/context.json: %s", dir, pf_errmsg());
    if (pf_pdefile_is_path(c.pde)) return check_layout(dir, r->pde->name, c.method, c.run);
    return PF_OK;
}

pf_status pf_run_provider(const pf_run *r, pf_llm_options *o, pf_llm_provider **out)
{
    *out = NULL;
    PF_TRY(pf_llm_options_from_env(o));
    if (r->llm != PF_LLM_AUTO) o->kind = r->llm;
    o->transcripts = r->llm_dir;
    o->seed = (uint64_t)r->run;
    return pf_llm_provider_alloc(o, out);
}

int pf_run_slots(pf_method m, int g)
{
    const pf_method_def *d = pf_method_def_of(m);
    if (!d || g < 0) return 0;
    if (d->flags & PF_MF_BASELINE) return g < d->generations ? d->slots : 0; /* methods.def */
    return g == 0 ? PF_RUN_GEN0_SLOTS : PF_RUN_GEN_SLOTS;
}

const char *pf_run_slot_name(pf_method m, int g, int k)
{
    if (k < 0 || k >= pf_run_slots(m, g)) return NULL;
    const pf_method_def *d = pf_method_def_of(m);
    if (d->slot_names) return d->slot_names[k];
    return g == 0 ? pf_offline_role_name(k) : pf_offline_strategy_name(k);
}

pf_status pf_run_path(const char *dir, pf_run_file what, int g, int k, char *buf, size_t cap)
{
    bool per_gen = what == PF_RUN_GENERATION || what == PF_RUN_PROPOSAL || what == PF_RUN_CANDIDATE ||
                   what == PF_RUN_EVIDENCE || what == PF_RUN_RESULT || what == PF_RUN_SELECT || what == PF_RUN_MEMORY;
    bool hifi = g == PF_RUN_HIFI && what != PF_RUN_SELECT && what != PF_RUN_MEMORY;
    if (per_gen && !hifi && (g < 0 || g > PF_RUN_MAX_GENERATION))
        return pf_fail(PF_ERR_INVALID, "generation %d is outside 0..%d", g, PF_RUN_MAX_GENERATION);
    if (k < 0 || k > PF_RUN_MAX_GENERATION) return pf_fail(PF_ERR_INVALID, "candidate %d is outside 0..%d", k, PF_RUN_MAX_GENERATION);
    char gen[16], cand[32];
    if (hifi) snprintf(gen, sizeof gen, "hifi"), snprintf(cand, sizeof cand, "hifi/top%d", k);
    else snprintf(gen, sizeof gen, "gen%02d", g), snprintf(cand, sizeof cand, "gen%02d/cand%d", g, k);
    int n;
    switch (what) {
    case PF_RUN_CONTEXT: n = snprintf(buf, cap, "%s/context.json", dir); break;
    case PF_RUN_KNOWLEDGE: n = snprintf(buf, cap, "%s/knowledge.msgpack", dir); break;
    case PF_RUN_GENERATION: n = snprintf(buf, cap, "%s/%s", dir, gen); break;
    case PF_RUN_PROPOSAL: n = snprintf(buf, cap, "%s/%s.proposal.msgpack", dir, cand); break;
    case PF_RUN_CANDIDATE: n = snprintf(buf, cap, "%s/%s", dir, cand); break;
    case PF_RUN_EVIDENCE: n = snprintf(buf, cap, "%s/%s/evidence.msgpack", dir, cand); break;
    case PF_RUN_RESULT: n = snprintf(buf, cap, "%s/%s/result.h5", dir, cand); break;
    case PF_RUN_SELECT: n = snprintf(buf, cap, "%s/%s/select.msgpack", dir, gen); break;
    case PF_RUN_MEMORY: n = snprintf(buf, cap, "%s/%s/memory.msgpack", dir, gen); break;
    case PF_RUN_FINAL: n = snprintf(buf, cap, "%s/final.msgpack", dir); break;
    default: return pf_fail(PF_ERR_INVALID, "no run file %d", (int)what);
    }
    if (n < 0 || (size_t)n >= cap) return pf_fail(PF_ERR_INVALID, "path in run '%s' is too long", dir);
    return PF_OK;
}
