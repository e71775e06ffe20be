import Foundation

extension ShellCatalog {
    /// The subcommands of a command line and their options, read from the JSON that
    /// swift-argument-parser prints for `--experimental-dump-help`: the command line's own
    /// definitions, so the shell never falls out of step with its parser. Subcommands in the
    /// order the dump lists them; an option's `allValues` become its values. Empty when `dump`
    /// is not such JSON.
    ///
    ///     {"command": {"subcommands": [{"commandName": "query", "arguments": [
    ///         {"kind": "option", "names": [{"kind": "long", "name": "where"}]}]}]}}
    package init(helpDump dump: String) {
        self.init()
        guard let data = dump.data(using: .utf8),
            let dump = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let command = dump["command"] as? [String: Any],
            let subcommands = command["subcommands"] as? [[String: Any]]
        else { return }
        for subcommand in subcommands {
            // The shell's commands work on its one database; copy takes two; serve never returns.
            guard let name = subcommand["commandName"] as? String, name != "shell", name != "copy",
                name != "serve"
            else { continue }
            commands.append(name)
            var options: [Option] = []
            for argument in subcommand["arguments"] as? [[String: Any]] ?? [] {
                let kind = argument["kind"] as? String
                guard kind == "option" || kind == "flag" else { continue }
                let names = (argument["names"] as? [[String: Any]] ?? []).compactMap {
                    name -> String? in
                    guard let text = name["name"] as? String else { return nil }
                    return (name["kind"] as? String == "long" ? "--" : "-") + text
                }
                if names.contains("--version") { continue }
                options.append(
                    Option(
                        names: names, takesValue: kind == "option",
                        values: argument["allValues"] as? [String] ?? []))
            }
            self.options[name] = options
        }
    }
}
