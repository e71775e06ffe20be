import ArgumentParser
import Foundation
import JSONSQLKit

extension ShellCatalog {
    /// The subcommands of `root` and their options, read from ArgumentParser's help dump.
    init(_ root: any ParsableCommand.Type) {
        self.init()
        guard let data = root._dumpHelp().data(using: .utf8),
            let dump = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let command = dump["command"] as? [String: Any],
            let subcommands = command["subcommands"] as? [[String: Any]]
        else { return }
        for subcommand in subcommands {
            // The shell's commands work on its one database; copy takes two.
            guard let name = subcommand["commandName"] as? String, name != "shell", name != "copy"
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
