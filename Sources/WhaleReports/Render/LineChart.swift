import Foundation

/// One inline SVG line chart over a run's buckets, with fault windows shaded behind the lines.
/// Colours come from CSS classes (`s0`…`s5`, `fault`), so light and dark follow the page.
struct LineChart {
    struct Line {
        var name: String
        var values: [Double?]
    }

    var title: String
    /// What the y axis counts ("latency (ticks)", "ops per bucket", ...).
    var yLabel: String
    var series: RunSeries
    var lines: [Line]
    /// A latency chart's y axis in decades (issue 46): on a linear axis the max sets the scale and
    /// p50 to p99 lie flat on it (a power-loss run's op→ack spans 0–5,000 ms with a p99 of 34 ms).
    var logScale = false

    static let width = 960.0, height = 250.0
    static let left = 64.0, right = 12.0, top = 14.0, bottom = 42.0
    /// Fault windows drawn at most; a note says how many more there were.
    static let maxFaultWindows = 400

    var plotWidth: Double { Self.width - Self.left - Self.right }
    var plotHeight: Double { Self.height - Self.top - Self.bottom }

    func x(_ t: Double) -> Double { Self.left + t / Double(max(1, series.end)) * plotWidth }

    /// The y axis: linear from 0 to a nice ceiling, or logarithmic over whole decades.
    struct Scale {
        var low: Double
        var high: Double
        var log: Bool
        /// Where the grid lines and their labels go.
        var ticks: [Double]

        /// 0 at the bottom and 1 at the top; on a log axis a value under `low` sits on the floor.
        func fraction(_ v: Double) -> Double {
            guard log else { return v / high }
            return (Foundation.log10(Swift.max(v, low)) - Foundation.log10(low))
                / (Foundation.log10(high) - Foundation.log10(low))
        }

        static func of(_ values: [Double], log: Bool) -> Scale {
            let positive = values.filter { $0 > 0 }
            if log, let lowest = positive.min(), let highest = positive.max() {
                let low = pow(10, floor(log10(lowest)))
                var high = pow(10, ceil(log10(highest)))
                if high <= low { high = low * 10 }
                let decades = Int((log10(high) - log10(low)).rounded())
                return Scale(low: low, high: high, log: true, ticks: (0...decades).map { low * pow(10, Double($0)) })
            }
            let high = LineChart.niceCeiling(values.max() ?? 0)
            return Scale(low: 0, high: high, log: false, ticks: (0...4).map { high * Double($0) / 4 })
        }
    }

    func y(_ v: Double, _ scale: Scale) -> Double { Self.top + plotHeight - scale.fraction(v) * plotHeight }

    func render() -> String {
        let yMax = Scale.of(lines.flatMap { $0.values.compactMap { $0 } }, log: logScale)
        var svg =
            "<svg class=\"chart\" viewBox=\"0 0 \(Int(Self.width)) \(Int(Self.height))\" role=\"img\" aria-label=\"\(html(title))\" xmlns=\"http://www.w3.org/2000/svg\">"
        // Fault windows first, so the lines stay on top.
        for w in series.faultWindows.prefix(Self.maxFaultWindows) {
            let x0 = x(Double(w.start)), x1 = max(x(Double(w.end)), x0 + 1)
            svg +=
                "<rect class=\"fault \(html(w.kind))\" x=\"\(f(x0))\" y=\"\(f(Self.top))\" width=\"\(f(x1 - x0))\" height=\"\(f(plotHeight))\"><title>\(html(w.label)) \(w.start)–\(w.end) \(html(series.unit))</title></rect>"
        }
        for v in yMax.ticks {
            let yy = y(v, yMax)
            svg +=
                "<line class=\"grid\" x1=\"\(f(Self.left))\" x2=\"\(f(Self.width - Self.right))\" y1=\"\(f(yy))\" y2=\"\(f(yy))\"/>"
            svg +=
                "<text class=\"tick\" x=\"\(f(Self.left - 6))\" y=\"\(f(yy + 4))\" text-anchor=\"end\">\(yMax.log ? String(format: "%g", v) : figure(v))</text>"
        }
        let step = Double(SeriesDerivation.niceWidth(max(1, series.end) * SeriesDerivation.targetBuckets / 6))
        var t = 0.0
        while t <= Double(series.end) {
            let xx = x(t)
            svg +=
                "<line class=\"axis\" x1=\"\(f(xx))\" x2=\"\(f(xx))\" y1=\"\(f(Self.top + plotHeight))\" y2=\"\(f(Self.top + plotHeight + 4))\"/>"
            svg +=
                "<text class=\"tick\" x=\"\(f(xx))\" y=\"\(f(Self.top + plotHeight + 16))\" text-anchor=\"middle\">\(Int(t))</text>"
            t += step
        }
        svg +=
            "<line class=\"axis\" x1=\"\(f(Self.left))\" x2=\"\(f(Self.width - Self.right))\" y1=\"\(f(Self.top + plotHeight))\" y2=\"\(f(Self.top + plotHeight))\"/>"
        svg +=
            "<text class=\"label\" x=\"\(f(Self.left + plotWidth / 2))\" y=\"\(f(Self.height - 6))\" text-anchor=\"middle\">time (\(html(series.unit)))</text>"
        svg +=
            "<text class=\"label\" x=\"14\" y=\"\(f(Self.top + plotHeight / 2))\" text-anchor=\"middle\" transform=\"rotate(-90 14 \(f(Self.top + plotHeight / 2)))\">\(html(yLabel + (yMax.log ? ", log scale" : "")))</text>"
        for (k, line) in lines.enumerated() {
            svg += path(line, yMax: yMax, style: k % 6)
        }
        svg += "</svg>"
        return svg
    }

    /// The line through each bucket's midpoint; a bucket without a value breaks it.
    private func path(_ line: Line, yMax: Scale, style: Int) -> String {
        var d = "", dots = "", pen = false
        for (i, value) in line.values.enumerated() where i < series.bucketStarts.count {
            guard let value else { pen = false; continue }
            let xx = x(Double(series.bucketStarts[i]) + Double(series.bucketWidth) / 2), yy = y(value, yMax)
            d += (pen ? "L" : "M") + "\(f(xx)) \(f(yy))"
            let isolated = !pen && (i + 1 >= line.values.count || line.values[i + 1] == nil)
            if isolated { dots += "<circle class=\"s\(style)\" cx=\"\(f(xx))\" cy=\"\(f(yy))\" r=\"2.5\"/>" }
            pen = true
        }
        let title = "<title>\(html(line.name))</title>"
        return (d.isEmpty ? "" : "<path class=\"line s\(style)\" d=\"\(d)\">\(title)</path>") + dots
    }

    /// A legend (HTML) naming each line in its colour, and the fault windows if any.
    func legend() -> String {
        var out = "<p class=\"legend\">"
        for (k, line) in lines.enumerated() {
            out += "<span><i class=\"swatch s\(k % 6)\"></i>\(html(line.name))</span>"
        }
        if !series.faultWindows.isEmpty {
            // One swatch per kind present, named as the fault catalog names it.
            var kinds: [String] = []
            for w in series.faultWindows where !kinds.contains(w.kind) { kinds.append(w.kind) }
            for kind in kinds.sorted() {
                out += "<span><i class=\"swatch fault \(html(kind))\"></i>\(html(kind))</span>"
            }
            if series.faultWindows.count > Self.maxFaultWindows {
                out +=
                    "<span class=\"note\">\(Self.maxFaultWindows) of \(series.faultWindows.count) fault windows drawn</span>"
            }
        }
        return out + "</p>"
    }

    /// 1, 2, 2.5 or 5 × 10ⁿ at or above `v` (at least 1).
    static func niceCeiling(_ v: Double) -> Double {
        guard v > 1 else { return 1 }
        var scale = pow(10, floor(log10(v)))
        while true {
            for m in [1.0, 2.0, 2.5, 5.0] where m * scale >= v { return m * scale }
            scale *= 10
        }
    }

    private func f(_ v: Double) -> String { String(format: "%.1f", v) }
}
