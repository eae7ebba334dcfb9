/*
 * progress_show.h — the trainer's progress events (trainer.h) shown on
 * stderr, as pf-train shows them: a bar redrawn at most every 0.2 s when
 * stderr is a terminal and no line interval was asked for, else a line
 * every `every` steps (0: a tenth of the run); either way once more at the
 * end. The trainer reports every step; what is shown is decided here.
 *
 *     pf_progress_show pr = pf_progress_show_init(every);
 *     o.on_progress = pf_progress_show_event;
 *     o.progress_user = &pr;
 */
#ifndef PF_TRAIN_PROGRESS_SHOW_H
#define PF_TRAIN_PROGRESS_SHOW_H

#include <stdbool.h>

#include "train/trainer.h"

typedef struct pf_progress_show {
    bool bar;
    int every;
    double shown; /* elapsed_s when the bar was last drawn */
} pf_progress_show;

/* A bar when stderr is a terminal and every is 0, else lines. */
pf_progress_show pf_progress_show_init(int every);

/* The pf_train_progress_fn; user is a pf_progress_show. */
void pf_progress_show_event(const pf_train_progress *e, void *user);

#endif
