import Foundation
import Testing

@testable import JSONSQLKit

/// Keys inside JSON values are stored in one spelling (`JSONText.canonicalKeys`), so a path
/// finds a key however the input escaped it. A key another program stored with a `\u` escape
/// is still a path describe lists that SQLite's JSON paths do not match: the missing-path note
/// says so rather than suggesting the very path that was typed.
@Suite("escaped keys in notes")
struct EscapedKeyNoteTests {
    @Test(
        "a key written with escapes is stored so that its path finds it, on insert, update --set --json and --patch"
    )
    func storedCanonically() throws {
        let db = try LibraryDatabase()
        try db.create("t", ["id:integer:pk", "o:json"])
        try db.insert(
            "t",
            #"{"id":1,"o":{"a\u0062":1,"q\"k":2,"\u0022x":3,"c\\d":4,"n\u000Al":5,"s":"\u0062"}}"#)
        try db.update("t", all: true, set: [#"o.j={"\u0063":6}"#], json: true)
        try db.update("t", all: true, patch: [#"o={"\u0064":7}"#])
        // Each key is written once as JSON must, and values keep their spelling.
        #expect(
            try db.query("t", select: ["o"])
                == #"{"o":{"ab":1,"q\u0022k":2,"\u0022x":3,"c\\d":4,"n\nl":5,"s":"\u0062","j":{"c":6},"d":7}}"#
                + "\n")
        for filter in [
            #"o.ab = 1"#, #"o."q\"k" = 2"#, #"o."\"x" = 3"#, #"o."c\\d" = 4"#, #"o."n\nl" = 5"#,
            "o.j.c = 6", "o.d = 7",
        ] {
            #expect(
                try db.query("t", where: [filter], select: ["id"]) == #"{"id":1}"# + "\n",
                "\(filter)")
        }
    }

    @Test(
        "a path whose key rows write with an escape is named as such, not as its own nearest path")
    func escapedKey() throws {
        let db = try LibraryDatabase()
        try db.create("t", ["o:json"])
        // Written by another program, escape and all.
        try db.execute(#"INSERT INTO t VALUES ('{"a\u0062":1,"c":2}')"#)
        var spec = QuerySpec(table: "t")
        spec.filters = [try FilterParser.parse("o.ab = 1")]
        #expect(try db.store.count(spec) == 0)
        #expect(
            try db.store.missingPathNotes(spec) == [
                #"note: no row has the path o.ab as SQLite reads paths: rows write a key on it with a \u escape, and SQLite's JSON paths match keys only as written (to SQLite, "a\u0062" is not the key ab); store the keys without escapes (jq -c . writes them so)"#
            ])
        // A typo still gets the nearest path.
        spec.filters = [try FilterParser.parse("o.cc = 1")]
        #expect(
            try db.store.missingPathNotes(spec) == [
                "note: no row has the path o.cc; did you mean 'o.c'?"
            ])
        // Nothing near: the keys of the deepest object on the path, as paths write them.
        try db.execute(#"INSERT INTO t VALUES ('{"c":{"first name":1,"n":{"x":2}}}')"#)
        spec.filters = [try FilterParser.parse("o.c.zzzzzz.q = 1")]
        #expect(
            try db.store.missingPathNotes(spec) == [
                #"note: no row has the path o.c.zzzzzz.q; the keys of o.c are "first name", n"#
            ])
    }
}
