import Foundation

#if canImport(Glibc)
    import Glibc
#endif

extension LaunchedProcess {
    /// Ends what is left of the child's process group once the child itself has ended, and waits
    /// until none of it runs: the helpers a program leaves behind (Chromium's renderers, zygote and
    /// utility processes outlive its browser process by a moment, longer on a busy machine), so
    /// that nothing still writes into a folder the caller removes next. Checks `/proc` every
    /// 10 ms and sends SIGKILL to the group while any of it runs; a zombie writes nothing and is
    /// not waited for. The group is signalled only while it has members: the child's own exit
    /// has been collected, and its id names this group only as long as processes are in it (an id
    /// in use as a process group is not given to a new process; an empty group's id can be, and
    /// this machine's ids wrap at 32768). Returns whether the group was empty within `limit`. Not
    /// cut short by the caller's cancellation: it is cleanup.
    @discardableResult
    package func endGroup(within limit: Duration = .seconds(5)) async -> Bool {
        let group = processIdentifier
        guard group > 0 else { return true }
        return await Task.detached {
            let deadline = ContinuousClock.now + limit
            while !Self.livingMembers(ofGroup: group).isEmpty {
                _ = Glibc.kill(-group, SIGKILL)
                guard ContinuousClock.now < deadline else { return false }
                try? await Task.sleep(for: .milliseconds(10))
            }
            return true
        }.value
    }

    /// The processes of process group `group` that are not zombies, from `/proc/PID/stat` (the
    /// fields after the command name, which is in parentheses and may hold any character: state,
    /// parent, group).
    package static func livingMembers(ofGroup group: Int32) -> [Int32] {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        var members: [Int32] = []
        for entry in entries {
            guard let pid = Int32(entry),
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { continue }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 2, fields[0] != "Z", Int32(fields[2]) == group else { continue }
            members.append(pid)
        }
        return members
    }
}
