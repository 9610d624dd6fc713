/*
 * ln_outfile.c -- see ln_outfile.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "ln_outfile.h"

struct ln_outfile {
    char *path;
    char *tmp;          /* NULL: written in place (not a regular file) */
    FILE *fp;
};

ln_bool ln_outfile_is_regular(const char *path)
{
    struct stat st;

    if (stat(path, &st) != 0)
        return errno == ENOENT;
    return S_ISREG(st.st_mode) != 0;
}

ln_outfile *ln_outfile_open(const char *path)
{
    ln_outfile *o;
    struct stat st;
    int fd;

    if (!path || !*path) {
        ln_error(LN_EIO, "no output file name");
        return NULL;
    }
    o = ln_alloc(sizeof *o);
    memset(o, 0, sizeof *o);
    o->path = ln_strdup(path);
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        ln_error(LN_EIO, "cannot write '%s': it is a directory", path);
        goto fail;
    }
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        /* a device or FIFO: in place, never replaced */
        if (!(o->fp = fopen(path, "wb"))) {
            ln_error(LN_EIO, "cannot write '%s': %s", path, strerror(errno));
            goto fail;
        }
        return o;
    }
    o->tmp = ln_sprintf("%s.tmpXXXXXX", path);
    if ((fd = mkstemp(o->tmp)) < 0) {
        ln_error(LN_EIO, "cannot write '%s': %s", path, strerror(errno));
        ln_free(o->tmp);
        o->tmp = NULL;
        goto fail;
    }
    {
        /* mkstemp makes it 0600; give it what a new file gets (umask) */
        mode_t mask = umask(0);
        umask(mask);
        (void)fchmod(fd, 0666 & ~mask);
    }
    if (!(o->fp = fdopen(fd, "wb"))) {
        ln_error(LN_EIO, "cannot write '%s': %s", path, strerror(errno));
        close(fd);
        unlink(o->tmp);
        goto fail;
    }
    return o;

fail:
    ln_free(o->tmp);
    ln_free(o->path);
    ln_free(o);
    return NULL;
}

FILE *ln_outfile_fp(const ln_outfile *o)
{
    return o->fp;
}

const char *ln_outfile_path(const ln_outfile *o)
{
    return o->path;
}

static void outfile_free(ln_outfile *o)
{
    ln_free(o->tmp);
    ln_free(o->path);
    ln_free(o);
}

int ln_outfile_commit(ln_outfile *o)
{
    int bad, err;

    errno = 0;
    bad = ferror(o->fp) || fflush(o->fp) != 0;
    err = errno;
    if (fclose(o->fp) != 0 && !bad) {
        bad = 1;
        err = errno;
    }
    o->fp = NULL;
    if (!bad && o->tmp && rename(o->tmp, o->path) != 0) {
        bad = 1;
        err = errno;
    }
    if (bad) {
        int ret = ln_error(LN_EIO, "cannot write '%s'%s%s", o->path, err ? ": " : "",
                           err ? strerror(err) : "");
        if (o->tmp)
            unlink(o->tmp);
        outfile_free(o);
        return ret;
    }
    outfile_free(o);
    return 0;
}

void ln_outfile_abort(ln_outfile *o)
{
    if (!o)
        return;
    if (o->fp)
        fclose(o->fp);
    if (o->tmp)
        unlink(o->tmp);
    outfile_free(o);
}

int ln_outfile_write(const char *path, const void *data, size_t len)
{
    ln_outfile *o = ln_outfile_open(path);

    if (!o)
        return ln_error_code();
    if (len && fwrite(data, 1, len, o->fp) != len) {
        int ret = ln_error(LN_EIO, "cannot write '%s': %s", path, strerror(errno));
        ln_outfile_abort(o);
        return ret;
    }
    return ln_outfile_commit(o);
}
