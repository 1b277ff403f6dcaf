/* version.h - version of the library and of the build. */
#ifndef SERVESIM_VERSION_H
#define SERVESIM_VERSION_H

#define SERVESIM_VERSION "0.1.0"

/* `git describe --always --dirty` at build time, or "unknown". */
const char *servesim_git_describe(void);
/* Compiler flags the library was built with. */
const char *servesim_build_flags(void);

#endif
