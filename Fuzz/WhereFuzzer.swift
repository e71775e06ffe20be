// libFuzzer target for the --where parser and the path renderer: no input may crash them.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWhere(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard let filter = try? FilterParser.parse(text) else { return 0 }
    visit(filter)
    return 0
}

private func visit(_ filter: Filter) {
    switch filter {
    case .and(let a, let b), .or(let a, let b):
        visit(a)
        visit(b)
    case .not(let a):
        visit(a)
    case .predicate(let p):
        _ = try? p.path.sqlitePath()
        // A path prints back as text that parses to the same path.
        let reparsed = try? JSONPath(parsing: p.path.description)
        precondition(reparsed == p.path, "path \(p.path) does not round-trip")
    }
}
