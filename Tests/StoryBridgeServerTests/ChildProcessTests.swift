import Foundation
import StoryBridgeTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `ChildProcess`, the posix_spawn launcher that the CLI, the tests and the benchmarks start
/// their children with: real programs (`/bin/sh`), real pipes, real signals.
@Suite struct ChildProcessTests {
    /// Runs `script` with `/bin/sh -c` and returns its standard output and the child.
    private func shell(_ script: String, environment: [String: String]? = nil) async throws -> (output: String, child: ChildProcess) {
        let child = ChildProcess()
        child.executableURL = URL(fileURLWithPath: "/bin/sh")
        child.arguments = ["-c", script]
        child.environment = environment
        let output = Pipe()
        let errors = Pipe()
        child.standardOutput = output
        child.standardError = errors
        child.standardInput = nil
        try child.run()
        let read = await readUntilExit(child, output: output, errors: errors, limit: .seconds(30))
        return (String(decoding: read.output, as: UTF8.self), child)
    }

    @Test func exitCodeArgumentsAndEnvironmentReachTheParent() async throws {
        let (output, child) = try await shell(#"printf '%s' "$GREETING"; exit 3"#, environment: ["GREETING": "hello child"])
        #expect(output == "hello child")
        #expect(!child.isRunning)
        #expect(child.terminationReason == .exit)
        #expect(child.terminationStatus == 3)
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

    @Test func theParentClosesItsCopyOfThePipeSoReadingEndsWithTheChild() async throws {
        let child = ChildProcess()
        child.executableURL = URL(fileURLWithPath: "/bin/sh")
        child.arguments = ["-c", "echo done"]
        let output = Pipe()
        child.standardOutput = output
        try child.run()
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
        let child = ChildProcess()
        child.executableURL = URL(fileURLWithPath: "/bin/sleep")
        child.arguments = ["30"]
        child.standardOutput = nil
        child.standardError = nil
        try child.run()
        #expect(child.processIdentifier > 0)
        #expect(child.isRunning)
        child.terminate()
        let exitedByItself = await waitForExit(child, limit: .seconds(10))
        #expect(exitedByItself)
        #expect(child.terminationReason == .uncaughtSignal)
        #expect(child.terminationStatus == SIGTERM)
        // Once its exit is collected, signalling does nothing (its id may be another's now).
        child.interrupt()
    }

    @Test func aChildThatCannotStartThrowsNamingTheProgram() {
        let child = ChildProcess()
        child.executableURL = URL(fileURLWithPath: "/nonexistent/program")
        #expect {
            try child.run()
        } throws: { error in
            "\(error)".contains("/nonexistent/program") && "\(error)".contains("No such file")
        }
        #expect(!child.isRunning)
        #expect(child.processIdentifier == 0)
    }
}
