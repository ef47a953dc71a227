// swift-tools-version:6.1
// whalesim: a headless integration and simulation harness for real-time collaborative CRM apps.
//
// Dependencies point one way (docs/whats-here.md):
//   WhaleOT ← WhaleProtocol ← WhaleSim ← WhalesimCLI
//   WhaleReports ← WhalesimCLI   (reads run directories from disk; no WhaleSim types)
//   SalesforceFake ← WhalesimLive ← WhalesimCLI   (CJSONC: json-c, for bench json only)
// Only WhalesimLive opens sockets.
import PackageDescription

let package = Package(
    name: "whalesim",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "whalesim", targets: ["WhalesimCLI"]),
        .library(name: "WhaleOT", targets: ["WhaleOT"]),
        .library(name: "WhaleProtocol", targets: ["WhaleProtocol"]),
        .library(name: "WhaleSim", targets: ["WhaleSim"]),
        .library(name: "WhaleReports", targets: ["WhaleReports"]),
        .library(name: "SalesforceFake", targets: ["SalesforceFake"]),
        .library(name: "WhalesimLive", targets: ["WhalesimLive"]),
        .library(name: "WhalesimTesting", targets: ["WhalesimTesting"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        // OT core: operations over Unicode scalars, transform, compose, cursors, documents. No I/O, no dependencies.
        .target(name: "WhaleOT"),
        // The Whaler wire protocol and whalesim's extensions, sans-I/O state machines.
        .target(name: "WhaleProtocol", dependencies: ["WhaleOT"]),
        // Deterministic simulation: seeded RNG, virtual clock, simulated network, workloads, checkers, shrinker.
        .target(name: "WhaleSim", dependencies: ["WhaleOT", "WhaleProtocol", .product(name: "Yams", package: "Yams")]),
        // Run directory (run.json, history.jsonl) → report.html, junit.xml, summary.json; run comparison. Files only.
        .target(name: "WhaleReports"),
        // The fake Salesforce's logic: SOQL engine, org fixtures, REST/SOAP/OAuth request handling, sans-I/O.
        .target(name: "SalesforceFake", dependencies: [.product(name: "Crypto", package: "swift-crypto")]),
        // The live ring: the only target that opens sockets.
        .target(
            name: "WhalesimLive",
            dependencies: [
                "SalesforceFake",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // Test support shipped as a library: seeded generators, trace loading, fixtures paths.
        .target(name: "WhalesimTesting", dependencies: ["WhaleOT"]),
        // json-c (Debian libjson-c-dev), measured against Foundation's JSON by `whalesim bench json`.
        .systemLibrary(name: "CJSONC", path: "Sources/CJSONC", pkgConfig: "json-c", providers: [.apt(["libjson-c-dev"])]),
        .executableTarget(
            name: "WhalesimCLI",
            dependencies: [
                "WhaleOT", "WhaleProtocol", "WhaleSim", "WhaleReports", "SalesforceFake", "WhalesimLive", "WhalesimTesting", "CJSONC",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(name: "WhaleOTTests", dependencies: ["WhaleOT", "WhalesimTesting"]),
        .testTarget(name: "WhaleProtocolTests", dependencies: ["WhaleProtocol", "WhalesimTesting"]),
        .testTarget(name: "WhaleSimTests", dependencies: ["WhaleSim", "WhalesimTesting"]),
        .testTarget(name: "WhaleReportsTests", dependencies: ["WhaleReports", "WhalesimTesting", .product(name: "Yams", package: "Yams")], exclude: ["Fixtures"]),
        .testTarget(name: "SalesforceFakeTests", dependencies: ["SalesforceFake", "WhalesimTesting"]),
        .testTarget(name: "WhalesimLiveTests", dependencies: ["WhalesimLive", "SalesforceFake", "WhalesimTesting"]),
        .testTarget(name: "WhalesimCLITests", dependencies: ["WhalesimTesting"]),
    ]
)
