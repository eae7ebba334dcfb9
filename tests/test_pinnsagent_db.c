/*
 * test_pinnsagent_db.c — PINNsAgent's knowledge base (src/pinnsagent/db.h):
 * the released CSV (3,872 rows, 17 tasks, exact repeats kept, the point
 * counts it lacks), its SHA-256 check, malformed lines named by file and
 * line number, quoting, the task names mapped to ours, the best row.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pinnsagent_fixture.h"

static const char *header =
    "task,run_time,mse,train_loss,l2rel,mxe,crmse,activation,net,optimizer,loss_weight,width,depth,lr,"
    "num_domain_points,num_boundary_points,num_initial_points,initializer,iter,pde_list\n";

/* header + body as a CSV; the status of loading it, the db freed. */
static pf_status load_text(const char *body, char *path_out)
{
    char *text = malloc(strlen(header) + strlen(body) + 1);
    cr_assert_not_null(text);
    strcpy(text, header);
    strcat(text, body);
    strcpy(path_out, temp_file("db", text));
    free(text);
    pf_pa_db *db = NULL;
    pf_status st = pf_pa_db_load(path_out, &db);
    pf_pa_db_free(db);
    return st;
}

static const char *row_ok = "Burgers1D,10.5,0.25,1,1,1,1,tanh,fnn,adam,none,100,5,0.001,8192,2048,2024,Glorot normal,20000,\n";

Test(pa_db, shared_file_has_3872_rows_and_17_tasks)
{
    pf_pa_db *db = shared_db();
    cr_assert_eq(pf_pa_db_row_count(db), 3872);
    cr_assert_eq(pf_pa_db_task_count(db), 17);
    int sum = 0;
    for (int t = 0; t < 17; t++) {
        const pf_pa_task *k = pf_pa_db_task(db, t);
        cr_assert_not_null(k->pde, "%s maps to one of our PDEs", k->name);
        cr_assert_eq(pf_pa_db_find(db, k->pde), t);
        sum += k->nrows;
    }
    cr_assert_eq(sum, 3872);
    /* the release's counts (docs/baselines.md): Burgers1D 369 rows ... KS 136 */
    cr_assert_eq(pf_pa_db_task(db, pf_pa_db_find(db, "burgers_1d"))->nrows, 369);
    cr_assert_eq(pf_pa_db_task(db, pf_pa_db_find(db, "KuramotoSivashinskyEquation"))->nrows, 136);
    cr_assert_eq(pf_pa_db_find(db, "Wave2D_LongTime"), -1, "the released table has no Wave2D_LongTime rows");

    /* line 2: Burgers1D,1140.0,0.838,...,swish,fnn,multiadam,none,100,5,0.001,8192,2048,2024,Glorot normal */
    const pf_pa_row *r = pf_pa_db_row(db, 0);
    cr_assert_eq(r->line, 2);
    cr_assert_str_eq(pf_pa_db_task(db, r->task)->name, "Burgers1D");
    cr_assert_eq(r->run_time, 1140.0);
    cr_assert_eq(r->mse, 0.838);
    char cfg[512];
    cr_assert_str_eq(pf_pa_row_format(r, cfg, sizeof cfg),
                     "activation=swish net=fnn optimizer=multiadam lr=0.001 width=100 depth=5 "
                     "num_domain_points=8192 num_boundary_points=2048 num_initial_points=2024 "
                     "initializer=Glorot normal");
    /* point counts the file replaced by the task list: 168 + 82 + 108 values, on 340 rows */
    int missing[3] = {0}, rows = 0;
    for (int i = 0; i < 3872; i++) {
        const double *v = pf_pa_db_row(db, i)->value;
        int any = 0;
        for (int c = 0; c < 3; c++)
            if (isnan(v[PF_PA_DOMAIN_POINTS + c])) missing[c]++, any = 1;
        rows += any;
    }
    cr_assert_eq(missing[0], 168);
    cr_assert_eq(missing[1], 82);
    cr_assert_eq(missing[2], 108);
    cr_assert_eq(rows, 340);
    pf_pa_db_free(db);
}

Test(pa_db, exact_repeats_are_kept)
{
    /* lines 4 and 5 of the released file are one run logged twice */
    pf_pa_db *db = shared_db();
    const pf_pa_row *a = pf_pa_db_row(db, 2), *b = pf_pa_db_row(db, 3);
    cr_assert_eq(a->line, 4);
    cr_assert_eq(b->line, 5);
    cr_assert_eq(a->mse, 0.002527241170871);
    cr_assert_eq(b->mse, a->mse);
    cr_assert_eq(memcmp(a->value, b->value, sizeof a->value), 0);
    cr_assert_eq(a->run_time, 1154.056998);
    cr_assert_eq(b->run_time, 1450.919224);
    pf_pa_db_free(db);

    /* and in a file of our own: three identical lines, three rows */
    char path[64], body[512];
    snprintf(body, sizeof body, "%s%s%s", row_ok, row_ok, row_ok);
    cr_assert_eq(load_text(body, path), PF_OK, "%s", pf_errmsg());
    pf_pa_db *d = NULL;
    cr_assert_eq(pf_pa_db_load(path, &d), PF_OK);
    cr_assert_eq(pf_pa_db_row_count(d), 3);
    cr_assert_eq(pf_pa_db_task(d, 0)->nrows, 3);
    pf_pa_db_free(d);
    unlink(path);
}

Test(pa_db, malformed_line_is_named_by_its_number)
{
    pf_pa_db *db = (pf_pa_db *)1;
    cr_assert_eq(pf_pa_db_load(PA_FIXTURES "/malformed.csv", &db), PF_ERR_INVALID);
    cr_assert_null(db);
    cr_assert_str_eq(pf_errmsg(), PA_FIXTURES "/malformed.csv:4: width: 'wide' is not an integer");
}

Test(pa_db, every_malformation_has_its_file_line_message)
{
    static const struct {
        const char *body, *msg; /* msg follows "<path>:3: " */
    } cases[] = {
        {"Burgers1D,10.5,0.25,1,1,1,1,tanh,fnn,adam,none,100,5,0.001,8192,2048\n", "16 fields, the header has 20"},
        {"Burgers1D,10.5,0.25,1,1,1,1,softsign,fnn,adam,none,100,5,0.001,8192,2048,2024,Glorot normal,20000,\n",
         "activation 'softsign' is unknown; allowed: elu, selu, sigmoid, silu, relu, tanh, swish, sin, gaussian"},
        {"Burgers1D,10.5,0.25,1,1,1,1,tanh,fnn,adam,none,100,5,0.001,8192,2048,2024,glorot,20000,\n",
         "initializer 'glorot' is unknown; allowed: Glorot normal, Glorot uniform, He normal, He uniform, zeros"},
        {"Burgers1D,10.5,abc,1,1,1,1,tanh,fnn,adam,none,100,5,0.001,8192,2048,2024,Glorot normal,20000,\n",
         "mse 'abc' is not a finite number"},
        {"Burgers1D,10.5,-1,1,1,1,1,tanh,fnn,adam,none,100,5,0.001,8192,2048,2024,Glorot normal,20000,\n",
         "mse -1 must be >= 0"},
        {"Burgers1D,10.5,nan,1,1,1,1,tanh,fnn,adam,none,100,5,0.001,8192,2048,2024,Glorot normal,20000,\n",
         "mse 'nan' is not a finite number"},
        {"Burgers1D,10.5,0.25,1,1,1,1,tanh,fnn,adam,none,100,5,0,8192,2048,2024,Glorot normal,20000,\n",
         "lr 0 must be > 0"},
        {"Burgers1D,10.5,0.25,1,1,1,1,tanh,fnn,adam,none,0,5,0.001,8192,2048,2024,Glorot normal,20000,\n",
         "width: '0' is outside 1..1000000000"},
        {"Burgers1D,10.5,0.25,1,1,1,1,tanh,fnn,adam,none,100,5,0.001,8192,['Wave1D'],2024,Glorot normal,20000,"
         "['Burgers1D']\n",
         "num_boundary_points: '['Wave1D']' is not an integer"},
        {",10.5,0.25,1,1,1,1,tanh,fnn,adam,none,100,5,0.001,8192,2048,2024,Glorot normal,20000,\n", "the task is empty"},
        {"\n", "empty line"},
        {"Burgers1D,10.5,0.25,1,1,1,1,tanh,fnn,adam,none,100,5,0.001,8192,2048,2024,Glorot normal,20000,\"['a'\n",
         "a quoted field is not closed on its line"},
        {"Burgers1D,10.5,0.25,1,1,1,1,tanh,fnn,adam,none,100,5,0.001,8192,2048,2024,Glorot normal,20000,\"x\"y\n",
         "text after the closing quote of a field"},
        {"Burgers1D,10.5,0.25,1,1,1,1,tanh,fnn,adam,none,100,5,0.001,8192,2048,2024,Glorot normal,20000,x\"y\n",
         "a quote inside an unquoted field"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char path[64], want[512];
        /* a good row first, so the bad one is line 3 */
        char body[1024];
        snprintf(body, sizeof body, "%s%s", row_ok, cases[i].body);
        cr_assert_eq(load_text(body, path), PF_ERR_INVALID, "case %zu", i);
        snprintf(want, sizeof want, "%s:3: %s", path, cases[i].msg);
        cr_assert_str_eq(pf_errmsg(), want, "case %zu", i);
        unlink(path);
    }
}

Test(pa_db, header_problems_name_line_1)
{
    char path[64];
    strcpy(path, temp_file("hdr", "task,run_time,mse,activation,net,optimizer,lr,width,depth,num_domain_points,"
                                  "num_boundary_points,num_initial_points,pde_list\n"));
    pf_pa_db *db;
    cr_assert_eq(pf_pa_db_load(path, &db), PF_ERR_INVALID);
    char want[256];
    snprintf(want, sizeof want, "%s:1: the header lacks the column 'initializer'", path);
    cr_assert_str_eq(pf_errmsg(), want);
    unlink(path);

    strcpy(path, temp_file("hdr", "task,mse,mse\n"));
    cr_assert_eq(pf_pa_db_load(path, &db), PF_ERR_INVALID);
    snprintf(want, sizeof want, "%s:1: column 'mse' appears twice in the header", path);
    cr_assert_str_eq(pf_errmsg(), want);
    unlink(path);

    cr_assert_eq(load_text("", path), PF_ERR_INVALID);
    snprintf(want, sizeof want, "%s: a header and no rows", path);
    cr_assert_str_eq(pf_errmsg(), want);
    unlink(path);

    cr_assert_eq(pf_pa_db_load("/nonexistent/x.csv", &db), PF_ERR_IO);
    cr_assert_str_eq(pf_errmsg(), "cannot read '/nonexistent/x.csv': No such file or directory");
}

Test(pa_db, quoted_fields_and_missing_point_counts)
{
    pf_pa_db *db = fixture_db("memtree.csv");
    cr_assert_eq(pf_pa_db_row_count(db), 12);
    /* line 3: num_boundary_points and pde_list are both "['Burgers1D', 'Wave1D']", quoted (a comma inside) */
    const pf_pa_row *r = pf_pa_db_row(db, 1);
    cr_assert_eq(r->line, 3);
    cr_assert(isnan(r->value[PF_PA_BOUNDARY_POINTS]));
    cr_assert_eq(r->value[PF_PA_INITIAL_POINTS], 7600);
    cr_assert_eq(r->mse, 1e-9);
    char cfg[512];
    /* line 7: two counts missing */
    cr_assert_str_eq(pf_pa_row_format(pf_pa_db_row(db, 5), cfg, sizeof cfg),
                     "activation=sin net=laaf optimizer=adam lr=0.001 width=96 depth=5 num_domain_points=600 "
                     "num_boundary_points=? num_initial_points=? initializer=Glorot normal");
    cr_assert_eq(pf_pa_db_row(db, 6)->value[PF_PA_LR], 1e-4);
    cr_assert_eq(pf_pa_db_row(db, 11)->value[PF_PA_INITIALIZER], 4, "zeros is initializer value 4");
    cr_assert_str_eq(pf_pa_value_name(PF_PA_INITIALIZER, 4), "zeros");
    pf_pa_db_free(db);
}

Test(pa_db, task_names_map_to_ours)
{
    static const char *const pairs[][2] = {
        {"Burgers1D", "burgers_1d"}, {"PoissonND", "poisson_5d"}, {"HeatND", "heat_5d"},
        {"NS2D_LidDriven", "navier_stokes_2d_classic"}, {"GrayScottEquation", "gray_scott_2d"},
        {"KuramotoSivashinskyEquation", "kuramoto_sivashinsky_1d"}, {"Heat2D_VaryingCoef", "heat_2d_varying_coefficient"},
    };
    for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++) cr_assert_str_eq(pf_pa_task_pde(pairs[i][0]), pairs[i][1]);
    cr_assert_null(pf_pa_task_pde("Wave2D_LongTime"));
    cr_assert_null(pf_pa_task_pde("burgers_1d"));

    /* a Wave2D_LongTime row is kept, under a task that is none of ours */
    char path[64], body[512];
    snprintf(body, sizeof body, "%sWave2D_LongTime,1,0.5,1,1,1,1,sin,gaaf,lbfgs,none,64,3,0.01,100,100,100,He normal,20000,\n",
             row_ok);
    cr_assert_eq(load_text(body, path), PF_OK, "%s", pf_errmsg());
    pf_pa_db *db;
    cr_assert_eq(pf_pa_db_load(path, &db), PF_OK);
    cr_assert_eq(pf_pa_db_task_count(db), 2);
    int t = pf_pa_db_find(db, "Wave2D_LongTime");
    cr_assert_eq(t, 1);
    cr_assert_null(pf_pa_db_task(db, t)->pde);
    cr_assert_eq(pf_pa_db_task(db, t)->nrows, 1);
    pf_pa_db_free(db);
    unlink(path);
}

Test(pa_db, best_row_is_the_lowest_mse_then_the_earliest_line)
{
    char path[64];
    const char *body = "Burgers1D,1,0.5,1,1,1,1,tanh,fnn,adam,none,100,5,0.001,8192,2048,2024,Glorot normal,20000,\n"
                       "Wave1D,1,0.01,1,1,1,1,tanh,fnn,adam,none,100,5,0.001,8192,2048,2024,Glorot normal,20000,\n"
                       "Burgers1D,2,0.125,1,1,1,1,sin,fnn,adam,none,100,5,0.001,8192,2048,2024,Glorot normal,20000,\n"
                       "Burgers1D,3,0.125,1,1,1,1,relu,fnn,adam,none,100,5,0.001,8192,2048,2024,Glorot normal,20000,\n";
    cr_assert_eq(load_text(body, path), PF_OK, "%s", pf_errmsg());
    pf_pa_db *db;
    cr_assert_eq(pf_pa_db_load(path, &db), PF_OK);
    const pf_pa_row *best = pf_pa_db_row(db, pf_pa_db_best_row(db, 0));
    cr_assert_eq(best->line, 4, "0.125 on lines 4 and 5: the earlier wins");
    cr_assert_eq(pf_pa_db_best_row(db, 1), 1);
    pf_pa_db_free(db);
    unlink(path);
}

Test(pa_db, another_file_is_refused_by_its_sha256)
{
    char dir[] = "/tmp/pf_pa_dir_XXXXXX", path[128];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/" PF_PA_DB_FILE, dir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fprintf(f, "%s%s", header, row_ok);
    fclose(f);
    setenv(PF_PA_DIR_ENV, dir, 1);
    pf_pa_db *db = NULL;
    cr_assert_eq(pf_pa_db_open(&db), PF_ERR_IO);
    cr_assert_null(db);
    char want[512];
    snprintf(want, sizeof want,
             "'%s' is not PINNsAgent's released dataset_for_retrieval.csv (its SHA-256 is ", path);
    cr_assert_eq(strncmp(pf_errmsg(), want, strlen(want)), 0, "%s", pf_errmsg());
    cr_assert(strstr(pf_errmsg(), "the release's is e158dc3c83ae4876...") != NULL, "%s", pf_errmsg());
    cr_assert_eq(pf_pa_db_load(path, &db), PF_OK, "the same file loads without the check");
    pf_pa_db_free(db);
    unlink(path);
    rmdir(dir);
}

Test(pa_db, a_missing_folder_says_where_it_looked)
{
    setenv(PF_PA_DIR_ENV, "/nonexistent/pa", 1);
    cr_assert_str_eq(pf_pa_dir(), "/nonexistent/pa");
    pf_pa_db *db;
    cr_assert_eq(pf_pa_db_open(&db), PF_ERR_IO);
    cr_assert_str_eq(pf_errmsg(), "PINNsAgent file 'dataset_for_retrieval.csv' not found in '/nonexistent/pa' "
                                  "(PF_PINNSAGENT_DIR): No such file or directory; run `make data`, or set "
                                  "PF_PINNSAGENT_DIR to the folder with PINNsAgent's files");
    unsetenv(PF_PA_DIR_ENV);
    cr_assert_str_eq(pf_pa_dir(), PF_PA_DIR_DEFAULT);
}
