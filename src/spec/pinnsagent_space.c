/* pinnsagent_space.c — PINNsAgent's search space and its specs (pinnsagent_space.h). */
#include "spec/pinnsagent_space.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>


static const char *const KEY[PF_PA_PARAM_COUNT] = {"activation", "net",   "optimizer",         "lr",
                                              "width",      "depth", "num_domain_points", "num_boundary_points",
                                              "num_initial_points", "initializer"};
static const char *const ACT[] = {"elu", "selu", "sigmoid", "silu", "relu", "tanh", "swish", "sin", "gaussian"};
static const char *const NET[] = {"fnn", "laaf", "gaaf"};
static const char *const OPT[] = {"sgd", "adam", "multiadam", "lbfgs"};
static const char *const INIT[] = {"Glorot normal", "Glorot uniform", "He normal", "He uniform", "zeros"};
/* what each name means in a spec */
static const char *const SPEC_ACT[] = {"elu", "selu", "sigmoid", "silu", "relu", "tanh", "silu", "sin", "gaussian"};
static const char *const SPEC_NET[] = {"none", "layerwise", "global"};
static const char *const SPEC_INIT[] = {"glorot_normal", "glorot_uniform", "he_normal", "he_uniform", "zeros"};

#define N(a) ((int)(sizeof a / sizeof *a))

/* numeric grids: value = base + step * level (lr: 10^(base + level)) */
static const struct {
    double base, step;
    int levels;
} GRID[PF_PA_PARAM_COUNT] = {
    [PF_PA_LR] = {-6, 1, 6},        [PF_PA_WIDTH] = {8, 4, 63},       [PF_PA_DEPTH] = {3, 1, 8},
    [PF_PA_DOMAIN_POINTS] = {100, 500, 20}, [PF_PA_BOUNDARY_POINTS] = {100, 500, 20}, [PF_PA_INITIAL_POINTS] = {100, 500, 20},
};

static const char *const *names(pf_pa_param i, int *n)
{
    switch (i) {
    case PF_PA_ACTIVATION: return *n = N(ACT), ACT;
    case PF_PA_NET: return *n = N(NET), NET;
    case PF_PA_OPTIMIZER: return *n = N(OPT), OPT;
    case PF_PA_INITIALIZER: return *n = N(INIT), INIT;
    default: return *n = 0, NULL;
    }
}

const char *pf_pa_param_name(pf_pa_param p) { return p >= 0 && p < PF_PA_PARAM_COUNT ? KEY[p] : NULL; }

int pf_pa_param_find(const char *name)
{
    for (int i = 0; name && i < PF_PA_PARAM_COUNT; i++)
        if (!strcmp(name, KEY[i])) return i;
    return -1;
}

bool pf_pa_param_categorical(pf_pa_param p) { return p == PF_PA_ACTIVATION || p == PF_PA_NET || p == PF_PA_OPTIMIZER || p == PF_PA_INITIALIZER; }

int pf_pa_value_count(pf_pa_param p)
{
    int n;
    return names(p, &n) ? n : 0;
}

const char *pf_pa_value_name(pf_pa_param p, int i)
{
    int n;
    const char *const *nm = names(p, &n);
    return nm && i >= 0 && i < n ? nm[i] : NULL;
}

int pf_pa_param_levels(pf_pa_param i)
{
    int n;
    if (names(i, &n)) return n;
    return i >= 0 && i < PF_PA_PARAM_COUNT ? GRID[i].levels : 0;
}

double pf_pa_config_num(const pf_pa_config *c, pf_pa_param i)
{
    PF_ASSERT(i >= 0 && i < PF_PA_PARAM_COUNT && !pf_pa_param_categorical(i));
    double v = GRID[i].base + GRID[i].step * c->level[i];
    return i == PF_PA_LR ? pow(10, v) : v;
}

static void add_note(char *note, size_t cap, const char *fmt, const char *key, const char *from, const char *to)
{
    if (!note) return;
    size_t n = strlen(note);
    if (n + 1 < cap) snprintf(note + n, cap - n, fmt, n ? "; " : "", key, from, to);
}

pf_status pf_pa_config_read(const json_t *o, pf_pa_config *c, char *note, size_t cap)
{
    if (note && cap) note[0] = 0;
    if (!json_is_object(o)) return pf_fail(PF_ERR_INVALID, "a configuration is a JSON object with the ten keys");
    for (int i = 0; i < PF_PA_PARAM_COUNT; i++) {
        const json_t *v = json_object_get(o, KEY[i]);
        if (!v) return pf_fail(PF_ERR_INVALID, "the configuration has no \"%s\"", KEY[i]);
        int n;
        const char *const *nm = names(i, &n);
        if (nm) {
            if (!json_is_string(v)) return pf_fail(PF_ERR_INVALID, "\"%s\" needs a name (%s, ...)", KEY[i], nm[0]);
            const char *s = json_string_value(v);
            int k = 0;
            while (k < n && strcasecmp(s, nm[k])) k++;
            if (k == n) {
                add_note(note, cap, "%s%s: '%.40s' is not allowed, taken as '%s'", KEY[i], s, nm[0]);
                k = 0;
            }
            c->level[i] = k;
            continue;
        }
        if (!json_is_number(v)) return pf_fail(PF_ERR_INVALID, "\"%s\" needs a number", KEY[i]);
        double x = json_number_value(v);
        if (i == PF_PA_LR) {
            if (!(x > 0)) return pf_fail(PF_ERR_INVALID, "\"lr\" needs a number > 0, not %g", x);
            x = log10(x);
        }
        double l = round((x - GRID[i].base) / GRID[i].step);
        int k = l < 0 ? 0 : l >= GRID[i].levels ? GRID[i].levels - 1 : (int)l;
        c->level[i] = k;
        double back = GRID[i].base + GRID[i].step * k;
        if (fabs(back - x) > 1e-9) {
            char from[32], to[32];
            snprintf(from, sizeof from, "%g", json_number_value(v));
            snprintf(to, sizeof to, "%g", pf_pa_config_num(c, i));
            add_note(note, cap, "%s%s: %s snapped to %s", KEY[i], from, to);
        }
    }
    return PF_OK;
}

const char *pf_pa_config_value(const pf_pa_config *c, pf_pa_param i, char *buf, size_t cap)
{
    int n;
    const char *const *nm = names(i, &n);
    if (nm) snprintf(buf, cap, "%s", nm[c->level[i]]);
    else snprintf(buf, cap, "%g", pf_pa_config_num(c, i));
    return buf;
}

json_t *pf_pa_config_json(const pf_pa_config *c)
{
    json_t *o = json_object();
    for (int i = 0; o && i < PF_PA_PARAM_COUNT; i++) {
        int n;
        const char *const *nm = names(i, &n);
        double x = nm ? 0 : pf_pa_config_num(c, i);
        json_object_set_new(o, KEY[i], nm ? json_string(nm[c->level[i]]) : i == PF_PA_LR ? json_real(x) : json_integer((json_int_t)x));
    }
    return o;
}

bool pf_pa_config_equal(const pf_pa_config *a, const pf_pa_config *b)
{
    return !memcmp(a->level, b->level, sizeof a->level);
}

pf_status pf_pa_config_spec(const pf_pa_config *c, const pf_pde *p, const pf_budget *b, json_t **out)
{
    *out = NULL;
    if (!b) b = pf_budget_paper();
    long steps = b->steps[PF_FIDELITY_BASELINE];
    double lr = pf_pa_config_num(c, PF_PA_LR);
    int opt = c->level[PF_PA_OPTIMIZER];
    json_t *stages;
    if (!strcmp(OPT[opt], "lbfgs"))
        /* PINNacle's Adam_LBFGS: torch.optim.LBFGS(lr=1, max_iter=20) with
         * torch's defaults for the rest (max_eval 25, history 100, no line
         * search, tolerances 1e-7 and 1e-9, our defaults too) */
        stages = json_pack("[{s:s, s:I, s:f}, {s:s, s:I, s:i, s:i, s:b}]", PF_SK(STAGE_OPTIMIZER), "adam",
                           PF_SK(STAGE_ADAM_STEPS), (json_int_t)(steps / 4), PF_SK(STAGE_ADAM_LR), lr,
                           PF_SK(STAGE_OPTIMIZER), "lbfgs", PF_SK(STAGE_LBFGS_STEPS), (json_int_t)(steps - steps / 4),
                           PF_SK(STAGE_LBFGS_MAX_ITER), 20, PF_SK(STAGE_LBFGS_HISTORY), 100,
                           PF_SK(STAGE_LBFGS_LINE_SEARCH), 0);
    else
        stages = json_pack("[{s:s, s:I, s:f}]", PF_SK(STAGE_OPTIMIZER), OPT[opt], PF_SK(STAGE_ADAM_STEPS),
                           (json_int_t)steps, PF_SK(STAGE_ADAM_LR), lr);
    bool steady = p->time_input < 0;
    json_t *raw = json_pack(
        "{s:{}, s:{s:s, s:i, s:i, s:s, s:s, s:f, s:s}, s:{s:i, s:i, s:i, s:s}, s:{}, s:{}, s:{s:o}, "
        "s:{}}",
        PF_SK(REPR), PF_SK(ARCH), PF_SK(ARCH_TYPE), "mlp", PF_SK(ARCH_DEPTH), (int)pf_pa_config_num(c, PF_PA_DEPTH),
        PF_SK(ARCH_WIDTH), (int)pf_pa_config_num(c, PF_PA_WIDTH), PF_SK(ARCH_ACTIVATION),
        SPEC_ACT[c->level[PF_PA_ACTIVATION]], PF_SK(ARCH_ADAPTIVE), SPEC_NET[c->level[PF_PA_NET]],
        PF_SK(ARCH_ADAPT_FACTOR), 10.0, PF_SK(ARCH_INIT), SPEC_INIT[c->level[PF_PA_INITIALIZER]], PF_SK(SAMP),
        PF_SK(SAMP_INTERIOR), (int)pf_pa_config_num(c, PF_PA_DOMAIN_POINTS), PF_SK(SAMP_BOUNDARY),
        (int)pf_pa_config_num(c, PF_PA_BOUNDARY_POINTS), PF_SK(SAMP_INITIAL),
        steady ? 0 : (int)pf_pa_config_num(c, PF_PA_INITIAL_POINTS), PF_SK(SAMP_METHOD), "hammersley", PF_SK(CONS),
        PF_SK(LOSS), PF_SK(OPT), PF_SK(OPT_STAGES), stages, PF_SK(TRAIN));
    if (!raw) return pf_fail(PF_ERR_NOMEM, "out of memory");
    pf_spec_report *rep = malloc(sizeof *rep);
    json_t *n = NULL;
    pf_status st = rep ? pf_spec_normalize(raw, p, &n, rep) : pf_fail(PF_ERR_NOMEM, "out of memory");
    json_decref(raw);
    if (st == PF_OK) {
        pf_spec_fit_budget(n, p, b);
        json_t *fit = n;
        st = pf_spec_check_budget(fit, p, b, PF_FIDELITY_BASELINE, &n, rep);
        json_decref(fit);
    }
    if (st != PF_OK) {
        char all[2048] = "";
        for (int i = 0; i < rep->n; i++) {
            size_t m = strlen(all);
            snprintf(all + m, sizeof all - m, "%s%s", i ? " " : "", rep->reason[i]);
        }
        free(rep);
        return pf_fail(PF_ERR_INVALID, "the configuration does not make a valid spec for %s: %s", p->name,
                       all[0] ? all : pf_errmsg());
    }
    free(rep);
    *out = n;
    return PF_OK;
}

char *pf_pa_space_describe(void)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return NULL;
    for (int i = 0; i < PF_PA_PARAM_COUNT; i++) {
        int n;
        const char *const *nm = names(i, &n);
        fprintf(f, "- %s: ", KEY[i]);
        if (nm)
            for (int k = 0; k < n; k++) fprintf(f, "%s\"%s\"", k ? ", " : "", nm[k]);
        else if (i == PF_PA_LR)
            fprintf(f, "one of 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1");
        else
            fprintf(f, "an integer from %g to %g in steps of %g", GRID[i].base,
                    GRID[i].base + GRID[i].step * (GRID[i].levels - 1), GRID[i].step);
        fputc('\n', f);
    }
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}
