/*
 * fuzz_kb.c — knowledge .kb files (search/knowledge.h) through
 * pf_kb_parse, the loader's reading of one file's text (the bytes as they
 * are, not NUL-terminated); a base that loads is then searched the ways
 * the proposer does: retrieval for a PDE, a free-text query, the lookup
 * by id and the knowledge.msgpack content.
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>

#include "input.h"
#include "search/knowledge.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pf_kb *kb;
    if (pf_kb_parse("fuzz/fuzz.kb", (const char *)data, size, &kb) != PF_OK) return 0;
    int count = pf_kb_count(kb);
    if (count < 1) abort(); /* a base with no entry is refused */
    const pf_pde *p = pf_fuzz_pde("burgers_1d");
    pf_kb_hit hits[PF_KB_DEFAULT_K];
    int n;
    if (pf_kb_retrieve(kb, p, PF_KB_DEFAULT_K, hits, &n) != PF_OK) abort();
    if (pf_kb_search(kb, "fourier features multiscale sampling", 0, PF_KB_DEFAULT_K, hits, &n) != PF_OK) abort();
    for (int i = 0; i < n; i++) {
        const pf_kb_record *e = pf_kb_entry(kb, hits[i].entry);
        if (pf_kb_find(kb, e->id) != hits[i].entry || !isfinite(hits[i].score)) abort();
        json_decref(pf_kb_entry_json(e, hits[i].score));
    }
    json_t *tags, *entries;
    if (pf_kb_knowledge(kb, p, PF_KB_DEFAULT_K, &tags, &entries) != PF_OK) abort();
    json_decref(tags);
    json_decref(entries);
    pf_kb_free(kb);
    return 0;
}
