import Crypto
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The audit log's head as the head file keeps it (docs/design/TRUST.md 5.1).
package struct AuditHead: Sendable, Hashable {
    /// The head entry's segment, 32 hex digits.
    package var segment: String
    /// The head entry's position.
    package var position: Int
    /// The head entry's hash, 32 bytes.
    package var hash: Data
    /// The last checkpoint's sequence at the time (0: none), so a fresh database after a damaged
    /// one continues the numbering the collector already holds.
    package var checkpointSequence: Int
    /// Whether the host stopped cleanly after writing it.
    package var cleanStop: Bool

    package init(segment: String, position: Int, hash: Data, checkpointSequence: Int, cleanStop: Bool = false) {
        self.segment = segment
        self.position = position
        self.hash = hash
        self.checkpointSequence = checkpointSequence
        self.cleanStop = cleanStop
    }
}

/// `<data-dir>/audit/head`: the chain's head kept outside the database, so a database cut short or
/// restored from an older copy shows at the next start (docs/design/TRUST.md 5.1).
///
/// Two slots of 128 bytes at offsets 0 and 128; an entry at position P is written to slot P % 2 with
/// one `pwrite` after its commit (no fsync, no rename: a syscall per commit, not a journaled change of
/// the file system). A slot is `"sbhead01" ‖ segment(16) ‖ position(u64 BE) ‖ hash(32) ‖
/// cleanStop(1) ‖ checkpointSequence(u64 BE) ‖ zeros to 96 ‖ SHA-256(first 96 bytes)[0..<16] ‖ zeros
/// to 128`. A slot torn by a crash fails its check and the other one is used. Because a slot is
/// written only after its entry's commit was synced, the file can lag the database after a power
/// cut but never lead it. ``sync()`` (`fdatasync`) runs at each checkpoint and at a clean stop.
package final class AuditHeadFile: Sendable {
    /// What reading the file found.
    package enum State: String, Sendable {
        /// Both slots sound, or one sound and the other never written.
        case ok
        /// A slot failed its check (a torn write): the other was used, or none was sound.
        case torn
        /// No file, or an empty one.
        case missing
    }

    static let slotSize = 128
    private static let magic = Array("sbhead01".utf8)

    /// The file.
    package let url: URL
    private let descriptor: Int32

    /// The head file of the data folder holding `databaseFile`: `audit/head` beside it.
    package static func url(besideDatabase databaseFile: URL) -> URL {
        databaseFile.deletingLastPathComponent().appendingPathComponent("audit").appendingPathComponent("head")
    }

    /// Opens (creating it and its folder, mode 0600, when missing) the head file at `url`.
    package init(url: URL) throws(AuditHeadFileError) {
        self.url = url
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        } catch {
            throw .unusable(url.path, "cannot create its folder: \(error.localizedDescription)")
        }
        descriptor = open(url.path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw .unusable(url.path, String(cString: strerror(errno))) }
    }

    deinit {
        close(descriptor)
    }

    /// The sound slot with the higher position, and what the file looked like.
    package func read() -> (head: AuditHead?, state: State) {
        var bytes = [UInt8](repeating: 0, count: 2 * Self.slotSize)
        let got = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress!, 2 * Self.slotSize, 0) }
        let length = max(0, got)
        if length == 0 { return (nil, .missing) }
        var heads: [AuditHead] = []
        var torn = false
        for slot in 0..<2 {
            let start = slot * Self.slotSize
            let end = min(length, start + Self.slotSize)
            guard end > start else { continue }
            let slice = Array(bytes[start..<end])
            if slice.allSatisfy({ $0 == 0 }) { continue }  // never written
            if let head = Self.decode(slice) { heads.append(head) } else { torn = true }
        }
        return (heads.max { $0.position < $1.position }, torn ? .torn : .ok)
    }

    /// Writes `head` into slot `position % 2` (one `pwrite`, no sync).
    package func write(_ head: AuditHead) {
        let slot = Self.encode(head)
        _ = slot.withUnsafeBytes { pwrite(descriptor, $0.baseAddress!, Self.slotSize, off_t((head.position % 2) * Self.slotSize)) }
    }

    /// Writes `head` into both slots and syncs: at start, so a slot left from before (a head the
    /// database no longer reaches, already recorded as a gap) is not read again.
    package func reset(to head: AuditHead) {
        let slot = Self.encode(head)
        for index in 0..<2 {
            _ = slot.withUnsafeBytes { pwrite(descriptor, $0.baseAddress!, Self.slotSize, off_t(index * Self.slotSize)) }
        }
        sync()
    }

    /// Makes what was written durable (`fdatasync`).
    package func sync() {
        #if os(Linux)
            _ = fdatasync(descriptor)
        #else
            _ = fsync(descriptor)
        #endif
    }

    static func encode(_ head: AuditHead) -> [UInt8] {
        var bytes = magic
        bytes.append(contentsOf: Data(auditHex: head.segment).map { [UInt8]($0) } ?? [UInt8](repeating: 0, count: 16))
        bytes = Array(bytes.prefix(24)) + [UInt8](repeating: 0, count: max(0, 24 - bytes.count))
        appendBigEndian(UInt64(head.position), to: &bytes)
        bytes.append(contentsOf: head.hash.prefix(32))
        bytes.append(contentsOf: [UInt8](repeating: 0, count: 64 - bytes.count))
        bytes.append(head.cleanStop ? 1 : 0)
        appendBigEndian(UInt64(head.checkpointSequence), to: &bytes)
        bytes.append(contentsOf: [UInt8](repeating: 0, count: 96 - bytes.count))
        bytes.append(contentsOf: SHA256.hash(data: bytes).prefix(16))
        bytes.append(contentsOf: [UInt8](repeating: 0, count: slotSize - bytes.count))
        return bytes
    }

    static func decode(_ slot: [UInt8]) -> AuditHead? {
        guard slot.count >= 112, Array(slot[0..<8]) == magic,
            Array(SHA256.hash(data: slot[0..<96]).prefix(16)) == Array(slot[96..<112])
        else { return nil }
        return AuditHead(
            segment: Data(slot[8..<24]).auditHex, position: Int(bigEndian(slot[24..<32])), hash: Data(slot[32..<64]),
            checkpointSequence: Int(bigEndian(slot[65..<73])), cleanStop: slot[64] == 1)
    }

    private static func appendBigEndian(_ value: UInt64, to bytes: inout [UInt8]) {
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    private static func bigEndian(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }
}

/// The head file cannot be opened.
package enum AuditHeadFileError: Error, Sendable, CustomStringConvertible {
    case unusable(String, String)

    package var description: String {
        switch self {
        case .unusable(let path, let reason): "the audit head file \(path) cannot be used: \(reason)"
        }
    }
}
