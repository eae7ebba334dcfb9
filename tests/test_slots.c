/*
 * test_slots.c — core/slots.h: N lock files as a counting semaphore. Many
 * processes contending for K slots are never more than K inside at once
 * (counted in shared memory), every one gets in, and a holder killed
 * while inside frees its slot.
 */
#define _GNU_SOURCE /* MAP_ANONYMOUS */
#include <criterion/criterion.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/slots.h"

static char dir[64];

static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/pf_slots_XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
}

static void teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "cannot remove %s\n", dir);
}

TestSuite(slots, .init = setup, .fini = teardown, .timeout = 60);

Test(slots, k_slots_then_none_then_the_one_given_back)
{
    pf_slot s[4];
    for (int i = 0; i < 3; i++) {
        cr_assert_eq(pf_slots_try(dir, "b-1", 3, &s[i]), PF_OK, "%s", pf_errmsg());
        cr_assert_eq(s[i].index, i, "the first free slot is taken");
        cr_assert_geq(s[i].fd, 0);
    }
    cr_assert_eq(pf_slots_try(dir, "b-1", 3, &s[3]), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(s[3].index, -1, "all 3 held, even within one process");
    cr_assert_eq(s[3].fd, -1);
    pf_slots_give(&s[1]);
    cr_assert_eq(s[1].index, -1);
    cr_assert_eq(pf_slots_try(dir, "b-1", 3, &s[3]), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(s[3].index, 1, "the slot given back");
    /* another name has its own slots */
    pf_slot other;
    cr_assert_eq(pf_slots_take(dir, "b-2", 1, &other), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(other.index, 0);
    pf_slots_give(&other);
    for (int i = 0; i < 4; i++) pf_slots_give(&s[i]);
    pf_slots_give(&s[0]); /* twice: a no-op */
}

Test(slots, bad_names_and_counts_are_refused)
{
    pf_slot s;
    cr_assert_eq(pf_slots_try(dir, "a/b", 2, &s), PF_ERR_INVALID);
    cr_assert(strstr(pf_errmsg(), "not a word"), "%s", pf_errmsg());
    cr_assert_eq(pf_slots_try(dir, "", 2, &s), PF_ERR_INVALID);
    cr_assert_eq(pf_slots_try(dir, "ok", 0, &s), PF_ERR_INVALID);
    cr_assert(strstr(pf_errmsg(), "0 slots"), "%s", pf_errmsg());
    cr_assert_eq(pf_slots_try(dir, "ok", PF_SLOTS_MAX + 1, &s), PF_ERR_INVALID);
    cr_assert_eq(s.index, -1);
    cr_assert_eq(s.fd, -1);
}

Test(slots, the_folder_comes_from_the_variable_or_the_temp_dir)
{
    char buf[256], want[128];
    setenv("PF_TEST_SLOTS", "/x/y", 1);
    cr_assert_eq(pf_slots_dir("PF_TEST_SLOTS", buf, sizeof buf), PF_OK);
    cr_assert_str_eq(buf, "/x/y");
    unsetenv("PF_TEST_SLOTS");
    setenv("TMPDIR", "/tmp/t", 1);
    cr_assert_eq(pf_slots_dir("PF_TEST_SLOTS", buf, sizeof buf), PF_OK);
    snprintf(want, sizeof want, "/tmp/t/pinnforge-slots-%ld", (long)getuid());
    cr_assert_str_eq(buf, want);
    cr_assert_eq(pf_slots_dir(NULL, buf, 8), PF_ERR_INVALID);
}

typedef struct shared {
    int inside, max_inside, entries;
} shared;

#define PROCS 8
#define ROUNDS 6
#define K 3

Test(slots, n_processes_never_exceed_k_slots)
{
    shared *sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    cr_assert_neq(sh, MAP_FAILED, "mmap: %s", strerror(errno));
    memset(sh, 0, sizeof *sh);
    pid_t pid[PROCS];
    for (int p = 0; p < PROCS; p++) {
        pid[p] = fork();
        cr_assert_geq(pid[p], 0, "fork: %s", strerror(errno));
        if (pid[p] == 0) {
            for (int r = 0; r < ROUNDS; r++) {
                pf_slot s;
                if (pf_slots_take(dir, "contended", K, &s) != PF_OK || s.index < 0 || s.index >= K) _exit(2);
                int now = __atomic_add_fetch(&sh->inside, 1, __ATOMIC_SEQ_CST);
                int m = __atomic_load_n(&sh->max_inside, __ATOMIC_SEQ_CST);
                while (now > m && !__atomic_compare_exchange_n(&sh->max_inside, &m, now, 0, __ATOMIC_SEQ_CST,
                                                               __ATOMIC_SEQ_CST)) {}
                __atomic_add_fetch(&sh->entries, 1, __ATOMIC_SEQ_CST);
                struct timespec t = {0, 3000000L}; /* stay inside a little, so that others pile up */
                nanosleep(&t, NULL);
                __atomic_sub_fetch(&sh->inside, 1, __ATOMIC_SEQ_CST);
                pf_slots_give(&s);
            }
            _exit(0);
        }
    }
    for (int p = 0; p < PROCS; p++) {
        int status;
        cr_assert_eq(waitpid(pid[p], &status, 0), pid[p]);
        cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child %d ended with status %d", p, status);
    }
    cr_assert_eq(sh->entries, PROCS * ROUNDS, "every process got in every round");
    cr_assert_leq(sh->max_inside, K, "%d inside at once, with %d slots", sh->max_inside, K);
    cr_assert_geq(sh->max_inside, 1);
    cr_assert_eq(sh->inside, 0);
    munmap(sh, sizeof *sh);
}

Test(slots, a_killed_holder_frees_its_slot)
{
    int ready[2];
    cr_assert_eq(pipe(ready), 0);
    pid_t child = fork();
    cr_assert_geq(child, 0);
    if (child == 0) {
        pf_slot s;
        char ok = pf_slots_take(dir, "one", 1, &s) == PF_OK && s.index == 0 ? 'y' : 'n';
        if (write(ready[1], &ok, 1) != 1) _exit(3);
        pause();
        _exit(0);
    }
    char ok = 0;
    cr_assert_eq(read(ready[0], &ok, 1), 1);
    cr_assert_eq(ok, 'y', "the child took the only slot");
    pf_slot s;
    cr_assert_eq(pf_slots_try(dir, "one", 1, &s), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(s.index, -1, "held by the child");
    kill(child, SIGKILL);
    cr_assert_eq(waitpid(child, NULL, 0), child);
    cr_assert_eq(pf_slots_try(dir, "one", 1, &s), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(s.index, 0, "killed: its slot is free");
    pf_slots_give(&s);
    close(ready[0]);
    close(ready[1]);
}
