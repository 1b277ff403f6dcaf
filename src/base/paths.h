/* paths.h - where the shipped data lives: $SERVESIM_DATA_DIR, else data/ next
 * to the executable, else the source tree's data/ compiled in. */
#ifndef SERVESIM_PATHS_H
#define SERVESIM_PATHS_H
#include <stddef.h>

/* Fills out with the data directory (no trailing slash). */
void paths_data_dir(char *out, size_t n);
/* Repository root guess: the data dir's parent. */
void paths_root_dir(char *out, size_t n);
/* 1 if path names an existing regular file or directory. */
int paths_exists(const char *path);
/* The folder path is in, as dirname(1) writes it ("." for a bare name, "/"
 * at the root), truncated to fit n. */
void paths_dir(const char *path, char *out, size_t n);
/* mkdir -p; 0 or -1 (errno set). */
int paths_mkdir_p(const char *dir);
/* paths_mkdir_p, and into made (n bytes) the first folder it created ("":
 * none), for paths_rmdir_made. */
int paths_mkdir_p_made(const char *dir, char *made, size_t n);
/* Undo paths_mkdir_p_made after a failure: remove dir and its parents up
 * to made, each only while empty (rmdir). */
void paths_rmdir_made(const char *dir, const char *made);
/* Levenshtein distance (case-insensitive), capped at 255. */
int paths_edit_distance(const char *a, const char *b);

#endif
