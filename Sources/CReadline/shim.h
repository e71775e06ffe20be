// GNU readline and history for the interactive shell (`jsonsql shell`).
// Debian/Ubuntu: apt-get install libreadline-dev
#ifndef JSONSQL_CREADLINE_SHIM_H
#define JSONSQL_CREADLINE_SHIM_H

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

#endif
