/*
 * offline_pinnsagent.c — the offline stand-in for PINNsAgent's planner
 * (task "pinnsagent"; offline.h, pinnsagent/plan.h).
 *
 * It reads the structured context instead of the prompt and answers the
 * way the planner is asked to: a few lines of reasoning, then one
 * configuration of the ten hyperparameters in a ```json fence. It is
 * deterministic (the same seed and context give the same bytes):
 *   iteration 0   the replayed configuration (PGKR) with the lowest MSE;
 *                 on a re-ask the next one, then as below;
 *   iteration >0  the best configuration so far (else the best replayed
 *                 one), with its most important parameters changed, by the
 *                 scores: the top-ranked one, and with probability 1/2 the
 *                 second too, each to a neighbouring allowed value (a
 *                 categorical to another value), drawn from the run's seed;
 *                 a change that repeats a configuration of the history or
 *                 of the rejected ones is drawn again (at most 64 times),
 *                 going down the ranking on each repeat.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "llm/offline_impl.h"
#include "spec/pinnsagent_space.h"

#define SELF "offline planner (pinnsagent)"

/* The configuration of each entry of array `a` (at `key`) that reads. */
static int configs(const json_t *a, const char *key, pf_pa_config *out, double *mse, int cap)
{
    int n = 0;
    size_t i;
    const json_t *e;
    json_array_foreach(a, i, e) {
        if (n == cap) break;
        if (pf_pa_config_read(json_object_get(e, key), &out[n], NULL, 0) != PF_OK) continue;
        const json_t *y = json_object_get(e, "mse");
        mse[n++] = json_is_number(y) ? json_number_value(y) : INFINITY;
    }
    return n;
}

static bool seen(const pf_pa_config *c, const pf_pa_config *list, int n)
{
    for (int i = 0; i < n; i++)
        if (pf_pa_config_equal(c, &list[i])) return true;
    return false;
}

/* Parameter indices by score, highest first (ties: table order). */
static void ranking(const json_t *scores, int rank[PF_PA_PARAM_COUNT])
{
    double s[PF_PA_PARAM_COUNT];
    for (int i = 0; i < PF_PA_PARAM_COUNT; i++) {
        rank[i] = i;
        s[i] = -INFINITY;
        size_t k;
        const json_t *e;
        json_array_foreach(scores, k, e) {
            const char *name = json_string_value(json_object_get(e, "param"));
            const json_t *score = json_object_get(e, "score");
            if (name && !strcmp(name, pf_pa_param_name((pf_pa_param)i)) && json_is_number(score))
                s[i] = json_number_value(score);
        }
    }
    for (int i = 1; i < PF_PA_PARAM_COUNT; i++)
        for (int j = i; j > 0 && s[rank[j]] > s[rank[j - 1]]; j--) {
            int t = rank[j];
            rank[j] = rank[j - 1];
            rank[j - 1] = t;
        }
}

/* Move parameter i of c: a numeric to a neighbouring level, a categorical
 * to another value. */
static void step(pf_pa_config *c, int i, pf_rng *rng)
{
    int n = pf_pa_param_levels(i), k = c->level[i];
    if (pf_pa_param_categorical(i)) {
        c->level[i] = (k + 1 + (int)pf_rng_int(rng, (uint64_t)(n - 1))) % n;
        return;
    }
    int d = pf_rng_int(rng, 2) ? 1 : -1;
    if (k + d < 0 || k + d >= n) d = -d;
    c->level[i] = k + d;
}

static char *answer(const char *why, const pf_pa_config *c)
{
    json_t *o = pf_pa_config_json(c);
    char *js = o ? json_dumps(o, JSON_INDENT(2)) : NULL;
    json_decref(o);
    if (!js) return NULL;
    size_t cap = strlen(why) + strlen(js) + 64;
    char *out = malloc(cap);
    if (out) snprintf(out, cap, "%s\n\n```json\n%s\n```\n", why, js);
    free(js);
    return out;
}

enum { MAX_SEEN = 128 };

pf_status pf_off_pinnsagent(const json_t *cx, uint64_t seed, char **text)
{
    *text = NULL;
    const json_t *it = json_object_get(cx, "iteration"), *at = json_object_get(cx, "attempt");
    if (!json_is_integer(it)) return pf_fail(PF_ERR_INVALID, SELF ": the context has no \"iteration\"");
    int iter = (int)json_integer_value(it), attempt = json_is_integer(at) ? (int)json_integer_value(at) : 0;
    pf_pa_config rep[MAX_SEEN], done[MAX_SEEN];
    double rep_y[MAX_SEEN], done_y[MAX_SEEN];
    int nrep = configs(json_object_get(cx, "replay"), "config", rep, rep_y, MAX_SEEN);
    int ndone = configs(json_object_get(cx, "history"), "config", done, done_y, MAX_SEEN / 2);
    double tmp[MAX_SEEN];
    ndone += configs(json_object_get(cx, "rejected"), "config", done + ndone, tmp, MAX_SEEN / 2);
    /* the replayed configurations by MSE (stable) */
    int order[MAX_SEEN];
    for (int i = 0; i < nrep; i++) order[i] = i;
    for (int i = 1; i < nrep; i++)
        for (int j = i; j > 0 && rep_y[order[j]] < rep_y[order[j - 1]]; j--) {
            int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    char why[1024];
    if (iter == 0) {
        for (int r = attempt; r < nrep; r++)
            if (!seen(&rep[order[r]], done, ndone)) {
                snprintf(why, sizeof why,
                         "Iteration 1: the replayed configuration of the most similar known problem with the lowest "
                         "MSE (%.3g) is the starting point.", rep_y[order[r]]);
                return (*text = answer(why, &rep[order[r]])) ? PF_OK : pf_fail(PF_ERR_NOMEM, SELF ": out of memory");
            }
    }
    /* the base: the best of the history, else the best replayed one */
    pf_pa_config base;
    const json_t *best = json_object_get(json_object_get(cx, "best"), "config");
    if (pf_pa_config_read(best, &base, NULL, 0) != PF_OK) {
        if (!nrep) return pf_fail(PF_ERR_INVALID, SELF ": no best configuration and nothing replayed to start from");
        base = rep[order[0]];
    }
    int rank[PF_PA_PARAM_COUNT];
    ranking(json_object_get(cx, "scores"), rank);
    char tag[96];
    snprintf(tag, sizeof tag, "pinnsagent/iteration%d/attempt%d", iter, attempt);
    pf_rng *rng = pf_rng_alloc(pf_rng_derive(seed, tag));
    if (!rng) return pf_fail(PF_ERR_NOMEM, SELF ": out of memory");
    pf_pa_config c = base;
    int first = 0, second = -1;
    for (int t = 0; t < 64; t++) {
        c = base;
        first = rank[t % PF_PA_PARAM_COUNT];
        step(&c, first, rng);
        second = -1;
        if (pf_rng_int(rng, 2)) {
            second = rank[(t + 1) % PF_PA_PARAM_COUNT];
            step(&c, second, rng);
        }
        if (!seen(&c, done, ndone)) break;
    }
    pf_rng_free(rng);
    char a[32], b[32], a2[32], b2[32];
    int n = snprintf(why, sizeof why,
                     "Iteration %d: starting from the best configuration so far, the most important parameter by the "
                     "scores changes: %s %s -> %s",
                     iter + 1, pf_pa_param_name(first), pf_pa_config_value(&base, first, a, sizeof a),
                     pf_pa_config_value(&c, first, b, sizeof b));
    if (second >= 0 && n > 0 && (size_t)n < sizeof why)
        snprintf(why + n, sizeof why - (size_t)n, ", and %s %s -> %s", pf_pa_param_name(second),
                 pf_pa_config_value(&base, second, a2, sizeof a2), pf_pa_config_value(&c, second, b2, sizeof b2));
    strncat(why, "; the other parameters stay as they are.", sizeof why - strlen(why) - 1);
    return (*text = answer(why, &c)) ? PF_OK : pf_fail(PF_ERR_NOMEM, SELF ": out of memory");
}
