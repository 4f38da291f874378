// storybridge-epoll-client: the second client of `storybridge-bench mix`, outside the Swift/NIO
// stack (plain C11 on Linux epoll, no dependencies). `--help` describes the command line.
#include <stdio.h>
#include <stdlib.h>

#include "accept_key.h"
#include "load.h"
#include "measure.h"
#include "options.h"

static const char *endpoint_name(const struct endpoint *endpoint) { return endpoint->is_bridge ? "bridge" : "echo"; }

/// N connections pipelining: one result line with the rate, latency percentiles and CPU per message.
static int run_pipelined(struct load *load, const struct options *options) {
    struct peer **active = malloc((size_t)load->peer_count * sizeof *active);
    for (int i = 0; i < load->peer_count; i++) active[i] = &load->peers[i];
    struct samples latencies = {0};
    double host_before = process_cpu_seconds(options->host_pid);
    double client_before = own_cpu_seconds();
    double start = now_ms();
    int status = load_run(load, active, load->peer_count, options->count, options->depth, &latencies);
    double seconds = (now_ms() - start) / 1e3;
    double host_cpu = process_cpu_seconds(options->host_pid) - host_before;
    double client_cpu = own_cpu_seconds() - client_before;
    free(active);
    if (status == 0) {
        double messages = (double)load->peer_count * (double)options->count;
        double p50 = samples_percentile(&latencies, 0.5), p99 = samples_percentile(&latencies, 0.99);
        printf("result mode=pipelined endpoint=%s connections=%d count=%ld depth=%ld answers=%zu events=%ld seconds=%.6f rate=%.1f "
               "p50_ms=%.3f p99_ms=%.3f client_cpu_us=%.2f host_cpu_us=%.2f\n",
               endpoint_name(&options->endpoints[0]), load->peer_count, options->count, options->depth, latencies.count, load->events,
               seconds, messages / seconds, p50, p99, client_cpu / messages * 1e6, host_cpu / messages * 1e6);
    }
    samples_free(&latencies);
    return status;
}

/// One connection to each of two endpoints, round trips in alternating blocks: a result line per
/// endpoint with the steady percentiles and the median of each block's first round trip.
static int run_alternating(struct load *load, const struct options *options) {
    struct samples steady[2] = {{0}}, after_pause[2] = {{0}}, block = {0};
    int status = 0;
    for (long done = 0; done < options->count && status == 0; done += options->block) {
        long size = options->count - done < options->block ? options->count - done : options->block;
        for (int path = 0; path < 2 && status == 0; path++) {
            struct peer *peer = &load->peers[path];
            block.count = 0;
            status = load_run(load, &peer, 1, size, 1, &block);
            for (size_t i = 0; i < block.count; i++) samples_append(i == 0 ? &after_pause[path] : &steady[path], block.values[i]);
        }
    }
    for (int path = 0; path < 2; path++) {
        if (status == 0) {
            size_t round_trips = steady[path].count + after_pause[path].count;
            double p50 = samples_percentile(&steady[path], 0.5), p99 = samples_percentile(&steady[path], 0.99);
            printf("result mode=alternating path=%d endpoint=%s round_trips=%zu block=%ld steady_p50_ms=%.4f steady_p99_ms=%.4f "
                   "after_pause_median_ms=%.4f events=%ld\n",
                   path, endpoint_name(&options->endpoints[path]), round_trips, options->block, p50, p99,
                   samples_median(&after_pause[path]), load->events);
        }
        samples_free(&steady[path]);
        samples_free(&after_pause[path]);
    }
    samples_free(&block);
    return status;
}

int main(int argc, char **argv) {
    struct options options;
    options_parse(argc, argv, &options);
    if (options.mode == MODE_SELF_TEST) {
        int failures = accept_key_self_test();
        puts(failures == 0 ? "self-test: SHA-1, base64 and Sec-WebSocket-Accept match the known answers" : "self-test: failed");
        return failures == 0 ? 0 : 1;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    struct load load;
    int status = load_open(&load, &options, options.count);
    if (status == 0) status = options.mode == MODE_PIPELINED ? run_pipelined(&load, &options) : run_alternating(&load, &options);
    if (status != 0) fprintf(stderr, "storybridge-epoll-client: %s\n", load.error);
    load_close(&load);
    return status == 0 ? 0 : 1;
}
