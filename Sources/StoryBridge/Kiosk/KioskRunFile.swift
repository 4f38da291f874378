import Foundation

/// `<data-dir>/run/serve.json` (docs/design/FLEET.md §9.1): how `storybridge kiosk` finds the
/// `serve` of its data folder: `{"pid", "url", "controlToken"}`, mode 0600, written once serve
/// listens and removed when it stops gracefully. The control token is made anew at each start
/// and is nowhere else: whoever can read the file can drive the kiosk's browser, as the data
/// folder's owner can anyway.
package struct KioskRunFile: Codable, Sendable, Equatable {
    /// serve's process id.
    package var pid: Int32
    /// serve's base URL on loopback (`http://127.0.0.1:8080`).
    package var url: String
    /// The bearer token of the control socket (64 hex digits).
    package var controlToken: String

    /// A run file.
    package init(pid: Int32, url: String, controlToken: String) {
        self.pid = pid
        self.url = url
        self.controlToken = controlToken
    }

    /// A new control token: 32 random bytes in hex.
    package static func newToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    /// The file in `directory`.
    package static func file(in directory: DataDirectory) -> URL {
        directory.root.appendingPathComponent("run").appendingPathComponent("serve.json")
    }

    /// Writes the file in `directory`: a temporary file of mode 0600 renamed into place, so a
    /// reader sees the old file or the new one, never a part.
    package func write(in directory: DataDirectory) throws(KioskRunFileError) {
        let file = Self.file(in: directory)
        let folder = file.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw .unwritable(path: folder.path, reason: "\(error)")
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let bytes = try? encoder.encode(self) else { throw .unwritable(path: file.path, reason: "cannot encode it") }
        let temporary = folder.appendingPathComponent(".serve.json.\(UUID().uuidString.prefix(8)).tmp").path
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .unwritable(path: temporary, reason: String(cString: strerror(errno))) }
        let written = bytes.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress!, bytes.count) }
        let modeSet = fchmod(descriptor, 0o600) == 0
        close(descriptor)
        guard written == bytes.count, modeSet, rename(temporary, file.path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw .unwritable(path: file.path, reason: reason)
        }
    }

    /// The file in `directory`, or nil when there is none or it cannot be read as one.
    package static func read(in directory: DataDirectory) -> KioskRunFile? {
        guard let data = try? Data(contentsOf: file(in: directory)) else { return nil }
        return try? JSONDecoder().decode(KioskRunFile.self, from: data)
    }

    /// Removes the file in `directory` when it is this process's (`pid`): a serve started
    /// meanwhile on the same folder keeps its own.
    package static func remove(in directory: DataDirectory, pid: Int32 = getpid()) {
        guard read(in: directory)?.pid == pid else { return }
        unlink(file(in: directory).path)
    }
}

/// The run file cannot be written.
package enum KioskRunFileError: Error, Sendable, Equatable, CustomStringConvertible {
    case unwritable(path: String, reason: String)

    package var description: String {
        switch self {
        case .unwritable(let path, let reason): "cannot write \(path): \(reason)"
        }
    }
}
