/// A key found inside the JSON of a column, for completion.
public struct JSONKey: Sendable, Equatable {
    public var name: String
    /// Whether the value under the key is an object or array in some sampled row, so a `.` or
    /// `[` may follow it.
    public var isContainer: Bool

    public init(name: String, isContainer: Bool) {
        self.name = name
        self.isContainer = isContainer
    }
}
