/* version.c - build identification, filled in by the Makefile. */
#include "base/version.h"

#ifndef SERVESIM_GIT
#define SERVESIM_GIT "unknown"
#endif
#ifndef SERVESIM_CFLAGS
#define SERVESIM_CFLAGS "unknown"
#endif

const char *servesim_git_describe(void)
{
	return SERVESIM_GIT;
}

const char *servesim_build_flags(void)
{
	return SERVESIM_CFLAGS;
}
