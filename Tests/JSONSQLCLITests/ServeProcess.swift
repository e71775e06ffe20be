import Foundation
import Testing

/// A `jsonsql serve` started by a test on a free port (`--port 0`), stopped with the object.
final class ServeProcess {
    let child: Child
    /// `http://127.0.0.1:PORT`.
    let base: String
    let port: UInt16
    /// What the server printed before it listened (the address line and the notes).
    let banner: String

    init(_ arguments: [String]) throws {
        child = try Child(
            CLI.binary, ["serve"] + arguments + ["--port", "0"], input: false)
        var printed = Data()
        let deadline = Date().addingTimeInterval(30)
        // The banner ends with "Ctrl-C stops".
        while !String(decoding: printed, as: UTF8.self).contains("Ctrl-C stops\n") {
            guard Date() < deadline else {
                throw CLI.CLIError(
                    "jsonsql serve printed no address: \(String(decoding: printed, as: UTF8.self))")
            }
            let chunk = child.stdout!.availableData
            if chunk.isEmpty {
                let error = String(decoding: child.stderr!.readDataToEndOfFile(), as: UTF8.self)
                throw CLI.CLIError("jsonsql serve ended: \(error)")
            }
            printed.append(chunk)
        }
        banner = String(decoding: printed, as: UTF8.self)
        guard let range = banner.range(of: #"http://[^/]+:(\d+)/"#, options: .regularExpression),
            let colon = banner[range].dropLast().lastIndex(of: ":"),
            let port = UInt16(banner[range].dropLast()[banner.index(after: colon)...])
        else { throw CLI.CLIError("no address in \(banner)") }
        self.port = port
        base = "http://127.0.0.1:\(port)"
    }

    deinit {
        kill(child.pid, SIGTERM)
        _ = child.wait()
    }

    /// The token the banner printed, if any.
    var printedToken: String? {
        guard let range = banner.range(of: #"token=[0-9a-zA-Z]+"#, options: .regularExpression)
        else { return nil }
        return String(banner[range].dropFirst(6))
    }

    /// Sends one request as raw bytes of a target (so that a test can send what no client
    /// library would: invalid UTF-8, `..`) and returns the answer.
    func request(
        _ target: String, method: String = "GET", host: String? = nil,
        headers: [String] = [], body: String = "", rawTarget: [UInt8]? = nil
    ) throws -> HTTPAnswer {
        try HTTPAnswer.send(
            port: port, method: method, target: rawTarget ?? Array(target.utf8),
            host: host ?? "127.0.0.1:\(port)", headers: headers, body: body)
    }
}

/// An HTTP/1.1 answer read off a socket: status, headers, body (chunks joined).
struct HTTPAnswer {
    var status: Int
    var headers: [String: String]
    var body: String

    static func send(
        port: UInt16, method: String, target: [UInt8], host: String, headers: [String],
        body: String
    ) throws -> HTTPAnswer {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw CLI.CLIError("socket: \(errno)") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw CLI.CLIError("connect: \(errno)") }
        var request =
            Array("\(method) ".utf8) + target + Array(" HTTP/1.1\r\nHost: \(host)\r\n".utf8)
        for header in headers { request += Array("\(header)\r\n".utf8) }
        request += Array(
            "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)".utf8)
        var sent = 0
        while sent < request.count {
            let n = request[sent...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            guard n > 0 else { break }
            sent += n
        }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = read(fd, &buffer, buffer.count)
            if n <= 0 { break }
            answer += buffer[0..<n]
        }
        guard let end = answer.firstRange(of: Array("\r\n\r\n".utf8)) else {
            throw CLI.CLIError("no HTTP answer: \(String(decoding: answer, as: UTF8.self))")
        }
        let head = String(decoding: answer[..<end.lowerBound], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        let status = Int(lines.removeFirst().split(separator: " ")[1]) ?? 0
        var fields: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].lowercased()] = line[line.index(after: colon)...]
                .trimmingCharacters(in: .whitespaces)
        }
        var content = Array(answer[end.upperBound...])
        if fields["transfer-encoding"] == "chunked" {
            var joined: [UInt8] = []
            var rest = content[...]
            while let line = rest.firstRange(of: Array("\r\n".utf8)),
                let size = Int(
                    String(decoding: rest[..<line.lowerBound], as: UTF8.self), radix: 16),
                size > 0
            {
                joined += rest[line.upperBound..<line.upperBound + size]
                rest = rest[(line.upperBound + size + 2)...]
            }
            content = joined
        }
        return HTTPAnswer(
            status: status, headers: fields, body: String(decoding: content, as: UTF8.self))
    }
}
