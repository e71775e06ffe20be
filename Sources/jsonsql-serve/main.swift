import Foundation
import JSONSQLKit
import NIOCore
import NIOHTTP1
import NIOPosix
import ServeOptions

/// jsonsql-serve: the web explorer and JSON API that `jsonsql serve` runs (see docs/serve.md).
/// A program of its own, so that `query` and the other commands never load SwiftNIO.
setvbuf(stdout, nil, _IOLBF, 0)
signal(SIGPIPE, SIG_IGN)
Store.returnFreedMemoryForThisProcess()
var options = ServeOptions.parseOrExit()
if options.token == nil, let token = getenv(ServeOptions.tokenVariable) {
    options.token = String(cString: token)
    unsetenv(ServeOptions.tokenVariable)
}
if !options.isLoopback && options.token == nil {
    var bytes = [UInt8](repeating: 0, count: 24)
    for index in bytes.indices { bytes[index] = UInt8.random(in: 0...255) }
    options.token = bytes.map { String(format: "%02x", $0) }.joined()
}
let pool: StorePool
do {
    pool = try StorePool(options: options)
} catch {
    FileHandle.standardError.write(Data("jsonsql serve: \(error)\n".utf8))
    exit(1)
}
let server = Server(options: options, pool: pool)
let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
do {
    let channel = try ServerBootstrap(group: group)
        .serverChannelOption(ChannelOptions.backlog, value: 256)
        .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
        .childChannelInitializer { channel in
            channel.pipeline.configureHTTPServerPipeline(withErrorHandling: false).flatMap {
                channel.pipeline.addHandler(HTTPHandler(server: server))
            }
        }
        .childChannelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
        .bind(host: options.host, port: options.port).wait()
    let port = channel.localAddress?.port ?? options.port
    let shownHost = options.host.contains(":") ? "[\(options.host)]" : options.host
    var address = "http://\(shownHost):\(port)/"
    if let token = options.token { address += "?token=\(token)" }
    print("jsonsql serve: \(pool.displayName) at \(address)")
    if !options.isLoopback {
        print("every request must carry the token (?token=, or Authorization: Bearer TOKEN)")
    }
    print(
        options.write
            ? "writes allowed: POST /TABLE/insert" : "read-only (--write allows POST /TABLE/insert)"
    )
    print("Ctrl-C stops")
    try channel.closeFuture.wait()
} catch {
    FileHandle.standardError.write(
        Data(
            "jsonsql serve: cannot listen on \(options.host) port \(options.port): \(error)\n".utf8)
    )
    exit(1)
}
