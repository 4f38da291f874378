import Foundation
import StoryBridgeTesting
import Testing

@testable import StoryBridge

/// The head file kept outside the database (docs/design/TRUST.md 5.1), on a real file.
@Suite("audit head file")
struct AuditHeadFileTests {
    private func head(_ position: Int, clean: Bool = false) -> AuditHead {
        AuditHead(
            segment: String(repeating: "ab", count: 16), position: position, hash: Data(repeating: UInt8(position), count: 32),
            checkpointSequence: position / 10, cleanStop: clean)
    }

    @Test("a new file reads as missing; two slots hold the last two positions and the higher is read")
    func twoSlots() throws {
        let folder = try scratchFolder("sb-head")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = try AuditHeadFile(url: folder.appendingPathComponent("audit/head"))
        #expect(file.read().state == .missing && file.read().head == nil)
        file.write(head(41))
        #expect(file.read().head == head(41) && file.read().state == .ok)
        file.write(head(42, clean: true))
        #expect(file.read().head == head(42, clean: true) && file.read().state == .ok)
        let size = try FileManager.default.attributesOfItem(atPath: file.url.path)[.size] as? Int
        #expect(size == 256)
        let mode = try FileManager.default.attributesOfItem(atPath: file.url.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test("a torn slot (bytes overwritten) fails its check and the other slot is used")
    func tornSlot() throws {
        let folder = try scratchFolder("sb-head")
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("audit/head")
        let file = try AuditHeadFile(url: url)
        file.write(head(41))  // slot 1
        file.write(head(42))  // slot 0
        // Half of slot 0 written over, as a crash in the middle of its write would leave it.
        let handle = try FileHandle(forUpdating: url)
        try handle.seek(toOffset: 30)
        try handle.write(contentsOf: Data(repeating: 0x5A, count: 40))
        try handle.close()
        let read = try AuditHeadFile(url: url).read()
        #expect(read.head == head(41))
        #expect(read.state == .torn)
    }
}
