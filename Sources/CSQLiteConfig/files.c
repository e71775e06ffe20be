#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include "CSQLiteConfig.h"

// renameat2 needs _GNU_SOURCE, which Swift's Glibc module does not define.
int jsonsql_rename_noreplace(const char *from, const char *to) {
#if defined(__APPLE__)
    if (renamex_np(from, to, RENAME_EXCL) == 0) return 0;
    if (errno != ENOTSUP) return -1;
#elif defined(__linux__) && defined(RENAME_NOREPLACE)
    if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0) return 0;
    if (errno != EINVAL && errno != ENOSYS) return -1;
#endif
    // File systems without an exclusive rename: link(2) also fails when `to` exists.
    if (link(from, to) != 0) return -1;
    unlink(from);
    return 0;
}

// sync_file_range needs _GNU_SOURCE too.
int jsonsql_start_writeback(int fd) {
#if defined(__linux__)
    return sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
#else
    (void)fd;
    return 0;
#endif
}

int jsonsql_drop_cached(int fd, long long end) {
#if defined(__linux__)
    return posix_fadvise(fd, 0, (off_t)end, POSIX_FADV_DONTNEED);
#else
    (void)fd;
    (void)end;
    return 0;
#endif
}
