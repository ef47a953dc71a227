// swift-tools-version:6.1
// whalesim: a headless integration and simulation harness for real-time collaborative CRM apps.
//
// Dependencies point one way (docs/whats-here.md):
//   WhaleOT ← WhaleProtocol ← WhaleModel ← WhaleSim ← WhalesimCLI
//   WhaleCore ← WhaleSim, WhaleLoad, SalesforceFake, WhaleReports, WhaleConform, WhalesimTesting   (the one seeded generator, escaper and JUnit writer; no dependencies)
//   WhaleModel ← WhaleServer ← WhalesimCLI;  WhaleProtocol ← WhaleLoad ← WhalesimCLI   (CCurl: libcurl, for WhaleLoad's HTTP; CEpoll: glibc's epoll, its floor client)
//   WhaleServer, SalesforceFake, SalesforceHTTP ← WhaleEmbedded ← WhaleRun, WhaleConform, WhalesimCLI   (what runs beside a command)
//   WhaleSim, WhaleReports, WhaleLoad, WhaleServer, WhaleEmbedded, SalesforceHTTP, WhaleTelemetry ← WhaleRun ← WhalesimCLI   (the load runner; WhaleTelemetry: its live view)
//   WhaleReports ← WhalesimCLI   (reads run directories from disk; no WhaleSim types)
//   WhaleRecord ← WhaleSim, WhaleReports, WhaleRun, WhalesimCLI   (CZlib: zlib; the compact history file and packed histograms)
//   SalesforceFake ← SalesforceHTTP ← WhalesimCLI;  WhaleRun, WhaleSim, WhaleLoad, WhaleServer, WhaleEmbedded, WhaleTelemetry, SalesforceHTTP, CJSONC ← WhaleBench ← WhalesimCLI   (the benchmarks; CJSONC: json-c, for bench json only)
//   WhaleLazyFS ← WhalesimCLI   (CFuse3: libfuse3, for `whalesim lazyfs`; the runner starts it as a child process)
// Only the live ring (SalesforceHTTP, WhaleServer, WhaleLoad, WhaleRun, WhaleTelemetry, WhaleBench) opens sockets.
import PackageDescription

/// Targets whose code runs once per command (parsing options, printing, the conformance suite's steps), never
/// in a loop that a run or a benchmark times: not optimized even in a release build, which takes their share
/// out of the first run's build (docs/decisions/0057-cold-targets-unoptimized.md).
let coldInRelease: [SwiftSetting] = [.unsafeFlags(["-Onone"], .when(configuration: .release))]

let package = Package(
    name: "whalesim",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "whalesim", targets: ["WhalesimCLI"]),
        .library(name: "WhaleOT", targets: ["WhaleOT"]),
        .library(name: "WhaleProtocol", targets: ["WhaleProtocol"]),
        .library(name: "WhaleModel", targets: ["WhaleModel"]),
        .library(name: "WhaleSim", targets: ["WhaleSim"]),
        .library(name: "WhaleReports", targets: ["WhaleReports"]),
        .library(name: "WhaleRecord", targets: ["WhaleRecord"]),
        .library(name: "SalesforceFake", targets: ["SalesforceFake"]),
        .library(name: "SalesforceHTTP", targets: ["SalesforceHTTP"]),
        .library(name: "WhalesimTesting", targets: ["WhalesimTesting"]),
    ],
    // AsyncHTTPClient is built only with the default trait: `bench http` measures it against libcurl, nothing else
    // uses it, and scripts/whalesim's first run builds without it (docs/decisions/0055-first-run-build-without-boringssl.md).
    traits: [
        .trait(
            name: "BenchAsyncHTTPClient", description: "AsyncHTTPClient as a second executor for `whalesim bench http`"),
        .default(enabledTraits: ["BenchAsyncHTTPClient"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // Only for the tests' third-party websocket client (HummingbirdWSClient); nothing whalesim ships uses it.
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/GraphQLSwift/Graphiti", from: "3.1.0"),
        .package(url: "https://github.com/GraphQLSwift/GraphQL", from: "4.3.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
    ],
    targets: [
        // OT core: operations over Unicode scalars, transform, compose, cursors, documents. No I/O, no dependencies.
        .target(name: "WhaleOT", exclude: ["README.md"]),
        // Small pieces every layer shares, no dependencies: the one seeded generator, markup escaper and JUnit writer.
        .target(name: "WhaleCore", exclude: ["README.md"]),
        // The Whaler wire protocol and whalesim's extensions, sans-I/O state machines.
        .target(name: "WhaleProtocol", dependencies: ["WhaleOT"], exclude: ["README.md"]),
        // The Whaler model (organizations, accounts, contacts, tasks, assignments, tracking, pools), sans-I/O.
        .target(name: "WhaleModel", dependencies: ["WhaleProtocol"], exclude: ["README.md"]),
        // Deterministic simulation: seeded RNG, virtual clock, simulated network, workloads, checkers, shrinker.
        .target(
            name: "WhaleSim",
            dependencies: [
                "WhaleCore", "WhaleOT", "WhaleProtocol", "WhaleModel", "WhaleRecord",
                .product(name: "Yams", package: "Yams"),
            ], exclude: ["README.md"]),
        // The run record's compact forms: the history file (history.whr: shapes, interned names, varints, deflated)
        // read and written a line at a time, and packed HdrHistogram buckets. Files only.
        .target(name: "WhaleRecord", dependencies: ["CZlib"], exclude: ["README.md"]),
        // Recorded sessions (docs/sessions.md): the session file, secrets redacted, HTTP and websocket
        // streams read as they pass, HAR import, a session as a virtual user's steps. Files only.
        .target(name: "WhaleSession", dependencies: ["CJSONC"], exclude: ["README.md"]),
        // HMAC-SHA256, SHA-256, SHA-1 and a throwaway certificate authority on OpenSSL's libcrypto (Debian
        // libssl-dev), instead of swift-crypto and swift-certificates: their BoringSSL copy was a sixth of the
        // first run's build (docs/decisions/0055-first-run-build-without-boringssl.md).
        .target(name: "CLibcrypto", exclude: ["README.md"], linkerSettings: [.linkedLibrary("crypto")]),
        .target(name: "WhaleCrypto", dependencies: ["CLibcrypto", "CCrypt"], exclude: ["README.md"]),
        // libcrypt (Debian libxcrypt, through libc6-dev): bcrypt for the reference server's password hashes.
        .systemLibrary(name: "CCrypt", path: "Sources/CCrypt"),
        // TLS on the system's OpenSSL (libssl) as a NIO handler: the fake Salesforce's HTTPS, `wss://` and the
        // recorder's upstream, with no BoringSSL to compile (docs/decisions/0055-first-run-build-without-boringssl.md).
        .target(
            name: "CLibssl", exclude: ["README.md"], linkerSettings: [.linkedLibrary("ssl"), .linkedLibrary("crypto")]),
        .target(
            name: "WhaleTLS",
            dependencies: ["CLibssl", .product(name: "NIOCore", package: "swift-nio")],
            exclude: ["README.md"]),
        // SQLite (Debian libsqlite3-dev) for the reference server's storage, called directly: GRDB, which it
        // replaced, was a fourteenth of the first run's build (docs/decisions/0055-first-run-build-without-boringssl.md).
        .systemLibrary(
            name: "CSQLite", path: "Sources/CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // zlib (Debian zlib1g-dev) for WhaleRecord's deflate streams.
        .systemLibrary(name: "CZlib", path: "Sources/CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // Run directory (run.json, history.whr or history.jsonl) → report.html, junit.xml, summary.json; run comparison. Files only.
        .target(name: "WhaleReports", dependencies: ["WhaleCore", "WhaleRecord"], exclude: ["README.md"]),
        // The fake Salesforce's logic: SOQL engine, org fixtures, REST/SOAP/OAuth request handling, sans-I/O.
        .target(
            name: "SalesforceFake", dependencies: ["WhaleCore", "WhaleCrypto"],
            exclude: ["README.md"]),
        // The fake Salesforce's HTTP and HTTPS server (`fake-salesforce`, the embedded one): live ring, opens sockets.
        .target(
            name: "SalesforceHTTP",
            dependencies: [
                "SalesforceFake",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                "WhaleCrypto", "WhaleTLS",
            ], exclude: ["README.md"]),
        // The live reference server `whalesim serve`: REST login, GraphQL, the websocket, SQLite, on plain SwiftNIO
        // (docs/decisions/0058-reference-server-on-plain-nio.md). Opens sockets.
        .target(
            name: "WhaleServer",
            dependencies: [
                "WhaleOT", "WhaleProtocol", "WhaleModel", "CSQLite", "WhaleCrypto",
                .product(name: "Graphiti", package: "Graphiti"),
                .product(name: "GraphQL", package: "GraphQL"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ], exclude: ["README.md"]),
        // The live load runner: virtual clients on real sockets (websocket, and HTTP through libcurl or AsyncHTTPClient).
        .target(
            name: "WhaleLoad",
            dependencies: [
                "WhaleCore", "WhaleOT", "WhaleProtocol", "WhaleSession", "CCurl", "CEpoll", "WhaleTLS",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: .when(traits: ["BenchAsyncHTTPClient"])),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(
                    name: "AsyncHTTPClient", package: "async-http-client",
                    condition: .when(traits: ["BenchAsyncHTTPClient"])),
            ], exclude: ["README.md"]),
        // libcurl (Debian libcurl4-openssl-dev) with typed wrappers for its variadic setters; WhaleLoad's CurlMultiExecutor.
        .systemLibrary(
            name: "CCurl", path: "Sources/CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        // epoll and eventfd for WhaleLoad's floor client (`bench run --floor`); glibc's own headers.
        .systemLibrary(name: "CEpoll", path: "Sources/CEpoll"),
        // What a command runs beside itself: the embedded Whaler server (in process or a `whalesim serve` child),
        // the embedded fake Salesforce, the lazyfs mount, run cleanup on a second signal, the built-in fixtures.
        // Shared by the runner, conform, serve, fake-salesforce and fuzz, so those need not link the runner.
        .target(
            name: "WhaleEmbedded",
            dependencies: [
                "WhaleProtocol", "WhaleServer", "SalesforceFake", "SalesforceHTTP",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ], exclude: ["README.md"]),
        // The live load runner `whalesim run`: app-shaped virtual clients on real sockets, load profiles,
        // HdrHistogram metrics, network faults and server restarts in windows, the simulator's checkers on
        // the live history, thresholds, run records. Opens sockets (through WhaleLoad and the embedded servers).
        .target(
            name: "WhaleRun",
            dependencies: [
                "WhaleOT", "WhaleProtocol", "WhaleModel", "WhaleSim", "WhaleReports", "WhaleRecord", "WhaleLoad",
                "WhaleServer", "WhaleSession",
                "SalesforceFake", "SalesforceHTTP", "WhaleEmbedded", "WhaleTelemetry",
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ], exclude: ["README.md"]),
        // The conformance suite behind `whalesim conform`: named cases against a running server (live ring: opens sockets).
        .target(
            name: "WhaleConform",
            dependencies: [
                "WhaleCore", "WhaleOT", "WhaleProtocol", "WhaleLoad", "WhaleServer", "WhaleEmbedded",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ], exclude: ["README.md"], swiftSettings: coldInRelease),
        // The live view of a run (issue 46): metrics in the Prometheus text format and OpenMetrics, server-sent
        // events and a dashboard page, on a listening socket (live ring). Knows no run: the runner feeds it snapshots.
        .target(
            name: "WhaleTelemetry",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ], exclude: ["README.md"]),
        // Test support shipped as a library: seeded generators, trace loading, fixtures paths.
        .target(name: "WhalesimTesting", dependencies: ["WhaleCore", "WhaleOT"], exclude: ["README.md"]),
        // libfuse3 (Debian libfuse3-dev) for `whalesim lazyfs`, the power-loss filesystem.
        .systemLibrary(name: "CFuse3", path: "Sources/CFuse3", pkgConfig: "fuse3", providers: [.apt(["libfuse3-dev"])]),
        // `whalesim lazyfs`: a FUSE filesystem that keeps unsynced writes in memory and drops them on command.
        .target(name: "WhaleLazyFS", dependencies: ["CFuse3"], exclude: ["README.md"]),
        // json-c (Debian libjson-c-dev), measured against Foundation's JSON by `whalesim bench json`.
        .systemLibrary(
            name: "CJSONC", path: "Sources/CJSONC", pkgConfig: "json-c", providers: [.apt(["libjson-c-dev"])]),
        // The benchmarks' machinery behind `whalesim bench`: bare and floor clients, the raw baseline server,
        // the HTTP load generator, the JSON codecs compared, timings and the runner's CPU. The CLI parses and prints.
        .target(
            name: "WhaleBench",
            dependencies: [
                "WhaleOT", "WhaleProtocol", "WhaleLoad", "WhaleServer", "WhaleRun", "WhaleEmbedded", "SalesforceHTTP",
                "WhalesimTesting", "WhaleSim", "WhaleTelemetry", "SalesforceFake", "WhaleCore",
                "CJSONC",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ], exclude: ["README.md"]),
        .executableTarget(
            name: "WhalesimCLI",
            dependencies: [
                "WhaleCore", "WhaleOT", "WhaleProtocol", "WhaleSim", "WhaleReports", "WhaleRecord", "SalesforceFake",
                "SalesforceHTTP", "WhaleServer", "WhaleLoad", "WhaleRun", "WhaleEmbedded", "WhaleConform",
                "WhaleTelemetry", "WhaleBench", "WhalesimTesting", "CJSONC", "WhaleLazyFS", "WhaleSession",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ], exclude: ["README.md"], swiftSettings: coldInRelease),
        .testTarget(name: "WhaleOTTests", dependencies: ["WhaleOT", "WhalesimTesting"]),
        .testTarget(name: "WhaleCoreTests", dependencies: ["WhaleCore"]),
        .testTarget(name: "WhaleProtocolTests", dependencies: ["WhaleProtocol", "WhaleOT", "WhalesimTesting"]),
        .testTarget(name: "WhaleModelTests", dependencies: ["WhaleModel", "WhaleProtocol"]),
        .testTarget(
            name: "WhaleSimTests",
            dependencies: ["WhaleSim", "WhaleOT", "WhaleProtocol", "WhaleRecord", "WhalesimTesting"]),
        .testTarget(name: "WhaleRecordTests", dependencies: ["WhaleRecord", "WhalesimTesting"]),
        .testTarget(name: "WhaleSessionTests", dependencies: ["WhaleSession"]),
        .testTarget(
            name: "WhaleReportsTests",
            dependencies: ["WhaleReports", "WhaleRecord", "WhalesimTesting", .product(name: "Yams", package: "Yams")],
            exclude: ["Fixtures"]),
        .testTarget(name: "SalesforceFakeTests", dependencies: ["SalesforceFake", "WhalesimTesting"]),
        .testTarget(
            name: "SalesforceHTTPTests", dependencies: ["SalesforceHTTP", "SalesforceFake", "WhalesimTesting"]),
        .testTarget(name: "WhaleLazyFSTests", dependencies: ["WhaleLazyFS", "WhalesimTesting"]),
        .testTarget(name: "WhaleEmbeddedTests", dependencies: ["WhaleEmbedded"]),
        .testTarget(name: "WhalesimCLITests", dependencies: ["WhalesimTesting", "WhaleRecord"]),
        .testTarget(
            name: "WhaleRunTests",
            dependencies: [
                "WhaleRun", "WhaleServer", "WhaleLoad", "WhaleSim", "WhaleReports", "WhaleProtocol", "WhaleModel",
                "WhalesimTesting",
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]),
        .testTarget(name: "WhaleConformTests", dependencies: ["WhaleConform", "WhaleProtocol", "WhalesimTesting"]),
        .testTarget(
            name: "WhaleTelemetryTests",
            dependencies: [
                "WhaleTelemetry", "WhalesimTesting", .product(name: "Yams", package: "Yams"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]),
        .testTarget(
            name: "WhaleLoadHTTPTests",
            dependencies: [
                "WhaleLoad", "SalesforceHTTP", "SalesforceFake", "WhalesimTesting",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]),
        .testTarget(
            name: "WhaleLoadSocketTests",
            dependencies: [
                "WhaleLoad", "WhaleCrypto", "WhaleTLS",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "WhaleLoadProxyTests",
            dependencies: [
                "WhaleLoad", "WhaleServer", "WhaleBench", "WhalesimTesting",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "WhaleServerTests",
            dependencies: [
                "WhaleServer", "WhaleLoad", "WhaleProtocol", "WhaleModel", "WhaleOT", "WhalesimTesting", "WhaleCrypto",
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "GraphQL", package: "GraphQL"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
    ]
)
