/*
 * ln_outfile.h -- writing an output file whole, and never over a device.
 *
 * Every file LightNet writes (IR, weights, reports, C source, raw tensors)
 * goes through here.  A regular file, or a path that does not exist yet,
 * is written to a temporary beside it (PATH.tmpXXXXXX) and renamed over it
 * on commit, so a failure leaves the old file, or nothing, and never half
 * a file.  Anything else that is not a directory -- /dev/null, /dev/stdout,
 * a FIFO -- is written in place: it is never unlinked or renamed over, so
 * `-o /dev/null` leaves the device a device.  A directory is refused.
 * Tools write sibling files (OUT.params, OUT.h) only beside a regular
 * output path (ln_outfile_is_regular).
 */
#ifndef LN_OUTFILE_H
#define LN_OUTFILE_H

#include <stdio.h>
#include "ln_util.h"

LN_CPPSTART

typedef struct ln_outfile ln_outfile;

/* Open path for writing (binary or text makes no difference on POSIX).
 * NULL and an LN_EIO error naming path when it cannot be written. */
ln_outfile *ln_outfile_open(const char *path);
FILE *ln_outfile_fp(const ln_outfile *o);
const char *ln_outfile_path(const ln_outfile *o);
/* Flush, close and (for a regular target) rename into place; frees o.
 * 0, or LN_EIO naming the path (the temporary is removed). */
int ln_outfile_commit(ln_outfile *o);
/* Close and throw away what was written (a device keeps what it got);
 * frees o.  NULL is ignored. */
void ln_outfile_abort(ln_outfile *o);
/* Write len bytes to path whole (open + write + commit). */
int ln_outfile_write(const char *path, const void *data, size_t len);
/* True when path is a regular file or does not exist: the only outputs
 * beside which sibling files (X.params, X.h) may be written. */
ln_bool ln_outfile_is_regular(const char *path);

LN_CPPEND
#endif
