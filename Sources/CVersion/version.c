// The VERSION file's bytes, embedded by the compiler; its dependency file names VERSION, so a
// changed version rebuilds this file.
#include "CVersion.h"

#pragma clang diagnostic ignored "-Wc23-extensions"

static const char text[] = {
#embed "../../VERSION"
    , 0};

const char *jsonsql_version(void) {
    // The first line only: a VERSION file ends with a line end, which --version adds itself.
    static char line[sizeof text];
    if (!line[0]) {
        unsigned i = 0;
        for (; text[i] && text[i] != '\n' && text[i] != '\r'; i++) line[i] = text[i];
        line[i] = 0;
    }
    return line;
}
