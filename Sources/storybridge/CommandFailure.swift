import ArgumentParser
import Foundation
import StoryBridge

/// A subcommand that could not do its work: the message a person reads and the exit status.
///
/// Thrown from a subcommand's `run()`; ``StoryBridgeCommand/main()`` prints it as
/// `storybridge SUBCOMMAND: message` (no usage line: the command line was fine, the world was not).
/// Bad input is a `ValidationError` instead, which prints the subcommand's usage after it.
struct CommandFailure: Error, CustomStringConvertible {
    var message: String
    var status: Int32

    init(_ message: String, status: Int32 = 1) {
        self.message = message
        self.status = status
    }

    /// `error` in words, after `context` (what was being done): `cannot open the library: ...`.
    init(_ context: String, _ error: any Error, status: Int32 = 1) {
        self.init("\(context): \(ErrorWording.describe(error))", status: status)
    }

    var description: String { message }

    /// EX_IOERR: the data folder, a database or another local file could not be used.
    static let storage: Int32 = 74
    /// EX_DATAERR: a package or script given on the command line is unusable.
    static let badInput: Int32 = 65
    /// EX_UNAVAILABLE: a server the command needs could not be reached.
    static let unreachable: Int32 = 69
}

/// The one place the CLI turns an error into words. File, network and database errors from
/// Foundation, POSIX, SwiftNIO and SQLite become a ``SystemProblem`` ("not found", "permission
/// denied", "connection refused"); the project's own typed errors already say what went wrong and
/// name the path or address, so their descriptions are used as they are.
enum ErrorWording {
    static func describe(_ error: any Error) -> String {
        switch error {
        case let failure as CommandFailure: failure.message
        case let validation as ValidationError: validation.message
        default: SystemProblem(error).description
        }
    }
}
