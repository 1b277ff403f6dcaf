/* err.h - error status and message carrier shared by every module.
 *
 * Library functions return 0 on success or a negative status (-SS_EDATA, ...)
 * and fill a struct err with one lower-case message naming the file, field,
 * bad value and what was expected.  The status doubles as the process exit
 * code: main() returns -status.
 */
#ifndef SERVESIM_ERR_H
#define SERVESIM_ERR_H

enum ss_status {
	SS_OK = 0,
	SS_ERUNTIME = 1, /* runtime error: I/O failure, resource, simulation failure */
	SS_EUSAGE = 2,   /* usage or configuration error: bad flag, unknown model */
	SS_EDATA = 3,    /* bad input data: malformed file, missing or invalid field */
	SS_EPARTIAL = 4  /* partial result: some inputs failed (each named), the rest reported */
};

struct err {
	int code;        /* one of enum ss_status, SS_OK when nothing was set */
	char msg[1024];
};

/* Reset to "no error". */
void err_clear(struct err *e);
/* Set code and message (printf-style); returns -code so callers can
 * `return err_set(e, SS_EDATA, "...")`. e may be NULL. */
int err_set(struct err *e, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Prepend "prefix: " to the existing message. */
void err_prefix(struct err *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Programmer error: print and abort. */
#define BUG(msg) ss_bug(__FILE__, __LINE__, (msg))
void ss_bug(const char *file, int line, const char *msg) __attribute__((noreturn));

#endif
