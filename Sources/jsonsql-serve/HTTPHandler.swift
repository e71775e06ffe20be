import Foundation
import NIOCore
import NIOHTTP1

/// One HTTP connection: collects each request, runs it on a worker thread (`Server.respond`)
/// and lets the worker stream the answer (`Response`). Closing the connection stops the query
/// the request runs.
final class HTTPHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    /// A request body larger than this is refused (POST /TABLE/insert).
    static let maximumBody = 64 << 20

    let server: Server
    private var head: HTTPRequestHead?
    private var body: ByteBuffer?
    private var tooLarge = false
    private var current: Response?
    private static let workers = DispatchQueue(
        label: "jsonsql-serve.requests", attributes: .concurrent)

    init(server: Server) { self.server = server }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            current = nil
            body = nil
            tooLarge = false
        case .body(var part):
            if (body?.readableBytes ?? 0) + part.readableBytes > Self.maximumBody {
                tooLarge = true
            } else if body == nil {
                body = part
            } else {
                body!.writeBuffer(&part)
            }
        case .end:
            guard let head else { return }
            self.head = nil
            let response = Response(channel: context.channel, keepAlive: head.isKeepAlive)
            current = response
            let bytes = body.map { Array($0.readableBytesView) } ?? []
            body = nil
            if tooLarge {
                response.fail(413, "the request body is larger than \(Self.maximumBody >> 20) MiB")
                return
            }
            let server = self.server
            context.channel.setOption(ChannelOptions.autoRead, value: false).whenComplete { _ in }
            Self.workers.async {
                server.respond(to: head, body: bytes, with: response)
                response.channel.eventLoop.execute {
                    if response.channel.isActive {
                        response.channel.setOption(ChannelOptions.autoRead, value: true)
                            .whenComplete { _ in }
                    }
                }
            }
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        current?.clientGone()
        context.fireChannelInactive()
    }

    /// A request NIO's parser refused (bytes no URL may hold, a head past its size limit) is
    /// answered with a status and a message before the connection closes.
    func errorCaught(context: ChannelHandlerContext, error: Error) {
        if let error = error as? HTTPParserError, current == nil || current?.started == false {
            let (status, message): (HTTPResponseStatus, String) =
                switch error {
                case .headerOverflow:
                    (
                        .requestHeaderFieldsTooLarge,
                        "the request's URL and headers are longer than the server reads (80 KiB); where= takes at most \(Server.maximumFilters) filters: join conditions with and inside one"
                    )
                case .invalidURL, .invalidCharactersUsed, .strictModeAssertion:
                    (
                        .badRequest,
                        "the URL holds bytes no URL may hold: percent-encode them (as UTF-8)"
                    )
                default:
                    (.badRequest, "the request is not HTTP/1.1 as this server reads it (\(error))")
                }
            var head = HTTPResponseHead(version: .http1_1, status: status)
            let body = "{\"error\":\(JSONText.string(message))}\n"
            head.headers.add(name: "Content-Type", value: "application/json; charset=utf-8")
            head.headers.add(name: "Content-Length", value: String(body.utf8.count))
            head.headers.add(name: "Connection", value: "close")
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            context.write(
                wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: body)))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
                context.close(promise: nil)
            }
            return
        }
        current?.clientGone()
        context.close(promise: nil)
    }
}

/// The answer to one request, written from a worker thread: all at once with a length, or
/// streamed in chunks when it is large (`stream`). Each write waits until the socket took it,
/// so a slow client slows the query rather than filling memory, and a closed one ends it.
final class Response: @unchecked Sendable {
    let channel: Channel
    let keepAlive: Bool
    private let lock = NSLock()
    private var headSent = false
    private var gone = false
    private var onGone: (() -> Void)?

    /// Extra headers for the answer (cookies, the row limit).
    var headers: [(String, String)] = []

    init(channel: Channel, keepAlive: Bool) {
        self.channel = channel
        self.keepAlive = keepAlive
    }

    /// Whether the client closed the connection.
    var isGone: Bool { lock.withLock { gone } }

    /// Calls `action` when the client goes away while `body` runs.
    func whileRunning<T>(onGone action: @escaping () -> Void, _ body: () throws -> T) rethrows -> T
    {
        let already: Bool = lock.withLock {
            onGone = action
            return gone
        }
        if already { action() }
        defer { lock.withLock { onGone = nil } }
        return try body()
    }

    func clientGone() {
        let action: (() -> Void)? = lock.withLock {
            gone = true
            return onGone
        }
        action?()
    }

    private func makeHead(_ status: Int, _ contentType: String, length: Int?) -> HTTPResponseHead {
        var head = HTTPResponseHead(
            version: .http1_1, status: HTTPResponseStatus(statusCode: status))
        head.headers.add(name: "Content-Type", value: contentType)
        head.headers.add(name: "X-Content-Type-Options", value: "nosniff")
        head.headers.add(name: "Cache-Control", value: "no-store")
        head.headers.add(name: "Referrer-Policy", value: "no-referrer")
        for (name, value) in headers { head.headers.add(name: name, value: value) }
        if let length {
            head.headers.add(name: "Content-Length", value: String(length))
        } else {
            head.headers.add(name: "Transfer-Encoding", value: "chunked")
        }
        head.headers.add(name: "Connection", value: keepAlive ? "keep-alive" : "close")
        return head
    }

    /// Whether the head was sent: from then on the status cannot change.
    var started: Bool { lock.withLock { headSent } }

    /// Sends a whole answer.
    func send(_ status: Int, _ contentType: String, _ bytes: UnsafeRawBufferPointer) {
        guard !started else { return }
        lock.withLock { headSent = true }
        var buffer = channel.allocator.buffer(capacity: bytes.count)
        buffer.writeBytes(bytes)
        let head = makeHead(status, contentType, length: bytes.count)
        let channel = self.channel
        let keepAlive = self.keepAlive
        channel.eventLoop.execute {
            channel.write(HTTPServerResponsePart.head(head), promise: nil)
            channel.write(HTTPServerResponsePart.body(.byteBuffer(buffer)), promise: nil)
            channel.writeAndFlush(HTTPServerResponsePart.end(nil)).whenComplete { _ in
                if !keepAlive { channel.close(promise: nil) }
            }
        }
    }

    /// Sends a whole text answer.
    func send(_ status: Int, _ contentType: String, _ text: String) {
        var text = text
        text.withUTF8 { send(status, contentType, UnsafeRawBufferPointer($0)) }
    }

    /// A refusal or failure: JSON `{"error": ...}` for the API, text for the rest.
    func fail(_ status: Int, _ message: String, json: Bool = true) {
        if json {
            send(
                status, "application/json; charset=utf-8",
                "{\"error\":\(JSONText.string(message))}\n")
        } else {
            send(status, "text/plain; charset=utf-8", message + "\n")
        }
    }

    /// Sends part of a streamed answer (the head first, chunked); waits until the socket took
    /// it. Throws when the client went away.
    func stream(_ status: Int, _ contentType: String, _ bytes: UnsafeRawBufferPointer) throws {
        if isGone { throw ClientGone() }
        var buffer = channel.allocator.buffer(capacity: bytes.count)
        buffer.writeBytes(bytes)
        let head: HTTPResponseHead? = lock.withLock {
            if headSent { return nil }
            headSent = true
            return makeHead(status, contentType, length: nil)
        }
        if let head { channel.write(HTTPServerResponsePart.head(head), promise: nil) }
        do {
            try channel.writeAndFlush(HTTPServerResponsePart.body(.byteBuffer(buffer))).wait()
        } catch {
            throw ClientGone()
        }
    }

    /// Ends a streamed answer.
    func end() {
        let channel = self.channel
        let keepAlive = self.keepAlive
        channel.writeAndFlush(HTTPServerResponsePart.end(nil)).whenComplete { _ in
            if !keepAlive { channel.close(promise: nil) }
        }
    }

    /// Ends a streamed answer that failed midway: the connection closes without the last
    /// chunk, so the client sees a broken answer rather than a short one.
    func abort() {
        channel.close(promise: nil)
    }
}

/// The client closed the connection.
struct ClientGone: Error {}
