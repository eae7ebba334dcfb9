/* sha256.c — SHA-256 as hex through libcrypto (sha256.h). */
#include "core/sha256.h"

#include <openssl/evp.h>
#include <stdio.h>

pf_status pf_sha256_hex(const void *data, size_t len, char hex[PF_SHA256_HEX])
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    if (!EVP_Digest(data, len, md, &n, EVP_sha256(), NULL) || n != 32)
        return pf_fail(PF_ERR_EXTERNAL, "SHA-256 failed (OpenSSL EVP_Digest)");
    for (unsigned i = 0; i < n; i++) snprintf(hex + 2 * i, 3, "%02x", md[i]);
    return PF_OK;
}
