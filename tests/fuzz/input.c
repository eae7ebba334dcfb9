/* input.c — the fuzz harnesses' input as text or as a file (input.h). */
#include "input.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/status.h"
#include "registry.h"

static char dir[4096];
static char file[4096 + 256];
enum { MAX_FILES = 8 };
static char made[MAX_FILES][4096 + 256]; /* the files made, removed at exit */
static int nmade;

static void die(const char *what)
{
    perror(what);
    abort();
}

static void remove_dir(void)
{
    for (int i = 0; i < nmade; i++) unlink(made[i]);
    rmdir(dir);
}

const char *pf_fuzz_dir(void)
{
    if (dir[0]) return dir;
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/pf_fuzz_XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) die("pf_fuzz_dir: mkdtemp");
    atexit(remove_dir);
    return dir;
}

char *pf_fuzz_text(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s) return NULL;
    if (size) memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

const char *pf_fuzz_file(const char *name, const uint8_t *data, size_t size)
{
    snprintf(file, sizeof file, "%s/%s", pf_fuzz_dir(), name);
    int i = 0;
    while (i < nmade && strcmp(made[i], file)) i++;
    if (i == nmade) {
        if (nmade == MAX_FILES) {
            fprintf(stderr, "pf_fuzz_file: more than %d file names\n", MAX_FILES);
            abort();
        }
        memcpy(made[nmade++], file, sizeof file);
    }
    FILE *f = fopen(file, "wb");
    if (!f) die(file);
    bool written = !size || fwrite(data, 1, size, f) == size;
    if (fclose(f) != 0 || !written) die(file);
    return file;
}

const pf_pde *pf_fuzz_pde(const char *name)
{
    const pf_pde *p;
    if (pf_pdes_lookup(name, &p) != PF_OK) {
        fprintf(stderr, "fuzz: %s\n", pf_errmsg());
        abort();
    }
    return p;
}
