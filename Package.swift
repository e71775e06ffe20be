// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "jsonsql",
    // Synchronization's Atomic (KeptRecords' shared budget) is there from macOS 15.
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "jsonsql", targets: ["jsonsql"]),
        .executable(name: "jsonsql-serve", targets: ["jsonsql-serve"]),
        .library(name: "JSONSQLKit", targets: ["JSONSQLKit"]),
    ],
    // The command line's own dependency (ArgumentParser) is behind a trait, on by default: an
    // app that depends on JSONSQLKit with `traits: []` neither resolves nor fetches it
    // (docs/library.md says why a trait and not a package of its own).
    traits: [
        .trait(name: "CommandLine", description: "The jsonsql command's argument parsing"),
        .default(enabledTraits: ["CommandLine"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // jsonsql-serve's HTTP server (docs/serve.md says why NIO directly).
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // Test-only: the round-trip property test generates random documents with it.
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
    ],
    targets: [
        .target(
            name: "JSONSQLKit",
            dependencies: [
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                "CSQLiteConfig",
                "CLibPQ",
                "CJSONScan",
            ]
        ),
        // The validating scan of JSON strings and containers, in C for SSE2 (JSONScanner).
        .target(name: "CJSONScan"),
        .target(name: "CSQLiteConfig", linkerSettings: [.linkedLibrary("sqlite3")]),
        // GNU readline for the shell, opened on first use (libreadline8 at run time).
        .target(name: "CReadline", linkerSettings: [.linkedLibrary("dl")]),
        // libpq's declarations (libpq-dev); the library is opened on first use.
        .target(name: "CLibPQ", linkerSettings: [.linkedLibrary("dl")]),
        // The version, from the VERSION file (embedded at compile time).
        .target(name: "CVersion"),
        .executableTarget(
            name: "jsonsql",
            dependencies: [
                "JSONSQLKit",
                "CReadline",
                "CVersion", "ServeOptions",
                .product(
                    name: "ArgumentParser", package: "swift-argument-parser",
                    condition: .when(traits: ["CommandLine"])),
            ]
        ),
        // `serve`'s options, read by `jsonsql serve` (for --help and checks) and jsonsql-serve.
        .target(
            name: "ServeOptions",
            dependencies: [
                .product(
                    name: "ArgumentParser", package: "swift-argument-parser",
                    condition: .when(traits: ["CommandLine"]))
            ]
        ),
        // The web explorer and JSON API, a separate program so other commands never load NIO.
        .executableTarget(
            name: "jsonsql-serve",
            dependencies: [
                "JSONSQLKit", "ServeOptions",
                .product(
                    name: "NIOCore", package: "swift-nio", condition: .when(traits: ["CommandLine"])
                ),
                .product(
                    name: "NIOPosix", package: "swift-nio",
                    condition: .when(traits: ["CommandLine"])),
                .product(
                    name: "NIOHTTP1", package: "swift-nio",
                    condition: .when(traits: ["CommandLine"])),
                .product(
                    name: "ArgumentParser", package: "swift-argument-parser",
                    condition: .when(traits: ["CommandLine"])),
            ],
            // NIO's handlers hand work to worker threads by hand (locks, not actors).
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .testTarget(name: "JSONSQLKitTests", dependencies: ["JSONSQLKit"]),
        // The command line's own types in-process: its argument reading against ArgumentParser's.
        .testTarget(name: "jsonsqlTests", dependencies: ["jsonsql"]),
        .testTarget(
            name: "JSONSQLCLITests",
            dependencies: [
                "JSONSQLKit", .product(name: "PropertyBased", package: "swift-property-based"),
                // GRDB's own record API makes the databases a GRDB app would (ExistingDatabaseTests).
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
    ]
)
