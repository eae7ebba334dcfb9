/*
 * asset_dir.h — where the project's own files and folders are found (the
 * knowledge base, the prompt templates, the reference solvers' FreeFEM
 * scripts), from any working directory.
 *
 *     char dir[PF_ASSET_PATH_MAX];
 *     PF_TRY(pf_asset_dir("knowledge", "PF_KNOWLEDGE_DIR", dir, sizeof dir));
 * // data/knowledge PF_TRY(pf_asset_path("refs", "x.edp", "PF_REFS_EDP_DIR",
 * path, sizeof path)); // refs/x.edp
 *
 * <top>/<name> is, in order: $<env>/<name> when env is set and non-empty
 * (it must exist: $<env> stands for <top>); else <top>/<name> under the
 * working directory; else in the first of up to four folders above the
 * executable (build/bin/pf-x and build/double/bin/pf-x both find the
 * checkout's). Without a name it is the folder <top> itself; with one, a
 * regular file. PF_ERR_IO names every place it looked.
 */
#ifndef PF_IO_ASSET_DIR_H
#define PF_IO_ASSET_DIR_H

#include <stdbool.h>
#include <stddef.h>

#include "core/status.h"

#define PF_ASSET_PATH_MAX 4096

/* <top>/<name> (or the folder <top>) under the working directory or above
 * the executable, as above but with no variable: true when found (buf holds
 * it); false, recording nothing (pf_errmsg() is left alone), otherwise. */
bool pf_asset_find(const char *top, const char *name, char *buf, size_t cap);

/* The file <top>/<name>, or the folder <top> when name is NULL. */
pf_status pf_asset_path(const char *top, const char *name, const char *env, char *buf, size_t cap);

/* The folder data/<sub>. */
pf_status pf_asset_dir(const char *sub, const char *env, char *buf, size_t cap);

#endif
