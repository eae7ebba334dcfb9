/* slots.c — a cross-process counting semaphore of lock files (slots.h). */
#include "core/slots.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/file.h"

static int word(const char *s)
{
    if (!s || !*s || strlen(s) > 200) return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_' ||
              *s == '.' || *s == '-'))
            return 0;
    return 1;
}

static pf_status check(const char *dir, const char *name, int n)
{
    if (!dir || !*dir) return pf_fail(PF_ERR_INVALID, "slots: no folder given");
    if (!word(name))
        return pf_fail(PF_ERR_INVALID, "slots: the name '%s' is not a word (letters, digits, '_', '.', '-')",
                       name ? name : "(null)");
    if (n < 1 || n > PF_SLOTS_MAX)
        return pf_fail(PF_ERR_INVALID, "slots: %d slots for '%s' (expected 1 to %d)", n, name, PF_SLOTS_MAX);
    return PF_OK;
}

/* Open DIR/NAME.i.lock: a fresh open file description, close-on-exec. */
static pf_status open_slot(const char *dir, const char *name, int i, int *fd)
{
    char path[4400];
    if (snprintf(path, sizeof path, "%s/%s.%d.lock", dir, name, i) >= (int)sizeof path)
        return pf_fail(PF_ERR_IO, "slots: folder name '%s' is too long", dir);
    int f;
    while ((f = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0666)) < 0 &&
           errno == EINTR) {}
    if (f < 0 && (errno == EROFS || errno == EACCES))
        f = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (f < 0) return pf_fail(PF_ERR_IO, "cannot open the slot file '%s': %s", path, strerror(errno));
    struct stat sb;
    if (fstat(f, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        close(f);
        return pf_fail(PF_ERR_IO, "the slot file '%s' is not a regular file", path);
    }
    *fd = f;
    return PF_OK;
}

/* One pass over the n files: 1 when one was taken. */
static pf_status one_pass(const char *dir, const char *name, int n, pf_slot *s, int *taken)
{
    *taken = 0;
    for (int i = 0; i < n; i++) {
        int fd;
        PF_TRY(open_slot(dir, name, i, &fd));
        int r;
        while ((r = flock(fd, LOCK_EX | LOCK_NB)) != 0 && errno == EINTR) {}
        if (r == 0) {
            s->fd = fd;
            s->index = i;
            *taken = 1;
            return PF_OK;
        }
        int err = errno;
        close(fd);
        if (err != EWOULDBLOCK) return pf_fail(PF_ERR_IO, "slots: cannot lock slot %d of '%s' in '%s': %s", i, name,
                                               dir, strerror(err));
    }
    return PF_OK;
}

pf_status pf_slots_try(const char *dir, const char *name, int n, pf_slot *s)
{
    *s = (pf_slot){-1, -1};
    PF_TRY(check(dir, name, n));
    PF_TRY(pf_mkdirs(dir));
    int taken;
    return one_pass(dir, name, n, s, &taken);
}

pf_status pf_slots_take(const char *dir, const char *name, int n, pf_slot *s)
{
    *s = (pf_slot){-1, -1};
    PF_TRY(check(dir, name, n));
    PF_TRY(pf_mkdirs(dir));
    long wait_ms = 5;
    for (;;) {
        int taken;
        PF_TRY(one_pass(dir, name, n, s, &taken));
        if (taken) return PF_OK;
        struct timespec t = {.tv_sec = 0, .tv_nsec = wait_ms * 1000000L};
        while (nanosleep(&t, &t) != 0 && errno == EINTR) {}
        if (wait_ms < 100) wait_ms *= 2;
    }
}

void pf_slots_give(pf_slot *s)
{
    if (s->fd >= 0) close(s->fd); /* drops the flock */
    *s = (pf_slot){-1, -1};
}

pf_status pf_slots_dir(const char *env, char *buf, size_t cap)
{
    const char *v = env ? getenv(env) : NULL;
    int n;
    if (v && *v) {
        n = snprintf(buf, cap, "%s", v);
    } else {
        const char *tmp = getenv("TMPDIR");
        n = snprintf(buf, cap, "%s/pinnforge-slots-%ld", tmp && *tmp ? tmp : "/tmp", (long)getuid());
    }
    if (n < 0 || (size_t)n >= cap) return pf_fail(PF_ERR_INVALID, "the slots folder name is too long");
    return PF_OK;
}
