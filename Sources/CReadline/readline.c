#include "CReadline.h"

#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>

// readline's functions and settings, found by name in the library once it is open.
static struct {
    int (*variable_bind)(const char *, const char *);
    void (*using_history)(void);
    void (*stifle_history)(int);
    void (*add_history)(const char *);
    int (*append_history)(int, const char *);
    void (*callback_handler_install)(const char *, jsonsql_rl_line_handler *);
    void (*callback_handler_remove)(void);
    void (*callback_read_char)(void);
    int (*free_line_state)(void);
    void (*callback_sigcleanup)(void);
    void (*cleanup_after_signal)(void);
    void (*replace_line)(const char *, int);
    int (*crlf)(void);
    void (*display_match_list)(char **, int, int);
    int (*forced_update_display)(void);
    void (*resize_terminal)(void);
    void (*reset_screen_size)(void);
    const char **readline_name;
    int *catch_signals;
    const char **completer_word_break_characters;
    const char **basic_quote_characters;
    jsonsql_rl_completer **attempted_completion_function;
    jsonsql_rl_match_display **completion_display_matches_hook;
    int *attempted_completion_over;
    int *completion_suppress_append;
    char **line_buffer;
    FILE **instream;
    char *history_comment_char;
    int *history_write_timestamps;
} rl;

static int loaded = -1;  // -1: not tried; then 0 or 1
static char error[512];

int jsonsql_rl_load(void) {
    if (loaded >= 0) return loaded;
    loaded = 0;
    const char *names[] = {"libreadline.so.8", "libreadline.so", "libreadline.8.dylib", "libreadline.dylib"};
    void *library = NULL;
    for (unsigned i = 0; i < sizeof names / sizeof *names && !library; i++) library = dlopen(names[i], RTLD_NOW);
    if (!library) {
        snprintf(error, sizeof error, "GNU readline (libreadline.so.8) cannot be opened: %s", dlerror());
        return 0;
    }
    int missing = 0;
#define FIND(field, symbol)                                                                                        \
    if (!(*(void **)&rl.field = dlsym(library, symbol)) && !missing) {                                             \
        missing = 1;                                                                                               \
        snprintf(error, sizeof error, "GNU readline lacks %s", symbol);                                           \
    }
    FIND(variable_bind, "rl_variable_bind")
    FIND(using_history, "using_history")
    FIND(stifle_history, "stifle_history")
    FIND(add_history, "add_history")
    FIND(append_history, "append_history")
    FIND(callback_handler_install, "rl_callback_handler_install")
    FIND(callback_handler_remove, "rl_callback_handler_remove")
    FIND(callback_read_char, "rl_callback_read_char")
    FIND(free_line_state, "rl_free_line_state")
    FIND(callback_sigcleanup, "rl_callback_sigcleanup")
    FIND(cleanup_after_signal, "rl_cleanup_after_signal")
    FIND(replace_line, "rl_replace_line")
    FIND(crlf, "rl_crlf")
    FIND(display_match_list, "rl_display_match_list")
    FIND(forced_update_display, "rl_forced_update_display")
    FIND(resize_terminal, "rl_resize_terminal")
    FIND(reset_screen_size, "rl_reset_screen_size")
    FIND(readline_name, "rl_readline_name")
    FIND(catch_signals, "rl_catch_signals")
    FIND(completer_word_break_characters, "rl_completer_word_break_characters")
    FIND(basic_quote_characters, "rl_basic_quote_characters")
    FIND(attempted_completion_function, "rl_attempted_completion_function")
    FIND(completion_display_matches_hook, "rl_completion_display_matches_hook")
    FIND(attempted_completion_over, "rl_attempted_completion_over")
    FIND(completion_suppress_append, "rl_completion_suppress_append")
    FIND(line_buffer, "rl_line_buffer")
    FIND(instream, "rl_instream")
    FIND(history_comment_char, "history_comment_char")
    FIND(history_write_timestamps, "history_write_timestamps")
#undef FIND
    if (missing) return 0;
    loaded = 1;
    return 1;
}

const char *jsonsql_rl_error(void) { return error; }

void jsonsql_rl_configure(const char *name, const char *word_breaks, jsonsql_rl_completer *complete,
                          jsonsql_rl_match_display *display_matches) {
    *rl.readline_name = name;
    *rl.catch_signals = 0;
    *rl.completer_word_break_characters = word_breaks;
    // A word that starts after a quote must not get the quote closed after it on completion:
    // `--where 'address.city=DE'` goes on after the path.
    *rl.basic_quote_characters = NULL;
    *rl.attempted_completion_function = complete;
    *rl.completion_display_matches_hook = display_matches;
    // Each history entry is written after a `#<seconds>` line, so that readline reads the
    // lines of a statement typed over several lines back as one entry, line breaks and all:
    // joined on one line, a `--` comment would swallow the rest of the statement.
    // (readline writes the time only of entries it stamped, and stamps them with this character).
    *rl.history_comment_char = '#';
    *rl.history_write_timestamps = 1;
}

int jsonsql_rl_variable_bind(const char *name, const char *value) { return rl.variable_bind(name, value); }
void jsonsql_rl_using_history(void) { rl.using_history(); }
void jsonsql_rl_stifle_history(int max) { rl.stifle_history(max); }
void jsonsql_rl_add_history(const char *line) { rl.add_history(line); }
int jsonsql_rl_append_history(int count, const char *file) { return rl.append_history(count, file); }

void jsonsql_rl_callback_handler_install(const char *prompt, jsonsql_rl_line_handler *handler) {
    rl.callback_handler_install(prompt, handler);
}
void jsonsql_rl_callback_handler_remove(void) { rl.callback_handler_remove(); }
void jsonsql_rl_callback_read_char(void) { rl.callback_read_char(); }

void jsonsql_rl_abandon_line(void) {
    rl.free_line_state();
    rl.callback_sigcleanup();
    rl.cleanup_after_signal();
    rl.callback_handler_remove();
    rl.replace_line("", 0);
}

void jsonsql_rl_set_completion_over(int over) { *rl.attempted_completion_over = over; }
void jsonsql_rl_suppress_append(void) { *rl.completion_suppress_append = 1; }
const char *jsonsql_rl_line_buffer(void) { return *rl.line_buffer; }
int jsonsql_rl_input_fd(void) { return fileno(*rl.instream ? *rl.instream : stdin); }

void jsonsql_rl_show_matches(char **matches, int count, int longest) {
    rl.crlf();
    rl.display_match_list(matches, count, longest);
    rl.forced_update_display();
}

// Set by SIGWINCH: the terminal changed size. readline's own handler is in place only while it
// reads a key, so a resize while the shell waits for one would leave it wrapping lines at the
// old width.
static volatile sig_atomic_t resized = 0;

static void note_resize(int signal) {
    (void)signal;
    resized = 1;
}

void jsonsql_rl_watch_resize(void) {
    struct sigaction action;
    sigemptyset(&action.sa_mask);
    action.sa_flags = 0;
    action.sa_handler = note_resize;
    sigaction(SIGWINCH, &action, NULL);
}

void jsonsql_rl_apply_resize(int editing) {
    if (!resized) return;
    resized = 0;
    if (editing) rl.resize_terminal(); else rl.reset_screen_size();
}
