// Clocks, CPU time and percentiles, computed as storybridge-bench computes them so that both
// clients' figures mean the same thing.
#ifndef EPOLL_CLIENT_MEASURE_H
#define EPOLL_CLIENT_MEASURE_H

#include <stddef.h>

/// A monotonic time in milliseconds.
double now_ms(void);

/// User plus system CPU seconds of this process.
double own_cpu_seconds(void);

/// User plus system CPU seconds of process `pid`, from /proc (10 ms resolution); NaN when unknown.
double process_cpu_seconds(long pid);

/// A growing list of latencies in milliseconds.
struct samples {
    double *values;
    size_t count;
    size_t capacity;
};

void samples_append(struct samples *samples, double value);
void samples_free(struct samples *samples);

/// The nearest-rank percentile `p` (0 to 1) of `samples`, which this sorts; NaN when empty.
double samples_percentile(struct samples *samples, double p);

/// The value at index count / 2 of the sorted samples; NaN when empty.
double samples_median(struct samples *samples);

#endif
