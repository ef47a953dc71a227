// TLS over memory BIOs: what NIOSSL's handler does with BoringSSL, done with the system's OpenSSL so
// that the first build compiles no TLS library (docs/decisions/0055-first-run-build-without-boringssl.md).
#include "whale_tls.h"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct whale_tls_ctx {
    SSL_CTX *ctx;
};

struct whale_tls {
    SSL *ssl;
    BIO *in;   // ciphertext from the peer, read by OpenSSL
    BIO *out;  // ciphertext for the peer, written by OpenSSL
};

// The oldest queued OpenSSL error (or `fallback`) into `err`; the queue is emptied so a later
// failure on this thread does not report this one.
static void say(char *err, size_t errlen, const char *what, const char *fallback) {
    unsigned long code = ERR_get_error();
    char detail[256];
    if (code != 0) {
        ERR_error_string_n(code, detail, sizeof detail);
    } else {
        snprintf(detail, sizeof detail, "%s", fallback);
    }
    ERR_clear_error();
    if (err != NULL && errlen > 0) snprintf(err, errlen, "%s: %s", what, detail);
}

static X509 *read_certificate(const char *pem) {
    BIO *b = BIO_new_mem_buf(pem, -1);
    if (b == NULL) return NULL;
    X509 *x = PEM_read_bio_X509(b, NULL, NULL, NULL);
    BIO_free(b);
    return x;
}

// A context of `method` that speaks TLS 1.2 or later, or NULL with why in `err`.
static SSL_CTX *new_context(const SSL_METHOD *method, const char *what, char *err, size_t errlen) {
    ERR_clear_error();
    SSL_CTX *ctx = SSL_CTX_new(method);
    if (ctx == NULL) {
        say(err, errlen, what, "out of memory");
        return NULL;
    }
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    return ctx;
}

// `ctx` in the opaque handle Swift holds (freed when that cannot be made).
static whale_tls_ctx *handle(SSL_CTX *ctx) {
    whale_tls_ctx *w = calloc(1, sizeof *w);
    if (w == NULL) {
        SSL_CTX_free(ctx);
        return NULL;
    }
    w->ctx = ctx;
    return w;
}

whale_tls_ctx *whale_tls_server_ctx(const char *cert_pem, const char *chain_pem, const char *key_pem, char *err,
                                    size_t errlen) {
    SSL_CTX *ctx = new_context(TLS_server_method(), "cannot make a TLS server context", err, errlen);
    if (ctx == NULL) return NULL;
    X509 *leaf = read_certificate(cert_pem);
    int ok = leaf != NULL && SSL_CTX_use_certificate(ctx, leaf) == 1;
    X509_free(leaf);  // the context holds its own reference
    if (!ok) {
        say(err, errlen, "the server certificate is not a PEM certificate", "unreadable");
        goto fail;
    }
    if (chain_pem != NULL) {
        X509 *ca = read_certificate(chain_pem);
        // add0 takes ownership on success.
        if (ca == NULL || SSL_CTX_add0_chain_cert(ctx, ca) != 1) {
            say(err, errlen, "the chain certificate is not a PEM certificate", "unreadable");
            X509_free(ca);
            goto fail;
        }
    }
    BIO *kb = BIO_new_mem_buf(key_pem, -1);
    EVP_PKEY *key = kb == NULL ? NULL : PEM_read_bio_PrivateKey(kb, NULL, NULL, NULL);
    BIO_free(kb);
    ok = key != NULL && SSL_CTX_use_PrivateKey(ctx, key) == 1 && SSL_CTX_check_private_key(ctx) == 1;
    EVP_PKEY_free(key);
    if (!ok) {
        say(err, errlen, "the private key does not fit the certificate", "unreadable");
        goto fail;
    }
    return handle(ctx);
fail:
    SSL_CTX_free(ctx);
    return NULL;
}

whale_tls_ctx *whale_tls_client_ctx(const char *ca_file, char *err, size_t errlen) {
    SSL_CTX *ctx = new_context(TLS_client_method(), "cannot make a TLS client context", err, errlen);
    if (ctx == NULL) return NULL;
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
    if (SSL_CTX_set_default_verify_paths(ctx) != 1) ERR_clear_error();  // no system store: only ca_file
    if (ca_file != NULL && SSL_CTX_load_verify_locations(ctx, ca_file, NULL) != 1) {
        say(err, errlen, "cannot read the CA file", ca_file);
        SSL_CTX_free(ctx);
        return NULL;
    }
    return handle(ctx);
}

void whale_tls_ctx_free(whale_tls_ctx *ctx) {
    if (ctx == NULL) return;
    SSL_CTX_free(ctx->ctx);
    free(ctx);
}

whale_tls *whale_tls_new(whale_tls_ctx *ctx, int server, const char *host, char *err, size_t errlen) {
    ERR_clear_error();
    whale_tls *t = calloc(1, sizeof *t);
    if (t == NULL) return NULL;
    t->ssl = SSL_new(ctx->ctx);
    t->in = BIO_new(BIO_s_mem());
    t->out = BIO_new(BIO_s_mem());
    if (t->ssl == NULL || t->in == NULL || t->out == NULL) {
        say(err, errlen, "cannot make a TLS connection", "out of memory");
        if (t->ssl) SSL_free(t->ssl);
        else {
            BIO_free(t->in);
            BIO_free(t->out);
        }
        free(t);
        return NULL;
    }
    // An empty memory BIO means "wait for more", not end of file.
    BIO_set_mem_eof_return(t->in, -1);
    BIO_set_mem_eof_return(t->out, -1);
    SSL_set_bio(t->ssl, t->in, t->out);
    if (server) {
        SSL_set_accept_state(t->ssl);
    } else {
        SSL_set_connect_state(t->ssl);
        if (host != NULL && host[0] != '\0') {
            ASN1_OCTET_STRING *ip = a2i_IPADDRESS(host);
            int ok;
            if (ip != NULL) {
                ASN1_OCTET_STRING_free(ip);
                ok = X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(t->ssl), host);
            } else {
                ERR_clear_error();
                ok = SSL_set_tlsext_host_name(t->ssl, host) == 1 && SSL_set1_host(t->ssl, host) == 1;
            }
            if (!ok) {
                say(err, errlen, "cannot check the server's name", host);
                whale_tls_free(t);
                return NULL;
            }
        }
    }
    return t;
}

void whale_tls_free(whale_tls *tls) {
    if (tls == NULL) return;
    SSL_free(tls->ssl);  // frees both BIOs
    free(tls);
}

int whale_tls_feed(whale_tls *tls, const uint8_t *bytes, size_t count) {
    if (count == 0) return 0;
    return BIO_write(tls->in, bytes, (int)count) == (int)count ? 0 : -1;
}

int whale_tls_handshake(whale_tls *tls, char *err, size_t errlen) {
    ERR_clear_error();
    int r = SSL_do_handshake(tls->ssl);
    if (r == 1) return 1;
    int e = SSL_get_error(tls->ssl, r);
    if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) return 0;
    long verify = SSL_get_verify_result(tls->ssl);
    if (verify != X509_V_OK) {
        char why[200];
        snprintf(why, sizeof why, "certificate verify failed: %s", X509_verify_cert_error_string(verify));
        ERR_clear_error();
        if (err != NULL && errlen > 0) snprintf(err, errlen, "TLS handshake failed: %s", why);
        return -1;
    }
    say(err, errlen, "TLS handshake failed", e == SSL_ERROR_SYSCALL ? "the peer broke off" : "protocol error");
    return -1;
}

int whale_tls_read(whale_tls *tls, uint8_t *into, size_t capacity, char *err, size_t errlen) {
    ERR_clear_error();
    int r = SSL_read(tls->ssl, into, (int)capacity);
    if (r > 0) return r;
    int e = SSL_get_error(tls->ssl, r);
    if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) return 0;
    if (e == SSL_ERROR_ZERO_RETURN) return -2;
    say(err, errlen, "TLS read failed", "protocol error");
    return -1;
}

int whale_tls_write(whale_tls *tls, const uint8_t *bytes, size_t count, char *err, size_t errlen) {
    if (count == 0) return 0;
    ERR_clear_error();
    // Memory BIOs never refuse: one SSL_write takes it all (partial writes are off by default).
    int r = SSL_write(tls->ssl, bytes, (int)count);
    if (r == (int)count) return r;
    say(err, errlen, "TLS write failed", "protocol error");
    return -1;
}

void whale_tls_shutdown(whale_tls *tls) {
    ERR_clear_error();
    (void)SSL_shutdown(tls->ssl);
    ERR_clear_error();
}

size_t whale_tls_pending(whale_tls *tls) { return BIO_ctrl_pending(tls->out); }

int whale_tls_take(whale_tls *tls, uint8_t *into, size_t capacity) {
    int r = BIO_read(tls->out, into, (int)capacity);
    return r > 0 ? r : 0;
}

const char *whale_tls_version(whale_tls *tls) { return SSL_get_version(tls->ssl); }
