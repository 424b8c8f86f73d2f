/*
 * archbuild's file-system observer: an LD_PRELOAD library that records every path a
 * preprocessing run (nvcc, the host compiler's driver, cc1plus, cicc) opened for reading or
 * looked at with stat/access, found or not, so direct mode keys on what the compiler really
 * looked at instead of a prediction (`observe.rs` reads the log).
 *
 * The log is `$ARCHBUILD_OBSERVE_LOG`; each record is one `write` of `<op> <absolute path>\n` to
 * a descriptor opened with O_APPEND, so records of concurrent processes never interleave:
 *   r  opened for reading (the path exists)     n  an open that failed
 *   s  stat/access that found the path          m  stat/access that did not
 * Opens for writing are not recorded (outputs are not inputs). Every wrapper calls the real
 * function first and leaves errno as that function set it.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static int log_fd = -1;
static int log_state; /* 0: not opened yet, 1: open, 2: no log */

static void open_log(void) {
    if (log_state != 0)
        return;
    const char *path = getenv("ARCHBUILD_OBSERVE_LOG");
    int fd = -1;
    if (path && *path)
        fd = (int)syscall(SYS_openat, AT_FDCWD, path,
                          O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) {
        log_state = 2;
        return;
    }
    if (__sync_bool_compare_and_swap(&log_fd, -1, fd))
        log_state = 1;
    else
        syscall(SYS_close, fd);
}

/* Writes one record for `path`, relative to `dirfd` (AT_FDCWD: the working directory). */
static void record(char op, int dirfd, const char *path) {
    if (!path || !*path)
        return;
    int saved = errno;
    open_log();
    if (log_state != 1) {
        errno = saved;
        return;
    }
    char buf[8192];
    size_t n = 0;
    buf[n++] = op;
    buf[n++] = ' ';
    if (path[0] != '/') {
        char base[4096];
        ssize_t len = -1;
        if (dirfd == AT_FDCWD) {
            if (getcwd(base, sizeof base))
                len = (ssize_t)strlen(base);
        } else {
            char link[64];
            snprintf(link, sizeof link, "/proc/self/fd/%d", dirfd);
            len = readlink(link, base, sizeof base - 1);
        }
        if (len <= 0 || (size_t)len + 2 > sizeof buf - n) {
            errno = saved;
            return;
        }
        memcpy(buf + n, base, (size_t)len);
        n += (size_t)len;
        buf[n++] = '/';
    }
    size_t plen = strlen(path);
    if (plen + 2 > sizeof buf - n) {
        errno = saved;
        return;
    }
    memcpy(buf + n, path, plen);
    n += plen;
    buf[n++] = '\n';
    ssize_t w = write(log_fd, buf, n);
    (void)w;
    errno = saved;
}

#define REAL(name, ret, args)                   \
    static ret(*real_##name) args;              \
    if (!real_##name)                           \
    *(void **)&real_##name = dlsym(RTLD_NEXT, #name)

static int reading(int flags) { return (flags & O_ACCMODE) == O_RDONLY; }

static void after_open(int fd, int dirfd, const char *path, int flags) {
    if (reading(flags))
        record(fd >= 0 ? 'r' : 'n', dirfd, path);
}

static mode_t mode_arg(int flags, va_list ap) {
    return (flags & (O_CREAT | O_TMPFILE)) ? (mode_t)va_arg(ap, int) : 0;
}

int open(const char *path, int flags, ...) {
    va_list ap;
    va_start(ap, flags);
    mode_t mode = mode_arg(flags, ap);
    va_end(ap);
    REAL(open, int, (const char *, int, ...));
    int fd = real_open(path, flags, mode);
    after_open(fd, AT_FDCWD, path, flags);
    return fd;
}

int open64(const char *path, int flags, ...) {
    va_list ap;
    va_start(ap, flags);
    mode_t mode = mode_arg(flags, ap);
    va_end(ap);
    REAL(open64, int, (const char *, int, ...));
    int fd = real_open64(path, flags, mode);
    after_open(fd, AT_FDCWD, path, flags);
    return fd;
}

int openat(int dirfd, const char *path, int flags, ...) {
    va_list ap;
    va_start(ap, flags);
    mode_t mode = mode_arg(flags, ap);
    va_end(ap);
    REAL(openat, int, (int, const char *, int, ...));
    int fd = real_openat(dirfd, path, flags, mode);
    after_open(fd, dirfd, path, flags);
    return fd;
}

int openat64(int dirfd, const char *path, int flags, ...) {
    va_list ap;
    va_start(ap, flags);
    mode_t mode = mode_arg(flags, ap);
    va_end(ap);
    REAL(openat64, int, (int, const char *, int, ...));
    int fd = real_openat64(dirfd, path, flags, mode);
    after_open(fd, dirfd, path, flags);
    return fd;
}

/* The fortified entry points `-D_FORTIFY_SOURCE` builds call. */
int __open_2(const char *path, int flags) {
    REAL(__open_2, int, (const char *, int));
    int fd = real___open_2(path, flags);
    after_open(fd, AT_FDCWD, path, flags);
    return fd;
}

int __open64_2(const char *path, int flags) {
    REAL(__open64_2, int, (const char *, int));
    int fd = real___open64_2(path, flags);
    after_open(fd, AT_FDCWD, path, flags);
    return fd;
}

int __openat_2(int dirfd, const char *path, int flags) {
    REAL(__openat_2, int, (int, const char *, int));
    int fd = real___openat_2(dirfd, path, flags);
    after_open(fd, dirfd, path, flags);
    return fd;
}

int __openat64_2(int dirfd, const char *path, int flags) {
    REAL(__openat64_2, int, (int, const char *, int));
    int fd = real___openat64_2(dirfd, path, flags);
    after_open(fd, dirfd, path, flags);
    return fd;
}

static void after_fopen(FILE *f, const char *path, const char *mode) {
    if (mode && mode[0] == 'r' && !strchr(mode, '+'))
        record(f ? 'r' : 'n', AT_FDCWD, path);
}

FILE *fopen(const char *path, const char *mode) {
    REAL(fopen, FILE *, (const char *, const char *));
    FILE *f = real_fopen(path, mode);
    after_fopen(f, path, mode);
    return f;
}

FILE *fopen64(const char *path, const char *mode) {
    REAL(fopen64, FILE *, (const char *, const char *));
    FILE *f = real_fopen64(path, mode);
    after_fopen(f, path, mode);
    return f;
}

static void after_stat(int rc, int dirfd, const char *path) {
    record(rc == 0 ? 's' : 'm', dirfd, path);
}

#define STAT_WRAPPER(name, st)                                   \
    int name(const char *path, struct st *buf) {                 \
        REAL(name, int, (const char *, struct st *));          \
        int rc = real_##name(path, buf);                         \
        after_stat(rc, AT_FDCWD, path);                          \
        return rc;                                               \
    }

STAT_WRAPPER(stat, stat)
STAT_WRAPPER(lstat, stat)
STAT_WRAPPER(stat64, stat64)
STAT_WRAPPER(lstat64, stat64)

/* glibc before 2.33 exports stat through these versioned helpers. */
#define XSTAT_WRAPPER(name, st)                                  \
    int name(int ver, const char *path, struct st *buf) {        \
        REAL(name, int, (int, const char *, struct st *));     \
        int rc = real_##name(ver, path, buf);                    \
        after_stat(rc, AT_FDCWD, path);                          \
        return rc;                                               \
    }

XSTAT_WRAPPER(__xstat, stat)
XSTAT_WRAPPER(__lxstat, stat)
XSTAT_WRAPPER(__xstat64, stat64)
XSTAT_WRAPPER(__lxstat64, stat64)

int fstatat(int dirfd, const char *path, struct stat *buf, int flags) {
    REAL(fstatat, int, (int, const char *, struct stat *, int));
    int rc = real_fstatat(dirfd, path, buf, flags);
    if (!(flags & AT_EMPTY_PATH) || (path && *path))
        after_stat(rc, dirfd, path);
    return rc;
}

int fstatat64(int dirfd, const char *path, struct stat64 *buf, int flags) {
    REAL(fstatat64, int, (int, const char *, struct stat64 *, int));
    int rc = real_fstatat64(dirfd, path, buf, flags);
    if (!(flags & AT_EMPTY_PATH) || (path && *path))
        after_stat(rc, dirfd, path);
    return rc;
}

int __fxstatat(int ver, int dirfd, const char *path, struct stat *buf, int flags) {
    REAL(__fxstatat, int, (int, int, const char *, struct stat *, int));
    int rc = real___fxstatat(ver, dirfd, path, buf, flags);
    after_stat(rc, dirfd, path);
    return rc;
}

int __fxstatat64(int ver, int dirfd, const char *path, struct stat64 *buf, int flags) {
    REAL(__fxstatat64, int, (int, int, const char *, struct stat64 *, int));
    int rc = real___fxstatat64(ver, dirfd, path, buf, flags);
    after_stat(rc, dirfd, path);
    return rc;
}

struct statx;
int statx(int dirfd, const char *path, int flags, unsigned int mask, struct statx *buf) {
    REAL(statx, int, (int, const char *, int, unsigned int, struct statx *));
    int rc = real_statx(dirfd, path, flags, mask, buf);
    if (!(flags & AT_EMPTY_PATH) || (path && *path))
        after_stat(rc, dirfd, path);
    return rc;
}

int access(const char *path, int amode) {
    REAL(access, int, (const char *, int));
    int rc = real_access(path, amode);
    /* EACCES: the path is there, without that permission. */
    after_stat(rc == 0 || errno == EACCES ? 0 : -1, AT_FDCWD, path);
    return rc;
}

int faccessat(int dirfd, const char *path, int amode, int flags) {
    REAL(faccessat, int, (int, const char *, int, int));
    int rc = real_faccessat(dirfd, path, amode, flags);
    after_stat(rc == 0 || errno == EACCES ? 0 : -1, dirfd, path);
    return rc;
}
