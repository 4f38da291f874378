import Foundation
import GRDB

extension DatabaseMigrator {
    /// Brings the schema of `pool` (the database `file`) up to date, one process at a time.
    ///
    /// GRDB's migrator reads which migrations ran before it opens their transactions, so two
    /// processes creating the file at once both ran the first migration, and one failed ("table
    /// … already exists"). An exclusive `flock` on `<file>-migrations.lock` makes them take
    /// turns, and the second finds nothing left to run. An up-to-date file takes no lock.
    package func migrateTakingTurns(_ pool: DatabasePool, file: URL) throws {
        if try pool.read(hasCompletedMigrations) { return }
        let lock = open(file.path + "-migrations.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        defer { if lock >= 0 { close(lock) } }  // closing releases the lock
        while lock >= 0, flock(lock, LOCK_EX) != 0, errno == EINTR {}
        try migrate(pool)
    }
}
