/// A new table typed from its first records because its input is read once (standard input,
/// a pipe): what to do when a later value does not fit a column so typed. A table typed from
/// a file's every record never gets here.
struct SampledTypes {
    /// The database as commands take it.
    var database: String
    var table: String
    /// The columns as the first records typed them, with those `--alter` added after.
    var columns: [ColumnSpec]
    var primaryKey: [String]
    /// How many records the types came from.
    var records: Int
    /// The input read once (`<stdin>`, a pipe's name), and whether it was the only input.
    var input: String
    var onlyInput: Bool

    /// Words to add to the refusal of a value of `column`, which a column of type `widened`
    /// would take:
    ///
    ///     ; the new table's types came from its first 1000 records, as standard input is read
    ///     once: create the table first with v as json (jsonsql create-table db.sqlite t
    ///     id:integer v:json), or give the input as a file, whose every record types a new table,
    ///     or load it so with --save (jsonsql query - --save NEW.sqlite)
    func advice(column: String, widened: ColumnType) -> String {
        let arguments =
            columns.map {
                SQLQuote.shellWord(
                    "\($0.name):\((SQLName.same($0.name, column) ? widened : $0.type).rawValue)")
            }
            + (primaryKey.isEmpty
                ? [] : ["--pk", SQLQuote.shellWord(primaryKey.joined(separator: ","))])
        let create =
            (["jsonsql create-table", SQLQuote.shellWord(database), SQLQuote.shellWord(table)]
            + arguments)
            .joined(separator: " ")
        let name = input == "<stdin>" ? "standard input" : input
        var text =
            "; the new table's types came from its first \(records) \(records == 1 ? "record" : "records"), as \(name) is read once: "
            + "create the table first with \(column) as \(widened.rawValue) (\(create)), or give the input as a file, whose every record types a new table"
        if onlyInput {
            text +=
                ", or load it so with --save (jsonsql query \(input == "<stdin>" ? "-" : SQLQuote.shellWord(input)) --save NEW.sqlite)"
        }
        return text
    }

    /// Words to add to the refusal of a value of `column`, which `--alter` added to `table` with
    /// the type of its first value, `type`, and which a column of type `widened` would take.
    static func alterAdvice(
        database: String, table: String, column: String, type: ColumnType, widened: ColumnType
    )
        -> String
    {
        let add = [
            "jsonsql alter", SQLQuote.shellWord(database), SQLQuote.shellWord(table), "--add",
            SQLQuote.shellWord("\(column):\(widened.rawValue)"),
        ].joined(separator: " ")
        return
            "; --alter added \(column) with the type of its first value, \(type.rawValue): add it first as \(widened.rawValue) (\(add)), then insert again"
    }
}
