// OpenSSL's libcrypto (Debian libssl-dev), for the few hashes, MACs and certificates whalesim makes:
// docs/decisions/0055-first-run-build-without-boringssl.md.
#ifndef WHALE_CRYPTO_H
#define WHALE_CRYPTO_H

#include <stddef.h>

/// HMAC-SHA256 of `data` under `key` into `out` (32 bytes). Returns 1, or 0 if libcrypto failed.
int whale_hmac_sha256(const void *key, size_t key_length, const void *data, size_t data_length, unsigned char *out);

/// SHA-256 of `data` into `out` (32 bytes). Returns 1, or 0 if libcrypto failed.
int whale_sha256(const void *data, size_t length, unsigned char *out);

/// SHA-1 of `data` into `out` (20 bytes): only the websocket handshake's accept key. Returns 1, or 0.
int whale_sha1(const void *data, size_t length, unsigned char *out);

/// 1 if the `length` bytes at `a` and `b` are equal, compared in constant time; 0 otherwise.
int whale_equal_constant_time(const void *a, const void *b, size_t length);

/// PEM texts made by `whale_make_certificates`; free them with `whale_certificates_free`.
typedef struct {
    char *ca_certificate;
    char *leaf_certificate;
    char *leaf_private_key;
    /// Set instead of the three when something failed: what and where (static text).
    const char *error;
} whale_certificates;

/// A fresh P-256 certificate authority and a server certificate it signed (ECDSA with SHA-256), valid from
/// `not_before` to `not_after` (seconds since 1970). The leaf names `localhost` (DNS) and 127.0.0.1 (IP).
whale_certificates whale_make_certificates(long long not_before, long long not_after);

void whale_certificates_free(whale_certificates *certificates);

#endif
