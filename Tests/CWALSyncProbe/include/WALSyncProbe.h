#ifndef WAL_SYNC_PROBE_H
#define WAL_SYNC_PROBE_H

#include <stdint.h>

/// Registers, once per process, a pass-through SQLite VFS as the default one: every connection
/// opened afterwards goes through it. It watches the write-ahead log of one database (see
/// wal_sync_probe_watch) and counts what happens to it. Returns 0, or an SQLite error code.
int wal_sync_probe_install(void);

/// Watches the log of the database at `database_path` (its "-wal" file) from its next opening
/// on, and zeroes the counts. One database at a time.
void wal_sync_probe_watch(const char *database_path);

/// What happened to the watched log since wal_sync_probe_watch.
typedef struct {
    /// Completed xSync calls.
    int64_t syncs;
    /// Completed xWrite calls.
    int64_t writes;
    /// How many of those writes had completed when the last completed sync began: every write up
    /// to that one is on the disk.
    int64_t writes_synced;
} wal_sync_probe_counts;

wal_sync_probe_counts wal_sync_probe_read(void);

#endif
