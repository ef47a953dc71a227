import ArgumentParser
import Foundation
import WhaleBench

/// `whalesim bench json`: decode a `docChange` message and encode its `docChangeReturnOps`
/// reply N times with three JSON implementations, to choose the protocol codec by measurement.
///
/// ```
/// swift run -c release whalesim bench json
/// ```
struct BenchJSONCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "json",
        abstract: "docChange decode + docChangeReturnOps encode: JSONSerialization, Codable, json-c, WireCodec.",
        discussion: """
            Example:
              swift run -c release whalesim bench json --iterations 100000
            """
    )

    @Option(help: "Runs per codec; the median is reported.")
    var runs = 5

    @Option(help: "Decode + encode round trips per run.")
    var iterations = 100_000

    func run() throws {
        print(
            "whalesim bench json — command: swift run -c release whalesim bench json --runs \(runs) --iterations \(iterations)"
        )
        if !isReleaseBuild { print("warning: debug build; figures are meaningless (use -c release)") }
        let input = Data(BenchJSONMessage.docChange.utf8)
        let codecs: [(String, any BenchJSONCodec)] = [
            ("Foundation JSONSerialization", BenchJSONSerialization()),
            ("JSONDecoder/JSONEncoder (Codable)", BenchJSONCodable()),
            ("json-c", BenchJSONC()),
            ("WhaleProtocol.WireCodec (WireJSON)", BenchJSONWireCodec()),
        ]
        // Same answer from every codec before anything is timed.
        let expected = try BenchJSONMessage.canonical(BenchJSONSerialization().roundTrip(input))
        for (name, codec) in codecs {
            let reply = try codec.roundTrip(input)
            guard try BenchJSONMessage.canonical(reply) == expected else {
                printError("whalesim: bench json: \(name) produced \(String(decoding: reply, as: UTF8.self))")
                throw ExitStatus.correctnessViolated
            }
        }
        print("message: \(BenchJSONMessage.docChange)")
        print("reply:   \(String(decoding: try BenchJSONC().roundTrip(input), as: UTF8.self))")
        var rates: [(String, Double)] = []
        for (name, codec) in codecs {
            let (timing, _) = try BenchTiming.measure(runs: runs) {
                var sum = 0
                for _ in 0..<iterations { sum &+= try codec.roundTrip(input).count }
                return sum
            }
            let perSecond = Double(iterations) / timing.median
            rates.append((name, perSecond))
            print("  \(name.padding(toLength: 36, withPad: " ", startingAt: 0)) \(timing.rate(iterations))")
        }
        let base = rates[0].1
        for (name, rate) in rates.dropFirst() {
            print("  \(name) / JSONSerialization: \(BenchTiming.format(rate / base))×")
        }
        print("  json-c / Codable: \(BenchTiming.format(rates[2].1 / rates[1].1))×")
        print("  json-c / WireCodec: \(BenchTiming.format(rates[2].1 / rates[3].1))×")
    }
}
