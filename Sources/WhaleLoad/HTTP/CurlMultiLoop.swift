import CCurl
import Foundation
import NIOConcurrencyHelpers

/// The curl thread of a ``CurlMultiExecutor``: owns the multi handle, the easy handles and every
/// transfer in flight; nothing here is touched from another thread except through ``CurlInbox``.
final class CurlMultiLoop: @unchecked Sendable {
    private let options: CurlMultiExecutor.Options
    private let inbox: CurlInbox
    private var active: [UnsafeMutableRawPointer: CurlTransfer] = [:]
    private var idleHandles: [UnsafeMutableRawPointer] = []
    /// CURLOPT_ERRORBUFFER of each easy handle (CURL_ERROR_SIZE bytes), freed with the handle.
    private var errorBuffers: [UnsafeMutableRawPointer: UnsafeMutablePointer<CChar>] = [:]
    /// The most transfers in flight at once in this stretch and the one before (see `shrinkIdle`).
    private var peakNow = 0, peakBefore = 0
    private var stretchStart = ContinuousClock.now

    /// The idle pool's size after its last trim, for whoever watches from another thread.
    let idleReport: NIOLockedValueBox<Int>
    /// The most transfers in flight at once since the watcher last took it.
    let peakReport = NIOLockedValueBox(0)

    init(options: CurlMultiExecutor.Options, inbox: CurlInbox, idleReport: NIOLockedValueBox<Int>) {
        self.options = options
        self.inbox = inbox
        self.idleReport = idleReport
    }

    func run() {
        guard let multi = curl_multi_init() else {
            for transfer in inbox.close() {
                transfer.finish(.failure(HTTPTransportError(.other, "curl_multi_init failed")))
            }
            return
        }
        _ = whalesim_multi_setopt_long(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, options.maxConnections)
        _ = whalesim_multi_setopt_long(
            multi, CURLMOPT_MAXCONNECTS, options.idleConnectionsMax ?? options.maxConnections)
        inbox.attach(multi)

        var running: Int32 = 0
        let shutDown = HTTPTransportError(.other, "the curl executor is shut down")
        while true {
            let (submitted, cancelled, stopping) = inbox.drain()
            if stopping {
                // Drained together with the stop request: never started, but their callers wait.
                for transfer in submitted + cancelled { transfer.finish(.failure(shutDown)) }
                break
            }
            for transfer in submitted { start(transfer, multi: multi) }
            for transfer in cancelled { abandon(transfer, multi: multi, HTTPTransportError(.other, "cancelled")) }
            _ = curl_multi_perform(multi, &running)
            var queued: Int32 = 0
            while let message = curl_multi_info_read(multi, &queued) {
                guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
                complete(easy, code: whalesim_message_result(message), multi: multi)
            }
            shrinkIdle()
            // Sleeps until a socket is ready, a curl timer is due, or curl_multi_wakeup.
            _ = curl_multi_poll(multi, nil, 0, 1000, nil)
        }

        let late = inbox.close()
        for transfer in Array(active.values) { abandon(transfer, multi: multi, shutDown) }
        for transfer in late { transfer.finish(.failure(shutDown)) }
        for easy in idleHandles { free(easy) }
        idleHandles.removeAll()
        curl_multi_cleanup(multi)
    }

    private func start(_ transfer: CurlTransfer, multi: UnsafeMutableRawPointer) {
        defer { reportIdle() }
        guard let easy = idleHandles.popLast() ?? makeHandle() else {
            transfer.finish(.failure(HTTPTransportError(.other, "curl_easy_init failed")))
            return
        }
        if let problem = configure(easy, for: transfer) {
            release(easy, of: transfer, reuse: true)
            transfer.finish(.failure(problem))
            return
        }
        transfer.easy = easy
        active[easy] = transfer
        let inFlight = active.count
        peakNow = max(peakNow, inFlight)
        peakReport.withLockedValue { $0 = max($0, inFlight) }
        let code = curl_multi_add_handle(multi, easy)
        if code != CURLM_OK {
            active[easy] = nil
            release(easy, of: transfer, reuse: false)
            transfer.finish(.failure(HTTPTransportError(.other, String(cString: curl_multi_strerror(code)))))
        }
    }

    /// Frees the idle handles a burst left behind once it is over: the pool keeps as many as were
    /// in flight at once in the last 10 to 20 s (at least `idleHandlesMin`). After a server
    /// restart, a thousand pages refetch at once, and the thousand handles (about 5 KB each,
    /// with their buffers) stayed idle for the rest of the run: some 9 MB of a soak's runner
    /// that grew at every restart (issue 21).
    private func shrinkIdle() {
        let now = ContinuousClock.now
        guard now - stretchStart >= options.idleStretch else { return }
        stretchStart = now
        peakBefore = peakNow
        peakNow = active.count
        let keep = max(options.idleHandlesMin, peakBefore)
        while idleHandles.count > keep, let easy = idleHandles.popLast() { free(easy) }
        reportIdle()
    }

    private func reportIdle() {
        let count = idleHandles.count
        idleReport.withLockedValue { $0 = count }
    }

    private func makeHandle() -> UnsafeMutableRawPointer? {
        guard let easy = curl_easy_init() else { return nil }
        errorBuffers[easy] = .allocate(capacity: Int(CURL_ERROR_SIZE))
        return easy
    }

    /// Sets every option of one request on a fresh or reset handle; a message if curl refused one.
    private func configure(_ easy: UnsafeMutableRawPointer, for transfer: CurlTransfer) -> HTTPTransportError? {
        let request = transfer.request
        var codes: [CURLcode] = []
        let context = Unmanaged.passUnretained(transfer).toOpaque()
        codes.append(whalesim_easy_setopt_string(easy, CURLOPT_URL, request.url))
        codes.append(whalesim_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1))
        codes.append(whalesim_easy_setopt_long(easy, CURLOPT_VERBOSE, options.verbose ? 1 : 0))
        codes.append(whalesim_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, transfer.timeoutMilliseconds))
        codes.append(whalesim_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, transfer.timeoutMilliseconds))
        codes.append(whalesim_easy_setopt_long(easy, CURLOPT_TCP_NODELAY, 1))
        // A connection idle this long is closed rather than reused: the storm's thousand
        // connections go once it is over (curl's default keeps them for 118 s).
        codes.append(whalesim_easy_setopt_long(easy, CURLOPT_MAXAGE_CONN, options.connectionMaxIdleSeconds))
        // Each transfer in flight holds a receive buffer of this size: at curl's 16 KB, a restart's
        // thousand page refetches took 16 MB at once, and the heap kept most of it (issue 21).
        codes.append(whalesim_easy_setopt_long(easy, CURLOPT_BUFFERSIZE, options.receiveBufferBytes))
        codes.append(whalesim_easy_setopt_pointer(easy, CURLOPT_ERRORBUFFER, errorBuffers[easy]))
        errorBuffers[easy]?[0] = 0
        codes.append(whalesim_easy_setopt_write_callback(easy, CURLOPT_WRITEFUNCTION, curlWriteBody))
        codes.append(whalesim_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, context))
        codes.append(whalesim_easy_setopt_write_callback(easy, CURLOPT_HEADERFUNCTION, curlWriteHeader))
        codes.append(whalesim_easy_setopt_pointer(easy, CURLOPT_HEADERDATA, context))
        if let caFile = options.caFile {
            codes.append(whalesim_easy_setopt_string(easy, CURLOPT_CAINFO, caFile))
        }
        let method = request.method.uppercased()
        switch (method, request.body) {
        case ("GET", nil):
            codes.append(whalesim_easy_setopt_long(easy, CURLOPT_HTTPGET, 1))
        case ("HEAD", nil):
            codes.append(whalesim_easy_setopt_long(easy, CURLOPT_NOBODY, 1))
        case (_, let body?):
            // COPYPOSTFIELDS copies the bytes, so the transfer need not keep them pinned.
            codes.append(whalesim_easy_setopt_off_t(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count)))
            codes.append(
                body.withUnsafeBufferPointer { bytes in
                    // A zero-length body still needs a non-null pointer, or curl reads from stdin.
                    bytes.baseAddress.map {
                        whalesim_easy_setopt_pointer(
                            easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: $0))
                    }
                        ?? whalesim_easy_setopt_string(easy, CURLOPT_COPYPOSTFIELDS, "")
                })
            if method != "POST" { codes.append(whalesim_easy_setopt_string(easy, CURLOPT_CUSTOMREQUEST, method)) }
        case (_, nil):
            codes.append(whalesim_easy_setopt_string(easy, CURLOPT_CUSTOMREQUEST, method))
        }
        var list: UnsafeMutablePointer<curl_slist>?
        for (name, value) in request.headers {
            list = curl_slist_append(list, "\(name): \(value)")
        }
        // No `Expect: 100-continue` round trip before larger bodies.
        if request.body != nil { list = curl_slist_append(list, "Expect:") }
        if let list {
            transfer.headerList = list
            codes.append(whalesim_easy_setopt_pointer(easy, CURLOPT_HTTPHEADER, list))
        }
        guard let failed = codes.first(where: { $0 != CURLE_OK }) else { return nil }
        return HTTPTransportError(.other, "curl refused an option: " + String(cString: curl_easy_strerror(failed)))
    }

    private func complete(_ easy: UnsafeMutableRawPointer, code: CURLcode, multi: UnsafeMutableRawPointer) {
        curl_multi_remove_handle(multi, easy)
        guard let transfer = active.removeValue(forKey: easy) else { return }
        let result: Result<HTTPResult, HTTPTransportError>
        if code == CURLE_OK {
            var status = 0
            _ = whalesim_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
            result = .success(HTTPResult(status: status, headers: transfer.responseHeaders, body: transfer.body))
        } else {
            let detail = errorBuffers[easy].map { String(cString: $0) } ?? ""
            result = .failure(CurlErrors.transportError(code, detail: detail))
        }
        release(easy, of: transfer, reuse: true)
        transfer.finish(result)
    }

    /// Ends a transfer before curl finished it (cancelled, or the executor stopping).
    private func abandon(_ transfer: CurlTransfer, multi: UnsafeMutableRawPointer, _ error: HTTPTransportError) {
        if let easy = transfer.easy, active.removeValue(forKey: easy) != nil {
            curl_multi_remove_handle(multi, easy)
            // Its connection may be half-used: do not hand the handle out again.
            release(easy, of: transfer, reuse: false)
        }
        transfer.finish(.failure(error))
    }

    private func release(_ easy: UnsafeMutableRawPointer, of transfer: CurlTransfer, reuse: Bool) {
        transfer.easy = nil
        if let list = transfer.headerList {
            curl_slist_free_all(list)
            transfer.headerList = nil
        }
        if reuse, idleHandles.count < options.idleHandlesMax {
            // Keeps the handle's DNS and TLS session caches; connections stay in the multi's cache.
            curl_easy_reset(easy)
            idleHandles.append(easy)
        } else {
            free(easy)
        }
        reportIdle()
    }

    private func free(_ easy: UnsafeMutableRawPointer) {
        curl_easy_cleanup(easy)
        errorBuffers.removeValue(forKey: easy)?.deallocate()
    }
}

/// CURLOPT_WRITEFUNCTION: appends body bytes to the transfer.
private let curlWriteBody: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = {
    data, size, count, context in
    let length = size * count
    guard let context else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    if let data, length > 0 {
        transfer.body.append(contentsOf: UnsafeRawBufferPointer(start: data, count: length))
    }
    return length
}

/// CURLOPT_HEADERFUNCTION: one header line at a time (status lines start a new header block).
private let curlWriteHeader: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int =
    { data, size, count, context in
        let length = size * count
        guard let context, let data else { return length }
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
        let line = UnsafeRawBufferPointer(start: data, count: length)
        if line.starts(with: "HTTP/".utf8) {
            // An interim (1xx) response's headers are replaced by the final one's.
            transfer.responseHeaders.removeAll(keepingCapacity: true)
        } else if let colon = line.firstIndex(of: UInt8(ascii: ":")) {
            let name = String(decoding: line[..<colon], as: UTF8.self).lowercased()
            var value = line[(colon + 1)...]
            while let first = value.first, first == 0x20 || first == 0x09 { value = value.dropFirst() }
            while let last = value.last, last == 0x0A || last == 0x0D || last == 0x20 || last == 0x09 {
                value = value.dropLast()
            }
            transfer.responseHeaders.append((name, String(decoding: value, as: UTF8.self)))
        }
        return length
    }
