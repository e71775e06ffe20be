/// A path whose text a text index holds: a column or a path into one, or the elements of an
/// array there and a path inside each (`payload.commits[].message`), whose texts are indexed
/// together as one.
package struct TextPath: Sendable, Hashable, CustomStringConvertible {
    /// The path itself, or the array whose elements are indexed.
    package var path: JSONPath
    /// The path inside each element of the array at `path` (empty for the elements
    /// themselves); nil when the path names one value.
    package var element: [JSONPath.Segment]?

    package init(path: JSONPath, element: [JSONPath.Segment]? = nil) {
        self.path = path
        self.element = element
    }

    /// `bio`, `payload.commits[].message`, `tags[]`: one `[]` at most, which stands for every
    /// element of the array before it.
    package init(parsing text: String) throws {
        let parts = text.components(separatedBy: "[]")
        guard parts.count <= 2 else {
            throw JSONSQLError(
                "\(TerminalText.excerpt(text)): a text index takes one [] in a path (the elements of one array)"
            )
        }
        let path = try JSONPath(parsing: parts[0])
        guard path.function == nil else {
            throw JSONSQLError("a text index holds text at paths, not \(path)")
        }
        self.path = path
        if parts.count == 2 {
            let rest = parts[1]
            if rest.isEmpty {
                element = []
            } else {
                guard rest.hasPrefix(".") || rest.hasPrefix("[") else {
                    throw JSONSQLError(
                        "expected . or the end after [] in \(TerminalText.excerpt(text))")
                }
                element = try JSONPath(parsing: "x" + rest).segments
            }
        }
    }

    /// The path as written: `payload.commits[].message`.
    package var description: String {
        guard let element else { return path.description }
        let inside = JSONPath(column: "x", segments: element).description.dropFirst()
        return "\(path)[]\(inside)"
    }
}
