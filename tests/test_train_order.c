/*
 * test_train_order.c — search/train_order.h: the longest-first order (ties
 * and unknown predictions by slot, the same every time), the cost model
 * fitted to the earlier generations' evidence only, the plan read back
 * (and refused, naming the file, when it is not one), make's rule for a
 * training to be done, to the nanosecond, and a failure read from the
 * launcher's record.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "search/artifact.h"
#include "search/launch_record.h"
#include "search/run.h"
#include "search/train_order.h"

static char root[64];

static void setup(void)
{
    snprintf(root, sizeof root, "/tmp/pf_order_XXXXXX");
    cr_assert_not_null(mkdtemp(root));
}

static void teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    cr_expect_eq(system(cmd), 0);
}

TestSuite(train_order, .init = setup, .fini = teardown, .timeout = 20);

static void assert_order(const double *p, int n, const int *want)
{
    int got[16];
    for (int rep = 0; rep < 2; rep++) { /* the same answer every time */
        memset(got, 0xff, sizeof got);
        pf_train_order(p, n, got);
        for (int i = 0; i < n; i++) cr_assert_eq(got[i], want[i], "rank %d: slot %d, wanted %d", i, got[i], want[i]);
    }
}

Test(train_order, longest_first_ties_by_slot)
{
    assert_order((double[]){3, 9, 1, 9, 5}, 5, (int[]){1, 3, 4, 0, 2});
    assert_order((double[]){2, 2, 2, 2, 2, 2, 2, 2}, 8, (int[]){0, 1, 2, 3, 4, 5, 6, 7});
    /* not a number (an untrained slot is 0): last, in slot order */
    assert_order((double[]){NAN, 0, 4, INFINITY, 0.5, NAN}, 6, (int[]){2, 4, 1, 0, 3, 5});
    assert_order((double[]){1e-3, 7e2, 7e2 + 1e-9}, 3, (int[]){2, 1, 0});
    assert_order((double[]){0}, 1, (int[]){0});
}

/* root/run with a context.json of a smoke pinnforge run of poisson_5d */
static void open_run(pf_run *r)
{
    char dir[256], path[300];
    snprintf(dir, sizeof dir, "%s/run0", root);
    cr_assert_eq(mkdir(dir, 0755), 0);
    snprintf(path, sizeof path, "%s/context.json", dir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs("{\"pde\": \"poisson_5d\", \"method\": \"pinnforge\", \"run\": 0, \"budget\": \"smoke\", \"llm\": \"offline\"}\n",
          f);
    fclose(f);
    cr_assert_eq(pf_run_open(dir, r), PF_OK, "%s", pf_errmsg());
}

static void mkdirs_of(const pf_run *r, int g, int k)
{
    char path[4200], cmd[4300];
    cr_assert_eq(pf_run_path(r->dir, PF_RUN_CANDIDATE, g, k, path, sizeof path), PF_OK);
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", path);
    cr_assert_eq(system(cmd), 0);
}

/* the evidence of training (g, k): `steps` steps in steps_s seconds of work w
 * (w 0: an evidence from before the cost model, without time.work) */
static void evidence(const pf_run *r, int g, int k, double w, long steps, double steps_s)
{
    mkdirs_of(r, g, k);
    char path[4200];
    cr_assert_eq(pf_run_path(r->dir, PF_RUN_EVIDENCE, g, k, path, sizeof path), PF_OK);
    pf_evidence_file e = {.has_y = true, .y = 1e-3, .status = "ok", .pde = "poisson_5d", .fidelity = "low",
                          .budget = "smoke", .seed = 1};
    json_t *time = json_pack("{s:f, s:f}", "wall_s", steps_s + 0.5, "steps_s", steps_s);
    if (w > 0) json_object_set_new(time, "work", json_real(w));
    e.evidence = json_pack("{s:I, s:o}", "steps", (json_int_t)steps, "time", time);
    cr_assert_eq(pf_evidence_file_write(path, &e), PF_OK, "%s", pf_errmsg());
    json_decref(e.evidence);
}

Test(train_order, the_cost_model_is_fitted_to_the_earlier_generations)
{
    pf_run r;
    open_run(&r);
    pf_cost_model m;
    cr_assert_eq(pf_cost_calibrate(&r, 0, &m), PF_OK, "%s", pf_errmsg());
    cr_assert(m.n == 0 && m.c == PF_COST_DEFAULT_C && m.overhead_s == 0, "generation 0: the default");
    /* seconds/step = 2e-9 * work + 1e-3 in generations 0 and 1 */
    for (int k = 0; k < 8; k++) evidence(&r, 0, k, 1e6 * (k + 1), 100, 100 * (2e-9 * 1e6 * (k + 1) + 1e-3));
    for (int k = 0; k < 5; k++) evidence(&r, 1, k, 3e6 * (k + 1), 50, 50 * (2e-9 * 3e6 * (k + 1) + 1e-3));
    evidence(&r, 1, 4, 0, 50, 99); /* no work recorded: left out */
    /* generation 2's own trainings (and later ones) never count */
    evidence(&r, 2, 0, 1e6, 100, 1000);
    evidence(&r, 3, 1, 1e6, 100, 1000);
    cr_assert_eq(pf_cost_calibrate(&r, 1, &m), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(m.n, 8);
    cr_assert_float_eq(m.c, 2e-9, 1e-15);
    cr_assert_float_eq(m.overhead_s, 1e-3, 1e-9);
    cr_assert_eq(pf_cost_calibrate(&r, 2, &m), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(m.n, 12);
    cr_assert_float_eq(m.c, 2e-9, 1e-15);
    cr_assert_float_eq(m.overhead_s, 1e-3, 1e-9);
    cr_assert_eq(pf_cost_calibrate(&r, PF_RUN_HIFI, &m), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(m.n, 14, "the Top-3: every generation");
    /* a damaged evidence file is an error naming it */
    char path[4200];
    cr_assert_eq(pf_run_path(r.dir, PF_RUN_EVIDENCE, 0, 3, path, sizeof path), PF_OK);
    FILE *f = fopen(path, "w");
    fputs("not msgpack", f);
    fclose(f);
    cr_assert_neq(pf_cost_calibrate(&r, 1, &m), PF_OK);
    cr_assert(strstr(pf_errmsg(), "gen00/cand3/evidence.msgpack"), "%s", pf_errmsg());
}

static void write_plan(const pf_run *r, int g, const char *text)
{
    char path[4200];
    cr_assert_eq(pf_run_path(r->dir, PF_RUN_PLAN, g, 0, path, sizeof path), PF_OK);
    mkdirs_of(r, g, 0);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
}

Test(train_order, a_plan_is_read_back_and_a_wrong_one_refused)
{
    pf_run r;
    open_run(&r);
    write_plan(&r, 1,
               "{\"format\": \"pinnforge.plan\", \"version\": 1, \"generation\": 1, \"order\": ["
               "{\"rank\": 0, \"slot\": 3}, {\"rank\": 1, \"slot\": 0}, {\"rank\": 2, \"slot\": 4},"
               "{\"rank\": 3, \"slot\": 1}, {\"rank\": 4, \"slot\": 2}]}");
    int k = -1;
    static const int want[] = {3, 0, 4, 1, 2};
    for (int i = 0; i < 5; i++) {
        cr_assert_eq(pf_train_plan_slot(&r, 1, i, &k), PF_OK, "%s", pf_errmsg());
        cr_assert_eq(k, want[i]);
    }
    cr_assert_eq(pf_train_plan_slot(&r, 1, 5, &k), PF_ERR_INVALID);
    cr_assert(strstr(pf_errmsg(), "gen01/plan.json' has no rank 5"), "%s", pf_errmsg());
    write_plan(&r, PF_RUN_HIFI, "{\"format\": \"pinnforge.plan\", \"version\": 1, \"order\": [{\"rank\": 0, \"slot\": 3}]}");
    cr_assert_eq(pf_train_plan_slot(&r, PF_RUN_HIFI, 0, &k), PF_ERR_INVALID, "the Top-3 have slots 0..2");
    cr_assert(strstr(pf_errmsg(), "hifi/plan.json"), "%s", pf_errmsg());
    write_plan(&r, 2, "{\"format\": \"pinnforge.select\", \"version\": 1, \"order\": [{\"rank\": 0, \"slot\": 0}]}");
    cr_assert_eq(pf_train_plan_slot(&r, 2, 0, &k), PF_ERR_INVALID);
    cr_assert(strstr(pf_errmsg(), "is not a plan"), "%s", pf_errmsg());
    write_plan(&r, 3, "{\"format\": ");
    cr_assert_eq(pf_train_plan_slot(&r, 3, 0, &k), PF_ERR_INVALID);
    cr_assert(strstr(pf_errmsg(), "gen03/plan.json' is not JSON"), "%s", pf_errmsg());
    cr_assert_neq(pf_train_plan_slot(&r, 4, 0, &k), PF_OK, "no plan");
    cr_assert(strstr(pf_errmsg(), "gen04/plan.json"), "%s", pf_errmsg());
}

static void touch_at(const pf_run *r, pf_run_file what, long sec, long nsec)
{
    char path[4200];
    cr_assert_eq(pf_run_path(r->dir, what, 0, 2, path, sizeof path), PF_OK);
    int fd = open(path, O_WRONLY | O_CREAT, 0644);
    cr_assert_geq(fd, 0);
    close(fd);
    struct timespec t[2] = {{sec, nsec}, {sec, nsec}};
    cr_assert_eq(utimensat(AT_FDCWD, path, t, 0), 0);
}

Test(train_order, a_training_is_stale_as_make_would_say)
{
    pf_run r;
    open_run(&r);
    mkdirs_of(&r, 0, 2);
    bool stale = false;
    cr_assert_neq(pf_training_stale(&r, 0, 2, &stale), PF_OK, "no proposal: an error");
    cr_assert(strstr(pf_errmsg(), "gen00/cand2.proposal.msgpack"), "%s", pf_errmsg());
    touch_at(&r, PF_RUN_PROPOSAL, 1000, 500);
    cr_assert_eq(pf_training_stale(&r, 0, 2, &stale), PF_OK, "%s", pf_errmsg());
    cr_assert(stale, "no outputs");
    touch_at(&r, PF_RUN_EVIDENCE, 1000, 500);
    cr_assert_eq(pf_training_stale(&r, 0, 2, &stale), PF_OK);
    cr_assert(stale, "no result.h5");
    touch_at(&r, PF_RUN_RESULT, 1000, 501);
    cr_assert_eq(pf_training_stale(&r, 0, 2, &stale), PF_OK);
    cr_assert_not(stale, "outputs as new as the proposal, or newer");
    touch_at(&r, PF_RUN_PROPOSAL, 1000, 501);
    cr_assert_eq(pf_training_stale(&r, 0, 2, &stale), PF_OK);
    cr_assert(stale, "the proposal 1 ns newer than evidence.msgpack");
    cr_assert_eq(pf_training_stale(&r, 0, 8, &stale), PF_ERR_INVALID, "generation 0 has 8 slots");
}

Test(train_order, a_failure_is_read_from_the_launchers_record)
{
    pf_run r;
    open_run(&r);
    mkdirs_of(&r, 1, 3);
    long at = -1;
    cr_assert_eq(pf_training_failed_at(&r, 1, 3, &at), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(at, 0, "no launch.txt: no failure");
    char here[256] = "", mine[512], dead[512];
    gethostname(here, sizeof here - 1);
    snprintf(mine, sizeof mine, "running local %s %ld 1764380000\n", here, (long)getpid());
    snprintf(dead, sizeof dead, "running local %s 999999999 1764380000\n", here); /* above pid_max */
    static const struct {
        const char *text;
        long at;
        pf_launch_state state;
    } fixed[] = {{"failed 137 1764380000\n", 1764380000, PF_LAUNCH_FAILED},
                 {"running local elsewhere.example 4242 1764380000\n", 0, PF_LAUNCH_RUNNING}, /* another host: trusted */
                 {"submitted slurm 1764380000\n", 0, PF_LAUNCH_RUNNING},
                 {"running slurm 77 node3 1764380000\n", 0, PF_LAUNCH_RUNNING},
                 {"failed\n", 0, PF_LAUNCH_FAILED},
                 {"done\n", 0, PF_LAUNCH_NONE},
                 {"", 0, PF_LAUNCH_NONE}};
    struct {
        const char *text;
        long at;
        pf_launch_state state;
    } cases[sizeof fixed / sizeof *fixed + 2];
    size_t n = 0;
    for (; n < sizeof fixed / sizeof *fixed; n++)
        cases[n].text = fixed[n].text, cases[n].at = fixed[n].at, cases[n].state = fixed[n].state;
    cases[n].text = mine, cases[n].at = 0, cases[n++].state = PF_LAUNCH_RUNNING; /* its launcher lives */
    cases[n].text = dead, cases[n].at = 0, cases[n++].state = PF_LAUNCH_NONE;   /* killed: not running */
    char path[4400], dir[4300];
    cr_assert_eq(pf_run_path(r.dir, PF_RUN_CANDIDATE, 1, 3, dir, sizeof dir), PF_OK);
    snprintf(path, sizeof path, "%s/launch.txt", dir);
    for (size_t i = 0; i < n; i++) {
        FILE *f = fopen(path, "w");
        cr_assert_not_null(f);
        fputs(cases[i].text, f);
        fclose(f);
        cr_assert_eq(pf_training_failed_at(&r, 1, 3, &at), PF_OK, "%s", pf_errmsg());
        cr_assert_eq(at, cases[i].at, "%s", cases[i].text);
        cr_assert_eq(pf_launch_record_read(dir).state, cases[i].state, "%s", cases[i].text);
    }
    cr_assert_eq(unlink(path), 0);
    cr_assert_eq(mkdir(path, 0755), 0);
    cr_assert_eq(pf_launch_record_read(dir).state, PF_LAUNCH_NONE, "a folder named launch.txt is no record");
    cr_assert_eq(rmdir(path), 0);
}
