/* bench_guidellm.c - memory bound of the streamed GuideLLM reader (`make
 * bench`): writes a GuideLLM 0.6-style results file of N requests whose
 * prompt and output texts dominate its size, gzips it (gzip -1 through a
 * pipe), reads it back and prints size, time and peak RSS.
 *   usage: bench_guidellm N [FILE.json.gz] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#include "readers/measured.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000, i;
	const char *path = argc > 2 ? argv[2] : "/tmp/servesim-bench-guidellm.json.gz";
	static const char *words[] = {"the", "model", "serves", "tokens", "quickly", "under", "load",
		"while", "queues", "grow", "and", "shrink", "again", "latency", "budget", "prefix"};
	char cmd[600], text[8192], noise[3001];
	struct gt_requests g;
	struct err e;
	struct rusage ru;
	struct stat sb;
	FILE *f;
	double t0, t1;
	size_t k, off = 0;
	unsigned x = 12345;

	for (k = 0; off + 20 < sizeof(text) - 1; k++) { /* ~8 KB of prompt-like text */
		x = x * 1103515245u + 12345u;
		off += (size_t)snprintf(text + off, sizeof(text) - off, "%s ", words[(x >> 16) % 16]);
	}
	snprintf(cmd, sizeof(cmd), "gzip -1 > %s", path);
	f = popen(cmd, "w");
	if (!f)
		return 1;
	fprintf(f, "{\"metadata\": {\"guidellm_version\": \"0.6.0\"}, \"benchmarks\": [{\"config\": {\"strategy\": {\"type_\": \"constant\", \"rate\": 10}}, \"requests\": {\"successful\": [");
	for (i = 0; i < n; i++) {
		/* output text: pseudo-random letters, so the file compresses like
		 * real generations (poorly), not like a repeated phrase */
		for (k = 0; k < sizeof(noise) - 1; k++) {
			x = x * 1103515245u + 12345u;
			noise[k] = (char)('a' + (x >> 16) % 26);
		}
		noise[sizeof(noise) - 1] = '\0';
		fprintf(f, "%s{\"request_id\": \"r%ld\", \"request_args\": \"%s\", \"output\": \"%s\", "
			   "\"request_start_time\": %.6f, \"request_latency\": 1.25, \"prompt_tokens\": %ld, "
			   "\"output_tokens\": %ld, \"time_to_first_token_ms\": 80.5, \"inter_token_latency_ms\": 9.1}",
			i ? ", " : "", i, text, noise, 1700000000.0 + 0.1 * (double)i, 100 + i % 900, 10 + i % 300);
	}
	fprintf(f, "], \"errored\": [], \"incomplete\": []}}]}\n");
	pclose(f);
	stat(path, &sb);
	t0 = now_s();
	if (guidellm_read(path, &g, &e) < 0) {
		fprintf(stderr, "bench_guidellm: %s\n", e.msg);
		return 1;
	}
	t1 = now_s();
	getrusage(RUSAGE_SELF, &ru);
	printf("guidellm %ld requests, %.0f MB .json.gz (about %.0f MB of JSON): read in %.2f s, peak RSS %.1f MB (%zu requests kept)\n",
	       n, (double)sb.st_size / 1e6, (double)n * (sizeof(text) + sizeof(noise) + 200) / 1e6, t1 - t0,
	       ru.ru_maxrss / 1024.0, g.n);
	gt_requests_release(&g);
	remove(path);
	return 0;
}
