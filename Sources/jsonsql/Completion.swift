import ArgumentParser
import Foundation
import JSONSQLKit

extension CompletionKind {
    /// Tables, columns and JSON paths of the database already on the command line, for the
    /// completion scripts of `--generate-completion-script`.
    static var database: CompletionKind {
        .custom { words, index, prefix in
            DatabaseCompletion.complete(words: words, index: index, prefix: prefix)
        }
    }
}

/// The shell's completer (`ShellCompleter`) run on a command line: `jsonsql query db.sqlite
/// player --where 'addr` is the shell's `query player --where 'addr` on the store db.sqlite.
enum DatabaseCompletion {
    /// `words` are the shell's words as typed (quotes included), `words[index]` the one being
    /// completed and `prefix` its part before the cursor.
    static func complete(words: [String], index: Int, prefix: String) -> [String] {
        guard words.count > 2, index > 2, index < words.count + 1 else { return [] }
        let command = words[1]
        // The database: the first word after the command that is neither an option nor its value.
        var position = 2
        while position < index, words[position].hasPrefix("-") {
            position += words[position] == "--timeout" ? 2 : 1
        }
        guard position < index, let database = ShellWords.split(unquoting: words[position]),
            FileManager.default.fileExists(atPath: database),
            let store = try? Store(path: database, access: .read, busyTimeout: 1)
        else { return [] }
        defer { store.close() }
        let before = ([command] + words[(position + 1)..<index]).joined(separator: " ") + " "
        var word = ShellWords(scanning: prefix).partial ?? ""
        // `--select id,addr`: complete the path after the last comma, keep the ones before it.
        var head = ""
        if ["--select", "--order-by", "--group-by"].contains(words[index - 1]),
            let comma = word.lastIndex(of: ",")
        {
            head = String(word[...comma])
            word = String(word[word.index(after: comma)...])
        }
        let completer = ShellCompleter(store: store, catalog: ShellCatalog(JSONSQL.self))
        var completion = completer.complete(word: word, before: before)
        if completion.fileNames { return fileNames(word) }
        // A json column or an object key takes a `.` next: offer its keys rather than the name
        // alone, so the shell does not end the word with a space.
        if completion.candidates.count == 1 && !completion.appendSpace {
            let inside = completer.complete(word: completion.candidates[0] + ".", before: before)
            if !inside.candidates.isEmpty { completion = inside }
        }
        return completion.candidates.map { head + $0 }
    }

    /// Files and directories starting with `word`, for `insert`'s files.
    static func fileNames(_ word: String) -> [String] {
        let slash = word.lastIndex(of: "/")
        let directory = slash.map { String(word[...$0]) } ?? ""
        let entries =
            (try? FileManager.default.contentsOfDirectory(
                atPath: directory.isEmpty ? "." : directory)) ?? []
        return entries.map { directory + $0 }.filter {
            $0.hasPrefix(word) && !$0.hasPrefix(directory + ".")
        }.sorted()
    }
}

extension ShellWords {
    /// One word as the shell would read it, or nil when it is not one whole word.
    static func split(unquoting word: String) -> String? {
        guard let words = try? split(word), words.count == 1 else { return nil }
        return words[0]
    }
}
