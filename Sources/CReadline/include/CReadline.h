// GNU readline and history for the interactive shell (`jsonsql shell`), opened with dlopen the
// first time the shell needs it: every other command starts without loading readline and the
// terminfo library it needs, whose symbol binding was a sixth of a query's start-up.
#ifndef JSONSQL_CREADLINE_H
#define JSONSQL_CREADLINE_H

typedef void jsonsql_rl_line_handler(char *line);
typedef char **jsonsql_rl_completer(const char *text, int start, int end);
typedef void jsonsql_rl_match_display(char **matches, int count, int longest);

/// Opens the readline library once: 1 when it is there with every function the shell uses,
/// 0 otherwise, with the reason in `jsonsql_rl_error()`.
int jsonsql_rl_load(void);
const char *jsonsql_rl_error(void);

// The functions below may be called only after `jsonsql_rl_load()` returned 1.

/// Sets up readline for the shell: its name for ~/.inputrc, no signal handlers of its own
/// (the shell handles Ctrl-C), the characters that end a word, the completion hooks, and
/// history entries written after a `#<seconds>` line (see readline.c).
void jsonsql_rl_configure(const char *name, const char *word_breaks, jsonsql_rl_completer *complete,
                          jsonsql_rl_match_display *display_matches);
int jsonsql_rl_variable_bind(const char *name, const char *value);

void jsonsql_rl_using_history(void);
void jsonsql_rl_stifle_history(int max);
void jsonsql_rl_add_history(const char *line);
int jsonsql_rl_append_history(int count, const char *file);

void jsonsql_rl_callback_handler_install(const char *prompt, jsonsql_rl_line_handler *handler);
void jsonsql_rl_callback_handler_remove(void);
void jsonsql_rl_callback_read_char(void);
/// After Ctrl-C: readline forgets the line being typed and restores the terminal.
void jsonsql_rl_abandon_line(void);

/// 1: readline offers nothing when the shell has no completion; 0: it completes file names.
void jsonsql_rl_set_completion_over(int over);
/// No space after the single match (a `.` or `:` comes next).
void jsonsql_rl_suppress_append(void);
/// The line typed so far.
const char *jsonsql_rl_line_buffer(void);
/// The descriptor readline reads keys from.
int jsonsql_rl_input_fd(void);
/// Shows `matches` (1-based, as readline gives them) below the line, then the line again.
void jsonsql_rl_show_matches(char **matches, int count, int longest);

/// Notes each SIGWINCH from now on; `jsonsql_rl_apply_resize` acts on it.
void jsonsql_rl_watch_resize(void);
/// After a resize, makes readline take the new size: redrawing the line being edited when
/// `editing`, only reading the size between lines.
void jsonsql_rl_apply_resize(int editing);

#endif
