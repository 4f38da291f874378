import Crypto
import Foundation

/// The server's secret and the two keys derived from it: one signs tokens, one signs blob links.
///
/// The secret comes from the configuration, else from `content-server/signing-secret` in the data
/// folder (created with 32 random bytes and mode 0600 on first use), so tokens and links stay valid
/// across restarts.
struct SigningKeys: Sendable {
    // Kept as bytes: `SymmetricKey` is not `Sendable`.
    let tokens: Data
    let links: Data

    /// Derives both keys from `secret`.
    package init(secret: Data) {
        let master = SymmetricKey(data: secret)
        tokens = Data(HMAC<SHA256>.authenticationCode(for: Data("storybridge tokens".utf8), using: master))
        links = Data(HMAC<SHA256>.authenticationCode(for: Data("storybridge links".utf8), using: master))
    }

    /// Reads the secret kept in `folder`, creating it if missing.
    package static func stored(in folder: URL) throws(ContentServerSetupError) -> SigningKeys {
        let file = folder.appendingPathComponent("signing-secret")
        let fileManager = FileManager.default
        do {
            if let existing = try? Data(contentsOf: file), existing.count >= 32 {
                return SigningKeys(secret: existing)
            }
            try fileManager.createDirectory(at: folder, withIntermediateDirectories: true)
            var generator = SystemRandomNumberGenerator()
            let secret = Data((0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) })
            let temporary = folder.appendingPathComponent(".signing-secret-\(UUID().uuidString)")
            guard fileManager.createFile(atPath: temporary.path, contents: secret, attributes: [.posixPermissions: 0o600]) else {
                throw ContentServerSetupError.signingSecret("cannot write \(temporary.path)")
            }
            // Two servers starting at once: the first rename wins and both read the winner.
            if rename(temporary.path, file.path) != 0 { try? fileManager.removeItem(at: temporary) }
            return SigningKeys(secret: try Data(contentsOf: file))
        } catch let error as ContentServerSetupError {
            throw error
        } catch {
            throw .signingSecret("\(file.path): \(error.localizedDescription)")
        }
    }
}
