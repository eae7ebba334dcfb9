/*
 * launch_record.h — a training folder's launch.txt, the state its launcher
 * (scripts/launch.sh) records while the training runs and after it fails:
 *
 *   running local <host> <pid> <epoch>     while it runs here
 *   submitted slurm <epoch>                 until Slurm starts it
 *   running slurm <job id> <host> <epoch>  once it runs on a node
 *   failed <rc> <epoch>                     when it exited non-zero
 *
 * The file goes away when the training succeeds. Read by make study-status
 * (stats/progress.h) and by pf-plan (a failure in this make is not retried).
 *
 *     pf_launch_record l = pf_launch_record_read("runs/p/pinnforge/run0/gen00/cand0");
 *     if (l.state == PF_LAUNCH_FAILED) printf("failed at %ld\n", l.failed_at);
 */
#ifndef PF_SEARCH_LAUNCH_RECORD_H
#define PF_SEARCH_LAUNCH_RECORD_H

typedef enum pf_launch_state {
    PF_LAUNCH_NONE = 0, /* no file (done, or never started), or not a launcher's record */
    PF_LAUNCH_RUNNING,  /* submitted or running: a local one only while its launcher lives on this host */
    PF_LAUNCH_FAILED,   /* failed_at holds when (0 when the line has no time) */
} pf_launch_state;

typedef struct pf_launch_record {
    pf_launch_state state;
    long failed_at; /* seconds since the epoch, for PF_LAUNCH_FAILED */
} pf_launch_record;

/* The record in train_dir/launch.txt (a plain file of at most a state
 * file's size, core/file.h; anything else reads as none). */
pf_launch_record pf_launch_record_read(const char *train_dir);

#endif
