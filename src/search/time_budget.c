/* time_budget.c — a search's wall-clock budget: the limit rule and the cost
 * model (time_budget.h). */
#include "search/time_budget.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

pf_status pf_time_budget_parse(const char *text, long *seconds)
{
    *seconds = 0;
    if (!text || !*text) return pf_fail(PF_ERR_INVALID, "a time budget is empty (say 45m, 2h, 90s or 300)");
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    long unit = 1;
    if (end != text && *end && !end[1]) unit = *end == 's' ? 1 : *end == 'm' ? 60 : *end == 'h' ? 3600 : 0, end++;
    if (errno || end == text || *end || unit == 0 || v < 1 || v > 30L * 86400 / unit || (text[0] < '0' || text[0] > '9'))
        return pf_fail(PF_ERR_INVALID, "time budget '%s': want a whole number of seconds, minutes or hours, "
                                       "1 s to 30 days (45m, 2h, 90s or 300)", text);
    *seconds = v * unit;
    return PF_OK;
}

static int waves(int n, int jobs) { return n <= 0 ? 0 : (n + jobs - 1) / jobs; }

double pf_time_budget_limit(const pf_time_plan *p)
{
    int jobs = p->jobs > 0 ? p->jobs : 1;
    bool hifi = p->generation < 0;
    double share = p->top > 0 ? p->hifi_share : 0;
    double end = hifi ? p->budget_s : (1 - share) * p->budget_s;
    int w = 0;
    if (hifi) w = waves(p->top, jobs);
    else
        for (int g = p->generation; g < p->ngen && g < PF_TIME_BUDGET_MAX_GEN; g++) w += waves(p->slots[g], jobs);
    w -= (p->done > 0 ? p->done : 0) / jobs;
    if (w < 1) w = 1;
    double limit = PF_TIME_BUDGET_SAFETY * (end - p->elapsed_s) / w;
    return limit > PF_TIME_BUDGET_MIN_S ? limit : PF_TIME_BUDGET_MIN_S;
}

int pf_cost_streams(const int *orders, int d_in)
{
    int s = 1;
    for (int i = 0; i < d_in; i++) s += orders[i] > 0 ? orders[i] : 0;
    return s;
}

double pf_cost_work(double params, double points, int streams) { return params * points * streams; }

pf_cost_model pf_cost_fit(const double *work, const double *t, int n)
{
    double sx = 0, st = 0, sxx = 0, sxt = 0;
    int m = 0;
    for (int i = 0; i < n; i++) {
        if (!(isfinite(work[i]) && work[i] > 0 && isfinite(t[i]) && t[i] > 0)) continue;
        sx += work[i], st += t[i], sxx += work[i] * work[i], sxt += work[i] * t[i];
        m++;
    }
    if (m == 0) return (pf_cost_model){.c = PF_COST_DEFAULT_C};
    double den = m * sxx - sx * sx;
    if (m >= 2 && den > 1e-12 * m * sxx) {
        double c = (m * sxt - sx * st) / den, o = (st - c * sx) / m;
        if (c > 0 && o >= 0) return (pf_cost_model){.c = c, .overhead_s = o, .n = m};
    }
    return (pf_cost_model){.c = st / sx, .n = m};
}

double pf_cost_predict(const pf_cost_model *m, double work, long steps)
{
    return (double)steps * (m->c * work + m->overhead_s);
}

void pf_cost_prompt_line(const pf_cost_model *m, double left_s, double per_training_s, char *buf, size_t cap)
{
    snprintf(buf, cap,
             "Time budget: %.0f s of the search are left, about %.0f s for each training of this generation. "
             "This machine trains about %.3g parameter-point-steps per second (a step costs parameters x "
             "collocation points x (1 + derivative orders) / that, plus %.2g s): a design that would take "
             "longer is stopped at its limit and scored where it stopped.",
             left_s > 0 ? left_s : 0, per_training_s, 1 / m->c, m->overhead_s);
}
