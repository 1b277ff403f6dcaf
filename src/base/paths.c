/* paths.c - locating the data directory and a small string-distance helper
 * used for "did you mean" suggestions. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/paths.h"

#ifndef SERVESIM_DATADIR
#define SERVESIM_DATADIR "data"
#endif

int paths_exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

void paths_dir(const char *path, char *out, size_t n)
{
	size_t len = strlen(path);

	while (len > 1 && path[len - 1] == '/') /* "a/b/" is b in a */
		len--;
	while (len > 0 && path[len - 1] != '/')
		len--;
	while (len > 1 && path[len - 1] == '/')
		len--;
	if (len == 0)
		snprintf(out, n, ".");
	else
		snprintf(out, n, "%.*s", (int)len, path);
}

void paths_data_dir(char *out, size_t n)
{
	const char *env = getenv("SERVESIM_DATA_DIR");
	char exe[1024];
	ssize_t k;

	if (env && *env) {
		snprintf(out, n, "%s", env);
		return;
	}
	k = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (k > 0) {
		char cand[1100];
		char *slash;
		exe[k] = '\0';
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			snprintf(cand, sizeof(cand), "%s/data/gpus.json", exe);
			if (paths_exists(cand)) {
				snprintf(out, n, "%s/data", exe);
				return;
			}
			/* tests live one or two levels below the root */
			snprintf(cand, sizeof(cand), "%s/../data/gpus.json", exe);
			if (paths_exists(cand)) {
				snprintf(out, n, "%s/../data", exe);
				return;
			}
			snprintf(cand, sizeof(cand), "%s/../../data/gpus.json", exe);
			if (paths_exists(cand)) {
				snprintf(out, n, "%s/../../data", exe);
				return;
			}
		}
	}
	snprintf(out, n, "%s", SERVESIM_DATADIR);
}

void paths_root_dir(char *out, size_t n)
{
	char d[1024];
	paths_data_dir(d, sizeof(d));
	snprintf(out, n, "%s/..", d);
}

int paths_edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	int row[256], prev, tmp;

	if (la > 254)
		la = 254;
	if (lb > 254)
		lb = 254;
	for (j = 0; j <= lb; j++)
		row[j] = (int)j;
	for (i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = (int)i;
		for (j = 1; j <= lb; j++) {
			int cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
			int best = prev + cost;
			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			tmp = row[j];
			row[j] = best;
			prev = tmp;
		}
	}
	return row[lb] > 255 ? 255 : row[lb];
}

int paths_mkdir_p_made(const char *dir, char *made, size_t nmade)
{
	char buf[1024];
	size_t i, n = strlen(dir);

	if (nmade > 0)
		made[0] = '\0';
	if (n == 0 || n >= sizeof(buf))
		return -1;
	memcpy(buf, dir, n + 1);
	for (i = 1; i <= n; i++) {
		if (buf[i] == '/' || buf[i] == '\0') {
			char c = buf[i];
			buf[i] = '\0';
			if (mkdir(buf, 0755) == 0) {
				if (nmade > 0 && made[0] == '\0')
					snprintf(made, nmade, "%s", buf);
			} else if (errno != EEXIST) {
				return -1;
			}
			buf[i] = c;
		}
	}
	return 0;
}

int paths_mkdir_p(const char *dir)
{
	return paths_mkdir_p_made(dir, NULL, 0);
}

void paths_rmdir_made(const char *dir, const char *made)
{
	char buf[1024];
	size_t n = strlen(made);

	if (n == 0 || snprintf(buf, sizeof(buf), "%s", dir) >= (int)sizeof(buf))
		return;
	/* from dir up, while still below or at made */
	while (strlen(buf) >= n && rmdir(buf) == 0) {
		char *slash = strrchr(buf, '/');
		if (strlen(buf) == n || !slash)
			break;
		*slash = '\0';
	}
}
