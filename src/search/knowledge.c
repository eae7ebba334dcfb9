/* knowledge.c — the knowledge base: loader, retrieval, JSON (knowledge.h). */
#include "search/knowledge.h"

#include <dirent.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/msgpack_json.h"
#include "search/bm25.h"

/* After the PF_TAG_COUNT property tags of geom/pde.h. */
static const char *const extra_tags[] = {
    /* design areas */
    "representation", "architecture", "sampling", "constraints", "loss", "optimization", "training",
    "failure_mode", "general",
    /* classes of PDE */
    "advection", "diffusion", "reaction", "wave", "fluid", "elliptic", "stiff",
};
#define NEXTRA ((int)(sizeof extra_tags / sizeof extra_tags[0]))

int pf_kb_tag_count(void) { return PF_TAG_COUNT + NEXTRA; }

const char *pf_kb_tag_name(int i)
{
    if (i < 0 || i >= PF_TAG_COUNT + NEXTRA) return NULL;
    return i < PF_TAG_COUNT ? pf_pde_tag_name(i) : extra_tags[i - PF_TAG_COUNT];
}

static int tag_index(const char *name)
{
    for (int i = 0; i < PF_TAG_COUNT + NEXTRA; i++)
        if (!strcmp(pf_kb_tag_name(i), name)) return i;
    return -1;
}

/* ------------------------------------------------------------- storage */

enum { K_ID, K_TITLE, K_TAGS, K_RATIONALE, K_TEXT, NKEYS };
static const char *const key_names[NKEYS] = {"id", "title", "tags", "rationale", "text"};

typedef struct kb_item {
    pf_kb_record e;
    char *val[NKEYS];  /* owned: id, title, tags line (unused after parse), rationale, text */
    char **tags;       /* owned */
} kb_item;

struct pf_kb {
    int n, cap;
    kb_item *item;
    int nfiles;
    char **files;      /* owned paths, entries point into these */
    pf_bm25 *ix;
    double tag_idf[PF_TAG_COUNT];
};

static pf_status nomem(void) { return pf_fail(PF_ERR_NOMEM, "out of memory loading the knowledge base"); }

static void item_release(kb_item *it)
{
    for (int k = 0; k < NKEYS; k++) free(it->val[k]);
    if (it->tags)
        for (int i = 0; i < it->e.ntags; i++) free(it->tags[i]);
    free(it->tags);
}

void pf_kb_free(pf_kb *kb)
{
    if (!kb) return;
    for (int i = 0; i < kb->n; i++) item_release(&kb->item[i]);
    free(kb->item);
    for (int i = 0; i < kb->nfiles; i++) free(kb->files[i]);
    free(kb->files);
    pf_bm25_free(kb->ix);
    free(kb);
}

int pf_kb_count(const pf_kb *kb) { return kb->n; }

const pf_kb_record *pf_kb_entry(const pf_kb *kb, int i)
{
    PF_ASSERT(i >= 0 && i < kb->n);
    return &kb->item[i].e;
}

int pf_kb_find(const pf_kb *kb, const char *id)
{
    for (int i = 0; i < kb->n; i++)
        if (!strcmp(kb->item[i].e.id, id)) return i;
    return -1;
}

/* ------------------------------------------------------------- parsing */

/* The record being read. */
typedef struct record {
    bool open;
    int first_line;
    int last_key;           /* key the next continuation line extends, -1 none */
    char *val[NKEYS];
    size_t len[NKEYS];
    int line[NKEYS];
} record;

static void record_reset(record *r)
{
    for (int k = 0; k < NKEYS; k++) free(r->val[k]);
    memset(r, 0, sizeof *r);
    r->last_key = -1;
}

static char *dup_n(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (!d) return NULL;
    memcpy(d, s, n);
    d[n] = 0;
    return d;
}

/* s[0..*n) without leading and trailing blanks. */
static const char *trim(const char *s, size_t *n)
{
    while (*n && (*s == ' ' || *s == '\t')) s++, (*n)--;
    while (*n && (s[*n - 1] == ' ' || s[*n - 1] == '\t')) (*n)--;
    return s;
}

static bool valid_id(const char *s)
{
    if (!*s) return false;
    bool prev_dash = true; /* no leading '-' */
    for (; *s; s++) {
        bool alnum = (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9');
        if (*s == '-') {
            if (prev_dash) return false;
            prev_dash = true;
        } else if (alnum)
            prev_dash = false;
        else
            return false;
    }
    return !prev_dash;
}

/* Split the tags value into it->tags (canonical names), checking each. */
static pf_status parse_tags(const char *path, int line, const char *v, kb_item *it)
{
    int cap = 1;
    for (const char *p = v; *p; p++) cap += *p == ',';
    it->tags = calloc((size_t)cap, sizeof *it->tags);
    if (!it->tags) return nomem();
    const char *p = v;
    for (;;) {
        const char *c = strchr(p, ',');
        size_t n = c ? (size_t)(c - p) : strlen(p);
        const char *t = trim(p, &n);
        if (!n) return pf_fail(PF_ERR_INVALID, "%s:%d: empty tag in '%s'", path, line, v);
        char *name = dup_n(t, n);
        if (!name) return nomem();
        int ti = tag_index(name);
        if (ti < 0) {
            pf_status st = pf_fail(PF_ERR_INVALID,
                                   "%s:%d: unknown tag '%s' (data/knowledge/README.md lists the tags)",
                                   path, line, name);
            free(name);
            return st;
        }
        for (int i = 0; i < it->e.ntags; i++)
            if (!strcmp(it->tags[i], name)) {
                pf_status st = pf_fail(PF_ERR_INVALID, "%s:%d: tag '%s' repeated", path, line, name);
                free(name);
                return st;
            }
        it->tags[it->e.ntags++] = name;
        if (ti < PF_TAG_COUNT) it->e.pde_tags |= 1u << ti;
        if (!c) break;
        p = c + 1;
    }
    it->e.tags = (const char *const *)it->tags;
    return PF_OK;
}

/* Close the record r (if open) into a new entry of kb. */
static pf_status finish_record(pf_kb *kb, const char *path, record *r)
{
    if (!r->open) return PF_OK;
    for (int k = 0; k < NKEYS; k++)
        if (!r->val[k])
            return pf_fail(PF_ERR_INVALID, "%s:%d: entry lacks the required key '%s'", path, r->first_line,
                           key_names[k]);
    const char *id = r->val[K_ID];
    if (!valid_id(id))
        return pf_fail(PF_ERR_INVALID, "%s:%d: id '%s' is not kebab-case ([a-z0-9] words joined by '-')", path,
                       r->line[K_ID], id);
    int dup = pf_kb_find(kb, id);
    if (dup >= 0)
        return pf_fail(PF_ERR_INVALID, "%s:%d: duplicate id '%s' (first at %s:%d)", path, r->line[K_ID], id,
                       kb->item[dup].e.file, kb->item[dup].e.line);
    if (kb->n == kb->cap) {
        int cap = kb->cap ? 2 * kb->cap : 128;
        kb_item *item = realloc(kb->item, (size_t)cap * sizeof *item);
        if (!item) return nomem();
        kb->item = item;
        kb->cap = cap;
    }
    kb_item *it = &kb->item[kb->n];
    memset(it, 0, sizeof *it);
    pf_status st = parse_tags(path, r->line[K_TAGS], r->val[K_TAGS], it);
    if (st != PF_OK) {
        item_release(it);
        return st;
    }
    for (int k = 0; k < NKEYS; k++) {
        it->val[k] = r->val[k];
        r->val[k] = NULL;
    }
    it->e.id = it->val[K_ID];
    it->e.title = it->val[K_TITLE];
    it->e.rationale = it->val[K_RATIONALE];
    it->e.text = it->val[K_TEXT];
    it->e.file = path;
    it->e.line = r->first_line;
    kb->n++;
    record_reset(r);
    return PF_OK;
}

/* Append " s[0..n)" to key k's value. */
static pf_status append(record *r, int k, const char *s, size_t n)
{
    char *v = realloc(r->val[k], r->len[k] + 1 + n + 1);
    if (!v) return nomem();
    v[r->len[k]] = ' ';
    memcpy(v + r->len[k] + 1, s, n);
    r->len[k] += 1 + n;
    v[r->len[k]] = 0;
    r->val[k] = v;
    return PF_OK;
}

static pf_status parse_line(pf_kb *kb, const char *path, int ln, const char *s, size_t n, record *r)
{
    size_t tn = n;
    trim(s, &tn);
    if (!tn) return finish_record(kb, path, r); /* blank: ends a record */
    if (s[0] == '#') return PF_OK;
    if (s[0] == ' ' || s[0] == '\t') {
        if (n < 2 || s[0] != ' ' || s[1] != ' ' || s[2] == '\t')
            return pf_fail(PF_ERR_INVALID, "%s:%d: an indented line must start with two spaces (a continuation)",
                           path, ln);
        if (!r->open || r->last_key < 0)
            return pf_fail(PF_ERR_INVALID, "%s:%d: continuation line outside an entry", path, ln);
        size_t m = n;
        const char *v = trim(s, &m);
        return append(r, r->last_key, v, m);
    }
    const char *colon = memchr(s, ':', n);
    size_t klen = colon ? (size_t)(colon - s) : 0;
    bool key_ok = klen > 0;
    for (size_t i = 0; i < klen; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || s[i] == '_')) key_ok = false;
    if (!key_ok)
        return pf_fail(PF_ERR_INVALID, "%s:%d: expected 'key: value' (keys: id, title, tags, rationale, text)",
                       path, ln);
    int k = -1;
    for (int i = 0; i < NKEYS; i++)
        if (strlen(key_names[i]) == klen && !strncmp(key_names[i], s, klen)) k = i;
    if (k < 0)
        return pf_fail(PF_ERR_INVALID, "%s:%d: unknown key '%.*s' (keys: id, title, tags, rationale, text)",
                       path, ln, (int)klen, s);
    if (!r->open) {
        r->open = true;
        r->first_line = ln;
    }
    if (r->val[k])
        return pf_fail(PF_ERR_INVALID, "%s:%d: key '%s' repeated (first at line %d)", path, ln, key_names[k],
                       r->line[k]);
    size_t m = n - klen - 1;
    const char *v = trim(colon + 1, &m);
    if (!m) return pf_fail(PF_ERR_INVALID, "%s:%d: empty value for '%s'", path, ln, key_names[k]);
    if (!(r->val[k] = dup_n(v, m))) return nomem();
    r->len[k] = m;
    r->line[k] = ln;
    r->last_key = k;
    return PF_OK;
}

/* The records of one file's text[0..len); path names it in messages. */
static pf_status load_text(pf_kb *kb, const char *path, const char *text, size_t len)
{
    record r;
    memset(&r, 0, sizeof r);
    r.last_key = -1;
    pf_status st = PF_OK;
    int ln = 0;
    for (size_t pos = 0; st == PF_OK && pos < len;) {
        const char *s = text + pos;
        const char *nl = memchr(s, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - s) : len - pos;
        pos += n + (nl != NULL);
        ln++;
        if (n && s[n - 1] == '\r') n--;
        if (memchr(s, 0, n)) {
            st = pf_fail(PF_ERR_INVALID, "%s:%d: NUL byte in a text file", path, ln);
            break;
        }
        st = parse_line(kb, path, ln, s, n, &r);
    }
    if (st == PF_OK) st = finish_record(kb, path, &r);
    record_reset(&r);
    return st;
}

static pf_status load_file(pf_kb *kb, const char *path)
{
    char *text;
    size_t len;
    PF_TRY(pf_file_read_as(path, PF_FILE_KNOWLEDGE, &text, &len));
    pf_status st = load_text(kb, path, text, len);
    free(text);
    return st;
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool has_suffix(const char *s, const char *suf)
{
    size_t n = strlen(s), m = strlen(suf);
    return n > m && !strcmp(s + n - m, suf);
}

/* The *.kb paths of dir, sorted by name, into kb->files. */
static pf_status list_files(pf_kb *kb, const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return pf_fail(PF_ERR_IO, "cannot open the knowledge folder '%s'", dir);
    int cap = 0;
    char **names = NULL;
    pf_status st = PF_OK;
    struct dirent *de;
    while (st == PF_OK && (de = readdir(d))) {
        if (de->d_name[0] == '.' || !has_suffix(de->d_name, ".kb")) continue;
        if (kb->nfiles == cap) {
            cap = cap ? 2 * cap : 16;
            char **v = realloc(names, (size_t)cap * sizeof *v);
            if (!v) {
                st = nomem();
                break;
            }
            names = v;
        }
        size_t need = strlen(dir) + 1 + strlen(de->d_name) + 1;
        char *p = malloc(need);
        if (!p) {
            st = nomem();
            break;
        }
        snprintf(p, need, "%s/%s", dir, de->d_name);
        names[kb->nfiles++] = p;
    }
    closedir(d);
    kb->files = names;
    if (st != PF_OK) return st;
    if (kb->nfiles) qsort(kb->files, (size_t)kb->nfiles, sizeof *kb->files, cmp_name);
    return PF_OK;
}

static double idf(int n_docs, int n)
{
    return log((n_docs - n + 0.5) / (n + 0.5) + 1.0);
}

/* The BM25 index over the entries and the property tags' idf. */
static pf_status build_index(pf_kb *kb)
{
    char **docs = calloc((size_t)kb->n, sizeof *docs);
    if (!docs) return nomem();
    pf_status st = PF_OK;
    for (int i = 0; i < kb->n && st == PF_OK; i++) {
        const pf_kb_record *e = &kb->item[i].e;
        size_t need = strlen(e->title) + strlen(e->rationale) + strlen(e->text) + 4;
        for (int t = 0; t < e->ntags; t++) need += strlen(e->tags[t]) + 1;
        char *s = docs[i] = malloc(need);
        if (!s) {
            st = nomem();
            break;
        }
        size_t len = (size_t)snprintf(s, need, "%s", e->title);
        for (int t = 0; t < e->ntags; t++) len += (size_t)snprintf(s + len, need - len, " %s", e->tags[t]);
        snprintf(s + len, need - len, " %s %s", e->rationale, e->text);
    }
    if (st == PF_OK) st = pf_bm25_alloc(kb->n, (const char *const *)docs, &kb->ix);
    for (int i = 0; i < kb->n; i++) free(docs[i]);
    free(docs);
    for (int b = 0; b < PF_TAG_COUNT; b++) {
        int nt = 0;
        for (int i = 0; i < kb->n; i++) nt += (kb->item[i].e.pde_tags >> b) & 1u;
        kb->tag_idf[b] = idf(kb->n, nt);
    }
    return st;
}

/* What pf_kb_load and pf_kb_parse end with, after reading with status st:
 * no entry is an error naming `where` (then `hint`), then the index; *out
 * is kb, or kb is freed on failure. */
static pf_status finish(pf_kb *kb, pf_status st, const char *where, const char *hint, pf_kb **out)
{
    if (st == PF_OK && kb->n == 0) st = pf_fail(PF_ERR_INVALID, "%s: no knowledge entries%s", where, hint);
    if (st == PF_OK) st = build_index(kb);
    if (st != PF_OK) {
        pf_kb_free(kb);
        return st;
    }
    *out = kb;
    return PF_OK;
}

pf_status pf_kb_load(const char *dir, pf_kb **out)
{
    *out = NULL;
    pf_kb *kb = calloc(1, sizeof *kb);
    if (!kb) return nomem();
    pf_status st = list_files(kb, dir);
    for (int f = 0; st == PF_OK && f < kb->nfiles; f++) st = load_file(kb, kb->files[f]);
    return finish(kb, st, dir, " (no *.kb file holds one)", out);
}

pf_status pf_kb_parse(const char *label, const char *text, size_t len, pf_kb **out)
{
    *out = NULL;
    pf_kb *kb = calloc(1, sizeof *kb);
    if (!kb) return nomem();
    pf_status st = PF_OK;
    if (!(kb->files = malloc(sizeof *kb->files)) || !(kb->files[0] = strdup(label))) st = nomem();
    else kb->nfiles = 1;
    if (st == PF_OK) st = load_text(kb, kb->files[0], text, len);
    return finish(kb, st, label, "", out);
}

/* ------------------------------------------------------------- retrieval */

char *pf_kb_pde_query(const pf_pde *p)
{
    size_t need = strlen(p->name) + strlen(p->title) + strlen(p->statement) + 8;
    for (int b = 0; b < PF_TAG_COUNT; b++)
        if (p->tags & (1u << b)) need += strlen(pf_pde_tag_name(b)) + 1;
    char *q = malloc(need);
    if (!q) return NULL;
    size_t len = 0;
    q[0] = 0;
    for (int b = 0; b < PF_TAG_COUNT; b++)
        if (p->tags & (1u << b)) len += (size_t)snprintf(q + len, need - len, "%s ", pf_pde_tag_name(b));
    snprintf(q + len, need - len, "%s %s %s", p->name, p->title, p->statement);
    return q;
}

static int hit_cmp(const pf_kb *kb, const pf_kb_hit *a, const pf_kb_hit *b)
{
    if (a->score > b->score) return -1;
    if (a->score < b->score) return 1;
    return strcmp(kb->item[a->entry].e.id, kb->item[b->entry].e.id);
}

pf_status pf_kb_search(const pf_kb *kb, const char *query, unsigned pde_tags, int k, pf_kb_hit *hits,
                       int *n)
{
    *n = 0;
    if (k < 1) return pf_fail(PF_ERR_USAGE, "k must be at least 1, not %d", k);
    double *bm = malloc((size_t)kb->n * sizeof *bm);
    if (!bm) return nomem();
    pf_status st = pf_bm25_scores(kb->ix, query, bm);
    if (st != PF_OK) {
        free(bm);
        return st;
    }
    int m = k < kb->n ? k : kb->n;
    for (int i = 0; i < kb->n; i++) {
        const pf_kb_record *e = &kb->item[i].e;
        double ts = 0;
        for (int b = 0; b < PF_TAG_COUNT; b++) {
            if (!(e->pde_tags & (1u << b))) continue;
            if (pde_tags & (1u << b)) ts += PF_KB_TAG_WEIGHT * kb->tag_idf[b];
            else ts -= PF_KB_MISS_WEIGHT * kb->tag_idf[b];
        }
        pf_kb_hit h = {.entry = i, .score = bm[i] + ts, .bm25 = bm[i], .tag_score = ts};
        /* insertion into the sorted top m */
        int pos = *n;
        while (pos > 0 && hit_cmp(kb, &h, &hits[pos - 1]) < 0) pos--;
        if (pos >= m) continue;
        int last = *n < m ? *n : m - 1;
        memmove(&hits[pos + 1], &hits[pos], (size_t)(last - pos) * sizeof *hits);
        hits[pos] = h;
        if (*n < m) (*n)++;
    }
    free(bm);
    return PF_OK;
}

pf_status pf_kb_retrieve(const pf_kb *kb, const pf_pde *p, int k, pf_kb_hit *hits, int *n)
{
    *n = 0;
    char *q = pf_kb_pde_query(p);
    if (!q) return nomem();
    pf_status st = pf_kb_search(kb, q, p->tags, k, hits, n);
    free(q);
    return st;
}

/* ------------------------------------------------------------- JSON */

json_t *pf_kb_entry_json(const pf_kb_record *e, double score)
{
    json_t *o = json_object(), *t = json_array();
    for (int i = 0; i < e->ntags; i++) json_array_append_new(t, json_string(e->tags[i]));
    json_object_set_new(o, "id", json_string(e->id));
    json_object_set_new(o, "title", json_string(e->title));
    json_object_set_new(o, "tags", t);
    json_object_set_new(o, "rationale", json_string(e->rationale));
    json_object_set_new(o, "text", json_string(e->text));
    if (isfinite(score)) json_object_set_new(o, "score", json_real(score));
    return o;
}

pf_status pf_kb_knowledge(const pf_kb *kb, const pf_pde *p, int k, json_t **tags_out, json_t **entries_out)
{
    *tags_out = *entries_out = NULL;
    if (k < 1) return pf_fail(PF_ERR_USAGE, "k must be at least 1, not %d", k);
    pf_kb_hit *hits = malloc((size_t)k * sizeof *hits);
    if (!hits) return nomem();
    int n;
    pf_status st = pf_kb_retrieve(kb, p, k, hits, &n);
    if (st != PF_OK) {
        free(hits);
        return st;
    }
    json_t *tags = json_array(), *entries = json_array();
    for (int b = 0; b < PF_TAG_COUNT; b++)
        if (p->tags & (1u << b)) json_array_append_new(tags, json_string(pf_pde_tag_name(b)));
    for (int i = 0; i < n; i++)
        json_array_append_new(entries, pf_kb_entry_json(pf_kb_entry(kb, hits[i].entry), hits[i].score));
    free(hits);
    if (!tags || !entries) {
        json_decref(tags);
        json_decref(entries);
        return pf_fail(PF_ERR_NOMEM, "out of memory");
    }
    *tags_out = tags, *entries_out = entries;
    return PF_OK;
}
