// jsonsql's version, read at compile time from the VERSION file at the top of the repository:
// the one place it is written (`jsonsql --version`, `make dist`'s archive and package names).
#ifndef JSONSQL_CVERSION_H
#define JSONSQL_CVERSION_H

/// The VERSION file's first line, without its line end.
const char *jsonsql_version(void);

#endif
