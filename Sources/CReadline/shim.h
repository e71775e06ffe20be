// GNU readline and history for the interactive shell (`jsonsql shell`).
// Debian/Ubuntu: apt-get install libreadline-dev
#ifndef JSONSQL_CREADLINE_SHIM_H
#define JSONSQL_CREADLINE_SHIM_H

#include <signal.h>
#include <stdio.h>
#include <readline/readline.h>
#include <readline/history.h>

// readline keeps its settings in C globals, which Swift 6 does not let code touch directly;
// these accessors are the only places the shell reads or writes them.

/// Sets up readline for the shell: its name for ~/.inputrc, no signal handlers of its own
/// (the shell handles Ctrl-C), the characters that end a word, and the completion hooks.
static inline void jsonsql_rl_configure(const char *name, const char *word_breaks,
                                        rl_completion_func_t *complete,
                                        rl_compdisp_func_t *display_matches) {
    rl_readline_name = name;
    rl_catch_signals = 0;
    rl_completer_word_break_characters = word_breaks;
    // A word that starts after a quote must not get the quote closed after it on completion:
    // `--where 'address.city=DE'` goes on after the path.
    rl_basic_quote_characters = NULL;
    rl_attempted_completion_function = complete;
    rl_completion_display_matches_hook = display_matches;
    // Each history entry is written after a `#<seconds>` line, so that readline reads the
    // lines of a statement typed over several lines back as one entry, line breaks and all:
    // joined on one line, a `--` comment would swallow the rest of the statement.
    // (readline writes the time only of entries it stamped, and stamps them with this character).
    history_comment_char = '#';
    history_write_timestamps = 1;
}

/// 1: readline offers nothing when the shell has no completion; 0: it completes file names.
static inline void jsonsql_rl_set_completion_over(int over) { rl_attempted_completion_over = over; }

/// No space after the single match (a `.` or `:` comes next).
static inline void jsonsql_rl_suppress_append(void) { rl_completion_suppress_append = 1; }

/// The line typed so far.
static inline const char *jsonsql_rl_line_buffer(void) { return rl_line_buffer; }

/// The descriptor readline reads keys from.
static inline int jsonsql_rl_input_fd(void) { return fileno(rl_instream ? rl_instream : stdin); }

/// Set by SIGWINCH: the terminal changed size. readline's own handler is in place only while it
/// reads a key, so a resize while the shell waits for one would leave it wrapping lines at the
/// old width.
static volatile sig_atomic_t jsonsql_rl_resized = 0;

static void jsonsql_rl_note_resize(int signal) {
    (void)signal;
    jsonsql_rl_resized = 1;
}

/// Notes each SIGWINCH from now on; `jsonsql_rl_apply_resize` acts on it.
static inline void jsonsql_rl_watch_resize(void) {
    struct sigaction action;
    sigemptyset(&action.sa_mask);
    action.sa_flags = 0;
    action.sa_handler = jsonsql_rl_note_resize;
    sigaction(SIGWINCH, &action, NULL);
}

/// After a resize, makes readline take the new size: redrawing the line being edited when
/// `editing`, only reading the size between lines.
static inline void jsonsql_rl_apply_resize(int editing) {
    if (!jsonsql_rl_resized) return;
    jsonsql_rl_resized = 0;
    if (editing) rl_resize_terminal(); else rl_reset_screen_size();
}

#endif
