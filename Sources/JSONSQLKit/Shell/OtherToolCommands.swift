/// The jsonsql commands that do what other tools' commands do, so that a command typed as the
/// sqlite3 shell, psql or sqlite-utils name it is answered with the one to type here: by the
/// command line (`jsonsql rows db.sqlite player`) and by the shell (`\dt`) alike.
package enum OtherToolCommands {
    /// The jsonsql command, as its words without the database, that does what the sqlite3 shell's
    /// `.tables`, `.schema [T]` and `.indexes [T]` or psql's `\\dt`, `\\d [T]` and `\\di [T]`
    /// given as `words` do; nil for any other words.
    package static func forShellCommand(_ words: [String]) -> [String]? {
        guard let first = words.first, words.count <= 2 else { return nil }
        let table = Array(words.dropFirst())
        switch first {
        case ".tables", "\\dt", "\\dt+": return table.isEmpty ? ["tables"] : nil
        case "\\d", "\\d+": return table.isEmpty ? ["tables"] : ["schema"] + table
        case ".schema": return ["schema"] + table
        case ".indexes", ".indices", "\\di", "\\di+": return ["indexes"] + table
        default: return nil
        }
    }

    /// The jsonsql command, and options after its arguments, that does what a command of the
    /// same arguments does in sqlite-utils (`rows`, `create-index`, `analyze-tables`, `views`,
    /// `upsert`) or as other tools name it (`ls`, `count`, `import`, `export`, `drop`, `rename`).
    package static func forToolCommand(_ word: String) -> (command: String, options: [String])? {
        switch word.lowercased() {
        case "rows", "find", "get", "export", "cat": return ("query", [])
        case "count": return ("query", ["--count"])
        case "create-index", "add-index": return ("index", [])
        case "analyze-tables", "analyze", "summarize", "inspect": return ("describe", [])
        case "views", "ls", "list", "show", "show-tables": return ("tables", [])
        case "upsert": return ("insert", ["--upsert"])
        case "import", "load": return ("insert", [])
        case "drop", "drop-view": return ("drop-table", [])
        case "rename": return ("rename-table", [])
        case "add-column": return ("alter", [])
        default: return nil
        }
    }
}
