/*
 * asset_dir.h — where the project's own data folders are found (the
 * knowledge base, the prompt templates), from any working directory.
 *
 *     char dir[PF_ASSET_PATH_MAX];
 *     PF_TRY(pf_asset_dir("knowledge", "PF_KNOWLEDGE_DIR", dir, sizeof dir));
 *
 * The folder is, in order: $<env> when set and non-empty (it must exist);
 * else "data/<sub>" under the working directory; else "data/<sub>" in the
 * first of up to four folders above the executable (build/bin/pf-x and
 * build/double/bin/pf-x both find the checkout's data/). PF_ERR_IO names
 * every place it looked.
 */
#ifndef PF_IO_ASSET_DIR_H
#define PF_IO_ASSET_DIR_H

#include <stddef.h>

#include "core/status.h"

#define PF_ASSET_PATH_MAX 4096

pf_status pf_asset_dir(const char *sub, const char *env, char *buf, size_t cap);

#endif
