/* test_base.c - PCG32 known answers, string buffer, gz reader, atomic writes,
 * edit distance, flag tables, files written all or none, the heap on huge
 * pages. */
#include <dirent.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "base/afile.h"
#include "base/alloc.h"
#include "base/argtab.h"
#include "base/argval.h"
#include "base/csv.h"
#include "base/decnum.h"
#include "base/loghist.h"
#include "base/tline.h"
#include "base/wdist.h"
#include "base/gzread.h"
#include "base/paths.h"
#include "base/pcg32.h"
#include "base/sbuf.h"
#include "base/stats.h"

static void test_pcg32(void)
{
	/* Published output of the reference pcg32 demo (pcg-c-basic,
	 * pcg32-demo.c): pcg32_srandom_r(&rng, 42u, 54u), first six draws. */
	static const uint32_t want[6] = {0xa15c02b7u, 0x7b47f409u, 0xba1d3330u,
					 0x83d2f293u, 0xbfa4784bu, 0xcbed606eu};
	struct pcg32 r, a, b;
	int i, same = 1, diff = 0;
	double d, lo = 1, hi = 0;

	pcg32_seed(&r, 42u, 54u);
	for (i = 0; i < 6; i++) {
		uint32_t x = pcg32_next(&r);
		CHECK(x == want[i], "pcg32 known answer %d: 0x%08x want 0x%08x", i, x, want[i]);
	}
	pcg32_seed(&a, 7, 1);
	pcg32_seed(&b, 7, 1);
	for (i = 0; i < 100; i++)
		same &= pcg32_next(&a) == pcg32_next(&b);
	CHECK(same, "same seed and stream give the same sequence");
	pcg32_seed(&a, 7, 1);
	pcg32_seed(&b, 7, 2);
	for (i = 0; i < 100; i++)
		diff += pcg32_next(&a) != pcg32_next(&b);
	CHECK(diff > 90, "different streams differ (%d of 100 draws)", diff);
	pcg32_seed(&r, 1, 1);
	for (i = 0; i < 100000; i++) {
		d = pcg32_double(&r);
		if (d < lo) lo = d;
		if (d > hi) hi = d;
	}
	CHECK(lo >= 0 && lo < 1e-3 && hi < 1 && hi > 0.999, "pcg32_double in [0,1): min %g max %g", lo, hi);
	{
		int counts[5] = {0};
		pcg32_seed(&r, 3, 3);
		for (i = 0; i < 50000; i++)
			counts[pcg32_bounded(&r, 5)]++;
		CHECK(counts[0] > 9500 && counts[4] > 9500 && counts[0] < 10500,
		      "pcg32_bounded(5) roughly uniform: %d %d %d %d %d", counts[0], counts[1],
		      counts[2], counts[3], counts[4]);
	}
}

static void test_sbuf(void)
{
	struct sbuf sb;
	int i;

	sb_init(&sb);
	for (i = 0; i < 1000; i++)
		sb_printf(&sb, "%d,", i);
	CHECK(sb.len == strlen(sb.buf), "sbuf length tracks content (%zu)", sb.len);
	CHECK(strncmp(sb.buf, "0,1,2,", 6) == 0 && strstr(sb.buf, "999,") != NULL, "sbuf content");
	sb_release(&sb);
}

static void write_file(const char *path, const void *data, size_t n)
{
	FILE *f = fopen(path, "wb");
	fwrite(data, 1, n, f);
	fclose(f);
}

static void test_gzread(void)
{
	char dir[] = "/tmp/servesim-test-XXXXXX", p[256], gz[256], cmd[600];
	char *buf = NULL;
	size_t len = 0;
	struct err e;
	int rc;
	struct gzr *g;
	const char *line;
	size_t ll, nlines = 0;

	if (!mkdtemp(dir)) {
		CHECK(0, "mkdtemp");
		return;
	}
	snprintf(p, sizeof(p), "%s/a.txt", dir);
	write_file(p, "line one\nline two\r\nthree", 24);
	rc = gzr_read_file(p, 1 << 20, &buf, &len, &e);
	CHECK(rc == 0 && len == 24 && memcmp(buf, "line one\nline two\r\nthree", 25) == 0,
	      "plain file read whole, NUL-terminated (%zu bytes)", len);
	free(buf);
	/* the plain path's edges: the general path's answers */
	err_clear(&e);
	rc = gzr_read_file(p, 23, &buf, &len, &e);
	CHECK(rc == -SS_EDATA && strstr(e.msg, "larger than the 23-byte limit"), "plain file over the limit: %s", e.msg);
	rc = gzr_read_file(p, 24, &buf, &len, &e);
	CHECK(rc == 0 && len == 24, "plain file at the limit read");
	if (rc == 0)
		free(buf);
	err_clear(&e);
	rc = gzr_read_file(dir, 100, &buf, &len, &e);
	CHECK(rc == -SS_EDATA && strstr(e.msg, "is a folder"), "a folder refused: %s", e.msg);
	{
		char q[256];
		snprintf(q, sizeof(q), "%s/one", dir);
		write_file(q, "\x1f", 1);
		rc = gzr_read_file(q, 100, &buf, &len, &e);
		CHECK(rc == 0 && len == 1 && buf[0] == '\x1f' && buf[1] == '\0', "a one-byte file (0x1f) read as is");
		if (rc == 0)
			free(buf);
		write_file(q, "", 0);
		rc = gzr_read_file(q, 100, &buf, &len, &e);
		CHECK(rc == 0 && len == 0 && buf[0] == '\0', "an empty file read as empty");
		if (rc == 0)
			free(buf);
	}
	rc = gzr_open(p, &g, &e);
	while (rc == 0 && gzr_getline(g, &line, &ll, &e) == 0 && line)
		nlines++;
	CHECK(nlines == 3, "three lines, CRLF stripped (%zu)", nlines);
	gzr_close(g);
	snprintf(gz, sizeof(gz), "%s/a.txt.gz", dir);
	snprintf(cmd, sizeof(cmd), "gzip -c %s > %s", p, gz);
	if (system(cmd) == 0) {
		rc = gzr_read_file(gz, 1 << 20, &buf, &len, &e);
		CHECK(rc == 0 && len == 24 && strncmp(buf, "line one", 8) == 0, "gzip file read whole");
		free(buf);
		/* truncate the archive: must be an error, not a short read */
		snprintf(cmd, sizeof(cmd), "head -c 30 %s > %s/t.gz", gz, dir);
		if (system(cmd) == 0) {
			snprintf(p, sizeof(p), "%s/t.gz", dir);
			err_clear(&e);
			rc = gzr_read_file(p, 1 << 20, &buf, &len, &e);
			CHECK(rc == -SS_EDATA, "truncated gzip is SS_EDATA (rc %d: %s)", rc, e.msg);
			CHECK_STR_CONTAINS(e.msg, "truncated", "truncated gzip message");
			if (rc == 0)
				free(buf);
		}
	}
	err_clear(&e);
	rc = gzr_read_file("/nonexistent/x.json", 100, &buf, &len, &e);
	CHECK(rc == -SS_EDATA && strstr(e.msg, "/nonexistent/x.json"), "missing file names the path: %s", e.msg);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CHECK(system(cmd) == 0, "cleanup");
}

static mode_t umask_of_test(void)
{
	mode_t m = umask(022);

	umask(m);
	return m;
}

/* afile_check(path) as a user that is not root (a root process runs the
 * check in a child that drops to nobody, 65534: root writes anywhere):
 * 0 accepted, 1 refused with want in the message, 2 refused otherwise,
 * 3 the child could not drop its privileges, -1 no child. */
static int check_as_user(const char *path, const char *want)
{
	struct err e;
	pid_t pid;
	int st;

	if (geteuid() != 0) {
		err_clear(&e);
		if (afile_check(path, NULL, 0, &e) == 0)
			return 0;
		return strstr(e.msg, want) ? 1 : 2;
	}
	if ((pid = fork()) < 0)
		return -1;
	if (pid == 0) {
		if (setgid(65534) != 0 || setuid(65534) != 0)
			_exit(3);
		err_clear(&e);
		if (afile_check(path, NULL, 0, &e) == 0)
			_exit(0);
		_exit(strstr(e.msg, want) ? 1 : 2);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

/* audit31: an existing output is replaced by a temporary file renamed over
 * it, so a read-only one (rename() replaces it regardless of its mode) and
 * one in a folder that takes no new file (the rename fails, after all the
 * work) are refused by the check made before the work. */
static void test_afile_readonly(void)
{
	char dir[] = "/tmp/servesim-afro-XXXXXX", p[300], cmd[300];
	FILE *f;
	int r;

	if (!mkdtemp(dir) || chmod(dir, 0755) != 0) {
		CHECK(0, "mkdtemp");
		return;
	}
	snprintf(p, sizeof(p), "%s/ro", dir);
	CHECK(mkdir(p, 0755) == 0, "a folder");
	snprintf(p, sizeof(p), "%s/ro/old.csv", dir);
	CHECK((f = fopen(p, "w")) != NULL && fputs("old\n", f) >= 0 && fclose(f) == 0 && chmod(p, 0666) == 0,
	      "a writable file in it");
	snprintf(p, sizeof(p), "%s/ro", dir);
	CHECK(chmod(p, 0555) == 0, "the folder made read-only");
	snprintf(p, sizeof(p), "%s/w", dir);
	CHECK(mkdir(p, 0777) == 0 && chmod(p, 0777) == 0, "a folder anyone writes");
	snprintf(p, sizeof(p), "%s/w/locked.csv", dir);
	CHECK((f = fopen(p, "w")) != NULL && fputs("old\n", f) >= 0 && fclose(f) == 0 && chmod(p, 0444) == 0,
	      "a read-only file in it");

	{
		/* each output path, the words its refusal must hold ("" for none)
		 * and the exit it must give (3: the check could not run as a user) */
		static const struct {
			const char *path, *words, *what;
			int want;
		} cases[] = {
			{"ro/old.csv", "folder", "an existing file in a read-only folder refused before the work", 1},
			{"w/locked.csv", "is read-only", "a read-only file refused, not replaced", 1},
			{"w/new.csv", "", "a new file in a writable folder accepted", 0},
			{"ro/new.csv", "is not writable", "a new file in a read-only folder refused, as before", 1},
		};
		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			snprintf(p, sizeof(p), "%s/%s", dir, cases[i].path);
			r = check_as_user(p, cases[i].words);
			CHECK(r == cases[i].want || r == 3, "%s (%d)", cases[i].what, r);
		}
	}

	snprintf(cmd, sizeof(cmd), "chmod -R u+w %s && rm -rf %s", dir, dir);
	CHECK(system(cmd) == 0, "cleaned up");
}

static void test_afile(void)
{
	char dir[] = "/tmp/servesim-afile-XXXXXX", p[256], cmd[300];
	struct afile a;
	struct err e;
	FILE *f;
	char got[64] = "";

	if (!mkdtemp(dir)) {
		CHECK(0, "mkdtemp");
		return;
	}
	snprintf(p, sizeof(p), "%s/out.json", dir);
	CHECK(afile_open(&a, p, &e) == 0, "afile_open");
	fputs("{\"a\":1}\n", a.f);
	CHECK(!paths_exists(p), "target absent before commit");
	CHECK(afile_commit(&a, &e) == 0, "afile_commit");
	f = fopen(p, "r");
	CHECK(f && fgets(got, sizeof(got), f) && strcmp(got, "{\"a\":1}\n") == 0, "committed content");
	if (f)
		fclose(f);
	snprintf(p, sizeof(p), "%s/aborted.json", dir);
	CHECK(afile_open(&a, p, &e) == 0, "afile_open second");
	fputs("partial", a.f);
	afile_abort(&a);
	CHECK(!paths_exists(p), "aborted write leaves no file");
	/* issue 15: outputs are checked against the inputs before any work */
	{
		char in[256], ln[256], sub[256];
		const char *inputs[2];
		struct stat st;
		snprintf(in, sizeof(in), "%s/out.json", dir);
		snprintf(ln, sizeof(ln), "%s/link.json", dir);
		CHECK(symlink("out.json", ln) == 0, "symlink");
		inputs[0] = ln;
		inputs[1] = NULL;
		err_clear(&e);
		CHECK(afile_check(in, inputs, 2, &e) == -SS_EUSAGE && strstr(e.msg, "is the input"),
		      "output = input through a link refused: %s", e.msg);
		inputs[0] = dir;
		err_clear(&e);
		CHECK(afile_check(in, inputs, 1, &e) == -SS_EUSAGE && strstr(e.msg, "input folder"),
		      "output inside an input folder refused: %s", e.msg);
		err_clear(&e);
		CHECK(afile_check(dir, NULL, 0, &e) == -SS_EUSAGE && strstr(e.msg, "is a folder"),
		      "a folder as output refused: %s", e.msg);
		snprintf(sub, sizeof(sub), "%s/no/x.csv", dir);
		err_clear(&e);
		CHECK(afile_check(sub, NULL, 0, &e) == -SS_EUSAGE && strstr(e.msg, "does not exist"),
		      "missing folder refused: %s", e.msg);
		/* issue 30: the output rule over all outputs at once */
		{
			char data[1024], gj[1100], x2[300];
			struct afile_out two[2] = {{"--a", in, NULL}, {"--b", in, NULL}};
			struct afile_out d1[1] = {{"--c", gj, NULL}};
			err_clear(&e);
			CHECK(afile_check_outputs(two, 2, NULL, 0, 0, &e) == -SS_EUSAGE &&
				      strstr(e.msg, "--a and --b name the same file"),
			      "two outputs on one file refused: %s", e.msg);
			snprintf(x2, sizeof(x2), "%s/../%s/out.json", dir, strrchr(dir, '/') + 1);
			two[1].path = x2;
			err_clear(&e);
			CHECK(afile_check_outputs(two, 2, NULL, 0, 0, &e) == -SS_EUSAGE,
			      "... under another spelling too: %s", e.msg);
			two[1].path = ln;
			err_clear(&e);
			CHECK(afile_check_outputs(two, 2, NULL, 0, 0, &e) == -SS_EUSAGE,
			      "... or through a link: %s", e.msg);
			two[1].path = NULL;
			CHECK(afile_check_outputs(two, 2, NULL, 0, 0, &e) == 0, "one output alone is fine");
			paths_data_dir(data, sizeof(data));
			snprintf(gj, sizeof(gj), "%s/gpus.json", data);
			err_clear(&e);
			CHECK(afile_check_outputs(d1, 1, NULL, 0, 0, &e) == -SS_EUSAGE &&
				      strstr(e.msg, "servesim's data folder"),
			      "data/gpus.json refused: %s", e.msg);
			snprintf(gj, sizeof(gj), "%s/../calibration/tier1/new.json", data);
			err_clear(&e);
			CHECK(afile_check_outputs(d1, 1, NULL, 0, 0, &e) == -SS_EUSAGE &&
				      afile_check_outputs(d1, 1, NULL, 0, AFILE_CALIBRATION, &e) == 0,
			      "calibration/tier1 only for calibrate: %s", e.msg);
		}
		/* writing through the link keeps the link and replaces its target */
		CHECK(afile_open(&a, ln, &e) == 0, "afile_open through a link");
		fputs("{}\n", a.f);
		CHECK(afile_commit(&a, &e) == 0, "commit through a link");
		CHECK(lstat(ln, &st) == 0 && S_ISLNK(st.st_mode), "the link is still a link");
		CHECK(stat(in, &st) == 0 && st.st_size == 3, "its target has the new content");
		CHECK((st.st_mode & 0777) == (0666 & ~(unsigned)umask_of_test()), "mode from the umask: %o",
		      (unsigned)(st.st_mode & 0777));
		unlink(ln);
		/* a write error names the file */
		CHECK(afile_open(&a, "/dev/full", &e) == 0, "a device is opened directly");
		fputs("x", a.f);
		err_clear(&e);
		CHECK(afile_commit(&a, &e) == -SS_ERUNTIME && strstr(e.msg, "/dev/full: write error"),
		      "write error named: %s", e.msg);
	}
	snprintf(cmd, sizeof(cmd), "test $(ls %s | wc -l) -eq 1 && rm -rf %s", dir, dir);
	CHECK(system(cmd) == 0, "no temp files left behind");
}

/* quoted fields (RFC 4180): commas inside quotes, doubled quotes, empty fields */
static void test_csv_quotes(void)
{
	char p[] = "/tmp/servesim-csv-XXXXXX";
	int fd = mkstemp(p);
	struct csv *c;
	struct err e = {.msg = ""};
	FILE *f;

	if (fd < 0) {
		CHECK(0, "mkstemp");
		return;
	}
	f = fdopen(fd, "w");
	fputs("Name,Input Shapes,Note\n", f);
	fputs("mm,\"8,4096;4096,12288\",\"say \"\"hi\"\"\"\n", f);
	fputs("x,,plain\n", f);
	fclose(f);
	CHECK(csv_open(p, &c, &e) == 0, "csv_open (%s)", e.msg);
	CHECK(csv_next(c, &e) == 1 && csv_nfields(c) == 3, "three fields in a quoted row");
	CHECK(strcmp(csv_field(c, 1), "8,4096;4096,12288") == 0, "comma inside quotes kept (%s)",
	      csv_field(c, 1));
	CHECK(strcmp(csv_field(c, 2), "say \"hi\"") == 0, "doubled quotes unescaped (%s)", csv_field(c, 2));
	CHECK(csv_next(c, &e) == 1 && strcmp(csv_field(c, 1), "") == 0 &&
		      strcmp(csv_field(c, 2), "plain") == 0,
	      "empty field");
	csv_close(c);
	/* audit31: a name twice in the header is refused (a reader took the
	 * first and dropped the other column unseen); empty names may repeat */
	f = fopen(p, "w");
	fputs("arrival_s,prompt_tokens,output_tokens,prompt_tokens,,\n0,100,10,5,,\n", f);
	fclose(f);
	c = NULL;
	CHECK(csv_open(p, &c, &e) < 0 && strstr(e.msg, ":1: column 'prompt_tokens' appears twice in the header "
						    "(columns 2 and 4)"),
	      "a duplicate column name refused: %s", e.msg);
	if (c)
		csv_close(c);
	f = fopen(p, "w");
	fputs("a,b,,\n1,2,,\n", f);
	fclose(f);
	c = NULL;
	CHECK(csv_open(p, &c, &e) == 0, "empty trailing names accepted (%s)", e.msg);
	csv_close(c);
	remove(p);
}

/* decnum_parse against strtod: bit-identical wherever the fast path answers. */
static int same_bits(double a, double b)
{
	uint64_t x, y;
	memcpy(&x, &a, sizeof(x));
	memcpy(&y, &b, sizeof(y));
	return x == y;
}

static void decnum_one(const char *s, size_t *fast, size_t *slow, size_t *bad)
{
	double a = 0, b;
	char *end;

	b = strtod(s, &end);
	if (!decnum_parse(s, &a)) {
		(*slow)++;
		return;
	}
	(*fast)++;
	if (end == s || *end || !same_bits(a, b)) {
		if (*bad < 5)
			printf("     decnum '%s': %.17g, strtod %.17g\n", s, a, b);
		(*bad)++;
	}
}

/* decnum_round against printf then strtod, the text it replaces: random
 * magnitudes, simulator-like times, values just off a tie and exact binary
 * ties (ties to even), values a few ulps off a tie, negatives, and every
 * finite bit pattern at random. */
static void test_decnum_round(void)
{
	static const double edge[] = {0.0, -0.0, 0.03125, 0.25, 2.5, 0.125, 1e-9, 4.9e-324, 1e15, 9.007199254740993e15,
				      1e300, -1e300, 0.00005, 123456.78905, 1.7976931348623157e308};
	uint64_t st = UINT64_C(88172645463325252);
	size_t bad = 0, n = 0, i;

	for (i = 0; i < sizeof(edge) / sizeof(edge[0]); i++) {
		int d;
		for (d = 0; d <= 9; d++) {
			char buf[400];
			snprintf(buf, sizeof(buf), "%.*f", d, edge[i]);
			n++;
			bad += !same_bits(decnum_round(edge[i], d), strtod(buf, NULL));
		}
	}
	for (i = 0; i < 400000; i++) {
		char buf[400];
		double x;
		int d;
		st ^= st << 13;
		st ^= st >> 7;
		st ^= st << 17;
		d = (int)(st % 10);
		switch (i % 7) {
		case 0: x = (double)(st >> 11) * 0x1p-53 * pow(10, (int)(st % 12) - 3); break;
		case 1: x = (double)(int64_t)(st >> 20) * 1e-9; d = 6; break;
		case 2: x = ((double)(st % 100000) + 0.5) / pow(10, d); break;
		case 3: x = ldexp((double)(st % 1000001), -(int)(st % 30)); break;
		case 4: memcpy(&x, &st, sizeof(x)); break;
		case 5: /* a few ulps off a decimal tie, at any magnitude (the
			 * fast path's margin; decnum.c) */
			x = ((double)(st >> 24) + 0.5) / pow(10, d);
			x = ldexp(x, 0) + (double)((int)(st % 9) - 4) * x * 0x1p-53;
			break;
		default: x = -(double)(st >> 11) * 0x1p-53 * pow(10, (int)(st % 8)); break;
		}
		if (!isfinite(x))
			continue;
		snprintf(buf, sizeof(buf), "%.*f", d, x);
		n++;
		if (!same_bits(decnum_round(x, d), strtod(buf, NULL))) {
			if (bad < 5)
				printf("     decnum_round(%.17g, %d) = %.17g, text %s\n", x, d, decnum_round(x, d), buf);
			bad++;
		}
	}
	CHECK(bad == 0, "decnum_round: %zu values equal to printf then strtod bit for bit (%zu differ)", n, bad);
}

/* The folder of entry de of folder parent (its path into path[n]) opened,
 * NULL for a dot entry or one that does not open as a folder. */
static DIR *subdir(const char *parent, const struct dirent *de, char *path, size_t n)
{
	if (de->d_name[0] == '.')
		return NULL;
	snprintf(path, n, "%s/%s", parent, de->d_name);
	return opendir(path);
}

static void test_decnum(void)
{
	static const char *const cases[] = {
		"0", "-0", "+0", "1", "-1", "0.1", ".5", "5.", "00012.50", "1e22", "9007199254740993",
		"9007199254740992", "123456789012345678", "1.7976931348623157e308", "4.9e-324",
		"0.000000000000000000000000123", "1.01993e+06", "2.5E-3", "3.14159265358979323846",
		"123.456e-20", "7e-22", "7e-23", "8.98846567431158e307", "1e-5", "0.3", "2.675"};
	static const char *const rejects[] = {"", "-", ".", "e5", "1e", "1e+", "0x10", "inf",
		"nan", " 1", "1 ", "1,2", "1..2", "--1", "1e99999"};
	char base[600], dir[900], path[1500];
	size_t fast = 0, slow = 0, bad = 0, nfiles = 0, i;
	DIR *gd, *cd, *fd;
	struct dirent *g, *c, *f;
	struct err e;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		decnum_one(cases[i], &fast, &slow, &bad);
	CHECK(bad == 0, "decnum: %zu hand-picked numbers, %zu on the fast path, all equal to strtod",
	      sizeof(cases) / sizeof(cases[0]), fast);
	for (i = 0; i < sizeof(rejects) / sizeof(rejects[0]); i++) {
		double v;
		CHECK(!decnum_parse(rejects[i], &v), "decnum leaves '%s' to strtod", rejects[i]);
	}
	/* every numeric field of every kernel table */
	fast = slow = bad = 0;
	snprintf(base, sizeof(base), "%s/mfu", SERVESIM_DATADIR);
	gd = opendir(base);
	CHECK(gd != NULL, "decnum: open %s", base);
	while (gd && (g = readdir(gd)) != NULL) {
		if (!(cd = subdir(base, g, dir, sizeof(dir))))
			continue;
		while ((c = readdir(cd)) != NULL) {
			char sub[1200];
			if (!(fd = subdir(dir, c, sub, sizeof(sub))))
				continue;
			while ((f = readdir(fd)) != NULL) {
				struct csv *cv;
				size_t n = strlen(f->d_name);
				if (n < 7 || strcmp(f->d_name + n - 7, ".csv.gz") != 0)
					continue;
				snprintf(path, sizeof(path), "%s/%s", sub, f->d_name);
				if (csv_open(path, &cv, &e) < 0)
					continue;
				nfiles++;
				while (csv_next(cv, &e) > 0)
					for (i = 0; i < csv_nfields(cv); i++)
						decnum_one(csv_field(cv, (int)i), &fast, &slow, &bad);
				csv_close(cv);
			}
			closedir(fd);
		}
		closedir(cd);
	}
	if (gd)
		closedir(gd);
	CHECK(nfiles > 20 && fast > 1000000 && bad == 0,
	      "decnum: %zu table files, %zu fields on the fast path (%zu left to strtod), %zu differ",
	      nfiles, fast, slow, bad);
}

static int cmp_float(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;
	return x < y ? -1 : x > y;
}

/* stats_summarise's radix sort (some of its passes skipped when a digit is
 * the same for every value) against qsort: the same order, so the same
 * max and percentiles, on spreads that skip none, some and all but one. */
static void test_sort_floats(void)
{
	static const double spread[] = {1e6, 10.0, 1.001, 0.0};
	size_t n = 5000, i, k;
	float *x = malloc(n * sizeof(float)), *y = malloc(n * sizeof(float));
	struct pcg32 r;
	struct dist_summary d;

	pcg32_seed(&r, 21, 3);
	for (k = 0; k < sizeof(spread) / sizeof(spread[0]); k++) {
		bool same = true;
		for (i = 0; i < n; i++)
			y[i] = x[i] = (float)(40.0 + spread[k] * (pcg32_double(&r) - (k == 0 ? 0.5 : 0.0)));
		qsort(y, n, sizeof(float), cmp_float);
		stats_summarise(x, n, &d);
		for (i = 0; i < n; i++)
			same = same && x[i] == y[i];
		CHECK(same && d.max == y[n - 1] && d.p50 == stats_percentile_sorted(y, n, 0.5),
		      "sort_floats: %zu values spread %g sorted as qsort sorts them", n, spread[k]);
	}
	free(x);
	free(y);
}

/* loghist against exact percentiles: within LOGHIST_REL_ERR, merge exact. */
static double rel(double got, double want)
{
	return want == 0 ? fabs(got) : fabs(got - want) / fabs(want);
}

/* The worst relative error of got's four percentiles against want's. */
static double worst4(const struct dist_summary *got, const struct dist_summary *want)
{
	return fmax(fmax(rel(got->p50, want->p50), rel(got->p90, want->p90)),
		    fmax(rel(got->p95, want->p95), rel(got->p99, want->p99)));
}

/* d's summary into *s and the exact one of the n values x into *t (which
 * sorts x): worst4 of them. */
static double worst_rel(const struct wdist *d, float *x, size_t n, struct dist_summary *s, struct dist_summary *t)
{
	wdist_summarise(d, s);
	stats_summarise(x, n, t);
	return worst4(s, t);
}

static void loghist_vs_exact(const char *what, float *x, size_t n)
{
	struct loghist h;
	struct dist_summary a, b;
	size_t i;
	double worst;

	loghist_init(&h);
	for (i = 0; i < n; i++)
		loghist_add(&h, x[i]);
	loghist_summarise(&h, &b);
	stats_summarise(x, n, &a);
	worst = worst4(&b, &a);
	CHECK(b.n == a.n && b.max == a.max && rel(b.mean, a.mean) < 1e-9 && worst <= LOGHIST_REL_ERR,
	      "loghist %s (n %zu): p50 %.6g/%.6g p99 %.6g/%.6g, worst relative error %.2e <= %g",
	      what, n, b.p50, a.p50, b.p99, a.p99, worst, LOGHIST_REL_ERR);
	/* every percentile on a fine grid, not just the four reported */
	worst = 0;
	for (i = 0; i <= 1000; i++) {
		double p = (double)i / 1000;
		worst = fmax(worst, rel(loghist_percentile(&h, p), stats_percentile_sorted(x, n, p)));
	}
	CHECK(worst <= LOGHIST_REL_ERR, "loghist %s: 1001 percentiles, worst relative error %.2e", what,
	      worst);
	loghist_release(&h);
}

/* wdist: exact weighted percentiles (hand values, numpy's linear
 * definition), order-independent, the switch to the histogram past
 * WDIST_EXACT_MAX distinct values, merges. */
static int cmp_dbl_asc(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* wdist's exact summary past its small-sort cut-off (radix-sorted pairs):
 * 3,000 distinct values of both signs (and zero), weights 1..3, against the
 * expanded multiset sorted by qsort with numpy's linear percentiles. */
static void test_wdist_radix(void)
{
	struct wdist d;
	struct dist_summary s;
	double *all = malloc(9000 * sizeof(double)), q[4] = {0.5, 0.9, 0.95, 0.99}, got[4];
	size_t n = 0, i, k;
	uint64_t x = 12345;
	bool ok = true;

	wdist_init(&d);
	for (i = 0; i < 3000; i++) {
		double v;
		uint64_t w;
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		v = i == 0 ? 0.0 : ((double)(x >> 11) / 9007199254740992.0 - 0.3) * (i % 7 == 0 ? 1e-3 : 40.0);
		w = 1 + (x >> 60) % 3;
		wdist_add(&d, v, w);
		for (k = 0; k < w; k++)
			all[n++] = v;
	}
	wdist_summarise(&d, &s);
	qsort(all, n, sizeof(double), cmp_dbl_asc);
	got[0] = s.p50;
	got[1] = s.p90;
	got[2] = s.p95;
	got[3] = s.p99;
	for (k = 0; k < 4; k++) {
		double pos = q[k] * (double)(n - 1), w = pos - floor(pos);
		size_t lo = (size_t)pos;
		double want = all[lo] + w * (all[lo + 1] - all[lo]);
		ok &= fabs(got[k] - want) <= 1e-12 * (1 + fabs(want));
	}
	CHECK(ok && wdist_exact(&d) && s.n == n && s.max == all[n - 1],
	      "wdist exact summary of 3000 distinct values (radix-sorted) equals the expanded multiset's");
	free(all);
	wdist_release(&d);
}

static void test_wdist(void)
{
	struct wdist d, m, big, ref;
	struct dist_summary s, t;
	float *x;
	size_t i, n = 3 * WDIST_EXACT_MAX, k;
	struct pcg32 r;
	double worst = 0;

	/* {1, 2.5, 2.5, 5, 5, 5, 10}: mean 31/7, std (population)
	 * 2.70487088982307, p50 x[3] = 5, p90 at 5.4: 5 + 0.4 x 5 = 7,
	 * p95 at 5.7: 8.5, p99 at 5.94: 9.7 */
	wdist_init(&d);
	wdist_add(&d, 5.0, 3);
	wdist_add(&d, 1.0, 1);
	wdist_add(&d, 2.5, 2);
	wdist_add(&d, 10.0, 1);
	wdist_add(&d, 99.0, 0); /* weight 0: nothing */
	wdist_add(&d, NAN, 4);  /* NaN: nothing */
	wdist_summarise(&d, &s);
	CHECK(s.n == 7 && s.mean == 31.0 / 7 && fabs(s.std - 2.70487088982307) < 1e-14 && s.p50 == 5.0 &&
		      fabs(s.p90 - 7) < 1e-14 && fabs(s.p95 - 8.5) < 1e-14 && fabs(s.p99 - 9.7) < 1e-14 &&
		      s.max == 10.0 && wdist_exact(&d),
	      "wdist exact: n %zu mean %.15g std %.15g p50 %g p90 %.15g p95 %.15g p99 %.15g max %g", s.n, s.mean,
	      s.std, s.p50, s.p90, s.p95, s.p99, s.max);
	/* the same values one by one, in another order, give the same bytes */
	wdist_init(&m);
	wdist_add(&m, 10.0, 1);
	for (i = 0; i < 3; i++)
		wdist_add(&m, 5.0, 1);
	wdist_add(&m, 2.5, 1);
	wdist_add(&m, 1.0, 1);
	wdist_add(&m, 2.5, 1);
	wdist_summarise(&m, &t);
	CHECK(memcmp(&s, &t, sizeof(s)) == 0, "wdist: weights and repeats, any order, same summary");
	wdist_release(&m);
	/* merge: d + d doubles every weight (percentiles of the expanded
	 * multiset {1,1,2.5 x4,5 x6,10,10}: p50 at 6.5 = 5) */
	wdist_init(&m);
	wdist_merge(&m, &d);
	wdist_merge(&m, &d);
	wdist_summarise(&m, &t);
	CHECK(t.n == 14 && t.mean == s.mean && t.p50 == 5.0 && t.max == 10.0, "wdist merge (n %zu)", t.n);
	wdist_release(&m);
	wdist_release(&d);
	wdist_init(&d);
	wdist_summarise(&d, &s);
	CHECK(s.n == 0 && s.mean == 0 && s.max == 0, "wdist empty: n 0");
	wdist_release(&d);
	/* past WDIST_EXACT_MAX distinct values: the histogram, within
	 * WDIST_REL_ERR of the exact percentiles; count and max exact */
	x = malloc(n * sizeof(float));
	pcg32_seed(&r, 21, 3);
	wdist_init(&big);
	for (i = 0; i < n; i++) {
		x[i] = (float)(1.0 + 50.0 * pcg32_double(&r));
		wdist_add(&big, x[i], 1);
	}
	worst = worst_rel(&big, x, n, &s, &t);
	CHECK(!wdist_exact(&big) && s.n == n && s.max == t.max && rel(s.mean, t.mean) < 1e-9 &&
		      worst <= WDIST_REL_ERR,
	      "wdist past %u distinct values: buckets, worst relative error %.2e <= %g", WDIST_EXACT_MAX,
	      worst, WDIST_REL_ERR);
	/* more shapes: ten decades, ties and zeros, all negative */
	{
		int shape;
		for (shape = 0; shape < 3; shape++) {
			struct wdist b;
			wdist_init(&b);
			for (i = 0; i < n; i++) {
				double u = pcg32_double(&r);
				x[i] = shape == 0 ? (float)exp(u * 23.0 - 9.2)
				       : shape == 1 ? (u < 0.3 ? 0.0f : (float)(12.5 + floor(-log(1 - u) * 400000) / 40000))
						    : -(float)(1.0 + u * 1000.0);
				wdist_add(&b, x[i], 1);
			}
			worst = worst_rel(&b, x, n, &s, &t);
			CHECK(!wdist_exact(&b) && s.n == n && s.max == t.max && rel(s.mean, t.mean) < 1e-9 &&
				      worst <= WDIST_REL_ERR,
			      "wdist buckets, %s: worst relative error %.2e <= %g",
			      shape == 0 ? "ten decades" : shape == 1 ? "ties and zeros" : "negative", worst,
			      WDIST_REL_ERR);
			wdist_release(&b);
		}
	}
	/* a merge of an exact part into a histogram one, and the reverse */
	wdist_init(&ref);
	wdist_add(&ref, 3.0, 5);
	wdist_merge(&ref, &big);
	wdist_init(&m);
	wdist_merge(&m, &big);
	wdist_add(&m, 3.0, 5);
	k = 0;
	wdist_summarise(&ref, &s);
	wdist_summarise(&m, &t);
	k = s.n == n + 5 && t.n == n + 5 && !wdist_exact(&ref) && !wdist_exact(&m);
	CHECK(k, "wdist merge exact into histogram and back: n %zu / %zu", s.n, t.n);
	wdist_release(&ref);
	wdist_release(&m);
	wdist_release(&big);
	free(x);
}

static void test_loghist(void)
{
	size_t n = 300000, i, half;
	float *x = malloc(n * sizeof(float));
	struct pcg32 r;
	struct loghist all, h1, h2;
	int same = 1;

	pcg32_seed(&r, 13, 1);
	/* latencies over ten decades: 1e-4 .. 1e6 ms */
	for (i = 0; i < n; i++)
		x[i] = (float)exp(pcg32_double(&r) * 23.0 - 9.2);
	loghist_vs_exact("ten decades", x, n);
	/* a narrow, heavy-tailed spread with ties and zeros (queue times) */
	for (i = 0; i < n; i++) {
		double u = pcg32_double(&r);
		x[i] = u < 0.3 ? 0.0f : (float)(12.5 + floor(-log(1 - u) * 40) / 4);
	}
	loghist_vs_exact("ties and zeros", x, n);
	/* all values negative */
	for (i = 0; i < n; i++)
		x[i] = -(float)(1.0 + pcg32_double(&r) * 1000.0);
	loghist_vs_exact("negative", x, n);
	/* merged halves give what one histogram of everything gives */
	for (i = 0; i < n; i++)
		x[i] = (float)exp(pcg32_double(&r) * 8.0);
	loghist_init(&all);
	loghist_init(&h1);
	loghist_init(&h2);
	half = n / 3;
	for (i = 0; i < n; i++) {
		loghist_add(&all, x[i]);
		loghist_add(i < half ? &h1 : &h2, x[i]);
	}
	loghist_merge(&h1, &h2);
	for (i = 0; i <= 100; i++)
		same &= loghist_percentile(&h1, i / 100.0) == loghist_percentile(&all, i / 100.0);
	CHECK(same && h1.n == all.n && h1.max == all.max, "loghist merge of two parts = one histogram");
	CHECK(all.pos.len < 20000, "loghist memory bounded: %zu buckets for 3.5 decades", all.pos.len);
	loghist_release(&all);
	loghist_release(&h1);
	loghist_release(&h2);
	loghist_init(&all);
	CHECK(loghist_percentile(&all, 0.5) == 0, "loghist empty gives 0");
	loghist_add(&all, 7.25);
	CHECK(rel(loghist_percentile(&all, 0.5), 7.25) <= LOGHIST_REL_ERR &&
		      loghist_percentile(&all, 1.0) == 7.25,
	      "loghist one value");
	loghist_release(&all);
	free(x);
}

/* tline: 100,000 times 0.01 s apart from 5 s (a span of 1000 s, so the
 * buckets widen 18 times from 1 us to 2^18 us), counted in windows: whole
 * buckets exactly, a window within its two boundary buckets' counts. */
static void test_tline(void)
{
	struct tline t;
	double w, c, bucket;
	int i;

	tline_init(&t, 5, 1e-6);
	for (i = 0; i < 100000; i++)
		tline_add(&t, 5 + 0.01 * i);
	tline_add(&t, NAN);
	w = t.width;
	bucket = w / 0.01; /* times a bucket holds */
	CHECK(t.n == 100000 && w == 0x1p18 * 1e-6, "n %llu, width %.9g s after widening",
	      (unsigned long long)t.n, w);
	c = tline_count(&t, 5, 5 + 100 * w);
	CHECK(fabs(c - 100 * bucket) <= 1, "100 whole buckets: %.1f of %.1f times", c, 100 * bucket);
	c = tline_count(&t, 255.005, 755.005); /* 50,001 times in [255.005, 755.005] */
	CHECK(fabs(c - 50001) <= 2 * bucket, "[255.005, 755.005]: %.1f of 50001 times (within %.0f)", c,
	      2 * bucket);
	CHECK(tline_count(&t, 0, 1e9) == 100000 && tline_count(&t, 6, 5) == 0 &&
		      tline_count(&t, 2000, 3000) == 0,
	      "every time in a window over all; none in an empty or later window");
	c = tline_count(&t, 500, 500);
	CHECK(c == 0, "a window of no width: %g", c);
	tline_release(&t);
}

/* argtab: one table gives the getopt entries (an alias keeps its row's
 * code, a short option its character), the values with the table's
 * ranges and messages, the given marks and the --help text at the column. */
struct at_opts {
	const char *out, *name;
	int64_t seeds;
	int jobs;
	double rate;
	bool fast, slow, seeds_given;
};

static void at_section(FILE *f)
{
	fputs("[section]\n", f);
}

static void test_argtab(void)
{
	static const struct argtab_row rows[] = {
		AT_TXT("usage: x [options]\n"),
		{AT_S("-o", "FILE", offsetof(struct at_opts, out), "write there")},
		{AT_A("--output")},
		{AT_I("--seeds", "K", offsetof(struct at_opts, seeds), 1, 64, "seeds, each\nfrom the first"),
		 .given = ARGTAB_GIVEN(struct at_opts, seeds_given)},
		{AT_I32V("--jobs", "N", offsetof(struct at_opts, jobs), 1, 8, NULL)},
		{AT_N("--rate", "X", offsetof(struct at_opts, rate), 0, true, "")},
		{AT_B("--fast", offsetof(struct at_opts, fast), "on")},
		{AT_C("--no-slow", offsetof(struct at_opts, slow), NULL)},
		{AT_S("--a-very-long-flag", "VALUE", offsetof(struct at_opts, name), "past the column")},
		{AT_O("--own", "V", 42, NULL)},
		AT_SEC(at_section),
	};
	static const struct argtab t = ARGTAB(rows, 16);
	struct option lo[16];
	struct at_opts o = {.slow = true};
	char shorts[8] = "h", *help = NULL;
	size_t n = 0, len = 0, i;
	int own = 0, out_code = -1, output_code = -2;
	struct err e;
	FILE *f;

	argtab_options(&t, lo, &n, 16, shorts, sizeof(shorts));
	for (i = 0; i < n; i++) {
		if (!strcmp(lo[i].name, "output"))
			output_code = lo[i].val;
		if (!strcmp(lo[i].name, "fast"))
			out_code = lo[i].has_arg;
	}
	CHECK(n == 8 && lo[n].name == NULL && !strcmp(shorts, "ho:") && output_code == ARGTAB_CODE + 1 &&
		      out_code == no_argument,
	      "8 long entries, -o short ('%s'), --output is -o's row, --fast takes no value", shorts);
	memset(&e, 0, sizeof(e));
	CHECK(argtab_parse(&t, 'o', "a.txt", &o, &own, &e) == 1 && !strcmp(o.out, "a.txt"), "-o FILE");
	CHECK(argtab_parse(&t, ARGTAB_CODE + 3, "12", &o, &own, &e) == 1 && o.seeds == 12 && o.seeds_given,
	      "--seeds 12, given");
	CHECK(argtab_parse(&t, ARGTAB_CODE + 4, "9", &o, &own, &e) < 0 && e.code == SS_EUSAGE &&
		      strstr(e.msg, "--jobs must be in [1, 8], got 9") && o.jobs == 0,
	      "--jobs 9 out of range: '%s'", e.msg);
	CHECK(argtab_parse(&t, ARGTAB_CODE + 5, "0", &o, &own, &e) < 0 && e.code == SS_EUSAGE && strstr(e.msg, "--rate must be > 0"),
	      "--rate 0 below an open bound: '%s'", e.msg);
	CHECK(argtab_parse(&t, ARGTAB_CODE + 5, "2.385", &o, &own, &e) == 1 && o.rate == 2.385, "--rate 2.385");
	CHECK(argtab_parse(&t, ARGTAB_CODE + 6, NULL, &o, &own, &e) == 1 && o.fast &&
		      argtab_parse(&t, ARGTAB_CODE + 7, NULL, &o, &own, &e) == 1 && !o.slow,
	      "a switch on, a switch off");
	CHECK(argtab_parse(&t, ARGTAB_CODE + 9, "v", &o, &own, &e) == 2 && own == 42, "an own row hands back its code");
	CHECK(argtab_parse(&t, 1200, "v", &o, &own, &e) == 0 && argtab_parse(&t, 'x', "v", &o, &own, &e) == 0,
	      "codes not in the table");
	f = open_memstream(&help, &len);
	argtab_help(&t, f);
	fclose(f);
	CHECK(help && !strcmp(help, "usage: x [options]\n"
				    "  -o FILE       write there\n"
				    "  --seeds K     seeds, each\n"
				    "                from the first\n"
				    "  --rate X\n"
				    "  --fast        on\n"
				    "  --a-very-long-flag VALUE past the column\n"
				    "[section]\n"),
	      "help at column 16:\n%s", help ? help : "");
	free(help);
}

/* argtab's shared tables: an AT_TABLE row includes another table (its
 * values and marks where the row says, codes counted in place, its help
 * unless quiet), a command's own row of a spelling hides the included one,
 * AT_FUNC parses through a function, AT_MARK only marks, .bit or-s a bit,
 * the table's noted hook sees each parsed row and AT_CHOICE picks a word. */
struct at_inner {
	int n;
	double x;
	unsigned bits;
};
struct at_marks {
	bool m;
	unsigned bits;
};
struct at_outer {
	const char *name;
	struct at_inner in;
	struct at_marks mk;
	int hidden, noted;
	bool any;
};

static int at_twice(const char *flag, const char *arg, void *dst, struct err *e)
{
	int64_t v;
	int rc = argval_int(flag, arg, 0, 10, &v, e);

	if (rc == 0)
		*(int *)dst = 2 * (int)v;
	return rc;
}

static void at_note(void *base, const struct argtab_row *r)
{
	(void)r;
	((struct at_inner *)base)->bits |= 1u << 8;
}

static void test_argtab_tables(void)
{
	static const struct argtab_row in_rows[] = {
		AT_TXT("[inner help]\n"),
		{AT_F("--n", "N", offsetof(struct at_inner, n), at_twice, NULL)},
		{AT_A("--n-alias")},
		{AT_N("--x", "X", offsetof(struct at_inner, x), 0, false, NULL), .given = ARGTAB_GIVEN(struct at_marks, bits),
		 .bit = 4},
		{AT_M("--mark", NULL), .given = ARGTAB_GIVEN(struct at_marks, m)},
		{AT_M("--name", NULL)},
	};
	static const struct argtab inner = {.row = in_rows, .n = 6, .noted = at_note};
	static const struct argtab_row out_rows[] = {
		{AT_O("--name", "S", 7, NULL)},
		{AT_T(&inner, offsetof(struct at_outer, in)), .marks = ARGTAB_GIVEN(struct at_outer, mk),
		 .given = ARGTAB_GIVEN(struct at_outer, any)},
		{AT_TQ(&inner, offsetof(struct at_outer, in))},
		{AT_B("--last", offsetof(struct at_outer, noted), NULL)},
		{AT_W("--fmt", "text|json|summary", offsetof(struct at_outer, hidden), NULL)},
	};
	static const struct argtab t = ARGTAB(out_rows, 0);
	struct option lo[16];
	char shorts[4] = "", *help = NULL;
	size_t n = 0, len = 0, i;
	int code[5] = {0}, own = 0;
	static const char *const names[5] = {"name", "n", "n-alias", "mark", "last"};
	struct at_outer o;
	struct err e;
	FILE *f;

	memset(&o, 0, sizeof(o));
	memset(&e, 0, sizeof(e));
	argtab_options(&t, lo, &n, 16, shorts, sizeof(shorts));
	for (i = 0; i < n; i++)
		for (size_t k = 0; k < 5; k++)
			if (!strcmp(lo[i].name, names[k]))
				code[k] = lo[i].val;
	CHECK(n == 7 && code[0] == ARGTAB_CODE && code[1] == ARGTAB_CODE + 2 && code[2] == code[1] &&
		      code[3] == ARGTAB_CODE + 5 && code[4] == ARGTAB_CODE + 13,
	      "7 entries (--name once, the quiet copy's spellings hidden), codes counted in place");
	CHECK(argtab_parse(&t, code[0], "a", &o, &own, &e) == 2 && own == 7 && !o.any, "own --name hides the inner one");
	CHECK(argtab_parse(&t, code[2], "3", &o, &own, &e) == 1 && o.in.n == 6 && o.any && o.in.bits == 1u << 8,
	      "--n-alias 3 through the function, the including row's mark and the hook");
	CHECK(argtab_parse(&t, ARGTAB_CODE + 4, "2.385", &o, &own, &e) == 1 && o.in.x == 2.385 && o.mk.bits == 4,
	      "--x 2.385 or-s its bit");
	CHECK(argtab_parse(&t, code[3], NULL, &o, &own, &e) == 1 && o.mk.m, "--mark marks at the row's .marks");
	CHECK(argtab_parse(&t, code[1], "11", &o, &own, &e) < 0 && strstr(e.msg, "--n must be in [0, 10]"),
	      "the function's message names the flag: '%s'", e.msg);
	CHECK(argtab_parse(&t, code[4], NULL, &o, &own, &e) == 1 && o.noted, "a row after two tables");
	CHECK(argtab_parse(&t, ARGTAB_CODE + 14, "summary", &o, &own, &e) == 1 && o.hidden == 2, "--fmt summary: word 2");
	CHECK(argtab_parse(&t, ARGTAB_CODE + 14, "xml", &o, &own, &e) < 0 &&
		      !strcmp(e.msg, "--fmt must be text, json or summary, got 'xml'"),
	      "a word not listed: '%s'", e.msg);
	f = open_memstream(&help, &len);
	argtab_help(&t, f);
	fclose(f);
	CHECK(help && !strcmp(help, "[inner help]\n"), "the table's help once (the quiet copy's left out): '%s'",
	      help ? help : "");
	free(help);
}

/* afile_write_all: the jobs' files all written, or none when one fails
 * (a later job's failure removes an earlier one's file). */
static int aw_text(FILE *f, const void *ctx, struct err *e)
{
	(void)e;
	fputs(ctx, f);
	return 0;
}

static int aw_fail(FILE *f, const void *ctx, struct err *e)
{
	(void)f;
	(void)ctx;
	return err_set(e, SS_EDATA, "writer failed");
}

static void test_afile_write_all(void)
{
	char dir[] = "/tmp/servesim-afw-XXXXXX", a[256], b[256], cmd[300], got[16] = "";
	struct err e;
	FILE *f;

	if (!mkdtemp(dir)) {
		CHECK(0, "mkdtemp");
		return;
	}
	snprintf(a, sizeof(a), "%s/a.txt", dir);
	snprintf(b, sizeof(b), "%s/b.txt", dir);
	{
		const struct afile_job bad[3] = {{a, aw_text, "one\n"}, {NULL, aw_fail, NULL}, {b, aw_fail, NULL}};
		err_clear(&e);
		CHECK(afile_write_all(bad, 3, &e) == -SS_EDATA && !paths_exists(a) && !paths_exists(b),
		      "a failing job leaves no file of the set: %s", e.msg);
	}
	{
		const struct afile_job good[3] = {{a, aw_text, "one\n"}, {NULL, aw_fail, NULL}, {b, aw_text, "two\n"}};
		CHECK(afile_write_all(good, 3, &e) == 0 && paths_exists(a) && paths_exists(b),
		      "every job written; one without a path skipped");
	}
	f = fopen(b, "r");
	CHECK(f && fgets(got, sizeof(got), f) && !strcmp(got, "two\n"), "the second file's content");
	if (f)
		fclose(f);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CHECK(system(cmd) == 0, "cleanup");
	{
		/* afile_print_whole: all of a writer's output, or none */
		const struct afile_job ok = {NULL, aw_text, "whole\n"}, bad = {NULL, aw_fail, NULL};
		char *out = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&out, &len);
		CHECK(m && afile_print_whole(m, &bad, &e) == -SS_EDATA && afile_print_whole(m, &ok, &e) == 0, "print");
		if (m)
			fclose(m);
		CHECK(out && !strcmp(out, "whole\n"), "only the writer that succeeded printed: '%s'", out ? out : "");
		free(out);
	}
}

/* argval: a flag's number is the whole value, blanks and all: strtoll and
 * strtod pass over leading blanks, which a quoted value (--jobs ' 3') brings
 * in by mistake; numbers inside a value (h100:8, 1p2d) the same. */
static void test_argval_strict(void)
{
	static const char *const bad[] = {" 3", "\t3", "\n3", "3 ", "", " ", "0x10", "- 3", "+-3", "3.0"};
	static const char *const badnum[] = {" 3", "\t3", "3 ", "", "0x10", "inf", "nan", " inf", "1e", "e5"};
	long long v[3] = {0, 0, 0};
	const char *end;
	int64_t i64;
	double d;
	struct err e;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(argval_int("--jobs", bad[i], 1, 256, &i64, &e) == -SS_EUSAGE &&
			      strstr(e.msg, "--jobs must be an integer"),
		      "argval_int '%s' refused: '%s'", bad[i], e.msg);
	for (i = 0; i < sizeof(badnum) / sizeof(badnum[0]); i++)
		CHECK(argval_num("--rate", badnum[i], 0, true, &d, &e) == -SS_EUSAGE, "argval_num '%s' refused",
		      badnum[i]);
	CHECK(argval_int("--jobs", "+3", 1, 256, &i64, &e) == 0 && i64 == 3, "argval_int '+3' is 3");
	CHECK(argval_num("--rate", ".5", 0, true, &d, &e) == 0 && d == 0.5, "argval_num '.5' is 0.5");
	CHECK(argval_lead_int("8:", &v[0], &end) && v[0] == 8 && *end == ':', "lead_int '8:'");
	CHECK(!argval_lead_int(" 8", &v[0], &end) && !argval_lead_int(".5", &v[0], &end) &&
		      !argval_lead_int("99999999999999999999", &v[0], &end),
	      "lead_int refuses ' 8', '.5' and one past long long");
	CHECK(argval_lead_num("2.385,1", &d, &end) && d == 2.385 && *end == ',', "lead_num '2.385,1'");
	CHECK(!argval_lead_num(" 1", &d, &end) && !argval_lead_num("0x1p3", &d, &end) &&
		      !argval_lead_num("infinity", &d, &end),
	      "lead_num refuses ' 1', hex and infinity");
	CHECK(argval_pattern("12p34d", "#p#d", v, 2) && v[0] == 12 && v[1] == 34, "pattern 12p34d");
	CHECK(argval_pattern("3e1pd", "#e1pd", v, 1) && v[0] == 3, "pattern 3e1pd");
	CHECK(!argval_pattern("1p 2d", "#p#d", v, 2) && !argval_pattern(" 1p2d", "#p#d", v, 2) &&
		      !argval_pattern("1p2d ", "#p#d", v, 2) && !argval_pattern("1p2", "#p#d", v, 2) &&
		      !argval_pattern("1p2dx", "#p#d", v, 2) && !argval_pattern("1p2d", "#p#d", v, 1),
	      "pattern refuses blanks, a short or long text and more integers than room");
}

/* argval_items: every item in order, nothing for an empty list, and each
 * malformed list refused with the flag named, before a later item is given. */
static void test_argval_items(void)
{
	static const struct {
		const char *list, *items, *msg; /* items joined by '|'; msg: what the error says */
	} cases[] = {
		{"1,2,4", "1|2|4", NULL},
		{"a", "a", NULL},
		{"", "", NULL},
		{",a", "", "an empty item"},
		{"a,", "a", "an empty item"},
		{"a,,b", "a", "an empty item"},
		{",", "", "an empty item"},
	};
	char joined[64], longer[ARGVAL_ITEM_MAX + 8];
	struct argval_items it;
	struct err e;
	size_t i;
	int rc;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		joined[0] = '\0';
		memset(&e, 0, sizeof(e));
		argval_items_start(&it, "--tp", cases[i].list);
		while ((rc = argval_items_next(&it, &e)) > 0) {
			size_t len = strlen(joined), add = strlen(it.item);
			if (len + add + 2 > sizeof(joined))
				break;
			if (it.n > 1)
				joined[len++] = '|';
			memcpy(joined + len, it.item, add + 1);
		}
		CHECK(!strcmp(joined, cases[i].items), "'%s': items '%s', expected '%s'", cases[i].list, joined,
		      cases[i].items);
		if (cases[i].msg)
			CHECK(rc == -SS_EUSAGE && strstr(e.msg, cases[i].msg) && strstr(e.msg, "--tp"),
			      "'%s': rc %d, '%s'", cases[i].list, rc, e.msg);
		else
			CHECK(rc == 0, "'%s': rc %d", cases[i].list, rc);
	}
	memset(longer, 'x', sizeof(longer) - 1);
	longer[sizeof(longer) - 1] = '\0';
	longer[2] = ',';
	argval_items_start(&it, "--tp", longer);
	CHECK(argval_items_next(&it, &e) == 1 && !strcmp(it.item, "xx"), "first item before the long one");
	CHECK(argval_items_next(&it, &e) == -SS_EUSAGE && strstr(e.msg, "too long"), "long item: '%s'", e.msg);
	longer[2] = 'x';
	longer[ARGVAL_ITEM_MAX - 1] = '\0';
	argval_items_start(&it, "--tp", longer);
	CHECK(argval_items_next(&it, &e) == 1 && strlen(it.item) == ARGVAL_ITEM_MAX - 1 &&
		      argval_items_next(&it, &e) == 0,
	      "an item of ARGVAL_ITEM_MAX - 1 characters fits");
}

#if defined(__linux__) && defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__)
/* The flags smaps gives the mapping that holds p ("" when none does). */
static void vma_flags(const void *p, char *out, size_t n)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	bool in = false;

	out[0] = 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' ')) {
			in = (uintptr_t)p >= lo && (uintptr_t)p < hi;
		} else if (in && strncmp(line, "VmFlags:", 8) == 0) {
			size_t k = strlen(line + 8);
			if (k >= n)
				k = n - 1;
			memcpy(out, line + 8, k);
			out[k] = 0;
			out[strcspn(out, "\n")] = 0;
			break;
		}
	}
	fclose(f);
}
#endif

/* alloc.h xheap_huge and xadvise_huge: a block the heap gives after
 * xheap_huge, and an array advised afterwards, lie in mappings advised for
 * transparent huge pages (smaps' "hg"), their contents as written.  Last:
 * xheap_huge changes malloc's thresholds for the rest of the process.
 * Where the kernel has no transparent huge pages, or the allocator is not
 * glibc's (sanitizers), there is nothing to look at. */
static void test_heap_huge(void)
{
#if defined(__linux__) && defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__)
	const size_t mb = (size_t)1 << 20;
	char flags[512], *p, *q;
	size_t i;
	bool same = true;

	if (access("/sys/kernel/mm/transparent_hugepage/enabled", R_OK) != 0) {
		CHECK(1, "heap on huge pages: no transparent huge pages here, skipped");
		return;
	}
	xheap_huge(64 * mb);
	p = xmalloc(8 * mb); /* (under the raised 32 MiB threshold: from the heap) */
	memset(p, 7, 8 * mb);
	vma_flags(p + 4 * mb, flags, sizeof(flags));
	CHECK(strstr(flags, " hg") != NULL, "heap on huge pages: a block after xheap_huge is advised (VmFlags:%s)",
	      flags);
	for (i = 0; i < 8 * mb; i += 4093)
		same &= p[i] == 7;
	CHECK(same, "heap on huge pages: the block holds what was written");
	q = xmalloc(40 * mb); /* (past it: mapped apart, not advised) */
	xadvise_huge(q, 40 * mb);
	vma_flags(q + 20 * mb, flags, sizeof(flags));
	CHECK(strstr(flags, " hg") != NULL, "xadvise_huge: a mapped array is advised (VmFlags:%s)", flags);
	free(q);
	free(p);
#else
	CHECK(1, "heap on huge pages: not glibc's allocator on Linux (a sanitizer's?), skipped");
#endif
}

int main(void)
{
	test_afile_write_all();
	test_argtab();
	test_argtab_tables();
	test_argval_strict();
	test_argval_items();
	test_pcg32();
	test_sbuf();
	test_gzread();
	test_afile();
	test_afile_readonly();
	test_csv_quotes();
	test_decnum();
	test_decnum_round();
	test_sort_floats();
	test_loghist();
	test_wdist();
	test_wdist_radix();
	test_tline();
	CHECK(paths_edit_distance("llama-2-7b", "llama-2-7b") == 0, "edit distance 0");
	CHECK(paths_edit_distance("lama-2-7b", "llama-2-7b") == 1, "edit distance 1");
	CHECK(paths_edit_distance("LLAMA", "llama") == 0, "edit distance case-insensitive");
	test_heap_huge(); /* (last: it changes malloc's thresholds) */
	return check_done();
}
