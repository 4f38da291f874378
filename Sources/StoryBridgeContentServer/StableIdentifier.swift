import Crypto
import Foundation

/// Numeric ids for the objects a storybridge library has no numbers for (slides, media files),
/// derived from what names them, so they are the same on every request and across restarts.
enum StableIdentifier {
    /// A positive id below 2³¹ from `kind`, the presentation id and the file name.
    static func make(_ kind: String, presentationId: Int, name: String) -> Int {
        let digest = SHA256.hash(data: Data("\(kind)/\(presentationId)/\(name)".utf8))
        let value = digest.prefix(4).reduce(UInt32(0)) { ($0 << 8) | UInt32($1) } & 0x7FFF_FFFF
        return Int(max(value, 1))
    }

    /// A 64-hex blob id (the shape StoryCLM uses) for an object at a revision.
    static func blobId(_ kind: String, id: Int, revision: Int) -> String {
        SHA256.hash(data: Data("blob/\(kind)/\(id)/\(revision)".utf8)).map { String(format: "%02x", $0) }.joined()
    }
}
