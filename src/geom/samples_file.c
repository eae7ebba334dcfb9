/* samples_file.c — the pinnforge.samples HDF5 file (samples_file.h). */
#include "geom/samples_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/names.h"
#include "core/parse.h"
#include "core/real.h"
#include "core/rng.h"
#include "geom/geometry.h"
#include "io/h5.h"

/* Room for a comma-joined list of part names. */
#define PARTS_MAX 4096

/* The names of the geometry's parts, comma-joined into buf[cap]: every part
 * (all) or those the selection `parts` picks (pf_geom_parts_select). */
static pf_status part_list(const pf_geom *g, bool all, const char *parts, char *buf, size_t cap)
{
    int np = pf_geom_part_count(g);
    bool *sel = calloc((size_t)np + 1, sizeof *sel);
    if (!sel) return pf_fail(PF_ERR_NOMEM, "out of memory for %d part names", np);
    pf_status st = all ? PF_OK : pf_geom_parts_select(g, parts, sel);
    size_t len = 0;
    buf[0] = 0;
    for (int i = 0; st == PF_OK && i < np; i++) {
        if (!all && !sel[i]) continue;
        int w = snprintf(buf + len, cap - len, "%s%s", len ? "," : "", pf_geom_part_name(g, i));
        if (w < 0 || (size_t)w >= cap - len)
            st = pf_fail(PF_ERR_INVALID, "the names of %d parts do not fit in %zu bytes", np, cap);
        else
            len += (size_t)w;
    }
    free(sel);
    return st;
}

/* Everything a set's group says about itself besides its points. */
typedef struct set_info {
    const char *kind;     /* "interior" or the constraint kind */
    const char *parts;    /* the part names the points lie on ("" for none) */
    const char *method;   /* the sampler used, or "fixed" */
    const char *source;   /* "sampled", "fixed", "observations" or "reference data" */
    uint64_t set_seed;    /* the seed passed to the sampler */
} set_info;

/* The group `grp`: x, normal and part where the set has them, and its
 * attributes. The part indices refer to the geometry's parts, whose names
 * the part dataset lists in its "names" attribute. */
static pf_status write_set(pf_h5 *f, const char *grp, const pf_pde *p, const pf_geom *g,
                           const pf_samples_opts *o, const set_info *si, const pf_point_set *ps, char *summary,
                           size_t cap)
{
    char in[256], path[256], names[PARTS_MAX];
    pf_name_join_sep(in, sizeof in, p->inputs, p->d_in, ",");
    PF_TRY(part_list(g, true, NULL, names, sizeof names));

    PF_TRY(pf_h5_group(f, grp));
    PF_TRY(pf_h5_attr_str(f, grp, "pde", p->name));
    PF_TRY(pf_h5_attr_str(f, grp, "inputs", in));
    PF_TRY(pf_h5_attr_str(f, grp, "kind", si->kind));
    PF_TRY(pf_h5_attr_str(f, grp, "parts", si->parts));
    PF_TRY(pf_h5_attr_str(f, grp, "method", si->method));
    PF_TRY(pf_h5_attr_str(f, grp, "source", si->source));
    PF_TRY(pf_h5_attr_u64(f, grp, "seed", o->seed));
    if (!strcmp(si->source, "sampled") || !strcmp(si->source, "observations"))
        PF_TRY(pf_h5_attr_u64(f, grp, "sampler_seed", si->set_seed)); /* observations: the noise's */
    PF_TRY(pf_h5_attr_str(f, grp, "precision", PF_REAL_NAME));
    PF_TRY(pf_h5_attr_i64(f, grp, "n", ps->n));

    snprintf(path, sizeof path, "%s/x", grp);
    PF_TRY(pf_h5_write_real(f, path, ps->x, (size_t)ps->n, (size_t)p->d_in));
    PF_TRY(pf_h5_attr_str(f, path, "columns", in));
    if (ps->normal) {
        snprintf(path, sizeof path, "%s/normal", grp);
        PF_TRY(pf_h5_write_real(f, path, ps->normal, (size_t)ps->n, (size_t)p->d_in));
        PF_TRY(pf_h5_attr_str(f, path, "columns", in));
        PF_TRY(pf_h5_attr_str(f, path, "meaning", "outward unit normal of the domain"));
    }
    if (ps->part) {
        snprintf(path, sizeof path, "%s/part", grp);
        PF_TRY(pf_h5_write_int(f, path, ps->part, (size_t)ps->n));
        PF_TRY(pf_h5_attr_str(f, path, "names", names));
    }
    size_t len = summary ? strlen(summary) : 0;
    if (summary && len < cap)
        snprintf(summary + len, cap - len, "  %-24s %8d points  %-8s %s%s%s\n", grp, ps->n, si->method, si->kind,
                 si->parts[0] ? " on " : "", si->parts);
    return PF_OK;
}

/* The points of constraint c into *ps (pf_pde_constraint_points), described
 * by *si (parts into pbuf). */
static pf_status constraint_points(const pf_pde *p, const pf_geom *g, const pf_constraint *c,
                                   const pf_samples_opts *o, set_info *si, char *pbuf, size_t cap,
                                   pf_point_set *ps, pf_real **v)
{
    char tag[128];
    snprintf(tag, sizeof tag, "pf-pde.sample.constraint.%s", c->name);
    si->set_seed = pf_rng_derive(o->seed, tag);
    si->kind = pf_constraint_kind_name(c->kind);
    si->method = "uniform";
    si->source = "sampled";
    si->parts = pbuf;
    pbuf[0] = 0;
    if (c->kind == PF_CON_POINTS) {
        si->method = "fixed";
        si->source = c->observe ? "observations" : c->npoints ? "fixed" : "reference data";
    } else if (pf_constraint_on_initial(c)) {
        si->method = pf_sample_method_name(o->method);
        snprintf(pbuf, cap, "initial");
    } else if (pf_constraint_in_interior(c)) {
        si->method = pf_sample_method_name(o->method);
    } else {
        PF_TRY(part_list(g, false, c->parts, pbuf, cap));
    }
    return pf_pde_constraint_points(p, g, c, o->method, o->n, si->set_seed, ps, v);
}

/* An observation set's target values: grp/v, n x 1. */
static pf_status write_values(pf_h5 *f, const char *grp, const pf_pde *p, int n, const pf_real *v)
{
    char path[256];
    snprintf(path, sizeof path, "%s/v", grp);
    (void)p;
    PF_TRY(pf_h5_write_real(f, path, v, (size_t)n, 1));
    return pf_h5_attr_str(f, path, "meaning", "observed values (with their noise) the fields must match");
}

/* A periodic set's image points: grp/x_image, the points moved from the lo
 * face to the hi face of the periodic input. */
static pf_status write_images(pf_h5 *f, const char *grp, const pf_pde *p, const pf_constraint *c,
                              const pf_point_set *ps)
{
    char in[256], path[256];
    pf_name_join_sep(in, sizeof in, p->inputs, p->d_in, ",");
    pf_real *xi = pf_pde_periodic_images(p, c, ps->n, ps->x);
    if (!xi) return PF_ERR_NOMEM;
    snprintf(path, sizeof path, "%s/x_image", grp);
    pf_status st = pf_h5_write_real(f, path, xi, (size_t)ps->n, (size_t)p->d_in);
    free(xi);
    PF_TRY(st);
    PF_TRY(pf_h5_attr_str(f, path, "columns", in));
    return pf_h5_attr_str(f, path, "meaning", "image of each point on the opposite face (u(x) = u(x_image))");
}

/* Samples every set of p into the open file f. */
static pf_status sample_into(const pf_pde *p, const pf_geom *g, const pf_samples_opts *o, pf_h5 *f, char *summary,
                             size_t cap)
{
    char in[256], out[128], all[PARTS_MAX];
    pf_name_join_sep(in, sizeof in, p->inputs, p->d_in, ",");
    pf_name_join_sep(out, sizeof out, p->outputs, p->d_out, ",");
    PF_TRY(part_list(g, true, NULL, all, sizeof all));
    PF_TRY(pf_h5_attr_str(f, "/", "format", "pinnforge.samples"));
    PF_TRY(pf_h5_attr_i64(f, "/", "version", 1));
    PF_TRY(pf_h5_attr_str(f, "/", "generator", "pf-pde sample"));
    PF_TRY(pf_h5_attr_str(f, "/", "pde", p->name));
    PF_TRY(pf_h5_attr_str(f, "/", "inputs", in));
    PF_TRY(pf_h5_attr_str(f, "/", "outputs", out));
    PF_TRY(pf_h5_attr_str(f, "/", "parts", all));
    PF_TRY(pf_h5_attr_u64(f, "/", "seed", o->seed));
    PF_TRY(pf_h5_attr_str(f, "/", "method", pf_sample_method_name(o->method)));
    PF_TRY(pf_h5_attr_i64(f, "/", "n", o->n));
    PF_TRY(pf_h5_attr_str(f, "/", "precision", PF_REAL_NAME));

    pf_point_set ps;
    pf_point_set_init(&ps);
    set_info si = {.kind = "interior", .parts = "", .source = "sampled",
                   .method = pf_sample_method_name(o->method),
                   .set_seed = pf_rng_derive(o->seed, "pf-pde.sample.interior")};
    pf_status st = pf_sample_interior(g, o->method, o->n, si.set_seed, &ps);
    if (st != PF_OK) return pf_fail(st, "%s: interior: %s", p->name, pf_errmsg());
    st = write_set(f, "/interior", p, g, o, &si, &ps, summary, cap);
    pf_point_set_release(&ps);
    PF_TRY(st);
    PF_TRY(pf_h5_group(f, "/constraints"));
    for (int k = 0; k < p->ncon && st == PF_OK; k++) {
        const pf_constraint *c = &p->con[k];
        char parts[PARTS_MAX], grp[128];
        pf_real *v = NULL;
        st = constraint_points(p, g, c, o, &si, parts, sizeof parts, &ps, &v);
        if (st != PF_OK) {
            st = pf_fail(st, "%s: constraint '%s': %s", p->name, c->name, pf_errmsg());
        } else {
            snprintf(grp, sizeof grp, "/constraints/%s", c->name);
            st = write_set(f, grp, p, g, o, &si, &ps, summary, cap);
            if (st == PF_OK && v) st = write_values(f, grp, p, ps.n, v);
            if (st == PF_OK && c->kind == PF_CON_PERIODIC) st = write_images(f, grp, p, c, &ps);
        }
        free(v);
        pf_point_set_release(&ps);
    }
    return st;
}

pf_status pf_samples_write(const pf_pde *p, const pf_samples_opts *o, const char *path, char *summary, size_t cap)
{
    if (summary && cap) summary[0] = 0;
    if (!p->geometry) return pf_fail(PF_ERR_INVALID, "%s has no geometry to sample", p->name);
    pf_geom *g = NULL;
    pf_h5 *f = NULL;
    pf_status st = p->geometry(p, &g);
    if (st == PF_OK) st = pf_h5_create(path, &f);
    if (st == PF_OK) st = sample_into(p, g, o, f, summary, cap);
    if (st == PF_OK)
        st = pf_h5_close(f);
    else
        pf_h5_discard(f);
    pf_geom_free(g);
    return st;
}

/* The option `word` names ("--n" or "--n=..."): its index in opts, -1 for
 * none; *val the value after '=', else NULL. */
static int option(const char *word, const char **val)
{
    static const char *const opts[] = {"--n", "--out", "--seed", "--method"};
    for (int k = 0; k < 4; k++) {
        size_t len = strlen(opts[k]);
        if (!strncmp(word, opts[k], len) && (word[len] == 0 || word[len] == '=')) {
            *val = word[len] == '=' ? word + len + 1 : NULL;
            return k;
        }
    }
    return -1;
}

pf_status pf_samples_parse_args(int n, char **words, pf_samples_args *a)
{
    *a = (pf_samples_args){.opts = {.n = -1, .method = PF_SAMPLE_UNIFORM}};
    for (int i = 0; i < n; i++) {
        const char *w = words[i], *val;
        if (!strcmp(w, "--help") || !strcmp(w, "-h")) {
            a->help = true;
            return PF_OK;
        }
        if (strncmp(w, "--", 2) != 0) {
            if (a->name) return pf_fail(PF_ERR_USAGE, "sample takes one PDE name, got '%s' and '%s'", a->name, w);
            a->name = w;
            continue;
        }
        int which = option(w, &val);
        if (which < 0) return pf_fail(PF_ERR_USAGE, "unknown option '%s' for sample", w);
        if (!val) {
            if (i + 1 >= n) return pf_fail(PF_ERR_USAGE, "option '%s' needs a value", w);
            val = words[++i];
        }
        long v;
        switch (which) {
        case 0:
            if (pf_parse_long(val, 1, PF_SAMPLE_MAX_POINTS, &v) != PF_OK)
                return pf_fail(PF_ERR_USAGE, "--n must be an integer from 1 to %d, not '%s'", PF_SAMPLE_MAX_POINTS,
                               val);
            a->opts.n = (int)v;
            break;
        case 1:
            if (!*val) return pf_fail(PF_ERR_USAGE, "--out needs a file name");
            a->out = val;
            break;
        case 2:
            if (pf_parse_u64(val, UINT64_MAX, &a->opts.seed) != PF_OK)
                return pf_fail(PF_ERR_USAGE, "--seed must be an integer from 0 to 2^64-1, not '%s'", val);
            break;
        default:
            if (pf_sample_method_from_name(val, &a->opts.method) != PF_OK)
                return pf_fail(PF_ERR_USAGE, "--method: %s", pf_errmsg());
        }
    }
    if (!a->name) return pf_fail(PF_ERR_USAGE, "sample needs a PDE name; pf-pde list shows them");
    if (a->opts.n < 0) return pf_fail(PF_ERR_USAGE, "sample needs --n N");
    if (!a->out) return pf_fail(PF_ERR_USAGE, "sample needs --out F.h5");
    return PF_OK;
}
