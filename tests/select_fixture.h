/*
 * select_fixture.h — real genGG/select.msgpack files for tests that read
 * runs (the statistics, the plots): the controller (search/select.h) run
 * over a list of candidates, so every file is one pf-select could have
 * written, and pf_select_read accepts it.
 *
 *     static const fixture_cand c[] = {{0, 0, "ok", 0.5}, {0, 1, "nan", 0.1}, {1, 0, "ok", 0.05}};
 *     write_selections("runs/x/pinnforge/run0", c, 3, 2, 3);  // gen00, gen01 (stop), gen02 skipped copy
 */
#ifndef PF_TESTS_SELECT_FIXTURE_H
#define PF_TESTS_SELECT_FIXTURE_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "io/msgpack_json.h"
#include "search/artifact.h"
#include "search/select.h"

typedef struct fixture_cand {
    int g, k;
    const char *status; /* ok, nan, diverged, timeout */
    double y;           /* < 0: no y */
} fixture_cand;

/* Selections of generations 0..last (the candidates' last generation)
 * under max_generations, each written to run/genGG/select.msgpack; then
 * skipped copies for generations last+1..skip_to (the last selection must
 * have stopped). */
static inline void write_selections(const char *run, const fixture_cand *c, int n, int max_generations, int skip_to)
{
    pf_select *prev = NULL;
    int last = c[n - 1].g;
    char path[1100];
    for (int g = 0; g <= skip_to; g++) {
        snprintf(path, sizeof path, "%s/gen%02d", run, g);
        cr_assert_eq(pf_mkdirs(path), PF_OK, "%s", pf_errmsg());
        snprintf(path, sizeof path, "%s/gen%02d/select.msgpack", run, g);
        if (g > last) {
            cr_assert_eq(prev->next, PF_SELECT_STOP, "a skipped copy follows a stop");
            prev->skipped = true;
            prev->skipped_generation = g;
            cr_assert_eq(pf_select_write(path, prev), PF_OK, "%s", pf_errmsg());
            continue;
        }
        pf_candidate gen[32];
        int m = 0;
        for (int i = 0; i < n; i++) {
            if (c[i].g != g) continue;
            pf_candidate *x = &gen[m++];
            *x = (pf_candidate){.generation = g, .index = c[i].k, .valid = true, .has_y = c[i].y >= 0,
                                .y = c[i].y >= 0 ? c[i].y : 0};
            x->status = (pf_candidate_status)pf_candidate_status_lookup(c[i].status);
            snprintf(x->slot, sizeof x->slot, "gen%02d/s%d", g, c[i].k);
            snprintf(x->spec_hash, sizeof x->spec_hash, "%064x", (unsigned)(100 * g + c[i].k + 1));
        }
        pf_select *s;
        cr_assert_eq(pf_select_step(prev, gen, m, g, max_generations, "burgers_1d", "pinnforge", &s), PF_OK, "%s",
                     pf_errmsg());
        cr_assert_eq(pf_select_write(path, s), PF_OK, "%s", pf_errmsg());
        pf_select_free(prev);
        prev = s;
    }
    pf_select_free(prev);
}

#endif
