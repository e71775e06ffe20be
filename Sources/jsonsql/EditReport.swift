import Foundation
import JSONSQLKit

/// `updated 3 rows in player`; with --dry-run the SQL on standard output and `would update ...`.
func report(_ result: EditResult, verb: String, preposition: String, dryRun: Bool) throws {
    var rows =
        "\(result.changed) \(result.changed == 1 ? "row" : "rows") \(preposition) \(TerminalText.name(result.table))"
    // Rows that on-delete actions and triggers changed too: a cascade deletes rows of other tables.
    if result.alsoChanged > 0 {
        let more = "\(result.alsoChanged) more \(result.alsoChanged == 1 ? "row" : "rows")"
        rows +=
            ", and foreign key actions and triggers \(dryRun ? "would change" : "changed") \(more)"
    }
    if dryRun {
        try OutputBuffer.writeAll(result.sql, to: STDOUT_FILENO)
        Diagnostics.print("would \(verb) \(rows); nothing changed (--dry-run)")
    } else {
        Diagnostics.print("\(verb)d \(rows)")
    }
}

/// `inserted 1 row into player, updated 2 rows`: what became of the records, each kind named
/// only when some records went that way (`--upsert` updates, `--replace` replaces, `--ignore`
/// skips). --ignore skips a duplicate key, and as SQLite's OR IGNORE also a NULL or value a NOT
/// NULL or CHECK constraint refuses: the count does not say "duplicates".
func insertReport(_ result: InsertResult) -> String {
    func rows(_ count: Int, _ noun: String = "row") -> String {
        "\(count) \(noun)\(count == 1 ? "" : "s")"
    }
    var message = "inserted \(rows(result.inserted)) into \(TerminalText.name(result.table))"
    if result.updated > 0 { message += ", updated \(rows(result.updated))" }
    if result.replaced > 0 { message += ", replaced \(rows(result.replaced))" }
    if result.skipped > 0 { message += ", skipped \(rows(result.skipped, "record"))" }
    // An empty input (a script's empty result piped in) is no error, but said: it is most often
    // not what was meant.
    if result.records == 0 { message += ": the input holds no records" }
    return message
}

/// After an edit that changed nothing, the `--where` paths no row has (most often a typo). Only
/// then: rows an edit changed may no longer hold the path.
func noteMissingPaths(_ result: EditResult, filters: [Filter], store: Store) throws {
    guard result.changed == 0, !filters.isEmpty else { return }
    var spec = QuerySpec(table: result.table)
    spec.filters = filters
    for note in try store.missingPathNotes(spec) { Diagnostics.note(note) }
}
