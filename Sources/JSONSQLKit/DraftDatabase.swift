import CSQLiteConfig
import Foundation

/// The hidden file a new database is built in, next to where it belongs, until a write succeeds.
///
/// A command that creates `dir/db.sqlite` works in `dir/.db.sqlite.jsonsql-XXXXXX`, made with
/// `O_EXCL`, and moves it to `dir/db.sqlite` with an exclusive rename that never replaces a file
/// another process created meanwhile. On failure only the draft and its own `-journal`, `-wal`
/// and `-shm` are removed: jsonsql never deletes or truncates a path it did not create, and a
/// journal of the new database never lands beside `db.sqlite`.
///
/// The process that builds a draft holds an exclusive `flock` on it until the draft is moved or
/// removed, so a draft in use can be told from one a process killed with SIGKILL left. jsonsql
/// never removes the latter: it may not be the creator of that path.
///
/// Each draft is noted, from its creation until it is moved or removed, where a signal handler
/// finds it (`jsonsql_drafts_remove`): a signal that ends the process at once (a trap, SIGSEGV,
/// SIGQUIT) removes it first, where the executable asks for that
/// (`Interruption.removeDraftsOnFatalSignals`).
struct DraftDatabase {
    /// The temporary file.
    let path: String
    /// Where the database goes.
    let destination: String
    /// The lock that marks the draft as in use; released when the last copy of this value goes.
    private let lock: Lock

    /// The files SQLite may keep beside a database.
    static let companionSuffixes = ["-journal", "-wal", "-shm"]
    private static let letters = Array(
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")

    /// An open descriptor of the draft holding its `flock`. Closed only when no connection of
    /// this process has the file open: closing a descriptor drops every POSIX lock that the
    /// process holds on the file, SQLite's included.
    private final class Lock {
        private var fd: Int32
        /// The draft's slot among those a signal handler removes.
        let slot: Int32
        init(fd: Int32, slot: Int32) {
            self.fd = fd
            self.slot = slot
        }
        func release() {
            if fd >= 0 { close(fd) }
            fd = -1
        }
        deinit { release() }
    }

    /// The directory part of `destination` (with its slash, or empty) and the hidden name that
    /// drafts for it start with.
    private static func stem(for destination: String) throws -> (directory: String, prefix: String)
    {
        let slash = destination.lastIndex(of: "/")
        let directory = slash.map { String(destination[...$0]) } ?? ""
        let name = slash.map { String(destination[destination.index(after: $0)...]) } ?? destination
        guard !name.isEmpty else {
            throw JSONSQLError("cannot create \(destination): a database path must name a file")
        }
        // Room for the prefix and suffix within the usual 255-byte limit on a name.
        return (
            directory, "." + String(decoding: name.utf8.prefix(200), as: UTF8.self) + ".jsonsql-"
        )
    }

    /// Creates an empty draft file (an empty file is an empty SQLite database).
    init(for destination: String) throws {
        let (directory, prefix) = try Self.stem(for: destination)
        for _ in 0..<100 {
            let candidate =
                directory + prefix + String((0..<6).map { _ in Self.letters.randomElement()! })
            // 0644 before the umask, as SQLite creates database files.
            // Noted from its creation: a signal that ends the process removes it.
            var slot: Int32 = -1
            var fd = jsonsql_draft_open(candidate, &slot)
            if fd < 0 {
                // EINTR: a signal came first (unless it asks to stop, try again, under a new name).
                if errno != EEXIST && (errno != EINTR || Interruption.isRequested) {
                    throw Self.cannotCreate(destination, directory: directory, errno: errno)
                }
                continue
            }
            // Kept open while the command runs: never as standard output or error (closed when
            // jsonsql started, `>&-`), where a message would be written into the database.
            if fd <= STDERR_FILENO {
                let moved = fcntl(fd, F_DUPFD_CLOEXEC, STDERR_FILENO + 1)
                let failure = errno
                close(fd)
                guard moved >= 0 else {
                    unlink(candidate)
                    jsonsql_draft_forget(slot)
                    throw JSONSQLError(
                        "cannot create \(destination): \(String(cString: strerror(failure)))")
                }
                fd = moved
            }
            // Taken by another process between open and flock (a file system without flock
            // fails otherwise, and the draft goes unmarked).
            var info = stat()
            if flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK {
                jsonsql_draft_forget(slot)
                close(fd)
                continue
            }
            guard fstat(fd, &info) == 0, info.st_nlink > 0 else {
                jsonsql_draft_forget(slot)
                close(fd)
                continue
            }
            path = candidate
            self.destination = destination
            lock = Lock(fd: fd, slot: slot)
            return
        }
        throw JSONSQLError("cannot create \(destination): no free temporary name beside it")
    }

    /// Why a file cannot be created beside `destination`, with what to do: the directory is
    /// missing or cannot be written; else the system's reason.
    private static func cannotCreate(_ destination: String, directory: String, errno code: Int32)
        -> JSONSQLError
    {
        let folder =
            directory.isEmpty ? "." : String(directory.dropLast(directory.count > 1 ? 1 : 0))
        switch code {
        case ENOENT:
            return JSONSQLError(
                "cannot create \(destination): there is no directory \(folder); create it first (mkdir -p \(SQLQuote.shellWord(folder)))"
            )
        case EACCES, EPERM, EROFS:
            return JSONSQLError(
                "cannot create \(destination): the directory \(folder) cannot be written (\(String(cString: strerror(code)).lowercased())); choose a path in a directory you can write to"
            )
        default:
            return JSONSQLError("cannot create \(destination): \(String(cString: strerror(code)))")
        }
    }

    /// Whether a write reached the file: SQLite writes nothing to a new database before its
    /// first commit, and a rolled-back one is truncated back to nothing.
    var hasContent: Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_size > 0
    }

    /// Moves the draft, whose connection is closed, to its destination unless something is there.
    func publish() throws {
        for suffix in ["-journal", "-wal"] where Self.exists(path + suffix) {
            throw JSONSQLError(
                "cannot create \(destination): SQLite did not finish with its \(suffix) file; nothing was written"
            )
        }
        for suffix in ["-journal", "-wal"] where Self.exists(destination + suffix) {
            // SQLite would take it for the new database's own and roll the new database back.
            throw JSONSQLError(
                "cannot create \(destination): \(destination + suffix) is left from an earlier database there, and SQLite would roll the new database back with it; remove it if no database at \(destination) needs it, then run the command again. Nothing was written"
            )
        }
        guard jsonsql_rename_noreplace(path, destination) == 0 else {
            if errno == EEXIST {
                throw JSONSQLError(
                    "\(destination) was created by another process while this command was building it; that file is left as it is and nothing was written. Run the command again to work on it"
                )
            }
            throw JSONSQLError(
                "cannot create \(destination): \(String(cString: strerror(errno))); nothing was written"
            )
        }
        jsonsql_draft_forget(lock.slot)
        // The connection is closed (see above): nothing of this process holds a lock to lose.
        lock.release()
        // Make the new name durable, as SQLite does for the files it creates.
        let directory = destination.lastIndex(of: "/").map { String(destination[...$0]) } ?? "."
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd >= 0 {
            fsync(fd)
            close(fd)
        }
    }

    /// Removes the draft and the files SQLite kept beside it: files this process created.
    func discard() {
        for file in Self.companionSuffixes.map({ path + $0 }) + [path] { unlink(file) }
        jsonsql_draft_forget(lock.slot)
        lock.release()
    }

    static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }
}
