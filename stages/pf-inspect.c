/*
 * pf-inspect — print any of our artifacts in readable form.
 *
 *   pf-inspect FILE    HDF5 (by signature): one line per group and dataset,
 *                      with attributes; otherwise msgpack: each object as JSON
 *
 * Our HDF5 files carry a checksum header (io/h5.h): it is checked before
 * HDF5 reads the file, and a corrupt file is refused (exit 1), never handed
 * to HDF5, which can crash on damaged metadata. A checksum can be
 * recomputed, and another tool's file has none: HDF5 reads the file in a
 * child process, whose crash (or loop) is an error naming the file (exit 1).
 *
 * Exit codes: 0 ok, 1 unreadable file or unknown format, 2 usage error.
 */
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/file.h"
#include "io/h5.h"
#include "io/h5_print.h"
#include "io/msgpack_dump.h"

static void usage(FILE *to)
{
    fprintf(to,
            "usage: pf-inspect FILE\n"
            "Prints one of our artifacts in readable form; the format is detected by content.\n"
            "\n"
            "HDF5 (signature \\x89HDF\\r\\n\\x1a\\n): the root attributes, then one line per\n"
            "group and dataset, in name order:\n"
            "  /path  group\n"
            "  /path  dataset TYPE (d1, d2, ...)\n"
            "followed by that object's attributes, one a line, as\n"
            "    @name = value\n"
            "with strings quoted, numbers as is and arrays of up to %d elements as [a, b, ...]\n"
            "(longer ones as TYPE (shape)). Soft and external links are shown as\n"
            "  /path  link -> TARGET\n"
            "Files written by PinnForge start with a checksum header (PINNFORGE-H5, in a\n"
            "512-byte user block); a file whose header is damaged or whose checksum does not\n"
            "match is refused (exit 1) before HDF5 reads it. HDF5 reads every file in a\n"
            "child process: if it crashes (or loops) on a damaged file, that is exit 1 with\n"
            "a message naming the file.\n"
            "\n"
            "msgpack: a file of one or more concatenated objects, each a map or an array at\n"
            "the top level, printed as pretty JSON, one document per object. Map keys that are\n"
            "not strings become strings (numbers in decimal, anything else as compact JSON);\n"
            "bin values become \"base64:<data>\"; ext values {\"ext\": TYPE, \"data\":\n"
            "\"base64:<data>\"}; non-finite floats the strings \"nan\", \"inf\", \"-inf\"; unsigned\n"
            "integers above 2^63-1 become JSON reals.\n"
            "\n"
            "Exit status: 0 ok, 1 unreadable file or unknown format, 2 usage error.\n",
            PF_H5_PRINT_SHORT_ARRAY);
}

/* ------------------------------------------------------------------ file */


static const char HDF5_SIG[8] = {'\x89', 'H', 'D', 'F', '\r', '\n', '\x1a', '\n'};

/* HDF5 keeps its signature at 0, or after a user block at 512, 1024, 2048,
 * ...; ours starts with our header (io/h5.h), even when a damaged byte hides
 * the signature behind it. */
static bool is_hdf5(const char *buf, size_t len)
{
    if (len >= 4 && memcmp(buf, PF_H5_MAGIC, 4) == 0) return true;
    for (size_t off = 0; off + sizeof HDF5_SIG <= len; off = off ? off * 2 : 512)
        if (memcmp(buf + off, HDF5_SIG, sizeof HDF5_SIG) == 0) return true;
    return false;
}

/* --------------------------------------------------------------- msgpack */

/* 0 after printing every object, 1 when the bytes are not our msgpack. */
static int inspect_msgpack(const char *path, const char *buf, size_t len)
{
    json_t *docs, *d;
    if (pf_msgpack_dump_json(path, buf, len, &docs) != PF_OK) { /* io/msgpack_dump.h */
        fprintf(stderr, "pf-inspect: %s\n", pf_errmsg());
        return 1;
    }
    size_t i;
    json_array_foreach(docs, i, d)
    {
        json_dumpf(d, stdout, JSON_INDENT(2) | JSON_ENCODE_ANY);
        fputc('\n', stdout);
    }
    json_decref(docs);
    return 0;
}

/* ------------------------------------------------------------------ main */

int main(int argc, char **argv)
{
    const char *file = NULL;
    bool opts = true;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (opts && (!strcmp(a, "--help") || !strcmp(a, "-h"))) {
            usage(stdout);
            return 0;
        }
        if (opts && !strcmp(a, "--")) {
            opts = false;
        } else if (opts && a[0] == '-' && a[1]) {
            fprintf(stderr, "pf-inspect: unknown option '%s'\n", a);
            usage(stderr);
            return 2;
        } else if (file) {
            fprintf(stderr, "pf-inspect: one FILE only\n");
            usage(stderr);
            return 2;
        } else {
            file = a;
        }
    }
    if (!file) {
        usage(stderr);
        return 2;
    }
    size_t len = 0;
    char *buf;
    if (pf_file_read(file, &buf, &len) != PF_OK) {
        fprintf(stderr, "pf-inspect: %s\n", pf_errmsg());
        return 1;
    }
    int rc = 0;
    if (!is_hdf5(buf, len)) {
        rc = inspect_msgpack(file, buf, len);
    } else if (pf_h5_print(file, buf, len, stdout) != PF_OK) { /* io/h5_print.h */
        fprintf(stderr, "pf-inspect: %s\n", pf_errmsg());
        rc = 1;
    }
    free(buf);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "pf-inspect: cannot write the output\n");
        return 1;
    }
    return rc;
}
