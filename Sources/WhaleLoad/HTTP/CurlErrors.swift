import CCurl

/// libcurl's error codes as ``HTTPTransportError`` kinds, with `curl_easy_strerror`'s text.
enum CurlErrors {
    static func kind(_ code: CURLcode) -> HTTPTransportError.Kind {
        switch code {
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY, CURLE_UNSUPPORTED_PROTOCOL,
            CURLE_URL_MALFORMAT:
            return .connect
        case CURLE_OPERATION_TIMEDOUT:
            return .timeout
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
            CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_CRL_BADFILE, CURLE_SSL_PINNEDPUBKEYNOTMATCH,
            CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED,
            CURLE_SSL_ENGINE_INITFAILED,
            CURLE_SSL_SHUTDOWN_FAILED, CURLE_USE_SSL_FAILED:
            return .tls
        case CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE, CURLE_HTTP2, CURLE_HTTP2_STREAM,
            CURLE_HTTP3:
            return .reset
        default:
            return .other
        }
    }

    /// `curl_easy_strerror`'s text, then the transfer's own detail (CURLOPT_ERRORBUFFER) when it says more.
    static func transportError(_ code: CURLcode, detail: String) -> HTTPTransportError {
        let text = String(cString: curl_easy_strerror(code))
        let message = detail.isEmpty || detail == text ? text : "\(text): \(detail)"
        return HTTPTransportError(kind(code), message + " (curl \(code.rawValue))")
    }
}
