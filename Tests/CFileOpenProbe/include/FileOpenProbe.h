#ifndef FILE_OPEN_PROBE_H
#define FILE_OPEN_PROBE_H

/// From now on, every open(2) in this process of a path containing `marker` waits (before the
/// file is opened) until file_open_probe_release: a file on a disk or mount that does not answer.
/// Every other open goes straight through.
void file_open_probe_hold(const char *marker);

/// How many opens are waiting now.
int file_open_probe_waiting(void);

/// Lets the waiting opens go on, and stops holding new ones.
void file_open_probe_release(void);

#endif
