/*
 * test_knowledge.c — the knowledge base (src/search/knowledge.h, bm25.h):
 * the shipped base loads and is well formed, malformed files fail with
 * their exact file:line, BM25 and the tag term against hand-computed
 * numbers, retrieval per class of PDE, determinism, knowledge.msgpack's
 * content.
 */
#include <criterion/criterion.h>
#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/asset_dir.h"
#include "io/msgpack_json.h"
#include "registry.h"
#include "search/artifact.h"
#include "search/bm25.h"
#include "search/knowledge.h"

static const pf_pde *pde(const char *name)
{
    const pf_pde *p = NULL;
    cr_assert_eq(pf_pdes_lookup(name, &p), PF_OK, "%s", pf_errmsg());
    return p;
}

static pf_kb *shipped(void)
{
    char dir[PF_ASSET_PATH_MAX];
    cr_assert_eq(pf_asset_dir("knowledge", "PF_KNOWLEDGE_DIR", dir, sizeof dir), PF_OK, "%s", pf_errmsg());
    pf_kb *kb = NULL;
    cr_assert_eq(pf_kb_load(dir, &kb), PF_OK, "%s", pf_errmsg());
    return kb;
}

static char *tmpdir(void)
{
    static char d[64];
    snprintf(d, sizeof d, "/tmp/pf_knowledge_XXXXXX");
    cr_assert_not_null(mkdtemp(d));
    return d;
}

static void write_file(const char *dir, const char *name, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "%s", path);
    fputs(text, f);
    fclose(f);
}

static void remove_dir(const char *dir)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

/* ------------------------------------------------------------- the shipped base */

Test(knowledge, shipped_base_is_well_formed)
{
    pf_kb *kb = shipped();
    int n = pf_kb_count(kb);
    cr_assert_geq(n, 100, "only %d entries", n);
    int per_tag[PF_TAG_COUNT] = {0};
    for (int i = 0; i < n; i++) {
        const pf_kb_record *e = pf_kb_entry(kb, i);
        cr_assert_geq(e->ntags, 1, "%s has no tag", e->id);
        cr_assert_gt(strlen(e->rationale), 20, "%s: rationale too short", e->id);
        cr_assert_gt(strlen(e->text), 40, "%s: text too short", e->id);
        cr_assert_gt(strlen(e->title), 5, "%s: title too short", e->id);
        cr_assert_gt(e->line, 0);
        cr_assert(strstr(e->file, ".kb"), "%s", e->file);
        cr_assert_eq(pf_kb_find(kb, e->id), i, "id %s is not unique", e->id);
        for (int j = 0; j < i; j++) cr_assert_str_neq(pf_kb_entry(kb, j)->id, e->id);
        for (int b = 0; b < PF_TAG_COUNT; b++) per_tag[b] += (e->pde_tags >> b) & 1u;
    }
    /* every PDE property is covered by several entries */
    for (int b = 0; b < PF_TAG_COUNT; b++)
        cr_assert_geq(per_tag[b], 3, "only %d entries tagged %s", per_tag[b], pf_pde_tag_name(b));
    cr_log_info("knowledge base: %d entries", n);
    pf_kb_free(kb);
}

Test(knowledge, tag_vocabulary_starts_with_the_pde_tags)
{
    for (int b = 0; b < PF_TAG_COUNT; b++) cr_assert_str_eq(pf_kb_tag_name(b), pf_pde_tag_name(b));
    cr_assert_str_eq(pf_kb_tag_name(PF_TAG_COUNT), "representation");
    cr_assert_null(pf_kb_tag_name(pf_kb_tag_count()));
    cr_assert_null(pf_kb_tag_name(-1));
}

/* ------------------------------------------------------------- malformed input */

static const char *GOOD = "# comment\n"
                          "id: good-one\n"
                          "title: A title\n"
                          "tags: loss, periodic\n"
                          "rationale: Because.\n"
                          "text: Do this\n"
                          "  and that.\n";

/* Load a folder with the one file <name> holding text; expect PF_ERR_INVALID with the message "<dir>/<name>:<line>: <why...>". */
static void expect_error(const char *name, const char *text, int line, const char *why)
{
    char *dir = tmpdir();
    write_file(dir, name, text);
    pf_kb *kb = (pf_kb *)1;
    cr_assert_eq(pf_kb_load(dir, &kb), PF_ERR_INVALID, "loaded: %s", text);
    cr_assert_null(kb);
    char want[512];
    snprintf(want, sizeof want, "%s/%s:%d: %s", dir, name, line, why);
    cr_assert_eq(strncmp(pf_errmsg(), want, strlen(want)), 0, "got '%s', want '%s...'", pf_errmsg(), want);
    remove_dir(dir);
}

Test(knowledge, good_record_parses)
{
    char *dir = tmpdir();
    write_file(dir, "a.kb", GOOD);
    write_file(dir, "README.md", "not: read\n");
    pf_kb *kb;
    cr_assert_eq(pf_kb_load(dir, &kb), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(pf_kb_count(kb), 1);
    const pf_kb_record *e = pf_kb_entry(kb, 0);
    cr_assert_str_eq(e->id, "good-one");
    cr_assert_str_eq(e->text, "Do this and that.");
    cr_assert_eq(e->ntags, 2);
    cr_assert_str_eq(e->tags[0], "loss");
    cr_assert_str_eq(e->tags[1], "periodic");
    cr_assert_eq(e->pde_tags, (unsigned)PF_TAG_PERIODIC);
    cr_assert_eq(e->line, 2);
    char file[128];
    snprintf(file, sizeof file, "%s/a.kb", dir);
    cr_assert_str_eq(e->file, file);
    pf_kb_free(kb);
    remove_dir(dir);
}

/* pf_kb_parse: one file's text, as pf_kb_load reads a file (the fuzzer's
 * entry point): the same record, the label as its file, errors naming the
 * label and line, and text that is not NUL-terminated read to len only. */
Test(knowledge, parse_reads_one_text_as_a_file)
{
    pf_kb *kb;
    cr_assert_eq(pf_kb_parse("mem/a.kb", GOOD, strlen(GOOD), &kb), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(pf_kb_count(kb), 1);
    const pf_kb_record *e = pf_kb_entry(kb, 0);
    cr_assert_str_eq(e->id, "good-one");
    cr_assert_str_eq(e->text, "Do this and that.");
    cr_assert_str_eq(e->file, "mem/a.kb");
    cr_assert_eq(e->line, 2);
    pf_kb_hit hit[2];
    int n;
    cr_assert_eq(pf_kb_search(kb, "title", 0, 2, hit, &n), PF_OK);
    cr_assert_eq(n, 1);
    pf_kb_free(kb);

    size_t cut = strlen(GOOD) - strlen("  and that.\n");
    cr_assert_eq(pf_kb_parse("mem/a.kb", GOOD, cut, &kb), PF_OK, "%s", pf_errmsg());
    cr_assert_str_eq(pf_kb_entry(kb, 0)->text, "Do this");
    pf_kb_free(kb);

    kb = (pf_kb *)1;
    cr_assert_eq(pf_kb_parse("mem/b.kb", "id: x\nbogus line\n", 17, &kb), PF_ERR_INVALID);
    cr_assert_null(kb);
    cr_assert(strstr(pf_errmsg(), "mem/b.kb:2: expected 'key: value'"), "%s", pf_errmsg());
    cr_assert_eq(pf_kb_parse("mem/c.kb", "# only a comment\n", 17, &kb), PF_ERR_INVALID);
    cr_assert(strstr(pf_errmsg(), "mem/c.kb: no knowledge entries"), "%s", pf_errmsg());
}

Test(knowledge, missing_required_key)
{
    expect_error("m.kb", "# c\n\nid: x-1\ntitle: T\ntags: loss\nrationale: R\n", 3,
                 "entry lacks the required key 'text'");
    expect_error("m.kb", "id: x-1\ntitle: T\ntags: loss\ntext: R\n\nid: x-2\n", 1,
                 "entry lacks the required key 'rationale'");
}

Test(knowledge, unknown_key)
{
    expect_error("k.kb", "id: x-1\ntitle: T\nauthor: me\n", 3, "unknown key 'author'");
}

Test(knowledge, unknown_tag)
{
    expect_error("t.kb", "id: x-1\ntitle: T\nrationale: R\ntags: loss, shock\ntext: x\n", 4,
                 "unknown tag 'shock'");
    expect_error("t.kb", "id: x-1\ntitle: T\ntags: loss,, sampling\nrationale: R\ntext: x\n", 3, "empty tag");
    expect_error("t.kb", "id: x-1\ntitle: T\ntags: loss, loss\nrationale: R\ntext: x\n", 3,
                 "tag 'loss' repeated");
}

Test(knowledge, duplicate_id_names_both_places)
{
    char *dir = tmpdir();
    write_file(dir, "a.kb", GOOD);
    write_file(dir, "b.kb", "\n# again\nid: good-one\ntitle: T\ntags: loss\nrationale: R\ntext: x\n");
    pf_kb *kb;
    cr_assert_eq(pf_kb_load(dir, &kb), PF_ERR_INVALID);
    char want[512];
    snprintf(want, sizeof want, "%s/b.kb:3: duplicate id 'good-one' (first at %s/a.kb:2)", dir, dir);
    cr_assert_str_eq(pf_errmsg(), want);
    remove_dir(dir);
}

Test(knowledge, continuation_outside_a_record)
{
    expect_error("c.kb", "# header\n\n  dangling text\n", 3, "continuation line outside an entry");
    char bad[600];
    snprintf(bad, sizeof bad, "%s\n  after the blank line\n", GOOD);
    expect_error("c.kb", bad, 9, "continuation line outside an entry");
}

Test(knowledge, empty_value_repeated_key_bad_lines)
{
    expect_error("e.kb", "id: x-1\ntitle:   \n", 2, "empty value for 'title'");
    expect_error("e.kb", "id: x-1\ntitle: A\ntitle: B\n", 3, "key 'title' repeated (first at line 2)");
    expect_error("e.kb", "id: x-1\njust some words\n", 2, "expected 'key: value'");
    expect_error("e.kb", "id: x-1\ntitle: A\n text: one space\n", 3, "an indented line must start with two spaces");
    expect_error("e.kb", "id: x-1\ntitle: A\n\ttext: tab\n", 3, "an indented line must start with two spaces");
    expect_error("e.kb", "id: Bad_Id\ntitle: T\ntags: loss\nrationale: R\ntext: x\n", 1,
                 "id 'Bad_Id' is not kebab-case");
    expect_error("e.kb", "title: T\nid: a--b\ntags: loss\nrationale: R\ntext: x\n", 2,
                 "id 'a--b' is not kebab-case");
}

Test(knowledge, files_are_read_in_name_order)
{
    char *dir = tmpdir();
    write_file(dir, "b.kb", "id: y\nbogus line\n");
    write_file(dir, "a.kb", "id: x\ncolour: red\n");
    pf_kb *kb;
    cr_assert_eq(pf_kb_load(dir, &kb), PF_ERR_INVALID);
    char want[512];
    snprintf(want, sizeof want, "%s/a.kb:2: unknown key 'colour'", dir);
    cr_assert_eq(strncmp(pf_errmsg(), want, strlen(want)), 0, "%s", pf_errmsg());
    remove_dir(dir);
}

Test(knowledge, empty_or_missing_folder)
{
    char *dir = tmpdir();
    pf_kb *kb;
    cr_assert_eq(pf_kb_load(dir, &kb), PF_ERR_INVALID);
    cr_assert(strstr(pf_errmsg(), "no knowledge entries"), "%s", pf_errmsg());
    write_file(dir, "only-comments.kb", "# nothing\n\n");
    cr_assert_eq(pf_kb_load(dir, &kb), PF_ERR_INVALID);
    remove_dir(dir);
    cr_assert_eq(pf_kb_load("/nonexistent/pf_kb", &kb), PF_ERR_IO);
    cr_assert(strstr(pf_errmsg(), "/nonexistent/pf_kb"), "%s", pf_errmsg());
}

/* ------------------------------------------------------------- BM25 */

Test(knowledge, tokenizer)
{
    char **t;
    int n;
    cr_assert_eq(pf_bm25_tokenize("Time_dependent PDEs, the u_xx term! Kuramoto-Sivashinsky a 5d", &t, &n), PF_OK);
    const char *want[] = {"time_dependent", "time", "dependent", "pdes", "u_xx", "xx", "term",
                          "kuramoto", "sivashinsky", "5d"};
    cr_assert_eq(n, 10);
    for (int i = 0; i < n; i++) cr_assert_str_eq(t[i], want[i]);
    pf_bm25_tokens_free(t, n);
    cr_assert(pf_bm25_is_stop_word("the"));
    cr_assert(pf_bm25_is_stop_word("with"));
    cr_assert(!pf_bm25_is_stop_word("fourier"));
}

Test(knowledge, bm25_matches_hand_computation)
{
    /* tokens: D0 fourier features help multiscale problems (5); D1 periodic
     * embedding periodic problems (4); D2 adam lbfgs (2); avgdl = 11/3. */
    const char *docs[3] = {"Fourier features help multiscale problems", "periodic embedding for periodic problems",
                           "Adam then L_BFGS"};
    pf_bm25 *ix;
    cr_assert_eq(pf_bm25_alloc(3, docs, &ix), PF_OK);
    cr_assert_eq(pf_bm25_doc_length(ix, 2), 3); /* adam, l_bfgs, bfgs ("then" and "l" dropped) */
    pf_bm25_free(ix);
    docs[2] = "Adam then LBFGS";
    cr_assert_eq(pf_bm25_alloc(3, docs, &ix), PF_OK);
    cr_assert_eq(pf_bm25_doc_length(ix, 0), 5);
    cr_assert_eq(pf_bm25_doc_length(ix, 1), 4);
    cr_assert_eq(pf_bm25_doc_length(ix, 2), 2);
    cr_assert_float_eq(pf_bm25_avgdl(ix), 11.0 / 3.0, 1e-15);
    cr_assert_eq(pf_bm25_doc_freq(ix, "problems"), 2);
    cr_assert_float_eq(pf_bm25_idf(ix, "periodic"), log(8.0 / 3.0), 1e-15);
    cr_assert_float_eq(pf_bm25_idf(ix, "problems"), log(1.6), 1e-15);
    double s[3];
    /* repeated query terms count once; "the" is a stop word */
    cr_assert_eq(pf_bm25_scores(ix, "the periodic problems periodic", s), PF_OK);
    /* D1: f(periodic) = 2, f(problems) = 1, |D| = 4:
     *   K = 1.2 (0.25 + 0.75 * 4 / (11/3)) = 1.2 (0.25 + 9/11)
     *   ln(8/3) * 2 * 2.2 / (2 + K) + ln(1.6) * 2.2 / (1 + K) */
    cr_assert_float_eq(s[1], 1.768168522928149, 1e-9, "%.17g", s[1]);
    /* D0: problems only, |D| = 5: ln(1.6) * 2.2 / (1 + 1.2 (0.25 + 0.75 * 15/11)) */
    cr_assert_float_eq(s[0], 0.40913984991894975, 1e-9, "%.17g", s[0]);
    cr_assert_eq(s[2], 0.0);
    pf_bm25_free(ix);
}

Test(knowledge, score_is_bm25_plus_tag_term)
{
    char *dir = tmpdir();
    write_file(dir, "a.kb",
               "id: e-periodic\ntitle: Periodic embedding\ntags: representation, periodic\n"
               "rationale: Exact periodicity.\ntext: Embed periodic inputs.\n\n"
               "id: e-inverse\ntitle: Inverse data\ntags: loss, inverse\nrationale: Noise.\ntext: Weight data.\n\n"
               "id: e-general\ntitle: Adam then LBFGS\ntags: optimization, general\n"
               "rationale: Fast polish.\ntext: Split the budget.\n");
    pf_kb *kb;
    cr_assert_eq(pf_kb_load(dir, &kb), PF_OK, "%s", pf_errmsg());
    pf_kb_hit hit[3];
    int n;
    cr_assert_eq(pf_kb_search(kb, "periodic", PF_TAG_PERIODIC, 3, hit, &n), PF_OK);
    cr_assert_eq(n, 3);
    /* one entry of three tagged periodic, one inverse: idf = ln(2.5/1.5 + 1) = ln(8/3) */
    const double idf = log(8.0 / 3.0);
    cr_assert_str_eq(pf_kb_entry(kb, hit[0].entry)->id, "e-periodic");
    cr_assert_float_eq(hit[0].tag_score, PF_KB_TAG_WEIGHT * idf, 1e-12);
    cr_assert_gt(hit[0].bm25, 0);
    /* no property tag: 0; a property the PDE lacks: -idf; ties broken by id */
    cr_assert_str_eq(pf_kb_entry(kb, hit[1].entry)->id, "e-general");
    cr_assert_eq(hit[1].score, 0.0);
    cr_assert_str_eq(pf_kb_entry(kb, hit[2].entry)->id, "e-inverse");
    cr_assert_float_eq(hit[2].tag_score, -PF_KB_MISS_WEIGHT * idf, 1e-12);
    for (int i = 0; i < n; i++) cr_assert_eq(hit[i].score, hit[i].bm25 + hit[i].tag_score);
    /* k larger than the base; k = 1 */
    pf_kb_hit many[10];
    cr_assert_eq(pf_kb_search(kb, "data", 0, 10, many, &n), PF_OK);
    cr_assert_eq(n, 3);
    cr_assert_str_eq(pf_kb_entry(kb, many[0].entry)->id, "e-inverse");
    cr_assert_eq(pf_kb_search(kb, "data", 0, 1, many, &n), PF_OK);
    cr_assert_eq(n, 1);
    cr_assert_str_eq(pf_kb_entry(kb, many[0].entry)->id, "e-inverse");
    pf_kb_free(kb);
    remove_dir(dir);
}

/* ------------------------------------------------------------- retrieval */

static void top5(const pf_kb *kb, const char *name, pf_kb_hit *hit)
{
    int n;
    cr_assert_eq(pf_kb_retrieve(kb, pde(name), PF_KB_DEFAULT_K, hit, &n), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(n, 5, "%s: %d hits", name, n);
}

static bool has_tag(const pf_kb_record *e, const char *tag)
{
    for (int i = 0; i < e->ntags; i++)
        if (!strcmp(e->tags[i], tag)) return true;
    return false;
}

/* Whether s, lower-cased, contains the lower-case word. */
static bool contains_lower(const char *s, const char *word)
{
    char buf[512];
    size_t i = 0;
    for (; s[i] && i + 1 < sizeof buf; i++) buf[i] = (char)tolower((unsigned char)s[i]);
    buf[i] = 0;
    return strstr(buf, word) != NULL;
}

/* Whether one of the top 5 for name is tagged tag, or mentions word in its
 * id or title (word may be NULL). */
static bool retrieves(const pf_kb *kb, const char *name, const char *tag, const char *word)
{
    pf_kb_hit hit[5];
    top5(kb, name, hit);
    for (int i = 0; i < 5; i++) {
        const pf_kb_record *e = pf_kb_entry(kb, hit[i].entry);
        if (has_tag(e, tag)) return true;
        if (word && (strstr(e->id, word) || contains_lower(e->title, word))) return true;
    }
    return false;
}

Test(knowledge, periodic_pdes_get_periodic_advice)
{
    pf_kb *kb = shipped();
    for (int i = 0; i < pf_pdes_count(); i++) {
        const pf_pde *p = pf_pdes_at(i);
        if (p->tags & PF_TAG_PERIODIC)
            cr_assert(retrieves(kb, p->name, "periodic", NULL), "%s: no periodic entry in the top 5", p->name);
    }
    cr_assert(retrieves(kb, "kuramoto_sivashinsky_1d", "periodic", NULL));
    pf_kb_free(kb);
}

Test(knowledge, multiscale_pdes_get_fourier_or_multiscale_advice)
{
    pf_kb *kb = shipped();
    cr_assert(retrieves(kb, "heat_2d_multiscale", "multiscale", "fourier"));
    cr_assert(retrieves(kb, "poisson_2d_many_area", "multiscale", "fourier"));
    pf_kb_free(kb);
}

Test(knowledge, inverse_pdes_get_inverse_advice)
{
    pf_kb *kb = shipped();
    pf_kb_hit hit[5];
    for (int j = 0; j < 2; j++) {
        const char *name = j ? "heat_inverse_2d" : "poisson_inverse_2d";
        top5(kb, name, hit);
        int n_inverse = 0;
        for (int i = 0; i < 5; i++) n_inverse += has_tag(pf_kb_entry(kb, hit[i].entry), "inverse");
        cr_assert_geq(n_inverse, 3, "%s: %d inverse entries in the top 5", name, n_inverse);
    }
    pf_kb_free(kb);
}

Test(knowledge, every_pde_gets_five_distinct_entries_and_classes_differ)
{
    pf_kb *kb = shipped();
    int np = pf_pdes_count(), nkb = pf_kb_count(kb);
    cr_assert_eq(np, 25);
    int *seen = calloc((size_t)nkb, sizeof *seen);
    pf_kb_hit hit[25][5];
    for (int i = 0; i < np; i++) {
        top5(kb, pf_pdes_at(i)->name, hit[i]);
        for (int a = 0; a < 5; a++) {
            seen[hit[i][a].entry]++;
            if (a) cr_assert_geq(hit[i][a - 1].score, hit[i][a].score);
            for (int b = 0; b < a; b++) cr_assert_neq(hit[i][a].entry, hit[i][b].entry);
        }
    }
    int distinct = 0, most = 0;
    for (int e = 0; e < nkb; e++) {
        distinct += seen[e] > 0;
        if (seen[e] > most) most = seen[e];
    }
    /* the top 5s vary across PDEs: many entries used, none everywhere */
    cr_assert_geq(distinct, 40, "only %d distinct entries over all top 5s", distinct);
    cr_assert_leq(most, 12, "one entry is in %d of the 25 top 5s", most);
    free(seen);
    /* five classes, five pairwise different top-1 entries and top-5 sets */
    const char *cls[] = {"poisson_5d", "burgers_1d", "kuramoto_sivashinsky_1d", "heat_2d_multiscale",
                         "poisson_inverse_2d", "navier_stokes_2d_classic"};
    pf_kb_hit h[6][5];
    for (int i = 0; i < 6; i++) top5(kb, cls[i], h[i]);
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < i; j++) {
            cr_assert_neq(h[i][0].entry, h[j][0].entry, "%s and %s share their best entry", cls[i], cls[j]);
            int common = 0;
            for (int a = 0; a < 5; a++)
                for (int b = 0; b < 5; b++) common += h[i][a].entry == h[j][b].entry;
            cr_assert_leq(common, 2, "%s and %s share %d entries", cls[i], cls[j], common);
        }
    pf_kb_free(kb);
}

Test(knowledge, retrieval_is_deterministic)
{
    pf_kb *a = shipped(), *b = shipped();
    for (int i = 0; i < pf_pdes_count(); i++) {
        pf_kb_hit x[7], y[7], z[7];
        int nx, ny, nz;
        cr_assert_eq(pf_kb_retrieve(a, pf_pdes_at(i), 7, x, &nx), PF_OK);
        cr_assert_eq(pf_kb_retrieve(a, pf_pdes_at(i), 7, y, &ny), PF_OK);
        cr_assert_eq(pf_kb_retrieve(b, pf_pdes_at(i), 7, z, &nz), PF_OK);
        cr_assert_eq(nx, 7);
        cr_assert_eq(ny, 7);
        cr_assert_eq(nz, 7);
        for (int k = 0; k < 7; k++) {
            cr_assert_eq(x[k].entry, y[k].entry);
            cr_assert_eq(x[k].entry, z[k].entry);
            /* bit-identical scores */
            cr_assert_eq(memcmp(&x[k].score, &y[k].score, sizeof(double)), 0);
            cr_assert_eq(memcmp(&x[k].score, &z[k].score, sizeof(double)), 0);
            cr_assert_eq(memcmp(&x[k].bm25, &z[k].bm25, sizeof(double)), 0);
            cr_assert_eq(memcmp(&x[k].tag_score, &z[k].tag_score, sizeof(double)), 0);
        }
    }
    pf_kb_free(a);
    pf_kb_free(b);
}

Test(knowledge, knowledge_json)
{
    pf_kb *kb = shipped();
    const pf_pde *p = pde("kuramoto_sivashinsky_1d");
    json_t *tags, *es;
    cr_assert_eq(pf_kb_knowledge(kb, p, 5, &tags, &es), PF_OK, "%s", pf_errmsg());
    /* the file, through its owner (search/artifact.h), and back */
    char dir[] = "/tmp/pf_knowledge_XXXXXX", path[64];
    cr_assert(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/knowledge.msgpack", dir);
    cr_assert_eq(pf_knowledge_file_write(path, p->name, tags, es), PF_OK, "%s", pf_errmsg());
    json_t *o, *back;
    cr_assert_eq(pf_msgpack_read_file(path, &o), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(pf_knowledge_file_read(path, &back), PF_OK, "%s", pf_errmsg());
    remove(path);
    rmdir(dir);
    cr_assert(json_equal(back, es));
    json_decref(back);
    static const char *const keys[] = {"format", "version", "pde", "tags", "entries"};
    const char *key;
    json_t *v;
    size_t at = 0;
    json_object_foreach(o, key, v) cr_assert_str_eq(key, keys[at++], "the file's keys, in order");
    cr_assert_eq(at, 5);
    cr_assert_str_eq(json_string_value(json_object_get(o, "format")), "pinnforge.knowledge");
    cr_assert_eq(json_integer_value(json_object_get(o, "version")), 1);
    cr_assert_str_eq(json_string_value(json_object_get(o, "pde")), "kuramoto_sivashinsky_1d");
    json_decref(o);
    cr_assert_eq(json_array_size(tags), 5);
    cr_assert_str_eq(json_string_value(json_array_get(tags, 1)), "periodic");
    cr_assert_eq(json_array_size(es), 5);
    pf_kb_hit hit[5];
    int n;
    cr_assert_eq(pf_kb_retrieve(kb, p, 5, hit, &n), PF_OK);
    for (int i = 0; i < 5; i++) {
        json_t *e = json_array_get(es, (size_t)i);
        const pf_kb_record *r = pf_kb_entry(kb, hit[i].entry);
        cr_assert_str_eq(json_string_value(json_object_get(e, "id")), r->id);
        cr_assert_str_eq(json_string_value(json_object_get(e, "title")), r->title);
        cr_assert_str_eq(json_string_value(json_object_get(e, "rationale")), r->rationale);
        cr_assert_str_eq(json_string_value(json_object_get(e, "text")), r->text);
        cr_assert_eq(json_array_size(json_object_get(e, "tags")), (size_t)r->ntags);
        cr_assert_eq(json_real_value(json_object_get(e, "score")), hit[i].score);
    }
    json_decref(tags);
    json_decref(es);
    /* without a score */
    json_t *e = pf_kb_entry_json(pf_kb_entry(kb, 0), NAN);
    cr_assert_null(json_object_get(e, "score"));
    cr_assert_eq(json_object_size(e), 5);
    json_decref(e);
    pf_kb_free(kb);
}
