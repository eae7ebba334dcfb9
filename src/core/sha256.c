/* sha256.c — SHA-256 as hex through libcrypto (sha256.h). */
#include "core/sha256.h"

#include <openssl/evp.h>
#include <stdio.h>

static void to_hex(const unsigned char *md, unsigned n, char *hex)
{
    for (unsigned i = 0; i < n; i++) snprintf(hex + 2 * i, 3, "%02x", md[i]);
}

pf_status pf_sha256_hex(const void *data, size_t len, char hex[PF_SHA256_HEX])
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    if (!EVP_Digest(data, len, md, &n, EVP_sha256(), NULL) || n != 32)
        return pf_fail(PF_ERR_EXTERNAL, "SHA-256 failed (OpenSSL EVP_Digest)");
    to_hex(md, n, hex);
    return PF_OK;
}

/* The handle is libcrypto's own context, behind our name. */
pf_sha256 *pf_sha256_alloc(void)
{
    EVP_MD_CTX *c = EVP_MD_CTX_new();
    if (c && !EVP_DigestInit_ex(c, EVP_sha256(), NULL)) {
        EVP_MD_CTX_free(c);
        c = NULL;
    }
    return (pf_sha256 *)c;
}

pf_status pf_sha256_update(pf_sha256 *h, const void *data, size_t len)
{
    PF_ASSERT(h != NULL);
    if (!EVP_DigestUpdate((EVP_MD_CTX *)h, data, len))
        return pf_fail(PF_ERR_EXTERNAL, "SHA-256 failed (OpenSSL EVP_DigestUpdate)");
    return PF_OK;
}

pf_status pf_sha256_final(pf_sha256 *h, char hex[PF_SHA256_HEX])
{
    PF_ASSERT(h != NULL);
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    if (!EVP_DigestFinal_ex((EVP_MD_CTX *)h, md, &n) || n != 32)
        return pf_fail(PF_ERR_EXTERNAL, "SHA-256 failed (OpenSSL EVP_DigestFinal_ex)");
    to_hex(md, n, hex);
    return PF_OK;
}

void pf_sha256_free(pf_sha256 *h)
{
    EVP_MD_CTX_free((EVP_MD_CTX *)h);
}
