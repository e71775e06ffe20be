import Foundation
import JSONSQLKit

/// `updated 3 rows in player`; with --dry-run the SQL on standard output and `would update ...`.
func report(_ result: EditResult, verb: String, preposition: String, dryRun: Bool) throws {
    let rows = "\(result.changed) \(result.changed == 1 ? "row" : "rows") \(preposition) \(TerminalText.name(result.table))"
    if dryRun {
        try OutputBuffer.writeAll(result.sql, to: STDOUT_FILENO)
        Diagnostics.print("would \(verb) \(rows); nothing changed (--dry-run)")
    } else {
        Diagnostics.print("\(verb)d \(rows)")
    }
}

/// After an edit that changed nothing, the `--where` paths no row has (most often a typo). Only
/// then: rows an edit changed may no longer hold the path.
func noteMissingPaths(_ result: EditResult, filters: [Filter], store: Store) throws {
    guard result.changed == 0, !filters.isEmpty else { return }
    var spec = QuerySpec(table: result.table)
    spec.filters = filters
    for note in try store.missingPathNotes(spec) { Diagnostics.note(note) }
}
