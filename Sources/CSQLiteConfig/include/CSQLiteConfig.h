#ifndef CSQLITECONFIG_H
#define CSQLITECONFIG_H

/// Puts SQLite in multi-thread mode (no mutex on each connection call) before it initializes.
/// Safe for jsonsql because GRDB never uses one connection from two threads at once.
/// Returns SQLite's result code; SQLITE_MISUSE once SQLite is already initialized.
int jsonsql_sqlite_config_multithread(void);

/// Makes the C allocator map every block of `bytes` or more on its own (glibc's
/// M_MMAP_THRESHOLD; nothing elsewhere), so that freeing one gives its memory back to the system
/// at once. Left alone, glibc raises that threshold each time such a block is freed and serves
/// later ones from its heaps, which keep what is freed. Returns 1 when set, 0 when not.
int jsonsql_map_large_blocks(long bytes);

/// Turns on SQLITE_DBCONFIG_DEFENSIVE for one connection: the shadow tables a virtual table
/// keeps (FTS5's `_data`, `_idx`, ...) cannot be written, altered or dropped by ordinary SQL,
/// nor can `PRAGMA writable_schema` or `journal_mode=OFF` be set. Returns SQLite's result code.
/// `db` is a `sqlite3 *` (void here, so that Swift sees SQLite's API only through GRDB).
int jsonsql_sqlite_defensive(void *db);

/// Turns on foreign key enforcement for one connection, as `PRAGMA foreign_keys = ON` does,
/// without compiling a statement. Returns SQLite's result code.
int jsonsql_sqlite_foreign_keys(void *db);

/// Turns on SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE for one connection: closing it never copies a WAL
/// database's `-wal` file into the database file (nor removes the `-wal`), so that a command
/// that only reads leaves the file as it found it. Returns SQLite's result code.
int jsonsql_sqlite_no_checkpoint_on_close(void *db);

/// Turns SQLITE_DBCONFIG_DQS_DDL and SQLITE_DBCONFIG_DQS_DML on (1) or off (0) for one
/// connection: whether SQL reads a double-quoted word that names no column as a string, as
/// SQLite reads a stored schema and as the sqlite3 shell lets other tools write it
/// (`CHECK (name != "")`, a trigger's `VALUES ("x")`). `was` (may be null) gets whether it
/// was on before; a negative `on` changes nothing. Returns SQLite's result code.
int jsonsql_sqlite_legacy_strings(void *db, int on, int *was);

/// The file descriptor SQLite reads and writes the connection's main database with, or -1
/// (an in-memory database, another VFS, a file renamed since). Never to be closed: POSIX locks
/// belong to the process, so closing any descriptor of the file gives up every lock SQLite holds
/// on it, and so would a second descriptor of jsonsql's own, opened and closed mid-transaction.
int jsonsql_sqlite_descriptor(void *db);

/// Reads up to `count` bytes from the start of a file into `buffer` through SQLite's default
/// VFS; returns how many (fewer when the file is shorter), or -1 when it cannot be read. SQLite's
/// VFS keeps a descriptor of a file it holds locks on open until they are released, where a
/// descriptor of jsonsql's own, once closed, would give them up (see jsonsql_sqlite_descriptor).
/// It initializes SQLite: a process that sets SQLite's options (jsonsql_sqlite_config_multithread)
/// does so first.
int jsonsql_read_file_start(const char *path, unsigned char *buffer, int count);

/// Renames `from` to `to` unless `to` exists, atomically: 0, or -1 with errno (EEXIST when `to`
/// exists). Falls back to link(2) and unlink(2) where the file system has no exclusive rename.
int jsonsql_rename_noreplace(const char *from, const char *to);

/// Starts writing the file's dirty pages to disk and returns without waiting for them
/// (sync_file_range with SYNC_FILE_RANGE_WRITE on Linux; nothing elsewhere). It changes no
/// guarantee: the kernel may write those pages at any time; a later fsync just finds less to do.
int jsonsql_start_writeback(int fd);

/// Asks the kernel to drop the file's cached pages in [0, end) that are already on disk
/// (posix_fadvise POSIX_FADV_DONTNEED; nothing elsewhere). Dirty pages stay; nothing is lost.
int jsonsql_drop_cached(int fd, long long end);

/// Notes a draft database file this process created (`DraftDatabase`), for
/// jsonsql_drafts_remove. Returns its slot for jsonsql_draft_forget, or -1 when all are taken.
int jsonsql_draft_note(const char *path);

/// Creates the draft at `path` (open with O_CREAT | O_EXCL) and notes it, with the signals that
/// end the process held back in between. Returns the descriptor, or -1 with errno; `slot` is
/// the note's, for jsonsql_draft_forget.
int jsonsql_draft_open(const char *path, int *slot);

/// Forgets a draft once it is moved into place or removed.
void jsonsql_draft_forget(int slot);

/// Removes every draft noted and not forgotten, with the `-journal`, `-wal` and `-shm` files
/// SQLite keeps beside it. Async-signal-safe: only unlink(2), on paths copied before.
void jsonsql_drafts_remove(void);

/// For signals that end the process at once (a trap, SIGSEGV, SIGABRT, SIGQUIT, SIGALRM, SIGPIPE, ...):
/// removes the drafts first, then lets the signal take its course as before (the action that was
/// in place, such as Swift's backtracer, or the default). Signals that are ignored stay ignored.
void jsonsql_drafts_remove_on_fatal_signals(void);

/// Requests a stop for `signal` (nonzero): sets the interruption flag, a lock-free atomic, so
/// async-signal-safe and safe to read from any thread meanwhile.
void jsonsql_interruption_request(int signal);

/// The signal the stop was last requested for, or 0 when none is.
int jsonsql_interruption_signal(void);

/// Clears the interruption flag and returns the signal it held (0 when none), in one step.
int jsonsql_interruption_clear(void);
#endif
