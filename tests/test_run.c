/*
 * test_run.c — search/run.h: a run's settings (context.json) are read
 * bounded and strictly: a key given twice is refused, and settings that
 * belong to another run than the folder's (its PDE, method or number, as
 * pipeline.mk lays runs out: <pde>/<method>[@<backbone>]/run<R>) are
 * refused. The settings are written once per change, a backbone among
 * them, and a run's trainings take theirs from the run (pf_run_training_of).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "search/artifact.h"
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

/* dir/context.json's path into path and its text into text */
static void read_context(const char *dir, char *path, size_t pcap, char *text, size_t tcap)
{
    snprintf(path, pcap, "%s/context.json", dir);
    memset(text, 0, tcap);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f);
    cr_assert_gt(fread(text, 1, tcap - 1, f), 0);
    fclose(f);
}

#define CTX(pde, method, run) \
    "{\"pde\": \"" pde "\", \"method\": \"" method "\", \"run\": " run ", \"budget\": \"smoke\", \"llm\": \"offline\"}\n"

/* run 0 of method with backbone b, asked over http */
#define CTXB(pde, method, b)                                                                                        \
    "{\"pde\": \"" pde "\", \"method\": \"" method "\", \"run\": 0, \"budget\": \"smoke\", \"llm\": \"http\", "         \
    "\"backbone\": \"" b "\"}\n"

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
    /* a backbone's run: <method>@<backbone> */
    run_folder("runs/burgers_1d/no_feedback@gpt-4o/run0", CTXB("burgers_1d", "no_feedback", "gpt-4o"), dir, sizeof dir);
    cr_assert_eq(pf_run_open(dir, &r), PF_OK, "%s", pf_errmsg());
    cr_assert_str_eq(r.backbone, "gpt-4o");
    cr_assert_eq(r.llm, PF_LLM_HTTP);
}

/* A backbone is a setting: written, read back, compared; only an
 * LLM-driven method has one, asked over http or replayed; "offline" is a
 * run without one. */
Test(run, a_backbone_is_part_of_the_settings)
{
    char dir[256], path[300], text[512];
    snprintf(dir, sizeof dir, "%s/runs/poisson_5d/pinnforge@a.1/run0", root);
    pf_run_context c, back, plain;
    cr_assert_eq(pf_run_context_init(&c, "poisson_5d", "pinnforge", 0, "smoke", "http", "paper"), PF_OK);
    cr_assert_eq(pf_run_context_set_backbone(&c, "a.1"), PF_OK, "%s", pf_errmsg());
    char *was;
    bool budget;
    cr_assert_eq(pf_run_context_write(dir, &c, &was, &budget), PF_OK, "%s", pf_errmsg());
    read_context(dir, path, sizeof path, text, sizeof text);
    cr_assert_str_eq(text, "{\"pde\": \"poisson_5d\", \"method\": \"pinnforge\", \"run\": 0, \"budget\": \"smoke\", "
                           "\"llm\": \"http\", \"eval\": \"paper\", \"backbone\": \"a.1\"}\n");
    cr_assert_eq(pf_run_context_read(dir, &back), PF_OK, "%s", pf_errmsg());
    cr_assert_str_eq(back.backbone, "a.1");
    char what[256];
    cr_assert(!pf_run_context_settings_differ(&c, &back, what, sizeof what), "%s", what);
    cr_assert_eq(pf_run_context_init(&plain, "poisson_5d", "pinnforge", 0, "smoke", "http", "paper"), PF_OK);
    cr_assert_eq(pf_run_context_set_backbone(&plain, "offline"), PF_OK);
    cr_assert_str_eq(plain.backbone, "", "offline is the run without a backbone");
    cr_assert(pf_run_context_settings_differ(&back, &plain, what, sizeof what));
    cr_assert_str_eq(what, "backbone a.1 vs (none)");
    /* refused: a method that asks no LLM, the offline llm, a name that is no backbone's */
    cr_assert_eq(pf_run_context_init(&c, "poisson_5d", "vanilla", 0, "smoke", "http", "paper"), PF_OK);
    cr_assert_eq(pf_run_context_set_backbone(&c, "a"), PF_ERR_INVALID);
    cr_assert(strstr(pf_errmsg(), "the method vanilla asks no LLM"), "%s", pf_errmsg());
    cr_assert_eq(pf_run_context_init(&c, "poisson_5d", "pinnsagent", 0, "smoke", "replay", "paper"), PF_OK);
    cr_assert_eq(pf_run_context_set_backbone(&c, "a"), PF_OK, "PINNsAgent's planner asks an LLM: %s", pf_errmsg());
    cr_assert_eq(pf_run_context_init(&c, "poisson_5d", "pinnforge", 0, "smoke", "offline", "paper"), PF_OK);
    cr_assert_eq(pf_run_context_set_backbone(&c, "a"), PF_ERR_INVALID);
    cr_assert(strstr(pf_errmsg(), "with llm offline"), "%s", pf_errmsg());
    cr_assert_eq(pf_run_context_init(&c, "poisson_5d", "pinnforge", 0, "smoke", "http", "paper"), PF_OK);
    cr_assert_eq(pf_run_context_set_backbone(&c, "a/b"), PF_ERR_INVALID);
    cr_assert_eq(pf_run_context_set_backbone(&c, "a b"), PF_ERR_INVALID);
    /* context.json's "backbone" is read as strictly */
    run_folder("bad", "{\"pde\": \"poisson_5d\", \"method\": \"pinnforge\", \"run\": 0, \"budget\": \"smoke\", "
                      "\"llm\": \"http\", \"backbone\": \"offline\"}\n", dir, sizeof dir);
    cr_assert_eq(pf_run_context_read(dir, &back), PF_ERR_INVALID);
    cr_assert(strstr(pf_errmsg(), "\"backbone\" needs a backbone's name"), "%s", pf_errmsg());
}

/* A mixture (BACKBONE=mix:a,b,c, make's spelling mix+a+b+c) is one more
 * backbone setting: recorded as mix:a,b,c, its folder <method>@mix+a+b+c;
 * its names are checked as a backbone's are. */
Test(run, a_mixture_is_a_backbone_setting)
{
    char dir[256], path[300], text[512];
    snprintf(dir, sizeof dir, "%s/runs/poisson_5d/pinnforge@mix+a+b.2/run0", root);
    pf_run_context c, back;
    cr_assert_eq(pf_run_context_init(&c, "poisson_5d", "pinnforge", 0, "smoke", "http", "paper"), PF_OK);
    cr_assert_eq(pf_run_context_set_backbone(&c, "mix+a+b.2"), PF_OK, "%s", pf_errmsg());
    cr_assert_str_eq(c.backbone, "mix:a,b.2", "recorded in its own spelling");
    char *was;
    bool budget;
    cr_assert_eq(pf_run_context_write(dir, &c, &was, &budget), PF_OK, "%s", pf_errmsg());
    read_context(dir, path, sizeof path, text, sizeof text);
    cr_assert(strstr(text, "\"backbone\": \"mix:a,b.2\"}"), "%s", text);
    cr_assert_eq(pf_run_context_read(dir, &back), PF_OK, "the folder mix+a+b.2 is this mixture's: %s", pf_errmsg());
    cr_assert_str_eq(back.backbone, "mix:a,b.2");
    snprintf(dir, sizeof dir, "%s/runs/poisson_5d/pinnforge@mix+a/run0", root);
    cr_assert_eq(pf_run_context_write(dir, &c, &was, &budget), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(pf_run_context_read(dir, &back), PF_ERR_INVALID, "another mixture's folder");
    cr_assert(strstr(pf_errmsg(), "its \"backbone\" is mix:a,b.2"), "%s", pf_errmsg());
    const char *bad[] = {"mix:a", "mix:a,a", "mix:a,offline", "mix:a,,b", "mix:a,b/c", "mix:"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        cr_expect_eq(pf_run_context_set_backbone(&c, bad[i]), PF_ERR_INVALID, "%s", bad[i]);
    char folder[64];
    pf_llm_mix_spell("mix:a,b,c", true, folder, sizeof folder);
    cr_assert_str_eq(folder, "mix+a+b+c");
    pf_llm_mix_spell("a.1", true, folder, sizeof folder);
    cr_assert_str_eq(folder, "a.1", "a backbone's name as it is");
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
        {"runs/burgers_1d/pinnforge@a/run0", CTX("burgers_1d", "pinnforge", "0"), "its \"backbone\" is none"},
        {"runs/burgers_1d/pinnforge@a/run0", CTXB("burgers_1d", "pinnforge", "b"), "its \"backbone\" is b"},
        {"runs/burgers_1d/pinnforge/run0", CTXB("burgers_1d", "pinnforge", "a"), "its \"backbone\" is a"},
        {"runs/burgers_1d/no_feedback@a/run0", CTXB("burgers_1d", "pinnforge", "a"), "its \"method\" is pinnforge"},
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

/* pf_run_context_init -> _write -> _read: the same settings back, the text
 * pipeline.mk used to print byte for byte, and a write of the same
 * settings leaves the file (and its time) alone. */
Test(run, settings_are_written_once_and_read_back)
{
    char dir[256], path[300];
    snprintf(dir, sizeof dir, "%s/runs/poisson_5d/pinnforge/run2", root);
    pf_run_context c, back;
    cr_assert_eq(pf_run_context_init(&c, "poisson_5d", "pinnforge", 2, "quick", "offline", "heldout"), PF_OK, "%s",
                 pf_errmsg());
    char *was = (char *)"x";
    bool budget;
    cr_assert_eq(pf_run_context_write(dir, &c, &was, &budget), PF_OK, "%s", pf_errmsg());
    cr_assert_null(was, "a new file replaces nothing");
    char text[512];
    read_context(dir, path, sizeof path, text, sizeof text);
    cr_assert_str_eq(text, "{\"pde\": \"poisson_5d\", \"method\": \"pinnforge\", \"run\": 2, \"budget\": \"quick\", "
                           "\"llm\": \"offline\", \"eval\": \"heldout\"}\n");
    cr_assert_eq(pf_run_context_read(dir, &back), PF_OK, "%s", pf_errmsg());
    cr_assert(!strcmp(back.pde, "poisson_5d") && !strcmp(back.eval, "heldout") && back.run == 2 && !back.pde_sha256[0]);
    struct stat st0, st1;
    cr_assert_eq(stat(path, &st0), 0);
    nanosleep(&(struct timespec){0, 20000000}, NULL);
    cr_assert_eq(pf_run_context_write(dir, &c, &was, &budget), PF_OK);
    cr_assert_null(was);
    cr_assert(!budget);
    cr_assert_eq(stat(path, &st1), 0);
    cr_assert(st0.st_mtim.tv_sec == st1.st_mtim.tv_sec && st0.st_mtim.tv_nsec == st1.st_mtim.tv_nsec,
              "unchanged settings keep the file's time");
    /* only the LLM budget: the new text with the old time, nothing given back */
    c.llm_max_tokens = 5000;
    c.llm_max_cost = 0.5;
    nanosleep(&(struct timespec){0, 20000000}, NULL);
    cr_assert_eq(pf_run_context_write(dir, &c, &was, &budget), PF_OK, "%s", pf_errmsg());
    cr_assert_null(was);
    cr_assert(budget, "the LLM budget changed");
    cr_assert_eq(stat(path, &st1), 0);
    cr_assert(st0.st_mtim.tv_sec == st1.st_mtim.tv_sec && st0.st_mtim.tv_nsec == st1.st_mtim.tv_nsec,
              "a new LLM budget keeps the file's time");
    cr_assert_eq(pf_run_context_read(dir, &back), PF_OK, "%s", pf_errmsg());
    cr_assert(back.llm_max_tokens == 5000 && back.llm_max_cost == 0.5, "%ld %g", back.llm_max_tokens, back.llm_max_cost);
    char what[256];
    cr_assert(pf_run_context_settings_differ(&back, &c, what, sizeof what) == false);
    pf_run_context none = c;
    none.llm_max_tokens = 0, none.llm_max_cost = 0;
    cr_assert(pf_run_context_settings_differ(&back, &none, what, sizeof what));
    cr_assert_str_eq(what, "llm budget 5000 tokens, cost 0.5 vs (none)");
    cr_assert_eq(pf_run_context_init(&c, "poisson_5d", "pinnforge", 2, "smoke", "offline", "heldout"), PF_OK);
    cr_assert_eq(pf_run_context_write(dir, &c, &was, &budget), PF_OK);
    cr_assert_not_null(was, "other settings: the old ones are given back");
    cr_assert(!budget);
    cr_assert(strstr(was, "\"budget\": \"quick\""), "%s", was);
    free(was);
}

Test(run, settings_with_an_unknown_name_are_refused)
{
    pf_run_context c;
    cr_assert_eq(pf_run_context_init(&c, "poisson_5d", "pinnforgo", 0, "quick", "offline", "paper"), PF_ERR_INVALID);
    cr_assert_eq(pf_run_context_init(&c, "poisson_5d", "pinnforge", 0, "huge", "offline", "paper"), PF_ERR_INVALID);
    cr_assert_eq(pf_run_context_init(&c, "poisson_5d", "pinnforge", 0, "quick", "gpt", "paper"), PF_ERR_INVALID);
    cr_assert_eq(pf_run_context_init(&c, "poisson_5d", "pinnforge", 0, "quick", "offline", "all"), PF_ERR_INVALID);
    cr_assert_eq(pf_run_context_init(&c, "poisson_9d", "pinnforge", 0, "quick", "offline", "paper"), PF_ERR_USAGE);
    cr_assert_eq(pf_run_context_init(&c, "poisson_5d", "pinnforge", -1, "quick", "offline", "paper"), PF_ERR_INVALID);
}

/* A .pde file's settings carry its SHA-256 and its data files' digest,
 * which changes with a data file (and with a missing one appearing). */
Test(run, a_pde_files_settings_follow_its_data)
{
    char pde[256], csv[256];
    snprintf(pde, sizeof pde, "%s/obs.pde", root);
    snprintf(csv, sizeof csv, "%s/obs.csv", root);
    FILE *f = fopen(pde, "w");
    cr_assert_not_null(f);
    fputs("pde obs_1d\nstatement \"s\"\ninputs x\noutputs u\ndomain interval(0, 1)\n"
          "equation u_xx = -pi^2*sin(pi*x)\nobserve data: u from \"obs.csv\"\nexact u = sin(pi*x)\n", f);
    fclose(f);
    pf_run_context a, b, c;
    cr_assert_eq(pf_run_context_init(&a, pde, "pinnforge", 0, "smoke", "offline", "paper"), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(strlen(a.pde_sha256), 64);
    cr_assert_eq(strlen(a.data_sha256), 64, "a named data file counts even before it exists");
    f = fopen(csv, "w");
    cr_assert_not_null(f);
    fputs("x,u\n0.5,1\n", f);
    fclose(f);
    cr_assert_eq(pf_run_context_init(&b, pde, "pinnforge", 0, "smoke", "offline", "paper"), PF_OK, "%s", pf_errmsg());
    cr_assert_str_eq(a.pde_sha256, b.pde_sha256);
    cr_assert_str_neq(a.data_sha256, b.data_sha256, "the data file appeared");
    f = fopen(csv, "a");
    fputs("0.25,0.7071067811865476\n", f);
    fclose(f);
    cr_assert_eq(pf_run_context_init(&c, pde, "pinnforge", 0, "smoke", "offline", "paper"), PF_OK);
    cr_assert_str_neq(b.data_sha256, c.data_sha256, "the data file changed");
}

/* What one training of a run is: paths, fidelity, seed, physics check. */
Test(run, a_runs_trainings_take_their_settings_from_the_run)
{
    char dir[256];
    pf_run r;
    pf_run_training t;
    run_folder("runs/burgers_1d/pinnforge/run3", CTX("burgers_1d", "pinnforge", "3"), dir, sizeof dir);
    cr_assert_eq(pf_run_open(dir, &r), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(pf_run_training_of(&r, 2, 4, &t), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(t.seed, 300204);
    cr_assert(t.fidelity == PF_FIDELITY_LOW && !t.physics_check);
    cr_assert(strstr(t.proposal, "/gen02/cand4.proposal.msgpack") && strstr(t.out, "/gen02/cand4"));
    cr_assert_eq(pf_run_training_of(&r, PF_RUN_HIFI, 1, &t), PF_OK);
    cr_assert(t.seed == 309901 && t.fidelity == PF_FIDELITY_HIGH && t.physics_check);
    cr_assert(strstr(t.proposal, "/hifi/top1.proposal.msgpack"));
    cr_assert_eq(pf_run_training_of(&r, 0, 8, &t), PF_ERR_INVALID, "generation 0 has 8 slots");
    cr_assert_eq(pf_run_training_of(&r, 1, 5, &t), PF_ERR_INVALID, "later ones 5");
    cr_assert_eq(pf_run_training_of(&r, PF_RUN_HIFI, 3, &t), PF_ERR_INVALID, "the Top-3");
    run_folder("runs/burgers_1d/vanilla/run0", CTX("burgers_1d", "vanilla", "0"), dir, sizeof dir);
    cr_assert_eq(pf_run_open(dir, &r), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(pf_run_training_of(&r, 0, 4, &t), PF_OK);
    cr_assert(t.seed == 4 && t.fidelity == PF_FIDELITY_BASELINE && t.physics_check);
    cr_assert_eq(pf_run_training_of(&r, 1, 0, &t), PF_ERR_INVALID, "a fixed baseline trains generation 0 only");
}
