import Foundation
import StoryBridgeTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `LaunchedProcess`, the swift-subprocess launcher that the CLI, the tests and the benchmarks
/// start their children with: real programs (`/bin/sh`), real pipes, real signals.
@Suite struct LaunchedProcessTests {
    /// Runs `script` with `/bin/sh -c` and returns its standard output and the child.
    private func shell(_ script: String, environment: [String: String]? = nil) async throws -> (output: String, child: LaunchedProcess) {
        let output = Pipe()
        let errors = Pipe()
        let child = try await LaunchedProcess.launch(
            URL(fileURLWithPath: "/bin/sh"), arguments: ["-c", script], environment: environment, input: .discard,
            output: .pipe(output), error: .pipe(errors))
        let read = await readUntilExit(child, output: output, errors: errors, limit: .seconds(30))
        return (String(decoding: read.output, as: UTF8.self), child)
    }

    @Test func exitCodeArgumentsAndEnvironmentReachTheParent() async throws {
        let (output, child) = try await shell(#"printf '%s' "$GREETING"; exit 3"#, environment: ["GREETING": "hello child"])
        #expect(output == "hello child")
        #expect(!child.isRunning)
        #expect(child.terminationReason == .exit)
        #expect(child.terminationStatus == 3)
        #expect(await child.exit() == 3)
    }

    @Test func theChildGetsNoDescriptorOfTheParentBeyondItsStreams() async throws {
        // Open descriptors here that the child must not inherit (this file, and a pipe).
        let held = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/self/status"))
        let stray = Pipe()
        defer {
            try? held.close()
            try? stray.fileHandleForReading.close()
            try? stray.fileHandleForWriting.close()
        }
        // `ls` lists its own descriptors: 0, 1, 2 and the directory it reads.
        let (output, child) = try await shell("ls /proc/self/fd")
        #expect(child.terminationStatus == 0)
        let descriptors = output.split(separator: "\n").compactMap { Int($0) }.sorted()
        #expect(descriptors == [0, 1, 2, 3], "the child saw descriptors \(descriptors)")
    }

    @Test func theChildRunsInAProcessGroupOfItsOwn() async throws {
        // Field 5 of /proc/PID/stat is the process group (the shell's name, field 2, has no space).
        let (output, child) = try await shell("cat /proc/$$/stat")
        let fields = output.split(separator: " ")
        #expect(fields.count > 5)
        #expect(Int32(fields[0]) == child.processIdentifier)
        #expect(Int32(fields[4]) == child.processIdentifier, "process group \(fields.count > 4 ? fields[4] : "?")")
        #expect(getpgrp() != child.processIdentifier)
    }

    @Test func whatTheChildLeavesInItsGroupIsEndedAndWaitedFor() async throws {
        // The shell starts a sleeper in the background and ends: the sleeper stays in its group.
        let (output, child) = try await shell("sleep 60 >/dev/null 2>&1 & echo $!")
        let sleeper = try #require(Int32(output.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(!child.isRunning)
        #expect(LaunchedProcess.livingMembers(ofGroup: child.processIdentifier) == [sleeper])
        #expect(await child.endGroup(within: .seconds(10)))
        #expect(LaunchedProcess.livingMembers(ofGroup: child.processIdentifier).isEmpty)
        // Cancelled callers still wait for the end (cleanup is not cut short).
        let (again, second) = try await shell("sleep 60 >/dev/null 2>&1 & echo $!")
        let other = try #require(Int32(again.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(LaunchedProcess.livingMembers(ofGroup: second.processIdentifier) == [other])
        let ending = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await second.endGroup(within: .seconds(10))
        }
        #expect(await ending.value)
        #expect(LaunchedProcess.livingMembers(ofGroup: second.processIdentifier).isEmpty)
    }

    @Test func aSignalThisProcessIgnoresIsAtItsDefaultInTheChild() async throws {
        // SIGUSR1 is used nowhere in the project; ignoring it here for the test's length is harmless.
        let previous = signal(SIGUSR1, SIG_IGN)
        defer { signal(SIGUSR1, previous) }
        let (output, child) = try await shell("exec grep -E '^Sig(Ign|Blk)' /proc/self/status")
        #expect(child.terminationStatus == 0)
        let masks = Dictionary(
            uniqueKeysWithValues: output.split(separator: "\n").compactMap { line -> (String, UInt64)? in
                let parts = line.split(separator: ":")
                guard parts.count == 2, let mask = UInt64(parts[1].trimmingCharacters(in: .whitespaces), radix: 16) else { return nil }
                return (String(parts[0]), mask)
            })
        let usr1: UInt64 = 1 << (UInt64(SIGUSR1) - 1)
        // The premise: this process does ignore it.
        let own = try String(contentsOfFile: "/proc/self/status", encoding: .utf8).split(separator: "\n")
            .first { $0.hasPrefix("SigIgn:") }.flatMap { UInt64($0.dropFirst(7).trimmingCharacters(in: .whitespaces), radix: 16) }
        #expect(own.map { $0 & usr1 != 0 } == true)
        #expect(masks["SigIgn"].map { $0 & usr1 == 0 } == true, "SigIgn \(String(masks["SigIgn"] ?? 0, radix: 16))")
        #expect(masks["SigBlk"] == 0)
    }

    @Test func theParentClosesItsCopyOfThePipeSoReadingEndsWithTheChild() async throws {
        let output = Pipe()
        let child = try await LaunchedProcess.launch(
            URL(fileURLWithPath: "/bin/sh"), arguments: ["-c", "echo done"], output: .pipe(output))
        // Reading to the end returns once the child exits: no write end is left open here.
        let text = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(returning: String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
            }
        }
        #expect(text == "done\n")
        await waitForExit(child)
        #expect(child.terminationStatus == 0)
    }

    @Test func aSignalEndsTheChildAndIsReportedAsSuch() async throws {
        let child = try await LaunchedProcess.launch(
            URL(fileURLWithPath: "/bin/sleep"), arguments: ["30"], output: .discard, error: .discard)
        #expect(child.processIdentifier > 0)
        #expect(child.isRunning)
        child.terminate()
        let exitedByItself = await waitForExit(child, limit: .seconds(10))
        #expect(exitedByItself)
        #expect(child.terminationReason == .uncaughtSignal)
        #expect(child.terminationStatus == SIGTERM)
        // Once it has ended, signalling does nothing (its id may be another's once its exit is collected).
        child.interrupt()
        #expect(child.terminationStatus == SIGTERM)
    }

    @Test func aChildStillRunningAfterTheLimitIsKilled() async throws {
        // The program ignores SIGTERM (ignored signals stay ignored across exec); only the kill at
        // the limit ends it.
        let output = Pipe()
        let child = try await LaunchedProcess.launch(
            URL(fileURLWithPath: "/bin/sh"), arguments: ["-c", "trap '' TERM; echo ready; exec sleep 30"], output: .pipe(output),
            error: .discard)
        #expect(await readUntil("ready", from: output).contains("ready"))
        child.terminate()
        let exitedByItself = await child.exit(killingAfter: .milliseconds(300))
        // Killed at the limit, not ended by its 30 s sleep (which would exit 0): the signal says
        // so whatever the machine's load (a wall-clock bound failed at load 11).
        #expect(!exitedByItself)
        #expect(child.terminationReason == .uncaughtSignal)
        #expect(child.terminationStatus == SIGKILL)
    }

    @Test func aPipeReadOnlyUntilStartUpStaysOpenForTheChild() async throws {
        // The caller reads until a start-up line and lets its Pipe go (as the server tests do); the
        // child's later writes must not meet a closed pipe (SIGPIPE). Ended by SIGPIPE before the
        // process kept its streams.
        let child = try await Self.startAndForgetThePipe()
        #expect(await child.exit() == 0)
        #expect(child.terminationReason == .exit)
    }

    private static func startAndForgetThePipe() async throws -> LaunchedProcess {
        let output = Pipe()
        let child = try await LaunchedProcess.launch(
            URL(fileURLWithPath: "/bin/sh"), arguments: ["-c", "echo ready; sleep 0.3; echo later; exit 0"], output: .pipe(output),
            error: .discard)
        #expect(await readUntil("ready", from: output).contains("ready"))
        return child
    }

    @Test func aChildThatCannotStartThrowsNamingTheProgram() async {
        await #expect {
            _ = try await LaunchedProcess.launch(URL(fileURLWithPath: "/nonexistent/program"))
        } throws: { error in
            "\(error)".contains("/nonexistent/program")
        }
    }
}
