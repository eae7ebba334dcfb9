/* prompt.c — contexts rendered into messages, and the temperatures of
 * appendix B.2 (prompt.h). */
#include "search/prompt.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/asset_dir.h"
#include "io/msgpack_json.h"
#include "llm/offline.h"
#include "registry.h"
#include "search/template.h"
#include "spec/pinnsagent_space.h"
#include "spec/spec.h"

static const double ROLE_T[PF_OFFLINE_ROLES] = {0.20, 0.35, 0.40, 0.45, 0.45, 0.40, 0.50, 0.60};
static const double STRATEGY_T[PF_OFFLINE_STRATEGIES] = {0.20, 0.36, 0.42, 0.47, 0.58};

double pf_temperature_role(int role)
{
    return role >= 0 && role < PF_OFFLINE_ROLES ? ROLE_T[role] : NAN;
}

double pf_temperature_strategy(int strategy, bool escape)
{
    if (strategy < 0 || strategy >= PF_OFFLINE_STRATEGIES) return NAN;
    double t = STRATEGY_T[strategy] + (escape ? PF_TEMPERATURE_ESCAPE_STEP : 0.0);
    /* round to the table's two decimals: 0.36 + 0.15 is 0.51, not 0.51000000000000001 */
    t = round(t * 100.0) / 100.0;
    return t < PF_TEMPERATURE_MAX ? t : PF_TEMPERATURE_MAX;
}

pf_status pf_prompt_dir(char *buf, size_t cap)
{
    return pf_asset_dir("prompts", "PF_PROMPTS_DIR", buf, cap);
}

void pf_prompt_release(pf_prompt *p)
{
    free(p->system);
    free(p->user);
    memset(p, 0, sizeof *p);
}

/* dir/name as a string; PF_ERR_IO naming the file. */
static pf_status load(const char *dir, const char *name, char **text)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    size_t len;
    if (pf_file_read_as(path, PF_FILE_PROMPT, text, &len) != PF_OK)
        return pf_fail(PF_ERR_IO, "prompt template '%s' is missing or unreadable (prompts folder '%s')", name, dir);
    return PF_OK;
}

/* Template dir/name filled from vars into *out. */
static pf_status fill(const char *dir, const char *name, const json_t *vars, char **out)
{
    char *src;
    PF_TRY(load(dir, name, &src));
    pf_status st = pf_template_render(src, name, vars, out);
    free(src);
    return st;
}

/* A generated text as a variable (trailing line breaks trimmed: the
 * templates place their own); takes ownership of s. */
static void set_owned(json_t *vars, const char *key, char *s)
{
    size_t n = s ? strlen(s) : 0;
    while (n && s[n - 1] == '\n') s[--n] = '\0';
    json_object_set_new(vars, key, json_string(s ? s : ""));
    free(s);
}

/* A file's text as a variable, trailing line breaks trimmed. */
static pf_status set_file(json_t *vars, const char *key, const char *dir, const char *name)
{
    char *t;
    PF_TRY(load(dir, name, &t));
    set_owned(vars, key, t);
    return PF_OK;
}

static char *dumps(const json_t *v, int precision)
{
    return json_dumps(v, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(precision));
}

/* K_P as numbered entries: title, tags, rationale, advice. */
static char *knowledge_text(const json_t *entries)
{
    char *s = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&s, &n);
    size_t i;
    json_t *e;
    json_array_foreach(entries, i, e) {
        fprintf(f, "%s%zu. %s [", i ? "\n" : "", i + 1, json_string_value(json_object_get(e, "title")));
        size_t j;
        json_t *t;
        json_array_foreach(json_object_get(e, "tags"), j, t) fprintf(f, "%s%s", j ? ", " : "", json_string_value(t));
        fprintf(f, "]\n   Why: %s\n   %s\n", json_string_value(json_object_get(e, "rationale")),
                json_string_value(json_object_get(e, "text")));
    }
    fclose(f);
    return s;
}

static void head(FILE *f, size_t i, const json_t *p)
{
    const char *hash = json_string_value(json_object_get(p, "spec_hash"));
    json_t *y = json_object_get(p, "y");
    const char *status = json_string_value(json_object_get(p, "status"));
    fprintf(f, "## Parent %zu (spec %.12s", i + 1, hash ? hash : "?");
    if (json_is_number(y)) fprintf(f, ", MSE %.4g", json_number_value(y));
    else if (status) fputs(", no MSE", f);
    if (status) fprintf(f, ", training %s", status);
    fputs(")\n", f);
}

static char *parents_text(const json_t *parents, bool evidence)
{
    char *s = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&s, &n);
    size_t i;
    json_t *p;
    json_array_foreach(parents, i, p) {
        const json_t *v = json_object_get(p, evidence ? "evidence" : "spec");
        if (!v) continue;
        char *body = dumps(v, evidence ? 4 : 10);
        if (i) fputc('\n', f);
        head(f, i, p);
        fprintf(f, "```json\n%s\n```\n", body);
        free(body);
    }
    fclose(f);
    return s;
}

/* n with thousands separators: 2000000 -> "2,000,000". */
static const char *grouped(long n, char buf[32])
{
    char digits[24];
    int len = snprintf(digits, sizeof digits, "%ld", n), o = 0;
    for (int i = 0; i < len; i++) {
        if (i && (len - i) % 3 == 0) buf[o++] = ',';
        buf[o++] = digits[i];
    }
    buf[o] = '\0';
    return buf;
}

/* The context's budget (paper when it names none). */
static pf_status budget_of(const json_t *ctx, const pf_budget **b)
{
    const char *name = json_string_value(json_object_get(ctx, "budget"));
    *b = pf_budget_paper();
    return name ? pf_budget_lookup(name, b) : PF_OK;
}

/* The step budget and the limits; a TIME_BUDGET run's time line after them
 * (search/time_budget.h: throughput and the time left). */
static pf_status budget_text(const pf_pde *p, const pf_budget *bud, const char *fidelity, const char *time_line,
                             char **out)
{
    pf_fidelity fid;
    PF_TRY(pf_fidelity_from_name(fidelity, &fid));
    char *s = NULL, b1[32], b2[32], b3[32];
    size_t n = 0;
    FILE *f = open_memstream(&s, &n);
    fprintf(f,
            "- Fidelity %s: the steps of all optimization stages must sum to exactly %s.\n"
            "- At most %s trainable parameters.\n"
            "- At most %s training points in all (interior, boundary and initial points; a RAR-D cap counts in full).\n"
            "- The design is trained once from a fixed seed and compared by its MSE on %s's fixed reference points.",
            fidelity, grouped(bud->steps[fid], b1), grouped(bud->max_params, b2), grouped(bud->max_points, b3),
            p->name);
    if (time_line && *time_line) fprintf(f, "\n- %s", time_line);
    fclose(f);
    *out = s;
    return PF_OK;
}

/* One line per history entry: slot, hash, y, status, mechanisms, evidence. */
static char *history_text(const json_t *history)
{
    char *s = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&s, &n);
    size_t i;
    json_t *c;
    json_array_foreach(history, i, c) {
        json_t *y = json_object_get(c, "y"), *ev = json_object_get(c, "evidence");
        fprintf(f, "- %s  %.12s  ", json_string_value(json_object_get(c, "slot")),
                json_string_value(json_object_get(c, "spec_hash")));
        if (json_is_number(y)) fprintf(f, "MSE %.4g", json_number_value(y));
        else fputs("MSE -", f);
        fprintf(f, "  %s  [", json_string_value(json_object_get(c, "status")));
        json_t *mech = pf_offline_mechanisms(json_object_get(c, "spec"));
        size_t j;
        json_t *m;
        json_array_foreach(mech, j, m) fprintf(f, "%s%s", j ? ", " : "", json_string_value(m));
        json_decref(mech);
        fputc(']', f);
        if (ev) {
            fprintf(f, "  loss %.3g -> %.3g", json_number_value(json_object_get(ev, "loss_initial")),
                    json_number_value(json_object_get(ev, "loss_final")));
            json_t *r = json_object_get(ev, "residual");
            if (r) fprintf(f, ", |residual| mean %.3g max %.3g", json_number_value(json_object_get(r, "mean")),
                           json_number_value(json_object_get(r, "max")));
            const char *k;
            json_t *v;
            json_object_foreach(json_object_get(ev, "constraint_errors"), k, v) fprintf(f, ", %s %.3g", k, json_number_value(v));
        }
        fputc('\n', f);
    }
    fclose(f);
    return s;
}

static pf_status render_propose(const char *dir, const json_t *ctx, const pf_pde *p, json_t *vars, pf_prompt *out)
{
    const char *role = json_string_value(json_object_get(ctx, "role"));
    const char *strategy = json_string_value(json_object_get(ctx, "strategy"));
    bool escape = json_is_true(json_object_get(ctx, "escape"));
    char name[128];
    if (role) {
        int r = pf_offline_role_index(role);
        if (r < 0) return pf_fail(PF_ERR_INVALID, "context: unknown role '%s'", role);
        snprintf(name, sizeof name, "role_%s.md", role);
        PF_TRY(set_file(vars, "role", dir, name));
        out->temperature = pf_temperature_role(r);
    } else if (strategy) {
        int s = pf_offline_strategy_index(strategy);
        if (s < 0) return pf_fail(PF_ERR_INVALID, "context: unknown strategy '%s'", strategy);
        snprintf(name, sizeof name, "strategy_%s.md", strategy);
        PF_TRY(set_file(vars, "strategy", dir, name));
        if (escape) PF_TRY(set_file(vars, "escape", dir, "escape.md"));
        out->temperature = pf_temperature_strategy(s, escape);
    } else {
        return pf_fail(PF_ERR_INVALID, "context: a proposal needs a role or a strategy");
    }
    const pf_budget *bud;
    PF_TRY(budget_of(ctx, &bud));
    set_owned(vars, "space", pf_spec_describe_budget(p, bud));
    char *budget;
    PF_TRY(budget_text(p, bud, json_string_value(json_object_get(ctx, "fidelity")),
                       json_string_value(json_object_get(ctx, "time_budget")), &budget));
    set_owned(vars, "budget", budget);
    json_t *k = json_object_get(ctx, "knowledge");
    if (json_array_size(k)) set_owned(vars, "knowledge", knowledge_text(k));
    json_t *parents = json_object_get(ctx, "parents");
    if (json_array_size(parents)) {
        set_owned(vars, "parents", parents_text(parents, false));
        set_owned(vars, "evidence", parents_text(parents, true));
        if (json_object_get(json_array_get(parents, 0), "y"))
            json_object_set_new(vars, "ranked", json_string("yes"));
    }
    PF_TRY(fill(dir, "system.md", vars, &out->system));
    return fill(dir, "propose.md", vars, &out->user);
}

/* "- key: value, ..." of a configuration, and ", MSE m" when given. */
static void config_line(FILE *f, const json_t *config, const json_t *mse)
{
    const char *k;
    json_t *v;
    int i = 0;
    json_object_foreach((json_t *)config, k, v) {
        if (json_is_string(v)) fprintf(f, "%s%s: %s", i++ ? ", " : "", k, json_string_value(v));
        else fprintf(f, "%s%s: %g", i++ ? ", " : "", k, json_number_value(v));
    }
    if (json_is_number(mse)) fprintf(f, " -> MSE %.4g", json_number_value(mse));
    else if (mse) fputs(" -> no MSE (the training failed)", f);
}

/* PINNsAgent's planner (task "pinnsagent"): pinnsagent/system.md and
 * pinnsagent/plan.md with the space, the scores as bars, the replayed
 * configurations (iteration 1), the history by MSE and the best so far. */
static pf_status render_pinnsagent(const char *dir, const json_t *ctx, json_t *vars, pf_prompt *out)
{
    char *s = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&s, &n);
    size_t i;
    json_t *e;
    bool uct = false;
    json_array_foreach(json_object_get(ctx, "scores"), i, e) {
        double sc = json_number_value(json_object_get(e, "score"));
        long visits = (long)json_integer_value(json_object_get(e, "visits"));
        int w = (int)lround(fmin(fmax(sc, 0), 3) * 10);
        fprintf(f, "- %-20s %5.2f ", json_string_value(json_object_get(e, "param")), sc);
        for (int k = 0; k < w; k++) fputc('#', f);
        if (visits) fprintf(f, " (visited %ld)", visits), uct = true;
        fputc('\n', f);
    }
    fclose(f);
    set_owned(vars, "scores", s);
    if (uct) json_object_set_new(vars, "uct", json_string("yes"));
    set_owned(vars, "space", pf_pa_space_describe());
    if (json_array_size(json_object_get(ctx, "replay"))) {
        f = open_memstream(&s, &n);
        json_array_foreach(json_object_get(ctx, "replay"), i, e) {
            fprintf(f, "- %s (similarity %.3f): ", json_string_value(json_object_get(e, "pde")),
                    json_number_value(json_object_get(e, "similarity")));
            config_line(f, json_object_get(e, "config"), json_object_get(e, "mse"));
            fputc('\n', f);
        }
        fclose(f);
        set_owned(vars, "replay", s);
    }
    if (json_array_size(json_object_get(ctx, "history"))) {
        f = open_memstream(&s, &n);
        json_array_foreach(json_object_get(ctx, "history"), i, e) {
            fprintf(f, "%zu. ", i + 1);
            config_line(f, json_object_get(e, "config"), json_object_get(e, "mse") ? json_object_get(e, "mse") : json_null());
            fputc('\n', f);
        }
        fclose(f);
        set_owned(vars, "history", s);
        const json_t *best = json_object_get(ctx, "best");
        f = open_memstream(&s, &n);
        if (best) config_line(f, json_object_get(best, "config"), json_object_get(best, "mse"));
        else fputs("none (no configuration has trained to a finite MSE yet)", f);
        fclose(f);
        set_owned(vars, "best", s);
    }
    const char *note = json_string_value(json_object_get(ctx, "note"));
    if (note) json_object_set_new(vars, "note", json_string(note));
    char it[32];
    snprintf(it, sizeof it, "%lld", (long long)json_integer_value(json_object_get(ctx, "iteration")) + 1);
    json_object_set_new(vars, "iteration", json_string(it));
    out->temperature = PF_TEMPERATURE_PINNSAGENT;
    PF_TRY(fill(dir, "pinnsagent/system.md", vars, &out->system));
    return fill(dir, "pinnsagent/plan.md", vars, &out->user);
}

pf_status pf_prompt_render(const char *dir, const json_t *ctx, pf_prompt *out)
{
    memset(out, 0, sizeof *out);
    const char *task = json_string_value(json_object_get(ctx, "task"));
    const char *pde = json_string_value(json_object_get(ctx, "pde"));
    const pf_pde *p;
    if (!task || !pde) return pf_fail(PF_ERR_INVALID, "context: no task or no PDE");
    PF_TRY(pf_pdes_lookup(pde, &p));
    json_t *vars = json_object();
    char gen[32];
    snprintf(gen, sizeof gen, "%lld", (long long)json_integer_value(json_object_get(ctx, "generation")));
    json_object_set_new(vars, "generation", json_string(gen));
    json_object_set_new(vars, "pde_name", json_string(p->name));
    set_owned(vars, "pde_description", pf_pde_describe(p));
    const char *memory = json_string_value(json_object_get(ctx, "memory"));
    if (memory) json_object_set_new(vars, "memory", json_string(memory));
    pf_status st;
    if (!strcmp(task, "propose")) {
        st = render_propose(dir, ctx, p, vars, out);
    } else if (!strcmp(task, "posterior")) {
        set_owned(vars, "history", history_text(json_object_get(ctx, "history")));
        out->temperature = PF_TEMPERATURE_POSTERIOR;
        st = fill(dir, "posterior_system.md", vars, &out->system);
        if (st == PF_OK) st = fill(dir, "posterior.md", vars, &out->user);
    } else if (!strcmp(task, "pinnsagent")) {
        st = render_pinnsagent(dir, ctx, vars, out);
    } else {
        st = pf_fail(PF_ERR_INVALID, "context: unknown task '%s' (propose, posterior or pinnsagent)", task);
    }
    json_decref(vars);
    if (st != PF_OK) pf_prompt_release(out);
    return st;
}

pf_status pf_prompt_reask(const char *dir, const char *reasons, int attempt, int attempts, char **text)
{
    char a[16], n[16];
    snprintf(a, sizeof a, "%d", attempt);
    snprintf(n, sizeof n, "%d", attempts);
    json_t *vars = json_pack("{s:s, s:s, s:s}", "reasons", reasons, "attempt", a, "attempts", n);
    pf_status st = fill(dir, "reask.md", vars, text);
    json_decref(vars);
    return st;
}
