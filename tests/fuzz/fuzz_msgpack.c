/*
 * fuzz_msgpack.c — msgpack artifacts as a disk hands them back
 * (io/msgpack_json.h, search/artifact.h, search/select.h):
 * pf_msgpack_check and pf_json_from_msgpack on the bytes; a value that
 * decodes must encode again (pf_json_to_msgpack), and its encoding must
 * decode to a value with the same encoding. Then, by the document's "format", the run-file reader that a stage
 * would call: proposal, evidence, memory, knowledge and final files through
 * their readers (from a file in the harness's temporary folder, as they
 * take a path), select.msgpack through pf_select_from_json in memory.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "input.h"
#include "io/msgpack_json.h"
#include "search/artifact.h"

/* Encoding is a function of the value: doc's bytes decode to a value with the
 * same bytes. (Bytes, not json_equal: jansson compares object keys as C
 * strings, and msgpack keys may hold a NUL.) */
static void round_trip(const json_t *doc)
{
    char *buf, *again_buf;
    size_t len, again_len;
    if (pf_json_to_msgpack(doc, &buf, &len) != PF_OK) abort(); /* whatever decodes, encodes */
    json_t *again;
    if (pf_json_from_msgpack(buf, len, &again) != PF_OK) abort();
    if (pf_json_to_msgpack(again, &again_buf, &again_len) != PF_OK) abort();
    if (again_len != len || memcmp(buf, again_buf, len)) abort();
    json_decref(again);
    free(again_buf);
    free(buf);
}

static void read_artifact(const char *format, const uint8_t *data, size_t size, const json_t *doc)
{
    if (!strcmp(format, "pinnforge.select")) {
        pf_select *s;
        if (pf_select_from_json(doc, &s) == PF_OK) pf_select_free(s);
        return;
    }
    const char *path = pf_fuzz_file("artifact.msgpack", data, size);
    if (!strcmp(format, "pinnforge.proposal")) {
        pf_proposal_file f;
        if (pf_proposal_file_read(path, &f) == PF_OK) pf_proposal_file_release(&f);
    } else if (!strcmp(format, "pinnforge.evidence")) {
        pf_evidence_file f;
        if (pf_evidence_file_read(path, &f) == PF_OK) pf_evidence_file_release(&f);
    } else if (!strcmp(format, "pinnforge.memory")) {
        pf_memory_file f;
        if (pf_memory_file_read(path, &f) == PF_OK) pf_memory_file_release(&f);
    } else if (!strcmp(format, "pinnforge.knowledge")) {
        json_t *entries;
        if (pf_knowledge_file_read(path, &entries) == PF_OK) json_decref(entries);
    } else if (!strcmp(format, "pinnforge.final")) {
        pf_final_file f;
        if (pf_final_file_read(path, &f) == PF_OK) pf_final_file_release(&f);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *buf = (const char *)data;
    size_t used;
    pf_status checked = pf_msgpack_check(buf, size, &used);
    json_t *doc;
    if (pf_json_from_msgpack(buf, size, &doc) != PF_OK) return 0;
    if (checked != PF_OK || used != size) abort(); /* decoding accepts only what the check accepts */
    round_trip(doc);
    const char *format = json_string_value(json_object_get(doc, "format"));
    if (format) read_artifact(format, data, size, doc);
    json_decref(doc);
    return 0;
}
