/* progress_show.c — training progress on stderr (progress_show.h). */
#include "train/progress_show.h"

#include <stdio.h>
#include <unistd.h>

pf_progress_show pf_progress_show_init(int every)
{
    return (pf_progress_show){.bar = isatty(2) && !every, .every = every};
}

void pf_progress_show_event(const pf_train_progress *e, void *user)
{
    pf_progress_show *pr = user;
    if (pr->bar) {
        if (!e->last && e->elapsed_s - pr->shown < 0.2) return;
        pr->shown = e->elapsed_s;
        int w = 30, f = (int)(w * (double)e->step / e->total_steps);
        char bar[64];
        for (int i = 0; i < w; i++) bar[i] = i < f ? '#' : '.';
        bar[w] = 0;
        fprintf(stderr, "\rpf-train [%s] %ld/%ld loss %.3e %.0f steps/s%s", bar, e->step, e->total_steps, e->loss,
                e->steps_per_s, e->last ? "\n" : "");
        fflush(stderr);
        return;
    }
    long every = pr->every > 0 ? pr->every : e->total_steps / 10 > 0 ? e->total_steps / 10 : 1;
    if (!e->last && e->step % every) return;
    fprintf(stderr, "pf-train: step %ld/%ld loss %.4e %.1f steps/s %.1f s\n", e->step, e->total_steps, e->loss,
            e->steps_per_s, e->elapsed_s);
}
