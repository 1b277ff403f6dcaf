/* client.c - a small streaming client of `servesim serve` for its test:
 * each line of the plan (send_s,prompt_tokens,max_tokens) is one request,
 * sent at send_s after the start on its own thread as an HTTP/1.0 POST of
 * /v1/completions with "stream": true and the prompt as token ids; every
 * server-sent event's arrival is timed.  Prints one CSV row a request:
 * i,prompt_tokens,max_tokens,events,done,ttft_ms,itl_ms (TTFT from the
 * send to the first event, ITL (last - first) / (events - 1)), in plan
 * order; exits 1 when a request failed.
 * usage: client HOST PORT MODEL PLAN.csv */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

struct req {
	double send_s;
	long prompt, max_tokens;
	long events;
	bool done;
	double first_s, last_s, sent_at_s;
	pthread_t th;
};

static const char *host, *model;
static int port;
static struct timespec t0;

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) * 1e-9;
}

static void *run(void *arg)
{
	struct req *r = arg;
	struct timespec at = t0;
	struct sockaddr_in a;
	char *body, *msg, head[512], buf[65536];
	ssize_t sent;
	size_t blen = 0, bcap = (size_t)r->prompt * 8 + 512, have = 0;
	long i;
	int fd;

	at.tv_sec += (time_t)r->send_s;
	at.tv_nsec += (long)((r->send_s - (double)(time_t)r->send_s) * 1e9);
	if (at.tv_nsec >= 1000000000L) {
		at.tv_sec++;
		at.tv_nsec -= 1000000000L;
	}
	body = malloc(bcap);
	blen = (size_t)snprintf(body, bcap, "{\"model\":\"%s\",\"stream\":true,\"max_tokens\":%ld,\"prompt_token_ids\":[",
				model, r->max_tokens);
	for (i = 0; i < r->prompt; i++)
		blen += (size_t)snprintf(body + blen, bcap - blen, "%s%ld", i ? "," : "", 100 + i % 1000);
	blen += (size_t)snprintf(body + blen, bcap - blen, "]}");
	snprintf(head, sizeof(head),
		 "POST /v1/completions HTTP/1.0\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %zu\r\n\r\n",
		 host, blen);
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons((unsigned short)port);
	inet_pton(AF_INET, host, &a.sin_addr);
	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
		free(body);
		return NULL;
	}
	/* the head and the body in one write: two small writes wait on the
	 * server's delayed ACK (Nagle), tens of ms the server never sees */
	msg = malloc(strlen(head) + blen);
	memcpy(msg, head, strlen(head));
	memcpy(msg + strlen(head), body, blen);
	r->sent_at_s = now_s();
	sent = write(fd, msg, strlen(head) + blen);
	free(msg);
	if (sent < 0) {
		close(fd);
		free(body);
		return NULL;
	}
	free(body);
	/* events end with a blank line; a "data: [DONE]" ends the stream */
	for (;;) {
		ssize_t n = read(fd, buf + have, sizeof(buf) - 1 - have);
		double t = now_s();
		char *p, *ev;
		if (n <= 0)
			break;
		have += (size_t)n;
		buf[have] = '\0';
		p = buf;
		while ((ev = strstr(p, "data: ")) && strstr(ev, "\n\n")) {
			char *end = strstr(ev, "\n\n");
			if (strncmp(ev, "data: [DONE]", 12) == 0) {
				r->done = true;
			} else {
				if (r->events == 0)
					r->first_s = t;
				r->last_s = t;
				r->events++;
			}
			p = end + 2;
		}
		/* keep what is not a whole event yet */
		have = strlen(p);
		memmove(buf, p, have + 1);
	}
	close(fd);
	return NULL;
}

int main(int argc, char **argv)
{
	struct req *rq = NULL;
	size_t n = 0, cap = 0, i;
	FILE *f;
	int bad = 0;

	if (argc != 5) {
		fprintf(stderr, "usage: client HOST PORT MODEL PLAN.csv\n");
		return 2;
	}
	host = argv[1];
	port = atoi(argv[2]);
	model = argv[3];
	if (!(f = fopen(argv[4], "r")))
		return 2;
	for (;;) {
		struct req r;
		memset(&r, 0, sizeof(r));
		if (fscanf(f, "%lf,%ld,%ld", &r.send_s, &r.prompt, &r.max_tokens) != 3)
			break;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			rq = realloc(rq, cap * sizeof(*rq));
		}
		rq[n++] = r;
	}
	fclose(f);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < n; i++)
		pthread_create(&rq[i].th, NULL, run, &rq[i]);
	for (i = 0; i < n; i++)
		pthread_join(rq[i].th, NULL);
	printf("i,prompt_tokens,max_tokens,events,done,ttft_ms,itl_ms\n");
	for (i = 0; i < n; i++) {
		const struct req *r = &rq[i];
		bool ok = r->done && r->events == r->max_tokens;
		printf("%zu,%ld,%ld,%ld,%d,%.3f,%.4f\n", i, r->prompt, r->max_tokens, r->events, r->done,
		       (r->first_s - r->sent_at_s) * 1e3,
		       r->events > 1 ? (r->last_s - r->first_s) * 1e3 / (double)(r->events - 1) : 0.0);
		bad += !ok;
	}
	free(rq);
	return bad ? 1 : 0;
}
