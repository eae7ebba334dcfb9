/*
 * test_pgkr.c — Physics-Guided Knowledge Replay (src/pinnsagent/pgkr.h):
 * burgers_1d's three neighbours in the released table (printed, and
 * asserted with their cosines and best rows), the target's own rows never
 * retrieved for any of our PDEs, ties in label order, the MSE > 1 drop
 * after the top k, an unlabelled target refused.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pinnsagent/pgkr.h"
#include "pinnsagent_fixture.h"
#include "registry.h"

Test(pgkr, burgers_1d_neighbours)
{
    pf_pa_db *db = shared_db();
    pf_pa_labels *ls = shared_labels();
    pf_pgkr_hit hit[PF_PGKR_K];
    int n;
    cr_assert_eq(pf_pgkr_retrieve(db, ls, "burgers_1d", PF_PGKR_K, hit, &n), PF_OK, "%s", pf_errmsg());
    for (int i = 0; i < n; i++) {
        const pf_pa_row *r = pf_pa_db_row(db, hit[i].best_row);
        char cfg[512];
        fprintf(stderr, "pgkr burgers_1d #%d: %s cosine %.4f mse %.10g (line %d) %s\n", i + 1,
                pf_pa_db_task(db, hit[i].task)->pde, hit[i].cosine, r->mse, r->line,
                pf_pa_row_format(r, cfg, sizeof cfg));
    }
    cr_assert_eq(n, 3);
    /* Burgers2D and KS differ from Burgers1D in two fields (8/10; Burgers2D first in pde_labels.tsv),
     * Heat2D_Multiscale in three (7/10; before Wave1D, also 7/10, in pde_labels.tsv) */
    static const struct {
        const char *pde;
        double cosine, mse;
        int line;
        const char *cfg;
    } want[3] = {
        {"burgers_2d", 0.8, 0.1650779481654788, 504,
         "activation=sin net=laaf optimizer=lbfgs lr=1e-05 width=140 depth=7 num_domain_points=6100 "
         "num_boundary_points=3100 num_initial_points=6100 initializer=Glorot uniform"},
        {"kuramoto_sivashinsky_1d", 0.8, 1.0, 1700,
         "activation=tanh net=laaf optimizer=multiadam lr=0.001 width=168 depth=4 num_domain_points=100 "
         "num_boundary_points=600 num_initial_points=2024 initializer=He uniform"},
        {"heat_2d_multiscale", 0.7, 8.650152949485346e-07, 1062,
         "activation=sin net=fnn optimizer=lbfgs lr=0.0001 width=124 depth=6 num_domain_points=8600 "
         "num_boundary_points=7600 num_initial_points=3100 initializer=He uniform"},
    };
    for (int i = 0; i < 3; i++) {
        const pf_pa_row *r = pf_pa_db_row(db, hit[i].best_row);
        char cfg[512];
        cr_assert_str_eq(pf_pa_db_task(db, hit[i].task)->pde, want[i].pde);
        cr_assert_float_eq(hit[i].cosine, want[i].cosine, 1e-15);
        cr_assert_eq(r->line, want[i].line);
        cr_assert_eq(r->mse, want[i].mse, "the value as written in the file");
        cr_assert_str_eq(pf_pa_row_format(r, cfg, sizeof cfg), want[i].cfg);
    }
    /* KS's best is exactly 1: kept (the rule drops MSE > 1) */
    cr_assert_eq(pf_pa_db_row(db, hit[1].best_row)->mse, 1.0);

    /* the full ranking goes on with Wave1D (0.7), GrayScott 6/sqrt(90), HeatND 7/sqrt(130) */
    pf_pgkr_hit all[17];
    cr_assert_eq(pf_pgkr_rank(db, ls, "burgers_1d", all, &n), PF_OK);
    cr_assert_eq(n, 16);
    cr_assert_str_eq(pf_pa_db_task(db, all[3].task)->pde, "wave_1d");
    cr_assert_str_eq(pf_pa_db_task(db, all[4].task)->pde, "gray_scott_2d");
    cr_assert_float_eq(all[4].cosine, 6 / sqrt(90), 1e-15);
    cr_assert_str_eq(pf_pa_db_task(db, all[5].task)->pde, "heat_5d");
    cr_assert_float_eq(all[5].cosine, 7 / sqrt(130), 1e-15);
    for (int i = 1; i < n; i++) cr_assert_geq(all[i - 1].cosine, all[i].cosine);
    pf_pa_db_free(db);
    pf_pa_labels_free(ls);
}

Test(pgkr, the_targets_own_rows_are_never_retrieved)
{
    pf_pa_db *db = shared_db();
    pf_pa_labels *ls = shared_labels();
    for (int p = 0; p < pf_pdes_count(); p++) {
        const char *name = pf_pdes_at(p)->name;
        pf_pgkr_hit all[17];
        int n;
        cr_assert_eq(pf_pgkr_rank(db, ls, name, all, &n), PF_OK, "%s: %s", name, pf_errmsg());
        int in_db = pf_pa_db_find(db, name) >= 0;
        cr_assert_eq(n, 17 - in_db, "%s: every other task is a candidate", name);
        for (int i = 0; i < n; i++) {
            cr_assert_str_neq(pf_pa_db_task(db, all[i].task)->pde, name);
            cr_assert_neq(pf_pa_db_row(db, all[i].best_row)->task, pf_pa_db_find(db, name));
        }
        pf_pgkr_hit hit[PF_PGKR_K];
        cr_assert_eq(pf_pgkr_retrieve(db, ls, name, PF_PGKR_K, hit, &n), PF_OK);
        cr_assert_leq(n, PF_PGKR_K);
        for (int i = 0; i < n; i++) {
            const pf_pa_row *r = pf_pa_db_row(db, hit[i].best_row);
            cr_assert_str_neq(pf_pa_db_task(db, r->task)->pde, name);
            cr_assert_leq(r->mse, PF_PGKR_MSE_MAX);
        }
    }
    pf_pa_db_free(db);
    pf_pa_labels_free(ls);
}

/* A table and labels of our own: four tasks, KS before Burgers2D in the table, after it in the labels. */
static const char *table =
    "task,run_time,mse,activation,net,optimizer,lr,width,depth,num_domain_points,num_boundary_points,"
    "num_initial_points,initializer,pde_list\n"
    "Burgers1D,1,0.001,tanh,fnn,adam,0.001,100,5,8192,2048,2024,Glorot normal,\n"
    "KuramotoSivashinskyEquation,1,0.5,tanh,fnn,adam,0.001,100,5,8192,2048,2024,Glorot normal,\n"
    "Burgers2D,1,3,tanh,fnn,adam,0.001,100,5,8192,2048,2024,Glorot normal,\n"
    "Burgers2D,1,2,sin,fnn,adam,0.001,100,5,8192,2048,2024,Glorot normal,\n"
    "Wave1D,1,0.25,tanh,fnn,adam,0.001,100,5,8192,2048,2024,Glorot normal,\n";
static const char *labels =
    "Burgers1D\tBurgers\tparabolic\t1d\tnonlinear\ttime-dependent\tdirichlet\tinitial-condition\tconstant-coefficient\tshort-time\tsimple-geometry\n"
    "Burgers2D\tBurgers\tparabolic\t2d\tnonlinear\ttime-dependent\tperiodic\tinitial-condition\tconstant-coefficient\tshort-time\tsimple-geometry\n"
    "Wave1D\tWave\thyperbolic\t1d\tlinear\ttime-dependent\tdirichlet\tinitial-condition\tconstant-coefficient\tshort-time\tsimple-geometry\n"
    "KuramotoSivashinskyEquation\tChaotic\tparabolic\t1d\tnonlinear\ttime-dependent\tperiodic\tinitial-condition\tconstant-coefficient\tshort-time\tsimple-geometry\n";

Test(pgkr, ties_keep_label_order_and_mse_above_1_is_dropped_after_the_top_k)
{
    char tpath[64], lpath[64], own[64];
    strcpy(tpath, temp_file("table", table));
    strcpy(lpath, temp_file("labels", labels));
    strcpy(own, temp_file("own", ""));
    pf_pa_db *db;
    pf_pa_labels *ls;
    cr_assert_eq(pf_pa_db_load(tpath, &db), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(pf_pa_labels_load(lpath, own, &ls), PF_OK, "%s", pf_errmsg());

    /* from burgers_1d: Burgers2D 0.8 and KS 0.8 in the order of the labels (KS comes first in
     * the table), then Wave1D 0.7 */
    pf_pgkr_hit all[4];
    int n;
    cr_assert_eq(pf_pgkr_rank(db, ls, "burgers_1d", all, &n), PF_OK);
    cr_assert_eq(n, 3);
    const char *order[3] = {"Burgers2D", "KuramotoSivashinskyEquation", "Wave1D"};
    const double cos[3] = {0.8, 0.8, 0.7};
    for (int i = 0; i < 3; i++) {
        cr_assert_str_eq(pf_pa_db_task(db, all[i].task)->name, order[i]);
        cr_assert_float_eq(all[i].cosine, cos[i], 1e-15);
    }
    cr_assert_eq(pf_pa_db_row(db, all[0].best_row)->line, 5, "Burgers2D's best, mse 2");

    /* top 2 = Burgers2D (best mse 2 > 1: dropped) and KS: one left, Wave1D does not move up */
    pf_pgkr_hit hit[2];
    cr_assert_eq(pf_pgkr_retrieve(db, ls, "burgers_1d", 2, hit, &n), PF_OK);
    cr_assert_eq(n, 1);
    cr_assert_str_eq(pf_pa_db_task(db, hit[0].task)->name, "KuramotoSivashinskyEquation");
    cr_assert_eq(pf_pgkr_retrieve(db, ls, "burgers_1d", 3, (pf_pgkr_hit[3]){0}, &n), PF_OK);
    cr_assert_eq(n, 2);

    /* an unlabelled target */
    cr_assert_eq(pf_pgkr_retrieve(db, ls, "poisson_5d", 2, hit, &n), PF_ERR_INVALID);
    cr_assert_str_eq(pf_errmsg(), "PDE 'poisson_5d' has no PINNsAgent labels");
    pf_pa_db_free(db);
    pf_pa_labels_free(ls);
    unlink(tpath);
    unlink(lpath);
    unlink(own);
}
