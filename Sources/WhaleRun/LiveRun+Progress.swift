import Foundation

extension LiveRun {
    /// Once a second: a progress line rewritten in place on a terminal, or a plain line every
    /// five seconds otherwise (CI logs).
    func reportProgress(loadStart: Int) async {
        var tick = 0
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(1))
            if Task.isCancelled { break }
            tick += 1
            let elapsed = (clock.nowMs - loadStart) / 1000
            let remaining = max(0, spec.durationMs / 1000 - elapsed)
            let p99 = metrics.totals["op_ack"]?.percentileMs(99).map { String(format: "%.1fms", $0) } ?? "-"
            let line = "[\(elapsed)s/\(spec.durationMs / 1000)s] clients \(metrics.connected) · ops/s \(metrics.rate("ops_acked")) · op_ack p99 \(p99) · errors \(metrics.errorCount) · \(remaining)s left"
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
}
