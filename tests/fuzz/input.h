/*
 * input.h — what the fuzz harnesses (tests/fuzz/fuzz_*.c) share.
 *
 * A harness defines LLVMFuzzerTestOneInput(), the entry libFuzzer calls
 * once per input (`make fuzz`) and replay_main.c calls once per file
 * (`make test`). The input is bytes; these helpers turn it into what a
 * parser takes: a NUL-terminated string, or a file in a private temporary
 * folder (for the readers that take a path). The folder is made on first
 * use under $TMPDIR (or /tmp) and removed when the process exits normally
 * (a crash leaves it, with the crashing input's file), so a harness writes
 * nothing anywhere else.
 *
 *     char *text = pf_fuzz_text(data, size);
 *     if (!text) return 0;
 *     ... parse text ...
 *     free(text);
 *
 * Failing to make the folder or write the file is no finding: the process
 * stops with a message (abort), since the harness cannot go on.
 */
#ifndef PF_TESTS_FUZZ_INPUT_H
#define PF_TESTS_FUZZ_INPUT_H

#include <stddef.h>
#include <stdint.h>

#include "geom/pde.h"

/* libFuzzer's entry point: every harness defines it, replay_main.c calls it. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* data[0..size) and a NUL (embedded NULs stay and end the string early, as
 * they would for a text read from a file). malloc'ed; NULL when out of
 * memory. */
char *pf_fuzz_text(const uint8_t *data, size_t size);

/* data[0..size) written to the file `name` (a plain file name) in the
 * harness's temporary folder, replacing what was there; its path, valid
 * until the next call. At most 8 different names per process. */
const char *pf_fuzz_file(const char *name, const uint8_t *data, size_t size);

/* The temporary folder itself (made on first use). */
const char *pf_fuzz_dir(void);

/* The built-in PDE `name` (pdes/registry.h); aborts when it is absent. */
const pf_pde *pf_fuzz_pde(const char *name);

#endif
