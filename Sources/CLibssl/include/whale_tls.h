#ifndef WHALE_TLS_H
#define WHALE_TLS_H

#include <stddef.h>
#include <stdint.h>

/// OpenSSL's TLS (libssl) over memory buffers: the socket stays NIO's, these functions only turn
/// ciphertext into plaintext and back. Every call that fails leaves a message in `err`.

typedef struct whale_tls_ctx whale_tls_ctx;
typedef struct whale_tls whale_tls;

/// A server context presenting `cert_pem` (then `chain_pem`, may be NULL) with `key_pem`.
whale_tls_ctx *whale_tls_server_ctx(const char *cert_pem, const char *chain_pem, const char *key_pem, char *err,
                                    size_t errlen);
/// A client context that verifies the server against the system's trust store and, when
/// `ca_file` is not NULL, the CA certificates in that PEM file too.
whale_tls_ctx *whale_tls_client_ctx(const char *ca_file, char *err, size_t errlen);
void whale_tls_ctx_free(whale_tls_ctx *ctx);

/// One connection. A client checks the server's certificate names `host` (a DNS name or an IP
/// address) and sends it as SNI when it is a name.
whale_tls *whale_tls_new(whale_tls_ctx *ctx, int server, const char *host, char *err, size_t errlen);
void whale_tls_free(whale_tls *tls);

/// Ciphertext from the peer.
int whale_tls_feed(whale_tls *tls, const uint8_t *bytes, size_t count);
/// Advances the handshake: 1 done, 0 needs more from the peer, -1 failed (see `err`).
int whale_tls_handshake(whale_tls *tls, char *err, size_t errlen);
/// Plaintext received: > 0 bytes read, 0 needs more ciphertext, -1 failed, -2 the peer closed (close_notify).
int whale_tls_read(whale_tls *tls, uint8_t *into, size_t capacity, char *err, size_t errlen);
/// Encrypts all of `count` bytes: `count`, or -1 on failure.
int whale_tls_write(whale_tls *tls, const uint8_t *bytes, size_t count, char *err, size_t errlen);
/// Queues a close_notify.
void whale_tls_shutdown(whale_tls *tls);
/// Ciphertext waiting to go to the peer, and taking it: bytes copied.
size_t whale_tls_pending(whale_tls *tls);
int whale_tls_take(whale_tls *tls, uint8_t *into, size_t capacity);
/// The negotiated protocol version, e.g. "TLSv1.3".
const char *whale_tls_version(whale_tls *tls);

#endif
