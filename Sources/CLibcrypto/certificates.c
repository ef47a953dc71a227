#include "whale_crypto.h"

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>
#include <stdlib.h>
#include <string.h>

static EVP_PKEY *p256_key(void) {
    EVP_PKEY *key = NULL;
    EVP_PKEY_CTX *context = EVP_PKEY_CTX_new_id(EVP_PKEY_EC, NULL);
    if (context && EVP_PKEY_keygen_init(context) == 1
        && EVP_PKEY_CTX_set_ec_paramgen_curve_nid(context, NID_X9_62_prime256v1) == 1) {
        EVP_PKEY_keygen(context, &key);
    }
    EVP_PKEY_CTX_free(context);
    return key;
}

static X509_NAME *name(const char *common_name) {
    X509_NAME *name = X509_NAME_new();
    if (name
        && X509_NAME_add_entry_by_txt(name, "O", MBSTRING_UTF8, (const unsigned char *)"whalesim", -1, -1, 0) == 1
        && X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, (const unsigned char *)common_name, -1, -1, 0) == 1) {
        return name;
    }
    X509_NAME_free(name);
    return NULL;
}

static int add_extension(X509 *certificate, X509V3_CTX *context, int nid, const char *value) {
    X509_EXTENSION *extension = X509V3_EXT_conf_nid(NULL, context, nid, value);
    int added = extension && X509_add_ext(certificate, extension, -1) == 1;
    X509_EXTENSION_free(extension);
    return added;
}

/// A v3 certificate for `key` named `subject`, signed by `issuer_key` (the issuer is `issuer`, or the
/// certificate itself when `issuer` is NULL), with a random positive 127-bit serial number.
static X509 *certificate(EVP_PKEY *key, X509_NAME *subject, X509 *issuer, EVP_PKEY *issuer_key, long long not_before,
                         long long not_after) {
    X509 *made = X509_new();
    BIGNUM *serial = BN_new();
    int ok = made && serial && X509_set_version(made, X509_VERSION_3) == 1
        && BN_rand(serial, 127, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) == 1
        && BN_to_ASN1_INTEGER(serial, X509_get_serialNumber(made)) != NULL
        && ASN1_TIME_set(X509_getm_notBefore(made), (time_t)not_before) != NULL
        && ASN1_TIME_set(X509_getm_notAfter(made), (time_t)not_after) != NULL
        && X509_set_subject_name(made, subject) == 1
        && X509_set_issuer_name(made, issuer ? X509_get_subject_name(issuer) : subject) == 1
        && X509_set_pubkey(made, key) == 1;
    BN_free(serial);
    if (!ok) {
        X509_free(made);
        return NULL;
    }
    X509V3_CTX context;
    X509V3_set_ctx_nodb(&context);
    X509V3_set_ctx(&context, issuer ? issuer : made, made, NULL, NULL, 0);
    if (issuer == NULL) {
        ok = add_extension(made, &context, NID_basic_constraints, "critical,CA:TRUE,pathlen:0")
            && add_extension(made, &context, NID_key_usage, "critical,keyCertSign,cRLSign")
            && add_extension(made, &context, NID_subject_key_identifier, "hash");
    } else {
        ok = add_extension(made, &context, NID_basic_constraints, "critical,CA:FALSE")
            && add_extension(made, &context, NID_key_usage, "critical,digitalSignature,keyEncipherment")
            && add_extension(made, &context, NID_ext_key_usage, "serverAuth")
            && add_extension(made, &context, NID_subject_alt_name, "DNS:localhost,IP:127.0.0.1")
            && add_extension(made, &context, NID_subject_key_identifier, "hash")
            && add_extension(made, &context, NID_authority_key_identifier, "keyid:always");
    }
    if (!ok || X509_sign(made, issuer_key, EVP_sha256()) == 0) {
        X509_free(made);
        return NULL;
    }
    return made;
}

/// What `bio` holds, as a NUL-terminated string from malloc.
static char *text(BIO *bio) {
    char *bytes = NULL;
    long length = BIO_get_mem_data(bio, &bytes);
    char *copy = length > 0 ? malloc((size_t)length + 1) : NULL;
    if (copy) {
        memcpy(copy, bytes, (size_t)length);
        copy[length] = 0;
    }
    return copy;
}

static char *certificate_pem(X509 *certificate) {
    BIO *bio = BIO_new(BIO_s_mem());
    char *pem = bio && PEM_write_bio_X509(bio, certificate) == 1 ? text(bio) : NULL;
    BIO_free(bio);
    return pem;
}

static char *private_key_pem(EVP_PKEY *key) {
    BIO *bio = BIO_new(BIO_s_mem());
    char *pem = bio && PEM_write_bio_PrivateKey(bio, key, NULL, NULL, 0, NULL, NULL) == 1 ? text(bio) : NULL;
    BIO_free(bio);
    return pem;
}

whale_certificates whale_make_certificates(long long not_before, long long not_after) {
    whale_certificates made = {NULL, NULL, NULL, NULL};
    EVP_PKEY *ca_key = p256_key(), *leaf_key = p256_key();
    X509_NAME *ca_name = name("whalesim fake Salesforce test CA"), *leaf_name = name("localhost");
    X509 *ca = NULL, *leaf = NULL;
    if (!ca_key || !leaf_key) {
        made.error = "libcrypto could not make a P-256 key";
    } else if (!ca_name || !leaf_name) {
        made.error = "libcrypto could not make a certificate name";
    } else if (!(ca = certificate(ca_key, ca_name, NULL, ca_key, not_before, not_after))) {
        made.error = "libcrypto could not make the CA certificate";
    } else if (!(leaf = certificate(leaf_key, leaf_name, ca, ca_key, not_before, not_after))) {
        made.error = "libcrypto could not make the server certificate";
    } else {
        made.ca_certificate = certificate_pem(ca);
        made.leaf_certificate = certificate_pem(leaf);
        made.leaf_private_key = private_key_pem(leaf_key);
        if (!made.ca_certificate || !made.leaf_certificate || !made.leaf_private_key) {
            whale_certificates_free(&made);
            made.error = "libcrypto could not write the certificates as PEM";
        }
    }
    X509_free(ca);
    X509_free(leaf);
    X509_NAME_free(ca_name);
    X509_NAME_free(leaf_name);
    EVP_PKEY_free(ca_key);
    EVP_PKEY_free(leaf_key);
    return made;
}

void whale_certificates_free(whale_certificates *certificates) {
    free(certificates->ca_certificate);
    free(certificates->leaf_certificate);
    free(certificates->leaf_private_key);
    certificates->ca_certificate = certificates->leaf_certificate = certificates->leaf_private_key = NULL;
}
