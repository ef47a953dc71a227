#include "whale_crypto.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

int whale_hmac_sha256(const void *key, size_t key_length, const void *data, size_t data_length, unsigned char *out) {
    unsigned int written = 0;
    // An empty key is a valid HMAC key; libcrypto wants a non-null pointer for it.
    static const unsigned char empty = 0;
    return HMAC(EVP_sha256(), key_length ? key : &empty, (int)key_length, data, data_length, out, &written) != NULL
        && written == 32;
}

static int digest(const EVP_MD *md, const void *data, size_t length, unsigned char *out) {
    unsigned int written = 0;
    return EVP_Digest(data, length, out, &written, md, NULL) == 1;
}

int whale_sha256(const void *data, size_t length, unsigned char *out) { return digest(EVP_sha256(), data, length, out); }

int whale_sha1(const void *data, size_t length, unsigned char *out) { return digest(EVP_sha1(), data, length, out); }

int whale_equal_constant_time(const void *a, const void *b, size_t length) { return CRYPTO_memcmp(a, b, length) == 0; }
