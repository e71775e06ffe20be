import CReadline
import Foundation
import JSONSQLKit

/// Lines typed at a terminal, read with GNU readline: editing, history, Tab completion,
/// bracketed paste, and Ctrl-C that abandons the line.
///
/// readline's alternate interface is used (`rl_callback_read_char` after `poll`), so that a
/// Ctrl-C interrupts the wait for input and the shell, not readline, decides what happens.
final class ReadlineInput: ShellLineSource {
    /// The history file, or nil when history is not kept.
    let historyFile: String?
    /// Entries kept in memory: the last ones of the file, and those typed since.
    static let historySize: Int32 = 1000

    init(
        history: ShellHistory,
        completer: @escaping (_ word: String, _ before: String) -> ShellCompletion
    ) {
        if let note = history.note { Diagnostics.note(note) }
        historyFile = history.file
        ReadlineBridge.completer = completer
        // `$` and `.` stay inside words so that `'$.address.ci` completes as one path.
        jsonsql_rl_configure(
            strdup("jsonsql"), strdup(" \t\n\"'`@><=;|&{(,)"),
            ReadlineBridge.attemptCompletion, ReadlineBridge.displayMatches)
        _ = jsonsql_rl_variable_bind("enable-bracketed-paste", "on")

        jsonsql_rl_using_history()
        jsonsql_rl_stifle_history(Self.historySize)
        for entry in history.entries(last: Int(Self.historySize)) { jsonsql_rl_add_history(entry) }
        Interruption.installSignalHandler()
        jsonsql_rl_watch_resize()
    }

    /// Reads one line, showing `prompt`.
    func read(prompt: String) -> ShellLine {
        // SIGTERM or SIGHUP while a statement ran: the session ends.
        if Interruption.isRequested && Interruption.requestedSignal != SIGINT { return .end }
        Interruption.clear()
        ReadlineBridge.accepted = nil
        // A resize while a statement ran: the prompt is drawn at the new width.
        jsonsql_rl_apply_resize(0)
        jsonsql_rl_callback_handler_install(prompt, ReadlineBridge.acceptLine)
        while true {
            if let accepted = ReadlineBridge.accepted { return accepted }
            if Interruption.isRequested {
                guard Interruption.requestedSignal == SIGINT else {
                    // SIGTERM, SIGHUP: the terminal put back, and the session ends.
                    jsonsql_rl_abandon_line()
                    try? OutputBuffer.writeAll("\n", to: STDOUT_FILENO)
                    return .end
                }
                Interruption.clear()
                abandonLine()
                return .interrupted
            }
            switch Interruption.waitForInput(on: jsonsql_rl_input_fd()) {
            case .ready: jsonsql_rl_callback_read_char()
            case .timedOut: continue
            case .signalled: jsonsql_rl_apply_resize(1)
            case .failed:
                jsonsql_rl_callback_handler_remove()
                return .end
            }
        }
    }

    /// Drops what was typed, puts the terminal back and moves to a fresh line.
    private func abandonLine() {
        try? OutputBuffer.writeAll("^C", to: STDOUT_FILENO)
        jsonsql_rl_abandon_line()
        try? OutputBuffer.writeAll("\n", to: STDOUT_FILENO)
    }

    /// Adds a finished command to the history and appends it to the file at once, so a second
    /// shell or a crash loses nothing. The file is only ever appended to: shortening it would
    /// rewrite a file jsonsql may not have made (`JSONSQL_HISTORY` can name any), and readline
    /// does that through a new file that takes the old one's place, dropping its mode.
    func addHistory(_ entry: String) {
        jsonsql_rl_add_history(entry)
        if let historyFile { _ = jsonsql_rl_append_history(1, historyFile) }
    }
}

/// The C callbacks readline calls. They cannot capture context, so the one reader in the
/// process keeps its state here; it is only touched on the main thread.
enum ReadlineBridge {
    nonisolated(unsafe) static var accepted: ShellLine?
    nonisolated(unsafe) static var completer: ((String, String) -> ShellCompletion)?
    /// The completion last offered, whose matches readline then lists.
    nonisolated(unsafe) static var completion = ShellCompletion()

    static let acceptLine: @convention(c) (UnsafeMutablePointer<CChar>?) -> Void = { line in
        // Removing the handler here keeps readline from printing the prompt again at once.
        jsonsql_rl_callback_handler_remove()
        guard let line else {
            try? OutputBuffer.writeAll("\n", to: STDOUT_FILENO)
            ReadlineBridge.accepted = .end
            return
        }
        ReadlineBridge.accepted = .line(
            Array(UnsafeRawBufferPointer(start: line, count: strlen(line))))
        free(line)
    }

    static let attemptCompletion:
        @convention(c) (UnsafePointer<CChar>?, Int32, Int32) -> UnsafeMutablePointer<
            UnsafeMutablePointer<CChar>?
        >? = {
            text, start, _ in
            jsonsql_rl_set_completion_over(1)
            guard let text, let completer = ReadlineBridge.completer else { return nil }
            let word = String(cString: text)
            let before =
                jsonsql_rl_line_buffer().map { buffer in
                    String(
                        decoding: UnsafeBufferPointer(
                            start: UnsafeRawPointer(buffer).assumingMemoryBound(to: UInt8.self),
                            count: Int(start)), as: UTF8.self
                    )
                } ?? ""
            let completion = completer(word, before)
            if completion.fileNames {
                jsonsql_rl_set_completion_over(0)
                return nil
            }
            guard !completion.candidates.isEmpty else { return nil }
            if !completion.appendSpace { jsonsql_rl_suppress_append() }
            ReadlineBridge.completion = completion
            // readline's layout: the common prefix that replaces the word, the matches, NULL.
            let list = completion.replacements
            let matches = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(
                capacity: list.count + 1)
            for (index, candidate) in list.enumerated() { matches[index] = strdup(candidate) }
            matches[list.count] = nil
            return matches
        }

    /// Lists matches without the part the user has typed up to the last `.`.
    static let displayMatches:
        @convention(c) (UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, Int32, Int32) -> Void =
            {
                matches, count, longest in
                guard let matches else { return }
                let completion = ReadlineBridge.completion
                let shown = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(
                    capacity: Int(count) + 2)
                var width: Int32 = 0
                for index in 0...Int(count) {
                    let text = matches[index].map { String(cString: $0) } ?? ""
                    // The first is the prefix that replaces the word, shown whole.
                    let trimmed = index == 0 ? text : completion.shown(text)
                    shown[index] = strdup(trimmed)
                    if index > 0 { width = max(width, Int32(trimmed.utf8.count)) }
                }
                shown[Int(count) + 1] = nil
                jsonsql_rl_show_matches(
                    shown, count, completion.displayPrefixLength == 0 ? longest : width)
                for index in 0...Int(count) + 1 { free(shown[index]) }
                shown.deallocate()
            }
}
