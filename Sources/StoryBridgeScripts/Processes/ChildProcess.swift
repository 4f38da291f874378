import CSpawn
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A child process started with `posix_spawn`, in place of Foundation's `Process`.
///
/// Foundation's `Process.run()` on Linux (Swift 6.3) lists `/proc/self/fd` with a read that can
/// run past the end of glibc's directory buffer, and now and then crashes the parent with SIGSEGV
/// (swift-corelibs-foundation pull request #5472, not yet in a release). A host, a test suite or a
/// benchmark holding many sockets is where that happens. This type asks glibc to close the
/// parent's descriptors in the child instead (`posix_spawn_file_actions_addclosefrom_np`), so no
/// directory is read at all.
///
/// It keeps the part of `Process` the project uses, under the same names: set
/// ``executableURL``, ``arguments``, ``environment`` and the standard streams, call ``run()``,
/// then ``isRunning``, ``waitUntilExit()``, ``terminationStatus``, ``terminationReason``,
/// ``terminate()`` and ``interrupt()``. A stream is a `Pipe` (the child gets the pipe's far end,
/// which this process then closes, as `Process` does), a `FileHandle`, or `nil` for `/dev/null`;
/// by default the child shares this process's streams. The child runs in a process group of its
/// own, with every signal at its default action and none blocked, whatever this process ignores
/// or blocks on its threads.
public final class ChildProcess: Sendable {
    /// How the child ended.
    public enum TerminationReason: Sendable, Equatable {
        /// It exited: ``terminationStatus`` is its exit code.
        case exit
        /// A signal ended it: ``terminationStatus`` is the signal's number.
        case uncaughtSignal
    }

    /// Why ``run()`` failed.
    public struct LaunchError: Error, CustomStringConvertible {
        public let executable: String
        public let reason: String
        public var description: String { "could not start \(executable): \(reason)" }
    }

    /// What is set before ``run()``.
    private struct Configuration {
        var executableURL: URL?
        var arguments: [String]?
        var environment: [String: String]?
        var standardInput: (any Sendable)? = FileHandle.standardInput
        var standardOutput: (any Sendable)? = FileHandle.standardOutput
        var standardError: (any Sendable)? = FileHandle.standardError
    }

    /// Where the child is: not started, running, or ended with a raw `waitpid` status.
    private enum Life {
        case notStarted
        case running(pid_t)
        case ended(pid: pid_t, status: Int32)
    }

    private let configuration = Mutex(Configuration())
    private let life = Mutex(Life.notStarted)

    /// Creates a child process to configure and then ``run()``.
    public init() {}

    /// The program to run.
    public var executableURL: URL? {
        get { configuration.withLock { $0.executableURL } }
        set { configuration.withLock { $0.executableURL = newValue } }
    }

    /// Its arguments, after the program's own path.
    public var arguments: [String]? {
        get { configuration.withLock { $0.arguments } }
        set { configuration.withLock { $0.arguments = newValue } }
    }

    /// Its environment; `nil` for this process's.
    public var environment: [String: String]? {
        get { configuration.withLock { $0.environment } }
        set { configuration.withLock { $0.environment = newValue } }
    }

    /// Its standard input: a `Pipe` (it reads the pipe), a `FileHandle`, or `nil` for `/dev/null`.
    public var standardInput: (any Sendable)? {
        get { configuration.withLock { $0.standardInput } }
        set { configuration.withLock { $0.standardInput = newValue } }
    }

    /// Its standard output: a `Pipe` (it writes the pipe), a `FileHandle`, or `nil` for `/dev/null`.
    public var standardOutput: (any Sendable)? {
        get { configuration.withLock { $0.standardOutput } }
        set { configuration.withLock { $0.standardOutput = newValue } }
    }

    /// Its standard error: a `Pipe` (it writes the pipe), a `FileHandle`, or `nil` for `/dev/null`.
    public var standardError: (any Sendable)? {
        get { configuration.withLock { $0.standardError } }
        set { configuration.withLock { $0.standardError = newValue } }
    }

    /// Starts the child. Throws when it cannot be started (no such program, not executable...).
    public func run() throws {
        let settings = configuration.withLock { $0 }
        guard let executable = settings.executableURL?.path else {
            throw LaunchError(executable: "(none)", reason: "no executableURL was set")
        }
        guard case .notStarted = life.withLock({ $0 }) else {
            throw LaunchError(executable: executable, reason: "this child process has already been started")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }

        let streams = [
            (settings.standardInput, STDIN_FILENO, true), (settings.standardOutput, STDOUT_FILENO, false),
            (settings.standardError, STDERR_FILENO, false),
        ]
        // The ends of pipes the child uses, closed here once it runs (as `Process` does), so a
        // reader of the other end sees end-of-file when the child is done.
        var childEnds: [FileHandle] = []
        for (stream, target, isInput) in streams {
            switch stream {
            case let pipe as Pipe:
                let end = isInput ? pipe.fileHandleForReading : pipe.fileHandleForWriting
                posix_spawn_file_actions_adddup2(&actions, end.fileDescriptor, target)
                childEnds.append(end)
            case let handle as FileHandle:
                posix_spawn_file_actions_adddup2(&actions, handle.fileDescriptor, target)
            case nil:
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", isInput ? O_RDONLY : O_WRONLY, 0)
            default:
                throw LaunchError(executable: executable, reason: "a standard stream must be a Pipe, a FileHandle or nil")
            }
        }
        // Nothing else of this process's reaches the child: no socket, database or other pipe.
        posix_spawn_file_actions_addclosefrom_np(&actions, 3)

        var defaults = sigset_t()
        sigfillset(&defaults)
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &unblocked)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        let environment = settings.environment ?? ProcessInfo.processInfo.environment
        let argv = ([executable] + (settings.arguments ?? [])).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard result == 0 else {
            throw LaunchError(executable: executable, reason: String(cString: strerror(result)))
        }
        life.withLock { $0 = .running(pid) }
        for end in childEnds { try? end.close() }
    }

    /// The child's process id (0 before ``run()``).
    public var processIdentifier: Int32 {
        switch life.withLock({ $0 }) {
        case .notStarted: return 0
        case .running(let pid), .ended(let pid, _): return pid
        }
    }

    /// Whether the child has been started and has not ended yet. Collects its exit when it has.
    public var isRunning: Bool {
        life.withLock { life in
            guard case .running(let pid) = life else { return false }
            var status: Int32 = 0
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid {
                life = .ended(pid: pid, status: status)
                return false
            }
            // Someone else collected it (nothing in this project does): it has ended all the same.
            if reaped == -1 && errno == ECHILD {
                life = .ended(pid: pid, status: 0)
                return false
            }
            return true
        }
    }

    /// Blocks the calling thread until the child has ended (call it from a thread of its own,
    /// never a cooperative one).
    public func waitUntilExit() {
        while isRunning { usleep(1_000) }
    }

    /// Its exit code, or the number of the signal that ended it; 0 while it runs.
    public var terminationStatus: Int32 {
        guard case .ended(_, let status) = life.withLock({ $0 }) else { return 0 }
        return Self.exitedNormally(status) ? (status >> 8) & 0xFF : status & 0x7F
    }

    /// How it ended (`.exit` while it runs).
    public var terminationReason: TerminationReason {
        guard case .ended(_, let status) = life.withLock({ $0 }) else { return .exit }
        return Self.exitedNormally(status) ? .exit : .uncaughtSignal
    }

    /// Sends SIGTERM, when it is still running.
    public func terminate() { signal(SIGTERM) }

    /// Sends SIGINT (Ctrl-C), when it is still running.
    public func interrupt() { signal(SIGINT) }

    /// Sends `number` to the child unless its exit has been collected (its id may then belong to
    /// another process).
    private func signal(_ number: Int32) {
        life.withLock { life in
            if case .running(let pid) = life { _ = kill(pid, number) }
        }
    }

    private static func exitedNormally(_ status: Int32) -> Bool { status & 0x7F == 0 }
}
