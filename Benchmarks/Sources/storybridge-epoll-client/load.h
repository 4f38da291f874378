// The epoll loop: connections that send requests with unique GUIDs, keep a number of them
// unanswered, match every answer to its request and record its latency.
#ifndef EPOLL_CLIENT_LOAD_H
#define EPOLL_CLIENT_LOAD_H

#include "connection.h"
#include "measure.h"
#include "options.h"

/// One connection and the requests it sent.
struct peer {
    struct connection connection;
    int index;
    int is_bridge;
    /// Requests sent and answered so far, and how many it is to send in the current run.
    long sent, answered, target;
    /// When each request was sent (ms), and whether it was answered, by sequence number.
    double *sent_at;
    unsigned char *was_answered;
    long capacity;
    int watching_writes;
};

/// A request template split around its `{GUID}`.
struct request_template {
    const char *prefix;
    size_t prefix_length;
    const char *suffix;
    size_t suffix_length;
};

struct load {
    int epoll_fd;
    struct peer *peers;
    int peer_count;
    struct request_template templates[MAX_TEMPLATES];
    int template_count;
    int timeout_ms;
    /// Messages without a GUID (host events) received after the greetings.
    long events;
    /// Where a request is put together.
    struct byte_buffer scratch;
    char error[1024];
};

/// Opens the connections `options` asks for (each endpoint's URL with `{i}` replaced by the
/// connection's number), waits for each bridge's hello, sends the setup requests one at a time,
/// and registers the sockets with epoll. `capacity` is the requests each connection may send in
/// all. 0, or -1 with the reason in `load->error`.
int load_open(struct load *load, const struct options *options, long capacity);

/// Has each of the `count` peers in `active` send `per_peer` more requests, at most `depth`
/// unanswered on each, and waits for all their answers; appends each answer's latency (ms) to
/// `latencies` in the order they arrive. 0, or -1 with the reason in `load->error` (an answer
/// missing after the timeout, a GUID not sent or answered twice, a bridge answer without
/// success, a closed connection).
int load_run(struct load *load, struct peer **active, int count, long per_peer, long depth, struct samples *latencies);

/// Closes every connection.
void load_close(struct load *load);

#endif
