/* backbone_mix.c — UCB1 over a mixture of backbones (backbone_mix.h). */
#include "search/backbone_mix.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "search/artifact.h"

double pf_mix_reward(bool valid, bool has_y, double y, double median)
{
    if (!valid || !has_y || !(y > 0) || !isfinite(y) || !(median > 0) || !isfinite(median)) return 0;
    double r = 0.5 + 0.5 * log10(median / y);
    return r < 0 ? 0 : r > 1 ? 1 : r;
}

int pf_mix_ucb1(pf_mix_arm *arms, int n, uint64_t seed, int g, int k, int *ties)
{
    int total = 0;
    for (int i = 0; i < n; i++) total += arms[i].pulls + arms[i].pending;
    double best = -INFINITY;
    for (int i = 0; i < n; i++) {
        pf_mix_arm *a = &arms[i];
        int ni = a->pulls + a->pending;
        a->mean = a->pulls ? a->reward / a->pulls : 0;
        a->ucb = ni ? a->mean + sqrt(2 * log((double)total) / ni) : INFINITY;
        if (a->ucb > best) best = a->ucb;
    }
    int at[PF_LLM_MIX_MAX], nt = 0;
    for (int i = 0; i < n && nt < PF_LLM_MIX_MAX; i++)
        if (arms[i].ucb == best) at[nt++] = i;
    if (ties) *ties = nt;
    if (nt == 1) return at[0];
    char tag[64];
    snprintf(tag, sizeof tag, "backbone-mix/%d/%d", g, k);
    pf_rng *rng = pf_rng_alloc(pf_rng_derive(seed, tag));
    int pick = rng ? at[pf_rng_int(rng, (uint64_t)nt)] : at[0];
    pf_rng_free(rng);
    return pick;
}

int pf_mix_allocate(pf_mix_arm *arms, int n, uint64_t seed, int g, int k, int *ties)
{
    for (int j = 0;; j++) {
        int a = pf_mix_ucb1(arms, n, seed, g, j, ties);
        if (j == k) return a;
        arms[a].pending++;
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One earlier generation h: each slot's backbone, validity and MSE, then
 * the rewards against the generation's median. */
static pf_status history_gen(const char *dir, pf_method m, int h, pf_mix_arm *arms, int n)
{
    int slots = pf_run_slots(m, h), arm[PF_RUN_MAX_SLOTS], nys = 0;
    bool valid[PF_RUN_MAX_SLOTS], has_y[PF_RUN_MAX_SLOTS];
    double y[PF_RUN_MAX_SLOTS], ys[PF_RUN_MAX_SLOTS];
    char path[4096];
    for (int k = 0; k < slots; k++) {
        pf_proposal_file f;
        pf_evidence_file e;
        PF_TRY(pf_run_path(dir, PF_RUN_PROPOSAL, h, k, path, sizeof path));
        PF_TRY(pf_proposal_file_read(path, &f));
        arm[k] = -1;
        for (int i = 0; i < n && !f.skipped; i++)
            if (strcmp(f.call.backbone, arms[i].name) == 0) arm[k] = i;
        valid[k] = f.call.valid;
        pf_proposal_file_release(&f);
        PF_TRY(pf_run_path(dir, PF_RUN_EVIDENCE, h, k, path, sizeof path));
        PF_TRY(pf_evidence_file_read(path, &e));
        has_y[k] = e.has_y && isfinite(e.y);
        y[k] = e.y;
        if (has_y[k]) ys[nys++] = e.y;
        pf_evidence_file_release(&e);
    }
    double median = NAN;
    if (nys) {
        qsort(ys, (size_t)nys, sizeof *ys, cmp_double);
        median = nys % 2 ? ys[nys / 2] : 0.5 * (ys[nys / 2 - 1] + ys[nys / 2]);
    }
    for (int k = 0; k < slots; k++) {
        if (arm[k] < 0) continue; /* skipped, or a backbone outside the mixture */
        arms[arm[k]].pulls++;
        arms[arm[k]].reward += pf_mix_reward(valid[k], has_y[k], y[k], median);
    }
    return PF_OK;
}

pf_status pf_mix_history(const char *dir, pf_method m, int g, pf_mix_arm *arms, int n)
{
    for (int i = 0; i < n; i++) arms[i].pulls = 0, arms[i].reward = 0, arms[i].pending = 0;
    for (int h = 0; h < g; h++) PF_TRY(history_gen(dir, m, h, arms, n));
    return PF_OK;
}

pf_status pf_mix_draw_slot(const pf_run *r, const pf_llm_mix *mix, int g, int k, pf_mix_draw *d)
{
    memset(d, 0, sizeof *d);
    d->n = mix->n;
    for (int i = 0; i < mix->n; i++) snprintf(d->arms[i].name, sizeof d->arms[i].name, "%s", mix->arm[i]->name);
    PF_TRY(pf_mix_history(r->dir, r->method, g, d->arms, d->n));
    d->arm = pf_mix_allocate(d->arms, d->n, (uint64_t)r->run, g, k, &d->ties);
    d->total = 0;
    for (int i = 0; i < d->n; i++) d->total += d->arms[i].pulls + d->arms[i].pending;
    return PF_OK;
}

json_t *pf_mix_draw_json(const pf_mix_draw *d)
{
    const pf_mix_arm *c = &d->arms[d->arm];
    char reason[512];
    int n = c->pulls + c->pending;
    if (!n)
        snprintf(reason, sizeof reason, "%s is untried (UCB1 tries every arm first)%s", c->name,
                 d->ties > 1 ? "; a seeded draw among the untried arms" : "");
    else
        snprintf(reason, sizeof reason, "%s has the highest UCB1 value %.6g = mean %.6g + sqrt(2 ln %d / %d)%s",
                 c->name, c->ucb, c->mean, d->total, n, d->ties > 1 ? "; a seeded draw among the tied arms" : "");
    json_t *arms = json_array();
    for (int i = 0; i < d->n; i++) {
        const pf_mix_arm *a = &d->arms[i];
        json_array_append_new(arms, json_pack("{s:s, s:i, s:f, s:i, s:f, s:o}", "name", a->name, "pulls", a->pulls,
                                              "reward", a->reward, "pending", a->pending, "mean", a->mean, "ucb",
                                              isfinite(a->ucb) ? json_real(a->ucb) : json_null()));
    }
    return json_pack("{s:s, s:s, s:s, s:i, s:i, s:o}", "rule", "ucb1", "chosen", c->name, "reason", reason, "total",
                     d->total, "ties", d->ties, "arms", arms);
}

pf_status pf_mix_provider(const pf_run *r, int g, int k, pf_llm_options *o, pf_llm_provider **out, pf_mix_draw *d)
{
    *out = NULL;
    memset(d, 0, sizeof *d);
    PF_TRY(pf_run_options(r, NULL, o));
    if (o->mix && o->kind == PF_LLM_OFFLINE)
        return pf_fail(PF_ERR_INVALID, "BACKBONE=%s asks backbones, but the run's proposer is offline: use "
                       "LLM=http (or LLM=replay to replay a mixture)", o->mix);
    if (o->mix) {
        pf_llm_backbones *t;
        pf_llm_mix mix;
        PF_TRY(pf_llm_backbones_load(NULL, &t));
        pf_status st = pf_llm_mix_parse(t, o->mix, &mix);
        if (st == PF_OK) st = pf_mix_draw_slot(r, &mix, g, k, d);
        pf_llm_backbones_free(t);
        PF_TRY(st);
        PF_TRY(pf_run_options(r, d->arms[d->arm].name, o));
    }
    return pf_llm_provider_alloc(o, out);
}
