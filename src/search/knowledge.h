/*
 * knowledge.h — the PINN design knowledge base: loader, retrieval of the
 * entries that fit a PDE (BM25 + property tags), and the content of
 * knowledge.msgpack (the pf-knowledge stage's artifact).
 *
 *     char dir[PF_ASSET_PATH_MAX];
 *     PF_TRY(pf_asset_dir("knowledge", "PF_KNOWLEDGE_DIR", dir, sizeof dir));
 *     pf_kb *kb;
 *     PF_TRY(pf_kb_load(dir, &kb));              // PF_ERR_INVALID "file:line: why"
 *     pf_kb_hit hit[PF_KB_DEFAULT_K];
 *     int n;
 *     PF_TRY(pf_kb_retrieve(kb, pde, PF_KB_DEFAULT_K, hit, &n));
 *     for (int i = 0; i < n; i++)
 *         printf("%.3f %s\n", hit[i].score, pf_kb_entry(kb, hit[i].entry)->id);
 *     pf_kb_free(kb);
 *
 * ------------------------------------------------------------- the files
 *
 * A knowledge base is a folder of "*.kb" files (other files are ignored),
 * read in strcmp order of their names, entries in file order: the entry
 * order, and so everything below, is deterministic. data/knowledge/README.md
 * documents the format; in short, records separated by blank lines:
 *
 *     # a comment (a line whose first byte is '#')
 *     id: fourier-features-multiscale
 *     title: Fourier features for solutions with fine detail
 *     tags: representation, multiscale
 *     rationale: A plain MLP learns low frequencies first ...
 *     text: Set representation.fourier.features to 64-256 and ...
 *       a line starting with two spaces continues the previous key's value
 *       (joined with one space).
 *
 * Keys: id (kebab-case: [a-z0-9] words joined by '-', unique over the whole
 * base), title, tags (comma-separated, at least one, each from the
 * vocabulary pf_kb_tag_name() lists, no repeats), rationale, text; all five
 * required, each once, none empty. The loader rejects, with
 * PF_ERR_INVALID and "<file>:<line>: <why>" (file as opened: dir/name):
 * a line that is not "key: value", an unknown key, a repeated key, an empty
 * value, an indented line that does not start with two spaces, a
 * continuation line outside a record, a missing required key (the line of
 * the record's first key), a malformed or duplicate id (naming the first
 * one's file:line), an unknown, empty or repeated tag, and a folder with no
 * entries at all. A file that cannot be read is PF_ERR_IO.
 *
 * ------------------------------------------------------------- retrieval
 *
 * Each entry is one BM25 document (search/bm25.h: k1 = 1.2, b = 0.75,
 * idf = ln((N - n + 0.5)/(n + 0.5) + 1)): "title tags rationale text".
 * The query of a PDE (pf_kb_pde_query) is its property tag names, its name,
 * title and statement; the tokenizer splits "time_dependent" into the tag and
 * its words. The score of entry E for PDE P is
 *
 *   score(E, P)     = BM25(E, query(P)) + tag_score(E, P)
 *   tag_score(E, P) = PF_KB_TAG_WEIGHT  * sum over t in tags(E) and tags(P) of idf_t
 *                   - PF_KB_MISS_WEIGHT * sum over t in tags(E), not in tags(P) of idf_t
 *   idf_t           = ln((N - n_t + 0.5)/(n_t + 0.5) + 1), n_t the entries
 *                     tagged t, N all entries
 *
 * where tags(.) are the PDE property tags only. A rare property (inverse,
 * chaotic) counts more than a common one (time_dependent), and advice
 * written for properties the PDE lacks is pushed down (at half the weight
 * of a match, since an entry's tags say where it applies, not that all
 * must hold). Hits are sorted by score descending, ties by id ascending
 * (strcmp). Property tags are the PDE tags of geom/pde.h
 * (pf_pde_tag_name); the design-area and class tags only take part through
 * BM25.
 */
#ifndef PF_SEARCH_KNOWLEDGE_H
#define PF_SEARCH_KNOWLEDGE_H

#include <jansson.h>

#include "core/status.h"
#include "geom/pde.h"

#define PF_KB_DEFAULT_K 5
#define PF_KB_TAG_WEIGHT 2.0
#define PF_KB_MISS_WEIGHT 1.0

typedef struct pf_kb pf_kb;

typedef struct pf_kb_record {
    const char *id, *title, *rationale, *text;
    int ntags;
    const char *const *tags;  /* as written, canonical vocabulary names */
    unsigned pde_tags;        /* enum pf_pde_tag bits of the property tags among them */
    const char *file;         /* dir/name.kb */
    int line;                 /* line of the record's first key */
} pf_kb_record;

typedef struct pf_kb_hit {
    int entry;                /* index for pf_kb_entry() */
    double score, bm25, tag_score;  /* score = bm25 + tag_score */
} pf_kb_hit;

/* The tag vocabulary: the PF_TAG_COUNT PDE property tags first (in bit
 * order, so pf_kb_tag_name(b) == pf_pde_tag_name(b)), then the design areas
 * and PDE classes; NULL past the end. */
const char *pf_kb_tag_name(int i);
int pf_kb_tag_count(void);

/* Load every *.kb file in dir (see above). *out NULL on failure. */
pf_status pf_kb_load(const char *dir, pf_kb **out);
/* A knowledge base of one file's text[0..len) (need not be NUL-terminated),
 * read as pf_kb_load reads each file, `label` naming it in messages and in
 * the records' `file` (e.g. "dir/name.kb"). For text that does not come
 * from a folder: a test's or a fuzzer's. */
pf_status pf_kb_parse(const char *label, const char *text, size_t len, pf_kb **out);
void pf_kb_free(pf_kb *kb);

int pf_kb_count(const pf_kb *kb);
/* Entry i (0 <= i < count), owned by kb. */
const pf_kb_record *pf_kb_entry(const pf_kb *kb, int i);
/* Index of the entry with this id, -1 if none. */
int pf_kb_find(const pf_kb *kb, const char *id);

/* The retrieval query for p (malloc'ed; see above). */
char *pf_kb_pde_query(const pf_pde *p);

/* The top min(k, count) entries for a free-text query and a set of property
 * tag bits into hits[0..*n) (hits holds k). k >= 1. */
pf_status pf_kb_search(const pf_kb *kb, const char *query, unsigned pde_tags, int k, pf_kb_hit *hits,
                       int *n);

/* pf_kb_search with p's query and tags. */
pf_status pf_kb_retrieve(const pf_kb *kb, const pf_pde *p, int k, pf_kb_hit *hits, int *n);

/* {"id", "title", "tags": [...], "rationale", "text"[, "score"]}: the score
 * only when it is finite (pass NAN to leave it out). New reference. */
json_t *pf_kb_entry_json(const pf_kb_record *e, double score);

/* knowledge.msgpack's content for p, top k (written by search/artifact.h,
 * pf_knowledge_file_write): *tags, p's property tag names, and *entries,
 * the entries' json with their scores, best first; new references. */
pf_status pf_kb_knowledge(const pf_kb *kb, const pf_pde *p, int k, json_t **tags, json_t **entries);

#endif
