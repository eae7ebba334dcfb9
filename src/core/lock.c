/* lock.c — an exclusive lock per folder (lock.h). */
#include "core/lock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/file.h"

pf_status pf_lock_open(const char *dir, int *fd)
{
    return pf_lock_open_named(dir, PF_LOCK_FILE, fd);
}

pf_status pf_lock_open_named(const char *dir, const char *name, int *fd)
{
    *fd = -1;
    char path[4200];
    if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path)
        return pf_fail(PF_ERR_IO, "folder name '%s' is too long", dir);
    PF_TRY(pf_mkdirs(dir));
    /* O_NONBLOCK: a FIFO planted there must not block the open */
    int f = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, 0666);
    if (f < 0 && (errno == EROFS || errno == EACCES)) f = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
    if (f < 0) return pf_fail(PF_ERR_IO, "cannot open the lock '%s': %s", path, strerror(errno));
    struct stat sb;
    if (fstat(f, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        close(f);
        return pf_fail(PF_ERR_IO, "the lock '%s' is not a regular file", path);
    }
    int fl = fcntl(f, F_GETFL);
    if (fl >= 0) fcntl(f, F_SETFL, fl & ~O_NONBLOCK);
    *fd = f;
    return PF_OK;
}

bool pf_lock_try(int fd)
{
    int r;
    while ((r = flock(fd, LOCK_EX | LOCK_NB)) != 0 && errno == EINTR) {}
    return r == 0;
}

pf_status pf_lock_wait(int fd)
{
    while (flock(fd, LOCK_EX) != 0)
        if (errno != EINTR) return pf_fail(PF_ERR_IO, "cannot take the lock: %s", strerror(errno));
    return PF_OK;
}

void pf_lock_holder(int fd, char *buf, size_t cap)
{
    buf[0] = 0;
    if (cap < 2) return;
    ssize_t n = pread(fd, buf, cap - 1, 0);
    buf[n > 0 ? n : 0] = 0;
    buf[strcspn(buf, "\n")] = 0;
    for (char *c = buf; *c; c++)
        if ((unsigned char)*c < 0x20 || (unsigned char)*c == 0x7f) *c = '?';
}

void pf_lock_note(int fd)
{
    char host[256] = "?", note[400];
    gethostname(host, sizeof host - 1);
    host[sizeof host - 1] = 0;
    int n = snprintf(note, sizeof note, "pid %ld on host %s since %lld\n", (long)getpid(), host,
                     (long long)time(NULL));
    if (n <= 0 || ftruncate(fd, 0) != 0) return;
    if (pwrite(fd, note, (size_t)n, 0) != n) return;
}
