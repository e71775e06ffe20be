/// Every failure the library reports: a message that says what went wrong and what to do next.
public struct JSONSQLError: Error, CustomStringConvertible, Sendable, Equatable {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
