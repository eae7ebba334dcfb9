/* run.c — the run folder's layout and settings (run.h). */
#include "search/run.h"

#include <stdio.h>
#include <unistd.h>
#include <string.h>

#include "io/msgpack_json.h"
#include "llm/offline.h"
#include "registry.h"

static pf_status copy_name(const char *path, const char *key, const char *v, char *buf, size_t cap)
{
    if (strlen(v) >= cap) return pf_fail(PF_ERR_INVALID, "%s: \"%s\" is too long", path, key);
    memcpy(buf, v, strlen(v) + 1);
    return PF_OK;
}

pf_status pf_run_context_read(const char *dir, pf_run_context *out)
{
    memset(out, 0, sizeof *out);
    char path[4200];
    if (snprintf(path, sizeof path, "%s/context.json", dir) >= (int)sizeof path)
        return pf_fail(PF_ERR_INVALID, "run folder name '%s' is too long", dir);
    json_error_t err;
    json_t *c = json_load_file(path, 0, &err);
    if (!c) return pf_fail(PF_ERR_IO, "cannot read the run's settings '%s': %s", path, err.text);
    const char *pde = json_string_value(json_object_get(c, "pde"));
    const char *method = json_string_value(json_object_get(c, "method"));
    const char *budget = json_string_value(json_object_get(c, "budget"));
    const char *llm = json_string_value(json_object_get(c, "llm"));
    json_t *run = json_object_get(c, "run");
    pf_status st = PF_OK;
    if (!pde || !method || !budget || !llm || !json_is_integer(run) || json_integer_value(run) < 0)
        st = pf_fail(PF_ERR_INVALID, "'%s' needs \"pde\", \"method\", \"budget\", \"llm\" (strings) and \"run\" (an integer >= 0)",
                     path);
    if (st == PF_OK) st = copy_name(path, "pde", pde, out->pde, sizeof out->pde);
    if (st == PF_OK) st = copy_name(path, "method", method, out->method, sizeof out->method);
    if (st == PF_OK) st = copy_name(path, "budget", budget, out->budget, sizeof out->budget);
    if (st == PF_OK) st = copy_name(path, "llm", llm, out->llm, sizeof out->llm);
    out->run = (int)json_integer_value(run);
    json_decref(c);
    return st;
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
    if (st == PF_OK) {
        if (!strcmp(c.llm, "auto")) r->llm = PF_LLM_AUTO;
        else st = pf_llm_kind_from_name(c.llm, &r->llm);
    }
    r->run = c.run;
    snprintf(r->llm_dir, sizeof r->llm_dir, "%s/llm", r->dir);
    if (st != PF_OK) return pf_fail(st, "%s/context.json: %s", dir, pf_errmsg());
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

int pf_run_slots(int g)
{
    return g == 0 ? PF_RUN_GEN0_SLOTS : PF_RUN_GEN_SLOTS;
}

const char *pf_run_slot_name(int g, int k)
{
    if (k < 0 || k >= pf_run_slots(g)) return NULL;
    return g == 0 ? pf_offline_role_name(k) : pf_offline_strategy_name(k);
}

pf_status pf_run_path(const char *dir, const char *what, int g, int k, char *buf, size_t cap)
{
    int n;
    if (!strcmp(what, "proposal")) n = snprintf(buf, cap, "%s/gen%02d/cand%d.proposal.msgpack", dir, g, k);
    else if (!strcmp(what, "evidence")) n = snprintf(buf, cap, "%s/gen%02d/cand%d/evidence.msgpack", dir, g, k);
    else if (!strcmp(what, "result")) n = snprintf(buf, cap, "%s/gen%02d/cand%d/result.h5", dir, g, k);
    else if (!strcmp(what, "select")) n = snprintf(buf, cap, "%s/gen%02d/select.msgpack", dir, g);
    else if (!strcmp(what, "memory")) n = snprintf(buf, cap, "%s/gen%02d/memory.msgpack", dir, g);
    else return pf_fail(PF_ERR_INVALID, "no run path called '%s'", what);
    if (n < 0 || (size_t)n >= cap) return pf_fail(PF_ERR_INVALID, "path in run '%s' is too long", dir);
    return PF_OK;
}

pf_status pf_run_read(const char *path, const char *format, json_t **out)
{
    PF_TRY(pf_msgpack_read_file(path, out));
    const char *f = json_string_value(json_object_get(*out, "format"));
    if (!f || strcmp(f, format)) {
        pf_status st = pf_fail(PF_ERR_INVALID, "'%s' is not a %s file (its format is '%s')", path, format, f ? f : "?");
        json_decref(*out);
        *out = NULL;
        return st;
    }
    return PF_OK;
}

pf_status pf_run_last_select(const char *dir, json_t **out, int *g)
{
    *out = NULL;
    *g = -1;
    char path[4200];
    for (int k = 0; k < 100; k++) { /* genGG: two digits */
        PF_TRY(pf_run_path(dir, "select", k, 0, path, sizeof path));
        if (access(path, F_OK) != 0) break;
        json_t *s;
        if (pf_run_read(path, "pinnforge.select", &s) != PF_OK) {
            json_decref(*out);
            *out = NULL;
            *g = -1;
            return pf_fail(PF_ERR_IO, "%s", pf_errmsg());
        }
        if (json_is_true(json_object_get(s, "skipped"))) {
            json_decref(s);
            break;
        }
        json_decref(*out);
        *out = s;
        *g = k;
    }
    return PF_OK;
}
