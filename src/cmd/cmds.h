/* cmds.h - one entry point per subcommand; each returns 0 or a negative
 * status with e filled, never exits. */
#ifndef SERVESIM_CMD_CMDS_H
#define SERVESIM_CMD_CMDS_H
#include <stdbool.h>

#include "base/err.h"

int cmd_ops(int argc, char **argv, struct err *e);
int cmd_roofline(int argc, char **argv, struct err *e);
int cmd_trace(int argc, char **argv, struct err *e);
int cmd_models(int argc, char **argv, struct err *e);
int cmd_gpus(int argc, char **argv, struct err *e);
int cmd_run(int argc, char **argv, struct err *e);
int cmd_eval(int argc, char **argv, struct err *e);
int cmd_import(int argc, char **argv, struct err *e);
int cmd_calibrate(int argc, char **argv, struct err *e);
int cmd_capacity(int argc, char **argv, struct err *e);
int cmd_sweep(int argc, char **argv, struct err *e);
int cmd_search(int argc, char **argv, struct err *e);
int cmd_report(int argc, char **argv, struct err *e);
int cmd_serve(int argc, char **argv, struct err *e);
/* What `models` and `gpus` print (also ops --list-models, --list-gpus). */
int list_models(bool json, struct err *e);
int list_gpus(bool json, struct err *e);

#endif
