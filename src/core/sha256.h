/*
 * sha256.h — SHA-256 (OpenSSL's libcrypto) as lower-case hex: the content
 * address of specs and LLM transcripts.
 *
 *     char hex[PF_SHA256_HEX];
 *     PF_TRY(pf_sha256_hex(text, strlen(text), hex));
 */
#ifndef PF_CORE_SHA256_H
#define PF_CORE_SHA256_H

#include <stddef.h>

#include "core/status.h"

#define PF_SHA256_HEX 65 /* 64 hex digits + NUL */

/* SHA-256 of data[0..len) into hex; PF_ERR_EXTERNAL if libcrypto fails. */
pf_status pf_sha256_hex(const void *data, size_t len, char hex[PF_SHA256_HEX]);

#endif
