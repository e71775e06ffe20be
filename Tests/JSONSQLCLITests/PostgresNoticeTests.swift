import Foundation
import Testing

/// What a PostgreSQL server says besides results (RAISE NOTICE, a WARNING) reaches the user as
/// a note in jsonsql's words, never as libpq's `WARNING:  ...` and `DETAIL:` lines.
@Suite("PostgreSQL notices", .enabled(if: PostgresServer.isInstalled, PostgresServer.skipReason))
struct PostgresNoticeTests {
    @Test("a NOTICE and a WARNING, with detail and hint, are one note each on standard error")
    func notes() throws {
        let url = try PostgresServer.freshSchema("notice")
        let sql = """
            DO $$ BEGIN
              RAISE NOTICE 'counted % rows', 3;
              RAISE WARNING 'careful: %', 'x' USING DETAIL = 'the detail', HINT = 'the hint';
            END $$
            """
        let result = try CLI.run(["query", url, "--sql", sql])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr
                == "note: the server says: counted 3 rows\nnote: the server warns: careful: x (the detail); the hint\n0 rows changed\n",
            "\(result.stderr)")
        #expect(
            !result.stderr.contains("WARNING:") && !result.stderr.contains("DETAIL:")
                && !result.stderr.contains("NOTICE:"))
        #expect(!result.stdout.contains("careful"))
    }

    @Test("in the shell too, and a line break in a message cannot start a line of its own")
    func shellNotes() throws {
        let url = try PostgresServer.freshSchema("notice")
        let result = try CLI.run(
            ["shell", url],
            stdin: "DO $$ BEGIN RAISE NOTICE E'two\\nlines'; END $$;\nSELECT 1 AS one;\n")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("note: the server says: two\\nlines\n"), "\(result.stderr)")
        #expect(result.stdout.contains("\"one\":1"), "\(result.stdout)")
    }
}
