/*
 * pf-lock — runs a command holding the lock of a folder: pipeline.mk runs
 * every run's make through it, so that two makes never work on one run.
 *
 *   pf-lock [--no-wait] DIR -- COMMAND [ARG...]
 *
 * takes the exclusive lock DIR/.lock (flock(2); core/lock.h), creating DIR
 * and the file as needed, then execs COMMAND, which keeps the lock: it is
 * held while COMMAND or any process it starts is alive, and released when
 * the last of them ends or is killed (nothing stale to remove). When another
 * process holds it, pf-lock says so on stderr, naming the holder, and waits
 * (--no-wait: exits 1 instead).
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/lock.h"

static void usage(FILE *to)
{
    fprintf(to, "usage: pf-lock [--no-wait] DIR -- COMMAND [ARG...]\n"
                "Runs COMMAND holding the exclusive lock DIR/.lock (flock(2); DIR and the file are\n"
                "created as needed). COMMAND and every process it starts keep the lock; it goes\n"
                "when the last of them ends or is killed. When another process holds it, says so\n"
                "and waits for it (--no-wait: exits 1 instead).\n"
                "Exit codes: COMMAND's; 1 the lock cannot be taken (or is held, with --no-wait),\n"
                "2 bad usage, 127 COMMAND cannot be run.\n");
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {{"no-wait", 0, 0, 'n'}, {"help", 0, 0, 'h'}, {0, 0, 0, 0}};
    bool wait = true;
    int c;
    while ((c = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
        if (c == 'n') wait = false;
        else if (c == 'h') return usage(stdout), 0;
        else return usage(stderr), 2;
    }
    if (argc - optind < 3 || strcmp(argv[optind + 1], "--")) return usage(stderr), 2;
    const char *dir = argv[optind];
    char **cmd = argv + optind + 2;
    int fd;
    if (pf_lock_open(dir, &fd) != PF_OK) return fprintf(stderr, "pf-lock: %s\n", pf_errmsg()), 1;
    if (!pf_lock_try(fd)) {
        char who[256];
        pf_lock_holder(fd, who, sizeof who);
        if (!wait) {
            fprintf(stderr, "pf-lock: %s is being made by another make (%s); not waiting (--no-wait)\n", dir,
                    who[0] ? who : "holder unknown");
            return 1;
        }
        fprintf(stderr, "pf-lock: %s is being made by another make (%s); waiting for it to finish\n", dir,
                who[0] ? who : "holder unknown");
        if (pf_lock_wait(fd) != PF_OK) return fprintf(stderr, "pf-lock: %s/.lock: %s\n", dir, pf_errmsg()), 1;
        fprintf(stderr, "pf-lock: %s: the other make is done; going on\n", dir);
    }
    pf_lock_note(fd);
    execvp(cmd[0], cmd);
    perror("pf-lock: cannot run the command");
    fprintf(stderr, "pf-lock: the command was '%s'\n", cmd[0]);
    return 127;
}
