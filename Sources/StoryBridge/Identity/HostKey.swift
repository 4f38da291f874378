import Crypto
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// This machine's identity: an Ed25519 key made at first start and kept in `<data-dir>/host-key`
/// (docs/design/FLEET.md §2, shared with docs/design/TRUST.md's checkpoints).
///
/// The file holds the 32 raw private key bytes, mode 0600. It is made once (a temporary file,
/// fsynced, then linked into place so that two first starts cannot both win) and never replaced: a
/// file of the wrong size, or readable by group or others, stops the command with
/// ``HostKeyError`` naming the file, because a new key would be a new host.
///
/// The host id is the first 16 bytes of SHA-256 of the 32-byte raw public key in lower-case
/// base32 (RFC 4648 alphabet, no padding): 26 characters. It has no description that shows the
/// private key: `print(key)` names the host id only.
package struct HostKey: Sendable, CustomStringConvertible, CustomReflectable {
    /// The name of the key file inside the data folder.
    package static let fileName = "host-key"

    private let key: Curve25519.Signing.PrivateKey

    /// The host id (26 lower-case base32 characters).
    package let hostId: String

    /// A new random key (not written anywhere).
    package init() {
        self.init(key: Curve25519.Signing.PrivateKey())
    }

    /// The key of 32 raw private key bytes.
    package init(rawRepresentation: Data) throws(HostKeyError) {
        guard rawRepresentation.count == 32, let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: rawRepresentation)
        else { throw .malformed(path: "(memory)", reason: "not 32 bytes of an Ed25519 private key") }
        self.init(key: key)
    }

    private init(key: Curve25519.Signing.PrivateKey) {
        self.key = key
        hostId = Self.hostId(ofPublicKey: key.publicKey.rawRepresentation)
    }

    /// The 32 raw bytes of the public key.
    package var publicKey: Data { key.publicKey.rawRepresentation }

    /// The Ed25519 signature (64 bytes) of `bytes`.
    package func signature(for bytes: some DataProtocol) -> Data {
        // Signing with a valid Curve25519 key does not fail (swift-crypto throws only on a bad key).
        try! key.signature(for: bytes)
    }

    /// The host id of a raw 32-byte Ed25519 public key.
    package static func hostId(ofPublicKey raw: Data) -> String {
        Base32.lowercaseUnpadded(Array(SHA256.hash(data: raw).prefix(16)))
    }

    /// Whether `signature` is the Ed25519 signature of `bytes` by the raw public key `publicKey`.
    package static func isValidSignature(_ signature: Data, of bytes: some DataProtocol, publicKey: Data) -> Bool {
        guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: publicKey) else { return false }
        return key.isValidSignature(signature, for: bytes)
    }

    /// The host id grouped for people: `xxxxx-xxxxx-xxxxx-xxxxx-xxxxxx`. JSON carries ``hostId``.
    package static func grouped(_ hostId: String) -> String {
        let characters = Array(hostId)
        guard characters.count == 26 else { return hostId }
        let groups = [0..<5, 5..<10, 10..<15, 15..<20, 20..<26].map { String(characters[$0]) }
        return groups.joined(separator: "-")
    }

    /// ``hostId`` grouped for people.
    package var groupedHostId: String { Self.grouped(hostId) }

    /// The key file of `directory`.
    package static func file(in directory: DataDirectory) -> URL {
        directory.root.appendingPathComponent(fileName)
    }

    /// The key of `directory`: read from its `host-key`, or made and written there when the file
    /// does not exist. The folder must exist (the data folder's start-up checks make it).
    package static func loadOrCreate(in directory: DataDirectory) throws(HostKeyError) -> HostKey {
        let path = file(in: directory).path
        if let existing = try read(at: path) { return existing }
        let made = HostKey()
        if try writeNew(made, at: path) { return made }
        // Another process made it between our read and our link: that one is the host's key.
        guard let existing = try read(at: path) else { throw .unusable(path: path, reason: "it vanished while being made") }
        return existing
    }

    /// The key in `path`, or nil when there is no such file.
    package static func read(at path: String) throws(HostKeyError) -> HostKey? {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT { return nil }
            throw .unusable(path: path, reason: "cannot read it: \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw .unusable(path: path, reason: "cannot read it: \(String(cString: strerror(errno)))")
        }
        guard (status.st_mode & S_IFMT) == S_IFREG else { throw .unusable(path: path, reason: "it is not a regular file") }
        let mode = UInt16(status.st_mode & 0o7777)
        guard mode & 0o077 == 0 else { throw .exposed(path: path, mode: mode) }
        guard status.st_size == 32 else {
            throw .malformed(path: path, reason: "it holds \(status.st_size) bytes, not the 32 bytes of an Ed25519 private key")
        }
        var bytes = [UInt8](repeating: 0, count: 32)
        var offset = 0
        while offset < 32 {
            let got = bytes.withUnsafeMutableBytes { readDescriptor(descriptor, $0.baseAddress! + offset, 32 - offset) }
            if got < 0, errno == EINTR { continue }
            guard got > 0 else { throw .unusable(path: path, reason: "it could not be read to its end") }
            offset += got
        }
        do {
            return try HostKey(rawRepresentation: Data(bytes))
        } catch {
            throw .malformed(path: path, reason: "its bytes are not an Ed25519 private key")
        }
    }

    /// Writes `key` to `path` unless a file is there: a temporary file (0600, fsynced) linked into
    /// place, then the folder fsynced. False when another file was there first.
    private static func writeNew(_ key: HostKey, at path: String) throws(HostKeyError) -> Bool {
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent().path
        let temporary = "\(folder)/.\(fileName).\(UUID().uuidString.prefix(8)).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw .unusable(path: path, reason: "cannot create \(temporary): \(String(cString: strerror(errno)))")
        }
        defer { unlink(temporary) }
        let raw = Array(key.key.rawRepresentation)
        var failure: String?
        if fchmod(descriptor, 0o600) != 0 { failure = "cannot set its mode" }
        if failure == nil {
            let written = raw.withUnsafeBytes { write(descriptor, $0.baseAddress!, 32) }
            if written != 32 { failure = "cannot write it" }
        }
        if failure == nil, fsync(descriptor) != 0 { failure = "cannot sync it" }
        if let failure {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw .unusable(path: path, reason: "\(failure): \(reason)")
        }
        close(descriptor)
        // link(2) refuses an existing name, where rename(2) would replace another process's key.
        guard link(temporary, path) == 0 else {
            if errno == EEXIST { return false }
            throw .unusable(path: path, reason: "cannot put it in place: \(String(cString: strerror(errno)))")
        }
        let folderDescriptor = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folderDescriptor >= 0 {
            fsync(folderDescriptor)
            close(folderDescriptor)
        }
        return true
    }

    /// Names the key by its host id only.
    package var description: String { "host key \(hostId)" }

    /// No children: reflection shows nothing of the key.
    package var customMirror: Mirror { Mirror(self, children: ["hostId": hostId], displayStyle: .struct) }
}

/// Why the host key could not be used. Each case names the file.
package enum HostKeyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file is readable or writable by group or others.
    case exposed(path: String, mode: UInt16)
    /// The file is not a 32-byte key.
    case malformed(path: String, reason: String)
    /// The file could not be read or written.
    case unusable(path: String, reason: String)

    /// What is wrong and what to do.
    package var description: String {
        switch self {
        case .exposed(let path, let mode):
            "the host key \(path) has mode \(String(mode, radix: 8)), which lets others read it: chmod 600 '\(path)' (it is not replaced: a new key would be a new host)"
        case .malformed(let path, let reason):
            "the host key \(path) is damaged: \(reason); restore it from a backup, or remove it to make this machine a new host"
        case .unusable(let path, let reason):
            "the host key \(path) cannot be used: \(reason)"
        }
    }
}

/// read(2), named apart from ``HostKey/read(at:)``.
private func readDescriptor(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}

/// RFC 4648 base32.
package enum Base32 {
    private static let alphabet = Array("abcdefghijklmnopqrstuvwxyz234567".utf8)

    /// `bytes` in lower-case base32 without padding.
    package static func lowercaseUnpadded(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count * 8 + 4) / 5)
        var buffer: UInt32 = 0
        var bits = 0
        for byte in bytes {
            buffer = (buffer << 8) | UInt32(byte)
            bits += 8
            while bits >= 5 {
                output.append(alphabet[Int((buffer >> UInt32(bits - 5)) & 0x1F)])
                bits -= 5
            }
        }
        if bits > 0 { output.append(alphabet[Int((buffer << UInt32(5 - bits)) & 0x1F)]) }
        return String(decoding: output, as: UTF8.self)
    }
}
