/*
 * pinnacle_dat.c — PINNacle .dat reader (see pinnacle_dat.h for the format).
 *
 * One pass splits the text into lines and values, keeping the raw table as
 * float32 (PINNacle's np.loadtxt(...).astype(np.float32)) and the positions
 * of the '%' header lines; a second step lays the table out as rows,
 * expanding time snapshots (PINNacle's trans_time_data_to_dataset) and
 * dropping NaN rows (TesterCallback).
 */
#include "io/pinnacle_dat.h"

#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/file.h"
#include "io/data_dir.h"

/* Longest value token accepted (COMSOL writes at most ~25 characters). */
#define TOKEN_MAX 255

/* ---------------------------------------------------------------- table --- */

pf_status pf_dat_alloc(size_t n, int d_in, int d_out, int n_times, pf_dat **out)
{
    PF_ASSERT(d_in >= 0 && d_out >= 0 && n_times >= 0 && out);
    size_t w = (size_t)d_in + (size_t)d_out;
    if (w && n > SIZE_MAX / sizeof(pf_real) / w - 1)
        return pf_fail(PF_ERR_NOMEM, "reference table of %zu rows x %zu values is too large",
                       n, w);
    size_t bytes = n * w * sizeof(pf_real);
    bytes = (bytes + PF_ALIGN - 1) / PF_ALIGN * PF_ALIGN; /* aligned_alloc needs a multiple */
    if (bytes == 0) bytes = PF_ALIGN;

    pf_dat *d = calloc(1, sizeof *d);
    pf_real *buf = d ? aligned_alloc(PF_ALIGN, bytes) : NULL;
    double *times = n_times > 0 && buf ? calloc((size_t)n_times, sizeof *times) : NULL;
    if (!d || !buf || (n_times > 0 && !times)) {
        free(times);
        free(buf);
        free(d);
        return pf_fail(PF_ERR_NOMEM, "out of memory for a reference table of %zu rows x %zu "
                                     "values", n, w);
    }
    d->n = n;
    d->d_in = d_in;
    d->d_out = d_out;
    d->inputs = buf;
    d->outputs = buf + n * (size_t)d_in;
    d->n_times = n_times;
    d->times = times;
    d->n_nodes = n;
    d->n_dropped = 0;
    *out = d;
    return PF_OK;
}

void pf_dat_free(pf_dat *d)
{
    if (!d) return;
    free(d->inputs); /* the start of the one block holding inputs and outputs */
    free(d->times);
    free(d);
}

/* ---------------------------------------------------------------- lexing --- */

/* Whitespace as Python's str.split() sees it in these files; '\n' ends lines. */
static int is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

/* A '%' line of the header: where it is and its line number. */
typedef struct hdr_line {
    size_t off, len, lineno;
} hdr_line;

typedef struct lexer {
    const char *label;
    float *vals; /* [nrows][ncols] float32, as PINNacle casts */
    size_t nvals, cap;
    size_t nrows, ncols, first_line;
    hdr_line *hdr;
    size_t nhdr, hcap;
} lexer;

static pf_status push_val(lexer *lx, float v)
{
    if (lx->nvals == lx->cap) {
        size_t cap = lx->cap ? 2 * lx->cap : 4096;
        float *p = realloc(lx->vals, cap * sizeof *p);
        if (!p) return pf_fail(PF_ERR_NOMEM, "%s: out of memory for %zu values", lx->label, cap);
        lx->vals = p;
        lx->cap = cap;
    }
    lx->vals[lx->nvals++] = v;
    return PF_OK;
}

static pf_status push_hdr(lexer *lx, size_t off, size_t len, size_t lineno)
{
    if (lx->nhdr == lx->hcap) {
        size_t cap = lx->hcap ? 2 * lx->hcap : 16;
        hdr_line *p = realloc(lx->hdr, cap * sizeof *p);
        if (!p) return pf_fail(PF_ERR_NOMEM, "%s: out of memory for the header", lx->label);
        lx->hdr = p;
        lx->hcap = cap;
    }
    lx->hdr[lx->nhdr++] = (hdr_line){off, len, lineno};
    return PF_OK;
}

/* True for what Python's float() takes among nan/inf spellings: an optional
 * sign, then nan, inf or infinity in any case. strtod would also take
 * "nan(...)" and hexadecimal floats, which numpy rejects. */
static int is_special(const char *s, size_t n)
{
    if (n && (*s == '+' || *s == '-')) s++, n--;
    char low[9];
    if (n > 8) return 0;
    for (size_t i = 0; i < n; i++) low[i] = (char)(s[i] | 0x20);
    low[n] = 0;
    return !strcmp(low, "nan") || !strcmp(low, "inf") || !strcmp(low, "infinity");
}

/* Parses s[0..n) as a whole decimal number into *v. Returns 0 if it is not
 * one. The token is copied so that strtod never reads past it (the text is
 * memory-mapped and not NUL-terminated). The caller's thread runs in the "C"
 * locale, so '.' is the decimal point whatever the process locale is. */
static int parse_number(const char *s, size_t n, double *v)
{
    if (n == 0 || n > TOKEN_MAX) return 0;
    int special = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= '0' && c <= '9') || c == '.' || c == '+' || c == '-' || c == 'e' || c == 'E'))
            special = 1;
    }
    if (special && !is_special(s, n)) return 0;
    char tmp[TOKEN_MAX + 1];
    memcpy(tmp, s, n);
    tmp[n] = 0;
    char *end;
    *v = strtod(tmp, &end); /* ERANGE gives +-HUGE_VAL or 0, as numpy does */
    return end == tmp + n;
}

/* Splits text into header lines and the float32 table; checks that every
 * data line has as many values as the first. */
static pf_status lex(lexer *lx, const char *text, size_t len)
{
    size_t pos = 0, lineno = 0;
    if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3)) pos = 3; /* UTF-8 BOM */
    while (pos < len) {
        lineno++;
        size_t start = pos;
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t end = nl ? (size_t)(nl - text) : len;
        pos = nl ? end + 1 : len;
        if (text[start] == '%') { /* header line (PINNacle: line.startswith('%')) */
            PF_TRY(push_hdr(lx, start, end - start, lineno));
            continue;
        }
        size_t cols = 0, p = start;
        for (;;) {
            while (p < end && is_space(text[p])) p++;
            if (p >= end || text[p] == '%') break; /* a '%' anywhere starts a comment */
            size_t q = p;
            while (q < end && !is_space(text[q]) && text[q] != '%') q++;
            double v;
            if (!parse_number(text + p, q - p, &v)) {
                int show = q - p > 40 ? 40 : (int)(q - p);
                return pf_fail(PF_ERR_INVALID, "%s:%zu: value %zu '%.*s%s' is not a number",
                               lx->label, lineno, cols + 1, show, text + p,
                               q - p > 40 ? "..." : "");
            }
            PF_TRY(push_val(lx, (float)v)); /* float64 -> float32, as PINNacle */
            cols++;
            p = q;
        }
        if (cols == 0) continue; /* blank or comment-only line */
        if (lx->nrows == 0) {
            lx->ncols = cols;
            lx->first_line = lineno;
        } else if (cols != lx->ncols) {
            return pf_fail(PF_ERR_INVALID,
                           "%s:%zu: row has %zu values, but the first row (line %zu) has %zu",
                           lx->label, lineno, cols, lx->first_line, lx->ncols);
        }
        lx->nrows++;
    }
    if (lx->nrows == 0) return pf_fail(PF_ERR_INVALID, "%s: no data rows", lx->label);
    return PF_OK;
}

/* ---------------------------------------------------------------- header --- */

static size_t count_char(const char *s, size_t n, char c)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) k += s[i] == c;
    return k;
}

/* The time of one header column: the text after '@' up to the next '@' (or
 * the line end) must contain "t=<number>", the number ending at whitespace
 * (PINNacle: float(seg[seg.find("t=") + 2:].split(' ')[0])). */
static int column_time(const char *s, size_t n, double *t)
{
    for (size_t i = 0; i + 1 < n; i++)
        if (s[i] == 't' && s[i + 1] == '=') {
            size_t a = i + 2, b = a;
            while (b < n && !is_space(s[b])) b++;
            return parse_number(s + a, b - a, t);
        }
    return 0;
}

/* Fills d->times[K] from the last header line with K * d_out '@' columns. */
static pf_status parse_times(const lexer *lx, const char *text, int d_out, pf_dat *d)
{
    size_t K = (size_t)d->n_times, want = K * (size_t)d_out;
    const hdr_line *h = NULL;
    for (size_t i = lx->nhdr; i-- > 0;)
        if (count_char(text + lx->hdr[i].off, lx->hdr[i].len, '@') == want) {
            h = &lx->hdr[i];
            break;
        }
    if (!h) {
        if (lx->nhdr == 0)
            return pf_fail(PF_ERR_INVALID,
                           "%s: no '%%' header line, so no snapshot times; a COMSOL "
                           "time-snapshot file names them as '@ t=<value>' per column",
                           lx->label);
        const hdr_line *last = &lx->hdr[lx->nhdr - 1];
        return pf_fail(PF_ERR_INVALID,
                       "%s:%zu: header has %zu '@ t=' columns, but the data has %zu output "
                       "columns (%zu snapshots x %d fields)",
                       lx->label, last->lineno, count_char(text + last->off, last->len, '@'),
                       want, K, d_out);
    }
    const char *s = text + h->off, *e = s + h->len;
    const char *at = memchr(s, '@', h->len);
    for (size_t c = 0; c < want; c++) {
        const char *nx = memchr(at + 1, '@', (size_t)(e - at - 1));
        const char *seg_end = nx ? nx : e;
        double t;
        if (!column_time(at + 1, (size_t)(seg_end - at - 1), &t))
            return pf_fail(PF_ERR_INVALID, "%s:%zu: header column %zu has no 't=<number>' "
                                           "after its '@'", lx->label, h->lineno, c + 1);
        size_t k = c / (size_t)d_out;
        if (c % (size_t)d_out == 0)
            d->times[k] = t;
        else if (t != d->times[k])
            return pf_fail(PF_ERR_INVALID,
                           "%s:%zu: snapshot %zu mixes times (t=%.17g and t=%.17g); the fields "
                           "of one snapshot must be adjacent (u@t0, v@t0, u@t1, ...)",
                           lx->label, h->lineno, k, d->times[k], t);
        at = seg_end;
    }
    return PF_OK;
}

/* ---------------------------------------------------------------- layout --- */

/* Removes rows holding a NaN, keeping the order (PINNacle's nan_mask). */
static void drop_nan_rows(pf_dat *d)
{
    size_t w = 0, di = (size_t)d->d_in, dq = (size_t)d->d_out;
    for (size_t r = 0; r < d->n; r++) {
        const pf_real *x = d->inputs + r * di, *y = d->outputs + r * dq;
        int bad = 0;
        for (size_t j = 0; j < di; j++) bad |= isnan(x[j]);
        for (size_t j = 0; j < dq; j++) bad |= isnan(y[j]);
        if (bad) continue;
        if (w != r) {
            memmove(d->inputs + w * di, x, di * sizeof *x);
            memmove(d->outputs + w * dq, y, dq * sizeof *y);
        }
        w++;
    }
    d->n_dropped = d->n - w;
    d->n = w;
}

static pf_status build_steady(const lexer *lx, int d_in, int d_out, pf_dat **out)
{
    size_t nc = lx->ncols;
    if (d_out == PF_DAT_REST) {
        if (nc < (size_t)d_in)
            return pf_fail(PF_ERR_INVALID, "%s:%zu: rows have %zu values, fewer than the %d "
                                           "inputs", lx->label, lx->first_line, nc, d_in);
        d_out = (int)(nc - (size_t)d_in);
    } else if (nc != (size_t)d_in + (size_t)d_out) {
        return pf_fail(PF_ERR_INVALID, "%s:%zu: rows have %zu values, expected %d inputs + %d "
                                       "outputs = %d", lx->label, lx->first_line, nc, d_in,
                       d_out, d_in + d_out);
    }
    pf_dat *d;
    PF_TRY(pf_dat_alloc(lx->nrows, d_in, d_out, 0, &d));
    for (size_t r = 0; r < lx->nrows; r++) {
        const float *v = lx->vals + r * nc;
        for (int j = 0; j < d_in; j++) d->inputs[r * (size_t)d_in + (size_t)j] = v[j];
        for (int j = 0; j < d_out; j++) d->outputs[r * (size_t)d_out + (size_t)j] = v[d_in + j];
    }
    *out = d;
    return PF_OK;
}

static pf_status build_snapshots(const lexer *lx, const char *text, int d_in, int d_out,
                                 pf_dat **out)
{
    size_t nc = lx->ncols, ns = (size_t)d_in - 1; /* spatial columns */
    if (nc <= ns || (nc - ns) % (size_t)d_out != 0)
        return pf_fail(PF_ERR_INVALID,
                       "%s:%zu: rows have %zu values; a snapshot file with %zu spatial "
                       "columns and %d fields needs %zu + K*%d",
                       lx->label, lx->first_line, nc, ns, d_out, ns, d_out);
    size_t K = (nc - ns) / (size_t)d_out, N = lx->nrows;
    if (K > INT32_MAX || N > SIZE_MAX / K)
        return pf_fail(PF_ERR_INVALID, "%s: %zu nodes x %zu snapshots is too large", lx->label,
                       N, K);
    pf_dat *d;
    PF_TRY(pf_dat_alloc(N * K, d_in, d_out, (int)K, &d));
    d->n_nodes = N;
    pf_status st = parse_times(lx, text, d_out, d);
    if (st != PF_OK) {
        pf_dat_free(d);
        return st;
    }
    /* row = node * K + k: (x_node..., t_k, fields of snapshot k) */
    for (size_t i = 0; i < N; i++) {
        const float *v = lx->vals + i * nc;
        for (size_t k = 0; k < K; k++) {
            pf_real *x = d->inputs + (i * K + k) * (size_t)d_in;
            pf_real *y = d->outputs + (i * K + k) * (size_t)d_out;
            for (size_t j = 0; j < ns; j++) x[j] = v[j];
            x[ns] = (pf_real)d->times[k]; /* float64 header time (np.meshgrid keeps it) */
            for (size_t j = 0; j < (size_t)d_out; j++) y[j] = v[ns + k * (size_t)d_out + j];
        }
    }
    *out = d;
    return PF_OK;
}

/* ---------------------------------------------------------------- entry --- */

pf_status pf_dat_parse(const char *text, size_t len, const char *label, int d_in, int d_out,
                       pf_dat_layout layout, pf_dat **out)
{
    if (!label) label = "(text)";
    if (layout == PF_DAT_LAYOUT_STEADY) {
        if (d_in < 0 || (d_out < 0 && d_out != PF_DAT_REST))
            return pf_fail(PF_ERR_USAGE, "%s: steady layout needs d_in >= 0 and d_out >= 0 "
                                         "or PF_DAT_REST (got %d, %d)", label, d_in, d_out);
    } else if (layout == PF_DAT_LAYOUT_SNAPSHOTS) {
        if (d_in < 1 || d_out < 1)
            return pf_fail(PF_ERR_USAGE, "%s: snapshot layout needs d_in >= 1 (space + time) "
                                         "and d_out >= 1 (got %d, %d)", label, d_in, d_out);
    } else {
        return pf_fail(PF_ERR_USAGE, "%s: unknown layout %d", label, (int)layout);
    }

    /* strtod reads the decimal point from LC_NUMERIC; pin this thread to "C"
     * so a host program's setlocale() cannot turn "0.5" into 0. */
    locale_t c_loc = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
    if (c_loc == (locale_t)0) return pf_fail(PF_ERR_NOMEM, "%s: cannot create the C locale", label);
    locale_t old = uselocale(c_loc);

    lexer lx = {.label = label};
    if (len / 16 > 4096) { /* ~1 value per 16 bytes: avoid most regrowth */
        lx.cap = len / 16;
        lx.vals = malloc(lx.cap * sizeof *lx.vals);
        if (!lx.vals) lx.cap = 0;
    }
    pf_dat *d = NULL;
    pf_status st = lex(&lx, text, len);
    if (st == PF_OK)
        st = layout == PF_DAT_LAYOUT_STEADY ? build_steady(&lx, d_in, d_out, &d)
                                            : build_snapshots(&lx, text, d_in, d_out, &d);
    uselocale(old);
    freelocale(c_loc);
    free(lx.vals);
    free(lx.hdr);
    if (st != PF_OK) return st;

    drop_nan_rows(d);
    if (d->n == 0) {
        size_t dropped = d->n_dropped;
        pf_dat_free(d);
        return pf_fail(PF_ERR_INVALID, "%s: all %zu rows hold a NaN", label, dropped);
    }
    *out = d;
    return PF_OK;
}

pf_status pf_dat_read(const char *path, int d_in, int d_out, pf_dat_layout layout,
                      pf_dat **out)
{
    int fd;
    size_t len;
    PF_TRY(pf_file_open(path, PF_FILE_TABLE, &fd, &len)); /* a regular file, at most 1 GiB */
    if (len == 0) {
        close(fd);
        return pf_dat_parse("", 0, path, d_in, d_out, layout, out);
    }
    /* Map the file: no copy, and the kernel reads ahead. Fall back to read()
     * where mapping is refused. */
    char *buf = NULL;
    void *map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
    if (map == MAP_FAILED) {
        map = NULL;
        buf = malloc(len);
        if (!buf) {
            close(fd);
            return pf_fail(PF_ERR_NOMEM, "out of memory reading '%s' (%zu bytes)", path, len);
        }
        size_t got = 0;
        int e = 0;
        while (got < len) {
            ssize_t r = read(fd, buf + got, len - got);
            if (r < 0 && errno == EINTR) continue;
            if (r <= 0) {
                e = r < 0 ? errno : 0;
                break;
            }
            got += (size_t)r;
        }
        if (got != len) {
            free(buf);
            close(fd);
            return pf_fail(PF_ERR_IO, "cannot read '%s': %s", path,
                           e ? strerror(e) : "file shrank while being read");
        }
    } else {
        posix_madvise(map, len, POSIX_MADV_SEQUENTIAL);
    }
    close(fd);
    pf_status st = pf_dat_parse(map ? (const char *)map : buf, len, path, d_in, d_out, layout,
                                out);
    if (map) munmap(map, len);
    free(buf);
    return st;
}

/* What a reference must be beyond parsing: finite values, snapshot times
 * strictly increasing (a duplicated or overflowing time level is damage). */
static pf_status check_reference(const char *path, const pf_dat *d)
{
    for (size_t i = 0; i < d->n; i++)
        for (int j = 0; j < d->d_in + d->d_out; j++) {
            pf_real v = j < d->d_in ? d->inputs[i * (size_t)d->d_in + (size_t)j]
                                    : d->outputs[i * (size_t)d->d_out + (size_t)(j - d->d_in)];
            if (!isfinite(v))
                return pf_fail(PF_ERR_IO, "reference file '%s': value %d of row %zu is not finite", path, j + 1, i + 1);
        }
    for (int k = 0; k < d->n_times; k++)
        if (!isfinite(d->times[k]) || (k > 0 && !(d->times[k] > d->times[k - 1])))
            return pf_fail(PF_ERR_IO, "reference file '%s': snapshot time %d (t=%g) is not finite or not after the one before",
                           path, k + 1, d->times[k]);
    return PF_OK;
}

pf_status pf_dat_load(const char *name, int d_in, int d_out, pf_dat_layout layout,
                      pf_dat **out)
{
    char path[PF_DATA_PATH_MAX];
    *out = NULL;
    PF_TRY(pf_data_path(name, path, sizeof path));
    PF_TRY(pf_data_verify(name, path, NULL));
    pf_dat *d;
    PF_TRY(pf_dat_read(path, d_in, d_out, layout, &d));
    pf_status st = check_reference(path, d);
    if (st != PF_OK) {
        pf_dat_free(d);
        return st;
    }
    *out = d;
    return PF_OK;
}
