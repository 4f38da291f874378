import AsyncHTTPClient
import Foundation
import GRDB
import NIOCore
import NIOPosix

/// What went wrong when a file, a folder, a network address or a database was used, in words a
/// person can act on. Built from the errors Foundation, POSIX calls, SwiftNIO, AsyncHTTPClient and
/// SQLite throw, so their own texts ("The operation could not be completed", `NSCocoaErrorDomain`)
/// never reach a user. ``SystemFailure`` adds what was being done and to which path or address.
package enum SystemProblem: Error, Equatable, Sendable, CustomStringConvertible {
    case notFound
    case permissionDenied
    case isAFolder
    case notAFolder
    case alreadyExists
    case diskFull
    case readOnlyFileSystem
    case tooManyOpenFiles
    case notText
    case inputOutput
    case connectionRefused
    case hostNotFound
    case timedOut
    case networkUnreachable
    case connectionClosed
    case addressInUse
    case databaseBusy
    case notADatabase
    case databaseCannotOpen
    /// Something none of the cases above covers, in the words of the part that failed.
    case other(String)

    package var description: String {
        switch self {
        case .notFound: "not found"
        case .permissionDenied: "permission denied"
        case .isAFolder: "is a folder, not a file"
        case .notAFolder: "is not a folder (a file is in the way)"
        case .alreadyExists: "already exists"
        case .diskFull: "the disk is full"
        case .readOnlyFileSystem: "the file system is read-only"
        case .tooManyOpenFiles: "too many open files"
        case .notText: "is not UTF-8 text"
        case .inputOutput: "input/output error (the disk or file system failed)"
        case .connectionRefused: "connection refused (nothing listens there)"
        case .hostNotFound: "host name not found"
        case .timedOut: "timed out"
        case .networkUnreachable: "network unreachable"
        case .connectionClosed: "the connection was closed by the other side"
        case .addressInUse: "address already in use (another program listens there)"
        case .databaseBusy: "the database is locked by another process"
        case .notADatabase: "is not a SQLite database, or is damaged"
        case .databaseCannotOpen: "the database file cannot be opened"
        case .other(let words): words
        }
    }

    /// Classifies `error`; an error this type does not know keeps its own description.
    package init(_ error: any Error) {
        if let problem = error as? SystemProblem {
            self = problem
        } else if let failure = error as? SystemFailure {
            self = failure.problem
        } else if let posix = error as? POSIXError {
            self = Self(errno: posix.code.rawValue)
        } else if let io = error as? IOError {
            self = Self(errno: io.errnoCode)
        } else if let connection = error as? NIOConnectionError {
            if connection.dnsAError != nil || connection.dnsAAAAError != nil, connection.connectionErrors.isEmpty {
                self = .hostNotFound
            } else if let first = connection.connectionErrors.first {
                self = Self(first.error)
            } else {
                self = .hostNotFound
            }
        } else if let channel = error as? ChannelError, case .connectTimeout = channel {
            self = .timedOut
        } else if let client = error as? HTTPClientError {
            self = Self(client: client)
        } else if let database = error as? DatabaseError {
            self = Self(database: database)
        } else if error is CocoaError || (error as NSError).domain == NSCocoaErrorDomain {
            self = Self(cocoa: error as NSError)
        } else if (error as NSError).domain == NSPOSIXErrorDomain {
            self = Self(errno: Int32((error as NSError).code))
        } else {
            self = .other(String(describing: error))
        }
    }

    /// The problem a C library call reported in `errno`.
    package init(errno code: Int32) {
        switch code {
        case ENOENT: self = .notFound
        case EACCES, EPERM: self = .permissionDenied
        case EISDIR: self = .isAFolder
        case ENOTDIR: self = .notAFolder
        case EEXIST: self = .alreadyExists
        case ENOSPC, EDQUOT: self = .diskFull
        case EROFS: self = .readOnlyFileSystem
        case EMFILE, ENFILE: self = .tooManyOpenFiles
        case EIO: self = .inputOutput
        case ECONNREFUSED: self = .connectionRefused
        case ETIMEDOUT: self = .timedOut
        case ENETUNREACH, EHOSTUNREACH: self = .networkUnreachable
        case ECONNRESET, EPIPE: self = .connectionClosed
        case EADDRINUSE: self = .addressInUse
        default: self = .other(String(cString: strerror(code)).lowercased())
        }
    }

    private init(cocoa error: NSError) {
        if let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            self = Self(errno: Int32(underlying.code))
            return
        }
        // Reading a folder as a file fails with a bare "unknown" read error: tell it by the path.
        var isDirectory: ObjCBool = false
        if let path = error.userInfo[NSFilePathErrorKey] as? String ?? (error.userInfo[NSURLErrorKey] as? URL)?.path,
            FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue,
            error.code == CocoaError.Code.fileReadUnknown.rawValue
        {
            self = .isAFolder
            return
        }
        switch CocoaError.Code(rawValue: error.code) {
        case .fileNoSuchFile, .fileReadNoSuchFile: self = .notFound
        case .fileReadNoPermission, .fileWriteNoPermission: self = .permissionDenied
        case .fileWriteFileExists: self = .alreadyExists
        case .fileWriteOutOfSpace: self = .diskFull
        case .fileWriteVolumeReadOnly: self = .readOnlyFileSystem
        case .fileReadInapplicableStringEncoding, .fileWriteInapplicableStringEncoding: self = .notText
        case .fileReadTooLarge: self = .other("is too large to read")
        case .fileReadUnknown, .fileReadCorruptFile: self = .other("cannot be read")
        case .fileWriteUnknown: self = .other("cannot be written")
        default: self = .other("file error \(error.code)")
        }
    }

    private init(client error: HTTPClientError) {
        switch error {
        case .connectTimeout, .readTimeout, .writeTimeout, .deadlineExceeded, .getConnectionFromPoolTimeout:
            self = .timedOut
        case .remoteConnectionClosed: self = .connectionClosed
        default: self = .other("\(error)")
        }
    }

    private init(database error: DatabaseError) {
        switch error.resultCode {
        case .SQLITE_BUSY, .SQLITE_LOCKED: self = .databaseBusy
        case .SQLITE_NOTADB, .SQLITE_CORRUPT: self = .notADatabase
        case .SQLITE_CANTOPEN: self = .databaseCannotOpen
        case .SQLITE_READONLY: self = .readOnlyFileSystem
        case .SQLITE_FULL: self = .diskFull
        case .SQLITE_PERM, .SQLITE_AUTH: self = .permissionDenied
        case .SQLITE_IOERR: self = .inputOutput
        default: self = .other("SQLite: \(error.message ?? "error \(error.resultCode.rawValue)")")
        }
    }
}

/// A failed use of a file, folder, network address or database: what was being done, to what, and
/// the ``SystemProblem``, e.g. `cannot read '/srv/deck.yaml': not found`.
public struct SystemFailure: Error, Equatable, Sendable, CustomStringConvertible {
    /// What was being done, as the start of a sentence: "cannot read", "cannot create the data folder".
    package var action: String
    /// The path or address it was done to.
    package var subject: String
    /// What went wrong.
    package var problem: SystemProblem

    package init(_ action: String, _ subject: String, _ problem: SystemProblem) {
        self.action = action
        self.subject = subject
        self.problem = problem
    }

    /// Classifies `error` as the failure of `action` on `subject`.
    package init(_ action: String, _ subject: String, error: any Error) {
        self.init(action, subject, SystemProblem(error))
    }

    /// The action, its subject and what the system said, for a log line or an error message.
    public var description: String { "\(action) '\(subject)': \(problem)" }
}
