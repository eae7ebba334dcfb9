/*
 * bm25.h — a small Okapi BM25 index over short documents, and the
 * tokenizer the knowledge base uses for documents and queries alike.
 *
 *     const char *docs[3] = {"fourier features for multiscale problems", ...};
 *     pf_bm25 *ix;
 *     PF_TRY(pf_bm25_alloc(3, docs, &ix));
 *     double s[3];
 *     PF_TRY(pf_bm25_scores(ix, "multiscale fourier", s));   // one score per doc
 *     pf_bm25_free(ix);
 *
 * ------------------------------------------------------------- tokens
 *
 * Text is lower-cased (ASCII) and cut into words: maximal runs of ASCII
 * letters, digits and '_'. A word containing '_' is kept whole AND split on
 * '_' into its parts ("time_dependent" -> "time_dependent", "time",
 * "dependent"), so a PDE tag name matches both the tag and its words. Every
 * other byte (punctuation, '.', '-', non-ASCII UTF-8) separates words.
 * Words of one character and the words of a small stop list (PF_BM25 stop
 * words: "the", "and", "of", "with", "solve", ...) are dropped.
 *
 * ------------------------------------------------------------- score
 *
 * N documents, document D of length |D| tokens, avgdl the mean length,
 * f(q, D) the count of term q in D, n(q) the documents containing q:
 *
 *   idf(q)     = ln( (N - n(q) + 0.5) / (n(q) + 0.5) + 1 )       (always > 0)
 *   BM25(D, Q) = sum over the DISTINCT terms q of Q of
 *                idf(q) * f(q,D) (k1 + 1) / (f(q,D) + k1 (1 - b + b |D| / avgdl))
 *
 * with k1 = PF_BM25_K1 = 1.2 and b = PF_BM25_B = 0.75. A query term that no
 * document holds adds nothing. Everything is computed in double, in a fixed
 * order, so scores are reproducible bit for bit.
 */
#ifndef PF_SEARCH_BM25_H
#define PF_SEARCH_BM25_H

#include <stdbool.h>

#include "core/status.h"

#define PF_BM25_K1 1.2
#define PF_BM25_B 0.75

typedef struct pf_bm25 pf_bm25;

/* The tokens of text (see above), in order, duplicates kept: *out is a
 * malloc'ed array of *n malloc'ed strings (free with pf_bm25_tokens_free).
 * PF_ERR_NOMEM on allocation failure. */
pf_status pf_bm25_tokenize(const char *text, char ***out, int *n);
void pf_bm25_tokens_free(char **tokens, int n);

/* True for a dropped stop word (already lower-case). */
bool pf_bm25_is_stop_word(const char *word);

/* An index over docs[0..ndocs) (ndocs >= 1; the texts are tokenized now and
 * not kept). */
pf_status pf_bm25_alloc(int ndocs, const char *const *docs, pf_bm25 **out);
void pf_bm25_free(pf_bm25 *ix);

/* Tokens in document i, and the mean over documents. */
int pf_bm25_doc_length(const pf_bm25 *ix, int i);
double pf_bm25_avgdl(const pf_bm25 *ix);
/* n(term): how many documents contain the (already tokenized) term. */
int pf_bm25_doc_freq(const pf_bm25 *ix, const char *term);
/* idf(term) as above (n = 0 for a term no document holds). */
double pf_bm25_idf(const pf_bm25 *ix, const char *term);

/* BM25(D_i, query) for every document into scores[0..ndocs). */
pf_status pf_bm25_scores(const pf_bm25 *ix, const char *query, double *scores);

#endif
