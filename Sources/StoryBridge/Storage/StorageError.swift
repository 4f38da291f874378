import Foundation
import GRDB

/// A write the database could not make for a reason outside the record itself: the disk (or the
/// database's size limit) is full, the file became read-only, or the disk failed. The change was
/// rolled back whole; what was committed before is untouched.
///
/// A bridge request failing with it is answered from the case (see ``BridgeError/storage(_:)``):
/// 507 for ``full``, 503 for the others.
public enum StorageError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No space left on the disk, or the database reached its size limit (`SQLITE_FULL`).
    case full(path: String)
    /// The database file or its folder cannot be written (`SQLITE_READONLY`).
    case readOnly(path: String)
    /// The disk failed to read or write (`SQLITE_IOERR`, `SQLITE_CANTOPEN`).
    case ioFailure(path: String, code: Int32)

    /// The storage error a GRDB error stands for, or `nil` when the error is about the request
    /// itself (a constraint, a missing row...), not about the storage.
    static func from(_ error: any Error, path: String) -> StorageError? {
        guard let error = error as? DatabaseError else { return nil }
        switch error.resultCode {
        case .SQLITE_FULL: return .full(path: path)
        case .SQLITE_READONLY: return .readOnly(path: path)
        case .SQLITE_IOERR, .SQLITE_CANTOPEN: return .ioFailure(path: path, code: error.extendedResultCode.rawValue)
        default: return nil
        }
    }

    /// What failed, for a log line or an error message.
    public var description: String {
        switch self {
        case .full(let path): return "the database \(path) is full (no space left on its disk, or its size limit reached)"
        case .readOnly(let path): return "the database \(path) cannot be written (read-only file or folder)"
        case .ioFailure(let path, let code): return "the disk failed while writing the database \(path) (SQLite code \(code))"
        }
    }
}
