import ArgumentParser
import JSONSQLKit

extension ShellCatalog {
    /// The subcommands of `root` and their options, read from ArgumentParser's help dump.
    init(_ root: any ParsableCommand.Type) {
        self.init(helpDump: root._dumpHelp())
    }
}
