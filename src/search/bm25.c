/* bm25.c — tokenizer and Okapi BM25 index (bm25.h). */
#include "search/bm25.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Sorted, so lookup is a binary search. */
static const char *const stop_words[] = {
    "a",     "about", "after", "all",   "also",  "an",    "and",   "any",   "are",  "as",
    "at",    "be",    "been",  "but",   "by",    "can",   "do",    "does",  "each", "every",
    "find",  "for",   "from",  "given", "has",   "have",  "here",  "how",   "if",   "in",
    "into",  "is",    "it",    "its",   "itself", "may",  "more",  "most",  "much", "no",
    "not",   "of",    "on",    "one",   "only",  "or",    "other", "over",  "pi",    "so",   "solve",
    "some",  "such",  "than",  "that",  "the",   "their", "them",  "then",  "there", "these",
    "they",  "this",  "those", "to",    "too",   "up",    "very",  "was",   "we",   "were",
    "what",  "when",  "where", "which", "while", "who",   "will",  "with",  "would", "you",
};
#define NSTOP ((int)(sizeof stop_words / sizeof stop_words[0]))

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

bool pf_bm25_is_stop_word(const char *word)
{
    return bsearch(&word, stop_words, NSTOP, sizeof stop_words[0], cmp_str) != NULL;
}

static bool is_word_char(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

typedef struct tok_list {
    char **v;
    int n, cap;
} tok_list;

/* Append s[0..len) lower-cased, unless it is too short or a stop word. */
static pf_status push(tok_list *t, const char *s, size_t len)
{
    if (len < 2) return PF_OK;
    char *w = malloc(len + 1);
    if (!w) return pf_fail(PF_ERR_NOMEM, "out of memory tokenizing text");
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        w[i] = c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
    }
    w[len] = 0;
    if (pf_bm25_is_stop_word(w)) {
        free(w);
        return PF_OK;
    }
    if (t->n == t->cap) {
        int cap = t->cap ? 2 * t->cap : 32;
        char **v = realloc(t->v, (size_t)cap * sizeof *v);
        if (!v) {
            free(w);
            return pf_fail(PF_ERR_NOMEM, "out of memory tokenizing text");
        }
        t->v = v;
        t->cap = cap;
    }
    t->v[t->n++] = w;
    return PF_OK;
}

void pf_bm25_tokens_free(char **tokens, int n)
{
    if (!tokens) return;
    for (int i = 0; i < n; i++) free(tokens[i]);
    free(tokens);
}

static pf_status tokenize(const char *text, tok_list *t)
{
    const unsigned char *p = (const unsigned char *)text;
    while (*p) {
        if (!is_word_char(*p)) {
            p++;
            continue;
        }
        const unsigned char *s = p;
        bool under = false;
        while (is_word_char(*p)) under |= *p++ == '_';
        PF_TRY(push(t, (const char *)s, (size_t)(p - s)));
        if (!under) continue;
        /* the parts between underscores */
        const unsigned char *q = s;
        while (q < p) {
            const unsigned char *r = q;
            while (r < p && *r != '_') r++;
            PF_TRY(push(t, (const char *)q, (size_t)(r - q)));
            q = r + 1;
        }
    }
    return PF_OK;
}

pf_status pf_bm25_tokenize(const char *text, char ***out, int *n)
{
    tok_list t = {0};
    pf_status st = tokenize(text ? text : "", &t);
    if (st != PF_OK) {
        pf_bm25_tokens_free(t.v, t.n);
        *out = NULL;
        *n = 0;
        return st;
    }
    *out = t.v;
    *n = t.n;
    return PF_OK;
}

/* ------------------------------------------------------------- index */

/* One document: its distinct term ids ascending, with counts. */
typedef struct bm_doc {
    int nterm, len;
    int *term, *count;
} bm_doc;

struct pf_bm25 {
    int ndocs;
    double avgdl;
    bm_doc *doc;
    /* vocabulary: open-addressing hash of term -> id */
    int nvocab, vcap;      /* vcap: power of two, slots */
    char **vocab;          /* id -> term */
    int *df;               /* id -> documents containing it */
    int *slot;             /* slot -> id, -1 empty */
};

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static int vocab_find(const pf_bm25 *ix, const char *term)
{
    if (!ix->vcap) return -1;
    size_t mask = (size_t)ix->vcap - 1;
    for (size_t h = (size_t)hash_str(term) & mask;; h = (h + 1) & mask) {
        int id = ix->slot[h];
        if (id < 0) return -1;
        if (!strcmp(ix->vocab[id], term)) return id;
    }
}

static pf_status vocab_grow(pf_bm25 *ix)
{
    int cap = ix->vcap ? 2 * ix->vcap : 1024;
    int *slot = malloc((size_t)cap * sizeof *slot);
    char **vocab = realloc(ix->vocab, (size_t)cap * sizeof *vocab);
    if (vocab) ix->vocab = vocab;
    int *df = realloc(ix->df, (size_t)cap * sizeof *df);
    if (df) ix->df = df;
    if (!slot || !vocab || !df) {
        free(slot);
        return pf_fail(PF_ERR_NOMEM, "out of memory building the BM25 index");
    }
    for (int i = 0; i < cap; i++) slot[i] = -1;
    size_t mask = (size_t)cap - 1;
    for (int id = 0; id < ix->nvocab; id++) {
        size_t h = (size_t)hash_str(ix->vocab[id]) & mask;
        while (slot[h] >= 0) h = (h + 1) & mask;
        slot[h] = id;
    }
    free(ix->slot);
    ix->slot = slot;
    ix->vcap = cap;
    return PF_OK;
}

/* The id of term, adding it (taking ownership of *term) when new. */
static pf_status vocab_add(pf_bm25 *ix, char **term, int *id)
{
    *id = vocab_find(ix, *term);
    if (*id >= 0) return PF_OK;
    if (2 * (ix->nvocab + 1) > ix->vcap) PF_TRY(vocab_grow(ix));
    size_t mask = (size_t)ix->vcap - 1;
    size_t h = (size_t)hash_str(*term) & mask;
    while (ix->slot[h] >= 0) h = (h + 1) & mask;
    *id = ix->nvocab++;
    ix->slot[h] = *id;
    ix->vocab[*id] = *term;
    ix->df[*id] = 0;
    *term = NULL;
    return PF_OK;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static pf_status add_doc(pf_bm25 *ix, bm_doc *d, const char *text)
{
    char **tok;
    int n;
    PF_TRY(pf_bm25_tokenize(text, &tok, &n));
    int *ids = malloc((size_t)(n ? n : 1) * sizeof *ids);
    pf_status st = ids ? PF_OK : pf_fail(PF_ERR_NOMEM, "out of memory building the BM25 index");
    for (int i = 0; st == PF_OK && i < n; i++) st = vocab_add(ix, &tok[i], &ids[i]);
    pf_bm25_tokens_free(tok, n);
    if (st != PF_OK) {
        free(ids);
        return st;
    }
    qsort(ids, (size_t)n, sizeof *ids, cmp_int);
    d->len = n;
    d->term = malloc((size_t)(n ? n : 1) * sizeof *d->term);
    d->count = malloc((size_t)(n ? n : 1) * sizeof *d->count);
    if (!d->term || !d->count) {
        free(ids);
        return pf_fail(PF_ERR_NOMEM, "out of memory building the BM25 index");
    }
    for (int i = 0; i < n;) {
        int j = i;
        while (j < n && ids[j] == ids[i]) j++;
        d->term[d->nterm] = ids[i];
        d->count[d->nterm++] = j - i;
        ix->df[ids[i]]++;
        i = j;
    }
    free(ids);
    return PF_OK;
}

pf_status pf_bm25_alloc(int ndocs, const char *const *docs, pf_bm25 **out)
{
    *out = NULL;
    if (ndocs < 1) return pf_fail(PF_ERR_INVALID, "a BM25 index needs at least one document");
    pf_bm25 *ix = calloc(1, sizeof *ix);
    if (!ix || !(ix->doc = calloc((size_t)ndocs, sizeof *ix->doc))) {
        free(ix);
        return pf_fail(PF_ERR_NOMEM, "out of memory building the BM25 index");
    }
    ix->ndocs = ndocs;
    double total = 0;
    for (int i = 0; i < ndocs; i++) {
        pf_status st = add_doc(ix, &ix->doc[i], docs[i]);
        if (st != PF_OK) {
            pf_bm25_free(ix);
            return st;
        }
        total += ix->doc[i].len;
    }
    ix->avgdl = total / ndocs;
    *out = ix;
    return PF_OK;
}

void pf_bm25_free(pf_bm25 *ix)
{
    if (!ix) return;
    for (int i = 0; i < ix->ndocs; i++) {
        free(ix->doc[i].term);
        free(ix->doc[i].count);
    }
    free(ix->doc);
    for (int i = 0; i < ix->nvocab; i++) free(ix->vocab[i]);
    free(ix->vocab);
    free(ix->df);
    free(ix->slot);
    free(ix);
}

int pf_bm25_doc_length(const pf_bm25 *ix, int i) { return ix->doc[i].len; }
double pf_bm25_avgdl(const pf_bm25 *ix) { return ix->avgdl; }

int pf_bm25_doc_freq(const pf_bm25 *ix, const char *term)
{
    int id = vocab_find(ix, term);
    return id < 0 ? 0 : ix->df[id];
}

static double idf_of(int ndocs, int n)
{
    return log((ndocs - n + 0.5) / (n + 0.5) + 1.0);
}

double pf_bm25_idf(const pf_bm25 *ix, const char *term)
{
    return idf_of(ix->ndocs, pf_bm25_doc_freq(ix, term));
}

/* Count of term id in d (binary search), 0 when absent. */
static int tf(const bm_doc *d, int id)
{
    int lo = 0, hi = d->nterm - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (d->term[mid] == id) return d->count[mid];
        if (d->term[mid] < id) lo = mid + 1;
        else hi = mid - 1;
    }
    return 0;
}

pf_status pf_bm25_scores(const pf_bm25 *ix, const char *query, double *scores)
{
    char **tok;
    int n;
    PF_TRY(pf_bm25_tokenize(query, &tok, &n));
    int *ids = malloc((size_t)(n ? n : 1) * sizeof *ids);
    if (!ids) {
        pf_bm25_tokens_free(tok, n);
        return pf_fail(PF_ERR_NOMEM, "out of memory scoring a query");
    }
    int m = 0;
    for (int i = 0; i < n; i++) {
        int id = vocab_find(ix, tok[i]);
        if (id >= 0) ids[m++] = id;
    }
    pf_bm25_tokens_free(tok, n);
    /* distinct terms, in ascending id order (a fixed summation order) */
    qsort(ids, (size_t)m, sizeof *ids, cmp_int);
    int u = 0;
    for (int i = 0; i < m; i++)
        if (!u || ids[u - 1] != ids[i]) ids[u++] = ids[i];
    const double k1 = PF_BM25_K1, b = PF_BM25_B;
    for (int d = 0; d < ix->ndocs; d++) {
        const bm_doc *doc = &ix->doc[d];
        double avgdl = ix->avgdl > 0 ? ix->avgdl : 1.0;
        double norm = k1 * (1.0 - b + b * doc->len / avgdl), s = 0;
        for (int i = 0; i < u; i++) {
            int f = tf(doc, ids[i]);
            if (f) s += idf_of(ix->ndocs, ix->df[ids[i]]) * f * (k1 + 1.0) / (f + norm);
        }
        scores[d] = s;
    }
    free(ids);
    return PF_OK;
}
