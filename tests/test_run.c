/*
 * test_run.c — search/run.h: a run's settings (context.json) are read
 * bounded and strictly: a key given twice is refused, and settings that
 * belong to another run than the folder's (its PDE, method or number, as
 * pipeline.mk lays runs out: <pde>/<method>/run<R>) are refused.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "search/run.h"

static char root[64];

static void setup(void)
{
    snprintf(root, sizeof root, "/tmp/pf_run_XXXXXX");
    cr_assert_not_null(mkdtemp(root));
}

static void teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    cr_expect_eq(system(cmd), 0);
}

TestSuite(run, .init = setup, .fini = teardown, .timeout = 20);

/* root/rel with context.json holding text; the folder's path into dir */
static void run_folder(const char *rel, const char *text, char *dir, size_t cap)
{
    snprintf(dir, cap, "%s/%s", root, rel);
    char cmd[512], path[512];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", dir);
    cr_assert_eq(system(cmd), 0);
    snprintf(path, sizeof path, "%s/context.json", dir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
}

#define CTX(pde, method, run) \
    "{\"pde\": \"" pde "\", \"method\": \"" method "\", \"run\": " run ", \"budget\": \"smoke\", \"llm\": \"offline\"}\n"

Test(run, settings_of_the_folders_own_run_open)
{
    char dir[256];
    pf_run r;
    run_folder("runs/burgers_1d/pinnforge/run3", CTX("burgers_1d", "pinnforge", "3"), dir, sizeof dir);
    cr_assert_eq(pf_run_open(dir, &r), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(r.run, 3);
    /* a folder not laid out by make (a copy, a test's) is not checked */
    run_folder("elsewhere", CTX("burgers_1d", "vanilla", "7"), dir, sizeof dir);
    cr_assert_eq(pf_run_open(dir, &r), PF_OK, "%s", pf_errmsg());
    run_folder("x/run7/", CTX("burgers_1d", "vanilla", "7"), dir, sizeof dir);
    cr_assert_eq(pf_run_open(dir, &r), PF_OK, "%s", pf_errmsg());
}

Test(run, settings_of_another_run_are_refused)
{
    static const struct {
        const char *rel, *text, *msg;
    } cases[] = {
        {"runs/burgers_1d/pinnforge/run0", CTX("poisson_5d", "pinnforge", "0"), "its \"pde\" is poisson_5d"},
        {"runs/burgers_1d/pinnforge/run0", CTX("burgers_1d", "vanilla", "0"), "its \"method\" is vanilla"},
        {"runs/burgers_1d/pinnforge/run0", CTX("burgers_1d", "pinnforge", "1"), "its \"run\" is 1"},
        {"runs/burgers_1d/pinnforge/run01", CTX("burgers_1d", "pinnforge", "1"), "its \"run\" is 1"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char dir[256], cmd[300];
        run_folder(cases[i].rel, cases[i].text, dir, sizeof dir);
        pf_run r;
        cr_assert_eq(pf_run_open(dir, &r), PF_ERR_INVALID, "case %zu", i);
        cr_assert(strstr(pf_errmsg(), cases[i].msg), "case %zu: %s", i, pf_errmsg());
        cr_assert(strstr(pf_errmsg(), "is the settings of another run"), "case %zu: %s", i, pf_errmsg());
        pf_run_context c;
        cr_assert_eq(pf_run_context_read(dir, &c), PF_ERR_INVALID, "case %zu: the statistics refuse it too", i);
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        cr_assert_eq(system(cmd), 0);
    }
}

Test(run, a_pde_files_run_is_filed_under_its_declared_name)
{
    char pde[256], dir[256];
    snprintf(pde, sizeof pde, "%s/my.pde", root);
    FILE *f = fopen(pde, "w");
    cr_assert_not_null(f);
    fputs("pde my_heat\nstatement \"s\"\ninputs x\noutputs u\ndomain interval(0, 1)\nequation u_xx = 0\n", f);
    fclose(f);
    char text[512];
    snprintf(text, sizeof text, CTX("%s", "pinnforge", "0"), pde);
    run_folder("runs/my_heat/pinnforge/run0", text, dir, sizeof dir);
    pf_run r;
    cr_assert_eq(pf_run_open(dir, &r), PF_OK, "%s", pf_errmsg());
    run_folder("runs/burgers_1d/pinnforge/run0", text, dir, sizeof dir);
    cr_assert_eq(pf_run_open(dir, &r), PF_ERR_INVALID);
    cr_assert(strstr(pf_errmsg(), "its \"pde\" is my_heat"), "%s", pf_errmsg());
}

Test(run, a_key_given_twice_is_refused)
{
    char dir[256];
    run_folder("runs/burgers_1d/pinnforge/run0",
               "{\"pde\": \"burgers_1d\", \"method\": \"pinnforge\", \"run\": 0, \"budget\": \"smoke\", "
               "\"llm\": \"offline\", \"pde\": \"poisson_5d\"}\n",
               dir, sizeof dir);
    pf_run r;
    cr_assert_eq(pf_run_open(dir, &r), PF_ERR_IO);
    cr_assert(strstr(pf_errmsg(), "duplicate object key"), "%s", pf_errmsg());
}

Test(run, settings_that_are_not_a_plain_file_are_refused_at_once)
{
    char dir[256], path[300];
    snprintf(dir, sizeof dir, "%s/runs/burgers_1d/pinnforge/run0", root);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", dir);
    cr_assert_eq(system(cmd), 0);
    snprintf(path, sizeof path, "%s/context.json", dir);
    cr_assert_eq(mkfifo(path, 0600), 0);
    pf_run r;
    cr_assert_eq(pf_run_open(dir, &r), PF_ERR_IO);
    cr_assert(strstr(pf_errmsg(), "a FIFO, not a regular file"), "%s", pf_errmsg());
}
