/*
 * replay_main.c — runs a fuzz harness over files, without libFuzzer.
 *
 *   pf-fuzz-replay-<harness> PATH...     (make test: tests/t1010-fuzz-replay.sh)
 *
 * Linked with one tests/fuzz/fuzz_<harness>.c in the normal build (gcc, the
 * build's flags, ASan and UBSan under SANITIZE=1), it calls the harness's
 * LLVMFuzzerTestOneInput() once per file: each PATH is a file, or a folder
 * whose files (not sub-folders, not hidden files) are taken in name order.
 * Prints "N inputs replayed" and exits 0; a harness that finds a defect
 * aborts (or the sanitizers stop the process), so a non-zero exit is a
 * finding, and the last "replaying FILE" line on stderr under
 * PF_FUZZ_VERBOSE=1 names the input. Exit 1 when a PATH cannot be read,
 * 2 on bad usage.
 */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "input.h"
#include "io/msgpack_json.h"

static bool verbose;

static int replay_file(const char *path)
{
    char *data;
    size_t len;
    if (pf_file_read(path, &data, &len) != PF_OK) {
        fprintf(stderr, "pf-fuzz-replay: %s\n", pf_errmsg());
        return -1;
    }
    if (verbose) fprintf(stderr, "replaying %s (%zu bytes)\n", path, len);
    LLVMFuzzerTestOneInput((const uint8_t *)data, len);
    free(data);
    return 1;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

/* Every file of a folder, in name order; the count, or -1. */
static int replay_dir(const char *dir)
{
    struct dirent **list;
    int n = scandir(dir, &list, NULL, by_name);
    if (n < 0) {
        fprintf(stderr, "pf-fuzz-replay: cannot read the folder '%s': %s\n", dir, strerror(errno));
        return -1;
    }
    int count = 0;
    for (int i = 0; i < n; i++) {
        char path[8192];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, list[i]->d_name);
        if (list[i]->d_name[0] != '.' && count >= 0 && stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
            int r = replay_file(path);
            count = r < 0 ? -1 : count + r;
        }
        free(list[i]);
    }
    free(list);
    return count;
}

int main(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        fprintf(argc < 2 ? stderr : stdout,
                "usage: %s PATH...\n"
                "Runs this fuzz harness once per input file, without libFuzzer: each PATH is a\n"
                "file or a folder of files (the seed corpus tests/fuzz/corpus/<harness>/, the\n"
                "regression inputs tests/fuzz/regressions/<harness>/). Prints how many inputs\n"
                "ran; a defect the harness finds ends the process with an error.\n"
                "PF_FUZZ_VERBOSE=1 names each file on stderr before it runs.\n",
                argv[0]);
        return argc < 2 ? 2 : 0;
    }
    const char *v = getenv("PF_FUZZ_VERBOSE");
    verbose = v && !strcmp(v, "1");
    int total = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "pf-fuzz-replay: cannot read '%s': %s\n", argv[i], strerror(errno));
            return 1;
        }
        int n = S_ISDIR(st.st_mode) ? replay_dir(argv[i]) : replay_file(argv[i]);
        if (n < 0) return 1;
        total += n;
    }
    printf("%d inputs replayed\n", total);
    return 0;
}
