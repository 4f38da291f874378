#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "measure.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

double now_ms(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec * 1e3 + (double)now.tv_nsec / 1e6;
}

double own_cpu_seconds(void) {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return (double)(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
           (double)(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

double process_cpu_seconds(long pid) {
    if (pid <= 0) return NAN;
    char path[64], stat[1024];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *file = fopen(path, "r");
    if (!file) return NAN;
    size_t length = fread(stat, 1, sizeof stat - 1, file);
    fclose(file);
    stat[length] = '\0';
    // Fields after the command name, which ends at the last ')': state is field 3, utime 14, stime 15.
    char *close = strrchr(stat, ')');
    unsigned long user = 0, system = 0;
    if (!close || sscanf(close + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &user, &system) != 2) return NAN;
    return (double)(user + system) / (double)sysconf(_SC_CLK_TCK);
}

void samples_append(struct samples *samples, double value) {
    if (samples->count == samples->capacity) {
        size_t capacity = samples->capacity ? samples->capacity * 2 : 1024;
        double *grown = realloc(samples->values, capacity * sizeof *grown);
        if (!grown) {
            fprintf(stderr, "storybridge-epoll-client: out of memory\n");
            exit(1);
        }
        samples->values = grown;
        samples->capacity = capacity;
    }
    samples->values[samples->count++] = value;
}

void samples_free(struct samples *samples) {
    free(samples->values);
    *samples = (struct samples){0};
}

static int compare_doubles(const void *left, const void *right) {
    double a = *(const double *)left, b = *(const double *)right;
    return (a > b) - (a < b);
}

double samples_percentile(struct samples *samples, double p) {
    if (samples->count == 0) return NAN;
    qsort(samples->values, samples->count, sizeof(double), compare_doubles);
    double position = (double)samples->count * p;
    long rank = (long)position;
    if ((double)rank < position) rank++;  // rounded up, without libm
    rank -= 1;
    if (rank < 0) rank = 0;
    if ((size_t)rank > samples->count - 1) rank = (long)samples->count - 1;
    return samples->values[rank];
}

double samples_median(struct samples *samples) {
    if (samples->count == 0) return NAN;
    qsort(samples->values, samples->count, sizeof(double), compare_doubles);
    return samples->values[samples->count / 2];
}
