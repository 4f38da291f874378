// The command line of storybridge-epoll-client.
#ifndef EPOLL_CLIENT_OPTIONS_H
#define EPOLL_CLIENT_OPTIONS_H

enum run_mode { MODE_PIPELINED, MODE_ALTERNATING, MODE_SELF_TEST };

/// A WebSocket endpoint to load: the host's plain echo, or a bridge socket, which greets with a
/// `hello` event first and answers every request with a Status.
struct endpoint {
    const char *url;
    int is_bridge;
};

enum { MAX_TEMPLATES = 32 };

struct options {
    enum run_mode mode;
    struct endpoint endpoints[2];
    int endpoint_count;
    /// Connections to the endpoint (pipelined mode).
    int connections;
    /// Requests per connection (pipelined), or round trips on each endpoint (alternating).
    long count;
    /// Requests a connection keeps unanswered at most (pipelined; all of them by default).
    long depth;
    /// Round trips on one endpoint before the other's turn (alternating).
    long block;
    /// Request templates, cycled; `{GUID}` in each is replaced by a GUID unique to the request.
    const char *requests[MAX_TEMPLATES];
    int request_count;
    /// Requests each bridge connection sends one at a time before anything is timed.
    const char *setup[MAX_TEMPLATES];
    int setup_count;
    /// The host's process, whose CPU time is reported per message; 0 when not given.
    long host_pid;
    /// How long without any answer before the run fails.
    int timeout_ms;
};

/// Parses the command line into `options`; prints the usage and exits on `--help` or a mistake.
void options_parse(int argc, char **argv, struct options *options);

#endif
