/// A `CREATE TABLE` statement as SQLite keeps it in `sqlite_schema`, read by its tokens, and
/// the edits that rename the table or change a column's declared type.
///
/// Everything else in the text (comments, constraints, `DEFAULT` and `GENERATED` expressions,
/// `WITHOUT ROWID`, `STRICT`) is copied byte for byte.
struct CreateTableText {
    let text: SQLTokens
    /// The tokens naming the table, between `TABLE` and `(`.
    let name: Range<Int>
    /// The column definitions, in order, as token ranges; table constraints are left out.
    let columns: [Range<Int>]

    /// A replacement of the bytes `range` by `replacement`.
    struct Edit {
        var range: Range<Int>
        var replacement: String
    }

    /// Words that start a table constraint rather than a column definition.
    private static let tableConstraintWords: Set<String> = [
        "CONSTRAINT", "PRIMARY", "UNIQUE", "CHECK", "FOREIGN",
    ]
    /// Words that end a column's type: the start of its first constraint.
    private static let columnConstraintWords: Set<String> = [
        "CONSTRAINT", "PRIMARY", "NOT", "NULL", "UNIQUE", "CHECK", "DEFAULT", "COLLATE",
        "REFERENCES", "GENERATED", "AS",
    ]

    init(_ sql: String) throws {
        text = SQLTokens(sql)
        let text = text
        guard text.isWord(0, "CREATE"), text.isWord(1, "TABLE"),
            let open = text.tokens.indices.first(where: { text.isSymbol($0, "(") }), open > 2,
            let close = text.closing(open)
        else {
            throw JSONSQLError(
                "the table was not created with a column list; its types cannot be changed")
        }
        name = 2..<open
        columns = Array(
            text.items((open + 1)..<close).prefix { item in
                !item.isEmpty
                    && !(text.tokens[item.lowerBound].kind == .word
                        && Self.tableConstraintWords.contains(
                            text.text(item.lowerBound).uppercased()))
            })
    }

    /// The name that column definition `item` declares.
    func columnName(_ item: Range<Int>) -> String { text.name(item.lowerBound) }

    /// The statement with `edits` made; they must not overlap.
    func applying(_ edits: [Edit]) -> String {
        var bytes = text.bytes
        // From the end, so earlier offsets hold; at one offset a removal before an insertion.
        let ordered = edits.sorted {
            ($0.range.lowerBound, $0.range.upperBound) > ($1.range.lowerBound, $1.range.upperBound)
        }
        for edit in ordered {
            bytes.replaceSubrange(edit.range, with: Array(edit.replacement.utf8))
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Names the table `name` instead.
    func rename(to name: String) -> Edit {
        let tokens = text.tokens
        return Edit(
            range: tokens[self.name.lowerBound].range
                .lowerBound..<tokens[self.name.upperBound - 1].range.upperBound,
            replacement: SQLQuote.identifier(name))
    }

    /// Each `CHECK (...)` of the statement, its columns' and the table's, whose expression
    /// `rewrite` changes, written as it returns it.
    func rewritingChecks(_ rewrite: (String) throws -> String?) rethrows -> [Edit] {
        try text.tokens.indices.compactMap { i in
            guard text.isWord(i, "CHECK"), text.isSymbol(i + 1, "("),
                let close = text.closing(i + 1), close > i + 2
            else {
                return nil
            }
            let range =
                text.tokens[i + 2].range.lowerBound..<text.tokens[close - 1].range.upperBound
            return try rewrite(text.text(bytes: range)).map { Edit(range: range, replacement: $0) }
        }
    }

    /// Declares column definition `item` as `declared`, dropping the CHECK `oldCheck` and
    /// adding `newCheck` when the definition does not hold it yet.
    ///
    ///     "a" VARCHAR(10) /* note */ NOT NULL  →  "a" JSON TEXT /* note */ NOT NULL CHECK (...)
    func retype(_ item: Range<Int>, declared: String, oldCheck: String?, newCheck: String?)
        -> [Edit]
    {
        let tokens = text.tokens
        // The type: names (SQLite's `ids`) up to the first constraint, then an optional `(size)`.
        var typeEnd = item.lowerBound + 1
        while typeEnd < item.upperBound,
            [.word, .quotedName, .string].contains(tokens[typeEnd].kind),
            !(tokens[typeEnd].kind == .word
                && Self.columnConstraintWords.contains(text.text(typeEnd).uppercased()))
        {
            typeEnd += 1
        }
        if typeEnd > item.lowerBound + 1, typeEnd < item.upperBound, text.isSymbol(typeEnd, "("),
            let close = text.closing(typeEnd), close < item.upperBound
        {
            typeEnd = close + 1
        }
        let nameEnd = tokens[item.lowerBound].range.upperBound
        var edits = [
            Edit(
                range: nameEnd..<tokens[typeEnd - 1].range.upperBound,
                replacement: declared.isEmpty ? "" : " " + declared)
        ]
        let oldKeys = oldCheck.map { SQLTokens($0).keys(0..<SQLTokens($0).count) }
        let newKeys = newCheck.map { SQLTokens($0).keys(0..<SQLTokens($0).count) }
        var hasNew = false
        var depth = 0
        for i in typeEnd..<item.upperBound {
            if text.isSymbol(i, "(") { depth += 1 } else if text.isSymbol(i, ")") { depth -= 1 }
            guard depth == 0, text.isWord(i, "CHECK"), text.isSymbol(i + 1, "("),
                let close = text.closing(i + 1),
                close < item.upperBound
            else { continue }
            let keys = text.keys(i..<(close + 1))
            if keys == newKeys { hasNew = true }
            // A named constraint (`CONSTRAINT c CHECK ...`) is not one jsonsql wrote.
            if keys == oldKeys && oldKeys != newKeys && !text.isWord(i - 2, "CONSTRAINT") {
                edits.append(
                    Edit(
                        range: tokens[i - 1].range.upperBound..<tokens[close].range.upperBound,
                        replacement: ""))
            }
        }
        if let newCheck, !hasNew {
            let end = tokens[item.upperBound - 1].range.upperBound
            if end == edits[0].range.upperBound {
                // A definition that is its name alone (`c`): the type goes in the same place, so
                // the CHECK follows it in one edit (two insertions at one offset have no order).
                edits[0].replacement += " " + newCheck
            } else {
                edits.append(Edit(range: end..<end, replacement: " " + newCheck))
            }
        }
        return edits
    }
}
