import Foundation
import Synchronization

/// Rotates refresh tokens as the StoryCLM auth service does: each refresh answers a new refresh
/// token and the one presented stops working.
///
/// A password login starts a *family*; its refresh tokens carry the family id (`sid`) and a
/// generation (`gen`). Only the family's current generation is accepted. Using it moves the family
/// to the next generation and answers that generation's token. The previous generation is still
/// accepted for ``grace`` seconds after the rotation and answers the same successor, so two
/// requests that refresh at once (two threads of an app) both end up with the one valid token.
/// Any other use is refused with `invalid_grant`.
///
/// The families are kept in a JSON file in the server's folder (written atomically after every
/// change; it holds ids, generations and times, no token), so a restart neither forgets which
/// tokens were used nor logs everybody out; only the grace answer is lost across a restart.
/// Families whose newest token has expired are dropped.
final class RefreshTokenRotation: Sendable {
    /// One login's rotation state.
    struct Family: Codable, Sendable, Hashable {
        /// The generation accepted now.
        var generation: Int
        /// When the family last rotated (Unix seconds).
        var rotatedAt: Double
        /// The token of ``generation``, answered again to a use of the previous one within the grace;
        /// kept in memory only (the file holds no token).
        var successor: String?
        /// When the family's newest token expires (Unix seconds).
        var expiresAt: Double

        enum CodingKeys: String, CodingKey { case generation, rotatedAt, expiresAt }
    }

    /// How long after a rotation the previous token is still accepted, in seconds.
    let grace: TimeInterval
    private let file: URL?
    private let families: Mutex<[String: Family]>

    /// Rotation state kept in `file` (read now if it exists); `nil` keeps it in memory only.
    init(file: URL?, grace: TimeInterval) {
        self.file = file
        self.grace = grace
        let stored = file.flatMap { try? Data(contentsOf: $0) }.flatMap { try? JSONDecoder().decode([String: Family].self, from: $0) }
        families = Mutex(stored ?? [:])
    }

    /// Starts a family for a new login; `sign` makes its first token (generation 0) from the family id.
    func start(now: Date, expiresAt: Double, sign: (_ family: String, _ generation: Int) async -> String) async -> String {
        let family = UUID().uuidString.lowercased()
        let token = await sign(family, 0)
        families.withLock { families in
            families[family] = Family(generation: 0, rotatedAt: now.timeIntervalSince1970, successor: token, expiresAt: expiresAt)
            save(pruned(&families, now: now))
        }
        return token
    }

    /// The refresh token that replaces generation `generation` of `family`: a new one (signed by
    /// `sign` with the next generation) when `generation` is current, the same successor again when
    /// it is the previous one and the rotation is less than ``grace`` seconds old. The next token is
    /// signed before the state is locked (signing awaits jwt-kit's key collection) and used only
    /// when `generation` is current.
    func rotate(
        family id: String, generation: Int, now: Date, expiresAt: Double, sign: (_ family: String, _ generation: Int) async -> String
    ) async throws(TokenEndpointError) -> String {
        let candidate = await sign(id, generation + 1)
        let outcome: Result<String, TokenEndpointError> = families.withLock { families in
            guard var family = families[id] else {
                return .failure(.invalidGrant("the refresh token is no longer valid (its login is unknown or has ended)"))
            }
            let seconds = now.timeIntervalSince1970
            if generation == family.generation {
                let next = candidate
                family.generation += 1
                family.rotatedAt = seconds
                family.successor = next
                family.expiresAt = expiresAt
                families[id] = family
                save(pruned(&families, now: now))
                return .success(next)
            }
            if generation == family.generation - 1, seconds - family.rotatedAt <= grace, let successor = family.successor {
                return .success(successor)
            }
            return .failure(.invalidGrant("the refresh token has already been used; use the one answered with it"))
        }
        return try outcome.get()
    }

    private func pruned(_ families: inout [String: Family], now: Date) -> [String: Family] {
        families = families.filter { $0.value.expiresAt > now.timeIntervalSince1970 }
        return families
    }

    private func save(_ families: [String: Family]) {
        guard let file else { return }
        // Written atomically (a temporary file renamed into place); if the folder is not writable
        // the state still holds in memory for this run.
        try? FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        if let data = try? JSONEncoder().encode(families) { try? data.write(to: file, options: .atomic) }
    }
}
