/*
 * pf-pinnsagent-db — what PINNsAgent's knowledge base gives a target PDE:
 * its PGKR neighbours with their best configurations (pinnsagent/pgkr.h) and
 * the memory-tree importance scores (pinnsagent/memory_tree.h).
 *
 *   pf-pinnsagent-db --pde P [--k K] [--visits N]
 *
 * Reads $PF_PINNSAGENT_DIR/dataset_for_retrieval.csv (SHA-256 checked) and
 * pde_labels.tsv, and data/pinnsagent/labels.tsv; prints to stdout.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/parse.h"
#include "pinnsagent/memory_tree.h"
#include "pinnsagent/pgkr.h"
#include "registry.h"

static void usage(FILE *to)
{
    fprintf(to, "usage: pf-pinnsagent-db --pde P [--k K] [--visits N] [--quiet]\n"
                "Prints PINNsAgent's Physics-Guided Knowledge Replay for PDE P (the K most\n"
                "similar other PDEs of its knowledge base by the cosine of their labels, each\n"
                "with its best run; default K 3, PDEs whose best MSE is above 1 dropped), then\n"
                "its memory-tree importance scores (the mean over the other PDEs), with the\n"
                "UCT bonus of a parameter set N times (default 0: none).\n"
                "Data: $PF_PINNSAGENT_DIR (default data/ref/pinnsagent, which `make data`\n"
                "fills) and data/pinnsagent/labels.tsv.\n"
                "Exit codes: 0 printed, 1 failure (missing or wrong data), 2 bad usage or unknown PDE.\n");
}

static pf_status report(const char *pde, int k, int visits)
{
    pf_pa_db *db = NULL;
    pf_pa_labels *ls = NULL;
    pf_pgkr_hit *hit = malloc((size_t)k * sizeof *hit);
    pf_status st = hit ? PF_OK : pf_fail(PF_ERR_NOMEM, "out of memory");
    if (st == PF_OK) st = pf_pa_db_open(&db);
    if (st == PF_OK) st = pf_pa_labels_open(&ls);
    int n = 0, others = 0;
    if (st == PF_OK) st = pf_pgkr_retrieve(db, ls, pde, k, hit, &n);
    double s[PF_PA_PARAM_COUNT];
    if (st == PF_OK) st = pf_memtree_target(db, pde, s, &others);
    if (st == PF_OK) {
        const pf_pa_label *me = pf_pa_labels_find(ls, pde);
        printf("%s:", pde);
        for (int f = 0; f < PF_PA_FIELD_COUNT; f++) printf(" %s", pf_pa_field_label(f, me->label[f]));
        printf("\nPGKR: %d of the top %d other PDEs (best MSE <= %g)\n", n, k, PF_PGKR_MSE_MAX);
        for (int i = 0; i < n; i++) {
            const pf_pa_task *t = pf_pa_db_task(db, hit[i].task);
            const pf_pa_row *r = pf_pa_db_row(db, hit[i].best_row);
            char cfg[512];
            printf("  %d. %s (%s) cosine %.4f, best of %d rows: mse %.6g (line %d)\n     %s\n", i + 1,
                   t->pde ? t->pde : "-", t->name, hit[i].cosine, t->nrows, r->mse, r->line,
                   pf_pa_row_format(r, cfg, sizeof cfg));
        }
        printf("memory tree: mean over %d other PDEs%s\n", others, visits ? ", with the UCT bonus" : "");
        for (int p = 0; p < PF_PA_PARAM_COUNT; p++)
            printf("  %-20s %.4f\n", pf_pa_param_name(p), pf_memtree_uct(s[p], visits, PF_MEMTREE_LAMBDA));
    }
    free(hit);
    pf_pa_db_free(db);
    pf_pa_labels_free(ls);
    return st;
}

int main(int argc, char **argv)
{
    static const struct option lo[] = {{"pde", 1, 0, 'p'},   {"k", 1, 0, 'k'},    {"visits", 1, 0, 'v'},
                                       {"quiet", 0, 0, 'q'}, {"help", 0, 0, 'h'}, {0, 0, 0, 0}};
    const char *pde = NULL;
    long k = PF_PGKR_K, visits = 0;
    int quiet = 0, ch;
    while ((ch = getopt_long(argc, argv, "hq", lo, NULL)) != -1) {
        switch (ch) {
        case 'p': pde = optarg; break;
        case 'k':
            if (pf_parse_long(optarg, 1, 100, &k) != PF_OK)
                return fprintf(stderr, "pf-pinnsagent-db: --k: %s\n", pf_errmsg()), 2;
            break;
        case 'v':
            if (pf_parse_long(optarg, 0, 1000000, &visits) != PF_OK)
                return fprintf(stderr, "pf-pinnsagent-db: --visits: %s\n", pf_errmsg()), 2;
            break;
        case 'q': quiet = 1; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (!pde || optind != argc) {
        fprintf(stderr, "pf-pinnsagent-db: --pde is required (see --help)\n");
        return 2;
    }
    const pf_pde *p;
    if (pf_pdes_lookup(pde, &p) != PF_OK)
        return fprintf(stderr, "pf-pinnsagent-db: %s (pf-pde list names them)\n", pf_errmsg()), 2;
    if (!quiet) fprintf(stderr, "pf-pinnsagent-db: %s from '%s'\n", pde, pf_pa_dir());
    pf_status st = report(pde, (int)k, (int)visits);
    if (st != PF_OK) {
        fprintf(stderr, "pf-pinnsagent-db: %s\n", pf_errmsg());
        return pf_status_exit_code(st);
    }
    if (!quiet) fprintf(stderr, "pf-pinnsagent-db: done\n");
    return 0;
}
