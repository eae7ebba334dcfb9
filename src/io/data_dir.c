#include "io/data_dir.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "core/file.h"
#include "core/sha256.h"
#include "io/asset_dir.h"

/* A default folder: `rel` under the working directory, else in the checkout
 * above the executable (io/asset_dir.h), found once; else `rel` itself, whose
 * absence the readers report. */
static const char *default_dir(const char *rel, char *buf, size_t cap, bool *looked)
{
    if (!*looked) {
        *looked = true;
        if (!pf_asset_find(rel, NULL, buf, cap)) snprintf(buf, cap, "%s", rel);
    }
    return buf;
}

const char *pf_data_dir(void)
{
    static char buf[PF_DATA_PATH_MAX];
    static bool looked;
    const char *d = getenv(PF_DATA_DIR_ENV);
    return d && *d ? d : default_dir(PF_DATA_DIR_DEFAULT, buf, sizeof buf, &looked);
}

const char *pf_refs_dir(void)
{
    static char buf[PF_DATA_PATH_MAX];
    static bool looked;
    const char *d = getenv(PF_REFS_DIR_ENV);
    return d && *d ? d : default_dir(PF_REFS_DIR_DEFAULT, buf, sizeof buf, &looked);
}

static bool is_generated(const char *name)
{
    return !strncmp(name, PF_DATA_GENERATED "/", strlen(PF_DATA_GENERATED) + 1);
}

pf_status pf_data_path(const char *name, char *buf, size_t cap)
{
    if (!name || !*name) return pf_fail(PF_ERR_INVALID, "reference file name is empty");
    bool gen = is_generated(name);
    const char *dir = gen ? pf_refs_dir() : pf_data_dir(), *env = gen ? PF_REFS_DIR_ENV : PF_DATA_DIR_ENV;
    if (gen) name += strlen(PF_DATA_GENERATED) + 1;
    size_t dl = strlen(dir);
    /* "dir/" + name, without doubling a trailing slash */
    const char *sep = dl && dir[dl - 1] == '/' ? "" : "/";
    int w = snprintf(buf, cap, "%s%s%s", dir, sep, name);
    if (w < 0 || (size_t)w >= cap)
        return pf_fail(PF_ERR_INVALID, "path of reference file '%s' in '%s' is too long", name,
                       dir);

    char origin[64];
    if (getenv(env) && *getenv(env)) snprintf(origin, sizeof origin, "%s", env);
    else snprintf(origin, sizeof origin, "the default folder; %s is not set", env);
    struct stat st;
    if (stat(buf, &st) != 0) {
        int e = errno;
        if ((e == ENOENT || e == ENOTDIR) && gen)
            return pf_fail(PF_ERR_IO, "generated reference '%s' not found in '%s' (%s; looked for '%s'); run `make refs`",
                           name, dir, origin, buf);
        if (e == ENOENT || e == ENOTDIR)
            return pf_fail(PF_ERR_IO,
                           "reference file '%s' not found in '%s' (%s; looked for '%s'); "
                           "run `make data`, or set PF_DATA_DIR to the folder with the "
                           "PINNacle files",
                           name, dir, origin, buf);
        return pf_fail(PF_ERR_IO, "cannot examine reference file '%s' in '%s' (%s): %s", name,
                       dir, origin, strerror(e));
    }
    if (!S_ISREG(st.st_mode))
        return pf_fail(PF_ERR_IO, "reference file '%s' in '%s' (%s) is not a regular file",
                       name, dir, origin);
    return PF_OK;
}

/* The manifest's hash for name into hex ("" when not listed). */
static pf_status manifest_lookup(const char *name, char hex[PF_SHA256_HEX], char *manifest, size_t cap)
{
    hex[0] = 0;
    char dir[PF_ASSET_PATH_MAX];
    PF_TRY(pf_asset_dir(".", NULL, dir, sizeof dir));
    if (snprintf(manifest, cap, "%s/%s", dir, PF_DATA_MANIFEST) >= (int)cap)
        return pf_fail(PF_ERR_INVALID, "path of the data manifest in '%s' is too long", dir);
    FILE *f;
    if (pf_file_fopen(manifest, PF_FILE_SETTINGS, &f) != PF_OK)
        return pf_fail(PF_ERR_IO, "cannot read the data manifest: %s", pf_errmsg());
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        char sum[128], file[512];
        if (line[0] == '#' || sscanf(line, "%127s %511s", sum, file) != 2) continue;
        if (!strcmp(file, name) && strlen(sum) == PF_SHA256_HEX - 1) {
            memcpy(hex, sum, PF_SHA256_HEX);
            break;
        }
    }
    fclose(f);
    return PF_OK;
}

/* A file of `make refs`, "generated/<pde>.dat": its hash from its own
 * manifest beside it, "<pde>.manifest.json" (key "sha256"), whose path goes
 * to manifest. PF_ERR_IO when the manifest is absent or names no hash. */
static pf_status generated_lookup(const char *path, char hex[PF_SHA256_HEX], char *manifest, size_t cap)
{
    size_t pl = strlen(path);
    if (pl < 4 || pl - 4 + strlen(".manifest.json") >= cap)
        return pf_fail(PF_ERR_INVALID, "path of the manifest of '%s' is too long", path);
    memcpy(manifest, path, pl - 4);
    strcpy(manifest + pl - 4, ".manifest.json");
    json_error_t err;
    char *text = NULL;
    size_t len = 0;
    json_t *m = NULL;
    if (pf_file_read_as(manifest, PF_FILE_SETTINGS, &text, &len) != PF_OK)
        snprintf(err.text, sizeof err.text, "%s", pf_errmsg());
    else
        m = json_loadb(text, len, JSON_REJECT_DUPLICATES, &err);
    free(text);
    const char *sum = json_string_value(json_object_get(m, "sha256"));
    pf_status st = PF_OK;
    if (!m)
        st = pf_fail(PF_ERR_IO, "generated reference '%s' has no readable manifest '%s' (%s); run `make refs` "
                     "again after deleting the file", path, manifest, err.text);
    else if (!sum || strlen(sum) != PF_SHA256_HEX - 1)
        st = pf_fail(PF_ERR_IO, "manifest '%s' names no SHA-256 of '%s'; run `make refs` again after deleting "
                     "the file", manifest, path);
    else
        memcpy(hex, sum, PF_SHA256_HEX);
    json_decref(m);
    return st;
}

pf_status pf_data_verify(const char *name, const char *path, int *listed)
{
    static char checked[32][PF_DATA_PATH_MAX]; /* paths verified in this process */
    static int nchecked;
    if (listed) *listed = 0;
    char want[PF_SHA256_HEX], got[PF_SHA256_HEX], manifest[PF_DATA_PATH_MAX + PF_ASSET_PATH_MAX];
    bool generated = is_generated(name);
    if (generated) PF_TRY(generated_lookup(path, want, manifest, sizeof manifest));
    else PF_TRY(manifest_lookup(name, want, manifest, sizeof manifest));
    if (!want[0]) return PF_OK;
    if (listed) *listed = 1;
    for (int i = 0; i < nchecked; i++)
        if (!strcmp(checked[i], path)) return PF_OK;
    PF_TRY(pf_file_sha256(path, PF_FILE_TABLE, got));
    if (strcmp(got, want))
        return pf_fail(PF_ERR_IO,
                       "reference file '%s' in '%s' does not match its SHA-256 in '%s' (it is %.16s..., the "
                       "manifest says %.16s...): it is damaged or another version; %s",
                       name, generated ? pf_refs_dir() : pf_data_dir(), manifest, got, want,
                       generated ? "delete it and run `make refs` again" : "run `make data` to fetch it again");
    if (nchecked < 32 && strlen(path) < PF_DATA_PATH_MAX) strcpy(checked[nchecked++], path);
    return PF_OK;
}
