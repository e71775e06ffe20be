#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
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

// Drafts to remove when a signal ends the process: paths copied when noted, never freed (a
// handler may read one while the main thread forgets it).
#define DRAFT_SLOTS 64
static const char *volatile drafts[DRAFT_SLOTS];

int jsonsql_draft_note(const char *path) {
    const char *copy = strdup(path);
    if (copy == NULL) return -1;
    for (int slot = 0; slot < DRAFT_SLOTS; slot++) {
        const char *empty = NULL;
        if (__atomic_compare_exchange_n(&drafts[slot], &empty, copy, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) return slot;
    }
    free((void *)copy);
    return -1;
}

int jsonsql_draft_open(const char *path, int *slot) {
    // Signals that end the process at once wait until the draft is noted: else one arriving
    // between the open and the note would leave it behind.
    sigset_t all, previous;
    sigfillset(&all);
    sigdelset(&all, SIGSEGV);
    sigdelset(&all, SIGBUS);
    sigdelset(&all, SIGILL);
    sigdelset(&all, SIGFPE);
    sigdelset(&all, SIGTRAP);
    pthread_sigmask(SIG_BLOCK, &all, &previous);
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    int failure = errno;
    *slot = fd >= 0 ? jsonsql_draft_note(path) : -1;
    pthread_sigmask(SIG_SETMASK, &previous, NULL);
    errno = failure;
    return fd;
}

void jsonsql_draft_forget(int slot) {
    if (slot >= 0 && slot < DRAFT_SLOTS) __atomic_store_n(&drafts[slot], NULL, __ATOMIC_SEQ_CST);
}

void jsonsql_drafts_remove(void) {
    static const char *const suffixes[] = {"-journal", "-wal", "-shm"};
    char companion[PATH_MAX + 16];
    for (int slot = 0; slot < DRAFT_SLOTS; slot++) {
        const char *path = __atomic_load_n(&drafts[slot], __ATOMIC_SEQ_CST);
        if (path == NULL) continue;
        size_t length = strlen(path);
        for (int k = 0; k < 3 && length < PATH_MAX; k++) {
            memcpy(companion, path, length);
            memcpy(companion + length, suffixes[k], strlen(suffixes[k]) + 1);
            unlink(companion);
        }
        unlink(path);
    }
}

// SIGPIPE among them: a reader gone from the output ends jsonsql at once and quietly, as it ends
// cat, with the drafts removed first.
static const int fatal_signals[] = {SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE, SIGSEGV, SIGQUIT, SIGALRM, SIGUSR1, SIGUSR2,
                                    SIGVTALRM, SIGPROF, SIGXCPU, SIGSYS, SIGPIPE};
#define FATAL_COUNT ((int)(sizeof(fatal_signals) / sizeof(fatal_signals[0])))
static struct sigaction previous_actions[FATAL_COUNT];

static void remove_drafts_and_resume(int signal) {
    jsonsql_drafts_remove();
    for (int k = 0; k < FATAL_COUNT; k++) {
        if (fatal_signals[k] != signal) continue;
        sigaction(signal, &previous_actions[k], NULL);
        break;
    }
    // A fault returns to the instruction, which faults again under the action restored; a signal
    // sent by another process is sent again.
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, signal);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    raise(signal);
}

void jsonsql_drafts_remove_on_fatal_signals(void) {
    for (int k = 0; k < FATAL_COUNT; k++) {
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_handler = remove_drafts_and_resume;
        action.sa_flags = SA_RESTART | SA_NODEFER;
        sigemptyset(&action.sa_mask);
        if (sigaction(fatal_signals[k], NULL, &previous_actions[k]) != 0) continue;
        if (previous_actions[k].sa_handler == SIG_IGN) continue;
        sigaction(fatal_signals[k], &action, NULL);
    }
}
