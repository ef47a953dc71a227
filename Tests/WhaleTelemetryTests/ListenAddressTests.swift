import Testing
import WhaleTelemetry

/// `--listen`'s value: loopback unless a host is given, port 0 allowed, every malformed form
/// refused with the reason (exit 64 in the CLI).
@Suite struct ListenAddressTests {
    @Test func formsThatParse() throws {
        #expect(try ListenAddress.parse("9464") == ListenAddress(host: "127.0.0.1", port: 9464))
        #expect(try ListenAddress.parse(":0") == ListenAddress(host: "127.0.0.1", port: 0))
        #expect(try ListenAddress.parse("0.0.0.0:9464") == ListenAddress(host: "0.0.0.0", port: 9464))
        #expect(try ListenAddress.parse("localhost:80") == ListenAddress(host: "localhost", port: 80))
        #expect(try ListenAddress.parse("[::1]:9000") == ListenAddress(host: "::1", port: 9000))
        #expect(try ListenAddress.parse("metrics-0.whalesim.svc:9464").host == "metrics-0.whalesim.svc")
        #expect(try ListenAddress.parse("9464").isLoopback)
        #expect(try ListenAddress.parse("[::1]:9000").isLoopback)
        #expect(try !ListenAddress.parse("0.0.0.0:1").isLoopback)
        #expect(ListenAddress(host: "::1", port: 9).description == "[::1]:9")
    }

    @Test(arguments: [
        "", "host:", "host:abc", "127.0.0.1:65536", "::1:80", "[::1]80", "[::1", "a b:80", "host:-1",
        "host:8O", "http://host:80", "[zz]:80", "host:٣",
    ])
    func malformedFormsAreRefused(_ text: String) {
        #expect(throws: TelemetryListenError.self) { try ListenAddress.parse(text) }
        do {
            _ = try ListenAddress.parse(text)
        } catch {
            guard case .malformed(let given, let reason) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(given == text)
            #expect(!reason.isEmpty)
            #expect(error.exitCode == 64)
            #expect(error.description.contains("--listen"))
        }
    }
}
