/*
 * test_arch.c — the table of architectures (nn/archs.def, pf_arch_def in
 * nn/model.h): every row is whole, names are unique and round-trip, an
 * unknown name fails with the list, and each row's numbers are what
 * nn/model.c builds and what the spec validator enforces.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "nn/model.h"
#include "registry.h"
#include "spec/spec.h"
#include "tensor/graph.h"

Test(arch, every_row_is_whole_and_names_round_trip)
{
    for (int i = 0; i < PF_ARCH_COUNT; i++) {
        const pf_arch_def *d = pf_arch_def_of((pf_arch)i);
        cr_assert(d && d->id == (pf_arch)i && d->name && *d->name && d->doc && *d->doc, "row %d", i);
        cr_assert(d->nparams && d->alloc && d->apply, "%s: hooks", d->name);
        cr_assert(!strncmp(d->doc, d->name, strlen(d->name)), "%s: its doc item starts with its name", d->name);
        cr_assert_str_eq(pf_arch_name((pf_arch)i), d->name);
        cr_assert_eq(pf_arch_named(d->name), d);
        pf_arch a;
        cr_assert_eq(pf_arch_from_name(d->name, &a), PF_OK);
        cr_assert_eq(a, (pf_arch)i);
        for (int j = 0; j < i; j++) cr_assert_str_neq(d->name, pf_arch_def_of((pf_arch)j)->name);
    }
    cr_assert_null(pf_arch_def_of(PF_ARCH_COUNT));
    cr_assert_str_eq(pf_arch_name(PF_ARCH_COUNT), "?");
}

Test(arch, an_unknown_name_fails_with_the_list)
{
    cr_assert_null(pf_arch_named("transformer"));
    cr_assert_str_eq(pf_errmsg(), "arch 'transformer' is unknown; allowed: mlp, modified_mlp, resnet, pinnsformer");
    cr_assert_null(pf_arch_named(NULL));
    pf_arch a = PF_ARCH_RESNET;
    cr_assert_eq(pf_arch_from_name("MLP", &a), PF_ERR_INVALID);
    cr_assert_eq(a, PF_ARCH_RESNET, "untouched on failure");
}

/* Parameters of a model of c whose names start with `prefix` and end with
 * ".W" (its layers), registered in a graph of its own. */
static int layers(const pf_model_config *c, const char *prefix)
{
    pf_graph *g = pf_graph_alloc(pf_backend_cpu());
    pf_model *m = pf_model_alloc(g, c);
    cr_assert(m != NULL, "%s", pf_errmsg());
    int n = 0;
    for (int id = 0; id < pf_graph_param_count(g); id++) {
        const char *nm = pf_graph_param_name(g, id), *w = strrchr(nm, '.');
        n += !strncmp(nm, prefix, strlen(prefix)) && w && !strcmp(w, ".W");
    }
    pf_model_free(m);
    pf_graph_free(g);
    return n;
}

/* The dense layers are pre + per_depth * depth hidden ones ("h<k>") and
 * the encoders ("U", "V"); a sequence model makes seq_len tokens of a
 * point. (tests/test_nn.c: the count hook is the built graph's count.) */
Test(arch, each_rows_layers_are_what_the_model_builds)
{
    for (int i = 0; i < PF_ARCH_COUNT; i++) {
        const pf_arch_def *d = pf_arch_def_of((pf_arch)i);
        pf_model_config c = pf_model_config_default(2, 1);
        c.arch = d->id;
        c.depth = d->min_depth + 1;
        c.width = 16;
        cr_assert_eq(layers(&c, "h"), d->pre + d->per_depth * c.depth, "%s: hidden layers", d->name);
        cr_assert_eq(layers(&c, "U") + layers(&c, "V"), d->encoders, "%s: encoders", d->name);
        cr_assert_eq(pf_model_tokens(&c), d->seq ? c.seq_len : 1);
    }
}

/* min_depth and max_depth: pf_model_config_check and the spec validator
 * take exactly the depths in between. */
Test(arch, each_rows_depths_are_enforced)
{
    const pf_pde *p = NULL;
    cr_assert_eq(pf_pdes_lookup("burgers_1d", &p), PF_OK, "%s", pf_errmsg());
    for (int i = 0; i < PF_ARCH_COUNT; i++) {
        const pf_arch_def *d = pf_arch_def_of((pf_arch)i);
        int depths[] = {d->min_depth - 1, d->min_depth, d->max_depth, d->max_depth + 1};
        for (int k = 0; k < 4; k++) {
            int depth = depths[k];
            bool ok = depth >= d->min_depth && depth <= d->max_depth;
            pf_model_config c = pf_model_config_default(2, 1);
            c.arch = d->id;
            c.depth = depth;
            cr_assert_eq(pf_model_config_check(&c) == PF_OK, ok, "%s depth %d: %s", d->name, depth, pf_errmsg());

            json_t *s = pf_spec_example(p, PF_FIDELITY_LOW);
            json_object_set_new(s, "architecture",
                                json_pack("{s:s, s:i, s:i}", "type", d->name, "depth", depth, "width", 16));
            json_t *n = NULL;
            static pf_spec_report rep;
            pf_status st = pf_spec_check(s, p, PF_FIDELITY_LOW, &n, &rep);
            cr_assert_eq(st == PF_OK, ok, "%s depth %d: %s", d->name, depth, rep.n ? rep.reason[0] : "accepted");
            json_decref(n);
            json_decref(s);
        }
    }
}
