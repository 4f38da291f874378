import Foundation
import HummingbirdBcrypt
import StoryBridge

/// Bcrypt password hashes for the fleet's admins (`passwordBcrypt` in the content server's
/// config, made by `content-server hash-password`; docs/design/FLEET.md §5.4).
package enum AdminPassword {
    /// The cost `hash-password` uses: 2¹² rounds, about a quarter of a second on a current core.
    package static let defaultCost: UInt8 = 12

    /// A `$2b$` hash of `password` with a fresh salt.
    package static func hash(_ password: String, cost: UInt8 = defaultCost) -> String {
        Bcrypt.hash(password, cost: cost)
    }

    /// Whether `password` matches `hash`; slow on purpose (run it off the cooperative pool).
    package static func verify(_ password: String, hash: String) -> Bool {
        Bcrypt.verify(password, hash: hash)
    }

    /// Whether `text` has the form of a bcrypt hash: `$2a$`, `$2b$` or `$2y$`, a two-digit cost
    /// from 04 to 31, `$`, and 53 characters of bcrypt's base64.
    package static func isHash(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 60, text.hasPrefix("$2a$") || text.hasPrefix("$2b$") || text.hasPrefix("$2y$"),
            let cost = Int(String(decoding: bytes[4..<6], as: UTF8.self)), (4...31).contains(cost), bytes[6] == UInt8(ascii: "$")
        else { return false }
        let alphabet = Set("./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)
        return bytes[7...].allSatisfy(alphabet.contains)
    }
}

extension ContentServerAccounts.User {
    /// Whether `candidate` is the user's password: checked against ``passwordBcrypt`` (on the
    /// blocking pool: bcrypt is slow on purpose) when the user has one, else compared with
    /// ``password`` in constant time.
    func verifies(_ candidate: String) async -> Bool {
        if let hash = passwordBcrypt {
            return await BlockingIO.run { AdminPassword.verify(candidate, hash: hash) }
        }
        return !password.isEmpty && ConstantTime.equal(password, candidate)
    }
}
