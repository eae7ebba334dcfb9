/* file.c — bounded reading, temp files and atomic writing (file.h). */
#include "core/file.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/sha256.h"

#define KiB ((size_t)1 << 10)
#define MiB ((size_t)1 << 20)
#define GiB ((size_t)1 << 30)

static const struct {
    size_t limit;
    const char *name;
} kinds[PF_FILE_KIND_COUNT] = {
    [PF_FILE_SPEC] = {1 * MiB, "a spec"},
    [PF_FILE_PDE] = {1 * MiB, "a .pde file"},
    [PF_FILE_SETTINGS] = {1 * MiB, "a settings file"},
    [PF_FILE_TABLE] = {1 * GiB, "a data table"},
    [PF_FILE_MSGPACK] = {256 * MiB, "a msgpack artifact"},
    [PF_FILE_H5] = {1 * GiB, "an HDF5 file"},
    [PF_FILE_KNOWLEDGE] = {16 * MiB, "a knowledge file"},
    [PF_FILE_PROMPT] = {1 * MiB, "a prompt template"},
    [PF_FILE_LOG] = {16 * MiB, "a log"},
    [PF_FILE_STATE] = {64 * KiB, "a state file"},
    [PF_FILE_ANY] = {1 * GiB, "a file"},
};

size_t pf_file_limit(pf_file_kind kind)
{
    PF_ASSERT(kind >= 0 && kind < PF_FILE_KIND_COUNT);
    return kinds[kind].limit;
}

const char *pf_file_kind_name(pf_file_kind kind)
{
    PF_ASSERT(kind >= 0 && kind < PF_FILE_KIND_COUNT);
    return kinds[kind].name;
}

/* "1 MiB", "64 KiB", ...: every limit is a whole number of one of them */
static void human(size_t n, char *buf, size_t cap)
{
    if (n % GiB == 0) snprintf(buf, cap, "%zu GiB", n / GiB);
    else if (n % MiB == 0) snprintf(buf, cap, "%zu MiB", n / MiB);
    else if (n % KiB == 0) snprintf(buf, cap, "%zu KiB", n / KiB);
    else snprintf(buf, cap, "%zu bytes", n);
}

/* size: "N bytes", or NULL when the bytes ran past the limit while read */
static pf_status too_big(const char *path, pf_file_kind kind, const char *size)
{
    char lim[32];
    human(kinds[kind].limit, lim, sizeof lim);
    return pf_fail(PF_ERR_IO, "cannot read '%s': %s%smore than the %s %s may have", path, size ? size : "",
                   size ? ", " : "", lim, kinds[kind].name);
}

static const char *type_name(mode_t m)
{
    if (S_ISDIR(m)) return "a folder";
    if (S_ISFIFO(m)) return "a FIFO";
    if (S_ISCHR(m)) return "a character device";
    if (S_ISBLK(m)) return "a block device";
    if (S_ISSOCK(m)) return "a socket";
    return "not a plain file";
}

/* The checks on a stat of path: a regular file within the kind's limit. */
static pf_status check_stat(const char *path, pf_file_kind kind, const struct stat *sb, size_t *size)
{
    if (!S_ISREG(sb->st_mode))
        return pf_fail(PF_ERR_IO, "cannot read '%s': %s, not a regular file", path, type_name(sb->st_mode));
    if (sb->st_size < 0 || (uintmax_t)sb->st_size > (uintmax_t)kinds[kind].limit) {
        char n[48];
        snprintf(n, sizeof n, "%jd bytes", (intmax_t)sb->st_size);
        return too_big(path, kind, n);
    }
    if (size) *size = (size_t)sb->st_size;
    return PF_OK;
}

pf_status pf_file_check(const char *path, pf_file_kind kind, size_t *size)
{
    PF_ASSERT(kind >= 0 && kind < PF_FILE_KIND_COUNT);
    struct stat sb;
    if (stat(path, &sb) != 0) return pf_fail(PF_ERR_IO, "cannot read '%s': %s", path, strerror(errno));
    return check_stat(path, kind, &sb, size);
}

pf_status pf_file_open(const char *path, pf_file_kind kind, int *fd, size_t *size)
{
    *fd = -1;
    /* The type first, from the name, so a device is not even opened; then
     * again on the open file (the name may have changed in between). Opened
     * O_NONBLOCK, so a FIFO put there meanwhile cannot block the open. */
    PF_TRY(pf_file_check(path, kind, NULL));
    int f = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (f < 0) return pf_fail(PF_ERR_IO, "cannot read '%s': %s", path, strerror(errno));
    struct stat sb;
    pf_status st = fstat(f, &sb) == 0 ? check_stat(path, kind, &sb, size)
                                       : pf_fail(PF_ERR_IO, "cannot read '%s': %s", path, strerror(errno));
    int fl = st == PF_OK ? fcntl(f, F_GETFL) : -1;
    if (st == PF_OK && (fl < 0 || fcntl(f, F_SETFL, fl & ~O_NONBLOCK) != 0))
        st = pf_fail(PF_ERR_IO, "cannot read '%s': %s", path, strerror(errno));
    if (st != PF_OK) {
        close(f);
        return st;
    }
    *fd = f;
    return PF_OK;
}

pf_status pf_file_fopen(const char *path, pf_file_kind kind, FILE **out)
{
    *out = NULL;
    int fd;
    PF_TRY(pf_file_open(path, kind, &fd, NULL));
    FILE *f = fdopen(fd, "r");
    if (!f) {
        int e = errno;
        close(fd);
        return pf_fail(e == ENOMEM ? PF_ERR_NOMEM : PF_ERR_IO, "cannot read '%s': %s", path, strerror(e));
    }
    *out = f;
    return PF_OK;
}

pf_status pf_file_read_as(const char *path, pf_file_kind kind, char **out, size_t *len)
{
    PF_ASSERT(kind >= 0 && kind < PF_FILE_KIND_COUNT);
    *out = NULL;
    *len = 0;
    bool std_in = !strcmp(path, "-");
    size_t size = 0, limit = kinds[kind].limit;
    int fd = 0;
    if (!std_in) PF_TRY(pf_file_open(path, kind, &fd, &size));
    /* room for the file, its NUL, and one more byte so the read that sees
     * EOF needs no realloc; never more than the limit + 2 */
    size_t cap = std_in || size < 64 ? 4096 : size + 2;
    if (cap > limit + 2) cap = limit + 2;
    size_t n = 0;
    char *buf = malloc(cap);
    int err = buf ? 0 : ENOMEM;
    bool over = false;
    while (!err) {
        if (n + 1 >= cap) {
            size_t bigger_cap = cap > (limit + 2) / 2 ? limit + 2 : cap * 2;
            char *bigger = bigger_cap > cap ? realloc(buf, bigger_cap) : NULL;
            if (!bigger) {
                if (bigger_cap > cap) err = ENOMEM;
                else over = true; /* cannot happen: n <= limit leaves room */
                break;
            }
            buf = bigger;
            cap = bigger_cap;
        }
        ssize_t r = read(fd, buf + n, cap - n - 1);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) err = errno;
        if (r <= 0) break;
        n += (size_t)r;
        if (n > limit) {
            over = true;
            break;
        }
    }
    if (!std_in) close(fd);
    if (err || over) {
        free(buf);
        if (over) return too_big(path, kind, NULL);
        return pf_fail(err == ENOMEM ? PF_ERR_NOMEM : PF_ERR_IO, "cannot read '%s': %s", path, strerror(err));
    }
    buf[n] = 0;
    *out = buf;
    *len = n;
    return PF_OK;
}

const char *pf_file_why(const char *path)
{
    const char *m = pf_errmsg();
    size_t pl = strlen(path);
    if (!strncmp(m, "cannot read '", 13) && !strncmp(m + 13, path, pl) && !strncmp(m + 13 + pl, "': ", 3))
        return m + 13 + pl + 3;
    return m;
}

pf_status pf_file_read(const char *path, char **out, size_t *len)
{
    return pf_file_read_as(path, PF_FILE_ANY, out, len);
}

/* ------------------------------------------------------------ writing */

/* Six characters of [A-Za-z0-9], different on every call. */
static void suffix(char out[7])
{
    static const char alnum[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    static unsigned long counter;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t x = (uint64_t)ts.tv_nsec * 0x9E3779B97F4A7C15ULL ^ (uint64_t)ts.tv_sec ^
                 ((uint64_t)getpid() << 32) ^ (uint64_t)__atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED) * 0xBF58476D1CE4E5B9ULL;
    x ^= (uint64_t)(uintptr_t)&ts; /* the stack's address: a thread's own */
    for (int i = 0; i < 6; i++) {
        x ^= x >> 31, x *= 0x94D049BB133111EBULL, x ^= x >> 29;
        out[i] = alnum[x % 62];
    }
    out[6] = 0;
}

pf_status pf_tmp_create(const char *path, char **tmp, int *fd)
{
    *tmp = NULL;
    *fd = -1;
    size_t cap = strlen(path) + 48;
    char *t = malloc(cap);
    if (!t) return pf_fail(PF_ERR_NOMEM, "out of memory writing '%s'", path);
    int err = EEXIST;
    for (int tries = 0; tries < 64 && err == EEXIST; tries++) {
        char s[7];
        suffix(s);
        snprintf(t, cap, "%s.tmp.%ld.%s", path, (long)getpid(), s);
        *fd = open(t, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0666);
        err = *fd < 0 ? errno : 0;
    }
    if (err) {
        pf_status st = pf_fail(PF_ERR_IO, "cannot create '%s' (temp file '%s'): %s", path, t, strerror(err));
        free(t);
        return st;
    }
    *tmp = t;
    return PF_OK;
}

/* n is "<pid>" or "<pid>.<letters and digits>": the pid, else 0 */
static long tmp_pid(const char *n)
{
    if (!(*n >= '0' && *n <= '9')) return 0;
    char *end;
    errno = 0;
    long pid = strtol(n, &end, 10);
    if (errno || pid <= 0) return 0;
    if (!*end) return pid;
    if (*end != '.' || !end[1]) return 0;
    for (const char *s = end + 1; *s; s++)
        if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9'))) return 0;
    return pid;
}

/* Whether process pid has ended: no such process, or one killed that its
 * parent has not reaped yet (a zombie: a stage killed with its make, whose
 * orphans wait for PID 1 to reap them, while the resumed run writes). */
static bool process_gone(long pid)
{
    if (kill((pid_t)pid, 0) != 0) return errno == ESRCH;
    char name[64], buf[512];
    snprintf(name, sizeof name, "/proc/%ld/stat", pid);
    int fd = open(name, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return false;
    buf[n] = 0;
    const char *paren = strrchr(buf, ')'); /* "pid (comm) S ...": comm may hold anything */
    return paren && paren[1] == ' ' && (paren[2] == 'Z' || paren[2] == 'X');
}

void pf_tmp_sweep(const char *path, int *removed)
{
    if (removed) *removed = 0;
    const char *slash = strrchr(path, '/');
    size_t dlen = slash ? (size_t)(slash - path) : 0;
    const char *base = slash ? slash + 1 : path;
    char dir[4096];
    if (dlen >= sizeof dir) return;
    if (slash) memcpy(dir, path, dlen), dir[dlen] = 0;
    else strcpy(dir, ".");
    if (slash && dlen == 0) strcpy(dir, "/");
    DIR *d = opendir(dir);
    if (!d) return;
    size_t blen = strlen(base);
    struct dirent *e;
    while ((e = readdir(d))) {
        const char *n = e->d_name;
        if (strncmp(n, base, blen) || strncmp(n + blen, ".tmp.", 5)) continue;
        long pid = tmp_pid(n + blen + 5);
        if (pid <= 0 || pid == (long)getpid()) continue;
        if (!process_gone(pid)) continue; /* alive, or not ours to judge */
        char full[4096 + 256];
        snprintf(full, sizeof full, "%s/%s", dir, n);
        if (unlink(full) == 0 && removed) (*removed)++;
    }
    closedir(d);
}

pf_status pf_file_write_atomic(const char *path, const void *data, size_t len)
{
    pf_tmp_sweep(path, NULL);
    char *tmp;
    int fd;
    PF_TRY(pf_tmp_create(path, &tmp, &fd));
    const char *what = "write";
    int err = 0;
    const char *p = data;
    for (size_t left = len; left > 0;) {
        ssize_t w = write(fd, p, left);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            err = w < 0 ? errno : EIO;
            break;
        }
        p += w;
        left -= (size_t)w;
    }
    if (!err && fsync(fd) != 0) {
        err = errno;
        what = "sync";
    }
    if (close(fd) != 0 && !err) {
        err = errno;
        what = "close";
    }
    if (!err && rename(tmp, path) != 0) {
        err = errno;
        what = "rename the temp file onto";
    }
    if (err) {
        unlink(tmp);
        pf_status st = pf_fail(PF_ERR_IO, "cannot %s '%s' (temp file '%s'): %s", what, path, tmp, strerror(err));
        free(tmp);
        return st;
    }
    free(tmp);
    return PF_OK;
}

pf_status pf_mkdirs(const char *dir)
{
    char p[4096];
    if (!*dir) return pf_fail(PF_ERR_IO, "cannot create a folder with an empty name");
    if (snprintf(p, sizeof p, "%s", dir) >= (int)sizeof p)
        return pf_fail(PF_ERR_IO, "output folder name '%s' is too long", dir);
    for (char *s = p + 1;; s++) {
        int end = *s == 0;
        if (*s == '/' || end) {
            *s = 0;
            if (mkdir(p, 0777) != 0 && errno != EEXIST)
                return pf_fail(PF_ERR_IO, "cannot create the folder '%s': %s", p, strerror(errno));
            if (end) break;
            *s = '/';
        }
    }
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return pf_fail(PF_ERR_IO, "'%s' is not a folder", dir);
    return PF_OK;
}

pf_status pf_file_sha256(const char *path, pf_file_kind kind, char hex[PF_SHA256_HEX])
{
    char *buf;
    size_t len;
    PF_TRY(pf_file_read_as(path, kind, &buf, &len));
    pf_status st = pf_sha256_hex(buf, len, hex);
    free(buf);
    return st;
}
