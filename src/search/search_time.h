/*
 * search_time.h — where the wall time of a whole search went, from the
 * evidence of its trainings (make bench-search, bench/pf-bench-search.c).
 *
 * Each training's evidence.msgpack records its wall seconds, the CPU
 * seconds of its process over them and its start on the wall clock
 * (evidence.time: wall_s, cpu_s, started_unix; train/trainer.h). Laid on one
 * time line, the trainings of a search under a folder give:
 *
 *   train_s  the sum of their wall seconds
 *   cpu_s    the sum of their CPU seconds
 *   busy_s   the length of the union of their intervals [start, start + wall],
 *            clipped to a window [from, to] (the search's own start and end):
 *            the wall time during which at least one training was running.
 *
 * The search's time outside training (make, stage start-up, proposals,
 * selection, waiting) is then its wall time minus busy_s.
 *
 *     pf_search_time t;
 *     PF_TRY(pf_search_time_collect("build/bench/search-runs/darcy_quick", t0, t1, &t));
 *     printf("%d trainings, %.1f s\n", t.trainings, t.train_s);
 */
#ifndef PF_SEARCH_SEARCH_TIME_H
#define PF_SEARCH_SEARCH_TIME_H

#include <stddef.h>

#include "core/status.h"

typedef struct pf_search_time {
    int trainings;   /* evidence files of candidates trained in the window (an untrained
                        proposal has none of these times) */
    int earlier;     /* trainings that started before the window: left out of every sum */
    double train_s;  /* sum of their wall_s */
    double cpu_s;    /* sum of their cpu_s */
    double busy_s;   /* union of their intervals, clipped to [from, to] */
} pf_search_time;

/* The length of the union of the n intervals [lo[i], hi[i]] clipped to
 * [from, to]; an interval with hi < lo counts as empty. Sorts lo and hi
 * together, by lo, in place. */
double pf_interval_union(double *lo, double *hi, size_t n, double from, double to);

/* Every evidence.msgpack under root (any depth; links are not followed),
 * read through search/artifact.h, summed as above over [from, to] (seconds
 * since the epoch); a training that started before `from` (a file left from
 * an earlier make) is only counted in `earlier`. A trained candidate's evidence without time.wall_s,
 * time.cpu_s or time.started_unix (written before they were recorded) is
 * refused, naming the file; so is one that does not read. */
pf_status pf_search_time_collect(const char *root, double from, double to, pf_search_time *out);

#endif
