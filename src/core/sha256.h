/*
 * sha256.h — SHA-256 (OpenSSL's libcrypto) as lower-case hex: the content
 * address of specs and LLM transcripts, and the checksum of our HDF5 files
 * (io/h5.h).
 *
 *     char hex[PF_SHA256_HEX];
 *     PF_TRY(pf_sha256_hex(text, strlen(text), hex));
 *
 * Data that arrives in pieces (a file read block by block) goes through a
 * context instead; the digest is the same as for the pieces concatenated:
 *
 *     pf_sha256 *h = pf_sha256_alloc();
 *     if (!h) return pf_fail(PF_ERR_NOMEM, "...");
 *     pf_status st = PF_OK;
 *     while (st == PF_OK && (n = read(fd, buf, sizeof buf)) > 0)
 *         st = pf_sha256_update(h, buf, (size_t)n);
 *     if (st == PF_OK) st = pf_sha256_final(h, hex);
 *     pf_sha256_free(h);
 */
#ifndef PF_CORE_SHA256_H
#define PF_CORE_SHA256_H

#include <stddef.h>

#include "core/status.h"

#define PF_SHA256_HEX 65 /* 64 hex digits + NUL */

/* SHA-256 of data[0..len) into hex; PF_ERR_EXTERNAL if libcrypto fails. */
pf_status pf_sha256_hex(const void *data, size_t len, char hex[PF_SHA256_HEX]);

/* A SHA-256 computation in progress; opaque. */
typedef struct pf_sha256 pf_sha256;

/* A fresh context (heap; free with pf_sha256_free); NULL when out of memory
 * or libcrypto cannot start one. */
pf_sha256 *pf_sha256_alloc(void);

/* Add data[0..len) to the message; PF_ERR_EXTERNAL if libcrypto fails. */
pf_status pf_sha256_update(pf_sha256 *h, const void *data, size_t len);

/* The digest of everything added, into hex. The context is then spent:
 * only pf_sha256_free() may follow. PF_ERR_EXTERNAL if libcrypto fails. */
pf_status pf_sha256_final(pf_sha256 *h, char hex[PF_SHA256_HEX]);

/* Frees a context; NULL is a no-op. */
void pf_sha256_free(pf_sha256 *h);

#endif
