/* calibreport.h - what `servesim calibrate` prints (text): the linear fit's
 * MAPE table, coefficients and verdict, the in-loop fit's, the choice, and
 * a calibration file checked against new runs. */
#ifndef SERVESIM_CALIBREPORT_H
#define SERVESIM_CALIBREPORT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "calib/study.h"

/* nexp: the experiments behind the units. */
void out_calib_linear(FILE *f, const struct calib_study *s, size_t nexp, uint64_t seed);
void out_calib_in_loop(FILE *f, const struct calib_study *s);
void out_calib_choice(FILE *f, const struct calib_study *s);
void out_calib_check(FILE *f, const char *path, const struct calib_check *c, size_t nexp);

#endif
