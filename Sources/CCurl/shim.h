// libcurl (Debian libcurl4-openssl-dev) for WhaleLoad's CurlMultiExecutor.
// curl_easy_setopt / curl_easy_getinfo / curl_multi_setopt are variadic, which Swift cannot
// call: these typed wrappers are the only way the Swift side sets options.
#ifndef WHALESIM_CCURL_SHIM_H
#define WHALESIM_CCURL_SHIM_H
#include <curl/curl.h>

static inline CURLcode whalesim_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode whalesim_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode whalesim_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode whalesim_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}
/// CURLOPT_WRITEFUNCTION / CURLOPT_HEADERFUNCTION.
typedef size_t (*whalesim_write_callback)(char *data, size_t size, size_t count, void *context);
static inline CURLcode whalesim_easy_setopt_write_callback(CURL *handle, CURLoption option, whalesim_write_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}
static inline CURLcode whalesim_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}
static inline CURLcode whalesim_easy_getinfo_pointer(CURL *handle, CURLINFO info, void **value) {
    return curl_easy_getinfo(handle, info, value);
}
static inline CURLMcode whalesim_multi_setopt_long(CURLM *handle, CURLMoption option, long value) {
    return curl_multi_setopt(handle, option, value);
}
/// The easy handle and result of a CURLMSG_DONE message (the union is not visible to Swift).
static inline CURLcode whalesim_message_result(CURLMsg *message) {
    return message->data.result;
}
#endif
