#include <limits.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <sqlite3.h>
#include <string.h>
#include <sys/stat.h>
#include "CSQLiteConfig.h"

// sqlite3_config is variadic, which Swift cannot call.
int jsonsql_sqlite_config_multithread(void) {
    // Memory statistics take a global mutex on every allocation; jsonsql reads none of them.
    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
    return sqlite3_config(SQLITE_CONFIG_MULTITHREAD);
}

int jsonsql_map_large_blocks(long bytes) {
#if defined(__GLIBC__)
    return bytes > 0 && bytes <= INT_MAX ? mallopt(M_MMAP_THRESHOLD, (int)bytes) : 0;
#else
    (void)bytes;
    return 0;
#endif
}

// sqlite3_db_config is variadic too.
int jsonsql_sqlite_defensive(void *db) {
    return sqlite3_db_config((sqlite3 *)db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)0);
}

int jsonsql_sqlite_foreign_keys(void *db) {
    return sqlite3_db_config((sqlite3 *)db, SQLITE_DBCONFIG_ENABLE_FKEY, 1, (int *)0);
}

int jsonsql_sqlite_no_checkpoint_on_close(void *db) {
    return sqlite3_db_config((sqlite3 *)db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, (int *)0);
}

int jsonsql_sqlite_legacy_strings(void *db, int on, int *was) {
    int ignored = 0;
    int code = sqlite3_db_config((sqlite3 *)db, SQLITE_DBCONFIG_DQS_DML, -1, was ? was : &ignored);
    if (code != SQLITE_OK || on < 0) return code;
    code = sqlite3_db_config((sqlite3 *)db, SQLITE_DBCONFIG_DQS_DDL, on, (int *)0);
    if (code != SQLITE_OK) return code;
    return sqlite3_db_config((sqlite3 *)db, SQLITE_DBCONFIG_DQS_DML, on, (int *)0);
}

int jsonsql_sqlite_descriptor(void *db) {
    sqlite3_file *file = NULL;
    sqlite3_vfs *vfs = NULL;
    if (sqlite3_file_control((sqlite3 *)db, "main", SQLITE_FCNTL_FILE_POINTER, &file) != SQLITE_OK) return -1;
    if (sqlite3_file_control((sqlite3 *)db, "main", SQLITE_FCNTL_VFS_POINTER, &vfs) != SQLITE_OK) return -1;
    if (!file || !file->pMethods || !vfs || !vfs->zName || strncmp(vfs->zName, "unix", 4) != 0) return -1;
    // How os_unix.c's unixFile begins (unchanged since SQLite 3.5); its VFS pointer must match.
    const struct {
        const sqlite3_io_methods *methods;
        sqlite3_vfs *vfs;
        void *inode;
        int h;
    } *unix_file = (const void *)file;
    if (unix_file->vfs != vfs || unix_file->h < 0) return -1;
    const char *name = sqlite3_db_filename((sqlite3 *)db, "main");
    struct stat opened, named;
    if (!name || !*name || fstat(unix_file->h, &opened) != 0 || stat(name, &named) != 0) return -1;
    if (opened.st_dev != named.st_dev || opened.st_ino != named.st_ino) return -1;
    return unix_file->h;
}

int jsonsql_read_file_start(const char *path, unsigned char *buffer, int count) {
    sqlite3_vfs *vfs = sqlite3_vfs_find(NULL);
    if (!vfs) return -1;
    // Room for any path the system opens: the unix VFS's own limit (mxPathname, 512) is SQLite's
    // for databases, and a data file or script deeper than that is read all the same.
    int room = (vfs->mxPathname > PATH_MAX ? vfs->mxPathname : PATH_MAX) + 1;
    char *full = sqlite3_malloc(room);
    sqlite3_file *file = sqlite3_malloc(vfs->szOsFile);
    int result = -1;
    if (full && file && vfs->xFullPathname(vfs, path, room, full) == SQLITE_OK) {
        memset(file, 0, vfs->szOsFile);
        int flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_MAIN_DB;
        if (vfs->xOpen(vfs, full, file, flags, &flags) == SQLITE_OK) {
            sqlite3_int64 size = 0;
            if (file->pMethods->xFileSize(file, &size) == SQLITE_OK) {
                int length = size < count ? (int)size : count;
                if (length == 0 || file->pMethods->xRead(file, buffer, length, 0) == SQLITE_OK) result = length;
            }
            file->pMethods->xClose(file);
        }
    }
    sqlite3_free(full);
    sqlite3_free(file);
    return result;
}
