/* launch_record.c — a training folder's launch.txt (launch_record.h). */
#define _GNU_SOURCE
#include "search/launch_record.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/file.h"

pf_launch_record pf_launch_record_read(const char *train_dir)
{
    pf_launch_record l = {PF_LAUNCH_NONE, 0};
    char path[4200], line[512], word[16], host[256] = "", here[256] = "";
    if ((size_t)snprintf(path, sizeof path, "%s/launch.txt", train_dir) >= sizeof path) return l;
    FILE *f;
    if (pf_file_fopen(path, PF_FILE_STATE, &f) != PF_OK) return l; /* none, or not a plain file */
    bool got = fgets(line, sizeof line, f) != NULL;
    fclose(f);
    if (!got || sscanf(line, "%15s", word) != 1) return l;
    int rc;
    if (!strcmp(word, "failed")) {
        l.state = PF_LAUNCH_FAILED;
        if (sscanf(line, "failed %d %ld", &rc, &l.failed_at) != 2) l.failed_at = 0;
        return l;
    }
    if (strcmp(word, "submitted") && strcmp(word, "running")) return l;
    l.state = PF_LAUNCH_RUNNING;
    long pid;
    if (sscanf(line, "running local %255s %ld", host, &pid) != 2) return l; /* slurm */
    gethostname(here, sizeof here - 1);
    if (strcmp(host, here)) return l; /* another host: trust it */
    if (!(pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM))) l.state = PF_LAUNCH_NONE;
    return l;
}
