// A fault injector for jsonsql's tests, loaded with LD_PRELOAD: never part of jsonsql itself.
//
// It counts the I/O calls a process makes on files under one directory and makes the Nth of them
// fail, as SQLite's own tests do with their VFS shims (test_vfs.c, "ioerr" and "full" tests). The
// release binary links SQLite statically but the C library dynamically, and SQLite's unix VFS
// calls the C library through its table of system calls, so interposing the C library's symbols
// reaches every read and write SQLite makes, jsonsql's own (the input it reads, the draft it
// renames) and Foundation's, in debug and release builds alike.
//
// Environment:
//   JSONSQL_FAULT_DIR    the directory whose files (and the directory itself) are counted
//   JSONSQL_FAULT_KIND   eio | enospc | eintr | short: what the Nth call does (see `eligible`)
//   JSONSQL_FAULT_AT     N >= 1: the Nth eligible call fails, once; 0 (or unset): count only
//   JSONSQL_FAULT_REPORT a file that receives, at exit, the counts of every kind's eligible calls
//                        ("eio 123\nenospc 45\neintr 120\nshort 80\n") and the call that failed
//                        ("fired 17 pwrite64 /dir/db.sqlite-journal")
//   JSONSQL_FAULT_TRACE  a file that receives one line per counted call (for debugging a point)
//
// What is counted, on a descriptor opened by a path under the directory (open, openat, creat,
// and a duplicate of such a descriptor): read, pread, write, pwrite, fsync, fdatasync,
// ftruncate, fcntl's record locks (F_SETLK, F_SETLKW and the OFD forms) and flock; by path under
// the directory: open itself, rename, renameat, renameat2, link, unlink and unlinkat.
//   eio:    every counted call fails with EIO.
//   enospc: the calls that can run out of space fail with ENOSPC: write, pwrite, ftruncate,
//           fsync, fdatasync, open with O_CREAT, rename and link.
//   eintr:  the calls a signal can interrupt fail with EINTR: read, pread, write, pwrite, fsync,
//           fdatasync, ftruncate, fcntl, flock and open.
//   short:  read, pread, write and pwrite of more than one byte move only the first half.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

enum call_class { C_READ, C_WRITE, C_SYNC, C_TRUNCATE, C_LOCK, C_OPEN, C_CREATE, C_RENAME, C_UNLINK };
enum kind { K_EIO, K_ENOSPC, K_EINTR, K_SHORT, K_COUNT };
static const char *kind_names[K_COUNT] = {"eio", "enospc", "eintr", "short"};

static int eligible(enum kind kind, enum call_class class) {
    switch (kind) {
    case K_EIO: return 1;
    case K_ENOSPC:
        return class == C_WRITE || class == C_TRUNCATE || class == C_SYNC || class == C_CREATE || class == C_RENAME;
    case K_EINTR: return class != C_RENAME && class != C_UNLINK;
    case K_SHORT: return class == C_READ || class == C_WRITE;
    default: return 0;
    }
}

static char dir[PATH_MAX];
static size_t dir_length;
static int active;
static enum kind fault_kind = K_EIO;
static long fault_at;
static atomic_long counts[K_COUNT];
static atomic_int fired;
static char fired_line[PATH_MAX + 64];
static char report_path[PATH_MAX];
static int trace_fd = -1;

#define MAX_FD 65536
static atomic_uchar tracked[MAX_FD];

static ssize_t raw_write(int fd, const void *buffer, size_t count) { return syscall(SYS_write, fd, buffer, count); }

__attribute__((constructor)) static void start(void) {
    const char *d = getenv("JSONSQL_FAULT_DIR");
    if (!d || !*d || !realpath(d, dir)) return;
    dir_length = strlen(dir);
    while (dir_length > 1 && dir[dir_length - 1] == '/') dir[--dir_length] = 0;
    const char *k = getenv("JSONSQL_FAULT_KIND");
    for (int i = 0; k && i < K_COUNT; i++)
        if (strcmp(k, kind_names[i]) == 0) fault_kind = (enum kind)i;
    const char *n = getenv("JSONSQL_FAULT_AT");
    fault_at = n ? atol(n) : 0;
    const char *r = getenv("JSONSQL_FAULT_REPORT");
    if (r) snprintf(report_path, sizeof report_path, "%s", r);
    const char *t = getenv("JSONSQL_FAULT_TRACE");
    if (t) trace_fd = (int)syscall(SYS_open, t, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    // Descriptors this process inherited are not the files under the directory it opens.
    active = 1;
}

__attribute__((destructor)) static void finish(void) {
    if (!active || !report_path[0]) return;
    int fd = (int)syscall(SYS_open, report_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return;
    char text[PATH_MAX + 256];
    int length = 0;
    for (int i = 0; i < K_COUNT; i++)
        length += snprintf(text + length, sizeof text - length, "%s %ld\n", kind_names[i], atomic_load(&counts[i]));
    if (atomic_load(&fired)) length += snprintf(text + length, sizeof text - length, "fired %s\n", fired_line);
    raw_write(fd, text, (size_t)length);
    syscall(SYS_close, fd);
}

/// Whether an absolute or relative path names the directory or a file under it.
static int under(int at, const char *path) {
    if (!active || !path) return 0;
    char full[PATH_MAX * 2];
    if (path[0] == '/') {
        snprintf(full, sizeof full, "%s", path);
    } else {
        char base[PATH_MAX];
        if (at == AT_FDCWD) {
            if (!getcwd(base, sizeof base)) return 0;
        } else {
            char link[64];
            snprintf(link, sizeof link, "/proc/self/fd/%d", at);
            ssize_t n = readlink(link, base, sizeof base - 1);
            if (n < 0) return 0;
            base[n] = 0;
        }
        snprintf(full, sizeof full, "%s/%s", base, path);
    }
    if (strncmp(full, dir, dir_length) != 0) return 0;
    char next = full[dir_length];
    return next == 0 || next == '/' || dir_length == 1;
}

static int is_tracked(int fd) { return active && fd >= 0 && fd < MAX_FD && atomic_load(&tracked[fd]); }
static void set_tracked(int fd, int on) {
    if (fd >= 0 && fd < MAX_FD) atomic_store(&tracked[fd], (unsigned char)on);
}

/// Counts a call of `class`; returns 1 when this call is the one to fail.
static int count(enum call_class class, const char *name, int fd, const char *path) {
    int fail = 0;
    long mine = 0;
    for (int i = 0; i < K_COUNT; i++) {
        if (!eligible((enum kind)i, class)) continue;
        long n = atomic_fetch_add(&counts[i], 1) + 1;
        if (i == (int)fault_kind) {
            mine = n;
            if (fault_at > 0 && n == fault_at) fail = 1;
        }
    }
    if (fail) {
        char target[PATH_MAX];
        target[0] = 0;
        if (path) {
            snprintf(target, sizeof target, "%s", path);
        } else {
            char link[64];
            snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
            ssize_t n = readlink(link, target, sizeof target - 1);
            target[n < 0 ? 0 : n] = 0;
        }
        snprintf(fired_line, sizeof fired_line, "%ld %s %s", mine, name, target);
        atomic_store(&fired, 1);
    }
    if (trace_fd >= 0 && mine > 0) {
        char line[PATH_MAX + 64];
        char target[PATH_MAX];
        target[0] = 0;
        if (path) {
            snprintf(target, sizeof target, "%s", path);
        } else {
            char link[64];
            snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
            ssize_t n = readlink(link, target, sizeof target - 1);
            target[n < 0 ? 0 : n] = 0;
        }
        int length = snprintf(line, sizeof line, "%ld %s %s%s\n", mine, name, target, fail ? " FAIL" : "");
        raw_write(trace_fd, line, (size_t)length);
    }
    return fail;
}

static int fault_errno(void) {
    switch (fault_kind) {
    case K_ENOSPC: return ENOSPC;
    case K_EINTR: return EINTR;
    default: return EIO;
    }
}

#define REAL(name) \
    static __typeof__(name) *real_##name; \
    if (!real_##name) real_##name = (__typeof__(name) *)dlsym(RTLD_NEXT, #name)

// Opening.

static int opened(int fd, int at, const char *path) {
    if (fd >= 0) set_tracked(fd, under(at, path));
    return fd;
}

static int open_fails(int at, const char *path, int flags, const char *name) {
    if (!under(at, path)) return 0;
    if (count((flags & O_CREAT) ? C_CREATE : C_OPEN, name, -1, path)) {
        errno = fault_errno();
        return 1;
    }
    return 0;
}

static mode_t mode_of(int flags, va_list args) {
    return (flags & O_CREAT) || (flags & __O_TMPFILE) == __O_TMPFILE ? (mode_t)va_arg(args, int) : 0;
}

int open(const char *path, int flags, ...) {
    REAL(open);
    va_list args;
    va_start(args, flags);
    mode_t mode = mode_of(flags, args);
    va_end(args);
    if (open_fails(AT_FDCWD, path, flags, "open")) return -1;
    return opened(real_open(path, flags, mode), AT_FDCWD, path);
}

int open64(const char *path, int flags, ...) {
    REAL(open64);
    va_list args;
    va_start(args, flags);
    mode_t mode = mode_of(flags, args);
    va_end(args);
    if (open_fails(AT_FDCWD, path, flags, "open")) return -1;
    return opened(real_open64(path, flags, mode), AT_FDCWD, path);
}

int __open_2(const char *path, int flags) { return open(path, flags); }
int __open64_2(const char *path, int flags) { return open64(path, flags); }

int openat(int at, const char *path, int flags, ...) {
    REAL(openat);
    va_list args;
    va_start(args, flags);
    mode_t mode = mode_of(flags, args);
    va_end(args);
    if (open_fails(at, path, flags, "openat")) return -1;
    return opened(real_openat(at, path, flags, mode), at, path);
}

int openat64(int at, const char *path, int flags, ...) {
    REAL(openat64);
    va_list args;
    va_start(args, flags);
    mode_t mode = mode_of(flags, args);
    va_end(args);
    if (open_fails(at, path, flags, "openat")) return -1;
    return opened(real_openat64(at, path, flags, mode), at, path);
}

int __openat_2(int at, const char *path, int flags) { return openat(at, path, flags); }
int __openat64_2(int at, const char *path, int flags) { return openat64(at, path, flags); }

int creat(const char *path, mode_t mode) { return open(path, O_CREAT | O_WRONLY | O_TRUNC, mode); }
int creat64(const char *path, mode_t mode) { return open64(path, O_CREAT | O_WRONLY | O_TRUNC, mode); }

int close(int fd) {
    REAL(close);
    set_tracked(fd, 0);
    return real_close(fd);
}

int dup(int fd) {
    REAL(dup);
    int copy = real_dup(fd);
    if (copy >= 0) set_tracked(copy, is_tracked(fd));
    return copy;
}

int dup2(int fd, int to) {
    REAL(dup2);
    int copy = real_dup2(fd, to);
    if (copy >= 0) set_tracked(copy, is_tracked(fd));
    return copy;
}

// Reading and writing.

static size_t shortened(size_t count) { return count > 1 ? count / 2 : count; }

ssize_t read(int fd, void *buffer, size_t count_) {
    REAL(read);
    if (is_tracked(fd) && count(C_READ, "read", fd, NULL)) {
        if (fault_kind == K_SHORT) return real_read(fd, buffer, shortened(count_));
        errno = fault_errno();
        return -1;
    }
    return real_read(fd, buffer, count_);
}

ssize_t __read_chk(int fd, void *buffer, size_t count_, size_t size) {
    (void)size;
    return read(fd, buffer, count_);
}

ssize_t pread(int fd, void *buffer, size_t count_, off_t offset) {
    REAL(pread);
    if (is_tracked(fd) && count(C_READ, "pread", fd, NULL)) {
        if (fault_kind == K_SHORT) return real_pread(fd, buffer, shortened(count_), offset);
        errno = fault_errno();
        return -1;
    }
    return real_pread(fd, buffer, count_, offset);
}

ssize_t pread64(int fd, void *buffer, size_t count_, off64_t offset) {
    REAL(pread64);
    if (is_tracked(fd) && count(C_READ, "pread64", fd, NULL)) {
        if (fault_kind == K_SHORT) return real_pread64(fd, buffer, shortened(count_), offset);
        errno = fault_errno();
        return -1;
    }
    return real_pread64(fd, buffer, count_, offset);
}

ssize_t write(int fd, const void *buffer, size_t count_) {
    REAL(write);
    if (is_tracked(fd) && count(C_WRITE, "write", fd, NULL)) {
        if (fault_kind == K_SHORT) return real_write(fd, buffer, shortened(count_));
        errno = fault_errno();
        return -1;
    }
    return real_write(fd, buffer, count_);
}

ssize_t pwrite(int fd, const void *buffer, size_t count_, off_t offset) {
    REAL(pwrite);
    if (is_tracked(fd) && count(C_WRITE, "pwrite", fd, NULL)) {
        if (fault_kind == K_SHORT) return real_pwrite(fd, buffer, shortened(count_), offset);
        errno = fault_errno();
        return -1;
    }
    return real_pwrite(fd, buffer, count_, offset);
}

ssize_t pwrite64(int fd, const void *buffer, size_t count_, off64_t offset) {
    REAL(pwrite64);
    if (is_tracked(fd) && count(C_WRITE, "pwrite64", fd, NULL)) {
        if (fault_kind == K_SHORT) return real_pwrite64(fd, buffer, shortened(count_), offset);
        errno = fault_errno();
        return -1;
    }
    return real_pwrite64(fd, buffer, count_, offset);
}

// Syncing and truncating.

int fsync(int fd) {
    REAL(fsync);
    if (is_tracked(fd) && count(C_SYNC, "fsync", fd, NULL)) {
        errno = fault_errno();
        return -1;
    }
    return real_fsync(fd);
}

int fdatasync(int fd) {
    REAL(fdatasync);
    if (is_tracked(fd) && count(C_SYNC, "fdatasync", fd, NULL)) {
        errno = fault_errno();
        return -1;
    }
    return real_fdatasync(fd);
}

int ftruncate(int fd, off_t length) {
    REAL(ftruncate);
    if (is_tracked(fd) && count(C_TRUNCATE, "ftruncate", fd, NULL)) {
        errno = fault_errno();
        return -1;
    }
    return real_ftruncate(fd, length);
}

int ftruncate64(int fd, off64_t length) {
    REAL(ftruncate64);
    if (is_tracked(fd) && count(C_TRUNCATE, "ftruncate64", fd, NULL)) {
        errno = fault_errno();
        return -1;
    }
    return real_ftruncate64(fd, length);
}

// Locks.

static int is_lock(int command) {
    return command == F_SETLK || command == F_SETLKW || command == F_OFD_SETLK || command == F_OFD_SETLKW;
}

static int fcntl_common(int (*real)(int, int, ...), const char *name, int fd, int command, va_list args) {
    void *pointer = va_arg(args, void *);
    if (is_tracked(fd) && is_lock(command) && count(C_LOCK, name, fd, NULL)) {
        errno = fault_errno();
        return -1;
    }
    int result = real(fd, command, pointer);
    if (result >= 0 && (command == F_DUPFD || command == F_DUPFD_CLOEXEC)) set_tracked(result, is_tracked(fd));
    return result;
}

int fcntl(int fd, int command, ...) {
    REAL(fcntl);
    va_list args;
    va_start(args, command);
    int result = fcntl_common(real_fcntl, "fcntl", fd, command, args);
    va_end(args);
    return result;
}

int fcntl64(int fd, int command, ...) {
    REAL(fcntl64);
    va_list args;
    va_start(args, command);
    int result = fcntl_common(real_fcntl64, "fcntl64", fd, command, args);
    va_end(args);
    return result;
}

int flock(int fd, int operation) {
    REAL(flock);
    if (is_tracked(fd) && count(C_LOCK, "flock", fd, NULL)) {
        errno = fault_errno();
        return -1;
    }
    return real_flock(fd, operation);
}

// Names.

int rename(const char *from, const char *to) {
    REAL(rename);
    if ((under(AT_FDCWD, from) || under(AT_FDCWD, to)) && count(C_RENAME, "rename", -1, to)) {
        errno = fault_errno();
        return -1;
    }
    return real_rename(from, to);
}

int renameat(int at, const char *from, int to_at, const char *to) {
    REAL(renameat);
    if ((under(at, from) || under(to_at, to)) && count(C_RENAME, "renameat", -1, to)) {
        errno = fault_errno();
        return -1;
    }
    return real_renameat(at, from, to_at, to);
}

int renameat2(int at, const char *from, int to_at, const char *to, unsigned int flags) {
    REAL(renameat2);
    if ((under(at, from) || under(to_at, to)) && count(C_RENAME, "renameat2", -1, to)) {
        errno = fault_errno();
        return -1;
    }
    return real_renameat2(at, from, to_at, to, flags);
}

int link(const char *from, const char *to) {
    REAL(link);
    if ((under(AT_FDCWD, from) || under(AT_FDCWD, to)) && count(C_RENAME, "link", -1, to)) {
        errno = fault_errno();
        return -1;
    }
    return real_link(from, to);
}

int unlink(const char *path) {
    REAL(unlink);
    if (under(AT_FDCWD, path) && count(C_UNLINK, "unlink", -1, path)) {
        errno = fault_errno();
        return -1;
    }
    return real_unlink(path);
}

int unlinkat(int at, const char *path, int flags) {
    REAL(unlinkat);
    if (under(at, path) && count(C_UNLINK, "unlinkat", -1, path)) {
        errno = fault_errno();
        return -1;
    }
    return real_unlinkat(at, path, flags);
}
