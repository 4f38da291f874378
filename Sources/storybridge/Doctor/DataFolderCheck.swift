import Foundation
import StoryBridge

/// The data folder: there or creatable, writable, and with room for presentations and the database.
enum DataFolderCheck {
    /// Less free space than this fails the check: an install or a sync would soon run out.
    static let minimumFreeBytes: Int64 = 100_000_000

    static func run(_ directory: DataDirectory) -> DoctorCheck {
        let path = directory.root.path
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
        if exists && !isDirectory.boolValue {
            return fail(
                "\(path) is a file, not a folder",
                fix: "mv '\(path)' '\(path).old'   (or pass --data-dir with another folder)")
        }
        // The folder itself, or the nearest folder above it that exists, is where writing is tried.
        var probeFolder = directory.root
        while !FileManager.default.fileExists(atPath: probeFolder.path) && probeFolder.path != "/" {
            probeFolder.deleteLastPathComponent()
        }
        let probe = probeFolder.appendingPathComponent(".storybridge-doctor-\(UUID().uuidString)")
        do {
            try Data("probe".utf8).write(to: probe, options: .withoutOverwriting)
            try FileManager.default.removeItem(at: probe)
        } catch {
            let problem = SystemProblem(error)
            let fix =
                problem == .diskFull
                ? "free space on the disk that holds '\(probeFolder.path)'"
                : "chown \(NSUserName()) '\(probeFolder.path)' && chmod u+rwx '\(probeFolder.path)'   (or pass --data-dir)"
            return fail("cannot write in \(probeFolder.path): \(problem)", fix: fix)
        }
        guard let free = freeBytes(probeFolder.path) else {
            return fail("cannot tell the free space of \(probeFolder.path)", fix: "df -h '\(probeFolder.path)'")
        }
        let freeText = ByteCountFormatter.string(fromByteCount: free, countStyle: .file)
        guard free >= minimumFreeBytes else {
            return fail(
                "\(path): only \(freeText) free",
                fix: "free space on the disk that holds '\(probeFolder.path)' (storybridge remove ID deletes installed presentations)")
        }
        let state = exists ? "writable" : "does not exist yet, will be created (\(probeFolder.path) is writable)"
        return DoctorCheck(subject: "data folder", detail: "\(path): \(state), \(freeText) free", outcome: .ok, required: true)
    }

    static func freeBytes(_ path: String) -> Int64? {
        var status = statvfs()
        guard statvfs(path, &status) == 0 else { return nil }
        return Int64(status.f_bavail) * Int64(status.f_frsize)
    }

    private static func fail(_ detail: String, fix: String) -> DoctorCheck {
        DoctorCheck(subject: "data folder", detail: detail, outcome: .failed(fix: fix), required: true)
    }
}
