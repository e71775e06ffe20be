import Foundation

// libFuzzer target for the JSON input reader: any bytes are either records or a clean error,
// with small read chunks so records straddle buffer refills.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzReader(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    // A pipe holds 64 KiB without a reader, more than any input this target is given.
    guard size < 60_000 else { return 0 }
    var ends: [Int32] = [0, 0]
    precondition(pipe(&ends) == 0)
    precondition(write(ends[1], data, size) == size)
    close(ends[1])
    let fd = ends[0]
    defer { close(fd) }
    let reader = RecordReader(source: InputSource(name: "fuzz", fd: fd, size: Int64(size)), chunkSize: 16)
    var fields: [JSONField] = []
    var scratch: [UInt8] = []
    do {
        while let position = try reader.next(into: &fields) {
            precondition(position.start <= position.end)
            for field in fields {
                precondition(field.start <= field.end && field.keyStart <= field.keyEnd)
                switch field.kind {
                case .string where field.escaped:
                    try? JSONText.decodeString(reader.bytes, field.start, field.end, into: &scratch)
                case .object, .array:
                    JSONText.minify(reader.bytes, field.start, field.end, into: &scratch)
                    // What the scanner accepted and minify wrote is compact, valid JSON.
                    let validity = scratch.withUnsafeBufferPointer { JSONEncoding.validate($0) }
                    precondition(validity == .compact, "minified value is not compact JSON")
                default:
                    break
                }
            }
        }
    } catch {
        precondition(error is JSONSQLError, "unexpected error \(error)")
    }
    return 0
}
