/*
 * test_artifact.c — the run files (src/search/artifact.h, run.h's paths):
 * every artifact survives write -> read -> write with the same bytes and
 * the same fields; a file of another format or version is refused with its
 * name; the candidate reader enforces the controller's rules.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/parse.h"
#include "io/h5.h"
#include "io/msgpack_json.h"
#include "registry.h"
#include "search/artifact.h"

/* ---------------------------------------------------------------- helpers --- */

static char dir[64];

static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/pf-artifact-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
}

static void teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

static void path_of(char *buf, const char *name)
{
    snprintf(buf, 256, "%s/%s", dir, name);
}

/* The bytes of a file (malloc'ed) and their count. */
static char *bytes(const char *path, size_t *n)
{
    char *b;
    cr_assert_eq(pf_file_read(path, &b, n), PF_OK, "%s", pf_errmsg());
    return b;
}

static void assert_same_bytes(const char *a, const char *b)
{
    size_t na, nb;
    char *x = bytes(a, &na), *y = bytes(b, &nb);
    cr_assert_eq(na, nb, "%s has %zu bytes, %s %zu", a, na, b, nb);
    cr_assert_eq(memcmp(x, y, na), 0, "%s and %s differ", a, b);
    free(x);
    free(y);
}

static void hash_of(int id, char out[PF_SPEC_HASH_HEX])
{
    snprintf(out, PF_SPEC_HASH_HEX, "%064x", (unsigned)id);
}

static json_t *spec_object(int width)
{
    return json_pack("{s:{s:s, s:i}}", "architecture", "kind", "mlp", "width", width);
}

/* A search proposal as pf-propose writes it. */
static pf_proposal_file search_proposal(int g, int k, bool valid)
{
    pf_proposal_file f = {.generation = g, .index = k, .escape = g == 4, .low_fidelity_y = NAN};
    snprintf(f.pde, sizeof f.pde, "burgers_1d");
    snprintf(f.method, sizeof f.method, "pinnforge");
    snprintf(f.slot, sizeof f.slot, "gen%02d/refine", g);
    snprintf(f.role, sizeof f.role, "refine");
    pf_proposal *p = &f.call;
    p->valid = valid;
    if (valid) {
        p->spec = spec_object(32 + k);
        hash_of(100 + k, p->spec_hash);
        p->rationale = strdup("wider layers for the steep front");
    } else {
        p->reasons = strdup("architecture.width: 9999 is outside 8..512");
    }
    p->attempts = 2;
    snprintf(p->request[0], sizeof p->request[0], "%064d", 1);
    snprintf(p->request[1], sizeof p->request[1], "%064d", 2);
    p->prompt_tokens = 1234;
    p->completion_tokens = 567;
    p->latency_s = 0.25;
    snprintf(p->provider, sizeof p->provider, "offline");
    return f;
}

/* A trained candidate's evidence. */
static pf_evidence_file trained_evidence(const char *hash, double y, const char *status)
{
    pf_evidence_file e = {.has_y = true, .y = y, .seed = 4200001};
    snprintf(e.status, sizeof e.status, "%s", status);
    snprintf(e.pde, sizeof e.pde, "burgers_1d");
    snprintf(e.spec_hash, sizeof e.spec_hash, "%s", hash);
    snprintf(e.fidelity, sizeof e.fidelity, "low");
    snprintf(e.budget, sizeof e.budget, "quick");
    e.evidence = json_pack("{s:s, s:i, s:f, s:{s:f}}", "status", status, "steps", 200, "loss_final", 1e-3, "time",
                           "wall_s", 1.5);
    return e;
}

/* ------------------------------------------------------------- round trips --- */

TestSuite(artifact, .init = setup, .fini = teardown);

Test(artifact, proposal_search_round_trips)
{
    char a[256], b[256];
    path_of(a, "a.msgpack");
    path_of(b, "b.msgpack");
    for (int valid = 0; valid < 2; valid++) {
        pf_proposal_file f = search_proposal(4, 1, valid), back;
        if (valid) { /* a mixture's record: the backbone and the draw */
            snprintf(f.call.backbone, sizeof f.call.backbone, "good");
            f.mix = json_pack("{s:s, s:s, s:i}", "rule", "ucb1", "chosen", "good", "total", 7);
        }
        cr_assert_eq(pf_proposal_file_write(a, &f), PF_OK, "%s", pf_errmsg());
        cr_assert_eq(pf_proposal_file_read(a, &back), PF_OK, "%s", pf_errmsg());
        cr_assert_str_eq(back.pde, "burgers_1d");
        cr_assert_str_eq(back.method, "pinnforge");
        cr_assert_eq(back.generation, 4);
        cr_assert_eq(back.index, 1);
        cr_assert_str_eq(back.role, "refine");
        cr_assert(back.escape);
        cr_assert_eq(back.call.valid, (bool)valid);
        cr_assert_eq(back.call.attempts, 2);
        cr_assert_str_eq(back.call.request[1], f.call.request[1]);
        cr_assert_eq(back.call.prompt_tokens, 1234);
        cr_assert_eq(back.call.completion_tokens, 567);
        cr_assert_float_eq(back.call.latency_s, 0.25, 0);
        if (valid) {
            cr_assert_str_eq(back.call.spec_hash, f.call.spec_hash);
            cr_assert(json_equal(back.call.spec, f.call.spec));
            cr_assert_str_eq(back.call.rationale, f.call.rationale);
            cr_assert_str_eq(back.call.backbone, "good");
            cr_assert(json_equal(back.mix, f.mix));
        } else {
            cr_assert_str_eq(back.call.reasons, f.call.reasons);
            cr_assert_str_eq(back.call.backbone, "");
            cr_assert_null(back.mix);
        }
        cr_assert_eq(pf_proposal_file_write(b, &back), PF_OK);
        assert_same_bytes(a, b);
        pf_proposal_file_release(&f);
        pf_proposal_file_release(&back);
    }
}

Test(artifact, proposal_skipped_and_hifi_round_trip)
{
    char a[256], b[256];
    path_of(a, "a.msgpack");
    path_of(b, "b.msgpack");
    /* the high-fidelity form: no method, generation, role or calls */
    pf_proposal_file h = {.generation = PF_RUN_HIFI, .index = 2, .low_fidelity_y = 3.5e-4}, back;
    snprintf(h.pde, sizeof h.pde, "poisson_5d");
    snprintf(h.slot, sizeof h.slot, "hifi");
    h.call.valid = true;
    h.call.spec = spec_object(64);
    hash_of(7, h.call.spec_hash);
    cr_assert_eq(pf_proposal_file_write(a, &h), PF_OK, "%s", pf_errmsg());
    json_t *raw;
    cr_assert_eq(pf_msgpack_read_file(a, &raw), PF_OK);
    cr_assert_eq(json_object_size(raw), 10, "format version pde index slot valid skipped spec spec_hash low_fidelity_y");
    cr_assert_null(json_object_get(raw, "method"));
    cr_assert_null(json_object_get(raw, "attempts"));
    json_decref(raw);
    cr_assert_eq(pf_proposal_file_read(a, &back), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(back.generation, PF_RUN_HIFI);
    cr_assert_float_eq(back.low_fidelity_y, 3.5e-4, 0);
    cr_assert_eq(pf_proposal_file_write(b, &back), PF_OK);
    assert_same_bytes(a, b);
    pf_proposal_file_release(&h);
    pf_proposal_file_release(&back);

    /* skipped after a stop: reasons only */
    pf_proposal_file s = {.generation = 5, .index = 0, .skipped = true, .low_fidelity_y = NAN};
    snprintf(s.pde, sizeof s.pde, "poisson_5d");
    snprintf(s.method, sizeof s.method, "pinnforge");
    s.call.reasons = strdup("the search stopped before this generation");
    cr_assert_eq(pf_proposal_file_write(a, &s), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(pf_proposal_file_read(a, &back), PF_OK, "%s", pf_errmsg());
    cr_assert(back.skipped);
    cr_assert_not(back.call.valid);
    cr_assert_str_eq(back.call.reasons, s.call.reasons);
    cr_assert_eq(pf_proposal_file_write(b, &back), PF_OK);
    assert_same_bytes(a, b);
    pf_proposal_file_release(&s);
    pf_proposal_file_release(&back);
}

Test(artifact, evidence_round_trips_trained_and_untrained)
{
    char a[256], b[256], hash[PF_SPEC_HASH_HEX];
    path_of(a, "a.msgpack");
    path_of(b, "b.msgpack");
    hash_of(9, hash);
    pf_evidence_file e = trained_evidence(hash, 2.5e-5, "ok"), back;
    cr_assert_eq(pf_evidence_file_write(a, &e), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(pf_evidence_file_read(a, &back), PF_OK, "%s", pf_errmsg());
    cr_assert(back.has_y);
    cr_assert_float_eq(back.y, 2.5e-5, 0);
    cr_assert_str_eq(back.status, "ok");
    cr_assert_str_eq(back.spec_hash, hash);
    cr_assert_eq(back.seed, 4200001u);
    cr_assert_eq(back.steps, 200);
    cr_assert_float_eq(back.wall_s, 1.5, 0);
    cr_assert(json_equal(back.evidence, e.evidence));
    cr_assert_eq(pf_evidence_file_write(b, &back), PF_OK);
    assert_same_bytes(a, b);
    pf_evidence_file_release(&e);
    pf_evidence_file_release(&back);

    pf_evidence_file u;
    cr_assert_eq(pf_evidence_file_init_untrained(&u, "wave_1d", "invalid", "no valid spec after 4 calls", "low", "paper", 7),
                 PF_OK);
    cr_assert_eq(pf_evidence_file_write(a, &u), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(pf_evidence_file_read(a, &back), PF_OK, "%s", pf_errmsg());
    cr_assert_not(back.has_y);
    cr_assert_str_eq(back.y_missing, "no valid spec after 4 calls");
    cr_assert_str_eq(back.spec_hash, "");
    cr_assert_null(back.evidence);
    cr_assert_eq(back.steps, 0);
    cr_assert_eq(pf_evidence_file_write(b, &back), PF_OK);
    assert_same_bytes(a, b);
    pf_evidence_file_release(&u);
    pf_evidence_file_release(&back);
}

Test(artifact, memory_round_trips_with_and_without_a_call)
{
    char a[256], b[256];
    path_of(a, "a.msgpack");
    path_of(b, "b.msgpack");
    pf_memory_file m, back;
    cr_assert_eq(pf_memory_file_init(&m, 3, "causal weighting helped; L-BFGS diverged twice", NULL), PF_OK);
    m.has_call = true;
    snprintf(m.provider, sizeof m.provider, "offline");
    m.prompt_tokens = 900;
    m.completion_tokens = 80;
    m.latency_s = 0.125;
    m.candidates = 21;
    cr_assert_eq(pf_memory_file_write(a, &m), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(pf_memory_file_read(a, &back), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(back.generation, 3);
    cr_assert_str_eq(back.text, m.text);
    cr_assert_null(back.reason);
    cr_assert(back.has_call);
    cr_assert_eq(back.candidates, 21);
    cr_assert_eq(back.completion_tokens, 80);
    cr_assert_eq(pf_memory_file_write(b, &back), PF_OK);
    assert_same_bytes(a, b);
    pf_memory_file_release(&m);
    pf_memory_file_release(&back);

    cr_assert_eq(pf_memory_file_init(&m, 0, NULL, "method no_feedback forms no posterior memory"), PF_OK);
    cr_assert_eq(pf_memory_file_write(a, &m), PF_OK);
    cr_assert_eq(pf_memory_file_read(a, &back), PF_OK, "%s", pf_errmsg());
    cr_assert_null(back.text);
    cr_assert_str_eq(back.reason, m.reason);
    cr_assert_not(back.has_call);
    cr_assert_eq(pf_memory_file_write(b, &back), PF_OK);
    assert_same_bytes(a, b);
    pf_memory_file_release(&m);
    pf_memory_file_release(&back);
}

Test(artifact, final_round_trips)
{
    char a[256], b[256];
    path_of(a, "a.msgpack");
    path_of(b, "b.msgpack");
    pf_final_file f = {.run = 3, .hf_mse = 1.25e-6, .lf_mse = 4e-5, .ntop = 2, .generations = 7}, back;
    snprintf(f.pde, sizeof f.pde, "heat_2d_multiscale");
    snprintf(f.method, sizeof f.method, "no_feedback");
    snprintf(f.profile, sizeof f.profile, "quick");
    f.spec = spec_object(128);
    hash_of(11, f.spec_hash);
    snprintf(f.found_in, sizeof f.found_in, "gen05/synthesis");
    for (int k = 0; k < 2; k++) {
        hash_of(11 + k, f.top[k].spec_hash);
        f.top[k].y_low = 4e-5 * (k + 1);
        f.top[k].has_y_high = k == 0;
        f.top[k].y_high = k == 0 ? 1.25e-6 : NAN;
        snprintf(f.top[k].status, sizeof f.top[k].status, "%s", k == 0 ? "ok" : "nan");
        f.top[k].seed = 309900u + (unsigned)k;
    }
    f.stop_reason = strdup("population stagnation after generation 6; the escape failed");
    f.budget = (pf_run_budget){.steps_low = 10600, .steps_high = 3000, .wall_low = 55.5, .wall_high = 30.25,
                               .llm_s = 0.5, .calls = 62, .prompt_tokens = 100000, .completion_tokens = 9000,
                               .cost = 0.375, .priced = true, .candidates = 53, .invalid = 2};
    cr_assert_eq(pf_llm_usage_add(&f.budget.llm_by, "loop", 60, 99000, 8900, 0.4), PF_OK);
    cr_assert_eq(pf_llm_usage_add(&f.budget.llm_by, "offline", 2, 1000, 100, 0.1), PF_OK);
    f.budget.llm_by.b[0].cost = 0.375, f.budget.llm_by.b[0].priced = true, f.budget.llm_by.b[1].priced = true;
    snprintf(f.stopped, sizeof f.stopped, "llm budget");
    cr_assert_eq(pf_final_file_write(a, &f), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(pf_final_file_read(a, &back), PF_OK, "%s", pf_errmsg());
    cr_assert_str_eq(back.method, "no_feedback");
    cr_assert_eq(back.run, 3);
    cr_assert_float_eq(back.hf_mse, 1.25e-6, 0);
    cr_assert_eq(back.ntop, 2);
    cr_assert_not(back.top[1].has_y_high);
    cr_assert_str_eq(back.top[1].status, "nan");
    cr_assert_eq(back.top[1].seed, 309901u);
    cr_assert_eq(back.budget.steps_low, 10600);
    cr_assert_float_eq(back.budget.wall_high, 30.25, 0);
    cr_assert_eq(back.budget.invalid, 2);
    cr_assert_str_eq(back.stop_reason, f.stop_reason);
    cr_assert_str_eq(back.stopped, "llm budget");
    cr_assert_float_eq(back.budget.cost, 0.375, 0);
    cr_assert(back.budget.priced);
    cr_assert_eq(back.budget.llm_by.n, 2);
    cr_assert_str_eq(back.budget.llm_by.b[0].name, "loop");
    cr_assert_eq(back.budget.llm_by.b[0].completion_tokens, 8900);
    cr_assert_float_eq(back.budget.llm_by.b[0].cost, 0.375, 0);
    cr_assert(back.budget.llm_by.b[1].priced && back.budget.llm_by.b[1].calls == 2);
    cr_assert(json_equal(back.spec, f.spec));
    cr_assert_eq(pf_final_file_write(b, &back), PF_OK);
    assert_same_bytes(a, b);
    pf_final_file_release(&f);
    pf_final_file_release(&back);
}

Test(artifact, result_h5_untrained_meta)
{
    char a[256];
    path_of(a, "result.h5");
    cr_assert_eq(pf_result_write_untrained(a, "skipped", "the search stopped"), PF_OK, "%s", pf_errmsg());
    pf_result_meta m;
    cr_assert_eq(pf_result_read_meta(a, &m), PF_OK, "%s", pf_errmsg());
    cr_assert_str_eq(m.status, "skipped");
    cr_assert_str_eq(m.spec, "");
    pf_result_meta_release(&m);
}

/* A result.h5 whose checksum matches but whose "seed" is no integer: refused,
 * holding nothing (the spec read before the seed leaked; guarded also by
 * tests/fuzz/regressions/h5/seed_not_int.h5 through fuzz_h5.c). */
Test(artifact, result_h5_meta_with_a_bad_seed_is_refused_and_holds_nothing)
{
    char a[256];
    path_of(a, "result.h5");
    pf_h5 *f;
    cr_assert_eq(pf_h5_create(a, &f), PF_OK, "%s", pf_errmsg());
    pf_h5_attr_str(f, "/", "format", "pinnforge.result");
    pf_h5_attr_i64(f, "/", "version", PF_ARTIFACT_VERSION);
    pf_h5_attr_str(f, "/", "status", "ok");
    pf_h5_attr_str(f, "/", "pde", "burgers_1d");
    pf_h5_attr_str(f, "/", "spec_hash", "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef");
    pf_h5_attr_str(f, "/", "fidelity", "low");
    pf_h5_attr_str(f, "/", "spec", "{}");
    pf_h5_attr_str(f, "/", "seed", "not an integer");
    cr_assert_eq(pf_h5_close(f), PF_OK, "%s", pf_errmsg());
    pf_result_meta m;
    cr_assert_neq(pf_result_read_meta(a, &m), PF_OK);
    cr_expect(strstr(pf_errmsg(), "seed"), "%s", pf_errmsg());
    cr_expect(m.spec == NULL);
}

/* One changed byte in result.h5, in its header or in HDF5's part: refused
 * as corrupt with the file named (issue 24), before HDF5 opens it. */
Test(artifact, result_h5_corrupt_is_refused_with_the_file_named)
{
    char a[256];
    path_of(a, "result.h5");
    const long at[4] = {0, 100, 512, 1000}; /* magic, header zeros, HDF5 signature, metadata (the untrained file is about 1.6 kB) */
    for (int i = 0; i < 4; i++) {
        cr_assert_eq(pf_result_write_untrained(a, "skipped", "the search stopped"), PF_OK, "%s", pf_errmsg());
        FILE *f = fopen(a, "r+b");
        cr_assert_not_null(f);
        cr_assert_eq(fseek(f, at[i], SEEK_SET), 0);
        int c = fgetc(f);
        cr_assert_neq(c, EOF, "result.h5 is shorter than %ld bytes", at[i] + 1);
        cr_assert_eq(fseek(f, at[i], SEEK_SET), 0);
        fputc(c ^ 0xFB, f);
        cr_assert_eq(fclose(f), 0);
        pf_result_meta m;
        cr_assert_eq(pf_result_read_meta(a, &m), PF_ERR_IO, "byte %ld", at[i]);
        cr_expect(strstr(pf_errmsg(), a) && strstr(pf_errmsg(), "is corrupt"), "byte %ld: %s", at[i], pf_errmsg());
        cr_expect(m.spec == NULL);
    }
}

/* ------------------------------------- issue 24: messages fit for artifacts --- */

#define FFFD "\xef\xbf\xbd"

/* A reference file's error that quotes bytes 0xff 0xfe: jansson refuses
 * such a string, so y_missing was lost (or the write failed). Stored
 * sanitised instead, in the evidence and in the untrained result.h5. */
Test(artifact, messages_with_invalid_utf8_are_stored_sanitised)
{
    char a[256], h5[256];
    path_of(a, "evidence.msgpack");
    path_of(h5, "result.h5");
    const char *why = "no reference solution: ref.dat:13: value 2 '\xff\xfe" "0.4' is not a number\a";
    const char *want = "no reference solution: ref.dat:13: value 2 '" FFFD FFFD "0.4' is not a number?";

    pf_evidence_file u, back;
    cr_assert_eq(pf_evidence_file_init_untrained(&u, "poisson_2d_classic", "invalid", why, "low", "quick", 1), PF_OK);
    cr_assert_eq(pf_evidence_file_write(a, &u), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(pf_evidence_file_read(a, &back), PF_OK, "%s", pf_errmsg());
    cr_assert_not(back.has_y);
    cr_assert_str_eq(back.y_missing, want);
    pf_evidence_file_release(&u);
    pf_evidence_file_release(&back);

    /* a trained run without a reference: y_missing and the detail */
    static pf_train_result r; /* large; zeroed */
    memset(&r, 0, sizeof r);
    snprintf(r.y_missing, sizeof r.y_missing, "%s", why);
    snprintf(r.detail, sizeof r.detail, "trained \xc3 of 200 steps");
    r.causal_min = NAN;
    const pf_pde *p;
    cr_assert_eq(pf_pdes_lookup("poisson_2d_classic", &p), PF_OK);
    pf_evidence_file e;
    char hash[PF_SPEC_HASH_HEX];
    hash_of(3, hash);
    cr_assert_eq(pf_evidence_file_init(&e, p, &r, hash, "low", "quick", 1), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(pf_evidence_file_write(a, &e), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(pf_evidence_file_read(a, &back), PF_OK, "%s", pf_errmsg());
    cr_assert_str_eq(back.y_missing, want);
    cr_assert_str_eq(json_string_value(json_object_get(back.evidence, "detail")), "trained " FFFD " of 200 steps");
    pf_evidence_file_release(&e);
    pf_evidence_file_release(&back);

    cr_assert_eq(pf_result_write_untrained(h5, "invalid", why), PF_OK, "%s", pf_errmsg());
    char *reason = NULL;
    cr_assert_eq(pf_h5_read_attr_str(h5, "/", "reason", &reason), PF_OK, "%s", pf_errmsg());
    cr_assert_str_eq(reason, want);
    free(reason);
}

/* A proposal's reasons as they are written: sanitised and bounded. */
Test(artifact, proposal_reasons_are_sanitised_and_bounded)
{
    char a[256];
    path_of(a, "cand0.proposal.msgpack");
    pf_proposal_file f = search_proposal(1, 0, false), back;
    free(f.call.reasons);
    size_t n = PF_TEXT_BLOCK_MAX + 100;
    f.call.reasons = malloc(n + 1);
    memset(f.call.reasons, 'r', n);
    memcpy(f.call.reasons, "- bad \xff\n", 8);
    f.call.reasons[n] = 0;
    cr_assert_eq(pf_proposal_file_write(a, &f), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(pf_proposal_file_read(a, &back), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(strlen(back.call.reasons), PF_TEXT_BLOCK_MAX);
    cr_assert_eq(strncmp(back.call.reasons, "- bad " FFFD "\n", 10), 0);
    cr_assert_str_eq(back.call.reasons + PF_TEXT_BLOCK_MAX - 3, "...");
    pf_proposal_file_release(&f);
    pf_proposal_file_release(&back);
}

/* -------------------------------------------------- wrong format or version --- */

Test(artifact, another_format_is_refused_with_the_file_named)
{
    char a[256];
    path_of(a, "memory.msgpack");
    pf_memory_file m;
    cr_assert_eq(pf_memory_file_init(&m, 1, "x", NULL), PF_OK);
    cr_assert_eq(pf_memory_file_write(a, &m), PF_OK);
    pf_memory_file_release(&m);
    pf_proposal_file p;
    cr_assert_eq(pf_proposal_file_read(a, &p), PF_ERR_INVALID);
    cr_assert(strstr(pf_errmsg(), a), "%s", pf_errmsg());
    cr_assert(strstr(pf_errmsg(), "pinnforge.proposal") && strstr(pf_errmsg(), "pinnforge.memory"), "%s", pf_errmsg());
    pf_evidence_file e;
    cr_assert_eq(pf_evidence_file_read(a, &e), PF_ERR_INVALID);
    pf_final_file f;
    cr_assert_eq(pf_final_file_read(a, &f), PF_ERR_INVALID);
    json_t *k;
    cr_assert_eq(pf_knowledge_file_read(a, &k), PF_ERR_INVALID);
}

Test(artifact, another_version_is_refused_with_the_file_named)
{
    char a[256];
    path_of(a, "evidence.msgpack");
    json_t *doc = json_pack("{s:s, s:i, s:s, s:s}", "format", "pinnforge.evidence", "version", 2, "status", "ok", "pde",
                            "burgers_1d");
    cr_assert_eq(pf_msgpack_write_file(a, doc), PF_OK);
    json_decref(doc);
    pf_evidence_file e;
    cr_assert_eq(pf_evidence_file_read(a, &e), PF_ERR_INVALID);
    cr_assert(strstr(pf_errmsg(), a) && strstr(pf_errmsg(), "version"), "%s", pf_errmsg());

    char h[256];
    path_of(h, "result.h5");
    pf_h5 *f;
    cr_assert_eq(pf_h5_create(h, &f), PF_OK);
    cr_assert_eq(pf_h5_attr_str(f, "/", "format", "pinnforge.result"), PF_OK);
    cr_assert_eq(pf_h5_attr_i64(f, "/", "version", 2), PF_OK);
    cr_assert_eq(pf_h5_attr_str(f, "/", "status", "ok"), PF_OK);
    cr_assert_eq(pf_h5_close(f), PF_OK);
    pf_result_meta m;
    cr_assert_eq(pf_result_read_meta(h, &m), PF_ERR_INVALID);
    cr_assert(strstr(pf_errmsg(), h) && strstr(pf_errmsg(), "version 2"), "%s", pf_errmsg());
}

Test(artifact, a_field_of_the_wrong_type_is_refused)
{
    char a[256];
    path_of(a, "p.msgpack");
    json_t *doc = json_pack("{s:s, s:i, s:s, s:i, s:s, s:b}", "format", "pinnforge.proposal", "version", 1, "pde",
                            "burgers_1d", "index", 0, "slot", "hifi", "valid", 1);
    cr_assert_eq(pf_msgpack_write_file(a, doc), PF_OK);
    pf_proposal_file p;
    cr_assert_eq(pf_proposal_file_read(a, &p), PF_ERR_INVALID, "a valid proposal without its spec_hash");
    cr_assert(strstr(pf_errmsg(), "spec_hash"), "%s", pf_errmsg());
    json_object_set_new(doc, "valid", json_string("yes"));
    cr_assert_eq(pf_msgpack_write_file(a, doc), PF_OK);
    cr_assert_eq(pf_proposal_file_read(a, &p), PF_ERR_INVALID);
    cr_assert(strstr(pf_errmsg(), "\"valid\""), "%s", pf_errmsg());
    json_decref(doc);
}

/* ------------------------------------------------------------ paths, walks --- */

Test(artifact, run_paths)
{
    char p[256];
    cr_assert_eq(pf_run_path("r", PF_RUN_PROPOSAL, 3, 4, p, sizeof p), PF_OK);
    cr_assert_str_eq(p, "r/gen03/cand4.proposal.msgpack");
    cr_assert_eq(pf_run_path("r", PF_RUN_RESULT, PF_RUN_HIFI, 2, p, sizeof p), PF_OK);
    cr_assert_str_eq(p, "r/hifi/top2/result.h5");
    cr_assert_eq(pf_run_path("r", PF_RUN_PROPOSAL, PF_RUN_HIFI, 0, p, sizeof p), PF_OK);
    cr_assert_str_eq(p, "r/hifi/top0.proposal.msgpack");
    cr_assert_eq(pf_run_path("r", PF_RUN_GENERATION, PF_RUN_HIFI, 0, p, sizeof p), PF_OK);
    cr_assert_str_eq(p, "r/hifi");
    cr_assert_eq(pf_run_path("r", PF_RUN_FINAL, 0, 0, p, sizeof p), PF_OK);
    cr_assert_str_eq(p, "r/final.msgpack");
    cr_assert_eq(pf_run_path("r", PF_RUN_MEMORY, 9, 0, p, sizeof p), PF_OK);
    cr_assert_str_eq(p, "r/gen09/memory.msgpack");
    cr_assert_eq(pf_run_path("r", PF_RUN_SELECT, PF_RUN_HIFI, 0, p, sizeof p), PF_ERR_INVALID, "no hifi selection");
    cr_assert_eq(pf_run_path("r", PF_RUN_EVIDENCE, 100, 0, p, sizeof p), PF_ERR_INVALID);
    cr_assert_eq(pf_run_path("a-long-run-folder", PF_RUN_FINAL, 0, 0, p, 8), PF_ERR_INVALID);
}

/* Candidate k of generation 2 in dir: its proposal and, optionally, evidence. */
static void put_candidate(int k, bool valid, const char *ev_hash, const char *ev_status)
{
    char p[512], d[512];
    snprintf(d, sizeof d, "%s/gen02/cand%d", dir, k);
    cr_assert_eq(pf_mkdirs(d), PF_OK);
    pf_proposal_file f = search_proposal(2, k, valid);
    cr_assert_eq(pf_run_path(dir, PF_RUN_PROPOSAL, 2, k, p, sizeof p), PF_OK);
    cr_assert_eq(pf_proposal_file_write(p, &f), PF_OK, "%s", pf_errmsg());
    pf_proposal_file_release(&f);
    if (!ev_hash) return;
    pf_evidence_file e = trained_evidence(ev_hash, 1e-4 * (k + 1), ev_status);
    cr_assert_eq(pf_run_path(dir, PF_RUN_EVIDENCE, 2, k, p, sizeof p), PF_OK);
    cr_assert_eq(pf_evidence_file_write(p, &e), PF_OK, "%s", pf_errmsg());
    pf_evidence_file_release(&e);
}

Test(artifact, a_generation_reads_with_the_controller_rules)
{
    char h0[PF_SPEC_HASH_HEX];
    hash_of(100, h0);
    put_candidate(0, true, h0, "diverged");
    put_candidate(1, false, NULL, NULL); /* invalid: needs no evidence */
    pf_run_candidate *c;
    int n;
    cr_assert_eq(pf_run_generation_read(dir, 2, &c, &n), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(n, 2);
    cr_assert_eq(c[0].cand.status, PF_CANDIDATE_DIVERGED);
    cr_assert_str_eq(c[0].cand.spec_hash, h0);
    cr_assert_str_eq(c[0].cand.slot, "gen02/refine");
    cr_assert_not_null(c[0].cand.evidence);
    cr_assert_eq(c[1].cand.status, PF_CANDIDATE_INVALID);
    cr_assert_not(c[1].trained);
    pf_run_generation_free(c, n);

    put_candidate(2, true, NULL, NULL); /* valid, not trained */
    cr_assert_eq(pf_run_generation_read(dir, 2, &c, &n), PF_ERR_IO);
    cr_assert(strstr(pf_errmsg(), "has not been trained"), "%s", pf_errmsg());
    put_candidate(2, true, h0, "ok"); /* trained, but with another spec's hash */
    cr_assert_eq(pf_run_generation_read(dir, 2, &c, &n), PF_ERR_INVALID);
    cr_assert(strstr(pf_errmsg(), "differs from the proposal's"), "%s", pf_errmsg());
    cr_assert_eq(pf_run_generation_read(dir, 3, &c, &n), PF_ERR_IO, "no candidates");
}

Test(artifact, an_unreadable_file_is_an_error_in_the_budget_not_a_skip)
{
    char h0[PF_SPEC_HASH_HEX], p[512];
    hash_of(100, h0);
    put_candidate(0, true, h0, "ok");
    char d[512];
    snprintf(d, sizeof d, "%s/gen00", dir);
    cr_assert_eq(pf_mkdirs(d), PF_OK);
    pf_run_budget b;
    int gens;
    cr_assert_eq(pf_run_budget_count(dir, 2, &b, &gens), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(b.steps_low, 200);
    cr_assert_eq(b.candidates, 1);
    cr_assert_eq(gens, 1, "generations 0 and 1 have no files and did not run");
    cr_assert_eq(pf_run_path(dir, PF_RUN_EVIDENCE, 2, 0, p, sizeof p), PF_OK);
    FILE *f = fopen(p, "wb");
    fputs("\x93\x01", f); /* an array of three holding one value: cut short */
    fclose(f);
    cr_assert_eq(pf_run_budget_count(dir, 2, &b, &gens), PF_ERR_IO, "a damaged evidence file is not 0 steps");
    cr_assert(strstr(pf_errmsg(), p), "%s", pf_errmsg());
}

Test(artifact, a_writer_removes_the_temp_files_of_killed_writers)
{
    char path[256], stale[300], live[300];
    path_of(path, "evidence.msgpack");
    pid_t child = fork();
    if (child == 0) _exit(0);
    cr_assert_gt(child, 0);
    waitpid(child, NULL, 0); /* its pid now names no process */
    snprintf(stale, sizeof stale, "%s.tmp.%ld", path, (long)child);
    snprintf(live, sizeof live, "%s.tmp.%ld", path, (long)getppid()); /* a writer that still runs */
    FILE *f = fopen(stale, "wb");
    fputs("half a file", f);
    fclose(f);
    f = fopen(live, "wb");
    fclose(f);
    json_t *doc = json_pack("{s:i}", "x", 1);
    cr_assert_eq(pf_msgpack_write_file(path, doc), PF_OK, "%s", pf_errmsg());
    json_decref(doc);
    cr_assert_neq(access(stale, F_OK), 0, "the dead writer's temp is gone");
    cr_assert_eq(access(live, F_OK), 0, "a running writer's temp is left alone");
    cr_assert_eq(access(path, F_OK), 0);
}
