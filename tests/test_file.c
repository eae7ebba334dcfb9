/*
 * test_file.c — core/file.h and core/lock.h: every reader takes regular
 * files only, within its kind's limit, and never blocks on a FIFO; temp
 * files never follow a planted link; one lock per folder, gone with its
 * holder.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/file.h"
#include "core/lock.h"

static char dir[64];

static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/pf_file_XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
}

static void teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_expect_eq(system(cmd), 0);
}

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "%s", path);
    fputs(text, f);
    fclose(f);
}

static char *get(const char *path)
{
    char *text;
    size_t len;
    cr_assert_eq(pf_file_read_as(path, PF_FILE_ANY, &text, &len), PF_OK, "%s", pf_errmsg());
    return text;
}

/* How many entries dir has (. and .. aside). */
static int entries(void)
{
    DIR *d = opendir(dir);
    cr_assert_not_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    return n;
}

static bool exists(const char *path)
{
    struct stat sb;
    return lstat(path, &sb) == 0;
}

TestSuite(file, .init = setup, .fini = teardown, .timeout = 20);

Test(file, a_fifo_is_refused_at_once)
{
    char path[128];
    snprintf(path, sizeof path, "%s/spec.json", dir);
    cr_assert_eq(mkfifo(path, 0600), 0);
    char *text = (char *)1;
    size_t len = 1;
    /* a blocking open would hang here (no writer): the suite's timeout says so */
    cr_assert_eq(pf_file_read_as(path, PF_FILE_SPEC, &text, &len), PF_ERR_IO);
    cr_assert_null(text);
    char want[256];
    snprintf(want, sizeof want, "cannot read '%s': a FIFO, not a regular file", path);
    cr_assert_str_eq(pf_errmsg(), want);
    cr_assert_str_eq(pf_file_why(path), "a FIFO, not a regular file");
    FILE *f = (FILE *)1;
    cr_assert_eq(pf_file_fopen(path, PF_FILE_TABLE, &f), PF_ERR_IO);
    cr_assert_null(f);
    cr_assert_eq(pf_file_check(path, PF_FILE_H5, NULL), PF_ERR_IO);
}

Test(file, devices_and_folders_are_refused)
{
    char *text;
    size_t len;
    cr_assert_eq(pf_file_read_as("/dev/zero", PF_FILE_SPEC, &text, &len), PF_ERR_IO);
    cr_assert_str_eq(pf_errmsg(), "cannot read '/dev/zero': a character device, not a regular file");
    cr_assert_eq(pf_file_read(dir, &text, &len), PF_ERR_IO);
    cr_assert(strstr(pf_errmsg(), "a folder, not a regular file"), "%s", pf_errmsg());
    int fd = 7;
    cr_assert_eq(pf_file_open("/dev/null", PF_FILE_MSGPACK, &fd, NULL), PF_ERR_IO);
    cr_assert_eq(fd, -1);
    char path[128];
    snprintf(path, sizeof path, "%s/none", dir);
    cr_assert_eq(pf_file_read(path, &text, &len), PF_ERR_IO);
    cr_assert_str_eq(pf_file_why(path), strerror(ENOENT));
}

Test(file, a_file_over_its_kinds_limit_is_refused_from_its_size)
{
    char path[128];
    snprintf(path, sizeof path, "%s/big.json", dir);
    int fd = open(path, O_WRONLY | O_CREAT, 0644);
    cr_assert_geq(fd, 0);
    cr_assert_eq(ftruncate(fd, (off_t)pf_file_limit(PF_FILE_SPEC) + 1), 0); /* sparse: nothing written */
    close(fd);
    char *text;
    size_t len, size;
    cr_assert_eq(pf_file_read_as(path, PF_FILE_SPEC, &text, &len), PF_ERR_IO);
    char want[256];
    snprintf(want, sizeof want, "cannot read '%s': 1048577 bytes, more than the 1 MiB a spec may have", path);
    cr_assert_str_eq(pf_errmsg(), want);
    /* the same file is fine as a table, and read whole */
    cr_assert_eq(pf_file_check(path, PF_FILE_TABLE, &size), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(size, 1048577);
    cr_assert_eq(pf_file_read_as(path, PF_FILE_TABLE, &text, &len), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(len, 1048577);
    cr_assert_eq(text[len], 0);
    free(text);
    cr_assert_eq(pf_file_limit(PF_FILE_STATE), 65536);
    cr_assert_str_eq(pf_file_kind_name(PF_FILE_PDE), "a .pde file");
}

Test(file, standard_input_is_read_up_to_the_limit)
{
    int p[2];
    cr_assert_eq(pipe(p), 0);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) { /* a writer that never stops, as /dev/zero */
        close(p[0]);
        char buf[4096] = {0};
        while (write(p[1], buf, sizeof buf) > 0) {}
        _exit(0);
    }
    close(p[1]);
    int saved = dup(0);
    cr_assert_eq(dup2(p[0], 0), 0);
    char *text = (char *)1;
    size_t len;
    pf_status st = pf_file_read_as("-", PF_FILE_SPEC, &text, &len);
    dup2(saved, 0);
    close(p[0]);
    waitpid(pid, NULL, 0);
    cr_assert_eq(st, PF_ERR_IO);
    cr_assert_null(text);
    cr_assert_str_eq(pf_errmsg(), "cannot read '-': more than the 1 MiB a spec may have");
}

Test(file, a_planted_link_under_the_old_temp_name_is_never_followed)
{
    char target[128], path[128], link[160];
    snprintf(target, sizeof target, "%s/target", dir);
    snprintf(path, sizeof path, "%s/out.msgpack", dir);
    put(target, "keep me\n");
    /* "<path>.tmp.<pid>", the name writers used to open with O_CREAT | O_TRUNC */
    snprintf(link, sizeof link, "%s.tmp.%ld", path, (long)getpid());
    cr_assert_eq(symlink(target, link), 0);
    cr_assert_eq(pf_file_write_atomic(path, "new", 3), PF_OK, "%s", pf_errmsg());
    char *t = get(target);
    cr_assert_str_eq(t, "keep me\n");
    free(t);
    t = get(path);
    cr_assert_str_eq(t, "new");
    free(t);
    struct stat sb;
    cr_assert_eq(lstat(path, &sb), 0);
    cr_assert(S_ISREG(sb.st_mode));
    cr_assert(exists(link), "the planted link is not ours to remove");
    cr_assert_eq(entries(), 3, "nothing else is left: no temp file");
}

Test(file, temp_files_are_fresh_and_exclusive)
{
    char path[128];
    snprintf(path, sizeof path, "%s/a.h5", dir);
    char *t1, *t2;
    int f1, f2;
    cr_assert_eq(pf_tmp_create(path, &t1, &f1), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(pf_tmp_create(path, &t2, &f2), PF_OK, "%s", pf_errmsg());
    cr_assert_str_neq(t1, t2);
    char prefix[160];
    snprintf(prefix, sizeof prefix, "%s.tmp.%ld.", path, (long)getpid());
    cr_assert_eq(strncmp(t1, prefix, strlen(prefix)), 0, "%s", t1);
    cr_assert_eq(strlen(t1), strlen(prefix) + 6, "%s", t1);
    struct stat sb;
    cr_assert_eq(fstat(f1, &sb), 0);
    cr_assert(S_ISREG(sb.st_mode));
    cr_assert_eq(sb.st_size, 0);
    cr_assert_eq(fcntl(f1, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
    close(f1), close(f2);
    free(t1), free(t2);
    /* in a folder that does not exist: the error names both */
    snprintf(path, sizeof path, "%s/none/a.h5", dir);
    cr_assert_eq(pf_tmp_create(path, &t1, &f1), PF_ERR_IO);
    cr_assert_null(t1);
    cr_assert_eq(f1, -1);
    cr_assert(strstr(pf_errmsg(), "cannot create '") && strstr(pf_errmsg(), strerror(ENOENT)), "%s", pf_errmsg());
}

Test(file, the_sweep_removes_both_forms_of_dead_writers_temps)
{
    char path[128], p[192];
    snprintf(path, sizeof path, "%s/x.msgpack", dir);
    pid_t dead = fork();
    if (dead == 0) _exit(0);
    waitpid(dead, NULL, 0);
    snprintf(p, sizeof p, "%s.tmp.%ld", path, (long)dead), put(p, "");
    snprintf(p, sizeof p, "%s.tmp.%ld.AbC123", path, (long)dead), put(p, "");
    snprintf(p, sizeof p, "%s.tmp.%ld.Ab-12", path, (long)dead), put(p, ""); /* not our pattern: stays */
    snprintf(p, sizeof p, "%s.tmp.%ld.Zz9", path, (long)getpid()), put(p, ""); /* ours, alive: stays */
    int removed = -1;
    pf_tmp_sweep(path, &removed);
    cr_assert_eq(removed, 2);
    cr_assert_eq(entries(), 2);
    snprintf(p, sizeof p, "%s.tmp.%ld.Ab-12", path, (long)dead);
    cr_assert(exists(p));
    snprintf(p, sizeof p, "%s.tmp.%ld.Zz9", path, (long)getpid());
    cr_assert(exists(p));
}

/* A writer killed with its make is a zombie until someone reaps it (PID 1
 * for orphans, which may be slow): its temp goes, a live writer's stays. */
Test(file, the_sweep_counts_a_killed_writer_not_yet_reaped_as_gone)
{
    char path[128], p[192];
    snprintf(path, sizeof path, "%s/t.msgpack", dir);
    pid_t child[2];
    for (int i = 0; i < 2; i++)
        if ((child[i] = fork()) == 0) {
            pause();
            _exit(0);
        }
    pid_t zombie = child[0], alive = child[1];
    cr_assert(zombie > 0 && alive > 0);
    kill(zombie, SIGKILL);
    siginfo_t si;
    cr_assert_eq(waitid(P_PID, (id_t)zombie, &si, WEXITED | WNOWAIT), 0); /* dead, not reaped */
    cr_assert_eq(kill(zombie, 0), 0, "a zombie answers kill(pid, 0)");
    snprintf(p, sizeof p, "%s.tmp.%ld.Zombie", path, (long)zombie), put(p, "");
    snprintf(p, sizeof p, "%s.tmp.%ld.Alive1", path, (long)alive), put(p, "");
    int removed = -1;
    pf_tmp_sweep(path, &removed);
    kill(alive, SIGKILL);
    waitpid(alive, NULL, 0);
    waitpid(zombie, NULL, 0);
    cr_assert_eq(removed, 1);
    cr_assert(exists(p), "the live writer's temp stays");
    snprintf(p, sizeof p, "%s.tmp.%ld.Zombie", path, (long)zombie);
    cr_assert(!exists(p), "the zombie's temp goes");
}

TestSuite(lock, .init = setup, .fini = teardown, .timeout = 20);

Test(lock, one_holder_at_a_time_and_gone_with_it)
{
    char run[128];
    snprintf(run, sizeof run, "%s/runs/p/m/run0", dir);
    int a, b;
    cr_assert_eq(pf_lock_open(run, &a), PF_OK, "%s", pf_errmsg()); /* makes the folders */
    cr_assert_eq(pf_lock_open(run, &b), PF_OK, "%s", pf_errmsg());
    cr_assert(pf_lock_try(a));
    pf_lock_note(a);
    cr_assert_not(pf_lock_try(b), "a second open file of the lock is another holder");
    char who[256], want[64];
    pf_lock_holder(b, who, sizeof who);
    snprintf(want, sizeof want, "pid %ld on host ", (long)getpid());
    cr_assert_eq(strncmp(who, want, strlen(want)), 0, "%s", who);
    /* a child that inherits the descriptor holds it too; its death frees it */
    pid_t child = fork();
    if (child == 0) {
        pause();
        _exit(0);
    }
    close(a);
    cr_assert_not(pf_lock_try(b), "the child still holds it");
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    cr_assert(pf_lock_try(b), "killed: released");
    close(b);
}

Test(lock, a_planted_link_is_refused)
{
    char run[128], lock[160], target[160];
    snprintf(run, sizeof run, "%s/run0", dir);
    cr_assert_eq(mkdir(run, 0755), 0);
    snprintf(lock, sizeof lock, "%s/.lock", run);
    snprintf(target, sizeof target, "%s/target", dir);
    put(target, "keep\n");
    cr_assert_eq(symlink(target, lock), 0);
    int fd;
    cr_assert_eq(pf_lock_open(run, &fd), PF_ERR_IO);
    cr_assert(strstr(pf_errmsg(), lock), "%s", pf_errmsg());
    char *t = get(target);
    cr_assert_str_eq(t, "keep\n");
    free(t);
}
