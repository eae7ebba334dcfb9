/*
 * pf-knowledge — retrieve the PINN design knowledge that fits a PDE.
 *
 *   pf-knowledge --pde P [--k N] [--json] [--out FILE] [--kb DIR]
 *                               top N entries (default 5), a table or JSON lines;
 *                               --out also writes knowledge.msgpack atomically
 *   pf-knowledge --list [--json] [--kb DIR]   every entry
 *   pf-knowledge --run RUN [--kb DIR]         K_P of a run: its PDE from RUN/context.json,
 *                                             written to RUN/knowledge.msgpack (pipeline.mk)
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/parse.h"
#include "core/status.h"
#include "io/asset_dir.h"
#include "io/msgpack_json.h"
#include "registry.h"
#include "search/artifact.h"
#include "search/knowledge.h"

#define MAX_K 1000

static void usage(FILE *to)
{
    fprintf(to, "usage: pf-knowledge --pde P [--k N] [--json] [--out FILE] [--kb DIR]\n"
                "       pf-knowledge --list [--json] [--kb DIR]\n"
                "       pf-knowledge --run RUN [--k N] [--json] [--kb DIR]\n"
                "Retrieves the PINN design knowledge that fits the PDE P: every entry of the\n"
                "knowledge base is scored by BM25 against P's tags, name, title and statement,\n"
                "plus a bonus for each of P's property tags it carries (src/search/knowledge.h\n"
                "gives the formula); the top N (default 5) are printed best first as a table\n"
                "(rank, score, id, title, tags) or, with --json, as one JSON object per line\n"
                "{id, title, tags, rationale, text, score}.\n"
                "  --pde P     a benchmark PDE (`pf-pde list` shows the names)\n"
                "  --k N       how many entries, 1..%d (default 5)\n"
                "  --json      JSON lines instead of the table\n"
                "  --out FILE  also write FILE (knowledge.msgpack) atomically:\n"
                "              {format: \"pinnforge.knowledge\", version: 1, pde, tags, entries}\n"
                "  --kb DIR    the knowledge folder (default $PF_KNOWLEDGE_DIR, else data/knowledge\n"
                "              under the working directory or the checkout of this executable)\n"
                "  --list      print every entry instead (id, tags, title; all fields with --json)\n"
                "  --run RUN   the run's K_P: --pde from RUN/context.json, --out RUN/knowledge.msgpack\n"
                "Exit codes: 0 ok, 1 malformed knowledge base (file:line) or write failure,\n"
                "2 usage error or unknown PDE.\n",
            MAX_K);
}

static void print_json_line(json_t *o)
{
    char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
    puts(s);
    free(s);
}

static void join_tags(const pf_kb_record *e, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = 0;
    for (int i = 0; i < e->ntags && len < cap; i++)
        len += (size_t)snprintf(buf + len, cap - len, "%s%s", i ? "," : "", e->tags[i]);
}

static int list(const pf_kb *kb, int json)
{
    for (int i = 0; i < pf_kb_count(kb); i++) {
        const pf_kb_record *e = pf_kb_entry(kb, i);
        if (json) {
            json_t *o = pf_kb_entry_json(e, NAN);
            print_json_line(o);
            json_decref(o);
        } else {
            char tags[512];
            join_tags(e, tags, sizeof tags);
            printf("%-40s %-44s %s\n", e->id, tags, e->title);
        }
    }
    return 0;
}

static int retrieve(const pf_kb *kb, const char *dir, const pf_pde *p, int k, int json, const char *out)
{
    pf_kb_hit *hits = malloc((size_t)k * sizeof *hits);
    int n;
    if (!hits || pf_kb_retrieve(kb, p, k, hits, &n) != PF_OK) {
        fprintf(stderr, "pf-knowledge: %s\n", hits ? pf_errmsg() : "out of memory");
        free(hits);
        return 1;
    }
    if (out) {
        json_t *tags, *entries;
        pf_status st = pf_kb_knowledge(kb, p, k, &tags, &entries);
        if (st == PF_OK) {
            st = pf_knowledge_file_write(out, p->name, tags, entries);
            json_decref(tags);
            json_decref(entries);
        }
        if (st != PF_OK) {
            fprintf(stderr, "pf-knowledge: %s\n", pf_errmsg());
            free(hits);
            return pf_status_exit_code(st);
        }
    }
    if (!json) {
        char ptags[256] = "";
        size_t len = 0;
        for (int b = 0; b < PF_TAG_COUNT; b++)
            if (p->tags & (1u << b))
                len += (size_t)snprintf(ptags + len, sizeof ptags - len, "%s%s", len ? "," : "",
                                        pf_pde_tag_name(b));
        printf("%s (%s): top %d of %d entries in %s\n", p->name, len ? ptags : "no tags", n, pf_kb_count(kb),
               dir);
        printf("%4s %8s %8s %8s  %-40s %-52s %s\n", "rank", "score", "bm25", "tags+", "id", "title", "tags");
    }
    for (int i = 0; i < n; i++) {
        const pf_kb_record *e = pf_kb_entry(kb, hits[i].entry);
        if (json) {
            json_t *o = pf_kb_entry_json(e, hits[i].score);
            print_json_line(o);
            json_decref(o);
        } else {
            char tags[512];
            join_tags(e, tags, sizeof tags);
            printf("%4d %8.3f %8.3f %8.3f  %-40s %-52s %s\n", i + 1, hits[i].score, hits[i].bm25,
                   hits[i].tag_score, e->id, e->title, tags);
        }
    }
    free(hits);
    return 0;
}

int main(int argc, char **argv)
{
    const char *pde_name = NULL, *out = NULL, *kb_dir = NULL, *k_arg = NULL, *run_dir = NULL;
    int json = 0, do_list = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--pde") && i + 1 < argc)
            pde_name = argv[++i];
        else if (!strcmp(argv[i], "--run") && i + 1 < argc)
            run_dir = argv[++i];
        else if (!strcmp(argv[i], "--k") && i + 1 < argc)
            k_arg = argv[++i];
        else if (!strcmp(argv[i], "--out") && i + 1 < argc)
            out = argv[++i];
        else if (!strcmp(argv[i], "--kb") && i + 1 < argc)
            kb_dir = argv[++i];
        else if (!strcmp(argv[i], "--json"))
            json = 1;
        else if (!strcmp(argv[i], "--list"))
            do_list = 1;
        else if (argv[i][0] != '-') {
            fprintf(stderr, "pf-knowledge: unexpected argument '%s'\n", argv[i]);
            return 2;
        } else {
            fprintf(stderr, "pf-knowledge: unknown option '%s' (or it lacks its value); see --help\n", argv[i]);
            return 2;
        }
    }
    if (do_list && (pde_name || k_arg || out || run_dir)) {
        fprintf(stderr, "pf-knowledge: --list takes no --pde, --k, --out or --run\n");
        return 2;
    }
    pf_run run;
    char run_out[4200];
    if (run_dir && (pde_name || out)) {
        fprintf(stderr, "pf-knowledge: --run takes the PDE and the output from the run: no --pde or --out\n");
        return 2;
    }
    if (run_dir) {
        if (pf_run_open(run_dir, &run) != PF_OK || pf_run_path(run_dir, PF_RUN_KNOWLEDGE, 0, 0, run_out, sizeof run_out) != PF_OK) {
            fprintf(stderr, "pf-knowledge: %s\n", pf_errmsg());
            return 2;
        }
        out = run_out;
    }
    if (!do_list && !pde_name && !run_dir) {
        fprintf(stderr, "pf-knowledge: needs --pde P, --run RUN or --list; see --help\n");
        return 2;
    }
    int k = 5;
    if (k_arg) {
        long v;
        if (pf_parse_long(k_arg, 1, MAX_K, &v) != PF_OK) {
            fprintf(stderr, "pf-knowledge: --k must be an integer in 1..%d, not '%s'\n", MAX_K, k_arg);
            return 2;
        }
        k = (int)v;
    }
    const pf_pde *p = run_dir ? run.pde : NULL;
    if (pde_name && pf_pdes_lookup(pde_name, &p) != PF_OK) {
        fprintf(stderr, "pf-knowledge: %s (`pf-pde list` shows them)\n", pf_errmsg());
        return 2;
    }
    char dir[PF_ASSET_PATH_MAX];
    pf_status st = PF_OK;
    if (kb_dir) {
        if (strlen(kb_dir) >= sizeof dir) st = pf_fail(PF_ERR_USAGE, "--kb path is too long");
        else snprintf(dir, sizeof dir, "%s", kb_dir);
    } else
        st = pf_asset_dir("knowledge", "PF_KNOWLEDGE_DIR", dir, sizeof dir);
    if (st != PF_OK) {
        fprintf(stderr, "pf-knowledge: %s\n", pf_errmsg());
        return pf_status_exit_code(st);
    }
    pf_kb *kb;
    if ((st = pf_kb_load(dir, &kb)) != PF_OK) {
        fprintf(stderr, "pf-knowledge: %s\n", pf_errmsg());
        return 1;
    }
    int rc = do_list ? list(kb, json) : retrieve(kb, dir, p, k, json, out);
    pf_kb_free(kb);
    return rc;
}
