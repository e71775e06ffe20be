/// How a GRDB app stores the values SQLite has no type for, read back by one rule per column:
/// a `UUID` is a 16-byte blob, a `Decimal` the text of a decimal number, a `Codable` value
/// JSON text (in a column GRDB declares `TEXT`). `query` (and `--sql`, the shell) print such
/// a column as the app's type when every value it stores follows the convention, `describe
/// --swift` declares it so, and `--where` compares decimals by value.
enum StoredConvention {
    /// A blob GRDB's `UUID` writes: 16 bytes.
    static func isUUID(_ bytes: UnsafeRawBufferPointer) -> Bool { bytes.count == 16 }

    /// Text that is a decimal number in JSON's syntax (`12.5`, `-3`, `1e3`; not `012`, `.5`,
    /// ` 1`), read exactly by `ExactNumber`.
    static func isDecimal(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        ExactNumber(bytes) != nil
    }

    /// SQL condition on a value `c` of a column, true when it follows the convention of
    /// `kind`: `.uuid` a 16-byte blob, `.json` JSON text of an object or array
    /// (`ResultKinds.containerFunction`).
    static func sqliteCondition(_ kind: OutputKind) -> (String) -> String {
        kind == .uuid
            ? { c in "typeof(\(c)) = 'blob' AND length(\(c)) = 16" }
            : { c in "\(ResultKinds.containerFunction)(\(c))" }
    }
}
