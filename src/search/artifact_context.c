/* artifact_context.c — a run's settings, context.json: made from Make's
 * variables, written only when they change, read by every stage (artifact.h). */
#include "search/artifact.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/file.h"
#include "core/parse.h"
#include "io/msgpack_json.h"
#include "llm/backbones.h"
#include "pdefile/fingerprint.h"
#include "pdefile/pdefile.h"
#include "registry.h"

static pf_status copy_name(const char *path, const char *key, const char *v, char *buf, size_t cap)
{
    if (strlen(v) >= cap) return pf_fail(PF_ERR_INVALID, "%s: \"%s\" is too long", path, key);
    memcpy(buf, v, strlen(v) + 1);
    return PF_OK;
}

/* The names of dir's last `n` folders, last first, into name[0..n) (each a
 * view into buf); how many there are (fewer when dir is shorter, or when a
 * name is "." or "..", which say nothing of the layout). */
static int last_names(const char *dir, char *buf, size_t cap, const char *name[], int n)
{
    if (snprintf(buf, cap, "%s", dir) >= (int)cap) return 0;
    int got = 0;
    for (size_t end = strlen(buf); got < n;) {
        while (end > 0 && buf[end - 1] == '/') buf[--end] = 0;
        if (end == 0) break;
        size_t start = end;
        while (start > 0 && buf[start - 1] != '/') start--;
        const char *s = buf + start;
        if (!strcmp(s, ".") || !strcmp(s, "..")) break;
        name[got++] = s;
        end = start;
    }
    return got;
}

/* A run folder laid out as pipeline.mk lays it out,
 * <pde>/<method>[@<backbone>]/run<R> (<method> one of ours), must hold the
 * settings of that run: context.json's "run", "method", "backbone" and
 * (pde_name non-NULL: a built-in's name, or the name a .pde file declares)
 * "pde" must be the folder's. A folder laid out otherwise (a test's, a copy
 * elsewhere) is not checked. */
pf_status pf_run_context_check_folder(const char *dir, const char *pde_name, const char *method, const char *backbone,
                                      int run)
{
    char buf[4200];
    const char *name[3];
    int n = last_names(dir, buf, sizeof buf, name, 3);
    long r;
    pf_method m;
    if (n < 3 || strncmp(name[0], "run", 3) || pf_parse_long(name[0] + 3, 0, INT_MAX, &r) != PF_OK) return PF_OK;
    char *at = strchr(name[1], '@'); /* <method>@<backbone>: buf is ours to cut */
    if (at) *at = '\0';
    const char *folder_backbone = at ? at + 1 : "";
    char word[PF_RUN_BACKBONE_CAP]; /* a mixture's folder spelling, mix+a+b+c */
    pf_llm_mix_spell(backbone, true, word, sizeof word);
    if (pf_method_from_name(name[1], &m) != PF_OK) return PF_OK;
    const char *why = NULL, *got = NULL;
    char num[32];
    if (r != run || (name[0][3] == '0' && name[0][4])) {
        snprintf(num, sizeof num, "%d", run);
        why = "run", got = num;
    } else if (strcmp(name[1], method)) {
        why = "method", got = method;
    } else if (strcmp(folder_backbone, word)) {
        why = "backbone", got = *backbone ? backbone : "none";
    } else if (pde_name && strcmp(name[2], pde_name)) {
        why = "pde", got = pde_name;
    }
    if (!why) return PF_OK;
    if (at) *at = '@';
    return pf_fail(PF_ERR_INVALID,
                   "'%s/context.json' is the settings of another run: its \"%s\" is %s, but the folder is %s "
                   "(<pde>/<method>[@<backbone>]/run<R>, as make lays runs out); copied from another run? remove "
                   "it and run make again",
                   dir, why, got, dir + (name[2] - buf));
}

pf_status pf_run_context_set_backbone(pf_run_context *c, const char *backbone)
{
    c->backbone[0] = '\0';
    if (!backbone || !*backbone || !strcmp(backbone, "offline")) return PF_OK;
    pf_method m;
    PF_TRY(pf_method_from_name(c->method, &m));
    char names[PF_LLM_MIX_MAX][PF_LLM_BACKBONE_NAME_MAX + 1];
    int n;
    if (pf_llm_is_mix(backbone)) PF_TRY(pf_llm_mix_names(backbone, names, &n));
    else if (!pf_llm_backbone_name_ok(backbone))
        return pf_fail(PF_ERR_INVALID, "backbone '%s': not a backbone's name (a word of at most %d letters, digits, "
                                       "'_', '.', '-') nor a mixture (mix:a,b,c)", backbone, PF_LLM_BACKBONE_NAME_MAX);
    if (!(pf_method_def_of(m)->flags & PF_MF_LLM))
        return pf_fail(PF_ERR_INVALID, "backbone '%s': the method %s asks no LLM, so its runs have no backbone "
                                       "(one run serves every backbone)", backbone, c->method);
    if (strcmp(c->llm, "http") && strcmp(c->llm, "replay"))
        return pf_fail(PF_ERR_INVALID, "backbone '%s' with llm %s: a backbone is asked over http, or replayed "
                                       "(llm http or replay; the offline proposer is the backbone 'offline')",
                       backbone, c->llm);
    pf_llm_mix_spell(backbone, false, c->backbone, sizeof c->backbone); /* a mixture as mix:a,b,c */
    return PF_OK;
}

/* An optional 64-hex-digit key into hex ("" when absent). */
static pf_status read_sha(const char *path, const json_t *c, const char *key, char hex[PF_SHA256_HEX])
{
    const json_t *v = json_object_get(c, key);
    hex[0] = 0;
    if (!v) return PF_OK;
    const char *s = json_string_value(v);
    if (!s || strlen(s) != PF_SHA256_HEX - 1 || s[strspn(s, "0123456789abcdef")])
        return pf_fail(PF_ERR_INVALID, "'%s': \"%s\" needs 64 lower-case hex digits", path, key);
    memcpy(hex, s, PF_SHA256_HEX);
    return PF_OK;
}

pf_status pf_run_context_read(const char *dir, pf_run_context *out)
{
    memset(out, 0, sizeof *out);
    char path[4200];
    if (pf_run_path(dir, PF_RUN_CONTEXT, 0, 0, path, sizeof path) != PF_OK)
        return pf_fail(PF_ERR_INVALID, "run folder name '%s' is too long", dir);
    char *text;
    size_t len;
    if (pf_file_read_as(path, PF_FILE_SETTINGS, &text, &len) != PF_OK)
        return pf_fail(PF_ERR_IO, "cannot read the run's settings: %s", pf_errmsg());
    json_error_t err;
    json_t *c = json_loadb(text, len, JSON_REJECT_DUPLICATES, &err); /* a key twice: which one holds? */
    free(text);
    if (!c) return pf_fail(PF_ERR_IO, "cannot read the run's settings '%s': %s", path, err.text);
    const char *pde = json_string_value(json_object_get(c, "pde"));
    const char *method = json_string_value(json_object_get(c, "method"));
    const char *budget = json_string_value(json_object_get(c, "budget"));
    const char *llm = json_string_value(json_object_get(c, "llm"));
    long run = 0;
    pf_status st = PF_OK;
    if (!pde || !method || !budget || !llm || !pf_json_int(json_object_get(c, "run"), 0, INT_MAX, &run))
        st = pf_fail(PF_ERR_INVALID,
                     "'%s' needs \"pde\", \"method\", \"budget\", \"llm\" (strings) and \"run\" (an integer in 0..%d)",
                     path, INT_MAX);
    if (st == PF_OK) st = copy_name(path, "pde", pde, out->pde, sizeof out->pde);
    if (st == PF_OK) st = copy_name(path, "method", method, out->method, sizeof out->method);
    if (st == PF_OK) st = copy_name(path, "budget", budget, out->budget, sizeof out->budget);
    if (st == PF_OK) st = copy_name(path, "llm", llm, out->llm, sizeof out->llm);
    const json_t *ev = json_object_get(c, "eval");
    if (st == PF_OK && ev && !json_is_string(ev))
        st = pf_fail(PF_ERR_INVALID, "'%s': \"eval\" needs a string (paper or heldout)", path);
    if (st == PF_OK) st = copy_name(path, "eval", ev ? json_string_value(ev) : "paper", out->eval, sizeof out->eval);
    const json_t *tb = json_object_get(c, "time_budget_s");
    if (st == PF_OK && tb && !pf_json_int(tb, 1, LONG_MAX, &out->time_budget_s))
        st = pf_fail(PF_ERR_INVALID, "'%s': \"time_budget_s\" needs a whole number of seconds, 1 or more", path);
    const json_t *bb = json_object_get(c, "backbone");
    char names[PF_LLM_MIX_MAX][PF_LLM_BACKBONE_NAME_MAX + 1];
    int n;
    const char *bv = json_string_value(bb);
    if (st == PF_OK && bb &&
        (!bv || !strcmp(bv, "offline") || strncmp(bv, "mix+", 4) == 0 ||
         !(pf_llm_backbone_name_ok(bv) || (pf_llm_is_mix(bv) && pf_llm_mix_names(bv, names, &n) == PF_OK))))
        st = pf_fail(PF_ERR_INVALID, "'%s': \"backbone\" needs a backbone's name (a word of at most %d letters, "
                                     "digits, '_', '.', '-'; not offline, which is a run without one) or a mixture "
                                     "(mix:a,b,c)", path, PF_LLM_BACKBONE_NAME_MAX);
    if (st == PF_OK && bb) memcpy(out->backbone, json_string_value(bb), json_string_length(bb) + 1);
    const json_t *mt = json_object_get(c, "llm_max_tokens"), *mc = json_object_get(c, "llm_max_cost");
    if (st == PF_OK && mt && !pf_json_int(mt, 1, LONG_MAX, &out->llm_max_tokens))
        st = pf_fail(PF_ERR_INVALID, "'%s': \"llm_max_tokens\" needs a whole number of tokens, 1 or more", path);
    if (st == PF_OK && mc && !(json_is_number(mc) && json_number_value(mc) > 0 && isfinite(json_number_value(mc))))
        st = pf_fail(PF_ERR_INVALID, "'%s': \"llm_max_cost\" needs a number > 0", path);
    if (st == PF_OK && mc) out->llm_max_cost = json_number_value(mc);
    if (st == PF_OK) st = read_sha(path, c, "pde_sha256", out->pde_sha256);
    if (st == PF_OK) st = read_sha(path, c, "data_sha256", out->data_sha256);
    out->run = (int)run;
    json_decref(c);
    /* a built-in PDE is checked here; a .pde file's declared name in pf_run_open */
    if (st == PF_OK)
        st = pf_run_context_check_folder(dir, pf_pdefile_is_path(out->pde) ? NULL : out->pde, out->method,
                                         out->backbone, out->run);
    return st;
}


pf_status pf_run_context_init(pf_run_context *c, const char *pde, const char *method, int run, const char *budget,
                              const char *llm, const char *eval)
{
    memset(c, 0, sizeof *c);
    const pf_budget *b;
    pf_method m;
    pf_llm_kind k;
    pf_eval_mode e;
    if (run < 0) return pf_fail(PF_ERR_INVALID, "run %d: a run number is 0 or more", run);
    PF_TRY(pf_method_from_name(method, &m));
    PF_TRY(pf_budget_lookup(budget, &b));
    if (strcmp(llm, "auto")) PF_TRY(pf_llm_kind_from_name(llm, &k));
    PF_TRY(pf_eval_mode_from_name(eval, &e));
    PF_TRY(copy_name("the settings", "pde", pde, c->pde, sizeof c->pde));
    PF_TRY(copy_name("the settings", "method", method, c->method, sizeof c->method));
    PF_TRY(copy_name("the settings", "budget", budget, c->budget, sizeof c->budget));
    PF_TRY(copy_name("the settings", "llm", llm, c->llm, sizeof c->llm));
    PF_TRY(copy_name("the settings", "eval", eval, c->eval, sizeof c->eval));
    c->run = run;
    if (!pf_pdefile_is_path(pde)) {
        const pf_pde *p;
        return pf_pdes_lookup(pde, &p);
    }
    pf_pdefile_fingerprint fp;
    PF_TRY(pf_pdefile_fingerprint_of(pde, &fp));
    memcpy(c->pde_sha256, fp.pde_sha256, PF_SHA256_HEX);
    if (fp.has_data) memcpy(c->data_sha256, fp.data_sha256, PF_SHA256_HEX);
    return PF_OK;
}

char *pf_run_context_text(const pf_run_context *c)
{
    json_t *o = json_pack("{s:s, s:s, s:i, s:s, s:s, s:s}", "pde", c->pde, "method", c->method, "run", c->run,
                          "budget", c->budget, "llm", c->llm, "eval", c->eval);
    if (!o) return NULL;
    if (c->backbone[0]) json_object_set_new(o, "backbone", json_string(c->backbone));
    if (c->time_budget_s > 0) json_object_set_new(o, "time_budget_s", json_integer(c->time_budget_s));
    if (c->llm_max_tokens > 0) json_object_set_new(o, "llm_max_tokens", json_integer(c->llm_max_tokens));
    if (c->llm_max_cost > 0) json_object_set_new(o, "llm_max_cost", json_real(c->llm_max_cost));
    if (c->pde_sha256[0]) json_object_set_new(o, "pde_sha256", json_string(c->pde_sha256));
    if (c->data_sha256[0]) json_object_set_new(o, "data_sha256", json_string(c->data_sha256));
    char *s = json_dumps(o, JSON_PRESERVE_ORDER);
    json_decref(o);
    char *line = s ? malloc(strlen(s) + 2) : NULL;
    if (line) sprintf(line, "%s\n", s);
    free(s);
    return line;
}

/* Whether the settings texts a and b differ only in the LLM budget. */
static bool only_llm_budget_differs(const char *a, size_t alen, const char *b)
{
    json_t *x = json_loadb(a, alen, 0, NULL), *y = json_loads(b, 0, NULL);
    bool same = false;
    if (x && y) {
        const char *keys[] = {"llm_max_tokens", "llm_max_cost"};
        for (int i = 0; i < 2; i++) json_object_del(x, keys[i]), json_object_del(y, keys[i]);
        same = json_equal(x, y);
    }
    json_decref(x);
    json_decref(y);
    return same;
}

/* path's modification time back to *t (utimensat), the access time now. */
static pf_status keep_time(const char *path, const struct timespec *t)
{
    struct timespec ts[2] = {{0, UTIME_NOW}, *t};
    if (utimensat(AT_FDCWD, path, ts, 0) != 0)
        return pf_fail(PF_ERR_IO, "cannot set the time of '%s': %s", path, strerror(errno));
    return PF_OK;
}

pf_status pf_run_context_write(const char *dir, const pf_run_context *c, char **was, bool *budget_changed)
{
    *was = NULL;
    *budget_changed = false;
    char path[4200];
    PF_TRY(pf_mkdirs(dir));
    if (pf_run_path(dir, PF_RUN_CONTEXT, 0, 0, path, sizeof path) != PF_OK)
        return pf_fail(PF_ERR_INVALID, "run folder name '%s' is too long", dir);
    char *now = pf_run_context_text(c);
    if (!now) return pf_fail(PF_ERR_NOMEM, "out of memory");
    char *old = NULL;
    size_t len = 0;
    struct stat sb;
    memset(&sb, 0, sizeof sb);
    bool had = pf_file_read_as(path, PF_FILE_SETTINGS, &old, &len) == PF_OK && stat(path, &sb) == 0;
    if (had && len == strlen(now) && !memcmp(old, now, len)) {
        free(old);
        free(now);
        return PF_OK; /* the same settings: the file (and its time) stay */
    }
    /* only the LLM budget changed: the file keeps its time, so make redoes
     * nothing through it (the caller handles the proposals the budget stopped) */
    *budget_changed = had && only_llm_budget_differs(old, len, now);
    pf_status st = pf_file_write_atomic(path, now, strlen(now));
    if (st == PF_OK && *budget_changed) st = keep_time(path, &sb.st_mtim);
    if (st == PF_OK && had && !*budget_changed) {
        old[strcspn(old, "\n")] = 0;
        *was = old;
        old = NULL;
    }
    free(old);
    free(now);
    return st;
}

/* Appends "LABEL A vs B" to what (comma-separated) when a and b differ. */
static bool differ_on(const char *label, const char *a, const char *b, char *what, size_t cap, bool *any)
{
    if (!strcmp(a, b)) return false;
    if (what && cap) {
        size_t n = strlen(what);
        snprintf(what + n, cap - n, "%s%s %s vs %s", n ? ", " : "", label, *a ? a : "(none)", *b ? b : "(none)");
    }
    *any = true;
    return true;
}

bool pf_run_context_settings_differ(const pf_run_context *a, const pf_run_context *b, char *what, size_t cap)
{
    bool any = false;
    if (what && cap) what[0] = '\0';
    differ_on("profile", a->budget, b->budget, what, cap, &any);
    differ_on("eval", a->eval, b->eval, what, cap, &any);
    differ_on("llm", a->llm, b->llm, what, cap, &any);
    differ_on("backbone", a->backbone, b->backbone, what, cap, &any);
    char ta[32] = "", tb[32] = "";
    if (a->time_budget_s > 0) snprintf(ta, sizeof ta, "%ld s", a->time_budget_s);
    if (b->time_budget_s > 0) snprintf(tb, sizeof tb, "%ld s", b->time_budget_s);
    differ_on("time budget", ta, tb, what, cap, &any);
    char ma[64] = "", mb[64] = "";
    if (a->llm_max_tokens > 0 || a->llm_max_cost > 0)
        snprintf(ma, sizeof ma, "%ld tokens, cost %g", a->llm_max_tokens, a->llm_max_cost);
    if (b->llm_max_tokens > 0 || b->llm_max_cost > 0)
        snprintf(mb, sizeof mb, "%ld tokens, cost %g", b->llm_max_tokens, b->llm_max_cost);
    differ_on("llm budget", ma, mb, what, cap, &any);
    if (differ_on("pde_sha256", a->pde_sha256, b->pde_sha256, NULL, 0, &any) && what && cap) {
        size_t n = strlen(what);
        snprintf(what + n, cap - n, "%sthe .pde file (its SHA-256)", n ? ", " : "");
    }
    if (differ_on("data_sha256", a->data_sha256, b->data_sha256, NULL, 0, &any) && what && cap) {
        size_t n = strlen(what);
        snprintf(what + n, cap - n, "%sthe .pde file's data (their digest)", n ? ", " : "");
    }
    return any;
}
