// swift-tools-version:6.1
// A consumer of JSONSQLKit on SQLite only: it builds without libpq's headers and without
// resolving swift-argument-parser (the command line's dependency, not the library's).
import PackageDescription

let package = Package(
    name: "SQLiteOnly",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "jsonsql", path: "../..", traits: [])
    ],
    targets: [
        .executableTarget(
            name: "SQLiteOnly",
            dependencies: [.product(name: "JSONSQLKit", package: "jsonsql")]
        )
    ]
)
