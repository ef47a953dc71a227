/// The two exposition formats `/metrics` speaks, chosen from the scraper's `Accept` header.
public enum ExpositionFormat: Sendable, Equatable {
    /// The Prometheus text format 0.0.4 (the default: what curl and old scrapers get).
    case prometheusText
    /// OpenMetrics 1.0: `# UNIT`, counter families without `_total`, samples with it, `# EOF`.
    case openMetrics

    public var contentType: String {
        switch self {
        case .prometheusText: "text/plain; version=0.0.4; charset=utf-8"
        case .openMetrics: "application/openmetrics-text; version=1.0.0; charset=utf-8"
        }
    }

    /// The format an `Accept` header asks for: OpenMetrics when `application/openmetrics-text`
    /// (version 1.0.0 or none given) has the highest quality of the types offered, the text format
    /// otherwise (also for a missing or unreadable header). Prometheus sends
    /// `application/openmetrics-text;version=1.0.0,...,text/plain;version=0.0.4;q=0.5,*/*;q=0.1`.
    public static func negotiate(accept: String?) -> ExpositionFormat {
        guard let accept else { return .prometheusText }
        var open = -1.0
        var text = -1.0
        for range in accept.split(separator: ",") {
            let parts = range.split(separator: ";").map { trim($0).lowercased() }
            guard let type = parts.first else { continue }
            var quality = 1.0
            var version: String?
            for parameter in parts.dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1).map(String.init)
                guard pair.count == 2 else { continue }
                if pair[0] == "q" { quality = Double(pair[1]) ?? 0 }
                if pair[0] == "version" { version = pair[1] }
            }
            guard quality > 0 else { continue }
            switch type {
            case "application/openmetrics-text" where version == nil || version == "1.0.0":
                open = max(open, quality)
            case "text/plain", "text/*", "*/*":
                text = max(text, quality)
            default:
                continue
            }
        }
        return open >= 0 && open >= text ? .openMetrics : .prometheusText
    }
}

/// Drops the spaces and tabs HTTP allows around list items and parameters.
private func trim(_ text: Substring) -> Substring {
    let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
    guard let first = text.firstIndex(where: { !blank($0) }), let last = text.lastIndex(where: { !blank($0) }) else {
        return ""
    }
    return text[first...last]
}
