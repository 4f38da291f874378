// Interposes open(2) and openat(2) in the test process (the executable's definitions come before
// libc's for every library that calls them), to hold the opens of chosen files: a test can make a
// file read block as a hung disk would, which a FIFO cannot (Foundation opens files non-blocking
// and refuses what is not a regular file).
#define _GNU_SOURCE
#include "FileOpenProbe.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/types.h>

static _Atomic int holding;
static char held_marker[1024];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t released = PTHREAD_COND_INITIALIZER;
static int waiting;

void file_open_probe_hold(const char *marker) {
    pthread_mutex_lock(&lock);
    strncpy(held_marker, marker, sizeof(held_marker) - 1);
    atomic_store(&holding, 1);
    pthread_mutex_unlock(&lock);
}

int file_open_probe_waiting(void) {
    pthread_mutex_lock(&lock);
    int count = waiting;
    pthread_mutex_unlock(&lock);
    return count;
}

void file_open_probe_release(void) {
    pthread_mutex_lock(&lock);
    atomic_store(&holding, 0);
    pthread_cond_broadcast(&released);
    pthread_mutex_unlock(&lock);
}

static void wait_if_held(const char *path) {
    if (!atomic_load(&holding) || path == NULL) return;
    pthread_mutex_lock(&lock);
    if (atomic_load(&holding) && strstr(path, held_marker) != NULL) {
        waiting++;
        while (atomic_load(&holding)) pthread_cond_wait(&released, &lock);
        waiting--;
    }
    pthread_mutex_unlock(&lock);
}

static mode_t mode_argument(int flags, va_list arguments) {
    return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? va_arg(arguments, mode_t) : 0;
}

typedef int (*open_function)(const char *, int, ...);
typedef int (*openat_function)(int, const char *, int, ...);

#define PROBED_OPEN(name)                                                   \
    int name(const char *path, int flags, ...) {                            \
        static _Atomic(open_function) next;                                 \
        va_list arguments;                                                  \
        va_start(arguments, flags);                                         \
        mode_t mode = mode_argument(flags, arguments);                      \
        va_end(arguments);                                                  \
        wait_if_held(path);                                                 \
        if (next == NULL) next = (open_function)dlsym(RTLD_NEXT, #name);    \
        return next(path, flags, mode);                                     \
    }

#define PROBED_OPENAT(name)                                                 \
    int name(int folder, const char *path, int flags, ...) {                \
        static _Atomic(openat_function) next;                               \
        va_list arguments;                                                  \
        va_start(arguments, flags);                                         \
        mode_t mode = mode_argument(flags, arguments);                      \
        va_end(arguments);                                                  \
        wait_if_held(path);                                                 \
        if (next == NULL) next = (openat_function)dlsym(RTLD_NEXT, #name);  \
        return next(folder, path, flags, mode);                             \
    }

PROBED_OPEN(open)
PROBED_OPEN(open64)
PROBED_OPENAT(openat)
PROBED_OPENAT(openat64)
