/// A key found inside the JSON of a column, for completion.
package struct JSONKey: Sendable, Equatable {
    package var name: String
    /// Whether the value under the key is an object or array in some sampled row, so a `.` or
    /// `[` may follow it.
    package var isContainer: Bool

    package init(name: String, isContainer: Bool) {
        self.name = name
        self.isContainer = isContainer
    }
}
