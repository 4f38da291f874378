import Foundation
import StoryBridge

/// `host id: …`: this machine's identity (docs/design/FLEET.md §2), made here when the data folder
/// exists and has no key yet.
enum HostIdCheck {
    static func run(_ directory: DataDirectory) -> DoctorCheck {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.root.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            return DoctorCheck(
                subject: "host id", detail: "none yet: the first serve makes the host key in \(directory.root.path)", outcome: .skipped,
                required: true)
        }
        do {
            let key = try HostKey.loadOrCreate(in: directory)
            return DoctorCheck(
                subject: "host id", detail: key.groupedHostId, outcome: .ok, required: true, value: .init(name: "hostId", value: key.hostId)
            )
        } catch {
            let fix: String
            switch error {
            case .exposed(let path, _): fix = "chmod 600 '\(path)'"
            case .malformed(let path, _): fix = "restore '\(path)' from a backup (or remove it: this machine becomes a new host)"
            case .unusable(let path, _): fix = "check the owner and mode of '\(path)' and its folder"
            }
            return DoctorCheck(subject: "host id", detail: error.description, outcome: .failed(fix: fix), required: true)
        }
    }
}
