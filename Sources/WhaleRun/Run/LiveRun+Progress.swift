import Foundation
import WhaleLoad

extension LiveRun {
    /// Once a second: a progress line rewritten in place on a terminal, or a plain line every
    /// five seconds otherwise (CI logs).
    func reportProgress(loadStart: Int) async {
        var tick = 0
        let census = ProcessInfo.processInfo.environment["WHALESIM_MODEL_LOG"] == "1"
        // WHALESIM_HTTP_LOG=1: every 10 s, the most HTTP transfers in flight at once and the
        // handles kept idle, which is what sizes the runner's idle connections (HTTPExecutors.forRunner).
        let httpLog =
            ProcessInfo.processInfo.environment["WHALESIM_HTTP_LOG"] == "1" ? executor as? CurlMultiExecutor : nil
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(1))
            if Task.isCancelled { break }
            tick += 1
            let elapsed = (clock.nowMs - loadStart) / 1000
            let remaining = max(0, spec.durationMs / 1000 - elapsed)
            let p99 = metrics.totals["op_ack"]?.percentileMs(99).map { String(format: "%.1fms", $0) } ?? "-"
            let line =
                "[\(elapsed)s/\(spec.durationMs / 1000)s] clients \(metrics.connected) · ops/s \(metrics.rate("ops_acked")) · op_ack p99 \(p99) · errors \(metrics.errorCount) · \(remaining)s left"
            if let httpLog, tick % 10 == 0 {
                FileHandle.standardError.write(
                    Data(
                        "http at \(elapsed)s: at most \(httpLog.takePeakInFlight()) in flight, \(httpLog.idleHandleCount) idle handles\n"
                            .utf8))
            }
            if census, tick % 30 == 0 {
                FileHandle.standardError.write(Data("model census at \(elapsed)s: \(modelCensus())\n".utf8))
            }
            switch options.progress {
            case .terminal:
                FileHandle.standardError.write(Data("\r\u{1B}[2K\(line)".utf8))
            case .lines:
                if tick % 5 == 0 { output(line) }
            case .none:
                break
            }
        }
        if options.progress == .terminal { FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8)) }
    }

    /// What the model pages hold, summed over the users: records by kind, stamps, per page kind
    /// (`WHALESIM_MODEL_LOG=1`, every 30 s; it reads every page under its lock, so it is off by default).
    func modelCensus() -> String {
        var records: [String: Int] = [:]
        var stamps = 0, boards = 0, accounts = 0, boardRecords = 0
        for u in allUsers {
            guard let page = u.modelPage else { continue }
            let c = page.client
            if c.page == .board { boards += 1; boardRecords += c.confirmed.count } else { accounts += 1 }
            stamps += c.stamps.count
            for key in c.confirmed.keys { records[String(key.prefix { $0 != ":" }), default: 0] += 1 }
        }
        let kinds = records.keys.sorted().map { "\($0) \(records[$0]!)" }.joined(separator: ", ")
        return
            "\(boards) boards (\(boardRecords) records), \(accounts) account pages; records: \(kinds); stamps \(stamps)"
    }
}
