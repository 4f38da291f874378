import Foundation
import Subprocess
import Synchronization
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// A child process started with swift-subprocess that keeps running after the call that started
/// it returns: a server a test talks to, a browser a session drives, a command whose output a
/// thread reads. (Subprocess's `run` ends when its child does; this type holds that `run` open in a
/// task of its own.)
///
/// What a child gets: only the three standard streams of this process's descriptors (swift-subprocess
/// closes the others in the child without reading `/proc/self/fd`), every signal at its default
/// action and none blocked, and a process group of its own, so a signal meant for the tests or the
/// host never reaches it by way of the group.
///
/// Signals (``terminate()``, ``interrupt()``, ``kill()``, ``send(_:)``) reach the child only while it
/// runs: its exit is collected after this type has seen it end, so an identifier that a signal is
/// sent to is never another process's. Wait for the end with ``exit()`` (or
/// ``exit(killingAfter:)``); ``waitUntilExit()`` blocks a thread and is for threads of their own.
package final class LaunchedProcess: Sendable {
    /// Where one of the child's standard streams goes.
    package enum Stream: Sendable {
        /// This process's own stream.
        case inherit
        /// `/dev/null`.
        case discard
        /// A pipe: the child gets the pipe's far end, which this process closes once the child
        /// runs, so a reader of the near end sees end-of-file when the child (and anything it
        /// started with the pipe) is done.
        case pipe(Pipe)
        /// An open file or other handle; it stays open here.
        case handle(FileHandle)
    }

    /// How the child ended.
    package enum TerminationReason: Sendable, Equatable {
        /// It exited: ``terminationStatus`` is its exit code.
        case exit
        /// A signal ended it: ``terminationStatus`` is the signal's number.
        case uncaughtSignal
    }

    /// Why the child could not be started.
    package struct LaunchError: Error, CustomStringConvertible {
        /// The program that was to run.
        package let executable: String
        /// What went wrong, in swift-subprocess's words.
        package let reason: String
        package var description: String { "could not start \(executable): \(reason)" }
    }

    /// Running, or ended with its termination status (known before its exit is collected).
    fileprivate enum Life {
        case running
        case ended(TerminationStatus)
    }

    /// The child's process id.
    package let processIdentifier: Int32
    private let state: ChildState
    /// The task holding swift-subprocess's `run` open until the child has ended.
    private let supervisor: Task<TerminationStatus, any Error>
    /// The streams it was given, kept as long as this value (as Foundation's `Process` keeps its
    /// pipes): a caller that reads a pipe only until a start-up line and lets its `Pipe` go would
    /// close the near end, and the child would die of SIGPIPE at its next write.
    private let streams: [Stream]

    private init(processIdentifier: Int32, state: ChildState, supervisor: Task<TerminationStatus, any Error>, streams: [Stream]) {
        self.processIdentifier = processIdentifier
        self.state = state
        self.supervisor = supervisor
        self.streams = streams
    }

    /// Starts `executable` with `arguments` and `environment` (`nil`: this process's) and returns
    /// once it runs. Throws ``LaunchError`` when it cannot be started (no such program, not
    /// executable...).
    package static func launch(
        _ executable: URL, arguments: [String] = [], environment: [String: String]? = nil, input: Stream = .inherit,
        output: Stream = .inherit, error: Stream = .inherit
    ) async throws(LaunchError) -> LaunchedProcess {
        var platformOptions = PlatformOptions()
        // 0: a new group whose id is the child's.
        platformOptions.processGroupID = 0
        let configuration = Configuration(
            executable: .path(FilePath(executable.path)), arguments: Arguments(arguments),
            environment: environment.map { values in
                .custom(Dictionary(uniqueKeysWithValues: values.map { (Environment.Key(stringLiteral: $0.key), $0.value) }))
            } ?? .inherit,
            platformOptions: platformOptions)
        let streams = (
            input: descriptor(input, standard: STDIN_FILENO), output: descriptor(output, standard: STDOUT_FILENO),
            error: descriptor(error, standard: STDERR_FILENO)
        )
        let state = ChildState()
        var supervisor: Task<TerminationStatus, any Error>?
        let pid: Int32
        do {
            pid = try await withCheckedThrowingContinuation { continuation in
                state.started.withLock { $0 = continuation }
                supervisor = Task {
                    do {
                        let result = try await Subprocess.run(
                            configuration, input: .fileDescriptor(streams.input, closeAfterSpawningProcess: false),
                            output: .fileDescriptor(streams.output, closeAfterSpawningProcess: false),
                            error: .fileDescriptor(streams.error, closeAfterSpawningProcess: false)
                        ) { execution in
                            let pid = execution.processIdentifier.value
                            state.started.withLock { $0.take() }?.resume(returning: pid)
                            try await state.watch(pid)
                        }
                        return result.terminationStatus
                    } catch {
                        state.started.withLock { $0.take() }?.resume(throwing: error)
                        throw error
                    }
                }
            }
        } catch {
            throw LaunchError(executable: executable.path, reason: "\(error)")
        }
        // The child has its copies of the pipes' far ends: close ours (as Foundation's `Process` does).
        if case .pipe(let pipe) = input { try? pipe.fileHandleForReading.close() }
        for case .pipe(let pipe) in [output, error] { try? pipe.fileHandleForWriting.close() }
        // Set before the continuation could resume: the task is created inside its closure.
        guard let supervisor else { preconditionFailure("the supervising task is created before the launch resumes") }
        return LaunchedProcess(processIdentifier: pid, state: state, supervisor: supervisor, streams: [input, output, error])
    }

    /// Whether the child has not ended yet. Asks the system (without collecting the exit), so it
    /// does not wait for the supervising task: ``waitUntilExit()`` works with every cooperative
    /// thread blocked.
    package var isRunning: Bool {
        !state.checkEnded(processIdentifier)
    }

    /// Its exit code, or the number of the signal that ended it; 0 while it runs.
    package var terminationStatus: Int32 {
        guard case .ended(let status) = state.life.withLock({ $0 }) else { return 0 }
        switch status {
        case .exited(let code): return code
        case .signaled(let signal): return signal
        }
    }

    /// How it ended (`.exit` while it runs).
    package var terminationReason: TerminationReason {
        guard case .ended(let status) = state.life.withLock({ $0 }) else { return .exit }
        if case .signaled = status { return .uncaughtSignal }
        return .exit
    }

    /// Sends SIGTERM, when it is still running.
    package func terminate() { send(SIGTERM) }

    /// Sends SIGINT (Ctrl-C), when it is still running.
    package func interrupt() { send(SIGINT) }

    /// Sends SIGKILL, when it is still running.
    package func kill() { send(SIGKILL) }

    /// Sends `signal` to the child while it runs; nothing once it has ended.
    package func send(_ signal: Int32) {
        // Under the lock, so the watcher cannot mark it ended (and let its exit be collected) meanwhile.
        state.life.withLock { life in
            if case .running = life { _ = Glibc.kill(processIdentifier, signal) }
        }
    }

    /// Waits for the child to end and returns its status (exit code or signal number), without
    /// holding a thread.
    @discardableResult
    package func exit() async -> Int32 {
        _ = try? await supervisor.value
        return terminationStatus
    }

    /// Waits up to `limit` for the child to end and kills it (SIGKILL) if it has not; answers whether
    /// it ended by itself.
    @discardableResult
    package func exit(killingAfter limit: Duration) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while isRunning, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        let endedByItself = !isRunning
        if !endedByItself { kill() }
        await exit()
        return endedByItself
    }

    /// Blocks the calling thread until the child has ended (call it from a thread of its own,
    /// never a cooperative one; async code awaits ``exit()``).
    package func waitUntilExit() {
        while isRunning { usleep(1_000) }
    }
}

/// What the supervising task and the ``LaunchedProcess`` share: the continuation that hands the
/// launch its process id, and whether the child still runs.
private final class ChildState: Sendable {
    let started = Mutex<CheckedContinuation<Int32, any Error>?>(nil)
    let life = Mutex(LaunchedProcess.Life.running)

    /// Returns once the child has ended (its exit not collected yet), checking every 10 ms; thrown
    /// out of by cancellation, which makes swift-subprocess kill the child.
    func watch(_ pid: Int32) async throws {
        while !checkEnded(pid) {
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Whether child `pid` has ended, marking it ended the first time that is seen. Under the lock
    /// that signals are sent under, so none is sent once it is marked.
    func checkEnded(_ pid: Int32) -> Bool {
        life.withLock { life in
            guard case .running = life else { return true }
            guard let status = Self.endedStatus(pid) else { return false }
            life = .ended(status)
            return true
        }
    }

    /// The status of child `pid` if it has ended, leaving its exit to be collected (`WNOWAIT`).
    private static func endedStatus(_ pid: Int32) -> TerminationStatus? {
        var info = siginfo_t()
        guard waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0, info._sifields._kill.si_pid == pid else {
            return nil
        }
        let status = info._sifields._sigchld.si_status
        return info.si_code == CLD_EXITED ? .exited(status) : .signaled(status)
    }
}

/// `/dev/null`, opened once (close-on-exec: a child gets it only as a standard stream).
private let nullDevice = open("/dev/null", O_RDWR | O_CLOEXEC)

/// The descriptor a child gets as its standard stream `standard` (0, 1 or 2) for `stream`.
private func descriptor(_ stream: LaunchedProcess.Stream, standard: Int32) -> FileDescriptor {
    switch stream {
    case .inherit: return FileDescriptor(rawValue: standard)
    case .discard: return FileDescriptor(rawValue: nullDevice)
    case .pipe(let pipe):
        let end = standard == STDIN_FILENO ? pipe.fileHandleForReading : pipe.fileHandleForWriting
        return FileDescriptor(rawValue: end.fileDescriptor)
    case .handle(let handle): return FileDescriptor(rawValue: handle.fileDescriptor)
    }
}
