// swift-tools-version:6.1
// A small GRDB app that embeds JSONSQLKit: see Sources/GRDBApp/main.swift.
import PackageDescription

let package = Package(
    name: "GRDBApp",
    platforms: [.macOS(.v15)],
    dependencies: [
        // jsonsql itself, by its place in the repository.
        .package(name: "jsonsql", path: "../..", traits: []),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        .executableTarget(
            name: "GRDBApp",
            dependencies: [
                .product(name: "JSONSQLKit", package: "jsonsql"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        )
    ]
)
