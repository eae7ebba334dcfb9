/*
 * lock.h — one writer per folder: an exclusive flock(2) on FOLDER/.lock.
 *
 *     int fd;
 *     PF_TRY(pf_lock_open("runs/burgers_1d/pinnforge/run0", &fd));
 *     if (!pf_lock_try(fd)) {                  // held by another process
 *         char who[256];
 *         pf_lock_holder(fd, who, sizeof who); // "pid 123 on host h since 1764000000"
 *         ...say so...
 *         PF_TRY(pf_lock_wait(fd));            // blocks until it is ours
 *     }
 *     pf_lock_note(fd);                        // who holds it now, for the next one
 *     // exec the work: the lock lives as long as fd is open in any process
 *
 * The lock belongs to the open file: it is held while any process that has
 * the descriptor (the one that took it, what it execs, their children) is
 * alive, and goes the moment the last of them exits or is killed, so there
 * is never a stale lock to remove. The descriptor is not close-on-exec, on
 * purpose (pf-lock execs make with it). The file is created mode 0666 (less
 * the umask) with O_NOFOLLOW and must be a regular file; on a read-only
 * file system an existing one is opened read-only (flock needs no write
 * access), and pf_lock_note() then writes nothing.
 */
#ifndef PF_CORE_LOCK_H
#define PF_CORE_LOCK_H

#include <stdbool.h>
#include <stddef.h>

#include "core/status.h"

#define PF_LOCK_FILE ".lock"

/* Create the folder dir as needed (mkdir -p) and open dir/.lock into *fd.
 * PF_ERR_IO naming the file on failure (a link or not a regular file too). */
pf_status pf_lock_open(const char *dir, int *fd);

/* The same for the lock file dir/name: a second lock in a folder, for a
 * file that processes under the folder's make update in turn (close(fd)
 * lets it go). */
pf_status pf_lock_open_named(const char *dir, const char *name, int *fd);

/* Take the lock without waiting: true when it is ours now, false when
 * another process holds it. */
bool pf_lock_try(int fd);

/* Wait until the lock is ours; PF_ERR_IO on failure. */
pf_status pf_lock_wait(int fd);

/* The holder's note (its first line; "" when none) into buf. */
void pf_lock_holder(int fd, char *buf, size_t cap);

/* Write our note, "pid P on host H since T": best effort. */
void pf_lock_note(int fd);

#endif
