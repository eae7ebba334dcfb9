/*
 * test_pde_lang.c — PDEs as text files (src/pdefile/): the expression
 * grammar, name resolution, the value evaluator, the messages for broken
 * files (each at its LINE:COL), inputs that are not .pde files at all, and
 * the example files of examples/pdes/.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "io/asset_dir.h"
#include "pdefile/check.h"
#include "pdefile/eval.h"
#include "pdefile/parser.h"
#include "pdefile/pdefile.h"

#define PI 3.14159265358979323846

/* A valid file's first lines (6 of them): errors below start at line 7. */
#define HEAD "pde t1\nstatement \"s\"\ninputs x, t\noutputs u\ntime t in [0, 1]\ndomain interval(0, 1)\n"

static pf_pdefile *load_ok(const char *text)
{
    pf_pdefile *f = NULL;
    pf_status st = pf_pdefile_load_text("t.pde", text, strlen(text), &f);
    cr_assert_eq(st, PF_OK, "%s\nerrors:\n%s", text, f && f->errors ? f->errors : pf_errmsg());
    return f;
}

/* The first error of `text` is "t.pde:<want>" (want: "LINE:COL: message
 * start"). */
static void load_fails(const char *text, const char *want)
{
    pf_pdefile *f = NULL;
    pf_status st = pf_pdefile_load_text("t.pde", text, strlen(text), &f);
    cr_assert_eq(st, PF_ERR_INVALID, "accepted:\n%s", text);
    char expect[512];
    snprintf(expect, sizeof expect, "t.pde:%s", want);
    cr_assert(f && f->errors, "no message for:\n%s", text);
    cr_assert(!strncmp(f->errors, expect, strlen(expect)), "for:\n%s\ngot:  %swant: %s", text, f->errors, expect);
    cr_assert(!strncmp(pf_errmsg(), expect, strlen(expect)), "pf_errmsg: %s", pf_errmsg());
    pf_pdefile_free(f);
}

/* text as one expression, printed back fully parenthesised */
static void parses_as(const char *text, const char *want)
{
    pf_pdefile *f = pf_pdefile_alloc("e");
    pf_pdefile_expr *e = NULL;
    cr_assert_eq(pf_pdefile_parse_expr(f, text, strlen(text), &e), PF_OK, "'%s': %s", text, f->errors);
    char buf[512];
    cr_assert_str_eq(pf_pdefile_expr_str(e, buf, sizeof buf), want, "'%s'", text);
    pf_pdefile_free(f);
}

Test(pde_lang, precedence_and_associativity)
{
    parses_as("a + b * c - d", "((a + (b * c)) - d)");
    parses_as("a - b - c", "((a - b) - c)");
    parses_as("a / b * c", "((a / b) * c)");
    parses_as("2^3^2", "(2 ^ (3 ^ 2))"); /* ^ is right-associative */
    parses_as("-x^2", "(-(x ^ 2))");     /* and binds tighter than unary minus */
    parses_as("2^-x", "(2 ^ (-x))");
    parses_as("--a", "(-(-a))");
    parses_as("-(a + b)*c", "((-(a + b)) * c)");
    parses_as("a*-b", "(a * (-b))");
    parses_as("+a", "a");
    parses_as("1.5e-3 + .5", "(0.0015 + 0.5)");
    parses_as("u_t + u*u_x - nu*u_xx", "((u_t + (u * u_x)) - (nu * u_xx))");
    parses_as("d(u, x, 4) + lap(u)", "(d(u, x, 4) + lap(u))");
    parses_as("if(x < 0.5 and y >= 0 or x > 2, 1, -1)", "if((((x < 0.5) and (y >= 0)) or (x > 2)), 1, (-1))");
    parses_as("sin(\n  x)", "sin(x)"); /* line ends inside ( ) are blanks */
}

/* Resolve `text` in a file with inputs x, y, t (t time) and outputs u, v. */
static pf_pdefile_expr *resolved(pf_pdefile **fp, const char *text, pf_pdefile_context ctx, pf_status want)
{
    pf_pdefile *f = load_ok("pde r\nstatement \"s\"\ninputs x, y, t\noutputs u, v\ntime t in [0, 2]\n"
                            "param nu = 0.01 / pi\nparam two = 2\n"
                            "domain box([0, 1], [-1, 1])\nequation u_t - v\n");
    pf_pdefile_expr *e = NULL;
    cr_assert_eq(pf_pdefile_parse_expr(f, text, strlen(text), &e), PF_OK, "'%s': %s", text, f->errors);
    pf_status st = pf_pdefile_check_expr(f, e, ctx);
    cr_assert_eq(st, want, "'%s': %s", text, f->errors ? f->errors : "accepted");
    *fp = f;
    return e;
}

static void field(const char *text, int k, int input, int order)
{
    pf_pdefile *f;
    pf_pdefile_expr *e = resolved(&f, text, PF_PDEFILE_IN_EQUATION, PF_OK);
    cr_assert_eq(e->op, PF_PDEFILE_FIELD, "%s", text);
    cr_assert_eq(e->index, k, "%s: output", text);
    cr_assert_eq(e->input, input, "%s: input", text);
    cr_assert_eq(e->order, order, "%s: order", text);
    pf_pdefile_free(f);
}

static void refused(const char *text, pf_pdefile_context ctx, const char *msg)
{
    pf_pdefile *f;
    resolved(&f, text, ctx, PF_ERR_INVALID);
    cr_assert(strstr(f->errors, msg), "'%s': got %s, want '%s'", text, f->errors, msg);
    pf_pdefile_free(f);
}

Test(pde_lang, derivative_spellings)
{
    field("u", 0, 0, 0);
    field("v_x", 1, 0, 1);
    field("u_xx", 0, 0, 2);
    field("u_yyyy", 0, 1, 4);
    field("u_t", 0, 2, 1);
    field("v_tt", 1, 2, 2);
    field("d(u, y)", 0, 1, 1);
    field("d(v, x, 3)", 1, 0, 3);
    pf_pdefile *f;
    pf_pdefile_expr *e = resolved(&f, "lap(v)", PF_PDEFILE_IN_EQUATION, PF_OK);
    cr_assert_eq(e->op, PF_PDEFILE_LAP);
    cr_assert_eq(e->index, 1);
    pf_pdefile_free(f);
    refused("u_xy", PF_PDEFILE_IN_EQUATION, "mixed derivative");
    refused("u_xxxxx", PF_PDEFILE_IN_EQUATION, "order 5: the engine's highest is 4");
    refused("d(u, x, 5)", PF_PDEFILE_IN_EQUATION, "d() is a derivative of order 5");
    refused("d(u, nu)", PF_PDEFILE_IN_EQUATION, "d()'s argument 2 must be an input");
    refused("d(x, y)", PF_PDEFILE_IN_EQUATION, "d()'s argument 1 must be an output's name");
    refused("u_z", PF_PDEFILE_IN_EQUATION, "unknown name 'u_z'");
    refused("w + 1", PF_PDEFILE_IN_EQUATION, "unknown name 'w'");
    refused("sinh(x)", PF_PDEFILE_IN_EQUATION, "unknown function 'sinh'");
    refused("exp(x, y)", PF_PDEFILE_IN_EQUATION, "exp() takes 1 argument, not 2");
    refused("x^u", PF_PDEFILE_IN_EQUATION, "exponent of ^ must be a constant");
    refused("dn(u)", PF_PDEFILE_IN_EQUATION, "dn() is only allowed in constraints on boundary parts");
    refused("net(u)", PF_PDEFILE_IN_EQUATION, "net() is only allowed in hard transforms");
    refused("u_x * net(u)", PF_PDEFILE_IN_HARD, "'u_x' is not allowed here");
    refused("step(x) * u", PF_PDEFILE_IN_EXACT, "step() is only allowed where values are built");
    refused("x + 1", PF_PDEFILE_IN_CONST, "input 'x' is not allowed here");
    refused("1 / (two - 2)", PF_PDEFILE_IN_CONST, "not a finite number");
}

Test(pde_lang, time_derivative_without_time)
{
    load_fails("pde a\nstatement \"s\"\ninputs x\noutputs u\ndomain interval(0, 1)\nequation u_t - u_xx\n",
               "6:10: 'u_t' is a time derivative, but no input is time");
}

Test(pde_lang, constants_fold)
{
    pf_pdefile *f;
    pf_pdefile_expr *e = resolved(&f, "two^3 * nu - 1", PF_PDEFILE_IN_CONST, PF_OK);
    cr_assert(e->konst);
    cr_assert_float_eq(e->value, 8 * 0.01 / PI - 1, 1e-15);
    cr_assert_float_eq(f->param[0]->value, 0.01 / PI, 1e-18);
    pf_pdefile_free(f);
}

static double value(const char *text, const double *x, const double *u)
{
    pf_pdefile *f;
    pf_pdefile_expr *e = resolved(&f, text, PF_PDEFILE_IN_EQUATION, PF_OK);
    double v = NAN;
    cr_assert_eq(pf_pdefile_eval(f, e, x, u, &v), PF_OK, "'%s': %s", text, pf_errmsg());
    pf_pdefile_free(f);
    return v;
}

Test(pde_lang, evaluates_values_at_a_point)
{
    const double x[3] = {0.25, -0.5, 1.5}, u[2] = {2, -3};
    cr_assert_float_eq(value("sin(pi*x)*cos(2*pi*t) + 0.5*sin(4*pi*x)*cos(8*pi*t)", x, u),
                       sin(PI * 0.25) * cos(2 * PI * 1.5) + 0.5 * sin(4 * PI * 0.25) * cos(8 * PI * 1.5), 1e-14);
    cr_assert_float_eq(value("u*u - v/two + exp(y) - log(t) + sqrt(x) + tanh(y)", x, u),
                       4 + 1.5 + exp(-0.5) - log(1.5) + 0.5 + tanh(-0.5), 1e-14);
    cr_assert_float_eq(value("sigmoid(y) + softplus(y)", x, u), 1 / (1 + exp(0.5)) + log1p(exp(-0.5)), 1e-14);
    cr_assert_float_eq(value("2^3^2 - (-x)^2", x, u), 512 - 0.0625, 1e-12);
    cr_assert_eq(value("step(x - 0.25)", x, u), 1);
    cr_assert_eq(value("step(y)", x, u), 0);
    cr_assert_eq(value("if(x < 0.5 and y < 0, 7, 9)", x, u), 7);
    cr_assert_eq(value("if(x > 0.5 or t <= 1, 7, 9)", x, u), 9);
    /* derivatives have no value at a point */
    pf_pdefile *f;
    pf_pdefile_expr *e = resolved(&f, "u_x + 1", PF_PDEFILE_IN_EQUATION, PF_OK);
    double v;
    cr_assert_eq(pf_pdefile_eval(f, e, x, u, &v), PF_ERR_UNSUPPORTED);
    pf_pdefile_free(f);
}

/* --------------------------------------------------------- broken files */

Test(pde_lang, syntax_errors_name_line_and_column)
{
    load_fails("pde\n", "1:4: expected the PDE's name, found the end of the line");
    load_fails(HEAD "equation u_t + * u\n", "7:16: expected a number, a name or '(', found '*'");
    load_fails(HEAD "equation u_t + (u*u_x\n", "8:1: expected ')' to close the '(' at 7:16, found the end of the file");
    load_fails(HEAD "equation u_t + 2x\n", "7:16: malformed number (write 2*x for a product)");
    load_fails(HEAD "dirichlet bc x_lo: u = 0\n", "7:14: expected 'on' and the boundary parts, found 'x_lo'");
    load_fails(HEAD "equation u_t\nsolve u\n", "8:1: unknown statement 'solve'");
    load_fails(HEAD "equation u_t\ndirichlet bc on x_lo: u\n", "8:24: expected '=' (a constraint reads lhs = rhs)");
    load_fails(HEAD "equation u_t\ntitle \"no end\n", "8:7: string not closed on its line");
    load_fails("pde a\ndomain box([0, 1, 2])\n", "2:13: a box's range is [lo, hi], not 3 numbers");
    load_fails(HEAD "equation u_t\nequation u_t u\n", "8:14: expected the end of the line, found 'u'");
    load_fails(HEAD "equation u_t $ u\n", "7:14: unexpected character '$'");
    load_fails(HEAD "inputs y\n", "7:1: 'inputs' given twice");
    load_fails(HEAD "equation u_t\nexact u = sin(x\n", "9:1: expected ',' or ')' to close the '(' at 8:14");
    load_fails(HEAD "equation u_t\nevaluate box rows\n", "8:14: expected 'grid' ('evaluate box grid [N]')");
    load_fails(HEAD "equation u_t\nevaluate grid x\n", "8:15: expected the number of grid points");
    load_fails(HEAD "equation u_t\nevaluate points\n", "8:10: expected 'grid [N]', 'box grid [N]' or 'rows'");
}

Test(pde_lang, check_errors_name_line_and_column)
{
    load_fails(HEAD "equation u_t + q\n", "7:16: unknown name 'q'");
    load_fails(HEAD "equation u_t\ndirichlet bc on x_lo, x_low: u = 0\n", "8:23: unknown boundary part 'x_low'");
    load_fails(HEAD "equation u_t\nneumann n on x_hi: u = 0\n", "8:20: a neumann constraint involves a derivative");
    load_fails(HEAD "equation u_t\ninitial ic: u_x = 0\n", "8:13: an initial constraint sets values: use initial_rate");
    load_fails(HEAD "equation u_t\ninitial_rate r: u = 0\n", "8:17: initial_rate constraint 'r' has no time");
    load_fails(HEAD "equation 2 * x\n", "7:10: this equation does not involve the outputs");
    load_fails(HEAD "equation u_t\nhard h satisfies bc: u = x\n", "8:18: unknown constraint 'bc'");
    load_fails(HEAD "equation u_t\nhard h satisfies: u = x\n", "8:17: expected a constraint's name, found ':'");
    load_fails(HEAD "equation u_t\ndirichlet bc on x_lo: u = 0\nhard h satisfies bc: u = x\n",
               "9:26: u = ... does not use net(u)");
    load_fails(HEAD "equation u_t\nexact u = u_x\n", "8:11: 'u_x' is not allowed here: an exact solution");
    load_fails(HEAD "equation u_t\ntags fast\n", "8:6: unknown tag 'fast'");
    load_fails(HEAD "equation u_t\nperiodic p along t: u\n", "8:18: periodic along 't': not a spatial input");
    load_fails("pde a\nstatement \"s\"\ninputs x, y\noutputs u\ndomain interval(0, 1)\nequation u\n",
               "5:8: the domain is 1-D but there are 2 spatial inputs");
    load_fails("pde a\nstatement \"s\"\ninputs x\noutputs u\ndomain interval(1, 0)\nequation u\n",
               "5:17: range 1 is [1, 0]: lo must be below hi");
    load_fails("pde a\nstatement \"s\"\ninputs x, y\noutputs u\ndomain disk(0, 0, -1)\nequation u\n",
               "5:19: the radius must be positive, not -1");
    load_fails("pde a\nstatement \"s\"\ninputs x\noutputs u\nparam a = b\nparam b = 1\ndomain interval(0, 1)\n"
               "equation u\n",
               "5:11: parameter 'b' is used before its declaration at 6:7");
    load_fails("pde a\ninputs x\n", "3:1: missing `statement \"...\"` (required)");
    load_fails("pde a\nstatement \"s\"\ninputs x, y\noutputs u\ndomain disk(0, 0, 1)\nequation u\nexact u = x\n"
               "evaluate box grid\n",
               "7:7: `evaluate box grid` needs an interval or box domain");
}

Test(pde_lang, every_error_is_reported)
{
    const char *text = HEAD "equation u_t + q\ndirichlet bc on nowhere: u = 0\ntags fast\n";
    pf_pdefile *f = NULL;
    cr_assert_eq(pf_pdefile_load_text("t.pde", text, strlen(text), &f), PF_ERR_INVALID);
    cr_assert_eq(f->nerrors, 3, "%s", f->errors);
    cr_assert(strstr(f->errors, "t.pde:8:17: unknown boundary part 'nowhere'"), "%s", f->errors);
    pf_pdefile_free(f);
}

/* ------------------------------------------------- not .pde files at all */

Test(pde_lang, empty_binary_deep_and_huge_inputs_are_refused)
{
    load_fails("", "1:1: the file is empty");
    load_fails("  \n# only a comment\n\n", "1:1: the file is empty");
    static const char elf[] = "\x7f"
                              "ELF\x02\x01\x01\x00\x00";
    pf_pdefile *f = NULL;
    cr_assert_eq(pf_pdefile_load_text("t.pde", elf, sizeof elf - 1, &f), PF_ERR_INVALID);
    cr_assert(strstr(f->errors, "t.pde:1:1: control character 0x7f"), "%s", f->errors);
    pf_pdefile_free(f);
    static const char nul[] = "pde a\n\x00";
    cr_assert_eq(pf_pdefile_load_text("t.pde", nul, sizeof nul - 1, &f), PF_ERR_INVALID);
    cr_assert(strstr(f->errors, "t.pde:2:1: NUL byte: this is not a text file"), "%s", f->errors);
    pf_pdefile_free(f);
    load_fails("pde \xc3\xa9t\xc3\xa9\n", "1:5: byte 0xc3: only ASCII outside strings and comments");

    char deep[400];
    size_t n = 0;
    n += (size_t)snprintf(deep, sizeof deep, HEAD "equation ");
    for (int i = 0; i < 100; i++) deep[n++] = '(';
    deep[n] = 0;
    load_fails(deep, "7:");
    cr_assert(strstr(pf_errmsg(), "nested more than 64 levels deep"), "%s", pf_errmsg());

    size_t big = PF_PDEFILE_MAX_BYTES + 1;
    char *huge = malloc(big + 1);
    cr_assert(huge);
    memset(huge, '#', big);
    huge[big] = 0;
    cr_assert_eq(pf_pdefile_load_text("t.pde", huge, big, &f), PF_ERR_INVALID);
    cr_assert_null(f);
    cr_assert(strstr(pf_errmsg(), "a .pde file may have at most 1048576"), "%s", pf_errmsg());
    char path[] = "/tmp/pf_pde_lang_XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    FILE *fp = fdopen(fd, "wb");
    fwrite(huge, 1, big, fp);
    fclose(fp);
    cr_assert_eq(pf_pdefile_load(path, &f), PF_ERR_INVALID);
    cr_assert(strstr(pf_errmsg(), "larger than 1048576 bytes"), "%s", pf_errmsg());
    remove(path);
    free(huge);
    cr_assert_eq(pf_pdefile_load("/nonexistent/x.pde", &f), PF_ERR_IO);
    cr_assert(strstr(pf_errmsg(), "cannot open '/nonexistent/x.pde'"), "%s", pf_errmsg());
}

/* Every prefix of a valid file and random printable text: refused or
 * accepted, never a crash (Criterion runs each test in its own process). */
Test(pde_lang, prefixes_and_noise_never_crash)
{
    char path[PF_ASSET_PATH_MAX];
    cr_assert_eq(pf_asset_path("examples", "pdes/klein_gordon_1d.pde", NULL, path, sizeof path), PF_OK, "%s",
                 pf_errmsg());
    FILE *fp = fopen(path, "rb");
    cr_assert(fp);
    static char text[8192];
    size_t len = fread(text, 1, sizeof text, fp);
    fclose(fp);
    for (size_t n = 0; n <= len; n++) {
        pf_pdefile *f = NULL;
        pf_status st = pf_pdefile_load_text("p.pde", text, n, &f);
        cr_assert(st == PF_OK || st == PF_ERR_INVALID);
        cr_assert(st == PF_OK || (f && f->nerrors > 0));
        pf_pdefile_free(f);
    }
    pf_rng *rng = pf_rng_alloc(21);
    cr_assert(rng);
    static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz_0123456789 \n\t()[],:=+-*/^<>#\".u_xtpdeinoutsqrlapif";
    for (int trial = 0; trial < 300; trial++) {
        char noise[300];
        size_t n = 1 + (size_t)pf_rng_int(rng, sizeof noise - 1);
        for (size_t i = 0; i < n; i++) noise[i] = alphabet[pf_rng_int(rng, sizeof alphabet - 1)];
        pf_pdefile *f = NULL;
        pf_status st = pf_pdefile_load_text("n.pde", noise, n, &f);
        cr_assert(st == PF_OK || st == PF_ERR_INVALID);
        pf_pdefile_free(f);
    }
    pf_rng_free(rng);
}

/* ------------------------------------------------------------- examples */

static pf_pdefile *example(const char *name)
{
    char rel[128], path[PF_ASSET_PATH_MAX];
    snprintf(rel, sizeof rel, "pdes/%s.pde", name);
    cr_assert_eq(pf_asset_path("examples", rel, NULL, path, sizeof path), PF_OK, "%s", pf_errmsg());
    pf_pdefile *f = NULL;
    pf_status st = pf_pdefile_load(path, &f);
    cr_assert_eq(st, PF_OK, "%s:\n%s", name, f && f->errors ? f->errors : pf_errmsg());
    cr_assert_str_eq(f->name, name);
    char *text = pf_pdefile_describe(f);
    cr_assert(text && strstr(text, "statement: "));
    free(text);
    return f;
}

Test(pde_lang, the_examples_check)
{
    static const char *const names[] = {"burgers_1d",   "wave_1d",      "poisson_2d_classic",
                                        "helmholtz_2d", "advection_1d", "klein_gordon_1d"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) pf_pdefile_free(example(names[i]));

    /* what the built-in burgers_1d, wave_1d and poisson_2d_classic say */
    pf_pdefile *f = example("burgers_1d");
    cr_assert_eq(f->time_input, 1);
    cr_assert_eq(f->orders[0], 2);
    cr_assert_eq(f->orders[1], 1);
    cr_assert(!f->laplacian_only);
    cr_assert_eq(f->ncon, 2);
    cr_assert_eq(f->con[0].kind, PF_PDEFILE_CON_INITIAL);
    cr_assert_eq(f->con[1].kind, PF_PDEFILE_CON_DIRICHLET);
    cr_assert_eq(f->ref.kind, PF_PDEFILE_REF_DATA);
    cr_assert(f->ref.snapshots);
    cr_assert_eq(f->tag_bits, PF_TAG_TIME_DEPENDENT | PF_TAG_NONLINEAR | PF_TAG_STEEP);
    cr_assert_float_eq(f->param[0]->value, 0.01 / PI, 1e-18);
    cr_assert_eq(f->lo[0], -1);
    cr_assert_eq(f->hi[1], 1);
    pf_pdefile_free(f);

    f = example("wave_1d");
    cr_assert_eq(f->orders[0], 2);
    cr_assert_eq(f->orders[1], 2);
    cr_assert_eq(f->con[1].kind, PF_PDEFILE_CON_INITIAL_RATE);
    cr_assert_eq(f->con[1].order, 1);
    cr_assert_eq(f->hard[0].satisfies.n, 3);
    cr_assert_eq(f->ref.kind, PF_PDEFILE_REF_EXACT);
    double x[2] = {0.3, 0.7}, u;
    cr_assert_eq(pf_pdefile_eval(f, f->ref.exact[0].e, x, NULL, &u), PF_OK);
    cr_assert_float_eq(u, sin(PI * 0.3) * cos(2 * PI * 0.7) + 0.5 * sin(4 * PI * 0.3) * cos(8 * PI * 0.7), 1e-14);
    /* the hard transform with N = 0 is the initial shape at t = 0 */
    double x0[2] = {0.3, 0}, n0 = 5;
    cr_assert_eq(pf_pdefile_eval(f, f->hard[0].set[0].e, x0, &n0, &u), PF_OK);
    cr_assert_float_eq(u, sin(PI * 0.3) + 0.5 * sin(4 * PI * 0.3), 1e-14);
    pf_pdefile_free(f);

    f = example("poisson_2d_classic");
    cr_assert(f->laplacian_only);
    cr_assert_eq(f->nall_parts, 6); /* x_lo x_hi y_lo y_hi hole_r01 outer */
    cr_assert_str_eq(f->all_parts[4], "hole_r01");
    cr_assert_eq(f->domain->kind, PF_PDEFILE_DIFFERENCE);
    pf_pdefile_free(f);

    /* the new ones: exact solutions, periodic and initial constraints */
    f = example("advection_1d");
    cr_assert_eq(f->con[1].kind, PF_PDEFILE_CON_PERIODIC);
    cr_assert_eq(f->con[1].periodic_input, 0);
    cr_assert(f->tag_bits & PF_TAG_PERIODIC);
    cr_assert_float_eq(f->hi[0], 2 * PI, 1e-15);
    pf_pdefile_free(f);

    f = example("klein_gordon_1d");
    /* the initial and boundary data agree with the exact solution */
    double xb[2] = {1, 0.37}, ue, g;
    cr_assert_eq(pf_pdefile_eval(f, f->ref.exact[0].e, xb, NULL, &ue), PF_OK);
    cr_assert_eq(pf_pdefile_eval(f, f->con[3].e, xb, &ue, &g), PF_OK); /* right: u - (cos(w t) + t^3) */
    cr_assert_float_eq(g, 0, 1e-14);
    pf_pdefile_free(f);
}

/* ------------------------------------------------------------- deep input */

/* head, then `first`, then n times `op term`, then tail, as one malloc'ed
 * text */
static char *chain(const char *head, const char *first, const char *op, const char *term, int n, const char *tail)
{
    size_t len = strlen(head) + strlen(first) + (size_t)n * (strlen(op) + strlen(term)) + strlen(tail) + 1;
    char *s = malloc(len), *p = s;
    cr_assert(s);
    p += sprintf(p, "%s%s", head, first);
    for (int i = 0; i < n; i++) p += sprintf(p, "%s%s", op, term);
    strcpy(p, tail);
    return s;
}

/* n times open, the core, n times close (malloc'ed, after head) */
static char *nest(const char *head, const char *open, const char *core, const char *close, int n, const char *tail)
{
    size_t len = strlen(head) + (size_t)n * (strlen(open) + strlen(close)) + strlen(core) + strlen(tail) + 1;
    char *s = malloc(len), *p = s;
    cr_assert(s);
    p += sprintf(p, "%s", head);
    for (int i = 0; i < n; i++) p += sprintf(p, "%s", open);
    p += sprintf(p, "%s", core);
    for (int i = 0; i < n; i++) p += sprintf(p, "%s", close);
    strcpy(p, tail);
    return s;
}

/* load_fails for a long text (not echoed in the messages: Criterion
 * cannot send megabytes) */
static void deep_fails(char *text, const char *want, const char *msg)
{
    size_t len = strlen(text);
    cr_assert_leq(len, PF_PDEFILE_MAX_BYTES);
    pf_pdefile *f = NULL;
    pf_status st = pf_pdefile_load_text("t.pde", text, len, &f);
    free(text);
    cr_assert_eq(st, PF_ERR_INVALID, "accepted: %zu bytes, want t.pde:%s", len, want);
    char expect[64];
    snprintf(expect, sizeof expect, "t.pde:%s", want);
    cr_assert(f && f->errors && !strncmp(f->errors, expect, strlen(expect)), "got %.300s, want %s",
              f && f->errors ? f->errors : pf_errmsg(), expect);
    cr_assert(strstr(f->errors, msg), "got %.300s, want '%s'", f->errors, msg);
    pf_pdefile_free(f);
}

/* An expression's tree may be at most PF_PDEFILE_MAX_EXPR_DEPTH (256)
 * operations deep, whichever way it grows: a chain x + x + ... built in a
 * loop (left-nested) is refused at the operator that passes the limit,
 * before any pass recurses over it (the checker overflowed its stack on
 * `exact u = x+x+...` with 200,000 terms, 400 KB); right nesting and
 * parentheses stop at the parser's 64 levels; a domain takes at most
 * PF_PDEFILE_MAX_SHAPES shapes. */
Test(pde_lang, deep_expressions_are_refused_at_their_operator)
{
    static const char deep[] = "expression more than 256 operations deep";
    static const char nested[] = "nested more than 64 levels deep";
    char *t = chain(HEAD "equation u_t - u_xx\nexact u = ", "x", "+", "x", 200000, "\n");
    cr_assert_gt(strlen(t), 400000);
    deep_fails(t, "8:522: ", deep); /* x at column 11, the 256th '+' at 10 + 2 * 256 */
    deep_fails(chain(HEAD "equation u_t - u", "", "*", "u", 100000, "\n"), "7:", deep);
    deep_fails(chain(HEAD "equation u_t - u_xx = ", "x", "-", "1", 100000, "\n"), "7:", deep);
    deep_fails(chain(HEAD "param a = ", "1", "/", "2", 100000, "\nequation u_t\n"), "7:", deep);
    deep_fails(chain(HEAD "part p = x_lo where ", "x < 1", " and ", "x < 1", 100000, "\nequation u_t\n"), "7:", deep);
    deep_fails(chain(HEAD "equation u_t - if(", "x < 1", " or ", "x < 1", 100000, ", 1, 0)\n"), "7:", deep);
    deep_fails(chain(HEAD "equation u_t\ninitial ic: u = 0", "", "+", "x", 100000, "\n"), "8:", deep);
    deep_fails(
        chain(HEAD "equation u_t\ninitial ic: u = 0\nhard h satisfies ic: u = net(u)", "", "+", "x", 100000, "\n"),
        "9:", deep);
    deep_fails(nest(HEAD "equation u_t - u_xx\nexact u = ", "x+(", "x", ")", 200000, "\n"), "8:", nested);
    deep_fails(nest(HEAD "equation u_t - u_xx\nexact u = ", "(", "x", ")", 200000, "\n"), "8:", nested);
    deep_fails(nest(HEAD "equation u_t - u_xx\nexact u = ", "-", "x", "", 200000, "\n"), "8:", nested);
    deep_fails(nest(HEAD "equation u_t - u_xx\nexact u = ", "sin(", "x", ")", 200000, "\n"), "8:", nested);
    deep_fails(chain(HEAD "equation u_t - u_xx\nexact u = ", "2", "^", "1", 200000, "\n"), "8:", nested);
    deep_fails(chain("pde t1\nstatement \"s\"\ninputs x\noutputs u\ndomain ", "interval(0, 1)", " + ", "interval(0, 1)",
                     50000, "\nequation u_xx\n"),
               "5:", "a domain of more than 64 shapes");
    deep_fails(nest("pde t1\nstatement \"s\"\ninputs x\noutputs u\ndomain ", "(", "interval(0, 1)", ")", 100000,
                    "\nequation u_xx\n"),
               "5:", nested);
}
