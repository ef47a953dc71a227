import Foundation
import Testing
import WhalesimTesting

/// The setup split (issue 20): running whalesim (`scripts/whalesim`, `scripts/setup`) needs the
/// Swift toolchain and five libraries (libcurl, libcrypto, json-c, SQLite, libfuse3 with its fuse3 mount helper), nothing the tests use. Proved with a PATH that holds
/// only the few programs the scripts call (bash, dirname, dpkg...) and a stand-in `swift` that
/// logs what it is asked and points at the whalesim these tests were built with (a release
/// build inside a test would take minutes): no python3, pip, chromium, curl, xmllint or apt-get
/// is there to be found, so a script that reached for one would fail.
@Suite struct ScriptsTests {
    static let root = ExternalProcess.packageRoot
    static let testTools = [
        "python3", "python", "pip", "pip3", "chromium", "chromium-browser", "xmllint", "curl", "apt-get", "sudo",
    ]

    /// A directory of symbolic links to `tools`, plus a logging `swift` stand-in.
    func limitedPath(_ tools: [String], dpkg: String? = nil) throws -> (bin: URL, log: URL) {
        let bin = try ExternalProcess.temporaryDirectory("limited-path")
        for tool in tools {
            let real = try #require(
                ExternalProcess.which(tool)
                    ?? ["/usr/bin/\(tool)", "/bin/\(tool)"].first { FileManager.default.isExecutableFile(atPath: $0) },
                "no \(tool) on this machine")
            try FileManager.default.createSymbolicLink(
                atPath: bin.appendingPathComponent(tool).path, withDestinationPath: real)
        }
        let log = bin.appendingPathComponent("calls.log")
        let binDirectory = ExternalProcess.whalesimBinary.deletingLastPathComponent().path
        try executable(
            bin.appendingPathComponent("swift"),
            """
            #!/bin/bash
            echo "swift $*" >> '\(log.path)'
            case " $* " in *" --show-bin-path "*) echo '\(binDirectory)' ;; esac
            """)
        if let dpkg {
            try executable(bin.appendingPathComponent("dpkg"), dpkg.replacingOccurrences(of: "LOG", with: log.path))
        }
        return (bin, log)
    }

    func executable(_ file: URL, _ text: String) throws {
        try (text + "\n").write(to: file, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: file.path)
    }

    func run(_ script: String, _ arguments: [String], path: URL) async throws -> ExternalProcess.Output {
        try await ExternalProcess.run(
            Self.root.appendingPathComponent(script).path, arguments,
            environment: ["PATH": path.path, "WHALESIM_TEST_PYTHON": ""], timeout: .seconds(120))
    }

    @Test func scriptsWhalesimHelpRunsWithoutAnyTestPackage() async throws {
        let (bin, log) = try limitedPath(["bash", "dirname", "id", "dpkg", "dpkg-query"])
        for tool in Self.testTools {
            #expect(!FileManager.default.fileExists(atPath: bin.appendingPathComponent(tool).path))
        }
        let output = try await run("scripts/whalesim", ["--help"], path: bin)
        #expect(output.status == 0, "\(output.stdout)\(output.stderr)")
        #expect(output.stdout.contains("USAGE: whalesim <subcommand>"), "\(output.stdout)")
        #expect(!output.stderr.contains("setup: installing"), "setup wanted to install: \(output.stderr)")
        let calls = try String(contentsOf: log, encoding: .utf8)
        // The first run's build: release, without the default trait (AsyncHTTPClient) and without debug info.
        #expect(
            calls.contains(
                "swift build -c release --disable-default-traits --scratch-path .build-whalesim --product whalesim"),
            "\(calls)")
    }

    /// What `scripts/setup` asks dpkg about: the running packages, and only them; `--tests` adds the test ones.
    @Test func setupChecksOnlyTheRunningPackages() async throws {
        let stub = """
            #!/bin/bash
            echo "dpkg $*" >> 'LOG'
            exit 0
            """
        let (bin, log) = try limitedPath(["bash", "dirname", "id"], dpkg: stub)
        let output = try await run("scripts/setup", [], path: bin)
        #expect(output.status == 0, "\(output.stdout)\(output.stderr)")
        #expect(
            output.stdout.isEmpty && output.stderr.isEmpty, "quiet when all is there: \(output.stdout)\(output.stderr)")
        let asked = try String(contentsOf: log, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(
            asked == [
                "dpkg -s libcurl4-openssl-dev", "dpkg -s libssl-dev", "dpkg -s libjson-c-dev", "dpkg -s zlib1g-dev",
                "dpkg -s libsqlite3-dev", "dpkg -s libfuse3-dev", "dpkg -s fuse3",
            ])

        let bad = try await run("scripts/setup", ["--browser"], path: bin)
        #expect(bad.status == 64 && bad.stderr.contains("usage: scripts/setup [--tests]"), "\(bad.stderr)")
    }
}
