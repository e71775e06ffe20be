import Foundation

/// Standard input a line at a time, so commands run as they arrive through a pipe. Lines are
/// bytes, as read: the shell refuses one that is not UTF-8 rather than change it. The wait for
/// the next line is a poll(), which a signal ends: Ctrl-C or SIGTERM while a pipe is quiet ends
/// the input, and the shell then stops as an interrupted script.
final class StandardInputLines: Sequence, IteratorProtocol {
    private var buffer: [UInt8] = []
    private var start = 0
    private var ended = false
    /// Why reading stopped before the end (standard input is a directory, memory ran out).
    private(set) var failure: String?

    func next() -> [UInt8]? {
        while true {
            if let newline = buffer[start...].firstIndex(of: UInt8(ascii: "\n")) {
                let line = Array(buffer[start..<newline])
                start = newline + 1
                return Self.withoutCR(line)
            }
            if ended {
                guard start < buffer.count else { return nil }
                let line = Array(buffer[start...])
                start = buffer.count
                return Self.withoutCR(line)
            }
            if start > 0 {
                buffer.removeFirst(start)
                start = 0
            }
            if Interruption.isRequested { return nil }
            switch Interruption.waitForInput(on: STDIN_FILENO) {
            case .timedOut, .signalled: continue
            case .ready, .failed: break
            }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = chunk.withUnsafeMutableBytes {
                read(STDIN_FILENO, $0.baseAddress, $0.count)
            }
            if count > 0 {
                buffer.append(contentsOf: chunk[..<count])
            } else if count == 0 {
                ended = true
            } else if errno != EINTR && errno != EAGAIN {
                // `<&-`: jsonsql leaves standard input failing as a closed one.
                failure =
                    errno == EBADF
                    ? "it is closed; pipe the commands in or give a script file"
                    : String(cString: strerror(errno))
                ended = true
            }
        }
    }

    private static func withoutCR(_ line: [UInt8]) -> [UInt8] {
        line.last == UInt8(ascii: "\r") ? Array(line.dropLast()) : line
    }
}
