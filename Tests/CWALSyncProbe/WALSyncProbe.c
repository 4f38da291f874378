// A pass-through SQLite VFS that counts the writes and syncs of one database's write-ahead log,
// for the durability test: it tells whether a write was synced before its answer came.
#include "WALSyncProbe.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <string.h>

static sqlite3_vfs probe_vfs;
static sqlite3_vfs *base_vfs;
static pthread_mutex_t watch_lock = PTHREAD_MUTEX_INITIALIZER;
static char watched_wal[4096];
static _Atomic int64_t syncs, writes, writes_synced;

/// An open file: the base VFS's file follows this header in the same allocation.
typedef struct {
    sqlite3_file header;
    int watched;
} probe_file;

static sqlite3_file *real(sqlite3_file *file) { return (sqlite3_file *)((probe_file *)file + 1); }

static int probe_close(sqlite3_file *f) { return real(f)->pMethods->xClose(real(f)); }
static int probe_read(sqlite3_file *f, void *buffer, int amount, sqlite3_int64 offset) {
    return real(f)->pMethods->xRead(real(f), buffer, amount, offset);
}
static int probe_write(sqlite3_file *f, const void *buffer, int amount, sqlite3_int64 offset) {
    int rc = real(f)->pMethods->xWrite(real(f), buffer, amount, offset);
    if (rc == SQLITE_OK && ((probe_file *)f)->watched) atomic_fetch_add(&writes, 1);
    return rc;
}
static int probe_truncate(sqlite3_file *f, sqlite3_int64 size) { return real(f)->pMethods->xTruncate(real(f), size); }
static int probe_sync(sqlite3_file *f, int flags) {
    int watched = ((probe_file *)f)->watched;
    int64_t covered = atomic_load(&writes);
    int rc = real(f)->pMethods->xSync(real(f), flags);
    if (rc == SQLITE_OK && watched) {
        int64_t seen = atomic_load(&writes_synced);
        while (seen < covered && !atomic_compare_exchange_weak(&writes_synced, &seen, covered)) {}
        atomic_fetch_add(&syncs, 1);
    }
    return rc;
}
static int probe_file_size(sqlite3_file *f, sqlite3_int64 *size) { return real(f)->pMethods->xFileSize(real(f), size); }
static int probe_lock(sqlite3_file *f, int level) { return real(f)->pMethods->xLock(real(f), level); }
static int probe_unlock(sqlite3_file *f, int level) { return real(f)->pMethods->xUnlock(real(f), level); }
static int probe_check_reserved(sqlite3_file *f, int *out) { return real(f)->pMethods->xCheckReservedLock(real(f), out); }
static int probe_file_control(sqlite3_file *f, int op, void *arg) { return real(f)->pMethods->xFileControl(real(f), op, arg); }
static int probe_sector_size(sqlite3_file *f) { return real(f)->pMethods->xSectorSize(real(f)); }
static int probe_device(sqlite3_file *f) { return real(f)->pMethods->xDeviceCharacteristics(real(f)); }
static int probe_shm_map(sqlite3_file *f, int page, int size, int extend, void volatile **out) {
    return real(f)->pMethods->xShmMap(real(f), page, size, extend, out);
}
static int probe_shm_lock(sqlite3_file *f, int offset, int n, int flags) { return real(f)->pMethods->xShmLock(real(f), offset, n, flags); }
static void probe_shm_barrier(sqlite3_file *f) { real(f)->pMethods->xShmBarrier(real(f)); }
static int probe_shm_unmap(sqlite3_file *f, int delete) { return real(f)->pMethods->xShmUnmap(real(f), delete); }
static int probe_fetch(sqlite3_file *f, sqlite3_int64 offset, int amount, void **out) {
    return real(f)->pMethods->xFetch(real(f), offset, amount, out);
}
static int probe_unfetch(sqlite3_file *f, sqlite3_int64 offset, void *page) { return real(f)->pMethods->xUnfetch(real(f), offset, page); }

static const sqlite3_io_methods probe_methods = {
    3, probe_close, probe_read, probe_write, probe_truncate, probe_sync, probe_file_size, probe_lock, probe_unlock,
    probe_check_reserved, probe_file_control, probe_sector_size, probe_device, probe_shm_map, probe_shm_lock,
    probe_shm_barrier, probe_shm_unmap, probe_fetch, probe_unfetch,
};

static const sqlite3_io_methods probe_methods_v1 = {
    1, probe_close, probe_read, probe_write, probe_truncate, probe_sync, probe_file_size, probe_lock, probe_unlock,
    probe_check_reserved, probe_file_control, probe_sector_size, probe_device, NULL, NULL, NULL, NULL, NULL, NULL,
};

static int probe_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *file, int flags, int *out_flags) {
    (void)vfs;
    probe_file *probe = (probe_file *)file;
    memset(probe, 0, sizeof(*probe));
    int rc = base_vfs->xOpen(base_vfs, name, real(file), flags, out_flags);
    // SQLite calls xClose on a failed open only when pMethods is set: mirror the base file's.
    if (real(file)->pMethods == NULL) return rc;
    // The probe speaks the version of the methods the base file does (at most 3).
    probe->header.pMethods = real(file)->pMethods->iVersion >= 3 ? &probe_methods : &probe_methods_v1;
    if ((flags & SQLITE_OPEN_WAL) && name != NULL) {
        pthread_mutex_lock(&watch_lock);
        probe->watched = watched_wal[0] != 0 && strcmp(name, watched_wal) == 0;
        pthread_mutex_unlock(&watch_lock);
    }
    return rc;
}

static int probe_delete(sqlite3_vfs *v, const char *n, int s) { (void)v; return base_vfs->xDelete(base_vfs, n, s); }
static int probe_access(sqlite3_vfs *v, const char *n, int f, int *o) { (void)v; return base_vfs->xAccess(base_vfs, n, f, o); }
static int probe_full_path(sqlite3_vfs *v, const char *n, int size, char *out) {
    (void)v;
    return base_vfs->xFullPathname(base_vfs, n, size, out);
}
static void *probe_dl_open(sqlite3_vfs *v, const char *n) { (void)v; return base_vfs->xDlOpen(base_vfs, n); }
static void probe_dl_error(sqlite3_vfs *v, int n, char *m) { (void)v; base_vfs->xDlError(base_vfs, n, m); }
static void (*probe_dl_sym(sqlite3_vfs *v, void *h, const char *s))(void) { (void)v; return base_vfs->xDlSym(base_vfs, h, s); }
static void probe_dl_close(sqlite3_vfs *v, void *h) { (void)v; base_vfs->xDlClose(base_vfs, h); }
static int probe_randomness(sqlite3_vfs *v, int n, char *out) { (void)v; return base_vfs->xRandomness(base_vfs, n, out); }
static int probe_sleep(sqlite3_vfs *v, int us) { (void)v; return base_vfs->xSleep(base_vfs, us); }
static int probe_current_time(sqlite3_vfs *v, double *out) { (void)v; return base_vfs->xCurrentTime(base_vfs, out); }
static int probe_last_error(sqlite3_vfs *v, int n, char *out) { (void)v; return base_vfs->xGetLastError(base_vfs, n, out); }
static int probe_current_time64(sqlite3_vfs *v, sqlite3_int64 *out) { (void)v; return base_vfs->xCurrentTimeInt64(base_vfs, out); }

static pthread_once_t installed = PTHREAD_ONCE_INIT;
static int install_result = SQLITE_OK;

static void install(void) {
    base_vfs = sqlite3_vfs_find(NULL);
    if (base_vfs == NULL || base_vfs->iVersion < 2) {
        install_result = SQLITE_ERROR;
        return;
    }
    probe_vfs = (sqlite3_vfs){
        .iVersion = 2,
        .szOsFile = (int)sizeof(probe_file) + base_vfs->szOsFile,
        .mxPathname = base_vfs->mxPathname,
        .zName = "wal-sync-probe",
        .xOpen = probe_open,
        .xDelete = probe_delete,
        .xAccess = probe_access,
        .xFullPathname = probe_full_path,
        .xDlOpen = probe_dl_open,
        .xDlError = probe_dl_error,
        .xDlSym = probe_dl_sym,
        .xDlClose = probe_dl_close,
        .xRandomness = probe_randomness,
        .xSleep = probe_sleep,
        .xCurrentTime = probe_current_time,
        .xGetLastError = probe_last_error,
        .xCurrentTimeInt64 = probe_current_time64,
    };
    install_result = sqlite3_vfs_register(&probe_vfs, 1);
}

int wal_sync_probe_install(void) {
    pthread_once(&installed, install);
    return install_result;
}

void wal_sync_probe_watch(const char *database_path) {
    pthread_mutex_lock(&watch_lock);
    size_t length = strlen(database_path);
    if (length + 5 < sizeof(watched_wal)) {
        memcpy(watched_wal, database_path, length);
        memcpy(watched_wal + length, "-wal", 5);
    } else {
        watched_wal[0] = 0;
    }
    atomic_store(&syncs, 0);
    atomic_store(&writes, 0);
    atomic_store(&writes_synced, 0);
    pthread_mutex_unlock(&watch_lock);
}

wal_sync_probe_counts wal_sync_probe_read(void) {
    wal_sync_probe_counts counts = {atomic_load(&syncs), atomic_load(&writes), atomic_load(&writes_synced)};
    return counts;
}
