/*
 * slots.h — at most N holders at once across processes: a counting
 * semaphore made of N lock files, DIR/NAME.0.lock ... DIR/NAME.<N-1>.lock.
 *
 *     pf_slot s;
 *     PF_TRY(pf_slots_take("/tmp/pinnforge-llm-slots-1000", "local-1a2b3c4d", 4, &s));
 *     ...at most 4 processes (or threads) in here at once, over all processes...
 *     pf_slots_give(&s);
 *
 * Taking a slot opens each file in turn (a fresh open file description
 * every time, so two threads of one process contend like two processes)
 * and takes the first whose exclusive flock(2) is free without waiting;
 * when all N are held it sleeps (5 ms, doubling to 100 ms) and tries
 * again. Giving it back closes the file. A holder that dies, killed or
 * not, frees its slot at once (the kernel drops the lock with the last
 * descriptor), so there is never a stale slot to clean up. The descriptor
 * is close-on-exec; a child forked while a slot is held shares it until
 * it exits. The files are created mode 0666 (less the umask) and left in
 * place; the folder is created as needed (mkdir -p).
 */
#ifndef PF_CORE_SLOTS_H
#define PF_CORE_SLOTS_H

#include <stddef.h>

#include "core/status.h"

#define PF_SLOTS_MAX 1024 /* the most slots one name may have */

typedef struct pf_slot {
    int fd;    /* the held lock file, -1 when none */
    int index; /* which of the N, -1 when none */
} pf_slot;

/* Wait until one of the n slots of name under dir is ours (*s). name is
 * a word (letters, digits, '_', '.', '-'); n is 1..PF_SLOTS_MAX.
 * PF_ERR_INVALID for a bad name or n, PF_ERR_IO (naming the file) when a
 * lock file cannot be opened; *s is then {-1, -1}. */
pf_status pf_slots_take(const char *dir, const char *name, int n, pf_slot *s);

/* The same without waiting: PF_OK with s->index >= 0 when a slot was free,
 * PF_OK with s->index == -1 when all n are held. */
pf_status pf_slots_try(const char *dir, const char *name, int n, pf_slot *s);

/* Give the slot back (no-op when none is held); s becomes {-1, -1}. */
void pf_slots_give(pf_slot *s);

/* The folder of slot files: $<env> when env is given and the variable is
 * set and non-empty, else $TMPDIR (or /tmp)/pinnforge-slots-<uid>.
 * PF_ERR_INVALID when it does not fit in cap bytes. */
pf_status pf_slots_dir(const char *env, char *buf, size_t cap);

#endif
